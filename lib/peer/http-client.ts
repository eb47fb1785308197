// The client side of Streamable HTTP (RULES.md HTTP-01…HTTP-04) with the deprecated HTTP+SSE transport
// (SSE-01) as a fallback: a PeerHost whose send() POSTs each outbound message, and the receive
// side that turns JSON bodies and SSE streams back into messages for the Client's driver.
// What the HTTP answers and headers mean (header encoding, status interpretation, fallback
// detection) is decided in lib/http/client.ts; this file makes the fetch calls.
//
// Invariants:
// - portable: no Node or DOM globals; fetch, the abort controller and the clock/timers are
//   injected (FetchLike, createAbortController, HttpTimers); this file reads no clock itself;
// - every request the engine sends settles: its answer arrives, or a JSON-RPC error is
//   synthesized for its id (HTTP_TRANSPORT_ERROR, or the server's own JSON-RPC error body),
//   or the connection closes (EOF: the Client rejects it with ConnectionClosedError);
// - the engine never sees transport-private traffic: re-initialization after a 404 uses ids
//   like "mcp-engine-reinit-1" and its answer is consumed here, never delivered;
// - POSTs start in the order the engine sent them; while the initialize POST's status is
//   unknown or a re-initialization runs, later sends wait in a queue, then go in order;
// - every retry loop is bounded (maxReconnectAttempts consecutive attempts without progress)
//   and waits exactly the server's last SSE `retry` (default defaultRetryMs) between tries;
// - 2026-07-28 mode (MOD-20; from the first request carrying the per-request `_meta` envelope,
//   i.e. after the client Engine's startModern(), or option `modern`): every message is its
//   own POST with MCP-Protocol-Version (the `_meta` version), Mcp-Method and, for tools/call,
//   prompts/get and resources/read, Mcp-Name (values outside visible ASCII as
//   `=?base64?…?=`), and for tools/call an Mcp-Param-{Name} for each argument the tool's
//   inputSchema marks with x-mcp-header — known from the tools/list results this transport
//   carried (a tool never listed through it gets none; tools with invalid declarations are
//   left out of those results and reported through onError); no session id, no GET stream, no DELETE, no resumption; cancelling a
//   request aborts its POST (closing its stream is the cancellation; notifications/cancelled
//   is never POSTed); a subscriptions/listen stream stays open until cancelled or closed;
//   a 4xx keeps the server's JSON-RPC error only when it is a recognized modern error
//   (isModernErrorResponse); any other 4xx becomes HTTP_TRANSPORT_ERROR with data.fallback
//   set, which tells a dual-era client to fall back to initialize;
// - a 401 or 403 from any request is an authorization challenge, never a fallback (issue
//   11.9): the request settles with HttpAuthError (status, WWW-Authenticate, URL), attached
//   to its synthesized error object so the Client rejects with it; without a request (the
//   GET stream, DELETE) it goes to onError as HttpTransportError.auth. Only an older offer's
//   initialize (HTTP-04: any 4xx) still tries HTTP+SSE first;
// - with option `auth` (OAuth: oauth.ts, lib/auth/) every request carries the current token;
//   a 401, or a 403 insufficient_scope, runs one authorization flow (shared by concurrent
//   refusals) and the request is sent once more (a DPoP nonce demand: one resend); only a
//   refusal that outlives that becomes the HttpAuthError above.

import type { Outbound } from "../engine.js";
import { isJsonObject, isRequestId, type JsonObject, type RequestId } from "../envelope.js";
import { encodeHeaderValue, isAuthChallenge, isModernErrorResponse, isOk, legacyFallbackStatus, mediaType, modernRequestHeaders } from "../http/client.js";
import { hasModernEnvelope, headerParamsOf, type HeaderParam } from "../modern.js";
import { MODERN_VERSIONS } from "../versions.js";
import { Client, type ClientOptions, type ConnectResult } from "./client.js";
import type { PeerHost } from "./driver.js";
import { HttpAuthError, HttpTransportError, attachPeerError } from "./errors.js";
import { bearerChallenge } from "../auth/challenge.js";
import { OAuthClient, type HttpAuthOptions } from "./oauth.js";
import { SseParser, type SseEvent } from "./sse.js";
import { resolveReference } from "./uri-reference.js";

// ── injected platform shapes ────────────────────────────────────────────────────

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
  readonly body: ReadableStreamLike | null;
  text(): Promise<string>;
}

/** What this transport passes to fetch. S is the signal type of the injected abort controller. */
export interface FetchInit<S> {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: S;
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

/** The clock and timers, injected: the peer layer reads no clock. */
export interface HttpTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Where received messages go: the Client's Driver fits. */
export interface MessageReceiver {
  receiveMessage(value: unknown): void;
  receiveEof(): void;
  onTimer(): void;
}

// ── errors ──────────────────────────────────────────────────────────────────────

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

// ── options ─────────────────────────────────────────────────────────────────────

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
   * OAuth (MCP authorization, lib/auth): a 401 or a 403 insufficient_scope from any request
   * runs the authorization flow once and the request is retried with the token.
   */
  auth?: HttpAuthOptions;
}

// ── the transport ───────────────────────────────────────────────────────────────

interface Cursor {
  lastEventId: string | undefined;
  retry: number | undefined;
}

interface StandaloneStream<S> {
  readonly gen: number;
  readonly cursor: Cursor;
  ctl: AbortControllerLike<S> | undefined;
  reader: ReaderLike | undefined;
}

interface Sleep {
  handle: unknown;
  readonly resolve: () => void;
}

type Intercept = (message: JsonObject) => boolean;

const ACCEPT_BOTH = "application/json, text/event-stream";
const ACCEPT_SSE = "text/event-stream";
const SESSION_ID = /^[\x21-\x7e]+$/;

/**
 * A PeerHost for a Client over Streamable HTTP. Wire it with attach(client.input) right after
 * constructing the Client (connectHttp does both).
 */
