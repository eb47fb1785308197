// The HTTP host's bounds against hostile or broken clients:
// a session is minted only for an initialize that succeeded; a notification-only POST that
// is not well-formed JSON-RPC gets 400, not 202; a body over the limit is answered 413 and
// the connection closed without reading the rest (an endless chunked body included); new
// sessions beyond maxSessions get 503; connections beyond maxConnections are dropped; a
// socket that sends nothing is closed after headersTimeout; an idle session ends, but not
// while a stream of it is open; a connection pipelining many requests takes turns with the
// others; HttpHost.limitConnections gives one's own node:http server the same bounds.
//
// Every wait is bounded (withTimeout); raw sockets are used where fetch would hide what the
// server does to the connection.

import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { connect, type Socket } from "node:net";
import { createReferenceServer } from "../../lib/cli/reference-server.js";
import { HttpHost, serveHttp, type RunningHttpServer } from "../../lib/hosts/http-server.js";
import { MemorySessionStore, type HttpServerOptions } from "../../lib/http-server/options.js";
import { Server } from "../../lib/peer/server/server.js";
import { sleep, withTimeout } from "../support/helpers.js";

interface FetchResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
  readonly body: { getReader(): { read(): Promise<{ done: boolean }>; cancel(): Promise<void> } } | null;
}
const platform = globalThis as unknown as {
  fetch: (url: string, init: { method: string; headers: Record<string, string>; body?: string }) => Promise<FetchResponse>;
};
function fetch(url: string, init: { method: string; headers: Record<string, string>; body?: string }): Promise<FetchResponse> {
  return withTimeout(platform.fetch(url, init), 10_000, `${init.method} ${url}`);
}

type Json = { [key: string]: unknown };
const LATEST = "2025-11-25";
const JSON_HEADERS = { accept: "application/json, text/event-stream", "content-type": "application/json" };
const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: "limits", version: "1" } },
};

async function serve(
  t: TestContext,
  options: HttpServerOptions = {},
): Promise<RunningHttpServer & { server: Server; store: MemorySessionStore }> {
  const server = createReferenceServer({ paginationSecret: randomBytes(32), sleep: (ms) => sleep(ms) });
  const store = new MemorySessionStore();
  const running = await serveHttp(server, { onError: () => {}, store, ...options });
  (t as unknown as { after(fn: () => Promise<void>): void }).after(() => running.close());
  return Object.assign(running, { server, store });
}

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; sessionId: string | null; body: Json | undefined; retryAfter: string | null }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...JSON_HEADERS, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    sessionId: response.headers.get("mcp-session-id"),
    body: text === "" ? undefined : (JSON.parse(text) as Json),
    retryAfter: response.headers.get("retry-after"),
  };
}

async function openSession(url: string): Promise<Record<string, string>> {
  const init = await post(url, INIT);
  assert.equal(init.status, 200);
  assert.ok(init.sessionId !== null);
  const headers = { "mcp-session-id": init.sessionId, "mcp-protocol-version": LATEST };
  assert.equal((await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status, 202);
  return headers;
}

function errorCode(body: Json | undefined): unknown {
  return (body?.error as Json | undefined)?.code;
}

/** Polls `condition` (every 10 ms, at most `ms`): for outcomes that follow a timer of the server's. */
async function eventually(condition: () => boolean, ms: number, label: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited >= ms) assert.fail(`${label}: not within ${ms} ms`);
    await sleep(10);
  }
}

// ── sessions only for an initialize that succeeded ───────────────────────────────────

test("HTTP-03: initialize refused by the engine (-32602): 400 with the JSON-RPC error, no Mcp-Session-Id, nothing kept", async (t) => {
  const { url, host, server, store } = await serve(t);
  for (const params of [{}, { protocolVersion: 5 }, { protocolVersion: LATEST, capabilities: "x", clientInfo: {} }]) {
    const answer = await post(url, { jsonrpc: "2.0", id: 7, method: "initialize", params });
    assert.equal(answer.status, 400, JSON.stringify(params));
    assert.equal(answer.sessionId, null, "no session id for a refused initialize");
    assert.equal(errorCode(answer.body), -32602);
    assert.equal(answer.body?.id, 7, "the error answers the initialize's id");
  }
  assert.equal(host.sessions.size, 0, "no HttpSession kept");
  assert.equal(store.size, 0, "nothing stored");
  assert.equal(server.sessions.size, 0, "no ServerSession left open");
});

