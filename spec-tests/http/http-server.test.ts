// End to end over Streamable HTTP (RULES.md HTTP-01…HTTP-04) on 127.0.0.1: the reference server behind
// serveHttp, driven with the platform's raw `fetch` (no client library), so every status
// code, header and SSE byte the host writes is what the test sees.
//
// Covered: the handshake and session header; every reference-server feature answered as
// JSON (responseMode "auto") and as SSE ("sse", and "auto" for handlers that send first);
// priming events by version; server requests (sampling, elicitation) on the POST's stream
// answered by separate POSTs; resumption with Last-Event-ID (no repeats, no other stream's
// events), disconnect vs notifications/cancelled; every refusal status (400, 403, 404, 405,
// 406, 409, 413, 415); batches under 2025-03-26; the GET stream; a shared session store
// across two hosts; and a load run of 200 sessions × 50 requests with a heap check.
//
// Every wait is bounded (withTimeout) and waits for an event, except where the point is
// that nothing arrives.

import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createServer, request as httpRequest } from "node:http";
import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createReferenceServer } from "../../lib/cli/reference-server.js";
import type { EngineSnapshot } from "../../lib/engine/engine.js";
import {
  HttpHost,
  MemorySessionStore,
  serveHttp,
  type HttpServerOptions,
  type RunningHttpServer,
  type SessionStore,
} from "../../lib/hosts/http-server.js";
import type { HandlerContext, Server } from "../../lib/peer/server/server.js";
import { sleep, withTimeout } from "../support/helpers.js";

// ── the platform's fetch, typed locally (the project has no DOM or Node type packages) ──

interface FetchHeaders {
  get(name: string): string | null;
}
interface StreamReader {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel(reason?: unknown): Promise<void>;
}
interface FetchResponse {
  readonly status: number;
  readonly headers: FetchHeaders;
  readonly body: { getReader(): StreamReader } | null;
  text(): Promise<string>;
}
interface FetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | object;
  signal?: unknown;
  duplex?: "half";
}
interface PlatformAbortController {
  readonly signal: unknown;
  abort(reason?: unknown): void;
}
const platform = globalThis as unknown as {
  fetch: (url: string, init?: FetchInit) => Promise<FetchResponse>;
  AbortController: new () => PlatformAbortController;
  ReadableStream: new (source: { start(controller: { enqueue(chunk: Uint8Array): void; close(): void }): void }) => object;
};
/** fetch with a bound on the wait for the response headers (a server that never answers fails the test, not the run). */
function fetch(url: string, init?: FetchInit): Promise<FetchResponse> {
  return withTimeout(platform.fetch(url, init), 10_000, `${init?.method ?? "GET"} ${url}`);
}

type Json = { [key: string]: unknown };
type Mode = "auto" | "sse";

const LATEST = "2025-11-25";
const ACCEPT_BOTH = "application/json, text/event-stream";

// ── helpers ─────────────────────────────────────────────────────────────────────────

/** The reference server's sleep: a timer that an aborted signal cuts short. */
function abortableSleep(ms: number, signal: HandlerContext["signal"]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) {
      reject(new Error("aborted"));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new Error("aborted"));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function referenceServer(): Server {
  return createReferenceServer({ paginationSecret: randomBytes(32), sleep: abortableSleep });
}

/** Serves a fresh reference server (or `server`) and closes it when the test ends. */
async function serve(
  t: TestContext,
  options: HttpServerOptions = {},
  server: Server = referenceServer(),
): Promise<RunningHttpServer & { server: Server }> {
  const running = await serveHttp(server, { onError: () => {}, ...options });
  (t as unknown as { after(fn: () => Promise<void>): void }).after(() => running.close());
  return Object.assign(running, { server });
}

interface SseEvent {
  id?: string;
  retry?: number;
  event?: string;
  data: string;
}

/** Reads an SSE body one event at a time. */
class SseReader {
  private readonly reader: StreamReader;
  private readonly decoder = new TextDecoder();
  private buffer = "";
  private ended = false;

  constructor(response: FetchResponse) {
    assert.ok(response.body !== null, "an SSE response has a body");
    this.reader = response.body.getReader();
  }

  /** The next event; undefined once the stream has ended. */
  async next(ms = 5000): Promise<SseEvent | undefined> {
    for (;;) {
      const boundary = this.buffer.indexOf("\n\n");
      if (boundary >= 0) {
        const block = this.buffer.slice(0, boundary);
        this.buffer = this.buffer.slice(boundary + 2);
        return parseEvent(block);
      }
      if (this.ended) {
        assert.equal(this.buffer.trim(), "", "no partial event at the end of the stream");
        return undefined;
      }
      const chunk = await withTimeout(this.reader.read(), ms, "SSE read");
      if (chunk.done) this.ended = true;
      else this.buffer += this.decoder.decode(chunk.value, { stream: true });
    }
  }

  /** Every remaining event, until the server ends the stream. */
  async rest(ms = 5000): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    for (let e = await this.next(ms); e !== undefined; e = await this.next(ms)) events.push(e);
    return events;
  }

  cancel(): void {
    this.reader.cancel().catch(() => {});
  }
}

function parseEvent(block: string): SseEvent {
  const event: SseEvent = { data: "" };
  const data: string[] = [];
  for (const line of block.split("\n")) {
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "id") event.id = value;
    else if (field === "retry") event.retry = Number(value);
    else if (field === "event") event.event = value;
    else if (field === "data") data.push(value);
  }
  event.data = data.join("\n");
  return event;
}

/** The JSON-RPC message an event carries; undefined for a priming event (empty data). */
function messageOf(event: SseEvent): Json | undefined {
  return event.data.trim() === "" ? undefined : (JSON.parse(event.data) as Json);
}

/** A session opened over raw HTTP. */
class RawSession {
  private next = 1;
  constructor(
    readonly url: string,
    readonly id: string,
    readonly version: string,
  ) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      accept: ACCEPT_BOTH,
      "content-type": "application/json",
      "mcp-session-id": this.id,
      "mcp-protocol-version": this.version,
      ...extra,
    };
  }

  post(body: unknown, extra: Record<string, string> = {}, signal?: unknown): Promise<FetchResponse> {
    return fetch(this.url, {
      method: "POST",
      headers: this.headers(extra),
      body: typeof body === "string" ? body : JSON.stringify(body),
      signal,
    });
  }

  get(extra: Record<string, string> = {}, signal?: unknown): Promise<FetchResponse> {
    return fetch(this.url, {
      method: "GET",
      headers: { accept: "text/event-stream", "mcp-session-id": this.id, "mcp-protocol-version": this.version, ...extra },
      signal,
    });
  }

  newId(): number {
    return this.next++;
  }

  /** Sends a notification or a response; the server must accept it with 202 and no body. */
  async accepted(message: Json): Promise<void> {
    const response = await this.post(message);
    assert.equal(response.status, 202, `202 for ${JSON.stringify(message).slice(0, 80)}`);
    assert.equal(await response.text(), "");
  }
}

