// The typed rejections of the peer layer. Every Promise the layer returns rejects with one
// of these, so callers can tell a timeout from a cancellation from the peer's own error
// without parsing messages.

import type { RequestId } from "../envelope.js";

/** Base class: every rejection of the peer layer is a PeerError. */
export class PeerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The peer answered with a JSON-RPC error. */
export class McpError extends PeerError {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(`MCP error ${code}: ${message}`);
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
    super(`${method} (request ${String(requestId)}) timed out: ${deadline === "total" ? "total time cap" : "no answer or progress"}${ms !== undefined ? ` after ${ms} ms` : ""}`);
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
    this.reason = reason;
  }
}

/** The connection closed before the answer came. */
export class ConnectionClosedError extends PeerError {
  constructor(method: string, detail?: string) {
    super(`${method}: connection closed${detail !== undefined ? ` (${detail})` : ""}`);
  }
}

/** The answer came on a line over the engine's maxLineBytes: it was skipped unread (raise limits.maxLineBytes to accept it). */
export class ResponseTooLargeError extends PeerError {
  readonly bytes: number;
  readonly limit: number;
  constructor(method: string, bytes: number, limit: number) {
    super(`[limit] ${method}: the answer is ${bytes} bytes, over maxLineBytes (${limit}); raise limits.maxLineBytes to accept it`);
    this.bytes = bytes;
    this.limit = limit;
  }
}

/** The peer's result did not match the method's schema. */
export class InvalidResultError extends PeerError {
  readonly path: string;
  constructor(method: string, path: string, expected: string, got: string) {
    super(`${method}: invalid result at ${path}: expected ${expected}, got ${got}`);
    this.path = path;
  }
}

/** A multi round-trip request (2026-07-28) still asked for input after the client's bound on rounds. */
export class InputRoundsExceededError extends PeerError {
  readonly rounds: number;
  constructor(method: string, rounds: number) {
    super(`${method}: the server still asked for input after ${rounds} rounds (maxInputRounds)`);
    this.rounds = rounds;
  }
}

/** A transport failure with no request to pin it on (a notification's POST, the GET stream), given to onError. */
export class HttpTransportError extends PeerError {
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
}

/** A task (tasks extension, or a 2025-11-25 task) ended failed: `error` is the JSON-RPC error it carries. */
export class TaskFailedError extends PeerError {
  readonly taskId: string;
  readonly code: number;
  readonly data: unknown;
  constructor(taskId: string, code: number, message: string, data?: unknown) {
    super(`task ${taskId} failed: ${code} ${message}`);
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
    this.taskId = taskId;
    this.statusMessage = statusMessage;
  }
}
