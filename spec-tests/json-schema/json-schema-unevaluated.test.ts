// unevaluatedProperties and unevaluatedItems (lib/json-schema/compile.ts): what counts
// as evaluated follows JSON Schema 2020-12's annotations. properties, patternProperties,
// additionalProperties, prefixItems, items and contains evaluate; allOf, $ref,
// dependentSchemas and the taken then/else branch pass theirs on; anyOf and oneOf only from
// passing alternatives, `if` only when it holds, `not` never; a nested unevaluated* keyword
// evaluates everything it saw; a child value's evaluation stays with the child.

import { test } from "node:test";
import assert from "node:assert/strict";
import { validateJsonSchema } from "../../lib/json-schema/validator.js";
import { testRows, type Row } from "../support/json-schema-rows.js";

const EXTRA = /unexpected property "(\w+)" \(unevaluatedProperties is false/;
const EXTRA_ITEM = /unexpected item \d+ \(unevaluatedItems is false/;

const PROPERTIES: Row[] = [
  {
    name: "false with no other keyword refuses any property",
    schema: { unevaluatedProperties: false },
    valid: [{}, [], "x", 1, null],
    invalid: [[{ a: 1 }, "/a", EXTRA]],
  },
  {
    name: "false beside properties refuses an extra key",
    schema: { type: "object", properties: { foo: { type: "string" } }, unevaluatedProperties: false },
    valid: [{}, { foo: "x" }],
    invalid: [
      [{ foo: "x", bar: 1 }, "/bar", EXTRA],
      [{ "a/b": 1 }, "/a~1b", /unexpected property "a\/b"/],
    ],
  },
  {
    name: "a schema applies to each unevaluated property",
    schema: { properties: { n: { type: "number" } }, unevaluatedProperties: { type: "string", minLength: 2 } },
    valid: [{ n: 1, a: "ab", b: "cd" }],
    invalid: [
      [{ n: 1, a: "x" }, "/a", /at least 2 characters/],
      [{ a: 5 }, "/a", /expected string/],
    ],
  },
  {
    name: "patternProperties evaluate the names they match",
    schema: { patternProperties: { "^x_": {} }, unevaluatedProperties: false },
    valid: [{ x_a: 1, x_b: 2 }],
    invalid: [[{ x_a: 1, y: 2 }, "/y", EXTRA]],
  },
  {
    name: "additionalProperties evaluates every remaining property",
    schema: { properties: { a: {} }, additionalProperties: true, unevaluatedProperties: false },
    valid: [{ a: 1, b: 2, c: 3 }],
    invalid: [],
  },
  {
    name: "allOf passes its annotations on",
    schema: {
      properties: { foo: {} },
      allOf: [{ properties: { bar: {} } }, { patternProperties: { "^b": {} } }],
      unevaluatedProperties: false,
    },
    valid: [{ foo: 1, bar: 2, baz: 3 }],
    invalid: [[{ foo: 1, bar: 2, qux: 3 }, "/qux", EXTRA]],
  },
  {
    name: "anyOf: every passing alternative counts, a failing one does not",
    schema: {
      anyOf: [
        { properties: { a: { const: 1 } }, required: ["a"] },
        { properties: { b: { const: 2 } }, required: ["b"] },
      ],
      unevaluatedProperties: false,
    },
    valid: [{ a: 1 }, { b: 2 }, { a: 1, b: 2 }],
    invalid: [
      [{ a: 1, b: 3 }, "/b", EXTRA],
      [{ a: 1, c: 0 }, "/c", EXTRA],
    ],
  },
  {
    name: "oneOf: the passing alternative counts",
    schema: {
      oneOf: [
        { properties: { a: {} }, required: ["a"] },
        { properties: { b: {} }, required: ["b"] },
      ],
      unevaluatedProperties: false,
    },
    valid: [{ a: 1 }, { b: 1 }],
    invalid: [[{ a: 1, x: 1 }, "/x", EXTRA]],
  },
  {
    name: "not never evaluates",
    schema: { not: { not: { properties: { a: {} } } }, unevaluatedProperties: false },
    valid: [{}],
    invalid: [[{ a: 1 }, "/a", EXTRA]],
  },
  {
    name: "if/then/else: if counts only when it holds, then or else when taken",
    schema: {
      if: { properties: { kind: { const: "a" } }, required: ["kind"] },
      then: { properties: { x: {} } },
      else: { properties: { y: {} } },
      unevaluatedProperties: false,
    },
    valid: [{ kind: "a", x: 1 }, { y: 1 }],
    invalid: [
      [{ kind: "a", y: 1 }, "/y", EXTRA],
      [{ kind: "b", y: 1 }, "/kind", EXTRA],
    ],
  },
  {
    name: "a lone if (no then, no else) still evaluates when it holds",
    schema: { if: { properties: { a: { type: "string" } } }, unevaluatedProperties: false },
    valid: [{ a: "s" }],
    invalid: [[{ a: 1 }, "/a", EXTRA]],
  },
  {
    name: "$ref passes its annotations on",
    schema: { $defs: { base: { properties: { a: {} } } }, $ref: "#/$defs/base", properties: { b: {} }, unevaluatedProperties: false },
    valid: [{ a: 1, b: 2 }],
    invalid: [[{ a: 1, b: 2, c: 3 }, "/c", EXTRA]],
  },
  {
    name: "dependentSchemas counts when its property is present",
    schema: { properties: { p: {} }, dependentSchemas: { p: { properties: { q: {} } } }, unevaluatedProperties: false },
    valid: [{ p: 1, q: 2 }, { p: 1 }],
    invalid: [[{ q: 2 }, "/q", EXTRA]],
  },
  {
    name: "draft-07 dependencies (schema form) counts the same way",
    schema: { dependencies: { p: { properties: { q: {} } } }, properties: { p: {} }, unevaluatedProperties: false },
    valid: [{ p: 1, q: 2 }],
    invalid: [[{ q: 2 }, "/q", EXTRA]],
  },
  {
    name: "a nested unevaluatedProperties evaluates everything it saw",
    schema: { allOf: [{ properties: { a: {} }, unevaluatedProperties: true }], unevaluatedProperties: false },
    valid: [{ a: 1, b: 2 }],
    invalid: [],
  },
  {
    name: "a nested unevaluatedProperties does not see its parent's properties",
    schema: { properties: { a: {} }, allOf: [{ unevaluatedProperties: false }] },
    valid: [{}],
    invalid: [[{ a: 1 }, "/a", EXTRA]],
  },
  {
    name: "a child value's evaluation stays with the child",
    schema: { properties: { o: { properties: { x: {} }, unevaluatedProperties: false } }, unevaluatedProperties: false },
    valid: [{ o: { x: 1 } }],
    invalid: [
      [{ o: { y: 1 } }, "/o/y", EXTRA],
      [{ o: {}, x: 1 }, "/x", EXTRA],
    ],
  },
  {
    name: "reported together with the other errors of the schema",
    schema: { properties: { a: { type: "string" }, r: {} }, required: ["r"], unevaluatedProperties: false },
    valid: [{ r: 1, a: "s" }],
    invalid: [[{ a: 1, z: 1 }, "/a", /expected string/]],
  },
  {
    name: "required, propertyNames and dependentRequired do not evaluate",
    schema: { required: ["r"], propertyNames: { minLength: 1 }, dependentRequired: { r: ["s"] }, unevaluatedProperties: false },
    valid: [],
    invalid: [[{ r: 1, s: 2 }, "/r", EXTRA]],
  },
];

const ITEMS: Row[] = [
  {
    name: "false with no other keyword refuses any item",
    schema: { unevaluatedItems: false },
    valid: [[], {}, "x"],
    invalid: [[[1], "/0", EXTRA_ITEM]],
  },
  {
    name: "prefixItems evaluates its positions",
    schema: { prefixItems: [{ type: "string" }], unevaluatedItems: false },
    valid: [[], ["a"]],
    invalid: [[["a", 1], "/1", EXTRA_ITEM]],
  },
  {
    name: "items evaluates every item",
    schema: { items: { type: "number" }, unevaluatedItems: false },
    valid: [[1, 2, 3]],
    invalid: [[[1, "x"], "/1", /expected number/]],
  },
  {
    name: "draft-07 array items evaluates its positions",
    schema: { items: [{}], unevaluatedItems: false },
    valid: [[1]],
    invalid: [[[1, 2], "/1", EXTRA_ITEM]],
  },
  {
    name: "a schema applies to each unevaluated item",
    schema: { prefixItems: [{ type: "string" }], unevaluatedItems: { type: "boolean" } },
    valid: [["a", true, false]],
    invalid: [[["a", true, 0], "/2", /expected boolean/]],
  },
  {
    name: "allOf passes its annotations on",
    schema: { allOf: [{ prefixItems: [{}, {}] }], unevaluatedItems: false },
    valid: [[1, 2]],
    invalid: [[[1, 2, 3], "/2", EXTRA_ITEM]],
  },
  {
    name: "contains evaluates the items it matches",
    schema: { contains: { type: "string" }, unevaluatedItems: { type: "number" } },
    valid: [["a", 1, "b", 2]],
    invalid: [[["a", true], "/1", /expected number/]],
  },
  {
    name: "contains inside a passing anyOf alternative counts",
    schema: { anyOf: [{ contains: { const: "a" } }, { type: "object" }], unevaluatedItems: false },
    valid: [["a", "a"]],
    invalid: [[["a", "b"], "/1", EXTRA_ITEM]],
  },
  {
    name: "anyOf: the longest passing prefix counts",
    schema: { anyOf: [{ prefixItems: [{ const: 1 }] }, { prefixItems: [{ const: 1 }, { const: 2 }] }], unevaluatedItems: false },
    valid: [[1], [1, 2]],
    invalid: [[[1, 3], "/1", EXTRA_ITEM]],
  },
  {
    name: "if/then: then's positions count when taken",
    schema: { if: { prefixItems: [{ const: "t" }] }, then: { prefixItems: [{}, { type: "number" }] }, unevaluatedItems: false },
    valid: [["t", 1]],
    invalid: [
      [["f"], "/0", EXTRA_ITEM],
      [["t", 1, 2], "/2", EXTRA_ITEM],
    ],
  },
  {
    name: "$ref passes its annotations on",
    schema: { $defs: { pair: { prefixItems: [{}, {}] } }, $ref: "#/$defs/pair", unevaluatedItems: false },
    valid: [[1, 2]],
    invalid: [[[1, 2, 3], "/2", EXTRA_ITEM]],
  },
  {
    name: "not never evaluates",
    schema: { not: { not: { items: true } }, unevaluatedItems: false },
    valid: [[]],
    invalid: [[[1], "/0", EXTRA_ITEM]],
  },
  {
    name: "a nested array's evaluation stays with it",
    schema: { prefixItems: [{ prefixItems: [{}, {}] }], unevaluatedItems: false },
    valid: [[[1, 2, 3]]],
    invalid: [[[[1, 2], 3], "/1", EXTRA_ITEM]],
  },
];

testRows("unevaluatedProperties", PROPERTIES);
testRows("unevaluatedItems", ITEMS);

test("unevaluated*: at most 10 errors, and no error at all for a value the schema evaluates in full", () => {
  const schema = { unevaluatedProperties: false, unevaluatedItems: false };
  const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i]));
  const result = validateJsonSchema(schema, many);
  assert.equal(result.valid ? 0 : result.errors.length, 10);
  const items = validateJsonSchema(
    schema,
    Array.from({ length: 30 }, (_, i) => i),
  );
  assert.equal(items.valid ? 0 : items.errors.length, 10);
  const several = validateJsonSchema(
    { properties: { a: { type: "string" }, r: {} }, required: ["r"], unevaluatedProperties: false },
    { a: 1, z: 1 },
  );
  assert.deepEqual(several.valid ? [] : several.errors.map((e) => e.path), ["/a", "/r", "/z"]);
  const tool = {
    type: "object",
    properties: { query: { type: "string" } },
    allOf: [{ if: { required: ["mode"] }, then: { properties: { mode: { enum: ["fast", "slow"] } } } }],
    unevaluatedProperties: false,
  };
  assert.deepEqual(validateJsonSchema(tool, { query: "q", mode: "fast" }), { valid: true });
  assert.deepEqual(validateJsonSchema(tool, { query: "q", limit: 3 }), {
    valid: false,
    errors: [{ path: "/limit", message: 'unexpected property "limit" (unevaluatedProperties is false: no keyword evaluated it)' }],
  });
});
