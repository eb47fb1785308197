// The session era's streams on the Streamable HTTP host (RULES.md HTTP-01…HTTP-04): one HttpSession per
// Mcp-Session-Id with its ServerSession, and the Streams (a POST's answer, the GET stream)
// its messages are routed to. Split out of http-server.ts, which owns the request handling.
//
// Invariants:
// - every message goes to exactly one stream: a response to the POST that carried its
//   request; a message related to an inbound request to that request's stream while it is
//   open; anything else to the GET stream (or a bounded backlog until one opens);
// - event ids are "<stream>:<seq>", unique per session; a resumed stream replays only its own;
// - a client that disconnects mid-request does not cancel it: its events are kept
//   (at most maxEventsPerStream per stream, at most 100 finished streams) for resumption;
// - a session with a response attached (an open GET stream, a pending POST) is not idle.

import type { NodeServerResponse as ServerResponse } from "./node-shapes.js";
import { performance } from "node:perf_hooks";
import type { Outbound } from "../engine.js";
import type { JsonObject, JsonRpcMessage, RequestId } from "../envelope.js";
import type { PeerHost } from "../peer/driver.js";
import type { ServerSession } from "../peer/server.js";
import { VERSION_PROFILES } from "../versions.js";
import { SSE_HEADERS, byteLength } from "./http-wire.js";

/** What a session needs of its host (HttpHost). */
export interface SessionHost {
  readonly options: { readonly responseMode: "auto" | "sse"; readonly sseRetryMs: number; readonly sessionIdleMs: number; readonly maxEventsPerStream: number };
  endSession(session: HttpSession): void;
}

interface StoredEvent {
  readonly seq: number;
  readonly text: string;
}

/** One SSE-capable reply channel: a POST's answer, or the session's GET stream. */
export class Stream {
  readonly events: StoredEvent[] = [];
  res: ServerResponse | undefined;
  /** "pending": nothing written yet (a POST may still answer as JSON). */
  mode: "pending" | "sse" | "done" = "pending";
  private seq = 0;

  constructor(
    readonly id: string,
    readonly owner: HttpSession,
    res: ServerResponse,
    /** Request ids this POST still owes an answer to (empty for the GET stream). */
    readonly awaiting: Set<RequestId>,
    /** Whether this POST carried a batch (its answer is one array). */
    readonly batch: boolean,
    /** The status of a JSON answer: 200 for a POST with requests; 400 for a POST of notifications the engine refused. */
    private readonly jsonStatus: number,
  ) {
    this.res = res;
    res.on("close", () => {
      // a disconnect is not a cancellation; events keep accumulating for resumption.
      if (this.res === res) this.res = undefined;
    });
  }

  get open(): boolean {
    return this.mode !== "done";
  }

  deliver(message: JsonRpcMessage | readonly JsonRpcMessage[]): void {
    if (this.mode === "done") return;
    const settles = this.settles(message);
    if (this.mode === "pending" && settles && this.awaiting.size === 0 && this.owner.http.options.responseMode === "auto" && this.res !== undefined) {
      const body = JSON.stringify(message);
      this.res.writeHead(this.jsonStatus, { "Content-Type": "application/json", "Content-Length": byteLength(body) });
      this.res.end(body);
      this.mode = "done";
      this.owner.forget(this);
      return;
    }
    if (this.mode === "pending") this.startSse();
    const seq = ++this.seq;
    const text = `id: ${this.id}:${seq}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`;
    this.events.push({ seq, text });
    if (this.events.length > this.owner.http.options.maxEventsPerStream) this.events.shift();
    this.res?.write(text);
    if (settles && this.awaiting.size === 0) this.finish();
  }

  /** Replays events after `after` to a resuming client and continues on its response. */
  resume(res: ServerResponse, after: number): void {
    // One reader per stream: a previous connection still attached is ended, not fed twice.
    if (this.res !== undefined && this.res !== res) this.res.end();
    this.res = res;
    res.on("close", () => {
      if (this.res === res) this.res = undefined;
    });
    res.writeHead(200, SSE_HEADERS);
    // Send the headers now: with nothing to replay the client would otherwise wait for them until the next event.
    res.flushHeaders();
    for (const event of this.events) if (event.seq > after) res.write(event.text);
    if (this.mode === "done") res.end();
    else if (this.mode === "pending") this.mode = "sse";
  }

  startSse(): void {
    this.mode = "sse";
    const res = this.res;
    if (res === undefined) return;
    res.writeHead(200, SSE_HEADERS);
    const version = this.owner.session.engine.negotiatedVersion;
    // 2025-11-25: prime the stream with an event id (empty data) and the retry advice, so a client can resume it.
    if (version !== undefined && VERSION_PROFILES[version].index >= VERSION_PROFILES["2025-11-25"].index) {
      res.write(`id: ${this.id}:0\nretry: ${this.owner.http.options.sseRetryMs}\ndata: \n\n`);
    } else {
      // No priming event: send the headers now, not with the first event (which may be long in coming).
      res.flushHeaders();
    }
  }

  finish(): void {
    this.mode = "done";
    this.res?.end();
    this.owner.forget(this);
  }

