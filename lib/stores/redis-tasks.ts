// TaskStore on Redis (the 2026-07-28 tasks extension across processes): one hash per task,
// P task:<taskId>, each StoredTask field JSON-encoded in a field of its own, so that an
// update is a handful of HSET/HDEL in one server-side script (no JSON decoding in Redis).
// Bounded by bytes (RULES.md LIM-16): P taskbytes counts each task as Redis takes it, P
// taskdeadlines and P tasksended index them for the sweep and for eviction (keys: redis.ts).
//
// Invariants:
// - create is strongly consistent (RULES.md TX-08): one script refuses an id that exists and writes the
//   whole task with its expiry; its promise resolves once Redis has answered, so a get on
//   any node finds the task after that;
// - an ended task (completed, failed, cancelled) stays as it ended: an update of one is
//   ignored and answered with the task as it is;
// - LIM-16: a task is at most maxTaskBytes and all tasks at most maxTotalTaskBytes: room is made
//   by forgetting ended tasks, oldest ended first; with none left, a new task is refused and an
//   update that would grow a task past either bound fails the task instead (-32603 naming the
//   bound), so a task always ends with an outcome a client can read;
// - expiry is the host's clock's (`now`): past createdAt + ttlMs a get or update answers
//   "expired" and deletes the key; Redis drops the key itself taskGraceMs later, and a task
//   without TTL after untimedTaskTtlMs, so nothing stays for good;
// - a task id from a peer that is not keyPartOk is unknown (never sent to Redis);
// - list() reads one owner's index (P taskowner:<owner>) by rank: at most `limit` + 1 entries
//   and `limit` hashes a call, whatever the store holds.

import type { JsonObject } from "../wire/envelope.js";
import { isJsonObject } from "../wire/envelope.js";
import type { StoredTask, TaskChange, TaskListPage, TaskLookup, TaskStatus, TaskStore } from "../peer/server/task-store.js";
import { bound, keyPartOk, replyPairs, replyText, type RedisCommander, type RedisKeys } from "./redis-client.js";
import { replyNumber, runScript } from "./redis-lua.js";

export interface RedisTaskStoreOptions extends RedisKeys {
  /** How long Redis keeps a task past its TTL (so that late polls hear "expired" rather than "not found"), ms. Default 60000. */
  taskGraceMs?: number;
  /** How long Redis keeps a task created without TTL (ttlMs null), ms. Default 86400000 (24 h). */
  untimedTaskTtlMs?: number;
  /** Largest task kept, bytes as Redis takes them (its outcome included; LIM-16). Default 4 MiB. */
  maxTaskBytes?: number;
  /** Bytes of all tasks kept; past it ended tasks are forgotten, oldest first (LIM-16). Default 64 MiB. */
  maxTotalTaskBytes?: number;
}

/** What a task costs beyond its fields (its key and its index entries), bytes. */
const TASK_OVERHEAD = 512;
/** Tasks past their deadline a script sweeps before its own work, at most. */
const SWEEP = 256;

/**
 * The task store's keys and counters. fieldCost() is what one hash field takes; forget()
 * takes a task off the counts and indexes; sweep() does it for the tasks past their deadline
 * whose key is gone; makeRoom() forgets ended tasks, oldest ended first, until `size` more fits.
 */
const TASK_LUA = `local TD, TE, TB, TO = P .. 'taskdeadlines', P .. 'tasksended', P .. 'taskbytes', P .. 'taskowners'
local function taskKey(tid) return P .. 'task:' .. tid end
local function fieldCost(field, length) return allocation(#field + length + 32) end
local function forget(tid)
  bump(TB, TOTAL, -counted(TB, tid))
  redis.call('HDEL', TB, tid)
  local owner = redis.call('HGET', TO, tid)
  if owner then
    redis.call('ZREM', P .. 'taskowner:' .. owner, tid)
    redis.call('HDEL', TO, tid)
  end
  redis.call('ZREM', TD, tid)
  redis.call('ZREM', TE, tid)
end
local function sweep(now, limit)
  for _, tid in ipairs(redis.call('ZRANGEBYSCORE', TD, '-inf', now, 'LIMIT', 0, limit)) do
    local left = redis.call('PTTL', taskKey(tid))
    if left > 0 then redis.call('ZADD', TD, now + left, tid)
    elseif left == -1 then redis.call('ZADD', TD, now + 86400000, tid)
    else forget(tid) end
  end
end
local function makeRoom(size, maxTotal)
  while counted(TB, TOTAL) + size > maxTotal do
    local oldest = redis.call('ZRANGE', TE, 0, 0)[1]
    if not oldest then return false end
    redis.call('DEL', taskKey(oldest))
    forget(oldest)
  end
  return true
end
`;

