// Which runtime runs the command, and serving a fetch handler on that runtime's own HTTP
// server: `mcp-engine serve --http` under Bun uses Bun.serve and under Deno Deno.serve (not
// their node:http emulation), with the limits each allows (lib/hosts/runtime-serve.ts); under
// Node it stays on node:http (lib/hosts/http-server.ts).
//
// Invariants: detection reads only the runtimes' own globals; a served address is reported
// back as the URL of the MCP endpoint; close() stops accepting and ends every session.

import type { HttpServerOptions } from "../http-server/options.js";
import type { Server } from "../peer/server/server.js";
import { serveOnBun, serveOnDeno, type BunGlobal, type DenoGlobal } from "../hosts/runtime-serve.js";

export type Runtime = "bun" | "deno" | "node";

const runtimeGlobals = globalThis as unknown as { Bun?: BunGlobal; Deno?: DenoGlobal };

export function detectRuntime(): Runtime {
  if (runtimeGlobals.Bun !== undefined) return "bun";
  if (runtimeGlobals.Deno !== undefined) return "deno";
  return "node";
}

export interface ServedFetch {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves `server` through the fetch handler on Bun's or Deno's own server; resolves once listening. */
export async function serveOnRuntime(
  runtime: "bun" | "deno",
  server: Server,
  host: string,
  port: number,
  options: Omit<HttpServerOptions, "host" | "port">,
): Promise<ServedFetch> {
  return runtime === "bun"
    ? serveOnBun(runtimeGlobals.Bun as BunGlobal, server, { ...options, host, port })
    : serveOnDeno(runtimeGlobals.Deno as DenoGlobal, server, { ...options, host, port });
}
