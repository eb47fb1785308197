// The MCP engine, for the client and the server role, in both eras: the session era
// (2024-11-05 … 2025-11-25: initialize, phases, negotiated capabilities) and the stateless
// revision 2026-07-28 (per-request `_meta` envelope). A dual-era server picks the era from the
// first request other than a server/discover probe; a client picks it with initialize() or
// startModern().
//
// Methods come in four kinds (the quinn-proto taxonomy):
//   A. getters   role, phase, era, negotiatedVersion, peerInfo, peerCapabilities, ...;
//                snapshot() reads the negotiated session as JSON, Engine.restore() builds one from it
//   B. inputs    receiveBytes, receiveMessage, receiveEof, handleTimeout
//   C. commands  initialize / startModern (client), acceptInitialize (server), request,
//                notify, respond, respondError, sendProgress, sendTaskProgress, cancel,
//                setDeadline, endSubscriptions, close
//   D. outputs   pollOutbound / takeBytes, pollEvent, takeEvents, nextDeadline
//
// Drain contract: after every input or command, drain outbound, then events, then read
// nextDeadline(). Commands issued while handling events are fine; drain again after them.
//
// This class is the orchestration: the inbound pipeline, the era, the gates, the handshake.
// The rules live in tables and sibling modules: which message is legal when (lib/methods.ts,
// gate()), the lifecycle (lib/lifecycle.ts), what differs by version (lib/versions.ts), our
// requests and their deadlines (lib/outbound-requests.ts), the peer's requests
// (lib/inbound-requests.ts), progress (lib/progress.ts), replies and events (lib/output.ts),
// feature rules (lib/features.ts), params (lib/params.ts), the 2026-07-28 server side
// (lib/modern-server.ts, rules in lib/modern.ts).
//
// Invariants:
// - no clock, timer, randomness, Promise or I/O: time is an argument (absolute numbers in
//   whatever unit the host uses for every time it passes);
// - inputs never throw; a peer's mistake queues the reply it is owed, then a violation
//   event; an exception of ours inside an input closes the engine ("internal") instead;
//   commands throw LocalProtocolError and queue nothing when refused;
// - every message passes gate() in both directions;
// - once closed, the engine stays closed: inputs are ignored, commands throw, queued
//   output still drains.

import { ALL_CAPS, capabilityMask } from "./capabilities.js";
import { classify, isJsonObject, isRequestId, type ErrorObject, type JsonObject, type RequestEnvelope, type RequestId } from "./envelope.js";
import type { EngineLimits, EngineOptions, EngineSnapshot, ArgsFor, NotifyOptions, Outbound, OutgoingNotifications, OutgoingRequests, RequestOptions } from "./engine-types.js";
import { DEFAULT_LIMITS } from "./engine-types.js";
import { ErrorCode, LocalProtocolError, describeValue } from "./errors.js";
import type { ClosedEvent, EngineEvent } from "./events.js";
import { Features } from "./features.js";
import { DEFAULT_CLIENT_MAX_LINE_BYTES, DEFAULT_MAX_LINE_BYTES, LineDecoder, type DecodedItem, type FramingError } from "./framing.js";
import { InboundRequests } from "./inbound-requests.js";
import { nextState, phaseOf, type LifecycleEvent, type LifecycleState } from "./lifecycle.js";
import { PHASE_NAMES, Phase, gate, methodTable, methodTraits, type GateContext, type MethodTable, type PhaseBit, type PhaseName, type Role } from "./methods.js";
import { META_SERVER_INFO, META_SUBSCRIPTION_ID, hasModernEnvelope, requestEnvelope, resultTypeOf, withEnvelope } from "./modern.js";
import { ModernServer } from "./modern-server.js";
import { OutboundRequests, type PendingOut } from "./outbound-requests.js";
import { Output, type BatchGroup } from "./output.js";
import { paramsCheck, resultCheck } from "./params.js";
import { progressProblem, progressTokenOf } from "./progress.js";
import { validate } from "./schema.js";
import type { Implementation } from "./types.js";
import { SESSION_VERSIONS, VERSION_PROFILES, isProtocolVersion, isSessionVersion, newestVersion, type ModernVersion, type ProtocolVersion, type SessionVersion, type VersionProfile } from "./versions.js";

export * from "./engine-types.js";

const NO_OPTIONS: RequestOptions & NotifyOptions = Object.freeze({});

function positiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`limits.${name} must be a positive integer; got ${String(value)}`);
}

function cancellable(method: string): boolean {
  return methodTraits(method)?.cancellable !== false;
}

export class Engine<R extends Role = Role> {
  readonly role: R;
  /** The session-era versions we speak (initialize negotiates among these). */
  readonly versions: readonly SessionVersion[];
  /** The modern versions we speak (2026-07-28). */
  readonly modernVersions: readonly ModernVersion[];
  readonly limits: Readonly<EngineLimits>;
  readonly strict: boolean;
  private readonly info: Implementation;
  private readonly capabilities: JsonObject;
  private readonly instructions: string | undefined;
  private readonly autoInitialize: boolean;
  private readonly validateResults: boolean;
  private readonly logLevel: string | undefined;

  private state: LifecycleState = "awaiting-init";
  /** The gating phase of `state`, kept beside it because every message reads it. */
  private phaseBit: PhaseBit = Phase.AwaitingInit;
  private version: ProtocolVersion | undefined;
  /** "undecided" until the first message of a dual-era server (or a client's first command) picks one. */
  private eraState: "undecided" | "session" | "modern";
  /** The version tables used before negotiation. */
  private readonly defaultVersion: ProtocolVersion;
  /** A modern client's per-request envelope (g.1), built once. */
  private modernEnvelope: JsonObject | undefined;
  private profile: VersionProfile | undefined;
  private table: MethodTable;
  private readonly ownCaps: number;
  private peerCaps = ALL_CAPS;
  private peerCapabilitiesObject: JsonObject | undefined;
  private peerInfoObject: JsonObject | undefined;
  private peerInstructions: string | undefined;
  private outboundGate!: GateContext;
  private inboundGate!: GateContext;

  private readonly outRequests: OutboundRequests;
  private initializeId: number | undefined;
  private readonly inRequests = new InboundRequests();
  /** Server with autoInitialize false: the initialize our host has yet to accept or refuse. */
  private pendingInitialize: { readonly id: RequestId; readonly params: JsonObject; readonly version: SessionVersion } | undefined;
  private readonly features: Features;
  private readonly output = new Output();
  /** A server that speaks 2026-07-28. */
  private readonly modernServer: ModernServer | undefined;
  private readonly decoder: LineDecoder;
  private readonly decoded: DecodedItem[] = [];

