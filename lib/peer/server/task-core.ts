// The 2025-11-25 core tasks on the server side (task-augmented requests, experimental): a
// session-era tools/call that carries `task` for a tool with task support is answered with a
// CreateTaskResult `{task}` once the task is in the TaskStore (the tasks extension's store),
// its handler runs on, detached from the request, and tasks/get, tasks/result, tasks/list and
// tasks/cancel read and steer it; notifications/tasks/status tell the creating session of
// each change. Reached only through serveTasks({ core: true }) (task-support.ts).
//
// Invariants:
// - TK-08: a call with `task` of a tool without task support, or without `task` of a tool
//   that requires it, is -32601 (the engine refuses the same once the tool was listed);
// - TK-10: with an auth context (ctx.auth with a clientId or a subject) a task is bound to
//   it: another identity's tasks/get, tasks/result and tasks/cancel are answered as for an
//   unknown task, and tasks/list lists only the caller's; without one the id is the bearer
//   (newTaskId: unguessable), and tasks/list lists only the calling session's tasks;
// - TK-09: a task's ctx.elicit / createMessage / listRoots are requests to the creating
//   session carrying `_meta["io.modelcontextprotocol/related-task"]`, on the stream of a
//   tasks/result waiting on the task when there is one; the task is input_required meanwhile;
// - TK-05: a cancel aborts the handler's signal and settles the task as cancelled before
//   the answer; what the handler does after that changes nothing;
// - notifications/tasks/status for a task go out only once its client asked about it
//   (tasks/get, tasks/result): a push never overtakes the CreateTaskResult (TK-02);
// - every change is announced through the Server (its relay reaches the processes sharing the
//   store): a tasks/result there waiting on a task run here wakes, a cancel there stops it here;
// - tasks/result waits only while its request is in flight: its signal ends the wait
//   (bounded by the engine's pending requests); nothing here reads a clock.

import type { JsonObject, RequestId } from "../../wire/envelope.js";
import { isJsonObject } from "../../wire/envelope.js";
import { ErrorCode } from "../../wire/errors.js";
import { RELATED_TASK_KEY } from "../../rules/features.js";
import { TERMINAL_TASK_STATUSES } from "../../rules/negotiated-extensions.js";
import type {
  CallToolResult,
  CreateMessageResult,
  ElicitResult,
  ListRootsResult,
  ServerCapabilities,
  TaskStatusNotificationParams,
} from "../../types/index.js";
import type { AuthInfo } from "../../auth/types.js";
import type { CallOptions } from "../shared/call-options.js";
import { McpError } from "../shared/errors.js";
import { errorMessage } from "../shared/handlers.js";
import { PeerAbortController } from "../shared/signal.js";
import { callPreparedTool, callTool } from "./server-methods.js";
import type { HandlerContext, TaskOptions, ToolEntry } from "./server-options.js";
import type { ServerSession } from "./session.js";
import { detailedTask, isoTimestamp } from "./task-server.js";
import { recordOutcome, type StoredTask, type TaskLookup, type TaskStore } from "./task-store.js";

type ToolContext = HandlerContext & { readonly params: JsonObject };

interface CoreRunning {
  readonly controller: PeerAbortController;
  readonly session: ServerSession;
  readonly now: () => number;
  /** createdAt + ttlMs on the host's clock (Infinity: no TTL): past it the store has let the task go. */
  readonly expiresAt: number;
  /** Input requests of the handler awaiting the client's answer. */
  outstanding: number;
  /** tasks/result requests waiting on the task: woken when it ends. */
  readonly waiters: Set<() => void>;
  /** The tasks/result request in flight for the task, whose stream carries its input requests (TK-09). */
  resultRequest: RequestId | undefined;
  /** The client asked about the task (tasks/get, tasks/result): it has the CreateTaskResult, so a push cannot overtake it. */
  asked: boolean;
}

const ENDED = TERMINAL_TASK_STATUSES;
/** Tasks per tasks/list page. */
const LIST_PAGE = 50;

