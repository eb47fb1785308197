// Our requests in flight: ids, progress tokens, deadlines, cancellation and late answers
// (ID-03, ID-04, P-02, P-04, P-05, X-06, X-07). The engine asks this table; the table queues
// nothing and reports nothing itself.
//
// Invariants:
// - ids are a counter, never reused (ID-03), also across processes (snapshot carries nextId);
// - a progress token is unique among requests in flight (P-02); a task-augmented request's
//   token may outlive its request until the task ends (P-08), then it is released;
// - deadlines are absolute numbers in the host's clock; the inactivity deadline moves with
//   progress (when the host passed `now`) and setDeadline, the total deadline never moves;
// - a request we cancelled or that timed out is remembered (bounded), so its late answer
//   is dropped silently instead of being reported as unknown.

import { isJsonObject, type JsonObject } from "../wire/envelope.js";
import { describeValue, LocalProtocolError } from "../wire/errors.js";
import type { RequestOptions } from "./engine-types.js";
import { DeadlineHeap, type DeadlineEntry } from "./deadlines.js";
import { IdTable } from "./idtable.js";
import { isProgressToken, progressProblem, progressTokenOf } from "../rules/progress.js";
import type { ProgressToken } from "../types/base.js";

/** The deadlines of one request, and its place in the deadline heap; only requests that have any carry this (most do not, and pay nothing). */
export interface Timing extends DeadlineEntry {
  readonly owner: PendingOut;
  /** Inactivity deadline (Infinity: none). */
  deadline: number;
  /** Hard deadline (Infinity: none); never moves. */
  readonly totalDeadline: number;
  /** Progress pushes the inactivity deadline to now + resetMs (0: it does not). */
  readonly resetMs: number;
}

export interface PendingOut {
  readonly id: number;
  readonly method: string;
  readonly params: JsonObject | undefined;
  readonly token: ProgressToken | undefined;
  timing: Timing | undefined;
  /** The last progress received (undefined: none yet). */
  lastProgress: number | undefined;
}

/** How many settled ids are remembered so that late answers are told apart from unknown ones. */
const SETTLED_MEMORY = 4096;

/** Adds to a set that forgets its oldest entry past SETTLED_MEMORY. */
export function remember<T>(set: Set<T>, value: T): void {
  set.add(value);
  if (set.size > SETTLED_MEMORY) set.delete(set.values().next().value as T);
}

/** When a request's first deadline falls (Infinity: none). */
function dueOf(timing: Timing): number {
  return timing.deadline < timing.totalDeadline ? timing.deadline : timing.totalDeadline;
}

export type ProgressOutcome =
  /** `stale`: the request resets its deadline on progress, but no `now` came with the input (ENG-05). */
  | { readonly kind: "accepted"; readonly pending: PendingOut; readonly stale: boolean }
  | { readonly kind: "unknown-token" }
  | { readonly kind: "not-increasing"; readonly pending: PendingOut; readonly expected: string; readonly got: string };

export class OutboundRequests {
  private readonly pending = new IdTable<PendingOut>();
  private readonly tokens = new Map<ProgressToken, PendingOut>();
  private readonly cancelled = new Set<number>();
  private readonly deadlines = new DeadlineHeap<Timing>();
  nextId: number;

  constructor(firstId: number) {
    this.nextId = firstId;
  }

  get size(): number {
    return this.pending.size;
  }

  get(id: number): PendingOut | undefined {
    return this.pending.get(id);
  }

  /** The earliest deadline of a request in flight, or undefined. */
  nextDeadline(): number | undefined {
    return this.deadlines.peek()?.due;
  }

  get hasDeadlines(): boolean {
    return this.deadlines.size > 0;
  }

