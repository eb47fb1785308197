// Params and result validators (lib/rules/params.ts; RULES.md MT-01, MT-02, SCH-01, SCH-02,
// SCH-03, SCH-04, SCH-05, N-01, N-02, N-03, N-04, N-05, O-01, O-02, O-03, O-04, O-05, K-03, K-04,
// K-05, J-01, J-04, TK-02, TK-03, TK-04, TK-05, TK-06, TK-07, TK-08) and the combinators of
// lib/rules/schema.ts.
//
// One table of rows {versions, kind, method, valid[], invalid[{value, path, expected}]}
// (spec-tests/support/params-rows-server.ts and params-rows-client.ts): every method of every
// session-era version has at least one realistic valid example (optional members present) and
// at least three invalid ones, each refused at an exact path with an exact `expected`. Every
// example is replayed with unknown members and with a `__proto__` key injected at every depth:
// neither may change the outcome. Then: open versus closed enums, unknown content blocks,
// version differences, and the combinators one by one.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LOGGING_LEVELS, paramsCheck, resultCheck } from "../../lib/rules/params.js";
import {
  anyObject,
  anyOf,
  anyValue,
  arrayOf,
  bool,
  closedEnum,
  idLike,
  int,
  literal,
  num,
  object,
  range,
  recordOf,
  str,
  tagged,
  validate,
  type Check,
} from "../../lib/rules/schema.js";
import { isJsonObject, type JsonObject } from "../../lib/wire/envelope.js";
import { methodTable } from "../../lib/rules/methods.js";
import { type SessionVersion } from "../../lib/rules/versions.js";
import { ACTION, ALL, LEVEL, REQ, ROLE, STATUS, oneOf, task, type Kind, type Row } from "../support/params-table.js";
import { rows as serverRows } from "../support/params-rows-server.js";
import { rows as clientRows } from "../support/params-rows-client.js";

const rows: Row[] = [...serverRows, ...clientRows];

// ---------------------------------------------------------------------------------------
// Replaying the table.

function checkOf(version: SessionVersion, kind: Kind, method: string): Check {
  const check = kind === "params" ? paramsCheck(version, method) : resultCheck(version, method);
  if (check === undefined) assert.fail(`no ${kind} validator for ${method} in ${version}`);
  return check;
}

function run(check: Check, value: unknown, root: Kind) {
  return validate(check, value as JsonObject, root);
}

function label(row: Row, version: SessionVersion): string {
  return `${version} ${row.method} ${row.kind}`;
}

test("SCH-01: every valid example is accepted, and left untouched", () => {
  let count = 0;
  for (const row of rows) {
    for (const version of row.versions) {
      const check = checkOf(version, row.kind, row.method);
      for (const value of row.valid) {
        const before = JSON.stringify(value);
        const found = run(check, value, row.kind);
        assert.equal(found, undefined, `${label(row, version)} refused ${before}: ${JSON.stringify(found)}`);
        assert.equal(JSON.stringify(value), before, `${label(row, version)} mutated its input`);
        count++;
      }
    }
  }
  assert.ok(count > 300, `only ${count} valid cases`);
});

test("SCH-01: every invalid example is refused at its exact path, with the exact expectation", () => {
  let count = 0;
  for (const row of rows) {
    for (const version of row.versions) {
      const check = checkOf(version, row.kind, row.method);
      for (const c of row.invalid) {
        const found = run(check, c.value, row.kind);
        const what = `${label(row, version)} ${JSON.stringify(c.value)}`;
        if (found === undefined) assert.fail(`${what} was accepted; expected a refusal at ${c.path}`);
        assert.equal(found.path, c.path, what);
        assert.equal(found.expected, c.expected, what);
        assert.ok(found.got.length > 0, what);
        count++;
      }
    }
  }
  assert.ok(count > 500, `only ${count} invalid cases`);
});

