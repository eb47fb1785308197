// Minimal declarations of the Node built-ins that the hosts, the CLI, the tests and the
// benchmarks use. The build does not load @types/node (tsconfig "types": []; it is a dev
// dependency only so that the package-consumer test can compile a consumer with it), so
// each API used is declared here, in the one place where Node is allowed; the portable
// layers (every folder of lib/ but cli/ and hosts/, whose web/ is portable; see
// tsconfig.portable.json) are type-checked without this file. This file is never shipped,
// and no published declaration may name what it declares: the hosts' public types come from
// node-shapes.ts (the package tests compile every export without this file).

declare module "node:test" {
  interface TestContext {
    test(name: string, fn: (t: TestContext) => void | Promise<void>): Promise<void>;
    skip(message?: string): void;
    diagnostic(message: string): void;
    after(fn: () => void | Promise<void>): void;
  }
  export function test(name: string, fn: (t: TestContext) => void | Promise<void>): Promise<void>;
  export function describe(name: string, fn: () => void | Promise<void>): Promise<void>;
  export function it(name: string, fn: (t: TestContext) => void | Promise<void>): Promise<void>;
  export function before(fn: () => void | Promise<void>): void;
  export function after(fn: () => void | Promise<void>): void;
}

declare module "node:assert/strict" {
  interface Assert {
    (value: unknown, message?: string): asserts value;
    ok(value: unknown, message?: string): asserts value;
    equal<T>(actual: unknown, expected: T, message?: string): asserts actual is T;
    notEqual(actual: unknown, expected: unknown, message?: string): void;
    deepEqual<T>(actual: unknown, expected: T, message?: string): asserts actual is T;
    notDeepEqual(actual: unknown, expected: unknown, message?: string): void;
    throws(fn: () => unknown, expected?: unknown, message?: string): void;
    doesNotThrow(fn: () => unknown, message?: string): void;
    rejects(promise: Promise<unknown> | (() => Promise<unknown>), expected?: unknown, message?: string): Promise<void>;
    match(value: string, pattern: RegExp, message?: string): void;
    doesNotMatch(value: string, pattern: RegExp, message?: string): void;
    fail(message?: string): never;
  }
  const assert: Assert;
  export default assert;
}

declare module "node:fs" {
  export function readFileSync(path: string, encoding: "utf8"): string;
  export function readFileSync(path: string): Uint8Array;
  export function readdirSync(path: string): string[];
  export function statSync(path: string): { isDirectory(): boolean; isFile(): boolean; size: number };
  export function existsSync(path: string): boolean;
  export function writeFileSync(path: string, data: string | Uint8Array): void;
}

declare module "node:path" {
  export function join(...parts: string[]): string;
  export function dirname(path: string): string;
  export function relative(from: string, to: string): string;
  export function resolve(...parts: string[]): string;
}

declare module "node:url" {
  export function fileURLToPath(url: string | URL): string;
}

declare module "node:perf_hooks" {
  export const performance: { now(): number; readonly timeOrigin: number };
}

interface ImportMeta {
  url: string;
}

declare class URL {
  constructor(input: string, base?: string | URL);
  readonly href: string;
  readonly pathname: string;
  readonly origin: string;
  readonly searchParams: URLSearchParams;
}

// Used by the OAuth tests, to read what the flow put in URLs and forms independently of lib/auth's own parser.
declare class URLSearchParams {
  constructor(init?: string);
  get(name: string): string | null;
  set(name: string, value: string): void;
  has(name: string): boolean;
  [Symbol.iterator](): IterableIterator<[string, string]>;
}

declare var Buffer: {
  from(data: string, encoding?: "base64url" | "base64" | "utf8"): { toString(encoding?: "base64url" | "base64" | "utf8"): string };
};

// The process takes listeners for any event name (signals, unhandledRejection). The stream,
// request, response and child-process shapes are those of node-shapes.ts, which the published
// declarations use in place of Node's modules (they never name this file).
interface NodeEventSource {
  on(event: string, listener: (...args: never[]) => void): this;
  once(event: string, listener: (...args: never[]) => void): this;
  off(event: string, listener: (...args: never[]) => void): this;
  removeAllListeners(event?: string): this;
}
type NodeReadable = import("./node-shapes.js").NodeReadable;
type NodeWritable = import("./node-shapes.js").NodeWritable;
type NodeIncomingMessageShape = import("./node-shapes.js").NodeIncomingMessage;
type NodeServerResponseShape = import("./node-shapes.js").NodeServerResponse;
type NodeChildProcessShape = import("./node-shapes.js").NodeChildProcess;
type NodeAbortSignal = import("./node-shapes.js").NodeAbortSignal;

