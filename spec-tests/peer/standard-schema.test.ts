// Tool validators (lib/peer/server/standard-schema.ts): a fake Standard Schema v1 object (sync and
// async, plain and callable like ArkType's), issues with paths turned into one readable
// message, plain validator functions (with and without a replacement value), `{ jsonSchema }`,
// and the promise never rejecting, whatever the validator does.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  isStandardSchema,
  runValidator,
  type StandardSchemaV1,
  type StandardSchemaV1Issue,
  type ToolValidator,
} from "../../lib/peer/server/standard-schema.js";

/** A minimal Standard Schema for { name: string; age?: number }, coercing a numeric string age. */
function fakeSchema(mode: "sync" | "async"): StandardSchemaV1<unknown, { name: string; age?: number }> {
  const check = (value: unknown): { value: { name: string; age?: number } } | { issues: StandardSchemaV1Issue[] } => {
    if (typeof value !== "object" || value === null) return { issues: [{ message: "Expected object" }] };
    const v = value as { name?: unknown; age?: unknown };
    const issues: StandardSchemaV1Issue[] = [];
    if (typeof v.name !== "string") issues.push({ message: "Expected string", path: ["name"] });
    let age: number | undefined;
    if (v.age !== undefined) {
      age = typeof v.age === "string" ? Number(v.age) : (v.age as number);
      if (typeof age !== "number" || Number.isNaN(age)) issues.push({ message: "Expected number", path: [{ key: "age" }] });
    }
    if (issues.length > 0) return { issues };
    return { value: age === undefined ? { name: v.name as string } : { name: v.name as string, age } };
  };
  return {
    "~standard": {
      version: 1,
      vendor: "fake",
      validate: mode === "sync" ? check : (value) => Promise.resolve(check(value)),
    },
  };
}

for (const mode of ["sync", "async"] as const) {
  test(`Standard Schema (${mode}): success gives the schema's output value`, async () => {
    const schema = fakeSchema(mode);
    assert.ok(isStandardSchema(schema));
    assert.deepEqual(await runValidator(schema, { name: "Ada" }), { ok: true, value: { name: "Ada" } });
    assert.deepEqual(
      await runValidator(schema, { name: "Ada", age: "36" }),
      { ok: true, value: { name: "Ada", age: 36 } },
      "the coerced value replaces the input",
    );
  });

  test(`Standard Schema (${mode}): issues become one readable message with JSON pointer paths`, async () => {
    const schema = fakeSchema(mode);
    assert.deepEqual(await runValidator(schema, { age: "x" }), { ok: false, message: "/name: Expected string; /age: Expected number" });
    assert.deepEqual(
      await runValidator(schema, "nope"),
      { ok: false, message: "Expected object" },
      "an issue without a path is the bare message",
    );
  });
}

test("Standard Schema: path segments of every kind (keys, indexes, { key }, symbols, escapes)", async () => {
  const sym = Symbol("tag");
  const schema: StandardSchemaV1 = {
    "~standard": {
      version: 1,
      vendor: "fake",
      validate: () => ({
        issues: [
          { message: "bad item", path: ["items", 0, { key: "name" }] },
          { message: "bad symbol", path: [sym, { key: 2 }] },
          { message: "escaped", path: ["a/b", "~c"] },
          { message: "empty path", path: [] },
          { message: "" },
        ],
      }),
    },
  };
  assert.deepEqual(await runValidator(schema, {}), {
    ok: false,
    message: "/items/0/name: bad item; /tag/2: bad symbol; /a~1b/~0c: escaped; empty path; invalid value",
  });
});

test("Standard Schema: long issue lists are capped at 10 in the message", async () => {
  const schema: StandardSchemaV1 = {
    "~standard": {
      version: 1,
      vendor: "fake",
      validate: () => ({ issues: Array.from({ length: 25 }, (_, i) => ({ message: `m${i}`, path: [i] })) }),
    },
  };
  const result = await runValidator(schema, []);
  assert.equal(result.ok, false);
  if (!result.ok) {
    assert.match(result.message, /^\/0: m0; \/1: m1; .* \/9: m9; and 15 more$/);
    assert.ok(!result.message.includes("m10"));
  }
});

test("Standard Schema: a callable schema (ArkType style) is used as a schema, not called", async () => {
  let called = false;
  const callable = Object.assign(
    (_: unknown): never => {
      called = true;
      throw new Error("must not be called");
    },
    { "~standard": { version: 1 as const, vendor: "fake", validate: (value: unknown) => ({ value: { wrapped: value } }) } },
  );
  assert.ok(isStandardSchema(callable));
  assert.deepEqual(await runValidator(callable, 1), { ok: true, value: { wrapped: 1 } });
  assert.equal(called, false);
});

