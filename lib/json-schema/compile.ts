// The JSON Schema compiler (./validator.ts): turns a schema document into a graph of
// nodes, each a list of keyword closures, and checks the graph for cycles that would never
// consume a value.
//
// Invariants:
// - compilation is iterative: a subschema is a node shell filled from a work list, so
//   neither deep nesting nor long $ref chains grow the stack; each schema object is
//   compiled once (the graph may be cyclic through values: recursion via "items": {"$ref": "#"});
// - every keyword of a schema object is either implemented here, an annotation
//   (ANNOTATIONS, or any name starting with "x-"), or a schema problem naming its location
//   ("at #/properties/a/foo: unsupported keyword ..."), unless the caller asked to ignore
//   unknown keywords;
// - the unevaluated* checks come last in a node, after every keyword whose annotations they read;
// - a bad keyword value (a negative minLength, an invalid pattern, ...) is a SchemaProblem.

import { describeValue } from "../wire/errors.js";
import { codePointLength } from "../codec/code-points.js";
import { FALSE_NODE, Seen, TRUE_NODE, run, runAt, shellNode, type Check, type Node } from "./eval.js";
import { SchemaIndex, SchemaProblem, plainNameFragment, problem, type Dialect } from "./identifiers.js";
import {
  canonical,
  definedKeys,
  escapePointer,
  hasOwn,
  hasType,
  isMultiple,
  isRecord,
  jsonEqual,
  member,
  show,
  TYPE_NAMES,
  type JsonRecord,
} from "./values.js";
import { combinatorChecks } from "./combinators.js";

/** Keywords that assert or apply subschemas, all implemented below. */
const APPLIED = new Set([
  "type",
  "enum",
  "const",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "properties",
  "patternProperties",
  "additionalProperties",
  "required",
  "propertyNames",
  "minProperties",
  "maxProperties",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "items",
  "prefixItems",
  "additionalItems",
  "contains",
  "minContains",
  "maxContains",
  "minItems",
  "maxItems",
  "uniqueItems",
  "unevaluatedProperties",
  "unevaluatedItems",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "$ref",
  "$dynamicRef",
  "$defs",
  "definitions",
  "$id",
  "$anchor",
  "$dynamicAnchor",
]);

/**
 * Keywords with no effect on validity. `format` is an annotation, as in 2020-12's default
 * format-annotation vocabulary; `enumNames` is MCP's legacy elicitation enum titles.
 */
export const ANNOTATIONS = new Set([
  "$schema",
  "$vocabulary",
  "$comment",
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "format",
  "contentMediaType",
  "contentEncoding",
  "contentSchema",
  "enumNames",
]);

export interface CompileOptions {
  readonly dialect: Dialect;
  readonly unknownKeywords: "refuse" | "ignore";
}

export class Compiler {
  readonly index: SchemaIndex;
  private readonly nodes = new Map<object, Node>();
  private readonly queue: Array<[JsonRecord, Node]> = [];

  constructor(
    root: unknown,
    base: string,
    private readonly options: CompileOptions,
  ) {
    this.index = new SchemaIndex(options.dialect);
    this.index.add(root, base, "#");
  }

  /** Compiles `root` and everything it reaches; throws a SchemaProblem. */
  compileRoot(root: unknown): Node {
    const node = this.node(root, "#");
    for (let next = this.queue.pop(); next !== undefined; next = this.queue.pop()) this.fill(next[0], next[1]);
    checkCycles(node, [...this.nodes.values()]);
    return node;
  }

  /** The node of a subschema: a shell compiled later, from the work list. */
  node(schema: unknown, location: string): Node {
    if (schema === true) return TRUE_NODE;
    if (schema === false) return FALSE_NODE;
    if (!isRecord(schema)) return problem(location, `a schema must be an object or a boolean, got ${describeValue(schema)}`);
    const known = this.nodes.get(schema);
    if (known !== undefined) return known;
    const resource = this.index.baseOf.get(schema);
    if (resource === undefined) return problem(location, "internal: schema not indexed");
    const node = shellNode(this.index.locationOf.get(schema) ?? location, resource);
    this.nodes.set(schema, node);
    this.queue.push([schema, node]);
    return node;
  }

  sub(schema: JsonRecord, key: string, location: string): Node | undefined {
    const s = member(schema, key);
    return s === undefined ? undefined : this.node(s, `${location}/${key}`);
  }

