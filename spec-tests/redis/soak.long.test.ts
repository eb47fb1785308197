// Several processes on one Redis under load and under failure: a soak of 10,000
// requests across three CLI nodes with one killed and restarted midway (every request
// answered exactly once or failed with a typed error, none lost; the keys and the memory
// of Redis back to their baseline once the sessions end), and a Redis restarted mid-run
// (requests fail with a clear error while it is away, and succeed again when it is back).

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  initialize,
  keysUnder,
  messagesOf,
  modernHeaders,
  modernRequest,
  platform,
  post,
  privateRedis,
  redisCommand,
  sessionCall,
  sessionHeaders,
  startNode,
  testRedis,
  until,
  SseReader,
  type Json,
  type NodeProcess,
} from "./harness.js";

const TOTAL = 10_000;
const WORKERS = 30;

async function usedMemory(url: string): Promise<number> {
  const info = String(await redisCommand(url, ["INFO", "memory"]));
  return Number(/used_memory:(\d+)/.exec(info)?.[1]);
}

/** Sessions and stream events in Redis, with their counters and indexes (keys of other kinds, the shared secrets and tasks, are not per-session). */
async function sessionKeys(url: string): Promise<number> {
  return (await keysUnder(url, "mcp:session")).length + (await keysUnder(url, "mcp:event")).length;
}

type Outcome = "answered" | "refused" | "unreachable";

test("soak: 10,000 requests over three nodes, one killed and restarted midway: each answered once or failed typed, none lost; Redis back to its baseline", async (t) => {
  const shared = await testRedis(t);
  if (shared === undefined) return;
  // A database of its own (SELECT 15): the key counts are this test's even when other Redis tests run beside it.
  const redis = `${shared.replace(/\/\d+$/, "")}/15`;
  const baseKeys = await sessionKeys(redis);
  const nodes = await Promise.all([startNode(t, redis), startNode(t, redis), startNode(t, redis)]);
  // The memory baseline once the nodes are connected and Redis has run each store script once
  // (a session made and ended): what stays then is fixed, and the soak looks for what sessions leave.
  const warm = await initialize((nodes[0] as NodeProcess).url, {});
  await sessionCall((nodes[1] as NodeProcess).url, warm, { method: "notifications/initialized" });
  await platform.fetch((nodes[2] as NodeProcess).url, { method: "DELETE", headers: sessionHeaders(warm) });
  await until(async () => (await sessionKeys(redis)) <= baseKeys, "the warm-up session gone from Redis", 5000);
  const baseMemory = await usedMemory(redis);
  const victim = nodes[1] as NodeProcess;
  const outcomes = new Map<Outcome, number>([
    ["answered", 0],
    ["refused", 0],
    ["unreachable", 0],
  ]);
  const problems: string[] = [];
  let next = 0;
  let restarted: Promise<void> | undefined;
  const at = (i: number): string => (nodes[i % 3] as NodeProcess).url;

  /** One request: its outcome, or a problem (a wrong answer, an untyped failure, no answer at all). */
  const one = async (sessionId: string, index: number): Promise<void> => {
    const id = index;
    const method = index % 2 === 0 ? "ping" : "tools/call";
    const params = method === "tools/call" ? { name: "test_simple_text", arguments: {} } : {};
    let response;
    try {
      response = await post(at(index), { jsonrpc: "2.0", id, method, params }, sessionHeaders(sessionId), undefined, 15_000);
    } catch (error) {
      // The node is down or died mid-request: fetch's TypeError (connection refused or reset).
      if (error instanceof TypeError) outcomes.set("unreachable", (outcomes.get("unreachable") ?? 0) + 1);
      else problems.push(`request ${index}: ${String(error)}`);
      return;
    }
    const messages = await messagesOf(response).catch((error: unknown) => {
      problems.push(`request ${index}: body ${String(error)}`);
      return [] as Json[];
    });
    const answers = messages.filter((m) => m.id === id && (m.result !== undefined || m.error !== undefined));
    if (response.status === 200 && answers.length === 1 && answers[0]?.result !== undefined)
      outcomes.set("answered", (outcomes.get("answered") ?? 0) + 1);
    else if (response.status >= 400 && messages.length === 1 && typeof (messages[0]?.error as Json | undefined)?.code === "number")
      outcomes.set("refused", (outcomes.get("refused") ?? 0) + 1);
    else problems.push(`request ${index} (${method} on ${at(index)}): ${response.status} ${JSON.stringify(messages).slice(0, 200)}`);
  };

  const worker = async (w: number): Promise<string> => {
    const sessionId = await initialize(at(w), {});
    await sessionCall(at(w + 1), sessionId, { method: "notifications/initialized" });
    for (;;) {
      const index = next++;
      if (index >= TOTAL) return sessionId;
      if (index === Math.floor(TOTAL * 0.3)) await victim.kill("SIGKILL");
      if (index === Math.floor(TOTAL * 0.5)) restarted = victim.restart();
      await one(sessionId, index);
    }
  };
  const sessions = await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
  await restarted;
  const counted = [...outcomes.values()].reduce((a, b) => a + b, 0);
  t.diagnostic(`outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}`);
  assert.deepEqual(problems.slice(0, 5), [], "no wrong answer, no untyped failure, no request left without an outcome");
  assert.equal(counted, TOTAL, "every request accounted for exactly once");
  assert.ok((outcomes.get("answered") ?? 0) > TOTAL * 0.75, "the nodes alive answered");
  assert.ok((outcomes.get("unreachable") ?? 0) > 0, "the killed node was in the rotation");

  // The restarted node serves sessions it never saw (from Redis).
  const check = await sessionCall(victim.url, sessions[0] as string, { id: "after", method: "ping" });
  assert.equal(check.status, 200);

  for (const [i, sessionId] of sessions.entries()) {
    const deleted = await platform.fetch(at(i), { method: "DELETE", headers: sessionHeaders(sessionId) });
    assert.equal(deleted.status, 200);
  }
  await until(async () => (await sessionKeys(redis)) <= baseKeys, "sessions and their events gone from Redis", 5000);
  const memory = await usedMemory(redis);
  t.diagnostic(`redis used_memory: baseline ${baseMemory}, after ${memory}`);
  assert.ok(memory <= baseMemory + 512 * 1024, `Redis memory back to its baseline (${baseMemory} → ${memory} bytes)`);
});