  constructor(options: EngineOptions<R>) {
    if (options.role !== "client" && options.role !== "server") {
      throw new RangeError(`role must be "client" or "server"; got ${describeValue(options.role)}`);
    }
    this.role = options.role;
    const versions = options.versions ?? SESSION_VERSIONS;
    if (versions.length === 0) throw new RangeError("versions must name at least one protocol version");
    for (const v of versions) if (!isProtocolVersion(v)) throw new RangeError(`unsupported protocol version ${describeValue(v)}; expected one of ${Object.keys(VERSION_PROFILES).join(", ")}`);
    this.versions = versions.filter(isSessionVersion);
    this.modernVersions = versions.filter((v): v is ModernVersion => VERSION_PROFILES[v].era === "modern");
    this.defaultVersion = this.versions.length > 0 ? newestVersion(this.versions) : newestVersion(this.modernVersions);
    this.eraState = this.modernVersions.length === 0 ? "session" : this.versions.length === 0 && this.role === "server" ? "modern" : "undecided";
    this.logLevel = options.logLevel;
    const firstId = options.firstRequestId ?? 0;
    if (!Number.isSafeInteger(firstId) || firstId < 0) throw new RangeError(`firstRequestId must be a non-negative safe integer; got ${String(firstId)}`);
    this.outRequests = new OutboundRequests(firstId);
    this.info = options.info;
    this.capabilities = (options.capabilities ?? {}) as JsonObject;
    this.instructions = options.instructions;
    this.strict = options.strict ?? false;
    this.autoInitialize = options.autoInitialize ?? true;
    this.validateResults = options.validateResults ?? false;
    const limits: EngineLimits = { ...DEFAULT_LIMITS, maxLineBytes: this.role === "client" ? DEFAULT_CLIENT_MAX_LINE_BYTES : DEFAULT_MAX_LINE_BYTES, ...options.limits };
    for (const name of Object.keys(DEFAULT_LIMITS) as Array<keyof EngineLimits>) positiveInteger(name, limits[name]);
    this.limits = limits;
    this.decoder = new LineDecoder({ maxLineBytes: limits.maxLineBytes });
    this.ownCaps = capabilityMask(this.capabilities);
    this.features = new Features(this.role, limits);
    this.table = methodTable(this.defaultVersion);
    this.modernServer =
      this.role === "server" && this.modernVersions.length > 0
        ? new ModernServer({
            output: this.output,
            inbound: this.inRequests,
            modernVersions: this.modernVersions,
            supportedVersions: () => this.supportedVersions,
            capabilities: this.capabilities,
            ownCaps: this.ownCaps,
            serverInfo: this.info as unknown as JsonObject,
            instructions: this.instructions,
            discoverAnyVersion: options.discoverAnyVersion ?? true,
            serverInfoInResults: options.serverInfoInResults ?? true,
            maxPendingInbound: limits.maxPendingInbound,
            gate: (method, params) => gate(this.inboundGate, false, method, "request", params),
          })
        : undefined;
    if (this.eraState === "modern") this.enterModern(this.modernVersions[0] as ModernVersion);
    this.refreshGates();
  }

  // ── A. getters ────────────────────────────────────────────────────────────────

  get phase(): PhaseName {
    return PHASE_NAMES[this.phaseBit];
  }

  get isClosed(): boolean {
    return this.phaseBit === Phase.Closed;
  }

  /** The session's version (session era), or the modern version in use (modern era). */
  get negotiatedVersion(): ProtocolVersion | undefined {
    return this.version;
  }

  /** Which era this endpoint speaks: "undecided" until a dual-era server's first message or a client's first command. */
  get era(): "undecided" | "session" | "modern" {
    return this.eraState;
  }

  get peerInfo(): JsonObject | undefined {
    return this.peerInfoObject;
  }

  get peerCapabilities(): JsonObject | undefined {
    return this.peerCapabilitiesObject;
  }

  /** Server instructions received by a client. */
  get instructionsFromPeer(): string | undefined {
    return this.peerInstructions;
  }

  get ownCapabilities(): JsonObject {
    return this.capabilities;
  }

  /** The code for a missing resource in the negotiated version (-32002 in every session-era version). */
  get resourceNotFoundCode(): number {
    return (this.profile ?? VERSION_PROFILES[this.defaultVersion]).resourceNotFoundCode;
  }

  /** Server: the logging level the client set with logging/setLevel, if any. */
  get loggingLevel(): string | undefined {
    return this.features.loggingLevel;
  }

  /** Server: whether the client is subscribed to `uri` (or to a resource containing it). */
  isSubscribed(uri: string): boolean {
    return this.features.isSubscribed(uri);
  }

  /** The id our next request will get. */
  get nextRequestId(): number {
    return this.outRequests.nextId;
  }

  get pendingOutboundCount(): number {
    return this.outRequests.size;
  }

  get pendingInboundCount(): number {
    return this.inRequests.size;
  }

  /** Entries of the per-session tables a peer can grow (each bounded by its limit), for hosts that watch memory. */
  get tableSizes(): Features["tableSizes"] {
    return this.features.tableSizes;
  }

  /** A JSON snapshot of the negotiated session (see EngineSnapshot). Throws before negotiation and after close. */
  snapshot(): EngineSnapshot {
    if (this.version === undefined || !isSessionVersion(this.version) || this.peerInfoObject === undefined || this.peerCapabilitiesObject === undefined || this.phaseBit === Phase.Closed) {
      throw new LocalProtocolError({ rule: "L-01", expected: "a negotiated, open session", got: `phase ${this.phase}` });
    }
    const state = this.features.exportState();
    return {
      format: 1,
      role: this.role,
      version: this.version,
      phase: this.phaseBit === Phase.Operating ? "operating" : "initializing",
      peerInfo: this.peerInfoObject,
      peerCapabilities: this.peerCapabilitiesObject,
      peerInstructions: this.peerInstructions,
      nextId: this.outRequests.nextId,
      loggingLevel: state.loggingLevel,
      subscriptions: state.subscriptions,
    };
  }

  /** An engine that carries on the session a snapshot describes, with the same options it was created with. */
  static restore<R extends Role>(options: EngineOptions<R>, snapshot: EngineSnapshot): Engine<R> {
    if (snapshot.format !== 1 || snapshot.role !== options.role || !isSessionVersion(snapshot.version)) {
      throw new RangeError(`snapshot does not fit: format ${String(snapshot.format)}, role ${String(snapshot.role)}, version ${String(snapshot.version)}`);
    }
    const engine = new Engine(options);
    if (!engine.versions.includes(snapshot.version)) throw new RangeError(`snapshot version ${snapshot.version} is not among ${engine.versions.join(", ")}`);
    engine.peerInfoObject = snapshot.peerInfo;
    engine.peerCapabilitiesObject = snapshot.peerCapabilities;
    engine.peerInstructions = snapshot.peerInstructions;
    engine.outRequests.nextId = snapshot.nextId;
    engine.features.importState(snapshot);
    engine.eraState = "session";
    engine.negotiate(snapshot.version, snapshot.peerCapabilities);
    engine.enter(snapshot.phase === "operating" ? "operating" : "initializing");
    return engine;
  }

