// The package's size and content, as `npm pack --dry-run` reports them for the build at hand
// (`npm run build` empties dist/ first, so nothing stale from an earlier layout can ship):
// packed at most 420 KB; only dist/package/ and the three root files; every shipped file built
// from sources lib/ holds now (the JavaScript: exactly the bundle of dist/lib/ that
// spec-tests/tools/package-bundle.ts makes), and reached by an entry of exports or the bin (the
// build prunes the rest: spec-tests/tools/package-closure.ts); no source maps; the CLI (reference
// server and client, conform runner) reachable from the bin only, never from an entry of "exports".

import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { ROOT, assertPackageBuilt, npm } from "../support/package-harness.js";
import { outsideClosure } from "../tools/package-closure.js";
import { packageBundle } from "../tools/package-bundle.js";

/** The budget of the packed tarball, in bytes (the SDK v1 packs to about 620 KB). */
const PACKED_BUDGET = 420_000;

interface PackReport {
  readonly size: number;
  readonly unpackedSize: number;
  readonly entryCount: number;
  readonly files: ReadonlyArray<{ readonly path: string; readonly size: number }>;
}

function packReport(): PackReport {
  assertPackageBuilt();
  const packed = npm(["pack", "--dry-run", "--json", "--ignore-scripts", "--offline"], ROOT);
  assert.equal(packed.status, 0, `npm pack --dry-run failed:\n${packed.output}`);
  const json = packed.output.slice(packed.output.indexOf("["), packed.output.lastIndexOf("]") + 1);
  const [report] = JSON.parse(json) as PackReport[];
  assert.ok(report !== undefined, `npm pack printed no report:\n${packed.output}`);
  return report;
}

const report = packReport();
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  exports: { [entry: string]: { types: string; default: string } };
  bin: { [name: string]: string };
};

test(`the packed package is at most ${PACKED_BUDGET} bytes`, (t) => {
  t.diagnostic(`packed ${report.size} bytes, unpacked ${report.unpackedSize} bytes, ${report.entryCount} files`);
  assert.ok(report.size <= PACKED_BUDGET, `packed ${report.size} bytes, over the budget of ${PACKED_BUDGET}`);
});

test("the tarball holds LICENSE, README.md, package.json and dist/package/ only: no source map, no declaration of the CLI", () => {
  const outside = report.files
    .map((f) => f.path)
    .filter((path) => !["LICENSE", "README.md", "package.json"].includes(path) && !path.startsWith("dist/package/"));
  assert.deepEqual(outside, []);
  assert.deepEqual(
    report.files
      .map((f) => f.path)
      .filter((path) => path.endsWith(".map") || (path.startsWith("dist/package/cli/") && path.endsWith(".d.ts"))),
    [],
  );
});

// The bundle, made afresh from dist/lib/ (spec-tests/tools/package-bundle.ts): which compiled modules each shipped file holds.
const bundle = packageBundle();
const bundled = new Map(bundle.map((file) => [`dist/package/${file.path}`, file]));

/** When `path` (under ROOT) was last written. */
const modified = (path: string): number => (statSync(path) as unknown as { mtimeMs: number }).mtimeMs;

test("every file in the tarball is built from sources lib/ holds now, and after their last change (nothing stale ships)", () => {
  const built = report.files.map((f) => f.path).filter((path) => path.startsWith("dist/package/"));
  // The vendored core (spec-tests/tools/vendor.ts) is lib/index.ts and what it loads, bundled;
  // any other JavaScript is the bundle of dist/lib/, checked below.
  const declarations = built.filter((path) => !path.endsWith(".js") || path.startsWith("dist/package/vendor/"));
  const source = (path: string): string =>
    path.startsWith("dist/package/vendor/")
      ? join(ROOT, "lib/index.ts")
      : join(ROOT, "lib", `${path.slice("dist/package/".length).replace(/\.d\.ts$|\.js$/, "")}.ts`);
  assert.deepEqual(
    declarations.filter((path) => !existsSync(source(path))),
    [],
    "built from a source that is gone",
  );
  // lib/hosts/node.d.ts declares only the members lib/ reads of a stat.
  assert.deepEqual(
    declarations.filter((path) => modified(join(ROOT, path)) < modified(source(path))),
    [],
    "built before its source last changed: `npm run build` rebuilds dist/package/",
  );
  // The JavaScript is exactly what bundling dist/lib/ gives now, and dist/lib/ is fresh.
  const javaScript = built.filter((path) => path.endsWith(".js") && !path.startsWith("dist/package/vendor/"));
  assert.deepEqual([...javaScript].sort(), [...bundled.keys()].sort(), "the shipped JavaScript is not the bundle of dist/lib/");
  assert.deepEqual(
    javaScript.filter((path) => readFileSync(join(ROOT, path), "utf8") !== bundled.get(path)!.text),
    [],
    "shipped JavaScript differs from the bundle of dist/lib/: `npm run build` rebundles it",
  );
  const modules = [...new Set(bundle.flatMap((file) => file.modules))];
  const moduleSource = (module: string): string => join(ROOT, "lib", module.replace(/\.js$/, ".ts"));
  assert.deepEqual(
    modules.filter((module) => !existsSync(moduleSource(module))),
    [],
    "bundled from a source that is gone",
  );
  assert.deepEqual(
    modules.filter((module) => modified(join(ROOT, "dist/lib", module)) < modified(moduleSource(module))),
    [],
    "dist/lib/ compiled before its source last changed: `npm run build` rebuilds it",
  );
});

/** The files `entry` loads, itself included (static and dynamic relative imports of the shipped JavaScript). */
function importClosure(entry: string): Set<string> {
  const seen = new Set<string>();
  const pending = [resolve(ROOT, entry)];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, "utf8");
    for (const match of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s*)"(\.{1,2}\/[^"]+)"/g))
      pending.push(resolve(dirname(file), match[1] as string));
  }
  return seen;
}

/** The compiled modules (paths under dist/lib/) in the files `entry` loads. */
function modulesLoaded(entry: string): string[] {
  return [...importClosure(entry)].flatMap((file) => bundled.get(relative(ROOT, file).replace(/\\/g, "/"))?.modules ?? []);
}

test("no entry of exports loads the CLI (reference server, client, conform runner); the bin does", () => {
  for (const [entry, target] of Object.entries(manifest.exports)) {
    if (target.default.includes("/vendor/")) continue;
    assert.deepEqual(
      modulesLoaded(target.default).filter((module) => module.startsWith("cli/")),
      [],
      `${entry} loads CLI modules`,
    );
  }
  const bin = modulesLoaded(manifest.bin["mcp-engine"] as string);
  assert.ok(bin.includes("cli/reference-server.js"), "the bin reaches the reference server (the check above would see it)");
  assert.ok(modulesLoaded(manifest.exports["."]!.default).includes("engine/engine.js"), "the main entry reaches the engine");
});

test("every file of the tarball is reached: a declaration from an entry's types, JavaScript from an entry or the bin (nothing unreachable ships)", () => {
  const shipped = new Set(report.files.map((f) => f.path));
  assert.deepEqual(
    outsideClosure().filter((path) => shipped.has(path)),
    [],
  );
  assert.ok(
    shipped.has("dist/package/vendor/mcp-engine-core.js") && shipped.has("dist/package/vendor/mcp-engine-core.d.ts"),
    "the vendored core ships",
  );
  assert.ok(
    !shipped.has("dist/package/engine/session.d.ts"),
    "an internal module's declarations do not ship (the check above would see them)",
  );
});