/** A stored task as the 2025-11-25 wire has it (Task: ttl and pollInterval, in ms). */
export function coreTask(task: StoredTask): JsonObject {
  const out: JsonObject = {
    taskId: task.taskId,
    status: task.status,
    createdAt: isoTimestamp(task.createdAt),
    lastUpdatedAt: isoTimestamp(task.lastUpdatedAt),
    ttl: task.ttlMs,
  };
  if (task.statusMessage !== undefined) out.statusMessage = task.statusMessage;
  if (task.pollIntervalMs !== undefined) out.pollInterval = task.pollIntervalMs;
  return out;
}

/** TK-10: the identity a task is bound to, from an auth context; undefined without one. */
function identityOf(auth: AuthInfo | undefined): string | undefined {
  if (auth === undefined || (auth.clientId === undefined && auth.subject === undefined)) return undefined;
  return `auth:${JSON.stringify([auth.clientId ?? null, auth.subject ?? null])}`;
}

function taskIdOf(params: JsonObject): string {
  if (typeof params.taskId !== "string")
    throw new McpError(ErrorCode.InvalidParams, "Invalid params: taskId must be a string", { path: "params.taskId" });
  return params.taskId;
}

function unknownTask(taskId: string, lookup: TaskLookup | "foreign"): McpError {
  return new McpError(
    ErrorCode.InvalidParams,
    lookup === "expired" ? `Failed to retrieve task: task ${taskId} has expired` : `Failed to retrieve task: task ${taskId} not found`,
  );
}

/** The session era's tasks of one Server (serveTasks({ core: true })): one per Server, beside the extension's runner. */
export class CoreTasks {
  private readonly running = new Map<string, CoreRunning>();
  /** A key per session without an HTTP session id (stdio, in memory): their tasks/list scope. */
  private readonly sessionKeys = new WeakMap<ServerSession, string>();
  private sessionCount = 0;
  private readonly ttlMs: number | null;
  private readonly pollIntervalMs: number;

  constructor(
    private readonly options: TaskOptions,
    readonly store: TaskStore,
    /** Tells the Server (and, through its relay, every process sharing the store) that a task changed, in the extension's form. */
    private readonly announce: (task: JsonObject) => void = () => undefined,
  ) {
    this.ttlMs = options.ttlMs === undefined ? 3_600_000 : options.ttlMs;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
  }

  /** Tasks whose handler runs in this process now. */
  get runningCount(): number {
    return this.running.size;
  }

  /** The `tasks` capability (2025-11-25): tools/call task-augmented, cancel, and list when the store can list. */
  declare(capabilities: ServerCapabilities): ServerCapabilities {
    const tasks: JsonObject = { cancel: {}, requests: { tools: { call: {} } } };
    if (this.store.list !== undefined) tasks.list = {};
    return { ...capabilities, tasks } as ServerCapabilities;
  }

  /** Whether a session-era tools/call goes through core tasks: it carries `task`, or its tool has task support. */
  takes(entry: ToolEntry | undefined, params: JsonObject): boolean {
    return params.task !== undefined || entry?.taskSupport !== undefined;
  }

  /** A session-era tools/call of a tool with task support, or one that carries `task` (TK-08). */
  callTool(
    tools: ReadonlyMap<string, ToolEntry>,
    entry: ToolEntry | undefined,
    context: ToolContext,
  ): Promise<CallToolResult | JsonObject> {
    const params = context.params;
    const augmented = params.task !== undefined;
    const name = String(params.name);
    if (entry !== undefined && augmented && entry.taskSupport === undefined)
      throw new McpError(
        ErrorCode.MethodNotFound,
        `[TK-08] tool ${name} does not run as a task; expected a call without task, got one with it`,
      );
    if (entry !== undefined && !augmented && entry.taskSupport === "required")
      throw new McpError(
        ErrorCode.MethodNotFound,
        `[TK-08] tool ${name} runs only as a task; expected a call with task, got one without it`,
      );
    if (entry === undefined) return Promise.resolve(callTool(tools, params, context, entry));
    if (!augmented) return callPreparedTool(tools, entry, context);
    return this.start(tools, entry, context);
  }

