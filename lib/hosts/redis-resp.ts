// A small Redis client on node:net for the CLI (`serve --http … --redis URL`), which may not
// import a Redis package: RESP2 commands as argument arrays, replies in order, pub/sub on a
// duplicate() connection. It has the shape the Redis stores take (RedisClientLike), as
// node-redis has; applications pass their own client instead.
//
// Invariants:
// - a command never waits for a Redis that is away: while disconnected it is refused at
//   once, and one without an answer within commandTimeoutMs fails (the connection is then
//   dropped, since later replies could no longer be matched); each failure names Redis and
//   what happened; reconnection is automatic (backoff up to 1 s) and a subscriber
//   subscribes again;
// - bounded: at most maxPending commands in flight, a reply at most maxReplyBytes.

import { connect as netConnect, type Socket } from "node:net";
import { concatBytes } from "./bytes.js";
import type { RedisClientLike, RedisSubscriber } from "../stores/redis-client.js";

export interface RespClientOptions {
  /** redis://[user:password@]host:port[/db] */
  url: string;
  /** Default 3000. */
  commandTimeoutMs?: number;
  /** Commands in flight at once. Default 10000. */
  maxPending?: number;
  /** Default 64 MiB. */
  maxReplyBytes?: number;
  /** Connection problems (the command that meets them fails by itself). Default: none. */
  onError?: (error: Error) => void;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: unknown;
}

class ReplyError extends Error {}

/** What parse() found: a reply and where the next begins, or nothing complete yet. */
type Parsed = { value: unknown; next: number } | undefined;

const decoder = new TextDecoder();
const encoder = new TextEncoder();

function lineEnd(buffer: Uint8Array, from: number): number {
  for (let i = from; i + 1 < buffer.length; i++) if (buffer[i] === 13 && buffer[i + 1] === 10) return i;
  return -1;
}

function parse(buffer: Uint8Array, at: number): Parsed {
  if (at >= buffer.length) return undefined;
  const end = lineEnd(buffer, at);
  if (end < 0) return undefined;
  const type = String.fromCharCode(buffer[at] as number);
  const line = decoder.decode(buffer.subarray(at + 1, end));
  switch (type) {
    case "+":
      return { value: line, next: end + 2 };
    case "-":
      return { value: new ReplyError(line), next: end + 2 };
    case ":":
      return { value: Number(line), next: end + 2 };
    case "$": {
      const size = Number(line);
      if (size < 0) return { value: null, next: end + 2 };
      if (buffer.length < end + 2 + size + 2) return undefined;
      return { value: decoder.decode(buffer.subarray(end + 2, end + 2 + size)), next: end + 2 + size + 2 };
    }
    case "*": {
      const count = Number(line);
      if (count < 0) return { value: null, next: end + 2 };
      const items: unknown[] = [];
      let next = end + 2;
      for (let i = 0; i < count; i++) {
        const item = parse(buffer, next);
        if (item === undefined) return undefined;
        items.push(item.value);
        next = item.next;
      }
      return { value: items, next };
    }
    default:
      throw new Error(`unexpected reply type ${JSON.stringify(type)}`);
  }
}

function encode(args: readonly string[]): Uint8Array {
  const chunks: Uint8Array[] = [encoder.encode(`*${args.length}\r\n`)];
  for (const arg of args) {
    const part = encoder.encode(arg);
    chunks.push(encoder.encode(`$${part.length}\r\n`), part, CRLF);
  }
  return concatBytes(chunks);
}

const CRLF = new Uint8Array([13, 10]);

/** redis://[user:password@]host[:port][/db] split; undefined when it is not one. */
function parseRedisUrl(
  url: string,
): { host: string; port: number; user: string | undefined; password: string | undefined; db: string | undefined } | undefined {
  const m = /^redis:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?(\[[^\]]+\]|[^:/@]+)(?::(\d{1,5}))?(?:\/(\d+))?\/?$/i.exec(url);
  if (m === null) return undefined;
  const port = m[4] === undefined ? 6379 : Number(m[4]);
  if (port > 65535) return undefined;
  const user = m[1] === undefined || m[1] === "" ? undefined : decodeURIComponent(m[1]);
  return {
    host: (m[3] as string).replace(/^\[(.*)\]$/, "$1"),
    port,
    user,
    password: m[2] === undefined ? undefined : decodeURIComponent(m[2]),
    db: m[5],
  };
}

export class RespClient implements RedisClientLike, RedisSubscriber {
  private socket: Socket | undefined;
  private ready = false;
  private closing = false;
  private buffer: Uint8Array = new Uint8Array(0);
  private readonly pending: Pending[] = [];
  private readonly listeners = new Map<string, (message: string, channel: string) => void>();
  private backoff = 50;
  private readonly host: string;
  private readonly port: number;
  private readonly setup: string[][] = [];
  private readonly timeoutMs: number;
  private readonly maxPending: number;
  private readonly maxReply: number;
  private connecting: Promise<void> | undefined;
  private everUp = false;

  constructor(private readonly options: RespClientOptions) {
    const url = parseRedisUrl(options.url);
    if (url === undefined)
      throw new RangeError(`redis: expected redis://[user:password@]host[:port][/db]; got ${JSON.stringify(options.url)}`);
    this.host = url.host;
    this.port = url.port;
    if (url.password !== undefined) this.setup.push(url.user === undefined ? ["AUTH", url.password] : ["AUTH", url.user, url.password]);
    if (url.db !== undefined) this.setup.push(["SELECT", url.db]);
    this.timeoutMs = options.commandTimeoutMs ?? 3000;
    this.maxPending = options.maxPending ?? 10_000;
    this.maxReply = options.maxReplyBytes ?? 64 << 20;
  }

