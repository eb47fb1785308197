// The client role of `mcp-engine conform` over Streamable HTTP (lib/cli/conform/client-http-target.ts,
// fixtures/FORMAT.md "Client role"): the runner serves each case at a loopback URL it appends to
// the client's command. Our reference client passes every case that applies over HTTP; a client
// breaking one rule (a wrong id, a dropped session id or version header) fails by that rule; a
// client that never connects gets its verdict within the startup bound; stdio-only cases are
// not applicable with the reason.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { httpNotApplicable, runClientConformance } from "../../lib/cli/conform/client-replay.js";
import type { CaseResult } from "../../lib/cli/conform/types.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const main = join(root, "dist", "lib", "cli", "main.js");
const badClient = join(root, "dist", "spec-tests", "conform", "bad-client.js");
const fixturesDir = join(root, "fixtures");

const failures = (cases: readonly CaseResult[]): string[] =>
  cases.filter((c) => c.outcome === "failed").map((c) => `${c.fixture}@${c.version} ${c.failedRule ?? ""}: ${c.reason ?? ""}`);

test("HTTP-01, HTTP-03, L-07, M-09: the reference client over HTTP fails no client case, and is judged on the session-era ones", async () => {
  const cases = await runClientConformance(process.execPath, [main, "client", "--era", "session"], {
    fixturesDir,
    transport: "http",
    timeoutMs: 3000,
  });
  assert.deepEqual(failures(cases), []);
  const passed = cases.filter((c) => c.outcome === "passed");
  assert.ok(passed.length >= 40, `only ${passed.length} cases passed`);
  for (const c of cases) assert.equal(c.transport, "http");
  const batches = passed.filter((c) => c.fixture.startsWith("client/batching/"));
  assert.ok(batches.length > 0, "the batching cases are judged over HTTP");
});

test("G-02 over HTTP: client/ping/every-phase passes at each version with Streamable HTTP; 2024-11-05 is stdio only", async () => {
  const cases = await runClientConformance(process.execPath, [badClient, "--client"], {
    fixturesDir,
    transport: "http",
    only: "client/ping/every-phase",
    timeoutMs: 2000,
  });
  assert.equal(cases.length, 4);
  for (const c of cases) {
    if (c.version === "2024-11-05") {
      assert.equal(c.outcome, "not-applicable");
      assert.match(c.reason ?? "", /HTTP\+SSE/);
    } else assert.equal(c.outcome, "passed", `${c.fixture}@${c.version}: ${c.reason ?? ""}`);
  }
});

/** The bad client with one fault, over HTTP, on the ping fixture (three cases: 2025-03-26 on). */
const faulty = (fault: string, timeoutMs = 2000) =>
  runClientConformance(process.execPath, [badClient, "--client", "--fault", fault], {
    fixturesDir,
    transport: "http",
    only: "client/ping/every-phase",
    timeoutMs,
    concurrency: 3,
  }).then((cases) => cases.filter((c) => c.outcome !== "not-applicable" || !/HTTP\+SSE/.test(c.reason ?? "")));

test("ID-04 over HTTP: a client answering a ping with an id the server never sent fails by that rule", async () => {
  const cases = await faulty("wrong-id");
  assert.equal(cases.length, 3);
  for (const c of cases) {
    assert.equal(c.outcome, "failed", `${c.fixture}@${c.version}`);
    assert.equal(c.failedRule, "ID-04");
  }
});

test("HTTP-03: a client that does not send back the session id assigned with the initialize result fails by that rule", async () => {
  const cases = await faulty("no-session");
  for (const c of cases) {
    assert.equal(c.outcome, "failed", `${c.fixture}@${c.version}`);
    assert.equal(c.failedRule, "HTTP-03");
    assert.match(c.reason ?? "", /Mcp-Session-Id/);
  }
});

test("L-07: a client without MCP-Protocol-Version after the handshake fails from 2025-06-18 on, not under 2025-03-26", async () => {
  const cases = await faulty("no-version");
  for (const c of cases) {
    if (c.version === "2025-03-26") assert.equal(c.outcome, "passed", `${c.version}: ${c.reason ?? ""}`);
    else {
      assert.equal(c.outcome, "failed", c.version);
      assert.equal(c.failedRule, "L-07");
      assert.match(c.reason ?? "", /MCP-Protocol-Version/);
    }
  }
});

test("G-02 over HTTP: a client that never connects to its URL is not judged, within the startup bound", async () => {
  const started = Date.now();
  const cases = await faulty("no-server", 1000);
  assert.equal(cases.length, 3);
  for (const c of cases) {
    assert.equal(c.outcome, "not-applicable");
    assert.match(c.reason ?? "", /connects to the URL/);
  }
  assert.ok(Date.now() - started < 30_000);
});

test("G-02 over HTTP: a client that connects and then hangs, never answering a ping, is failed by that rule within the step's timeout", async () => {
  const started = Date.now();
  const cases = await faulty("mute", 1000);
  assert.equal(cases.length, 3);
  for (const c of cases) {
    assert.equal(c.outcome, "failed", `${c.fixture}@${c.version}`);
    assert.equal(c.failedRule, "G-02");
    assert.match(c.reason ?? "", /got nothing/);
  }
  assert.ok(Date.now() - started < 30_000);
});

test("raw bytes, the end of stdin and 2024-11-05 are stdio only; an exchange of messages is judged over HTTP", () => {
  const ping = { in: { jsonrpc: "2.0", id: 1, method: "ping" } };
  assert.equal(httpNotApplicable([ping], "2025-11-25"), undefined);
  assert.match(httpNotApplicable([ping], "2024-11-05") ?? "", /HTTP\+SSE/);
  assert.match(httpNotApplicable([{ in_bytes: "{\n" }], "2025-11-25") ?? "", /raw bytes/);
  assert.match(httpNotApplicable([{ in_hex: "ff0a" }], "2025-11-25") ?? "", /raw bytes/);
  assert.match(httpNotApplicable([ping, { eof: true }], "2025-06-18") ?? "", /end of the client's stdin/);
});

test("conform --transport takes stdio or http, and http only with --role client (exit 2)", () => {
  for (const [args, problem] of [
    [["--role", "client", "--transport", "pipe", "--", process.execPath], /--transport takes stdio or http/],
    [["--transport", "http", "--", process.execPath], /--transport http is for --role client/],
  ] as const) {
    const run = spawnSync(process.execPath, [main, "conform", ...args], { encoding: "utf8", timeout: 20_000 });
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, problem);
  }
});
