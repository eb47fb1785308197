// Streamable HTTP server host on node:http (DIGEST.md e.2): one endpoint with POST, GET and
// DELETE, sessions minted here, answers as JSON or SSE, resumable SSE streams. When the
// Server speaks 2026-07-28 (g.8) the same endpoint also serves that stateless revision: a
// POST without Mcp-Session-Id whose request carries the per-request `_meta` envelope gets a
// ServerSession of its own that lives exactly as long as that request (dual era, option
// `eras`).
//
// Invariants:
// - secure by default: bound to 127.0.0.1; Host (and Origin, when sent) must name a
//   localhost form, else 403; an empty allow-list refuses everything; bodies over the limit
//   get 413 before any parsing;
// - every message goes to exactly one stream: a response to the POST that carried its
//   request; a message related to an inbound request to that request's stream while it is
//   open; anything else to the session's GET stream (or a bounded backlog until one opens);
// - event ids are "<stream>:<seq>", unique per session; a resumed stream (GET with
//   Last-Event-ID) replays only its own events (2026-07-28 streams carry no ids);
// - session era: a client that disconnects mid-request does not cancel it: its
//   events are kept for resumption; only notifications/cancelled cancels (and ends the
//   stream that awaited the cancelled request, which gets no answer);
// - what a session needs to carry on elsewhere (Engine.snapshot) goes to a SessionStore after
//   every POST, so a shared store can serve several processes;
// - 2026-07-28 requests keep no state here beyond their own POST: headers are checked against
//   the body (MCP-Protocol-Version, Mcp-Method, Mcp-Name, and for tools/call the Mcp-Param-*
//   of the arguments the tool's inputSchema marks with x-mcp-header; `=?base64?…?=` decoded)
//   before any handler runs; a JSON error answer travels with the status httpStatusFor gives; no
//   Mcp-Session-Id is minted or echoed; closing the response stream before the answer IS
//   cancellation (unlike X-09): the request's handler is aborted and nothing more is sent;
//   a subscriptions/listen stream stays open until the client closes it (or the host
//   shuts down, which ends it with its final result).

import { randomUUID } from "node:crypto";
import { LegacySseEndpoint, type LegacySseOptions } from "./http-legacy.js";
import { createServer, type Server as NodeHttpServer } from "node:http";
import type { NodeIncomingMessage as IncomingMessage, NodeServerResponse as ServerResponse } from "./node-shapes.js";
import { performance } from "node:perf_hooks";
import type { EngineSnapshot, Outbound } from "../engine.js";
import { isJsonObject, isRequestId, type JsonObject, type JsonRpcMessage, type RequestId } from "../envelope.js";
import { ErrorCode } from "../errors.js";
import { hasModernEnvelope, httpHeaderProblem, httpStatusFor, paramHeaderProblem, readRequestEnvelope, type ModernRefusal } from "../modern.js";
import type { PeerHost } from "../peer/driver.js";
import type { Server, ServerSession } from "../peer/server.js";
import { SESSION_VERSIONS, VERSION_PROFILES, type ModernVersion } from "../versions.js";

/** Where sessions are kept between requests. The in-memory default suits one process; a shared one (async) suits several. */
export interface SessionStore {
  get(id: string): Promise<EngineSnapshot | undefined>;
  put(id: string, snapshot: EngineSnapshot): Promise<void>;
  delete(id: string): Promise<void>;
}

export class MemorySessionStore implements SessionStore {
  private readonly snapshots = new Map<string, EngineSnapshot>();

  get size(): number {
    return this.snapshots.size;
  }

  async get(id: string): Promise<EngineSnapshot | undefined> {
    return this.snapshots.get(id);
  }

  async put(id: string, snapshot: EngineSnapshot): Promise<void> {
    this.snapshots.set(id, snapshot);
  }

  async delete(id: string): Promise<void> {
    this.snapshots.delete(id);
  }
}

export interface HttpServerOptions {
  /** Interface to bind. Default 127.0.0.1. */
  host?: string;
  /** Port; 0 picks a free one. Default 0. */
  port?: number;
  /** The MCP endpoint path. Default "/mcp". */
  path?: string;
  /** Hostnames accepted in Host and Origin (any port). Default: localhost, 127.0.0.1, [::1]. Empty: refuse everything. */
  allowedHosts?: readonly string[];
  /** Largest accepted request body. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Default: a MemorySessionStore. */
  store?: SessionStore;
  /** Session ids: unguessable, visible ASCII. Default randomUUID. */
  sessionId?: () => string;
  /** "auto": JSON unless the handler sends something before its result; "sse": always SSE. Default "auto". */
  responseMode?: "auto" | "sse";
  /** The retry advice (ms) sent with the priming event of each SSE stream (2025-11-25). Default 1000. */
  sseRetryMs?: number;
  /** Offer the GET stream. Default true; false answers GET with 405. */
  getStream?: boolean;
  /** Close sessions idle this long (ms). Default 30 minutes. */
  sessionIdleMs?: number;
  /** Events kept per stream for resumption. Default 1000. */
  maxEventsPerStream?: number;
  /** Errors the host cannot report to a peer (a failing store, a broken socket). Default: stderr. */
  onError?: (error: unknown) => void;
  /**
   * Which eras this endpoint serves when the Server speaks 2026-07-28. "both" (default): the
   * session era (initialize, Mcp-Session-Id) and stateless 2026-07-28 requests side by side;
   * "modern": 2026-07-28 only (GET and DELETE answer 405, Mcp-Session-Id is ignored,
   * initialize is refused with -32022); "session": as if the Server spoke no 2026-07-28.
   * A Server without 2026-07-28 is served in the session era whatever this says, except
   * "modern", which it cannot serve (RangeError).
   */
  eras?: "both" | "session" | "modern";
  /** SSE comment keep-alives on open 2026-07-28 streams (subscriptions/listen), in ms; 0: none. Default 15000. */
  keepAliveMs?: number;
  /** Also offer the deprecated HTTP+SSE transport of 2024-11-05 (e.3) at these paths (true: /sse and /messages). Default off. */
  legacySse?: boolean | LegacySseOptions;
}

