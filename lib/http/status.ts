// The status table of Streamable HTTP on the server side (RULES.md HTTP-02, HTTP-03, HTTP-06,
// HTTP-07, HTTP-08, HTTP-11, HTTP-12, HTTP-13, L-07, LIM-09, LIM-10, MOD-22): every refusal the
// endpoint makes, with its HTTP status and the JSON-RPC code of its error body, plus the few
// success statuses. Hosts and the fetch handler name a refusal, never a number.
//
// Invariants: one row per refusal kind; an error body is a JSON-RPC error object, with the
// request id when the refused request had a readable one, without it otherwise (HTTP-02).

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
  /** HTTP-08, HTTP-13: Host or Origin outside the allow-list (DNS rebinding), or an Origin CORS does not allow. */
  forbidden: { status: 403, code: ErrorCode.InvalidRequest },
  /** A path the endpoint does not serve. */
  notFound: { status: 404, code: ErrorCode.InvalidRequest },
  /** HTTP-03: an unknown or ended Mcp-Session-Id (or legacy sessionId). */
  sessionNotFound: { status: 404, code: ErrorCode.InvalidRequest },
  /** HTTP-12: a Last-Event-ID naming no stream of the session. */
  unknownEventId: { status: 404, code: ErrorCode.InvalidRequest },
  /** A method the path does not take (Allow says which): HTTP-06 a GET without streams, HTTP-07 a DELETE not allowed, HTTP-12. */
  methodNotAllowed: { status: 405, code: ErrorCode.InvalidRequest },
  /** HTTP-11, HTTP-12: Accept lacks what the answer may be. */
  notAcceptable: { status: 406, code: ErrorCode.InvalidRequest },
  /** HTTP-12: a second GET stream while one is attached. */
  conflict: { status: 409, code: ErrorCode.InvalidRequest },
  /** LIM-09: a body over maxBodyBytes (never read further). */
  /** LIM-11: the body did not arrive within requestTimeoutMs (the status node:http gives its requestTimeout). */
  requestTimeout: { status: 408, code: ErrorCode.InvalidRequest },
  tooLarge: { status: 413, code: ErrorCode.InvalidRequest },
  /** HTTP-12: the body is not application/json. */
  unsupportedMediaType: { status: 415, code: ErrorCode.InvalidRequest },
  /** A body that is not UTF-8 or not JSON. */
  parseError: { status: 400, code: ErrorCode.ParseError },
  /** A message the endpoint will not hand to an engine (malformed, batched where batches are not allowed, no session id: HTTP-03, a bad version header: L-07). */
  invalidRequest: { status: 400, code: ErrorCode.InvalidRequest },
  /** MOD-22: a session-era initialize where only 2026-07-28 is served (data names the versions). */
  unsupportedVersion: { status: 400, code: ErrorCode.UnsupportedProtocolVersion },
  /** A refused initialize: the engine's own error, answered 400 and no session opened. */
  refusedInitialize: { status: 400, code: ErrorCode.InvalidRequest },
  /** LIM-10: maxSessions reached (with Retry-After). */
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