  /**
   * A request about to be sent, not yet recorded: its id, its progress token (from params or
   * options; P-01, P-02) and its deadlines, with the params to send (the token added to
   * `_meta` when the options asked for one). register() records it once every other check
   * passed, so that a refusal leaves no trace.
   */
  prepare(method: string, params: JsonObject | undefined, options: RequestOptions): PendingOut {
    const id = this.nextId;
    let token = progressTokenOf(params);
    if (options.progressToken !== undefined) {
      token = options.progressToken === true ? id : options.progressToken;
      if (!isProgressToken(token))
        throw new LocalProtocolError({ rule: "P-01", expected: "a string or integer progress token", got: describeValue(token), method });
      const meta = params !== undefined && isJsonObject(params._meta) ? params._meta : undefined;
      params = { ...params, _meta: { ...meta, progressToken: token } };
    }
    if (token !== undefined && this.tokens.has(token)) {
      throw new LocalProtocolError({
        rule: "P-02",
        expected: "a progress token unique among active requests",
        got: `token ${describeValue(token)} in use`,
        method,
      });
    }
    const pending: PendingOut = { id, method, params, token, timing: undefined, lastProgress: undefined };
    const resetMs = options.resetOnProgressMs ?? 0;
    if (options.deadline !== undefined || options.totalDeadline !== undefined || resetMs !== 0) {
      pending.timing = {
        id,
        owner: pending,
        deadline: options.deadline ?? Infinity,
        totalDeadline: options.totalDeadline ?? Infinity,
        resetMs,
        due: Infinity,
        heapIndex: -1,
      };
    }
    return pending;
  }

  /** Records a prepared request as in flight. */
  register(pending: PendingOut): void {
    this.nextId = pending.id + 1;
    this.pending.set(pending.id, pending);
    if (pending.token !== undefined) this.tokens.set(pending.token, pending);
    if (pending.timing !== undefined) this.deadlines.update(pending.timing, dueOf(pending.timing));
  }

  /** Removes a request from every table (its progress token too, unless a task keeps it). */
  settle(p: PendingOut, keepToken = false): void {
    this.pending.delete(p.id);
    if (p.token !== undefined && !keepToken) this.tokens.delete(p.token);
    if (p.timing !== undefined) this.deadlines.remove(p.timing);
  }

  /** true (and forgotten) when `id` is a request we cancelled or that timed out: its late answer is dropped. */
  wasAbandoned(id: number): boolean {
    return this.cancelled.delete(id);
  }

  /** Settles and remembers a request given up on (cancel or timeout), so that its late answer is dropped. */
  abandon(p: PendingOut): void {
    this.settle(p);
    remember(this.cancelled, p.id);
  }

  /** throws unless `id` is one we issued (a settled one is the race of X-07, not an error). */
  assertIssued(id: number): void {
    if (Number.isInteger(id) && id >= 0 && id < this.nextId) return;
    throw new LocalProtocolError({
      rule: "X-01",
      expected: "the id of a request we sent",
      got: describeValue(id),
      method: "notifications/cancelled",
    });
  }

  /** Every request whose deadline passed at `now`, in id order, each with the deadline that passed; removed from the heap, not yet settled. */
  takeExpired(now: number): Array<{ readonly pending: PendingOut; readonly which: "inactivity" | "total" }> {
    const first = this.deadlines.peek();
    if (first === undefined || first.due > now) return [];
    return this.deadlines
      .takeDue(now, [])
      .map((timing) => ({ pending: timing.owner, which: timing.totalDeadline <= now ? "total" : "inactivity" }));
  }

  setDeadline(p: PendingOut, deadline: number | undefined): void {
    if (p.timing === undefined)
      p.timing = { id: p.id, owner: p, deadline: Infinity, totalDeadline: Infinity, resetMs: 0, due: Infinity, heapIndex: -1 };
    p.timing.deadline = deadline ?? Infinity;
    this.deadlines.update(p.timing, dueOf(p.timing));
  }

  /** Inbound progress for `token` (P-04, P-05); accepted progress pushes the inactivity deadline back when `now` is known. */
  progress(token: ProgressToken, progress: number, now: number | undefined): ProgressOutcome {
    const pending = this.tokens.get(token);
    if (pending === undefined) return { kind: "unknown-token" };
    const problem = progressProblem(pending.lastProgress, progress);
    if (problem !== undefined) return { kind: "not-increasing", pending, expected: problem[0], got: problem[1] };
    pending.lastProgress = progress;
    const timing = pending.timing;
    const resets = timing !== undefined && timing.resetMs > 0;
    if (resets && now !== undefined) {
      timing.deadline = now + timing.resetMs;
      this.deadlines.update(timing, dueOf(timing));
    }
    return { kind: "accepted", pending, stale: resets && now === undefined };
  }

  releaseTokens(tokens: readonly ProgressToken[]): void {
    for (const token of tokens) this.tokens.delete(token);
  }

  /** Forgets every request in flight and returns them (the connection closed). */
  closeAll(): PendingOut[] {
    const all = this.pending.collect([]);
    this.pending.clear();
    this.tokens.clear();
    this.deadlines.clear();
    return all;
  }
}
