// The deadlines of calls made with the client's default timeout, which the client keeps in a
// FIFO of its own (lib/peer/client/default-deadlines.ts) and hands to the engine only when they pass:
// such a call times out exactly as one whose deadline the engine held from the start (error,
// notifications/cancelled, late answer dropped, timer arming), in id order with custom-timeout
// calls, after a clock jump backwards too; a settled call leaves nothing behind; the ring
// stays bounded by the calls in flight.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  PeerAbortController,
  ConnectionClosedError,
  RequestAbortedError,
  RequestTimeoutError,
  type HandlerContext,
} from "../../lib/peer/index.js";
import { DeadlineRing } from "../../lib/peer/client/default-deadlines.js";
import type { CallToolResult } from "../../lib/types/index.js";
import { Pair, ScriptedServer, initializeResult, lines, track, type PairOptions } from "../support/peer-harness.js";

const DONE: CallToolResult = { content: [{ type: "text", text: "done" }] };

async function slowPair(
  options: PairOptions = {},
): Promise<{ pair: Pair; calls: Array<{ ctx: HandlerContext; resolve: (r: CallToolResult) => void }> }> {
  const calls: Array<{ ctx: HandlerContext; resolve: (r: CallToolResult) => void }> = [];
  const pair = new Pair({
    ...options,
    setup: (server) => server.tool("slow", {}, (_args, ctx) => new Promise<CallToolResult>((resolve) => calls.push({ ctx, resolve }))),
  });
  await pair.connect();
  return { pair, calls };
}

function timeoutError(error: unknown, deadline: "inactivity" | "total"): RequestTimeoutError {
  assert.ok(error instanceof RequestTimeoutError, `expected RequestTimeoutError, got ${String(error)}`);
  assert.equal(error.deadline, deadline);
  return error;
}

/** A connected client against a server that answers initialize and nothing else; its clock is set by hand. */
async function silentServer(defaultTimeoutMs: number): Promise<ScriptedServer> {
  const scripted = new ScriptedServer((m) => (m.method === "initialize" ? initializeResult() : undefined), { defaultTimeoutMs });
  const connected = track(scripted.client.connect());
  await scripted.settle();
  assert.equal(connected.state, "resolved");
  scripted.host.armCalls.length = 0;
  return scripted;
}

async function fire(scripted: ScriptedServer, at: number): Promise<void> {
  scripted.clock.now = at;
  scripted.host.fire(() => scripted.client.driver.onTimer());
  await scripted.settle();
}

test("T-01, T-02, X-06: a default-timeout call times out at its deadline as the engine would: error, notifications/cancelled, late answer dropped, timer disarmed", async () => {
  const diagnostics: string[] = [];
  const { pair, calls } = await slowPair({ client: { defaultTimeoutMs: 1000, onDiagnostic: (e) => diagnostics.push(e.rule) } });
  pair.clientHost.armCalls.length = 0;
  const call = track(pair.client.callTool("slow"));
  await pair.settle();
  assert.deepEqual(pair.clientHost.armCalls, [1000], "armed for the default deadline");
  await pair.advanceTo(999);
  assert.equal(call.state, "pending", "pending one millisecond before");
  await pair.advanceTo(1000);
  const error = timeoutError(call.error, "inactivity");
  const id = pair.clientHost.messages("tools/call")[0]?.id;
  assert.equal(error.method, "tools/call");
  assert.equal(error.requestId, id);
  assert.match(error.message, /no answer or progress after 1000 ms/);
  assert.deepEqual(
    pair.clientHost.messages("notifications/cancelled").map((m) => m.params),
    [{ requestId: id, reason: "timeout (inactivity deadline)" }],
  );
  assert.equal(calls[0]?.ctx.signal.aborted, true, "the server handler saw the cancellation");
  assert.deepEqual(pair.clientHost.armCalls, [1000], "a fired timer is spent: nothing left to arm or disarm");
  assert.equal(pair.client.engine.nextDeadline(), undefined);
  // The answer that crossed the cancellation is dropped silently, as for an engine deadline.
  pair.client.driver.receiveBytes(lines({ jsonrpc: "2.0", id, result: { content: [] } }));
  await pair.settle();
  assert.deepEqual(diagnostics, []);
});

test("calls answered before their default deadline leave nothing behind: no timer, no engine deadline, an empty ring", async () => {
  const { pair } = await slowPair({ client: { defaultTimeoutMs: 1000 } });
  pair.clientHost.armCalls.length = 0;
  for (let i = 0; i < 50; i++) {
    await pair.advanceTo(i * 10);
    const ping = track(pair.client.ping());
    await pair.settle();
    assert.equal(ping.state, "resolved");
  }
  assert.equal(pair.clientHost.armed, undefined);
  assert.equal(pair.client.engine.nextDeadline(), undefined);
  // Each ping armed its deadline and disarmed it once answered, as an engine deadline does.
  assert.deepEqual(pair.clientHost.armCalls, Array.from({ length: 50 }, (_, i) => [i * 10 + 1000, undefined]).flat());
  await pair.advanceTo(100_000);
  assert.deepEqual(pair.clientHost.messages("notifications/cancelled"), [], "nothing fired later");
});

