// Round trips of tools/call through the peer layer (Client → Server), against the core's
// in-process figure measured in the same run:
//
//   core in-process   two Engines joined by bytes (as in engine.bench), no Promises
//   peer in-process   Client and Server joined by a synchronous byte link: adds the peer
//                     layer's Promises, handler dispatch and validation
//   peer over stdio   the reference server in a child process (`mcp-engine serve`), the
//                     client here: adds pipes, two processes and event-loop turns
//
// Each is measured one call at a time and with 100 calls in flight. Prints figures; never
// asserts or fails.

import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { StdioClient } from "../lib/hosts/stdio.js";
import { Client } from "../lib/peer/client.js";
import type { PeerHost } from "../lib/peer/driver.js";
import { Server } from "../lib/peer/server.js";
import { TOOLS_CALL, connectedPair, inFlight, oneAtATime } from "./engine.bench.js";
import { fmt, median, print } from "./run.js";

const MAIN = fileURLToPath(new URL("../lib/cli/main.js", import.meta.url));
const MEASURE_MS = 1500;

/** Round trips per second of `batch` (which performs `size` round trips), repeated for about MEASURE_MS, median of 5 rounds. */
async function rate(batch: () => Promise<unknown> | unknown, size: number): Promise<number> {
  for (let i = 0; i < 3; i++) await batch();
  const rates: number[] = [];
  for (let round = 0; round < 5; round++) {
    let done = 0;
    const start = performance.now();
    while (performance.now() - start < MEASURE_MS / 5) {
      await batch();
      done += size;
    }
    rates.push(done / ((performance.now() - start) / 1000));
  }
  return median(rates);
}

/** A Client and a Server joined by a synchronous in-memory byte link and a clock that never fires. */
async function inProcessPeers(): Promise<Client> {
  const server = new Server({ info: { name: "bench-server", version: "1.0.0" }, paginationSecret: randomBytes(32) });
  server.tool("test_tool_fast", { description: "answers at once", inputSchema: { type: "object" } }, () => ({ content: [{ type: "text", text: "fast" }] }));
  let client: Client | undefined;
  const serverHost: PeerHost = { write: (bytes) => client?.driver.receiveBytes(bytes), now: () => performance.now(), armTimer: () => undefined };
  const session = server.connect(serverHost);
  const clientHost: PeerHost = { write: (bytes) => session.receiveBytes(bytes), now: () => performance.now(), armTimer: () => undefined };
  client = new Client(clientHost, { info: { name: "bench-client", version: "1.0.0" }, defaultTimeoutMs: Infinity });
  await client.connect();
  return client;
}

function window(client: Client, n: number): Promise<unknown> {
  const calls: Promise<unknown>[] = [];
  for (let i = 0; i < n; i++) calls.push(client.callTool("test_tool_fast"));
  return Promise.all(calls);
}

export async function run(): Promise<void> {
  print("  tools/call round trips per second (median of 5 rounds)");
  print("     path                               1 at a time   ratio      100 in flight   ratio");
  const pair = connectedPair();
  const coreOne = await rate(() => oneAtATime(pair, TOOLS_CALL, 100), 100);
  const coreMany = await rate(() => inFlight(pair, TOOLS_CALL, 100, 100), 100);
  print(`     core in-process               ${fmt(coreOne, 0, 12)}    1.00   ${fmt(coreMany, 0, 14)}    1.00`);

  const local = await inProcessPeers();
  const localOne = await rate(() => local.callTool("test_tool_fast"), 1);
  const localMany = await rate(() => window(local, 100), 100);
  print(`     peer in-process               ${fmt(localOne, 0, 12)}  ${fmt(localOne / coreOne, 3, 6)}   ${fmt(localMany, 0, 14)}  ${fmt(localMany / coreMany, 3, 6)}`);

  const remote = await StdioClient.spawn({ command: process.execPath, args: [MAIN, "serve"], info: { name: "bench-client", version: "1.0.0" }, defaultTimeoutMs: 30_000 });
  try {
    const stdioOne = await rate(() => remote.client.callTool("test_tool_fast"), 1);
    const stdioMany = await rate(() => window(remote.client, 100), 100);
    print(`     peer over stdio (2 processes) ${fmt(stdioOne, 0, 12)}  ${fmt(stdioOne / coreOne, 3, 6)}   ${fmt(stdioMany, 0, 14)}  ${fmt(stdioMany / coreMany, 3, 6)}`);
  } finally {
    await remote.close();
  }
}
