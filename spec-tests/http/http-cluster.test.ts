// Several fetch handlers as several processes (HttpServerOptions.bus with MemoryBusHub, the
// stores shared): the bus hook of lib/http-server/cluster.ts without Redis. An answer to a
// server request POSTed to the wrong node, a cancellation POSTed to the wrong node, a
// message for a GET stream held elsewhere, changes heard once per client, sessions ended
// everywhere or only here, a task cancelled on another node, the bus's own bad input; and
// Engine.adopt, by which a node's copy of a session catches up with the store.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  createHttpHandler,
  MemoryBusHub,
  MemoryEventStore,
  MemorySessionStore,
  parseBusMessage,
  type HttpHandler,
  type MessageBus,
} from "../../lib/http-server/index.js";
import { TASKS_EXTENSION } from "../../lib/rules/negotiated-extensions.js";
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION } from "../../lib/rules/modern.js";
import { Server } from "../../lib/peer/server/server.js";
import type { HandlerContext } from "../../lib/peer/server/server-options.js";
import { MemoryTaskStore } from "../../lib/peer/server/task-store.js";
import { serveTasks } from "../../lib/peer/server/task-support.js";
import { sleep } from "../support/helpers.js";
import { ACCEPT, LATEST, frames, getStream, open, post } from "../support/cluster-fetch.js";
import type { HttpTimers } from "../../lib/peer/shared/timers.js";

const MODERN = "2026-07-28";
type Json = { [key: string]: unknown };

interface Cluster {
  nodes: HttpHandler[];
  servers: Server[];
  store: MemorySessionStore;
  signals: HandlerContext["signal"][];
  errors: unknown[];
}

function cluster(count = 2, options: { bus?: (i: number, hub: MemoryBusHub) => MessageBus; timers?: HttpTimers } = {}): Cluster {
  const hub = new MemoryBusHub();
  const store = new MemorySessionStore();
  const eventStore = new MemoryEventStore();
  const tasks = new MemoryTaskStore();
  const signals: HandlerContext["signal"][] = [];
  const errors: unknown[] = [];
  const servers: Server[] = [];
  const nodes: HttpHandler[] = [];
  let taskIds = 0;
  for (let i = 0; i < count; i++) {
    const server = new Server({
      info: { name: "cluster", version: "1" },
      versions: [LATEST, MODERN],
      capabilities: { resources: { subscribe: true } },
      tasks: serveTasks({ store: tasks, newTaskId: () => `task-${taskIds++}-${i}` }),
    });
    server.tool("ask", {}, async (_args, ctx) => {
      const answer = await ctx.elicit({ message: "name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } });
      return { content: [{ type: "text", text: `hello ${String((answer.content as Json | undefined)?.name)}` }] };
    });
    server.tool("hang", { taskSupport: "optional" }, (_args, ctx) => {
      signals.push(ctx.signal);
      return new Promise((_resolve, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("aborted"))));
    });
    server.tool("askTask", { taskSupport: "optional" }, async (_args, ctx) => {
      const answer = await ctx.elicit({ message: "name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } });
      return { content: [{ type: "text", text: `task hello ${String((answer.content as Json | undefined)?.name)}` }] };
    });
    server.resource("test://watched", { name: "watched" }, (uri) => ({ contents: [{ uri, text: "v" }] }));
    servers.push(server);
    nodes.push(
      createHttpHandler(server, {
        store,
        eventStore,
        bus: options.bus?.(i, hub) ?? hub.node(),
        onError: (e) => errors.push(e),
        ...(options.timers === undefined ? {} : { timers: options.timers }),
      }),
    );
  }
  return { nodes, servers, store, signals, errors };
}

function modern(id: number, method: string, params: Json = {}, capabilities: Json = {}): Request {
  const body = {
    jsonrpc: "2.0",
    id,
    method,
    params: {
      ...params,
      _meta: { [META_PROTOCOL_VERSION]: MODERN, [META_CLIENT_CAPABILITIES]: capabilities, [META_CLIENT_INFO]: { name: "t", version: "1" } },
    },
  };
  const headers: Record<string, string> = {
    host: "localhost",
    accept: ACCEPT,
    "content-type": "application/json",
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
  };
  if (method === "tools/call") headers["mcp-name"] = String(params.name);
  if (method.startsWith("tasks/")) headers["mcp-name"] = String(params.taskId);
  return new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(body) });
}

test("CL-02: cluster: an elicitation asked on node A is answered by a POST to node B; a stray answer is accepted and changes nothing", async () => {
  const { nodes } = cluster();
  const [a, b] = nodes as [HttpHandler, HttpHandler];
  const session = await open(a, b, { elicitation: {} });
  const stream = frames(
    await a.fetch(post({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "ask", arguments: {} } }, session)),
  );
  const ask = await stream.next();
  assert.equal(ask.message.method, "elicitation/create");
  assert.match(ask.id as string, /^m0\.[0-9A-Za-z]+\.s[0-9a-z]+:1$/, "stream ids carry the node's id and a nonce of its start");
  const stray = await b.fetch(post({ jsonrpc: "2.0", id: 999, result: { action: "cancel" } }, session));
  assert.equal(stray.status, 202);
  const answer = await b.fetch(
    post({ jsonrpc: "2.0", id: ask.message.id, result: { action: "accept", content: { name: "ada" } } }, session),
  );
  assert.equal(answer.status, 202);
  const done = await stream.next();
  assert.equal(done.message.id, 5);
  assert.deepEqual(done.message.result, { content: [{ type: "text", text: "hello ada" }] });
});

