// Pure decisions of Streamable HTTP on the server side: the limits and their defaults (RULES.md
// LIM-09, LIM-10, LIM-11), Host/Origin checks (HTTP-08), which era a POST belongs to (MOD-23),
// what a POST's items must look like before the engine sees them (HTTP-01, HTTP-02, HTTP-12,
// L-05, L-07, M-09), when an initialize earns a session (HTTP-03), primed streams, event ids
// and Last-Event-ID (HTTP-06, HTTP-09, HTTP-10), and what to do with a request body the host
// will not read. Under the core's rules: no I/O, no clock, no Promise, no platform types.
//
// Invariants: every function is total over unknown input (never throws) and answers from its
// arguments alone.

import { isJsonObject, isRequestId, type JsonObject, type JsonRpcMessage, type RequestId } from "../wire/envelope.js";
import { hasModernEnvelope } from "../rules/modern.js";
import { SESSION_VERSIONS, VERSION_PROFILES, isProtocolVersion } from "../rules/versions.js";

/** The host's bounds, resolved (see HttpServerOptions for each): LIM-09 the body, LIM-10 the sessions, LIM-11 the connections. */
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
export function socketTimeouts(limits: HttpLimits): {
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
} {
  const headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    headersTimeout,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(headersTimeout / 2))),
  };
}

/**
 * HTTP-02: the POST of a notification or response the server cannot accept gets an HTTP error,
 * not 202. Why `item` is not a well-formed JSON-RPC 2.0 notification or response (expected
 * versus got), or undefined when it is one. Requests are the engine's to judge.
 */
