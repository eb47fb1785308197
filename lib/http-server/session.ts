// The session era's streams on the Streamable HTTP endpoint (RULES.md HTTP-03, HTTP-06, HTTP-10): one HttpSession
// per Mcp-Session-Id with its ServerSession, and the Streams (a POST's answer, the GET stream)
// its messages are routed to. Portable: replies are HttpReply (channel.ts), timers come from
// the endpoint's host, events are kept in the EventStore for resumption.
//
// Invariants:
// - every message goes to exactly one stream: a response to the POST that carried its
//   request; a message related to an inbound request to that request's stream while it is
//   open; anything else to the GET stream (or a bounded backlog until one opens);
// - event ids are "<stream>:<seq>" (lib/http/server-rules.ts), unique per session (with several
//   processes, per node across every copy of the session it makes); a resumed stream
//   replays only its own, from the EventStore;
// - a client that disconnects mid-request does not cancel it: its events are kept
//   (the EventStore's bounds; the default keeps maxEventsPerStream per stream, 100 streams
//   per session) for resumption;
// - a session with a response attached (an open GET stream, a pending POST) is not idle.

import type { Outbound } from "../engine/engine.js";
import type { JsonObject, JsonRpcMessage, RequestId } from "../wire/envelope.js";
import { cancelledTarget, eventId, primesStreams, streamName } from "../http/server-rules.js";
import { SSE_HEADERS, sseMessage, ssePriming } from "../http/sse-encoder.js";
import { HttpStatus } from "../http/status.js";
import type { PeerHost } from "../peer/shared/driver.js";
import type { ServerSession } from "../peer/server/session.js";
import { byteLength, refuse, type HttpReply } from "./channel.js";
import type { EventStore, StoredEvent } from "./options.js";
import type { HttpTimers } from "../peer/shared/timers.js";
import type { Follower } from "./follow.js";

/** What a session needs of its endpoint. */
export interface SessionHost {
  readonly options: {
    readonly responseMode: "auto" | "sse";
    readonly sseRetryMs: number;
    readonly sessionIdleMs: number;
    readonly eventStore: EventStore;
    readonly onError: (error: unknown) => void;
  };
  readonly timers: HttpTimers;
  /** Prefixes stream ids ("" for one process). */
  readonly streamPrefix: string;
  readonly cluster: {
    /** CL-06: keeps a message for the GET stream in the session's mailbox (true), or says there is none (one process). */
    mailFor(session: HttpSession, message: JsonObject): boolean;
    /** Whether messages for GET streams go through mailboxes (CL-06). */
    readonly mails: boolean;
    /** CL-07: tells the reader following `stream` on another node (if any) how far it is kept. */
    announce(stream: Stream): void;
    /** A reader id unique across nodes (CL-07). */
    readerToken(): string;
    /** The number of a new stream when this node numbers them all (several processes), else undefined. */
    streamNumber(): number | undefined;
  };
  endSession(session: HttpSession, why?: "idle"): void;
  keepAlive(session: HttpSession): void;
}

/** An endpoint's session table, as the parts that find and end sessions use it (HttpEndpoint holds it). */
export interface SessionTable {
  /** This process's sessions by Mcp-Session-Id: found, added and dropped here. */
  readonly sessions: Map<string, HttpSession>;
  /**
   * Ends one session: its streams close, its engine closes, the store forgets it (with a shared
   * bus, only this node's copy unless it ended for good).
   */
  endSession(session: HttpSession, why?: "ended" | "idle" | "shutdown" | "elsewhere"): void;
}

/** Events a stream holds while the EventStore has not confirmed the one before, at most. */
const MAX_UNSAVED = 1000;

