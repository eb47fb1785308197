// Helpers of the package tests (spec-tests/project/package-*.test.ts, guide-sdk-v1.test.ts): pack
// the built project the way `npm publish` would, unpack it into a throwaway consumer project, and
// type-check code there with the project's own TypeScript. Not a test file itself.
//
// Invariants:
// - offline: `npm pack` reads only the work tree (scripts ignored, so a prepack build never
//   runs inside a test), and @types/node is linked from this project's node_modules, never
//   fetched;
// - the consumer sees only what the tarball holds: no path leads back to lib/ or dist/;
// - every temp folder is removed by cleanup(), which the tests call in `after`.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The project root (this file runs from dist/spec-tests/support/). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

export interface Packed {
  /** The consumer project: package.json, node_modules/mcp-engine unpacked from the tarball. */
  readonly consumer: string;
  /** Where the package was unpacked (consumer/node_modules/mcp-engine). */
  readonly packageDir: string;
  /** The paths `npm pack` put in the tarball, relative to the package root. */
  readonly files: readonly string[];
  /** The package's own package.json, as packed. */
  readonly manifest: PackageManifest;
  cleanup(): void;
}

export interface PackageManifest {
  readonly name: string;
  readonly exports: { readonly [entry: string]: { readonly types: string; readonly default: string } };
  readonly bin?: { readonly [name: string]: string };
}

export interface Run {
  readonly status: number | null;
  readonly output: string;
}

/** Runs a command to its end (60 s at most), its stdout and stderr as one text. */
export function run(command: string, args: readonly string[], cwd: string): Run {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", timeout: 60_000 });
  if (result.error !== undefined) throw result.error;
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** npm itself: the npm running this test (npm test sets npm_execpath), else the one on PATH. */
export function npm(args: readonly string[], cwd: string): Run {
  const cli = process.env.npm_execpath;
  return cli !== undefined && cli.endsWith(".js") ? run(process.execPath, [cli, ...args], cwd) : run("npm", args, cwd);
}

/** The package's build (dist/package/, tsconfig.package.json), which `npm run build` makes and `tsc -p tsconfig.json` alone does not. */
export function assertPackageBuilt(): void {
  assert.ok(
    existsSync(join(ROOT, "dist", "package", "index.js")) && existsSync(join(ROOT, "dist", "package", "index.d.ts")),
    "dist/package/ is not built: `npm run build` builds it (tsconfig.package.json), after the tests' build",
  );
}

/** Packs ROOT (which must be built) and unpacks the tarball into a fresh consumer project. */
export function packIntoConsumer(): Packed {
  assertPackageBuilt();
  const base = mkdtempSync(join(tmpdir(), "mcp-engine-pack-"));
  const packed = npm(["pack", "--json", "--ignore-scripts", "--offline", "--pack-destination", base], ROOT);
  assert.equal(packed.status, 0, `npm pack failed:\n${packed.output}`);
  const report = JSON.parse(packed.output.slice(packed.output.indexOf("["), packed.output.lastIndexOf("]") + 1)) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  const entry = report[0];
  assert.ok(entry !== undefined, `npm pack printed no report:\n${packed.output}`);
  const consumer = join(base, "consumer");
  const packageDir = join(consumer, "node_modules", "mcp-engine");
  mkdirSync(packageDir, { recursive: true });
  const untar = run("tar", ["-xzf", join(base, entry.filename), "-C", packageDir, "--strip-components=1"], base);
  assert.equal(untar.status, 0, `tar failed:\n${untar.output}`);
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as PackageManifest;
  return {
    consumer,
    packageDir,
    files: entry.files.map((f) => f.path),
    manifest,
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** Links @types/node and the packages it depends on from this project into `consumer`. */
export function linkTypesNode(consumer: string): void {
  linkPackages(consumer, ["@types/node"]);
}

/** Links installed packages (dev dependencies of this project) and their dependencies into `consumer`. */
export function linkPackages(consumer: string, names: readonly string[]): void {
  const link = (name: string): void => {
    const source = join(ROOT, "node_modules", name);
    assert.ok(existsSync(source), `${name} is not installed in ${ROOT} (npm ci installs it: it is a dev dependency)`);
    const target = join(consumer, "node_modules", name);
    if (existsSync(target)) return;
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(source, target, "dir");
    const manifest = JSON.parse(readFileSync(join(source, "package.json"), "utf8")) as { dependencies?: { [dep: string]: string } };
    for (const dep of Object.keys(manifest.dependencies ?? {})) link(dep);
  };
  for (const name of names) link(name);
}

/** The compiler options every consumer check uses on top of its own: strict, and library files checked too. */
export const STRICT_CONSUMER = {
  strict: true,
  skipLibCheck: false,
  noEmit: true,
  target: "es2022",
  module: "nodenext",
  moduleResolution: "nodenext",
} as const;

/** Writes `sources` and a tsconfig with `options` into `dir`, runs the project's tsc on them. */
export function typeCheck(
  dir: string,
  name: string,
  options: { readonly [option: string]: unknown },
  sources: { readonly [file: string]: string },
): Run {
  for (const [file, text] of Object.entries(sources)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  const config = join(dir, `tsconfig.${name}.json`);
  writeFileSync(config, JSON.stringify({ compilerOptions: options, files: Object.keys(sources) }, null, 2));
  return run(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", config, "--pretty", "false"], dir);
}

/** Host objects the docs' examples use without creating them (docs/engine.md's transport and timer), declared for every block. */
export const DOCS_PRELUDE = `// Host objects the docs' examples use without creating them.
declare const transport: { write(bytes: Uint8Array): void; onData(listener: (chunk: Uint8Array) => void): void };
declare function armTimer(deadline: number | undefined): void;
`;

/** The ```ts blocks of a markdown file (README.md, docs/*.md), each with its own prelude: <!-- ts-prelude: ... --> on the line before its fence. */
export interface Block {
  readonly line: number;
  readonly code: string;
  readonly prelude: string;
}

/** The ```ts blocks of `markdown`, with the line each starts on and its own prelude, if any. */
export function tsBlocks(markdown: string, file = "README.md"): Block[] {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[i] ?? "")) continue;
    const own = /^<!--\s*ts-prelude:\s*([\s\S]*?)\s*-->\s*$/.exec(lines[i - 1] ?? "");
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end] !== "```") end++;
    assert.ok(end < lines.length, `${file}:${i + 1}: a \`\`\`ts block that never closes`);
    blocks.push({ line: start + 1, code: lines.slice(start, end).join("\n"), prelude: own?.[1] ?? "" });
    i = end;
  }
  return blocks;
}
