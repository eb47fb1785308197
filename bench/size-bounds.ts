// How far the size targets are from what the three largest cuts short of rewriting the code
// could reach. Each entry (the Engine, a peer Client, a peer Server with one tool) is bundled as
// bench/bundle-size.ts bundles it, then again with the cuts applied one on top of the other, each
// taken generously, so that each column is no larger than a real build with that cut would be.
// Not measured: rewriting the code itself to be smaller. The cuts:
//   no 2026-07-28   the modules that serve only the stateless revision (ERA_ONLY_MODULES of
//                   bundle-size.ts) replaced by stubs, as a session-era build could drop them;
//   no sentences    every literal that reads as prose (isProse) emptied, as if errors kept
//                   their codes and rule ids but said nothing of what was expected or what came;
//   short members   every name declared `private` anywhere under lib/ mangled to a short one,
//                   wherever the name is used (public members that share a name included).
// The stubbed bundles do not run; they are measured only. Run after `npm run build`:
//
//   npm run bench:bounds
//
// The script fails when an era module it stubs is in no entry's bundle, so that a renamed module
// cannot make the bound silently cover less.

import { build, transformSync, type Plugin } from "esbuild";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { BUNDLE_OPTIONS, CLIENT, ERA_ONLY_MODULES, ROOT, SERVER_ONE_TOOL, modulesSource, type BundleEntry } from "./bundle-size.js";
import { listFiles } from "../spec-tests/support/rules-inventory.js";
import { tokenize } from "../spec-tests/tools/lower-es5.js";
import { ENGINE } from "./core-size.js";

/** A literal, or the text of a template between substitutions, "reads as prose" when it holds a space between words. */
const isProse = (text: string): boolean => text.length >= 6 && /\S\s+\S|\S\s+$|^\s+\S/.test(text);

const TARGETS = new Map<BundleEntry, number>([
  [ENGINE, 25],
  [SERVER_ONE_TOOL, 40],
  [CLIENT, 30],
]);

/** Names declared `private` in the library's sources. */
function privateMemberNames(): string[] {
  const names = new Set<string>();
  for (const path of listFiles(ROOT, "lib", [".ts"]))
    if (!path.endsWith(".d.ts"))
      for (const match of readFileSync(resolve(ROOT, path), "utf8").matchAll(
        /\bprivate\s+(?:(?:readonly|static|get|set|async)\s+)*([A-Za-z_$][\w$]*)/g,
      ))
        names.add(match[1]!);
  return [...names];
}

/** The source of each era-only module replaced by one that exports its names as undefined. */
async function eraStubs(): Promise<Map<string, string>> {
  const stubs = new Map<string, string>();
  for (const path of ERA_ONLY_MODULES) {
    const exported = Object.keys(await import(resolve(ROOT, "dist/lib", path)));
    stubs.set(path, exported.map((name) => `export const ${name} = undefined;`).join("\n"));
  }
  return stubs;
}

/** `code` (a module as tsc emits it) with the text of every prose literal emptied, template substitutions kept. */
export function withoutProse(code: string): string {
  let out = "";
  let copied = 0;
  for (const token of tokenize(code)) {
    if (token.type !== "string" && token.type !== "template") continue;
    // A string's quotes; a template part's "`" or "}" before its text and "`" or "${" after it.
    const closing = token.value.endsWith("${") ? 2 : 1;
    if (!isProse(token.value.slice(1, -closing))) continue;
    out += code.slice(copied, token.start) + token.value[0] + token.value.slice(-closing);
    copied = token.end;
  }
  return out + code.slice(copied);
}

/** Loads dist/lib's modules with the cut's changes. */
function cutModules(cut: Cut, stubs: Map<string, string>): Plugin {
  return {
    name: "size-cuts",
    setup(plugin) {
      plugin.onLoad({ filter: /[\\/]dist[\\/]lib[\\/].*\.js$/ }, (args) => {
        const path = args.path.replaceAll("\\", "/").replace(/^.*\/dist\/lib\//, "");
        const stub = cut.stubEra ? stubs.get(path) : undefined;
        if (stub !== undefined) return { contents: stub, loader: "js" };
        if (!cut.emptyProse) return undefined;
        const contents = withoutProse(readFileSync(args.path, "utf8"));
        transformSync(contents, { loader: "js", format: "esm", logLevel: "silent" }); // throws if the cut broke the module
        return { contents, loader: "js" };
      });
    },
  };
}

interface Cut {
  readonly stubEra: boolean;
  readonly mangle: RegExp | undefined;
  readonly emptyProse: boolean;
}

async function gzipBytes(entry: BundleEntry, cut: Cut, stubs: Map<string, string>): Promise<{ gzip: number; inputs: string[] }> {
  const result = await build({
    stdin: { contents: modulesSource(entry), resolveDir: ROOT, loader: "js" },
    ...BUNDLE_OPTIONS,
    plugins: [cutModules(cut, stubs)],
    ...(cut.mangle === undefined ? {} : { mangleProps: cut.mangle }),
  });
  const text = result.outputFiles[0]!.text;
  const inputs = Object.keys(Object.values(result.metafile.outputs)[0]!.inputs).map((path) => path.replace(/^.*?dist\/lib\//, ""));
  return { gzip: gzipSync(text, { level: 9 }).byteLength, inputs };
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

async function main(): Promise<void> {
  const stubs = await eraStubs();
  const privateNames = new RegExp(`^(?:${privateMemberNames().join("|")})$`);
  const cuts: [string, Cut][] = [
    ["as shipped", { stubEra: false, mangle: undefined, emptyProse: false }],
    ["no 2026-07-28", { stubEra: true, mangle: undefined, emptyProse: false }],
    ["+ no sentences", { stubEra: true, mangle: undefined, emptyProse: true }],
    ["+ short members", { stubEra: true, mangle: privateNames, emptyProse: true }],
  ];
  console.log("size bounds (esbuild --bundle --minify, ESM, gzip -9); each cut on top of the one before");
  console.log(`  ${"".padEnd(20)}${cuts.map(([name]) => name.padStart(17)).join("")}   target`);
  const bundled = new Set<string>();
  for (const [entry, target] of TARGETS) {
    const cells: string[] = [];
    for (const [name, cut] of cuts) {
      const { gzip, inputs } = await gzipBytes(entry, cut, stubs);
      if (name === "as shipped") for (const path of inputs) bundled.add(path);
      cells.push(kb(gzip).padStart(17));
    }
    console.log(`  ${entry.name.padEnd(20)}${cells.join("")}   ${target} KB`);
  }
  const missing = ERA_ONLY_MODULES.filter((path) => !bundled.has(path));
  if (missing.length > 0) throw new Error(`era-only modules in no entry's bundle: ${missing.join(", ")}; update ERA_ONLY_MODULES`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