test("T-03: default and custom timeouts interleave: each call times out at its own deadline, the timer armed for the earliest", async () => {
  const { pair } = await slowPair({ client: { defaultTimeoutMs: 1000 } });
  pair.clientHost.armCalls.length = 0;
  const a = track(pair.client.callTool("slow", { n: "a" })); // 1000, default
  await pair.advanceTo(100);
  const b = track(pair.client.callTool("slow", { n: "b" }, { timeoutMs: 500 })); // 600, custom
  await pair.advanceTo(200);
  const c = track(pair.client.callTool("slow", { n: "c" })); // 1200, default
  const d = track(pair.client.callTool("slow", { n: "d" }, { timeoutMs: 900 })); // 1100, custom
  await pair.settle();
  assert.deepEqual(pair.clientHost.armCalls, [1000, 600]);
  await pair.advanceTo(600);
  timeoutError(b.error, "inactivity");
  assert.equal(a.state, "pending");
  assert.equal(pair.clientHost.armed, 1000);
  await pair.advanceTo(1000);
  timeoutError(a.error, "inactivity");
  assert.equal(pair.clientHost.armed, 1100);
  await pair.advanceTo(1100);
  timeoutError(d.error, "inactivity");
  assert.equal(c.state, "pending");
  assert.equal(pair.clientHost.armed, 1200);
  await pair.advanceTo(1200);
  assert.match(timeoutError(c.error, "inactivity").message, /after 1000 ms/);
  assert.equal(pair.clientHost.armed, undefined);
  const ids = pair.clientHost.messages("tools/call").map((m) => m.id);
  assert.deepEqual(
    pair.clientHost.messages("notifications/cancelled").map((m) => (m.params as { requestId: unknown }).requestId),
    [ids[1], ids[0], ids[3], ids[2]],
    "cancelled in the order of the deadlines",
  );
});

test("T-02: a late timer expires default and custom deadlines together, in id order, as the engine alone would", async () => {
  const scripted = await silentServer(1000);
  const order: string[] = [];
  const settleOrder = (name: string, p: Promise<unknown>) =>
    p.catch((e: unknown) => order.push(`${name}:${(e as RequestTimeoutError).deadline}`));
  void settleOrder("a", scripted.client.ping()); // 1000, default
  scripted.clock.now = 50;
  void settleOrder("b", scripted.client.ping({ timeoutMs: 400 })); // 450, custom
  void settleOrder("c", scripted.client.ping()); // 1050, default
  void settleOrder("d", scripted.client.ping({ timeoutMs: 10, maxTotalMs: 5 })); // 55, total
  await scripted.settle();
  assert.deepEqual(scripted.host.armCalls, [55], "sent in one pass: armed once, for the earliest");
  // The host's timer fires late, after every deadline: one pass times them all out.
  await fire(scripted, 5000);
  assert.deepEqual(order, ["a:inactivity", "b:inactivity", "c:inactivity", "d:total"], "rejected in id order");
  const pings = scripted.host.messages("ping").map((m) => m.id);
  assert.deepEqual(
    scripted.host.messages("notifications/cancelled").map((m) => m.params),
    [
      { requestId: pings[0], reason: "timeout (inactivity deadline)" },
      { requestId: pings[1], reason: "timeout (inactivity deadline)" },
      { requestId: pings[2], reason: "timeout (inactivity deadline)" },
      { requestId: pings[3], reason: "timeout (total deadline)" },
    ],
  );
  assert.equal(scripted.host.armed, undefined);
});

test("after the clock jumps backwards, a default deadline earlier than those before it still times out first", async () => {
  const scripted = await silentServer(1000);
  scripted.clock.now = 500;
  const first = track(scripted.client.ping()); // 1500
  await scripted.settle();
  scripted.clock.now = 100; // the host's clock went back
  const second = track(scripted.client.ping()); // 1100
  const third = track(scripted.client.ping()); // 1100
  await scripted.settle();
  assert.deepEqual(scripted.host.armCalls, [1500, 1100], "re-armed for the earlier deadline");
  await fire(scripted, 1099);
  assert.equal(second.state, "pending");
  await fire(scripted, 1100);
  timeoutError(second.error, "inactivity");
  timeoutError(third.error, "inactivity");
  assert.equal(first.state, "pending");
  assert.equal(scripted.host.armed, 1500);
  await fire(scripted, 1500);
  timeoutError(first.error, "inactivity");
  assert.equal(scripted.host.armed, undefined);
});

