// The connection state every era of the HTTP client transport shares, and the machinery they
// all use: fetching (with OAuth, following redirects by hand), abort controllers, the ordered
// send queue, sleeps between retries, settling a request with a synthesized error, and reading
// bodies (JSON or SSE, through body.ts) into messages for the Client. The eras (session.ts,
// modern.ts, legacy-sse.ts) hold their own state and call in here; transport.ts wires them.
//
// Invariants:
// - everything in flight is tracked (controllers, readers, sleeps, the OAuth flow) so
//   teardown() stops it all;
// - every request leaves through fetchRaw with `redirect: "manual"`: a redirect is followed
//   only within the request's origin, at most MAX_REDIRECTS times, each hop with its own
//   Authorization and DPoP proof; any other fails the request with HttpRedirectError (HTTP-14);
// - every fetch has a deadline (T-05): a request's POST and resumption GETs are aborted when
//   the engine cancels it (its timeout, T-02), a POST carrying no request at postTimeoutMs,
//   the OAuth flow's at its own (AUTH-16), DELETE at deleteTimeoutMs; only the standalone GET
//   stream, open by design, waits until close();
// - a JSON-RPC answer is read to maxResponseBytes at most, an error body to ERROR_BODY_BYTES
//   (LIM-13), an SSE stream event by event within maxEventLength (LIM-12);
// - nothing is delivered or synthesized once the connection is no longer open (`active`), and
//   nothing for a request the engine cancelled (`abandoned`);
// - a request settles through fail()/settleAuth() at most with one synthesized error: callers
//   return right after calling them;
// - this file reads no clock: time and timers come from the injected HttpTimers.

import { isJsonObject, type JsonObject, type RequestId } from "../wire/envelope.js";
import { isOk, mediaType } from "../http/client-rules.js";
import { bearerChallenge } from "../auth/challenge.js";
import { HttpAuthError, HttpTransportError, attachPeerError } from "../peer/shared/errors.js";
import type { OAuthClient } from "./oauth.js";
import type { SseEvent } from "../http/sse-parser.js";
import { HttpSseParser } from "./sse.js";
import { DEFAULT_MAX_RESPONSE_BYTES, authErrorOf, cancelQuietly, clip, describe, discard, pumpBody, readBody, readError } from "./body.js";
import { HttpRedirectError, MAX_REDIRECTS, redirectStep, type Hop } from "./redirects.js";
import {
  HTTP_TRANSPORT_ERROR,
  authReport,
  defaultAbortControllerFactory,
  isResponseTo,
  type AbortControllerLike,
  type FetchInit,
  type FetchLike,
  type HttpClientTransportOptions,
  type HttpErrorData,
  type MessageReceiver,
  type ReadableStreamLike,
  type ReaderLike,
  type ResponseLike,
} from "./types.js";
import type { HttpTimers } from "../peer/shared/timers.js";
import { isProtocolVersion, VERSION_PROFILES } from "../rules/versions.js";

/** Where an SSE stream stands: what a reconnection resumes from and how long it waits. */
export interface Cursor {
  lastEventId: string | undefined;
  retry: number | undefined;
}

/** The standalone GET stream of one session generation. */
export interface StandaloneStream<S> {
  readonly gen: number;
  readonly cursor: Cursor;
  ctl: AbortControllerLike<S> | undefined;
  reader: ReaderLike | undefined;
}

/** Learns the reader of a stream so a cancellation can close it. */
export interface ReaderHolder {
  reader: ReaderLike | undefined;
}

interface Sleep {
  handle: unknown;
  readonly resolve: () => void;
}

/** Consumes a message before it is delivered (true: the transport keeps it). */
export type Intercept = (message: JsonObject) => boolean;

/** Reads a 2xx SSE body; returns why the expected answer is missing, or undefined. */
export type StreamReader = (body: ReadableStreamLike) => Promise<string | undefined>;

/** Why a request got no answer; `error` is the typed error its rejection carries, when there is one. */
export type Failure = { message: string; data: HttpErrorData; error?: HttpTransportError } | undefined;

export const ACCEPT_BOTH = "application/json, text/event-stream";

/** T-05: a POST carrying no request (a notification, a response) waits this long for its answer by default. */
export const DEFAULT_POST_TIMEOUT_MS = 30_000;
export const ACCEPT_SSE = "text/event-stream";

