#!/usr/bin/env node
// The `mcp-engine` command.
//
//   mcp-engine serve                   the reference server on stdio
//   mcp-engine client -- <command...>  spawn a stdio server and print the report
//   mcp-engine demo                    the report of the reference client against the reference server (npm start)
//
// stdout belongs to the protocol when serving; everything human goes to stderr then.
// Exit codes: 0 all checks passed, 1 a check failed, 2 bad usage or a connection failure.

import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { connectHttpNode } from "../hosts/http-client-node.js";
import { serveHttp } from "../hosts/http-server.js";
import type { Client } from "../peer/client.js";
import { MODERN_VERSIONS, SESSION_VERSIONS, type ProtocolVersion } from "../versions.js";
import { StdioClient, serveStdio } from "../hosts/stdio.js";
import type { HandlerContext } from "../peer/server.js";
import type { Tool } from "../types.js";
import { REFERENCE_CLIENT_CAPABILITIES, REFERENCE_CLIENT_INFO, installReferenceHandlers, runReport, toolArguments, type CheckResult } from "./reference-client.js";
import { createReferenceServer } from "./reference-server.js";

const USAGE = `usage:
  mcp-engine serve                    run the reference server on stdio
  mcp-engine serve --http HOST:PORT   run it over Streamable HTTP at http://HOST:PORT/mcp
                   [--legacy-sse]     and the deprecated HTTP+SSE transport at /sse and /messages
  mcp-engine client -- <command...>   spawn a stdio MCP server and report on everything it declares
  mcp-engine client <url>             the same report over Streamable HTTP (or HTTP+SSE)
                                      with MCP_CONFORMANCE_SCENARIO set: perform that conformance scenario against <url>
  mcp-engine demo                     the reference client against the reference server
options:
  --era auto|session|modern           client and demo: offer 2026-07-28 first and fall back to
                                      initialize (auto, the default), or speak only one era
`;

function sleep(ms: number, signal?: HandlerContext["signal"]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(new Error("cancelled"));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new Error("cancelled"));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

async function serve(args: readonly string[]): Promise<number> {
  const server = createReferenceServer({ paginationSecret: randomBytes(32), requestStateSecret: randomBytes(32), sleep });
  if (args[0] !== "--http") {
    serveStdio(server);
    return -1;
  }
  const address = args[1] ?? "";
  const colon = address.lastIndexOf(":");
  const host = colon > 0 ? address.slice(0, colon).replace(/^\[(.*)\]$/, "$1") : "";
  const port = Number(address.slice(colon + 1));
  if (host === "" || !Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`mcp-engine serve --http: expected HOST:PORT (e.g. 127.0.0.1:3000); got ${JSON.stringify(address)}\n`);
    return 2;
  }
  // --legacy-sse: also offer the deprecated HTTP+SSE transport of 2024-11-05 at /sse and /messages.
  const running = await serveHttp(server, { host, port, legacySse: args.includes("--legacy-sse") });
  process.stderr.write(`mcp-engine reference server listening on ${running.url}\n`);
  const stop = (): void => {
    running.close().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return -1;
}

function line(check: CheckResult): string {
  return `${check.ok ? "PASS" : "FAIL"}  ${check.name}: ${check.detail}`;
}

/**
 * Which era the reference client speaks (--era): "auto" offers 2026-07-28 first
 * (server/discover) and falls back to initialize; "session" only initializes; "modern" only
 * speaks 2026-07-28. The report's first line says which one was used.
 */
let eraOptions: { versions: ProtocolVersion[]; era: "auto" | "session" | "modern"; logLevel: "debug" } = {
  versions: [...SESSION_VERSIONS, ...MODERN_VERSIONS],
  era: "auto",
  logLevel: "debug",
};

function takeEra(args: string[]): string | undefined {
  const at = args.indexOf("--era");
  const dashdash = args.indexOf("--");
  if (at < 0 || (dashdash >= 0 && at > dashdash)) return undefined;
  const value = args[at + 1];
  args.splice(at, 2);
  if (value !== "auto" && value !== "session" && value !== "modern") return `--era takes auto, session or modern; got ${JSON.stringify(value)}`;
  eraOptions = { ...eraOptions, era: value, versions: value === "session" ? [...SESSION_VERSIONS] : value === "modern" ? [...MODERN_VERSIONS] : eraOptions.versions };
  return undefined;
}

