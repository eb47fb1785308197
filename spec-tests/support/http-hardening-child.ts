// The server side of the HTTP hardening test and bench (spec-tests/support/http-attack.ts): the
// reference server behind serveHttp in a process of its own, so its heap is measured apart
// from the attackers'. Run with --expose-gc; argv[2] is maxSessions, argv[3] maxBodyBytes.
// Prints {"port":N} once listening; then answers each stdin line "stats" with one JSON line
// (heap after GC, sessions, stored snapshots, open ServerSessions) and exits on "exit".

import { randomBytes } from "node:crypto";
import { createReferenceServer } from "../../lib/cli/reference-server.js";
import { serveHttp } from "../../lib/hosts/http-server.js";
import { MemorySessionStore } from "../../lib/http-server/options.js";

function sleep(ms: number): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, ms));
}

async function main(): Promise<void> {
  const maxSessions = Number(process.argv[2] ?? "100");
  const maxBodyBytes = Number(process.argv[3] ?? String(1024 * 1024));
  const server = createReferenceServer({ paginationSecret: randomBytes(32), sleep: (ms) => sleep(ms) });
  const store = new MemorySessionStore();
  const running = await serveHttp(server, { maxSessions, maxBodyBytes, store, onError: () => {} });
  process.stdout.write(`${JSON.stringify({ port: running.port })}\n`);
  let pending = "";
  const decoder = new TextDecoder();
  process.stdin.on("data", (chunk) => {
    pending += decoder.decode(chunk, { stream: true });
    for (let newline = pending.indexOf("\n"); newline >= 0; newline = pending.indexOf("\n")) {
      const command = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      if (command === "stats") void stats();
      else if (command === "exit") void running.close().then(() => process.exit(0));
    }
  });
  async function stats(): Promise<void> {
    // Several collections with turns in between: finalizers and closed sockets let go late.
    for (let i = 0; i < 4; i++) {
      gc?.();
      await sleep(20);
    }
    const line = {
      heapUsed: process.memoryUsage().heapUsed,
      sessions: running.host.sessions.size,
      stored: store.size,
      serverSessions: server.sessions.size,
      exchanges: running.host.exchanges.size,
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  }
}

void main();