test("M-02, HTTP-03: initialize as a notification (no id, bare {method}) or with an invalid id: 400 -32600, no session", async (t) => {
  const { url, host, server } = await serve(t);
  for (const body of [
    { method: "initialize" },
    { jsonrpc: "2.0", method: "initialize", params: INIT.params },
    { jsonrpc: "2.0", id: { x: 1 }, method: "initialize", params: INIT.params },
    { jsonrpc: "2.0", id: null, method: "initialize", params: INIT.params },
  ]) {
    const answer = await post(url, body);
    assert.equal(answer.status, 400, JSON.stringify(body));
    assert.equal(answer.sessionId, null);
    assert.equal(errorCode(answer.body), -32600, JSON.stringify(answer.body));
  }
  assert.equal(host.sessions.size, 0);
  assert.equal(server.sessions.size, 0);
});

test("HTTP-03: a refused initialize leaves no session that answers: its would-be id is unknown (404)", async (t) => {
  const { url, host } = await serve(t, { sessionId: () => "fixed-session-id" });
  assert.equal((await post(url, { jsonrpc: "2.0", id: 1, method: "initialize", params: {} })).status, 400);
  const ping = await post(
    url,
    { jsonrpc: "2.0", id: 2, method: "ping" },
    { "mcp-session-id": "fixed-session-id", "mcp-protocol-version": LATEST },
  );
  assert.equal(ping.status, 404);
  assert.equal(host.sessions.size, 0);
  // A good initialize afterwards still gets its session.
  const good = await post(url, INIT);
  assert.equal(good.status, 200);
  assert.equal(good.sessionId, "fixed-session-id");
  assert.equal(host.sessions.size, 1);
});

test("HTTP-03: a good initialize answered as SSE (responseMode sse) still gets its session id", async (t) => {
  const { url, host } = await serve(t, { responseMode: "sse" });
  const response = await fetch(url, { method: "POST", headers: JSON_HEADERS, body: JSON.stringify(INIT) });
  assert.equal(response.status, 200);
  assert.ok(response.headers.get("mcp-session-id") !== null);
  assert.match(await response.text(), /"protocolVersion":"2025-11-25"/);
  assert.equal(host.sessions.size, 1);
});

// ── a malformed notification-only POST is an HTTP error ──────────────────────────────

test("HTTP-02: a notification-only POST that is not well-formed JSON-RPC: 400 with a -32600 error and no id, never 202", async (t) => {
  const { url } = await serve(t);
  const session = await openSession(url);
  const malformed: unknown[] = [
    { jsonrpc: "1.0", method: "notifications/x" },
    { method: "notifications/x" },
    { jsonrpc: "2.0", method: 5 },
    { jsonrpc: "2.0", method: "notifications/progress", params: "x" },
    { jsonrpc: "2.0", method: "notifications/progress", params: 3 },
    { jsonrpc: "2.0", id: 99 },
    { jsonrpc: "2.0", id: 98, result: {}, error: { code: 1, message: "both" } },
    { jsonrpc: "2.0", result: {} },
  ];
  for (const body of malformed) {
    const answer = await post(url, body, session);
    assert.equal(answer.status, 400, `400 for ${JSON.stringify(body)}`);
    assert.equal(errorCode(answer.body), -32600, JSON.stringify(answer.body));
    assert.equal(answer.body?.id ?? null, null);
  }
  // Well-formed ones are still accepted, and the session still works.
  assert.equal((await post(url, { jsonrpc: "2.0", method: "notifications/unknown-but-fine" }, session)).status, 202);
  const ping = await post(url, { jsonrpc: "2.0", id: 5, method: "ping" }, session);
  assert.equal(ping.status, 200);
  assert.deepEqual(ping.body?.result, {});
});

test("MOD-20: 2026-07-28: a notification that is not well-formed JSON-RPC gets 400, a well-formed one 202", async (t) => {
  const { url } = await serve(t);
  const modern = { "mcp-protocol-version": "2026-07-28" };
  for (const body of [
    { jsonrpc: "1.0", method: "notifications/cancelled", params: { requestId: 5 } },
    { method: "notifications/cancelled", params: { requestId: 5 } },
    { jsonrpc: "2.0", method: "notifications/cancelled", params: "x" },
  ]) {
    const answer = await post(url, body, { ...modern, "mcp-method": "notifications/cancelled" });
    assert.equal(answer.status, 400, JSON.stringify(body));
    assert.equal(errorCode(answer.body), -32600);
  }
  assert.equal(
    (
      await post(
        url,
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5 } },
        { ...modern, "mcp-method": "notifications/cancelled" },
      )
    ).status,
    202,
  );
});

