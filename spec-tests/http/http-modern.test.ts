// 2026-07-28 over Streamable HTTP (RULES.md MOD-20, MOD-23) end to end on 127.0.0.1: a dual-era
// Server behind serveHttp, driven with the platform's raw `fetch`, so every status, header
// and SSE byte is what the test sees.
//
// Covered: a stateless tools/call (200, resultType, serverInfo, no Mcp-Session-Id); the
// header rules (MCP-Protocol-Version vs `_meta`, Mcp-Method, Mcp-Name, `=?base64?…?=`
// values, Mcp-Param-* of x-mcp-header arguments) → 400 -32020; a missing envelope → 400 -32602; an unsupported version → 400
// -32022 with data; an unknown method → 404 -32601; server/discover; progress and log
// messages before the result on the request's SSE stream; a notification → 202; a
// session-era client and a 2026-07-28 client on one endpoint at once; closing a request's
// stream cancels its handler (JSON and SSE); subscriptions/listen (acknowledgement, then
// list_changed and resources/updated; closing it ends the subscription; shutdown ends it
// with its result); a modern-only endpoint (405 for GET/DELETE, initialize refused with
// -32022, Mcp-Session-Id ignored); a session-only endpoint answers 2026-07-28 traffic as
// before; no per-request session outlives its request. And the portable client transport
// (lib/http-client/transport.ts, on Node's fetch) against this host: a modern Engine's calls,
// discover, a listen stream, cancellation reaching the handler, and errors by HTTP status;
// a dual-era Client (connectHttpNode) that stays modern on dual and modern-only endpoints
// and falls back to initialize on a session-only one; a Client's Mcp-Param-* headers.
//
// Every wait is bounded (withTimeout).

import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { Engine } from "../../lib/engine/engine.js";
import type { EngineEvent } from "../../lib/engine/events.js";
import { connectHttpNode, nodeHttpTransport } from "../../lib/hosts/http-client-node.js";
import { HttpHost, serveHttp, type RunningHttpServer } from "../../lib/hosts/http-server.js";
import type { HttpServerOptions } from "../../lib/http-server/options.js";
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  META_SUBSCRIPTION_ID,
} from "../../lib/rules/modern.js";
import { Driver } from "../../lib/peer/shared/driver.js";
import { HTTP_TRANSPORT_ERROR } from "../../lib/http-client/types.js";
import { Server } from "../../lib/peer/server/server.js";
import type { HandlerContext } from "../../lib/peer/server/server-options.js";
import type { ProtocolVersion } from "../../lib/rules/versions.js";
import { withTimeout, type FetchResponse, type StreamReader } from "../support/helpers.js";

// ── the platform's fetch, typed locally (the project has no DOM or Node type packages) ──

interface FetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: unknown;
}
interface PlatformAbortController {
  readonly signal: unknown;
  abort(reason?: unknown): void;
}
const platform = globalThis as unknown as {
  fetch: (url: string, init?: FetchInit) => Promise<FetchResponse>;
  AbortController: new () => PlatformAbortController;
};

function fetch(url: string, init?: FetchInit): Promise<FetchResponse> {
  return withTimeout(platform.fetch(url, init), 10_000, `${init?.method ?? "GET"} ${url}`);
}

type Json = { [key: string]: unknown };

const MODERN = "2026-07-28";
const ACCEPT_BOTH = "application/json, text/event-stream";
const CLIENT_INFO = { name: "raw-modern", version: "1" };

/** Resolves when `check` holds (polled), or fails after `ms`. */
async function until(check: () => boolean, label: string, ms = 5000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`${label}: not within ${ms} ms`);
    await new Promise<void>((resolve) => setTimeout(resolve, 5));
  }
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

// ── the server under test ─────────────────────────────────────────────────────

interface Fixture {
  server: Server;
  /** The signals of the "hang" tool's calls, in call order. */
  signals: HandlerContext["signal"][];
  /** Resolves each time a "hang" call starts. */
  started: () => Promise<void>;
}