  schemaList(schema: JsonRecord, key: string, location: string): Node[] | undefined {
    const list = member(schema, key);
    if (list === undefined) return undefined;
    if (!Array.isArray(list) || list.length === 0) return problem(location, `"${key}" must be a non-empty array of schemas`);
    return list.map((s, i) => this.node(s, `${location}/${key}/${i}`));
  }

  private count(schema: JsonRecord, key: string, location: string): number | undefined {
    const n = member(schema, key);
    if (n === undefined) return undefined;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0)
      return problem(location, `"${key}" must be a non-negative integer, got ${describeValue(n)}`);
    return n;
  }

  private bound(schema: JsonRecord, key: string, location: string): number | undefined {
    const n = member(schema, key);
    if (n === undefined) return undefined;
    if (typeof n === "boolean") return problem(location, `"${key}" must be a number (the draft-04 boolean form is not supported)`);
    if (typeof n !== "number" || !Number.isFinite(n)) return problem(location, `"${key}" must be a number, got ${describeValue(n)}`);
    return n;
  }

  /** ECMA-262 with the "u" flag, as 2020-12 expects; a pattern that is not valid so is refused. */
  private regex(source: unknown, location: string): RegExp {
    if (typeof source !== "string") return problem(location, `a pattern must be a string, got ${describeValue(source)}`);
    try {
      return new RegExp(source, "u");
    } catch (error) {
      return problem(
        location,
        `invalid regular expression ${show(source)} (ECMA-262, "u" flag): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  private fill(schema: JsonRecord, node: Node): void {
    const location = node.location;
    this.checkKeywords(schema, location);
    // Definitions are compiled even when unused, so that checkSchema reports their faults.
    for (const defs of ["$defs", "definitions"]) {
      const table = member(schema, defs);
      if (table === undefined) continue;
      if (!isRecord(table)) problem(location, `"${defs}" must be an object`);
      for (const key of Object.keys(table)) this.node(table[key], `${location}/${defs}/${escapePointer(key)}`);
    }
    const ref = member(schema, "$ref");
    if (ref !== undefined) {
      const target = this.index.resolve(ref, node.resource, `${location}/$ref`);
      const next = this.node(target.schema, target.location);
      node.sameValue.push(next);
      node.checks.push((v, ctx) => run(next, v, ctx));
      // Draft-07 ignores every keyword beside $ref; 2020-12 applies them too.
      if (this.options.dialect === "draft-07") return;
    }
    const dynamicRef = member(schema, "$dynamicRef");
    if (dynamicRef !== undefined) this.compileDynamicRef(dynamicRef, node);
    this.compileGeneric(schema, location, node);
    this.compileNumeric(schema, location, node);
    this.compileString(schema, location, node);
    this.compileArray(schema, location, node);
    this.compileObject(schema, location, node);
    node.checks.push(...combinatorChecks(this, schema, location, node));
    this.compileUnevaluated(schema, location, node);
  }

  /** Every keyword is implemented, an annotation, or refused with its location. */
  private checkKeywords(schema: JsonRecord, location: string): void {
    if (this.options.unknownKeywords === "ignore") return;
    for (const key of Object.keys(schema)) {
      if (APPLIED.has(key) || ANNOTATIONS.has(key) || key.startsWith("x-")) continue;
      problem(
        `${location}/${escapePointer(key)}`,
        `unsupported keyword ${show(key)}: not a JSON Schema 2020-12 keyword this validator implements, so values it should refuse would pass (vendor extensions must start with "x-")`,
      );
    }
  }

  /**
   * $dynamicRef: resolved like $ref, except that when its target carries a $dynamicAnchor of
   * the fragment's name, the outermost resource of the dynamic scope that has one wins.
   */
  private compileDynamicRef(ref: unknown, node: Node): void {
    const where = `${node.location}/$dynamicRef`;
    const target = this.index.resolve(ref, node.resource, where);
    const initial = this.node(target.schema, target.location);
    node.sameValue.push(initial);
    const name = plainNameFragment(ref as string);
    const byResource = name === undefined ? undefined : this.index.dynamicAnchors.get(name);
    if (name === undefined || byResource === undefined || !isRecord(target.schema) || member(target.schema, "$dynamicAnchor") !== name) {
      node.checks.push((v, ctx) => run(initial, v, ctx));
      return;
    }
    const candidates = new Map<string, Node>();
    for (const [uri, s] of byResource) candidates.set(uri, this.node(s, where));
    node.checks.push((v, ctx) => {
      for (const uri of ctx.shared.scope ?? []) {
        const dynamic = candidates.get(uri);
        if (dynamic !== undefined) return run(dynamic, v, ctx);
      }
      return run(initial, v, ctx);
    });
  }

  private compileGeneric(schema: JsonRecord, location: string, node: Node): void {
    const type = member(schema, "type");
    if (type !== undefined) {
      const types = typeof type === "string" ? [type] : type;
      if (!Array.isArray(types) || types.length === 0 || !types.every((t) => typeof t === "string" && TYPE_NAMES.includes(t))) {
        problem(location, `"type" must be one of ${TYPE_NAMES.join(", ")} or a non-empty array of them, got ${show(type)}`);
      }
      const list = types as string[];
      const expected = list.join(" or ");
      const only = list.length === 1 ? (list[0] as string) : undefined;
      node.checks.push(
        only !== undefined
          ? (v, ctx) => hasType(v, only) || ctx.report(`expected ${expected}, got ${describeValue(v)}`)
          : (v, ctx) => list.some((t) => hasType(v, t)) || ctx.report(`expected ${expected}, got ${describeValue(v)}`),
      );
    }
    const values = member(schema, "enum");
    if (values !== undefined) {
      if (!Array.isArray(values)) problem(location, `"enum" must be an array`);
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
    if (format !== undefined && typeof format !== "string") problem(location, `"format" must be a string`);
  }

  private compileNumeric(schema: JsonRecord, location: string, node: Node): void {
    const min = this.bound(schema, "minimum", location);
    const max = this.bound(schema, "maximum", location);
    const xmin = this.bound(schema, "exclusiveMinimum", location);
    const xmax = this.bound(schema, "exclusiveMaximum", location);
    const step = this.bound(schema, "multipleOf", location);
    if (step !== undefined && step <= 0) problem(location, `"multipleOf" must be greater than 0`);
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
      // s.length (UTF-16 units) bounds the code point count from above, so a long enough string needs no count.
      node.checks.push(
        (v, ctx) =>
          typeof v !== "string" ||
          v.length >= minLength * 2 ||
          codePointLength(v) >= minLength ||
          ctx.report(`expected a string of at least ${minLength} characters, got length ${codePointLength(v)}`),
      );
    }
    if (maxLength !== undefined) {
      node.checks.push(
        (v, ctx) =>
          typeof v !== "string" ||
          v.length <= maxLength ||
          codePointLength(v) <= maxLength ||
          ctx.report(`expected a string of at most ${maxLength} characters, got length ${codePointLength(v)}`),
      );
    }
    const pattern = member(schema, "pattern");
    if (pattern !== undefined) {
      const re = this.regex(pattern, `${location}/pattern`);
      const text = show(pattern);
      node.checks.push(
        (v, ctx) =>
          typeof v !== "string" || re.test(v) || ctx.report(`expected a string matching the pattern ${text}, got ${describeValue(v)}`),
      );
    }
  }

  private compileArray(schema: JsonRecord, location: string, node: Node): void {
    let prefix = this.schemaList(schema, "prefixItems", location) ?? [];
    const items = member(schema, "items");
    let rest: Node | undefined;
    if (Array.isArray(items)) {
      // Draft-07 tuple form (accepted in both dialects): items is the prefix, additionalItems the rest.
      if (hasOwn(schema, "prefixItems")) problem(location, `"items" as an array (draft-07) cannot be combined with "prefixItems"`);
      prefix = items.map((s, i) => this.node(s, `${location}/items/${i}`));
      rest = this.sub(schema, "additionalItems", location);
    } else if (items !== undefined) {
      rest = this.node(items, `${location}/items`);
    }
    if (prefix.length > 0 || rest !== undefined) {
      const tuple = prefix;
      const others = rest;
      node.checks.push((v, ctx) => {
        if (!Array.isArray(v)) return true;
        if (ctx.seen !== undefined)
          ctx.seen.items = Math.max(ctx.seen.items, others !== undefined ? Number.POSITIVE_INFINITY : Math.min(v.length, tuple.length));
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
      node.checks.push(
        (v, ctx) => !Array.isArray(v) || v.length >= minItems || ctx.report(`expected at least ${minItems} items, got ${v.length}`),
      );
    }
    if (maxItems !== undefined) {
      node.checks.push(
        (v, ctx) => !Array.isArray(v) || v.length <= maxItems || ctx.report(`expected at most ${maxItems} items, got ${v.length}`),
      );
    }
    const unique = member(schema, "uniqueItems");
    if (unique !== undefined && typeof unique !== "boolean") problem(location, `"uniqueItems" must be a boolean`);
    if (unique === true) node.checks.push(uniqueCheck);
    const atLeast = this.count(schema, "minContains", location) ?? 1;
    const atMost = this.count(schema, "maxContains", location);
    const contains = this.sub(schema, "contains", location);
    if (contains !== undefined) node.checks.push(containsCheck(contains, atLeast, atMost));
  }

  private compileObject(schema: JsonRecord, location: string, node: Node): void {
    const properties = new Map<string, Node>();
    const declared = member(schema, "properties");
    if (declared !== undefined) {
      if (!isRecord(declared)) problem(location, `"properties" must be an object`);
      for (const key of Object.keys(declared))
        properties.set(key, this.node(declared[key], `${location}/properties/${escapePointer(key)}`));
    }
    const patterns: Array<{ re: RegExp; node: Node }> = [];
    const patternTable = member(schema, "patternProperties");
    if (patternTable !== undefined) {
      if (!isRecord(patternTable)) problem(location, `"patternProperties" must be an object`);
      for (const key of Object.keys(patternTable)) {
        const where = `${location}/patternProperties/${escapePointer(key)}`;
        patterns.push({ re: this.regex(key, where), node: this.node(patternTable[key], where) });
      }
    }
    const additional = this.sub(schema, "additionalProperties", location);
    if (properties.size > 0 || patterns.length > 0 || additional !== undefined)
      node.checks.push(propertiesCheck(properties, patterns, additional));
    const required = member(schema, "required");
    if (required !== undefined) {
      if (!Array.isArray(required) || !required.every((r) => typeof r === "string"))
        problem(location, `"required" must be an array of strings`);
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
    this.compileDependencies(schema, location, node);
  }

  /** dependentRequired (2020-12), dependentSchemas (2020-12), dependencies (draft-07: both). */
  private compileDependencies(schema: JsonRecord, location: string, node: Node): void {
    const requires = new Map<string, string[]>();
    const implies = new Map<string, Node>();
    for (const keyword of ["dependentRequired", "dependentSchemas", "dependencies"]) {
      const table = member(schema, keyword);
      if (table === undefined) continue;
      if (!isRecord(table)) problem(location, `"${keyword}" must be an object`);
      for (const key of Object.keys(table)) {
        const entry = table[key];
        const where = `${location}/${keyword}/${escapePointer(key)}`;
        if (keyword !== "dependentSchemas" && Array.isArray(entry)) {
          if (!entry.every((e) => typeof e === "string")) problem(where, "must be an array of property names");
          requires.set(key, entry as string[]);
        } else if (keyword !== "dependentRequired") {
          const target = this.node(entry, where);
          implies.set(key, target);
          node.sameValue.push(target);
        } else problem(where, "must be an array of property names");
      }
    }
    if (requires.size === 0 && implies.size === 0) return;
    node.checks.push((v, ctx) => {
      if (!isRecord(v)) return true;
      let ok = true;
      for (const [key, needed] of requires) {
        if (member(v, key) === undefined) continue;
        for (const name of needed) {
          if (member(v, name) === undefined) ok = ctx.report(`property ${show(name)} is required when ${show(key)} is present`, name);
        }
      }
      // In place, like allOf: annotations go to the same sink (a failure fails the schema).
      for (const [key, target] of implies) if (member(v, key) !== undefined && !run(target, v, ctx)) ok = false;
      return ok;
    });
  }

  private compileUnevaluated(schema: JsonRecord, location: string, node: Node): void {
    const props = this.sub(schema, "unevaluatedProperties", location);
    const items = this.sub(schema, "unevaluatedItems", location);
    if (props === undefined && items === undefined) return;
    node.collects = true;
    if (props !== undefined) {
      node.checks.push((v, ctx) => {
        const seen = ctx.seen as Seen;
        if (!isRecord(v) || seen.allProps) return true;
        let ok = true;
        for (const key of definedKeys(v)) {
          if (seen.props?.has(key) === true) continue;
          if (props === FALSE_NODE)
            ok = ctx.report(`unexpected property ${show(key)} (unevaluatedProperties is false: no keyword evaluated it)`, key);
          else if (!runAt(props, v[key], key, ctx)) ok = false;
          if (ctx.full) return false;
        }
        seen.allProps = true;
        return ok;
      });
    }
    if (items !== undefined) {
      node.checks.push((v, ctx) => {
        const seen = ctx.seen as Seen;
        if (!Array.isArray(v)) return true;
        let ok = true;
        for (let i = seen.items; i < v.length; i++) {
          if (seen.matched?.has(i) === true) continue;
          if (items === FALSE_NODE) ok = ctx.report(`unexpected item ${i} (unevaluatedItems is false: no keyword evaluated it)`, String(i));
          else if (!runAt(items, v[i], String(i), ctx)) ok = false;
          if (ctx.full) return false;
        }
        seen.items = Number.POSITIVE_INFINITY;
        return ok;
      });
    }
  }
}

const uniqueCheck: Check = (v, ctx) => {
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
};

function containsCheck(contains: Node, atLeast: number, atMost: number | undefined): Check {
  return (v, ctx) => {
    if (!Array.isArray(v)) return true;
    let found = 0;
    for (let i = 0; i < v.length; i++) {
      const probe = ctx.probe(false);
      probe.path.push(String(i));
      const ok = run(contains, v[i], probe);
      probe.path.pop();
      if (!ok) continue;
      found++;
      if (ctx.seen !== undefined) {
        if (ctx.seen.matched === undefined) ctx.seen.matched = new Set();
        ctx.seen.matched.add(i);
      }
    }
    if (found < atLeast)
      return ctx.report(`expected at least ${atLeast} item${atLeast === 1 ? "" : "s"} matching "contains", got ${found}`);
    if (atMost !== undefined && found > atMost) return ctx.report(`expected at most ${atMost} items matching "contains", got ${found}`);
    return true;
  };
}

function propertiesCheck(properties: Map<string, Node>, patterns: Array<{ re: RegExp; node: Node }>, additional: Node | undefined): Check {
  // Arrays walked by index: no iterator or entry pair per property at each validation.
  const names = [...properties.keys()];
  const nodes = [...properties.values()];
  return (v, ctx) => {
    if (!isRecord(v)) return true;
    const seen = ctx.seen;
    let ok = true;
    for (let i = 0; i < names.length; i++) {
      const key = names[i] as string;
      const child = nodes[i] as Node;
      const value = member(v, key);
      if (value === undefined) continue;
      seen?.addProp(key);
      if (!runAt(child, value, key, ctx)) {
        ok = false;
        if (ctx.full) return false;
      }
    }
    if (patterns.length === 0 && additional === undefined) return ok;
    if (additional !== undefined && seen !== undefined) seen.allProps = true;
    for (const key of definedKeys(v)) {
      let matched = properties.has(key);
      for (const p of patterns) {
        if (!p.re.test(key)) continue;
        matched = true;
        seen?.addProp(key);
        if (!runAt(p.node, v[key], key, ctx)) ok = false;
      }
      if (!matched && additional !== undefined) {
        if (additional === FALSE_NODE) ok = ctx.report(`unexpected property ${show(key)}`, key);
        else if (!runAt(additional, v[key], key, ctx)) ok = false;
      }
      if (ctx.full) return false;
    }
    return ok;
  };
}

/** Fails when subschemas applied to the same value form a cycle ($ref loops): evaluating one would never end. */
function checkCycles(start: Node, all: Node[]): void {
  const done = new Set<Node>();
  const onPath = new Set<Node>();
  const trail: Node[] = [];
  // Iterative depth-first search, so a long chain cannot overflow the stack.
  const stack: Array<{ node: Node; next: number }> = [];
  const enter = (node: Node): void => {
    onPath.add(node);
    trail.push(node);
    stack.push({ node, next: 0 });
  };
  enter(start);
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
        const cycle = trail
          .slice(trail.indexOf(child))
          .concat(child)
          .map((n) => n.location || "#");
        throw new SchemaProblem(`$ref cycle that never reaches a value: ${cycle.join(" -> ")}`);
      }
      enter(child);
    }
    while (root < all.length && done.has(all[root] as Node)) root++;
    if (root >= all.length) return;
    enter(all[root] as Node);
  }
}
