// The Streamable HTTP client's failure paths, against a fake fetch and a fake clock
// (spec-tests/support/http-client-fakes.ts): failures around initialize, resumption that fails
// or is refused, a standalone GET stream that keeps failing, re-initialization that breaks, a
// DELETE that hangs or fails, an SSE event over maxEventLength, use without connectHttp, and
// the runtime defaults.

import { test } from "node:test";
import assert from "node:assert/strict";
import { ConnectionClosedError } from "../../lib/peer/index.js";
import { connectHttp, type ConnectHttpOptions } from "../../lib/http-client/transport.js";
import type { ResponseLike } from "../../lib/http-client/types.js";
import {
  FakeBody,
  FakeResponse,
  FakeServer,
  FakeTimers,
  INFO,
  TOOL_RESULT,
  URL_,
  answer,
  connected,
  event,
  initResult,
  json,
  options,
  settle,
  sse,
  status,
  track,
  transportError,
  type Setup,
} from "../support/http-client-fakes.js";

// ── failure paths ─────────────────────────────────────────────────────────────

test("HTTP-03: failures around initialize: network error, a body that is not JSON, an invalid session id, a fetch that throws synchronously", async () => {
  const s1: Setup = { server: new FakeServer(), timers: new FakeTimers(), errors: [] };
  s1.server.routes.push(() => Promise.reject(new Error("ECONNRESET")));
  await assert.rejects(connectHttp(options(s1)), (e: unknown) => {
    const error = transportError(e);
    assert.deepEqual(error.data, { cause: "ECONNRESET" });
    return true;
  });

  const s2: Setup = { server: new FakeServer(), timers: new FakeTimers(), errors: [] };
  s2.server.routes.push((req) =>
    req.body?.method === "initialize"
      ? new FakeResponse(200, { "content-type": "application/json" }, new FakeBody().push("{oops").end(), "{oops")
      : undefined,
  );
  await assert.rejects(connectHttp(options(s2)), (e: unknown) => /not JSON/.test(transportError(e).message));

  // A session id with a space is refused (0x21-0x7E only) and reported; the client goes on without one.
  const s3: Setup = { server: new FakeServer(), timers: new FakeTimers(), errors: [] };
  s3.server.routes.push((req) =>
    req.body?.method === "initialize" ? json(answer(req, initResult()), { "Mcp-Session-Id": "bad id" }) : undefined,
  );
  const conn = await connectHttp(options(s3));
  assert.equal(conn.transport.sessionId, undefined);
  assert.equal(conn.transport.protocolVersion, "2025-11-25");
  assert.ok(s3.errors.some((e) => /session id/.test(e.message)));
  assert.equal(s3.server.find("POST", "notifications/initialized")[0]?.headers["mcp-session-id"], undefined);
  await conn.close();
  assert.equal(s3.server.find("DELETE").length, 0, "no session, no DELETE");

  const s4: Setup = { server: new FakeServer(), timers: new FakeTimers(), errors: [] };
  const throwing = (): Promise<ResponseLike> => {
    throw new Error("sync throw");
  };
  await assert.rejects(connectHttp(options(s4, { fetch: throwing })), (e: unknown) => /sync throw/.test(transportError(e).message));
});

test("HTTP-10, HTTP-03: resumption: a network failure counts as an attempt; a 404 while resuming re-initializes and fails the request", async () => {
  const { server, conn, timers } = await connected();
  const post = new FakeBody();
  server.routes.push((req) =>
    req.method === "POST" && req.body?.method === "tools/call" && (req.body.params as { name: string }).name === "t"
      ? sse(post)
      : undefined,
  );
  let resumes = 0;
  server.routes.push((req) => {
    if (req.method !== "GET" || req.headers["last-event-id"] === undefined) return undefined;
    resumes++;
    return resumes === 1 ? Promise.reject(new Error("ECONNREFUSED")) : status(404);
  });
  server.routes.push((req) =>
    req.body?.method === "initialize" ? json(answer(req, initResult()), { "Mcp-Session-Id": "sess-2" }) : undefined,
  );
  const call = track(conn.client.callTool("t"));
  await settle();
  post.push(event({ id: "r-1", data: "" })).end();
  await timers.advance(1000);
  assert.equal(resumes, 1);
  await timers.advance(1000);
  assert.equal(resumes, 2);
  assert.equal(call.state, "rejected");
  assert.match(transportError(call.error).message, /session expired/);
  assert.equal(conn.transport.sessionId, "sess-2");
  assert.deepEqual(await conn.client.callTool("next"), TOOL_RESULT);
});

