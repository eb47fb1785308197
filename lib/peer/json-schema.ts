// A small JSON Schema validator for tool inputs and outputs (draft 2020-12 and draft-07):
// no dependency, no eval, no `new Function`.
//
// Invariants:
// - a schema is compiled once into a tree of keyword closures and cached in a WeakMap keyed
//   by the schema object (patterns are compiled then, once); schemas are treated as
//   immutable once used;
// - an unusable schema (bad keyword value, invalid pattern, unresolvable or non-local
//   $ref, a $ref cycle that never reaches a value, a $schema naming a dialect other than
//   2020-12 or draft-07, J-01) is
//   reported, never thrown: `checkSchema` describes it, `validateJsonSchema` returns it as
//   an error at path "";
// - validation never throws on any input, including non-JSON values and cyclic objects:
//   nesting is capped, deep comparisons are bounded, and any exception is turned into an
//   error;
// - at most 10 errors are collected, each with a JSON pointer path ("/a/0/b") into the value.
//
// Supported: type (incl. "integer" and lists of types), enum, const, the numeric bounds,
// multipleOf, minLength/maxLength (in code points), pattern, format ("email", "uri",
// "date", "date-time" checked loosely; others ignored), properties, required,
// additionalProperties, patternProperties, propertyNames, min/maxProperties,
// dependentRequired, dependentSchemas and draft-07 dependencies, items (schema, or the
// draft-07 array form with additionalItems), prefixItems, contains (with min/maxContains),
// min/maxItems, uniqueItems, allOf/anyOf/oneOf/not, if/then/else, boolean schemas, and local
// $ref ("#", "#/$defs/x", "#/definitions/x", any local JSON pointer). In draft-07, keywords
// beside a $ref are ignored, as that draft specifies. Other keywords (title, default,
// unevaluatedProperties, $dynamicRef, ...) are ignored.

import { describeValue } from "../errors.js";
import { codePointLength } from "./text.js";

export interface JsonSchemaError {
  /** JSON pointer into the validated value ("" for the value itself). */
  path: string;
  message: string;
}

export type JsonSchemaResult = { valid: true } | { valid: false; errors: JsonSchemaError[] };

const MAX_ERRORS = 10;
// Nested schema evaluations before giving up: deep enough for any real document, shallow
// enough that the recursion (about three stack frames per level) cannot overflow the stack.
const MAX_DEPTH = 500;

type Dialect = "2020-12" | "draft-07";

// $schema values, normalized: no trailing "#", "http:" for "https:".
const DIALECTS = new Map<string, Dialect>([
  ["http://json-schema.org/draft/2020-12/schema", "2020-12"],
  ["http://json-schema.org/draft-07/schema", "draft-07"],
]);

