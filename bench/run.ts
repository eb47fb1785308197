// Benchmark runner: `node --expose-gc dist/bench/run.js [filter...]` imports each dist/bench/*.bench.js
// in name order (only names containing a filter, if any are given) and awaits its exported
// `async function run(): Promise<void>`. Benches print figures and never fail on them; one that
// throws is reported (exit code 1). Also exports the timing helpers benches share ("./run.js").

import { readdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";

/** Runs a full garbage collection when node was started with --expose-gc; else does nothing. */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc === "function") gc();
}

/**
 * Empties the young generation only (a scavenge) when node was started with --expose-gc; else
 * does nothing. What a timed run should start from: no garbage of the previous run left to
 * collect, and no full collection either. A full (mark-compact) collection frees the hidden
 * classes (maps) of the messages the previous run parsed, as every one of them is dead by
 * then, and V8 deoptimizes all optimized code that embedded those maps ("marking dependent
 * code for deoptimization, reason: weak objects" under --trace-deopt): the run after it is
 * measured mostly in the interpreter while the code is optimized again.
 */
export function collectYoungGarbage(): void {
  const gc = (globalThis as { gc?: (options?: { type: "minor" | "major" }) => void }).gc;
  if (typeof gc === "function") gc({ type: "minor" });
}

export function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Milliseconds taken by one call of `fn`. */
export function timeOnce(fn: () => unknown): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

export interface Contender {
  readonly name: string;
  readonly fn: () => unknown;
}

/**
 * Median milliseconds of each contender over `repetitions` runs, after `warmup` unmeasured
 * runs. Contenders alternate inside every repetition (with a GC before each run), so drift in
 * machine speed hits them alike.
 */
export function compare(
  contenders: readonly Contender[],
  { warmup = 3, repetitions = 9 }: { warmup?: number; repetitions?: number } = {},
): Map<string, number> {
  for (let i = 0; i < warmup; i++) for (const contender of contenders) contender.fn();
  const samples = new Map<string, number[]>(contenders.map((contender) => [contender.name, []]));
  for (let i = 0; i < repetitions; i++) {
    for (const contender of contenders) {
      collectGarbage();
      samples.get(contender.name)!.push(timeOnce(contender.fn));
    }
  }
  return new Map([...samples].map(([name, times]) => [name, median(times)]));
}

/** Megabytes (10^6 bytes) per second. */
export function mbPerSecond(bytes: number, milliseconds: number): number {
  return bytes / 1e6 / (milliseconds / 1e3);
}

export function print(line: string): void {
  process.stdout.write(line + "\n");
}

/** Fixed-width number for aligned output. */
export function fmt(value: number, digits = 1, width = 9): string {
  return value.toFixed(digits).padStart(width);
}

async function main(filters: readonly string[]): Promise<void> {
  const here = dirname(fileURLToPath(import.meta.url));
  const suffix = ".bench.js";
  const all = readdirSync(here)
    .filter((file) => file.endsWith(suffix))
    .sort();
  const selected = all.filter((file) => filters.length === 0 || filters.some((filter) => file.slice(0, -suffix.length).includes(filter)));
  if (selected.length === 0) {
    print(`no bench matches ${filters.join(", ")}; available: ${all.map((f) => f.slice(0, -suffix.length)).join(", ")}`);
    process.exitCode = 1;
    return;
  }
  if ((globalThis as { gc?: unknown }).gc === undefined) print("(run with --expose-gc for steadier figures)");
  const started = performance.now();
  for (const file of selected) {
    const name = file.slice(0, -suffix.length);
    print(`\n== ${name} ==`);
    const benchStarted = performance.now();
    try {
      const module = (await import(new URL(file, import.meta.url).href)) as { run?: () => Promise<void> };
      if (typeof module.run !== "function") {
        print(`  ${file} exports no run(); skipped`);
        process.exitCode = 1;
        continue;
      }
      await module.run();
    } catch (error) {
      print(`  ${name} threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      process.exitCode = 1;
    }
    print(`  (${name}: ${((performance.now() - benchStarted) / 1e3).toFixed(1)} s)`);
  }
  print(`\nall benches: ${((performance.now() - started) / 1e3).toFixed(1)} s`);
}

// Run only when this file is the entry point, not when a bench imports the helpers above.
// No top-level await: a bench importing this module while it was still awaiting would deadlock.
if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    print(`bench runner failed: ${String(error)}`);
    process.exitCode = 1;
  });
}