interface Resolved {
  path: string;
  allowedHosts: ReadonlySet<string>;
  maxBodyBytes: number;
  store: SessionStore;
  sessionId: () => string;
  responseMode: "auto" | "sse";
  sseRetryMs: number;
  getStream: boolean;
  sessionIdleMs: number;
  maxEventsPerStream: number;
  onError: (error: unknown) => void;
  eras: "both" | "session" | "modern";
  keepAliveMs: number;
}

interface StoredEvent {
  readonly seq: number;
  readonly text: string;
}

/** One SSE-capable reply channel: a POST's answer, or the session's GET stream. */
class Stream {
  readonly events: StoredEvent[] = [];
  res: ServerResponse | undefined;
  /** "pending": nothing written yet (a POST may still answer as JSON). */
  mode: "pending" | "sse" | "done" = "pending";
  private seq = 0;

  constructor(
    readonly id: string,
    readonly owner: HttpSession,
    res: ServerResponse,
    /** Request ids this POST still owes an answer to (empty for the GET stream). */
    readonly awaiting: Set<RequestId>,
    /** Whether this POST carried a batch (its answer is one array). */
    readonly batch: boolean,
    /** The status of a JSON answer: 200 for a POST with requests; 400 for a POST of notifications the engine refused. */
    private readonly jsonStatus: number,
  ) {
    this.res = res;
    res.on("close", () => {
      // a disconnect is not a cancellation; events keep accumulating for resumption.
      if (this.res === res) this.res = undefined;
    });
  }

  get open(): boolean {
    return this.mode !== "done";
  }

  deliver(message: JsonRpcMessage | readonly JsonRpcMessage[]): void {
    if (this.mode === "done") return;
    const settles = this.settles(message);
    if (this.mode === "pending" && settles && this.awaiting.size === 0 && this.owner.http.options.responseMode === "auto" && this.res !== undefined) {
      const body = JSON.stringify(message);
      this.res.writeHead(this.jsonStatus, { "Content-Type": "application/json", "Content-Length": byteLength(body) });
      this.res.end(body);
      this.mode = "done";
      this.owner.forget(this);
      return;
    }
    if (this.mode === "pending") this.startSse();
    const seq = ++this.seq;
    const text = `id: ${this.id}:${seq}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`;
    this.events.push({ seq, text });
    if (this.events.length > this.owner.http.options.maxEventsPerStream) this.events.shift();
    this.res?.write(text);
    if (settles && this.awaiting.size === 0) this.finish();
  }

  /** Replays events after `after` to a resuming client and continues on its response. */
  resume(res: ServerResponse, after: number): void {
    // One reader per stream: a previous connection still attached is ended, not fed twice.
    if (this.res !== undefined && this.res !== res) this.res.end();
    this.res = res;
    res.on("close", () => {
      if (this.res === res) this.res = undefined;
    });
    res.writeHead(200, SSE_HEADERS);
    // Send the headers now: with nothing to replay the client would otherwise wait for them until the next event.
    res.flushHeaders();
    for (const event of this.events) if (event.seq > after) res.write(event.text);
    if (this.mode === "done") res.end();
    else if (this.mode === "pending") this.mode = "sse";
  }

  startSse(): void {
    this.mode = "sse";
    const res = this.res;
    if (res === undefined) return;
    res.writeHead(200, SSE_HEADERS);
    const version = this.owner.session.engine.negotiatedVersion;
    // 2025-11-25: prime the stream with an event id (empty data) and the retry advice, so a client can resume it.
    if (version !== undefined && VERSION_PROFILES[version].index >= VERSION_PROFILES["2025-11-25"].index) {
      res.write(`id: ${this.id}:0\nretry: ${this.owner.http.options.sseRetryMs}\ndata: \n\n`);
    } else {
      // No priming event: send the headers now, not with the first event (which may be long in coming).
      res.flushHeaders();
    }
  }

  finish(): void {
    this.mode = "done";
    this.res?.end();
    this.owner.forget(this);
  }

