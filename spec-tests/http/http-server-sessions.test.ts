// Sessions across hosts and under load, end to end over Streamable HTTP on 127.0.0.1 with the
// platform's raw `fetch` (spec-tests/support/http-server-raw.ts): a session store shared by two
// hosts (two processes behind a balancer), HttpHost as the handler of any node:http server, and
// a load run of 200 sessions × 50 requests with a heap check. Every wait is bounded.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { performance } from "node:perf_hooks";
import type { EngineSnapshot } from "../../lib/engine/engine.js";
import { HttpHost } from "../../lib/hosts/http-server.js";
import { MemorySessionStore, type SessionStore } from "../../lib/http-server/options.js";
import {
  LATEST,
  PROGRESS_TOKEN,
  RawSession,
  SseReader,
  TOOL_NAMES,
  exchange,
  fetch,
  forceGc,
  heapAfterGc,
  messageOf,
  open,
  referenceServer,
  resultOf,
  sampled,
  serve,
  textOf,
  type Json,
} from "../support/http-server-raw.js";

// ── session store ───────────────────────────────────────────────────────────────────

class CountingStore implements SessionStore {
  readonly map = new Map<string, EngineSnapshot>();
  gets = 0;
  puts = 0;
  deletes = 0;
  async get(id: string): Promise<EngineSnapshot | undefined> {
    this.gets++;
    const s = this.map.get(id);
    return s === undefined ? undefined : (JSON.parse(JSON.stringify(s)) as EngineSnapshot);
  }
  async put(id: string, snapshot: EngineSnapshot): Promise<void> {
    this.puts++;
    this.map.set(id, JSON.parse(JSON.stringify(snapshot)) as EngineSnapshot);
  }
  async delete(id: string): Promise<void> {
    this.deletes++;
    this.map.delete(id);
  }
}

test("HTTP-03: session store: snapshots are put after requests; a second host sharing the store serves the session (two processes behind a balancer)", async (t) => {
  const store = new CountingStore();
  const first = await serve(t, { store });
  const session = await open(first.url);
  assert.ok(store.puts >= 2, `put after initialize and initialized, got ${store.puts}`);
  const snapshot = store.map.get(session.id);
  assert.ok(snapshot !== undefined);
  assert.equal(snapshot.version, LATEST);
  assert.equal(snapshot.phase, "operating");
  const puts = store.puts;
  await exchange(session, "resources/subscribe", { uri: "test://watched-resource" });
  await exchange(session, "logging/setLevel", { level: "warning" });
  assert.ok(store.puts >= puts + 2, "a put after each request");
  assert.deepEqual(store.map.get(session.id)?.subscriptions, ["test://watched-resource"]);
  assert.equal(store.map.get(session.id)?.loggingLevel, "warning");

  // Another "process": a second reference server and host, the same store.
  const second = await serve(t, { store });
  const elsewhere = new RawSession(second.url, session.id, LATEST);
  const gets = store.gets;
  const tools = await exchange(elsewhere, "tools/list");
  assert.equal((resultOf(tools).tools as Json[]).length, TOOL_NAMES.length);
  assert.ok(store.gets > gets, "the second host read the snapshot");
  assert.equal(second.host.sessions.size, 1);
  assert.equal(second.server.sessions.size, 1);
  // The restored session keeps the level and the subscription the first host recorded.
  const logged = await exchange(elsewhere, "tools/call", { name: "test_tool_with_logging", arguments: {}, ...PROGRESS_TOKEN(9) });
  const levels = logged.messages.filter((m) => m.method === "notifications/message").map((m) => (m.params as Json).level);
  assert.deepEqual(levels, ["error"], "only messages at or above warning");
  const reader = new SseReader(await elsewhere.get());
  second.server.notifyResourceUpdated("test://watched-resource");
  let update: Json | undefined;
  while (update === undefined) update = messageOf((await reader.next(3000))!);
  assert.equal(update.method, "notifications/resources/updated");
  reader.cancel();
  // Sampling through the second host: the client's answer comes back to it.
  const sampling = await exchange(elsewhere, "tools/call", { name: "test_sampling", arguments: { prompt: "x" } }, sampled);
  assert.equal(textOf(sampling), "LLM response: echo x");
  // An unknown id is still unknown everywhere.
  assert.equal((await new RawSession(second.url, "unknown", LATEST).post({ jsonrpc: "2.0", id: 1, method: "ping" })).status, 404);
  // DELETE on the second host forgets it in the store.
  assert.equal((await fetch(second.url, { method: "DELETE", headers: { "mcp-session-id": session.id } })).status, 200);
  assert.ok(store.deletes >= 1);
  assert.equal(store.map.has(session.id), false);

  // The in-memory store: the default, one entry per live session.
  const memory = new MemorySessionStore();
  const third = await serve(t, { store: memory });
  const s3 = await open(third.url);
  assert.equal(memory.size, 1);
  assert.ok((await memory.get(s3.id)) !== undefined);
  await fetch(third.url, { method: "DELETE", headers: { "mcp-session-id": s3.id } });
  assert.equal(memory.size, 0);
});

