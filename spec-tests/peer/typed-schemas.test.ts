// Typed schemas at run time (lib/peer/server/typed-schemas.ts): a tool or prompt registered with a
// zod v4 or valibot schema lists the JSON Schema its library produced (or the one given in
// jsonSchema), with defaulted fields not required; the schema validates each call, applies its
// defaults, and reports problems with their paths; an outputSchema checks structuredContent.
// The type-level side is spec-tests/peer/types-schemas.ts.

import { test } from "node:test";
import assert from "node:assert/strict";
import * as v from "valibot";
import * as z from "zod";
import { ErrorCode, type CallToolResult } from "../../lib/index.js";
import { Server, standardJsonSchema, withoutDefaultsRequired, type StandardSchemaV1 } from "../../lib/peer/index.js";
import { Pair, SERVER_INFO, type PairOptions } from "../support/peer-harness.js";
import { mcpError } from "../support/helpers.js";

async function connected(options: PairOptions): Promise<Pair> {
  const pair = new Pair(options);
  await pair.connect();
  return pair;
}

function text(result: CallToolResult): string {
  const first = result.content[0];
  assert.ok(first !== undefined && first.type === "text", `a text content block: ${JSON.stringify(result)}`);
  return first.text;
}

const weather = z.object({
  city: z.string().describe("The city"),
  days: z.number().int().min(1).default(3),
  unit: z.enum(["c", "f"]).optional(),
});

/** A Standard Schema by hand: validates objects with a string `q`; `convert` plays the library's JSON Schema converter. */
function handmade(convert?: (io: "input" | "output", target: string) => unknown): StandardSchemaV1<{ q: string }> {
  const props = {
    version: 1 as const,
    vendor: "handmade",
    validate: (value: unknown) =>
      typeof value === "object" && value !== null && typeof (value as { q?: unknown }).q === "string"
        ? { value: value as { q: string } }
        : { issues: [{ message: "expected a string", path: ["q"] }] },
  };
  if (convert === undefined) return { "~standard": props };
  const jsonSchema = {
    input: (o: { target: string }) => convert("input", o.target),
    output: (o: { target: string }) => convert("output", o.target),
  };
  return { "~standard": { ...props, jsonSchema } } as StandardSchemaV1<{ q: string }>;
}

test("a zod tool lists the JSON Schema zod produces, without its defaulted field among the required ones", async () => {
  const pair = await connected({
    setup: (s) =>
      s.tool("weather", { description: "Forecast", inputSchema: weather }, (args) => ({
        content: [{ type: "text", text: `${args.city}:${args.days}` }],
      })),
  });
  const [tool] = await pair.client.listTools();
  const produced = (weather as unknown as StandardSchemaV1)["~standard"] as unknown as {
    jsonSchema: { input(o: { target: string }): Record<string, unknown> };
  };
  assert.deepEqual(tool?.inputSchema, produced.jsonSchema.input({ target: "draft-2020-12" }));
  assert.deepEqual(tool?.inputSchema.required, ["city"]);
  assert.equal((tool?.inputSchema.properties?.days as { default?: unknown }).default, 3);
  assert.equal((tool?.inputSchema.properties?.city as { description?: unknown }).description, "The city");
});

test("TL-01: the schema validates each call: defaults applied, problems reported with their paths as isError results", async () => {
  const seen: unknown[] = [];
  const pair = await connected({
    setup: (s) =>
      s.tool("weather", { inputSchema: weather }, (args) => {
        seen.push(args);
        return { content: [{ type: "text", text: "ok" }] };
      }),
  });
  assert.equal(text(await pair.client.callTool("weather", { city: "Paris" })), "ok");
  assert.deepEqual(seen, [{ city: "Paris", days: 3 }], "the default reached the handler");

  const bad = await pair.client.callTool("weather", { city: 7, days: 0 });
  assert.equal(bad.isError, true);
  assert.match(text(bad), /^Invalid arguments for tool weather: /);
  assert.match(text(bad), /\/city: /);
  assert.match(text(bad), /\/days: /);
  assert.equal(seen.length, 1, "the handler did not run");
});

