// mcp-engine/stores/redis: the stores of the Streamable HTTP handler and of the tasks
// extension on Redis, so that several processes behind a load balancer serve as one
// (createHttpHandler(server, { store, eventStore, bus }), ServerOptions.tasks.store). No
// Redis package is imported: the user's connected client is taken by shape
// (redis-client.ts; node-redis v5/v6 fits as it is).
//
// Keys and channels (prefix P, default "mcp:"; every TTL is an option):
//   P session:<sessionId>   string, the session's EngineSnapshot as JSON; PX sessionTtlMs
//                           (default 30 min), renewed by every put and every get (GETEX)
//   P events:<sessionId>    stream, one entry per SSE event {s: stream id, q: seq, t: frame};
//                           MAXLEN maxEventsPerSession (default 10000); PX eventTtlMs
//                           (default 30 min) renewed by every append; DEL when the session ends
//   P task:<taskId>         hash, one JSON-encoded field per StoredTask field; PX from creation
//                           ttlMs + taskGraceMs (default 60 s), untimedTaskTtlMs (default 24 h)
//                           for a task without TTL
//   P keys:<name>           string, a shared secret (sharedSecret(): requestState, cursors); no TTL
//   P bus                   pub/sub channel: "<nodeId> <BusMessage JSON>", at most maxMessageBytes;
//                           kinds input (a client's answer or cancellation for the node that awaits
//                           it), deliver (a message for the node holding the GET stream), stream
//                           (this node holds the GET stream now), change (list, resource, task,
//                           task answers), ended (the session ended everywhere)
//
// Stateless (2026-07-28 only, eras "modern") nodes need the bus, the task store and a shared
// requestState key only: no session is kept, so no session or event store.
//
// Invariants:
// - stream events are in a Redis Stream, written by the node that holds the stream, so an
//   event is replayable whoever listens (or nobody) when it was published; the bus only
//   reaches live processes and carries nothing that must outlive one;
// - task create is strongly consistent (one atomic script: refused when the id exists;
//   resolved once Redis has it) and an ended task stays ended: an update of a completed,
//   failed or cancelled task changes nothing (a late handler outcome cannot undo a cancel
//   made on another node);
// - ids from peers (session, task) reach Redis only if keyPartOk, else they are unknown;
//   nothing a peer sends becomes a key of a plain object.

import type { EngineSnapshot } from "../engine/engine.js";
import { isJsonObject } from "../wire/envelope.js";
import { parseBusMessage, type BusMessage, type MessageBus } from "../http-server/bus.js";
import type { EventStore, SessionStore, StoredEvent } from "../http-server/options.js";
import { wallClock } from "../hosts/web/runtime.js";
import {
  bound,
  keyPartOk,
  randomId,
  replyText,
  type RedisClientLike,
  type RedisCommander,
  type RedisKeys,
  type RedisSubscriber,
} from "./redis-client.js";

export type { RedisClientLike, RedisCommander, RedisKeys, RedisSubscriber } from "./redis-client.js";
export { RedisTaskStore, type RedisTaskStoreOptions } from "./redis-tasks.js";
import type { HttpTimers } from "../peer/shared/timers.js";

const prefixOf = (options: RedisKeys | undefined): string => options?.prefix ?? "mcp:";

export interface RedisSessionStoreOptions extends RedisKeys {
  /** How long a session is kept after its last use (put or get), ms. Default 1800000 (30 min). */
  sessionTtlMs?: number;
  /** Largest snapshot accepted on get (a corrupt or foreign value is not parsed beyond it), bytes. Default 1 MiB. */
  maxSnapshotBytes?: number;
}

/**
 * SessionStore on Redis: one string key per session, with a sliding TTL. Every node reads the
 * latest snapshot from here, and a session the store no longer holds is unknown on every node
 * (RULES.md CL-01); deleting it ends it for all of them (CL-04).
 */
export class RedisSessionStore implements SessionStore {
  private readonly prefix: string;
  private readonly ttl: string;
  private readonly maxBytes: number;

  constructor(
    private readonly client: RedisCommander,
    options: RedisSessionStoreOptions = {},
  ) {
    this.prefix = `${prefixOf(options)}session:`;
    this.ttl = String(bound(options.sessionTtlMs, 1_800_000));
    this.maxBytes = bound(options.maxSnapshotBytes, 1 << 20);
  }

