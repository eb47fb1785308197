// Rule-id inventory: every place the project names a protocol rule, found by reading the
// source tree (lib/, spec-tests/, bench/ and fixtures/), plus every citation of a document that
// is not in the repository (the `outside` pattern of spec-tests/rule-renames.json). RULES.md is
// the list these ids must resolve to (rules.test.ts).
//
// What counts as a use of a rule id:
// - in TypeScript, any id-shaped token (one to four capitals, a dash, two digits) and any
//   section-shaped token of the old scheme (a letter, a dot, a number), in code, strings,
//   test names and comments alike; a word id of the old scheme only where a rule is given or
//   compared (`rule: "<word>"`, `isRule(...)`, `violation(...)`), in an array of rule ids, as
//   the rule half of `"violation:<word>"`, or as a regex literal `/^<word>$/`;
// - in a fixture, the header's `rules` and every `"rule"` member of a step.
// Error messages are built from these same literals (`[rule] expected ...; got ...`), so the
// literals cover them.
//
// Run after `npm run build`: `node dist/spec-tests/support/rules-inventory.js [root]` prints the
// inventory (id, count, files; `--all` lists every file) and the outside citations
// (`--refs` lists each line).

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export type UseKind = "code" | "comment" | "fixture-header" | "fixture-step";

export interface RuleUse {
  readonly id: string;
  readonly file: string;
  readonly line: number;
  readonly kind: UseKind;
  /** The whole source line (or, for a fixture, the step's JSON), for context-aware renames. */
  readonly text: string;
}

