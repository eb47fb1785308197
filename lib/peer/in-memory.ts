// Testing in process: a Client linked to a Server in memory, on a clock the test moves.
//
//   const clock = new ManualClock();
//   const link = linkInMemory(server, { info: { name: "test", version: "1.0.0" } }, { clock });
//   await link.client.connect();                        // session era, or 2026-07-28 by the client's versions/era
//   const result = await link.client.callTool("echo", { text: "hi" });
//   const slow = link.client.callTool("slow", {}, { timeoutMs: 1000 });
//   await clock.advance(1000);                          // fires the timeout: slow rejects with RequestTimeoutError
//
// This is the way to test a server: the bytes between the two are the bytes of a stdio pipe
// (newline-delimited JSON through both engines, so what a handler returns is encoded and
// decoded as over a real transport), both eras work as they would over stdio, and nothing
// reads real time or starts a real timer: time is the clock's number, and each side's one
// host timer fires when clock.advance() or advanceTo() passes it.
//
// Invariants: bytes are delivered in write order, each direction on its own; by default a write
// is delivered in a microtask (an awaited call completes by itself), or inside the write with
// `delivery: "sync"` (the drivers' re-entrant path); advance() fires due timers in deadline
// order, each at its exact time, and lets everything in flight run before and after each one;
// the clock never goes back. This file reads no clock and starts no timer.

import type { EngineSnapshot } from "../engine/engine.js";
import { Client } from "./client/client.js";
import type { ClientOptions } from "./client/client-options.js";
import type { PeerHost } from "./shared/driver.js";
import type { Server } from "./server/server.js";
import type { ServerSession } from "./server/session.js";

/** One side's host timer on a ManualClock: armed for an absolute time, or disarmed. */
export interface ManualTimer {
  /** Which side this is ("client", "server"). */
  readonly label: string;
  /** The time this timer is armed for; undefined when disarmed. */
  readonly armed: number | undefined;
  /** Fires it now, as the host's timer would (consumed first: one-shot, like setTimeout). */
  fire(): void;
}

export interface ManualClockOptions {
  /** The time at the start. Default 0. */
  start?: number;
  /** Called at each arming of a timer (tests that check when a side arms its timer). */
  onArm?: (label: string, at: number | undefined) => void;
}

/** How long settle() waits for quiet: microtask turns in a row in which nothing was delivered. */
const QUIET_TURNS = 20;

class Timer implements ManualTimer {
  armed: number | undefined = undefined;

  constructor(
    readonly label: string,
    private readonly onFire: () => void,
  ) {}

  fire(): void {
    this.armed = undefined;
    this.onFire();
  }
}

/** Something that delivers bytes when asked: true when something moved. */
interface Mover {
  flush(): boolean;
}

/**
 * A clock for tests: `now` is a number that only advance() and advanceTo() move. Serves any
 * number of links (several sessions of one server, say).
 */
export class ManualClock {
  private current: number;
  private readonly timers = new Set<Timer>();
  private readonly movers = new Set<Mover>();
  private readonly onArm: ((label: string, at: number | undefined) => void) | undefined;

  constructor(options: ManualClockOptions = {}) {
    this.current = options.start ?? 0;
    this.onArm = options.onArm;
  }

  /** The current time, in ms by convention. */
  get now(): number {
    return this.current;
  }

  /** A host for one side: its now() reads this clock, its armTimer() arms the side's timer. */
  host(label: string, onTimer: () => void, write: (bytes: Uint8Array) => void): { host: PeerHost; timer: ManualTimer; detach(): void } {
    const timer = new Timer(label, onTimer);
    this.timers.add(timer);
    const host: PeerHost = {
      write,
      now: () => this.current,
      armTimer: (at) => {
        timer.armed = at;
        this.onArm?.(label, at);
      },
    };
    return { host, timer, detach: () => this.timers.delete(timer) };
  }

  /** @internal A link's deliveries, run by settle(). */
  attach(mover: Mover): () => void {
    this.movers.add(mover);
    return () => this.movers.delete(mover);
  }

  /** Lets everything in flight run: deliveries both ways and handlers' promises, until nothing moves for a while. */
  async settle(): Promise<void> {
    let quiet = 0;
    while (quiet < QUIET_TURNS) {
      let moved = false;
      for (const mover of this.movers) if (mover.flush()) moved = true;
      quiet = moved ? 0 : quiet + 1;
      await Promise.resolve();
    }
  }

