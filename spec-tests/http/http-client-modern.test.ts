// The Streamable HTTP client in 2026-07-28 mode, against a fake fetch and a fake clock
// (spec-tests/support/http-client-fakes.ts): the MOD-18 headers (MCP-Protocol-Version from
// `_meta`, Mcp-Method, Mcp-Name, base64 values), Mcp-Param-* of x-mcp-header arguments learned
// from tools/list (invalid tools left out), no session id, GET or DELETE, cancellation by
// aborting the POST (before and after the headers), open listen streams, no resumption,
// recognized modern errors vs fallback (isModernErrorResponse), and the switch back to the
// session era on initialize.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Engine } from "../../lib/engine/engine.js";
import type { EngineEvent } from "../../lib/engine/events.js";
import { Driver } from "../../lib/peer/shared/driver.js";
import { PeerAbortController, type AbortSignalLike } from "../../lib/peer/index.js";
import { decodeHeaderValue } from "../../lib/http/headers.js";
import { HttpClientTransport } from "../../lib/http-client/transport.js";
import { HTTP_TRANSPORT_ERROR } from "../../lib/http-client/types.js";
import { HttpTransportError } from "../../lib/peer/shared/errors.js";
import { encodeHeaderValue, isModernErrorResponse } from "../../lib/http/client-rules.js";
import {
  FakeBody,
  FakeResponse,
  FakeServer,
  FakeTimers,
  INFO,
  URL_,
  answer,
  event,
  json,
  settle,
  sse,
  status,
  type Req,
} from "../support/http-client-fakes.js";

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
