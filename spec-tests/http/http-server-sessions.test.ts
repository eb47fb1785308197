// Sessions across hosts, end to end over Streamable HTTP on 127.0.0.1 with the platform's raw
// `fetch` (spec-tests/support/http-server-raw.ts): a session store shared by two hosts (two
// processes behind a balancer) and HttpHost as the handler of any node:http server. The load
// run of 200 sessions × 50 requests is in http-load.long.test.ts (npm run test:long). Every
// wait is bounded.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
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
