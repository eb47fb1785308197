// Values that satisfy a JSON Schema, for calling a tool we know only by its inputSchema.
//
// The generator is a guesser; the validator (lib/json-schema/validator.ts) is the judge. Each
// attempt is checked against the whole schema, and the first one that validates is used:
//   1. required properties only, preferring const, enum, default and examples;
//   2. every property, the same way;
//   3. and 4. the same two without default and examples (a server's default need not
//      satisfy its own schema).
// When none validates the call is skipped: the report never sends arguments it knows the
// schema refuses. A schema our validator cannot compile gets attempt 1 unchecked.
//
// Choices, so that results are predictable:
// - a list of types (`["boolean","string"]`) takes its first type other than "null";
// - anyOf/oneOf take the first option whose value validates against that option;
// - strings start from "test" (or a sample of their format), are padded to minLength and cut
//   to maxLength; a pattern is satisfied by building a string from the pattern itself
//   (literals, classes, groups, the usual quantifiers), and when that fails the schema is
//   reported unsatisfiable;
// - numbers start from 1, are moved into [minimum, maximum] (exclusive bounds stepped over),
//   integers are whole, multipleOf is honoured;
// - arrays get minItems items (none otherwise; one when every property is filled), distinct
//   when uniqueItems says so; objects get their required (or all) properties, recursively.
// Recursion is capped (MAX_DEPTH) so a recursive $ref ends.

import type { JsonObject } from "../wire/envelope.js";
import { checkSchema as checkOwnSchema, validateJsonSchema as validateOwn, type JsonSchemaOptions } from "../json-schema/validator.js";

// Someone else's schema: a keyword this validator does not know is skipped, not a reason to skip the tool.
const FOREIGN: JsonSchemaOptions = { unknownKeywords: "ignore" };
const checkSchema = (schema: unknown): string | undefined => checkOwnSchema(schema, FOREIGN);
const validateJsonSchema = (schema: unknown, value: unknown): ReturnType<typeof validateOwn> => validateOwn(schema, value, FOREIGN);

const MAX_DEPTH = 24;

type Mode = { all: boolean; hints: boolean };

const ATTEMPTS: readonly Mode[] = [
  { all: false, hints: true },
  { all: true, hints: true },
  { all: false, hints: false },
  { all: true, hints: false },
];

/** Thrown inside the generator when a schema admits no value we can build. */
class Unsatisfiable extends Error {}

export type Synthesis = { ok: true; value: unknown; checked: boolean; note?: string } | { ok: false; why: string };

/**
 * A value valid against `schema`, or why none could be built. Never throws. With `object`
 * (tool arguments, which the protocol makes an object), a schema without a type is generated
 * as an object and any other value is refused.
 */
export function synthesize(schema: unknown, options: { object?: boolean } = {}): Synthesis {
  const seed = options.object === true && isObject(schema) && schema.type === undefined ? { ...schema, type: "object" } : schema;
  const result = synthesizeValue(schema, seed);
  if (result.ok && options.object === true && !isObject(result.value))
    return {
      ok: false,
      why: `the schema's values are not objects (J-02: inputSchema has type "object"), got ${JSON.stringify(result.value)}`,
    };
  return result;
}

function synthesizeValue(schema: unknown, seed: unknown): Synthesis {
  const problem = checkSchema(schema);
  if (problem !== undefined) {
    // Best effort: the server's schema is beyond our validator, which is no fault of the server's.
    try {
      return {
        ok: true,
        value: new Generator(schema, ATTEMPTS[0] as Mode).value(seed, 0, 0),
        checked: false,
        note: `arguments not checked: ${problem}`,
      };
    } catch (error) {
      return { ok: false, why: `${problem}; ${error instanceof Error ? error.message : String(error)}` };
    }
  }
  let last = "no attempt";
  for (const mode of ATTEMPTS) {
    let value: unknown;
    try {
      value = new Generator(schema, mode).value(seed, 0, 0);
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
      continue;
    }
    const result = validateJsonSchema(schema, value);
    if (result.valid) return { ok: true, value, checked: true };
    last = result.errors.map((e) => `${e.path || "/"}: ${e.message}`).join("; ");
  }
  return { ok: false, why: `no value satisfies the schema (${last})` };
}

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);
const has = (schema: JsonObject, key: string): boolean => Object.hasOwn(schema, key);

