// The EventStore of the Streamable HTTP handler on Redis (what a client resuming an SSE
// stream with Last-Event-ID is replayed), bounded by bytes (RULES.md LIM-14) and releasing
// what an answered stream no longer needs (CL-05). The keys are listed in redis.ts; here:
// one Redis Stream per SSE stream, a per-session order and size, and three indexes over all
// sessions that the budgets and the expiry sweep walk.
//
// Invariants:
// - every byte kept is counted three times (its stream, its session, the store's total), and
//   each count changes only inside a script together with what it counts, so that nodes
//   appending at once never see a budget half applied;
// - an event counts what Redis takes for it (eventCost: its frame's UTF-8 bytes rounded up as
//   the allocator does, plus the entry's own), a stream STREAM_OVERHEAD more; a frame over
//   maxEventBytes is never stored: a small stand-in is (unkeptFrame);
// - after an append, the session is within maxSessionEventBytes and maxEventsPerSession (its
//   oldest events evicted first) and the store within maxTotalEventBytes (the oldest events
//   of the stream with the earliest deadline first: released streams, then the streams least
//   recently appended to); the event just appended is never the one evicted;
// - a count whose keys Redis expired on its own is taken off by the sweep that opens every
//   script (the streams past their deadline, SWEEP at a time); with more due at once, the
//   rest go first in the total's eviction order (by deadline), and within a session they can
//   only make eviction come early, never let a budget be passed.

import { MAIL_TAGS, MAILBOX, type EventStore, type StoredEvent } from "../http-server/options.js";
import { byteLength } from "../http-server/channel.js";
import { eventId } from "../http/server-rules.js";
import { sseMessage } from "../http/sse-encoder.js";
import { isJsonObject } from "../wire/envelope.js";
import { bound, keyPartOk, replyText, type RedisCommander, type RedisKeys } from "./redis-client.js";
import { allocationOf, runScript } from "./redis-lua.js";

/** What an event costs beyond its frame (the stream entry, its id and field names), bytes. */
export const EVENT_OVERHEAD = 64;
/** What a stream costs beyond its events (its key, the 4 KiB Redis gives a new stream, its entries in the indexes), bytes. */
export const STREAM_OVERHEAD = 5120;

/** What an event of `frameBytes` counts against the budgets (measured against used_memory: never less than Redis takes). */
export function eventCost(frameBytes: number): number {
  return allocationOf(frameBytes + EVENT_OVERHEAD) + EVENT_OVERHEAD;
}
/** Streams past their deadline a script sweeps before its own work, at most. */
const SWEEP = 256;

export interface RedisEventStoreOptions extends RedisKeys {
  /** Events kept per session (all its streams together; the oldest evicted). Default 10000. */
  maxEventsPerSession?: number;
  /** How long a stream's events are kept after its last event, ms. Default 1800000 (30 min). */
  eventTtlMs?: number;
  /** Largest event frame kept, UTF-8 bytes; a larger one is kept as a stand-in (LIM-14). Default 1 MiB. */
  maxEventBytes?: number;
  /** Bytes kept per session, all its streams together (the oldest events evicted). Default 4 MiB. */
  maxSessionEventBytes?: number;
  /** Bytes kept over all sessions (the oldest events of the stream with the earliest deadline evicted). Default 64 MiB. */
  maxTotalEventBytes?: number;
  /** How long an answered stream's events stay once its client read them to the end (CL-05), ms; 0: deleted at once. Default 10000. */
  endedStreamTtlMs?: number;
}

/**
 * The event store's keys and counters, shared by its scripts. count() adds to a stream, its
 * session (when the stream is one of the session's current streams: a session whose keys
 * expired starts afresh) and the total; drop() forgets a stream and what it counted; sweep()
 * drops the streams past their deadline; evict() takes the oldest event of a stream (the
 * whole stream with its last), unless that event is `keep`, and says whether it did.
 */
