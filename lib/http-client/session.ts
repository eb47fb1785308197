// The session era of Streamable HTTP (HTTP-01, HTTP-03, HTTP-05, HTTP-06, HTTP-07, HTTP-10; 2025-03-26 up to 2025-11-25): the
// initialize POST that decides the transport, POSTs carrying Mcp-Session-Id and
// MCP-Protocol-Version, response streams resumed with GET and Last-Event-ID, the standalone
// GET stream, re-initialization after a 404, and the DELETE that ends the session.
//
// Invariants:
// - the engine never sees transport-private traffic: re-initialization after a 404 uses ids
//   like "mcp-engine-reinit-1" and its answer is consumed here, never delivered;
// - while the initialize POST's status is unknown or a re-initialization runs, later sends wait
//   in the core's queue (block/schedule), then go in order;
// - concurrent 404s share one re-initialization; a request is posted again at most once after it;
// - every retry loop is bounded (maxReconnectAttempts consecutive attempts without progress)
//   and waits exactly the server's last SSE `retry` (default defaultRetryMs) between tries;
// - a 401/403 is an authorization challenge, never a fallback; only an older offer's
//   initialize (HTTP-04: any 4xx) tries HTTP+SSE (legacy-sse.ts) first.

import { isJsonObject, type JsonObject, type RequestId } from "../wire/envelope.js";
import { isAuthChallenge, isOk, mediaType } from "../http/client-rules.js";
import { HttpTransportError } from "../peer/shared/errors.js";
import { ACCEPT_BOTH, ACCEPT_SSE, type Cursor, type Failure, type HttpCore, type Intercept, type StandaloneStream } from "./connection.js";
import type { LegacyEra } from "./legacy-sse.js";
import { authErrorOf, cancelQuietly, clip, describe, discard, readError } from "./body.js";
import { authReport, isResponseTo, type ReadableStreamLike, type ResponseLike } from "./types.js";
import type { SseEvent } from "../http/sse-parser.js";

/** HTTP-05: a session id holds only visible ASCII; another is ignored, not echoed. */
const SESSION_ID = /^[\x21-\x7e]+$/;

export class SessionEra<S> {
  private recovering: Promise<boolean> | undefined;
  private reinitCount = 0;
  private reinitializing = false;
  private getUnsupported = false;

  constructor(
    private readonly core: HttpCore<S>,
    private readonly legacy: LegacyEra<S>,
    private readonly standaloneEnabled: boolean,
    private readonly deleteTimeoutMs: number,
  ) {}

  // ── POST ───────────────────────────────────────────────

  async postInitialize(message: JsonObject, requestId: RequestId, unblock: () => void): Promise<void> {
    const ctl = this.core.controller();
    try {
      let res: ResponseLike;
      try {
        res = await this.core.fetchRaw(this.core.url, "POST", this.core.headers(ACCEPT_BOTH, false, true), JSON.stringify(message), ctl);
      } catch (error) {
        unblock();
        this.core.failFetch(requestId, "initialize: POST", error);
        return;
      }
      if (!this.core.active) return void discard(res);
      if (!this.legacy.tried && this.legacy.eligible(res.status)) {
        this.legacy.tried = true;
        // HTTP-04: an older offer tries HTTP+SSE on any 4xx; a 401/403 that stays one is reported as the challenge it is.
        const original = isAuthChallenge(res.status)
          ? { status: res.status, text: "", error: undefined, auth: await authErrorOf(res, this.core.url) }
          : await readError(res);
        await this.legacy.fallback(message, requestId, original);
        unblock();
        return;
      }
      if (isAuthChallenge(res.status)) {
        // Issue 11.9: a challenge is this server's answer: a typed error, never a fallback.
        unblock();
        await this.core.failAuth(requestId, res, this.core.url);
        return;
      }
      if (!isOk(res.status)) {
        unblock();
        await this.core.failHttp(requestId, res);
        return;
      }
      this.captureSession(res);
      unblock();
      const failure = await this.consume(res, requestId, undefined);
      if (failure !== undefined) this.core.settle(requestId, failure);
    } finally {
      unblock();
      this.core.release(ctl);
      this.core.inflight.delete(requestId);
      this.core.abandoned.delete(requestId);
    }
  }

