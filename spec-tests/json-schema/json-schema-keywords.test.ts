// The JSON Schema validator fails closed (lib/json-schema/compile.ts): a keyword that
// is neither implemented nor an annotation makes the schema unusable, naming the keyword's
// location; x-* keywords and the annotation keywords are accepted anywhere; what sits
// inside non-schema values (enum, const, default, examples, x-*) is never read as keywords.
// Server.tool refuses an unusable inputSchema or outputSchema at registration with a clear
// Error; the reference server's tools all register, and a tools/call with an argument that
// unevaluatedProperties refuses is an isError result.

import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { checkSchema, validateJsonSchema } from "../../lib/json-schema/validator.js";
import { Server } from "../../lib/peer/server/server.js";
import { createReferenceServer } from "../../lib/cli/reference-server.js";
import type { CallToolResult } from "../../lib/index.js";
import { Pair, SERVER_INFO } from "../support/peer-harness.js";

test("an unknown keyword is refused with its JSON pointer location", () => {
  const cases: Array<[unknown, string, string]> = [
    [{ type: "object", properties: { a: { type: "string", foo: 1 } } }, "#/properties/a/foo", "foo"],
    [{ requried: ["a"] }, "#/requried", "requried"],
    [{ $defs: { x: { type: "string", nullable: true } } }, "#/$defs/x/nullable", "nullable"],
    [{ items: [{}, { discriminator: {} }] }, "#/items/1/discriminator", "discriminator"],
    [{ allOf: [{}, { anyOf: [{ $recursiveRef: "#" }] }] }, "#/allOf/1/anyOf/0/$recursiveRef", "$recursiveRef"],
    [{ properties: { "a/b": { "we~ird": 1 } } }, "#/properties/a~1b/we~0ird", "we~ird"],
    [{ if: {}, then: { errorMessage: "x" } }, "#/then/errorMessage", "errorMessage"],
    [{ unevaluatedProperties: { X_lower: 1 } }, "#/unevaluatedProperties/X_lower", "X_lower"],
  ];
  for (const [schema, location, keyword] of cases) {
    const problem = checkSchema(schema);
    assert.equal(
      problem,
      `at ${location}: unsupported keyword ${JSON.stringify(keyword)}: not a JSON Schema 2020-12 keyword this validator implements, so values it should refuse would pass (vendor extensions must start with "x-")`,
    );
    const verdict = validateJsonSchema(schema, {});
    assert.deepEqual(verdict, { valid: false, errors: [{ path: "", message: `invalid schema: ${problem}` }] });
  }
  // A $ref target is checked too, wherever it sits.
  assert.match(
    checkSchema({ "x-lib": { n: { bogus: 1 } }, $ref: "#/x-lib/n" }) ?? "",
    /^at #\/x-lib\/n\/bogus: unsupported keyword "bogus"/,
  );
});

test("x- keywords and annotations are accepted anywhere; the contents of non-schema values are not keywords", () => {
  const schema = {
    type: "object",
    "x-vendor": { nullable: true, anything: [1] },
    properties: {
      region: { type: "string", "x-mcp-header": "Region", "x-": 1 },
      e: { enum: [{ nullable: true }], const: { nullable: true }, default: { foo: 1 }, examples: [{ bar: 2 }] },
      blob: { type: "string", contentEncoding: "base64", contentMediaType: "application/json", contentSchema: { bogus: true } },
    },
  };
  assert.equal(checkSchema(schema), undefined);
  assert.deepEqual(validateJsonSchema(schema, { region: "eu", e: { nullable: true } }), { valid: true });
  assert.equal(validateJsonSchema(schema, { region: 1 }).valid, false);
});

test('{ unknownKeywords: "ignore" } skips unknown keywords (for schemas one did not write) and still reports other faults', () => {
  const schema = { type: "object", properties: { a: { type: "string", nullable: true } }, unevaluatedProperties: false };
  assert.match(checkSchema(schema) ?? "", /nullable/);
  assert.equal(checkSchema(schema, { unknownKeywords: "ignore" }), undefined);
  assert.match(checkSchema(schema) ?? "", /nullable/, "the strict verdict is cached apart from the lenient one");
  assert.deepEqual(validateJsonSchema(schema, { a: "x" }, { unknownKeywords: "ignore" }), { valid: true });
  assert.equal(validateJsonSchema(schema, { a: "x", b: 1 }, { unknownKeywords: "ignore" }).valid, false);
  assert.match(checkSchema({ foo: 1, type: "nope" }, { unknownKeywords: "ignore" }) ?? "", /"type" must be one of/);
});