test("CL-02, X-01: cluster: notifications/cancelled POSTed to node B stops the request running on node A and ends its stream", async () => {
  const { nodes, signals } = cluster();
  const [a, b] = nodes as [HttpHandler, HttpHandler];
  const session = await open(a, b);
  const pending = a.fetch(post({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "hang", arguments: {} } }, session));
  await until(() => signals.length === 1);
  assert.equal(
    (
      await b.fetch(
        post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 8, reason: "changed my mind" } }, session),
      )
    ).status,
    202,
  );
  await until(() => signals[0]?.aborted === true);
  const res = await pending;
  assert.doesNotMatch(await res.text(), /data: \{/, "the stream that awaited the cancelled request ends, unanswered (X-04)");
});

test("CL-03: cluster: a message for the GET stream goes to the node holding it; a resource change reaches a subscriber once, through that node", async () => {
  const { nodes, servers } = cluster(3);
  const [a, b, c] = nodes as [HttpHandler, HttpHandler, HttpHandler];
  const session = await open(a, b);
  const get = await c.fetch(getStream(session));
  assert.equal(get.status, 200);
  const stream = frames(get);
  // B's copy has something unrelated to say: C holds the GET stream.
  const onB = b.endpoint.sessions.get(session);
  assert.ok(onB !== undefined);
  onB.route({
    message: { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "from B" } },
    relatedRequestId: undefined,
  });
  assert.deepEqual(onB.backlog, []);
  assert.deepEqual((await stream.next()).message.params, { level: "info", data: "from B" });
  // Subscribed through A, changed on B: C (holding the stream) adopts the subscription and tells the client, once.
  const subscribed = await a.fetch(
    post({ jsonrpc: "2.0", id: 3, method: "resources/subscribe", params: { uri: "test://watched" } }, session),
  );
  assert.equal(subscribed.status, 200);
  await subscribed.text();
  servers[1]?.notifyResourceUpdated("test://watched");
  const updated = await stream.next();
  assert.equal(updated.message.method, "notifications/resources/updated");
  assert.deepEqual(updated.message.params, { uri: "test://watched" });
  onB.route({
    message: { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "marker" } },
    relatedRequestId: undefined,
  });
  assert.deepEqual((await stream.next()).message.params, { level: "info", data: "marker" }, "nothing came twice before the marker");
  stream.cancel();
});

test("CL-03: cluster: one GET stream per session across nodes: opening it on node B ends the one node A held; messages then go to B", async () => {
  const { nodes } = cluster(3);
  const [a, b, c] = nodes as [HttpHandler, HttpHandler, HttpHandler];
  const session = await open(a, b);
  const first = await a.fetch(getStream(session));
  assert.equal(first.status, 200);
  const onA = frames(first);
  const second = frames(await b.fetch(getStream(session)));
  await assert.rejects(onA.next(), /the stream ended/, "the stream on A ends once B holds one");
  assert.equal(a.endpoint.sessions.get(session)?.standalone, undefined);
  // C loads the session (a request), then has something unrelated to say: it goes to B's stream.
  await (await c.fetch(post({ jsonrpc: "2.0", id: 1, method: "ping" }, session))).text();
  const onC = c.endpoint.sessions.get(session);
  assert.ok(onC !== undefined);
  onC.route({
    message: { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "to B" } },
    relatedRequestId: undefined,
  });
  assert.deepEqual((await second.next()).message.params, { level: "info", data: "to B" });
  second.cancel();
});

