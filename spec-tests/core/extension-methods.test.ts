// Methods beyond the spec under a declared extension (RULES.md MT-03…MT-06), in the core: the
// gate lets one through only when both sides declared its extension (session era: in the
// initialize exchange, under `extensions` or `experimental`; 2026-07-28: the server's
// capabilities and each request's own clientCapabilities), an undeclared or unknown one is
// refused exactly as before, and a table that would shadow a spec method is refused.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Engine, LocalProtocolError, type EngineEvent, type JsonObject, type JsonRpcMessage } from "../../lib/internal.js";
import { declaredExtensions, extensionMethodTable, isExtensionId, type ExtensionMethod } from "../../lib/rules/custom-methods.js";

const EXT = "com.example/search";
const METHODS: readonly ExtensionMethod[] = [
  { method: "com.example/search/query", extension: EXT, kind: "request", from: "client" },
  { method: "com.example/search/hit", extension: EXT, kind: "notification", from: "server" },
  { method: "com.example/search/hint", extension: EXT, kind: "notification", from: "client" },
];
const DECLARED = { extensions: { [EXT]: {} } };
const INFO = { name: "x", version: "1" };

function outbound(engine: Engine): JsonRpcMessage[] {
  const out: JsonRpcMessage[] = [];
  for (let m = engine.pollOutbound(); m !== undefined; m = engine.pollOutbound()) out.push(m.message as JsonRpcMessage);
  return out;
}

function events(engine: Engine): EngineEvent[] {
  const out: EngineEvent[] = [];
  engine.takeEvents(out);
  return out;
}

/** A client and a server engine through a session-era handshake, each with the capabilities given. */
function sessionPair(
  clientCaps: JsonObject,
  serverCaps: JsonObject,
  methods: readonly ExtensionMethod[] = METHODS,
): { client: Engine<"client">; server: Engine<"server"> } {
  const client = new Engine({ role: "client", info: INFO, capabilities: clientCaps, extensionMethods: methods });
  const server = new Engine({ role: "server", info: INFO, capabilities: serverCaps, extensionMethods: methods });
  client.initialize();
  pump(client, server);
  events(client);
  events(server);
  return { client, server };
}

function pump(a: Engine, b: Engine): void {
  for (let i = 0; i < 10; i++) {
    const ab = outbound(a);
    const ba = outbound(b);
    if (ab.length === 0 && ba.length === 0) return;
    for (const m of ab) b.receiveMessage(m);
    for (const m of ba) a.receiveMessage(m);
  }
}

test("MT-03: session era: a request of an extension both sides declared goes through, its notifications both ways too", () => {
  const { client, server } = sessionPair(DECLARED, DECLARED);
  const id = client.request("com.example/search/query", { q: "x" });
  for (const m of outbound(client)) server.receiveMessage(m);
  const request = events(server).find((e) => e.kind === "request");
  assert.equal(request?.kind === "request" ? request.method : undefined, "com.example/search/query");
  server.respond(request?.kind === "request" ? request.id : -1, { hits: ["a"] });
  server.notify("com.example/search/hit", { n: 1 });
  for (const m of outbound(server)) client.receiveMessage(m);
  const got = events(client);
  assert.deepEqual(
    got.filter((e) => e.kind === "response").map((e) => (e.kind === "response" ? [e.id, e.result] : [])),
    [[id, { hits: ["a"] }]],
  );
  assert.deepEqual(
    got.filter((e) => e.kind === "notification").map((e) => (e.kind === "notification" ? e.method : "")),
    ["com.example/search/hit"],
  );
  client.notify("com.example/search/hint", {});
  for (const m of outbound(client)) server.receiveMessage(m);
  assert.ok(events(server).some((e) => e.kind === "notification" && e.method === "com.example/search/hint"));
});

test("MT-03: session era: `experimental` is the era's own slot, read like `extensions`", () => {
  const { client, server } = sessionPair({ experimental: { [EXT]: {} } }, DECLARED);
  client.request("com.example/search/query", {});
  for (const m of outbound(client)) server.receiveMessage(m);
  assert.ok(events(server).some((e) => e.kind === "request" && e.method === "com.example/search/query"));
});

