// Streamable HTTP server host on node:http (RULES.md HTTP-01…HTTP-04): one endpoint with POST, GET and
// DELETE, sessions minted here, answers as JSON or SSE, resumable SSE streams. When the
// Server speaks 2026-07-28 (MOD-20) the same endpoint also serves that stateless revision: a
// POST without Mcp-Session-Id whose request carries the per-request `_meta` envelope gets a
// ServerSession of its own that lives exactly as long as that request (dual era, option
// `eras`). The session streams live in http-session.ts, the 2026-07-28 exchange in
// http-exchange.ts, the pure rules (limits, shapes, outcomes) in http-rules.ts.
//
// Invariants:
// - secure by default: bound to 127.0.0.1; Host (and Origin, when sent) must name a
//   localhost form, else 403; an empty allow-list refuses everything; bodies over the limit
//   get 413 before any parsing, and a body the host will not read (over the limit, or of
//   unknown length after a refusal) is never read: the connection closes after the answer;
// - bounded: sessions of both transports (maxSessions, then 503), connections (maxConnections), the time a
//   socket may take to send its headers or its request, idle keep-alive sockets, and idle
//   sessions (sessionIdleMs; a session with a stream attached is not idle);
// - a session is minted only for an initialize the engine answered with a result; a
//   refused or malformed one gets 400 and leaves nothing behind;
// - a notification-only POST that is not well-formed JSON-RPC gets 400, never 202;
// - session era: a client that disconnects mid-request does not cancel it: its
//   events are kept for resumption; only notifications/cancelled cancels (and ends the
//   stream that awaited the cancelled request, which gets no answer);
// - what a session needs to carry on elsewhere (Engine.snapshot) goes to a SessionStore after
//   every POST, so a shared store can serve several processes;
// - 2026-07-28 requests keep no state here beyond their own POST: headers are checked against
//   the body (MCP-Protocol-Version, Mcp-Method, Mcp-Name, and for tools/call the Mcp-Param-*
//   of the arguments the tool's inputSchema marks with x-mcp-header; `=?base64?…?=` decoded)
//   before any handler runs; no Mcp-Session-Id is minted or echoed.

import { createServer, type Server as NodeHttpServer } from "node:http";
import type { NodeHttpServerLimits, NodeIncomingMessage as IncomingMessage, NodeServerResponse as ServerResponse } from "./node-shapes.js";
import type { EngineSnapshot, Outbound } from "../engine.js";
import { isJsonObject, isRequestId, type JsonObject, type JsonRpcMessage, type RequestId } from "../envelope.js";
import { ErrorCode } from "../errors.js";
import { hasModernEnvelope, httpHeaderProblem, paramHeaderProblem, readRequestEnvelope, type ModernRefusal } from "../modern.js";
import type { Server } from "../peer/server.js";
import type { AuthInfo } from "../auth/types.js";
import { SESSION_VERSIONS, VERSION_PROFILES, type ModernVersion } from "../versions.js";
import { answerError, answerJson, fail, ignoreBody, readBody, readJson } from "./http-body.js";
import { ModernExchange } from "./http-exchange.js";
import { LegacySseEndpoint } from "./http-legacy.js";
import { MemorySessionStore, resolveOptions, type HttpServerOptions, type ResolvedHttpOptions, type SessionStore } from "./http-options.js";
import { firstMalformed, initializeOutcome, initializeShapeProblem, malformedItem, socketTimeouts } from "./http-rules.js";
import { HttpSession, type Stream } from "./http-session.js";
import { TurnTaking, header, hostnameOf } from "./http-wire.js";

export { MemorySessionStore, hostnameOf };
export type { HttpServerOptions, SessionStore };


