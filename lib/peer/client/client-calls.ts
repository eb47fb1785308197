// A Client's outgoing requests (client.ts): the promise of each call, its deadlines, its
// abort signal, and the queue of requests past the engine's maxPendingOutbound.
//
// Invariants:
// - every call settles exactly once: through settle() (an answer, a timeout, the end of the
//   connection), its signal, or its expiry while queued; a settled call's abort listener is removed;
// - a call is in `pending` (by the engine's id) once sent, or in `queued` (by ticket) while
//   it waits for room, never both; queued requests leave in call order, one per freed slot;
// - a sent call with the default timeout and no other timing option has its deadline in
//   `defaults` (default-deadlines.ts), not in the engine, until it passes; then the engine
//   gets it unchanged and times the call out as it would any other;
// - what a call sends is a JSON-safe copy made at the call, so a later change of the caller's
//   objects does not change it and a value JSON cannot encode is refused at the call (of a
//   params object the peer layer made for the call, only the members are copied, in place);
// - time comes from the host; this file reads no clock.

import { DEFAULT_LIMITS, type Engine, type RequestOptions } from "../../engine/engine.js";
import type { JsonObject } from "../../wire/envelope.js";
import { IdTable } from "../../engine/idtable.js";
import type { Driver, PeerHost } from "../shared/driver.js";
import { ConnectionClosedError, RequestAbortedError, RequestTimeoutError, localFailure, unencodable } from "../shared/errors.js";
import { errorMessage } from "../shared/handlers.js";
import { NotJson, copyJson, copyMembers } from "../shared/json-safe.js";
import { DeadlineRing } from "./default-deadlines.js";
import { DeadlineQueue } from "./request-queue.js";
import type { CallOptions, ProgressInfo } from "../shared/call-options.js";

/** What a call's result goes through before its promise settles (tools/call: a task or the result), in the same step. */
export type ResultStep = (result: JsonObject, options: CallOptions) => JsonObject | PromiseLike<JsonObject>;

/** What few calls have (a queue ticket, a result step, an abort listener, progress, a total cap): kept apart, so that the usual call is a smaller object. */
interface RareParts {
  ticket: number | undefined;
  step: ResultStep | undefined;
  options: CallOptions | undefined;
  cleanup: (() => void) | undefined;
  onProgress: ((progress: ProgressInfo) => void) | undefined;
  totalMs: number | undefined;
}

/** One call awaiting its answer. */
export class PendingCall {
  /** The engine's id for it, once sent. */
  sentId: number | undefined = undefined;
  resolve: (result: JsonObject | PromiseLike<JsonObject>) => void = ignore;
  reject: (error: Error) => void = ignore;
  /**
   * What few calls have (RareParts), or, for a call whose only rarity is a result step taken
   * without options (every callTool without options), that step itself: no RareParts then.
   */
  private rare: RareParts | ResultStep | undefined = undefined;

  constructor(
    readonly method: string,
    onProgress: ((progress: ProgressInfo) => void) | undefined,
    readonly timeoutMs: number | undefined,
    totalMs: number | undefined,
  ) {
    if (onProgress !== undefined || totalMs !== undefined) {
      const rare = this.parts();
      rare.onProgress = onProgress;
      rare.totalMs = totalMs;
    }
  }

  private parts(): RareParts {
    const rare = this.rare;
    if (rare !== undefined && typeof rare !== "function") return rare;
    const parts: RareParts = {
      ticket: undefined,
      step: rare,
      options: rare === undefined ? undefined : NO_CALL_OPTIONS,
      cleanup: undefined,
      onProgress: undefined,
      totalMs: undefined,
    };
    this.rare = parts;
    return parts;
  }

  /** The RareParts, when the call has them. */
  private get some(): RareParts | undefined {
    const rare = this.rare;
    return typeof rare === "function" ? undefined : rare;
  }

