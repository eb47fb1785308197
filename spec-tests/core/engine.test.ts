// Unit tests of the Engine's public API not covered by the gating and pair suites:
// construction checks, getters, output draining, handshake outcomes for both roles, command
// refusals (respond, respondError, cancel, setDeadline, sendProgress), deadlines, limits,
// batches, malformed input, and the version and capability helpers.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Cap,
  DEFAULT_CLIENT_MAX_LINE_BYTES,
  DEFAULT_LIMITS,
  Engine,
  LocalProtocolError,
  MODERN_VERSIONS,
  SESSION_VERSIONS,
  VERSION_PROFILES,
  capabilityName,
  isProtocolVersion,
  isSessionVersion,
  newestVersion,
  type EngineEvent,
  type EngineOptions,
  type JsonObject,
  type Outbound,
  type SessionVersion,
} from "../../lib/internal.js";

// ── helpers ─────────────────────────────────────────────────────────────────────────

const CLIENT_INFO = { name: "test-client", version: "1.0.0" };
const SERVER_INFO = { name: "test-server", version: "2.0.0" };
const SERVER_CAPS: JsonObject = { tools: {}, prompts: {}, resources: { subscribe: true }, logging: {} };
const CLIENT_CAPS: JsonObject = { roots: { listChanged: true }, sampling: {} };

function drainOut(e: Engine): JsonObject[] {
  const out: JsonObject[] = [];
  for (let o = e.pollOutbound(); o !== undefined; o = e.pollOutbound()) out.push(o.message as unknown as JsonObject);
  return out;
}

function events(e: Engine): EngineEvent[] {
  const into: EngineEvent[] = [];
  e.takeEvents(into);
  return into;
}

function isRule(rule: string): (e: unknown) => boolean {
  return (e: unknown) => e instanceof LocalProtocolError && e.rule === rule;
}

function newServer(options: Partial<EngineOptions> = {}): Engine {
  return new Engine({ role: "server", info: SERVER_INFO, capabilities: SERVER_CAPS, ...options });
}

function newClient(options: Partial<EngineOptions> = {}): Engine {
  return new Engine({ role: "client", info: CLIENT_INFO, capabilities: CLIENT_CAPS, ...options });
}

function initializeMessage(version: string = "2025-11-25", id: string | number = 0): JsonObject {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: version, capabilities: CLIENT_CAPS, clientInfo: CLIENT_INFO },
  };
}

/** A server in operating, drained. */
function operatingServer(options: Partial<EngineOptions> = {}, version: string = "2025-11-25"): Engine {
  const s = newServer(options);
  s.receiveMessage(initializeMessage(version));
  s.receiveMessage({ jsonrpc: "2.0", method: "notifications/initialized" });
  drainOut(s);
  events(s);
  assert.equal(s.phase, "operating");
  return s;
}

/** A client in operating, drained. */
function operatingClient(options: Partial<EngineOptions> = {}, serverCaps: JsonObject = SERVER_CAPS): Engine {
  const c = newClient(options);
  const id = c.initialize();
  const version = newestVersion(c.versions);
  c.receiveMessage({
    jsonrpc: "2.0",
    id,
    result: { protocolVersion: version, capabilities: serverCaps, serverInfo: SERVER_INFO, instructions: "be nice" },
  });
  drainOut(c);
  events(c);
  assert.equal(c.phase, "operating");
  return c;
}

// ── construction ────────────────────────────────────────────────────────────────────

test("constructor: a bad role is a RangeError", () => {
  for (const role of ["peer", "", undefined, null, 1, "Client"]) {
    assert.throws(() => new Engine({ role: role as never, info: CLIENT_INFO }), RangeError, String(role));
  }
});

test("constructor: an empty or unknown version list is a RangeError", () => {
  assert.throws(() => newClient({ versions: [] }), RangeError);
  // 2026-07-28 is a version the engine speaks (modern era): a modern-only client cannot initialize.
  assert.throws(() => newClient({ versions: ["2026-07-28" as SessionVersion] }).initialize(), /L-01/);
  assert.throws(() => newClient({ versions: ["2099-01-01" as SessionVersion] }), RangeError);
  assert.throws(() => newServer({ versions: ["2025-11-25", "1.0" as SessionVersion] }), RangeError);
  assert.throws(() => newServer({ versions: [20241105 as unknown as SessionVersion] }), RangeError);
});

