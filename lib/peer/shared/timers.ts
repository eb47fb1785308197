// The clock and timers a host injects into the portable layers that wait (the HTTP client
// transport, the HTTP handler's sessions and streams, the stores): nothing under lib/ but the
// hosts reads a clock or starts a timer itself. Types only.

/** The clock and timers, injected: the portable layers read no clock. */
export interface HttpTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}
