// The calling conventions of `new Server(...)` and `server.tool(...)` (lib/peer/server/call-shapes.ts,
// params-map.ts) at run time: the SDKs' and the book's forms are accepted and listed, called and
// validated as they say; every other shape is refused at the call, naming the accepted forms or
// keys and what arrived. The type-level side is spec-tests/peer/types-schemas.ts; the book's
// example over stdio with the SDK v1 client is spec-tests/e2e/book-example.test.ts.

import { test } from "node:test";
import assert from "node:assert/strict";
import * as z from "zod";
import type { CallToolResult } from "../../lib/index.js";
import { Server, parseTemplate, type StandardSchemaV1 } from "../../lib/peer/index.js";
import { fromParamsMap } from "../../lib/peer/server/params-map.js";
import { Pair, SERVER_INFO, type PairOptions } from "../support/peer-harness.js";

const OK: CallToolResult = { content: [] };

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

async function call(pair: Pair, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const calling = pair.client.callTool(name, args);
  await pair.settle();
  return calling;
}

// ---- the book's example and maps of JSON Schemas --------------------------------------

test("TL-01: the book's server.tool(name, description, { query: { type, description } }, handler) is listed with both, called, and refuses a missing or mistyped query as an isError result", async () => {
  const pair = await connected({
    setup: (server) =>
      server.tool("query_database", "데이터베이스를 쿼리합니다", { query: { type: "string", description: "SQL 쿼리" } }, async (params) => {
        return { content: [{ type: "text", text: `rows for ${params.query}` }] };
      }),
  });
  const [tool] = await pair.client.listTools();
  assert.deepEqual(tool, {
    name: "query_database",
    description: "데이터베이스를 쿼리합니다",
    inputSchema: { type: "object", properties: { query: { type: "string", description: "SQL 쿼리" } }, required: ["query"] },
  });
  assert.equal(text(await call(pair, "query_database", { query: "SELECT 1" })), "rows for SELECT 1");
  const missing = await call(pair, "query_database", {});
  assert.equal(missing.isError, true);
  assert.match(text(missing), /^Invalid arguments for tool query_database: .*query/);
  const mistyped = await call(pair, "query_database", { query: 42 });
  assert.equal(mistyped.isError, true);
  assert.match(text(mistyped), /^Invalid arguments for tool query_database: \/query: /);
});

test("a map of JSON Schemas: a parameter with a default is not required, and a fresh copy of the default is filled in on each call", async () => {
  const seen: unknown[] = [];
  const pair = await connected({
    setup: (server) =>
      server.tool("search", { q: { type: "string" }, tags: { type: "array", items: { type: "string" }, default: ["all"] } }, (args) => {
        seen.push(args);
        args.tags.push("edited by the handler");
        return OK;
      }),
  });
  const [tool] = await pair.client.listTools();
  assert.deepEqual(tool?.inputSchema, {
    type: "object",
    properties: { q: { type: "string" }, tags: { type: "array", items: { type: "string" }, default: ["all"] } },
    required: ["q"],
  });
  await call(pair, "search", { q: "a" });
  await call(pair, "search", { q: "b" });
  await call(pair, "search", { q: "c", tags: ["mine"] });
  assert.deepEqual(seen, [
    { q: "a", tags: ["all", "edited by the handler"] },
    { q: "b", tags: ["all", "edited by the handler"] },
    { q: "c", tags: ["mine", "edited by the handler"] },
  ]);
  const bad = await call(pair, "search", { q: "d", tags: "not an array" });
  assert.equal(bad.isError, true, "a given value is still validated");
});

