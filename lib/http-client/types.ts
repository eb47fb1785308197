// The shapes the HTTP client transport is built from, and the small functions its modules share:
// the injected platform types (fetch, response, body reader, abort controller, timers), the
// options, and the data of the errors it synthesizes. Bodies are read in ./body.ts only.
//
// Invariants:
// - structural and portable: the real fetch, Response, ReadableStream and AbortController of
//   browsers, Node, Deno and Workers fit these shapes without adapters; nothing here reads a
//   global except defaultAbortControllerFactory, which only looks the constructor up;
// - the helpers never throw.

import type { HttpTimers } from "../peer/shared/timers.js";
import { isJsonObject, isRequestId, type JsonObject, type RequestId } from "../wire/envelope.js";
import { HttpTransportError, type HttpAuthError } from "../peer/shared/errors.js";
import type { HttpAuth } from "./http-oauth.js";

/** The reader of a response body; the real ReadableStreamDefaultReader<Uint8Array> fits. */
export interface ReaderLike {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel(reason?: unknown): Promise<void>;
}

/** A response body; the real ReadableStream<Uint8Array> fits. */
export interface ReadableStreamLike {
  getReader(): ReaderLike;
}

/** What this transport reads of a fetch Response. */
export interface ResponseLike {
  readonly status: number;
  readonly statusText?: string;
  /** The final URL after redirects (the base for a relative legacy endpoint); "" or absent: the request URL. */
  readonly url?: string;
  readonly headers: { get(name: string): string | null };
  /** Read through lib/http-client/body.ts only (bounded, cancellable); null: no body. */
  readonly body: ReadableStreamLike | null;
  /** True when the fetch followed a redirect itself (it was asked not to: HTTP-14). */
  readonly redirected?: boolean;
  /** "opaqueredirect": a browser's answer to `redirect: "manual"`, whose target it hides (HTTP-14). */
  readonly type?: string;
  /** Never called by this transport (a body is read bounded, from `body`); the real Response has it. */
  text?(): Promise<string>;
}

/** What this transport passes to fetch. S is the signal type of the injected abort controller. */
export interface FetchInit<S> {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: S;
  /** Always "manual": the transport and its OAuth client decide which redirects to follow (HTTP-14, AUTH-17). */
  redirect?: "manual";
}

/**
 * The injected fetch. Generic in the signal type so the real fetch of browsers, Node, Deno and
 * Workers fits structurally (its init wants its own AbortSignal, inferred as S).
 */
export type FetchLike<S = unknown> = (url: string, init: FetchInit<S>) => Promise<ResponseLike>;

export interface AbortControllerLike<S = unknown> {
  readonly signal: S;
  abort(reason?: unknown): void;
}

/** Where received messages go: the Client's Driver fits. */
export interface MessageReceiver {
  receiveMessage(value: unknown): void;
  receiveEof(): void;
  onTimer(): void;
}

// ── errors ───────────────────────────────────────────────

/**
 * The code of the JSON-RPC errors this transport synthesizes when HTTP fails a request: -32000,
 * the first code of JSON-RPC's implementation-defined server-error range. The error's data
 * is an HttpErrorData. A server's own JSON-RPC error body is delivered with its own code.
 */
export const HTTP_TRANSPORT_ERROR = -32000;

export interface HttpErrorData {
  /** The HTTP status, when there was a response. */
  status?: number;
  /** The response body (at most 2048 characters), when there was one. */
  body?: string;
  /** Why there was no usable response (network failure, stream lost, ...). */
  cause?: string;
  /**
   * 2026-07-28 mode: the endpoint answered a 4xx whose body is not a recognized modern
   * JSON-RPC error (isModernErrorResponse): not a 2026-07-28 server, so a dual-era client
   * falls back to initialize.
   */
  fallback?: boolean;
}

// ── options ───────────────────────────────────────────────

export interface HttpClientTransportOptions<S = unknown> {
  /** The MCP endpoint (Streamable HTTP), also the SSE URL of the legacy fallback. */
  url: string;
  fetch: FetchLike<S>;
  timers: HttpTimers;
  /** Makes a controller per fetch so close() can abort it. Default: globalThis.AbortController, if any. */
  createAbortController?: () => AbortControllerLike<S> | undefined;
  /** Extra headers on every HTTP request (e.g. Authorization). */
  headers?: Record<string, string>;
  /** Consecutive reconnection attempts without progress before giving up on a stream. Default 5. */
  maxReconnectAttempts?: number;
  /** Wait before reconnecting when the server sent no SSE `retry`. Default 1000. */
  defaultRetryMs?: number;
  /** Fall back to HTTP+SSE (2024-11-05) when the initialize POST fails as HTTP-04 says. Default true. */
  legacyFallback?: boolean;
  /** Open the standalone GET stream after initialization. Default true. */
  standaloneStream?: boolean;
  /** Longest SSE line or event data, in characters. Default 8 MiB. */
  maxEventLength?: number;
  /**
   * LIM-13: the largest JSON-RPC answer read whole (an application/json body), in bytes; a longer
   * one is cut at this size, its stream cancelled, and its request fails with HttpBodyLimitError.
   * Default 32 MiB.
   */
  maxResponseBytes?: number;
  /**
   * T-05: how long a POST that carries no request (a notification, a response to the server)
   * waits for the server's answer before it is aborted and reported. Default: the caller's
   * request timeout when connectHttp was given one, else 30 000.
   */
  postTimeoutMs?: number;
  /** How long close() waits for the DELETE. Default 5000. */
  deleteTimeoutMs?: number;
  /** Failures no request can carry (a notification's POST, the GET stream, bad SSE data). */
  onError?: (error: HttpTransportError) => void;
  /**
   * Speak 2026-07-28 from the first message, whatever it carries. Default false: the mode
   * starts with the first request carrying the per-request `_meta` envelope (a client Engine
   * after startModern()) and ends when an initialize is sent (a dual-era client falling back).
   */
  modern?: boolean;
  /**
   * OAuth (MCP authorization, lib/auth): `httpOAuth({ ... })` (http-oauth.ts). A 401 or a 403
   * insufficient_scope from any request runs the authorization flow once and the request is
   * retried with the token. Without it no OAuth code is bundled.
   */
  auth?: HttpAuth;
}

// ── small functions ────────────────────────────────────────────

export function defaultAbortControllerFactory<S>(): (() => AbortControllerLike<S>) | undefined {
  // The runtime's own controller: its signal is what the runtime's fetch accepts, whatever S was inferred as.
  const Ctor = (globalThis as unknown as { AbortController?: new () => AbortControllerLike<S> }).AbortController;
  return Ctor === undefined ? undefined : () => new Ctor();
}

export function requestIdOf(message: unknown): RequestId | undefined {
  if (!isJsonObject(message) || typeof message.method !== "string") return undefined;
  return isRequestId(message.id) ? message.id : undefined;
}

export function isResponseTo(message: JsonObject, id: RequestId): boolean {
  return message.method === undefined && message.id === id && ("result" in message || "error" in message);
}

export function authReport(error: HttpAuthError): HttpTransportError {
  return new HttpTransportError(error.detail, error.status, error);
}
