// The calling conventions of `new Server(...)` and `server.tool(...)`, read at the call: the
// forms of this library, of the official SDKs (McpServer's `new McpServer({ name, version },
// options)`, `server.tool(name, description?, paramsShape, cb)`, `registerTool(name, config,
// cb)`) and of the book this project started from, made into one ServerOptions or one tool
// definition. Anything else is refused where it is made, never at the first call.
//
// Invariants:
// - every refusal is an Error that names the rule ("server options", "tool call shape",
//   "tool options", ...), lists the accepted forms or keys, and says what arrived (kinds and
//   key names, never whole values, so a secret passed by mistake is not echoed);
// - an options object with a key this library does not know is refused (a misspelled option
//   would otherwise be dropped without a word); the lists of known keys are checked against
//   the option types at compile time, so a new option cannot be forgotten here;
// - nothing is copied deeply: the values go on to the registries' own checks (registration.ts).

import type { Implementation } from "../../types/index.js";
import type { UriTemplate } from "../../uri-template/template.js";
import { hasOwn } from "../../wire/envelope.js";
import { isParamsMap, schemaKeywordOf } from "./params-map.js";
import type { ServerOptions, ToolDefinition, ToolHandler } from "./server-options.js";
import { isStandardSchema } from "./standard-schema.js";

// Exhaustive by construction: a key missing here, or one the type does not have, fails the build.
const SERVER_OPTION_KEYS = Object.keys({
  info: true,
  instructions: true,
  versions: true,
  strict: true,
  limits: true,
  discoverAnyVersion: true,
  serverInfoInResults: true,
  paging: true,
  maxConcurrentHandlers: true,
  maxJsonDepth: true,
  allowAnyToolName: true,
  logging: true,
  capabilities: true,
  defaultTimeoutMs: true,
  onDiagnostic: true,
  onSessionClosed: true,
  inputRounds: true,
  tasks: true,
  extensions: true,
} satisfies { [K in keyof ServerOptions]-?: true });

const INFO_KEYS = Object.keys({
  name: true,
  version: true,
  title: true,
  description: true,
  icons: true,
  websiteUrl: true,
} satisfies { [K in keyof Implementation]-?: true });

const TOOL_OPTION_KEYS = Object.keys({
  title: true,
  description: true,
  inputSchema: true,
  outputSchema: true,
  jsonSchema: true,
  annotations: true,
  _meta: true,
  validator: true,
  taskSupport: true,
  beforeTask: true,
} satisfies { [K in keyof ToolDefinition]-?: true });

/** Keys only an options object has (a parameter of these names is implausible); `title` and `description` count when they are strings. */
const OPTIONS_ONLY = ["inputSchema", "outputSchema", "jsonSchema", "annotations", "_meta", "validator", "taskSupport", "beforeTask"];

/** The hints of ToolAnnotations, which the SDK v1 takes as an argument of its own. */
const ANNOTATION_HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];

const SERVER_FORMS =
  "new Server({ info: { name, version }, ...options }), new Server({ name, version, ...options }) or new Server({ name, version }, options)";

const TOOL_FORMS =
  'server.tool(name, options, handler), (name, description, params, handler), (name, params, handler), (name, description, handler) or (name, handler), where options is { title?, description?, inputSchema?, outputSchema?, annotations?, ... } and params is a JSON Schema of type "object", a Standard Schema (zod, valibot, ...) or a map of parameter schemas ({ query: { type: "string" } } or { query: z.string() })';

/** A short account of what a value is, for refusals: its kind, a string's start, an object's keys; never a whole value. */
export function describeArgument(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
  if (isStandardSchema(value)) return `a Standard Schema (${String(value["~standard"].vendor)})`;
  if (typeof value === "function") return "a function";
  if (typeof value === "object") {
    const keys = Object.keys(value);
    if (keys.length === 0) return "an empty object";
    return `an object with keys ${keys.slice(0, 8).join(", ")}${keys.length > 8 ? ", …" : ""}`;
  }
  return typeof value === "undefined" ? "undefined" : `a ${typeof value}`;
}

