// The Engine's commands and their refusals: respond, respondError, sendProgress, cancel,
// setDeadline and handleTimeout, request options and params, the outbound limits, every
// command on a closed engine, and a task-augmented request's progress token.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LocalProtocolError, type JsonObject } from "../../lib/internal.js";
import {
  SERVER_INFO,
  drainOut,
  events,
  initializeMessage,
  isRule,
  newClient,
  newServer,
  operatingClient,
  operatingServer,
} from "../support/engine-setup.js";

// ── respond / respondError / sendProgress ───────────────────────────────────────────

test("M-04: respond: a non-object result throws M-04 and queues nothing", () => {
  const s = operatingServer();
  s.receiveMessage({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  events(s);
  for (const bad of [null, [], "ok", 1, true, undefined]) {
    assert.throws(() => s.respond(1, bad as never), isRule("M-04"), String(bad));
  }
  assert.deepEqual(drainOut(s), []);
  assert.equal(s.pendingInboundCount, 1, "the request is still answerable");
  s.respond(1, { tools: [] });
  assert.equal(drainOut(s).length, 1);
});

test("ID-04: respond / respondError to an unknown or already answered id throws ID-04", () => {
  const s = operatingServer();
  assert.throws(() => s.respond(7, {}), isRule("ID-04"));
  assert.throws(() => s.respondError(7, -32000, "x"), isRule("ID-04"));
  s.receiveMessage({ jsonrpc: "2.0", id: 7, method: "tools/list" });
  s.respond(7, { tools: [] });
  assert.throws(() => s.respond(7, { tools: [] }), isRule("ID-04"), "responding twice");
  assert.throws(() => s.respondError(7, -32000, "x"), isRule("ID-04"));
  assert.equal(drainOut(s).length, 1);
});

test("M-05: respondError: a non-integer code or a non-string message throws M-05", () => {
  const s = operatingServer();
  s.receiveMessage({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  for (const bad of [1.5, Number.NaN, "1", null, Infinity])
    assert.throws(() => s.respondError(1, bad as never, "m"), isRule("M-05"), String(bad));
  for (const bad of [undefined, 1, null, {}]) assert.throws(() => s.respondError(1, -32000, bad as never), isRule("M-05"), String(bad));
  assert.deepEqual(drainOut(s), []);
  s.respondError(1, -32000, "nope");
  assert.deepEqual(drainOut(s), [{ jsonrpc: "2.0", id: 1, error: { code: -32000, message: "nope" } }]);
});

test("X-04: respond and respondError after the peer cancelled are dropped silently", () => {
  const s = operatingServer();
  s.receiveMessage({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  s.receiveMessage({ jsonrpc: "2.0", id: 2, method: "tools/list" });
  s.receiveMessage({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason: "bored" } });
  s.receiveMessage({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } });
  const ev = events(s).filter((e) => e.kind === "cancelled");
  assert.deepEqual(ev, [
    { kind: "cancelled", id: 1, method: "tools/list", reason: "bored" },
    { kind: "cancelled", id: 2, method: "tools/list", reason: undefined },
  ]);
  assert.equal(s.pendingInboundCount, 0);
  s.respond(1, { tools: [] });
  s.respondError(2, -32000, "late");
  assert.deepEqual(drainOut(s), []);
  // Only once: a second late answer is an error of the host.
  assert.throws(() => s.respond(1, { tools: [] }), isRule("ID-04"));
});

test("X-05: notifications/cancelled that is malformed, unknown, for initialize, or for a finished request is ignored", () => {
  const s = newServer({ autoInitialize: false });
  s.receiveMessage(initializeMessage("2025-11-25", "init"));
  events(s);
  s.receiveMessage({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "init" } });
  s.receiveMessage({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: null } });
  s.receiveMessage({ jsonrpc: "2.0", method: "notifications/cancelled" });
  s.receiveMessage({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 12345 } });
  assert.deepEqual(events(s), []);
  assert.deepEqual(drainOut(s), []);
  s.acceptInitialize();
  assert.equal(s.phase, "initializing");
});

test("P-01, P-04, P-05: sendProgress: unknown id P-04, no token P-01, non-increasing or non-finite P-05", () => {
  const s = operatingServer();
  assert.throws(() => s.sendProgress(1, 1), isRule("P-04"));
  s.receiveMessage({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  assert.throws(() => s.sendProgress(1, 1), isRule("P-01"));
  s.receiveMessage({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "x", _meta: { progressToken: 0 } } });
  s.sendProgress(2, 0.5, 10, "half");
  assert.throws(() => s.sendProgress(2, 0.5), isRule("P-05"));
  assert.throws(() => s.sendProgress(2, 0.1), isRule("P-05"));
  assert.throws(() => s.sendProgress(2, Number.NaN), isRule("P-05"));
  assert.throws(() => s.sendProgress(2, Infinity), isRule("P-05"));
  assert.throws(() => s.sendProgress(2, "2" as never), isRule("P-05"));
  s.sendProgress(2, 2);
  const progress = drainOut(s).filter((m) => m.method === "notifications/progress");
  assert.deepEqual(progress, [
    { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 0, progress: 0.5, total: 10, message: "half" } },
    { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 0, progress: 2 } },
  ]);
});