function fixture(versions: readonly ProtocolVersion[] = ["2025-11-25", MODERN]): Fixture {
  // "grüße welt" is outside the 2025-11-25 tool-name rule on purpose: it tests the base64 form of Mcp-Name.
  const server = new Server({
    info: { name: "modern-fixture", version: "2.0.0" },
    versions,
    allowAnyToolName: true,
  });
  const signals: HandlerContext["signal"][] = [];
  let waiting = deferred<void>();
  server.tool("echo", { inputSchema: { type: "object", properties: { text: { type: "string" } } } }, (args) => ({
    content: [{ type: "text", text: String(args.text) }],
  }));
  server.tool("grüße welt", {}, () => ({ content: [{ type: "text", text: "hallo" }] }));
  server.tool("hang", {}, (_args, context) => {
    signals.push(context.signal);
    waiting.resolve();
    waiting = deferred<void>();
    return new Promise(() => {});
  });
  server.tool("report", {}, async (_args, context) => {
    context.progress(1, 2, "half");
    context.log("info", "working");
    context.log("debug", "detail");
    await new Promise<void>((resolve) => setTimeout(resolve, 10));
    context.progress(2, 2, "done");
    return { content: [{ type: "text", text: "reported" }] };
  });
  server.tool(
    "route",
    {
      inputSchema: {
        type: "object",
        properties: {
          region: { type: "string", "x-mcp-header": "Region" },
          priority: { type: "integer", "x-mcp-header": "Priority" },
          query: { type: "string" },
        },
      },
    },
    (args) => ({ content: [{ type: "text", text: `${String(args.region)}/${String(args.priority)}` }] }),
  );
  server.resource("test://config", { name: "config" }, (uri) => ({ contents: [{ uri, text: "v1" }] }));
  return { server, signals, started: () => waiting.promise };
}

async function serve(t: TestContext, options: HttpServerOptions = {}, fix: Fixture = fixture()): Promise<RunningHttpServer & Fixture> {
  const running = await serveHttp(fix.server, { onError: () => {}, ...options });
  (t as unknown as { after(fn: () => Promise<void>): void }).after(() => running.close());
  return Object.assign(running, fix);
}

// ── 2026-07-28 requests over raw fetch ─────────────────────────────────────────

function envelope(extra: Json = {}, version = MODERN): Json {
  return { [META_PROTOCOL_VERSION]: version, [META_CLIENT_CAPABILITIES]: {}, [META_CLIENT_INFO]: CLIENT_INFO, ...extra };
}

let nextId = 1;

/** A request with the envelope in params._meta. */
function request(method: string, params: Json = {}, meta: Json = envelope()): Json {
  return { jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: meta } };
}

/** The headers a 2026-07-28 client sends for `body` (which headers can be overridden or removed with undefined). */
function headersFor(body: Json, override: Record<string, string | undefined> = {}): Record<string, string> {
  const params = body.params as Json | undefined;
  const meta = params?._meta as Json | undefined;
  const headers: Record<string, string | undefined> = {
    accept: ACCEPT_BOTH,
    "content-type": "application/json",
    "mcp-protocol-version": String(meta?.[META_PROTOCOL_VERSION] ?? MODERN),
    "mcp-method": String(body.method),
  };
  if (body.method === "tools/call" || body.method === "prompts/get") headers["mcp-name"] = String(params?.name);
  if (body.method === "resources/read") headers["mcp-name"] = String(params?.uri);
  Object.assign(headers, override);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = v;
  return out;
}

function post(url: string, body: Json | string, headers: Record<string, string>, signal?: unknown): Promise<FetchResponse> {
  return fetch(url, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body), signal });
}

/** POSTs `body` with the right headers (or overrides) and returns status, headers and the JSON answer. */
async function call(
  url: string,
  body: Json,
  override: Record<string, string | undefined> = {},
): Promise<{ status: number; response: FetchResponse; message: Json }> {
  const response = await post(url, body, headersFor(body, override));
  const type = response.headers.get("content-type") ?? "";
  assert.ok(type.startsWith("application/json"), `a JSON answer, got ${type} (${response.status})`);
  return { status: response.status, response, message: JSON.parse(await response.text()) as Json };
}

function errorOf(message: Json): { code: number; message: string; data?: Json } {
  assert.ok(message.error !== undefined, `an error, got ${JSON.stringify(message)}`);
  return message.error as { code: number; message: string; data?: Json };
}

/** Reads SSE message events one at a time (comments and priming skipped). */
class SseReader {
  private readonly reader: StreamReader;
  private readonly decoder = new TextDecoder();
  private buffer = "";
  /** Raw event blocks seen, comments included. */
  readonly blocks: string[] = [];

  constructor(response: FetchResponse) {
    assert.ok(response.body !== null);
    this.reader = response.body.getReader();
  }

  /** The next JSON-RPC message; undefined when the stream ends. */
  async next(ms = 5000): Promise<Json | undefined> {
    for (;;) {
      const boundary = this.buffer.indexOf("\n\n");
      if (boundary >= 0) {
        const block = this.buffer.slice(0, boundary);
        this.buffer = this.buffer.slice(boundary + 2);
        this.blocks.push(block);
        const data = block
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trimStart())
          .join("\n");
        if (data === "") continue;
        return JSON.parse(data) as Json;
      }
      const chunk = await withTimeout(this.reader.read(), ms, "SSE read");
      if (chunk.done) return undefined;
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
    }
  }

  cancel(): void {
    this.reader.cancel().catch(() => {});
  }
}

// ── a session-era client, for the dual-era tests ──────────────────────────────

