// The fetch handler (lib/http-server/) served on Bun's and Deno's own HTTP servers with the
// limits of serveHttp (RULES.md LIM-09, LIM-11) as far as each server's public API lets them
// hold; `mcp-engine serve --http` uses it under Bun and Deno (lib/cli/runtime.ts). What each
// runtime enforces, and the closest bound where it cannot, is the limits table of docs/limits.md.
//
// Bun.serve: `Connection: close` on an answer closes the connection after it; idleTimeout
// closes keep-alive connections idle keepAliveTimeoutMs (whole seconds); a request in flight
// has its idle timeout lifted (server.timeout(request, 0): an answer may take as long as its
// handler, an SSE stream may stay quiet) and restored when its answer ends. A connection that
// never completes a request head is closed by Bun itself after about 10 s (not settable).
// There is no connection count: requests in flight beyond maxConnections get 503 at once.
//
// Deno.serve has none of these (no timeouts, no count, and it reads an unread body to its
// end): it runs behind the connection gate of deno-gate.ts, which holds every one of them.
//
// Invariants: an answer that closes its connection stays open lingerMs after its last byte,
// so the client reads it before the close (a socket closed with unread bytes sends a reset
// that may discard them); on Bun the request body of such an answer is never cancelled (Bun
// would read and discard the rest at line rate; left unread, it stops reading); on Deno it is,
// once the gate has stopped reading the client (Deno then sees the request end and closes).

import { createHttpHandler, type HttpHandler } from "../http-server/index.js";
import { refusalBody } from "../http/status.js";
import { resolveLimits, type HttpLimits } from "../http/server-rules.js";
import type { HttpServerOptions } from "../http-server/options.js";
import type { Server } from "../peer/server/server.js";
import { webTimers } from "./web/runtime.js";
import { ConnectionGate, type DenoNet } from "./deno-gate.js";

/** How long an answer that closes its connection stays open after its last byte. */
export const LINGER_MS = 250;

export interface RuntimeServer {
  /** The URL of the MCP endpoint. */
  readonly url: string;
  readonly port: number;
  readonly handler: HttpHandler;
  /** Connections open now where the runtime lets them be counted (Deno, through the gate); undefined on Bun. */
  connections(): number | undefined;
  /** The port of the Deno.serve behind the gate (on 127.0.0.1; it refuses what does not come through the gate); undefined on Bun. */
  readonly innerPort: number | undefined;
  close(): Promise<void>;
}

interface BunServer {
  readonly port: number;
  readonly pendingRequests: number;
  timeout(request: Request, seconds: number): void;
  stop(closeActiveConnections?: boolean): void;
}

export interface BunGlobal {
  serve(options: {
    hostname: string;
    port: number;
    idleTimeout: number;
    maxRequestBodySize: number;
    fetch(request: Request, server: BunServer): Promise<Response>;
  }): BunServer;
}

export interface DenoGlobal extends DenoNet {
  serve(
    options: { hostname: string; port: number; onListen?(address: { port: number }): void },
    handler: (request: Request, info: { remoteAddr: { port?: number }; completed: Promise<void> }) => Promise<Response>,
  ): { shutdown(): Promise<void> };
}

/** Bun's idle timeout is whole seconds, 1 to 255. */
function bunSeconds(ms: number): number {
  return Math.min(255, Math.max(1, Math.ceil(ms / 1000)));
}

