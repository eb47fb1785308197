// A server's 2026-07-28 requests inside the engine: every request read with its own envelope
// (RULES.md MOD-01, MOD-06), server/discover (MOD-07, MOD-08) and the subscriptions/listen
// acknowledgement (MOD-12, MOD-14) answered here, results checked and decorated (MOD-10,
// MOD-11, MOD-05, MOD-16, MOD-15; a CreateTaskResult or DetailedTask of the tasks extension,
// TX-03, TX-04, TX-05), methods of an extension refused unless declared (TX-02, MT-05), log
// messages sent only to the request that asked for them at that level (MOD-03, MOD-13), change
// notifications fanned out to the listen streams that opted in (MOD-14, TX-10), and a session-era
// initialize refused (MOD-22). The pure rules live in lib/rules/modern.ts; this file holds the
// one piece of state the era has: the open listen streams.

import type { JsonObject, RequestId } from "../wire/envelope.js";
import { isJsonObject } from "../wire/envelope.js";
import { describeValue, ErrorCode, LocalProtocolError } from "../wire/errors.js";
import { logAllowed } from "../rules/features.js";
import type { InboundRequests, PendingIn } from "./inbound-requests.js";
import { createTaskResultProblem, detailedTaskProblem, extensionRefusal, listenTaskIds } from "../rules/negotiated-extensions.js";
import { gate, methodTraits, type GateRefusal } from "../rules/methods.js";
import { requestExtensionRefusal, type ExtensionMethodTable } from "../rules/custom-methods.js";
import {
  META_SUBSCRIPTION_ID,
  acceptedFilter,
  decorateResult,
  discoverResult,
  filterWants,
  hasModernEnvelope,
  inputRequiredProblem,
  readRequestEnvelope,
  withCacheFields,
  type ModernRequestInfo,
  type SubscriptionFilter,
} from "../rules/modern.js";
import type { BatchGroup, Output } from "./output.js";
import type { ModernVersion } from "../rules/versions.js";
import { progressTokenOf } from "../rules/progress.js";
import type { Session } from "./session.js";
import type { EngineOptions } from "./engine-types.js";

export interface ModernServerConfig {
  readonly output: Output;
  readonly inbound: InboundRequests;
  readonly modernVersions: readonly string[];
  /** Every version we speak, newest first, as discover lists them. */
  readonly supportedVersions: () => readonly string[];
  readonly capabilities: JsonObject;
  readonly ownCaps: number;
  readonly serverInfo: JsonObject;
  readonly instructions: string | undefined;
  readonly discoverAnyVersion: boolean;
  readonly serverInfoInResults: boolean;
  readonly maxPendingInbound: number;
  /** The host's methods beyond the spec (lib/rules/custom-methods.ts). */
  readonly extensionMethods: ExtensionMethodTable;
  /** The engine's inbound gate for this era. */
  readonly gate: (method: string, params: JsonObject | undefined) => GateRefusal | undefined;
}

export class ModernServer {
  /** Open subscriptions/listen requests, by request id. */
  private readonly listens = new Map<RequestId, SubscriptionFilter>();

  constructor(private readonly config: ModernServerConfig) {}

