// The four method maps (RULES.md MT-01, MT-02, SCH-01, SCH-02, SCH-03): method name → params (and result) types, by who
// sends the message. Optional params are modelled as `Params | undefined`. `ping` and
// `tasks/*` appear in both request maps (either side can be the task receiver);
// `notifications/cancelled`, `notifications/progress` and `notifications/tasks/status` in
// both notification maps. A method's availability by version is in RULES.md MT-01 (and
// lib/rules/methods.ts); the maps cover the union of 2024-11-05 … 2025-11-25.

import type { EmptyResult } from "./base.js";
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  ListRootsRequestParams,
  ListRootsResult,
} from "./client.js";
import type { InitializeRequestParams, InitializeResult, PingRequestParams } from "./lifecycle.js";
import type {
  CancelledNotificationParams,
  ElicitationCompleteNotificationParams,
  InitializedNotificationParams,
  LoggingMessageNotificationParams,
  ProgressNotificationParams,
  PromptListChangedNotificationParams,
  ResourceListChangedNotificationParams,
  ResourceUpdatedNotificationParams,
  RootsListChangedNotificationParams,
  TaskStatusNotificationParams,
  ToolListChangedNotificationParams,
} from "./notifications.js";
import type {
  CallToolRequestParams,
  CallToolResult,
  CompleteRequestParams,
  CompleteResult,
  GetPromptRequestParams,
  GetPromptResult,
  ListPromptsRequestParams,
  ListPromptsResult,
  ListResourcesRequestParams,
  ListResourcesResult,
  ListResourceTemplatesRequestParams,
  ListResourceTemplatesResult,
  ListToolsRequestParams,
  ListToolsResult,
  ReadResourceRequestParams,
  ReadResourceResult,
  SetLevelRequestParams,
  SubscribeRequestParams,
  UnsubscribeRequestParams,
} from "./server.js";
import type {
  CancelTaskRequestParams,
  CancelTaskResult,
  CreateTaskResult,
  GetTaskPayloadRequestParams,
  GetTaskRequestParams,
  GetTaskResult,
  ListTasksRequestParams,
  ListTasksResult,
} from "./tasks.js";

/** One entry of a request map. */
export interface RequestSpec {
  params: object | undefined;
  result: object;
}

/** One entry of a notification map. */
export interface NotificationSpec {
  params: object | undefined;
}

/** Requests a client sends (the server receives). */
export interface ClientRequests {
  initialize: { params: InitializeRequestParams; result: InitializeResult };
  ping: { params: PingRequestParams | undefined; result: EmptyResult };
  "resources/list": { params: ListResourcesRequestParams | undefined; result: ListResourcesResult };
  "resources/templates/list": { params: ListResourceTemplatesRequestParams | undefined; result: ListResourceTemplatesResult };
  "resources/read": { params: ReadResourceRequestParams; result: ReadResourceResult };
  "resources/subscribe": { params: SubscribeRequestParams; result: EmptyResult };
  "resources/unsubscribe": { params: UnsubscribeRequestParams; result: EmptyResult };
  "prompts/list": { params: ListPromptsRequestParams | undefined; result: ListPromptsResult };
  "prompts/get": { params: GetPromptRequestParams; result: GetPromptResult };
  "tools/list": { params: ListToolsRequestParams | undefined; result: ListToolsResult };
  /** `CreateTaskResult` when the call was task-augmented (2025-11-25). */
  "tools/call": { params: CallToolRequestParams; result: CallToolResult | CreateTaskResult };
  "logging/setLevel": { params: SetLevelRequestParams; result: EmptyResult };
  "completion/complete": { params: CompleteRequestParams; result: CompleteResult };
  /** @since 2025-11-25 */
  "tasks/get": { params: GetTaskRequestParams; result: GetTaskResult };
  /** The result of the task-augmented `tools/call`. @since 2025-11-25 */
  "tasks/result": { params: GetTaskPayloadRequestParams; result: CallToolResult };
  /** @since 2025-11-25 */
  "tasks/list": { params: ListTasksRequestParams | undefined; result: ListTasksResult };
  /** @since 2025-11-25 */
  "tasks/cancel": { params: CancelTaskRequestParams; result: CancelTaskResult };
}

