// Discovered tools, resources and prompts (fixtures/FORMAT.md, "Discovered tools", J19): a fixture
// that needs only "some tool the implementation lists, with this execution mode", "some resource
// it lists" or "some prompt it lists, with or without required arguments" names it by an alias; a
// black-box runner picks it from the probe's listings by what they declare (annotations,
// inputSchema, execution; a prompt's arguments), never by its name, and builds a tool's arguments
// from its inputSchema.
//
// Invariants: only a tool whose annotations say it changes nothing destructive and touches nothing
// outside (readOnlyHint true or destructiveHint false, and openWorldHint false) is ever called;
// only required properties of a plain scalar type are filled, so the choice and the arguments are
// the same for every replayer reading the same listings. Resources and prompts are only read
// (resources/read, subscribe, prompts/get, completion/complete): the specification gives those
// no effect beyond the answer.

import type { FixtureHeader, Step } from "./fixtures.js";

/** What a fixture asks of a discovered entry (`requires.discover.<alias>`). */
export interface ToolPattern {
  /** What is discovered: a tool (the default), a resource (resources/list) or a prompt (prompts/list). */
  readonly kind?: "tool" | "resource" | "prompt";
  /** A tool's `execution.taskSupport`, `absent` standing for a listing that names none. */
  readonly taskSupport?: readonly string[];
  /** A prompt: `true`, one with at least one required argument; `false`, one with none. */
  readonly requiredArguments?: boolean;
}

/** A discovered entry: its name (a resource's URI), the arguments a tool is called with or a prompt is got with, a prompt's first required argument. */
export interface BoundTool {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  readonly argument?: string;
}

