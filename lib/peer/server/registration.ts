// Checks at registration (Server.tool, resource, resourceTemplate, prompt): what a server
// author registers is refused at once, with the rule it breaks, rather than listed and then
// rejected by every client that validates tools/list (one bad tool fails a whole list there).
//
// Invariants: every refusal is an Error naming the rule, what was expected and what was given;
// a definition that passes is returned as a plain JSON copy (json-safe.ts), so a later list
// answer cannot fail to encode and a later edit of the author's object does not change it.

import { acceptsEveryObject, checkSchema } from "../../json-schema/validator.js";
import { toJsonSafe } from "../shared/json-safe.js";
import { isStandardSchema, type ToolValidator } from "./standard-schema.js";

/** 2025-11-25 (server/tools): a tool name SHOULD be 1 to 128 characters of A-Z, a-z, 0-9, "_", "-" and ".". */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Refuses a tool name outside TOOL_NAME. */
export function checkToolName(name: unknown): asserts name is string {
  if (typeof name === "string" && TOOL_NAME.test(name)) return;
  const got =
    typeof name !== "string"
      ? typeof name
      : name.length === 0
        ? "an empty name"
        : name.length > 128
          ? `${name.length} characters`
          : JSON.stringify(name);
  throw new Error(`tool name rule (2025-11-25): expected 1 to 128 characters of [A-Za-z0-9_.-], got ${got}`);
}

/** J-02: a tool's inputSchema, and its outputSchema when given, is a schema object whose root type is "object". */
export function checkToolSchema(name: string, which: "inputSchema" | "outputSchema", schema: unknown): void {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new Error(
      `[J-02] tool ${name}: ${which} must be a JSON Schema object with type "object"; got ${schema === null ? "null" : Array.isArray(schema) ? "an array" : typeof schema}`,
    );
  }
  const type = (schema as { type?: unknown }).type;
  if (type !== "object") {
    throw new Error(
      `[J-02] tool ${name}: ${which} must have root type "object" (clients refuse any other); got ${type === undefined ? "no type" : describeType(type)}`,
    );
  }
}

function describeType(type: unknown): string {
  const safe = toJsonSafe(type, 4);
  return safe.ok ? JSON.stringify(safe.value) : typeof type;
}

/** A plain JSON copy of what will be listed, or an Error saying why it cannot be listed. */
export function listable<T>(what: string, definition: T): T {
  const safe = toJsonSafe(definition);
  if (!safe.ok) throw new Error(`${what}: the definition cannot be listed as JSON: ${safe.reason}`);
  return safe.value as T;
}

/** The JSON Schema the built-in validator will apply for `validator` (none for a Standard Schema or a function). */
export function appliedJsonSchema(validator: ToolValidator | undefined): object | undefined {
  return typeof validator === "object" && !isStandardSchema(validator) && "jsonSchema" in validator ? validator.jsonSchema : undefined;
}

/**
 * The validator a tool's calls run: none when it is a JSON Schema every object passes (the
 * engine already refuses `arguments` that is not an object, so such a schema could never
 * refuse a call), else `validator` itself.
 */
export function argumentsValidator(validator: ToolValidator | undefined): ToolValidator | undefined {
  const schema = appliedJsonSchema(validator);
  return schema !== undefined && acceptsEveryObject(schema) ? undefined : validator;
}

/** J-02: a schema the built-in validator cannot apply in full is refused at registration, with the keyword's location. */
export function refuseUnusableSchema(tool: string, field: string, schema: object | undefined): void {
  const problem = schema === undefined ? undefined : checkSchema(schema);
  if (problem !== undefined)
    throw new Error(`[J-02] tool ${JSON.stringify(tool)}: the ${field} cannot be applied by the built-in validator: ${problem}`);
}
