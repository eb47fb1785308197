// The Streamable HTTP client (lib/http-client/transport.ts) against a FAKE fetch and a FAKE clock.
// The fake server is a script in this file that answers ResponseLike objects whose bodies
// are streams of Uint8Array chunks cut at awkward places (inside CRLF pairs, inside UTF-8
// sequences, inside field names). Time never passes unless a test advances it, so every
// `retry` wait is checked one millisecond early and exactly on time.
//
// Covered: JSON and SSE answers, 202 for notifications, session id and MCP-Protocol-Version
// headers, HTTP errors → McpError, resumption with Last-Event-ID honouring `retry` and its
// bound, the standalone GET stream (and 405), 404 → one shared re-initialization then one
// retry, re-initialization failure → ConnectionClosedError, DELETE on close, the legacy
// HTTP+SSE fallback, the SSE parser and the URI reference resolver. 2026-07-28 mode: the
// MOD-18 headers (MCP-Protocol-Version from `_meta`, Mcp-Method, Mcp-Name, base64 values,
// Mcp-Param-* of x-mcp-header arguments learned from tools/list, invalid tools left out), no
// session id, GET or DELETE, cancellation by aborting the POST (before and after the
// headers), open listen streams, no resumption, recognized modern errors vs fallback
// (isModernErrorResponse), and the switch back to the session era on initialize.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Engine } from "../../lib/engine/engine.js";
import type { EngineEvent } from "../../lib/engine/events.js";
import { Driver } from "../../lib/peer/shared/driver.js";
import { ConnectionClosedError, McpError, PeerAbortController, type AbortSignalLike } from "../../lib/peer/index.js";
import { decodeHeaderValue } from "../../lib/http/headers.js";
import { HttpClientTransport, connectHttp, type ConnectHttpOptions, type HttpConnection } from "../../lib/http-client/transport.js";
import { HttpSseParser as SseParser } from "../../lib/http-client/sse.js";
import { HttpTransportError } from "../../lib/peer/shared/errors.js";
import type { SseEvent } from "../../lib/http/sse-parser.js";
import { resolveReference } from "../../lib/uri-template/uri-reference.js";
import { encodeHeaderValue, isModernErrorResponse } from "../../lib/http/client-rules.js";
import {
  HTTP_TRANSPORT_ERROR,
  type FetchInit,
  type ReaderLike,
  type ReadableStreamLike,
  type ResponseLike,
} from "../../lib/http-client/types.js";
import type { HttpTimers } from "../../lib/peer/shared/timers.js";

const encoder = new TextEncoder();
const URL_ = "http://mcp.test/mcp";
const INFO = { name: "http-test-client", version: "1.0.0" };

// ── fake clock ────────────────────────────────────────────────────────────────

/** Lets every pending promise chain and fake I/O callback run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 30; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

class FakeTimers implements HttpTimers {
  time = 0;
  private seq = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.pending.set(id, { at: this.time + ms, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** Moves time forward by ms, firing due timers in order and settling after each. */
  async advance(ms: number): Promise<void> {
    await settle();
    const target = this.time + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this.pending) if (entry[1].at <= target && (next === undefined || entry[1].at < next[1].at)) next = entry;
      if (next === undefined) break;
      this.pending.delete(next[0]);
      this.time = next[1].at;
      next[1].fn();
      await settle();
    }
    this.time = target;
    await settle();
  }
}

// ── fake bodies and responses ─────────────────────────────────────────────────

/** A body the test feeds chunk by chunk; reading waits for the next chunk, the end, or an abort. */
class FakeBody implements ReadableStreamLike {
  private readonly chunks: Uint8Array[] = [];
  private ended = false;
  private failure: unknown;
  private waiter: { resolve: () => void } | undefined;
  cancelled = false;
  locked = false;

  push(data: string | Uint8Array, cutEvery?: number): this {
    const bytes = typeof data === "string" ? encoder.encode(data) : data;
    if (cutEvery === undefined) this.chunks.push(bytes);
    else for (let i = 0; i < bytes.length; i += cutEvery) this.chunks.push(bytes.subarray(i, i + cutEvery));
    this.wake();
    return this;
  }

  /** Pushes bytes cut at the given byte offsets. */
  pushCut(data: string, cuts: number[]): this {
    const bytes = encoder.encode(data);
    let start = 0;
    for (const cut of [...cuts, bytes.length]) {
      this.chunks.push(bytes.subarray(start, cut));
      start = cut;
    }
    this.wake();
    return this;
  }

  end(): this {
    this.ended = true;
    this.wake();
    return this;
  }

  fail(error: unknown): void {
    this.failure = error;
    this.wake();
  }

  bind(signal: AbortSignalLike | undefined): void {
    signal?.addEventListener("abort", () => this.fail(new Error("aborted")), { once: true });
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.resolve();
  }

