// The Streamable HTTP client (lib/http-client/transport.ts) against a fake fetch and a fake
// clock (spec-tests/support/http-client-fakes.ts). Time never passes unless a test advances it,
// so every `retry` wait is checked one millisecond early and exactly on time.
//
// Covered: JSON and SSE answers, 202 for notifications, session id and MCP-Protocol-Version
// headers, HTTP errors → McpError, resumption with Last-Event-ID honouring `retry` and its
// bound, the standalone GET stream (and 405), 404 → one shared re-initialization then one
// retry, re-initialization failure → ConnectionClosedError, and DELETE on close. The legacy
// fallback, failure paths, the SSE parser and 2026-07-28 mode have files of their own
// (http-client-*.test.ts).

import { test } from "node:test";
import assert from "node:assert/strict";
import { ConnectionClosedError } from "../../lib/peer/index.js";
import {
  FakeBody,
  TOOL_RESULT,
  URL_,
  answer,
  connected,
  event,
  initResult,
  json,
  mcpError,
  settle,
  sse,
  status,
  track,
  transportError,
  type Setup,
} from "../support/http-client-fakes.js";

// ── JSON, SSE, headers ────────────────────────────────────────────────────────

test("HTTP-01, HTTP-03, L-07: initialize over JSON: session id captured; later POSTs carry it and MCP-Protocol-Version; Accept lists both", async () => {
  const { server, conn, errors } = await connected();
  assert.equal(conn.server.version, "2025-11-25");
  assert.equal(conn.transport.sessionId, "sess-1");
  const [init] = server.find("POST", "initialize");
  assert.ok(init !== undefined);
  assert.equal(init.url, URL_);
  assert.equal(init.headers["content-type"], "application/json");
  assert.equal(init.headers.accept, "application/json, text/event-stream");
  assert.equal(init.headers["mcp-session-id"], undefined);
  assert.equal(init.headers["mcp-protocol-version"], undefined);
  const [initialized] = server.find("POST", "notifications/initialized");
  assert.ok(initialized !== undefined);
  assert.equal(initialized.headers["mcp-session-id"], "sess-1");
  assert.equal(initialized.headers["mcp-protocol-version"], "2025-11-25");
  const result = await conn.client.callTool("t", {});
  assert.deepEqual(result, TOOL_RESULT);
  const [call] = server.find("POST", "tools/call");
  assert.ok(call !== undefined);
  assert.equal(call.headers["mcp-session-id"], "sess-1");
  assert.equal(call.headers["mcp-protocol-version"], "2025-11-25");
  assert.equal(call.headers.accept, "application/json, text/event-stream");
  assert.deepEqual(errors, []);
});

test("HTTP-02: a notification answered 202 needs nothing more; one answered 500 goes to onError", async () => {
  const { server, conn, timers, errors } = await connected({ capabilities: { roots: { listChanged: true } } });
  conn.client.notify("notifications/roots/list_changed");
  await settle();
  assert.equal(server.find("POST", "notifications/roots/list_changed").length, 1);
  assert.equal(errors.length, 0);
  server.routes.push((req) => (req.body?.method === "notifications/roots/list_changed" ? status(500, "boom") : undefined));
  conn.client.notify("notifications/roots/list_changed");
  await timers.advance(0);
  assert.equal(errors.length, 1);
  assert.equal(errors[0]?.status, 500);
  assert.match(errors[0]?.message ?? "", /HTTP 500: boom/);
});