export class HttpClientTransport<S = unknown> implements PeerHost {
  readonly url: string;
  private readonly fetchFn: FetchLike<S>;
  private readonly timers: HttpTimers;
  private readonly makeController: (() => AbortControllerLike<S> | undefined) | undefined;
  private readonly extraHeaders: Record<string, string>;
  private readonly maxAttempts: number;
  private readonly defaultRetryMs: number;
  private readonly legacyFallback: boolean;
  private readonly standaloneEnabled: boolean;
  private readonly maxEventLength: number;
  private readonly deleteTimeoutMs: number;
  private readonly onError: ((error: HttpTransportError) => void) | undefined;
  private readonly oauth: OAuthClient | undefined;
  private readonly forceModern: boolean;

  private receiver: MessageReceiver | undefined;
  private state: "open" | "closing" | "closed" = "open";
  private closing: Promise<void> | undefined;
  private mode: "streamable" | "legacy" = "streamable";
  private legacyEndpoint: string | undefined;
  private triedLegacy = false;
  private session: string | undefined;
  private version: string | undefined;
  private initMessage: JsonObject | undefined;
  private initId: RequestId | undefined;
  /** Bumped when a re-initialization starts; a 404 on a POST of an older generation just retries. */
  private generation = 0;
  private recovering: Promise<boolean> | undefined;
  private reinitCount = 0;
  private reinitializing = false;
  private blockers = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly controllers = new Set<AbortControllerLike<S>>();
  private readonly readers = new Set<ReaderLike>();
  private readonly sleeps = new Set<Sleep>();
  /** Requests whose POST is still being handled; those the engine cancelled are abandoned (no error, no resumption). */
  private readonly inflight = new Set<RequestId>();
  private readonly abandoned = new Set<RequestId>();
  private standalone: StandaloneStream<S> | undefined;
  private getUnsupported = false;
  private timer: unknown;
  private timerArmed = false;
  /** 2026-07-28 mode (see the file comment). */
  private modern: boolean;
  /** The version of the last 2026-07-28 request (the MCP-Protocol-Version of later notifications). */
  private modernVersion: string = MODERN_VERSIONS[0];
  /** 2026-07-28 requests in flight: aborting one is how it is cancelled. */
  private readonly modernPosts = new Map<RequestId, { ctl: AbortControllerLike<S> | undefined; holder: { reader: ReaderLike | undefined } }>();
  /** 2026-07-28: each listed tool's x-mcp-header arguments, learned from the tools/list results this transport carried. */
  private readonly paramHeaders = new Map<string, readonly HeaderParam[]>();
  /** 2026-07-28 tools/list requests in flight: their results teach paramHeaders. */
  private readonly toolLists = new Set<RequestId>();

  constructor(options: HttpClientTransportOptions<S>) {
    this.url = options.url;
    this.fetchFn = options.fetch;
    this.timers = options.timers;
    this.makeController = options.createAbortController ?? defaultAbortControllerFactory<S>();
    this.extraHeaders = { ...options.headers };
    this.maxAttempts = options.maxReconnectAttempts ?? 5;
    this.defaultRetryMs = options.defaultRetryMs ?? 1000;
    this.legacyFallback = options.legacyFallback ?? true;
    this.standaloneEnabled = options.standaloneStream ?? true;
    this.maxEventLength = options.maxEventLength ?? 8 * 1024 * 1024;
    this.deleteTimeoutMs = options.deleteTimeoutMs ?? 5000;
    this.onError = options.onError;
    this.oauth = options.auth === undefined ? undefined : new OAuthClient(options.auth, (url, init) => this.fetchFn(url, init));
    this.forceModern = options.modern ?? false;
    this.modern = this.forceModern;
  }

  /** Where received messages and EOF go (the Client's driver). */
  attach(receiver: MessageReceiver): void {
    this.receiver = receiver;
  }

  /** The session id the server assigned, if any. */
  get sessionId(): string | undefined {
    return this.session;
  }

  /** The protocol version seen in the initialize result (sent as MCP-Protocol-Version). */
  get protocolVersion(): string | undefined {
    return this.version;
  }

  /** Whether messages go the 2026-07-28 way (see the file comment). */
  get isModern(): boolean {
    return this.modern;
  }

  /** "streamable", or "legacy" after falling back to HTTP+SSE. */
  get transportMode(): "streamable" | "legacy" {
    return this.mode;
  }

  /** The POST URL of the legacy transport (from its endpoint event). */
  get legacyPostUrl(): string | undefined {
    return this.legacyEndpoint;
  }

  get isClosed(): boolean {
    return this.state !== "open";
  }

  // ── PeerHost ────────────────────────────────────────────────────────────────

  now(): number {
    return this.timers.now();
  }

  armTimer(at: number | undefined): void {
    if (this.timerArmed) this.timers.clearTimeout(this.timer);
    this.timerArmed = false;
    this.timer = undefined;
    if (at === undefined || this.state === "closed") return;
    this.timerArmed = true;
    this.timer = this.timers.setTimeout(
      () => {
        this.timerArmed = false;
        this.timer = undefined;
        this.receiver?.onTimer();
      },
      Math.max(0, at - this.timers.now()),
    );
  }

  send(outbound: Outbound): void {
    if (this.state !== "open") return;
    const message = outbound.message;
    const requestId = requestIdOf(message);
    if (isJsonObject(message) && typeof message.method === "string") {
      if (message.method === "initialize" && !this.forceModern) this.modern = false;
      else if (requestId !== undefined && hasModernEnvelope(isJsonObject(message.params) ? message.params : undefined)) this.modern = true;
    }
    if (this.modern) {
      this.sendModern(message, requestId);
      return;
    }
    if (isJsonObject(message) && message.method === "initialize" && this.initMessage === undefined && requestId !== undefined) {
      this.initMessage = message;
      this.initId = requestId;
      this.inflight.add(requestId);
      // Until the initialize POST's status says which transport this is, later sends wait.
      const unblock = this.block();
      this.run(() => this.postInitialize(message, requestId, unblock));
      return;
    }
    if (isJsonObject(message) && message.method === "notifications/cancelled" && isJsonObject(message.params)) {
      const cancelled = message.params.requestId;
      if (isRequestId(cancelled) && this.inflight.has(cancelled)) this.abandoned.add(cancelled);
    }
    if (requestId !== undefined) this.inflight.add(requestId);
    this.schedule(() => this.run(() => this.post(message, requestId, false)));
  }

  // ── close ───────────────────────────────────────────────────────────────────

