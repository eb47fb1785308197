// The peer layer's public surface (export "./peer"): Promise-returning client and server
// over the core engine. Portable like the core (no Node imports); time and the one timer
// come from the host through PeerHost.

export { Client, errorMessage } from "./client.js";
export type { CallOptions, ClientOptions, ConnectResult, ProgressInfo, ServerRequestContext, ServerRequestHandler, UntypedMethod } from "./client.js";
export { Driver } from "./driver.js";
export type { PeerHost } from "./driver.js";
export { ConnectionClosedError, InputRoundsExceededError, InvalidResultError, McpError, PeerError, ProtocolMisuseError, RequestAbortedError, RequestTimeoutError, ResponseTooLargeError, HttpAuthError, TaskCancelledError, TaskFailedError } from "./errors.js";
export type { RequestFailure } from "./errors.js";
export type { ExtensionDeclaration, ExtensionNotificationHandler, ExtensionNotifications, ExtensionRequestHandler, ExtensionRequests, Extensions, ParamsOf, ResultOf } from "./extensions.js";
export { checkSchema, validateJsonSchema, type JsonSchemaError, type JsonSchemaOptions, type JsonSchemaResult } from "./json-schema.js";
export { Server, ServerSession } from "./server.js";
export type {
  Completer,
  HandlerContext,
  InputRequest,
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
} from "./server.js";
export { PeerAbortController } from "./signal.js";
export type { AbortSignalLike } from "./signal.js";
export { runValidator } from "./standard-schema.js";
export type { StandardSchemaV1, ToolValidator } from "./standard-schema.js";
export type { InferJsonSchema, JsonSchemaLiteral, PromptArgs, PromptArgumentLiteral, StandardInput, StandardOutput, ToolArgs, ToolResultFor, ToolSchemaInput, ToolStructured } from "./schema-types.js";
export { standardJsonSchema, withoutDefaultsRequired } from "./typed-schemas.js";
export type { ExplicitJsonSchemas } from "./typed-schemas.js";
export type { InputRoundsOptions } from "./round-state.js";
export { parseTemplate } from "./uri-template.js";
export type { UriTemplate } from "./uri-template.js";
export { HTTP_TRANSPORT_ERROR, HttpClientTransport, HttpTransportError, SseParser, connectHttp, encodeHeaderValue, isModernErrorResponse, resolveReference } from "./http-client.js";
export type { AbortControllerLike, ConnectHttpOptions, FetchInit, FetchLike, HttpClientTransportOptions, HttpConnection, HttpErrorData, HttpTimers, ReadableStreamLike, ResponseLike, SseEvent, SseParserOptions } from "./http-client.js";
export { RequestStateSealer } from "./request-state.js";
export type { OpenedState, RequestStateOptions, SubtleCryptoLike } from "./request-state.js";
export { OAuthClient } from "./oauth.js";
export type { AuthFetch, HttpAuthOptions } from "./oauth.js";
export { MemoryTaskStore } from "./task-store.js";
export type { MemoryTaskStoreOptions, StoredTask, TaskChange, TaskLookup, TaskStatus, TaskStore } from "./task-store.js";
export { TaskRunner, detailedTask, wireTask } from "./task-server.js";
export type { TaskOptions } from "./task-server.js";
export { TaskClient } from "./task-client.js";
export type { TaskCallOptions, TaskInfo } from "./task-client.js";
export { ManualClock, linkInMemory } from "./in-memory.js";
export type { InMemoryLink, LinkOptions, ManualClockOptions, ManualTimer } from "./in-memory.js";
export type { TransportRequestInfo } from "./context.js";
