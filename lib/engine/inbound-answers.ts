// The peer's answers to our requests (the replies we owe the peer are lib/engine/outbound-replies.ts):
// results and errors (matched by id, ID-04, X-06), progress (P-04, P-05, P-07), results validated
// where the schema is checked (tasks/*, or every method with validateResults; SCH-02), the
// 2026-07-28 client's reading of results (MOD-10, MOD-11; server/discover tells us the server) and
// of change notifications (MOD-14), answers too large to read (LIM-01), our deadlines passing
// (T-02), and the progress tokens released when the tasks that kept them end (P-08).

import { isJsonObject, type ErrorObject, type JsonObject, type RequestId } from "../wire/envelope.js";
import { describeValue } from "../wire/errors.js";
import type { Features } from "../rules/features.js";
import type { Handshake, Shutdown } from "./handshake.js";
import type { LineFacts } from "../wire/line-scan.js";
import { resultTypesFor } from "../rules/negotiated-extensions.js";
import { CORE_RESULT_TYPES, META_SERVER_INFO, META_SUBSCRIPTION_ID, resultTypeOf } from "../rules/modern.js";
import type { OutboundRequests, PendingOut } from "./outbound-requests.js";
import { resultCheck } from "../rules/params.js";
import { isProgressToken } from "../rules/progress.js";
import { validate } from "../rules/schema.js";
import type { Session } from "./session.js";
import { newestVersion, type ProtocolVersion } from "../rules/versions.js";

export class Answers {
  constructor(
    private readonly s: Session,
    private readonly out: OutboundRequests,
    private readonly features: Features,
    private readonly handshake: Handshake,
    private readonly validateResults: boolean,
    private readonly shutdown: Shutdown,
  ) {}

  onResponse(id: RequestId, result: JsonObject | undefined, error: ErrorObject | undefined): void {
    const pending = typeof id === "number" ? this.out.get(id) : undefined;
    if (pending === undefined) {
      // an answer to a request we cancelled (or timed out) is dropped silently.
      if (typeof id === "number" && this.out.wasAbandoned(id)) return;
      this.s.output.violation(
        "ID-04",
        "a response to a request in flight",
        `id ${describeValue(id)} unknown or already settled`,
        undefined,
        id,
        undefined,
      );
      return;
    }
    // P-08: the token of a task-augmented request lives on until the task ends.
    const createsTask =
      result !== undefined && pending.params !== undefined && pending.params.task !== undefined && isJsonObject(result.task);
    this.out.settle(pending, createsTask);
    if (pending.id === this.handshake.initializeId) this.handshake.onResult(pending.id, result, error);
    else if (this.s.era === "modern" && result !== undefined) this.onModernResult(pending, result);
    else this.onSessionResponse(pending, result, error, createsTask);
  }

  /** An answer on a line over maxLineBytes (its facts scanned while it was skipped): the request it answers settles now. */
  onTooLarge(facts: LineFacts, line: number, limit: number): void {
    const id = facts.id;
    const pending = typeof id === "number" ? this.out.get(id) : undefined;
    if (pending !== undefined) {
      this.out.settle(pending);
      this.s.output.events.push({ kind: "response-too-large", id: pending.id, method: pending.method, bytes: facts.bytes, limit });
    }
    this.s.output.violation(
      "LIM-01",
      `lines of at most ${limit} bytes`,
      `line ${line} of ${facts.bytes} bytes`,
      undefined,
      id,
      pending?.method,
    );
    if (pending !== undefined && pending.id === this.handshake.initializeId)
      this.shutdown("fatal", "LIM-01", `the initialize result is over ${limit} bytes`);
  }

  onProgress(params: JsonObject | undefined, now: number | undefined): void {
    const { output } = this.s;
    const token = params?.progressToken;
    const progress = params?.progress;
    if (!isProgressToken(token) || typeof progress !== "number" || !Number.isFinite(progress)) {
      output.diagnostic(
        "P-01",
        "progressToken (string or integer) and a numeric progress",
        `token ${describeValue(token)}, progress ${describeValue(progress)}`,
        "notifications/progress",
      );
      return;
    }
    const outcome = this.out.progress(token, progress, now);
    // P-04, P-07: progress only on a token of ours still active.
    if (outcome.kind === "unknown-token") {
      output.diagnostic(
        "P-04",
        "progress for a request in flight",
        `unknown or finished token ${describeValue(token)}`,
        "notifications/progress",
      );
      return;
    }
    const { pending } = outcome;
    if (outcome.kind === "not-increasing") {
      output.violation("P-05", outcome.expected, outcome.got, undefined, pending.id, pending.method);
      return;
    }
    if (outcome.stale)
      output.diagnostic(
        "ENG-05",
        "`now` with the input, so that progress pushes the inactivity deadline back",
        "no now: the deadline did not move",
        pending.method,
      );
    const total = typeof params?.total === "number" ? params.total : undefined;
    const message = typeof params?.message === "string" ? params.message : undefined;
    output.events.push({ kind: "progress", id: pending.id, method: pending.method, token, progress, total, message });
  }