  // ── B. inputs ─────────────────────────────────────────────────────────────────
  // Every input runs inside a try: an exception that escapes the protocol code is a bug of
  // ours, and it must neither reach the host nor leave half-processed input behind to throw
  // again on the next call. It closes the engine for good (reason "internal", reported once);
  // queued output still drains and later input is ignored, like h11's ERROR state.

  /** Newline-delimited JSON bytes from the transport. `now` lets progress push back inactivity deadlines. */
  receiveBytes(chunk: Uint8Array, now?: number): void {
    if (this.phaseBit === Phase.Closed) return;
    try {
      this.decoder.push(chunk, this.decoded);
      this.processDecoded(now);
    } catch (error) {
      this.failInternally(error);
    }
  }

  /** One already-parsed JSON value (an HTTP body, a postMessage payload); arrays are batches. */
  receiveMessage(value: unknown, now?: number): void {
    if (this.phaseBit === Phase.Closed) return;
    try {
      this.receiveValue(value, undefined, now);
    } catch (error) {
      this.failInternally(error);
    }
  }

  /** The transport ended. A partial last line is reported; every pending request is settled. */
  receiveEof(): void {
    if (this.phaseBit === Phase.Closed) return;
    try {
      this.decoder.finish(this.decoded);
      this.processDecoded(undefined);
      if (!this.isClosed) this.shutdown("eof", undefined, "the transport ended");
    } catch (error) {
      this.failInternally(error);
    }
  }

