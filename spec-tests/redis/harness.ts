// What the Redis tests share: one real Redis (MCP_TEST_REDIS_URL, which .ci/run sets after
// starting redis-server; outside CI a private redis-server when /usr/bin/redis-server is
// there), server nodes as real processes (the CLI's `serve --http --redis`, or node.ts),
// and a raw MCP-over-HTTP client on the platform's fetch (session era and 2026-07-28).
//
// Invariants: under CI=true a missing Redis is a failure, never a skip; every process and
// Redis this harness starts is stopped by the test that started it (t.after).

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { RespClient } from "../../lib/hosts/redis-resp.js";
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION } from "../../lib/rules/modern.js";
import { withTimeout, type FetchResponse, type StreamReader } from "../support/helpers.js";

export type Json = { [key: string]: unknown };

const here = dirname(fileURLToPath(import.meta.url));
export const CLI = join(here, "..", "..", "lib", "cli", "main.js");
export const NODE_SCRIPT = join(here, "node.js");
export const REDIS_SERVER = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].find((path) => existsSync(path));

interface TestLike {
  after(fn: () => void | Promise<void>): void;
  skip(message?: string): void;
}

/** A free loopback port (bound and released; a race with other processes is unlikely and would fail loudly). */
export function freePort(): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const server = createServer(() => undefined);
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** Stops it (SIGKILL: nothing is saved) and resolves once it is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty: it saves nothing). */
  start(): Promise<void>;
}

/** A redis-server of the test's own (needed to stop and restart it); CI installs the binary. */
export async function privateRedis(t: TestLike): Promise<RedisServer | undefined> {
  if (REDIS_SERVER === undefined) {
    if (process.env.CI === "true")
      throw new Error("redis-server is not installed: .ci/run installs it (apt-get install redis-server) before the tests");
    t.skip("no redis-server on this machine");
    return undefined;
  }
  const server = await startRedisServer(REDIS_SERVER);
  t.after(() => server.stop());
  return server;
}

async function startRedisServer(binary: string, detached = false): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const server: RedisServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    start: async () => {
      child = spawn(binary, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
        stdio: ["ignore", "ignore", "ignore"],
      });
      if (detached) {
        // The file's shared server must not keep its test process alive; it dies with it.
        const started = child;
        started.unref();
        process.once("exit", () => started.kill("SIGKILL"));
      }
      await until(async () => (await redisCommand(server.url, ["PING"]).catch(() => undefined)) === "PONG", "redis-server up", 5000);
    },
    stop: async () => {
      const running = child;
      child = undefined;
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once("exit", () => resolve());
        running.kill("SIGKILL");
      });
    },
  };
  await server.start();
  return server;
}

let fileRedis: Promise<RedisServer> | undefined;

/** The shared Redis of the test run: MCP_TEST_REDIS_URL, else a private one (undefined: skipped, outside CI only). */
export async function testRedis(t: TestLike): Promise<string | undefined> {
  const url = process.env.MCP_TEST_REDIS_URL;
  if (url !== undefined && url !== "") return url;
  if (process.env.CI === "true")
    throw new Error("MCP_TEST_REDIS_URL is not set: under CI, .ci/run starts redis-server and exports it; the Redis tests do not skip");
  if (REDIS_SERVER === undefined) return (await privateRedis(t))?.url;
  // One server for the whole test file, stopped when its process exits: a test's own cleanup
  // (closing its clients) runs while the server is still there.
  fileRedis ??= startRedisServer(REDIS_SERVER, true);
  return (await fileRedis).url;
}

/** One command on a short-lived connection (administration: INFO, DBSIZE, SCAN, FLUSHDB). */
export async function redisCommand(url: string, args: string[]): Promise<unknown> {
  const client = new RespClient({ url, commandTimeoutMs: 2000 });
  await client.connect();
  try {
    return await client.sendCommand(args);
  } finally {
    await client.close();
  }
}