/** Creates the hash unless the key exists. ARGV: 2 task id, 3 expiry (ms), 4 task bytes, 5 total bytes, 6 sweep, then field/value pairs. 1 created, 0 taken, -1 no room, -2 too large. */
const CREATE = `${TASK_LUA}
local tid, keep = ARGV[2], tonumber(ARGV[3])
local now = clock()
sweep(now, tonumber(ARGV[6]))
local key = taskKey(tid)
if redis.call('EXISTS', key) == 1 then return 0 end
forget(tid)
local size = ${TASK_OVERHEAD}
local owner, created
for i = 7, #ARGV, 2 do
  size = size + fieldCost(ARGV[i], #ARGV[i + 1])
  if ARGV[i] == 'owner' then owner = ARGV[i + 1] end
  if ARGV[i] == 'createdAt' then created = tonumber(ARGV[i + 1]) end
end
-- The owner's index entries (its name in TO and the sorted set) cost about its length again.
if owner then size = size + fieldCost('owner', #owner) end
if size > tonumber(ARGV[4]) then return -2 end
if not makeRoom(size, tonumber(ARGV[5])) then return -1 end
for i = 7, #ARGV, 2 do redis.call('HSET', key, ARGV[i], ARGV[i + 1]) end
if owner then
  redis.call('ZADD', P .. 'taskowner:' .. owner, created or now, tid)
  redis.call('HSET', TO, tid, owner)
end
redis.call('PEXPIRE', key, keep)
redis.call('ZADD', TD, now + keep, tid)
bump(TB, tid, size)
bump(TB, TOTAL, size)
return 1`;

/**
 * Applies field/value pairs ("" deletes the field) unless the task ended; answers the hash as
 * it now is (empty when unknown). ARGV: 2 task id, 3 task bytes, 4 total bytes, 5 sweep, 6 the
 * number of change arguments n, then n change arguments, then the stand-in's pairs: applied
 * instead when the change would grow the task past a bound and no ended task can make room.
 */
const UPDATE = `${TASK_LUA}
local tid = ARGV[2]
local now = clock()
sweep(now, tonumber(ARGV[5]))
local key = taskKey(tid)
if redis.call('EXISTS', key) == 0 then return {} end
local status = redis.call('HGET', key, 'status')
if status ~= '"completed"' and status ~= '"failed"' and status ~= '"cancelled"' then
  local function growth(from, to)
    local d = 0
    for i = from, to, 2 do
      if redis.call('HEXISTS', key, ARGV[i]) == 1 then d = d - fieldCost(ARGV[i], redis.call('HSTRLEN', key, ARGV[i])) end
      if ARGV[i + 1] ~= '' then d = d + fieldCost(ARGV[i], #ARGV[i + 1]) end
    end
    return d
  end
  local n = tonumber(ARGV[6])
  local from, to = 7, 6 + n
  local d = growth(from, to)
  if d > 0 and (counted(TB, tid) + d > tonumber(ARGV[3]) or not makeRoom(d, tonumber(ARGV[4]))) then
    from, to = 7 + n, #ARGV
    d = growth(from, to)
  end
  for i = from, to, 2 do
    if ARGV[i + 1] == '' then redis.call('HDEL', key, ARGV[i]) else redis.call('HSET', key, ARGV[i], ARGV[i + 1]) end
  end
  bump(TB, tid, d)
  bump(TB, TOTAL, d)
  local now_status = redis.call('HGET', key, 'status')
  if now_status == '"completed"' or now_status == '"failed"' or now_status == '"cancelled"' then redis.call('ZADD', TE, now, tid) end
end
return redis.call('HGETALL', key)`;

