// What the peer layer's fast paths promise: a synchronous handler is answered in
// the same turn; the answers to one chunk of requests leave in one write; requests a client
// makes in one synchronous run leave in one write; a validation's reused state never leaks
// one call's errors into another's.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Client, Server, validateJsonSchema, type PeerHost } from "../../lib/peer/index.js";
import { lines } from "../support/peer-harness.js";
import { acceptsEveryObject } from "../../lib/json-schema/validator.js";
import { argumentsValidator } from "../../lib/peer/server/registration.js";

const decoder = new TextDecoder();

/** A server session on a host that records each write (as its lines), fed by hand. */
function rawServer(): { feed: (...messages: unknown[]) => void; writes: string[][] } {
  const server = new Server({ info: { name: "fast", version: "1.0.0" } });
  server.tool("now", {}, () => ({ content: [{ type: "text", text: "sync" }] }));
  const writes: string[][] = [];
  const host: PeerHost = {
    write: (bytes) =>
      writes.push(
        decoder
          .decode(bytes)
          .split("\n")
          .filter((l) => l !== ""),
      ),
    now: () => 0,
    armTimer: () => undefined,
  };
  const session = server.connect(host);
  session.receiveBytes(
    lines({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
    }),
  );
  session.receiveBytes(lines({ jsonrpc: "2.0", method: "notifications/initialized" }));
  writes.length = 0;
  return { feed: (...messages) => session.receiveBytes(lines(...messages)), writes };
}

test("a handler that returns a value is answered before receiveBytes returns (no promise turn)", () => {
  const { feed, writes } = rawServer();
  feed({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "now", arguments: {} } });
  assert.equal(writes.length, 1, "answered synchronously");
  assert.deepEqual(JSON.parse(writes[0]?.[0] ?? "null"), { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "sync" }] } });
});

test("the answers to a chunk of three requests leave in one write, in order", () => {
  const { feed, writes } = rawServer();
  const call = (id: number): unknown => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "now", arguments: {} } });
  feed(call(1), call(2), call(3));
  assert.equal(writes.length, 1);
  assert.deepEqual(
    writes[0]?.map((line) => (JSON.parse(line) as { id: number }).id),
    [1, 2, 3],
  );
});

test("requests a client makes in one synchronous run leave in one write", async () => {
  const writes: string[][] = [];
  const host: PeerHost = {
    write: (bytes) =>
      writes.push(
        decoder
          .decode(bytes)
          .split("\n")
          .filter((l) => l !== ""),
      ),
    now: () => 0,
    armTimer: () => undefined,
  };
  const client = new Client(host, { info: { name: "c", version: "1" } });
  const connecting = client.connect();
  await Promise.resolve();
  const initialize = JSON.parse(writes[0]?.[0] ?? "null") as { id: number };
  client.input.receiveBytes(
    lines({
      jsonrpc: "2.0",
      id: initialize.id,
      result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "s", version: "1" } },
    }),
  );
  await connecting;
  writes.length = 0;
  const pings = [client.ping(), client.ping(), client.ping()];
  assert.equal(writes.length, 0, "nothing written during the caller's run");
  await Promise.resolve();
  assert.equal(writes.length, 1, "one write for the three");
  assert.deepEqual(
    writes[0]?.map((line) => (JSON.parse(line) as { method: string }).method),
    ["ping", "ping", "ping"],
  );
  for (const line of writes[0] ?? [])
    client.input.receiveBytes(lines({ jsonrpc: "2.0", id: (JSON.parse(line) as { id: number }).id, result: {} }));
  assert.deepEqual(await Promise.all(pings), [{}, {}, {}]);
});

test("validateJsonSchema: the errors of one call are its own; a later valid or invalid call leaves them as they were", () => {
  const schema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
  const first = validateJsonSchema(schema, { n: "one" });
  assert.equal(first.valid, false);
  const kept = JSON.stringify(first);
  assert.equal(validateJsonSchema(schema, { n: 1 }).valid, true);
  const second = validateJsonSchema(schema, {});
  assert.equal(second.valid, false);
  assert.equal(JSON.stringify(first), kept, "the first result is untouched");
  assert.notEqual(first, second);
  assert.equal(validateJsonSchema(schema, { n: 2 }).valid, true);
  assert.match(JSON.stringify(second), /n/);
});

/** A client past initialize on a host that records each write (as its lines). */
async function rawClient(options: { maxJsonDepth?: number } = {}): Promise<{ client: Client; writes: string[][] }> {
  const writes: string[][] = [];
  const host: PeerHost = {
    write: (bytes) =>
      writes.push(
        decoder
          .decode(bytes)
          .split("\n")
          .filter((l) => l !== ""),
      ),
    now: () => 0,
    armTimer: () => undefined,
  };
  const client = new Client(host, { info: { name: "c", version: "1" }, ...options });
  const connecting = client.connect();
  await Promise.resolve();
  const initialize = JSON.parse(writes[0]?.[0] ?? "null") as { id: number };
  client.input.receiveBytes(
    lines({
      jsonrpc: "2.0",
      id: initialize.id,
      result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } },
    }),
  );
  await connecting;
  writes.length = 0;
  return { client, writes };
}

