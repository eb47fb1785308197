// Rewrites the tree to the ids of RULES.md, following spec-tests/rule-renames.json:
// - rule ids in lib/, spec-tests/ and bench/ TypeScript (string literals, regex literals, test
//   names, comments) and in fixtures (header `rules`, every step's `"rule"`), split ids
//   resolved by their context;
// - citations of documents outside the repository (the map's `outside` pattern) in comments and
//   fixtures/FORMAT.md become RULES.md ids; each fixture's `spec` header becomes the
//   specification links of its rules.
// The transform is pure (renameTree) so that rules.test.ts can check its result in memory;
// running it twice changes nothing the second time. Fixture lines are edited as text, never
// re-serialized, so numbers such as 9007199254740993 keep their spelling.
//
// Usage, after `npm run build`: node dist/spec-tests/apply-rule-renames.js [root]
// Exit code 1 when a use could not be resolved (nothing is written then). After a run, the
// outside-citation test of rules.test.ts stops being a todo.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  CONTEXT_LINES,
  ID_SHAPED,
  SECTION_TOKEN,
  WORD_IDS,
  commentStart,
  commentStarts,
  loadRenames,
  parseRules,
  readTree,
  resolveOld,
  wordIdSpans,
  type RenameMap,
  type RuleEntry,
} from "./support/rules-inventory.js";

/** The option that keeps the outside-citation test of rules.test.ts a todo until this script has run. */
export const TODO_MARKER = '{ todo: "until the renames land (node dist/spec-tests/apply-rule-renames.js)" }';

export interface RenameReport {
  readonly changed: string[];
  /** "file:line: old id (why)" for every use the map could not turn into an id of RULES.md. */
  readonly unresolved: string[];
  /** Citation and code rewrites that matched nowhere (the tree moved on; worth a look). */
  readonly unused: string[];
}

/** Removes repeated ids from comma lists ("M-01, M-01, ID-02" → "M-01, ID-02"). */
function dedupeLists(text: string): string {
  const item = "[A-Z]{1,4}-\\d{2}(?:…[A-Z]{1,4}-\\d{2})?";
  const lists = text.replace(new RegExp(`${item}(?:, ${item})+`, "g"), (list) => [...new Set(list.split(", "))].join(", "));
  return lists.replace(/\b([A-Z]{1,4}-\d{2})\/\1\b/g, "$1");
}

class Renamer {
  readonly unresolved: string[] = [];
  readonly used = new Set<string>();

  constructor(
    private readonly map: RenameMap,
    private readonly rules: ReadonlyMap<string, RuleEntry>,
  ) {}

  /** The new id for an old one at a use; records the use when it cannot be resolved. */
  private resolve(old: string, line: string, before: readonly string[], where: string, sectionsToo: boolean): string {
    if (sectionsToo && Object.hasOwn(this.map.sections, old)) return this.map.sections[old] ?? old;
    const id = resolveOld(this.map, old, line, before);
    if (id === undefined && Object.hasOwn(this.map.sections, old)) return this.map.sections[old] ?? old;
    if (id === undefined) {
      if (/^[a-g]\.\d+$/.test(old) || WORD_IDS.includes(old)) this.unresolved.push(`${where}: ${old} (not in the rename map)`);
      return old;
    }
    if (id === "unresolved") {
      this.unresolved.push(`${where}: ${old} (no entry matches this use and there is no default)`);
      return old;
    }
    return id;
  }

  private citations(line: string, prev: string): string {
    let out = line;
    this.map.citations.forEach((c, i) => {
      if (c.onlyWith !== undefined && !out.includes(c.onlyWith)) return;
      if (c.prevLine !== undefined && !new RegExp(c.prevLine).test(prev)) return;
      const re = new RegExp(c.find, "g");
      if (!re.test(out)) return;
      this.used.add(`citation ${i}`);
      out = out.replace(new RegExp(c.find, "g"), c.replace);
    });
    return out;
  }

