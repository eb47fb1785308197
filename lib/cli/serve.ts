// `mcp-engine serve`: the reference server on stdio, or over HTTP with --http (and one node of
// several with --redis). main.ts loads this file only for serve, and this file loads at start
// only what the stdio server needs before its first answer (the reference server, the stdio
// host); the HTTP server, the Redis cluster and the conformance adapter are imported when asked
// for, so that `serve` answers its first initialize soon after node starts (bench/startup.ts).
//
// stdout belongs to the protocol; everything else goes to stderr.

import { randomBytes } from "node:crypto";
import { serveStdio } from "../hosts/stdio-server.js";
import type { HandlerContext } from "../peer/server/server-options.js";
import type { CliOptions } from "./args.js";
import { usageErrorLine } from "../codec/did-you-mean.js";
import { ANNOUNCEMENT_PREFIX, requestedProfile, serverOptionsFor } from "./conform/target-profiles.js";
import { MESSAGE_WIDTH, untrustedText } from "../codec/terminal-text.js";
import { errorText } from "./grading.js";
import { createReferenceServer } from "./reference-server.js";

export function sleep(ms: number, signal?: HandlerContext["signal"]): Promise<void> {
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

export async function serve(options: CliOptions): Promise<number> {
  // --redis: one node of several (lib/cli/cluster.ts): shared stores and keys.
  const node =
    options.redis === undefined
      ? undefined
      : await (await import("./cluster.js"))
          .joinCluster(options.redis, (text) =>
            process.stderr.write(`mcp-engine serve --redis: ${untrustedText(text.trimEnd(), MESSAGE_WIDTH)}\n`),
          )
          .catch((error: Error) => error);
  if (node instanceof Error) return (process.stderr.write(`mcp-engine serve --redis: ${errorText(node)}\n`), 2);
  // MCP_CONFORM=1 with MCP_CONFORM_PROFILE=<name>: a published target profile (conform/target-profiles.ts).
  const profile = requestedProfile(process.env);
  const server = createReferenceServer({
    paginationSecret: node?.paginationSecret ?? randomBytes(32),
    requestStateSecret: node?.requestStateSecret ?? randomBytes(32),
    sleep,
    tasks: node === undefined ? undefined : { store: node.taskStore },
    profileTools: process.env.MCP_CONFORM === "1",
    ...(profile !== undefined ? { profile: serverOptionsFor(profile.profile) } : {}),
  });
  if (options.http === undefined) {
    // Asked for by `mcp-engine conform`: a bare engine driven over the host-adapter channel instead.
    if (process.env.MCP_CONFORM_ADAPTER !== undefined) {
      const { adapterFd, serveAdapter } = await import("./conform/adapter.js");
      const fd = adapterFd(process.env);
      if (fd !== undefined) {
        serveAdapter(fd);
        return -1;
      }
    }
    if (profile !== undefined) process.stderr.write(`${ANNOUNCEMENT_PREFIX}${profile.name}\n`);
    serveStdio(server, { readInPlace: true });
    return -1;
  }
  const address = options.http;
  const colon = address.lastIndexOf(":");
  const host = colon > 0 ? address.slice(0, colon).replace(/^\[(.*)\]$/, "$1") : "";
  const port = Number(address.slice(colon + 1));
  if (host === "" || !Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(usageErrorLine("serve", `--http takes HOST:PORT (e.g. 127.0.0.1:3000); got ${JSON.stringify(address)}`));
    return 2;
  }
  // --legacy-sse: also offer the deprecated HTTP+SSE transport of 2024-11-05 at /sse and /messages.
  // Under Bun or Deno the fetch handler is served on the runtime's own server, not its node:http emulation.
  const { detectRuntime, serveOnRuntime } = await import("./runtime.js");
  const runtime = detectRuntime();
  // A client's requests may end up in an error's message: printed as untrusted text.
  const onError = (error: unknown): void => {
    process.stderr.write(`mcp-engine http: ${errorText(error)}\n`);
  };
  // --cors: browser pages of these origins may call (lib/http/cors.ts); off without it.
  const cors = options.cors.length === 0 ? {} : { cors: { origins: options.cors.includes("*") ? ("*" as const) : options.cors } };
  const served = { legacySse: options.legacySse, onError, ...cors, ...node?.http };
  const running =
    runtime === "node"
      ? await (await import("../hosts/http-server.js")).serveHttp(server, { host, port, ...served })
      : await serveOnRuntime(runtime, server, host, port, served);
  process.stderr.write(
    `mcp-engine reference server listening on ${running.url}${runtime === "node" ? "" : ` (${runtime}, fetch handler)`}\n`,
  );
  const stop = (): void => {
    // A runtime that waits for idle keep-alive connections to close on shutdown does not hold the exit for long.
    setTimeout(() => process.exit(0), 1000).unref();
    running.close().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return -1;
}