// ── cancel ──────────────────────────────────────────────────────────────────────────

test("X-01, X-02: cancel: initialize throws X-02, ids never issued throw X-01, settled ids return false", () => {
  const c = newClient();
  const init = c.initialize();
  assert.throws(() => c.cancel(init), isRule("X-02"));
  assert.throws(() => c.cancel(5), isRule("X-01"));
  assert.throws(() => c.cancel(-1), isRule("X-01"));
  assert.throws(() => c.cancel(0.5), isRule("X-01"));
  const p = c.request("ping");
  assert.equal(c.cancel(p, "changed my mind"), true);
  assert.equal(c.cancel(p), false);
  const out = drainOut(c);
  assert.deepEqual(out[out.length - 1], {
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: p, reason: "changed my mind" },
  });
  // A late answer to the cancelled request is dropped without a violation.
  c.receiveMessage({ jsonrpc: "2.0", id: p, result: {} });
  assert.deepEqual(events(c), []);
  // A second answer is an unknown id: violation, never an exception.
  c.receiveMessage({ jsonrpc: "2.0", id: p, result: {} });
  const ev = events(c);
  assert.ok(ev.length === 1 && ev[0]?.kind === "violation" && ev[0].rule === "ID-04");
  // After the handshake, initialize still cannot be cancelled.
  c.receiveMessage({ jsonrpc: "2.0", id: init, result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: SERVER_INFO } });
  assert.throws(() => c.cancel(init), isRule("X-02"));
});

// ── deadlines ───────────────────────────────────────────────────────────────────────

test("ID-04, S-01: setDeadline: unknown ids throw ID-04, a closed engine throws S-01", () => {
  const c = operatingClient();
  assert.throws(() => c.setDeadline(99, 10), isRule("ID-04"));
  const id = c.request("tools/list");
  c.request("tools/list", undefined, { deadline: 100 });
  c.cancel(id);
  assert.throws(() => c.setDeadline(id, 10), isRule("ID-04"));
  c.close();
  assert.throws(
    () => c.setDeadline(1, 10),
    (e: unknown) => e instanceof LocalProtocolError && (e.rule === "S-01" || e.rule === "ID-04"),
  );
});

test("T-04: setDeadline moves the inactivity deadline; undefined removes it; the total deadline stays", () => {
  const c = operatingClient();
  const a = c.request("tools/list");
  assert.equal(c.nextDeadline(), undefined);
  c.setDeadline(a, 40);
  assert.equal(c.nextDeadline(), 40);
  c.setDeadline(a, 20);
  assert.equal(c.nextDeadline(), 20);
  c.setDeadline(a, undefined);
  assert.equal(c.nextDeadline(), undefined);
  c.handleTimeout(1e9);
  assert.deepEqual(events(c), []);
  const b = c.request("tools/list", undefined, { totalDeadline: 30 });
  c.setDeadline(b, 10);
  assert.equal(c.nextDeadline(), 10);
  c.setDeadline(b, undefined);
  assert.equal(c.nextDeadline(), 30);
  c.handleTimeout(29);
  assert.deepEqual(events(c), []);
  c.handleTimeout(30);
  assert.deepEqual(events(c), [{ kind: "timeout", id: b, method: "tools/list", deadline: "total" }]);
  assert.equal(c.nextDeadline(), undefined);
  assert.equal(c.pendingOutboundCount, 1);
});

test("T-02: handleTimeout: spurious calls are no-ops; several requests expire in one call, each once", () => {
  const c = operatingClient();
  c.handleTimeout(0);
  const a = c.request("tools/list", undefined, { deadline: 10 });
  const b = c.request("prompts/list", undefined, { deadline: 10 });
  const d = c.request("tools/list", undefined, { deadline: 20 });
  drainOut(c);
  assert.equal(c.nextDeadline(), 10);
  c.handleTimeout(9);
  assert.deepEqual(events(c), []);
  assert.deepEqual(drainOut(c), []);
  c.handleTimeout(15);
  const ev = events(c);
  assert.deepEqual(ev, [
    { kind: "timeout", id: a, method: "tools/list", deadline: "inactivity" },
    { kind: "timeout", id: b, method: "prompts/list", deadline: "inactivity" },
  ]);
  assert.deepEqual(
    drainOut(c).map((m) => (m.params as JsonObject).requestId),
    [a, b],
  );
  assert.equal(c.nextDeadline(), 20);
  c.handleTimeout(15);
  assert.deepEqual(events(c), []);
  c.handleTimeout(25);
  assert.deepEqual(events(c), [{ kind: "timeout", id: d, method: "tools/list", deadline: "inactivity" }]);
  // Late answers to timed-out requests are dropped silently.
  c.receiveMessage({ jsonrpc: "2.0", id: a, result: { tools: [] } });
  c.receiveMessage({ jsonrpc: "2.0", id: b, error: { code: -32000, message: "late" } });
  assert.deepEqual(events(c), []);
});