/** The request handler and session table behind serveHttp; usable with any node:http server. */
export class HttpHost {
  readonly options: ResolvedHttpOptions;
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
    this.options = resolveOptions(options, eras);
  }

  /** The node:http request handler. */
  handle = (req: IncomingMessage, res: ServerResponse): void => {
    // One request per connection per event-loop turn: a client pipelining hundreds of requests cannot starve the others.
    this.turns.run((req.socket as NodeSocket | undefined) ?? req, () =>
      this.dispatch(req, res).catch((error: unknown) => {
        this.options.onError(error);
        if (!res.headersSent) fail(res, 500, ErrorCode.InternalError, "Internal error");
        else res.end();
      }),
    );
  };

  private readonly turns = new TurnTaking();
  /** What options.auth verified for each request being handled (read where its messages reach a session). */
  private readonly authOf = new WeakMap<IncomingMessage, AuthInfo>();

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
      ignoreBody(req, res, this.options.maxBodyBytes);
      fail(res, 403, ErrorCode.InvalidRequest, "Forbidden: Host or Origin not allowed");
      return;
    }
    const auth = this.options.auth;
    if (auth !== undefined) {
      // RFC 9728 3: the metadata is public; everything else passes authenticate() before any MCP handling.
      if (auth.metadataPath !== undefined && path === auth.metadataPath && auth.metadataResponse !== undefined) {
        ignoreBody(req, res, this.options.maxBodyBytes);
        const answer = auth.metadataResponse();
        if (req.method !== "GET") {
          res.writeHead(405, { Allow: "GET" });
          res.end();
          return;
        }
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body);
        return;
      }
      const owned = path === this.options.path || (this.legacy !== undefined && path !== undefined && this.legacy.owns(path));
      if (owned) {
        const result = await auth.authenticate({ url, headers: req.headers });
        if (!result.ok) {
          ignoreBody(req, res, this.options.maxBodyBytes);
          res.writeHead(result.response.status, result.response.headers);
          res.end(result.response.body);
          return;
        }
        this.authOf.set(req, result.auth);
      }
    }
    if (this.legacy !== undefined && path !== undefined && this.legacy.owns(path)) return this.legacyRequest(this.legacy, req, res, path);
    if (path !== this.options.path) {
      ignoreBody(req, res, this.options.maxBodyBytes);
      fail(res, 404, ErrorCode.InvalidRequest, "Not found");
      return;
    }
    const modernOnly = this.options.eras === "modern";
    switch (req.method) {
      case "POST":
        return this.post(req, res);
      case "GET":
      case "DELETE":
        if (modernOnly) {
          // MOD-20: a 2026-07-28-only endpoint has no GET stream and no sessions to delete.
          res.setHeader("Allow", "POST");
          ignoreBody(req, res, this.options.maxBodyBytes);
          fail(res, 405, ErrorCode.InvalidRequest, "Method not allowed: this endpoint serves 2026-07-28 only (POST)");
          return;
        }
        return req.method === "GET" ? this.get(req, res) : this.remove(req, res);
      default:
        res.setHeader("Allow", modernOnly ? "POST" : "GET, POST, DELETE");
        ignoreBody(req, res, this.options.maxBodyBytes);
        fail(res, 405, ErrorCode.InvalidRequest, "Method not allowed");
    }
  }

  /** SSE-01: GET on the SSE path opens a session; POST on the message path feeds it (202). */
  private async legacyRequest(legacy: LegacySseEndpoint, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (path === legacy.ssePath && req.method === "GET") {
      ignoreBody(req, res, this.options.maxBodyBytes);
      if (this.sessionsFull(res, undefined)) return;
      legacy.open(res);
      return;
    }
    if (path === legacy.messagePath && req.method === "POST") {
      const session = legacy.find(req.url ?? "");
      if (session === undefined) {
        ignoreBody(req, res, this.options.maxBodyBytes);
        fail(res, 404, ErrorCode.InvalidRequest, "Session not found");
        return;
      }
      const text = await readBody(req, res, this.options.maxBodyBytes);
      if (text === undefined) return;
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        fail(res, 400, ErrorCode.ParseError, "Parse error");
        return;
      }
      session.receiveMessage(body, this.authOf.get(req));
      res.writeHead(202, { "Content-Length": 0 });
      res.end();
      return;
    }
    ignoreBody(req, res, this.options.maxBodyBytes);
    res.setHeader("Allow", path === legacy.ssePath ? "GET" : "POST");
    fail(res, 405, ErrorCode.InvalidRequest, "Method not allowed");
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

  /** L-07: a version header, when present, must name a version we speak. */
  private versionHeaderOk(req: IncomingMessage): boolean {
    const version = header(req, "mcp-protocol-version");
    return version === undefined || (SESSION_VERSIONS as readonly string[]).includes(version);
  }

  private async post(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const accept = header(req, "accept") ?? "";
    if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
      ignoreBody(req, res, this.options.maxBodyBytes);
      fail(res, 406, ErrorCode.InvalidRequest, "Accept must list application/json and text/event-stream");
      return;
    }
    const contentType = header(req, "content-type") ?? "";
    if (!contentType.toLowerCase().startsWith("application/json")) {
      ignoreBody(req, res, this.options.maxBodyBytes);
      fail(res, 415, ErrorCode.InvalidRequest, "Content-Type must be application/json");
      return;
    }
    const sessionId = header(req, "mcp-session-id");
    // Session-era traffic (a session id, or a Server without 2026-07-28) goes the way it always went.
    if (this.modernVersions.length === 0 || (sessionId !== undefined && this.options.eras !== "modern")) return this.postSession(req, res, undefined);
    // No session id: the body says which era this is (MOD-23), so read it first.
    const body = await readJson(req, res, this.options.maxBodyBytes);
    if (body === undefined) return;
    if (this.isModern(req, body.value)) return this.postModern(req, res, body.value as JsonObject);
    if (this.options.eras === "modern") return this.refuseSessionEra(res, body.value);
    return this.postSession(req, res, body);
  }

  /**
   * MOD-23: a single message is 2026-07-28 traffic when its request carries the per-request
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

  /** A modern-only endpoint refuses session-era traffic: initialize names the versions served (MOD-22), anything else is not a 2026-07-28 message. */
  private refuseSessionEra(res: ServerResponse, body: unknown): void {
    if (isJsonObject(body) && body.method === "initialize") {
      const requested = isJsonObject(body.params) ? body.params.protocolVersion : undefined;
      const data = { supported: [...this.modernVersions], requested: typeof requested === "string" ? requested : null };
      answerError(res, 400, isRequestId(body.id) ? body.id : undefined, ErrorCode.UnsupportedProtocolVersion, "Unsupported protocol version", data);
      return;
    }
    const what = Array.isArray(body) ? "a batch" : isJsonObject(body) && body.method === undefined ? "a response" : "not a JSON-RPC request or notification";
    answerError(res, 400, undefined, ErrorCode.InvalidRequest, `Invalid request: ${what} (2026-07-28 takes one request or notification per POST)`, undefined);
  }

  /**
   * One 2026-07-28 message (MOD-20): a notification is accepted (202; there is no session for it
   * to act on, and over HTTP a request is cancelled by closing its stream); a request is
   * checked (envelope present, headers equal to the body) and fed to a ServerSession of its
   * own, which checks the rest (version, capabilities, method) and answers on this POST.
   */
  private postModern(req: IncomingMessage, res: ServerResponse, message: JsonObject): void {
    const method = message.method as string;
    if (!("id" in message)) {
      // HTTP-01…HTTP-04, MOD-20: a notification the server cannot accept gets an HTTP error, not 202.
      const problem = malformedItem(message);
      if (problem !== undefined) {
        answerError(res, 400, undefined, ErrorCode.InvalidRequest, `Invalid request: ${problem}`, undefined);
        return;
      }
      res.writeHead(202, { "Content-Length": 0 });
      res.end();
      return;
    }
    const id = message.id;
    if (!isRequestId(id)) {
      answerError(res, 400, undefined, ErrorCode.InvalidRequest, "Invalid request: the id must be a string or an integer", undefined);
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
      answerError(res, refusal.httpStatus, id, refusal.code, refusal.message, refusal.data);
      return;
    }
    const exchange = new ModernExchange(this, res, id);
    this.exchanges.add(exchange);
    exchange.session = this.server.connect(exchange.host);
    exchange.session.receiveMessage(message, this.authOf.get(req));
    if (exchange.mode === "pending" && this.options.responseMode === "sse") exchange.startSse();
  }

  /** Session-era POST: `parsed` is the body when it was already read (a dual-era endpoint reads it to pick the era). */
  private async postSession(req: IncomingMessage, res: ServerResponse, parsed: { value: unknown } | undefined): Promise<void> {
    if (!this.versionHeaderOk(req)) {
      if (parsed === undefined) ignoreBody(req, res, this.options.maxBodyBytes);
      fail(res, 400, ErrorCode.InvalidRequest, `Unsupported MCP-Protocol-Version; supported: ${SESSION_VERSIONS.join(", ")}`);
      return;
    }
    const read = parsed ?? (await readJson(req, res, this.options.maxBodyBytes));
    if (read === undefined) return;
    const body = read.value;
    const items = Array.isArray(body) ? body : [body];
    const isInitialize = items.some((m) => typeof m === "object" && m !== null && (m as JsonObject).method === "initialize");
    if (isInitialize) return this.initialize(res, body);
    const session = await this.sessionOf(req, res);
    if (session === undefined) return;
    if (Array.isArray(body) && session.session.engine.negotiatedVersion !== "2025-03-26") {
      fail(res, 400, ErrorCode.InvalidRequest, "Batches are allowed only under 2025-03-26");
      return;
    }
    session.touch();
    const requestIds = new Set<RequestId>();
    for (const m of items) {
      if (typeof m !== "object" || m === null) continue;
      const o = m as JsonObject;
      if (typeof o.method === "string" && (typeof o.id === "string" || typeof o.id === "number")) requestIds.add(o.id);
    }
    if (requestIds.size === 0) {
      // HTTP-01…HTTP-04: notifications and responses the server cannot accept get an HTTP error, not 202; the engine sees none of them.
      const malformed = firstMalformed(items);
      if (malformed !== undefined) {
        const where = Array.isArray(body) ? `batch member ${malformed.index}: ` : "";
        answerError(res, 400, undefined, ErrorCode.InvalidRequest, `Invalid request: ${where}${malformed.problem}`, undefined);
        return;
      }
    }
    const stream = session.newStream(res, requestIds, Array.isArray(body) && requestIds.size > 0, requestIds.size === 0 ? 400 : 200);
    for (const id of requestIds) {
      // An id still owned by an open stream is a duplicate in flight: the engine refuses it on this stream.
      const prior = session.owners.get(id);
      if (prior === undefined || !prior.open) session.owners.set(id, stream);
    }
    session.current = stream;
    try {
      session.session.receiveMessage(body, this.authOf.get(req));
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

  /**
   * A session-era initialize (defect 10.4): a session is minted only when the engine answers it
   * with a result. What the engine sends meanwhile is held; a refusal is answered 400 with the
   * engine's JSON-RPC error and nothing is kept. The Server answers initialize synchronously
   * (its engine's autoInitialize), so the outcome is known when receiveMessage returns.
   */
  private initialize(res: ServerResponse, body: unknown): void {
    const shape = initializeShapeProblem(body);
    if (shape !== undefined) {
      answerError(res, 400, undefined, ErrorCode.InvalidRequest, `Invalid request: ${shape}`, undefined);
      return;
    }
    const id = (body as JsonObject).id as RequestId;
    if (this.sessionsFull(res, id)) return;
    const session = new HttpSession(this.options.sessionId(), this);
    const captured: Outbound[] = [];
    session.captured = captured;
    session.session = this.server.connect(session.host);
    session.session.receiveMessage(body);
    session.captured = undefined;
    const outcome = initializeOutcome(captured.map((o) => o.message), id);
    if (outcome.kind !== "accepted") {
      session.end();
      if (outcome.kind === "refused") answerJson(res, 400, outcome.answer);
      else answerError(res, 500, id, ErrorCode.InternalError, "Internal error: initialize was not answered", undefined);
      return;
    }
    this.sessions.set(session.id, session);
    res.setHeader("Mcp-Session-Id", session.id);
    session.touch();
    const stream = session.newStream(res, new Set([id]), false);
    session.owners.set(id, stream);
    session.current = stream;
    try {
      for (const outbound of captured) session.route(outbound);
    } finally {
      session.current = undefined;
    }
    if (this.options.responseMode === "sse" && stream.mode === "pending") stream.startSse();
    this.save(session);
  }

  /** maxSessions (both transports together): at the cap, a new session is refused 503 (answered here; true then), never made room for. */
  private sessionsFull(res: ServerResponse, id: RequestId | undefined): boolean {
    const open = this.sessions.size + (this.legacy?.sessions.size ?? 0);
    if (open < this.options.maxSessions) return false;
    res.setHeader("Retry-After", "5");
    answerError(res, 503, id, ErrorCode.InternalError, `Server busy: ${open} sessions open, the most this server keeps (maxSessions ${this.options.maxSessions}); retry later`, undefined);
    return true;
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

  /** The session a request names (HTTP-03): 400 when it names none, 404 when it is unknown or ended (answered here; undefined then). */
  private async sessionOf(req: IncomingMessage, res: ServerResponse): Promise<HttpSession | undefined> {
    const sessionId = header(req, "mcp-session-id");
    if (sessionId === undefined) {
      fail(res, 400, ErrorCode.InvalidRequest, "Missing Mcp-Session-Id");
      return undefined;
    }
    const session = await this.findSession(sessionId);
    if (session === undefined) fail(res, 404, ErrorCode.InvalidRequest, "Session not found");
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
    ignoreBody(req, res, this.options.maxBodyBytes);
    if (!this.options.getStream) {
      res.setHeader("Allow", "POST, DELETE");
      fail(res, 405, ErrorCode.InvalidRequest, "This server offers no GET stream");
      return;
    }
    if (!(header(req, "accept") ?? "").includes("text/event-stream")) {
      fail(res, 406, ErrorCode.InvalidRequest, "Accept must list text/event-stream");
      return;
    }
    if (!this.versionHeaderOk(req)) {
      fail(res, 400, ErrorCode.InvalidRequest, "Unsupported MCP-Protocol-Version");
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
        fail(res, 404, ErrorCode.InvalidRequest, "Unknown Last-Event-ID");
        return;
      }
      stream.resume(res, seq);
      return;
    }
    if (session.standalone !== undefined && session.standalone.open && session.standalone.res !== undefined) {
      fail(res, 409, ErrorCode.InvalidRequest, "A GET stream is already open for this session");
      return;
    }
    const stream = session.standalone?.open === true ? session.standalone : session.newStream(res, new Set(), false);
    if (stream !== session.standalone) session.standalone = stream;
    if (stream.res !== res) stream.resume(res, Number.MAX_SAFE_INTEGER);
    else stream.startSse();
    for (const text of session.backlog.splice(0)) stream.deliver(JSON.parse(text) as JsonRpcMessage);
  }

  private async remove(req: IncomingMessage, res: ServerResponse): Promise<void> {
    ignoreBody(req, res, this.options.maxBodyBytes);
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
  // Defect 10.9: sockets are bounded in number and in how long they may idle or dawdle.
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
