// A tiny structural validator for MCP params and results: combinators built once at module
// load, no eval, no `new Function`, no dependency.
//
// A Check returns undefined for a valid value, or the first Issue found. Paths are built
// only on failure, while the failure unwinds (each level prepends its own segment), so a
// valid message allocates nothing.
//
// Forward compatibility rules (a newer peer must never break an older one):
// - unknown members are accepted at every depth and left untouched;
// - tagged unions (content blocks) accept unknown tags;
// - enums are open unless declared closed (`closedEnum`), for the few places where the
//   specification demands refusal of unknown values (e.g. logging levels, O-04).

import { describeValue } from "../wire/errors.js";
import { isJsonObject, isRequestId, type JsonObject } from "../wire/envelope.js";

export interface Issue {
  /** JSON path from the validated root, e.g. "params.messages[0].content.text". */
  path: string;
  expected: string;
  got: string;
}

export type Check = (value: unknown) => Issue | undefined;

function issue(expected: string, value: unknown): Issue {
  return { path: "", expected, got: describeValue(value) };
}

function prefix(found: Issue, segment: string): Issue {
  found.path = found.path === "" ? segment : found.path.startsWith("[") ? segment + found.path : `${segment}.${found.path}`;
  return found;
}

export const anyValue: Check = () => undefined;

export const str: Check = (v) => (typeof v === "string" ? undefined : issue("a string", v));

export const num: Check = (v) => (typeof v === "number" && Number.isFinite(v) ? undefined : issue("a number", v));

export const int: Check = (v) => (typeof v === "number" && Number.isInteger(v) ? undefined : issue("an integer", v));

export const bool: Check = (v) => (typeof v === "boolean" ? undefined : issue("a boolean", v));

/** A string or an integer (request ids, progress tokens). */
export const idLike: Check = (v) => (isRequestId(v) ? undefined : issue("a string or an integer", v));

/** Any JSON object, members unchecked. */
export const anyObject: Check = (v) => (isJsonObject(v) ? undefined : issue("an object", v));

export function literal(value: string | number | boolean): Check {
  const expected = JSON.stringify(value);
  return (v) => (v === value ? undefined : issue(expected, v));
}

/** A string drawn from a fixed list; anything else is refused. */
export function closedEnum(values: readonly string[]): Check {
  const expected = `one of ${values.map((x) => JSON.stringify(x)).join(", ")}`;
  return (v) => (typeof v === "string" && values.includes(v) ? undefined : issue(expected, v));
}

export function range(check: Check, min: number | undefined, max: number | undefined): Check {
  const expected = `a number${min !== undefined ? ` >= ${min}` : ""}${max !== undefined ? ` <= ${max}` : ""}`;
  return (v) =>
    check(v) ?? ((min !== undefined && (v as number) < min) || (max !== undefined && (v as number) > max) ? issue(expected, v) : undefined);
}

export function arrayOf(item: Check, maxItems?: number): Check {
  return (v) => {
    if (!Array.isArray(v)) return issue("an array", v);
    if (maxItems !== undefined && v.length > maxItems) return issue(`an array of at most ${maxItems} items`, v);
    for (let i = 0; i < v.length; i++) {
      const found = item(v[i]);
      if (found !== undefined) return prefix(found, `[${i}]`);
    }
    return undefined;
  };
}

/** An object whose every member value passes `value` (maps such as prompt arguments). */
export function recordOf(value: Check): Check {
  return (v) => {
    if (!isJsonObject(v)) return issue("an object", v);
    for (const key of Object.keys(v)) {
      const found = value(v[key]);
      if (found !== undefined) return prefix(found, key);
    }
    return undefined;
  };
}

export interface Shape {
  [key: string]: Check;
}

/**
 * An object with the given members. Keys listed in `required` must be present; every
 * present listed member is checked; unknown members are accepted and left untouched.
 */
export function object(shape: Shape, required: readonly string[] = []): Check {
  const keys = Object.keys(shape);
  return (v) => {
    if (!isJsonObject(v)) return issue("an object", v);
    for (const key of required) {
      if (v[key] === undefined) return prefix(issue(`a required member`, undefined), key);
    }
    for (const key of keys) {
      const member = v[key];
      if (member === undefined) continue;
      const found = (shape[key] as Check)(member);
      if (found !== undefined) return prefix(found, key);
    }
    return undefined;
  };
}

/** The first alternative that passes; on failure, the issue of the alternative named by `describe`. */
export function anyOf(alternatives: readonly Check[], describe: string): Check {
  return (v) => {
    for (const alt of alternatives) if (alt(v) === undefined) return undefined;
    return issue(describe, v);
  };
}

/** A union tagged by a string member. Unknown tags pass untouched (forward compatibility). */
export function tagged(tag: string, variants: { [name: string]: Check }): Check {
  return (v) => {
    if (!isJsonObject(v)) return issue("an object", v);
    const name = v[tag];
    if (typeof name !== "string") return prefix(issue("a string", name), tag);
    const variant = Object.prototype.hasOwnProperty.call(variants, name) ? variants[name] : undefined;
    return variant === undefined ? undefined : variant(v);
  };
}

/** Validates a params or result object, reporting paths from `root` ("params" or "result"). */
export function validate(check: Check, value: JsonObject | undefined, root: string): Issue | undefined {
  const found = check(value ?? {});
  return found === undefined ? undefined : prefix(found, root);
}
