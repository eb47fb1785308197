// The driver: keeps an Engine drained for a host that brings bytes, a clock and one timer.
//
// After every input and every command it writes all outbound messages, dispatches every
// event, and re-arms the host's single timer when the engine's next deadline changed (the
// drain contract of the core). Dispatch may issue commands, which pump again: the re-entry
// is flattened into the running loop, so events are always handled in engine order.

import type { Engine, Outbound } from "../engine.js";
import type { EngineEvent } from "../events.js";
import type { Role } from "../methods.js";

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

export class Driver<R extends Role> {
  private pumping = false;
  private again = false;
  private armedAt: number | undefined;

  constructor(
    readonly engine: Engine<R>,
    private readonly host: PeerHost,
    private readonly dispatch: (event: EngineEvent) => void,
  ) {}

  receiveBytes(chunk: Uint8Array): void {
    this.engine.receiveBytes(chunk, this.host.now());
    this.pump();
  }

  receiveMessage(value: unknown): void {
    this.engine.receiveMessage(value, this.host.now());
    this.pump();
  }

  receiveEof(): void {
    this.engine.receiveEof();
    this.pump();
  }

  /** The host's timer fired. */
  onTimer(): void {
    this.armedAt = undefined;
    this.engine.handleTimeout(this.host.now());
    this.pump();
  }

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
        this.flush();
        for (let event = this.engine.pollEvent(); event !== undefined; event = this.engine.pollEvent()) {
          this.dispatch(event);
          this.flush();
        }
      } while (this.again);
    } finally {
      this.pumping = false;
    }
    const next = this.engine.nextDeadline();
    if (next !== this.armedAt) {
      this.armedAt = next;
      this.host.armTimer(next);
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
