// In-process round trips, the core against the peer layer against a floor, all in one run.
// For ping and tools/call, one at a time and 1000 in flight:
//
//   floor   JSON.stringify + JSON.parse of the same request and of the same response: the
//           work no JSON-RPC implementation in JavaScript can skip
//   core    a client Engine and a server Engine joined through bytes (engine.bench's pair)
//   peer    a Client and a Server (lib/peer) joined by a synchronous byte link, with a real
//           timer (setTimeout, as the Node hosts arm it) and the default timeouts
//
// Printed: round trips per CPU second (median of several runs, each stack alternating with the
// floor inside every repetition so drift hits them alike, each run starting from an emptied young
// generation and never from a forced full collection, see rates(); one process per stack and
// case, see run()), core ÷ floor, peer ÷ floor, peer ÷ core, and heap bytes allocated per round trip
// (collections accounted for; needs --expose-gc). Runs alone with
// `node --expose-gc dist/bench/run.js inproc`. Prints figures; never asserts or fails.

import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { JsonObject } from "../lib/index.js";
import { nodeHost } from "../lib/hosts/stdio.js";
import { Client } from "../lib/peer/client/client.js";
import { Server } from "../lib/peer/server/server.js";
import { getHeapStatistics, GCProfiler } from "node:v8";
import { PING, TOOLS_CALL, connectedPair, inFlight, type Case } from "./engine.bench.js";
import { collectGarbage, collectYoungGarbage, fmt, median, print } from "./run.js";

const WINDOW = 1000;
const REPETITIONS = 31;
/** Wall time aimed at for one measured run of one contender. */
const TARGET_MS = 25;
/** CPU milliseconds each contender runs, unmeasured, before its measured runs (see rates()). */
const WARMUP_MS = 1000;

// ── floor ───────────────────────────────────────────────────────────────────────

let floorId = 0;
let sink = 0;

