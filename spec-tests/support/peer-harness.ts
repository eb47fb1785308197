// Test harness for the peer layer (spec-tests/peer/*.test.ts and a few others): Pair, a Client and a
// ServerSession linked by the library's own linkInMemory on a ManualClock, recording what
// each side wrote and every arming of its timer; ScriptedServer, a Client against a
// hand-written server on a fake host. Nothing here reads real time or starts a real timer.

import {
  Client,
  ManualClock,
  Paginator,
  Server,
  linkInMemory,
  type ClientOptions,
  type InMemoryLink,
  type ManualTimer,
  type PeerHost,
  type ServerOptions,
  type ServerSession,
} from "../../lib/peer/index.js";

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

/** Lists paged `pageSize` items at a time, cursors sealed with SECRET (ServerOptions.paging). */
export const pagedBy = (pageSize: number): Paginator => new Paginator({ pageSize, secret: SECRET });

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

/** What a test sees of one side of a Pair: what it wrote, and how it armed its timer. */
export class SideRecord {
  /** Every armTimer argument, in order. */
  readonly armCalls: Array<number | undefined> = [];
  /** Every message written, parsed. */
  readonly sent: Array<Record<string, unknown>> = [];
  timer: ManualTimer | undefined = undefined;

  /** The deadline currently armed (undefined: disarmed). */
  get armed(): number | undefined {
    return this.timer?.armed;
  }

  /** The armed timer fires now, whatever its deadline (a spurious early fire). */
  fire(): void {
    this.timer?.fire();
  }

  record(bytes: Uint8Array): void {
    for (const line of decoder.decode(bytes).split("\n")) if (line !== "") this.sent.push(JSON.parse(line) as Record<string, unknown>);
  }

  /** Messages written with this method, in order. */
  messages(method: string): Array<Record<string, unknown>> {
    return this.sent.filter((m) => m.method === method);
  }
}

/** A Client and one ServerSession linked in memory (linkInMemory) on a manual clock, with what each side wrote. */
export class Pair {
  readonly clock: ManualClock;
  readonly clientHost = new SideRecord();
  readonly serverHost = new SideRecord();
  readonly server: Server;
  readonly session: ServerSession;
  readonly client: Client;
  readonly link: InMemoryLink;

  constructor(options: PairOptions = {}) {
    this.clock = new ManualClock({ onArm: (label, at) => (label === "client" ? this.clientHost : this.serverHost).armCalls.push(at) });
    this.server = options.serverInstance ?? new Server({ info: SERVER_INFO, ...options.server });
    options.setup?.(this.server);
    this.link = linkInMemory(
      this.server,
      { info: CLIENT_INFO, ...options.client },
      {
        clock: this.clock,
        delivery: options.sync === true ? "sync" : "microtask",
        tap: (from, bytes) => (from === "client" ? this.clientHost : this.serverHost).record(bytes),
      },
    );
    this.session = this.link.session;
    this.client = this.link.client;
    this.clientHost.timer = this.link.clientTimer;
    this.serverHost.timer = this.link.serverTimer;
  }

  /** Delivers bytes both ways and lets handlers' promises run, until nothing moves for a while. */
  settle(): Promise<void> {
    return this.clock.settle();
  }

  /** Advances the clock to `t`, firing each armed timer at its exact deadline on the way. */
  advanceTo(t: number): Promise<void> {
    return this.clock.advanceTo(t);
  }

  advance(ms: number): Promise<void> {
    return this.clock.advance(ms);
  }

  /** connect() and settle; resolves with the connect result. */
  async connect(): Promise<Awaited<ReturnType<Client["connect"]>>> {
    const p = this.client.connect();
    await this.settle();
    return p;
  }
}

/** Observes a promise's state without awaiting it. */
export function track<T>(promise: Promise<T>): {
  readonly state: "pending" | "resolved" | "rejected";
  readonly value: T | undefined;
  readonly error: unknown;
} {
  const box: { state: "pending" | "resolved" | "rejected"; value: T | undefined; error: unknown } = {
    state: "pending",
    value: undefined,
    error: undefined,
  };
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

  constructor(answer: (message: Record<string, unknown>) => Record<string, unknown> | undefined, options: Partial<ClientOptions> = {}) {
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