test("constructor: every limit must be a positive integer", () => {
  for (const key of ["maxLineBytes", "maxPendingOutbound", "maxPendingInbound", "maxBatchLength"] as const) {
    for (const bad of [0, -1, 1.5, Number.NaN, Infinity]) {
      assert.throws(
        () => newClient({ limits: { [key]: bad } }),
        (e: unknown) => e instanceof RangeError && e.message.includes(key),
        `${key}=${bad}`,
      );
    }
    assert.doesNotThrow(() => newClient({ limits: { [key]: 1 } }));
  }
});

test("constructor: defaults, and options are kept", () => {
  const c = newClient();
  assert.equal(c.role, "client");
  assert.deepEqual(c.versions, SESSION_VERSIONS);
  assert.deepEqual(
    c.limits,
    { ...DEFAULT_LIMITS, maxLineBytes: DEFAULT_CLIENT_MAX_LINE_BYTES },
    "a client reads results, so its lines may be longer",
  );
  assert.equal(c.strict, false);
  assert.deepEqual(c.ownCapabilities, CLIENT_CAPS);
  const bare = new Engine({ role: "server", info: SERVER_INFO });
  assert.deepEqual(bare.ownCapabilities, {});
  const s = newServer({ strict: true, versions: ["2025-03-26"], limits: { maxBatchLength: 3 } });
  assert.equal(s.strict, true);
  assert.deepEqual(s.versions, ["2025-03-26"]);
  assert.equal(s.limits.maxBatchLength, 3);
  assert.equal(s.limits.maxLineBytes, DEFAULT_LIMITS.maxLineBytes);
});

// ── getters ─────────────────────────────────────────────────────────────────────────

test("L-03: getters before, during and after the handshake (client)", () => {
  const c = newClient();
  assert.equal(c.phase, "awaiting-init");
  assert.equal(c.isClosed, false);
  assert.equal(c.negotiatedVersion, undefined);
  assert.equal(c.peerInfo, undefined);
  assert.equal(c.peerCapabilities, undefined);
  assert.equal(c.instructionsFromPeer, undefined);
  assert.equal(c.pendingOutboundCount, 0);
  assert.equal(c.pendingInboundCount, 0);
  assert.equal(c.nextDeadline(), undefined);
  const id = c.initialize();
  assert.equal(id, 0);
  assert.equal(c.phase, "initializing");
  assert.equal(c.pendingOutboundCount, 1);
  const [init] = drainOut(c);
  assert.deepEqual(init, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: CLIENT_CAPS, clientInfo: CLIENT_INFO },
  });
  c.receiveMessage({
    jsonrpc: "2.0",
    id,
    result: { protocolVersion: "2025-11-25", capabilities: SERVER_CAPS, serverInfo: SERVER_INFO, instructions: "use tools wisely" },
  });
  assert.equal(c.phase, "operating");
  assert.equal(c.negotiatedVersion, "2025-11-25");
  assert.deepEqual(c.peerInfo, SERVER_INFO);
  assert.deepEqual(c.peerCapabilities, SERVER_CAPS);
  assert.equal(c.instructionsFromPeer, "use tools wisely");
  assert.equal(c.pendingOutboundCount, 0);
  assert.deepEqual(drainOut(c), [{ jsonrpc: "2.0", method: "notifications/initialized" }]);
  const ev = events(c);
  assert.deepEqual(
    ev.map((e) => e.kind),
    ["negotiated", "ready"],
  );
  assert.deepEqual(ev[0], {
    kind: "negotiated",
    version: "2025-11-25",
    peerInfo: SERVER_INFO,
    peerCapabilities: SERVER_CAPS,
    instructions: "use tools wisely",
  });
  c.close();
  assert.equal(c.phase, "closed");
  assert.equal(c.isClosed, true);
});