async function report(command: string, args: readonly string[]): Promise<number> {
  const write = (text: string): void => {
    process.stdout.write(text + "\n");
  };
  let connection: StdioClient;
  try {
    connection = await StdioClient.spawn({
      ...eraOptions,
      command,
      args,
      info: REFERENCE_CLIENT_INFO,
      capabilities: REFERENCE_CLIENT_CAPABILITIES,
      stderr: (text) => process.stderr.write(`[server] ${text}`),
      connectTimeoutMs: 10_000,
      onDiagnostic: (event) => process.stderr.write(`[${event.kind}] ${event.rule}: expected ${event.expected}; got ${event.got}\n`),
    });
  } catch (error) {
    write(`FAIL  initialize: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  installReferenceHandlers(connection.client);
  write(`mcp-engine client report for: ${[command, ...args].join(" ")}`);
  const { passed, failed } = await runReport(connection.client, { print: (c) => write(line(c)), sleep: (ms) => sleep(ms) });
  await connection.close();
  write(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

/** Connects over HTTP to `url`, prints the report, closes. */
async function reportHttp(url: string): Promise<number> {
  const write = (text: string): void => {
    process.stdout.write(text + "\n");
  };
  const connection = await connectHttpOrReport(url, write);
  if (connection === undefined) return 2;
  installReferenceHandlers(connection.client);
  write(`mcp-engine client report for: ${url}`);
  const { passed, failed } = await runReport(connection.client, { print: (c) => write(line(c)), sleep: (ms) => sleep(ms) });
  await connection.close();
  write(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

async function connectHttpOrReport(url: string, write: (text: string) => void): Promise<{ client: Client; close(): Promise<void> } | undefined> {
  try {
    return await connectHttpNode({
      ...eraOptions,
      url,
      info: REFERENCE_CLIENT_INFO,
      capabilities: REFERENCE_CLIENT_CAPABILITIES,
      connectTimeoutMs: 10_000,
      onDiagnostic: (event) => process.stderr.write(`[${event.kind}] ${event.rule}: expected ${event.expected}; got ${event.got}\n`),
      onError: (error) => process.stderr.write(`[http] ${error instanceof Error ? error.message : String(error)}\n`),
    });
  } catch (error) {
    write(`FAIL  initialize: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/** The tool calls a scenario's MCP_CONFORMANCE_CONTEXT asks for (`{"toolCalls":[{"name","arguments"}]}`), if any. */
function contextToolCalls(text: string | undefined): { name: string; arguments: Record<string, unknown> }[] {
  if (text === undefined) return [];
  let context: unknown;
  try {
    context = JSON.parse(text);
  } catch {
    return [];
  }
  const calls = typeof context === "object" && context !== null ? (context as { toolCalls?: unknown }).toolCalls : undefined;
  if (!Array.isArray(calls)) return [];
  const out: { name: string; arguments: Record<string, unknown> }[] = [];
  for (const call of calls as unknown[]) {
    if (typeof call !== "object" || call === null) continue;
    const { name, arguments: args } = call as { name?: unknown; arguments?: unknown };
    if (typeof name !== "string") continue;
    out.push({ name, arguments: typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {} });
  }
  return out;
}

/**
 * The client scenarios of the official conformance suite: the suite runs us with the
 * scenario in MCP_CONFORMANCE_SCENARIO (its tool calls, if any, in MCP_CONFORMANCE_CONTEXT)
 * and its server's URL as the last argument; exit 0 means done. Connecting is part of every
 * scenario (request-metadata is only that: a refused server/discover retried with a version
 * the server names, the per-request `_meta` and headers); the others then call what the
 * scenario's server offers, as it expects:
 *   initialize, json-schema-ref-no-deref   list the tools only (and never fetch a schema's $ref)
 *   tools_call                             add_numbers
 *   elicitation-sep1034-client-defaults    test_client_elicitation_defaults
 *   sse-retry                              test_reconnection
 *   sep-2322-client-request-state          its four MRTR tools at once (rounds echo their own requestState)
 *   http-standard-headers                  every tool, resource and prompt (Mcp-Method, Mcp-Name)
 *   http-custom-headers                    the context's tool calls (Mcp-Param-{Name} headers)
 *   http-invalid-tool-headers              every tool kept (those with invalid x-mcp-header are left out)
 *   json-schema-2020-12-preservation       json_schema_echo with json_schema_2020_12_tool's inputSchema as listed
 */
async function scenario(name: string, url: string): Promise<number> {
  const log = (text: string): void => {
    process.stderr.write(`[${name}] ${text}\n`);
  };
  const connection = await connectHttpOrReport(url, log);
  if (connection === undefined) return 1;
  const { client } = connection;
  installReferenceHandlers(client);
  try {
    const declared = client.server?.capabilities ?? {};
    // C-01: a server that declared no tools is not asked for them (the initialize scenario's server declares none).
    const tools = declared.tools !== undefined ? await client.listTools() : [];
    log(`${tools.length} tools: ${tools.map((t) => t.name).join(", ")}`);
    const find = (toolName: string): Tool => {
      const tool = tools.find((t) => t.name === toolName);
      if (tool === undefined) throw new Error(`the server has no tool ${toolName}`);
      return tool;
    };
    const callWith = async (toolName: string, args: Record<string, unknown>): Promise<void> => {
      const result = await client.callTool(toolName, args, { timeoutMs: 30_000 });
      log(`${toolName}: ${JSON.stringify(result.content).slice(0, 200)}`);
    };
    const call = (toolName: string): Promise<void> => callWith(toolName, toolArguments(find(toolName)) ?? {});
    switch (name) {
      case "initialize":
      case "request-metadata":
      case "json-schema-ref-no-deref":
        break;
      case "tools_call":
        await call("add_numbers");
        break;
      case "elicitation-sep1034-client-defaults":
        await call("test_client_elicitation_defaults");
        break;
      case "sse-retry":
        await call("test_reconnection");
        break;
      case "sep-2322-client-request-state":
        // At once: the unrelated call goes out between the others' rounds and must carry none of their state.
        await Promise.all(["test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type"].map(call));
        break;
      case "http-standard-headers":
      case "http-invalid-tool-headers":
        for (const tool of tools) await call(tool.name);
        if (name === "http-invalid-tool-headers") break;
        if (declared.resources !== undefined) for (const resource of await client.listResources()) await client.readResource(resource.uri);
        if (declared.prompts !== undefined) for (const prompt of await client.listPrompts()) await client.getPrompt(prompt.name);
        break;
      case "http-custom-headers":
        for (const toolCall of contextToolCalls(process.env.MCP_CONFORMANCE_CONTEXT)) await callWith(toolCall.name, toolCall.arguments);
        break;
      case "json-schema-2020-12-preservation":
        await callWith("json_schema_echo", { schema: find("json_schema_2020_12_tool").inputSchema });
        break;
      default:
        log("unknown scenario: connected and listed tools only");
    }
    return 0;
  } catch (error) {
    log(`failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await connection.close();
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  const eraProblem = takeEra(rest);
  if (eraProblem !== undefined) {
    process.stderr.write(`${eraProblem}\n${USAGE}`);
    return 2;
  }
  switch (command) {
    case "serve":
      return serve(rest);
    case "client": {
      const conformance = process.env.MCP_CONFORMANCE_SCENARIO;
      const last = rest[rest.length - 1];
      if (conformance !== undefined && last !== undefined && /^https?:\/\//.test(last)) return scenario(conformance, last);
      if (rest[0] !== "--" && rest.length === 1 && /^https?:\/\//.test(rest[0] as string)) return reportHttp(rest[0] as string);
      const args = rest[0] === "--" ? rest.slice(1) : rest;
      if (args.length === 0) {
        process.stderr.write(USAGE);
        return 2;
      }
      return report(args[0] as string, args.slice(1));
    }
    case "demo":
      return report(process.execPath, [fileURLToPath(import.meta.url), "serve"]);
    case "--help":
    case "-h":
    case "help":
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(USAGE);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`mcp-engine: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 2;
  },
);
