// Type-level checks of typed schemas (lib/peer/server/schema-types.ts), compiled with the normal
// build and never run as a test (no `.test` in the name): tools whose inputSchema is a zod v4
// or valibot schema, or a JSON Schema literal, get typed `args`; an outputSchema types the
// handler's structuredContent; prompt arguments type the prompt handler. `@ts-expect-error`
// proves that wrong accesses and wrong results are refused (an unused one fails the build).
// The runtime side (what tools/list shows, defaults, validation) is in peer/typed-schemas.test.ts.

import * as v from "valibot";
import * as z from "zod";
import { Server } from "../../lib/peer/index.js";
import type { InferJsonSchema, PromptArgs, ToolArgs, ToolDefinition, ToolHandler } from "../../lib/peer/index.js";

// valibot's declarations name the platform's Blob and File, which this build's lib (es2022, no DOM, no
// @types/node globals) lacks: empty declarations merge with the real ones wherever those exist.
declare global {
  interface Blob {}
  interface File {}
}

const server = new Server({ info: { name: "typed", version: "1.0.0" } });
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

/** Exact type equality, as a type that is `true` or a compile error where used with `: true`. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

// ---- zod v4 -------------------------------------------------------------------------

server.tool(
  "weather",
  { inputSchema: z.object({ city: z.string(), days: z.number().int().default(3), unit: z.enum(["c", "f"]).optional() }) },
  (args) => {
    const city: string = args.city.toUpperCase();
    // After validation the default is there: days is a number, not number | undefined.
    const days: number = args.days + 1;
    const unit: "c" | "f" | undefined = args.unit;
    // @ts-expect-error a property the schema does not have
    void args.country;
    // @ts-expect-error unit may be undefined
    void args.unit.length;
    return text(`${city} ${days} ${String(unit)}`);
  },
);

server.tool("sum", { inputSchema: z.object({ values: z.array(z.number()) }), outputSchema: z.object({ total: z.number() }) }, (args) => ({
  content: [],
  structuredContent: { total: args.values.reduce((a, b) => a + b, 0) },
}));

// @ts-expect-error structuredContent must match the outputSchema (total is a number)
server.tool("sum-bad", { outputSchema: z.object({ total: z.number() }) }, () => ({ content: [], structuredContent: { total: "3" } }));
// @ts-expect-error with an outputSchema, a successful result needs structuredContent
server.tool("sum-missing", { outputSchema: z.object({ total: z.number() }) }, () => ({ content: [] }));
// An isError result needs none.
server.tool("sum-failed", { outputSchema: z.object({ total: z.number() }) }, () => ({ content: [], isError: true }));

// ---- valibot ------------------------------------------------------------------------

const valibotCity = v.object({ city: v.string(), limit: v.optional(v.number(), 10), tags: v.array(v.string()) });
server.tool(
  "search",
  {
    inputSchema: valibotCity,
    jsonSchema: {
      input: {
        type: "object",
        properties: {
          city: { type: "string" },
          limit: { type: "number", default: 10 },
          tags: { type: "array", items: { type: "string" } },
        },
        required: ["city", "tags"],
      },
    },
  },
  (args) => {
    const first: string | undefined = args.tags[0];
    const limit: number = args.limit;
    // @ts-expect-error city is a string, not a number
    const wrong: number = args.city;
    // @ts-expect-error a property the schema does not have
    void args.query;
    return text(`${args.city} ${limit} ${String(first)} ${String(wrong)}`);
  },
);

// ---- JSON Schema literals -----------------------------------------------------------

const forecastSchema = {
  type: "object",
  properties: {
    city: { type: "string" },
    unit: { enum: ["c", "f"] },
    days: { type: "integer" },
    at: { anyOf: [{ type: "string" }, { type: "number" }] },
    note: { type: ["string", "null"] },
    legacy: { type: "string", nullable: true },
    kind: { const: "forecast" },
    points: { type: "array", items: { type: "object", properties: { t: { type: "number" } }, required: ["t"] } },
    mode: { oneOf: [{ const: "fast" }, { const: "slow" }] },
  },
  required: ["city", "points"],
  additionalProperties: false,
} as const;

server.tool("forecast", { inputSchema: forecastSchema }, (args) => {
  const city: string = args.city;
  const unit: "c" | "f" | undefined = args.unit;
  const at: string | number | undefined = args.at;
  const note: string | null | undefined = args.note;
  const legacy: string | null | undefined = args.legacy;
  const kind: "forecast" | undefined = args.kind;
  const t: number | undefined = args.points[0]?.t;
  const mode: "fast" | "slow" | undefined = args.mode;
  // @ts-expect-error days is optional (not in required)
  const days: number = args.days;
  // @ts-expect-error a property the schema does not list
  void args.country;
  return text([city, unit, at, note, legacy, kind, t, mode, days].join(" "));
});

// Inline (no `as const`): the `const` type parameters of server.tool infer the literal as well.
server.tool("inline", { inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } }, (args) => {
  const n: number = args.n;
  // @ts-expect-error n is a number
  args.n.toUpperCase();
  return text(String(n));
});

// A JSON outputSchema types structuredContent too.
server.tool("json-out", { outputSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } }, () => ({
  content: [],
  structuredContent: { ok: true },
}));
server.tool("json-out-bad", { outputSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } }, () => ({
  content: [],
  // @ts-expect-error ok must be a boolean
  structuredContent: { ok: "yes" },
}));

// No schema, or a wide one: the untyped arguments of before.
server.tool("from-zod-json", { inputSchema: z.toJSONSchema(z.object({ a: z.string() })) }, (args) => text(String(args.a)));
server.tool("plain", {}, (args) => text(String(args.anything)));
const wide: { type: "object"; [keyword: string]: unknown } = { type: "object" };
server.tool("wide", { inputSchema: wide }, (args) => text(String(args.anything)));

// A Standard Schema given as `validator` (the older form) types args too; the listed schema is the JSON one.
server.tool(
  "legacy",
  { inputSchema: { type: "object", properties: { q: { type: "string" } } }, validator: z.object({ q: z.string().default("") }) },
  (args) => {
    const q: string = args.q;
    // @ts-expect-error not in the validator's schema
    void args.other;
    return text(q);
  },
);
// A function validator leaves args to the inputSchema.
server.tool(
  "fn-validator",
  { inputSchema: { type: "object", properties: { n: { type: "number" } } }, validator: () => ({ ok: true }) },
  (args) => text(String(args.n)),
);

// A definition typed as the wide ToolDefinition (built elsewhere): untyped args, any result, as before.
const built: ToolDefinition = { description: "built elsewhere", inputSchema: { type: "object" } };
server.tool("built", built, (args) => ({ content: [{ type: "text", text: String(args.anything) }] }));
const handler: ToolHandler = (args) => text(String(args.x));
server.tool("shared-handler", { inputSchema: { type: "object", properties: { x: { type: "string" } } } }, handler);

// An ArkType-style schema: a function carrying "~standard" is a Standard Schema too.
const callable = Object.assign((value: unknown) => value, {
  "~standard": {
    version: 1 as const,
    vendor: "callable",
    validate: (value: unknown) => ({ value: value as { id: number } }),
    types: { input: { id: 0 }, output: { id: 0 } },
  },
});
server.tool(
  "callable",
  { inputSchema: callable, jsonSchema: { input: { type: "object", properties: { id: { type: "number" } } } } },
  (args) => {
    const id: number = args.id;
    // @ts-expect-error not in the schema's output type
    void args.name;
    return text(String(id));
  },
);

// ---- prompts ------------------------------------------------------------------------

server.prompt("review", { arguments: [{ name: "code", required: true }, { name: "style" }] }, (args) => {
  const code: string = args.code;
  const style: string | undefined = args.style;
  // @ts-expect-error style is optional
  const strict: string = args.style;
  // @ts-expect-error not an argument of this prompt
  void args.language;
  return { messages: [{ role: "user", content: { type: "text", text: `${code} ${String(style)} ${strict}` } }] };
});

server.prompt("translate", { argsSchema: z.object({ text: z.string(), to: z.enum(["fr", "de"]).default("fr") }) }, (args) => {
  const to: "fr" | "de" = args.to;
  // @ts-expect-error not an argument of this prompt
  void args.from;
  return { messages: [{ role: "user", content: { type: "text", text: `${args.text} → ${to}` } }] };
});

server.prompt(
  "summarize",
  { argsSchema: { type: "object", properties: { text: { type: "string" }, length: { enum: ["short", "long"] } }, required: ["text"] } },
  (args) => {
    const length: "short" | "long" | undefined = args.length;
    // @ts-expect-error not an argument of this prompt
    void args.style;
    return { messages: [{ role: "user", content: { type: "text", text: `${args.text} ${String(length)}` } }] };
  },
);

// ---- The SDKs' and the book's forms (call-shapes.ts, params-map.ts) ---------------------

// The book's example as printed: a description, then a map of parameter JSON Schemas.
server.tool("query_database", "데이터베이스를 쿼리합니다", { query: { type: "string", description: "SQL 쿼리" } }, async (params) => {
  const query: string = params.query;
  // @ts-expect-error query is a string
  params.query.toFixed();
  // @ts-expect-error a parameter the map does not have
  void params.limit;
  return text(query);
});

// Every member of a map of JSON Schemas is there: required, or filled in from its default.
server.tool(
  "json-map",
  { q: { type: "string" }, n: { type: "number", default: 3 }, tags: { type: "array", items: { type: "string" } } },
  (args) => {
    const ok: Equal<typeof args, { q: string; n: number; tags: string[] }> = true;
    return text(`${String(ok)} ${args.q} ${args.n + 1} ${args.tags.join()}`);
  },
);

// A zod raw shape types args as z.object(shape) would: optional members optional, defaulted ones present.
server.tool("zod-shape", "d", { city: z.string(), days: z.number().default(3), unit: z.enum(["c", "f"]).optional() }, (args) => {
  const ok: Equal<typeof args, { city: string; days: number; unit?: "c" | "f" | undefined }> = true;
  return text(`${String(ok)} ${args.city}`);
});
server.tool("zod-shape-3", { city: z.string() }, (args) => text(args.city.toUpperCase()));

// A whole schema in the params position: a JSON Schema of type "object", or a Standard Schema.
server.tool("whole-json", "d", { type: "object", properties: { n: { type: "integer" } }, required: ["n"] }, (args) =>
  text(String(args.n + 1)),
);
server.tool("whole-zod", z.object({ s: z.string() }), (args) => text(args.s.toUpperCase()));

// registerTool's options: raw shapes as inputSchema and outputSchema type args and structuredContent.
server.tool(
  "register-style",
  {
    title: "Add",
    description: "Adds",
    inputSchema: { a: z.number(), b: z.number() },
    outputSchema: { sum: z.number() },
    annotations: { readOnlyHint: true },
  },
  (args) => ({ content: [], structuredContent: { sum: args.a + args.b } }),
);
server.tool("register-bad", { inputSchema: { a: z.number() }, outputSchema: { sum: z.number() } }, (args) => ({
  content: [],
  // @ts-expect-error structuredContent must match the raw-shape outputSchema
  structuredContent: { sum: String(args.a) },
}));
server.tool("json-map-out", { outputSchema: { sum: { type: "number" }, note: { type: "string", default: "" } } }, () => ({
  content: [],
  // A member with a default may be left out of structuredContent: nothing fills it in there.
  structuredContent: { sum: 1 },
}));

// No parameters: a description alone, or nothing.
server.tool("described", "Says hi", (args) => text(String(args.anything)));
server.tool("bare", () => text("bare"));

// @ts-expect-error a map's values are schemas, not type names
server.tool("type-names", { q: "string" }, () => text(""));
// @ts-expect-error a misspelled option is neither an option nor a map of parameters
server.tool("typo", { descripton: "x", inputSchema: { type: "object" } }, () => text(""));
// @ts-expect-error the SDK's annotations argument is not a form (annotations go into the options)
server.tool("sdk-annotations", { q: z.string() }, { readOnlyHint: true }, () => text(""));

// new Server: ServerOptions, or the name and version in place of info.
export const flat = new Server({ name: "flat", version: "1.0.0", instructions: "use it" });
export const twoArgs = new Server({ name: "sdk", version: "1.0.0" }, { instructions: "use it" });
// @ts-expect-error an option this library does not have
export const misspelled = new Server({ info: { name: "n", version: "1" }, pagesize: 10 });
// @ts-expect-error the version is part of the name and version
export const noVersion = new Server({ name: "n" });

// ---- The helper types on their own --------------------------------------------------

const checks: Array<true> = [
  true satisfies Equal<InferJsonSchema<{ type: "string" }>, string>,
  true satisfies Equal<InferJsonSchema<{ type: "array"; items: { type: "integer" } }>, number[]>,
  true satisfies Equal<InferJsonSchema<{ enum: readonly ["a", 1, null] }>, "a" | 1 | null>,
  true satisfies Equal<
    InferJsonSchema<{ type: "object"; properties: { a: { type: "boolean" } }; required: readonly ["a"] }>,
    { a: boolean }
  >,
  true satisfies Equal<InferJsonSchema<{ type: "object"; additionalProperties: { type: "number" } }>, Record<string, number>>,
  true satisfies Equal<
    InferJsonSchema<{
      allOf: readonly [
        { type: "object"; properties: { a: { type: "string" } }; required: readonly ["a"] },
        { type: "object"; properties: { b: { type: "number" } } },
      ];
    }>,
    { a: string; b?: number }
  >,
  true satisfies Equal<InferJsonSchema<{ $ref: "#/$defs/x" }>, unknown>,
  true satisfies Equal<InferJsonSchema<true>, unknown>,
  true satisfies Equal<ToolArgs<undefined>, Record<string, unknown>>,
  true satisfies Equal<ToolArgs<{ type: "object"; properties: { [name: string]: object } }>, Record<string, unknown>>,
  true satisfies Equal<PromptArgs<readonly [{ name: "a"; required: true }], undefined>, { a: string }>,
  true satisfies Equal<PromptArgs<undefined, undefined>, Record<string, string>>,
];

export function typesSchemas(): unknown[] {
  return [server, checks];
}
