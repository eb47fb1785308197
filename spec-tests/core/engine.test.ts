// Unit tests of the Engine's public API not covered by the gating and pair suites:
// construction checks, getters, output draining, and the version and capability helpers.
// Commands are in engine-commands.test.ts, inbound traffic in engine-inbound.test.ts, the
// handshake's failure paths in engine-handshake.test.ts.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Cap,
  DEFAULT_CLIENT_MAX_LINE_BYTES,
  DEFAULT_LIMITS,
  Engine,
  MODERN_VERSIONS,
  SESSION_VERSIONS,
  VERSION_PROFILES,
  capabilityName,
  isProtocolVersion,
  isSessionVersion,
  newestVersion,
  type EngineEvent,
  type JsonObject,
  type Outbound,
  type SessionVersion,
} from "../../lib/internal.js";
import {
  CLIENT_CAPS,
  CLIENT_INFO,
  SERVER_CAPS,
  SERVER_INFO,
  drainOut,
  events,
  initializeMessage,
  newClient,
  newServer,
  operatingClient,
  operatingServer,
} from "../support/engine-setup.js";

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
