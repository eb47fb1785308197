// End to end over real child processes: the two eras of 2026-07-28 across a process boundary.
// The `mcp-engine` command in both eras (demo auto and --era session, client --era modern), a
// session-era-only client against the dual-era reference server, and a modern-only and an
// auto client against a server that speaks only the session era
// (fixtures-servers/session-only-server.ts, which copies what it receives to stderr).
//
// Every wait is bounded (withTimeout, runNode's kill timer) and waits for an event.

import { test } from "node:test";
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { StdioClient, type StdioClientOptions } from "../../lib/hosts/stdio.js";
import { McpError } from "../../lib/peer/shared/errors.js";
import { MODERN_VERSIONS, SESSION_VERSIONS } from "../../lib/rules/versions.js";
import { type Run, firstText, runNode, withTimeout } from "../support/helpers.js";

const here = dirname(dirname(fileURLToPath(import.meta.url))); // the spec-tests folder
const MAIN = join(here, "..", "lib", "cli", "main.js");
const SESSION_ONLY = join(here, "fixtures-servers", "session-only-server.js");

/**
 * A report of `mcp-engine client`/`demo` that passed: exit 0, its first check (initialize)
 * names the era, every check passed and the last line counts them. Returns the check lines.
 */
function assertCleanReport(run: Run, era: "modern era" | "session era", minChecks: number): string[] {
  const context = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
  assert.equal(run.code, 0, `exit code; ${context}`);
  const lines = run.stdout.trimEnd().split("\n");
  assert.match(lines[0] as string, /^mcp-engine client report for: /, context);
  const first = lines[1] as string;
  assert.match(first, /^PASS {2}initialize: /, context);
  assert.ok(first.includes(era), `the first check names the ${era}: ${JSON.stringify(first)}`);
  assert.ok(!first.includes(era === "modern era" ? "session era" : "modern era"), first);
  const last = lines[lines.length - 1] as string;
  const match = /^(\d+) passed, 0 warned, (\d+) skipped, 0 failed$/.exec(last);
  assert.ok(match !== null, `last line ${JSON.stringify(last)}; ${context}`);
  const checks = lines.slice(1, -1);
  const passes = checks.filter((l) => l.startsWith("PASS  "));
  // The only SKIPs: tools whose names say they change something (test_trigger_*_change, confirm_delete), the
  // roots tools when no --root was given (-32021 from the server), and logging from a server
  // that declared it but sent none.
  const skips = checks.filter((l) =>
    /^SKIP {2}(tools\/call (test_trigger_\w+_change|confirm_delete): not called: its name suggests|tools\/call test_input_required_result_\w+: the tool needs a client capability this run does not declare \{"roots"|logging: no log messages were sent)/.test(
      l,
    ),
  );
  assert.equal(passes.length + skips.length, checks.length, `only PASS lines and the expected SKIPs; ${context}`);
  assert.equal(Number(match[1]), passes.length);
  assert.equal(Number(match[2]), skips.length);
  assert.ok(passes.length >= minChecks, `${passes.length} checks`);
  assert.doesNotMatch(run.stderr, /\[(violation|diagnostic)\]/, "no protocol diagnostics");
  return checks;
}

/** The methods a fixture server received, from its "<< " stderr copy. */
function receivedMethods(stderr: string): string[] {
  return stderr
    .split("\n")
    .filter((l) => l.startsWith("<< "))
    .map((l) => String((JSON.parse(l.slice(3)) as { method?: unknown }).method));
}

function spawnClient(
  command: string,
  args: readonly string[],
  extra: Partial<StdioClientOptions>,
  stderr: { text: string },
): Promise<StdioClient> {
  return StdioClient.spawn({
    command,
    args,
    info: { name: "e2e-modern-test", version: "0.0.0" },
    connectTimeoutMs: 10_000,
    defaultTimeoutMs: 10_000,
    stderr: (text) => (stderr.text += text),
    ...extra,
  });
}

// ── 1. the command in both eras ─────────────────────────────────────────────────────

test("`mcp-engine demo` (era auto) speaks 2026-07-28: the report says modern era and passes", async () => {
  const checks = assertCleanReport(await runNode([MAIN, "demo"]), "modern era", 30);
  assert.match(checks[0] as string, /protocol 2026-07-28 \(modern era/);
  // Modern-only checks, and none of the session-only ones.
  assert.ok(checks.some((l) => l.startsWith("PASS  server/discover: ")));
  assert.ok(checks.some((l) => /^PASS {2}subscriptions\/listen .*acknowledged/.test(l)));
  assert.ok(
    checks.some((l) => /^PASS {2}tools\/call test_elicitation: .*action=accept/.test(l)),
    "elicitation over input_required rounds",
  );
  assert.ok(
    checks.some((l) => /^PASS {2}tools\/call test_sampling: .*LLM response/.test(l)),
    "sampling over input_required rounds",
  );
  assert.ok(
    checks.some((l) => /^PASS {2}logging: [1-9]\d* log message/.test(l)),
    "per-request logging delivered",
  );
  assert.ok(!checks.some((l) => /^PASS {2}(ping|logging\/setLevel|resources\/subscribe)/.test(l)));
});

test("`mcp-engine demo --era session` initializes: the report says session era and passes", async () => {
  const checks = assertCleanReport(await runNode([MAIN, "demo", "--era", "session"]), "session era", 30);
  assert.match(checks[0] as string, /protocol 2025-11-25 \(session era/);
  assert.ok(checks.some((l) => l.startsWith("PASS  ping: ")));
  assert.ok(checks.some((l) => l.startsWith("PASS  logging/setLevel: ")));
  assert.ok(checks.some((l) => l.startsWith("PASS  resources/subscribe ")));
  assert.ok(!checks.some((l) => l.startsWith("PASS  server/discover")));
});

test("`mcp-engine client --era modern -- node main.js serve` passes in the modern era", async () => {
  const run = await runNode([MAIN, "client", "--era", "modern", "--", process.execPath, MAIN, "serve"]);
  const checks = assertCleanReport(run, "modern era", 30);
  assert.match(checks[0] as string, /protocol 2026-07-28/);
});

test("`mcp-engine demo --era bogus` is refused with the usage (exit 2)", async () => {
  const run = await runNode([MAIN, "demo", "--era", "bogus"], 5000);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--era takes auto, session or modern; got "bogus"/);
  assert.equal(run.stdout, "");
});

// ── 2. a session-era-only client against the dual-era server ────────────────────────

test("a session-era-only client against `mcp-engine serve`: initialize, tools/call and ping work", async () => {
  const stderr = { text: "" };
  const connection = await withTimeout(
    spawnClient(process.execPath, [MAIN, "serve"], { versions: [...SESSION_VERSIONS] }, stderr),
    15_000,
    "spawn",
  );
  try {
    assert.equal(connection.server.era, "session");
    assert.equal(connection.server.version, "2025-11-25");
    assert.equal(connection.server.serverInfo.name, "mcp-engine-reference-server");
    const result = await withTimeout(connection.client.callTool("test_simple_text", {}), 5000, "tools/call");
    assert.equal(firstText(result), "This is a simple text response for testing.");
    await withTimeout(connection.client.ping(), 5000, "ping");
    assert.equal(connection.client.engine.era, "session");
  } finally {
    await withTimeout(connection.close(), 10_000, "close");
  }
  assert.equal(connection.child.exitCode, 0);
});

// ── 3. clients of 2026-07-28 against a session-only server ──────────────────────────

test("a modern-only client against a session-only server: connect rejects plainly, and initialize is never sent", async () => {
  const stderr = { text: "" };
  const started = Date.now();
  const error = await withTimeout(
    spawnClient(process.execPath, [SESSION_ONLY, "--serve"], { versions: [...MODERN_VERSIONS], shutdownGraceMs: 2000 }, stderr).then(
      () => assert.fail("connect resolved"),
      (e: unknown) => e,
    ),
    15_000,
    "spawn",
  );
  assert.ok(error instanceof McpError, String(error));
  assert.equal(error.code, -32601);
  assert.match(
    error.message,
    /server\/discover refused: the server does not seem to speak 2026-07-28, and this client speaks no session-era version to fall back to initialize/,
  );
  assert.ok(Date.now() - started < 10_000, "refused without waiting for a timeout");
  assert.deepEqual(receivedMethods(stderr.text), ["server/discover"], stderr.text);

  // The same through the command: exit 2 with the refusal on the initialize line.
  const run = await runNode([MAIN, "client", "--era", "modern", "--", process.execPath, SESSION_ONLY, "--serve"]);
  assert.equal(run.code, 2, `stdout: ${run.stdout}; stderr: ${run.stderr}`);
  assert.match(run.stdout, /^FAIL {2}initialize: MCP error -32601: .*does not seem to speak 2026-07-28/m);
  assert.deepEqual(
    receivedMethods(
      run.stderr
        .split("\n")
        .map((l) => l.replace(/^\[server\] /, ""))
        .join("\n"),
    ),
    ["server/discover"],
  );
});

test("an auto client against a session-only server falls back to initialize and reports the session era", async () => {
  const stderr = { text: "" };
  const connection = await withTimeout(
    spawnClient(process.execPath, [SESSION_ONLY, "--serve"], { versions: [...SESSION_VERSIONS, ...MODERN_VERSIONS] }, stderr),
    15_000,
    "spawn",
  );
  try {
    assert.equal(connection.server.era, "session");
    assert.equal(connection.server.version, "2025-11-25");
    assert.equal(connection.server.serverInfo.name, "session-only-fixture");
    assert.equal(firstText(await withTimeout(connection.client.callTool("echo", { value: "fell back" }), 5000, "echo")), "fell back");
    await withTimeout(connection.client.ping(), 5000, "ping");
  } finally {
    await withTimeout(connection.close(), 10_000, "close");
  }
  assert.deepEqual(
    receivedMethods(stderr.text),
    ["server/discover", "initialize", "notifications/initialized", "tools/call", "ping"],
    stderr.text,
  );

  // The command (era auto by default) reports the session era and passes.
  const run = await runNode([MAIN, "client", "--", process.execPath, SESSION_ONLY, "--serve"]);
  const checks = assertCleanReport(run, "session era", 5);
  assert.match(checks[0] as string, /^PASS {2}initialize: session-only-fixture 0\.0\.0, protocol 2025-11-25 \(session era/);
  assert.ok(checks.some((l) => l.startsWith("PASS  tools/call echo: ")));
});
