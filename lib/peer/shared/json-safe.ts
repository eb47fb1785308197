// JSON safety for the peer layer: what it hands the engine must be encodable, and what a peer
// sent must be shallow enough to walk and re-encode.
//
// The engine serializes its outbound queue later (takeBytes / pollOutbound), far from the
// code that produced a value: a BigInt, a cycle, a throwing getter or a value nested a few
// thousand levels deep would throw there, in the middle of a drain, and lose the answer.
// So every value from a handler, a registration or a caller is made plain here first:
// toJsonSafe returns a copy holding only JSON data (getters and toJSON run once, here), or
// says why it cannot. jsonDepthExceeds measures a peer's value without recursion, so a value
// of any depth is measured without touching the stack.
//
// Invariants: nothing here throws; a copy's keys are own data properties (a "__proto__" key
// stays a key); the copy's depth is at most maxDepth.

import { hasOwn } from "../../wire/envelope.js";

/** How deep a value the peer layer accepts from a peer or sends: objects and arrays within objects and arrays. */
export const DEFAULT_MAX_JSON_DEPTH = 256;

export type JsonSafe = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string };

/**
 * A copy of `value` with only what JSON.stringify would encode (undefined, functions and
 * symbols dropped from objects, null in arrays; non-finite numbers null; toJSON applied),
 * or why it has no JSON form: a BigInt, a cycle, nesting deeper than maxDepth, or a getter
 * or toJSON that threw.
 */
export function toJsonSafe(value: unknown, maxDepth: number = DEFAULT_MAX_JSON_DEPTH): JsonSafe {
  const copy = copyJson(value, maxDepth);
  return copy instanceof NotJson ? { ok: false, reason: copy.reason } : { ok: true, value: copy };
}

/** Why a value has no JSON form (copyJson's failure; a class of its own, so no JSON value is ever mistaken for it). */
export class NotJson {
  constructor(readonly reason: string) {}
}

/** toJsonSafe without the wrapper, for paths run on every call: the copy, or a NotJson. */
export function copyJson(value: unknown, maxDepth: number = DEFAULT_MAX_JSON_DEPTH): unknown {
  const copy = copyAt(value, "", 0, maxDepth);
  return copy === undefined ? new NotJson(`${typeof value} has no JSON form`) : copy;
}

/**
 * copyJson of an object the caller made itself (callTool's params): its members are copied in
 * place, each as the walk of the whole would copy it (same depths, same paths, toJSON given the
 * member's key), and the object is returned; or the NotJson of the first member that has no JSON form.
 */
export function copyMembers(object: Record<string, unknown>, maxDepth: number = DEFAULT_MAX_JSON_DEPTH): unknown {
  // for-in over own keys: Object.keys' order, without an array of them.
  for (const key in object) {
    if (!hasOwn(object, key)) continue;
    const copy = copyAt(object[key], key, 1, maxDepth);
    if (copy instanceof NotJson) return copy;
    if (copy === undefined) delete object[key];
    else object[key] = copy;
  }
  return object;
}

/** The copy of `value` found at `key` and `depth`, undefined when JSON drops it, or a NotJson. */
function copyAt(value: unknown, key: string, depth: number, maxDepth: number): unknown {
  try {
    // The fast walk keeps no set of ancestors: a cycle shows as nesting past maxDepth, and only
    // then does the careful walk run again to say which it is (getters run twice in that case only).
    return copyFast(value, key, depth, maxDepth);
  } catch (error) {
    if (!(error instanceof Unencodable)) return new NotJson(`reading it threw: ${describeThrown(error)}`);
    if (!error.deep) return new NotJson(error.reason);
  }
  try {
    copyValue(value, key, depth, maxDepth, new Set<object>());
    return new NotJson(`nested deeper than ${maxDepth} levels`);
  } catch (error) {
    return new NotJson(error instanceof Unencodable ? error.reason : `reading it threw: ${describeThrown(error)}`);
  }
}

class Unencodable {
  constructor(
    readonly reason: string,
    /** Past maxDepth: perhaps a cycle, which the careful walk tells apart. */
    readonly deep = false,
  ) {}
}

/** JSON's view of a value that is not an object: what it encodes to, or undefined when it is dropped. */
function primitive(value: unknown, key: string, depth: number): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "bigint":
      throw new Unencodable(`a BigInt (${String(value)}n) at ${pathOf(key, depth)} has no JSON form`);
    default:
      return undefined;
  }
}