test("SCH-01: every method of every session-era version has a validator and at least 1 valid and 3 invalid examples", () => {
  for (const version of ALL) {
    const table = methodTable(version);
    for (const [method, r] of table) {
      const kinds: Kind[] = r.kind === "request" ? ["params", "result"] : ["params"];
      for (const kind of kinds) {
        const applicable = rows.filter((row) => row.kind === kind && row.method === method && row.versions.includes(version));
        const valid = applicable.reduce((n, row) => n + row.valid.length, 0);
        const invalid = applicable.reduce((n, row) => n + row.invalid.length, 0);
        assert.ok(valid >= 1, `${version} ${method} ${kind}: ${valid} valid examples`);
        assert.ok(invalid >= 3, `${version} ${method} ${kind}: ${invalid} invalid examples`);
      }
      assert.notEqual(paramsCheck(version, method), undefined, `${version} ${method} params`);
      assert.equal(resultCheck(version, method) !== undefined, r.kind === "request", `${version} ${method} result`);
    }
    // Nothing beyond the method table: the validators know exactly the version's methods.
    for (const row of rows) {
      if (row.versions.includes(version)) assert.ok(table.has(row.method), `${row.method} is not a ${version} method`);
    }
  }
});

test("MT-01: a method the version lacks, or an unknown one, has no validator", () => {
  const absent: [SessionVersion, string][] = [
    ["2024-11-05", "elicitation/create"],
    ["2025-03-26", "elicitation/create"],
    ["2025-06-18", "tasks/get"],
    ["2025-06-18", "tasks/result"],
    ["2025-06-18", "tasks/list"],
    ["2025-06-18", "tasks/cancel"],
    ["2025-06-18", "notifications/tasks/status"],
    ["2025-06-18", "notifications/elicitation/complete"],
    ["2025-11-25", "server/discover"],
    ["2025-11-25", "subscriptions/listen"],
    ["2025-11-25", "tools/delete"],
    ["2025-11-25", "__proto__"],
    ["2025-11-25", "constructor"],
    ["2025-11-25", ""],
  ];
  for (const [version, method] of absent) {
    assert.equal(paramsCheck(version, method), undefined, `${version} ${method}`);
    assert.equal(resultCheck(version, method), undefined, `${version} ${method}`);
  }
  for (const method of ["notifications/initialized", "notifications/progress", "notifications/message"]) {
    assert.equal(resultCheck("2025-11-25", method), undefined, `a notification has no result: ${method}`);
  }
  // Only the session-era versions have tables here.
  assert.equal(paramsCheck("2026-07-28" as SessionVersion, "tools/list"), undefined);
  assert.equal(resultCheck("2026-07-28" as SessionVersion, "tools/list"), undefined);
});

test("validators are built once: the same function on every lookup", () => {
  for (const version of ALL) {
    for (const method of methodTable(version).keys()) {
      assert.equal(paramsCheck(version, method), paramsCheck(version, method));
      assert.equal(resultCheck(version, method), resultCheck(version, method));
    }
  }
});

test("O-02: LOGGING_LEVELS lists the eight RFC 5424 levels, lowest first", () => {
  assert.deepEqual([...LOGGING_LEVELS], ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]);
});

// ---------------------------------------------------------------------------------------
// Unknown members and `__proto__` keys at every depth.

/** Objects whose members are data, not fields (maps of strings, of schemas, elicited answers). */
function recordLike(key: string | undefined, value: JsonObject): boolean {
  return key === "arguments" || key === "properties" || (key === "content" && value.type === undefined);
}

/** A deep copy with `extra` added to every non-record object. */
function withUnknowns(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((x) => withUnknowns(x, key));
  if (!isJsonObject(value)) return value;
  const copy: JsonObject = {};
  for (const k of Object.keys(value)) copy[k] = withUnknowns(value[k], k);
  if (!recordLike(key, value)) copy["x-future-member"] = { nested: [1, "two", null, { deeper: true }] };
  return copy;
}

