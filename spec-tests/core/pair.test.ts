// A client Engine and a server Engine over a simulated byte link and clock, driven by a
// seeded PRNG (mulberry32; no Math.random): handshake through randomly chunked bytes,
// round trips, cancel-versus-respond and timeout-versus-response races over hundreds of
// seeded interleavings, progress before the response, and close/EOF mid-flight.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Engine, LocalProtocolError, type EngineEvent, type JsonObject, type RequestOptions } from "../../lib/index.js";
import { mulberry32 } from "../support/helpers.js";

// ── Deterministic randomness ────────────────────────────────────────────────────────

class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)] as T;
  }
}

// ── The simulated link ──────────────────────────────────────────────────────────────

/** One direction of a stream: FIFO bytes, delivered in chunks of random size. */
class Pipe {
  private pending = new Uint8Array(0);
  /** Every byte that went through, for inspection. */
  private readonly text: string[] = [];

  push(bytes: Uint8Array | undefined): void {
    if (bytes === undefined || bytes.length === 0) return;
    const next = new Uint8Array(this.pending.length + bytes.length);
    next.set(this.pending, 0);
    next.set(bytes, this.pending.length);
    this.pending = next;
    this.text.push(new TextDecoder().decode(bytes));
  }

  get size(): number {
    return this.pending.length;
  }

  /** Delivers a random-size prefix (1 byte up to everything) to `to`. */
  deliver(rng: Rng, to: Engine, now: number): void {
    if (this.pending.length === 0) return;
    const n = rng.chance(0.3) ? this.pending.length : rng.int(1, this.pending.length);
    const chunk = this.pending.slice(0, n);
    this.pending = this.pending.slice(n);
    to.receiveBytes(chunk, now);
  }

  /** Every message that was written into this pipe, parsed. */
  messages(): JsonObject[] {
    return this.text
      .join("")
      .split("\n")
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as JsonObject);
  }
}

const CLIENT_CAPS: JsonObject = { roots: { listChanged: true }, sampling: {} };
const SERVER_CAPS: JsonObject = { tools: { listChanged: true }, prompts: {}, resources: { subscribe: true }, logging: {} };

class Link {
  readonly rng: Rng;
  now = 0;
  readonly client: Engine;
  readonly server: Engine;
  readonly c2s = new Pipe();
  readonly s2c = new Pipe();
  readonly clientEvents: EngineEvent[] = [];
  readonly serverEvents: EngineEvent[] = [];
  /** Called for each server event as it is drained (the server host). */
  onServerEvent: (e: EngineEvent) => void = () => {};
  onClientEvent: (e: EngineEvent) => void = () => {};

  constructor(
    seed: number,
    clientOptions: Partial<ConstructorParameters<typeof Engine>[0]> = {},
    serverOptions: Partial<ConstructorParameters<typeof Engine>[0]> = {},
  ) {
    this.rng = new Rng(seed);
    this.client = new Engine({ role: "client", info: { name: "sim-client", version: "1" }, capabilities: CLIENT_CAPS, ...clientOptions });
    this.server = new Engine({ role: "server", info: { name: "sim-server", version: "1" }, capabilities: SERVER_CAPS, ...serverOptions });
  }

  /** The drain contract: outbound first, then events (hosts may issue commands while handling them), again until quiet. */
  flush(): void {
    for (let round = 0; round < 100; round++) {
      this.c2s.push(this.client.takeBytes());
      this.s2c.push(this.server.takeBytes());
      const ce: EngineEvent[] = [];
      const se: EngineEvent[] = [];
      this.client.takeEvents(ce);
      this.server.takeEvents(se);
      if (ce.length === 0 && se.length === 0) return;
      for (const e of ce) {
        this.clientEvents.push(e);
        this.onClientEvent(e);
      }
      for (const e of se) {
        this.serverEvents.push(e);
        this.onServerEvent(e);
      }
    }
    throw new Error("flush did not settle");
  }

