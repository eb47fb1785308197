// mcp-engine/stores/redis: the stores of the Streamable HTTP handler and of the tasks
// extension on Redis, so that several processes behind a load balancer serve as one
// (createHttpHandler(server, { store, eventStore, bus }), ServerOptions.tasks.store). No
// Redis package is imported: the user's connected client is taken by shape
// (redis-client.ts; node-redis v5/v6 fits as it is). One Redis (or a primary with replicas):
// the budget scripts touch keys they compute, which Redis Cluster does not allow.
//
// Keys and channels (prefix P, default "mcp:"; every TTL and budget is an option; <sid> a
// session id, <st> a stream id, <tid> a task id, none of them holding a space):
//   P session:<sid>         string, the session's EngineSnapshot as JSON, at most maxSnapshotBytes
//                           (default 1 MiB); PX sessionTtlMs (default 30 min), renewed by every put
//                           and every get (GETEX)
//   P sessiondeadlines      sorted set, <sid> -> when its snapshot expires (Redis clock, ms; a get
//                           renews the key, not this: the sweep follows the key's PTTL)
//   P sessionbytes          hash, <sid> -> its snapshot's bytes; " total" -> their sum, at most
//                           maxTotalSnapshotBytes (default 64 MiB) for a new session (LIM-15)
//   P events:<sid> <st>     stream, one entry per SSE event of stream <st> {q: seq, o: when it was
//                           appended (Redis clock, µs), t: frame}; PX eventTtlMs (default 30 min)
//                           renewed by every append to it; once the stream was answered and read,
//                           PX endedStreamTtlMs (default 10 s, CL-05)
//   P eventorder:<sid>      sorted set, <st> -> when its oldest kept event was appended (µs): the
//                           session's eviction order; PX eventTtlMs, renewed by every append
//   P eventsize:<sid>       hash {bytes, events} of the session's current streams, at most
//                           maxSessionEventBytes (default 4 MiB) and maxEventsPerSession (default
//                           10000); PX eventTtlMs, renewed by every append
//   P eventdeadlines        sorted set, "<sid> <st>" -> when the stream's events expire (µs): the
//                           sweep and the total budget's eviction order
//   P eventbytes            hash, "<sid> <st>" -> the stream's bytes; " total" -> all streams'
//                           bytes, at most maxTotalEventBytes (default 64 MiB) (LIM-14)
//   P eventcounts           hash, "<sid> <st>" -> the stream's events
//   P task:<tid>            hash, one JSON-encoded field per StoredTask field, at most maxTaskBytes
//                           (default 4 MiB); PX from creation ttlMs + taskGraceMs (default 60 s),
//                           untimedTaskTtlMs (default 24 h) for a task without TTL
//   P taskdeadlines         sorted set, <tid> -> when its hash expires (ms)
//   P tasksended            sorted set, <tid> -> when it completed, failed or was cancelled (ms)
//   P taskbytes             hash, <tid> -> the task's bytes; " total" -> their sum, at most
//                           maxTotalTaskBytes (default 64 MiB) (LIM-16)
//   P events:<sid> mailbox  stream, the session's mailbox (CL-06): messages for its GET stream
//   P mailtags:<sid>        sorted set, the tags of the last 256 changes mailed (CL-06); PX eventTtlMs
//   P requestids:<sid>      counter, the request-id blocks handed out (CL-08); gone with the session
//   P taskowner:<owner>     sorted set, <tid> -> createdAt (ms): the tasks of one owner (core
//                           tasks, TK-10; <owner> the JSON of StoredTask.owner), for list()
//   P taskowners            hash, <tid> -> its owner's JSON (so a forgotten task leaves its index)
//   P keys:<name>           string, a shared secret (sharedSecret(): requestState, cursors); no TTL
//   P bus                   pub/sub channel: "<nodeId> <BusMessage JSON>", at most maxMessageBytes;
//                           kinds input (a client's answer or cancellation for the node that awaits
//                           it), mail (the session's mailbox has something, CL-06), follow and
//                           appended (a resumed stream followed on another node, CL-07), stream
//                           (this node holds the GET stream now), change (list, resource, task,
//                           task answers), ended (the session ended everywhere)
// Indexes and counters have no TTL: an entry goes with what it counts (the sweep at the start
// of every budget script takes off what Redis expired), and an empty one is no key at all.
//
// Stateless (2026-07-28 only, eras "modern") nodes need the bus, the task store and a shared
// requestState key only: no session is kept, so no session or event store.
//
// Invariants:
// - stream events are in Redis Streams, written by the node that holds the stream, so an
//   event is replayable whoever listens (or nobody) when it was published; the bus only
//   reaches live processes and carries nothing that must outlive one;
// - every budget is checked and applied in the script that writes what it bounds (one atomic
//   step, whichever nodes write at once): Redis holds at most the sum of the three totals,
//   plus what sessions already admitted grow by (LIM-15) and the stand-ins of refused values;
// - task create is strongly consistent (one atomic script: refused when the id exists;
//   resolved once Redis has it) and an ended task stays ended: an update of a completed,
//   failed or cancelled task changes nothing (a late handler outcome cannot undo a cancel
//   made on another node);
// - ids from peers (session, task) reach Redis only if keyPartOk, else they are unknown;
//   nothing a peer sends becomes a key of a plain object.

