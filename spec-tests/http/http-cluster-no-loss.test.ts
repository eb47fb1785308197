// Several fetch handlers as several processes (MemoryBusHub, shared in-memory stores) lose
// nothing one process would keep (RULES.md CL-06 … CL-08): a message for the GET stream
// while no node holds one waits in the session's mailbox; a stream resumed on another node
// follows its writer to the answer; server-request ids stay unique across nodes; a session
// ended on one node stays ended whatever another node saves late; an abandoned GET served
// late leaves the newer one alone.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  createHttpHandler,
  MemoryBusHub,
  MemoryEventStore,
  MemorySessionStore,
  type EventStore,
  type HttpHandler,
  type MessageBus,
  type SessionStore,
} from "../../lib/http-server/index.js";
import { Server } from "../../lib/peer/server/server.js";
import type { EngineSnapshot, Outbound } from "../../lib/engine/engine.js";
import { sleep } from "../support/helpers.js";
import { LATEST, frames, getStream, open, post, type Frame } from "../support/cluster-fetch.js";

type Json = { [key: string]: unknown };

interface Nodes {
  nodes: HttpHandler[];
  servers: Server[];
  store: MemorySessionStore;
  /** Opens the gate the `gated` tool waits at (between its first and second progress). */
  release(): void;
  errors: unknown[];
}

/** A SessionStore whose get can be held back (an abandoned request served late). */
class SlowStore implements SessionStore {
  hold: Promise<void> | undefined;
  constructor(readonly inner: MemorySessionStore) {}
  async get(id: string): Promise<EngineSnapshot | undefined> {
    const hold = this.hold;
    const snapshot = await this.inner.get(id);
    if (hold !== undefined) await hold;
    return snapshot;
  }
  holdPuts: Promise<void> | undefined;
  put: SessionStore["put"] = async (id, snapshot, update) => {
    if (this.holdPuts !== undefined) await this.holdPuts;
    return this.inner.put(id, snapshot, update);
  };
  delete = (id: string): Promise<void> => this.inner.delete(id);
  holdReserve: Promise<void> | undefined;
  reserveRequestIds = async (id: string): Promise<number | undefined> => {
    if (this.holdReserve !== undefined) await this.holdReserve;
    return this.inner.reserveRequestIds(id);
  };
}

function held(): { hold: Promise<void>; letGo: () => void } {
  let letGo: () => void = () => undefined;
  const hold = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  return { hold, letGo };
}

/** A node of the hub that never hears "mail" (pub/sub is at most once). */
function deaf(hub: MemoryBusHub): MessageBus {
  const bus = hub.node();
  return { ...bus, subscribe: (listener) => bus.subscribe((m) => (m.kind === "mail" ? undefined : listener(m))) };
}