  /** Delivers one random chunk in one random direction that has bytes waiting. */
  deliverOne(): boolean {
    const dirs: ("c2s" | "s2c")[] = [];
    if (this.c2s.size > 0) dirs.push("c2s");
    if (this.s2c.size > 0) dirs.push("s2c");
    if (dirs.length === 0) return false;
    if (this.rng.pick(dirs) === "c2s") this.c2s.deliver(this.rng, this.server, this.now);
    else this.s2c.deliver(this.rng, this.client, this.now);
    this.flush();
    return true;
  }

  /** Delivers everything in flight, in random chunks and interleaving. */
  settle(): void {
    this.flush();
    while (this.deliverOne()) {
      // keep going
    }
  }

  handshake(): void {
    this.client.initialize();
    this.settle();
    assert.equal(this.client.phase, "operating");
    assert.equal(this.server.phase, "operating");
  }

  violations(): EngineEvent[] {
    return [...this.clientEvents, ...this.serverEvents].filter((e) => e.kind === "violation");
  }
}

const SEEDS = 600;

// ── Handshake and round trips ───────────────────────────────────────────────────────

test("L-01, V-02: handshake through randomly chunked bytes agrees on version, info and capabilities", () => {
  for (let seed = 1; seed <= 200; seed++) {
    const link = new Link(seed);
    link.handshake();
    const { client, server } = link;
    assert.equal(client.negotiatedVersion, "2025-11-25");
    assert.equal(server.negotiatedVersion, "2025-11-25");
    assert.deepEqual(client.peerInfo, { name: "sim-server", version: "1" });
    assert.deepEqual(server.peerInfo, { name: "sim-client", version: "1" });
    assert.deepEqual(client.peerCapabilities, SERVER_CAPS);
    assert.deepEqual(server.peerCapabilities, CLIENT_CAPS);
    assert.deepEqual(
      link.clientEvents.map((e) => e.kind),
      ["negotiated", "ready"],
    );
    assert.deepEqual(
      link.serverEvents.map((e) => e.kind),
      ["negotiated", "ready"],
    );
    // On the wire: initialize, then notifications/initialized; one result back.
    assert.deepEqual(
      link.c2s.messages().map((m) => m.method),
      ["initialize", "notifications/initialized"],
    );
    assert.deepEqual(
      link.s2c.messages().map((m) => m.id),
      [0],
    );
  }
});

test("V-02: a client offering an older version list negotiates it through bytes", () => {
  for (const versions of [["2024-11-05"], ["2025-03-26"], ["2025-06-18"], ["2024-11-05", "2025-06-18"]] as const) {
    const link = new Link(7, { versions });
    link.handshake();
    const newest = versions[versions.length - 1];
    assert.equal(link.client.negotiatedVersion, newest);
    assert.equal(link.server.negotiatedVersion, newest);
  }
});

test("ID-04: request/response round trips in both directions match by id, whatever the chunking", () => {
  for (let seed = 1; seed <= 100; seed++) {
    const link = new Link(seed);
    link.handshake();
    const served: string[] = [];
    link.onServerEvent = (e) => {
      if (e.kind === "request") {
        served.push(e.method);
        link.server.respond(e.id, { echo: e.method, n: (e.params as JsonObject | undefined)?.n ?? null });
      }
    };
    link.onClientEvent = (e) => {
      if (e.kind === "request") link.client.respond(e.id, { roots: [{ uri: "file:///r" }] });
    };
    const n = link.rng.int(1, 8);
    const ids: number[] = [];
    for (let i = 0; i < n; i++)
      ids.push(link.client.request(link.rng.pick(["tools/list", "prompts/list", "tools/call"]), { n: i, name: "t" }));
    const sid = link.server.request("roots/list");
    link.settle();
    const responses = link.clientEvents.filter((e) => e.kind === "response");
    assert.deepEqual(
      responses.map((e) => (e.kind === "response" ? e.id : -1)).sort((a, b) => a - b),
      ids,
    );
    for (const r of responses) if (r.kind === "response") assert.equal(r.result.n, ids.indexOf(r.id));
    const back = link.serverEvents.filter((e) => e.kind === "response");
    assert.equal(back.length, 1);
    assert.ok(back[0]?.kind === "response" && back[0].id === sid && back[0].method === "roots/list");
    assert.equal(served.length, n);
    assert.equal(link.client.pendingOutboundCount, 0);
    assert.equal(link.server.pendingOutboundCount, 0);
    assert.equal(link.server.pendingInboundCount, 0);
    assert.deepEqual(link.violations(), []);
  }
});

