// End to end over real child processes on stdio: the reference client against the reference
// server (in-process report and the `mcp-engine` command), a handler that never settles,
// cancellation across the process boundary, a server killed or exiting mid-request, stray
// non-JSON output, and S-02 shutdown (stdin close, then SIGTERM, then SIGKILL).
//
// Servers the reference server cannot play are in fixtures-servers/test-server.ts. Every wait
// is bounded (withTimeout) and waits for an event, never for a fixed time.

import { test } from "node:test";
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { StdioClient, type StdioClientOptions } from "../../lib/hosts/stdio.js";
import type { Client } from "../../lib/peer/client/client.js";
import type { ClientOptions } from "../../lib/peer/client/client-options.js";
import { ConnectionClosedError, RequestAbortedError, RequestTimeoutError } from "../../lib/peer/shared/errors.js";
import { PeerAbortController } from "../../lib/peer/shared/signal.js";
import {
  REFERENCE_CLIENT_INFO,
  installReferenceHandlers,
  referenceClientCapabilities,
  runReport,
  type CheckResult,
} from "../../lib/cli/reference-client.js";
import { createReferenceServer } from "../../lib/cli/reference-server.js";
import { type Run, firstText, runNode, sleep, withTimeout } from "../support/helpers.js";

const here = dirname(dirname(fileURLToPath(import.meta.url))); // the spec-tests folder
const MAIN = join(here, "..", "lib", "cli", "main.js");
const FIXTURE = join(here, "fixtures-servers", "test-server.js");

type Diagnostic = Parameters<NonNullable<ClientOptions["onDiagnostic"]>>[0];

// ── helpers ─────────────────────────────────────────────────────────────────────────

/** Settles with the outcome of `promise` without letting a rejection go unhandled meanwhile. */
function outcome<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

interface Harness {
  connection: StdioClient;
  client: Client;
  diagnostics: Diagnostic[];
  /** Lines the server wrote to stdout after initialization, as raw text. */
  wire: string[];
  stderr(): string;
  /** Resolves once the server's stderr contains `text`. */
  waitForStderr(text: string, ms?: number): Promise<void>;
}

