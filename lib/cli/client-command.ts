// `mcp-engine client` and `mcp-engine demo`: the reference client's report against a stdio
// server it spawns or an HTTP endpoint (and, under MCP_CONFORMANCE_SCENARIO, one scenario of
// the official suite). main.ts loads this file only for these commands.
//
// stdout belongs to the report; the server's stderr, diagnostics and the pending-call display
// go to stderr. What a server or a network says is printed through the one printer for
// untrusted text (lib/codec/terminal-text.ts, CLI-01), and every line of the report once more
// as a whole. A spawned server gets the default environment of lib/hosts/spawn-env.ts and what
// --env asks for (CLI-02). The run budget (--run-timeout, CLI-03) starts before the server is
// spawned or reached and cancels the request in flight when it runs out.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectHttpNode } from "../hosts/http-client-node.js";
import type { Client } from "../peer/client/client.js";
import { MODERN_VERSIONS, SESSION_VERSIONS, type ProtocolVersion } from "../rules/versions.js";
import { ServerExitedError, StdioClient } from "../hosts/stdio.js";
import { requestedEnvironment } from "../hosts/spawn-env.js";
import { PeerAbortController, type AbortSignalLike } from "../peer/shared/signal.js";
import type { Root, Tool } from "../types/index.js";
import type { CliOptions } from "./args.js";
import { conformanceAuth, interactiveAuth, type CliAuth } from "./auth.js";
import { MESSAGE_WIDTH, printedLines, untrustedText } from "../codec/terminal-text.js";
import { errorText, exitCode, formatCheck, formatDiagnostic, formatTally, type CheckResult, type Diagnostic } from "./grading.js";
import { pendingDisplay, type Pending } from "./progress.js";
import {
  REFERENCE_CLIENT_INFO,
  installReferenceHandlers,
  referenceClientCapabilities,
  runReport,
  toolArguments,
  useSkills,
} from "./reference-client.js";
import { rootsFor } from "./roots.js";
import { sleep } from "./serve.js";

/**
 * Which era the reference client speaks (--era): "auto" offers 2026-07-28 first
 * (server/discover) and falls back to initialize; "session" only initializes; "modern" only
 * speaks 2026-07-28. The report's first line says which one was used. Every request gets the
 * --timeout (T-01), connecting too.
 */
function clientOptions(options: CliOptions): {
  versions: ProtocolVersion[];
  era: CliOptions["era"];
  logLevel: "debug";
  defaultTimeoutMs: number;
  connectTimeoutMs: number;
} {
  const versions =
    options.era === "session"
      ? [...SESSION_VERSIONS]
      : options.era === "modern"
        ? [...MODERN_VERSIONS]
        : [...SESSION_VERSIONS, ...MODERN_VERSIONS];
  // Connecting is part of the run: its wait is no longer than the run's budget.
  const connectTimeoutMs = Math.min(options.timeoutMs, options.runTimeoutMs);
  return { versions, era: options.era, logLevel: "debug", defaultTimeoutMs: options.timeoutMs, connectTimeoutMs };
}

/** The budget of one report (CLI-03): a signal that aborts `ms` after it is made; clear() when the run is over. */
function runBudget(ms: number): { signal: AbortSignalLike; clear(): void } {
  const controller = new PeerAbortController();
  const timer = setTimeout(() => controller.abort(`the run budget of ${ms} ms is spent`), ms);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

const rootsOf = (options: CliOptions): Root[] => rootsFor(options.roots, process.cwd());

/** The connection's diagnostics: each printed on stderr; the first 100 kept for the report's "protocol messages" check. */
function diagnostics(): { onDiagnostic: (event: Diagnostic) => void; seen: () => readonly Diagnostic[] } {
  const kept: Diagnostic[] = [];
  return {
    onDiagnostic: (event) => {
      process.stderr.write(`[${event.kind}] ${formatDiagnostic(event)}\n`);
      if (kept.length < 100) kept.push({ kind: event.kind, rule: event.rule, expected: event.expected, got: event.got });
    },
    seen: () => kept,
  };
}

/** The pending-call display on stderr: a live line on a terminal, plain progress lines elsewhere. */
const display = pendingDisplay({
  write: (text) => process.stderr.write(text),
  isTTY: process.stderr.isTTY === true,
  now: () => Date.now(),
  every: (ms, tick) => {
    const timer = setInterval(tick, ms).unref();
    return () => clearInterval(timer);
  },
});

/** The most of one unfinished line of a server's stderr kept before it is printed as it is. */
const MAX_PARTIAL_LINE = 64 * 1024;

/** A spawned server's stderr, printed line by line as untrusted text after "[server] " (a CR LF ending is a line end). */
function serverStderr(write: (text: string) => void): { push(text: string): void; flush(): void } {
  let partial = "";
  const emit = (line: string): void => write(`[server] ${untrustedText(line.endsWith("\r") ? line.slice(0, -1) : line, MESSAGE_WIDTH)}\n`);
  return {
    push(text) {
      const lines = (partial + text).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) emit(line);
      // A server that never ends its line does not grow this process: the line is printed (cut) and a new one begins.
      if (partial.length > MAX_PARTIAL_LINE) {
        emit(partial);
        partial = "";
      }
    },
    flush() {
      if (partial !== "") emit(partial);
      partial = "";
    },
  };
}

