// Schemas given to server.tool() and server.prompt(), made into what is listed and what is
// applied: a Standard Schema validates (defaults and transforms included) and its library
// produces the listed JSON Schema through the Standard JSON Schema interface
// (`~standard.jsonSchema.input/output`, https://standardschema.dev), or the author gives it
// (`jsonSchema: { input, output }`); a JSON Schema object is listed as given and applied by
// the built-in validator (./json-schema.ts), as before.
//
// Invariants: every refusal happens at registration, as an Error naming the tool or prompt,
// the rule and what was given; a listed input schema never lists as required a property
// that has a default (the validator fills it in, so a client need not send it); nothing
// here imports a schema library: schemas are recognised by shape.

import { hasOwn } from "../../wire/envelope.js";
import { ErrorCode } from "../../wire/errors.js";
import type { CallToolResult, PromptArgument, ToolSchema } from "../../types/index.js";
import { McpError } from "../shared/errors.js";
import { checkSchema, validateJsonSchema } from "../../json-schema/validator.js";
import { appliedJsonSchema, checkToolSchema, refuseUnusableSchema } from "./registration.js";
import { isStandardSchema, runValidator, type StandardSchemaV1, type ToolValidator } from "./standard-schema.js";
import { fromParamsMap, isParamsMap, schemaKeywordOf } from "./params-map.js";

/** JSON Schemas the author gives for Standard Schemas whose library does not produce one. */
export interface ExplicitJsonSchemas {
  /** The listed inputSchema (a tool) or the source of the listed arguments (a prompt). */
  readonly input?: object;
  /** The listed outputSchema. */
  readonly output?: object;
}

/** The schema fields of a tool definition, as server.tool() receives them. */
export interface ToolSchemaFields {
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
  readonly jsonSchema?: ExplicitJsonSchemas;
  readonly validator?: ToolValidator;
}

export interface ResolvedToolSchemas {
  /** Listed as the tool's inputSchema. */
  readonly inputSchema: ToolSchema;
  /** Listed as the tool's outputSchema. */
  readonly outputSchema: ToolSchema | undefined;
  /** Applied to the arguments of each call. */
  readonly validator: ToolValidator | undefined;
  /** Applied to each result's structuredContent (a JSON Schema output: the built-in validator on outputSchema). */
  readonly outputValidator: ToolValidator | undefined;
}

// The dialects asked of a schema library, in order (MCP's default first; draft-07 is the most widely produced).
const TARGETS = ["draft-2020-12", "draft-07"] as const;

/**
 * The JSON Schema a Standard Schema's library produces for its input or output, undefined
 * when it offers no converter, or an Error when every target it was asked for failed.
 */