  /** Aborts open streams and fetches, DELETEs the session (405 is fine), then delivers EOF to the client. */
  close(): Promise<void> {
    if (this.closing !== undefined) return this.closing;
    if (this.state === "closed") return Promise.resolve();
    this.state = "closing";
    this.closing = this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.teardown();
    if (this.mode === "streamable" && this.session !== undefined) await this.deleteSession(this.session);
    this.state = "closed";
    this.armTimer(undefined);
    this.receiver?.receiveEof();
  }

  private async deleteSession(session: string): Promise<void> {
    const ctl = this.makeController?.();
    let timedOut = false;
    const handle = this.timers.setTimeout(() => {
      timedOut = true;
      ctl?.abort("DELETE timed out");
    }, this.deleteTimeoutMs);
    try {
      const headers = this.headers(ACCEPT_BOTH, true);
      headers["Mcp-Session-Id"] = session;
      const res = await this.fetchRaw(this.url, "DELETE", headers, undefined, ctl);
      if (isAuthChallenge(res.status)) {
        this.report(authReport(await authErrorOf(res, this.url)));
        return;
      }
      await discard(res);
      if (res.status !== 405 && res.status !== 404 && !isOk(res.status)) this.report(new HttpTransportError(`DELETE of the session answered HTTP ${res.status}`, res.status));
    } catch (error) {
      this.report(new HttpTransportError(timedOut ? `DELETE of the session took longer than ${this.deleteTimeoutMs} ms` : `DELETE of the session failed: ${describe(error)}`));
    } finally {
      this.timers.clearTimeout(handle);
    }
  }

  /** Stops everything in flight: fetches, streams, waits, queued sends. */
  private teardown(): void {
    this.standalone = undefined;
    for (const ctl of this.controllers) ctl.abort("closed");
    this.controllers.clear();
    for (const reader of this.readers) cancelQuietly(reader);
    this.readers.clear();
    for (const sleep of this.sleeps) {
      this.timers.clearTimeout(sleep.handle);
      sleep.resolve();
    }
    this.sleeps.clear();
    this.waiting.length = 0;
  }

  /** The connection is lost for good: EOF to the client (pending requests reject with ConnectionClosedError). */
  private fatal(detail: string): void {
    if (this.state !== "open") return;
    this.state = "closed";
    this.report(new HttpTransportError(detail));
    this.teardown();
    this.armTimer(undefined);
    this.receiver?.receiveEof();
  }

  // ── 2026-07-28: one POST per message ──────────────────────────────────────

  private sendModern(message: unknown, requestId: RequestId | undefined): void {
    if (isJsonObject(message) && message.method === "notifications/cancelled" && isJsonObject(message.params)) {
      // MOD-17: over HTTP a request is cancelled by closing its stream; the notification itself is not sent.
      const cancelled = message.params.requestId;
      if (isRequestId(cancelled)) this.abortModern(cancelled);
      return;
    }
    if (requestId !== undefined) this.inflight.add(requestId);
    if (requestId !== undefined && isJsonObject(message) && message.method === "tools/list") this.toolLists.add(requestId);
    this.run(() => this.postModern(message, requestId));
  }

  private abortModern(id: RequestId): void {
    const post = this.modernPosts.get(id);
    if (post === undefined) return;
    this.abandoned.add(id);
    post.ctl?.abort("cancelled");
    if (post.holder.reader !== undefined) cancelQuietly(post.holder.reader);
  }

  private async postModern(message: unknown, requestId: RequestId | undefined): Promise<void> {
    const ctl = this.controller();
    const holder: { reader: ReaderLike | undefined } = { reader: undefined };
    if (requestId !== undefined) this.modernPosts.set(requestId, { ctl, holder });
    try {
      let res: ResponseLike;
      try {
        res = await this.fetchRaw(this.url, "POST", this.modernHeaders(message), JSON.stringify(message), ctl);
      } catch (error) {
        this.fail(requestId, `POST failed: ${describe(error)}`, { cause: describe(error) });
        return;
      }
      if (!this.active || (requestId !== undefined && this.abandoned.has(requestId))) {
        await discard(res);
        return;
      }
      if (isAuthChallenge(res.status)) {
        await this.failAuth(requestId, res, this.url);
        return;
      }
      if (!isOk(res.status)) {
        const { status, text, error } = await readError(res);
        // A 4xx that is not a modern error says "not a 2026-07-28 endpoint"; anything else is answered as in the session era.
        if (status < 400 || status >= 500 || (error !== undefined && isModernErrorResponse(status, { error }))) {
          this.failFromBody(requestId, status, text, error);
          return;
        }
        const message = error !== undefined ? `HTTP ${status}: ${String(error.message)}` : `HTTP ${status}${text !== "" ? `: ${clip(text, 200)}` : ""}`;
        this.fail(requestId, `${message} (not a 2026-07-28 answer)`, text === "" ? { status, fallback: true } : { status, body: clip(text), fallback: true });
        return;
      }
      const failure = await this.consume(res, requestId, undefined, holder);
      if (failure !== undefined) this.fail(requestId, failure.message, failure.data);
    } finally {
      this.release(ctl);
      if (requestId !== undefined) {
        if (this.modernPosts.get(requestId)?.holder === holder) this.modernPosts.delete(requestId);
        this.toolLists.delete(requestId);
        this.inflight.delete(requestId);
        this.abandoned.delete(requestId);
      }
    }
  }

  /** The 2026-07-28 request headers (MOD-18) for one message (lib/http/client.ts decides them). */
  private modernHeaders(message: unknown): Record<string, string> {
    const built = modernRequestHeaders(message, this.modernVersion, (tool) => this.paramHeaders.get(tool));
    this.modernVersion = built.version;
    return { ...this.extraHeaders, "Content-Type": "application/json", Accept: ACCEPT_BOTH, ...built.headers };
  }

  /**
   * A 2026-07-28 tools/list result: records each tool's x-mcp-header arguments, and drops the
   * tools whose declarations are invalid (MOD-19: a client MUST exclude them), reporting each.
   */
  private learnTools(message: JsonObject, result: JsonObject): JsonObject {
    const tools = result.tools;
    if (!Array.isArray(tools)) return message;
    const kept: unknown[] = [];
    for (const tool of tools) {
      if (!isJsonObject(tool) || typeof tool.name !== "string") {
        kept.push(tool);
        continue;
      }
      const declared = headerParamsOf(tool.inputSchema);
      if (!declared.ok) {
        this.paramHeaders.delete(tool.name);
        this.report(new HttpTransportError(`tools/list: left out tool ${JSON.stringify(tool.name)}: ${declared.reason}`));
        continue;
      }
      if (declared.params.length > 0) this.paramHeaders.set(tool.name, declared.params);
      else this.paramHeaders.delete(tool.name);
      kept.push(tool);
    }
    return kept.length === tools.length ? message : { ...message, result: { ...result, tools: kept } };
  }