  /** Whether `message` is (the last part of) this stream's answer; the request ids it answers stop routing here. */
  private settles(message: JsonRpcMessage | readonly JsonRpcMessage[]): boolean {
    if (Array.isArray(message)) {
      // The engine answers a batch with one array, once every member is answered or cancelled.
      if (!this.batch) return false;
      this.owner.forget(this);
      this.awaiting.clear();
      return true;
    }
    const m = message as unknown as JsonObject;
    if (m.method !== undefined || (m.result === undefined && m.error === undefined)) return false;
    const id = m.id as RequestId | null | undefined;
    if (id !== undefined && id !== null && this.awaiting.delete(id)) {
      // Forget the owner entry too: the id may be reused by a later request on another stream.
      if (this.owner.owners.get(id) === this) this.owner.owners.delete(id);
      return true;
    }
    return this.awaiting.size === 0;
  }
}

const SSE_HEADERS = { "Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-transform", Connection: "keep-alive" };

function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** One MCP session: its ServerSession, its streams and how messages are routed to them. */
class HttpSession {
  session!: ServerSession;
  standalone: Stream | undefined;
  /** Streams kept for resumption, oldest first. */
  readonly streams = new Map<string, Stream>();
  /** The POST stream that owes the answer to each inbound request id. */
  readonly owners = new Map<RequestId, Stream>();
  /** The POST being processed right now: synchronous answers go to it. */
  current: Stream | undefined;
  /** Unrelated messages waiting for a GET stream. */
  readonly backlog: string[] = [];
  private nextStream = 0;
  private timer: NodeTimer | undefined;
  private idleTimer: NodeTimer | undefined;
  closed = false;

  constructor(
    readonly id: string,
    readonly http: HttpHost,
  ) {}

  get host(): PeerHost {
    return {
      send: (outbound) => this.route(outbound),
      now: () => performance.now(),
      armTimer: (at) => {
        if (this.timer !== undefined) clearTimeout(this.timer);
        this.timer = at === undefined ? undefined : setTimeout(() => this.session.onTimer(), Math.max(0, Math.ceil(at - performance.now())));
      },
    };
  }

  newStream(res: ServerResponse, awaiting: Set<RequestId>, batch: boolean, jsonStatus = 200): Stream {
    const stream = new Stream(`s${(this.nextStream++).toString(36)}`, this, res, awaiting, batch, jsonStatus);
    this.streams.set(stream.id, stream);
    // Keep a bounded number of finished streams around for late resumption.
    if (this.streams.size > 100) {
      for (const [id, s] of this.streams) {
        if (this.streams.size <= 100) break;
        if (!s.open) this.streams.delete(id);
      }
    }
    return stream;
  }

  forget(stream: Stream): void {
    for (const id of stream.awaiting) if (this.owners.get(id) === stream) this.owners.delete(id);
  }

  touch(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.http.endSession(this), this.http.options.sessionIdleMs);
    this.idleTimer.unref();
  }

  route(outbound: Outbound): void {
    const message = outbound.message;
    if (Array.isArray(message)) {
      // A batch answer goes to the POST that owes one of its ids (not any open batch: several may be pending).
      let target: Stream | undefined;
      for (const item of message) {
        const id = (item as unknown as JsonObject).id as RequestId | null | undefined;
        const owner = id === undefined || id === null ? undefined : this.owners.get(id);
        if (owner?.batch === true) {
          target = owner;
          break;
        }
      }
      // Only refusals without ids (e.g. every member invalid): the batch being processed.
      target ??= this.current?.batch === true ? this.current : undefined;
      target?.deliver(message);
      return;
    }
    const m = message as unknown as JsonObject;
    if (m.method === undefined) {
      const id = m.id as RequestId | null | undefined;
      const current = this.current;
      // To the POST being processed: an answer to one of its requests, or (when it carried no request) an answer no other stream is owed.
      if (current !== undefined && (id === undefined || id === null || current.awaiting.has(id) || (current.awaiting.size === 0 && !this.owners.has(id)))) {
        current.deliver(message);
        return;
      }
      const owner = id === undefined || id === null ? undefined : this.owners.get(id);
      if (owner !== undefined) {
        this.owners.delete(id as RequestId);
        owner.deliver(message);
      }
      return;
    }
    const related = outbound.relatedRequestId === undefined ? undefined : this.owners.get(outbound.relatedRequestId);
    if (related !== undefined && related.open) {
      related.deliver(message);
      return;
    }
    if (this.standalone !== undefined && this.standalone.open) {
      this.standalone.deliver(message);
      return;
    }
    this.backlog.push(JSON.stringify(message));
    if (this.backlog.length > 1000) this.backlog.shift();
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    for (const stream of this.streams.values()) if (stream.open) stream.finish();
    this.streams.clear();
    this.owners.clear();
    if (!this.session.engine.isClosed) this.session.close();
  }
}

/**
 * One 2026-07-28 request (g.8): a ServerSession of its own, fed this single request, whose
 * every message (progress, log messages, the listen acknowledgement and change
 * notifications, the answer) goes to this POST's response. It ends with the answer, or when
 * the client closes the response first (cancellation), or when the host shuts down.
 */
