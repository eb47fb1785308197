// The fakes the Streamable HTTP client tests (http/http-client*.test.ts) run against: a fake
// clock (HttpTimers), response bodies that are streams of Uint8Array chunks cut wherever a test
// says (inside CRLF pairs, inside UTF-8 sequences, inside field names), ResponseLike answers,
// and a fake server routing each fetch to a script. Time never passes unless a test advances
// it. Not a test file itself.

import assert from "node:assert/strict";
import { McpError, PeerAbortController, type AbortSignalLike } from "../../lib/peer/index.js";
import { connectHttp, type ConnectHttpOptions, type HttpConnection } from "../../lib/http-client/transport.js";
import type { HttpTimers } from "../../lib/peer/shared/timers.js";
import { HttpTransportError } from "../../lib/peer/shared/errors.js";
import type { FetchInit, ReaderLike, ReadableStreamLike, ResponseLike } from "../../lib/http-client/types.js";

export const encoder = new TextEncoder();
export const URL_ = "http://mcp.test/mcp";
export const INFO = { name: "http-test-client", version: "1.0.0" };

// ── fake clock ────────────────────────────────────────────────────────────────

/** Lets every pending promise chain and fake I/O callback run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 30; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

export class FakeTimers implements HttpTimers {
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
export class FakeBody implements ReadableStreamLike {
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

export class FakeResponse implements ResponseLike {
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

export function json(value: unknown, headers: Record<string, string> = {}, status = 200): FakeResponse {
  const text = JSON.stringify(value);
  return new FakeResponse(status, { "content-type": "application/json", ...lower(headers) }, new FakeBody().push(text).end(), text);
}

export function sse(body: FakeBody, headers: Record<string, string> = {}, url = ""): FakeResponse {
  return new FakeResponse(200, { "content-type": "text/event-stream; charset=utf-8", ...lower(headers) }, body, "", url);
}

export function status(code: number, text = "", headers: Record<string, string> = {}): FakeResponse {
  return new FakeResponse(code, lower(headers), text === "" ? null : new FakeBody().push(text).end(), text);
}

export function lower(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
  return out;
}

/** An SSE event block. */
export function event(fields: { id?: string; event?: string; retry?: number; data?: unknown }, eol = "\n"): string {
  let out = "";
  if (fields.event !== undefined) out += `event: ${fields.event}${eol}`;
  if (fields.id !== undefined) out += `id: ${fields.id}${eol}`;
  if (fields.retry !== undefined) out += `retry: ${fields.retry}${eol}`;
  if (fields.data !== undefined) out += `data: ${typeof fields.data === "string" ? fields.data : JSON.stringify(fields.data)}${eol}`;
  return out + eol;
}

// ── fake server ───────────────────────────────────────────────────────────────

export interface Req {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: Record<string, unknown> | undefined;
  readonly signal: AbortSignalLike | undefined;
}

export type Route = (req: Req) => FakeResponse | Promise<FakeResponse> | undefined;

export function initResult(version = "2025-11-25"): Record<string, unknown> {
  return {
    protocolVersion: version,
    capabilities: { tools: { listChanged: true }, logging: {} },
    serverInfo: { name: "fake", version: "1" },
  };
}

export function answer(req: Req, result: unknown): Record<string, unknown> {
  return { jsonrpc: "2.0", id: req.body?.id, result };
}

export const TOOL_RESULT = { content: [{ type: "text", text: "ok" }] };

export class FakeServer {
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

export interface Setup {
  server: FakeServer;
  timers: FakeTimers;
  errors: HttpTransportError[];
}

export function options(setup: Setup, extra: Partial<ConnectHttpOptions<AbortSignalLike>> = {}): ConnectHttpOptions<AbortSignalLike> {
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

export async function connected(
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
export function track<T>(promise: Promise<T>): { state: "pending" | "resolved" | "rejected"; value: T | undefined; error: unknown } {
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

export function mcpError(error: unknown, code: number): McpError {
  assert.ok(error instanceof McpError, `expected McpError, got ${String(error)}`);
  assert.equal(error.code, code);
  return error;
}

/** An HTTP failure with no JSON-RPC answer from the server: an HttpTransportError, never an McpError. */
export function transportError(error: unknown): HttpTransportError {
  assert.ok(error instanceof HttpTransportError && !(error instanceof McpError), `expected HttpTransportError, got ${String(error)}`);
  return error;
}
