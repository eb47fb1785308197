// JSON-RPC envelope classification (RULES.md M-01..M-07/M-09, ID-01/ID-02/ID-04, M-10, ID-02):
// a data-driven catalogue of malformed envelopes with the rule, shape and id classify() must
// report; the valid edge cases (odd but legal ids, null-id errors, extra members, batches);
// and prototype-pollution safety of classify() and LineDecoder.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LineDecoder, classify, isJsonObject, isRequestId } from "../../lib/index.js";
import type { DecodedItem, Envelope, InvalidShape, RequestId } from "../../lib/index.js";

type Kind = Envelope["kind"];

function expectKind<K extends Kind>(env: Envelope, kind: K): Extract<Envelope, { kind: K }> {
  if (env.kind !== kind) assert.fail(`expected a ${kind} envelope; got ${JSON.stringify(env)}`);
  return env as Extract<Envelope, { kind: K }>;
}

function sortedKeys(value: object): string[] {
  return Object.keys(value).sort();
}

// ---------------------------------------------------------------------------------------
// Catalogue of malformed envelopes. `json` is wire text (parsed with JSON.parse, exactly as
// the engine receives it); `got`, when given, is the exact "got" description expected.

interface Bad {
  name: string;
  json: string;
  rule: string;
  shape: InvalidShape;
  id: RequestId | null;
  got?: string;
}

