// One 2026-07-28 request on the Streamable HTTP host (RULES.md MOD-20): a ServerSession of its
// own that lives exactly as long as its POST. Split out of http-server.ts.
//
// Invariants: every message of the exchange goes to its POST's response; closing that
// response before the answer IS cancellation (the handler is aborted, nothing more is sent);
// a JSON error answer travels with the status httpStatusFor gives; SSE streams carry no ids.

import type { NodeServerResponse as ServerResponse } from "./node-shapes.js";
import { performance } from "node:perf_hooks";
import { isJsonObject, type JsonObject, type JsonRpcMessage, type RequestId } from "../envelope.js";
import { ErrorCode } from "../errors.js";
import { httpStatusFor } from "../modern.js";
import type { PeerHost } from "../peer/driver.js";
import type { ServerSession } from "../peer/server.js";
import { byteLength, jsonRpcError } from "./http-wire.js";

/** What an exchange needs of its host (HttpHost). */
export interface ExchangeHost {
  readonly options: { readonly responseMode: "auto" | "sse"; readonly keepAliveMs: number };
  readonly exchanges: Set<ModernExchange>;
}

/**
 * One 2026-07-28 request (MOD-20): a ServerSession of its own, fed this single request, whose
 * every message (progress, log messages, the listen acknowledgement and change
 * notifications, the answer) goes to this POST's response. It ends with the answer, or when
 * the client closes the response first (cancellation), or when the host shuts down.
 */
export class ModernExchange {
  session!: ServerSession;
  /** "pending": nothing written yet (the answer may still go as JSON). */
  mode: "pending" | "sse" | "done" = "pending";
  private timer: NodeTimer | undefined;
  private keepAlive: NodeTimer | undefined;

  constructor(
    readonly http: ExchangeHost,
    readonly res: ServerResponse,
    readonly id: RequestId,
  ) {
    res.on("close", () => {
      // MOD-17 / X-09 reversed: in 2026-07-28 a client that closes the stream before the answer cancels the request.
      if (this.mode !== "done") this.cancel();
    });
  }

  get host(): PeerHost {
    return {
      send: (outbound) => this.deliver(outbound.message),
      now: () => performance.now(),
      armTimer: (at) => {
        if (this.timer !== undefined) clearTimeout(this.timer);
        this.timer = at === undefined ? undefined : setTimeout(() => this.session.onTimer(), Math.max(0, Math.ceil(at - performance.now())));
      },
    };
  }

  deliver(message: JsonRpcMessage | readonly JsonRpcMessage[]): void {
    if (this.mode === "done") return;
    const m = message as unknown as JsonObject;
    // One request per session: any response is its answer.
    const settles = !Array.isArray(message) && m.method === undefined;
    const error = settles && isJsonObject(m.error) && typeof m.error.code === "number" ? { code: m.error.code, data: m.error.data } : undefined;
    const status = error === undefined ? 200 : httpStatusFor(error);
    // An error with its own HTTP status (400, 404) goes as JSON even in "sse" mode, while nothing is written yet.
    if (this.mode === "pending" && settles && (this.http.options.responseMode === "auto" || status !== 200)) {
      const body = JSON.stringify(message);
      this.res.writeHead(status, { "Content-Type": "application/json", "Content-Length": byteLength(body) });
      this.res.end(body);
      this.end();
      return;
    }
    if (this.mode === "pending") this.startSse();
    this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    if (settles) {
      this.res.end();
      this.end();
    }
  }

  startSse(): void {
    this.mode = "sse";
    this.res.writeHead(200, MODERN_SSE_HEADERS);
    // No priming event and no event ids: 2026-07-28 streams are not resumable. Send the headers now.
    this.res.flushHeaders();
    const every = this.http.options.keepAliveMs;
    if (every > 0) {
      this.keepAlive = setInterval(() => {
        if (this.mode === "sse") this.res.write(": keep-alive\n\n");
      }, every);
      this.keepAlive.unref();
    }
  }

  /** The client closed the response before the answer: the handler is aborted, the session closed. */
  private cancel(): void {
    const engine = this.session.engine;
    this.mode = "done";
    if (!engine.isClosed) this.session.receiveMessage({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: this.id, reason: "the client closed the response stream" } });
    this.end();
  }

  /** Host shutdown: a listen stream gets its final result (MOD-15); anything else in flight is cut off. */
  shutdown(): void {
    if (this.mode === "done") return;
    const engine = this.session.engine;
    if (!engine.isClosed) {
      engine.endSubscriptions();
      this.session.driver.pump();
    }
    // A listen stream has just ended with its result; anything else is cut off.
    if (!this.open) return;
    if (this.mode === "pending") {
      const body = jsonRpcError(ErrorCode.InternalError, "The server is shutting down");
      this.res.writeHead(503, { "Content-Type": "application/json", "Content-Length": byteLength(body) });
      this.res.end(body);
    } else this.res.end();
    this.end();
  }

  get open(): boolean {
    return this.mode !== "done";
  }

  private end(): void {
    this.mode = "done";
    this.http.exchanges.delete(this);
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.keepAlive !== undefined) clearInterval(this.keepAlive);
    this.timer = undefined;
    this.keepAlive = undefined;
    if (!this.session.engine.isClosed) this.session.close();
  }
}

const MODERN_SSE_HEADERS = { "Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-transform", Connection: "keep-alive", "X-Accel-Buffering": "no" };