function server(): Server {
  return new Server({ info: SERVER_INFO });
}

test("Server.tool refuses an inputSchema or outputSchema the validator cannot apply, naming the keyword's location", () => {
  const s = server();
  assert.throws(
    () => s.tool("t", { inputSchema: { type: "object", properties: { a: { type: "string", foo: 1 } } } }, () => ({ content: [] })),
    (error: unknown) =>
      error instanceof Error &&
      /^\[J-02\] tool "t": the inputSchema cannot be applied by the built-in validator: at #\/properties\/a\/foo: unsupported keyword "foo"/.test(
        error.message,
      ),
  );
  assert.throws(
    () =>
      s.tool(
        "u",
        { inputSchema: { type: "object" }, outputSchema: { type: "object", properties: { r: { $ref: "#/$defs/none" } } } },
        () => ({ content: [] }) as never,
      ),
    /tool "u": the outputSchema cannot be applied .*at #\/properties\/r\/\$ref: reference "#\/\$defs\/none" does not resolve/,
  );
  assert.throws(
    () => s.tool("v", { inputSchema: { type: "object", properties: { p: { pattern: "(" } } } }, () => ({ content: [] })),
    /at #\/properties\/p\/pattern: invalid regular expression/,
  );
  assert.throws(
    () =>
      s.tool("y", { inputSchema: { type: "object" }, validator: { jsonSchema: { type: "object", nullable: true } } }, () => ({
        content: [],
      })),
    /^Error: \[J-02\] tool "y": the validator's jsonSchema cannot be applied by the built-in validator: at #\/nullable: unsupported keyword "nullable"/,
  );
  assert.equal(s.tools.size, 0, "nothing refused was registered");
  // A tool with its own validator advertises its inputSchema as is: the built-in validator never applies it.
  s.tool("w", { inputSchema: { type: "object", nullable: true } as never, validator: () => ({ ok: true }) }, () => ({ content: [] }));
  // x-* keywords and a schema using the 2020-12 keywords register.
  s.tool(
    "x",
    { inputSchema: { type: "object", properties: { r: { type: "string", "x-mcp-header": "Region" } }, unevaluatedProperties: false } },
    () => ({ content: [] }),
  );
  assert.deepEqual([...s.tools.keys()], ["w", "x"]);
});

test("every tool of the reference server registers, its schemas untouched", () => {
  const reference = createReferenceServer({ paginationSecret: randomBytes(32), sleep: () => Promise.resolve() });
  assert.ok(reference.tools.size > 10);
  for (const [name, entry] of reference.tools) {
    assert.equal(checkSchema(entry.definition.inputSchema), undefined, name);
    if (entry.definition.outputSchema !== undefined) assert.equal(checkSchema(entry.definition.outputSchema), undefined, name);
  }
  const focal = reference.tools.get("json_schema_2020_12_tool")?.definition.inputSchema as Record<string, unknown> | undefined;
  assert.ok(focal !== undefined);
  assert.equal(focal.$schema, "https://json-schema.org/draft/2020-12/schema");
  assert.deepEqual(Object.keys(focal), ["$schema", "type", "$defs", "properties", "allOf", "if", "then", "else", "additionalProperties"]);
  const address = { street: "Main", city: "X" };
  assert.deepEqual(validateJsonSchema(focal, { name: "n", address, contactMethod: "email", email: "a@b" }), { valid: true });
  assert.equal(validateJsonSchema(focal, { contactMethod: "phone", email: "a@b" }).valid, false, "then requires phone");
});

function text(result: CallToolResult): string {
  const first = result.content[0];
  return first !== undefined && first.type === "text" ? first.text : "";
}

test("TL-01: tools/call: an argument unevaluatedProperties refuses is an isError result naming it; the handler is not called", async () => {
  let calls = 0;
  const pair = new Pair({
    setup: (s) =>
      s.tool(
        "search",
        {
          inputSchema: {
            type: "object",
            properties: { q: { type: "string" } },
            allOf: [{ properties: { limit: { type: "integer" } } }],
            unevaluatedProperties: false,
          },
        },
        () => {
          calls++;
          return { content: [{ type: "text", text: "ok" }] };
        },
      ),
  });
  await pair.connect();
  const bad = await pair.client.callTool("search", { q: "x", limti: 3 });
  assert.equal(bad.isError, true);
  assert.match(text(bad), /\/limti: unexpected property "limti"/);
  assert.equal(calls, 0);
  const good = await pair.client.callTool("search", { q: "x", limit: 3 });
  assert.equal(text(good), "ok");
  assert.equal(calls, 1);
});