test("X-02: an initialize timeout closes the client fatally and sends no cancellation", () => {
  const c = newClient();
  const p = c.request("ping", undefined, { deadline: 50 });
  c.initialize({ deadline: 5 });
  drainOut(c);
  assert.equal(c.nextDeadline(), 5);
  c.handleTimeout(5);
  const ev = events(c);
  assert.deepEqual(
    ev.map((e) => e.kind),
    ["timeout", "connection-closed", "closed"],
  );
  assert.ok(ev[1]?.kind === "connection-closed" && ev[1].id === p);
  const closed = ev[2];
  assert.ok(closed?.kind === "closed" && closed.reason === "fatal" && closed.rule === "L-01");
  assert.deepEqual(drainOut(c), []);
  assert.equal(c.isClosed, true);
});

test("T-04: progress with a reset window starts a deadline on an untimed request", () => {
  const c = operatingClient();
  const id = c.request("tools/call", { name: "x" }, { resetOnProgressMs: 10, progressToken: "t" });
  assert.equal(c.nextDeadline(), undefined);
  c.receiveMessage({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t", progress: 1 } });
  assert.equal(c.nextDeadline(), undefined, "no `now`: nothing to reset from");
  c.receiveMessage({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t", progress: 2 } }, 100);
  assert.equal(c.nextDeadline(), 110);
  c.receiveMessage(
    { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t", progress: 3, total: 5, message: "m" } },
    105,
  );
  assert.equal(c.nextDeadline(), 115);
  const ev = events(c);
  assert.equal(ev[0]?.kind === "diagnostic" && ev[0].rule, "ENG-05", "the progress without `now` is reported (ENG-05)");
  assert.deepEqual(ev[3], { kind: "progress", id, method: "tools/call", token: "t", progress: 3, total: 5, message: "m" });
  c.handleTimeout(115);
  assert.deepEqual(events(c), [{ kind: "timeout", id, method: "tools/call", deadline: "inactivity" }]);
});

// ── request options and params ──────────────────────────────────────────────────────

test("M-03, P-01, P-02: request: params must be an object (M-03); progress tokens must be valid (P-01) and unique", () => {
  const c = operatingClient();
  const method: string = "tools/list";
  for (const bad of [[], "x", 1, null]) assert.throws(() => c.request(method, bad as never), isRule("M-03"), JSON.stringify(bad));
  assert.throws(() => c.notify("notifications/roots/list_changed", [] as never), isRule("M-03"));
  assert.throws(() => c.request("tools/list", {}, { progressToken: 1.5 as never }), isRule("P-01"));
  assert.throws(() => c.request("tools/list", {}, { progressToken: {} as never }), isRule("P-01"));
  const a = c.request("tools/list", { _meta: { other: 1 } }, { progressToken: "tok" });
  assert.throws(() => c.request("tools/list", {}, { progressToken: "tok" }), isRule("P-02"));
  assert.throws(() => c.request("tools/list", { _meta: { progressToken: "tok" } }), isRule("P-02"));
  const b = c.request("tools/list", undefined, { progressToken: true });
  const out = drainOut(c);
  assert.deepEqual(out, [
    { jsonrpc: "2.0", id: a, method: "tools/list", params: { _meta: { other: 1, progressToken: "tok" } } },
    { jsonrpc: "2.0", id: b, method: "tools/list", params: { _meta: { progressToken: b } } },
  ]);
  // A token given in params._meta is tracked too.
  const d = c.request("tools/call", { name: "x", _meta: { progressToken: 77 } });
  c.receiveMessage({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 77, progress: 1 } });
  const ev = events(c);
  assert.ok(ev.some((e) => e.kind === "progress" && e.id === d && e.token === 77));
  // After the answer the token is free again.
  c.receiveMessage({ jsonrpc: "2.0", id: a, result: { tools: [] } });
  assert.doesNotThrow(() => c.request("tools/list", {}, { progressToken: "tok" }));
});

test("LIM-02, LIM-03: limits: maxPendingOutbound makes request() throw; maxPendingInbound answers -32603", () => {
  const c = operatingClient({ limits: { maxPendingOutbound: 2 } });
  c.request("tools/list");
  c.request("tools/list");
  assert.throws(() => c.request("tools/list"), isRule("LIM-03"));
  assert.equal(drainOut(c).length, 2);
  const s = operatingServer({ limits: { maxPendingInbound: 1 } });
  s.receiveMessage({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  s.receiveMessage({ jsonrpc: "2.0", id: 2, method: "tools/list" });
  s.receiveMessage({ jsonrpc: "2.0", id: 3, method: "ping" });
  assert.deepEqual(drainOut(s), [
    { jsonrpc: "2.0", id: 2, error: { code: -32603, message: "Too many requests in flight" } },
    { jsonrpc: "2.0", id: 3, result: {} },
  ]);
  const ev = events(s);
  assert.ok(ev.some((e) => e.kind === "violation" && e.rule === "LIM-02" && e.id === 2 && e.code === -32603));
});

// ── closed state ────────────────────────────────────────────────────────────────────

test("S-01: closed: every command throws S-01, outputs still work, close is idempotent", () => {
  const s = operatingServer();
  s.receiveMessage({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  s.close();
  s.close();
  const ev = events(s);
  assert.deepEqual(
    ev.map((e) => e.kind),
    ["request", "closed"],
  );
  assert.ok(ev[1]?.kind === "closed" && ev[1].reason === "local" && ev[1].rule === undefined);
  assert.throws(() => s.respond(1, {}), isRule("S-01"));
  assert.throws(() => s.respondError(1, -1, "x"), isRule("S-01"));
  assert.throws(() => s.sendProgress(1, 1), isRule("S-01"));
  assert.throws(() => s.request("ping"), isRule("S-01"));
  assert.throws(() => s.notify("notifications/tools/list_changed"), isRule("S-01"));
  assert.throws(() => s.cancel(0), isRule("S-01"));
  assert.throws(() => s.acceptInitialize(), isRule("S-01"));
  assert.throws(() => s.sendTaskProgress("t", 1), isRule("S-01"));
  assert.equal(s.pendingInboundCount, 0);
  assert.equal(s.nextDeadline(), undefined);
  s.handleTimeout(1e12);
  s.receiveBytes(new TextEncoder().encode('{"jsonrpc":"2.0","id":2,"method":"ping"}\n'));
  assert.deepEqual(events(s), []);
  assert.equal(s.takeBytes(), undefined);
});

// ── tasks (2025-11-25): a created task keeps its progress token ─────────────────────

test("P-08: a task-augmented request keeps its progress token after the CreateTaskResult, until the task ends", () => {
  const taskCaps = { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };
  const c = operatingClient({}, taskCaps);
  const s = operatingServer({ capabilities: taskCaps });
  const id = c.request("tools/call", { name: "long", task: { ttl: 1000 } }, { progressToken: "task-tok" });
  const [req] = drainOut(c);
  s.receiveMessage(req);
  assert.ok(events(s).some((e) => e.kind === "request" && e.progressToken === "task-tok"));
  assert.throws(() => s.sendTaskProgress("t-1", 1), isRule("P-08"));
  const task = { taskId: "t-1", status: "working", createdAt: "2025-01-01T00:00:00Z", lastUpdatedAt: "2025-01-01T00:00:00Z", ttl: 1000 };
  s.respond(req?.id as number, { task });
  s.sendTaskProgress("t-1", 1, 10, "started");
  assert.throws(() => s.sendTaskProgress("t-1", 1), isRule("P-05"));
  const out = drainOut(s);
  assert.deepEqual(out[1], {
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { progressToken: "task-tok", progress: 1, total: 10, message: "started" },
  });
  for (const m of out) c.receiveMessage(m);
  const ev = events(c);
  assert.ok(ev.some((e) => e.kind === "response" && e.id === id));
  assert.ok(ev.some((e) => e.kind === "progress" && e.token === "task-tok" && e.progress === 1));
  // The task ends: the status notification frees the token on both sides.
  s.notify("notifications/tasks/status", { ...task, status: "completed" });
  assert.throws(() => s.sendTaskProgress("t-1", 2), isRule("P-08"));
  for (const m of drainOut(s)) c.receiveMessage(m);
  assert.ok(events(c).some((e) => e.kind === "notification" && e.method === "notifications/tasks/status"));
  c.receiveMessage({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "task-tok", progress: 2 } });
  const after = events(c);
  assert.ok(after.length === 1 && after[0]?.kind === "diagnostic" && after[0].rule === "P-04");
});
