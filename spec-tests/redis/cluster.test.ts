// Several real server processes on one real Redis behave as one MCP server: the
// session era round robin, an elicitation answered on another node, an SSE stream resumed
// on another node after its node was killed, a listen stream hearing a change made
// elsewhere, a task steered from three nodes. The soak and the Redis restart are in
// soak.long.test.ts. Nodes are the CLI's `serve --http --redis` (its own Redis client) and, for
// the resumed stream, node.ts (node-redis as an application passes it).

import { test } from "node:test";
import assert from "node:assert/strict";
import { TASKS_EXTENSION } from "../../lib/rules/negotiated-extensions.js";
import { META_SUBSCRIPTION_ID } from "../../lib/rules/modern.js";
import type { FetchResponse } from "../support/helpers.js";
import {
  NODE_SCRIPT,
  SseReader,
  initialize,
  keysUnder,
  redisCommand,
  messagesOf,
  modernHeaders,
  modernRequest,
  platform,
  post,
  sessionCall,
  sessionHeaders,
  startNode,
  testRedis,
  until,
  type Json,
  type NodeProcess,
} from "./harness.js";

type Context = Parameters<Parameters<typeof test>[1]>[0];

async function threeNodes(t: Context): Promise<NodeProcess[] | undefined> {
  const redis = await testRedis(t);
  if (redis === undefined) return undefined;
  return Promise.all([startNode(t, redis), startNode(t, redis), startNode(t, redis)]);
}

test("round robin over three nodes (session era): initialize on one, notifications on the next, every request on another; all answered, ids intact", async (t) => {
  const nodes = await threeNodes(t);
  if (nodes === undefined) return;
  const at = (i: number): string => (nodes[i % 3] as NodeProcess).url;
  const sessionId = await initialize(at(0), {});
  const initialized = await sessionCall(at(1), sessionId, { method: "notifications/initialized" });
  assert.equal(initialized.status, 202);
  const methods = ["tools/list", "ping", "tools/call", "prompts/list", "resources/list", "tools/call"];
  for (let i = 0; i < 12; i++) {
    const method = methods[i % methods.length] as string;
    const id = 100 + i;
    const params = method === "tools/call" ? { name: "test_simple_text", arguments: {} } : {};
    const answer = await sessionCall(at(i + 2), sessionId, { id, method, params });
    assert.equal(answer.status, 200, `${method} on node ${(i + 2) % 3}`);
    const response = answer.messages.find((m) => m.id !== undefined);
    assert.equal(response?.id, id, `${method}: the answer carries its request's id`);
    assert.ok(response?.result !== undefined, `${method} answered: ${JSON.stringify(response)}`);
  }
  // A string id, and a logging level set on one node that another node's copy adopts.
  const level = await sessionCall(at(0), sessionId, { id: "set-level", method: "logging/setLevel", params: { level: "error" } });
  assert.equal(level.messages[0]?.id, "set-level");
  // DELETE on one node ends the session on all of them.
  const deleted = await platform.fetch(at(1), { method: "DELETE", headers: sessionHeaders(sessionId) });
  assert.equal(deleted.status, 200);
  for (let i = 0; i < 3; i++) {
    await until(
      async () => (await sessionCall(at(i), sessionId, { id: 900 + i, method: "ping" })).status === 404,
      `node ${i} forgot the ended session`,
      3000,
    );
  }
});