  /** Moves the clock to `t`, firing each armed timer at its exact time on the way. */
  async advanceTo(t: number): Promise<void> {
    if (!(t >= this.current)) throw new RangeError(`the clock does not go back: now ${this.current}, asked for ${t}`);
    // What is in flight now happens now, before time moves.
    await this.settle();
    for (;;) {
      let next = Infinity;
      for (const timer of this.timers) if (timer.armed !== undefined && timer.armed <= t && timer.armed < next) next = timer.armed;
      if (next === Infinity) break;
      this.current = Math.max(this.current, next);
      for (const timer of [...this.timers]) if (timer.armed !== undefined && timer.armed <= this.current) timer.fire();
      await this.settle();
    }
    this.current = t;
    await this.settle();
  }

  /** Moves the clock `ms` forward (see advanceTo). */
  async advance(ms: number): Promise<void> {
    await this.advanceTo(this.current + ms);
  }
}

export interface LinkOptions {
  /** The clock both sides read (default: a new ManualClock at 0). Timeouts fire only when it advances. */
  clock?: ManualClock;
  /** "microtask" (default): a write is delivered after the writer's synchronous run; "sync": inside the write. */
  delivery?: "microtask" | "sync";
  /** Sees every chunk written, before delivery: for tests that look at the wire. */
  tap?: (from: "client" | "server", bytes: Uint8Array) => void;
  /** Carry on a negotiated session (Engine.snapshot()) on the server side instead of awaiting initialize. */
  snapshot?: EngineSnapshot;
}

export interface InMemoryLink {
  readonly client: Client;
  readonly session: ServerSession;
  readonly clock: ManualClock;
  /** The client's and the server's host timers (armed: when each side's timer would fire). */
  readonly clientTimer: ManualTimer;
  readonly serverTimer: ManualTimer;
  /** Lets everything in flight run (clock.settle()). */
  settle(): Promise<void>;
  /** Ends the pipe both ways (end of input on each side): pending requests reject with ConnectionClosedError. */
  close(): void;
}

/** One direction of the pipe: chunks in write order. */
class Direction implements Mover {
  private readonly queue: Uint8Array[] = [];
  deliver: ((bytes: Uint8Array) => void) | undefined = undefined;
  closed = false;

  constructor(
    private readonly sync: boolean,
    private readonly from: "client" | "server",
    private readonly tap: LinkOptions["tap"],
  ) {}

  write(bytes: Uint8Array): void {
    if (this.closed) return;
    this.tap?.(this.from, bytes);
    if (this.sync) {
      this.deliver?.(bytes);
      return;
    }
    this.queue.push(bytes);
    void Promise.resolve().then(() => this.flush());
  }

  flush(): boolean {
    if (this.queue.length === 0 || this.deliver === undefined) return false;
    for (const chunk of this.queue.splice(0)) this.deliver(chunk);
    return true;
  }
}

/**
 * Links a new Client (made with `clientOptions`) to a new session of `server`, in memory.
 * See the file comment for an example; the client connects when the test calls connect().
 */
export function linkInMemory(server: Server, clientOptions: ClientOptions, options: LinkOptions = {}): InMemoryLink {
  const clock = options.clock ?? new ManualClock();
  const sync = options.delivery === "sync";
  const toServer = new Direction(sync, "client", options.tap);
  const toClient = new Direction(sync, "server", options.tap);
  let client: Client | undefined;
  let session: ServerSession | undefined;
  const serverSide = clock.host(
    "server",
    () => session?.onTimer(),
    (bytes) => toClient.write(bytes),
  );
  const clientSide = clock.host(
    "client",
    () => client?.input.onTimer(),
    (bytes) => toServer.write(bytes),
  );
  session = server.connect(serverSide.host, options.snapshot);
  client = new Client(clientSide.host, clientOptions);
  const connectedClient = client;
  const connectedSession = session;
  toServer.deliver = (bytes) => connectedSession.receiveBytes(bytes);
  toClient.deliver = (bytes) => connectedClient.input.receiveBytes(bytes);
  const detachServer = clock.attach(toServer);
  const detachClient = clock.attach(toClient);
  return {
    client: connectedClient,
    session: connectedSession,
    clock,
    clientTimer: clientSide.timer,
    serverTimer: serverSide.timer,
    settle: () => clock.settle(),
    close: () => {
      if (toServer.closed) return;
      // What was written before the end is still delivered, then each side reads its end of input.
      toServer.flush();
      toClient.flush();
      toServer.closed = true;
      toClient.closed = true;
      connectedSession.receiveEof();
      connectedClient.input.receiveEof();
      detachServer();
      detachClient();
      serverSide.detach();
      clientSide.detach();
    },
  };
}
