// The envelope written as bytes (lib/wire/outbound-bytes.ts): for every message it writes, the bytes
// are exactly JSON.stringify of the whole message plus "\n" (ids of every form a peer may send,
// strings with escapes and characters outside ASCII, payloads long enough to grow the slab);
// what it does not write (errors, batch replies, payloads JSON gives no text for) leaves
// nothing behind, so the general path writes it as before; and a drain that mixes the two
// keeps the order of the queue.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Engine, LineEncoder, type JsonObject } from "../../lib/internal.js";
import { EMPTY_RESULT, envelopeJson, writeMessage } from "../../lib/wire/outbound-bytes.js";
import type { JsonRpcMessage } from "../../lib/wire/envelope.js";
import type { Refusal } from "../../lib/wire/outbound-json.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });

const IDS: readonly (string | number)[] = [
  0,
  1,
  9,
  10,
  99,
  100,
  12345,
  999_999_999,
  1_000_000_000,
  2 ** 31,
  2 ** 32 + 7,
  Number.MAX_SAFE_INTEGER,
  -1,
  -0,
  -Number.MAX_SAFE_INTEGER,
  1.5,
  1e21,
  1e-7,
  "",
  "a",
  "1",
  'quote"back\\slash',
  "tab\tnew\nline",
  "\u0000\u001f",
  "é€😀",
  "\u2028\u2029",
  "\ud800",
  "x".repeat(300),
];

const PAYLOADS: readonly JsonObject[] = [
  {},
  { content: [{ type: "text", text: "hello" }] },
  { text: 'é€😀 \u2028 "quoted" \\' },
  { text: "a".repeat(127) },
  { text: "é".repeat(200) },
  { text: "y".repeat(20_000) },
  { text: "z".repeat(70_000) },
  { when: { toJSON: () => "as toJSON says" } },
  { dropped: undefined, kept: null },
];

const METHODS = ["ping", "tools/call", "notifications/progress", "x/é€", 'a"b\\c'];

function messages(): JsonRpcMessage[] {
  const all: JsonRpcMessage[] = [];
  for (const id of IDS) {
    all.push({ jsonrpc: "2.0", id, result: EMPTY_RESULT });
    for (const result of PAYLOADS) all.push({ jsonrpc: "2.0", id, result });
  }
  for (const method of METHODS) {
    all.push({ jsonrpc: "2.0", id: 7, method });
    all.push({ jsonrpc: "2.0", method });
    for (const params of PAYLOADS) {
      all.push({ jsonrpc: "2.0", id: 8, method, params });
      all.push({ jsonrpc: "2.0", method, params });
    }
  }
  return all;
}

function drainOne(encoder: LineEncoder, message: JsonRpcMessage): { written: boolean; text: string } {
  const refused: Refusal[] = [];
  encoder.begin();
  encoder.write('"before"', true); // the message is never first in its drain: offsets inside a slab
  const written = writeMessage(encoder, message, refused);
  assert.equal(refused.length, 0);
  return { written, text: utf8.decode(encoder.take()!).slice('"before"\n'.length) };
}

test("STD-01: every message written as bytes is byte for byte JSON.stringify of the message and a newline", () => {
  const encoder = new LineEncoder();
  let count = 0;
  for (const message of messages()) {
    const { written, text } = drainOne(encoder, message);
    assert.ok(written, `written as bytes: ${JSON.stringify(message).slice(0, 80)}`);
    assert.equal(text, JSON.stringify(message) + "\n");
    count++;
  }
  assert.ok(count > 300);
});

