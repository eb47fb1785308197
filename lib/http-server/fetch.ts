// The Streamable HTTP endpoint as a web-standard fetch handler: createHttpHandler(server,
// options) gives { fetch(request): Promise<Response>, close() }, for Bun.serve, Deno.serve,
// Workers (`export default { fetch }`), Next.js or Hono routes, and Node through
// lib/hosts/http-server.ts. Built on Request, Response and ReadableStream only (UTF-8 through
// lib/wire/utf8.ts); every decision is the endpoint's (endpoint.ts), this file only carries bytes.
//
// Invariants:
// - a body is read at most up to maxBodyBytes, and for at most requestTimeoutMs (LIM-09, LIM-11);
// - a body that will not be read whole (declared or counted over the limit, too slow, or of
//   unknown length and refused) is left unread, never cancelled: a runtime that sees its body
//   stream cancelled reads and discards the rest (Bun does, at line rate), while one left
//   unread stops reading (TCP backpressure); the answer carries `Connection: close`, which
//   the host acts on (lib/hosts/runtime-serve.ts) and Bun.serve honours by itself;
// - a small body the endpoint does not want (declared within the limit) is cancelled, so the
//   runtime discards it and the connection serves the next request;
// - the Response resolves as soon as its head is decided: a JSON answer whole, an SSE answer
//   as a stream that goes on; cancelling that stream (the client went away) is the reply's close;
// - an exception in the endpoint becomes a 500 when nothing was sent yet, never a rejection.

import { splitUrl, unreadBodyDisposal } from "../http/server-rules.js";
import { refuse, type BodyRead, type HttpIncoming, type HttpReply } from "./channel.js";
import { HttpEndpoint } from "./endpoint.js";
import type { HttpServerOptions } from "./options.js";
import type { Server } from "../peer/server/server.js";
import type { HttpTimers } from "../peer/shared/timers.js";
import "./web-types.js";
import { decodeUtf8Chunks, encodeUtf8 } from "../wire/utf8.js";

/**
 * The options of createHttpHandler: those of the endpoint (timers default to the runtime's).
 * The connection limits are the server's that runs the handler (lib/hosts/runtime-serve.ts for
 * Bun and Deno); requestTimeoutMs bounds the body read here.
 */
export type HttpHandlerOptions = Omit<HttpServerOptions, "host" | "port" | "maxConnections" | "headersTimeoutMs" | "keepAliveTimeoutMs">;

export interface HttpHandler {
  /** Answers one request (never rejects). */
  fetch(request: Request): Promise<Response>;
  /** Ends every session and stream in flight. */
  close(): void;
  /** The endpoint behind it: its sessions and exchanges (for hosts and tests). */
  readonly endpoint: HttpEndpoint;
}

const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);

/** The endpoint behind a fetch handler, with the timers and error report of its runtime given. */
export function createFetchHandler(
  server: Server,
  options: HttpHandlerOptions,
  timers: HttpTimers,
  defaultOnError: (error: unknown) => void,
): HttpHandler {
  const endpoint = new HttpEndpoint(server, options, timers, defaultOnError);
  // The bodies being read: close() stops each (its deadline timer included), so nothing waits on a client after it.
  const reads = new Set<(closing: boolean) => void>();
  return {
    endpoint,
    close: () => {
      for (const stop of [...reads]) stop(true);
      endpoint.closeAll();
    },
    fetch: (request) => {
      const reply = new ResponseReply();
      const incoming = incomingOf(request, reply, endpoint.timers, endpoint.options.requestTimeoutMs, reads);
      // Runtimes abort a request's signal when its client goes away before the answer (a 2026-07-28 cancellation).
      request.signal?.addEventListener("abort", () => reply.abandon());
      // serve() settles once the request is taken in; the answer may come later (a handler still running).
      endpoint
        .serve(incoming, reply, () => request)
        .then(
          () => undefined,
          (error: unknown) => {
            endpoint.options.onError(error);
            if (!reply.headSent) refuse(reply, "internal", "Internal error");
            else reply.end();
          },
        );
      return reply.response;
    },
  };
}

/** What the endpoint reads of a Request; what it leaves unread is answered with `Connection: close` where the length calls for it. */
function incomingOf(
  request: Request,
  reply: ResponseReply,
  timers: HttpTimers,
  deadlineMs: number,
  reads: Set<(closing: boolean) => void>,
): HttpIncoming {
  const url = splitUrl(request.url);
  let consumed = false;
  return {
    method: request.method,
    path: url.path,
    query: url.query,
    mounted: false,
    base: "",
    header: (name) => request.headers.get(name) ?? undefined,
    readBody: (limit) => {
      consumed = true;
      return readLimited(request, reply, limit, timers, deadlineMs, reads);
    },
    skipBody: () => {
      if (consumed || request.body === null) return;
      consumed = true;
      // A runtime may drop Transfer-Encoding from the headers: a body without a length is one of unknown length.
      const length = request.headers.get("content-length") ?? undefined;
      const disposal = unreadBodyDisposal(length, length === undefined ? "chunked" : undefined, Number.MAX_SAFE_INTEGER);
      // LIM-09: a body of unknown length may never end; the connection goes with the answer.
      if (disposal === "close") reply.setHeader("Connection", "close");
      else request.body.cancel().catch(() => undefined);
    },
  };
}

