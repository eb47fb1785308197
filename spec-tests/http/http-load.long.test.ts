// Sessions under load, end to end over Streamable HTTP on 127.0.0.1 with the platform's raw
// `fetch` (spec-tests/support/http-server-raw.ts): 200 sessions × 50 requests at a concurrency
// of 64, answers never mixed up, every session gone after DELETE, and the heap back where it
// was (with --expose-gc). A long run: `npm run test:long` (spec-tests/run.ts, --long).

import { test } from "node:test";
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { TOOL_NAMES, exchange, fetch, forceGc, heapAfterGc, open, serve, type Json } from "../support/http-server-raw.js";

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
