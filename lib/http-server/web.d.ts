// The Web platform globals the portable HTTP endpoint uses (Fetch, Streams), declared by the
// members it calls, because the project compiles against ECMAScript libraries only (no DOM,
// no Node types). Every runtime it serves on (Node >= 18, Deno, Bun, Workers, browsers)
// provides them. Never shipped: the published declarations name only the empty global
// interfaces of web-types.ts, which merge with whatever the consumer's own libraries declare.

interface Headers {
  get(name: string): string | null;
  forEach(callback: (value: string, name: string) => void): void;
}

interface ReadableStreamReadResultLike {
  done: boolean;
  value?: Uint8Array;
}

interface ReadableStreamReader {
  read(): Promise<ReadableStreamReadResultLike>;
  cancel(reason?: unknown): Promise<void>;
  releaseLock(): void;
}

interface ReadableStream {
  getReader(): ReadableStreamReader;
  cancel(reason?: unknown): Promise<void>;
}

interface ReadableStreamController {
  enqueue(chunk: Uint8Array): void;
  close(): void;
  error(reason?: unknown): void;
  readonly desiredSize: number | null;
}

declare var ReadableStream: {
  new (source: {
    start?(controller: ReadableStreamController): void;
    pull?(controller: ReadableStreamController): void | Promise<void>;
    cancel?(reason?: unknown): void;
  }): ReadableStream;
};

interface Request {
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
  readonly body: ReadableStream | null;
  readonly signal?: { readonly aborted: boolean; addEventListener(type: "abort", listener: () => void): void };
}

declare var Request: {
  new (
    url: string,
    init?: {
      method?: string;
      headers?: Record<string, string> | [string, string][];
      body?: string | Uint8Array | ReadableStream | null;
      duplex?: "half";
      signal?: unknown;
    },
  ): Request;
};

interface Response {
  readonly status: number;
  readonly headers: Headers;
  readonly body: ReadableStream | null;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

declare var Response: {
  new (body?: string | ReadableStream | null, init?: { status?: number; headers?: Record<string, string> | [string, string][] }): Response;
};
