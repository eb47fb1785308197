// Replays every fixture under fixtures/ (format: fixtures/FORMAT.md) for each version and
// strictness it lists, delivering inputs both as parsed values and as bytes. Fixtures listed
// in expected-failures.json must fail; a listed fixture that passes fails the run.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { parseFixture, replay, type Fixture, type InputMode } from "../support/replayer.js";
import { fixtureTestName } from "../support/test-names.js";
import { listFixtureFiles } from "../../lib/cli/conform/fixtures.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const fixturesDir = join(root, "fixtures");
const expectedFailures = JSON.parse(readFileSync(join(root, "spec-tests", "corpus", "expected-failures.json"), "utf8")) as Record<
  string,
  string
>;

const fixtures: Fixture[] = listFixtureFiles(fixturesDir).map((path) => parseFixture(readFileSync(path, "utf8"), relative(root, path)));
const seen = new Set<string>();

test("fixture ids are unique and match their paths", () => {
  for (const f of fixtures) {
    assert.equal(seen.has(f.header.fixture), false, `duplicate fixture id ${f.header.fixture}`);
    seen.add(f.header.fixture);
    assert.equal(`fixtures/${f.header.fixture}.jsonl`, f.file, `fixture id must be its path: ${f.file}`);
  }
});

test("every expected failure names an existing fixture", () => {
  for (const key of Object.keys(expectedFailures)) {
    const id = key.split("@")[0] as string;
    assert.ok(
      fixtures.some((f) => f.header.fixture === id),
      `expected-failures.json names unknown fixture ${key}`,
    );
  }
});

for (const fixture of fixtures) {
  test(fixtureTestName(fixture.header), () => {
    const problems: string[] = [];
    for (const version of fixture.header.versions) {
      const reason = expectedFailures[fixture.header.fixture] ?? expectedFailures[`${fixture.header.fixture}@${version}`];
      for (const strict of fixture.header.strict ?? [false]) {
        const failures: string[] = [];
        for (const mode of ["value", "bytes"] as InputMode[]) {
          const problem = replay(fixture, version, strict, mode);
          if (problem !== undefined) failures.push(`[${version}${strict ? " strict" : ""} ${mode}] ${problem}`);
        }
        if (reason === undefined) problems.push(...failures);
        else if (failures.length === 0) problems.push(`[${version}] listed in expected-failures.json (${reason}) but passes`);
      }
    }
    assert.deepEqual(problems, []);
  });
}
