// TaskStore on Redis (the 2026-07-28 tasks extension across processes): one hash per task,
// P task:<taskId>, each StoredTask field JSON-encoded in a field of its own, so that an
// update is a handful of HSET/HDEL in one server-side script (no JSON decoding in Redis).
//
// Invariants:
// - create is strongly consistent (RULES.md TX-08): one script refuses an id that exists and writes the
//   whole task with its expiry; its promise resolves once Redis has answered, so a get on
//   any node finds the task after that;
// - an ended task (completed, failed, cancelled) stays as it ended: an update of one is
//   ignored and answered with the task as it is;
// - expiry is the host's clock's (`now`): past createdAt + ttlMs a get or update answers
//   "expired" and deletes the key; Redis drops the key itself taskGraceMs later, and a task
//   without TTL after untimedTaskTtlMs, so nothing stays for good;
// - a task id from a peer that is not keyPartOk is unknown (never sent to Redis).

import type { JsonObject } from "../wire/envelope.js";
import { isJsonObject } from "../wire/envelope.js";
import type { StoredTask, TaskChange, TaskLookup, TaskStatus, TaskStore } from "../peer/server/task-store.js";
import { bound, keyPartOk, replyPairs, type RedisCommander, type RedisKeys } from "./redis-client.js";

export interface RedisTaskStoreOptions extends RedisKeys {
  /** How long Redis keeps a task past its TTL (so that late polls hear "expired" rather than "not found"), ms. Default 60000. */
  taskGraceMs?: number;
  /** How long Redis keeps a task created without TTL (ttlMs null), ms. Default 86400000 (24 h). */
  untimedTaskTtlMs?: number;
}

/** Creates the hash unless the key exists: ARGV[1] the expiry (ms), then field/value pairs. 1 when created. */
const CREATE = `if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;

/** Applies field/value pairs ("" deletes the field) unless the task ended; answers the hash as it now is (empty when unknown). */
const UPDATE = `if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= '"completed"' and status ~= '"failed"' and status ~= '"cancelled"' then
  for i = 1, #ARGV, 2 do
    if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i]) else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
  end
end
return redis.call('HGETALL', KEYS[1])`;

const STATUSES: ReadonlySet<string> = new Set(["working", "input_required", "completed", "failed", "cancelled"]);

export class RedisTaskStore implements TaskStore {
  private readonly prefix: string;
  private readonly grace: number;
  private readonly untimed: number;

  constructor(
    private readonly client: RedisCommander,
    options: RedisTaskStoreOptions = {},
  ) {
    this.prefix = `${options.prefix ?? "mcp:"}task:`;
    this.grace = bound(options.taskGraceMs, 60_000);
    this.untimed = bound(options.untimedTaskTtlMs, 86_400_000);
  }

  async create(task: StoredTask): Promise<void> {
    if (!keyPartOk(task.taskId))
      throw new RangeError(
        `redis task store: expected a task id of 1 to 256 visible ASCII characters; got ${JSON.stringify(task.taskId).slice(0, 80)}`,
      );
    const keepMs = task.ttlMs === null ? this.untimed : Math.max(1, Math.ceil(task.ttlMs)) + this.grace;
    const args = ["EVAL", CREATE, "1", this.prefix + task.taskId, String(keepMs)];
    for (const [field, value] of Object.entries(task)) if (value !== undefined) args.push(field, JSON.stringify(value));
    const created = await this.client.sendCommand(args);
    if (Number(created) !== 1) throw new Error(`task store: expected a new task id, got ${JSON.stringify(task.taskId)}, which is taken`);
  }

  async get(taskId: string, now: number): Promise<TaskLookup> {
    if (!keyPartOk(taskId)) return undefined;
    return this.lookup(taskId, await this.client.sendCommand(["HGETALL", this.prefix + taskId]), now);
  }

  async update(taskId: string, change: TaskChange, now: number): Promise<TaskLookup> {
    if (!keyPartOk(taskId)) return undefined;
    const args = ["EVAL", UPDATE, "1", this.prefix + taskId];
    const set = (field: string, value: unknown): void => {
      args.push(field, value === null ? "" : JSON.stringify(value));
    };
    if (change.status !== undefined) set("status", change.status);
    if (change.statusMessage !== undefined) set("statusMessage", change.statusMessage);
    if (change.inputRequests !== undefined) set("inputRequests", change.inputRequests);
    if (change.result !== undefined) set("result", change.result);
    if (change.error !== undefined) set("error", change.error);
    set("lastUpdatedAt", now);
    return this.lookup(taskId, await this.client.sendCommand(args), now);
  }

  /** The task a hash reply describes; "expired" (and deleted) past its TTL; undefined when empty or malformed. */
  private async lookup(taskId: string, reply: unknown, now: number): Promise<TaskLookup> {
    const task = taskOf(taskId, replyPairs(reply));
    if (task === undefined) return undefined;
    if (task.ttlMs !== null && now >= task.createdAt + task.ttlMs) {
      await this.client.sendCommand(["DEL", this.prefix + taskId]);
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
  const task: StoredTask = { taskId, status: status as TaskStatus, createdAt, lastUpdatedAt, ttlMs };
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
