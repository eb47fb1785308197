// What the byte-budget tests of the Redis stores share (budgets.test.ts, budgets-http.test.ts):
// the user's client (node-redis) on the shared test Redis or on a redis-server of the test's
// own, Redis's used_memory, and what the event store holds for a session read back from its
// keys, beside what it counts.
//
// Invariants: every key a test makes is under a prefix of its own and deleted after it; a
// Redis of the test's own stops after the clients on it have closed.

import { randomUUID } from "node:crypto";
import type { test } from "node:test";
import type { RedisClientLike } from "../../lib/stores/redis.js";
import { eventCost, STREAM_OVERHEAD } from "../../lib/stores/redis-events.js";
import { replyPairs } from "../../lib/stores/redis-client.js";
import { keysUnder, privateRedis, redisCommand, testRedis } from "./harness.js";

const encoder = new TextEncoder();
export const bytesOf = (text: string): number => encoder.encode(text).length;

export interface NodeRedis extends RedisClientLike {
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
}

type Context = Parameters<Parameters<typeof test>[1]>[0];

/** A connected node-redis client (the user's client, as an application passes it); closed after the test. */
export async function nodeRedis(t: Context, url: string): Promise<NodeRedis> {
  const specifier: string = "redis";
  const { createClient } = (await import(specifier)) as { createClient(options: { url: string }): NodeRedis };
  const client = createClient({ url });
  await client.connect();
  t.after(async () => {
    await client.close();
  });
  return client;
}

/** A fresh prefix on the shared test Redis (its keys deleted after the test), or on a private one when `own`. */
export async function redisFor(t: Context, own = false): Promise<{ url: string; client: NodeRedis; prefix: string } | undefined> {
  // After hooks run in the order they were added: a private Redis stops last.
  const stops: Array<() => void | Promise<void>> = [];
  const url = own ? (await privateRedis({ after: (fn) => stops.push(fn), skip: (message) => t.skip(message) }))?.url : await testRedis(t);
  if (url === undefined) return undefined;
  const prefix = `b${randomUUID().slice(0, 8)}:`;
  // Registered first, so it runs before the client's own close.
  t.after(async () => {
    for (const key of await keysUnder(url, prefix)) await redisCommand(url, ["DEL", key]);
  });
  const client = await nodeRedis(t, url);
  for (const stop of stops) t.after(stop);
  return { url, client, prefix };
}

export async function usedMemory(url: string): Promise<number> {
  return (await memory(url)).used;
}

/** INFO memory: used_memory, and what of it is the clients' buffers (mem_clients_normal) and the data (used_memory_dataset). */
export async function memory(url: string): Promise<{ used: number; clients: number; dataset: number }> {
  const info = String(await redisCommand(url, ["INFO", "memory"]));
  const read = (name: string): number => Number(new RegExp(`^${name}:(\\d+)`, "m").exec(info)?.[1]);
  return { used: read("used_memory"), clients: read("mem_clients_normal"), dataset: read("used_memory_dataset") };
}

/** What the store holds for a session: its streams, the frames kept (seq per stream) and their bytes, and its counters. */
export async function stored(
  client: NodeRedis,
  url: string,
  prefix: string,
  sessionId: string,
): Promise<{ streams: Map<string, number[]>; frameBytes: number; cost: number; counted: number; countedEvents: number }> {
  const streams = new Map<string, number[]>();
  let frameBytes = 0;
  let cost = 0;
  for (const key of await keysUnder(url, `${prefix}events:${sessionId} `)) {
    const entries = (await client.sendCommand(["XRANGE", key, "-", "+"])) as Array<[string, string[]]>;
    const seqs: number[] = [];
    for (const [, fields] of entries) {
      const frame = fields[fields.indexOf("t") + 1] as string;
      seqs.push(Number(fields[fields.indexOf("q") + 1]));
      frameBytes += bytesOf(frame);
      cost += eventCost(bytesOf(frame));
    }
    if (entries.length > 0) cost += STREAM_OVERHEAD;
    streams.set(key.slice(key.indexOf(" ") + 1), seqs);
  }
  const size = await counters(client, `${prefix}eventsize:${sessionId}`);
  return { streams, frameBytes, cost, counted: size("bytes"), countedEvents: size("events") };
}

/** A hash's fields as numbers (a missing field: 0). */
export async function counters(client: NodeRedis, key: string): Promise<(field: string) => number> {
  const pairs = replyPairs(await client.sendCommand(["HGETALL", key]));
  return (field) => Number(pairs.get(field) ?? 0);
}

/** The event store's total, bytes. */
export async function total(client: NodeRedis, prefix: string): Promise<number> {
  return Number((await client.sendCommand(["HGET", `${prefix}eventbytes`, " total"])) ?? 0);
}