  get onProgress(): ((progress: ProgressInfo) => void) | undefined {
    return this.some?.onProgress;
  }

  get totalMs(): number | undefined {
    return this.some?.totalMs;
  }

  /** Its ticket in the queue while it waits for room under maxPendingOutbound. */
  get ticket(): number | undefined {
    return this.some?.ticket;
  }

  set ticket(ticket: number | undefined) {
    if (ticket !== undefined || this.some !== undefined) this.parts().ticket = ticket;
  }

  /** Removes the abort listener; undefined without a signal. */
  get cleanup(): (() => void) | undefined {
    return this.some?.cleanup;
  }

  set cleanup(cleanup: (() => void) | undefined) {
    if (cleanup !== undefined || this.some !== undefined) this.parts().cleanup = cleanup;
  }

  /** Applies `step` to the result (with the call's options) before the promise settles. */
  setStep(step: ResultStep, options: CallOptions): void {
    if (this.rare === undefined && options === NO_CALL_OPTIONS) {
      this.rare = step;
      return;
    }
    const rare = this.parts();
    rare.step = step;
    rare.options = options;
  }

  /** The answer arrived: through the step when the call has one (a throw rejects), else as it came. */
  complete(result: JsonObject): void {
    const rare = this.rare;
    const step = typeof rare === "function" ? rare : rare?.step;
    if (step === undefined) {
      this.resolve(result);
      return;
    }
    try {
      this.resolve(step(result, typeof rare === "function" ? NO_CALL_OPTIONS : (rare?.options as CallOptions)));
    } catch (error) {
      this.reject(error instanceof Error ? error : new Error(errorMessage(error)));
    }
  }
}

function ignore(): void {
  // Replaced by the promise's own resolvers as soon as the call is made.
}

/** The options of a call made without any: one shared object, so that a call without options allocates none. */
export const NO_CALL_OPTIONS: CallOptions = Object.freeze({});

/** The call whose promise is being made: `capture` (one function for every call) hands it the promise's resolvers, so no executor closure is made per call. */
let capturing: PendingCall | undefined;

function capture(resolve: (result: JsonObject | PromiseLike<JsonObject>) => void, reject: (error: Error) => void): void {
  const call = capturing as PendingCall;
  call.resolve = resolve;
  call.reject = reject;
}

/**
 * The engine options of a call sent at once (not queued): one object reused by every such
 * call, since Engine.request reads its options during the call and keeps none of them.
 */
const SCRATCH_OPTIONS: { -readonly [K in keyof RequestOptions]: RequestOptions[K] } = {
  deadline: undefined,
  totalDeadline: undefined,
  resetOnProgressMs: undefined,
  progressToken: undefined,
};

/** A request past maxPendingOutbound, waiting for an answer to make room; its deadlines run from the call. */
interface QueuedRequest {
  readonly method: string;
  readonly params: JsonObject | undefined;
  readonly engineOptions: RequestOptions;
  readonly call: PendingCall;
}

/** What the calls need of their Client (whose engine a fallback may replace). */
export interface CallsOwner {
  readonly engine: Engine<"client">;
  readonly driver: Driver<"client">;
}

export interface CallsOptions {
  readonly host: PeerHost;
  readonly defaultTimeoutMs: number;
  readonly maxJsonDepth: number;
  readonly maxPendingOutbound: number | undefined;
}

export class OutgoingCalls {
  /** Sent calls by the engine's id (an IdTable: a Map that empties and refills with every call allocates each time). */
  readonly pending = new IdTable<PendingCall>();
  /**
   * Requests past the engine's maxPendingOutbound, in call order (FIFO, with O(1) removal on
   * abort or expiry). Released one per answer.
   */
  readonly queued = new DeadlineQueue<QueuedRequest>();
  /**
   * The inactivity deadlines of sent calls made with the default timeout (and no other timing
   * option), in sending order: kept here instead of in the engine, handed to it when they pass
   * (default-deadlines.ts).
   */
  private readonly defaults = new DeadlineRing<PendingCall>((call) => call.sentId !== undefined && this.pending.get(call.sentId) === call);
  private readonly maxPendingOutbound: number;

