// The matching language of the HTTP fixtures (fixtures/FORMAT.md, "HTTP cases", "Patterns"): a JSON
// value compared with a pattern that may hold wildcards, alternatives and captures, and the
// substitution of captured values into the next request. Pure: no I/O, no clock.
//
// Invariants: matching never throws on any input; a failed match names the path of the first
// difference with what was expected and what arrived; a capture is recorded only when the
// whole match succeeds (a failed alternative leaves no capture behind).

/** Captured values by name; `version` is always set to the version being run. */
export type Captures = Map<string, unknown>;

const PLACEHOLDER = /\$\{([A-Za-z][A-Za-z0-9_-]*)(\?)?\}/g;
const WHOLE = /^\$\{([A-Za-z][A-Za-z0-9_-]*)(\?)?\}$/;

/** A `${name}` that names no capture: the case cannot go on (the target lacks what set it). */
export class MissingCapture extends Error {
  constructor(readonly capture: string) {
    super(`no value captured for \${${capture}}`);
  }
}

/**
 * `value` with every `${name}` replaced by its capture. A string that is exactly one
 * placeholder takes the captured value itself (any JSON type); inside a longer string the
 * value is written as text. `${name?}` alone is `undefined` when nothing was captured (a
 * header or member left out); `${name}` without a capture throws MissingCapture.
 */
export function substitute(value: unknown, captures: Captures): unknown {
  if (typeof value === "string") {
    const whole = WHOLE.exec(value);
    if (whole !== null) {
      const name = whole[1] as string;
      if (captures.has(name)) return captures.get(name);
      if (whole[2] === "?") return undefined;
      throw new MissingCapture(name);
    }
    return value.replace(PLACEHOLDER, (_all, name: string) => {
      if (!captures.has(name)) throw new MissingCapture(name);
      const got = captures.get(name);
      return typeof got === "string" ? got : JSON.stringify(got);
    });
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, captures)).filter((v) => v !== undefined);
  if (isObject(value)) {
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [k, v] of Object.entries(value)) {
      const s = substitute(v, captures);
      if (s !== undefined) out[k] = s;
    }
    return out;
  }
  return value;
}

/**
 * Compares `actual` with `pattern` (placeholders already substituted); undefined when it
 * matches, else what differs. New captures go to `captures` only on success.
 */
export function matchValue(actual: unknown, pattern: unknown, captures: Captures, path = "$"): string | undefined {
  const found = new Map<string, unknown>();
  const problem = match(actual, pattern, found, path);
  if (problem === undefined) for (const [k, v] of found) captures.set(k, v);
  return problem;
}

