// The event store's byte budgets seen through the Streamable HTTP handler (RULES.md LIM-14,
// CL-05), against a redis-server of the test's own: many unanswered elicitations of one
// session (the attack that took Redis from 1 to 192 MiB, scaled down) leave Redis within the
// session's budget with the newest still resumable; an answered stream's events go once its
// client has read it to the end, and not before; an answer over maxEventBytes reaches the live
// client whole and a resuming one as an error for its request.

import { test } from "node:test";
import assert from "node:assert/strict";
import { serveHttp } from "../../lib/hosts/http-server.js";
import { Server } from "../../lib/peer/server/server.js";
import { RedisEventStore, type RedisEventStoreOptions } from "../../lib/stores/redis.js";
import { MemoryEventStore } from "../../lib/http-server/options.js";
import { platform, post, sessionCall, sessionHeaders, initialize, SseReader, until, keysUnder, type Json } from "./harness.js";
import { bytesOf, counters, memory, redisFor, stored, type NodeRedis } from "./budget-helpers.js";

type Context = Parameters<Parameters<typeof test>[1]>[0];

interface Served {
  readonly url: string;
  readonly client: NodeRedis;
  readonly redis: string;
  readonly prefix: string;
  readonly errors: unknown[];
}

/** A server on a Redis event store (SSE answers always, so that every answer is an event): tools elicit, big and slow. */
async function serve(t: Context, options: RedisEventStoreOptions, own = false): Promise<Served | undefined> {
  const r = await redisFor(t, own);
  if (r === undefined) return undefined;
  const server = new Server({ info: { name: "budgets", version: "1" }, defaultTimeoutMs: 120_000 });
  const object = { type: "object" as const, properties: { bytes: { type: "number" as const }, delayMs: { type: "number" as const } } };
  server.tool("elicit", { inputSchema: object }, async (args, ctx) => {
    const answer = await ctx.elicit({ message: "m".repeat(Number(args.bytes)), requestedSchema: { type: "object", properties: {} } });
    return { content: [{ type: "text", text: answer.action }] };
  });
  server.tool("big", { inputSchema: object }, async (args) => {
    await new Promise<void>((resolve) => setTimeout(resolve, Number(args.delayMs ?? 0)));
    return { content: [{ type: "text", text: "b".repeat(Number(args.bytes ?? 10)) }] };
  });
  const errors: unknown[] = [];
  const running = await serveHttp(server, {
    eventStore: new RedisEventStore(r.client, { prefix: r.prefix, ...options }),
    responseMode: "sse",
    onError: (error) => errors.push(error),
  });
  t.after(() => running.close());
  return { url: running.url, client: r.client, redis: r.url, prefix: r.prefix, errors };
}

async function session(url: string): Promise<string> {
  const id = await initialize(url, { elicitation: {} });
  await sessionCall(url, id, { method: "notifications/initialized" });
  return id;
}

/** tools/call on an SSE answer; the reader after its priming event, and that event's id. */
async function call(
  url: string,
  sessionId: string,
  id: number,
  name: string,
  args: Json,
): Promise<{ reader: SseReader; primed: string; abort(): void }> {
  const abort = new platform.AbortController();
  const response = await post(
    url,
    { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } },
    sessionHeaders(sessionId),
    abort.signal,
  );
  assert.equal(response.status, 200);
  const reader = new SseReader(response);
  const priming = await reader.next();
  assert.ok(priming?.id !== undefined, "a priming event with an id");
  return {
    reader,
    primed: priming.id,
    abort: () => {
      reader.cancel();
      abort.abort();
    },
  };
}

async function resume(url: string, sessionId: string, last: string): Promise<SseReader> {
  const response = await platform.fetch(url, {
    method: "GET",
    headers: { ...sessionHeaders(sessionId), accept: "text/event-stream", "last-event-id": last },
  });
  assert.equal(response.status, 200);
  return new SseReader(response);
}

/** Waits until the store's total stops moving (the appends of a node are fire-and-forget). */
async function settled(s: Served): Promise<void> {
  let last = -1;
  let same = 0;
  await until(async () => {
    const now = (await counters(s.client, `${s.prefix}eventbytes`))(" total");
    same = now === last ? same + 1 : 0;
    last = now;
    return same >= 5;
  }, "the store settled");
}