/** ARGV: 2 task id, 3 sweep. */
const DELETE = `${TASK_LUA}
local tid = ARGV[2]
sweep(clock(), tonumber(ARGV[3]))
redis.call('DEL', taskKey(tid))
forget(tid)
return 1`;

/**
 * One page of an owner's tasks, by rank in its index. ARGV: 2 owner (JSON), 3 the id to continue
 * after ("" from the start), 4 limit, 5 sweep. Answers -1 when that id is not in the index, else
 * {more (0 or 1), tid, hash, tid, hash, ...}.
 */
const LIST = `${TASK_LUA}
sweep(clock(), tonumber(ARGV[5]))
local index, after, limit = P .. 'taskowner:' .. ARGV[2], ARGV[3], tonumber(ARGV[4])
local start = 0
if after ~= '' then
  local rank = redis.call('ZRANK', index, after)
  if not rank then return -1 end
  start = rank + 1
end
local ids = redis.call('ZRANGE', index, start, start + limit)
local out = { #ids > limit and 1 or 0 }
for i = 1, math.min(#ids, limit) do
  out[#out + 1] = ids[i]
  out[#out + 1] = redis.call('HGETALL', taskKey(ids[i]))
end
return out`;

const STATUSES: ReadonlySet<string> = new Set(["working", "input_required", "completed", "failed", "cancelled"]);

export class RedisTaskStore implements TaskStore {
  private readonly prefix: string;
  private readonly grace: number;
  private readonly untimed: number;
  private readonly maxTaskBytes: number;
  private readonly maxTotalBytes: number;

  constructor(
    private readonly client: RedisCommander,
    options: RedisTaskStoreOptions = {},
  ) {
    this.prefix = options.prefix ?? "mcp:";
    this.grace = bound(options.taskGraceMs, 60_000);
    this.untimed = bound(options.untimedTaskTtlMs, 86_400_000);
    this.maxTotalBytes = bound(options.maxTotalTaskBytes, 64 << 20);
    this.maxTaskBytes = Math.min(bound(options.maxTaskBytes, 4 << 20), this.maxTotalBytes);
  }

  async create(task: StoredTask): Promise<void> {
    if (!keyPartOk(task.taskId))
      throw new RangeError(
        `redis task store: expected a task id of 1 to 256 visible ASCII characters; got ${JSON.stringify(task.taskId).slice(0, 80)}`,
      );
    const keepMs = task.ttlMs === null ? this.untimed : Math.max(1, Math.ceil(task.ttlMs)) + this.grace;
    const args = [task.taskId, String(keepMs), String(this.maxTaskBytes), String(this.maxTotalBytes), String(SWEEP)];
    for (const [field, value] of Object.entries(task)) if (value !== undefined) args.push(field, JSON.stringify(value));
    const created = replyNumber(await runScript(this.client, CREATE, this.prefix, args));
    if (created === 1) return;
    if (created === 0) throw new Error(`task store: expected a new task id, got ${JSON.stringify(task.taskId)}, which is taken`);
    throw new RangeError(
      created === -2
        ? `[LIM-16] redis task store: expected a task of at most ${this.maxTaskBytes} bytes (maxTaskBytes); got more`
        : `[LIM-16] redis task store: expected room for a new task within maxTotalTaskBytes (${this.maxTotalBytes}); got none: the tasks kept fill it and none of them has ended`,
    );
  }

  async get(taskId: string, now: number): Promise<TaskLookup> {
    if (!keyPartOk(taskId)) return undefined;
    return this.lookup(taskId, await this.client.sendCommand(["HGETALL", `${this.prefix}task:${taskId}`]), now);
  }