  private comment(text: string, orig: string, where: string): string {
    let out = text.replace(/\be\.2(?: item)? \d+(?:, \d+)*/g, (m) => this.resolve("e.2", m, [], where, false));
    out = out.replace(/(?<![\w.])[a-g]\.\d{1,2}\s*(?=\(?[A-Z]{1,4}-\d\d)/g, "");
    out = out.replace(/((?<![\w.])[a-g]\.\d{1,2}) (?:rows? \d+(?:[-–]\d+)?(?:, \d+(?:[-–]\d+)?)*|#\d+|item \d+)/g, "$1");
    out = out.replace(/(?<![\w.])([a-g])\.(\d{1,2})[–-]\1\.(\d{1,2})(?!\w)/g, (_m, letter: string, from: string, to: string) => {
      const list: string[] = [];
      for (let n = Number(from); n <= Number(to); n++) list.push(`${letter}.${n}`);
      return list.join(", ");
    });
    while (/(?<![\w.])([a-g]\.\d{1,2})\/(?=[a-g]\.\d)/.test(out)) out = out.replace(/(?<![\w.])([a-g]\.\d{1,2})\/(?=[a-g]\.\d)/g, "$1, ");
    // A comment is read on its own line: the code above it says little about what it cites.
    out = out.replace(SECTION_TOKEN, (tok) => this.resolve(tok, orig, [], where, true));
    out = out.replace(ID_SHAPED, (tok) => this.resolve(tok, orig, [], where, false));
    return dedupeLists(out);
  }

  private code(text: string, orig: string, before: readonly string[], where: string): string {
    // Word ids first, while the offsets of wordIdSpans still hold (from the end backwards).
    let out = text;
    for (const span of wordIdSpans(text).reverse()) {
      out = out.slice(0, span.index) + this.resolve(span.word, orig, before, where, false) + out.slice(span.index + span.word.length);
    }
    out = out.replace(
      /\/\^([a-g])\\\.(\d{1,2})\$\//g,
      (_m, l: string, n: string) => `/^${this.resolve(`${l}.${n}`, orig, before, where, false)}$/`,
    );
    out = out.replace(SECTION_TOKEN, (tok) => this.resolve(tok, orig, before, where, false));
    out = out.replace(ID_SHAPED, (tok) => this.resolve(tok, orig, before, where, false));
    return out;
  }

  ts(file: string, text: string): string {
    let whole = text;
    this.map.code.forEach((c, i) => {
      if (!new RegExp(c.find).test(whole)) return;
      this.used.add(`code ${i}`);
      whole = whole.replace(new RegExp(c.find, "g"), c.replace);
    });
    const lines = whole.split("\n");
    const starts = commentStarts(lines);
    const out: string[] = [];
    lines.forEach((orig, i) => {
      const before = lines.slice(Math.max(0, i - CONTEXT_LINES), i).reverse();
      const cited = this.citations(orig, out[i - 1] ?? "");
      const cs = starts[i] === 0 ? 0 : commentStart(cited);
      const where = `${file}:${i + 1}`;
      const code = cs === -1 ? cited : cited.slice(0, cs);
      const comment = cs === -1 ? "" : cited.slice(cs);
      out.push(this.code(code, orig, before, where) + this.comment(comment, orig, where));
    });
    return out.join("\n");
  }

  markdown(text: string): string {
    const out: string[] = [];
    for (const line of text.split("\n")) out.push(this.citations(line, out[out.length - 1] ?? ""));
    return out.join("\n");
  }

  fixture(file: string, text: string): string {
    const lines = text.split("\n");
    const header = lines[0] ?? "";
    const fromSteps = new Map<string, string[]>();
    const out = lines.map((line, i) => {
      if (i === 0) return line;
      const before = [...lines.slice(Math.max(1, i - CONTEXT_LINES), i).reverse(), header];
      return line.replace(/"rule":"((?:[^"\\]|\\.)*)"/g, (m, old: string) => {
        const id = this.resolve(old, line, before, `${file}:${i + 1}`, false);
        if (id === old) return m;
        const list = fromSteps.get(old) ?? [];
        if (!list.includes(id)) list.push(id);
        fromSteps.set(old, list);
        return `"rule":${JSON.stringify(id)}`;
      });
    });
    let parsed: { rules?: unknown; fixture?: unknown; spec?: unknown };
    try {
      parsed = JSON.parse(header) as { rules?: unknown; fixture?: unknown; spec?: unknown };
    } catch {
      this.unresolved.push(`${file}:1: header is not JSON`);
      return text;
    }
    const rules = Array.isArray(parsed.rules) ? parsed.rules.filter((r): r is string => typeof r === "string") : [];
    // A header id no step names is read from the fixture's name and old spec text (its config
    // says little about which rule it checks).
    const about = `${String(parsed.fixture)} ${String(parsed.spec)}`;
    const renamed: string[] = [];
    for (const old of rules) {
      const ids = fromSteps.get(old) ?? [this.resolve(old, about, [], `${file}:1`, false)];
      for (const id of ids) if (!renamed.includes(id)) renamed.push(id);
    }
    const links: string[] = [];
    for (const id of renamed) {
      const entry = this.rules.get(id);
      if (entry === undefined) this.unresolved.push(`${file}:1: ${id} has no RULES.md entry`);
      else if (!links.includes(entry.link)) links.push(entry.link);
    }
    let head = header.replace(/"rules":\[[^\]]*\]/, `"rules":${JSON.stringify(renamed)}`);
    head = /"spec":"(?:[^"\\]|\\.)*"/.test(head)
      ? head.replace(/"spec":"(?:[^"\\]|\\.)*"/, `"spec":${JSON.stringify(links.join(" "))}`)
      : head;
    out[0] = head;
    return out.join("\n");
  }
}

