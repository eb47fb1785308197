// Rule-id inventory: every place the project names a protocol rule, found by reading the
// source tree (lib/, spec-tests/, bench/ and fixtures/). RULES.md is the list these ids must
// resolve to (project/rules.test.ts), and parseRules reads it for the other checks. Also the
// lines that cite a document outside the repository, which no file may do.
//
// What counts as a use of a rule id:
// - in TypeScript, any id-shaped token (one to four capitals, a dash, two digits), in code,
//   strings, test names and comments alike;
// - in a fixture, the header's `rules` and every `"rule"` member of a step; in an HTTP fixture,
//   its header's `rules`.
// Error messages are built from these same literals (`[rule] expected ...; got ...`), so the
// literals cover them.
//
// Run after `npm run build`: `node dist/spec-tests/support/rules-inventory.js [root]` prints the
// inventory (id, count, files; `--all` lists every file) and every line that cites a document
// outside the repository.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export type UseKind = "code" | "comment" | "fixture-header" | "fixture-step";

export interface RuleUse {
  readonly id: string;
  readonly file: string;
  readonly line: number;
  readonly kind: UseKind;
  /** The whole source line (or, for a fixture, the step's JSON). */
  readonly text: string;
}

/** Id-shaped tokens: a family of 1 to 4 capitals, a dash, two digits (`M-01`, `TK-08`, `MOD-12`); `UTF-16` is an encoding. */
export const ID_SHAPED = /\b(?!UTF-)[A-Z]{1,4}-\d{2}\b/g;
const SKIP_DIRS = new Set(["node_modules", "dist", ".git", "coverage"]);
/** The inventory names ids as examples in its comments and holds the outside-citation pattern: neither is a use. */
export const TOOLING = ["spec-tests/support/rules-inventory.ts"];

/** Files under root/dir with one of the extensions, in a stable order. */
export function listFiles(root: string, dir: string, exts: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (abs: string): void => {
    let names: string[];
    try {
      names = readdirSync(abs).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (SKIP_DIRS.has(name)) continue;
      const path = join(abs, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (exts.some((e) => name.endsWith(e))) out.push(relative(root, path));
    }
  };
  walk(join(root, dir));
  return out;
}

/** Offset of a `//` comment start outside string literals, or -1. */
export function commentStart(line: string): number {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote !== undefined) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'" || ch === "`") quote = ch;
    else if (ch === "/" && line[i + 1] === "/") return i;
    else if (ch === "/" && line[i + 1] === "*") return i;
  }
  return -1;
}

/** For each line of a TypeScript file, where its comment starts (-1: none; 0: all comment). */
export function commentStarts(lines: readonly string[]): number[] {
  let inBlock = false;
  return lines.map((line) => {
    const trimmed = line.trimStart();
    const wasBlock = inBlock;
    if (trimmed.startsWith("/*")) inBlock = !trimmed.includes("*/");
    else if (inBlock && line.includes("*/")) inBlock = false;
    return wasBlock || trimmed.startsWith("/*") || trimmed.startsWith("*") ? 0 : commentStart(line);
  });
}

/** The rule ids a TypeScript file names, each marked as in code or in a comment. */
export function tsUses(file: string, text: string): RuleUse[] {
  const uses: RuleUse[] = [];
  const lines = text.split("\n");
  const starts = commentStarts(lines);
  lines.forEach((line, i) => {
    const lineNo = i + 1;
    const cStart = starts[i] ?? -1;
    for (const m of line.matchAll(ID_SHAPED)) {
      uses.push({ id: m[0], file, line: lineNo, kind: cStart !== -1 && (m.index ?? 0) >= cStart ? "comment" : "code", text: line });
    }
  });
  return uses;
}

function collectRuleMembers(value: unknown, into: string[]): void {
  if (Array.isArray(value)) for (const v of value) collectRuleMembers(v, into);
  else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k === "rule" && typeof v === "string") into.push(v);
      else collectRuleMembers(v, into);
    }
  }
}

export function fixtureUses(file: string, text: string): RuleUse[] {
  const uses: RuleUse[] = [];
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return;
    }
    if (i === 0) {
      const rules = (value as { rules?: unknown }).rules;
      if (Array.isArray(rules))
        for (const r of rules) if (typeof r === "string") uses.push({ id: r, file, line: 1, kind: "fixture-header", text: line });
      return;
    }
    const found: string[] = [];
    collectRuleMembers(value, found);
    for (const id of found) uses.push({ id, file, line: i + 1, kind: "fixture-step", text: line });
  });
  return uses;
}

/** The rules an HTTP fixture (fixtures/FORMAT.md, "HTTP cases": one JSON object per file) lists in its header. */
export function httpFixtureUses(file: string, text: string): RuleUse[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  const rules = (value as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(rules)) return [];
  return rules
    .filter((r): r is string => typeof r === "string")
    .map((id) => ({ id, file, line: 1, kind: "fixture-header" as const, text: id }));
}

/** The files that may cite rules: TypeScript under lib/, spec-tests/ and bench/, fixtures, fixtures/FORMAT.md. */
export function ruleFiles(root: string): string[] {
  const ts = ["lib", "spec-tests", "bench"]
    .flatMap((dir) => listFiles(root, dir, [".ts"]))
    .filter((f) => !f.endsWith(".d.ts") && !TOOLING.includes(f));
  return [...ts, ...listFiles(root, "fixtures", [".jsonl", ".json", ".md"])];
}

/** Reads the rule files of a tree into memory. */
export function readTree(root: string): Map<string, string> {
  const tree = new Map<string, string>();
  for (const file of ruleFiles(root)) tree.set(file, readFileSync(join(root, file), "utf8"));
  return tree;
}