test("M-09, HTTP-02: 2025-03-26: a batch of notifications with one malformed member is refused 400 as a whole", async (t) => {
  const { url } = await serve(t);
  const init = await post(url, { ...INIT, params: { ...INIT.params, protocolVersion: "2025-03-26" } });
  const session = { "mcp-session-id": init.sessionId ?? "", "mcp-protocol-version": "2025-03-26" };
  assert.equal((await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, session)).status, 202);
  const answer = await post(
    url,
    [
      { jsonrpc: "2.0", method: "notifications/a" },
      { jsonrpc: "2.0", method: 7 },
    ],
    session,
  );
  assert.equal(answer.status, 400);
  assert.equal(errorCode(answer.body), -32600);
  assert.equal(
    (
      await post(
        url,
        [
          { jsonrpc: "2.0", method: "notifications/a" },
          { jsonrpc: "2.0", method: "notifications/b" },
        ],
        session,
      )
    ).status,
    202,
  );
});

// ── caps on sessions ───────────────────────────────────────────────────────────────

test("LIM-10: maxSessions: an initialize beyond the cap gets 503 with a JSON-RPC error and Retry-After; a DELETE frees a slot", async (t) => {
  const { url, host } = await serve(t, { maxSessions: 2 });
  const first = await openSession(url);
  await openSession(url);
  const refused = await post(url, INIT);
  assert.equal(refused.status, 503);
  assert.equal(refused.sessionId, null);
  assert.equal(errorCode(refused.body), -32603);
  assert.equal(refused.body?.id, 1);
  assert.match(String((refused.body?.error as Json).message), /maxSessions/);
  assert.ok(refused.retryAfter !== null, "Retry-After is sent");
  assert.equal(host.sessions.size, 2);
  // Existing sessions are untouched.
  assert.equal((await post(url, { jsonrpc: "2.0", id: 3, method: "ping" }, first)).status, 200);
  assert.equal((await fetch(url, { method: "DELETE", headers: first })).status, 200);
  assert.equal((await post(url, INIT)).status, 200);
});

test("LIM-10: maxSessions counts HTTP+SSE sessions too: a GET of the SSE path beyond the cap gets 503", async (t) => {
  const { url, host } = await serve(t, { maxSessions: 1, legacySse: true });
  const sse = url.replace(/\/mcp$/, "/sse");
  const first = await fetch(sse, { method: "GET", headers: { accept: "text/event-stream" } });
  assert.equal(first.status, 200);
  assert.equal(host.legacy?.sessions.size, 1);
  const second = await fetch(sse, { method: "GET", headers: { accept: "text/event-stream" } });
  assert.equal(second.status, 503);
  assert.equal(errorCode(JSON.parse(await second.text()) as Json), -32603);
  assert.equal((await post(url, INIT)).status, 503, "the Streamable HTTP initialize shares the cap");
  await first.body?.getReader().cancel();
  await eventually(() => host.legacy?.sessions.size === 0, 5000, "the legacy session ends with its stream");
  assert.equal((await post(url, INIT)).status, 200);
});

test("LIM-10: sessionIdleMs: an idle session ends; one with an open GET stream does not, until the stream closes", async (t) => {
  const { url, host } = await serve(t, { sessionIdleMs: 600 });
  await openSession(url);
  await eventually(() => host.sessions.size === 0, 5000, "the idle session ends");

  const session = await openSession(url);
  const get = await fetch(url, { method: "GET", headers: { accept: "text/event-stream", ...session } });
  assert.equal(get.status, 200);
  // Longer than sessionIdleMs: only the open stream keeps the session (a 60 ms idle time lost the session between
  // initialize and notifications/initialized on a loaded machine).
  await sleep(1500);
  assert.equal(host.sessions.size, 1, "a session with a GET stream open is not idle");
  await get.body?.getReader().cancel();
  await eventually(() => host.sessions.size === 0, 5000, "idle once its stream closed");
});

// ── raw sockets ───────────────────────────────────────────────────────────────────

interface Raw {
  readonly socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves when the server closed (or reset) the connection. */
  readonly closed: Promise<void>;
  isClosed(): boolean;
}

async function rawSocket(port: number): Promise<Raw> {
  const socket = connect(port, "127.0.0.1");
  let text = "";
  let closed = false;
  const decoder = new TextDecoder();
  socket.on("data", (chunk) => (text += decoder.decode(chunk, { stream: true })));
  socket.on("error", () => {});
  const closedPromise = new Promise<void>((resolve) => socket.on("close", () => ((closed = true), resolve())));
  await withTimeout(new Promise<void>((resolve) => socket.once("connect", resolve)), 5000, "connect");
  return { socket, received: () => text, closed: closedPromise, isClosed: () => closed };
}

