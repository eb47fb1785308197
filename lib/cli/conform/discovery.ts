// Discovered tools (fixtures/FORMAT.md, "Discovered tools", J19): a fixture that needs only "some
// tool the implementation lists, with this execution mode" names it by an alias; a black-box
// runner picks that tool from the probe's tools/list by what the listing declares (annotations,
// inputSchema, execution), never by its name, and builds the arguments from its inputSchema.
//
// Invariants: only a tool whose annotations say it changes nothing destructive and touches nothing
// outside (readOnlyHint true or destructiveHint false, and openWorldHint false) is ever called;
// only required properties of a plain scalar type are filled, so the choice and the arguments are
// the same for every replayer reading the same listing.

import type { FixtureHeader, Step } from "./fixtures.js";

/** What a fixture asks of a discovered tool (`requires.discover.<alias>`). */
export interface ToolPattern {
  /** The tool's `execution.taskSupport`, `absent` standing for a listing that names none. */
  readonly taskSupport?: readonly string[];
}

/** A discovered tool: its name and the arguments the runner calls it with. */
export interface BoundTool {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

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
    Object.defineProperty(args, name, { value, enumerable: true, writable: true, configurable: true });
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

/** The alias no listed tool stands for, in words a report can quote; undefined when every alias is met. */
export function missingTool(header: FixtureHeader, listing: readonly unknown[]): string | undefined {
  for (const [alias, pattern] of Object.entries(header.requires?.discover ?? {}))
    if (discoverTool(pattern, listing) === undefined)
      return `a tool like ${alias} (${JSON.stringify(pattern)}; annotated harmless and closed-world, plain required arguments)`;
  return undefined;
}

/**
 * The tools a case's placeholders stand for: discovered in the listing (black box), or the fixture's
 * own (`discover.<alias>.name` and `arguments`) when an adapter replays its host, which lists them.
 */
export function boundTools(header: FixtureHeader, listing: readonly unknown[], adapter: boolean): Map<string, BoundTool> {
  const bound = new Map<string, BoundTool>();
  for (const [alias, pattern] of Object.entries(header.requires?.discover ?? {})) {
    const own = header.discover?.[alias];
    const tool = adapter
      ? own === undefined
        ? undefined
        : { name: own.name, arguments: own.arguments ?? {} }
      : discoverTool(pattern, listing);
    if (tool !== undefined) bound.set(alias, tool);
  }
  return bound;
}

/** `"$tool:ALIAS"` becomes the tool's name and `"$arguments:ALIAS"` its arguments, anywhere in a step. */
export function bindTools(value: unknown, tools: ReadonlyMap<string, BoundTool>): unknown {
  if (tools.size === 0) return value;
  if (typeof value === "string") {
    if (value.startsWith("$tool:")) return tools.get(value.slice("$tool:".length))?.name ?? value;
    if (value.startsWith("$arguments:")) return tools.get(value.slice("$arguments:".length))?.arguments ?? value;
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => bindTools(v, tools));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    Object.defineProperty(out, k, { value: bindTools(v, tools), enumerable: true, writable: true, configurable: true });
  return out;
}

/** The case's steps with its discovered tools in place. */
export function stepsWithTools(
  header: FixtureHeader,
  steps: readonly Step[],
  listing: readonly unknown[],
  adapter: boolean,
): readonly Step[] {
  const tools = boundTools(header, listing, adapter);
  return tools.size === 0 ? steps : steps.map((s) => bindTools(s, tools) as Step);
}