test("HTTP-01, HTTP-09: an SSE answer cut at awkward places: CRLF split, UTF-8 split, multi-line data, a priming event, a log notification first", async () => {
  const { server, conn } = await connected();
  const logs: unknown[] = [];
  conn.client.onNotification("notifications/message", (p) => logs.push(p));
  const body = new FakeBody();
  server.routes.push((req) => (req.body?.method === "tools/call" ? sse(body) : undefined));
  const call = track(conn.client.callTool("t", {}));
  await settle();
  const id = server.find("POST", "tools/call")[0]?.body?.id;
  const text =
    ": a comment\r\n" +
    "id: prime-1\r\nretry: 500\r\ndata:\r\n\r\n" +
    event({ id: "e-1", data: { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "héllo ✓" } } }, "\r\n") +
    // One JSON message spread over two data lines: they join with "\n", which JSON allows between tokens.
    `id: e-2\r\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(id)},\r\ndata: "result":{"content":[{"type":"text","text":"✓ dönë"}]}}\r\n\r\n`;
  body.push(text, 3);
  await settle();
  assert.equal(call.state, "resolved");
  assert.deepEqual(call.value, { content: [{ type: "text", text: "✓ dönë" }] });
  assert.deepEqual(logs, [{ level: "info", data: "héllo ✓" }]);
  assert.ok(body.cancelled, "the stream is let go once the answer came");
  assert.equal(server.find("GET").length, 1, "no resumption: only the standalone GET");
});

test("HTTP-01: a JSON body that is an array delivers each message; a request from the server on a POST stream is answered by POST", async () => {
  const { server, conn } = await connected();
  const seen: unknown[] = [];
  conn.client.onNotification("notifications/message", (p) => seen.push(p));
  server.routes.push((req) =>
    req.body?.method === "tools/call"
      ? json([{ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: 1 } }, answer(req, TOOL_RESULT)])
      : undefined,
  );
  assert.deepEqual(await conn.client.callTool("t"), TOOL_RESULT);
  assert.equal(seen.length, 1);

  server.routes.length = 0;
  const body = new FakeBody();
  server.routes.push((req) => (req.body?.method === "tools/call" ? sse(body) : undefined));
  const call = track(conn.client.callTool("t"));
  await settle();
  const id = server.find("POST", "tools/call")[1]?.body?.id;
  body.push(event({ id: "1", data: { jsonrpc: "2.0", id: "srv-1", method: "ping" } }));
  await settle();
  const reply = server.requests.find((r) => r.method === "POST" && r.body?.id === "srv-1");
  assert.ok(reply !== undefined, "the ping was answered");
  assert.deepEqual(reply.body, { jsonrpc: "2.0", id: "srv-1", result: {} });
  assert.equal(reply.headers["mcp-session-id"], "sess-1");
  body.push(event({ id: "2", data: { jsonrpc: "2.0", id, result: TOOL_RESULT } }));
  await settle();
  assert.equal(call.state, "resolved");
});

test("M-09: past 2025-03-26 an SSE event holding an array is refused as one message (-32600, no id), its ping left unanswered", async () => {
  const { server, conn } = await connected();
  const body = new FakeBody();
  server.routes.push((req) => (req.body?.method === "tools/call" ? sse(body) : undefined));
  const call = track(conn.client.callTool("t"));
  await settle();
  const id = server.find("POST", "tools/call")[0]?.body?.id;
  body.push(event({ id: "1", data: [{ jsonrpc: "2.0", id: "srv-1", method: "ping" }] }));
  await settle();
  assert.equal(
    server.requests.find((r) => r.method === "POST" && r.body?.id === "srv-1"),
    undefined,
    "the ping inside is not answered",
  );
  const refusal = server.requests.find(
    (r) => r.method === "POST" && (r.body as { error?: { code?: number } } | undefined)?.error !== undefined,
  );
  assert.equal((refusal?.body as { error: { code: number } } | undefined)?.error.code, -32600);
  body.push(event({ id: "2", data: { jsonrpc: "2.0", id, result: TOOL_RESULT } }));
  await settle();
  assert.equal(call.state, "resolved");
});

