// ENG-09: a message of ours that JSON cannot encode (a BigInt, a cycle, a toJSON or getter
// that throws) is refused alone when the outbound queue is encoded (takeBytes): the answer to
// a peer's request becomes -32603 for that request only, any other message is dropped, a
// diagnostic says which and why, and everything else queued in the same drain still goes out.
// Before, JSON.stringify threw out of takeBytes in the middle of the drain and took the
// messages already dequeued with it.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Engine, type EngineEvent, type JsonObject } from "../../lib/index.js";

function operatingServer(version = "2025-11-25"): Engine<"server"> {
  const server = new Engine({ role: "server", info: { name: "s", version: "1" }, capabilities: { tools: {}, logging: {} } });
  server.receiveMessage({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "c", version: "1" } },
  });
  server.receiveMessage({ jsonrpc: "2.0", method: "notifications/initialized" });
  while (server.pollOutbound() !== undefined);
  while (server.pollEvent() !== undefined);
  return server;
}

function lines(bytes: Uint8Array | undefined): JsonObject[] {
  assert.ok(bytes !== undefined, "the drain has bytes");
  const text = new TextDecoder().decode(bytes);
  assert.ok(text.endsWith("\n"));
  return text
    .slice(0, -1)
    .split("\n")
    .map((line) => JSON.parse(line) as JsonObject);
}

function events(engine: Engine): EngineEvent[] {
  const out: EngineEvent[] = [];
  engine.takeEvents(out);
  return out;
}

const cyclic = (): JsonObject => {
  const value: JsonObject = { content: [] };
  (value as Record<string, unknown>).self = value;
  return value;
};

const HOSTILE: ReadonlyArray<readonly [string, () => object, RegExp]> = [
  ["a BigInt", () => ({ content: [], structuredContent: { n: 10n } }), /BigInt/],
  ["a cycle", cyclic, /circular/i],
  [
    "a throwing toJSON",
    () => ({
      content: [],
      _meta: {
        toJSON: () => {
          throw new Error("toJSON exploded");
        },
      },
    }),
    /toJSON exploded/,
  ],
  [
    "a throwing getter",
    () => ({
      content: [],
      get structuredContent(): unknown {
        throw new Error("getter exploded");
      },
    }),
    /getter exploded/,
  ],
  [
    "a throw of a non-Error",
    () => ({
      content: [],
      _meta: {
        toJSON: () => {
          throw 42;
        },
      },
    }),
    /number/,
  ],
];

for (const [what, make, reason] of HOSTILE) {
  test(`ENG-09: a result holding ${what} is answered -32603 for its request alone; the rest of the drain goes out`, () => {
    const server = operatingServer();
    for (const id of [1, 2, 3]) server.receiveMessage({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "t", arguments: {} } });
    events(server);
    server.respond(1, { content: [{ type: "text", text: "before" }] });
    server.respond(2, make());
    server.respond(3, { content: [{ type: "text", text: "after" }] });
    const out = lines(server.takeBytes());
    assert.equal(out.length, 3);
    assert.deepEqual(out[0], { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "before" }] } });
    assert.equal(out[1]?.id, 2);
    const error = out[1]?.error as { code: number; message: string };
    assert.equal(error.code, -32603);
    assert.match(error.message, /cannot be encoded as JSON/);
    assert.match(error.message, reason);
    assert.deepEqual(out[2], { jsonrpc: "2.0", id: 3, result: { content: [{ type: "text", text: "after" }] } });
    const diagnostics = events(server).filter((e) => e.kind === "diagnostic");
    assert.equal(diagnostics.length, 1);
    assert.equal(diagnostics[0]?.kind === "diagnostic" && diagnostics[0].rule, "ENG-09");
    assert.equal(server.isClosed, false);
    assert.equal(server.takeBytes(), undefined, "nothing is left behind to throw again");
  });
}

test("ENG-09: a lone unencodable answer (the one-message drain) becomes -32603 too", () => {
  const server = operatingServer();
  server.receiveMessage({ jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "t", arguments: {} } });
  events(server);
  server.respond("a", { content: [], structuredContent: { n: 1n } });
  const out = lines(server.takeBytes());
  assert.equal(out.length, 1);
  assert.equal(out[0]?.id, "a");
  assert.equal((out[0]?.error as { code: number }).code, -32603);
});

test("ENG-09: an error answer whose data cannot be encoded becomes a plain -32603", () => {
  const server = operatingServer();
  server.receiveMessage({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "t", arguments: {} } });
  events(server);
  server.respondError(7, -32000, "custom", { big: 2n });
  const out = lines(server.takeBytes());
  assert.deepEqual(Object.keys(out[0] ?? {}), ["jsonrpc", "id", "error"]);
  assert.equal((out[0]?.error as { code: number }).code, -32603);
});

test("ENG-09: a notification JSON cannot encode is dropped and reported; the messages around it go out", () => {
  const server = operatingServer();
  server.notify("notifications/message", { level: "info", data: "first" });
  server.notify("notifications/message", { level: "info", data: { n: 3n } });
  server.notify("notifications/message", { level: "info", data: "third" });
  const out = lines(server.takeBytes());
  assert.deepEqual(
    out.map((m) => (m.params as { data: unknown }).data),
    ["first", "third"],
  );
  const diagnostic = events(server).find((e) => e.kind === "diagnostic");
  assert.ok(
    diagnostic?.kind === "diagnostic" && diagnostic.rule === "ENG-09" && diagnostic.method === "notifications/message",
    JSON.stringify(diagnostic),
  );
});

test("ENG-09, M-09: inside a 2025-03-26 batch reply, only the unencodable answer becomes -32603", () => {
  const server = operatingServer("2025-03-26");
  server.receiveMessage([
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t", arguments: {} } },
    { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "t", arguments: {} } },
  ]);
  events(server);
  server.respond(1, cyclic());
  server.respond(2, { content: [] });
  const out = lines(server.takeBytes());
  assert.equal(out.length, 1);
  const batch = out[0] as unknown as JsonObject[];
  assert.ok(Array.isArray(batch));
  assert.equal(batch.length, 2);
  assert.equal((batch[0]?.error as { code: number }).code, -32603);
  assert.deepEqual(batch[1], { jsonrpc: "2.0", id: 2, result: { content: [] } });
});

test("ENG-09: a request of ours whose params cannot be encoded is dropped and reported; it still times out", () => {
  const client = new Engine({ role: "client", info: { name: "c", version: "1" } });
  client.initialize();
  client.receiveMessage({
    jsonrpc: "2.0",
    id: 0,
    result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } },
  });
  while (client.pollOutbound() !== undefined);
  events(client);
  const bad = client.request("tools/call", { name: "t", arguments: { n: 5n } } as never, { deadline: 100 });
  client.request("ping");
  const out = lines(client.takeBytes());
  assert.deepEqual(
    out.map((m) => m.method),
    ["ping"],
  );
  const diagnostic = events(client).find((e) => e.kind === "diagnostic");
  assert.ok(
    diagnostic?.kind === "diagnostic" && diagnostic.rule === "ENG-09" && diagnostic.method === "tools/call",
    JSON.stringify(diagnostic),
  );
  client.handleTimeout(100);
  assert.ok(events(client).some((e) => e.kind === "timeout" && e.id === bad));
});
