// A minimal abort signal for the peer layer. The core libraries of our targets all ship
// AbortController, but the portable layers compile without DOM types, so callers' signals are
// accepted by their shape (AbortSignalLike, which the real AbortSignal satisfies) and the
// layer makes its own signals for handlers with PeerAbortController.

export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
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

export class PeerAbortController {
  readonly signal: AbortSignalLike = new PeerAbortSignal();

  abort(reason?: unknown): void {
    (this.signal as PeerAbortSignal).fire(reason);
  }
}
