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
// The rules live in tables and sibling modules: which message is legal when (lib/rules/methods.ts,
// gate()), the lifecycle (lib/rules/lifecycle.ts), what differs by version (lib/rules/versions.ts), our
// requests and their deadlines (lib/engine/outbound-requests.ts), the peer's requests
// (lib/engine/inbound-requests.ts) and notifications (lib/engine/inbound-notifications.ts), progress
// (lib/rules/progress.ts), replies and events (lib/engine/output.ts), feature rules (lib/rules/features.ts),
// params (lib/rules/params.ts), limits (lib/engine/engine-types.ts), the 2026-07-28 server side
// (lib/engine/modern-server.ts, rules in lib/rules/modern.ts).
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

import { classify, type JsonObject, type RequestEnvelope, type RequestId } from "../wire/envelope.js";
import type {
  EngineLimits,
  EngineOptions,
  EngineSnapshot,
  ArgsFor,
  NotifyOptions,
  Outbound,
  OutgoingNotifications,
  OutgoingRequests,
  RequestOptions,
} from "./engine-types.js";
import { resolveLimits } from "./engine-types.js";
import { Answers } from "./inbound-answers.js";
import { ErrorCode, LocalProtocolError, describeValue } from "../wire/errors.js";
import type { ClosedEvent, EngineEvent } from "./events.js";
import { Features } from "../rules/features.js";
import { LineDecoder, type DecodedItem, type FramingError } from "../wire/framing.js";
import { Handshake } from "./handshake.js";
import { InboundNotifications } from "./inbound-notifications.js";
import { InboundRequests } from "./inbound-requests.js";
import { gate, isCancellable, type PhaseName, type Role } from "../rules/methods.js";
import { hasModernEnvelope, withEnvelope } from "../rules/modern.js";
import { modernServerFor, type ModernServer } from "./modern-server.js";
import { EMPTY_RESULT } from "../wire/outbound-bytes.js";
import { OutboundRequests } from "./outbound-requests.js";
import { Replies } from "./outbound-replies.js";
import type { BatchGroup, Output } from "./output.js";
import { progressTokenOf } from "../rules/progress.js";
import { Session } from "./session.js";
import { VERSION_PROFILES, isSessionVersion, type ModernVersion, type ProtocolVersion, type SessionVersion } from "../rules/versions.js";

export * from "./engine-types.js";
const NO_OPTIONS: RequestOptions & NotifyOptions = Object.freeze({});

export class Engine<R extends Role = Role> {
  readonly role: R;
  /** The session-era versions we speak (initialize negotiates among these). */
  readonly versions: readonly SessionVersion[];
  /** The modern versions we speak (2026-07-28). */
  readonly modernVersions: readonly ModernVersion[];
  readonly limits: Readonly<EngineLimits>;
  readonly strict: boolean;

  private readonly s: Session;
  private readonly output: Output;
  private readonly outRequests: OutboundRequests;
  private readonly inRequests = new InboundRequests();
  private readonly features: Features;
  private readonly handshake: Handshake;
  private readonly answers: Answers;
  private readonly replies: Replies;
  private readonly notifications: InboundNotifications;
  /** A server that speaks 2026-07-28. */
  private readonly modernServer: ModernServer | undefined;
  private readonly decoder: LineDecoder;
  private readonly decoded: DecodedItem[] = [];

  constructor(options: EngineOptions<R>) {
    const s = new Session(options);
    this.s = s;
    this.output = s.output;
    this.role = options.role;
    this.versions = s.versions;
    this.modernVersions = s.modernVersions;
    this.strict = s.strict;
    const firstId = options.firstRequestId ?? 0;
    if (!Number.isSafeInteger(firstId) || firstId < 0)
      throw new RangeError(`firstRequestId must be a non-negative safe integer; got ${String(firstId)}`);
    this.outRequests = new OutboundRequests(firstId);
    const limits = resolveLimits(this.role, options.limits);
    this.limits = limits;
    this.decoder = new LineDecoder({ maxLineBytes: limits.maxLineBytes });
    this.features = new Features(this.role, limits);
    const shutdown = (reason: ClosedEvent["reason"], rule: string | undefined, detail: string): void => this.shutdown(reason, rule, detail);
    this.handshake = new Handshake(s, this.inRequests, options.autoInitialize ?? true, shutdown);
    this.answers = new Answers(s, this.outRequests, this.features, this.handshake, options.validateResults ?? false, shutdown);
    this.modernServer = this.role === "server" ? modernServerFor(s, this.inRequests, limits.maxPendingInbound, options) : undefined;
    this.replies = new Replies(s, this.inRequests, this.features, this.handshake, this.modernServer);
    this.notifications = new InboundNotifications(s, this.output, this.answers, this.features, this.replies);
    if (s.era === "modern") s.enterModern(s.modernVersions[0] as ModernVersion);
  }