function urlOf(host: string, port: number, path: string | undefined): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}${path ?? "/mcp"}`;
}

function closesConnection(response: Response): boolean {
  return (response.headers.get("connection") ?? "").toLowerCase() === "close";
}

function isStream(response: Response): boolean {
  return (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
}

function headersOf(response: Response): [string, string][] {
  const headers: [string, string][] = [];
  response.headers.forEach((value, name) => headers.push([name, value]));
  return headers;
}

/** A whole answer whose body stays open `ms` after its last byte (Bun closes the connection once it ends). */
async function lingering(response: Response, ms: number): Promise<Response> {
  const text = await response.text();
  let timer: unknown;
  const body = new ReadableStream({
    start(controller) {
      if (text !== "") controller.enqueue(new TextEncoder().encode(text));
      timer = webTimers.setTimeout(() => {
        try {
          controller.close();
        } catch {
          // The client went away first.
        }
      }, ms);
    },
    cancel() {
      webTimers.clearTimeout(timer);
    },
  });
  return new Response(body, { status: response.status, headers: headersOf(response) });
}

/** A streamed answer that calls `onEnd` just before its last byte goes (not when the client cancels it). */
function onStreamEnd(response: Response, onEnd: () => void): Response {
  const source = (response.body as ReadableStream).getReader();
  const body = new ReadableStream({
    async pull(controller) {
      const { done, value } = await source.read();
      if (!done) {
        if (value !== undefined) controller.enqueue(value);
        return;
      }
      onEnd();
      controller.close();
    },
    cancel(reason) {
      source.cancel(reason).catch(() => undefined);
    },
  });
  return new Response(body, { status: response.status, headers: headersOf(response) });
}

function busy(limits: HttpLimits, inFlight: number): Response {
  const text = JSON.stringify(
    refusalBody("busy", `LIM-11: expected at most ${limits.maxConnections} requests in flight; ${inFlight} are, with this one`),
  );
  return new Response(text, {
    status: 503,
    headers: { "Content-Type": "application/json", "Retry-After": "1", Connection: "close" },
  });
}

/** Serves `server` through the fetch handler on Bun.serve; resolves once listening. */
export async function serveOnBun(bun: BunGlobal, server: Server, options: HttpServerOptions = {}): Promise<RuntimeServer> {
  const handler = createHttpHandler(server, options);
  const limits = resolveLimits(options);
  const idle = bunSeconds(limits.keepAliveTimeoutMs);
  const host = options.host ?? "127.0.0.1";
  const served = bun.serve({
    hostname: host,
    port: options.port ?? 0,
    idleTimeout: idle,
    // The handler decides every body (413 with its JSON-RPC error); Bun's own cap would cut first, unanswered.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    fetch: async (request, bunServer) => {
      // The closest bound to a connection cap Bun allows: requests in flight (this one counted).
      const inFlight = bunServer.pendingRequests;
      if (inFlight > limits.maxConnections) return lingering(busy(limits, inFlight), LINGER_MS);
      bunServer.timeout(request, 0);
      const response = await handler.fetch(request);
      if (isStream(response) && response.body !== null) return onStreamEnd(response, () => bunServer.timeout(request, idle));
      if (closesConnection(response)) return lingering(response, LINGER_MS);
      bunServer.timeout(request, idle);
      return response;
    },
  });
  return {
    url: urlOf(host, served.port, options.path),
    port: served.port,
    handler,
    connections: () => undefined,
    innerPort: undefined,
    close: async () => {
      handler.close();
      served.stop(true);
    },
  };
}

/** Serves `server` through the fetch handler on Deno.serve behind the connection gate; resolves once listening. */
export async function serveOnDeno(deno: DenoGlobal, server: Server, options: HttpServerOptions = {}): Promise<RuntimeServer> {
  const handler = createHttpHandler(server, options);
  const limits = resolveLimits(options);
  let gate!: ConnectionGate;
  let listening!: (port: number) => void;
  const bound = new Promise<number>((resolve) => {
    listening = resolve;
  });
  const inner = deno.serve({ hostname: "127.0.0.1", port: 0, onListen: (address) => listening(address.port) }, async (request, info) => {
    const connection = gate.connectionOf(info.remoteAddr.port);
    if (connection === undefined) {
      // Not through the gate (another local process found the inner port): no limits hold there, so no service.
      const from = `port ${String(info.remoteAddr.port)}, not one of the gate's`;
      return new Response(
        JSON.stringify(refusalBody("forbidden", `LIM-11: expected a connection through the gate; this one came from ${from}`)),
        {
          status: 403,
          headers: { "Content-Type": "application/json", Connection: "close" },
        },
      );
    }
    connection.requestStarted();
    const ended = (): void => connection.requestEnded();
    info.completed.then(ended, ended);
    const response = await handler.fetch(request);
    if (closesConnection(response)) {
      // The gate reads nothing more from the client; what is already on its way is discarded, so Deno sees the end.
      request.body?.cancel().catch(() => undefined);
      connection.closeAfterAnswer(info.completed);
    }
    return response;
  });
  const innerPort = await bound;
  gate = new ConnectionGate(
    deno,
    {
      maxConnections: limits.maxConnections,
      headersTimeoutMs: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      keepAliveTimeoutMs: limits.keepAliveTimeoutMs,
      lingerMs: LINGER_MS,
    },
    innerPort,
  );
  const host = options.host ?? "127.0.0.1";
  const port = gate.listen(host, options.port ?? 0);
  return {
    url: urlOf(host, port, options.path),
    port,
    handler,
    connections: () => gate.size,
    innerPort,
    close: async () => {
      handler.close();
      gate.close();
      await inner.shutdown();
    },
  };
}
