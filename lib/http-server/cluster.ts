// Several processes as one endpoint (HttpServerOptions.bus shared): what the HTTP handler
// does with the message bus (bus.ts). Sessions themselves travel through the SessionStore
// and stream events through the EventStore; this module handles what only a live process
// holds: its pending server-to-client requests, its GET and listen streams, its running tasks.
// What it needs of the endpoint is ClusterEndpoint: the session table, the 2026-07-28
// requests in flight, the Server's change relay, the session store and the error report.
//
// Invariants (only with a shared bus; the standalone default changes nothing):
// - a client's answer to a server request that this node's copy of the session does not
//   await is not fed here (the engine would call it unknown) but published, and fed by the
//   node that awaits it; notifications/cancelled is fed here and published too;
// - CL-06: a message for a session's GET stream that this node does not hold goes to the
//   session's mailbox in the EventStore (mail), and "mail" on the bus; the node holding the
//   GET stream, or the next to open one, takes it (take) and delivers it, in order, once; a
//   session's GET stream is held by one node at a time: opening one ends the one another
//   node held;
// - a server change (list, resource, task) is applied on every node to the 2026-07-28
//   requests it serves and to the sessions it holds a copy of (after adopting the session's
//   latest snapshot): what it makes a session send goes to the mailbox under the change's
//   tag, kept once however many nodes apply it, so each client hears it exactly once;
// - CL-07: a stream this node writes and a reader on another node follows is announced
//   ("appended") each time the store has more of it, and once it is done; a task's answers
//   (tasks/update on a node that does not run it) reach the node that runs it, a task
//   cancelled elsewhere stops its handler there;
// - CL-09: the bus is at most once: a lost "mail" leaves the message in the mailbox for the
//   GET stream's next take (its next connection, or the next mail);
// - a session ended on one node (DELETE, its engine closed) is dropped by the others; a
//   node that goes idle or shuts down only drops its own copy (the session lives on in the store).

import { isJsonObject, isRequestId, type JsonObject } from "../wire/envelope.js";
import type { ServerChange } from "../peer/server/server-options.js";
import type { BusMessage, MessageBus } from "./bus.js";
import type { ResolvedHttpOptions } from "./options.js";
import { isThenable, type HttpSession, type SessionTable, type Stream } from "./session.js";
import type { Server } from "../peer/server/server.js";
import type { ServerSession } from "../peer/server/session.js";

/** What the cluster needs of its endpoint (HttpEndpoint). */
export interface ClusterEndpoint extends SessionTable {
  readonly options: Pick<ResolvedHttpOptions, "onError" | "store" | "eventStore" | "sessionId">;
  /** The Server, whose changes go through the bus when it is shared (its relay) and are applied here. */
  readonly server: Pick<Server, "relay" | "applyChange">;
  /** The 2026-07-28 requests in flight here, each with its own ServerSession. */
  readonly exchanges: Iterable<{ readonly session: ServerSession }>;
}

export class Cluster {
  readonly bus: MessageBus;
  readonly shared: boolean;
  /** Prefixes this node's stream ids, so that event ids stay unique across nodes. */
  readonly streamPrefix: string;
  /** Tags this node's changes (CL-06) and names its stream readers (CL-07), unique across nodes. */
  private counter = 0;
  /** Streams numbered so far on this node, every session's (streamNumber). */
  private streamCount = 0;

  constructor(
    private readonly endpoint: ClusterEndpoint,
    bus: MessageBus,
  ) {
    this.bus = bus;
    this.shared = bus.shared;
    // A node restarted under the same node id numbers its streams from s0 again: a nonce per start (from the
    // session-id generator, this layer's only source of randomness) keeps one event id naming one event.
    this.streamPrefix = bus.shared
      ? `${bus.nodeId}.${endpoint.options
          .sessionId()
          .replace(/[^0-9A-Za-z]/g, "")
          .slice(0, 10)}.`
      : "";
    if (!bus.shared) return;
    endpoint.server.relay = (change) => this.changed(change);
    this.settle(bus.subscribe((message) => this.receive(message)));
  }

  /** The items of a session-era POST to feed here; the answers this node does not await are published for the node that does. */
  forward(session: HttpSession, items: readonly unknown[]): unknown[] {
    if (!this.shared) return [...items];
    const kept: unknown[] = [];
    const engine = session.session.engine;
    for (const item of items) {
      if (
        isJsonObject(item) &&
        item.method === undefined &&
        isRequestId(item.id) &&
        (item.result !== undefined || item.error !== undefined) &&
        !engine.awaitsResponse(item.id)
      ) {
        this.publish({ kind: "input", session: session.id, message: item });
        continue;
      }
      if (isJsonObject(item) && item.method === "notifications/cancelled")
        this.publish({ kind: "input", session: session.id, message: item });
      kept.push(item);
    }
    return kept;
  }