  // ── Streamable HTTP: POST ───────────────────────────────────────────────────

  private async postInitialize(message: JsonObject, requestId: RequestId, unblock: () => void): Promise<void> {
    const ctl = this.controller();
    try {
      let res: ResponseLike;
      try {
        res = await this.fetchRaw(this.url, "POST", this.headers(ACCEPT_BOTH, false, true), JSON.stringify(message), ctl);
      } catch (error) {
        unblock();
        this.fail(requestId, `initialize: POST failed: ${describe(error)}`, { cause: describe(error) });
        return;
      }
      if (!this.active) return void discard(res);
      if (!this.triedLegacy && this.legacyEligible(res.status)) {
        this.triedLegacy = true;
        // HTTP-04: an older offer tries HTTP+SSE on any 4xx; a 401/403 that stays one is reported as the challenge it is.
        const original = isAuthChallenge(res.status) ? { status: res.status, text: "", error: undefined, auth: await authErrorOf(res, this.url) } : await readError(res);
        await this.fallbackToLegacy(message, requestId, original);
        unblock();
        return;
      }
      if (isAuthChallenge(res.status)) {
        // Issue 11.9: a challenge is this server's answer: a typed error, never a fallback.
        unblock();
        await this.failAuth(requestId, res, this.url);
        return;
      }
      if (!isOk(res.status)) {
        unblock();
        await this.failHttp(requestId, res);
        return;
      }
      this.captureSession(res);
      unblock();
      const failure = await this.consume(res, requestId, undefined);
      if (failure !== undefined) this.fail(requestId, failure.message, failure.data);
    } finally {
      unblock();
      this.release(ctl);
      this.inflight.delete(requestId);
      this.abandoned.delete(requestId);
    }
  }

  private async post(message: unknown, requestId: RequestId | undefined, retried: boolean): Promise<void> {
    let again = false;
    try {
      again = await this.postOnce(message, requestId, retried);
    } finally {
      if (!again && requestId !== undefined) {
        this.inflight.delete(requestId);
        this.abandoned.delete(requestId);
      }
    }
    if (again) await this.post(message, requestId, true);
  }

  /** One POST of a message. True: the session was re-initialized after a 404, post it again. */
  private async postOnce(message: unknown, requestId: RequestId | undefined, retried: boolean): Promise<boolean> {
    if (!this.active) return false;
    if (this.mode === "legacy") {
      await this.legacyPost(message, requestId);
      return false;
    }
    const gen = this.generation;
    const withSession = this.session !== undefined;
    const ctl = this.controller();
    try {
      let res: ResponseLike;
      try {
        res = await this.fetchRaw(this.url, "POST", this.headers(ACCEPT_BOTH, true, true), JSON.stringify(message), ctl);
      } catch (error) {
        this.fail(requestId, `POST failed: ${describe(error)}`, { cause: describe(error) });
        return false;
      }
      if (!this.active) {
        await discard(res);
        return false;
      }
      if (isAuthChallenge(res.status)) {
        await this.failAuth(requestId, res, this.url);
        return false;
      }
      if (res.status === 404 && withSession) {
        await discard(res);
        if (!retried) return await this.recover(gen);
        this.fail(requestId, "HTTP 404: the session was not found, again after re-initialization", { status: 404 });
        return false;
      }
      if (!isOk(res.status)) {
        await this.failHttp(requestId, res);
        return false;
      }
      const failure = await this.consume(res, requestId, undefined);
      if (failure !== undefined) this.fail(requestId, failure.message, failure.data);
      if (isJsonObject(message) && message.method === "notifications/initialized") this.openStandalone();
      return false;
    } finally {
      this.release(ctl);
    }
  }

