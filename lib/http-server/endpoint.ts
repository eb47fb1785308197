// The Streamable HTTP endpoint (RULES.md HTTP-01, HTTP-06, HTTP-07), portable: one path with POST, GET and DELETE,
// sessions minted here, answers as JSON or SSE, resumable SSE streams; and when the Server
// speaks 2026-07-28 (MOD-20), that stateless revision on the same path (option `eras`); the
// deprecated HTTP+SSE endpoint (SSE-01) when asked. It works on HttpIncoming/HttpReply
// (channel.ts): the fetch handler (fetch.ts) and the Node adapter (lib/hosts/http-server.ts)
// carry the bytes. Session streams live in session.ts, the 2026-07-28 exchange in
// exchange.ts, the POST handling in post.ts, what goes between processes in cluster.ts, the
// pure rules in lib/http/. Each of those takes an interface of what it uses of the endpoint
// (SessionHost, ExchangeHost, PostEndpoint, ClusterEndpoint); this class implements them and
// owns the session table they share.
//
// Invariants:
// - secure by default: Host (and Origin, when sent) must name an allowed hostname (default
//   the localhost forms), else 403; an empty allow-list refuses everything; CORS is off
//   unless origins are configured; authenticate, when given, runs before any MCP handling;
// - bounded: sessions of both transports (maxSessions, then 503), bodies (maxBodyBytes, 413
//   before parsing), idle sessions (sessionIdleMs; a session with a stream attached is not idle);
// - a session is minted only for an initialize the engine answered with a result;
// - what a session needs to carry on elsewhere (Engine.snapshot) goes to the SessionStore
//   after every POST, so a shared store can serve several processes.

import type { EngineSnapshot } from "../engine/engine.js";
import type { RequestId } from "../wire/envelope.js";
import { corsOriginAllowed, corsResponseHeaders, isPreflight, preflightHeaders } from "../http/cors.js";
import { acceptsSse, hostAllowed, parseEventId, sessionVersionHeaderOk } from "../http/server-rules.js";
import { SSE_HEADERS } from "../http/sse-encoder.js";
import { BUSY_RETRY_AFTER_SECONDS, HttpStatus } from "../http/status.js";
import type { Server } from "../peer/server/server.js";
import type { TransportRequestInfo } from "../peer/server/context.js";
import { VERSION_PROFILES, type ModernVersion } from "../rules/versions.js";
import type { AuthInfo } from "../auth/types.js";
import { refuse, refuseUnread, type HttpIncoming, type HttpReply } from "./channel.js";
import type { ModernExchange } from "./exchange.js";
import { LegacySseEndpoint } from "./legacy-sse.js";
import { resolveOptions, type HttpServerOptions, type ResolvedHttpOptions } from "./options.js";
import { PostHandling, type PostEndpoint } from "./post.js";
import { Cluster, type ClusterEndpoint } from "./cluster.js";
import { HttpSession, isThenable } from "./session.js";
import { Follower } from "./follow.js";
import { MAILBOX, REQUEST_ID_BLOCK } from "./options.js";
import type { HttpTimers } from "../peer/shared/timers.js";
import "./web-types.js";

/** Answers given by the authenticate hook: a web Response, read by these members. */
interface ResponseShape {
  readonly status: number;
  readonly headers: { forEach(callback: (value: string, name: string) => void): void };
  text(): Promise<string>;
}

function isResponseShape(value: unknown): value is ResponseShape {
  if (typeof value !== "object" || value === null) return false;
  const v = value as { status?: unknown; headers?: { forEach?: unknown }; text?: unknown };
  return typeof v.status === "number" && typeof v.headers?.forEach === "function" && typeof v.text === "function";
}

/** The session table, the 2026-07-28 exchanges in flight and the legacy endpoint behind one Streamable HTTP path. */
export class HttpEndpoint implements PostEndpoint, ClusterEndpoint {
  readonly options: ResolvedHttpOptions;
  readonly sessions = new Map<string, HttpSession>();
  /** 2026-07-28 requests in flight (open listen streams included), each with its own ServerSession. */
  readonly exchanges = new Set<ModernExchange>();
  /** The 2026-07-28 versions served (empty: session era only). */
  readonly modernVersions: readonly ModernVersion[];
  /** The deprecated HTTP+SSE endpoint, when offered. */
  readonly legacy: LegacySseEndpoint | undefined;
  /** @internal */
  readonly posts: PostHandling;
  /** What goes between the processes of one endpoint (HttpServerOptions.bus). */
  readonly cluster: Cluster;
  private readonly authenticate: HttpServerOptions["authenticate"];
  private readonly authHook: HttpServerOptions["auth"];

