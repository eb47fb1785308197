import type { HttpTimers } from "../../peer/shared/timers.js";
// The runtime pieces the portable HTTP endpoint takes from its host, as every web-standard
// runtime (Node, Deno, Bun, Workers, browsers) provides them globally: the clock (epoch ms),
// timers that do not keep a process alive on their own, and where unreportable errors go.
// No `node:` import: this host runs anywhere the fetch handler does.

interface RuntimeGlobals {
  performance?: { now(): number; readonly timeOrigin?: number };
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  Deno?: { unrefTimer?(id: number): void };
  console?: { error(...values: unknown[]): void };
}

const runtime = globalThis as unknown as RuntimeGlobals;

/**
 * Ms since the epoch, monotonic where the runtime has performance (Workers report a timeOrigin
 * of 0 and an epoch now(), which adds up the same): tasks tell peers their times from it.
 */
function epochClock(): number {
  const clock = runtime.performance;
  if (clock === undefined) return Date.now();
  const origin = clock.timeOrigin;
  return (typeof origin === "number" && Number.isFinite(origin) ? origin : 0) + clock.now();
}

/** The runtime's clock and timers; a timer is unref'd where the runtime can (a server's timers never hold its process open). */
export const webTimers: HttpTimers = {
  now: epochClock,
  setTimeout: (fn, ms) => {
    const handle = runtime.setTimeout(fn, ms);
    if (typeof handle === "object" && handle !== null && typeof (handle as { unref?: unknown }).unref === "function")
      (handle as { unref(): void }).unref();
    else if (typeof handle === "number") runtime.Deno?.unrefTimer?.(handle);
    return handle;
  },
  clearTimeout: (handle) => runtime.clearTimeout(handle),
};

/**
 * The wall clock (Date.now) with the same timers: nodes that share tasks compare times taken
 * on different processes (createdAt, expiry), which a per-process monotonic clock cannot give.
 * The Redis stores' default (mcp-engine/stores/redis re-exports it).
 */
export const wallClock: HttpTimers = { ...webTimers, now: () => Date.now() };

/** Errors no peer can be told of (a failing store, a broken stream). */
export function reportError(error: unknown): void {
  runtime.console?.error(`mcp-engine http: ${error instanceof Error ? error.message : String(error)}`);
}
