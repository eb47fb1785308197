// mcp-engine/stores/redis against a real Redis, with node-redis (the `redis` dev dependency)
// passed as it is: the session store, the event store (Redis Streams), the task store, the
// bus, the shared secrets; and every bad input they meet (ids a peer made up, values in
// Redis that are not ours, messages on the channel that are not ours). Each test works under
// a key prefix of its own and deletes its keys.

import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { RespClient } from "../../lib/hosts/redis-resp.js";
import type { BusMessage } from "../../lib/http-server/bus.js";
import type { EngineSnapshot } from "../../lib/engine/engine.js";
import type { StoredTask } from "../../lib/peer/server/task-store.js";
import { keyPartOk, replyPairs, replyText } from "../../lib/stores/redis-client.js";
import {
  RedisBus,
  RedisEventStore,
  RedisSessionStore,
  RedisTaskStore,
  redisHttpStores,
  sharedSecret,
  wallClock,
  type RedisClientLike,
} from "../../lib/stores/redis.js";
import { keysUnder, testRedis, until } from "./harness.js";

interface NodeRedis extends RedisClientLike {
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
}

type Context = Parameters<Parameters<typeof test>[1]>[0];

/** A connected node-redis client and a fresh prefix; both cleaned up after the test. */
async function redis(t: Context): Promise<{ client: NodeRedis; prefix: string; url: string } | undefined> {
  const url = await testRedis(t);
  if (url === undefined) return undefined;
  const specifier: string = "redis";
  const { createClient } = (await import(specifier)) as { createClient(options: { url: string }): NodeRedis };
  const client = createClient({ url });
  await client.connect();
  const prefix = `t${randomUUID().slice(0, 8)}:`;
  t.after(async () => {
    for (const key of await keysUnder(url, prefix)) await client.sendCommand(["DEL", key]);
    await client.close();
  });
  return { client, prefix, url };
}

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

test("session store: put, get (the TTL renewed), delete; ids a peer made up are unknown, values that are not ours are not sessions", async (t) => {
  const r = await redis(t);
  if (r === undefined) return;
  const store = new RedisSessionStore(r.client, { prefix: r.prefix, sessionTtlMs: 60_000, maxSnapshotBytes: 4096 });
  await store.put("s1", SNAPSHOT);
  assert.deepEqual(await store.get("s1"), JSON.parse(JSON.stringify(SNAPSHOT)));
  const ttl = Number(await r.client.sendCommand(["PTTL", `${r.prefix}session:s1`]));
  assert.ok(ttl > 50_000 && ttl <= 60_000, `the TTL is sessionTtlMs (${ttl})`);
  await store.delete("s1");
  assert.equal(await store.get("s1"), undefined);
  for (const bad of ["", "x".repeat(257), "with space", "naïve", "line\nbreak"]) {
    assert.equal(await store.get(bad), undefined, JSON.stringify(bad));
    await store.delete(bad);
    await assert.rejects(store.put(bad, SNAPSHOT), RangeError);
  }
  for (const [id, value] of [
    ["notjson", "{"],
    ["array", "[1]"],
    ["format2", '{"format":2}'],
    ["huge", JSON.stringify({ format: 1, pad: "x".repeat(5000) })],
  ] as const) {
    await r.client.sendCommand(["SET", `${r.prefix}session:${id}`, value]);
    assert.equal(await store.get(id), undefined, id);
  }
});

