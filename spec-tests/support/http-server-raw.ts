// Helpers of the Streamable HTTP end-to-end tests (http/http-server*.test.ts): the platform's
// raw `fetch` typed locally and bounded, the reference server behind serveHttp on 127.0.0.1, an
// SSE reader, a raw session (initialize, then requests with the session header), one exchange
// of a request and what its stream carried, raw requests with headers fetch will not send, a
// forced GC, and the reference server's tool names and canned answers to server requests. No
// client library: every status code, header and SSE byte the host writes is what a test sees.
// Not a test file itself.

import { type TestContext } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createReferenceServer } from "../../lib/cli/reference-server.js";
import { serveHttp, type RunningHttpServer } from "../../lib/hosts/http-server.js";
import type { Server } from "../../lib/peer/server/server.js";
import { sleep, withTimeout } from "./helpers.js";
import type { HttpServerOptions } from "../../lib/http-server/options.js";
import type { HandlerContext } from "../../lib/peer/server/server-options.js";

// ── the platform's fetch, typed locally (the project has no DOM or Node type packages) ──

export interface FetchHeaders {
  get(name: string): string | null;
}
export interface StreamReader {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel(reason?: unknown): Promise<void>;
}
export interface FetchResponse {
  readonly status: number;
  readonly headers: FetchHeaders;
  readonly body: { getReader(): StreamReader } | null;
  text(): Promise<string>;
}
export interface FetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | object;
  signal?: unknown;
  duplex?: "half";
}
export interface PlatformAbortController {
  readonly signal: unknown;
  abort(reason?: unknown): void;
}
export const platform = globalThis as unknown as {
  fetch: (url: string, init?: FetchInit) => Promise<FetchResponse>;
  AbortController: new () => PlatformAbortController;
  ReadableStream: new (source: { start(controller: { enqueue(chunk: Uint8Array): void; close(): void }): void }) => object;
};
/** fetch with a bound on the wait for the response headers (a server that never answers fails the test, not the run). */
export function fetch(url: string, init?: FetchInit): Promise<FetchResponse> {
  return withTimeout(platform.fetch(url, init), 10_000, `${init?.method ?? "GET"} ${url}`);
}

export type Json = { [key: string]: unknown };
export type Mode = "auto" | "sse";

export const LATEST = "2025-11-25";
export const ACCEPT_BOTH = "application/json, text/event-stream";

// ── helpers ─────────────────────────────────────────────────────────────────────────

/** The reference server's sleep: a timer that an aborted signal cuts short. */
export function abortableSleep(ms: number, signal: HandlerContext["signal"]): Promise<void> {
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

export function referenceServer(): Server {
  return createReferenceServer({ paginationSecret: randomBytes(32), sleep: abortableSleep });
}

/** Serves a fresh reference server (or `server`) and closes it when the test ends. */
export async function serve(
  t: TestContext,
  options: HttpServerOptions = {},
  server: Server = referenceServer(),
): Promise<RunningHttpServer & { server: Server }> {
  const running = await serveHttp(server, { onError: () => {}, ...options });
  (t as unknown as { after(fn: () => Promise<void>): void }).after(() => running.close());
  return Object.assign(running, { server });
}

export interface SseEvent {
  id?: string;
  retry?: number;
  event?: string;
  data: string;
}

/** Reads an SSE body one event at a time. */
export class SseReader {
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

export function parseEvent(block: string): SseEvent {
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
export function messageOf(event: SseEvent): Json | undefined {
  return event.data.trim() === "" ? undefined : (JSON.parse(event.data) as Json);
}

/** A session opened over raw HTTP. */
export class RawSession {
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

export const CLIENT_CAPABILITIES = { sampling: {}, elicitation: {}, roots: { listChanged: true } };

/** initialize + notifications/initialized over raw HTTP. */
export async function open(url: string, version = LATEST, capabilities: Json = CLIENT_CAPABILITIES): Promise<RawSession> {
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

export interface Exchange {
  status: number;
  contentType: string;
  /** Every SSE event in order (priming included); empty for a JSON answer. */
  events: SseEvent[];
  /** Every message received, in order; the last is the response. */
  messages: Json[];
  response: Json;
}

/** Answers a server request (sampling, elicitation, roots) that arrived on a stream. */
export type ServerRequestHandler = (request: Json) => Json;

/** Sends one request and reads its whole answer (JSON or SSE), answering server requests on the way. */
export async function exchange(
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

export function resultOf(x: Exchange): Json {
  assert.ok(x.response.result !== undefined, `a result, got ${JSON.stringify(x.response)}`);
  return x.response.result as Json;
}

export function textOf(x: Exchange): string {
  const content = resultOf(x).content as Json[];
  assert.equal(content[0]?.type, "text");
  return content[0]?.text as string;
}

/** Checks the SSE framing rules: priming first under 2025-11-25 only, ids "<stream>:<seq>" of one stream, increasing. */
export function checkSseFraming(x: Exchange, version: string): void {
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
export function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body = "",
): Promise<{ status: number; body: string }> {
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

export function forceGc(): (() => void) | undefined {
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

export async function heapAfterGc(gc: () => void): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(10);
  }
  return process.memoryUsage().heapUsed;
}

export const PROGRESS_TOKEN = (id: number | string): Json => ({ _meta: { progressToken: `tok-${id}` } });

export const TOOL_NAMES = [
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

export const sampled: ServerRequestHandler = (request) => {
  assert.equal(request.method, "sampling/createMessage");
  const first = ((request.params as Json).messages as Json[])[0] as Json;
  return { role: "assistant", content: { type: "text", text: `echo ${(first.content as Json).text as string}` }, model: "raw-model" };
};
export const elicited: ServerRequestHandler = (request) => {
  assert.equal(request.method, "elicitation/create");
  return { action: "accept", content: { username: "ada", email: "ada@example.com" } };
};

export function progressBeforeResult(x: Exchange, count: number): void {
  const progress = x.messages.filter((m) => m.method === "notifications/progress");
  assert.equal(progress.length, count, "progress notifications on the request's stream");
  assert.equal(x.messages.at(-1), x.response, "the response comes last");
  for (const p of progress) assert.equal((p.params as Json).progressToken, `tok-${String(x.response.id)}`);
}
