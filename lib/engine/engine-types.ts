// The Engine's public option, limit, snapshot and outbound types, and the typed command
// signatures (method maps by role). Types only, plus the documented default limits and how
// given limits are checked against them; the Engine (lib/engine/engine.ts) re-exports all of it.

import type { JsonRpcMessage, JsonObject, RequestId } from "../wire/envelope.js";
import { DEFAULT_FEATURE_LIMITS, type FeatureLimits } from "../rules/features.js";
import { DEFAULT_CLIENT_MAX_LINE_BYTES, DEFAULT_MAX_LINE_BYTES } from "../wire/framing.js";
import type { Role } from "../rules/methods.js";
import type { ExtensionMethod } from "../rules/custom-methods.js";
import type {
  ClientCapabilities,
  ClientNotifications,
  ClientRequests,
  Implementation,
  ServerCapabilities,
  ServerNotifications,
  ServerRequests,
} from "../types/index.js";
import type { ProtocolVersion, SessionVersion } from "../rules/versions.js";
import type { ProgressToken } from "../types/base.js";

/** Picks the client or the server variant of a type by role; both for an undecided role. */
export type ByRole<R extends Role, C, S> = [R] extends ["client"] ? C : [R] extends ["server"] ? S : C | S;

export type CapabilitiesOf<R extends Role> = ByRole<R, ClientCapabilities, ServerCapabilities>;
/** Requests a side with role R sends. */
export type OutgoingRequests<R extends Role> = ByRole<R, ClientRequests, ServerRequests>;
/** Notifications a side with role R sends. */
export type OutgoingNotifications<R extends Role> = ByRole<R, ClientNotifications, ServerNotifications>;

/** The params type of method M in a method map; any object for a method the map does not know. */
export type ParamsFor<Map, M extends string> = M extends keyof Map ? (Map[M] extends { params: infer P } ? P : never) : object | undefined;

/** Arguments after the method name: params required when the method requires them. */
export type ArgsFor<Map, M extends string, O> =
  undefined extends ParamsFor<Map, M> ? [params?: ParamsFor<Map, M>, options?: O] : [params: ParamsFor<Map, M>, options?: O];

/** Every table that grows with what a peer sends has one of these bounds (ENG-08; the LIM entries of RULES.md). */
export interface EngineLimits extends FeatureLimits {
  /** LIM-01: longest accepted input line, in bytes. Default 8 MiB for a server, 32 MiB for a client (results such as resources/read of a large blob are big). */
  maxLineBytes: number;
  /** LIM-03: our requests awaiting an answer. Default 1024; request() throws past it. */
  maxPendingOutbound: number;
  /** LIM-02: peer requests awaiting our answer. Default 1024; more are answered -32603 at once. */
  maxPendingInbound: number;
  /** LIM-08: entries in one inbound batch (2025-03-26). Default 1024; a longer batch is refused whole. */
  maxBatchLength: number;
}

export const DEFAULT_LIMITS: Readonly<EngineLimits> = {
  ...DEFAULT_FEATURE_LIMITS,
  maxLineBytes: DEFAULT_MAX_LINE_BYTES,
  maxPendingOutbound: 1024,
  maxPendingInbound: 1024,
  maxBatchLength: 1024,
};

/** The limits an engine of `role` runs with: the defaults (a client reads longer lines) under the given ones, each a positive integer, else a RangeError. */
export function resolveLimits(role: Role, given: Partial<EngineLimits> | undefined): EngineLimits {
  const limits: EngineLimits = {
    ...DEFAULT_LIMITS,
    maxLineBytes: role === "client" ? DEFAULT_CLIENT_MAX_LINE_BYTES : DEFAULT_MAX_LINE_BYTES,
    ...given,
  };
  for (const name of Object.keys(DEFAULT_LIMITS) as Array<keyof EngineLimits>) {
    const value = limits[name];
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`limits.${name} must be a positive integer; got ${String(value)}`);
  }
  return limits;
}

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
  /**
   * Methods beyond the spec that we speak, each under an extension (custom methods, lib/rules/custom-methods.ts):
   * they pass the gate only once both sides declared the extension (our `capabilities` must
   * name it under `extensions`). A name the spec has, or a malformed extension id, throws a RangeError.
   */
  extensionMethods?: readonly ExtensionMethod[];
  /** Our first request id (default 0). A client that falls back from one engine to another starts after the ids the first one used, so a late answer can never match a new request. */
  firstRequestId?: number;
  /** Modern client: the logging level asked for in every request's `_meta` (2026-07-28). */
  logLevel?: string;
  /** Modern server: put serverInfo in every result's `_meta` (MOD-05). Default true. */
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
  /** Flip the SHOULD-level lenient cells of the phase table (ENG-03). Default false. */
  strict?: boolean;
  /** Server: answer initialize without asking the host. Default true. */
  autoInitialize?: boolean;
  /** Validate the results of every request we send, not only those the engine interprets (tasks/*). Default false. */
  validateResults?: boolean;
  limits?: Partial<EngineLimits>;
}

/** T-03: the deadlines of one request, set per request. */
export interface RequestOptions {
  /** Inactivity deadline (absolute). Progress may push it back (see resetOnProgressMs). */
  deadline?: number;
  /** Hard deadline (absolute) that never moves: T-04's overall maximum. */
  totalDeadline?: number;
  /** T-04: when progress arrives with a `now`, the inactivity deadline becomes now + this. */
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