function nodes(
  count: number,
  storeOf: (i: number, store: MemorySessionStore) => SessionStore = (_i, s) => s,
  busOf: (i: number, hub: MemoryBusHub) => MessageBus = (_i, hub) => hub.node(),
  eventStore: EventStore = new MemoryEventStore(),
): Nodes {
  const hub = new MemoryBusHub();
  const store = new MemorySessionStore();
  const errors: unknown[] = [];
  const servers: Server[] = [];
  const handlers: HttpHandler[] = [];
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  for (let i = 0; i < count; i++) {
    const server = new Server({ info: { name: "no-loss", version: "1" }, versions: [LATEST] });
    server.tool("ask", {}, async (_args, ctx) => {
      const answer = await ctx.elicit({ message: "name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } });
      return { content: [{ type: "text", text: `hello ${String((answer.content as Json | undefined)?.name)}` }] };
    });
    server.tool("gated", {}, async (_args, ctx) => {
      ctx.progress(1, 3, "before");
      await gate;
      ctx.progress(2, 3, "after");
      ctx.progress(3, 3, "last");
      return { content: [{ type: "text", text: "through" }] };
    });
    servers.push(server);
    handlers.push(createHttpHandler(server, { store: storeOf(i, store), eventStore, bus: busOf(i, hub), onError: (e) => errors.push(e) }));
  }
  return { nodes: handlers, servers, store, release: () => open(), errors };
}

function note(data: string): Outbound {
  return {
    message: { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data } } as unknown as Outbound["message"],
    relatedRequestId: undefined,
  };
}

/** Starts the `gated` tool on `node` and reads its first progress; the client then goes away. */
async function gatedStarted(node: HttpHandler, session: string, id = 7): Promise<string> {
  const res = await node.fetch(
    post(
      { jsonrpc: "2.0", id, method: "tools/call", params: { name: "gated", arguments: {}, _meta: { progressToken: `g${id}` } } },
      session,
    ),
  );
  const stream = frames(res);
  const first = await stream.next();
  assert.equal((first.message.params as Json).message, "before");
  stream.cancel();
  return first.id as string;
}

/** Resumes the stream after `last` on node `b`, drops that resume, then resumes it on node `a`: the reader on A. */
async function resumedOnBThenOnA(a: HttpHandler, b: HttpHandler, session: string, last: string): Promise<ReturnType<typeof frames>> {
  const onB = new AbortController();
  const dropped = frames(await b.fetch(getStream(session, last, onB.signal)));
  await sleep(5);
  dropped.cancel();
  onB.abort();
  await sleep(5);
  const onA = frames(await a.fetch(getStream(session, last)));
  await sleep(5);
  return onA;
}

function progressOf(list: Frame[]): unknown[] {
  return list.map((f) => (f.message.method === undefined ? `answer ${String(f.message.id)}` : (f.message.params as Json).message));
}

test("CL-06: messages for the GET stream made while no node holds one wait in the mailbox; the GET opened on another node gets them in order, once", async () => {
  const { nodes: all, servers } = nodes(3);
  const [a, b, c] = all as [HttpHandler, HttpHandler, HttpHandler];
  const session = await open(a, b);
  a.endpoint.sessions.get(session)?.route(note("first, from A"));
  await sleep(5);
  servers[1]?.tool("added", {}, () => ({ content: [] }));
  await sleep(5);
  b.endpoint.sessions.get(session)?.route(note("third, from B"));
  await sleep(5);
  const stream = frames(await c.fetch(getStream(session)));
  assert.deepEqual((await stream.next()).message.params, { level: "info", data: "first, from A" });
  assert.equal(
    (await stream.next()).message.method,
    "notifications/tools/list_changed",
    "the change, once, though two nodes had the session",
  );
  assert.deepEqual((await stream.next()).message.params, { level: "info", data: "third, from B" });
  a.endpoint.sessions.get(session)?.route(note("marker"));
  assert.deepEqual((await stream.next()).message.params, { level: "info", data: "marker" }, "nothing came twice before the marker");
  stream.cancel();
});

test("CL-06: a message mailed while the GET stream is open on another node reaches that stream, and a second GET finds the mailbox empty", async () => {
  const { nodes: all } = nodes(2);
  const [a, b] = all as [HttpHandler, HttpHandler];
  const session = await open(a, b);
  const stream = frames(await b.fetch(getStream(session)));
  await sleep(5);
  a.endpoint.sessions.get(session)?.route(note("live"));
  assert.deepEqual((await stream.next()).message.params, { level: "info", data: "live" });
  stream.cancel();
  await sleep(5);
  a.endpoint.sessions.get(session)?.route(note("after"));
  const again = frames(await a.fetch(getStream(session)));
  assert.deepEqual((await again.next()).message.params, { level: "info", data: "after" });
  again.cancel();
});

test("CL-07: a stream resumed with Last-Event-ID on node B follows the stream still live on node A to its answer, then ends", async () => {
  const { nodes: all, release } = nodes(2);
  const [a, b] = all as [HttpHandler, HttpHandler];
  const session = await open(a, b);
  const last = await gatedStarted(a, session);
  const resumed = await b.fetch(getStream(session, last));
  assert.equal(resumed.status, 200);
  const reader = frames(resumed);
  await sleep(5);
  release();
  const rest = await reader.rest();
  assert.deepEqual(progressOf(rest), ["after", "last", "answer 7"]);
  const seqs = rest.map((f) => Number(f.id?.slice(f.id.lastIndexOf(":") + 1)));
  assert.deepEqual(seqs, [2, 3, 4], "event ids follow on from the one resumed after");
});

test("CL-07: a resume on node B of a stream node A already answered replays the rest and ends", async () => {
  const { nodes: all, release } = nodes(2);
  const [a, b] = all as [HttpHandler, HttpHandler];
  const session = await open(a, b);
  const last = await gatedStarted(a, session);
  release();
  await sleep(10);
  const rest = await frames(await b.fetch(getStream(session, last))).rest();
  assert.deepEqual(progressOf(rest), ["after", "last", "answer 7"]);
});

test("CL-07 (sim seed 2001094): a stream resumed on node B and dropped, then resumed on its writer A, carries on there to the answer", async () => {
  const { nodes: all, release } = nodes(2);
  const [a, b] = all as [HttpHandler, HttpHandler];
  const session = await open(a, b);
  const last = await gatedStarted(a, session);
  const onA = await resumedOnBThenOnA(a, b, session, last);
  release();
  assert.deepEqual(progressOf(await onA.rest()), ["after", "last", "answer 7"]);
});

test("CL-07 (sim 'f'): two resumes of one stream overlapping on node B: the older ends, the newer gets every event once, in order", async () => {
  const { nodes: all, release } = nodes(2);
  const [a, b] = all as [HttpHandler, HttpHandler];
  const session = await open(a, b);
  const last = await gatedStarted(a, session);
  const older = frames(await b.fetch(getStream(session, last)));
  const newer = frames(await b.fetch(getStream(session, last)));
  release();
  const [olderRest, newerRest] = await Promise.all([older.rest(), newer.rest()]);
  assert.deepEqual(progressOf(newerRest), ["after", "last", "answer 7"]);
  assert.deepEqual(olderRest, [], "the older reader ended when the newer one came");
});

test("CL-08: two nodes sending server requests for one session at once give them distinct ids, and each answer settles its own", async () => {
  const { nodes: all } = nodes(2);
  const [a, b] = all as [HttpHandler, HttpHandler];
  const session = await open(a, b, { elicitation: {} });
  const call = (id: number) => post({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "ask", arguments: {} } }, session);
  const [onA, onB] = await Promise.all([a.fetch(call(1)), b.fetch(call(2))]);
  const streamA = frames(onA);
  const streamB = frames(onB);
  const [askA, askB] = [(await streamA.next()).message, (await streamB.next()).message];
  assert.equal(askA.method, "elicitation/create");
  assert.equal(askB.method, "elicitation/create");
  assert.notEqual(askA.id, askB.id, "one id each");
  for (const ask of [askA, askB]) assert.ok(Number.isSafeInteger(ask.id) && (ask.id as number) >= 0, "an integer id, valid in every era");
  // Each answer posted to the other node.
  await b.fetch(post({ jsonrpc: "2.0", id: askA.id, result: { action: "accept", content: { name: "ada" } } }, session));
  await a.fetch(post({ jsonrpc: "2.0", id: askB.id, result: { action: "accept", content: { name: "bob" } } }, session));
  assert.deepEqual((await streamA.next()).message.result, { content: [{ type: "text", text: "hello ada" }] });
  assert.deepEqual((await streamB.next()).message.result, { content: [{ type: "text", text: "hello bob" }] });
});