const catalogue: Bad[] = [
  // Not an object at all (M-01).
  { name: "a number", json: "1", rule: "M-01", shape: "unknown", id: null, got: "number 1" },
  { name: "a string", json: '"hello"', rule: "M-01", shape: "unknown", id: null, got: 'string "hello"' },
  { name: "null", json: "null", rule: "M-01", shape: "unknown", id: null, got: "null" },
  { name: "true", json: "true", rule: "M-01", shape: "unknown", id: null, got: "boolean true" },
  { name: "false", json: "false", rule: "M-01", shape: "unknown", id: null, got: "boolean false" },

  // jsonrpc member wrong or missing (M-01); the shape is still read so the reply decision holds.
  { name: "request, jsonrpc missing", json: '{"id":1,"method":"ping"}', rule: "M-01", shape: "request", id: 1, got: "absent" },
  {
    name: 'request, jsonrpc "1.0"',
    json: '{"jsonrpc":"1.0","id":1,"method":"ping"}',
    rule: "M-01",
    shape: "request",
    id: 1,
    got: 'string "1.0"',
  },
  {
    name: "request, jsonrpc the number 2",
    json: '{"jsonrpc":2,"id":1,"method":"ping"}',
    rule: "M-01",
    shape: "request",
    id: 1,
    got: "number 2",
  },
  {
    name: 'request, jsonrpc "2.0 " (trailing space)',
    json: '{"jsonrpc":"2.0 ","id":1,"method":"ping"}',
    rule: "M-01",
    shape: "request",
    id: 1,
  },
  {
    name: "request, jsonrpc null",
    json: '{"jsonrpc":null,"id":"a","method":"ping"}',
    rule: "M-01",
    shape: "request",
    id: "a",
    got: "null",
  },
  { name: "notification, jsonrpc missing", json: '{"method":"notifications/initialized"}', rule: "M-01", shape: "notification", id: null },
  { name: "result response, jsonrpc missing", json: '{"id":1,"result":{}}', rule: "M-01", shape: "response", id: 1 },
  {
    name: 'error response, jsonrpc "1.0"',
    json: '{"jsonrpc":"1.0","id":2,"error":{"code":-32600,"message":"x"}}',
    rule: "M-01",
    shape: "response",
    id: 2,
  },
  { name: "empty object", json: "{}", rule: "M-01", shape: "unknown", id: null },
  { name: "only an id, jsonrpc missing", json: '{"id":4}', rule: "M-01", shape: "unknown", id: 4 },

  // Request ids (ID-01, ID-02): refused, never rounded or coerced; a null id is not a notification.
  {
    name: "request with id null (not a notification)",
    json: '{"jsonrpc":"2.0","id":null,"method":"ping"}',
    rule: "ID-02",
    shape: "request",
    id: null,
    got: "null",
  },
  {
    name: "request with id null and params",
    json: '{"jsonrpc":"2.0","id":null,"method":"tools/list","params":{}}',
    rule: "ID-02",
    shape: "request",
    id: null,
  },
  {
    name: "request with fractional id 1.5",
    json: '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
    rule: "ID-01",
    shape: "request",
    id: null,
    got: "number 1.5",
  },
  {
    name: "request with id 2^53 (above 2^53-1)",
    json: '{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}',
    rule: "ID-01",
    shape: "request",
    id: null,
    got: "number 9007199254740992",
  },
  {
    name: "request with id 2^53+1 (JSON.parse rounds it; still refused)",
    json: '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}',
    rule: "ID-01",
    shape: "request",
    id: null,
  },
  {
    name: "request with id -2^53 (below -(2^53-1))",
    json: '{"jsonrpc":"2.0","id":-9007199254740992,"method":"ping"}',
    rule: "ID-01",
    shape: "request",
    id: null,
    got: "number -9007199254740992",
  },
  { name: "request with id 1e300", json: '{"jsonrpc":"2.0","id":1e300,"method":"ping"}', rule: "ID-01", shape: "request", id: null },
  {
    name: "request with id an object",
    json: '{"jsonrpc":"2.0","id":{},"method":"ping"}',
    rule: "ID-01",
    shape: "request",
    id: null,
    got: "object",
  },
  {
    name: "request with id an empty array",
    json: '{"jsonrpc":"2.0","id":[],"method":"ping"}',
    rule: "ID-01",
    shape: "request",
    id: null,
    got: "array(0)",
  },
  {
    name: "request with id [1]",
    json: '{"jsonrpc":"2.0","id":[1],"method":"ping"}',
    rule: "ID-01",
    shape: "request",
    id: null,
    got: "array(1)",
  },
  {
    name: "request with id true",
    json: '{"jsonrpc":"2.0","id":true,"method":"ping"}',
    rule: "ID-01",
    shape: "request",
    id: null,
    got: "boolean true",
  },
  {
    name: "request with id false",
    json: '{"jsonrpc":"2.0","id":false,"method":"ping"}',
    rule: "ID-01",
    shape: "request",
    id: null,
    got: "boolean false",
  },

  // method not a string (M-02).
  { name: "method a number", json: '{"jsonrpc":"2.0","id":1,"method":42}', rule: "M-02", shape: "request", id: 1, got: "number 42" },
  { name: "method null", json: '{"jsonrpc":"2.0","id":1,"method":null}', rule: "M-02", shape: "request", id: 1, got: "null" },
  { name: "method an object, no id", json: '{"jsonrpc":"2.0","method":{}}', rule: "M-02", shape: "notification", id: null, got: "object" },
  { name: "method an array", json: '{"jsonrpc":"2.0","id":"r","method":["ping"]}', rule: "M-02", shape: "request", id: "r" },
  { name: "method a boolean, no id", json: '{"jsonrpc":"2.0","method":true}', rule: "M-02", shape: "notification", id: null },

  // params not an object (M-03); the id stays readable so the -32602/-32600 reply can echo it.
  {
    name: "params an empty array",
    json: '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":[]}',
    rule: "M-03",
    shape: "request",
    id: 3,
    got: "array(0)",
  },
  {
    name: "params a positional array, notification",
    json: '{"jsonrpc":"2.0","method":"n","params":[1,2]}',
    rule: "M-03",
    shape: "notification",
    id: null,
    got: "array(2)",
  },
  {
    name: "params a string",
    json: '{"jsonrpc":"2.0","id":3,"method":"x","params":"a"}',
    rule: "M-03",
    shape: "request",
    id: 3,
    got: 'string "a"',
  },
  {
    name: "params a number",
    json: '{"jsonrpc":"2.0","id":3,"method":"x","params":7}',
    rule: "M-03",
    shape: "request",
    id: 3,
    got: "number 7",
  },
  { name: "params null", json: '{"jsonrpc":"2.0","id":3,"method":"x","params":null}', rule: "M-03", shape: "request", id: 3, got: "null" },
  { name: "params false", json: '{"jsonrpc":"2.0","id":"", "method":"x","params":false}', rule: "M-03", shape: "request", id: "" },

  // result not an object, or no id to attach it to (M-04).
  { name: "result an array", json: '{"jsonrpc":"2.0","id":1,"result":[]}', rule: "M-04", shape: "response", id: 1, got: "array(0)" },
  { name: "result null", json: '{"jsonrpc":"2.0","id":1,"result":null}', rule: "M-04", shape: "response", id: 1, got: "null" },
  { name: "result a string", json: '{"jsonrpc":"2.0","id":1,"result":"ok"}', rule: "M-04", shape: "response", id: 1, got: 'string "ok"' },
  { name: "result a number", json: '{"jsonrpc":"2.0","id":1,"result":0}', rule: "M-04", shape: "response", id: 1, got: "number 0" },
  { name: "result a boolean", json: '{"jsonrpc":"2.0","id":"q","result":true}', rule: "M-04", shape: "response", id: "q" },
  { name: "result without an id", json: '{"jsonrpc":"2.0","result":{}}', rule: "M-04", shape: "response", id: null, got: "absent" },

  // error member malformed (M-05).
  { name: "error a string", json: '{"jsonrpc":"2.0","id":1,"error":"boom"}', rule: "M-05", shape: "response", id: 1, got: 'string "boom"' },
  { name: "error null", json: '{"jsonrpc":"2.0","id":1,"error":null}', rule: "M-05", shape: "response", id: 1, got: "null" },
  {
    name: "error an array",
    json: '{"jsonrpc":"2.0","id":1,"error":[-32600,"x"]}',
    rule: "M-05",
    shape: "response",
    id: 1,
    got: "array(2)",
  },
  { name: "error a number", json: '{"jsonrpc":"2.0","id":1,"error":-32600}', rule: "M-05", shape: "response", id: 1 },
  { name: "error not an object, id null", json: '{"jsonrpc":"2.0","id":null,"error":"boom"}', rule: "M-05", shape: "response", id: null },
  {
    name: "error.code missing",
    json: '{"jsonrpc":"2.0","id":1,"error":{"message":"x"}}',
    rule: "M-05",
    shape: "response",
    id: 1,
    got: "absent",
  },
  {
    name: "error.code a string",
    json: '{"jsonrpc":"2.0","id":1,"error":{"code":"-32600","message":"x"}}',
    rule: "M-05",
    shape: "response",
    id: 1,
    got: 'string "-32600"',
  },
  {
    name: "error.code fractional",
    json: '{"jsonrpc":"2.0","id":1,"error":{"code":-32600.5,"message":"x"}}',
    rule: "M-05",
    shape: "response",
    id: 1,
    got: "number -32600.5",
  },
  {
    name: "error.code null",
    json: '{"jsonrpc":"2.0","id":1,"error":{"code":null,"message":"x"}}',
    rule: "M-05",
    shape: "response",
    id: 1,
    got: "null",
  },
  {
    name: "error.message missing",
    json: '{"jsonrpc":"2.0","id":1,"error":{"code":-32603}}',
    rule: "M-05",
    shape: "response",
    id: 1,
    got: "absent",
  },
  {
    name: "error.message a number",
    json: '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":42}}',
    rule: "M-05",
    shape: "response",
    id: 1,
    got: "number 42",
  },
  {
    name: "error.message null, no id",
    json: '{"jsonrpc":"2.0","error":{"code":-32603,"message":null}}',
    rule: "M-05",
    shape: "response",
    id: null,
    got: "null",
  },

  // result and error together (M-07).
  {
    name: "both result and error",
    json: '{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}',
    rule: "M-07",
    shape: "response",
    id: 1,
  },
  {
    name: "both result and error, both null",
    json: '{"jsonrpc":"2.0","id":1,"result":null,"error":null}',
    rule: "M-07",
    shape: "response",
    id: 1,
  },
  {
    name: "both result and error, invalid id",
    json: '{"jsonrpc":"2.0","id":1.5,"result":{},"error":{"code":1,"message":"x"}}',
    rule: "M-07",
    shape: "response",
    id: null,
  },

  // method mixed with response members (M-02).
  {
    name: "method together with result",
    json: '{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}',
    rule: "M-02",
    shape: "request",
    id: 1,
  },
  {
    name: "method together with error",
    json: '{"jsonrpc":"2.0","id":1,"method":"ping","error":{"code":1,"message":"x"}}',
    rule: "M-02",
    shape: "request",
    id: 1,
  },
  {
    name: "method together with result, no id",
    json: '{"jsonrpc":"2.0","method":"n","result":{}}',
    rule: "M-02",
    shape: "notification",
    id: null,
  },

  // None of method/result/error (M-02).
  { name: "none of method/result/error, no id", json: '{"jsonrpc":"2.0"}', rule: "M-02", shape: "unknown", id: null, got: "none of them" },
  { name: "none of method/result/error, with id", json: '{"jsonrpc":"2.0","id":1}', rule: "M-02", shape: "request", id: 1 },
  { name: "params but no method, string id", json: '{"jsonrpc":"2.0","id":"abc","params":{}}', rule: "M-02", shape: "request", id: "abc" },
  { name: "none of method/result/error, invalid id", json: '{"jsonrpc":"2.0","id":1.5}', rule: "M-02", shape: "request", id: null },

  // Responses with invalid ids (ID-01, ID-02; a null id is accepted on errors only).
  { name: "result with id null", json: '{"jsonrpc":"2.0","id":null,"result":{}}', rule: "ID-02", shape: "response", id: null, got: "null" },
  {
    name: "result with fractional id",
    json: '{"jsonrpc":"2.0","id":1.5,"result":{}}',
    rule: "ID-01",
    shape: "response",
    id: null,
    got: "number 1.5",
  },
  { name: "result with object id", json: '{"jsonrpc":"2.0","id":{},"result":{}}', rule: "ID-01", shape: "response", id: null },
  { name: "result with boolean id", json: '{"jsonrpc":"2.0","id":true,"result":{}}', rule: "ID-01", shape: "response", id: null },
  { name: "result with id 2^53", json: '{"jsonrpc":"2.0","id":9007199254740992,"result":{}}', rule: "ID-01", shape: "response", id: null },
  {
    name: "error with fractional id",
    json: '{"jsonrpc":"2.0","id":1.5,"error":{"code":1,"message":"x"}}',
    rule: "ID-01",
    shape: "response",
    id: null,
  },
  {
    name: "error with array id",
    json: '{"jsonrpc":"2.0","id":[],"error":{"code":1,"message":"x"}}',
    rule: "ID-01",
    shape: "response",
    id: null,
  },
  {
    name: "error with boolean id",
    json: '{"jsonrpc":"2.0","id":false,"error":{"code":1,"message":"x"}}',
    rule: "ID-01",
    shape: "response",
    id: null,
  },
  {
    name: "error with id below -(2^53-1)",
    json: '{"jsonrpc":"2.0","id":-9007199254740992,"error":{"code":1,"message":"x"}}',
    rule: "ID-01",
    shape: "response",
    id: null,
  },
];

