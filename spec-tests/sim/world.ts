// The simulated cluster: N nodes, each the real createHttpHandler with its own Server, on an
// in-memory session store, event store and message bus that implement the same interfaces as
// the Redis ones (lib/stores/redis.ts), with faults the episode injects: the bus delays,
// reorders, duplicates or drops a message; a store call fails or is slow; a node crashes (its
// process is gone: its streams cut, its timers never fire, nothing it still had in flight
// reaches the store or the bus) and restarts with no memory; the store restarts empty; the
// nodes' clocks disagree.
//
// Invariants:
// - nothing here reads a real clock or draws a real random number: time is `SimTime`, moved by
//   the episode, and every choice comes from the episode's Rng, so an episode replays from its seed;
// - what the stores hold is counted in bytes (the UTF-8 length of what a Redis store keeps) and
//   kept within their budgets the way the Redis stores keep it (a new session refused, the
//   oldest events evicted); `storeBytes()` recounts it from scratch for the oracle;
// - a node's facade on the stores and the bus belongs to one incarnation: after a crash, what
//   the old handler still calls is never carried out (and never settles).

import { createHttpHandler, type BusMessage, type EventStore, type HttpHandler, type MessageBus } from "../../lib/http-server/index.js";
import { REQUEST_ID_BLOCK, type SessionStore, type StoredEvent } from "../../lib/http-server/options.js";
import { parseBusMessage } from "../../lib/http-server/bus.js";
import { byteLength } from "../../lib/http-server/channel.js";
import type { HandlerContext } from "../../lib/peer/server/server-options.js";
import type { EngineSnapshot } from "../../lib/engine/engine.js";
import { Server } from "../../lib/peer/server/server.js";
import { MemoryTaskStore } from "../../lib/peer/server/task-store.js";
import { serveTasks } from "../../lib/peer/server/task-support.js";
import type { HttpTimers } from "../../lib/peer/shared/timers.js";
import type { Rng } from "../fuzz/prng.js";
import { settle } from "../fuzz/sim-clock.js";
import { MODERN_VERSION, SESSION_VERSION } from "./wire.js";

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly owner: string;
  readonly fn: () => void;
}

/** Simulated time: timers fire only when the episode advances it; each has an owner (a node's incarnation, "bus", "store"). */
export class SimTime {
  now = 0;
  private seq = 0;
  private readonly timers = new Map<number, Timer>();

  set(owner: string, fn: () => void, ms: number): number {
    const id = ++this.seq;
    const delay = Number.isFinite(ms) && ms > 0 ? ms : 0;
    this.timers.set(id, { at: this.now + delay, seq: id, owner, fn });
    return id;
  }

  clear(id: unknown): void {
    if (typeof id === "number") this.timers.delete(id);
  }

  /** Forgets every timer of `owner` (its process is gone). */
  dropOwner(owner: string): void {
    for (const [id, t] of this.timers) if (t.owner === owner) this.timers.delete(id);
  }

  /** The timers of a node as HttpTimers, its clock `skew` ms off. */
  timersOf(owner: string, skew: number): HttpTimers {
    return {
      now: () => this.now + skew,
      setTimeout: (fn, ms) => this.set(owner, fn, ms),
      clearTimeout: (handle) => this.clear(handle),
    };
  }

  /** Moves time forward by `ms`, firing due timers in order and settling after each; false when more than `cap` fired. */
  async advance(ms: number, cap = 20_000): Promise<boolean> {
    const target = this.now + ms;
    for (let fired = 0; fired < cap; fired++) {
      let next: Timer | undefined;
      for (const t of this.timers.values())
        if (t.at <= target && (next === undefined || t.at < next.at || (t.at === next.at && t.seq < next.seq))) next = t;
      if (next === undefined) {
        this.now = target;
        return true;
      }
      this.timers.delete(next.seq);
      this.now = Math.max(this.now, next.at);
      next.fn();
      await settle(1);
    }
    return false;
  }
}

/** The faults an episode turns on (each a chance per bus message or store call). */
export interface Faults {
  busDelayMs: number;
  busReorder: boolean;
  busDuplicate: number;
  busDrop: number;
  storeFail: number;
  storeSlowMs: number;
  crash: boolean;
  storeRestart: boolean;
  skewMs: number;
}