test("event store on Redis Streams: replay after a sequence number, per stream; unknown streams, forget, the bound per session, the TTL", async (t) => {
  const r = await redis(t);
  if (r === undefined) return;
  const store = new RedisEventStore(r.client, { prefix: r.prefix, maxEventsPerSession: 4, eventTtlMs: 30_000 });
  for (let seq = 1; seq <= 3; seq++) await store.append("s", "a", { seq, text: `event a${seq}` });
  await store.append("s", "b", { seq: 1, text: "event b1" });
  assert.deepEqual(await store.replay("s", "a", 1), [
    { seq: 2, text: "event a2" },
    { seq: 3, text: "event a3" },
  ]);
  assert.deepEqual(await store.replay("s", "a", 3), [], "a known stream with nothing after");
  assert.equal(await store.replay("s", "c", 0), undefined, "a stream the store never saw");
  assert.equal(await store.replay("other", "a", 0), undefined, "a session the store never saw");
  // The bound: 4 events per session, the oldest trimmed.
  await store.append("s", "b", { seq: 2, text: "event b2" });
  assert.deepEqual(
    (await store.replay("s", "a", 0))?.map((e) => e.seq),
    [2, 3],
  );
  // One Redis Stream per SSE stream, expiring eventTtlMs after its last event.
  const ttl = Number(await r.client.sendCommand(["PTTL", `${r.prefix}events:s b`]));
  assert.ok(ttl > 20_000 && ttl <= 30_000, `eventTtlMs (${ttl})`);
  // Entries that are not ours (other fields, a bad sequence number) are skipped.
  await r.client.sendCommand(["XADD", `${r.prefix}events:s b`, "*", "x", "y"]);
  await r.client.sendCommand(["XADD", `${r.prefix}events:s b`, "*", "q", "NaN", "t", "bad"]);
  assert.deepEqual(
    (await store.replay("s", "b", 0))?.map((e) => e.seq),
    [1, 2],
  );
  await store.forget("s");
  assert.equal(await store.replay("s", "a", 0), undefined);
  for (const bad of ["", "a b", "x".repeat(300)]) {
    await store.append(bad, "a", { seq: 1, text: "x" });
    await store.append("s", bad, { seq: 1, text: "x" });
    assert.equal(await store.replay(bad, "a", 0), undefined);
    assert.equal(await store.replay("s", bad, 0), undefined);
    await store.forget(bad);
  }
  assert.equal(await store.replay("s", "a", 0), undefined, "nothing was written for bad ids");
});

function task(taskId: string, createdAt: number, ttlMs: number | null): StoredTask {
  return { taskId, status: "working", createdAt, lastUpdatedAt: createdAt, ttlMs, pollIntervalMs: 250 };
}

test("task store: create is strongly consistent and refuses a taken id; updates; an ended task stays ended; expiry by the host's clock", async (t) => {
  const r = await redis(t);
  if (r === undefined) return;
  const store = new RedisTaskStore(r.client, { prefix: r.prefix, taskGraceMs: 1000, untimedTaskTtlMs: 5000 });
  await store.create(task("t1", 1000, 10_000));
  assert.deepEqual(await store.get("t1", 2000), task("t1", 1000, 10_000));
  await assert.rejects(store.create(task("t1", 1000, 10_000)), /taken/);
  const asking = await store.update(
    "t1",
    { status: "input_required", statusMessage: "waiting", inputRequests: { "elicitation/create#0": { method: "elicitation/create" } } },
    3000,
  );
  assert.ok(asking !== undefined && asking !== "expired");
  assert.equal(asking.status, "input_required");
  assert.equal(asking.lastUpdatedAt, 3000);
  assert.deepEqual(asking.inputRequests, { "elicitation/create#0": { method: "elicitation/create" } });
  const working = await store.update("t1", { status: "working", statusMessage: null, inputRequests: null }, 3500);
  assert.ok(working !== undefined && working !== "expired");
  assert.equal(working.statusMessage, undefined);
  assert.equal(working.inputRequests, undefined);
  const done = await store.update("t1", { status: "completed", result: { content: [] } }, 4000);
  assert.ok(done !== undefined && done !== "expired");
  assert.deepEqual(done.result, { content: [] }, "an empty array survives the round trip");
  // Ended is final: a late cancel (another node) changes nothing and answers the task as it is.
  const late = await store.update("t1", { status: "cancelled", statusMessage: "too late" }, 4500);
  assert.ok(late !== undefined && late !== "expired");
  assert.equal(late.status, "completed");
  assert.equal(late.lastUpdatedAt, 4000);
  // Past createdAt + ttlMs: expired, and deleted.
  assert.equal(await store.get("t1", 11_000), "expired");
  assert.equal(await store.get("t1", 11_000), undefined);
  await store.create(task("t2", 0, 100));
  assert.equal(await store.update("t2", { status: "failed" }, 200), "expired");
  assert.equal(await store.update("unknown", { status: "failed" }, 0), undefined);
  // Redis keeps a task ttlMs + taskGraceMs, one without TTL untimedTaskTtlMs.
  await store.create(task("t3", 0, 2000));
  await store.create(task("t4", 0, null));
  const ttl3 = Number(await r.client.sendCommand(["PTTL", `${r.prefix}task:t3`]));
  const ttl4 = Number(await r.client.sendCommand(["PTTL", `${r.prefix}task:t4`]));
  assert.ok(ttl3 > 2000 && ttl3 <= 3000, `ttl + grace (${ttl3})`);
  assert.ok(ttl4 > 4000 && ttl4 <= 5000, `untimed (${ttl4})`);
  assert.ok((await store.get("t4", Number.MAX_SAFE_INTEGER)) !== "expired", "no TTL: never expired by the clock");
  // Ids a peer made up, hashes that are not tasks.
  for (const bad of ["", "a b", "x".repeat(300)]) {
    assert.equal(await store.get(bad, 0), undefined);
    assert.equal(await store.update(bad, { status: "failed" }, 0), undefined);
    await assert.rejects(store.create(task(bad, 0, 10)), RangeError);
  }
  await r.client.sendCommand([
    "HSET",
    `${r.prefix}task:odd`,
    "status",
    '"sleeping"',
    "createdAt",
    "0",
    "lastUpdatedAt",
    "0",
    "ttlMs",
    "null",
  ]);
  assert.equal(await store.get("odd", 0), undefined);
  await r.client.sendCommand(["HSET", `${r.prefix}task:odd2`, "status", "{", "createdAt", "0"]);
  assert.equal(await store.get("odd2", 0), undefined);
});

