// The request methods a Server answers through its registries (tools/call, resources/read,
// prompts/get, completion/complete, and the list answers), which the method table
// (dispatch.ts) runs; they read the registries (Registries), nothing else of the Server. A
// plain tool (no task support, no beforeTask step) is called from here alone, a tool with a
// beforeTask step that runs as a plain call through callPreparedTool; only a call that runs
// as a task goes through the tasks extension (task-support.ts), when the Server serves it.
//
// Invariants: a tool's failure (invalid arguments, a throw, structuredContent that does not
// match its outputSchema) is an isError result without a stack trace; unknown names and bad
// references are protocol errors; a name the peer sent is looked up in Maps or own keys only.

import type { Engine } from "../../engine/engine.js";
import type { JsonObject, RequestId } from "../../wire/envelope.js";
import type { Paginator } from "../../codec/pagination.js";
import { hasOwn } from "../../wire/envelope.js";
import { ErrorCode } from "../../wire/errors.js";
import type { CallToolResult, CompleteResult, GetPromptResult, ReadResourceResult } from "../../types/index.js";
import { McpError } from "../shared/errors.js";
import { errorMessage } from "../shared/handlers.js";
import { RequestContext } from "./context.js";
import { InputRequiredSignal } from "./input-rounds.js";
import type { Completer, HandlerContext, PromptEntry, ResourceEntry, TemplateEntry, ToolEntry } from "./server-options.js";
import { checkValue, type ValidationOutcome } from "./standard-schema.js";
import { checkPromptArguments, checkToolOutput } from "./typed-schemas.js";

const MAX_COMPLETIONS = 100;

/** What the methods read of a Server: its registries, by name (by URI for resources and templates). */
export interface Registries {
  readonly tools: ReadonlyMap<string, ToolEntry>;
  readonly resources: ReadonlyMap<string, ResourceEntry>;
  readonly templates: ReadonlyMap<string, TemplateEntry>;
  readonly prompts: ReadonlyMap<string, PromptEntry>;
}

/**
 * tools/call: arguments validated, the handler run, structuredContent checked against the
 * outputSchema; failures become isError results, an unknown tool -32602 (TL-02). Without a
 * promise where none is needed: a synchronous validator and handler answer in this turn.
 */
export function callTool(
  tools: ReadonlyMap<string, ToolEntry>,
  params: JsonObject,
  context: HandlerContext,
  found?: ToolEntry,
): CallToolResult | Promise<CallToolResult> {
  const name = params.name as string;
  // `found`: the entry the caller looked up for this call in this same turn (one Map lookup, not two).
  const entry = found ?? tools.get(name);
  // TL-02: an unknown tool is a protocol error (-32602), not a tool result.
  if (entry === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`, { name });
  return callFoundTool(entry, name, params, context);
}

/** callTool once its tool is found: the arguments validated, the handler run, its output checked. */
export function callFoundTool(
  entry: ToolEntry,
  name: string,
  params: JsonObject,
  context: HandlerContext,
): CallToolResult | Promise<CallToolResult> {
  const args = (params.arguments ?? {}) as Record<string, unknown>;
  if (entry.validator === undefined) return runTool(entry, name, args, context);
  const checked = checkValue(entry.validator, args);
  if (isPromise(checked)) return validatedLater(entry, name, args, checked, context);
  return afterValidation(entry, name, args, checked, context);
}

/**
 * tools/call of a tool with a beforeTask step (or task support) called as a plain tool: the
 * step runs in the request (input rounds allowed) and its value reaches the handler as
 * ctx.prepared, so a plain call sees what a task's handler would.
 */
export async function callPreparedTool(
  tools: ReadonlyMap<string, ToolEntry>,
  entry: ToolEntry,
  context: HandlerContext & { readonly params: JsonObject },
): Promise<CallToolResult> {
  const params = context.params;
  const prepared =
    entry.beforeTask === undefined ? undefined : await entry.beforeTask((params.arguments ?? {}) as Record<string, unknown>, context);
  return callTool(tools, params, withPrepared(context, prepared));
}

/**
 * `context` with `prepared` set (the beforeTask step's value): a request's own context is
 * changed in place (it belongs to this one request); any other is copied.
 */
export function withPrepared(context: HandlerContext, prepared: unknown): HandlerContext {
  if (prepared === undefined) return context;
  if (context instanceof RequestContext) {
    context.prepared = prepared;
    return context;
  }
  return { ...context, prepared };
}

/** A tool callTool alone runs: no task support, no beforeTask step. */
export function isPlainTool(entry: ToolEntry): boolean {
  return entry.taskSupport === undefined && entry.beforeTask === undefined;
}

/** The plain tool (isPlainTool) a tools/call names; undefined for any other call. */
export function plainToolOf(tools: ReadonlyMap<string, ToolEntry>, params: JsonObject): ToolEntry | undefined {
  const entry = typeof params.name === "string" ? tools.get(params.name) : undefined;
  return entry !== undefined && isPlainTool(entry) ? entry : undefined;
}

/** The handler run of a plain tool's call started at once (HandlerPool.runNow): callFoundTool, without the method table's dispatch. */
export function runPlainTool(
  entry: ToolEntry,
  context: HandlerContext & { readonly params: JsonObject },
): CallToolResult | Promise<CallToolResult> {
  return callFoundTool(entry, context.params.name as string, context.params, context);
}

// The promise paths are functions of their own: a closure in callTool or runTool would make
// every call allocate the function's context, synchronous ones included.

function validatedLater(
  entry: ToolEntry,
  name: string,
  args: Record<string, unknown>,
  checked: Promise<ValidationOutcome>,
  context: HandlerContext,
): Promise<CallToolResult> {
  return checked.then((outcome) => afterValidation(entry, name, args, outcome, context));
}

function checkedLater(entry: ToolEntry, name: string, result: Promise<CallToolResult>): Promise<CallToolResult> {
  return result.then((value) => checkToolOutput(name, entry.outputValidator, value), handlerFailure);
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}

function afterValidation(
  entry: ToolEntry,
  name: string,
  args: Record<string, unknown>,
  checked: ValidationOutcome,
  context: HandlerContext,
): CallToolResult | Promise<CallToolResult> {
  if (!checked.ok) return toolError(`Invalid arguments for tool ${name}: ${checked.message}`);
  return runTool(entry, name, checked.value !== undefined ? (checked.value as Record<string, unknown>) : args, context);
}

function runTool(
  entry: ToolEntry,
  name: string,
  args: Record<string, unknown>,
  context: HandlerContext,
): CallToolResult | Promise<CallToolResult> {
  let result: CallToolResult | Promise<CallToolResult>;
  try {
    result = entry.handler(args, context);
  } catch (error) {
    return handlerFailure(error);
  }
  if (isPromise(result)) return checkedLater(entry, name, result);
  return checkToolOutput(name, entry.outputValidator, result);
}

/** What a handler threw: an McpError or an input round goes up as itself, anything else is an isError result. */
function handlerFailure(error: unknown): CallToolResult {
  if (error instanceof McpError || error instanceof InputRequiredSignal) throw error;
  return toolError(errorMessage(error));
}

/** resources/read: an exact resource, else the first template that matches; -32002 (-32602 under 2026-07-28) for none. */
export async function readResource(
  server: Pick<Registries, "resources" | "templates">,
  notFoundCode: number,
  uri: string,
  context: HandlerContext,
): Promise<ReadResourceResult> {
  const exact = server.resources.get(uri);
  if (exact !== undefined) return exact.read(uri, context);
  for (const entry of server.templates.values()) {
    const variables = entry.template.match(uri);
    if (variables !== undefined) return entry.read(uri, variables, context);
  }
  throw new McpError(notFoundCode, `Resource not found: ${uri}`, { uri });
}

export async function getPrompt(
  prompts: ReadonlyMap<string, PromptEntry>,
  params: JsonObject,
  context: HandlerContext,
): Promise<GetPromptResult> {
  const name = params.name as string;
  const entry = prompts.get(name);
  // PR-02: an unknown prompt, or a required argument left out, is -32602.
  if (entry === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`, { name });
  const args = (params.arguments ?? {}) as Record<string, string>;
  for (const arg of entry.definition.arguments ?? []) {
    if (arg.required === true && typeof args[arg.name] !== "string")
      throw new McpError(ErrorCode.InvalidParams, `Missing required argument ${arg.name} for prompt ${name}`, { argument: arg.name });
  }
  // An argsSchema validates (and may transform) the arguments: -32602 with the path of each problem.
  return entry.handler((await checkPromptArguments(name, entry.validator, args)) as Record<string, string>, context);
}

