// The status table of Streamable HTTP (RULES.md HTTP-01…HTTP-04, SSE-01, MOD-20) on the server side: every
// refusal the endpoint makes, with its HTTP status and the JSON-RPC code of its error body,
// plus the few success statuses. Hosts and the fetch handler name a refusal, never a number.
//
// Invariants: one row per refusal kind; an error body is a JSON-RPC error object, with the
// request id when the refused request had a readable one, without it otherwise.

import type { JsonObject, RequestId } from "../wire/envelope.js";
import { ErrorCode } from "../wire/errors.js";

export const HttpStatus = {
  ok: 200,
  noContent: 204,
  accepted: 202,
  internalError: 500,
} as const;

/** Why the endpoint refuses a request, with the status and JSON-RPC code it answers. */
export const REFUSALS = {
  /** HTTP-01…HTTP-04: Host or Origin outside the allow-list (DNS rebinding). */
  forbidden: { status: 403, code: ErrorCode.InvalidRequest },
  /** A path the endpoint does not serve. */
  notFound: { status: 404, code: ErrorCode.InvalidRequest },
  /** HTTP-03: an unknown or ended Mcp-Session-Id (or legacy sessionId). */
  sessionNotFound: { status: 404, code: ErrorCode.InvalidRequest },
  /** HTTP-01…HTTP-04: a Last-Event-ID naming no stream of the session. */
  unknownEventId: { status: 404, code: ErrorCode.InvalidRequest },
  /** A method the path does not take (Allow says which). */
  methodNotAllowed: { status: 405, code: ErrorCode.InvalidRequest },
  /** HTTP-01…HTTP-04: Accept lacks what the answer may be. */
  notAcceptable: { status: 406, code: ErrorCode.InvalidRequest },
  /** HTTP-01…HTTP-04: a second GET stream while one is attached. */
  conflict: { status: 409, code: ErrorCode.InvalidRequest },
  /** A body over maxBodyBytes (never read further). */
  tooLarge: { status: 413, code: ErrorCode.InvalidRequest },
  /** HTTP-01…HTTP-04: the body is not application/json. */
  unsupportedMediaType: { status: 415, code: ErrorCode.InvalidRequest },
  /** A body that is not UTF-8 or not JSON. */
  parseError: { status: 400, code: ErrorCode.ParseError },
  /** A message the endpoint will not hand to an engine (malformed, batched where batches are not allowed, no session id, a bad version header). */
  invalidRequest: { status: 400, code: ErrorCode.InvalidRequest },
  /** MOD-23: a version this endpoint does not serve. */
  unsupportedVersion: { status: 400, code: ErrorCode.UnsupportedProtocolVersion },
  /** A refused initialize: the engine's own error, answered 400 (defect 10.4). */
  refusedInitialize: { status: 400, code: ErrorCode.InvalidRequest },
  /** maxSessions reached (with Retry-After). */
  busy: { status: 503, code: ErrorCode.InternalError },
  /** Host shutdown while a request was in flight. */
  shuttingDown: { status: 503, code: ErrorCode.InternalError },
  /** A defect of ours (an exception, an unanswered initialize). */
  internal: { status: 500, code: ErrorCode.InternalError },
} as const;

export type RefusalKind = keyof typeof REFUSALS;

/** Seconds a refused client should wait before retrying at maxSessions. */
export const BUSY_RETRY_AFTER_SECONDS = 5;

/** The JSON-RPC error body of a refusal. */
export function refusalBody(kind: RefusalKind, message: string, id?: RequestId, data?: unknown): JsonObject {
  return errorBody(REFUSALS[kind].code, message, id, data);
}

/** A JSON-RPC error message with an optional id and data. */
export function errorBody(code: number, message: string, id?: RequestId, data?: unknown): JsonObject {
  const error: JsonObject = data === undefined ? { code, message } : { code, message, data: data as JsonObject };
  return id === undefined ? { jsonrpc: "2.0", error } : { jsonrpc: "2.0", id, error };
}