test("bus on Redis pub/sub: another node hears a message, the sender does not; foreign and malformed messages are dropped; bounds", async (t) => {
  const r = await redis(t);
  if (r === undefined) return;
  const one = new RedisBus(r.client, { prefix: r.prefix, nodeId: "one", maxMessageBytes: 2000 });
  const two = redisHttpStores(r.client, { prefix: r.prefix, nodeId: "two" }).bus;
  const heardOne: BusMessage[] = [];
  const heardTwo: BusMessage[] = [];
  await one.subscribe((m) => heardOne.push(m));
  await two.subscribe((m) => heardTwo.push(m));
  const channel = `${r.prefix}bus`;
  for (const raw of ["nospace", " leading", "three {", 'three {"kind":"nope"}', 'three {"kind":"ended"}'])
    await r.client.sendCommand(["PUBLISH", channel, raw]);
  await one.publish({ kind: "ended", session: "s1" });
  await until(() => heardTwo.length > 0, "the other node hears it");
  assert.deepEqual(heardTwo, [{ kind: "ended", session: "s1" }]);
  assert.deepEqual(heardOne, [], "a node does not hear itself, nor what is not a bus message");
  await assert.rejects(one.publish({ kind: "input", session: "s", message: { pad: "x".repeat(3000) } }), RangeError);
  assert.throws(() => new RedisBus(r.client, { nodeId: "a:b" }), RangeError);
  assert.throws(() => new RedisBus(r.client, { nodeId: "a b" }), RangeError);
  assert.ok(keyPartOk(new RedisBus(r.client).nodeId), "a random node id by default");
  await one.close();
  await two.close();
  await one.close();
});

test("shared secrets: the first node makes one, every node reads the same; a corrupt one is an error", async (t) => {
  const r = await redis(t);
  if (r === undefined) return;
  const first = await sharedSecret(r.client, "requestState", { prefix: r.prefix });
  const second = await sharedSecret(r.client, "requestState", { prefix: r.prefix, bytes: 64 });
  assert.equal(first.length, 32);
  assert.deepEqual(second, first);
  await assert.rejects(sharedSecret(r.client, "bad name", { prefix: r.prefix }), RangeError);
  await r.client.sendCommand(["SET", `${r.prefix}keys:corrupt`, "not hex"]);
  await assert.rejects(sharedSecret(r.client, "corrupt", { prefix: r.prefix }), /expected hex/);
});

test("reply readers: RESP2 arrays, RESP3 maps and objects, buffers; anything else reads as nothing", () => {
  assert.deepEqual(
    [...replyPairs(["a", "1", "b", "2", "c"])],
    [
      ["a", "1"],
      ["b", "2"],
    ],
  );
  assert.deepEqual([...replyPairs(new Map([["a", "1"]]))], [["a", "1"]]);
  assert.deepEqual([...replyPairs({ a: "1", b: 2 })], [["a", "1"]]);
  assert.deepEqual([...replyPairs(null)], []);
  assert.deepEqual([...replyPairs([1, "x"])], []);
  assert.deepEqual([...replyPairs(new Map<unknown, unknown>([[1, "x"]]))], []);
  assert.equal(replyText(new TextEncoder().encode("bytes")), "bytes");
  assert.equal(replyText(42), undefined);
});

