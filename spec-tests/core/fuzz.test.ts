// The bounded fuzz run of `npm test`: a few hundred seeded episodes of spec-tests/fuzz/
// (both roles, every era and phase, every command, mutated fixture messages, random byte
// splits, snapshot/restore, floods) against the oracle. The seed is printed; set FUZZ_SEED
// to replay another run and FUZZ_EPISODES to run more. `npm run fuzz -- --episodes N
// --seed S` runs longer ones.

import assert from "node:assert/strict";
import { test } from "node:test";
import { runEpisode } from "../fuzz/episode.js";

const seed = Number(process.env.FUZZ_SEED ?? 20261201) >>> 0;
const episodes = Number(process.env.FUZZ_EPISODES ?? 300);

test(`ENG-01, JR-01: fuzz: ${episodes} episodes from seed ${seed}: no throw, every owed reply once, lanes agree, tables bounded`, () => {
  console.log(`fuzz seed ${seed}, ${episodes} episodes (replay one with: npm run fuzz -- --seed <seed> --episodes 1 --verbose)`);
  let inputCalls = 0;
  const failures: string[] = [];
  const configs = new Set<string>();
  for (let i = 0; i < episodes; i++) {
    const result = runEpisode((seed + i) >>> 0);
    inputCalls += result.inputCalls;
    configs.add(result.config);
    if (result.failure !== undefined) {
      failures.push(
        `seed ${result.seed} [${result.failure.kind}] step ${result.failure.step} (${result.config})\n${result.failure.detail}\n${result.failure.trace.slice(-12).join("\n")}`,
      );
    }
  }
  console.log(`fuzz: ${inputCalls} input calls, ${failures.length} failures`);
  assert.ok(inputCalls > episodes * 10, `episodes made too few input calls (${inputCalls}): the fuzzer is not driving the engine`);
  // The run reached both roles and every version (a generator that stopped doing so would pass vacuously).
  const seen = [...configs].join("\n");
  for (const needle of ["client [", "server [", "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"])
    assert.ok(seen.includes(needle), `no episode configured with ${needle}`);
  assert.deepEqual(failures, []);
});
