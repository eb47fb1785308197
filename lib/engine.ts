// The MCP engine, for the client and the server role, in both eras: the session era
// (2024-11-05 … 2025-11-25: initialize, phases, negotiated capabilities) and the stateless
// revision 2026-07-28 (per-request `_meta` envelope, rules in lib/modern.ts). A dual-era
// server picks the era from the first message; a client picks it with initialize() or
// startModern().
//
// Methods come in four kinds (the quinn-proto taxonomy):
//   A. getters   role, phase, era, negotiatedVersion, peerInfo, peerCapabilities, ...
//   B. inputs    receiveBytes, receiveMessage, receiveEof, handleTimeout
//   C. commands  initialize / startModern (client), acceptInitialize (server), request,
//                notify, respond, respondError, sendProgress, sendTaskProgress, cancel,
//                setDeadline, endSubscriptions, close
//   D. outputs   pollOutbound / takeBytes, pollEvent, takeEvents, nextDeadline
//
// Drain contract: after every input or command, drain outbound, then events, then read
// nextDeadline(). Commands issued while handling events are fine; drain again after them.
//
// Invariants:
// - no clock, timer, randomness, Promise or I/O: time is an argument (absolute numbers in
//   whatever unit the host uses for every time it passes);
// - inputs never throw; a peer's mistake queues the reply it is owed, then a violation
//   event; commands throw LocalProtocolError and queue nothing when refused;
// - every message passes gate() (lib/methods.ts) in both directions;
// - our ids are an integer counter (from 0, or firstRequestId), never reused; peer ids are matched by type and
//   value (1 and "1" differ) in a separate map: the two directions are separate id spaces;
// - once closed, the engine stays closed: inputs are ignored, commands throw, queued
//   output still drains.

import { ALL_CAPS, capabilityMask } from "./capabilities.js";
import {
  classify,
  isJsonObject,
  isRequestId,
  type ErrorObject,
  type JsonObject,
  type JsonRpcErrorResponse,
  type JsonRpcMessage,
  type RequestEnvelope,
  type RequestId,
} from "./envelope.js";
import { ErrorCode, LocalProtocolError, describeValue } from "./errors.js";
import type { ClosedEvent, EngineEvent, ProgressToken } from "./events.js";
import { DEFAULT_FEATURE_LIMITS, Features, logAllowed, type FeatureLimits } from "./features.js";
import { DEFAULT_CLIENT_MAX_LINE_BYTES, DEFAULT_MAX_LINE_BYTES, LineDecoder, type DecodedItem, type FramingError } from "./framing.js";
import { PHASE_NAMES, Phase, gate, methodTable, type GateContext, type GateRefusal, type MethodTable, type PhaseBit, type PhaseName, type Role } from "./methods.js";
import { paramsCheck, resultCheck } from "./params.js";
import { DeadlineHeap, type DeadlineEntry } from "./deadlines.js";
import { IdTable } from "./idtable.js";
import { Queue } from "./queue.js";
import { validate } from "./schema.js";
import type { ClientCapabilities, ClientNotifications, ClientRequests, Implementation, ServerCapabilities, ServerNotifications, ServerRequests } from "./types.js";
import { SESSION_VERSIONS, VERSION_PROFILES, isProtocolVersion, isSessionVersion, newestVersion, type ModernVersion, type ProtocolVersion, type SessionVersion, type VersionProfile } from "./versions.js";
import {
  META_SERVER_INFO,
  META_SUBSCRIPTION_ID,
  CACHEABLE_METHODS,
  acceptedFilter,
  decorateResult,
  discoverResult,
  filterWants,
  hasModernEnvelope,
  inputRequiredProblem,
  readRequestEnvelope,
  requestEnvelope,
  resultTypeOf,
  withCacheFields,
  withEnvelope,
  type ModernRequestInfo,
  type SubscriptionFilter,
} from "./modern.js";

/** Picks the client or the server variant of a type by role; both for an undecided role. */
type ByRole<R extends Role, C, S> = [R] extends ["client"] ? C : [R] extends ["server"] ? S : C | S;

export type CapabilitiesOf<R extends Role> = ByRole<R, ClientCapabilities, ServerCapabilities>;
/** Requests a side with role R sends. */
export type OutgoingRequests<R extends Role> = ByRole<R, ClientRequests, ServerRequests>;
/** Notifications a side with role R sends. */
export type OutgoingNotifications<R extends Role> = ByRole<R, ClientNotifications, ServerNotifications>;

/** The params type of method M in a method map; any object for a method the map does not know. */
export type ParamsFor<Map, M extends string> = M extends keyof Map ? (Map[M] extends { params: infer P } ? P : never) : object | undefined;

/** Arguments after the method name: params required when the method requires them. */
export type ArgsFor<Map, M extends string, O> = undefined extends ParamsFor<Map, M> ? [params?: ParamsFor<Map, M>, options?: O] : [params: ParamsFor<Map, M>, options?: O];

export interface EngineLimits extends FeatureLimits {
  /** Longest accepted input line, in bytes. Default 8 MiB for a server, 32 MiB for a client (results such as resources/read of a large blob are big). */
  maxLineBytes: number;
  /** Our requests awaiting an answer. Default 1024; request() throws past it. */
  maxPendingOutbound: number;
  /** Peer requests awaiting our answer. Default 1024; more are answered -32603 at once. */
  maxPendingInbound: number;
  /** Entries in one inbound batch (2025-03-26). Default 1024; a longer batch is refused whole. */
  maxBatchLength: number;
}

export const DEFAULT_LIMITS: Readonly<EngineLimits> = {
  ...DEFAULT_FEATURE_LIMITS,
  maxLineBytes: DEFAULT_MAX_LINE_BYTES,
  maxPendingOutbound: 1024,
  maxPendingInbound: 1024,
  maxBatchLength: 1024,
};

export interface EngineOptions<R extends Role = Role> {
  role: R;
  /** Our Implementation info (clientInfo or serverInfo). */
  info: Implementation;
  /** Our capabilities, sent as they are. Default {}. */
  capabilities?: CapabilitiesOf<R>;
  /**
   * Versions we speak. Default: all session-era versions. The client offers the newest
   * session version in initialize. Adding 2026-07-28 makes a server dual-era (the first
   * message picks the era: initialize, or a request carrying the modern `_meta` envelope);
   * naming only 2026-07-28 makes it modern-only. A client speaks 2026-07-28 after
   * startModern().
   */
  versions?: readonly ProtocolVersion[];
  /** Our first request id (default 0). A client that falls back from one engine to another starts after the ids the first one used, so a late answer can never match a new request. */
  firstRequestId?: number;
  /** Modern client: the logging level asked for in every request's `_meta` (2026-07-28). */
  logLevel?: string;
  /** Modern server: put serverInfo in every result's `_meta` (g.1). Default true. */
  serverInfoInResults?: boolean;
  /**
   * Modern server: answer server/discover whatever version it names, so a client can learn
   * the versions on offer (default true). false: refuse an unsupported version with -32022
   * like any other request (what the official conformance suite's 2026-07-28 set expects;
   * the specification allows both).
   */
  discoverAnyVersion?: boolean;
  /** Server: instructions for the client, sent in the initialize result. */
  instructions?: string;
  /** Flip the SHOULD-level lenient cells of the phase table (DESIGN.md section 4). Default false. */
  strict?: boolean;
  /** Server: answer initialize without asking the host. Default true. */
  autoInitialize?: boolean;
  /** Validate the results of every request we send, not only those the engine interprets (tasks/*). Default false. */
  validateResults?: boolean;
  limits?: Partial<EngineLimits>;
}

