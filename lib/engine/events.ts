// Every event the engine reports, as one tagged union (field `kind`). This is the only
// place events are defined; hosts switch on `kind`.
//
// Ownership: `params`, `result` and `error` are the objects that arrived, passed by
// reference; the engine never reads them again after reporting them.

import type { ErrorObject, JsonObject, RequestId } from "../wire/envelope.js";
import type { PhaseName } from "../rules/methods.js";
import type { ModernRequestInfo } from "../rules/modern.js";
import type { ProtocolVersion } from "../rules/versions.js";
import type { ProgressToken } from "../types/base.js";

/** A request from the peer; answer it with respond() or respondError(). */
export interface RequestEvent {
  readonly kind: "request";
  readonly id: RequestId;
  readonly method: string;
  readonly params: JsonObject | undefined;
  /** The token the peer asked progress on, if any; send progress with sendProgress(id, ...). */
  readonly progressToken: ProgressToken | undefined;
  /** Under 2026-07-28: what this request says about its client (version, capabilities, info, log level). */
  readonly modern: ModernRequestInfo | undefined;
}

/** A notification from the peer that the host should see (lifecycle and protocol ones are handled inside). */
export interface NotificationEvent {
  readonly kind: "notification";
  readonly method: string;
  readonly params: JsonObject | undefined;
}

/** The result of one of our requests. */
export interface ResponseEvent {
  readonly kind: "response";
  readonly id: number;
  readonly method: string;
  readonly result: JsonObject;
}

/** The peer's JSON-RPC error for one of our requests. */
export interface ErrorResponseEvent {
  readonly kind: "error-response";
  readonly id: number;
  readonly method: string;
  readonly error: ErrorObject;
}

/** The peer's result for one of our requests did not match the method's schema (validated for tasks/*, and for every method with `validateResults`). A violation event precedes it. */
export interface InvalidResponseEvent {
  readonly kind: "invalid-response";
  readonly id: number;
  readonly method: string;
  readonly result: JsonObject;
  readonly path: string;
  readonly expected: string;
  readonly got: string;
}

/** Progress on one of our requests. */
export interface ProgressEvent {
  readonly kind: "progress";
  readonly id: number;
  readonly method: string;
  readonly token: ProgressToken;
  readonly progress: number;
  readonly total: number | undefined;
  readonly message: string | undefined;
}

/** The peer cancelled one of its requests; do not answer it (a late answer is dropped). */
export interface CancelledEvent {
  readonly kind: "cancelled";
  readonly id: RequestId;
  readonly method: string;
  readonly reason: string | undefined;
}

/** The peer ended one of our requests without answering it (2026-07-28: a server closing a subscriptions/listen stream with notifications/cancelled on stdio). */
export interface RequestEndedEvent {
  readonly kind: "request-ended";
  readonly id: number;
  readonly method: string;
  readonly reason: string | undefined;
}

/** One of our requests passed a deadline; `notifications/cancelled` was queued (never for initialize). */
export interface TimeoutEvent {
  readonly kind: "timeout";
  readonly id: number;
  readonly method: string;
  /** "inactivity": the deadline that progress may push back; "total": the hard cap that never moves. */
  readonly deadline: "inactivity" | "total";
}

/** The answer to one of our requests came on a line over maxLineBytes; it was skipped unread and the request settled. */
export interface ResponseTooLargeEvent {
  readonly kind: "response-too-large";
  readonly id: number;
  readonly method: string;
  /** Bytes of the line (without its terminator). */
  readonly bytes: number;
  /** The maxLineBytes in force. */
  readonly limit: number;
}

/** One of our requests was settled because the connection closed. */
export interface ConnectionClosedEvent {
  readonly kind: "connection-closed";
  readonly id: number;
  readonly method: string;
}

/** Server with `autoInitialize: false`: an initialize request waits for acceptInitialize() or respondError(). */
export interface InitializeRequestEvent {
  readonly kind: "initialize-request";
  readonly id: RequestId;
  readonly params: JsonObject;
  /** The version the engine will answer with if accepted. */
  readonly version: ProtocolVersion;
}

/** Initialization agreed on a version (server: result queued; client: result accepted). */
export interface NegotiatedEvent {
  readonly kind: "negotiated";
  readonly version: ProtocolVersion;
  readonly peerInfo: JsonObject;
  readonly peerCapabilities: JsonObject;
  readonly instructions: string | undefined;
}

/** The session is operating (server: initialized received; client: initialized queued). */
export interface ReadyEvent {
  readonly kind: "ready";
}

/** The peer broke a rule; any reply owed was queued before this event. */
export interface ViolationEvent {
  readonly kind: "violation";
  readonly rule: string;
  readonly expected: string;
  readonly got: string;
  /** The error code sent to the peer, or undefined when no reply was owed. */
  readonly code: number | undefined;
  readonly id: RequestId | undefined;
  readonly method: string | undefined;
}

/** Something was dropped without breaking a rule outright (an unknown notification, progress for a finished request, an error without an id). */
export interface DiagnosticEvent {
  readonly kind: "diagnostic";
  readonly rule: string;
  readonly expected: string;
  readonly got: string;
  readonly method: string | undefined;
  /** An error response that could not be matched to a request. */
  readonly error: ErrorObject | undefined;
}

/** The engine closed; sticky. Queued output can still be drained. */
export interface ClosedEvent {
  readonly kind: "closed";
  /** "internal": an exception of ours escaped while processing input; the engine closed rather than run on broken state. */
  readonly reason: "local" | "eof" | "fatal" | "internal";
  readonly rule: string | undefined;
  readonly detail: string;
}

export type EngineEvent =
  | RequestEvent
  | NotificationEvent
  | ResponseEvent
  | ErrorResponseEvent
  | InvalidResponseEvent
  | ProgressEvent
  | CancelledEvent
  | TimeoutEvent
  | RequestEndedEvent
  | ConnectionClosedEvent
  | ResponseTooLargeEvent
  | InitializeRequestEvent
  | NegotiatedEvent
  | ReadyEvent
  | ViolationEvent
  | DiagnosticEvent
  | ClosedEvent;

export type EngineEventKind = EngineEvent["kind"];

/** The phase names, re-exported for hosts that show them. */
export type { PhaseName };