function normalizeDialect(uri: string): string {
  return uri.replace(/^https:/, "http:").replace(/#$/, "");
}

type Check = (value: unknown, ctx: Ctx) => boolean;

interface Node {
  /** Where the schema sits, as a URI fragment ("#/properties/a"), for schema errors. */
  readonly location: string;
  /** Set for the boolean schemas true and false. */
  readonly always: boolean | undefined;
  readonly checks: Check[];
  /** Subschemas applied to the same value ($ref, allOf, ...): a cycle among them never ends. */
  readonly sameValue: Node[];
}

const TRUE_NODE: Node = { location: "", always: true, checks: [], sameValue: [] };
const FALSE_NODE: Node = { location: "", always: false, checks: [], sameValue: [] };

/** Validation state: errors so far, the path of the value being checked, the nesting depth. */
class Ctx {
  readonly errors: JsonSchemaError[] = [];
  constructor(
    readonly max: number,
    readonly path: string[],
    public depth: number,
  ) {}

  get full(): boolean {
    return this.errors.length >= this.max;
  }

  /** A context sharing this one's path, that stops at the first error (for anyOf, not, if, ...). */
  probe(): Ctx {
    return new Ctx(1, this.path, this.depth);
  }

  report(message: string, extra?: string): false {
    if (this.errors.length < this.max) {
      let path = "";
      for (const segment of this.path) path += `/${escapePointer(segment)}`;
      if (extra !== undefined) path += `/${escapePointer(extra)}`;
      this.errors.push({ path, message });
    }
    return false;
  }
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

function run(node: Node, value: unknown, ctx: Ctx): boolean {
  if (node.always !== undefined) return node.always || ctx.report("no value is allowed here (the schema is false)");
  if (ctx.depth >= MAX_DEPTH) return ctx.report(`value nested deeper than ${MAX_DEPTH} levels`);
  ctx.depth++;
  let ok = true;
  for (const check of node.checks) {
    if (!check(value, ctx)) {
      ok = false;
      if (ctx.full) break;
    }
  }
  ctx.depth--;
  return ok;
}

/** Runs `node` on a child of the current value, at path segment `segment`. */
function runAt(node: Node, value: unknown, segment: string, ctx: Ctx): boolean {
  ctx.path.push(segment);
  const ok = run(node, value, ctx);
  ctx.path.pop();
  return ok;
}

// ---------------------------------------------------------------------------------------
// Value helpers.

type JsonRecord = Record<string, unknown>;

function isRecord(v: unknown): v is JsonRecord {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function hasOwn(o: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

/** An own member, or undefined (a member holding undefined counts as absent, as in JSON). */
function member(o: JsonRecord, key: string): unknown {
  return hasOwn(o, key) ? o[key] : undefined;
}

/** Own keys whose value is defined. */
function definedKeys(o: JsonRecord): string[] {
  return Object.keys(o).filter((k) => o[k] !== undefined);
}

function hasType(v: unknown, type: string): boolean {
  switch (type) {
    case "null":
      return v === null;
    case "boolean":
      return typeof v === "boolean";
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "integer":
      return typeof v === "number" && Number.isInteger(v);
    case "string":
      return typeof v === "string";
    case "array":
      return Array.isArray(v);
    default:
      return isRecord(v);
  }
}


/** JSON equality (1 equals 1.0, key order is irrelevant), iterative and bounded so a cyclic or very deep value cannot hang or overflow. */
function jsonEqual(a: unknown, b: unknown): boolean {
  const left: unknown[] = [a];
  const right: unknown[] = [b];
  const depth: number[] = [0];
  while (left.length > 0) {
    const x = left.pop();
    const y = right.pop();
    const d = depth.pop() as number;
    if (x === y) continue;
    if (typeof x !== "object" || typeof y !== "object" || x === null || y === null || d >= MAX_DEPTH) return false;
    const xa = Array.isArray(x);
    if (xa !== Array.isArray(y)) return false;
    if (xa) {
      const ya = y as unknown[];
      if (x.length !== ya.length) return false;
      for (let i = 0; i < x.length; i++) {
        left.push(x[i]);
        right.push(ya[i]);
        depth.push(d + 1);
      }
      continue;
    }
    const xo = x as JsonRecord;
    const yo = y as JsonRecord;
    const keys = definedKeys(xo);
    if (keys.length !== definedKeys(yo).length) return false;
    for (const key of keys) {
      if (member(yo, key) === undefined) return false;
      left.push(xo[key]);
      right.push(yo[key]);
      depth.push(d + 1);
    }
  }
  return true;
}

/**
 * A string equal for JSON-equal values (sorted keys), used to find duplicates in linear
 * time. undefined for values it cannot render (non-JSON, or nested deeper than 64): those
 * are compared with nothing, i.e. treated as unique.
 */
function canonical(v: unknown, depth: number): string | undefined {
  if (v === null) return "null";
  switch (typeof v) {
    case "boolean":
      return v ? "true" : "false";
    case "number":
      return Number.isFinite(v) ? String(v) : undefined;
    case "string":
      return JSON.stringify(v);
    case "object": {
      if (depth >= 64) return undefined;
      const parts: string[] = [];
      if (Array.isArray(v)) {
        for (const item of v) {
          const c = canonical(item, depth + 1);
          if (c === undefined) return undefined;
          parts.push(c);
        }
        return `[${parts.join(",")}]`;
      }
      const o = v as JsonRecord;
      for (const key of definedKeys(o).sort()) {
        const c = canonical(o[key], depth + 1);
        if (c === undefined) return undefined;
        parts.push(`${JSON.stringify(key)}:${c}`);
      }
      return `{${parts.join(",")}}`;
    }
    default:
      return undefined;
  }
}

/** JSON text of a schema constant for a message, shortened; never throws. */
function show(v: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(v);
  } catch {
    text = undefined;
  }
  if (text === undefined) return String(typeof v);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

// ---------------------------------------------------------------------------------------
// Formats, checked loosely. The regular expressions are linear: no nested or overlapping
// quantifiers (these run on untrusted values).

const WHITESPACE = /\s/;
const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1] as number;
  return d <= days;
}

const FORMATS: { [name: string]: (s: string) => boolean } = {
  email: (s) => {
    const at = s.indexOf("@");
    return at > 0 && at === s.lastIndexOf("@") && at < s.length - 1 && !WHITESPACE.test(s);
  },
  uri: (s) => URI_SCHEME.test(s) && !WHITESPACE.test(s),
  date: (s) => {
    const m = DATE.exec(s);
    return m !== null && validDate(Number(m[1]), Number(m[2]), Number(m[3]));
  },
  "date-time": (s) => {
    const m = DATE_TIME.exec(s);
    if (m === null || !validDate(Number(m[1]), Number(m[2]), Number(m[3]))) return false;
    if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 60) return false;
    return m[7] === undefined || (Number(m[7]) <= 23 && Number(m[8]) <= 59);
  },
};

// ---------------------------------------------------------------------------------------
// Compilation.

/** Why a schema is unusable; thrown inside the compiler only, always caught. */
class SchemaProblem extends Error {}

class Compiler {
  private readonly nodes = new Map<object, Node>();

  constructor(
    private readonly root: JsonRecord,
    private readonly dialect: Dialect,
  ) {}

  problem(location: string, message: string): never {
    throw new SchemaProblem(`at ${location || "#"}: ${message}`);
  }

  compile(schema: unknown, location: string): Node {
    if (schema === true) return TRUE_NODE;
    if (schema === false) return FALSE_NODE;
    if (!isRecord(schema)) return this.problem(location, `a schema must be an object or a boolean, got ${describeValue(schema)}`);
    const known = this.nodes.get(schema);
    if (known !== undefined) return known;
    const node: Node = { location, always: undefined, checks: [], sameValue: [] };
    this.nodes.set(schema, node);

    // Definitions are compiled even when unused, so that checkSchema reports their faults.
    for (const defs of ["$defs", "definitions"]) {
      const table = member(schema, defs);
      if (table === undefined) continue;
      if (!isRecord(table)) this.problem(location, `"${defs}" must be an object`);
      for (const key of Object.keys(table)) this.compile(table[key], `${location}/${defs}/${escapePointer(key)}`);
    }

    const ref = member(schema, "$ref");
    if (ref !== undefined) {
      const target = this.resolve(ref, `${location}/$ref`);
      node.sameValue.push(target);
      node.checks.push((v, ctx) => run(target, v, ctx));
      // Draft-07 ignores every keyword beside $ref; 2020-12 applies them too.
      if (this.dialect === "draft-07") return node;
    }
    this.compileGeneric(schema, location, node);
    this.compileNumeric(schema, location, node);
    this.compileString(schema, location, node);
    this.compileArray(schema, location, node);
    this.compileObject(schema, location, node);
    this.compileCombinators(schema, location, node);
    return node;
  }

  /** Local references only: "#" and "#/json/pointer" (percent-decoded, ~0 and ~1 unescaped). */
  private resolve(ref: unknown, location: string): Node {
    if (typeof ref !== "string") return this.problem(location, `"$ref" must be a string`);
    if (!ref.startsWith("#")) return this.problem(location, `only local references ("#/$defs/name") are supported, got ${show(ref)}`);
    let pointer: string;
    try {
      pointer = decodeURIComponent(ref.slice(1));
    } catch {
      return this.problem(location, `malformed percent-encoding in $ref ${show(ref)}`);
    }
    if (pointer !== "" && !pointer.startsWith("/")) return this.problem(location, `plain-name fragments ($anchor) are not supported, got ${show(ref)}`);
    let target: unknown = this.root;
    if (pointer !== "") {
      for (const raw of pointer.slice(1).split("/")) {
        const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
        if (Array.isArray(target) && /^(0|[1-9][0-9]*)$/.test(key) && Number(key) < target.length) target = target[Number(key)];
        else if (isRecord(target) && hasOwn(target, key)) target = target[key];
        else return this.problem(location, `$ref ${show(ref)} does not resolve`);
      }
    }
    return this.compile(target, ref);
  }

  private schemaList(schema: JsonRecord, key: string, location: string): Node[] | undefined {
    const list = member(schema, key);
    if (list === undefined) return undefined;
    if (!Array.isArray(list) || list.length === 0) return this.problem(location, `"${key}" must be a non-empty array of schemas`);
    return list.map((s, i) => this.compile(s, `${location}/${key}/${i}`));
  }

  private sub(schema: JsonRecord, key: string, location: string): Node | undefined {
    const s = member(schema, key);
    return s === undefined ? undefined : this.compile(s, `${location}/${key}`);
  }

  private count(schema: JsonRecord, key: string, location: string): number | undefined {
    const n = member(schema, key);
    if (n === undefined) return undefined;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0) return this.problem(location, `"${key}" must be a non-negative integer, got ${describeValue(n)}`);
    return n;
  }

  private bound(schema: JsonRecord, key: string, location: string): number | undefined {
    const n = member(schema, key);
    if (n === undefined) return undefined;
    if (typeof n === "boolean") return this.problem(location, `"${key}" must be a number (the draft-04 boolean form is not supported)`);
    if (typeof n !== "number" || !Number.isFinite(n)) return this.problem(location, `"${key}" must be a number, got ${describeValue(n)}`);
    return n;
  }

  private regex(source: unknown, location: string): RegExp {
    if (typeof source !== "string") return this.problem(location, `a pattern must be a string, got ${describeValue(source)}`);
    // ECMA-262 with the "u" flag is what 2020-12 expects; many schemas written for
    // draft-07 use escapes only legal without it ("\-" outside a class), hence the retry.
    try {
      return new RegExp(source, "u");
    } catch {
      try {
        return new RegExp(source);
      } catch (error) {
        return this.problem(location, `invalid regular expression ${show(source)}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  private compileGeneric(schema: JsonRecord, location: string, node: Node): void {
    const type = member(schema, "type");
    if (type !== undefined) {
      const types = typeof type === "string" ? [type] : type;
      const names = ["null", "boolean", "object", "array", "number", "string", "integer"];
      if (!Array.isArray(types) || types.length === 0 || !types.every((t) => typeof t === "string" && names.includes(t))) {
        this.problem(location, `"type" must be one of ${names.join(", ")} or a non-empty array of them, got ${show(type)}`);
      }
      const list = types as string[];
      const expected = list.join(" or ");
      node.checks.push((v, ctx) => list.some((t) => hasType(v, t)) || ctx.report(`expected ${expected}, got ${describeValue(v)}`));
    }
    const values = member(schema, "enum");
    if (values !== undefined) {
      if (!Array.isArray(values)) this.problem(location, `"enum" must be an array`);
      const list = values as unknown[];
      const expected = list.length <= 6 ? list.map(show).join(", ") : `${list.slice(0, 6).map(show).join(", ")}, … (${list.length} values)`;
      node.checks.push((v, ctx) => list.some((x) => jsonEqual(x, v)) || ctx.report(`expected one of ${expected}, got ${describeValue(v)}`));
    }
    if (hasOwn(schema, "const")) {
      const constant = schema.const;
      const expected = show(constant);
      node.checks.push((v, ctx) => jsonEqual(constant, v) || ctx.report(`expected ${expected}, got ${describeValue(v)}`));
    }
    const format = member(schema, "format");
    if (format !== undefined) {
      if (typeof format !== "string") this.problem(location, `"format" must be a string`);
      const test = Object.prototype.hasOwnProperty.call(FORMATS, format) ? FORMATS[format] : undefined;
      if (test !== undefined) {
        node.checks.push((v, ctx) => typeof v !== "string" || test(v) || ctx.report(`expected a valid ${format}, got ${describeValue(v)}`));
      }
    }
  }

  private compileNumeric(schema: JsonRecord, location: string, node: Node): void {
    const min = this.bound(schema, "minimum", location);
    const max = this.bound(schema, "maximum", location);
    const xmin = this.bound(schema, "exclusiveMinimum", location);
    const xmax = this.bound(schema, "exclusiveMaximum", location);
    const step = this.bound(schema, "multipleOf", location);
    if (step !== undefined && step <= 0) this.problem(location, `"multipleOf" must be greater than 0`);
    const add = (fails: (n: number) => boolean, text: string): void => {
      node.checks.push((v, ctx) => typeof v !== "number" || !fails(v) || ctx.report(`expected a number ${text}, got ${describeValue(v)}`));
    };
    if (min !== undefined) add((n) => n < min, `>= ${min}`);
    if (max !== undefined) add((n) => n > max, `<= ${max}`);
    if (xmin !== undefined) add((n) => n <= xmin, `> ${xmin}`);
    if (xmax !== undefined) add((n) => n >= xmax, `< ${xmax}`);
    if (step !== undefined) add((n) => !isMultiple(n, step), `that is a multiple of ${step}`);
  }

  private compileString(schema: JsonRecord, location: string, node: Node): void {
    const minLength = this.count(schema, "minLength", location);
    const maxLength = this.count(schema, "maxLength", location);
    if (minLength !== undefined) {
      node.checks.push((v, ctx) => typeof v !== "string" || codePointLength(v) >= minLength || ctx.report(`expected a string of at least ${minLength} characters, got length ${codePointLength(v)}`));
    }
    if (maxLength !== undefined) {
      node.checks.push((v, ctx) => typeof v !== "string" || codePointLength(v) <= maxLength || ctx.report(`expected a string of at most ${maxLength} characters, got length ${codePointLength(v)}`));
    }
    const pattern = member(schema, "pattern");
    if (pattern !== undefined) {
      const re = this.regex(pattern, `${location}/pattern`);
      const text = show(pattern);
      node.checks.push((v, ctx) => typeof v !== "string" || re.test(v) || ctx.report(`expected a string matching the pattern ${text}, got ${describeValue(v)}`));
    }
  }

  private compileArray(schema: JsonRecord, location: string, node: Node): void {
    let prefix = this.schemaList(schema, "prefixItems", location) ?? [];
    const items = member(schema, "items");
    let rest: Node | undefined;
    if (Array.isArray(items)) {
      // Draft-07 tuple form: items is the prefix, additionalItems the rest.
      if (hasOwn(schema, "prefixItems")) this.problem(location, `"items" as an array (draft-07) cannot be combined with "prefixItems"`);
      prefix = items.map((s, i) => this.compile(s, `${location}/items/${i}`));
      rest = this.sub(schema, "additionalItems", location);
    } else if (items !== undefined) {
      rest = this.compile(items, `${location}/items`);
    }
    if (prefix.length > 0 || rest !== undefined) {
      const tuple = prefix;
      const others = rest;
      node.checks.push((v, ctx) => {
        if (!Array.isArray(v)) return true;
        let ok = true;
        for (let i = 0; i < v.length && !ctx.full; i++) {
          const itemNode = i < tuple.length ? tuple[i] : others;
          if (itemNode === undefined) break;
          if (itemNode === FALSE_NODE && i >= tuple.length) {
            ok = ctx.report(`expected at most ${tuple.length} items, got ${v.length}`);
            break;
          }
          if (!runAt(itemNode, v[i], String(i), ctx)) ok = false;
        }
        return ok;
      });
    }
    const minItems = this.count(schema, "minItems", location);
    const maxItems = this.count(schema, "maxItems", location);
    if (minItems !== undefined) {
      node.checks.push((v, ctx) => !Array.isArray(v) || v.length >= minItems || ctx.report(`expected at least ${minItems} items, got ${v.length}`));
    }
    if (maxItems !== undefined) {
      node.checks.push((v, ctx) => !Array.isArray(v) || v.length <= maxItems || ctx.report(`expected at most ${maxItems} items, got ${v.length}`));
    }
    const unique = member(schema, "uniqueItems");
    if (unique !== undefined && typeof unique !== "boolean") this.problem(location, `"uniqueItems" must be a boolean`);
    if (unique === true) {
      node.checks.push((v, ctx) => {
        if (!Array.isArray(v)) return true;
        const seen = new Map<string, number>();
        for (let i = 0; i < v.length; i++) {
          const key = canonical(v[i], 0);
          if (key === undefined) continue;
          const earlier = seen.get(key);
          if (earlier !== undefined) return ctx.report(`expected unique items, but items ${earlier} and ${i} are equal`);
          seen.set(key, i);
        }
        return true;
      });
    }
    const contains = this.sub(schema, "contains", location);
    if (contains !== undefined) {
      const atLeast = this.count(schema, "minContains", location) ?? 1;
      const atMost = this.count(schema, "maxContains", location);
      node.checks.push((v, ctx) => {
        if (!Array.isArray(v)) return true;
        let found = 0;
        for (let i = 0; i < v.length; i++) {
          const probe = ctx.probe();
          probe.path.push(String(i));
          const ok = run(contains, v[i], probe);
          probe.path.pop();
          if (ok) found++;
        }
        if (found < atLeast) return ctx.report(`expected at least ${atLeast} item${atLeast === 1 ? "" : "s"} matching "contains", got ${found}`);
        if (atMost !== undefined && found > atMost) return ctx.report(`expected at most ${atMost} items matching "contains", got ${found}`);
        return true;
      });
    }
  }

  private compileObject(schema: JsonRecord, location: string, node: Node): void {
    const properties = new Map<string, Node>();
    const declared = member(schema, "properties");
    if (declared !== undefined) {
      if (!isRecord(declared)) this.problem(location, `"properties" must be an object`);
      for (const key of Object.keys(declared)) properties.set(key, this.compile(declared[key], `${location}/properties/${escapePointer(key)}`));
    }
    const patterns: Array<{ re: RegExp; node: Node }> = [];
    const patternTable = member(schema, "patternProperties");
    if (patternTable !== undefined) {
      if (!isRecord(patternTable)) this.problem(location, `"patternProperties" must be an object`);
      for (const key of Object.keys(patternTable)) {
        const where = `${location}/patternProperties/${escapePointer(key)}`;
        patterns.push({ re: this.regex(key, where), node: this.compile(patternTable[key], where) });
      }
    }
    const additional = this.sub(schema, "additionalProperties", location);
    if (properties.size > 0 || patterns.length > 0 || additional !== undefined) {
      node.checks.push((v, ctx) => {
        if (!isRecord(v)) return true;
        let ok = true;
        for (const [key, child] of properties) {
          const value = member(v, key);
          if (value !== undefined && !runAt(child, value, key, ctx)) {
            ok = false;
            if (ctx.full) return false;
          }
        }
        if (patterns.length === 0 && additional === undefined) return ok;
        for (const key of definedKeys(v)) {
          let matched = properties.has(key);
          for (const p of patterns) {
            if (!p.re.test(key)) continue;
            matched = true;
            if (!runAt(p.node, v[key], key, ctx)) ok = false;
          }
          if (!matched && additional !== undefined) {
            if (additional === FALSE_NODE) ok = ctx.report(`unexpected property ${show(key)}`, key);
            else if (!runAt(additional, v[key], key, ctx)) ok = false;
          }
          if (ctx.full) return false;
        }
        return ok;
      });
    }
    const required = member(schema, "required");
    if (required !== undefined) {
      if (!Array.isArray(required) || !required.every((r) => typeof r === "string")) this.problem(location, `"required" must be an array of strings`);
      const names = required as string[];
      node.checks.push((v, ctx) => {
        if (!isRecord(v)) return true;
        let ok = true;
        for (const name of names) {
          if (member(v, name) === undefined) ok = ctx.report(`required property ${show(name)} is missing`, name);
        }
        return ok;
      });
    }
    const minProperties = this.count(schema, "minProperties", location);
    const maxProperties = this.count(schema, "maxProperties", location);
    if (minProperties !== undefined || maxProperties !== undefined) {
      node.checks.push((v, ctx) => {
        if (!isRecord(v)) return true;
        const n = definedKeys(v).length;
        if (minProperties !== undefined && n < minProperties) return ctx.report(`expected at least ${minProperties} properties, got ${n}`);
        if (maxProperties !== undefined && n > maxProperties) return ctx.report(`expected at most ${maxProperties} properties, got ${n}`);
        return true;
      });
    }
    const names = this.sub(schema, "propertyNames", location);
    if (names !== undefined) {
      node.checks.push((v, ctx) => {
        if (!isRecord(v)) return true;
        let ok = true;
        for (const key of definedKeys(v)) if (!runAt(names, key, key, ctx)) ok = false;
        return ok;
      });
    }
    // dependentRequired (2020-12), dependentSchemas (2020-12), dependencies (draft-07: both).
    const requires = new Map<string, string[]>();
    const implies = new Map<string, Node>();
    for (const keyword of ["dependentRequired", "dependentSchemas", "dependencies"]) {
      const table = member(schema, keyword);
      if (table === undefined) continue;
      if (!isRecord(table)) this.problem(location, `"${keyword}" must be an object`);
      for (const key of Object.keys(table)) {
        const entry = table[key];
        const where = `${location}/${keyword}/${escapePointer(key)}`;
        if (keyword !== "dependentSchemas" && Array.isArray(entry)) {
          if (!entry.every((e) => typeof e === "string")) this.problem(where, "must be an array of property names");
          requires.set(key, entry as string[]);
        } else if (keyword !== "dependentRequired") {
          const target = this.compile(entry, where);
          implies.set(key, target);
          node.sameValue.push(target);
        } else this.problem(where, "must be an array of property names");
      }
    }
    if (requires.size > 0 || implies.size > 0) {
      node.checks.push((v, ctx) => {
        if (!isRecord(v)) return true;
        let ok = true;
        for (const [key, needed] of requires) {
          if (member(v, key) === undefined) continue;
          for (const name of needed) {
            if (member(v, name) === undefined) ok = ctx.report(`property ${show(name)} is required when ${show(key)} is present`, name);
          }
        }
        for (const [key, target] of implies) if (member(v, key) !== undefined && !run(target, v, ctx)) ok = false;
        return ok;
      });
    }
  }

  private compileCombinators(schema: JsonRecord, location: string, node: Node): void {
    const all = this.schemaList(schema, "allOf", location);
    if (all !== undefined) {
      node.sameValue.push(...all);
      node.checks.push((v, ctx) => {
        let ok = true;
        for (const s of all) {
          if (!run(s, v, ctx)) ok = false;
          if (ctx.full) break;
        }
        return ok;
      });
    }
    const alternatives = this.schemaList(schema, "anyOf", location);
    if (alternatives !== undefined) {
      node.sameValue.push(...alternatives);
      node.checks.push((v, ctx) => {
        const reasons: JsonSchemaError[] = [];
        for (const s of alternatives) {
          const probe = ctx.probe();
          if (run(s, v, probe)) return true;
          reasons.push(...probe.errors);
        }
        return ctx.report(`expected a value matching at least one schema of anyOf: ${summarize(reasons, ctx)}`);
      });
    }
    const one = this.schemaList(schema, "oneOf", location);
    if (one !== undefined) {
      node.sameValue.push(...one);
      node.checks.push((v, ctx) => {
        const reasons: JsonSchemaError[] = [];
        const matched: number[] = [];
        for (let i = 0; i < one.length && matched.length < 2; i++) {
          const probe = ctx.probe();
          if (run(one[i] as Node, v, probe)) matched.push(i);
          else reasons.push(...probe.errors);
        }
        if (matched.length === 1) return true;
        if (matched.length === 0) return ctx.report(`expected a value matching exactly one schema of oneOf, it matches none: ${summarize(reasons, ctx)}`);
        return ctx.report(`expected a value matching exactly one schema of oneOf, it matches #${matched[0]} and #${matched[1]}`);
      });
    }
    const not = this.sub(schema, "not", location);
    if (not !== undefined) {
      node.sameValue.push(not);
      node.checks.push((v, ctx) => !run(not, v, ctx.probe()) || ctx.report(`expected a value not matching the schema of "not"`));
    }
    const condition = this.sub(schema, "if", location);
    const then = this.sub(schema, "then", location);
    const otherwise = this.sub(schema, "else", location);
    if (condition !== undefined && (then !== undefined || otherwise !== undefined)) {
      node.sameValue.push(condition, ...(then !== undefined ? [then] : []), ...(otherwise !== undefined ? [otherwise] : []));
      node.checks.push((v, ctx) => {
        const branch = run(condition, v, ctx.probe()) ? then : otherwise;
        return branch === undefined || run(branch, v, ctx);
      });
    }
  }

  /** Fails when subschemas applied to the same value form a cycle ($ref loops): evaluating one would never end. */
  checkCycles(start: Node): void {
    const done = new Set<Node>();
    const onPath = new Set<Node>();
    const trail: Node[] = [];
    // Iterative depth-first search, so a long chain cannot overflow the stack.
    const stack: Array<{ node: Node; next: number }> = [{ node: start, next: 0 }];
    onPath.add(start);
    trail.push(start);
    const all = [...this.nodes.values()];
    for (let root = 0; ; ) {
      while (stack.length > 0) {
        const top = stack[stack.length - 1] as { node: Node; next: number };
        const child = top.node.sameValue[top.next++];
        if (child === undefined) {
          stack.pop();
          onPath.delete(top.node);
          trail.pop();
          done.add(top.node);
          continue;
        }
        if (done.has(child)) continue;
        if (onPath.has(child)) {
          const cycle = trail.slice(trail.indexOf(child)).concat(child).map((n) => n.location || "#");
          throw new SchemaProblem(`$ref cycle that never reaches a value: ${cycle.join(" -> ")}`);
        }
        onPath.add(child);
        trail.push(child);
        stack.push({ node: child, next: 0 });
      }
      while (root < all.length && done.has(all[root] as Node)) root++;
      if (root >= all.length) return;
      const node = all[root] as Node;
      onPath.add(node);
      trail.push(node);
      stack.push({ node, next: 0 });
    }
  }
}