  private async start(tools: ReadonlyMap<string, ToolEntry>, entry: ToolEntry, context: ToolContext): Promise<JsonObject> {
    const params = context.params;
    const session = context.session;
    const at = session.now();
    const asked = isJsonObject(params.task) ? params.task.ttl : undefined;
    // The receiver may shorten the retention asked for (TK-07), never lengthen it past its own.
    const ttlMs =
      typeof asked === "number" && Number.isInteger(asked) && asked > 0
        ? this.ttlMs === null
          ? asked
          : Math.min(asked, this.ttlMs)
        : this.ttlMs;
    const task: StoredTask = {
      taskId: this.options.newTaskId(),
      status: "working",
      createdAt: at,
      lastUpdatedAt: at,
      ttlMs,
      pollIntervalMs: this.pollIntervalMs,
      owner: identityOf(context.auth) ?? this.sessionKey(context),
    };
    const prepared =
      entry.beforeTask === undefined ? undefined : await entry.beforeTask((params.arguments ?? {}) as Record<string, unknown>, context);
    // Handlers of tasks past their TTL stop here, even when nobody asks for them again.
    for (const [id, other] of this.running) if (other.expiresAt <= at) this.stop(id, "the task expired");
    await this.store.create(task);
    const running: CoreRunning = {
      controller: new PeerAbortController(),
      session,
      now: () => session.now(),
      expiresAt: ttlMs === null ? Infinity : at + ttlMs,
      outstanding: 0,
      waiters: new Set(),
      resultRequest: undefined,
      asked: false,
    };
    this.running.set(task.taskId, running);
    const taskContext = this.context(context, task.taskId, running, prepared);
    // Detached: the request is answered with the task; the outcome goes to the store.
    void Promise.resolve()
      .then(() => callTool(tools, params, taskContext, entry))
      .then(
        (result) => this.finish(task.taskId, running, { status: "completed", result: result as unknown as JsonObject }),
        (error: unknown) => {
          const failure: JsonObject =
            error instanceof McpError
              ? { code: error.code, message: errorMessage(error), ...(error.data === undefined ? {} : { data: error.data as JsonObject }) }
              : { code: ErrorCode.InternalError, message: errorMessage(error) };
          return this.finish(task.taskId, running, { status: "failed", error: failure, statusMessage: String(failure.message) });
        },
      )
      .catch(() => undefined);
    return { task: coreTask(task) };
  }

  /** tasks/get: the task, for a caller it is visible to (TK-10). */
  async get(context: HandlerContext & { readonly params: JsonObject }): Promise<JsonObject> {
    return coreTask(await this.visible(context));
  }

  /** tasks/result (TK-04): waits for the task's end, then its result with the related-task key, or its error. */
  async result(context: HandlerContext & { readonly params: JsonObject }): Promise<JsonObject> {
    let task = await this.visible(context);
    while (!ENDED.has(task.status)) {
      await this.waitForChange(task.taskId, context);
      task = await this.visible(context);
    }
    const related = { [RELATED_TASK_KEY]: { taskId: task.taskId } };
    if (task.status === "completed") {
      const result = task.result ?? { content: [] };
      return { ...result, _meta: { ...(isJsonObject(result._meta) ? result._meta : {}), ...related } };
    }
    if (task.status === "failed") {
      const error = task.error ?? {};
      throw new McpError(
        typeof error.code === "number" ? error.code : ErrorCode.InternalError,
        typeof error.message === "string" ? error.message : "the task failed",
        error.data,
      );
    }
    throw new McpError(
      ErrorCode.InternalError,
      `task ${task.taskId} was cancelled${task.statusMessage === undefined ? "" : `: ${task.statusMessage}`}`,
    );
  }

  /** tasks/list: a page of the caller's tasks (TK-10); the cursor is the id of the last task of the page before. */
  async list(context: HandlerContext & { readonly params: JsonObject }): Promise<JsonObject> {
    const list = this.store.list;
    if (list === undefined) throw new McpError(ErrorCode.MethodNotFound, "Method not found: tasks/list (the task store cannot list)");
    const cursor = context.params.cursor;
    if (cursor !== undefined && typeof cursor !== "string")
      throw new McpError(ErrorCode.InvalidParams, "Invalid params: cursor must be a string", { path: "params.cursor" });
    const owner = identityOf(context.auth) ?? this.sessionKey(context);
    const page = await list.call(this.store, owner, context.session.now(), cursor, LIST_PAGE);
    if (page === undefined) throw new McpError(ErrorCode.InvalidParams, "Invalid params: unknown cursor", { path: "params.cursor" });
    const out: JsonObject = { tasks: page.tasks.map(coreTask) };
    if (page.next !== undefined) out.nextCursor = page.next;
    return out;
  }

