// Mcp-Param-{Name} headers of 2026-07-28 (RULES.md MOD-19) as pure functions (lib/rules/modern.ts):
// which inputSchema properties an `x-mcp-header` annotation validly marks (headerParamsOf),
// how a server checks the headers of a tools/call against its arguments (paramHeaderProblem),
// and the strict `=?base64?…?=` decoding both rely on (decodeHeaderValue). The HTTP host's use
// of them is in http-modern.test.ts; the client's, in http-client.test.ts.

import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeHeaderValue, headerParamsOf, paramHeaderProblem, valueAtPath, type HeaderSource } from "../../lib/http/headers.js";

/** Header access as the HTTP host gives it: lower-cased names. */
function headers(record: Record<string, string>): HeaderSource {
  const lower = new Map(Object.entries(record).map(([k, v]) => [k.toLowerCase(), v]));
  return { get: (name) => lower.get(name.toLowerCase()) };
}

const SCHEMA = {
  type: "object",
  properties: {
    region: { type: "string", "x-mcp-header": "Region" },
    priority: { type: "integer", "x-mcp-header": "Priority" },
    verbose: { type: "boolean", "x-mcp-header": "Verbose" },
    target: { type: "object", properties: { zone: { type: "string", "x-mcp-header": "Zone" } } },
    query: { type: "string" },
  },
};

test("MOD-19: headerParamsOf: annotated string, integer and boolean properties, nested ones through properties only", () => {
  const found = headerParamsOf(SCHEMA);
  assert.ok(found.ok);
  assert.deepEqual(found.params, [
    { header: "Region", path: ["region"], type: "string" },
    { header: "Priority", path: ["priority"], type: "integer" },
    { header: "Verbose", path: ["verbose"], type: "boolean" },
    { header: "Zone", path: ["target", "zone"], type: "string" },
  ]);
  const none = headerParamsOf({ type: "object", properties: { a: { type: "string" } } });
  assert.ok(none.ok);
  assert.deepEqual(none.params, []);
  // An annotation-looking key inside data (a default, an example) annotates nothing.
  const data = headerParamsOf({
    type: "object",
    properties: { a: { type: "object", default: { "x-mcp-header": "A" } } },
    examples: [{ "x-mcp-header": "B" }],
  });
  assert.ok(data.ok);
});

test("MOD-19: headerParamsOf: invalid declarations make the whole tool invalid", () => {
  const prop = (schema: object): object => ({ type: "object", properties: { p: schema } });
  const cases: Array<[string, object]> = [
    ["empty name", prop({ type: "string", "x-mcp-header": "" })],
    ["space in name", prop({ type: "string", "x-mcp-header": "My Header" })],
    ["colon in name", prop({ type: "string", "x-mcp-header": "A:B" })],
    ["non-ASCII name", prop({ type: "string", "x-mcp-header": "Région" })],
    ["control character", prop({ type: "string", "x-mcp-header": "A\r\nB" })],
    ["not a string", prop({ type: "string", "x-mcp-header": 7 })],
    ["number type", prop({ type: "number", "x-mcp-header": "N" })],
    ["object type", prop({ type: "object", "x-mcp-header": "O" })],
    ["array type", prop({ type: "array", items: { type: "string" }, "x-mcp-header": "A" })],
    ["null type", prop({ type: "null", "x-mcp-header": "Z" })],
    ["no type", prop({ "x-mcp-header": "T" })],
    ["under items", prop({ type: "array", items: { type: "string", "x-mcp-header": "Item" } })],
    ["under oneOf", prop({ oneOf: [{ type: "string", "x-mcp-header": "One" }] })],
    ["under anyOf", { type: "object", anyOf: [{ properties: { p: { type: "string", "x-mcp-header": "Any" } } }] }],
    ["under if/then", { type: "object", if: {}, then: { properties: { p: { type: "string", "x-mcp-header": "Then" } } } }],
    [
      "in $defs (reached by $ref)",
      { type: "object", $defs: { r: { type: "string", "x-mcp-header": "Ref" } }, properties: { p: { $ref: "#/$defs/r" } } },
    ],
    ["at the root", { type: "object", "x-mcp-header": "Root" }],
  ];
  for (const [label, schema] of cases) {
    const found = headerParamsOf(schema);
    assert.equal(found.ok, false, label);
    if (!found.ok) assert.ok(found.reason.length > 0, label);
  }
  const duplicate = headerParamsOf({
    type: "object",
    properties: { a: { type: "string", "x-mcp-header": "Region" }, b: { type: "string", "x-mcp-header": "REGION" } },
  });
  assert.equal(duplicate.ok, false);
  if (!duplicate.ok) assert.match(duplicate.reason, /twice/);
});

test("MOD-19: valueAtPath follows property names and stops at anything that is not an object", () => {
  assert.equal(valueAtPath({ a: { b: 1 } }, ["a", "b"]), 1);
  assert.equal(valueAtPath({ a: 1 }, ["a", "b"]), undefined);
  assert.equal(valueAtPath(undefined, ["a"]), undefined);
  assert.deepEqual(valueAtPath({ a: 1 }, []), { a: 1 });
});