test("CL-08 (sim 'j'): a node's copy of a session sends no request before the store has reserved its block of ids, even for a request that found the copy while the block was on its way", async () => {
  let slow: SlowStore | undefined;
  const { nodes: all } = nodes(2, (i, inner) => (i === 1 ? (slow = new SlowStore(inner)) : inner));
  const [a, b] = all as [HttpHandler, HttpHandler];
  const store = slow as SlowStore;
  const session = await open(a, a, { elicitation: {} });
  const call = (id: number) => post({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "ask", arguments: {} } }, session);
  // B's first request reads the snapshot slowly; its second makes B's copy, whose block is slow to come.
  const lookup = held();
  store.hold = lookup.hold;
  const first = b.fetch(call(1));
  await sleep(5);
  store.hold = undefined;
  const block = held();
  store.holdReserve = block.hold;
  const second = b.fetch(call(2));
  await sleep(5);
  lookup.letGo();
  await sleep(5);
  store.holdReserve = undefined;
  block.letGo();
  const onA = frames(await a.fetch(call(3)));
  const asks = [(await frames(await first).next()).message, (await frames(await second).next()).message, (await onA.next()).message];
  assert.deepEqual(
    asks.map((m) => m.method),
    ["elicitation/create", "elicitation/create", "elicitation/create"],
  );
  const ids = asks.map((m) => m.id as number);
  assert.equal(new Set(ids).size, 3, `one id each; got ${ids.join(", ")}`);
  assert.ok(
    ids[0] !== undefined && ids[0] >= 65_536 && ids[1] !== undefined && ids[1] >= 65_536,
    `B's ids are from its block; got ${ids.join(", ")}`,
  );
});

