// The driver: keeps an Engine drained for a host that brings bytes, a clock and one timer.
//
// After every input and every command it dispatches every event, writes all outbound
// messages (one write per pass: the answers to a chunk of requests leave together), and
// re-arms the host's single timer when the engine's next deadline changed (the drain
// contract of the core). Dispatch may issue commands, which pump again: the re-entry is
// flattened into the running loop, so events are always handled in engine order. A request
// pumps "soon" (pumpSoon: after the current synchronous run), so the requests a caller makes
// together leave in one write.
//
// Nothing escapes the driver: an exception from the engine's inputs, from dispatch, from the
// host's write/send/armTimer is given to onFault (the peer reports it as a diagnostic) and the
// loop carries on, so a caller's callback, a promise reaction or a host's event listener that
// calls in here can never be brought down by it. An engine whose input threw is closed: its
// state can no longer be trusted, and closing settles every pending request.

import type { Engine, Outbound } from "../../engine/engine.js";
import type { EngineEvent } from "../../engine/events.js";
import type { Role } from "../../rules/methods.js";

export interface PeerHost {
  /** Stream transports (stdio): framed bytes to write. */
  write?(bytes: Uint8Array): void;
  /** Message transports (HTTP): one message at a time with its routing hint; used instead of write when given. */
  send?(outbound: Outbound): void;
  /** The current time, in the unit of every timeout option (milliseconds by convention). */
  now(): number;
  /** Keep one timer: at `at` (absolute, same clock as now()) call the driver's onTimer(); undefined disarms. */
  armTimer(at: number | undefined): void;
}

/** Settled once: `RESOLVED.then(task)` runs task after the current synchronous run (cheaper than Node's queueMicrotask, which binds an async context per call). */
const RESOLVED: Promise<void> = Promise.resolve();

export class Driver<R extends Role> {
  /**
   * True when the engine encodes what this host is sent (a stream host: takeBytes, where a
   * message JSON cannot encode is refused alone, ENG-09); false for a message host (send),
   * which encodes each message itself, so what goes to it must be plain data already.
   */
  readonly engineEncodes: boolean;
  private pumping = false;
  private again = false;
  private armedAt: number | undefined;

  constructor(
    readonly engine: Engine<R>,
    private readonly host: PeerHost,
    private readonly dispatch: (event: EngineEvent) => void,
    /** An exception caught on the driver's paths (see the file comment). Default: ignored. */
    private readonly onFault: (error: unknown, where: string) => void = () => undefined,
  ) {
    this.engineEncodes = host.send === undefined;
  }

  /**
   * The time an input comes with: it only lets progress push back the deadlines of our own
   * requests, so with none in flight (a server, mostly) the clock is not read.
   */
  private inputTime(): number | undefined {
    return this.engine.pendingOutboundCount === 0 ? undefined : this.host.now();
  }

  receiveBytes(chunk: Uint8Array): void {
    try {
      this.engine.receiveBytes(chunk, this.inputTime());
    } catch (error) {
      this.inputFailed(error, "receiveBytes");
    }
    this.pump();
  }

  receiveMessage(value: unknown): void {
    try {
      this.engine.receiveMessage(value, this.inputTime());
    } catch (error) {
      this.inputFailed(error, "receiveMessage");
    }
    this.pump();
  }

  receiveEof(): void {
    this.input("receiveEof", () => this.engine.receiveEof());
  }

  /** The host's timer fired. */
  onTimer(): void {
    this.armedAt = undefined;
    // The layer above's own deadlines (queued requests) first: they do not depend on the engine's state.
    this.guard("timers", () => this.timers?.fire(this.host.now()));
    this.input("handleTimeout", () => this.engine.handleTimeout(this.host.now()));
  }

  /**
   * Deadlines the layer above keeps outside the engine (requests still queued): the host's one
   * timer is armed for the earliest of these and the engine's, and fire() runs at each onTimer.
   */
  timers: { next(): number | undefined; fire(now: number): void } | undefined = undefined;

  private input(where: string, feed: () => void): void {
    try {
      feed();
    } catch (error) {
      this.inputFailed(error, where);
    }
    this.pump();
  }

  /** An engine whose input threw can no longer be trusted: closed (which settles what is pending). */
  private inputFailed(error: unknown, where: string): void {
    this.fault(error, where);
    this.guard("close", () => this.engine.close());
  }

  private guard(where: string, step: () => void): void {
    try {
      step();
    } catch (error) {
      this.fault(error, where);
    }
  }

  private fault(error: unknown, where: string): void {
    try {
      this.onFault(error, where);
    } catch {
      // The fault reporter is the caller's; its own failure has nowhere else to go.
    }
  }

  private soon = false;

  /**
   * Drains the engine once the current synchronous run is over (a microtask), instead of now:
   * requests issued together leave in one write. Commands whose caller expects the bytes out
   * at once (close, notify) still pump().
   */
  pumpSoon(): void {
    if (this.soon) return;
    this.soon = true;
    void RESOLVED.then(this.pumpLater);
  }

  /** Made once: pumpSoon allocates no closure per call. */
  private readonly pumpLater = (): void => {
    this.soon = false;
    this.pump();
  };

  /** Drains the engine; call after every command. */
  pump(): void {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        for (let event = this.engine.pollEvent(); event !== undefined; event = this.engine.pollEvent()) this.dispatchGuarded(event);
        // One write for everything this pass queued (the answers of a whole chunk of requests, say).
        this.flushGuarded();
        // The drain itself may report (ENG-09: a message JSON could not encode): dispatched in this pass too.
        const late = this.engine.pollEvent();
        if (late !== undefined) {
          this.dispatchGuarded(late);
          this.again = true;
        }
      } while (this.again);
    } finally {
      this.pumping = false;
    }
    try {
      this.rearm();
    } catch (error) {
      this.fault(error, "armTimer");
    }
  }

  /** Arms the host's timer when the earliest deadline changed (and only then). */
  private rearm(): void {
    const engineNext = this.engine.nextDeadline();
    const extra = this.timers?.next();
    const next = extra === undefined ? engineNext : engineNext === undefined ? extra : Math.min(engineNext, extra);
    if (next !== this.armedAt) {
      this.armedAt = next;
      this.host.armTimer(next);
    }
  }

  private dispatchGuarded(event: EngineEvent): void {
    try {
      this.dispatch(event);
    } catch (error) {
      this.fault(error, `dispatch ${event.kind}`);
    }
  }

  private flushGuarded(): void {
    try {
      this.flush();
    } catch (error) {
      this.fault(error, "write");
    }
  }

  private flush(): void {
    if (this.host.send !== undefined) {
      for (let o = this.engine.pollOutbound(); o !== undefined; o = this.engine.pollOutbound()) this.host.send(o);
      return;
    }
    const bytes = this.engine.takeBytes();
    if (bytes !== undefined && this.host.write !== undefined) this.host.write(bytes);
  }
}
