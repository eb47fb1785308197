// The typed rejections of the peer layer. Every Promise the layer returns rejects with one
// of these, so callers can tell a timeout from a cancellation from the peer's own error
// without parsing messages.
//
// One taxonomy, one base (PeerError):
// - McpError: the peer answered with a JSON-RPC error (code, message, data), and only that;
// - the rest happened here: RequestTimeoutError, RequestAbortedError, ConnectionClosedError,
//   ResponseTooLargeError, InvalidResultError (the peer answered, but not what the method
//   returns), InputRoundsExceededError, HttpTransportError (the HTTP exchange failed; its
//   status when there was one) and its HttpAuthError (401/403), ProtocolMisuseError (our own
//   caller asked for what the protocol or the session forbids: nothing was sent);
// - TaskFailedError and TaskCancelledError: a task's own end, as its server reported it.
//
// A transport that fails a request with a typed error of its own (HttpTransportError, HttpAuthError) hands the
// Client a JSON-RPC error object with the typed error attached (attachPeerError); only such
// objects, made in this process, turn back into it (peerErrorOf), so a peer's error body
// can never pass for one.
//
// Identity survives an ES5 down-level and minification: PeerError restores the prototype an
// ES5 `Error.call(this)` loses, and every class sets `name` as a string literal (minifiers
// rename classes, so new.target.name would read "u"). A subclass of the caller's names itself.

import type { RequestId } from "../../wire/envelope.js";
import { LocalProtocolError } from "../../wire/errors.js";

/** Base class: every rejection of the peer layer is a PeerError. */
export class PeerError extends Error {
  constructor(message: string) {
    super(message);
    Object.setPrototypeOf(this, new.target.prototype);
    this.name = "PeerError";
  }
}

/**
 * The peer answered with a JSON-RPC error: `code`, the peer's message and `data` as sent.
 * Nothing local is ever an McpError, so `instanceof McpError` means "the peer answered".
 * A handler throws one to answer its request with that error.
 */
export class McpError extends PeerError {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(`MCP error ${code}: ${message}`);
    this.name = "McpError";
    this.code = code;
    this.data = data;
  }
}

/** A deadline passed: "inactivity" (the timeout, which progress may reset) or "total" (the hard cap). */
export class RequestTimeoutError extends PeerError {
  readonly deadline: "inactivity" | "total";
  readonly method: string;
  readonly requestId: RequestId;
  constructor(method: string, requestId: RequestId, deadline: "inactivity" | "total", ms: number | undefined) {
    super(
      `${method} (request ${String(requestId)}) timed out: ${deadline === "total" ? "total time cap" : "no answer or progress"}${ms !== undefined ? ` after ${ms} ms` : ""}`,
    );
    this.name = "RequestTimeoutError";
    this.deadline = deadline;
    this.method = method;
    this.requestId = requestId;
  }
}

/** The caller's signal aborted the request; notifications/cancelled was sent. */
export class RequestAbortedError extends PeerError {
  readonly reason: unknown;
  constructor(method: string, reason: unknown) {
    super(`${method} aborted${reason instanceof Error ? `: ${reason.message}` : typeof reason === "string" ? `: ${reason}` : ""}`);
    this.name = "RequestAbortedError";
    this.reason = reason;
  }
}

/** The connection closed before the answer came. */
export class ConnectionClosedError extends PeerError {
  constructor(method: string, detail?: string) {
    super(`${method}: connection closed${detail !== undefined ? ` (${detail})` : ""}`);
    this.name = "ConnectionClosedError";
  }
}

/** The answer came on a line over the engine's maxLineBytes: it was skipped unread (raise limits.maxLineBytes to accept it). */
export class ResponseTooLargeError extends PeerError {
  readonly bytes: number;
  readonly limit: number;
  constructor(method: string, bytes: number, limit: number) {
    super(`[limit] ${method}: the answer is ${bytes} bytes, over maxLineBytes (${limit}); raise limits.maxLineBytes to accept it`);
    this.name = "ResponseTooLargeError";
    this.bytes = bytes;
    this.limit = limit;
  }
}

/** The peer's result did not match the method's schema. */
export class InvalidResultError extends PeerError {
  readonly path: string;
  constructor(method: string, path: string, expected: string, got: string) {
    super(`${method}: invalid result at ${path}: expected ${expected}, got ${got}`);
    this.name = "InvalidResultError";
    this.path = path;
  }
}

/** A multi round-trip request (2026-07-28) still asked for input after the client's bound on rounds. */
export class InputRoundsExceededError extends PeerError {
  readonly rounds: number;
  constructor(method: string, rounds: number) {
    super(`${method}: the server still asked for input after ${rounds} rounds (maxInputRounds)`);
    this.name = "InputRoundsExceededError";
    this.rounds = rounds;
  }
}

/**
 * The HTTP exchange failed: a network error, a status that carries no JSON-RPC answer (the
 * `status`, with `data` {status, url?, body?, fallback?} as the transport saw it), a stream
 * that ended before the answer. A request rejects with it; a failure with no request to pin
 * it on (a notification's POST, the GET stream, DELETE) goes to onError.
 */
export class HttpTransportError extends PeerError {
  readonly status: number | undefined;
  /** Set when the failure was an authorization challenge (401/403): the HttpAuthError itself for a request. */
  readonly auth: HttpAuthError | undefined;
  /** What the transport knew of the failure (HttpErrorData for a request), if anything. */
  readonly data: unknown;
  constructor(message: string, status?: number, auth?: HttpAuthError, data?: unknown) {
    super(message);
    this.name = "HttpTransportError";
    this.status = status;
    // An HttpAuthError is its own challenge, so `error.auth` reads the same for both classes.
    this.auth = auth ?? (this instanceof HttpAuthError ? this : undefined);
    this.data = data;
  }
}