  /**
   * Reads a 2xx answer: JSON (one message or an array) or SSE (resumed with GET and
   * Last-Event-ID when it ends early; never in 2026-07-28 mode, when `holder` is given and
   * learns the stream's reader so a cancellation can close it). Returns why the answer to
   * `expect` is missing, or undefined when it came (or none was expected, or the engine
   * abandoned the request).
   */
  private async consume(res: ResponseLike, expect: RequestId | undefined, intercept: Intercept | undefined, holder?: { reader: ReaderLike | undefined }): Promise<{ message: string; data: HttpErrorData } | undefined> {
    const type = mediaType(res.headers.get("content-type"));
    if (type === "text/event-stream" && res.body !== null) {
      const failure = holder === undefined ? await this.readResponseStream(res.body, expect, intercept) : await this.readModernStream(res.body, expect, holder);
      return failure === undefined ? undefined : { message: failure, data: { status: res.status, cause: failure } };
    }
    if (type === "application/json") {
      let text: string;
      try {
        text = await res.text();
      } catch (error) {
        return this.active ? { message: `reading the response failed: ${describe(error)}`, data: { status: res.status, cause: describe(error) } } : undefined;
      }
      if (!this.active) return undefined;
      if (text.trim() !== "") {
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          return { message: `HTTP ${res.status}: the body is not JSON`, data: { status: res.status, body: clip(text) } };
        }
        if (this.deliver(value, expect, intercept)) return undefined;
      }
    } else await discard(res);
    if (expect === undefined || !this.active || this.abandoned.has(expect)) return undefined;
    return { message: `HTTP ${res.status}${type !== "" ? ` (${type})` : ""}: the response carries no answer to the request`, data: { status: res.status } };
  }

  /** A 2026-07-28 POST's SSE stream: read once (it cannot be resumed). Returns a failure reason or undefined. */
  private async readModernStream(body: ReadableStreamLike, expect: RequestId | undefined, holder: { reader: ReaderLike | undefined }): Promise<string | undefined> {
    let answered = false;
    const outcome = await this.readSse(body, { lastEventId: undefined, retry: undefined }, (event) => (answered = this.handleEvent(event, expect, undefined) || answered), holder);
    if (expect === undefined || answered || !this.active || this.abandoned.has(expect)) return undefined;
    return `the response stream ${outcome === "error" ? "failed" : "ended"} before the answer (a 2026-07-28 stream cannot be resumed: send the request again with a new id)`;
  }

  /** A POST's SSE stream, resumed while it ends before the answer. Returns a failure reason or undefined. */
  private async readResponseStream(body: ReadableStreamLike, expect: RequestId | undefined, intercept: Intercept | undefined): Promise<string | undefined> {
    const cursor: Cursor = { lastEventId: undefined, retry: undefined };
    let answered = false;
    const onEvent = (event: SseEvent): boolean => {
      if (this.handleEvent(event, expect, intercept)) answered = true;
      return answered;
    };
    const outcome = await this.readSse(body, cursor, onEvent, undefined);
    if (expect === undefined) return undefined;
    let failures = 0;
    for (;;) {
      if (answered || !this.active || this.abandoned.has(expect)) return undefined;
      if (outcome === "error" && cursor.lastEventId === undefined) return "the response stream failed before the answer";
      if (cursor.lastEventId === undefined) return "the response stream ended before the answer and carried no event id to resume from";
      if (++failures > this.maxAttempts) return `the response stream could not be resumed (${this.maxAttempts} attempts)`;
      await this.sleep(cursor.retry ?? this.defaultRetryMs);
      if (!this.active || this.abandoned.has(expect)) return undefined;
      const before = cursor.lastEventId;
      const gen = this.generation;
      const withSession = this.session !== undefined;
      const ctl = this.controller();
      try {
        const headers = this.headers(ACCEPT_SSE, true);
        headers["Last-Event-ID"] = before;
        let res: ResponseLike;
        try {
          res = await this.fetchRaw(this.url, "GET", headers, undefined, ctl);
        } catch {
          continue;
        }
        if (!this.active) return void discard(res);
        if (isAuthChallenge(res.status)) {
          await this.failAuth(expect, res, this.url);
          return undefined;
        }
        if (res.status === 404 && withSession) {
          await discard(res);
          // The re-initialization's own stream lost its session: that re-initialization fails.
          if (!this.reinitializing) await this.recover(gen);
          return "the session expired before the answer arrived";
        }
        if (res.status === 200 && mediaType(res.headers.get("content-type")) === "text/event-stream" && res.body !== null) {
          await this.readSse(res.body, cursor, onEvent, undefined);
          if (cursor.lastEventId !== before) failures = 0;
          continue;
        }
        await discard(res);
        if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) return `resuming the response stream failed: HTTP ${res.status}`;
      } finally {
        this.release(ctl);
      }
    }
  }

  /** A message event's data, parsed and delivered. True when it held the answer to `expect`. */
  private handleEvent(event: SseEvent, expect: RequestId | undefined, intercept: Intercept | undefined): boolean {
    if (event.type !== "message" || event.data === "") return false;
    let value: unknown;
    try {
      value = JSON.parse(event.data);
    } catch {
      this.report(new HttpTransportError(`an SSE message event is not JSON: ${clip(event.data, 200)}`));
      return false;
    }
    return this.deliver(value, expect, intercept);
  }

  /** Delivers one message or each of an array to the client. True when one answered `expect`. */
  private deliver(value: unknown, expect: RequestId | undefined, intercept: Intercept | undefined): boolean {
    let answered = false;
    for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) {
      if (!this.active) return answered;
      let message = item;
      if (isJsonObject(message) && message.method === undefined && isRequestId(message.id) && this.toolLists.delete(message.id) && isJsonObject(message.result)) {
        message = this.learnTools(message, message.result);
      }
      if (isJsonObject(message)) {
        if (expect !== undefined && isResponseTo(message, expect)) answered = true;
        if (intercept?.(message) === true) continue;
        if (this.version === undefined && this.initId !== undefined && isResponseTo(message, this.initId) && isJsonObject(message.result)) {
          const version = message.result.protocolVersion;
          if (typeof version === "string") this.version = version;
        }
      }
      this.receiver?.receiveMessage(message);
    }
    return answered;
  }

  // ── sessions: capture and recovery after 404 ────────────────────────────────

  private captureSession(res: ResponseLike): void {
    const id = res.headers.get("mcp-session-id");
    if (id === null) return;
    if (SESSION_ID.test(id)) this.session = id;
    else this.report(new HttpTransportError(`ignored a session id with characters outside 0x21-0x7E: ${JSON.stringify(clip(id, 100))}`));
  }

  /**
   * The session behind generation `gen` is gone (404). Concurrent callers share one
   * re-initialization; callers from an older generation see the one that already ran.
   * Resolves true when the transport has a working session again.
   */
  private recover(gen: number): Promise<boolean> {
    if (gen !== this.generation) return this.recovering ?? Promise.resolve(this.active);
    this.generation++;
    const unblock = this.block();
    this.reinitializing = true;
    this.recovering = this.reinitialize().then(
      (ok) => ok,
      () => false,
    ).then((ok) => {
      this.reinitializing = false;
      this.recovering = undefined;
      if (!ok) this.fatal("the session expired (HTTP 404) and re-initialization failed");
      unblock();
      return ok && this.active;
    });
    return this.recovering;
  }

  /** A new session: replay initialize (private id), check the version, POST notifications/initialized. */
  private async reinitialize(): Promise<boolean> {
    this.stopStandalone();
    const init = this.initMessage;
    if (init === undefined || !this.active) return false;
    this.session = undefined;
    const id = `mcp-engine-reinit-${++this.reinitCount}`;
    let answer: JsonObject | undefined;
    const intercept: Intercept = (message) => {
      if (!isResponseTo(message, id)) return false;
      answer = message;
      return true;
    };
    const ctl = this.controller();
    try {
      const res = await this.fetchRaw(this.url, "POST", this.headers(ACCEPT_BOTH, false, true), JSON.stringify({ ...init, id }), ctl);
      if (!this.active) return false;
      if (isAuthChallenge(res.status)) {
        this.report(authReport(await authErrorOf(res, this.url)));
        return false;
      }
      if (!isOk(res.status)) {
        await discard(res);
        return false;
      }
      this.captureSession(res);
      await this.consume(res, id, intercept);
    } catch {
      return false;
    } finally {
      this.release(ctl);
    }
    const result = answer?.result;
    if (!this.active || !isJsonObject(result) || result.protocolVersion !== this.version) return false;
    const ctl2 = this.controller();
    try {
      const res = await this.fetchRaw(this.url, "POST", this.headers(ACCEPT_BOTH, true, true), JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), ctl2);
      await discard(res);
      if (!isOk(res.status) || !this.active) return false;
    } catch {
      return false;
    } finally {
      this.release(ctl2);
    }
    this.openStandalone();
    return true;
  }

  // ── the standalone GET stream ───────────────────────────────────────────────

  private openStandalone(): void {
    if (!this.standaloneEnabled || this.getUnsupported || this.mode !== "streamable" || !this.active) return;
    if (this.standalone !== undefined && this.standalone.gen === this.generation) return;
    const stream: StandaloneStream<S> = { gen: this.generation, cursor: { lastEventId: undefined, retry: undefined }, ctl: undefined, reader: undefined };
    this.standalone = stream;
    this.run(() => this.runStandalone(stream));
  }

  private stopStandalone(): void {
    const stream = this.standalone;
    this.standalone = undefined;
    if (stream === undefined) return;
    stream.ctl?.abort("stopped");
    if (stream.reader !== undefined) cancelQuietly(stream.reader);
  }

  private async runStandalone(stream: StandaloneStream<S>): Promise<void> {
    let failures = 0;
    while (this.standalone === stream && this.active) {
      const ctl = this.controller();
      stream.ctl = ctl;
      try {
        const headers = this.headers(ACCEPT_SSE, true);
        if (stream.cursor.lastEventId !== undefined) headers["Last-Event-ID"] = stream.cursor.lastEventId;
        let res: ResponseLike | undefined;
        try {
          res = await this.fetchRaw(this.url, "GET", headers, undefined, ctl);
        } catch {
          res = undefined;
        }
        if (this.standalone !== stream || !this.active) {
          if (res !== undefined) await discard(res);
          return;
        }
        if (res === undefined) failures++;
        else if (isAuthChallenge(res.status)) {
          await this.failAuth(undefined, res, this.url);
          this.standalone = undefined;
          return;
        } else if (res.status === 405) {
          await discard(res);
          this.getUnsupported = true;
          this.standalone = undefined;
          return;
        } else if (res.status === 404 && this.session !== undefined) {
          await discard(res);
          this.standalone = undefined;
          await this.recover(stream.gen);
          return;
        } else if (res.status === 200 && mediaType(res.headers.get("content-type")) === "text/event-stream" && res.body !== null) {
          failures = 0;
          await this.readSse(res.body, stream.cursor, (event) => this.handleEvent(event, undefined, undefined) && false, stream);
        } else {
          await discard(res);
          if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) {
            this.report(new HttpTransportError(`the GET stream was refused: HTTP ${res.status}`, res.status));
            this.standalone = undefined;
            return;
          }
          failures++;
        }
      } finally {
        this.release(ctl);
        stream.ctl = undefined;
      }
      if (this.standalone !== stream || !this.active) return;
      if (failures > this.maxAttempts) {
        this.report(new HttpTransportError(`the GET stream could not be reopened (${this.maxAttempts} attempts)`));
        this.standalone = undefined;
        return;
      }
      await this.sleep(stream.cursor.retry ?? this.defaultRetryMs);
    }
  }

  // ── the deprecated HTTP+SSE transport ───────────────────────────────────────

  /** HTTP-04: which initialize failures mean "try HTTP+SSE". */
  private legacyEligible(status: number): boolean {
    if (!this.legacyFallback) return false;
    const params = this.initMessage?.params;
    return legacyFallbackStatus(isJsonObject(params) ? params.protocolVersion : undefined, status);
  }

  private async fallbackToLegacy(message: JsonObject, requestId: RequestId, original: { status: number; text: string; error: JsonObject | undefined; auth?: HttpAuthError }): Promise<void> {
    const failOriginal = (): void => (original.auth !== undefined ? this.settleAuth(requestId, original.auth) : this.failFromBody(requestId, original.status, original.text, original.error));
    const ctl = this.controller();
    let res: ResponseLike;
    try {
      res = await this.fetchRaw(this.url, "GET", { ...this.extraHeaders, Accept: ACCEPT_SSE }, undefined, ctl);
    } catch {
      this.release(ctl);
      failOriginal();
      return;
    }
    const body = res.body;
    if (!this.active || res.status !== 200 || mediaType(res.headers.get("content-type")) !== "text/event-stream" || body === null) {
      this.release(ctl);
      await discard(res);
      failOriginal();
      return;
    }
    const base = res.url !== undefined && res.url !== "" ? res.url : this.url;
    const endpoint = await new Promise<string | undefined>((resolve) => {
      let first = true;
      const cursor: Cursor = { lastEventId: undefined, retry: undefined };
      const onEvent = (event: SseEvent): boolean => {
        if (!first) return this.handleEvent(event, undefined, undefined) && false;
        first = false;
        if (event.type !== "endpoint") {
          resolve(undefined);
          return true;
        }
        resolve(resolveReference(base, event.data.trim()));
        return false;
      };
      void this.readSse(body, cursor, onEvent, undefined).then(() => {
        this.release(ctl);
        resolve(undefined);
        if (this.mode === "legacy") this.fatal("the HTTP+SSE stream ended");
      });
    });
    if (endpoint === undefined) {
      failOriginal();
      return;
    }
    this.mode = "legacy";
    this.legacyEndpoint = endpoint;
    await this.legacyPost(message, requestId);
  }

  private async legacyPost(message: unknown, requestId: RequestId | undefined): Promise<void> {
    const ctl = this.controller();
    try {
      const headers: Record<string, string> = { ...this.extraHeaders, "Content-Type": "application/json", Accept: ACCEPT_BOTH };
      let res: ResponseLike;
      try {
        res = await this.fetchRaw(this.legacyEndpoint ?? this.url, "POST", headers, JSON.stringify(message), ctl);
      } catch (error) {
        this.fail(requestId, `POST failed: ${describe(error)}`, { cause: describe(error) });
        return;
      }
      if (isOk(res.status)) await discard(res);
      else if (isAuthChallenge(res.status)) await this.failAuth(requestId, res, this.legacyEndpoint ?? this.url);
      else await this.failHttp(requestId, res);
    } finally {
      this.release(ctl);
      if (requestId !== undefined) {
        this.inflight.delete(requestId);
        this.abandoned.delete(requestId);
      }
    }
  }

  // ── SSE reading ─────────────────────────────────────────────────────────────

  /**
   * Reads an SSE body to its end, handing each event to onEvent (true: stop after this
   * chunk's events). The cursor carries the last event id and retry across reconnections.
   */
  private async readSse(body: ReadableStreamLike, cursor: Cursor, onEvent: (event: SseEvent) => boolean, holder: { reader: ReaderLike | undefined } | undefined): Promise<"end" | "stopped" | "error"> {
    let reader: ReaderLike;
    try {
      reader = body.getReader();
    } catch {
      return "error";
    }
    this.readers.add(reader);
    if (holder !== undefined) holder.reader = reader;
    const parser = new SseParser({ lastEventId: cursor.lastEventId, retry: cursor.retry, maxLength: this.maxEventLength });
    const events: SseEvent[] = [];
    try {
      for (;;) {
        let chunk: { done: boolean; value?: Uint8Array };
        try {
          chunk = await reader.read();
        } catch {
          return "error";
        }
        if (!this.active) return "stopped";
        if (chunk.done) return "end";
        if (chunk.value === undefined) continue;
        events.length = 0;
        let broken = false;
        try {
          parser.push(chunk.value, events);
        } catch (error) {
          this.report(new HttpTransportError(describe(error)));
          broken = true;
        }
        let stop = false;
        for (const event of events) {
          if (!this.active) return "stopped";
          if (onEvent(event)) stop = true;
        }
        cursor.lastEventId = parser.lastEventId === "" ? undefined : parser.lastEventId;
        cursor.retry = parser.retry;
        if (broken || stop) {
          cancelQuietly(reader);
          return broken ? "error" : "stopped";
        }
      }
    } finally {
      this.readers.delete(reader);
      if (holder !== undefined && holder.reader === reader) holder.reader = undefined;
    }
  }

  // ── helpers ─────────────────────────────────────────────────────────────────

  private get active(): boolean {
    return this.state === "open";
  }

  private headers(accept: string, afterInit: boolean, json = false): Record<string, string> {
    const headers: Record<string, string> = { ...this.extraHeaders };
    if (json) headers["Content-Type"] = "application/json";
    headers.Accept = accept;
    if (this.session !== undefined) headers["Mcp-Session-Id"] = this.session;
    if (afterInit && this.version !== undefined) headers["MCP-Protocol-Version"] = this.version;
    return headers;
  }

  /** Every request goes out here: with the OAuth token if any, and once more after a flow a 401/403 started. */
  private async fetchRaw(url: string, method: string, headers: Record<string, string>, body: string | undefined, ctl: AbortControllerLike<S> | undefined): Promise<ResponseLike> {
    const auth = this.oauth;
    if (auth === undefined) return this.fetchOnce(url, method, headers, body, ctl);
    // With the current token (and DPoP proof); a DPoP nonce demanded by the server gets one resend.
    const send = async (): Promise<{ res: ResponseLike; sent: string | undefined }> => {
      let extra = await auth.headersFor(method, url);
      let res = await this.fetchOnce(url, method, { ...headers, ...extra }, body, ctl);
      if (auth.nonceChallenge(res.status, res.headers.get("www-authenticate"), res.headers.get("dpop-nonce"))) {
        await discard(res);
        extra = await auth.headersFor(method, url);
        res = await this.fetchOnce(url, method, { ...headers, ...extra }, body, ctl);
      }
      return { res, sent: extra.Authorization };
    };
    const { res, sent } = await send();
    const www = res.headers.get("www-authenticate");
    const refused = res.status === 401 || (res.status === 403 && bearerChallenge(www)?.error === "insufficient_scope");
    if (!refused) {
      if (sent !== undefined && isOk(res.status)) auth.accepted();
      return res;
    }
    if (!this.active || !(await auth.refused(this.url, res.status, www, sent))) return res;
    await discard(res);
    return (await send()).res;
  }

  private fetchOnce(url: string, method: string, headers: Record<string, string>, body: string | undefined, ctl: AbortControllerLike<S> | undefined): Promise<ResponseLike> {
    const init: FetchInit<S> = { method, headers };
    if (body !== undefined) init.body = body;
    if (ctl !== undefined) init.signal = ctl.signal;
    try {
      return Promise.resolve(this.fetchFn(url, init));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private controller(): AbortControllerLike<S> | undefined {
    const ctl = this.makeController?.();
    if (ctl !== undefined) this.controllers.add(ctl);
    return ctl;
  }

  private release(ctl: AbortControllerLike<S> | undefined): void {
    if (ctl !== undefined) this.controllers.delete(ctl);
  }

  /** Runs an async task whose failures are reported, never thrown into the engine. */
  private run(task: () => Promise<void>): void {
    let promise: Promise<void>;
    try {
      promise = task();
    } catch (error) {
      promise = Promise.reject(error);
    }
    promise.catch((error: unknown) => this.report(new HttpTransportError(`internal failure: ${describe(error)}`)));
  }

  /** Runs now, or after the running initialize/re-initialization, in send order. */
  private schedule(task: () => void): void {
    if (this.blockers > 0) this.waiting.push(task);
    else task();
  }

  private block(): () => void {
    this.blockers++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--this.blockers > 0) return;
      for (let task = this.waiting.shift(); task !== undefined && this.blockers === 0; task = this.waiting.shift()) task();
    };
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      if (!this.active) {
        resolve();
        return;
      }
      const sleep: Sleep = { handle: undefined, resolve };
      sleep.handle = this.timers.setTimeout(() => {
        this.sleeps.delete(sleep);
        resolve();
      }, ms);
      this.sleeps.add(sleep);
    });
  }

  private report(error: HttpTransportError): void {
    try {
      this.onError?.(error);
    } catch {
      // The callback's failure is its own.
    }
  }

  /** Settles a request the HTTP layer failed (a synthesized error response), or reports a notification's failure. */
  private fail(requestId: RequestId | undefined, message: string, data: HttpErrorData, error?: JsonObject): void {
    if (!this.active) return;
    if (requestId === undefined) {
      this.report(new HttpTransportError(message, data.status));
      return;
    }
    if (this.abandoned.has(requestId)) return;
    this.receiver?.receiveMessage({ jsonrpc: "2.0", id: requestId, error: error ?? { code: HTTP_TRANSPORT_ERROR, message, data } });
  }

  private async failHttp(requestId: RequestId | undefined, res: ResponseLike): Promise<void> {
    const { status, text, error } = await readError(res);
    this.failFromBody(requestId, status, text, error);
  }

  /**
   * Issue 11.9: a 401/403 settles the request with an HttpAuthError (through a JSON-RPC error
   * object it is attached to, so the Client rejects with the typed error), or reports it.
   */
  private async failAuth(requestId: RequestId | undefined, res: ResponseLike, url: string): Promise<void> {
    this.settleAuth(requestId, await authErrorOf(res, url));
  }

  private settleAuth(requestId: RequestId | undefined, error: HttpAuthError): void {
    if (!this.active) return;
    if (requestId === undefined) {
      this.report(authReport(error));
      return;
    }
    if (this.abandoned.has(requestId)) return;
    const errorObject: JsonObject = { code: error.code, message: error.detail, data: error.data as JsonObject };
    attachPeerError(errorObject, error);
    this.receiver?.receiveMessage({ jsonrpc: "2.0", id: requestId, error: errorObject });
  }

  private failFromBody(requestId: RequestId | undefined, status: number, text: string, error: JsonObject | undefined): void {
    const message = error !== undefined ? `HTTP ${status}: ${String(error.message)}` : `HTTP ${status}${text !== "" ? `: ${clip(text, 200)}` : ""}`;
    this.fail(requestId, message, text === "" ? { status } : { status, body: clip(text) }, error);
  }
}

