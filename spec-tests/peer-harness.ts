// Test harness for the peer layer (spec-tests/peer*.test.ts): a Client and a ServerSession
// joined by two fake PeerHosts on a FAKE CLOCK. Nothing here reads real time or starts a
// real timer: time is a number the test advances; each host records the one deadline its
// driver armed, and advancing past it calls the driver's onTimer. Bytes written by one side
// are queued and delivered to the other side in a microtask (or at once, in synchronous
// mode, which exercises the drivers' re-entrancy); settle() lets everything in flight run.

import { Client, Server, type ClientOptions, type PeerHost, type ServerOptions, type ServerSession } from "../lib/peer/index.js";

const decoder = new TextDecoder();
const encoder = new TextEncoder();

export class FakeClock {
  now = 0;
}

/** One side's host: records what it writes and every armTimer call; delivers to `deliver`. */
export class FakeHost implements PeerHost {
  /** The deadline currently armed (undefined: disarmed). */
  armed: number | undefined = undefined;
  /** Every armTimer argument, in order. */
  readonly armCalls: Array<number | undefined> = [];
  /** Every message written, parsed. */
  readonly sent: Array<Record<string, unknown>> = [];
  deliver: ((bytes: Uint8Array) => void) | undefined;
  private readonly queue: Uint8Array[] = [];

  /**
   * sync: deliver inside write(), i.e. inside the writer's own pump. Otherwise bytes are
   * queued and delivered by flush(), which a microtask calls after each write so that an
   * awaited request completes on its own (no timer involved).
   */
  constructor(
    private readonly clock: FakeClock,
    private readonly sync = false,
  ) {}

  write(bytes: Uint8Array): void {
    for (const line of decoder.decode(bytes).split("\n")) if (line !== "") this.sent.push(JSON.parse(line) as Record<string, unknown>);
    if (this.sync && this.deliver !== undefined) {
      this.deliver(bytes);
      return;
    }
    this.queue.push(bytes);
    void Promise.resolve().then(() => this.flush());
  }

  now(): number {
    return this.clock.now;
  }

  armTimer(at: number | undefined): void {
    this.armed = at;
    this.armCalls.push(at);
  }

  /** The armed timer fires: it is consumed (one-shot, like setTimeout) and `onTimer` runs. */
  fire(onTimer: () => void): void {
    this.armed = undefined;
    onTimer();
  }

  /** Delivers queued bytes; true when something moved. */
  flush(): boolean {
    if (this.queue.length === 0 || this.deliver === undefined) return false;
    const chunks = this.queue.splice(0);
    for (const c of chunks) this.deliver(c);
    return true;
  }

  /** Messages written with this method, in order. */
  messages(method: string): Array<Record<string, unknown>> {
    return this.sent.filter((m) => m.method === method);
  }
}

export const SECRET = new Uint8Array(32).fill(7);

export const CLIENT_INFO = { name: "test-client", version: "1.0.0" };
export const SERVER_INFO = { name: "test-server", version: "2.0.0" };

export interface PairOptions {
  server?: Partial<ServerOptions>;
  client?: Partial<ClientOptions>;
  sync?: boolean;
  /** Register tools, resources, ... before the session opens (its capabilities follow them). */
  setup?: (server: Server) => void;
  /** An existing server (for several sessions of one server). */
  serverInstance?: Server;
}

/** A Client and one ServerSession over fake hosts on one fake clock. */
export class Pair {
  readonly clock: FakeClock;
  readonly clientHost: FakeHost;
  readonly serverHost: FakeHost;
  readonly server: Server;
  readonly session: ServerSession;
  readonly client: Client;

  constructor(options: PairOptions = {}, clock = new FakeClock()) {
    this.clock = clock;
    this.clientHost = new FakeHost(clock, options.sync);
    this.serverHost = new FakeHost(clock, options.sync);
    this.server = options.serverInstance ?? new Server({ info: SERVER_INFO, paginationSecret: SECRET, ...options.server });
    options.setup?.(this.server);
    this.session = this.server.connect(this.serverHost);
    this.client = new Client(this.clientHost, { info: CLIENT_INFO, ...options.client });
    this.clientHost.deliver = (bytes) => this.session.receiveBytes(bytes);
    this.serverHost.deliver = (bytes) => this.client.driver.receiveBytes(bytes);
  }