test("M-03: callTool copies the caller's arguments at the call (its own params object is not copied twice): a later change is not sent, the caller's object is untouched", async () => {
  const { client, writes } = await rawClient();
  const args: Record<string, unknown> = {
    text: "as called",
    nested: { n: 1 },
    dropped: undefined,
    at: { toJSON: (key: string) => `toJSON(${key})` },
  };
  const pending = client.callTool("echo", args);
  args.text = "changed after the call";
  (args.nested as { n: number }).n = 2;
  await Promise.resolve();
  const sent = JSON.parse(writes[0]?.[0] ?? "null") as { id: number; params: unknown };
  assert.deepEqual(sent.params, { name: "echo", arguments: { text: "as called", nested: { n: 1 }, at: "toJSON(at)" } });
  assert.deepEqual(Object.keys(args), ["text", "nested", "dropped", "at"], "the caller's object keeps its keys");
  client.input.receiveBytes(lines({ jsonrpc: "2.0", id: sent.id, result: { content: [] } }));
  assert.deepEqual(await pending, { content: [] });
});

test("M-03: callTool arguments nested past maxJsonDepth are refused at the call with the depth the whole params would have", async () => {
  const { client, writes } = await rawClient({ maxJsonDepth: 3 });
  // params (0) → arguments (1) → a (2) → b (3): too deep for maxJsonDepth 3: the depth counts from params, though the members are copied on their own.
  const refused = await client.callTool("echo", { a: { b: {} } }).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.match(String((refused as Error).message), /nested deeper than 3 levels/);
  const within = client.callTool("echo", { a: 1 });
  await Promise.resolve();
  assert.equal(writes.length, 1, "a call within the bound goes out");
  client.input.receiveBytes(
    lines({ jsonrpc: "2.0", id: (JSON.parse(writes[0]?.[0] ?? "null") as { id: number }).id, result: { content: [] } }),
  );
  await within;
});

test("a tool whose JSON Schema accepts every object runs no validator per call; any other schema or validator still runs", () => {
  for (const schema of [
    { type: "object" },
    { type: "object", properties: {} },
    {
      type: "object",
      properties: {},
      title: "t",
      description: "d",
      additionalProperties: true,
      $schema: "https://json-schema.org/draft/2020-12/schema",
    },
  ]) {
    assert.equal(argumentsValidator({ jsonSchema: schema }), undefined, JSON.stringify(schema));
    assert.equal(acceptsEveryObject(schema), true, JSON.stringify(schema));
  }
  const refusing: object[] = [
    { type: "object", required: ["a"] },
    { type: "object", properties: { a: { type: "string" } } },
    { type: "object", additionalProperties: false },
    { type: "object", additionalProperties: { type: "string" } },
    { type: "object", minProperties: 1 },
    { type: "object", propertyNames: { maxLength: 1 } },
    { type: ["object"] },
    { type: "object", $schema: "http://example.com/unknown-dialect" },
    { type: "object", not: {} },
    {},
  ];
  for (const schema of refusing) {
    const validator = { jsonSchema: schema };
    assert.equal(argumentsValidator(validator), validator, JSON.stringify(schema));
  }
  const fn = (value: unknown): { ok: true; value: unknown } => ({ ok: true, value });
  assert.equal(argumentsValidator(fn), fn, "a validator function always runs");
  assert.equal(argumentsValidator(undefined), undefined);
  assert.equal(acceptsEveryObject(Object.assign(Object.create(null) as object, { type: "object" })), false, "only plain objects qualify");
  const hostile = Object.defineProperty({ type: "object" }, "properties", {
    enumerable: true,
    get: () => {
      throw new Error("no");
    },
  });
  assert.equal(acceptsEveryObject(hostile), false, "a throwing getter answers false");
});

test("TL-01, SCH-01: tools/call: a schema that accepts every object takes any object's arguments; a narrower one still refuses", () => {
  const server = new Server({ info: { name: "fast", version: "1.0.0" } });
  server.tool("open", { inputSchema: { type: "object", properties: {} } }, (args) => ({
    content: [{ type: "text", text: JSON.stringify(args) }],
  }));
  server.tool("closed", { inputSchema: { type: "object", properties: {}, additionalProperties: false } }, () => ({
    content: [{ type: "text", text: "ran" }],
  }));
  const writes: string[] = [];
  const host: PeerHost = {
    write: (bytes) =>
      writes.push(
        ...decoder
          .decode(bytes)
          .split("\n")
          .filter((l) => l !== ""),
      ),
    now: () => 0,
    armTimer: () => undefined,
  };
  const session = server.connect(host);
  session.receiveBytes(
    lines(
      {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
    ),
  );
  writes.length = 0;
  session.receiveBytes(
    lines(
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "open", arguments: { x: 1 } } },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "open" } },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "closed", arguments: { x: 1 } } },
      { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "open", arguments: [1] } },
    ),
  );
  // The engine refuses id 4 itself, before the tools' answers: compared in id order.
  const answers = writes
    .map(
      (line) => JSON.parse(line) as { id: number; result?: { content: { text: string }[]; isError?: boolean }; error?: { code: number } },
    )
    .sort((a, b) => a.id - b.id);
  assert.deepEqual(
    answers.map((a) => a.id),
    [1, 2, 3, 4],
  );
  assert.equal(answers[0]?.result?.content[0]?.text, '{"x":1}');
  assert.equal(answers[1]?.result?.content[0]?.text, "{}");
  assert.equal(answers[2]?.result?.isError, true, "additionalProperties false still refuses");
  assert.match(answers[2]?.result?.content[0]?.text ?? "", /Invalid arguments for tool closed/);
  assert.equal(answers[3]?.error?.code, -32602, "arguments that are not an object never reach the tool");
});
