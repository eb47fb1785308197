// Argument synthesis for the CLI report (lib/cli/synthesize.ts): for each schema, the value
// built must validate against it (checked here again with lib/json-schema/validator.ts), and the
// documented choices hold (first type of a list, first satisfiable anyOf option, required
// properties only when they suffice, ...). Unsatisfiable schemas are reported, not guessed.

import assert from "node:assert/strict";
import { test } from "node:test";
import { fromPattern, synthesize } from "../../lib/cli/synthesize.js";
import { toolArguments } from "../../lib/cli/reference-client.js";
import { validateJsonSchema } from "../../lib/json-schema/validator.js";

/** Synthesizes for `schema`, asserts the value validates, and returns it. */
function valid(schema: unknown, options: { object?: boolean } = {}): unknown {
  const result = synthesize(schema, options);
  assert.ok(result.ok, `no value for ${JSON.stringify(schema)}: ${result.ok ? "" : result.why}`);
  assert.equal(result.checked, true);
  const check = validateJsonSchema(schema, result.value);
  assert.ok(check.valid, `${JSON.stringify(result.value)} does not validate against ${JSON.stringify(schema)}: ${JSON.stringify(check)}`);
  return result.value;
}

const object = (
  properties: Record<string, unknown>,
  required: string[] = Object.keys(properties),
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({ type: "object", properties, required, ...extra });

test("J-01: an integer parameter gets an integer, within its bounds", () => {
  assert.deepEqual(valid(object({ resourceId: { type: "integer" } })), { resourceId: 1 });
  assert.deepEqual(valid(object({ n: { type: "integer", minimum: 5, maximum: 9 } })), { n: 5 });
  assert.deepEqual(valid(object({ n: { type: "integer", maximum: -3 } })), { n: -3 });
  assert.deepEqual(valid(object({ n: { type: "integer", exclusiveMinimum: 10 } })), { n: 11 });
  assert.deepEqual(valid(object({ n: { type: "integer", minimum: 1, multipleOf: 7 } })), { n: 7 });
  const x = valid(object({ x: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 0.5 } })) as { x: number };
  assert.ok(x.x > 0 && x.x < 0.5);
  assert.deepEqual(valid(object({ n: { type: "number", minimum: 2.5 } })), { n: 2.5 });
});

test("J-01: a list of types takes its first type other than null", () => {
  assert.deepEqual(valid(object({ flag: { type: ["boolean", "string"] } })), { flag: true });
  assert.deepEqual(valid(object({ s: { type: ["string", "boolean"] } })), { s: "test" });
  assert.deepEqual(valid(object({ v: { type: ["null", "integer"] } })), { v: 1 });
  assert.deepEqual(valid(object({ v: { type: ["null"] } })), { v: null });
});

test("J-01: const, enum, default and examples are preferred, each validated", () => {
  assert.deepEqual(valid(object({ c: { const: "fixed" } })), { c: "fixed" });
  assert.deepEqual(valid(object({ e: { type: "string", enum: ["b", "a"] } })), { e: "b" });
  assert.deepEqual(valid(object({ d: { type: "integer", default: 42 } })), { d: 42 });
  assert.deepEqual(valid(object({ x: { type: "string", examples: ["sample"] } })), { x: "sample" });
  // A default that its own schema refuses is dropped on a later attempt.
  assert.deepEqual(valid(object({ d: { type: "integer", minimum: 10, default: 3 } })), { d: 10 });
});

test("J-01: strings honour minLength, maxLength, formats and patterns", () => {
  assert.deepEqual(valid(object({ s: { type: "string", minLength: 8 } })), { s: "testtttt" });
  assert.deepEqual(valid(object({ s: { type: "string", maxLength: 2 } })), { s: "te" });
  assert.deepEqual(valid(object({ s: { type: "string", format: "email" } })), { s: "test@example.com" });
  for (const format of ["uri", "date", "date-time", "uuid", "ipv4", "hostname"]) valid(object({ s: { type: "string", format } }));
  for (const pattern of [
    "^[A-Z]{3}-\\d{4}$",
    "^(foo|bar)+$",
    "^[a-f0-9]{8}$",
    "^\\w+@\\w+\\.com$",
    "^v\\d+(\\.\\d+){2}$",
    "^[^x]+$",
    "^a?b*c+$",
    "^(?:ab){2}$",
  ]) {
    const value = valid(object({ s: { type: "string", pattern } })) as { s: string };
    assert.match(value.s, new RegExp(pattern, "u"));
  }
  // Pattern and length together.
  valid(object({ s: { type: "string", pattern: "^[a-z]+$", minLength: 6 } }));
});