interface NodeProcess extends NodeEventSource {
  argv: string[];
  readonly execArgv: string[];
  env: { [key: string]: string | undefined };
  exitCode: number | undefined;
  readonly pid: number;
  readonly execPath: string;
  readonly platform: string;
  memoryUsage(): { heapUsed: number; rss: number };
  /** Used by bench/: CPU microseconds since `previous` (or since start). */
  cpuUsage(previous?: { user: number; system: number }): { user: number; system: number };
  hrtime: { bigint(): bigint };
  /** Used by lib/hosts/stdio.ts: runs `callback` once the current operation and its microtasks are done. */
  nextTick(callback: () => void): void;
  stdin: NodeReadable;
  stdout: NodeWritable;
  stderr: NodeWritable;
  exit(code?: number): never;
  kill(pid: number, signal?: string | number): boolean;
  cwd(): string;
}

declare var process: NodeProcess;

declare function queueMicrotask(callback: () => void): void;

interface NodeTimer {
  unref(): this;
  ref(): this;
}

declare function clearTimeout(timer: unknown): void;
declare function setInterval(callback: () => void, ms?: number): NodeTimer;
declare function clearInterval(timer: unknown): void;
declare function setImmediate(callback: () => void): unknown;

declare module "node:child_process" {
  export interface ChildProcess extends NodeChildProcessShape {}
  export interface SpawnOptions {
    stdio?: Array<"pipe" | "inherit" | "ignore" | number>;
    env?: { [key: string]: string | undefined };
    cwd?: string;
  }
  export function spawn(command: string, args: readonly string[], options?: SpawnOptions): ChildProcess;
}

declare module "node:crypto" {
  export function randomBytes(size: number): Uint8Array;
  export function randomUUID(): string;
  export function createHash(algorithm: "sha256"): {
    update(data: string | Uint8Array): { digest(encoding: "base64url" | "base64" | "hex"): string };
  };
  /** Node's Web Crypto (globalThis.crypto from Node 19 on), for lib/auth. */
  export const webcrypto: import("../auth/types.js").WebCryptoLike;
}

declare var gc: (() => void) | undefined;

declare var console: {
  log(...args: unknown[]): void;
  error(...args: unknown[]): void;
};

// Used by bench/engine.bench.ts: GC detection during allocation measurements and new-space size.
declare module "node:perf_hooks" {
  export interface PerformanceEntry {
    readonly name: string;
    readonly entryType: string;
    readonly startTime: number;
    readonly duration: number;
  }
  export class PerformanceObserver {
    constructor(callback: (list: { getEntries(): PerformanceEntry[] }) => void);
    observe(options: { entryTypes: string[] }): void;
    disconnect(): void;
  }
}

declare module "node:v8" {
  export function getHeapSpaceStatistics(): {
    space_name: string;
    space_size: number;
    space_used_size: number;
    space_available_size: number;
    physical_space_size: number;
  }[];
}

declare function setTimeout(callback: () => void, ms?: number): NodeTimer;

// Used by lib/hosts/http-server.ts.
declare module "node:http" {
  export type IncomingHttpHeaders = import("./node-shapes.js").NodeIncomingHttpHeaders;
  export interface IncomingMessage extends NodeIncomingMessageShape {}
  export interface ServerResponse extends NodeServerResponseShape {}
  export interface AddressInfo {
    address: string;
    family: string;
    port: number;
  }
  export interface Server {
    listen(port: number, host: string, callback?: () => void): this;
    close(callback?: (error?: Error) => void): this;
    closeAllConnections(): void;
    address(): AddressInfo | string | null;
    on(event: "error", listener: (error: Error) => void): this;
    once(event: "error" | "listening", listener: (error: Error) => void): this;
    keepAliveTimeout: number;
  }
  export function createServer(handler: (request: IncomingMessage, response: ServerResponse) => void): Server;
}

// Used by lib/hosts/http-client-node.ts: the Web fetch and AbortController globals of Node
// (>= 18), declared only by the shape lib/http-client/transport.ts uses (NodeAbortSignal above).
interface NodeFetchResponse {
  readonly status: number;
  readonly statusText: string;
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  readonly body: {
    getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(reason?: unknown): Promise<void> };
  } | null;
  text(): Promise<string>;
}

declare function fetch(
  url: string,
  init: {
    method: string;
    headers: Record<string, string>;
    body?: string;
    signal?: NodeAbortSignal;
    redirect?: "follow" | "manual" | "error";
  },
): Promise<NodeFetchResponse>;

declare var AbortController: { new (): { readonly signal: NodeAbortSignal; abort(reason?: unknown): void } };

// Used by the HTTP host's tests: a raw client request (fetch will not send a Host
// header of the caller's choosing), and a GC handle for heap checks without --expose-gc.
declare module "node:http" {
  export interface IncomingMessage {
    /** Set on the responses a client request receives. */
    readonly statusCode?: number;
  }
  export type ClientRequest = NodeWritable;
  export function request(
    url: string,
    options: { method?: string; headers?: { [name: string]: string } },
    callback?: (response: IncomingMessage) => void,
  ): ClientRequest;
}

declare module "node:v8" {
  export function setFlagsFromString(flags: string): void;
}

// Used by bench/inproc.bench.ts: heap allocated per round trip, collections included.
declare module "node:v8" {
  export function getHeapStatistics(): { used_heap_size: number };
  export class GCProfiler {
    start(): void;
    stop(): {
      statistics: { beforeGC: { heapStatistics: { usedHeapSize: number } }; afterGC: { heapStatistics: { usedHeapSize: number } } }[];
    };
  }
}

