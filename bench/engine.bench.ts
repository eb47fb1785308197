// Engine round trips: a client Engine and a server Engine joined through bytes, after a
// completed handshake. One round trip is
//
//   client.request → client.takeBytes → server.receiveBytes → server.pollEvent → server.respond
//   → server.takeBytes → client.receiveBytes → client.pollEvent
//
// (for `ping` the server engine answers by itself, so server.pollEvent finds nothing to respond to).
//
// 1. Throughput, ours against a floor measured in the same run. The floor is the bare work on
//    the same two messages of a round trip (request, then response): JSON.stringify +
//    TextEncoder.encode + TextDecoder.decode (fatal, as the engine's) + JSON.parse, per message.
//    With 1000 in flight the engine writes all queued messages into one buffer, so a second,
//    "batched" floor is printed for that mode: 1000 messages stringified into one string, one
//    encode, one decode, split on "\n", 1000 parses — per direction.
// 2. Heap bytes allocated per round trip (see allocationPerRoundTrip for the method).
// 3. A million round trips: heap after (after GC) against heap before (after GC).
//
// Prints figures; never asserts or fails.

import { performance, PerformanceObserver } from "node:perf_hooks";
import { getHeapSpaceStatistics } from "node:v8";
import { Engine } from "../lib/index.js";
import type { JsonObject } from "../lib/index.js";
import { collectGarbage, compare, fmt, median, print } from "./run.js";

const TOOL_PARAMS: JsonObject = { name: "echo", arguments: { text: "hello" } };
const TOOL_RESULT: JsonObject = { content: [{ type: "text", text: "hello" }] };
const PING_RESULT: JsonObject = {};

export interface Case {
  readonly label: string;
  readonly method: string;
  readonly params: JsonObject | undefined;
  /** What the server host answers (unused for ping, which the engine answers itself). */
  readonly result: JsonObject;
}

export const PING: Case = { label: "ping", method: "ping", params: undefined, result: PING_RESULT };
export const TOOLS_CALL: Case = { label: "tools/call", method: "tools/call", params: TOOL_PARAMS, result: TOOL_RESULT };

export interface Pair {
  readonly client: Engine;
  readonly server: Engine;
}

/** Surprises are counted, not thrown: the bench prints figures and never fails. */
let unexpected = 0;

function drainEvents(engine: Engine): void {
  while (engine.pollEvent() !== undefined);
}

export function connectedPair(): Pair {
  const client = new Engine({ role: "client", info: { name: "bench-client", version: "1.0.0" } });
  const server = new Engine({ role: "server", info: { name: "bench-server", version: "1.0.0" }, capabilities: { tools: {} } });
  client.initialize();
  server.receiveBytes(client.takeBytes()!);
  client.receiveBytes(server.takeBytes()!);
  server.receiveBytes(client.takeBytes()!); // notifications/initialized
  drainEvents(client);
  drainEvents(server);
  if (client.phase !== "operating" || server.phase !== "operating") {
    unexpected++;
    print(`  (handshake did not complete: client ${client.phase}, server ${server.phase})`);
  }
  return { client, server };
}

/** `n` round trips one at a time (a window of 1); returns how many responses arrived. */
export function oneAtATime(pair: Pair, c: Case, n: number): number {
  return inFlight(pair, c, n, 1);
}

/** `n` round trips in windows of `window` in flight (n a multiple of window). */
export function inFlight(pair: Pair, c: Case, n: number, window: number): number {
  const { client, server } = pair;
  const { method, params, result } = c;
  let responses = 0;
  for (let done = 0; done < n; done += window) {
    for (let i = 0; i < window; i++) client.request(method, params);
    server.receiveBytes(client.takeBytes()!);
    for (let ev = server.pollEvent(); ev !== undefined; ev = server.pollEvent()) {
      if (ev.kind === "request") server.respond(ev.id, result);
      else unexpected++;
    }
    client.receiveBytes(server.takeBytes()!);
    for (let ev = client.pollEvent(); ev !== undefined; ev = client.pollEvent()) {
      if (ev.kind === "response") responses++;
      else unexpected++;
    }
  }
  return responses;
}

// ── floors ──────────────────────────────────────────────────────────────────────

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });
/** Ids keep growing across runs, as the engine's do, so both write numbers of the same width. */
let floorId = 0;
let floorSink = 0;

function requestOf(c: Case, id: number): JsonObject {
  return c.params === undefined ? { jsonrpc: "2.0", id, method: c.method } : { jsonrpc: "2.0", id, method: c.method, params: c.params };
}

/** Per message: stringify, encode, decode, parse — request then response. */
function floorPerMessage(c: Case, n: number): number {
  for (let i = 0; i < n; i++) {
    const request = JSON.parse(decoder.decode(encoder.encode(JSON.stringify(requestOf(c, floorId++)) + "\n"))) as JsonObject;
    const response = JSON.parse(
      decoder.decode(encoder.encode(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: c.result }) + "\n")),
    ) as JsonObject;
    floorSink += response.id as number;
  }
  return floorSink;
}