  /** A request of a connection (or HTTP request) in the 2026-07-28 era. */
  onRequest(id: RequestId, method: string, params: JsonObject | undefined, group: BatchGroup | undefined): void {
    const { output, inbound } = this.config;
    if (method === "initialize" && !hasModernEnvelope(params)) {
      // MOD-22: a session-era initialize where only 2026-07-28 is on offer: name the versions spoken, so a legacy client can tell why.
      // (An initialize carrying the 2026-07-28 envelope is just a removed method: -32601 through the gate below.)
      const requested = params?.protocolVersion;
      output.replyError(id, ErrorCode.UnsupportedProtocolVersion, "Unsupported protocol version", group, {
        supported: [...this.config.modernVersions],
        requested: typeof requested === "string" ? requested : null,
      });
      output.violation(
        "MOD-22",
        "a request with the 2026-07-28 envelope (no session era on this connection)",
        "initialize",
        ErrorCode.UnsupportedProtocolVersion,
        id,
        method,
      );
      return;
    }
    if (method === "server/discover") {
      this.answerDiscover(id, params, group);
      return;
    }
    const info = this.envelopeOf(id, method, params, group, false);
    if (info === undefined) return;
    const refusal = this.config.gate(method, params);
    if (refusal !== undefined && refusal.code !== undefined) {
      output.refuse(id, method, group, { code: refusal.code, rule: refusal.rule, expected: refusal.expected, got: refusal.got });
      return;
    }
    // TX-02, MT-05: methods of an extension (the table's extension column, or the host's custom methods) are offered by us and
    // declared by this very request, before the host sees it.
    const missing =
      extensionRefusal(info.version as ModernVersion, method, info.clientCapabilities, this.config.capabilities) ??
      requestExtensionRefusal(this.config.extensionMethods, method, info.clientCapabilities);
    if (missing !== undefined) {
      output.replyError(id, missing.code, missing.message, group, missing.data);
      output.violation(missing.rule, missing.expected, missing.got, missing.code, id, method);
      return;
    }
    let filter: SubscriptionFilter | undefined;
    if (method === "subscriptions/listen") {
      filter = acceptedFilter(params?.notifications, this.config.ownCaps);
      if (filter === undefined) {
        output.replyError(id, ErrorCode.InvalidParams, "Invalid params", group, {
          path: "params.notifications",
          expected: "a SubscriptionFilter",
        });
        output.violation(
          "MOD-12",
          "params.notifications: a SubscriptionFilter",
          describeValue(params?.notifications),
          ErrorCode.InvalidParams,
          id,
          method,
        );
        return;
      }
      const tasks = listenTaskIds(params?.notifications, this.config.capabilities, info.clientCapabilities);
      if (!tasks.ok) {
        output.replyError(id, tasks.refusal.code, tasks.refusal.message, group, tasks.refusal.data);
        output.violation(tasks.refusal.rule, tasks.refusal.expected, tasks.refusal.got, tasks.refusal.code, id, method);
        return;
      }
      if (tasks.taskIds !== undefined) filter.taskIds = tasks.taskIds;
    }
    if (inbound.size >= this.config.maxPendingInbound) {
      output.refuse(id, method, group, {
        code: ErrorCode.InternalError,
        rule: "LIM-02",
        expected: `at most ${this.config.maxPendingInbound} requests in flight`,
        got: "one more",
      });
      return;
    }
    const token = progressTokenOf(params);
    inbound.add(id, method, params, info, token, group);
    if (filter !== undefined) {
      // MOD-14: the acknowledgement is the first message of the subscription, with the subset we honour.
      this.listens.set(id, filter);
      output.queue(
        {
          jsonrpc: "2.0",
          method: "notifications/subscriptions/acknowledged",
          params: { notifications: filter as JsonObject, _meta: { [META_SUBSCRIPTION_ID]: id } },
        },
        id,
      );
      return;
    }
    output.events.push({ kind: "request", id, method, params, progressToken: token, modern: info });
  }

  /** server/discover (MOD-08), answered in any phase; by default whatever version it names, so that a client learns what is on offer. */
  answerDiscover(id: RequestId, params: JsonObject | undefined, group: BatchGroup | undefined): void {
    if (this.envelopeOf(id, "server/discover", params, group, this.config.discoverAnyVersion) === undefined) return;
    const { capabilities, serverInfo, instructions } = this.config;
    const result = discoverResult({ supportedVersions: this.config.supportedVersions(), capabilities, serverInfo, instructions });
    this.config.output.reply({ jsonrpc: "2.0", id, result }, group, id);
  }

  /** Our result for a modern request: input_required checked (MOD-10), cache fields, the listen's id, resultType and serverInfo added. */
  result(pending: PendingIn, info: ModernRequestInfo, result: JsonObject): JsonObject {
    const traits = methodTraits(pending.method);
    if (result.resultType === "input_required") {
      const problem = inputRequiredProblem(pending.method, result, info);
      if (problem !== undefined) {
        throw new LocalProtocolError({
          rule: problem.rule,
          expected: problem.expected,
          got: problem.got,
          code: problem.missing !== undefined ? ErrorCode.MissingRequiredClientCapability : undefined,
          method: pending.method,
        });
      }
    } else if (result.resultType === "task") {
      // TX-03, TX-04: a flat CreateTaskResult, only where tasks are allowed and only to a request that declared the extension.
      const problem = createTaskResultProblem(pending.method, result, info.clientCapabilities);
      if (problem !== undefined)
        throw new LocalProtocolError({ rule: problem.rule, expected: problem.expected, got: problem.got, method: pending.method });
    } else if (traits?.cacheable === true) {
      result = withCacheFields(result); // MOD-16
    } else if (pending.method === "tasks/get") {
      const problem = detailedTaskProblem(result); // TX-05
      if (problem !== undefined)
        throw new LocalProtocolError({ rule: problem.rule, expected: problem.expected, got: problem.got, method: pending.method });
    }
    if (pending.method === "subscriptions/listen") {
      // MOD-15: the result that ends a listen names its subscription.
      const meta = isJsonObject(result._meta) ? result._meta : undefined;
      if (meta?.[META_SUBSCRIPTION_ID] === undefined) result = { ...result, _meta: { ...meta, [META_SUBSCRIPTION_ID]: pending.id } };
    }
    return decorateResult(result, this.config.serverInfoInResults ? this.config.serverInfo : undefined); // MOD-11, MOD-05
  }

  /** A listen stream ended (answered or cancelled). */
  forget(id: RequestId): void {
    this.listens.delete(id);
  }

