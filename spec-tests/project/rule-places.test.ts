// RULES.md names, for each decision that must be made in one place, where it is made ("Where the
// rules are decided"): a file under lib/ and the symbols there. This checks that the section lists
// them all, that every id it names has an entry, and that each named file exists, holds each named
// symbol and cites the row's ids, so a move or a rename cannot leave the list pointing nowhere.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseRules } from "../support/rules-inventory.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const text = readFileSync(join(root, "RULES.md"), "utf8");
const rules = parseRules(text);

interface Place {
  readonly decision: string;
  readonly ids: readonly string[];
  readonly file: string;
  readonly symbols: readonly string[];
}

/** The rows of the "Where the rules are decided" table. */
function places(): Place[] {
  const start = text.indexOf("## Where the rules are decided");
  assert.ok(start >= 0, 'RULES.md has a section "Where the rules are decided"');
  const end = text.indexOf("\n## ", start + 1);
  const rows = text
    .slice(start, end === -1 ? undefined : end)
    .split("\n")
    .filter((l) => l.startsWith("| ") && !l.startsWith("| Decision") && !l.startsWith("| ---"));
  return rows.map((line) => {
    const [decision = "", ids = "", where = ""] = line.slice(2, -2).split(" | ");
    const code = [...where.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? "");
    return { decision, ids: ids.split(", "), file: code[0] ?? "", symbols: code.slice(1) };
  });
}

test("the section names a place for each of the ten decisions made in one place, with ids that have entries", () => {
  const list = places();
  const ids = new Set(list.flatMap((p) => p.ids));
  for (const id of ["L-10", "L-01", "M-09", "P-05", "X-02", "C-01", "M-10", "RS-02", "MOD-02", "C-04"])
    assert.ok(ids.has(id), `no place for ${id}`);
  assert.deepEqual(
    list.flatMap((p) => p.ids).filter((id) => !rules.has(id)),
    [],
  );
});

test("every place exists: the file under lib/, each symbol in it, and a citation of the row's ids", () => {
  const problems: string[] = [];
  for (const p of places()) {
    if (!/^lib\/[\w/.-]+\.ts$/.test(p.file) || !existsSync(join(root, p.file))) {
      problems.push(`${p.decision}: no file ${p.file}`);
      continue;
    }
    const source = readFileSync(join(root, p.file), "utf8");
    for (const symbol of p.symbols) {
      const name = symbol.replace(/^[^\w]+|[^\w]+$/g, "");
      if (!new RegExp(`\\b${name}\\b`).test(source)) problems.push(`${p.decision}: ${p.file} has no ${name}`);
    }
    for (const id of p.ids) if (!source.includes(id)) problems.push(`${p.decision}: ${p.file} does not cite ${id}`);
  }
  assert.deepEqual(problems, []);
});