async function openLegacy(url: string): Promise<{ id: string; post(body: Json): Promise<Json> }> {
  const init = await fetch(url, {
    method: "POST",
    headers: { accept: ACCEPT_BOTH, "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "legacy", version: "1" } },
    }),
  });
  assert.equal(init.status, 200);
  const id = init.headers.get("mcp-session-id");
  assert.ok(id !== null);
  assert.equal(((JSON.parse(await init.text()) as Json).result as Json).protocolVersion, "2025-11-25");
  const headers = { accept: ACCEPT_BOTH, "content-type": "application/json", "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" };
  const initialized = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  assert.equal(initialized.status, 202);
  return {
    id,
    post: async (body) => {
      const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
      assert.equal(response.status, 200);
      return JSON.parse(await response.text()) as Json;
    },
  };
}

function base64(bytes: Uint8Array): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const n = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += alphabet[(n >> 18) & 63]! + alphabet[(n >> 12) & 63]!;
    out += i + 1 < bytes.length ? alphabet[(n >> 6) & 63]! : "=";
    out += i + 2 < bytes.length ? alphabet[n & 63]! : "=";
  }
  return out;
}

// ── tests ─────────────────────────────────────────────────────────────────────

test("MOD-05, MOD-11, MOD-20: a stateless tools/call: 200 JSON, resultType complete, serverInfo in _meta, no Mcp-Session-Id", async (t) => {
  const { url, server } = await serve(t);
  const body = request("tools/call", { name: "echo", arguments: { text: "hi" } });
  const { status, response, message } = await call(url, body);
  assert.equal(status, 200);
  assert.equal(response.headers.get("mcp-session-id"), null);
  assert.equal(message.id, body.id);
  const result = message.result as Json;
  assert.equal(result.resultType, "complete");
  assert.deepEqual(result.content, [{ type: "text", text: "hi" }]);
  assert.deepEqual((result._meta as Json)[META_SERVER_INFO], { name: "modern-fixture", version: "2.0.0" });
  // The per-request session is gone with its answer.
  await until(() => server.sessions.size === 0, "per-request session released");
});

test("MOD-18: header rules: MCP-Protocol-Version ≠ _meta, missing or wrong Mcp-Method, missing or wrong Mcp-Name → 400 -32020", async (t) => {
  const { url, signals } = await serve(t);
  const cases: Array<[string, Record<string, string | undefined>]> = [
    ["version header ≠ _meta", { "mcp-protocol-version": "2025-11-25" }],
    ["version header missing", { "mcp-protocol-version": undefined }],
    ["Mcp-Method missing", { "mcp-method": undefined }],
    ["Mcp-Method wrong", { "mcp-method": "tools/list" }],
    ["Mcp-Name missing", { "mcp-name": undefined }],
    ["Mcp-Name wrong", { "mcp-name": "other" }],
    ["Mcp-Name in bad base64", { "mcp-name": "=?base64?***?=" }],
  ];
  for (const [label, override] of cases) {
    const { status, message, response } = await call(url, request("tools/call", { name: "hang" }), override);
    assert.equal(status, 400, label);
    assert.equal(errorOf(message).code, -32020, label);
    assert.equal(response.headers.get("mcp-session-id"), null, label);
  }
  // resources/read names its uri in Mcp-Name.
  const read = await call(url, request("resources/read", { uri: "test://config" }), { "mcp-name": "test://other" });
  assert.equal(read.status, 400);
  assert.equal(errorOf(read.message).code, -32020);
  // No handler ran for any refused request.
  assert.equal(signals.length, 0);
});

test("MOD-18: Mcp-Name (and Mcp-Method) in =?base64?…?= are decoded before comparing", async (t) => {
  const { url } = await serve(t);
  const b64 = (text: string): string => `=?base64?${base64(new TextEncoder().encode(text))}?=`;
  const unicode = await call(url, request("tools/call", { name: "grüße welt" }), { "mcp-name": b64("grüße welt") });
  assert.equal(unicode.status, 200);
  assert.deepEqual((unicode.message.result as Json).content, [{ type: "text", text: "hallo" }]);
  const ascii = await call(url, request("tools/call", { name: "echo", arguments: { text: "x" } }), {
    "mcp-name": b64("echo"),
    "mcp-method": b64("tools/call"),
  });
  assert.equal(ascii.status, 200);
  // The encoding of another name is still a mismatch.
  const other = await call(url, request("tools/call", { name: "echo", arguments: { text: "x" } }), { "mcp-name": b64("ech0") });
  assert.equal(other.status, 400);
  assert.equal(errorOf(other.message).code, -32020);
});