  /** Delivers bytes both ways and lets handlers' promises run, until nothing moves for a while. */
  async settle(): Promise<void> {
    let idle = 0;
    while (idle < 20) {
      const moved = this.clientHost.flush() || this.serverHost.flush();
      idle = moved ? 0 : idle + 1;
      await Promise.resolve();
    }
  }

  /** Advances the fake clock to `t`, firing each armed timer at its exact deadline on the way. */
  async advanceTo(t: number): Promise<void> {
    if (t < this.clock.now) throw new Error(`the clock does not go back (${this.clock.now} → ${t})`);
    // What is in flight now happens now, before time moves.
    await this.settle();
    for (;;) {
      const c = this.clientHost.armed;
      const s = this.serverHost.armed;
      let next = Infinity;
      if (c !== undefined && c <= t) next = c;
      if (s !== undefined && s <= t && s < next) next = s;
      if (next === Infinity) break;
      this.clock.now = Math.max(this.clock.now, next);
      // The host timer is one-shot (as setTimeout): firing consumes it, then the driver re-arms.
      if (c !== undefined && c <= this.clock.now) this.clientHost.fire(() => this.client.driver.onTimer());
      if (s !== undefined && s <= this.clock.now) this.serverHost.fire(() => this.session.onTimer());
      await this.settle();
    }
    this.clock.now = t;
    await this.settle();
  }

  async advance(ms: number): Promise<void> {
    await this.advanceTo(this.clock.now + ms);
  }

  /** connect() and settle; resolves with the connect result. */
  async connect(): Promise<Awaited<ReturnType<Client["connect"]>>> {
    const p = this.client.connect();
    await this.settle();
    return p;
  }
}

/** Observes a promise's state without awaiting it. */
export function track<T>(promise: Promise<T>): { readonly state: "pending" | "resolved" | "rejected"; readonly value: T | undefined; readonly error: unknown } {
  const box: { state: "pending" | "resolved" | "rejected"; value: T | undefined; error: unknown } = { state: "pending", value: undefined, error: undefined };
  promise.then(
    (v) => {
      box.state = "resolved";
      box.value = v;
    },
    (e: unknown) => {
      box.state = "rejected";
      box.error = e;
    },
  );
  return box;
}

/** Encodes messages as newline-delimited JSON. */
export function lines(...messages: unknown[]): Uint8Array {
  return encoder.encode(messages.map((m) => JSON.stringify(m) + "\n").join(""));
}

/**
 * A hand-written server for a Client: answers each request with `answer(message)` (a full
 * response object without jsonrpc/id, or undefined for no answer). For misbehaving servers.
 */
export class ScriptedServer {
  readonly clock = new FakeClock();
  /** Synchronous: each reply is fed back inside the client's own pump (its re-entrant path). */
  readonly host = new FakeHost(this.clock, true);
  readonly client: Client;
  readonly received: Array<Record<string, unknown>> = [];

  constructor(
    answer: (message: Record<string, unknown>) => Record<string, unknown> | undefined,
    options: Partial<ClientOptions> = {},
  ) {
    this.client = new Client(this.host, { info: CLIENT_INFO, ...options });
    this.host.deliver = (bytes) => {
      for (const line of decoder.decode(bytes).split("\n")) {
        if (line === "") continue;
        const message = JSON.parse(line) as Record<string, unknown>;
        this.received.push(message);
        if (message.id === undefined) continue;
        const reply = answer(message);
        if (reply !== undefined) this.client.driver.receiveBytes(lines({ jsonrpc: "2.0", id: message.id, ...reply }));
      }
    };
  }

  async settle(): Promise<void> {
    let idle = 0;
    while (idle < 20) {
      idle = this.host.flush() ? 0 : idle + 1;
      await Promise.resolve();
    }
  }
}

/** The initialize result a well-behaved server would give. */
export function initializeResult(capabilities: Record<string, unknown> = {}, version = "2025-11-25"): Record<string, unknown> {
  return { result: { protocolVersion: version, capabilities, serverInfo: SERVER_INFO } };
}