  // ── A. getters ────────────────────────────────────────────────────────────────

  get phase(): PhaseName {
    return this.s.phase;
  }

  get isClosed(): boolean {
    return this.s.closed;
  }

  /** The session's version (session era), or the modern version in use (modern era). */
  get negotiatedVersion(): ProtocolVersion | undefined {
    return this.s.version;
  }

  /** Which era this endpoint speaks: "undecided" until a dual-era server's first message or a client's first command. */
  get era(): "undecided" | "session" | "modern" {
    return this.s.era;
  }

  get peerInfo(): JsonObject | undefined {
    return this.s.peerInfoObject;
  }

  get peerCapabilities(): JsonObject | undefined {
    return this.s.peerCapabilitiesObject;
  }

  /** Server instructions received by a client. */
  get instructionsFromPeer(): string | undefined {
    return this.s.peerInstructions;
  }

  get ownCapabilities(): JsonObject {
    return this.s.capabilities;
  }

  /** The code for a missing resource in the negotiated version (-32002 in every session-era version). */
  get resourceNotFoundCode(): number {
    return (this.s.profile ?? VERSION_PROFILES[this.s.defaultVersion]).resourceNotFoundCode;
  }

  /** Server: the logging level the client set with logging/setLevel, if any. */
  get loggingLevel(): string | undefined {
    return this.features.loggingLevel;
  }

  /** Server: whether the client is subscribed to `uri` (or to a resource containing it). */
  isSubscribed(uri: string): boolean {
    return this.features.isSubscribed(uri);
  }

  /** Whether the gate lets our host send `method` now (phase, direction, capabilities of either side), without trying it. */
  allows(method: string, kind: "request" | "notification", params?: JsonObject): boolean {
    return !this.s.closed && gate(this.s.outboundGate, true, method, kind, params) === undefined;
  }

  /** The id our next request will get. */
  get nextRequestId(): number {
    return this.outRequests.nextId;
  }

  private idsEnd: number | undefined = undefined;

  /** The end of the block of request ids this process was given (useRequestIds), if any. */
  get requestIdsEnd(): number | undefined {
    return this.idsEnd;
  }

  /** ID-03 across processes: our request ids come from [first, end) (a block no other process has), and adopt() no longer moves them. */
  useRequestIds(first: number, end: number): void {
    if (!Number.isSafeInteger(first) || !Number.isSafeInteger(end) || first < 0 || first >= end) return;
    this.outRequests.nextId = first;
    this.idsEnd = end;
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
    return this.s.snapshot(this.outRequests.nextId, this.features.exportState());
  }

  /**
   * Adopts a newer snapshot of this same session, written by another process that carried it
   * on (a shared session store): the phase only moves forward, the logging level and the
   * subscriptions become the snapshot's, and our request ids stay past both counters (ID-03).
   * A snapshot of another role or version is ignored.
   */
  adopt(snapshot: EngineSnapshot): void {
    if (this.s.closed || snapshot.format !== 1 || snapshot.role !== this.role || snapshot.version !== this.negotiatedVersion) return;
    if (snapshot.phase === "operating" && this.s.phase === "initializing") this.s.enter("operating");
    // With a block of its own (useRequestIds), another process's counter is in another block: not ours to follow.
    if (Number.isSafeInteger(snapshot.nextId) && this.requestIdsEnd === undefined)
      this.outRequests.nextId = Math.max(this.outRequests.nextId, snapshot.nextId);
    this.features.importState(snapshot, true);
  }

  /** Whether `id` names one of our requests still awaiting its response (a host that shares sessions routes a stray answer elsewhere). */
  awaitsResponse(id: RequestId): boolean {
    return typeof id === "number" && this.outRequests.get(id) !== undefined;
  }