test("MOD-19: Mcp-Param-* of a tool's x-mcp-header arguments: equal headers pass; missing, different or malformed ones → 400 -32020 before the handler", async (t) => {
  const { url, server } = await serve(t);
  const route = (args: Json, override: Record<string, string | undefined>): Promise<{ status: number; message: Json }> =>
    call(url, request("tools/call", { name: "route", arguments: args }), override);
  const passed = await route(
    { region: "Hello", priority: 42, query: "q" },
    { "mcp-param-region": "=?base64?SGVsbG8=?=", "Mcp-Param-Priority": "42.0" },
  );
  assert.equal(passed.status, 200);
  assert.deepEqual((passed.message.result as Json).content, [{ type: "text", text: "Hello/42" }]);
  // Arguments absent or null expect no header.
  assert.equal((await route({ region: null, query: "q" }, {})).status, 200);
  const refused: Array<[string, Json, Record<string, string>]> = [
    ["header missing", { region: "eu" }, {}],
    ["header different", { region: "eu" }, { "mcp-param-region": "us" }],
    ["bad base64 padding", { region: "Hello" }, { "mcp-param-region": "=?base64?SGVsbG8?=" }],
    ["integer different", { region: "eu", priority: 1 }, { "mcp-param-region": "eu", "mcp-param-priority": "2" }],
  ];
  for (const [label, args, override] of refused) {
    const { status, message } = await route(args, override);
    assert.equal(status, 400, label);
    assert.equal(errorOf(message).code, -32020, label);
  }
  // A tool the server does not have is the session's to refuse (-32602), headers or not.
  const unknown = await call(url, request("tools/call", { name: "nope", arguments: { region: "eu" } }));
  assert.equal(errorOf(unknown.message).code, -32602);
  await until(() => server.sessions.size === 0, "no per-request session left");
});

test("MOD-01: envelope: a missing field → 400 -32602; no _meta at all with a 2026-07-28 version header → 400 -32602", async (t) => {
  const { url } = await serve(t);
  const noCaps = request("tools/list", {}, { [META_PROTOCOL_VERSION]: MODERN });
  const a = await call(url, noCaps);
  assert.equal(a.status, 400);
  assert.equal(errorOf(a.message).code, -32602);
  assert.equal(a.message.id, noCaps.id);
  const bare = { jsonrpc: "2.0", id: 77, method: "tools/list" };
  const b = await call(url, bare, { "mcp-protocol-version": MODERN, "mcp-method": "tools/list" });
  assert.equal(b.status, 400);
  assert.equal(errorOf(b.message).code, -32602);
  assert.equal(b.message.id, 77);
  assert.match(String(errorOf(b.message).data?.path), /params\._meta/);
});

test("MOD-06: an unsupported version → 400 -32022 with supported and requested", async (t) => {
  const { url } = await serve(t);
  const body = request("tools/list", {}, envelope({}, "2099-01-01"));
  const { status, message } = await call(url, body);
  assert.equal(status, 400);
  const error = errorOf(message);
  assert.equal(error.code, -32022);
  assert.equal(error.data?.requested, "2099-01-01");
  assert.ok((error.data?.supported as string[]).includes(MODERN));
});

test("MOD-07, MOD-20: an unknown method → 404 -32601; server/discover → 200 with versions, capabilities and serverInfo", async (t) => {
  const { url } = await serve(t);
  const unknown = await call(url, request("no/such/method"));
  assert.equal(unknown.status, 404);
  assert.equal(errorOf(unknown.message).code, -32601);
  // A method gone in 2026-07-28 is unknown too.
  const ping = await call(url, request("ping"));
  assert.equal(ping.status, 404);
  const discover = await call(url, request("server/discover"));
  assert.equal(discover.status, 200);
  const result = discover.message.result as Json;
  assert.equal(result.resultType, "complete");
  assert.ok((result.supportedVersions as string[]).includes(MODERN));
  assert.ok((result.supportedVersions as string[]).includes("2025-11-25"));
  assert.ok((result.capabilities as Json).tools !== undefined);
  assert.deepEqual((result._meta as Json)[META_SERVER_INFO], { name: "modern-fixture", version: "2.0.0" });
  // An unknown tool is an ordinary answer (200), not an HTTP failure.
  const noTool = await call(url, request("tools/call", { name: "nope" }));
  assert.equal(noTool.status, 200);
  assert.equal(errorOf(noTool.message).code, -32602);
});