/** Keys under a prefix (SCAN, so that a busy Redis is not blocked). */
export async function keysUnder(url: string, prefix: string): Promise<string[]> {
  const client = new RespClient({ url });
  await client.connect();
  const keys: string[] = [];
  try {
    let cursor = "0";
    do {
      const reply = (await client.sendCommand(["SCAN", cursor, "MATCH", `${prefix}*`, "COUNT", "1000"])) as [string, string[]];
      cursor = reply[0];
      keys.push(...reply[1]);
    } while (cursor !== "0");
  } finally {
    await client.close();
  }
  return keys;
}

/** Polls `check` until it holds; fails after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, label: string, ms = 5000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error(`${label}: not within ${ms} ms`);
    await new Promise<void>((resolve) => setTimeout(resolve, 20));
  }
}

export interface NodeProcess {
  readonly url: string;
  readonly port: number;
  /** What the process wrote to stderr so far. */
  stderr(): string;
  /** Kills it (SIGKILL by default: nothing is cleaned up) and resolves once it exited. */
  kill(signal?: string): Promise<void>;
  /** Starts it again on the same port. */
  restart(): Promise<void>;
}

/** A server node as a real process: the CLI's `serve --http 127.0.0.1:PORT --redis URL` (or `script` with PORT and URL). */
export async function startNode(t: TestLike, redisUrl: string, script?: string): Promise<NodeProcess> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  let log = "";
  const args = script === undefined ? [CLI, "serve", "--http", `127.0.0.1:${port}`, "--redis", redisUrl] : [script, String(port), redisUrl];
  const node: NodeProcess = {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    stderr: () => log,
    restart: async () => {
      const started = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"] });
      child = started;
      const decoder = new TextDecoder();
      await withTimeout(
        new Promise<void>((resolve, reject) => {
          started.stderr.on("data", (chunk) => {
            log += decoder.decode(chunk, { stream: true });
            if (log.includes(`:${port}/mcp`)) resolve();
          });
          started.once("exit", (code) => reject(new Error(`node on ${port} exited (${String(code)}) before listening: ${log}`)));
        }),
        10_000,
        `node on port ${port} listening`,
      );
    },
    kill: async (signal = "SIGKILL") => {
      const running = child;
      child = undefined;
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once("exit", () => resolve());
        running.kill(signal);
        // A node that does not stop on SIGTERM within 3 s is killed.
        if (signal !== "SIGKILL") setTimeout(() => running.kill("SIGKILL"), 3000).unref();
      });
    },
  };
  await node.restart();
  // SIGTERM at the end: the node exits by itself (and writes its coverage when run under c8).
  t.after(() => node.kill("SIGTERM"));
  return node;
}

// ── a raw client on the platform's fetch ───────────────────────────────────────

interface FetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: unknown;
}
export const platform = globalThis as unknown as {
  fetch: (url: string, init?: FetchInit) => Promise<FetchResponse>;
  AbortController: new () => { readonly signal: unknown; abort(reason?: unknown): void };
};

export const SESSION_VERSION = "2025-11-25";
export const MODERN = "2026-07-28";
const ACCEPT = "application/json, text/event-stream";

/** Headers of a session-era POST. */
export function sessionHeaders(sessionId: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { accept: ACCEPT, "content-type": "application/json" };
  if (sessionId !== undefined) {
    headers["mcp-session-id"] = sessionId;
    headers["mcp-protocol-version"] = SESSION_VERSION;
  }
  return headers;
}

export function post(url: string, body: unknown, headers: Record<string, string>, signal?: unknown, ms = 10_000): Promise<FetchResponse> {
  return withTimeout(platform.fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal }), ms, `POST ${url}`);
}

/** The one message of a JSON answer, or every message of an SSE answer read to its end. */
export async function messagesOf(response: FetchResponse): Promise<Json[]> {
  const type = response.headers.get("content-type") ?? "";
  const text = await response.text();
  if (type.startsWith("application/json")) return [JSON.parse(text) as Json];
  if (!type.startsWith("text/event-stream")) return [];
  return parseSse(text).flatMap((event) => (event.data === "" ? [] : [JSON.parse(event.data) as Json]));
}