export interface OutsideRef {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

/** Id-shaped tokens: a family of 1 to 4 capitals, a dash, two digits (`M-01`, `TK-08`, `MOD-12`); `UTF-16` is an encoding. */
export const ID_SHAPED = /\b(?!UTF-)[A-Z]{1,4}-\d{2}\b/g;
/** Section-shaped tokens of the old scheme (a letter a to g, a dot, a number), wherever they stand. */
export const SECTION_TOKEN = /(?<![\w.])[a-g]\.\d{1,2}(?![\w]|\.\d)/g;
/** Word ids of the old scheme. */
export const WORD_IDS: readonly string[] = ["limit", "internal", "engine"];

const SKIP_DIRS = new Set(["node_modules", "dist", ".git", "coverage"]);
/** The rule-list tooling itself names old and new ids as examples; it is not a use. */
export const TOOLING = [
  "spec-tests/rules-inventory.ts",
  "spec-tests/rules.test.ts",
  "spec-tests/apply-rule-renames.ts",
  "spec-tests/rule-renames.json",
];

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

/** String literals on a line (double, single or backtick quoted, no nesting), with their offsets. */
export function stringLiterals(line: string): { value: string; start: number }[] {
  const out: { value: string; start: number }[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|`((?:[^`\\]|\\.)*)`/g;
  for (let m = re.exec(line); m !== null; m = re.exec(line)) out.push({ value: m[1] ?? m[2] ?? m[3] ?? "", start: m.index });
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

/** A literal is in a rule position when the code just before it gives or compares a rule. */
export const RULE_POSITION =
  /(?:\brule\s*(?::|===|!==|==|=)\s*|\bisRule\(\s*|\b(?:violation|local|full)\(\s*|\bshutdown\(\s*"[^"]*",\s*|\brefusal\(\s*[^,()]*,\s*(?:"[^"]*",\s*(?:\{[^}]*\},\s*\d+,\s*)?)?|throws:\s*\{\s*rule:\s*)$/;

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

/** Where a word id stands in code as a rule id: its offset and length in `code`. */
export interface WordSpan {
  readonly word: string;
  readonly index: number;
}

const ANY_ID = `(?:[A-Z]{1,4}-\\d{2}|[a-g]\\.\\d{1,2}|${WORD_IDS.join("|")})`;
/** An array literal of rule ids only, at least one of them not a word (`["M-01", "limit"]`). */
const ID_ARRAY = new RegExp(`\\[\\s*(?:(["'])${ANY_ID}\\1\\s*,\\s*)*(["'])${ANY_ID}\\2\\s*,?\\s*\\]`, "g");

/**
 * The word ids of a line of code that name a rule: a literal where a rule is given or compared
 * (RULE_POSITION), an element of an array of rule ids, the rule half of `"violation:<word>"`,
 * or a regex literal `/^<word>$/`. Elsewhere the words are plain words.
 */
export function wordIdSpans(code: string): WordSpan[] {
  const spans: WordSpan[] = [];
  const arrays: [number, number][] = [];
  for (const m of code.matchAll(ID_ARRAY))
    if (/(["'])(?:[A-Z]{1,4}-\d{2}|[a-g]\.\d{1,2})\1/.test(m[0])) arrays.push([m.index ?? 0, (m.index ?? 0) + m[0].length]);
  for (const lit of stringLiterals(code)) {
    const inArray = arrays.some(([a, b]) => lit.start > a && lit.start < b);
    if (WORD_IDS.includes(lit.value) && (RULE_POSITION.test(code.slice(0, lit.start)) || inArray))
      spans.push({ word: lit.value, index: lit.start + 1 });
    const composite = /^([a-z-]+):([a-z]+)$/.exec(lit.value);
    if (composite !== null && WORD_IDS.includes(composite[2] ?? ""))
      spans.push({ word: composite[2] ?? "", index: lit.start + 1 + (composite[1] ?? "").length + 1 });
  }
  for (const m of code.matchAll(/\/\^([a-z]+)\$\//g))
    if (WORD_IDS.includes(m[1] ?? "")) spans.push({ word: m[1] ?? "", index: (m.index ?? 0) + 2 });
  return spans.sort((a, b) => a.index - b.index);
}

export function tsUses(file: string, text: string): RuleUse[] {
  const uses: RuleUse[] = [];
  const lines = text.split("\n");
  const starts = commentStarts(lines);
  lines.forEach((line, i) => {
    const lineNo = i + 1;
    const cStart = starts[i] ?? -1;
    const codePart = cStart === -1 ? line : line.slice(0, cStart);
    for (const m of line.matchAll(ID_SHAPED)) {
      uses.push({ id: m[0], file, line: lineNo, kind: cStart !== -1 && (m.index ?? 0) >= cStart ? "comment" : "code", text: line });
    }
    for (const m of line.matchAll(SECTION_TOKEN)) {
      uses.push({ id: m[0], file, line: lineNo, kind: cStart !== -1 && (m.index ?? 0) >= cStart ? "comment" : "code", text: line });
    }
    for (const span of wordIdSpans(codePart)) uses.push({ id: span.word, file, line: lineNo, kind: "code", text: line });
    // Regex literals that spell section ids with escapes (/^a\.4$/).
    for (const m of codePart.matchAll(/\/\^([a-g])\\\.(\d{1,2})\$\//g))
      uses.push({ id: `${m[1]}.${m[2]}`, file, line: lineNo, kind: "code", text: line });
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

/** The rules an HTTP fixture (fixtures/http/FORMAT.md: one JSON object per file) lists in its header. */
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

/** Lines of a tree held in memory that cite a document outside the repository (`outside`: the map's pattern). */
export function outsideRefsOf(tree: ReadonlyMap<string, string>, outside: RegExp): OutsideRef[] {
  const refs: OutsideRef[] = [];
  for (const [file, text] of tree) {
    text.split("\n").forEach((line, i) => {
      if (outside.test(line)) refs.push({ file, line: i + 1, text: line.trim() });
    });
  }
  return refs;
}

// ── RULES.md and the rename map ─────────────────────────────────────────────────────────

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

/** The entries of RULES.md: table rows whose first cell is an id, in the family sections before "Former ids". */
export function parseRules(text: string): Map<string, RuleEntry> {
  const entries = new Map<string, RuleEntry>();
  let family: string | undefined;
  text.split("\n").forEach((line, i) => {
    const heading = /^## (.+)$/.exec(line);
    if (heading !== undefined && heading !== null) {
      family = /^Former ids/.test(heading[1] ?? "") ? undefined : (heading[1] ?? "").split(":")[0];
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

export interface RenameEntry {
  readonly id: string;
  readonly match?: string;
  readonly lineOnly?: boolean;
  readonly where?: string;
}

export interface Citation {
  readonly find: string;
  readonly replace: string;
  readonly onlyWith?: string;
  readonly prevLine?: string;
  readonly where?: string;
}

export interface CodeRewrite {
  readonly find: string;
  readonly replace: string;
  readonly where?: string;
}

export interface RenameMap {
  /** The pattern of a citation of a document outside the repository. */
  readonly outside: string;
  readonly ids: Readonly<Record<string, string | readonly RenameEntry[]>>;
  readonly sections: Readonly<Record<string, string>>;
  readonly citations: readonly Citation[];
  readonly code: readonly CodeRewrite[];
}

export function loadRenames(root: string): RenameMap {
  const raw = JSON.parse(readFileSync(join(root, "spec-tests/rule-renames.json"), "utf8")) as Partial<RenameMap>;
  return {
    outside: raw.outside ?? "(?!)",
    ids: raw.ids ?? {},
    sections: raw.sections ?? {},
    citations: raw.citations ?? [],
    code: raw.code ?? [],
  };
}

export function outsidePattern(map: RenameMap): RegExp {
  return new RegExp(map.outside);
}

/** How far back (lines or steps) a use looks for its context when its own line decides nothing. */
export const CONTEXT_LINES = 15;

/**
 * The new id of an old id at one use: `line` is the use's own line (or step), `before` the
 * lines before it, nearest first. undefined: the map does not rename this id. "unresolved": it
 * does, but no entry matches and there is no default.
 */
export function resolveOld(map: RenameMap, old: string, line: string, before: readonly string[]): string | undefined {
  if (!Object.hasOwn(map.ids, old)) return undefined;
  const v = map.ids[old];
  if (typeof v === "string") return v;
  if (v === undefined) return undefined;
  for (const e of v) if (e.match !== undefined && new RegExp(e.match).test(line)) return e.id;
  for (const ctx of before.slice(0, CONTEXT_LINES))
    for (const e of v) if (e.match !== undefined && e.lineOnly !== true && new RegExp(e.match).test(ctx)) return e.id;
  return v.find((e) => e.match === undefined)?.id ?? "unresolved";
}

/** The ids a replacement text names, ranges given by their two ends ("M-01…M-10" → M-01, M-10). */
export function idsIn(text: string): string[] {
  return [...text.matchAll(ID_SHAPED)].map((m) => m[0]);
}

/** Files the outside-reference check covers: all of lib/, spec-tests/, bench/, fixtures/ and README.md but the rename map, which names the old citations. */
export function outsideRefFiles(root: string): string[] {
  const files = [
    ...listFiles(root, "lib", [".ts"]),
    ...listFiles(root, "spec-tests", [".ts", ".json"]),
    ...listFiles(root, "bench", [".ts"]),
    ...listFiles(root, "fixtures", [".jsonl", ".md"]),
    "README.md",
  ];
  return files.filter((f) => f !== "spec-tests/rule-renames.json");
}

/** Every line of the covered files that cites a document outside the repository. */
export function collectOutsideRefs(root: string): OutsideRef[] {
  const tree = new Map<string, string>();
  for (const file of outsideRefFiles(root)) {
    try {
      tree.set(file, readFileSync(join(root, file), "utf8"));
    } catch {
      // README.md may be absent in a partial tree.
    }
  }
  return outsideRefsOf(tree, outsidePattern(loadRenames(root)));
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
  if (process.argv.includes("--refs")) for (const r of refs) process.stdout.write(`${r.file}:${r.line}: ${r.text.slice(0, 160)}\n`);
}

if (process.argv[1] !== undefined && /rules-inventory\.js$/.test(process.argv[1])) main();