  /** Whether messages for GET streams go through the session's mailbox (several processes, a store that keeps them). */
  get mails(): boolean {
    return this.shared && this.endpoint.options.eventStore.take !== undefined && this.endpoint.options.eventStore.mail !== undefined;
  }

  /** CL-06: keeps a message for the session's GET stream in its mailbox and tells the node holding the stream; false: no mailbox. */
  mailFor(session: HttpSession, message: JsonObject): boolean {
    const store = this.endpoint.options.eventStore;
    if (!this.mails || store.mail === undefined) return false;
    let kept: void | Promise<void>;
    try {
      kept = store.mail(session.id, JSON.stringify(message), session.changeTag);
    } catch (error) {
      this.endpoint.options.onError(error);
      return true;
    }
    const tell = (): void => {
      this.publish({ kind: "mail", session: session.id });
      this.take(session);
    };
    if (isThenable(kept)) kept.then(tell, (error: unknown) => this.endpoint.options.onError(error));
    else tell();
    return true;
  }

  /** CL-06: this node holds the session's open GET stream: what its mailbox holds is delivered there, in order (one take at a time). */
  take(session: HttpSession): void {
    const store = this.endpoint.options.eventStore;
    if (!this.mails || store.take === undefined) return;
    if (session.taking) {
      session.takeAgain = true;
      return;
    }
    const stream = session.standalone;
    // Only a stream with a reader (its client attached here, or following it from another node) takes: otherwise
    // the next GET, here or elsewhere, does.
    if (session.closed || stream === undefined || !stream.open || (stream.res === undefined && !stream.followed)) return;
    session.taking = true;
    session.takeAgain = false;
    const done = (texts: readonly string[]): void => {
      session.taking = false;
      this.deliverTaken(session, stream, texts);
      if (session.takeAgain) this.take(session);
    };
    let taken: readonly string[] | Promise<readonly string[]>;
    try {
      taken = store.take(session.id);
    } catch (error) {
      this.endpoint.options.onError(error);
      session.taking = false;
      return;
    }
    if (!isThenable(taken)) return done(taken);
    taken.then(done, (error: unknown) => {
      session.taking = false;
      this.endpoint.options.onError(error);
    });
  }