const EVENT_LUA = `local D, B, C = P .. 'eventdeadlines', P .. 'eventbytes', P .. 'eventcounts'
local function dataKey(sid, st) return P .. 'events:' .. sid .. ' ' .. st end
local function orderKey(sid) return P .. 'eventorder:' .. sid end
local function sizeKey(sid) return P .. 'eventsize:' .. sid end
local function cost(frame) return allocation(#frame + ${EVENT_OVERHEAD}) + ${EVENT_OVERHEAD} end
local function isCurrent(sid, st) return redis.call('ZSCORE', orderKey(sid), st) ~= false end
local function count(sid, st, bytes, events, current)
  local member = sid .. ' ' .. st
  bump(B, member, bytes)
  bump(C, member, events)
  if current then
    bump(sizeKey(sid), 'bytes', bytes)
    bump(sizeKey(sid), 'events', events)
  end
  bump(B, TOTAL, bytes)
end
local function drop(sid, st)
  local member = sid .. ' ' .. st
  count(sid, st, -counted(B, member), -counted(C, member), isCurrent(sid, st))
  redis.call('DEL', dataKey(sid, st))
  redis.call('ZREM', orderKey(sid), st)
  redis.call('ZREM', D, member)
end
local function sweep(now, limit)
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', D, '-inf', now, 'LIMIT', 0, limit)) do
    local sid, st = split(member)
    drop(sid, st)
  end
end
local function field(fields, name)
  for i = 1, #fields, 2 do
    if fields[i] == name then return fields[i + 1] end
  end
  return ''
end
local function evict(sid, st, keep)
  local key = dataKey(sid, st)
  local entries = redis.call('XRANGE', key, '-', '+', 'COUNT', 2)
  if #entries > 0 and entries[1][1] == keep then return false end
  if #entries < 2 then
    drop(sid, st)
    return true
  end
  redis.call('XDEL', key, entries[1][1])
  local current = isCurrent(sid, st)
  count(sid, st, -cost(field(entries[1][2], 't')), -1, current)
  if current then redis.call('ZADD', orderKey(sid), 'XX', tonumber(field(entries[2][2], 'o')) or 0, st) end
  return true
end
`;

/** ARGV: 2 session, 3 stream, 4 seq, 5 frame, 6 ttl, 7 session bytes, 8 session events, 9 total bytes, 10 sweep. The entry id. */
const APPEND_BODY = `
local sid, st, ttl = ARGV[2], ARGV[3], tonumber(ARGV[6])
local now = micros()
sweep(now, tonumber(ARGV[10]))
local member = sid .. ' ' .. st
local due = redis.call('ZSCORE', D, member)
if due and tonumber(due) <= now then drop(sid, st) end
local key, order, size = dataKey(sid, st), orderKey(sid), sizeKey(sid)
local id = redis.call('XADD', key, '*', 'q', ARGV[4], 'o', now, 't', ARGV[5])
local added = cost(ARGV[5])
if redis.call('ZADD', order, 'NX', now, st) == 1 then added = added + ${STREAM_OVERHEAD} end
count(sid, st, added, 1, true)
redis.call('ZADD', D, now + ttl * 1000, member)
redis.call('PEXPIRE', key, ttl)
redis.call('PEXPIRE', order, ttl)
redis.call('PEXPIRE', size, ttl)
local maxBytes, maxEvents, i = tonumber(ARGV[7]), tonumber(ARGV[8]), 0
while counted(size, 'bytes') > maxBytes or counted(size, 'events') > maxEvents do
  local victim = redis.call('ZRANGE', order, i, i)[1]
  if not victim then break end
  if not evict(sid, victim, id) then i = i + 1 end
end
local maxTotal = tonumber(ARGV[9])
i = 0
while counted(B, TOTAL) > maxTotal do
  local victim = redis.call('ZRANGE', D, i, i)[1]
  if not victim then break end
  local vsid, vst = split(victim)
  if not evict(vsid, vst, id) then i = i + 1 end
end
return id`;
const APPEND = EVENT_LUA + APPEND_BODY;

/**
 * CL-06: APPEND to the session's mailbox (stream ${"`"}mailbox${"`"}), ARGV 11 a tag ('' none): a tag
 * among the session's last ${MAIL_TAGS} (P mailtags:<sid>, a sorted set living as long as its
 * events) is not kept again. The entry id, or 0.
 */
const MAIL = `${EVENT_LUA}
if ARGV[11] ~= '' then
  local tags = P .. 'mailtags:' .. ARGV[2]
  if redis.call('ZADD', tags, 'NX', micros(), ARGV[11]) == 0 then return 0 end
  redis.call('ZREMRANGEBYRANK', tags, 0, -${MAIL_TAGS + 1})
  redis.call('PEXPIRE', tags, tonumber(ARGV[6]))
end
${APPEND_BODY}`;

