// A whole `mcp-engine client` run is bounded (RULES.md CLI-03): by its budget (--run-timeout,
// which --timeout, a bound on one request, is not), and by a cap of 100 on the tools,
// resources, templates and prompts it exercises. The server (many-tools-server.ts) lists many
// items, and in the budget test answers each tool call slowly.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { DEFAULT_RUN_TIMEOUT_MS, USAGE, parseArgs } from "../../lib/cli/args.js";
import { exitCode } from "../../lib/cli/grading.js";
import { REPORT_MAX_ITEMS } from "../../lib/cli/report.js";

const MAIN = fileURLToPath(new URL("../../lib/cli/main.js", import.meta.url));
const SERVER = fileURLToPath(new URL("./many-tools-server.js", import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs the built CLI to completion, timed (killed after 60 s). */
function cli(args: readonly string[]): Promise<Run> {
  const started = performance.now();
  return new Promise<Run>((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Uint8Array) => (stdout += new TextDecoder().decode(chunk)));
    child.stderr.on("data", (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`mcp-engine ${args.join(" ")} did not finish; stdout: ${stdout.slice(-2000)}; stderr: ${stderr.slice(-2000)}`));
    }, 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
  });
}

test("CLI-03: --run-timeout takes a positive whole number of milliseconds, 120 s by default, and the usage says so", () => {
  const given = parseArgs(["client", "--run-timeout", "2000", "--", "node"]);
  assert.ok(given.ok && given.options.runTimeoutMs === 2000);
  const byDefault = parseArgs(["client", "--", "node"]);
  assert.ok(byDefault.ok && byDefault.options.runTimeoutMs === DEFAULT_RUN_TIMEOUT_MS && DEFAULT_RUN_TIMEOUT_MS === 120_000);
  for (const bad of ["0", "-5", "1.5", "soon", ""]) {
    const refused = parseArgs(["client", `--run-timeout=${bad}`, "--", "node"]);
    assert.ok(!refused.ok && /--run-timeout takes a positive whole number of milliseconds/.test(refused.problem), bad);
  }
  assert.match(USAGE, /--run-timeout MS/);
  assert.match(USAGE, /3 the run budget \(--run-timeout\) ran out/);
  assert.equal(REPORT_MAX_ITEMS, 100);
  // A run stopped by its budget exits 3 whatever it found; otherwise a FAIL is 1.
  assert.equal(exitCode({ passed: 3, warned: 0, skipped: 0, failed: 0, stopped: true }), 3);
  assert.equal(exitCode({ passed: 3, warned: 0, skipped: 0, failed: 2, stopped: true }), 3);
  assert.equal(exitCode({ passed: 3, warned: 0, skipped: 0, failed: 2 }), 1);
});

test("CLI-03: 500 tools answering in 1 s each: the run ends within its 2 s budget, says so, closes the server and exits 3", async () => {
  const run = await cli([
    "client",
    "--run-timeout",
    "2000",
    "--timeout",
    "30000",
    "--",
    process.execPath,
    SERVER,
    "--serve",
    "--items",
    "500",
    "--delay",
    "1000",
  ]);
  const context = `after ${Math.round(run.ms)} ms, exit ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
  assert.equal(run.code, 3, context);
  // The budget, the server's close (it exits when its stdin closes) and the process's own start and end.
  assert.ok(run.ms < 6000, context);
  const lines = run.stdout.trimEnd().split("\n");
  assert.match(run.stdout, /^PASS {2}tools\/list: 500 tools$/m, context);
  assert.match(
    run.stdout,
    /^SKIP {2}tools\/call \(400 more\): not tried: the report exercises the first 100 of the 500 tools listed \(CLI-03\)$/m,
    context,
  );
  // One or two calls made it within the budget; the one in flight was cancelled, not graded.
  const calls = lines.filter((l) => /^PASS {2}tools\/call tool_\d+:/.test(l)).length;
  assert.ok(calls >= 1 && calls <= 2, context);
  assert.doesNotMatch(run.stdout, /^FAIL/m, context);
  assert.match(lines.at(-2) ?? "", /^STOP {2}run budget: 2000 ms \(--run-timeout\) ran out before the report was done; /, context);
  assert.match(lines.at(-1) ?? "", /^\d+ passed, 0 warned, 1 skipped, 0 failed$/, context);
});

test("CLI-03: 150 tools, resources and prompts: the first 100 of each are tried, the rest named in a SKIP line; exit 0", async () => {
  const run = await cli(["client", "--", process.execPath, SERVER, "--serve", "--items", "150"]);
  const context = `exit ${run.code}\nstdout:\n${run.stdout.slice(0, 3000)}\nstderr:\n${run.stderr}`;
  assert.equal(run.code, 0, context);
  const count = (pattern: RegExp): number => run.stdout.split("\n").filter((l) => pattern.test(l)).length;
  assert.equal(count(/^PASS {2}tools\/call tool_\d+:/), 100, context);
  assert.equal(count(/^PASS {2}resources\/read test:\/\/r\/\d+:/), 100, context);
  assert.equal(count(/^PASS {2}prompts\/get prompt_\d+:/), 100, context);
  for (const [method, what] of [
    ["tools/call", "tools"],
    ["resources/read", "resources"],
    ["prompts/get", "prompts"],
  ])
    assert.ok(
      run.stdout.includes(`SKIP  ${method} (50 more): not tried: the report exercises the first 100 of the 150 ${what} listed (CLI-03)`),
      `${method}\n${context}`,
    );
  assert.doesNotMatch(run.stdout, /^STOP/m, context);
});