test("the malformed-envelope catalogue has at least 40 distinct cases", () => {
  assert.ok(catalogue.length >= 40, `only ${catalogue.length} cases`);
  assert.equal(new Set(catalogue.map((c) => c.name)).size, catalogue.length, "duplicate case names");
  assert.equal(new Set(catalogue.map((c) => c.json)).size, catalogue.length, "duplicate inputs");
});

for (const c of catalogue) {
  test(`${c.rule}: invalid (${c.shape}): ${c.name}`, () => {
    const input: unknown = JSON.parse(c.json);
    const env = expectKind(classify(input), "invalid");
    assert.deepEqual({ rule: env.rule, shape: env.shape, id: env.id }, { rule: c.rule, shape: c.shape, id: c.id });
    assert.deepEqual(sortedKeys(env), ["expected", "got", "id", "kind", "rule", "shape"]);
    assert.equal(typeof env.expected, "string");
    assert.ok(env.expected.length > 0, "expected is empty");
    assert.equal(typeof env.got, "string");
    assert.ok(env.got.length > 0, "got is empty");
    if (c.got !== undefined) assert.equal(env.got, c.got);
    // The input is left as it was.
    assert.equal(JSON.stringify(input), JSON.stringify(JSON.parse(c.json)));
  });
}

test("ID-02: a request with id null is request-shaped (reply owed), never a notification", () => {
  const env = classify(JSON.parse('{"jsonrpc":"2.0","id":null,"method":"notifications/initialized"}'));
  assert.notEqual(env.kind, "notification");
  const bad = expectKind(env, "invalid");
  assert.equal(bad.rule, "ID-02");
  assert.equal(bad.shape, "request");
});