test("CL-07 (sim 'k'): a stream resumed on node B before node A's appends of it reach the store follows it instead of answering 404", async () => {
  const inner = new MemoryEventStore();
  let appends: Promise<void> | undefined;
  const slowEvents: EventStore = {
    append: async (sid, stream, event) => {
      if (appends !== undefined) await appends;
      return inner.append(sid, stream, event);
    },
    replay: (sid, stream, after) => inner.replay(sid, stream, after),
    forget: (sid) => inner.forget(sid),
  };
  const { nodes: all, release } = nodes(2, undefined, undefined, slowEvents);
  const [a, b] = all as [HttpHandler, HttpHandler];
  const session = await open(b, b);
  const late = held();
  appends = late.hold;
  const last = await gatedStarted(a, session);
  const resumed = b.fetch(getStream(session, last));
  await sleep(5);
  appends = undefined;
  late.letGo();
  const res = await resumed;
  assert.equal(res.status, 200, "followed, not 404");
  release();
  assert.deepEqual(progressOf(await frames(res).rest()), ["after", "last", "answer 7"]);
});

test("CL-07 (sim seed 24137): a claim from node B's reader, delayed on the bus past the client's later resume on the writer A, leaves A's resume alone: it carries on to the answer", async () => {
  // Node A hears follow claims only when let go: the claim of B's reader is still on its way when the client resumes on A.
  const claims = held();
  const slowClaims = (hub: MemoryBusHub): MessageBus => {
    const bus = hub.node();
    return {
      ...bus,
      subscribe: (listener) =>
        bus.subscribe((m) => (m.kind === "follow" && m.claim ? void claims.hold.then(() => listener(m)) : listener(m))),
    };
  };
  const { nodes: all, release } = nodes(2, undefined, (i, hub) => (i === 0 ? slowClaims(hub) : hub.node()));
  const [a, b] = all as [HttpHandler, HttpHandler];
  const session = await open(a, b);
  const last = await gatedStarted(a, session);
  const onA = await resumedOnBThenOnA(a, b, session, last);
  claims.letGo();
  await sleep(5);
  release();
  assert.deepEqual(progressOf(await onA.rest()), ["after", "last", "answer 7"], "the stale claim did not end the resume on A");
});

test("CL-07 (sim seed 302210): a node that makes its copy of a session again (the earlier one dropped) names its streams apart from the earlier copy's, so an event id names one event", async () => {
  const { nodes: all } = nodes(2);
  const [a, b] = all as [HttpHandler, HttpHandler];
  const session = await open(a, b);
  let calls = 10;
  const streamsOf = async (): Promise<string[]> => {
    const ids = [await gatedStarted(b, session, calls++), await gatedStarted(b, session, calls++)];
    return ids.map((id) => id.slice(0, id.lastIndexOf(":")));
  };
  const first = await streamsOf();
  const copy = b.endpoint.sessions.get(session);
  assert.ok(copy !== undefined);
  b.endpoint.endSession(copy, "idle");
  assert.equal(b.endpoint.sessions.has(session), false, "B dropped its copy");
  const second = await streamsOf();
  assert.deepEqual(
    second.filter((id) => first.includes(id)),
    [],
    `the new copy's streams (${second.join(", ")}) reuse ids of the earlier copy's (${first.join(", ")})`,
  );
});

