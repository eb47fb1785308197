// The fuzzer's oracle, checked on the value lane where each message is seen on its own:
// - every inbound request with a readable id gets exactly one response or error (a
//   multiset per id: a duplicate in flight is answered too), and every message owed a
//   reply without a readable id gets exactly one error with a null or absent id; nothing
//   else is answered. No reply is owed once the engine closed, for a request the peer
//   cancelled while the host held it (a `cancelled` event), or to a 2026-07-28 server at
//   a client (MOD-21: that client writes no responses at all);
// - every request the engine sent settles exactly once (response, error-response,
//   invalid-response, timeout, connection-closed, request-ended, or the host's cancel);
// - events are of known kinds, never an internal error; after `closed` nothing new comes.
//
// Invariants: the oracle models the rules of RULES.md M-01…M-10, ID-01…ID-04, X-01…X-09, MOD-21 and the
// policy entries L-10…L-12 on its own; it never asks the engine what it owes.

import type { EngineEvent } from "../../lib/index.js";

export interface Failure {
  readonly kind: string;
  readonly detail: string;
}

export class OracleFailure extends Error {
  constructor(readonly failure: Failure) {
    super(`${failure.kind}: ${failure.detail}`);
  }
}

/** Failure kinds counted but not fatal (`--ignore`): known defects, so a run can look past them. */
export const ignoredKinds = new Set<string>();
export const ignoredCounts = new Map<string, number>();

/** Reports a failure: throws, unless its kind is ignored (then it is counted and the check carries on). */
export function fail(kind: string, detail: string): never {
  if (ignoredKinds.has(kind)) {
    ignoredCounts.set(kind, (ignoredCounts.get(kind) ?? 0) + 1);
    return undefined as never;
  }
  throw new OracleFailure({ kind, detail });
}

const KNOWN_EVENTS = new Set([
  "request",
  "notification",
  "response",
  "error-response",
  "invalid-response",
  "progress",
  "cancelled",
  "timeout",
  "request-ended",
  "response-too-large",
  "connection-closed",
  "initialize-request",
  "negotiated",
  "ready",
  "violation",
  "diagnostic",
  "closed",
]);

const SETTLING = new Set([
  "response",
  "error-response",
  "invalid-response",
  "timeout",
  "connection-closed",
  "request-ended",
  "response-too-large",
]);

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function readableId(id: unknown): boolean {
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id) && Math.abs(id) <= MAX_SAFE);
}

export function idKey(id: unknown): string {
  return typeof id === "string" ? `s:${id}` : `n:${String(id)}`;
}

export const NULL_KEY = "null";

export interface InboundContext {
  readonly closed: boolean;
  /** A 2026-07-28 client: it answers nothing (MOD-21). */
  readonly silent: boolean;
  readonly batching: boolean;
  readonly maxBatchLength: number;
}

/** The replies one inbound value is owed: id keys, NULL_KEY for an unreadable id. */
export function owedFor(value: unknown, ctx: InboundContext): string[] {
  if (ctx.closed || ctx.silent) return [];
  if (Array.isArray(value)) {
    if (!ctx.batching || value.length === 0 || value.length > ctx.maxBatchLength) return [NULL_KEY];
    const owed: string[] = [];
    for (const item of value) {
      if (Array.isArray(item)) owed.push(NULL_KEY);
      else owed.push(...single(item));
    }
    return owed;
  }
  return single(value);
}

function single(value: unknown): string[] {
  if (!isObject(value)) return [NULL_KEY];
  const hasId = value.id !== undefined;
  const key = hasId && readableId(value.id) ? idKey(value.id) : NULL_KEY;
  if (value.method !== undefined) return hasId ? [key] : []; // notifications are never answered (M-08)
  if (value.result !== undefined || value.error !== undefined) return []; // responses are never answered
  return [key];
}

/**
 * The replies a line over maxLineBytes is owed (it is skipped unread; the decoder only scans
 * for its top-level id and method): a request gets one with its id, a notification or a
 * response none, anything else one without an id. undefined when the line is not a JSON
 * object whose id the scan surely reads (then at most one -32600 reply is accepted).
 */