  constructor(
    private readonly owner: CallsOwner,
    private readonly options: CallsOptions,
  ) {
    this.maxPendingOutbound = options.maxPendingOutbound ?? DEFAULT_LIMITS.maxPendingOutbound;
  }

  /** Sends a request; the promise settles with its result or one of the errors of CallOptions. */
  send(method: string, params: object | undefined, options: CallOptions, then?: ResultStep, fresh = false): Promise<JsonObject> {
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(new RequestAbortedError(method, signal.reason));
    const engine = this.owner.engine;
    // A request on a closed session (the peer went away, or close()) settles like those that were pending.
    if (engine.isClosed) return Promise.reject(new ConnectionClosedError(method, "the session is closed"));
    // Encoded later, in a drain: a value JSON cannot encode is refused here, where the caller learns of it.
    // `fresh`: the params object was made for this call (callTool's); only its members are the caller's, and only they are copied.
    const copy =
      params === undefined
        ? undefined
        : fresh
          ? copyMembers(params as JsonObject, this.options.maxJsonDepth)
          : copyJson(params, this.options.maxJsonDepth);
    if (copy instanceof NotJson) return Promise.reject(unencodable(method, "params", copy.reason));
    const sendParams = copy as JsonObject | undefined;
    const now = this.options.host.now();
    const timeoutMs = options.timeoutMs ?? this.options.defaultTimeoutMs;
    const call = new PendingCall(method, options.onProgress, timeoutMs, options.maxTotalMs);
    if (then !== undefined) call.setStep(then, options);
    capturing = call;
    const promise = new Promise<JsonObject>(capture);
    capturing = undefined;
    if (signal !== undefined) this.listen(call, signal);
    // The engine holds at most maxPendingOutbound requests in flight; the rest wait here, in order.
    const queue = this.queued.size > 0 || engine.pendingOutboundCount >= this.maxPendingOutbound;
    const engineOptions = queue ? {} : SCRATCH_OPTIONS;
    const deadline = Number.isFinite(timeoutMs) ? now + timeoutMs : undefined;
    // The default timeout alone: the deadline waits in the ring, not in the engine (see `defaults`).
    const ringed =
      !queue &&
      deadline !== undefined &&
      options.timeoutMs === undefined &&
      options.maxTotalMs === undefined &&
      options.resetTimeoutOnProgress !== true &&
      this.defaults.accepts(deadline);
    engineOptions.deadline = ringed ? undefined : deadline;
    engineOptions.totalDeadline = options.maxTotalMs !== undefined ? now + options.maxTotalMs : undefined;
    engineOptions.resetOnProgressMs = options.resetTimeoutOnProgress === true && Number.isFinite(timeoutMs) ? timeoutMs : undefined;
    // A server can only heartbeat through progress if the request carries a token.
    engineOptions.progressToken = options.onProgress !== undefined || options.resetTimeoutOnProgress === true ? true : undefined;
    if (queue) {
      const expiry = Math.min(engineOptions.deadline ?? Infinity, engineOptions.totalDeadline ?? Infinity);
      call.ticket = this.queued.push({ method, params: sendParams, engineOptions, call }, expiry);
      this.owner.driver.pump();
      return promise;
    }
    this.dispatch(method, sendParams, engineOptions, call);
    if (ringed && call.sentId !== undefined) this.defaults.push(call, deadline);
    return promise;
  }

  /** The earliest deadline kept in the ring, or undefined. */
  nextDefaultDeadline(): number | undefined {
    return this.defaults.next();
  }

