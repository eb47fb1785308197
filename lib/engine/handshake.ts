// The session-era handshake (RULES.md L-01, L-02, L-03, L-06, V-01, V-02, V-03, V-04): the
// server's answer to initialize (at once, or after its host accepts it with autoInitialize
// false), and the client's reading of the initialize result. Which initialize is legal when is
// the lifecycle table's call (lib/rules/lifecycle.ts); what a valid one looks like is
// lib/rules/params.ts's (initialize passes gate() and params validation like every request
// before it gets here).

import type { ErrorObject, JsonObject, RequestId } from "../wire/envelope.js";
import { describeValue, ErrorCode, LocalProtocolError } from "../wire/errors.js";
import type { ClosedEvent } from "./events.js";
import type { InboundRequests } from "./inbound-requests.js";
import { resultCheck } from "../rules/params.js";
import { validate } from "../rules/schema.js";
import type { Session } from "./session.js";
import { newestVersion, type SessionVersion } from "../rules/versions.js";

export type Shutdown = (reason: ClosedEvent["reason"], rule: string | undefined, detail: string) => void;

export class Handshake {
  /** Server with autoInitialize false: the initialize our host has yet to accept or refuse. */
  private awaitingHost: { readonly id: RequestId; readonly params: JsonObject; readonly version: SessionVersion } | undefined;
  /** Client: the id of our initialize. */
  initializeId: number | undefined;

  constructor(
    private readonly s: Session,
    private readonly inRequests: InboundRequests,
    private readonly autoInitialize: boolean,
    private readonly shutdown: Shutdown,
  ) {}

  // ── server ────────────────────────────────────────────────────────────────────

  /** A valid initialize outside any batch: refused by the lifecycle, answered, or handed to the host. */
  onInitialize(id: RequestId, params: JsonObject): void {
    const { s } = this;
    const refusal = s.lifecycleRefusal("initialize-received");
    if (refusal !== undefined) {
      s.output.refuse(id, "initialize", undefined, {
        code: ErrorCode.InvalidRequest,
        rule: refusal.rule,
        expected: "a single initialize",
        got: `initialize in phase ${s.phase}`,
      });
      return;
    }
    const requested = params.protocolVersion;
    // V-02/V-03: the same version if we speak it, otherwise our newest, always as a normal result.
    const version = (s.versions as readonly unknown[]).includes(requested) ? (requested as SessionVersion) : newestVersion(s.versions);
    s.move("initialize-received");
    if (this.autoInitialize) {
      this.answer(id, params, version);
      return;
    }
    this.awaitingHost = { id, params, version };
    this.inRequests.add(id, "initialize", params, undefined, undefined, undefined);
    s.output.events.push({ kind: "initialize-request", id, params, version });
  }

  /** The host accepts the initialize it was asked about. */
  accept(): void {
    const pending = this.awaitingHost;
    if (pending === undefined)
      throw new LocalProtocolError({
        rule: "L-01",
        expected: "an initialize request awaiting acceptance",
        got: "none",
        method: "initialize",
      });
    this.awaitingHost = undefined;
    this.inRequests.delete(pending.id);
    this.answer(pending.id, pending.params, pending.version);
  }

  /** respond() may not answer an initialize that awaits acceptInitialize() (L-03). */
  refuseRespond(id: RequestId): void {
    if (this.awaitingHost?.id === id)
      throw new LocalProtocolError({
        rule: "L-03",
        expected: "acceptInitialize() or respondError() for initialize",
        got: "respond()",
        method: "initialize",
      });
  }

  /** respondError() on the initialize awaiting acceptance refuses it: the client may try again. */
  refused(id: RequestId): void {
    if (this.awaitingHost?.id !== id) return;
    this.awaitingHost = undefined;
    this.s.move("initialize-refused");
  }

  private answer(id: RequestId, params: JsonObject, version: SessionVersion): void {
    const { s } = this;
    const result: JsonObject = { protocolVersion: version, capabilities: s.capabilities, serverInfo: s.info as unknown as JsonObject };
    if (s.instructions !== undefined) result.instructions = s.instructions;
    s.output.reply({ jsonrpc: "2.0", id, result }, undefined, id);
    s.negotiate(version, params.capabilities as JsonObject, params.clientInfo as JsonObject, undefined);
    s.move("initialize-result-sent");
    s.output.events.push({
      kind: "negotiated",
      version,
      peerInfo: params.clientInfo as JsonObject,
      peerCapabilities: params.capabilities as JsonObject,
      instructions: undefined,
    });
  }

  // ── client ────────────────────────────────────────────────────────────────────

  /** The params of our initialize: our newest session-era version (V-01), capabilities and info. Throws when initialize is not ours to send now. */
  initializeParams(): JsonObject {
    const { s } = this;
    if (s.role !== "client")
      throw new LocalProtocolError({
        rule: "L-02",
        expected: "initialize sent by the client",
        got: "the server role",
        method: "initialize",
      });
    if (s.era === "modern" || s.versions.length === 0) {
      throw new LocalProtocolError({
        rule: "L-01",
        expected: "initialize with a session-era version configured, before any modern request",
        got: `era ${s.era}`,
        method: "initialize",
        phase: s.phase,
      });
    }
    s.refuseUnless("initialize-sent", "initialize");
    return { protocolVersion: newestVersion(s.versions), capabilities: s.capabilities, clientInfo: s.info as unknown as JsonObject };
  }

  /** The initialize result (L-03, checked against its schema; V-04 a version we speak), or the end of the session. */
  onResult(id: number, result: JsonObject | undefined, error: ErrorObject | undefined): void {
    const { s } = this;
    if (error !== undefined) {
      s.output.events.push({ kind: "error-response", id, method: "initialize", error });
      this.shutdown("fatal", "L-03", `initialize failed: ${error.code} ${error.message}`);
      return;
    }
    const r = result as JsonObject;
    const check = resultCheck(newestVersion(s.versions), "initialize");
    const problem = check === undefined ? undefined : validate(check, r, "result");
    if (problem !== undefined) {
      s.output.violation("L-03", problem.expected, `${problem.path}: ${problem.got}`, undefined, id, "initialize");
      this.shutdown("fatal", "L-03", `malformed initialize result at ${problem.path}`);
      return;
    }
    const version = r.protocolVersion;
    if (!(s.versions as readonly unknown[]).includes(version)) {
      s.output.violation("V-04", `a protocol version among ${s.versions.join(", ")}`, describeValue(version), undefined, id, "initialize");
      this.shutdown("fatal", "V-04", `server answered unsupported protocol version ${describeValue(version)}`);
      return;
    }
    const instructions = typeof r.instructions === "string" ? r.instructions : undefined;
    s.negotiate(version as SessionVersion, r.capabilities as JsonObject, r.serverInfo as JsonObject, instructions);
    s.output.events.push({
      kind: "negotiated",
      version: version as SessionVersion,
      peerInfo: r.serverInfo as JsonObject,
      peerCapabilities: r.capabilities as JsonObject,
      instructions,
    });
    s.output.queue({ jsonrpc: "2.0", method: "notifications/initialized" }, undefined); // L-06
    s.move("initialize-result-received");
    s.output.events.push({ kind: "ready" });
  }

  clear(): void {
    this.awaitingHost = undefined;
  }
}