export interface RequestOptions {
  /** Inactivity deadline (absolute). Progress may push it back (see resetOnProgressMs). */
  deadline?: number;
  /** Hard deadline (absolute) that never moves. */
  totalDeadline?: number;
  /** When progress arrives with a `now`, the inactivity deadline becomes now + this. */
  resetOnProgressMs?: number;
  /** Ask for progress: a token of your own, or true to use the request id as the token. */
  progressToken?: ProgressToken | true;
  /** Routing hint for transports with several streams (the inbound request this one serves). */
  relatedRequestId?: RequestId;
}

export interface NotifyOptions {
  relatedRequestId?: RequestId;
}

/**
 * What an engine needs to carry on a negotiated session in another process (a shared
 * session store behind a load balancer). Plain JSON. In-flight requests, tasks and URL
 * elicitations stay with the process that saw them.
 */
export interface EngineSnapshot {
  readonly format: 1;
  readonly role: Role;
  readonly version: SessionVersion;
  readonly phase: "initializing" | "operating";
  readonly peerInfo: JsonObject;
  readonly peerCapabilities: JsonObject;
  readonly peerInstructions: string | undefined;
  /** Our next request id: ids are never reused in a session (ID-03), whichever process sends. */
  readonly nextId: number;
  readonly loggingLevel: string | undefined;
  readonly subscriptions: string[];
}

/** One queued outbound message, or a batch reply array (2025-03-26). */
export interface Outbound {
  readonly message: JsonRpcMessage | readonly JsonRpcMessage[];
  /** The inbound request this message answers or serves, when there is one. */
  readonly relatedRequestId: RequestId | undefined;
}

/** The deadlines of one request; only requests that have any carry this (most do not, and pay nothing). */
interface Timing {
  /** Inactivity deadline (Infinity: none). */
  deadline: number;
  /** Hard deadline (Infinity: none); never moves. */
  readonly totalDeadline: number;
  /** Progress pushes the inactivity deadline to now + resetMs (0: it does not). */
  readonly resetMs: number;
}

interface PendingOut extends DeadlineEntry {
  readonly id: number;
  readonly method: string;
  readonly params: JsonObject | undefined;
  readonly token: ProgressToken | undefined;
  timing: Timing | undefined;
  /** The last progress received (undefined: none yet). */
  lastProgress: number | undefined;
}

/** When a request's first deadline falls (Infinity: none). */
function dueOf(timing: Timing | undefined): number {
  if (timing === undefined) return Infinity;
  return timing.deadline < timing.totalDeadline ? timing.deadline : timing.totalDeadline;
}

interface BatchGroup {
  /** Replies still owed for requests of this batch. */
  remaining: number;
  /** Still being processed: replies may not be flushed yet. */
  open: boolean;
  readonly replies: JsonRpcMessage[];
}

interface PendingIn {
  readonly id: RequestId;
  readonly method: string;
  readonly params: JsonObject | undefined;
  /** What a modern request said about its client; undefined in the session era. */
  readonly modern: ModernRequestInfo | undefined;
  readonly token: ProgressToken | undefined;
  readonly group: BatchGroup | undefined;
  /** The last progress sent (undefined: none yet). */
  lastProgressSent: number | undefined;
}

interface PendingInitialize {
  readonly id: RequestId;
  readonly params: JsonObject;
  readonly version: SessionVersion;
}

const NO_OPTIONS: RequestOptions & NotifyOptions = Object.freeze({});

/** How many settled ids we remember so late answers are told apart from unknown ones. */
const SETTLED_MEMORY = 4096;

function remember<T>(set: Set<T>, value: T): void {
  set.add(value);
  if (set.size > SETTLED_MEMORY) set.delete(set.values().next().value as T);
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`limits.${name} must be a positive integer; got ${String(value)}`);
  return value;
}

function isProgressToken(value: unknown): value is ProgressToken {
  return isRequestId(value);
}

