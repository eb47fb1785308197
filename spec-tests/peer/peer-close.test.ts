// Closing and failing through the peer layer in process (spec-tests/support/peer-harness.ts):
// client.close() and session.close() with requests in flight, the diagnostics and progress the
// client passes on, custom requests and notifications, errorMessage() and the typed errors.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ConnectionClosedError,
  InvalidResultError,
  McpError,
  PeerError,
  ProtocolMisuseError,
  RequestAbortedError,
  RequestTimeoutError,
  errorMessage,
  type AbortSignalLike,
  type HandlerContext,
  type ServerSession,
} from "../../lib/peer/index.js";
import type { CallToolResult } from "../../lib/index.js";
import { ScriptedServer, initializeResult, lines, track } from "../support/peer-harness.js";
import { rejection } from "../support/helpers.js";
import { OK, connected } from "../support/peer-helpers.js";

// ── close ────────────────────────────────────────────────────────────────────────

test("S-01: client.close(): pending requests reject with ConnectionClosedError; later requests reject; onClose runs once", async () => {
  const closes: string[] = [];
  const pair = await connected({
    client: { onClose: (e) => closes.push(e.reason) },
    setup: (s) => s.tool("hang", {}, () => new Promise<CallToolResult>(() => {})),
  });
  const a = track(pair.client.callTool("hang"));
  const b = track(pair.client.ping({ timeoutMs: 1000 }));
  pair.client.close();
  await pair.settle();
  assert.ok(a.error instanceof ConnectionClosedError);
  assert.equal(a.error.message, "tools/call: connection closed");
  assert.ok(b.error instanceof ConnectionClosedError);
  assert.equal(pair.clientHost.armed, undefined);
  assert.deepEqual(closes, ["local"]);
  pair.client.close();
  assert.deepEqual(closes, ["local"], "close() is idempotent");
  const late = await rejection(pair.client.ping());
  assert.ok(late instanceof ConnectionClosedError);
  assert.equal(late.message, "ping: connection closed (the session is closed)");
});

test("S-01: session.close(): running handlers see their signal abort; their late answers are not sent; EOF closes the client", async () => {
  const signals: AbortSignalLike[] = [];
  const reasons: unknown[] = [];
  const resolvers: Array<(r: CallToolResult) => void> = [];
  const closedSessions: ServerSession[] = [];
  const pair = await connected({
    server: { onSessionClosed: (s) => closedSessions.push(s) },
    setup: (s) =>
      s.tool("hang", {}, (_args, ctx) => {
        signals.push(ctx.signal);
        ctx.signal.addEventListener("abort", () => reasons.push(ctx.signal.reason));
        return new Promise<CallToolResult>((resolve) => resolvers.push(resolve));
      }),
  });
  const call = track(pair.client.callTool("hang"));
  await pair.settle();
  assert.equal(pair.server.sessions.has(pair.session), true);
  pair.session.close();
  assert.equal(signals[0]?.aborted, true);
  assert.deepEqual(reasons, ["connection closed"]);
  assert.equal(pair.server.sessions.has(pair.session), false);
  assert.deepEqual(closedSessions, [pair.session]);
  const sentBefore = pair.serverHost.sent.length;
  resolvers[0]?.(OK);
  await pair.settle();
  assert.equal(pair.serverHost.sent.length, sentBefore, "nothing is sent after close");
  assert.equal(call.state, "pending", "the client learns only from the transport");
  pair.client.driver.receiveEof();
  await pair.settle();
  assert.ok(call.error instanceof ConnectionClosedError);
});

test("S-01: close with a server → client request in flight: it rejects with ConnectionClosedError; the client handler's signal aborts", async () => {
  let outcome: ReturnType<typeof track> | undefined;
  let clientSignal: AbortSignalLike | undefined;
  const pair = await connected({
    client: { capabilities: { sampling: {} } },
    setup: (s) =>
      s.tool("ask", {}, (_args, ctx) => {
        outcome = track(ctx.createMessage({ messages: [], maxTokens: 1 }, { timeoutMs: Infinity }));
        return new Promise<CallToolResult>(() => {});
      }),
  });
  pair.client.setRequestHandler("sampling/createMessage", (_p, ctx) => {
    clientSignal = ctx.signal;
    return new Promise(() => {});
  });
  void pair.client.callTool("ask").catch(() => {});
  await pair.settle();
  pair.client.close();
  assert.equal(clientSignal?.aborted, true, "the client's own handler is aborted by its close()");
  pair.session.receiveEof();
  await pair.settle();
  assert.ok(outcome?.error instanceof ConnectionClosedError);
  assert.equal((outcome?.error as Error).message, "sampling/createMessage: connection closed");
});

test("S-01: a request whose answer the server never sends is settled by close(); a late result after close is ignored", async () => {
  const pair = await connected({ setup: (s) => s.tool("hang", {}, () => new Promise<CallToolResult>(() => {})) });
  const call = track(pair.client.callTool("hang"));
  await pair.settle();
  const id = pair.clientHost.messages("tools/call")[0]?.id;
  pair.client.close();
  pair.client.driver.receiveBytes(lines({ jsonrpc: "2.0", id, result: OK }));
  await pair.settle();
  assert.ok(call.error instanceof ConnectionClosedError);
});

