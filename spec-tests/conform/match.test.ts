// The corpus' matching language (lib/cli/conform/match.ts): each matcher accepts what it
// names and refuses what it does not, with a path-qualified reason.

import assert from "node:assert/strict";
import { test } from "node:test";
import { compare } from "../../lib/cli/conform/match.js";

const ok = (expected: unknown, actual: unknown): void =>
  assert.equal(compare(expected, actual), undefined, `${JSON.stringify(expected)} should match ${JSON.stringify(actual)}`);
const bad = (expected: unknown, actual: unknown, reason: RegExp): void => {
  const problem = compare(expected, actual);
  assert.ok(problem !== undefined, `${JSON.stringify(expected)} should not match ${JSON.stringify(actual)}`);
  assert.match(problem, reason);
};

test("exact objects: key order ignored, extra keys refused, error message and data ignored unless named", () => {
  ok({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 });
  bad({ a: 1 }, { a: 1, b: 2 }, /^b: unexpected 2/);
  ok({ id: 1, error: { code: -32600 } }, { id: 1, error: { code: -32600, message: "x", data: { path: "p" } } });
  bad(
    { id: 1, error: { code: -32600, message: "y" } },
    { id: 1, error: { code: -32600, message: "x" } },
    /error\.message: expected "y", got "x"/,
  );
  bad({ result: { data: 1 } }, { result: { data: 1, message: 2 } }, /result\.message: unexpected 2/);
  ok([{ error: { code: 1 } }], [{ error: { code: 1, message: "m" } }]);
});

test("$nullish is absent or null; $absent only absent; $any only present", () => {
  ok({ id: "$nullish" }, {});
  ok({ id: "$nullish" }, { id: null });
  bad({ id: "$nullish" }, { id: 0 }, /id: expected absent or null, got 0/);
  bad({ id: "$absent" }, { id: null }, /expected absent, got null/);
  bad({ id: "$any" }, {}, /id: expected a value, got nothing/);
});

test("$type:T covers integer, boolean and null besides the JSON types", () => {
  ok("$type:integer", 3);
  bad("$type:integer", 3.5, /expected integer/);
  ok("$type:boolean", false);
  ok("$type:null", null);
  bad("$type:object", [], /expected object/);
  // An unknown type name is no matcher: it compares as a string.
  bad("$type:date", "2020", /expected "\$type:date"/);
});

test("$oneOf accepts any alternative, and says why none matched", () => {
  ok({ code: { $oneOf: [-32602, -32002] } }, { code: -32002 });
  bad({ code: { $oneOf: [-32602, -32002] } }, { code: -32603 }, /none of 2 alternatives matched/);
  bad({ $oneOf: [] }, 1, /needs a non-empty array/);
});

test("$unordered matches a batch reply in any order, entry for entry", () => {
  ok({ $unordered: [{ id: 1 }, { id: 2 }] }, [{ id: 2 }, { id: 1 }]);
  bad({ $unordered: [{ id: 1 }, { id: 1 }] }, [{ id: 1 }, { id: 2 }], /in any order/);
  bad({ $unordered: [{ id: 1 }] }, [{ id: 1 }, { id: 2 }], /expected 1 entries/);
  bad({ $unordered: [{ id: 1 }] }, { id: 1 }, /expected 1 entries/);
});

test("$capture remembers a value and $ref requires it again", () => {
  const bindings = new Map<string, unknown>();
  assert.equal(compare({ id: { $capture: "req" } }, { id: 7 }, { bindings }), undefined);
  assert.equal(bindings.get("req"), 7);
  assert.equal(compare({ id: { $ref: "req" } }, { id: 7 }, { bindings }), undefined);
  assert.match(compare({ id: { $ref: "req" } }, { id: 8 }, { bindings }) ?? "", /id: expected 7, got 8/);
  assert.match(compare({ id: { $ref: "nope" } }, { id: 8 }, { bindings }) ?? "", /names no captured value/);
  // A captured name seen again must repeat its value.
  assert.match(compare({ id: { $capture: "req" } }, { id: 9 }, { bindings }) ?? "", /expected 7, got 9/);
});