test("HTTP-02: HTTP errors on a request: a plain body → McpError -32000 with the status; a JSON-RPC error body → its own code", async () => {
  const { server, conn } = await connected();
  server.routes.push((req) =>
    req.body?.method === "tools/call" && (req.body.params as { name: string }).name === "plain" ? status(500, "it broke") : undefined,
  );
  server.routes.push((req) =>
    req.body?.method === "tools/call" && (req.body.params as { name: string }).name === "rpc"
      ? json({ jsonrpc: "2.0", error: { code: -32602, message: "bad args", data: { x: 1 } } }, {}, 400)
      : undefined,
  );
  server.routes.push((req) =>
    req.body?.method === "tools/call" && (req.body.params as { name: string }).name === "accepted" ? status(202) : undefined,
  );
  await assert.rejects(conn.client.callTool("plain"), (e: unknown) => {
    const error = transportError(e);
    assert.deepEqual(error.data, { status: 500, body: "it broke" });
    return true;
  });
  await assert.rejects(conn.client.callTool("rpc"), (e: unknown) => {
    const error = mcpError(e, -32602);
    assert.deepEqual(error.data, { x: 1 });
    return true;
  });
  // 202 to a request carries no answer: the request fails now rather than at its timeout.
  await assert.rejects(conn.client.callTool("accepted"), (e: unknown) => transportError(e) !== undefined);
  // A network failure.
  server.routes.unshift((req) => (req.body?.method === "tools/call" ? Promise.reject(new Error("ECONNREFUSED")) : undefined));
  await assert.rejects(conn.client.callTool("x"), (e: unknown) => {
    const error = transportError(e);
    assert.deepEqual(error.data, { cause: "ECONNREFUSED" });
    return true;
  });
});

// ── resumption ────────────────────────────────────────────────────────────────

test("HTTP-10, HTTP-09: a POST stream that drops before the answer is resumed by GET with Last-Event-ID after exactly `retry` ms", async () => {
  const { server, conn, timers } = await connected();
  const post = new FakeBody();
  server.routes.push((req) => (req.method === "POST" && req.body?.method === "tools/call" ? sse(post) : undefined));
  const call = track(conn.client.callTool("t"));
  await settle();
  const id = server.find("POST", "tools/call")[0]?.body?.id;
  post.push(event({ id: "s1-0", retry: 2500, data: "" }));
  post.push(event({ id: "s1-1", data: { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "working" } } }));
  post.end();
  await settle();
  const getsBefore = server.find("GET").length;
  const resumed = new FakeBody();
  server.routes.push((req) => (req.method === "GET" && req.headers["last-event-id"] !== undefined ? sse(resumed) : undefined));
  await timers.advance(2499);
  assert.equal(server.find("GET").length, getsBefore, "not before retry ms");
  await timers.advance(1);
  const gets = server.find("GET").filter((r) => r.headers["last-event-id"] !== undefined);
  assert.equal(gets.length, 1);
  const get = gets[0];
  assert.ok(get !== undefined);
  assert.equal(get.headers["last-event-id"], "s1-1");
  assert.equal(get.headers.accept, "text/event-stream");
  assert.equal(get.headers["mcp-session-id"], "sess-1");
  assert.equal(get.headers["mcp-protocol-version"], "2025-11-25");
  assert.equal(get.body, undefined);
  resumed.push(event({ id: "s1-2", data: { jsonrpc: "2.0", id, result: TOOL_RESULT } }), 7);
  await settle();
  assert.equal(call.state, "resolved");
  assert.deepEqual(call.value, TOOL_RESULT);
});

test("HTTP-10: resumption: the default wait is 1000 ms, dropped resumptions resume again from the newest id, attempts are bounded", async () => {
  const { server, conn, timers } = await connected({ maxReconnectAttempts: 2 });
  const post = new FakeBody();
  server.routes.push((req) => (req.method === "POST" && req.body?.method === "tools/call" ? sse(post) : undefined));
  let resumes = 0;
  server.routes.push((req) => {
    if (req.method !== "GET" || req.headers["last-event-id"] === undefined) return undefined;
    resumes++;
    // The first resumption makes progress (a new id) and drops; the rest fail with 503.
    if (resumes === 1) return sse(new FakeBody().push(event({ id: "p-2", data: "" })).end());
    return status(503);
  });
  const call = track(conn.client.callTool("t"));
  await settle();
  post.push(event({ id: "p-1", data: "" })).end();
  await timers.advance(999);
  assert.equal(resumes, 0);
  await timers.advance(1);
  assert.equal(resumes, 1);
  const lastIds = (): Array<string | undefined> =>
    server
      .find("GET")
      .filter((r) => r.headers["last-event-id"] !== undefined)
      .map((r) => r.headers["last-event-id"]);
  await timers.advance(1000);
  assert.deepEqual(lastIds(), ["p-1", "p-2"]);
  await timers.advance(1000);
  assert.equal(resumes, 3);
  assert.equal(call.state, "rejected", "two attempts without progress, then the request fails");
  transportError(call.error);
  await timers.advance(10_000);
  assert.equal(resumes, 3, "no more attempts");
});