/** Requests a server sends (the client receives). */
export interface ServerRequests {
  ping: { params: PingRequestParams | undefined; result: EmptyResult };
  /** `CreateTaskResult` when the request was task-augmented (2025-11-25). */
  "sampling/createMessage": { params: CreateMessageRequestParams; result: CreateMessageResult | CreateTaskResult };
  "roots/list": { params: ListRootsRequestParams | undefined; result: ListRootsResult };
  /** @since 2025-06-18; `CreateTaskResult` when task-augmented (2025-11-25). */
  "elicitation/create": { params: ElicitRequestParams; result: ElicitResult | CreateTaskResult };
  /** @since 2025-11-25 */
  "tasks/get": { params: GetTaskRequestParams; result: GetTaskResult };
  /** The result of the task-augmented `sampling/createMessage` or `elicitation/create`. @since 2025-11-25 */
  "tasks/result": { params: GetTaskPayloadRequestParams; result: CreateMessageResult | ElicitResult };
  /** @since 2025-11-25 */
  "tasks/list": { params: ListTasksRequestParams | undefined; result: ListTasksResult };
  /** @since 2025-11-25 */
  "tasks/cancel": { params: CancelTaskRequestParams; result: CancelTaskResult };
}

/** Notifications a client sends. */
export interface ClientNotifications {
  "notifications/initialized": { params: InitializedNotificationParams | undefined };
  "notifications/cancelled": { params: CancelledNotificationParams };
  "notifications/progress": { params: ProgressNotificationParams };
  "notifications/roots/list_changed": { params: RootsListChangedNotificationParams | undefined };
  /** @since 2025-11-25 */
  "notifications/tasks/status": { params: TaskStatusNotificationParams };
}

/** Notifications a server sends. */
export interface ServerNotifications {
  "notifications/cancelled": { params: CancelledNotificationParams };
  "notifications/progress": { params: ProgressNotificationParams };
  "notifications/message": { params: LoggingMessageNotificationParams };
  "notifications/resources/list_changed": { params: ResourceListChangedNotificationParams | undefined };
  "notifications/resources/updated": { params: ResourceUpdatedNotificationParams };
  "notifications/prompts/list_changed": { params: PromptListChangedNotificationParams | undefined };
  "notifications/tools/list_changed": { params: ToolListChangedNotificationParams | undefined };
  /** @since 2025-11-25 */
  "notifications/elicitation/complete": { params: ElicitationCompleteNotificationParams };
  /** @since 2025-11-25 */
  "notifications/tasks/status": { params: TaskStatusNotificationParams };
}

export type ClientRequestMethod = keyof ClientRequests;
export type ServerRequestMethod = keyof ServerRequests;
export type ClientNotificationMethod = keyof ClientNotifications;
export type ServerNotificationMethod = keyof ServerNotifications;

/** The params type of method `M` in request map `Map`, e.g. `RequestParams<ClientRequests, "tools/call">`. */
export type RequestParams<Map extends { [K in keyof Map]: RequestSpec }, M extends keyof Map> = Map[M]["params"];

/** The result type of method `M` in request map `Map`. */
export type RequestResult<Map extends { [K in keyof Map]: RequestSpec }, M extends keyof Map> = Map[M]["result"];

/** The params type of notification `M` in notification map `Map`. */
export type NotificationParams<Map extends { [K in keyof Map]: NotificationSpec }, M extends keyof Map> = Map[M]["params"];

/** Any result a client sends (answers to `ServerRequests`); includes `CreateTaskResult` (TK-03). */
export type ClientResult =
  | EmptyResult
  | CreateMessageResult
  | ListRootsResult
  | ElicitResult
  | CreateTaskResult
  | GetTaskResult
  | ListTasksResult
  | CancelTaskResult;

/** Any result a server sends (answers to `ClientRequests`); includes `CreateTaskResult` (TK-03). */
export type ServerResult =
  | EmptyResult
  | InitializeResult
  | ListResourcesResult
  | ListResourceTemplatesResult
  | ReadResourceResult
  | ListPromptsResult
  | GetPromptResult
  | ListToolsResult
  | CallToolResult
  | CompleteResult
  | CreateTaskResult
  | GetTaskResult
  | ListTasksResult
  | CancelTaskResult;