declare module "node:vm" {
  export function runInNewContext(code: string): unknown;
}

// Web Crypto as Node 20 provides it globally (used by tests of lib/peer/server/request-state.ts).
declare var crypto: {
  subtle: {
    importKey(
      format: "raw",
      keyData: Uint8Array,
      algorithm: { name: "HMAC"; hash: "SHA-256" },
      extractable: boolean,
      usages: string[],
    ): Promise<unknown>;
    sign(algorithm: "HMAC", key: unknown, data: Uint8Array): Promise<ArrayBuffer>;
    verify(algorithm: "HMAC", key: unknown, signature: Uint8Array, data: Uint8Array): Promise<boolean>;
  };
};

// Used by the package tests and the test runner (spec-tests/): temp projects, npm pack, tsc.
declare module "node:fs" {
  export function mkdtempSync(prefix: string): string;
  export function mkdirSync(path: string, options?: { recursive?: boolean }): string | undefined;
  export function rmSync(path: string, options?: { recursive?: boolean; force?: boolean }): void;
  export function symlinkSync(target: string, path: string, type?: "dir" | "file" | "junction"): void;
}

declare module "node:os" {
  export function tmpdir(): string;
}

declare module "node:child_process" {
  export interface SpawnSyncResult {
    readonly status: number | null;
    readonly signal: string | null;
    readonly stdout: string;
    readonly stderr: string;
    readonly error?: Error;
  }
  export function spawnSync(
    command: string,
    args: readonly string[],
    options: { cwd?: string; encoding: "utf8"; env?: { [key: string]: string | undefined }; timeout?: number; shell?: boolean },
  ): SpawnSyncResult;
}

// Used by lib/hosts/http-server.ts for its connection limits (createServer's options, the
// server's timeouts and cap, the socket under a request), and by the HTTP tests
// for raw sockets (an endless chunked body, idle connections).
declare module "node:http" {
  export interface ServerOptions {
    headersTimeout?: number;
    requestTimeout?: number;
    keepAliveTimeout?: number;
    connectionsCheckingInterval?: number;
  }
  export function createServer(options: ServerOptions, handler: (request: IncomingMessage, response: ServerResponse) => void): Server;
  export interface Server {
    maxConnections: number;
    headersTimeout: number;
    requestTimeout: number;
    on(event: "connection", listener: (socket: NodeSocket) => void): this;
  }
  export interface IncomingMessage {
    readonly socket: NodeSocket;
    unpipe(): this;
  }
}

interface NodeSocket extends NodeEventSource {
  readonly destroyed: boolean;
  readonly bytesRead: number;
  readonly remoteAddress: string | undefined;
  write(chunk: Uint8Array | string, callback?: (error?: Error | null) => void): boolean;
  end(chunk?: Uint8Array | string): this;
  destroy(error?: Error): this;
  pause(): this;
  resume(): this;
  setNoDelay(noDelay?: boolean): this;
  on(event: "data", listener: (chunk: Uint8Array) => void): this;
  on(event: "close" | "end" | "connect" | "drain", listener: () => void): this;
  on(event: "error", listener: (error: Error) => void): this;
  once(event: "close" | "end" | "connect" | "drain", listener: () => void): this;
  once(event: "error", listener: (error: Error) => void): this;
}

declare module "node:net" {
  export type Socket = NodeSocket;
  export function connect(port: number, host: string): NodeSocket;
  /**
   * Used by lib/hosts/stdio.ts: a socket read into one kept buffer (onread), on an open
   * descriptor (fd) or on the stream handle of another socket (handle: the option
   * child_process wraps a child's pipes with).
   */
  export const Socket: new (
    options: ({ fd: number } | { handle: object }) & {
      readable: boolean;
      writable: boolean;
      onread: { buffer: Uint8Array; callback: (bytesRead: number, buffer: Uint8Array) => boolean | void };
    },
  ) => NodeSocket;
}

// Used by lib/hosts/stdio.ts: what kind of file descriptor 0 is.
declare module "node:fs" {
  export function fstatSync(fd: number): { isFIFO(): boolean; isSocket(): boolean };
  /** Used by the stdio host's tests: a file as a child's stdin. */
  export function openSync(path: string, flags: string): number;
  export function closeSync(fd: number): void;
}

// Used by bench/bundle-size.ts and its budget test: bundles measured gzipped.
declare module "node:zlib" {
  export function gzipSync(data: Uint8Array | string, options?: { level?: number }): Uint8Array;
}

// Used by the skills loader (skills-loader.ts): a directory of skills read from disk.
declare module "node:fs/promises" {
  interface DirentLike {
    readonly name: string;
    isDirectory(): boolean;
    isFile(): boolean;
    isSymbolicLink(): boolean;
  }
  export function readdir(path: string, options: { withFileTypes: true }): Promise<DirentLike[]>;
  export function readFile(path: string): Promise<Uint8Array>;
  export function lstat(path: string): Promise<{ isDirectory(): boolean; isFile(): boolean; size: number }>;
}