/** The probe's listings (one page each, of the newest session version spoken). */
export interface Listings {
  readonly tools?: readonly unknown[];
  readonly resources?: readonly unknown[];
  readonly prompts?: readonly unknown[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

// Own data properties only: a peer-supplied name such as "__proto__" must not reach the prototype.
function setOwn(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

/** The keys a property schema may hold and still be filled by type alone. */
const PLAIN_SCHEMA_KEYS = new Set(["type", "title", "description", "default", "examples"]);
const VALUE_OF_TYPE = new Map<string, unknown>([
  ["string", "conform"],
  ["number", 1],
  ["integer", 1],
  ["boolean", false],
]);

/** The arguments a listed tool is called with, or undefined when the runner may not call it (unsafe, or a required property it cannot fill). */
export function callableArguments(tool: unknown): Record<string, unknown> | undefined {
  if (!isRecord(tool) || typeof tool.name !== "string") return undefined;
  const hints = isRecord(tool.annotations) ? tool.annotations : {};
  const harmless = hints.readOnlyHint === true || hints.destructiveHint === false;
  if (!harmless || hints.openWorldHint !== false) return undefined;
  const schema = tool.inputSchema;
  if (!isRecord(schema)) return undefined;
  const required = schema.required ?? [];
  if (!Array.isArray(required)) return undefined;
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const args: Record<string, unknown> = {};
  for (const name of required) {
    if (typeof name !== "string" || !Object.hasOwn(properties, name)) return undefined;
    const property = properties[name];
    if (!isRecord(property) || Object.keys(property).some((k) => !PLAIN_SCHEMA_KEYS.has(k))) return undefined;
    const value = typeof property.type === "string" ? VALUE_OF_TYPE.get(property.type) : undefined;
    if (value === undefined) return undefined;
    setOwn(args, name, value);
  }
  return args;
}

function taskSupportOf(tool: Record<string, unknown>): string {
  const execution = tool.execution;
  return isRecord(execution) && typeof execution.taskSupport === "string" ? execution.taskSupport : "absent";
}

/** The first listed tool that the runner may call and that meets `pattern`. */
export function discoverTool(pattern: ToolPattern, listing: readonly unknown[]): BoundTool | undefined {
  for (const tool of listing) {
    const args = callableArguments(tool);
    if (args === undefined || !isRecord(tool)) continue;
    if (pattern.taskSupport !== undefined && !pattern.taskSupport.includes(taskSupportOf(tool))) continue;
    return { name: String(tool.name), arguments: args };
  }
  return undefined;
}

/** The first listed resource: an entry with a string `uri`. */
export function discoverResource(listing: readonly unknown[]): BoundTool | undefined {
  for (const entry of listing) if (isRecord(entry) && typeof entry.uri === "string") return { name: entry.uri, arguments: {} };
  return undefined;
}

/**
 * The first listed prompt whose arguments (absent, or an array of entries with a string `name`) meet
 * `pattern.requiredArguments`; its `arguments` give every required one the string filler.
 */
export function discoverPrompt(pattern: ToolPattern, listing: readonly unknown[]): BoundTool | undefined {
  for (const entry of listing) {
    if (!isRecord(entry) || typeof entry.name !== "string") continue;
    const args = entry.arguments ?? [];
    if (!Array.isArray(args) || !args.every((a) => isRecord(a) && typeof a.name === "string")) continue;
    const required = (args as Record<string, unknown>[]).filter((a) => a.required === true).map((a) => String(a.name));
    if (pattern.requiredArguments !== undefined && pattern.requiredArguments !== required.length > 0) continue;
    // Prompt arguments are strings; each required one gets the same filler a tool's string property does.
    const values: Record<string, unknown> = {};
    for (const name of required) setOwn(values, name, VALUE_OF_TYPE.get("string"));
    return { name: entry.name, arguments: values, ...(required[0] !== undefined ? { argument: required[0] } : {}) };
  }
  return undefined;
}

/** The listed entry `pattern` stands for, by its kind. */
export function discoverEntry(pattern: ToolPattern, l: Listings): BoundTool | undefined {
  if (pattern.kind === "resource") return discoverResource(l.resources ?? []);
  if (pattern.kind === "prompt") return discoverPrompt(pattern, l.prompts ?? []);
  return discoverTool(pattern, l.tools ?? []);
}

const NEEDS = new Map<string, string>([
  ["tool", "annotated harmless and closed-world, plain required arguments"],
  ["resource", "listed by resources/list"],
  ["prompt", "listed by prompts/list"],
]);

/** The alias no listed entry stands for, in words a report can quote; undefined when every alias is met. */
export function missingTool(header: FixtureHeader, listings: Listings): string | undefined {
  for (const [alias, pattern] of Object.entries(header.requires?.discover ?? {}))
    if (discoverEntry(pattern, listings) === undefined) {
      const kind = pattern.kind ?? "tool";
      return `a ${kind} like ${alias} (${JSON.stringify(pattern)}; ${NEEDS.get(kind)})`;
    }
  return undefined;
}

/** The fixture's own stand-ins (`discover.<alias>`: a tool's or prompt's `name`, a resource's `uri`), which its own host lists. */
export function ownBindings(header: Pick<FixtureHeader, "discover">): Map<string, BoundTool> {
  const own = new Map<string, BoundTool>();
  for (const [alias, entry] of Object.entries(header.discover ?? {})) {
    const name = entry.name ?? entry.uri;
    if (typeof name !== "string") continue;
    own.set(alias, { name, arguments: entry.arguments ?? {}, ...(entry.argument !== undefined ? { argument: entry.argument } : {}) });
  }
  return own;
}

/**
 * The entries a case's placeholders stand for: discovered in the listings (black box), or the fixture's
 * own when an adapter replays its host, which lists them.
 */
export function boundTools(header: FixtureHeader, listings: Listings, adapter: boolean): Map<string, BoundTool> {
  const bound = new Map<string, BoundTool>();
  const own = adapter ? ownBindings(header) : undefined;
  for (const [alias, pattern] of Object.entries(header.requires?.discover ?? {})) {
    const entry = own !== undefined ? own.get(alias) : discoverEntry(pattern, listings);
    if (entry !== undefined) bound.set(alias, entry);
  }
  return bound;
}

/** The placeholders that stand for a discovered entry's name: a tool's, a resource's URI, a prompt's. */
const NAME_PLACEHOLDERS = ["$tool:", "$resource:", "$prompt:"];

/**
 * `"$tool:ALIAS"`, `"$resource:ALIAS"` and `"$prompt:ALIAS"` become the entry's name (a resource's URI),
 * `"$arguments:ALIAS"` a tool's or a prompt's arguments and `"$argument:ALIAS"` a prompt's first required argument, anywhere in a step.
 */
export function bindTools(value: unknown, tools: ReadonlyMap<string, BoundTool>): unknown {
  if (tools.size === 0) return value;
  if (typeof value === "string") {
    for (const prefix of NAME_PLACEHOLDERS) if (value.startsWith(prefix)) return tools.get(value.slice(prefix.length))?.name ?? value;
    if (value.startsWith("$arguments:")) return tools.get(value.slice("$arguments:".length))?.arguments ?? value;
    if (value.startsWith("$argument:")) return tools.get(value.slice("$argument:".length))?.argument ?? value;
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => bindTools(v, tools));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) setOwn(out, k, bindTools(v, tools));
  return out;
}

/** The case's steps with its discovered tools in place. */
export function stepsWithTools(header: FixtureHeader, steps: readonly Step[], listings: Listings, adapter: boolean): readonly Step[] {
  const tools = boundTools(header, listings, adapter);
  return tools.size === 0 ? steps : steps.map((s) => bindTools(s, tools) as Step);
}