test("M-01: non-JSON values (undefined, bigint, function, symbol) classify as M-01 without throwing", () => {
  const cases: [unknown, string][] = [
    [undefined, "absent"],
    [10n, "bigint"],
    [() => 1, "function"],
    [Symbol("s"), "symbol"],
  ];
  for (const [value, got] of cases) {
    const env = expectKind(classify(value), "invalid");
    assert.deepEqual({ rule: env.rule, shape: env.shape, id: env.id, got: env.got }, { rule: "M-01", shape: "unknown", id: null, got });
  }
});

// ---------------------------------------------------------------------------------------
// Valid envelopes.

test("ID-01: id 0 is a valid request id (presence, not truthiness)", () => {
  const env = expectKind(classify(JSON.parse('{"jsonrpc":"2.0","id":0,"method":"ping"}')), "request");
  assert.equal(env.id, 0);
  assert.equal(env.method, "ping");
});

test('ID-01: id "" is a valid request id', () => {
  const env = expectKind(classify(JSON.parse('{"jsonrpc":"2.0","id":"","method":"ping"}')), "request");
  assert.equal(env.id, "");
});

test("ID-01: negative integer ids are valid", () => {
  const env = expectKind(classify(JSON.parse('{"jsonrpc":"2.0","id":-5,"method":"ping"}')), "request");
  assert.equal(env.id, -5);
});