// ── connectHttp ───────────────────────────────────────────────────────────────

export interface ConnectHttpOptions<S = unknown> extends ClientOptions, HttpClientTransportOptions<S> {
  /** Timeout for initialize. Default: defaultTimeoutMs. */
  connectTimeoutMs?: number;
}

export interface HttpConnection<S = unknown> {
  readonly client: Client;
  readonly transport: HttpClientTransport<S>;
  readonly server: ConnectResult;
  /** Closes the transport (DELETE, then EOF: pending requests reject with ConnectionClosedError). */
  close(): Promise<void>;
}

/** A Client over Streamable HTTP (or HTTP+SSE after a fallback), initialized and operating. */
/** The server/discover probe's timeout when OAuth may run during it (default without OAuth: 5 s, client.ts). */
const AUTH_PROBE_TIMEOUT_MS = 120_000;

export async function connectHttp<S>(options: ConnectHttpOptions<S>): Promise<HttpConnection<S>> {
  const transport = new HttpClientTransport<S>(options);
  // With OAuth, the probe's answer may wait for an authorization (a user at a browser): the probe
  // timeout that tells a silent older server apart must not run out during it.
  const client = new Client(transport, options.auth !== undefined && options.probeTimeoutMs === undefined ? { ...options, probeTimeoutMs: AUTH_PROBE_TIMEOUT_MS } : options);
  // client.input follows the Client to a new engine when its modern probe falls back to initialize.
  transport.attach(client.input);
  let server: ConnectResult;
  try {
    server = await client.connect({ timeoutMs: options.connectTimeoutMs });
  } catch (error) {
    await transport.close();
    throw error;
  }
  return { client, transport, server, close: () => transport.close() };
}