test("LIM-14: 40 unanswered elicitations of 256 KiB in one session: Redis grows by at most the session's 2 MiB budget, the newest stay resumable", async (t) => {
  const budget = 2 << 20;
  const s = await serve(t, { maxSessionEventBytes: budget }, true);
  if (s === undefined) return;
  // Warm-up on a session of its own (the scripts compiled, the connections' buffers grown), then ended.
  const warm = await session(s.url);
  (await call(s.url, warm, 1, "elicit", { bytes: 256 * 1024 })).abort();
  await settled(s);
  await platform.fetch(s.url, { method: "DELETE", headers: sessionHeaders(warm) });
  await until(async () => (await keysUnder(s.redis, s.prefix)).length === 0, "the warm-up session's keys gone");
  // used_memory less the connections' buffers (a 256 KiB command leaves one of ~320 KiB that
  // Redis shrinks when it sees fit): what Redis keeps.
  const before = await memory(s.redis);
  const id = await session(s.url);
  const primed: string[] = [];
  for (let i = 1; i <= 40; i++) {
    const open = await call(s.url, id, i, "elicit", { bytes: 256 * 1024 });
    const ask = await open.reader.message();
    assert.equal(ask?.method, "elicitation/create", `call ${i}`);
    primed.push(open.primed);
    // The client goes away without answering (X-09: not a cancellation: the elicitation stays pending).
    open.abort();
  }
  await settled(s);
  const after = await memory(s.redis);
  const grown = after.used - after.clients - (before.used - before.clients);
  const held = await stored(s.client, s.redis, s.prefix, id);
  const elicitations = [...held.streams.values()].flat().length;
  t.diagnostic(
    `used_memory ${before.used} -> ${after.used} (+${after.used - before.used}; less the clients' buffers +${grown}); frames kept ${held.frameBytes} bytes (${elicitations} of 40 elicitations), counted ${held.counted} of ${budget}`,
  );
  assert.ok(grown <= budget + (64 << 10), `Redis grew by ${grown}, at most the budget`);
  assert.ok(held.counted <= budget, `counted within the budget: ${held.counted}`);
  assert.equal(held.counted, held.cost, "the count is what is held");
  assert.ok(held.frameBytes <= budget, `frames within the budget: ${held.frameBytes}`);
  assert.ok(elicitations >= 5 && elicitations < 40, `the newest kept, the oldest evicted (${elicitations})`);
  // The newest elicitation replays to a client that resumes its stream; the oldest is gone from the store.
  const newest = await resume(s.url, id, primed[39] as string);
  const replayed = await newest.message();
  assert.equal(replayed?.method, "elicitation/create");
  assert.equal(bytesOf(String((replayed?.params as Json).message)), 256 * 1024);
  newest.cancel();
  assert.equal(held.streams.get((primed[0] as string).split(":")[0] as string), undefined, "the first stream's event was evicted");
  // The session ends: its keys go, and Redis is back near where it started.
  await platform.fetch(s.url, { method: "DELETE", headers: sessionHeaders(id) });
  await until(async () => (await keysUnder(s.redis, s.prefix)).length === 0, "the session's keys gone");
  const end = await memory(s.redis);
  t.diagnostic(`used_memory after DELETE ${end.used}`);
  const left = end.used - end.clients - (before.used - before.clients);
  assert.ok(left < 256 << 10, `back near the start (${left})`);
  assert.deepEqual(s.errors.map(String), []);
});