test("ID-01: ids at exactly ±(2^53-1) are valid and kept exactly", () => {
  const high = expectKind(classify(JSON.parse('{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}')), "request");
  assert.equal(high.id, Number.MAX_SAFE_INTEGER);
  const low = expectKind(classify(JSON.parse('{"jsonrpc":"2.0","id":-9007199254740991,"result":{}}')), "result");
  assert.equal(low.id, -Number.MAX_SAFE_INTEGER);
});

test('ID-04: string id "1" and number id 1 stay distinct (typeof preserved)', () => {
  const s = expectKind(classify(JSON.parse('{"jsonrpc":"2.0","id":"1","method":"ping"}')), "request");
  const n = expectKind(classify(JSON.parse('{"jsonrpc":"2.0","id":1,"method":"ping"}')), "request");
  assert.equal(typeof s.id, "string");
  assert.equal(typeof n.id, "number");
  assert.equal(s.id, "1");
  assert.equal(n.id, 1);
  assert.notEqual(s.id, n.id);
  const rs = expectKind(classify(JSON.parse('{"jsonrpc":"2.0","id":"1","result":{}}')), "result");
  const rn = expectKind(classify(JSON.parse('{"jsonrpc":"2.0","id":1,"result":{}}')), "result");
  assert.equal(typeof rs.id, "string");
  assert.equal(typeof rn.id, "number");
  const es = expectKind(classify(JSON.parse('{"jsonrpc":"2.0","id":"1","error":{"code":1,"message":"x"}}')), "error");
  assert.equal(es.id, "1");
});

test("M-02: a message with method and no id key is a notification", () => {
  const original = JSON.parse('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}') as { params: unknown };
  const env = expectKind(classify(original), "notification");
  assert.equal(env.method, "notifications/progress");
  assert.equal(env.params, original.params);
  assert.deepEqual(sortedKeys(env), ["kind", "method", "params"]);
});

