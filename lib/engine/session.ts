// The state one engine's modules share (quinn-proto keeps a Connection's state in sibling
// modules the same way): who we are, the era and version in force, the lifecycle state and
// the gates derived from them, what we know of the peer, and the output queues. The Engine
// (lib/engine/engine.ts) orchestrates; the handshake (lib/engine/handshake.ts) and the handling of the
// peer's answers (lib/engine/inbound-answers.ts) read and move this state through the methods here.
//
// Invariants:
// - the phase is only ever set through the lifecycle table (move/enter), and the gates are
//   rebuilt whenever the phase, the version or a side's capabilities change;
// - version-dependent behaviour reads `profile` and `table`, never a version string.

import { ALL_CAPS, capabilityMask } from "../rules/capabilities.js";
import { isJsonObject, type JsonObject } from "../wire/envelope.js";
import type { EngineOptions, EngineSnapshot } from "./engine-types.js";
import { describeValue, LocalProtocolError } from "../wire/errors.js";
import { nextState, phaseOf, type LifecycleEvent, type LifecycleRefusal, type LifecycleState } from "../rules/lifecycle.js";
import {
  PHASE_NAMES,
  Phase,
  gate,
  methodTable,
  type GateContext,
  type MethodTable,
  type PhaseBit,
  type PhaseName,
  type Role,
} from "../rules/methods.js";
import { requestEnvelope } from "../rules/modern.js";
import { Output } from "./output.js";
import { declaredExtensions, extensionMethodTable, type ExtensionGate, type ExtensionMethodTable } from "../rules/custom-methods.js";
import { paramsCheck } from "../rules/params.js";
import { validate, type Issue } from "../rules/schema.js";
import type { Implementation } from "../types/index.js";
import {
  SESSION_VERSIONS,
  VERSION_PROFILES,
  isProtocolVersion,
  isSessionVersion,
  newestVersion,
  type ModernVersion,
  type ProtocolVersion,
  type SessionVersion,
  type VersionProfile,
} from "../rules/versions.js";

export type Era = "undecided" | "session" | "modern";

export class Session {
  readonly role: Role;
  /** The session-era versions we speak (initialize negotiates among these). */
  readonly versions: readonly SessionVersion[];
  /** The modern versions we speak (2026-07-28). */
  readonly modernVersions: readonly ModernVersion[];
  /** The version tables used before negotiation. */
  readonly defaultVersion: ProtocolVersion;
  readonly strict: boolean;
  readonly info: Implementation;
  readonly capabilities: JsonObject;
  readonly instructions: string | undefined;
  readonly ownCaps: number;
  /** The host's methods beyond the spec (custom methods, lib/rules/custom-methods.ts). */
  readonly extensionMethods: ExtensionMethodTable;
  readonly output: Output = new Output();
  /** Modern client: the logging level asked for in every request's `_meta`. */
  private readonly logLevel: string | undefined;

  state: LifecycleState = "awaiting-init";
  /** The gating phase of `state`, kept beside it because every message reads it. */
  phaseBit: PhaseBit = Phase.AwaitingInit;
  era: Era;
  version: ProtocolVersion | undefined;
  /**
   * The negotiated version when it is a session-era one (the feature rules are session-era):
   * set with `version` by negotiate() and enterModern(), read several times per message.
   */
  sessionVersion: SessionVersion | undefined;
  profile: VersionProfile | undefined;
  table: MethodTable;
  /** A modern client's per-request envelope (MOD-01), built once. */
  modernEnvelope: JsonObject | undefined;
  peerCaps: number = ALL_CAPS;
  peerCapabilitiesObject: JsonObject | undefined;
  peerInfoObject: JsonObject | undefined;
  peerInstructions: string | undefined;
  outboundGate!: GateContext;
  inboundGate!: GateContext;