  async get(id: string): Promise<EngineSnapshot | undefined> {
    if (!keyPartOk(id)) return undefined;
    const text = replyText(await this.client.sendCommand(["GETEX", this.prefix + id, "PX", this.ttl]));
    if (text === undefined || text.length > this.maxBytes) return undefined;
    try {
      const value: unknown = JSON.parse(text);
      return isJsonObject(value) && value.format === 1 ? (value as unknown as EngineSnapshot) : undefined;
    } catch {
      return undefined;
    }
  }

  async put(id: string, snapshot: EngineSnapshot): Promise<void> {
    if (!keyPartOk(id))
      throw new RangeError(
        `redis session store: expected a session id of 1 to 256 visible ASCII characters; got ${JSON.stringify(id).slice(0, 80)}`,
      );
    await this.client.sendCommand(["SET", this.prefix + id, JSON.stringify(snapshot), "PX", this.ttl]);
  }

  async delete(id: string): Promise<void> {
    if (!keyPartOk(id)) return;
    await this.client.sendCommand(["DEL", this.prefix + id]);
  }
}

export interface RedisEventStoreOptions extends RedisKeys {
  /** Events kept per session (all its streams together; the oldest trimmed). Default 10000. */
  maxEventsPerSession?: number;
  /** How long a session's events are kept after its last event, ms. Default 1800000 (30 min). */
  eventTtlMs?: number;
}

/** EventStore on Redis Streams: one stream per session, each entry naming its SSE stream and sequence number; bounded and expiring (LIM-12). */
export class RedisEventStore implements EventStore {
  private readonly prefix: string;
  private readonly maxEvents: string;
  private readonly ttl: string;

  constructor(
    private readonly client: RedisCommander,
    options: RedisEventStoreOptions = {},
  ) {
    this.prefix = `${prefixOf(options)}events:`;
    this.maxEvents = String(bound(options.maxEventsPerSession, 10_000));
    this.ttl = String(bound(options.eventTtlMs, 1_800_000));
  }

  async append(sessionId: string, streamId: string, event: StoredEvent): Promise<void> {
    if (!keyPartOk(sessionId) || !keyPartOk(streamId)) return;
    const key = this.prefix + sessionId;
    // Two commands in a row on one connection: Redis runs them in order; the TTL slides with each event.
    await Promise.all([
      this.client.sendCommand(["XADD", key, "MAXLEN", this.maxEvents, "*", "s", streamId, "q", String(event.seq), "t", event.text]),
      this.client.sendCommand(["PEXPIRE", key, this.ttl]),
    ]);
  }

  async replay(sessionId: string, streamId: string, after: number): Promise<readonly StoredEvent[] | undefined> {
    if (!keyPartOk(sessionId) || !keyPartOk(streamId)) return undefined;
    const reply = await this.client.sendCommand(["XRANGE", this.prefix + sessionId, "-", "+"]);
    if (!Array.isArray(reply)) return undefined;
    let known = false;
    const events: StoredEvent[] = [];
    for (const entry of reply) {
      const fields = Array.isArray(entry) ? entryFields(entry[1]) : undefined;
      if (fields === undefined || fields.s !== streamId) continue;
      known = true;
      const seq = Number(fields.q);
      if (Number.isSafeInteger(seq) && seq > after && fields.t !== undefined) events.push({ seq, text: fields.t });
    }
    return known ? events.sort((a, b) => a.seq - b.seq) : undefined;
  }

  async forget(sessionId: string): Promise<void> {
    if (!keyPartOk(sessionId)) return;
    await this.client.sendCommand(["DEL", this.prefix + sessionId]);
  }
}

/** The s, q and t fields of one stream entry (a flat array of pairs). */
function entryFields(value: unknown): { s?: string; q?: string; t?: string } | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: { s?: string; q?: string; t?: string } = {};
  for (let i = 0; i + 1 < value.length; i += 2) {
    const field = replyText(value[i]);
    const text = replyText(value[i + 1]);
    if (text === undefined) continue;
    if (field === "s") out.s = text;
    else if (field === "q") out.q = text;
    else if (field === "t") out.t = text;
  }
  return out;
}