const POISON = '{"name":1,"uri":1,"type":"text","text":5,"role":"system","content":7,"level":"verbose","polluted":true}';

/** JSON text with an own `"__proto__"` member (as JSON.parse creates it) first in every non-record object. */
function withProtoJson(value: unknown, key?: string): string {
  if (Array.isArray(value)) return `[${value.map((x) => withProtoJson(x, key)).join(",")}]`;
  if (!isJsonObject(value)) return JSON.stringify(value);
  const members = Object.keys(value).map((k) => `${JSON.stringify(k)}:${withProtoJson(value[k], k)}`);
  if (!recordLike(key, value)) members.unshift(`"__proto__":${POISON}`);
  return `{${members.join(",")}}`;
}

test("SCH-04: unknown members at every depth change nothing", () => {
  for (const row of rows) {
    for (const version of row.versions) {
      const check = checkOf(version, row.kind, row.method);
      for (const value of row.valid) {
        const found = run(check, withUnknowns(value), row.kind);
        assert.equal(found, undefined, `${label(row, version)}: ${JSON.stringify(found)}`);
      }
      for (const c of row.invalid) {
        const found = run(check, withUnknowns(c.value), row.kind);
        assert.equal(found?.path, c.path, `${label(row, version)} ${JSON.stringify(c.value)}`);
      }
    }
  }
});

test("ENG-06: a nested __proto__ key changes nothing, and pollutes nothing", () => {
  let injected = 0;
  for (const row of rows) {
    for (const version of row.versions) {
      const check = checkOf(version, row.kind, row.method);
      for (const value of row.valid) {
        const text = withProtoJson(value);
        const parsed: unknown = JSON.parse(text);
        if (isJsonObject(parsed)) assert.ok(Object.prototype.hasOwnProperty.call(parsed, "__proto__"), text);
        const found = run(check, parsed, row.kind);
        assert.equal(found, undefined, `${label(row, version)} ${text}: ${JSON.stringify(found)}`);
        injected++;
      }
      for (const c of row.invalid) {
        const found = run(check, JSON.parse(withProtoJson(c.value)), row.kind);
        assert.equal(found?.path, c.path, `${label(row, version)} ${withProtoJson(c.value)}`);
        assert.equal(found?.expected, c.expected);
      }
    }
  }
  assert.ok(injected > 300);
  // A required member hidden behind __proto__ is still missing.
  const hidden = JSON.parse('{"__proto__":{"name":"get_weather"},"arguments":{}}') as JsonObject;
  assert.equal(run(checkOf("2025-11-25", "params", "tools/call"), hidden, "params")?.path, "params.name");
  const hiddenType = JSON.parse('{"content":[{"__proto__":{"type":"text"},"text":5}]}') as JsonObject;
  assert.equal(run(checkOf("2025-11-25", "result", "tools/call"), hiddenType, "result")?.path, "result.content[0].type");
  assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, "polluted"), false);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(({} as Record<string, unknown>).name, undefined);
});

