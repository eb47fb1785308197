// The options of the Streamable HTTP endpoint (HttpServerOptions, with their defaults), and
// the two stores behind it: the SessionStore (what a session needs to carry on, between
// requests and across processes) and the EventStore (the events of resumable SSE streams).
// Both have in-memory defaults; a shared store (Redis, say) implements the same interfaces
// and needs nothing else, since every call is keyed by session id and may be asynchronous.
//
// Invariant: every option has a default here (resolveOptions), and the limits come from
// lib/http/server-rules.ts (resolveLimits), where their defaults are listed.

import type { EngineSnapshot } from "../engine/engine.js";
import { resolveLimits, type HttpLimits } from "../http/server-rules.js";
import type { AuthRequest, AuthenticateResult, HttpAnswer } from "../auth/resource-server.js";
import type { AuthInfo } from "../auth/types.js";
import type { CorsOptions } from "../http/cors.js";
import type { LegacySseOptions } from "./legacy-sse.js";
import { StandaloneBus, type MessageBus } from "./bus.js";
import type { WebRequest, WebResponse } from "./web-types.js";
import type { HttpTimers } from "../peer/shared/timers.js";

/** Where sessions are kept between requests. The in-memory default suits one process; a shared one (async) suits several. */
export interface SessionStore {
  get(id: string): Promise<EngineSnapshot | undefined>;
  /**
   * Keeps the session's latest snapshot. `update` true (every save after the first): only a
   * snapshot the store still holds is replaced, so that a session ended elsewhere (DELETE on
   * another node) or expired stays gone (CL-04); it resolves false when nothing was replaced.
   */
  put(id: string, snapshot: EngineSnapshot, update?: boolean): Promise<void | boolean>;
  delete(id: string): Promise<void>;
  /**
   * Optional (several processes, CL-08): the first of REQUEST_ID_BLOCK request ids that no
   * other process gets for this session (the process that created the session has ids from 0);
   * undefined when the store holds no such session.
   */
  reserveRequestIds?(id: string): Promise<number | undefined>;
}

/** Server-request ids a process reserves for one session at a time (CL-08): block n is [n × this, (n + 1) × this). */
export const REQUEST_ID_BLOCK = 65_536;

export class MemorySessionStore implements SessionStore {
  private readonly snapshots = new Map<string, EngineSnapshot>();
  /** Per session, the request-id blocks handed out (block 0 belongs to the process that created it). */
  private readonly idBlocks = new Map<string, number>();

  get size(): number {
    return this.snapshots.size;
  }

  async get(id: string): Promise<EngineSnapshot | undefined> {
    return this.snapshots.get(id);
  }

  async put(id: string, snapshot: EngineSnapshot, update = false): Promise<boolean> {
    if (update && !this.snapshots.has(id)) return false;
    this.snapshots.set(id, snapshot);
    return true;
  }

  async delete(id: string): Promise<void> {
    this.snapshots.delete(id);
    this.idBlocks.delete(id);
  }

  async reserveRequestIds(id: string): Promise<number | undefined> {
    if (!this.snapshots.has(id)) return undefined;
    const block = (this.idBlocks.get(id) ?? 0) + 1;
    this.idBlocks.set(id, block);
    return block * REQUEST_ID_BLOCK;
  }
}

/** One event of a resumable stream: its sequence number in the stream and its SSE frame. */
export interface StoredEvent {
  readonly seq: number;
  readonly text: string;
}

/**
 * Where the events of resumable (session-era) SSE streams are kept for replay after
 * Last-Event-ID (HTTP-10). Streams are named by session and stream id; sequence numbers grow by
 * one per stream. Any method may answer asynchronously (a shared store).
 */
export interface EventStore {
  /** Keeps one event for replay. */
  append(sessionId: string, streamId: string, event: StoredEvent): void | Promise<void>;
  /** The kept events of a stream after sequence number `after`, oldest first; undefined when the store knows no such stream. */
  replay(
    sessionId: string,
    streamId: string,
    after: number,
  ): readonly StoredEvent[] | undefined | Promise<readonly StoredEvent[] | undefined>;
  /** Forgets every stream of a session (it ended). */
  forget(sessionId: string): void | Promise<void>;
  /** Optional: a stream was answered and its client read it to the end; its events may go (a store may keep them a short while for a late resume). */
  release?(sessionId: string, streamId: string): void | Promise<void>;
  /**
   * Optional (several processes, CL-06): keeps a message (its JSON text) for the session's GET
   * stream in the session's mailbox until a node that holds the stream takes it. A `tag` the
   * mailbox has seen lately for this session (one change applied by several nodes) is not kept again.
   */
  mail?(sessionId: string, text: string, tag?: string): void | Promise<void>;
  /** Optional, with mail (CL-06): the messages mailed for the session, oldest first, forgotten as they are taken (each goes to one taker). */
  take?(sessionId: string): readonly string[] | Promise<readonly string[]>;
}

/** The name of a session's mailbox among its streams in a store that keeps both alike (never a stream id: those start with a node prefix or "s"). */
export const MAILBOX = "mailbox";

