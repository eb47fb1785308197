// Task calls from our client: a tools/call the server answers with a task is driven to its
// final result. Two wire forms:
// - 2026-07-28, the io.modelcontextprotocol/tasks extension (SEP-2663): we declare the
//   extension; the server alone decides to answer with a CreateTaskResult (resultType
//   "task"); we poll tasks/get, answer its inputRequests with our handlers through
//   tasks/update, and take the result inlined on the completed task;
// - 2025-11-25 (core tasks): for a tool whose execution.taskSupport is optional or required
//   on a server declaring tasks.requests.tools.call, the call carries `task`; we poll
//   tasks/get and take the result from tasks/result (which also carries the server's
//   input requests, as ordinary requests, while the task is input_required).
// A status push (2025-11-25 notifications/tasks/status, 2026-07-28 notifications/tasks) for
// a task being waited on ends the wait at once and stands in for the next poll; without
// pushes the wait polls (TK-11). resume() drives a task known by id (a reconnect, a restart).
//
// Invariants (TX-11, TK-11):
// - polling waits on the host's timer (TaskTransport.sleep), at the server's interval held
//   to 10 ms … 60 s; the call's maxTotalMs covers the whole task (then it is cancelled);
// - a push is kept only for a task being waited on, and only the latest one (no growth
//   with what the server sends); a push never settles a task by itself in a form it cannot
//   read: the core form still takes its result from tasks/result;
// - a failed task rejects with TaskFailedError, a cancelled one with TaskCancelledError;
//   aborting the call's signal sends tasks/cancel and rejects with RequestAbortedError;
// - what the server feeds is bounded: input requests answered per task (maxInputRounds ×
//   maxInputRequests) and each round's count (maxInputRequests); keys stay Map/Set keys.

import type { JsonObject } from "../../wire/envelope.js";
import { isJsonObject } from "../../wire/envelope.js";
import type { CallToolRequestParams, CallToolResult, ServerCapabilities } from "../../types/index.js";
import type { ServerRequestHandler } from "./client-options.js";
import {
  InvalidResultError,
  McpError,
  RequestAbortedError,
  RequestTimeoutError,
  TaskCancelledError,
  TaskFailedError,
} from "../shared/errors.js";
import { NO_CALL_OPTIONS } from "./client-calls.js";
import { fulfil } from "./input-client.js";
import { DeadlineQueue } from "./request-queue.js";
import type { AbortSignalLike } from "../shared/signal.js";
import type { CallOptions } from "../shared/call-options.js";

/** What a task looks like to the caller, whatever its wire form. */
export interface TaskInfo {
  readonly taskId: string;
  readonly status: string;
  readonly statusMessage: string | undefined;
  readonly pollIntervalMs: number | undefined;
  readonly ttlMs: number | null | undefined;
  /** "extension": 2026-07-28 tasks extension; "core": 2025-11-25 task-augmented call. */
  readonly form: "extension" | "core";
}

export interface TaskCallOptions extends CallOptions {
  /** false: a plain call even where a task is possible (a 2026-07-28 server may still answer with one). Default true. */
  task?: boolean;
  /** 2025-11-25: the retention asked for, ms. */
  ttlMs?: number;
  /** Each task state seen: once created, then at every poll. */
  onTask?: (task: TaskInfo) => void;
}

/** What the task client needs of its Client. */
export interface TaskTransport {
  era(): "undecided" | "session" | "modern";
  /** One request, no input rounds. */
  send(method: string, params: JsonObject | undefined, options: CallOptions): Promise<JsonObject>;
  /**
   * A request with its input_required rounds (2026-07-28); `then` maps its final result in the
   * same promise step; `fresh`: params is an object made for this call (only its members need the JSON-safe copy).
   */
  request(
    method: string,
    params: JsonObject | undefined,
    options: CallOptions,
    then?: (result: JsonObject, options: CallOptions) => JsonObject | PromiseLike<JsonObject>,
    fresh?: boolean,
  ): Promise<JsonObject>;
  /** The host's clock, ms. */
  now(): number;
  /** Resolves after `ms` on the host's clock, or when `early.wake` (set by the sleep) is called; rejects when the signal aborts. */
  sleep(ms: number, signal: AbortSignalLike | undefined, early?: Wakeable): Promise<void>;
  readonly handlers: ReadonlyMap<string, ServerRequestHandler<JsonObject | undefined, object>>;
  readonly ownCapabilities: JsonObject;
  serverCapabilities(): ServerCapabilities | undefined;
  readonly maxInputRounds: number;
  readonly maxInputRequests: number;
}