test("MOD-03: progress and log messages of a request come on its SSE stream before the result; logs only at or above the level asked", async (t) => {
  const { url } = await serve(t);
  const body = request("tools/call", { name: "report" }, envelope({ progressToken: "p1", [META_LOG_LEVEL]: "info" }));
  const response = await post(url, body, headersFor(body));
  assert.equal(response.status, 200);
  assert.ok((response.headers.get("content-type") ?? "").startsWith("text/event-stream"));
  assert.equal(response.headers.get("x-accel-buffering"), "no");
  assert.equal(response.headers.get("mcp-session-id"), null);
  const reader = new SseReader(response);
  const messages: Json[] = [];
  for (let m = await reader.next(); m !== undefined; m = await reader.next()) messages.push(m);
  assert.deepEqual(
    messages.map((m) => m.method ?? "result"),
    ["notifications/progress", "notifications/message", "notifications/progress", "result"],
  );
  assert.equal(((messages[1] as Json).params as Json).level, "info");
  assert.equal((messages[3] as Json).id, body.id);
  assert.ok(
    reader.blocks.every((b) => !b.startsWith("id:") && !b.includes("\nid:")),
    "no event ids: not resumable",
  );

  // Without a level, no log message at all (and no progress without a token): a JSON answer.
  const quiet = await call(url, request("tools/call", { name: "report" }));
  assert.equal(quiet.status, 200);
  assert.equal((quiet.message.result as Json).resultType, "complete");
});

test("MOD-20: responseMode sse: every 2026-07-28 answer on an SSE stream without event ids; refusals found before any handler stay JSON", async (t) => {
  const { url } = await serve(t, { responseMode: "sse" });
  const body = request("tools/call", { name: "echo", arguments: { text: "s" } });
  const response = await post(url, body, headersFor(body));
  assert.ok((response.headers.get("content-type") ?? "").startsWith("text/event-stream"));
  const reader = new SseReader(response);
  const answer = await reader.next();
  assert.equal(answer?.id, body.id);
  assert.equal(await reader.next(), undefined);
  const unknown = await call(url, request("no/such"));
  assert.equal(unknown.status, 404);
});

test("MOD-20: a 2026-07-28 notification → 202; a response or a batch POSTed to a modern-only endpoint → 400", async (t) => {
  const { url } = await serve(t);
  const note = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5 } };
  const accepted = await post(url, note, headersFor(note));
  assert.equal(accepted.status, 202);
  assert.equal(await accepted.text(), "");

  const modernOnly = await serve(t, { eras: "modern" });
  const batch = await post(modernOnly.url, JSON.stringify([request("tools/list")]), {
    accept: ACCEPT_BOTH,
    "content-type": "application/json",
    "mcp-protocol-version": MODERN,
  });
  assert.equal(batch.status, 400);
  assert.equal(errorOf(JSON.parse(await batch.text()) as Json).code, -32600);
  const reply = await post(
    modernOnly.url,
    { jsonrpc: "2.0", id: 1, result: {} },
    { accept: ACCEPT_BOTH, "content-type": "application/json", "mcp-protocol-version": MODERN },
  );
  assert.equal(reply.status, 400);
  const nullId = await post(
    modernOnly.url,
    { jsonrpc: "2.0", id: null, method: "tools/list", params: { _meta: envelope() } },
    { accept: ACCEPT_BOTH, "content-type": "application/json", "mcp-protocol-version": MODERN, "mcp-method": "tools/list" },
  );
  assert.equal(nullId.status, 400);
});

test("MOD-23: dual era: a session-era client and a 2026-07-28 client on one endpoint at the same time", async (t) => {
  const { url, server, started, signals } = await serve(t);
  const legacy = await openLegacy(url);
  // A modern call left running while both eras talk.
  const hanging = request("tools/call", { name: "hang" });
  const abort = new platform.AbortController();
  const hangStarted = started();
  const pendingModern = post(url, hanging, headersFor(hanging), abort.signal).catch(() => undefined);
  await withTimeout(hangStarted, 5000, "hang started");
  // Changes announced meanwhile reach the session; the modern call (no listen) just ignores them.
  server.tool("transient", {}, () => ({ content: [] })).remove();
  server.notifyResourceUpdated("test://config");

  const [legacyAnswer, modernAnswer] = await Promise.all([
    legacy.post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "old" } } }),
    call(url, request("tools/call", { name: "echo", arguments: { text: "new" } })),
  ]);
  assert.deepEqual((legacyAnswer.result as Json).content, [{ type: "text", text: "old" }]);
  assert.equal((legacyAnswer.result as Json).resultType, undefined, "session-era results carry no resultType");
  assert.deepEqual((modernAnswer.message.result as Json).content, [{ type: "text", text: "new" }]);
  assert.equal(modernAnswer.response.headers.get("mcp-session-id"), null);
  // The same id in both eras: each request goes to its own client.
  const sameId = await Promise.all([
    legacy.post({ jsonrpc: "2.0", id: 42, method: "tools/list" }),
    call(url, { ...request("tools/list"), id: 42 }),
  ]);
  assert.equal(sameId[0].id, 42);
  assert.equal(sameId[1].message.id, 42);
  assert.equal((sameId[1].message.result as Json).resultType, "complete");
  // Session-era ping still works in the session; in 2026-07-28 it is unknown.
  assert.deepEqual((await legacy.post({ jsonrpc: "2.0", id: 2, method: "ping" })).result, {});

  abort.abort();
  await pendingModern;
  await until(() => signals[0]?.aborted === true, "hang aborted");
  // Only the session remains.
  await until(() => server.sessions.size === 1, "only the legacy session left");
});