test("a valibot tool (no Standard JSON Schema interface) lists jsonSchema.input, minus required defaulted fields, and validates with valibot", async () => {
  const schema = v.object({ city: v.string(), limit: v.optional(v.number(), 10) });
  const listed = {
    type: "object",
    properties: { city: { type: "string" }, limit: { type: "number", default: 10 } },
    required: ["city", "limit"],
  };
  const seen: unknown[] = [];
  const pair = await connected({
    setup: (s) =>
      s.tool("search", { inputSchema: schema, jsonSchema: { input: listed } }, (args) => {
        seen.push(args);
        return { content: [{ type: "text", text: args.city }] };
      }),
  });
  const [tool] = await pair.client.listTools();
  assert.deepEqual(tool?.inputSchema, { ...listed, required: ["city"] });
  assert.equal(text(await pair.client.callTool("search", { city: "Oslo" })), "Oslo");
  assert.deepEqual(seen, [{ city: "Oslo", limit: 10 }]);
  const bad = await pair.client.callTool("search", { city: ["x"] });
  assert.equal(bad.isError, true);
  assert.match(text(bad), /\/city: Invalid type: Expected string/);
});

test("a Standard Schema without a JSON Schema to list is refused at registration, naming what to pass", () => {
  const server = new Server({ info: SERVER_INFO });
  assert.throws(
    () => server.tool("search", { inputSchema: v.object({ q: v.string() }) }, () => ({ content: [] })),
    /^Error: tool "search": the inputSchema is a Standard Schema \(valibot\) without the Standard JSON Schema interface \(~standard\.jsonSchema\); expected jsonSchema\.input/,
  );
  assert.throws(
    () => server.tool("out", { outputSchema: v.object({ r: v.number() }) }, () => ({ content: [], structuredContent: { r: 1 } })),
    /the outputSchema is a Standard Schema \(valibot\) .*expected jsonSchema\.output/,
  );
  assert.throws(
    () => server.tool("both", { inputSchema: weather, validator: () => ({ ok: true }) }, () => ({ content: [] })),
    /expected either a Standard Schema inputSchema or a validator, got both/,
  );
  assert.throws(
    () => server.tool("j1", { inputSchema: { type: "object" }, jsonSchema: { input: { type: "object" } } }, () => ({ content: [] })),
    /tool "j1": jsonSchema\.input is for a Standard Schema inputSchema; expected one, got a JSON Schema/,
  );
  assert.throws(
    () => server.tool("j2", { jsonSchema: { output: { type: "object" } } }, () => ({ content: [] })),
    /tool "j2": jsonSchema\.output is for a Standard Schema outputSchema; expected one, got no outputSchema/,
  );
  assert.throws(() => server.tool("j3", { jsonSchema: { input: { type: "object" } } }, () => ({ content: [] })), /got no inputSchema/);
  assert.throws(
    () =>
      server.tool("j4", { outputSchema: { type: "object" }, jsonSchema: { output: { type: "object" } } }, () => ({
        content: [],
        structuredContent: {},
      })),
    /got a JSON Schema \(listed as given\)/,
  );
  // J-02 holds for a produced schema too.
  assert.throws(
    () => server.tool("str", { inputSchema: z.string() as never }, () => ({ content: [] })),
    /\[J-02\] tool str: inputSchema must have root type "object".*got "string"/,
  );
  assert.equal(server.tools.size, 0);
});