/** A sleep that can end early: the sleep puts its wake function here while it lasts. */
export interface Wakeable {
  wake?: () => void;
}

/** A wait on one task: the latest status push for it (not yet read) and the wake of its pause. */
interface Watcher extends Wakeable {
  pushed: JsonObject | undefined;
}

/** One page of tasks/list (2025-11-25). */
export interface TaskPage {
  readonly tasks: readonly TaskInfo[];
  readonly nextCursor: string | undefined;
}

/** The interval used when the server suggests none, ms. */
const DEFAULT_POLL_MS = 1000;
/** What a server's suggested interval is held to, ms: no busy loop, no wait of hours between two polls. */
const MIN_POLL_MS = 10;
const MAX_POLL_MS = 60_000;

function pollDelay(ms: number): number {
  return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, ms));
}

function info(task: JsonObject, form: "extension" | "core"): TaskInfo {
  const ttl = form === "extension" ? task.ttlMs : task.ttl;
  const poll = form === "extension" ? task.pollIntervalMs : task.pollInterval;
  return {
    taskId: String(task.taskId),
    status: String(task.status),
    statusMessage: typeof task.statusMessage === "string" ? task.statusMessage : undefined,
    pollIntervalMs: typeof poll === "number" && poll > 0 ? poll : undefined,
    ttlMs: typeof ttl === "number" || ttl === null ? ttl : undefined,
    form,
  };
}

function checkedTask(method: string, task: unknown): JsonObject {
  if (!isJsonObject(task) || typeof task.taskId !== "string" || typeof task.status !== "string")
    throw new InvalidResultError(method, "result", "a task with taskId and status", JSON.stringify(task)?.slice(0, 80) ?? "nothing");
  return task;
}

/** The lower-level task API of a Client (client.tasks): create, poll, update, cancel, wait. */
export class TaskClient {
  /** execution.taskSupport by tool name, from the last tools/list (bounded by maxListItems, like the listing). */
  private readonly toolTasks = new Map<string, string>();
  /** The waits in progress by task id (bounded by the calls in flight). */
  private readonly watchers = new Map<string, Set<Watcher>>();

  constructor(private readonly transport: TaskTransport) {}

  /** Remembers each tool's execution.taskSupport (2025-11-25 task-augmented calls); a new listing replaces the last. */
  learnTools(tools: readonly unknown[]): void {
    this.toolTasks.clear();
    for (const tool of tools) {
      if (!isJsonObject(tool) || typeof tool.name !== "string" || !isJsonObject(tool.execution)) continue;
      const support = tool.execution.taskSupport;
      if (typeof support === "string") this.toolTasks.set(tool.name, support);
    }
  }

  /** Whether a call to `name` would be made as a 2025-11-25 task-augmented call. */
  private coreTaskCall(name: string): boolean {
    const caps = this.transport.serverCapabilities() as { tasks?: { requests?: { tools?: { call?: unknown } } } } | undefined;
    const support = this.toolTasks.get(name);
    return (
      this.transport.era() === "session" &&
      caps?.tasks?.requests?.tools?.call !== undefined &&
      (support === "optional" || support === "required")
    );
  }

  /**
   * Starts a tool call: resolves with the task when the server made one, or with the result
   * when it answered at once (a 2026-07-28 server decides; so does a tool that cannot run as a task).
   */
  async create(
    name: string,
    args: Record<string, unknown> | undefined,
    options: TaskCallOptions = {},
  ): Promise<{ task: TaskInfo } | { result: CallToolResult }> {
    const params: CallToolRequestParams = args === undefined ? { name } : { name, arguments: args };
    if (options.task !== false && this.coreTaskCall(name)) {
      const created = await this.transport.send(
        "tools/call",
        { ...params, task: options.ttlMs === undefined ? {} : { ttl: options.ttlMs } } as JsonObject,
        options,
      );
      return { task: info(checkedTask("tools/call", created.task), "core") };
    }
    const result = await this.transport.request("tools/call", params as unknown as JsonObject, options);
    if (result.resultType === "task") return { task: info(checkedTask("tools/call", result), "extension") };
    return { result: result as unknown as CallToolResult };
  }

