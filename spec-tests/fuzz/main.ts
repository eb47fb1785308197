// The fuzzer's command line: `npm run fuzz -- [--target engine|http|oauth|all] [--episodes N |
// --calls N] [--seed S] [--steps K] [--flood P] [--ignore kind,...] [--coverage] [--verbose]`.
// Each target runs its episodes with seeds S, S+1, ..., so any failure replays alone with
// `--target <it> --seed <its seed> --episodes 1 --verbose`. Prints, per target: episodes,
// input calls, time, failures by kind with the first seed of each, the heap after GC at the
// start and end, the slowest episode; exits 1 on any failure.
//
// Targets (docs/fuzzing.md): engine (the sans-I/O engine, episode.ts; an input call is one
// receive in one of its three lanes), http (the web-standard HTTP handler, http-episode.ts; one
// request given to fetch()), oauth (lib/auth's AuthFlow, oauth-episode.ts; one call of start,
// receive, loaded, redirected or signed). `all` (the default) runs the three in that order.

import { runEpisode } from "./episode.js";
import { runHttpEpisode } from "./http-episode.js";
import { runOAuthEpisode } from "./oauth-episode.js";
import { ignoredCounts, ignoredKinds, type Failure } from "./oracle.js";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value)) throw new RangeError(`--${name} needs a number`);
  return value;
}

function text(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i === -1 ? undefined : process.argv[i + 1];
}

const gc = (globalThis as { gc?: () => void }).gc;

function heapMiB(): number {
  gc?.();
  return process.memoryUsage().heapUsed / 1048576;
}

type Target = "engine" | "http" | "oauth";
const TARGETS: readonly Target[] = ["engine", "http", "oauth"];

interface Outcome {
  readonly seed: number;
  readonly inputCalls: number;
  readonly config: string;
  readonly failure: (Failure & { step: number; trace: string[] }) | undefined;
  readonly laneCalls?: readonly number[];
  readonly coverage?: ReadonlyMap<string, number>;
}

const targetArg = text("--target") ?? "all";
if (targetArg !== "all" && !TARGETS.includes(targetArg as Target)) throw new RangeError(`--target is one of ${TARGETS.join(", ")} or all`);
const targets: readonly Target[] = targetArg === "all" ? TARGETS : [targetArg as Target];
const calls = arg("calls", 0);
const episodes = arg("episodes", calls > 0 ? Number.MAX_SAFE_INTEGER : 1000);
const seed = arg("seed", Date.now() % 1_000_000_007) >>> 0;
const steps = process.argv.includes("--steps") ? arg("steps", 60) : undefined;
const floodChance = arg("flood", 0.02);
const verbose = process.argv.includes("--verbose");
const showCoverage = process.argv.includes("--coverage");
for (const kind of (text("--ignore") ?? "").split(",")) if (kind !== "") ignoredKinds.add(kind);

const runners: Record<Target, (seed: number) => Outcome | Promise<Outcome>> = {
  engine: (s) => runEpisode(s, { maxSteps: steps ?? 60, floodChance }),
  http: (s) => runHttpEpisode(s, steps === undefined ? {} : { maxSteps: steps }),
  oauth: (s) => runOAuthEpisode(s),
};

let failed = false;
for (const target of targets) {
  const limit = calls > 0 ? `until ${calls} input calls` : `${episodes} episodes`;
  console.log(
    `fuzz [${target}]: ${limit} from seed ${seed}${target === "engine" ? ` (steps ≤ ${steps ?? 60}, flood chance ${floodChance})` : ""}`,
  );
  const started = Date.now();
  let inputCalls = 0;
  let done = 0;
  const laneCalls: number[] = [];
  const coverage = new Map<string, number>();
  let heapStart = 0;
  // Informational only (no timed assertions): a superlinear path shows up as one very slow episode.
  let slowest = { ms: 0, seed: 0, calls: 0 };
  const failures = new Map<string, { count: number; first: Outcome }>();
  const ignored = new Map<string, number>();
  for (let i = 0; i < episodes && (calls === 0 || inputCalls < calls); i++) {
    const t0 = Date.now();
    const result = await runners[target]((seed + i) >>> 0);
    done++;
    const ms = Date.now() - t0;
    if (ms > slowest.ms) slowest = { ms, seed: result.seed, calls: result.inputCalls };
    inputCalls += result.inputCalls;
    result.laneCalls?.forEach((n, lane) => (laneCalls[lane] = (laneCalls[lane] ?? 0) + n));
    for (const [k, n] of result.coverage ?? []) coverage.set(k, (coverage.get(k) ?? 0) + n);
    if (i === 99) heapStart = heapMiB();
    const failure = result.failure;
    if (failure !== undefined && ignoredKinds.has(failure.kind)) ignored.set(failure.kind, (ignored.get(failure.kind) ?? 0) + 1);
    else if (failure !== undefined) {
      const known = failures.get(failure.kind);
      if (known === undefined) {
        failures.set(failure.kind, { count: 1, first: result });
        console.log(
          `\nFAIL [${target}] seed ${result.seed} [${failure.kind}] at step ${failure.step} (${result.config})\n${failure.detail}`,
        );
        if (verbose) console.log(failure.trace.join("\n"));
        console.log(`replay: npm run fuzz -- --target ${target} --seed ${result.seed} --episodes 1 --verbose`);
      } else known.count++;
    }
    if ((i + 1) % 1000 === 0)
      console.log(`  ${i + 1} episodes, ${inputCalls} input calls, ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const heapEnd = heapMiB();
  const lanes = target === "engine" ? ` (value lane ${laneCalls[0]}, bytes lane ${laneCalls[1]}, chunks lane ${laneCalls[2]})` : "";
  console.log(
    `\nfuzz [${target}]: seed ${seed}, ${done} episodes, ${inputCalls} input calls${lanes}, ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  console.log(
    `heap after GC: ${heapStart.toFixed(1)} MiB after ${Math.min(100, done)} episodes, ${heapEnd.toFixed(1)} MiB at the end${gc === undefined ? " (run with --expose-gc for exact figures)" : ""}`,
  );
  console.log(`slowest episode: seed ${slowest.seed}, ${slowest.ms} ms for ${slowest.calls} input calls`);
  if (showCoverage) for (const [k, n] of [...coverage].sort(([a], [b]) => (a < b ? -1 : 1))) console.log(`  reached ${k}: ${n}`);
  // The engine's oracle counts ignored kinds check by check (oracle.ts); the other targets count episodes.
  for (const [kind, count] of target === "engine" ? ignoredCounts : ignored) console.log(`  ignored (--ignore) ${kind}: ${count}`);
  if (target === "engine") ignoredCounts.clear();
  if (failures.size === 0) console.log(`oracle failures [${target}]: 0`);
  for (const [kind, { count, first }] of failures) console.log(`  ${kind}: ${count} (first seed ${first.seed})`);
  if (failures.size > 0) failed = true;
  console.log("");
}
process.exitCode = failed ? 1 : 0;