function isMultiple(n: number, step: number): boolean {
  if (Number.isInteger(n) && Number.isInteger(step)) return n % step === 0;
  const q = n / step;
  if (!Number.isFinite(q)) return false;
  // Binary floating point: 0.3 / 0.1 is 2.9999999999999996.
  return Math.abs(q - Math.round(q)) <= 1e-9 * Math.max(1, Math.abs(q));
}

/** The first error of up to three failed alternatives, paths shown when deeper than the current value. */
function summarize(reasons: JsonSchemaError[], ctx: Ctx): string {
  let here = "";
  for (const segment of ctx.path) here += `/${escapePointer(segment)}`;
  const parts = reasons.slice(0, 3).map((r) => (r.path === here ? r.message : `${r.path}: ${r.message}`));
  if (reasons.length > 3) parts.push(`… (${reasons.length} alternatives failed)`);
  return parts.join("; ");
}

// ---------------------------------------------------------------------------------------
// Public API.

type Compiled = { root: Node } | { error: string };

const cache = new WeakMap<object, Compiled>();

function compileRoot(schema: unknown): Compiled {
  if (schema === true) return { root: TRUE_NODE };
  if (schema === false) return { root: FALSE_NODE };
  if (!isRecord(schema)) return { error: `a schema must be an object or a boolean, got ${describeValue(schema)}` };
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
    const compiler = new Compiler(schema, dialect);
    const root = compiler.compile(schema, "#");
    compiler.checkCycles(root);
    result = { root };
  } catch (error) {
    // A SchemaProblem, or anything a hostile object threw (getters, proxies, a schema
    // nested deep enough to exhaust the stack).
    result = { error: error instanceof Error ? error.message : String(error) };
  }
  cache.set(schema, result);
  return result;
}

/** Why `schema` cannot be used, or undefined when it can. */
export function checkSchema(schema: unknown): string | undefined {
  const compiled = compileRoot(schema);
  return "error" in compiled ? compiled.error : undefined;
}

/** Validates `value` against `schema`, collecting up to 10 errors. Never throws. */
export function validateJsonSchema(schema: unknown, value: unknown): JsonSchemaResult {
  const compiled = compileRoot(schema);
  if ("error" in compiled) return { valid: false, errors: [{ path: "", message: `invalid schema: ${compiled.error}` }] };
  const ctx = new Ctx(MAX_ERRORS, [], 0);
  try {
    run(compiled.root, value, ctx);
  } catch (error) {
    // Only reachable with non-JSON values (throwing getters, proxies).
    const message = `validation aborted: ${error instanceof Error ? error.message : String(error)}`;
    if (ctx.errors.length >= MAX_ERRORS) ctx.errors[MAX_ERRORS - 1] = { path: "", message };
    else ctx.errors.push({ path: "", message });
  }
  return ctx.errors.length === 0 ? { valid: true } : { valid: false, errors: ctx.errors };
}