  /**
   * The ring's deadlines that passed go to the engine, unchanged, before it expires its own
   * (Driver.onTimer runs the layer's timers first): it times them out as it would have had it
   * held them from the start, in id order with its own.
   */
  handOverDefaults(now: number): void {
    this.defaults.takeDue(now, this.handOver);
  }

  /** Made once: handOverDefaults allocates no closure. */
  private readonly handOver = (call: PendingCall, deadline: number): void => {
    try {
      this.owner.engine.setDeadline(call.sentId as number, deadline);
    } catch {
      // A closed engine, or not the current engine's request (replaced after the modern probe): as before, no timeout then.
    }
  };

  /** Aborting the signal rejects the call (and cancels it at the server once sent). */
  private listen(call: PendingCall, signal: NonNullable<CallOptions["signal"]>): void {
    const onAbort = (): void => {
      if (call.ticket !== undefined) {
        this.queued.remove(call.ticket);
        call.ticket = undefined;
        call.cleanup?.();
        call.reject(new RequestAbortedError(call.method, signal.reason));
        this.owner.driver.pump();
        return;
      }
      const id = call.sentId;
      if (id === undefined || this.pending.get(id) !== call) return;
      this.settle(id);
      const engine = this.owner.engine;
      if (!engine.isClosed) engine.cancel(id, typeof signal.reason === "string" ? signal.reason : "aborted");
      call.reject(new RequestAbortedError(call.method, signal.reason));
      this.owner.driver.pump();
      this.release();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    call.cleanup = () => signal.removeEventListener("abort", onAbort);
  }

  /** Hands a request to the engine; a refusal rejects the call. */
  private dispatch(method: string, params: JsonObject | undefined, engineOptions: RequestOptions, call: PendingCall): void {
    let id: number;
    try {
      id = this.owner.engine.request(method, params, engineOptions);
    } catch (error) {
      call.cleanup?.();
      call.reject(localFailure(error, method));
      return;
    }
    call.sentId = id;
    this.pending.set(id, call);
    // Requests made in one synchronous run leave together, in one write.
    this.owner.driver.pumpSoon();
  }

  /** Removes the sent call of `id` (answered, timed out, closed) and returns it, or undefined when it is no longer pending. */
  settle(id: number): PendingCall | undefined {
    const call = this.pending.get(id);
    if (call === undefined) return undefined;
    this.pending.delete(id);
    call.cleanup?.();
    return call;
  }

  /** Sends queued requests, oldest first, while the engine has room. */
  release(): void {
    const engine = this.owner.engine;
    while (this.queued.size > 0 && engine.pendingOutboundCount < this.maxPendingOutbound && !engine.isClosed) {
      const entry = this.queued.shift() as QueuedRequest;
      entry.call.ticket = undefined;
      this.dispatch(entry.method, entry.params, entry.engineOptions, entry.call);
    }
  }

  /** Queued requests whose deadline passed fail as a sent one would: RequestTimeoutError. */
  expire(now: number): void {
    for (const { method, engineOptions, call } of this.queued.takeExpired(now)) {
      call.ticket = undefined;
      call.cleanup?.();
      const total =
        engineOptions.totalDeadline !== undefined &&
        engineOptions.totalDeadline <= now &&
        (engineOptions.deadline === undefined || engineOptions.totalDeadline <= engineOptions.deadline);
      call.reject(new RequestTimeoutError(method, "(queued)", total ? "total" : "inactivity", total ? call.totalMs : call.timeoutMs));
    }
  }

  /** The connection closed: every sent and queued call rejects with ConnectionClosedError. */
  closeAll(detail: string | undefined): void {
    this.defaults.clear();
    for (const id of this.pending.collectKeys([])) {
      const call = this.settle(id as number);
      call?.reject(new ConnectionClosedError(call.method, detail));
    }
    for (const { method, call } of this.queued.clear()) {
      call.ticket = undefined;
      call.cleanup?.();
      call.reject(new ConnectionClosedError(method, detail));
    }
  }
}