test("M-02, M-03: a request without params has params undefined and only its fixed keys", () => {
  const env = expectKind(classify(JSON.parse('{"jsonrpc":"2.0","id":7,"method":"tools/list"}')), "request");
  assert.equal(env.params, undefined);
  assert.deepEqual(sortedKeys(env), ["id", "kind", "method", "params"]);
  const note = expectKind(classify(JSON.parse('{"jsonrpc":"2.0","method":"notifications/initialized"}')), "notification");
  assert.equal(note.params, undefined);
});

test("M-03: params {} is accepted, by reference", () => {
  const original = JSON.parse('{"jsonrpc":"2.0","id":"a","method":"x","params":{}}') as { params: unknown };
  const env = expectKind(classify(original), "request");
  assert.equal(env.params, original.params);
});

test("M-04: result {} is an empty success, by reference", () => {
  const original = JSON.parse('{"jsonrpc":"2.0","id":1,"result":{}}') as { result: unknown };
  const env = expectKind(classify(original), "result");
  assert.equal(env.id, 1);
  assert.equal(env.result, original.result);
  assert.deepEqual(env.result, {});
  assert.deepEqual(sortedKeys(env), ["id", "kind", "result"]);
});

test('M-06/M-10: an error response with "id": null is accepted with id null', () => {
  const original = JSON.parse('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}') as { error: unknown };
  const env = expectKind(classify(original), "error");
  assert.equal(env.id, null);
  assert.equal(env.error, original.error);
  assert.equal(env.error.code, -32700);
  assert.equal(env.error.message, "Parse error");
  assert.deepEqual(sortedKeys(env), ["error", "id", "kind"]);
});

test("M-06, M-10: an error response with no id is accepted with id null", () => {
  const env = expectKind(classify(JSON.parse('{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"}}')), "error");
  assert.equal(env.id, null);
  assert.deepEqual(sortedKeys(env), ["error", "id", "kind"]);
});

test("M-05: an error with code -1 and data is accepted, data kept by reference", () => {
  const original = JSON.parse(
    '{"jsonrpc":"2.0","id":9,"error":{"code":-1,"message":"User rejected sampling request","data":{"why":["no"]}}}',
  ) as { error: { data: unknown } };
  const env = expectKind(classify(original), "error");
  assert.equal(env.id, 9);
  assert.equal(env.error, original.error);
  assert.equal(env.error.code, -1);
  assert.equal(env.error.data, original.error.data);
  assert.deepEqual(env.error.data, { why: ["no"] });
});

test("SCH-04: unknown extra members are tolerated and not copied into the envelope", () => {
  const request = JSON.parse(
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}},"extra":true,"_meta":{"a":1}}',
  ) as { params: unknown };
  const req = expectKind(classify(request), "request");
  assert.deepEqual(sortedKeys(req), ["id", "kind", "method", "params"]);
  assert.equal(req.params, request.params);

  const notification = JSON.parse('{"jsonrpc":"2.0","method":"n","params":{"x":1},"foo":[1]}') as { params: unknown };
  const note = expectKind(classify(notification), "notification");
  assert.deepEqual(sortedKeys(note), ["kind", "method", "params"]);
  assert.equal(note.params, notification.params);

  const response = JSON.parse('{"jsonrpc":"2.0","id":2,"result":{"tools":[]},"extra":"x","method2":1}') as { result: unknown };
  const res = expectKind(classify(response), "result");
  assert.deepEqual(sortedKeys(res), ["id", "kind", "result"]);
  assert.equal(res.result, response.result);

  const failure = JSON.parse('{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"m","extra":2},"trace":"t"}') as { error: unknown };
  const err = expectKind(classify(failure), "error");
  assert.deepEqual(sortedKeys(err), ["error", "id", "kind"]);
  assert.equal(err.error, failure.error);

  // The input objects still carry their extra members (nothing was stripped in place).
  assert.equal((request as Record<string, unknown>).extra, true);
  assert.equal((response as Record<string, unknown>).extra, "x");
});

test("M-09: an array classifies as a batch whose items are the same objects", () => {
  const first = { jsonrpc: "2.0", id: 1, method: "ping" };
  const second = { jsonrpc: "2.0", method: "n" };
  const input = [first, second, 3];
  const env = expectKind(classify(input), "batch");
  assert.equal(env.items, input);
  assert.equal(env.items.length, 3);
  assert.equal(env.items[0], first);
  assert.equal(env.items[1], second);
  assert.deepEqual(sortedKeys(env), ["items", "kind"]);
  // Items are classified separately, not by the batch.
  assert.equal(expectKind(classify(env.items[0]), "request").id, 1);
  assert.equal(expectKind(classify(env.items[2]), "invalid").rule, "M-01");
});