export interface SseEvent {
  readonly id: string | undefined;
  readonly data: string;
}

export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("id:")) id = line.slice(3).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
    }
    if (id !== undefined || data.length > 0) events.push({ id, data: data.join("\n") });
  }
  return events;
}

/** Reads SSE events one at a time. */
export class SseReader {
  private readonly reader: StreamReader;
  private readonly decoder = new TextDecoder();
  private buffer = "";

  constructor(response: FetchResponse) {
    if (response.body === null) throw new Error("an SSE answer with a body");
    this.reader = response.body.getReader();
  }

  /** The next event (priming events included: data ""); undefined when the stream ends. */
  async next(ms = 5000): Promise<SseEvent | undefined> {
    for (;;) {
      const boundary = this.buffer.search(/\r?\n\r?\n/);
      if (boundary >= 0) {
        const block = this.buffer.slice(0, boundary);
        this.buffer = this.buffer.slice(boundary).replace(/^\r?\n\r?\n/, "");
        const parsed = parseSse(block);
        if (parsed.length === 0) continue;
        return parsed[0];
      }
      const chunk = await withTimeout(this.reader.read(), ms, "SSE read");
      if (chunk.done) return undefined;
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
    }
  }

  /** The next JSON-RPC message (events without data skipped). */
  async message(ms = 5000): Promise<Json | undefined> {
    for (;;) {
      const event = await this.next(ms);
      if (event === undefined) return undefined;
      if (event.data !== "") return JSON.parse(event.data) as Json;
    }
  }

  cancel(): void {
    this.reader.cancel().catch(() => undefined);
  }
}

/** initialize on `url`, answered with a session id; notifications/initialized is the caller's (it may go elsewhere). */
export async function initialize(url: string, capabilities: Json = {}): Promise<string> {
  const response = await post(
    url,
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: SESSION_VERSION, capabilities, clientInfo: { name: "redis-test", version: "1" } },
    },
    sessionHeaders(undefined),
  );
  const sessionId = response.headers.get("mcp-session-id");
  const [answer] = await messagesOf(response);
  if (response.status !== 200 || sessionId === null || answer?.result === undefined)
    throw new Error(`initialize on ${url}: ${response.status} ${JSON.stringify(answer)}`);
  return sessionId;
}

/** A session-era request (or notification, without id) and what answered it. */
export async function sessionCall(url: string, sessionId: string, message: Json): Promise<{ status: number; messages: Json[] }> {
  const response = await post(url, { jsonrpc: "2.0", ...message }, sessionHeaders(sessionId));
  return { status: response.status, messages: await messagesOf(response) };
}

let modernId = 1;

/** A 2026-07-28 request with its envelope. */
export function modernRequest(method: string, params: Json = {}, capabilities: Json = {}): Json {
  return {
    jsonrpc: "2.0",
    id: modernId++,
    method,
    params: {
      ...params,
      _meta: {
        [META_PROTOCOL_VERSION]: MODERN,
        [META_CLIENT_CAPABILITIES]: capabilities,
        [META_CLIENT_INFO]: { name: "redis-test", version: "1" },
      },
    },
  };
}

export function modernHeaders(body: Json): Record<string, string> {
  const params = body.params as Json;
  const headers: Record<string, string> = {
    accept: ACCEPT,
    "content-type": "application/json",
    "mcp-protocol-version": MODERN,
    "mcp-method": String(body.method),
  };
  if (body.method === "tools/call" || body.method === "prompts/get") headers["mcp-name"] = String(params.name);
  if (body.method === "resources/read") headers["mcp-name"] = String(params.uri);
  if (typeof body.method === "string" && body.method.startsWith("tasks/")) headers["mcp-name"] = String(params.taskId);
  return headers;
}