/**
 * The HTTP endpoint asked for authorization: 401, or 403 (e.g. insufficient scope). Never a
 * reason to fall back to another era. Carries what an authorization flow needs: the status,
 * the WWW-Authenticate challenge (undefined when the answer had none) and the URL that
 * answered. An HttpTransportError (the server sent no JSON-RPC answer), never an McpError.
 */
export class HttpAuthError extends HttpTransportError {
  declare readonly status: number;
  readonly wwwAuthenticate: string | undefined;
  readonly url: string;
  /** The start of the response body (at most 2048 characters), if any. */
  readonly body: string | undefined;
  /** The message, also kept under this name (it was the JSON-RPC error's message when this was an McpError). */
  readonly detail: string;
  constructor(status: number, url: string, wwwAuthenticate: string | undefined, body?: string) {
    const what = status === 401 ? "Unauthorized" : status === 403 ? "Forbidden" : "authorization required";
    const detail = `HTTP ${status} ${what} from ${url}${wwwAuthenticate !== undefined ? ` (WWW-Authenticate: ${wwwAuthenticate})` : " (no WWW-Authenticate challenge)"}: the request needs authorization`;
    const data: { [key: string]: string | number } = { status, url };
    if (wwwAuthenticate !== undefined) data.wwwAuthenticate = wwwAuthenticate;
    if (body !== undefined) data.body = body;
    super(detail, status, undefined, data);
    this.name = "HttpAuthError";
    this.wwwAuthenticate = wwwAuthenticate;
    this.url = url;
    this.body = body;
    this.detail = detail;
  }
}

/**
 * Our own caller asked for something the protocol or the session forbids (a method the
 * negotiated version or the peer's capabilities rule out, a second connect, params JSON
 * cannot encode, ...): nothing was sent. Carries the rule of RULES.md it enforces, what was
 * expected and what was asked, and the wire code a peer would have got for the same mistake.
 */
export class ProtocolMisuseError extends PeerError {
  readonly rule: string;
  readonly expected: string;
  readonly got: string;
  readonly code: number | undefined;
  readonly method: string | undefined;
  constructor(init: { rule: string; expected: string; got: string; code?: number; method?: string; cause?: unknown }) {
    super(`${init.method !== undefined ? `${init.method}: ` : ""}[${init.rule}] expected ${init.expected}; got ${init.got}`);
    this.name = "ProtocolMisuseError";
    this.rule = init.rule;
    this.expected = init.expected;
    this.got = init.got;
    this.code = init.code;
    this.method = init.method;
    if (init.cause !== undefined)
      Object.defineProperty(this, "cause", { value: init.cause, enumerable: false, writable: true, configurable: true });
  }
}

/**
 * What a local refusal rejects with: a PeerError as it is, the engine's LocalProtocolError
 * (or any other exception of a command) as a ProtocolMisuseError naming its rule.
 */
export function localFailure(error: unknown, method: string): PeerError {
  if (error instanceof PeerError) return error;
  if (error instanceof LocalProtocolError)
    return new ProtocolMisuseError({ rule: error.rule, expected: error.expected, got: error.got, code: error.code, method, cause: error });
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new ProtocolMisuseError({ rule: "ENG-01", expected: "a command the engine accepts", got: message, method, cause: error });
}

/** Params (or data) JSON cannot encode: refused before anything is queued (M-03: params are a JSON object). */
export function unencodable(method: string, what: string, reason: string): ProtocolMisuseError {
  return new ProtocolMisuseError({ rule: "M-03", expected: `${what} with a JSON form`, got: reason, method });
}

const attached = new WeakMap<object, PeerError>();

/** Marks a JSON-RPC error object this process synthesized as standing for `error` (see the file comment). */
export function attachPeerError(errorObject: object, error: PeerError): void {
  attached.set(errorObject, error);
}

/** The rejection for a JSON-RPC error answer: the typed error attached to it, else an McpError. */
export function peerErrorOf(error: { readonly code: number; readonly message: string; readonly data?: unknown }): PeerError {
  return attached.get(error) ?? new McpError(error.code, error.message, error.data);
}

/** A task (tasks extension, or a 2025-11-25 task) ended failed: `error` is the JSON-RPC error it carries. */
export class TaskFailedError extends PeerError {
  readonly taskId: string;
  readonly code: number;
  readonly data: unknown;
  constructor(taskId: string, code: number, message: string, data?: unknown) {
    super(`task ${taskId} failed: ${code} ${message}`);
    this.name = "TaskFailedError";
    this.taskId = taskId;
    this.code = code;
    this.data = data;
  }
}

/** A task ended cancelled (by us, by its server, or by another client holding its id). */
export class TaskCancelledError extends PeerError {
  readonly taskId: string;
  readonly statusMessage: string | undefined;
  constructor(taskId: string, statusMessage?: string) {
    super(`task ${taskId} was cancelled${statusMessage !== undefined ? `: ${statusMessage}` : ""}`);
    this.name = "TaskCancelledError";
    this.taskId = taskId;
    this.statusMessage = statusMessage;
  }
}

/**
 * What Client.request, connect and the typed helpers reject with (callTool adds
 * TaskFailedError and TaskCancelledError), for a `catch` that narrows with instanceof.
 */
export type RequestFailure =
  | McpError
  | RequestTimeoutError
  | RequestAbortedError
  | ConnectionClosedError
  | ResponseTooLargeError
  | InvalidResultError
  | InputRoundsExceededError
  | HttpTransportError
  | ProtocolMisuseError;
