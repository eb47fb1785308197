// Pure decisions of the Streamable HTTP host: the limits and their defaults, what a POST's
// items must look like before the engine sees them, when an initialize earns a session,
// and what to do with a request body the host will not read. No I/O and no Node types here,
// so these rules can move to a portable HTTP layer as they are.
//
// Invariants: every function is total over unknown input (never throws) and answers from its
// arguments alone.

import { isJsonObject, isRequestId, type JsonObject, type JsonRpcMessage, type RequestId } from "../envelope.js";

/** The host's bounds, resolved (see HttpServerOptions for each). */
export interface HttpLimits {
  readonly maxBodyBytes: number;
  readonly maxSessions: number;
  readonly sessionIdleMs: number;
  readonly maxConnections: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
}

export const DEFAULT_LIMITS: HttpLimits = {
  maxBodyBytes: 4 * 1024 * 1024,
  maxSessions: 1000,
  sessionIdleMs: 10 * 60 * 1000,
  maxConnections: 512,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
};

/** The limits with each option given (a positive number) in place of its default; anything else keeps the default. */
export function resolveLimits(options: Partial<Record<keyof HttpLimits, unknown>>): HttpLimits {
  const pick = (key: keyof HttpLimits): number => {
    const value = options[key];
    return typeof value === "number" && value > 0 && !Number.isNaN(value) ? value : DEFAULT_LIMITS[key];
  };
  return {
    maxBodyBytes: pick("maxBodyBytes"),
    maxSessions: pick("maxSessions"),
    sessionIdleMs: pick("sessionIdleMs"),
    maxConnections: pick("maxConnections"),
    headersTimeoutMs: pick("headersTimeoutMs"),
    requestTimeoutMs: pick("requestTimeoutMs"),
    keepAliveTimeoutMs: pick("keepAliveTimeoutMs"),
  };
}

/** node:http's timeouts for these limits: the headers deadline cannot exceed the request deadline, and expiry is checked often enough to matter. */
export function socketTimeouts(limits: HttpLimits): { headersTimeout: number; requestTimeout: number; keepAliveTimeout: number; connectionsCheckingInterval: number } {
  const headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    headersTimeout,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(headersTimeout / 2))),
  };
}

/**
 * HTTP-01…HTTP-04: the POST of a notification or response the server cannot accept gets an HTTP error,
 * not 202. Why `item` is not a well-formed JSON-RPC 2.0 notification or response (expected
 * versus got), or undefined when it is one. Requests are the engine's to judge.
 */
export function malformedItem(item: unknown): string | undefined {
  if (!isJsonObject(item)) return `expected a JSON-RPC message object, got ${kindOf(item)}`;
  if (item.jsonrpc !== "2.0") return `expected "jsonrpc": "2.0", got ${"jsonrpc" in item ? kindOf(item.jsonrpc) : "none"}`;
  if ("method" in item) {
    if (typeof item.method !== "string") return `expected a string method, got ${kindOf(item.method)}`;
    if ("id" in item && !isRequestId(item.id)) return `expected a string or integer id (or none, for a notification), got ${kindOf(item.id)}`;
    if ("params" in item && !isJsonObject(item.params) && !Array.isArray(item.params)) return `expected params to be an object or an array, got ${kindOf(item.params)}`;
    return undefined;
  }
  const hasResult = "result" in item;
  const hasError = "error" in item;
  if (hasResult === hasError) return `expected a method, or exactly one of result and error, got ${hasResult ? "both" : "neither"}`;
  if (hasError) {
    const error = item.error;
    if (!isJsonObject(error) || typeof error.code !== "number" || !Number.isInteger(error.code) || typeof error.message !== "string") return `expected an error object with an integer code and a string message, got ${kindOf(error)}`;
    if (item.id !== null && !isRequestId(item.id)) return `expected a string, integer or null id, got ${"id" in item ? kindOf(item.id) : "none"}`;
    return undefined;
  }
  if (!isRequestId(item.id)) return `expected a string or integer id, got ${"id" in item ? kindOf(item.id) : "none"}`;
  return undefined;
}

/** The first malformed item of a POST without requests, with its position; undefined when all are well-formed. */
export function firstMalformed(items: readonly unknown[]): { index: number; problem: string } | undefined {
  for (let index = 0; index < items.length; index++) {
    const problem = malformedItem(items[index]);
    if (problem !== undefined) return { index, problem };
  }
  return undefined;
}

/** Why an initialize POST cannot open a session before the engine even sees it (HTTP-01…HTTP-04: initialize is a request), or undefined. */
export function initializeShapeProblem(body: unknown): string | undefined {
  if (Array.isArray(body)) return "initialize must not be batched";
  if (!isJsonObject(body) || !("id" in body)) return "initialize must be a request: expected an id, got none";
  if (!isRequestId(body.id)) return `initialize must be a request: expected a string or integer id, got ${kindOf(body.id)}`;
  return undefined;
}

/**
 * Defect 10.4: a session is minted only for an initialize the engine answered with a result.
 * `answers` are the messages the engine sent while handling it (in order).
 */
export function initializeOutcome(answers: readonly (JsonRpcMessage | readonly JsonRpcMessage[])[], id: RequestId): { kind: "accepted" } | { kind: "refused"; answer: JsonObject } | { kind: "unanswered" } {
  for (const message of answers) {
    if (Array.isArray(message) || !isJsonObject(message) || "method" in message || message.id !== id) continue;
    if ("result" in message) return { kind: "accepted" };
    return { kind: "refused", answer: message };
  }
  return { kind: "unanswered" };
}

/**
 * A request body the host will not read (refused before or while reading it): drain a body
 * declared within the limit (the connection stays usable); close the connection after the
 * answer when it is declared over the limit or of unknown length (chunked), so a peer cannot
 * make the host read without end.
 */
export function unreadBodyDisposal(contentLength: string | undefined, transferEncoding: string | undefined, limit: number): "none" | "drain" | "close" {
  if (transferEncoding !== undefined && transferEncoding.trim() !== "") return "close";
  if (contentLength === undefined) return "none";
  const declared = Number(contentLength);
  if (!Number.isSafeInteger(declared) || declared < 0) return "close";
  if (declared === 0) return "none";
  return declared <= limit ? "drain" : "close";
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === "number" || typeof value === "boolean") return `${typeof value} ${String(value)}`;
  return typeof value === "object" ? "an object" : typeof value;
}