  /** An engine that carries on the session a snapshot describes, with the same options it was created with. */
  static restore<R extends Role>(options: EngineOptions<R>, snapshot: EngineSnapshot): Engine<R> {
    if (snapshot.format !== 1 || snapshot.role !== options.role || !isSessionVersion(snapshot.version)) {
      throw new RangeError(
        `snapshot does not fit: format ${String(snapshot.format)}, role ${String(snapshot.role)}, version ${String(snapshot.version)}`,
      );
    }
    const engine = new Engine(options);
    engine.s.restore(snapshot);
    engine.outRequests.nextId = snapshot.nextId;
    engine.features.importState(snapshot);
    return engine;
  }

  // ── B. inputs ─────────────────────────────────────────────────────────────────
  // Every input runs inside a try: an exception that escapes the protocol code is a bug of
  // ours, and it must neither reach the host nor leave half-processed input behind to throw
  // again on the next call. It closes the engine for good (reason "internal", reported once);
  // queued output still drains and later input is ignored, like h11's ERROR state.

  /** Newline-delimited JSON bytes from the transport, not kept after the call (a host may reuse its buffer). `now` lets progress push back inactivity deadlines. */
  receiveBytes(chunk: Uint8Array, now?: number): void {
    if (this.s.closed) return;
    try {
      this.decoder.push(chunk, this.decoded);
      this.processDecoded(now);
    } catch (error) {
      this.failInternally(error);
    }
  }

  /** One already-parsed JSON value (an HTTP body, a postMessage payload); arrays are batches. */
  receiveMessage(value: unknown, now?: number): void {
    if (this.s.closed) return;
    try {
      this.receiveValue(value, undefined, now);
    } catch (error) {
      this.failInternally(error);
    }
  }

  /** The transport ended. A partial last line is reported; every pending request is settled. */
  receiveEof(): void {
    if (this.s.closed) return;
    try {
      this.decoder.finish(this.decoded);
      this.processDecoded(undefined);
      if (!this.s.closed) this.shutdown("eof", undefined, "the transport ended");
    } catch (error) {
      this.failInternally(error);
    }
  }

  /** Expires deadlines at or before `now`. Spurious calls are no-ops. */
  handleTimeout(now: number): void {
    if (this.s.closed || !this.outRequests.hasDeadlines) return;
    try {
      this.answers.expire(now);
    } catch (error) {
      this.failInternally(error);
    }
  }

  private failInternally(error: unknown): void {
    this.decoded.length = 0;
    if (this.s.closed) return;
    const detail = `unexpected ${error instanceof Error ? `${error.name}: ${error.message}` : describeValue(error)}`;
    try {
      this.shutdown("internal", "ENG-01", detail);
    } catch {
      // Even settling failed: close without settling, so that nothing runs on broken state again.
      this.s.enter("closed");
      this.output.events.push({ kind: "closed", reason: "internal", rule: "ENG-01", detail });
    }
  }

  // ── C. commands ───────────────────────────────────────────────────────────────

  /** Client: queue `initialize` with our newest version, capabilities and info. Returns its id. */
  initialize(options: Pick<RequestOptions, "deadline" | "totalDeadline"> = {}): number {
    this.s.assertOpen("initialize");
    const params = this.handshake.initializeParams();
    this.s.era = "session";
    const id = this.sendRequest("initialize", params, options, undefined);
    this.handshake.initializeId = id;
    this.s.move("initialize-sent");
    return id;
  }

  /**
   * Client: speak the modern revision (2026-07-28): no handshake; every request carries the
   * per-request `_meta` envelope. Send server/discover to learn the server's capabilities.
   */
  startModern(version?: ModernVersion): void {
    this.s.assertOpen("startModern");
    const chosen = version ?? this.modernVersions[0];
    if (this.role !== "client" || this.s.era !== "undecided" || chosen === undefined || !this.modernVersions.includes(chosen)) {
      throw new LocalProtocolError({
        rule: "MOD-04",
        expected: "a client configured with a modern version, before any other command",
        got: `role ${this.role}, era ${this.s.era}`,
      });
    }
    this.s.enterModern(chosen);
  }