test("elicitation: a tool on node A asks the client; the answer POSTed to node B reaches it; the tool completes on A", async (t) => {
  const nodes = await threeNodes(t);
  if (nodes === undefined) return;
  const [a, b] = nodes as [NodeProcess, NodeProcess, NodeProcess];
  const sessionId = await initialize(b.url, { elicitation: {} });
  await sessionCall(a.url, sessionId, { method: "notifications/initialized" });
  const response = await post(
    a.url,
    { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "test_elicitation", arguments: { message: "Who are you?" } } },
    sessionHeaders(sessionId),
  );
  assert.equal(response.status, 200);
  const reader = new SseReader(response);
  const ask = await reader.message();
  assert.equal(ask?.method, "elicitation/create", `the elicitation request first: ${JSON.stringify(ask)}`);
  const answered = await sessionCall(b.url, sessionId, {
    id: ask?.id,
    result: { action: "accept", content: { username: "ada", email: "ada@example.com" } },
  });
  assert.equal(answered.status, 202, "node B accepts the answer it does not await");
  const result = await reader.message();
  assert.equal(result?.id, 7);
  const text = JSON.stringify(result?.result);
  assert.ok(text.includes("ada"), `the tool saw the answer given on node B: ${text}`);
  await platform.fetch(a.url, { method: "DELETE", headers: sessionHeaders(sessionId) });
});

test("an SSE stream on node A, A killed mid-stream: resumed with Last-Event-ID on node B, every event exactly once", async (t) => {
  const redis = await testRedis(t);
  if (redis === undefined) return;
  const [a, b] = await Promise.all([startNode(t, redis, NODE_SCRIPT), startNode(t, redis, NODE_SCRIPT)]);
  const sessionId = await initialize(a.url, {});
  await sessionCall(b.url, sessionId, { method: "notifications/initialized" });
  const response = await post(
    a.url,
    {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "ticker", arguments: { count: 200, everyMs: 10 }, _meta: { progressToken: "p" } },
    },
    sessionHeaders(sessionId),
  );
  const reader = new SseReader(response);
  const seen: string[] = [];
  let last: string | undefined;
  while (seen.length < 5) {
    const event = await reader.next();
    assert.ok(event !== undefined, "the stream goes on");
    if (event.id !== undefined) last = event.id;
    if (event.data !== "") seen.push(event.id as string);
  }
  // The client stops reading; A goes on writing to Redis a little, then dies.
  await new Promise<void>((resolve) => setTimeout(resolve, 150));
  await a.kill("SIGKILL");
  reader.cancel();
  const resumed = await withLastEventId(b.url, sessionId, last as string);
  assert.equal(resumed.status, 200);
  const replayed = (await resumed.text()).split(/\n\n/).flatMap((block) => {
    const id = /^id: ?(.*)$/m.exec(block)?.[1];
    return id !== undefined && /^data:/m.test(block) ? [id] : [];
  });
  const all = [...seen, ...replayed];
  assert.equal(new Set(all).size, all.length, `no event twice: ${all.join(" ")}`);
  const stream = (last as string).slice(0, (last as string).lastIndexOf(":"));
  const sequence = all.map((id) => Number(id.slice(id.lastIndexOf(":") + 1)));
  assert.deepEqual(
    sequence,
    sequence.map((_, i) => i + 1),
    "events 1…n in order, none missing",
  );
  assert.ok(
    all.every((id) => id.startsWith(`${stream}:`)),
    "all of one stream",
  );
  assert.ok(replayed.length > 0, "node A had sent more than the client read before it died");
  assert.ok(sequence.length < 200, "A died before the end");
  // Every event A stored is what the client got, the two parts together.
  const stored = (await storedEvents(redis, sessionId)).filter((s) => s === stream).length;
  assert.equal(all.length, stored);
  // The session carries on on B, and ends there: its events go with it.
  assert.equal((await sessionCall(b.url, sessionId, { id: 2, method: "ping" })).status, 200);
  assert.equal((await platform.fetch(b.url, { method: "DELETE", headers: sessionHeaders(sessionId) })).status, 200);
  await until(
    async () => (await keysUnder(redis, `mcp:event`)).filter((key) => key.includes(sessionId)).length === 0,
    "the ended session's events deleted, its order and size with them",
  );
});

