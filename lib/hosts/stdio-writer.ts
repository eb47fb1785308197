// The stdio hosts' writer (lib/hosts/stdio.ts): what the driver hands over leaves in as few
// writes as the timing allows, and no later than it must.
//
// Invariants:
// - bytes leave in the order they were handed over, each byte once;
// - the writes a read causes (the answers to a chunk of requests, handled in that read's
//   synchronous run) leave as one buffer when the read's dispatch returns: no microtask, no
//   tick, nothing scheduled on the hot path of a synchronous answer;
// - outside a read (an answer resolved in a promise, a request the caller made, a timer), the
//   first write of a tick leaves at once, and those after it in the same tick (microtasks and
//   promise chains of any length included) are gathered and leave as one buffer when the
//   tick's work is done: N answers resolved together take two writes, not N;
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

export function coalescedWriter(sink: (bytes: Uint8Array) => void): CoalescedWriter {
  let gathered: Uint8Array[] = [];
  /** Inside during(): writes are held until it returns. */
  let holding = false;
  /** A write left at once this tick: later ones gather until the tick's end (close). */
  let open = false;
  const send = (bytes: Uint8Array): void => {
    try {
      sink(bytes);
    } catch {
      // See the file comment: the stream's "error" event ends the session.
    }
  };
  const flush = (): void => {
    if (gathered.length === 0) return;
    const parts = gathered;
    gathered = [];
    send(parts.length === 1 ? parts[0]! : concatBytes(parts));
  };
  const close = (): void => {
    open = false;
    flush();
  };
  // A microtask queued at the first write queues a nextTick, which Node runs only once the
  // microtask queue is empty: answers resolved in promise chains of any length still gather.
  const closeAtTickEnd = (): void => void process.nextTick(close);
  return {
    write(bytes) {
      if (holding || open) {
        gathered.push(bytes);
        return;
      }
      open = true;
      void RESOLVED.then(closeAtTickEnd);
      send(bytes);
    },
    flush,
    during(step, arg) {
      if (holding) return step(arg);
      holding = true;
      try {
        step(arg);
      } finally {
        holding = false;
        // Everything gathered so far is older than what a later write brings: it may all leave now.
        flush();
      }
    },
  };
}
