// The server side of the HTTP attack tests and bench (spec-tests/support/http-attack.ts): the
// reference server in a process of its own, so its memory is measured apart from the
// attackers'. Run by Node (node --expose-gc: serveHttp on node:http), Bun (Bun.serve) or Deno
// (deno run --v8-flags=--expose-gc: Deno.serve behind its connection gate), the last two
// through lib/hosts/runtime-serve.ts as `mcp-engine serve --http` serves there.
// argv[2] is maxSessions, argv[3] maxBodyBytes, argv[4] (optional) a JSON object of further
// HttpServerOptions (the connection limits). Prints {"port":N,"innerPort":M} once listening
// (M: Deno's inner server behind its gate, else null); then answers
// each stdin line "stats" with one JSON line (heap after GC, RSS, sessions, stored snapshots,
// open ServerSessions, exchanges, connections where countable) and exits on "exit".

import { randomBytes } from "node:crypto";
import { createReferenceServer } from "../../lib/cli/reference-server.js";
import { serveHttp } from "../../lib/hosts/http-server.js";
import { serveOnBun, serveOnDeno, type BunGlobal, type DenoGlobal } from "../../lib/hosts/runtime-serve.js";
import type { HttpEndpoint } from "../../lib/http-server/endpoint.js";
import { MemorySessionStore, type HttpServerOptions } from "../../lib/http-server/options.js";

function sleep(ms: number): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, ms));
}

const runtime = globalThis as unknown as { Bun?: BunGlobal & { gc(force: boolean): void }; Deno?: DenoGlobal };

/** A full collection where the runtime offers one (Node and Deno with --expose-gc, Bun always). */
function collect(): void {
  if (runtime.Bun !== undefined) runtime.Bun.gc(true);
  else gc?.();
}

async function main(): Promise<void> {
  const maxSessions = Number(process.argv[2] ?? "100");
  const maxBodyBytes = Number(process.argv[3] ?? String(1024 * 1024));
  const limits = JSON.parse(process.argv[4] ?? "{}") as HttpServerOptions;
  const server = createReferenceServer({ paginationSecret: randomBytes(32), sleep: (ms) => sleep(ms) });
  const store = new MemorySessionStore();
  const options: HttpServerOptions = { ...limits, maxSessions, maxBodyBytes, store, onError: () => {} };
  let endpoint: HttpEndpoint;
  let port: number;
  let close: () => Promise<void>;
  let connections: () => number | undefined = () => undefined;
  let innerPort: number | undefined;
  if (runtime.Bun !== undefined || runtime.Deno !== undefined) {
    const running =
      runtime.Bun !== undefined
        ? await serveOnBun(runtime.Bun, server, options)
        : await serveOnDeno(runtime.Deno as DenoGlobal, server, options);
    ({ port, close, connections, innerPort } = running);
    endpoint = running.handler.endpoint;
  } else {
    const running = await serveHttp(server, options);
    ({ port, close } = running);
    endpoint = running.host;
  }
  process.stdout.write(`${JSON.stringify({ port, innerPort: innerPort ?? null })}\n`);
  let pending = "";
  const decoder = new TextDecoder();
  process.stdin.on("data", (chunk) => {
    pending += decoder.decode(chunk, { stream: true });
    for (let newline = pending.indexOf("\n"); newline >= 0; newline = pending.indexOf("\n")) {
      const command = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      if (command === "stats") void stats();
      else if (command === "exit") void close().then(() => process.exit(0));
    }
  });
  async function stats(): Promise<void> {
    // Several collections with turns in between: finalizers and closed sockets let go late.
    for (let i = 0; i < 4; i++) {
      collect();
      await sleep(20);
    }
    const memory = process.memoryUsage();
    const line = {
      heapUsed: memory.heapUsed,
      rss: memory.rss,
      sessions: endpoint.sessions.size,
      stored: store.size,
      serverSessions: server.sessions.size,
      exchanges: endpoint.exchanges.size,
      connections: connections() ?? null,
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  }
}

void main();