function match(actual: unknown, pattern: unknown, found: Map<string, unknown>, path: string): string | undefined {
  if (pattern === "$any") return actual === undefined ? `${path}: expected a value, got none` : undefined;
  if (pattern === "$absent") return actual === undefined ? undefined : `${path}: expected no member, got ${show(actual)}`;
  if (pattern === "$absentOrNull")
    return actual === undefined || actual === null ? undefined : `${path}: expected no member or null, got ${show(actual)}`;
  if (isObject(pattern)) {
    const op = operator(pattern);
    if (op !== undefined) return matchOperator(op, actual, pattern, found, path);
    if (!isObject(actual)) return `${path}: expected an object, got ${show(actual)}`;
    for (const [key, sub] of Object.entries(pattern)) {
      const has = Object.hasOwn(actual, key);
      const problem = match(has ? actual[key] : undefined, sub, found, `${path}.${key}`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (Array.isArray(pattern)) {
    if (!Array.isArray(actual)) return `${path}: expected an array of ${pattern.length}, got ${show(actual)}`;
    if (actual.length !== pattern.length) return `${path}: expected ${pattern.length} elements, got ${actual.length}`;
    for (let i = 0; i < pattern.length; i++) {
      const problem = match(actual[i], pattern[i], found, `${path}[${i}]`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (actual === undefined) return `${path}: expected ${show(pattern)}, got none`;
  return Object.is(actual, pattern) || actual === pattern ? undefined : `${path}: expected ${show(pattern)}, got ${show(actual)}`;
}

const OPERATORS = ["$oneOf", "$not", "$capture", "$type", "$contains", "$regex", "$literal", "$unordered"] as const;
type Operator = (typeof OPERATORS)[number];

function operator(pattern: Record<string, unknown>): Operator | undefined {
  for (const op of OPERATORS) if (Object.hasOwn(pattern, op)) return op;
  return undefined;
}

function matchOperator(
  op: Operator,
  actual: unknown,
  pattern: Record<string, unknown>,
  found: Map<string, unknown>,
  path: string,
): string | undefined {
  const arg = pattern[op];
  switch (op) {
    case "$literal":
      return actual !== undefined && JSON.stringify(actual) === JSON.stringify(arg)
        ? undefined
        : `${path}: expected exactly ${show(arg)}, got ${show(actual)}`;
    case "$oneOf": {
      if (!Array.isArray(arg)) return `${path}: malformed pattern ($oneOf needs an array)`;
      const problems: string[] = [];
      for (const alternative of arg) {
        const trial = new Map(found);
        const problem = match(actual, alternative, trial, path);
        if (problem === undefined) {
          for (const [k, v] of trial) found.set(k, v);
          return undefined;
        }
        problems.push(problem);
      }
      return `${path}: expected one of ${arg.length} alternatives, got ${show(actual)} (${problems.join("; ")})`;
    }
    case "$not":
      // A value that is present and does not match (captures inside are dropped).
      if (actual === undefined) return `${path}: expected a value, got none`;
      return match(actual, arg, new Map(found), path) === undefined
        ? `${path}: expected anything but ${show(arg)}, got ${show(actual)}`
        : undefined;
    case "$capture": {
      if (typeof arg !== "string") return `${path}: malformed pattern ($capture needs a name)`;
      const inner = Object.hasOwn(pattern, "$match") ? pattern.$match : "$any";
      const problem = match(actual, inner, found, path);
      if (problem === undefined) found.set(arg, actual);
      return problem;
    }
    case "$type":
      return typeOf(actual) === arg || (arg === "number" && typeOf(actual) === "integer")
        ? undefined
        : `${path}: expected ${String(arg)}, got ${show(actual)}`;
    case "$contains": {
      if (!Array.isArray(actual)) return `${path}: expected an array containing ${show(arg)}, got ${show(actual)}`;
      for (const element of actual) {
        const trial = new Map(found);
        if (match(element, arg, trial, path) === undefined) {
          for (const [k, v] of trial) found.set(k, v);
          return undefined;
        }
      }
      return `${path}: expected an element matching ${show(arg)}, got ${show(actual)}`;
    }
    case "$regex": {
      if (typeof actual !== "string") return `${path}: expected a string matching /${String(arg)}/, got ${show(actual)}`;
      const re = compile(arg);
      if (re === undefined) return `${path}: malformed pattern (bad $regex)`;
      return re.test(actual) ? undefined : `${path}: expected a string matching /${String(arg)}/, got ${show(actual)}`;
    }
    case "$unordered":
      return matchUnordered(actual, arg, found, path);
  }
}

/** An array holding, in any order, one element per pattern (each element used once). */
function matchUnordered(actual: unknown, patterns: unknown, found: Map<string, unknown>, path: string): string | undefined {
  if (!Array.isArray(patterns)) return `${path}: malformed pattern ($unordered needs an array)`;
  if (!Array.isArray(actual)) return `${path}: expected an array of ${patterns.length} in any order, got ${show(actual)}`;
  if (actual.length !== patterns.length) return `${path}: expected ${patterns.length} elements in any order, got ${actual.length}`;
  const used = new Set<number>();
  for (const p of patterns) {
    let hit = -1;
    for (let i = 0; i < actual.length && hit < 0; i++) {
      if (used.has(i)) continue;
      const trial = new Map(found);
      if (match(actual[i], p, trial, path) === undefined) {
        hit = i;
        for (const [k, v] of trial) found.set(k, v);
      }
    }
    if (hit < 0) return `${path}: no element matches ${show(p)} (got ${show(actual)})`;
    used.add(hit);
  }
  return undefined;
}

/** A fixture's regular expression; undefined when it does not compile. */
export function compile(source: unknown): RegExp | undefined {
  if (typeof source !== "string") return undefined;
  try {
    return new RegExp(source);
  } catch {
    return undefined;
  }
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value shown in a reason, cut short. */
export function show(value: unknown): string {
  if (value === undefined) return "none";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
