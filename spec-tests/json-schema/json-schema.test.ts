// JSON Schema validator (lib/json-schema/validator.ts): one table row per keyword with valid and
// invalid values (each invalid one refused at an exact path with a recognizable message),
// then $ref (local pointers, recursion, cycles), dialects (2020-12, draft-07, refusal of
// others), unusable schemas reported and never thrown, the error cap and paths, and a
// seeded fuzz run: a few hundred generated values and schemas, JSON and not, must never
// make either function throw.

import { test } from "node:test";
import assert from "node:assert/strict";
import { checkSchema, validateJsonSchema } from "../../lib/json-schema/validator.js";
import { testRows, type Row } from "../support/json-schema-rows.js";
import { mulberry32 } from "../support/helpers.js";

const ROWS: Row[] = [
  {
    name: "type",
    schema: { type: "string" },
    valid: ["", "x"],
    invalid: [
      [1, "", /expected string, got number 1/],
      [null, "", /got null/],
      [["x"], "", /got array\(1\)/],
    ],
  },
  {
    name: "type integer",
    schema: { type: "integer" },
    valid: [0, -3, 1.0, 1e20],
    invalid: [
      [1.5, "", /expected integer, got number 1\.5/],
      ["1", "", /expected integer/],
    ],
  },
  {
    name: "type number refuses non-finite numbers",
    schema: { type: "number" },
    valid: [0, 1.5, -1e-9],
    invalid: [
      [Number.NaN, "", /expected number/],
      [Number.POSITIVE_INFINITY, "", /expected number/],
      [true, "", /got boolean true/],
    ],
  },
  {
    name: "type array of types",
    schema: { type: ["string", "null"] },
    valid: ["a", null],
    invalid: [[3, "", /expected string or null, got number 3/]],
  },
  {
    name: "type object and array",
    schema: { type: "object" },
    valid: [{}, { a: 1 }],
    invalid: [
      [[], "", /expected object, got array\(0\)/],
      [null, "", /expected object, got null/],
    ],
  },
  {
    name: "type boolean and null",
    schema: { type: ["boolean", "array"] },
    valid: [true, false, []],
    invalid: [[0, "", /expected boolean or array/]],
  },
  {
    name: "enum",
    schema: { enum: ["a", 1, null, { k: [1, 2] }] },
    valid: ["a", 1, 1.0, null, { k: [1, 2] }],
    invalid: [
      ["b", "", /expected one of "a", 1, null, \{"k":\[1,2\]\}, got string "b"/],
      [{ k: [2, 1] }, "", /expected one of/],
      [true, "", /expected one of/],
    ],
  },
  {
    name: "const",
    schema: { const: { a: [1, { b: null }] } },
    valid: [{ a: [1, { b: null }] }, { a: [1.0, { b: null }] }],
    invalid: [
      [{ a: [1, { b: 0 }] }, "", /expected \{"a":\[1,\{"b":null\}\]\}, got object/],
      [{ a: [1, { b: null }], c: 1 }, "", /expected/],
      [[1], "", /expected/],
    ],
  },
  {
    name: "const null and false",
    schema: { properties: { n: { const: null }, f: { const: false } } },
    valid: [{ n: null, f: false }, {}],
    invalid: [
      [{ n: 0 }, "/n", /expected null, got number 0/],
      [{ f: 0 }, "/f", /expected false, got number 0/],
    ],
  },
  {
    name: "minimum and maximum (inclusive)",
    schema: { minimum: 1, maximum: 3 },
    valid: [1, 2.5, 3, "not a number is not checked"],
    invalid: [
      [0.999, "", /expected a number >= 1, got number 0\.999/],
      [3.001, "", /expected a number <= 3/],
    ],
  },
  {
    name: "exclusiveMinimum and exclusiveMaximum",
    schema: { exclusiveMinimum: 1, exclusiveMaximum: 3 },
    valid: [1.001, 2.999],
    invalid: [
      [1, "", /expected a number > 1, got number 1/],
      [3, "", /expected a number < 3/],
    ],
  },
  {
    name: "multipleOf",
    schema: { multipleOf: 0.1 },
    valid: [0.3, 1, 0, -0.7, 12.3],
    invalid: [[0.35, "", /multiple of 0\.1/]],
  },
  {
    name: "multipleOf integer",
    schema: { multipleOf: 3 },
    valid: [0, 9, -3],
    invalid: [[10, "", /multiple of 3/]],
  },
  {
    name: "minLength and maxLength count code points",
    schema: { minLength: 2, maxLength: 3 },
    valid: ["ab", "abc", "😀😀", "😀😀😀", 12345],
    invalid: [
      ["a", "", /at least 2 characters, got length 1/],
      ["😀", "", /at least 2 characters, got length 1/],
      ["abcd", "", /at most 3 characters, got length 4/],
      ["😀😀😀😀", "", /at most 3 characters/],
    ],
  },
  {
    name: "pattern (unanchored, unicode)",
    schema: { pattern: "^[a-z]+\\d?$" },
    valid: ["abc", "abc1", 5],
    invalid: [
      ["ABC", "", /matching the pattern "\^\[a-z\]\+\\\\d\?\$", got string "ABC"/],
      ["abc12", "", /pattern/],
    ],
  },
  {
    name: "pattern uses the u flag (code points, \\p{...} classes)",
    schema: { pattern: "^\\p{Lu}.$" },
    valid: ["A😀", "Éx"],
    invalid: [
      ["a😀", "", /pattern/],
      ["A😀😀", "", /pattern/],
    ],
  },
  {
    name: "format is an annotation: nothing is asserted",
    schema: {
      properties: {
        e: { format: "email" },
        u: { format: "uri" },
        d: { format: "date" },
        t: { format: "date-time" },
        h: { format: "hostname" },
      },
    },
    valid: [{ e: "no-at", u: "example.com", d: "2023-02-29", t: "yesterday", h: "not a hostname!" }, { e: 42 }],
    invalid: [],
  },
  {
    name: "properties and required",
    schema: {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "object", properties: { c: { type: "number" } }, required: ["c"] } },
      required: ["a"],
    },
    valid: [{ a: "x" }, { a: "x", b: { c: 1 } }, { a: "x", extra: true }],
    invalid: [
      [{}, "/a", /required property "a" is missing/],
      [{ a: 1 }, "/a", /expected string/],
      [{ a: "x", b: {} }, "/b/c", /required property "c" is missing/],
      [{ a: "x", b: { c: "1" } }, "/b/c", /expected number/],
      [{ a: undefined }, "/a", /missing/],
    ],
  },
  {
    name: "properties are own members only",
    schema: { properties: { constructor: { type: "string" }, toString: { type: "string" } }, required: ["constructor"] },
    valid: [{ constructor: "x" }],
    invalid: [[{}, "/constructor", /missing/]],
  },
  {
    name: "additionalProperties false",
    schema: { properties: { a: {} }, patternProperties: { "^x-": {} }, additionalProperties: false },
    valid: [{}, { a: 1, "x-y": 2 }],
    invalid: [
      [{ a: 1, b: 2 }, "/b", /unexpected property "b"/],
      [{ "a/b~c": 1 }, "/a~1b~0c", /unexpected property "a\/b~c"/],
    ],
  },
  {
    name: "additionalProperties schema",
    schema: { properties: { a: { type: "string" } }, additionalProperties: { type: "integer" } },
    valid: [{ a: "s", b: 1, c: 2 }],
    invalid: [[{ a: "s", b: 1.5 }, "/b", /expected integer/]],
  },
  {
    name: "patternProperties",
    schema: { patternProperties: { "^n_": { type: "number" }, "^s_": { type: "string" } } },
    valid: [{ n_a: 1, s_b: "x", other: null }],
    invalid: [[{ n_a: "1" }, "/n_a", /expected number/]],
  },
  {
    name: "propertyNames, minProperties, maxProperties",
    schema: { propertyNames: { maxLength: 3 }, minProperties: 1, maxProperties: 2 },
    valid: [{ a: 1 }, { abc: 1, b: 2 }],
    invalid: [
      [{}, "", /at least 1 properties, got 0/],
      [{ a: 1, b: 2, c: 3 }, "", /at most 2 properties, got 3/],
      [{ abcd: 1 }, "/abcd", /at most 3 characters/],
    ],
  },
  {
    name: "dependentRequired and dependentSchemas",
    schema: { dependentRequired: { card: ["cvv"] }, dependentSchemas: { pro: { required: ["seat"] } } },
    valid: [{}, { card: 1, cvv: 2 }, { pro: true, seat: 1 }],
    invalid: [
      [{ card: 1 }, "/cvv", /property "cvv" is required when "card" is present/],
      [{ pro: true }, "/seat", /required property "seat" is missing/],
    ],
  },
  {
    name: "draft-07 dependencies (both forms)",
    schema: {
      $schema: "http://json-schema.org/draft-07/schema#",
      dependencies: { a: ["b"], c: { properties: { d: { type: "string" } } } },
    },
    valid: [
      { a: 1, b: 1 },
      { c: 1, d: "x" },
    ],
    invalid: [
      [{ a: 1 }, "/b", /required when "a"/],
      [{ c: 1, d: 1 }, "/d", /expected string/],
    ],
  },
  {
    name: "items (schema)",
    schema: { items: { type: "integer" } },
    valid: [[], [1, 2, 3], "not an array"],
    invalid: [[[1, "2", 3.5], "/1", /expected integer/]],
  },
  {
    name: "prefixItems with items false",
    schema: { prefixItems: [{ type: "string" }, { type: "number" }], items: false },
    valid: [[], ["a"], ["a", 1]],
    invalid: [
      [[1], "/0", /expected string/],
      [["a", 1, true], "", /at most 2 items, got 3/],
    ],
  },
  {
    name: "prefixItems with items schema",
    schema: { prefixItems: [{ type: "string" }], items: { type: "boolean" } },
    valid: [["a", true, false]],
    invalid: [[["a", true, 0], "/2", /expected boolean/]],
  },
  {
    name: "draft-07 items array and additionalItems",
    schema: { $schema: "http://json-schema.org/draft-07/schema", items: [{ type: "string" }], additionalItems: { type: "number" } },
    valid: [["a"], ["a", 1, 2]],
    invalid: [
      [[1], "/0", /expected string/],
      [["a", "b"], "/1", /expected number/],
    ],
  },
  {
    name: "minItems and maxItems",
    schema: { minItems: 1, maxItems: 2 },
    valid: [[1], [1, 2], {}],
    invalid: [
      [[], "", /at least 1 items, got 0/],
      [[1, 2, 3], "", /at most 2 items, got 3/],
    ],
  },
  {
    name: "uniqueItems",
    schema: { uniqueItems: true },
    valid: [
      [],
      [1, "1", true, null, [1], { a: 1 }],
      [
        { a: 1, b: 2 },
        { a: 1, b: 3 },
      ],
    ],
    invalid: [
      [[1, 2, 1.0], "", /items 0 and 2 are equal/],
      [
        [
          { a: 1, b: [2] },
          { b: [2], a: 1 },
        ],
        "",
        /items 0 and 1 are equal/,
      ],
      [[[null], [null]], "", /items 0 and 1/],
    ],
  },
  {
    name: "uniqueItems false checks nothing",
    schema: { uniqueItems: false },
    valid: [[1, 1]],
    invalid: [],
  },
  {
    name: "contains with minContains and maxContains",
    schema: { contains: { type: "string" }, minContains: 2, maxContains: 3 },
    valid: [
      ["a", 1, "b"],
      ["a", "b", "c"],
    ],
    invalid: [
      [["a", 1], "", /at least 2 items matching "contains", got 1/],
      [["a", "b", "c", "d"], "", /at most 3 items matching "contains", got 4/],
    ],
  },
  {
    name: "allOf",
    schema: { allOf: [{ type: "number" }, { minimum: 2 }, { maximum: 4 }] },
    valid: [2, 4],
    invalid: [
      [1, "", /expected a number >= 2/],
      ["x", "", /expected number/],
    ],
  },
  {
    name: "anyOf",
    schema: { anyOf: [{ type: "string", maxLength: 2 }, { type: "null" }] },
    valid: ["ab", null],
    invalid: [
      [5, "", /expected a value matching at least one schema of anyOf: expected string, got number 5; expected null, got number 5/],
      ["abc", "", /anyOf: expected a string of at most 2 characters/],
    ],
  },
  {
    name: "anyOf names deeper paths",
    schema: { anyOf: [{ properties: { a: { type: "string" } } }, { properties: { a: { type: "null" } } }] },
    valid: [{ a: "x" }, { a: null }, {}],
    invalid: [[{ a: 1 }, "", /anyOf: \/a: expected string, got number 1; \/a: expected null/]],
  },
  {
    name: "oneOf",
    schema: { oneOf: [{ type: "integer" }, { type: "number", minimum: 10 }] },
    valid: [1, 10.5],
    invalid: [
      [11, "", /exactly one schema of oneOf, it matches #0 and #1/],
      [1.5, "", /it matches none: expected integer, got number 1\.5; expected a number >= 10/],
    ],
  },
  {
    name: "not",
    schema: { not: { type: "string" } },
    valid: [1, null, {}],
    invalid: [["s", "", /not matching the schema of "not"/]],
  },
  {
    name: "if/then/else",
    schema: { if: { properties: { kind: { const: "a" } } }, then: { required: ["a"] }, else: { required: ["b"] } },
    valid: [
      { kind: "a", a: 1 },
      { kind: "b", b: 1 },
    ],
    invalid: [
      [{ kind: "a" }, "/a", /missing/],
      [{ kind: "b" }, "/b", /missing/],
    ],
  },
  {
    name: "boolean schema true",
    schema: true,
    valid: [1, null, undefined, {}],
    invalid: [],
  },
  {
    name: "boolean schema false",
    schema: false,
    valid: [],
    invalid: [[1, "", /no value is allowed here/]],
  },
  {
    name: "boolean subschemas",
    schema: { properties: { yes: true, no: false } },
    valid: [{ yes: 1 }],
    invalid: [[{ no: 1 }, "/no", /no value is allowed/]],
  },
  {
    name: "annotations and x- keywords have no effect",
    schema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $comment: "c",
      title: "T",
      description: "D",
      default: 1,
      examples: [1],
      deprecated: true,
      readOnly: true,
      writeOnly: false,
      contentMediaType: "application/json",
      contentEncoding: "base64",
      contentSchema: { type: "number", bogus: 1 },
      enumNames: ["x"],
      "x-custom": { type: "string" },
      "x-mcp-header": "Region",
    },
    valid: [1, "x", { a: 1 }, null],
    invalid: [],
  },
];