const CLIENT_CAPABILITIES = { sampling: {}, elicitation: {}, roots: { listChanged: true } };

/** initialize + notifications/initialized over raw HTTP. */
async function open(url: string, version = LATEST, capabilities: Json = CLIENT_CAPABILITIES): Promise<RawSession> {
  const response = await fetch(url, {
    method: "POST",
    headers: { accept: ACCEPT_BOTH, "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: version, capabilities, clientInfo: { name: "raw-fetch", version: "1" } },
    }),
  });
  assert.equal(response.status, 200);
  const id = response.headers.get("mcp-session-id");
  assert.ok(id !== null && id.length > 0, "initialize answers with Mcp-Session-Id");
  const text = await response.text();
  const type = response.headers.get("content-type") ?? "";
  const init = (
    type.startsWith("text/event-stream") ? messageOf(parseEvent(text.trim().split("\n\n").at(-1) ?? "")) : JSON.parse(text)
  ) as Json;
  assert.equal((init.result as Json).protocolVersion, version);
  const session = new RawSession(url, id, version);
  await session.accepted({ jsonrpc: "2.0", method: "notifications/initialized" });
  return session;
}

interface Exchange {
  status: number;
  contentType: string;
  /** Every SSE event in order (priming included); empty for a JSON answer. */
  events: SseEvent[];
  /** Every message received, in order; the last is the response. */
  messages: Json[];
  response: Json;
}

/** Answers a server request (sampling, elicitation, roots) that arrived on a stream. */
type ServerRequestHandler = (request: Json) => Json;

/** Sends one request and reads its whole answer (JSON or SSE), answering server requests on the way. */
async function exchange(
  session: RawSession,
  method: string,
  params?: Json,
  onRequest?: ServerRequestHandler,
  id: number | string = session.newId(),
): Promise<Exchange> {
  const body: Json = params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
  const response = await session.post(body);
  const contentType = response.headers.get("content-type") ?? "";
  if (!contentType.startsWith("text/event-stream")) {
    const message = JSON.parse(await response.text()) as Json;
    return { status: response.status, contentType, events: [], messages: [message], response: message };
  }
  const reader = new SseReader(response);
  const events: SseEvent[] = [];
  const messages: Json[] = [];
  for (let e = await reader.next(); e !== undefined; e = await reader.next()) {
    events.push(e);
    const m = messageOf(e);
    if (m === undefined) continue;
    messages.push(m);
    if (typeof m.method === "string" && m.id !== undefined) {
      assert.ok(onRequest !== undefined, `unexpected server request ${m.method}`);
      await session.accepted({ jsonrpc: "2.0", id: m.id, result: onRequest(m) });
    }
  }
  const last = messages.at(-1);
  assert.ok(last !== undefined, "the stream carried a response");
  assert.equal(last.id, id, "the stream ends with the response to its request");
  return { status: response.status, contentType, events, messages, response: last };
}

function resultOf(x: Exchange): Json {
  assert.ok(x.response.result !== undefined, `a result, got ${JSON.stringify(x.response)}`);
  return x.response.result as Json;
}

function textOf(x: Exchange): string {
  const content = resultOf(x).content as Json[];
  assert.equal(content[0]?.type, "text");
  return content[0]?.text as string;
}

/** Checks the SSE framing rules: priming first under 2025-11-25 only, ids "<stream>:<seq>" of one stream, increasing. */
function checkSseFraming(x: Exchange, version: string): void {
  assert.equal(x.status, 200);
  assert.ok(x.contentType.startsWith("text/event-stream"), `SSE, got ${x.contentType}`);
  const first = x.events[0];
  assert.ok(first !== undefined);
  if (version === "2025-11-25") {
    assert.ok(
      first.id !== undefined && first.retry !== undefined && first.data === "",
      `a priming event first, got ${JSON.stringify(first)}`,
    );
  } else {
    assert.ok(
      x.events.every((e) => e.data !== ""),
      "no priming event before 2025-11-25",
    );
  }
  const ids = x.events.map((e) => e.id);
  assert.ok(
    ids.every((id) => id !== undefined),
    "every event has an id",
  );
  const streams = new Set(ids.map((id) => id!.slice(0, id!.lastIndexOf(":"))));
  assert.equal(streams.size, 1, "one stream's ids");
  const seqs = ids.map((id) => Number(id!.slice(id!.lastIndexOf(":") + 1)));
  for (let i = 1; i < seqs.length; i++) assert.ok(seqs[i]! > seqs[i - 1]!, "event ids increase");
}

/** Raw node:http request: the only way to send a Host header of our choosing (fetch overrides it). */
function rawRequest(url: string, method: string, headers: Record<string, string>, body = ""): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      let text = "";
      const decoder = new TextDecoder();
      res.on("data", (chunk: Uint8Array) => (text += decoder.decode(chunk, { stream: true })));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

function forceGc(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === "function") return exposed;
  try {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as unknown;
    return typeof gc === "function" ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

async function heapAfterGc(gc: () => void): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(10);
  }
  return process.memoryUsage().heapUsed;
}

const PROGRESS_TOKEN = (id: number | string): Json => ({ _meta: { progressToken: `tok-${id}` } });

// ── handshake ───────────────────────────────────────────────────────────────────────

