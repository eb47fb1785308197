// Abort signals for the peer layer. Handlers get signals made by PeerAbortController: the
// runtime's own AbortController when globalThis has one (so ctx.signal can be handed to
// fetch, streams or timers, which accept only a real AbortSignal: Node's fetch ignored a
// look-alike and ran to the end), and a small implementation of ours where there is none.
// The portable layers compile without DOM types: the runtime's controller is reached through
// globalThis with a local type, and callers' signals are accepted by their shape
// (AbortSignalLike, which the real AbortSignal satisfies).
//
// The one global declared is an empty `interface AbortSignal {}`, as web-types.ts does for
// Request and Response: in a consumer's project it merges with the DOM's or @types/node's
// declaration, so a handler's signal (PlatformAbortSignal) is assignable where the platform
// asks for its AbortSignal (`fetch(url, { signal: ctx.signal })`); with neither, it stands
// alone and the signal is just AbortSignalLike. It emits no code and adds no member.

declare global {
  // Empty on purpose: members come from the consumer's DOM or @types/node declaration.
  interface AbortSignal {}
}

export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/**
 * The signal a handler receives (ctx.signal): the platform's AbortSignal, made by the
 * runtime's AbortController. Only on a runtime without one is it our own AbortSignalLike,
 * and such a runtime declares no AbortSignal for it to be mistaken for.
 */
export type PlatformAbortSignal = AbortSignal & AbortSignalLike;

interface RuntimeAbortController {
  readonly signal: AbortSignalLike;
  abort(reason?: unknown): void;
}

type RuntimeAbortControllerClass = new () => RuntimeAbortController;

/** The runtime's AbortController, if it has one that works as specified (checked once, at load). */
const RUNTIME_CONTROLLER: RuntimeAbortControllerClass | undefined = findRuntimeController();

function findRuntimeController(): RuntimeAbortControllerClass | undefined {
  const candidate = (globalThis as { AbortController?: unknown }).AbortController;
  if (typeof candidate !== "function") return undefined;
  try {
    const probe = new (candidate as RuntimeAbortControllerClass)();
    probe.abort("probe");
    return probe.signal.aborted === true && probe.signal.reason === "probe" ? (candidate as RuntimeAbortControllerClass) : undefined;
  } catch {
    return undefined;
  }
}

class PeerAbortSignal implements AbortSignalLike {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Array<() => void> = [];

  addEventListener(_type: "abort", listener: () => void): void {
    if (this.aborted) return;
    this.listeners.push(listener);
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    const i = this.listeners.indexOf(listener);
    if (i >= 0) this.listeners.splice(i, 1);
  }

  /** Marks the signal aborted and calls each listener once; a throwing listener does not stop the others. */
  fire(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = [];
    for (const l of listeners) {
      try {
        l();
      } catch {
        // A listener's failure is its own business; the abort still reaches the others.
      }
    }
  }
}

/**
 * A runtime signal reports a throwing abort listener as an uncaught exception (Node: the
 * process exits). Listeners added through this signal's addEventListener are wrapped so that
 * a throw stays inside them, as with our own signal; the runtime's code (fetch) that listens
 * the same way is unaffected. (`onabort` and listeners added by other means are not wrapped.)
 */
function containListeners(signal: AbortSignalLike): AbortSignalLike {
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  const wrapped = new Map<() => void, () => void>();
  const wrapperOf = (listener: () => void): (() => void) => {
    let wrapper = wrapped.get(listener);
    if (wrapper === undefined) {
      wrapper = function (this: unknown): void {
        if (signal.aborted) wrapped.delete(listener);
        try {
          listener.call(this);
        } catch {
          // A listener's failure is its own business; the abort still reaches the others.
        }
      };
      wrapped.set(listener, wrapper);
    }
    return wrapper;
  };
  Object.defineProperty(signal, "addEventListener", {
    configurable: true,
    value: (type: "abort", listener: () => void, options?: { once?: boolean }): void => {
      if (type !== "abort" || typeof listener !== "function") {
        add(type, listener, options);
        return;
      }
      add(type, wrapperOf(listener), options);
    },
  });
  Object.defineProperty(signal, "removeEventListener", {
    configurable: true,
    value: (type: "abort", listener: () => void): void => {
      const wrapper = type === "abort" ? wrapped.get(listener) : undefined;
      if (wrapper === undefined) {
        remove(type, listener);
        return;
      }
      wrapped.delete(listener);
      remove(type, wrapper);
    },
  });
  return signal;
}

/**
 * Makes the signals handed to handlers: the runtime's AbortSignal where there is one
 * (`useRuntime` false forces our own implementation, for runtimes without one and for tests).
 */
export class PeerAbortController {
  readonly signal: PlatformAbortSignal;
  private readonly abortWith: (reason: unknown) => void;

  constructor(useRuntime = true) {
    if (useRuntime && RUNTIME_CONTROLLER !== undefined) {
      const controller = new RUNTIME_CONTROLLER();
      this.signal = containListeners(controller.signal) as PlatformAbortSignal;
      this.abortWith = (reason) => controller.abort(reason);
    } else {
      const signal = new PeerAbortSignal();
      // No runtime AbortController, hence no AbortSignal of the platform's to stand in for (see PlatformAbortSignal).
      this.signal = signal as AbortSignalLike as PlatformAbortSignal;
      this.abortWith = (reason) => signal.fire(reason);
    }
  }

  abort(reason?: unknown): void {
    this.abortWith(reason);
  }
}