  /** Log messages go with the request that asked for them (MOD-01); change notifications to the listens that opted in (MOD-14). False when nobody gets it. */
  notify(method: string, params: JsonObject | undefined, related: RequestId | undefined): boolean {
    const { output, inbound } = this.config;
    if (method === "notifications/message") {
      const pending = related === undefined ? undefined : inbound.get(related);
      if (pending === undefined)
        throw new LocalProtocolError({
          rule: "MOD-03",
          expected: "a log message related to a request in flight (its _meta logLevel decides)",
          got: related === undefined ? "no relatedRequestId" : `request ${describeValue(related)} not in flight`,
          method,
        });
      if (pending.method === "subscriptions/listen")
        throw new LocalProtocolError({
          rule: "MOD-13",
          expected: "log messages only for requests other than subscriptions/listen",
          got: "a listen stream",
          method,
        });
      if (!logAllowed(params?.level, pending.modern?.logLevel, "modern")) return false;
      output.queue({ jsonrpc: "2.0", method, params }, related);
      return true;
    }
    const custom = this.config.extensionMethods.get(method);
    if (custom !== undefined) {
      // MT-05: an extension's notification goes with a request in flight whose own clientCapabilities declared the extension.
      const pending = related === undefined ? undefined : inbound.get(related);
      if (
        pending === undefined ||
        requestExtensionRefusal(this.config.extensionMethods, method, pending.modern?.clientCapabilities) !== undefined
      ) {
        throw new LocalProtocolError({
          rule: "MT-05",
          expected: `${method} related to a request in flight that declared ${custom.extension}`,
          got:
            pending === undefined
              ? related === undefined
                ? "no relatedRequestId"
                : `request ${describeValue(related)} not in flight`
              : "a request that did not declare it",
          method,
        });
      }
      output.queue({ jsonrpc: "2.0", method, params }, related);
      return true;
    }
    // MOD-14, TX-10: a change notification goes to each listen stream whose filter wants it, naming that stream.
    let sent = false;
    for (const [id, filter] of this.listens) {
      if (!filterWants(filter, method, params)) continue;
      const meta = params !== undefined && isJsonObject(params._meta) ? params._meta : undefined;
      output.queue({ jsonrpc: "2.0", method, params: { ...params, _meta: { ...meta, [META_SUBSCRIPTION_ID]: id } } }, id);
      sent = true;
    }
    return sent;
  }

  /** Ends every open listen stream with its final result (MOD-15), e.g. when the host shuts down. */
  endAll(): void {
    for (const id of [...this.listens.keys()]) {
      this.listens.delete(id);
      const pending = this.config.inbound.take(id);
      if (pending !== undefined)
        this.config.output.reply(
          { jsonrpc: "2.0", id, result: { resultType: "complete", _meta: { [META_SUBSCRIPTION_ID]: id } } },
          undefined,
          id,
        );
    }
  }

  /** The request's envelope (MOD-01, MOD-07), or undefined once its refusal is queued. */
  private envelopeOf(
    id: RequestId,
    method: string,
    params: JsonObject | undefined,
    group: BatchGroup | undefined,
    anyVersion: boolean,
  ): ModernRequestInfo | undefined {
    const info = readRequestEnvelope(params, this.config.modernVersions, anyVersion, this.config.supportedVersions());
    if (!("code" in info)) return info;
    this.config.output.replyError(id, info.code, info.message, group, info.data);
    this.config.output.violation(info.rule, info.expected, info.got, info.code, id, method);
    return undefined;
  }
}

/** 2026-07-28 has no core `tasks` capability (its tasks are the extension's, TX-01): a dual-era server's is left out of server/discover. */
function modernCapabilities(capabilities: JsonObject): JsonObject {
  if (capabilities.tasks === undefined) return capabilities;
  const { tasks: _tasks, ...rest } = capabilities;
  return rest;
}

/** The 2026-07-28 side of a server engine, or undefined when it speaks no modern version. */
export function modernServerFor(
  s: Session,
  inbound: InboundRequests,
  maxPendingInbound: number,
  options: Pick<EngineOptions, "discoverAnyVersion" | "serverInfoInResults">,
): ModernServer | undefined {
  if (s.modernVersions.length === 0) return undefined;
  return new ModernServer({
    output: s.output,
    inbound,
    modernVersions: s.modernVersions,
    supportedVersions: () => s.supportedVersions,
    capabilities: modernCapabilities(s.capabilities),
    ownCaps: s.ownCaps,
    serverInfo: s.info as unknown as JsonObject,
    instructions: s.instructions,
    discoverAnyVersion: options.discoverAnyVersion ?? true,
    serverInfoInResults: options.serverInfoInResults ?? true,
    maxPendingInbound,
    extensionMethods: s.extensionMethods,
    gate: (method, params) => gate(s.inboundGate, false, method, "request", params),
  });
}