testRows("keyword", ROWS);

// ---------------------------------------------------------------------------------------
// $ref.

test("$ref to #/$defs and #/definitions, JSON pointer escapes, and recursion through a value", () => {
  const schema = {
    $defs: { name: { type: "string", minLength: 1 }, "a/b~c": { type: "integer" }, "sp ace": { type: "boolean" } },
    definitions: { legacy: { type: "null" } },
    properties: {
      n: { $ref: "#/$defs/name" },
      e: { $ref: "#/$defs/a~1b~0c" },
      s: { $ref: "#/$defs/sp%20ace" },
      l: { $ref: "#/definitions/legacy" },
      p: { $ref: "#/properties/n" },
      t: { $ref: "#/$defs/tuple/prefixItems/1" },
    },
  };
  (schema.$defs as Record<string, unknown>).tuple = { prefixItems: [{}, { const: 7 }] };
  assert.equal(checkSchema(schema), undefined);
  assert.deepEqual(validateJsonSchema(schema, { n: "x", e: 1, s: true, l: null, p: "y", t: 7 }), { valid: true });
  const bad = validateJsonSchema(schema, { n: "", e: 1.5, s: 1, l: 0, p: 2, t: 8 });
  assert.equal(bad.valid, false);
  if (!bad.valid)
    assert.deepEqual(
      bad.errors.map((e) => e.path),
      ["/n", "/e", "/s", "/l", "/p", "/t"],
    );

  const tree = {
    type: "object",
    properties: { value: { type: "number" }, children: { type: "array", items: { $ref: "#" } } },
    required: ["value"],
  };
  assert.deepEqual(validateJsonSchema(tree, { value: 1, children: [{ value: 2, children: [{ value: 3 }] }] }), { valid: true });
  const deep = validateJsonSchema(tree, { value: 1, children: [{ value: 2, children: [{ value: "3" }, {}] }] });
  assert.deepEqual(deep, {
    valid: false,
    errors: [
      { path: "/children/0/children/0/value", message: 'expected number, got string "3"' },
      { path: "/children/0/children/1/value", message: 'required property "value" is missing' },
    ],
  });
});

