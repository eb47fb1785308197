// Running the handlers of a peer's requests, on either side: at most maxConcurrent at once,
// the rest waiting their turn in arrival order, each answered exactly once.
//
// Invariants:
// - a request is answered exactly once, with its handler's result or error, unless the peer
//   cancelled it or the session closed meanwhile; a result or error the engine refuses, or
//   one JSON cannot encode (BigInt, cycle, throwing getter, nesting past maxJsonDepth), is
//   answered -32603 instead: never left unanswered, never thrown into a later drain;
// - past maxConcurrent, requests wait in a FIFO queue; the queue is bounded by the engine's
//   maxPendingInbound (a waiting request is still pending there); a request cancelled while
//   waiting is removed without running;
// - a handler that returns a value (not a promise) is answered in the same turn; only a
//   promise costs a promise reaction; a request's abort signal is made only if it is read;
// - nothing here rejects unhandled or throws into a promise reaction: what escapes every
//   other guard goes to onFault.

import type { Driver } from "./driver.js";
import type { Engine } from "../../engine/engine.js";
import type { RequestId } from "../../wire/envelope.js";
import { ErrorCode } from "../../wire/errors.js";
import { IdTable } from "../../engine/idtable.js";
import { McpError } from "./errors.js";
import { describeThrown, encodesAsIs, toJsonSafe } from "./json-safe.js";
import { PeerAbortController, type PlatformAbortSignal } from "./signal.js";

type AnyEngine = Engine<"client"> | Engine<"server">;
type AnyDriver = Driver<"client"> | Driver<"server">;

export interface HandlerPoolOptions {
  /** Handlers running at once; more wait in arrival order. */
  readonly maxConcurrent: number;
  /** The deepest result or error data sent (see json-safe.ts). */
  readonly maxJsonDepth: number;
  /** What escaped every guard (a bug of ours, or of the engine): reported, never thrown. */
  readonly onFault: (error: unknown, where: string) => void;
}

/**
 * One peer request's handler run: what the pool starts, answers and aborts. The abort state
 * lives here and the AbortSignal is made only when something reads `signal` (most handlers
 * never do, and a runtime AbortSignal costs more than the rest of a request). A server's
 * request context is its own job (context.ts), so a request allocates one object.
 */
export abstract class HandlerJob {
  /** Made when the signal is read or the job is aborted, whichever comes first (one field: most jobs need neither). */
  private abortState: { aborted: boolean; reason: unknown; controller: PeerAbortController | undefined } | undefined = undefined;

  /** The engine that answers it (a server's request context reads its session's rather than keep a copy). */
  abstract readonly engine: AnyEngine;
  abstract readonly driver: AnyDriver;

  /** Runs the handler; a value or a promise of one. */
  abstract work(): object | Promise<object>;
  /** Answers what the handler threw (it may throw itself: answered -32603 then). */
  abstract fail(error: unknown): void;

  /** Aborted when the peer cancels the request or the session closes. */
  get signal(): PlatformAbortSignal {
    const state = (this.abortState ??= { aborted: false, reason: undefined, controller: undefined });
    if (state.controller === undefined) {
      state.controller = new PeerAbortController();
      if (state.aborted) state.controller.abort(state.reason);
    }
    return state.controller.signal;
  }

  /** True once the peer cancelled the request or the session closed. */
  get isAborted(): boolean {
    return this.abortState?.aborted === true;
  }

  /** @internal */
  abortJob(reason: unknown): void {
    const state = (this.abortState ??= { aborted: false, reason: undefined, controller: undefined });
    if (state.aborted) return;
    state.aborted = true;
    state.reason = reason;
    state.controller?.abort(reason);
  }
}

/** The work run() starts: the job's own. */
function workOf(_arg: undefined, job: HandlerJob): object | Promise<object> {
  return job.work();
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}

