// The method table of a Server: for each request method it serves, how a session starts a
// request of it (session.ts reads the table; this file fills it). One table per Server, built
// with it: the methods of the spec it serves, the tasks extension's when it serves it
// (serveTasks, task-support.ts), and an entry per extension request handler set later (setRequestHandler). A method
// without an entry is answered -32601 by the session.
//
// The entries close over the Server's registries once, when the table is built: a request
// allocates nothing here. tools/call is the one method two ways: a plain tool (no task
// support, no beforeTask step) is called through server-methods.ts alone, and a session-era
// call of one starts at once (PlainTool, HandlerPool.runNow); only a tool with task support
// or a beforeTask step goes through the tasks extension or callPreparedTool.

import type { JsonObject } from "../../wire/envelope.js";
import type { Paginator } from "../../codec/pagination.js";
import type { ModernRequestInfo } from "../../rules/modern.js";
import type { CallToolResult, Tool } from "../../types/index.js";
import type { RequestContext } from "./context.js";
import {
  callPreparedTool,
  callTool,
  complete,
  getPrompt,
  isPlainTool,
  plainToolOf,
  readResource,
  respondPage,
  runPlainTool,
  type Registries,
} from "./server-methods.js";
import type { ExtensionRequestHandler, ToolEntry } from "./server-options.js";
import type { AnsweredMethod, MethodEntry, ServedMethod, ServerSession } from "./session.js";
import type { ServedTasks } from "./task-support.js";

/** What the table reads of its Server: the registries, the pages they are listed in, the tasks extension. */
export interface ServedRegistries extends Registries {
  /** Undefined when lists come in one page. */
  readonly paginator: Paginator | undefined;
  /** Undefined without ServerOptions.tasks. */
  readonly tasks: ServedTasks | undefined;
}

/** The method table of a Server (see the file comment). */
export function methodTable(server: ServedRegistries): Map<string, MethodEntry> {
  const table = new Map<string, MethodEntry>([
    // The session era lists execution.taskSupport only where core tasks are served (TK-08).
    [
      "tools/list",
      list(server, "tools", (modern) =>
        [...server.tools.values()].map(modern === undefined && server.tasks?.core === undefined ? sessionToolOf : definitionOf),
      ),
    ],
    ["resources/list", list(server, "resources", () => [...server.resources.values()].map((r) => r.definition))],
    ["resources/templates/list", list(server, "resourceTemplates", () => [...server.templates.values()].map((t) => t.definition))],
    ["prompts/list", list(server, "prompts", () => [...server.prompts.values()].map((p) => p.definition))],
    // The engine records subscriptions and the level from these answers.
    ["resources/subscribe", ACKNOWLEDGED],
    ["resources/unsubscribe", ACKNOWLEDGED],
    ["logging/setLevel", ACKNOWLEDGED],
  ]);
  const served = (entry: ServedMethod): void => void table.set(entry.method, entry);
  served({
    method: "tools/call",
    serve: (context) => callToolOf(server, context),
    // A session-era call that carries `task` is core tasks' to answer when they are served (TK-08), never the plain path's.
    plainTool: {
      find:
        server.tasks?.core === undefined
          ? (params) => plainToolOf(server.tools, params)
          : (params) => (params.task === undefined ? plainToolOf(server.tools, params) : undefined),
      run: runPlainTool,
    },
  });
  served({
    method: "resources/read",
    serve: (context) => readResource(server, context.engine.resourceNotFoundCode, String(context.params.uri), context),
  });
  served({ method: "prompts/get", serve: (context) => getPrompt(server.prompts, context.params, context) });
  served({ method: "completion/complete", serve: (context) => complete(server, context.params) });
  for (const entry of server.tasks?.methods ?? []) served(entry);
  return table;
}

/** The entry of an extension's request (MT-03; the engine lets it through only once both sides declared the extension). */
export function extensionEntry(method: string, handler: ExtensionRequestHandler): ServedMethod {
  return { method, serve: (context) => handler(context.params, context) };
}

const ACKNOWLEDGED: AnsweredMethod = { answer: (session, id) => session.engine.respond(id, {}) };

/** A list method: every item in one page, or the page the cursor names. */
function list(server: ServedRegistries, key: string, items: (modern: ModernRequestInfo | undefined) => readonly object[]): AnsweredMethod {
  return {
    answer: (session, id, params, modern) => respondPage(session.engine, server.paginator, id, key, items(modern), params.cursor),
  };
}

/**
 * A tool as a session-era client sees it: without execution.taskSupport, which there would
 * promise the 2025-11-25 task-augmented calls a server without core tasks does not serve (it
 * declares no tasks.requests.tools.call); its tasks are the 2026-07-28 extension's.
 */
function sessionToolOf(entry: ToolEntry): Tool {
  const tool = entry.definition;
  if (tool.execution === undefined) return tool;
  const { execution: _execution, ...rest } = tool;
  return rest;
}
const definitionOf = (t: ToolEntry): Tool => t.definition;

/** tools/call: a plain tool (or an unknown one: -32602) through callTool alone; a tool that may run as a task through the tasks extension. */
function callToolOf(
  server: ServedRegistries,
  context: RequestContext<ServerSession>,
): CallToolResult | Promise<CallToolResult | JsonObject> {
  const params = context.params;
  const entry = typeof params.name === "string" ? server.tools.get(params.name) : undefined;
  const core = server.tasks?.core;
  if (core !== undefined && context.modern === undefined && core.takes(entry, params)) return core.callTool(server.tools, entry, context);
  // The common case: no tasks, no beforeTask step; the call may answer in this turn.
  if (entry === undefined || isPlainTool(entry)) return callTool(server.tools, params, context, entry);
  if (server.tasks !== undefined) return server.tasks.callTool(server.tools, entry, context);
  return callPreparedTool(server.tools, entry, context);
}
