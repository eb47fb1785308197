// The vendorable core: one self-contained ES module, mcp-engine-core.js, and its declarations,
// mcp-engine-core.d.ts, both made from the compiled core (dist/lib, the closure of index.js): no
// import, the licence and the version in a header, ES2020. `npm run build` writes them into
// dist/package/vendor/, which the package exports as `mcp-engine/vendor/core`.
//
//   node dist/spec-tests/tools/vendor.js [OUT-DIR]     (default: dist/package/vendor)
//
// Both are made compact, since they ship beside the modules they duplicate and the package has a
// size budget (spec-tests/project/package-size.test.ts): the JavaScript is esbuild's minified
// bundle of dist/lib/index.js (the file whose size spec-tests/embed/vendor.test.ts holds to its
// budget), and the declarations carry no doc comments (the package's own declarations and
// docs/ carry them; the readable core is dist/package/ itself). The declarations are rolled up here,
// without a dependency: every .d.ts of the closure, its imports and re-exports removed and its
// declarations made module-local, identical duplicates kept once, then one export list, values
// and types apart, that is exactly index.d.ts's (a name exported twice, or a declaration this
// cannot place, fails the build instead of shipping a wrong file).

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const ENTRY = join(ROOT, "dist/lib/index.js");
export const VENDOR_NAME = "mcp-engine-core";

function header(): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string; license: string };
  const licence = readFileSync(join(ROOT, "LICENSE"), "utf8").trim();
  return `/*!\n * ${VENDOR_NAME} ${pkg.version}: the sans-I/O core of mcp-engine (the Engine, its framing and the protocol's rules),\n * as one self-contained ES2020 module. Needs no global beyond ECMAScript: the host's TextEncoder/TextDecoder\n * are used when present, else a built-in UTF-8 codec.\n *\n * ${licence.split("\n").join("\n * ")}\n */\n`;
}

/** The vendored module's JavaScript. */
export function vendorJs(options: { minify?: boolean } = {}): string {
  const built = buildSync({
    entryPoints: [ENTRY],
    bundle: true,
    format: "esm",
    target: "es2020",
    platform: "neutral",
    write: false,
    logLevel: "silent",
    minify: options.minify === true,
    legalComments: "none",
  });
  return header() + (built.outputFiles[0] as { text: string }).text;
}

/** One statement of a declaration file: an import, a re-export, an export list, or a declaration. */
interface Statement {
  readonly text: string;
  readonly kind: "import" | "reexport" | "export-list" | "declaration";
}

/** Splits a .d.ts into top-level statements (tsc's declaration output: one declaration per top-level construct). */
function statements(text: string): Statement[] {
  const out: Statement[] = [];
  let depth = 0;
  let start = 0;
  let inString: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString !== undefined) {
      if (c === "\\") i++;
      else if (c === inString) inString = undefined;
      continue;
    }
    if (c === '"' || c === "'" || c === "`") inString = c;
    else if (c === "/" && text[i + 1] === "*") {
      // A doc comment belongs to the statement it precedes.
      i = text.indexOf("*/", i + 2) + 1;
    } else if (c === "/" && text[i + 1] === "/") i = text.indexOf("\n", i);
    else if (c === "{" || c === "(" || c === "[") depth++;
    else if (c === "}" || c === ")" || c === "]") {
      depth--;
      // A declaration with a body ends at its closing brace unless a ";" follows on the line.
      if (
        depth === 0 &&
        c === "}" &&
        !/^[ \t]*[;,)|&=]/.test(text.slice(i + 1, i + 40)) &&
        /^\s*\n/.test(text.slice(i + 1)) &&
        isBlockEnd(text.slice(start, i + 1))
      ) {
        push(i + 1);
      }
    } else if (c === ";" && depth === 0) push(i + 1);
  }
  push(text.length);
  return out;

  function push(end: number): void {
    const piece = text.slice(start, end).trim();
    start = end;
    if (piece === "") return;
    const code = piece.replace(/\/\*[\s\S]*?\*\//g, "").trim();
    const kind: Statement["kind"] = /^import\b/.test(code)
      ? "import"
      : /^export\s+(type\s+)?(\*|\{[^}]*\})\s*(as\s+\w+\s+)?from\s/.test(code)
        ? "reexport"
        : /^export\s+(type\s+)?\{[^}]*\};?$/.test(code)
          ? "export-list"
          : "declaration";
    out.push({ text: piece, kind });
  }
}

