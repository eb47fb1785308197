// The Streamable HTTP endpoint on node:http: a thin adapter between node:http and the portable
// endpoint of lib/http-server/ (which makes every decision), plus toNodeHandler for Express,
// Connect or Fastify-style middleware. Node-only concerns stay here: Node's clock and timers,
// socket limits (maxConnections, headers/request/keep-alive timeouts), one request per
// connection per event-loop turn, and closing a connection whose body will not be read.
//
// Invariants: bound to 127.0.0.1 unless told otherwise (RULES.md HTTP-08); no rule of the protocol is decided
// here (see lib/http/ and lib/http-server/); an exception in the endpoint is answered as
// the endpoint's internal error, never thrown into node:http.

import { randomUUID } from "node:crypto";
import { createServer, type Server as NodeHttpServer } from "node:http";
import type { NodeHttpServerLimits, NodeIncomingMessage as IncomingMessage, NodeServerResponse as ServerResponse } from "./node-shapes.js";
import { refuse } from "../http-server/channel.js";
import { HttpEndpoint } from "../http-server/endpoint.js";
import { LegacySseEndpoint as PortableLegacySseEndpoint, type LegacySseOptions } from "../http-server/legacy-sse.js";
import type { HttpReply } from "../http-server/channel.js";
import type { HttpHandler } from "../http-server/fetch.js";
import type { HttpServerOptions, ResolvedHttpOptions } from "../http-server/options.js";
import { socketTimeouts } from "../http/server-rules.js";
import type { Server } from "../peer/server/server.js";
import { nodeIncoming, nodeReply } from "./http-body.js";
import { TurnTaking } from "./http-wire.js";
import type { HttpTimers } from "../peer/shared/timers.js";
import { MESSAGE_WIDTH, untrustedText } from "../codec/terminal-text.js";
import { epochClock } from "./clock.js";

/** Node's clock and timers; a server's timers never hold the process open on their own. */
const serverTimers: HttpTimers = {
  now: epochClock,
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle),
};

/** The default onError: a client's request may end up in an error's message, so it is printed as untrusted text (CLI-01). */
const stderrReport = (error: unknown): void => {
  process.stderr.write(`mcp-engine http: ${untrustedText(error instanceof Error ? error.message : error, MESSAGE_WIDTH)}\n`);
};

/** The request handler and session table behind serveHttp; usable with any node:http server. */
export class HttpHost extends HttpEndpoint {
  declare readonly options: ResolvedHttpOptions;
  private readonly turns = new TurnTaking();

  constructor(server: Server, options: HttpServerOptions = {}) {
    super(server, options, options.timers ?? serverTimers, stderrReport);
  }

  /** The node:http request handler. */
  handle = (req: IncomingMessage, res: ServerResponse): void => {
    // One request per connection per event-loop turn: a client pipelining hundreds of requests cannot starve the others.
    this.turns.run((req.socket as NodeSocket | undefined) ?? req, () => serveNode(this, req, res));
  };

  /**
   * Applies the connection limits (maxConnections; headers, request and keep-alive timeouts)
   * to a node:http server of your own that uses `handle`. serveHttp does this itself, and
   * also sets how often expired sockets are looked for (only settable at creation).
   */
  limitConnections(http: NodeHttpServerLimits): void {
    const timeouts = socketTimeouts(this.options);
    http.maxConnections = this.options.maxConnections;
    http.headersTimeout = timeouts.headersTimeout;
    http.requestTimeout = timeouts.requestTimeout;
    http.keepAliveTimeout = timeouts.keepAliveTimeout;
  }
}

function serveNode(endpoint: HttpEndpoint, req: IncomingMessage, res: ServerResponse): void {
  const reply = nodeReply(res);
  const incoming = nodeIncoming(req, res, endpoint.options.maxBodyBytes);
  endpoint
    .serve(incoming, reply, () => webRequestOf(req))
    .catch((error: unknown) => {
      endpoint.options.onError(error);
      if (!res.headersSent) refuse(reply, "internal", "Internal error");
      else res.end();
    });
}

/** What the authenticate hook sees of a node:http request: a Request with its method, URL and headers (no body). */
function webRequestOf(req: IncomingMessage): Request {
  const headers: [string, string][] = [];
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.push([name, value]);
    else if (Array.isArray(value)) for (const v of value) headers.push([name, v]);
  }
  const host = typeof req.headers.host === "string" ? req.headers.host : "localhost";
  const original = (req as IncomingMessage & { originalUrl?: unknown }).originalUrl;
  return new Request(`http://${host}${typeof original === "string" ? original : (req.url ?? "/")}`, {
    method: req.method ?? "GET",
    headers,
  });
}

/**
 * A fetch handler (createHttpHandler) as Express/Connect-style middleware: `(req, res) => void`.
 * Mounted under any path (`app.use("/api/mcp", toNodeHandler(handler))`: what remains of the
 * path, "/", is the endpoint), and behind a body parser (express.json()): the parsed req.body
 * is used, the consumed stream never read again.
 */
export function toNodeHandler(handler: HttpHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => serveNode(handler.endpoint, req, res);
}

/** The deprecated HTTP+SSE endpoint on its own, on Node's timers; open() takes a node:http response too. */
export class LegacySseEndpoint extends PortableLegacySseEndpoint {
  constructor(server: Server, options: LegacySseOptions = {}) {
    super(server, options, serverTimers, randomUUID);
  }

  override open(res: HttpReply | ServerResponse, base = ""): void {
    super.open("writeHead" in res ? nodeReply(res) : res, base);
  }
}

export interface RunningHttpServer {
  readonly url: string;
  readonly port: number;
  readonly host: HttpHost;
  close(): Promise<void>;
}

/** Serves `server` over Streamable HTTP. Resolves once listening. */
export function serveHttp(server: Server, options: HttpServerOptions = {}): Promise<RunningHttpServer> {
  const host = new HttpHost(server, options);
  // LIM-11: sockets are bounded in number and in how long they may idle or dawdle.
  const http: NodeHttpServer = createServer(socketTimeouts(host.options), host.handle);
  host.limitConnections(http);
  const bind = options.host ?? "127.0.0.1";
  return new Promise<RunningHttpServer>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, bind, () => {
      const address = http.address();
      const port = typeof address === "object" && address !== null ? address.port : (options.port ?? 0);
      const shown = bind.includes(":") ? `[${bind}]` : bind;
      resolve({
        url: `http://${shown}:${port}${host.options.path}`,
        port,
        host,
        close: () =>
          new Promise<void>((done) => {
            host.closeAll();
            http.close(() => done());
            http.closeAllConnections();
          }),
      });
    });
  });
}
