// The deprecated HTTP+SSE transport of 2024-11-05 (RULES.md SSE-01), offered beside the
// Streamable HTTP endpoint when asked to (HttpServerOptions.legacySse). Portable (HttpReply,
// injected timers and ids). A GET on the SSE
// path opens a session whose first event, `endpoint`, names the URI to POST messages to;
// every server message then travels as a `message` event on that stream.
//
// Invariants: one session per SSE stream, ended when the stream closes; a POST names its
// session in the query (`?sessionId=`), gets 202 once the message is handed to the engine,
// and 404 for an unknown or ended session; Host/Origin checks and the body limit are those
// of the Streamable HTTP host (it dispatches here after checking them).

import { SSE_HEADERS, sseEndpoint, sseMessage } from "../http/sse-encoder.js";
import { HttpStatus } from "../http/status.js";
import type { PeerHost } from "../peer/shared/driver.js";
import type { Server } from "../peer/server/server.js";
import type { ServerSession } from "../peer/server/session.js";
import type { HttpReply } from "./channel.js";
import type { HttpTimers } from "../peer/shared/timers.js";

export interface LegacySseOptions {
  /** Where clients open the SSE stream. Default "/sse". */
  ssePath?: string;
  /** Where clients POST their messages. Default "/messages". */
  messagePath?: string;
}

export class LegacySseEndpoint {
  readonly ssePath: string;
  readonly messagePath: string;
  readonly sessions = new Map<string, ServerSession>();
  /** Each session's SSE stream, ended when the host shuts down. */
  private readonly streams = new Map<string, HttpReply>();

  constructor(
    private readonly server: Server,
    options: LegacySseOptions,
    private readonly timers: HttpTimers,
    private readonly newId: () => string,
  ) {
    this.ssePath = options.ssePath ?? "/sse";
    this.messagePath = options.messagePath ?? "/messages";
  }

  /** Whether a request path belongs to this endpoint. */
  owns(path: string): boolean {
    return path === this.ssePath || path === this.messagePath;
  }

  /** Opens a session on a GET of the SSE path; `base` prefixes the message URI (the endpoint's mount path). */
  open(res: HttpReply, base = ""): void {
    const id = this.newId();
    const timers = this.timers;
    let timer: unknown;
    let session: ServerSession | undefined;
    const host: PeerHost = {
      send: (outbound) => {
        res.write(sseMessage(outbound.message));
      },
      now: () => timers.now(),
      armTimer: (at) => {
        if (timer !== undefined) timers.clearTimeout(timer);
        timer = at === undefined ? undefined : timers.setTimeout(() => session?.onTimer(), Math.max(0, Math.ceil(at - timers.now())));
      },
    };
    res.head(HttpStatus.ok, SSE_HEADERS);
    res.write(sseEndpoint(`${base}${this.messagePath}?sessionId=${encodeURIComponent(id)}`));
    session = this.server.connect(host);
    this.sessions.set(id, session);
    this.streams.set(id, res);
    const opened = session;
    res.onClose(() => {
      if (timer !== undefined) timers.clearTimeout(timer);
      this.sessions.delete(id);
      this.streams.delete(id);
      if (!opened.engine.isClosed) opened.close();
    });
  }

  /** The session a POST names (`sessionId=` in its query, without "?"), if it is open. */
  find(query: string): ServerSession | undefined {
    for (const pair of query.split("&")) {
      const [key, value] = pair.split("=");
      if (key !== "sessionId" || value === undefined) continue;
      try {
        return this.sessions.get(decodeURIComponent(value));
      } catch {
        return undefined;
      }
    }
    return undefined;
  }

  /** Ends every session and its SSE stream (server shutdown). */
  closeAll(): void {
    for (const session of this.sessions.values()) session.close();
    this.sessions.clear();
    // Ending a stream runs its close listener (the session's timer cleared); the client sees the stream end.
    for (const res of [...this.streams.values()]) res.end();
    this.streams.clear();
  }
}