/** Every rule-id use in a tree held in memory (path → text). */
export function usesOf(tree: ReadonlyMap<string, string>): RuleUse[] {
  const uses: RuleUse[] = [];
  for (const [file, text] of tree) {
    if (file.endsWith(".ts")) uses.push(...tsUses(file, text));
    else if (file.endsWith(".jsonl")) uses.push(...fixtureUses(file, text));
    else if (file.endsWith(".json")) uses.push(...httpFixtureUses(file, text));
  }
  return uses;
}

/** Every rule-id use in the tree under root. */
export function collectUses(root: string): RuleUse[] {
  return usesOf(readTree(root));
}

// ── citations of documents outside the repository ───────────────────────────────────────

export interface OutsideRef {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

/**
 * A citation of a document that is not in the repository, so a reader cannot follow it: a
 * design document or digest named by file or by section number (`DESIGN.md`, `DESIGN section 4`,
 * `DIGEST`). Rules are cited by their RULES.md ids instead.
 */
export const OUTSIDE = /\bDIGEST\b|\bDESIGN\b(?:\.md)?(?:\s+(?:section|sections|§)\s*\d|\s+\d)|DESIGN\.md|\bDESIGN section/;

/** Files the outside-reference check covers: lib/, spec-tests/, bench/, fixtures/, docs/, README.md and RULES.md, but this file, which holds the pattern. */
export function outsideRefFiles(root: string): string[] {
  const files = [
    ...listFiles(root, "lib", [".ts"]),
    ...listFiles(root, "spec-tests", [".ts", ".json"]),
    ...listFiles(root, "bench", [".ts"]),
    ...listFiles(root, "fixtures", [".jsonl", ".md"]),
    ...listFiles(root, "docs", [".md"]),
    "README.md",
    "RULES.md",
  ];
  return files.filter((f) => !TOOLING.includes(f));
}

/** Every line of the covered files that cites a document outside the repository. */
export function collectOutsideRefs(root: string): OutsideRef[] {
  const refs: OutsideRef[] = [];
  for (const file of outsideRefFiles(root)) {
    let text: string;
    try {
      text = readFileSync(join(root, file), "utf8");
    } catch {
      continue; // README.md and RULES.md may be absent in a partial tree.
    }
    text.split("\n").forEach((line, i) => {
      if (OUTSIDE.test(line)) refs.push({ file, line: i + 1, text: line.trim() });
    });
  }
  return refs;
}

// ── RULES.md ─────────────────────────────────────────────────────────────────────────────

export interface RuleEntry {
  readonly id: string;
  readonly family: string;
  readonly level: string;
  readonly versions: string;
  readonly statement: string;
  /** The first link of the entry's specification cell. */
  readonly link: string;
  readonly line: number;
}

/** The entries of RULES.md: table rows whose first cell is an id, in the family sections (`## L: Lifecycle`). */
export function parseRules(text: string): Map<string, RuleEntry> {
  const entries = new Map<string, RuleEntry>();
  let family: string | undefined;
  text.split("\n").forEach((line, i) => {
    const heading = /^## (.+)$/.exec(line);
    if (heading !== null) {
      family = /^([A-Z]{1,4}): /.exec(heading[1] ?? "")?.[1];
      return;
    }
    if (family === undefined || !line.startsWith("| ")) return;
    const cells = line.slice(2, -2).split(" | ");
    const id = cells[0] ?? "";
    if (!/^[A-Z]{1,4}-\d{2}$/.test(id)) return;
    const link = /\]\((https?:\/\/[^)\s]+)\)/.exec(cells[4] ?? "")?.[1] ?? "";
    if (entries.has(id)) throw new Error(`RULES.md:${i + 1}: ${id} listed twice`);
    entries.set(id, { id, family, level: cells[1] ?? "", versions: cells[2] ?? "", statement: cells[3] ?? "", link, line: i + 1 });
  });
  return entries;
}

/** id → uses, ids sorted. */
export function groupById(uses: readonly RuleUse[]): Map<string, RuleUse[]> {
  const map = new Map<string, RuleUse[]>();
  for (const u of [...uses].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const list = map.get(u.id);
    if (list === undefined) map.set(u.id, [u]);
    else list.push(u);
  }
  return map;
}

function main(): void {
  const root = process.argv[2] ?? process.cwd();
  const uses = collectUses(root);
  const byId = groupById(uses);
  process.stdout.write(`${byId.size} rule ids, ${uses.length} uses\n\n`);
  for (const [id, list] of byId) {
    const files = new Map<string, number>();
    for (const u of list) files.set(u.file, (files.get(u.file) ?? 0) + 1);
    const kinds = [...new Set(list.map((u) => u.kind))].join(",");
    const shown = [...files].map(([f, n]) => `${f}(${n})`);
    const more = shown.length > 4 && !process.argv.includes("--all") ? ` +${shown.length - 4} more` : "";
    process.stdout.write(
      `${id.padEnd(9)} ${String(list.length).padStart(4)}  [${kinds}]  ${(more === "" ? shown : shown.slice(0, 4)).join(" ")}${more}\n`,
    );
  }
  const refs = collectOutsideRefs(root);
  process.stdout.write(`\n${refs.length} lines cite a document outside the repository\n`);
  for (const r of refs) process.stdout.write(`${r.file}:${r.line}: ${r.text.slice(0, 160)}\n`);
}

if (process.argv[1] !== undefined && /rules-inventory\.js$/.test(process.argv[1])) main();
