// The one timer of a Node host (PeerHost.armTimer), armed for real only when the wanted time
// moves earlier. The driver asks for its earliest deadline after every change: one request at
// a time with the default timeout arms and disarms once per request, and a setTimeout plus a
// clearTimeout per request is a measurable part of a round trip. So a later or cleared
// deadline keeps the timer already running; when it fires early it is set again for what is
// wanted then, or does nothing when nothing is.
//
// Invariants: onTimer runs only at or after the wanted time, and never when nothing is
// wanted; a timer left running while nothing is wanted is unref'd, so it keeps no process
// alive (a wanted one keeps it alive, as a pending request's timeout should).

/** What a timer handle must offer (Node's Timeout does). */
export interface TimerHandle {
  ref(): unknown;
  unref(): unknown;
}

/** The runtime's timers; tests pass their own. */
export interface TimerFunctions {
  set(callback: () => void, ms: number): TimerHandle;
  clear(handle: TimerHandle): void;
}

const NODE_TIMERS: TimerFunctions = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class TimerSlot {
  private timer: TimerHandle | undefined = undefined;
  /** When the running timer fires (same clock as now()). */
  private firesAt = Infinity;
  private wanted: number | undefined = undefined;

  constructor(
    private readonly now: () => number,
    private readonly onTimer: () => void,
    private readonly timers: TimerFunctions = NODE_TIMERS,
  ) {}

  /** Wants onTimer at `at` (absolute, the clock of now()); undefined: not at all. */
  arm(at: number | undefined): void {
    this.wanted = at;
    if (at === undefined) {
      this.timer?.unref();
      return;
    }
    if (this.timer !== undefined && this.firesAt <= at) {
      this.timer.ref();
      return;
    }
    this.set(at);
  }

  private set(at: number): void {
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.firesAt = at;
    this.timer = this.timers.set(this.fired, Math.max(0, Math.ceil(at - this.now())));
  }

  private readonly fired = (): void => {
    this.timer = undefined;
    this.firesAt = Infinity;
    const wanted = this.wanted;
    if (wanted === undefined) return;
    // Fired for an earlier deadline that went away: wait on for the one wanted now.
    if (wanted > this.now()) {
      this.set(wanted);
      return;
    }
    this.wanted = undefined;
    this.onTimer();
  };
}
