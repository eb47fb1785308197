// Attack drivers shared by the HTTP attack tests (spec-tests/http/http-hardening.test.ts,
// spec-tests/http/http-runtime-limits.test.ts) and their bench (bench/http-hardening.bench.ts):
// the server in a child process run by Node, Bun or Deno (http-hardening-child.ts), bogus
// initialize POSTs pipelined over raw keep-alive sockets with a bounded window, bodies that
// never end, connections that send nothing, drip a header or stall in a body, and a
// well-behaved client pinging on the side. Not a test file itself.
//
// Responses are parsed from the raw bytes (latin1: one character per byte), so the drivers
// see every status and header the server wrote, and cost the attacker side little.

import { spawn, type ChildProcess } from "node:child_process";
import { connect, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { sleep, withTimeout } from "./helpers.js";
import { runtimeBinary } from "./runtimes.js";

const CHILD = fileURLToPath(new URL("./http-hardening-child.js", import.meta.url));
const ACCEPT = "application/json, text/event-stream";
export const LATEST = "2025-11-25";
const INIT_PARAMS = { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: "attack", version: "1" } };

export type AttackedRuntime = "node" | "bun" | "deno";

export interface ChildStats {
  heapUsed: number;
  rss: number;
  sessions: number;
  stored: number;
  serverSessions: number;
  exchanges: number;
  /** Connections open, where the server can count them (Deno's gate); null elsewhere. */
  connections: number | null;
}

export interface ServerChild {
  readonly port: number;
  /** Deno's inner server behind its connection gate; null elsewhere. */
  readonly innerPort: number | null;
  readonly url: string;
  stats(): Promise<ChildStats>;
  close(): Promise<void>;
}

/** How each runtime runs the child, with a full collection available to it. */
function childCommand(runtime: AttackedRuntime, args: readonly string[]): [string, string[]] {
  if (runtime === "bun") return [runtimeBinary("bun"), [CHILD, ...args]];
  if (runtime === "deno") return [runtimeBinary("deno"), ["run", "-A", "--v8-flags=--expose-gc", CHILD, ...args]];
  return [process.execPath, ["--expose-gc", CHILD, ...args]];
}

