// Evaluation state of the JSON Schema validator (./validator.ts): compiled nodes, the
// context a validation threads through them, and the annotations that unevaluatedProperties
// and unevaluatedItems read.
//
// Invariants:
// - `run` recurses once per nested schema evaluation and gives up past MAX_DEPTH levels;
//   giving up is sticky (`Shared.aborted`), so a depth failure inside `not` or `anyOf`
//   cannot turn into a pass;
// - annotations are collected only where some schema needs them: `ctx.seen` is undefined
//   otherwise, and each keyword's recording is one test of it. A sink belongs to one value:
//   moving to a child value clears it; applicators whose subschema may fail without failing
//   the schema (anyOf, oneOf, not, if) give that subschema a fresh sink and keep it only
//   when the subschema passed, as JSON Schema 2020-12 drops the annotations of failed ones.

import { escapePointer } from "./values.js";
import type { JsonSchemaError } from "./validator.js";

/** Nested schema evaluations before giving up: deep enough for any real document, shallow enough not to exhaust the stack. */
export const MAX_DEPTH = 500;

export type Check = (value: unknown, ctx: Ctx) => boolean;

export interface Node {
  /** Where the schema sits, as a URI fragment ("#/properties/a"), for schema errors. */
  location: string;
  /** Set for the boolean schemas true and false. */
  readonly always: boolean | undefined;
  /** Keyword checks, the unevaluated* ones last. */
  readonly checks: Check[];
  /** Subschemas applied to the same value ($ref, allOf, ...): a cycle among them never ends. */
  readonly sameValue: Node[];
  /** The base URI of the schema resource it belongs to (for $dynamicRef's dynamic scope). */
  resource: string;
  /** It has unevaluatedProperties or unevaluatedItems, so it collects annotations of its own. */
  collects: boolean;
}

export function shellNode(location: string, resource: string): Node {
  return { location, always: undefined, checks: [], sameValue: [], resource, collects: false };
}

export const TRUE_NODE: Node = { location: "", always: true, checks: [], sameValue: [], resource: "", collects: false };
export const FALSE_NODE: Node = { location: "", always: false, checks: [], sameValue: [], resource: "", collects: false };

/** What the evaluations of one value have evaluated so far (JSON Schema annotations, reduced to what unevaluated* needs). */
export class Seen {
  /** Property names evaluated by properties and patternProperties. */
  props: Set<string> | undefined = undefined;
  /** Every property is evaluated (additionalProperties or unevaluatedProperties applied). */
  allProps = false;
  /** Items below this index are evaluated (prefixItems; Infinity once items applied). */
  items = 0;
  /** Indices matched by contains. */
  matched: Set<number> | undefined = undefined;

  addProp(key: string): void {
    if (this.props === undefined) this.props = new Set();
    this.props.add(key);
  }

  merge(other: Seen): void {
    if (other.allProps) this.allProps = true;
    else if (other.props !== undefined && !this.allProps) for (const key of other.props) this.addProp(key);
    if (other.items > this.items) this.items = other.items;
    if (other.matched !== undefined) {
      if (this.matched === undefined) this.matched = new Set();
      for (const i of other.matched) this.matched.add(i);
    }
  }
}

/** State shared by a validation and every probe made from it. */
export interface Shared {
  /** Why evaluation gave up (depth), once it has. */
  aborted: JsonSchemaError | undefined;
  /** The dynamic scope (base URIs of the resources entered), only for documents with $dynamicRef. */
  readonly scope: string[] | undefined;
}

/** Validation state: errors so far, the path of the value being checked, the nesting depth, the annotation sink. */
export class Ctx {
  readonly errors: JsonSchemaError[] = [];
  seen: Seen | undefined = undefined;
  constructor(
    readonly max: number,
    readonly path: string[],
    public depth: number,
    readonly shared: Shared,
  ) {}

  get full(): boolean {
    return this.errors.length >= this.max || this.shared.aborted !== undefined;
  }

  /** A context sharing this one's path, that stops at the first error (for anyOf, not, if, ...), with a sink of its own when this one collects. */
  probe(collect: boolean): Ctx {
    const probe = new Ctx(1, this.path, this.depth, this.shared);
    if (collect && this.seen !== undefined) probe.seen = new Seen();
    return probe;
  }

  pathText(extra?: string): string {
    let path = "";
    for (const segment of this.path) path += `/${escapePointer(segment)}`;
    if (extra !== undefined) path += `/${escapePointer(extra)}`;
    return path;
  }

  report(message: string, extra?: string): false {
    if (this.errors.length < this.max) this.errors.push({ path: this.pathText(extra), message });
    return false;
  }
}

export function run(node: Node, value: unknown, ctx: Ctx): boolean {
  if (node.always !== undefined) return node.always || ctx.report("no value is allowed here (the schema is false)");
  if (ctx.depth >= MAX_DEPTH) {
    const message = `value nested deeper than ${MAX_DEPTH} levels (or a schema recursing that deep)`;
    if (ctx.shared.aborted === undefined) ctx.shared.aborted = { path: ctx.pathText(), message };
    return ctx.report(message);
  }
  if (node.collects || ctx.shared.scope !== undefined) return runTracked(node, value, ctx);
  return runChecks(node, value, ctx);
}

function runChecks(node: Node, value: unknown, ctx: Ctx): boolean {
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

/** `run` for a node that collects annotations of its own, or in a document with a dynamic scope to keep. */
function runTracked(node: Node, value: unknown, ctx: Ctx): boolean {
  const scope = ctx.shared.scope;
  const entered = scope !== undefined && scope[scope.length - 1] !== node.resource;
  if (entered) scope.push(node.resource);
  const parentSeen = ctx.seen;
  if (node.collects) ctx.seen = new Seen();
  const ok = runChecks(node, value, ctx);
  if (node.collects) {
    if (parentSeen !== undefined) parentSeen.merge(ctx.seen as Seen);
    ctx.seen = parentSeen;
  }
  if (entered) scope.pop();
  return ok;
}

/** Runs `node` on a child of the current value, at path segment `segment`; the child's annotations are its own. */
export function runAt(node: Node, value: unknown, segment: string, ctx: Ctx): boolean {
  ctx.path.push(segment);
  const seen = ctx.seen;
  ctx.seen = undefined;
  const ok = run(node, value, ctx);
  ctx.seen = seen;
  ctx.path.pop();
  return ok;
}