test("G-02: ping is answered by the engine itself in both directions", () => {
  const link = new Link(3);
  link.handshake();
  const a = link.client.request("ping");
  const b = link.server.request("ping");
  link.settle();
  assert.ok(link.clientEvents.some((e) => e.kind === "response" && e.id === a && e.method === "ping"));
  assert.ok(link.serverEvents.some((e) => e.kind === "response" && e.id === b && e.method === "ping"));
  assert.ok(!link.clientEvents.some((e) => e.kind === "request"));
  assert.ok(!link.serverEvents.some((e) => e.kind === "request"));
});

// ── Cancel versus respond ───────────────────────────────────────────────────────────

interface Tracked {
  id: number;
  /** What cancel() returned, if the client host called it. */
  cancelResult: boolean | undefined;
  willCancel: boolean;
}

type Tally = Record<"responded" | "cancelled" | "cancelLost" | "responderSawCancel" | "droppedRespond", number>;

/**
 * One seeded run: the requester sends 1-3 requests; its host cancels some of them at random
 * moments while the responder's host answers at random moments (sometimes after it saw the
 * cancel); chunks move in random sizes and interleavings, FIFO per direction.
 */
function cancelRace(seed: number, requesterRole: "client" | "server", tally: Tally): void {
  const link = new Link(seed * 7919 + (requesterRole === "server" ? 1 : 0));
  link.handshake();
  const { rng } = link;
  const requester = requesterRole === "client" ? link.client : link.server;
  const responder = requesterRole === "client" ? link.server : link.client;
  const responderPipe = requesterRole === "client" ? link.s2c : link.c2s;
  const requesterEvents = requesterRole === "client" ? link.clientEvents : link.serverEvents;
  const responderPending = new Map<string | number, { cancelled: boolean; answered: boolean }>();
  const onResponderEvent = (e: EngineEvent): void => {
    if (e.kind === "request") responderPending.set(e.id, { cancelled: false, answered: false });
    if (e.kind === "cancelled") {
      const p = responderPending.get(e.id);
      assert.ok(p !== undefined, `seed ${seed}: cancelled event for an unknown id`);
      assert.ok(!p.answered, `seed ${seed}: cancelled event after the responder answered`);
      p.cancelled = true;
    }
  };
  if (requesterRole === "client") link.onServerEvent = onResponderEvent;
  else link.onClientEvent = onResponderEvent;
  const send = (i: number): number =>
    requesterRole === "client"
      ? requester.request("tools/call", { name: `slow-${i}` })
      : requester.request("sampling/createMessage", { messages: [], maxTokens: 5 + i });
  const answer: JsonObject =
    requesterRole === "client" ? { content: [], isError: false } : { role: "assistant", content: { type: "text", text: "hi" }, model: "m" };
  const count = rng.int(1, 3);
  const tracked: Tracked[] = [];
  for (let i = 0; i < count; i++) tracked.push({ id: send(i), cancelResult: undefined, willCancel: rng.chance(0.6) });
  link.flush();
  // Random actions until every request has been cancelled and/or answered by its hosts.
  for (let steps = 0; steps < 10_000; steps++) {
    const actions: (() => void)[] = [];
    if (link.c2s.size > 0 || link.s2c.size > 0) actions.push(() => link.deliverOne());
    for (const t of tracked) {
      if (t.willCancel && t.cancelResult === undefined) {
        actions.push(() => {
          t.cancelResult = requester.cancel(t.id, "user pressed stop");
          link.flush();
        });
      }
    }
    for (const [id, p] of responderPending) {
      if (!p.answered) {
        actions.push(() => {
          // A host that saw the cancel may still race and answer; the engine must drop it.
          const before = responderPipe.size;
          responder.respond(id, answer);
          p.answered = true;
          link.flush();
          if (p.cancelled) {
            tally.droppedRespond++;
            assert.equal(responderPipe.size, before, `seed ${seed}: responder answered ${String(id)} after processing its cancel`);
          }
        });
      }
    }
    if (actions.length === 0) break;
    rng.pick(actions)();
  }
  link.settle();
  // Exactly one outcome per request on the requester.
  for (const t of tracked) {
    const responses = requesterEvents.filter((e) => (e.kind === "response" || e.kind === "error-response") && e.id === t.id);
    const other = requesterEvents.filter((e) => (e.kind === "timeout" || e.kind === "connection-closed") && e.id === t.id);
    assert.equal(other.length, 0, `seed ${seed}`);
    if (t.cancelResult === true) {
      assert.equal(responses.length, 0, `seed ${seed}: request ${t.id} cancelled and answered`);
      tally.cancelled++;
    } else {
      assert.equal(responses.length, 1, `seed ${seed}: request ${t.id} not cancelled, ${responses.length} responses`);
      tally.responded++;
      if (t.cancelResult === false) tally.cancelLost++;
    }
  }
  // Responder side: at most one answer per id on the wire, none after a processed cancel.
  const ids = new Set(tracked.map((t) => t.id));
  const answers = responderPipe.messages().filter((m) => ("result" in m || "error" in m) && ids.has(m.id as number));
  const seen = new Set<unknown>();
  for (const a of answers) {
    assert.ok(!seen.has(a.id), `seed ${seed}: two answers for ${String(a.id)}`);
    seen.add(a.id);
    assert.ok(!(responderPending.get(a.id as number)?.cancelled ?? false), `seed ${seed}: answer to cancelled ${String(a.id)}`);
  }
  for (const [id, p] of responderPending) {
    if (p.cancelled) {
      tally.responderSawCancel++;
      const t = tracked.find((x) => x.id === id);
      assert.equal(t?.cancelResult, true, `seed ${seed}: responder saw a cancel the requester never sent`);
    }
  }
  assert.equal(responderPending.size, count, `seed ${seed}: every request reached the responder`);
  assert.deepEqual(link.violations(), [], `seed ${seed}`);
  assert.equal(requester.pendingOutboundCount, 0, `seed ${seed}`);
  assert.equal(responder.pendingInboundCount, 0, `seed ${seed}`);
}