export class HttpCore<S> {
  readonly url: string;
  readonly timers: HttpTimers;
  readonly extraHeaders: Record<string, string>;
  readonly maxAttempts: number;
  readonly defaultRetryMs: number;
  /** T-05: how long a POST that carries no request waits for its answer. */
  readonly postTimeoutMs: number;
  private readonly fetchFn: FetchLike<S>;
  private readonly makeController: (() => AbortControllerLike<S> | undefined) | undefined;
  private readonly maxEventLength: number;
  private readonly maxResponseBytes: number;
  private readonly onError: ((error: HttpTransportError) => void) | undefined;
  private readonly oauth: OAuthClient<S> | undefined;

  receiver: MessageReceiver | undefined;
  state: "open" | "closing" | "closed" = "open";
  mode: "streamable" | "legacy" = "streamable";
  session: string | undefined;
  version: string | undefined;
  initMessage: JsonObject | undefined;
  initId: RequestId | undefined;
  /** Bumped when a re-initialization starts; a 404 on a POST of an older generation just retries. */
  generation = 0;
  standalone: StandaloneStream<S> | undefined;
  /** Requests whose POST is still being handled; those the engine cancelled are abandoned (no error, no resumption). */
  readonly inflight = new Set<RequestId>();
  readonly abandoned = new Set<RequestId>();
  /** Sees each delivered message object first and may replace it (the 2026-07-28 era learns tool headers there). */
  inspect: (message: JsonObject) => JsonObject = (message) => message;

  private blockers = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly controllers = new Set<AbortControllerLike<S>>();
  /** T-05: the abort timers of controllers made with a deadline. */
  private readonly deadlines = new Map<AbortControllerLike<S>, unknown>();
  /** T-05: the controller of each request's current POST or resumption GET. */
  private readonly requestControllers = new Map<RequestId, AbortControllerLike<S>>();
  private readonly readers = new Set<ReaderLike>();
  private readonly sleeps = new Set<Sleep>();
  private timer: unknown;
  private timerArmed = false;

  constructor(options: HttpClientTransportOptions<S>) {
    this.url = options.url;
    this.fetchFn = options.fetch;
    this.timers = options.timers;
    this.makeController = options.createAbortController ?? defaultAbortControllerFactory<S>();
    this.extraHeaders = { ...options.headers };
    this.maxAttempts = options.maxReconnectAttempts ?? 5;
    this.defaultRetryMs = options.defaultRetryMs ?? 1000;
    this.postTimeoutMs = options.postTimeoutMs ?? DEFAULT_POST_TIMEOUT_MS;
    this.maxEventLength = options.maxEventLength ?? 8 * 1024 * 1024;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.onError = options.onError;
    this.oauth = options.auth?.open<S>({
      fetch: (url, init) => this.fetchFn(url, init),
      timers: options.timers,
      ...(this.makeController !== undefined ? { createAbortController: this.makeController } : {}),
    });
  }