/** Writes `chunk` until the server closes the connection or `cap` bytes went out; returns the bytes written. */
async function flood(raw: Raw, chunk: string, cap: number): Promise<number> {
  let sent = 0;
  while (!raw.isClosed() && sent < cap) {
    const more = raw.socket.write(chunk);
    sent += chunk.length;
    if (!more) await Promise.race([new Promise<void>((resolve) => raw.socket.once("drain", resolve)), raw.closed]);
  }
  return sent;
}

const CHUNK = `10000\r\n${"x".repeat(0x10000)}\r\n`;
const FLOOD_CAP = 256 * 1024 * 1024;
/** What may still go out after the server stopped reading: socket buffers on both ends. */
const SLACK = 32 * 1024 * 1024;

function postHead(port: number, extra: string): string {
  return `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n${extra}\r\n`;
}

// ── after a 413 the connection is closed, the rest never read ─────────────────────────

test("LIM-09: an endless chunked body: 413 with Connection: close, then the server closes the connection (bounded bytes read)", async (t) => {
  const { port } = await serve(t, { maxBodyBytes: 64 * 1024 });
  const raw = await rawSocket(port);
  raw.socket.write(postHead(port, "Transfer-Encoding: chunked\r\n"));
  const sent = await flood(raw, CHUNK, FLOOD_CAP);
  assert.ok(raw.isClosed(), `the server kept reading: ${sent} bytes went out and the connection is still open`);
  assert.ok(sent < SLACK, `closed after ${sent} bytes`);
  assert.match(raw.received(), /^HTTP\/1\.1 413 /);
  assert.match(raw.received(), /connection: close/i);
});

test("LIM-09: a Content-Length over the limit: 413 at once, connection closed, the body never read", async (t) => {
  const { port } = await serve(t, { maxBodyBytes: 64 * 1024 });
  const raw = await rawSocket(port);
  raw.socket.write(postHead(port, `Content-Length: ${1024 * 1024 * 1024 * 1024}\r\n`));
  const sent = await flood(raw, "x".repeat(0x10000), FLOOD_CAP);
  assert.ok(raw.isClosed(), `still open after ${sent} bytes`);
  assert.ok(sent < SLACK, `closed after ${sent} bytes`);
  assert.match(raw.received(), /^HTTP\/1\.1 413 /);
});