const FORMAT_SAMPLES = new Map<string, string>([
  ["email", "test@example.com"],
  ["idn-email", "test@example.com"],
  ["uri", "https://example.com/test"],
  ["iri", "https://example.com/test"],
  ["uri-reference", "https://example.com/test"],
  ["url", "https://example.com/test"],
  ["hostname", "example.com"],
  ["idn-hostname", "example.com"],
  ["ipv4", "127.0.0.1"],
  ["ipv6", "::1"],
  ["date", "2000-01-01"],
  ["date-time", "2025-01-01T00:00:00Z"],
  ["time", "00:00:00Z"],
  ["duration", "P1D"],
  ["uuid", "00000000-0000-4000-8000-000000000000"],
]);

class Generator {
  constructor(
    private readonly root: unknown,
    private readonly mode: Mode,
  ) {}

  /** A value for `schema`; `variant` makes sibling array items differ. */
  value(schema: unknown, depth: number, variant: number): unknown {
    if (depth > MAX_DEPTH) throw new Unsatisfiable("the schema nests deeper than the generator goes");
    if (schema === true || schema === undefined) return "test";
    if (schema === false) throw new Unsatisfiable("a false schema admits no value");
    if (!isObject(schema)) return "test";
    if (typeof schema.$ref === "string") {
      const target = this.resolve(schema.$ref);
      // draft-07 ignores siblings of $ref; 2020-12 applies both: merging covers the common case.
      const { $ref: _ignored, ...rest } = schema;
      return this.value(isObject(target) && Object.keys(rest).length > 0 ? { ...target, ...rest } : target, depth + 1, variant);
    }
    if (has(schema, "const")) return schema.const;
    if (Array.isArray(schema.enum)) {
      if (schema.enum.length === 0) throw new Unsatisfiable("an empty enum admits no value");
      return schema.enum[variant % schema.enum.length];
    }
    if (this.mode.hints && has(schema, "default") && variant === 0) return schema.default;
    if (this.mode.hints && Array.isArray(schema.examples) && schema.examples.length > 0)
      return schema.examples[variant % schema.examples.length];
    if (Array.isArray(schema.allOf)) return this.value(this.mergeAll(schema), depth + 1, variant);
    const options = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
    if (options !== undefined) return this.firstOption(schema, options, depth, variant);
    return this.typed(schema, this.typeOf(schema), depth, variant);
  }

  private resolve(ref: string): unknown {
    if (ref !== "#" && !ref.startsWith("#/")) throw new Unsatisfiable(`the non-local $ref ${JSON.stringify(ref)} is not followed`);
    let node: unknown = this.root;
    for (const raw of ref === "#" ? [] : ref.slice(2).split("/")) {
      const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      node = isObject(node) && Object.hasOwn(node, key) ? node[key] : Array.isArray(node) ? node[Number(key)] : undefined;
      if (node === undefined) throw new Unsatisfiable(`the $ref ${JSON.stringify(ref)} leads nowhere`);
    }
    return node;
  }

  /** allOf folded into one schema: properties and required unioned, the rest last-wins. */
  private mergeAll(schema: JsonObject): JsonObject {
    const { allOf, ...base } = schema;
    let merged: JsonObject = base;
    for (const part of allOf as unknown[]) {
      const sub = isObject(part) && typeof part.$ref === "string" ? this.resolve(part.$ref) : part;
      if (!isObject(sub)) continue;
      merged = {
        ...merged,
        ...sub,
        properties: { ...(isObject(merged.properties) ? merged.properties : {}), ...(isObject(sub.properties) ? sub.properties : {}) },
        required: [...(Array.isArray(merged.required) ? merged.required : []), ...(Array.isArray(sub.required) ? sub.required : [])],
      };
    }
    return merged;
  }

  /**
   * The first anyOf/oneOf option (merged with the keywords beside it) whose value validates
   * against it; for oneOf, against no other option too.
   */
  private firstOption(schema: JsonObject, options: unknown[], depth: number, variant: number): unknown {
    const { anyOf: _a, oneOf: _o, ...rest } = schema;
    const definitions = isObject(this.root) ? pick(this.root, ["$schema", "$defs", "definitions"]) : {};
    const exclusive = Array.isArray(schema.oneOf) && !Array.isArray(schema.anyOf) ? { ...definitions, ...schema } : undefined;
    let fallback: { value: unknown } | undefined;
    for (const option of options) {
      const merged = isObject(option) ? { ...rest, ...option } : option;
      let value: unknown;
      try {
        value = this.value(merged, depth + 1, variant);
      } catch (error) {
        if (error instanceof Unsatisfiable) continue;
        throw error;
      }
      fallback ??= { value };
      // The option alone, with the root's definitions so that its $refs resolve.
      const probe = isObject(merged) ? { ...definitions, ...merged } : merged;
      if (checkSchema(probe) !== undefined || !validateJsonSchema(probe, value).valid) continue;
      if (exclusive === undefined || checkSchema(exclusive) !== undefined || validateJsonSchema(exclusive, value).valid) return value;
    }
    if (fallback !== undefined) return fallback.value;
    throw new Unsatisfiable("no anyOf/oneOf option could be satisfied");
  }