export const NO_FAULTS: Faults = {
  busDelayMs: 0,
  busReorder: false,
  busDuplicate: 0,
  busDrop: 0,
  storeFail: 0,
  storeSlowMs: 0,
  crash: false,
  storeRestart: false,
  skewMs: 0,
};

/** Faults that may lose what the design does not promise to keep (liveness is then not checked). */
export function lossy(f: Faults): boolean {
  return f.busDrop > 0 || f.storeFail > 0 || f.crash || f.storeRestart;
}

export const BUDGET = {
  maxSnapshotBytes: 64 * 1024,
  maxTotalSnapshotBytes: 512 * 1024,
  maxSessionEventBytes: 48 * 1024,
  maxTotalEventBytes: 256 * 1024,
  maxSessions: 64,
};

const bytesOf = byteLength;

/** The shared stores' data: what Redis would hold (sessions as JSON, events per stream). */
export class StoreData {
  readonly sessions = new Map<string, string>();
  readonly events = new Map<string, Map<string, StoredEvent[]>>();
  /** Streams that lost events to a budget ("<sid> <st>"): a gap on their resume is allowed. */
  readonly evicted = new Set<string>();
  /** Per session: the request-id blocks handed out (CL-08), the mailbox and the change tags it saw (CL-06). */
  readonly idBlocks = new Map<string, number>();
  readonly mailboxes = new Map<string, { texts: string[]; tags: Set<string> }>();
  restarts = 0;
  /** Store calls the episode made fail: what they wrote is missing (a gap on a resume is then no loss). */
  failedCalls = 0;

  wipe(): void {
    this.sessions.clear();
    this.events.clear();
    this.idBlocks.clear();
    this.mailboxes.clear();
    this.restarts++;
  }

  sessionBytes(): number {
    let n = 0;
    for (const text of this.sessions.values()) n += bytesOf(text);
    return n;
  }

  eventBytes(sid?: string): number {
    let n = 0;
    for (const [id, streams] of this.events) {
      if (sid !== undefined && id !== sid) continue;
      for (const events of streams.values()) for (const e of events) n += bytesOf(e.text);
    }
    return n;
  }
}

/**
 * What a node's store calls go through: its incarnation's liveness and the episode's faults.
 * Calls complete in the order they were made (one connection to the store, as with Redis).
 */
export class StoreGate {
  private lastDue = 0;

  constructor(
    readonly world: World,
    readonly alive: () => boolean,
  ) {}