test("HTTP-10: a POST stream that ends with no event id cannot be resumed: the request fails at once", async () => {
  const { server, conn } = await connected();
  server.routes.push((req) =>
    req.method === "POST" && req.body?.method === "tools/call" ? sse(new FakeBody().push(": nothing\n\n").end()) : undefined,
  );
  await assert.rejects(conn.client.callTool("t"), (e: unknown) => {
    const error = transportError(e);
    assert.match(error.message, /no event id/);
    return true;
  });
});

test("HTTP-10, X-06: a request the engine cancelled (timeout) is not resumed and gets no synthesized error", async () => {
  const diagnostics: unknown[] = [];
  const { server, conn, timers } = await connected({ onDiagnostic: (e) => diagnostics.push(e) });
  const post = new FakeBody();
  server.routes.push((req) => (req.method === "POST" && req.body?.method === "tools/call" ? sse(post) : undefined));
  const call = track(conn.client.callTool("t", {}, { timeoutMs: 100 }));
  await settle();
  post.push(event({ id: "c-1", data: "" }));
  await timers.advance(100);
  assert.equal(call.state, "rejected");
  assert.equal(server.find("POST", "notifications/cancelled").length, 1);
  post.end();
  await timers.advance(5000);
  assert.equal(server.find("GET").filter((r) => r.headers["last-event-id"] !== undefined).length, 0);
  assert.deepEqual(diagnostics, []);
});

// ── the standalone GET stream ─────────────────────────────────────────────────

test("HTTP-06: 405 on GET: the server offers no standalone stream and the client stops asking", async () => {
  const { server, timers } = await connected();
  assert.equal(server.find("GET").length, 1);
  await timers.advance(60_000);
  assert.equal(server.find("GET").length, 1);
});

test("HTTP-06, HTTP-10: the standalone GET stream delivers server messages and reconnects with Last-Event-ID after its retry", async () => {
  let stream = new FakeBody();
  const { server, conn, timers } = await connected({}, (s) =>
    s.server.routes.push((req) => (req.method === "GET" ? sse(stream) : undefined)),
  );
  const changes: unknown[] = [];
  conn.client.onNotification("notifications/tools/list_changed", () => changes.push(1));
  const gets = server.find("GET");
  assert.equal(gets.length, 1);
  assert.equal(gets[0]?.headers.accept, "text/event-stream");
  assert.equal(gets[0]?.headers["mcp-session-id"], "sess-1");
  assert.equal(gets[0]?.headers["last-event-id"], undefined);
  stream.push(event({ id: "g-0", retry: 300, data: "" }));
  stream.pushCut(event({ id: "g-1", data: { jsonrpc: "2.0", method: "notifications/tools/list_changed" } }), [1, 2, 3, 10]);
  await settle();
  assert.equal(changes.length, 1);
  const first = stream;
  stream = new FakeBody();
  first.end();
  await timers.advance(299);
  assert.equal(server.find("GET").length, 1);
  await timers.advance(1);
  assert.equal(server.find("GET").length, 2);
  assert.equal(server.find("GET")[1]?.headers["last-event-id"], "g-1");
  stream.push(event({ id: "g-2", data: { jsonrpc: "2.0", method: "notifications/tools/list_changed" } }));
  await settle();
  assert.equal(changes.length, 2);
  await conn.close();
  assert.ok(server.find("GET")[1]?.signal?.aborted, "close() aborts the standalone stream");
  assert.equal(server.find("GET").length, 2, "and it is not reopened");
});