for (const requesterRole of ["client", "server"] as const) {
  test(`X-07: cancel versus respond (${requesterRole} requests): exactly one outcome per request over ${SEEDS} seeded interleavings`, (t) => {
    const tally: Tally = { responded: 0, cancelled: 0, cancelLost: 0, responderSawCancel: 0, droppedRespond: 0 };
    for (let seed = 1; seed <= SEEDS; seed++) cancelRace(seed, requesterRole, tally);
    // The seeds must exercise every side of the race.
    for (const [k, v] of Object.entries(tally)) assert.ok(v > 10, `${k}: ${v}`);
    t.diagnostic(JSON.stringify(tally));
  });
}

test("X-05: cancel: a second cancel of the same request and a cancel of an answered one return false and send nothing", () => {
  const link = new Link(11);
  link.handshake();
  const id = link.client.request("tools/list");
  assert.equal(link.client.cancel(id), true);
  link.flush();
  const sent = link.c2s.size;
  assert.equal(link.client.cancel(id), false);
  link.flush();
  assert.equal(link.c2s.size, sent);
  link.onServerEvent = (e) => {
    if (e.kind === "request") link.server.respond(e.id, { tools: [] });
  };
  const id2 = link.client.request("tools/list");
  link.settle();
  assert.equal(link.client.cancel(id2), false);
  link.flush();
  assert.equal(link.c2s.size, 0);
  // Cancellation reasons reach the server host.
  const id3 = link.client.request("prompts/list");
  link.onServerEvent = () => {};
  link.settle();
  link.client.cancel(id3, "no longer needed");
  link.settle();
  const ev = link.serverEvents.find((e) => e.kind === "cancelled");
  assert.ok(ev !== undefined && ev.kind === "cancelled" && ev.method === "prompts/list" && ev.reason === "no longer needed");
});

