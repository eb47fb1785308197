// The cluster simulation's command line: `npm run sim -- [--episodes N] [--seed S] [--verbose]
// [--no-shrink]`. Runs the episodes of seeds S, S+1, ... (episode.ts), prints the count, the
// time and the failures by kind with the first seed of each, shrinks the first failure of each
// kind to a reproducer line for regressions.ts, and exits 1 on any failure. Kinds still open
// (regressions.ts KNOWN_OPEN) are counted apart and do not fail the run.
//
// Invariant: a failure replays alone with `--seed <its seed> --episodes 1 --verbose`.

import { configOf, describe, kindOf, runEpisode, shrink, type Outcome } from "./episode.js";
import { KNOWN_OPEN } from "./regressions.js";
import type { ViolationKind } from "./oracle.js";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value)) throw new RangeError(`--${name} needs a number`);
  return value;
}

const episodes = arg("episodes", 1000);
const seed = arg("seed", 1) >>> 0;
const verbose = process.argv.includes("--verbose");
const shrinking = !process.argv.includes("--no-shrink");

const started = process.hrtime.bigint();
const byKind = new Map<ViolationKind, { count: number; first: Outcome }>();
let requests = 0;
for (let i = 0; i < episodes; i++) {
  const outcome = await runEpisode(configOf((seed + i) >>> 0));
  requests += outcome.requests;
  const kind = kindOf(outcome);
  if (verbose || (kind !== undefined && episodes === 1)) {
    console.log(`seed ${outcome.config.seed}: ${describe(outcome.config)}`);
    for (const line of outcome.trace) console.log(`  ${line}`);
  }
  if (kind === undefined) continue;
  const entry = byKind.get(kind);
  if (entry === undefined) byKind.set(kind, { count: 1, first: outcome });
  else entry.count++;
  if (verbose || episodes === 1) console.log(`seed ${outcome.config.seed}: ${kind}: ${outcome.violations[0]?.detail}`);
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
console.log(`sim: ${episodes} episodes from seed ${seed}, ${requests} requests, ${seconds.toFixed(1)} s`);
let failed = false;
for (const [kind, { count, first }] of byKind) {
  const open = KNOWN_OPEN.has(kind);
  if (!open) failed = true;
  console.log(
    `${open ? "known open" : "FAILED"} ${kind}: ${count} episodes, first seed ${first.config.seed}: ${first.violations[0]?.detail}`,
  );
  if (shrinking) console.log(`  shrunk: ${describe(await shrink(first.config, kind))}`);
}
const passed = episodes - [...byKind.values()].reduce((n, e) => n + e.count, 0);
console.log(`${passed} passed, ${episodes - passed} failed`);
process.exitCode = failed ? 1 : 0;