// ── 404: re-initialization ────────────────────────────────────────────────────

/** A server whose session can expire: requests naming an expired session get 404. */
function expiringServer(s: Setup): { expire(): void; sessions: string[] } {
  const expired = new Set<string>();
  let n = 1;
  const sessions = ["sess-1"];
  s.server.routes.push((req) => {
    const sid = req.headers["mcp-session-id"];
    if (sid !== undefined && expired.has(sid)) return status(404, "session not found");
    if (req.method === "POST" && req.body?.method === "initialize") {
      const session = `sess-${n++}`;
      if (!sessions.includes(session)) sessions.push(session);
      return json(answer(req, initResult()), { "Mcp-Session-Id": session });
    }
    return undefined;
  });
  return { expire: () => expired.add(sessions[sessions.length - 1] ?? ""), sessions };
}

test("HTTP-03: 404 on concurrent requests: ONE re-initialization (private id, no session id), notifications/initialized, then each request retried once", async () => {
  let expiry: { expire(): void; sessions: string[] } | undefined;
  const { server, conn } = await connected({}, (s) => (expiry = expiringServer(s)));
  assert.ok(expiry !== undefined);
  expiry.expire();
  const a = conn.client.callTool("a");
  const b = conn.client.callTool("b");
  const c = conn.client.ping();
  assert.deepEqual(await a, TOOL_RESULT);
  assert.deepEqual(await b, TOOL_RESULT);
  assert.deepEqual(await c, {});
  const inits = server.find("POST", "initialize");
  assert.equal(inits.length, 2, "one re-initialization");
  const replay = inits[1];
  assert.ok(replay !== undefined);
  assert.equal(replay.body?.id, "mcp-engine-reinit-1");
  assert.equal(replay.headers["mcp-session-id"], undefined);
  assert.deepEqual(replay.body?.params, inits[0]?.body?.params);
  const initialized = server.find("POST", "notifications/initialized");
  assert.equal(initialized.length, 2);
  assert.equal(initialized[1]?.headers["mcp-session-id"], "sess-2");
  assert.equal(initialized[1]?.headers["mcp-protocol-version"], "2025-11-25");
  const calls = server.find("POST", "tools/call");
  assert.deepEqual(
    calls.map((r) => r.headers["mcp-session-id"]),
    ["sess-1", "sess-1", "sess-2", "sess-2"],
  );
  // The retries carry the engine's own ids, unchanged.
  assert.deepEqual([calls[2]?.body?.id, calls[3]?.body?.id].sort(), [calls[0]?.body?.id, calls[1]?.body?.id].sort());
  assert.equal(conn.transport.sessionId, "sess-2");
  assert.equal(conn.client.engine.phase, "operating", "the engine never learnt of it");
  // Later requests use the new session.
  await conn.client.callTool("d");
  assert.equal(server.find("POST", "tools/call").at(-1)?.headers["mcp-session-id"], "sess-2");
});

test("HTTP-03: a request answered 404 again after re-initialization fails; the session stays usable", async () => {
  const { server, conn } = await connected();
  server.routes.push((req) =>
    req.body?.method === "tools/call" && (req.body.params as { name: string }).name === "gone" ? status(404) : undefined,
  );
  server.routes.push((req) =>
    req.body?.method === "initialize" ? json(answer(req, initResult()), { "Mcp-Session-Id": "sess-2" }) : undefined,
  );
  await assert.rejects(conn.client.callTool("gone"), (e: unknown) => {
    const error = transportError(e);
    assert.equal((error.data as { status: number }).status, 404);
    return true;
  });
  assert.equal(server.find("POST", "initialize").length, 2, "one re-initialization for the two 404s");
  assert.equal(server.find("POST", "tools/call").length, 2, "retried once");
  assert.deepEqual(await conn.client.callTool("fine"), TOOL_RESULT);
});

