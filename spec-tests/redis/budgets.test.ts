// Byte budgets of the Redis stores against a real redis-server (RULES.md LIM-14, LIM-15,
// LIM-16, CL-05): the event store bounded per event, per session and in total, with eviction
// oldest first that keeps the newest events resumable, exact under writers on several
// connections at once; an answered stream's events released; the snapshot and task budgets.
// The memory figures are Redis's own (INFO memory used_memory) on a redis-server of the
// test's own, so that nothing else moves them. Each test works under a key prefix of its own.

import { test } from "node:test";
import assert from "node:assert/strict";
import { RedisEventStore, RedisSessionStore, RedisTaskStore } from "../../lib/stores/redis.js";
import { eventCost, STREAM_OVERHEAD, unkeptFrame } from "../../lib/stores/redis-events.js";
import { allocationOf, replyNumber } from "../../lib/stores/redis-lua.js";
import type { EngineSnapshot } from "../../lib/engine/engine.js";
import type { StoredTask } from "../../lib/peer/server/task-store.js";
import { keysUnder } from "./harness.js";
import { bytesOf, counters, nodeRedis, redisFor, stored, total } from "./budget-helpers.js";

const frame = (stream: string, seq: number, body: string): string =>
  `id: ${stream}:${seq}\nevent: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { data: body } })}\n\n`;

test("LIM-14: a session's events stay within maxSessionEventBytes, the oldest evicted first across its streams; the newest stay resumable; the counters are exact", async (t) => {
  const r = await redisFor(t);
  if (r === undefined) return;
  const budget = 64 * 1024;
  const store = new RedisEventStore(r.client, { prefix: r.prefix, maxSessionEventBytes: budget, maxEventBytes: 16 * 1024 });
  // Two streams interleaved, 8 KiB events: about twice the budget in all.
  for (let seq = 1; seq <= 8; seq++) {
    await store.append("s", "a", { seq, text: frame("a", seq, "x".repeat(8000)) });
    await store.append("s", "b", { seq, text: frame("b", seq, "y".repeat(8000)) });
  }
  const held = await stored(r.client, r.url, r.prefix, "s");
  assert.ok(held.counted <= budget, `within the budget: ${held.counted} <= ${budget}`);
  assert.equal(held.counted, held.cost, "the session's count is what it holds");
  assert.equal(held.countedEvents, [...held.streams.values()].flat().length);
  assert.ok(held.counted > budget - 2 * eventCost(8100), "no more evicted than needed");
  // Oldest first over both streams: what is left of each is its newest events, the same span of time.
  const a = held.streams.get("a") ?? [];
  const b = held.streams.get("b") ?? [];
  assert.deepEqual(a, a.length === 0 ? [] : Array.from({ length: a.length }, (_, i) => 9 - a.length + i));
  assert.deepEqual(b, b.length === 0 ? [] : Array.from({ length: b.length }, (_, i) => 9 - b.length + i));
  assert.ok(Math.abs(a.length - b.length) <= 1, `a ${a.join(",")} b ${b.join(",")}`);
  // The newest events replay to a client that saw the older ones.
  assert.deepEqual(
    (await store.replay("s", "a", 6))?.map((e) => e.seq),
    [7, 8],
  );
  assert.equal(await total(r.client, r.prefix), held.counted, "the store's total is the one session's");
  // maxEventsPerSession still bounds the count.
  const few = new RedisEventStore(r.client, { prefix: r.prefix, maxEventsPerSession: 3 });
  for (let seq = 1; seq <= 5; seq++) await few.append("n", "a", { seq, text: frame("a", seq, "z") });
  assert.deepEqual(
    (await few.replay("n", "a", 0))?.map((e) => e.seq),
    [3, 4, 5],
  );
  // The session ends: nothing of it is left, and the store's counters are back to nothing.
  await store.forget("s");
  await few.forget("n");
  assert.deepEqual(await keysUnder(r.url, r.prefix), [], "no key left, counters and indexes included");
});