test("SCH-04: a content block, reference or schema property of an unknown type passes", () => {
  const future = { type: "hologram", frames: 3, data: 5 };
  const cases: [SessionVersion, Kind, string, JsonObject][] = [
    ["2025-11-25", "result", "tools/call", { content: [future] }],
    ["2024-11-05", "result", "tools/call", { content: [future, { type: "resource_link" }] }],
    ["2025-06-18", "result", "prompts/get", { messages: [{ role: "user", content: future }] }],
    ["2025-11-25", "params", "sampling/createMessage", { messages: [{ role: "user", content: future }], maxTokens: 5 }],
    [
      "2025-11-25",
      "params",
      "sampling/createMessage",
      { messages: [{ role: "user", content: [future, { type: "text", text: "x" }] }], maxTokens: 5 },
    ],
    [
      "2025-06-18",
      "params",
      "sampling/createMessage",
      { messages: [{ role: "user", content: { type: "resource", resource: 1 } }], maxTokens: 5 },
    ],
    [
      "2025-11-25",
      "params",
      "sampling/createMessage",
      { messages: [{ role: "user", content: [{ type: "tool_result", toolUseId: "a", content: [future] }] }], maxTokens: 5 },
    ],
    ["2025-11-25", "result", "sampling/createMessage", { role: "assistant", content: future, model: "m" }],
    ["2025-03-26", "result", "sampling/createMessage", { role: "assistant", content: { type: "tool_use" }, model: "m" }],
    ["2025-11-25", "params", "completion/complete", { ref: { type: "ref/tool", id: 1 }, argument: { name: "a", value: "b" } }],
    [
      "2025-11-25",
      "params",
      "elicitation/create",
      { message: "m", requestedSchema: { type: "object", properties: { when: { type: "date", format: 1 } } } },
    ],
    // The tag is an own member: names on Object.prototype are unknown tags like any other.
    [
      "2025-11-25",
      "result",
      "tools/call",
      { content: [{ type: "constructor" }, { type: "toString" }, { type: "__proto__" }, { type: "hasOwnProperty" }] },
    ],
  ];
  for (const [version, kind, method, value] of cases) {
    assert.equal(run(checkOf(version, kind, method), value, kind), undefined, `${version} ${method} ${JSON.stringify(value)}`);
  }
  // But the tag itself must be a string.
  assert.equal(run(checkOf("2025-11-25", "result", "tools/call"), { content: [{ type: 7 }] }, "result")?.path, "result.content[0].type");
});

test("SCH-04: open enums accept unknown values; closed ones refuse them", () => {
  const open: [SessionVersion, Kind, string, JsonObject][] = [
    ["2025-11-25", "params", "sampling/createMessage", { messages: [], maxTokens: 1, includeContext: "everything" }],
    ["2025-11-25", "params", "sampling/createMessage", { messages: [], maxTokens: 1, toolChoice: { mode: "sometimes" } }],
    [
      "2025-11-25",
      "result",
      "sampling/createMessage",
      { role: "assistant", content: { type: "text", text: "" }, model: "m", stopReason: "refusal" },
    ],
    [
      "2025-11-25",
      "result",
      "tools/list",
      { tools: [{ name: "t", inputSchema: { type: "object" }, execution: { taskSupport: "always" } }] },
    ],
    [
      "2025-11-25",
      "result",
      "tools/list",
      { tools: [{ name: "t", inputSchema: { type: "object" }, icons: [{ src: "x", theme: "high-contrast" }] }] },
    ],
    ["2025-11-25", "result", "resources/list", { resources: [{ uri: "u", name: "n", annotations: { audience: ["robot"] } }] }],
    ["2025-11-25", "result", "prompts/get", { messages: [{ role: "system", content: { type: "text", text: "x" } }] }],
    [
      "2025-11-25",
      "params",
      "elicitation/create",
      { message: "m", requestedSchema: { type: "object", properties: { p: { type: "string", format: "phone" } } } },
    ],
  ];
  for (const [version, kind, method, value] of open) {
    assert.equal(run(checkOf(version, kind, method), value, kind), undefined, `${method} ${JSON.stringify(value)}`);
  }
  const closed: [SessionVersion, Kind, string, JsonObject, string, string][] = [
    ["2024-11-05", "params", "logging/setLevel", { level: "trace" }, "params.level", LEVEL],
    ["2025-11-25", "params", "notifications/message", { level: "fatal", data: "x" }, "params.level", LEVEL],
    ["2025-06-18", "result", "elicitation/create", { action: "later" }, "result.action", ACTION],
    ["2025-11-25", "result", "tasks/get", { ...task, status: "paused" }, "result.status", STATUS],
    ["2025-11-25", "params", "notifications/tasks/status", { ...task, status: "paused" }, "params.status", STATUS],
    ["2025-11-25", "result", "tools/call", { task: { ...task, status: "paused" } }, "result.task.status", STATUS],
    [
      "2025-11-25",
      "params",
      "sampling/createMessage",
      { messages: [{ role: "system", content: { type: "text", text: "x" } }], maxTokens: 1 },
      "params.messages[0].role",
      ROLE,
    ],
    [
      "2025-11-25",
      "result",
      "sampling/createMessage",
      { role: "tool", content: { type: "text", text: "" }, model: "m" },
      "result.role",
      ROLE,
    ],
    ["2025-11-25", "params", "elicitation/create", { mode: "oauth", message: "m" }, "params.mode", oneOf(["form", "url"])],
  ];
  for (const [version, kind, method, value, path, expected] of closed) {
    const found = run(checkOf(version, kind, method), value, kind);
    assert.equal(found?.path, path, `${method} ${JSON.stringify(value)}`);
    assert.equal(found?.expected, expected);
  }
});

