// The read-to-write paths of one call at a time with cold caches, the CPU caches emptied
// before each step (a walk over a buffer larger than them). That is what each end of a stdio
// pair pays one call at a time: it sleeps while the other end works, and wakes with its code
// and data evicted. bench/peer-stdio.bench.ts measures the whole over real pipes, where the
// machine's wake-ups make single runs swing; this measures the stack's share of it in one
// process, where they do not.
//
// Server: a request's bytes arrive → its answer's bytes are written. Contenders, fed the same
// request lines, taking turns request by request:
//   bare   TextDecoder + JSON.parse, JSON.stringify of the answer + TextEncoder (the far end of
//          bench/peer-stdio's bare pair)
//   core   a server Engine: receiveBytes, pollEvent, respond, takeBytes
//   peer   a Server with the tool (lib/peer), through its ServerSession's bytes
// Client: an answer's bytes arrive → the caller, awaiting that call, makes the next one → its
// request's bytes are written. bare is bench/peer-stdio's bare client (a Map of pending ids,
// JSON.stringify, JSON.parse), peer a Client (lib/peer) on a host that records its writes.
// Printed: median and 90th percentile µs, and each one's median ÷ bare's.
// Prints figures; never asserts or fails.

import { performance } from "node:perf_hooks";
import { Engine } from "../lib/index.js";
import { Client } from "../lib/peer/client/client.js";
import { Server } from "../lib/peer/server/server.js";
import { TOOL_RESULT, bareAnswers, bareServer } from "./bare-jsonl.js";
import { fmt, median, print } from "./run.js";

const REQUESTS = 300;
const REPETITIONS = 6;
/** Larger than the caches of the machines this runs on (the walk touches one byte in 64). */
const EVICT_BYTES = 16 * 1024 * 1024;

const utf8 = new TextEncoder();
const INITIALIZE = utf8.encode(
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
);
type Method = "ping" | "tools/call";

/** When the contender last wrote: set by its write, read after its call returns. */
let wroteAt = 0;

function bare(): (chunk: Uint8Array) => void {
  const answer = bareServer();
  /** Read by nothing: keeps the encode (the bare end's write, here) from being optimized away. */
  let sink = 0;
  return (chunk) => {
    const out = answer(chunk);
    if (out.length === 0) return;
    sink += utf8.encode(out).length;
    wroteAt = performance.now();
  };
}

function core(): (chunk: Uint8Array) => void {
  const engine = new Engine({ role: "server", info: { name: "bench", version: "1" }, capabilities: { tools: {} } });
  engine.receiveBytes(INITIALIZE);
  while (engine.pollEvent() !== undefined);
  engine.takeBytes();
  return (chunk) => {
    engine.receiveBytes(chunk);
    for (let event = engine.pollEvent(); event !== undefined; event = engine.pollEvent())
      if (event.kind === "request") engine.respond(event.id, TOOL_RESULT);
    if (engine.takeBytes() !== undefined) wroteAt = performance.now();
  };
}

/** The peer Server both ends talk to: the one tool, answering at once. */
function toolServer(): Server {
  const server = new Server({ info: { name: "bench", version: "1" } });
  server.tool("test_tool_fast", { inputSchema: { type: "object", properties: {} } }, () => ({ content: [{ type: "text", text: "fast" }] }));
  return server;
}

function peer(): (chunk: Uint8Array) => void {
  const server = toolServer();
  const session = server.connect({
    write: () => void (wroteAt = performance.now()),
    now: () => performance.now(),
    armTimer: () => undefined,
  });
  session.receiveBytes(INITIALIZE);
  return (chunk) => session.receiveBytes(chunk);
}

const evictable = new Uint8Array(EVICT_BYTES);

function evictCaches(): void {
  for (let i = 0; i < evictable.length; i += 64) evictable[i] = (evictable[i]! + 1) & 0xff;
}

function requestLine(method: Method, id: number): Uint8Array {
  return utf8.encode(
    method === "ping"
      ? `{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`
      : `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"test_tool_fast","arguments":{}}}\n`,
  );
}

function measure(method: Method): void {
  const contenders = [
    { label: "bare", feed: bare(), times: [] as number[] },
    { label: "core", feed: core(), times: [] as number[] },
    { label: "peer", feed: peer(), times: [] as number[] },
  ];
  const lines = Array.from({ length: REQUESTS }, (_, i) => requestLine(method, i + 1));
  for (let rep = 0; rep < REPETITIONS; rep++) {
    for (let k = 0; k < REQUESTS; k++) {
      // Each takes every place in the order in turn, so none is always the one after the eviction of another's data.
      for (let j = 0; j < contenders.length; j++) {
        const c = contenders[(j + k) % contenders.length]!;
        evictCaches();
        const start = performance.now();
        c.feed(lines[k]!);
        // The first repetition warms the code up (optimized, as a long-running server's is); it is not counted.
        if (rep > 0) c.times.push((wroteAt - start) * 1000);
      }
    }
  }
  const bareMedian = median(contenders[0]!.times);
  for (const c of contenders) report(`${method}, ${c.label}`, c.times, bareMedian);
}