export interface RedisBusOptions extends RedisKeys {
  /** This node's id (visible ASCII, no ":" or space). Default: random. */
  nodeId?: string;
  /** Largest message published or accepted, characters of JSON. Default 1 MiB. */
  maxMessageBytes?: number;
}

/**
 * MessageBus on Redis pub/sub (channel P bus): what must reach a live process. The
 * subscriber is the client's duplicate(), connected on subscribe().
 */
export class RedisBus implements MessageBus {
  readonly nodeId: string;
  readonly shared = true;
  private readonly channel: string;
  private readonly maxBytes: number;
  private subscriber: RedisSubscriber | undefined;

  constructor(
    private readonly client: RedisClientLike,
    options: RedisBusOptions = {},
  ) {
    const id = options.nodeId ?? randomId();
    if (!keyPartOk(id) || /[: ]/.test(id))
      throw new RangeError(`redis bus: expected a node id of visible ASCII without ":" or spaces; got ${JSON.stringify(id)}`);
    this.nodeId = id;
    this.channel = `${prefixOf(options)}bus`;
    this.maxBytes = bound(options.maxMessageBytes, 1 << 20);
  }

  async publish(message: BusMessage): Promise<void> {
    const text = JSON.stringify(message);
    if (text.length > this.maxBytes)
      throw new RangeError(`redis bus: a message of at most ${this.maxBytes} bytes (maxMessageBytes); got ${text.length}`);
    await this.client.sendCommand(["PUBLISH", this.channel, `${this.nodeId} ${text}`]);
  }

  async subscribe(listener: (message: BusMessage) => void): Promise<void> {
    const subscriber = this.client.duplicate();
    this.subscriber = subscriber;
    await subscriber.connect();
    await subscriber.subscribe(this.channel, (raw) => {
      if (typeof raw !== "string" || raw.length > this.maxBytes + 300) return;
      const space = raw.indexOf(" ");
      // Our own messages come back too: this node acted on them already.
      if (space <= 0 || raw.slice(0, space) === this.nodeId) return;
      // CL-02: a bus message of another kind or shape is dropped.
      const message = parseBusMessage(raw.slice(space + 1));
      if (message !== undefined) listener(message);
    });
  }

  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (subscriber === undefined) return;
    try {
      await subscriber.unsubscribe(this.channel);
    } finally {
      await subscriber.close();
    }
  }
}

export interface RedisStoresOptions extends RedisSessionStoreOptions, RedisEventStoreOptions, RedisBusOptions {}

/** The wall clock with the runtime's timers (lib/hosts/web/runtime.ts: the clock lives with the hosts). */
export { wallClock };

/** The options of createHttpHandler / serveHttp that make processes share sessions, on one client (and the wall clock). */
export function redisHttpStores(
  client: RedisClientLike,
  options: RedisStoresOptions = {},
): { store: RedisSessionStore; eventStore: RedisEventStore; bus: RedisBus; timers: HttpTimers } {
  return {
    store: new RedisSessionStore(client, options),
    eventStore: new RedisEventStore(client, options),
    bus: new RedisBus(client, options),
    timers: wallClock,
  };
}

/**
 * A secret every node shares (the requestState sealing key, the pagination key), kept under
 * P keys:<name>: the first node to ask makes it (`bytes` random bytes), the others read it.
 */
export async function sharedSecret(
  client: RedisCommander,
  name: string,
  options: RedisKeys & { bytes?: number } = {},
): Promise<Uint8Array> {
  if (!keyPartOk(name)) throw new RangeError(`shared secret: expected a name of visible ASCII; got ${JSON.stringify(name)}`);
  const size = bound(options.bytes, 32);
  const fresh = new Uint8Array(size);
  (globalThis as unknown as { crypto: { getRandomValues(bytes: Uint8Array): Uint8Array } }).crypto.getRandomValues(fresh);
  const key = `${prefixOf(options)}keys:${name}`;
  await client.sendCommand(["SET", key, toHex(fresh), "NX"]);
  const stored = replyText(await client.sendCommand(["GET", key]));
  if (stored === undefined || !/^(?:[0-9a-f]{2})+$/.test(stored))
    throw new Error(`shared secret: expected hex text under ${key}; got ${stored === undefined ? "nothing" : "something else"}`);
  const bytes = new Uint8Array(stored.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(stored.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}