test("MT-03: our host cannot send an extension method the peer did not declare (LocalProtocolError, nothing sent)", () => {
  const { client } = sessionPair(DECLARED, {});
  assert.throws(
    () => client.request("com.example/search/query", {}),
    (e: unknown) => e instanceof LocalProtocolError && e.rule === "MT-03" && /peer's capabilities/.test(e.expected),
  );
  assert.deepEqual(outbound(client), []);
  const { client: undeclared } = sessionPair({}, DECLARED);
  assert.throws(
    () => undeclared.request("com.example/search/query", {}),
    (e: unknown) => e instanceof LocalProtocolError && e.rule === "MT-03" && /our capabilities/.test(e.expected),
  );
});

test("MT-03: a peer's extension request is -32601 when either side did not declare the extension", () => {
  for (const [clientCaps, serverCaps] of [
    [{}, DECLARED],
    [DECLARED, {}],
    [{ extensions: { [EXT]: true } }, DECLARED],
  ] as const) {
    const { server } = sessionPair(clientCaps as JsonObject, serverCaps as JsonObject);
    server.receiveMessage({ jsonrpc: "2.0", id: 9, method: "com.example/search/query", params: {} });
    const reply = outbound(server)[0] as { error?: { code: number } };
    assert.equal(reply.error?.code, -32601, JSON.stringify([clientCaps, serverCaps]));
    const violation = events(server).find((e) => e.kind === "violation");
    assert.equal(violation?.kind === "violation" ? violation.rule : undefined, "MT-03");
  }
});

test("MT-01: unchanged: a method outside the spec that no extension names is refused even when extensions are declared", () => {
  const { server } = sessionPair(DECLARED, DECLARED);
  server.receiveMessage({ jsonrpc: "2.0", id: 3, method: "com.example/search/other", params: {} });
  assert.equal((outbound(server)[0] as { error?: { code: number } }).error?.code, -32601);
  assert.equal((events(server).find((e) => e.kind === "violation") as { rule?: string } | undefined)?.rule, "MT-01");
});

test("MT-02, M-02: they hold for extension methods: the wrong sender or kind is refused", () => {
  const { client, server } = sessionPair(DECLARED, DECLARED);
  assert.throws(
    () => server.notify("com.example/search/hint", {}),
    (e: unknown) => e instanceof LocalProtocolError && e.rule === "MT-02",
  );
  assert.throws(
    () => client.notify("com.example/search/query", {}),
    (e: unknown) => e instanceof LocalProtocolError && e.rule === "M-02",
  );
  server.receiveMessage({ jsonrpc: "2.0", method: "com.example/search/hit", params: {} });
  assert.ok(events(server).some((e) => e.kind === "violation" && e.rule === "MT-02"));
  server.receiveMessage({ jsonrpc: "2.0", id: 4, method: "com.example/search/hit", params: {} });
  assert.equal((outbound(server)[0] as { error?: { code: number } }).error?.code, -32600);
});

test("MT-03: extension methods wait for the operating phase", () => {
  const client = new Engine({ role: "client", info: INFO, capabilities: DECLARED, extensionMethods: METHODS });
  assert.throws(
    () => client.request("com.example/search/query", {}),
    (e: unknown) => e instanceof LocalProtocolError && e.rule === "L-10",
  );
});

