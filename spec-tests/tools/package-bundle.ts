// The published package's JavaScript: esbuild's bundle of the compiled lib/ (dist/lib/), split
// into shared chunks, written into dist/package/ beside the declarations tsc emits there. Every
// entry of package.json's "exports" and the bin is an entry point, and so is every module the CLI
// imports on demand (one per subcommand and transport), each emitted at its own path; the code
// two or more of them share goes into dist/package/chunks/, once, so a class has one identity
// whichever entries load it. Why: Node loads each ES module with a resolve, a realpath, a read and
// a compile of its own, and `mcp-engine serve` reached about 90 of them before its first answer
// (bench/startup.ts); bundled it loads a few dozen larger files, and the package is smaller
// (whitespace and syntax minified; names are kept, so stack traces still read).
// Invariant checked here, or the build fails: a module that reads `import.meta` (a path relative
// to itself: the CLI finding package.json, or spawning main.js) is emitted into its own directory.
//
//   node dist/spec-tests/tools/package-bundle.js     (`npm run build` runs it before package-closure.js)
//
// Lives beside vendor.ts in spec-tests/tools: a build step of the repository, compiled by the
// tests' tsc pass, never part of lib/ or of the package.

import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const COMPILED = join(ROOT, "dist/lib");
const PACKAGE = join(ROOT, "dist/package");

/** The CLI's modules loaded by `import()` (lib/cli/main.ts, lib/cli/serve.ts): entries of their own. */
const ON_DEMAND = [
  "cli/serve.js",
  "cli/client-command.js",
  "cli/cluster.js",
  "cli/runtime.js",
  "cli/conform/index.js",
  "cli/conform/relay.js",
  "cli/conform/adapter.js",
  "hosts/http-server.js",
];

/** One file of the bundle: its path under dist/package/, its text, and the compiled modules (paths under dist/lib/) it holds. */
export interface BundledFile {
  readonly path: string;
  readonly text: string;
  readonly modules: readonly string[];
}

/** The entry points, as paths under dist/lib/: the exports' and the bin's JavaScript (the vendored core aside), and ON_DEMAND. */
function entryPoints(): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    exports: { [entry: string]: { default: string } };
    bin: { [name: string]: string };
  };
  const shipped = [...Object.values(manifest.exports).map((e) => e.default), ...Object.values(manifest.bin)]
    .filter((path) => !path.startsWith("./dist/package/vendor/"))
    .map((path) => path.replace(/^\.\/dist\/package\//, ""));
  return [...new Set([...shipped, ...ON_DEMAND])];
}

/** The package's JavaScript, bundled from dist/lib/ in memory. Throws when a module reading `import.meta` would leave its own directory. */
export function packageBundle(): BundledFile[] {
  const built = buildSync({
    absWorkingDir: ROOT,
    entryPoints: entryPoints().map((path) => join(COMPILED, path)),
    outbase: COMPILED,
    outdir: PACKAGE,
    entryNames: "[dir]/[name]",
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "es2022",
    packages: "external",
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: "none",
    metafile: true,
    write: false,
    logLevel: "silent",
  });
  const files = built.outputFiles.map((file) => {
    const path = relative(PACKAGE, file.path).replace(/\\/g, "/");
    const output = built.metafile.outputs[relative(ROOT, file.path).replace(/\\/g, "/")];
    if (output === undefined) throw new Error(`esbuild's metafile has no output ${path}`);
    const modules = Object.keys(output.inputs).map((input) => relative(COMPILED, join(ROOT, input)).replace(/\\/g, "/"));
    return { path, text: file.text, modules };
  });
  for (const file of files)
    for (const module of file.modules)
      if (dirname(module) !== dirname(file.path) && readFileSync(join(COMPILED, module), "utf8").includes("import.meta"))
        throw new Error(
          `${module} reads import.meta but is bundled into ${file.path}, in another directory: make it an entry point (ON_DEMAND)`,
        );
  return files;
}

function javaScriptUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return path === join(PACKAGE, "vendor") ? [] : javaScriptUnder(path);
    return path.endsWith(".js") ? [path] : [];
  });
}

/** Replaces the JavaScript of dist/package/ (the vendored core aside) with the bundle. */
export function writePackageBundle(): BundledFile[] {
  const files = packageBundle();
  for (const path of javaScriptUnder(PACKAGE)) rmSync(path);
  for (const file of files) {
    const target = join(PACKAGE, file.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.text);
  }
  return files;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const files = writePackageBundle();
  const modules = new Set(files.flatMap((file) => file.modules));
  console.log(`bundled ${modules.size} modules of dist/lib/ into ${files.length} files of dist/package/`);
}
