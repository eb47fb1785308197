// The test command (spec-tests/run.ts behind `npm test` and `npm run test:long`): which files it
// finds, the quick suite without the *.long.test.js files and --long with only them, that its
// exit code is the run's, that two files run at a time, and that the test processes get
// --unhandled-rejections=strict. Node
// 22 and later refuse `node --test DIR`, so npm test must hand node an explicit file list.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { after, test } from "node:test";
import { ROOT } from "../support/package-harness.js";
import { inSuite, testFiles } from "../run.js";

const base = mkdtempSync(join(tmpdir(), "mcp-engine-runner-"));
after(() => rmSync(base, { recursive: true, force: true }));

const RUNNER = join(ROOT, "dist", "spec-tests", "run.js");

function tree(name: string, files: { readonly [path: string]: string }): string {
  const dir = join(base, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/**
 * Runs run.js on `dir` as a top-level command: without the NODE_TEST_CONTEXT that this test
 * process hands its children, which would make the inner run report to us in the runner's
 * binary protocol instead of printing its summary. The TAP reporter is asked for (Node 23+
 * print the spec reporter by default) through run.js, which hands its Node flags on.
 */
function runner(dir: string, ...flags: string[]): { code: number | null; stdout: string; stderr: string } {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const result = spawnSync(process.execPath, ["--test-reporter=tap", RUNNER, ...flags, dir], { encoding: "utf8", env, timeout: 30_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const PASSES = `const { test } = require("node:test");\ntest("passes", () => {});\n`;
const FAILS = `const { test } = require("node:test");\ntest("fails", () => { throw new Error("on purpose"); });\n`;

test("discovery takes *.test.js at every depth, sorted, and skips helpers, maps, declarations, node_modules and dot folders", () => {
  const dir = tree("discover", {
    "b.test.js": PASSES,
    "a.test.js": PASSES,
    "helper.js": PASSES,
    "a.test.js.map": "{}",
    "a.test.d.ts": "",
    "a.test.ts": "",
    "core/c.test.js": PASSES,
    "core/deeper/d.test.js": PASSES,
    "node_modules/x.test.js": FAILS,
    ".cache/y.test.js": FAILS,
  });
  assert.deepEqual(
    testFiles(dir).map((f) => relative(dir, f)),
    ["a.test.js", "b.test.js", join("core", "c.test.js"), join("core", "deeper", "d.test.js")],
  );
});

test("run.js passes when every found file passes, and the test processes run with --unhandled-rejections=strict", () => {
  const dir = tree("strict", {
    "flags.test.js": `const { test } = require("node:test");\nconst assert = require("node:assert/strict");\ntest("strict", () => assert.ok(process.execArgv.includes("--unhandled-rejections=strict"), String(process.execArgv)));\n`,
    "sub/ok.test.js": PASSES,
  });
  const run = runner(dir);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /# pass 2\b/);
});

test("run.js fails when a file in a subfolder fails, and when it finds no test file", () => {
  const failing = runner(tree("failing", { "ok.test.js": PASSES, "deep/er/bad.test.js": FAILS }));
  assert.equal(failing.code, 1, failing.stdout + failing.stderr);
  assert.match(failing.stdout, /# fail 1\b/);
  const empty = runner(tree("empty", { "helper.js": PASSES }));
  assert.equal(empty.code, 1);
  assert.match(empty.stderr, /no \*\.test\.js file under/);
});

test("npm test runs the suite through run.js, not by handing node --test a directory", () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: { test: string } };
  assert.match(manifest.scripts.test, /\bnode dist\/spec-tests\/run\.js$/);
  assert.doesNotMatch(manifest.scripts.test, /--test\s+\S*\/(\s|$)/);
});

test("the quick suite leaves out the *.long.test.js files; --long runs only them, --all both; a file named runs as it is", () => {
  const dir = tree("suites", {
    "a.test.js": PASSES,
    "core/b.long.test.js": PASSES,
    "core/c.test.js": PASSES,
    "d.long.test.js": FAILS,
    "long.test.js": PASSES,
  });
  const found = (suite?: "long" | "all"): string[] => testFiles(dir, suite).map((f) => relative(dir, f));
  assert.deepEqual(found(), ["a.test.js", join("core", "c.test.js"), "long.test.js"]);
  assert.deepEqual(found("long"), [join("core", "b.long.test.js"), "d.long.test.js"]);
  assert.deepEqual(found("all"), [
    "a.test.js",
    join("core", "b.long.test.js"),
    join("core", "c.test.js"),
    "d.long.test.js",
    "long.test.js",
  ]);
  assert.deepEqual(testFiles(join(dir, "d.long.test.js")), [join(dir, "d.long.test.js")]);
  assert.equal(inSuite("x.long.test.js.map", "all"), false);
  // The quick run does not see the failing long file; --long does.
  const quick = runner(dir);
  assert.equal(quick.code, 0, quick.stdout + quick.stderr);
  assert.match(quick.stdout, /# pass 3\b/);
  const long = runner(dir, "--long");
  assert.equal(long.code, 1, long.stdout + long.stderr);
  assert.match(long.stdout, /# pass 1\b/);
  assert.match(long.stdout, /# fail 1\b/);
  const none = runner(tree("no-long", { "a.test.js": PASSES }), "--long");
  assert.equal(none.code, 1);
  assert.match(none.stderr, /no \*\.long\.test\.js file under/);
});

test("run.js runs two files at a time: each of two files waits for the other to start", () => {
  // Each writes its mark, then waits (10 s at most) for the other's: one at a time, the first would give up.
  const meeting = (me: string, other: string): string =>
    `const { test } = require("node:test");\nconst fs = require("node:fs");\nconst path = require("node:path");\n` +
    `test("${me} meets ${other}", async () => {\n  fs.writeFileSync(path.join(__dirname, "${me}.mark"), "");\n` +
    `  for (let waited = 0; !fs.existsSync(path.join(__dirname, "${other}.mark")); waited += 50) {\n` +
    `    if (waited > 10000) throw new Error("${other} did not start while ${me} ran");\n` +
    `    await new Promise((resolve) => setTimeout(resolve, 50));\n  }\n});\n`;
  const run = runner(tree("together", { "a.test.js": meeting("a", "b"), "b.test.js": meeting("b", "a") }));
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /# pass 2\b/);
});

test("npm run test:long builds and runs the long files through run.js; .ci/run runs it after npm test", () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
  assert.equal(manifest.scripts["test:long"], "npm run build && node dist/spec-tests/run.js --long");
  const ci = readFileSync(join(ROOT, ".ci", "run"), "utf8");
  assert.match(ci, /^npm test\nnpm run test:long$/m);
  // Each long run is named so, and the quick suite has none.
  const specTests = join(ROOT, "dist", "spec-tests");
  assert.ok(testFiles(specTests, "long").length >= 5, "the long runs are found");
  assert.ok(testFiles(specTests).every((file) => !file.endsWith(".long.test.js")));
});