function progressTokenOf(params: JsonObject | undefined): ProgressToken | undefined {
  if (params === undefined) return undefined;
  const meta = params._meta;
  if (!isJsonObject(meta)) return undefined;
  const token = meta.progressToken;
  return isProgressToken(token) ? token : undefined;
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

  private phaseBit: PhaseBit = Phase.AwaitingInit;
  private version: ProtocolVersion | undefined;
  /** "undecided" until the first message of a dual-era server (or a client's first command) picks one. */
  private eraState: "undecided" | "session" | "modern";
  /** The version tables used before negotiation. */
  private readonly defaultVersion: ProtocolVersion;
  private readonly logLevel: string | undefined;
  private readonly serverInfoInResults: boolean;
  private readonly discoverAnyVersion: boolean;
  /** Open subscriptions/listen requests of a modern server, by request id. */
  private readonly subscriptions = new Map<RequestId, SubscriptionFilter>();
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

  private nextId = 0;
  private initializeId: number | undefined;
  private pendingInitialize: PendingInitialize | undefined;
  private readonly pendingOut = new IdTable<PendingOut>();
  private readonly tokensOut = new Map<ProgressToken, PendingOut>();
  private readonly cancelledOut = new Set<number>();
  private readonly pendingIn = new IdTable<PendingIn>();
  private readonly cancelledIn = new Set<RequestId>();

  private readonly features: Features;
  /** Outbound messages and, in step, the request each relates to (wrappers are made only by pollOutbound). */
  private readonly outbound = new Queue<JsonRpcMessage | readonly JsonRpcMessage[]>();
  private readonly outboundRelated = new Queue<RequestId | undefined>();
  private readonly events = new Queue<EngineEvent>();
  private readonly decoder: LineDecoder;
  private readonly decoded: DecodedItem[] = [];

  /** Our timed requests, earliest deadline first. */
  private readonly deadlines = new DeadlineHeap<PendingOut>();

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
    this.serverInfoInResults = options.serverInfoInResults ?? true;
    this.discoverAnyVersion = options.discoverAnyVersion ?? true;
    const firstId = options.firstRequestId ?? 0;
    if (!Number.isSafeInteger(firstId) || firstId < 0) throw new RangeError(`firstRequestId must be a non-negative safe integer; got ${String(firstId)}`);
    this.nextId = firstId;
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
    return this.nextId;
  }

  get pendingOutboundCount(): number {
    return this.pendingOut.size;
  }

  get pendingInboundCount(): number {
    return this.pendingIn.size;
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
      version: this.version as SessionVersion,
      phase: this.phaseBit === Phase.Operating ? "operating" : "initializing",
      peerInfo: this.peerInfoObject,
      peerCapabilities: this.peerCapabilitiesObject,
      peerInstructions: this.peerInstructions,
      nextId: this.nextId,
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
    engine.nextId = snapshot.nextId;
    engine.features.importState(snapshot);
    engine.eraState = "session";
    engine.negotiate(snapshot.version, snapshot.peerCapabilities);
    engine.setPhase(snapshot.phase === "operating" ? Phase.Operating : Phase.Initializing);
    return engine;
  }

  // ── B. inputs ─────────────────────────────────────────────────────────────────

  /** Newline-delimited JSON bytes from the transport. `now` lets progress push back inactivity deadlines. */
  // Every input runs inside a try: an exception that escapes the protocol code is a bug of ours,
  // and it must neither reach the host nor leave half-processed input behind to throw again on
  // the next call. It closes the engine for good (reason "internal", reported once); queued
  // output still drains and later input is ignored, like h11's ERROR state.

  receiveBytes(chunk: Uint8Array, now?: number): void {
    if (this.phaseBit === Phase.Closed) return;
    try {
      const items = this.decoded;
      this.decoder.push(chunk, items);
      this.processDecoded(items, now);
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
      const items = this.decoded;
      this.decoder.finish(items);
      this.processDecoded(items, undefined);
      if (!this.isClosed) this.shutdown("eof", undefined, "the transport ended");
    } catch (error) {
      this.failInternally(error);
    }
  }

  /** Expires deadlines at or before `now`. Spurious calls are no-ops. */
  handleTimeout(now: number): void {
    if (this.phaseBit === Phase.Closed || this.deadlines.size === 0) return;
    try {
      this.expireDeadlines(now);
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
      this.phaseBit = Phase.Closed;
      this.events.push({ kind: "closed", reason: "internal", rule: "internal", detail });
    }
  }

  private expireDeadlines(now: number): void {
    const first = this.deadlines.peek();
    if (first === undefined || first.due > now) return;
    for (const p of this.deadlines.takeDue(now, [])) {
      this.settleOut(p);
      const which = (p.timing as Timing).totalDeadline <= now ? "total" : "inactivity";
      this.events.push({ kind: "timeout", id: p.id, method: p.method, deadline: which });
      if (p.id === this.initializeId) {
        this.shutdown("fatal", "L-01", "initialize timed out");
        return;
      }
      remember(this.cancelledOut, p.id);
      this.queue({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: p.id, reason: `timeout (${which} deadline)` } }, undefined);
    }
  }

  // ── C. commands ───────────────────────────────────────────────────────────────

  /** Client: queue `initialize` with our newest version, capabilities and info. Returns its id. */
  initialize(options: Pick<RequestOptions, "deadline" | "totalDeadline"> = {}): number {
    this.assertOpen("initialize");
    if (this.role !== "client") throw new LocalProtocolError({ rule: "L-02", expected: "initialize sent by the client", got: "the server role", method: "initialize" });
    if (this.phaseBit !== Phase.AwaitingInit || this.eraState === "modern" || this.versions.length === 0) {
      throw new LocalProtocolError({ rule: "L-01", expected: "initialize once, first, with a session-era version configured", got: `phase ${this.phase}, era ${this.eraState}`, method: "initialize", phase: this.phase });
    }
    this.eraState = "session";
    const params: JsonObject = { protocolVersion: newestVersion(this.versions), capabilities: this.capabilities, clientInfo: this.info as unknown as JsonObject };
    const id = this.sendRequest("initialize", params, options, undefined);
    this.initializeId = id;
    this.setPhase(Phase.Initializing);
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
    for (const id of [...this.subscriptions.keys()]) {
      this.subscriptions.delete(id);
      const pending = this.takePendingIn(id);
      if (pending !== undefined) this.reply({ jsonrpc: "2.0", id, result: { resultType: "complete", _meta: { [META_SUBSCRIPTION_ID]: id } } }, undefined, id);
    }
  }

  /** Server with autoInitialize false: answer the pending initialize with our result. */
  acceptInitialize(): void {
    this.assertOpen("initialize");
    const pending = this.pendingInitialize;
    if (pending === undefined) throw new LocalProtocolError({ rule: "L-01", expected: "an initialize request awaiting acceptance", got: "none", method: "initialize" });
    this.pendingInitialize = undefined;
    this.pendingIn.delete(pending.id);
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
    if (this.pendingOut.size >= this.limits.maxPendingOutbound) {
      throw new LocalProtocolError({ rule: "limit", expected: `at most ${this.limits.maxPendingOutbound} requests in flight`, got: `${this.pendingOut.size}`, method });
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
    if (this.eraState === "modern") return this.notifyModern(method, params, options.relatedRequestId);
    if (!this.features.outboundNotification(method, params, this.sessionVersion)) return false;
    this.queue(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params }, options.relatedRequestId);
    return true;
  }

  /** Answers a peer request. A request the peer cancelled is dropped silently (X-04). */
  respond(id: RequestId, value: object): void {
    this.assertOpen("respond");
    const result = value as JsonObject;
    if (!isJsonObject(result)) throw new LocalProtocolError({ rule: "M-04", expected: "result as an object", got: describeValue(result) });
    const inFlight = this.pendingIn.get(id);
    let answer = result;
    if (inFlight?.modern !== undefined) answer = this.modernResult(inFlight, inFlight.modern, result);
    else if (inFlight !== undefined && inFlight.method !== "initialize") this.features.outboundResult(inFlight.method, inFlight.params, result, this.sessionVersion, inFlight.token);
    const pending = this.takePendingIn(id);
    if (pending === undefined) return;
    this.subscriptions.delete(id);
    this.reply({ jsonrpc: "2.0", id, result: answer }, pending.group, id);
  }

  /** Answers a peer request with a JSON-RPC error. */
  respondError(id: RequestId, code: number, message: string, data?: unknown): void {
    this.assertOpen("respondError");
    if (!Number.isInteger(code)) throw new LocalProtocolError({ rule: "M-05", expected: "an integer error code", got: describeValue(code) });
    if (typeof message !== "string") throw new LocalProtocolError({ rule: "M-05", expected: "a string error message", got: describeValue(message) });
    const inFlight = this.pendingIn.get(id);
    if (inFlight?.modern !== undefined && (code === ErrorCode.ResourceNotFound || code === ErrorCode.UrlElicitationRequired)) {
      // g.10: 2026-07-28 retired -32002 (a missing resource is -32602) and -32042.
      throw new LocalProtocolError({ rule: "g.10", expected: "a code 2026-07-28 still defines (-32602 for a missing resource)", got: String(code), code, method: inFlight.method });
    }
    if (inFlight !== undefined) this.features.outboundError(code, data, this.sessionVersion);
    if (this.pendingInitialize !== undefined && this.pendingInitialize.id === id) this.pendingInitialize = undefined;
    const pending = this.takePendingIn(id);
    if (pending === undefined) return;
    this.subscriptions.delete(id);
    const error: ErrorObject = data === undefined ? { code, message } : { code, message, data };
    this.reply({ jsonrpc: "2.0", id, error }, pending.group, id);
  }

  /** Reports progress on a peer request that carried a progress token. Refused after the response (P-04). */
  sendProgress(id: RequestId, progress: number, total?: number, message?: string): void {
    this.assertOpen("notifications/progress");
    const pending = this.pendingIn.get(id);
    if (pending === undefined) {
      throw new LocalProtocolError({ rule: "P-04", expected: "progress for a request still in flight", got: `id ${describeValue(id)} not in flight`, method: "notifications/progress" });
    }
    if (pending.token === undefined) {
      throw new LocalProtocolError({ rule: "P-01", expected: "a request that carried _meta.progressToken", got: "no token", method: "notifications/progress" });
    }
    if (pending.modern !== undefined && pending.method === "subscriptions/listen") {
      throw new LocalProtocolError({ rule: "g.5", expected: "progress only for requests other than subscriptions/listen", got: "a listen stream", method: "notifications/progress" });
    }
    if (typeof progress !== "number" || !Number.isFinite(progress) || (pending.lastProgressSent !== undefined && progress <= pending.lastProgressSent)) {
      throw new LocalProtocolError({ rule: "P-05", expected: `progress greater than ${pending.lastProgressSent ?? "-Infinity"}`, got: describeValue(progress), method: "notifications/progress" });
    }
    pending.lastProgressSent = progress;
    const params: JsonObject = { progressToken: pending.token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.queue({ jsonrpc: "2.0", method: "notifications/progress", params }, id);
  }

  /** Reports progress on a task we created, on the token of the request that created it (P-08). */
  sendTaskProgress(taskId: string, progress: number, total?: number, message?: string): void {
    this.assertOpen("notifications/progress");
    const record = this.features.taskForProgress(taskId, progress);
    record.lastProgress = progress;
    const params: JsonObject = { progressToken: record.token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.queue({ jsonrpc: "2.0", method: "notifications/progress", params }, undefined);
  }

  /**
   * Cancels one of our requests: queues notifications/cancelled and forgets it; a late
   * response is dropped silently. Returns false when the request had already settled
   * (the race of X-07). Throws for initialize (X-02) and for ids we never issued (X-01).
   */
  cancel(id: number, reason?: string): boolean {
    this.assertOpen("notifications/cancelled");
    if (id === this.initializeId) throw new LocalProtocolError({ rule: "X-02", expected: "a request other than initialize", got: "initialize", method: "initialize" });
    const pending = this.pendingOut.get(id);
    if (pending === undefined) {
      if (Number.isInteger(id) && id >= 0 && id < this.nextId) return false;
      throw new LocalProtocolError({ rule: "X-01", expected: "the id of a request we sent", got: describeValue(id), method: "notifications/cancelled" });
    }
    this.settleOut(pending);
    remember(this.cancelledOut, id);
    const params: JsonObject = reason === undefined ? { requestId: id } : { requestId: id, reason };
    this.queue({ jsonrpc: "2.0", method: "notifications/cancelled", params }, undefined);
    return true;
  }

  /** Moves the inactivity deadline of one of our requests (undefined: none). The total deadline never moves. */
  setDeadline(id: number, deadline: number | undefined): void {
    this.assertOpen("setDeadline");
    const pending = this.pendingOut.get(id);
    if (pending === undefined) throw new LocalProtocolError({ rule: "ID-04", expected: "a request of ours in flight", got: describeValue(id) });
    if (pending.timing === undefined) pending.timing = { deadline: Infinity, totalDeadline: Infinity, resetMs: 0 };
    pending.timing.deadline = deadline ?? Infinity;
    this.deadlines.update(pending, dueOf(pending.timing));
  }

  /** Closes the session locally: every pending request is settled; queued output still drains. */
  close(): void {
    if (this.phaseBit === Phase.Closed) return;
    this.shutdown("local", undefined, "closed by the host");
  }

  // ── D. outputs ────────────────────────────────────────────────────────────────

  /** The next outbound message, oldest first. */
  pollOutbound(): Outbound | undefined {
    const message = this.outbound.shift();
    if (message === undefined) return undefined;
    return { message, relatedRequestId: this.outboundRelated.shift() };
  }

  /** Every queued outbound message as newline-delimited UTF-8 JSON in one buffer; undefined when none. */
  takeBytes(): Uint8Array | undefined {
    if (this.outbound.length === 0) return undefined;
    let text = "";
    for (let m = this.outbound.shift(); m !== undefined; m = this.outbound.shift()) {
      this.outboundRelated.shift();
      text += JSON.stringify(m) + "\n";
    }
    return textEncoder.encode(text);
  }

  /** The next event, oldest first. */
  pollEvent(): EngineEvent | undefined {
    return this.events.shift();
  }

  /** Appends every queued event to `into`, oldest first. */
  takeEvents(into: EngineEvent[]): void {
    this.events.drainInto(into);
  }

  /** The earliest deadline of our pending requests, or undefined when none. */
  nextDeadline(): number | undefined {
    if (this.phaseBit === Phase.Closed) return undefined;
    return this.deadlines.peek()?.due;
  }

  // ── inbound processing ────────────────────────────────────────────────────────

  private processDecoded(items: DecodedItem[], now: number | undefined): void {
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as DecodedItem;
      if (this.phaseBit === Phase.Closed) break;
      if (item.ok) {
        this.receiveValue(item.value, undefined, now);
      } else if (item.reason === "truncated") {
        this.violation("M-01", "a newline after the last message", item.detail, undefined, undefined, undefined);
      } else if (item.reason === "line-too-long") {
        this.onLineTooLong(item);
      } else {
        this.replyError(null, ErrorCode.ParseError, "Parse error", undefined, undefined);
        this.violation("M-01", "a UTF-8 JSON message per line", `line ${item.line}: ${item.detail}`, ErrorCode.ParseError, undefined, undefined);
      }
    }
    items.length = 0;
  }

  /**
   * A line over maxLineBytes, skipped unread: its scanned facts (lib/line-scan.ts) still say who
   * it was for. A response settles the request it answers at once (not at its deadline); a
   * request is refused with its own id; a notification gets no reply; anything else, -32600
   * with no readable id.
   */
  private onLineTooLong(item: FramingError): void {
    const limit = this.limits.maxLineBytes;
    const facts = item.facts;
    const got = facts === undefined ? `line ${item.line} longer` : `line ${item.line} of ${facts.bytes} bytes`;
    const id = facts?.id;
    if (facts !== undefined && !facts.hasMethod && facts.hasId) {
      const pending = typeof id === "number" ? this.pendingOut.get(id) : undefined;
      if (pending !== undefined) {
        this.settleOut(pending);
        this.events.push({ kind: "response-too-large", id: pending.id, method: pending.method, bytes: facts.bytes, limit });
      }
      this.violation("limit", `lines of at most ${limit} bytes`, got, undefined, id, pending?.method);
      if (pending !== undefined && pending.id === this.initializeId) this.shutdown("fatal", "limit", `the initialize result is over ${limit} bytes`);
      return;
    }
    if (facts !== undefined && facts.hasMethod && !facts.hasId) {
      this.violation("limit", `lines of at most ${limit} bytes`, got, undefined, undefined, undefined);
      return;
    }
    this.replyError(id ?? null, ErrorCode.InvalidRequest, `Line exceeds maxLineBytes (${limit})`, undefined, undefined);
    this.violation("limit", `lines of at most ${limit} bytes`, got, ErrorCode.InvalidRequest, id, undefined);
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
        if (env.id === null) {
          this.events.push({ kind: "diagnostic", rule: "M-06", expected: "an error response with the request's id", got: "no id", method: undefined, error: env.error });
        } else {
          this.onResponse(env.id, undefined, env.error);
        }
        return;
      case "batch":
        this.onBatch(env.items, group, now);
        return;
      case "invalid": {
        const owesReply = env.shape === "request" || env.shape === "unknown";
        if (owesReply) {
          if (group !== undefined) group.remaining++;
          this.replyError(env.id, ErrorCode.InvalidRequest, "Invalid request", group, undefined);
        }
        if (env.shape === "notification") {
          // DESIGN section 4: a malformed notification is never answered and only reported as a diagnostic.
          this.events.push({ kind: "diagnostic", rule: env.rule, expected: env.expected, got: env.got, method: undefined, error: undefined });
          return;
        }
        this.violation(env.rule, env.expected, env.got, owesReply ? ErrorCode.InvalidRequest : undefined, env.id ?? undefined, undefined);
      }
    }
  }

  private onBatch(items: readonly unknown[], outer: BatchGroup | undefined, now: number | undefined): void {
    let problem: string | undefined;
    if (outer !== undefined) problem = "a batch nested in a batch";
    else if (!this.batchingAllowed()) problem = `a batch under ${this.version ?? "a version not yet negotiated"}`;
    else if (items.length === 0) problem = "an empty batch";
    else if (items.length > this.limits.maxBatchLength) problem = `a batch of ${items.length} entries (limit ${this.limits.maxBatchLength})`;
    if (problem !== undefined) {
      if (outer !== undefined) outer.remaining++;
      this.replyError(null, ErrorCode.InvalidRequest, "Invalid request", outer, undefined);
      const expected = outer === undefined && this.batchingAllowed() ? `a batch of 1 to ${this.limits.maxBatchLength} entries` : "a single message (batches only under 2025-03-26)";
      this.violation("M-09", expected, problem, ErrorCode.InvalidRequest, undefined, undefined);
      return;
    }
    const group: BatchGroup = { remaining: 0, open: true, replies: [] };
    for (const item of items) {
      if (this.phaseBit === Phase.Closed) return;
      this.receiveValue(item, group, now);
    }
    group.open = false;
    this.flushGroup(group);
  }

  /** The first problem of a message's params against its method's schema in the session's version. */
  private paramsProblem(method: string, params: JsonObject | undefined): { path: string; expected: string; got: string } | undefined {
    const version = this.sessionVersion ?? (this.versions.length > 0 ? newestVersion(this.versions) : undefined);
    const check = version === undefined ? undefined : paramsCheck(version, method);
    return check === undefined ? undefined : validate(check, params, "params");
  }

  /** M-09: batches under 2025-03-26; before negotiation, when any version we speak allows them. */
  private batchingAllowed(): boolean {
    if (this.profile !== undefined) return this.profile.batching;
    return this.versions.some((v) => VERSION_PROFILES[v].batching);
  }

  private onRequest(env: RequestEnvelope, group: BatchGroup | undefined): void {
    const { id, method, params } = env;
    if (group !== undefined) group.remaining++;
    if (this.pendingIn.has(id)) {
      this.refuse(id, method, group, { code: ErrorCode.InvalidRequest, rule: "ID-03", expected: "an id not already in flight", got: `duplicate id ${describeValue(id)}` });
      return;
    }
    if (this.eraState !== "session") {
      if (this.role === "client") {
        if (this.eraState === "modern") {
          // g.9: a modern server never sends requests, and a modern client never writes responses.
          if (group !== undefined) group.remaining--;
          this.violation("g.9", "no requests from a 2026-07-28 server", method, undefined, id, method);
          return;
        }
      } else {
        if (this.eraState === "undecided") {
          // A server/discover probe commits no era: a client that learns it must fall back sends initialize next, on this connection.
          if (method === "server/discover" && hasModernEnvelope(params)) {
            this.answerDiscover(id, params, group);
            return;
          }
          if (hasModernEnvelope(params)) this.enterModern(this.modernVersions[0] as ModernVersion);
          else if (method === "initialize") this.eraState = "session";
        }
        if (this.eraState === "modern") {
          this.onModernRequest(id, method, params, group);
          return;
        }
      }
    }
    if (method === "initialize" && this.role === "server") {
      this.onInitialize(id, params, group);
      return;
    }
    const refusal = gate(this.inboundGate, false, method, "request", params);
    if (refusal !== undefined) {
      if (refusal.code !== undefined) {
        this.refuse(id, method, group, { code: refusal.code, rule: refusal.rule, expected: refusal.expected, got: refusal.got });
        return;
      }
      // C-08: a receiver that did not declare task support processes the request normally.
      this.events.push({ kind: "diagnostic", rule: refusal.rule, expected: refusal.expected, got: refusal.got, method, error: undefined });
    }
    if (method === "ping") {
      this.reply({ jsonrpc: "2.0", id, result: {} }, group, id);
      return;
    }
    const paramsProblem = this.paramsProblem(method, params);
    if (paramsProblem !== undefined) {
      this.replyError(id, ErrorCode.InvalidParams, "Invalid params", group, { path: paramsProblem.path, expected: paramsProblem.expected, got: paramsProblem.got });
      this.violation("a.1", `${paramsProblem.path}: ${paramsProblem.expected}`, paramsProblem.got, ErrorCode.InvalidParams, id, method);
      return;
    }
    if (this.pendingIn.size >= this.limits.maxPendingInbound) {
      this.refuse(id, method, group, { code: ErrorCode.InternalError, rule: "limit", expected: `at most ${this.limits.maxPendingInbound} requests in flight`, got: `one more` });
      return;
    }
    // After the limit: what the feature rules record (URL elicitation ids, subscriptions) belongs to accepted requests only.
    const featureRefusal = this.features.inboundRequest(method, params, this.ownCaps, this.sessionVersion);
    if (featureRefusal !== undefined && featureRefusal.code !== undefined) {
      this.refuse(id, method, group, { code: featureRefusal.code, rule: featureRefusal.rule, expected: featureRefusal.expected, got: featureRefusal.got });
      return;
    }
    const token = progressTokenOf(params);
    this.pendingIn.set({ id, method, params, modern: undefined, token, group, lastProgressSent: undefined });
    this.events.push({ kind: "request", id, method, params, progressToken: token, modern: undefined });
  }

  /** A request under 2026-07-28 (g.1–g.5): its own envelope, the modern table, discover and listen answered here. */
  private onModernRequest(id: RequestId, method: string, params: JsonObject | undefined, group: BatchGroup | undefined): void {
    if (method === "initialize" && !hasModernEnvelope(params)) {
      // A session-era initialize at a modern-only server: name the versions spoken, so a legacy client can tell why (g.12).
      // (An initialize carrying the 2026-07-28 envelope is just a removed method: -32601 through the gate below.)
      const requested = params?.protocolVersion;
      // A dual-era connection that already speaks 2026-07-28 cannot turn into a session either: only modern versions are on offer here.
      this.replyError(id, ErrorCode.UnsupportedProtocolVersion, "Unsupported protocol version", group, { supported: [...this.modernVersions], requested: typeof requested === "string" ? requested : null });
      this.violation("g.12", "a request with the 2026-07-28 envelope (no session era on this connection)", "initialize", ErrorCode.UnsupportedProtocolVersion, id, method);
      return;
    }
    if (method === "server/discover") {
      this.answerDiscover(id, params, group);
      return;
    }
    const info = this.modernEnvelopeOf(id, method, params, group, false);
    if (info === undefined) return;
    const refusal = gate(this.inboundGate, false, method, "request", params);
    if (refusal !== undefined && refusal.code !== undefined) {
      this.refuse(id, method, group, { code: refusal.code, rule: refusal.rule, expected: refusal.expected, got: refusal.got });
      return;
    }
    let filter: SubscriptionFilter | undefined;
    if (method === "subscriptions/listen") {
      filter = acceptedFilter(params?.notifications, this.ownCaps);
      if (filter === undefined) {
        this.replyError(id, ErrorCode.InvalidParams, "Invalid params", group, { path: "params.notifications", expected: "a SubscriptionFilter" });
        this.violation("g.5", "params.notifications: a SubscriptionFilter", describeValue(params?.notifications), ErrorCode.InvalidParams, id, method);
        return;
      }
    }
    if (this.pendingIn.size >= this.limits.maxPendingInbound) {
      this.refuse(id, method, group, { code: ErrorCode.InternalError, rule: "limit", expected: `at most ${this.limits.maxPendingInbound} requests in flight`, got: `one more` });
      return;
    }
    const token = progressTokenOf(params);
    this.pendingIn.set({ id, method, params, modern: info, token, group, lastProgressSent: undefined });
    if (filter !== undefined) {
      // g.5: the acknowledgement is the first message of the subscription, with the subset we honour.
      this.subscriptions.set(id, filter);
      this.queue({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { notifications: filter as JsonObject, _meta: { [META_SUBSCRIPTION_ID]: id } } }, id);
      return;
    }
    this.events.push({ kind: "request", id, method, params, progressToken: token, modern: info });
  }

  /** The request's 2026-07-28 envelope (g.1, g.2), or undefined once its refusal is queued. */
  private modernEnvelopeOf(id: RequestId, method: string, params: JsonObject | undefined, group: BatchGroup | undefined, anyVersion: boolean): ModernRequestInfo | undefined {
    const info = readRequestEnvelope(params, this.modernVersions, anyVersion, this.supportedVersions);
    if (!("code" in info)) return info;
    this.replyError(id, info.code, info.message, group, info.data);
    this.violation(info.rule, info.expected, info.got, info.code, id, method);
    return undefined;
  }

  /** server/discover (g.2), answered here in any phase; by default whatever version it names, so that a client learns what is on offer. */
  private answerDiscover(id: RequestId, params: JsonObject | undefined, group: BatchGroup | undefined): void {
    if (this.modernEnvelopeOf(id, "server/discover", params, group, this.discoverAnyVersion) === undefined) return;
    const result = discoverResult({ supportedVersions: this.supportedVersions, capabilities: this.capabilities, serverInfo: this.info as unknown as JsonObject, instructions: this.instructions });
    this.reply({ jsonrpc: "2.0", id, result }, group, id);
  }

  /** Our result for a modern request: input_required checked (g.3), resultType and serverInfo added. */
  private modernResult(pending: PendingIn, info: ModernRequestInfo, result: JsonObject): JsonObject {
    if (result.resultType === "input_required") {
      const problem = inputRequiredProblem(pending.method, result, info);
      if (problem !== undefined) {
        throw new LocalProtocolError({ rule: problem.rule, expected: problem.expected, got: problem.got, code: problem.missing !== undefined ? ErrorCode.MissingRequiredClientCapability : undefined, method: pending.method });
      }
    }
    if (result.resultType !== "input_required" && CACHEABLE_METHODS.has(pending.method)) result = withCacheFields(result);
    if (pending.method === "subscriptions/listen") {
      // g.5: the result that ends a listen names its subscription.
      const meta = isJsonObject(result._meta) ? result._meta : undefined;
      if (meta?.[META_SUBSCRIPTION_ID] === undefined) result = { ...result, _meta: { ...meta, [META_SUBSCRIPTION_ID]: pending.id } };
    }
    return decorateResult(result, this.serverInfoInResults ? (this.info as unknown as JsonObject) : undefined);
  }

  /** A modern server's notification: log messages go with the request that asked for them, change notifications to the subscriptions that opted in. */
  private notifyModern(method: string, params: JsonObject | undefined, related: RequestId | undefined): boolean {
    if (method === "notifications/message") {
      const pending = related === undefined ? undefined : this.pendingIn.get(related);
      if (pending === undefined) throw new LocalProtocolError({ rule: "g.1", expected: "a log message related to a request in flight (its _meta logLevel decides)", got: related === undefined ? "no relatedRequestId" : `request ${describeValue(related)} not in flight`, method });
      if (pending.method === "subscriptions/listen") throw new LocalProtocolError({ rule: "g.5", expected: "log messages only for requests other than subscriptions/listen", got: "a listen stream", method });
      if (!logAllowed(params?.level, pending.modern?.logLevel, "modern")) return false;
      this.queue({ jsonrpc: "2.0", method, params }, related);
      return true;
    }
    let sent = false;
    for (const [id, filter] of this.subscriptions) {
      if (!filterWants(filter, method, params)) continue;
      const meta = params !== undefined && isJsonObject(params._meta) ? params._meta : undefined;
      this.queue({ jsonrpc: "2.0", method, params: { ...params, _meta: { ...meta, [META_SUBSCRIPTION_ID]: id } } }, id);
      sent = true;
    }
    return sent;
  }

  private enterModern(version: ModernVersion): void {
    this.eraState = "modern";
    this.version = version;
    this.profile = VERSION_PROFILES[version];
    this.table = methodTable(version);
    if (this.role === "client") this.modernEnvelope = requestEnvelope(version, this.capabilities, this.info as unknown as JsonObject, this.logLevel);
    this.setPhase(Phase.Operating);
  }

  /** Every version we speak, modern first, then session-era ones newest first (discover, -32022 data). */
  private get supportedVersions(): string[] {
    return [...this.modernVersions, ...[...this.versions].sort((a, b) => VERSION_PROFILES[b].index - VERSION_PROFILES[a].index)];
  }

  /** The negotiated version when it is a session-era one (the feature rules are session-era). */
  private get sessionVersion(): SessionVersion | undefined {
    return this.version !== undefined && isSessionVersion(this.version) ? this.version : undefined;
  }

  private onInitialize(id: RequestId, params: JsonObject | undefined, group: BatchGroup | undefined): void {
    if (group !== undefined) {
      this.refuse(id, "initialize", group, { code: ErrorCode.InvalidRequest, rule: "L-05", expected: "initialize outside any batch", got: "initialize in a batch" });
      return;
    }
    if (this.phaseBit !== Phase.AwaitingInit || this.pendingInitialize !== undefined) {
      this.refuse(id, "initialize", group, { code: ErrorCode.InvalidRequest, rule: "L-01", expected: "a single initialize", got: `initialize in phase ${this.phase}` });
      return;
    }
    const problem = initializeParamsProblem(params);
    if (problem !== undefined) {
      this.replyError(id, ErrorCode.InvalidParams, "Invalid params", group, { path: problem.path, expected: problem.expected });
      this.violation("L-02", problem.expected, `${problem.path}: ${problem.got}`, ErrorCode.InvalidParams, id, "initialize");
      return;
    }
    const p = params as JsonObject;
    const requested = p.protocolVersion;
    // V-02/V-03: the same version if we speak it, otherwise our newest, always as a normal result.
    const version = (this.versions as readonly unknown[]).includes(requested) ? (requested as SessionVersion) : newestVersion(this.versions);
    if (this.autoInitialize) {
      this.completeInitialize(id, p, version, group);
      return;
    }
    this.pendingInitialize = { id, params: p, version };
    this.pendingIn.set({ id, method: "initialize", params: p, modern: undefined, token: undefined, group, lastProgressSent: undefined });
    this.events.push({ kind: "initialize-request", id, params: p, version });
  }

  private completeInitialize(id: RequestId, params: JsonObject, version: SessionVersion, group: BatchGroup | undefined): void {
    const result: JsonObject = { protocolVersion: version, capabilities: this.capabilities, serverInfo: this.info as unknown as JsonObject };
    if (this.instructions !== undefined) result.instructions = this.instructions;
    this.reply({ jsonrpc: "2.0", id, result }, group, id);
    this.peerCapabilitiesObject = params.capabilities as JsonObject;
    this.peerInfoObject = params.clientInfo as JsonObject;
    this.negotiate(version, this.peerCapabilitiesObject);
    this.setPhase(Phase.Initializing);
    this.events.push({ kind: "negotiated", version, peerInfo: this.peerInfoObject, peerCapabilities: this.peerCapabilitiesObject, instructions: undefined });
  }

  private onNotification(method: string, params: JsonObject | undefined, now: number | undefined): void {
    const refusal = gate(this.inboundGate, false, method, "notification", params);
    if (refusal !== undefined) {
      if (refusal.reason === "capability" || refusal.reason === "wrong-direction") {
        this.violation(refusal.rule, refusal.expected, refusal.got, undefined, undefined, method);
      } else {
        this.events.push({ kind: "diagnostic", rule: refusal.rule, expected: refusal.expected, got: refusal.got, method, error: undefined });
      }
      return;
    }
    switch (method) {
      case "notifications/initialized":
        this.setPhase(Phase.Operating);
        this.events.push({ kind: "ready" });
        return;
      case "notifications/cancelled":
        this.onCancelled(params);
        return;
      case "notifications/progress":
        this.onProgress(params, now);
        return;
      default: {
        if (this.eraState === "modern") {
          this.onModernNotification(method, params);
          return;
        }
        const invalid = this.paramsProblem(method, params);
        if (invalid !== undefined) {
          this.violation("a.2", `${invalid.path}: ${invalid.expected}`, invalid.got, undefined, undefined, method);
          return;
        }
        const problem = this.features.inboundNotification(method, params);
        if (problem !== undefined) {
          this.violation(problem.rule, problem.expected, problem.got, undefined, undefined, method);
          return;
        }
        if (method === "notifications/tasks/status") this.releaseEndedTaskTokens();
        this.events.push({ kind: "notification", method, params });
      }
    }
  }

  private onCancelled(params: JsonObject | undefined): void {
    const id = params?.requestId;
    // X-05: malformed, unknown or finished targets are ignored silently; initialize cannot be cancelled (X-02).
    if (!isRequestId(id)) return;
    if (this.eraState === "modern" && this.role === "client") {
      // g.5, g.7: a modern server (stdio) may end one of our listen streams this way, and only that.
      const ours = typeof id === "number" ? this.pendingOut.get(id) : undefined;
      if (ours === undefined || ours.method !== "subscriptions/listen") return;
      this.settleOut(ours);
      this.events.push({ kind: "request-ended", id: ours.id, method: ours.method, reason: typeof params?.reason === "string" ? params.reason : undefined });
      return;
    }
    const pending = this.pendingIn.get(id);
    if (pending === undefined || pending.method === "initialize") return;
    this.pendingIn.delete(id);
    this.subscriptions.delete(id);
    remember(this.cancelledIn, id);
    const group = pending.group;
    if (group !== undefined) {
      group.remaining--;
      this.flushGroup(group);
    }
    const reason = typeof params?.reason === "string" ? params.reason : undefined;
    this.events.push({ kind: "cancelled", id, method: pending.method, reason });
  }

  private onProgress(params: JsonObject | undefined, now: number | undefined): void {
    const token = params?.progressToken;
    const progress = params?.progress;
    if (!isProgressToken(token) || typeof progress !== "number" || !Number.isFinite(progress)) {
      this.events.push({ kind: "diagnostic", rule: "P-01", expected: "progressToken (string or integer) and a numeric progress", got: `token ${describeValue(token)}, progress ${describeValue(progress)}`, method: "notifications/progress", error: undefined });
      return;
    }
    const pending = this.tokensOut.get(token);
    if (pending === undefined) {
      this.events.push({ kind: "diagnostic", rule: "P-04", expected: "progress for a request in flight", got: `unknown or finished token ${describeValue(token)}`, method: "notifications/progress", error: undefined });
      return;
    }
    if (pending.lastProgress !== undefined && progress <= pending.lastProgress) {
      this.violation("P-05", `progress greater than ${pending.lastProgress}`, describeValue(progress), undefined, pending.id, pending.method);
      return;
    }
    pending.lastProgress = progress;
    const timing = pending.timing;
    if (timing !== undefined && timing.resetMs > 0 && now !== undefined) {
      timing.deadline = now + timing.resetMs;
      this.deadlines.update(pending, dueOf(timing));
    }
    const total = typeof params?.total === "number" ? params.total : undefined;
    const message = typeof params?.message === "string" ? params.message : undefined;
    this.events.push({ kind: "progress", id: pending.id, method: pending.method, token, progress, total, message });
  }

  private onResponse(id: RequestId, result: JsonObject | undefined, error: ErrorObject | undefined): void {
    const pending = typeof id === "number" ? this.pendingOut.get(id) : undefined;
    if (pending === undefined) {
      // X-06: an answer to a request we cancelled (or timed out) is dropped silently.
      if (typeof id === "number" && this.cancelledOut.delete(id)) return;
      this.violation("ID-04", "a response to a request in flight", `id ${describeValue(id)} unknown or already settled`, undefined, id, undefined);
      return;
    }
    // P-08: the token of a task-augmented request lives on until the task ends.
    const createsTask = result !== undefined && pending.params !== undefined && pending.params.task !== undefined && isJsonObject(result.task);
    this.settleOut(pending, createsTask);
    if (pending.id === this.initializeId) {
      this.onInitializeResponse(pending.id, result, error);
      return;
    }
    if (this.eraState === "modern" && result !== undefined) {
      this.onModernResult(pending, result);
      return;
    }
    const sessionVersion = this.sessionVersion ?? newestVersion(this.versions);
    if (result !== undefined && (this.validateResults || pending.method.startsWith("tasks/"))) {
      const check = resultCheck(sessionVersion, pending.method);
      const invalid = check === undefined ? undefined : validate(check, result, "result");
      if (invalid !== undefined) {
        this.violation("a.1", `${invalid.path}: ${invalid.expected}`, invalid.got, undefined, pending.id, pending.method);
        this.events.push({ kind: "invalid-response", id: pending.id, method: pending.method, result, path: invalid.path, expected: invalid.expected, got: invalid.got });
        return;
      }
    }
    const problem = error !== undefined ? this.features.inboundError(error, this.sessionVersion) : this.features.inboundResult(pending.method, pending.params, result as JsonObject, createsTask ? pending.token : undefined);
    if (problem !== undefined) this.violation(problem.rule, problem.expected, problem.got, undefined, pending.id, pending.method);
    if (pending.method.startsWith("tasks/")) this.releaseEndedTaskTokens();
    if (error !== undefined) this.events.push({ kind: "error-response", id: pending.id, method: pending.method, error });
    else this.events.push({ kind: "response", id: pending.id, method: pending.method, result: result as JsonObject });
  }

  /** A notification under 2026-07-28 (client side): change notifications must name one of our open listen streams (g.5). */
  private onModernNotification(method: string, params: JsonObject | undefined): void {
    if (method !== "notifications/message") {
      const meta = params !== undefined && isJsonObject(params._meta) ? params._meta : undefined;
      const id = meta?.[META_SUBSCRIPTION_ID];
      const listen = typeof id === "number" ? this.pendingOut.get(id) : undefined;
      if (listen === undefined || listen.method !== "subscriptions/listen") {
        this.violation("g.5", `${method} on an open subscriptions/listen stream of ours (_meta subscriptionId)`, describeValue(id), undefined, undefined, method);
        return;
      }
    }
    this.events.push({ kind: "notification", method, params });
  }

  /** A modern client's result (g.3): a missing resultType is "complete", an unknown one is invalid; discover tells us the server. */
  private onModernResult(pending: PendingOut, result: JsonObject): void {
    if (resultTypeOf(result) === undefined) {
      this.violation("g.3", 'resultType "complete" or "input_required"', describeValue(result.resultType), undefined, pending.id, pending.method);
      this.events.push({ kind: "invalid-response", id: pending.id, method: pending.method, result, path: "result.resultType", expected: 'resultType "complete" or "input_required"', got: describeValue(result.resultType) });
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
      this.events.push({ kind: "negotiated", version: this.version as ProtocolVersion, peerInfo: serverInfo, peerCapabilities: result.capabilities, instructions: this.peerInstructions });
    }
    this.events.push({ kind: "response", id: pending.id, method: pending.method, result });
  }

  private releaseEndedTaskTokens(): void {
    const tokens: Array<string | number> = [];
    this.features.endedTaskTokens(tokens);
    for (const token of tokens) this.tokensOut.delete(token);
  }

  private onInitializeResponse(id: number, result: JsonObject | undefined, error: ErrorObject | undefined): void {
    if (error !== undefined) {
      this.events.push({ kind: "error-response", id, method: "initialize", error });
      this.shutdown("fatal", "L-03", `initialize failed: ${error.code} ${error.message}`);
      return;
    }
    const r = result as JsonObject;
    const problem = initializeResultProblem(r);
    if (problem !== undefined) {
      this.violation("L-03", problem.expected, `${problem.path}: ${problem.got}`, undefined, id, "initialize");
      this.shutdown("fatal", "L-03", `malformed initialize result at ${problem.path}`);
      return;
    }
    const version = r.protocolVersion;
    if (!(this.versions as readonly unknown[]).includes(version)) {
      this.violation("V-04", `a protocol version among ${this.versions.join(", ")}`, describeValue(version), undefined, id, "initialize");
      this.shutdown("fatal", "V-04", `server answered unsupported protocol version ${describeValue(version)}`);
      return;
    }
    this.peerCapabilitiesObject = r.capabilities as JsonObject;
    this.peerInfoObject = r.serverInfo as JsonObject;
    this.peerInstructions = typeof r.instructions === "string" ? r.instructions : undefined;
    this.negotiate(version as SessionVersion, this.peerCapabilitiesObject);
    this.events.push({ kind: "negotiated", version: version as SessionVersion, peerInfo: this.peerInfoObject, peerCapabilities: this.peerCapabilitiesObject, instructions: this.peerInstructions });
    this.queue({ jsonrpc: "2.0", method: "notifications/initialized" }, undefined);
    this.setPhase(Phase.Operating);
    this.events.push({ kind: "ready" });
  }

  // ── helpers ──────────────────────────────────────────────────────────────────

  private negotiate(version: SessionVersion, peerCapabilities: JsonObject): void {
    this.version = version;
    this.profile = VERSION_PROFILES[version];
    this.table = methodTable(version);
    this.peerCaps = capabilityMask(peerCapabilities);
    this.refreshGates();
  }

  private setPhase(phase: PhaseBit): void {
    this.phaseBit = phase;
    this.refreshGates();
  }

  private refreshGates(): void {
    const peer: Role = this.role === "client" ? "server" : "client";
    const version: ProtocolVersion = this.version ?? newestVersion(this.versions);
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
    const id = this.nextId;
    let token = progressTokenOf(params);
    if (options.progressToken !== undefined) {
      token = options.progressToken === true ? id : options.progressToken;
      if (!isProgressToken(token)) throw new LocalProtocolError({ rule: "P-01", expected: "a string or integer progress token", got: describeValue(token), method });
      const meta = params !== undefined && isJsonObject(params._meta) ? params._meta : undefined;
      params = { ...params, _meta: { ...meta, progressToken: token } };
    }
    if (token !== undefined && this.tokensOut.has(token)) {
      throw new LocalProtocolError({ rule: "P-02", expected: "a progress token unique among active requests", got: `token ${describeValue(token)} in use`, method });
    }
    this.features.outboundRequest(method, params, this.peerCaps, this.sessionVersion);
    const resetMs = options.resetOnProgressMs ?? 0;
    const timing: Timing | undefined =
      options.deadline === undefined && options.totalDeadline === undefined && resetMs === 0
        ? undefined
        : { deadline: options.deadline ?? Infinity, totalDeadline: options.totalDeadline ?? Infinity, resetMs };
    const pending: PendingOut = { id, method, params, token, timing, lastProgress: undefined, due: Infinity, heapIndex: -1 };
    this.nextId = id + 1;
    this.pendingOut.set(pending);
    if (token !== undefined) this.tokensOut.set(token, pending);
    if (timing !== undefined) this.deadlines.update(pending, dueOf(timing));
    this.queue(params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params }, related);
    return id;
  }

  /** Removes one of our requests from every table (its progress token too, unless a task keeps it). */
  private settleOut(p: PendingOut, keepToken = false): void {
    this.pendingOut.delete(p.id);
    if (p.token !== undefined && !keepToken) this.tokensOut.delete(p.token);
    this.deadlines.remove(p);
  }

  /** The pending inbound request for respond/respondError; undefined when the peer cancelled it. */
  private takePendingIn(id: RequestId): PendingIn | undefined {
    const pending = this.pendingIn.get(id);
    if (pending === undefined) {
      if (this.cancelledIn.delete(id)) return undefined;
      throw new LocalProtocolError({ rule: "ID-04", expected: "the id of a peer request in flight", got: describeValue(id) });
    }
    if (pending.method === "initialize" && this.pendingInitialize !== undefined) {
      throw new LocalProtocolError({ rule: "L-03", expected: "acceptInitialize() or respondError() for initialize", got: "respond()", method: "initialize" });
    }
    this.pendingIn.delete(id);
    return pending;
  }

  private refuse(id: RequestId, method: string, group: BatchGroup | undefined, refusal: Pick<GateRefusal, "rule" | "expected" | "got"> & { code: number }): void {
    this.replyError(id, refusal.code, refusalMessage(refusal.code), group, undefined);
    this.violation(refusal.rule, refusal.expected, refusal.got, refusal.code, id, method);
  }

  /** g.9: a 2026-07-28 client never writes responses, not even errors for malformed input (a violation still reports it). */
  private get writesResponses(): boolean {
    return this.role !== "client" || this.eraState !== "modern";
  }

  private replyError(id: RequestId | null, code: number, message: string, group: BatchGroup | undefined, data: unknown): void {
    if (!this.writesResponses) return;
    const error: ErrorObject = data === undefined ? { code, message } : { code, message, data };
    let msg: JsonRpcErrorResponse;
    if (id !== null) msg = { jsonrpc: "2.0", id, error };
    else if (this.profile !== undefined && this.profile.unreadableErrorId === "omit") msg = { jsonrpc: "2.0", error };
    else msg = { jsonrpc: "2.0", id: null, error };
    this.reply(msg, group, id ?? undefined);
  }

  private reply(msg: JsonRpcMessage, group: BatchGroup | undefined, related: RequestId | undefined): void {
    if (group === undefined) {
      this.queue(msg, related);
      return;
    }
    group.replies.push(msg);
    group.remaining--;
    this.flushGroup(group);
  }

  private flushGroup(group: BatchGroup): void {
    if (group.open || group.remaining > 0 || group.replies.length === 0) return;
    this.outbound.push(group.replies);
    this.outboundRelated.push(undefined);
  }

  private queue(message: JsonRpcMessage, related: RequestId | undefined): void {
    this.outbound.push(message);
    this.outboundRelated.push(related);
  }

  private violation(rule: string, expected: string, got: string, code: number | undefined, id: RequestId | undefined, method: string | undefined): void {
    this.events.push({ kind: "violation", rule, expected, got, code: this.writesResponses ? code : undefined, id, method });
  }

  private shutdown(reason: ClosedEvent["reason"], rule: string | undefined, detail: string): void {
    this.phaseBit = Phase.Closed;
    this.refreshGates();
    const pending = this.pendingOut.collect([]);
    this.pendingOut.clear();
    this.tokensOut.clear();
    this.deadlines.clear();
    for (const p of pending) this.events.push({ kind: "connection-closed", id: p.id, method: p.method });
    this.pendingIn.clear();
    this.pendingInitialize = undefined;
    this.events.push({ kind: "closed", reason, rule, detail });
  }
}