// ── Timeout versus response ─────────────────────────────────────────────────────────

test(`T-02, X-07: timeout versus response: exactly one of timeout or response over ${SEEDS} seeds`, (t) => {
  const tally = { timeout: 0, response: 0, lateDropped: 0 };
  for (let seed = 1; seed <= SEEDS; seed++) {
    const link = new Link(seed * 104729 + 1);
    link.handshake();
    const { rng, client, server } = link;
    let serverId: string | number | undefined;
    let serverCancelled = false;
    link.onServerEvent = (e) => {
      if (e.kind === "request") serverId = e.id;
      if (e.kind === "cancelled") serverCancelled = true;
    };
    const budget = rng.int(1, 30);
    const options: RequestOptions = rng.chance(0.5) ? { deadline: link.now + budget } : { totalDeadline: link.now + budget };
    const id = client.request("tools/call", { name: "maybe-slow" }, options);
    link.flush();
    assert.equal(client.nextDeadline(), link.now + budget);
    let responded = false;
    for (let steps = 0; steps < 10_000; steps++) {
      const actions: (() => void)[] = [];
      if (link.c2s.size > 0 || link.s2c.size > 0) actions.push(() => link.deliverOne());
      if (serverId !== undefined && !responded) {
        actions.push(() => {
          const before = link.s2c.size;
          server.respond(serverId as string | number, { content: [{ type: "text", text: "done" }] });
          responded = true;
          link.flush();
          // After the timeout's cancellation reached the server, its answer is dropped.
          if (serverCancelled) assert.equal(link.s2c.size, before, `seed ${seed}: answered after the cancel`);
        });
      }
      // Time passes; the host honours nextDeadline() and sometimes calls handleTimeout spuriously.
      actions.push(() => {
        link.now += rng.int(0, 4);
        const d = client.nextDeadline();
        if ((d !== undefined && d <= link.now) || rng.chance(0.2)) client.handleTimeout(link.now);
        link.flush();
      });
      const done = (responded || serverCancelled) && link.c2s.size === 0 && link.s2c.size === 0 && client.pendingOutboundCount === 0;
      if (done) break;
      rng.pick(actions)();
    }
    link.settle();
    const timeouts = link.clientEvents.filter((e) => e.kind === "timeout" && e.id === id);
    const responses = link.clientEvents.filter((e) => e.kind === "response" && e.id === id);
    assert.equal(timeouts.length + responses.length, 1, `seed ${seed}: ${timeouts.length} timeouts, ${responses.length} responses`);
    if (timeouts.length === 1) {
      tally.timeout++;
      const t = timeouts[0];
      assert.ok(t?.kind === "timeout" && t.deadline === ("deadline" in options ? "inactivity" : "total"));
      assert.ok(link.now >= budget, `seed ${seed}: timed out early`);
      // The timeout sent notifications/cancelled for the request.
      assert.ok(link.c2s.messages().some((m) => m.method === "notifications/cancelled" && (m.params as JsonObject).requestId === id));
      if (responded && !serverCancelled) tally.lateDropped++;
    } else {
      tally.response++;
    }
    assert.deepEqual(link.violations(), [], `seed ${seed}`);
    assert.equal(client.nextDeadline(), undefined, `seed ${seed}`);
    assert.equal(client.pendingOutboundCount, 0);
  }
  for (const [k, v] of Object.entries(tally)) assert.ok(v > 10, `${k}: ${v}`);
  t.diagnostic(JSON.stringify(tally));
});