test("a converter that fails for 2020-12 is asked for draft-07; one that fails for both, or returns no object, is refused", () => {
  const asked: string[] = [];
  const draft07 = handmade((_io, target) => {
    asked.push(target);
    if (target !== "draft-07") throw new Error(`unsupported target ${target}`);
    return { type: "object", properties: { q: { type: "string" } }, required: ["q"] };
  });
  const server = new Server({ info: SERVER_INFO });
  server.tool("d7", { inputSchema: draft07 }, () => ({ content: [] }));
  assert.deepEqual(asked, ["draft-2020-12", "draft-07"]);
  assert.deepEqual(server.tools.get("d7")?.definition.inputSchema, {
    type: "object",
    properties: { q: { type: "string" } },
    required: ["q"],
  });

  const failing = handmade(() => {
    throw new Error("cannot convert");
  });
  assert.throws(
    () => server.tool("f", { inputSchema: failing }, () => ({ content: [] })),
    /tool "f": the inputSchema's library \(handmade\) failed to produce a JSON Schema \(draft-2020-12: cannot convert; draft-07: cannot convert\); pass jsonSchema\.input/,
  );
  assert.throws(
    () => server.tool("n", { inputSchema: handmade(() => null) }, () => ({ content: [] })),
    /draft-2020-12: returned null; draft-07: returned null/,
  );
  assert.throws(() => server.tool("a", { inputSchema: handmade(() => []) }, () => ({ content: [] })), /returned an array/);
  assert.equal(standardJsonSchema(handmade(), "input"), undefined, "no converter: undefined");
  assert.equal(
    standardJsonSchema(
      {
        "~standard": { version: 1, vendor: "x", validate: () => ({ value: 1 }), jsonSchema: { input: "no" } },
      } as unknown as StandardSchemaV1,
      "input",
    ),
    undefined,
  );
});

test("withoutDefaultsRequired drops defaulted fields from required at every object level, and leaves other schemas alone", () => {
  const schema = {
    type: "object",
    properties: {
      a: { type: "string", default: "x" },
      b: { type: "object", properties: { c: { type: "number", default: 1 }, d: { type: "number" } }, required: ["c", "d"] },
      e: true,
    },
    required: ["a", "b", "missing"],
  };
  assert.deepEqual(withoutDefaultsRequired(schema), {
    type: "object",
    properties: {
      a: { type: "string", default: "x" },
      b: { type: "object", properties: { c: { type: "number", default: 1 }, d: { type: "number" } }, required: ["d"] },
      e: true,
    },
    required: ["b", "missing"],
  });
  const plain = { type: "object" };
  assert.equal(withoutDefaultsRequired(plain), plain);
  assert.deepEqual(schema.required, ["a", "b", "missing"], "the author's object is not changed");
});

