// A tool's parameters given as a map, one schema per parameter, the way the SDKs and most
// books write them: `{ query: { type: "string" } }` (a map of JSON Schemas) or
// `{ query: z.string() }` (a zod raw shape: a map of Standard Schemas). Each map is made into
// what resolveToolSchemas (typed-schemas.ts) already takes: a JSON Schema with root type
// "object", or one Standard Schema standing for the whole object.
//
// Invariants:
// - the rule of a map of JSON Schemas: each parameter is required unless its schema has a
//   `default`, which the server fills in when the client leaves the parameter out (a copy of
//   it, per call); the listed inputSchema says the same (`required` names the others);
// - the rule of a map of Standard Schemas is z.object(shape)'s: a parameter is required unless
//   its schema accepts `undefined` (optional, or with a default), members the map does not
//   name are dropped, each issue's path starts with the parameter's name;
// - an object is read as a map only when it is neither a Standard Schema nor a JSON Schema
//   (a `type` member that is a string or an array, or a JSON Schema keyword whose value is a
//   subschema: isParamsMap); a map of both kinds of schema at once is refused;
// - nothing here imports a schema library: schemas are recognised by shape.

import { toJsonSafe } from "../shared/json-safe.js";
import { hasOwn } from "../../wire/envelope.js";
import { refuseUnusableSchema } from "./registration.js";
import {
  checkValue,
  isStandardSchema,
  type StandardSchemaV1,
  type StandardSchemaV1Issue,
  type ToolValidator,
  type ValidatorResult,
} from "./standard-schema.js";

/** JSON Schema keywords whose value is a subschema or a map of them: an object with one of these is a JSON Schema, never a map. */
export const SUBSCHEMA_KEYWORDS = [
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "propertyNames",
  "dependentSchemas",
  "$defs",
  "definitions",
  "items",
  "prefixItems",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "allOf",
  "anyOf",
  "oneOf",
] as const;

/** What a map of parameters is made into: the schema fields of a tool definition. */
export interface FromParamsMap {
  /** A JSON Schema (map of JSON Schemas) or a Standard Schema (map of Standard Schemas). */
  readonly schema: object;
  /**
   * For a map of JSON Schemas with defaults: fills them in, then applies the built-in validator,
   * or the validator the tool names itself (the handler's args are typed with every member there).
   */
  readonly validator: ((value: unknown) => ValidatorResult | Promise<ValidatorResult>) | undefined;
}

function isPlainObject(value: unknown): value is { readonly [key: string]: unknown } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The JSON Schema keyword that makes `value` read as a JSON Schema rather than a map, if any. */
export function schemaKeywordOf(value: { readonly [key: string]: unknown }): string | undefined {
  const type = value.type;
  if (typeof type === "string" || Array.isArray(type)) return "type";
  return SUBSCHEMA_KEYWORDS.find((keyword) => hasOwn(value, keyword));
}

/**
 * True for a map of parameter schemas: a plain object, not a Standard Schema, with no JSON
 * Schema keyword of its own (schemaKeywordOf), whose every value is a Standard Schema or a
 * plain object (a JSON Schema). `{}` is a map: a tool without parameters.
 */
export function isParamsMap(value: unknown): value is { readonly [param: string]: object } {
  if (!isPlainObject(value) || isStandardSchema(value) || schemaKeywordOf(value) !== undefined) return false;
  return Object.values(value).every((schema) => isStandardSchema(schema) || isPlainObject(schema));
}

/**
 * Makes a map of parameters (isParamsMap) into a tool's schema; throws an Error naming the tool
 * when the map mixes kinds. `own`: the validator the tool names itself, run after the defaults.
 */
export function fromParamsMap(
  tool: string,
  field: "inputSchema" | "outputSchema",
  map: { readonly [param: string]: object },
  own?: ToolValidator,
): FromParamsMap {
  const names = Object.keys(map);
  const standard = names.filter((name) => isStandardSchema(map[name]));
  if (standard.length > 0 && standard.length < names.length) {
    const json = names.filter((name) => !isStandardSchema(map[name]));
    throw new Error(
      `tool ${JSON.stringify(tool)}: a map of parameters (${field}) takes one kind of schema; expected every parameter's a JSON Schema or every one a Standard Schema, got Standard Schemas for ${standard.join(", ")} and JSON Schemas for ${json.join(", ")}`,
    );
  }
  if (names.length > 0 && standard.length === names.length)
    return { schema: standardShape(map as { [param: string]: StandardSchemaV1 }), validator: undefined };
  return jsonShape(tool, field, map, own);
}

// ---- a map of JSON Schemas ------------------------------------------------------------

