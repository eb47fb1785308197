// The Streamable HTTP client's fallback to the legacy HTTP+SSE transport, against a fake fetch
// and a fake clock (spec-tests/support/http-client-fakes.ts): when it falls back (by version
// and status), the endpoint event and its relative URI, POSTs to that endpoint, and the
// failures of a legacy POST and of the fallback GET.

import { test } from "node:test";
import assert from "node:assert/strict";
import { ConnectionClosedError, PeerAbortController } from "../../lib/peer/index.js";
import { HttpClientTransport, connectHttp } from "../../lib/http-client/transport.js";
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
  options,
  settle,
  sse,
  status,
  track,
  transportError,
  type Setup,
} from "../support/http-client-fakes.js";

// ── legacy HTTP+SSE ───────────────────────────────────────────────────────────

function legacyServer(s: Setup, opts: { initStatus: number; endpoint: string }): { stream: FakeBody } {
  const stream = new FakeBody();
  s.server.routes.push((req) => {
    if (req.url === URL_ && req.method === "POST") return status(opts.initStatus);
    if (req.url === URL_ && req.method === "GET") {
      assert.equal(req.headers.accept, "text/event-stream");
      stream.push(event({ event: "endpoint", data: opts.endpoint }), 4);
      return sse(stream, {}, "http://mcp.test/legacy/sse");
    }
    if (req.method === "POST") {
      const body = req.body;
      if (body?.method === "initialize") stream.push(event({ event: "message", data: answer(req, initResult("2024-11-05")) }), 5);
      else if (body?.method === "tools/call") stream.push(event({ data: answer(req, TOOL_RESULT) }));
      return status(202, "Accepted");
    }
    return undefined;
  });
  return { stream };
}

test("HTTP-04, SSE-01: legacy fallback: initialize POST 405 → GET the SSE stream, endpoint event (relative URI), then POST every message there", async () => {
  let legacy: { stream: FakeBody } | undefined;
  const { server, conn } = await connected(
    {},
    (s) => (legacy = legacyServer(s, { initStatus: 405, endpoint: "../messages?sessionId=abc" })),
  );
  assert.ok(legacy !== undefined);
  assert.equal(conn.transport.transportMode, "legacy");
  assert.equal(conn.transport.legacyPostUrl, "http://mcp.test/messages?sessionId=abc", "resolved against the SSE response URL");
  assert.equal(conn.server.version, "2024-11-05");
  const endpointPosts = server.requests.filter((r) => r.url === "http://mcp.test/messages?sessionId=abc");
  assert.deepEqual(
    endpointPosts.map((r) => r.body?.method),
    ["initialize", "notifications/initialized"],
  );
  for (const r of endpointPosts) {
    assert.equal(r.headers["mcp-session-id"], undefined);
    assert.equal(r.headers["mcp-protocol-version"], undefined);
  }
  assert.deepEqual(await conn.client.callTool("t"), TOOL_RESULT);
  assert.equal(server.find("GET").length, 1, "no standalone stream in the old transport");
  // The SSE stream ending is the end of the connection.
  server.routes.unshift((req) => (req.body?.method === "tools/call" ? status(202) : undefined));
  const pending = track(conn.client.callTool("never"));
  await settle();
  legacy.stream.end();
  await settle();
  assert.equal(pending.state, "rejected");
  assert.ok(pending.error instanceof ConnectionClosedError);
});