class ModernExchange {
  session!: ServerSession;
  /** "pending": nothing written yet (the answer may still go as JSON). */
  mode: "pending" | "sse" | "done" = "pending";
  private timer: NodeTimer | undefined;
  private keepAlive: NodeTimer | undefined;

  constructor(
    readonly http: HttpHost,
    readonly res: ServerResponse,
    readonly id: RequestId,
  ) {
    res.on("close", () => {
      // g.8 / X-09 reversed: in 2026-07-28 a client that closes the stream before the answer cancels the request.
      if (this.mode !== "done") this.cancel();
    });
  }

  get host(): PeerHost {
    return {
      send: (outbound) => this.deliver(outbound.message),
      now: () => performance.now(),
      armTimer: (at) => {
        if (this.timer !== undefined) clearTimeout(this.timer);
        this.timer = at === undefined ? undefined : setTimeout(() => this.session.onTimer(), Math.max(0, Math.ceil(at - performance.now())));
      },
    };
  }

  deliver(message: JsonRpcMessage | readonly JsonRpcMessage[]): void {
    if (this.mode === "done") return;
    const m = message as unknown as JsonObject;
    // One request per session: any response is its answer.
    const settles = !Array.isArray(message) && m.method === undefined;
    const error = settles && isJsonObject(m.error) && typeof m.error.code === "number" ? { code: m.error.code, data: m.error.data } : undefined;
    const status = error === undefined ? 200 : httpStatusFor(error);
    // An error with its own HTTP status (400, 404) goes as JSON even in "sse" mode, while nothing is written yet.
    if (this.mode === "pending" && settles && (this.http.options.responseMode === "auto" || status !== 200)) {
      const body = JSON.stringify(message);
      this.res.writeHead(status, { "Content-Type": "application/json", "Content-Length": byteLength(body) });
      this.res.end(body);
      this.end();
      return;
    }
    if (this.mode === "pending") this.startSse();
    this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    if (settles) {
      this.res.end();
      this.end();
    }
  }

  startSse(): void {
    this.mode = "sse";
    this.res.writeHead(200, MODERN_SSE_HEADERS);
    // No priming event and no event ids: 2026-07-28 streams are not resumable. Send the headers now.
    this.res.flushHeaders();
    const every = this.http.options.keepAliveMs;
    if (every > 0) {
      this.keepAlive = setInterval(() => {
        if (this.mode === "sse") this.res.write(": keep-alive\n\n");
      }, every);
      this.keepAlive.unref();
    }
  }

  /** The client closed the response before the answer: the handler is aborted, the session closed. */
  private cancel(): void {
    const engine = this.session.engine;
    this.mode = "done";
    if (!engine.isClosed) this.session.receiveMessage({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: this.id, reason: "the client closed the response stream" } });
    this.end();
  }

  /** Host shutdown: a listen stream gets its final result (g.5); anything else in flight is cut off. */
  shutdown(): void {
    if (this.mode === "done") return;
    const engine = this.session.engine;
    if (!engine.isClosed) {
      engine.endSubscriptions();
      this.session.driver.pump();
    }
    // A listen stream has just ended with its result; anything else is cut off.
    if (!this.open) return;
    if (this.mode === "pending") {
      const body = jsonRpcError(ErrorCode.InternalError, "The server is shutting down");
      this.res.writeHead(503, { "Content-Type": "application/json", "Content-Length": byteLength(body) });
      this.res.end(body);
    } else this.res.end();
    this.end();
  }

  get open(): boolean {
    return this.mode !== "done";
  }

  private end(): void {
    this.mode = "done";
    this.http.exchanges.delete(this);
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.keepAlive !== undefined) clearInterval(this.keepAlive);
    this.timer = undefined;
    this.keepAlive = undefined;
    if (!this.session.engine.isClosed) this.session.close();
  }
}

const MODERN_SSE_HEADERS = { "Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-transform", Connection: "keep-alive", "X-Accel-Buffering": "no" };

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The hostname of a Host header or an Origin URL, lower-cased, without port; undefined if malformed. */
export function hostnameOf(value: string, isOrigin: boolean): string | undefined {
  let rest = value.trim().toLowerCase();
  if (isOrigin) {
    const scheme = rest.indexOf("://");
    if (scheme <= 0) return undefined;
    rest = rest.slice(scheme + 3);
    const slash = rest.indexOf("/");
    if (slash >= 0) rest = rest.slice(0, slash);
  }
  if (rest.startsWith("[")) {
    const close = rest.indexOf("]");
    if (close < 0) return undefined;
    const after = rest.slice(close + 1);
    if (after !== "" && !/^:\d+$/.test(after)) return undefined;
    return rest.slice(0, close + 1);
  }
  const colon = rest.indexOf(":");
  const name = colon >= 0 ? rest.slice(0, colon) : rest;
  if (colon >= 0 && !/^\d+$/.test(rest.slice(colon + 1))) return undefined;
  return name === "" ? undefined : name;
}

function jsonRpcError(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", error: { code, message } });
}