function jsonShape(tool: string, field: string, map: { readonly [param: string]: object }, own: ToolValidator | undefined): FromParamsMap {
  const listed = toJsonSafe(map);
  if (!listed.ok)
    throw new Error(`tool ${JSON.stringify(tool)}: the ${field}'s parameter schemas cannot be listed as JSON: ${listed.reason}`);
  const properties = listed.value as { [param: string]: { default?: unknown } };
  const required = Object.keys(properties).filter((name) => !hasOwn(properties[name] as object, "default"));
  const schema = required.length > 0 ? { type: "object", properties, required } : { type: "object", properties };
  refuseUnusableSchema(tool, field, schema);
  const defaults = Object.keys(properties).filter((name) => hasOwn(properties[name] as object, "default"));
  if (defaults.length === 0 || field === "outputSchema") return { schema, validator: undefined };
  const applied: ToolValidator = own ?? { jsonSchema: schema };
  const validator = (value: unknown): ValidatorResult | Promise<ValidatorResult> => {
    let filled = value;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const copy: { [param: string]: unknown } = { ...(value as object) };
      for (const name of defaults) if (!hasOwn(copy, name)) copy[name] = copyOf(properties[name]?.default);
      filled = copy;
    }
    return checkValue(applied, filled);
  };
  return { schema, validator };
}

/** A fresh copy of a listed default (plain JSON), so a handler that edits its arguments never edits the next call's. */
function copyOf(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

// ---- a map of Standard Schemas (a zod raw shape) -------------------------------------

type Outcome = { readonly value: unknown; readonly issues?: undefined } | { readonly issues: ReadonlyArray<StandardSchemaV1Issue> };

/** z.object(shape), by the Standard Schema interface of each member (and the Standard JSON Schema one, when every member has it). */
function standardShape(shape: { readonly [param: string]: StandardSchemaV1 }): StandardSchemaV1 {
  const names = Object.keys(shape);
  const first = shape[names[0] as string] as StandardSchemaV1;
  const validate = (value: unknown): Outcome | Promise<Outcome> => {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return {
        issues: [
          {
            message: `Invalid input: expected object, received ${value === null ? "null" : Array.isArray(value) ? "array" : typeof value}`,
          },
        ],
      };
    const input = value as { readonly [key: string]: unknown };
    const results = names.map((name) => (shape[name] as StandardSchemaV1)["~standard"].validate(input[name]));
    const combine = (settled: readonly unknown[]): Outcome => {
      const output: { [param: string]: unknown } = {};
      const issues: StandardSchemaV1Issue[] = [];
      settled.forEach((result, i) => {
        const name = names[i] as string;
        const r = (typeof result === "object" && result !== null ? result : {}) as { value?: unknown; issues?: unknown };
        if (Array.isArray(r.issues)) {
          for (const issue of r.issues as StandardSchemaV1Issue[])
            issues.push({ message: issue.message, path: [name, ...(issue.path ?? [])] });
        } else if (r.value !== undefined || hasOwn(input, name)) output[name] = r.value;
      });
      return issues.length > 0 ? { issues } : { value: output };
    };
    return results.some(isThenable) ? Promise.all(results).then(combine) : combine(results);
  };
  const props: { [key: string]: unknown } = { version: 1, vendor: first["~standard"].vendor, validate };
  const converters = names.map((name) => (shape[name] as StandardSchemaV1)["~standard"] as { jsonSchema?: unknown });
  // Listed only when every member's library produces a JSON Schema; else registration asks for jsonSchema (typed-schemas.ts).
  if (converters.every((c) => typeof (c.jsonSchema as { input?: unknown } | undefined)?.input === "function")) {
    props.jsonSchema = {
      input: (options: { target: string }) => objectSchema(shape, names, "input", options),
      output: (options: { target: string }) => objectSchema(shape, names, "output", options),
    };
  }
  return { "~standard": props } as unknown as StandardSchemaV1;
}

/** The object schema of a shape: each member's JSON Schema ($schema moved to the root), required unless it accepts undefined. */
function objectSchema(
  shape: { readonly [param: string]: StandardSchemaV1 },
  names: readonly string[],
  io: "input" | "output",
  options: { target: string },
): object {
  const properties: { [param: string]: unknown } = {};
  const dialects = new Set<unknown>();
  for (const name of names) {
    const converter = (shape[name] as StandardSchemaV1)["~standard"] as unknown as {
      jsonSchema: { [k in typeof io]?: (o: object) => unknown };
    };
    const produced = converter.jsonSchema[io]?.call(converter.jsonSchema, options);
    if (typeof produced !== "object" || produced === null || Array.isArray(produced)) throw new Error(`parameter ${name}: no JSON Schema`);
    const { $schema, ...rest } = produced as { $schema?: unknown };
    if ($schema !== undefined) dialects.add($schema);
    properties[name] = rest;
  }
  const required = names.filter((name) => !acceptsUndefined(shape[name] as StandardSchemaV1));
  const schema: { [keyword: string]: unknown } =
    required.length > 0 ? { type: "object", properties, required } : { type: "object", properties };
  return dialects.size === 1 ? { $schema: [...dialects][0], ...schema } : schema;
}

/** True when a member may be left out: its schema accepts undefined at once (optional, or with a default); an asynchronous answer counts as required. */
function acceptsUndefined(schema: StandardSchemaV1): boolean {
  try {
    const result: unknown = schema["~standard"].validate(undefined);
    if (isThenable(result)) {
      // Settled for nothing: an unhandled rejection must not escape a question asked at registration.
      (result as Promise<unknown>).then(undefined, () => undefined);
      return false;
    }
    return typeof result === "object" && result !== null && (result as { issues?: unknown }).issues === undefined;
  } catch {
    return false;
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}