  /**
   * A status push from the server (notifications/tasks/status, notifications/tasks): the
   * waits on its task take it in place of their next poll, now. Pushes for tasks nobody
   * waits on are dropped.
   */
  heard(method: string, params: JsonObject | undefined): void {
    if (method !== "notifications/tasks/status" && method !== "notifications/tasks") return;
    if (params === undefined || typeof params.taskId !== "string" || typeof params.status !== "string") return;
    const watchers = this.watchers.get(params.taskId);
    if (watchers === undefined) return;
    for (const watcher of watchers) {
      watcher.pushed = params;
      const wake = watcher.wake;
      watcher.wake = undefined;
      wake?.();
    }
  }

  /**
   * Drives a task known by its id (created before a reconnect or a restart) to its end, as
   * callTool would: the form is the era's (2026-07-28: the extension; else core tasks).
   */
  async resume(taskId: string, options: TaskCallOptions = {}): Promise<CallToolResult> {
    const form = this.transport.era() === "modern" ? "extension" : "core";
    const call: CallOptions = { timeoutMs: options.timeoutMs, signal: options.signal, maxTotalMs: options.maxTotalMs };
    const current = checkedTask("tasks/get", await this.get(taskId, call));
    return this.wait(info(current, form), options);
  }

  /** tasks/list (2025-11-25): one page of the tasks the server keeps for us. */
  async list(cursor?: string, options: CallOptions = {}): Promise<TaskPage> {
    const page = await this.transport.send("tasks/list", cursor === undefined ? {} : { cursor }, options);
    if (!Array.isArray(page.tasks))
      throw new InvalidResultError(
        "tasks/list",
        "result.tasks",
        "an array of tasks",
        JSON.stringify(page.tasks)?.slice(0, 80) ?? "nothing",
      );
    return {
      tasks: page.tasks.map((task) => info(checkedTask("tasks/list", task), "core")),
      nextCursor: typeof page.nextCursor === "string" ? page.nextCursor : undefined,
    };
  }

  /** tasks/get: the task as the server reports it now (2026-07-28: a DetailedTask). */
  get(taskId: string, options: CallOptions = {}): Promise<JsonObject> {
    return this.transport.send("tasks/get", { taskId }, options);
  }

  /** tasks/update (2026-07-28): answers to the task's input requests, by key. */
  update(taskId: string, inputResponses: JsonObject, options: CallOptions = {}): Promise<JsonObject> {
    return this.transport.send("tasks/update", { taskId, inputResponses }, options);
  }

  /** tasks/cancel: asks the server to stop the task (cooperative). */
  cancel(taskId: string, options: CallOptions = {}): Promise<JsonObject> {
    return this.transport.send("tasks/cancel", { taskId }, options);
  }

  /** tasks/result (2025-11-25 only): waits for the task's result. */
  result(taskId: string, options: CallOptions = {}): Promise<JsonObject> {
    return this.transport.send("tasks/result", { taskId }, options);
  }

  /** tools/call to its final result: through a task when the server makes one. */
  callTool(name: string, args: Record<string, unknown> | undefined, options: TaskCallOptions = NO_CALL_OPTIONS): Promise<CallToolResult> {
    if (options.task !== false && this.coreTaskCall(name)) return this.coreTaskCallTool(name, args, options);
    // The common case in one promise step: a result, or (2026-07-28) the task the server made of the call.
    const params: CallToolRequestParams = args === undefined ? { name } : { name, arguments: args };
    return this.transport.request(
      "tools/call",
      params as unknown as JsonObject,
      options,
      this.finishCall,
      true,
    ) as unknown as Promise<CallToolResult>;
  }