const textEncoder = new TextEncoder();

function refusalMessage(code: number): string {
  switch (code) {
    case ErrorCode.MethodNotFound:
      return "Method not found";
    case ErrorCode.InvalidParams:
      return "Invalid params";
    case ErrorCode.InternalError:
      return "Too many requests in flight";
    default:
      return "Invalid request";
  }
}

interface ShapeProblem {
  path: string;
  expected: string;
  got: string;
}

function implementationProblem(value: unknown, path: string): ShapeProblem | undefined {
  if (!isJsonObject(value)) return { path, expected: "an Implementation object {name, version}", got: describeValue(value) };
  if (typeof value.name !== "string") return { path: `${path}.name`, expected: "a string", got: describeValue(value.name) };
  if (typeof value.version !== "string") return { path: `${path}.version`, expected: "a string", got: describeValue(value.version) };
  return undefined;
}

/** L-02: initialize carries protocolVersion, capabilities and clientInfo. */
function initializeParamsProblem(params: JsonObject | undefined): ShapeProblem | undefined {
  if (params === undefined) return { path: "params", expected: "an object with protocolVersion, capabilities, clientInfo", got: "absent" };
  if (typeof params.protocolVersion !== "string") return { path: "params.protocolVersion", expected: "a string", got: describeValue(params.protocolVersion) };
  if (!isJsonObject(params.capabilities)) return { path: "params.capabilities", expected: "an object", got: describeValue(params.capabilities) };
  return implementationProblem(params.clientInfo, "params.clientInfo");
}

/** L-03: the result carries protocolVersion, capabilities and serverInfo. */
function initializeResultProblem(result: JsonObject): ShapeProblem | undefined {
  if (typeof result.protocolVersion !== "string") return { path: "result.protocolVersion", expected: "a string", got: describeValue(result.protocolVersion) };
  if (!isJsonObject(result.capabilities)) return { path: "result.capabilities", expected: "an object", got: describeValue(result.capabilities) };
  if (result.instructions !== undefined && typeof result.instructions !== "string") {
    return { path: "result.instructions", expected: "a string when present", got: describeValue(result.instructions) };
  }
  return implementationProblem(result.serverInfo, "result.serverInfo");
}