/** Starts the reference server in a child process run by `runtime` (default Node) and waits until it listens. */
export async function startChild(
  maxSessions: number,
  maxBodyBytes = 1024 * 1024,
  runtime: AttackedRuntime = "node",
  limits: Record<string, number> = {},
): Promise<ServerChild> {
  const [command, args] = childCommand(runtime, [String(maxSessions), String(maxBodyBytes), JSON.stringify(limits)]);
  const child: ChildProcess = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
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
  const { port, innerPort } = JSON.parse(await nextLine("the child listens")) as { port: number; innerPort: number | null };
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    port,
    innerPort,
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

export interface Flood {
  /** Bytes written, and written after the answer's status line arrived. */
  sent: number;
  sentAfterAnswer: number;
  /** Whether the server closed the connection (before the cap of bytes or time). */
  closed: boolean;
  /** From the answer's status line to the close (ms); undefined without either. */
  closedAfterAnswerMs: number | undefined;
  /** The answer's head as it came (latin1). */
  head: string;
  get statusLine(): string;
}

/**
 * A POST (`headers` after the request line and Host) whose body is `chunk` written again and
 * again until the server closes, `cap` bytes went out or `ms` passed; what the server did
 * meanwhile. A server that stops reading makes the writes wait (TCP backpressure), so what
 * went out after the answer is what the server read plus the sockets' buffers.
 */
export async function flood(port: number, headers: string, chunk: string, cap: number, ms = 10_000): Promise<Flood> {
  const socket = await openSocket(port);
  let received = "";
  let answeredAt: number | undefined;
  let closedAt: number | undefined;
  let sent = 0;
  let sentAtAnswer = 0;
  const decoder = new TextDecoder("latin1");
  socket.on("data", (chunk) => {
    if (received.length < 4096) received += decoder.decode(chunk, { stream: true });
    if (answeredAt === undefined && /^HTTP\/1\.1 \d{3} /.test(received)) {
      answeredAt = performance.now();
      sentAtAnswer = sent;
    }
  });
  const closing = new Promise<void>((resolve) => socket.on("close", () => ((closedAt = performance.now()), resolve())));
  socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: ${ACCEPT}\r\nContent-Type: application/json\r\n${headers}\r\n`);
  const until = performance.now() + ms;
  while (closedAt === undefined && sent < cap && performance.now() < until) {
    const more = socket.write(chunk);
    sent += chunk.length;
    // A turn of the event loop after every write, so the answer is read as it comes, as a client would.
    if (more) await new Promise<void>((resolve) => setImmediate(resolve));
    else await Promise.race([new Promise<void>((resolve) => socket.once("drain", resolve)), closing, sleep(50)]);
  }
  socket.destroy();
  const head = received.split("\r\n\r\n")[0] ?? "";
  return {
    sent,
    sentAfterAnswer: answeredAt === undefined ? 0 : sent - sentAtAnswer,
    closed: closedAt !== undefined,
    closedAfterAnswerMs: closedAt !== undefined && answeredAt !== undefined ? closedAt - answeredAt : undefined,
    head,
    get statusLine() {
      return head.split("\r\n")[0] ?? "";
    },
  };
}

const ENDLESS_CHUNK = `10000\r\n${"[".repeat(0x10000)}\r\n`;

/** A POST with a chunked body that never ends: how many bytes went out before the server closed, and its answer's status line. */
export function endlessChunkedBody(port: number, cap: number): Promise<Flood> {
  return flood(port, "Transfer-Encoding: chunked\r\n", ENDLESS_CHUNK, cap);
}

/** A POST that declares a body of 1 TiB and sends it (it never ends within the cap). */
export function hugeDeclaredBody(port: number, cap: number): Promise<Flood> {
  return flood(port, `Content-Length: ${2 ** 40}\r\n`, "[".repeat(0x10000), cap);
}

/** A POST whose chunked body trickles in, a byte every `everyMs`, until the server closes or `ms` passed: its answer and when it closed. */
export async function trickleBody(
  port: number,
  everyMs: number,
  ms: number,
): Promise<{ statusLine: string; closedAfterMs: number | undefined }> {
  const socket = await openSocket(port);
  const started = performance.now();
  let received = "";
  let closedAt: number | undefined;
  socket.on("data", (chunk) => (received += new TextDecoder("latin1").decode(chunk)));
  const closing = new Promise<void>((resolve) => socket.on("close", () => ((closedAt = performance.now()), resolve())));
  socket.write(
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: ${ACCEPT}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
  );
  const timer = setInterval(() => socket.write("1\r\n \r\n"), everyMs);
  await Promise.race([closing, sleep(ms)]);
  clearInterval(timer);
  socket.destroy();
  return { statusLine: received.split("\r\n")[0] ?? "", closedAfterMs: closedAt === undefined ? undefined : closedAt - started };
}

/**
 * How a held connection behaves: sends nothing, drips a header line now and then, sends a
 * request head and stalls in its body, sends one whole request and then nothing (a bogus
 * initialize, answered 400 as JSON; or in a session, `streamed:<session id>`, a tool call
 * answered as an SSE stream that ends), or opens a session's GET stream (`stream:<session
 * id>`) and listens.
 */
export type Holding = "idle" | "drip" | "stall" | "answered" | `streamed:${string}` | `stream:${string}`;

export interface HeldConnection {
  readonly holding: Holding;
  readonly openedAt: number;
  /** When the server closed it (performance.now()); undefined while open. */
  closedAt: number | undefined;
  /** The start of what came back (latin1). */
  received: string;
  destroy(): void;
}

/**
 * Opens `count` connections that hold on as `holdings` say (the n-th as the n-th of them, in
 * turn; a drip every `dripMs`), in batches so the opening is quick but no burst overflows the
 * listen backlog. A connection the server refuses at once is still listed, closed.
 */
export async function holdConnections(
  port: number,
  count: number,
  holdings: Holding | readonly Holding[],
  dripMs = 250,
): Promise<HeldConnection[]> {
  const cycle = typeof holdings === "string" ? [holdings] : holdings;
  const held: HeldConnection[] = [];
  const drips = new Set<Socket>();
  const timer = setInterval(() => {
    for (const socket of drips) socket.write("X-Slow: 1\r\n");
  }, dripMs);
  const decoder = new TextDecoder("latin1");
  const one = async (index: number): Promise<void> => {
    const holding = cycle[index % cycle.length] as Holding;
    const socket = await openSocket(port).catch(() => undefined);
    const connection: HeldConnection = {
      holding,
      openedAt: performance.now(),
      closedAt: socket === undefined ? performance.now() : undefined,
      received: "",
      destroy: () => {
        drips.delete(socket as Socket);
        socket?.destroy();
      },
    };
    held.push(connection);
    if (socket === undefined) return;
    socket.on("data", (chunk) => {
      if (connection.received.length < 4096) connection.received += decoder.decode(chunk);
    });
    socket.on("close", () => {
      connection.closedAt ??= performance.now();
      drips.delete(socket);
      if (drips.size === 0) clearInterval(timer);
    });
    if (holding === "drip") {
      socket.write(`GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
      drips.add(socket);
    } else if (holding === "answered") socket.write(postRequest(port, bogusInitializeBodies()[0] as string));
    else if (holding.startsWith("streamed:")) {
      const call = {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "test_tool_with_progress", arguments: {}, _meta: { progressToken: 1 } },
      };
      socket.write(postRequest(port, JSON.stringify(call), `Mcp-Session-Id: ${holding.slice(9)}\r\nMcp-Protocol-Version: ${LATEST}\r\n`));
    } else if (holding.startsWith("stream:"))
      socket.write(
        `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\nMcp-Session-Id: ${holding.slice(7)}\r\nMcp-Protocol-Version: ${LATEST}\r\n\r\n`,
      );
    else if (holding === "stall")
      socket.write(`${postRequest(port, "").slice(0, -"Content-Length: 0\r\n\r\n".length)}Content-Length: 1000\r\n\r\n{`);
  };
  for (let opened = 0; opened < count; opened += 50)
    await Promise.all(Array.from({ length: Math.min(50, count - opened) }, (_, i) => one(opened + i)));
  if (drips.size === 0) clearInterval(timer);
  return held;
}