  /** `work` done when the calls made before it are (at lastDue). */
  private later<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.world.time.set(
        "store",
        () => {
          try {
            resolve(work());
          } catch (error) {
            reject(error);
          }
        },
        this.lastDue - this.world.time.now,
      );
    });
  }

  /** Runs `work` as a store call would: maybe failed, maybe late, never for a dead incarnation. */
  call<T>(what: string, work: () => T): Promise<T> {
    if (!this.alive()) return new Promise<T>(() => undefined);
    const { rng, faults } = this.world;
    if (faults.storeFail > 0 && rng.chance(faults.storeFail)) {
      this.world.data.failedCalls++;
      return Promise.reject(new Error(`sim: store unavailable (${what})`));
    }
    if (faults.storeSlowMs > 0 && rng.chance(0.3)) {
      this.lastDue = Math.max(this.world.time.now + rng.range(1, faults.storeSlowMs), this.lastDue);
      return this.later(work);
    }
    if (this.lastDue > this.world.time.now) return this.later(work);
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

export class SimSessionStore implements SessionStore {
  constructor(
    private readonly data: StoreData,
    private readonly gate: StoreGate,
  ) {}

  get(id: string): Promise<EngineSnapshot | undefined> {
    return this.gate.call("get", () => {
      const text = this.data.sessions.get(id);
      return text === undefined ? undefined : (JSON.parse(text) as EngineSnapshot);
    });
  }

  put(id: string, snapshot: EngineSnapshot, update = false): Promise<boolean> {
    return this.gate.call("put", () => {
      if (update && !this.data.sessions.has(id)) return false;
      const text = JSON.stringify(snapshot);
      const size = bytesOf(text);
      if (size > BUDGET.maxSnapshotBytes) {
        this.data.sessions.delete(id);
        throw new RangeError(`[LIM-15] sim session store: expected at most ${BUDGET.maxSnapshotBytes} bytes; got ${size}`);
      }
      const before = this.data.sessions.get(id);
      const total = this.data.sessionBytes() - (before === undefined ? 0 : bytesOf(before)) + size;
      if (before === undefined && total > BUDGET.maxTotalSnapshotBytes)
        throw new RangeError(`[LIM-15] sim session store: expected room for a new session; the total is ${total}`);
      if (before !== undefined && total > BUDGET.maxTotalSnapshotBytes) {
        this.data.sessions.delete(id);
        throw new RangeError(`[LIM-15] sim session store: a session grew past the total; it is no longer kept`);
      }
      this.data.sessions.set(id, text);
      return true;
    });
  }

  delete(id: string): Promise<void> {
    return this.gate.call("delete", () => {
      this.data.sessions.delete(id);
      this.data.idBlocks.delete(id);
    });
  }

  reserveRequestIds(id: string): Promise<number | undefined> {
    return this.gate.call("reserveRequestIds", () => {
      if (!this.data.sessions.has(id)) return undefined;
      const block = (this.data.idBlocks.get(id) ?? 0) + 1;
      this.data.idBlocks.set(id, block);
      return block * REQUEST_ID_BLOCK;
    });
  }
}

export class SimEventStore implements EventStore {
  constructor(
    private readonly data: StoreData,
    private readonly gate: StoreGate,
  ) {}

  append(sessionId: string, streamId: string, event: StoredEvent): Promise<void> {
    return this.gate.call("append", () => {
      let streams = this.data.events.get(sessionId);
      if (streams === undefined) this.data.events.set(sessionId, (streams = new Map()));
      let events = streams.get(streamId);
      if (events === undefined) streams.set(streamId, (events = []));
      events.push({ seq: event.seq, text: event.text });
      // The oldest events of the session go first, then the oldest of the store; never the one just appended.
      this.evict(sessionId, () => this.data.eventBytes(sessionId) > BUDGET.maxSessionEventBytes, event);
      this.evict(undefined, () => this.data.eventBytes() > BUDGET.maxTotalEventBytes, event);
    });
  }

  private evict(only: string | undefined, over: () => boolean, keep: StoredEvent): void {
    while (over()) {
      let dropped = false;
      for (const [sid, streams] of this.data.events) {
        if (only !== undefined && sid !== only) continue;
        for (const [st, events] of streams) {
          const first = events[0];
          if (first === undefined || first === keep) continue;
          events.shift();
          this.data.evicted.add(`${sid} ${st}`);
          if (events.length === 0) streams.delete(st);
          dropped = true;
          break;
        }
        if (dropped) break;
      }
      if (!dropped) return;
    }
  }

  replay(sessionId: string, streamId: string, after: number): Promise<readonly StoredEvent[] | undefined> {
    return this.gate.call("replay", () => {
      const events = this.data.events.get(sessionId)?.get(streamId);
      return events?.filter((e) => e.seq > after).map((e) => ({ seq: e.seq, text: e.text }));
    });
  }

  forget(sessionId: string): Promise<void> {
    return this.gate.call("forget", () => {
      this.data.events.delete(sessionId);
      this.data.mailboxes.delete(sessionId);
    });
  }

  mail(sessionId: string, text: string, tag?: string): Promise<void> {
    return this.gate.call("mail", () => {
      let box = this.data.mailboxes.get(sessionId);
      if (box === undefined) this.data.mailboxes.set(sessionId, (box = { texts: [], tags: new Set() }));
      if (tag !== undefined) {
        if (box.tags.has(tag)) return;
        box.tags.add(tag);
      }
      box.texts.push(text);
    });
  }

  take(sessionId: string): Promise<readonly string[]> {
    return this.gate.call("take", () => this.data.mailboxes.get(sessionId)?.texts.splice(0) ?? []);
  }
}

interface Delivery {
  readonly to: string;
  readonly text: string;
}

/** The bus between the nodes: fire-and-forget, FIFO per pair unless the episode reorders, with its faults. */
export class SimBusHub {
  private readonly listeners = new Map<string, (message: BusMessage) => void>();
  /** When the last message to each pair is due, for FIFO order. */
  private readonly lastDue = new Map<string, number>();
  published = 0;

  constructor(private readonly world: World) {}

  endpoint(nodeId: string, alive: () => boolean): MessageBus {
    return {
      nodeId,
      shared: true,
      publish: (message): void | Promise<void> => {
        if (!alive()) return new Promise<void>(() => undefined);
        this.published++;
        const text = JSON.stringify(message);
        for (const to of this.listeners.keys()) if (to !== nodeId) this.send(nodeId, { to, text });
      },
      subscribe: (listener) => {
        if (alive()) this.listeners.set(nodeId, listener);
      },
      close: () => {
        if (alive()) this.listeners.delete(nodeId);
      },
    };
  }

  /** The node's process is gone: it hears nothing more. */
  unsubscribe(nodeId: string): void {
    this.listeners.delete(nodeId);
  }

  private send(from: string, delivery: Delivery): void {
    const { rng, faults, time } = this.world;
    if (faults.busDrop > 0 && rng.chance(faults.busDrop)) return;
    const copies = faults.busDuplicate > 0 && rng.chance(faults.busDuplicate) ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      let due = time.now + (faults.busDelayMs > 0 ? rng.range(0, faults.busDelayMs) : 0);
      const pair = `${from}>${delivery.to}`;
      if (!faults.busReorder) due = Math.max(due, this.lastDue.get(pair) ?? 0);
      this.lastDue.set(pair, due);
      const listener = this.listeners.get(delivery.to);
      time.set(
        "bus",
        () => {
          // Delivered to the incarnation subscribed when it was sent, if it still is.
          if (listener === undefined || this.listeners.get(delivery.to) !== listener) return;
          const message = parseBusMessage(delivery.text);
          if (message !== undefined) listener(message);
        },
        due - time.now,
      );
    }
  }
}

