// The deprecated HTTP+SSE transport (2024-11-05, SSE-01) as the fallback of an older
// initialize (HTTP-04): a GET opens the event stream, whose first event names the POST
// endpoint; every later message is POSTed there and every answer arrives on that stream.
//
// Invariants:
// - the fallback is tried at most once per transport, and only for the initialize POST;
// - if it does not work (the GET fails, is no event stream, or its first event is not
//   `endpoint`), the initialize settles with the original failure, never the fallback's;
// - the endpoint is resolved against the stream's final URL (after redirects);
// - once in legacy mode the end of the event stream is the end of the connection (EOF).

import { isJsonObject, type JsonObject, type RequestId } from "../wire/envelope.js";
import { isAuthChallenge, isOk, legacyFallbackStatus, mediaType } from "../http/client-rules.js";
import type { HttpAuthError } from "../peer/shared/errors.js";
import { ACCEPT_BOTH, ACCEPT_SSE, type Cursor, type HttpCore } from "./connection.js";
import { discard } from "./body.js";
import type { ResponseLike } from "./types.js";
import type { SseEvent } from "../http/sse-parser.js";
import { resolveReference } from "../uri-template/uri-reference.js";

export class LegacyEra<S> {
  /** The POST URL (from the endpoint event). */
  endpoint: string | undefined;
  /** Set when the fallback was tried: it is tried once. */
  tried = false;

  constructor(
    private readonly core: HttpCore<S>,
    private readonly enabled: boolean,
  ) {}

  /** HTTP-04: which initialize failures mean "try HTTP+SSE". */
  eligible(status: number): boolean {
    if (!this.enabled) return false;
    const params = this.core.initMessage?.params;
    return legacyFallbackStatus(isJsonObject(params) ? params.protocolVersion : undefined, status);
  }

  /** Tries HTTP+SSE after the initialize POST failed with `original`; when it works, POSTs the initialize there. */
  async fallback(
    message: JsonObject,
    requestId: RequestId,
    original: { status: number; text: string; error: JsonObject | undefined; auth?: HttpAuthError },
  ): Promise<void> {
    const failOriginal = (): void =>
      original.auth !== undefined
        ? this.core.settleAuth(requestId, original.auth)
        : this.core.failFromBody(requestId, original.status, original.text, original.error);
    const ctl = this.core.controller();
    let res: ResponseLike;
    try {
      res = await this.core.fetchRaw(this.core.url, "GET", { ...this.core.extraHeaders, Accept: ACCEPT_SSE }, undefined, ctl);
    } catch {
      this.core.release(ctl);
      failOriginal();
      return;
    }
    const body = res.body;
    if (!this.core.active || res.status !== 200 || mediaType(res.headers.get("content-type")) !== "text/event-stream" || body === null) {
      this.core.release(ctl);
      await discard(res);
      failOriginal();
      return;
    }
    const base = res.url !== undefined && res.url !== "" ? res.url : this.core.url;
    const endpoint = await new Promise<string | undefined>((resolve) => {
      let first = true;
      const cursor: Cursor = { lastEventId: undefined, retry: undefined };
      const onEvent = (event: SseEvent): boolean => {
        if (!first) return this.core.handleEvent(event, undefined, undefined) && false;
        first = false;
        if (event.type !== "endpoint") {
          resolve(undefined);
          return true;
        }
        resolve(resolveReference(base, event.data.trim()));
        return false;
      };
      void this.core.readSse(body, cursor, onEvent, undefined).then(() => {
        this.core.release(ctl);
        resolve(undefined);
        if (this.core.mode === "legacy") this.core.fatal("the HTTP+SSE stream ended");
      });
    });
    if (endpoint === undefined) {
      failOriginal();
      return;
    }
    this.core.mode = "legacy";
    this.endpoint = endpoint;
    await this.post(message, requestId);
  }

  /** One message POSTed to the endpoint; its answer comes on the event stream. */
  async post(message: unknown, requestId: RequestId | undefined): Promise<void> {
    // T-05: the POST only hands the message over (answers come on the stream): postTimeoutMs bounds it.
    const ctl = this.core.controller(this.core.postTimeoutMs);
    try {
      const headers: Record<string, string> = { ...this.core.extraHeaders, "Content-Type": "application/json", Accept: ACCEPT_BOTH };
      let res: ResponseLike;
      try {
        res = await this.core.fetchRaw(this.endpoint ?? this.core.url, "POST", headers, JSON.stringify(message), ctl);
      } catch (error) {
        this.core.failFetch(requestId, "POST", error);
        return;
      }
      if (isOk(res.status)) await discard(res);
      else if (isAuthChallenge(res.status)) await this.core.failAuth(requestId, res, this.endpoint ?? this.core.url);
      else await this.core.failHttp(requestId, res);
    } finally {
      this.core.release(ctl);
      if (requestId !== undefined) {
        this.core.inflight.delete(requestId);
        this.core.abandoned.delete(requestId);
      }
    }
  }
}
