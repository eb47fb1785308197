// Attack drivers shared by the HTTP hardening test (spec-tests/http/http-hardening.test.ts) and
// its bench (bench/http-hardening.bench.ts): the server in a child process
// (http-hardening-child.ts), bogus initialize POSTs pipelined over raw keep-alive sockets
// with a bounded window, endless chunked bodies, and a well-behaved client pinging on the
// side. Not a test file itself.
//
// Responses are parsed from the raw bytes (latin1: one character per byte), so the drivers
// see every status and header the server wrote, and cost the attacker side little.

import { spawn, type ChildProcess } from "node:child_process";
import { connect, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { withTimeout } from "./helpers.js";

const CHILD = fileURLToPath(new URL("./http-hardening-child.js", import.meta.url));
const ACCEPT = "application/json, text/event-stream";
export const LATEST = "2025-11-25";
const INIT_PARAMS = { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: "attack", version: "1" } };

export interface ChildStats {
  heapUsed: number;
  sessions: number;
  stored: number;
  serverSessions: number;
  exchanges: number;
}

export interface ServerChild {
  readonly port: number;
  readonly url: string;
  stats(): Promise<ChildStats>;
  close(): Promise<void>;
}

/** Starts the reference server in a child process (node --expose-gc) and waits until it listens. */
export async function startChild(maxSessions: number, maxBodyBytes = 1024 * 1024): Promise<ServerChild> {
  const child: ChildProcess = spawn(process.execPath, ["--expose-gc", CHILD, String(maxSessions), String(maxBodyBytes)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  let pending = "";
  const decoder = new TextDecoder();
  child.stdout.on("data", (chunk) => {
    pending += decoder.decode(chunk, { stream: true });
    for (let newline = pending.indexOf("\n"); newline >= 0; newline = pending.indexOf("\n")) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      const waiter = waiters.shift();
      if (waiter !== undefined) waiter(line);
      else lines.push(line);
    }
  });
  const nextLine = (label: string): Promise<string> =>
    withTimeout(
      new Promise<string>((resolve) => {
        const line = lines.shift();
        if (line !== undefined) resolve(line);
        else waiters.push(resolve);
      }),
      15_000,
      label,
    );
  const { port } = JSON.parse(await nextLine("the child listens")) as { port: number };
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    port,
    url: `http://127.0.0.1:${port}/mcp`,
    stats: async () => {
      child.stdin.write("stats\n");
      return JSON.parse(await nextLine("stats")) as ChildStats;
    },
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.stdin.write("exit\n");
      await withTimeout(exited, 10_000, "the child exits").catch(() => child.kill("SIGKILL"));
    },
  };
}

/** One POST of `body` to /mcp, as raw request bytes. */
export function postRequest(port: number, body: string, headers = ""): string {
  return `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: ${ACCEPT}\r\nContent-Type: application/json\r\n${headers}Content-Length: ${body.length}\r\n\r\n${body}`;
}

/** The bogus initializes the host must mint no session for, in turn: a bare {method}, one refused -32602, one without id. */
export function bogusInitializeBodies(): string[] {
  return [
    JSON.stringify({ method: "initialize" }),
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
    JSON.stringify({ jsonrpc: "2.0", method: "initialize", params: INIT_PARAMS }),
  ];
}

export function validInitializeBody(id = 1): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params: INIT_PARAMS });
}

export interface Tally {
  /** Responses per status code. */
  readonly statuses: Map<number, number>;
  /** Responses that carried an Mcp-Session-Id header. */
  sessionIds: number;
  responses: number;
}

/** Reads pipelined HTTP/1.1 responses (each with a Content-Length) off a socket. */
class ResponseCounter {
  private buffer = "";
  private readonly decoder = new TextDecoder("latin1");
  private waiter: { count: number; resolve: () => void } | undefined;
  closed = false;

  constructor(
    socket: Socket,
    private readonly tally: Tally,
  ) {
    socket.on("data", (chunk) => {
      this.buffer += this.decoder.decode(chunk, { stream: true });
      this.parse();
    });
    socket.on("close", () => {
      this.closed = true;
      this.waiter?.resolve();
    });
  }

  private parse(): void {
    for (;;) {
      const end = this.buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = this.buffer.slice(0, end);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? "0");
      if (this.buffer.length < end + 4 + length) return;
      this.buffer = this.buffer.slice(end + 4 + length);
      const status = Number(head.slice(9, 12));
      this.tally.statuses.set(status, (this.tally.statuses.get(status) ?? 0) + 1);
      if (/\r\nmcp-session-id:/i.test(head)) this.tally.sessionIds++;
      this.tally.responses++;
      if (this.waiter !== undefined && this.tally.responses >= this.waiter.count) {
        const { resolve } = this.waiter;
        this.waiter = undefined;
        resolve();
      }
    }
  }

  /** Resolves once the tally holds `count` responses (or the socket closed). */
  until(count: number): Promise<void> {
    if (this.tally.responses >= count || this.closed) return Promise.resolve();
    return new Promise<void>((resolve) => (this.waiter = { count, resolve }));
  }
}

