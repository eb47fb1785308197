// `mcp-engine client` against servers nobody here wrote, over stdio: the npm packages
// @modelcontextprotocol/server-memory and server-sequential-thinking, and an SDK v1 McpServer
// (spec-tests/foreign/sdk-v1-server.mjs), all pinned dev dependencies. Each report must end
// with exit code 0 and no FAIL line; every WARN names its rule; nothing destructive is called.

import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { spawn } from "node:child_process";
import type { Run } from "../support/helpers.js";

const here = fileURLToPath(new URL("..", import.meta.url)); // the spec-tests folder
const MAIN = join(here, "..", "lib", "cli", "main.js");
const ROOT = join(here, "..", "..");
const MEMORY = join(ROOT, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js");
const THINKING = join(ROOT, "node_modules", "@modelcontextprotocol", "server-sequential-thinking", "dist", "index.js");
const SDK_V1 = join(ROOT, "spec-tests", "foreign", "sdk-v1-server.mjs");

/** Runs the built CLI with `env` added, to completion (killed after 60 s). */
function cli(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise<Run>((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += new TextDecoder().decode(chunk)));
    child.stderr.on("data", (chunk) => (stderr += new TextDecoder().decode(chunk)));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`mcp-engine ${args.join(" ")} did not finish; stdout: ${stdout}; stderr: ${stderr}`));
    }, 60_000);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** The graded lines of a report that must pass: exit 0, no FAIL, a rule under every WARN, the tally matching the lines. */
function assertNoFail(run: Run): string[] {
  const context = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
  assert.equal(run.code, 0, context);
  const lines = run.stdout.trimEnd().split("\n");
  assert.match(lines[0] as string, /^mcp-engine client report for: /, context);
  assert.equal(lines.filter((l) => l.startsWith("FAIL")).length, 0, context);
  lines.forEach((l, i) => {
    if (l.startsWith("WARN  "))
      assert.match(
        lines[i + 1] ?? "",
        /^ {6}rule [A-Z]+-\d+: .* \(https:\/\/modelcontextprotocol\.io\/specification\/\d{4}-\d{2}-\d{2}\/[a-z/#-]+\)$/,
        l,
      );
  });
  const graded = lines.filter((l) => /^(PASS|WARN|SKIP|FAIL) {2}/.test(l));
  const count = (grade: string): number => graded.filter((l) => l.startsWith(grade)).length;
  assert.equal(lines.at(-1), `${count("PASS")} passed, ${count("WARN")} warned, ${count("SKIP")} skipped, 0 failed`, context);
  assert.match(run.stdout, /^PASS {2}protocol messages: no violation/m, context);
  return graded;
}

test("server-memory: no FAIL; its delete_* and create_* tools (and add_observations) are skipped, its memory file untouched", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cli-foreign-memory-"));
  try {
    const memoryFile = join(dir, "memory.jsonl");
    const run = await cli(["client", "--", process.execPath, MEMORY], { MEMORY_FILE_PATH: memoryFile });
    const lines = assertNoFail(run);
    for (const tool of [
      "delete_entities",
      "delete_observations",
      "delete_relations",
      "create_entities",
      "create_relations",
      "add_observations",
    ]) {
      assert.ok(
        lines.some((l) => l.startsWith(`SKIP  tools/call ${tool}: not called: `)),
        `${tool} skipped:\n${run.stdout}`,
      );
    }
    for (const tool of ["read_graph", "search_nodes", "open_nodes"])
      assert.ok(
        lines.some((l) => l.startsWith(`PASS  tools/call ${tool}: result`)),
        tool,
      );
    assert.equal(existsSync(memoryFile), false, "nothing was written");
    // Every WARN is one the spec allows: the unknown tool as an isError result, -32602 for an unknown resource.
    assert.deepEqual(
      lines.filter((l) => l.startsWith("WARN")).map((l) => l.split(":")[0]),
      ["WARN  tools/call unknown tool", "WARN  resources/read unknown"],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("server-memory with --call-destructive: the create_* tools are called (into the temporary memory file)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cli-foreign-memory-"));
  try {
    const memoryFile = join(dir, "memory.jsonl");
    const lines = assertNoFail(
      await cli(["client", "--call-destructive", "--", process.execPath, MEMORY], { MEMORY_FILE_PATH: memoryFile }),
    );
    for (const tool of ["create_entities", "delete_entities"])
      assert.ok(
        lines.some((l) => l.startsWith(`PASS  tools/call ${tool}: `)),
        tool,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("server-sequential-thinking: no FAIL; its tool is called with arguments its schema accepts", async () => {
  const lines = assertNoFail(await cli(["client", "--", process.execPath, THINKING]));
  // An integer thoughtNumber and a boolean nextThoughtNeeded: the server answers with a plain result, not a validation error.
  assert.ok(
    lines.some((l) => /^PASS {2}tools\/call sequentialthinking: result: .*thoughtNumber/.test(l)),
    lines.join("\n"),
  );
});

test("an SDK v1 McpServer: no FAIL; the integer tool gets an integer, the destructive tool is not called", async () => {
  const run = await cli(["client", "--", process.execPath, SDK_V1]);
  const lines = assertNoFail(run);
  assert.ok(lines.includes('PASS  tools/call get_resource_by_id: result: 1 block(s), "record 1"'), run.stdout);
  assert.ok(
    lines.some((l) => l.startsWith('PASS  tools/call describe_shape: result: 1 block(s), "circle of ')),
    run.stdout,
  );
  assert.ok(
    lines.some((l) => l.startsWith("SKIP  tools/call purge_records: not called: its annotations say destructiveHint: true")),
    run.stdout,
  );
  assert.doesNotMatch(run.stderr, /DESTRUCTIVE TOOL CALLED/);
  assert.ok(lines.some((l) => l.startsWith("PASS  resources/read fixture://greeting")));
  assert.ok(lines.some((l) => l.startsWith("PASS  prompts/get summarize")));
  assert.ok(lines.some((l) => l.startsWith("WARN  tools/call unknown tool: answered with an isError result")));

  // And with --call-destructive it is called: the SKIP above is the flag's doing.
  const destructive = await cli(["client", "--call-destructive", "--", process.execPath, SDK_V1]);
  assertNoFail(destructive);
  assert.match(destructive.stderr, /DESTRUCTIVE TOOL CALLED: purge_records/);
});
