// The stdio hosts' writer (lib/hosts/stdio.ts): what the driver hands over leaves in as few
// writes as the timing allows, and no later than it must.
//
// Invariants:
// - bytes leave in the order they were handed over, each byte once;
// - the writes a read causes (the answers to a chunk of requests, handled in that read's
//   synchronous run) leave as one buffer when the read's dispatch returns: no microtask, no
//   tick, nothing scheduled on the hot path of a synchronous answer;
// - outside a read (an answer resolved in a promise, a request the caller made, a timer), the
//   first write since the last read (or the last gathered write) leaves at once, with nothing
//   scheduled; one after it is gathered with the rest of its tick (microtasks and promise
//   chains of any length included), and they leave as one buffer when the tick's work is
//   done: N answers resolved together take one or two writes, not N;
// - a sink that throws does not escape (it would be an uncaught exception outside the driver's
//   guard); the stream says so through its "error" event, which ends the session.

import { concatBytes } from "./bytes.js";

export interface CoalescedWriter {
  /** Takes bytes to write. The engine never rewrites bytes it handed out, so holding them is safe. */
  write(bytes: Uint8Array): void;
  /** Writes what is gathered now (before an end of the stream). */
  flush(): void;
  /**
   * Runs `step(arg)` (the dispatch of a read) with the writes it makes held, then writes them
   * at once as one buffer. Re-entrant: a nested call runs inside the outer one. (The argument
   * is passed through so that a read needs no closure of its own.)
   */
  during<T>(step: (arg: T) => void, arg: T): void;
}

/** Settled once: `RESOLVED.then(task)` is a microtask without the async resource queueMicrotask creates per call. */
const RESOLVED: Promise<void> = Promise.resolve();

/** `ofRead`: the bytes are those a read's dispatch wrote (during()), the peer's doing; false for any other write. */
export function coalescedWriter(sink: (bytes: Uint8Array, ofRead: boolean) => void): CoalescedWriter {
  let gathered: Uint8Array[] = [];
  /** Inside during(): writes are held until it returns. */
  let holding = false;
  /**
   * Bytes left at once since the last read or the last tick's end: a write now is gathered
   * instead (until the tick's end). Gathered bytes exist only while this is true or while
   * holding, so a write that leaves at once never overtakes any.
   */
  let wrote = false;
  let scheduled = false;
  const send = (bytes: Uint8Array, ofRead: boolean): void => {
    try {
      sink(bytes, ofRead);
    } catch {
      // See the file comment: the stream's "error" event ends the session.
    }
  };
  const flushGathered = (ofRead: boolean): void => {
    if (gathered.length === 0) return;
    const parts = gathered;
    gathered = [];
    send(parts.length === 1 ? parts[0]! : concatBytes(parts), ofRead);
  };
  const flush = (): void => flushGathered(false);
  const close = (): void => {
    scheduled = false;
    wrote = false;
    flush();
  };
  // A microtask queued at the first gathered write queues a nextTick, which Node runs only once
  // the microtask queue is empty: answers resolved in promise chains of any length still join.
  const closeAtTickEnd = (): void => void process.nextTick(close);
  return {
    write(bytes) {
      if (holding) {
        gathered.push(bytes);
        return;
      }
      if (!wrote) {
        // The common case (one write between two reads): out now, nothing scheduled.
        wrote = true;
        send(bytes, false);
        return;
      }
      gathered.push(bytes);
      if (scheduled) return;
      scheduled = true;
      void RESOLVED.then(closeAtTickEnd);
    },
    flush,
    during(step, arg) {
      if (holding) return step(arg);
      holding = true;
      try {
        step(arg);
      } finally {
        holding = false;
        // A read that wrote counts as its tick's write: later ones of the tick gather.
        wrote = gathered.length > 0;
        flushGathered(true);
      }
    },
  };
}

/** What pacedSink writes to: a Node writable stream, as far as flow control goes. */
export interface PacedOutput {
  write(bytes: Uint8Array): boolean;
  once(event: "drain", listener: () => void): unknown;
}

/** What pacedSink pauses: the stream whose data makes the writes (the peer's requests). */
export interface PacedInput {
  pause(): unknown;
  resume(): unknown;
}

/**
 * A sink for coalescedWriter with backpressure: when `output` takes no more (write returns
 * false), `input` is paused until it drains, so a peer that stops reading stops being read
 * and nothing piles up here. One drain listener at a time, however many writes are refused
 * meanwhile (the bytes of a read already under way still arrive after the pause).
 */
export function pacedSink(output: PacedOutput, input: () => PacedInput): (bytes: Uint8Array) => void {
  let waiting = false;
  const resume = (): void => {
    waiting = false;
    input().resume();
  };
  return (bytes) => {
    if (output.write(bytes) || waiting) return;
    waiting = true;
    input().pause();
    output.once("drain", resume);
  };
}

/** What answerPacedSink writes to: a Node writable stream, whose callback says when a chunk left. */
export interface CallbackOutput {
  write(bytes: Uint8Array, callback: (error?: Error | null) => void): boolean;
}

/**
 * A client's sink for coalescedWriter (StdioClient): a write is never a reason to stop reading,
 * except when the server leaves our answers to its own requests unread. A client that paused
 * reading whenever its requests could not all be written at once, against a server that pauses
 * reading while its answers cannot be written (serveStdio, pacedSink), would wait on the server
 * while the server waits on it: 30,000 calls of 250 bytes made together never finished. The
 * caller bounds its own requests; what the server makes us write (`caused`: written by the
 * dispatch of a read of its bytes, coalescedWriter's `ofRead`) is counted until the stream has taken it, and past `maxUnreadBytes` the
 * input pauses until the count falls back under it.
 */
export function answerPacedSink(
  output: CallbackOutput,
  input: () => PacedInput,
  maxUnreadBytes: number,
): (bytes: Uint8Array, caused: boolean) => void {
  let unread = 0;
  let paused = false;
  return (bytes, caused) => {
    if (!caused) {
      output.write(bytes, ignoreWriteOutcome);
      return;
    }
    const length = bytes.length;
    unread += length;
    output.write(bytes, () => {
      unread -= length;
      if (paused && unread <= maxUnreadBytes) {
        paused = false;
        input().resume();
      }
    });
    if (!paused && unread > maxUnreadBytes) {
      paused = true;
      input().pause();
    }
  };
}

/** A write's outcome is the stream's to report (its "error" event ends the session). */
function ignoreWriteOutcome(): void {
  // Nothing to count for the caller's own requests.
}
