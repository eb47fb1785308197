// Value helpers of the JSON Schema validator (./validator.ts): JSON types, JSON equality,
// a canonical text for uniqueItems, multipleOf on binary floats, and short renderings for
// messages.
//
// Invariants: every function here takes any JavaScript value (cyclic, non-JSON, hostile
// objects aside, whose getters may throw; the caller catches) and terminates: comparisons
// are iterative or depth-bounded. Object members are read as own properties only, and a
// member holding undefined counts as absent, as it would in JSON text.

export type JsonRecord = Record<string, unknown>;

/** Nesting beyond which equality gives up (and answers "not equal"). */
export const MAX_COMPARE_DEPTH = 500;

export function isRecord(v: unknown): v is JsonRecord {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function hasOwn(o: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

/** An own member, or undefined. */
export function member(o: JsonRecord, key: string): unknown {
  return hasOwn(o, key) ? o[key] : undefined;
}

/** Own enumerable keys whose value is defined. */
export function definedKeys(o: JsonRecord): string[] {
  const keys = Object.keys(o);
  for (const key of keys) if (o[key] === undefined) return keys.filter((k) => o[k] !== undefined);
  return keys;
}

/** One segment of a JSON pointer: "~" is "~0", "/" is "~1". */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

export const TYPE_NAMES: readonly string[] = ["null", "boolean", "object", "array", "number", "string", "integer"];

export function hasType(v: unknown, type: string): boolean {
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
export function jsonEqual(a: unknown, b: unknown): boolean {
  const left: unknown[] = [a];
  const right: unknown[] = [b];
  const depth: number[] = [0];
  while (left.length > 0) {
    const x = left.pop();
    const y = right.pop();
    const d = depth.pop() as number;
    if (x === y) continue;
    if (typeof x !== "object" || typeof y !== "object" || x === null || y === null || d >= MAX_COMPARE_DEPTH) return false;
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
export function canonical(v: unknown, depth: number): string | undefined {
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

/**
 * Whether `n` is an integer multiple of `step` (> 0). Binary floating point makes the plain
 * remainder wrong for decimal steps (0.3 % 0.1 is 0.09999999999999998), so the quotient is
 * compared with the nearest integer, with a tolerance relative to its size.
 */
export function isMultiple(n: number, step: number): boolean {
  if (Number.isInteger(n) && Number.isInteger(step)) return n % step === 0;
  const q = n / step;
  // An overflowing quotient (1e308 / 1e-308) says nothing about divisibility: refuse.
  if (!Number.isFinite(q)) return false;
  return Math.abs(q - Math.round(q)) <= 1e-9 * Math.max(1, Math.abs(q));
}

/** JSON text of a schema constant for a message, shortened; never throws. */
export function show(v: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(v);
  } catch {
    text = undefined;
  }
  if (text === undefined) return String(typeof v);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
