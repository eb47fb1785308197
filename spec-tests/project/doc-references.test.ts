// The documents name only what exists. For README.md, RULES.md, every docs/*.md and every
// fixtures/**/*.md this fails on:
// - a repository path (`lib/…`, `spec-tests/…`, `bench/…`, `fixtures/…`, `docs/…`, `dist/…`
//   standing for its source) or a relative Markdown link that leads to no file or folder, and a
//   section cited after a document (`[guide.md](guide.md), "Errors"`) that the document lacks;
// - an export attributed to an entry point that the entry point does not export: an import in
//   a code block or a code span (`import { X } from "mcp-engine/peer"`, `import("mcp-engine").X`),
//   prose that says `` `X` from `mcp-engine/peer` ``, and the names a table row gives beside an
//   entry point (`| `mcp-engine/auth` | … `AuthFlow` … |`). What an entry exports is read from
//   the sources its package.json "exports" target was built from, following re-exports, and is
//   checked against the compiled entry's runtime exports;
// - a flag of `mcp-engine` that the command does not accept: after an invocation
//   (`mcp-engine serve …`, `dist/lib/cli/main.js client …`), asked of the command's own parsers
//   (lib/cli/args.ts, lib/cli/conform/index.ts), and a flag standing alone in a code span, which
//   must be the command's or one of OTHER_FLAGS (each checked against its own source);
// and on a README "Layout" tree that does not list exactly the folders of lib/.

import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "../../lib/cli/args.js";
import { parseConformArgs } from "../../lib/cli/conform/index.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const posix = (path: string): string => path.split("\\").join("/");

/** `a/./b/../c` → `a/c` (posix); a path that climbs out of the root keeps its leading `..`. */
function normalize(path: string): string {
  const out: string[] = [];
  for (const part of posix(path).split("/")) {
    if (part === "" || part === ".") continue;
    if (part === ".." && out.length > 0 && out[out.length - 1] !== "..") out.pop();
    else out.push(part);
  }
  return out.join("/");
}

// ── what exists ─────────────────────────────────────────────────────────────────────────

/** The files under `dir` (relative to the root, posix), folders too when `withDirs`. */
function walk(dir: string, withDirs = false): string[] {
  const out: string[] = [];
  const visit = (rel: string): void => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      if (name === "node_modules" || name.startsWith(".")) continue;
      const child = rel === "" ? name : `${rel}/${name}`;
      if (statSync(join(root, child)).isDirectory()) {
        if (withDirs) out.push(`${child}/`);
        visit(child);
      } else out.push(child);
    }
  };
  visit(dir);
  return out;
}

/** The documents this test reads. */
function documents(): string[] {
  const docs = existsSync(join(root, "docs")) ? walk("docs").filter((f) => f.endsWith(".md")) : [];
  return ["README.md", "RULES.md", ...docs, ...walk("fixtures").filter((f) => f.endsWith(".md"))];
}