  async post(message: unknown, requestId: RequestId | undefined, retried: boolean): Promise<void> {
    let again = false;
    try {
      again = await this.postOnce(message, requestId, retried);
    } finally {
      if (!again && requestId !== undefined) {
        this.core.inflight.delete(requestId);
        this.core.abandoned.delete(requestId);
      }
    }
    if (again) await this.post(message, requestId, true);
  }

  /** One POST of a message. True: the session was re-initialized after a 404, post it again. */
  private async postOnce(message: unknown, requestId: RequestId | undefined, retried: boolean): Promise<boolean> {
    if (!this.core.active) return false;
    if (this.core.mode === "legacy") {
      await this.legacy.post(message, requestId);
      return false;
    }
    const gen = this.core.generation;
    const withSession = this.core.session !== undefined;
    // T-05: a request's POST ends when the engine cancels it; one carrying no request at postTimeoutMs.
    const ctl = this.core.controller(requestId === undefined ? this.core.postTimeoutMs : undefined);
    this.core.bind(requestId, ctl);
    try {
      let res: ResponseLike;
      try {
        res = await this.core.fetchRaw(this.core.url, "POST", this.core.headers(ACCEPT_BOTH, true, true), JSON.stringify(message), ctl);
      } catch (error) {
        this.core.failFetch(requestId, "POST", error);
        return false;
      }
      if (!this.core.active) {
        await discard(res);
        return false;
      }
      if (isAuthChallenge(res.status)) {
        await this.core.failAuth(requestId, res, this.core.url);
        return false;
      }
      if (res.status === 404 && withSession) {
        await discard(res);
        if (!retried) return await this.recover(gen);
        this.core.fail(requestId, "HTTP 404: the session was not found, again after re-initialization", { status: 404 });
        return false;
      }
      if (!isOk(res.status)) {
        await this.core.failHttp(requestId, res);
        return false;
      }
      const failure = await this.consume(res, requestId, undefined);
      if (failure !== undefined) this.core.settle(requestId, failure);
      if (isJsonObject(message) && message.method === "notifications/initialized") this.openStandalone();
      return false;
    } finally {
      this.core.release(ctl, requestId);
    }
  }

  /** Reads a 2xx answer (core.consume), resuming an SSE stream that ends before the answer. */
  private consume(res: ResponseLike, expect: RequestId | undefined, intercept: Intercept | undefined): Promise<Failure> {
    return this.core.consume(res, expect, intercept, (body) => this.readResponseStream(body, expect, intercept));
  }