test("LIM-14: writers on several connections at once (several nodes) keep every budget and count exact", async (t) => {
  const r = await redisFor(t);
  if (r === undefined) return;
  const nodes = [r.client, await nodeRedis(t, r.url), await nodeRedis(t, r.url)];
  const options = { prefix: r.prefix, maxSessionEventBytes: 48 * 1024, maxTotalEventBytes: 160 * 1024, maxEventBytes: 8 * 1024 };
  const stores = nodes.map((client) => new RedisEventStore(client, options));
  // Each node writes streams of its own into four sessions, all at once, sizes varying.
  const last = new Map<string, number>();
  await Promise.all(
    stores.map(async (store, node) => {
      for (let seq = 1; seq <= 60; seq++) {
        const session = `s${seq % 4}`;
        const body = "n".repeat(200 + ((seq * 977 + node * 331) % 5000));
        last.set(`${session} node${node}`, seq);
        await store.append(session, `node${node}`, { seq, text: frame(`node${node}`, seq, body) });
      }
    }),
  );
  let sum = 0;
  for (const session of ["s0", "s1", "s2", "s3"]) {
    const held = await stored(r.client, r.url, r.prefix, session);
    assert.equal(held.counted, held.cost, `${session}: counted ${held.counted}, holds ${held.cost}`);
    assert.ok(held.counted <= options.maxSessionEventBytes, `${session} within its budget (${held.counted})`);
    for (const [stream, seqs] of held.streams) {
      assert.deepEqual(
        seqs,
        [...seqs].sort((x, y) => x - y),
        `${session} ${stream} in order`,
      );
      if (seqs.length > 0) assert.ok(seqs.every((s, i) => i === 0 || s > (seqs[i - 1] as number)));
    }
    sum += held.counted;
  }
  const kept = await total(r.client, r.prefix);
  assert.equal(kept, sum, "the total is the sum of the sessions");
  assert.ok(kept <= options.maxTotalEventBytes, `within the total (${kept})`);
  // The last event each node wrote is kept (the event just appended is never the one evicted)
  // unless a later append, of another session, evicted it for the total.
  const newest = (await stored(r.client, r.url, r.prefix, "s0")).streams;
  assert.ok(
    [...newest.values()].some((seqs) => seqs.includes(60)),
    "the very last append is kept",
  );
});

test("LIM-14: the total budget holds over many sessions: the streams least recently appended to lose their events first", async (t) => {
  const r = await redisFor(t);
  if (r === undefined) return;
  const maxTotal = 256 * 1024;
  const store = new RedisEventStore(r.client, { prefix: r.prefix, maxSessionEventBytes: 64 * 1024, maxTotalEventBytes: maxTotal });
  for (let s = 0; s < 20; s++)
    for (let seq = 1; seq <= 4; seq++) await store.append(`flood${s}`, "g", { seq, text: frame("g", seq, "f".repeat(10_000)) });
  const kept = await total(r.client, r.prefix);
  assert.ok(kept <= maxTotal && kept > maxTotal - 3 * eventCost(10_100), `within the total and near it: ${kept}`);
  // The oldest sessions are gone whole, the newest whole; the sum of what is held is the total.
  let sum = 0;
  const present: number[] = [];
  for (let s = 0; s < 20; s++) {
    const held = await stored(r.client, r.url, r.prefix, `flood${s}`);
    sum += held.cost;
    if (held.streams.size > 0) present.push(s);
  }
  assert.equal(sum, kept);
  assert.deepEqual(
    present,
    Array.from({ length: present.length }, (_, i) => 20 - present.length + i),
    "the newest sessions",
  );
  assert.deepEqual(
    (await store.replay("flood19", "g", 0))?.map((e) => e.seq),
    [1, 2, 3, 4],
  );
  assert.equal(await store.replay("flood0", "g", 0), undefined, "the oldest session's stream is gone");
});

test("LIM-14: an event over maxEventBytes is not kept: a response becomes an error for its id, anything else a comment", async (t) => {
  const r = await redisFor(t);
  if (r === undefined) return;
  const store = new RedisEventStore(r.client, { prefix: r.prefix, maxEventBytes: 4096 });
  const big = "r".repeat(10_000);
  const response = `id: p:2\nevent: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: "call-7", result: { content: [{ type: "text", text: big }] } })}\n\n`;
  const request = `id: p:1\nevent: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "elicitation/create", params: { message: big } })}\n\n`;
  await store.append("s", "p", { seq: 1, text: request });
  await store.append("s", "p", { seq: 2, text: response });
  const replayed = (await store.replay("s", "p", 0)) ?? [];
  assert.deepEqual(
    replayed.map((e) => e.seq),
    [1, 2],
  );
  const [asked, answered] = replayed as unknown as [{ text: string }, { text: string }];
  assert.match(asked.text, /^: \[LIM-14\] event p:1 was \d+ bytes, more than maxEventBytes \(4096\)/);
  assert.doesNotMatch(asked.text, /^data:/m, "a comment: no client dispatches it");
  assert.match(answered.text, /^id: p:2\n/);
  const error = JSON.parse(/^data: (.*)$/m.exec(answered.text)?.[1] ?? "null") as { id: unknown; error: { code: number; message: string } };
  assert.equal(error.id, "call-7");
  assert.equal(error.error.code, -32603);
  assert.match(error.error.message, /^\[LIM-14\] the response was \d+ bytes, more than maxEventBytes \(4096\)/);
  const held = await stored(r.client, r.url, r.prefix, "s");
  assert.ok(held.frameBytes < 2048, `only the stand-ins are stored (${held.frameBytes} bytes)`);
});

