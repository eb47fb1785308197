// RULES.md is the one list of rule ids: every id that lib/, spec-tests/, bench/ and fixtures/
// cite resolves to an entry, every entry is cited, and every entry says its level, versions
// and specification section. The tree is checked as spec-tests/apply-rule-renames.ts leaves it
// (the rename map applied in memory), so these tests hold both before and after the renames
// land in the files; once they have landed the transform changes nothing.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { renameTree } from "../apply-rule-renames.js";
import {
  collectOutsideRefs,
  idsIn,
  loadRenames,
  outsidePattern,
  outsideRefsOf,
  parseRules,
  readTree,
  resolveOld,
  usesOf,
  type RenameMap,
} from "../support/rules-inventory.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const rulesText = readFileSync(join(root, "RULES.md"), "utf8");
const rules = parseRules(rulesText);
const renames = loadRenames(root);
const original = readTree(root);
const { tree: renamed, report } = renameTree(original, renames, rules);

const VERSION = "(?:2024-11-05|2025-03-26|2025-06-18|2025-11-25|2026-07-28)";
const VERSIONS = new RegExp(`^(?:all|${VERSION}(?: … ${VERSION})?(?:, ${VERSION}(?: … ${VERSION})?)*)$`);
const LEVELS = new Set(["MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY", "policy"]);
// Extensions are documented beside the specification, under /extensions/.
const LINK = new RegExp(
  `^(?:https://modelcontextprotocol\\.io/specification/${VERSION}(?:/[a-z0-9_/-]+)?(?:#[a-z0-9_-]+)?|https://modelcontextprotocol\\.io/extensions/[a-z0-9_/-]+(?:#[a-z0-9_-]+)?|https://www\\.jsonrpc\\.org/specification(?:#[a-z0-9_]+)?|https://www\\.rfc-editor\\.org/rfc/rfc\\d+(?:#[a-z0-9.-]+)?)$`,
);

/** Every id the (renamed) tree cites, with where. */
function citedIds(): Map<string, string[]> {
  const cited = new Map<string, string[]>();
  for (const use of usesOf(renamed)) {
    const list = cited.get(use.id) ?? [];
    list.push(`${use.file}:${use.line}`);
    cited.set(use.id, list);
  }
  return cited;
}

test("RULES.md parses: families, at least one entry each, ids unique and in their family", () => {
  assert.ok(rules.size >= 100, `only ${rules.size} entries`);
  for (const entry of rules.values())
    assert.equal(entry.id.split("-")[0], entry.family, `${entry.id} sits under family ${entry.family} (RULES.md:${entry.line})`);
});

test("every RULES.md entry has a level, versions, a one-line statement and a specification link", () => {
  const problems: string[] = [];
  for (const e of rules.values()) {
    if (!LEVELS.has(e.level)) problems.push(`${e.id}: level ${JSON.stringify(e.level)}`);
    if (!VERSIONS.test(e.versions)) problems.push(`${e.id}: versions ${JSON.stringify(e.versions)}`);
    if (e.statement.trim().length < 10 || e.statement.includes("\n")) problems.push(`${e.id}: statement`);
    if (!LINK.test(e.link)) problems.push(`${e.id}: link ${JSON.stringify(e.link)}`);
  }
  assert.deepEqual(problems, []);
});

test("the rename map applies cleanly: every old id and citation resolves, and every new id it names has an entry", () => {
  assert.deepEqual(report.unresolved, []);
  const named = new Set<string>();
  const collect = (v: string | readonly { id: string }[] | undefined): void => {
    if (typeof v === "string") named.add(v);
    else if (v !== undefined) for (const e of v) named.add(e.id);
  };
  for (const v of Object.values(renames.ids)) collect(v);
  for (const text of Object.values(renames.sections)) for (const id of idsIn(text)) named.add(id);
  for (const c of renames.citations) for (const id of idsIn(c.replace)) named.add(id);
  for (const c of renames.code) for (const id of idsIn(c.replace)) named.add(id);
  assert.deepEqual([...named].filter((id) => !rules.has(id)).sort(), []);
});

test("every rule id cited in lib/, spec-tests/, bench/ and fixtures/ (error messages included) has a RULES.md entry", () => {
  const missing = [...citedIds()].filter(([id]) => !rules.has(id)).map(([id, where]) => `${id} at ${where.slice(0, 3).join(", ")}`);
  assert.deepEqual(missing, []);
});

test("every RULES.md entry is cited somewhere (no entry for a rule nothing checks)", () => {
  const cited = citedIds();
  const reserved = [...rules.values()].filter((e) => /^\*Reserved/.test(e.statement)).map((e) => e.id);
  const unused = [...rules.keys()].filter((id) => !cited.has(id) && !reserved.includes(id));
  assert.deepEqual(unused, []);
});

test("every fixture lists only ids of RULES.md, and its spec header is the links of those entries", () => {
  const problems: string[] = [];
  for (const [file, text] of renamed) {
    if (!file.endsWith(".jsonl")) continue;
    const header = JSON.parse(text.split("\n")[0] ?? "{}") as { rules?: string[]; spec?: string };
    for (const id of header.rules ?? []) if (!rules.has(id)) problems.push(`${file}: ${id}`);
    for (const link of (header.spec ?? "").split(" ")) if (!LINK.test(link)) problems.push(`${file}: spec ${link}`);
  }
  assert.deepEqual(problems, []);
});

test("the rename transform leaves no citation of a document outside the repository, and is idempotent", () => {
  assert.deepEqual(
    outsideRefsOf(renamed, outsidePattern(renames)).map((r) => `${r.file}:${r.line}`),
    [],
  );
  const again = renameTree(renamed, renames, rules);
  assert.deepEqual(again.report.changed, []);
});

test("split ids resolve by context: one old id, several rules", () => {
  const map: RenameMap = renames;
  assert.equal(resolveOld(map, "limit", 'this.violation("limit", `lines of at most ${limit} bytes`)', []), "LIM-01");
  assert.equal(
    resolveOld(map, "limit", 'assert.throws(() => c.request("x"), isRule("limit"));', [
      'c.request("x");',
      "const c = operatingClient({ limits: { maxPendingOutbound: 2 } });",
    ]),
    "LIM-03",
  );
  assert.equal(resolveOld(map, "a.1", '{"event":{"kind":"violation","rule":"a.1","id":1,"code":-32602}}', []), "SCH-01");
  assert.equal(
    resolveOld(map, "a.1", '{"event":{"kind":"violation","rule":"a.1","id":1}}', [
      '{"in":{"jsonrpc":"2.0","id":1,"result":{"completion":{"values":[]}}}}',
    ]),
    "CM-01",
  );
  assert.equal(resolveOld(map, "limit", "nothing to go by", []), "unresolved");
  assert.equal(resolveOld(map, "M-01", "anything", []), undefined);
});

// node:test takes options as the second argument; the project's own declarations of node:test
// (lib/hosts/node.d.ts) list only the two-argument form.
const testWithOptions = test as unknown as (name: string, options: { todo?: string }, fn: () => void) => Promise<void>;

testWithOptions(
  "no file under lib/, spec-tests/ (but the rename map), bench/, fixtures/ or README.md cites a document outside the repository",
  {},
  () => {
    assert.deepEqual(
      collectOutsideRefs(root).map((r) => `${r.file}:${r.line}: ${r.text.slice(0, 80)}`),
      [],
    );
  },
);