test("LIM-09: a refusal before the body (403 Host, 406 Accept, 404 path) with an endless body closes the connection too", async (t) => {
  const { port } = await serve(t, { maxBodyBytes: 64 * 1024 });
  const heads = [
    `POST /mcp HTTP/1.1\r\nHost: evil.example.com\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/plain\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
    `POST /elsewhere HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nTransfer-Encoding: chunked\r\n\r\n`,
  ];
  for (const head of heads) {
    const raw = await rawSocket(port);
    raw.socket.write(head);
    const sent = await flood(raw, CHUNK, FLOOD_CAP);
    assert.ok(raw.isClosed() && sent < SLACK, `${head.split("\r\n")[0]}: ${sent} bytes, closed ${raw.isClosed()}`);
    assert.match(raw.received(), /^HTTP\/1\.1 40[346] /);
  }
});

test("LIM-09: a small refused body is drained, not cut: the keep-alive connection serves the next request", async (t) => {
  const { port } = await serve(t);
  const raw = await rawSocket(port);
  const body = "{}";
  raw.socket.write(
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/plain\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
  );
  await eventually(() => /\r\n\r\n[^]*\}$/.test(raw.received()), 5000, "the 406 answer");
  assert.match(raw.received(), /^HTTP\/1\.1 406 /);
  const init = JSON.stringify(INIT);
  raw.socket.write(`${postHead(port, `Content-Length: ${init.length}\r\n`)}${init}`);
  await eventually(() => raw.received().includes("HTTP/1.1 200 "), 5000, "the second answer on the same connection");
  assert.ok(!raw.isClosed());
  raw.socket.destroy();
});

// ── connections ───────────────────────────────────────────────────────────────────

test("LIM-11: maxConnections: a connection beyond the cap is closed at once; the others keep working", async (t) => {
  const { port, url } = await serve(t, { maxConnections: 3 });
  const held = [await rawSocket(port), await rawSocket(port), await rawSocket(port)];
  const extra = await rawSocket(port);
  await withTimeout(extra.closed, 5000, "the connection over the cap is closed");
  assert.equal(extra.received(), "");
  assert.ok(held.every((raw) => !raw.isClosed()));
  for (const raw of held) raw.socket.destroy();
  await Promise.all(held.map((raw) => raw.closed));
  // Freed slots serve again (fetch opens its own connection).
  assert.equal((await post(url, INIT)).status, 200);
});

test("LIM-11: headersTimeout: a socket that sends nothing (or half a header) is answered 408 and closed", async (t) => {
  const { port } = await serve(t, { headersTimeoutMs: 200 });
  const silent = await rawSocket(port);
  const half = await rawSocket(port);
  half.socket.write(`GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
  await withTimeout(Promise.all([silent.closed, half.closed]), 5000, "both closed by the server");
  assert.match(half.received(), /^HTTP\/1\.1 408 /);
});

test("LIM-11: requestTimeout: a body that trickles in is cut off", async (t) => {
  const { port } = await serve(t, { requestTimeoutMs: 300, headersTimeoutMs: 200 });
  const raw = await rawSocket(port);
  raw.socket.write(postHead(port, "Transfer-Encoding: chunked\r\n"));
  const timer = setInterval(() => raw.socket.write("1\r\n \r\n"), 20);
  try {
    await withTimeout(raw.closed, 5000, "the trickling request is closed");
  } finally {
    clearInterval(timer);
  }
});

test("LIM-11: keepAliveTimeoutMs: an idle keep-alive connection is closed after its answer", async (t) => {
  const { port } = await serve(t, { keepAliveTimeoutMs: 100 });
  const raw = await rawSocket(port);
  const init = JSON.stringify(INIT);
  raw.socket.write(`${postHead(port, `Content-Length: ${init.length}\r\n`)}${init}`);
  await withTimeout(raw.closed, 3000, "closed after the keep-alive timeout (the default of 5 s would not do)");
  assert.match(raw.received(), /^HTTP\/1\.1 200 /);
});

// ── fairness between connections ─────────────────────────────────────────────────

test("LIM-11: a connection pipelining 60 requests in one packet takes turns: another connection's request is not served last", async (t) => {
  const order: string[] = [];
  const server = new Server({ info: { name: "turns", version: "1" } });
  server.tool("mark", { inputSchema: { type: "object", properties: { who: { type: "string" } } } }, (args) => {
    order.push(String(args.who));
    return { content: [{ type: "text", text: "ok" }] };
  });
  const running = await serveHttp(server, { onError: () => {} });
  (t as unknown as { after(fn: () => Promise<void>): void }).after(() => running.close());
  const session = await openSession(running.url);
  const headers = `Mcp-Session-Id: ${session["mcp-session-id"]}\r\nMcp-Protocol-Version: ${LATEST}\r\n`;
  const call = (id: number, who: string): string => {
    const body = JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "mark", arguments: { who } } });
    return `${postHead(running.port, `${headers}Content-Length: ${body.length}\r\n`)}${body}`;
  };
  const a = await rawSocket(running.port);
  const b = await rawSocket(running.port);
  let burst = "";
  for (let i = 0; i < 60; i++) burst += call(100 + i, "a");
  a.socket.write(burst);
  b.socket.write(call(1, "b"));
  await eventually(() => order.length === 61, 10_000, "all 61 calls handled");
  const position = order.indexOf("b");
  assert.ok(position < 30, `the other connection’s call was handled at position ${position + 1} of 61`);
  a.socket.destroy();
  b.socket.destroy();
});

test("LIM-11: HttpHost.limitConnections: a node:http server of one's own gets the same connection cap and timeouts", async (t) => {
  const server = createReferenceServer({ paginationSecret: randomBytes(32), sleep: (ms) => sleep(ms) });
  const host = new HttpHost(server, {
    onError: () => {},
    maxConnections: 2,
    headersTimeoutMs: 5000,
    requestTimeoutMs: 7000,
    keepAliveTimeoutMs: 3000,
  });
  const http = createServer(host.handle);
  host.limitConnections(http);
  assert.equal(http.maxConnections, 2);
  assert.equal(http.headersTimeout, 5000);
  assert.equal(http.requestTimeout, 7000);
  assert.equal(http.keepAliveTimeout, 3000);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
  (t as unknown as { after(fn: () => Promise<void>): void }).after(
    () => new Promise<void>((resolve) => (host.closeAll(), http.close(() => resolve()), http.closeAllConnections())),
  );
  const address = http.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  const held = [await rawSocket(port), await rawSocket(port)];
  const extra = await rawSocket(port);
  await withTimeout(extra.closed, 5000, "the third connection is closed");
  for (const raw of held) raw.socket.destroy();
});
