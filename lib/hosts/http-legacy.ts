// The deprecated HTTP+SSE transport of 2024-11-05 (RULES.md SSE-01), offered beside the
// Streamable HTTP endpoint when asked to (HttpServerOptions.legacySse): a GET on the SSE
// path opens a session whose first event, `endpoint`, names the URI to POST messages to;
// every server message then travels as a `message` event on that stream.
//
// Invariants: one session per SSE stream, ended when the stream closes; a POST names its
// session in the query (`?sessionId=`), gets 202 once the message is handed to the engine,
// and 404 for an unknown or ended session; Host/Origin checks and the body limit are those
// of the Streamable HTTP host (it dispatches here after checking them).

import { randomUUID } from "node:crypto";
import type { NodeServerResponse as ServerResponse } from "./node-shapes.js";
import { performance } from "node:perf_hooks";
import type { PeerHost } from "../peer/driver.js";
import type { Server, ServerSession } from "../peer/server.js";

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

  constructor(
    private readonly server: Server,
    options: LegacySseOptions,
  ) {
    this.ssePath = options.ssePath ?? "/sse";
    this.messagePath = options.messagePath ?? "/messages";
  }

  /** Whether a request path belongs to this endpoint. */
  owns(path: string): boolean {
    return path === this.ssePath || path === this.messagePath;
  }

  /** Opens a session on a GET of the SSE path. */
  open(res: ServerResponse): void {
    const id = randomUUID();
    let timer: NodeTimer | undefined;
    let session: ServerSession | undefined;
    const host: PeerHost = {
      send: (outbound) => {
        res.write(`event: message\ndata: ${JSON.stringify(outbound.message)}\n\n`);
      },
      now: () => performance.now(),
      armTimer: (at) => {
        if (timer !== undefined) clearTimeout(timer);
        timer = at === undefined ? undefined : setTimeout(() => session?.onTimer(), Math.max(0, Math.ceil(at - performance.now())));
      },
    };
    res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-transform", Connection: "keep-alive" });
    res.write(`event: endpoint\ndata: ${this.messagePath}?sessionId=${id}\n\n`);
    session = this.server.connect(host);
    this.sessions.set(id, session);
    const opened = session;
    res.on("close", () => {
      if (timer !== undefined) clearTimeout(timer);
      this.sessions.delete(id);
      if (!opened.engine.isClosed) opened.close();
    });
  }

  /** The session a POST names (`?sessionId=`), if it is open. */
  find(url: string): ServerSession | undefined {
    const query = url.split("?")[1] ?? "";
    for (const pair of query.split("&")) {
      const [key, value] = pair.split("=");
      if (key === "sessionId" && value !== undefined) return this.sessions.get(decodeURIComponent(value));
    }
    return undefined;
  }

  /** Ends every session (server shutdown). */
  closeAll(): void {
    for (const session of this.sessions.values()) session.close();
    this.sessions.clear();
  }
}
