// The request methods a Server answers through its registries (tools/call, resources/read,
// prompts/get, completion/complete), run by ServerSession inside its handler pool.
//
// Invariants: a tool's failure (invalid arguments, a throw, structuredContent that does not
// match its outputSchema) is an isError result without a stack trace; unknown names and bad
// references are protocol errors; a name the peer sent is looked up in Maps or own keys only.

import type { JsonObject } from "../envelope.js";
import { ErrorCode } from "../errors.js";
import type { CallToolResult, CompleteResult, GetPromptResult, ReadResourceResult } from "../types.js";
import { McpError } from "./errors.js";
import { errorMessage } from "./handlers.js";
import { InputRequiredSignal } from "./input-rounds.js";
import type { Completer, HandlerContext, Server } from "./server.js";
import { runValidator } from "./standard-schema.js";
import { checkPromptArguments, checkToolOutput } from "./typed-schemas.js";

const MAX_COMPLETIONS = 100;

/**
 * tools/call: arguments validated, the handler run, structuredContent checked against the
 * outputSchema; failures become isError results, an unknown tool -32602 (TL-02).
 */
export async function callTool(server: Server, params: JsonObject, context: HandlerContext): Promise<CallToolResult> {
  const name = params.name as string;
  const entry = server.tools.get(name);
  // TL-02: an unknown tool is a protocol error (-32602), not a tool result.
  if (entry === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`, { name });
  let args = (params.arguments ?? {}) as Record<string, unknown>;
  if (entry.validator !== undefined) {
    const checked = await runValidator(entry.validator, args);
    if (!checked.ok) return toolError(`Invalid arguments for tool ${name}: ${checked.message}`);
    if (checked.value !== undefined) args = checked.value as Record<string, unknown>;
  }
  let result: CallToolResult;
  try {
    result = await entry.handler(args, context);
  } catch (error) {
    if (error instanceof McpError || error instanceof InputRequiredSignal) throw error;
    return toolError(errorMessage(error));
  }
  return checkToolOutput(name, entry.outputValidator, result);
}

/** resources/read: an exact resource, else the first template that matches; -32002 (-32602 under 2026-07-28) for none. */
export async function readResource(server: Server, notFoundCode: number, uri: string, context: HandlerContext): Promise<ReadResourceResult> {
  const exact = server.resources.get(uri);
  if (exact !== undefined) return exact.read(uri, context);
  for (const entry of server.templates.values()) {
    const variables = entry.template.match(uri);
    if (variables !== undefined) return entry.read(uri, variables, context);
  }
  throw new McpError(notFoundCode, `Resource not found: ${uri}`, { uri });
}

export async function getPrompt(server: Server, params: JsonObject, context: HandlerContext): Promise<GetPromptResult> {
  const name = params.name as string;
  const entry = server.prompts.get(name);
  if (entry === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`, { name });
  const args = (params.arguments ?? {}) as Record<string, string>;
  for (const arg of entry.definition.arguments ?? []) {
    if (arg.required === true && typeof args[arg.name] !== "string") throw new McpError(ErrorCode.InvalidParams, `Missing required argument ${arg.name} for prompt ${name}`, { argument: arg.name });
  }
  // An argsSchema validates (and may transform) the arguments: -32602 with the path of each problem.
  return entry.handler((await checkPromptArguments(name, entry.validator, args)) as Record<string, string>, context);
}

/** completion/complete: at most MAX_COMPLETIONS values, with the total the completer found. */
export async function complete(server: Server, params: JsonObject): Promise<CompleteResult> {
  const ref = params.ref as JsonObject;
  const argument = params.argument as { name: string; value: string };
  const context = { arguments: ((params.context as JsonObject | undefined)?.arguments ?? {}) as Record<string, string> };
  let completer: Completer | undefined;
  if (ref.type === "ref/prompt") {
    const entry = server.prompts.get(String(ref.name));
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
  if (table === undefined || typeof name !== "string" || !Object.hasOwn(table, name)) return undefined;
  const completer = table[name];
  return typeof completer === "function" ? completer : undefined;
}
