// Several real server processes on one real Redis lose nothing one process would keep
// (RULES.md CL-06 … CL-08): a notification made while no GET stream is open reaches the GET
// opened later on another node; a stream resumed on node B follows the stream still live on
// node A to its answer; two nodes sending server requests for one session give distinct ids;
// and, on the stores themselves, a save after DELETE does not bring the session back, the
// mailbox keeps a change once however many nodes mail it, and request-id blocks are unique.

import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { EngineSnapshot } from "../../lib/engine/engine.js";
import { RespClient } from "../../lib/hosts/redis-resp.js";
import { REQUEST_ID_BLOCK } from "../../lib/http-server/options.js";
import { RedisEventStore, RedisSessionStore } from "../../lib/stores/redis.js";
import type { FetchResponse } from "../support/helpers.js";
import {
  NODE_SCRIPT,
  SseReader,
  initialize,
  keysUnder,
  platform,
  post,
  sessionCall,
  sessionHeaders,
  startNode,
  testRedis,
  type Json,
  type NodeProcess,
} from "./harness.js";

function getStream(url: string, sessionId: string, last?: string): Promise<FetchResponse> {
  const headers: Record<string, string> = {
    accept: "text/event-stream",
    "mcp-session-id": sessionId,
    "mcp-protocol-version": "2025-11-25",
  };
  if (last !== undefined) headers["last-event-id"] = last;
  return platform.fetch(url, { method: "GET", headers });
}

test("CL-06: tools/list_changed made on node A while no GET stream is open reaches the GET opened a moment later on node B", async (t) => {
  const redis = await testRedis(t);
  if (redis === undefined) return;
  const [a, b] = (await Promise.all([startNode(t, redis), startNode(t, redis)])) as [NodeProcess, NodeProcess];
  const sessionId = await initialize(a.url, {});
  await sessionCall(b.url, sessionId, { method: "notifications/initialized" });
  const changed = await sessionCall(a.url, sessionId, {
    id: 1,
    method: "tools/call",
    params: { name: "test_trigger_tool_change", arguments: {} },
  });
  assert.equal(changed.status, 200);
  const response = await getStream(b.url, sessionId);
  assert.equal(response.status, 200);
  const reader = new SseReader(response);
  const heard = await reader.message();
  assert.equal(heard?.method, "notifications/tools/list_changed", `the change waited for the GET: ${JSON.stringify(heard)}`);
  reader.cancel();
  await platform.fetch(a.url, { method: "DELETE", headers: sessionHeaders(sessionId) });
});

test("CL-07: a stream resumed with Last-Event-ID on node B follows the stream still live on node A: every event once, in order, then the answer", async (t) => {
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
      params: { name: "ticker", arguments: { count: 40, everyMs: 20 }, _meta: { progressToken: "p" } },
    },
    sessionHeaders(sessionId),
  );
  const reader = new SseReader(response);
  const seen: number[] = [];
  let last: string | undefined;
  while (seen.length < 3) {
    const event = await reader.next();
    assert.ok(event !== undefined);
    if (event.id !== undefined) last = event.id;
    if (event.data !== "") seen.push(Number((event.id as string).slice((event.id as string).lastIndexOf(":") + 1)));
  }
  reader.cancel();
  const resumed = new SseReader(await getStream(b.url, sessionId, last));
  let answer: Json | undefined;
  for (;;) {
    const event = await resumed.next(5000);
    if (event === undefined) break;
    if (event.data === "") continue;
    seen.push(Number((event.id as string).slice((event.id as string).lastIndexOf(":") + 1)));
    const message = JSON.parse(event.data) as Json;
    if (message.id === 1) answer = message;
  }
  assert.deepEqual(
    seen,
    seen.map((_, i) => i + 1),
    "events 1…n, none twice, none missing",
  );
  assert.equal(seen.length, 41, "40 progress notifications and the answer");
  assert.ok(JSON.stringify(answer?.result).includes("ticked"), "the answer came through node B");
});

test("CL-08: two nodes eliciting for one session at the same instant send distinct request ids", async (t) => {
  const redis = await testRedis(t);
  if (redis === undefined) return;
  const [a, b] = (await Promise.all([startNode(t, redis), startNode(t, redis)])) as [NodeProcess, NodeProcess];
  const sessionId = await initialize(a.url, { elicitation: {} });
  await sessionCall(b.url, sessionId, { method: "notifications/initialized" });
  const call = (node: NodeProcess, id: number) =>
    post(
      node.url,
      { jsonrpc: "2.0", id, method: "tools/call", params: { name: "test_elicitation", arguments: { message: "Who?" } } },
      sessionHeaders(sessionId),
    );
  const [onA, onB] = await Promise.all([call(a, 1), call(b, 2)]);
  const [askA, askB] = await Promise.all([new SseReader(onA).message(), new SseReader(onB).message()]);
  assert.equal(askA?.method, "elicitation/create");
  assert.equal(askB?.method, "elicitation/create");
  assert.notEqual(askA?.id, askB?.id, "one id each");
  await platform.fetch(a.url, { method: "DELETE", headers: sessionHeaders(sessionId) });
});

test("CL-04, CL-06, CL-08 on Redis: a save after DELETE keeps the session gone; a tagged mail is kept once and taken once; id blocks are unique", async (t) => {
  const url = await testRedis(t);
  if (url === undefined) return;
  const client = new RespClient({ url });
  await client.connect();
  const prefix = `t${randomUUID().slice(0, 8)}:`;
  t.after(async () => {
    for (const key of await keysUnder(url, prefix)) await client.sendCommand(["DEL", key]);
    await client.close();
  });
  const sessions = new RedisSessionStore(client, { prefix });
  const snapshot = { format: 1, role: "server", version: "2025-11-25", phase: "operating", nextId: 0 } as unknown as EngineSnapshot;
  assert.equal(await sessions.reserveRequestIds("s1"), undefined, "no block for a session the store does not hold");
  assert.equal(await sessions.put("s1", snapshot), true);
  assert.equal(await sessions.reserveRequestIds("s1"), REQUEST_ID_BLOCK);
  assert.equal(await sessions.reserveRequestIds("s1"), 2 * REQUEST_ID_BLOCK);
  assert.equal(await sessions.put("s1", snapshot, true), true, "an update of a session kept");
  await sessions.delete("s1");
  assert.equal(await sessions.put("s1", snapshot, true), false, "a late update of a deleted session");
  assert.equal(await sessions.get("s1"), undefined);
  assert.deepEqual(await keysUnder(url, `${prefix}requestids:`), [], "the counter went with the session");
  const events = new RedisEventStore(client, { prefix });
  await events.mail("s2", '{"n":1}');
  await events.mail("s2", '{"n":2}', "node.c0");
  await events.mail("s2", '{"n":2}', "node.c0");
  await events.mail("s2", '{"n":3}');
  assert.deepEqual(await events.take("s2"), ['{"n":1}', '{"n":2}', '{"n":3}'], "in order, the tagged one once");
  assert.deepEqual(await events.take("s2"), [], "each taken once");
  await events.mail("s2", '{"n":2}', "node.c0");
  assert.deepEqual(await events.take("s2"), [], "a tag seen before is not kept again, even after a take");
  assert.equal(await events.replay("s2", "mailbox", 0), undefined);
  await events.forget("s2");
  assert.deepEqual(await keysUnder(url, prefix), [], "nothing left");
});
