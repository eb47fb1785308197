// The peer's notifications, after framing and classification: gated like every message
// (lib/rules/methods.ts), then initialized (moves the lifecycle), cancelled (X-04, or a 2026-07-28
// server ending one of our listen streams), progress (lib/engine/inbound-answers.ts), a 2026-07-28 change
// notification (MOD-14), or any other notification, checked against its params schema
// (SCH-03) and the feature rules (lib/rules/features.ts) before it becomes an event.
//
// Invariants: nothing here throws on what the peer sends, and no notification is answered;
// a refusal is a violation (capability, wrong direction) or a diagnostic event.

import { isRequestId, type JsonObject } from "../wire/envelope.js";
import type { Answers } from "./inbound-answers.js";
import type { Features } from "../rules/features.js";
import { gate } from "../rules/methods.js";
import type { Output } from "./output.js";
import type { Replies } from "./outbound-replies.js";
import type { Session } from "./session.js";

export class InboundNotifications {
  constructor(
    private readonly s: Session,
    private readonly output: Output,
    private readonly answers: Answers,
    private readonly features: Features,
    private readonly replies: Replies,
  ) {}

  /** One notification from the peer; `now` lets progress push back inactivity deadlines. */
  receive(method: string, params: JsonObject | undefined, now: number | undefined): void {
    const { s, output } = this;
    const refusal = gate(s.inboundGate, false, method, "notification", params);
    if (refusal !== undefined) {
      if (refusal.reason === "capability" || refusal.reason === "wrong-direction")
        output.violation(refusal.rule, refusal.expected, refusal.got, undefined, undefined, method);
      else output.diagnostic(refusal.rule, refusal.expected, refusal.got, method);
      return;
    }
    switch (method) {
      case "notifications/initialized":
        s.move("initialized-received");
        output.events.push({ kind: "ready" });
        return;
      case "notifications/cancelled":
        this.onCancelled(params);
        return;
      case "notifications/progress":
        this.answers.onProgress(params, now);
        return;
      default:
        // An extension's notification (MT-03) is no change notification: it needs no listen stream.
        if (s.era === "modern" && !s.extensionMethods.has(method)) {
          this.answers.onModernNotification(method, params);
          return;
        }
    }
    const invalid = s.paramsProblem(method, params);
    const problem =
      invalid === undefined
        ? this.features.inboundNotification(method, params)
        : { rule: "SCH-03", expected: `${invalid.path}: ${invalid.expected}`, got: invalid.got };
    if (problem !== undefined) {
      output.violation(problem.rule, problem.expected, problem.got, undefined, undefined, method);
      return;
    }
    if (method === "notifications/tasks/status") this.answers.releaseEndedTaskTokens();
    output.events.push({ kind: "notification", method, params });
  }

  private onCancelled(params: JsonObject | undefined): void {
    const id = params?.requestId;
    if (!isRequestId(id)) return;
    const reason = typeof params?.reason === "string" ? params.reason : undefined;
    // A modern server (stdio) may end one of our listen streams this way, and only that.
    if (this.s.era === "modern" && this.s.role === "client") this.answers.onListenEnded(id, reason);
    else this.replies.onCancelled(id, reason);
  }
}
