// The 2026-07-28 era of the HTTP client transport (MOD-17, MOD-18, MOD-19, MOD-20): every message is its own
// POST with MCP-Protocol-Version (the `_meta` version), Mcp-Method and, for tools/call,
// prompts/get and resources/read, Mcp-Name (values outside visible ASCII as `=?base64?…?=`),
// and for tools/call an Mcp-Param-{Name} for each argument the tool's inputSchema marks with
// x-mcp-header. What those headers are is decided in lib/http/client-rules.ts; this file sends them.
//
// Invariants:
// - parameter headers come only from the tools/list results this transport carried: a tool
//   never listed through it gets none; tools with invalid declarations are left out of those
//   results and reported through onError (MOD-19);
// - no session id, no GET stream, no DELETE, no resumption: a stream that ends early fails;
// - cancelling a request aborts its POST (closing its stream is the cancellation);
//   notifications/cancelled is never POSTed (MOD-17);
// - a 4xx keeps the server's JSON-RPC error only when it is a recognized modern error
//   (isModernErrorResponse); any other 4xx becomes HTTP_TRANSPORT_ERROR with data.fallback
//   set, which tells a dual-era client to fall back to initialize; a 401/403 is a challenge.

import { isJsonObject, isRequestId, type JsonObject, type RequestId } from "../wire/envelope.js";
import { isAuthChallenge, isModernErrorResponse, isOk, modernRequestHeaders } from "../http/client-rules.js";
import { MODERN_VERSIONS } from "../rules/versions.js";
import { HttpTransportError } from "../peer/shared/errors.js";
import { ACCEPT_BOTH, type HttpCore, type ReaderHolder } from "./connection.js";
import { headerParamsOf, type HeaderParam } from "../http/headers.js";
import { cancelQuietly, clip, discard, readError } from "./body.js";
import type { AbortControllerLike, ReadableStreamLike, ResponseLike } from "./types.js";

export class ModernEra<S> {
  /** The version of the last 2026-07-28 request (the MCP-Protocol-Version of later notifications). */
  private version: string = MODERN_VERSIONS[0];
  /** Requests in flight: aborting one is how it is cancelled. */
  private readonly posts = new Map<RequestId, { ctl: AbortControllerLike<S> | undefined; holder: ReaderHolder }>();
  /** Each listed tool's x-mcp-header arguments, learned from the tools/list results this transport carried. */
  private readonly paramHeaders = new Map<string, readonly HeaderParam[]>();
  /** tools/list requests in flight: their results teach paramHeaders. */
  private readonly toolLists = new Set<RequestId>();

  constructor(private readonly core: HttpCore<S>) {}

  send(message: unknown, requestId: RequestId | undefined): void {
    if (isJsonObject(message) && message.method === "notifications/cancelled" && isJsonObject(message.params)) {
      // MOD-17: over HTTP a request is cancelled by closing its stream; the notification itself is not sent.
      const cancelled = message.params.requestId;
      if (isRequestId(cancelled)) this.abort(cancelled);
      return;
    }
    if (requestId !== undefined) this.core.inflight.add(requestId);
    if (requestId !== undefined && isJsonObject(message) && message.method === "tools/list") this.toolLists.add(requestId);
    this.core.run(() => this.post(message, requestId));
  }

  private abort(id: RequestId): void {
    const post = this.posts.get(id);
    if (post === undefined) return;
    this.core.abandoned.add(id);
    post.ctl?.abort("cancelled");
    if (post.holder.reader !== undefined) cancelQuietly(post.holder.reader);
  }

  private async post(message: unknown, requestId: RequestId | undefined): Promise<void> {
    // T-05: a request's POST ends when it is cancelled (abort()); one carrying no request at postTimeoutMs.
    const ctl = this.core.controller(requestId === undefined ? this.core.postTimeoutMs : undefined);
    const holder: ReaderHolder = { reader: undefined };
    if (requestId !== undefined) this.posts.set(requestId, { ctl, holder });
    try {
      let res: ResponseLike;
      try {
        res = await this.core.fetchRaw(this.core.url, "POST", this.headers(message), JSON.stringify(message), ctl);
      } catch (error) {
        this.core.failFetch(requestId, "POST", error);
        return;
      }
      if (!this.core.active || (requestId !== undefined && this.core.abandoned.has(requestId))) {
        await discard(res);
        return;
      }
      if (isAuthChallenge(res.status)) {
        await this.core.failAuth(requestId, res, this.core.url);
        return;
      }
      if (!isOk(res.status)) {
        const { status, text, error } = await readError(res);
        // A 4xx that is not a modern error says "not a 2026-07-28 endpoint"; anything else is answered as in the session era.
        if (status < 400 || status >= 500 || (error !== undefined && isModernErrorResponse(status, { error }))) {
          this.core.failFromBody(requestId, status, text, error);
          return;
        }
        const message =
          error !== undefined ? `HTTP ${status}: ${String(error.message)}` : `HTTP ${status}${text !== "" ? `: ${clip(text, 200)}` : ""}`;
        this.core.fail(
          requestId,
          `${message} (not a 2026-07-28 answer)`,
          text === "" ? { status, fallback: true } : { status, body: clip(text), fallback: true },
        );
        return;
      }
      const failure = await this.core.consume(res, requestId, undefined, (body) => this.readStream(body, requestId, holder));
      if (failure !== undefined) this.core.settle(requestId, failure);
    } finally {
      this.core.release(ctl);
      if (requestId !== undefined) {
        if (this.posts.get(requestId)?.holder === holder) this.posts.delete(requestId);
        this.toolLists.delete(requestId);
        this.core.inflight.delete(requestId);
        this.core.abandoned.delete(requestId);
      }
    }
  }

  /** The 2026-07-28 request headers (MOD-18) for one message (lib/http/client-rules.ts decides them). */
  private headers(message: unknown): Record<string, string> {
    const built = modernRequestHeaders(message, this.version, (tool) => this.paramHeaders.get(tool));
    this.version = built.version;
    return { ...this.core.extraHeaders, "Content-Type": "application/json", Accept: ACCEPT_BOTH, ...built.headers };
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
        this.core.report(new HttpTransportError(`tools/list: left out tool ${JSON.stringify(tool.name)}: ${declared.reason}`));
        continue;
      }
      if (declared.params.length > 0) this.paramHeaders.set(tool.name, declared.params);
      else this.paramHeaders.delete(tool.name);
      kept.push(tool);
    }
    return kept.length === tools.length ? message : { ...message, result: { ...result, tools: kept } };
  }

  /** A POST's SSE stream: read once (it cannot be resumed). Returns a failure reason or undefined. */
  private async readStream(body: ReadableStreamLike, expect: RequestId | undefined, holder: ReaderHolder): Promise<string | undefined> {
    let answered = false;
    const outcome = await this.core.readSse(
      body,
      { lastEventId: undefined, retry: undefined },
      (event) => (answered = this.core.handleEvent(event, expect, undefined) || answered),
      holder,
    );
    if (expect === undefined || answered || !this.core.active || this.core.abandoned.has(expect)) return undefined;
    const how = outcome === "error" ? "failed" : "ended";
    return `the response stream ${how} before the answer (a 2026-07-28 stream cannot be resumed: send the request again with a new id)`;
  }

  /** The answer to a tools/list this era sent teaches its tools' parameter headers (see learnTools). */
  inspect(message: JsonObject): JsonObject {
    if (message.method === undefined && isRequestId(message.id) && this.toolLists.delete(message.id) && isJsonObject(message.result))
      return this.learnTools(message, message.result);
    return message;
  }
}