/** One SSE-capable reply channel: a POST's answer, or the session's GET stream. */
export class Stream {
  res: HttpReply | undefined;
  /** "pending": nothing written yet (a POST may still answer as JSON). */
  mode: "pending" | "sse" | "done" = "pending";
  /** Events sent on this stream so far (the last event id's sequence number). */
  seq = 0;
  /** While a resumption waits for an asynchronous EventStore: live events held back, written after the replay. */
  private held: StoredEvent[] | undefined;
  /** Ended by its last answer (not by a cancellation or the session ending here). */
  private answered = false;
  /** Events handed to the EventStore whose append has not resolved yet, oldest first (appends go one at a time). */
  private readonly unsaved: StoredEvent[] = [];
  private saving = false;
  private releaseWhenSaved = false;
  /** The last event the EventStore has. */
  saved = 0;
  /** CL-07: a reader on another node follows this stream; `reader` is the one it serves now. */
  followed = false;
  reader = "";
  /** How many readers claimed it (the writer's own resumes included), so that a reader can tell newer news from older. */
  claims = 0;

  constructor(
    readonly id: string,
    readonly owner: HttpSession,
    res: HttpReply,
    /** Request ids this POST still owes an answer to (empty for the GET stream). */
    readonly awaiting: Set<RequestId>,
    /** Whether this POST carried a batch (its answer is one array). */
    readonly batch: boolean,
    /** The status of a JSON answer: 200 for a POST with requests; 400 for a POST of notifications the engine refused. */
    private readonly jsonStatus: number,
  ) {
    this.res = res;
    res.onClose(() => {
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
    if (
      this.mode === "pending" &&
      settles &&
      this.awaiting.size === 0 &&
      this.owner.http.options.responseMode === "auto" &&
      this.res !== undefined
    ) {
      const body = JSON.stringify(message);
      this.res.head(this.jsonStatus, { "Content-Type": "application/json", "Content-Length": String(byteLength(body)) });
      this.res.end(body);
      this.mode = "done";
      this.owner.forget(this);
      return;
    }
    if (this.mode === "pending") this.startSse();
    const seq = ++this.seq;
    const event: StoredEvent = { seq, text: sseMessage(message, eventId(this.id, seq)) };
    this.keep(event);
    if (this.held !== undefined) this.held.push(event);
    else this.res?.write(event.text);
    if (settles && this.awaiting.size === 0) {
      this.answered = true;
      // Answered on a connection still attached: the client has read it all.
      const read = this.res !== undefined && this.held === undefined;
      this.finish();
      if (read) this.release();
    }
  }

  /** Replays events after `after` to a resuming client (from the EventStore) and continues on its response. */
  resume(res: HttpReply, after: number): void {
    // One reader per stream: a previous connection still attached is ended, not fed twice.
    if (this.res !== undefined && this.res !== res) this.res.end();
    this.res = res;
    res.onClose(() => {
      if (this.res === res) this.res = undefined;
    });
    res.head(HttpStatus.ok, SSE_HEADERS);
    // Send the headers now: with nothing to replay the client would otherwise wait for them until the next event.
    res.flush();
    if (this.mode === "pending") this.mode = "sse";
    if (this.followed) {
      // CL-07: this client resumed here, where the stream is written: a reader following it elsewhere ends.
      this.reader = this.owner.http.cluster.readerToken();
      this.claims++;
      this.announce();
    }
    // Events still on their way to the store are replayed from here.
    const unsaved = [...this.unsaved];
    const replayed = after >= this.seq ? [] : this.owner.replay(this.id, after);
    if (!isThenable(replayed)) {
      this.replayTo(res, [...(replayed ?? []), ...unsaved], after);
      return;
    }
    this.held = [];
    replayed.then(
      (events) => this.replayTo(res, [...(events ?? []), ...unsaved], after),
      (error: unknown) => {
        this.owner.http.options.onError(error);
        this.replayTo(res, unsaved, after);
      },
    );
  }

  private replayTo(res: HttpReply, events: readonly StoredEvent[], after: number): void {
    const held = this.held ?? [];
    this.held = undefined;
    let last = after;
    for (const event of [...events, ...held].sort((x, y) => x.seq - y.seq)) {
      if (event.seq <= last) continue;
      last = event.seq;
      if (this.res === res) res.write(event.text);
    }
    if (this.mode === "done" && this.res === res) {
      res.end();
      if (this.answered) this.release();
    }
  }

  /** CL-05: an answered stream read to its end: the store may let its events go (once it has them all). */
  private release(): void {
    if (this.saving) {
      this.releaseWhenSaved = true;
      return;
    }
    const store = this.owner.http.options.eventStore;
    try {
      const released = store.release?.(this.owner.id, this.id);
      if (isThenable(released)) released.then(undefined, this.owner.http.options.onError);
    } catch (error) {
      this.owner.http.options.onError(error);
    }
  }

  private keep(event: StoredEvent): void {
    this.unsaved.push(event);
    // A store that stops answering holds back at most this many (the oldest then go unkept, as a failed append's would).
    if (this.unsaved.length > MAX_UNSAVED) this.unsaved.splice(1, 1);
    if (!this.saving) this.save();
  }

  /** Appends the unsaved events one at a time, so that the store has them in order whatever each call takes (CL-07). */
  private save(): void {
    const options = this.owner.http.options;
    for (let event = this.unsaved[0]; event !== undefined; event = this.unsaved[0]) {
      let kept: void | Promise<void> = undefined;
      try {
        kept = options.eventStore.append(this.owner.id, this.id, event);
      } catch (error) {
        options.onError(error);
      }
      if (isThenable(kept)) {
        this.saving = true;
        const stored = event;
        kept.then(undefined, options.onError).then(() => {
          this.saving = false;
          this.stored(stored);
          this.save();
          if (!this.saving && this.releaseWhenSaved) {
            this.releaseWhenSaved = false;
            this.release();
          }
        });
        return;
      }
      this.stored(event);
    }
  }

  private stored(event: StoredEvent): void {
    if (this.unsaved[0] === event) this.unsaved.shift();
    this.saved = event.seq;
    this.announce();
  }

  /** CL-07: the follower elsewhere (if any) hears how far the store has this stream, and whether it is done. */
  announce(): void {
    if (this.followed) this.owner.http.cluster.announce(this);
  }

  /** Ended, and every event in the store: no reader needs more. */
  get complete(): boolean {
    return this.mode === "done" && this.unsaved.length === 0;
  }

  startSse(): void {
    this.mode = "sse";
    const res = this.res;
    if (res === undefined) return;
    res.head(HttpStatus.ok, SSE_HEADERS);
    // HTTP-09 (2025-11-25): prime the stream with an event id (empty data) and the retry advice, so a client can resume it.
    if (primesStreams(this.owner.session.engine.negotiatedVersion)) {
      res.write(ssePriming(eventId(this.id, 0), this.owner.http.options.sseRetryMs));
    } else {
      // No priming event: send the headers now, not with the first event (which may be long in coming).
      res.flush();
    }
  }

  finish(): void {
    const unanswered = this.mode === "pending";
    this.mode = "done";
    const res = this.res;
    if (this.held === undefined && res !== undefined) {
      // Ended before anything was written (its session ended: DELETE, shutdown, a closed engine): no answer
      // will come, so the client is told, with the request's id when it sent one, instead of a 200 with no body.
      if (unanswered && !res.headSent) {
        const only = this.awaiting.size === 1 ? [...this.awaiting][0] : undefined;
        refuse(res, "shuttingDown", "The session ended before the answer", only);
      } else res.end();
    }
    this.owner.forget(this);
    this.announce();
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
  /** Unrelated messages waiting for a GET stream (one process; several keep them in the mailbox, CL-06). */
  readonly backlog: string[] = [];
  /** While a change (tagged, CL-06) is applied here: what it makes the engine send goes to the mailbox under this tag. */
  changeTag: string | undefined;
  /** CL-06: a take from the mailbox is in flight; another is wanted after it. */
  taking = false;
  takeAgain = false;
  /** CL-07: readers here of streams other nodes write, by stream id. */
  readonly followers = new Map<string, Follower>();
  /** While initialize is handled: what the engine sends is held here until the host knows whether a session is minted. */
  captured: Outbound[] | undefined;
  /** CL-08: the store is reserving this copy a block of request ids; until it has one, no request of the session is handled here. */
  reservingIds: Promise<boolean> | undefined;
  private nextStream = 0;
  /** The snapshot (JSON) the shared store is known to hold, so that an unchanged one is not written again. */
  stored: string | undefined;
  /** The store has had this session: a save only replaces it (CL-04). */
  inStore = false;
  private timer: unknown;
  private idleTimer: unknown;
  closed = false;

  constructor(
    readonly id: string,
    readonly http: SessionHost,
  ) {}

  get host(): PeerHost {
    const timers = this.http.timers;
    return {
      send: (outbound) => this.route(outbound),
      now: () => timers.now(),
      armTimer: (at) => {
        if (this.timer !== undefined) timers.clearTimeout(this.timer);
        this.timer =
          at === undefined ? undefined : timers.setTimeout(() => this.session.onTimer(), Math.max(0, Math.ceil(at - timers.now())));
      },
    };
  }

  /** The kept events of one of this session's streams after `after` (the EventStore's answer). */
  replay(streamId: string, after: number): ReturnType<EventStore["replay"]> {
    try {
      return this.http.options.eventStore.replay(this.id, streamId, after);
    } catch (error) {
      this.http.options.onError(error);
      return undefined;
    }
  }

  newStream(res: HttpReply, awaiting: Set<RequestId>, batch: boolean, jsonStatus: number = HttpStatus.ok): Stream {
    const number = this.http.cluster.streamNumber() ?? this.nextStream++;
    const stream = new Stream(`${this.http.streamPrefix}${streamName(number)}`, this, res, awaiting, batch, jsonStatus);
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

  /** a request the client cancelled (`message`, when it is notifications/cancelled) gets no answer, so the stream that awaited it ends rather than stay open for good. */
  endCancelled(current: Stream | undefined, message: unknown): void {
    const target = cancelledTarget(message);
    if (target === undefined) return;
    const owner = this.owners.get(target);
    if (owner === undefined || owner === current || !owner.open) return;
    this.owners.delete(target);
    owner.awaiting.delete(target);
    if (owner.awaiting.size > 0) return;
    if (owner.mode === "pending") owner.startSse();
    owner.finish();
  }

  touch(): void {
    const timers = this.http.timers;
    if (this.idleTimer !== undefined) timers.clearTimeout(this.idleTimer);
    this.idleTimer = timers.setTimeout(() => {
      // A session with a response attached (its GET stream, a POST still answering) is in use, however quiet.
      if (this.attached) {
        this.touch();
        this.http.keepAlive(this);
      } else this.http.endSession(this, "idle");
    }, this.http.options.sessionIdleMs);
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
      if (
        current !== undefined &&
        (id === undefined || id === null || current.awaiting.has(id) || (current.awaiting.size === 0 && !this.owners.has(id)))
      ) {
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
    const standalone = this.standalone !== undefined && this.standalone.open ? this.standalone : undefined;
    // A change goes through the mailbox even here: the nodes that apply it keep one copy there (CL-06). So does
    // whatever comes while the GET stream's client is away: the next GET, on any node, gets it.
    if (
      standalone !== undefined &&
      this.changeTag === undefined &&
      (standalone.res !== undefined || standalone.followed || !this.http.cluster.mails)
    ) {
      standalone.deliver(message);
      return;
    }
    // Several processes: the session's mailbox keeps it for whichever node holds the GET stream, now or later.
    if (this.http.cluster.mailFor(this, m)) return;
    if (standalone !== undefined) {
      standalone.deliver(message);
      return;
    }
    this.backlog.push(JSON.stringify(message));
    if (this.backlog.length > 1000) this.backlog.shift();
  }

  /** `forgetEvents` false: only this process lets the session go (its events stay in the store for another). */
  end(forgetEvents = true): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== undefined) this.http.timers.clearTimeout(this.timer);
    if (this.idleTimer !== undefined) this.http.timers.clearTimeout(this.idleTimer);
    for (const stream of this.streams.values()) if (stream.open) stream.finish();
    this.streams.clear();
    for (const follower of [...this.followers.values()]) follower.end();
    if (forgetEvents) {
      try {
        const forgotten = this.http.options.eventStore.forget(this.id);
        if (isThenable(forgotten)) forgotten.then(undefined, this.http.options.onError);
      } catch (error) {
        this.http.options.onError(error);
      }
    }
    this.owners.clear();
    if (!this.session.engine.isClosed) this.session.close();
  }
}

export function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}
