// The server side of the 2026-07-28 tasks extension (SEP-2663) in the peer layer: a tool
// that may or must run as a task is answered with a CreateTaskResult once its task is in the
// store, its handler runs on, detached from the request, and tasks/get, tasks/update and
// tasks/cancel read and steer it. One TaskRunner per Server: a task outlives the session
// (an HTTP request, under 2026-07-28) that created it. A Server has one only when its
// options name serveTasks(...) (task-support.ts, which starts tasks through it and serves the
// methods); a Server without tasks does not load this file.
//
// Invariants:
// - the CreateTaskResult is sent only after TaskStore.create() resolved (TX-08, strong consistency);
// - a task handler's ctx.elicit / createMessage / listRoots put the task in input_required
//   with one inputRequests entry per call, keyed `<method>#<n>`: n counts up for the task's
//   life, so no key is ever reused; tasks/update answers the outstanding ones (others are
//   ignored), and the task is working again once none is left;
// - tasks/cancel aborts the handler's signal and settles the task as cancelled; what the
//   handler does after that changes nothing; a cancel of an ended task is an empty ack;
// - a task's handler sends no progress and no log messages (no request is left to carry them);
// - what this process runs is bounded by the store's bound; nothing here reads a clock:
//   time is the host's now() of the session that created the task.

import type { JsonObject, RequestId } from "../../wire/envelope.js";
import { isJsonObject } from "../../wire/envelope.js";
import { ErrorCode } from "../../wire/errors.js";
import { TASKS_EXTENSION, TERMINAL_TASK_STATUSES, extensionCapabilities } from "../../rules/negotiated-extensions.js";
import { inputRequiredProblem, type ModernRequestInfo } from "../../rules/modern.js";
import type { ClientCapabilities, CreateMessageResult, ElicitResult, ListRootsResult } from "../../types/index.js";
import { McpError, RequestAbortedError } from "../shared/errors.js";
import { errorMessage } from "../shared/handlers.js";
import { RoundState } from "./round-state.js";
import { PeerAbortController } from "../shared/signal.js";
import { MemoryTaskStore, recordOutcome, type StoredTask, type TaskLookup, type TaskStore } from "./task-store.js";
import type { ServerSession } from "./session.js";
import type { HandlerContext, TaskOptions } from "./server-options.js";

interface Running {
  readonly controller: PeerAbortController;
  /** createdAt + ttlMs on the host's clock (Infinity: no TTL): past it the store has let the task go. */
  readonly expiresAt: number;
  /** Outstanding input requests, by key, with the resolver of the call that asked. */
  readonly outstanding: Map<string, { request: JsonObject; resolve: (answer: unknown) => void; reject: (error: Error) => void }>;
  nextKey: number;
  readonly now: () => number;
}

const TERMINAL = TERMINAL_TASK_STATUSES;

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

/**
 * ms since the Unix epoch (the host's clock) as an ISO 8601 UTC timestamp, by arithmetic
 * (the civil-from-days algorithm): this layer constructs no Date, so it cannot read a clock.
 */
export function isoTimestamp(ms: number): string {
  const total = Math.floor(ms);
  const days = Math.floor(total / 86_400_000);
  const inDay = total - days * 86_400_000;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const time = `${pad(Math.floor(inDay / 3_600_000))}:${pad(Math.floor(inDay / 60_000) % 60)}:${pad(Math.floor(inDay / 1000) % 60)}.${pad(inDay % 1000, 3)}`;
  return `${year < 0 ? "-" : ""}${pad(Math.abs(year), 4)}-${pad(month)}-${pad(day)}T${time}Z`;
}

const iso = isoTimestamp;