function report(label: string, times: readonly number[], bareMedian: number): void {
  const sorted = [...times].sort((a, b) => a - b);
  print(
    `     ${label.padEnd(20)} ${fmt(median(times), 1, 9)} ${fmt(sorted[Math.floor(0.9 * sorted.length)]!, 1, 9)} ${fmt(median(times) / bareMedian, 2, 9)}`,
  );
}

/** A caller that awaits each call and then makes the next: `next()` makes one, `feed` takes the bytes of an answer, `written()` is the request last written. */
interface ClientEnd {
  next(): Promise<unknown>;
  feed(chunk: Uint8Array): void;
  written(): Uint8Array;
}

function bareClient(method: Method): ClientEnd {
  const waiting = new Map<number, (result: unknown) => void>();
  let nextId = 1;
  let last: Uint8Array = new Uint8Array(0);
  return {
    next() {
      const id = nextId++;
      const request =
        method === "ping"
          ? { jsonrpc: "2.0", id, method }
          : { jsonrpc: "2.0", id, method, params: { name: "test_tool_fast", arguments: {} } };
      const answer = new Promise((resolve) => waiting.set(id, resolve));
      last = utf8.encode(JSON.stringify(request) + "\n");
      wroteAt = performance.now();
      return answer;
    },
    feed: bareAnswers(waiting),
    written: () => last,
  };
}

async function peerClient(method: Method): Promise<ClientEnd> {
  // Connected through a real Server, then cut loose: its writes are recorded, its answers made here.
  const server = toolServer();
  let connected = false;
  let last: Uint8Array = new Uint8Array(0);
  let client: Client | undefined;
  const session = server.connect({
    write: (bytes) => client?.input.receiveBytes(bytes),
    now: () => performance.now(),
    armTimer: () => undefined,
  });
  client = new Client(
    {
      write: (bytes) => {
        if (!connected) return session.receiveBytes(bytes);
        last = bytes;
        wroteAt = performance.now();
      },
      now: () => performance.now(),
      armTimer: () => undefined,
    },
    { info: { name: "bench", version: "1" } },
  );
  await client.connect();
  connected = true;
  const c = client;
  return {
    next: () => (method === "ping" ? c.ping() : c.callTool("test_tool_fast", {})),
    feed: (chunk) => c.input.receiveBytes(chunk),
    written: () => last,
  };
}

const decoder = new TextDecoder();

function answerTo(request: Uint8Array, method: Method): Uint8Array {
  const id = (JSON.parse(decoder.decode(request)) as { id: number }).id;
  return utf8.encode(`{"jsonrpc":"2.0","id":${id},"result":${method === "ping" ? "{}" : JSON.stringify(TOOL_RESULT)}}\n`);
}

async function measureClient(method: Method): Promise<void> {
  const ends = [
    { label: "bare", end: bareClient(method), times: [] as number[] },
    { label: "peer", end: await peerClient(method), times: [] as number[] },
  ];
  const calls = ends.map((e) => e.end.next());
  // Let the peer's first request leave (it is written in a microtask).
  await new Promise<void>((resolve) => setTimeout(() => resolve(), 0));
  for (let k = 0; k < REQUESTS * REPETITIONS; k++) {
    for (let j = 0; j < ends.length; j++) {
      const i = (j + k) % ends.length;
      const e = ends[i]!;
      const answer = answerTo(e.end.written(), method);
      const nextCall = calls[i]!.then(() => {
        calls[i] = e.end.next();
      });
      evictCaches();
      const start = performance.now();
      e.end.feed(answer);
      await nextCall;
      // The peer writes its request in a microtask after the call: two turns cover it.
      await Promise.resolve();
      await Promise.resolve();
      if (k >= REQUESTS) e.times.push((wroteAt - start) * 1000);
    }
  }
  const bareMedian = median(ends[0]!.times);
  for (const e of ends) report(`${method}, ${e.label}`, e.times, bareMedian);
}

export async function run(): Promise<void> {
  print(`  read-to-write, one call at a time, caches emptied before each step (${REQUESTS} × ${REPETITIONS - 1} counted): µs`);
  print(`   server: a request's bytes in → its answer's bytes out`);
  print(`     ${"case".padEnd(20)} ${"median".padStart(9)} ${"p90".padStart(9)} ${"÷ bare".padStart(9)}`);
  measure("ping");
  measure("tools/call");
  print(`   client: an answer's bytes in → the awaiting caller's next request's bytes out`);
  await measureClient("ping");
  await measureClient("tools/call");
}
