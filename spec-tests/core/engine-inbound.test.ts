// What the Engine does with inbound traffic: progress, responses and errors, invalid
// envelopes, unreadable ids, byte input (unparsable and too-long lines, a partial last line),
// batches under 2025-03-26 and their refusals, late answers, input that closes the engine
// mid-chunk, and the params, result and feature checks of inbound messages.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Engine, type JsonObject } from "../../lib/internal.js";
import { drainOut, events, initializeMessage, newClient, newServer, operatingClient, operatingServer } from "../support/engine-setup.js";

// ── inbound: progress, responses, errors ────────────────────────────────────────────

test("P-01, P-04, P-05: inbound progress: malformed is a P-01 diagnostic, an unknown token a P-04 diagnostic, a repeat a P-05 violation", () => {
  const c = operatingClient();
  c.request("tools/call", { name: "x" }, { progressToken: "t" });
  drainOut(c);
  c.receiveMessage({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t" } });
  c.receiveMessage({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1.5, progress: 1 } });
  c.receiveMessage({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t", progress: Infinity } });
  c.receiveMessage({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "zzz", progress: 1 } });
  c.receiveMessage({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t", progress: 2 } });
  c.receiveMessage({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t", progress: 2 } });
  const ev = events(c);
  assert.deepEqual(
    ev.map((e) => (e.kind === "diagnostic" || e.kind === "violation" ? `${e.kind}:${e.rule}` : e.kind)),
    ["diagnostic:P-01", "diagnostic:P-01", "diagnostic:P-01", "diagnostic:P-04", "progress", "violation:P-05"],
  );
  assert.deepEqual(drainOut(c), [], "notifications are never answered");
});

test("ID-04: inbound responses: error responses, unknown ids and string ids", () => {
  const c = operatingClient();
  const a = c.request("tools/list");
  drainOut(c);
  c.receiveMessage({ jsonrpc: "2.0", id: a, error: { code: -32601, message: "no tools", data: 1 } });
  c.receiveMessage({ jsonrpc: "2.0", id: "1", result: {} });
  c.receiveMessage({ jsonrpc: "2.0", id: 999, error: { code: -1, message: "?" } });
  c.receiveMessage({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
  const ev = events(c);
  assert.deepEqual(ev[0], { kind: "error-response", id: a, method: "tools/list", error: { code: -32601, message: "no tools", data: 1 } });
  assert.ok(ev[1]?.kind === "violation" && ev[1].rule === "ID-04" && ev[1].id === "1");
  assert.ok(ev[2]?.kind === "violation" && ev[2].rule === "ID-04" && ev[2].id === 999);
  assert.ok(ev[3]?.kind === "diagnostic" && ev[3].rule === "M-06" && ev[3].error?.code === -32700);
  assert.equal(ev.length, 4);
  assert.deepEqual(drainOut(c), []);
});

test("ID-03: inbound requests: a duplicate in-flight id is -32600, the first keeps its own answer", () => {
  const s = operatingServer();
  s.receiveMessage({ jsonrpc: "2.0", id: 5, method: "tools/list" });
  s.receiveMessage({ jsonrpc: "2.0", id: 5, method: "prompts/list" });
  const out = drainOut(s);
  assert.deepEqual(out, [{ jsonrpc: "2.0", id: 5, error: { code: -32600, message: "Invalid request" } }]);
  assert.ok(events(s).some((e) => e.kind === "violation" && e.rule === "ID-03"));
  s.respond(5, { tools: [] });
  assert.deepEqual(drainOut(s), [{ jsonrpc: "2.0", id: 5, result: { tools: [] } }]);
});

test("M-02: inbound: invalid envelopes are answered -32600 when request-shaped, never when response-shaped", () => {
  const s = operatingServer();
  s.receiveMessage({ jsonrpc: "2.0", id: 1, method: 5 });
  s.receiveMessage({ jsonrpc: "1.0", id: 2, method: "ping" });
  s.receiveMessage({ jsonrpc: "2.0", id: 3, result: {}, error: { code: 1, message: "x" } });
  s.receiveMessage({ jsonrpc: "2.0", method: "notifications/x", params: [] });
  s.receiveMessage(42);
  // 2025-11-25: an unreadable id is omitted from the error.
  assert.deepEqual(drainOut(s), [
    { jsonrpc: "2.0", id: 1, error: { code: -32600, message: "Invalid request" } },
    { jsonrpc: "2.0", id: 2, error: { code: -32600, message: "Invalid request" } },
    { jsonrpc: "2.0", error: { code: -32600, message: "Invalid request" } },
  ]);
  const ev = events(s);
  assert.deepEqual(
    ev.map((e) => (e.kind === "violation" ? `violation:${String(e.code)}` : e.kind)),
    ["violation:-32600", "violation:-32600", "violation:undefined", "diagnostic", "violation:-32600"],
  );
});

test("STD-01, LIM-01: bytes: an unparsable line is -32700 and the stream continues; a too-long line is -32600", () => {
  const s = operatingServer({ limits: { maxLineBytes: 64 } });
  const enc = new TextEncoder();
  s.receiveBytes(enc.encode('{"jsonrpc":"2.0","id":1,"method":"ping"}\nnot json\n'));
  s.receiveBytes(enc.encode(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"${"x".repeat(100)}"}}\n`));
  s.receiveBytes(enc.encode('{"jsonrpc":"2.0","id":3,"method":"ping"}\n'));
  const out = drainOut(s);
  assert.deepEqual(out, [
    { jsonrpc: "2.0", id: 1, result: {} },
    { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } },
    { jsonrpc: "2.0", id: 2, error: { code: -32600, message: "Line exceeds maxLineBytes (64)" } },
    { jsonrpc: "2.0", id: 3, result: {} },
  ]);
  const ev = events(s);
  assert.deepEqual(
    ev.map((e) => (e.kind === "violation" ? e.rule : e.kind)),
    ["M-01", "LIM-01"],
  );
});

test("M-10: unreadable ids: id null before 2025-11-25, no id in 2025-11-25, id null before negotiation", () => {
  for (const [version, expectId] of [
    ["2024-11-05", true],
    ["2025-06-18", true],
    ["2025-11-25", false],
  ] as const) {
    const s = operatingServer({}, version);
    s.receiveBytes(new TextEncoder().encode("{oops\n"));
    const [m] = drainOut(s);
    assert.equal("id" in (m as JsonObject), expectId, version);
    if (expectId) assert.equal(m?.id, null);
  }
  const fresh = newServer();
  fresh.receiveBytes(new TextEncoder().encode("{oops\n"));
  assert.deepEqual(drainOut(fresh), [{ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }]);
});

test("STD-01: receiveEof: a partial last line is reported before the close", () => {
  const s = operatingServer();
  s.receiveBytes(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping"}'));
  assert.deepEqual(drainOut(s), []);
  s.receiveEof();
  const ev = events(s);
  assert.ok(ev.some((e) => e.kind === "violation" && e.rule === "M-01"));
  const last = ev[ev.length - 1];
  assert.ok(last?.kind === "closed" && last.reason === "eof");
  s.receiveEof();
  s.receiveMessage({ jsonrpc: "2.0", id: 2, method: "ping" });
  assert.deepEqual(events(s), []);
  assert.deepEqual(drainOut(s), []);
});

// ── batches (2025-03-26) ────────────────────────────────────────────────────────────

test("M-09: batches under 2025-03-26: replies come back as one array once every request is answered", () => {
  const s = operatingServer({ versions: ["2025-03-26"] }, "2025-03-26");
  s.receiveMessage([
    { jsonrpc: "2.0", id: 1, method: "tools/list" },
    { jsonrpc: "2.0", id: 2, method: "ping" },
    { jsonrpc: "2.0", method: "notifications/roots/list_changed" },
    { jsonrpc: "2.0", id: 3, method: "nope/nope" },
    { jsonrpc: "2.0", id: 4, method: "prompts/list" },
  ]);
  assert.deepEqual(drainOut(s), [], "replies wait for the whole batch");
  s.respond(1, { tools: [] });
  assert.deepEqual(drainOut(s), []);
  s.receiveMessage({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 4 } });
  const [batch] = drainOut(s);
  assert.ok(Array.isArray(batch));
  assert.deepEqual(batch, [
    { jsonrpc: "2.0", id: 2, result: {} },
    { jsonrpc: "2.0", id: 3, error: { code: -32601, message: "Method not found" } },
    { jsonrpc: "2.0", id: 1, result: { tools: [] } },
  ]);
});

test("M-09, LIM-08, L-05: batches: refused on other versions, when empty, too long, nested; initialize never in a batch", () => {
  const s = operatingServer({ versions: ["2025-11-25"] });
  s.receiveMessage([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
  assert.deepEqual(drainOut(s), [{ jsonrpc: "2.0", error: { code: -32600, message: "Invalid request" } }]);
  assert.ok(events(s).some((e) => e.kind === "violation" && e.rule === "M-09"));

  const b = operatingServer({ versions: ["2025-03-26"], limits: { maxBatchLength: 2 } }, "2025-03-26");
  b.receiveMessage([]);
  b.receiveMessage([1, 2, 3]);
  b.receiveMessage([[{ jsonrpc: "2.0", id: 9, method: "ping" }], { jsonrpc: "2.0", id: 10, method: "ping" }]);
  const out = drainOut(b);
  assert.equal(out.length, 3);
  assert.deepEqual(out[0], { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid request" } });
  assert.deepEqual(out[1], { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid request" } });
  assert.deepEqual(out[2], [
    { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid request" } },
    { jsonrpc: "2.0", id: 10, result: {} },
  ]);
  assert.equal(events(b).filter((e) => e.kind === "violation" && e.rule === "M-09").length, 3);

  const fresh = newServer({ versions: ["2025-03-26"] });
  fresh.receiveMessage([initializeMessage("2025-03-26", 1)]);
  const [reply] = drainOut(fresh);
  assert.deepEqual(reply, [{ jsonrpc: "2.0", id: 1, error: { code: -32600, message: "Invalid request" } }]);
  assert.ok(events(fresh).some((e) => e.kind === "violation" && e.rule === "L-05"));
  assert.equal(fresh.phase, "awaiting-init");

  const invalidInBatch = operatingServer({ versions: ["2025-03-26"] }, "2025-03-26");
  invalidInBatch.receiveMessage([
    { jsonrpc: "2.0", id: 1, method: 7 },
    { jsonrpc: "2.0", id: 2, method: "ping" },
  ]);
  const [arr] = drainOut(invalidInBatch);
  assert.deepEqual(arr, [
    { jsonrpc: "2.0", id: 1, error: { code: -32600, message: "Invalid request" } },
    { jsonrpc: "2.0", id: 2, result: {} },
  ]);
});

// ── remaining paths: settled-id memory, closing mid-input, feature and params checks ─

test("X-07: late answers are told apart from unknown ids for the last 4096 settled requests only", () => {
  const c = operatingClient();
  const first = c.request("tools/list");
  c.cancel(first);
  for (let i = 0; i < 4096; i++) c.cancel(c.request("tools/list"));
  drainOut(c);
  events(c);
  const last = first + 4096;
  c.receiveMessage({ jsonrpc: "2.0", id: last, result: { tools: [] } });
  assert.deepEqual(events(c), [], "a recent cancel: dropped silently");
  c.receiveMessage({ jsonrpc: "2.0", id: first, result: { tools: [] } });
  const ev = events(c);
  assert.ok(ev.length === 1 && ev[0]?.kind === "violation" && ev[0].rule === "ID-04", "the oldest was forgotten");
});

test("T-04: handleTimeout after a deadline moved later is a no-op until the new deadline", () => {
  const c = operatingClient();
  const id = c.request("tools/list", undefined, { deadline: 10 });
  c.setDeadline(id, 30);
  c.handleTimeout(20);
  assert.deepEqual(events(c), []);
  assert.equal(c.pendingOutboundCount, 1);
  c.handleTimeout(30);
  assert.deepEqual(events(c), [{ kind: "timeout", id, method: "tools/list", deadline: "inactivity" }]);
});

test("O-03: notify returns false and queues nothing for a log message below the level the client set", () => {
  const s = operatingServer();
  s.receiveMessage({ jsonrpc: "2.0", id: 1, method: "logging/setLevel", params: { level: "error" } });
  s.respond(1, {});
  drainOut(s);
  assert.equal(s.loggingLevel, "error");
  assert.equal(s.notify("notifications/message", { level: "info", data: "quiet" }), false);
  assert.deepEqual(drainOut(s), []);
  assert.equal(s.notify("notifications/message", { level: "critical", data: "loud" }), true);
  assert.deepEqual(drainOut(s), [{ jsonrpc: "2.0", method: "notifications/message", params: { level: "critical", data: "loud" } }]);
});

test("S-01: input that closes the engine stops processing the rest of the same chunk or batch", () => {
  const c = newClient();
  const id = c.initialize();
  drainOut(c);
  const enc = new TextEncoder();
  c.receiveBytes(
    enc.encode(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32603,"message":"no"}}\n{"jsonrpc":"2.0","id":"p","method":"ping"}\n`),
  );
  assert.equal(c.isClosed, true);
  assert.deepEqual(drainOut(c), [], "the ping after the fatal line is not answered");
  const b = newClient({ versions: ["2025-03-26"] });
  const bid = b.initialize();
  drainOut(b);
  b.receiveMessage([
    { jsonrpc: "2.0", id: bid, error: { code: -32603, message: "no" } },
    { jsonrpc: "2.0", id: "p", method: "ping" },
  ]);
  assert.equal(b.isClosed, true);
  assert.deepEqual(drainOut(b), []);
});

test("M-09: a batch before negotiation is refused when none of our versions batches", () => {
  const s = newServer({ versions: ["2025-06-18", "2025-11-25"] });
  s.receiveMessage([initializeMessage()]);
  assert.deepEqual(drainOut(s), [{ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid request" } }]);
  const ev = events(s);
  assert.ok(ev[0]?.kind === "violation" && ev[0].rule === "M-09" && /not yet negotiated/.test(ev[0].got));
  // Before negotiation, a server that also speaks 2025-03-26 takes the batch (and refuses initialize inside it, L-05).
  const t = newServer();
  t.receiveMessage([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
  assert.deepEqual(drainOut(t), [[{ jsonrpc: "2.0", id: 1, result: {} }]]);
});

test("L-11: a client in initializing takes logging from the server (checked against the newest version's schema)", () => {
  const c = newClient();
  c.initialize();
  drainOut(c);
  c.receiveMessage({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "starting" } });
  assert.deepEqual(events(c), [{ kind: "notification", method: "notifications/message", params: { level: "info", data: "starting" } }]);
});

test("SCH-03, M-08: inbound notifications with invalid params, or breaking a feature rule, are violations and never answered", () => {
  const c = operatingClient();
  c.receiveMessage({ jsonrpc: "2.0", method: "notifications/message", params: { data: "no level" } });
  c.receiveMessage({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "file:///never-subscribed" } });
  const ev = events(c);
  assert.deepEqual(
    ev.map((e) => (e.kind === "violation" ? `${e.rule}:${String(e.code)}` : e.kind)),
    ["SCH-03:undefined", "C-04:undefined"],
  );
  assert.deepEqual(drainOut(c), []);
});

test("SCH-01: inbound requests with invalid params are -32602 with the path", () => {
  const s = operatingServer();
  s.receiveMessage({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { arguments: {} } });
  const [reply] = drainOut(s);
  const error = reply?.error as JsonObject;
  assert.equal(error.code, -32602);
  assert.match(String((error.data as JsonObject).path), /^params\.name/);
  assert.ok(events(s).some((e) => e.kind === "violation" && e.code === -32602 && e.id === 1));
  assert.equal(s.pendingInboundCount, 0);
});

test("TK-08: a feature refusal of an inbound request is answered with its code (TK-08: a tool that requires a task)", () => {
  const s = operatingServer({ capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } } } } });
  s.receiveMessage({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  s.respond(1, { tools: [{ name: "slow", inputSchema: { type: "object" }, execution: { taskSupport: "required" } }] });
  drainOut(s);
  events(s);
  s.receiveMessage({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "slow" } });
  assert.deepEqual(drainOut(s), [{ jsonrpc: "2.0", id: 2, error: { code: -32601, message: "Method not found" } }]);
  assert.ok(events(s).some((e) => e.kind === "violation" && e.rule === "TK-08"));
});

test("SCH-02: results: a feature problem is a violation but the response is still delivered; invalid tasks/* results are not", () => {
  const s = operatingServer();
  const id = s.request("roots/list");
  s.receiveMessage({ jsonrpc: "2.0", id, result: { roots: [{ uri: "https://not-a-file" }] } });
  const ev = events(s);
  assert.deepEqual(
    ev.map((e) => e.kind),
    ["violation", "response"],
  );
  assert.ok(ev[0]?.kind === "violation" && ev[0].rule === "RT-01" && ev[0].id === id);

  const taskCaps = { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };
  const c = operatingClient({}, taskCaps);
  const t = c.request("tasks/get", { taskId: "t-1" });
  c.receiveMessage({ jsonrpc: "2.0", id: t, result: { nonsense: true } });
  const tev = events(c);
  assert.deepEqual(
    tev.map((e) => e.kind),
    ["violation", "invalid-response"],
  );
  assert.ok(tev[1]?.kind === "invalid-response" && tev[1].id === t && tev[1].method === "tasks/get");
  assert.equal(c.pendingOutboundCount, 0);
});

test("E-01: an error reply -32042 (2025-11-25) must carry URL elicitations, else a violation", () => {
  const c = operatingClient();
  const id = c.request("tools/call", { name: "x" });
  c.receiveMessage({ jsonrpc: "2.0", id, error: { code: -32042, message: "URL elicitation required" } });
  const ev = events(c);
  assert.deepEqual(
    ev.map((e) => (e.kind === "violation" ? e.rule : e.kind)),
    ["E-01", "error-response"],
  );
});

test("SCH-02: validateResults: every result is checked against its method's schema; off by default", () => {
  const strictClient = operatingClient({ validateResults: true });
  const a = strictClient.request("tools/list");
  strictClient.receiveMessage({ jsonrpc: "2.0", id: a, result: { tools: "none" } });
  assert.deepEqual(
    events(strictClient).map((e) => e.kind),
    ["violation", "invalid-response"],
  );
  const b = strictClient.request("tools/list");
  strictClient.receiveMessage({ jsonrpc: "2.0", id: b, result: { tools: [] } });
  assert.deepEqual(
    events(strictClient).map((e) => e.kind),
    ["response"],
  );
  const lax = operatingClient();
  const c = lax.request("tools/list");
  lax.receiveMessage({ jsonrpc: "2.0", id: c, result: { tools: "none" } });
  assert.deepEqual(
    events(lax).map((e) => e.kind),
    ["response"],
  );
});

test("TK-02: a valid tasks/get result that ends the task is delivered", () => {
  const taskCaps = { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };
  const c = operatingClient({}, taskCaps);
  const t = c.request("tasks/get", { taskId: "t-1" });
  const task = { taskId: "t-1", status: "completed", createdAt: "2025-01-01T00:00:00Z", lastUpdatedAt: "2025-01-01T00:00:01Z", ttl: null };
  c.receiveMessage({ jsonrpc: "2.0", id: t, result: task });
  assert.deepEqual(events(c), [{ kind: "response", id: t, method: "tasks/get", result: task }]);
});

test("MOD-23: a dual-era session restored from a snapshot is in the session era", () => {
  const options = { role: "server" as const, info: { name: "s", version: "1" }, versions: ["2025-11-25", "2026-07-28"] as const };
  const server = new Engine({ ...options, versions: [...options.versions] });
  server.receiveMessage({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
  });
  server.receiveMessage({ jsonrpc: "2.0", method: "notifications/initialized" });
  assert.equal(server.era, "session");
  const restored = Engine.restore({ ...options, versions: [...options.versions] }, server.snapshot());
  assert.equal(restored.era, "session");
  assert.equal(restored.phase, "operating");
  // Without the envelope, a request is served as session-era traffic (no -32602 for a missing _meta).
  restored.receiveMessage({ jsonrpc: "2.0", id: 2, method: "ping" });
  assert.deepEqual(restored.pollOutbound()?.message, { jsonrpc: "2.0", id: 2, result: {} });
});