  getReader(): ReaderLike {
    this.locked = true;
    const read = async (): Promise<{ done: boolean; value?: Uint8Array }> => {
      for (;;) {
        if (this.failure !== undefined) throw this.failure;
        const chunk = this.chunks.shift();
        if (chunk !== undefined) return { done: false, value: chunk };
        if (this.ended || this.cancelled) return { done: true };
        await new Promise<void>((resolve) => (this.waiter = { resolve }));
      }
    };
    return {
      read,
      cancel: async () => {
        this.cancelled = true;
        this.wake();
      },
    };
  }
}

class FakeResponse implements ResponseLike {
  readonly statusText = "";
  constructor(
    readonly status: number,
    private readonly headerMap: Record<string, string>,
    readonly body: FakeBody | null,
    private readonly textBody: string,
    readonly url = "",
  ) {}

  readonly headers = { get: (name: string): string | null => this.headerMap[name.toLowerCase()] ?? null };

  async text(): Promise<string> {
    return this.textBody;
  }
}

function json(value: unknown, headers: Record<string, string> = {}, status = 200): FakeResponse {
  const text = JSON.stringify(value);
  return new FakeResponse(status, { "content-type": "application/json", ...lower(headers) }, new FakeBody().push(text).end(), text);
}

function sse(body: FakeBody, headers: Record<string, string> = {}, url = ""): FakeResponse {
  return new FakeResponse(200, { "content-type": "text/event-stream; charset=utf-8", ...lower(headers) }, body, "", url);
}

function status(code: number, text = "", headers: Record<string, string> = {}): FakeResponse {
  return new FakeResponse(code, lower(headers), text === "" ? null : new FakeBody().push(text).end(), text);
}

function lower(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
  return out;
}

/** An SSE event block. */
function event(fields: { id?: string; event?: string; retry?: number; data?: unknown }, eol = "\n"): string {
  let out = "";
  if (fields.event !== undefined) out += `event: ${fields.event}${eol}`;
  if (fields.id !== undefined) out += `id: ${fields.id}${eol}`;
  if (fields.retry !== undefined) out += `retry: ${fields.retry}${eol}`;
  if (fields.data !== undefined) out += `data: ${typeof fields.data === "string" ? fields.data : JSON.stringify(fields.data)}${eol}`;
  return out + eol;
}

// ── fake server ───────────────────────────────────────────────────────────────

interface Req {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: Record<string, unknown> | undefined;
  readonly signal: AbortSignalLike | undefined;
}

type Route = (req: Req) => FakeResponse | Promise<FakeResponse> | undefined;

function initResult(version = "2025-11-25"): Record<string, unknown> {
  return {
    protocolVersion: version,
    capabilities: { tools: { listChanged: true }, logging: {} },
    serverInfo: { name: "fake", version: "1" },
  };
}

function answer(req: Req, result: unknown): Record<string, unknown> {
  return { jsonrpc: "2.0", id: req.body?.id, result };
}

const TOOL_RESULT = { content: [{ type: "text", text: "ok" }] };

class FakeServer {
  readonly requests: Req[] = [];
  readonly routes: Route[] = [];
  session = "sess-1";
  version = "2025-11-25";
  getStatus = 405;

  readonly fetch = async (url: string, init: FetchInit<AbortSignalLike>): Promise<ResponseLike> => {
    const headers = lower(init.headers);
    const req: Req = {
      url,
      method: init.method,
      headers,
      body: init.body === undefined ? undefined : (JSON.parse(init.body) as Record<string, unknown>),
      signal: init.signal,
    };
    this.requests.push(req);
    if (init.signal?.aborted === true) throw new Error("aborted");
    const response = await new Promise<FakeResponse>((resolve, reject) => {
      init.signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
      Promise.resolve(this.route(req)).then(resolve, reject);
    });
    response.body?.bind(init.signal);
    return response;
  };

  private route(req: Req): FakeResponse | Promise<FakeResponse> {
    for (const r of this.routes) {
      const response = r(req);
      if (response !== undefined) return response;
    }
    if (req.method === "POST" && req.body?.method === "initialize")
      return json(answer(req, initResult(this.version)), { "Mcp-Session-Id": this.session });
    if (req.method === "POST" && req.body?.method === "tools/call") return json(answer(req, TOOL_RESULT));
    if (req.method === "POST" && req.body?.method === "ping") return json(answer(req, {}));
    if (req.method === "POST" && (req.body?.id === undefined || req.body.method === undefined)) return status(202);
    if (req.method === "GET") return status(this.getStatus);
    if (req.method === "DELETE") return status(200);
    return status(500, "no route");
  }

  /** Requests with this method (HTTP) and, for POSTs, this JSON-RPC method. */
  find(method: string, rpc?: string): Req[] {
    return this.requests.filter((r) => r.method === method && (rpc === undefined || r.body?.method === rpc));
  }
}

interface Setup {
  server: FakeServer;
  timers: FakeTimers;
  errors: HttpTransportError[];
}

