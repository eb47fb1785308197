// Type-level inference of handler argument types from the schemas a server registers: the
// output type of a Standard Schema (zod, valibot, arktype, ...), the type a JSON Schema
// literal (written `as const`, or passed straight to server.tool, whose type parameters are
// `const`) describes, or the members of a map of parameter schemas (params-map.ts). Types
// only: nothing here exists at run time.
//
// Invariants: a schema whose shape is not known at compile time (a variable typed as a wide
// JSON Schema, a keyword this inference does not model such as $ref or allOf branches it
// cannot merge) infers a wide type (`unknown`, or Record<string, unknown> at a tool's root),
// never a narrower one than the validator accepts; recursion stops at MAX_DEPTH levels.

import type { CallToolResult } from "../../types/index.js";
import type { StandardSchemaV1 } from "./standard-schema.js";

/** A JSON Schema object as a literal may spell it (readonly arrays and all, from `as const`). */
export interface JsonSchemaLiteral {
  readonly type?: string | readonly string[];
  readonly [keyword: string]: unknown;
}

/** What a tool's inputSchema / outputSchema may be: a Standard Schema, a JSON Schema object (root type "object", checked at registration), or a map of parameter schemas. */
export type ToolSchemaInput = StandardSchemaV1 | JsonSchemaLiteral;

/**
 * A map of parameter schemas, one per parameter: JSON Schemas (`{ query: { type: "string" } }`:
 * each required unless it has a `default`, which the server fills in) or Standard Schemas (a
 * zod raw shape, `{ query: z.string() }`: read as z.object(shape)). See params-map.ts.
 */
export interface ParamsMapLiteral {
  readonly [param: string]: JsonSchemaLiteral | StandardSchemaV1;
}

/** A JSON Schema literal of a tool's arguments: root type "object" (J-02). */
export interface ObjectSchemaLiteral extends JsonSchemaLiteral {
  readonly type: "object";
}

/** The params of `server.tool(name, description?, params, handler)`: a Standard Schema, a JSON Schema of type "object", or a map of parameter schemas. */
export type ToolParams = StandardSchemaV1 | ObjectSchemaLiteral | ParamsMapLiteral;

/**
 * Members that make an object a schema, never tool options: the options overloads take
 * `ToolDefinition & NotSchema`, so that a zod schema (which has a `description`, and so fits
 * the all-optional ToolDefinition) or a JSON Schema with a description is not read as options,
 * whose context would then type the handler's args.
 */
export interface NotSchema {
  readonly "~standard"?: never;
  readonly type?: never;
}

/**
 * Keys that make an object tool options, never params (call-shapes.ts reads them so): params
 * are typed `P & NotOptions`, so that tool options which do not type-check as options (a wrong
 * structuredContent, a misspelled key) are not taken for a map of parameters instead.
 */
export interface NotOptions {
  readonly inputSchema?: never;
  readonly outputSchema?: never;
  readonly jsonSchema?: never;
  readonly annotations?: never;
  readonly _meta?: never;
  readonly validator?: never;
  readonly taskSupport?: never;
  readonly beforeTask?: never;
}

// The JSON Schema keywords that make an object a JSON Schema rather than a map of parameters (params-map.ts, SUBSCHEMA_KEYWORDS).
type SubschemaKeyword =
  | "properties"
  | "patternProperties"
  | "additionalProperties"
  | "unevaluatedProperties"
  | "propertyNames"
  | "dependentSchemas"
  | "$defs"
  | "definitions"
  | "items"
  | "prefixItems"
  | "contains"
  | "not"
  | "if"
  | "then"
  | "else"
  | "allOf"
  | "anyOf"
  | "oneOf";

/** True for a map of parameter schemas as params-map.ts reads one (`{}` reads as a map too, but types as an open object). */
type IsParamsMap<S> = S extends StandardSchemaV1
  ? false
  : S extends { readonly type: string | readonly unknown[] }
    ? false
    : [keyof S & SubschemaKeyword] extends [never]
      ? [keyof S] extends [never]
        ? false
        : S[keyof S] extends object
          ? true
          : false
      : false;

type OutputOf<X> = X extends StandardSchemaV1 ? StandardOutput<X> : unknown;
type InputOf<X> = X extends StandardSchemaV1 ? StandardInput<X> : unknown;