test("SCH-05: numbers typed `number` in schema.ts accept fractions even where schema.json says integer (SCH-05)", () => {
  const cases: [Kind, string, JsonObject][] = [
    ["result", "resources/list", { resources: [{ uri: "u", name: "n", size: 10.5 }] }],
    ["params", "sampling/createMessage", { messages: [], maxTokens: 12.5 }],
    ["result", "completion/complete", { completion: { values: [], total: 3.5 } }],
    ["result", "tasks/get", { ...task, ttl: 0.5, pollInterval: 250.5 }],
    ["result", "tasks/get", { ...task, ttl: null }],
    ["params", "tools/call", { name: "t", task: { ttl: 0.5 } }],
    ["result", "elicitation/create", { action: "accept", content: { n: 2.75 } }],
    [
      "params",
      "elicitation/create",
      {
        message: "m",
        requestedSchema: { type: "object", properties: { n: { type: "integer", minimum: 0.5, maximum: 9.5, default: 1.5 } } },
      },
    ],
  ];
  for (const [kind, method, value] of cases) {
    assert.equal(run(checkOf("2025-11-25", kind, method), value, kind), undefined, `${method} ${JSON.stringify(value)}`);
  }
  // Still a number: not a numeric string, not null where null is not allowed.
  assert.equal(
    run(checkOf("2025-11-25", "params", "sampling/createMessage"), { messages: [], maxTokens: null }, "params")?.path,
    "params.maxTokens",
  );
});

test("M-03: every validator refuses a value that is not an object", () => {
  for (const version of ALL) {
    for (const [method, r] of methodTable(version)) {
      const checks = r.kind === "request" ? [paramsCheck(version, method), resultCheck(version, method)] : [paramsCheck(version, method)];
      for (const check of checks) {
        for (const value of [[], "x", 1, true, null]) {
          assert.equal(check?.(value)?.expected, "an object", `${version} ${method} ${JSON.stringify(value)}`);
        }
      }
    }
  }
});

test("M-03: absent params validate as {}", () => {
  assert.equal(validate(checkOf("2024-11-05", "params", "ping"), undefined, "params"), undefined);
  assert.equal(validate(checkOf("2024-11-05", "params", "tools/list"), undefined, "params"), undefined);
  assert.equal(validate(checkOf("2024-11-05", "params", "notifications/initialized"), undefined, "params"), undefined);
  assert.deepEqual(validate(checkOf("2024-11-05", "params", "tools/call"), undefined, "params"), {
    path: "params.name",
    expected: REQ,
    got: "absent",
  });
  assert.deepEqual(validate(checkOf("2025-06-18", "params", "notifications/cancelled"), undefined, "params"), {
    path: "params.requestId",
    expected: REQ,
    got: "absent",
  });
  assert.equal(validate(checkOf("2025-11-25", "params", "notifications/cancelled"), undefined, "params"), undefined);
});

// ---------------------------------------------------------------------------------------
// The combinators of lib/rules/schema.ts, one by one.