  get isReady(): boolean {
    return this.ready;
  }

  /** Connects (and keeps reconnecting after a loss until close()); resolves once the first connection is up. */
  connect(): Promise<this> {
    this.closing = false;
    return this.open().then(() => this);
  }

  duplicate(): RespClient {
    return new RespClient(this.options);
  }

  sendCommand(args: string[]): Promise<unknown> {
    if (!this.ready || this.socket === undefined)
      return Promise.reject(new Error(`redis ${this.host}:${this.port}: not connected; ${args[0] ?? ""} refused`));
    return this.send(this.socket, args);
  }

  async subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<void> {
    this.listeners.set(channel, listener);
    await this.sendCommand(["SUBSCRIBE", channel]);
  }

  async unsubscribe(channel: string): Promise<void> {
    this.listeners.delete(channel);
    if (this.ready) await this.sendCommand(["UNSUBSCRIBE", channel]);
  }

  async close(): Promise<void> {
    this.closing = true;
    this.ready = false;
    this.socket?.destroy();
    this.socket = undefined;
    this.failAll(new Error(`redis ${this.host}:${this.port}: client closed`));
  }

  private send(socket: Socket, args: readonly string[]): Promise<unknown> {
    if (this.pending.length >= this.maxPending)
      return Promise.reject(
        new Error(`redis ${this.host}:${this.port}: ${this.maxPending} commands in flight (maxPending); ${args[0] ?? ""} refused`),
      );
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        // The connection is out of step now (a late reply would answer the wrong command): start over.
        this.options.onError?.(new Error(`redis ${this.host}:${this.port}: no answer to ${args[0] ?? ""} within ${this.timeoutMs} ms`));
        socket.destroy();
      }, this.timeoutMs);
      timer.unref?.();
      this.pending.push({ resolve, reject, timer });
      socket.write(encode(args));
    });
  }

  /** One connection attempt; after a first success, every loss starts another (backoff) until close(). */
  private open(): Promise<void> {
    if (this.connecting !== undefined) return this.connecting;
    this.connecting = new Promise<void>((resolve, reject) => {
      const socket = netConnect(this.port, this.host);
      socket.setNoDelay(true);
      this.socket = socket;
      this.buffer = new Uint8Array(0);
      let up = false;
      socket.on("data", (chunk: Uint8Array) => this.onData(socket, chunk));
      socket.once("connect", () => {
        void (async () => {
          try {
            for (const command of this.setup) await this.send(socket, command);
            for (const channel of this.listeners.keys()) await this.send(socket, ["SUBSCRIBE", channel]);
            this.ready = true;
            this.everUp = true;
            this.backoff = 50;
            up = true;
            resolve();
          } catch (error) {
            socket.destroy(error instanceof Error ? error : undefined);
          }
        })();
      });
      socket.on("error", (error) => this.options.onError?.(new Error(`redis ${this.host}:${this.port}: ${error.message}`)));
      socket.once("close", () => {
        if (this.socket === socket) this.socket = undefined;
        this.ready = false;
        this.connecting = undefined;
        this.failAll(new Error(`redis ${this.host}:${this.port}: connection lost`));
        if (!up) reject(new Error(`redis ${this.host}:${this.port}: cannot connect`));
        if (this.closing || !this.everUp) return;
        const wait = this.backoff;
        this.backoff = Math.min(1000, this.backoff * 2);
        setTimeout(() => {
          if (!this.closing) this.open().catch(() => undefined);
        }, wait).unref?.();
      });
    });
    return this.connecting;
  }

  private failAll(error: Error): void {
    for (const entry of this.pending.splice(0)) {
      clearTimeout(entry.timer);
      entry.reject(error);
    }
  }

  private onData(socket: Socket, chunk: Uint8Array): void {
    this.buffer = this.buffer.length === 0 ? chunk : concatBytes([this.buffer, chunk]);
    if (this.buffer.length > this.maxReply) {
      socket.destroy(new Error(`a reply over ${this.maxReply} bytes`));
      return;
    }
    let at = 0;
    try {
      for (;;) {
        const parsed = parse(this.buffer, at);
        if (parsed === undefined) break;
        at = parsed.next;
        this.onReply(parsed.value);
      }
    } catch (error) {
      socket.destroy(error instanceof Error ? error : undefined);
      return;
    }
    this.buffer = at === this.buffer.length ? new Uint8Array(0) : this.buffer.subarray(at);
  }

  private onReply(value: unknown): void {
    if (Array.isArray(value) && value[0] === "message" && typeof value[1] === "string" && typeof value[2] === "string") {
      const listener = this.listeners.get(value[1]);
      if (listener !== undefined) {
        try {
          listener(value[2], value[1]);
        } catch (error) {
          this.options.onError?.(error instanceof Error ? error : new Error(String(error)));
        }
      }
      return;
    }
    const entry = this.pending.shift();
    if (entry === undefined) return;
    clearTimeout(entry.timer);
    if (value instanceof ReplyError) entry.reject(new Error(`redis: ${value.message}`));
    else entry.resolve(value);
  }
}