/** Runs the report on a connected client, prints it, closes, and returns the exit code; `ended` says what became of the server meanwhile. */
async function printReport(
  connection: { client: Client; close(): Promise<void> },
  title: string,
  options: CliOptions,
  seen: () => readonly Diagnostic[],
  budget: AbortSignalLike,
  ended?: () => Promise<string[]>,
): Promise<number> {
  const write = (text: string): void => {
    process.stdout.write(printedLines(text) + "\n");
  };
  installReferenceHandlers(connection.client, rootsOf(options));
  write(`mcp-engine client report for: ${title}`);
  const version = connection.client.server?.version ?? "latest";
  const counts = await runReport(connection.client, {
    print: (check: CheckResult) => write(formatCheck(check, version)),
    sleep: (ms) => sleep(ms),
    callDestructiveTools: options.callDestructive,
    timeoutMs: options.timeoutMs,
    pending: display,
    diagnostics: seen,
    signal: budget,
  });
  if (counts.stopped === true)
    write(
      `STOP  run budget: ${options.runTimeoutMs} ms (--run-timeout) ran out before the report was done; ` +
        "the checks above are all it made; closing the server",
    );
  for (const line of (await ended?.()) ?? []) process.stderr.write(`${line}\n`);
  await connection.close();
  write(formatTally(counts));
  return exitCode(counts);
}

async function report(command: string, args: readonly string[], options: CliOptions): Promise<number> {
  const { onDiagnostic, seen } = diagnostics();
  const budget = runBudget(options.runTimeoutMs);
  try {
    return await reportStdio(command, args, options, onDiagnostic, seen, budget.signal);
  } finally {
    budget.clear();
  }
}

async function reportStdio(
  command: string,
  args: readonly string[],
  options: CliOptions,
  onDiagnostic: (event: Diagnostic) => void,
  seen: () => readonly Diagnostic[],
  budget: AbortSignalLike,
): Promise<number> {
  const stderr = serverStderr((text) => process.stderr.write(text));
  // CLI-02: the server gets its default environment and what --env asks for, nothing else of ours.
  const { env, missing } = requestedEnvironment(options.env);
  for (const name of missing) process.stderr.write(`mcp-engine: --env ${untrustedText(name)}: not set here, so not passed to the server\n`);
  let connection: StdioClient;
  /** Whether the connection closed before the report closed it: the server's doing. */
  let closedByServer = false;
  // Connecting waits too (up to --timeout for a server that never answers): shown like a request.
  const connecting = display("connecting");
  try {
    connection = await StdioClient.spawn({
      ...clientOptions(options),
      command,
      args,
      env,
      info: REFERENCE_CLIENT_INFO,
      capabilities: referenceClientCapabilities(rootsOf(options)),
      stderr: (text) => stderr.push(text),
      onDiagnostic,
      onClose: () => {
        closedByServer = true;
      },
      // Nothing here reads the child's stdout itself.
      readInPlace: true,
    });
    connecting.end();
  } catch (error) {
    connecting.end();
    stderr.flush();
    process.stdout.write(`FAIL  initialize: ${errorText(error)}\n`);
    // A server that ended at start: what it last wrote is the cause, so the report shows it too.
    if (error instanceof ServerExitedError)
      for (const line of error.stderrTail) process.stdout.write(`      [server stderr] ${untrustedText(line, MESSAGE_WIDTH)}\n`);
    return 2;
  }
  // A server that ended during the report explains the failures after that point: how, and what it last wrote.
  const ended = async (): Promise<string[]> => {
    if (!closedByServer) return [];
    const child = connection.child;
    // Its output ends a moment before its exit is known.
    if (child.exitCode === null && child.signalCode === null)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2000);
        child.once("exit", () => {
          clearTimeout(timer);
          resolve();
        });
      });
    const { exitCode, signalCode } = child;
    // Still running with its output closed: its own business, nothing to say of an exit.
    if (exitCode === null && signalCode === null) return [];
    const how = signalCode !== null ? `was killed by ${signalCode}` : `exited with code ${exitCode}`;
    const tail = connection.stderrTail();
    return [
      `mcp-engine: the server ${how} during the report${tail.length > 0 ? "; the last lines of its stderr:" : ", writing nothing on stderr"}`,
      ...tail.map((line) => `  [server stderr] ${untrustedText(line, MESSAGE_WIDTH)}`),
    ];
  };
  try {
    return await printReport(connection, [command, ...args].join(" "), options, seen, budget, ended);
  } finally {
    stderr.flush();
  }
}