test("T-04: deadlines: progress pushes back the inactivity deadline but never the total one", () => {
  const link = new Link(5);
  link.handshake();
  const { client, server } = link;
  let sid: string | number | undefined;
  link.onServerEvent = (e) => {
    if (e.kind === "request") sid = e.id;
  };
  const id = client.request(
    "tools/call",
    { name: "long" },
    { deadline: 10, totalDeadline: 50, resetOnProgressMs: 10, progressToken: true },
  );
  link.settle();
  assert.equal(client.nextDeadline(), 10);
  link.now = 8;
  server.sendProgress(sid as string | number, 1);
  link.settle();
  assert.equal(client.nextDeadline(), 18);
  client.handleTimeout(15);
  link.flush();
  assert.ok(!link.clientEvents.some((e) => e.kind === "timeout"));
  link.now = 45;
  server.sendProgress(sid as string | number, 2);
  link.settle();
  assert.equal(client.nextDeadline(), 50);
  client.handleTimeout(50);
  link.flush();
  const t = link.clientEvents.find((e) => e.kind === "timeout");
  assert.ok(t?.kind === "timeout" && t.id === id && t.deadline === "total");
});

// ── Progress then response ──────────────────────────────────────────────────────────

test("P-04: progress notifications arrive in order before the response; progress after it is refused locally", () => {
  for (let seed = 1; seed <= 200; seed++) {
    const link = new Link(seed * 31);
    link.handshake();
    const { rng, client, server } = link;
    const useOwnToken = rng.chance(0.5);
    const token = useOwnToken ? `tok-${seed}` : true;
    const id = client.request("tools/call", { name: "long" }, { progressToken: token });
    const steps = rng.int(1, 6);
    let sid: string | number | undefined;
    let sentToken: unknown;
    link.onServerEvent = (e) => {
      if (e.kind === "request") {
        sid = e.id;
        sentToken = e.progressToken;
      }
    };
    link.settle();
    assert.equal(sentToken, useOwnToken ? `tok-${seed}` : id);
    let value = 0;
    for (let i = 0; i < steps; i++) {
      value += rng.int(1, 5);
      server.sendProgress(sid as string | number, value, 100, `step ${i}`);
      link.flush();
      if (rng.chance(0.5)) link.deliverOne();
    }
    server.respond(sid as string | number, { content: [] });
    assert.throws(
      () => server.sendProgress(sid as string | number, value + 1),
      (e: unknown) => e instanceof LocalProtocolError && e.rule === "P-04",
    );
    link.settle();
    const mine = link.clientEvents.filter((e) => (e.kind === "progress" || e.kind === "response") && e.id === id);
    assert.equal(mine.length, steps + 1);
    assert.equal(mine[mine.length - 1]?.kind, "response");
    let last = -Infinity;
    for (const e of mine.slice(0, -1)) {
      assert.ok(e.kind === "progress");
      assert.ok(e.progress > last);
      last = e.progress;
      assert.equal(e.total, 100);
      assert.equal(e.token, useOwnToken ? `tok-${seed}` : id);
      assert.match(e.message ?? "", /^step \d$/);
    }
    assert.deepEqual(link.violations(), []);
  }
});