async function spawnServer(command: string, args: readonly string[], extra: Partial<StdioClientOptions> = {}): Promise<Harness> {
  const diagnostics: Diagnostic[] = [];
  let stderrText = "";
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  const connection = await StdioClient.spawn({
    command,
    args,
    info: { name: "e2e-stdio-test", version: "0.0.0" },
    connectTimeoutMs: 10_000,
    defaultTimeoutMs: 10_000,
    onDiagnostic: (event) => diagnostics.push(event),
    stderr: (text) => {
      stderrText += text;
      for (const w of [...waiters]) {
        if (stderrText.includes(w.text)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    },
    ...extra,
  });
  const wire: string[] = [];
  let partial = "";
  const decoder = new TextDecoder();
  connection.child.stdout.on("data", (chunk) => {
    const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
    partial = lines.pop() as string;
    wire.push(...lines);
  });
  return {
    connection,
    client: connection.client,
    diagnostics,
    wire,
    stderr: () => stderrText,
    waitForStderr: (text, ms = 5000) =>
      withTimeout(
        new Promise<void>((resolve) => {
          if (stderrText.includes(text)) resolve();
          else waiters.push({ text, resolve });
        }),
        ms,
        `waiting for ${JSON.stringify(text)} on the server's stderr (got ${JSON.stringify(stderrText)})`,
      ),
  };
}

function spawnFixture(flags: readonly string[] = [], extra: Partial<StdioClientOptions> = {}): Promise<Harness> {
  return spawnServer(process.execPath, [FIXTURE, "--serve", ...flags], extra);
}

/**
 * The report lines of `mcp-engine client`/`demo` against the reference server: no FAIL, no
 * WARN, the summary counts the lines, and the only SKIPs are the tools whose names say they
 * change something (test_trigger_*_change, confirm_delete) and, without --root, those that need roots.
 */
function assertCleanReport(run: Run): void {
  assert.equal(run.code, 0, `exit code; stdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
  const lines = run.stdout.trimEnd().split("\n");
  const last = lines[lines.length - 1] as string;
  const match = /^(\d+) passed, 0 warned, (\d+) skipped, 0 failed$/.exec(last);
  assert.ok(match !== null, `last line ${JSON.stringify(last)}`);
  const passes = lines.filter((l) => l.startsWith("PASS  ")).length;
  assert.equal(Number(match[1]), passes);
  assert.ok(passes > 30, `${passes} checks`);
  const skips = lines.filter((l) => l.startsWith("SKIP  "));
  assert.equal(Number(match[2]), skips.length);
  for (const skip of skips) {
    assert.match(
      skip,
      /^SKIP {2}tools\/call (test_trigger_\w+_change: not called: its name suggests it changes something \("change"\)|confirm_delete: not called: its name suggests it changes something \("delete"\)|test_input_required_result_\w+: the tool needs a client capability this run does not declare \{"roots")/,
    );
  }
  assert.equal(lines.filter((l) => /^(FAIL|WARN)/.test(l)).length, 0);
  assert.doesNotMatch(run.stderr, /\[(violation|diagnostic)\]/, "no protocol diagnostics");
}

// ── 1. the reference server through the reference client ────────────────────────────

test("reference client against `mcp-engine serve`: every check passes and every feature is exercised", async () => {
  const roots = [{ uri: "file:///nonexistent/e2e-root", name: "e2e-root" }];
  const h = await spawnServer(process.execPath, [MAIN, "serve"], {
    info: REFERENCE_CLIENT_INFO,
    capabilities: referenceClientCapabilities(roots),
  });
  installReferenceHandlers(h.client, roots);
  const checks: CheckResult[] = [];
  // Destructive-looking tools too: every tool of the reference server is exercised.
  const { passed, failed } = await withTimeout(
    runReport(h.client, { print: (c) => checks.push(c), sleep, callDestructiveTools: true }),
    15_000,
    "runReport",
  );
  await withTimeout(h.connection.close(), 5000, "close");

  const failures = checks.filter((c) => c.grade !== "PASS");
  assert.equal(failed, 0, `failed checks: ${JSON.stringify(failures)}`);
  assert.equal(passed, checks.length, `checks not passed: ${JSON.stringify(failures)}`);
  assert.deepEqual(h.diagnostics, []);

  const byName = new Map(checks.map((c) => [c.name, c]));
  const expect = (name: string): CheckResult => {
    const check = byName.get(name);
    assert.ok(check !== undefined, `check ${JSON.stringify(name)} missing; got ${[...byName.keys()].join(" | ")}`);
    return check;
  };
  // What the reference server registers, read from its own registries.
  const reference = createReferenceServer({ paginationSecret: new Uint8Array(32), sleep: () => Promise.resolve() });
  assert.ok(reference.tools.size >= 16);
  for (const name of reference.tools.keys()) expect(`tools/call ${name}`);
  for (const uri of reference.resources.keys()) expect(`resources/read ${uri}`);
  for (const uriTemplate of reference.templates.keys())
    assert.match(expect(`resources/read ${uriTemplate}`).detail, /^test:\/\/template\/123\/data: 1 content/);
  for (const name of reference.prompts.keys()) expect(`prompts/get ${name}`);
  for (const name of [
    "initialize",
    "ping",
    "logging/setLevel",
    "tools/list",
    "tools/call unknown tool",
    "resources/list",
    "resources/templates/list",
    "resources/read unknown",
    "prompts/list",
  ])
    expect(name);
  assert.equal(expect("tools/list").detail, `${reference.tools.size} tools`);
  assert.match(expect("tools/call test_error_handling").detail, /^isError result/);
  assert.match(expect("tools/call test_simple_text").detail, /^result: 1 block\(s\), "This is a simple text response/);
  assert.match(expect("tools/call test_sampling").detail, /LLM response: This is a test response/);
  assert.match(expect("tools/call test_elicitation").detail, /action=accept/);
  assert.match(expect("progress").detail, /^3 notifications: 0, 50, 100$/);
  assert.match(expect("cancellation").detail, /cancelled; the server still answers/);
  assert.match(expect("logging").detail, /^[1-9]\d* log message/);
  assert.ok(
    checks.some((c) => c.name.startsWith("resources/subscribe ")),
    "subscribe check",
  );
  assert.match(checks.find((c) => c.name.startsWith("completion/complete "))?.detail ?? "", /^[1-9]\d* value\(s\)/);

  // S-02 with a well-behaved server: it left on stdin close, before any signal.
  assert.equal(h.connection.child.exitCode, 0);
  assert.equal(h.connection.child.signalCode, null);
});

test('`mcp-engine demo` exits 0 and ends with "N passed, 0 failed"', async () => {
  assertCleanReport(await runNode([MAIN, "demo"]));
});

test('`mcp-engine client -- node main.js serve` exits 0 and ends with "N passed, 0 failed"', async () => {
  const run = await runNode([MAIN, "client", "--", process.execPath, MAIN, "serve"]);
  assertCleanReport(run);
  assert.match(run.stdout, /^mcp-engine client report for: /);
});

test("`mcp-engine client` without a command exits 2 with one line on stderr: the cause and where the usage is", async () => {
  for (const args of [["client"], ["client", "--"]]) {
    const run = await runNode([MAIN, ...args], 5000);
    assert.equal(run.code, 2, args.join(" "));
    assert.equal(run.stderr, "mcp-engine client: client needs a server: -- <command...> or a URL (see mcp-engine client --help)\n");
    assert.equal(run.stdout, "");
  }
});

test("`mcp-engine client -- /nonexistent/binary` exits 2 at once, naming the failure", async () => {
  const started = performance.now();
  const run = await runNode([MAIN, "client", "--", "/nonexistent/binary"], 5000);
  assert.equal(run.code, 2, `stdout: ${run.stdout}; stderr: ${run.stderr}`);
  assert.match(run.stdout, /^FAIL {2}initialize: .*ENOENT/m);
  assert.ok(performance.now() - started < 4000, "no shutdown wait for a process that never started");
});

// ── 2. concurrency across the process boundary ──────────────────────────────────────

test("a handler that never settles delays neither ping nor other calls", async () => {
  const h = await spawnFixture();
  const hung = outcome(h.client.callTool("hang", {}, { timeoutMs: Infinity }));
  let hungSettled = false;
  void hung.then(() => (hungSettled = true));

  await withTimeout(h.client.ping({ timeoutMs: 5000 }), 6000, "ping");
  assert.equal(firstText(await withTimeout(h.client.callTool("echo", { value: "still here" }), 6000, "echo")), "still here");

  // Twenty calls in flight at once, answered in reverse order of sending: each gets its own answer.
  const values = Array.from({ length: 20 }, (_, i) => `value-${i}`);
  const answers = await withTimeout(
    Promise.all(values.map((value, i) => h.client.callTool("echo", { value, delayMs: (20 - i) * 5 }))),
    6000,
    "echo x20",
  );
  assert.deepEqual(answers.map(firstText), values);
  assert.equal(hungSettled, false);

  await withTimeout(h.connection.close(), 5000, "close");
  const end = await withTimeout(hung, 1000, "the hung call after close");
  assert.ok(!end.ok && end.error instanceof ConnectionClosedError, String(end.ok ? "resolved" : end.error));
  assert.deepEqual(h.diagnostics, []);
  assert.equal(h.connection.child.exitCode, 0, "the server left on stdin close although a handler never settled");
});

// ── 3. cancellation across the process boundary ─────────────────────────────────────

test("aborting a call cancels the server's handler; the cancelled id is never answered", async () => {
  const h = await spawnFixture();
  const controller = new PeerAbortController();
  const call = outcome(h.client.callTool("wait_for_cancel", { tag: "c1" }, { signal: controller.signal, timeoutMs: 10_000 }));
  await h.waitForStderr("started c1");
  controller.abort("the test cancels");
  const end = await withTimeout(call, 1000, "the aborted call");
  assert.ok(!end.ok && end.error instanceof RequestAbortedError, String(end.ok ? "resolved" : end.error));
  assert.equal(end.error.reason, "the test cancels");

  // The handler saw its signal abort, with the client's reason...
  await h.waitForStderr("aborted c1: the test cancels");
  const seen = await withTimeout(h.client.callTool("cancellations_seen"), 5000, "cancellations_seen");
  assert.deepEqual(JSON.parse(firstText(seen)), ["aborted c1: the test cancels"]);
  // ...and although it resolved, nothing was sent for the cancelled request.
  await withTimeout(h.client.ping(), 5000, "ping");
  assert.ok(h.wire.length >= 2, `wire: ${h.wire.join("\n")}`);
  for (const line of h.wire) assert.doesNotMatch(line, /answer to the cancelled call/);

  // A timeout cancels the server's handler the same way.
  const timed = await outcome(h.client.callTool("wait_for_cancel", { tag: "c2" }, { timeoutMs: 150 }));
  assert.ok(!timed.ok && timed.error instanceof RequestTimeoutError, String(timed.ok ? "resolved" : timed.error));
  await h.waitForStderr("aborted c2: timeout");
  await withTimeout(h.client.ping(), 5000, "ping");
  for (const line of h.wire) assert.doesNotMatch(line, /answer to the cancelled call/);

  assert.deepEqual(h.diagnostics, []);
  await withTimeout(h.connection.close(), 5000, "close");
  assert.equal(h.connection.child.exitCode, 0);
});

// ── 4. a server that dies mid-request ───────────────────────────────────────────────

test("a server killed mid-request: every pending request rejects with ConnectionClosedError at once, later ones too", async () => {
  const closes: string[] = [];
  const h = await spawnFixture([], { onClose: (event) => closes.push(event.reason) });
  const pending = [
    outcome(h.client.callTool("hang", {}, { timeoutMs: Infinity })),
    outcome(h.client.callTool("wait_for_cancel", { tag: "k" }, { timeoutMs: Infinity })),
    outcome(h.client.callTool("echo", { value: "late", delayMs: 60_000 }, { timeoutMs: Infinity })),
  ];
  await h.waitForStderr("started k");
  const killedAt = performance.now();
  assert.ok(h.connection.child.kill("SIGKILL"));
  const ends = await withTimeout(Promise.all(pending), 3000, "pending calls after SIGKILL");
  assert.ok(performance.now() - killedAt < 2000, "prompt");
  for (const end of ends) assert.ok(!end.ok && end.error instanceof ConnectionClosedError, String(end.ok ? "resolved" : end.error));
  assert.deepEqual(closes, ["eof"]);

  for (const later of [h.client.ping({ timeoutMs: 1000 }), h.client.callTool("echo", { value: "after" }, { timeoutMs: 1000 })]) {
    const end = await withTimeout(outcome(later), 2000, "a request after the server died");
    assert.ok(!end.ok && end.error instanceof ConnectionClosedError, String(end.ok ? "resolved" : end.error));
  }
  await withTimeout(h.connection.close(), 1000, "close after the child died");
  assert.equal(h.connection.child.signalCode, "SIGKILL");
});

test("a server that exits by itself mid-request: the call rejects with ConnectionClosedError", async () => {
  const h = await spawnFixture();
  const end = await withTimeout(outcome(h.client.callTool("exit_now", {}, { timeoutMs: Infinity })), 3000, "exit_now");
  assert.ok(!end.ok && end.error instanceof ConnectionClosedError, String(end.ok ? "resolved" : end.error));
  await withTimeout(h.connection.close(), 1000, "close");
  assert.equal(h.connection.child.exitCode, 3);
});

test("a server that answers and exits at once: the answer is not lost", async () => {
  for (let i = 0; i < 5; i++) {
    const h = await spawnFixture();
    const end = await withTimeout(outcome(h.client.callTool("answer_then_exit")), 3000, "answer_then_exit");
    assert.ok(end.ok, `attempt ${i}: ${end.ok ? "" : String(end.error)}`);
    assert.equal(firstText(end.value), "last words");
    await withTimeout(h.connection.close(), 2000, "close");
    assert.equal(h.connection.child.exitCode, 0);
  }
});

// ── 5. stray output on stdout ───────────────────────────────────────────────────────

test("a stray non-JSON line on stdout is reported (M-01) and the session goes on", async () => {
  const h = await spawnFixture();
  const answer = await withTimeout(h.client.callTool("stray_stdout"), 5000, "stray_stdout");
  assert.equal(firstText(answer), "answered after the stray line");
  assert.ok(
    h.diagnostics.some((d) => d.kind === "violation" && d.rule === "M-01"),
    JSON.stringify(h.diagnostics),
  );
  assert.equal(firstText(await withTimeout(h.client.callTool("echo", { value: "later" }), 5000, "echo")), "later");
  await withTimeout(h.client.ping(), 5000, "ping");
  await withTimeout(h.connection.close(), 5000, "close");
  assert.equal(h.connection.child.exitCode, 0);
});

test("a stray line before initialization: reported (M-01), and the session still initializes", async () => {
  const h = await spawnFixture(["--stray-at-start"]);
  assert.ok(
    h.diagnostics.some((d) => d.kind === "violation" && d.rule === "M-01"),
    JSON.stringify(h.diagnostics),
  );
  assert.equal(h.connection.server.serverInfo.name, "e2e-fixture-server");
  assert.equal(firstText(await withTimeout(h.client.callTool("echo", { value: "fine" }), 5000, "echo")), "fine");
  await withTimeout(h.connection.close(), 5000, "close");
});

// ── 6. shutdown (S-02) ──────────────────────────────────────────────────────────────

test("S-02: close() on a well-behaved server resolves once it exited on stdin close, no signal sent", async () => {
  const h = await spawnFixture([], { shutdownGraceMs: 5000 });
  const started = performance.now();
  await withTimeout(h.connection.close(), 4000, "close");
  assert.ok(performance.now() - started < 4000, "well before the grace period ended");
  assert.equal(h.connection.child.exitCode, 0);
  assert.equal(h.connection.child.signalCode, null);
  assert.doesNotMatch(h.stderr(), /SIGTERM/);
});

test("S-02: a server that ignores stdin close ends on SIGTERM after one grace period", async () => {
  const grace = 200;
  const h = await spawnFixture(["--ignore-stdin-close"], { shutdownGraceMs: grace });
  const started = performance.now();
  await withTimeout(h.connection.close(), grace * 2 + 3000, "close");
  const elapsed = performance.now() - started;
  assert.equal(h.connection.child.signalCode, "SIGTERM");
  assert.ok(elapsed >= grace - 20 && elapsed < grace * 2 + 1000, `${elapsed} ms`);
});

test("S-02: a server that ignores stdin close and SIGTERM is killed (SIGKILL) within about 2 × shutdownGraceMs", async () => {
  const grace = 200;
  const h = await spawnFixture(["--ignore-sigterm"], { shutdownGraceMs: grace });
  const hung = outcome(h.client.callTool("hang", {}, { timeoutMs: Infinity }));
  await withTimeout(h.client.ping(), 5000, "ping");
  const started = performance.now();
  await withTimeout(h.connection.close(), grace * 2 + 3000, "close");
  const elapsed = performance.now() - started;
  assert.equal(h.connection.child.signalCode, "SIGKILL");
  assert.equal(h.connection.child.exitCode, null);
  assert.ok(elapsed >= grace * 2 - 40 && elapsed < grace * 2 + 1000, `${elapsed} ms`);
  await h.waitForStderr("SIGTERM ignored", 1000);
  const end = await withTimeout(hung, 1000, "the pending call");
  assert.ok(!end.ok && end.error instanceof ConnectionClosedError, String(end.ok ? "resolved" : end.error));
  assert.deepEqual(h.diagnostics, []);
});
