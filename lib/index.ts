// The public surface of the core (`mcp-engine`): the Engine, its options, events, errors
// and snapshot, the framing, the version tables and the message types. Everything here is
// portable (ECMAScript 2020 alone: the host's TextEncoder/TextDecoder are used when it has
// them, else a built-in UTF-8 codec, lib/wire/utf8.ts), with no I/O, clock, timer, randomness
// or Promise. The building blocks behind it (method table and gate, schema checks, feature
// rules, queues, hashing) are in `mcp-engine/internal`, which may change between versions.

export { ErrorCode, LocalProtocolError, describeValue } from "./wire/errors.js";
export type { ErrorCodeName, LocalProtocolErrorInit, RuleId, Violation } from "./wire/errors.js";
export { classify, isJsonObject, isRequestId } from "./wire/envelope.js";
export type {
  BatchEnvelope,
  Envelope,
  ErrorEnvelope,
  ErrorObject,
  InvalidEnvelope,
  InvalidShape,
  JsonObject,
  NotificationEnvelope,
  RequestEnvelope,
  RequestId,
  ResultEnvelope,
} from "./wire/envelope.js";
export { DEFAULT_CLIENT_MAX_LINE_BYTES, DEFAULT_MAX_LINE_BYTES, LineDecoder, encodeMessage, encodeMessages } from "./wire/framing.js";
export type { DecodedItem, DecodedValue, FramingError, FramingErrorReason, LineDecoderOptions } from "./wire/framing.js";
export { Engine, DEFAULT_LIMITS } from "./engine/engine.js";
export type {
  ArgsFor,
  CapabilitiesOf,
  EngineLimits,
  EngineOptions,
  EngineSnapshot,
  NotifyOptions,
  OutgoingNotifications,
  OutgoingRequests,
  Outbound,
  ParamsFor,
  RequestOptions,
} from "./engine/engine.js";
export type {
  CancelledEvent,
  ClosedEvent,
  ConnectionClosedEvent,
  ResponseTooLargeEvent,
  DiagnosticEvent,
  EngineEvent,
  EngineEventKind,
  ErrorResponseEvent,
  InitializeRequestEvent,
  InvalidResponseEvent,
  NegotiatedEvent,
  NotificationEvent,
  ProgressEvent,
  ReadyEvent,
  RequestEndedEvent,
  RequestEvent,
  ResponseEvent,
  TimeoutEvent,
  ViolationEvent,
} from "./engine/events.js";
export type {
  JsonRpcErrorResponse,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcResultResponse,
} from "./wire/envelope.js";
export {
  MODERN_VERSIONS,
  SESSION_VERSIONS,
  VERSION_PROFILES,
  isProtocolVersion,
  isSessionVersion,
  newestVersion,
} from "./rules/versions.js";
export type { ModernVersion, ProtocolVersion, SessionVersion, VersionProfile } from "./rules/versions.js";
export type * from "./types/index.js";
export { LOGGING_LEVELS } from "./rules/params.js";
export { DEFAULT_FEATURE_LIMITS, RELATED_TASK_KEY } from "./rules/features.js";
export type { FeatureLimits, TaskStatus } from "./rules/features.js";
export type { PhaseName, Role } from "./rules/methods.js";
export type { LineFacts } from "./wire/line-scan.js";
// The 2026-07-28 tasks extension's identifier (its rules are in mcp-engine/internal).
export { TASKS_EXTENSION } from "./rules/negotiated-extensions.js";
// Custom methods: methods beyond the spec under a declared extension (lib/rules/custom-methods.ts).
export { declaredExtensions, isExtensionId } from "./rules/custom-methods.js";
export type { ExtensionMethod } from "./rules/custom-methods.js";