/** The request handler and session table behind serveHttp; usable with any node:http server. */
export class HttpHost {
  readonly options: Resolved;
  readonly sessions = new Map<string, HttpSession>();
  /** 2026-07-28 requests in flight (open listen streams included), each with its own ServerSession. */
  readonly exchanges = new Set<ModernExchange>();
  /** The 2026-07-28 versions served (empty: session era only). */
  readonly modernVersions: readonly ModernVersion[];
  /** The deprecated HTTP+SSE endpoint, when offered. */
  readonly legacy: LegacySseEndpoint | undefined;

  constructor(
    readonly server: Server,
    options: HttpServerOptions = {},
  ) {
    const eras = options.eras ?? "both";
    const modern = (server.options.versions ?? []).filter((v): v is ModernVersion => VERSION_PROFILES[v].era === "modern");
    if (eras === "modern" && modern.length === 0) throw new RangeError('eras "modern" needs a Server whose versions include 2026-07-28');
    this.modernVersions = eras === "session" ? [] : modern;
    this.legacy = options.legacySse === undefined || options.legacySse === false ? undefined : new LegacySseEndpoint(server, options.legacySse === true ? {} : options.legacySse);
    this.options = {
      path: options.path ?? "/mcp",
      allowedHosts: new Set((options.allowedHosts ?? ["localhost", "127.0.0.1", "[::1]"]).map((h) => h.toLowerCase())),
      maxBodyBytes: options.maxBodyBytes ?? 4 * 1024 * 1024,
      store: options.store ?? new MemorySessionStore(),
      sessionId: options.sessionId ?? randomUUID,
      responseMode: options.responseMode ?? "auto",
      sseRetryMs: options.sseRetryMs ?? 1000,
      getStream: options.getStream ?? true,
      sessionIdleMs: options.sessionIdleMs ?? 30 * 60 * 1000,
      maxEventsPerStream: options.maxEventsPerStream ?? 1000,
      onError: options.onError ?? ((error) => process.stderr.write(`mcp-engine http: ${error instanceof Error ? error.message : String(error)}\n`)),
      eras,
      keepAliveMs: options.keepAliveMs ?? 15_000,
    };
  }

  /** The node:http request handler. */
  handle = (req: IncomingMessage, res: ServerResponse): void => {
    this.dispatch(req, res).catch((error: unknown) => {
      this.options.onError(error);
      if (!res.headersSent) this.fail(res, 500, ErrorCode.InternalError, "Internal error");
      else res.end();
    });
  };

  /** Ends one session: its streams close, its engine closes, the store forgets it. */
  endSession(session: HttpSession): void {
    this.sessions.delete(session.id);
    session.end();
    this.options.store.delete(session.id).catch(this.options.onError);
  }

  /** Ends every session and every 2026-07-28 request in flight (server shutdown); listen streams get their final result. */
  closeAll(): void {
    for (const session of [...this.sessions.values()]) this.endSession(session);
    for (const exchange of [...this.exchanges]) exchange.shutdown();
    this.legacy?.closeAll();
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? "/";
    const path = url.split("?")[0];
    if (!this.allowed(req)) {
      this.fail(res, 403, ErrorCode.InvalidRequest, "Forbidden: Host or Origin not allowed");
      req.resume();
      return;
    }
    if (this.legacy !== undefined && path !== undefined && this.legacy.owns(path)) return this.legacyRequest(this.legacy, req, res, path);
    if (path !== this.options.path) {
      this.fail(res, 404, ErrorCode.InvalidRequest, "Not found");
      req.resume();
      return;
    }
    const modernOnly = this.options.eras === "modern";
    switch (req.method) {
      case "POST":
        return this.post(req, res);
      case "GET":
      case "DELETE":
        if (modernOnly) {
          // g.8: a 2026-07-28-only endpoint has no GET stream and no sessions to delete.
          res.setHeader("Allow", "POST");
          this.fail(res, 405, ErrorCode.InvalidRequest, "Method not allowed: this endpoint serves 2026-07-28 only (POST)");
          req.resume();
          return;
        }
        return req.method === "GET" ? this.get(req, res) : this.remove(req, res);
      default:
        res.setHeader("Allow", modernOnly ? "POST" : "GET, POST, DELETE");
        this.fail(res, 405, ErrorCode.InvalidRequest, "Method not allowed");
        req.resume();
    }
  }