/** A `dist/` path stands for the source it is built from: dist/lib/x.js (the tests' build) and dist/package/x.js (the package's) for lib/x.ts. */
function sourceOf(path: string): string {
  if (!path.startsWith("dist/")) return path;
  return path
    .replace(/^dist\/package\/vendor\/mcp-engine-core\./, "dist/package/index.") // the vendored core: lib/index.ts bundled
    .replace(/^dist\/package\//, "dist/lib/")
    .slice("dist/".length)
    .replace(/\.d\.ts$/, ".ts")
    .replace(/\.js(\.map)?$/, ".ts");
}

function globRegExp(pattern: string): RegExp {
  const body = pattern
    .split("**")
    .map((part) =>
      part
        .split("*")
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
        .join("[^/]*"),
    )
    .join(".*");
  return new RegExp(`^${body}$`);
}

/** Whether a repository path (a file, a folder, a glob; `<placeholders>` stand for any name) names something that exists. */
export function pathExists(path: string, files?: readonly string[]): boolean {
  const source = sourceOf(path);
  const cut = source.search(/[<[]/); // `fixtures/<role>/<topic>/`: the part before the first placeholder
  const plain = cut >= 0 ? source.slice(0, source.lastIndexOf("/", cut) + 1) : source;
  if (plain.includes("*")) {
    const re = globRegExp(plain.replace(/\/$/, ""));
    return (files ?? walk("", true)).some((f) => re.test(f.replace(/\/$/, "")));
  }
  if (plain === "") return true;
  return existsSync(join(root, plain));
}

// ── findings ────────────────────────────────────────────────────────────────────────────

const PATH = /(?<![\w./@-])((?:lib|spec-tests|bench|fixtures|docs|dist)\/[\w./*<>\-[\]]*)/g;

/** Repository paths a text names that do not exist. */
export function badPaths(text: string, exists: (path: string) => boolean = (p) => pathExists(p)): string[] {
  const out: string[] = [];
  for (const [i, line] of text.split("\n").entries())
    for (const m of line.matchAll(PATH)) {
      const path = (m[1] as string).replace(/[.,:;)\]]+$/, "");
      if (!exists(path)) out.push(`${i + 1}: ${path}`);
    }
  return out;
}

/** Relative Markdown links of a document (at `file`) that lead nowhere. */
export function badLinks(text: string, file: string): string[] {
  const out: string[] = [];
  for (const [i, line] of text.split("\n").entries())
    for (const m of line.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
      const target = m[1] as string;
      if (/^[a-z]+:/i.test(target)) continue;
      const resolved = normalize(join(dirname(file), target));
      if (resolved.startsWith("..") || !existsSync(join(root, resolved))) out.push(`${i + 1}: ${target}`);
    }
  return out;
}

/** The headings of a Markdown text, without their #s. */
function headings(text: string): string[] {
  return text
    .split("\n")
    .filter((l) => /^#{1,6} /.test(l))
    .map((l) => l.replace(/^#+ /, "").replace(/`/g, ""));
}

/**
 * Sections cited after a document (`[x.md](x.md), "Section"`, `` `fixtures/FORMAT.md`, "Section" ``,
 * `FORMAT.md, "Section"`) that the document has no heading for. A name is looked up beside the
 * citing document, then from the root, then under fixtures/.
 */
export function badSections(text: string, file: string, read: (path: string) => string | undefined = readDoc): string[] {
  const out: string[] = [];
  const cite = /(?:\]\(([^)\s#]+\.md)\)|`?((?:[\w.-]+\/)*[\w.-]+\.md)`?),\s*"([^"]+)"/g;
  for (const m of text.matchAll(cite)) {
    const name = (m[1] ?? m[2]) as string;
    const section = (m[3] as string).replace(/\s+/g, " ").replace(/`/g, "");
    const candidates = [normalize(join(dirname(file), name)), normalize(name), normalize(join("fixtures", name))];
    const doc = candidates.map(read).find((d) => d !== undefined);
    if (doc === undefined) continue; // badLinks or badPaths reports it
    if (!headings(doc).some((h) => h === section || h.startsWith(`${section} (`) || h.startsWith(`${section}:`)))
      out.push(`${text.slice(0, m.index).split("\n").length}: ${name}, "${section}"`);
  }
  return out;
}

function readDoc(path: string): string | undefined {
  try {
    return readFileSync(join(root, path), "utf8");
  } catch {
    return undefined;
  }
}

// ── exports ─────────────────────────────────────────────────────────────────────────────

interface PackageJson {
  readonly exports: Record<string, { readonly types: string; readonly default: string }>;
}

const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as PackageJson;

/** Specifier → the source file its declarations are built from, and its compiled file. */
function entryPoints(): Map<string, { source: string; built: string }> {
  const map = new Map<string, { source: string; built: string }>();
  for (const [key, target] of Object.entries(pkg.exports)) {
    const specifier = key === "." ? "mcp-engine" : `mcp-engine/${key.slice(2)}`;
    map.set(specifier, { source: sourceOf(target.types.replace(/^\.\//, "")), built: target.default.replace(/^\.\//, "") });
  }
  return map;
}

/** The names a source module exports (types included), following `export … from` and `export * from`. */
export function exportedNames(file: string, read: (path: string) => string = (p) => readFileSync(join(root, p), "utf8")): Set<string> {
  const seen = new Set<string>();
  const names = new Set<string>();
  const resolve = (from: string, spec: string): string => {
    const base = normalize(join(dirname(from), spec));
    for (const candidate of [base.replace(/\.js$/, ".ts"), base.replace(/\.js$/, ".d.ts"), `${base}/index.ts`])
      if (existsSync(join(root, candidate))) return candidate;
    return base.replace(/\.js$/, ".ts");
  };
  const visit = (path: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    const text = read(path)
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/^\s*\/\/.*$/gm, "");
    for (const m of text.matchAll(/\bexport\s+(?:type\s+)?\{([^}]*)\}/g))
      for (const part of (m[1] as string).split(",")) {
        const name = part
          .trim()
          .replace(/^type\s+/, "")
          .split(/\s+as\s+/)
          .pop()
          ?.trim();
        if (name) names.add(name);
      }
    for (const m of text.matchAll(/\bexport\s+(?:type\s+)?\*\s+from\s*["']([^"']+)["']/g)) visit(resolve(path, m[1] as string));
    for (const m of text.matchAll(/\bexport\s+\*\s+as\s+(\w+)/g)) names.add(m[1] as string);
    for (const m of text.matchAll(
      /\bexport\s+(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:const|let|var|function\*?|class|interface|type|enum|namespace)\s+(\w+)/g,
    ))
      names.add(m[1] as string);
    if (/\bexport\s+default\b/.test(text)) names.add("default");
  };
  visit(file);
  return names;
}

/** A code span of prose (outside fenced blocks), which may run over a line break, and the line it starts on. */
interface Span {
  readonly line: number;
  readonly code: string;
}

/** The text with every fenced block's lines emptied (line numbers kept): what prose is. */
function prose(text: string): string {
  let inFence = false;
  return text
    .split("\n")
    .map((line) => {
      if (/^\s*```/.test(line)) {
        inFence = !inFence;
        return "";
      }
      return inFence ? "" : line;
    })
    .join("\n");
}

const lineAt = (text: string, index: number): number => text.slice(0, index).split("\n").length;

/** The code spans of a text's prose, a span over a line break read with a space for it. */
export function spans(text: string): Span[] {
  const p = prose(text);
  return [...p.matchAll(/`([^`]+)`/g)].map((m) => ({ line: lineAt(p, m.index), code: (m[1] as string).replace(/\s*\n\s*/g, " ") }));
}

/** An export attributed to an entry point: `name` from `specifier`, at `line`. */
interface Attribution {
  readonly line: number;
  readonly name: string;
  readonly specifier: string;
}

const IDENT = /^[A-Za-z_$][\w$]*/;

/** Every export a document attributes to an entry point of this package. */
export function attributions(text: string): Attribution[] {
  const out: Attribution[] = [];
  for (const [i, line] of text.split("\n").entries()) {
    const at = i + 1;
    // import { a, type B, c as d } from "mcp-engine/x"   (imports over several lines: see below)
    for (const m of line.matchAll(/\bimport\s+(?:type\s+)?\{([^}]*)\}\s*from\s*["'](mcp-engine(?:\/[\w/-]+)?)["']/g))
      for (const part of (m[1] as string).split(",")) {
        const name = part
          .trim()
          .replace(/^type\s+/, "")
          .split(/\s+as\s+/)[0]
          ?.trim();
        if (name) out.push({ line: at, name, specifier: m[2] as string });
      }
    // import("mcp-engine/x").Name
    for (const m of line.matchAll(/\bimport\(\s*["'](mcp-engine(?:\/[\w/-]+)?)["']\s*\)\.(\w+)/g))
      out.push({ line: at, name: m[2] as string, specifier: m[1] as string });
    // | `mcp-engine/x` | … `Name` … `fn(args)` … |: the code spans outside parentheses (a remark in
    // parentheses may name another entry's export or a runtime global).
    const row = /^\|\s*`(mcp-engine(?:\/[\w/-]+)?)`\s*\|(.*)\|\s*$/.exec(line);
    if (row !== null) {
      let depth = 0;
      for (const [k, part] of (row[2] as string).split("`").entries()) {
        if (k % 2 === 0) {
          for (const ch of part) depth += ch === "(" ? 1 : ch === ")" && depth > 0 ? -1 : 0;
          continue;
        }
        const name = IDENT.exec(part)?.[0];
        // A bare name, a call, or a member of one (`StdioClient.spawn(...)`); not prose or objects.
        if (depth === 0 && name !== undefined && /^[A-Za-z_$][\w$]*(?:\(|\.|$)/.test(part) && !part.startsWith("mcp-engine"))
          out.push({ line: at, name, specifier: row[1] as string });
      }
    }
  }
  // `name(...)` from `mcp-engine/x`, `Name` (from `mcp-engine/x`), `Name` in `mcp-engine/x`, in prose
  // (over a line break too).
  const p = prose(text);
  for (const m of p.matchAll(/`([^`]+)`\s*\(?\s*(?:from|in)\s+`(mcp-engine(?:\/[\w/-]+)?)`/g)) {
    const name = IDENT.exec(m[1] as string)?.[0];
    if (name !== undefined && name !== "mcp" && !/\s/.test((m[1] as string).split("(")[0] ?? ""))
      out.push({ line: lineAt(p, m.index), name, specifier: m[2] as string });
  }
  // Imports written over several lines.
  for (const m of text.matchAll(/\bimport\s+(?:type\s+)?\{([^}]*\n[^}]*)\}\s*from\s*["'](mcp-engine(?:\/[\w/-]+)?)["']/g)) {
    const line = text.slice(0, m.index).split("\n").length;
    for (const part of (m[1] as string).split(",")) {
      const name = part
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)[0]
        ?.trim();
      if (name) out.push({ line, name, specifier: m[2] as string });
    }
  }
  return out;
}

/** Attributions that name an entry point the package lacks, or a name its entry point does not export. */
export function badExports(text: string, exportsOf: (specifier: string) => ReadonlySet<string> | undefined): string[] {
  const out: string[] = [];
  for (const a of attributions(text)) {
    const names = exportsOf(a.specifier);
    if (names === undefined) out.push(`${a.line}: no entry point ${a.specifier}`);
    else if (!names.has(a.name)) out.push(`${a.line}: ${a.specifier} does not export ${a.name}`);
  }
  return out.sort((x, y) => parseInt(x, 10) - parseInt(y, 10));
}

const exportCache = new Map<string, Set<string>>();
function packageExports(specifier: string): Set<string> | undefined {
  const entry = entryPoints().get(specifier);
  if (entry === undefined) return undefined;
  let names = exportCache.get(specifier);
  if (names === undefined) exportCache.set(specifier, (names = exportedNames(entry.source)));
  return names;
}

// ── flags ───────────────────────────────────────────────────────────────────────────────

/**
 * Flags of other commands that the documents show in a code span of their own, and the source
 * that accepts each (checked to hold it); `undefined`: a tool outside this repository.
 */
const OTHER_FLAGS: Readonly<Record<string, string | undefined>> = {
  "--write": "spec-tests/tools/corpus-annotate.ts", // node dist/spec-tests/tools/corpus-annotate.js --write
  "--seed": "spec-tests/fuzz/main.ts", // npm run fuzz -- …
  "--episodes": "spec-tests/fuzz/main.ts",
  "--verbose": "spec-tests/fuzz/main.ts",
  "--steps": "spec-tests/fuzz/main.ts",
  "--flood": "spec-tests/fuzz/main.ts",
  "--target": "spec-tests/fuzz/main.ts",
  "--calls": "spec-tests/fuzz/main.ts",
  "--ignore": "spec-tests/fuzz/main.ts",
  "--coverage": "spec-tests/fuzz/main.ts",
  "--suite": undefined, // the official conformance suite (@modelcontextprotocol/conformance)
  "--requirements": undefined,
  "--long": "spec-tests/run.ts", // node dist/spec-tests/run.js --long (npm run test:long)
  "--all": "spec-tests/run.ts",
};

const SUBCOMMANDS = new Set(["serve", "client", "conform", "demo"]);

/** Whether `mcp-engine <sub>` accepts `flag` (as its parsers say: anything but "unknown option"). */
export function accepts(sub: string, flag: string): boolean {
  if (flag === "--help" || flag === "-h") return true;
  if (sub === "conform") {
    const parsed = parseConformArgs([flag, "x"]);
    return parsed.ok || !parsed.problem.startsWith("unknown option");
  }
  const parsed = parseArgs([sub, flag, "x"]);
  return parsed.ok || !parsed.problem.startsWith("unknown option");
}

const INVOCATION =
  /(?:^|[\s`(])(?:npx\s+)?(?:mcp-engine|(?:\S*\/)?dist\/lib\/cli\/main\.js)\s+(--help|--version|-h|-V|serve|client|conform|demo)\b([^`]*)/;

/** Flags given to `mcp-engine` that it does not accept, and lone flag spans that are no one's. */
export function badFlags(text: string): string[] {
  const out: string[] = [];
  const check = (line: number, sub: string, rest: string): void => {
    // Everything after a lone `--` is the server command's.
    const own = rest.split(/\s--(?:\s|$)/)[0] ?? "";
    for (const f of own.matchAll(/(?<![\w-])(--[a-z][a-z-]*)/g))
      if (!accepts(sub, f[1] as string)) out.push(`${line}: mcp-engine ${sub} does not accept ${f[1]}`);
  };
  // Code blocks: every line; a usage block's continuation and option lines belong to its last subcommand.
  let inFence = false;
  let blockSub: string | undefined;
  for (const [i, line] of text.split("\n").entries()) {
    if (/^\s*```/.test(line)) {
      inFence = !inFence;
      blockSub = undefined;
      continue;
    }
    if (!inFence) continue;
    const m = INVOCATION.exec(line);
    if (m !== null) {
      blockSub = SUBCOMMANDS.has(m[1] as string) ? (m[1] as string) : undefined;
      if (blockSub !== undefined) check(i + 1, blockSub, m[2] as string);
    } else if (blockSub !== undefined && /^(?:\s+|\s*options:)/.test(line)) check(i + 1, blockSub, line);
  }
  // Prose: code spans that invoke the command, and flags standing alone in a span.
  const union = new Set<string>();
  for (const span of spans(text)) {
    const m = INVOCATION.exec(span.code);
    if (m !== null) {
      if (SUBCOMMANDS.has(m[1] as string)) check(span.line, m[1] as string, m[2] as string);
      continue;
    }
    const lone = /^(--[a-z][a-z-]*)(?:[ =].*)?$/.exec(span.code);
    if (lone === null) continue;
    const flag = lone[1] as string;
    if (union.size === 0) for (const sub of SUBCOMMANDS) for (const f of flagsIn(sub)) union.add(f);
    if (!union.has(flag) && !Object.hasOwn(OTHER_FLAGS, flag)) out.push(`${span.line}: ${flag} is no flag of mcp-engine`);
  }
  return out.sort((x, y) => parseInt(x, 10) - parseInt(y, 10));
}

/** The flags a subcommand accepts, from the usage texts' candidates (for the lone-span check). */
function flagsIn(sub: string): string[] {
  const candidates = new Set<string>();
  for (const file of ["lib/cli/args.ts", "lib/cli/conform/index.ts"])
    for (const m of readFileSync(join(root, file), "utf8").matchAll(/(--[a-z][a-z-]*)/g)) candidates.add(m[1] as string);
  return [...candidates].filter((f) => accepts(sub, f));
}

// ── the tests ───────────────────────────────────────────────────────────────────────────

test("the check catches a missing path, link and section, a wrong export and an unknown flag (synthetic text)", () => {
  const text = [
    "See `lib/engine/engine.ts`, `lib/engine/no-such-file.ts`, `bench/*.bench.ts` and `fixtures/<role>/<topic>/`.",
    "Built as `dist/lib/cli/main.js`; not `dist/lib/cli/gone.js`; [the guide](docs/nowhere.md).",
    '[the format](fixtures/FORMAT.md), "Matching" and [again](fixtures/FORMAT.md), "No such section".',
    '```ts\nimport { Engine, NoSuchThing } from "mcp-engine";\nimport { type Server } from "mcp-engine/nowhere";\n```',
    "`Paginator` from `mcp-engine`, `linkInMemory(server)` from `mcp-engine/peer`.",
    "| `mcp-engine/auth` | `AuthFlow` (with `fetch`), `noSuchVerifier(x)`, `{ fetch }` |",
    "```sh\nmcp-engine serve --http 127.0.0.1:1 --no-such-flag\nmcp-engine conform --only x --bogus 1 -- node s.js --bogus\n```",
    "Unless `--call-destructive`, or `--made-up`; `--suite all` is the official suite's.",
    "A span over a line break: `mcp-engine client",
    "--no-such-option -- cmd` and `NoSuchName` from",
    "`mcp-engine/peer`.",
  ].join("\n");
  assert.deepEqual(badPaths(text), ["1: lib/engine/no-such-file.ts", "2: dist/lib/cli/gone.js", "2: docs/nowhere.md"]);
  assert.deepEqual(badLinks(text, "README.md"), ["2: docs/nowhere.md"]);
  assert.deepEqual(badSections(text, "README.md"), ['3: fixtures/FORMAT.md, "No such section"']);
  assert.deepEqual(badExports(text, packageExports), [
    "5: mcp-engine does not export NoSuchThing",
    "6: no entry point mcp-engine/nowhere",
    "8: mcp-engine does not export Paginator",
    "9: mcp-engine/auth does not export noSuchVerifier",
    "16: mcp-engine/peer does not export NoSuchName",
  ]);
  assert.deepEqual(badFlags(text), [
    "11: mcp-engine serve does not accept --no-such-flag",
    "12: mcp-engine conform does not accept --bogus",
    "14: --made-up is no flag of mcp-engine",
    "15: mcp-engine client does not accept --no-such-option",
  ]);
});

test("what the check reads of an entry point is what its compiled module exports, and more (types)", async () => {
  for (const [specifier, entry] of entryPoints()) {
    const runtime = Object.keys((await import(pathToFileURL(join(root, entry.built)).href)) as object);
    const read = packageExports(specifier) ?? new Set<string>();
    assert.deepEqual(
      runtime.filter((name) => !read.has(name)),
      [],
      `${specifier}: runtime exports the source reading missed`,
    );
    assert.ok(read.size >= runtime.length, specifier);
  }
});

test("every path and relative link the documents name exists, and every section they cite after a link", () => {
  const files = walk("", true);
  const problems: string[] = [];
  for (const doc of documents()) {
    const text = readFileSync(join(root, doc), "utf8");
    for (const p of badPaths(text, (path) => pathExists(path, files))) problems.push(`${doc}:${p}`);
    for (const p of badLinks(text, doc)) problems.push(`${doc}:${p} (link)`);
    for (const p of badSections(text, doc)) problems.push(`${doc}:${p} (section)`);
  }
  assert.deepEqual(problems, []);
});

test("every export the documents attribute to an entry point of the package is exported by it", () => {
  const problems: string[] = [];
  let seen = 0;
  for (const doc of documents()) {
    const text = readFileSync(join(root, doc), "utf8");
    seen += attributions(text).length;
    for (const p of badExports(text, packageExports)) problems.push(`${doc}:${p}`);
  }
  assert.ok(seen > 50, `only ${seen} attributions found: the reading of imports is broken`);
  assert.deepEqual(problems, []);
});

test("every flag the documents give mcp-engine is one it accepts", () => {
  const problems: string[] = [];
  for (const doc of documents()) for (const p of badFlags(readFileSync(join(root, doc), "utf8"))) problems.push(`${doc}:${p}`);
  assert.deepEqual(problems, []);
  for (const [flag, source] of Object.entries(OTHER_FLAGS))
    if (source !== undefined) {
      // Read as a literal ("--write") or through the fuzzer's arg("seed") helper.
      const text = readFileSync(join(root, source), "utf8");
      assert.ok(text.includes(`"${flag}"`) || text.includes(`arg("${flag.slice(2)}"`), `${source} does not take ${flag}`);
    }
});

test("the README's Layout lists exactly the folders of lib/, nested as they are", () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const start = readme.indexOf("## Layout");
  assert.ok(start >= 0, 'README.md has a section "Layout"');
  const fence = readme.indexOf("```\nlib/\n", start);
  assert.ok(fence >= 0, "the Layout section opens with a tree of lib/ in a code block");
  const body = readme.slice(fence + 4, readme.indexOf("\n```", fence + 4)).split("\n");
  const listed: string[] = [];
  const stack: string[] = [];
  for (const line of body) {
    const m = /^( *)([\w.-]+)\/(?:\s|$)/.exec(line);
    if (m === null) continue;
    const depth = (m[1] as string).length / 2; // lib/ at 0, its folders at 1, theirs at 2
    stack.length = depth;
    stack[depth] = m[2] as string;
    listed.push(`${stack.join("/")}/`);
  }
  const actual = walk("lib", true).filter((f) => f.endsWith("/"));
  assert.deepEqual(listed.slice(1).sort(), actual.sort());
});