// ── 2026-07-28 helpers ────────────────────────────────────────────────────────

// ── small functions ───────────────────────────────────────────────────────────

function defaultAbortControllerFactory<S>(): (() => AbortControllerLike<S>) | undefined {
  // The runtime's own controller: its signal is what the runtime's fetch accepts, whatever S was inferred as.
  const Ctor = (globalThis as unknown as { AbortController?: new () => AbortControllerLike<S> }).AbortController;
  return Ctor === undefined ? undefined : () => new Ctor();
}

function requestIdOf(message: unknown): RequestId | undefined {
  if (!isJsonObject(message) || typeof message.method !== "string") return undefined;
  return isRequestId(message.id) ? message.id : undefined;
}

function isResponseTo(message: JsonObject, id: RequestId): boolean {
  return message.method === undefined && message.id === id && ("result" in message || "error" in message);
}

function authReport(error: HttpAuthError): HttpTransportError {
  return new HttpTransportError(error.detail, error.status, error);
}

async function authErrorOf(res: ResponseLike, url: string): Promise<HttpAuthError> {
  const challenge = res.headers.get("www-authenticate");
  let text = "";
  try {
    text = await res.text();
  } catch {
    text = "";
  }
  return new HttpAuthError(res.status, url, challenge === null ? undefined : challenge, text === "" ? undefined : clip(text));
}

