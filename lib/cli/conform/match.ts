// The matching language of the fixture corpus (fixtures/FORMAT.md, "Matching"): one function
// that compares an expectation with what arrived, shared by the engine's own replayer
// (in spec-tests/) and the black-box runner (`mcp-engine conform`), so both read the
// corpus the same way.
//
// Invariants: never throws on any input; peer-supplied keys are read with Object.hasOwn only;
// a mismatch is reported as a path into the value and what was expected versus what arrived.
// Captures are recorded in the caller's Map (never a plain object).

/** Values bound while a case runs: `$capture` names, and the `$serverInfo` / `$capabilities` identity. */
export type Bindings = Map<string, unknown>;

/** The member that opens an object expectation to members it does not name (`"$open": true`). */
const OPEN = "$open";

const TYPES = new Set(["string", "number", "integer", "object", "array", "boolean", "null"]);

function typeOf(value: unknown): string {
  return Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
}

const show = (value: unknown): string => (value === undefined ? "nothing" : JSON.stringify(value));

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The single key of an operator object (`{"$oneOf": [...]}`), or undefined for a plain object. */
function operator(expected: Record<string, unknown>): string | undefined {
  const keys = Object.keys(expected);
  if (keys.length !== 1) return undefined;
  const key = keys[0] as string;
  return key === "$oneOf" || key === "$unordered" || key === "$capture" || key === "$ref" || key === "$if-present" ? key : undefined;
}

/** String matchers: `$any`, `$absent`, `$nullish`, `$type:T`, `$serverInfo`, `$capabilities`. */
function stringMatcher(expected: string, actual: unknown, present: boolean, bindings: Bindings): string | undefined | null {
  if (expected === "$any") return present ? undefined : "expected a value, got nothing";
  if (expected === "$absent") return present ? `expected absent, got ${show(actual)}` : undefined;
  if (expected === "$nullish") return !present || actual === null ? undefined : `expected absent or null, got ${show(actual)}`;
  if (expected.startsWith("$type:") && TYPES.has(expected.slice(6))) {
    const type = expected.slice(6);
    const ok = present && (type === "integer" ? Number.isInteger(actual) : typeOf(actual) === type);
    return ok ? undefined : `expected ${type}, got ${show(actual)}`;
  }
  if (expected === "$serverInfo" || expected === "$capabilities") {
    const name = expected.slice(1);
    if (!present || !isRecord(actual)) return `expected ${name} as an object, got ${show(actual)}`;
    if (name === "serverInfo" && (typeof actual.name !== "string" || typeof actual.version !== "string")) {
      return `expected serverInfo with string name and version, got ${show(actual)}`;
    }
    // Bound beforehand (the engine replayer binds its configuration): must be that value; otherwise learned here.
    if (bindings.has(name)) return compare(bindings.get(name), actual, { bindings });
    bindings.set(name, actual);
    return undefined;
  }
  return null;
}

export interface CompareOptions {
  /**
   * Ignore keys of `actual` that the expectation does not list, at every depth (events). Messages
   * compare whole objects, but for an expectation object holding `"$open": true` (that one only).
   */
  readonly subset?: boolean;
  readonly bindings?: Bindings;
}

/**
 * Compares `actual` with `expected`; returns undefined on a match or a path-qualified mismatch.
 * `present` is false when the key holding `actual` is missing (as opposed to holding undefined).
 */
