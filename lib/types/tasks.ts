// Tasks (2025-11-25, experimental; their rules, the TK family of RULES.md, are checked in
// lib/rules/features.ts and lib/rules/params.ts): the Task object, task augmentation of
// `tools/call`, `sampling/createMessage` and `elicitation/create`, and the params/results
// of `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`. Either side can be the
// task receiver. Numeric fields are TS `number` (the JSON says integer; RULES.md SCH-05).

import type { BaseRequestParams, MessageMeta, PaginatedRequestParams, PaginatedResult, Result } from "./base.js";
import type { CreateMessageResult, ElicitResult } from "./client.js";
import type { CallToolResult } from "./server.js";

/** The state of a task: starts `working`; `completed`, `failed`, `cancelled` are terminal. @since 2025-11-25 */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** The `task` field of a task-augmented request. @since 2025-11-25 */
export interface TaskMetadata {
  /** Requested retention from creation, in milliseconds. */
  ttl?: number;
}

/** Data associated with a task. @since 2025-11-25 */
export interface Task {
  taskId: string;
  status: TaskStatus;
  /** Human-readable detail for any status (e.g. why it failed). */
  statusMessage?: string;
  /** ISO 8601 creation time. */
  createdAt: string;
  /** ISO 8601 time of the last update. */
  lastUpdatedAt: string;
  /** Actual retention from creation in milliseconds; null for unlimited. */
  ttl: number | null;
  /** Suggested polling interval in milliseconds. */
  pollInterval?: number;
}

/** Params of requests that may be task-augmented. @since 2025-11-25 (`task`) */
export interface TaskAugmentedRequestParams extends BaseRequestParams {
  /**
   * Ask for task-augmented execution: the receiver answers at once with a
   * `CreateTaskResult` and the real result comes from `tasks/result`. Needs the receiver's
   * `capabilities.tasks.requests.*` entry for this method. @since 2025-11-25
   */
  task?: TaskMetadata;
}

/** `_meta` of a `CreateTaskResult`. */
export interface CreateTaskResultMeta extends MessageMeta {
  /** Optional, non-binding text for the model while a `tools/call` task runs. */
  "io.modelcontextprotocol/model-immediate-response"?: string;
}

/** The answer to a task-augmented request. @since 2025-11-25 */
export interface CreateTaskResult extends Result {
  task: Task;
  _meta?: CreateTaskResultMeta;
}

/** Params naming a task (`tasks/get`, `tasks/result`, `tasks/cancel`). @since 2025-11-25 */
export interface TaskIdRequestParams extends BaseRequestParams {
  taskId: string;
}

/** Params of `tasks/get`. @since 2025-11-25 */
export type GetTaskRequestParams = TaskIdRequestParams;

/** Result of `tasks/get`: the Task. @since 2025-11-25 */
export interface GetTaskResult extends Result, Task {}

/** Params of `tasks/result`. @since 2025-11-25 */
export type GetTaskPayloadRequestParams = TaskIdRequestParams;

/**
 * Result of `tasks/result`: exactly the underlying request's result, with
 * `_meta["io.modelcontextprotocol/related-task"]` set. The schema leaves it an open object;
 * since `capabilities.tasks.requests` is exhaustive, it is typed as the results of the three
 * task-augmentable requests (`tools/call`, `sampling/createMessage`, `elicitation/create`).
 * @since 2025-11-25
 */
export type GetTaskPayloadResult = CallToolResult | CreateMessageResult | ElicitResult;

/** Params of `tasks/list`. @since 2025-11-25 */
export type ListTasksRequestParams = PaginatedRequestParams;

/** Result of `tasks/list`. @since 2025-11-25 */
export interface ListTasksResult extends PaginatedResult {
  tasks: Task[];
}

/** Params of `tasks/cancel`. @since 2025-11-25 */
export type CancelTaskRequestParams = TaskIdRequestParams;

/** Result of `tasks/cancel`: the Task, now `cancelled`. @since 2025-11-25 */
export interface CancelTaskResult extends Result, Task {}