test("LIM-14: the stand-in of every shape: a batch of answers, ids of both kinds, a frame that does not parse, a batch too large to stand in", () => {
  const at = (message: unknown): string =>
    `id: p:3\nevent: message\ndata: ${typeof message === "string" ? message : JSON.stringify(message)}\n\n`;
  const standIn = (message: unknown): string => unkeptFrame("p", { seq: 3, text: at(message) }, 9999, 100);
  const batch = JSON.parse(
    /^data: (.*)$/m.exec(
      standIn([
        { jsonrpc: "2.0", id: 1, result: {} },
        { jsonrpc: "2.0", id: "b", error: { code: 1, message: "x" } },
        { jsonrpc: "2.0", method: "n" },
      ]),
    )?.[1] ?? "null",
  ) as Array<{ id: unknown; error: { code: number } }>;
  assert.deepEqual(
    batch.map((e) => [e.id, e.error.code]),
    [
      [1, -32603],
      ["b", -32603],
    ],
  );
  const comment = /^: \[LIM-14\] event p:3 was 9999 bytes, more than maxEventBytes \(100\): not kept to replay\n\n$/;
  assert.match(standIn("{not json"), comment);
  assert.match(standIn({ jsonrpc: "2.0", id: null, error: { code: 1, message: "x" } }), comment, "an answer without an id to name");
  assert.match(standIn({ jsonrpc: "2.0", id: "i".repeat(600), result: {} }), comment, "an id too long to repeat");
  assert.match(standIn({ jsonrpc: "2.0", id: 4, method: "elicitation/create", params: {} }), comment, "a request of the server");
  assert.match(
    standIn(Array.from({ length: 50 }, (_, i) => ({ jsonrpc: "2.0", id: i, result: {} }))),
    comment,
    "too many answers to stand in",
  );
  assert.match(unkeptFrame("p", { seq: 3, text: "no data line\n\n" }, 9999, 100), comment);
});

test("LIM-14: each bound fits in the next, so the event just appended can always be kept; the cost counts the allocator's rounding", () => {
  const client = { sendCommand: async (): Promise<unknown> => null };
  const fitted = new RedisEventStore(client, { maxEventBytes: 8 << 20, maxSessionEventBytes: 32 << 20, maxTotalEventBytes: 1 << 20 })
    .budgets;
  assert.equal(fitted.maxTotalEventBytes, 1 << 20);
  assert.equal(fitted.maxSessionEventBytes, 1 << 20, "a session holds at most the total");
  assert.ok(
    eventCost(fitted.maxEventBytes) + STREAM_OVERHEAD <= fitted.maxSessionEventBytes,
    `an event fits a session: ${fitted.maxEventBytes}`,
  );
  assert.ok(fitted.maxEventBytes > 700_000, "and no smaller than it must be");
  assert.deepEqual(new RedisEventStore(client).budgets, {
    maxEventBytes: 1 << 20,
    maxSessionEventBytes: 4 << 20,
    maxTotalEventBytes: 64 << 20,
  });
  assert.deepEqual([100, 4096, 4097, 262_144, 262_145, 1 << 20].map(allocationOf), [112, 4096, 5120, 262_144, 327_680, 1 << 20]);
  assert.deepEqual(["7", 7, null].map(replyNumber), [7, 7, Number.NaN]);
});

