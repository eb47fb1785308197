// Running the embedding scenarios (spec-tests/embed/scenarios.ts) in other JavaScript engines:
// the bundle (esbuild, ES2020, one script that defines `McpEmbed` and needs no global beyond
// ECMAScript), the ES5 down-level Hermes needs (spec-tests/tools/lower-es5.ts), a script that
// removes the built-ins newer than ES2020 (the declared language floor) before anything loads,
// and the two runners: QuickJS through quickjs-emscripten in this process, Hermes as a child.
// Not a test file itself.

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { lowerToEs5 } from "../tools/lower-es5.js";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const HERMES = join(ROOT, "node_modules/hermes-engine-cli/linux64-bin/hermes");
const SCENARIOS = join(ROOT, "dist/spec-tests/embed/scenarios.js");
/** The UTF-8 steps of the layers above the core (spec-tests/embed/layer-scenarios.ts). */
export const LAYER_SCENARIOS: string = join(ROOT, "dist/spec-tests/embed/layer-scenarios.js");

export interface BundleOptions {
  minify?: boolean;
  /** Lowered for Hermes 0.12: async functions to generators, classes and block scoping to ES5. */
  es5?: boolean;
  /** Source put first in the bundle's module scope (a test that puts a load-time codec back). */
  banner?: string;
  /** The compiled module bundled (default: the core and peer scenarios). */
  entry?: string;
}

/** The scenarios and the library as one classic script that defines `var McpEmbed`. */
export function scenarioScript(options: BundleOptions = {}): string {
  const built = buildSync({
    entryPoints: [options.entry ?? SCENARIOS],
    bundle: true,
    format: "esm",
    target: "es2020",
    platform: "neutral",
    write: false,
    logLevel: "silent",
    minify: options.minify === true,
    banner: options.banner === undefined ? undefined : { js: options.banner },
    supported: options.es5 === true ? { "async-await": false, "async-generator": false } : undefined,
  });
  const text = (built.outputFiles[0] as { text: string }).text;
  // The ESM export list becomes an object: a script, not a module, is what every engine runs.
  const exports = /export\s*\{([^}]*)\};?\s*$/.exec(text);
  if (exports === null) throw new Error("the bundle has no export list");
  const members = (exports[1] as string)
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .map((s) => {
      const [local, exported] = s.split(/\s+as\s+/);
      return `${exported ?? local}: ${local}`;
    });
  const script = `${text.slice(0, exports.index)}\nvar McpEmbed = { ${members.join(", ")} };\n`;
  return options.es5 === true ? lowerToEs5(script) : script;
}

/** Built-ins newer than ES2020, removed before the bundle loads, so a use of one fails at run time. */
export const REMOVE_NEWER_BUILTINS = `(function () {
  var removed = [];
  var typed = Object.getPrototypeOf(Int8Array.prototype);
  var drop = function (owner, label, names) {
    names.forEach(function (name) {
      if (owner !== undefined && Object.prototype.hasOwnProperty.call(owner, name)) { delete owner[name]; removed.push(label + "." + name); }
    });
  };
  drop(Object, "Object", ["hasOwn", "groupBy"]);
  drop(typeof Map === "function" ? Map : undefined, "Map", ["groupBy"]);
  drop(Array.prototype, "Array.prototype", ["at", "findLast", "findLastIndex", "toReversed", "toSorted", "toSpliced", "with"]);
  drop(Array, "Array", ["fromAsync"]);
  drop(typed, "TypedArray.prototype", ["at", "findLast", "findLastIndex", "toReversed", "toSorted", "with"]);
  drop(String.prototype, "String.prototype", ["at", "replaceAll", "isWellFormed", "toWellFormed"]);
  drop(Promise, "Promise", ["any", "withResolvers", "try"]);
  drop(ArrayBuffer.prototype, "ArrayBuffer.prototype", ["transfer", "transferToFixedLength", "resize"]);
  drop(Set.prototype, "Set.prototype", ["union", "intersection", "difference", "symmetricDifference", "isSubsetOf", "isSupersetOf", "isDisjointFrom"]);
  drop(globalThis, "globalThis", ["AggregateError", "WeakRef", "FinalizationRegistry", "structuredClone", "Iterator"]);
  return removed;
})()`;