function copyFast(input: unknown, key: string, depth: number, maxDepth: number): unknown {
  if (typeof input !== "object" || input === null) return input === null ? null : primitive(input, key, depth);
  let value: unknown = input;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") value = (value as { toJSON(key: string): unknown }).toJSON(key);
  if (typeof value !== "object" || value === null) return value === null ? null : primitive(value, key, depth);
  if (value instanceof Number || value instanceof String || value instanceof Boolean) return primitive(value.valueOf(), key, depth);
  if (depth >= maxDepth) throw new Unencodable(`nested deeper than ${maxDepth} levels`, true);
  if (Array.isArray(value)) {
    const out: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyFast(value[i], String(i), depth + 1, maxDepth) ?? null;
    return out;
  }
  const out: Record<string, unknown> = {};
  // for-in over own keys: Object.keys' order, without an array of them.
  for (const k in value) {
    if (!hasOwn(value, k)) continue;
    const v = copyFast((value as Record<string, unknown>)[k], k, depth + 1, maxDepth);
    if (v === undefined) continue;
    // An own data property even for "__proto__", which plain assignment would treat as the prototype.
    if (k === "__proto__") Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out;
}

/** The careful walk: the same copy, telling a cycle apart from deep nesting. */
function copyValue(input: unknown, key: string, depth: number, maxDepth: number, ancestors: Set<object>): unknown {
  let value = input;
  if (typeof value === "object" && value !== null && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    value = (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  if (value instanceof Number || value instanceof String || value instanceof Boolean) value = value.valueOf();
  if (value === null) return null;
  if (typeof value !== "object") return primitive(value, key, depth);
  const object = value as object;
  if (depth >= maxDepth) throw new Unencodable(`nested deeper than ${maxDepth} levels`);
  if (ancestors.has(object)) throw new Unencodable(`a cycle (an object that contains itself) at ${pathOf(key, depth)}`);
  ancestors.add(object);
  let copy: unknown;
  if (Array.isArray(object)) {
    const out: unknown[] = new Array<unknown>(object.length);
    for (let i = 0; i < object.length; i++) out[i] = copyValue(object[i], String(i), depth + 1, maxDepth, ancestors) ?? null;
    copy = out;
  } else {
    const entries: Array<[string, unknown]> = [];
    for (const k of Object.keys(object)) {
      const v = copyValue((object as Record<string, unknown>)[k], k, depth + 1, maxDepth, ancestors);
      if (v !== undefined) entries.push([k, v]);
    }
    // fromEntries defines own data properties: a "__proto__" key stays a key.
    copy = Object.fromEntries(entries);
  }
  ancestors.delete(object);
  return copy;
}

function pathOf(key: string, depth: number): string {
  return depth === 0 ? "the top level" : `key ${JSON.stringify(key)} (depth ${depth})`;
}

/**
 * True when JSON.stringify encodes `value` as it stands, so that no copy is needed: only
 * strings, finite or non-finite numbers, booleans, null, arrays and objects (what JSON drops,
 * such as undefined and functions, it drops either way), nothing with a toJSON, no boxed
 * primitive, no BigInt, nesting within maxDepth (a cycle shows as too deep). It allocates
 * nothing and reads each property once; a getter that throws makes it false. False sends the
 * caller to toJsonSafe, which copies, or says why there is no JSON form.
 */
export function encodesAsIs(value: unknown, maxDepth: number = DEFAULT_MAX_JSON_DEPTH): boolean {
  try {
    return plainJson(value, 0, maxDepth);
  } catch {
    return false;
  }
}

function plainJson(value: unknown, depth: number, maxDepth: number): boolean {
  if (typeof value !== "object" || value === null) return typeof value !== "bigint";
  if (depth >= maxDepth || typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!plainJson(value[i], depth + 1, maxDepth)) return false;
    return true;
  }
  if (value instanceof Number || value instanceof String || value instanceof Boolean) return false;
  // Inherited enumerable members are walked too (no hasOwn per key): JSON.stringify
  // skips them, so walking them can only answer false where true was right, which costs a
  // copy (toJsonSafe), never a wrong answer.
  for (const key in value) {
    if (!plainJson((value as Record<string, unknown>)[key], depth + 1, maxDepth)) return false;
  }
  return true;
}

/** True when `value` nests objects and arrays deeper than maxDepth. Iterative: any depth is measured without recursion. */
export function jsonDepthExceeds(value: unknown, maxDepth: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  // Recursion stops one level past maxDepth whatever the value's depth, so below this bound it
  // cannot exhaust the stack, and it allocates nothing; a larger bound takes the iterative walk.
  if (maxDepth <= RECURSION_BOUND) return deeperThan(value, 1, maxDepth);
  const stack: Array<{ value: object; depth: number }> = [{ value, depth: 1 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (item.depth > maxDepth) return true;
    const children: unknown[] = Array.isArray(item.value) ? item.value : Object.values(item.value);
    for (const child of children) if (typeof child === "object" && child !== null) stack.push({ value: child, depth: item.depth + 1 });
  }
  return false;
}

const RECURSION_BOUND = 1000;

function deeperThan(value: object, depth: number, maxDepth: number): boolean {
  if (depth > maxDepth) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (typeof child === "object" && child !== null && deeperThan(child, depth + 1, maxDepth)) return true;
    }
    return false;
  }
  for (const key in value) {
    if (!hasOwn(value, key)) continue;
    const child: unknown = (value as Record<string, unknown>)[key];
    if (typeof child === "object" && child !== null && deeperThan(child, depth + 1, maxDepth)) return true;
  }
  return false;
}

/** What was thrown, as text, without calling anything that could throw again. */
export function describeThrown(error: unknown): string {
  try {
    if (error instanceof Error) return typeof error.message === "string" ? error.message : "an Error";
    return typeof error === "string" ? error : "a non-Error value";
  } catch {
    return "an Error whose message could not be read";
  }
}
