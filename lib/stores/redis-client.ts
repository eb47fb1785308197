// The part of a Redis client the Redis stores use, declared by shape so that the user's own
// client fits as it is (node-redis v5 and v6: createClient() after connect(); its
// duplicate() gives the subscriber connection), and the readers of raw replies. No import of
// any Redis package: the stores send commands as argument arrays (sendCommand) and read
// the RESP2 or RESP3 replies themselves.
//
// Invariants: nothing here throws on a reply of an unexpected shape: readers answer
// undefined / empty, the stores treat that as "not found"; peer-supplied names reach Redis
// only as command arguments (binary safe), never as plain-object keys, and only when they
// pass keyPartOk (bounded, visible ASCII).

import { decodeUtf8 } from "../wire/utf8.js";

/** Commands: node-redis's sendCommand (ioredis users wrap `call`). */
export interface RedisCommander {
  sendCommand(args: string[]): Promise<unknown>;
}

/** A connection in subscriber mode (node-redis: client.duplicate(), then connect()). */
export interface RedisSubscriber {
  connect(): Promise<unknown>;
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  close(): Promise<unknown>;
}

/** What the Redis stores take: a connected client that can make a subscriber connection. */
export interface RedisClientLike extends RedisCommander {
  duplicate(): RedisSubscriber;
}

/** The key prefix and the names under it (documented in redis.ts). */
export interface RedisKeys {
  /** Prefix of every key and channel. Default "mcp:". */
  prefix?: string;
}

/** A session id, stream id or task id usable in a key: 1 to 256 visible ASCII characters. */
export function keyPartOk(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= 256 && /^[\x21-\x7e]+$/.test(value);
}

/** A reply as text (bulk string), else undefined. */
export function replyText(reply: unknown): string | undefined {
  if (typeof reply === "string") return reply;
  // A client set to answer in buffers.
  if (reply instanceof Uint8Array) return decodeUtf8(reply, false);
  return undefined;
}

/** A reply of field/value pairs (RESP2 flat array, RESP3 map or object) as a Map of texts. */
export function replyPairs(reply: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (Array.isArray(reply)) {
    for (let i = 0; i + 1 < reply.length; i += 2) {
      const field = replyText(reply[i]);
      const value = replyText(reply[i + 1]);
      if (field !== undefined && value !== undefined) out.set(field, value);
    }
    return out;
  }
  if (reply instanceof Map) {
    for (const [field, value] of reply) {
      const f = replyText(field);
      const v = replyText(value);
      if (f !== undefined && v !== undefined) out.set(f, v);
    }
    return out;
  }
  if (reply !== null && typeof reply === "object") {
    for (const [field, value] of Object.entries(reply)) {
      const v = replyText(value);
      if (v !== undefined) out.set(field, v);
    }
  }
  return out;
}

/** A positive whole number option, else the default. */
export function bound(value: number | undefined, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;
}

/** A random id from Web Crypto (every runtime we serve on has it). */
export function randomId(): string {
  return (globalThis as unknown as { crypto: { randomUUID(): string } }).crypto.randomUUID().replace(/-/g, "").slice(0, 16);
}