/** completion/complete: at most MAX_COMPLETIONS values, with the total the completer found. */
export async function complete(server: Pick<Registries, "prompts" | "templates">, params: JsonObject): Promise<CompleteResult> {
  const ref = params.ref as JsonObject;
  const argument = params.argument as { name: string; value: string };
  const context = { arguments: ((params.context as JsonObject | undefined)?.arguments ?? {}) as Record<string, string> };
  let completer: Completer | undefined;
  if (ref.type === "ref/prompt") {
    const entry = server.prompts.get(String(ref.name));
    // CM-02: a completion of an unknown prompt is -32602.
    if (entry === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${String(ref.name)}`);
    completer = completerFor(entry.complete, argument.name);
  } else if (ref.type === "ref/resource") {
    const entry = server.templates.get(String(ref.uri));
    if (entry === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown resource template: ${String(ref.uri)}`);
    completer = completerFor(entry.complete, argument.name);
  } else {
    throw new McpError(ErrorCode.InvalidParams, `Unknown reference type: ${String(ref.type)}`);
  }
  const all = completer === undefined ? [] : await completer(argument.value, context);
  const values = all.slice(0, MAX_COMPLETIONS);
  return { completion: { values, total: all.length, hasMore: all.length > values.length } };
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** The completer registered for a name the peer sent: own keys only ("constructor" is no completer). */
function completerFor(table: { [name: string]: Completer } | undefined, name: unknown): Completer | undefined {
  if (table === undefined || typeof name !== "string" || !hasOwn(table, name)) return undefined;
  const completer = table[name];
  return typeof completer === "function" ? completer : undefined;
}

/** A list answer: every item in one page without a paginator (and any cursor refused: N-05), else the page the cursor names. */
export function respondPage(
  engine: Engine<"server">,
  paginator: Paginator | undefined,
  id: RequestId,
  key: string,
  items: readonly object[],
  cursor: unknown,
): void {
  if (paginator === undefined) {
    // One page, and so no cursor was ever issued: any cursor is one we did not make (N-05).
    if (typeof cursor === "string")
      engine.respondError(id, ErrorCode.InvalidParams, "Invalid cursor", {
        cursor,
        reason: "this server lists everything in one page and issues no cursors",
      });
    else engine.respond(id, { [key]: items });
    return;
  }
  const page = paginator.page(key, items, typeof cursor === "string" ? cursor : undefined);
  if (!page.ok) {
    engine.respondError(id, page.code, page.message, page.data);
    return;
  }
  const result: JsonObject = { [key]: page.items };
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
  engine.respond(id, result);
}