  /** tasks/cancel (TK-05): an ended task is -32602; otherwise it is cancelled before the answer, which is the task. */
  async cancel(context: HandlerContext & { readonly params: JsonObject }): Promise<JsonObject> {
    const task = await this.visible(context);
    if (ENDED.has(task.status))
      throw new McpError(
        ErrorCode.InvalidParams,
        `[TK-05] Cannot cancel task ${task.taskId}: expected a task that has not ended, got one ${task.status}`,
      );
    const now = context.session.now();
    const running = this.running.get(task.taskId);
    this.stop(task.taskId, "Cancelled by the client");
    const updated = await this.store.update(task.taskId, { status: "cancelled", statusMessage: "Cancelled by the client" }, now);
    if (updated === undefined || updated === "expired") throw unknownTask(task.taskId, updated);
    this.tell(running, updated);
    return coreTask(updated);
  }

  /** The task a request names, when its caller may see it (TK-10); -32602 otherwise, as for an unknown id (TK-12). */
  private async visible(context: HandlerContext & { readonly params: JsonObject }): Promise<StoredTask> {
    const taskId = taskIdOf(context.params);
    const task = await this.store.get(taskId, context.session.now());
    if (task === undefined || task === "expired") {
      if (task === "expired") this.stop(taskId, "the task expired");
      throw unknownTask(taskId, task);
    }
    if (task.owner !== undefined && task.owner.startsWith("auth:") && task.owner !== identityOf(context.auth))
      throw unknownTask(taskId, "foreign");
    const running = this.running.get(taskId);
    if (running !== undefined) running.asked = true;
    return task;
  }