function parseLines(text: string, into: JsonObject[]): void {
  let start = 0;
  for (let newline = text.indexOf("\n"); newline !== -1; newline = text.indexOf("\n", start)) {
    into.push(JSON.parse(text.slice(start, newline)) as JsonObject);
    start = newline + 1;
  }
}

/** Per window: all requests in one buffer, then all responses in one buffer. */
function floorBatched(c: Case, n: number, window: number): number {
  const requests: JsonObject[] = [];
  const responses: JsonObject[] = [];
  for (let done = 0; done < n; done += window) {
    let text = "";
    for (let i = 0; i < window; i++) text += JSON.stringify(requestOf(c, floorId++)) + "\n";
    requests.length = 0;
    parseLines(decoder.decode(encoder.encode(text)), requests);
    text = "";
    for (const request of requests) text += JSON.stringify({ jsonrpc: "2.0", id: request.id, result: c.result }) + "\n";
    responses.length = 0;
    parseLines(decoder.decode(encoder.encode(text)), responses);
    floorSink += responses.length;
  }
  return floorSink;
}

// ── 1. throughput ───────────────────────────────────────────────────────────────

const WINDOW = 1000;
/** Wall time aimed at for one measured run of one contender. */
const TARGET_MS = 120;

/** Round trips per run so that one run of `fn` takes about TARGET_MS (a multiple of `step`). */
function calibrate(fn: (n: number) => unknown, step: number): number {
  let n = step;
  for (;;) {
    const start = performance.now();
    fn(n);
    const ms = performance.now() - start;
    if (ms >= 20) return Math.max(step, Math.round((n * TARGET_MS) / ms / step) * step);
    n *= 4;
  }
}

function throughput(): void {
  print("  1. round trips/s (median of 7 runs of ~120 ms each; ratio = ours / floor, target >= 0.50)");
  print(`     ${"case".padEnd(30)} ${"ours".padStart(11)} ${"floor".padStart(11)} ${"ratio".padStart(6)}`);
  for (const c of [PING, TOOLS_CALL]) {
    const pair = connectedPair();
    // One at a time.
    {
      const n = calibrate((k) => oneAtATime(pair, c, k), 1000);
      const times = compare(
        [
          { name: "ours", fn: () => oneAtATime(pair, c, n) },
          { name: "floor", fn: () => floorPerMessage(c, n) },
        ],
        { warmup: 3, repetitions: 7 },
      );
      const ours = n / (times.get("ours")! / 1e3);
      const floor = n / (times.get("floor")! / 1e3);
      print(`     ${`${c.label}, one at a time`.padEnd(30)} ${fmt(ours, 0, 11)} ${fmt(floor, 0, 11)} ${fmt(ours / floor, 2, 6)}`);
    }
    // 1000 in flight.
    {
      const n = calibrate((k) => inFlight(pair, c, k, WINDOW), WINDOW);
      const times = compare(
        [
          { name: "ours", fn: () => inFlight(pair, c, n, WINDOW) },
          { name: "floor", fn: () => floorPerMessage(c, n) },
          { name: "batched floor", fn: () => floorBatched(c, n, WINDOW) },
        ],
        { warmup: 3, repetitions: 7 },
      );
      const ours = n / (times.get("ours")! / 1e3);
      const floor = n / (times.get("floor")! / 1e3);
      const batched = n / (times.get("batched floor")! / 1e3);
      print(`     ${`${c.label}, ${WINDOW} in flight`.padEnd(30)} ${fmt(ours, 0, 11)} ${fmt(floor, 0, 11)} ${fmt(ours / floor, 2, 6)}`);
      print(
        `     ${`${c.label}, ${WINDOW} in flight`.padEnd(30)} ${"".padStart(11)} ${fmt(batched, 0, 11)} ${fmt(ours / batched, 2, 6)}  (batched floor)`,
      );
    }
  }
}

// ── 2. allocation ───────────────────────────────────────────────────────────────

function newSpaceAvailable(): number {
  const space = getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
  return space === undefined ? 1 << 20 : space.space_available_size;
}

function macrotask(): Promise<void> {
  return new Promise((resolve) => {
    setTimeout(resolve, 0);
  });
}

interface AllocationFigure {
  /** Median heap bytes per round trip over the clean samples. */
  readonly bytes: number;
  readonly clean: number;
  readonly discarded: number;
  /** Round trips per sample (the last one used). */
  readonly n: number;
}