/** Whether a text that ends with "}" is a whole declaration with a body (interface, class, enum, namespace). */
function isBlockEnd(piece: string): boolean {
  const code = piece.replace(/\/\*[\s\S]*?\*\//g, "").trim();
  return /^(export\s+)?(declare\s+)?(abstract\s+)?(interface|class|enum|const\s+enum|namespace|module)\b/.test(code);
}

/** The module a specifier names, as a dist/lib .d.ts path. */
function target(from: string, specifier: string): string {
  return resolve(dirname(from), specifier.replace(/\.js$/, ".d.ts"));
}

interface Exports {
  readonly values: Set<string>;
  readonly types: Set<string>;
}

/** The names a .d.ts exports (its own exported declarations and its re-exports), values and types apart. */
function exportsOf(file: string, cache: Map<string, Exports>): Exports {
  const kept = cache.get(file);
  if (kept !== undefined) return kept;
  const found: Exports = { values: new Set(), types: new Set() };
  cache.set(file, found);
  for (const s of statements(readFileSync(file, "utf8"))) {
    const code = s.text.replace(/\/\*[\s\S]*?\*\//g, "").trim();
    if (s.kind === "reexport" || s.kind === "export-list") {
      const typeOnly = /^export\s+type\b/.test(code);
      const from = /from\s+["']([^"']+)["']/.exec(code)?.[1];
      if (/^export\s+(type\s+)?\*/.test(code)) {
        const inner = exportsOf(target(file, from as string), cache);
        for (const n of inner.types) found.types.add(n);
        for (const n of inner.values) (typeOnly ? found.types : found.values).add(n);
        continue;
      }
      const inner = from === undefined ? undefined : exportsOf(target(file, from), cache);
      for (const raw of (/\{([^}]*)\}/.exec(code)?.[1] ?? "").split(",")) {
        const item = raw.trim();
        if (item === "") continue;
        const [name, alias] = item.replace(/^type\s+/, "").split(/\s+as\s+/) as [string, string | undefined];
        if (alias !== undefined && alias !== name) throw new Error(`${relative(ROOT, file)}: renamed export ${item} is not supported`);
        const isType = typeOnly || item.startsWith("type ") || (inner !== undefined && inner.types.has(name) && !inner.values.has(name));
        (isType ? found.types : found.values).add(name);
      }
      continue;
    }
    if (s.kind !== "declaration" || !/^export\s/.test(code)) continue;
    const m =
      /^export\s+(?:declare\s+)?(?:abstract\s+)?(const\s+enum|enum|interface|type|class|function|const|let|var|namespace)\s+([A-Za-z_$][\w$]*)/.exec(
        code,
      );
    if (m === null) throw new Error(`${relative(ROOT, file)}: cannot read the export ${code.slice(0, 80)}`);
    const isValue = !["interface", "type"].includes(m[1] as string);
    (isValue ? found.values : found.types).add(m[2] as string);
    if (m[1] === "class" || m[1] === "enum") found.types.add(m[2] as string);
  }
  return found;
}

/** The vendored module's declarations. */
export function vendorDts(): string {
  const entry = ENTRY.replace(/\.js$/, ".d.ts");
  const files: string[] = [];
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (files.includes(file)) continue;
    files.push(file);
    for (const m of readFileSync(file, "utf8").matchAll(/from\s+["'](\.{1,2}\/[^"']+)["']/g)) queue.push(target(file, m[1] as string));
  }
  const seen = new Map<string, string>();
  const body: string[] = [];
  for (const file of files) {
    body.push(`// ${relative(join(ROOT, "dist"), file).replace(/\\/g, "/")}`);
    for (const s of statements(readFileSync(file, "utf8"))) {
      if (s.kind !== "declaration") continue;
      // Local to the module: the export list at the end says what is public.
      const local = s.text.replace(/^((?:\/\*[\s\S]*?\*\/\s*)*)export\s+(default\s+)?/, "$1");
      const name =
        /^(?:\/\*[\s\S]*?\*\/\s*)*(?:declare\s+)?(?:abstract\s+)?(?:const\s+enum|enum|interface|type|class|function|const|let|var|namespace)\s+([A-Za-z_$][\w$]*)/.exec(
          local,
        )?.[1];
      if (name === undefined) throw new Error(`${relative(ROOT, file)}: cannot place ${local.slice(0, 80)}`);
      const code = local.replace(/\/\*[\s\S]*?\*\//g, "").trim();
      const earlier = seen.get(name);
      const overload = /^(declare\s+)?function\s/.test(code);
      if (earlier !== undefined && !overload) {
        if (earlier === code) continue;
        throw new Error(`${name} is declared differently in two modules of the core`);
      }
      seen.set(name, code);
      body.push(code);
    }
  }
  const exported = exportsOf(entry, new Map());
  const values = [...exported.values].sort();
  const types = [...exported.types].filter((n) => !exported.values.has(n)).sort();
  return `${header()}\n${body.join("\n")}\n\nexport { ${values.join(", ")} };\nexport type { ${types.join(", ")} };\n`;
}

/** Writes both files into `dir`; their paths. */
export function writeVendor(dir: string): { js: string; dts: string } {
  mkdirSync(dir, { recursive: true });
  const js = join(dir, `${VENDOR_NAME}.js`);
  const dts = join(dir, `${VENDOR_NAME}.d.ts`);
  writeFileSync(js, vendorJs({ minify: true }));
  writeFileSync(dts, vendorDts());
  return { js, dts };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const written = writeVendor(resolve(process.argv[2] ?? join(ROOT, "dist/package/vendor")));
  console.log(`wrote ${relative(process.cwd(), written.js)} and ${relative(process.cwd(), written.dts)}`);
}