test("L-03: getters through the handshake (server), instructions sent, pending inbound counted", () => {
  const s = newServer({ instructions: "hello" });
  assert.equal(s.phase, "awaiting-init");
  assert.equal(s.resourceNotFoundCode, -32002);
  s.receiveMessage(initializeMessage("2025-06-18", "init-1"));
  assert.equal(s.phase, "initializing");
  assert.equal(s.negotiatedVersion, "2025-06-18");
  assert.deepEqual(s.peerInfo, CLIENT_INFO);
  assert.deepEqual(s.peerCapabilities, CLIENT_CAPS);
  assert.equal(s.instructionsFromPeer, undefined);
  assert.deepEqual(drainOut(s), [
    {
      jsonrpc: "2.0",
      id: "init-1",
      result: { protocolVersion: "2025-06-18", capabilities: SERVER_CAPS, serverInfo: SERVER_INFO, instructions: "hello" },
    },
  ]);
  const ev = events(s);
  assert.deepEqual(ev, [
    { kind: "negotiated", version: "2025-06-18", peerInfo: CLIENT_INFO, peerCapabilities: CLIENT_CAPS, instructions: undefined },
  ]);
  s.receiveMessage({ jsonrpc: "2.0", method: "notifications/initialized" });
  assert.equal(s.phase, "operating");
  assert.deepEqual(events(s), [{ kind: "ready" }]);
  s.receiveMessage({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  s.receiveMessage({ jsonrpc: "2.0", id: "1", method: "tools/list" });
  assert.equal(s.pendingInboundCount, 2, '1 and "1" are different ids');
  s.respond(1, { tools: [] });
  assert.equal(s.pendingInboundCount, 1);
  s.respondError("1", -32603, "boom", { why: "test" });
  assert.equal(s.pendingInboundCount, 0);
  const out = drainOut(s);
  assert.deepEqual(out, [
    { jsonrpc: "2.0", id: 1, result: { tools: [] } },
    { jsonrpc: "2.0", id: "1", error: { code: -32603, message: "boom", data: { why: "test" } } },
  ]);
  assert.equal(s.loggingLevel, undefined);
  assert.equal(s.isSubscribed("file:///x"), false);
});

test("V-03: server: an unsupported client version is answered with our newest version, not an error", () => {
  const s = newServer({ versions: ["2024-11-05", "2025-03-26"] });
  s.receiveMessage(initializeMessage("1999-01-01"));
  const [reply] = drainOut(s);
  assert.equal((reply?.result as JsonObject).protocolVersion, "2025-03-26");
  assert.equal(s.negotiatedVersion, "2025-03-26");
});

// ── outputs ─────────────────────────────────────────────────────────────────────────

test("STD-01: takeBytes: every queued message as NDJSON in one buffer, then undefined", () => {
  const c = newClient();
  assert.equal(c.takeBytes(), undefined);
  c.request("ping");
  c.request("ping", undefined, { relatedRequestId: "r" });
  const bytes = c.takeBytes();
  assert.ok(bytes instanceof Uint8Array);
  assert.equal(new TextDecoder().decode(bytes), '{"jsonrpc":"2.0","id":0,"method":"ping"}\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
  assert.equal(c.takeBytes(), undefined);
  assert.equal(c.pollOutbound(), undefined);
});

test("pollOutbound carries relatedRequestId; pollEvent and takeEvents drain in order", () => {
  const s = operatingServer();
  s.receiveMessage({ jsonrpc: "2.0", id: "req-9", method: "tools/call", params: { name: "t", _meta: { progressToken: "tok" } } });
  const first = s.pollEvent();
  assert.ok(first?.kind === "request" && first.id === "req-9" && first.progressToken === "tok");
  assert.equal(s.pollEvent(), undefined);
  s.notify("notifications/message", { level: "info", data: "working" }, { relatedRequestId: "req-9" });
  s.sendProgress("req-9", 1);
  s.respond("req-9", { content: [] });
  const outs: Outbound[] = [];
  for (let o = s.pollOutbound(); o !== undefined; o = s.pollOutbound()) outs.push(o);
  assert.deepEqual(
    outs.map((o) => o.relatedRequestId),
    ["req-9", "req-9", "req-9"],
  );
  assert.deepEqual(outs[1]?.message, { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "tok", progress: 1 } });
  s.receiveMessage({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
  s.receiveMessage({ jsonrpc: "2.0", method: "vendor/unknown" });
  const into: EngineEvent[] = [{ kind: "ready" }];
  s.takeEvents(into);
  assert.deepEqual(
    into.map((e) => e.kind),
    ["ready", "notification", "diagnostic"],
  );
  s.takeEvents(into);
  assert.equal(into.length, 3);
});

test("ID-03: request: our ids count up from 0 and are never reused, whatever happens to the request", () => {
  const c = operatingClient();
  // initialize used id 0
  const a = c.request("tools/list");
  const b = c.request("tools/list");
  c.cancel(a);
  const d = c.request("tools/list");
  assert.deepEqual([a, b, d], [1, 2, 3]);
});

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

// ── the handshake's failure paths ───────────────────────────────────────────────────

test("L-02: server: malformed initialize params are -32602 (L-02) and the session still waits for a good one", () => {
  const bad: [string, unknown][] = [
    ["params.protocolVersion", undefined],
    ["params.protocolVersion", { capabilities: {}, clientInfo: CLIENT_INFO }],
    ["params.capabilities", { protocolVersion: "2025-11-25", capabilities: [], clientInfo: CLIENT_INFO }],
    ["params.clientInfo", { protocolVersion: "2025-11-25", capabilities: {} }],
    ["params.clientInfo.name", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { version: "1" } }],
    ["params.clientInfo.version", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c" } }],
  ];
  const s = newServer();
  let id = 0;
  for (const [path, params] of bad) {
    const msg: JsonObject = { jsonrpc: "2.0", id: ++id, method: "initialize" };
    if (params !== undefined) msg.params = params;
    s.receiveMessage(msg);
    const [reply] = drainOut(s);
    assert.deepEqual((reply?.error as JsonObject).code, -32602, path);
    assert.equal(((reply?.error as JsonObject).data as JsonObject).path, path);
    assert.ok(
      events(s).some((e) => e.kind === "violation" && e.rule === "L-02"),
      path,
    );
    assert.equal(s.phase, "awaiting-init");
  }
  s.receiveMessage(initializeMessage());
  assert.equal(s.phase, "initializing");
});

test("L-01: server: a second initialize is -32600", () => {
  const s = operatingServer();
  s.receiveMessage(initializeMessage("2025-11-25", 50));
  assert.deepEqual(drainOut(s), [{ jsonrpc: "2.0", id: 50, error: { code: -32600, message: "Invalid request" } }]);
  assert.ok(events(s).some((e) => e.kind === "violation" && e.rule === "L-01"));
});

test("L-01: server with autoInitialize false: the host accepts or refuses initialize", () => {
  const s = newServer({ autoInitialize: false });
  assert.throws(() => s.acceptInitialize(), isRule("L-01"));
  s.receiveMessage(initializeMessage("2025-06-18", "i"));
  assert.deepEqual(drainOut(s), []);
  assert.deepEqual(events(s), [
    { kind: "initialize-request", id: "i", params: initializeMessage("2025-06-18", "i").params as JsonObject, version: "2025-06-18" },
  ]);
  assert.equal(s.phase, "awaiting-init");
  // A second initialize while one waits is refused.
  s.receiveMessage(initializeMessage("2025-06-18", "j"));
  assert.equal((drainOut(s)[0]?.error as JsonObject).code, -32600);
  events(s);
  assert.throws(() => s.respond("i", {}), isRule("L-03"));
  s.acceptInitialize();
  assert.equal(s.phase, "initializing");
  assert.equal((drainOut(s)[0]?.result as JsonObject).protocolVersion, "2025-06-18");
  assert.throws(() => s.acceptInitialize(), isRule("L-01"));

  const r = newServer({ autoInitialize: false });
  r.receiveMessage(initializeMessage("2025-11-25", "k"));
  r.respondError("k", -32602, "Unsupported protocol version", { supported: ["2025-11-25"] });
  assert.deepEqual(drainOut(r), [
    { jsonrpc: "2.0", id: "k", error: { code: -32602, message: "Unsupported protocol version", data: { supported: ["2025-11-25"] } } },
  ]);
  assert.equal(r.phase, "awaiting-init");
  assert.throws(() => r.acceptInitialize(), isRule("L-01"));
  r.receiveMessage(initializeMessage("2025-11-25", "k2"));
  assert.ok(events(r).some((e) => e.kind === "initialize-request" && e.id === "k2"));
});

test("MT-02, L-01: client: initialize is for the client only, once", () => {
  const s = newServer();
  assert.throws(() => s.initialize(), isRule("L-02"));
  const c = newClient();
  c.initialize();
  assert.throws(() => c.initialize(), isRule("L-01"));
  c.close();
  assert.throws(() => c.initialize(), isRule("S-01"));
});

test("L-03, V-04: client: the server's initialize error, a malformed result, or an unsupported version end the session", () => {
  const cases: [string, JsonObject, string, string][] = [
    ["error", { error: { code: -32602, message: "Unsupported protocol version" } }, "error-response", "L-03"],
    ["no version", { result: { capabilities: {}, serverInfo: SERVER_INFO } }, "violation", "L-03"],
    ["caps not object", { result: { protocolVersion: "2025-11-25", capabilities: 1, serverInfo: SERVER_INFO } }, "violation", "L-03"],
    [
      "bad instructions",
      { result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: SERVER_INFO, instructions: 5 } },
      "violation",
      "L-03",
    ],
    ["no serverInfo", { result: { protocolVersion: "2025-11-25", capabilities: {} } }, "violation", "L-03"],
    ["unsupported version", { result: { protocolVersion: "2024-11-05", capabilities: {}, serverInfo: SERVER_INFO } }, "violation", "V-04"],
  ];
  for (const [name, body, firstKind, rule] of cases) {
    const c = newClient({ versions: ["2025-06-18", "2025-11-25"] });
    const id = c.initialize();
    drainOut(c);
    c.receiveMessage({ jsonrpc: "2.0", id, ...body });
    const ev = events(c);
    assert.equal(ev[0]?.kind, firstKind, name);
    const last = ev[ev.length - 1];
    assert.ok(last?.kind === "closed" && last.reason === "fatal" && last.rule === rule, name);
    assert.equal(c.isClosed, true, name);
    assert.deepEqual(drainOut(c), [], `${name}: no initialized sent`);
  }
});

test("V-01: client: the offered version is the newest configured one, and an older answer it speaks is accepted", () => {
  const c = newClient({ versions: ["2024-11-05", "2025-03-26"] });
  const id = c.initialize();
  assert.equal((drainOut(c)[0]?.params as JsonObject).protocolVersion, "2025-03-26");
  c.receiveMessage({ jsonrpc: "2.0", id, result: { protocolVersion: "2024-11-05", capabilities: {}, serverInfo: SERVER_INFO } });
  assert.equal(c.negotiatedVersion, "2024-11-05");
  assert.equal(c.phase, "operating");
  assert.equal(c.instructionsFromPeer, undefined);
});

test("ENG-03, L-13: strict: a server in initializing refuses client requests but still answers ping", () => {
  const s = newServer({ strict: true });
  s.receiveMessage(initializeMessage());
  drainOut(s);
  s.receiveMessage({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  s.receiveMessage({ jsonrpc: "2.0", id: 2, method: "ping" });
  assert.deepEqual(drainOut(s), [
    { jsonrpc: "2.0", id: 1, error: { code: -32600, message: "Invalid request" } },
    { jsonrpc: "2.0", id: 2, result: {} },
  ]);
  const lenient = newServer();
  lenient.receiveMessage(initializeMessage());
  drainOut(lenient);
  lenient.receiveMessage({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  assert.deepEqual(drainOut(lenient), []);
  assert.ok(events(lenient).some((e) => e.kind === "request" && e.id === 1));
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

// ── versions and capability helpers ─────────────────────────────────────────────────

test("isProtocolVersion and isSessionVersion", () => {
  for (const v of SESSION_VERSIONS) {
    assert.equal(isSessionVersion(v), true, v);
    assert.equal(isProtocolVersion(v), true, v);
  }
  for (const v of MODERN_VERSIONS) {
    assert.equal(isSessionVersion(v), false, v);
    assert.equal(isProtocolVersion(v), true, v);
  }
  for (const v of [
    "",
    "2025-11-26",
    "2024-11-5",
    "latest",
    "__proto__",
    "toString",
    "constructor",
    20251125,
    null,
    undefined,
    {},
    ["2025-11-25"],
  ]) {
    assert.equal(isSessionVersion(v), false, String(v));
    assert.equal(isProtocolVersion(v), false, String(v));
  }
});

test("newestVersion picks by release order, not list order", () => {
  assert.equal(newestVersion(["2025-06-18", "2024-11-05", "2025-03-26"]), "2025-06-18");
  assert.equal(newestVersion(["2024-11-05"]), "2024-11-05");
  assert.equal(newestVersion([...SESSION_VERSIONS].reverse()), "2025-11-25");
  assert.equal(newestVersion(["2026-07-28", "2025-11-25"]), "2026-07-28");
  // Profiles are ordered oldest first.
  const ordered = [...SESSION_VERSIONS, ...MODERN_VERSIONS];
  ordered.forEach((v, i) => assert.equal(VERSION_PROFILES[v].index, i));
  assert.deepEqual(
    ordered.filter((v) => VERSION_PROFILES[v].batching),
    ["2025-03-26"],
  );
});

test("capabilityName names one bit by its path and joins several", () => {
  assert.equal(capabilityName(Cap.tools), "tools");
  assert.equal(capabilityName(Cap.resourcesSubscribe), "resources.subscribe");
  assert.equal(capabilityName(Cap.tasksRequestsToolsCall), "tasks.requests.tools.call");
  assert.equal(capabilityName(Cap.elicitationUrl), "elicitation.url");
  assert.equal(capabilityName(Cap.tools | Cap.prompts), "prompts + tools");
  assert.equal(capabilityName(0), "");
  // Every bit has a distinct name.
  const names = new Set(Object.values(Cap).map((bit) => capabilityName(bit)));
  assert.equal(names.size, Object.keys(Cap).length);
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