/** Waits until every connection is closed or `ms` passed; how many are still open. */
export async function untilClosed(connections: readonly HeldConnection[], ms: number): Promise<number> {
  const until = performance.now() + ms;
  for (;;) {
    const open = connections.filter((c) => c.closedAt === undefined).length;
    if (open === 0 || performance.now() >= until) return open;
    await sleep(50);
  }
}

export interface Pings {
  /** Latencies (ms) of the pings answered. */
  readonly latencies: number[];
  /** Pings refused or failed (a 503 at a cap, a connection refused), and the last reason. */
  readonly failures: number;
  readonly lastFailure: string | undefined;
}

/** A well-behaved client: one session, pinging one request at a time until stopped; a failed ping is counted and the next one tried. */
export async function pinger(url: string): Promise<{ readonly session: string; stop(): Promise<Pings> }> {
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
  let failures = 0;
  let lastFailure: string | undefined;
  let running = true;
  const loop = (async () => {
    for (let id = 1; running; id++) {
      const start = performance.now();
      try {
        const response = await platform.fetch(url, {
          method: "POST",
          headers: sessionHeaders,
          body: JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }),
        });
        const text = await response.text();
        if (response.status !== 200 || !text.includes('"result":{}'))
          throw new Error(`ping ${id}: HTTP ${response.status} ${text.slice(0, 200)}`);
        latencies.push(performance.now() - start);
      } catch (error) {
        failures++;
        lastFailure = error instanceof Error ? `${error.message} ${String((error as { cause?: unknown }).cause ?? "")}` : String(error);
        await sleep(10);
      }
    }
  })();
  return {
    session,
    stop: async () => {
      running = false;
      await loop;
      return { latencies, failures, lastFailure };
    },
  };
}