export function owedForLongLine(value: unknown): string[] | undefined {
  if (!isObject(value)) return undefined;
  const id = value.id;
  if (
    id !== undefined &&
    !(typeof id === "number" && Number.isSafeInteger(id)) &&
    !(typeof id === "string" && /^[\x20-\x7e]{0,100}$/.test(id) && !/["\\]/.test(id))
  )
    return undefined;
  const hasMethod = value.method !== undefined;
  const hasId = id !== undefined;
  if (hasMethod) return hasId ? [idKey(id)] : [];
  return hasId ? [] : [NULL_KEY];
}

export class Oracle {
  /** A reply not counted as owed may come once (an over-long line the oracle cannot read). */
  wildcard = 0;
  /** Replies owed by the engine, by id key. */
  private readonly owed = new Map<string, number>();
  /** Requests the host holds (request / initialize-request events not answered yet). */
  readonly hostPending = new Map<string, { id: string | number; method: string; progressToken: unknown; params: unknown }>();
  /** Our own (the engine's) requests not settled, by id. */
  readonly engineRequests = new Map<number, string>();
  /** Ids the peer asked to cancel in the current delivery. */
  cancelsSent = new Set<string>();
  closed = false;
  silent = false;
  repliesSeen = 0;

  owe(keys: readonly string[]): void {
    for (const k of keys) this.owed.set(k, (this.owed.get(k) ?? 0) + 1);
  }

  get owedCount(): number {
    let n = 0;
    for (const v of this.owed.values()) n += v;
    return n;
  }

  owedList(): string[] {
    return [...this.owed].filter(([, n]) => n > 0).map(([k, n]) => `${k}×${n}`);
  }

  private consume(key: string, what: string): void {
    const n = this.owed.get(key) ?? 0;
    // The reply to an unreadable over-long line comes in its own drain: it is that reply, even when its id is owed elsewhere too.
    if (this.wildcard > 0) {
      this.wildcard--;
      return;
    }
    if (n <= 0) {
      fail("unowed-reply", `${what}: no reply was owed for id ${key} (duplicate or invented answer)`);
      return;
    }
    if (n === 1) this.owed.delete(key);
    else this.owed.set(key, n - 1);
  }

  /** Checks one outbound message (JSON text) and accounts replies. */
  outbound(text: string): void {
    if (this.closedAndDrained) fail("output-after-close", `message after the closed event was drained: ${text.slice(0, 200)}`);
    const value: unknown = JSON.parse(text);
    const items = Array.isArray(value) ? value : [value];
    if (Array.isArray(value) && value.length === 0) fail("bad-output", "an empty batch reply");
    for (const m of items) {
      if (!isObject(m) || m.jsonrpc !== "2.0") fail("bad-output", `not a JSON-RPC 2.0 object: ${text.slice(0, 200)}`);
      const isReply = m.method === undefined;
      if (!isReply) {
        if (Array.isArray(value)) fail("bad-output", `a request or notification inside a batch reply: ${text.slice(0, 200)}`);
        if (typeof m.method !== "string") fail("bad-output", `method not a string: ${text.slice(0, 200)}`);
        if (m.method === "notifications/subscriptions/acknowledged") {
          // MOD-14: a listen stream has no request event; the host holds it from its acknowledgement on.
          const meta = isObject(m.params) && isObject(m.params._meta) ? m.params._meta : undefined;
          const id = meta?.["io.modelcontextprotocol/subscriptionId"];
          if (id === undefined || (this.owed.get(idKey(id)) ?? 0) === 0)
            fail("bad-output", `acknowledged for a listen request that owes no reply: ${text.slice(0, 200)}`);
          this.hostPending.set(idKey(id), {
            id: id as string | number,
            method: "subscriptions/listen",
            progressToken: undefined,
            params: undefined,
          });
        }
        if (m.id !== undefined) {
          if (typeof m.id !== "number" || !Number.isInteger(m.id))
            fail("bad-output", `our request id is not an integer: ${text.slice(0, 200)}`);
          if (this.engineRequests.has(m.id)) fail("id-reuse", `request id ${m.id} sent again while in flight`);
          this.engineRequests.set(m.id, m.method);
        }
        continue;
      }
      const hasResult = m.result !== undefined;
      const hasError = m.error !== undefined;
      if (hasResult === hasError) fail("bad-output", `a reply needs exactly one of result and error: ${text.slice(0, 200)}`);
      if (hasResult && !isObject(m.result)) fail("bad-output", `result not an object: ${text.slice(0, 200)}`);
      if (hasError) {
        const e = m.error;
        if (!isObject(e) || typeof e.code !== "number" || !Number.isInteger(e.code) || typeof e.message !== "string")
          fail("bad-output", `malformed error object: ${text.slice(0, 200)}`);
      }
      this.repliesSeen++;
      if (this.silent) {
        fail("reply-from-modern-client", `a 2026-07-28 client writes no responses (MOD-21): ${text.slice(0, 200)}`);
        continue;
      }
      if (m.id === undefined || m.id === null) {
        if (!hasError) fail("bad-output", `a result without an id: ${text.slice(0, 200)}`);
        this.consume(NULL_KEY, text.slice(0, 200));
      } else {
        this.consume(idKey(m.id), text.slice(0, 200));
      }
    }
  }

  private closedAndDrained = false;

  event(ev: EngineEvent): void {
    const kind = (ev as { kind: string }).kind;
    if (!KNOWN_EVENTS.has(kind)) fail("internal-error", `event of kind ${kind}: ${JSON.stringify(ev).slice(0, 400)}`);
    if (this.closedAndDrained) fail("event-after-close", `${kind} after the closed event`);
    switch (ev.kind) {
      case "request":
      case "initialize-request": {
        const key = idKey(ev.id);
        if ((this.owed.get(key) ?? 0) === 0) fail("unowed-request-event", `${ev.kind} for id ${key} that owes no reply`);
        if (this.hostPending.has(key)) fail("duplicate-request-event", `${ev.kind} for id ${key} already held by the host`);
        this.hostPending.set(key, {
          id: ev.id,
          method: ev.kind === "request" ? ev.method : "initialize",
          progressToken: ev.kind === "request" ? ev.progressToken : undefined,
          params: ev.params,
        });
        return;
      }
      case "cancelled": {
        const key = idKey(ev.id);
        if (!this.cancelsSent.has(key)) fail("spurious-cancel", `cancelled event for ${key}, which the peer did not cancel now`);
        if (!this.hostPending.delete(key)) fail("spurious-cancel", `cancelled event for ${key}, which the host did not hold`);
        this.consume(key, "cancelled event");
        return;
      }
      case "closed":
        if (typeof ev.reason === "string" && !["local", "eof", "fatal"].includes(ev.reason))
          fail("internal-error", `closed with reason ${ev.reason}: ${ev.detail}`);
        this.closed = true;
        return;
      default:
        if (SETTLING.has(ev.kind)) {
          const id = (ev as { id: number }).id;
          if (!this.engineRequests.delete(id)) fail("double-settle", `${ev.kind} for request ${id}, which is not in flight`);
        }
        if (ev.kind === "negotiated") this.settleInitialize();
    }
  }

  initializeId: number | undefined;

  private settleInitialize(): void {
    if (this.initializeId !== undefined) this.engineRequests.delete(this.initializeId);
  }

  /** After a drain that followed the closed event: nothing is owed any more, nothing may come. */
  afterDrain(): void {
    if (!this.closed) return;
    this.owed.clear();
    this.hostPending.clear();
    if (this.initializeId !== undefined) this.engineRequests.delete(this.initializeId);
    if (this.engineRequests.size > 0)
      fail("unsettled-at-close", `requests ${[...this.engineRequests.keys()].join(", ")} never settled before closed`);
    this.closedAndDrained = true;
  }
}