/**
 * Heap bytes allocated per round trip, by heapUsed deltas.
 *
 * Method: gc() (a full GC, which also empties the young generation), read heapUsed, run n round
 * trips, read heapUsed again without a GC, divide by n. This is exact only if no collection
 * runs in between: a scavenge frees the young garbage and the delta then under-counts. Node's
 * young generation starts with a semi-space of about 1 MiB and grows only under pressure, and
 * --max/min-semi-space-size cannot be changed after start-up, so rather than relying on a fixed
 * n = 20000 (which would certainly trigger scavenges), every sample
 *   - picks n so that the expected allocation fills at most half of the new space left free
 *     after the gc() (from v8.getHeapSpaceStatistics and the previous sample's bytes per trip);
 *   - is checked against a PerformanceObserver of "gc" entries: a sample during which any GC
 *     started is discarded (and n halved), so every figure kept is a collection-free delta.
 * The median of the clean samples is reported. heapUsed counts the JS heap only: the backing
 * stores of the Uint8Arrays from takeBytes live outside it (their headers are counted).
 */
async function allocationPerRoundTrip(run: (n: number) => unknown, step: number, samples: number): Promise<AllocationFigure> {
  const gcStarts: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcStarts.push(entry.startTime);
  });
  observer.observe({ entryTypes: ["gc"] });
  const figures: number[] = [];
  let perTrip = 4096; // pessimistic first guess
  let discarded = 0;
  let n = step;
  for (let attempt = 0; figures.length < samples && attempt < samples * 4; attempt++) {
    collectGarbage();
    n = Math.max(step, Math.min(20000, Math.floor(newSpaceAvailable() / 2 / perTrip / step) * step));
    const before = process.memoryUsage().heapUsed;
    const start = performance.now();
    run(n);
    const end = performance.now();
    const after = process.memoryUsage().heapUsed;
    await macrotask(); // GC entries are delivered asynchronously
    if (gcStarts.some((t) => t >= start && t <= end)) {
      discarded++;
      perTrip *= 2;
      continue;
    }
    const bytes = (after - before) / n;
    figures.push(bytes);
    perTrip = Math.max(64, bytes);
  }
  observer.disconnect();
  return { bytes: figures.length > 0 ? median(figures) : NaN, clean: figures.length, discarded, n };
}

async function allocation(): Promise<void> {
  const hasGc = typeof (globalThis as { gc?: unknown }).gc === "function";
  print(
    `  2. heap bytes allocated per round trip (median of collection-free samples; target < 2048)${hasGc ? "" : " — needs --expose-gc; figures unreliable"}`,
  );
  for (const c of [PING, TOOLS_CALL]) {
    const pair = connectedPair();
    oneAtATime(pair, c, 20000); // warm up
    inFlight(pair, c, 20 * WINDOW, WINDOW);
    floorPerMessage(c, 20000);
    const floor = await allocationPerRoundTrip((n) => floorPerMessage(c, n), 100, 9);
    const single = await allocationPerRoundTrip((n) => oneAtATime(pair, c, n), 100, 9);
    const windowed = await allocationPerRoundTrip((n) => inFlight(pair, c, n, WINDOW), WINDOW, 9);
    for (const [mode, f] of [
      ["floor", floor],
      ["one at a time", single],
      [`${WINDOW} in flight`, windowed],
    ] as const) {
      const label = `${c.label}, ${mode}`.padEnd(30);
      print(`     ${label} ${fmt(f.bytes, 0, 7)} B   (${f.clean} samples of ${f.n} round trips; ${f.discarded} discarded for a GC)`);
    }
  }
}

// ── 3. a million round trips ────────────────────────────────────────────────────

function heapAfterFullGc(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

function million(): void {
  const total = 1_000_000;
  const window = 100;
  const pair = connectedPair();
  inFlight(pair, TOOLS_CALL, 20_000, window); // reach steady state before the "before" reading
  const before = heapAfterFullGc();
  const start = performance.now();
  const responses = inFlight(pair, TOOLS_CALL, total, window);
  const seconds = (performance.now() - start) / 1e3;
  const after = heapAfterFullGc();
  if (responses !== total) unexpected++;
  print(
    `  3. ${total} tools/call round trips in windows of ${window}: ${seconds.toFixed(1)} s (${fmt(total / seconds, 0, 0)} round trips/s)`,
  );
  print(
    `     heap before ${fmt(before / 1024, 0, 0)} KiB, after ${fmt(after / 1024, 0, 0)} KiB, after/before ${fmt(after / before, 3, 0)} (target within 10%)`,
  );
  print(`     pending: client ${pair.client.pendingOutboundCount}, server ${pair.server.pendingInboundCount}`);
}

export async function run(): Promise<void> {
  unexpected = 0;
  throughput();
  await allocation();
  million();
  if (unexpected > 0) print(`  (${unexpected} unexpected events or missing responses: figures may not be meaningful)`);
  if (floorSink === -1) print(""); // keeps the floors' results observable
}
