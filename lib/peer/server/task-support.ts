// The tasks extension as a Server option: `new Server({ ..., tasks: serveTasks({ newTaskId }) })`.
// A Server reaches the task code only through the TaskSupport it is given, so an application
// that never calls serveTasks does not bundle the task runner, its store or its methods.
// serveTasks checks its options where it is called; the Server attaches it once, when it is
// built, and gets back what it serves: the runner (TaskRunner, task-server.ts), the request
// methods (tasks/get, tasks/update, tasks/cancel), the tools/call path of a tool with task
// support, and the capability it declares.
//
// Invariants: one runner per Server (a task outlives the session that created it); a tool
// runs as a task only under 2026-07-28, for a request that declared the extension; a
// task-only tool asked without it is -32021; anything else is a plain call after the tool's
// beforeTask step (server-methods.ts).

import type { JsonObject } from "../../wire/envelope.js";
import type { ModernRequestInfo } from "../../rules/modern.js";
import { TASKS_EXTENSION, declaresExtension } from "../../rules/negotiated-extensions.js";
import type { CallToolResult, ServerCapabilities } from "../../types/index.js";
import { callPreparedTool, callTool } from "./server-methods.js";
import type { HandlerContext, TaskOptions, ToolEntry } from "./server-options.js";
import type { ServedMethod } from "./session.js";
import { TaskRunner } from "./task-server.js";
import { CoreTasks } from "./task-core.js";

/** What serveTasks returns, for ServerOptions.tasks. */
export interface TaskSupport {
  /** The options serveTasks was given. */
  readonly options: TaskOptions;
  /**
   * @internal Called once by the Server being built: `announce` tells its sessions that a
   * task changed, `elsewhere` forwards tasks/update answers for a task another process runs.
   */
  attach(announce: (task: JsonObject) => void, elsewhere: (taskId: string, inputResponses: JsonObject) => void): ServedTasks;
}

/** @internal What a Server serves of the tasks extension. */
export interface ServedTasks {
  readonly runner: TaskRunner;
  /** The 2025-11-25 core tasks, with TaskOptions.core; undefined otherwise. */
  readonly core: CoreTasks | undefined;
  /** Request methods added to the Server's method table. */
  readonly methods: readonly ServedMethod[];
  /** Adds the extension to the capabilities a session declares. */
  declare(capabilities: ServerCapabilities): ServerCapabilities;
  /** tools/call of a tool that is not plain (task support or a beforeTask step). */
  callTool(
    tools: ReadonlyMap<string, ToolEntry>,
    entry: ToolEntry,
    context: HandlerContext & { readonly params: JsonObject },
  ): Promise<CallToolResult | JsonObject>;
}

/**
 * Serves the 2026-07-28 tasks extension (io.modelcontextprotocol/tasks) from the Server it is
 * given to: where tasks live (default: a MemoryTaskStore) and how their ids are made
 * (`newTaskId`, unguessable, e.g. crypto.randomUUID). Throws an Error when newTaskId is not a function.
 */
export function serveTasks(options: TaskOptions): TaskSupport {
  if (typeof options?.newTaskId !== "function")
    throw new Error("tasks: expected newTaskId, a function returning unguessable ids (e.g. crypto.randomUUID); got none");
  return {
    options,
    attach: (announce, elsewhere) => {
      const runner = new TaskRunner(options, announce, elsewhere);
      return servedTasks(runner, options.core === true ? new CoreTasks(options, runner.store, announce) : undefined);
    },
  };
}

function servedTasks(runner: TaskRunner, core: CoreTasks | undefined): ServedTasks {
  // The extension's methods only under 2026-07-28, and only once the engine saw the extension offered and declared (the method
  // table's extension column); the core ones in the session era, once the server declared `tasks` (TK-08, TK-10).
  const methods: ServedMethod[] =
    core === undefined
      ? [
          { method: "tasks/get", serve: (context) => runner.get(context.params, context.session.now()) },
          { method: "tasks/update", serve: (context) => runner.update(context.params, context.session.now()) },
          { method: "tasks/cancel", serve: (context) => runner.cancel(context.params, context.session.now()) },
        ]
      : [
          {
            method: "tasks/get",
            serve: (context) => (context.modern === undefined ? core.get(context) : runner.get(context.params, context.session.now())),
          },
          { method: "tasks/update", serve: (context) => runner.update(context.params, context.session.now()) },
          {
            method: "tasks/cancel",
            serve: (context) =>
              context.modern === undefined ? core.cancel(context) : runner.cancel(context.params, context.session.now()),
          },
          { method: "tasks/result", serve: (context) => core.result(context) },
          { method: "tasks/list", serve: (context) => core.list(context) },
        ];
  return {
    runner,
    core,
    methods,
    // The extension is offered under 2026-07-28 through server/discover; the session era has no extensions and ignores the key.
    // The core `tasks` capability is the session era's (server/discover leaves it out).
    declare: (capabilities) => {
      const withExtensions = capabilities as ServerCapabilities & { extensions?: object };
      const declared = { ...capabilities, extensions: { ...withExtensions.extensions, [TASKS_EXTENSION]: {} } } as ServerCapabilities;
      return core === undefined ? declared : core.declare(declared);
    },
    callTool: (tools, entry, context) => callTaskTool(runner, tools, entry, context),
  };
}

/**
 * tools/call of a tool with task support or a beforeTask step: asked by a 2026-07-28 request
 * that declared the extension, a tool that may or must run as a task becomes one (after its
 * beforeTask step, which runs in the request and may take input rounds); a task-only tool
 * asked without the extension is -32021; anything else is a plain call after the beforeTask step.
 */
function callTaskTool(
  runner: TaskRunner,
  tools: ReadonlyMap<string, ToolEntry>,
  entry: ToolEntry,
  context: HandlerContext & { readonly params: JsonObject },
): Promise<CallToolResult | JsonObject> {
  const modern = context.modern;
  const support = entry.taskSupport;
  if (modern === undefined || support === undefined) return callPreparedTool(tools, entry, context);
  if (!declaresExtension(modern.clientCapabilities, TASKS_EXTENSION)) {
    // Thrown in this turn: the request's answer is the -32021 error.
    if (support === "required") throw TaskRunner.requiredError();
    return callPreparedTool(tools, entry, context);
  }
  return startTask(runner, tools, entry, context, modern);
}

/** The task path of callTaskTool: the beforeTask step in the request, then the task created and its handler started. */
async function startTask(
  runner: TaskRunner,
  tools: ReadonlyMap<string, ToolEntry>,
  entry: ToolEntry,
  context: HandlerContext & { readonly params: JsonObject },
  modern: ModernRequestInfo,
): Promise<JsonObject> {
  const params = context.params;
  const prepared =
    entry.beforeTask === undefined ? undefined : await entry.beforeTask((params.arguments ?? {}) as Record<string, unknown>, context);
  const session = context.session;
  // A task runs as whoever created it: the creating request's ctx.auth.
  return runner.start(
    session,
    context.requestId,
    modern,
    () => session.now(),
    async (taskContext) => (await callTool(tools, params, { ...taskContext, prepared, auth: context.auth })) as unknown as JsonObject,
  );
}
