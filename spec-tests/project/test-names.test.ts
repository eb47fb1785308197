// Test names cite the rule they check: a name opens with the RULES.md ids of the behaviour it tests
// ("L-10: a request before initialize gets -32600"). This file checks that every id a test name
// cites anywhere under spec-tests/ has a RULES.md entry, and that in the folders below at least the
// share BARS sets of the test names cite one. It prints the figures.
//
// Names are read from the sources (spec-tests/support/test-names.ts): one declaration is one name.
// The corpus's replay tests are named by fixtureTestName from each fixture's header, so that folder
// counts one name per fixture. A name that opens with a placeholder (`${c.rule}: …`) counts as
// citing only where DYNAMIC says where its ids come from.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseFixture } from "../support/replayer.js";
import { listFiles, parseRules } from "../support/rules-inventory.js";
import { fixtureTestName, leadingIds, testNames, unknownIds } from "../support/test-names.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const specTests = join(root, "spec-tests");
const rules = parseRules(readFileSync(join(root, "RULES.md"), "utf8"));

/** The least share of test names citing an id, per folder: each folder's share rounded down, so it cannot slip back (raise a bar when a share rises). */
const BARS: Readonly<Record<string, number>> = { core: 0.8, http: 0.9, auth: 0.95, cli: 0.65, corpus: 0.95, peer: 0.6 };

/** Names that open with a placeholder yet cite an id, and where that id comes from. */
const DYNAMIC: Readonly<Record<string, string>> = {
  "core/envelope.test.ts": "each catalogue case's `rule` (string literals that rules.test.ts resolves)",
};

interface Named {
  readonly where: string;
  readonly name: string;
  readonly dynamicStart: boolean;
}

/** The test sources under spec-tests/`dir` (absolute paths). */
function testSources(dir: string): string[] {
  return listFiles(specTests, dir, [".test.ts"]).map((file) => join(specTests, file));
}

function fixtureNames(): Named[] {
  return listFiles(root, "fixtures", [".jsonl"]).map((file) => {
    const fixture = parseFixture(readFileSync(join(root, file), "utf8"), file);
    return { where: fixture.file, name: fixtureTestName(fixture.header), dynamicStart: false };
  });
}

/** The test names of one source file; the corpus replay file adds one per fixture. */
function namesOf(path: string): Named[] {
  const file = relative(specTests, path);
  const text = readFileSync(path, "utf8");
  const named: Named[] = testNames(text).map((t) => ({
    where: `spec-tests/${file}:${t.line}`,
    name: t.name,
    dynamicStart: t.dynamicStart,
  }));
  if (file === join("corpus", "fixtures.test.ts")) named.push(...fixtureNames());
  return named;
}

function cites(file: string, n: Named): boolean {
  if (n.dynamicStart) return Object.hasOwn(DYNAMIC, file) && /^\$\{\}: /.test(n.name);
  return leadingIds(n.name).length > 0;
}

test("the corpus names each replay test by fixtureTestName (the names this check counts for it)", () => {
  assert.match(readFileSync(join(specTests, "corpus", "fixtures.test.ts"), "utf8"), /\btest\(fixtureTestName\(fixture\.header\),/);
});

test("every rule id a test name cites, anywhere under spec-tests/, has a RULES.md entry", () => {
  const all = testSources("").flatMap(namesOf);
  assert.ok(all.length > 1000, `only ${all.length} test names found`);
  assert.deepEqual(unknownIds(all, rules), []);
});

test("the check fails on a name citing an unknown id, wherever in the name it stands", () => {
  // Made-up ids are assembled, so that rules.test.ts does not read them as citations of this file.
  const [first, second] = [["ZZ", "99"].join("-"), ["QQ", "12"].join("-")];
  const source = `test("${first}: a made-up rule", () => {});\nit(\`M-01: known, and then ${second} \${x}\`, () => {});\ntest("ok", () => {});`;
  const sample = testNames(source);
  assert.deepEqual(
    sample.map((n) => n.name),
    [`${first}: a made-up rule`, `M-01: known, and then ${second} \${}`, "ok"],
  );
  const found = unknownIds(
    sample.map((n) => ({ where: `sample:${n.line}`, name: n.name })),
    rules,
  );
  assert.deepEqual(
    found.map((p) => p.split(" ")[1]),
    [first, second],
  );
  assert.deepEqual(leadingIds("L-10, L-11: two rules"), ["L-10", "L-11"]);
  assert.deepEqual(leadingIds("L-10 without a colon"), []);
});

test("in core, http, auth, cli, corpus and peer, at least the set share of test names cite a rule id", (t) => {
  const short: string[] = [];
  for (const [folder, bar] of Object.entries(BARS)) {
    let total = 0;
    let citing = 0;
    for (const path of testSources(folder)) {
      const file = relative(specTests, path);
      for (const n of namesOf(path)) {
        total++;
        if (cites(file, n)) citing++;
      }
    }
    const share = total === 0 ? 0 : citing / total;
    t.diagnostic(
      `${folder}: ${citing} of ${total} test names cite a rule id (${(100 * share).toFixed(1)} %, bar ${Math.round(100 * bar)} %)`,
    );
    if (share < bar) short.push(`${folder}: ${(100 * share).toFixed(1)} % < ${Math.round(100 * bar)} %`);
  }
  assert.deepEqual(short, []);
});
