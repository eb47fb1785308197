// Round trips over stdio between two processes: our stack on both ends (StdioClient here,
// `mcp-engine serve` in a child: the peer layer, the engine and the stdio host on each side)
// against a bare JSON-lines pair of two processes (bench/jsonl-echo-child.ts in a child, a
// Map of pending ids here: JSON.stringify, one write, JSON.parse, nothing else), for ping and
// tools/call, one call at a time and 100 in flight. Both ends of ours read their pipe in place
// (readInPlace, as `mcp-engine serve` and `mcp-engine client` do: one buffer kept for the
// stream's life instead of one per read; the bare ends read through "data" events, as the least
// a JSON-lines peer on Node does). Both pairs send the same request bytes
// (tools/call with `"arguments":{}`: ours passes {} rather than leaving them out, which would
// send fewer bytes than the floor) and get the same response bytes. The in-process rows (core
// and peer with no pipes) are bench/inproc.bench.ts's.
//
// Figures: round trips per wall second (median of ROUNDS rounds, the two pairs alternating
// round by round so drift on a shared machine hits both), the ratio ours ÷ bare (the median of
// each round's ratio to the bare round just before it, with the middle half of those ratios
// beside it: a slow spell of the machine then lowers both sides of one ratio instead of one
// side of the ratio of medians), and CPU microseconds per round trip of both processes
// together over all rounds (this one's from process.cpuUsage, the child's from /proc/<pid>/stat
// where there is one, in 10 ms ticks: summed, not read per round), which waits do not inflate,
// and ours split into client (this process) and server (the child). Rounds are short and many
// (ROUND_MS, ROUNDS): on a virtual machine the cost of waking a sleeping process can double from
// one round to the next, and rounds of 200 ms gave single ratios from 0.5 to 1.8 and medians of
// nine from 0.71 to 1.34 for the same code. One call at a time, the single ratios of 20 ms
// rounds still spread widely (their middle half about 0.6 to 1.1), and the median of 61 of them
// moved by ±0.06 from run to run of the same code: those rows take ROUNDS_ONE_AT_A_TIME rounds,
// which halves that. Each case is warmed first (WARM_ROUNDS). Prints figures; never asserts or fails.

import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { StdioClient } from "../lib/hosts/stdio.js";
import { bareAnswers } from "./bare-jsonl.js";
import { fmt, median, print } from "./run.js";

const MAIN = fileURLToPath(new URL("../lib/cli/main.js", import.meta.url));
const ECHO = fileURLToPath(new URL("./jsonl-echo-child.js", import.meta.url));
const ROUNDS = 61;
/**
 * Uncounted rounds before each case (1 s of it): with 20 calls of warm-up, the first 30 rounds
 * of tools/call one at a time gave 0.73 of the bare pair and every later 30 gave 0.97 to 1.03,
 * our larger stack's code still reaching its optimized tiers (the bare ends are a few lines).
 */
const WARM_ROUNDS = 25;
/** Rounds of the one-at-a-time rows, whose single ratios spread the most (see the file comment). */
const ROUNDS_ONE_AT_A_TIME = 241;
const ROUND_MS = 20;
const IN_FLIGHT = 100;

type Method = "ping" | "tools/call";

interface Pair {
  call(method: Method): Promise<unknown>;
  /** `n` calls issued together (as a caller with n to make issues them), awaited together. */
  many(method: Method, n: number): Promise<unknown>;
  readonly pid: number | undefined;
  close(): Promise<void>;
}

/** The bare floor: requests as JSON lines, responses matched to their promise by id. */
function barePair(): Pair {
  const child: ChildProcess = spawn(process.execPath, [ECHO], { stdio: ["pipe", "pipe", "inherit"] });
  const waiting = new Map<number, (value: unknown) => void>();
  let nextId = 1;
  child.stdout.on("data", bareAnswers(waiting));
  const line = (method: Method): { text: string; answer: Promise<unknown> } => {
    const id = nextId++;
    const request =
      method === "ping"
        ? { jsonrpc: "2.0", id, method }
        : { jsonrpc: "2.0", id, method, params: { name: "test_tool_fast", arguments: {} } };
    return { text: JSON.stringify(request) + "\n", answer: new Promise((resolve) => waiting.set(id, resolve)) };
  };
  return {
    call(method) {
      const { text, answer } = line(method);
      child.stdin.write(text);
      return answer;
    },
    many(method, n) {
      let text = "";
      const answers: Promise<unknown>[] = [];
      for (let i = 0; i < n; i++) {
        const one = line(method);
        text += one.text;
        answers.push(one.answer);
      }
      child.stdin.write(text);
      return Promise.all(answers);
    },
    pid: child.pid,
    close: async () => {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.stdin.end();
      await exited;
    },
  };
}