function options(setup: Setup, extra: Partial<ConnectHttpOptions<AbortSignalLike>> = {}): ConnectHttpOptions<AbortSignalLike> {
  return {
    url: URL_,
    fetch: setup.server.fetch,
    timers: setup.timers,
    createAbortController: () => new PeerAbortController(),
    info: INFO,
    onError: (e) => setup.errors.push(e),
    ...extra,
  };
}

async function connected(
  extra: Partial<ConnectHttpOptions<AbortSignalLike>> = {},
  prepare?: (s: Setup) => void,
): Promise<Setup & { conn: HttpConnection<AbortSignalLike> }> {
  const setup: Setup = { server: new FakeServer(), timers: new FakeTimers(), errors: [] };
  prepare?.(setup);
  const pending = connectHttp(options(setup, extra));
  await settle();
  const conn = await pending;
  await settle();
  return { ...setup, conn };
}

/** Tracks a promise's outcome without letting a rejection go unhandled. */
function track<T>(promise: Promise<T>): { state: "pending" | "resolved" | "rejected"; value: T | undefined; error: unknown } {
  const t: { state: "pending" | "resolved" | "rejected"; value: T | undefined; error: unknown } = {
    state: "pending",
    value: undefined,
    error: undefined,
  };
  promise.then(
    (v) => {
      t.state = "resolved";
      t.value = v;
    },
    (e: unknown) => {
      t.state = "rejected";
      t.error = e;
    },
  );
  return t;
}

function mcpError(error: unknown, code: number): McpError {
  assert.ok(error instanceof McpError, `expected McpError, got ${String(error)}`);
  assert.equal(error.code, code);
  return error;
}

/** An HTTP failure with no JSON-RPC answer from the server: an HttpTransportError, never an McpError. */
function transportError(error: unknown): HttpTransportError {
  assert.ok(error instanceof HttpTransportError && !(error instanceof McpError), `expected HttpTransportError, got ${String(error)}`);
  return error;
}

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
    req.body?.method === "initialize" ? new FakeResponse(200, { "content-type": "application/json" }, null, "{oops") : undefined,
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

// ── SSE parser ────────────────────────────────────────────────────────────────

function parse(
  chunks: Array<string | Uint8Array>,
  options?: ConstructorParameters<typeof SseParser>[0],
): { events: SseEvent[]; parser: SseParser } {
  const parser = new SseParser(options);
  const events: SseEvent[] = [];
  for (const c of chunks) parser.push(typeof c === "string" ? encoder.encode(c) : c, events);
  parser.finish();
  return { events, parser };
}

test("HTTP-01: SSE parser: LF, CRLF and CR line ends, also split between chunks (CR | LF)", () => {
  for (const eol of ["\n", "\r\n", "\r"]) {
    const text = `data: a${eol}data: b${eol}${eol}event: x${eol}data: c${eol}${eol}`;
    for (let cut = 0; cut <= text.length; cut++) {
      const { events } = parse([text.slice(0, cut), text.slice(cut)]);
      assert.deepEqual(
        events,
        [
          { type: "message", data: "a\nb", id: "" },
          { type: "x", data: "c", id: "" },
        ],
        `eol ${JSON.stringify(eol)} cut at ${cut}`,
      );
    }
  }
  // CR at the end of one chunk, LF at the start of the next: one line end, not two (no spurious dispatch).
  const { events } = parse(["data: a\r", "\ndata: b\r", "\n\r", "\n"]);
  assert.deepEqual(events, [{ type: "message", data: "a\nb", id: "" }]);
});

test("HTTP-01: SSE parser: BOM, comments, field without colon, no space after colon, only one space stripped, unknown fields", () => {
  const { events } = parse(["\ufeff: comment\n", "data\n", "data:x\n", "data:  two\n", "foo: bar\n", "\n"]);
  assert.deepEqual(events, [{ type: "message", data: "\nx\n two", id: "" }]);
  // A BOM split across chunks (EF | BB BF) is still skipped; a second BOM is data.
  const bom = encoder.encode("\ufeffdata: \ufeffz\n\n");
  const split = parse([bom.subarray(0, 1), bom.subarray(1, 2), bom.subarray(2)]);
  assert.deepEqual(split.events, [{ type: "message", data: "\ufeffz", id: "" }]);
});

test("HTTP-10: SSE parser: ids persist across events, empty-data events set the id without dispatching, NUL ids and bad retry ignored", () => {
  const { events, parser } = parse([
    "id: 1\ndata: a\n\n",
    "data: b\n\n",
    "id: 2\nretry: 1500\n\n",
    "id: 3\0\nretry: 12x\nretry:\ndata: c\n\n",
  ]);
  assert.deepEqual(events, [
    { type: "message", data: "a", id: "1" },
    { type: "message", data: "b", id: "1" },
    { type: "message", data: "c", id: "2" },
  ]);
  assert.equal(parser.lastEventId, "2");
  assert.equal(parser.retry, 1500);
  // `id` with no value resets the id.
  const reset = parse(["id: 5\ndata: a\n\nid\ndata: b\n\n"]);
  assert.deepEqual(
    reset.events.map((e) => e.id),
    ["5", ""],
  );
  // "data:" alone (an empty value) is an event with empty data, as EventSource dispatches it.
  assert.deepEqual(parse(["id: p\ndata:\n\n"]).events, [{ type: "message", data: "", id: "p" }]);
  // The carried-over id of an earlier connection.
  assert.deepEqual(parse(["data: z\n\n"], { lastEventId: "old", retry: 10 }).events, [{ type: "message", data: "z", id: "old" }]);
});

