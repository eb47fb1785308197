// One 2026-07-28 request on the Streamable HTTP endpoint (RULES.md MOD-20): a ServerSession of
// its own that lives exactly as long as its POST. Portable: the reply is an HttpReply, the
// timers (the session's, the keep-alives) come from the endpoint's host.
//
// Invariants: every message of the exchange goes to its POST's response; closing that
// response before the answer IS cancellation (the handler is aborted, nothing more is sent);
// a JSON error answer travels with the status httpStatusFor gives; SSE streams carry no ids.

import { isJsonObject, type JsonObject, type JsonRpcMessage, type RequestId } from "../wire/envelope.js";
import { httpStatusFor } from "../http/headers.js";
import { MODERN_SSE_HEADERS, SSE_KEEP_ALIVE, sseMessage } from "../http/sse-encoder.js";
import { HttpStatus } from "../http/status.js";
import type { PeerHost } from "../peer/shared/driver.js";
import type { ServerSession } from "../peer/server/session.js";
import { answerJson, refuse, type HttpReply } from "./channel.js";
import type { HttpTimers } from "../peer/shared/timers.js";

/** What an exchange needs of its endpoint. */
export interface ExchangeHost {
  readonly options: { readonly responseMode: "auto" | "sse"; readonly keepAliveMs: number };
  readonly exchanges: Set<ModernExchange>;
  readonly timers: HttpTimers;
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
  private timer: unknown;
  private keepAlive: unknown;

  constructor(
    readonly http: ExchangeHost,
    readonly res: HttpReply,
    readonly id: RequestId,
  ) {
    res.onClose(() => {
      // MOD-17 / X-09 reversed: in 2026-07-28 a client that closes the stream before the answer cancels the request.
      if (this.mode !== "done") this.cancel();
    });
  }

  get host(): PeerHost {
    const timers = this.http.timers;
    return {
      send: (outbound) => this.deliver(outbound.message),
      now: () => timers.now(),
      armTimer: (at) => {
        if (this.timer !== undefined) timers.clearTimeout(this.timer);
        this.timer =
          at === undefined ? undefined : timers.setTimeout(() => this.session.onTimer(), Math.max(0, Math.ceil(at - timers.now())));
      },
    };
  }

  deliver(message: JsonRpcMessage | readonly JsonRpcMessage[]): void {
    if (this.mode === "done") return;
    const m = message as unknown as JsonObject;
    // One request per session: any response is its answer.
    const settles = !Array.isArray(message) && m.method === undefined;
    const error =
      settles && isJsonObject(m.error) && typeof m.error.code === "number" ? { code: m.error.code, data: m.error.data } : undefined;
    const status = error === undefined ? HttpStatus.ok : httpStatusFor(error);
    // An error with its own HTTP status (400, 404) goes as JSON even in "sse" mode, while nothing is written yet.
    if (this.mode === "pending" && settles && (this.http.options.responseMode === "auto" || status !== HttpStatus.ok)) {
      answerJson(this.res, status, m);
      this.end();
      return;
    }
    if (this.mode === "pending") this.startSse();
    this.res.write(sseMessage(message));
    if (settles) {
      this.res.end();
      this.end();
    }
  }

  startSse(): void {
    this.mode = "sse";
    this.res.head(HttpStatus.ok, MODERN_SSE_HEADERS);
    // No priming event and no event ids: 2026-07-28 streams are not resumable. Send the headers now.
    this.res.flush();
    const every = this.http.options.keepAliveMs;
    if (every > 0) {
      const beat = (): void => {
        if (this.mode !== "sse") return;
        this.res.write(SSE_KEEP_ALIVE);
        this.keepAlive = this.http.timers.setTimeout(beat, every);
      };
      this.keepAlive = this.http.timers.setTimeout(beat, every);
    }
  }

  /** The client closed the response before the answer: the handler is aborted, the session closed. */
  private cancel(): void {
    const engine = this.session.engine;
    this.mode = "done";
    if (!engine.isClosed)
      this.session.receiveMessage({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: this.id, reason: "the client closed the response stream" },
      });
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
    if (this.mode === "pending") refuse(this.res, "shuttingDown", "The server is shutting down");
    else this.res.end();
    this.end();
  }

  get open(): boolean {
    return this.mode !== "done";
  }

  private end(): void {
    this.mode = "done";
    this.http.exchanges.delete(this);
    if (this.timer !== undefined) this.http.timers.clearTimeout(this.timer);
    if (this.keepAlive !== undefined) this.http.timers.clearTimeout(this.keepAlive);
    this.timer = undefined;
    this.keepAlive = undefined;
    if (!this.session.engine.isClosed) this.session.close();
  }
}
