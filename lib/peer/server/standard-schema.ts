// Tool validators: the Standard Schema v1 interface (https://standardschema.dev), declared
// here as types only so that Zod, Valibot, ArkType, Effect Schema, ... objects are accepted
// by duck typing without a dependency; plain validator functions; and `{ jsonSchema }` for
// the JSON Schema validator of ./json-schema.ts.
//
// Invariants: `runValidator` and `checkValue` never reject and never throw. Every failure, including a
// validator that throws or returns something unexpected, becomes `{ ok: false, message }`
// with a message fit to show to the model ("/user/age: Expected number; ...").

import { validateJsonSchema } from "../../json-schema/validator.js";

/** A Standard Schema v1 object: anything with a conforming "~standard" property. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaV1Props<Input, Output>;
}

export interface StandardSchemaV1Props<Input = unknown, Output = Input> {
  readonly version: 1;
  readonly vendor: string;
  readonly validate: (value: unknown) => StandardSchemaV1Result<Output> | Promise<StandardSchemaV1Result<Output>>;
  readonly types?: StandardSchemaV1Types<Input, Output> | undefined;
}

export type StandardSchemaV1Result<Output> = StandardSchemaV1SuccessResult<Output> | StandardSchemaV1FailureResult;

export interface StandardSchemaV1SuccessResult<Output> {
  readonly value: Output;
  readonly issues?: undefined;
}

export interface StandardSchemaV1FailureResult {
  readonly issues: ReadonlyArray<StandardSchemaV1Issue>;
}

export interface StandardSchemaV1Issue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | StandardSchemaV1PathSegment> | undefined;
}

export interface StandardSchemaV1PathSegment {
  readonly key: PropertyKey;
}

/** Type-level only: lets inference read a schema's input and output types. */
export interface StandardSchemaV1Types<Input = unknown, Output = Input> {
  readonly input: Input;
  readonly output: Output;
}

/** What a validator function returns: a value on success replaces the input (coercion, defaults). */
export type ValidatorResult = { ok: true; value?: unknown } | { ok: false; message: string };

export type ToolValidator = ((value: unknown) => ValidatorResult | Promise<ValidatorResult>) | StandardSchemaV1 | { jsonSchema: object };

export type ValidationOutcome = { ok: true; value: unknown } | { ok: false; message: string };

// Messages list at most this many issues; a validator can report one per array item.
const MAX_ISSUES = 10;

/** True for a Standard Schema object. Some libraries (ArkType) make their schemas callable, so functions qualify too. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  const props: unknown = (value as { "~standard"?: unknown })["~standard"];
  return typeof props === "object" && props !== null && typeof (props as { validate?: unknown }).validate === "function";
}

/** Runs any kind of tool validator; resolves to the (possibly transformed) value or a readable message. Never rejects. */
export async function runValidator(validator: ToolValidator, value: unknown): Promise<ValidationOutcome> {
  return checkValue(validator, value);
}

/**
 * runValidator without a promise where none is needed: a JSON Schema, or a Standard Schema or
 * function that answers synchronously, gives its outcome in this turn. Never throws, never rejects.
 */
export function checkValue(validator: ToolValidator, value: unknown): ValidationOutcome | Promise<ValidationOutcome> {
  try {
    // Checked first: a callable Standard Schema must not be called as a plain function.
    if (isStandardSchema(validator)) return settle(validator["~standard"].validate(value), fromStandard);
    if (typeof validator === "function") return settle(validator(value), (result) => fromFunction(result, value));
    if (typeof validator === "object" && validator !== null && "jsonSchema" in validator) {
      const verdict = validateJsonSchema(validator.jsonSchema, value);
      if (verdict.valid) return { ok: true, value };
      return { ok: false, message: joinIssues(verdict.errors.map((e) => (e.path === "" ? e.message : `${e.path}: ${e.message}`))) };
    }
    return { ok: false, message: "unsupported validator: expected a function, a Standard Schema object or { jsonSchema }" };
  } catch (error) {
    return threw(error);
  }
}

function threw(error: unknown): ValidationOutcome {
  return { ok: false, message: `validator threw: ${error instanceof Error ? error.message : String(error)}` };
}

/** Reads a validator's answer: at once when it is a value, after it settles when it is a promise. */
function settle(answer: unknown, read: (result: unknown) => ValidationOutcome): ValidationOutcome | Promise<ValidationOutcome> {
  if (typeof answer === "object" && answer !== null && typeof (answer as { then?: unknown }).then === "function") {
    return Promise.resolve(answer).then((result) => {
      try {
        return read(result);
      } catch (error) {
        return threw(error);
      }
    }, threw);
  }
  return read(answer);
}

function fromStandard(result: unknown): ValidationOutcome {
  if (typeof result !== "object" || result === null)
    return { ok: false, message: `the schema returned ${describe(result)} instead of a result` };
  const issues = (result as { issues?: unknown }).issues;
  if (issues === undefined) return { ok: true, value: (result as { value?: unknown }).value };
  if (!Array.isArray(issues) || issues.length === 0) return { ok: false, message: "invalid value" };
  return { ok: false, message: joinIssues(issues.map(formatIssue)) };
}

function fromFunction(result: unknown, input: unknown): ValidationOutcome {
  if (typeof result === "object" && result !== null) {
    const r = result as { ok?: unknown; value?: unknown; message?: unknown };
    if (r.ok === true) return { ok: true, value: "value" in r && r.value !== undefined ? r.value : input };
    if (r.ok === false) return { ok: false, message: typeof r.message === "string" && r.message !== "" ? r.message : "invalid value" };
  }
  return { ok: false, message: `the validator returned ${describe(result)} instead of { ok: true } or { ok: false, message }` };
}

function describe(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
}

/** "/a/0/b: message" (a JSON pointer, as the JSON Schema validator reports), or the bare message without a path. */
function formatIssue(issue: unknown): string {
  if (typeof issue !== "object" || issue === null) return "invalid value";
  const { message, path } = issue as { message?: unknown; path?: unknown };
  const text = typeof message === "string" && message !== "" ? message : "invalid value";
  if (!Array.isArray(path) || path.length === 0) return text;
  let pointer = "";
  for (const segment of path as unknown[]) {
    const key = typeof segment === "object" && segment !== null ? (segment as { key?: unknown }).key : segment;
    const name = typeof key === "symbol" ? (key.description ?? "symbol") : String(key);
    pointer += `/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`;
  }
  return `${pointer}: ${text}`;
}

function joinIssues(lines: string[]): string {
  if (lines.length <= MAX_ISSUES) return lines.join("; ");
  return `${lines.slice(0, MAX_ISSUES).join("; ")}; and ${lines.length - MAX_ISSUES} more`;
}