  /** Modern server: ends every open subscriptions/listen stream with its final result (MOD-15). */
  endSubscriptions(): void {
    this.s.assertOpen("subscriptions/listen");
    this.modernServer?.endAll();
  }

  /** Server with autoInitialize false: answer the pending initialize with our result. */
  acceptInitialize(): void {
    this.s.assertOpen("initialize");
    this.handshake.accept();
  }

  /** Sends a request; returns the id it was given. Throws LocalProtocolError if the protocol forbids it now. */
  request<M extends string>(method: M, ...args: ArgsFor<OutgoingRequests<R>, M, RequestOptions>): number;
  request(method: string, requestParams?: unknown, requestOptions?: unknown): number {
    let params = requestParams as JsonObject | undefined;
    const options = (requestOptions ?? NO_OPTIONS) as RequestOptions;
    this.s.assertOpen(method);
    if (this.s.era === "modern" && this.role === "server") {
      throw new LocalProtocolError({
        rule: "MOD-09",
        expected: "no server-initiated requests in 2026-07-28 (ask through an input_required result)",
        got: method,
        method,
      });
    }
    this.s.assertAllowed(method, "request", params);
    if (this.s.modernEnvelope !== undefined) params = withEnvelope(params, this.s.modernEnvelope);
    if (this.outRequests.size >= this.limits.maxPendingOutbound) {
      throw new LocalProtocolError({
        rule: "LIM-03",
        expected: `at most ${this.limits.maxPendingOutbound} requests in flight`,
        got: `${this.outRequests.size}`,
        method,
      });
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
    this.s.assertOpen(method);
    this.s.assertAllowed(method, "notification", params);
    if (this.s.era === "modern" && this.modernServer !== undefined)
      return this.modernServer.notify(method, params, options.relatedRequestId);
    if (!this.features.outboundNotification(method, params, this.s.sessionVersion)) return false;
    this.output.queue(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params }, options.relatedRequestId);
    return true;
  }

  /** Answers a peer request. A request the peer cancelled is dropped silently (X-04). */
  respond(id: RequestId, value: object): void {
    this.s.assertOpen("respond");
    this.replies.respond(id, value);
  }

  /** Answers a peer request with a JSON-RPC error. */
  respondError(id: RequestId, code: number, message: string, data?: unknown): void {
    this.s.assertOpen("respondError");
    this.replies.respondError(id, code, message, data);
  }

  /** Reports progress on a peer request that carried a progress token. Refused after the response (P-04). */
  sendProgress(id: RequestId, progress: number, total?: number, message?: string): void {
    this.s.assertOpen("notifications/progress");
    this.replies.sendProgress(id, progress, total, message);
  }

  /** Reports progress on a task we created, on the token of the request that created it (P-08). */
  sendTaskProgress(taskId: string, progress: number, total?: number, message?: string): void {
    this.s.assertOpen("notifications/progress");
    this.replies.sendTaskProgress(taskId, progress, total, message);
  }

  /**
   * Cancels one of our requests: queues notifications/cancelled and forgets it; a late
   * response is dropped silently. Returns false when the request had already settled
   * (the race of X-07). Throws for initialize (X-02, L-04) and for ids we never issued (X-01).
   */
  cancel(id: number, reason?: string): boolean {
    this.s.assertOpen("notifications/cancelled");
    const pending = this.outRequests.get(id);
    if (id === this.handshake.initializeId || (pending !== undefined && !isCancellable(pending.method))) {
      throw new LocalProtocolError({ rule: "X-02", expected: "a request other than initialize", got: "initialize", method: "initialize" });
    }
    if (pending === undefined) {
      this.outRequests.assertIssued(id);
      return false;
    }
    this.outRequests.abandon(pending);
    this.output.queue(
      { jsonrpc: "2.0", method: "notifications/cancelled", params: reason === undefined ? { requestId: id } : { requestId: id, reason } },
      undefined,
    );
    return true;
  }

  /** Moves the inactivity deadline of one of our requests (undefined: none). The total deadline never moves. */
  setDeadline(id: number, deadline: number | undefined): void {
    this.s.assertOpen("setDeadline");
    const pending = this.outRequests.get(id);
    if (pending === undefined)
      throw new LocalProtocolError({ rule: "ID-04", expected: "a request of ours in flight", got: describeValue(id) });
    this.outRequests.setDeadline(pending, deadline);
  }