/** What a node's tools report to the world (the oracle's view of what the servers did). */
export interface ServerEvents {
  /** A list change made on a node (a flip tool call): every operating session should hear it once. */
  changed(node: number): void;
}

export interface SimNode {
  readonly index: number;
  readonly nodeId: string;
  incarnation: number;
  alive: boolean;
  handler: HttpHandler;
  server: Server;
  readonly errors: unknown[];
}

/** The cluster of one episode. */
export class World {
  readonly time = new SimTime();
  readonly data = new StoreData();
  readonly bus: SimBusHub;
  readonly tasks = new MemoryTaskStore();
  readonly nodes: SimNode[] = [];
  private taskCount = 0;

  constructor(
    readonly rng: Rng,
    public faults: Faults,
    readonly nodeCount: number,
    readonly events: ServerEvents,
    /** One process with no shared bus (the reference a cluster must behave like). */
    readonly standalone = false,
    /** Stores with only the methods every store has (no mailbox, no id blocks, no conditional put): what the cluster did before CL-06 … CL-08. */
    readonly legacyStores = false,
  ) {
    this.bus = new SimBusHub(this);
    for (let i = 0; i < nodeCount; i++) {
      const node = { index: i, nodeId: `n${i}`, incarnation: 0, alive: true, errors: [] } as unknown as SimNode;
      this.nodes.push(node);
      this.boot(node);
    }
  }

  private owner(node: SimNode): string {
    return `${node.nodeId}#${node.incarnation}`;
  }

  private boot(node: SimNode): void {
    const incarnation = node.incarnation;
    const alive = (): boolean => node.alive && node.incarnation === incarnation;
    const gate = new StoreGate(this, alive);
    const owner = this.owner(node);
    const skew = this.faults.skewMs > 0 ? this.rng.range(-this.faults.skewMs, this.faults.skewMs) : 0;
    const timers = this.time.timersOf(owner, skew);
    const server = this.makeServer(node, timers);
    let sessions = 0;
    node.server = server;
    node.handler = createHttpHandler(server, {
      ...this.storesOf(gate),
      ...(this.standalone ? {} : { bus: this.bus.endpoint(node.nodeId, alive) }),
      timers,
      sessionId: () => `${node.nodeId}i${incarnation}s${sessions++}`,
      maxSessions: BUDGET.maxSessions,
      keepAliveMs: 0,
      onError: (error) => {
        if (alive()) node.errors.push(error);
      },
    });
  }

