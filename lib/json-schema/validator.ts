// A JSON Schema validator for tool inputs and outputs (draft 2020-12, and draft-07 as MCP
// servers still send it): no dependency, no eval, no `new Function`. This file is the
// public face; the compiler is ./compile.ts (its applicators ./combinators.ts), identifiers
// and references ./identifiers.ts, evaluation state ./eval.ts, value helpers ./values.ts.
//
// Keywords applied: type, enum, const, minimum, maximum, exclusiveMinimum,
// exclusiveMaximum, multipleOf, minLength/maxLength (code points), pattern (ECMA-262 with
// the "u" flag), properties, patternProperties, additionalProperties, required,
// propertyNames, min/maxProperties, dependentRequired, dependentSchemas, dependencies
// (draft-07), items, prefixItems, items as an array + additionalItems (draft-07's tuple form,
// accepted in both dialects), contains, min/maxContains, min/maxItems, uniqueItems,
// unevaluatedProperties and unevaluatedItems (annotations collected through allOf, anyOf,
// oneOf, if/then/else, $ref, $dynamicRef and dependentSchemas, per 2020-12), allOf, anyOf,
// oneOf, not, if/then/else, $defs/definitions, $ref, $dynamicRef/$dynamicAnchor, $id,
// $anchor, boolean schemas. In draft-07, keywords beside a $ref are ignored, as that draft
// says. References stay inside the document: JSON pointers (percent-decoded, ~0 and ~1),
// anchors, and the $id of an embedded resource (resolved per RFC 3986); nothing is fetched.
//
// Annotations (no effect on validity): $schema, $vocabulary, $comment, title, description,
// default, examples, deprecated, readOnly, writeOnly, format (2020-12's default is
// annotation only; nothing is asserted), contentMediaType, contentEncoding, contentSchema,
// enumNames (MCP's legacy elicitation titles), and every keyword starting with "x-"
// (vendor extensions such as x-mcp-header).
//
// Any other keyword is refused (J-02): a schema the validator would apply only in part
// would let through values its author meant to refuse, so an unknown keyword ($recursiveRef,
// nullable, a typo such as "requried") makes the schema unusable, with the keyword's
// location ("at #/properties/a/foo: unsupported keyword ..."). Server.tool refuses such a
// schema at registration. Callers checking schemas they did not write (a client looking at
// a server's tools) pass { unknownKeywords: "ignore" } to skip unknown keywords instead.
//
// Invariants:
// - a schema is compiled once per option set into a graph of keyword closures and cached in
//   a WeakMap keyed by the schema object (patterns are compiled then); schemas are treated
//   as immutable once used;
// - an unusable schema (unknown keyword, bad keyword value, invalid pattern, unresolvable
//   or non-local reference, a $ref cycle that never reaches a value, a $schema naming a
//   dialect other than 2020-12 or draft-07, J-01) is reported, never thrown: `checkSchema`
//   describes it, `validateJsonSchema` returns it as an error at path "";
// - validation never throws on any input, including non-JSON values and cyclic objects:
//   compilation is iterative, evaluation depth is capped (an error, not a stack overflow),
//   deep comparisons are bounded, and any exception is turned into an error;
// - at most 10 errors are collected, each with a JSON pointer path ("/a/0/b") into the value.

import { describeValue } from "../wire/errors.js";
import { Compiler } from "./compile.js";
import { Ctx, FALSE_NODE, TRUE_NODE, run, type Node } from "./eval.js";
import { ROOT_BASE, SchemaProblem, type Dialect } from "./identifiers.js";
import { isRecord, member, show } from "./values.js";

export interface JsonSchemaError {
  /** JSON pointer into the validated value ("" for the value itself). */
  path: string;
  message: string;
}

export type JsonSchemaResult = { valid: true } | { valid: false; errors: JsonSchemaError[] };

export interface JsonSchemaOptions {
  /** "refuse" (the default): a keyword that is neither implemented nor an annotation makes the schema unusable. "ignore": it is skipped. */
  unknownKeywords?: "refuse" | "ignore";
}

const MAX_ERRORS = 10;

/** The one answer for a valid value (frozen: shared by every call). */
const VALID: JsonSchemaResult = Object.freeze({ valid: true as const });

// $schema values, normalized: no trailing "#", "http:" for "https:".
const DIALECTS = new Map<string, Dialect>([
  ["http://json-schema.org/draft/2020-12/schema", "2020-12"],
  ["http://json-schema.org/draft-07/schema", "draft-07"],
]);