  /** Resolves when the task changes here, or rejects when the waiting request ends first. */
  private waitForChange(taskId: string, context: HandlerContext): Promise<void> {
    const running = this.running.get(taskId);
    return new Promise<void>((resolve, reject) => {
      const signal = context.signal;
      if (signal.aborted) {
        reject(new McpError(ErrorCode.InternalError, "tasks/result: the request ended"));
        return;
      }
      // A task not run here (another process, or orphaned by a restart) is read again at each change seen here.
      const waiters = running?.waiters ?? this.orphanWaiters(taskId);
      const wake = (): void => {
        waiters.delete(wake);
        signal.removeEventListener("abort", onAbort);
        if (running !== undefined && running.resultRequest === context.requestId) running.resultRequest = undefined;
        resolve();
      };
      const onAbort = (): void => {
        waiters.delete(wake);
        if (running === undefined && waiters.size === 0 && this.orphans.get(taskId) === waiters) this.orphans.delete(taskId);
        if (running !== undefined && running.resultRequest === context.requestId) running.resultRequest = undefined;
        reject(new McpError(ErrorCode.InternalError, "tasks/result: the request ended"));
      };
      waiters.add(wake);
      if (running !== undefined) running.resultRequest = context.requestId;
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  private readonly orphans = new Map<string, Set<() => void>>();

  private orphanWaiters(taskId: string): Set<() => void> {
    let set = this.orphans.get(taskId);
    if (set === undefined) this.orphans.set(taskId, (set = new Set()));
    return set;
  }

  private sessionKey(context: HandlerContext): string {
    if (context.sessionId !== undefined) return `session:${context.sessionId}`;
    let key = this.sessionKeys.get(context.session);
    if (key === undefined) this.sessionKeys.set(context.session, (key = `local:${++this.sessionCount}`));
    return key;
  }

  /** Stops a task's handler here (its signal aborts) and wakes its tasks/result waits. */
  private stop(taskId: string, reason: string): void {
    const running = this.running.get(taskId);
    if (running === undefined) return;
    this.running.delete(taskId);
    running.controller.abort(reason);
  }

  /**
   * @internal A task changed, here or in another process sharing the store (Server.applyChange):
   * a cancel stops its handler here; the tasks/result requests waiting on it here read it again.
   */
  changed(task: JsonObject): void {
    if (typeof task.taskId !== "string") return;
    const running = this.running.get(task.taskId);
    if (running !== undefined && task.status === "cancelled") {
      this.stop(task.taskId, "the task was cancelled");
      for (const wake of [...running.waiters]) wake();
    }
    const orphans = this.orphans.get(task.taskId);
    if (orphans !== undefined) {
      this.orphans.delete(task.taskId);
      for (const wake of [...orphans]) wake();
    }
  }

  /** A change of a task: notifications/tasks/status to its creating session, its tasks/result waits woken, the other processes told. */
  private tell(running: CoreRunning | undefined, task: StoredTask): void {
    if (running !== undefined) {
      for (const wake of [...running.waiters]) wake();
      const session = running.session;
      if (running.asked && !session.engine.isClosed) {
        try {
          session.engine.notify("notifications/tasks/status", coreTask(task) as unknown as TaskStatusNotificationParams);
          session.driver.pump();
        } catch {
          // Best-effort (the spec says never to rely on it): a refused notification leaves the task as it is.
        }
      }
    }
    // Through the Server: changed() above wakes this process's other waits, the relay tells the other processes.
    this.announce(detailedTask(task));
  }

  private async finish(
    taskId: string,
    running: CoreRunning,
    change: { status: "completed" | "failed"; result?: JsonObject; error?: JsonObject; statusMessage?: string },
  ): Promise<void> {
    if (this.running.get(taskId) !== running) return;
    this.running.delete(taskId);
    // Cancelled (or expired) meanwhile: the handler's late outcome changes nothing (TK-05).
    const updated = await recordOutcome(this.store, taskId, change, running.now());
    if (updated !== undefined) this.tell(running, updated);
  }

  /** input_required while the handler awaits the client, working again once it has every answer (TK-09). */
  private async setWaiting(taskId: string, running: CoreRunning, waiting: boolean): Promise<void> {
    if (this.running.get(taskId) !== running) return;
    const updated = await this.store.update(taskId, { status: waiting ? "input_required" : "working" }, running.now());
    if (updated !== undefined && updated !== "expired") this.tell(running, updated);
  }

  /** The context a task's handler runs with: the creating request's, with the task's signal and its input requests related to the task. */
  private context(origin: ToolContext, taskId: string, running: CoreRunning, prepared: unknown): ToolContext {
    const ask = async <T>(
      method: "sampling/createMessage" | "elicitation/create" | "roots/list",
      params: object | undefined,
      options?: CallOptions,
    ): Promise<T> => {
      const related = { [RELATED_TASK_KEY]: { taskId } };
      const withMeta = { ...(params ?? {}), _meta: { ...((params as { _meta?: object } | undefined)?._meta ?? {}), ...related } };
      if (running.outstanding++ === 0) await this.setWaiting(taskId, running, true);
      try {
        return (await running.session.request(
          method,
          withMeta,
          { ...options, signal: running.controller.signal },
          running.resultRequest,
        )) as T;
      } finally {
        if (--running.outstanding === 0) await this.setWaiting(taskId, running, false);
      }
    };
    return {
      params: origin.params,
      requestId: origin.requestId,
      method: "tools/call",
      clientCapabilities: origin.clientCapabilities,
      modern: undefined,
      requestState: undefined,
      inputResponses: undefined,
      signal: running.controller.signal,
      session: origin.session,
      // A task runs as whoever created it.
      auth: origin.auth,
      http: origin.http,
      sessionId: origin.sessionId,
      header: () => undefined,
      taskId,
      prepared,
      // The request that carried the progress token is answered: progress has no stream left.
      progress: () => undefined,
      log: (level, data, logger) => origin.log(level, data, logger),
      createMessage: (params, options) => ask<CreateMessageResult>("sampling/createMessage", params, options),
      elicit: (params, options) => ask<ElicitResult>("elicitation/create", params, options),
      listRoots: (options) => ask<ListRootsResult>("roots/list", undefined, options),
      inputRequired: () => {
        throw new Error("inputRequired: a 2025-11-25 task asks for input through ctx.elicit, createMessage or listRoots");
      },
      once: (_key, fn) => Promise.resolve(fn()),
    };
  }
}