test("the CLI's Redis client: a command while disconnected is refused at once; a URL that is not redis:// is refused", async (t) => {
  assert.throws(() => new RespClient({ url: "http://127.0.0.1:6379" }), RangeError);
  assert.throws(() => new RespClient({ url: "redis://host:99999" }), RangeError);
  const idle = new RespClient({ url: "redis://127.0.0.1:1" });
  await assert.rejects(idle.sendCommand(["PING"]), /not connected/);
  await assert.rejects(idle.connect(), /cannot connect/);
  const url = await testRedis(t);
  if (url === undefined) return;
  const client = new RespClient({ url: `${url}/0` });
  await client.connect();
  assert.equal(await client.sendCommand(["PING"]), "PONG");
  await assert.rejects(client.sendCommand(["NOSUCHCOMMAND"]), /redis: ERR/);
  assert.deepEqual(await client.sendCommand(["ECHO", "grüße"]), "grüße");
  await client.close();
  await assert.rejects(client.sendCommand(["PING"]), /not connected/);
});

test("the wall clock of redisHttpStores: Date.now on every node, timers that fire and can be cleared", async () => {
  const before = Date.now();
  const now = wallClock.now();
  assert.ok(now >= before && now <= Date.now());
  const fired: string[] = [];
  // The wall clock's timers do not hold the process open: this one does, meanwhile.
  const hold = setTimeout(() => undefined, 10_000);
  await new Promise<void>((resolve) => {
    const cleared = wallClock.setTimeout(() => fired.push("cleared"), 0);
    wallClock.clearTimeout(cleared);
    wallClock.setTimeout(() => {
      fired.push("kept");
      resolve();
    }, 1);
  });
  clearTimeout(hold);
  assert.deepEqual(fired, ["kept"]);
});

test("TK-10: task store list (core tasks): one owner's tasks in creation order, in pages by rank; another owner's cursor is unknown; a forgotten task leaves the index", async (t) => {
  const r = await redis(t);
  if (r === undefined) return;
  const store = new RedisTaskStore(r.client, { prefix: r.prefix });
  const owned = (id: string, createdAt: number, owner: string, ttlMs: number | null = 10_000): StoredTask => ({
    ...task(id, createdAt, ttlMs),
    owner,
  });
  for (let i = 0; i < 5; i++) await store.create(owned(`a${i}`, 100 + i, "auth:alice"));
  await store.create(owned("b0", 50, 'auth:["app","bob"]'));
  await store.create(task("plain", 60, 10_000));
  const first = await store.list("auth:alice", 1000, undefined, 2);
  assert.deepEqual(
    first?.tasks.map((x) => [x.taskId, x.owner]),
    [
      ["a0", "auth:alice"],
      ["a1", "auth:alice"],
    ],
  );
  assert.equal(first?.next, "a1");
  const rest = await store.list("auth:alice", 1000, "a1", 10);
  assert.deepEqual(
    rest?.tasks.map((x) => x.taskId),
    ["a2", "a3", "a4"],
  );
  assert.equal(rest?.next, undefined);
  assert.deepEqual(
    (await store.list('auth:["app","bob"]', 1000, undefined, 10))?.tasks.map((x) => x.taskId),
    ["b0"],
  );
  assert.equal(await store.list("auth:alice", 1000, "b0", 10), undefined, "another owner's task is no cursor here");
  assert.equal(await store.list("auth:alice", 1000, "a b", 10), undefined, "an id a peer made up");
  assert.deepEqual((await store.list("auth:nobody", 1000, undefined, 10))?.tasks, []);
  // Past its TTL a task is not listed; once forgotten (a get found it expired) it leaves the index.
  assert.deepEqual((await store.list("auth:alice", 20_000, undefined, 10))?.tasks, []);
  assert.equal(await store.get("a0", 20_000), "expired");
  assert.equal(Number(await r.client.sendCommand(["ZCARD", `${r.prefix}taskowner:"auth:alice"`])), 4);
  assert.equal(await r.client.sendCommand(["HGET", `${r.prefix}taskowners`, "a0"]), null);
});
