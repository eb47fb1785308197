// What the Redis stores' server-side scripts share: the prelude every script opens with (the
// Redis clock, counters that vanish at zero, the sweep of an index of deadlines) and the call
// that runs a script. The stores keep their byte budgets in these scripts, so that a check
// and the write it guards are one atomic step whichever node sends them.
//
// Invariants:
// - time in a script is Redis's own (TIME), the one clock every node shares; the stores have
//   no clock of their own;
// - a counter field is deleted when it reaches zero and an index is a sorted set, so a store
//   with nothing kept holds no key at all;
// - a script touches keys it computes from its arguments (one Redis, or a primary with
//   replicas: not Redis Cluster, where a script's keys must share a slot).

import type { RedisCommander } from "./redis-client.js";

/**
 * Opens every script: ARGV[1] is the key prefix (P). clock() is Redis's time in ms, micros()
 * in µs (a script runs after the one before it has ended, so no two scripts share one); bump()
 * adds to a hash field and deletes it at zero or below; allocation() is what the allocator
 * gives for n bytes (see allocationOf); split() parts "<a> <b>" index members (ids never hold a
 * space: keyPartOk). TOTAL names the field of a whole store's bytes (its leading space keeps
 * it apart from every id).
 */
export const LUA_PRELUDE = `if redis.replicate_commands then pcall(redis.replicate_commands) end
local P = ARGV[1]
local TOTAL = ' total'
local function clock()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function micros()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local function bump(key, field, by)
  if by == 0 then return end
  if redis.call('HINCRBY', key, field, by) <= 0 then redis.call('HDEL', key, field) end
end
local function counted(key, field)
  return tonumber(redis.call('HGET', key, field) or '0')
end
local function allocation(n)
  local step = 16
  while step * 8 < n do step = step * 2 end
  return math.ceil(n / step) * step
end
local function split(member)
  local at = string.find(member, ' ', 1, true)
  return string.sub(member, 1, at - 1), string.sub(member, at + 1)
end
`;

/**
 * What Redis's allocator (jemalloc) hands out for a value of n bytes: sizes come in four
 * classes per doubling, so up to a quarter more (a 256 KiB frame takes 320 KiB). The budgets
 * count this, not the bytes alone, so that what they allow is what Redis's used_memory shows.
 * The same function as the scripts' allocation().
 */
export function allocationOf(n: number): number {
  let step = 16;
  while (step * 8 < n) step *= 2;
  return Math.ceil(n / step) * step;
}

/**
 * Runs `body` after the prelude with ARGV = [prefix, ...args] and no KEYS (see the header).
 * EVAL: Redis keeps the compiled script by its digest, so a repeated body costs a hash of its text.
 */
export function runScript(client: RedisCommander, body: string, prefix: string, args: readonly string[]): Promise<unknown> {
  return client.sendCommand(["EVAL", LUA_PRELUDE + body, "0", prefix, ...args]);
}

/** A whole number from a script's reply (RESP2 integer, or its text), else NaN. */
export function replyNumber(reply: unknown): number {
  return typeof reply === "number" ? reply : typeof reply === "string" ? Number(reply) : Number.NaN;
}
