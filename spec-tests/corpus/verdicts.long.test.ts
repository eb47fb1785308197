// The published verdicts (fixtures/verdicts/, fixtures/FORMAT.md "Checking a replayer") are
// what the runner concludes now: `serve` as a black box and through its adapter, and each
// known-bad server, which must be flagged for its one rule and nothing else. A change to the
// corpus or the runner that moves a verdict fails here until the files are regenerated
// (node dist/spec-tests/tools/corpus-verdicts.js --write) and the change is reviewed.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { buildVerdicts, verdictDifferences } from "../tools/corpus-verdicts.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const published = (name: string): string => readFileSync(join(root, "fixtures", "verdicts", name), "utf8");

for (const name of ["serve.black-box.json", "serve.adapter.json", "known-bad.json"]) {
  test(`the runner reproduces fixtures/verdicts/${name}`, async () => {
    const built = (await buildVerdicts(root, (n) => n === name)).get(name) as string;
    assert.deepEqual(verdictDifferences(published(name), built), []);
  });
}

test("each known-bad server breaks its one rule and nothing else; the correct one nothing; serve through its adapter passes all", () => {
  const knownBad = JSON.parse(published("known-bad.json")) as {
    faults: { fault: string; mustBreak: string | null; failed: { failedRule: string }[] }[];
  };
  assert.ok(knownBad.faults.length >= 10);
  for (const { fault, mustBreak, failed } of knownBad.faults) {
    const rules = [...new Set(failed.map((f) => f.failedRule))];
    assert.deepEqual(rules, mustBreak === null ? [] : [mustBreak], fault);
  }
  const adapter = JSON.parse(published("serve.adapter.json")) as {
    cases: { outcome: string }[];
    judged: { judged: number; total: number };
  };
  assert.equal(adapter.judged.judged, adapter.judged.total);
  assert.deepEqual(
    adapter.cases.filter((c) => c.outcome !== "passed"),
    [],
  );
});