/** The Task fields of a stored task, as the wire has them (CreateTaskResult, tasks/get). */
export function wireTask(task: StoredTask): JsonObject {
  const out: JsonObject = {
    taskId: task.taskId,
    status: task.status,
    createdAt: iso(task.createdAt),
    lastUpdatedAt: iso(task.lastUpdatedAt),
    ttlMs: task.ttlMs,
  };
  if (task.statusMessage !== undefined) out.statusMessage = task.statusMessage;
  if (task.pollIntervalMs !== undefined) out.pollIntervalMs = task.pollIntervalMs;
  return out;
}

/** A DetailedTask: the Task plus what its status carries (inputRequests, result or error). */
export function detailedTask(task: StoredTask): JsonObject {
  const out = wireTask(task);
  if (task.status === "input_required") out.inputRequests = task.inputRequests ?? {};
  else if (task.status === "completed") out.result = task.result ?? { content: [] };
  else if (task.status === "failed") out.error = task.error ?? { code: ErrorCode.InternalError, message: "task failed" };
  return out;
}

function taskIdOf(params: JsonObject): string {
  const id = params.taskId;
  if (typeof id !== "string")
    throw new McpError(ErrorCode.InvalidParams, "Invalid params: taskId must be a string", { path: "params.taskId" });
  return id;
}

function notFound(lookup: TaskLookup): McpError {
  return new McpError(
    ErrorCode.InvalidParams,
    lookup === "expired" ? "Failed to retrieve task: Task has expired" : "Failed to retrieve task: Task not found",
  );
}

export class TaskRunner {
  readonly store: TaskStore;
  private readonly running = new Map<string, Running>();
  private readonly ttlMs: number | null;
  private readonly pollIntervalMs: number;

  constructor(
    private readonly options: TaskOptions,
    /** Tells every session of the server that a task changed (notifications/tasks on the listens that asked). */
    private readonly announce: (task: JsonObject) => void,
    /** tasks/update for a task this process does not run: the answers go to the process that does (several processes, one store). */
    private readonly elsewhere: (taskId: string, inputResponses: JsonObject) => void = () => undefined,
  ) {
    if (typeof options.newTaskId !== "function")
      throw new Error("tasks: expected newTaskId, a function returning unguessable ids (e.g. crypto.randomUUID); got none");
    this.store = options.store ?? new MemoryTaskStore();
    this.ttlMs = options.ttlMs === undefined ? 3_600_000 : options.ttlMs;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
  }

  /** Tasks whose handler runs in this process now. */
  get runningCount(): number {
    return this.running.size;
  }

  /** The -32021 for a tool that runs only as a task, asked by a request that did not declare the extension. */
  static requiredError(): McpError {
    return new McpError(ErrorCode.MissingRequiredClientCapability, "Missing required client capability", {
      requiredCapabilities: extensionCapabilities(TASKS_EXTENSION),
    });
  }

  /**
   * Creates a task for a request and starts `work` on it; resolves with the CreateTaskResult
   * once the store has the task. `work` gets the task's context and returns the tool result;
   * an McpError it throws fails the task with that error.
   */
  async start(
    session: ServerSession,
    requestId: RequestId,
    modern: ModernRequestInfo,
    now: () => number,
    work: (context: HandlerContext) => Promise<JsonObject>,
  ): Promise<JsonObject> {
    const at = now();
    const task: StoredTask = {
      taskId: this.options.newTaskId(),
      status: "working",
      createdAt: at,
      lastUpdatedAt: at,
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
    };
    // Handlers of tasks past their TTL stop here, even when nobody asks for them again (bounded like the store).
    for (const [id, other] of this.running) if (other.expiresAt <= at) this.forget(id, "the task expired");
    await this.store.create(task);
    const running: Running = {
      controller: new PeerAbortController(),
      expiresAt: this.ttlMs === null ? Infinity : at + this.ttlMs,
      outstanding: new Map(),
      nextKey: 0,
      now,
    };
    this.running.set(task.taskId, running);
    const context = this.context(session, requestId, modern, task.taskId, running);
    // Detached: the request is answered with the task; the outcome goes to the store.
    void Promise.resolve()
      .then(() => work(context))
      .then(
        (result) => this.finish(task.taskId, running, { status: "completed", result }),
        (error: unknown) => {
          const failure =
            error instanceof McpError
              ? { code: error.code, message: errorMessage(error), ...(error.data === undefined ? {} : { data: error.data }) }
              : { code: ErrorCode.InternalError, message: errorMessage(error) };
          return this.finish(task.taskId, running, { status: "failed", error: failure as JsonObject, statusMessage: failure.message });
        },
      )
      .catch(() => undefined);
    return { resultType: "task", ...wireTask(task) };
  }