import type { EngineSnapshot } from "../engine/engine.js";
import { isJsonObject } from "../wire/envelope.js";
import { parseBusMessage, type BusMessage, type MessageBus } from "../http-server/bus.js";
import { REQUEST_ID_BLOCK, type SessionStore } from "../http-server/options.js";
import { byteLength } from "../http-server/channel.js";
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
import { replyNumber, runScript } from "./redis-lua.js";
import { RedisEventStore, type RedisEventStoreOptions } from "./redis-events.js";

export type { RedisClientLike, RedisCommander, RedisKeys, RedisSubscriber } from "./redis-client.js";
export { RedisTaskStore, type RedisTaskStoreOptions } from "./redis-tasks.js";
export { RedisEventStore, type RedisEventStoreOptions } from "./redis-events.js";
import type { HttpTimers } from "../peer/shared/timers.js";

const prefixOf = (options: RedisKeys | undefined): string => options?.prefix ?? "mcp:";

export interface RedisSessionStoreOptions extends RedisKeys {
  /** How long a session is kept after its last use (put or get), ms. Default 1800000 (30 min). */
  sessionTtlMs?: number;
  /** Largest snapshot kept (put) or read (get), UTF-8 bytes (LIM-15). Default 1 MiB. */
  maxSnapshotBytes?: number;
  /** Bytes of all sessions' snapshots, past which a new session is refused (LIM-15). Default 64 MiB. */
  maxTotalSnapshotBytes?: number;
}

/** Sessions past their deadline a script sweeps before its own work, at most. */
const SWEEP = 256;

/**
 * The session store's keys and counters. forgetSize() takes a session off the count; sweep()
 * does it for the sessions past their deadline whose key is gone, and moves the deadline of
 * those a get renewed (GETEX renews the key alone, so the hot path stays one command).
 */
const SESSION_LUA = `local SD, SB = P .. 'sessiondeadlines', P .. 'sessionbytes'
local function snapshotKey(sid) return P .. 'session:' .. sid end
local function forgetSize(sid)
  bump(SB, TOTAL, -counted(SB, sid))
  redis.call('HDEL', SB, sid)
  redis.call('ZREM', SD, sid)
  redis.call('DEL', P .. 'requestids:' .. sid)
end
local function sweep(now, limit, ttl)
  for _, sid in ipairs(redis.call('ZRANGEBYSCORE', SD, '-inf', now, 'LIMIT', 0, limit)) do
    local left = redis.call('PTTL', snapshotKey(sid))
    if left > 0 then redis.call('ZADD', SD, now + left, sid)
    elseif left == -1 then redis.call('ZADD', SD, now + ttl, sid)
    else forgetSize(sid) end
  end
end
`;

/**
 * ARGV: 2 session, 3 snapshot, 4 ttl, 5 total bytes, 6 sweep, 7 "1": only an update (CL-04).
 * 1 kept, 0 refused (a new session past the total), 2 not kept (an update of a session gone).
 */
const PUT_SESSION = `${SESSION_LUA}
local sid, text, ttl = ARGV[2], ARGV[3], tonumber(ARGV[4])
local now = clock()
sweep(now, tonumber(ARGV[6]), ttl)
local key = snapshotKey(sid)
if redis.call('EXISTS', key) == 0 then
  if ARGV[7] == '1' then return 2 end
  forgetSize(sid)
  if counted(SB, TOTAL) + #text > tonumber(ARGV[5]) then return 0 end
end
redis.call('SET', key, text, 'PX', ttl)
bump(SB, TOTAL, #text - counted(SB, sid))
redis.call('HSET', SB, sid, #text)
redis.call('ZADD', SD, now + ttl, sid)
return 1`;