async function discard(res: ResponseLike): Promise<void> {
  if (res.body === null) return;
  try {
    await res.body.getReader().cancel();
  } catch {
    // Already consumed, locked or aborted: nothing to free.
  }
}

function cancelQuietly(reader: ReaderLike): void {
  try {
    reader.cancel().catch(() => undefined);
  } catch {
    // A reader that cannot cancel is already finished.
  }
}

/** An error response's body, and the JSON-RPC error object in it when there is one (HTTP-02). */
async function readError(res: ResponseLike): Promise<{ status: number; text: string; error: JsonObject | undefined }> {
  let text = "";
  try {
    text = await res.text();
  } catch {
    text = "";
  }
  let error: JsonObject | undefined;
  try {
    const value: unknown = text === "" ? undefined : JSON.parse(text);
    if (isJsonObject(value) && isJsonObject(value.error) && typeof value.error.code === "number" && Number.isInteger(value.error.code) && typeof value.error.message === "string") {
      error = value.error;
    }
  } catch {
    error = undefined;
  }
  return { status: res.status, text, error };
}

function clip(text: string, max = 2048): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === "string" ? error : String(error);
}

export { SseParser, encodeHeaderValue, isModernErrorResponse, resolveReference };
export type { SseEvent, SseParserOptions } from "./sse.js";
export { HttpAuthError, HttpTransportError };
