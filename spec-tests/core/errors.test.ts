// The errors module (RULES.md SCH-01, E-01, E-02): the exact ErrorCode table, LocalProtocolError's fields
// and message, and describeValue's short rendering of every JSON type (and of the few
// non-JSON values it may meet), including truncation of long strings.

import { test } from "node:test";
import assert from "node:assert/strict";
import { ErrorCode, LocalProtocolError, describeValue } from "../../lib/index.js";

test("ErrorCode holds exactly the JSON-RPC and MCP codes, with their values", () => {
  assert.deepEqual(
    { ...ErrorCode },
    {
      ParseError: -32700,
      InvalidRequest: -32600,
      MethodNotFound: -32601,
      InvalidParams: -32602,
      InternalError: -32603,
      ResourceNotFound: -32002,
      UrlElicitationRequired: -32042,
      UserRejectedSampling: -1,
      HeaderMismatch: -32020,
      MissingRequiredClientCapability: -32021,
      UnsupportedProtocolVersion: -32022,
    },
  );
});

test("ErrorCode values are distinct integers", () => {
  const values = Object.values(ErrorCode);
  assert.equal(values.length, 11);
  assert.equal(new Set(values).size, values.length);
  for (const v of values) assert.ok(Number.isInteger(v), `${v} is not an integer`);
});

test("ENG-07: LocalProtocolError carries rule, expected, got, code, method and phase", () => {
  const error = new LocalProtocolError({
    rule: "L-10",
    expected: "no requests other than ping before initialize completes",
    got: "tools/list",
    code: ErrorCode.InvalidRequest,
    method: "tools/list",
    phase: "initializing",
  });
  assert.equal(error.rule, "L-10");
  assert.equal(error.expected, "no requests other than ping before initialize completes");
  assert.equal(error.got, "tools/list");
  assert.equal(error.code, -32600);
  assert.equal(error.method, "tools/list");
  assert.equal(error.phase, "initializing");
  assert.equal(error.name, "LocalProtocolError");
  assert.ok(error instanceof LocalProtocolError);
  assert.ok(error instanceof Error);
  assert.equal(typeof error.stack, "string");
});

test("ENG-07: LocalProtocolError's message names the rule, what was expected and what was got", () => {
  const error = new LocalProtocolError({ rule: "M-03", expected: "params as an object", got: "array(2)" });
  assert.match(error.message, /M-03/);
  assert.match(error.message, /params as an object/);
  assert.match(error.message, /array\(2\)/);
  assert.equal(error.message, "[M-03] expected params as an object; got array(2)");
});

test("LocalProtocolError leaves code, method and phase undefined when not given", () => {
  const error = new LocalProtocolError({ rule: "phase", expected: "an open session", got: "closed" });
  assert.equal(error.code, undefined);
  assert.equal(error.method, undefined);
  assert.equal(error.phase, undefined);
});

test("LocalProtocolError is catchable as such when thrown", () => {
  assert.throws(
    () => {
      throw new LocalProtocolError({ rule: "ID-03", expected: "a fresh id", got: "number 1", code: -32600 });
    },
    (caught: unknown) => caught instanceof LocalProtocolError && caught.rule === "ID-03" && caught.code === -32600,
  );
});

test("ENG-07: describeValue renders each JSON type briefly", () => {
  const cases: [unknown, string][] = [
    [null, "null"],
    [true, "boolean true"],
    [false, "boolean false"],
    [0, "number 0"],
    [-5, "number -5"],
    [1.5, "number 1.5"],
    [9007199254740992, "number 9007199254740992"],
    ["", 'string ""'],
    ["abc", 'string "abc"'],
    ['say "hi"\n', 'string "say \\"hi\\"\\n"'],
    [[], "array(0)"],
    [[1, 2, 3], "array(3)"],
    [{}, "object"],
    [{ a: 1 }, "object"],
    [undefined, "absent"],
  ];
  for (const [value, expected] of cases) {
    assert.equal(describeValue(value), expected, `describeValue(${String(value)})`);
  }
});

test("ENG-07: describeValue names the type of non-JSON values", () => {
  assert.equal(describeValue(10n), "bigint");
  assert.equal(describeValue(Symbol("s")), "symbol");
  assert.equal(
    describeValue(() => 1),
    "function",
  );
});

test("ENG-07: describeValue keeps strings of up to 40 characters whole", () => {
  const forty = "y".repeat(40);
  assert.equal(describeValue(forty), `string "${forty}"`);
});

test("ENG-07: describeValue truncates a long string to its first 40 characters plus an ellipsis", () => {
  const long = "0123456789".repeat(100);
  const described = describeValue(long);
  assert.equal(described, `string "${long.slice(0, 40)}"…`);
  assert.ok(described.length < 60, `too long: ${described.length}`);
  assert.equal(describeValue("z".repeat(41)), `string "${"z".repeat(40)}"…`);
});
