// The options of the Streamable HTTP host (HttpServerOptions, with their defaults) and the
// SessionStore it keeps sessions in between requests. Split out of http-server.ts.
//
// Invariant: every option has a default here (resolveOptions), and the limits come from
// http-rules.ts (resolveLimits), where their defaults are listed.

import { randomUUID } from "node:crypto";
import type { EngineSnapshot } from "../engine.js";
import type { LegacySseOptions } from "./http-legacy.js";
import type { AuthRequest, AuthenticateResult, HttpAnswer } from "../auth/resource-server.js";
import { resolveLimits, type HttpLimits } from "./http-rules.js";

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
  /** Largest accepted request body; a larger one gets 413 and the connection is closed unread. Default 4 MiB. */
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
  /** Open connections (serveHttp); one beyond it is closed at once. Default 512. */
  maxConnections?: number;
  /** How long a connection may take to send a request's headers (serveHttp); 408 and closed after. Default 10000. */
  headersTimeoutMs?: number;
  /** How long a connection may take to send a whole request (serveHttp). Default 30000. */
  requestTimeoutMs?: number;
  /** How long an idle keep-alive connection is kept (serveHttp). Default 5000. */
  keepAliveTimeoutMs?: number;
  /** Also offer the deprecated HTTP+SSE transport of 2024-11-05 (SSE-01) at these paths (true: /sse and /messages). Default off. */
  legacySse?: boolean | LegacySseOptions;
  /**
   * Who is asking (OAuth resource server): authenticate() runs before any MCP handling of the
   * endpoint (and the HTTP+SSE paths); a refusal is written as is (401/403 with
   * WWW-Authenticate), a success reaches handlers as ctx.auth. protectedResource() from
   * mcp-engine/auth fits, and its metadata is then served (GET) at metadataPath.
   */
  auth?: HttpAuthHook;
}

export interface HttpAuthHook {
  authenticate(request: AuthRequest): Promise<AuthenticateResult> | AuthenticateResult;
  readonly metadataPath?: string;
  metadataResponse?(): HttpAnswer;
}

export interface ResolvedHttpOptions extends HttpLimits {
  path: string;
  allowedHosts: ReadonlySet<string>;
  store: SessionStore;
  sessionId: () => string;
  responseMode: "auto" | "sse";
  sseRetryMs: number;
  getStream: boolean;
  maxEventsPerStream: number;
  onError: (error: unknown) => void;
  eras: "both" | "session" | "modern";
  keepAliveMs: number;
  auth: HttpAuthHook | undefined;
}

/** Every option with its default. */
export function resolveOptions(options: HttpServerOptions, eras: "both" | "session" | "modern"): ResolvedHttpOptions {
  return {
    ...resolveLimits(options),
    path: options.path ?? "/mcp",
    allowedHosts: new Set((options.allowedHosts ?? ["localhost", "127.0.0.1", "[::1]"]).map((h) => h.toLowerCase())),
    store: options.store ?? new MemorySessionStore(),
    sessionId: options.sessionId ?? randomUUID,
    responseMode: options.responseMode ?? "auto",
    sseRetryMs: options.sseRetryMs ?? 1000,
    getStream: options.getStream ?? true,
    maxEventsPerStream: options.maxEventsPerStream ?? 1000,
    onError: options.onError ?? ((error) => process.stderr.write(`mcp-engine http: ${error instanceof Error ? error.message : String(error)}\n`)),
    eras,
    keepAliveMs: options.keepAliveMs ?? 15_000,
    auth: options.auth,
  };
}