async function ourPair(): Promise<Pair> {
  const remote = await StdioClient.spawn({
    command: process.execPath,
    args: [MAIN, "serve"],
    info: { name: "bench-client", version: "1.0.0" },
    readInPlace: true,
  });
  const { client } = remote;
  const call = (method: Method): Promise<unknown> => (method === "ping" ? client.ping() : client.callTool("test_tool_fast", {}));
  return {
    call,
    many(method, n) {
      const calls: Promise<unknown>[] = [];
      for (let i = 0; i < n; i++) calls.push(call(method));
      return Promise.all(calls);
    },
    pid: remote.child.pid,
    close: () => remote.close(),
  };
}

/** CPU milliseconds a process has used so far, from /proc (Linux); undefined elsewhere. */
function childCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields after the command's closing parenthesis; utime and stime are the 12th and 13th, in ticks (100 per second).
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

interface Sample {
  readonly rate: number;
  readonly done: number;
  /** CPU µs of this process (the client) during the round. */
  readonly ownUs: number;
  /** CPU µs of the child during the round (10 ms ticks); NaN when unknown. */
  readonly childUs: number;
}

/** One round of about ROUND_MS: round trips per second, and the CPU both processes used. */
async function round(pair: Pair, batch: () => Promise<unknown>, size: number): Promise<Sample> {
  const cpuStart = process.cpuUsage();
  const childStart = childCpuMs(pair.pid);
  let done = 0;
  const start = performance.now();
  while (performance.now() - start < ROUND_MS) {
    await batch();
    done += size;
  }
  const seconds = (performance.now() - start) / 1000;
  const own = process.cpuUsage(cpuStart);
  const childEnd = childCpuMs(pair.pid);
  const childUs = childStart === undefined || childEnd === undefined ? NaN : (childEnd - childStart) * 1000;
  return { rate: done / seconds, done, ownUs: own.user + own.system, childUs };
}

/** CPU µs per round trip over all of `samples`: both processes, and each. */
function cpuPerRoundTrip(samples: readonly Sample[]): { both: number; client: number; server: number } {
  let done = 0;
  let own = 0;
  let child = 0;
  for (const s of samples) {
    done += s.done;
    own += s.ownUs;
    child += s.childUs;
  }
  return { both: (own + child) / done, client: own / done, server: child / done };
}

/** The value a fraction `q` of the way through the sorted samples. */
function quantile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export async function run(): Promise<void> {
  print(
    `  round trips per second over stdio, two processes (median of ${ROUNDS_ONE_AT_A_TIME} alternating rounds of ${ROUND_MS} ms one at a time, ${ROUNDS} in flight), and CPU µs per round trip of both processes`,
  );
  print(
    `     ${"case".padEnd(26)} ${"bare".padStart(9)} ${"ours".padStart(9)} ${"ours/bare".padStart(9)} ${"(middle half)".padStart(13)}   ${"CPU µs: bare".padStart(12)} ${"ours".padStart(6)}   ${"ours: client".padStart(12)} ${"server".padStart(6)}`,
  );
  const bare = barePair();
  const ours = await ourPair();
  try {
    for (const method of ["ping", "tools/call"] as const) {
      for (const size of [1, IN_FLIGHT]) {
        const batchOf = (pair: Pair) => (size === 1 ? () => pair.call(method) : () => pair.many(method, size));
        const contenders = [
          { pair: bare, batch: batchOf(bare), samples: [] as Sample[] },
          { pair: ours, batch: batchOf(ours), samples: [] as Sample[] },
        ];
        // Warmed as the counted rounds run, for WARM_ROUNDS rounds each: the code of a case reaches its optimized tiers only after some thousand calls.
        for (let r = 0; r < WARM_ROUNDS; r++) for (const c of contenders) await round(c.pair, c.batch, size);
        const rounds = size === 1 ? ROUNDS_ONE_AT_A_TIME : ROUNDS;
        for (let r = 0; r < rounds; r++) for (const c of contenders) c.samples.push(await round(c.pair, c.batch, size));
        const [bareSamples, ourSamples] = contenders.map((c) => c.samples) as [Sample[], Sample[]];
        const ratios = ourSamples.map((sample, r) => sample.rate / bareSamples[r]!.rate);
        const bareCpu = cpuPerRoundTrip(bareSamples);
        const ourCpu = cpuPerRoundTrip(ourSamples);
        const label = `${method}, ${size === 1 ? "one at a time" : `${size} in flight`}`;
        const spread = `${quantile(ratios, 0.25).toFixed(2)}–${quantile(ratios, 0.75).toFixed(2)}`;
        print(
          `     ${label.padEnd(26)} ${fmt(median(bareSamples.map((s) => s.rate)), 0)} ${fmt(median(ourSamples.map((s) => s.rate)), 0)} ${fmt(median(ratios), 2, 9)} ${spread.padStart(13)}   ${fmt(bareCpu.both, 1, 12)} ${fmt(ourCpu.both, 1, 6)}   ${fmt(ourCpu.client, 1, 12)} ${fmt(ourCpu.server, 1, 6)}`,
        );
      }
    }
  } finally {
    await Promise.all([bare.close(), ours.close()]);
  }
}
