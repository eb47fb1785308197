// The declared language floor, ES2020 (docs/embedding.md): the portable layers type-check with
// ES2020's target and library alone (tsconfig.es2020.json), so a built-in from a later edition
// used anywhere in them fails here; the same check refuses a file that uses one (the control);
// and esbuild builds the core and the peer layer at that target. The run-time side is in
// quickjs.test.ts and hermes.test.ts, which delete the newer built-ins before loading.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { buildSync } from "esbuild";
import { ROOT } from "./engines.js";

const TSC = join(ROOT, "node_modules/typescript/bin/tsc");

function tsc(args: readonly string[]): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [TSC, ...args], { cwd: ROOT, encoding: "utf8", timeout: 300_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

test("the portable layers type-check at target ES2020 with the ES2020 library alone (tsconfig.es2020.json)", () => {
  const run = tsc(["-p", "tsconfig.es2020.json"]);
  assert.equal(run.output, "");
  assert.equal(run.status, 0);
});

test("the same check refuses Object.hasOwn, Array.prototype.at, String.prototype.replaceAll and structuredClone (the control)", () => {
  const dir = mkdtempSync(join(tmpdir(), "mcp-floor-"));
  try {
    const file = join(dir, "newer.ts");
    writeFileSync(
      file,
      'export const a = Object.hasOwn({}, "x");\nexport const b = [1].at(0);\nexport const c = "x".replaceAll("x", "y");\nexport const d = structuredClone({});\n',
    );
    const run = tsc(["--ignoreConfig", "--target", "es2020", "--lib", "es2020", "--types", "", "--noEmit", "--strict", file]);
    assert.notEqual(run.status, 0);
    for (const name of ["hasOwn", "'at'", "replaceAll", "structuredClone"])
      assert.ok(run.output.includes(name), `${name} refused:\n${run.output}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("esbuild builds the core and the peer layer at target ES2020", () => {
  for (const entry of ["dist/lib/index.js", "dist/lib/peer/index.js"]) {
    const built = buildSync({
      entryPoints: [join(ROOT, entry)],
      bundle: true,
      format: "esm",
      target: "es2020",
      platform: "neutral",
      write: false,
      logLevel: "silent",
      minify: true,
    });
    assert.deepEqual(built.errors, []);
    const text = (built.outputFiles[0] as { text: string }).text;
    assert.ok(!/\.hasOwn\(|\.replaceAll\(|structuredClone|\.findLast(Index)?\(/.test(text), `${entry}: a built-in newer than ES2020`);
  }
});