test("CL-03: cluster: subscriptions/listen on node A hears a tool registered on node B (2026-07-28)", async () => {
  const { nodes, servers } = cluster();
  const [a] = nodes as [HttpHandler, HttpHandler];
  const listen = frames(await a.fetch(modern(1, "subscriptions/listen", { notifications: { toolsListChanged: true } })));
  assert.equal((await listen.next()).message.method, "notifications/subscriptions/acknowledged");
  servers[1]?.tool("late", {}, () => ({ content: [] }));
  assert.equal((await listen.next()).message.method, "notifications/tools/list_changed");
  listen.cancel();
});

test("CL-02: cluster: a task running on node A, cancelled on node B: its handler stops on A", async () => {
  const { nodes, signals } = cluster();
  const [a, b] = nodes as [HttpHandler, HttpHandler];
  const caps = { extensions: { [TASKS_EXTENSION]: {} } };
  const created = (await (await a.fetch(modern(1, "tools/call", { name: "hang", arguments: {} }, caps))).json()) as { result: Json };
  const taskId = created.result.taskId as string;
  await until(() => signals.length === 1);
  const cancelled = await b.fetch(modern(2, "tasks/cancel", { taskId }, caps));
  assert.equal(cancelled.status, 200);
  await until(() => signals[0]?.aborted === true);
  const got = (await (await a.fetch(modern(3, "tasks/get", { taskId }, caps))).json()) as { result: Json };
  assert.equal(got.result.status, "cancelled");
});

test("CL-02: cluster: a task on node A asks for input; tasks/update on node B answers it; the task completes on A", async () => {
  const { nodes } = cluster();
  const [a, b] = nodes as [HttpHandler, HttpHandler];
  const caps = { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } };
  const created = (await (await a.fetch(modern(1, "tools/call", { name: "askTask", arguments: {} }, caps))).json()) as { result: Json };
  const taskId = created.result.taskId as string;
  let task: Json = {};
  const poll = async (node: HttpHandler, id: number): Promise<Json> =>
    ((await (await node.fetch(modern(id, "tasks/get", { taskId }, caps))).json()) as { result: Json }).result;
  for (let i = 0; i < 200 && task.status !== "input_required"; i++) task = await poll(b, 10 + i);
  assert.equal(task.status, "input_required");
  const key = Object.keys(task.inputRequests as Json)[0] as string;
  const updated = await b.fetch(
    modern(2, "tasks/update", { taskId, inputResponses: { [key]: { action: "accept", content: { name: "bob" } } } }, caps),
  );
  assert.equal(updated.status, 200);
  for (let i = 0; i < 200 && task.status !== "completed"; i++) {
    task = await poll(b, 300 + i);
    await sleep(1);
  }
  assert.equal(task.status, "completed");
  assert.deepEqual(task.result, { content: [{ type: "text", text: "task hello bob" }] });
});

test("CL-01: cluster: stateless 2026-07-28 nodes need only the bus and the task store (no shared session or event store)", async () => {
  const hub = new MemoryBusHub();
  const tasks = new MemoryTaskStore();
  const servers = [0, 1].map((i) => {
    const server = new Server({
      info: { name: "stateless", version: "1" },
      versions: [MODERN],
      tasks: serveTasks({ store: tasks, newTaskId: () => `t${i}` }),
    });
    server.tool(
      "slow",
      { taskSupport: "optional" },
      (_args, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("aborted")))),
    );
    return server;
  });
  const [a, b] = servers.map((server) => createHttpHandler(server, { eras: "modern", bus: hub.node(), onError: () => undefined })) as [
    HttpHandler,
    HttpHandler,
  ];
  const caps = { extensions: { [TASKS_EXTENSION]: {} } };
  const listen = frames(await a.fetch(modern(1, "subscriptions/listen", { notifications: { toolsListChanged: true } })));
  assert.equal((await listen.next()).message.method, "notifications/subscriptions/acknowledged");
  servers[1]?.tool("late", {}, () => ({ content: [] }));
  assert.equal((await listen.next()).message.method, "notifications/tools/list_changed");
  listen.cancel();
  const created = (await (await a.fetch(modern(2, "tools/call", { name: "slow", arguments: {} }, caps))).json()) as { result: Json };
  const got = (await (await b.fetch(modern(3, "tasks/get", { taskId: created.result.taskId }, caps))).json()) as { result: Json };
  assert.equal(got.result.status, "working");
  assert.equal((await b.fetch(modern(4, "tasks/cancel", { taskId: created.result.taskId }, caps))).status, 200);
});