/** The tree with every rule id and citation rewritten; the input is left as it was. */
export function renameTree(
  tree: ReadonlyMap<string, string>,
  map: RenameMap,
  rules: ReadonlyMap<string, RuleEntry>,
): { tree: Map<string, string>; report: RenameReport } {
  const renamer = new Renamer(map, rules);
  const next = new Map<string, string>();
  const changed: string[] = [];
  for (const [file, text] of tree) {
    const out = file.endsWith(".ts")
      ? renamer.ts(file, text)
      : file.endsWith(".jsonl")
        ? renamer.fixture(file, text)
        : renamer.markdown(text);
    next.set(file, out);
    if (out !== text) changed.push(file);
  }
  const unused = [
    ...map.citations.map((c, i) =>
      renamer.used.has(`citation ${i}`) ? undefined : `citation ${JSON.stringify(c.find)} (${c.where ?? ""})`,
    ),
    ...map.code.map((c, i) => (renamer.used.has(`code ${i}`) ? undefined : `code ${JSON.stringify(c.find)} (${c.where ?? ""})`)),
  ].filter((u): u is string => u !== undefined);
  return { tree: next, report: { changed, unresolved: renamer.unresolved, unused } };
}

function main(): void {
  const root = process.argv[2] ?? process.cwd();
  const rules = parseRules(readFileSync(join(root, "RULES.md"), "utf8"));
  const { tree, report } = renameTree(readTree(root), loadRenames(root), rules);
  // On a tree already renamed every rewrite matches nowhere; the notes matter only on a first run.
  if (report.changed.length > 0) for (const u of report.unused) process.stdout.write(`note: matched nowhere: ${u}\n`);
  if (report.unresolved.length > 0) {
    for (const u of report.unresolved) process.stderr.write(`unresolved: ${u}\n`);
    process.stderr.write(`${report.unresolved.length} uses unresolved; nothing written. Extend spec-tests/rule-renames.json.\n`);
    process.exitCode = 1;
    return;
  }
  for (const file of report.changed) writeFileSync(join(root, file), tree.get(file) ?? "");
  process.stdout.write(`${report.changed.length} files rewritten\n`);
  // With the citations gone, the check that none comes back stops being a todo.
  const testFile = join(root, "spec-tests/rules.test.ts");
  const testText = readFileSync(testFile, "utf8");
  if (testText.includes(TODO_MARKER)) {
    writeFileSync(testFile, testText.replace(TODO_MARKER, "{}"));
    process.stdout.write("spec-tests/rules.test.ts: the outside-citation test is no longer a todo\n");
  }
}

if (process.argv[1] !== undefined && /apply-rule-renames\.js$/.test(process.argv[1])) main();