  private deliverTaken(session: HttpSession, stream: Stream, texts: readonly string[]): void {
    for (const text of texts) {
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        // A stand-in for a message over the store's budget (LIM-14): it was not kept.
        continue;
      }
      if (!isJsonObject(message)) continue;
      // Taken while the stream ended (another node opened one): back to the mailbox for that one.
      if (stream.open) stream.deliver(message as never);
      else this.mailFor(session, message);
    }
  }

  /** CL-07: the reader following `stream` elsewhere hears how far the store has it. */
  announce(stream: Stream): void {
    this.publish({
      kind: "appended",
      session: stream.owner.id,
      stream: stream.id,
      seq: stream.saved,
      done: stream.complete,
      reader: stream.reader,
      claims: stream.claims,
    });
  }

  /**
   * The number of a new stream of any session this node holds (CL-07): a copy of a session made
   * again here (the earlier one dropped while idle, or ended while a request was on its way)
   * must not name a stream as the earlier copy did, so with a shared bus one counter serves the
   * whole node; undefined for one process (a session's own counter, as its copy is the only one).
   */
  streamNumber(): number | undefined {
    return this.shared ? this.streamCount++ : undefined;
  }

  /** A reader id unique across the nodes (CL-07). */
  readerToken(): string {
    return `${this.bus.nodeId}.r${(this.counter++).toString(36)}`;
  }

  /** Publishes on the bus, a failure reported to onError. */
  tell(message: BusMessage): void {
    this.publish(message);
  }

  /** CL-03: this node opened the session's GET stream: the node that held it before ends its own. */
  holdsStream(session: HttpSession): void {
    if (this.shared) this.publish({ kind: "stream", session: session.id });
  }

  /** The session ended for good: the other nodes drop their copies. */
  ended(sessionId: string): void {
    if (this.shared) this.publish({ kind: "ended", session: sessionId });
  }

  /** A change on this node: every node (this one included) tells its listeners. */
  private changed(change: ServerChange): void {
    const id = `${this.bus.nodeId}.c${(this.counter++).toString(36)}`;
    this.publish({ kind: "change", change, id });
    this.apply(change, id);
  }

  private receive(message: BusMessage): void {
    try {
      this.handle(message);
    } catch (error) {
      this.endpoint.options.onError(error);
    }
  }

  private handle(message: BusMessage): void {
    if (message.kind === "change") {
      this.apply(message.change, message.id);
      return;
    }
    const session = this.endpoint.sessions.get(message.session);
    if (message.kind === "follow" && message.stream.startsWith(this.streamPrefix)) {
      this.followed(session, message);
      return;
    }
    if (session === undefined || session.closed) return;
    switch (message.kind) {
      case "ended":
        this.endpoint.endSession(session, "elsewhere");
        return;
      case "stream": {
        // The client opened its GET stream on another node: one stream per session, so this one ends.
        const held = session.standalone;
        session.standalone = undefined;
        if (held !== undefined && held.open) held.finish();
        return;
      }
      case "mail":
        this.take(session);
        return;
      case "follow":
        // Another node's reader claimed a stream a reader here followed: one reader per stream.
        if (message.claim) session.followers.get(message.stream)?.end();
        return;
      case "appended":
        session.followers.get(message.stream)?.heardFrom(message);
        return;
      case "input": {
        const m = message.message;
        if (m.method === undefined) {
          if (!isRequestId(m.id) || !session.session.engine.awaitsResponse(m.id)) return;
          session.session.receiveMessage(m);
          return;
        }
        session.session.receiveMessage(m);
        session.endCancelled(undefined, m);
        return;
      }
    }
  }

  /** CL-07: a reader on another node follows a stream this node writes (unless a client is attached here) and is kept told. */
  private followed(session: HttpSession | undefined, message: Extract<BusMessage, { kind: "follow" }>): void {
    const stream = session === undefined || session.closed ? undefined : session.streams.get(message.stream);
    if (stream === undefined) {
      // Not written here any more (ended and forgotten, or this node restarted): the store has all there is.
      this.publish({
        kind: "appended",
        session: message.session,
        stream: message.stream,
        seq: 0,
        done: true,
        reader: message.reader,
        claims: 0,
      });
      return;
    }
    // A client resumes only a stream it has lost: while one is attached here, a claim from elsewhere was made before
    // it attached (the bus delayed it), so the claimant is told whom the writer serves and the client here keeps its stream.
    if (message.claim && stream.res === undefined) {
      stream.reader = message.reader;
      stream.claims++;
      stream.followed = true;
    }
    this.announce(stream);
    // CL-06: a GET stream with a reader again takes what waited in the mailbox.
    if (message.claim && session !== undefined && stream === session.standalone) this.take(session);
  }

  /** A change told to this node's 2026-07-28 requests and to the sessions it holds (after their latest snapshot), through their mailboxes. */
  private apply(change: ServerChange, id?: string): void {
    const server = this.endpoint.server;
    // Answers for a task this node may run: once, not once per session.
    if (change.kind === "taskInput") return server.applyChange(change, []);
    const modern: ServerSession[] = [];
    for (const exchange of this.endpoint.exchanges) modern.push(exchange.session);
    server.applyChange(change, modern);
    const mails = this.mails && id !== undefined;
    for (const session of this.endpoint.sessions.values()) {
      if (session.closed || (!mails && (session.standalone === undefined || !session.standalone.open))) continue;
      this.endpoint.options.store.get(session.id).then(
        (snapshot) => {
          if (session.closed) return;
          if (snapshot !== undefined) session.session.engine.adopt(snapshot);
          else if (mails) return;
          session.changeTag = mails ? id : undefined;
          try {
            server.applyChange(change, [session.session]);
          } finally {
            session.changeTag = undefined;
          }
        },
        (error: unknown) => this.endpoint.options.onError(error),
      );
    }
  }

  private publish(message: BusMessage): void {
    try {
      this.settle(this.bus.publish(message));
    } catch (error) {
      this.endpoint.options.onError(error);
    }
  }

  private settle(result: void | Promise<void>): void {
    if (isThenable(result)) result.then(undefined, (error: unknown) => this.endpoint.options.onError(error));
  }

  close(): void {
    if (!this.shared) return;
    if (this.endpoint.server.relay !== undefined) this.endpoint.server.relay = undefined;
    try {
      this.settle(this.bus.close?.());
    } catch (error) {
      this.endpoint.options.onError(error);
    }
  }
}
