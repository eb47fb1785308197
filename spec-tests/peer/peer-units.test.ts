// Unit tests of the small modules under the peer layer's guarantees: toJsonSafe and
// jsonDepthExceeds (json-safe.ts), and the client's DeadlineQueue (request-queue.ts).

import { test } from "node:test";
import assert from "node:assert/strict";
import { jsonDepthExceeds, toJsonSafe } from "../../lib/peer/json-safe.js";
import { DeadlineQueue } from "../../lib/peer/request-queue.js";

test("toJsonSafe copies what JSON.stringify would encode, and nothing else", () => {
  const date = new Date(0);
  const input = {
    keep: "x",
    gone: undefined,
    fn: () => 1,
    sym: Symbol("s"),
    nan: Number.NaN,
    inf: -Infinity,
    date,
    boxed: [new String("s"), new Number(2), new Boolean(false)],
    list: [undefined, () => 1, 3],
    nested: { deeper: [{ ok: true }] },
  };
  const safe = toJsonSafe(input);
  assert.ok(safe.ok);
  assert.deepEqual(safe.value, JSON.parse(JSON.stringify(input)));
  assert.notEqual(safe.value, input, "a copy");
});

test("toJsonSafe keeps a __proto__ key as a key, and the copy has Object.prototype", () => {
  const parsed = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
  const safe = toJsonSafe(parsed);
  assert.ok(safe.ok);
  const value = safe.value as Record<string, unknown>;
  assert.ok(Object.hasOwn(value, "__proto__"));
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test("toJsonSafe refuses what has no JSON form, saying what and where", () => {
  assert.deepEqual(toJsonSafe(undefined), { ok: false, reason: "undefined has no JSON form" });
  assert.deepEqual(toJsonSafe(5n), { ok: false, reason: "a BigInt (5n) at the top level has no JSON form" });
  assert.deepEqual(toJsonSafe({ a: [1, { b: 2n }] }), { ok: false, reason: 'a BigInt (2n) at key "b" (depth 3) has no JSON form' });
  const shared = { s: 1 };
  assert.ok(toJsonSafe({ x: shared, y: shared }).ok, "a shared object is no cycle");
  assert.deepEqual(toJsonSafe([[[]]], 2), { ok: false, reason: "nested deeper than 2 levels" });
  assert.ok(toJsonSafe([[]], 2).ok);
  const thrown = toJsonSafe({ toJSON: () => { throw "plain string"; } });
  assert.deepEqual(thrown, { ok: false, reason: "reading it threw: plain string" });
});

test("jsonDepthExceeds measures any depth without recursion", () => {
  let deep: unknown = {};
  for (let i = 0; i < 100_000; i++) deep = [deep];
  assert.equal(jsonDepthExceeds(deep, 256), true);
  assert.equal(jsonDepthExceeds({ a: [{}] }, 3), false);
  assert.equal(jsonDepthExceeds({ a: [{}] }, 2), true);
  assert.equal(jsonDepthExceeds("text", 0), false);
});

test("DeadlineQueue: FIFO, removal by ticket, the earliest expiry in and out of order, expired entries taken oldest first", () => {
  const q = new DeadlineQueue<string>();
  assert.equal(q.nextExpiry(), undefined);
  assert.equal(q.shift(), undefined);
  const a = q.push("a", 30);
  q.push("b", Infinity);
  q.push("c", 40);
  assert.equal(q.nextExpiry(), 30, "in order: the oldest");
  q.push("d", 10);
  assert.equal(q.nextExpiry(), 10, "out of order: scanned");
  assert.deepEqual(q.takeExpired(30), ["a", "d"]);
  assert.equal(q.remove(a), false, "already taken");
  assert.equal(q.nextExpiry(), 40);
  assert.equal(q.shift(), "b");
  assert.deepEqual(q.clear(), ["c"]);
  assert.equal(q.size, 0);
  q.push("e", 5);
  q.push("f", 6);
  assert.deepEqual(q.takeExpired(5), ["e"], "in order again once emptied: stops at the first not expired");
});