  /** A 2025-11-25 task-augmented call to its end (a method of its own: a closure in callTool would make every call allocate its context). */
  private coreTaskCallTool(name: string, args: Record<string, unknown> | undefined, options: TaskCallOptions): Promise<CallToolResult> {
    return this.create(name, args, options).then((started) => ("result" in started ? started.result : this.wait(started.task, options)));
  }

  /** A tools/call result, or the task the server made of the call (2026-07-28), followed to its end. Made once: no closure per call. */
  private readonly finishCall = (result: JsonObject, options: TaskCallOptions): JsonObject | Promise<JsonObject> =>
    result.resultType === "task"
      ? (this.wait(info(checkedTask("tools/call", result), "extension"), options) as unknown as Promise<JsonObject>)
      : result;

  /** Polls a task to its end: its result, or TaskFailedError / TaskCancelledError; aborting the signal cancels the task. */
  async wait(task: TaskInfo, options: TaskCallOptions = {}): Promise<CallToolResult> {
    const { signal } = options;
    // maxTotalMs covers the whole task: every poll, update and wait (a server may keep a task working forever).
    const call: CallOptions & { deadline?: number } = { timeoutMs: options.timeoutMs, signal, maxTotalMs: options.maxTotalMs };
    if (options.maxTotalMs !== undefined) call.deadline = this.transport.now() + options.maxTotalMs;
    const watcher: Watcher = { pushed: undefined };
    let watchers = this.watchers.get(task.taskId);
    if (watchers === undefined) this.watchers.set(task.taskId, (watchers = new Set()));
    watchers.add(watcher);
    try {
      options.onTask?.(task);
      return await (task.form === "extension"
        ? this.pollExtension(task, call, watcher, options.onTask)
        : this.pollCore(task, call, watcher, options.onTask));
    } catch (error) {
      if (signal?.aborted === true || error instanceof RequestTimeoutError) {
        // The caller gave up (or its time cap passed): the server is told, best-effort (the answer changes nothing here).
        this.cancel(task.taskId, { timeoutMs: options.timeoutMs }).catch(() => undefined);
        if (signal?.aborted === true)
          throw error instanceof RequestAbortedError ? error : new RequestAbortedError("tools/call", signal.reason);
      }
      throw error;
    } finally {
      watchers.delete(watcher);
      if (watchers.size === 0 && this.watchers.get(task.taskId) === watchers) this.watchers.delete(task.taskId);
    }
  }

  /** The task now: the push heard since the last look, else a tasks/get. */
  private async current(taskId: string, call: CallOptions, watcher: Watcher): Promise<JsonObject> {
    const pushed = watcher.pushed;
    watcher.pushed = undefined;
    return checkedTask("tasks/get", pushed ?? (await this.get(taskId, call)));
  }

  private async pollExtension(
    task: TaskInfo,
    call: CallOptions,
    watcher: Watcher,
    onTask: ((task: TaskInfo) => void) | undefined,
  ): Promise<CallToolResult> {
    const answered = new Set<string>();
    const maxAnswered = this.transport.maxInputRounds * this.transport.maxInputRequests;
    let interval = task.pollIntervalMs ?? DEFAULT_POLL_MS;
    for (;;) {
      const current = await this.current(task.taskId, call, watcher);
      const seen = info(current, "extension");
      onTask?.(seen);
      interval = seen.pollIntervalMs ?? interval;
      if (seen.status === "completed") {
        if (!isJsonObject(current.result))
          throw new InvalidResultError("tasks/get", "result.result", "the result of a completed task", typeof current.result);
        return current.result as unknown as CallToolResult;
      }
      if (seen.status === "failed") {
        const error = isJsonObject(current.error) ? current.error : {};
        throw new TaskFailedError(
          seen.taskId,
          typeof error.code === "number" ? error.code : -32603,
          typeof error.message === "string" ? error.message : (seen.statusMessage ?? "failed"),
          error.data,
        );
      }
      if (seen.status === "cancelled") throw new TaskCancelledError(seen.taskId, seen.statusMessage);
      if (seen.status === "input_required" && isJsonObject(current.inputRequests)) {
        // The same request shows on every poll until answered: each key is answered once.
        const fresh = new Map<string, unknown>();
        for (const key of Object.keys(current.inputRequests)) if (!answered.has(key)) fresh.set(key, current.inputRequests[key]);
        if (fresh.size > 0) {
          if (answered.size + fresh.size > maxAnswered)
            throw new InvalidResultError(
              "tasks/get",
              "result.inputRequests",
              `at most ${maxAnswered} input requests over the task (maxInputRounds × maxInputRequests)`,
              `${answered.size + fresh.size}`,
            );
          const responses = await fulfil(
            this.transport,
            "tasks/get",
            Object.fromEntries(fresh),
            call.signal,
            this.transport.maxInputRequests,
          );
          for (const key of fresh.keys()) answered.add(key);
          await this.update(seen.taskId, responses, call);
          continue;
        }
      }
      await this.pause(interval, call, watcher);
    }
  }

