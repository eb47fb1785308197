// In-process round trips, the core against the peer layer against a floor, all in one run
// (issue 17's "Done when" rows). For ping and tools/call, one at a time and 1000 in flight:
//
//   floor   JSON.stringify + JSON.parse of the same request and of the same response: the
//           work no JSON-RPC implementation in JavaScript can skip
//   core    a client Engine and a server Engine joined through bytes (engine.bench's pair)
//   peer    a Client and a Server (lib/peer) joined by a synchronous byte link, with a real
//           timer (setTimeout, as the Node hosts arm it) and the default timeouts
//
// Printed: round trips per second (median of several runs, contenders alternating inside each
// repetition so drift hits them alike), core ÷ floor and peer ÷ core, and heap bytes allocated
// per round trip (median of collection-free samples; needs --expose-gc). Runs alone with
// `node --expose-gc dist/bench/run.js inproc`. Prints figures; never asserts or fails.

import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { JsonObject } from "../lib/index.js";
import { nodeHost } from "../lib/hosts/stdio.js";
import { Client } from "../lib/peer/client.js";
import { Server } from "../lib/peer/server.js";
import { getHeapStatistics, GCProfiler } from "node:v8";
import { PING, TOOLS_CALL, connectedPair, inFlight, type Case } from "./engine.bench.js";
import { collectGarbage, fmt, median, print } from "./run.js";

const WINDOW = 1000;
const REPETITIONS = 9;
/** Wall time aimed at for one measured run of one contender. */
const TARGET_MS = 80;

// ── floor ───────────────────────────────────────────────────────────────────────

let floorId = 0;
let sink = 0;

function floor(c: Case, n: number): number {
  for (let i = 0; i < n; i++) {
    const id = floorId++;
    const request = JSON.parse(JSON.stringify(c.params === undefined ? { jsonrpc: "2.0", id, method: c.method } : { jsonrpc: "2.0", id, method: c.method, params: c.params })) as JsonObject;
    const response = JSON.parse(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: c.result })) as JsonObject;
    sink += response.id as number;
  }
  return sink;
}

// ── peer ────────────────────────────────────────────────────────────────────────

interface Peers {
  readonly client: Client;
  readonly close: () => void;
}

/** A connected Client and Server: bytes cross synchronously; timers are Node's, timeouts the defaults. */
async function connectedPeers(): Promise<Peers> {
  const server = new Server({ info: { name: "bench-server", version: "1.0.0" }, paginationSecret: randomBytes(32) });
  const inputSchema = { type: "object" as const, properties: { text: { type: "string" } }, required: ["text"] };
  server.tool("echo", { description: "answers at once", inputSchema }, () => TOOLS_CALL.result as never);
  let client: Client | undefined;
  const serverHost = nodeHost(
    (bytes) => client?.driver.receiveBytes(bytes),
    () => session.onTimer(),
  );
  const session = server.connect(serverHost);
  const clientHost = nodeHost(
    (bytes) => session.receiveBytes(bytes),
    () => client?.driver.onTimer(),
  );
  client = new Client(clientHost, { info: { name: "bench-client", version: "1.0.0" } });
  await client.connect();
  const c = client;
  return {
    client: c,
    close: () => {
      c.close();
      serverHost.armTimer(undefined);
      clientHost.armTimer(undefined);
    },
  };
}

function peerCall(client: Client, c: Case): Promise<unknown> {
  return c.method === "ping" ? client.ping() : client.callTool("echo", TOOLS_CALL.params!.arguments as Record<string, unknown>);
}

async function peerRun(client: Client, c: Case, n: number, window: number): Promise<number> {
  let answered = 0;
  if (window === 1) {
    for (let i = 0; i < n; i++) {
      await peerCall(client, c);
      answered++;
    }
    return answered;
  }
  const calls: Promise<unknown>[] = new Array<Promise<unknown>>(window);
  for (let done = 0; done < n; done += window) {
    for (let i = 0; i < window; i++) calls[i] = peerCall(client, c);
    answered += (await Promise.all(calls)).length;
  }
  return answered;
}

// ── measuring ───────────────────────────────────────────────────────────────────

type Run = (n: number) => unknown;

