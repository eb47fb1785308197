// References in the JSON Schema validator (lib/json-schema/identifiers.ts): $anchor, $id
// (embedded resources, relative $id resolved against the enclosing base, pointers read from
// the resource that holds the $ref), percent-encoded pointers, draft-07's "$id": "#name",
// $dynamicRef with $dynamicAnchor (the dynamic scope's outermost anchor wins; without the
// bookending anchor it is a plain $ref), and the identifiers refused as unusable.

import { test } from "node:test";
import assert from "node:assert/strict";
import { checkSchema, validateJsonSchema } from "../../lib/json-schema/validator.js";
import { testRows, type Row } from "../support/json-schema-rows.js";

const ROWS: Row[] = [
  {
    name: "$anchor names a subschema",
    schema: { $defs: { a: { $anchor: "addr", type: "string" } }, properties: { x: { $ref: "#addr" } } },
    valid: [{ x: "s" }, {}],
    invalid: [[{ x: 1 }, "/x", /expected string/]],
  },
  {
    name: "an embedded resource's relative $id is resolved against the root's",
    schema: {
      $id: "https://example.com/schemas/root.json",
      $defs: { item: { $id: "item.json", type: "integer" } },
      properties: { i: { $ref: "item.json" }, j: { $ref: "https://example.com/schemas/item.json" }, k: { $ref: "/schemas/item.json#" } },
    },
    valid: [{ i: 1, j: 2, k: 3 }],
    invalid: [
      [{ i: 1.5 }, "/i", /expected integer/],
      [{ j: "2" }, "/j", /expected integer/],
      [{ k: null }, "/k", /expected integer/],
    ],
  },
  {
    name: "a relative $id works without a root $id",
    schema: { $defs: { c: { $id: "child.json", type: "boolean" } }, items: { $ref: "child.json" } },
    valid: [[true]],
    invalid: [[[1], "/0", /expected boolean/]],
  },
  {
    name: "a pointer is read from the resource that holds the $ref",
    schema: {
      $defs: {
        n: { type: "string" },
        r: { $id: "r.json", $defs: { n: { type: "null" } }, properties: { z: { $ref: "#/$defs/n" } } },
      },
      properties: { p: { $ref: "r.json" }, q: { $ref: "#/$defs/n" }, s: { $ref: "r.json#/$defs/n" } },
    },
    valid: [{ p: { z: null }, q: "x", s: null }],
    invalid: [
      [{ p: { z: "x" } }, "/p/z", /expected null/],
      [{ q: null }, "/q", /expected string/],
    ],
  },
  {
    name: "an anchor in an embedded resource is reached through that resource's URI",
    schema: {
      $defs: { r: { $id: "urn:example:r", $defs: { x: { $anchor: "flag", type: "boolean" } } } },
      properties: { p: { $ref: "urn:example:r#flag" } },
    },
    valid: [{ p: true }],
    invalid: [[{ p: 0 }, "/p", /expected boolean/]],
  },
  {
    name: "percent-encoded pointer segments (%25, %22) and ~0 ~1",
    schema: {
      $defs: { "50%": { type: "number" }, 'q"': { type: "null" }, "~/": { type: "string" } },
      prefixItems: [{ $ref: "#/$defs/50%25" }, { $ref: "#/$defs/q%22" }, { $ref: "#/$defs/~0~1" }],
    },
    valid: [[1, null, "s"]],
    invalid: [
      [["1"], "/0", /expected number/],
      [[1, 0], "/1", /expected null/],
      [[1, null, 2], "/2", /expected string/],
    ],
  },
  {
    name: 'draft-07: "$id": "#name" is an anchor',
    schema: {
      $schema: "http://json-schema.org/draft-07/schema#",
      definitions: { a: { $id: "#thing", type: "string" } },
      properties: { x: { $ref: "#thing" } },
    },
    valid: [{ x: "s" }],
    invalid: [[{ x: 1 }, "/x", /expected string/]],
  },
  {
    name: "a pointer into an x- keyword is followed",
    schema: { "x-shared": { n: { type: "number" } }, properties: { a: { $ref: "#/x-shared/n" } } },
    valid: [{ a: 1 }],
    invalid: [[{ a: "1" }, "/a", /expected number/]],
  },
  {
    name: "$dynamicRef without a bookending $dynamicAnchor is a $ref",
    schema: { $defs: { s: { type: "string" } }, items: { $dynamicRef: "#/$defs/s" } },
    valid: [["a"]],
    invalid: [[[1], "/0", /expected string/]],
  },
  {
    name: "$dynamicRef whose target has no $dynamicAnchor of that name is a $ref",
    schema: {
      $defs: { s: { $anchor: "s", type: "string" }, t: { $id: "t.json", $dynamicAnchor: "s", type: "number" } },
      items: { $dynamicRef: "#s" },
    },
    valid: [["a"]],
    invalid: [[[1], "/0", /expected string/]],
  },
  {
    name: "$dynamicRef to a $dynamicAnchor that no resource of the dynamic scope carries: its initial target",
    schema: { $defs: { o: { $id: "o.json", $dynamicAnchor: "node", type: "string" } }, items: { $dynamicRef: "o.json#node" } },
    valid: [["a"]],
    invalid: [[[1], "/0", /expected string/]],
  },
];