test("MT-04, MT-06: a table naming a spec method (any version) or a malformed extension id is refused at construction", () => {
  for (const method of ["tools/call", "ping", "tasks/update", "notifications/initialized", "tasks/result"]) {
    assert.throws(
      () => new Engine({ role: "server", info: INFO, extensionMethods: [{ method, extension: EXT, kind: "request", from: "client" }] }),
      /MT-04/,
      method,
    );
  }
  for (const extension of ["search", "/search", "com..example/x", "com.example/", "", "1com/x"]) {
    assert.throws(() => extensionMethodTable([{ method: "x/y", extension, kind: "request", from: "client" }]), /MT-06/, extension);
  }
  assert.throws(() => extensionMethodTable([METHODS[0] as ExtensionMethod, METHODS[0] as ExtensionMethod]), /twice/);
  assert.throws(() => extensionMethodTable([{ method: "x/y", extension: EXT, kind: "call" as never, from: "client" }]), /kind/);
  assert.throws(() => extensionMethodTable([{ method: "x/y", extension: EXT, kind: "request", from: "both" as never }]), /sender/);
  assert.throws(() => extensionMethodTable([{ method: "", extension: EXT, kind: "request", from: "client" }]), /MT-04/);
  assert.ok(isExtensionId("io.modelcontextprotocol/tasks") && isExtensionId("example/x") && !isExtensionId(7));
});

test("ENG-06: declaredExtensions: own keys whose value is an object, per era; a peer's __proto__ key is only a name", () => {
  const caps = JSON.parse('{"extensions":{"a.b/c":{},"off/x":false,"__proto__":{}},"experimental":{"e.f/g":{}}}') as JsonObject;
  assert.deepEqual([...declaredExtensions(caps, "modern")].sort(), ["__proto__", "a.b/c"]);
  assert.deepEqual([...declaredExtensions(caps, "session")].sort(), ["__proto__", "a.b/c", "e.f/g"]);
  assert.equal(declaredExtensions("nope", "session").size, 0);
});

// ── 2026-07-28 ────────────────────────────────────────────────────────────────────

const ENVELOPE_META = (caps: JsonObject): JsonObject => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": caps,
  "io.modelcontextprotocol/clientInfo": INFO,
});

function modernServer(serverCaps: JsonObject): Engine<"server"> {
  return new Engine({ role: "server", info: INFO, versions: ["2026-07-28"], capabilities: serverCaps, extensionMethods: METHODS });
}

test("MT-05: 2026-07-28: the request's own clientCapabilities must declare the extension (-32021 naming it), the server's offer too (-32601)", () => {
  const server = modernServer(DECLARED);
  server.receiveMessage({ jsonrpc: "2.0", id: 1, method: "com.example/search/query", params: { _meta: ENVELOPE_META({}) } });
  const refused = outbound(server)[0] as { error?: { code: number; data: unknown } };
  assert.equal(refused.error?.code, -32021);
  assert.deepEqual(refused.error?.data, { requiredCapabilities: { extensions: { [EXT]: {} } } });
  server.receiveMessage({ jsonrpc: "2.0", id: 2, method: "com.example/search/query", params: { _meta: ENVELOPE_META(DECLARED) } });
  const request = events(server).find((e) => e.kind === "request");
  assert.ok(request?.kind === "request" && request.id === 2);
  // Its notification goes with that request, and only with a request that declared the extension.
  assert.equal(server.notify("com.example/search/hit", { n: 1 }, { relatedRequestId: 2 }), true);
  assert.throws(
    () => server.notify("com.example/search/hit", {}),
    (e: unknown) => e instanceof LocalProtocolError && e.rule === "MT-05",
  );
  server.respond(2, { hits: [] });
  const sent = outbound(server);
  assert.deepEqual(sent[0], { jsonrpc: "2.0", method: "com.example/search/hit", params: { n: 1 } });
  assert.equal((sent[1] as { result?: { resultType?: string } }).result?.resultType, "complete");

  const offering = modernServer({});
  offering.receiveMessage({ jsonrpc: "2.0", id: 3, method: "com.example/search/query", params: { _meta: ENVELOPE_META(DECLARED) } });
  assert.equal((outbound(offering)[0] as { error?: { code: number } }).error?.code, -32601);
});

test("MT-05: 2026-07-28: a client notification of an extension carries no declaration and is dropped", () => {
  const server = modernServer(DECLARED);
  server.receiveMessage({ jsonrpc: "2.0", id: 1, method: "com.example/search/query", params: { _meta: ENVELOPE_META(DECLARED) } });
  events(server);
  server.receiveMessage({ jsonrpc: "2.0", method: "com.example/search/hint", params: {} });
  const got = events(server);
  assert.ok(!got.some((e) => e.kind === "notification"));
  assert.ok(got.some((e) => e.kind === "diagnostic" && e.rule === "MT-05"));
});