test("J-01: a pattern that cannot be satisfied makes the call a skip, with the pattern named", () => {
  for (const pattern of ["^(?=x)y$", "^(a)\\1$", "^[a-z]+$"]) {
    const schema =
      pattern === "^[a-z]+$" ? object({ s: { type: "string", pattern, maxLength: 0 } }) : object({ s: { type: "string", pattern } });
    const result = synthesize(schema, { object: true });
    assert.equal(result.ok, false, pattern);
    assert.match(result.ok ? "" : result.why, /pattern|satisf/);
  }
  assert.equal(fromPattern("^(?=x)y$"), undefined);
  assert.equal(fromPattern("^abc$"), "abc");
  assert.equal(fromPattern("[0-9]{3}"), "000");
});

test("J-01: nested objects, arrays with minItems and uniqueItems, $ref and recursion", () => {
  const nested = valid(object({ size: object({ width: { type: "number", exclusiveMinimum: 0 }, unit: { type: "string" } }) })) as {
    size: { width: number; unit: string };
  };
  assert.equal(typeof nested.size.width, "number");
  assert.deepEqual(valid(object({ tags: { type: "array", items: { type: "string" }, minItems: 2 } })), { tags: ["test", "test1"] });
  assert.deepEqual(valid(object({ ids: { type: "array", items: { type: "integer" }, minItems: 3, uniqueItems: true } })), {
    ids: [1, 2, 3],
  });
  assert.deepEqual(valid(object({ picks: { type: "array", items: { enum: ["a", "b"] }, minItems: 2, uniqueItems: true } })), {
    picks: ["a", "b"],
  });
  assert.deepEqual(valid(object({ pair: { type: "array", prefixItems: [{ type: "integer" }, { type: "boolean" }], minItems: 2 } })), {
    pair: [1, false],
  });
  const withRef = {
    type: "object",
    $defs: { point: object({ x: { type: "integer" }, y: { type: "integer" } }) },
    properties: { at: { $ref: "#/$defs/point" } },
    required: ["at"],
  };
  assert.deepEqual(valid(withRef), { at: { x: 1, y: 1 } });
  const draft07 = {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    definitions: { name: { type: "string", minLength: 2 } },
    properties: { n: { $ref: "#/definitions/name" } },
    required: ["n"],
  };
  assert.deepEqual(valid(draft07), { n: "test" });
  // A recursive tree: the optional child is left out, so the recursion ends.
  const tree = {
    type: "object",
    $defs: { node: { type: "object", properties: { label: { type: "string" }, child: { $ref: "#/$defs/node" } }, required: ["label"] } },
    properties: { root: { $ref: "#/$defs/node" } },
    required: ["root"],
  };
  assert.deepEqual(valid(tree), { root: { label: "test" } });
});

test("J-01: anyOf and oneOf take the first option that can be satisfied", () => {
  assert.deepEqual(
    valid(
      object({
        v: {
          anyOf: [
            { type: "string", pattern: "^(?=a)b$" },
            { type: "integer", minimum: 3 },
          ],
        },
      }),
    ),
    { v: 3 },
  );
  assert.deepEqual(valid(object({ v: { oneOf: [{ type: "boolean" }, { type: "string" }] } })), { v: true });
  assert.deepEqual(valid(object({ v: { anyOf: [{ type: "null" }, { type: "string" }] } })), { v: null });
  // oneOf: the first option's value ("test") matches both options, so the second one's is taken.
  assert.deepEqual(
    valid(
      object({
        v: {
          oneOf: [
            { type: "string", maxLength: 4 },
            { type: "string", minLength: 4, examples: ["longer"] },
          ],
        },
      }),
    ),
    { v: "longer" },
  );
  assert.deepEqual(valid(object({ v: { allOf: [object({ a: { type: "integer" } }), object({ b: { type: "boolean" } })] } })), {
    v: { a: 1, b: true },
  });
});