export class HandlerPool {
  /** By id: an IdTable, not a Map, which would allocate as it empties and refills with every request. */
  private readonly running = new IdTable<HandlerJob>();
  /** Insertion order is arrival order: the Map is the FIFO queue, and a cancel removes in O(1). */
  private readonly waiting = new Map<RequestId, HandlerJob>();

  constructor(private readonly options: HandlerPoolOptions) {}

  get runningCount(): number {
    return this.running.size;
  }

  get waitingCount(): number {
    return this.waiting.size;
  }

  /** True while `job` is the handler now running for `id`, not aborted. */
  isCurrent(id: RequestId, job: HandlerJob): boolean {
    return this.running.get(id) === job && !job.isAborted;
  }

  /**
   * Runs the handler of peer request `id` now, or when a slot frees. A handler that returns
   * a value (not a promise) is answered in the same turn, before run() returns.
   */
  run(id: RequestId, job: HandlerJob): void {
    if (this.running.size >= this.options.maxConcurrent) {
      this.waiting.delete(id);
      this.waiting.set(id, job);
      return;
    }
    this.start(id, job);
  }

  /** The peer cancelled `id`: a running handler's signal aborts; a waiting one is dropped unrun. */
  cancel(id: RequestId, reason: unknown): void {
    if (this.waiting.delete(id)) return;
    this.running.get(id)?.abortJob(reason);
  }

  /** The session closed: every running handler's signal aborts, and nothing waiting will run. */
  closeAll(reason: string): void {
    this.waiting.clear();
    const jobs = this.running.collect([]);
    this.running.clear();
    for (const job of jobs) job.abortJob(reason);
  }

  /** True when a request run now would start at once: a free slot, and none waiting before it. */
  get hasRoom(): boolean {
    return this.waiting.size === 0 && this.running.size < this.options.maxConcurrent;
  }

  /**
   * Starts `job` at once with `work(arg, job)` as its handler run instead of job.work(), for a
   * caller that checked hasRoom and knows what the job's work() would dispatch to (a plain
   * tools/call, lib/peer/server/session.ts): each call on the way costs when the caches are cold, as they are
   * when a server wakes for one request. Answered, aborted and counted as run() does.
   */
  runNow<T, J extends HandlerJob>(id: RequestId, job: J, work: (arg: T, job: J) => object | Promise<object>, arg: T): void {
    this.running.set(id, job);
    let outcome: object | Promise<object>;
    try {
      outcome = work(arg, job);
    } catch (error) {
      this.thrown(id, job, error);
      return;
    }
    if (!isThenable(outcome)) {
      // A synchronous answer goes out in this turn: no promise, no microtask.
      try {
        this.finish(id, job, true, outcome);
      } catch (error) {
        this.options.onFault(error, "handler answer");
      }
      return;
    }
    this.later(id, job, outcome as PromiseLike<object>);
  }

  private start(id: RequestId, job: HandlerJob): void {
    this.runNow(id, job, workOf, undefined);
  }

  /** A handler's promise, answered when it settles (a method of its own: its closures would make every start() allocate a context, synchronous answers included). */
  private later(id: RequestId, job: HandlerJob, outcome: PromiseLike<object>): void {
    Promise.resolve(outcome)
      .then(
        (result) => this.finish(id, job, true, result),
        (error: unknown) => this.finish(id, job, false, error),
      )
      .catch((error: unknown) => this.options.onFault(error, "handler answer"));
  }

  private finish(id: RequestId, job: HandlerJob, ok: boolean, value: unknown): void {
    if (this.running.get(id) !== job) return;
    this.running.delete(id);
    try {
      if (!job.isAborted && !job.engine.isClosed) this.answerOnce(id, job, ok, value);
    } finally {
      job.driver.pump();
      this.next();
    }
  }

  /** Answers once; if that throws before anything was queued, answers -32603 instead. */
  private answerOnce(id: RequestId, job: HandlerJob, ok: boolean, value: unknown): void {
    try {
      if (ok) respondSafely(job.engine, id, value, this.options.maxJsonDepth, job.driver.engineEncodes);
      else job.fail(value);
    } catch (error) {
      this.options.onFault(error, "answer");
      this.fallback(id, job);
    }
  }