function floor(c: Case, n: number): number {
  for (let i = 0; i < n; i++) {
    const id = floorId++;
    const request = JSON.parse(
      JSON.stringify(
        c.params === undefined ? { jsonrpc: "2.0", id, method: c.method } : { jsonrpc: "2.0", id, method: c.method, params: c.params },
      ),
    ) as JsonObject;
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
  const server = new Server({ info: { name: "bench-server", version: "1.0.0" } });
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

/**
 * Milliseconds of CPU this process spent on one run (user + system, all threads, so GC helper
 * threads count). CPU time rather than wall time: on a machine shared with other work, time the
 * process spends descheduled would otherwise land on whichever contender was running. Every
 * contender here is CPU-bound and never waits (the peer's link is synchronous, its timers never
 * fire), so the two agree on an idle machine.
 */
async function timeRun(run: Run, n: number): Promise<number> {
  const start = process.cpuUsage();
  const result = run(n);
  if (result instanceof Promise) await result;
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e3;
}

/** Round trips per run so that one run takes about TARGET_MS (a multiple of `step`). */
async function calibrate(run: Run, step: number): Promise<number> {
  for (let n = step; ; n *= 4) {
    const ms = await timeRun(run, n);
    if (ms >= 8) return Math.max(step, Math.round((n * TARGET_MS) / ms / step) * step);
  }
}

/** Round trips per second of each contender over REPETITIONS alternating runs of ~TARGET_MS each, run by run. */
async function rates(contenders: ReadonlyMap<string, Run>, step: number): Promise<Map<string, number[]>> {
  collectGarbage(); // before warming up: the deoptimization it causes is undone by then
  const sizes = new Map<string, number>();
  for (const [name, run] of contenders) sizes.set(name, await calibrate(run, step));
  // Warm-up: every contender runs (alternating) until it has spent WARMUP_MS of CPU. Two runs
  // of ~TARGET_MS were not enough for the peer: its first ten or so measured runs came out at
  // 4-15 k tools/call round trips per CPU second and the later ones at 50-95 k, as V8 was
  // still compiling its paths (on helper threads, whose CPU time counts) and a server runs
  // long past that. Then sizes are calibrated again, at the warmed-up speed.
  const spent = new Map<string, number>([...contenders.keys()].map((name) => [name, 0]));
  while ([...spent.values()].some((ms) => ms < WARMUP_MS)) {
    for (const [name, run] of contenders) {
      const n = sizes.get(name)!;
      const ms = await timeRun(run, n);
      spent.set(name, spent.get(name)! + ms);
      // Sized while still slow, a run soon takes a fraction of TARGET_MS: keep the rounds even.
      if (ms < TARGET_MS / 2) sizes.set(name, n * 2);
    }
  }
  for (const [name, run] of contenders) sizes.set(name, await calibrate(run, step));
  const samples = new Map<string, number[]>([...contenders.keys()].map((name) => [name, []]));
  // Each timed run starts from an empty young generation (a scavenge), not from a full
  // collection: a full one deoptimizes the code every contender runs (see
  // collectYoungGarbage), which no user sees every 25 ms; with it the peer's tools/call
  // measured 20-35 k round trips per CPU second here against 100-115 k in a loop without it.
  // Full collections that the runs' own allocation brings about still happen, and count.
  for (let r = 0; r < REPETITIONS; r++) {
    for (const [name, run] of contenders) {
      collectYoungGarbage();
      const n = sizes.get(name)!;
      samples.get(name)!.push(n / ((await timeRun(run, n)) / 1e3));
    }
  }
  return samples;
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

type Stack = "core" | "peer";

interface Row {
  /** Round trips per CPU second of the floor (median), measured in the same process as the stack. */
  readonly floor: number;
  readonly rate: number;
  /** Median over the repetitions of rate ÷ floor within each (adjacent runs share the machine's state). */
  readonly ratio: number;
  readonly heap: number;
}

/** One stack on one case, both modes, in this process: what a child prints as one JSON line. */
async function measure(stack: Stack, c: Case): Promise<Row[]> {
  const rows: Row[] = [];
  const pair = stack === "core" ? connectedPair() : undefined;
  const peers = stack === "peer" ? await connectedPeers() : undefined;
  for (const window of [1, WINDOW]) {
    const ours: Run = pair !== undefined ? (n) => inFlight(pair, c, n, window) : (n) => peerRun(peers!.client, c, n, window);
    const r = await rates(
      new Map<string, Run>([
        ["floor", (n) => floor(c, n)],
        [stack, ours],
      ]),
      window === 1 ? 100 : window,
    );
    const heap = await heapPerRoundTrip(ours, window === 1 ? 5000 : 5 * window, 5);
    const floors = r.get("floor")!;
    const mine = r.get(stack)!;
    rows.push({ floor: median(floors), rate: median(mine), ratio: median(mine.map((v, i) => v / floors[i]!)), heap });
  }
  peers?.close();
  return rows;
}

const HERE = fileURLToPath(import.meta.url);

/** Runs `measure` in a fresh node (same flags): see run() for why. */
function child(stack: Stack, c: Case): Row[] {
  const result = spawnSync(process.execPath, [...process.execArgv, HERE, stack, c.label], { encoding: "utf8", timeout: 120_000 });
  const last = result.stdout.trim().split("\n").pop() ?? "";
  if (result.status !== 0 || !last.startsWith("["))
    throw new Error(`${stack} ${c.label} child failed (status ${String(result.status)}): ${result.stderr.slice(0, 2000)}`);
  return JSON.parse(last) as Row[];
}

/**
 * Each stack and case is measured in a process of its own, against the floor measured
 * alternately in that same process; the peer's ratio to the core is the ratio of their ratios
 * to their floors. Why not one process: the peer drives the very Engine code the core bench
 * drives, with other shapes and paths, and once it has run V8's feedback for that code no
 * longer fits the core's use (measured: core tools/call one at a time at 0.34 of the floor
 * after the peer had run in the process, 0.63 without).
 */
export async function run(): Promise<void> {
  const hasGc = typeof (globalThis as { gc?: unknown }).gc === "function";
  print(
    `  round trips per CPU second (median of ${REPETITIONS} alternating runs of ~${TARGET_MS} ms), one process per stack and case, each with its floor; heap bytes per round trip${hasGc ? "" : " (needs --expose-gc)"}`,
  );
  print(
    `     ${"case".padEnd(26)} ${"floor".padStart(9)} ${"core".padStart(9)} ${"peer".padStart(9)}  ${"core/floor".padStart(10)} ${"peer/floor".padStart(10)} ${"peer/core".padStart(9)}  ${"heap B: core".padStart(12)} ${"peer".padStart(6)}`,
  );
  for (const c of [PING, TOOLS_CALL]) {
    const core = child("core", c);
    const peer = child("peer", c);
    for (const [i, window] of [1, WINDOW].entries()) {
      const k = core[i]!;
      const p = peer[i]!;
      const coreRatio = k.ratio;
      const peerRatio = p.ratio;
      const label = `${c.label}, ${window === 1 ? "one at a time" : `${window} in flight`}`;
      print(
        `     ${label.padEnd(26)} ${fmt(k.floor, 0)} ${fmt(k.rate, 0)} ${fmt(p.rate, 0)}  ${fmt(coreRatio, 2, 10)} ${fmt(peerRatio, 2, 10)} ${fmt(peerRatio / coreRatio, 2, 9)}  ${fmt(k.heap, 0, 12)} ${fmt(p.heap, 0, 6)}`,
      );
    }
  }
  if (sink === -1) print(""); // keeps the floor's results observable
}

// A child started by run(): `node inproc.bench.js core|peer ping|tools/call` prints its rows as JSON.
if (process.argv[1] !== undefined && resolve(process.argv[1]) === HERE) {
  const c = process.argv[3] === PING.label ? PING : TOOLS_CALL;
  measure(process.argv[2] === "peer" ? "peer" : "core", c).then(
    (rows) => process.stdout.write(JSON.stringify(rows) + "\n"),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