test("MT-03: 2026-07-28 client: it sends an extension request once the server's discover result offers it, and hears its notifications", () => {
  const client = new Engine({ role: "client", info: INFO, versions: ["2026-07-28"], capabilities: DECLARED, extensionMethods: METHODS });
  client.startModern();
  const discover = client.request("server/discover");
  outbound(client);
  client.receiveMessage({
    jsonrpc: "2.0",
    id: discover,
    result: { resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: DECLARED, serverInfo: INFO },
  });
  events(client);
  const id = client.request("com.example/search/query", { q: 1 });
  const sent = outbound(client)[0] as { params?: { _meta?: JsonObject } };
  assert.deepEqual((sent.params?._meta?.["io.modelcontextprotocol/clientCapabilities"] as JsonObject | undefined)?.extensions, {
    [EXT]: {},
  });
  client.receiveMessage({ jsonrpc: "2.0", method: "com.example/search/hit", params: { n: 2 } });
  client.receiveMessage({ jsonrpc: "2.0", id, result: { resultType: "complete", hits: [] } });
  const got = events(client);
  assert.ok(got.some((e) => e.kind === "notification" && e.method === "com.example/search/hit"));
  assert.ok(got.some((e) => e.kind === "response" && e.id === id));

  const plain = new Engine({ role: "client", info: INFO, versions: ["2026-07-28"], capabilities: DECLARED, extensionMethods: METHODS });
  plain.startModern();
  const d = plain.request("server/discover");
  plain.receiveMessage({
    jsonrpc: "2.0",
    id: d,
    result: { resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: {}, serverInfo: INFO },
  });
  assert.throws(
    () => plain.request("com.example/search/query", {}),
    (e: unknown) => e instanceof LocalProtocolError && e.rule === "MT-03",
  );
});

const SERVER_GATED: readonly ExtensionMethod[] = [
  { method: "com.example/search/query", extension: EXT, kind: "request", from: "client", gatedBy: "server" },
];

test("SK-01: a server-gated method passes on the server's declaration alone, in both eras; without it, it is -32601 (SK-01)", () => {
  const { server } = sessionPair({}, DECLARED, SERVER_GATED);
  server.receiveMessage({ jsonrpc: "2.0", id: 1, method: "com.example/search/query", params: {} });
  assert.ok(events(server).some((e) => e.kind === "request" && e.id === 1));
  const modern = new Engine({
    role: "server",
    info: INFO,
    versions: ["2026-07-28"],
    capabilities: DECLARED,
    extensionMethods: SERVER_GATED,
  });
  modern.receiveMessage({ jsonrpc: "2.0", id: 2, method: "com.example/search/query", params: { _meta: ENVELOPE_META({}) } });
  assert.ok(events(modern).some((e) => e.kind === "request" && e.id === 2));
  const { server: undeclared, client } = sessionPair({}, {}, SERVER_GATED);
  undeclared.receiveMessage({ jsonrpc: "2.0", id: 3, method: "com.example/search/query", params: {} });
  assert.equal((outbound(undeclared)[0] as { error?: { code: number } }).error?.code, -32601);
  assert.ok(events(undeclared).some((e) => e.kind === "violation" && e.rule === "SK-01"));
  // Our client does not send it to a server that did not declare it.
  assert.throws(
    () => client.request("com.example/search/query", {}),
    (e: unknown) => e instanceof LocalProtocolError && e.rule === "SK-01",
  );
});

test('SK-01: a table\'s gating is "both" or "server"; anything else is refused at construction', () => {
  assert.equal(extensionMethodTable(SERVER_GATED).get("com.example/search/query")?.gatedBy, "server");
  assert.equal(extensionMethodTable(METHODS).get("com.example/search/query")?.gatedBy, "both");
  assert.throws(() => extensionMethodTable([{ ...(SERVER_GATED[0] as ExtensionMethod), gatedBy: "client" as never }]), /gating/);
});