test("P-05: progress that does not increase is refused by the sender and flagged by the receiver", () => {
  const link = new Link(9);
  link.handshake();
  let sid: string | number | undefined;
  link.onServerEvent = (e) => {
    if (e.kind === "request") sid = e.id;
  };
  const id = link.client.request("tools/call", { name: "x" }, { progressToken: "p" });
  link.settle();
  link.server.sendProgress(sid as string | number, 5);
  assert.throws(
    () => link.server.sendProgress(sid as string | number, 5),
    (e: unknown) => e instanceof LocalProtocolError && e.rule === "P-05",
  );
  link.settle();
  // A peer that ignores the rule: the client reports a violation and no progress event.
  link.client.receiveMessage({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p", progress: 4 } });
  link.flush();
  const v = link.clientEvents.find((e) => e.kind === "violation");
  assert.ok(v?.kind === "violation" && v.rule === "P-05" && v.id === id);
  assert.equal(link.clientEvents.filter((e) => e.kind === "progress").length, 1);
});

// ── Close mid-flight ────────────────────────────────────────────────────────────────

test("S-01: close mid-flight settles every pending request with exactly one connection-closed event", () => {
  for (let seed = 1; seed <= 200; seed++) {
    const link = new Link(seed * 17);
    link.handshake();
    const { rng, client, server } = link;
    link.onServerEvent = (e) => {
      if (e.kind === "request" && rng.chance(0.4)) server.respond(e.id, { tools: [] });
    };
    const n = rng.int(0, 10);
    const ids: number[] = [];
    for (let i = 0; i < n; i++) ids.push(client.request("tools/list", {}, rng.chance(0.5) ? { deadline: 1000 } : {}));
    link.flush();
    for (let i = rng.int(0, 20); i > 0; i--) link.deliverOne();
    const answered = new Set(link.clientEvents.flatMap((e) => (e.kind === "response" ? [e.id] : [])));
    const pendingBefore = client.pendingOutboundCount;
    assert.equal(pendingBefore, n - answered.size);
    const mark = link.clientEvents.length;
    if (rng.chance(0.5)) client.close();
    else client.receiveEof();
    link.flush();
    const after = link.clientEvents.slice(mark);
    const closedIds = after.flatMap((e) => (e.kind === "connection-closed" ? [e.id] : []));
    assert.deepEqual(
      [...closedIds].sort((a, b) => a - b),
      ids.filter((id) => !answered.has(id)),
      `seed ${seed}`,
    );
    assert.equal(after[after.length - 1]?.kind, "closed");
    assert.equal(after.filter((e) => e.kind === "closed").length, 1);
    assert.equal(client.isClosed, true);
    assert.equal(client.pendingOutboundCount, 0);
    assert.equal(client.nextDeadline(), undefined);
    // Sticky: inputs are ignored, commands throw, a second close is a no-op.
    client.receiveBytes(new TextEncoder().encode('{"jsonrpc":"2.0","id":0,"result":{}}\n'));
    client.handleTimeout(1e9);
    client.close();
    client.receiveEof();
    const more: EngineEvent[] = [];
    client.takeEvents(more);
    assert.deepEqual(more, []);
    assert.throws(
      () => client.request("tools/list"),
      (e: unknown) => e instanceof LocalProtocolError && e.rule === "S-01",
    );
    assert.throws(
      () => client.notify("notifications/roots/list_changed"),
      (e: unknown) => e instanceof LocalProtocolError && e.rule === "S-01",
    );
  }
});

test("S-01: EOF on the server settles the server's own requests; its host can no longer answer", () => {
  const link = new Link(23);
  link.handshake();
  const { client, server } = link;
  const a = server.request("roots/list");
  const b = server.request("sampling/createMessage", { messages: [], maxTokens: 5 });
  const c = client.request("tools/list");
  link.settle();
  const req = link.serverEvents.find((e) => e.kind === "request");
  assert.ok(req?.kind === "request");
  const mark = link.serverEvents.length;
  server.receiveEof();
  link.flush();
  const after = link.serverEvents.slice(mark);
  assert.deepEqual(
    after.map((e) => (e.kind === "connection-closed" ? `${e.kind}:${e.id}:${e.method}` : e.kind)),
    [`connection-closed:${a}:roots/list`, `connection-closed:${b}:sampling/createMessage`, "closed"],
  );
  const closed = after[after.length - 1];
  assert.ok(closed?.kind === "closed" && closed.reason === "eof");
  assert.equal(server.pendingInboundCount, 0);
  assert.throws(
    () => server.respond(req.id, { tools: [] }),
    (e: unknown) => e instanceof LocalProtocolError && e.rule === "S-01",
  );
  // The client still waits for its own request until its transport closes too.
  assert.equal(client.pendingOutboundCount, 1);
  client.receiveEof();
  link.flush();
  assert.ok(link.clientEvents.some((e) => e.kind === "connection-closed" && e.id === c && e.method === "tools/list"));
});

test("S-01: queued output still drains after close", () => {
  const link = new Link(29);
  link.handshake();
  link.client.request("tools/list");
  link.client.close();
  const bytes = link.client.takeBytes();
  assert.ok(bytes !== undefined);
  assert.match(new TextDecoder().decode(bytes), /"method":"tools\/list"/);
  assert.equal(link.client.takeBytes(), undefined);
});