test("STD-01: the ping answer of a request with an id of each form carries that id as JSON writes it", () => {
  for (const id of IDS) {
    const server = new Engine({ role: "server", info: { name: "s", version: "1" } });
    server.receiveMessage({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
    });
    server.receiveMessage({ jsonrpc: "2.0", method: "notifications/initialized" });
    server.takeBytes();
    const line = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"ping"}\n`;
    server.receiveBytes(new TextEncoder().encode(line));
    const answer = utf8.decode(server.takeBytes()!);
    if (typeof id === "number" && !Number.isSafeInteger(id)) {
      assert.match(answer, /"error":\{"code":-32600/, `id ${String(id)} is not a valid id: refused`);
      continue;
    }
    assert.equal(answer, `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{}}\n`);
    assert.deepEqual(JSON.parse(answer), { jsonrpc: "2.0", id: JSON.parse(JSON.stringify(id)) as unknown, result: {} });
  }
});

/** Messages neither writeMessage nor envelopeJson writes: the general path's. */
const GENERAL_PATH: readonly unknown[] = [
  { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } },
  { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } },
  [{ jsonrpc: "2.0", id: 1, result: {} }],
  { jsonrpc: "2.0", id: 1, result: () => 1 },
  { jsonrpc: "2.0", id: 1, method: "x", params: { toJSON: () => undefined } },
  { jsonrpc: "2.0", id: { no: "object ids" }, result: {} },
  { jsonrpc: "2.0", id: { no: "object ids" }, method: "x" },
  { jsonrpc: "2.0", id: 1, result: undefined },
];

test("what is not written as bytes leaves nothing in the drain, so the general path writes it", () => {
  const encoder = new LineEncoder();
  for (const message of GENERAL_PATH) {
    const { written, text } = drainOne(encoder, message as JsonRpcMessage);
    assert.equal(written, false, JSON.stringify(message));
    assert.equal(text, "", "nothing of it left in the drain");
  }
});

test("ENG-09: a payload whose encoding throws is refused once, its toJSON called once, and the drain goes on", () => {
  const encoder = new LineEncoder();
  let calls = 0;
  const hostile = {
    toJSON: () => {
      calls++;
      throw new Error("toJSON exploded");
    },
  };
  const refused: Refusal[] = [];
  encoder.begin();
  assert.ok(writeMessage(encoder, { jsonrpc: "2.0", id: 3, result: { content: [], _meta: hostile } } as JsonRpcMessage, refused));
  assert.ok(writeMessage(encoder, { jsonrpc: "2.0", id: 4, method: "tools/call", params: { _meta: hostile } } as JsonRpcMessage, refused));
  assert.ok(writeMessage(encoder, { jsonrpc: "2.0", id: 5, result: EMPTY_RESULT } as JsonRpcMessage, refused));
  const lines = utf8.decode(encoder.take()!).split("\n");
  assert.equal(calls, 2, "each toJSON ran once");
  assert.deepEqual(
    refused.map((r) => [r.id, r.method]),
    [
      [3, undefined],
      [4, "tools/call"],
    ],
  );
  const answer = JSON.parse(lines[0]!) as { id: number; error: { code: number; message: string } };
  assert.equal(answer.id, 3);
  assert.equal(answer.error.code, -32603);
  assert.match(answer.error.message, /toJSON exploded/);
  assert.equal(lines[1], '{"jsonrpc":"2.0","id":5,"result":{}}', "the request was dropped, the next message follows whole");
  assert.equal(lines.length, 3);
});

test("STD-01: a drain mixing messages written as bytes and by JSON.stringify keeps the queue's order", () => {
  const server = new Engine({ role: "server", info: { name: "s", version: "1" }, capabilities: { tools: {}, logging: {} } });
  const check = new Engine({ role: "server", info: { name: "s", version: "1" }, capabilities: { tools: {}, logging: {} } });
  const init = {
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
  };
  const requests: unknown[] = [];
  for (let i = 0; i < 40; i++) {
    requests.push(
      i % 3 === 0
        ? { jsonrpc: "2.0", id: `p${i}é`, method: "ping" }
        : { jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "t", arguments: {} } },
    );
  }
  requests.push({ jsonrpc: "2.0", id: 99, method: "no/such/method" });
  for (const engine of [server, check]) {
    engine.receiveMessage(init);
    engine.receiveMessage({ jsonrpc: "2.0", method: "notifications/initialized" });
    while (engine.pollOutbound() !== undefined);
    // One request at a time, answered at once, drained only at the end: ping answers (bytes)
    // and the others (JSON.stringify) alternate in the queue.
    for (const request of requests) {
      engine.receiveBytes(new TextEncoder().encode(JSON.stringify(request) + "\n"));
      for (let ev = engine.pollEvent(); ev !== undefined; ev = engine.pollEvent()) {
        if (ev.kind !== "request") continue;
        const n = ev.id as number;
        if (n % 4 === 0) engine.respondError(n, -32000, "no");
        else engine.respond(n, { content: [{ type: "text", text: `answer ${n} ü` }] });
        if (n % 5 === 0) engine.notify("notifications/message", { level: "info", data: "between" });
      }
    }
  }
  const expected: string[] = [];
  for (let out = check.pollOutbound(); out !== undefined; out = check.pollOutbound()) expected.push(JSON.stringify(out.message) + "\n");
  assert.ok(expected.length > 40);
  assert.equal(utf8.decode(server.takeBytes()!), expected.join(""));
});

test("LineEncoder: integer, raw and text across the end of a slab keep the drain in progress whole", () => {
  const encoder = new LineEncoder();
  const head = new TextEncoder().encode('{"n":');
  for (let fill = 16 * 1024 - 40; fill < 16 * 1024; fill++) {
    encoder.begin();
    encoder.write("f".repeat(fill - 1), true); // the next drain starts a few bytes before the slab's end
    encoder.take();
    encoder.begin();
    encoder.raw(head);
    encoder.integer(Number.MAX_SAFE_INTEGER);
    encoder.byte(0x2c);
    encoder.text('"é€😀"');
    encoder.byte(0x2c);
    encoder.integer(0);
    encoder.byte(0x0a);
    assert.equal(utf8.decode(encoder.take()!), `{"n":${Number.MAX_SAFE_INTEGER},"é€😀",0\n`, `slab filled to ${fill}`);
  }
});

test("a message given up after its envelope grew the slab leaves the drain as it was before it", () => {
  const encoder = new LineEncoder();
  for (let fill = 16 * 1024 - 30; fill < 16 * 1024; fill++) {
    encoder.begin();
    encoder.write("f".repeat(fill - 1), true);
    encoder.take();
    encoder.begin();
    encoder.write('"kept"', true);
    const refused: Refusal[] = [];
    // The id and the envelope's bytes go in (growing the slab), then the result has no JSON text.
    assert.equal(writeMessage(encoder, { jsonrpc: "2.0", id: 123456789, result: (() => 1) as unknown as JsonObject }, refused), false);
    assert.ok(writeMessage(encoder, { jsonrpc: "2.0", id: 5, result: EMPTY_RESULT }, refused));
    assert.equal(utf8.decode(encoder.take()!), '"kept"\n{"jsonrpc":"2.0","id":5,"result":{}}\n', `slab filled to ${fill}`);
  }
});

test("STD-01: envelopeJson (a drain of several) gives JSON.stringify of the whole message for every message the bytes path writes", () => {
  let count = 0;
  for (const message of messages()) {
    const refused: Refusal[] = [];
    assert.equal(envelopeJson(message, refused), JSON.stringify(message), JSON.stringify(message).slice(0, 80));
    assert.equal(refused.length, 0);
    count++;
  }
  assert.ok(count > 300);
});

test("envelopeJson leaves errors, batch replies, odd ids and payloads without JSON text to the general path", () => {
  for (const message of GENERAL_PATH) assert.equal(envelopeJson(message as JsonRpcMessage, []), undefined, JSON.stringify(message));
});

test("ENG-09: envelopeJson refuses a payload whose encoding throws once: a -32603 answer for a result, nothing for a request", () => {
  let calls = 0;
  const hostile = {
    toJSON: () => {
      calls++;
      throw new Error("toJSON exploded");
    },
  };
  const refused: Refusal[] = [];
  const answer = envelopeJson({ jsonrpc: "2.0", id: 3, result: { content: [], _meta: hostile } } as JsonRpcMessage, refused);
  const dropped = envelopeJson({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { _meta: hostile } } as JsonRpcMessage, refused);
  assert.equal(calls, 2, "each toJSON ran once");
  assert.equal(dropped, "", "a request of ours that cannot be encoded is dropped");
  const parsed = JSON.parse(answer ?? "null") as { id: number; error: { code: number; message: string } };
  assert.equal(parsed.id, 3);
  assert.equal(parsed.error.code, -32603);
  assert.match(parsed.error.message, /toJSON exploded/);
  assert.deepEqual(
    refused.map((r) => [r.id, r.method]),
    [
      [3, undefined],
      [4, "tools/call"],
    ],
  );
});

test("ENG-09: in a drain of several, a message refused by envelopeJson is replaced or dropped and the others follow in order", () => {
  const engine = new Engine({ role: "server", info: { name: "s", version: "1" }, capabilities: { tools: {}, logging: {} } });
  engine.receiveMessage({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
  });
  engine.receiveMessage({ jsonrpc: "2.0", method: "notifications/initialized" });
  engine.takeBytes();
  const lines = (...ids: number[]): string =>
    ids.map((id) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "t" } }) + "\n").join("");
  engine.receiveBytes(new TextEncoder().encode(lines(1, 2, 3)));
  const hostile = {
    toJSON: () => {
      throw new Error("no JSON");
    },
  };
  engine.respond(1, { content: [{ type: "text", text: "one" }] });
  engine.respond(2, { content: [], _meta: hostile as unknown as JsonObject });
  engine.notify("notifications/message", { level: "info", data: hostile });
  engine.respond(3, { content: [{ type: "text", text: "three" }] });
  const out = utf8
    .decode(engine.takeBytes()!)
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as { id?: number; result?: unknown; error?: { code: number } });
  assert.deepEqual(
    out.map((m) => [m.id, m.error?.code ?? "result"]),
    [
      [1, "result"],
      [2, -32603],
      [3, "result"],
    ],
  );
});
