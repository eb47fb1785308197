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
// - a message for a session's GET stream that this node does not hold is published to the
//   node that holds it (none holding one: it is dropped, as the spec allows without a GET
//   stream); a session's GET stream is held by one node at a time: opening one ends the
//   one another node held;
// - a server change (list, resource, task) is applied on every node to the 2026-07-28
//   requests it serves and to the sessions whose GET stream it holds (after adopting the
//   session's latest snapshot), so each client hears it exactly once; a task's answers
//   (tasks/update on a node that does not run it) reach the node that runs it, a task
//   cancelled elsewhere stops its handler there;
// - a session ended on one node (DELETE, its engine closed) is dropped by the others; a
//   node that goes idle or shuts down only drops its own copy (the session lives on in the store).

import { isJsonObject, isRequestId, type JsonObject } from "../wire/envelope.js";
import type { ServerChange } from "../peer/server/server-options.js";
import type { BusMessage, MessageBus } from "./bus.js";
import type { ResolvedHttpOptions } from "./options.js";
import { isThenable, type HttpSession, type SessionTable } from "./session.js";
import type { Server } from "../peer/server/server.js";
import type { ServerSession } from "../peer/server/session.js";

/** What the cluster needs of its endpoint (HttpEndpoint). */
export interface ClusterEndpoint extends SessionTable {
  readonly options: Pick<ResolvedHttpOptions, "onError" | "store">;
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

  constructor(
    private readonly endpoint: ClusterEndpoint,
    bus: MessageBus,
  ) {
    this.bus = bus;
    this.shared = bus.shared;
    this.streamPrefix = bus.shared ? `${bus.nodeId}.` : "";
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

  /** A message for the GET stream, which this node does not hold: true when it was published to the node that does. */
  deliverElsewhere(session: HttpSession, message: JsonObject): boolean {
    if (!this.shared) return false;
    this.publish({ kind: "deliver", session: session.id, message });
    return true;
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
    this.publish({ kind: "change", change });
    this.apply(change);
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
      this.apply(message.change);
      return;
    }
    const session = this.endpoint.sessions.get(message.session);
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
      case "deliver": {
        const stream = session.standalone;
        if (stream !== undefined && stream.open) stream.deliver(message.message as never);
        return;
      }
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

  /** A change told to this node's 2026-07-28 requests and to the sessions whose GET stream it holds (after their latest snapshot). */
  private apply(change: ServerChange): void {
    const server = this.endpoint.server;
    // Answers for a task this node may run: once, not once per session.
    if (change.kind === "taskInput") return server.applyChange(change, []);
    const modern: ServerSession[] = [];
    for (const exchange of this.endpoint.exchanges) modern.push(exchange.session);
    server.applyChange(change, modern);
    for (const session of this.endpoint.sessions.values()) {
      if (session.closed || session.standalone === undefined || !session.standalone.open) continue;
      this.endpoint.options.store.get(session.id).then(
        (snapshot) => {
          if (session.closed) return;
          if (snapshot !== undefined) session.session.engine.adopt(snapshot);
          server.applyChange(change, [session.session]);
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
