// Simulated time for the asynchronous fuzz targets: a clock whose timers fire only when the
// episode advances it, and `settle()`, which lets every promise chain run to its next wait.
// The HTTP handler gets the "handler" group of timers (HttpTimers); the fixture's own waits
// (a slow tool) use the "fixture" group, so the oracle can count the handler's alone.
//
// Invariants: no real clock is read and no real timer is set (setImmediate only yields the
// turn, never waits), so an episode replays from its seed; timers due at the same instant fire
// in the order they were set; advance() reports a storm (more than MAX_AT_ONCE timers firing at
// one instant: a zero-delay loop) or more than MAX_FIRINGS timers in one advance.

import type { HttpTimers } from "../../lib/peer/shared/timers.js";

/** Lets every queued microtask (and the promise chains they start) run: one event-loop turn. */
export function settle(turns = 1): Promise<void> {
  let p = new Promise<void>((resolve) => setImmediate(resolve));
  for (let i = 1; i < turns; i++) p = p.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  return p;
}

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly group: "handler" | "fixture";
  readonly fn: () => void;
}

const MAX_AT_ONCE = 1000;
const MAX_FIRINGS = 1_000_000;

export class SimClock {
  time = 0;
  private seq = 0;
  private readonly timers = new Map<number, Timer>();
  /** Errors thrown by timer callbacks (a handler's timer must not throw). */
  readonly thrown: unknown[] = [];

  /** The HttpTimers the handler under test receives. */
  readonly handlerTimers: HttpTimers = {
    now: () => this.time,
    setTimeout: (fn, ms) => this.set("handler", fn, ms),
    clearTimeout: (handle) => {
      if (typeof handle === "number") this.timers.delete(handle);
    },
  };

  /** Timers set by the handler (or by the fixture) and not yet fired or cleared. */
  pending(group: "handler" | "fixture"): number {
    let n = 0;
    for (const t of this.timers.values()) if (t.group === group) n++;
    return n;
  }

  /** A wait of the fixture's (a slow tool), resolved when simulated time reaches it or `signal` aborts. */
  sleep(ms: number, signal?: { readonly aborted: boolean; addEventListener(type: "abort", listener: () => void): void }): Promise<void> {
    return new Promise<void>((resolve) => {
      const id = this.set("fixture", resolve, ms);
      if (signal === undefined) return;
      if (signal.aborted) {
        this.timers.delete(id);
        resolve();
        return;
      }
      signal.addEventListener("abort", () => {
        this.timers.delete(id);
        resolve();
      });
    });
  }

  private set(group: "handler" | "fixture", fn: () => void, ms: number): number {
    const id = ++this.seq;
    const delay = typeof ms === "number" && Number.isFinite(ms) && ms > 0 ? ms : 0;
    this.timers.set(id, { at: this.time + delay, seq: id, group, fn });
    return id;
  }

  /** Moves time forward by `ms`, firing due timers in order and settling after each; false on a storm (see above). */
  async advance(ms: number): Promise<boolean> {
    const target = this.time + ms;
    let atOnce = 0;
    for (let fired = 0; fired < MAX_FIRINGS && atOnce < MAX_AT_ONCE; fired++) {
      let next: [number, Timer] | undefined;
      for (const entry of this.timers) {
        const t = entry[1];
        if (t.at <= target && (next === undefined || t.at < next[1].at || (t.at === next[1].at && t.seq < next[1].seq))) next = entry;
      }
      if (next === undefined) {
        this.time = target;
        return true;
      }
      this.timers.delete(next[0]);
      atOnce = next[1].at <= this.time ? atOnce + 1 : 0;
      this.time = Math.max(this.time, next[1].at);
      try {
        next[1].fn();
      } catch (error) {
        this.thrown.push(error);
      }
      await settle();
    }
    return false;
  }
}
