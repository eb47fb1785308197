// The client side of Streamable HTTP (RULES.md HTTP-01; the session era in ./session.ts), with the deprecated HTTP+SSE
// transport (SSE-01) as the fallback of HTTP-04 and the 2026-07-28 transport (MOD-20, in ./modern.ts): a PeerHost whose
// send() POSTs each outbound message, and the receive side that turns JSON bodies and SSE streams
// back into messages for the Client's driver. What HTTP answers and headers mean (header
// encoding, status interpretation, fallback detection) is decided in lib/http/client-rules.ts.
//
// This file is the facade: the PeerHost the Client drives, which picks the era of each outbound
// message, close(), and connectHttp. The rest lives beside it, each file with its invariants:
// connection.ts (the shared connection: fetching with OAuth, settling, reading JSON and SSE
// bodies), session.ts (the session era: initialize, sessions, resumption, the GET stream,
// DELETE), modern.ts (2026-07-28), legacy-sse.ts (HTTP+SSE), sse.ts (the SSE parser whose
// failures are the transport's), oauth.ts (OAuth) and types.ts (the injected platform shapes
// and the options).
//
// Invariants of the whole transport:
// - portable: no Node or DOM globals; fetch, the abort controller and the clock/timers are
//   injected (FetchLike, createAbortController, HttpTimers); no file of it reads a clock;
// - every request the engine sends settles: its answer arrives, or a JSON-RPC error is
//   synthesized for its id (HTTP_TRANSPORT_ERROR standing for an HttpTransportError, or the server's own JSON-RPC error body),
//   or the connection closes (EOF: the Client rejects it with ConnectionClosedError);
// - POSTs start in the order the engine sent them (the session era queues behind an initialize
//   or a re-initialization whose outcome is unknown);
// - the era: 2026-07-28 from the first request carrying the per-request `_meta` envelope (a
//   client Engine after startModern(), or option `modern`) until an initialize is sent (a
//   dual-era client falling back); the session era otherwise;
// - a 401 or 403 from any request is an authorization challenge, never a fallback (AUTH-08):
//   the request settles with HttpAuthError (status, WWW-Authenticate, URL), attached to its
//   synthesized error object so the Client rejects with it; without a request (the GET stream,
//   DELETE) it goes to onError as HttpTransportError.auth. Only an older offer's initialize
//   (HTTP-04: any 4xx) still tries HTTP+SSE first;
// - with option `auth` (OAuth: oauth.ts, lib/auth/) every request carries the current token;
//   a 401, or a 403 insufficient_scope, runs one authorization flow (shared by concurrent
//   refusals) and the request is sent once more (a DPoP nonce demand: one resend); only a
//   refusal that outlives that becomes the HttpAuthError above.

import type { Outbound } from "../engine/engine.js";
import { isJsonObject, isRequestId } from "../wire/envelope.js";
import { hasModernEnvelope } from "../rules/modern.js";
import { Client } from "../peer/client/client.js";
import type { ClientOptions, ConnectResult } from "../peer/client/client-options.js";
import type { PeerHost } from "../peer/shared/driver.js";
import { HttpCore } from "./connection.js";
import { LegacyEra } from "./legacy-sse.js";
import { ModernEra } from "./modern.js";
import { SessionEra } from "./session.js";
import { requestIdOf, type HttpClientTransportOptions, type MessageReceiver } from "./types.js";

/**
 * A PeerHost for a Client over Streamable HTTP. Wire it with attach(client.input) right after
 * constructing the Client (connectHttp does both).
 */
export class HttpClientTransport<S = unknown> implements PeerHost {
  readonly url: string;
  private readonly core: HttpCore<S>;
  private readonly sessionEra: SessionEra<S>;
  private readonly modernEra: ModernEra<S>;
  private readonly legacy: LegacyEra<S>;
  private readonly forceModern: boolean;
  private closing: Promise<void> | undefined;
  /** 2026-07-28 mode (see the file comment). */
  private modern: boolean;

  constructor(options: HttpClientTransportOptions<S>) {
    this.url = options.url;
    this.core = new HttpCore<S>(options);
    this.legacy = new LegacyEra<S>(this.core, options.legacyFallback ?? true);
    this.sessionEra = new SessionEra<S>(this.core, this.legacy, options.standaloneStream ?? true, options.deleteTimeoutMs ?? 5000);
    this.modernEra = new ModernEra<S>(this.core);
    this.core.inspect = (message) => this.modernEra.inspect(message);
    this.forceModern = options.modern ?? false;
    this.modern = this.forceModern;
  }

  /** Where received messages and EOF go (the Client's driver). */
  attach(receiver: MessageReceiver): void {
    this.core.receiver = receiver;
  }

  /** The session id the server assigned, if any. */
  get sessionId(): string | undefined {
    return this.core.session;
  }

  /** The protocol version seen in the initialize result (sent as MCP-Protocol-Version). */
  get protocolVersion(): string | undefined {
    return this.core.version;
  }