test("MOD-19: decodeHeaderValue: the exact sentinel with canonical base64 is decoded; a malformed one is refused; anything else is literal", () => {
  assert.equal(decodeHeaderValue("=?base64?SGVsbG8=?="), "Hello");
  assert.equal(decodeHeaderValue("=?base64?SGVsbG8sIOS4lueVjA==?="), "Hello, 世界");
  assert.equal(decodeHeaderValue("=?base64??="), "");
  // Wrong padding, characters outside the alphabet, bytes that are not UTF-8.
  assert.equal(decodeHeaderValue("=?base64?SGVsbG8?="), undefined);
  assert.equal(decodeHeaderValue("=?base64?SGVsbG8==?="), undefined);
  assert.equal(decodeHeaderValue("=?base64?SGVs!!!bG8=?="), undefined);
  assert.equal(decodeHeaderValue("=?base64?/w==?="), undefined);
  // Without the exact markers (they are case-sensitive) the value is literal.
  assert.equal(decodeHeaderValue("SGVsbG8="), "SGVsbG8=");
  assert.equal(decodeHeaderValue("=?base64?SGVsbG8="), "=?base64?SGVsbG8=");
  assert.equal(decodeHeaderValue("=?BASE64?SGVsbG8=?="), "=?BASE64?SGVsbG8=?=");
});

test("MOD-19: paramHeaderProblem: headers equal to the arguments pass, decoded and compared by type", () => {
  const ok = (args: object, record: Record<string, string>): void =>
    assert.equal(paramHeaderProblem(headers(record), SCHEMA, args), undefined, JSON.stringify(record));
  ok({ region: "us-west1", query: "SELECT 1" }, { "Mcp-Param-Region": "us-west1" });
  ok({ region: "Hello" }, { "mcp-param-region": "=?base64?SGVsbG8=?=" });
  ok({ region: "SGVsbG8=" }, { "MCP-PARAM-REGION": "SGVsbG8=" });
  ok({ region: "=?base64?SGVsbG8=" }, { "Mcp-Param-Region": "=?base64?SGVsbG8=" });
  ok({ region: " padded " }, { "Mcp-Param-Region": "=?base64?IHBhZGRlZCA=?=" });
  ok({ priority: 42 }, { "Mcp-Param-Priority": "42" });
  ok({ priority: 42 }, { "Mcp-Param-Priority": "42.0" });
  ok({ priority: -7 }, { "Mcp-Param-Priority": "-7" });
  ok({ verbose: false }, { "Mcp-Param-Verbose": "false" });
  ok({ target: { zone: "b" } }, { "Mcp-Param-Zone": "b" });
  // null or absent arguments expect no header; one sent anyway (well-formed) is not held against the request.
  ok({ region: null, verbose: null }, {});
  ok({}, {});
  ok({ query: "x" }, { "Mcp-Param-Region": "stale" });
  // Headers nobody declared are not ours to check.
  ok({ region: "a" }, { "Mcp-Param-Region": "a", "Mcp-Param-Query": "anything" });
});

test("MOD-19: paramHeaderProblem: a missing, different or malformed header → -32020 with HTTP 400", () => {
  const refused = (args: object, record: Record<string, string>, header: string): void => {
    const problem = paramHeaderProblem(headers(record), SCHEMA, args);
    assert.ok(problem !== undefined, JSON.stringify({ args, record }));
    assert.equal(problem.code, -32020);
    assert.equal(problem.httpStatus, 400);
    assert.equal((problem.data as { header: string }).header, header);
  };
  refused({ region: "test-value" }, {}, "Mcp-Param-Region");
  refused({ region: "us-west1" }, { "Mcp-Param-Region": "us-east1" }, "Mcp-Param-Region");
  refused({ region: "Hello" }, { "Mcp-Param-Region": "=?base64?SGVsbG8?=" }, "Mcp-Param-Region");
  refused({ region: "Hello" }, { "Mcp-Param-Region": "=?base64?SGVs!!!bG8=?=" }, "Mcp-Param-Region");
  refused({ region: "Région" }, { "Mcp-Param-Region": "R\u00e9gion" }, "Mcp-Param-Region");
  refused({ region: "Hello" }, { "Mcp-Param-Region": "hello" }, "Mcp-Param-Region");
  refused({ priority: 42 }, { "Mcp-Param-Priority": "43" }, "Mcp-Param-Priority");
  refused({ priority: 42 }, { "Mcp-Param-Priority": "0x2a" }, "Mcp-Param-Priority");
  refused({ priority: 0 }, { "Mcp-Param-Priority": "" }, "Mcp-Param-Priority");
  refused({ verbose: true }, { "Mcp-Param-Verbose": "True" }, "Mcp-Param-Verbose");
  refused({ target: { zone: "b" } }, {}, "Mcp-Param-Zone");
  // A body value of a type the header cannot carry never matches.
  refused({ region: ["a"] }, { "Mcp-Param-Region": "a" }, "Mcp-Param-Region");
  // A declared header with invalid characters is refused even when the body has no value for it.
  refused({}, { "Mcp-Param-Region": "caf\u00e9" }, "Mcp-Param-Region");
  refused({}, { "Mcp-Param-Region": "=?base64?***?=" }, "Mcp-Param-Region");
});

test("MOD-19: paramHeaderProblem: a schema whose declarations are invalid, or that declares none, checks nothing", () => {
  const invalid = { type: "object", properties: { n: { type: "number", "x-mcp-header": "N" } } };
  assert.equal(paramHeaderProblem(headers({}), invalid, { n: 1 }), undefined);
  assert.equal(paramHeaderProblem(headers({ "Mcp-Param-X": "\u00ff" }), { type: "object" }, { x: 1 }), undefined);
  assert.equal(paramHeaderProblem(headers({}), undefined, undefined), undefined);
});