test("$serverInfo and $capabilities: learned on first sight, then fixed; bound ones must equal", () => {
  const learned = new Map<string, unknown>();
  assert.equal(compare({ serverInfo: "$serverInfo" }, { serverInfo: { name: "x", version: "1" } }, { bindings: learned }), undefined);
  assert.match(
    compare({ serverInfo: "$serverInfo" }, { serverInfo: { name: "y", version: "1" } }, { bindings: learned }) ?? "",
    /expected "x", got "y"/,
  );
  assert.match(compare("$serverInfo", { name: "x" }) ?? "", /string name and version/);
  const bound = new Map<string, unknown>([["capabilities", { tools: {} }]]);
  assert.equal(compare("$capabilities", { tools: {} }, { bindings: bound }), undefined);
  assert.match(compare("$capabilities", { tools: {}, logging: {} }, { bindings: bound }) ?? "", /logging: unexpected/);
  assert.match(compare("$capabilities", "all") ?? "", /capabilities as an object/);
});

test("$if-present: absent passes, present must match", () => {
  ok({ instructions: { "$if-present": "$type:string" } }, {});
  ok({ instructions: { "$if-present": "$type:string" } }, { instructions: "hi" });
  bad({ instructions: { "$if-present": "$type:string" } }, { instructions: 3 }, /instructions: expected string/);
});

test("$open admits members the expectation does not name, in that object only", () => {
  const init = { protocolVersion: "2025-11-25", serverInfo: { name: "s", version: "1" } };
  ok({ result: { ...init, $open: true } }, { result: { ...init, adapter: {} } });
  bad({ result: init }, { result: { ...init, adapter: {} } }, /^result\.adapter: unexpected \{\}/);
  // Named members still match as usual, and must be there.
  bad(
    { result: { ...init, $open: true } },
    { result: { ...init, protocolVersion: "2025-06-18" } },
    /result\.protocolVersion: expected "2025-11-25"/,
  );
  bad(
    { result: { ...init, $open: true } },
    { result: { serverInfo: init.serverInfo } },
    /result\.protocolVersion: expected "2025-11-25", got nothing/,
  );
  ok({ $open: true }, { anything: 1 });
  bad({ $open: true }, [], /expected an object, got \[\]/);
  // Not inherited: a nested object stays exact unless it is opened too.
  bad({ result: { info: { name: "s" }, $open: true } }, { result: { info: { name: "s", extra: 1 } } }, /result\.info\.extra: unexpected 1/);
  ok({ result: { info: { name: "s", $open: true }, $open: true } }, { result: { info: { name: "s", extra: 1 }, more: 2 } });
  // An actual member called $open is data: an extra like any other.
  bad({ a: 1 }, { a: 1, $open: true }, /\$open: unexpected true/);
});

test("$open takes only true: false or any other value is a malformed expectation, refused", () => {
  for (const value of [false, "true", 1, null, {}]) bad({ a: 1, $open: value }, { a: 1, $open: value }, /^value: \$open needs true, got /);
  bad({ result: { $open: false } }, { result: {} }, /^result: \$open needs true, got false/);
  // It belongs to a plain object expectation: beside an operator, the pair is no operator but an object.
  bad({ $open: true, $oneOf: [1] }, 1, /^value: expected an object, got 1/);
});

test("events compare as subsets; peer keys such as __proto__ are plain data", () => {
  assert.equal(compare({ kind: "ready" }, { kind: "ready", extra: 1 }, { subset: true }), undefined);
  const hostile = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as unknown;
  assert.match(compare({ a: 1 }, hostile) ?? "", /__proto__: unexpected/);
  assert.equal(({} as { polluted?: boolean }).polluted, undefined);
});