  /** e.3: GET on the SSE path opens a session; POST on the message path feeds it (202). */
  private async legacyRequest(legacy: LegacySseEndpoint, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (path === legacy.ssePath && req.method === "GET") {
      req.resume();
      legacy.open(res);
      return;
    }
    if (path === legacy.messagePath && req.method === "POST") {
      const session = legacy.find(req.url ?? "");
      if (session === undefined) {
        req.resume();
        this.fail(res, 404, ErrorCode.InvalidRequest, "Session not found");
        return;
      }
      const text = await this.readBody(req, res);
      if (text === undefined) return;
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        this.fail(res, 400, ErrorCode.ParseError, "Parse error");
        return;
      }
      session.receiveMessage(body);
      res.writeHead(202, { "Content-Length": 0 });
      res.end();
      return;
    }
    req.resume();
    res.setHeader("Allow", path === legacy.ssePath ? "GET" : "POST");
    this.fail(res, 405, ErrorCode.InvalidRequest, "Method not allowed");
  }

  private allowed(req: IncomingMessage): boolean {
    const host = header(req, "host");
    const hostName = host === undefined ? undefined : hostnameOf(host, false);
    if (hostName === undefined || !this.options.allowedHosts.has(hostName)) return false;
    const origin = header(req, "origin");
    if (origin === undefined) return true;
    const originName = hostnameOf(origin, true);
    return originName !== undefined && this.options.allowedHosts.has(originName);
  }

  private fail(res: ServerResponse, status: number, code: number, message: string): void {
    const body = jsonRpcError(code, message);
    res.writeHead(status, { "Content-Type": "application/json", "Content-Length": byteLength(body) });
    res.end(body);
  }

  /** L-07/e.2 20: a version header, when present, must name a version we speak. */
  private versionHeaderOk(req: IncomingMessage): boolean {
    const version = header(req, "mcp-protocol-version");
    return version === undefined || (SESSION_VERSIONS as readonly string[]).includes(version);
  }

  private async readBody(req: IncomingMessage, res: ServerResponse): Promise<string | undefined> {
    const limit = this.options.maxBodyBytes;
    const declared = Number(header(req, "content-length") ?? "0");
    if (declared > limit) {
      this.fail(res, 413, ErrorCode.InvalidRequest, `Request body over ${limit} bytes`);
      req.resume();
      return undefined;
    }
    return new Promise<string | undefined>((resolve) => {
      const chunks: Uint8Array[] = [];
      let size = 0;
      let refused = false;
      req.on("data", (chunk) => {
        if (refused) return;
        size += chunk.length;
        if (size > limit) {
          refused = true;
          chunks.length = 0;
          this.fail(res, 413, ErrorCode.InvalidRequest, `Request body over ${limit} bytes`);
          resolve(undefined);
          return;
        }
        chunks.push(chunk);
      });
      req.on("end", () => {
        if (refused) return;
        const all = new Uint8Array(size);
        let offset = 0;
        for (const c of chunks) {
          all.set(c, offset);
          offset += c.length;
        }
        try {
          resolve(new TextDecoder("utf-8", { fatal: true }).decode(all));
        } catch {
          this.fail(res, 400, ErrorCode.ParseError, "Body is not UTF-8");
          resolve(undefined);
        }
      });
      req.on("error", () => resolve(undefined));
    });
  }

  private async post(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const accept = header(req, "accept") ?? "";
    if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
      this.fail(res, 406, ErrorCode.InvalidRequest, "Accept must list application/json and text/event-stream");
      req.resume();
      return;
    }
    const contentType = header(req, "content-type") ?? "";
    if (!contentType.toLowerCase().startsWith("application/json")) {
      this.fail(res, 415, ErrorCode.InvalidRequest, "Content-Type must be application/json");
      req.resume();
      return;
    }
    const sessionId = header(req, "mcp-session-id");
    // Session-era traffic (a session id, or a Server without 2026-07-28) goes the way it always went.
    if (this.modernVersions.length === 0 || (sessionId !== undefined && this.options.eras !== "modern")) return this.postSession(req, res, undefined);
    // No session id: the body says which era this is (g.11), so read it first.
    const body = await this.readJson(req, res);
    if (body === undefined) return;
    if (this.isModern(req, body.value)) return this.postModern(req, res, body.value as JsonObject);
    if (this.options.eras === "modern") return this.refuseSessionEra(res, body.value);
    return this.postSession(req, res, body);
  }

  /** The body parsed as JSON; undefined when it was refused (the answer is written). */
  private async readJson(req: IncomingMessage, res: ServerResponse): Promise<{ value: unknown } | undefined> {
    const text = await this.readBody(req, res);
    if (text === undefined) return undefined;
    try {
      return { value: JSON.parse(text) as unknown };
    } catch {
      this.fail(res, 400, ErrorCode.ParseError, "Parse error");
      return undefined;
    }
  }

  /**
   * g.11: a single message is 2026-07-28 traffic when its request carries the per-request
   * envelope (even initialize: under 2026-07-28 it is a removed method, 404 -32601), or when
   * MCP-Protocol-Version names a modern version and it is not initialize. On a modern-only
   * endpoint every single request but a session-era initialize is.
   */
  private isModern(req: IncomingMessage, body: unknown): boolean {
    if (!isJsonObject(body) || typeof body.method !== "string") return false;
    if (hasModernEnvelope(isJsonObject(body.params) ? body.params : undefined)) return this.modernVersions.length > 0;
    if (body.method === "initialize") return false;
    const version = header(req, "mcp-protocol-version");
    return this.options.eras === "modern" || (version !== undefined && (this.modernVersions as readonly string[]).includes(version));
  }

  /** A modern-only endpoint refuses session-era traffic: initialize names the versions served (g.12), anything else is not a 2026-07-28 message. */
  private refuseSessionEra(res: ServerResponse, body: unknown): void {
    if (isJsonObject(body) && body.method === "initialize") {
      const requested = isJsonObject(body.params) ? body.params.protocolVersion : undefined;
      const data = { supported: [...this.modernVersions], requested: typeof requested === "string" ? requested : null };
      this.answerError(res, 400, isRequestId(body.id) ? body.id : undefined, ErrorCode.UnsupportedProtocolVersion, "Unsupported protocol version", data);
      return;
    }
    const what = Array.isArray(body) ? "a batch" : isJsonObject(body) && body.method === undefined ? "a response" : "not a JSON-RPC request or notification";
    this.answerError(res, 400, undefined, ErrorCode.InvalidRequest, `Invalid request: ${what} (2026-07-28 takes one request or notification per POST)`, undefined);
  }

  private answerError(res: ServerResponse, status: number, id: RequestId | undefined, code: number, message: string, data: unknown): void {
    const error: JsonObject = data === undefined ? { code, message } : { code, message, data: data as JsonObject };
    const body = JSON.stringify(id === undefined ? { jsonrpc: "2.0", error } : { jsonrpc: "2.0", id, error });
    res.writeHead(status, { "Content-Type": "application/json", "Content-Length": byteLength(body) });
    res.end(body);
  }

  /**
   * One 2026-07-28 message (g.8): a notification is accepted (202; there is no session for it
   * to act on, and over HTTP a request is cancelled by closing its stream); a request is
   * checked (envelope present, headers equal to the body) and fed to a ServerSession of its
   * own, which checks the rest (version, capabilities, method) and answers on this POST.
   */
  private postModern(req: IncomingMessage, res: ServerResponse, message: JsonObject): void {
    const method = message.method as string;
    if (!("id" in message)) {
      res.writeHead(202, { "Content-Length": 0 });
      res.end();
      return;
    }
    const id = message.id;
    if (!isRequestId(id)) {
      this.answerError(res, 400, undefined, ErrorCode.InvalidRequest, "Invalid request: the id must be a string or an integer", undefined);
      return;
    }
    const params = isJsonObject(message.params) ? message.params : undefined;
    let refusal: ModernRefusal | undefined;
    if (!hasModernEnvelope(params)) {
      const read = readRequestEnvelope(params, this.modernVersions);
      refusal = "code" in read ? read : undefined;
    }
    const headers = { get: (name: string) => header(req, name) };
    refusal ??= httpHeaderProblem(headers, method, params);
    if (refusal === undefined && method === "tools/call" && typeof params?.name === "string") {
      // Mcp-Param-* follow the tool's own inputSchema; an unknown tool is left to the session (-32602).
      const tool = this.server.tools.get(params.name);
      if (tool !== undefined) refusal = paramHeaderProblem(headers, tool.definition.inputSchema, params.arguments);
    }
    if (refusal !== undefined) {
      this.answerError(res, refusal.httpStatus, id, refusal.code, refusal.message, refusal.data);
      return;
    }
    const exchange = new ModernExchange(this, res, id);
    this.exchanges.add(exchange);
    exchange.session = this.server.connect(exchange.host);
    exchange.session.receiveMessage(message);
    if (exchange.mode === "pending" && this.options.responseMode === "sse") exchange.startSse();
  }

  /** Session-era POST: `parsed` is the body when it was already read (a dual-era endpoint reads it to pick the era). */
  private async postSession(req: IncomingMessage, res: ServerResponse, parsed: { value: unknown } | undefined): Promise<void> {
    if (!this.versionHeaderOk(req)) {
      this.fail(res, 400, ErrorCode.InvalidRequest, `Unsupported MCP-Protocol-Version; supported: ${SESSION_VERSIONS.join(", ")}`);
      if (parsed === undefined) req.resume();
      return;
    }
    const read = parsed ?? (await this.readJson(req, res));
    if (read === undefined) return;
    const body = read.value;
    const items = Array.isArray(body) ? body : [body];
    const isInitialize = items.some((m) => typeof m === "object" && m !== null && (m as JsonObject).method === "initialize");
    let session: HttpSession | undefined;
    if (isInitialize) {
      if (Array.isArray(body)) {
        this.fail(res, 400, ErrorCode.InvalidRequest, "initialize must not be batched");
        return;
      }
      session = this.createSession(undefined);
      res.setHeader("Mcp-Session-Id", session.id);
    } else {
      session = await this.sessionOf(req, res);
      if (session === undefined) return;
      if (Array.isArray(body) && session.session.engine.negotiatedVersion !== "2025-03-26") {
        this.fail(res, 400, ErrorCode.InvalidRequest, "Batches are allowed only under 2025-03-26");
        return;
      }
    }
    session.touch();
    const requestIds = new Set<RequestId>();
    for (const m of items) {
      if (typeof m !== "object" || m === null) continue;
      const o = m as JsonObject;
      if (typeof o.method === "string" && (typeof o.id === "string" || typeof o.id === "number")) requestIds.add(o.id);
    }
    const stream = session.newStream(res, requestIds, Array.isArray(body) && requestIds.size > 0, requestIds.size === 0 ? 400 : 200);
    for (const id of requestIds) {
      // An id still owned by an open stream is a duplicate in flight: the engine refuses it on this stream.
      const prior = session.owners.get(id);
      if (prior === undefined || !prior.open) session.owners.set(id, stream);
    }
    session.current = stream;
    try {
      session.session.receiveMessage(body);
    } finally {
      session.current = undefined;
    }
    for (const m of items) this.endCancelled(session, stream, m);
    if (requestIds.size === 0) {
      // Notifications and responses only: 202 with no body, unless the engine refused something (then its error).
      if (stream.mode === "pending" && stream.events.length === 0 && !res.headersSent) {
        res.writeHead(202, { "Content-Length": 0 });
        res.end();
        stream.mode = "done";
      }
      session.streams.delete(stream.id);
    } else if (this.options.responseMode === "sse" && stream.mode === "pending") {
      stream.startSse();
    }
    if (session.session.engine.isClosed) this.endSession(session);
    else this.save(session);
  }

  /** a request the client cancelled gets no answer, so the stream that awaited it ends rather than stay open for good. */
  private endCancelled(session: HttpSession, current: Stream, m: unknown): void {
    if (typeof m !== "object" || m === null || (m as JsonObject).method !== "notifications/cancelled") return;
    const target = ((m as JsonObject).params as JsonObject | undefined)?.requestId;
    if (typeof target !== "string" && typeof target !== "number") return;
    const owner = session.owners.get(target);
    if (owner === undefined || owner === current || !owner.open) return;
    session.owners.delete(target);
    owner.awaiting.delete(target);
    if (owner.awaiting.size > 0) return;
    if (owner.mode === "pending") owner.startSse();
    owner.finish();
  }

  private createSession(snapshot: EngineSnapshot | undefined, id?: string): HttpSession {
    const session = new HttpSession(id ?? this.options.sessionId(), this);
    session.session = this.server.connect(session.host, snapshot);
    this.sessions.set(session.id, session);
    return session;
  }

  /** The session a request names (e.2 17, 18): 400 when it names none, 404 when it is unknown or ended (answered here; undefined then). */
  private async sessionOf(req: IncomingMessage, res: ServerResponse): Promise<HttpSession | undefined> {
    const sessionId = header(req, "mcp-session-id");
    if (sessionId === undefined) {
      this.fail(res, 400, ErrorCode.InvalidRequest, "Missing Mcp-Session-Id");
      return undefined;
    }
    const session = await this.findSession(sessionId);
    if (session === undefined) this.fail(res, 404, ErrorCode.InvalidRequest, "Session not found");
    return session;
  }

  private async findSession(id: string): Promise<HttpSession | undefined> {
    const local = this.sessions.get(id);
    if (local !== undefined) return local.closed ? undefined : local;
    // Another process may have created it: carry on from its snapshot.
    const snapshot = await this.options.store.get(id);
    if (snapshot === undefined) return undefined;
    return this.sessions.get(id) ?? this.createSession(snapshot, id);
  }

  private save(session: HttpSession): void {
    const engine = session.session.engine;
    if (engine.negotiatedVersion === undefined || engine.isClosed) return;
    this.options.store.put(session.id, engine.snapshot()).catch(this.options.onError);
  }

  private async get(req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.resume();
    if (!this.options.getStream) {
      res.setHeader("Allow", "POST, DELETE");
      this.fail(res, 405, ErrorCode.InvalidRequest, "This server offers no GET stream");
      return;
    }
    if (!(header(req, "accept") ?? "").includes("text/event-stream")) {
      this.fail(res, 406, ErrorCode.InvalidRequest, "Accept must list text/event-stream");
      return;
    }
    if (!this.versionHeaderOk(req)) {
      this.fail(res, 400, ErrorCode.InvalidRequest, "Unsupported MCP-Protocol-Version");
      return;
    }
    const session = await this.sessionOf(req, res);
    if (session === undefined) return;
    session.touch();
    const last = header(req, "last-event-id");
    if (last !== undefined) {
      const colon = last.lastIndexOf(":");
      const stream = colon > 0 ? session.streams.get(last.slice(0, colon)) : undefined;
      const seq = Number(last.slice(colon + 1));
      if (stream === undefined || !Number.isInteger(seq)) {
        this.fail(res, 404, ErrorCode.InvalidRequest, "Unknown Last-Event-ID");
        return;
      }
      stream.resume(res, seq);
      return;
    }
    if (session.standalone !== undefined && session.standalone.open && session.standalone.res !== undefined) {
      this.fail(res, 409, ErrorCode.InvalidRequest, "A GET stream is already open for this session");
      return;
    }
    const stream = session.standalone?.open === true ? session.standalone : session.newStream(res, new Set(), false);
    if (stream !== session.standalone) session.standalone = stream;
    if (stream.res !== res) stream.resume(res, Number.MAX_SAFE_INTEGER);
    else stream.startSse();
    for (const text of session.backlog.splice(0)) stream.deliver(JSON.parse(text) as JsonRpcMessage);
  }

  private async remove(req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.resume();
    const session = await this.sessionOf(req, res);
    if (session === undefined) return;
    this.endSession(session);
    res.writeHead(200, { "Content-Length": 0 });
    res.end();
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
  const http: NodeHttpServer = createServer(host.handle);
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