  private async pollCore(
    task: TaskInfo,
    call: CallOptions,
    watcher: Watcher,
    onTask: ((task: TaskInfo) => void) | undefined,
  ): Promise<CallToolResult> {
    let interval = task.pollIntervalMs ?? DEFAULT_POLL_MS;
    for (;;) {
      const seen = info(await this.current(task.taskId, call, watcher), "core");
      onTask?.(seen);
      interval = seen.pollIntervalMs ?? interval;
      if (seen.status === "cancelled") throw new TaskCancelledError(seen.taskId, seen.statusMessage);
      // input_required: tasks/result carries the server's requests (answered by our handlers) and then the result.
      if (seen.status === "completed" || seen.status === "failed" || seen.status === "input_required") {
        let result: JsonObject;
        try {
          result = await this.result(seen.taskId, { ...call, timeoutMs: seen.status === "input_required" ? Infinity : call.timeoutMs });
        } catch (error) {
          if (error instanceof McpError)
            throw new TaskFailedError(seen.taskId, error.code, error.message.replace(/^MCP error -?\d+: /, ""), error.data);
          throw error;
        }
        if (seen.status === "failed") throw new TaskFailedError(seen.taskId, -32603, seen.statusMessage ?? "the task failed", result);
        return result as unknown as CallToolResult;
      }
      await this.pause(interval, call, watcher);
    }
  }

  /** The wait between two polls, cut short by a push; past the call's maxTotalMs the call times out instead. */
  private async pause(interval: number, call: CallOptions & { deadline?: number }, watcher: Watcher): Promise<void> {
    if (watcher.pushed !== undefined) return;
    const delay = pollDelay(interval);
    if (call.deadline !== undefined && this.transport.now() + delay > call.deadline)
      throw new RequestTimeoutError("tools/call", "(task polling)", "total", call.maxTotalMs);
    try {
      await this.transport.sleep(delay, call.signal, watcher);
    } finally {
      watcher.wake = undefined;
    }
  }
}

/** Waits on the host's one timer (a client's driver arms it for the earliest of these and its other deadlines). */
export class PollTimers {
  private readonly waits = new DeadlineQueue<() => void>();

  constructor(
    private readonly now: () => number,
    /** Re-arms the host's timer (the driver's pump). */
    private readonly rearm: () => void,
  ) {}

  next(): number | undefined {
    return this.waits.nextExpiry();
  }

  /** Wakes the waits that are due. */
  fire(now: number): void {
    for (const wake of this.waits.takeExpired(now)) wake();
  }

  /** Resolves after `ms`, or at once when `early.wake` is called; rejects with RequestAbortedError when the signal aborts first. */
  sleep(ms: number, signal: AbortSignalLike | undefined, early?: Wakeable): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(new RequestAbortedError("tools/call", signal.reason));
        return;
      }
      const onAbort = (): void => {
        this.waits.remove(ticket);
        reject(new RequestAbortedError("tools/call", signal?.reason));
      };
      const done = (): void => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      const ticket = this.waits.push(done, this.now() + Math.max(0, ms));
      signal?.addEventListener("abort", onAbort, { once: true });
      // Woken early, the timer entry goes with the sleep: a server pushing often leaves no waits behind.
      if (early !== undefined)
        early.wake = () => {
          if (this.waits.remove(ticket)) done();
        };
      this.rearm();
    });
  }
}
