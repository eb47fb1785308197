// The types a Client is built from and answers with: its options, the per-call options
// (timeouts, progress, signal), the context of a server request's handler, and what connect()
// resolves with. Re-exported from client.ts (the public names stay there); no logic here.

import type { EngineLimits } from "../../engine/engine.js";
import type { RequestId } from "../../wire/envelope.js";
import type { EngineEvent } from "../../engine/events.js";
import type { ClientCapabilities, ClientRequests, Implementation, LoggingLevel, ServerCapabilities } from "../../types/index.js";
import type { ProtocolVersion } from "../../rules/versions.js";
import type { ExtensionRequests, Extensions } from "../shared/custom-methods.js";
import type { PlatformAbortSignal } from "../shared/signal.js";

/** A method name request() takes untyped: any string but the names of the spec's and the augmented extension requests (those take their own params). */
export type UntypedMethod<M extends string> = M extends keyof ClientRequests | keyof ExtensionRequests ? never : M;

export interface ServerRequestContext {
  readonly requestId: RequestId;
  /** Aborted when the server cancels the request. The runtime's own AbortSignal: hand it to fetch, streams, timers. */
  readonly signal: PlatformAbortSignal;
}

export type ServerRequestHandler<P, Res> = (params: P, context: ServerRequestContext) => Res | Promise<Res>;

export interface ClientOptions {
  info: Implementation;
  capabilities?: ClientCapabilities;
  /** Versions we speak; include 2026-07-28 to speak the modern revision too. */
  versions?: readonly ProtocolVersion[];
  /**
   * How connect() starts: "session" (initialize), "modern" (server/discover, 2026-07-28), or
   * "auto": the modern probe first, falling back to initialize on any answer that is not a
   * modern result, or on a timeout (never keyed on one error code, MOD-24). Default "auto"
   * when 2026-07-28 is among the versions, else "session".
   */
  era?: "auto" | "session" | "modern";
  /** "auto": how long each server/discover probe (the first, and a retry after -32022) may take before falling back. Default 5000. */
  probeTimeoutMs?: number;
  /** Modern: the logging level asked for in every request's `_meta`. */
  logLevel?: LoggingLevel;
  /** Modern: the most input_required rounds one request may take before it fails. Default 10. */
  maxInputRounds?: number;
  /** Modern: the most input requests one input_required result may carry; more fail the call (InvalidResultError). Default 32. */
  maxInputRequests?: number;
  /** The deepest params, results of our handlers and error data we send. Default 256 (see json-safe.ts). */
  maxJsonDepth?: number;
  /**
   * Handlers of server requests running at once; more wait their turn in order (bounded by
   * limits.maxPendingInbound). A handler that ignores its signal keeps its slot. Default 100.
   */
  maxConcurrentHandlers?: number;
  /** listTools/listResources/listResourceTemplates/listPrompts: the most items gathered over all pages; more fail the call. Default 100000. */
  maxListItems?: number;
  strict?: boolean;
  limits?: Partial<EngineLimits>;
  /** Validate every result against its method's schema. Default false. */
  validateResults?: boolean;
  /** Inactivity timeout for requests without timeoutMs. Default 60000. */
  defaultTimeoutMs?: number;
  /**
   * Extensions we speak (RULES.md MT-03): declared under `capabilities.extensions`, and their
   * methods callable with request()/notify() and heard with onNotification() once the server
   * declared the same extension. Type them by augmenting ExtensionRequests and ExtensionNotifications.
   */
  extensions?: Extensions;
  /** Violations and diagnostics reported by the engine (default: ignored). */
  onDiagnostic?: (event: Extract<EngineEvent, { kind: "violation" | "diagnostic" }>) => void;
  /** The connection closed (EOF, close(), or a fatal protocol failure). */
  onClose?: (event: Extract<EngineEvent, { kind: "closed" }>) => void;
}

export interface ConnectResult {
  /** "session": initialize was used; "modern": 2026-07-28 (server/discover). */
  era: "session" | "modern";
  version: ProtocolVersion;
  serverInfo: Implementation;
  capabilities: ServerCapabilities;
  instructions: string | undefined;
}
