// RULES.md is the one list of rule ids: every id that lib/, spec-tests/, bench/ and fixtures/
// cite resolves to an entry, every entry is cited, and every entry says its level, versions
// and specification section. Under lib/ the index is grep-complete: ids are cited one by one,
// never as a range, and every entry is cited there (at the code that enforces it). No file
// cites a document outside the repository.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ID_SHAPED, collectOutsideRefs, listFiles, parseRules, readTree, usesOf } from "../support/rules-inventory.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const rulesText = readFileSync(join(root, "RULES.md"), "utf8");
const rules = parseRules(rulesText);
const tree = readTree(root);

const VERSION = "(?:2024-11-05|2025-03-26|2025-06-18|2025-11-25|2026-07-28)";
const VERSIONS = new RegExp(`^(?:all|${VERSION}(?: … ${VERSION})?(?:, ${VERSION}(?: … ${VERSION})?)*)$`);
const LEVELS = new Set(["MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY", "policy"]);
// Extensions are documented beside the specification, under /extensions/, or in their SEP (/seps/).
const LINK = new RegExp(
  `^(?:https://modelcontextprotocol\\.io/specification/${VERSION}(?:/[a-z0-9_/-]+)?(?:#[a-z0-9_-]+)?|https://modelcontextprotocol\\.io/extensions/[a-z0-9_/-]+(?:#[a-z0-9_-]+)?|https://modelcontextprotocol\\.io/seps/\\d+-[a-z0-9-]+(?:#[a-z0-9_-]+)?|https://www\\.jsonrpc\\.org/specification(?:#[a-z0-9_]+)?|https://www\\.rfc-editor\\.org/rfc/rfc\\d+(?:#[a-z0-9.-]+)?)$`,
);

/** Every id the tree cites, with where. */
function citedIds(): Map<string, string[]> {
  const cited = new Map<string, string[]>();
  for (const use of usesOf(tree)) {
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
  for (const [file, text] of tree) {
    if (!file.endsWith(".jsonl")) continue;
    const header = JSON.parse(text.split("\n")[0] ?? "{}") as { rules?: string[]; spec?: string };
    for (const id of header.rules ?? []) if (!rules.has(id)) problems.push(`${file}: ${id}`);
    for (const link of (header.spec ?? "").split(" ")) if (!LINK.test(link)) problems.push(`${file}: spec ${link}`);
  }
  assert.deepEqual(problems, []);
});
test("no file under lib/, spec-tests/, bench/, fixtures/ or docs/, nor README.md or RULES.md, cites a document outside the repository", () => {
  assert.deepEqual(
    collectOutsideRefs(root).map((r) => `${r.file}:${r.line}: ${r.text.slice(0, 80)}`),
    [],
  );
});

// ── Citations in lib/, one id at a time ─────────────────────────────────────────────────

/**
 * A range of rule ids: two ids (or an id and a number) joined by an ellipsis, two or three dots,
 * a dash (en, em or hyphen) or "to", possibly across a line break and a comment leader. A range
 * hides the ids between its ends from a search for one of them.
 */
const RANGE = /\b(?!UTF-)[A-Z]{1,4}-\d{2}[ \t]*(?:…|\.{2,3}|–|—|-|\bto\b)[ \t]*(?:\r?\n[ \t]*(?:\/\/|\*)?[ \t]*)?(?:[A-Z]{1,4}-)?\d{2}\b/g;

/** Every TypeScript source under lib/, with its text. */
function libSources(): Array<readonly [string, string]> {
  return listFiles(root, "lib", [".ts"]).map((file) => [file, readFileSync(join(root, file), "utf8")] as const);
}

test("the range pattern finds the forms a range is written in, and no list of ids", () => {
  const ranges = [
    "O-01…O-05",
    "O-01 … O-05",
    "MOD-01 – MOD-15",
    "HTTP-01 - HTTP-04",
    "X-01..X-05",
    "L-10 to L-13",
    "C-01…10",
    "K-03…\n// K-05",
  ];
  for (const text of ranges) assert.equal(text.match(RANGE)?.length, 1, text);
  for (const text of ["O-01, O-05", "L-07/HTTP-03", "(X-02, L-04)", "UTF-16 - 32 bits", "MOD-22: 2026-07-28"])
    assert.equal(text.match(RANGE), null, text);
});

test("no file under lib/ cites a range of rule ids: each id is named where it is enforced", () => {
  const found: string[] = [];
  for (const [file, text] of libSources())
    for (const m of text.matchAll(RANGE)) found.push(`${file}:${text.slice(0, m.index).split("\n").length}: ${m[0].replace(/\s+/g, " ")}`);
  assert.deepEqual(found, []);
});

test("every RULES.md entry is cited somewhere under lib/ (RULES.md lists only rules the engine and its layers enforce)", () => {
  const cited = new Set<string>();
  for (const [, text] of libSources()) for (const m of text.matchAll(ID_SHAPED)) cited.add(m[0]);
  const reserved = (id: string): boolean => /^\*Reserved/.test(rules.get(id)?.statement ?? "");
  assert.deepEqual(
    [...rules.keys()].filter((id) => !cited.has(id) && !reserved(id)),
    [],
  );
});
