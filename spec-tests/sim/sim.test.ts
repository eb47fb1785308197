// The cluster simulation in the quick suite: every reproducer of regressions.ts (a fixed one
// passes, a known-open one is still found, with its kind), and a bounded run of random
// episodes that must find nothing but the kinds still open. `npm run sim` runs more
// (docs/simulation.md).

import { test } from "node:test";
import assert from "node:assert/strict";
import { configOf, describe, kindOf, runEpisode } from "./episode.js";
import { KNOWN_OPEN, REPRODUCERS } from "./regressions.js";

const EPISODES = 300;
const FIRST_SEED = 1;

for (const reproducer of REPRODUCERS) {
  const name =
    reproducer.status === "fixed"
      ? `CL-01, CL-03, CL-04: sim: bug ${reproducer.bug} stays fixed: ${reproducer.why}`
      : reproducer.status === "documented"
        ? `CL-09: sim: ${reproducer.bug} passes and still shows what CL-09 allows: ${reproducer.why}`
        : `CL-01, CL-03, CL-04: sim: known open bug ${reproducer.bug} is still found (${reproducer.kind}): ${reproducer.why}`;
  test(name, async () => {
    const outcome = await runEpisode(reproducer.config);
    const found = kindOf(outcome);
    if (reproducer.status === "knownOpen")
      assert.equal(found, reproducer.kind, `${describe(reproducer.config)} no longer fails with ${reproducer.kind}: move it to fixed`);
    else assert.equal(found, undefined, `${describe(reproducer.config)}: ${outcome.violations[0]?.detail}\n${outcome.trace.join("\n")}`);
    if (reproducer.status === "documented")
      assert.ok(outcome.spares > 0, `${describe(reproducer.config)} no longer hears a spare tools/list_changed: a stale reproducer`);
  });
}

/** The bugs fixed through the stores' optional methods (mail/take, reserveRequestIds, a conditional put): without them they come back. */
const STORE_FIXES: ReadonlySet<string> = new Set(["a", "c", "d", "g"]);

for (const reproducer of REPRODUCERS.filter((r) => r.status === "fixed" && STORE_FIXES.has(r.bug)))
  test(`CL-06, CL-08: sim: with the stores of before the fix (no mailbox, no id blocks, no conditional put), bug ${reproducer.bug} is found again (${reproducer.kind}, seed ${reproducer.config.seed})`, async () => {
    const outcome = await runEpisode({ ...reproducer.config, legacyStores: true });
    assert.equal(kindOf(outcome), reproducer.kind, describe({ ...reproducer.config, legacyStores: true }));
  });

test(`CL-01, CL-02, CL-03, CL-04, CL-05: sim: ${EPISODES} random episodes of the cluster break no invariant but the known open ones`, async (t) => {
  const open = new Map<string, number>();
  for (let seed = FIRST_SEED; seed < FIRST_SEED + EPISODES; seed++) {
    const outcome = await runEpisode(configOf(seed));
    const kind = kindOf(outcome);
    if (kind === undefined) continue;
    assert.ok(
      KNOWN_OPEN.has(kind),
      `seed ${seed}: ${kind}: ${outcome.violations[0]?.detail}\n(npm run sim -- --seed ${seed} --episodes 1)\n${outcome.trace.join("\n")}`,
    );
    open.set(kind, (open.get(kind) ?? 0) + 1);
  }
  for (const [kind, count] of open) t.diagnostic(`known open ${kind}: ${count} of ${EPISODES} episodes`);
});