function isObject(value: unknown): value is { readonly [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// ---- new Server(...) -------------------------------------------------------------------

/**
 * The options of `new Server(first, second)`: ServerOptions as they are, or the SDK's habit,
 * the server's name and version in place of `info` (with the other options beside them, or
 * as a second argument). Throws an Error naming the accepted forms, or the unknown keys.
 */
export function serverOptionsOf(first: unknown, second: unknown): ServerOptions {
  if (!isObject(first)) throw new Error(`server options: expected ${SERVER_FORMS}; got ${describeArgument(first)}`);
  if (second !== undefined && !isObject(second))
    throw new Error(
      `server options: expected the second argument to be an options object (${SERVER_FORMS}); got ${describeArgument(second)}`,
    );
  const flat = !hasOwn(first, "info");
  if (!flat && second !== undefined)
    throw new Error(`server options: expected ${SERVER_FORMS}; got info in the first argument and a second argument`);
  const known = flat ? [...INFO_KEYS, ...SERVER_OPTION_KEYS.filter((k) => k !== "info")] : SERVER_OPTION_KEYS;
  const unknown = Object.keys(first).filter((key) => !known.includes(key));
  const unknownSecond =
    second === undefined ? [] : Object.keys(second).filter((key) => key === "info" || !SERVER_OPTION_KEYS.includes(key));
  if (unknown.length > 0 || unknownSecond.length > 0)
    throw new Error(
      `server options: unknown option ${[...unknown, ...unknownSecond].map((k) => JSON.stringify(k)).join(", ")}; expected only ${SERVER_OPTION_KEYS.join(", ")}${flat ? ` (with ${INFO_KEYS.join(", ")} in place of info)` : ""}`,
    );
  let options: ServerOptions;
  if (flat) {
    const info: { [key: string]: unknown } = {};
    const rest: { [key: string]: unknown } = {};
    for (const [key, value] of Object.entries(first)) (INFO_KEYS.includes(key) ? info : rest)[key] = value;
    if (second !== undefined) {
      const twice = Object.keys(second).filter((key) => hasOwn(rest, key));
      if (twice.length > 0) throw new Error(`server options: ${twice.join(", ")} given in both arguments; expected each option once`);
      Object.assign(rest, second);
    }
    if (Object.keys(info).length === 0)
      throw new Error(`server options: expected ${SERVER_FORMS}; got ${describeArgument(first)}, with neither info nor name and version`);
    options = { ...rest, info: info as unknown as Implementation };
  } else options = first as unknown as ServerOptions;
  checkInfo(options.info);
  checkMadeOptions(options);
  return options;
}

/**
 * Options that take what a function of this library made, so that a feature left unused is
 * not bundled: each with a method its maker's value has, and the call that makes it.
 */
const MADE_OPTIONS: readonly (readonly [keyof ServerOptions, string, string])[] = [
  ["tasks", "attach", "serveTasks({ newTaskId, store?, ttlMs?, pollIntervalMs? })"],
  ["paging", "page", "new Paginator({ pageSize, secret })"],
  ["inputRounds", "seal", "sealedRounds({ secret, ttlMs? })"],
];

function checkMadeOptions(options: ServerOptions): void {
  for (const [key, method, maker] of MADE_OPTIONS) {
    const value: unknown = options[key];
    if (value === undefined || (isObject(value) && typeof value[method] === "function")) continue;
    throw new Error(`server options: expected ${key} to be what ${maker} returns; got ${describeArgument(value)}`);
  }
}

/** serverInfo is sent in every initialize result: its name and version must be strings (else clients close on a malformed result). */
function checkInfo(info: unknown): void {
  if (isObject(info) && typeof info.name === "string" && typeof info.version === "string") return;
  const got = !isObject(info)
    ? describeArgument(info)
    : `name ${describeArgument(info.name)} and version ${describeArgument(info.version)}`;
  throw new Error(`server info: expected { name: string, version: string, title?, description?, icons?, websiteUrl? }; got ${got}`);
}

// ---- server.tool(...) ------------------------------------------------------------------

/** A tool registration read from any accepted form. */
export interface ToolCall {
  readonly definition: ToolDefinition;
  readonly handler: ToolHandler;
}

/** Reads `server.tool(name, ...rest)`; throws an Error with the accepted forms when rest fits none. */
export function toolCallOf(name: string, rest: readonly unknown[]): ToolCall {
  const handler = rest[rest.length - 1];
  const middle = rest.slice(0, -1);
  const refuse = (hint = ""): never => {
    const got = [JSON.stringify(name), ...rest.map(describeArgument)].join(", ");
    throw new Error(`tool call shape: expected ${TOOL_FORMS}; got server.tool(${got})${hint}`);
  };
  if (typeof handler !== "function" || isStandardSchema(handler))
    return refuse(rest.length === 0 ? "" : "; the handler, a function, comes last");
  const annotationsHint =
    "; the SDK's annotations argument goes into the options: server.tool(name, { description, inputSchema, annotations }, handler)";
  if (middle.length === 0) return { definition: {}, handler: handler as ToolHandler };
  if (middle.length === 1) {
    const only = middle[0];
    if (typeof only === "string") return { definition: { description: only }, handler: handler as ToolHandler };
    if (isStandardSchema(only)) return { definition: { inputSchema: only }, handler: handler as ToolHandler };
    if (!isObject(only)) return refuse();
    if (schemaKeywordOf(only) === undefined && looksLikeOptions(only))
      return { definition: toolOptions(name, only), handler: handler as ToolHandler };
    if (schemaKeywordOf(only) !== undefined || isParamsMap(only))
      return { definition: { inputSchema: only }, handler: handler as ToolHandler };
    return refuse(Object.keys(only).some((k) => ANNOTATION_HINTS.includes(k)) ? annotationsHint : "");
  }
  if (middle.length === 2) {
    const [description, params] = middle;
    if (typeof description !== "string") return refuse(annotationsHint);
    if (isStandardSchema(params) || (isObject(params) && (schemaKeywordOf(params) !== undefined || isParamsMap(params))))
      return { definition: { description, inputSchema: params }, handler: handler as ToolHandler };
    return refuse(isObject(params) && looksLikeOptions(params) ? "; with an options object, the description goes into it" : "");
  }
  return refuse(middle.length === 3 ? annotationsHint : "");
}

/** An object meant as tool options: no keys, a key only options have, or a title or description that is a string or undefined. */
function looksLikeOptions(value: { readonly [key: string]: unknown }): boolean {
  const keys = Object.keys(value);
  const text = (key: string): boolean => hasOwn(value, key) && (typeof value[key] === "string" || value[key] === undefined);
  return keys.length === 0 || keys.some((key) => OPTIONS_ONLY.includes(key)) || text("title") || text("description");
}

/** Tool options as given, once every key is known; throws an Error naming the unknown ones and the known ones. */
export function toolOptions(name: string, options: { readonly [key: string]: unknown }): ToolDefinition {
  const unknown = Object.keys(options).filter((key) => !TOOL_OPTION_KEYS.includes(key));
  if (unknown.length > 0) {
    const hint = unknown.some((k) => ANNOTATION_HINTS.includes(k)) ? " (hints such as readOnlyHint go under annotations)" : "";
    throw new Error(
      `tool options: tool ${JSON.stringify(name)} has unknown option ${unknown.map((k) => JSON.stringify(k)).join(", ")}; expected only ${TOOL_OPTION_KEYS.join(", ")}${hint}`,
    );
  }
  for (const key of ["title", "description"] as const)
    if (options[key] !== undefined && typeof options[key] !== "string")
      throw new Error(`tool options: tool ${JSON.stringify(name)}'s ${key} must be a string; got ${describeArgument(options[key])}`);
  return options as ToolDefinition;
}

/** Refuses a resource template given as anything but what parseTemplate returns (a string above all: parsing it is the caller's). */
export function checkUriTemplate(form: string, template: unknown): asserts template is UriTemplate {
  if (isObject(template) && typeof template.template === "string" && typeof template.match === "function") return;
  throw new Error(`resource template call shape: expected ${form}; got ${describeArgument(template)} as the template`);
}

/** Refuses a registration whose callback is not a function (resource, template, prompt): refused now, not at the first read. */
export function checkCallback(kind: string, form: string, name: string, definition: unknown, callback: unknown): void {
  if (isObject(definition) && typeof callback === "function") return;
  throw new Error(
    `${kind} call shape: expected ${form}; got (${JSON.stringify(name)}, ${describeArgument(definition)}, ${describeArgument(callback)})`,
  );
}
