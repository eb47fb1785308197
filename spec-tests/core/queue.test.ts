// Queue: FIFO order, shift on empty, length, drainInto and clear, through the public API.
// A long interleaved run crosses the compaction threshold (consumed prefix > 1024 and more
// than half of the backing array) and the reset-on-empty path, and must keep exact order.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Queue } from "../../lib/internal.js";

test("shift returns items in the order they were pushed", () => {
  const q = new Queue<string>();
  q.push("a");
  q.push("b");
  q.push("c");
  assert.equal(q.shift(), "a");
  assert.equal(q.shift(), "b");
  q.push("d");
  assert.equal(q.shift(), "c");
  assert.equal(q.shift(), "d");
});

test("shift on an empty queue gives undefined, and the queue stays usable", () => {
  const q = new Queue<number>();
  assert.equal(q.length, 0);
  assert.equal(q.shift(), undefined);
  assert.equal(q.length, 0);
  q.push(1);
  assert.equal(q.shift(), 1);
  assert.equal(q.shift(), undefined);
  assert.equal(q.shift(), undefined);
  assert.equal(q.length, 0);
  q.push(2);
  assert.equal(q.length, 1);
  assert.equal(q.shift(), 2);
});

test("length counts pushed minus shifted items", () => {
  const q = new Queue<number>();
  for (let i = 0; i < 10; i++) {
    q.push(i);
    assert.equal(q.length, i + 1);
  }
  for (let i = 0; i < 4; i++) q.shift();
  assert.equal(q.length, 6);
});

test("falsy items (0, empty string, null) are queued like any other", () => {
  const q = new Queue<number | string | null>();
  q.push(0);
  q.push("");
  q.push(null);
  assert.equal(q.length, 3);
  assert.equal(q.shift(), 0);
  assert.equal(q.shift(), "");
  assert.equal(q.shift(), null);
  assert.equal(q.length, 0);
});

test("items are queued by reference", () => {
  const item = { n: 1 };
  const q = new Queue<{ n: number }>();
  q.push(item);
  assert.equal(q.shift(), item);
});

test("drainInto appends the remaining items, oldest first, after what the array holds, and empties the queue", () => {
  const q = new Queue<number>();
  for (let i = 0; i < 5; i++) q.push(i);
  assert.equal(q.shift(), 0);
  assert.equal(q.shift(), 1);
  const into = [-1];
  q.drainInto(into);
  assert.deepEqual(into, [-1, 2, 3, 4]);
  assert.equal(q.length, 0);
  assert.equal(q.shift(), undefined);
  // Still usable afterwards, in order.
  q.push(10);
  q.push(11);
  assert.equal(q.length, 2);
  assert.equal(q.shift(), 10);
  assert.equal(q.shift(), 11);
});

test("drainInto on an empty queue leaves the target unchanged", () => {
  const q = new Queue<number>();
  const into = [7];
  q.drainInto(into);
  assert.deepEqual(into, [7]);
  assert.equal(q.length, 0);
});

test("clear drops every item and the queue stays usable", () => {
  const q = new Queue<number>();
  for (let i = 0; i < 5; i++) q.push(i);
  q.shift();
  q.clear();
  assert.equal(q.length, 0);
  assert.equal(q.shift(), undefined);
  const into: number[] = [];
  q.drainInto(into);
  assert.deepEqual(into, []);
  q.push(42);
  assert.equal(q.length, 1);
  assert.equal(q.shift(), 42);
});

test("a backlog shifted past the compaction threshold keeps order and length", () => {
  // 3000 queued, then shifted one by one without ever emptying: compaction happens once the
  // consumed prefix exceeds 1024 and half the array, and must not lose or reorder items.
  const q = new Queue<number>();
  const total = 3000;
  for (let i = 0; i < total; i++) q.push(i);
  let pushed = total;
  for (let i = 0; i < total - 1; i++) {
    assert.equal(q.shift(), i);
    assert.equal(q.length, pushed - 1 - i);
    if (i === 1500) {
      // Push more while a compacted array is being consumed.
      q.push(total);
      pushed++;
    }
  }
  assert.equal(q.length, 2);
  assert.equal(q.shift(), total - 1);
  assert.equal(q.shift(), total);
  assert.equal(q.shift(), undefined);
  assert.equal(q.length, 0);
});

test("drainInto after compaction returns exactly the remaining items", () => {
  const q = new Queue<number>();
  for (let i = 0; i < 4000; i++) q.push(i);
  for (let i = 0; i < 2500; i++) assert.equal(q.shift(), i);
  assert.equal(q.length, 1500);
  const into: number[] = [];
  q.drainInto(into);
  assert.equal(into.length, 1500);
  for (let i = 0; i < into.length; i++) {
    if (into[i] !== 2500 + i) assert.fail(`item ${i} is ${into[i]}, expected ${2500 + i}`);
  }
});

test("100k interleaved pushes and shifts keep FIFO order", () => {
  const q = new Queue<number>();
  let next = 0;
  let expected = 0;
  let maxLength = 0;
  // Push 3, shift 2: the queue grows steadily and is never empty, so the compaction branch
  // (rather than the reset-on-empty one) is what bounds the backing array.
  for (let round = 0; round < 25_000; round++) {
    q.push(next++);
    q.push(next++);
    q.push(next++);
    for (let k = 0; k < 2; k++) {
      const got = q.shift();
      if (got !== expected) assert.fail(`round ${round}: shifted ${String(got)}, expected ${expected}`);
      expected++;
    }
    maxLength = Math.max(maxLength, q.length);
    if (q.length !== next - expected) assert.fail(`round ${round}: length ${q.length}, expected ${next - expected}`);
  }
  assert.equal(next, 75_000);
  assert.equal(maxLength, 25_000);
  // Then drain by shift, alternating with single pushes, until empty.
  while (q.length > 0) {
    const got = q.shift();
    if (got !== expected) assert.fail(`drain: shifted ${String(got)}, expected ${expected}`);
    expected++;
    if (next < 100_000) q.push(next++);
  }
  assert.equal(expected, 100_000);
  assert.equal(next, 100_000);
  assert.equal(q.shift(), undefined);
});