// ── events the client passes on ──────────────────────────────────────────────────

test("SCH-02, ID-04: onDiagnostic sees violations; validateResults turns a malformed result into InvalidResultError", async () => {
  const rules: string[] = [];
  const scripted = new ScriptedServer(
    (m) => {
      if (m.method === "initialize") return initializeResult({ tools: {} });
      return { result: { tools: "not a list" } };
    },
    { validateResults: true, onDiagnostic: (e) => rules.push(`${e.kind}:${e.rule}`) },
  );
  const connecting = scripted.client.connect();
  await scripted.settle();
  await connecting;
  const listing = scripted.client.listTools();
  await scripted.settle();
  const error = await rejection(listing);
  assert.ok(error instanceof InvalidResultError, String(error));
  assert.equal(error.path, "result.tools");
  assert.match(error.message, /^tools\/list: invalid result at result\.tools: expected /);
  assert.deepEqual(rules, ["violation:SCH-02"]);
  // A response for an id never sent is a violation too.
  scripted.client.driver.receiveBytes(lines({ jsonrpc: "2.0", id: 999, result: {} }));
  assert.deepEqual(rules, ["violation:SCH-02", "violation:ID-04"]);
});

test("P-04: progress for a settled request is a diagnostic, not a callback", async () => {
  const rules: string[] = [];
  const seen: unknown[] = [];
  let ctx: HandlerContext | undefined;
  let resolve: ((r: CallToolResult) => void) | undefined;
  const pair = await connected({
    client: { onDiagnostic: (e) => rules.push(e.rule) },
    setup: (s) =>
      s.tool("t", {}, (_a, c) => {
        ctx = c;
        return new Promise<CallToolResult>((r) => (resolve = r));
      }),
  });
  const call = pair.client.callTool("t", {}, { onProgress: (p) => seen.push(p) });
  await pair.settle();
  ctx?.progress(1, 10, "one tenth");
  await pair.settle();
  const token = (pair.clientHost.messages("tools/call")[0]?.params as { _meta: { progressToken: unknown } })._meta.progressToken;
  resolve?.(OK);
  await call;
  pair.client.driver.receiveBytes(
    lines({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: 2 } }),
  );
  assert.deepEqual(seen, [{ progress: 1, total: 10, message: "one tenth" }]);
  assert.deepEqual(rules, ["P-04"]);
});

test("C-05, MT-02: client.request() with a custom method, and client.notify()", async () => {
  const pair = await connected({ client: { capabilities: { roots: { listChanged: true } } } });
  assert.deepEqual(await pair.client.request("ping"), {});
  pair.client.notify("notifications/roots/list_changed");
  await pair.settle();
  assert.equal(pair.clientHost.messages("notifications/roots/list_changed").length, 1);
  assert.throws(() => pair.client.notify("notifications/tools/list_changed"), ProtocolMisuseError);
});

// ── errors ───────────────────────────────────────────────────────────────────────

test("errorMessage(): McpError without its prefix, Error message, strings, anything else as 'internal error'", () => {
  assert.equal(errorMessage(new McpError(-32602, "bad thing")), "bad thing");
  assert.equal(errorMessage(new McpError(42, "positive code")), "positive code");
  assert.equal(errorMessage(new RangeError("out of range")), "out of range");
  assert.equal(errorMessage("words"), "words");
  assert.equal(errorMessage({ message: "looks like an error" }), "internal error");
  assert.equal(errorMessage(undefined), "internal error");
  assert.equal(errorMessage(null), "internal error");
});

test("the typed errors: names, fields and messages", () => {
  const errors = [
    new McpError(-1, "m"),
    new RequestTimeoutError("x", 1, "total", undefined),
    new RequestAbortedError("x", 42),
    new ConnectionClosedError("x"),
    new InvalidResultError("x", "result.a", "a string", "a number"),
  ];
  for (const e of errors) {
    assert.ok(e instanceof PeerError);
    assert.ok(e instanceof Error);
    assert.equal(e.name, e.constructor.name);
  }
  assert.equal(
    new RequestTimeoutError("tools/call", "r1", "inactivity", undefined).message,
    "tools/call (request r1) timed out: no answer or progress",
  );
  assert.equal(new RequestAbortedError("ping", 42).message, "ping aborted");
  assert.equal(new RequestAbortedError("ping", 42).reason, 42);
  assert.equal(new ConnectionClosedError("ping", "eof").message, "ping: connection closed (eof)");
  assert.equal(new McpError(-5, "m").data, undefined);
});

test("S-01: session.request() on a closed session rejects with ConnectionClosedError", async () => {
  const pair = await connected();
  pair.session.close();
  const error = await rejection(pair.session.request("ping", undefined));
  assert.ok(error instanceof ConnectionClosedError);
  assert.equal(error.message, "ping: connection closed (the session is closed)");
});