test("M-09: an empty array is a batch with 0 items (refusal is the engine's job)", () => {
  const env = expectKind(classify(JSON.parse("[]")), "batch");
  assert.equal(env.items.length, 0);
});

test("ID-01: isRequestId accepts strings and safe integers only", () => {
  for (const ok of ["", "1", "__proto__", 0, -0, 1, -5, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER]) {
    assert.equal(isRequestId(ok), true, `should accept ${String(ok)}`);
  }
  for (const bad of [null, undefined, 1.5, Number.MAX_SAFE_INTEGER + 1, -Number.MAX_SAFE_INTEGER - 1, NaN, Infinity, true, {}, [], 1n]) {
    assert.equal(isRequestId(bad), false, `should refuse ${String(bad)}`);
  }
});

test("isJsonObject accepts plain objects only", () => {
  assert.equal(isJsonObject({}), true);
  assert.equal(isJsonObject({ a: 1 }), true);
  for (const bad of [null, [], [1], "x", 1, true, undefined]) {
    assert.equal(isJsonObject(bad), false, `should refuse ${JSON.stringify(bad)}`);
  }
});

// ---------------------------------------------------------------------------------------
// Prototype pollution: "__proto__", "constructor" and "prototype" keys are data, never
// prototype links, whether they arrive as a whole message, params, result, error data, or
// through the line decoder.