export function standardJsonSchema(schema: StandardSchemaV1, io: "input" | "output"): object | Error | undefined {
  const converter = (schema["~standard"] as { jsonSchema?: unknown }).jsonSchema;
  if (typeof converter !== "object" || converter === null) return undefined;
  const convert = (converter as { [k in typeof io]?: unknown })[io];
  if (typeof convert !== "function") return undefined;
  const failures: string[] = [];
  for (const target of TARGETS) {
    try {
      const produced: unknown = convert.call(converter, { target });
      if (typeof produced === "object" && produced !== null && !Array.isArray(produced)) return produced;
      failures.push(`${target}: returned ${produced === null ? "null" : Array.isArray(produced) ? "an array" : typeof produced}`);
    } catch (error) {
      failures.push(`${target}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return new Error(failures.join("; "));
}

/**
 * Resolves a tool's schemas at registration; throws an Error saying what is wrong (J-02, a
 * missing JSON Schema, a clash). A map of parameter schemas (params-map.ts) is first made
 * into the JSON Schema or Standard Schema it stands for.
 */
export function resolveToolSchemas(tool: string, given: ToolSchemaFields): ResolvedToolSchemas {
  const fields = withParamsMaps(tool, given);
  const standardInput = isStandardSchema(fields.inputSchema) ? fields.inputSchema : undefined;
  const standardOutput = isStandardSchema(fields.outputSchema) ? fields.outputSchema : undefined;
  // jsonSchema stands in for a Standard Schema's converter; next to a JSON Schema it would be listed instead of the one applied.
  if (fields.jsonSchema?.input !== undefined && standardInput === undefined)
    throw new Error(
      `tool ${JSON.stringify(tool)}: jsonSchema.input is for a Standard Schema inputSchema; expected one, got ${fields.inputSchema === undefined ? "no inputSchema" : "a JSON Schema (listed as given)"}`,
    );
  if (fields.jsonSchema?.output !== undefined && standardOutput === undefined)
    throw new Error(
      `tool ${JSON.stringify(tool)}: jsonSchema.output is for a Standard Schema outputSchema; expected one, got ${fields.outputSchema === undefined ? "no outputSchema" : "a JSON Schema (listed as given)"}`,
    );
  if (standardInput !== undefined && fields.validator !== undefined) {
    throw new Error(
      `tool ${JSON.stringify(tool)}: expected either a Standard Schema inputSchema or a validator, got both (the schema validates the arguments itself)`,
    );
  }
  const input = standardInput !== undefined ? listedSchema(tool, "input", standardInput, fields.jsonSchema?.input) : fields.inputSchema;
  const output =
    standardOutput !== undefined ? listedSchema(tool, "output", standardOutput, fields.jsonSchema?.output) : fields.outputSchema;
  if (input !== undefined) checkToolSchema(tool, "inputSchema", input);
  if (output !== undefined) checkToolSchema(tool, "outputSchema", output);
  const inputSchema = (
    input === undefined ? { type: "object" } : standardInput !== undefined ? withoutDefaultsRequired(input as object) : input
  ) as ToolSchema;
  const outputSchema = output as ToolSchema | undefined;
  const validator: ToolValidator | undefined =
    standardInput ?? fields.validator ?? (input !== undefined ? { jsonSchema: input as object } : undefined);
  // The built-in validator applies these schemas: one it cannot apply in full is refused now, not on every call.
  refuseUnusableSchema(tool, fields.validator === undefined ? "inputSchema" : "validator's jsonSchema", appliedJsonSchema(validator));
  if (standardOutput === undefined) refuseUnusableSchema(tool, "outputSchema", outputSchema);
  const outputValidator: ToolValidator | undefined =
    standardOutput ?? (outputSchema !== undefined ? { jsonSchema: outputSchema } : undefined);
  return { inputSchema, outputSchema, validator, outputValidator };
}

/** The fields with each map of parameters made into its schema (and, for a map with defaults, the validator that fills them in). */
function withParamsMaps(tool: string, fields: ToolSchemaFields): ToolSchemaFields {
  for (const field of ["inputSchema", "outputSchema"] as const) {
    const schema = fields[field];
    if (typeof schema !== "object" || schema === null || Array.isArray(schema) || isStandardSchema(schema) || "type" in schema) continue;
    const keyword = schemaKeywordOf(schema as { [key: string]: unknown });
    if (keyword !== undefined)
      throw new Error(
        `[J-02] tool ${JSON.stringify(tool)}: ${field} must have root type "object" (clients refuse any other); got no type, in a schema read as a JSON Schema for its keyword ${JSON.stringify(keyword)} (a map of parameters has no JSON Schema keyword at its root: for a parameter of that name, write { type: "object", properties: { ... } })`,
      );
  }
  const input = isParamsMap(fields.inputSchema) ? fromParamsMap(tool, "inputSchema", fields.inputSchema, fields.validator) : undefined;
  const output = isParamsMap(fields.outputSchema) ? fromParamsMap(tool, "outputSchema", fields.outputSchema) : undefined;
  if (input === undefined && output === undefined) return fields;
  return {
    ...fields,
    inputSchema: input?.schema ?? fields.inputSchema,
    outputSchema: output?.schema ?? fields.outputSchema,
    // A map with defaults fills them in before the tool's own validator, if it names one.
    validator: input?.validator ?? fields.validator,
  };
}

function listedSchema(tool: string, io: "input" | "output", schema: StandardSchemaV1, explicit: object | undefined): object {
  if (explicit !== undefined) return explicit;
  const produced = standardJsonSchema(schema, io);
  const field = `${io}Schema`;
  const vendor = String(schema["~standard"].vendor);
  if (produced instanceof Error)
    throw new Error(
      `tool ${JSON.stringify(tool)}: the ${field}'s library (${vendor}) failed to produce a JSON Schema (${produced.message}); pass jsonSchema.${io}`,
    );
  if (produced === undefined) {
    throw new Error(
      `tool ${JSON.stringify(tool)}: the ${field} is a Standard Schema (${vendor}) without the Standard JSON Schema interface (~standard.jsonSchema); expected jsonSchema.${io}, the JSON Schema to list, got none`,
    );
  }
  return produced;
}

/**
 * A copy of an input schema where no property with a `default` is listed as required, at
 * the root and in nested object properties: the validator fills such a property in, so a
 * client need not send it (some converters list them, having the output type in mind).
 */
export function withoutDefaultsRequired(schema: object, depth = 0): object {
  if (depth > 32) return schema;
  const source = schema as { properties?: unknown; required?: unknown };
  const properties = source.properties;
  if (typeof properties !== "object" || properties === null || Array.isArray(properties)) return schema;
  const nested: { [name: string]: unknown } = Object.create(null) as { [name: string]: unknown };
  for (const [name, value] of Object.entries(properties)) {
    nested[name] =
      typeof value === "object" && value !== null && !Array.isArray(value) ? withoutDefaultsRequired(value as object, depth + 1) : value;
  }
  const copy: { [keyword: string]: unknown } = { ...schema, properties: { ...nested } };
  if (Array.isArray(source.required)) {
    copy.required = source.required.filter(
      (name) => !(typeof name === "string" && hasOwn(properties, name) && hasDefault((properties as { [name: string]: unknown })[name])),
    );
  }
  return copy;
}

function hasDefault(schema: unknown): boolean {
  return typeof schema === "object" && schema !== null && hasOwn(schema, "default");
}

/**
 * A tool result checked against its output schema: a Standard Schema's validated value
 * replaces structuredContent (so defaults and transforms reach the client as listed); a
 * mismatch is an isError result naming the first problem. isError results are not checked.
 * A JSON Schema is applied synchronously (no promise where none is needed).
 */
export function checkToolOutput(
  tool: string,
  outputValidator: ToolValidator | undefined,
  result: CallToolResult,
): CallToolResult | Promise<CallToolResult> {
  if (outputValidator === undefined || result.isError === true) return result;
  if (isStandardSchema(outputValidator)) {
    return runValidator(outputValidator, result.structuredContent).then((checked) =>
      checked.ok
        ? { ...result, structuredContent: checked.value as CallToolResult["structuredContent"] }
        : outputMismatch(tool, checked.message),
    );
  }
  const schema = appliedJsonSchema(outputValidator);
  if (schema === undefined) return result;
  const verdict = validateJsonSchema(schema, result.structuredContent);
  if (verdict.valid) return result;
  const first = verdict.errors[0];
  return outputMismatch(tool, first !== undefined ? `${first.path || "/"}: ${first.message}` : undefined);
}

function outputMismatch(tool: string, detail: string | undefined): CallToolResult {
  const text = `Tool ${tool} returned structuredContent that does not match its outputSchema${detail !== undefined ? ` (${detail})` : ""}`;
  return { content: [{ type: "text", text }], isError: true };
}

// ---- Prompts ------------------------------------------------------------------------

export interface PromptSchemaFields {
  readonly arguments?: readonly PromptArgument[];
  readonly argsSchema?: unknown;
  readonly jsonSchema?: ExplicitJsonSchemas;
}

export interface ResolvedPromptArguments {
  readonly arguments: PromptArgument[] | undefined;
  readonly validator: ToolValidator | undefined;
}

/**
 * A prompt's listed arguments: as given, or derived from its argsSchema's JSON Schema (each
 * property an argument, with its title and description; required unless it has a default).
 * An argsSchema is a Standard Schema, or a JSON Schema object applied by the built-in validator.
 */
export function resolvePromptArguments(prompt: string, fields: PromptSchemaFields): ResolvedPromptArguments {
  const schema = fields.argsSchema;
  if (schema === undefined) return { arguments: fields.arguments === undefined ? undefined : [...fields.arguments], validator: undefined };
  if (!isStandardSchema(schema)) {
    if (typeof schema !== "object" || schema === null || Array.isArray(schema) || (schema as { type?: unknown }).type !== "object") {
      throw new Error(
        `prompt ${JSON.stringify(prompt)}: expected argsSchema to be a Standard Schema (an object with "~standard") or a JSON Schema with type "object", got ${schema === null ? "null" : Array.isArray(schema) ? "an array" : typeof schema === "object" ? 'an object without type "object"' : typeof schema}`,
      );
    }
    const problem = checkSchema(schema);
    if (problem !== undefined)
      throw new Error(`[J-02] prompt ${JSON.stringify(prompt)}: the argsSchema cannot be applied by the built-in validator: ${problem}`);
    // The built-in validator applies no defaults: what the schema requires is listed as required.
    return {
      arguments: fields.arguments !== undefined ? [...fields.arguments] : argumentsOf(prompt, schema, false),
      validator: { jsonSchema: schema },
    };
  }
  if (fields.arguments !== undefined) return { arguments: [...fields.arguments], validator: schema };
  const json = fields.jsonSchema?.input ?? standardJsonSchema(schema, "input");
  const vendor = String(schema["~standard"].vendor);
  if (json instanceof Error)
    throw new Error(
      `prompt ${JSON.stringify(prompt)}: the argsSchema's library (${vendor}) failed to produce a JSON Schema (${json.message}); pass arguments or jsonSchema.input`,
    );
  if (json === undefined)
    throw new Error(
      `prompt ${JSON.stringify(prompt)}: the argsSchema (${vendor}) has no Standard JSON Schema interface (~standard.jsonSchema); expected arguments or jsonSchema.input, got neither`,
    );
  return { arguments: argumentsOf(prompt, json, true), validator: schema };
}

/** `defaultsApplied`: the validator fills in a property with a default, which a client need not send then. */
function argumentsOf(prompt: string, schema: object, defaultsApplied: boolean): PromptArgument[] {
  const { properties, required } = schema as { properties?: unknown; required?: unknown };
  if (typeof properties !== "object" || properties === null || Array.isArray(properties)) {
    throw new Error(
      `prompt ${JSON.stringify(prompt)}: expected the argsSchema's JSON Schema to be an object schema with properties, got ${JSON.stringify(Object.keys(schema))}`,
    );
  }
  const requiredNames = new Set(Array.isArray(required) ? required.filter((n): n is string => typeof n === "string") : []);
  const list: PromptArgument[] = [];
  for (const [name, value] of Object.entries(properties)) {
    const property = (typeof value === "object" && value !== null ? value : {}) as { title?: unknown; description?: unknown };
    const argument: PromptArgument = { name };
    if (typeof property.title === "string") argument.title = property.title;
    if (typeof property.description === "string") argument.description = property.description;
    argument.required = requiredNames.has(name) && !(defaultsApplied && hasDefault(value));
    list.push(argument);
  }
  return list;
}

/** prompts/get: the arguments as the argsSchema validates them, or -32602 naming the prompt and the path of each problem. */
export async function checkPromptArguments(
  prompt: string,
  validator: ToolValidator | undefined,
  args: Record<string, string>,
): Promise<Record<string, unknown>> {
  if (validator === undefined) return args;
  const checked = await runValidator(validator, args);
  if (checked.ok) return (checked.value ?? args) as Record<string, unknown>;
  throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for prompt ${prompt}: ${checked.message}`, {
    name: prompt,
    reason: checked.message,
  });
}
