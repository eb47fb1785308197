// The Engine's handshake failure paths for both roles: malformed and repeated initialize,
// initialize left to the host, a client's refused, malformed or unsupported answer, the
// offered version, and a strict server in initializing.

import { test } from "node:test";
import assert from "node:assert/strict";
import { type JsonObject } from "../../lib/internal.js";
import {
  CLIENT_INFO,
  SERVER_INFO,
  drainOut,
  events,
  initializeMessage,
  isRule,
  newClient,
  newServer,
  operatingServer,
} from "../support/engine-setup.js";

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
