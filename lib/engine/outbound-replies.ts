// Our replies to the peer's requests, as our host gives them (the peer's answers to our requests
// are lib/engine/inbound-answers.ts): results and errors (M-04, M-05, X-04; the feature rules of
// lib/rules/features.ts; 2026-07-28 decoration in lib/engine/modern-server.ts; the codes that era
// retired refused, E-02), progress on them (P-01, P-04, P-05, P-08, MOD-13), and the peer
// cancelling one.

import { isJsonObject, type JsonObject, type RequestId } from "../wire/envelope.js";
import { describeValue, ErrorCode, LocalProtocolError } from "../wire/errors.js";
import type { Features } from "../rules/features.js";
import type { Handshake } from "./handshake.js";
import type { InboundRequests } from "./inbound-requests.js";
import { isCancellable } from "../rules/methods.js";
import type { ModernServer } from "./modern-server.js";
import { progressProblem } from "../rules/progress.js";
import type { Session } from "./session.js";

export class Replies {
  constructor(
    private readonly s: Session,
    private readonly inRequests: InboundRequests,
    private readonly features: Features,
    private readonly handshake: Handshake,
    private readonly modernServer: ModernServer | undefined,
  ) {}

  respond(id: RequestId, value: object): void {
    const result = value as JsonObject;
    if (!isJsonObject(result)) throw new LocalProtocolError({ rule: "M-04", expected: "result as an object", got: describeValue(result) });
    this.handshake.refuseRespond(id);
    const inFlight = this.inRequests.get(id);
    let answer = result;
    if (inFlight?.modern !== undefined && this.modernServer !== undefined)
      answer = this.modernServer.result(inFlight, inFlight.modern, result);
    else if (inFlight !== undefined)
      this.features.outboundResult(inFlight.method, inFlight.params, result, this.s.sessionVersion, inFlight.token);
    const pending = this.inRequests.take(id);
    if (pending === undefined) return;
    this.modernServer?.forget(id);
    this.s.output.reply({ jsonrpc: "2.0", id, result: answer }, pending.group, id);
  }

  respondError(id: RequestId, code: number, message: string, data: unknown): void {
    if (!Number.isInteger(code))
      throw new LocalProtocolError({ rule: "M-05", expected: "an integer error code", got: describeValue(code) });
    if (typeof message !== "string")
      throw new LocalProtocolError({ rule: "M-05", expected: "a string error message", got: describeValue(message) });
    const inFlight = this.inRequests.get(id);
    if (inFlight?.modern !== undefined && (code === ErrorCode.ResourceNotFound || code === ErrorCode.UrlElicitationRequired)) {
      // E-02: 2026-07-28 retired -32002 (a missing resource is -32602) and -32042.
      throw new LocalProtocolError({
        rule: "E-02",
        expected: "a code 2026-07-28 still defines (-32602 for a missing resource)",
        got: String(code),
        code,
        method: inFlight.method,
      });
    }
    if (inFlight !== undefined) this.features.outboundError(code, data, this.s.sessionVersion);
    this.handshake.refused(id);
    const pending = this.inRequests.take(id);
    if (pending === undefined) return;
    this.modernServer?.forget(id);
    this.s.output.reply({ jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } }, pending.group, id);
  }

  sendProgress(id: RequestId, progress: number, total: number | undefined, message: string | undefined): void {
    const pending = this.inRequests.get(id);
    if (pending === undefined) {
      throw new LocalProtocolError({
        rule: "P-04",
        expected: "progress for a request still in flight",
        got: `id ${describeValue(id)} not in flight`,
        method: "notifications/progress",
      });
    }
    if (pending.token === undefined) {
      throw new LocalProtocolError({
        rule: "P-01",
        expected: "a request that carried _meta.progressToken",
        got: "no token",
        method: "notifications/progress",
      });
    }
    if (pending.modern !== undefined && pending.method === "subscriptions/listen") {
      throw new LocalProtocolError({
        rule: "MOD-13",
        expected: "progress only for requests other than subscriptions/listen",
        got: "a listen stream",
        method: "notifications/progress",
      });
    }
    const problem = progressProblem(pending.lastProgressSent, progress);
    if (problem !== undefined)
      throw new LocalProtocolError({ rule: "P-05", expected: problem[0], got: problem[1], method: "notifications/progress" });
    pending.lastProgressSent = progress;
    this.queueProgress(pending.token, progress, total, message, id);
  }

  sendTaskProgress(taskId: string, progress: number, total: number | undefined, message: string | undefined): void {
    const record = this.features.taskForProgress(taskId, progress);
    record.lastProgress = progress;
    this.queueProgress(record.token, progress, total, message, undefined);
  }

  /** the peer cancels one of its requests; malformed, unknown or finished targets and initialize are ignored silently. */
  onCancelled(id: RequestId, reason: string | undefined): void {
    const pending = this.inRequests.cancel(id, isCancellable);
    if (pending === undefined) return;
    this.modernServer?.forget(id);
    const group = pending.group;
    if (group !== undefined) {
      group.remaining--;
      this.s.output.flushGroup(group);
    }
    this.s.output.events.push({ kind: "cancelled", id, method: pending.method, reason }); // the reason goes to the host
  }

  private queueProgress(
    token: string | number,
    progress: number,
    total: number | undefined,
    message: string | undefined,
    related: RequestId | undefined,
  ): void {
    const params: JsonObject = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.s.output.queue({ jsonrpc: "2.0", method: "notifications/progress", params }, related);
  }
}