  constructor(options: EngineOptions) {
    if (options.role !== "client" && options.role !== "server") {
      throw new RangeError(`role must be "client" or "server"; got ${describeValue(options.role)}`);
    }
    this.role = options.role;
    const versions = options.versions ?? SESSION_VERSIONS;
    if (versions.length === 0) throw new RangeError("versions must name at least one protocol version");
    for (const v of versions)
      if (!isProtocolVersion(v))
        throw new RangeError(
          `unsupported protocol version ${describeValue(v)}; expected one of ${Object.keys(VERSION_PROFILES).join(", ")}`,
        );
    this.versions = versions.filter(isSessionVersion);
    this.modernVersions = versions.filter((v): v is ModernVersion => VERSION_PROFILES[v].era === "modern");
    this.defaultVersion = this.versions.length > 0 ? newestVersion(this.versions) : newestVersion(this.modernVersions);
    this.era = this.modernVersions.length === 0 ? "session" : this.versions.length === 0 && this.role === "server" ? "modern" : "undecided";
    this.strict = options.strict ?? false;
    this.info = options.info;
    this.capabilities = (options.capabilities ?? {}) as JsonObject;
    this.instructions = options.instructions;
    this.logLevel = options.logLevel;
    this.ownCaps = capabilityMask(this.capabilities);
    this.extensionMethods = extensionMethodTable(options.extensionMethods);
    this.table = methodTable(this.defaultVersion);
    this.refreshGates();
  }

  get phase(): PhaseName {
    return PHASE_NAMES[this.phaseBit];
  }

  get closed(): boolean {
    return this.phaseBit === Phase.Closed;
  }

  /** Every version we speak, modern first, then session-era newest first (as discover and -32022 list them). */
  get supportedVersions(): string[] {
    return [...this.modernVersions, ...[...this.versions].sort((a, b) => VERSION_PROFILES[b].index - VERSION_PROFILES[a].index)];
  }

  /** The session era agreed on `version` with a peer that declared `peerCapabilities`. */
  negotiate(version: SessionVersion, peerCapabilities: JsonObject, peerInfo: JsonObject, instructions: string | undefined): void {
    this.era = "session";
    this.version = version;
    this.sessionVersion = version;
    this.profile = VERSION_PROFILES[version];
    this.output.profile = this.profile;
    this.table = methodTable(version);
    this.peerCapabilitiesObject = peerCapabilities;
    this.peerInfoObject = peerInfo;
    this.peerInstructions = instructions;
    this.peerCaps = capabilityMask(peerCapabilities);
    this.refreshGates();
  }

  /** The negotiated session as JSON (EngineSnapshot); throws before negotiation and after close (L-01). */
  snapshot(nextId: number, features: { loggingLevel: string | undefined; subscriptions: string[] }): EngineSnapshot {
    const version = this.sessionVersion;
    if (version === undefined || this.peerInfoObject === undefined || this.peerCapabilitiesObject === undefined || this.closed) {
      throw new LocalProtocolError({ rule: "L-01", expected: "a negotiated, open session", got: `phase ${this.phase}` });
    }
    return {
      format: 1,
      role: this.role,
      version,
      phase: this.phaseBit === Phase.Operating ? "operating" : "initializing",
      peerInfo: this.peerInfoObject,
      peerCapabilities: this.peerCapabilitiesObject,
      peerInstructions: this.peerInstructions,
      nextId,
      loggingLevel: features.loggingLevel,
      subscriptions: features.subscriptions,
    };
  }

  /** Carries on the session a snapshot describes (its format and role already checked). */
  restore(snapshot: EngineSnapshot): void {
    if (!this.versions.includes(snapshot.version))
      throw new RangeError(`snapshot version ${snapshot.version} is not among ${this.versions.join(", ")}`);
    this.negotiate(snapshot.version, snapshot.peerCapabilities, snapshot.peerInfo, snapshot.peerInstructions);
    this.enter(snapshot.phase === "operating" ? "operating" : "initializing");
  }

  /** What a modern client learnt from server/discover. */
  learnServer(capabilities: JsonObject, serverInfo: JsonObject, instructions: string | undefined): void {
    this.peerCapabilitiesObject = capabilities;
    this.peerInfoObject = serverInfo;
    this.peerInstructions = instructions;
    this.peerCaps = capabilityMask(capabilities);
    this.refreshGates();
  }