export function compare(expected: unknown, actual: unknown, options: CompareOptions = {}, path = "", present = true): string | undefined {
  const bindings = options.bindings ?? new Map<string, unknown>();
  const subset = options.subset === true;
  const at = path || "value";
  if (typeof expected === "string" && expected.startsWith("$")) {
    const problem = stringMatcher(expected, actual, present, bindings);
    if (problem !== null) return problem === undefined ? undefined : `${at}: ${problem}`;
  }
  if (isRecord(expected)) {
    const op = operator(expected);
    if (op !== undefined) return compareOperator(op, expected[op], actual, { subset, bindings }, at, present);
  }
  if (!present) return `${at}: expected ${show(expected)}, got nothing`;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return `${at}: expected ${show(expected)}, got ${show(actual)}`;
    for (let i = 0; i < expected.length; i++) {
      const problem = compare(expected[i], actual[i], { subset, bindings }, `${path}[${i}]`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (isRecord(expected)) {
    // `"$open": true` admits members the expectation does not name; any other value of it is a malformed expectation.
    const open = Object.hasOwn(expected, OPEN);
    if (open && expected[OPEN] !== true) return `${at}: $open needs true, got ${show(expected[OPEN])}`;
    if (!isRecord(actual)) return `${at}: expected an object, got ${show(actual)}`;
    for (const key of Object.keys(expected)) {
      if (open && key === OPEN) continue;
      const has = Object.hasOwn(actual, key);
      const problem = compare(expected[key], has ? actual[key] : undefined, { subset, bindings }, path ? `${path}.${key}` : key, has);
      if (problem !== undefined) return problem;
    }
    if (!subset && !open) {
      for (const key of Object.keys(actual)) {
        if (Object.hasOwn(expected, key)) continue;
        // Error messages and data are compared only when the expectation names them.
        if ((path === "error" || path.endsWith(".error") || path.endsWith("].error")) && (key === "message" || key === "data")) continue;
        return `${path ? path + "." : ""}${key}: unexpected ${show(actual[key])}`;
      }
    }
    return undefined;
  }
  return Object.is(expected, actual) ? undefined : `${at}: expected ${show(expected)}, got ${show(actual)}`;
}

function compareOperator(
  op: string,
  argument: unknown,
  actual: unknown,
  options: { subset: boolean; bindings: Bindings },
  at: string,
  present: boolean,
): string | undefined {
  const { bindings } = options;
  switch (op) {
    case "$oneOf": {
      if (!Array.isArray(argument) || argument.length === 0) return `${at}: $oneOf needs a non-empty array`;
      const problems: string[] = [];
      for (const alternative of argument) {
        // An alternative's captures count only if it matches.
        const trial = new Map(bindings);
        const problem = compare(alternative, actual, { ...options, bindings: trial }, at === "value" ? "" : at, present);
        if (problem === undefined) {
          for (const [k, v] of trial) bindings.set(k, v);
          return undefined;
        }
        problems.push(problem);
      }
      return `${at}: none of ${argument.length} alternatives matched (${problems.join("; ")})`;
    }
    case "$unordered": {
      if (!Array.isArray(argument)) return `${at}: $unordered needs an array`;
      if (!present || !Array.isArray(actual) || actual.length !== argument.length)
        return `${at}: expected ${argument.length} entries in any order, got ${show(actual)}`;
      return matchUnordered(argument, actual, options, at);
    }
    case "$capture": {
      if (typeof argument !== "string") return `${at}: $capture needs a name`;
      if (!present) return `${at}: expected a value to capture as ${argument}, got nothing`;
      if (bindings.has(argument)) return compare(bindings.get(argument), actual, options, at);
      bindings.set(argument, actual);
      return undefined;
    }
    case "$ref": {
      if (typeof argument !== "string" || !bindings.has(argument)) return `${at}: $ref names no captured value ${show(argument)}`;
      return compare(bindings.get(argument), actual, options, at, present);
    }
    default: {
      // $if-present: absent, or present and matching.
      if (!present) return undefined;
      return compare(argument, actual, options, at);
    }
  }
}

/** Every expected entry matches a distinct actual entry (backtracking; batches are small). */
function matchUnordered(
  expected: readonly unknown[],
  actual: readonly unknown[],
  options: { subset: boolean; bindings: Bindings },
  at: string,
): string | undefined {
  const used = new Array<boolean>(actual.length).fill(false);
  const attempt = (i: number): boolean => {
    if (i === expected.length) return true;
    for (let j = 0; j < actual.length; j++) {
      if (used[j] === true) continue;
      if (compare(expected[i], actual[j], options) !== undefined) continue;
      used[j] = true;
      if (attempt(i + 1)) return true;
      used[j] = false;
    }
    return false;
  };
  if (expected.length > 16) return `${at}: $unordered is limited to 16 entries`;
  return attempt(0) ? undefined : `${at}: expected ${show(expected)} in any order, got ${show(actual)}`;
}