  async get(params: JsonObject, now: number): Promise<JsonObject> {
    const taskId = taskIdOf(params);
    const task = await this.store.get(taskId, now);
    if (task === undefined || task === "expired") {
      this.forget(taskId, "the task expired");
      throw notFound(task);
    }
    return detailedTask(task);
  }

  /** tasks/update (TX-07): answers outstanding input requests; keys not outstanding are ignored; acknowledged with an empty result. */
  async update(params: JsonObject, now: number): Promise<JsonObject> {
    const taskId = taskIdOf(params);
    const responses = params.inputResponses;
    if (!isJsonObject(responses))
      throw new McpError(ErrorCode.InvalidParams, "Invalid params: inputResponses must be an object", { path: "params.inputResponses" });
    const task = await this.store.get(taskId, now);
    if (task === undefined || task === "expired") throw notFound(task);
    if (TERMINAL.has(task.status)) return {};
    const running = this.running.get(taskId);
    if (running === undefined) {
      if (task.status === "input_required") this.elsewhere(taskId, responses);
      return {};
    }
    await this.answer(taskId, running, responses);
    return {};
  }

  /** @internal tasks/update answered on another process for a task this one runs. */
  async answerHere(taskId: string, responses: JsonObject): Promise<void> {
    const running = this.running.get(taskId);
    if (running !== undefined) await this.answer(taskId, running, responses);
  }

  private async answer(taskId: string, running: Running, responses: JsonObject): Promise<void> {
    const answered: Array<{ resolve: (answer: unknown) => void; answer: unknown }> = [];
    for (const key of Object.keys(responses)) {
      const entry = running.outstanding.get(key);
      if (entry === undefined) continue;
      running.outstanding.delete(key);
      answered.push({ resolve: entry.resolve, answer: responses[key] });
    }
    if (answered.length > 0) await this.writeOutstanding(taskId, running);
    // The handler resumes after the store says what is still outstanding.
    for (const { resolve, answer } of answered) resolve(answer);
  }

  /** tasks/cancel: cooperative and idempotent; an empty ack. */
  async cancel(params: JsonObject, now: number): Promise<JsonObject> {
    const taskId = taskIdOf(params);
    const task = await this.store.get(taskId, now);
    if (task === undefined || task === "expired") throw notFound(task);
    await this.cancelTask(taskId, now, "Cancelled by the client");
    return {};
  }

  /**
   * Cancels a task from the server's side (or for tasks/cancel): its handler's signal aborts
   * and it settles as cancelled. False when it is unknown, expired or ended already.
   */
  async cancelTask(taskId: string, now: number, statusMessage = "Cancelled by the server"): Promise<boolean> {
    const task = await this.store.get(taskId, now);
    if (task === undefined || task === "expired" || TERMINAL.has(task.status)) return false;
    // Stopped here first, so that nothing the handler still does can move the task out of cancelled.
    this.forget(taskId, statusMessage);
    const updated = await this.store.update(taskId, { status: "cancelled", statusMessage, inputRequests: null }, now);
    if (updated !== undefined && updated !== "expired") this.announce(detailedTask(updated));
    return true;
  }

  /** @internal Another process cancelled a task this one runs: its handler stops here (nothing more is written). */
  stopHere(taskId: string, reason: string): void {
    this.forget(taskId, reason);
  }