  private typeOf(schema: JsonObject): string {
    const type = schema.type;
    if (typeof type === "string") return type;
    if (Array.isArray(type)) return (type.find((t) => t !== "null") as string | undefined) ?? (type.length > 0 ? "null" : "string");
    if (has(schema, "properties") || has(schema, "required") || has(schema, "additionalProperties") || has(schema, "minProperties"))
      return "object";
    if (has(schema, "items") || has(schema, "prefixItems") || has(schema, "minItems")) return "array";
    if (
      has(schema, "minimum") ||
      has(schema, "maximum") ||
      has(schema, "exclusiveMinimum") ||
      has(schema, "exclusiveMaximum") ||
      has(schema, "multipleOf")
    )
      return "number";
    return "string";
  }

  private typed(schema: JsonObject, type: string, depth: number, variant: number): unknown {
    switch (type) {
      case "null":
        return null;
      case "boolean":
        return variant % 2 === 0;
      case "integer":
      case "number":
        return numberFor(schema, type === "integer", variant);
      case "array":
        return this.array(schema, depth, variant);
      case "object":
        return this.object(schema, depth, variant);
      default:
        return stringFor(schema, variant);
    }
  }

  private array(schema: JsonObject, depth: number, variant: number): unknown[] {
    const min = typeof schema.minItems === "number" ? Math.ceil(schema.minItems) : 0;
    const max = typeof schema.maxItems === "number" ? Math.floor(schema.maxItems) : Infinity;
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : [];
    const count = Math.min(Math.max(min, this.mode.all ? Math.max(1, prefix.length) : 0), max);
    const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
    const out: unknown[] = [];
    for (let i = 0; i < count; i++) out.push(this.value(i < prefix.length ? prefix[i] : rest, depth + 1, variant + i));
    if (isObject(schema.contains) && out.length === 0) out.push(this.value(schema.contains, depth + 1, variant));
    return out;
  }

  private object(schema: JsonObject, depth: number, variant: number): JsonObject {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required) ? schema.required.filter((k): k is string => typeof k === "string") : [];
    const keys = this.mode.all ? [...new Set([...required, ...Object.keys(properties)])] : [...new Set(required)];
    const min = typeof schema.minProperties === "number" ? schema.minProperties : 0;
    for (const key of Object.keys(properties)) if (keys.length < min && !keys.includes(key)) keys.push(key);
    for (let i = 0; keys.length < min; i++) keys.push(`key${i}`);
    const out: JsonObject = {};
    for (const key of keys) {
      const sub = Object.hasOwn(properties, key)
        ? properties[key]
        : isObject(schema.additionalProperties)
          ? schema.additionalProperties
          : undefined;
      // Defined, not assigned: property names come from the server ("__proto__" stays a key).
      Object.defineProperty(out, key, { value: this.value(sub, depth + 1, variant), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
}

function pick(object: JsonObject, keys: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const key of keys) if (Object.hasOwn(object, key)) out[key] = object[key];
  return out;
}

function numberFor(schema: JsonObject, integer: boolean, variant: number): number {
  const step = typeof schema.multipleOf === "number" && schema.multipleOf > 0 ? schema.multipleOf : integer ? 1 : undefined;
  let low = typeof schema.minimum === "number" ? schema.minimum : -Infinity;
  let high = typeof schema.maximum === "number" ? schema.maximum : Infinity;
  // exclusiveMinimum is a number in 2020-12 and draft-06+, a boolean modifier in draft-04.
  if (typeof schema.exclusiveMinimum === "number")
    low = Math.max(low, schema.exclusiveMinimum + (step ?? Math.max(Math.abs(schema.exclusiveMinimum) * 1e-9, 1e-9)));
  else if (schema.exclusiveMinimum === true && Number.isFinite(low)) low += step ?? 1e-9;
  if (typeof schema.exclusiveMaximum === "number")
    high = Math.min(high, schema.exclusiveMaximum - (step ?? Math.max(Math.abs(schema.exclusiveMaximum) * 1e-9, 1e-9)));
  else if (schema.exclusiveMaximum === true && Number.isFinite(high)) high -= step ?? 1e-9;
  let n = 1 + variant;
  if (n < low) n = low + variant;
  if (n > high) n = Number.isFinite(low) ? low : high;
  if (step !== undefined) {
    n = Math.ceil(n / step) * step;
    if (n > high) n = Math.floor(high / step) * step;
    if (integer && !Number.isInteger(n)) n = Math.ceil(n);
  }
  if (n < low || n > high)
    throw new Unsatisfiable(
      `no ${integer ? "integer" : "number"} lies in [${low}, ${high}]${step !== undefined ? ` as a multiple of ${step}` : ""}`,
    );
  return n;
}

function stringFor(schema: JsonObject, variant: number): string {
  const format = typeof schema.format === "string" ? FORMAT_SAMPLES.get(schema.format) : undefined;
  let text = format ?? (variant === 0 ? "test" : `test${variant}`);
  if (typeof schema.pattern === "string") {
    const built = fromPattern(schema.pattern, variant);
    if (built === undefined) throw new Unsatisfiable(`cannot build a string matching the pattern ${JSON.stringify(schema.pattern)}`);
    if (!matches(schema.pattern, text)) text = built;
  }
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : Infinity;
  const chars = [...text];
  while (chars.length < min) chars.push(chars[chars.length - 1] ?? "x");
  if (chars.length > max) chars.length = Math.max(0, Math.floor(max));
  text = chars.join("");
  if (typeof schema.pattern === "string" && !matches(schema.pattern, text))
    throw new Unsatisfiable(`no string of length [${min}, ${max}] matching ${JSON.stringify(schema.pattern)} was found`);
  return text;
}

function matches(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern, "u").test(text);
  } catch {
    return false;
  }
}