test("HTTP-03, HTTP-02: handshake: initialize → 200 JSON with a visible-ASCII session id; initialized → 202 with no body; later requests need the header", async (t) => {
  const { url } = await serve(t);
  const response = await fetch(url, {
    method: "POST",
    headers: { accept: ACCEPT_BOTH, "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });
  assert.equal(response.status, 200);
  assert.ok((response.headers.get("content-type") ?? "").startsWith("application/json"));
  const id = response.headers.get("mcp-session-id");
  assert.ok(id !== null);
  assert.match(id, /^[\x21-\x7e]+$/, "visible ASCII only");
  assert.ok(id.length >= 16, "long enough to be unguessable");
  const init = JSON.parse(await response.text()) as Json;
  assert.equal(init.id, 1);
  assert.equal((init.result as Json).protocolVersion, LATEST);
  assert.equal(((init.result as Json).serverInfo as Json).name, "mcp-engine-reference-server");

  const initialized = await fetch(url, {
    method: "POST",
    headers: { accept: ACCEPT_BOTH, "content-type": "application/json", "mcp-session-id": id, "mcp-protocol-version": LATEST },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  assert.equal(initialized.status, 202);
  assert.equal(initialized.headers.get("content-type"), null, "no content type on a 202");
  assert.equal(await initialized.text(), "", "an empty body");

  const session = new RawSession(url, id, LATEST);
  const withoutHeader = await fetch(url, {
    method: "POST",
    headers: { accept: ACCEPT_BOTH, "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
  });
  assert.equal(withoutHeader.status, 400);
  const err = JSON.parse(await withoutHeader.text()) as Json;
  assert.equal(err.jsonrpc, "2.0");
  assert.ok(err.error !== undefined && err.id === undefined, "a JSON-RPC error without id");
  const ping = await exchange(session, "ping");
  assert.deepEqual(ping.response.result, {});
  for (let i = 0; i < 3; i++) assert.notEqual((await open(url)).id, id, "every session gets its own id");
});

// ── every feature, as JSON and as SSE ───────────────────────────────────────────────

interface Feature {
  name: string;
  method: string;
  params?: Json;
  onRequest?: ServerRequestHandler;
  /** Answered with notifications before the result even in auto mode. */
  streams?: boolean;
  /** The first version that has the feature (elicitation: 2025-06-18); before it the tool reports an error result. */
  since?: string;
  check(x: Exchange): void;
}

const TOOL_NAMES = [
  "test_simple_text",
  "test_image_content",
  "test_audio_content",
  "test_embedded_resource",
  "test_multiple_content_types",
  "test_tool_with_logging",
  "test_error_handling",
  "test_tool_with_progress",
  "test_sampling",
  "test_elicitation",
  "test_elicitation_sep1034_defaults",
  "test_elicitation_sep1330_enums",
  "json_schema_2020_12_tool",
  "test_reconnection",
  "test_tool_slow",
  "test_tool_fast",
  // The tasks extension's fixtures (reference-tasks.ts; e2e-tasks.test.ts exercises them).
  "greet",
  "slow_compute",
  "failing_job",
  "protocol_error_job",
  "confirm_delete",
  "multi_input",
  "test_tool_with_task",
  // The 2026-07-28 diagnostics (reference-server.test.ts exercises them).
  "test_input_required_result_elicitation",
  "test_input_required_result_sampling",
  "test_input_required_result_list_roots",
  "test_input_required_result_request_state",
  "test_input_required_result_tampered_state",
  "test_input_required_result_multi_round",
  "test_input_required_result_multiple_inputs",
  "test_input_required_result_capabilities",
  "test_missing_capability",
  "test_streaming_elicitation",
  "test_logging_tool",
  "test_trigger_tool_change",
  "test_trigger_prompt_change",
  "test_custom_headers",
];

const sampled: ServerRequestHandler = (request) => {
  assert.equal(request.method, "sampling/createMessage");
  const first = ((request.params as Json).messages as Json[])[0] as Json;
  return { role: "assistant", content: { type: "text", text: `echo ${(first.content as Json).text as string}` }, model: "raw-model" };
};
const elicited: ServerRequestHandler = (request) => {
  assert.equal(request.method, "elicitation/create");
  return { action: "accept", content: { username: "ada", email: "ada@example.com" } };
};

function progressBeforeResult(x: Exchange, count: number): void {
  const progress = x.messages.filter((m) => m.method === "notifications/progress");
  assert.equal(progress.length, count, "progress notifications on the request's stream");
  assert.equal(x.messages.at(-1), x.response, "the response comes last");
  for (const p of progress) assert.equal((p.params as Json).progressToken, `tok-${String(x.response.id)}`);
}

const FEATURES: Feature[] = [
  { name: "ping", method: "ping", check: (x) => assert.deepEqual(resultOf(x), {}) },
  {
    name: "tools/list",
    method: "tools/list",
    check: (x) => assert.deepEqual(((resultOf(x).tools as Json[]).map((tool) => tool.name) as string[]).sort(), [...TOOL_NAMES].sort()),
  },
  {
    name: "test_simple_text",
    method: "tools/call",
    params: { name: "test_simple_text", arguments: {} },
    check: (x) => assert.equal(textOf(x), "This is a simple text response for testing."),
  },
  {
    name: "test_image_content",
    method: "tools/call",
    params: { name: "test_image_content", arguments: {} },
    check: (x) => assert.deepEqual(((resultOf(x).content as Json[])[0] as Json).mimeType, "image/png"),
  },
  {
    name: "test_audio_content",
    method: "tools/call",
    params: { name: "test_audio_content", arguments: {} },
    check: (x) => assert.deepEqual(((resultOf(x).content as Json[])[0] as Json).mimeType, "audio/wav"),
  },
  {
    name: "test_embedded_resource",
    method: "tools/call",
    params: { name: "test_embedded_resource", arguments: {} },
    check: (x) => assert.equal((((resultOf(x).content as Json[])[0] as Json).resource as Json).uri, "test://embedded-resource"),
  },
  {
    name: "test_multiple_content_types",
    method: "tools/call",
    params: { name: "test_multiple_content_types", arguments: {} },
    check: (x) =>
      assert.deepEqual(
        (resultOf(x).content as Json[]).map((c) => c.type),
        ["text", "image", "resource"],
      ),
  },
  {
    name: "test_error_handling",
    method: "tools/call",
    params: { name: "test_error_handling", arguments: {} },
    check: (x) => {
      assert.equal(resultOf(x).isError, true);
      assert.equal(textOf(x), "This tool intentionally returns an error for testing");
    },
  },
  {
    name: "json_schema_2020_12_tool",
    method: "tools/call",
    params: { name: "json_schema_2020_12_tool", arguments: { name: "ada", email: "ada@example.com" } },
    check: (x) => {
      assert.equal(resultOf(x).isError, undefined);
      assert.match(textOf(x), /^JSON Schema 2020-12 tool called with: /);
    },
  },
  {
    name: "test_reconnection",
    method: "tools/call",
    params: { name: "test_reconnection", arguments: {} },
    check: (x) => assert.match(textOf(x), /^Reconnection test completed/),
  },
  {
    name: "test_tool_fast",
    method: "tools/call",
    params: { name: "test_tool_fast", arguments: {} },
    check: (x) => assert.equal(textOf(x), "fast"),
  },
  {
    name: "test_tool_slow (no token)",
    method: "tools/call",
    params: { name: "test_tool_slow", arguments: { durationMs: 30 } },
    check: (x) => assert.equal(textOf(x), "Slept 30 ms"),
  },
  {
    name: "unknown tool",
    method: "tools/call",
    params: { name: "no_such_tool", arguments: {} },
    check: (x) => assert.equal((x.response.error as Json).code, -32602),
  },
  {
    name: "test_tool_with_progress",
    method: "tools/call",
    params: { name: "test_tool_with_progress", arguments: {} },
    streams: true,
    check: (x) => {
      progressBeforeResult(x, 3);
      assert.equal(textOf(x), "Tool with progress executed successfully");
    },
  },
  {
    name: "test_tool_with_logging",
    method: "tools/call",
    params: { name: "test_tool_with_logging", arguments: {} },
    streams: true,
    check: (x) => {
      const logs = x.messages.filter((m) => m.method === "notifications/message");
      assert.ok(logs.length >= 4, `log messages before the result, got ${logs.length}`);
      assert.equal((logs[0]?.params as Json).data, "Tool execution started");
      assert.equal(textOf(x), "Tool with logging executed successfully");
    },
  },
  {
    name: "test_sampling",
    method: "tools/call",
    params: { name: "test_sampling", arguments: { prompt: "hello" } },
    onRequest: sampled,
    streams: true,
    check: (x) => {
      assert.equal(x.messages[0]?.method, "sampling/createMessage", "the sampling request arrives on the POST's stream");
      assert.equal(textOf(x), "LLM response: echo hello");
    },
  },
  {
    name: "test_elicitation",
    since: "2025-06-18",
    method: "tools/call",
    params: { name: "test_elicitation", arguments: { message: "who?" } },
    onRequest: elicited,
    streams: true,
    check: (x) => assert.equal(textOf(x), 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}'),
  },
  {
    name: "test_elicitation_sep1034_defaults",
    since: "2025-06-18",
    method: "tools/call",
    params: { name: "test_elicitation_sep1034_defaults", arguments: {} },
    onRequest: (request) => {
      const properties = ((request.params as Json).requestedSchema as Json).properties as Json;
      assert.equal((properties.name as Json).default, "John Doe");
      return { action: "accept", content: { name: "John Doe", age: 30 } };
    },
    streams: true,
    check: (x) => assert.match(textOf(x), /^Elicitation completed: action=accept/),
  },
  {
    name: "test_elicitation_sep1330_enums",
    since: "2025-06-18",
    method: "tools/call",
    params: { name: "test_elicitation_sep1330_enums", arguments: {} },
    onRequest: () => ({ action: "decline" }),
    streams: true,
    check: (x) => assert.equal(textOf(x), "Elicitation completed: action=decline, content={}"),
  },
  { name: "resources/list", method: "resources/list", check: (x) => assert.equal((resultOf(x).resources as Json[]).length, 3) },
  {
    name: "resources/templates/list",
    method: "resources/templates/list",
    check: (x) => assert.equal(((resultOf(x).resourceTemplates as Json[])[0] as Json).uriTemplate, "test://template/{id}/data"),
  },
  {
    name: "resources/read static-text",
    method: "resources/read",
    params: { uri: "test://static-text" },
    check: (x) => assert.equal(((resultOf(x).contents as Json[])[0] as Json).text, "This is the content of the static text resource."),
  },
  {
    name: "resources/read static-binary",
    method: "resources/read",
    params: { uri: "test://static-binary" },
    check: (x) => assert.equal(((resultOf(x).contents as Json[])[0] as Json).mimeType, "image/png"),
  },
  {
    name: "resources/read template",
    method: "resources/read",
    params: { uri: "test://template/42/data" },
    check: (x) =>
      assert.deepEqual(JSON.parse(((resultOf(x).contents as Json[])[0] as Json).text as string), {
        id: "42",
        templateTest: true,
        data: "Data for ID: 42",
      }),
  },
  {
    name: "resources/read unknown",
    method: "resources/read",
    params: { uri: "test://nothing" },
    check: (x) => assert.equal((x.response.error as Json).code, -32002),
  },
  {
    name: "resources/subscribe",
    method: "resources/subscribe",
    params: { uri: "test://watched-resource" },
    check: (x) => assert.deepEqual(resultOf(x), {}),
  },
  {
    name: "resources/unsubscribe",
    method: "resources/unsubscribe",
    params: { uri: "test://watched-resource" },
    check: (x) => assert.deepEqual(resultOf(x), {}),
  },
  { name: "prompts/list", method: "prompts/list", check: (x) => assert.equal((resultOf(x).prompts as Json[]).length, 5) },
  {
    name: "prompts/get simple",
    method: "prompts/get",
    params: { name: "test_simple_prompt" },
    check: (x) =>
      assert.equal((((resultOf(x).messages as Json[])[0] as Json).content as Json).text, "This is a simple prompt for testing."),
  },
  {
    name: "prompts/get with arguments",
    method: "prompts/get",
    params: { name: "test_prompt_with_arguments", arguments: { arg1: "a", arg2: "b" } },
    check: (x) =>
      assert.equal((((resultOf(x).messages as Json[])[0] as Json).content as Json).text, "Prompt with arguments: arg1='a', arg2='b'"),
  },
  {
    name: "prompts/get embedded resource",
    method: "prompts/get",
    params: { name: "test_prompt_with_embedded_resource", arguments: { resourceUri: "test://static-text" } },
    check: (x) =>
      assert.equal(((((resultOf(x).messages as Json[])[0] as Json).content as Json).resource as Json).uri, "test://static-text"),
  },
  {
    name: "prompts/get image",
    method: "prompts/get",
    params: { name: "test_prompt_with_image" },
    check: (x) => assert.equal((((resultOf(x).messages as Json[])[0] as Json).content as Json).type, "image"),
  },
  {
    name: "completion/complete prompt",
    method: "completion/complete",
    params: { ref: { type: "ref/prompt", name: "test_prompt_with_arguments" }, argument: { name: "arg1", value: "test" } },
    check: (x) => assert.deepEqual((resultOf(x).completion as Json).values, ["test", "testValue1", "testValue2"]),
  },
  {
    name: "completion/complete template",
    method: "completion/complete",
    params: { ref: { type: "ref/resource", uri: "test://template/{id}/data" }, argument: { name: "id", value: "4" } },
    check: (x) => assert.deepEqual((resultOf(x).completion as Json).values, ["456"]),
  },
  { name: "logging/setLevel", method: "logging/setLevel", params: { level: "debug" }, check: (x) => assert.deepEqual(resultOf(x), {}) },
  { name: "unknown method", method: "no/such", check: (x) => assert.equal((x.response.error as Json).code, -32601) },
];

async function runFeatures(t: TestContext, mode: Mode, version: string): Promise<void> {
  const { url } = await serve(t, { responseMode: mode });
  const session = await open(url, version);
  for (const feature of FEATURES) {
    const id = session.newId();
    const params = feature.streams === true ? { ...feature.params, ...PROGRESS_TOKEN(id) } : feature.params;
    const x = await withTimeout(exchange(session, feature.method, params, feature.onRequest, id), 5000, feature.name);
    assert.equal(x.status, 200, feature.name);
    assert.equal(x.response.id, id, `${feature.name}: the answer carries its request's id`);
    if (feature.since !== undefined && version < feature.since) {
      // Not in this version: the server does not ask, and the tool says so.
      assert.equal(resultOf(x).isError, true, feature.name);
      assert.ok(
        x.messages.every((m) => m.method === undefined),
        `${feature.name}: no server request`,
      );
      continue;
    }
    if (mode === "auto" && feature.streams !== true) {
      assert.ok(x.contentType.startsWith("application/json"), `${feature.name}: JSON in auto mode, got ${x.contentType}`);
    } else {
      checkSseFraming(x, version);
    }
    feature.check(x);
  }
}

test("HTTP-01, HTTP-09: every reference-server feature, responseMode auto (2025-11-25): JSON unless the handler sends first, then SSE with priming", (t) =>
  runFeatures(t, "auto", LATEST));
test("HTTP-01, HTTP-09: every reference-server feature, responseMode sse (2025-11-25): SSE with a priming event first", (t) =>
  runFeatures(t, "sse", LATEST));
test("HTTP-09: every reference-server feature, responseMode auto (2025-06-18): SSE streams carry no priming event", (t) =>
  runFeatures(t, "auto", "2025-06-18"));
test("HTTP-01: every reference-server feature, responseMode sse (2025-03-26)", (t) => runFeatures(t, "sse", "2025-03-26"));

test("HTTP-01: sampling: the server's request arrives on the POST's stream; its answer is a separate POST (202); the result follows on the original stream", async (t) => {
  const { url } = await serve(t);
  const session = await open(url);
  const get = await session.get();
  assert.equal(get.status, 200);
  const standalone = new SseReader(get);
  assert.equal((await standalone.next())?.data, "", "the GET stream is primed");

  const response = await session.post({
    jsonrpc: "2.0",
    id: "call-1",
    method: "tools/call",
    params: { name: "test_sampling", arguments: { prompt: "2+2?" } },
  });
  assert.ok((response.headers.get("content-type") ?? "").startsWith("text/event-stream"));
  const stream = new SseReader(response);
  const priming = await stream.next();
  assert.equal(priming?.data, "");
  const request = messageOf((await stream.next())!)!;
  assert.equal(request.method, "sampling/createMessage");
  assert.equal(typeof request.id, "number");
  const answer = await session.post({
    jsonrpc: "2.0",
    id: request.id,
    result: { role: "assistant", content: { type: "text", text: "4" }, model: "m" },
  });
  assert.equal(answer.status, 202);
  assert.equal(await answer.text(), "");
  const result = messageOf((await stream.next())!)!;
  assert.equal(result.id, "call-1");
  assert.equal((((result.result as Json).content as Json[])[0] as Json).text, "LLM response: 4");
  assert.equal(await stream.next(), undefined, "the stream ends after the response");
  // Nothing of this exchange went to the GET stream.
  await assert.rejects(standalone.next(200), /no outcome/);
  standalone.cancel();
});

test("ID-03: ids may be reused once answered: a later slow request with an id a ping used gets its own stream and answer", async (t) => {
  const { url } = await serve(t);
  const session = await open(url);
  for (let round = 0; round < 2; round++) {
    const ping = await exchange(session, "ping", undefined, undefined, 7);
    assert.deepEqual(ping.response.result, {});
    const x = await withTimeout(
      exchange(session, "tools/call", { name: "test_tool_with_progress", arguments: {}, ...PROGRESS_TOKEN(7) }, undefined, 7),
      3000,
      "reused id",
    );
    progressBeforeResult(x, 3);
    assert.equal(textOf(x), "Tool with progress executed successfully");
  }
});

// ── resumption and cancellation ─────────────────────────────────────────────────────

test("HTTP-10, X-09: resumption: a disconnect does not cancel; GET with Last-Event-ID replays the rest of that stream only, then the response", async (t) => {
  const { url } = await serve(t);
  const session = await open(url);
  const abort = new platform.AbortController();
  const first = await session.post(
    {
      jsonrpc: "2.0",
      id: "A",
      method: "tools/call",
      params: { name: "test_tool_slow", arguments: { durationMs: 300 }, ...PROGRESS_TOKEN("A") },
    },
    {},
    abort.signal,
  );
  assert.ok((first.headers.get("content-type") ?? "").startsWith("text/event-stream"));
  // A second slow call on another stream, read in full concurrently.
  const secondDone = (async () => {
    const x = await exchange(
      session,
      "tools/call",
      { name: "test_tool_slow", arguments: { durationMs: 300 }, ...PROGRESS_TOKEN("B") },
      undefined,
      "B",
    );
    return x;
  })();

  const reader = new SseReader(first);
  const seen: SseEvent[] = [];
  while (seen.filter((e) => e.data !== "").length < 2) seen.push((await reader.next())!);
  abort.abort();
  const lastSeen = seen.at(-1)!.id!;
  const streamId = lastSeen.slice(0, lastSeen.lastIndexOf(":"));
  await sleep(120); // more progress is produced while nobody listens

  const resumed = await session.get({ "last-event-id": lastSeen });
  assert.equal(resumed.status, 200);
  assert.ok((resumed.headers.get("content-type") ?? "").startsWith("text/event-stream"));
  const replay = await new SseReader(resumed).rest();
  const second = await secondDone;

  const seenIds = new Set(seen.map((e) => e.id));
  for (const e of replay) {
    assert.ok(!seenIds.has(e.id), `event ${e.id} not repeated`);
    assert.ok(e.id?.startsWith(`${streamId}:`), `event ${e.id} belongs to stream ${streamId}`);
  }
  const replayed = replay.map(messageOf).filter((m): m is Json => m !== undefined);
  const secondIds = new Set(second.events.map((e) => e.id));
  assert.ok(
    replay.every((e) => !secondIds.has(e.id)),
    "no event of the other stream",
  );
  assert.ok(
    replayed.every((m) => m.id !== "B" && (m.params as Json | undefined)?.progressToken !== "tok-B"),
    "no message of the other request",
  );
  const progress = [...seen.map(messageOf), ...replayed]
    .filter((m) => m?.method === "notifications/progress")
    .map((m) => (m!.params as Json).progress);
  assert.deepEqual(progress, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "every progress event exactly once, in order");
  const response = replayed.at(-1)!;
  assert.equal(response.id, "A", "the result arrives on resumption: the disconnect did not cancel");
  assert.equal((((response.result as Json).content as Json[])[0] as Json).text, "Slept 300 ms");
  assert.equal(textOf(second), "Slept 300 ms");
  progressBeforeResult(second, 10);

  // Resuming again from the same point replays the same events (the stream is kept).
  const again = await new SseReader(await session.get({ "last-event-id": lastSeen })).rest();
  assert.deepEqual(
    again.map((e) => e.id),
    replay.map((e) => e.id),
  );
  // An unknown stream: 404.
  assert.equal((await session.get({ "last-event-id": "nope:3" })).status, 404);
});

test("HTTP-10: resumption under 2025-06-18 (no priming): a stream resumed from its first event id", async (t) => {
  const { url } = await serve(t);
  const session = await open(url, "2025-06-18");
  const abort = new platform.AbortController();
  const response = await session.post(
    {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "test_tool_slow", arguments: { durationMs: 200 }, ...PROGRESS_TOKEN(1) },
    },
    {},
    abort.signal,
  );
  const reader = new SseReader(response);
  const first = (await reader.next())!;
  assert.notEqual(first.data, "", "no priming event under 2025-06-18");
  abort.abort();
  const rest = await new SseReader(await session.get({ "last-event-id": first.id! })).rest();
  const messages = [first, ...rest].map(messageOf) as Json[];
  assert.deepEqual(
    messages.filter((m) => m.method === "notifications/progress").map((m) => (m.params as Json).progress),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  );
  assert.equal(messages.at(-1)!.id, 1);
});

test("HTTP-10: resuming a stream whose first reader is still attached: the first reader's stream ends, the new one gets the rest", async (t) => {
  const { url } = await serve(t);
  const session = await open(url);
  const first = new SseReader(
    await session.post({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "test_tool_slow", arguments: { durationMs: 200 }, ...PROGRESS_TOKEN(1) },
    }),
  );
  const priming = (await first.next())!;
  assert.equal(priming.data, "");
  const second = new SseReader(await session.get({ "last-event-id": priming.id! }));
  const before = await first.rest(2000); // ends: the stream has one reader at a time
  const after = await second.rest(2000);
  const messages = after.map(messageOf) as Json[];
  assert.deepEqual(
    messages.filter((m) => m.method === "notifications/progress").map((m) => (m.params as Json).progress),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    "everything after the priming event, once",
  );
  const afterIds = after.map((e) => e.id);
  assert.ok(
    before.every((e) => afterIds.includes(e.id)),
    "the first reader got a prefix of the same stream",
  );
  assert.equal(messages.at(-1)!.id, 1, "the response reaches the new reader");
  assert.ok(
    before.every((e) => messageOf(e)?.id !== 1),
    "and only the new reader",
  );
});

test("HTTP-01: SSE headers are sent at once even without a priming event (2025-06-18, responseMode sse, a slow tool)", async (t) => {
  const { url } = await serve(t, { responseMode: "sse" });
  const session = await open(url, "2025-06-18");
  const started = performance.now();
  const response = await session.post({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "test_tool_slow", arguments: { durationMs: 1500 } },
  });
  const waited = performance.now() - started;
  assert.ok(waited < 1000, `headers after ${waited.toFixed(0)} ms, not with the result`);
  assert.ok((response.headers.get("content-type") ?? "").startsWith("text/event-stream"));
  const events = await new SseReader(response).rest(3000);
  assert.equal(events.length, 1);
  assert.equal(messageOf(events[0]!)!.id, 1);
  // Resuming from it under 2025-06-18: headers at once, nothing to replay, the stream ends.
  assert.deepEqual(await new SseReader(await session.get({ "last-event-id": events[0]!.id! })).rest(1000), []);
});

test("X-04: notifications/cancelled cancels: no result is ever delivered for the request, and its stream ends", async (t) => {
  const { url, server } = await serve(t);
  const session = await open(url);
  const response = await session.post({
    jsonrpc: "2.0",
    id: "C",
    method: "tools/call",
    params: { name: "test_tool_slow", arguments: { durationMs: 400 }, ...PROGRESS_TOKEN("C") },
  });
  const reader = new SseReader(response);
  const seen: SseEvent[] = [];
  while (seen.filter((e) => e.data !== "").length < 1) seen.push((await reader.next())!);
  await session.accepted({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "C", reason: "changed my mind" } });
  const rest = await reader.rest(3000);
  for (const e of rest) assert.notEqual(messageOf(e)?.id, "C", "no response after cancellation");
  await sleep(500); // past the time the tool would have finished
  const replay = await new SseReader(await session.get({ "last-event-id": seen.at(-1)!.id! })).rest(1000);
  for (const e of replay) assert.notEqual(messageOf(e)?.id, "C", "no response kept for resumption either");
  // The session is fine afterwards.
  assert.deepEqual((await exchange(session, "ping")).response.result, {});
  assert.equal(server.sessions.size, 1);
});

// ── refusals ────────────────────────────────────────────────────────────────────────

test("HTTP-03: sessions: unknown id → 404; missing header → 400; DELETE → 200, then the id → 404", async (t) => {
  const { url, host, server } = await serve(t);
  const unknown = new RawSession(url, "no-such-session", LATEST);
  assert.equal((await unknown.post({ jsonrpc: "2.0", id: 1, method: "ping" })).status, 404);
  assert.equal((await unknown.get()).status, 404);
  assert.equal((await fetch(url, { method: "DELETE", headers: { "mcp-session-id": "no-such-session" } })).status, 404);
  assert.equal((await fetch(url, { method: "DELETE" })).status, 400);
  const missing = await fetch(url, {
    method: "POST",
    headers: { accept: ACCEPT_BOTH, "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  assert.equal(missing.status, 400);
  assert.equal((await fetch(url, { method: "GET", headers: { accept: "text/event-stream" } })).status, 400);

  const session = await open(url);
  assert.equal(host.sessions.size, 1);
  assert.equal(server.sessions.size, 1);
  const removed = await fetch(url, { method: "DELETE", headers: { "mcp-session-id": session.id, "mcp-protocol-version": LATEST } });
  assert.equal(removed.status, 200);
  assert.equal(host.sessions.size, 0);
  assert.equal(server.sessions.size, 0);
  assert.equal((await session.post({ jsonrpc: "2.0", id: 1, method: "ping" })).status, 404);
  assert.equal((await session.get()).status, 404);
  assert.equal((await fetch(url, { method: "DELETE", headers: { "mcp-session-id": session.id } })).status, 404);
});

test("HTTP-07: DELETE ends the session's open streams and cancels its running handlers", async (t) => {
  const { url, server } = await serve(t);
  const session = await open(url);
  const get = new SseReader(await session.get());
  const call = new SseReader(
    await session.post({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "test_tool_slow", arguments: { durationMs: 2000 }, ...PROGRESS_TOKEN(1) },
    }),
  );
  await call.next();
  assert.equal((await fetch(url, { method: "DELETE", headers: { "mcp-session-id": session.id } })).status, 200);
  const rest = await call.rest(2000);
  assert.ok(
    rest.every((e) => messageOf(e)?.id !== 1),
    "no result after the session ended",
  );
  await get.rest(2000);
  assert.equal(server.sessions.size, 0);
});

test("HTTP-08: Host and Origin: a foreign Host or Origin → 403; allowedHosts [] refuses everything; localhost forms pass", async (t) => {
  const { url, port } = await serve(t);
  const init = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });
  const headers = { accept: ACCEPT_BOTH, "content-type": "application/json" };
  const evilHost = await rawRequest(url, "POST", { ...headers, host: "evil.example.com" }, init);
  assert.equal(evilHost.status, 403);
  assert.equal(((JSON.parse(evilHost.body) as Json).error as Json).code, -32600);
  assert.equal((await rawRequest(url, "POST", { ...headers, host: `evil.example.com:${port}` }, init)).status, 403);
  assert.equal((await rawRequest(url, "GET", { accept: "text/event-stream", host: "attacker.test" })).status, 403);
  assert.equal((await rawRequest(url, "POST", { ...headers, host: `localhost:${port}` }, init)).status, 200);
  assert.equal(
    (await rawRequest(url, "POST", { ...headers, host: `127.0.0.1:${port}`, origin: `http://localhost:${port}` }, init)).status,
    200,
  );
  for (const origin of ["http://evil.example.com", `http://evil.example.com:${port}`, "null", "https://localhost.evil.com"]) {
    const response = await fetch(url, { method: "POST", headers: { ...headers, origin }, body: init });
    assert.equal(response.status, 403, `Origin ${origin}`);
  }

  const closed = await serve(t, { allowedHosts: [] });
  for (const h of [`127.0.0.1:${closed.port}`, `localhost:${closed.port}`])
    assert.equal((await rawRequest(closed.url, "POST", { ...headers, host: h }, init)).status, 403);
  assert.equal((await fetch(closed.url, { method: "POST", headers, body: init })).status, 403);
  assert.equal(closed.host.sessions.size, 0);
});

test("LIM-09: body limit: 413 for a Content-Length over the limit and for a chunked body over the limit; a body at the limit passes", async (t) => {
  const { url } = await serve(t, { maxBodyBytes: 1024 });
  const session = await open(url);
  const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: { pad: "x".repeat(2000) } } });
  const declared = await session.post(big);
  assert.equal(declared.status, 413);
  assert.equal(((JSON.parse(await declared.text()) as Json).error as Json).code, -32600);

  const bytes = new TextEncoder().encode(big);
  const chunked = await fetch(url, {
    method: "POST",
    headers: session.headers(),
    duplex: "half",
    body: new platform.ReadableStream({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 256) controller.enqueue(bytes.slice(i, i + 256));
        controller.close();
      },
    }),
  });
  assert.equal(chunked.status, 413);
  await chunked.text();

  const pad = 1024 - JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", params: { _meta: { pad: "" } } }).length;
  const fits = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", params: { _meta: { pad: "y".repeat(pad) } } });
  assert.equal(new TextEncoder().encode(fits).length, 1024);
  const ok = await session.post(fits);
  assert.equal(ok.status, 200);
  assert.equal((JSON.parse(await ok.text()) as Json).id, 2);
  // The session is still usable after the refusals.
  assert.deepEqual((await exchange(session, "ping")).response.result, {});
});