test("CL-04: cluster: DELETE on one node ends the session on all; going idle or shutting down drops only that node's copy", async () => {
  const timers = manualTimers();
  const { nodes, store } = cluster(3, { timers });
  const [a, b, c] = nodes as [HttpHandler, HttpHandler, HttpHandler];
  const session = await open(a, b);
  assert.ok(a.endpoint.sessions.has(session) && b.endpoint.sessions.has(session));
  // A goes idle: its copy goes, the session stays (B and C carry on).
  timers.fireAll();
  assert.equal(a.endpoint.sessions.has(session), false);
  assert.equal(store.size, 1);
  const ping = await c.fetch(post({ jsonrpc: "2.0", id: 1, method: "ping" }, session));
  assert.equal(ping.status, 200);
  // B shuts down: the same.
  b.close();
  assert.equal(store.size, 1);
  // C deletes: every node's copy goes.
  const back = await a.fetch(post({ jsonrpc: "2.0", id: 2, method: "ping" }, session));
  assert.equal(back.status, 200);
  const deleted = await c.fetch(
    new Request("http://localhost/mcp", { method: "DELETE", headers: { host: "localhost", "mcp-session-id": session } }),
  );
  assert.equal(deleted.status, 200);
  await until(() => !a.endpoint.sessions.has(session));
  assert.equal(store.size, 0);
  assert.equal((await a.fetch(post({ jsonrpc: "2.0", id: 3, method: "ping" }, session))).status, 404);
});

test("CL-01: cluster: a session gone from the shared store is gone on the node that still had a copy", async () => {
  const { nodes, store } = cluster();
  const [a] = nodes as [HttpHandler, HttpHandler];
  const session = await open(a);
  await store.delete(session);
  assert.equal((await a.fetch(post({ jsonrpc: "2.0", id: 1, method: "ping" }, session))).status, 404);
  assert.equal(a.endpoint.sessions.has(session), false);
});

test("CL-02: cluster: a bus that fails is reported to onError, never thrown into a request", async () => {
  const failing = (mode: "throw" | "reject"): MessageBus => ({
    nodeId: "f",
    shared: true,
    publish: () => {
      if (mode === "throw") throw new Error("bus down");
      return Promise.reject(new Error("bus down"));
    },
    subscribe: () => Promise.reject(new Error("cannot subscribe")),
    close: () => {
      throw new Error("cannot close");
    },
  });
  for (const mode of ["throw", "reject"] as const) {
    const { nodes, errors } = cluster(1, { bus: () => failing(mode) });
    const node = nodes[0] as HttpHandler;
    const session = await open(node);
    const res = await node.fetch(post({ jsonrpc: "2.0", id: 9, result: {} }, session));
    assert.equal(res.status, 202);
    const deleted = await node.fetch(
      new Request("http://localhost/mcp", { method: "DELETE", headers: { host: "localhost", "mcp-session-id": session } }),
    );
    assert.equal(deleted.status, 200);
    node.close();
    await sleep(0);
    const texts = errors.map((e) => String(e));
    assert.ok(texts.includes("Error: bus down"), `${mode}: ${texts.join("; ")}`);
    assert.ok(texts.includes("Error: cannot subscribe") && texts.includes("Error: cannot close"));
  }
});