/** Connects over HTTP to `url`, prints the report, closes. */
async function reportHttp(url: string, options: CliOptions): Promise<number> {
  const { onDiagnostic, seen } = diagnostics();
  // OAuth: a protected server's 401 sends the user to a browser; the redirect comes back to a loopback listener.
  // Connecting waits too: shown like a request, its live line ended before the OAuth flow speaks.
  let connecting: Pending | undefined;
  const auth = await interactiveAuth((text) => {
    connecting?.end();
    process.stderr.write(text + "\n");
  });
  const budget = runBudget(options.runTimeoutMs);
  try {
    connecting = display("connecting");
    // The live line is erased before a failure is printed, not after (on a terminal it would erase the failure).
    const failed = (text: string): void => {
      connecting?.end();
      process.stdout.write(text + "\n");
    };
    const connection = await connectHttpOrReport(url, options, failed, onDiagnostic, auth).finally(() => connecting?.end());
    if (connection === undefined) return 2;
    return await printReport(connection, url, options, seen, budget.signal);
  } finally {
    budget.clear();
    await auth.close();
  }
}

async function connectHttpOrReport(
  url: string,
  options: CliOptions,
  write: (text: string) => void,
  onDiagnostic = diagnostics().onDiagnostic,
  auth?: CliAuth,
): Promise<{ client: Client; close(): Promise<void> } | undefined> {
  try {
    return await connectHttpNode({
      ...clientOptions(options),
      ...(auth !== undefined ? { auth: auth.auth } : {}),
      url,
      info: REFERENCE_CLIENT_INFO,
      capabilities: referenceClientCapabilities(rootsOf(options)),
      onDiagnostic,
      onError: (error) => process.stderr.write(`[http] ${errorText(error)}\n`),
    });
  } catch (error) {
    write(`FAIL  initialize: ${errorText(error)}`);
    return undefined;
  }
}

/**
 * The demo: the reference server spawned from `mainScript` (the CLI's main.js, which names itself:
 * this module may be bundled elsewhere). Without --root it declares one root, a temporary
 * directory it creates for the run and removes after it: a root it owns.
 */
export async function demo(options: CliOptions, mainScript: string): Promise<number> {
  const own = options.roots.length === 0 ? mkdtempSync(join(tmpdir(), "mcp-engine-demo-")) : undefined;
  try {
    return await report(process.execPath, [mainScript, "serve"], own === undefined ? options : { ...options, roots: [own] });
  } finally {
    if (own !== undefined) rmSync(own, { recursive: true, force: true });
  }
}

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
    out.push({
      name,
      arguments: typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {},
    });
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
 *   sep-2640-client-no-prefetch            lists the skills and reads none of their files
 *   sep-2640-client-verify-*               loads each listed skill and reads its files, stopping at the first that fails verification
 */
async function scenario(name: string, url: string, options: CliOptions): Promise<number> {
  const log = (text: string): void => {
    process.stderr.write(`[${untrustedText(name)}] ${untrustedText(text, Infinity)}\n`);
  };
  const connection = await connectHttpOrReport(url, options, log, undefined, conformanceAuth(name, process.env.MCP_CONFORMANCE_CONTEXT));
  if (connection === undefined) return 1;
  const { client } = connection;
  installReferenceHandlers(client, rootsOf(options));
  try {
    const declared = client.server?.capabilities ?? {};
    // C-01: a server that declared no tools is not asked for them (the initialize scenario's server declares none).
    const tools = declared.tools !== undefined ? await client.listTools() : [];
    log(`${tools.length} tools: ${tools.map((t) => untrustedText(t.name)).join(", ")}`);
    const find = (toolName: string): Tool => {
      const tool = tools.find((t) => t.name === toolName);
      if (tool === undefined) throw new Error(`the server has no tool ${toolName}`);
      return tool;
    };
    const callWith = async (toolName: string, args: Record<string, unknown>): Promise<void> => {
      const result = await client.callTool(toolName, args, { timeoutMs: options.timeoutMs });
      log(`${untrustedText(toolName)}: ${untrustedText(JSON.stringify(result.content))}`);
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
      case "sep-2640-client-no-prefetch":
      case "sep-2640-client-verify-digest":
      case "sep-2640-client-verify-size":
      case "sep-2640-client-verify-frontmatter":
        await useSkills(client, name === "sep-2640-client-no-prefetch", log, options.timeoutMs);
        break;
      case "json-schema-2020-12-preservation":
        await callWith("json_schema_echo", { schema: find("json_schema_2020_12_tool").inputSchema });
        break;
      default:
        // auth/*: the suite's protected servers check each operation's token (tools/call may need a step-up).
        if (name.startsWith("auth/")) {
          for (const tool of tools) await call(tool.name);
          break;
        }
        log("unknown scenario: connected and listed tools only");
    }
    return 0;
  } catch (error) {
    log(`failed: ${errorText(error)}`);
    return 1;
  } finally {
    await connection.close();
  }
}