testRows("reference", ROWS);

test("$dynamicRef: the outermost $dynamicAnchor of the dynamic scope wins (an extensible tree)", () => {
  const tree = {
    $id: "https://example.com/tree",
    $dynamicAnchor: "node",
    type: "object",
    properties: { data: true, children: { type: "array", items: { $dynamicRef: "#node" } } },
  };
  const strictTree = {
    $id: "https://example.com/strict-tree",
    $dynamicAnchor: "node",
    $ref: "tree",
    unevaluatedProperties: false,
    $defs: { tree },
  };
  const value = { children: [{ daat: 1 }] };
  assert.deepEqual(validateJsonSchema(tree, value), { valid: true }, "the tree alone allows any key");
  assert.deepEqual(validateJsonSchema(strictTree, { data: 1, children: [{ data: 2, children: [] }] }), { valid: true });
  assert.deepEqual(validateJsonSchema(strictTree, value), {
    valid: false,
    errors: [{ path: "/children/0/daat", message: 'unexpected property "daat" (unevaluatedProperties is false: no keyword evaluated it)' }],
  });
  // Reached only through $ref (no dynamic scope outside it): the initial target applies.
  const viaRef = { $defs: { tree }, properties: { t: { $ref: "https://example.com/tree" } } };
  assert.deepEqual(validateJsonSchema(viaRef, { t: value }), { valid: true });
  // A dynamic reference back to the same value never ends: refused as a cycle.
  const loop = { $id: "https://example.com/loop", $dynamicAnchor: "x", allOf: [{ $dynamicRef: "#x" }] };
  assert.match(checkSchema(loop) ?? "", /\$ref cycle that never reaches a value/);
});

test("$dynamicRef: an outer resource's $dynamicAnchor overrides the list's own; a plain $anchor or a scope already left does not", () => {
  const list = (anchor: Record<string, unknown>): Record<string, unknown> => ({
    $id: "https://example.com/app",
    $ref: "list",
    $defs: {
      own: { ...anchor, type: "integer" },
      list: { $id: "list", type: "array", items: { $dynamicRef: "#entry" }, $defs: { entry: { $dynamicAnchor: "entry" } } },
    },
  });
  const dynamic = list({ $dynamicAnchor: "entry" });
  assert.deepEqual(validateJsonSchema(dynamic, [1, 2]), { valid: true });
  assert.deepEqual(validateJsonSchema(dynamic, [1, "x"]), {
    valid: false,
    errors: [{ path: "/1", message: 'expected integer, got string "x"' }],
  });
  assert.deepEqual(
    validateJsonSchema(list({ $anchor: "entry" }), [1, "x"]),
    { valid: true },
    "$anchor takes no part in dynamic resolution",
  );
  // `if` enters the resource "a" and leaves it; then "b" is in scope when the reference is followed.
  const left = {
    $id: "https://example.com/scopes",
    if: { $id: "a", $defs: { t: { $dynamicAnchor: "t", type: "number" } } },
    then: { $id: "b", $ref: "land", $defs: { t: { $dynamicAnchor: "t", type: "null" } } },
    $defs: { land: { $id: "land", $dynamicRef: "inner#t" }, inner: { $id: "inner", $dynamicAnchor: "t", type: "string" } },
  };
  assert.deepEqual(validateJsonSchema(left, null), { valid: true });
  assert.equal(validateJsonSchema(left, 42).valid, false);
  assert.equal(validateJsonSchema(left, "s").valid, false);
});

test("identifiers and references refused as unusable, with their location", () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ $id: 5 }, /at #\/\$id: "\$id" must be a string/],
    [{ $defs: { a: { $id: "x.json#frag" } } }, /at #\/\$defs\/a\/\$id: "\$id" must not carry a fragment in 2020-12/],
    [{ $defs: { a: { $id: "a.json" }, b: { $id: "a.json" } } }, /duplicate \$id "mcp-engine:\/a.json"/],
    [{ $defs: { a: { $anchor: "1bad" } } }, /at #\/\$defs\/a\/\$anchor: an anchor must be a name/],
    [{ $defs: { a: { $anchor: "x" }, b: { $anchor: "x" } } }, /duplicate anchor "x"/],
    [{ $dynamicAnchor: 3 }, /at #\/\$dynamicAnchor: an anchor must be a name/],
    [{ $dynamicRef: 3 }, /at #\/\$dynamicRef: a reference must be a string/],
    [{ items: { $dynamicRef: "#nowhere" } }, /at #\/items\/\$dynamicRef: reference "#nowhere" names no \$anchor/],
    [{ $ref: "https://json-schema.org/draft/2020-12/schema" }, /is not in this schema document.*nothing is fetched/],
    [{ $defs: { r: { $id: "r.json", $defs: { x: { $anchor: "x" } } } }, $ref: "#x" }, /names no \$anchor of its schema resource/],
  ];
  for (const [schema, reason] of cases) {
    const problem = checkSchema(schema);
    assert.ok(problem !== undefined, JSON.stringify(schema));
    assert.match(problem, reason);
  }
});
