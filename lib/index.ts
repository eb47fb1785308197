// The public surface of the core: everything here is portable (ECMAScript plus
// TextEncoder/TextDecoder), with no I/O, clock, timer, randomness or Promise.

export { ErrorCode, LocalProtocolError, describeValue } from "./errors.js";
export type { ErrorCodeName, LocalProtocolErrorInit, RuleId, Violation } from "./errors.js";
export { classify, isJsonObject, isRequestId } from "./envelope.js";
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
} from "./envelope.js";
export { DEFAULT_CLIENT_MAX_LINE_BYTES, DEFAULT_MAX_LINE_BYTES, LineDecoder, encodeMessage, encodeMessages } from "./framing.js";
export type { DecodedItem, DecodedValue, FramingError, FramingErrorReason, LineDecoderOptions } from "./framing.js";
export { Queue } from "./queue.js";
export { Engine, DEFAULT_LIMITS } from "./engine.js";
export type { ArgsFor, CapabilitiesOf, EngineLimits, EngineOptions, EngineSnapshot, NotifyOptions, OutgoingNotifications, OutgoingRequests, Outbound, ParamsFor, RequestOptions } from "./engine.js";
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
  ProgressToken,
  ReadyEvent,
  RequestEndedEvent,
  RequestEvent,
  ResponseEvent,
  TimeoutEvent,
  ViolationEvent,
} from "./events.js";
export type { JsonRpcErrorResponse, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, JsonRpcResultResponse } from "./envelope.js";
export { Cap, capabilityMask, capabilityName, ALL_CAPS } from "./capabilities.js";
export type { CapName } from "./capabilities.js";
export { METHOD_ROWS, Phase, PHASE_NAMES, gate, methodTable } from "./methods.js";
export type { GateContext, GateRefusal, MessageKind, MethodRow, MethodTable, ParamGate, PhaseBit, PhaseName, Role, Sender } from "./methods.js";
export { MODERN_VERSIONS, SESSION_VERSIONS, VERSION_PROFILES, isProtocolVersion, isSessionVersion, newestVersion } from "./versions.js";
export type { ModernVersion, ProtocolVersion, SessionVersion, VersionProfile } from "./versions.js";
export { Paginator, base64urlDecode, base64urlEncode } from "./pagination.js";
export type { PageOk, PageRefused, PaginatorOptions } from "./pagination.js";
export { constantTimeEqual, hmacSha256, sha256 } from "./sha256.js";
export type * from "./types.js";
export { LOGGING_LEVELS, paramsCheck, resultCheck } from "./params.js";
export { anyObject, anyOf, anyValue, arrayOf, bool, closedEnum, idLike, int, literal, num, object, range, recordOf, str, tagged, validate } from "./schema.js";
export type { Check, Issue, Shape } from "./schema.js";
export { DEFAULT_FEATURE_LIMITS, Features, LOGGING_SEVERITY, RELATED_TASK_KEY, logAllowed, metaKeyProblem, severityOf } from "./features.js";
export type { FeatureLimits, Refusal, TaskRecord, TaskStatus } from "./features.js";
export { LineScanner } from "./line-scan.js";
export type { LineFacts } from "./line-scan.js";
export { TASKS_EXTENSION, TASK_STATUSES, TERMINAL_TASK_STATUSES, createTaskResultProblem, declaresExtension, detailedTaskProblem, extensionCapabilities, extensionRefusal, listenTaskIds, resultTypesFor } from "./extensions.js";
export type { ExtensionRefusal, ShapeProblem } from "./extensions.js";
