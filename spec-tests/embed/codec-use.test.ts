// One way to UTF-8 in the portable layers: lib/wire/utf8.ts (the host's TextEncoder/TextDecoder
// when it has them, made at first use, else the built-in codec). A direct `new TextDecoder(...)`
// or `TextEncoder` anywhere else under lib/ would fail on a host without them (QuickJS, Hermes)
// or, at module level, fail while loading; only the Node hosts and the CLI, which run on Node
// alone, may use the globals. Checked on the sources, comments and declaration files aside.

import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { ROOT } from "./engines.js";

/** The files that may name the globals: the codec itself, and the Node-only layers. */
const ALLOWED = [/^lib\/wire\/utf8\.ts$/, /^lib\/hosts\/(?!web\/)/, /^lib\/cli\//];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith(".ts") && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The source without its comments (strings kept: a global's name in a string is no use of it). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** Each line of `text` that names TextEncoder or TextDecoder outside a comment. */
export function codecUses(text: string): string[] {
  return code(text)
    .split("\n")
    .filter((line) => /\bText(En|De)coder\b/.test(line))
    .map((line) => line.trim());
}

test("no file of the portable layers uses TextEncoder or TextDecoder but lib/wire/utf8.ts", () => {
  const found: string[] = [];
  for (const file of sources(join(ROOT, "lib"))) {
    const path = relative(ROOT, file).replace(/\\/g, "/");
    if (ALLOWED.some((allowed) => allowed.test(path))) continue;
    for (const line of codecUses(readFileSync(file, "utf8"))) found.push(`${path}: ${line}`);
  }
  assert.deepEqual(found, []);
});

test("the check sees a constructed codec and a codec type, and not a comment that names one (the control)", () => {
  assert.deepEqual(codecUses('const d = new TextDecoder("utf-8", { fatal: true });'), [
    'const d = new TextDecoder("utf-8", { fatal: true });',
  ]);
  assert.deepEqual(codecUses("let e: TextEncoder | undefined;"), ["let e: TextEncoder | undefined;"]);
  assert.deepEqual(codecUses("// the host's TextDecoder when present\n/* TextEncoder.encodeInto */ const x = 1;"), []);
});