/** ARGV: 2 session, 3 ttl, 4 sweep. */
const DELETE_SESSION = `${SESSION_LUA}
local sid = ARGV[2]
sweep(clock(), tonumber(ARGV[4]), tonumber(ARGV[3]))
redis.call('DEL', snapshotKey(sid))
forgetSize(sid)
return 1`;

/** CL-08, ARGV: 2 session, 3 ttl, 4 sweep. The session's next request-id block (1, 2, …), or 0 when the store holds no such session. */
const RESERVE_IDS = `${SESSION_LUA}
local sid = ARGV[2]
sweep(clock(), tonumber(ARGV[4]), tonumber(ARGV[3]))
if redis.call('EXISTS', snapshotKey(sid)) == 0 then return 0 end
return redis.call('INCR', P .. 'requestids:' .. sid)`;

/**
 * SessionStore on Redis: one string key per session, with a sliding TTL. Every node reads the
 * latest snapshot from here, and a session the store no longer holds is unknown on every node
 * (RULES.md CL-01); deleting it ends it for all of them (CL-04). Bounded by bytes (LIM-15): a
 * snapshot over maxSnapshotBytes is not kept (the session leaves the store, as a get would not
 * read it), and a new session is refused while the snapshots kept fill maxTotalSnapshotBytes.
 */
export class RedisSessionStore implements SessionStore {
  private readonly prefix: string;
  private readonly ttl: string;
  private readonly maxBytes: number;
  private readonly maxTotalBytes: number;

  constructor(
    private readonly client: RedisCommander,
    options: RedisSessionStoreOptions = {},
  ) {
    this.prefix = prefixOf(options);
    this.ttl = String(bound(options.sessionTtlMs, 1_800_000));
    this.maxTotalBytes = bound(options.maxTotalSnapshotBytes, 64 << 20);
    this.maxBytes = Math.min(bound(options.maxSnapshotBytes, 1 << 20), this.maxTotalBytes);
  }

  async get(id: string): Promise<EngineSnapshot | undefined> {
    if (!keyPartOk(id)) return undefined;
    const text = replyText(await this.client.sendCommand(["GETEX", `${this.prefix}session:${id}`, "PX", this.ttl]));
    if (text === undefined || text.length > this.maxBytes) return undefined;
    try {
      const value: unknown = JSON.parse(text);
      return isJsonObject(value) && value.format === 1 ? (value as unknown as EngineSnapshot) : undefined;
    } catch {
      return undefined;
    }
  }

  async put(id: string, snapshot: EngineSnapshot, update = false): Promise<boolean> {
    if (!keyPartOk(id))
      throw new RangeError(
        `redis session store: expected a session id of 1 to 256 visible ASCII characters; got ${JSON.stringify(id).slice(0, 80)}`,
      );
    const text = JSON.stringify(snapshot);
    const size = byteLength(text);
    if (size > this.maxBytes) {
      // The snapshot kept before is no longer the session's state: no node may carry on from it.
      await this.delete(id);
      throw new RangeError(
        `[LIM-15] redis session store: expected a snapshot of at most ${this.maxBytes} bytes (maxSnapshotBytes); got ${size}: the session is no longer kept`,
      );
    }
    const kept = replyNumber(
      await runScript(this.client, PUT_SESSION, this.prefix, [
        id,
        text,
        this.ttl,
        String(this.maxTotalBytes),
        String(SWEEP),
        update ? "1" : "0",
      ]),
    );
    // CL-04: the session ended (or expired) since this node read it: it stays gone.
    if (kept === 2) return false;
    if (kept !== 1)
      throw new RangeError(
        `[LIM-15] redis session store: expected room for a new session of ${size} bytes within maxTotalSnapshotBytes (${this.maxTotalBytes}); got none: the sessions kept fill it`,
      );
    return true;
  }

  /** CL-08: the first id of a block of REQUEST_ID_BLOCK no other node gets for this session (P requestids:<sid>, gone with it). */
  async reserveRequestIds(id: string): Promise<number | undefined> {
    if (!keyPartOk(id)) return undefined;
    const block = replyNumber(await runScript(this.client, RESERVE_IDS, this.prefix, [id, this.ttl, String(SWEEP)]));
    return Number.isSafeInteger(block) && block > 0 ? block * REQUEST_ID_BLOCK : undefined;
  }

  async delete(id: string): Promise<void> {
    if (!keyPartOk(id)) return;
    await runScript(this.client, DELETE_SESSION, this.prefix, [id, this.ttl, String(SWEEP)]);
  }
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