/** CL-06, ARGV: 2 session, 3 sweep. The mailbox's frames, oldest first; the mailbox is emptied (one taker gets each). */
const TAKE = `${EVENT_LUA}
local sid = ARGV[2]
sweep(micros(), tonumber(ARGV[3]))
local texts = {}
for _, entry in ipairs(redis.call('XRANGE', dataKey(sid, '${MAILBOX}'), '-', '+')) do
  table.insert(texts, field(entry[2], 't'))
end
if redis.call('ZSCORE', D, sid .. ' ${MAILBOX}') then drop(sid, '${MAILBOX}') end
return texts`;

/** ARGV: 2 session, 3 stream, 4 grace (ms; 0: now), 5 sweep. 1 when the store held the stream. */
const RELEASE = `${EVENT_LUA}
local sid, st, grace = ARGV[2], ARGV[3], tonumber(ARGV[4])
local now = micros()
sweep(now, tonumber(ARGV[5]))
local member = sid .. ' ' .. st
local deadline = redis.call('ZSCORE', D, member)
if not deadline then return 0 end
if grace <= 0 then
  drop(sid, st)
elseif tonumber(deadline) > now + grace * 1000 then
  redis.call('ZADD', D, now + grace * 1000, member)
  redis.call('PEXPIRE', dataKey(sid, st), grace)
end
return 1`;

/** ARGV: 2 session, 3 sweep. */
const FORGET = `${EVENT_LUA}
local sid = ARGV[2]
sweep(micros(), tonumber(ARGV[3]))
for _, st in ipairs(redis.call('ZRANGE', orderKey(sid), 0, -1)) do drop(sid, st) end
redis.call('DEL', orderKey(sid), sizeKey(sid), P .. 'mailtags:' .. sid)
return 1`;

/** EventStore on Redis Streams, bounded by bytes per event, per session and in total (LIM-14), answered streams released (CL-05). */
export class RedisEventStore implements EventStore {
  private readonly prefix: string;
  private readonly maxEvents: string;
  private readonly ttl: string;
  private readonly maxEventBytes: number;
  private readonly maxSessionBytes: number;
  private readonly maxTotalBytes: number;
  private readonly grace: string;

  constructor(
    private readonly client: RedisCommander,
    options: RedisEventStoreOptions = {},
  ) {
    this.prefix = options.prefix ?? "mcp:";
    this.maxEvents = String(bound(options.maxEventsPerSession, 10_000));
    const ttl = bound(options.eventTtlMs, 1_800_000);
    this.ttl = String(ttl);
    // Each bound fits in the next, so that the event just appended can always be kept.
    this.maxTotalBytes = bound(options.maxTotalEventBytes, 64 << 20);
    this.maxSessionBytes = Math.min(bound(options.maxSessionEventBytes, 4 << 20), this.maxTotalBytes);
    let maxEvent = Math.min(bound(options.maxEventBytes, 1 << 20), this.maxSessionBytes);
    while (maxEvent > 0 && eventCost(Math.max(maxEvent, STAND_IN_BYTES)) + STREAM_OVERHEAD > this.maxSessionBytes)
      maxEvent = Math.floor(maxEvent * 0.9);
    this.maxEventBytes = maxEvent;
    const grace = options.endedStreamTtlMs === 0 ? 0 : bound(options.endedStreamTtlMs, 10_000);
    this.grace = String(Math.min(grace, ttl));
  }

  /** The bounds in force (after fitting each into the next), bytes. */
  get budgets(): { maxEventBytes: number; maxSessionEventBytes: number; maxTotalEventBytes: number } {
    return { maxEventBytes: this.maxEventBytes, maxSessionEventBytes: this.maxSessionBytes, maxTotalEventBytes: this.maxTotalBytes };
  }

  async append(sessionId: string, streamId: string, event: StoredEvent): Promise<void> {
    if (!keyPartOk(sessionId) || !keyPartOk(streamId)) return;
    const size = byteLength(event.text);
    const text = size > this.maxEventBytes ? unkeptFrame(streamId, event, size, this.maxEventBytes) : event.text;
    await runScript(this.client, APPEND, this.prefix, [
      sessionId,
      streamId,
      String(event.seq),
      text,
      this.ttl,
      String(this.maxSessionBytes),
      this.maxEvents,
      String(this.maxTotalBytes),
      String(SWEEP),
    ]);
  }

  async replay(sessionId: string, streamId: string, after: number): Promise<readonly StoredEvent[] | undefined> {
    if (!keyPartOk(sessionId) || !keyPartOk(streamId)) return undefined;
    const reply = await this.client.sendCommand(["XRANGE", `${this.prefix}events:${sessionId} ${streamId}`, "-", "+"]);
    if (!Array.isArray(reply) || reply.length === 0) return undefined;
    const events: StoredEvent[] = [];
    for (const entry of reply) {
      const fields = Array.isArray(entry) ? entryFields(entry[1]) : undefined;
      const seq = Number(fields?.q);
      if (Number.isSafeInteger(seq) && seq > after && fields?.t !== undefined) events.push({ seq, text: fields.t });
    }
    return events.sort((a, b) => a.seq - b.seq);
  }

