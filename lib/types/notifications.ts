// Params of every notification of RULES.md MT-02, SCH-03. Notifications without defined params
// (`notifications/initialized`, the `*/list_changed` ones) take the optional base params
// (`_meta` only).

import type { BaseNotificationParams, LoggingLevel, ProgressToken, RequestId } from "./base.js";
import type { Task } from "./tasks.js";

/** Params of `notifications/cancelled` (either side). */
export interface CancelledNotificationParams extends BaseNotificationParams {
  /**
   * The request to cancel, previously issued in the same direction. Required in
   * 2024-11-05 … 2025-06-18; optional since 2025-11-25, where it MUST be present for
   * non-task requests and MUST NOT be used for tasks (use `tasks/cancel`).
   */
  requestId?: RequestId;
  /** May be logged or shown to the user. */
  reason?: string;
}

/** Params of `notifications/initialized` (optional). */
export type InitializedNotificationParams = BaseNotificationParams;

/** Params of `notifications/progress` (either side, from the request's receiver). */
export interface ProgressNotificationParams extends BaseNotificationParams {
  /** The token from the request's `_meta.progressToken`. */
  progressToken: ProgressToken;
  /** Progress so far; MUST increase with each notification. */
  progress: number;
  /** Total, if known. */
  total?: number;
  /** @since 2025-03-26 */
  message?: string;
}

/** Params of `notifications/message` (S→C, log entry). */
export interface LoggingMessageNotificationParams extends BaseNotificationParams {
  level: LoggingLevel;
  /** Name of the logger. */
  logger?: string;
  /** Any JSON value. */
  data: unknown;
}

/** Params of `notifications/resources/list_changed` (optional). */
export type ResourceListChangedNotificationParams = BaseNotificationParams;

/** Params of `notifications/resources/updated`. */
export interface ResourceUpdatedNotificationParams extends BaseNotificationParams {
  /** The updated resource (possibly a sub-resource of the subscribed one). */
  uri: string;
}

/** Params of `notifications/prompts/list_changed` (optional). */
export type PromptListChangedNotificationParams = BaseNotificationParams;

/** Params of `notifications/tools/list_changed` (optional). */
export type ToolListChangedNotificationParams = BaseNotificationParams;

/** Params of `notifications/roots/list_changed` (optional). */
export type RootsListChangedNotificationParams = BaseNotificationParams;

/** Params of `notifications/elicitation/complete` (S→C). @since 2025-11-25 */
export interface ElicitationCompleteNotificationParams extends BaseNotificationParams {
  /** The `elicitationId` of the completed URL elicitation. */
  elicitationId: string;
}

/** Params of `notifications/tasks/status`: the full Task. @since 2025-11-25 */
export interface TaskStatusNotificationParams extends BaseNotificationParams, Task {}