test("T-04: with the default timeout, resetTimeoutOnProgress still moves the deadline, and maxTotalMs still caps it", async () => {
  const { pair, calls } = await slowPair({ client: { defaultTimeoutMs: 1000 } });
  const reset = track(pair.client.callTool("slow", { n: "reset" }, { resetTimeoutOnProgress: true }));
  const capped = track(pair.client.callTool("slow", { n: "capped" }, { maxTotalMs: 300 }));
  await pair.advanceTo(300);
  assert.match(timeoutError(capped.error, "total").message, /total time cap after 300 ms/);
  await pair.advanceTo(800);
  calls[0]?.ctx.progress(1);
  await pair.settle();
  assert.equal(pair.clientHost.armed, 1800, "progress pushed the default deadline back");
  await pair.advanceTo(1799);
  assert.equal(reset.state, "pending");
  await pair.advanceTo(1800);
  assert.match(timeoutError(reset.error, "inactivity").message, /no answer or progress after 1000 ms/);
});

test("X-01: an aborted or closed default-timeout call no longer holds the timer, and nothing fires for it later", async () => {
  const { pair } = await slowPair({ client: { defaultTimeoutMs: 1000 } });
  const controller = new PeerAbortController();
  const aborted = track(pair.client.callTool("slow", {}, { signal: controller.signal }));
  await pair.settle();
  assert.equal(pair.clientHost.armed, 1000);
  controller.abort("stop");
  await pair.settle();
  assert.ok(aborted.error instanceof RequestAbortedError);
  assert.equal(pair.clientHost.armed, undefined);
  await pair.advanceTo(500);
  const closed = track(pair.client.callTool("slow"));
  await pair.settle();
  assert.equal(pair.clientHost.armed, 1500);
  pair.client.close();
  await pair.settle();
  assert.ok(closed.error instanceof ConnectionClosedError);
  assert.equal(pair.clientHost.armed, undefined);
  await pair.advanceTo(5000);
  assert.deepEqual(
    pair.clientHost.messages("notifications/cancelled").map((m) => (m.params as { reason?: unknown }).reason),
    ["stop"],
    "only the abort's cancellation: no timeout fired after close",
  );
});

test("T-03: a call answered while another's default deadline is pending leaves the earlier deadline armed", async () => {
  const { pair, calls } = await slowPair({ client: { defaultTimeoutMs: 1000 } });
  pair.clientHost.armCalls.length = 0;
  const a = track(pair.client.callTool("slow", { n: "a" })); // 1000
  await pair.advanceTo(300);
  const b = track(pair.client.callTool("slow", { n: "b" })); // 1300
  await pair.settle();
  calls[0]?.resolve(DONE);
  await pair.settle();
  assert.equal(a.state, "resolved");
  assert.deepEqual(pair.clientHost.armCalls, [1000, 1300], "re-armed for the next live deadline");
  await pair.advanceTo(1300);
  timeoutError(b.error, "inactivity");
});

// ── the ring itself ────────────────────────────────────────────────────────────

test("DeadlineRing: earliest live deadline first, settled entries skipped, an earlier deadline than the tail's refused", () => {
  const live = new Set<object>();
  const ring = new DeadlineRing<object>((item) => live.has(item));
  const [a, b, c] = [{}, {}, {}];
  for (const [item, due] of [
    [a, 10],
    [b, 20],
    [c, 20],
  ] as Array<[object, number]>) {
    live.add(item);
    assert.equal(ring.push(item, due), true);
  }
  assert.equal(ring.accepts(19), false);
  assert.equal(ring.push({}, 19), false, "out of order: not kept");
  assert.equal(ring.size, 3);
  assert.equal(ring.next(), 10);
  live.delete(a);
  assert.equal(ring.next(), 20, "a settled head is skipped");
  assert.equal(ring.size, 2);
  const expired: Array<[object, number]> = [];
  ring.takeDue(19, (item, due) => expired.push([item, due]));
  assert.equal(expired.length, 0, "nothing due before 20");
  live.delete(b);
  ring.takeDue(20, (item, due) => expired.push([item, due]));
  assert.deepEqual(expired, [[c, 20]], "only live entries expire");
  assert.equal(ring.size, 0);
  assert.equal(ring.next(), undefined);
});

test("DeadlineRing: settled entries behind a live head are compacted away, so the ring grows only with the calls in flight", () => {
  const live = new Set<object>();
  const ring = new DeadlineRing<object>((item) => live.has(item));
  const head = {};
  live.add(head);
  ring.push(head, 0);
  // A long-lived call at the head and a million short ones behind it, each settled before the next.
  for (let i = 1; i <= 1_000_000; i++) {
    const item = {};
    live.add(item);
    ring.push(item, i);
    live.delete(item);
  }
  assert.ok(ring.size <= 16, `at most the initial capacity held, got ${ring.size}`);
  assert.equal(ring.next(), 0);
  // Many live at once: kept, in order, across growth.
  const many = Array.from({ length: 1000 }, () => ({}));
  many.forEach((item: object, i: number) => {
    live.add(item);
    ring.push(item, 2_000_000 + i);
  });
  live.delete(head);
  const out: number[] = [];
  ring.takeDue(Infinity, (_item, due) => out.push(due));
  assert.deepEqual(
    out,
    many.map((_, i) => 2_000_000 + i),
  );
  ring.push(head, 5);
  ring.clear();
  assert.equal(ring.size, 0);
  assert.equal(ring.next(), undefined);
});