  /** Stops a task's handler (its signal aborts, its pending input calls reject) and forgets it here. */
  private forget(taskId: string, reason: string): void {
    const running = this.running.get(taskId);
    if (running === undefined) return;
    this.running.delete(taskId);
    running.controller.abort(reason);
    for (const entry of running.outstanding.values()) entry.reject(new RequestAbortedError("tasks/update", reason));
    running.outstanding.clear();
  }

  private async finish(
    taskId: string,
    running: Running,
    change: { status: "completed" | "failed"; result?: JsonObject; error?: JsonObject; statusMessage?: string },
  ): Promise<void> {
    if (this.running.get(taskId) !== running) return;
    this.running.delete(taskId);
    const updated = await recordOutcome(this.store, taskId, { ...change, inputRequests: null }, running.now());
    if (updated !== undefined) this.announce(detailedTask(updated));
  }

  private async writeOutstanding(taskId: string, running: Running): Promise<void> {
    if (this.running.get(taskId) !== running) return;
    const requests: JsonObject = {};
    for (const [key, entry] of running.outstanding) requests[key] = entry.request;
    const pending = running.outstanding.size > 0;
    const updated = await this.store.update(
      taskId,
      pending ? { status: "input_required", inputRequests: requests } : { status: "working", inputRequests: null },
      running.now(),
    );
    if (updated !== undefined && updated !== "expired") this.announce(detailedTask(updated));
  }

  /** The context a task's handler runs with: the creating request's client, the task's signal, input through inputRequests. */
  private context(
    session: ServerSession,
    requestId: RequestId,
    modern: ModernRequestInfo,
    taskId: string,
    running: Running,
  ): HandlerContext {
    const ask = <T>(method: string, params: object | undefined): Promise<T> => {
      if (running.controller.signal.aborted) return Promise.reject(new RequestAbortedError(method, running.controller.signal.reason));
      const key = `${method}#${running.nextKey++}`;
      const request: JsonObject = params === undefined ? { method } : { method, params: params as JsonObject };
      // The creating request's client must have declared this kind of input (MOD-02): otherwise the task fails with -32021.
      const problem = inputRequiredProblem("tools/call", { resultType: "input_required", inputRequests: { [key]: request } }, modern);
      if (problem !== undefined) {
        return Promise.reject(
          new McpError(
            ErrorCode.MissingRequiredClientCapability,
            "Missing required client capability",
            problem.missing === undefined ? undefined : { requiredCapabilities: problem.missing },
          ),
        );
      }
      return new Promise<T>((resolve, reject) => {
        running.outstanding.set(key, { request, resolve: resolve as (answer: unknown) => void, reject });
        this.writeOutstanding(taskId, running).catch((error: unknown) =>
          reject(error instanceof Error ? error : new Error(errorMessage(error))),
        );
      });
    };
    const memo = RoundState.session();
    return {
      requestId,
      method: "tools/call",
      clientCapabilities: modern.clientCapabilities as ClientCapabilities,
      modern,
      requestState: undefined,
      inputResponses: undefined,
      signal: running.controller.signal,
      session,
      // The creating request's credentials are put here by task-support.ts; a task outlives its HTTP request.
      auth: undefined,
      sessionId: undefined,
      header: () => undefined,
      taskId,
      // SEP-2663: no progress and no log messages for a task.
      progress: () => undefined,
      log: () => undefined,
      createMessage: (params) => ask<CreateMessageResult>("sampling/createMessage", params),
      elicit: (params) => ask<ElicitResult>("elicitation/create", params),
      listRoots: () => ask<ListRootsResult>("roots/list", undefined),
      inputRequired: () => {
        throw new Error(
          "inputRequired: a task asks for input through ctx.elicit, createMessage or listRoots (its inputRequests), not through an input_required result",
        );
      },
      // A task's handler runs once (its input comes through inputRequests, not re-runs): once only memoizes.
      once: (key, fn) => memo.once(key, fn, false),
    };
  }
}