test("HTTP-01, LIM-12: SSE parser: an unterminated event at the end is dropped; multi-byte UTF-8 split anywhere; long lines throw", () => {
  assert.deepEqual(parse(["data: a\n\ndata: cut off\n"]).events, [{ type: "message", data: "a", id: "" }]);
  const text = "data: 日本語 ✓ 😀 ü\n\n";
  const bytes = encoder.encode(text);
  for (let cut = 0; cut <= bytes.length; cut++) {
    assert.deepEqual(parse([bytes.subarray(0, cut), bytes.subarray(cut)]).events, [{ type: "message", data: "日本語 ✓ 😀 ü", id: "" }]);
  }
  const oneByOne: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i++) oneByOne.push(bytes.subarray(i, i + 1));
  assert.deepEqual(
    parse(oneByOne).events.map((e) => e.data),
    ["日本語 ✓ 😀 ü"],
  );
  assert.throws(() => parse(["data: " + "x".repeat(100)], { maxLength: 50 }), HttpTransportError);
  assert.throws(() => parse(["data: " + "x".repeat(30) + "\n", "data: " + "x".repeat(30) + "\n"], { maxLength: 50 }), HttpTransportError);
});

test("HTTP-01: an SSE message event that is not JSON is reported and skipped; other event types are ignored", async () => {
  const { server, conn, errors } = await connected();
  const body = new FakeBody();
  server.routes.push((req) => (req.body?.method === "tools/call" ? sse(body) : undefined));
  const call = track(conn.client.callTool("t"));
  await settle();
  const id = server.find("POST", "tools/call")[0]?.body?.id;
  body.push(
    event({ data: "{not json" }) + event({ event: "custom", data: "{}" }) + event({ data: { jsonrpc: "2.0", id, result: TOOL_RESULT } }),
  );
  await settle();
  assert.equal(call.state, "resolved");
  assert.equal(errors.length, 1);
  assert.match(errors[0]?.message ?? "", /not JSON/);
});

// ── URI references ────────────────────────────────────────────────────────────

test("SSE-01: resolveReference: RFC 3986 section 5.4 examples, absolute and network-path references", () => {
  const base = "http://a/b/c/d;p?q";
  const cases: Array<[string, string]> = [
    ["g:h", "g:h"],
    ["g", "http://a/b/c/g"],
    ["./g", "http://a/b/c/g"],
    ["g/", "http://a/b/c/g/"],
    ["/g", "http://a/g"],
    ["//g", "http://g"],
    ["?y", "http://a/b/c/d;p?y"],
    ["g?y", "http://a/b/c/g?y"],
    ["#s", "http://a/b/c/d;p?q#s"],
    ["g#s", "http://a/b/c/g#s"],
    ["g?y#s", "http://a/b/c/g?y#s"],
    [";x", "http://a/b/c/;x"],
    ["", "http://a/b/c/d;p?q"],
    [".", "http://a/b/c/"],
    ["./", "http://a/b/c/"],
    ["..", "http://a/b/"],
    ["../", "http://a/b/"],
    ["../g", "http://a/b/g"],
    ["../..", "http://a/"],
    ["../../g", "http://a/g"],
    ["../../../g", "http://a/g"],
    ["/./g", "http://a/g"],
    ["/../g", "http://a/g"],
    ["g.", "http://a/b/c/g."],
    ["..g", "http://a/b/c/..g"],
    ["./../g", "http://a/b/g"],
    ["g/./h", "http://a/b/c/g/h"],
    ["g/../h", "http://a/b/c/h"],
    ["https://other.example:8443/x?y", "https://other.example:8443/x?y"],
  ];
  for (const [ref, expected] of cases) assert.equal(resolveReference(base, ref), expected, ref);
  assert.equal(resolveReference("http://host:3000", "messages?sessionId=1"), "http://host:3000/messages?sessionId=1");
  assert.equal(resolveReference("http://host:3000/sse", "/messages?sessionId=1"), "http://host:3000/messages?sessionId=1");
});

// ── 2026-07-28 mode ───────────────────────────────────────────────────────────

interface ModernSetup {
  server: FakeServer;
  timers: FakeTimers;
  errors: HttpTransportError[];
  transport: HttpClientTransport<AbortSignalLike>;
  engine: Engine<"client">;
  driver: Driver<"client">;
  events: EngineEvent[];
}