test("HTTP-10: resumption refused with 405 fails the request at once", async () => {
  const { server, conn, timers } = await connected();
  server.routes.push((req) =>
    req.method === "POST" && req.body?.method === "tools/call" ? sse(new FakeBody().push(event({ id: "x", data: "" })).end()) : undefined,
  );
  const call = track(conn.client.callTool("t"));
  await timers.advance(1000);
  assert.equal(call.state, "rejected");
  assert.match(transportError(call.error).message, /HTTP 405/);
});

test("HTTP-06: the standalone GET stream: failures are retried a bounded number of times, a 4xx refusal stops it, both reported", async () => {
  let gets = 0;
  const { server, timers, errors } = await connected({ maxReconnectAttempts: 2 }, (s) =>
    s.server.routes.push((req) => {
      if (req.method !== "GET") return undefined;
      gets++;
      return gets === 1 ? Promise.reject(new Error("down")) : status(503);
    }),
  );
  assert.equal(gets, 1);
  await timers.advance(1000);
  assert.equal(gets, 2);
  await timers.advance(1000);
  assert.equal(gets, 3);
  await timers.advance(10_000);
  assert.equal(gets, 3, "two retries, then it gives up");
  assert.ok(errors.some((e) => /could not be reopened/.test(e.message)));
  void server;

  const refused = await connected({}, (s) => s.server.routes.push((req) => (req.method === "GET" ? status(403, "no") : undefined)));
  await refused.timers.advance(10_000);
  assert.equal(refused.server.find("GET").length, 1);
  assert.equal(refused.errors[0]?.status, 403);
});

test("HTTP-03: re-initialization whose notifications/initialized fails, or whose stream breaks, closes the connection", async () => {
  const a = await connected();
  a.server.routes.push((req) => (req.headers["mcp-session-id"] === "sess-1" ? status(404) : undefined));
  a.server.routes.push((req) =>
    req.body?.method === "initialize" ? json(answer(req, initResult()), { "Mcp-Session-Id": "sess-2" }) : undefined,
  );
  a.server.routes.push((req) => (req.body?.method === "notifications/initialized" ? status(500) : undefined));
  await assert.rejects(a.conn.client.callTool("x"), ConnectionClosedError);

  const b = await connected();
  b.server.routes.push((req) => (req.headers["mcp-session-id"] === "sess-1" ? status(404) : undefined));
  b.server.routes.push((req) => (req.body?.method === "initialize" ? Promise.reject(new Error("gone")) : undefined));
  await assert.rejects(b.conn.client.callTool("x"), ConnectionClosedError);
  await b.conn.close();
});

test("HTTP-07: close(): a DELETE that hangs is given up after deleteTimeoutMs; a failing DELETE is reported", async () => {
  const a = await connected({ deleteTimeoutMs: 300 });
  a.server.routes.push((req) => (req.method === "DELETE" ? new Promise<FakeResponse>(() => undefined) : undefined));
  const closing = track(a.conn.close());
  await a.timers.advance(299);
  assert.equal(closing.state, "pending");
  await a.timers.advance(1);
  assert.equal(closing.state, "resolved");
  assert.ok(a.errors.some((e) => /longer than 300 ms/.test(e.message)));
  assert.ok(a.server.find("DELETE")[0]?.signal?.aborted);

  const b = await connected();
  b.server.routes.push((req) => (req.method === "DELETE" ? status(500) : undefined));
  await b.conn.close();
  assert.equal(b.errors[0]?.status, 500);
});

test("LIM-12: an SSE event longer than maxEventLength breaks the stream: reported, the request fails", async () => {
  const { server, conn, errors } = await connected({ maxEventLength: 64 });
  server.routes.push((req) => (req.body?.method === "tools/call" ? sse(new FakeBody().push(`data: ${"x".repeat(100)}\n\n`)) : undefined));
  await assert.rejects(conn.client.callTool("t"), (e: unknown) => /failed before the answer/.test(transportError(e).message));
  assert.ok(errors.some((e) => /longer than 64/.test(e.message)));
});

test("defaults: the runtime's AbortController when none is injected; a throwing onError does not break the transport", async () => {
  const server = new FakeServer();
  const timers = new FakeTimers();
  server.routes.push((req) => (req.body?.method === "notifications/roots/list_changed" ? status(500) : undefined));
  const pending = connectHttp({
    url: URL_,
    fetch: server.fetch as unknown as ConnectHttpOptions<unknown>["fetch"],
    timers,
    info: INFO,
    capabilities: { roots: { listChanged: true } },
    onError: () => {
      throw new Error("callback failed");
    },
  });
  await settle();
  const conn = await pending;
  const signal = server.find("POST", "initialize")[0]?.signal;
  assert.ok(signal !== undefined && typeof signal.addEventListener === "function", "a real AbortSignal was passed");
  conn.client.notify("notifications/roots/list_changed");
  await settle();
  assert.deepEqual(await conn.client.callTool("t"), TOOL_RESULT);
  await conn.close();
});