  // The two below hold the closures of start() and answerOnce(): in those, a closure would make every request allocate their context.

  private thrown(id: RequestId, job: HandlerJob, error: unknown): void {
    this.guarded("handler error", () => this.finish(id, job, false, error));
  }

  private fallback(id: RequestId, job: HandlerJob): void {
    this.guarded("fallback answer", () =>
      job.engine.respondError(id, ErrorCode.InternalError, "Internal error while answering the request"),
    );
  }

  /** Starts waiting requests while slots are free, oldest first. */
  private next(): void {
    while (this.waiting.size > 0 && this.running.size < this.options.maxConcurrent) {
      const first = this.waiting.entries().next();
      if (first.done === true) return;
      const [id, job] = first.value;
      this.waiting.delete(id);
      // Answered meanwhile by the engine (closed, timed out on its side): nothing to run.
      if (job.engine.isClosed) continue;
      this.start(id, job);
    }
  }

  private guarded(where: string, step: () => void): void {
    try {
      step();
    } catch (error) {
      this.options.onFault(error, where);
    }
  }
}

/**
 * Answers `result` as it would encode, or -32603 saying why it cannot be sent. On a stream
 * host (`engineEncodes`), plain data (encodesAsIs: the usual result) is handed to the engine
 * as it is, without a copy: the answer is encoded in this same synchronous run (the pool pumps
 * right after answering), and should a getter change its mind in between, the engine refuses
 * that one answer as -32603 (ENG-09) rather than losing the drain. Anything else, and every
 * result for a message host (which encodes it itself), is copied by toJsonSafe first.
 */
export function respondSafely(engine: AnyEngine, id: RequestId, result: unknown, maxJsonDepth: number, engineEncodes = false): void {
  let value = result;
  if (!engineEncodes || !encodesAsIs(result, maxJsonDepth)) {
    const safe = toJsonSafe(result, maxJsonDepth);
    if (!safe.ok) {
      engine.respondError(id, ErrorCode.InternalError, `The handler's result cannot be sent as JSON: ${safe.reason}`);
      return;
    }
    value = safe.value;
  }
  try {
    engine.respond(id, value as object);
  } catch (error) {
    engine.respondError(id, ErrorCode.InternalError, errorMessage(error));
  }
}

/** A message without stack traces or internals (O-05); never throws, even for a throwing `message` getter. */
export function errorMessage(error: unknown): string {
  if (error instanceof McpError) return error.message.replace(/^MCP error -?\d+: /, "");
  const text = describeThrown(error);
  return text === "a non-Error value" ? "internal error" : text;
}

/**
 * Answers a peer request with what a handler threw: an McpError's code, message and data,
 * anything else as -32603 with its message. An McpError the protocol refuses here (a
 * reserved code whose data does not fit, a non-integer code, data JSON cannot encode) is
 * answered -32603 too, so the request is never left unanswered.
 */
export function respondWithError(engine: AnyEngine, id: RequestId, error: unknown, maxJsonDepth?: number): void {
  if (error instanceof McpError) {
    const data = error.data === undefined ? { ok: true as const, value: undefined } : toJsonSafe(error.data, maxJsonDepth);
    if (data.ok) {
      try {
        engine.respondError(id, error.code, errorMessage(error), data.value);
        return;
      } catch {
        // Refused by a protocol rule before anything was queued: answered below instead.
      }
    }
  }
  engine.respondError(id, ErrorCode.InternalError, errorMessage(error));
}

/** Runs a caller's callback; what it throws is its own business and must not stop the driver's loop. */
export function shielded(callback: () => void): void {
  try {
    callback();
  } catch {
    // Swallowed like a throwing abort listener (signal.ts): the events after it still go out.
  }
}