/** A client Engine after startModern(), wired to the transport through a Driver. */
function modernSetup(extra: { modern?: boolean; noController?: boolean } = {}): ModernSetup {
  const server = new FakeServer();
  const timers = new FakeTimers();
  const errors: HttpTransportError[] = [];
  const transport = new HttpClientTransport<AbortSignalLike>({
    url: URL_,
    fetch: server.fetch,
    timers,
    createAbortController: extra.noController === true ? () => undefined : () => new PeerAbortController(),
    onError: (e) => errors.push(e),
    modern: extra.modern,
  });
  const engine = new Engine({ role: "client", info: INFO, versions: ["2026-07-28"] });
  engine.startModern();
  const events: EngineEvent[] = [];
  const driver = new Driver(engine, transport, (e) => events.push(e));
  transport.attach(driver);
  return { server, timers, errors, transport, engine, driver, events };
}

function send(s: ModernSetup, method: string, params?: Record<string, unknown>): number {
  const id = s.engine.request(method, params as never);
  s.driver.pump();
  return id;
}

function eventFor(s: ModernSetup, id: number): EngineEvent | undefined {
  return s.events.find((e) => (e.kind === "response" || e.kind === "error-response") && e.id === id);
}

function modernResult(req: Req, result: Record<string, unknown>): FakeResponse {
  return json(answer(req, { resultType: "complete", ...result }));
}

test("MOD-18, MOD-20: 2026-07-28: every request is a POST with MCP-Protocol-Version from _meta, Mcp-Method and Mcp-Name; no session id; no GET, no DELETE", async () => {
  const s = modernSetup();
  s.server.routes.push((req) =>
    req.method === "POST" && typeof req.body?.method === "string" && req.body.id !== undefined ? modernResult(req, {}) : undefined,
  );
  const call = send(s, "tools/call", { name: "echo", arguments: { text: "x" } });
  const read = send(s, "resources/read", { uri: "file:///dir with space/ü.txt" });
  const prompt = send(s, "prompts/get", { name: " padded" });
  const discover = send(s, "server/discover");
  await settle();
  assert.equal(s.transport.isModern, true);
  for (const id of [call, read, prompt, discover]) assert.equal(eventFor(s, id)?.kind, "response", `answer to ${id}`);
  const byMethod = (m: string): Req => {
    const r = s.server.find("POST", m)[0];
    assert.ok(r !== undefined, m);
    return r;
  };
  const c = byMethod("tools/call");
  assert.equal(c.headers["mcp-protocol-version"], "2026-07-28");
  assert.equal(
    ((c.body?.params as Record<string, unknown>)._meta as Record<string, unknown>)["io.modelcontextprotocol/protocolVersion"],
    "2026-07-28",
  );
  assert.equal(c.headers["mcp-method"], "tools/call");
  assert.equal(c.headers["mcp-name"], "echo");
  assert.equal(c.headers.accept, "application/json, text/event-stream");
  assert.equal(c.headers["content-type"], "application/json");
  assert.equal(c.headers["mcp-session-id"], undefined);
  const r = byMethod("resources/read");
  assert.match(r.headers["mcp-name"] ?? "", /^=\?base64\?[A-Za-z0-9+/=]+\?=$/);
  assert.equal(decodeHeaderValue(r.headers["mcp-name"] ?? ""), "file:///dir with space/ü.txt");
  assert.equal(decodeHeaderValue(byMethod("prompts/get").headers["mcp-name"] ?? ""), " padded");
  const d = byMethod("server/discover");
  assert.equal(d.headers["mcp-method"], "server/discover");
  assert.equal(d.headers["mcp-name"], undefined);
  await s.transport.close();
  assert.equal(s.server.find("GET").length, 0);
  assert.equal(s.server.find("DELETE").length, 0);
  assert.equal(s.events.at(-1)?.kind, "closed");
  assert.deepEqual(s.errors, []);
});