test("L-07: MCP-Protocol-Version: unknown values → 400; a supported but different version is accepted", async (t) => {
  const { url } = await serve(t);
  const session = await open(url);
  for (const version of ["1999-01-01", "garbage", "2026-07-28"]) {
    const response = await session.post({ jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-protocol-version": version });
    assert.equal(response.status, 400, `version ${version}`);
    assert.equal((await session.get({ "mcp-protocol-version": version })).status, 400);
  }
  const other = await session.post({ jsonrpc: "2.0", id: 2, method: "ping" }, { "mcp-protocol-version": "2025-06-18" });
  assert.equal(other.status, 200);
  assert.equal((JSON.parse(await other.text()) as Json).id, 2);
});

test("HTTP-06: GET: 405 when the stream is not offered; 409 for a second concurrent GET; 406 without text/event-stream", async (t) => {
  const noGet = await serve(t, { getStream: false });
  const a = await open(noGet.url);
  const refused = await a.get();
  assert.equal(refused.status, 405);
  assert.ok((refused.headers.get("allow") ?? "").includes("POST"));

  const { url } = await serve(t);
  const session = await open(url);
  assert.equal((await session.get({ accept: "application/json" })).status, 406);
  const abort = new platform.AbortController();
  const first = await session.get({}, abort.signal);
  assert.equal(first.status, 200);
  const firstReader = new SseReader(first);
  await firstReader.next();
  const second = await session.get();
  assert.equal(second.status, 409);
  // Once the first is gone, a new GET is welcome again.
  abort.abort();
  let third: FetchResponse | undefined;
  for (let i = 0; i < 50 && third?.status !== 200; i++) {
    if (i > 0) await sleep(20);
    third = await session.get();
  }
  assert.equal(third?.status, 200);
  new SseReader(third!).cancel();
});

test("HTTP-06: GET stream: carries server-initiated messages unrelated to any request (resources/updated, list_changed), and what was sent before it opened", async (t) => {
  const { url, server } = await serve(t);
  const session = await open(url);
  const subscribed = await exchange(session, "resources/subscribe", { uri: "test://watched-resource" });
  assert.deepEqual(subscribed.response.result, {});
  // Sent before any GET stream: kept for the stream.
  server.notifyResourceUpdated("test://watched-resource");
  const reader = new SseReader(await session.get());
  const events: Json[] = [];
  const read = async (): Promise<Json> => {
    for (;;) {
      const m = messageOf((await reader.next(3000))!);
      if (m !== undefined) return m;
    }
  };
  events.push(await read());
  assert.equal(events[0]!.method, "notifications/resources/updated");
  assert.equal((events[0]!.params as Json).uri, "test://watched-resource");
  server.notifyResourceUpdated("test://watched-resource");
  server.notifyResourceUpdated("test://static-text"); // not subscribed: nothing
  const registration = server.tool("late_tool", { description: "registered later" }, () => ({ content: [{ type: "text", text: "late" }] }));
  const updated = await read();
  assert.equal(updated.method, "notifications/resources/updated");
  const changed = await read();
  assert.equal(changed.method, "notifications/tools/list_changed");
  // Requests' answers never go to the GET stream.
  const tools = await exchange(session, "tools/call", { name: "late_tool", arguments: {} });
  assert.equal(textOf(tools), "late");
  registration.remove();
  assert.equal((await read()).method, "notifications/tools/list_changed");
  await assert.rejects(reader.next(200), /no outcome/);
  reader.cancel();
});

test("HTTP-01, M-09: POST refusals: 406 wrong Accept, 415 wrong Content-Type, 400 batch under 2025-11-25, 400 -32700 unparsable, 404 other paths, 405 other methods", async (t) => {
  const { url } = await serve(t);
  const session = await open(url);
  const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
  for (const accept of ["application/json", "text/event-stream", "*/*"]) {
    assert.equal((await session.post(ping, { accept })).status, 406, `Accept ${accept}`);
  }
  for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
    assert.equal((await session.post(ping, { "content-type": type })).status, 415, `Content-Type ${type}`);
  }
  assert.equal((await session.post(ping, { "content-type": "application/json; charset=utf-8" })).status, 200);
  const batch = await session.post([
    { jsonrpc: "2.0", id: 1, method: "ping" },
    { jsonrpc: "2.0", id: 2, method: "ping" },
  ]);
  assert.equal(batch.status, 400);
  const unparsable = await session.post("{ not json");
  assert.equal(unparsable.status, 400);
  const parseError = JSON.parse(await unparsable.text()) as Json;
  assert.equal((parseError.error as Json).code, -32700);
  const notUtf8 = await fetch(url, { method: "POST", headers: session.headers(), body: new Uint8Array([0x7b, 0xff, 0x7d]) });
  assert.equal(notUtf8.status, 400);
  assert.equal(((JSON.parse(await notUtf8.text()) as Json).error as Json).code, -32700);
  assert.equal((await fetch(url.replace("/mcp", "/other"), { method: "POST", headers: session.headers(), body: ping })).status, 404);
  const put = await fetch(url, { method: "PUT", headers: session.headers(), body: ping });
  assert.equal(put.status, 405);
  // A response without a request: refused with its JSON-RPC error, not accepted.
  const stray = await session.post({ jsonrpc: "2.0", id: 99 });
  assert.equal(stray.status, 400);
  const strayError = JSON.parse(await stray.text()) as Json;
  assert.equal((strayError.error as Json).code, -32600);
  // initialize in a batch is refused too.
  assert.equal((await session.post([{ jsonrpc: "2.0", id: 5, method: "initialize", params: {} }])).status, 400);
  assert.deepEqual((await exchange(session, "ping")).response.result, {});
});

test("M-09: batches under 2025-03-26: two requests → one array answer; with a streaming request the array arrives on SSE", async (t) => {
  const { url } = await serve(t);
  const session = await open(url, "2025-03-26");
  const response = await session.post([
    { jsonrpc: "2.0", id: 1, method: "ping" },
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
  ]);
  assert.equal(response.status, 200);
  assert.ok((response.headers.get("content-type") ?? "").startsWith("application/json"));
  const answer = JSON.parse(await withTimeout(response.text(), 3000, "batch answer")) as Json[];
  assert.ok(Array.isArray(answer));
  assert.deepEqual(answer.map((m) => m.id).sort(), [1, 2]);
  assert.deepEqual(answer.find((m) => m.id === 1)!.result, {});
  assert.equal(((answer.find((m) => m.id === 2)!.result as Json).tools as Json[]).length, TOOL_NAMES.length);

  // Two concurrent batches with asynchronous members: each array goes to its own POST.
  const batchA = session.post([
    { jsonrpc: "2.0", id: "a1", method: "tools/call", params: { name: "test_tool_slow", arguments: { durationMs: 100 } } },
    { jsonrpc: "2.0", id: "a2", method: "ping" },
  ]);
  const batchB = session.post([
    { jsonrpc: "2.0", id: "b1", method: "tools/call", params: { name: "test_tool_fast", arguments: {} } },
    { jsonrpc: "2.0", id: "b2", method: "ping" },
  ]);
  const [ra, rb] = await Promise.all([batchA, batchB]);
  const a = JSON.parse(await withTimeout(ra.text(), 3000, "batch a")) as Json[];
  const b = JSON.parse(await withTimeout(rb.text(), 3000, "batch b")) as Json[];
  assert.deepEqual(a.map((m) => m.id).sort(), ["a1", "a2"]);
  assert.deepEqual(b.map((m) => m.id).sort(), ["b1", "b2"]);

  // A batch whose request reports progress: SSE, progress first, then the array.
  const streaming = await session.post([
    {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "test_tool_with_progress", arguments: {}, _meta: { progressToken: "p3" } },
    },
    { jsonrpc: "2.0", id: 4, method: "ping" },
  ]);
  assert.ok((streaming.headers.get("content-type") ?? "").startsWith("text/event-stream"));
  const messages = (await new SseReader(streaming).rest(3000)).map((e) => JSON.parse(e.data) as Json | Json[]);
  const last = messages.at(-1) as Json[];
  assert.ok(Array.isArray(last));
  assert.deepEqual(last.map((m) => m.id).sort(), [3, 4]);
  assert.equal(messages.filter((m) => !Array.isArray(m) && m.method === "notifications/progress").length, 3);

  // A batch of notifications only: 202.
  const notes = await session.post([{ jsonrpc: "2.0", method: "notifications/roots/list_changed" }]);
  assert.equal(notes.status, 202);
});

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