test("CL-02: bus messages: only the five kinds, each with its fields; anything else is dropped", () => {
  assert.deepEqual(parseBusMessage('{"kind":"ended","session":"s"}'), { kind: "ended", session: "s" });
  assert.deepEqual(parseBusMessage('{"kind":"stream","session":"s"}'), { kind: "stream", session: "s" });
  assert.deepEqual(parseBusMessage('{"kind":"input","session":"s","message":{"id":1}}'), {
    kind: "input",
    session: "s",
    message: { id: 1 },
  });
  assert.deepEqual(parseBusMessage('{"kind":"change","change":{"kind":"listChanged","method":"m"}}'), {
    kind: "change",
    change: { kind: "listChanged", method: "m" },
  });
  assert.deepEqual(parseBusMessage('{"kind":"change","change":{"kind":"resourceUpdated","uri":"u"}}'), {
    kind: "change",
    change: { kind: "resourceUpdated", uri: "u" },
  });
  assert.deepEqual(parseBusMessage('{"kind":"change","change":{"kind":"task","task":{"taskId":"t"}}}'), {
    kind: "change",
    change: { kind: "task", task: { taskId: "t" } },
  });
  assert.deepEqual(parseBusMessage('{"kind":"change","change":{"kind":"taskInput","taskId":"t","inputResponses":{"k":{}}}}'), {
    kind: "change",
    change: { kind: "taskInput", taskId: "t", inputResponses: { k: {} } },
  });
  for (const bad of [
    '{"kind":"change","change":{"kind":"taskInput","taskId":"t"}}',
    "",
    "{",
    "[]",
    "null",
    '{"kind":"nope"}',
    '{"kind":"ended"}',
    '{"kind":"deliver","session":"s","message":[]}',
    '{"kind":"input","session":1,"message":{}}',
    '{"kind":"change"}',
    '{"kind":"change","change":{"kind":"__proto__"}}',
    '{"kind":"change","change":{"kind":"listChanged"}}',
    '{"kind":"change","change":{"kind":"resourceUpdated","uri":1}}',
    '{"kind":"change","change":{"kind":"task","task":"t"}}',
  ]) {
    assert.equal(parseBusMessage(bad), undefined, bad);
  }
});

test("CL-01: Engine.adopt: a newer snapshot of the same session moves the phase forward, replaces level and subscriptions, keeps ids unique; another version is ignored", async () => {
  // One process: no block of request ids (CL-08), so adopt keeps ids past the snapshot's counter.
  const node = createHttpHandler(new Server({ info: { name: "adopt", version: "1" }, versions: [LATEST] }), { onError: () => undefined });
  const res = await node.fetch(
    post({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
  );
  await res.text();
  const engine = node.endpoint.sessions.get(res.headers.get("mcp-session-id") as string)?.session.engine;
  assert.ok(engine !== undefined);
  const before = engine.snapshot();
  assert.equal(before.phase, "initializing");
  engine.adopt({ ...before, phase: "operating", loggingLevel: "error", subscriptions: ["test://a"], nextId: 40 });
  assert.deepEqual(
    { ...engine.snapshot(), peerInstructions: undefined },
    { ...before, phase: "operating", loggingLevel: "error", subscriptions: ["test://a"], nextId: 40, peerInstructions: undefined },
  );
  engine.adopt({ ...before, subscriptions: ["test://b"], nextId: 2 });
  const after = engine.snapshot();
  assert.equal(after.phase, "operating", "the phase never moves back");
  assert.deepEqual(after.subscriptions, ["test://b"]);
  assert.equal(after.nextId, 40, "ids never go back");
  engine.adopt({ ...before, version: "2025-06-18", loggingLevel: "debug" });
  engine.adopt({ ...before, role: "client", loggingLevel: "debug" });
  assert.equal(engine.snapshot().loggingLevel, undefined, "a snapshot of another version or role is ignored");
  assert.equal(engine.awaitsResponse("x"), false);
  assert.equal(engine.awaitsResponse(0), false);
});

function manualTimers(): HttpTimers & { fireAll(): void } {
  let next = 0;
  const pending = new Map<number, () => void>();
  return {
    now: () => 0,
    setTimeout: (fn: () => void) => {
      pending.set(next, fn);
      return next++;
    },
    clearTimeout: (handle: unknown) => void pending.delete(handle as number),
    fireAll: () => {
      const due = [...pending.values()];
      pending.clear();
      for (const fn of due) fn();
    },
  };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await sleep(2);
  assert.ok(check(), "the condition came true");
}

test("M-09: an empty batch is refused (400, Invalid request) whether the bus is shared or not: forwarding answers leaves it as it is", async () => {
  for (const shared of [true, false]) {
    const server = new Server({ info: { name: "batch", version: "1" }, versions: ["2025-03-26"] });
    const node = createHttpHandler(
      server,
      shared ? { bus: new MemoryBusHub().node(), onError: () => undefined } : { onError: () => undefined },
    );
    const res = await node.fetch(
      post({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    );
    await res.text();
    const session = res.headers.get("mcp-session-id") as string;
    const empty = await node.fetch(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: {
          host: "localhost",
          accept: ACCEPT,
          "content-type": "application/json",
          "mcp-session-id": session,
          "mcp-protocol-version": "2025-03-26",
        },
        body: "[]",
      }),
    );
    assert.equal(empty.status, 400, `shared ${shared}`);
    assert.equal(((await empty.json()) as { error: { code: number } }).error.code, -32600);
  }
});