async function timeRun(run: Run, n: number): Promise<number> {
  const start = performance.now();
  const result = run(n);
  if (result instanceof Promise) await result;
  return performance.now() - start;
}

/** Round trips per run so that one run takes about TARGET_MS (a multiple of `step`). */
async function calibrate(run: Run, step: number): Promise<number> {
  for (let n = step; ; n *= 4) {
    const ms = await timeRun(run, n);
    if (ms >= 15) return Math.max(step, Math.round((n * TARGET_MS) / ms / step) * step);
  }
}

/** Round trips per second of each contender: medians over REPETITIONS alternating runs of ~TARGET_MS each. */
async function rates(contenders: ReadonlyMap<string, Run>, step: number): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  for (const [name, run] of contenders) sizes.set(name, await calibrate(run, step));
  for (let i = 0; i < 2; i++) for (const [name, run] of contenders) await timeRun(run, sizes.get(name)!);
  const samples = new Map<string, number[]>([...contenders.keys()].map((name) => [name, []]));
  for (let r = 0; r < REPETITIONS; r++) {
    for (const [name, run] of contenders) {
      collectGarbage();
      const n = sizes.get(name)!;
      samples.get(name)!.push(n / ((await timeRun(run, n)) / 1e3));
    }
  }
  return new Map([...samples].map(([name, values]) => [name, median(values)]));
}

/**
 * Heap bytes allocated per round trip: median over `samples` runs of `n`. Collections during a
 * run are accounted for rather than avoided (the peer with 1000 in flight allocates more than
 * the young generation holds): allocated = heap used after − before + what each GC freed, as
 * v8.GCProfiler reports every collection's used heap before and after it.
 */
async function heapPerRoundTrip(run: Run, n: number, samples: number): Promise<number> {
  const figures: number[] = [];
  for (let s = 0; s < samples; s++) {
    collectGarbage();
    const profiler = new GCProfiler();
    profiler.start();
    const before = getHeapStatistics().used_heap_size;
    const pending = run(n);
    if (pending instanceof Promise) await pending;
    const after = getHeapStatistics().used_heap_size;
    let freed = 0;
    for (const gc of profiler.stop().statistics) freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
    figures.push((after - before + freed) / n);
  }
  return median(figures);
}

export async function run(): Promise<void> {
  const hasGc = typeof (globalThis as { gc?: unknown }).gc === "function";
  print(`  round trips/s (median of ${REPETITIONS} alternating runs of ~${TARGET_MS} ms) and heap bytes per round trip${hasGc ? "" : " (needs --expose-gc)"}`);
  print(`     ${"case".padEnd(26)} ${"floor".padStart(9)} ${"core".padStart(9)} ${"peer".padStart(9)}  ${"core/floor".padStart(10)} ${"peer/core".padStart(9)}  ${"heap B: core".padStart(12)} ${"peer".padStart(6)}`);
  for (const c of [PING, TOOLS_CALL]) {
    const pair = connectedPair();
    const peers = await connectedPeers();
    for (const window of [1, WINDOW]) {
      const contenders = new Map<string, Run>([
        ["floor", (n) => floor(c, n)],
        ["core", (n) => inFlight(pair, c, n, window)],
        ["peer", (n) => peerRun(peers.client, c, n, window)],
      ]);
      const r = await rates(contenders, window === 1 ? 100 : window);
      const heapN = window === 1 ? 5000 : 5 * window;
      const coreHeap = await heapPerRoundTrip(contenders.get("core")!, heapN, 5);
      const peerHeap = await heapPerRoundTrip(contenders.get("peer")!, heapN, 5);
      const [f, core, peer] = [r.get("floor")!, r.get("core")!, r.get("peer")!];
      const label = `${c.label}, ${window === 1 ? "one at a time" : `${window} in flight`}`;
      print(`     ${label.padEnd(26)} ${fmt(f, 0)} ${fmt(core, 0)} ${fmt(peer, 0)}  ${fmt(core / f, 2, 10)} ${fmt(peer / core, 2, 9)}  ${fmt(coreHeap, 0, 12)} ${fmt(peerHeap, 0, 6)}`);
    }
    peers.close();
  }
  if (sink === -1) print(""); // keeps the floor's results observable
}