test("CL-05: an answered stream read to its end is released (endedStreamTtlMs); one answered while its client was away is kept until a resume reads it", async (t) => {
  const s = await serve(t, { endedStreamTtlMs: 1000 });
  if (s === undefined) return;
  const id = await session(s.url);
  const pttl = async (stream: string): Promise<number> => Number(await s.client.sendCommand(["PTTL", `${s.prefix}events:${id} ${stream}`]));
  // Read to the end on the connection that asked.
  const read = await call(s.url, id, 1, "big", { bytes: 100 });
  const answer = await read.reader.message();
  assert.equal((answer as Json).id, 1);
  assert.equal(await read.reader.next(), undefined, "the stream ends with its answer");
  const first = (read.primed.split(":")[0] as string) ?? "";
  await until(async () => {
    const left = await pttl(first);
    return left > 0 && left <= 1000;
  }, "a short TTL once answered and read");
  // Answered while the client was away: kept (eventTtlMs) until the client resumes and reads it all.
  const away = await call(s.url, id, 2, "big", { bytes: 100, delayMs: 200 });
  away.abort();
  const second = away.primed.split(":")[0] as string;
  await new Promise<void>((resolve) => setTimeout(resolve, 500));
  assert.ok((await pttl(second)) > 60_000, "still kept for the client that is away");
  const resumed = await resume(s.url, id, away.primed);
  assert.equal(((await resumed.message()) as Json).id, 2, "the answer, replayed");
  assert.equal(await resumed.next(), undefined, "and the end");
  await until(async () => {
    const left = await pttl(second);
    return left === -2 || (left > 0 && left <= 1000);
  }, "released once read");
  await new Promise<void>((resolve) => setTimeout(resolve, 1200));
  assert.deepEqual([await pttl(first), await pttl(second)], [-2, -2], "both gone");
  // The next script sweeps what expired: the session counts neither.
  (await call(s.url, id, 3, "big", { bytes: 10 })).abort();
  await settled(s);
  const held = await stored(s.client, s.redis, s.prefix, id);
  assert.equal(held.counted, held.cost);
  assert.ok(![...held.streams.keys()].includes(first) && ![...held.streams.keys()].includes(second));
  assert.deepEqual(s.errors.map(String), []);
});

test("LIM-14: an answer over maxEventBytes reaches the live client whole; a client resuming past it gets -32603 for its request", async (t) => {
  const s = await serve(t, { maxEventBytes: 64 * 1024 });
  if (s === undefined) return;
  const id = await session(s.url);
  const live = await call(s.url, id, 1, "big", { bytes: 200 * 1024 });
  const whole = (await live.reader.message()) as Json;
  assert.equal(bytesOf(String((((whole.result as Json).content as Json[])[0] as Json).text)), 200 * 1024, "live: the whole answer");
  live.abort();
  const away = await call(s.url, id, 2, "big", { bytes: 200 * 1024, delayMs: 200 });
  away.abort();
  await new Promise<void>((resolve) => setTimeout(resolve, 500));
  await settled(s);
  const resumed = await resume(s.url, id, away.primed);
  const answer = (await resumed.message()) as Json;
  assert.equal(answer.id, 2);
  assert.equal((answer.error as Json).code, -32603);
  assert.match(String((answer.error as Json).message), /^\[LIM-14\] the response was \d+ bytes, more than maxEventBytes \(65536\)/);
  resumed.cancel();
  const held = await stored(s.client, s.redis, s.prefix, id);
  assert.ok(held.frameBytes < 4096, `no large frame stored (${held.frameBytes})`);
});

test("CL-05: a store whose release throws or rejects: reported to onError, the answer delivered all the same", async (t) => {
  for (const failing of ["throws", "rejects"] as const) {
    const released: string[] = [];
    const store = new MemoryEventStore();
    const eventStore = Object.assign(store, {
      release: (sessionId: string, streamId: string): Promise<void> => {
        released.push(`${sessionId} ${streamId}`);
        if (failing === "throws") throw new Error("release failed at once");
        return Promise.reject(new Error("release failed later"));
      },
    });
    const server = new Server({ info: { name: "budgets", version: "1" } });
    server.tool("quick", { inputSchema: { type: "object" } }, async () => ({ content: [{ type: "text", text: "done" }] }));
    const errors: unknown[] = [];
    const running = await serveHttp(server, { eventStore, responseMode: "sse", onError: (error) => errors.push(error) });
    t.after(() => running.close());
    const id = await session(running.url);
    const open = await call(running.url, id, 1, "quick", {});
    assert.equal(((await open.reader.message()) as Json).id, 1, failing);
    assert.equal(await open.reader.next(), undefined);
    await until(() => errors.length > 0, `the failure reported (${failing})`);
    assert.match(String(errors[0]), /release failed/);
    // initialize's stream (answered over SSE too, and read) and the call's, each once.
    assert.deepEqual(released.slice(1), [`${id} ${open.primed.split(":")[0]}`]);
    assert.equal(released.length, 2);
  }
});