  enterModern(version: ModernVersion): void {
    this.era = "modern";
    this.version = version;
    this.sessionVersion = undefined;
    this.profile = VERSION_PROFILES[version];
    this.output.profile = this.profile;
    this.table = methodTable(version);
    if (this.role === "client") {
      this.modernEnvelope = requestEnvelope(version, this.capabilities, this.info as unknown as JsonObject, this.logLevel);
      // MOD-21: a 2026-07-28 client writes no responses, not even errors for malformed input.
      this.output.writesResponses = false;
    }
    this.move("modern-chosen");
  }

  /** The lifecycle table's refusal of `event` in the current state, if it has no such move. */
  lifecycleRefusal(event: LifecycleEvent): LifecycleRefusal | undefined {
    const next = nextState(this.role, this.state, event);
    return typeof next === "string" ? undefined : next;
  }

  /** Throws the lifecycle's refusal of a command. */
  refuseUnless(event: LifecycleEvent, method: string): void {
    const refusal = this.lifecycleRefusal(event);
    if (refusal !== undefined) throw new LocalProtocolError({ ...refusal, method, phase: this.phase });
  }

  /** Takes a move the table has (the callers checked it, or the gate admitted the message that causes it). */
  move(event: LifecycleEvent): void {
    const next = nextState(this.role, this.state, event);
    if (typeof next !== "string") throw new LocalProtocolError({ ...next, phase: this.phase });
    this.enter(next);
  }

  enter(state: LifecycleState): void {
    this.state = state;
    this.phaseBit = phaseOf(state);
    this.refreshGates();
  }

  assertOpen(method: string): void {
    if (this.phaseBit === Phase.Closed)
      throw new LocalProtocolError({ rule: "S-01", expected: "an open session", got: "closed", method, phase: "closed" });
  }

  /** Our host may send `method` now (M-03, and the one gate); throws otherwise. */
  assertAllowed(method: string, kind: "request" | "notification", params: JsonObject | undefined): void {
    if (params !== undefined && !isJsonObject(params))
      throw new LocalProtocolError({ rule: "M-03", expected: "params absent or an object", got: describeValue(params), method });
    const refusal = gate(this.outboundGate, true, method, kind, params);
    if (refusal !== undefined)
      throw new LocalProtocolError({
        rule: refusal.rule,
        expected: refusal.expected,
        got: refusal.got,
        code: refusal.code,
        method,
        phase: this.phase,
      });
  }

  /** The first problem of a message's params against its method's schema in the session's version (before it: our newest). */
  paramsProblem(method: string, params: JsonObject | undefined): Issue | undefined {
    const version = this.sessionVersion ?? (this.versions.length > 0 ? newestVersion(this.versions) : undefined);
    const check = version === undefined ? undefined : paramsCheck(version, method);
    return check === undefined ? undefined : validate(check, params, "params");
  }

  private refreshGates(): void {
    const peer: Role = this.role === "client" ? "server" : "client";
    const version: ProtocolVersion = this.version ?? this.defaultVersion;
    const extensions = this.extensionGate();
    this.outboundGate = {
      table: this.table,
      version,
      sender: this.role,
      phase: this.phaseBit,
      senderCaps: this.ownCaps,
      receiverCaps: this.peerCaps,
      strict: true,
      extensions,
    };
    this.inboundGate = {
      table: this.table,
      version,
      sender: peer,
      phase: this.phaseBit,
      senderCaps: this.peerCaps,
      receiverCaps: this.ownCaps,
      strict: this.strict,
      extensions,
    };
  }

  /** Who declared which extension, read the way the era reads it (lib/rules/custom-methods.ts); undefined without extension methods. */
  private extensionGate(): ExtensionGate | undefined {
    if (this.extensionMethods.size === 0) return undefined;
    const era = this.era === "modern" ? "modern" : "session";
    // A 2026-07-28 server learns a client's extensions from each request, never once for all.
    const peer = this.role === "server" && this.era === "modern" ? undefined : declaredExtensions(this.peerCapabilitiesObject, era);
    return { methods: this.extensionMethods, own: declaredExtensions(this.capabilities, era), peer };
  }
}