test("MOD-19: 2026-07-28: tools/call carries Mcp-Param-* for the x-mcp-header arguments learned from tools/list; tools with invalid declarations are left out", async () => {
  const s = modernSetup();
  const route = {
    name: "route",
    inputSchema: {
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        priority: { type: "integer", "x-mcp-header": "Priority" },
        verbose: { type: "boolean", "x-mcp-header": "Verbose" },
        target: { type: "object", properties: { zone: { type: "string", "x-mcp-header": "Zone" } } },
        query: { type: "string" },
      },
    },
  };
  const bad = { name: "bad", inputSchema: { type: "object", properties: { ratio: { type: "number", "x-mcp-header": "Ratio" } } } };
  const plain = { name: "plain", inputSchema: { type: "object", properties: { region: { type: "string" } } } };
  s.server.routes.push((req) => {
    if (req.method !== "POST" || req.body?.id === undefined) return undefined;
    return modernResult(
      req,
      req.body.method === "tools/list" ? { tools: [route, bad, plain], ttlMs: 0, cacheScope: "private" } : { content: [] },
    );
  });
  const before = send(s, "tools/call", { name: "route", arguments: { region: "eu" } });
  await settle();
  assert.equal(eventFor(s, before)?.kind, "response");
  assert.equal(
    Object.keys(s.server.find("POST", "tools/call")[0]?.headers ?? {}).filter((h) => h.startsWith("mcp-param-")).length,
    0,
    "nothing known before tools/list",
  );

  const list = send(s, "tools/list");
  await settle();
  const listed = eventFor(s, list);
  assert.ok(listed?.kind === "response");
  assert.deepEqual(
    (listed.result.tools as Array<{ name: string }>).map((t) => t.name),
    ["route", "plain"],
  );
  assert.equal(s.errors.length, 1);
  assert.match(s.errors[0]?.message ?? "", /"bad"/);

  send(s, "tools/call", {
    name: "route",
    arguments: { region: "Hello, 世界", priority: 42, verbose: false, target: { zone: "z1" }, query: "SELECT 1" },
  });
  send(s, "tools/call", { name: "route", arguments: { region: "us-west1", verbose: null } });
  send(s, "tools/call", { name: "plain", arguments: { region: "eu" } });
  await settle();
  const calls = s.server.find("POST", "tools/call").slice(1);
  const params = (i: number): Record<string, string> =>
    Object.fromEntries(Object.entries(calls[i]?.headers ?? {}).filter(([h]) => h.startsWith("mcp-param-")));
  assert.deepEqual(params(0), {
    "mcp-param-region": "=?base64?SGVsbG8sIOS4lueVjA==?=",
    "mcp-param-priority": "42",
    "mcp-param-verbose": "false",
    "mcp-param-zone": "z1",
  });
  assert.deepEqual(params(1), { "mcp-param-region": "us-west1" }, "null and absent arguments send no header");
  assert.deepEqual(params(2), {}, "a tool without x-mcp-header");
  await s.transport.close();
});

