// What the published package needs of dist/package/: the declaration files an entry of
// "exports" reaches through its types, and the JavaScript an entry or the bin loads. `npm run
// build` runs this after tsc and the vendored core (spec-tests/tools/vendor.ts) and deletes the
// rest: the declarations of internal modules no public type names (the engine's parts, the JSON
// Schema compiler, ...) and the empty JavaScript of type-only modules. A consumer could reach
// neither ("exports" lists every entry), so they were bytes in every install and nothing else.
// spec-tests/project/package-size.test.ts checks the tarball holds nothing outside the closure.
//
//   node dist/spec-tests/tools/package-closure.js [--prune]     (prints, or deletes, what is outside)
//
// Lives beside vendor.ts in spec-tests/tools: a build step of the repository, compiled by the
// tests' tsc pass, never part of lib/ or of the package.

import { readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const PACKAGE = join(ROOT, "dist/package");

interface Manifest {
  readonly exports: { readonly [entry: string]: { readonly types: string; readonly default: string } };
  readonly bin: { readonly [name: string]: string };
}

/** The relative modules `file` names: imports, re-exports, import() types and references. */
function named(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s*)["'](\.{1,2}\/[^"']+)["']/g))
    out.push(resolve(dirname(file), m[1] as string));
  for (const m of text.matchAll(/\/\/\/\s*<reference\s+path="([^"]+)"/g)) out.push(resolve(dirname(file), m[1] as string));
  return out;
}

/** The files reachable from `entries`; a declaration file's `./x.js` names `./x.d.ts`. */
function closure(entries: readonly string[], declarations: boolean): Set<string> {
  const seen = new Set<string>();
  const pending = [...entries];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const next of named(file, readFileSync(file, "utf8"))) pending.push(declarations ? next.replace(/\.js$/, ".d.ts") : next);
  }
  return seen;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The files of dist/package/ (its CLI declarations aside, which package.json's files leaves out) that nothing reaches, as paths from the root. */
export function outsideClosure(): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Manifest;
  const entries = Object.values(manifest.exports);
  const types = closure(
    entries.map((e) => join(ROOT, e.types)),
    true,
  );
  const code = closure([...entries.map((e) => join(ROOT, e.default)), ...Object.values(manifest.bin).map((b) => join(ROOT, b))], false);
  const cli = join(PACKAGE, "cli");
  return filesUnder(PACKAGE)
    .filter((file) => (file.endsWith(".d.ts") ? !file.startsWith(cli) && !types.has(file) : file.endsWith(".js") && !code.has(file)))
    .map((file) => relative(ROOT, file).replace(/\\/g, "/"))
    .sort();
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const outside = outsideClosure();
  if (process.argv.includes("--prune")) for (const path of outside) rmSync(join(ROOT, path));
  console.log(
    `${process.argv.includes("--prune") ? "removed" : "outside the closure:"} ${outside.length} files of dist/package/ no entry reaches`,
  );
}
