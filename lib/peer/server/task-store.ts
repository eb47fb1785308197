// Where a server keeps its tasks (the 2026-07-28 tasks extension, SEP-2663): the TaskStore
// interface, plain and async so that a shared store (Redis, a database) fits, and
// MemoryTaskStore, the in-process default.
//
// Invariants:
// - create() is strongly consistent: once its promise resolves, get() finds the task (the
//   server sends the CreateTaskResult only after that);
// - a store has no clock: every call that may expire a task is given `now` (the host's
//   clock, in ms); a task expires at createdAt + ttlMs (ttlMs null: never);
// - an ended task (completed, failed, cancelled) stays as it ended: update() changes nothing;
// - MemoryTaskStore is bounded: past maxTasks it forgets expired tasks, then the oldest
//   ended ones; with none to forget, create() rejects instead of growing.

import type { JsonObject } from "../../wire/envelope.js";

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** A task as stored: times as numbers on the host's clock (ms), the payload of its status. */
export interface StoredTask {
  readonly taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  readonly createdAt: number;
  lastUpdatedAt: number;
  /** From createdAt, in ms; null: kept until deleted. */
  readonly ttlMs: number | null;
  pollIntervalMs?: number;
  /** Outstanding input requests by key (status input_required). */
  inputRequests?: JsonObject;
  /** The final result (status completed). */
  result?: JsonObject;
  /** The JSON-RPC error (status failed). */
  error?: JsonObject;
  /** 2025-11-25 core tasks: whose task it is (TK-10), the key tasks/list selects by. */
  readonly owner?: string;
}

/** What changes in a task; absent keys stay as they are, `null` removes an optional field. */
export interface TaskChange {
  status?: TaskStatus;
  statusMessage?: string | null;
  inputRequests?: JsonObject | null;
  result?: JsonObject;
  error?: JsonObject;
}

export type TaskLookup = StoredTask | "expired" | undefined;

/** One page of TaskStore.list. */
export interface TaskListPage {
  readonly tasks: readonly StoredTask[];
  /** The id to continue after; undefined on the last page. */
  readonly next: string | undefined;
}

export interface TaskStore {
  /** Stores a new task; resolves once get() can find it. */
  create(task: StoredTask): Promise<void>;
  /** The task, "expired" when its TTL has passed (it is then forgotten), undefined when unknown. */
  get(taskId: string, now: number): Promise<TaskLookup>;
  /** Applies a change (lastUpdatedAt becomes `now`); resolves with the task as it now is, or as get() would answer. */
  update(taskId: string, change: TaskChange, now: number): Promise<TaskLookup>;
  /**
   * Optional (tasks/list, 2025-11-25 core tasks): up to `limit` unexpired tasks of `owner` in
   * creation order, after the task `after`; undefined when `after` names no task of the store.
   */
  list?(owner: string, now: number, after: string | undefined, limit: number): Promise<TaskListPage | undefined>;
}

export interface MemoryTaskStoreOptions {
  /** Tasks kept at once. Default 1000. */
  maxTasks?: number;
}

const ENDED: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"]);

function expired(task: StoredTask, now: number): boolean {
  return task.ttlMs !== null && now >= task.createdAt + task.ttlMs;
}

/**
 * Writes a task handler's outcome, unless the task ended (cancelled) or expired meanwhile:
 * a late outcome changes nothing. Resolves with the task as written, or undefined when not.
 */
export async function recordOutcome(store: TaskStore, taskId: string, change: TaskChange, now: number): Promise<StoredTask | undefined> {
  const current = await store.get(taskId, now);
  if (current === undefined || current === "expired" || ENDED.has(current.status)) return undefined;
  const updated = await store.update(taskId, change, now);
  return updated === undefined || updated === "expired" ? undefined : updated;
}

/** The in-process TaskStore: a Map in creation order. */
export class MemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, StoredTask>();
  private readonly maxTasks: number;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.maxTasks = options.maxTasks ?? 1000;
  }

  get size(): number {
    return this.tasks.size;
  }

  async create(task: StoredTask): Promise<void> {
    if (this.tasks.has(task.taskId))
      throw new Error(`task store: expected a new task id, got ${JSON.stringify(task.taskId)}, which is taken`);
    if (this.tasks.size >= this.maxTasks) this.makeRoom(task.createdAt);
    if (this.tasks.size >= this.maxTasks)
      throw new Error(`task store: at most ${this.maxTasks} tasks (maxTasks), none of them ended or expired`);
    this.tasks.set(task.taskId, copy(task));
  }

  async get(taskId: string, now: number): Promise<TaskLookup> {
    const task = this.tasks.get(taskId);
    if (task === undefined) return undefined;
    if (expired(task, now)) {
      this.tasks.delete(taskId);
      return "expired";
    }
    return copy(task);
  }

  async update(taskId: string, change: TaskChange, now: number): Promise<TaskLookup> {
    const task = this.tasks.get(taskId);
    if (task === undefined) return undefined;
    if (expired(task, now)) {
      this.tasks.delete(taskId);
      return "expired";
    }
    // An ended task stays ended, as in the Redis store: a late outcome cannot undo a cancel made elsewhere.
    if (ENDED.has(task.status)) return copy(task);
    if (change.status !== undefined) task.status = change.status;
    if (change.statusMessage === null) delete task.statusMessage;
    else if (change.statusMessage !== undefined) task.statusMessage = change.statusMessage;
    if (change.inputRequests === null) delete task.inputRequests;
    else if (change.inputRequests !== undefined) task.inputRequests = change.inputRequests;
    if (change.result !== undefined) task.result = change.result;
    if (change.error !== undefined) task.error = change.error;
    task.lastUpdatedAt = now;
    return copy(task);
  }

  /** Reads at most maxTasks entries: the Map is bounded, and `after` is found by key. */
  async list(owner: string, now: number, after: string | undefined, limit: number): Promise<TaskListPage | undefined> {
    if (after !== undefined && !this.tasks.has(after)) return undefined;
    const tasks: StoredTask[] = [];
    let started = after === undefined;
    for (const [id, task] of this.tasks) {
      if (!started) {
        started = id === after;
        continue;
      }
      if (task.owner !== owner || expired(task, now)) continue;
      if (tasks.length === limit) return { tasks, next: tasks[tasks.length - 1]?.taskId };
      tasks.push(copy(task));
    }
    return { tasks, next: undefined };
  }

  /** Forgets expired tasks, then ended ones oldest first, until there is room for one more. */
  private makeRoom(now: number): void {
    for (const [id, task] of this.tasks) if (expired(task, now)) this.tasks.delete(id);
    for (const [id, task] of this.tasks) {
      if (this.tasks.size < this.maxTasks) return;
      if (ENDED.has(task.status)) this.tasks.delete(id);
    }
  }
}

function copy(task: StoredTask): StoredTask {
  return { ...task, inputRequests: task.inputRequests === undefined ? undefined : { ...task.inputRequests } };
}