/**
 * A string built from a regular expression: each atom once (or its minimum count, at least
 * one for `+`), the first alternative of each group, the first character of each class.
 * Undefined when the pattern uses what this does not read (lookarounds, backreferences) or
 * the result does not match.
 */
export function fromPattern(pattern: string, variant = 0): string | undefined {
  let at = 0;
  const atom = (): string | undefined => {
    const c = pattern[at++] as string;
    if (c === "\\") {
      const e = pattern[at++];
      if (e === undefined) return undefined;
      if (e === "d") return String(variant % 10);
      if (e === "w") return "a";
      if (e === "s") return " ";
      if (/[DWS]/.test(e)) return "-";
      if (/[0-9bBk]/.test(e)) return undefined;
      if (e === "n") return "\n";
      if (e === "t") return "\t";
      return e;
    }
    if (c === "[") {
      const negated = pattern[at] === "^";
      if (negated) at++;
      let first: string | undefined;
      while (at < pattern.length && pattern[at] !== "]") {
        let ch = pattern[at++] as string;
        if (ch === "\\") {
          const e = pattern[at++] ?? "";
          ch = e === "d" ? "0" : e === "w" ? "a" : e === "s" ? " " : e;
        }
        first ??= ch;
      }
      at++;
      if (negated) return first === "a" ? "b" : "a";
      return first;
    }
    if (c === "(") {
      if (pattern[at] === "?") {
        if (pattern[at + 1] !== ":") return undefined;
        at += 2;
      }
      const inner = sequence(")");
      at++;
      return inner;
    }
    if (c === ".") return "a";
    return c;
  };
  const sequence = (end: string | undefined): string | undefined => {
    let out = "";
    while (at < pattern.length && pattern[at] !== end) {
      const c = pattern[at];
      if (c === "|") {
        // The first alternative wins: skip the others at this level.
        let nesting = 0;
        while (at < pattern.length && !(nesting === 0 && pattern[at] === end)) {
          if (pattern[at] === "\\") at++;
          else if (pattern[at] === "(") nesting++;
          else if (pattern[at] === ")") nesting--;
          at++;
        }
        break;
      }
      if (c === "^" || c === "$") {
        at++;
        continue;
      }
      const piece = atom();
      if (piece === undefined) return undefined;
      let count = 1;
      const q = pattern[at];
      if (q === "?" || q === "*") {
        count = 0;
        at++;
      } else if (q === "+") at++;
      else if (q === "{") {
        const m = /^\{(\d+)(,\d*)?\}/.exec(pattern.slice(at));
        if (m !== null) {
          count = Number(m[1]);
          at += m[0].length;
        }
      }
      if (pattern[at] === "?") at++;
      out += piece.repeat(count);
    }
    return out;
  };
  try {
    const built = sequence(undefined);
    return built !== undefined && matches(pattern, built) ? built : undefined;
  } catch {
    return undefined;
  }
}