  /** A POST's SSE stream, resumed while it ends before the answer. Returns a failure reason or undefined. */
  private async readResponseStream(
    body: ReadableStreamLike,
    expect: RequestId | undefined,
    intercept: Intercept | undefined,
  ): Promise<string | undefined> {
    const cursor: Cursor = { lastEventId: undefined, retry: undefined };
    let answered = false;
    const onEvent = (event: SseEvent): boolean => {
      if (this.core.handleEvent(event, expect, intercept)) answered = true;
      return answered;
    };
    const outcome = await this.core.readSse(body, cursor, onEvent, undefined);
    if (expect === undefined) return undefined;
    let failures = 0;
    for (;;) {
      if (answered || !this.core.active || this.core.abandoned.has(expect)) return undefined;
      if (outcome === "error" && cursor.lastEventId === undefined) return "the response stream failed before the answer";
      if (cursor.lastEventId === undefined) return "the response stream ended before the answer and carried no event id to resume from";
      if (++failures > this.core.maxAttempts) return `the response stream could not be resumed (${this.core.maxAttempts} attempts)`;
      await this.core.sleep(cursor.retry ?? this.core.defaultRetryMs);
      if (!this.core.active || this.core.abandoned.has(expect)) return undefined;
      const before = cursor.lastEventId;
      const gen = this.core.generation;
      const withSession = this.core.session !== undefined;
      const ctl = this.core.controller();
      this.core.bind(expect, ctl);
      try {
        const headers = this.core.headers(ACCEPT_SSE, true);
        headers["Last-Event-ID"] = before;
        let res: ResponseLike;
        try {
          res = await this.core.fetchRaw(this.core.url, "GET", headers, undefined, ctl);
        } catch {
          continue;
        }
        if (!this.core.active) return void discard(res);
        if (isAuthChallenge(res.status)) {
          await this.core.failAuth(expect, res, this.core.url);
          return undefined;
        }
        if (res.status === 404 && withSession) {
          await discard(res);
          // The re-initialization's own stream lost its session: that re-initialization fails.
          if (!this.reinitializing) await this.recover(gen);
          return "the session expired before the answer arrived";
        }
        if (res.status === 200 && mediaType(res.headers.get("content-type")) === "text/event-stream" && res.body !== null) {
          await this.core.readSse(res.body, cursor, onEvent, undefined);
          if (cursor.lastEventId !== before) failures = 0;
          continue;
        }
        await discard(res);
        if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429)
          return `resuming the response stream failed: HTTP ${res.status}`;
      } finally {
        this.core.release(ctl, expect);
      }
    }
  }

  // ── sessions: capture and recovery after 404 ────────────────────────────────

  private captureSession(res: ResponseLike): void {
    const id = res.headers.get("mcp-session-id");
    if (id === null) return;
    if (SESSION_ID.test(id)) this.core.session = id;
    else
      this.core.report(new HttpTransportError(`ignored a session id with characters outside 0x21-0x7E: ${JSON.stringify(clip(id, 100))}`));
  }

  /**
   * The session behind generation `gen` is gone (404). Concurrent callers share one
   * re-initialization; callers from an older generation see the one that already ran.
   * Resolves true when the transport has a working session again.
   */
  recover(gen: number): Promise<boolean> {
    if (gen !== this.core.generation) return this.recovering ?? Promise.resolve(this.core.active);
    this.core.generation++;
    const unblock = this.core.block();
    this.reinitializing = true;
    this.recovering = this.reinitialize()
      .then(
        (ok) => ok,
        () => false,
      )
      .then((ok) => {
        this.reinitializing = false;
        this.recovering = undefined;
        if (!ok) this.core.fatal("the session expired (HTTP 404) and re-initialization failed");
        unblock();
        return ok && this.core.active;
      });
    return this.recovering;
  }

  /** A new session: replay initialize (private id), check the version, POST notifications/initialized. */
  private async reinitialize(): Promise<boolean> {
    this.stopStandalone();
    const init = this.core.initMessage;
    if (init === undefined || !this.core.active) return false;
    this.core.session = undefined;
    const id = `mcp-engine-reinit-${++this.reinitCount}`;
    let answer: JsonObject | undefined;
    const intercept: Intercept = (message) => {
      if (!isResponseTo(message, id)) return false;
      answer = message;
      return true;
    };
    // T-05: the transport's own request: nothing but its deadline bounds it.
    const ctl = this.core.controller(this.core.postTimeoutMs);
    try {
      const res = await this.core.fetchRaw(
        this.core.url,
        "POST",
        this.core.headers(ACCEPT_BOTH, false, true),
        JSON.stringify({ ...init, id }),
        ctl,
      );
      if (!this.core.active) return false;
      if (isAuthChallenge(res.status)) {
        this.core.report(authReport(await authErrorOf(res, this.core.url)));
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
      this.core.release(ctl);
    }
    const result = answer?.result;
    if (!this.core.active || !isJsonObject(result) || result.protocolVersion !== this.core.version) return false;
    const ctl2 = this.core.controller(this.core.postTimeoutMs);
    try {
      const res = await this.core.fetchRaw(
        this.core.url,
        "POST",
        this.core.headers(ACCEPT_BOTH, true, true),
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
        ctl2,
      );
      await discard(res);
      if (!isOk(res.status) || !this.core.active) return false;
    } catch {
      return false;
    } finally {
      this.core.release(ctl2);
    }
    this.openStandalone();
    return true;
  }

  // ── the standalone GET stream ────────────────────────────────────────

  openStandalone(): void {
    if (!this.standaloneEnabled || this.getUnsupported || this.core.mode !== "streamable" || !this.core.active) return;
    if (this.core.standalone !== undefined && this.core.standalone.gen === this.core.generation) return;
    const stream: StandaloneStream<S> = {
      gen: this.core.generation,
      cursor: { lastEventId: undefined, retry: undefined },
      ctl: undefined,
      reader: undefined,
    };
    this.core.standalone = stream;
    this.core.run(() => this.runStandalone(stream));
  }

  private stopStandalone(): void {
    const stream = this.core.standalone;
    this.core.standalone = undefined;
    if (stream === undefined) return;
    stream.ctl?.abort("stopped");
    if (stream.reader !== undefined) cancelQuietly(stream.reader);
  }

  private async runStandalone(stream: StandaloneStream<S>): Promise<void> {
    let failures = 0;
    while (this.core.standalone === stream && this.core.active) {
      const ctl = this.core.controller();
      stream.ctl = ctl;
      try {
        const headers = this.core.headers(ACCEPT_SSE, true);
        if (stream.cursor.lastEventId !== undefined) headers["Last-Event-ID"] = stream.cursor.lastEventId;
        let res: ResponseLike | undefined;
        try {
          res = await this.core.fetchRaw(this.core.url, "GET", headers, undefined, ctl);
        } catch {
          res = undefined;
        }
        if (this.core.standalone !== stream || !this.core.active) {
          if (res !== undefined) await discard(res);
          return;
        }
        if (res === undefined) failures++;
        else if (isAuthChallenge(res.status)) {
          await this.core.failAuth(undefined, res, this.core.url);
          this.core.standalone = undefined;
          return;
        } else if (res.status === 405) {
          await discard(res);
          this.getUnsupported = true;
          this.core.standalone = undefined;
          return;
        } else if (res.status === 404 && this.core.session !== undefined) {
          await discard(res);
          this.core.standalone = undefined;
          await this.recover(stream.gen);
          return;
        } else if (res.status === 200 && mediaType(res.headers.get("content-type")) === "text/event-stream" && res.body !== null) {
          failures = 0;
          await this.core.readSse(res.body, stream.cursor, (event) => this.core.handleEvent(event, undefined, undefined) && false, stream);
        } else {
          await discard(res);
          if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) {
            this.core.report(new HttpTransportError(`the GET stream was refused: HTTP ${res.status}`, res.status));
            this.core.standalone = undefined;
            return;
          }
          failures++;
        }
      } finally {
        this.core.release(ctl);
        stream.ctl = undefined;
      }
      if (this.core.standalone !== stream || !this.core.active) return;
      if (failures > this.core.maxAttempts) {
        this.core.report(new HttpTransportError(`the GET stream could not be reopened (${this.core.maxAttempts} attempts)`));
        this.core.standalone = undefined;
        return;
      }
      await this.core.sleep(stream.cursor.retry ?? this.core.defaultRetryMs);
    }
  }

  // ── DELETE ───────────────────────────────────────────────

  /** Ends the session (405: the server keeps sessions itself; 404: already gone), bounded by deleteTimeoutMs. */
  async deleteSession(session: string): Promise<void> {
    const ctl = this.core.untrackedController();
    let timedOut = false;
    const handle = this.core.timers.setTimeout(() => {
      timedOut = true;
      ctl?.abort("DELETE timed out");
    }, this.deleteTimeoutMs);
    try {
      const headers = this.core.headers(ACCEPT_BOTH, true);
      headers["Mcp-Session-Id"] = session;
      const res = await this.core.fetchRaw(this.core.url, "DELETE", headers, undefined, ctl);
      if (isAuthChallenge(res.status)) {
        this.core.report(authReport(await authErrorOf(res, this.core.url)));
        return;
      }
      await discard(res);
      if (res.status !== 405 && res.status !== 404 && !isOk(res.status))
        this.core.report(new HttpTransportError(`DELETE of the session answered HTTP ${res.status}`, res.status));
    } catch (error) {
      const why = timedOut ? `took longer than ${this.deleteTimeoutMs} ms` : `failed: ${describe(error)}`;
      this.core.report(new HttpTransportError(`DELETE of the session ${why}`));
    } finally {
      this.core.timers.clearTimeout(handle);
    }
  }
}