// A zod raw shape as z.object(shape) types it: a member whose type admits undefined is optional.
type ShapeOf<S, Read extends "in" | "out"> = Flatten<
  {
    -readonly [K in keyof S as undefined extends (Read extends "out" ? OutputOf<S[K]> : InputOf<S[K]>) ? never : K]: Read extends "out"
      ? OutputOf<S[K]>
      : InputOf<S[K]>;
  } & {
    -readonly [K in keyof S as undefined extends (Read extends "out" ? OutputOf<S[K]> : InputOf<S[K]>) ? K : never]?: Read extends "out"
      ? OutputOf<S[K]>
      : InputOf<S[K]>;
  }
>;

// A map of JSON Schemas: a handler's args have every member (required, or filled in from its default);
// a structuredContent may leave out a member with a default (nothing fills it in there).
type JsonMapArgs<S> = { -readonly [K in keyof S]: InferJsonSchema<S[K]> };
type JsonMapStructured<S> = Flatten<
  { -readonly [K in keyof S as S[K] extends { readonly default: unknown } ? never : K]: InferJsonSchema<S[K]> } & {
    -readonly [K in keyof S as S[K] extends { readonly default: unknown } ? K : never]?: InferJsonSchema<S[K]>;
  }
>;

/** The args a map of parameter schemas gives a handler. */
export type ParamsArgs<S> = S[keyof S] extends StandardSchemaV1 ? ShapeOf<S, "out"> : JsonMapArgs<S>;

/** The output type a Standard Schema validates to (what a handler receives after defaults and transforms). */
export type StandardOutput<S extends StandardSchemaV1> =
  NonNullable<S["~standard"]["types"]> extends { readonly output: infer O } ? O : unknown;

/** The input type a Standard Schema accepts (what a handler must produce for an outputSchema). */
export type StandardInput<S extends StandardSchemaV1> =
  NonNullable<S["~standard"]["types"]> extends { readonly input: infer I } ? I : unknown;

/**
 * A tool's `args`: the output type of its Standard Schema (the inputSchema, or a Standard Schema
 * given as `validator`), the JSON Schema's inferred type, the members of a map of parameter
 * schemas, or Record<string, unknown> when nothing is known.
 */
export type ToolArgs<S, V = undefined> = [V] extends [StandardSchemaV1]
  ? ObjectOr<StandardOutput<V>>
  : [S] extends [undefined]
    ? Record<string, unknown>
    : S extends StandardSchemaV1
      ? ObjectOr<StandardOutput<S>>
      : IsParamsMap<S> extends true
        ? ObjectOr<ParamsArgs<S>>
        : ObjectOr<InferJsonSchema<S>>;

/** What a handler's structuredContent must be for this outputSchema (undefined: anything, or none). */
export type ToolStructured<S> = [S] extends [undefined]
  ? CallToolResult["structuredContent"]
  : S extends StandardSchemaV1
    ? StandardInput<S>
    : IsParamsMap<S> extends true
      ? S[keyof S] extends StandardSchemaV1
        ? ShapeOf<S, "in">
        : JsonMapStructured<S>
      : ObjectOr<InferJsonSchema<S>>;

/**
 * What a tool handler returns: with an outputSchema, a result whose structuredContent has the
 * schema's type (an isError result needs none); without one, or when it may be absent (a
 * definition typed as the wide ToolDefinition), any CallToolResult.
 */
export type ToolResultFor<O> = [O] extends [undefined]
  ? CallToolResult
  : undefined extends O
    ? CallToolResult
    :
        | (Omit<CallToolResult, "structuredContent" | "isError"> & { structuredContent: ToolStructured<O>; isError?: false })
        | (CallToolResult & { isError: true });

// A root that is not an object type (unknown, a wide schema) falls back to the untyped arguments of before.
type ObjectOr<T> = unknown extends T ? Record<string, unknown> : T extends object ? T : Record<string, unknown>;

/** A prompt argument as a literal lists it (`arguments: [...] as const`). */
export interface PromptArgumentLiteral {
  readonly name: string;
  readonly required?: boolean;
  readonly [key: string]: unknown;
}

/** A prompt's `args`: from its argsSchema (a Standard Schema or a JSON Schema literal), else from its `arguments` list (required ones are strings, others possibly undefined). */
export type PromptArgs<A, S> = [S] extends [undefined]
  ? [A] extends [undefined]
    ? Record<string, string>
    : A extends readonly PromptArgumentLiteral[]
      ? string extends A[number]["name"]
        ? Record<string, string>
        : Flatten<
            { [K in Extract<A[number], { readonly required: true }>["name"]]: string } & {
              [K in Exclude<A[number], { readonly required: true }>["name"]]?: string;
            }
          >
      : Record<string, string>
  : S extends StandardSchemaV1
    ? ObjectOr<StandardOutput<S>>
    : S extends JsonSchemaLiteral
      ? ObjectOr<InferJsonSchema<S>>
      : Record<string, string>;

