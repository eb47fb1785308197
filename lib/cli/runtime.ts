// Which runtime runs the command, and serving a fetch handler on that runtime's own HTTP
// server: `mcp-engine serve --http` under Bun uses Bun.serve and under Deno Deno.serve (not
// their node:http emulation); under Node it stays on node:http (lib/hosts/http-server.ts).
//
// Invariants: detection reads only the runtimes' own globals; a served address is reported
// back as the URL of the MCP endpoint; close() stops accepting and ends every session.

import { createHttpHandler, type HttpHandlerOptions } from "../http-server/index.js";
import type { Server } from "../peer/server/server.js";

export type Runtime = "bun" | "deno" | "node";

interface BunGlobal {
  serve(options: { hostname: string; port: number; idleTimeout?: number; fetch(request: Request): Promise<Response> }): {
    readonly port: number;
    stop(closeActiveConnections?: boolean): void;
  };
}

interface DenoGlobal {
  serve(
    options: { hostname: string; port: number; onListen?(address: { port: number }): void },
    handler: (request: Request) => Promise<Response>,
  ): { shutdown(): Promise<void> };
}

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
  options: HttpHandlerOptions,
): Promise<ServedFetch> {
  const handler = createHttpHandler(server, options);
  const path = options.path ?? "/mcp";
  const shown = host.includes(":") ? `[${host}]` : host;
  if (runtime === "bun") {
    const bun = runtimeGlobals.Bun as BunGlobal;
    // idleTimeout 0: an SSE stream (a GET stream, a long tool call) may stay quiet for long; Bun's default cuts it at 10 s.
    const served = bun.serve({ hostname: host, port, idleTimeout: 0, fetch: (request) => handler.fetch(request) });
    return {
      url: `http://${shown}:${served.port}${path}`,
      close: async () => {
        handler.close();
        served.stop(true);
      },
    };
  }
  const deno = runtimeGlobals.Deno as DenoGlobal;
  let listening!: (port: number) => void;
  const bound = new Promise<number>((resolve) => {
    listening = resolve;
  });
  const served = deno.serve({ hostname: host, port, onListen: (address) => listening(address.port) }, (request) => handler.fetch(request));
  const actual = await bound;
  return {
    url: `http://${shown}:${actual}${path}`,
    close: async () => {
      handler.close();
      await served.shutdown();
    },
  };
}