test("HttpHost works as the handler of any node:http server", async (t) => {
  const server = referenceServer();
  const host = new HttpHost(server, { path: "/custom", onError: () => {} });
  const http = createServer(host.handle);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
  (t as unknown as { after(fn: () => Promise<void>): void }).after(
    () =>
      new Promise<void>((resolve) => {
        host.closeAll();
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  );
  const address = http.address();
  assert.ok(typeof address === "object" && address !== null);
  const url = `http://127.0.0.1:${address.port}/custom`;
  const session = await open(url);
  assert.equal(host.sessions.size, 1);
  assert.deepEqual((await exchange(session, "ping")).response.result, {});
  assert.equal((await fetch(url.replace("/custom", "/mcp"), { method: "POST", headers: session.headers(), body: "{}" })).status, 404);
  host.closeAll();
  assert.equal(host.sessions.size, 0);
  assert.equal(server.sessions.size, 0);
  assert.equal((await session.post({ jsonrpc: "2.0", id: 1, method: "ping" })).status, 404);
});

// ── load ────────────────────────────────────────────────────────────────────────────

/** Runs `tasks` with at most `limit` in flight. */
async function pool<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, tasks.length) }, async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  });
  await Promise.all(workers);
  return results;
}

test("HTTP-03: load: 200 sessions × 50 requests, answers never mixed up; after DELETE no session is left and the heap is back", async (t) => {
  const SESSIONS = 200;
  const REQUESTS = 50;
  const CONCURRENCY = 64;
  const { url, host, server } = await serve(t);
  const gc = forceGc();
  // Warm up (JIT, connection pool) before the baseline.
  const warm = await open(url);
  for (let i = 0; i < 20; i++) await exchange(warm, "tools/list");
  await fetch(url, { method: "DELETE", headers: { "mcp-session-id": warm.id } });
  const before = gc === undefined ? undefined : await heapAfterGc(gc);

  const started = performance.now();
  const sessions = await pool(
    Array.from({ length: SESSIONS }, () => () => open(url)),
    CONCURRENCY,
  );
  assert.equal(new Set(sessions.map((s) => s.id)).size, SESSIONS, "distinct session ids");
  assert.equal(host.sessions.size, SESSIONS);
  const opened = performance.now();

  const kinds = ["ping", "tools/list", "test_simple_text", "test_tool_fast"] as const;
  const tasks: Array<() => Promise<void>> = [];
  for (let k = 0; k < REQUESTS; k++) {
    for (let s = 0; s < SESSIONS; s++) {
      const session = sessions[s]!;
      const kind = kinds[(k + s) % kinds.length]!;
      const id = `s${s}-r${k}`;
      tasks.push(async () => {
        const body =
          kind === "ping" || kind === "tools/list"
            ? { jsonrpc: "2.0", id, method: kind }
            : { jsonrpc: "2.0", id, method: "tools/call", params: { name: kind, arguments: {} } };
        const response = await session.post(body);
        assert.equal(response.status, 200);
        assert.ok((response.headers.get("content-type") ?? "").startsWith("application/json"));
        const answer = JSON.parse(await response.text()) as Json;
        assert.equal(answer.id, id, "the answer to this very request");
        const result = answer.result as Json;
        if (kind === "ping") assert.deepEqual(result, {});
        else if (kind === "tools/list") assert.equal((result.tools as Json[]).length, TOOL_NAMES.length);
        else
          assert.equal(
            ((result.content as Json[])[0] as Json).text,
            kind === "test_tool_fast" ? "fast" : "This is a simple text response for testing.",
          );
      });
    }
  }
  await pool(tasks, CONCURRENCY);
  const requested = performance.now();

  const deleted = await pool(
    sessions.map((s) => async () => (await fetch(url, { method: "DELETE", headers: { "mcp-session-id": s.id } })).status),
    CONCURRENCY,
  );
  assert.ok(deleted.every((status) => status === 200));
  const done = performance.now();
  assert.equal(host.sessions.size, 0, "the host's session table is empty");
  assert.equal(server.sessions.size, 0, "the server's session set is empty");
  const total = SESSIONS * REQUESTS;
  t.diagnostic(
    `load: ${SESSIONS} sessions opened in ${(opened - started).toFixed(0)} ms; ${total} requests in ${(requested - opened).toFixed(0)} ms ` +
      `(${((total / (requested - opened)) * 1000).toFixed(0)}/s, concurrency ${CONCURRENCY}); deleted in ${(done - requested).toFixed(0)} ms`,
  );
  if (gc === undefined || before === undefined) {
    t.diagnostic("no gc available (run node with --expose-gc): the heap check is skipped");
    return;
  }
  const after = await heapAfterGc(gc);
  t.diagnostic(
    `heap after gc: before ${(before / 1048576).toFixed(1)} MB, after ${(after / 1048576).toFixed(1)} MB (${((after - before) / 1048576).toFixed(2)} MB)`,
  );
  assert.ok(after < before + 20 * 1024 * 1024, `heap grew from ${before} to ${after}`);
});