function withLastEventId(url: string, sessionId: string, last: string): Promise<FetchResponse> {
  return platform.fetch(url, {
    method: "GET",
    headers: { accept: "text/event-stream", "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25", "last-event-id": last },
  });
}

/** The stream of every event kept for a session (one Redis Stream per SSE stream, "mcp:events:<session> <stream>"). */
async function storedEvents(redis: string, sessionId: string): Promise<string[]> {
  const streams: string[] = [];
  for (const key of await keysUnder(redis, `mcp:events:${sessionId} `)) {
    const entries = (await redisCommand(redis, ["XRANGE", key, "-", "+"])) as unknown[];
    for (let i = 0; i < entries.length; i++) streams.push(key.slice(key.indexOf(" ") + 1));
  }
  return streams;
}

test("subscriptions/listen on node A hears a change made on node C (2026-07-28)", async (t) => {
  const nodes = await threeNodes(t);
  if (nodes === undefined) return;
  const [a, , c] = nodes as [NodeProcess, NodeProcess, NodeProcess];
  const listen = modernRequest("subscriptions/listen", { notifications: { toolsListChanged: true } });
  const abort = new platform.AbortController();
  const response = await post(a.url, listen, modernHeaders(listen), abort.signal);
  assert.equal(response.status, 200);
  const reader = new SseReader(response);
  const ack = await reader.message();
  assert.equal(ack?.method, "notifications/subscriptions/acknowledged");
  const change = modernRequest("tools/call", { name: "test_trigger_tool_change", arguments: {} });
  const changed = await post(c.url, change, modernHeaders(change));
  const [answer] = await messagesOf(changed);
  assert.ok(answer?.result !== undefined, `the change made on C: ${JSON.stringify(answer)}`);
  const heard = await reader.message();
  assert.equal(heard?.method, "notifications/tools/list_changed");
  assert.equal(((heard?.params as Json)._meta as Json)[META_SUBSCRIPTION_ID], listen.id);
  abort.abort();
  reader.cancel();
});

test("a task created on node A is polled on node B and cancelled on node C", async (t) => {
  const nodes = await threeNodes(t);
  if (nodes === undefined) return;
  const [a, b, c] = nodes as [NodeProcess, NodeProcess, NodeProcess];
  const redis = process.env.MCP_TEST_REDIS_URL;
  const caps = { extensions: { [TASKS_EXTENSION]: {} } };
  const send = async (node: NodeProcess, method: string, params: Json): Promise<Json> => {
    const body = modernRequest(method, params, caps);
    const [answer] = await messagesOf(await post(node.url, body, modernHeaders(body)));
    assert.ok(answer !== undefined && answer.id === body.id, `${method} answered with its id: ${JSON.stringify(answer)}`);
    return answer;
  };
  const created = (await send(a, "tools/call", { name: "slow_compute", arguments: { seconds: 30, label: "x" } })).result as Json;
  assert.equal(created.resultType, "task");
  const taskId = created.taskId as string;
  const got = await send(b, "tasks/get", { taskId });
  const polled = got.result as Json;
  assert.ok(polled !== undefined, JSON.stringify(got));
  assert.equal(polled.status, "working");
  assert.equal(polled.taskId, taskId);
  const bare = (answer: Json): Json => {
    const { _meta: _ignored, resultType: _type, ...rest } = answer.result as Json;
    return rest;
  };
  assert.deepEqual(bare(await send(c, "tasks/cancel", { taskId })), {});
  const after = (await send(a, "tasks/get", { taskId })).result as Json;
  assert.equal(after.status, "cancelled");
  // A cancel of an ended task is an empty ack, wherever it lands; the task stays cancelled.
  assert.deepEqual(bare(await send(b, "tasks/cancel", { taskId })), {});
  assert.equal(((await send(c, "tasks/get", { taskId })).result as Json).status, "cancelled");
  if (redis !== undefined) assert.ok((await keysUnder(redis, `mcp:task:${taskId}`)).length === 1);
});
