// Unit tests of the small modules under the peer layer's guarantees: toJsonSafe and
// jsonDepthExceeds (json-safe.ts), the client's DeadlineQueue (request-queue.ts) and its
// PendingCall's rare parts (client-calls.ts).

import { test } from "node:test";
import assert from "node:assert/strict";
import { jsonDepthExceeds, toJsonSafe } from "../../lib/peer/shared/json-safe.js";
import { DeadlineQueue } from "../../lib/peer/client/request-queue.js";
import { NO_CALL_OPTIONS, PendingCall } from "../../lib/peer/client/client-calls.js";
import type { JsonObject } from "../../lib/wire/envelope.js";
import type { CallOptions } from "../../lib/peer/shared/call-options.js";

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
  const thrown = toJsonSafe({
    toJSON: () => {
      throw "plain string";
    },
  });
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

test("PendingCall: a result step runs on the answer whether it came alone, with options, or joined later by a ticket and a cleanup", () => {
  const seen: Array<[JsonObject, CallOptions]> = [];
  const step = (result: JsonObject, options: CallOptions): JsonObject => {
    seen.push([result, options]);
    return { stepped: result.n ?? null };
  };
  const outcome = (call: PendingCall): unknown[] => {
    const settled: unknown[] = [];
    call.resolve = (value) => settled.push(value);
    call.reject = (error) => settled.push(error);
    return settled;
  };
  // Alone (callTool without options), then a queue ticket and an abort listener joined it.
  const plain = new PendingCall("tools/call", undefined, 1000, undefined);
  plain.setStep(step, NO_CALL_OPTIONS);
  plain.ticket = 7;
  assert.equal(plain.ticket, 7);
  let cleaned = 0;
  plain.cleanup = () => cleaned++;
  plain.cleanup?.();
  assert.equal(cleaned, 1);
  plain.ticket = undefined;
  const plainOut = outcome(plain);
  plain.complete({ n: 1 });
  assert.deepEqual(plainOut, [{ stepped: 1 }]);
  assert.equal(seen[0]?.[1], NO_CALL_OPTIONS, "the step gets the options of the call");
  // With options of its own, which the step receives.
  const options: CallOptions = { timeoutMs: 5 };
  const withOptions = new PendingCall("tools/call", undefined, 5, undefined);
  withOptions.setStep(step, options);
  const withOut = outcome(withOptions);
  withOptions.complete({ n: 2 });
  assert.deepEqual(withOut, [{ stepped: 2 }]);
  assert.equal(seen[1]?.[1], options);
  // Progress and a total cap first, then the step.
  const onProgress = (): void => undefined;
  const rich = new PendingCall("tools/call", onProgress, 5, 50);
  rich.setStep(step, NO_CALL_OPTIONS);
  assert.equal(rich.onProgress, onProgress);
  assert.equal(rich.totalMs, 50);
  const richOut = outcome(rich);
  rich.complete({ n: 3 });
  assert.deepEqual(richOut, [{ stepped: 3 }]);
  // A step that throws rejects; no step resolves with the answer as it came.
  const failing = new PendingCall("tools/call", undefined, 5, undefined);
  failing.setStep(() => {
    throw new Error("bad result");
  }, NO_CALL_OPTIONS);
  const failOut = outcome(failing);
  failing.complete({});
  assert.ok(failOut[0] instanceof Error && failOut[0].message === "bad result");
  const bare = new PendingCall("ping", undefined, 5, undefined);
  assert.equal(bare.ticket, undefined);
  assert.equal(bare.onProgress, undefined);
  const bareOut = outcome(bare);
  bare.complete({ n: 4 });
  assert.deepEqual(bareOut, [{ n: 4 }]);
});