/** The tags a mailbox remembers per session (mail), at most. */
export const MAIL_TAGS = 256;

export interface MemoryEventStoreOptions {
  /** Events kept per stream (oldest dropped first). Default 1000. */
  maxEventsPerStream?: number;
  /** Streams kept per session (oldest dropped first). Default 100. */
  maxStreamsPerSession?: number;
  /** Sessions kept (the one least recently appended to dropped first). Default 10000. */
  maxSessions?: number;
  /** Events older than this (ms, by `now`) are not replayed and are dropped. Default: no expiry. */
  ttlMs?: number;
  /** The clock for ttlMs. */
  now?: () => number;
}

interface TimedEvent extends StoredEvent {
  readonly at: number;
}

/** The default EventStore: bounded in events per stream, streams per session, sessions, and optionally age. */
export class MemoryEventStore implements EventStore {
  private readonly sessions = new Map<string, Map<string, TimedEvent[]>>();
  /** CL-06: per session, what waits for its GET stream and the tags seen lately (bounded as streams are). */
  private readonly mailboxes = new Map<string, { texts: string[]; tags: Set<string> }>();
  private readonly maxEvents: number;
  private readonly maxStreams: number;
  private readonly maxSessions: number;
  private readonly ttlMs: number | undefined;
  private readonly now: () => number;

  constructor(options: MemoryEventStoreOptions = {}) {
    this.maxEvents = positive(options.maxEventsPerStream, 1000);
    this.maxStreams = positive(options.maxStreamsPerSession, 100);
    this.maxSessions = positive(options.maxSessions, 10_000);
    this.ttlMs = options.ttlMs !== undefined && options.ttlMs > 0 ? options.ttlMs : undefined;
    this.now = options.now ?? (() => 0);
  }

  /** Sessions with kept events. */
  get size(): number {
    return this.sessions.size;
  }

  append(sessionId: string, streamId: string, event: StoredEvent): void {
    let streams = this.sessions.get(sessionId);
    if (streams === undefined) {
      streams = new Map();
      if (this.sessions.size >= this.maxSessions) this.sessions.delete(this.sessions.keys().next().value as string);
    } else this.sessions.delete(sessionId);
    // Re-inserted: the Map's order is least recently appended first.
    this.sessions.set(sessionId, streams);
    let events = streams.get(streamId);
    if (events === undefined) {
      events = [];
      streams.set(streamId, events);
      if (streams.size > this.maxStreams) streams.delete(streams.keys().next().value as string);
    }
    events.push({ seq: event.seq, text: event.text, at: this.now() });
    if (events.length > this.maxEvents) events.shift();
    this.expire(events);
  }

  replay(sessionId: string, streamId: string, after: number): readonly StoredEvent[] | undefined {
    const events = this.sessions.get(sessionId)?.get(streamId);
    if (events === undefined) return undefined;
    this.expire(events);
    return events.filter((e) => e.seq > after).map((e) => ({ seq: e.seq, text: e.text }));
  }

  forget(sessionId: string): void {
    this.sessions.delete(sessionId);
    this.mailboxes.delete(sessionId);
  }

  mail(sessionId: string, text: string, tag?: string): void {
    let box = this.mailboxes.get(sessionId);
    if (box === undefined) {
      if (this.mailboxes.size >= this.maxSessions) this.mailboxes.delete(this.mailboxes.keys().next().value as string);
      box = { texts: [], tags: new Set() };
      this.mailboxes.set(sessionId, box);
    }
    if (tag !== undefined) {
      if (box.tags.has(tag)) return;
      box.tags.add(tag);
      if (box.tags.size > MAIL_TAGS) box.tags.delete(box.tags.values().next().value as string);
    }
    box.texts.push(text);
    if (box.texts.length > this.maxEvents) box.texts.shift();
  }

  take(sessionId: string): readonly string[] {
    const box = this.mailboxes.get(sessionId);
    if (box === undefined) return [];
    return box.texts.splice(0);
  }

  private expire(events: TimedEvent[]): void {
    if (this.ttlMs === undefined) return;
    const oldest = this.now() - this.ttlMs;
    while (events.length > 0 && (events[0] as TimedEvent).at < oldest) events.shift();
  }
}

