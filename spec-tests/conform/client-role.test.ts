// The client role of `mcp-engine conform` (lib/cli/conform/client-replay.ts, fixtures/FORMAT.md
// "Client role"): the runner plays the server of the client fixtures through the relay a client
// runs as its server command; our reference client passes what it is judged on, a client
// breaking one rule is failed by that rule, and cases a black-box client cannot meet are
// reported not-applicable with their need.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { clientNotApplicable, exercisedCapabilities, runClientConformance } from "../../lib/cli/conform/client-replay.js";
import type { FixtureHeader } from "../../lib/cli/conform/fixtures.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const main = join(root, "dist", "lib", "cli", "main.js");
const badClient = join(root, "dist", "spec-tests", "conform", "bad-client.js");
const fixturesDir = join(root, "fixtures");

test("G-02: the reference client answers every ping of client/ping/every-phase, at each version, through the relay", async () => {
  const cases = await runClientConformance(process.execPath, [main, "client", "--era", "session", "--"], {
    fixturesDir,
    only: "client/ping/every-phase",
    timeoutMs: 3000,
  });
  assert.equal(cases.length, 4);
  for (const c of cases) assert.equal(c.outcome, "passed", `${c.fixture}@${c.version}: ${c.reason ?? ""}`);
});

test("G-02: a client answering ping with a non-empty result fails by that rule; a correct one passes", async () => {
  const run = (fault: string[]) =>
    runClientConformance(process.execPath, [badClient, "--client", ...fault], {
      fixturesDir,
      only: "client/ping/every-phase",
      timeoutMs: 2000,
    });
  const bad = await run(["--fault", "wrong-pong"]);
  assert.ok(bad.length > 0);
  for (const c of bad) {
    assert.equal(c.outcome, "failed", `${c.fixture}@${c.version}`);
    assert.equal(c.failedRule, "G-02");
    assert.match(c.reason ?? "", /pong/);
  }
  const good = await run([]);
  for (const c of good) assert.equal(c.outcome, "passed", `${c.fixture}@${c.version}: ${c.reason ?? ""}`);
});

test("G-02: a client that never starts its server command is not judged, within the startup bound", async () => {
  const started = Date.now();
  const cases = await runClientConformance(process.execPath, [badClient, "--client", "--fault", "no-server"], {
    fixturesDir,
    only: "client/ping/every-phase",
    timeoutMs: 1000,
    concurrency: 4,
  });
  for (const c of cases) {
    assert.equal(c.outcome, "not-applicable");
    assert.match(c.reason ?? "", /server command/);
  }
  assert.ok(Date.now() - started < 30_000);
});

const header = (requires: FixtureHeader["requires"]): FixtureHeader => ({
  fixture: "client/x/y",
  role: "client",
  versions: ["2025-11-25"],
  rules: ["G-02"],
  ...(requires !== undefined ? { requires } : {}),
});

test("a black-box client is judged only on cases whose one host command is its own initialize", () => {
  assert.equal(clientNotApplicable(header({ host: ["initialize"], era: "session" })), undefined);
  assert.match(clientNotApplicable(header({ host: ["initialize", "request"], era: "session" })) ?? "", /host command request/);
  assert.match(clientNotApplicable(header({ host: ["request", "startModern"], era: "modern" })) ?? "", /2026-07-28/);
  assert.match(clientNotApplicable(header({ host: ["initialize"], era: "session", config: ["limits"] })) ?? "", /limits/);
  assert.match(clientNotApplicable(header({ host: ["initialize"], era: "session", clock: true })) ?? "", /clock/);
});

test("C-01: the capabilities a case's server requests exercise are those its verdict depends on", () => {
  const steps = [
    { in: { jsonrpc: "2.0", id: 1, method: "elicitation/create", params: {} } },
    { in: { jsonrpc: "2.0", id: 2, method: "sampling/createMessage", params: { task: {} } } },
    { in: { jsonrpc: "2.0", method: "notifications/roots/list_changed" } },
    { in: [{ jsonrpc: "2.0", id: 3, method: "roots/list" }] },
  ];
  assert.deepEqual([...exercisedCapabilities(steps)].sort(), ["elicitation", "roots", "sampling", "tasks"]);
});

test("conform --role client refuses a URL and --adapter as bad usage (exit 2)", () => {
  for (const args of [
    ["--role", "client", "http://127.0.0.1:1/mcp"],
    ["--role", "client", "--adapter", "--", process.execPath],
  ]) {
    const run = spawnSync(process.execPath, [main, "conform", ...args], { encoding: "utf8", timeout: 20_000 });
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /--role client/);
  }
});