  constructor(
    readonly server: Server,
    options: HttpServerOptions,
    readonly timers: HttpTimers,
    defaultOnError: (error: unknown) => void,
  ) {
    const eras = options.eras ?? "both";
    const modern = (server.options.versions ?? []).filter((v): v is ModernVersion => VERSION_PROFILES[v].era === "modern");
    if (eras === "modern" && modern.length === 0) throw new RangeError('eras "modern" needs a Server whose versions include 2026-07-28');
    this.modernVersions = eras === "session" ? [] : modern;
    this.options = resolveOptions(options, eras, timers, defaultOnError);
    if (options.cors !== undefined && options.cors.origins !== "*") {
      // A configured origin is an allowed Origin (its hostname), not only for preflights.
      const names = new Set(this.options.allowedHosts);
      for (const origin of options.cors.origins) {
        const host = /^[a-z][a-z0-9+.-]*:\/\/(\[[^\]]*\]|[^:/]*)/i.exec(origin.trim())?.[1];
        if (host !== undefined && host !== "") names.add(host.toLowerCase());
      }
      this.options = { ...this.options, allowedHosts: names };
    }
    this.legacy =
      options.legacySse === undefined || options.legacySse === false
        ? undefined
        : new LegacySseEndpoint(server, options.legacySse === true ? {} : options.legacySse, timers, this.options.sessionId);
    this.authenticate = options.authenticate;
    this.authHook = options.auth;
    this.posts = new PostHandling(this);
    this.cluster = new Cluster(this, this.options.bus);
  }

  /** Prefixes this node's stream ids (unique across the nodes of a shared bus). */
  get streamPrefix(): string {
    return this.cluster.streamPrefix;
  }

  /**
   * Ends one session: its streams close, its engine closes, the store forgets it. With a
   * shared bus, a session idle here or a node shutting down only drops this node's copy
   * (the session carries on elsewhere), and one ended for good is dropped by every node.
   */
  endSession(session: HttpSession, why: "ended" | "idle" | "shutdown" | "elsewhere" = "ended"): void {
    this.sessions.delete(session.id);
    const forGood = why === "ended" || !this.cluster.shared;
    session.end(forGood);
    if (!forGood) return;
    this.options.store.delete(session.id).catch(this.options.onError);
    this.cluster.ended(session.id);
  }

  /** Ends every session and every 2026-07-28 request in flight (shutdown); listen streams get their final result. */
  closeAll(): void {
    for (const session of [...this.sessions.values()]) this.endSession(session, "shutdown");
    this.cluster.close();
    for (const exchange of [...this.exchanges]) exchange.shutdown();
    this.legacy?.closeAll();
  }

  /** Handles one request; resolves once its answer is decided (an SSE answer goes on after). */
  async serve(incoming: HttpIncoming, reply: HttpReply, toRequest: () => Request): Promise<void> {
    const origin = incoming.header("origin");
    const cors = this.options.cors;
    if (cors !== undefined && isPreflight(incoming.method, origin, incoming.header("access-control-request-method"))) {
      incoming.skipBody();
      const headers = preflightHeaders(
        cors,
        origin as string,
        incoming.header("access-control-request-method") as string,
        incoming.header("access-control-request-headers"),
      );
      if (headers === undefined) refuse(reply, "forbidden", "Forbidden: cross-origin request not allowed");
      else {
        reply.head(HttpStatus.noContent, headers);
        reply.end();
      }
      return;
    }
    if (!hostAllowed(incoming.header("host"), corsOriginAllowed(cors, origin) ? undefined : origin, this.options.allowedHosts)) {
      refuseUnread(incoming, reply, "forbidden", "Forbidden: Host or Origin not allowed");
      return;
    }
    const corsHeaders = corsResponseHeaders(cors, origin);
    if (corsHeaders !== undefined) for (const [name, value] of Object.entries(corsHeaders)) reply.setHeader(name, value);
    const path = incoming.path;
    const legacy = this.legacy;
    const hook = this.authHook;
    if (hook?.metadataPath !== undefined && hook.metadataResponse !== undefined && path === hook.metadataPath) {
      // RFC 9728 3: the protected resource metadata is public.
      incoming.skipBody();
      if (incoming.method !== "GET") {
        reply.setHeader("Allow", "GET");
        refuse(reply, "methodNotAllowed", "Method not allowed");
        return;
      }
      const answer = hook.metadataResponse();
      reply.head(answer.status, answer.headers);
      reply.end(answer.body);
      return;
    }
    const isLegacy = legacy !== undefined && legacy.owns(path);
    if (!isLegacy && path !== this.options.path && !(incoming.mounted && (path === "/" || path === ""))) {
      refuseUnread(incoming, reply, "notFound", "Not found");
      return;
    }
    // Who is asking, before any MCP handling.
    const verdict = await this.verify(incoming, toRequest);
    if (!verdict.ok) {
      incoming.skipBody();
      reply.head(verdict.answer.status, verdict.answer.headers);
      reply.end(verdict.answer.body);
      return;
    }
    // Headers the hook wants on whatever is answered (a fresh DPoP-Nonce).
    for (const [name, value] of Object.entries(verdict.headers ?? {})) reply.setHeader(name, value);
    const auth = verdict.auth;
    if (isLegacy) return this.legacyRequest(legacy, incoming, reply, auth);
    const modernOnly = this.options.eras === "modern";
    switch (incoming.method) {
      case "POST":
        return this.posts.post(incoming, reply, auth);
      case "GET":
      case "DELETE":
        if (modernOnly) {
          // MOD-20: a 2026-07-28-only endpoint has no GET stream and no sessions to delete.
          reply.setHeader("Allow", "POST");
          refuseUnread(incoming, reply, "methodNotAllowed", "Method not allowed: this endpoint serves 2026-07-28 only (POST)");
          return;
        }
        return incoming.method === "GET" ? this.get(incoming, reply) : this.remove(incoming, reply);
      default:
        reply.setHeader("Allow", modernOnly ? "POST" : "GET, POST, DELETE");
        refuseUnread(incoming, reply, "methodNotAllowed", "Method not allowed");
    }
  }

  /** The authenticate hook's verdict (either form of it); a pass without one. */
  private async verify(
    incoming: HttpIncoming,
    toRequest: () => Request,
  ): Promise<
    | { ok: true; auth: AuthInfo | undefined; headers?: { readonly [name: string]: string } }
    | { ok: false; answer: { status: number; headers: Record<string, string>; body: string } }
  > {
    const hook = this.authHook;
    if (hook !== undefined) {
      const target = `${incoming.base}${incoming.path}${incoming.query === "" ? "" : `?${incoming.query}`}`;
      // The method and target reach the hook: a DPoP proof names both (htm, htu).
      const result = await hook.authenticate({ method: incoming.method, url: target, headers: { get: (name) => incoming.header(name) } });
      return result.ok
        ? { ok: true, auth: result.auth, ...(result.headers !== undefined ? { headers: result.headers } : {}) }
        : { ok: false, answer: { status: result.response.status, headers: { ...result.response.headers }, body: result.response.body } };
    }
    if (this.authenticate === undefined) return { ok: true, auth: undefined };
    const verdict: unknown = await this.authenticate(toRequest());
    if (!isResponseShape(verdict)) return { ok: true, auth: verdict as AuthInfo | undefined };
    const headers: Record<string, string> = {};
    verdict.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return { ok: false, answer: { status: verdict.status, headers, body: await verdict.text() } };
  }

  /** What handlers see of the HTTP request that carried theirs (ctx.http, ctx.auth). */
  transportInfo(incoming: HttpIncoming, sessionId: string | undefined, auth: AuthInfo | undefined): TransportRequestInfo {
    return { header: (name) => incoming.header(name), sessionId, auth };
  }

  /** SSE-01: GET on the SSE path opens a session; POST on the message path feeds it (202). */
  private async legacyRequest(
    legacy: LegacySseEndpoint,
    incoming: HttpIncoming,
    reply: HttpReply,
    auth: AuthInfo | undefined,
  ): Promise<void> {
    const path = incoming.path;
    if (path === legacy.ssePath && incoming.method === "GET") {
      incoming.skipBody();
      if (this.sessionsFull(reply, undefined)) return;
      legacy.open(reply, incoming.base);
      return;
    }
    if (path === legacy.messagePath && incoming.method === "POST") {
      const session = legacy.find(incoming.query);
      if (session === undefined) {
        refuseUnread(incoming, reply, "sessionNotFound", "Session not found");
        return;
      }
      const read = await this.posts.readJson(incoming, reply);
      if (read === undefined) return;
      session.receiveMessage(read.value, this.transportInfo(incoming, undefined, auth));
      reply.head(HttpStatus.accepted, { "Content-Length": "0" });
      reply.end();
      return;
    }
    reply.setHeader("Allow", path === legacy.ssePath ? "GET" : "POST");
    refuseUnread(incoming, reply, "methodNotAllowed", "Method not allowed");
  }

  /** maxSessions (both transports together): at the cap, a new session is refused 503 (answered here; true then), never made room for. */
  sessionsFull(reply: HttpReply, id: RequestId | undefined): boolean {
    const open = this.sessions.size + (this.legacy?.sessions.size ?? 0);
    if (open < this.options.maxSessions) return false;
    reply.setHeader("Retry-After", String(BUSY_RETRY_AFTER_SECONDS));
    refuse(
      reply,
      "busy",
      `Server busy: ${open} sessions open, the most this server keeps (maxSessions ${this.options.maxSessions}); retry later`,
      id,
    );
    return true;
  }

  createSession(snapshot: EngineSnapshot | undefined, id?: string): HttpSession {
    const session = new HttpSession(id ?? this.options.sessionId(), this);
    session.session = this.server.connect(session.host, snapshot);
    this.sessions.set(session.id, session);
    return session;
  }

  /**
   * CL-08: this node's copy of a session sends its requests with ids from a block no other node
   * gets (the store reserves it). One reservation per copy at a time, and every request waits for
   * it: until the block arrives, the engine's counter may be another node's (a snapshot's).
   * False when the store no longer holds the session.
   */
  private requestIds(session: HttpSession): Promise<boolean> {
    const store = this.options.store;
    const engine = session.session.engine;
    const end = engine.requestIdsEnd;
    if (session.reservingIds !== undefined) return session.reservingIds;
    // A block is renewed well before its end: one request's handler sends far fewer than this many requests.
    if (store.reserveRequestIds === undefined || (end !== undefined && engine.nextRequestId + 4096 < end)) return Promise.resolve(true);
    const reserving = store.reserveRequestIds(session.id).then(
      (first) => {
        session.reservingIds = undefined;
        if (first === undefined) return false;
        engine.useRequestIds(first, first + REQUEST_ID_BLOCK);
        return true;
      },
      (error: unknown) => {
        session.reservingIds = undefined;
        throw error;
      },
    );
    session.reservingIds = reserving;
    return reserving;
  }

  /** The session a request names (HTTP-03): 400 when it names none, 404 when it is unknown or ended (answered here; undefined then). */
  async sessionOf(incoming: HttpIncoming, reply: HttpReply): Promise<HttpSession | undefined> {
    const sessionId = incoming.header("mcp-session-id");
    if (sessionId === undefined) {
      refuse(reply, "invalidRequest", "Missing Mcp-Session-Id");
      return undefined;
    }
    const session = await this.findSession(sessionId);
    if (session === undefined) refuse(reply, "sessionNotFound", "Session not found");
    return session;
  }

  private async findSession(id: string): Promise<HttpSession | undefined> {
    const local = this.sessions.get(id);
    if (local !== undefined && !this.cluster.shared) return local.closed ? undefined : local;
    // Another process may have created it, or carried it on since: carry on from its snapshot.
    const snapshot = await this.options.store.get(id);
    if (local !== undefined && !local.closed) {
      if (snapshot !== undefined) {
        local.session.engine.adopt(snapshot);
        local.stored = JSON.stringify(snapshot);
        local.inStore = true;
        if (await this.requestIds(local)) return local;
      }
      // Shared: the store is the truth (a session is in it before its id is handed out); gone there, it is gone.
      this.endSession(local, "elsewhere");
      return undefined;
    }
    if (snapshot === undefined) return undefined;
    const known = this.sessions.get(id);
    if (known !== undefined) return !known.closed && (await this.requestIds(known)) ? known : undefined;
    const created = this.createSession(snapshot, id);
    created.stored = JSON.stringify(snapshot);
    created.inStore = true;
    if (await this.requestIds(created)) return created;
    this.endSession(created, "elsewhere");
    return undefined;
  }

  save(session: HttpSession): Promise<void> {
    const engine = session.session.engine;
    if (engine.negotiatedVersion === undefined || engine.isClosed) return Promise.resolve();
    const snapshot = engine.snapshot();
    if (this.cluster.shared) {
      // Shared: a snapshot the store has already is not written again (reading it renewed its TTL).
      const text = JSON.stringify(snapshot);
      if (text === session.stored) return Promise.resolve();
      session.stored = text;
    }
    // CL-04: once the store had the session, a save only replaces it: a session ended elsewhere meanwhile stays ended.
    return this.options.store.put(session.id, snapshot, session.inStore).then((kept) => {
      if (kept !== false) session.inStore = true;
      else if (this.cluster.shared && this.sessions.get(session.id) === session) this.endSession(session, "elsewhere");
    }, this.options.onError);
  }

  /** A session whose GET stream keeps it in use on this node: its entry in a shared store is renewed (a get renews the TTL). */
  keepAlive(session: HttpSession): void {
    if (this.cluster.shared) this.options.store.get(session.id).catch(this.options.onError);
  }

  private async get(incoming: HttpIncoming, reply: HttpReply): Promise<void> {
    incoming.skipBody();
    if (!this.options.getStream) {
      reply.setHeader("Allow", "POST, DELETE");
      refuse(reply, "methodNotAllowed", "This server offers no GET stream");
      return;
    }
    if (!acceptsSse(incoming.header("accept"))) {
      refuse(reply, "notAcceptable", "Accept must list text/event-stream");
      return;
    }
    if (!sessionVersionHeaderOk(incoming.header("mcp-protocol-version"))) {
      refuse(reply, "invalidRequest", "Unsupported MCP-Protocol-Version");
      return;
    }
    let gone = false;
    reply.onClose(() => {
      gone = true;
    });
    const session = await this.sessionOf(incoming, reply);
    if (session === undefined) return;
    // Its client went away while the session was looked up: taking the stream now would end a newer GET elsewhere.
    if (gone) {
      refuse(reply, "conflict", "The client went away before its GET stream opened");
      return;
    }
    session.touch();
    const last = incoming.header("last-event-id");
    if (last !== undefined) {
      const parsed = parseEventId(last);
      const stream = parsed === undefined ? undefined : session.streams.get(parsed.stream);
      if (stream === undefined || parsed === undefined) {
        // Not a stream of this process: a shared EventStore may still hold it (the session carried on here).
        const unknown = (): void => refuse(reply, "unknownEventId", "Unknown Last-Event-ID");
        if (parsed !== undefined && (await this.replayElsewhere(session, parsed.stream, parsed.seq, reply, unknown))) return;
        unknown();
        return;
      }
      stream.resume(reply, parsed.seq);
      // CL-06: the GET stream has its client again: what waited in the mailbox follows what is replayed.
      if (stream === session.standalone) this.cluster.take(session);
      return;
    }
    if (session.standalone !== undefined && session.standalone.open && session.standalone.res !== undefined) {
      refuse(reply, "conflict", "A GET stream is already open for this session");
      return;
    }
    const stream = session.standalone?.open === true ? session.standalone : session.newStream(reply, new Set(), false);
    if (stream !== session.standalone) session.standalone = stream;
    // Several processes: this node holds the session's GET stream now; one another node held ends.
    this.cluster.holdsStream(session);
    if (stream.res !== reply) stream.resume(reply, Number.MAX_SAFE_INTEGER);
    else stream.startSse();
    for (const text of session.backlog.splice(0)) stream.deliver(JSON.parse(text) as never);
    // CL-06: what waited in the session's mailbox, in order.
    this.cluster.take(session);
  }

  /**
   * Replays a stream another process wrote (from the EventStore); false when the store knows no
   * such stream. CL-07: with several processes, one another node writes is followed to its end.
   */
  private async replayElsewhere(
    session: HttpSession,
    streamId: string,
    after: number,
    reply: HttpReply,
    unknown: () => void,
  ): Promise<boolean> {
    // The mailbox is no stream a client was given ids of.
    if (streamId === MAILBOX) return false;
    const found = session.replay(streamId, after);
    const events = isThenable(found) ? await found.catch((error: unknown) => (this.options.onError(error), undefined)) : found;
    // CL-07: a stream another node writes may not be in the store yet (its appends queued behind a slow call): its writer says.
    if (this.cluster.shared && !streamId.startsWith(this.streamPrefix) && !session.closed) {
      const cluster = this.cluster;
      new Follower({ publish: (m) => cluster.tell(m), readerToken: () => cluster.readerToken() }, session, streamId, after, reply).start(
        events,
        unknown,
      );
      return true;
    }
    if (events === undefined) return false;
    reply.head(HttpStatus.ok, SSE_HEADERS);
    for (const event of events) reply.write(event.text);
    reply.end();
    return true;
  }

  private async remove(incoming: HttpIncoming, reply: HttpReply): Promise<void> {
    incoming.skipBody();
    const session = await this.sessionOf(incoming, reply);
    if (session === undefined) return;
    this.endSession(session);
    reply.head(HttpStatus.ok, { "Content-Length": "0" });
    reply.end();
  }
}
