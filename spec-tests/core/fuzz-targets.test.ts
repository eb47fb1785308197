// The bounded run of the fuzzer's HTTP and OAuth targets in `npm test` (a few seconds): seeded
// episodes of spec-tests/fuzz/http-episode.ts (the web-standard handler through fetch(), with
// simulated time) and spec-tests/fuzz/oauth-episode.ts (lib/auth's AuthFlow against a hostile
// network), each against its oracle. The seed is printed; FUZZ_SEED replays another run,
// FUZZ_HTTP_EPISODES and FUZZ_OAUTH_EPISODES run more; `npm run fuzz -- --target http|oauth`
// runs longer ones. Each run also checks that it reached what its target is for, so a
// generator that stopped doing so fails rather than passing vacuously.

import assert from "node:assert/strict";
import { test } from "node:test";
import { runHttpEpisode, type TargetResult } from "../fuzz/http-episode.js";
import { runOAuthEpisode } from "../fuzz/oauth-episode.js";

const seed = Number(process.env.FUZZ_SEED ?? 20261204) >>> 0;

/**
 * Failure kinds of the OAuth target that are defects of lib/auth reported to its owner and not
 * fixed on this branch (docs/fuzzing.md, "Known failures"): counted and printed here, never
 * hidden from `npm run fuzz`. Remove a kind once its fix lands.
 */
const KNOWN_OAUTH: ReadonlySet<string> = new Set(["insecure-discovery", "honest-flow-failed:redirect"]);

function tally(results: readonly TargetResult[], known: ReadonlySet<string> = new Set()) {
  const failures: string[] = [];
  const knownSeen = new Map<string, number>();
  const coverage = new Map<string, number>();
  let inputCalls = 0;
  for (const r of results) {
    inputCalls += r.inputCalls;
    for (const [k, n] of r.coverage) coverage.set(k, (coverage.get(k) ?? 0) + n);
    if (r.failure === undefined) continue;
    if (known.has(r.failure.kind)) knownSeen.set(r.failure.kind, (knownSeen.get(r.failure.kind) ?? 0) + 1);
    else
      failures.push(
        `seed ${r.seed} [${r.failure.kind}] step ${r.failure.step} (${r.config})\n${r.failure.detail}\n${r.failure.trace.slice(-12).join("\n")}`,
      );
  }
  return { failures, knownSeen, coverage, inputCalls };
}

test(`LIM-09, HTTP-02, ENG-08: fuzz the HTTP handler: episodes from seed ${seed}: no throw or 500, statuses from the table, framed bodies, 413 at the limit, nothing left after close()`, async () => {
  const episodes = Number(process.env.FUZZ_HTTP_EPISODES ?? 150);
  console.log(
    `fuzz [http] seed ${seed}, ${episodes} episodes (replay one with: npm run fuzz -- --target http --seed <seed> --episodes 1 --verbose)`,
  );
  const results: TargetResult[] = [];
  for (let i = 0; i < episodes; i++) results.push(await runHttpEpisode((seed + i) >>> 0));
  const { failures, coverage, inputCalls } = tally(results);
  console.log(`fuzz [http]: ${inputCalls} input calls, ${failures.length} failures`);
  assert.ok(inputCalls > episodes * 5, `episodes made too few requests (${inputCalls}): the fuzzer is not driving the handler`);
  for (const reached of [
    "status 200",
    "status 202",
    "status 400",
    "status 404",
    "status 413",
    "session minted",
    "sse answer",
    "2026-07-28 result",
  ])
    assert.ok((coverage.get(reached) ?? 0) > 0, `no episode reached ${reached}`);
  assert.deepEqual(failures, []);
});

test(`AUTH-09, AUTH-02, AUTH-03: fuzz the OAuth flow: episodes from seed ${seed}: no throw, https only, secrets only to the token endpoint, every flow ends`, () => {
  const episodes = Number(process.env.FUZZ_OAUTH_EPISODES ?? 3000);
  console.log(
    `fuzz [oauth] seed ${seed}, ${episodes} episodes (replay one with: npm run fuzz -- --target oauth --seed <seed> --episodes 1 --verbose)`,
  );
  const results: TargetResult[] = [];
  for (let i = 0; i < episodes; i++) results.push(runOAuthEpisode((seed + i) >>> 0));
  const { failures, knownSeen, coverage, inputCalls } = tally(results, KNOWN_OAUTH);
  console.log(
    `fuzz [oauth]: ${inputCalls} input calls, ${failures.length} failures; known lib/auth defects: ${JSON.stringify([...knownSeen])}`,
  );
  assert.ok(inputCalls > episodes * 3, `episodes made too few input calls (${inputCalls})`);
  for (const reached of ["ended done", "ended failed", "step authorize", "step fetch token", "step fetch refresh", "step sign", "misuse"])
    assert.ok((coverage.get(reached) ?? 0) > 0, `no episode reached ${reached}`);
  assert.deepEqual(failures, []);
});