  /** Closes the session locally: every pending request is settled; queued output still drains. */
  close(): void {
    if (!this.s.closed) this.shutdown("local", undefined, "closed by the host");
  }

  // ── D. outputs ────────────────────────────────────────────────────────────────

  /** The next outbound message, oldest first. */
  pollOutbound(): Outbound | undefined {
    return this.output.pollOutbound();
  }

  /** Every queued outbound message as newline-delimited UTF-8 JSON in one view, never rewritten (views share slabs: read the view, not its .buffer; lib/wire/line-encoder.ts); undefined when none. */
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
    return this.s.closed ? undefined : this.outRequests.nextDeadline();
  }

  // ── inbound processing ────────────────────────────────────────────────────────

  private processDecoded(now: number | undefined): void {
    const items = this.decoded;
    const { output } = this;
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as DecodedItem;
      if (this.s.closed) break;
      if (item.ok) this.receiveValue(item.value, undefined, now);
      else if (item.reason === "truncated")
        output.violation("M-01", "a newline after the last message", item.detail, undefined, undefined, undefined);
      else if (item.reason === "line-too-long") this.onLineTooLong(item);
      else {
        output.replyError(null, ErrorCode.ParseError, "Parse error", undefined, undefined);
        output.violation(
          "M-01",
          "a UTF-8 JSON message per line",
          `line ${item.line}: ${item.detail}`,
          ErrorCode.ParseError,
          undefined,
          undefined,
        );
      }
    }
    if (items.length === 1)
      items.pop(); // the usual one item: setting length is several times slower
    else items.length = 0;
  }

  /** A line over maxLineBytes, skipped unread: its scanned facts (lib/wire/line-scan.ts) say whether it answers one of our requests (lib/engine/inbound-answers.ts) or is owed a refusal. */
  private onLineTooLong(item: FramingError): void {
    const facts = item.facts;
    if (facts !== undefined && !facts.hasMethod && facts.hasId) this.answers.onTooLarge(facts, item.line, this.limits.maxLineBytes);
    else this.output.refuseOverlong(facts, item.line, this.limits.maxLineBytes);
  }

  private receiveValue(value: unknown, group: BatchGroup | undefined, now: number | undefined): void {
    const env = classify(value);
    switch (env.kind) {
      case "request":
        this.onRequest(env, group);
        return;
      case "notification":
        this.notifications.receive(env.method, env.params, now);
        return;
      case "result":
        this.answers.onResponse(env.id, env.result, undefined);
        return;
      case "error":
        if (env.id === null) this.output.diagnostic("M-06", "an error response with the request's id", "no id", undefined, env.error);
        else this.answers.onResponse(env.id, undefined, env.error);
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
        else
          this.output.violation(
            env.rule,
            env.expected,
            env.got,
            owesReply ? ErrorCode.InvalidRequest : undefined,
            env.id ?? undefined,
            undefined,
          );
      }
    }
  }

  /** M-09: a batch, where the version profile allows them (before negotiation: when any version we speak does). */
  private onBatch(items: readonly unknown[], outer: BatchGroup | undefined, now: number | undefined): void {
    const { s } = this;
    const allowed = s.profile !== undefined ? s.profile.batching : s.versions.some((v) => VERSION_PROFILES[v].batching);
    if (!this.output.acceptBatch(items.length, outer, allowed, this.limits.maxBatchLength, s.version)) return;
    const group: BatchGroup = { remaining: 0, open: true, replies: [] };
    for (const item of items) {
      if (s.closed) return;
      this.receiveValue(item, group, now);
    }
    group.open = false;
    this.output.flushGroup(group);
  }

  private onRequest(env: RequestEnvelope, group: BatchGroup | undefined): void {
    const { id, method, params } = env;
    const { s, output } = this;
    if (group !== undefined) group.remaining++;
    if (this.inRequests.has(id)) {
      output.refuse(id, method, group, {
        code: ErrorCode.InvalidRequest,
        rule: "ID-03",
        expected: "an id not already in flight",
        got: `duplicate id ${describeValue(id)}`,
      });
      return;
    }
    if (s.era === "modern" && this.role === "client") {
      // MOD-21: a modern server never sends requests, and a modern client never writes responses.
      if (group !== undefined) group.remaining--;
      output.violation("MOD-21", "no requests from a 2026-07-28 server", method, undefined, id, method);
      return;
    }
    if (this.modernServer !== undefined && s.era !== "session") {
      // MOD-23: the first request picks the era; a server/discover probe picks none (a client may initialize next, here).
      if (s.era === "undecided") {
        if (method === "server/discover" && hasModernEnvelope(params)) {
          this.modernServer.answerDiscover(id, params, group);
          return;
        }
        if (hasModernEnvelope(params)) s.enterModern(s.modernVersions[0] as ModernVersion);
        else if (method === "initialize") s.era = "session";
      }
      if (s.era === "modern") {
        this.modernServer.onRequest(id, method, params, group);
        return;
      }
    }
    if (method === "initialize" && group !== undefined && this.role === "server") {
      output.refuse(id, method, group, {
        code: ErrorCode.InvalidRequest,
        rule: "L-05",
        expected: "initialize outside any batch",
        got: "initialize in a batch",
      });
      return;
    }
    const refusal = gate(s.inboundGate, false, method, "request", params);
    if (refusal !== undefined) {
      if (refusal.code !== undefined) {
        output.refuse(id, method, group, { code: refusal.code, rule: refusal.rule, expected: refusal.expected, got: refusal.got });
        return;
      }
      // C-08: a receiver that did not declare task support processes the request normally.
      output.diagnostic(refusal.rule, refusal.expected, refusal.got, method);
    }
    if (method === "ping") {
      output.reply({ jsonrpc: "2.0", id, result: EMPTY_RESULT }, group, id); // G-02: at once, with {}
      return;
    }
    const invalid = s.paramsProblem(method, params);
    if (invalid !== undefined) {
      output.replyError(id, ErrorCode.InvalidParams, "Invalid params", group, {
        path: invalid.path,
        expected: invalid.expected,
        got: invalid.got,
      });
      output.violation(
        method === "initialize" ? "L-02" : "SCH-01",
        `${invalid.path}: ${invalid.expected}`,
        invalid.got,
        ErrorCode.InvalidParams,
        id,
        method,
      );
      return;
    }
    if (method === "initialize") {
      this.handshake.onInitialize(id, params as JsonObject);
      return;
    }
    if (this.inRequests.size >= this.limits.maxPendingInbound) {
      output.refuse(id, method, group, {
        code: ErrorCode.InternalError,
        rule: "LIM-02",
        expected: `at most ${this.limits.maxPendingInbound} requests in flight`,
        got: "one more",
      });
      return;
    }
    // After the limit: what the feature rules record (URL elicitation ids, subscriptions) belongs to accepted requests only.
    const featureRefusal = this.features.inboundRequest(method, params, s.ownCaps, s.sessionVersion);
    if (featureRefusal !== undefined && featureRefusal.code !== undefined) {
      output.refuse(id, method, group, {
        code: featureRefusal.code,
        rule: featureRefusal.rule,
        expected: featureRefusal.expected,
        got: featureRefusal.got,
      });
      return;
    }
    const token = progressTokenOf(params);
    this.inRequests.add(id, method, params, undefined, token, group);
    output.events.push({ kind: "request", id, method, params, progressToken: token, modern: undefined });
  }

  // ── helpers ───────────────────────────────────────────────────────────────────

  private sendRequest(method: string, params: JsonObject | undefined, options: RequestOptions, related: RequestId | undefined): number {
    const pending = this.outRequests.prepare(method, params, options);
    const sent = pending.params;
    this.features.outboundRequest(method, sent, this.s.peerCaps, this.s.sessionVersion);
    this.outRequests.register(pending);
    this.output.queue(
      sent === undefined ? { jsonrpc: "2.0", id: pending.id, method } : { jsonrpc: "2.0", id: pending.id, method, params: sent },
      related,
    );
    return pending.id;
  }

  private shutdown(reason: ClosedEvent["reason"], rule: string | undefined, detail: string): void {
    this.s.enter("closed");
    for (const p of this.outRequests.closeAll()) this.output.events.push({ kind: "connection-closed", id: p.id, method: p.method });
    this.inRequests.clear();
    this.handshake.clear();
    this.output.events.push({ kind: "closed", reason, rule, detail });
  }
}