export function malformedItem(item: unknown): string | undefined {
  if (!isJsonObject(item)) return `expected a JSON-RPC message object, got ${kindOf(item)}`;
  if (item.jsonrpc !== "2.0") return `expected "jsonrpc": "2.0", got ${"jsonrpc" in item ? kindOf(item.jsonrpc) : "none"}`;
  if ("method" in item) {
    if (typeof item.method !== "string") return `expected a string method, got ${kindOf(item.method)}`;
    if ("id" in item && !isRequestId(item.id))
      return `expected a string or integer id (or none, for a notification), got ${kindOf(item.id)}`;
    if ("params" in item && !isJsonObject(item.params) && !Array.isArray(item.params))
      return `expected params to be an object or an array, got ${kindOf(item.params)}`;
    return undefined;
  }
  const hasResult = "result" in item;
  const hasError = "error" in item;
  if (hasResult === hasError) return `expected a method, or exactly one of result and error, got ${hasResult ? "both" : "neither"}`;
  if (hasError) {
    const error = item.error;
    if (!isJsonObject(error) || typeof error.code !== "number" || !Number.isInteger(error.code) || typeof error.message !== "string")
      return `expected an error object with an integer code and a string message, got ${kindOf(error)}`;
    if (item.id !== null && !isRequestId(item.id))
      return `expected a string, integer or null id, got ${"id" in item ? kindOf(item.id) : "none"}`;
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

/** Why an initialize POST cannot open a session before the engine even sees it (L-05: never batched; initialize is a request), or undefined. */
export function initializeShapeProblem(body: unknown): string | undefined {
  if (Array.isArray(body)) return "initialize must not be batched";
  if (!isJsonObject(body) || !("id" in body)) return "initialize must be a request: expected an id, got none";
  if (!isRequestId(body.id)) return `initialize must be a request: expected a string or integer id, got ${kindOf(body.id)}`;
  return undefined;
}

/**
 * HTTP-03: a session (and its Mcp-Session-Id) is minted only for an initialize the engine answered with a result.
 * `answers` are the messages the engine sent while handling it (in order).
 */
export function initializeOutcome(
  answers: readonly (JsonRpcMessage | readonly JsonRpcMessage[])[],
  id: RequestId,
): { kind: "accepted" } | { kind: "refused"; answer: JsonObject } | { kind: "unanswered" } {
  for (const message of answers) {
    if (Array.isArray(message) || !isJsonObject(message) || "method" in message || message.id !== id) continue;
    if ("result" in message) return { kind: "accepted" };
    return { kind: "refused", answer: message };
  }
  return { kind: "unanswered" };
}

/**
 * LIM-09: a request body the host will not read (refused before or while reading it): drain a body
 * declared within the limit (the connection stays usable); close the connection after the
 * answer when it is declared over the limit or of unknown length (chunked), so a peer cannot
 * make the host read without end.
 */
export function unreadBodyDisposal(
  contentLength: string | undefined,
  transferEncoding: string | undefined,
  limit: number,
): "none" | "drain" | "close" {
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

/** The hostname of a Host header or an Origin URL, lower-cased, without port; undefined if malformed. */
export function hostnameOf(value: string, isOrigin: boolean): string | undefined {
  let rest = value.trim().toLowerCase();
  if (isOrigin) {
    const scheme = rest.indexOf("://");
    if (scheme <= 0) return undefined;
    rest = rest.slice(scheme + 3);
    const slash = rest.indexOf("/");
    if (slash >= 0) rest = rest.slice(0, slash);
  }
  if (rest.startsWith("[")) {
    const close = rest.indexOf("]");
    if (close < 0) return undefined;
    const after = rest.slice(close + 1);
    if (after !== "" && !/^:\d+$/.test(after)) return undefined;
    return rest.slice(0, close + 1);
  }
  const colon = rest.indexOf(":");
  const name = colon >= 0 ? rest.slice(0, colon) : rest;
  if (colon >= 0 && !/^\d+$/.test(rest.slice(colon + 1))) return undefined;
  return name === "" ? undefined : name;
}

/** HTTP-08 (DNS rebinding): Host must name an allowed hostname, and Origin, when sent, too. An empty allow-list refuses everything. */
export function hostAllowed(host: string | undefined, origin: string | undefined, allowed: ReadonlySet<string>): boolean {
  const hostName = host === undefined ? undefined : hostnameOf(host, false);
  if (hostName === undefined || !allowed.has(hostName)) return false;
  if (origin === undefined) return true;
  const originName = hostnameOf(origin, true);
  return originName !== undefined && allowed.has(originName);
}

/** L-07: a session-era MCP-Protocol-Version header, when present, must name a session version we speak. */
export function sessionVersionHeaderOk(version: string | undefined): boolean {
  return version === undefined || (SESSION_VERSIONS as readonly string[]).includes(version);
}

/** HTTP-01, HTTP-12: a POST must accept both JSON and SSE answers (406 otherwise). */
export function acceptsPost(accept: string | undefined): boolean {
  return accept !== undefined && accept.includes("application/json") && accept.includes("text/event-stream");
}

/** HTTP-06: a GET must accept SSE, the only answer it gets. */
export function acceptsSse(accept: string | undefined): boolean {
  return accept !== undefined && accept.includes("text/event-stream");
}

/** HTTP-12: a body not labelled application/json is refused (415). */
export function isJsonContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.toLowerCase().startsWith("application/json");
}

/**
 * MOD-23: which era a POST without Mcp-Session-Id belongs to. A single request is 2026-07-28
 * traffic when it carries the per-request envelope (even initialize: under 2026-07-28 it is a
 * removed method, 404 -32601), or when MCP-Protocol-Version names a served modern version and
 * it is not initialize. On a modern-only endpoint every single request but a session-era
 * initialize is.
 */
export function postEra(
  body: unknown,
  versionHeader: string | undefined,
  modernVersions: readonly string[],
  modernOnly: boolean,
): "modern" | "session" {
  if (!isJsonObject(body) || typeof body.method !== "string") return "session";
  if (hasModernEnvelope(isJsonObject(body.params) ? body.params : undefined)) return modernVersions.length > 0 ? "modern" : "session";
  if (body.method === "initialize") return "session";
  return modernOnly || (versionHeader !== undefined && modernVersions.includes(versionHeader)) ? "modern" : "session";
}

/** M-09: whether a session that negotiated `version` takes JSON-RPC batches. */
export function batchesAllowed(version: string | undefined): boolean {
  return isProtocolVersion(version) && VERSION_PROFILES[version].batching;
}

/** HTTP-09 (2025-11-25 on): whether a session's SSE streams open with a priming event (an id, the retry advice) so they can be resumed. */
export function primesStreams(version: string | undefined): boolean {
  return isProtocolVersion(version) && VERSION_PROFILES[version].primedStreams;
}

/** The request ids a session-era POST carries (requests only: a method and a string or number id). */
export function requestIdsOf(items: readonly unknown[]): Set<RequestId> {
  const ids = new Set<RequestId>();
  for (const m of items) {
    if (!isJsonObject(m)) continue;
    if (typeof m.method === "string" && (typeof m.id === "string" || typeof m.id === "number")) ids.add(m.id);
  }
  return ids;
}

/** The request a notifications/cancelled item names, if it is one. */
export function cancelledTarget(item: unknown): RequestId | undefined {
  if (!isJsonObject(item) || item.method !== "notifications/cancelled" || !isJsonObject(item.params)) return undefined;
  const target = item.params.requestId;
  return typeof target === "string" || typeof target === "number" ? target : undefined;
}

/** An SSE event id of a session stream: "<stream>:<seq>", unique per session, so a resumption replays only its own stream (HTTP-10). */
export function eventId(stream: string, seq: number): string {
  return `${stream}:${seq}`;
}

/** A Last-Event-ID split into the stream it names and the last sequence number seen; undefined when malformed. */
export function parseEventId(value: string): { stream: string; seq: number } | undefined {
  const colon = value.lastIndexOf(":");
  if (colon <= 0) return undefined;
  const seq = Number(value.slice(colon + 1));
  if (value.slice(colon + 1) === "" || !Number.isSafeInteger(seq) || seq < 0) return undefined;
  return { stream: value.slice(0, colon), seq };
}

/** A stream id from a counter (a session's, or a node's with several processes): short, and never "" or containing ":". */
export function streamName(counter: number): string {
  return `s${counter.toString(36)}`;
}

/** The path and query (without "?") of an absolute URL or of a request target; the fragment dropped. */
export function splitUrl(url: string): { path: string; query: string } {
  let rest = url;
  const hash = rest.indexOf("#");
  if (hash >= 0) rest = rest.slice(0, hash);
  const scheme = rest.indexOf("://");
  if (scheme > 0 && !rest.slice(0, scheme).includes("/")) {
    const slash = rest.indexOf("/", scheme + 3);
    const question = rest.indexOf("?", scheme + 3);
    const start = slash < 0 ? (question < 0 ? rest.length : question) : question >= 0 && question < slash ? question : slash;
    rest = rest.slice(start);
  }
  const q = rest.indexOf("?");
  const path = q < 0 ? rest : rest.slice(0, q);
  return { path: path === "" ? "/" : path, query: q < 0 ? "" : rest.slice(q + 1) };
}