test("CL-04 (sim 'd'): a session DELETEd on node B while node A's save of it is still on its way stays ended: the late save does not bring it back", async () => {
  let slow: SlowStore | undefined;
  const { nodes: all, store } = nodes(2, (i, inner) => (i === 0 ? (slow = new SlowStore(inner)) : inner));
  const [a, b] = all as [HttpHandler, HttpHandler];
  const session = await open(b, b);
  let letGo: () => void = () => undefined;
  (slow as SlowStore).holdPuts = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  // A changes the session (a logging level): its save waits in the store.
  const level = await a.fetch(post({ jsonrpc: "2.0", id: 3, method: "logging/setLevel", params: { level: "error" } }, session));
  assert.equal(level.status, 200);
  const deleted = await b.fetch(
    new Request("http://localhost/mcp", {
      method: "DELETE",
      headers: { host: "localhost", "mcp-session-id": session, "mcp-protocol-version": LATEST },
    }),
  );
  assert.equal(deleted.status, 200);
  letGo();
  await sleep(10);
  assert.equal(await store.get(session), undefined, "the store does not hold it again");
  for (const node of [a, b]) assert.equal((await node.fetch(post({ jsonrpc: "2.0", id: 9, method: "ping" }, session))).status, 404);
});

test("CL-03 (sim 'e'): a GET abandoned by its client and served late on node A does not end the newer GET stream on node B", async () => {
  let slow: SlowStore | undefined;
  const { nodes: all } = nodes(2, (i, store) => (i === 0 ? (slow = new SlowStore(store)) : store));
  const [a, b] = all as [HttpHandler, HttpHandler];
  const session = await open(b, b);
  let letGo: () => void = () => undefined;
  (slow as SlowStore).hold = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  const abandon = new AbortController();
  const late = a.fetch(getStream(session, undefined, abandon.signal));
  await sleep(5);
  abandon.abort();
  const newer = frames(await b.fetch(getStream(session)));
  (slow as SlowStore).hold = undefined;
  letGo();
  // Its client is gone, so nobody reads its answer (the runtime would have dropped the connection).
  void late.catch(() => undefined);
  await sleep(10);
  b.endpoint.sessions.get(session)?.route(note("still open"));
  assert.deepEqual((await newer.next()).message.params, { level: "info", data: "still open" });
  newer.cancel();
});

test("CL-09: a lost bus message delays a mailed message, never loses it: the GET stream's next connection takes it", async () => {
  const { nodes: all } = nodes(2, undefined, (i, hub) => (i === 1 ? deaf(hub) : hub.node()));
  const [a, b] = all as [HttpHandler, HttpHandler];
  const session = await open(a, b);
  const first = frames(await b.fetch(getStream(session)));
  await sleep(5);
  a.endpoint.sessions.get(session)?.route(note("unheard"));
  await sleep(10);
  first.cancel();
  await sleep(5);
  const second = frames(await b.fetch(getStream(session)));
  assert.deepEqual((await second.next()).message.params, { level: "info", data: "unheard" });
  second.cancel();
});

test("CL-01: notifications/initialized posted to node B is answered 202 only once the store holds the operating session, so node A serves the next request", async () => {
  let slow: SlowStore | undefined;
  const { nodes: all } = nodes(2, (i, inner) => (i === 1 ? (slow = new SlowStore(inner)) : inner));
  const [a, b] = all as [HttpHandler, HttpHandler];
  const created = await a.fetch(
    post({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
  );
  await created.text();
  const session = created.headers.get("mcp-session-id") as string;
  const { hold, letGo } = held();
  (slow as SlowStore).holdPuts = hold;
  let answered = false;
  const initialized = b.fetch(post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)).then((res) => {
    answered = true;
    return res;
  });
  await sleep(20);
  assert.equal(answered, false, "no 202 while the store has not the new phase");
  letGo();
  assert.equal((await initialized).status, 202);
  const listed = await a.fetch(post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, session));
  const body = await listed.text();
  assert.ok(body.includes('"tools"'), `node A serves the operating session: ${body}`);
});
