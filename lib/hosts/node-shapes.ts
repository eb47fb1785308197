// The Node objects that the hosts' public API takes or hands out (an HTTP request and
// response, a child process, an abort signal), described by the members the hosts use.
// Types only: this module emits no code.
//
// Why not `import type ... from "node:http"`: the published declarations must compile for a
// consumer with or without @types/node (strict, skipLibCheck false), and a `node:` module
// has no declaration without it. The project's own lib/hosts/node.d.ts is never shipped and
// builds its ambient `node:` modules on these shapes, so the implementation is checked
// against exactly what the declarations promise.
//
// Invariants:
// - every member here is one that Node's own objects have, with a compatible type, so a
//   consumer with @types/node can pass a real IncomingMessage or ServerResponse;
// - methods (not function-valued properties), each event with its own listener type, and
//   `void` for results the hosts never use: Node's catch-all listener `(...args: any[])`
//   does not fit a `never[]` one, and a `this` result makes each member compare the whole
//   of Node's class against the shape again, which its writeHead overloads fail.

/** A readable byte stream (a request body, a child's stdout). */
export interface NodeReadable {
  on(event: "data", listener: (chunk: Uint8Array) => void): void;
  on(event: "end" | "close", listener: () => void): void;
  on(event: "error", listener: (error: Error) => void): void;
  once(event: "end" | "close", listener: () => void): void;
  once(event: "error", listener: (error: Error) => void): void;
  pause(): void;
  resume(): void;
  destroy(error?: Error): void;
}

/** A writable byte stream (a response, a child's stdin). */
export interface NodeWritable {
  /** True when the stream is a terminal (process.stdout/stderr). */
  readonly isTTY?: boolean;
  write(chunk: Uint8Array | string, callback?: (error?: Error | null) => void): boolean;
  end(callback?: () => void): void;
  end(chunk: Uint8Array | string, callback?: () => void): void;
  destroy(error?: Error): void;
  on(event: "close" | "finish" | "drain", listener: () => void): void;
  on(event: "error", listener: (error: Error) => void): void;
  once(event: "close" | "finish" | "drain", listener: () => void): void;
  once(event: "error", listener: (error: Error) => void): void;
  readonly writableEnded: boolean;
  readonly destroyed: boolean;
}

/** Request headers, lower-cased names. */
export interface NodeIncomingHttpHeaders {
  [name: string]: string | string[] | undefined;
}

/** What HttpHost.handle reads of a node:http request. */
export interface NodeIncomingMessage extends NodeReadable {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: NodeIncomingHttpHeaders;
  readonly complete: boolean;
  /** The connection under the request (absent on a hand-made request object); the host only passes it back to node:net. */
  readonly socket?: unknown;
}

/** What HttpHost.handle and LegacySseEndpoint.open write to of a node:http response. */
export interface NodeServerResponse extends NodeWritable {
  statusCode: number;
  readonly headersSent: boolean;
  writeHead(status: number, headers?: { [name: string]: string | number }): void;
  setHeader(name: string, value: string | number): void;
  flushHeaders(): void;
}

/** The settings HttpHost.limitConnections writes on a node:http server of yours. */
export interface NodeHttpServerLimits {
  maxConnections: number;
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
}

/** The spawned server process a StdioClient holds. */
export interface NodeChildProcess {
  readonly pid: number | undefined;
  readonly stdin: NodeWritable;
  readonly stdout: NodeReadable;
  readonly stderr: NodeReadable;
  readonly exitCode: number | null;
  readonly signalCode: string | null;
  kill(signal?: string | number): boolean;
  /** Lets this process exit while the child still runs. */
  unref(): void;
  on(event: "exit" | "close", listener: (code: number | null, signal: string | null) => void): void;
  on(event: "error", listener: (error: Error) => void): void;
  once(event: "exit" | "close", listener: (code: number | null, signal: string | null) => void): void;
  once(event: "error", listener: (error: Error) => void): void;
}

/** The part of the runtime's AbortSignal that the HTTP client transport uses. */
export interface NodeAbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}