  /** Whether messages go the 2026-07-28 way (see the file comment). */
  get isModern(): boolean {
    return this.modern;
  }

  /** "streamable", or "legacy" after falling back to HTTP+SSE. */
  get transportMode(): "streamable" | "legacy" {
    return this.core.mode;
  }

  /** The POST URL of the legacy transport (from its endpoint event). */
  get legacyPostUrl(): string | undefined {
    return this.legacy.endpoint;
  }

  get isClosed(): boolean {
    return this.core.state !== "open";
  }

  // ── PeerHost ──────────────────────────────────────────────

  now(): number {
    return this.core.timers.now();
  }

  armTimer(at: number | undefined): void {
    this.core.armTimer(at);
  }

  send(outbound: Outbound): void {
    const core = this.core;
    if (core.state !== "open") return;
    const message = outbound.message;
    const requestId = requestIdOf(message);
    if (isJsonObject(message) && typeof message.method === "string") {
      if (message.method === "initialize" && !this.forceModern) this.modern = false;
      else if (requestId !== undefined && hasModernEnvelope(isJsonObject(message.params) ? message.params : undefined)) this.modern = true;
    }
    if (this.modern) {
      this.modernEra.send(message, requestId);
      return;
    }
    if (isJsonObject(message) && message.method === "initialize" && core.initMessage === undefined && requestId !== undefined) {
      core.initMessage = message;
      core.initId = requestId;
      core.inflight.add(requestId);
      // Until the initialize POST's status says which transport this is, later sends wait.
      const unblock = core.block();
      core.run(() => this.sessionEra.postInitialize(message, requestId, unblock));
      return;
    }
    if (isJsonObject(message) && message.method === "notifications/cancelled" && isJsonObject(message.params)) {
      const cancelled = message.params.requestId;
      if (isRequestId(cancelled)) core.abandon(cancelled);
    }
    if (requestId !== undefined) core.inflight.add(requestId);
    core.schedule(() => core.run(() => this.sessionEra.post(message, requestId, false)));
  }

  // ── close ───────────────────────────────────────────────

  /** Aborts open streams and fetches, DELETEs the session (405 is fine), then delivers EOF to the client. */
  close(): Promise<void> {
    if (this.closing !== undefined) return this.closing;
    if (this.core.state === "closed") return Promise.resolve();
    this.core.state = "closing";
    this.closing = this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const core = this.core;
    core.teardown();
    if (core.mode === "streamable" && core.session !== undefined) await this.sessionEra.deleteSession(core.session);
    core.state = "closed";
    core.armTimer(undefined);
    core.receiver?.receiveEof();
  }
}

// ── connectHttp ──────────────────────────────────────────────

export interface ConnectHttpOptions<S = unknown> extends ClientOptions, HttpClientTransportOptions<S> {
  /** Timeout for initialize. Default: defaultTimeoutMs. */
  connectTimeoutMs?: number;
}

export interface HttpConnection<S = unknown> {
  readonly client: Client;
  readonly transport: HttpClientTransport<S>;
  readonly server: ConnectResult;
  /** Closes the transport (DELETE, then EOF: pending requests reject with ConnectionClosedError). */
  close(): Promise<void>;
}

/** The server/discover probe's timeout when OAuth may run during it (default without OAuth: 5 s, client.ts). */
const AUTH_PROBE_TIMEOUT_MS = 120_000;

/** A Client over Streamable HTTP (or HTTP+SSE after a fallback), initialized and operating. */
export async function connectHttp<S>(options: ConnectHttpOptions<S>): Promise<HttpConnection<S>> {
  // AUTH-16: the caller's request timeout, when it gave one, is also each OAuth request's deadline.
  // T-05: and each POST that carries no request.
  const callerTimeout = options.defaultTimeoutMs ?? options.connectTimeoutMs;
  const given = callerTimeout !== undefined && Number.isFinite(callerTimeout) ? callerTimeout : undefined;
  const transport = new HttpClientTransport<S>({
    ...options,
    ...(options.postTimeoutMs === undefined && given !== undefined ? { postTimeoutMs: given } : {}),
    ...(options.auth !== undefined && given !== undefined ? { auth: options.auth.withRequestTimeout(given) } : {}),
  });
  // With OAuth, the probe's answer may wait for an authorization (a user at a browser): the probe
  // timeout that tells a silent older server apart must not run out during it.
  const client = new Client(
    transport,
    options.auth !== undefined && options.probeTimeoutMs === undefined ? { ...options, probeTimeoutMs: AUTH_PROBE_TIMEOUT_MS } : options,
  );
  // client.input follows the Client to a new engine when its modern probe falls back to initialize.
  transport.attach(client.input);
  let server: ConnectResult;
  try {
    server = await client.connect({ timeoutMs: options.connectTimeoutMs });
  } catch (error) {
    await transport.close();
    throw error;
  }
  return { client, transport, server, close: () => transport.close() };
}