function issueOf(check: Check, value: unknown, root = "v") {
  return validate(check, value as JsonObject, root);
}

test("scalars: str, num, int, bool, idLike, anyObject, anyValue", () => {
  assert.equal(str("x"), undefined);
  assert.deepEqual(str(1), { path: "", expected: "a string", got: "number 1" });
  assert.equal(num(1.5), undefined);
  assert.equal(num(-0), undefined);
  assert.deepEqual(num(Number.NaN), { path: "", expected: "a number", got: "number NaN" });
  assert.equal(num(Number.POSITIVE_INFINITY)?.expected, "a number");
  assert.equal(num("1")?.got, 'string "1"');
  assert.equal(int(3), undefined);
  assert.equal(int(1.5)?.expected, "an integer");
  assert.equal(bool(false), undefined);
  assert.equal(bool(0)?.expected, "a boolean");
  assert.equal(idLike(""), undefined);
  assert.equal(idLike(9007199254740991), undefined);
  assert.equal(idLike(9007199254740992)?.expected, "a string or an integer");
  assert.equal(idLike(null)?.got, "null");
  assert.equal(anyObject({}), undefined);
  assert.equal(anyObject([])?.got, "array(0)");
  assert.equal(anyObject(null)?.expected, "an object");
  for (const v of [null, 0, "", [], {}, false]) assert.equal(anyValue(v), undefined);
});

test("literal matches one value exactly", () => {
  const obj = literal("object");
  assert.equal(obj("object"), undefined);
  assert.deepEqual(obj("Object"), { path: "", expected: '"object"', got: 'string "Object"' });
  assert.equal(literal(1)(1), undefined);
  assert.equal(literal(1)("1")?.expected, "1");
  assert.equal(literal(true)(true), undefined);
  assert.equal(literal(true)(1)?.expected, "true");
});

test("closedEnum refuses anything not listed, including non-strings", () => {
  const e = closedEnum(["a", "b"]);
  assert.equal(e("a"), undefined);
  assert.deepEqual(e("c"), { path: "", expected: 'one of "a", "b"', got: 'string "c"' });
  assert.equal(e(1)?.expected, 'one of "a", "b"');
  assert.equal(e(undefined)?.got, "absent");
  assert.equal(e("toString")?.expected, 'one of "a", "b"');
});

test("range bounds a number on either side, inclusively", () => {
  const both = range(num, 0, 1);
  assert.equal(both(0), undefined);
  assert.equal(both(1), undefined);
  assert.equal(both(0.5), undefined);
  assert.deepEqual(both(1.0001), { path: "", expected: "a number >= 0 <= 1", got: "number 1.0001" });
  assert.equal(both(-1)?.expected, "a number >= 0 <= 1");
  assert.equal(both("0.5")?.expected, "a number", "the inner check runs first");
  assert.equal(range(int, 1, undefined)(0)?.expected, "a number >= 1");
  assert.equal(range(int, 1, undefined)(1e9), undefined);
  assert.equal(range(num, undefined, 10)(11)?.expected, "a number <= 10");
  assert.equal(range(num, undefined, 10)(-1e9), undefined);
  assert.equal(range(num, undefined, undefined)(5), undefined);
});

test("arrayOf checks every item and an optional maxItems", () => {
  const strings = arrayOf(str);
  assert.equal(strings([]), undefined);
  assert.equal(strings(["a", "b"]), undefined);
  assert.deepEqual(issueOf(strings, ["a", 2]), { path: "v[1]", expected: "a string", got: "number 2" });
  assert.equal(strings({ length: 0 })?.expected, "an array");
  const three = arrayOf(str, 3);
  assert.equal(three(["a", "b", "c"]), undefined);
  assert.deepEqual(three(["a", "b", "c", "d"]), { path: "", expected: "an array of at most 3 items", got: "array(4)" });
  assert.equal(arrayOf(str, 0)([]), undefined);
  assert.equal(arrayOf(str, 0)(["a"])?.expected, "an array of at most 0 items");
  const nested = arrayOf(arrayOf(object({ n: num }, ["n"])));
  assert.equal(issueOf(nested, [[{ n: 1 }], [{ n: 1 }, {}]])?.path, "v[1][1].n");
});