function assertPrototypeClean(): void {
  assert.equal(({} as Record<string, unknown>).polluted, undefined, "a fresh object sees 'polluted'");
  assert.equal((Object.prototype as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.hasOwn(Object.prototype, "polluted"), false, "Object.prototype has an own 'polluted'");
  assert.equal(Object.hasOwn(Array.prototype, "polluted"), false, "Array.prototype has an own 'polluted'");
}

function assertOwnProto(value: unknown): void {
  if (!isJsonObject(value)) assert.fail(`expected an object; got ${JSON.stringify(value)}`);
  assert.equal(Object.hasOwn(value, "__proto__"), true, "the own __proto__ key was lost");
  assert.equal(Object.getPrototypeOf(value), Object.prototype, "the prototype was replaced");
}

const POISON = '{"polluted":true}';

test("ENG-06: pollution: a bare __proto__ object classified as a whole message", () => {
  const value: unknown = JSON.parse(`{"__proto__": ${POISON}}`);
  assertOwnProto(value);
  const env = expectKind(classify(value), "invalid");
  assert.equal(env.rule, "M-01");
  assertPrototypeClean();
  assertOwnProto(value);
});

test("ENG-06: pollution: __proto__/constructor/prototype members on a request are ignored and not followed", () => {
  const value = JSON.parse(
    `{"jsonrpc":"2.0","id":1,"method":"m","__proto__":${POISON},"constructor":{"prototype":${POISON}},"prototype":${POISON}}`,
  ) as Record<string, unknown>;
  const env = expectKind(classify(value), "request");
  assert.deepEqual(sortedKeys(env), ["id", "kind", "method", "params"]);
  assertPrototypeClean();
  assertOwnProto(value);
  assert.equal(Object.hasOwn(value, "constructor"), true);
  assert.equal(Object.hasOwn(value, "prototype"), true);
});

test("ENG-06: pollution: a __proto__ key cannot smuggle method/id through the prototype", () => {
  const value: unknown = JSON.parse('{"jsonrpc":"2.0","__proto__":{"method":"evil","id":1}}');
  const env = expectKind(classify(value), "invalid");
  assert.equal(env.rule, "M-02");
  assert.equal(env.shape, "unknown");
  assert.equal(env.id, null);
  assertOwnProto(value);
});

test("ENG-06: pollution: __proto__ inside params stays an own key of the same params object", () => {
  const value = JSON.parse(
    `{"jsonrpc":"2.0","id":"__proto__","method":"__proto__","params":{"__proto__":${POISON},"constructor":{"prototype":${POISON}}}}`,
  ) as { params: unknown };
  const env = expectKind(classify(value), "request");
  assert.equal(env.id, "__proto__");
  assert.equal(env.method, "__proto__");
  assert.equal(env.params, value.params);
  assertOwnProto(env.params);
  assertPrototypeClean();
});

test("ENG-06: pollution: __proto__ inside params of a notification", () => {
  const value = JSON.parse(`{"jsonrpc":"2.0","method":"n","params":{"__proto__":${POISON}}}`) as { params: unknown };
  const env = expectKind(classify(value), "notification");
  assert.equal(env.params, value.params);
  assertOwnProto(env.params);
  assertPrototypeClean();
});

test("ENG-06: pollution: __proto__ inside a result stays an own key of the same result object", () => {
  const value = JSON.parse(`{"jsonrpc":"2.0","id":1,"result":{"__proto__":${POISON},"prototype":${POISON}}}`) as { result: unknown };
  const env = expectKind(classify(value), "result");
  assert.equal(env.result, value.result);
  assertOwnProto(env.result);
  assertPrototypeClean();
});

test("ENG-06: pollution: __proto__ inside error and error.data", () => {
  const value = JSON.parse(
    `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x","__proto__":${POISON},"data":{"__proto__":${POISON}}}}`,
  ) as { error: unknown };
  const env = expectKind(classify(value), "error");
  assert.equal(env.error, value.error);
  assertOwnProto(env.error);
  assertOwnProto(env.error.data);
  assertPrototypeClean();
});

test("ENG-06: pollution: LineDecoder then classify leaves prototypes untouched", () => {
  const lines = [
    `{"__proto__": ${POISON}}`,
    `{"jsonrpc":"2.0","id":1,"method":"m","params":{"__proto__":${POISON}},"__proto__":${POISON}}`,
    `{"jsonrpc":"2.0","id":2,"result":{"__proto__":${POISON},"constructor":{"prototype":${POISON}}}}`,
    `[{"__proto__":${POISON}}]`,
  ];
  const bytes = new TextEncoder().encode(lines.join("\n") + "\n" + `{"constructor":{"prototype":${POISON}},"__proto__":${POISON}}`);
  const decoder = new LineDecoder();
  const items: DecodedItem[] = [];
  // Split mid-line so the pending-buffer path is taken as well.
  decoder.push(bytes.subarray(0, 17), items);
  decoder.push(bytes.subarray(17), items);
  assert.equal(items.length, 4);
  decoder.finish(items);
  // The last line has no newline: finish() reports it as truncated rather than parsing it.
  assert.equal(items.length, 5);
  const values: unknown[] = [];
  for (const item of items.slice(0, 4)) {
    if (!item.ok) assert.fail(`unexpected framing error: ${item.reason} ${item.detail}`);
    values.push(item.value);
  }
  const last = items[4];
  assert.ok(last !== undefined && !last.ok && last.reason === "truncated");

  assertOwnProto(values[0]);
  assert.equal(expectKind(classify(values[0]), "invalid").rule, "M-01");
  const req = expectKind(classify(values[1]), "request");
  assertOwnProto(values[1]);
  assertOwnProto(req.params);
  const res = expectKind(classify(values[2]), "result");
  assertOwnProto(res.result);
  const batch = expectKind(classify(values[3]), "batch");
  assertOwnProto(batch.items[0]);
  assertPrototypeClean();

  // The same line with a newline parses to an object with own constructor and __proto__ keys.
  const more: DecodedItem[] = [];
  const second = new LineDecoder();
  second.push(new TextEncoder().encode(`{"constructor":{"prototype":${POISON}},"__proto__":${POISON}}\n`), more);
  second.finish(more);
  assert.equal(more.length, 1);
  const only = more[0];
  if (only === undefined || !only.ok) assert.fail("expected one decoded value");
  assertOwnProto(only.value);
  assert.equal(expectKind(classify(only.value), "invalid").rule, "M-01");
  assertPrototypeClean();
});