  /** Whether `message` is (the last part of) this stream's answer; the request ids it answers stop routing here. */
  private settles(message: JsonRpcMessage | readonly JsonRpcMessage[]): boolean {
    if (Array.isArray(message)) {
      // The engine answers a batch with one array, once every member is answered or cancelled.
      if (!this.batch) return false;
      this.owner.forget(this);
      this.awaiting.clear();
      return true;
    }
    const m = message as unknown as JsonObject;
    if (m.method !== undefined || (m.result === undefined && m.error === undefined)) return false;
    const id = m.id as RequestId | null | undefined;
    if (id !== undefined && id !== null && this.awaiting.delete(id)) {
      // Forget the owner entry too: the id may be reused by a later request on another stream.
      if (this.owner.owners.get(id) === this) this.owner.owners.delete(id);
      return true;
    }
    return this.awaiting.size === 0;
  }
}


/** One MCP session: its ServerSession, its streams and how messages are routed to them. */
export class HttpSession {
  session!: ServerSession;
  standalone: Stream | undefined;
  /** Streams kept for resumption, oldest first. */
  readonly streams = new Map<string, Stream>();
  /** The POST stream that owes the answer to each inbound request id. */
  readonly owners = new Map<RequestId, Stream>();
  /** The POST being processed right now: synchronous answers go to it. */
  current: Stream | undefined;
  /** Unrelated messages waiting for a GET stream. */
  readonly backlog: string[] = [];
  /** While initialize is handled: what the engine sends is held here until the host knows whether a session is minted. */
  captured: Outbound[] | undefined;
  private nextStream = 0;
  private timer: NodeTimer | undefined;
  private idleTimer: NodeTimer | undefined;
  closed = false;

  constructor(
    readonly id: string,
    readonly http: SessionHost,
  ) {}

  get host(): PeerHost {
    return {
      send: (outbound) => this.route(outbound),
      now: () => performance.now(),
      armTimer: (at) => {
        if (this.timer !== undefined) clearTimeout(this.timer);
        this.timer = at === undefined ? undefined : setTimeout(() => this.session.onTimer(), Math.max(0, Math.ceil(at - performance.now())));
      },
    };
  }

  newStream(res: ServerResponse, awaiting: Set<RequestId>, batch: boolean, jsonStatus = 200): Stream {
    const stream = new Stream(`s${(this.nextStream++).toString(36)}`, this, res, awaiting, batch, jsonStatus);
    this.streams.set(stream.id, stream);
    // Keep a bounded number of finished streams around for late resumption.
    if (this.streams.size > 100) {
      for (const [id, s] of this.streams) {
        if (this.streams.size <= 100) break;
        if (!s.open) this.streams.delete(id);
      }
    }
    return stream;
  }

  forget(stream: Stream): void {
    for (const id of stream.awaiting) if (this.owners.get(id) === stream) this.owners.delete(id);
  }

  touch(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      // A session with a response attached (its GET stream, a POST still answering) is in use, however quiet.
      if (this.attached) this.touch();
      else this.http.endSession(this);
    }, this.http.options.sessionIdleMs);
    this.idleTimer.unref();
  }

  /** Whether some client connection is still attached to one of this session's streams. */
  get attached(): boolean {
    for (const stream of this.streams.values()) if (stream.open && stream.res !== undefined) return true;
    return false;
  }

  route(outbound: Outbound): void {
    if (this.captured !== undefined) {
      this.captured.push(outbound);
      return;
    }
    const message = outbound.message;
    if (Array.isArray(message)) {
      // A batch answer goes to the POST that owes one of its ids (not any open batch: several may be pending).
      let target: Stream | undefined;
      for (const item of message) {
        const id = (item as unknown as JsonObject).id as RequestId | null | undefined;
        const owner = id === undefined || id === null ? undefined : this.owners.get(id);
        if (owner?.batch === true) {
          target = owner;
          break;
        }
      }
      // Only refusals without ids (e.g. every member invalid): the batch being processed.
      target ??= this.current?.batch === true ? this.current : undefined;
      target?.deliver(message);
      return;
    }
    const m = message as unknown as JsonObject;
    if (m.method === undefined) {
      const id = m.id as RequestId | null | undefined;
      const current = this.current;
      // To the POST being processed: an answer to one of its requests, or (when it carried no request) an answer no other stream is owed.
      if (current !== undefined && (id === undefined || id === null || current.awaiting.has(id) || (current.awaiting.size === 0 && !this.owners.has(id)))) {
        current.deliver(message);
        return;
      }
      const owner = id === undefined || id === null ? undefined : this.owners.get(id);
      if (owner !== undefined) {
        this.owners.delete(id as RequestId);
        owner.deliver(message);
      }
      return;
    }
    const related = outbound.relatedRequestId === undefined ? undefined : this.owners.get(outbound.relatedRequestId);
    if (related !== undefined && related.open) {
      related.deliver(message);
      return;
    }
    if (this.standalone !== undefined && this.standalone.open) {
      this.standalone.deliver(message);
      return;
    }
    this.backlog.push(JSON.stringify(message));
    if (this.backlog.length > 1000) this.backlog.shift();
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    for (const stream of this.streams.values()) if (stream.open) stream.finish();
    this.streams.clear();
    this.owners.clear();
    if (!this.session.engine.isClosed) this.session.close();
  }
}