  private storesOf(gate: StoreGate): { store: SessionStore; eventStore: EventStore } {
    const store = new SimSessionStore(this.data, gate);
    const eventStore = new SimEventStore(this.data, gate);
    if (!this.legacyStores) return { store, eventStore };
    return {
      store: { get: (id) => store.get(id), put: (id, snapshot) => store.put(id, snapshot), delete: (id) => store.delete(id) },
      eventStore: {
        append: (sid, st, event) => eventStore.append(sid, st, event),
        replay: (sid, st, after) => eventStore.replay(sid, st, after),
        forget: (sid) => eventStore.forget(sid),
      },
    };
  }

  private makeServer(node: SimNode, timers: HttpTimers): Server {
    const server = new Server({
      info: { name: "sim", version: "1" },
      versions: [SESSION_VERSION, MODERN_VERSION],
      capabilities: { resources: { subscribe: true } },
      tasks: serveTasks({ store: this.tasks, newTaskId: () => `t${this.taskCount++}` }),
    });
    const sleep = (ms: number, signal: HandlerContext["signal"]): Promise<void> =>
      new Promise((resolve) => {
        const id = timers.setTimeout(resolve, ms);
        signal.addEventListener("abort", () => {
          timers.clearTimeout(id);
          resolve();
        });
      });
    server.tool("echo", {}, (args) => ({ content: [{ type: "text", text: `echo ${JSON.stringify(args)}` }] }));
    server.tool("progress", {}, async (_args, ctx) => {
      for (let i = 1; i <= 3; i++) {
        ctx.progress(i, 3, `step ${i}`);
        await sleep(20, ctx.signal);
      }
      return { content: [{ type: "text", text: "progressed" }] };
    });
    // The tag (the client's request key) makes each server request's text unique: an id reused for another request shows.
    const tag = (args: unknown): string => String((args as { tag?: unknown } | undefined)?.tag);
    server.tool("ask", {}, async (args, ctx) => {
      const answer = await ctx.elicit({
        message: `name? ${tag(args)}`,
        requestedSchema: { type: "object", properties: { name: { type: "string" } } },
      });
      return { content: [{ type: "text", text: `asked ${answer.action}` }] };
    });
    server.tool("sample", {}, async (args, ctx) => {
      const answer = await ctx.createMessage({ messages: [{ role: "user", content: { type: "text", text: tag(args) } }], maxTokens: 5 });
      return { content: [{ type: "text", text: `sampled ${answer.model}` }] };
    });
    let extra: { remove(): void } | undefined;
    server.tool("flip", {}, () => {
      this.events.changed(node.index);
      if (extra === undefined) extra = server.tool("extra", {}, () => ({ content: [] }));
      else {
        extra.remove();
        extra = undefined;
      }
      return { content: [{ type: "text", text: "flipped" }] };
    });
    server.tool("slowTask", { taskSupport: "optional" }, async (_args, ctx) => {
      await sleep(60, ctx.signal);
      return { content: [{ type: "text", text: "slow done" }] };
    });
    return server;
  }

  /** The node's process dies: its streams are cut by the caller, its timers and bus go, its memory is lost. */
  crash(node: SimNode): void {
    node.alive = false;
    this.time.dropOwner(this.owner(node));
    this.bus.unsubscribe(node.nodeId);
  }

  /** A new process with the same node id and nothing of the old one's memory. */
  restart(node: SimNode): void {
    node.incarnation++;
    node.alive = true;
    this.boot(node);
  }

  /** The store restarts empty (Redis without persistence). */
  restartStore(): void {
    this.data.wipe();
  }

  liveNodes(): SimNode[] {
    return this.nodes.filter((n) => n.alive);
  }
}