  get active(): boolean {
    return this.state === "open";
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

  /** Stops everything in flight: fetches, streams, waits, queued sends. */
  teardown(): void {
    this.standalone = undefined;
    this.oauth?.abort();
    for (const ctl of this.controllers) ctl.abort("closed");
    this.controllers.clear();
    for (const handle of this.deadlines.values()) this.timers.clearTimeout(handle);
    this.deadlines.clear();
    this.requestControllers.clear();
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
  fatal(detail: string): void {
    if (this.state !== "open") return;
    this.state = "closed";
    this.report(new HttpTransportError(detail));
    this.teardown();
    this.armTimer(undefined);
    this.receiver?.receiveEof();
  }

  // ── reading answers ────────────────────────────────────────────

  /**
   * Reads a 2xx answer: JSON (one message or an array) or SSE, read by the era's `readStream`
   * (the session era resumes it with GET and Last-Event-ID when it ends early; a 2026-07-28
   * stream is read once). Returns why the answer to `expect` is missing, or undefined when it
   * came (or none was expected, or the engine abandoned the request).
   */
  async consume(
    res: ResponseLike,
    expect: RequestId | undefined,
    intercept: Intercept | undefined,
    readStream: StreamReader,
  ): Promise<Failure> {
    const type = mediaType(res.headers.get("content-type"));
    if (type === "text/event-stream" && res.body !== null) {
      const failure = await readStream(res.body);
      return failure === undefined ? undefined : { message: failure, data: { status: res.status, cause: failure } };
    }
    if (type === "application/json") {
      // LIM-13: read to maxResponseBytes at most; past it the stream is cancelled and the request fails with the cap.
      const read = await readBody(
        res.body,
        { what: "a JSON-RPC answer", maxBytes: this.maxResponseBytes, status: res.status },
        this.readers,
      );
      if (!this.active) return undefined;
      if (!read.ok) {
        if (read.limit !== undefined)
          return { message: read.limit.message, data: { status: res.status, cause: read.limit.message }, error: read.limit };
        return { message: `reading the response failed: ${read.cause}`, data: { status: res.status, cause: read.cause } };
      }
      const text = read.text;
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
    return {
      message: `HTTP ${res.status}${type !== "" ? ` (${type})` : ""}: the response carries no answer to the request`,
      data: { status: res.status },
    };
  }

  /** A message event's data, parsed and delivered. True when it held the answer to `expect`. */
  handleEvent(event: SseEvent, expect: RequestId | undefined, intercept: Intercept | undefined): boolean {
    if (event.type !== "message" || event.data === "") return false;
    let value: unknown;
    try {
      value = JSON.parse(event.data);
    } catch {
      this.report(new HttpTransportError(`an SSE message event is not JSON: ${clip(event.data, 200)}`));
      return false;
    }
    // M-09: past 2025-03-26 an event holding an array is no batch to take apart but one message the engine refuses.
    if (
      Array.isArray(value) &&
      this.version !== undefined &&
      !(isProtocolVersion(this.version) && VERSION_PROFILES[this.version].batching)
    ) {
      if (this.active) this.receiver?.receiveMessage(value);
      return false;
    }
    return this.deliver(value, expect, intercept);
  }

  /** Delivers one message or each of an array to the client. True when one answered `expect`. */
  deliver(value: unknown, expect: RequestId | undefined, intercept: Intercept | undefined): boolean {
    let answered = false;
    for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) {
      if (!this.active) return answered;
      const message = isJsonObject(item) ? this.inspect(item) : item;
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

  /**
   * Reads an SSE body to its end, handing each event to onEvent (true: stop after this
   * chunk's events). The cursor carries the last event id and retry across reconnections.
   */
  async readSse(
    body: ReadableStreamLike,
    cursor: Cursor,
    onEvent: (event: SseEvent) => boolean,
    holder: ReaderHolder | undefined,
  ): Promise<"end" | "stopped" | "error"> {
    const parser = new HttpSseParser({ lastEventId: cursor.lastEventId, retry: cursor.retry, maxLength: this.maxEventLength });
    const events: SseEvent[] = [];
    let broken = false;
    // The holder learns the reader too, so a cancellation of its request can close the stream.
    const tracker = {
      add: (reader: ReaderLike): void => {
        this.readers.add(reader);
        if (holder !== undefined) holder.reader = reader;
      },
      delete: (reader: ReaderLike): void => {
        this.readers.delete(reader);
        if (holder !== undefined && holder.reader === reader) holder.reader = undefined;
      },
    };
    const pumped = await pumpBody(
      body,
      (bytes) => {
        if (!this.active) return true;
        events.length = 0;
        try {
          // LIM-12: a line or event past maxEventLength throws here and breaks the stream.
          parser.push(bytes, events);
        } catch (error) {
          this.report(new HttpTransportError(describe(error)));
          broken = true;
        }
        let stop = false;
        for (const event of events) {
          if (!this.active) return true;
          if (onEvent(event)) stop = true;
        }
        cursor.lastEventId = parser.lastEventId === "" ? undefined : parser.lastEventId;
        cursor.retry = parser.retry;
        return broken || stop;
      },
      tracker,
    );
    if (!this.active) return "stopped";
    if (pumped.end === "stopped") return broken ? "error" : "stopped";
    return pumped.end;
  }

  // ── helpers ──────────────────────────────────────────────

  headers(accept: string, afterInit: boolean, json = false): Record<string, string> {
    const headers: Record<string, string> = { ...this.extraHeaders };
    if (json) headers["Content-Type"] = "application/json";
    headers.Accept = accept;
    if (this.session !== undefined) headers["Mcp-Session-Id"] = this.session;
    if (afterInit && this.version !== undefined) headers["MCP-Protocol-Version"] = this.version;
    return headers;
  }

  /**
   * Every request goes out here: with the OAuth token if any, following the redirects HTTP-14
   * allows, and once more after a flow a 401/403 started. Rejects with HttpRedirectError for a
   * redirect it refuses, or with the fetch's own failure.
   */
  async fetchRaw(
    url: string,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    ctl: AbortControllerLike<S> | undefined,
  ): Promise<ResponseLike> {
    const auth = this.oauth;
    const first: Hop = { url, method, body };
    const { res, sent } = await this.follow(first, headers, ctl);
    if (auth === undefined) return res;
    const www = res.headers.get("www-authenticate");
    const refused = res.status === 401 || (res.status === 403 && bearerChallenge(www)?.error === "insufficient_scope");
    if (!refused) {
      if (sent !== undefined && isOk(res.status)) auth.accepted();
      return res;
    }
    if (!this.active || !(await auth.refused(this.url, res.status, www, sent))) return res;
    await discard(res);
    return (await this.follow(first, headers, ctl)).res;
  }

  /**
   * One request and the redirects HTTP-14 lets it follow (same origin, at most MAX_REDIRECTS),
   * each hop with the current token and a DPoP proof for its own URL; a DPoP nonce demand gets
   * one resend. `sent` is the Authorization the final hop carried.
   */
  private async follow(
    first: Hop,
    headers: Record<string, string>,
    ctl: AbortControllerLike<S> | undefined,
  ): Promise<{ res: ResponseLike; sent: string | undefined }> {
    const auth = this.oauth;
    let hop = first;
    for (let followed = 0; ; followed++) {
      const base = hop.body === undefined && first.body !== undefined ? withoutContentType(headers) : headers;
      let extra = auth === undefined ? {} : await auth.headersFor(hop.method, hop.url);
      let res = await this.fetchOnce(hop.url, hop.method, { ...base, ...extra }, hop.body, ctl);
      if (auth?.nonceChallenge(res.status, res.headers.get("www-authenticate"), res.headers.get("dpop-nonce")) === true) {
        await discard(res);
        extra = await auth.headersFor(hop.method, hop.url);
        res = await this.fetchOnce(hop.url, hop.method, { ...base, ...extra }, hop.body, ctl);
      }
      const step = redirectStep(hop, res, followed, MAX_REDIRECTS);
      if (step.kind === "final") return { res, sent: extra.Authorization };
      await discard(res);
      // HTTP-14: another origin, a hidden target or too many hops: the request fails, nothing more is sent.
      if (step.kind === "refuse") throw new HttpRedirectError("HTTP-14", step.expected, step.got, res.status);
      hop = step.hop;
    }
  }

  private fetchOnce(
    url: string,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    ctl: AbortControllerLike<S> | undefined,
  ): Promise<ResponseLike> {
    const init: FetchInit<S> = { method, headers, redirect: "manual" };
    if (body !== undefined) init.body = body;
    if (ctl !== undefined) init.signal = ctl.signal;
    try {
      return Promise.resolve(this.fetchFn(url, init));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * A controller teardown() aborts. With `deadlineMs` (T-05: a POST nothing else bounds, one
   * carrying no request or the transport's own re-initialization) it also aborts then, unless
   * released first.
   */
  controller(deadlineMs?: number): AbortControllerLike<S> | undefined {
    const ctl = this.makeController?.();
    if (ctl === undefined) return undefined;
    this.controllers.add(ctl);
    if (deadlineMs !== undefined)
      this.deadlines.set(
        ctl,
        this.timers.setTimeout(() => {
          this.deadlines.delete(ctl);
          ctl.abort(
            new HttpTransportError(`[T-05] expected an answer within ${deadlineMs} ms (postTimeoutMs); got none: the request was aborted`),
          );
        }, deadlineMs),
      );
    return ctl;
  }

  /** The POST (or resumption GET) of request `id` runs under `ctl`: cancelling the request aborts it (T-05). */
  bind(id: RequestId | undefined, ctl: AbortControllerLike<S> | undefined): void {
    if (id !== undefined && ctl !== undefined) this.requestControllers.set(id, ctl);
  }

  /** T-05: the engine cancelled request `id` (its timeout, or its caller's signal): no answer is wanted, its fetch is aborted. */
  abandon(id: RequestId): void {
    if (!this.inflight.has(id)) return;
    this.abandoned.add(id);
    this.requestControllers.get(id)?.abort("cancelled");
  }

  /** A controller teardown() does not abort: the DELETE of close() runs after the teardown. */
  untrackedController(): AbortControllerLike<S> | undefined {
    return this.makeController?.();
  }

  release(ctl: AbortControllerLike<S> | undefined, id?: RequestId): void {
    if (ctl === undefined) return;
    this.controllers.delete(ctl);
    const deadline = this.deadlines.get(ctl);
    if (deadline !== undefined) this.timers.clearTimeout(deadline);
    this.deadlines.delete(ctl);
    if (id !== undefined && this.requestControllers.get(id) === ctl) this.requestControllers.delete(id);
  }

  /** Runs an async task whose failures are reported, never thrown into the engine. */
  run(task: () => Promise<void>): void {
    let promise: Promise<void>;
    try {
      promise = task();
    } catch (error) {
      promise = Promise.reject(error);
    }
    promise.catch((error: unknown) => this.report(new HttpTransportError(`internal failure: ${describe(error)}`)));
  }

  /** Runs now, or after the running initialize/re-initialization, in send order. */
  schedule(task: () => void): void {
    if (this.blockers > 0) this.waiting.push(task);
    else task();
  }

  block(): () => void {
    this.blockers++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--this.blockers > 0) return;
      for (let task = this.waiting.shift(); task !== undefined && this.blockers === 0; task = this.waiting.shift()) task();
    };
  }

  sleep(ms: number): Promise<void> {
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

  report(error: HttpTransportError): void {
    try {
      this.onError?.(error);
    } catch {
      // The callback's failure is its own.
    }
  }

  /**
   * Settles a request the HTTP layer failed (a synthesized error response), or reports a
   * notification's failure; `typed` is the error the rejection carries (default: an
   * HttpTransportError made of message and data).
   */
  fail(requestId: RequestId | undefined, message: string, data: HttpErrorData, error?: JsonObject, typed?: HttpTransportError): void {
    if (!this.active) return;
    if (requestId === undefined) {
      this.report(typed ?? new HttpTransportError(message, data.status));
      return;
    }
    if (this.abandoned.has(requestId)) return;
    if (error !== undefined) {
      // The server's own JSON-RPC error body (on a non-2xx answer): the peer answered, an McpError.
      this.receiver?.receiveMessage({ jsonrpc: "2.0", id: requestId, error });
      return;
    }
    // No answer from the peer: the synthesized error object stands for an HttpTransportError (the Client rejects with it, never with an McpError).
    const errorObject: JsonObject = { code: HTTP_TRANSPORT_ERROR, message, data: data as unknown as JsonObject };
    attachPeerError(errorObject, typed ?? new HttpTransportError(message, data.status, undefined, data));
    this.receiver?.receiveMessage({ jsonrpc: "2.0", id: requestId, error: errorObject });
  }

  /** A request that got no answer (`failure`), settled with its typed error when it has one. */
  settle(requestId: RequestId | undefined, failure: NonNullable<Failure>): void {
    this.fail(requestId, failure.message, failure.data, undefined, failure.error);
  }

  /** A request whose fetch failed (the network, an abort, a redirect HTTP-14 refuses). */
  failFetch(requestId: RequestId | undefined, what: string, error: unknown): void {
    const cause = describe(error);
    this.fail(requestId, `${what} failed: ${cause}`, { cause }, undefined, error instanceof HttpTransportError ? error : undefined);
  }

  async failHttp(requestId: RequestId | undefined, res: ResponseLike): Promise<void> {
    const { status, text, error } = await readError(res, this.readers);
    this.failFromBody(requestId, status, text, error);
  }

  /**
   * Issue 11.9: a 401/403 settles the request with an HttpAuthError (through a JSON-RPC error
   * object it is attached to, so the Client rejects with the typed error), or reports it.
   */
  async failAuth(requestId: RequestId | undefined, res: ResponseLike, url: string): Promise<void> {
    this.settleAuth(requestId, await authErrorOf(res, url, this.readers));
  }

  settleAuth(requestId: RequestId | undefined, error: HttpAuthError): void {
    if (!this.active) return;
    if (requestId === undefined) {
      this.report(authReport(error));
      return;
    }
    if (this.abandoned.has(requestId)) return;
    const errorObject: JsonObject = { code: HTTP_TRANSPORT_ERROR, message: error.detail, data: error.data as JsonObject };
    attachPeerError(errorObject, error);
    this.receiver?.receiveMessage({ jsonrpc: "2.0", id: requestId, error: errorObject });
  }

  failFromBody(requestId: RequestId | undefined, status: number, text: string, error: JsonObject | undefined): void {
    const message =
      error !== undefined ? `HTTP ${status}: ${String(error.message)}` : `HTTP ${status}${text !== "" ? `: ${clip(text, 200)}` : ""}`;
    this.fail(requestId, message, text === "" ? { status } : { status, body: clip(text) }, error);
  }
}

/** The headers of a hop that lost its body (a 303, or a 301/302 after a POST): no Content-Type. */
function withoutContentType(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() !== "content-type") out[name] = value;
  return out;
}