test("a zod outputSchema is listed from zod's output JSON Schema; structuredContent is validated and replaced by the parsed value", async () => {
  const out = z.object({ total: z.number(), unit: z.string().default("eur") });
  const pair = await connected({
    setup: (s) => {
      s.tool("sum", { inputSchema: z.object({ values: z.array(z.number()) }), outputSchema: out }, (args) => ({
        content: [],
        structuredContent: { total: args.values.reduce((a, b) => a + b, 0) },
      }));
      s.tool("wrong", { outputSchema: out }, () => ({ content: [], structuredContent: { total: "3" } }) as never);
      s.tool("failed", { outputSchema: out }, () => ({ content: [{ type: "text", text: "no" }], isError: true }));
    },
  });
  const tools = await pair.client.listTools();
  const produced = (out as unknown as { "~standard": { jsonSchema: { output(o: { target: string }): Record<string, unknown> } } })[
    "~standard"
  ].jsonSchema.output({ target: "draft-2020-12" });
  assert.deepEqual(tools.find((t) => t.name === "sum")?.outputSchema, produced);
  assert.deepEqual(await pair.client.callTool("sum", { values: [1, 2] }), { content: [], structuredContent: { total: 3, unit: "eur" } });
  const wrong = await pair.client.callTool("wrong");
  assert.equal(wrong.isError, true);
  assert.match(text(wrong), /^Tool wrong returned structuredContent that does not match its outputSchema \(\/total: /);
  assert.deepEqual(await pair.client.callTool("failed"), { content: [{ type: "text", text: "no" }], isError: true });
});

test("JR-02: a prompt's argsSchema lists its arguments from the JSON Schema, validates them (-32602 with the path), and applies defaults", async () => {
  const seen: unknown[] = [];
  const pair = await connected({
    setup: (s) =>
      s.prompt(
        "translate",
        {
          description: "Translate",
          argsSchema: z.object({ text: z.string().describe("What to translate").min(1), to: z.enum(["fr", "de"]).default("fr") }),
        },
        (args) => {
          seen.push(args);
          return { messages: [{ role: "user", content: { type: "text", text: `${args.text}→${args.to}` } }] };
        },
      ),
  });
  const [prompt] = await pair.client.listPrompts();
  assert.deepEqual(prompt, {
    name: "translate",
    description: "Translate",
    arguments: [
      { name: "text", description: "What to translate", required: true },
      { name: "to", required: false },
    ],
  });
  const got = await pair.client.getPrompt("translate", { text: "hello" });
  assert.deepEqual(got.messages[0]?.content, { type: "text", text: "hello→fr" });
  assert.deepEqual(seen, [{ text: "hello", to: "fr" }]);

  const error = await mcpError(pair.client.getPrompt("translate", { text: "", to: "es" }), ErrorCode.InvalidParams);
  assert.match(error.message, /Invalid arguments for prompt translate: .*\/text: .*\/to: /);
  assert.equal((error.data as { name?: unknown }).name, "translate");
  assert.equal(seen.length, 1, "the handler did not run");
});

test("prompt arguments: listed as given next to an argsSchema; jsonSchema.input for a schema without converter; refusals name the prompt", async () => {
  const server = new Server({ info: SERVER_INFO });
  const schema = v.object({ topic: v.string() });
  server.prompt("given", { arguments: [{ name: "topic", required: true }], argsSchema: schema }, () => ({ messages: [] }));
  assert.deepEqual(server.prompts.get("given")?.definition.arguments, [{ name: "topic", required: true }]);
  server.prompt(
    "derived",
    {
      argsSchema: schema,
      jsonSchema: {
        input: {
          type: "object",
          properties: { topic: { type: "string", title: "Topic" }, depth: { type: "string", default: "1" } },
          required: ["topic", "depth"],
        },
      },
    },
    () => ({ messages: [] }),
  );
  assert.deepEqual(server.prompts.get("derived")?.definition.arguments, [
    { name: "topic", title: "Topic", required: true },
    { name: "depth", required: false },
  ]);
  server.prompt("plain", { arguments: [{ name: "x" }] }, () => ({ messages: [] }));
  assert.deepEqual(server.prompts.get("plain")?.definition.arguments, [{ name: "x" }]);
  assert.throws(
    () => server.prompt("none", { argsSchema: schema }, () => ({ messages: [] })),
    /prompt "none": the argsSchema \(valibot\) has no Standard JSON Schema interface .*expected arguments or jsonSchema\.input/,
  );
  assert.throws(
    () => server.prompt("bad", { argsSchema: { type: "string" } as never }, () => ({ messages: [] })),
    /prompt "bad": expected argsSchema to be a Standard Schema \(an object with "~standard"\) or a JSON Schema with type "object", got an object without type "object"/,
  );
  assert.throws(() => server.prompt("bad2", { argsSchema: "x" as never }, () => ({ messages: [] })), /got string/);
  assert.throws(() => server.prompt("bad3", { argsSchema: null as never }, () => ({ messages: [] })), /got null/);
  assert.throws(() => server.prompt("bad4", { argsSchema: [] as never }, () => ({ messages: [] })), /got an array/);
  assert.throws(
    () =>
      server.prompt("bad5", { argsSchema: { type: "object", properties: { a: { type: "string", foo: 1 } } } }, () => ({ messages: [] })),
    /\[J-02\] prompt "bad5": the argsSchema cannot be applied by the built-in validator: at #\/properties\/a\/foo/,
  );
  assert.throws(
    () => server.prompt("flat", { argsSchema: z.string() as never }, () => ({ messages: [] })),
    /prompt "flat": expected the argsSchema's JSON Schema to be an object schema with properties/,
  );
  const failing = handmade(() => {
    throw new Error("nope");
  });
  assert.throws(
    () => server.prompt("fail", { argsSchema: failing }, () => ({ messages: [] })),
    /prompt "fail": the argsSchema's library \(handmade\) failed to produce a JSON Schema \(draft-2020-12: nope; draft-07: nope\)/,
  );
  server.prompt(
    "json-given",
    { argsSchema: { type: "object", properties: { a: { type: "string" } } }, arguments: [{ name: "a", description: "A" }] },
    () => ({ messages: [] }),
  );
  assert.deepEqual(server.prompts.get("json-given")?.definition.arguments, [{ name: "a", description: "A" }]);
  assert.equal(server.prompts.size, 4);
});

test("JR-02: a prompt's argsSchema may be a JSON Schema literal: arguments derived from it, applied by the built-in validator (-32602 with the path)", async () => {
  const seen: unknown[] = [];
  const pair = await connected({
    setup: (s) =>
      s.prompt(
        "summarize",
        {
          argsSchema: {
            type: "object",
            properties: {
              text: { type: "string", minLength: 1, description: "The text" },
              length: { enum: ["short", "long"], default: "short" },
            },
            required: ["text"],
          },
        },
        (args) => {
          seen.push(args);
          return { messages: [{ role: "user", content: { type: "text", text: `${args.text}/${String(args.length)}` } }] };
        },
      ),
  });
  const [prompt] = await pair.client.listPrompts();
  assert.deepEqual(prompt?.arguments, [
    { name: "text", description: "The text", required: true },
    { name: "length", required: false },
  ]);
  // No defaults applied by the built-in validator: a field it requires is listed as required, default or not.
  const strict = new Server({ info: SERVER_INFO });
  strict.prompt("p", { argsSchema: { type: "object", properties: { a: { type: "string", default: "x" } }, required: ["a"] } }, () => ({
    messages: [],
  }));
  assert.deepEqual(strict.prompts.get("p")?.definition.arguments, [{ name: "a", required: true }]);
  const got = await pair.client.getPrompt("summarize", { text: "hi", length: "long" });
  assert.deepEqual(got.messages[0]?.content, { type: "text", text: "hi/long" });
  const error = await mcpError(pair.client.getPrompt("summarize", { text: "", length: "medium" }), ErrorCode.InvalidParams);
  assert.match(error.message, /Invalid arguments for prompt summarize: .*\/text: .*\/length: /);
  assert.equal(seen.length, 1);
});

test("an ArkType-style schema (a function carrying ~standard) is a Standard Schema: validated through ~standard, never called", async () => {
  let called = 0;
  const schema = Object.assign(
    (_value: unknown) => {
      called++;
      return "called";
    },
    {
      "~standard": {
        version: 1 as const,
        vendor: "callable",
        validate: (value: unknown) =>
          typeof (value as { id?: unknown }).id === "number"
            ? { value: value as { id: number } }
            : { issues: [{ message: "id must be a number", path: [{ key: "id" }] }] },
        jsonSchema: {
          input: () => ({ type: "object", properties: { id: { type: "number" } }, required: ["id"] }),
          output: () => ({ type: "object" }),
        },
      },
    },
  );
  const pair = await connected({
    setup: (s) =>
      s.tool("get", { inputSchema: schema as unknown as StandardSchemaV1<{ id: number }> }, (args) => ({
        content: [{ type: "text", text: `#${args.id}` }],
      })),
  });
  const [tool] = await pair.client.listTools();
  assert.deepEqual(tool?.inputSchema, { type: "object", properties: { id: { type: "number" } }, required: ["id"] });
  assert.equal(text(await pair.client.callTool("get", { id: 4 })), "#4");
  const bad = await pair.client.callTool("get", { id: "4" });
  assert.equal(bad.isError, true);
  assert.match(text(bad), /\/id: id must be a number/);
  assert.equal(called, 0);
});

test("TL-01: a JSON Schema literal keeps the built-in validator: listed as given, problems reported with their paths", async () => {
  const pair = await connected({
    setup: (s) =>
      s.tool("lit", { inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } }, (args) => ({
        content: [{ type: "text", text: String(args.n * 2) }],
      })),
  });
  const [tool] = await pair.client.listTools();
  assert.deepEqual(tool?.inputSchema, { type: "object", properties: { n: { type: "number" } }, required: ["n"] });
  assert.equal(text(await pair.client.callTool("lit", { n: 2 })), "4");
  const bad = await pair.client.callTool("lit", { n: "2" });
  assert.equal(bad.isError, true);
  assert.match(text(bad), /\/n: /);
});