async function openSocket(port: number): Promise<Socket> {
  const socket = connect(port, "127.0.0.1");
  socket.setNoDelay(true);
  socket.on("error", () => {});
  await withTimeout(new Promise<void>((resolve) => socket.once("connect", resolve)), 5000, "connect");
  return socket;
}

/**
 * POSTs `total` bodies (cycling through `bodies`) over `sockets` keep-alive connections,
 * each with at most `window` requests in flight (HTTP/1.1 pipelining). Returns what came back.
 */
export async function pipelinedPosts(port: number, bodies: readonly string[], total: number, sockets = 8, window = 50): Promise<Tally> {
  const requests = bodies.map((body) => postRequest(port, body));
  const all: Tally = { statuses: new Map(), sessionIds: 0, responses: 0 };
  const share = Math.ceil(total / sockets);
  let next = 0;
  await Promise.all(
    Array.from({ length: sockets }, async () => {
      const socket = await openSocket(port);
      const tally: Tally = { statuses: new Map(), sessionIds: 0, responses: 0 };
      const counter = new ResponseCounter(socket, tally);
      let sent = 0;
      while (sent < share && next < total && !counter.closed) {
        const batch = Math.min(window, share - sent, total - next);
        let text = "";
        for (let i = 0; i < batch; i++) text += requests[(next + i) % requests.length];
        next += batch;
        sent += batch;
        socket.write(text);
        await withTimeout(counter.until(sent), 30_000, `responses ${tally.responses}/${sent}`);
      }
      socket.destroy();
      for (const [status, count] of tally.statuses) all.statuses.set(status, (all.statuses.get(status) ?? 0) + count);
      all.sessionIds += tally.sessionIds;
      all.responses += tally.responses;
    }),
  );
  return all;
}

/** A POST with a chunked body that never ends: how many bytes went out before the server closed, and its answer's status line. */
export async function endlessChunkedBody(port: number, cap: number): Promise<{ sent: number; closed: boolean; statusLine: string }> {
  const socket = await openSocket(port);
  let received = "";
  let closed = false;
  const decoder = new TextDecoder("latin1");
  socket.on("data", (chunk) => (received += decoder.decode(chunk, { stream: true })));
  const closing = new Promise<void>((resolve) => socket.on("close", () => ((closed = true), resolve())));
  socket.write(
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: ${ACCEPT}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
  );
  const chunk = `10000\r\n${"[".repeat(0x10000)}\r\n`;
  let sent = 0;
  while (!closed && sent < cap) {
    const more = socket.write(chunk);
    sent += chunk.length;
    if (!more) await Promise.race([new Promise<void>((resolve) => socket.once("drain", resolve)), closing]);
  }
  socket.destroy();
  return { sent, closed, statusLine: received.split("\r\n")[0] ?? "" };
}

/** A well-behaved client: one session, pinging one request at a time until stopped. Latencies in ms. */
export async function pinger(url: string): Promise<{ stop(): Promise<number[]> }> {
  const platform = globalThis as unknown as {
    fetch: (
      url: string,
      init: { method: string; headers: Record<string, string>; body: string },
    ) => Promise<{ status: number; headers: { get(name: string): string | null }; text(): Promise<string> }>;
  };
  const headers: Record<string, string> = { accept: ACCEPT, "content-type": "application/json" };
  const init = await platform.fetch(url, { method: "POST", headers, body: validInitializeBody(0) });
  const session = init.headers.get("mcp-session-id");
  await init.text();
  if (init.status !== 200 || session === null) throw new Error(`the pinger could not open a session: HTTP ${init.status}`);
  const sessionHeaders = { ...headers, "mcp-session-id": session, "mcp-protocol-version": LATEST };
  await (
    await platform.fetch(url, {
      method: "POST",
      headers: sessionHeaders,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    })
  ).text();
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    for (let id = 1; running; id++) {
      const start = performance.now();
      const response = await platform.fetch(url, {
        method: "POST",
        headers: sessionHeaders,
        body: JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }),
      });
      const text = await response.text();
      if (response.status !== 200 || !text.includes('"result":{}'))
        throw new Error(`ping ${id}: HTTP ${response.status} ${text.slice(0, 200)}`);
      latencies.push(performance.now() - start);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return latencies;
    },
  };
}
