// Size bounds, counted on formatted code (Biome, line width 140; `npm run format:check` keeps
// every file formatted), so a bound is met by splitting a file, never by writing wide lines:
// no file under lib/ holds more than 700 lines (a module that grows past that is doing two
// things: split it into modules), and no file under spec-tests/ more than 1,000 (split a test
// file by topic, its shared helpers into spec-tests/support/). A file that crosses a bound
// fails here with its name and its count.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));

/** The TypeScript and JavaScript sources under `dir`, at any depth. */
function sources(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...sources(path));
    else if (name.endsWith(".ts") || name.endsWith(".mjs")) found.push(path);
  }
  return found;
}

function lineCount(path: string): number {
  const text = readFileSync(path, "utf8");
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** The files under `dir` (relative to the root) with more than `bound` lines, and how many files there are. */
function over(dir: string, bound: number): { files: number; over: { file: string; lines: number }[] } {
  const files = sources(join(root, dir));
  return {
    files: files.length,
    over: files.map((f) => ({ file: relative(root, f), lines: lineCount(f) })).filter((f) => f.lines > bound),
  };
}

test("no file under lib/ holds more than 700 lines", () => {
  const found = over("lib", 700);
  assert.ok(found.files > 50, `expected the sources under lib/, found ${found.files} files`);
  assert.deepEqual(found.over, [], `files over 700 lines: ${found.over.map((f) => `${f.file} (${f.lines})`).join(", ")}`);
});

test("no file under spec-tests/ holds more than 1,000 lines", () => {
  const found = over("spec-tests", 1000);
  assert.ok(found.files > 100, `expected the sources under spec-tests/, found ${found.files} files`);
  assert.deepEqual(found.over, [], `files over 1,000 lines: ${found.over.map((f) => `${f.file} (${f.lines})`).join(", ")}`);
});