/** A driver: runs every scenario and hands `report` the JSON of all transcripts. */
export function driver(report: string): string {
  return `
var out = { removed: removedBuiltins, probe: McpEmbed.probe(), identity: McpEmbed.errorIdentity(), core: {} };
McpEmbed.LINKS.forEach(function (link) {
  out.core["session " + link] = McpEmbed.coreSession("session", link);
  out.core["modern " + link] = McpEmbed.coreSession("modern", link);
});
McpEmbed.peerSession("session")
  .then(function (s) { out.peer = { session: s }; return McpEmbed.peerSession("modern"); })
  .then(function (m) { out.peer.modern = m; ${report}(JSON.stringify(out)); }, function (e) { ${report}("ERROR " + (e && e.stack || e)); });
`;
}

export interface Transcripts {
  readonly removed: readonly string[];
  readonly probe: { readonly [name: string]: string };
  readonly identity: readonly string[];
  readonly core: { readonly [run: string]: readonly string[] };
  readonly peer: { readonly session: readonly string[]; readonly modern: readonly string[] };
}

/** The part of quickjs-emscripten used here (its own declarations need lib esnext and DOM's WebAssembly). */
interface QuickJsHandle {
  dispose(): void;
}
interface QuickJsResult {
  readonly error?: QuickJsHandle;
  readonly value: QuickJsHandle & number;
}
interface QuickJsContext {
  readonly global: QuickJsHandle;
  evalCode(code: string, filename: string): QuickJsResult;
  getProp(handle: QuickJsHandle, key: string): QuickJsHandle;
  dump(handle: QuickJsHandle): unknown;
  dispose(): void;
}
interface QuickJsRuntime {
  setMemoryLimit(bytes: number): void;
  newContext(): QuickJsContext;
  executePendingJobs(): { readonly error?: QuickJsHandle; readonly value: number };
  dispose(): void;
}
const QUICKJS = "quickjs-emscripten";

/** Evaluates `script` in a fresh QuickJS context (nothing added to its globals) and returns what it reported. */
export async function runQuickJs(script: string): Promise<string> {
  const { getQuickJS } = (await import(QUICKJS)) as { getQuickJS(): Promise<{ newRuntime(): QuickJsRuntime }> };
  const QuickJS = await getQuickJS();
  const runtime = QuickJS.newRuntime();
  runtime.setMemoryLimit(256 * 1024 * 1024);
  const vm = runtime.newContext();
  try {
    const result = vm.evalCode(script, "embed.js");
    if (result.error) {
      const error = vm.dump(result.error) as { name?: string; message?: string; stack?: string };
      result.error.dispose();
      return `ERROR ${error.name}: ${error.message}\n${error.stack ?? ""}`;
    }
    result.value.dispose();
    for (let turn = 0; turn < 10_000; turn++) {
      const jobs = runtime.executePendingJobs();
      if (jobs.error) {
        const error = vm.dump(jobs.error) as { message?: string };
        jobs.error.dispose();
        return `ERROR in a job: ${error.message}`;
      }
      if (jobs.value === 0) break;
    }
    const reported = vm.getProp(vm.global, "__reported");
    const text = vm.dump(reported) as unknown;
    reported.dispose();
    return typeof text === "string" ? text : "ERROR nothing reported";
  } finally {
    vm.dispose();
    runtime.dispose();
  }
}

/** Runs `script` with the hermes CLI and returns what it printed (stderr appended on failure). */
export function runHermes(script: string): string {
  const dir = mkdtempSync(join(tmpdir(), "mcp-embed-"));
  try {
    const file = join(dir, "embed.js");
    writeFileSync(file, script);
    const run = spawnSync(HERMES, ["-w", file], { encoding: "utf8", timeout: 120_000 });
    if (run.status !== 0) return `ERROR exit ${String(run.status)}: ${run.stderr}${run.stdout}`;
    return run.stdout.trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The QuickJS program: the removal of newer built-ins, the bundle, the driver reporting into a global. */
export function quickJsProgram(bundle: string): string {
  return `"use strict";\nvar removedBuiltins = ${REMOVE_NEWER_BUILTINS};\n${bundle}\n${driver("(function (text) { globalThis.__reported = text; })")}`;
}

/** The Hermes program: the same, reporting with Hermes's print. */
export function hermesProgram(bundle: string): string {
  return `"use strict";\nvar removedBuiltins = ${REMOVE_NEWER_BUILTINS};\n${bundle}\n${driver("print")}`;
}

/** Parses a run's report, failing with what the engine said when it was not a report. */
export function transcripts(report: string): Transcripts {
  if (report.startsWith("ERROR")) throw new Error(report);
  return JSON.parse(report) as Transcripts;
}