// ---- JSON Schema literals -----------------------------------------------------------

type Depth = [never, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
/** Nesting levels inferred; deeper schemas infer `unknown` (the type checker has its own limits). */
type MAX_DEPTH = 10;

/** The TypeScript type of the values a JSON Schema literal accepts, for the keywords people write. */
export type InferJsonSchema<S> = Infer<S, MAX_DEPTH>;

type Infer<S, D extends number> = [D] extends [never]
  ? unknown
  : S extends true
    ? unknown
    : S extends false
      ? never
      : S extends object
        ? Nullable<S, Combined<S, D>>
        : unknown;

// OpenAPI's `nullable: true` (and JSON Schema's type lists with "null", handled in ByType) admit null.
type Nullable<S, T> = S extends { readonly nullable: true } ? T | null : T;

// const and enum fix the values; anyOf/oneOf are unions of their branches; else the type keyword decides.
type Combined<S, D extends number> = S extends { readonly const: infer C }
  ? Mutable<C>
  : S extends { readonly enum: infer E extends readonly unknown[] }
    ? Mutable<E[number]>
    : S extends { readonly anyOf: infer U extends readonly unknown[] }
      ? Branches<U, D>
      : S extends { readonly oneOf: infer U extends readonly unknown[] }
        ? Branches<U, D>
        : S extends { readonly allOf: infer U extends readonly unknown[] }
          ? AllOf<U, D>
          : ByType<S, D>;

type Branches<U extends readonly unknown[], D extends number> = number extends U["length"]
  ? unknown
  : { [I in keyof U]: Infer<U[I], Depth[D]> }[number];

type AllOf<U extends readonly unknown[], D extends number> = number extends U["length"]
  ? unknown
  : Flatten<Intersect<{ [I in keyof U]: Infer<U[I], Depth[D]> }[number]>>;

type Intersect<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never;

type ByType<S, D extends number> = S extends { readonly type: infer T }
  ? T extends string
    ? string extends T
      ? unknown
      : OfType<T, S, D>
    : T extends readonly string[]
      ? string extends T[number]
        ? unknown
        : OfType<T[number], S, D>
      : unknown
  : S extends { readonly properties: object }
    ? ObjectType<S, D>
    : S extends { readonly items: unknown }
      ? ArrayType<S, D>
      : unknown;

type OfType<T extends string, S, D extends number> = T extends "string"
  ? string
  : T extends "number" | "integer"
    ? number
    : T extends "boolean"
      ? boolean
      : T extends "null"
        ? null
        : T extends "array"
          ? ArrayType<S, D>
          : T extends "object"
            ? ObjectType<S, D>
            : unknown;

type ArrayType<S, D extends number> = S extends { readonly prefixItems: infer P extends readonly unknown[] }
  ? number extends P["length"]
    ? unknown[]
    : [...{ -readonly [I in keyof P]: Infer<P[I], Depth[D]> }, ...unknown[]]
  : S extends { readonly items: infer I }
    ? Array<Infer<I, Depth[D]>>
    : unknown[];

// With properties, the listed members are what a handler reads (extra members stay out of the type, as with
// additionalProperties: false); without, additionalProperties types a record.
type ObjectType<S, D extends number> = S extends { readonly properties: infer P extends object }
  ? string extends keyof P
    ? Record<string, unknown>
    : Flatten<
        { -readonly [K in keyof P & RequiredKeys<S>]: Infer<P[K], Depth[D]> } & {
          -readonly [K in Exclude<keyof P, RequiredKeys<S>>]?: Infer<P[K], Depth[D]>;
        }
      >
  : S extends { readonly additionalProperties: infer A extends object }
    ? Record<string, Infer<A, Depth[D]>>
    : Record<string, unknown>;

// A required list typed only as string[] (not a literal) names no member for certain: all stay optional, the wider type.
type RequiredKeys<S> = S extends { readonly required: infer R extends readonly string[] }
  ? string extends R[number]
    ? never
    : R[number]
  : never;

type Mutable<T> = T extends readonly unknown[]
  ? { -readonly [K in keyof T]: Mutable<T[K]> }
  : T extends object
    ? { -readonly [K in keyof T]: Mutable<T[K]> }
    : T;

type Flatten<T> = { [K in keyof T]: T[K] } & {};