test("Standard Schema: malformed results and throwing validators resolve to failures", async () => {
  const returning = (result: unknown): StandardSchemaV1 => ({
    "~standard": { version: 1, vendor: "fake", validate: () => result as { value: unknown } },
  });
  assert.deepEqual(await runValidator(returning(null), 1), { ok: false, message: "the schema returned null instead of a result" });
  assert.deepEqual(await runValidator(returning({ issues: [] }), 1), { ok: false, message: "invalid value" });
  assert.deepEqual(await runValidator(returning({ issues: "bad" }), 1), { ok: false, message: "invalid value" });
  assert.deepEqual(
    await runValidator(returning({ value: undefined }), 1),
    { ok: true, value: undefined },
    "undefined is a legitimate output",
  );
  const throwing: StandardSchemaV1 = {
    "~standard": {
      version: 1,
      vendor: "fake",
      validate: () => {
        throw new Error("kaput");
      },
    },
  };
  assert.deepEqual(await runValidator(throwing, 1), { ok: false, message: "validator threw: kaput" });
  const rejecting: StandardSchemaV1 = { "~standard": { version: 1, vendor: "fake", validate: () => Promise.reject(new Error("later")) } };
  assert.deepEqual(await runValidator(rejecting, 1), { ok: false, message: "validator threw: later" });
});

test("isStandardSchema recognizes only objects with a validate function under ~standard", () => {
  assert.equal(isStandardSchema(null), false);
  assert.equal(isStandardSchema({}), false);
  assert.equal(isStandardSchema({ "~standard": {} }), false);
  assert.equal(isStandardSchema({ "~standard": { validate: 1 } }), false);
  assert.equal(
    isStandardSchema(() => 1),
    false,
  );
  assert.equal(isStandardSchema({ "~standard": { version: 1, vendor: "v", validate: () => ({ value: 1 }) } }), true);
});

// ---------------------------------------------------------------------------------------
// Plain validator functions.

test("validator functions: ok with or without a value, failures with their message, sync and async", async () => {
  const positive: ToolValidator = (value) =>
    typeof value === "number" && value > 0 ? { ok: true } : { ok: false, message: "must be positive" };
  assert.deepEqual(await runValidator(positive, 3), { ok: true, value: 3 }, "no value: the input passes through");
  assert.deepEqual(await runValidator(positive, -1), { ok: false, message: "must be positive" });
  const doubling: ToolValidator = async (value) => ({ ok: true, value: (value as number) * 2 });
  assert.deepEqual(await runValidator(doubling, 4), { ok: true, value: 8 });
  const asyncFail: ToolValidator = async () => ({ ok: false, message: "nope" });
  assert.deepEqual(await runValidator(asyncFail, 4), { ok: false, message: "nope" });
});

test("validator functions: throws, rejections and malformed returns resolve to failures", async () => {
  assert.deepEqual(
    await runValidator(() => {
      throw new Error("bad input");
    }, 1),
    { ok: false, message: "validator threw: bad input" },
  );
  assert.deepEqual(
    await runValidator(() => {
      throw "plain string";
    }, 1),
    { ok: false, message: "validator threw: plain string" },
  );
  assert.deepEqual(await runValidator(() => Promise.reject(new Error("async bad")), 1), {
    ok: false,
    message: "validator threw: async bad",
  });
  const loose = (result: unknown): ToolValidator => (() => result) as unknown as ToolValidator;
  assert.deepEqual(await runValidator(loose(true), 1), {
    ok: false,
    message: "the validator returned boolean instead of { ok: true } or { ok: false, message }",
  });
  assert.deepEqual(await runValidator(loose(undefined), 1), {
    ok: false,
    message: "the validator returned undefined instead of { ok: true } or { ok: false, message }",
  });
  assert.deepEqual(await runValidator(loose({ ok: false }), 1), { ok: false, message: "invalid value" });
  assert.deepEqual(await runValidator(loose({ ok: "yes" }), 1), {
    ok: false,
    message: "the validator returned object instead of { ok: true } or { ok: false, message }",
  });
});

// ---------------------------------------------------------------------------------------
// { jsonSchema }.

test("{ jsonSchema } uses the JSON Schema validator; errors are listed with their paths", async () => {
  const validator: ToolValidator = {
    jsonSchema: { type: "object", properties: { city: { type: "string" }, days: { type: "integer", minimum: 1 } }, required: ["city"] },
  };
  assert.deepEqual(await runValidator(validator, { city: "Paris", days: 2 }), { ok: true, value: { city: "Paris", days: 2 } });
  assert.deepEqual(await runValidator(validator, { days: 0 }), {
    ok: false,
    message: '/days: expected a number >= 1, got number 0; /city: required property "city" is missing',
  });
  assert.deepEqual(await runValidator(validator, "Paris"), { ok: false, message: 'expected object, got string "Paris"' });
  assert.deepEqual(await runValidator({ jsonSchema: { $schema: "http://json-schema.org/draft-04/schema#" } }, {}), {
    ok: false,
    message:
      'invalid schema: unsupported JSON Schema dialect "http://json-schema.org/draft-04/schema#": supported are 2020-12 ("https://json-schema.org/draft/2020-12/schema") and draft-07 ("http://json-schema.org/draft-07/schema#")',
  });
});

test("an unsupported validator resolves to a failure", async () => {
  assert.deepEqual(await runValidator(42 as unknown as ToolValidator, 1), {
    ok: false,
    message: "unsupported validator: expected a function, a Standard Schema object or { jsonSchema }",
  });
  assert.deepEqual(await runValidator(null as unknown as ToolValidator, 1), {
    ok: false,
    message: "unsupported validator: expected a function, a Standard Schema object or { jsonSchema }",
  });
});
