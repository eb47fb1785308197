// 10^5 tools/call requests in flight through the peer layer (Client → Server in process, a
// synchronous byte link), with the default request timeout against no timeout at all: the
// deadlines of pending requests live in a heap (lib/engine/deadlines.ts), so answering one and
// re-arming the host's timer cost O(log n) and the ratio stays near 1. Prints; never fails.

import { performance } from "node:perf_hooks";
import { Client } from "../lib/peer/client/client.js";
import type { PeerHost } from "../lib/peer/shared/driver.js";
import { Server } from "../lib/peer/server/server.js";
import { fmt, median, print } from "./run.js";

const IN_FLIGHT = 100_000;
const LIMITS = { maxPendingOutbound: IN_FLIGHT + 16, maxPendingInbound: IN_FLIGHT + 16 };

async function pair(defaultTimeoutMs: number): Promise<Client> {
  const server = new Server({
    info: { name: "bench-server", version: "1.0.0" },
    limits: LIMITS,
    maxConcurrentHandlers: IN_FLIGHT + 16,
  });
  server.tool("fast", { description: "answers at once", inputSchema: { type: "object" } }, () => ({
    content: [{ type: "text", text: "ok" }],
  }));
  let client: Client | undefined;
  const serverHost: PeerHost = {
    write: (bytes) => client?.driver.receiveBytes(bytes),
    now: () => performance.now(),
    armTimer: () => undefined,
  };
  const session = server.connect(serverHost);
  const clientHost: PeerHost = { write: (bytes) => session.receiveBytes(bytes), now: () => performance.now(), armTimer: () => undefined };
  client = new Client(clientHost, { info: { name: "bench-client", version: "1.0.0" }, defaultTimeoutMs, limits: LIMITS });
  await client.connect();
  return client;
}

async function burst(client: Client): Promise<number> {
  const start = performance.now();
  const calls: Promise<unknown>[] = [];
  for (let i = 0; i < IN_FLIGHT; i++) calls.push(client.callTool("fast"));
  await Promise.all(calls);
  return performance.now() - start;
}

export async function run(): Promise<void> {
  print(`deadlines: ${IN_FLIGHT} tools/call in flight through the peer layer, ms (median of 3)`);
  const withTimeouts = await pair(60_000);
  const without = await pair(Infinity);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < 3; i++) {
    a.push(await burst(withTimeouts));
    b.push(await burst(without));
  }
  const timed = median(a);
  const untimed = median(b);
  print(`  default timeouts ${fmt(timed, 0)}   timeouts off ${fmt(untimed, 0)}   ratio ${fmt(timed / untimed, 2, 5)} (target <= 1.5)`);
}