/**
 * A case of the client role of `mcp-engine conform` (fixtures/FORMAT.md, "Client role"): the
 * runner plays the server, which the command we are given starts. The client connects (offering
 * only MCP_CONFORM_VERSION when the runner names a session version), answers what the server
 * asks, and stays until the server goes away or the run budget is spent. The fixture's own host
 * commands beyond initialize are not performed: the runner judges only cases that need none.
 */
async function stdioCase(command: string, args: readonly string[], options: CliOptions): Promise<number> {
  const budget = runBudget(options.runTimeoutMs);
  let closed: () => void = () => undefined;
  const serverGone = new Promise<void>((resolve) => (closed = resolve));
  try {
    const connection = await StdioClient.spawn({
      ...clientOptions(options),
      ...namedVersion(),
      command,
      args,
      info: REFERENCE_CLIENT_INFO,
      capabilities: referenceClientCapabilities(rootsOf(options)),
      stderr: "ignore",
      onClose: () => closed(),
    });
    installReferenceHandlers(connection.client, rootsOf(options));
    await new Promise<void>((resolve) => {
      void serverGone.then(resolve);
      budget.signal.addEventListener("abort", () => resolve());
    });
    await connection.close();
    return 0;
  } catch (error) {
    process.stderr.write(`mcp-engine client: ${errorText(error)}\n`);
    return 1;
  } finally {
    budget.clear();
  }
}

/** The one session version the runner names for the case (MCP_CONFORM_VERSION), if it names one. */
function namedVersion(): { versions?: ProtocolVersion[]; era?: "session" } {
  const version = process.env.MCP_CONFORM_VERSION;
  return (SESSION_VERSIONS as readonly string[]).includes(version ?? "") ? { versions: [version as ProtocolVersion], era: "session" } : {};
}

/**
 * The same case of the client role over Streamable HTTP (`conform --role client --transport http`):
 * the runner serves the case at the URL we are given. A server over HTTP has no stdout to close,
 * so the client stays until the run budget is spent or the runner ends it.
 */
async function httpCase(url: string, options: CliOptions): Promise<number> {
  const budget = runBudget(options.runTimeoutMs);
  try {
    const connection = await connectHttpNode({
      ...clientOptions(options),
      ...namedVersion(),
      url,
      info: REFERENCE_CLIENT_INFO,
      capabilities: referenceClientCapabilities(rootsOf(options)),
      onError: (error) => process.stderr.write(`[http] ${errorText(error)}\n`),
    });
    installReferenceHandlers(connection.client, rootsOf(options));
    await new Promise<void>((resolve) => budget.signal.addEventListener("abort", () => resolve()));
    await connection.close();
    return 0;
  } catch (error) {
    process.stderr.write(`mcp-engine client: ${errorText(error)}\n`);
    return 1;
  } finally {
    budget.clear();
  }
}

/** `mcp-engine client`: the report against the target (a command to spawn, or a URL). */
export function clientCommand(options: CliOptions): Promise<number> {
  const target = options.target;
  if (target === undefined) return Promise.resolve(2);
  const conformance = process.env.MCP_CONFORMANCE_SCENARIO;
  // A fixture id of the client role (fixtures/FORMAT.md, "Client role") rather than a scenario of the official suite.
  if (target.kind === "url" && conformance?.startsWith("client/") === true) return httpCase(target.url, options);
  if (target.kind === "url")
    return conformance !== undefined ? scenario(conformance, target.url, options) : reportHttp(target.url, options);
  return conformance !== undefined ? stdioCase(target.command, target.args, options) : report(target.command, target.args, options);
}
