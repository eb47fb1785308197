// The fuzzer's command line: `npm run fuzz -- --episodes N --seed S [--steps K] [--flood P]`.
// Episode i runs with seed S + i, so any failure replays alone with `--seed <its seed>
// --episodes 1`. Prints totals (episodes, input calls, failures by kind with the first
// seed of each), the heap after GC at the start and end, and exits 1 on any failure.

import { runEpisode, type EpisodeResult } from "./episode.js";
import { ignoredCounts, ignoredKinds } from "./oracle.js";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value)) throw new RangeError(`--${name} needs a number`);
  return value;
}

const gc = (globalThis as { gc?: () => void }).gc;

function heapMiB(): number {
  gc?.();
  return process.memoryUsage().heapUsed / 1048576;
}

const episodes = arg("episodes", 1000);
const seed = arg("seed", Date.now() % 1_000_000_007) >>> 0;
const maxSteps = arg("steps", 60);
const floodChance = arg("flood", 0.02);
const verbose = process.argv.includes("--verbose");
const ignoreAt = process.argv.indexOf("--ignore");
if (ignoreAt !== -1) for (const kind of (process.argv[ignoreAt + 1] ?? "").split(",")) if (kind !== "") ignoredKinds.add(kind);
console.log(`fuzz: ${episodes} episodes from seed ${seed} (steps ≤ ${maxSteps}, flood chance ${floodChance})`);

const started = Date.now();
let inputCalls = 0;
const laneCalls: number[] = [];
let heapStart = 0;
// Informational only (no timed assertions): a superlinear path shows up as one very slow episode.
let slowest = { ms: 0, seed: 0, calls: 0 };
const failures = new Map<string, { count: number; first: EpisodeResult }>();
for (let i = 0; i < episodes; i++) {
  const t0 = Date.now();
  const result = runEpisode((seed + i) >>> 0, { maxSteps, floodChance });
  const ms = Date.now() - t0;
  if (ms > slowest.ms) slowest = { ms, seed: result.seed, calls: result.inputCalls };
  inputCalls += result.inputCalls;
  result.laneCalls.forEach((n, lane) => (laneCalls[lane] = (laneCalls[lane] ?? 0) + n));
  if (i === Math.min(99, episodes - 1)) heapStart = heapMiB();
  if (result.failure !== undefined) {
    const known = failures.get(result.failure.kind);
    if (known === undefined) {
      failures.set(result.failure.kind, { count: 1, first: result });
      console.log(
        `\nFAIL seed ${result.seed} [${result.failure.kind}] at step ${result.failure.step} (${result.config})\n${result.failure.detail}`,
      );
      if (verbose) console.log(result.failure.trace.join("\n"));
    } else known.count++;
  }
  if ((i + 1) % 1000 === 0) console.log(`  ${i + 1} episodes, ${inputCalls} input calls, ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
const heapEnd = heapMiB();
console.log(
  `\nfuzz: seed ${seed}, ${episodes} episodes, ${inputCalls} input calls (value lane ${laneCalls[0]}, bytes lane ${laneCalls[1]}, chunks lane ${laneCalls[2]}), ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
console.log(
  `heap after GC: ${heapStart.toFixed(1)} MiB after ${Math.min(100, episodes)} episodes, ${heapEnd.toFixed(1)} MiB at the end${gc === undefined ? " (run with --expose-gc for exact figures)" : ""}`,
);
console.log(`slowest episode: seed ${slowest.seed}, ${slowest.ms} ms for ${slowest.calls} input calls`);
if (failures.size === 0) console.log("oracle failures: 0");
for (const [kind, count] of ignoredCounts) console.log(`  ignored (--ignore) ${kind}: ${count}`);
for (const [kind, { count, first }] of failures) console.log(`  ${kind}: ${count} (first seed ${first.seed})`);
process.exitCode = failures.size === 0 ? 0 : 1;