test("J-01: only required properties when they suffice; every property when the schema needs more", () => {
  assert.deepEqual(valid(object({ need: { type: "string" }, maybe: { type: "integer" } }, ["need"])), { need: "test" });
  assert.deepEqual(valid({ type: "object", properties: { a: { type: "string" } } }), {});
  // anyOf-of-required plus if/then/else (the 2020-12 conformance tool): the second anyOf
  // option (email) is the first that the if/else around it accepts.
  const contact = {
    type: "object",
    properties: { contactMethod: { type: "string", enum: ["phone", "email"] }, phone: { type: "string" }, email: { type: "string" } },
    allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
    if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
    then: { required: ["phone"] },
    else: { required: ["email"] },
    additionalProperties: false,
  };
  assert.deepEqual(valid(contact), { email: "test" });
  // Where required properties alone never validate, every property is filled.
  assert.deepEqual(valid({ type: "object", properties: { a: { type: "string" }, b: { type: "integer" } }, minProperties: 2 }), {
    a: "test",
    b: 1,
  });
  assert.deepEqual(valid({ type: "object", properties: { a: { type: "string" } }, anyOf: [{ required: ["a"] }] }), { a: "test" });
  assert.deepEqual(valid({ type: "object", minProperties: 1, properties: { a: { type: "boolean" } } }), { a: true });
  assert.deepEqual(valid({ type: "object", required: ["k"], additionalProperties: { type: "integer" } }), { k: 1 });
});

test("J-01: the tools of the npm servers the report is tried on get valid arguments", () => {
  // server-sequential-thinking's inputSchema, as it lists it.
  const thinking = {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: {
      thought: { type: "string" },
      nextThoughtNeeded: { type: ["boolean", "string"] },
      thoughtNumber: { type: "integer", minimum: 1, maximum: 9007199254740991 },
      totalThoughts: { type: "integer", minimum: 1, maximum: 9007199254740991 },
      isRevision: { type: ["boolean", "string"] },
    },
    required: ["thought", "nextThoughtNeeded", "thoughtNumber", "totalThoughts"],
  };
  assert.deepEqual(valid(thinking), { thought: "test", nextThoughtNeeded: true, thoughtNumber: 1, totalThoughts: 1 });
  assert.deepEqual(toolArguments({ name: "t", inputSchema: thinking as never }), {
    thought: "test",
    nextThoughtNeeded: true,
    thoughtNumber: 1,
    totalThoughts: 1,
  });
});

test("J-02: tool arguments are always an object; a schema whose values are not is refused", () => {
  assert.deepEqual(valid({}, { object: true }), {});
  assert.deepEqual(valid({ properties: { a: { type: "integer" } }, required: ["a"] }, { object: true }), { a: 1 });
  const result = synthesize({ type: "string" }, { object: true });
  assert.equal(result.ok, false);
  assert.match(result.ok ? "" : result.why, /J-02/);
});

test("J-01: unsatisfiable schemas are reported, never thrown", () => {
  for (const schema of [
    false,
    { type: "object", properties: { a: false }, required: ["a"] },
    object({ e: { enum: [] } }),
    object({ n: { type: "integer", minimum: 5, maximum: 4 } }),
    object({ n: { type: "integer", minimum: 0.2, maximum: 0.8 } }),
  ]) {
    const result = synthesize(schema);
    assert.equal(result.ok, false, JSON.stringify(schema));
  }
});

test("J-01: a schema our validator cannot compile still gets best-effort arguments, marked unchecked", () => {
  const schema = { $schema: "https://example.com/custom-dialect", type: "object", properties: { n: { type: "integer" } }, required: ["n"] };
  const result = synthesize(schema, { object: true });
  assert.ok(result.ok);
  assert.equal(result.checked, false);
  assert.deepEqual(result.value, { n: 1 });
  assert.match(result.note ?? "", /^arguments not checked: /);
});

test("ENG-06: property names from the server cannot reach a prototype", () => {
  const value = valid(JSON.parse('{"type":"object","properties":{"__proto__":{"type":"integer"}},"required":["__proto__"]}')) as Record<
    string,
    unknown
  >;
  assert.ok(Object.hasOwn(value, "__proto__"));
  assert.equal(value["__proto__"], 1);
  assert.equal(JSON.stringify(value), '{"__proto__":1}');
});
