// Host commands through the trigger tools (fixtures/FORMAT.md, "Trigger tools"): a target
// without a host adapter is made to send a request, a notification or a cancellation by a
// tools/call of the runner (id "mcp-conform-call-N"). This module holds the pure parts: the
// tools/call of a trigger, what a refused command must not put on the wire, and the rewriting
// of the fixture's ids for the server's own requests into the ids the implementation chose.
//
// Invariants: only ids of triggered requests are rewritten, and only where they name the
// server's request: in responses the peer sends (no `method`), in the server's own requests
// (captured) and in the `requestId` of the server's notifications/cancelled.

import type { Bindings } from "./match.js";

export const CALL_PREFIX = "mcp-conform-call-";

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const idKey = (id: unknown): string => JSON.stringify(id);

/** The answer to one of the runner's trigger calls: absorbed, never judged against the fixture. */
export function isTriggerAnswer(message: unknown): boolean {
  return isRecord(message) && typeof message.id === "string" && message.id.startsWith(CALL_PREFIX) && !Object.hasOwn(message, "method");
}

/** Per case: the triggered requests (fixture id → the tools/call that made it) and the ids captured for them. */
export class TriggerLedger {
  private calls = 0;
  private readonly callOf = new Map<string, string>();
  /** Fixture ids of triggered requests that asked for progress (a token the implementation picks). */
  private readonly progressOf = new Set<string>();
  /** The fixture's progress token (JSON) → binding name of the token the implementation chose. */
  private readonly tokenOf = new Map<string, string>();
  /** Fixture id key → binding name of the id the implementation chose. */
  private readonly captureOf = new Map<string, string>();

  /** The tools/call for a trigger, or a problem (a cancel of a request no trigger made). */
  callFor(trigger: Record<string, unknown>): { id: string; message: Record<string, unknown> } | string {
    const args: Record<string, unknown> = isRecord(trigger.arguments) ? { ...trigger.arguments } : {};
    if (Object.hasOwn(trigger, "cancels")) {
      const call = this.callOf.get(idKey(trigger.cancels));
      if (call === undefined) return `a cancel of request ${idKey(trigger.cancels)}, which no trigger sent`;
      args.call = call;
    }
    const id = `${CALL_PREFIX}${++this.calls}`;
    if (Object.hasOwn(trigger, "request")) {
      this.callOf.set(idKey(trigger.request), id);
      if (args.progress === true) this.progressOf.add(idKey(trigger.request));
    }
    // In the 2026-07-28 era the call carries the client's envelope, as every request there does.
    const meta = isRecord(trigger.envelope) ? { _meta: trigger.envelope } : {};
    return { id, message: { jsonrpc: "2.0", id, method: "tools/call", params: { name: String(trigger.tool), arguments: args, ...meta } } };
  }

  /** An expected outbound message with the fixture's ids of triggered requests made captures or references. */
  expected(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.expected(v));
    if (!isRecord(value)) return value;
    if (Array.isArray(value.$oneOf)) return { ...value, $oneOf: value.$oneOf.map((v) => this.expected(v)) };
    if (Array.isArray(value.$unordered)) return { ...value, $unordered: value.$unordered.map((v) => this.expected(v)) };
    const key = idKey(value.id);
    if (typeof value.method === "string" && Object.hasOwn(value, "id") && this.callOf.has(key)) {
      const name = `server-request:${key}`;
      this.captureOf.set(key, name);
      // A request is captured once: the fixture names each triggered request in one `out` step.
      const params = isRecord(value.params) ? value.params : undefined;
      const meta = isRecord(params?._meta) ? params._meta : undefined;
      if (this.progressOf.has(key) && meta !== undefined && Object.hasOwn(meta, "progressToken")) {
        // The token the implementation picks for progress it asked for: captured too, and used in the peer's progress.
        const token = `server-progress:${key}`;
        this.tokenOf.set(idKey(meta.progressToken), token);
        return { ...value, id: { $capture: name }, params: { ...params, _meta: { ...meta, progressToken: { $capture: token } } } };
      }
      return { ...value, id: { $capture: name } };
    }
    if (value.method === "notifications/cancelled" && isRecord(value.params)) {
      const name = this.captureOf.get(idKey(value.params.requestId));
      if (name !== undefined) return { ...value, params: { ...value.params, requestId: { $ref: name } } };
    }
    return value;
  }

  /**
   * When `expected` is a triggered request and its tool answered with `isError` (the
   * implementation refused to send it), that answer's text; otherwise undefined.
   */
  refusal(expected: unknown, answers: ReadonlyMap<string, unknown>): string | undefined {
    if (!isRecord(expected) || typeof expected.method !== "string" || !Object.hasOwn(expected, "id")) return undefined;
    const call = this.callOf.get(idKey(expected.id));
    const answer = call === undefined ? undefined : answers.get(call);
    if (!isRecord(answer) || !isRecord(answer.result) || answer.result.isError !== true) return undefined;
    return JSON.stringify(answer.result.content ?? null).slice(0, 300);
  }

  /** An inbound message with the answers to triggered requests addressed to the ids the implementation chose. */
  inbound(value: unknown, bindings: Bindings): unknown {
    if (Array.isArray(value)) return value.map((v) => this.inbound(v, bindings));
    if (isRecord(value) && value.method === "notifications/progress" && isRecord(value.params)) {
      // Progress for the token of a triggered request goes to the token the implementation chose (same JSON value only).
      const token = this.tokenOf.get(idKey(value.params.progressToken));
      return token !== undefined && bindings.has(token)
        ? { ...value, params: { ...value.params, progressToken: bindings.get(token) } }
        : value;
    }
    if (!isRecord(value) || Object.hasOwn(value, "method") || !Object.hasOwn(value, "id")) return value;
    const name = this.captureOf.get(idKey(value.id));
    return name !== undefined && bindings.has(name) ? { ...value, id: bindings.get(name) } : value;
  }
}

/** The message a refused command must not put on the wire before the tool's answer, as a test. */
export function forbidden(trigger: Record<string, unknown>): (message: unknown) => boolean {
  const args = isRecord(trigger.arguments) ? trigger.arguments : {};
  const method = trigger.tool === "conform_cancel" ? "notifications/cancelled" : String(args.method);
  const request = trigger.tool === "conform_request";
  const one = (m: unknown): boolean => isRecord(m) && m.method === method && Object.hasOwn(m, "id") === request;
  return (message) => (Array.isArray(message) ? message.some(one) : one(message));
}