test("CL-05: a released stream's events expire after endedStreamTtlMs, their counts with them; at once with 0", async (t) => {
  const r = await redisFor(t);
  if (r === undefined) return;
  const store = new RedisEventStore(r.client, { prefix: r.prefix, endedStreamTtlMs: 300 });
  await store.append("s", "done", { seq: 1, text: frame("done", 1, "answer") });
  await store.append("s", "open", { seq: 1, text: frame("open", 1, "still going") });
  await store.release("s", "done");
  const left = Number(await r.client.sendCommand(["PTTL", `${r.prefix}events:s done`]));
  assert.ok(left > 0 && left <= 300, `a short TTL: ${left}`);
  assert.ok(Number(await r.client.sendCommand(["PTTL", `${r.prefix}events:s open`])) > 1_000_000, "the open stream keeps eventTtlMs");
  assert.deepEqual(
    (await store.replay("s", "done", 0))?.map((e) => e.seq),
    [1],
    "still there for a late resume",
  );
  await new Promise<void>((resolve) => setTimeout(resolve, 400));
  assert.equal(await store.replay("s", "done", 0), undefined, "gone");
  // The next script anywhere sweeps its count.
  await store.append("other", "x", { seq: 1, text: frame("x", 1, "z") });
  const held = await stored(r.client, r.url, r.prefix, "s");
  assert.equal(held.counted, held.cost, "the session counts only what is left");
  assert.deepEqual([...held.streams.keys()], ["open"]);
  const now = new RedisEventStore(r.client, { prefix: r.prefix, endedStreamTtlMs: 0 });
  await now.release("s", "open");
  assert.equal(await now.replay("s", "open", 0), undefined);
  await now.forget("other");
  assert.deepEqual(await keysUnder(r.url, r.prefix), []);
});

test("LIM-14: streams Redis expired by itself (eventTtlMs) are taken off the counts by the next script", async (t) => {
  const r = await redisFor(t);
  if (r === undefined) return;
  const store = new RedisEventStore(r.client, { prefix: r.prefix, eventTtlMs: 200 });
  for (let s = 0; s < 5; s++) await store.append(`old${s}`, "a", { seq: 1, text: frame("a", 1, "o".repeat(1000)) });
  assert.ok((await total(r.client, r.prefix)) > 0);
  await new Promise<void>((resolve) => setTimeout(resolve, 300));
  await store.append("new", "a", { seq: 1, text: frame("a", 1, "n") });
  assert.equal(await total(r.client, r.prefix), eventCost(bytesOf(frame("a", 1, "n"))) + STREAM_OVERHEAD);
  await store.forget("new");
  assert.deepEqual(await keysUnder(r.url, r.prefix), []);
});

const SNAPSHOT: EngineSnapshot = {
  format: 1,
  role: "server",
  version: "2025-11-25",
  phase: "operating",
  peerInfo: { name: "c", version: "1" },
  peerCapabilities: {},
  peerInstructions: undefined,
  nextId: 3,
  loggingLevel: undefined,
  subscriptions: [],
};

test("LIM-15: a snapshot over maxSnapshotBytes is not kept (the session leaves the store); a new session past maxTotalSnapshotBytes is refused", async (t) => {
  const r = await redisFor(t);
  if (r === undefined) return;
  const size = bytesOf(JSON.stringify(SNAPSHOT));
  const store = new RedisSessionStore(r.client, { prefix: r.prefix, maxSnapshotBytes: 2000, maxTotalSnapshotBytes: size * 3 + 10 });
  await store.put("a", SNAPSHOT);
  await store.put("b", SNAPSHOT);
  await store.put("c", SNAPSHOT);
  await assert.rejects(store.put("d", SNAPSHOT), /^RangeError: \[LIM-15\] .*maxTotalSnapshotBytes \(\d+\); got none/);
  assert.equal(await store.get("d"), undefined);
  // A session already kept is updated at the bound (refusing it would leave every node a stale state).
  await store.put("a", { ...SNAPSHOT, nextId: 99 });
  assert.equal((await store.get("a"))?.nextId, 99);
  const grown = { ...SNAPSHOT, peerInstructions: "i".repeat(3000) };
  await assert.rejects(store.put("b", grown), /^RangeError: \[LIM-15\] .*maxSnapshotBytes\); got \d+/);
  assert.equal(await store.get("b"), undefined, "the session is no longer kept anywhere");
  assert.equal(await r.client.sendCommand(["EXISTS", `${r.prefix}session:b`]), 0, "nor its old snapshot");
  // Its room is free again.
  await store.put("d", SNAPSHOT);
  const counted = await counters(r.client, `${r.prefix}sessionbytes`);
  assert.equal(counted(" total"), bytesOf(JSON.stringify({ ...SNAPSHOT, nextId: 99 })) + 2 * size);
  for (const id of ["a", "c", "d"]) await store.delete(id);
  assert.deepEqual(await keysUnder(r.url, r.prefix), [], "no key left, counters and index included");
});