function positive(value: number | undefined, fallback: number): number {
  return typeof value === "number" && value > 0 && Number.isFinite(value) ? Math.floor(value) : fallback;
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
  /** Largest accepted request body; a larger one gets 413 and the connection is closed unread. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Default: a MemorySessionStore. */
  store?: SessionStore;
  /** The events of resumable streams. Default: a MemoryEventStore bounded by maxEventsPerStream. */
  eventStore?: EventStore;
  /**
   * What goes between the processes serving this endpoint behind a load balancer (answers to
   * server requests, GET-stream messages, change notifications, ended sessions): a shared bus
   * (mcp-engine/stores/redis) with shared stores makes several processes one server. Default:
   * a standalone bus (one process).
   */
  bus?: MessageBus;
  /** Session ids: unguessable, visible ASCII (HTTP-05). Default crypto.randomUUID (Web Crypto). */
  sessionId?: () => string;
  /** "auto": JSON unless the handler sends something before its result; "sse": always SSE. Default "auto". */
  responseMode?: "auto" | "sse";
  /** The retry advice (ms) sent with the priming event of each SSE stream (2025-11-25). Default 1000. */
  sseRetryMs?: number;
  /** Offer the GET stream. Default true; false answers GET with 405. */
  getStream?: boolean;
  /** Close sessions idle this long (ms): no request, and no stream with a client attached. Default 10 minutes. */
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
  /**
   * Sessions open at once in this process (session era). An initialize beyond it gets 503
   * with a JSON-RPC error (-32603) and Retry-After; open sessions are never evicted for it
   * (a session in use must not lose its state to a newcomer). Default 1000.
   */
  maxSessions?: number;
  /** Open connections (serveHttp, and on Bun and Deno as docs/limits.md says); one beyond it is closed at once. Default 512. */
  maxConnections?: number;
  /** How long a connection may take to send a request's headers (serveHttp; Bun and Deno: docs/limits.md); 408 and closed after. Default 10000. */
  headersTimeoutMs?: number;
  /** How long a connection may take to send a whole request (serveHttp); the fetch handler's bound on reading a body (408 and Connection: close after). Default 30000. */
  requestTimeoutMs?: number;
  /** How long an idle keep-alive connection is kept (serveHttp; Bun and Deno: docs/limits.md). Default 5000. */
  keepAliveTimeoutMs?: number;
  /** Also offer the deprecated HTTP+SSE transport of 2024-11-05 (SSE-01) at these paths (true: /sse and /messages). Default off. */
  legacySse?: boolean | LegacySseOptions;
  /** Cross-origin access for browser clients: the origins allowed (also added to allowedHosts). Default off (no CORS headers, OPTIONS 405). */
  cors?: CorsOptions;
  /**
   * Who is asking: runs before any MCP handling (after the Host/Origin check and CORS
   * preflights) with the request's method, URL and headers (its body is not for the hook).
   * Returns what handlers see as ctx.auth (opaque here), or a Response (e.g. 401 with
   * WWW-Authenticate) that is sent as is, the request going no further.
   */
  authenticate?: (request: WebRequest) => AuthInfo | WebResponse | undefined | Promise<AuthInfo | WebResponse | undefined>;
  /**
   * Who is asking, as an OAuth resource server: protectedResource() from mcp-engine/auth fits.
   * Its authenticate() runs where `authenticate` would (a refusal is written as is: 401/403
   * with WWW-Authenticate; a success reaches handlers as ctx.auth), and its metadata is served
   * (GET, no credentials needed) at metadataPath.
   */
  auth?: HttpAuthHook;
  /** The clock and timers (session idle, keep-alives, handler timeouts). Default: the runtime's globals. */
  timers?: HttpTimers;
}

/** An authenticate step with its protected resource metadata (lib/auth/resource-server.ts builds one). */
export interface HttpAuthHook {
  authenticate(request: AuthRequest): Promise<AuthenticateResult> | AuthenticateResult;
  readonly metadataPath?: string;
  metadataResponse?(): HttpAnswer;
}

export interface ResolvedHttpOptions extends HttpLimits {
  path: string;
  allowedHosts: ReadonlySet<string>;
  store: SessionStore;
  eventStore: EventStore;
  bus: MessageBus;
  sessionId: () => string;
  responseMode: "auto" | "sse";
  sseRetryMs: number;
  getStream: boolean;
  maxEventsPerStream: number;
  onError: (error: unknown) => void;
  eras: "both" | "session" | "modern";
  keepAliveMs: number;
  cors: CorsOptions | undefined;
}

/** Every option with its default; `defaultOnError` reports what no peer can be told. */
export function resolveOptions(
  options: HttpServerOptions,
  eras: "both" | "session" | "modern",
  timers: HttpTimers,
  defaultOnError: (error: unknown) => void,
): ResolvedHttpOptions {
  const maxEventsPerStream = options.maxEventsPerStream ?? 1000;
  return {
    ...resolveLimits(options),
    path: options.path ?? "/mcp",
    allowedHosts: new Set((options.allowedHosts ?? ["localhost", "127.0.0.1", "[::1]"]).map((h) => h.toLowerCase())),
    store: options.store ?? new MemorySessionStore(),
    eventStore: options.eventStore ?? new MemoryEventStore({ maxEventsPerStream, now: () => timers.now() }),
    bus: options.bus ?? new StandaloneBus(),
    sessionId: options.sessionId ?? randomSessionId,
    responseMode: options.responseMode ?? "auto",
    sseRetryMs: options.sseRetryMs ?? 1000,
    getStream: options.getStream ?? true,
    maxEventsPerStream,
    onError: options.onError ?? defaultOnError,
    eras,
    keepAliveMs: options.keepAliveMs ?? 15_000,
    cors: options.cors,
  };
}

/** Web Crypto's UUID (every runtime we serve on has it globally). */
function randomSessionId(): string {
  return (globalThis as unknown as { crypto: { randomUUID(): string } }).crypto.randomUUID();
}