  /** A notification under 2026-07-28 (client side): change notifications must name one of our open listen streams (MOD-14). */
  onModernNotification(method: string, params: JsonObject | undefined): void {
    if (method !== "notifications/message") {
      const meta = params !== undefined && isJsonObject(params._meta) ? params._meta : undefined;
      const id = meta?.[META_SUBSCRIPTION_ID];
      const listen = typeof id === "number" ? this.out.get(id) : undefined;
      if (listen === undefined || listen.method !== "subscriptions/listen") {
        this.s.output.violation(
          "MOD-14",
          `${method} on an open subscriptions/listen stream of ours (_meta subscriptionId)`,
          describeValue(id),
          undefined,
          undefined,
          method,
        );
        return;
      }
    }
    this.s.output.events.push({ kind: "notification", method, params });
  }

  /** T-02: deadlines passed at `now`: each request times out (notifications/cancelled queued, never for initialize: it ends the session). */
  expire(now: number): void {
    const { output } = this.s;
    for (const { pending, which } of this.out.takeExpired(now)) {
      const initialize = pending.id === this.handshake.initializeId;
      if (initialize) this.out.settle(pending);
      else this.out.abandon(pending);
      output.events.push({ kind: "timeout", id: pending.id, method: pending.method, deadline: which });
      if (initialize) {
        this.shutdown("fatal", "L-01", "initialize timed out");
        return;
      }
      output.queue(
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: pending.id, reason: `timeout (${which} deadline)` } },
        undefined,
      );
    }
  }

  /** A 2026-07-28 server ended one of our subscriptions/listen streams (stdio: notifications/cancelled); any other target is ignored. */
  onListenEnded(id: RequestId, reason: string | undefined): void {
    const ours = typeof id === "number" ? this.out.get(id) : undefined;
    if (ours === undefined || ours.method !== "subscriptions/listen") return;
    this.out.settle(ours);
    this.s.output.events.push({ kind: "request-ended", id: ours.id, method: ours.method, reason });
  }

  /** A session-era notification that reports on our tasks released the tokens of those that ended. */
  releaseEndedTaskTokens(): void {
    const tokens: Array<string | number> = [];
    this.features.endedTaskTokens(tokens);
    this.out.releaseTokens(tokens);
  }

  private onSessionResponse(
    pending: PendingOut,
    result: JsonObject | undefined,
    error: ErrorObject | undefined,
    createsTask: boolean,
  ): void {
    const { s } = this;
    if (result !== undefined && (this.validateResults || pending.method.startsWith("tasks/"))) {
      const check = resultCheck(s.sessionVersion ?? newestVersion(s.versions), pending.method);
      const invalid = check === undefined ? undefined : validate(check, result, "result");
      if (invalid !== undefined) {
        s.output.violation("SCH-02", `${invalid.path}: ${invalid.expected}`, invalid.got, undefined, pending.id, pending.method);
        s.output.events.push({
          kind: "invalid-response",
          id: pending.id,
          method: pending.method,
          result,
          path: invalid.path,
          expected: invalid.expected,
          got: invalid.got,
        });
        return;
      }
    }
    const problem =
      error !== undefined
        ? this.features.inboundError(error, s.sessionVersion)
        : this.features.inboundResult(pending.method, pending.params, result as JsonObject, createsTask ? pending.token : undefined);
    if (problem !== undefined) s.output.violation(problem.rule, problem.expected, problem.got, undefined, pending.id, pending.method);
    if (pending.method.startsWith("tasks/")) this.releaseEndedTaskTokens();
    if (error !== undefined) s.output.events.push({ kind: "error-response", id: pending.id, method: pending.method, error });
    else s.output.events.push({ kind: "response", id: pending.id, method: pending.method, result: result as JsonObject });
  }

  /** A modern client's result (MOD-11): a missing resultType is "complete", an unknown one is invalid; discover tells us the server. */
  private onModernResult(pending: PendingOut, result: JsonObject): void {
    const { s } = this;
    // "task" only where the tasks extension allows it and our request declared the extension (lib/rules/negotiated-extensions.ts).
    const known = resultTypesFor(pending.method, s.capabilities, CORE_RESULT_TYPES);
    if (resultTypeOf(result, known) === undefined) {
      const expected = `resultType ${[...known].map((t) => JSON.stringify(t)).join(" or ")}`;
      s.output.violation("MOD-11", expected, describeValue(result.resultType), undefined, pending.id, pending.method);
      s.output.events.push({
        kind: "invalid-response",
        id: pending.id,
        method: pending.method,
        result,
        path: "result.resultType",
        expected,
        got: describeValue(result.resultType),
      });
      return;
    }
    if (pending.method === "server/discover" && isJsonObject(result.capabilities)) {
      const meta = isJsonObject(result._meta) ? result._meta : undefined;
      const serverInfo = isJsonObject(meta?.[META_SERVER_INFO]) ? (meta?.[META_SERVER_INFO] as JsonObject) : {};
      const instructions = typeof result.instructions === "string" ? result.instructions : undefined;
      s.learnServer(result.capabilities, serverInfo, instructions);
      s.output.events.push({
        kind: "negotiated",
        version: s.version as ProtocolVersion,
        peerInfo: serverInfo,
        peerCapabilities: result.capabilities,
        instructions,
      });
    }
    s.output.events.push({ kind: "response", id: pending.id, method: pending.method, result });
  }
}