  /** CL-05: the stream was answered and read to its end: its events go after endedStreamTtlMs. */
  async release(sessionId: string, streamId: string): Promise<void> {
    if (!keyPartOk(sessionId) || !keyPartOk(streamId)) return;
    await runScript(this.client, RELEASE, this.prefix, [sessionId, streamId, this.grace, String(SWEEP)]);
  }

  /** CL-06: keeps a message for the session's GET stream (counted with its events, LIM-14). */
  async mail(sessionId: string, text: string, tag?: string): Promise<void> {
    if (!keyPartOk(sessionId) || (tag !== undefined && !keyPartOk(tag))) return;
    const size = byteLength(text);
    // Over maxEventBytes: a comment stands in, which the taker skips.
    const kept = size > this.maxEventBytes ? unkeptFrame(MAILBOX, { seq: 0, text }, size, this.maxEventBytes) : text;
    await runScript(this.client, MAIL, this.prefix, [
      sessionId,
      MAILBOX,
      "0",
      kept,
      this.ttl,
      String(this.maxSessionBytes),
      this.maxEvents,
      String(this.maxTotalBytes),
      String(SWEEP),
      tag ?? "",
    ]);
  }

  /** CL-06: what the session's mailbox holds, oldest first, taken out of it. */
  async take(sessionId: string): Promise<readonly string[]> {
    if (!keyPartOk(sessionId)) return [];
    const reply = await runScript(this.client, TAKE, this.prefix, [sessionId, String(SWEEP)]);
    if (!Array.isArray(reply)) return [];
    return reply.flatMap((item) => {
      const text = replyText(item);
      return text === undefined ? [] : [text];
    });
  }

  async forget(sessionId: string): Promise<void> {
    if (!keyPartOk(sessionId)) return;
    await runScript(this.client, FORGET, this.prefix, [sessionId, String(SWEEP)]);
  }
}

/** The q and t fields of one stream entry (a flat array of pairs). */
function entryFields(value: unknown): { q?: string; t?: string } | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: { q?: string; t?: string } = {};
  for (let i = 0; i + 1 < value.length; i += 2) {
    const field = replyText(value[i]);
    const text = replyText(value[i + 1]);
    if (text === undefined) continue;
    if (field === "q") out.q = text;
    else if (field === "t") out.t = text;
  }
  return out;
}

/** Room left for a stand-in's own text (its message and the id it answers), bytes. */
const STAND_IN_BYTES = 1024;

/**
 * LIM-14: what is kept in place of an event over maxEventBytes. A response (or a batch of
 * them) becomes a JSON-RPC error for each id, under the same event id, so that a client that
 * resumes past it learns its request failed instead of waiting for it; anything else (a
 * request or notification of the server) becomes an SSE comment, which no client dispatches.
 * The live client got the event itself: only a replay sees the stand-in.
 */
export function unkeptFrame(streamId: string, event: StoredEvent, size: number, limit: number): string {
  const why = `was ${size} bytes, more than maxEventBytes (${limit}): not kept to replay`;
  const data = /^data: (.*)$/m.exec(event.text)?.[1];
  let message: unknown;
  try {
    message = data === undefined ? undefined : JSON.parse(data);
  } catch {
    message = undefined;
  }
  const errors = (Array.isArray(message) ? message : [message]).flatMap((item) => {
    if (!isJsonObject(item) || item.method !== undefined || (item.result === undefined && item.error === undefined)) return [];
    const id = item.id;
    if (typeof id !== "string" && typeof id !== "number") return [];
    if (typeof id === "string" && id.length > STAND_IN_BYTES / 2) return [];
    return [{ jsonrpc: "2.0", id, error: { code: -32603, message: `[LIM-14] the response ${why}` } }];
  });
  const comment = `: [LIM-14] event ${eventId(streamId, event.seq)} ${why}\n\n`;
  if (errors.length === 0) return comment;
  const frame = sseMessage(Array.isArray(message) ? errors : errors[0], eventId(streamId, event.seq));
  // A batch of many answers could make a stand-in as large as what it stands for.
  return byteLength(frame) <= STAND_IN_BYTES ? frame : comment;
}