test("$ref cycles that never reach a value are schema errors; recursion through a value is fine", () => {
  const cycles: unknown[] = [
    { $ref: "#" },
    { $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" },
    {
      $defs: { a: { allOf: [{ $ref: "#/$defs/b" }] }, b: { anyOf: [{ type: "string" }, { $ref: "#/$defs/a" }] } },
      properties: { x: { $ref: "#/$defs/a" } },
    },
    { $defs: { a: { not: { $ref: "#/$defs/a" } } } },
    { $defs: { a: { if: { $ref: "#/$defs/a" }, then: {} } } },
  ];
  for (const schema of cycles) {
    const problem = checkSchema(schema);
    assert.ok(problem !== undefined, JSON.stringify(schema));
    assert.match(problem, /\$ref cycle that never reaches a value/);
    const result = validateJsonSchema(schema, "anything");
    assert.equal(result.valid, false);
    if (!result.valid) assert.match(result.errors[0]?.message ?? "", /^invalid schema: \$ref cycle/);
  }
  assert.match(checkSchema(cycles[1]) ?? "", /#\/\$defs\/a -> #\/\$defs\/b -> #\/\$defs\/a/);
  // A JavaScript object cycle without $ref: properties consume a value each time round.
  const linked: Record<string, unknown> = { type: "object" };
  linked.properties = { next: linked };
  assert.equal(checkSchema(linked), undefined);
  assert.deepEqual(validateJsonSchema(linked, { next: { next: {} } }), { valid: true });
  assert.equal(validateJsonSchema(linked, { next: { next: 1 } }).valid, false);
  // An object-identity cycle on the same value is caught like a $ref cycle.
  const selfAll: Record<string, unknown> = {};
  selfAll.allOf = [selfAll];
  assert.match(checkSchema(selfAll) ?? "", /cycle/);
});

test("unresolvable, non-local and malformed references are schema errors", () => {
  assert.match(checkSchema({ $ref: "#/$defs/missing" }) ?? "", /at #\/\$ref: reference "#\/\$defs\/missing" does not resolve/);
  assert.match(checkSchema({ $ref: "other.json#/x" }) ?? "", /"other.json#\/x" is not in this schema document: only local references/);
  assert.match(checkSchema({ $ref: "https://example.com/schema" }) ?? "", /nothing is fetched/);
  assert.match(checkSchema({ $ref: "#anchor" }) ?? "", /names no \$anchor/);
  assert.match(checkSchema({ $ref: "#/%zz" }) ?? "", /malformed percent-encoding/);
  assert.match(checkSchema({ $ref: 5 }) ?? "", /at #\/\$ref: a reference must be a string/);
  assert.match(checkSchema({ $ref: "#/items/5", items: [] }) ?? "", /does not resolve/);
  assert.match(
    checkSchema({ properties: { a: { $ref: "#/$defs/x" } }, $defs: { x: { type: "nope" } } }) ?? "",
    /at #\/\$defs\/x: "type" must be one of/,
  );
});

// ---------------------------------------------------------------------------------------
// Dialects.

test("J-01: dialects: 2020-12 and draft-07 are accepted, $ref siblings apply only in 2020-12, others are refused", () => {
  for (const uri of [
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2020-12/schema#",
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft-07/schema#",
  ]) {
    assert.equal(checkSchema({ $schema: uri, type: "string" }), undefined, uri);
  }
  for (const uri of [
    "http://json-schema.org/draft-04/schema#",
    "http://json-schema.org/draft-06/schema#",
    "https://json-schema.org/draft/2019-09/schema",
    "https://example.com/my-meta",
    7,
  ]) {
    const problem = checkSchema({ $schema: uri });
    assert.ok(problem !== undefined, String(uri));
    assert.match(problem, /unsupported JSON Schema dialect/);
    assert.match(problem, /2020-12/);
    assert.match(problem, /draft-07/);
    const result = validateJsonSchema({ $schema: uri }, 1);
    assert.equal(result.valid, false);
    if (!result.valid)
      assert.deepEqual(
        result.errors.map((e) => e.path),
        [""],
      );
  }
  const defs = { $defs: { n: { type: "number" } }, $ref: "#/$defs/n", maximum: 3 };
  assert.equal(validateJsonSchema(defs, 5).valid, false, "2020-12 (the default) applies keywords beside $ref");
  assert.deepEqual(
    validateJsonSchema({ ...defs, $schema: "http://json-schema.org/draft-07/schema#" }, 5),
    { valid: true },
    "draft-07 ignores them",
  );
  assert.equal(validateJsonSchema({ ...defs, $schema: "http://json-schema.org/draft-07/schema#" }, "x").valid, false);
});

// ---------------------------------------------------------------------------------------
// Unusable schemas.

test("unusable schemas are described by checkSchema and reported, never thrown, by validateJsonSchema", () => {
  const cases: Array<[unknown, RegExp]> = [
    [null, /a schema must be an object or a boolean, got null/],
    [[], /got array/],
    ["string", /got string/],
    [{ type: "strng" }, /"type" must be one of/],
    [{ type: [] }, /"type" must be one of/],
    [{ pattern: "((" }, /at #\/pattern: invalid regular expression "\(\("/],
    [{ pattern: "^a\\-b$" }, /at #\/pattern: invalid regular expression .*"u" flag/],
    [{ properties: { a: { pattern: "\\p{Nope}" } } }, /at #\/properties\/a\/pattern: invalid regular expression/],
    [{ pattern: 5 }, /a pattern must be a string/],
    [{ patternProperties: { "[": {} } }, /at #\/patternProperties\/\[: invalid regular expression/],
    [{ properties: { a: { minLength: -1 } } }, /at #\/properties\/a: "minLength" must be a non-negative integer/],
    [{ maxItems: 1.5 }, /"maxItems" must be a non-negative integer/],
    [{ minimum: "1" }, /"minimum" must be a number/],
    [{ exclusiveMinimum: true }, /draft-04 boolean form/],
    [{ multipleOf: 0 }, /greater than 0/],
    [{ required: "a" }, /"required" must be an array of strings/],
    [{ required: [1] }, /"required" must be an array of strings/],
    [{ properties: [] }, /"properties" must be an object/],
    [{ anyOf: [] }, /"anyOf" must be a non-empty array of schemas/],
    [{ allOf: {} }, /"allOf" must be a non-empty array/],
    [{ oneOf: [1] }, /at #\/oneOf\/0: a schema must be an object or a boolean/],
    [{ not: "x" }, /at #\/not: a schema must be/],
    [{ items: [{}], prefixItems: [{}] }, /cannot be combined/],
    [{ enum: "a" }, /"enum" must be an array/],
    [{ uniqueItems: "yes" }, /"uniqueItems" must be a boolean/],
    [{ format: 1 }, /"format" must be a string/],
    [{ $defs: [] }, /"\$defs" must be an object/],
    [{ dependentRequired: { a: "b" } }, /must be an array of property names/],
    [{ additionalProperties: 1 }, /at #\/additionalProperties: a schema must be/],
  ];
  for (const [schema, reason] of cases) {
    const problem = checkSchema(schema);
    assert.ok(problem !== undefined, JSON.stringify(schema));
    assert.match(problem, reason);
    const result = validateJsonSchema(schema, {});
    assert.equal(result.valid, false);
    if (!result.valid) {
      assert.equal(result.errors.length, 1);
      assert.equal(result.errors[0]?.path, "");
      assert.equal(result.errors[0]?.message, `invalid schema: ${problem}`);
    }
  }
  // A schema nested far deeper than the evaluation cap compiles (iteratively), and
  // evaluating it fails with the cap, whatever the parity of the "not"s.
  for (const depth of [200_000, 200_001]) {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < depth; i++) deep = { not: deep };
    assert.equal(checkSchema(deep), undefined);
    const verdict = validateJsonSchema(deep, 1);
    assert.equal(verdict.valid, false);
    if (!verdict.valid) assert.match(verdict.errors.map((e) => e.message).join("; "), /nested deeper than 500 levels/);
  }
  // A hostile schema object with a throwing getter.
  const hostile = {};
  Object.defineProperty(hostile, "type", {
    enumerable: true,
    get: () => {
      throw new Error("boom");
    },
  });
  assert.match(checkSchema(hostile) ?? "", /boom/);
});

test("compiled schemas are cached: the same verdict on every call", () => {
  const schema = { type: "object", properties: { a: { pattern: "^x" } } };
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(validateJsonSchema(schema, { a: "xy" }), { valid: true });
    assert.equal(validateJsonSchema(schema, { a: "yx" }).valid, false);
  }
  const broken = { pattern: "(" };
  assert.equal(checkSchema(broken), checkSchema(broken));
});

// ---------------------------------------------------------------------------------------
// Error collection and paths.

test("at most 10 errors are collected, with JSON pointer paths", () => {
  const schema = { type: "array", items: { type: "object", properties: { v: { type: "string" } } } };
  const value = Array.from({ length: 50 }, (_, i) => ({ v: i }));
  const result = validateJsonSchema(schema, value);
  assert.equal(result.valid, false);
  if (result.valid) return;
  assert.equal(result.errors.length, 10);
  assert.deepEqual(
    result.errors.map((e) => e.path),
    Array.from({ length: 10 }, (_, i) => `/${i}/v`),
  );
  const required = validateJsonSchema({ required: Array.from({ length: 20 }, (_, i) => `k${i}`) }, {});
  assert.equal(required.valid ? 0 : required.errors.length, 10);
  const escaped = validateJsonSchema({ properties: { "a/b": { properties: { "~": { type: "null" } } } } }, { "a/b": { "~": 1 } });
  assert.deepEqual(escaped, { valid: false, errors: [{ path: "/a~1b/~0", message: "expected null, got number 1" }] });
});

test("several keywords report together, each at its own path", () => {
  const schema = {
    type: "object",
    properties: { a: { type: "integer" }, b: { type: "array", items: { type: "string", minLength: 2 } } },
    required: ["a", "c"],
    additionalProperties: false,
  };
  assert.deepEqual(validateJsonSchema(schema, { a: 1.5, b: ["x", "yy", 3], d: 1 }), {
    valid: false,
    errors: [
      { path: "/a", message: "expected integer, got number 1.5" },
      { path: "/b/0", message: "expected a string of at least 2 characters, got length 1" },
      { path: "/b/2", message: "expected string, got number 3" },
      { path: "/d", message: 'unexpected property "d"' },
      { path: "/c", message: 'required property "c" is missing' },
    ],
  });
});

test("values nested deeper than the cap, cyclic values, and non-JSON values are errors, not exceptions", () => {
  const list = { $defs: { l: { type: "array", items: { $ref: "#/$defs/l" } } }, $ref: "#/$defs/l" };
  let deep: unknown[] = [];
  for (let i = 0; i < 100_000; i++) deep = [deep];
  const result = validateJsonSchema(list, deep);
  assert.equal(result.valid, false);
  if (!result.valid) assert.match(result.errors[0]?.message ?? "", /nested deeper than 500 levels/);
  assert.deepEqual(validateJsonSchema(list, [[[]], []]), { valid: true });

  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const any = { $defs: { o: { type: "object", additionalProperties: { $ref: "#/$defs/o" } } }, $ref: "#/$defs/o" };
  assert.equal(validateJsonSchema(any, cyclic).valid, false);
  assert.deepEqual(validateJsonSchema({ uniqueItems: true }, [cyclic, cyclic]), { valid: true }, "not comparable: treated as unique");
  assert.deepEqual(
    validateJsonSchema({ uniqueItems: true }, [undefined, undefined, Number.NaN, Number.NaN]),
    { valid: true },
    "non-JSON items are not compared",
  );
  assert.equal(validateJsonSchema({ const: { self: {} } }, cyclic).valid, false);
  assert.equal(validateJsonSchema({ enum: [cyclic] }, cyclic).valid, true, "the same object is equal to itself");

  const hostile = {};
  Object.defineProperty(hostile, "a", {
    enumerable: true,
    get: () => {
      throw new Error("getter");
    },
  });
  const verdict = validateJsonSchema({ properties: { a: {} } }, hostile);
  assert.deepEqual(verdict, { valid: false, errors: [{ path: "", message: "validation aborted: getter" }] });
  assert.equal(validateJsonSchema({ type: "string" }, Symbol("s")).valid, false);
  assert.equal(validateJsonSchema({ type: "integer" }, 10n).valid, false);
  assert.equal(validateJsonSchema({ type: "object" }, () => 1).valid, false);
});

// ---------------------------------------------------------------------------------------
// Fuzz: generated values and schemas never make either function throw.

const prng = mulberry32;

function generator(seed: number): { value: (depth: number) => unknown; schema: (depth: number) => unknown } {
  const rand = prng(seed);
  const int = (n: number): number => Math.floor(rand() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const keys = ["a", "b", "c", "__proto__", "constructor", "", "x/y", "~"];
  const strings = ["", "a", "ab", "😀", "2024-01-01", "a@b.c", "http://x", "\u0000", "abc".repeat(20)];
  const weird: unknown[] = [undefined, Number.NaN, Number.POSITIVE_INFINITY, -0, 10n, Symbol("s"), () => 1, new Date(0), new Map()];
  const value = (depth: number): unknown => {
    const kind = depth <= 0 ? int(5) : int(8);
    switch (kind) {
      case 0:
        return null;
      case 1:
        return rand() < 0.5;
      case 2:
        return pick([0, 1, -1, 1.5, 1e21, -3, 2 ** 53, 0.1]);
      case 3:
        return pick(strings);
      case 4:
        return rand() < 0.9 ? pick(strings) : pick(weird);
      case 5:
      case 6: {
        const out: Record<string, unknown> = {};
        for (let i = int(4); i > 0; i--)
          Object.defineProperty(out, pick(keys), { value: value(depth - 1), enumerable: true, configurable: true, writable: true });
        return out;
      }
      default:
        return Array.from({ length: int(4) }, () => value(depth - 1));
    }
  };
  const types = ["null", "boolean", "object", "array", "number", "string", "integer"];
  const schema = (depth: number): unknown => {
    if (depth <= 0 || rand() < 0.15) return pick<unknown>([true, false, {}, { type: pick(types) }]);
    const out: Record<string, unknown> = {};
    for (let i = 1 + int(3); i > 0; i--) {
      switch (int(21)) {
        case 0:
          out.type = rand() < 0.7 ? pick(types) : [pick(types), pick(types)];
          break;
        case 1:
          out.properties = { [pick(keys)]: schema(depth - 1), [pick(keys)]: schema(depth - 1) };
          break;
        case 2:
          out.required = [pick(keys)];
          break;
        case 3:
          out.additionalProperties = rand() < 0.5 ? false : schema(depth - 1);
          break;
        case 4:
          out.items = schema(depth - 1);
          break;
        case 5:
          out.prefixItems = [schema(depth - 1)];
          break;
        case 6:
          out.enum = [value(1), value(1)];
          break;
        case 7:
          out.const = value(2);
          break;
        case 8:
          out[pick(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"])] = pick([0, 1, 2.5, -1]);
          break;
        case 9:
          out[pick(["minLength", "maxLength", "minItems", "maxItems", "minProperties"])] = pick([0, 1, 3, -1]);
          break;
        case 10:
          out.pattern = pick(["^a", "b$", "(", "\\d+", "[", "😀"]);
          break;
        case 11:
          out[pick(["anyOf", "oneOf", "allOf"])] = [schema(depth - 1), schema(depth - 1)];
          break;
        case 12:
          out.not = schema(depth - 1);
          break;
        case 13:
          out.$ref = pick(["#", "#/$defs/d", "#/$defs/missing", "#/properties/a"]);
          out.$defs = { d: schema(depth - 1) };
          break;
        case 14:
          out.format = pick(["email", "uri", "date", "date-time", "unknown"]);
          break;
        case 15:
          out[pick(["unevaluatedProperties", "unevaluatedItems"])] = rand() < 0.5 ? false : schema(depth - 1);
          break;
        case 16:
          out.if = schema(depth - 1);
          out[pick(["then", "else"])] = schema(depth - 1);
          break;
        case 17:
          out.contains = schema(depth - 1);
          out[pick(["minContains", "maxContains"])] = pick([0, 1, 2]);
          break;
        case 18:
          out.dependentSchemas = { [pick(keys)]: schema(depth - 1) };
          break;
        case 19:
          out.$id = pick(["a.json", "https://example.com/s", "#frag", 5]);
          out[pick(["$anchor", "$dynamicAnchor"])] = pick(["n", "1bad"]);
          out[pick(["$ref", "$dynamicRef"])] = pick(["#n", "a.json", "a.json#n", "#/$defs/d"]);
          break;
        default:
          out.uniqueItems = rand() < 0.8;
      }
    }
    return out;
  };
  return { value, schema };
}

test("fuzz: a few hundred generated values against fixed and generated schemas never throw", () => {
  const gen = generator(0x5eed);
  const fixed: unknown[] = ROWS.map((r) => r.schema);
  let checked = 0;
  let invalid = 0;
  for (let i = 0; i < 400; i++) {
    const value = gen.value(4);
    const schemas = [fixed[i % fixed.length], gen.schema(3), gen.value(2)];
    for (const schema of schemas) {
      let problem: string | undefined;
      let result: ReturnType<typeof validateJsonSchema> | undefined;
      assert.doesNotThrow(() => {
        problem = checkSchema(schema);
        result = validateJsonSchema(schema, value);
      }, `iteration ${i}`);
      assert.ok(result !== undefined);
      assert.ok(problem === undefined || typeof problem === "string");
      if (result.valid) {
        assert.equal(problem, undefined);
      } else {
        invalid++;
        assert.ok(result.errors.length >= 1 && result.errors.length <= 10);
        for (const error of result.errors) {
          assert.equal(typeof error.path, "string");
          assert.ok(error.path === "" || error.path.startsWith("/"), error.path);
          assert.equal(typeof error.message, "string");
          assert.ok(!error.message.startsWith("validation aborted"), error.message);
        }
      }
      checked++;
    }
  }
  assert.equal(checked, 1200);
  assert.ok(invalid > 100 && invalid < checked, `a mix of verdicts (${invalid} invalid of ${checked})`);
});