/**
 * The body as text: at most `limit` bytes (LIM-09) and within `deadlineMs` (LIM-11). Beyond
 * either, reading stops and the answer closes the connection; a larger declared length is not
 * read at all.
 */
async function readLimited(
  request: Request,
  reply: ResponseReply,
  limit: number,
  timers: HttpTimers,
  deadlineMs: number,
  reads: Set<(closing: boolean) => void>,
): Promise<BodyRead> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) {
    reply.setHeader("Connection", "close");
    return { kind: "too-large" };
  }
  const body = request.body;
  if (body === null) return decodeBody([], 0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let late = false;
  let closing = false;
  const stop = (byClose: boolean): void => {
    late = true;
    closing = byClose;
    timers.clearTimeout(deadline);
    reads.delete(stop);
    // The only way to end a pending read; the connection is closed with the answer anyway.
    reader.cancel().catch(() => undefined);
  };
  const deadline = timers.setTimeout(() => stop(false), deadlineMs);
  reads.add(stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (late) break;
      if (done) return decodeBody(chunks, size);
      if (value === undefined) continue;
      size += value.length;
      if (size > limit) {
        // Left unread, not cancelled: the runtime stops reading instead of discarding the rest (the host may still cancel it).
        reader.releaseLock();
        reply.setHeader("Connection", "close");
        return { kind: "too-large" };
      }
      chunks.push(value);
    }
  } catch {
    if (!late) return { kind: "aborted" };
  } finally {
    timers.clearTimeout(deadline);
    reads.delete(stop);
  }
  reply.setHeader("Connection", "close");
  // close() ended the read: the request was cut off by the shutdown, not late.
  if (closing) return { kind: "aborted" };
  return { kind: "too-slow", received: size, deadlineMs };
}

export function decodeBody(chunks: readonly Uint8Array[], size: number): BodyRead {
  try {
    return { kind: "text", text: decodeUtf8Chunks(chunks, size, true) };
  } catch {
    return { kind: "not-utf8" };
  }
}

/** An HttpReply that becomes a Response: whole for a JSON answer, streamed for SSE. */
class ResponseReply implements HttpReply {
  readonly response: Promise<Response>;
  private resolve!: (response: Response) => void;
  private status = 200;
  private readonly headers: Record<string, string> = {};
  private started = false;
  private resolved = false;
  private ended = false;
  private controller: ReadableStreamController | undefined;
  private readonly pending: Uint8Array[] = [];
  private readonly closeListeners: Array<() => void> = [];

  constructor() {
    this.response = new Promise<Response>((resolve) => {
      this.resolve = resolve;
    });
  }

  get headSent(): boolean {
    return this.started;
  }

  setHeader(name: string, value: string): void {
    if (!this.started) this.headers[name] = value;
  }

  head(status: number, headers: Readonly<Record<string, string>>): void {
    if (this.started) return;
    this.started = true;
    this.status = status;
    Object.assign(this.headers, headers);
  }

  flush(): void {
    this.stream();
  }

  write(text: string): void {
    if (this.ended) return;
    if (!this.started) this.head(this.status, {});
    this.stream();
    const bytes = encodeUtf8(text);
    if (this.controller !== undefined) this.controller.enqueue(bytes);
    else this.pending.push(bytes);
  }

  end(text?: string): void {
    if (this.ended) return;
    if (!this.started) this.head(this.status, {});
    if (!this.resolved) {
      // The whole answer at once: a plain body.
      this.ended = true;
      this.resolved = true;
      const body = text === undefined || text === "" ? (NULL_BODY_STATUSES.has(this.status) ? null : "") : text;
      this.resolve(new Response(body, { status: this.status, headers: this.headers }));
      this.closed();
      return;
    }
    if (text !== undefined && text !== "") this.write(text);
    this.ended = true;
    try {
      this.controller?.close();
    } catch {
      // Already cancelled by the client.
    }
    this.closed();
  }

  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  /** The client went away: nothing more is written, the close listeners run. */
  abandon(): void {
    if (this.ended) return;
    this.ended = true;
    try {
      this.controller?.close();
    } catch {
      // Already cancelled.
    }
    this.closed();
  }

  private stream(): void {
    if (this.resolved) return;
    this.resolved = true;
    const body = new ReadableStream({
      start: (controller) => {
        this.controller = controller;
        for (const bytes of this.pending.splice(0)) controller.enqueue(bytes);
      },
      cancel: () => {
        // The client went away.
        this.ended = true;
        this.controller = undefined;
        this.closed();
      },
    });
    this.resolve(new Response(body, { status: this.status, headers: this.headers }));
  }

  private closed(): void {
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}
