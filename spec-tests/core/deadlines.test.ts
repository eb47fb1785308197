// DeadlineHeap against a naive model: random inserts, moves, removals and expiries agree on
// the next deadline and on what expires, in id order; and the engine's deadlines through it.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { DeadlineHeap, type DeadlineEntry } from "../../lib/engine/deadlines.js";
import { Engine } from "../../lib/index.js";
import { Rng } from "../fuzz/prng.js";

/** Uniform numbers in [0, 1) from the fuzzer's seeded generator, so failures reproduce. */
function prng(seed: number): () => number {
  const rng = new Rng(seed);
  return () => rng.u32() / 0x1_0000_0000;
}

describe("DeadlineHeap", () => {
  for (const seed of [1, 2, 3, 42, 1234, 99_999]) {
    it(`T-01, T-04: agrees with a naive model over 5,000 random operations (seed ${seed})`, () => {
      const random = prng(seed);
      const heap = new DeadlineHeap<DeadlineEntry>();
      const entries: DeadlineEntry[] = Array.from({ length: 200 }, (_, id) => ({ id, due: Infinity, heapIndex: -1 }));
      const model = new Map<number, number>();
      let now = 0;
      for (let step = 0; step < 5000; step++) {
        const entry = entries[Math.floor(random() * entries.length)] as DeadlineEntry;
        const op = random();
        if (op < 0.5) {
          const due = random() < 0.1 ? Infinity : now + Math.floor(random() * 100);
          heap.update(entry, due);
          if (due === Infinity) model.delete(entry.id);
          else model.set(entry.id, due);
        } else if (op < 0.7) {
          heap.remove(entry);
          model.delete(entry.id);
        } else {
          now += Math.floor(random() * 20);
          const expected = [...model]
            .filter(([, due]) => due <= now)
            .map(([id]) => id)
            .sort((a, b) => a - b);
          const got = heap.takeDue(now, []).map((e) => e.id);
          assert.deepEqual(got, expected, `step ${step}`);
          for (const id of expected) model.delete(id);
        }
        const min = Math.min(...model.values());
        assert.equal(heap.peek()?.due ?? Infinity, min, `step ${step}`);
        assert.equal(heap.size, model.size);
        for (const e of entries) assert.equal(e.heapIndex >= 0, model.has(e.id), `entry ${e.id} at step ${step}`);
      }
      heap.clear();
      assert.equal(heap.size, 0);
      assert.ok(entries.every((e) => e.heapIndex === -1));
    });
  }
});

describe("engine deadlines through the heap", () => {
  it("T-01, T-04: answers, setDeadline and progress resets keep nextDeadline exact with many requests in flight", () => {
    const c = new Engine({ role: "client", info: { name: "c", version: "1" }, limits: { maxPendingOutbound: 5000 } });
    c.initialize();
    while (c.pollOutbound() !== undefined);
    c.receiveMessage({
      jsonrpc: "2.0",
      id: 0,
      result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } },
    });
    while (c.pollOutbound() !== undefined);
    while (c.pollEvent() !== undefined);
    const ids: number[] = [];
    for (let i = 0; i < 3000; i++)
      ids.push(c.request("tools/list", {}, { deadline: 10_000 + i, totalDeadline: 50_000, resetOnProgressMs: 1000, progressToken: true }));
    assert.equal(c.nextDeadline(), 10_000);
    for (let i = 0; i < 1000; i++) c.receiveMessage({ jsonrpc: "2.0", id: ids[i], result: { tools: [] } });
    assert.equal(c.nextDeadline(), 11_000, "the answered ones are gone");
    c.setDeadline(ids[2999] as number, 500);
    assert.equal(c.nextDeadline(), 500);
    c.setDeadline(ids[2999] as number, undefined);
    assert.equal(c.nextDeadline(), 11_000, "its total deadline (50,000) is later");
    c.receiveMessage({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: ids[1000], progress: 1 } }, 20_000);
    assert.equal(c.nextDeadline(), 11_001, "progress pushed the first one to now + 1000 = 21,000");
    while (c.pollEvent() !== undefined);
    c.handleTimeout(11_500);
    const timeouts: number[] = [];
    for (let e = c.pollEvent(); e !== undefined; e = c.pollEvent()) if (e.kind === "timeout") timeouts.push(e.id);
    assert.deepEqual(timeouts, ids.slice(1001, 1501), "expired in id order, the one that had progress spared");
    assert.equal(c.nextDeadline(), 11_501);
  });
});

describe("ENG-05: progress moves a deadline only with `now`", () => {
  it("ENG-05: without now the inactivity deadline stays and a diagnostic says so; with now it moves", () => {
    const c = new Engine({ role: "client", info: { name: "c", version: "1" } });
    c.initialize();
    c.receiveMessage({
      jsonrpc: "2.0",
      id: 0,
      result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } },
    });
    while (c.pollOutbound() !== undefined);
    while (c.pollEvent() !== undefined);
    const id = c.request("tools/call", { name: "t" }, { deadline: 1000, resetOnProgressMs: 500, progressToken: true });
    c.receiveMessage({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: id, progress: 1 } });
    const first: string[] = [];
    for (let e = c.pollEvent(); e !== undefined; e = c.pollEvent()) first.push(e.kind === "diagnostic" ? `diagnostic:${e.rule}` : e.kind);
    assert.deepEqual(first, ["diagnostic:ENG-05", "progress"]);
    assert.equal(c.nextDeadline(), 1000);
    c.receiveMessage({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: id, progress: 2 } }, 900);
    const second: string[] = [];
    for (let e = c.pollEvent(); e !== undefined; e = c.pollEvent()) second.push(e.kind);
    assert.deepEqual(second, ["progress"]);
    assert.equal(c.nextDeadline(), 1400);
  });
});