test("HTTP-03: re-initialization failure closes the connection: pending and later requests reject with ConnectionClosedError", async () => {
  const { server, conn, errors } = await connected();
  server.routes.push((req) => (req.headers["mcp-session-id"] === "sess-1" ? status(404) : undefined));
  server.routes.push((req) => (req.body?.method === "initialize" ? status(500, "down") : undefined));
  const a = track(conn.client.callTool("a"));
  const b = track(conn.client.callTool("b"));
  await settle();
  assert.equal(a.state, "rejected");
  assert.equal(b.state, "rejected");
  assert.ok(a.error instanceof ConnectionClosedError, String(a.error));
  assert.ok(b.error instanceof ConnectionClosedError, String(b.error));
  assert.equal(server.find("POST", "initialize").length, 2);
  assert.ok(conn.transport.isClosed);
  assert.ok(errors.some((e) => /re-initialization failed/.test(e.message)));
  await assert.rejects(conn.client.callTool("c"), ConnectionClosedError);
});

test("HTTP-03, V-04: re-initialization answering another protocol version closes the connection", async () => {
  const { server, conn } = await connected({ versions: ["2025-06-18", "2025-11-25"] });
  server.routes.push((req) => (req.headers["mcp-session-id"] === "sess-1" ? status(404) : undefined));
  server.routes.push((req) =>
    req.body?.method === "initialize" ? json(answer(req, initResult("2025-06-18")), { "Mcp-Session-Id": "sess-9" }) : undefined,
  );
  await assert.rejects(conn.client.callTool("a"), ConnectionClosedError);
  assert.equal(server.find("POST", "notifications/initialized").length, 1, "no initialized for the refused session");
});

test("HTTP-03, HTTP-06: 404 on the standalone GET stream also re-initializes, then the stream reopens on the new session", async () => {
  const stream = new FakeBody();
  let gets = 0;
  const { server } = await connected({}, (s) => {
    s.server.routes.push((req) => {
      if (req.method !== "GET") return undefined;
      gets++;
      return gets === 1 ? status(404) : sse(stream);
    });
    s.server.routes.push((req) =>
      req.body?.method === "initialize" && req.body.id !== 0 ? json(answer(req, initResult()), { "Mcp-Session-Id": "sess-2" }) : undefined,
    );
  });
  await settle();
  assert.equal(server.find("POST", "initialize").length, 2);
  assert.equal(server.find("GET").length, 2);
  assert.equal(server.find("GET")[1]?.headers["mcp-session-id"], "sess-2");
});

// ── close ─────────────────────────────────────────────────────────────────────

test("HTTP-07, S-01: close(): aborts open streams and requests, DELETEs the session, then EOF rejects pending requests", async () => {
  const stream = new FakeBody();
  const { server, conn, errors } = await connected({}, (s) =>
    s.server.routes.push((req) => (req.method === "GET" ? sse(stream) : undefined)),
  );
  const post = new FakeBody();
  server.routes.push((req) => (req.method === "POST" && req.body?.method === "tools/call" ? sse(post) : undefined));
  server.routes.push((req) => (req.method === "DELETE" ? status(405) : undefined));
  const call = track(conn.client.callTool("t"));
  await settle();
  const closing = conn.close();
  await settle();
  await closing;
  const del = server.find("DELETE");
  assert.equal(del.length, 1);
  assert.equal(del[0]?.headers["mcp-session-id"], "sess-1");
  assert.equal(del[0]?.headers["mcp-protocol-version"], "2025-11-25");
  assert.equal(call.state, "rejected");
  assert.ok(call.error instanceof ConnectionClosedError);
  assert.ok(server.find("GET")[0]?.signal?.aborted, "the GET stream was aborted");
  assert.ok(server.find("POST", "tools/call")[0]?.signal?.aborted, "the POST was aborted");
  assert.deepEqual(errors, [], "405 on DELETE is fine");
  assert.ok(conn.client.engine.isClosed);
  await conn.close();
  assert.equal(server.find("DELETE").length, 1, "close() is idempotent");
});