test("recordOf checks every member value, own keys only", () => {
  const strings = recordOf(str);
  assert.equal(strings({}), undefined);
  assert.equal(strings({ a: "1", b: "2" }), undefined);
  assert.deepEqual(issueOf(strings, { a: "1", b: 2 }), { path: "v.b", expected: "a string", got: "number 2" });
  assert.equal(strings([])?.expected, "an object");
  assert.equal(strings(null)?.expected, "an object");
  const withProto = JSON.parse('{"__proto__":"x","ok":"y"}') as JsonObject;
  assert.equal(strings(withProto), undefined);
  assert.equal(issueOf(strings, JSON.parse('{"__proto__":{"a":1}}'))?.path, "v.__proto__");
});

test("object: required members, checked members, unknown members untouched", () => {
  const o = object({ a: str, b: num }, ["a"]);
  assert.equal(o({ a: "x" }), undefined);
  assert.equal(o({ a: "x", b: 1, c: "anything" }), undefined);
  assert.deepEqual(issueOf(o, {}), { path: "v.a", expected: "a required member", got: "absent" });
  assert.deepEqual(issueOf(o, { a: "x", b: "1" }), { path: "v.b", expected: "a number", got: 'string "1"' });
  assert.equal(o([])?.expected, "an object");
  assert.equal(object({})({ anything: 1 }), undefined);
  assert.equal(issueOf(object({ a: object({ b: object({ c: str }) }) }), { a: { b: { c: 1 } } })?.path, "v.a.b.c");
});

test("anyOf passes on the first matching alternative, else reports its description", () => {
  const sn = anyOf([str, num], "a string or a number");
  assert.equal(sn("x"), undefined);
  assert.equal(sn(1), undefined);
  assert.deepEqual(sn(true), { path: "", expected: "a string or a number", got: "boolean true" });
  assert.equal(anyOf([], "nothing")(1)?.expected, "nothing");
  assert.equal(issueOf(object({ v: sn }), { v: null })?.path, "v.v");
});

test("tagged dispatches on a string tag; unknown tags pass; a non-string tag is refused", () => {
  const t = tagged("kind", { a: object({ x: num }, ["x"]), b: object({ y: str }, ["y"]) });
  assert.equal(t({ kind: "a", x: 1 }), undefined);
  assert.equal(t({ kind: "b", y: "1" }), undefined);
  assert.deepEqual(issueOf(t, { kind: "a" }), { path: "v.x", expected: "a required member", got: "absent" });
  assert.equal(t({ kind: "c" }), undefined);
  assert.equal(t({ kind: "constructor" }), undefined);
  assert.deepEqual(issueOf(t, { kind: 1 }), { path: "v.kind", expected: "a string", got: "number 1" });
  assert.deepEqual(issueOf(t, {}), { path: "v.kind", expected: "a string", got: "absent" });
  assert.equal(issueOf(t, { kind: null })?.got, "null");
  assert.equal(t("a")?.expected, "an object");
  assert.equal(t([])?.expected, "an object");
});

test("validate prefixes the root, and treats an absent value as {}", () => {
  assert.equal(validate(object({}), undefined, "params"), undefined);
  assert.deepEqual(validate(object({ a: str }, ["a"]), undefined, "params"), {
    path: "params.a",
    expected: "a required member",
    got: "absent",
  });
  assert.deepEqual(validate(str, {}, "result"), { path: "result", expected: "a string", got: "object" });
  assert.equal(validate(arrayOf(str), [1] as unknown as JsonObject, "result")?.path, "result[0]");
  assert.equal(validate(object({ a: str }), { a: "x" }, "params"), undefined);
});