test("MOD-17: 2026-07-28: cancelling aborts the POST (before and after the headers); notifications/cancelled is never POSTed; the late answer is not delivered", async () => {
  const s = modernSetup();
  const body = new FakeBody();
  let hold: ((r: FakeResponse) => void) | undefined;
  s.server.routes.push((req) => {
    if (req.body?.method !== "tools/call") return undefined;
    if ((req.body.params as Record<string, unknown>).name === "sse") return sse(body);
    return new Promise<FakeResponse>((resolve) => (hold = resolve));
  });
  const streaming = send(s, "tools/call", { name: "sse" });
  const waiting = send(s, "tools/call", { name: "headers-never-come" });
  await settle();
  const [sseReq, heldReq] = s.server.find("POST", "tools/call");
  assert.ok(sseReq !== undefined && heldReq !== undefined);
  body.push(event({ data: { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t", progress: 1 } } }));
  await settle();
  assert.equal(s.engine.cancel(streaming, "user"), true);
  assert.equal(s.engine.cancel(waiting), true);
  s.driver.pump();
  await settle();
  assert.equal(sseReq.signal?.aborted, true, "the streaming POST is aborted");
  assert.equal(heldReq.signal?.aborted, true, "the POST still waiting for headers is aborted");
  assert.equal(s.server.find("POST", "notifications/cancelled").length, 0);
  hold?.(json({ jsonrpc: "2.0", id: waiting, result: {} }));
  await settle();
  assert.equal(eventFor(s, streaming), undefined);
  assert.equal(eventFor(s, waiting), undefined);
  assert.deepEqual(s.errors, []);
  await s.transport.close();
});

test("MOD-17: 2026-07-28: without an abort controller, cancelling still lets the stream go (its reader is cancelled)", async () => {
  const s = modernSetup({ noController: true });
  const body = new FakeBody();
  s.server.routes.push((req) => (req.body?.method === "tools/call" ? sse(body) : undefined));
  const id = send(s, "tools/call", { name: "slow" });
  await settle();
  body.push(": keep-alive\n\n");
  await settle();
  s.engine.cancel(id);
  s.driver.pump();
  await settle();
  assert.ok(body.cancelled, "the reader is cancelled");
  assert.equal(eventFor(s, id), undefined);
  await s.transport.close();
});

test("MOD-14, MOD-15: 2026-07-28: a listen stream stays open: acknowledgement and change notifications are delivered; cancelling closes it", async () => {
  const s = modernSetup();
  const body = new FakeBody();
  s.server.routes.push((req) => (req.body?.method === "subscriptions/listen" ? sse(body) : undefined));
  const listen = send(s, "subscriptions/listen", { notifications: { toolsListChanged: true } });
  await settle();
  const [req] = s.server.find("POST", "subscriptions/listen");
  assert.equal(req?.headers["mcp-method"], "subscriptions/listen");
  const meta = { "io.modelcontextprotocol/subscriptionId": listen };
  body.push(
    event({
      data: {
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: { toolsListChanged: true }, _meta: meta },
      },
    }),
  );
  await settle();
  await s.timers.advance(60_000);
  body.push(event({ data: { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: meta } } }));
  await settle();
  const notes = s.events.filter((e): e is Extract<EngineEvent, { kind: "notification" }> => e.kind === "notification").map((e) => e.method);
  assert.deepEqual(notes, ["notifications/subscriptions/acknowledged", "notifications/tools/list_changed"]);
  assert.equal(req?.signal?.aborted, false, "still open");
  s.engine.cancel(listen);
  s.driver.pump();
  await settle();
  assert.equal(req?.signal?.aborted, true);
  assert.deepEqual(s.errors, []);
  await s.transport.close();
});

test("MOD-20: 2026-07-28: a stream that ends before the answer is not resumed (even with event ids): an HTTP_TRANSPORT_ERROR", async () => {
  const s = modernSetup();
  const body = new FakeBody();
  s.server.routes.push((req) => (req.body?.method === "tools/call" ? sse(body) : undefined));
  const id = send(s, "tools/call", { name: "x" });
  await settle();
  body
    .push(
      event({
        id: "e-1",
        retry: 10,
        data: { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } },
      }),
    )
    .end();
  await s.timers.advance(100);
  const e = eventFor(s, id);
  assert.ok(e !== undefined && e.kind === "error-response");
  assert.equal(e.error.code, HTTP_TRANSPORT_ERROR);
  assert.match(e.error.message, /cannot be resumed/);
  assert.equal(s.server.find("GET").length, 0);
  await s.transport.close();
});

test("MOD-24: 2026-07-28: HTTP errors — a recognized modern error keeps its code; any other 4xx is HTTP_TRANSPORT_ERROR with data.fallback", async () => {
  const s = modernSetup();
  const bodies: Record<string, FakeResponse | (() => FakeResponse)> = {};
  s.server.routes.push((req) => {
    const name = (req.body?.params as Record<string, unknown> | undefined)?.name;
    const r = typeof name === "string" ? bodies[name] : undefined;
    return typeof r === "function" ? r() : r;
  });
  const err = (code: number, message: string, data?: unknown): string =>
    JSON.stringify({ jsonrpc: "2.0", id: 0, error: data === undefined ? { code, message } : { code, message, data } });
  bodies.version = status(400, err(-32022, "Unsupported protocol version", { supported: ["2026-07-28"], requested: "2026-07-28" }), {
    "content-type": "application/json",
  });
  bodies.header = status(400, err(-32020, "Header mismatch"), { "content-type": "application/json" });
  bodies.unknown = status(404, err(-32601, "Method not found"), { "content-type": "application/json" });
  bodies.legacy = status(400, err(-32600, "Missing Mcp-Session-Id"), { "content-type": "application/json" });
  bodies.empty = status(404);
  bodies.html = status(405, "<html>no</html>");
  bodies.wrongStatus = status(400, err(-32601, "Method not found"), { "content-type": "application/json" });
  bodies.crash = status(500, err(-32603, "Internal error"), { "content-type": "application/json" });
  bodies.bare500 = status(500, "oops");
  const ids: Record<string, number> = {};
  for (const name of Object.keys(bodies)) ids[name] = send(s, "tools/call", { name });
  await settle();
  const error = (name: string): { code: number; message: string; data?: unknown } => {
    const e = eventFor(s, ids[name] as number);
    assert.ok(e !== undefined && e.kind === "error-response", name);
    return e.error;
  };
  assert.equal(error("version").code, -32022);
  assert.deepEqual(error("version").data, { supported: ["2026-07-28"], requested: "2026-07-28" });
  assert.equal(error("header").code, -32020);
  assert.equal(error("unknown").code, -32601);
  for (const name of ["legacy", "empty", "html", "wrongStatus"]) {
    const e = error(name);
    assert.equal(e.code, HTTP_TRANSPORT_ERROR, name);
    assert.equal((e.data as { fallback?: boolean }).fallback, true, name);
    assert.match(e.message, /not a 2026-07-28 answer/, name);
  }
  // A 5xx says nothing about the era: the server's own error, as in the session era; without one, no fallback flag.
  assert.equal(error("crash").code, -32603);
  assert.equal(error("bare500").code, HTTP_TRANSPORT_ERROR);
  assert.equal((error("bare500").data as { fallback?: boolean }).fallback, undefined);
  assert.equal((error("bare500").data as { status?: number }).status, 500);
  assert.equal((error("legacy").data as { status?: number }).status, 400);
  assert.equal((error("empty").data as { status?: number }).status, 404);
  await s.transport.close();
});

test("MOD-18: 2026-07-28: a failed fetch settles the request; a notification is POSTed with the version header and Mcp-Method (option modern)", async () => {
  const s = modernSetup({ modern: true });
  s.server.routes.push((req) => {
    if (req.body?.method === "tools/call") throw new Error("network down");
    return undefined;
  });
  // With `modern`, even a message before any request goes the 2026-07-28 way.
  s.transport.send({ message: { jsonrpc: "2.0", method: "notifications/custom", params: {} } as never, relatedRequestId: undefined });
  await settle();
  const [note] = s.server.find("POST", "notifications/custom");
  assert.equal(note?.headers["mcp-protocol-version"], "2026-07-28");
  assert.equal(note?.headers["mcp-method"], "notifications/custom");
  assert.equal(note?.headers["mcp-session-id"], undefined);
  const id = send(s, "tools/call", { name: "x" });
  await settle();
  const e = eventFor(s, id);
  assert.ok(e !== undefined && e.kind === "error-response");
  assert.equal(e.error.code, HTTP_TRANSPORT_ERROR);
  assert.match(e.error.message, /network down/);
  await s.transport.close();
});

test("MOD-24: 2026-07-28 → session era: after a fallback, initialize on the same transport goes the session way (no Mcp-Method; session id captured)", async () => {
  const s = modernSetup();
  s.server.routes.push((req) =>
    req.body?.method === "server/discover"
      ? status(400, JSON.stringify({ jsonrpc: "2.0", error: { code: -32600, message: "Missing session" } }), {
          "content-type": "application/json",
        })
      : undefined,
  );
  const probe = send(s, "server/discover");
  await settle();
  const failed = eventFor(s, probe);
  assert.ok(failed !== undefined && failed.kind === "error-response" && (failed.error.data as { fallback?: boolean }).fallback === true);
  // What a dual-era Client does next: a fresh session-era engine on the same transport.
  const engine = new Engine({ role: "client", info: INFO });
  const events: EngineEvent[] = [];
  const driver = new Driver(engine, s.transport, (e) => events.push(e));
  s.transport.attach(driver);
  engine.initialize();
  driver.pump();
  await settle();
  assert.equal(s.transport.isModern, false);
  const [init] = s.server.find("POST", "initialize");
  assert.equal(init?.headers["mcp-method"], undefined);
  assert.equal(s.transport.sessionId, "sess-1");
  assert.ok(events.some((e) => e.kind === "negotiated"));
  await s.transport.close();
  assert.equal(s.server.find("DELETE").length, 1);
});

test("MOD-24: isModernErrorResponse: 400 with -32020/-32021/-32022, 404 with -32601; anything else is not", () => {
  const body = (code: number, message: unknown = "m"): string => JSON.stringify({ jsonrpc: "2.0", id: 1, error: { code, message } });
  assert.equal(isModernErrorResponse(400, body(-32020)), true);
  assert.equal(isModernErrorResponse(400, body(-32021)), true);
  assert.equal(isModernErrorResponse(400, body(-32022)), true);
  assert.equal(isModernErrorResponse(404, body(-32601)), true);
  assert.equal(isModernErrorResponse(404, { jsonrpc: "2.0", error: { code: -32601, message: "parsed" } }), true);
  assert.equal(isModernErrorResponse(400, body(-32601)), false);
  assert.equal(isModernErrorResponse(404, body(-32022)), false);
  assert.equal(isModernErrorResponse(400, body(-32600)), false);
  assert.equal(isModernErrorResponse(400, body(-32602)), false);
  assert.equal(isModernErrorResponse(400, body(-32020, 5)), false);
  assert.equal(isModernErrorResponse(400, JSON.stringify({ error: { code: -32020.5, message: "m" } })), false);
  assert.equal(isModernErrorResponse(400, ""), false);
  assert.equal(isModernErrorResponse(400, "<html>"), false);
  assert.equal(isModernErrorResponse(400, null), false);
  assert.equal(isModernErrorResponse(400, { error: "x" }), false);
});

test("MOD-19: encodeHeaderValue: visible ASCII as is; non-ASCII, control characters, edge whitespace and sentinel look-alikes as =?base64?…?=", () => {
  for (const plain of ["echo", "tools/call", "a b", "file:///x?y=1", "~"]) assert.equal(encodeHeaderValue(plain), plain);
  for (const odd of ["grüße", " lead", "trail ", "tab\there", "line\nbreak", "", "=?base64?abc?=", "✓", "ab", "abc", "abcd"]) {
    const encoded = encodeHeaderValue(odd);
    if (odd === "ab" || odd === "abc" || odd === "abcd") {
      assert.equal(encoded, odd);
      continue;
    }
    assert.match(encoded, /^=\?base64\?[A-Za-z0-9+/=]*\?=$/, JSON.stringify(odd));
    assert.equal(decodeHeaderValue(encoded), odd, JSON.stringify(odd));
  }
  // Padding of every length.
  for (const text of ["ü", "üa", "üab", "üabc"]) assert.equal(decodeHeaderValue(encodeHeaderValue(text)), text);
  assert.equal(encodeHeaderValue("é"), "=?base64?w6k=?=");
});