test("MOD-17: closing a 2026-07-28 request's stream cancels its handler (JSON pending and SSE open)", async (t) => {
  const { url, started, signals, host } = await serve(t);
  // JSON mode: nothing written yet when the client gives up.
  const first = request("tools/call", { name: "hang" });
  const abort1 = new platform.AbortController();
  const firstStarted = started();
  const p1 = post(url, first, headersFor(first), abort1.signal).catch((error: unknown) => error);
  await withTimeout(firstStarted, 5000, "first hang started");
  assert.equal(signals[0]?.aborted, false);
  abort1.abort();
  await p1;
  await until(() => signals[0]?.aborted === true, "first handler aborted");
  assert.match(String(signals[0]?.reason), /closed the response stream/);

  // SSE mode: the stream is open (headers sent) when the client closes it.
  const { url: sseUrl, started: sseStarted, signals: sseSignals, host: sseHost } = await serve(t, { responseMode: "sse" });
  const second = request("tools/call", { name: "hang" });
  const abort2 = new platform.AbortController();
  const secondStarted = sseStarted();
  const response = await post(sseUrl, second, headersFor(second), abort2.signal);
  await withTimeout(secondStarted, 5000, "second hang started");
  assert.equal(response.status, 200);
  assert.equal(sseSignals[0]?.aborted, false);
  abort2.abort();
  await until(() => sseSignals[0]?.aborted === true, "SSE handler aborted");
  await until(() => sseHost.exchanges.size === 0 && host.exchanges.size === 0, "exchanges released");
});

test("MOD-12, MOD-14: subscriptions/listen: acknowledgement first, then list_changed and resources/updated; closing the stream ends the subscription", async (t) => {
  const { url, server, host } = await serve(t);
  const listen = request("subscriptions/listen", {
    notifications: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ["test://config"] },
  });
  const abort = new platform.AbortController();
  const response = await post(url, listen, headersFor(listen), abort.signal);
  assert.equal(response.status, 200);
  assert.ok((response.headers.get("content-type") ?? "").startsWith("text/event-stream"));
  assert.equal(response.headers.get("mcp-session-id"), null);
  const reader = new SseReader(response);
  const ack = await reader.next();
  assert.equal(ack?.method, "notifications/subscriptions/acknowledged");
  const ackParams = ack?.params as Json;
  // No prompts registered: promptsListChanged is not honoured.
  assert.deepEqual(ackParams.notifications, { toolsListChanged: true, resourceSubscriptions: ["test://config"] });
  assert.equal((ackParams._meta as Json)[META_SUBSCRIPTION_ID], listen.id);

  // Other requests meanwhile do not disturb the stream, and get nothing of it.
  const other = await call(url, request("tools/list"));
  assert.equal(other.status, 200);

  const registration = server.tool("late", {}, () => ({ content: [] }));
  const changed = await reader.next();
  assert.equal(changed?.method, "notifications/tools/list_changed");
  assert.equal(((changed?.params as Json)._meta as Json)[META_SUBSCRIPTION_ID], listen.id);

  server.notifyResourceUpdated("test://elsewhere");
  server.notifyResourceUpdated("test://config");
  const updated = await reader.next();
  assert.equal(updated?.method, "notifications/resources/updated");
  assert.equal((updated?.params as Json).uri, "test://config");
  assert.equal(((updated?.params as Json)._meta as Json)[META_SUBSCRIPTION_ID], listen.id);

  // Closing the stream cancels the subscription: its session goes, later changes go nowhere.
  assert.equal(host.exchanges.size, 1);
  abort.abort();
  reader.cancel();
  await until(() => host.exchanges.size === 0 && server.sessions.size === 0, "listen session released");
  registration.remove();
});

test("MOD-15: shutdown ends an open listen stream with its final result", async (t) => {
  const fix = fixture();
  const running = await serveHttp(fix.server, { onError: () => {} });
  let closed = false;
  (t as unknown as { after(fn: () => Promise<void>): void }).after(async () => {
    if (!closed) await running.close();
  });
  const listen = request("subscriptions/listen", { notifications: { toolsListChanged: true } });
  const response = await post(running.url, listen, headersFor(listen));
  const reader = new SseReader(response);
  assert.equal((await reader.next())?.method, "notifications/subscriptions/acknowledged");
  const closing = running.close();
  closed = true;
  const last = await reader.next();
  assert.equal(last?.id, listen.id);
  assert.equal((last?.result as Json).resultType, "complete");
  assert.equal(((last?.result as Json)._meta as Json)[META_SUBSCRIPTION_ID], listen.id);
  await closing;
});

