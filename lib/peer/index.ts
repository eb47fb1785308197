// The peer layer's public surface (export "./peer"): Promise-returning client and server
// over the core engine. Portable like the core (no Node imports); time and the one timer
// come from the host through PeerHost.

export { Client } from "./client/client.js";
export { errorMessage } from "./shared/handlers.js";
export type { ClientOptions, ConnectResult, ServerRequestContext, ServerRequestHandler, UntypedMethod } from "./client/client-options.js";
export { Driver } from "./shared/driver.js";
export type { PeerHost } from "./shared/driver.js";
export {
  ConnectionClosedError,
  InputRoundsExceededError,
  InvalidResultError,
  McpError,
  PeerError,
  ProtocolMisuseError,
  RequestAbortedError,
  RequestTimeoutError,
  ResponseTooLargeError,
  HttpAuthError,
  TaskCancelledError,
  TaskFailedError,
  HttpTransportError,
} from "./shared/errors.js";
export type { RequestFailure } from "./shared/errors.js";
export type {
  ExtensionDeclaration,
  ExtensionNotifications,
  ExtensionRequests,
  Extensions,
  ParamsOf,
  ResultOf,
} from "./shared/custom-methods.js";
export {
  checkSchema,
  validateJsonSchema,
  type JsonSchemaError,
  type JsonSchemaOptions,
  type JsonSchemaResult,
} from "../json-schema/validator.js";
export { Server } from "./server/server.js";
export { Paginator } from "../codec/pagination.js";
export type { PaginatorOptions } from "../codec/pagination.js";
export { ServerSession } from "./server/session.js";
export type {
  Completer,
  HandlerContext,
  PromptDefinition,
  PromptHandler,
  Registration,
  ResourceDefinition,
  ResourceReader,
  ResourceTemplateDefinition,
  ServerOptions,
  TemplateReader,
  ToolDefinition,
  ToolHandler,
  TaskOptions,
  ExtensionNotificationHandler,
  ExtensionRequestHandler,
} from "./server/server-options.js";
export { PeerAbortController } from "./shared/signal.js";
export type { AbortSignalLike, PlatformAbortSignal } from "./shared/signal.js";
export { runValidator } from "./server/standard-schema.js";
export type { StandardSchemaV1, ToolValidator } from "./server/standard-schema.js";
export type {
  InferJsonSchema,
  JsonSchemaLiteral,
  NotOptions,
  NotSchema,
  ObjectSchemaLiteral,
  ParamsArgs,
  ParamsMapLiteral,
  PromptArgs,
  PromptArgumentLiteral,
  StandardInput,
  StandardOutput,
  ToolArgs,
  ToolParams,
  ToolResultFor,
  ToolSchemaInput,
  ToolStructured,
} from "./server/schema-types.js";
export { standardJsonSchema, withoutDefaultsRequired } from "./server/typed-schemas.js";
export type { ExplicitJsonSchemas } from "./server/typed-schemas.js";
export { sealedRounds } from "./server/round-sealing.js";
export type { InputRoundsOptions, RoundSealer } from "./server/round-sealing.js";
export { parseTemplate } from "../uri-template/template.js";
export type { UriTemplate } from "../uri-template/template.js";
export { HttpClientTransport, connectHttp } from "../http-client/transport.js";
export { HttpSseParser as SseParser } from "../http-client/sse.js";
export { resolveReference } from "../uri-template/uri-reference.js";
export { encodeHeaderValue, isModernErrorResponse } from "../http/client-rules.js";
export {
  HTTP_TRANSPORT_ERROR,
  type AbortControllerLike,
  type FetchInit,
  type FetchLike,
  type HttpClientTransportOptions,
  type HttpErrorData,
  type ReadableStreamLike,
  type ResponseLike,
} from "../http-client/types.js";
export type { ConnectHttpOptions, HttpConnection } from "../http-client/transport.js";
export type { SseEvent, SseParserOptions } from "../http/sse-parser.js";
export { RequestStateSealer } from "./server/request-state.js";
export type { OpenedState, RequestStateOptions, SubtleCryptoLike } from "./server/request-state.js";
export { OAuthClient } from "../http-client/oauth.js";
export { httpOAuth } from "../http-client/http-oauth.js";
export type { HttpAuth } from "../http-client/http-oauth.js";
export type { AuthFetch, AuthIo, HttpAuthOptions } from "../http-client/oauth.js";
export { HttpBodyLimitError } from "../http-client/body.js";
export { HttpRedirectError } from "../http-client/redirects.js";
export { MemoryTaskStore } from "./server/task-store.js";
export type { MemoryTaskStoreOptions, StoredTask, TaskChange, TaskLookup, TaskStatus, TaskStore } from "./server/task-store.js";
export { TaskRunner, detailedTask, wireTask } from "./server/task-server.js";
export { serveTasks } from "./server/task-support.js";
export type { TaskSupport } from "./server/task-support.js";
export { TaskClient } from "./client/task-client.js";
export type { TaskCallOptions, TaskInfo, TaskPage } from "./client/task-client.js";
export { ManualClock, linkInMemory } from "./in-memory.js";
export type { InMemoryLink, LinkOptions, ManualClockOptions, ManualTimer } from "./in-memory.js";
export type { TransportRequestInfo, InputRequest } from "./server/context.js";
export type { CallOptions, ProgressInfo } from "./shared/call-options.js";
export type { HttpTimers } from "./shared/timers.js";