  /** Expires deadlines at or before `now`. Spurious calls are no-ops. */
  handleTimeout(now: number): void {
    if (this.phaseBit === Phase.Closed || !this.outRequests.hasDeadlines) return;
    try {
      for (const { pending, which } of this.outRequests.takeExpired(now)) {
        if (pending.id === this.initializeId) {
          this.outRequests.settle(pending);
          this.output.events.push({ kind: "timeout", id: pending.id, method: pending.method, deadline: which });
          this.shutdown("fatal", "L-01", "initialize timed out");
          return;
        }
        this.outRequests.abandon(pending);
        this.output.events.push({ kind: "timeout", id: pending.id, method: pending.method, deadline: which });
        this.output.queue({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: pending.id, reason: `timeout (${which} deadline)` } }, undefined);
      }
    } catch (error) {
      this.failInternally(error);
    }
  }

  private failInternally(error: unknown): void {
    this.decoded.length = 0;
    if (this.phaseBit === Phase.Closed) return;
    const detail = `unexpected ${error instanceof Error ? `${error.name}: ${error.message}` : describeValue(error)}`;
    try {
      this.shutdown("internal", "internal", detail);
    } catch {
      // Even settling failed: close without settling, so that nothing runs on broken state again.
      this.state = "closed";
      this.phaseBit = Phase.Closed;
      this.output.events.push({ kind: "closed", reason: "internal", rule: "internal", detail });
    }
  }

  // ── C. commands ───────────────────────────────────────────────────────────────

  /** Client: queue `initialize` with our newest version, capabilities and info. Returns its id. */
  initialize(options: Pick<RequestOptions, "deadline" | "totalDeadline"> = {}): number {
    this.assertOpen("initialize");
    if (this.role !== "client") throw new LocalProtocolError({ rule: "L-02", expected: "initialize sent by the client", got: "the server role", method: "initialize" });
    if (this.eraState === "modern" || this.versions.length === 0) {
      throw new LocalProtocolError({ rule: "L-01", expected: "initialize with a session-era version configured, before any modern request", got: `era ${this.eraState}`, method: "initialize", phase: this.phase });
    }
    this.refuseUnless("initialize-sent", "initialize");
    this.eraState = "session";
    const params: JsonObject = { protocolVersion: newestVersion(this.versions), capabilities: this.capabilities, clientInfo: this.info as unknown as JsonObject };
    const id = this.sendRequest("initialize", params, options, undefined);
    this.initializeId = id;
    this.move("initialize-sent");
    return id;
  }

  /**
   * Client: speak the modern revision (2026-07-28): no handshake; every request carries the
   * per-request `_meta` envelope. Send server/discover to learn the server's capabilities.
   */
  startModern(version?: ModernVersion): void {
    this.assertOpen("startModern");
    const chosen = version ?? this.modernVersions[0];
    if (this.role !== "client" || this.eraState !== "undecided" || chosen === undefined || !this.modernVersions.includes(chosen)) {
      throw new LocalProtocolError({ rule: "g.1", expected: "a client configured with a modern version, before any other command", got: `role ${this.role}, era ${this.eraState}` });
    }
    this.enterModern(chosen);
  }

  /** Modern server: ends every open subscriptions/listen stream with its final result (g.5). */
  endSubscriptions(): void {
    this.assertOpen("subscriptions/listen");
    this.modernServer?.endAll();
  }

  /** Server with autoInitialize false: answer the pending initialize with our result. */
  acceptInitialize(): void {
    this.assertOpen("initialize");
    const pending = this.pendingInitialize;
    if (pending === undefined) throw new LocalProtocolError({ rule: "L-01", expected: "an initialize request awaiting acceptance", got: "none", method: "initialize" });
    this.pendingInitialize = undefined;
    this.inRequests.delete(pending.id);
    this.completeInitialize(pending.id, pending.params, pending.version, undefined);
  }

  /** Sends a request; returns the id it was given. Throws LocalProtocolError if the protocol forbids it now. */
  request<M extends string>(method: M, ...args: ArgsFor<OutgoingRequests<R>, M, RequestOptions>): number;
  request(method: string, requestParams?: unknown, requestOptions?: unknown): number {
    let params = requestParams as JsonObject | undefined;
    const options = (requestOptions ?? NO_OPTIONS) as RequestOptions;
    this.assertOpen(method);
    if (this.eraState === "modern" && this.role === "server") {
      throw new LocalProtocolError({ rule: "g.3", expected: "no server-initiated requests in 2026-07-28 (ask through an input_required result)", got: method, method });
    }
    this.assertAllowed(method, "request", params);
    if (this.modernEnvelope !== undefined) params = withEnvelope(params, this.modernEnvelope);
    if (this.outRequests.size >= this.limits.maxPendingOutbound) {
      throw new LocalProtocolError({ rule: "limit", expected: `at most ${this.limits.maxPendingOutbound} requests in flight`, got: `${this.outRequests.size}`, method });
    }
    return this.sendRequest(method, params, options, options.relatedRequestId);
  }

  /**
   * Sends a notification. Returns false when a feature rule says to drop it instead (a log
   * message below the level the client set). Cancellation, progress and `initialized` have
   * their own commands.
   */
  notify<M extends string>(method: M, ...args: ArgsFor<OutgoingNotifications<R>, M, NotifyOptions>): boolean;
  notify(method: string, notificationParams?: unknown, notifyOptions?: unknown): boolean {
    const params = notificationParams as JsonObject | undefined;
    const options = (notifyOptions ?? NO_OPTIONS) as NotifyOptions;
    this.assertOpen(method);
    this.assertAllowed(method, "notification", params);
    if (this.eraState === "modern" && this.modernServer !== undefined) return this.modernServer.notify(method, params, options.relatedRequestId);
    if (!this.features.outboundNotification(method, params, this.sessionVersion)) return false;
    this.output.queue(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params }, options.relatedRequestId);
    return true;
  }

  /** Answers a peer request. A request the peer cancelled is dropped silently (X-04). */
  respond(id: RequestId, value: object): void {
    this.assertOpen("respond");
    const result = value as JsonObject;
    if (!isJsonObject(result)) throw new LocalProtocolError({ rule: "M-04", expected: "result as an object", got: describeValue(result) });
    const inFlight = this.inRequests.get(id);
    if (inFlight !== undefined && this.pendingInitialize?.id === id) {
      throw new LocalProtocolError({ rule: "L-03", expected: "acceptInitialize() or respondError() for initialize", got: "respond()", method: "initialize" });
    }
    let answer = result;
    if (inFlight?.modern !== undefined && this.modernServer !== undefined) answer = this.modernServer.result(inFlight, inFlight.modern, result);
    else if (inFlight !== undefined) this.features.outboundResult(inFlight.method, inFlight.params, result, this.sessionVersion, inFlight.token);
    const pending = this.inRequests.take(id);
    if (pending === undefined) return;
    this.modernServer?.forget(id);
    this.output.reply({ jsonrpc: "2.0", id, result: answer }, pending.group, id);
  }

  /** Answers a peer request with a JSON-RPC error. */
  respondError(id: RequestId, code: number, message: string, data?: unknown): void {
    this.assertOpen("respondError");
    if (!Number.isInteger(code)) throw new LocalProtocolError({ rule: "M-05", expected: "an integer error code", got: describeValue(code) });
    if (typeof message !== "string") throw new LocalProtocolError({ rule: "M-05", expected: "a string error message", got: describeValue(message) });
    const inFlight = this.inRequests.get(id);
    if (inFlight?.modern !== undefined && (code === ErrorCode.ResourceNotFound || code === ErrorCode.UrlElicitationRequired)) {
      // g.10: 2026-07-28 retired -32002 (a missing resource is -32602) and -32042.
      throw new LocalProtocolError({ rule: "g.10", expected: "a code 2026-07-28 still defines (-32602 for a missing resource)", got: String(code), code, method: inFlight.method });
    }
    if (inFlight !== undefined) this.features.outboundError(code, data, this.sessionVersion);
    if (this.pendingInitialize !== undefined && this.pendingInitialize.id === id) {
      this.pendingInitialize = undefined;
      this.move("initialize-refused");
    }
    const pending = this.inRequests.take(id);
    if (pending === undefined) return;
    this.modernServer?.forget(id);
    const error: ErrorObject = data === undefined ? { code, message } : { code, message, data };
    this.output.reply({ jsonrpc: "2.0", id, error }, pending.group, id);
  }

  /** Reports progress on a peer request that carried a progress token. Refused after the response (P-04). */
  sendProgress(id: RequestId, progress: number, total?: number, message?: string): void {
    this.assertOpen("notifications/progress");
    const pending = this.inRequests.get(id);
    if (pending === undefined) {
      throw new LocalProtocolError({ rule: "P-04", expected: "progress for a request still in flight", got: `id ${describeValue(id)} not in flight`, method: "notifications/progress" });
    }
    if (pending.token === undefined) {
      throw new LocalProtocolError({ rule: "P-01", expected: "a request that carried _meta.progressToken", got: "no token", method: "notifications/progress" });
    }
    if (pending.modern !== undefined && pending.method === "subscriptions/listen") {
      throw new LocalProtocolError({ rule: "g.5", expected: "progress only for requests other than subscriptions/listen", got: "a listen stream", method: "notifications/progress" });
    }
    const problem = progressProblem(pending.lastProgressSent, progress);
    if (problem !== undefined) throw new LocalProtocolError({ rule: "P-05", expected: problem[0], got: problem[1], method: "notifications/progress" });
    pending.lastProgressSent = progress;
    this.queueProgress(pending.token, progress, total, message, id);
  }

  /** Reports progress on a task we created, on the token of the request that created it (P-08). */
  sendTaskProgress(taskId: string, progress: number, total?: number, message?: string): void {
    this.assertOpen("notifications/progress");
    const record = this.features.taskForProgress(taskId, progress);
    record.lastProgress = progress;
    this.queueProgress(record.token, progress, total, message, undefined);
  }

  /**
   * Cancels one of our requests: queues notifications/cancelled and forgets it; a late
   * response is dropped silently. Returns false when the request had already settled
   * (the race of X-07). Throws for initialize (X-02) and for ids we never issued (X-01).
   */
  cancel(id: number, reason?: string): boolean {
    this.assertOpen("notifications/cancelled");
    const pending = this.outRequests.get(id);
    if (pending !== undefined && !cancellable(pending.method)) throw new LocalProtocolError({ rule: "X-02", expected: "a request other than initialize", got: pending.method, method: pending.method });
    if (pending === undefined) {
      if (id === this.initializeId) throw new LocalProtocolError({ rule: "X-02", expected: "a request other than initialize", got: "initialize", method: "initialize" });
      this.outRequests.assertIssued(id);
      return false;
    }
    this.outRequests.abandon(pending);
    const params: JsonObject = reason === undefined ? { requestId: id } : { requestId: id, reason };
    this.output.queue({ jsonrpc: "2.0", method: "notifications/cancelled", params }, undefined);
    return true;
  }

  /** Moves the inactivity deadline of one of our requests (undefined: none). The total deadline never moves. */
  setDeadline(id: number, deadline: number | undefined): void {
    this.assertOpen("setDeadline");
    const pending = this.outRequests.get(id);
    if (pending === undefined) throw new LocalProtocolError({ rule: "ID-04", expected: "a request of ours in flight", got: describeValue(id) });
    this.outRequests.setDeadline(pending, deadline);
  }

  /** Closes the session locally: every pending request is settled; queued output still drains. */
  close(): void {
    if (this.phaseBit === Phase.Closed) return;
    this.shutdown("local", undefined, "closed by the host");
  }

  // ── D. outputs ────────────────────────────────────────────────────────────────

  /** The next outbound message, oldest first. */
  pollOutbound(): Outbound | undefined {
    return this.output.pollOutbound();
  }

  /** Every queued outbound message as newline-delimited UTF-8 JSON in one buffer; undefined when none. */
  takeBytes(): Uint8Array | undefined {
    return this.output.takeBytes();
  }

  /** The next event, oldest first. */
  pollEvent(): EngineEvent | undefined {
    return this.output.pollEvent();
  }

  /** Appends every queued event to `into`, oldest first. */
  takeEvents(into: EngineEvent[]): void {
    this.output.takeEvents(into);
  }

  /** The earliest deadline of our pending requests, or undefined when none. */
  nextDeadline(): number | undefined {
    return this.phaseBit === Phase.Closed ? undefined : this.outRequests.nextDeadline();
  }

  // ── inbound processing ────────────────────────────────────────────────────────

  private processDecoded(now: number | undefined): void {
    const items = this.decoded;
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as DecodedItem;
      if (this.phaseBit === Phase.Closed) break;
      if (item.ok) this.receiveValue(item.value, undefined, now);
      else if (item.reason === "truncated") this.output.violation("M-01", "a newline after the last message", item.detail, undefined, undefined, undefined);
      else if (item.reason === "line-too-long") this.onLineTooLong(item);
      else {
        this.output.replyError(null, ErrorCode.ParseError, "Parse error", undefined, undefined);
        this.output.violation("M-01", "a UTF-8 JSON message per line", `line ${item.line}: ${item.detail}`, ErrorCode.ParseError, undefined, undefined);
      }
    }
    items.length = 0;
  }

  /**
   * A line over maxLineBytes, skipped unread: its scanned facts (lib/line-scan.ts) still say
   * who it was for. A response settles the request it answers at once (not at its deadline);
   * a request is refused with its own id; a notification gets no reply; anything else,
   * -32600 with no readable id.
   */
  private onLineTooLong(item: FramingError): void {
    const limit = this.limits.maxLineBytes;
    const facts = item.facts;
    const got = facts === undefined ? `line ${item.line} longer` : `line ${item.line} of ${facts.bytes} bytes`;
    const id = facts?.id;
    if (facts !== undefined && !facts.hasMethod && facts.hasId) {
      const pending = typeof id === "number" ? this.outRequests.get(id) : undefined;
      if (pending !== undefined) {
        this.outRequests.settle(pending);
        this.output.events.push({ kind: "response-too-large", id: pending.id, method: pending.method, bytes: facts.bytes, limit });
      }
      this.output.violation("limit", `lines of at most ${limit} bytes`, got, undefined, id, pending?.method);
      if (pending !== undefined && pending.id === this.initializeId) this.shutdown("fatal", "limit", `the initialize result is over ${limit} bytes`);
      return;
    }
    if (facts !== undefined && facts.hasMethod && !facts.hasId) {
      this.output.violation("limit", `lines of at most ${limit} bytes`, got, undefined, undefined, undefined);
      return;
    }
    this.output.replyError(id ?? null, ErrorCode.InvalidRequest, `Line exceeds maxLineBytes (${limit})`, undefined, undefined);
    this.output.violation("limit", `lines of at most ${limit} bytes`, got, ErrorCode.InvalidRequest, id, undefined);
  }

  private receiveValue(value: unknown, group: BatchGroup | undefined, now: number | undefined): void {
    const env = classify(value);
    switch (env.kind) {
      case "request":
        this.onRequest(env, group);
        return;
      case "notification":
        this.onNotification(env.method, env.params, now);
        return;
      case "result":
        this.onResponse(env.id, env.result, undefined);
        return;
      case "error":
        if (env.id === null) this.output.diagnostic("M-06", "an error response with the request's id", "no id", undefined, env.error);
        else this.onResponse(env.id, undefined, env.error);
        return;
      case "batch":
        this.onBatch(env.items, group, now);
        return;
      case "invalid": {
        const owesReply = env.shape === "request" || env.shape === "unknown";
        if (owesReply) {
          if (group !== undefined) group.remaining++;
          this.output.replyError(env.id, ErrorCode.InvalidRequest, "Invalid request", group, undefined);
        }
        // A malformed notification is never answered and only reported as a diagnostic.
        if (env.shape === "notification") this.output.diagnostic(env.rule, env.expected, env.got, undefined);
        else this.output.violation(env.rule, env.expected, env.got, owesReply ? ErrorCode.InvalidRequest : undefined, env.id ?? undefined, undefined);
      }
    }
  }

  /** M-09: a batch, where the version profile allows them (before negotiation: when any version we speak does). */
  private onBatch(items: readonly unknown[], outer: BatchGroup | undefined, now: number | undefined): void {
    const allowed = this.profile !== undefined ? this.profile.batching : this.versions.some((v) => VERSION_PROFILES[v].batching);
    let problem: string | undefined;
    if (outer !== undefined) problem = "a batch nested in a batch";
    else if (!allowed) problem = `a batch under ${this.version ?? "a version not yet negotiated"}`;
    else if (items.length === 0) problem = "an empty batch";
    else if (items.length > this.limits.maxBatchLength) problem = `a batch of ${items.length} entries (limit ${this.limits.maxBatchLength})`;
    if (problem !== undefined) {
      if (outer !== undefined) outer.remaining++;
      this.output.replyError(null, ErrorCode.InvalidRequest, "Invalid request", outer, undefined);
      const expected = outer === undefined && allowed ? `a batch of 1 to ${this.limits.maxBatchLength} entries` : "a single message (batches only under 2025-03-26)";
      this.output.violation("M-09", expected, problem, ErrorCode.InvalidRequest, undefined, undefined);
      return;
    }
    const group: BatchGroup = { remaining: 0, open: true, replies: [] };
    for (const item of items) {
      if (this.phaseBit === Phase.Closed) return;
      this.receiveValue(item, group, now);
    }
    group.open = false;
    this.output.flushGroup(group);
  }

  /** The first problem of a message's params against its method's schema in the session's version. */
  private paramsProblem(method: string, params: JsonObject | undefined): { path: string; expected: string; got: string } | undefined {
    const version = this.sessionVersion ?? (this.versions.length > 0 ? newestVersion(this.versions) : undefined);
    const check = version === undefined ? undefined : paramsCheck(version, method);
    return check === undefined ? undefined : validate(check, params, "params");
  }

  private onRequest(env: RequestEnvelope, group: BatchGroup | undefined): void {
    const { id, method, params } = env;
    if (group !== undefined) group.remaining++;
    if (this.inRequests.has(id)) {
      this.output.refuse(id, method, group, { code: ErrorCode.InvalidRequest, rule: "ID-03", expected: "an id not already in flight", got: `duplicate id ${describeValue(id)}` });
      return;
    }
    if (this.eraState === "modern" && this.role === "client") {
      // g.9: a modern server never sends requests, and a modern client never writes responses.
      if (group !== undefined) group.remaining--;
      this.output.violation("g.9", "no requests from a 2026-07-28 server", method, undefined, id, method);
      return;
    }
    if (this.modernServer !== undefined && this.eraState !== "session") {
      if (this.eraState === "undecided") {
        // A server/discover probe commits no era: a client that learns it must fall back sends initialize next, on this connection.
        if (method === "server/discover" && hasModernEnvelope(params)) {
          this.modernServer.answerDiscover(id, params, group);
          return;
        }
        if (hasModernEnvelope(params)) this.enterModern(this.modernVersions[0] as ModernVersion);
        else if (method === "initialize") this.eraState = "session";
      }
      if (this.eraState === "modern") {
        this.modernServer.onRequest(id, method, params, group);
        return;
      }
    }
    if (method === "initialize" && group !== undefined && this.role === "server") {
      this.output.refuse(id, method, group, { code: ErrorCode.InvalidRequest, rule: "L-05", expected: "initialize outside any batch", got: "initialize in a batch" });
      return;
    }
    const refusal = gate(this.inboundGate, false, method, "request", params);
    if (refusal !== undefined) {
      if (refusal.code !== undefined) {
        this.output.refuse(id, method, group, { code: refusal.code, rule: refusal.rule, expected: refusal.expected, got: refusal.got });
        return;
      }
      // C-08: a receiver that did not declare task support processes the request normally.
      this.output.diagnostic(refusal.rule, refusal.expected, refusal.got, method);
    }
    if (method === "ping") {
      this.output.reply({ jsonrpc: "2.0", id, result: {} }, group, id);
      return;
    }
    const paramsProblem = this.paramsProblem(method, params);
    if (paramsProblem !== undefined) {
      const rule = method === "initialize" ? "L-02" : "a.1";
      this.output.replyError(id, ErrorCode.InvalidParams, "Invalid params", group, { path: paramsProblem.path, expected: paramsProblem.expected, got: paramsProblem.got });
      this.output.violation(rule, `${paramsProblem.path}: ${paramsProblem.expected}`, paramsProblem.got, ErrorCode.InvalidParams, id, method);
      return;
    }
    if (method === "initialize") {
      this.onInitialize(id, params as JsonObject, group);
      return;
    }
    if (this.inRequests.size >= this.limits.maxPendingInbound) {
      this.output.refuse(id, method, group, { code: ErrorCode.InternalError, rule: "limit", expected: `at most ${this.limits.maxPendingInbound} requests in flight`, got: "one more" });
      return;
    }
    // After the limit: what the feature rules record (URL elicitation ids, subscriptions) belongs to accepted requests only.
    const featureRefusal = this.features.inboundRequest(method, params, this.ownCaps, this.sessionVersion);
    if (featureRefusal !== undefined && featureRefusal.code !== undefined) {
      this.output.refuse(id, method, group, { code: featureRefusal.code, rule: featureRefusal.rule, expected: featureRefusal.expected, got: featureRefusal.got });
      return;
    }
    const token = progressTokenOf(params);
    this.inRequests.add(id, method, params, undefined, token, group);
    this.output.events.push({ kind: "request", id, method, params, progressToken: token, modern: undefined });
  }

  /** Server: a valid initialize outside any batch (gated and params-checked like every request); the lifecycle decides the rest. */
  private onInitialize(id: RequestId, params: JsonObject, group: BatchGroup | undefined): void {
    const refusal = this.lifecycleRefusal("initialize-received");
    if (refusal !== undefined) {
      this.output.refuse(id, "initialize", group, { code: ErrorCode.InvalidRequest, rule: refusal.rule, expected: "a single initialize", got: `initialize in phase ${this.phase}` });
      return;
    }
    const requested = params.protocolVersion;
    // V-02/V-03: the same version if we speak it, otherwise our newest, always as a normal result.
    const version = (this.versions as readonly unknown[]).includes(requested) ? (requested as SessionVersion) : newestVersion(this.versions);
    this.move("initialize-received");
    if (this.autoInitialize) {
      this.completeInitialize(id, params, version, undefined);
      return;
    }
    this.pendingInitialize = { id, params, version };
    this.inRequests.add(id, "initialize", params, undefined, undefined, undefined);
    this.output.events.push({ kind: "initialize-request", id, params, version });
  }

  private completeInitialize(id: RequestId, params: JsonObject, version: SessionVersion, group: BatchGroup | undefined): void {
    const result: JsonObject = { protocolVersion: version, capabilities: this.capabilities, serverInfo: this.info as unknown as JsonObject };
    if (this.instructions !== undefined) result.instructions = this.instructions;
    this.output.reply({ jsonrpc: "2.0", id, result }, group, id);
    this.peerCapabilitiesObject = params.capabilities as JsonObject;
    this.peerInfoObject = params.clientInfo as JsonObject;
    this.negotiate(version, this.peerCapabilitiesObject);
    this.move("initialize-result-sent");
    this.output.events.push({ kind: "negotiated", version, peerInfo: this.peerInfoObject, peerCapabilities: this.peerCapabilitiesObject, instructions: undefined });
  }

  private onNotification(method: string, params: JsonObject | undefined, now: number | undefined): void {
    const refusal = gate(this.inboundGate, false, method, "notification", params);
    if (refusal !== undefined) {
      if (refusal.reason === "capability" || refusal.reason === "wrong-direction") this.output.violation(refusal.rule, refusal.expected, refusal.got, undefined, undefined, method);
      else this.output.diagnostic(refusal.rule, refusal.expected, refusal.got, method);
      return;
    }
    switch (method) {
      case "notifications/initialized":
        this.move("initialized-received");
        this.output.events.push({ kind: "ready" });
        return;
      case "notifications/cancelled":
        this.onCancelled(params);
        return;
      case "notifications/progress":
        this.onProgress(params, now);
        return;
      default:
        if (this.eraState === "modern") this.onModernNotification(method, params);
        else this.onSessionNotification(method, params);
    }
  }

  private onSessionNotification(method: string, params: JsonObject | undefined): void {
    const invalid = this.paramsProblem(method, params);
    if (invalid !== undefined) {
      this.output.violation("a.2", `${invalid.path}: ${invalid.expected}`, invalid.got, undefined, undefined, method);
      return;
    }
    const problem = this.features.inboundNotification(method, params);
    if (problem !== undefined) {
      this.output.violation(problem.rule, problem.expected, problem.got, undefined, undefined, method);
      return;
    }
    if (method === "notifications/tasks/status") this.releaseEndedTaskTokens();
    this.output.events.push({ kind: "notification", method, params });
  }

  private onCancelled(params: JsonObject | undefined): void {
    const id = params?.requestId;
    // X-05: malformed, unknown or finished targets are ignored silently; initialize cannot be cancelled (X-02).
    if (!isRequestId(id)) return;
    const reason = typeof params?.reason === "string" ? params.reason : undefined;
    if (this.eraState === "modern" && this.role === "client") {
      // g.5, g.7: a modern server (stdio) may end one of our listen streams this way, and only that.
      const ours = typeof id === "number" ? this.outRequests.get(id) : undefined;
      if (ours === undefined || ours.method !== "subscriptions/listen") return;
      this.outRequests.settle(ours);
      this.output.events.push({ kind: "request-ended", id: ours.id, method: ours.method, reason });
      return;
    }
    const pending = this.inRequests.cancel(id, cancellable);
    if (pending === undefined) return;
    this.modernServer?.forget(id);
    const group = pending.group;
    if (group !== undefined) {
      group.remaining--;
      this.output.flushGroup(group);
    }
    this.output.events.push({ kind: "cancelled", id, method: pending.method, reason });
  }

  private onProgress(params: JsonObject | undefined, now: number | undefined): void {
    const token = params?.progressToken;
    const progress = params?.progress;
    if (!isRequestId(token) || typeof progress !== "number" || !Number.isFinite(progress)) {
      this.output.diagnostic("P-01", "progressToken (string or integer) and a numeric progress", `token ${describeValue(token)}, progress ${describeValue(progress)}`, "notifications/progress");
      return;
    }
    const outcome = this.outRequests.progress(token, progress, now);
    if (outcome.kind === "unknown-token") {
      this.output.diagnostic("P-04", "progress for a request in flight", `unknown or finished token ${describeValue(token)}`, "notifications/progress");
      return;
    }
    const { pending } = outcome;
    if (outcome.kind === "not-increasing") {
      this.output.violation("P-05", outcome.expected, outcome.got, undefined, pending.id, pending.method);
      return;
    }
    const total = typeof params?.total === "number" ? params.total : undefined;
    const message = typeof params?.message === "string" ? params.message : undefined;
    this.output.events.push({ kind: "progress", id: pending.id, method: pending.method, token, progress, total, message });
  }

  private onResponse(id: RequestId, result: JsonObject | undefined, error: ErrorObject | undefined): void {
    const pending = typeof id === "number" ? this.outRequests.get(id) : undefined;
    if (pending === undefined) {
      // X-06: an answer to a request we cancelled (or timed out) is dropped silently.
      if (typeof id === "number" && this.outRequests.wasAbandoned(id)) return;
      this.output.violation("ID-04", "a response to a request in flight", `id ${describeValue(id)} unknown or already settled`, undefined, id, undefined);
      return;
    }
    // P-08: the token of a task-augmented request lives on until the task ends.
    const createsTask = result !== undefined && pending.params !== undefined && pending.params.task !== undefined && isJsonObject(result.task);
    this.outRequests.settle(pending, createsTask);
    if (pending.id === this.initializeId) this.onInitializeResponse(pending.id, result, error);
    else if (this.eraState === "modern" && result !== undefined) this.onModernResult(pending, result);
    else this.onSessionResponse(pending, result, error, createsTask);
  }

  private onSessionResponse(pending: PendingOut, result: JsonObject | undefined, error: ErrorObject | undefined, createsTask: boolean): void {
    const sessionVersion = this.sessionVersion ?? newestVersion(this.versions);
    if (result !== undefined && (this.validateResults || pending.method.startsWith("tasks/"))) {
      const check = resultCheck(sessionVersion, pending.method);
      const invalid = check === undefined ? undefined : validate(check, result, "result");
      if (invalid !== undefined) {
        this.output.violation("a.1", `${invalid.path}: ${invalid.expected}`, invalid.got, undefined, pending.id, pending.method);
        this.output.events.push({ kind: "invalid-response", id: pending.id, method: pending.method, result, path: invalid.path, expected: invalid.expected, got: invalid.got });
        return;
      }
    }
    const problem = error !== undefined ? this.features.inboundError(error, this.sessionVersion) : this.features.inboundResult(pending.method, pending.params, result as JsonObject, createsTask ? pending.token : undefined);
    if (problem !== undefined) this.output.violation(problem.rule, problem.expected, problem.got, undefined, pending.id, pending.method);
    if (pending.method.startsWith("tasks/")) this.releaseEndedTaskTokens();
    if (error !== undefined) this.output.events.push({ kind: "error-response", id: pending.id, method: pending.method, error });
    else this.output.events.push({ kind: "response", id: pending.id, method: pending.method, result: result as JsonObject });
  }

  /** A notification under 2026-07-28 (client side): change notifications must name one of our open listen streams (g.5). */
  private onModernNotification(method: string, params: JsonObject | undefined): void {
    if (method !== "notifications/message") {
      const meta = params !== undefined && isJsonObject(params._meta) ? params._meta : undefined;
      const id = meta?.[META_SUBSCRIPTION_ID];
      const listen = typeof id === "number" ? this.outRequests.get(id) : undefined;
      if (listen === undefined || listen.method !== "subscriptions/listen") {
        this.output.violation("g.5", `${method} on an open subscriptions/listen stream of ours (_meta subscriptionId)`, describeValue(id), undefined, undefined, method);
        return;
      }
    }
    this.output.events.push({ kind: "notification", method, params });
  }

  /** A modern client's result (g.3): a missing resultType is "complete", an unknown one is invalid; discover tells us the server. */
  private onModernResult(pending: PendingOut, result: JsonObject): void {
    if (resultTypeOf(result) === undefined) {
      const expected = 'resultType "complete" or "input_required"';
      this.output.violation("g.3", expected, describeValue(result.resultType), undefined, pending.id, pending.method);
      this.output.events.push({ kind: "invalid-response", id: pending.id, method: pending.method, result, path: "result.resultType", expected, got: describeValue(result.resultType) });
      return;
    }
    if (pending.method === "server/discover" && isJsonObject(result.capabilities)) {
      const meta = isJsonObject(result._meta) ? result._meta : undefined;
      const serverInfo = isJsonObject(meta?.[META_SERVER_INFO]) ? (meta?.[META_SERVER_INFO] as JsonObject) : {};
      this.peerCapabilitiesObject = result.capabilities;
      this.peerInfoObject = serverInfo;
      this.peerInstructions = typeof result.instructions === "string" ? result.instructions : undefined;
      this.peerCaps = capabilityMask(result.capabilities);
      this.refreshGates();
      this.output.events.push({ kind: "negotiated", version: this.version as ProtocolVersion, peerInfo: serverInfo, peerCapabilities: result.capabilities, instructions: this.peerInstructions });
    }
    this.output.events.push({ kind: "response", id: pending.id, method: pending.method, result });
  }

  private releaseEndedTaskTokens(): void {
    const tokens: Array<string | number> = [];
    this.features.endedTaskTokens(tokens);
    this.outRequests.releaseTokens(tokens);
  }

  /** Client: the initialize result (L-03, checked against its schema; V-04 a version we speak), or the end of the session. */
  private onInitializeResponse(id: number, result: JsonObject | undefined, error: ErrorObject | undefined): void {
    if (error !== undefined) {
      this.output.events.push({ kind: "error-response", id, method: "initialize", error });
      this.shutdown("fatal", "L-03", `initialize failed: ${error.code} ${error.message}`);
      return;
    }
    const r = result as JsonObject;
    const check = resultCheck(newestVersion(this.versions), "initialize");
    const problem = check === undefined ? undefined : validate(check, r, "result");
    if (problem !== undefined) {
      this.output.violation("L-03", problem.expected, `${problem.path}: ${problem.got}`, undefined, id, "initialize");
      this.shutdown("fatal", "L-03", `malformed initialize result at ${problem.path}`);
      return;
    }
    const version = r.protocolVersion;
    if (!(this.versions as readonly unknown[]).includes(version)) {
      this.output.violation("V-04", `a protocol version among ${this.versions.join(", ")}`, describeValue(version), undefined, id, "initialize");
      this.shutdown("fatal", "V-04", `server answered unsupported protocol version ${describeValue(version)}`);
      return;
    }
    this.peerCapabilitiesObject = r.capabilities as JsonObject;
    this.peerInfoObject = r.serverInfo as JsonObject;
    this.peerInstructions = typeof r.instructions === "string" ? r.instructions : undefined;
    this.negotiate(version as SessionVersion, this.peerCapabilitiesObject);
    this.output.events.push({ kind: "negotiated", version: version as SessionVersion, peerInfo: this.peerInfoObject, peerCapabilities: this.peerCapabilitiesObject, instructions: this.peerInstructions });
    this.output.queue({ jsonrpc: "2.0", method: "notifications/initialized" }, undefined);
    this.move("initialize-result-received");
    this.output.events.push({ kind: "ready" });
  }

  // ── era, lifecycle, gates ─────────────────────────────────────────────────────

  private enterModern(version: ModernVersion): void {
    this.eraState = "modern";
    this.version = version;
    this.profile = VERSION_PROFILES[version];
    this.output.profile = this.profile;
    this.table = methodTable(version);
    if (this.role === "client") this.modernEnvelope = requestEnvelope(version, this.capabilities, this.info as unknown as JsonObject, this.logLevel);
    // g.9: a 2026-07-28 client writes no responses, not even errors for malformed input.
    if (this.role === "client") this.output.writesResponses = false;
    this.move("modern-chosen");
  }

  /** Every version we speak, modern first, then session-era newest first (as discover and -32022 list them). */
  private get supportedVersions(): string[] {
    return [...this.modernVersions, ...[...this.versions].sort((a, b) => VERSION_PROFILES[b].index - VERSION_PROFILES[a].index)];
  }

  /** The negotiated version when it is a session-era one (the feature rules are session-era). */
  private get sessionVersion(): SessionVersion | undefined {
    return this.version !== undefined && isSessionVersion(this.version) ? this.version : undefined;
  }

  private negotiate(version: SessionVersion, peerCapabilities: JsonObject): void {
    this.version = version;
    this.profile = VERSION_PROFILES[version];
    this.output.profile = this.profile;
    this.table = methodTable(version);
    this.peerCaps = capabilityMask(peerCapabilities);
    this.refreshGates();
  }

  /** The lifecycle table's refusal of `event` in the current state, if it has no such move. */
  private lifecycleRefusal(event: LifecycleEvent): { rule: string; expected: string; got: string } | undefined {
    const next = nextState(this.role, this.state, event);
    return typeof next === "string" ? undefined : next;
  }

  /** Throws the lifecycle's refusal of a command. */
  private refuseUnless(event: LifecycleEvent, method: string): void {
    const refusal = this.lifecycleRefusal(event);
    if (refusal !== undefined) throw new LocalProtocolError({ ...refusal, method, phase: this.phase });
  }

  /** Takes a move the table has (the callers checked it, or the gate admitted the message that causes it). */
  private move(event: LifecycleEvent): void {
    const next = nextState(this.role, this.state, event);
    if (typeof next !== "string") throw new LocalProtocolError({ ...next, phase: this.phase });
    this.enter(next);
  }

  private enter(state: LifecycleState): void {
    this.state = state;
    this.phaseBit = phaseOf(state);
    this.refreshGates();
  }

  private refreshGates(): void {
    const peer: Role = this.role === "client" ? "server" : "client";
    const version: ProtocolVersion = this.version ?? this.defaultVersion;
    this.outboundGate = { table: this.table, version, sender: this.role, phase: this.phaseBit, senderCaps: this.ownCaps, receiverCaps: this.peerCaps, strict: true };
    this.inboundGate = { table: this.table, version, sender: peer, phase: this.phaseBit, senderCaps: this.peerCaps, receiverCaps: this.ownCaps, strict: this.strict };
  }

  private assertOpen(method: string): void {
    if (this.phaseBit === Phase.Closed) throw new LocalProtocolError({ rule: "S-01", expected: "an open session", got: "closed", method, phase: "closed" });
  }

  private assertAllowed(method: string, kind: "request" | "notification", params: JsonObject | undefined): void {
    if (params !== undefined && !isJsonObject(params)) throw new LocalProtocolError({ rule: "M-03", expected: "params absent or an object", got: describeValue(params), method });
    const refusal = gate(this.outboundGate, true, method, kind, params);
    if (refusal !== undefined) throw new LocalProtocolError({ rule: refusal.rule, expected: refusal.expected, got: refusal.got, code: refusal.code, method, phase: this.phase });
  }

  private sendRequest(method: string, params: JsonObject | undefined, options: RequestOptions, related: RequestId | undefined): number {
    const pending = this.outRequests.open(method, params, options, (sent) => this.features.outboundRequest(method, sent, this.peerCaps, this.sessionVersion));
    const sent = pending.params;
    this.output.queue(sent === undefined ? { jsonrpc: "2.0", id: pending.id, method } : { jsonrpc: "2.0", id: pending.id, method, params: sent }, related);
    return pending.id;
  }

  private queueProgress(token: string | number, progress: number, total: number | undefined, message: string | undefined, related: RequestId | undefined): void {
    const params: JsonObject = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.output.queue({ jsonrpc: "2.0", method: "notifications/progress", params }, related);
  }

  private shutdown(reason: ClosedEvent["reason"], rule: string | undefined, detail: string): void {
    this.enter("closed");
    for (const p of this.outRequests.closeAll()) this.output.events.push({ kind: "connection-closed", id: p.id, method: p.method });
    this.inRequests.clear();
    this.pendingInitialize = undefined;
    this.output.events.push({ kind: "closed", reason, rule, detail });
  }
}