test("HTTP-04: legacy fallback rules: 2025-11-25 falls back on 400/404/405 only; an older offer on any 4xx; a failed fallback reports the original error", async () => {
  // 401 with 2025-11-25: no fallback, initialize fails with the HTTP error.
  const s1: Setup = { server: new FakeServer(), timers: new FakeTimers(), errors: [] };
  s1.server.routes.push((req) => (req.method === "POST" ? status(401, "auth") : undefined));
  await assert.rejects(connectHttp(options(s1)), (e: unknown) => transportError(e) !== undefined);
  assert.equal(s1.server.find("GET").length, 0);

  // 401 with a 2025-03-26 offer: fall back.
  const s2: Setup = { server: new FakeServer(), timers: new FakeTimers(), errors: [] };
  legacyServer(s2, { initStatus: 401, endpoint: "/legacy/post" });
  const conn = await connectHttp(options(s2, { versions: ["2024-11-05", "2025-03-26"] }));
  assert.equal(conn.transport.legacyPostUrl, "http://mcp.test/legacy/post");
  await conn.close();
  assert.equal(s2.server.find("DELETE").length, 0, "no DELETE in the old transport");

  // 404, and the GET does not offer SSE: the original 404 rejects initialize.
  const s3: Setup = { server: new FakeServer(), timers: new FakeTimers(), errors: [] };
  s3.server.routes.push((req) => (req.method === "POST" ? status(404, "nope") : req.method === "GET" ? status(404) : undefined));
  await assert.rejects(connectHttp(options(s3)), (e: unknown) => {
    const error = transportError(e);
    assert.deepEqual(error.data, { status: 404, body: "nope" });
    return true;
  });

  // legacyFallback: false
  const s4: Setup = { server: new FakeServer(), timers: new FakeTimers(), errors: [] };
  s4.server.routes.push((req) => (req.method === "POST" ? status(405) : undefined));
  await assert.rejects(connectHttp(options(s4, { legacyFallback: false })), (e: unknown) => transportError(e).status === 405);
  assert.equal(s4.server.find("GET").length, 0);

  // A first event that is not `endpoint`.
  const s5: Setup = { server: new FakeServer(), timers: new FakeTimers(), errors: [] };
  s5.server.routes.push((req) =>
    req.method === "POST" ? status(400) : req.method === "GET" ? sse(new FakeBody().push(event({ data: "{}" }))) : undefined,
  );
  await assert.rejects(connectHttp(options(s5)), (e: unknown) => transportError(e).status === 400);
});

test("a transport used without connectHttp: attach a Client's driver; the engine's timer runs on the injected clock", async () => {
  const { Client } = await import("../../lib/peer/client/client.js");
  const server = new FakeServer();
  const timers = new FakeTimers();
  server.routes.push((req) => (req.body?.method === "tools/call" ? new Promise<FakeResponse>(() => undefined) : undefined));
  const transport = new HttpClientTransport({
    url: URL_,
    fetch: server.fetch,
    timers,
    createAbortController: () => new PeerAbortController(),
  });
  const client = new Client(transport, { info: INFO });
  transport.attach(client.driver);
  const connecting = client.connect();
  await settle();
  await connecting;
  const call = track(client.callTool("slow", {}, { timeoutMs: 50 }));
  await timers.advance(49);
  assert.equal(call.state, "pending");
  await timers.advance(1);
  assert.equal(call.state, "rejected");
  await transport.close();
});

test("SSE-01, HTTP-04: legacy: a POST that fails (network, HTTP) fails its request; a failing fallback GET rejects initialize with the original error", async () => {
  let legacy: { stream: FakeBody } | undefined;
  const { server, conn } = await connected({}, (s) => (legacy = legacyServer(s, { initStatus: 400, endpoint: "http://other.test/post" })));
  assert.ok(legacy !== undefined);
  assert.equal(conn.transport.legacyPostUrl, "http://other.test/post");
  server.routes.unshift((req) =>
    req.body?.method === "tools/call" && (req.body.params as { name: string }).name === "net"
      ? Promise.reject(new Error("reset"))
      : undefined,
  );
  server.routes.unshift((req) =>
    req.body?.method === "tools/call" && (req.body.params as { name: string }).name === "http" ? status(500) : undefined,
  );
  await assert.rejects(conn.client.callTool("net"), (e: unknown) => transportError(e) !== undefined);
  await assert.rejects(conn.client.callTool("http"), (e: unknown) => (transportError(e).data as { status: number }).status === 500);
  await conn.close();

  const s: Setup = { server: new FakeServer(), timers: new FakeTimers(), errors: [] };
  s.server.routes.push((req) =>
    req.method === "POST" ? status(405) : req.method === "GET" ? Promise.reject(new Error("refused")) : undefined,
  );
  await assert.rejects(connectHttp(options(s)), (e: unknown) => (transportError(e).data as { status: number }).status === 405);
});