test("listen keep-alives are SSE comments", async (t) => {
  const { url } = await serve(t, { keepAliveMs: 20 });
  const listen = request("subscriptions/listen", { notifications: { toolsListChanged: true } });
  const abort = new platform.AbortController();
  const response = await post(url, listen, headersFor(listen), abort.signal);
  const reader = new SseReader(response);
  assert.equal((await reader.next())?.method, "notifications/subscriptions/acknowledged");
  const next = reader.next(300).catch(() => undefined);
  await until(() => reader.blocks.some((b) => b.startsWith(":")), "a keep-alive comment");
  abort.abort();
  reader.cancel();
  await next;
});

test("MOD-20, MOD-22: modern-only endpoint: GET and DELETE → 405; initialize → 400 -32022 naming 2026-07-28; Mcp-Session-Id ignored", async (t) => {
  const { url } = await serve(t, { eras: "modern" });
  const get = await fetch(url, { method: "GET", headers: { accept: "text/event-stream" } });
  assert.equal(get.status, 405);
  assert.equal(get.headers.get("allow"), "POST");
  const del = await fetch(url, { method: "DELETE", headers: { "mcp-session-id": "x" } });
  assert.equal(del.status, 405);
  const init = await post(
    url,
    { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: CLIENT_INFO } },
    { accept: ACCEPT_BOTH, "content-type": "application/json" },
  );
  assert.equal(init.status, 400);
  assert.equal(init.headers.get("mcp-session-id"), null);
  const error = errorOf(JSON.parse(await init.text()) as Json);
  assert.equal(error.code, -32022);
  assert.deepEqual(error.data, { supported: [MODERN], requested: "2025-11-25" });
  // A stale session id is ignored, not looked up.
  const body = request("tools/call", { name: "echo", arguments: { text: "k" } });
  const ok = await call(url, body, { "mcp-session-id": "no-such-session" });
  assert.equal(ok.status, 200);
  // A request without the envelope is a 2026-07-28 request missing it.
  const bare = await call(url, { jsonrpc: "2.0", id: 3, method: "tools/list" }, { "mcp-protocol-version": undefined });
  assert.equal(bare.status, 400);
  assert.equal(errorOf(bare.message).code, -32602);
});

test("MOD-20: a modern-only Server (versions 2026-07-28 only) serves both hosts' modern path; eras modern needs such a version", async (t) => {
  const { url } = await serve(t, {}, fixture([MODERN]));
  const answer = await call(url, request("tools/call", { name: "echo", arguments: { text: "m" } }));
  assert.equal(answer.status, 200);
  assert.throws(() => new HttpHost(fixture(["2025-11-25"]).server, { eras: "modern" }), RangeError);
});

test("MOD-24: session-era endpoints answer 2026-07-28 traffic as before: 400 without a modern error", async (t) => {
  for (const [options, fix] of [
    [{ eras: "session" }, fixture()],
    [{}, fixture(["2025-11-25"])],
  ] as const) {
    const { url } = await serve(t, options, fix);
    const body = request("tools/call", { name: "echo", arguments: { text: "x" } });
    const response = await post(url, body, headersFor(body));
    assert.equal(response.status, 400);
    const error = errorOf(JSON.parse(await response.text()) as Json);
    assert.ok(![-32020, -32021, -32022].includes(error.code), `not a modern error: ${error.code}`);
    // And the session era works.
    const legacy = await openLegacy(url);
    assert.deepEqual((await legacy.post({ jsonrpc: "2.0", id: 1, method: "ping" })).result, {});
  }
});

test("MOD-23, HTTP-03: dual-era endpoint: initialize without a session id still opens a session; other session-era POSTs without one → 400", async (t) => {
  const { url } = await serve(t);
  const legacy = await openLegacy(url);
  assert.ok(legacy.id.length > 0);
  const stray = await post(
    url,
    { jsonrpc: "2.0", id: 9, method: "tools/list" },
    { accept: ACCEPT_BOTH, "content-type": "application/json" },
  );
  assert.equal(stray.status, 400);
  const badVersion = await post(
    url,
    { jsonrpc: "2.0", id: 9, method: "tools/list" },
    { accept: ACCEPT_BOTH, "content-type": "application/json", "mcp-protocol-version": "1999-01-01" },
  );
  assert.equal(badVersion.status, 400);
  const notJson = await post(url, "{", { accept: ACCEPT_BOTH, "content-type": "application/json" });
  assert.equal(notJson.status, 400);
  assert.equal(errorOf(JSON.parse(await notJson.text()) as Json).code, -32700);
});