  async update(taskId: string, change: TaskChange, now: number): Promise<TaskLookup> {
    if (!keyPartOk(taskId)) return undefined;
    const pairs: string[] = [];
    const set = (into: string[], field: string, value: unknown): void => {
      into.push(field, value === null ? "" : JSON.stringify(value));
    };
    if (change.status !== undefined) set(pairs, "status", change.status);
    if (change.statusMessage !== undefined) set(pairs, "statusMessage", change.statusMessage);
    if (change.inputRequests !== undefined) set(pairs, "inputRequests", change.inputRequests);
    if (change.result !== undefined) set(pairs, "result", change.result);
    if (change.error !== undefined) set(pairs, "error", change.error);
    set(pairs, "lastUpdatedAt", now);
    // LIM-16: what the task becomes when the change does not fit: failed, saying which bound.
    const message = `[LIM-16] the task's outcome would take it past maxTaskBytes (${this.maxTaskBytes}) or the task store past maxTotalTaskBytes (${this.maxTotalBytes}): not kept`;
    const standIn: string[] = [];
    set(standIn, "status", "failed");
    set(standIn, "statusMessage", message);
    set(standIn, "inputRequests", null);
    set(standIn, "error", { code: -32603, message });
    set(standIn, "lastUpdatedAt", now);
    const args = [taskId, String(this.maxTaskBytes), String(this.maxTotalBytes), String(SWEEP), String(pairs.length), ...pairs, ...standIn];
    return this.lookup(taskId, await runScript(this.client, UPDATE, this.prefix, args), now);
  }

  /**
   * tasks/list (core tasks): up to `limit` unexpired tasks of `owner` in creation order, after
   * `after`; undefined when `after` is not one of the owner's tasks (a cursor of another owner
   * included). A task Redis has dropped but the sweep not yet unindexed is skipped.
   */
  async list(owner: string, now: number, after: string | undefined, limit: number): Promise<TaskListPage | undefined> {
    if (after !== undefined && !keyPartOk(after)) return undefined;
    const count = Math.max(1, Math.min(1000, Math.floor(limit)));
    const reply = await runScript(this.client, LIST, this.prefix, [JSON.stringify(owner), after ?? "", String(count), String(SWEEP)]);
    if (!Array.isArray(reply)) return undefined;
    const tasks: StoredTask[] = [];
    let last: string | undefined;
    for (let i = 1; i + 1 < reply.length; i += 2) {
      const taskId = replyText(reply[i]);
      if (taskId === undefined) continue;
      last = taskId;
      const task = taskOf(taskId, replyPairs(reply[i + 1]));
      if (task !== undefined && (task.ttlMs === null || now < task.createdAt + task.ttlMs)) tasks.push(task);
    }
    return { tasks, next: replyNumber(reply[0]) === 1 ? last : undefined };
  }

  /** The task a hash reply describes; "expired" (and deleted) past its TTL; undefined when empty or malformed. */
  private async lookup(taskId: string, reply: unknown, now: number): Promise<TaskLookup> {
    const task = taskOf(taskId, replyPairs(reply));
    if (task === undefined) return undefined;
    if (task.ttlMs !== null && now >= task.createdAt + task.ttlMs) {
      await runScript(this.client, DELETE, this.prefix, [taskId, String(SWEEP)]);
      return "expired";
    }
    return task;
  }
}

/** A StoredTask from its hash fields (JSON each); undefined when a required field is missing or of the wrong type. */
function taskOf(taskId: string, fields: Map<string, string>): StoredTask | undefined {
  const read = (name: string): unknown => {
    const text = fields.get(name);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  };
  const status = read("status");
  const createdAt = read("createdAt");
  const lastUpdatedAt = read("lastUpdatedAt");
  const ttlMs = read("ttlMs");
  if (
    typeof status !== "string" ||
    !STATUSES.has(status) ||
    typeof createdAt !== "number" ||
    typeof lastUpdatedAt !== "number" ||
    (ttlMs !== null && typeof ttlMs !== "number")
  )
    return undefined;
  const owner = read("owner");
  const task: StoredTask =
    typeof owner === "string"
      ? { taskId, status: status as TaskStatus, createdAt, lastUpdatedAt, ttlMs, owner }
      : { taskId, status: status as TaskStatus, createdAt, lastUpdatedAt, ttlMs };
  const statusMessage = read("statusMessage");
  if (typeof statusMessage === "string") task.statusMessage = statusMessage;
  const pollIntervalMs = read("pollIntervalMs");
  if (typeof pollIntervalMs === "number") task.pollIntervalMs = pollIntervalMs;
  const objects: Array<"inputRequests" | "result" | "error"> = ["inputRequests", "result", "error"];
  for (const name of objects) {
    const value = read(name);
    if (isJsonObject(value)) task[name] = value as JsonObject;
  }
  return task;
}