test("LIM-15: sessions Redis expired are taken off the total by the next put; a get's renewal is followed, not mistaken for expiry", async (t) => {
  const r = await redisFor(t);
  if (r === undefined) return;
  const size = bytesOf(JSON.stringify(SNAPSHOT));
  const store = new RedisSessionStore(r.client, { prefix: r.prefix, sessionTtlMs: 300, maxTotalSnapshotBytes: size * 2 });
  await store.put("kept", SNAPSHOT);
  await store.put("lapsed", SNAPSHOT);
  // "kept" is read (GETEX renews its key) while "lapsed" is left to expire.
  for (let i = 0; i < 4; i++) {
    await new Promise<void>((resolve) => setTimeout(resolve, 100));
    assert.ok((await store.get("kept")) !== undefined);
  }
  assert.equal(await store.get("lapsed"), undefined);
  await store.put("fresh", SNAPSHOT);
  assert.ok((await store.get("kept")) !== undefined, "the renewed session is still kept and counted");
  await assert.rejects(store.put("more", SNAPSHOT), /LIM-15/, "kept and fresh fill the total");
  await store.delete("kept");
  await store.delete("fresh");
  assert.deepEqual(await keysUnder(r.url, r.prefix), []);
});

function task(taskId: string, ttlMs: number | null = 60_000): StoredTask {
  return { taskId, status: "working", createdAt: 0, lastUpdatedAt: 0, ttlMs, pollIntervalMs: 250 };
}

test("LIM-16: an outcome over maxTaskBytes fails the task instead (-32603 naming the bound); past maxTotalTaskBytes ended tasks go first, then new ones are refused", async (t) => {
  const r = await redisFor(t);
  if (r === undefined) return;
  const store = new RedisTaskStore(r.client, { prefix: r.prefix, maxTaskBytes: 8192, maxTotalTaskBytes: 24 * 1024 });
  await store.create(task("big"));
  const failed = await store.update("big", { status: "completed", result: { content: [{ type: "text", text: "x".repeat(10_000) }] } }, 5);
  assert.ok(failed !== undefined && failed !== "expired");
  assert.equal(failed.status, "failed");
  assert.equal(failed.result, undefined, "the result is not kept");
  assert.equal(failed.error?.code, -32603);
  assert.match(String(failed.error?.message), /^\[LIM-16\] .*maxTaskBytes \(8192\)/);
  // Ended stays ended.
  assert.equal(((await store.update("big", { status: "working" }, 6)) as StoredTask).status, "failed");
  // Fill the total with tasks that end with a 5 KB result each: the oldest ended ones make room.
  for (let i = 0; i < 6; i++) {
    await store.create(task(`t${i}`));
    const done = await store.update(`t${i}`, { status: "completed", result: { text: "y".repeat(5000) } }, 10 + i);
    assert.equal((done as StoredTask).status, "completed", `t${i}`);
  }
  const counted = await counters(r.client, `${r.prefix}taskbytes`);
  assert.ok(counted(" total") <= 24 * 1024, "within the total");
  assert.equal(await store.get("big", 20), undefined, "the oldest ended task was forgotten first");
  assert.equal(await store.get("t0", 20), undefined);
  assert.equal(((await store.get("t5", 20)) as StoredTask).status, "completed", "the newest is kept");
  // Working tasks only, the total full: a new task is refused, a growing one fails.
  const full = new RedisTaskStore(r.client, { prefix: `${r.prefix}full:`, maxTaskBytes: 8192, maxTotalTaskBytes: 4096 });
  await full.create(task("w1"));
  let refused: unknown;
  for (let i = 2; i < 20 && refused === undefined; i++) await full.create(task(`w${i}`)).catch((error: unknown) => (refused = error));
  assert.match(String(refused), /^RangeError: \[LIM-16\] .*maxTotalTaskBytes \(4096\); got none/);
  const grown = await full.update("w1", { status: "completed", result: { text: "z".repeat(3000) } }, 30);
  assert.equal((grown as StoredTask).status, "failed");
});

test("LIM-16: a task expired by the host's clock leaves the counts with its key", async (t) => {
  const r = await redisFor(t);
  if (r === undefined) return;
  const store = new RedisTaskStore(r.client, { prefix: r.prefix });
  await store.create(task("short", 100));
  await store.create(task("long"));
  assert.equal(await store.get("short", 200), "expired");
  const counted = await counters(r.client, `${r.prefix}taskbytes`);
  assert.equal(counted("short"), 0);
  assert.ok(counted("long") > 0);
  assert.equal(counted(" total"), counted("long"));
});