test("a map of JSON Schemas with defaults and the tool's own validator: the defaults are filled in before it runs", async () => {
  const seen: unknown[] = [];
  const pair = await connected({
    setup: (server) =>
      server.tool(
        "own",
        {
          inputSchema: { q: { type: "string" }, n: { type: "number", default: 5 } },
          validator: (value) => {
            seen.push(value);
            return (value as { q?: unknown }).q === "no" ? { ok: false, message: "not that" } : { ok: true };
          },
        },
        (args) => ({ content: [{ type: "text", text: `${args.q}:${args.n}` }] }),
      ),
  });
  assert.equal(text(await call(pair, "own", { q: "yes" })), "yes:5");
  assert.match(text(await call(pair, "own", { q: "no" })), /not that/);
  assert.deepEqual(seen, [
    { q: "yes", n: 5 },
    { q: "no", n: 5 },
  ]);
});

test("a map as registerTool's inputSchema and outputSchema; {} is a tool without parameters", async () => {
  const pair = await connected({
    setup: (server) => {
      server.tool(
        "add",
        { title: "Add", inputSchema: { a: { type: "number" }, b: { type: "number" } }, outputSchema: { sum: { type: "number" } } },
        (args) => ({ content: [], structuredContent: { sum: args.a + args.b } }),
      );
      server.tool("ping", { inputSchema: {} }, () => OK);
    },
  });
  const tools = await pair.client.listTools();
  assert.deepEqual(
    tools.map((t) => [t.name, t.inputSchema, t.outputSchema]),
    [
      [
        "add",
        { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
        { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
      ],
      ["ping", { type: "object", properties: {} }, undefined],
    ],
  );
  assert.deepEqual((await call(pair, "add", { a: 1, b: 2 })).structuredContent, { sum: 3 });
  assert.equal((await call(pair, "ping", { anything: true })).isError, undefined);
});

// ---- zod raw shapes ----------------------------------------------------------------------

test("a zod raw shape is read as z.object(shape): listed with required members, defaults applied, unknown members dropped, issues with their paths", async () => {
  const seen: unknown[] = [];
  const pair = await connected({
    setup: (server) => {
      server.tool(
        "weather",
        "Forecast",
        { city: z.string().describe("The city"), days: z.number().default(3), unit: z.enum(["c", "f"]).optional() },
        (args) => {
          seen.push(args);
          return OK;
        },
      );
      server.tool("shape-3", { city: z.string() }, (args) => ({ content: [{ type: "text", text: args.city }] }));
      server.tool("shape-options", { inputSchema: { city: z.string() }, outputSchema: { n: z.number() } }, () => ({
        content: [],
        structuredContent: { n: 1 },
      }));
    },
  });
  const tools = await pair.client.listTools();
  assert.deepEqual(tools[0]?.inputSchema, {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: {
      city: { type: "string", description: "The city" },
      days: { default: 3, type: "number" },
      unit: { type: "string", enum: ["c", "f"] },
    },
    required: ["city"],
  });
  assert.equal(tools[0]?.description, "Forecast");
  assert.deepEqual(tools[2]?.outputSchema, {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: { n: { type: "number" } },
    required: ["n"],
  });
  await call(pair, "weather", { city: "Oslo", extra: 1 });
  assert.deepEqual(seen, [{ city: "Oslo", days: 3 }]);
  const bad = await call(pair, "weather", { city: 7, days: "x" });
  assert.equal(bad.isError, true);
  assert.match(text(bad), /\/city: .*; \/days: /);
  assert.equal(text(await call(pair, "shape-3", { city: "Rome" })), "Rome");
  assert.equal((await call(pair, "shape-options", { city: "Rome" })).isError, undefined);
  const notObject = await call(pair, "shape-3", { city: ["not", "a", "string"] });
  assert.equal(notObject.isError, true);
});

/** A Standard Schema by hand, answering asynchronously: accepts strings, and undefined when `optional`. */
function asyncString(optional: boolean): StandardSchemaV1<string> {
  return {
    "~standard": {
      version: 1,
      vendor: "handmade",
      validate: (value: unknown) =>
        Promise.resolve(
          typeof value === "string" || (optional && value === undefined)
            ? { value: value as string }
            : { issues: [{ message: "expected a string", path: [] }] },
        ),
    },
  };
}

test("a shape of asynchronous Standard Schemas validates asynchronously; without ~standard.jsonSchema it needs jsonSchema.input", async () => {
  assert.throws(
    () => new Server({ info: SERVER_INFO }).tool("a", { q: asyncString(false) }, () => OK),
    /tool "a": the inputSchema is a Standard Schema \(handmade\) without the Standard JSON Schema interface .*expected jsonSchema\.input/,
  );
  const pair = await connected({
    setup: (server) =>
      server.tool(
        "a",
        {
          inputSchema: { q: asyncString(false), r: asyncString(true) },
          jsonSchema: { input: { type: "object", properties: { q: { type: "string" } } } },
        },
        (args) => ({ content: [{ type: "text", text: `${String(args.q)}:${"r" in args}` }] }),
      ),
  });
  assert.equal(text(await call(pair, "a", { q: "x" })), "x:false");
  const bad = await call(pair, "a", { q: 1, r: 2 });
  assert.match(text(bad), /\/q: expected a string; \/r: expected a string/);
});

/** A Standard Schema by hand with a JSON Schema converter, whose answer to undefined is `onUndefined`'s. */
function withConverter(onUndefined: "accept" | "promise" | "throw"): StandardSchemaV1<string> {
  const validate = (value: unknown) => {
    if (value === undefined) {
      if (onUndefined === "throw") throw new Error("no value");
      if (onUndefined === "promise") return Promise.reject(new Error("asked asynchronously"));
      return { value: "fallback" };
    }
    return typeof value === "string" ? { value } : { issues: [{ message: "expected a string" }] };
  };
  const jsonSchema = { input: () => ({ type: "string" }), output: () => ({ type: "string" }) };
  return { "~standard": { version: 1, vendor: "handmade", validate, jsonSchema } } as unknown as StandardSchemaV1<string>;
}

test("a shape's member is listed as required unless it accepts undefined at once: an asynchronous answer or a throw counts as required", async () => {
  const pair = await connected({
    setup: (server) =>
      server.tool(
        "probe",
        { optional: withConverter("accept"), asynchronous: withConverter("promise"), throwing: withConverter("throw") },
        (args) => ({
          content: [{ type: "text", text: JSON.stringify(args) }],
        }),
      ),
  });
  const [tool] = await pair.client.listTools();
  assert.deepEqual(tool?.inputSchema, {
    type: "object",
    properties: { optional: { type: "string" }, asynchronous: { type: "string" }, throwing: { type: "string" } },
    required: ["asynchronous", "throwing"],
  });
  assert.equal(
    text(await call(pair, "probe", { asynchronous: "a", throwing: "t" })),
    '{"optional":"fallback","asynchronous":"a","throwing":"t"}',
  );
});

test("a shape's schema refuses a value that is not an object, in a message fit for the model", async () => {
  const { schema } = fromParamsMap("direct", "inputSchema", { q: z.string() });
  for (const [value, received] of [
    [null, "null"],
    [["q"], "array"],
    ["q", "string"],
  ] as const) {
    const outcome = await (schema as StandardSchemaV1)["~standard"].validate(value);
    assert.deepEqual(outcome, { issues: [{ message: `Invalid input: expected object, received ${received}` }] });
  }
});

// ---- the SDK's other forms ------------------------------------------------------------

test("server.tool(name, description, handler) and server.tool(name, handler): a tool without parameters", async () => {
  const pair = await connected({
    setup: (server) => {
      server.tool("described", "Says hi", () => ({ content: [{ type: "text", text: "hi" }] }));
      server.tool("bare", () => ({ content: [{ type: "text", text: "bare" }] }));
    },
  });
  assert.deepEqual(
    (await pair.client.listTools()).map((t) => [t.name, t.description, t.inputSchema]),
    [
      ["described", "Says hi", { type: "object" }],
      ["bare", undefined, { type: "object" }],
    ],
  );
  assert.equal(text(await call(pair, "bare", {})), "bare");
});

test("J-02: a JSON Schema with root type object or a Standard Schema in the params position is taken as the whole schema", async () => {
  const pair = await connected({
    setup: (server) => {
      server.tool("json", "whole", { type: "object", properties: { n: { type: "integer" } }, required: ["n"] }, (args) => ({
        content: [{ type: "text", text: String(args.n) }],
      }));
      server.tool("std", z.object({ s: z.string() }), (args) => ({ content: [{ type: "text", text: args.s }] }));
    },
  });
  const tools = await pair.client.listTools();
  assert.deepEqual(tools[0]?.inputSchema, { type: "object", properties: { n: { type: "integer" } }, required: ["n"] });
  assert.equal(text(await call(pair, "std", { s: "z" })), "z");
  assert.throws(
    () => new Server({ info: SERVER_INFO }).tool("s", "d", { type: "string" } as never, () => OK),
    /\[J-02\] tool s: inputSchema must have root type "object"/,
  );
});

// ---- refusals ------------------------------------------------------------------------

const FORMS =
  /tool call shape: expected server\.tool\(name, options, handler\), \(name, description, params, handler\), \(name, params, handler\), \(name, description, handler\) or \(name, handler\), where options is .* and params is a JSON Schema of type "object", a Standard Schema .* or a map of parameter schemas/;

test("a wrong server.tool shape is refused at registration with the accepted forms and what arrived; nothing is registered", () => {
  const server = new Server({ info: SERVER_INFO });
  const tool = server.tool.bind(server) as unknown as (...args: unknown[]) => unknown;
  const cases: Array<[unknown[], RegExp]> = [
    [
      ["no-handler", { q: { type: "string" } }],
      /got server\.tool\("no-handler", an object with keys q\); the handler, a function, comes last/,
    ],
    [["nothing"], /got server\.tool\("nothing"\)$/],
    [["number", 42, () => OK], /got server\.tool\("number", a number, a function\)$/],
    [["null", null, () => OK], /got server\.tool\("null", null, a function\)$/],
    [
      ["schema-last", "d", z.object({})],
      /got server\.tool\("schema-last", a string \("d"\), a Standard Schema \(zod\)\); the handler, a function, comes last/,
    ],
    [
      ["sdk-annotations-4", { q: z.string() }, { readOnlyHint: true }, () => OK],
      /the SDK's annotations argument goes into the options: server\.tool\(name, \{ description, inputSchema, annotations \}, handler\)/,
    ],
    [
      ["sdk-annotations-5", "d", { q: z.string() }, { readOnlyHint: true }, () => OK],
      /got server\.tool\("sdk-annotations-5", a string \("d"\), an object with keys q, an object with keys readOnlyHint, a function\); the SDK's annotations/,
    ],
    [
      ["sdk-annotations-3", { readOnlyHint: true }, () => OK],
      /got server\.tool\("sdk-annotations-3", an object with keys readOnlyHint, a function\); the SDK's annotations/,
    ],
    [
      ["options-as-params", "d", { description: "d", inputSchema: {} }, () => OK],
      /; with an options object, the description goes into it$/,
    ],
    [["array-params", "d", [], () => OK], /got server\.tool\("array-params", a string \("d"\), an array, a function\)$/],
    [
      ["too-many", "a", "b", "c", "d", () => OK],
      /got server\.tool\("too-many", a string \("a"\), a string \("b"\), a string \("c"\), a string \("d"\), a function\)/,
    ],
    [["long", "x".repeat(50), 1, () => OK], /got server\.tool\("long", a string \("x{40}…"\), a number, a function\)$/],
    [
      ["wide", { a: 1, b: 1, c: 1, d: 1, e: 1, f: 1, g: 1, h: 1, i: 1 }, () => OK],
      /got server\.tool\("wide", an object with keys a, b, c, d, e, f, g, h, …, a function\)$/,
    ],
  ];
  for (const [args, message] of cases) {
    assert.throws(
      () => tool(...args),
      (error: Error) => FORMS.test(error.message) && message.test(error.message),
      `server.tool(${String(args[0])}, ...)`,
    );
  }
  assert.equal(server.tools.size, 0);
});

test("tool options with an unknown key are refused naming the known keys (annotation hints: pointing at annotations); title and description must be strings", () => {
  const server = new Server({ info: SERVER_INFO });
  const tool = server.tool.bind(server) as unknown as (...args: unknown[]) => unknown;
  assert.throws(
    () => tool("typo", { descripton: "d", inputSchema: { type: "object" } }, () => OK),
    /^Error: tool options: tool "typo" has unknown option "descripton"; expected only title, description, inputSchema, outputSchema, jsonSchema, annotations, _meta, validator, taskSupport, beforeTask$/,
  );
  assert.throws(
    () => tool("hints", { title: "T", readOnlyHint: true }, () => OK),
    /tool options: tool "hints" has unknown option "readOnlyHint"; expected only .* \(hints such as readOnlyHint go under annotations\)/,
  );
  assert.throws(
    () => tool("title", { title: 5, inputSchema: {} }, () => OK),
    /tool options: tool "title"'s title must be a string; got a number/,
  );
  assert.throws(
    () => tool("desc", { description: { long: true }, inputSchema: {} }, () => OK),
    /tool options: tool "desc"'s description must be a string; got an object with keys long/,
  );
  // A title that is not a string, without option-only keys, is neither options nor a map of schemas.
  assert.throws(() => tool("neither", { title: 5 }, () => OK), FORMS);
  assert.equal(server.tools.size, 0);
});

test("a map mixing JSON Schemas and Standard Schemas is refused, naming each kind's parameters", () => {
  const server = new Server({ info: SERVER_INFO });
  assert.throws(
    () => server.tool("mixed", { a: { type: "string" }, b: z.string() } as never, () => OK),
    /tool "mixed": a map of parameters \(inputSchema\) takes one kind of schema; expected every parameter's a JSON Schema or every one a Standard Schema, got Standard Schemas for b and JSON Schemas for a/,
  );
});

test("J-02: a parameter schema the built-in validator cannot apply is refused at registration, with its location", () => {
  const server = new Server({ info: SERVER_INFO });
  assert.throws(
    () => server.tool("typo", "d", { q: { type: "string", maxLenght: 3 } }, () => OK),
    /\[J-02\] tool "typo": the inputSchema cannot be applied by the built-in validator: .*#\/properties\/q/,
  );
  assert.throws(
    () => server.tool("cyclic", "d", { q: cyclic() as never }, () => OK),
    /tool "cyclic": the inputSchema's parameter schemas cannot be listed as JSON/,
  );
});

function cyclic(): object {
  const schema: { type: string; self?: object } = { type: "object" };
  schema.self = schema;
  return schema;
}

test("a resource, template or prompt whose callback is not a function, or whose definition is not an object, is refused at registration", () => {
  const server = new Server({ info: SERVER_INFO });
  const any = server as unknown as Record<"resource" | "resourceTemplate" | "prompt", (...args: unknown[]) => unknown>;
  assert.throws(
    () => any.resource("note://a", "a note", () => ({ contents: [] })),
    /^Error: resource call shape: expected server\.resource\(uri, \{ name, .* \}, read\); got \("note:\/\/a", a string \("a note"\), a function\)$/,
  );
  assert.throws(
    () => any.resourceTemplate(parseTemplate("note://{n}"), { name: "n" }),
    /resource template call shape: expected .*; got \("note:\/\/\{n\}", an object with keys name, undefined\)/,
  );
  // The template unparsed: parsing is the caller's, so that a Server without templates bundles no RFC 6570 code.
  assert.throws(
    () => any.resourceTemplate("note://{n}", { name: "n" }, () => ({ contents: [] })),
    /resource template call shape: expected server\.resourceTemplate\(parseTemplate\(uriTemplate\), .*\); got a string \("note:\/\/\{n\}"\) as the template/,
  );
  assert.throws(
    () => any.prompt("greet", "Greets", { name: z.string() }, () => ({ messages: [] })),
    /prompt call shape: expected server\.prompt\(name, .*\); got \("greet", a string \("Greets"\), an object with keys name\)/,
  );
  assert.equal(server.resources.size + server.templates.size + server.prompts.size, 0);
});

// ---- new Server(...) --------------------------------------------------------------------

test("L-03: new Server({ name, version }) and new Server({ name, version }, options) take name and version as serverInfo", async () => {
  for (const server of [
    new Server({ name: "flat", version: "1.2.3", title: "Flat", instructions: "use it" }),
    new Server({ name: "flat", version: "1.2.3", title: "Flat" }, { instructions: "use it" }),
  ]) {
    const pair = await connected({ serverInstance: server });
    const initialize = pair.serverHost.sent.find((m) => typeof m.result === "object" && m.result !== null && "serverInfo" in m.result);
    assert.deepEqual((initialize?.result as { serverInfo: unknown; instructions: unknown }).serverInfo, {
      name: "flat",
      version: "1.2.3",
      title: "Flat",
    });
    assert.equal((initialize?.result as { instructions: unknown }).instructions, "use it");
    assert.deepEqual(server.options.info, { name: "flat", version: "1.2.3", title: "Flat" });
  }
});

test("L-03: new Server refuses unknown options (naming the known ones), an info without name and version strings, and other shapes", () => {
  const make = (...args: unknown[]): unknown => new (Server as unknown as new (...a: unknown[]) => unknown)(...args);
  const known =
    "info, instructions, versions, strict, limits, discoverAnyVersion, serverInfoInResults, paging, maxConcurrentHandlers, maxJsonDepth, allowAnyToolName, logging, capabilities, defaultTimeoutMs, onDiagnostic, onSessionClosed, inputRounds, tasks, extensions";
  assert.throws(
    () => make({ info: SERVER_INFO, pagesize: 10 }),
    new RegExp(`^Error: server options: unknown option "pagesize"; expected only ${known}$`),
  );
  assert.throws(
    () => make({ name: "n", version: "1", instructons: "x" }),
    new RegExp(
      `server options: unknown option "instructons"; expected only ${known} \\(with name, version, title, description, icons, websiteUrl in place of info\\)`,
    ),
  );
  assert.throws(
    () => make({ name: "n", version: "1" }, { enforceStrictCapabilities: true }),
    /server options: unknown option "enforceStrictCapabilities"/,
  );
  assert.throws(() => make({ name: "n", version: "1" }, { info: SERVER_INFO }), /server options: unknown option "info"/);
  assert.throws(() => make({ info: SERVER_INFO }, { instructions: "x" }), /got info in the first argument and a second argument/);
  assert.throws(
    () => make({ name: "n", version: "1", instructions: "a" }, { instructions: "b" }),
    /server options: instructions given in both arguments; expected each option once/,
  );
  assert.throws(
    () => make({ name: "n" }),
    /^Error: server info: expected \{ name: string, version: string, title\?, description\?, icons\?, websiteUrl\? \}; got name a string \("n"\) and version undefined$/,
  );
  assert.throws(() => make({ info: { name: "n", version: 2 } }), /server info: .*got name a string \("n"\) and version a number/);
  assert.throws(() => make({ info: "n" }), /server info: .*got a string \("n"\)$/);
  assert.throws(
    () => make({ instructions: "no name" }),
    /server options: expected new Server\(\{ info: \{ name, version \}, \.\.\.options \}\), .*; got an object with keys instructions, with neither info nor name and version/,
  );
  assert.throws(() => make(), /server options: expected .*; got undefined$/);
  assert.throws(() => make("name"), /server options: expected .*; got a string \("name"\)$/);
  assert.throws(
    () => make({ name: "n", version: "1" }, "x"),
    /server options: expected the second argument to be an options object .*; got a string \("x"\)$/,
  );
});