function normalizeDialect(uri: string): string {
  return uri.replace(/^https:/, "http:").replace(/#$/, "");
}

type Compiled = { root: Node; dynamic: boolean } | { error: string };

const strictCache = new WeakMap<object, Compiled>();
const lenientCache = new WeakMap<object, Compiled>();

function compileSchema(schema: unknown, options: JsonSchemaOptions | undefined): Compiled {
  if (schema === true) return { root: TRUE_NODE, dynamic: false };
  if (schema === false) return { root: FALSE_NODE, dynamic: false };
  if (!isRecord(schema)) return { error: `a schema must be an object or a boolean, got ${describeValue(schema)}` };
  const unknownKeywords = options?.unknownKeywords === "ignore" ? "ignore" : "refuse";
  const cache = unknownKeywords === "ignore" ? lenientCache : strictCache;
  const cached = cache.get(schema);
  if (cached !== undefined) return cached;
  let result: Compiled;
  try {
    const declared = member(schema, "$schema");
    let dialect: Dialect = "2020-12";
    if (declared !== undefined) {
      const known = typeof declared === "string" ? DIALECTS.get(normalizeDialect(declared)) : undefined;
      if (known === undefined) {
        throw new SchemaProblem(
          `unsupported JSON Schema dialect ${show(declared)}: supported are 2020-12 ("https://json-schema.org/draft/2020-12/schema") and draft-07 ("http://json-schema.org/draft-07/schema#")`,
        );
      }
      dialect = known;
    }
    const compiler = new Compiler(schema, ROOT_BASE, { dialect, unknownKeywords });
    const root = compiler.compileRoot(schema);
    result = { root, dynamic: compiler.index.usesDynamicRef };
  } catch (error) {
    // A SchemaProblem, or anything a hostile object threw (getters, proxies).
    result = { error: error instanceof Error ? error.message : String(error) };
  }
  cache.set(schema, result);
  return result;
}

/** Why `schema` cannot be used, or undefined when it can. Never throws. */
export function checkSchema(schema: unknown, options?: JsonSchemaOptions): string | undefined {
  const compiled = compileSchema(schema, options);
  return "error" in compiled ? compiled.error : undefined;
}

/** Validates `value` against `schema`, collecting up to 10 errors. Never throws. */
export function validateJsonSchema(schema: unknown, value: unknown, options?: JsonSchemaOptions): JsonSchemaResult {
  const compiled = compileSchema(schema, options);
  if ("error" in compiled) return { valid: false, errors: [{ path: "", message: `invalid schema: ${compiled.error}` }] };
  const ctx = takeContext(compiled.dynamic);
  try {
    run(compiled.root, value, ctx);
  } catch (error) {
    // Only reachable with non-JSON values (throwing getters, proxies).
    const message = `validation aborted: ${error instanceof Error ? error.message : String(error)}`;
    if (ctx.errors.length >= MAX_ERRORS) ctx.errors[MAX_ERRORS - 1] = { path: "", message };
    else ctx.errors.push({ path: "", message });
  }
  // Giving up on depth fails the value even where it happened under "not" or inside a failed anyOf branch.
  const aborted = ctx.shared.aborted;
  if (aborted !== undefined && !ctx.errors.some((e) => e.message === aborted.message)) {
    if (ctx.errors.length >= MAX_ERRORS) ctx.errors[MAX_ERRORS - 1] = aborted;
    else ctx.errors.push(aborted);
  }
  if (ctx.errors.length > 0) return { valid: false, errors: ctx.errors };
  if (!compiled.dynamic) spare = ctx;
  return VALID;
}

/**
 * A validation's state, reused from the last valid validation (most are valid, and most tool
 * calls validate): taken out while in use, so a validation started from inside another (a
 * getter of the value, say) gets a fresh one; a context whose errors were handed out is never reused.
 */
let spare: Ctx | undefined;

function takeContext(dynamic: boolean): Ctx {
  const ctx = spare;
  if (ctx === undefined || dynamic) return new Ctx(MAX_ERRORS, [], 0, { aborted: undefined, scope: dynamic ? [] : undefined });
  spare = undefined;
  if (ctx.path.length > 0) ctx.path.length = 0;
  ctx.depth = 0;
  ctx.seen = undefined;
  return ctx;
}

/** Keywords that never refuse an object: annotations, and `$schema` (its dialect is checked when the schema is compiled). */
const OBJECT_NEUTRAL_KEYWORDS = new Set([
  "$schema",
  "$id",
  "$comment",
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
]);

/**
 * True when `schema` accepts every JSON object, as `{ type: "object" }` or `{ type: "object",
 * properties: {} }` (with annotations) do: a tool whose arguments are always an object (the
 * engine refuses any other `arguments`) then needs no validation per call. Deliberately
 * narrow: any other keyword, or a property listed, answers false. Never throws.
 */
export function acceptsEveryObject(schema: unknown): boolean {
  try {
    if (!isRecord(schema) || Object.getPrototypeOf(schema) !== Object.prototype) return false;
    let typed = false;
    for (const key of Object.keys(schema)) {
      const value: unknown = (schema as Record<string, unknown>)[key];
      if (key === "type") typed = value === "object";
      else if (key === "properties") {
        if (!isRecord(value) || Object.keys(value).length > 0) return false;
      } else if (key === "additionalProperties") {
        if (value !== true) return false;
      } else if (!OBJECT_NEUTRAL_KEYWORDS.has(key)) return false;
    }
    return typed && checkSchema(schema) === undefined;
  } catch {
    return false;
  }
}