test("MOD-20: the portable client transport against this host: calls, discover, listen, cancellation and errors, all stateless", async (t) => {
  const { url, server, started, signals, host } = await serve(t);
  const transport = nodeHttpTransport({ url });
  const engine = new Engine({ role: "client", info: CLIENT_INFO, versions: [MODERN] });
  engine.startModern();
  const events: EngineEvent[] = [];
  let wake: (() => void) | undefined;
  const driver = new Driver(engine, transport, (e) => {
    events.push(e);
    wake?.();
  });
  transport.attach(driver);
  (t as unknown as { after(fn: () => Promise<void>): void }).after(() => transport.close());
  const answerTo = async (id: number): Promise<EngineEvent> => {
    const find = (): EngineEvent | undefined => events.find((e) => (e.kind === "response" || e.kind === "error-response") && e.id === id);
    await withTimeout(
      new Promise<void>((resolve) => {
        const check = (): void => (find() !== undefined ? resolve() : void (wake = check));
        check();
      }),
      5000,
      `answer to ${id}`,
    );
    return find() as EngineEvent;
  };
  const send = (method: string, params?: Json): number => {
    const id = engine.request(method, params as never);
    driver.pump();
    return id;
  };

  const discover = await answerTo(send("server/discover"));
  assert.equal(discover.kind, "response");
  assert.ok(events.some((e) => e.kind === "negotiated"));
  const echo = await answerTo(send("tools/call", { name: "grüße welt" }));
  assert.ok(echo.kind === "response");
  assert.deepEqual(echo.result.content, [{ type: "text", text: "hallo" }]);
  const unknown = await answerTo(send("tools/call", { name: "nope" }));
  assert.ok(unknown.kind === "error-response");
  assert.equal(unknown.error.code, -32602);

  const listen = send("subscriptions/listen", { notifications: { toolsListChanged: true } });
  await until(
    () => events.some((e) => e.kind === "notification" && e.method === "notifications/subscriptions/acknowledged"),
    "acknowledged",
  );
  server.tool("added", {}, () => ({ content: [] }));
  await until(
    () => events.some((e) => e.kind === "notification" && e.method === "notifications/tools/list_changed"),
    "list_changed over the transport",
  );

  const hangStarted = started();
  const hang = send("tools/call", { name: "hang" });
  await withTimeout(hangStarted, 5000, "hang started");
  engine.cancel(hang);
  engine.cancel(listen);
  driver.pump();
  await until(() => signals[0]?.aborted === true, "the handler aborted by the client's cancel");
  await until(() => host.exchanges.size === 0 && server.sessions.size === 0, "nothing left on the server");
  assert.equal(
    events.filter((e) => (e.kind === "response" || e.kind === "error-response") && (e.id === hang || e.id === listen)).length,
    0,
  );
  assert.equal(transport.sessionId, undefined);
  assert.ok(!events.some((e) => e.kind === "error-response" && e.error.code === HTTP_TRANSPORT_ERROR));
});

test("MOD-19: the client transport mirrors x-mcp-header arguments once tools/list taught it the schema; before that the host refuses the call (-32020)", async (t) => {
  const { url } = await serve(t);
  const connection = await connectHttpNode({ url, info: CLIENT_INFO, versions: [MODERN] });
  try {
    await assert.rejects(
      connection.client.callTool("route", { region: "eu-west", priority: 7 }),
      (error: unknown) => (error as { code?: number }).code === -32020,
    );
    await connection.client.listTools();
    const result = await connection.client.callTool("route", { region: " spaced ü ", priority: 7, query: "q" });
    assert.deepEqual(result.content, [{ type: "text", text: " spaced ü /7" }]);
  } finally {
    await connection.close();
  }
});

test("MOD-24: a dual-era Client over HTTP: modern on a dual or modern-only endpoint, falls back to initialize on a session-only one", async (t) => {
  const cases: Array<[string, HttpServerOptions, readonly ProtocolVersion[], "modern" | "session"]> = [
    ["dual", {}, ["2025-11-25", MODERN], "modern"],
    ["modern-only", { eras: "modern" }, ["2025-11-25", MODERN], "modern"],
    ["session-only", {}, ["2025-11-25"], "session"],
    ["session host of a dual Server", { eras: "session" }, ["2025-11-25", MODERN], "session"],
  ];
  for (const [label, options, versions, era] of cases) {
    const { url } = await serve(t, options, fixture(versions));
    const connection = await connectHttpNode({ url, info: CLIENT_INFO, versions: ["2025-11-25", MODERN], probeTimeoutMs: 3000 });
    try {
      assert.equal(connection.server.era, era, label);
      assert.equal(connection.transport.isModern, era === "modern", label);
      assert.equal(connection.transport.sessionId === undefined, era === "modern", label);
      const result = await connection.client.callTool("echo", { text: label });
      assert.deepEqual(result.content, [{ type: "text", text: label }], label);
    } finally {
      await connection.close();
    }
  }
});