test("Redis restarted mid-run: requests fail with a clear error while it is away, and succeed again when it is back", async (t) => {
  const redis = await privateRedis(t);
  if (redis === undefined) return;
  const [a, b] = (await Promise.all([startNode(t, redis.url), startNode(t, redis.url)])) as [NodeProcess, NodeProcess];
  const before = await initialize(a.url, {});
  assert.equal((await sessionCall(b.url, before, { id: 1, method: "ping" })).status, 200);

  await redis.stop();
  for (const node of [a, b]) {
    const started = Date.now();
    const during = await sessionCall(node.url, before, { id: 2, method: "ping" });
    assert.equal(during.status, 500, "an internal error while the shared store is away");
    assert.equal((during.messages[0]?.error as Json | undefined)?.code, -32603);
    assert.ok(Date.now() - started < 4000, "it fails at once, not after a long wait");
    const minted = await post(
      node.url,
      {
        jsonrpc: "2.0",
        id: 3,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      },
      sessionHeaders(undefined),
    );
    assert.equal(minted.status, 500, "no session is minted that the other nodes could not find");
    assert.equal(minted.headers.get("mcp-session-id"), null);
    assert.match(JSON.stringify(await messagesOf(minted)), /session store is unavailable/);
  }

  await redis.start();
  // The nodes reconnect by themselves; the old session went with Redis (it saved nothing): 404, a clear answer.
  let after = "";
  await until(
    async () => {
      after = await initialize(a.url, {}).catch(() => "");
      return after !== "";
    },
    "initialize succeeds again",
    8000,
  );
  await until(
    async () => (await sessionCall(b.url, after, { id: 4, method: "ping" }).catch(() => ({ status: 0 }))).status === 200,
    "node B serves the new session",
    5000,
  );
  assert.equal((await sessionCall(b.url, before, { id: 5, method: "ping" })).status, 404);
  // The bus is back too: a listen stream on A hears a change made on B.
  let heard: Json | undefined;
  await until(
    async () => {
      const listen = modernRequest("subscriptions/listen", { notifications: { toolsListChanged: true } });
      const abort = new platform.AbortController();
      const reader = new SseReader(await post(a.url, listen, modernHeaders(listen), abort.signal));
      await reader.message();
      const change = modernRequest("tools/call", { name: "test_trigger_tool_change", arguments: {} });
      await messagesOf(await post(b.url, change, modernHeaders(change)));
      heard = await reader.message(1000).catch(() => undefined);
      abort.abort();
      reader.cancel();
      return heard !== undefined;
    },
    "the bus carries changes again",
    8000,
  );
  assert.equal(heard?.method, "notifications/tools/list_changed");
});
