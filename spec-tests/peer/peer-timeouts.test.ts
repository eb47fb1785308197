// Timeout policies of the peer layer (lib/peer/client/client.ts, server.ts, driver.ts) on a fake
// clock: the inactivity timeout (timeoutMs), pushed back by progress only with
// resetTimeoutOnProgress; the total cap (maxTotalMs) that never moves; progress tokens;
// the host's single timer re-armed exactly when the next deadline changes; cancellation by
// AbortSignal. Every deadline is checked one millisecond before and exactly at its time.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ConnectionClosedError,
  PeerAbortController,
  RequestAbortedError,
  RequestTimeoutError,
  type AbortSignalLike,
  type HandlerContext,
} from "../../lib/peer/index.js";
import type { CallToolResult } from "../../lib/types/index.js";
import { Pair, ScriptedServer, initializeResult, lines, track, type PairOptions } from "../support/peer-harness.js";

interface SlowCall {
  readonly ctx: HandlerContext;
  readonly args: Record<string, unknown>;
  readonly resolve: (result: CallToolResult) => void;
}

/** A pair whose server has a tool "slow" that answers only when the test resolves it. */
async function slowPair(options: PairOptions = {}): Promise<{ pair: Pair; calls: SlowCall[] }> {
  const calls: SlowCall[] = [];
  const pair = new Pair({
    ...options,
    setup: (server) => {
      server.tool("slow", {}, (args, ctx) => new Promise<CallToolResult>((resolve) => calls.push({ ctx, args, resolve })));
      options.setup?.(server);
    },
  });
  await pair.connect();
  return { pair, calls };
}

const DONE: CallToolResult = { content: [{ type: "text", text: "done" }] };

function timeoutError(error: unknown, deadline: "inactivity" | "total"): RequestTimeoutError {
  assert.ok(error instanceof RequestTimeoutError, `expected RequestTimeoutError, got ${String(error)}`);
  assert.equal(error.deadline, deadline);
  return error;
}

/** The id the client gave its n-th tools/call. */
function callId(pair: Pair, n = 0): unknown {
  const m = pair.clientHost.messages("tools/call")[n];
  assert.ok(m !== undefined, "the client sent the call");
  return m.id;
}

// ── (a) no reset ─────────────────────────────────────────────────────────────────

test("T-02, T-04: (a) without resetTimeoutOnProgress, progress every 300 ms does not keep a 1000 ms request alive", async () => {
  const { pair, calls } = await slowPair();
  const seen: number[] = [];
  const call = track(pair.client.callTool("slow", {}, { timeoutMs: 1000, onProgress: (p) => seen.push(p.progress) }));
  await pair.settle();
  const handler = calls[0];
  assert.ok(handler !== undefined);
  for (const t of [300, 600, 900]) {
    await pair.advanceTo(t);
    handler.ctx.progress(t, 2000, `at ${t}`);
    await pair.settle();
  }
  assert.deepEqual(seen, [300, 600, 900], "progress reached onProgress");
  await pair.advanceTo(999);
  assert.equal(call.state, "pending", "still pending one millisecond before the deadline");
  assert.equal(handler.ctx.signal.aborted, false);
  await pair.advanceTo(1000);
  assert.equal(call.state, "rejected", "rejected exactly at 1000");
  const error = timeoutError(call.error, "inactivity");
  assert.equal(error.method, "tools/call");
  assert.equal(error.requestId, callId(pair));
  assert.match(error.message, /no answer or progress after 1000 ms/);
  // notifications/cancelled went to the server, whose handler saw its signal abort.
  const cancels = pair.clientHost.messages("notifications/cancelled");
  assert.equal(cancels.length, 1);
  assert.deepEqual(cancels[0]?.params, { requestId: callId(pair), reason: "timeout (inactivity deadline)" });
  assert.equal(handler.ctx.signal.aborted, true, "the server handler's signal aborted");
  assert.equal(pair.clientHost.armed, undefined, "nothing pending: timer disarmed");
  // Later progress and a late answer from the handler go nowhere.
  handler.ctx.progress(1200);
  handler.resolve(DONE);
  await pair.advanceTo(1500);
  assert.deepEqual(seen, [300, 600, 900]);
  assert.equal(pair.serverHost.sent.filter((m) => m.id === callId(pair)).length, 0, "the server never answered the cancelled call");
  assert.equal(pair.serverHost.messages("notifications/progress").length, 3);
});

// ── (b) reset on progress ────────────────────────────────────────────────────────

test("T-04: (b) with resetTimeoutOnProgress, progress keeps the request alive past its timeout until the result", async () => {
  const { pair, calls } = await slowPair();
  const seen: number[] = [];
  const call = track(
    pair.client.callTool("slow", {}, { timeoutMs: 1000, resetTimeoutOnProgress: true, onProgress: (p) => seen.push(p.progress) }),
  );
  await pair.settle();
  const handler = calls[0];
  assert.ok(handler !== undefined);
  for (let t = 300; t <= 3000; t += 300) {
    await pair.advanceTo(t);
    assert.equal(call.state, "pending", `alive at ${t}`);
    handler.ctx.progress(t);
    await pair.settle();
  }
  await pair.advanceTo(3100);
  handler.resolve(DONE);
  await pair.settle();
  assert.equal(call.state, "resolved");
  assert.deepEqual(call.value, DONE);
  assert.equal(seen.length, 10);
  assert.equal(pair.clientHost.messages("notifications/cancelled").length, 0);
  assert.equal(pair.clientHost.armed, undefined);
});

test("T-04: (b) with resetTimeoutOnProgress, 1000 ms without progress after the last one times out (inactivity)", async () => {
  const { pair, calls } = await slowPair();
  const call = track(pair.client.callTool("slow", {}, { timeoutMs: 1000, resetTimeoutOnProgress: true, onProgress: () => {} }));
  await pair.settle();
  const handler = calls[0];
  assert.ok(handler !== undefined);
  for (const t of [300, 600, 900]) {
    await pair.advanceTo(t);
    handler.ctx.progress(t);
    await pair.settle();
  }
  await pair.advanceTo(1899);
  assert.equal(call.state, "pending", "the deadline moved to 900 + 1000");
  await pair.advanceTo(1900);
  const error = timeoutError(call.error, "inactivity");
  assert.match(error.message, /after 1000 ms/);
  assert.equal(handler.ctx.signal.aborted, true);
});

// ── (c) total cap with progress ──────────────────────────────────────────────────

test("T-04, T-02: (c) resetTimeoutOnProgress with maxTotalMs 2500: rejects at exactly 2500 (total) while progress keeps coming", async () => {
  const { pair, calls } = await slowPair();
  const call = track(
    pair.client.callTool("slow", {}, { timeoutMs: 1000, resetTimeoutOnProgress: true, maxTotalMs: 2500, onProgress: () => {} }),
  );
  await pair.settle();
  const handler = calls[0];
  assert.ok(handler !== undefined);
  for (let t = 300; t <= 2400; t += 300) {
    await pair.advanceTo(t);
    handler.ctx.progress(t);
    await pair.settle();
  }
  await pair.advanceTo(2499);
  assert.equal(call.state, "pending");
  await pair.advanceTo(2500);
  const error = timeoutError(call.error, "total");
  assert.match(error.message, /total time cap after 2500 ms/);
  assert.deepEqual(pair.clientHost.messages("notifications/cancelled")[0]?.params, {
    requestId: callId(pair),
    reason: "timeout (total deadline)",
  });
  assert.equal(handler.ctx.signal.aborted, true);
});

// ── (d) total cap without progress ───────────────────────────────────────────────

test("T-03: (d) maxTotalMs without any inactivity timeout: rejects at the cap (total)", async () => {
  const { pair, calls } = await slowPair();
  const call = track(pair.client.callTool("slow", {}, { timeoutMs: Infinity, maxTotalMs: 700 }));
  await pair.advanceTo(699);
  assert.equal(call.state, "pending");
  await pair.advanceTo(700);
  const error = timeoutError(call.error, "total");
  assert.match(error.message, /after 700 ms/);
  assert.equal(calls[0]?.ctx.signal.aborted, true);
});

test("T-03: (d) a cap above the timeout without progress: the inactivity timeout fires first", async () => {
  const { pair } = await slowPair();
  const call = track(pair.client.callTool("slow", {}, { timeoutMs: 1000, resetTimeoutOnProgress: true, maxTotalMs: 2500 }));
  await pair.advanceTo(999);
  assert.equal(call.state, "pending");
  await pair.advanceTo(1000);
  timeoutError(call.error, "inactivity");
});

test("T-03: (d) no timeout and no cap: nothing is armed and the request waits indefinitely", async () => {
  const { pair, calls } = await slowPair();
  const before = pair.clientHost.armCalls.length;
  const call = track(pair.client.callTool("slow", {}, { timeoutMs: Infinity }));
  await pair.advanceTo(10_000_000);
  assert.equal(call.state, "pending");
  assert.equal(pair.clientHost.armCalls.length, before, "no timer for an untimed request");
  calls[0]?.resolve(DONE);
  await pair.settle();
  assert.equal(call.state, "resolved");
});

// ── (e) cap below the timeout ────────────────────────────────────────────────────

test("T-03: (e) maxTotalMs 500 below timeoutMs 1000: total at 500", async () => {
  const { pair } = await slowPair();
  const call = track(pair.client.callTool("slow", {}, { timeoutMs: 1000, maxTotalMs: 500 }));
  await pair.settle();
  assert.equal(pair.clientHost.armed, 500);
  await pair.advanceTo(499);
  assert.equal(call.state, "pending");
  await pair.advanceTo(500);
  const error = timeoutError(call.error, "total");
  assert.match(error.message, /after 500 ms/);
});

test("T-03: (e) a cap equal to the timeout: both pass at once and the total deadline is reported", async () => {
  const { pair } = await slowPair();
  const call = track(pair.client.callTool("slow", {}, { timeoutMs: 1000, maxTotalMs: 1000 }));
  await pair.advanceTo(1000);
  timeoutError(call.error, "total");
});

// ── (f) progress tokens ──────────────────────────────────────────────────────────

test("P-01, T-04: (f) resetTimeoutOnProgress without onProgress still attaches a progress token, and progress resets", async () => {
  const { pair, calls } = await slowPair();
  const call = track(pair.client.callTool("slow", { x: 1 }, { timeoutMs: 1000, resetTimeoutOnProgress: true }));
  await pair.settle();
  const sent = pair.clientHost.messages("tools/call")[0]?.params as { arguments: unknown; _meta?: { progressToken?: unknown } };
  assert.deepEqual(sent.arguments, { x: 1 });
  assert.ok(
    sent._meta !== undefined && (typeof sent._meta.progressToken === "number" || typeof sent._meta.progressToken === "string"),
    "the server received _meta.progressToken",
  );
  // The server can use it: its progress pushes the client's deadline back.
  await pair.advanceTo(900);
  calls[0]?.ctx.progress(1);
  await pair.settle();
  assert.equal(pair.serverHost.messages("notifications/progress").length, 1);
  assert.equal(
    (pair.serverHost.messages("notifications/progress")[0]?.params as { progressToken: unknown }).progressToken,
    sent._meta.progressToken,
  );
  await pair.advanceTo(1899);
  assert.equal(call.state, "pending");
  await pair.advanceTo(1900);
  timeoutError(call.error, "inactivity");
});

test("P-01: (f) without onProgress or resetTimeoutOnProgress no token is attached and ctx.progress is a no-op", async () => {
  const { pair, calls } = await slowPair();
  const call = track(pair.client.callTool("slow", {}, { timeoutMs: 1000 }));
  await pair.settle();
  const sent = pair.clientHost.messages("tools/call")[0]?.params as { _meta?: unknown };
  assert.equal(sent._meta, undefined);
  calls[0]?.ctx.progress(1);
  await pair.settle();
  assert.equal(pair.serverHost.messages("notifications/progress").length, 0);
  calls[0]?.resolve(DONE);
  await pair.settle();
  assert.equal(call.state, "resolved");
});

test("P-01: (f) resetTimeoutOnProgress with an infinite timeout attaches a token and arms nothing", async () => {
  const { pair } = await slowPair();
  const before = pair.clientHost.armCalls.length;
  void pair.client.callTool("slow", {}, { timeoutMs: Infinity, resetTimeoutOnProgress: true });
  await pair.settle();
  const sent = pair.clientHost.messages("tools/call")[0]?.params as { _meta?: { progressToken?: unknown } };
  assert.notEqual(sent._meta?.progressToken, undefined);
  assert.equal(pair.clientHost.armCalls.length, before);
});

// ── (g) the host timer ───────────────────────────────────────────────────────────

test("(g) the host timer is re-armed exactly when the next deadline changes, and disarmed when nothing is timed", async () => {
  const { pair, calls } = await slowPair({ client: { capabilities: { roots: { listChanged: true } } } });
  // connect(): armed for initialize's default 60 s, disarmed when it was answered.
  assert.deepEqual(pair.clientHost.armCalls, [60_000, undefined]);
  pair.clientHost.armCalls.length = 0;

  const a = track(pair.client.callTool("slow", { n: "a" }, { timeoutMs: 1000 }));
  await pair.settle();
  assert.deepEqual(pair.clientHost.armCalls, [1000], "first timed request arms its deadline");
  const b = track(pair.client.callTool("slow", { n: "b" }, { timeoutMs: 2000 }));
  const ping = track(pair.client.ping({ timeoutMs: 5000 }));
  await pair.settle();
  assert.equal(ping.state, "resolved");
  assert.deepEqual(pair.clientHost.armCalls, [1000], "later deadlines and settled pings do not re-arm");
  pair.client.notify("notifications/roots/list_changed");
  await pair.settle();
  assert.deepEqual(pair.clientHost.armCalls, [1000], "a pump without a deadline change does not re-arm");

  await pair.advanceTo(100);
  calls[0]?.resolve(DONE);
  await pair.settle();
  assert.equal(a.state, "resolved");
  assert.deepEqual(pair.clientHost.armCalls, [1000, 2000], "the earliest deadline went away");

  const c = track(pair.client.callTool("slow", { n: "c" }, { timeoutMs: 500, resetTimeoutOnProgress: true }));
  await pair.settle();
  assert.deepEqual(pair.clientHost.armCalls, [1000, 2000, 600]);
  await pair.advanceTo(400);
  calls[2]?.ctx.progress(1);
  await pair.settle();
  assert.deepEqual(pair.clientHost.armCalls, [1000, 2000, 600, 900], "progress moved the deadline");
  await pair.advanceTo(500);
  calls[2]?.resolve(DONE);
  await pair.settle();
  assert.equal(c.state, "resolved");
  assert.deepEqual(pair.clientHost.armCalls, [1000, 2000, 600, 900, 2000]);
  calls[1]?.resolve(DONE);
  await pair.settle();
  assert.equal(b.state, "resolved");
  assert.deepEqual(pair.clientHost.armCalls, [1000, 2000, 600, 900, 2000, undefined], "disarmed when nothing is pending");
  assert.deepEqual(pair.serverHost.armCalls, [], "the server sent no timed request");
});

test("(g) a timer that fires early changes nothing and the deadline is armed again", async () => {
  const { pair } = await slowPair();
  pair.clientHost.armCalls.length = 0;
  const call = track(pair.client.callTool("slow", {}, { timeoutMs: 1000 }));
  await pair.advanceTo(500);
  pair.clientHost.fire();
  await pair.settle();
  assert.equal(call.state, "pending");
  assert.deepEqual(pair.clientHost.armCalls, [1000, 1000], "re-armed after the spurious fire");
  await pair.advanceTo(1000);
  timeoutError(call.error, "inactivity");
  assert.deepEqual(pair.clientHost.armCalls, [1000, 1000], "a fired timer is spent: nothing to disarm");
});

test("T-03: (g) two requests with different deadlines time out one after the other, each at its own time", async () => {
  const { pair } = await slowPair();
  const first = track(pair.client.callTool("slow", {}, { timeoutMs: 300 }));
  const second = track(pair.client.callTool("slow", {}, { timeoutMs: 800 }));
  await pair.advanceTo(300);
  timeoutError(first.error, "inactivity");
  assert.equal(second.state, "pending");
  assert.equal(pair.clientHost.armed, 800);
  await pair.advanceTo(800);
  timeoutError(second.error, "inactivity");
  assert.equal(pair.clientHost.armed, undefined);
});

test("T-01: (g) the client's defaultTimeoutMs applies to requests without timeoutMs", async () => {
  const { pair } = await slowPair({ client: { defaultTimeoutMs: 250 } });
  const call = track(pair.client.callTool("slow"));
  await pair.advanceTo(249);
  assert.equal(call.state, "pending");
  await pair.advanceTo(250);
  assert.match(timeoutError(call.error, "inactivity").message, /after 250 ms/);
});

// ── (h) AbortSignal ──────────────────────────────────────────────────────────────

test("(h) an already-aborted signal rejects without sending anything", async () => {
  const { pair, calls } = await slowPair();
  const controller = new PeerAbortController();
  controller.abort("changed my mind");
  const sentBefore = pair.clientHost.sent.length;
  const armsBefore = pair.clientHost.armCalls.length;
  const call = track(pair.client.callTool("slow", {}, { signal: controller.signal }));
  await pair.settle();
  assert.ok(call.error instanceof RequestAbortedError);
  assert.equal(call.error.reason, "changed my mind");
  assert.equal(call.error.message, "tools/call aborted: changed my mind");
  assert.equal(pair.clientHost.sent.length, sentBefore, "nothing was sent");
  assert.equal(pair.clientHost.armCalls.length, armsBefore);
  assert.equal(calls.length, 0);
});

test("X-01, X-06: (h) aborting mid-flight rejects with RequestAbortedError, sends notifications/cancelled, and ignores a late response", async () => {
  const diagnostics: string[] = [];
  const { pair, calls } = await slowPair({ client: { onDiagnostic: (e) => diagnostics.push(e.rule) } });
  const controller = new PeerAbortController();
  const call = track(pair.client.callTool("slow", {}, { timeoutMs: 1000, signal: controller.signal }));
  await pair.advanceTo(100);
  assert.equal(pair.clientHost.armed, 1000);
  const reason = new Error("user pressed stop");
  controller.abort(reason);
  assert.equal(call.state, "pending", "settles through the promise machinery");
  await pair.settle();
  assert.ok(call.error instanceof RequestAbortedError);
  assert.equal(call.error.reason, reason);
  assert.equal(call.error.message, "tools/call aborted: user pressed stop");
  const id = callId(pair);
  assert.deepEqual(
    pair.clientHost.messages("notifications/cancelled").map((m) => m.params),
    [{ requestId: id, reason: "aborted" }],
  );
  assert.equal(calls[0]?.ctx.signal.aborted, true, "the server handler saw the cancellation");
  assert.equal(pair.clientHost.armed, undefined, "the aborted request no longer holds the timer");
  // A response that crossed the cancellation is dropped silently.
  pair.client.driver.receiveBytes(lines({ jsonrpc: "2.0", id, result: { content: [] } }));
  await pair.advanceTo(2000);
  assert.ok(call.error instanceof RequestAbortedError);
  assert.deepEqual(diagnostics, [], "no violation or diagnostic for the late response");
  // The client still works.
  const ping = track(pair.client.ping());
  await pair.settle();
  assert.equal(ping.state, "resolved");
});

test("X-08: (h) a string abort reason is forwarded as the cancellation reason", async () => {
  const { pair } = await slowPair();
  const controller = new PeerAbortController();
  const call = track(pair.client.callTool("slow", {}, { signal: controller.signal }));
  await pair.settle();
  controller.abort("superseded");
  await pair.settle();
  assert.ok(call.error instanceof RequestAbortedError);
  assert.equal(call.error.message, "tools/call aborted: superseded");
  assert.equal((pair.clientHost.messages("notifications/cancelled")[0]?.params as { reason: unknown }).reason, "superseded");
});

test("X-01: (h) the listener is removed once the request settles; a later abort does nothing", async () => {
  const { pair, calls } = await slowPair();
  let added = 0;
  let removed = 0;
  let listener: (() => void) | undefined;
  const signal: AbortSignalLike = {
    aborted: false,
    reason: undefined,
    addEventListener: (_type, l) => {
      added++;
      listener = l;
    },
    removeEventListener: (_type, l) => {
      if (l === listener) removed++;
    },
  };
  const call = track(pair.client.callTool("slow", {}, { signal }));
  await pair.settle();
  assert.equal(added, 1);
  calls[0]?.resolve(DONE);
  await pair.settle();
  assert.equal(call.state, "resolved");
  assert.equal(removed, 1, "the abort listener was removed on settlement");
  listener?.();
  await pair.settle();
  assert.equal(pair.clientHost.messages("notifications/cancelled").length, 0, "a stale listener call sends nothing");
});

test("(h) the platform's AbortController is accepted by shape", async () => {
  const Native = (globalThis as unknown as { AbortController?: new () => { signal: AbortSignalLike; abort(reason?: unknown): void } })
    .AbortController;
  if (Native === undefined) return;
  const { pair } = await slowPair();
  const controller = new Native();
  const call = track(pair.client.callTool("slow", {}, { signal: controller.signal }));
  await pair.settle();
  controller.abort();
  await pair.settle();
  assert.ok(call.error instanceof RequestAbortedError);
  assert.equal(pair.clientHost.messages("notifications/cancelled").length, 1);
});

test("X-01: (h) aborting after close rejects nothing twice and sends nothing", async () => {
  const { pair } = await slowPair();
  const controller = new PeerAbortController();
  const call = track(pair.client.callTool("slow", {}, { signal: controller.signal }));
  await pair.settle();
  pair.client.close();
  await pair.settle();
  assert.ok(call.error instanceof ConnectionClosedError);
  controller.abort("late");
  await pair.settle();
  assert.ok(call.error instanceof ConnectionClosedError);
  assert.equal(pair.clientHost.messages("notifications/cancelled").length, 0);
});

// ── the same policies on server → client requests ────────────────────────────────

test("T-02, T-03: server → client request: timeoutMs rejects with RequestTimeoutError and the client handler's signal aborts", async () => {
  let clientSignal: AbortSignalLike | undefined;
  let outcome: ReturnType<typeof track> | undefined;
  const { pair } = await slowPair({
    client: { capabilities: { sampling: {} } },
    setup: (server) => {
      server.tool("ask", {}, (_args, ctx) => {
        outcome = track(ctx.createMessage({ messages: [], maxTokens: 10 }, { timeoutMs: 1000 }));
        return new Promise<CallToolResult>(() => {});
      });
    },
  });
  pair.client.setRequestHandler("sampling/createMessage", (_params, ctx) => {
    clientSignal = ctx.signal;
    return new Promise(() => {});
  });
  void pair.client.callTool("ask");
  await pair.settle();
  assert.equal(pair.serverHost.armed, 1000, "the server armed its own timer");
  await pair.advanceTo(999);
  assert.equal(outcome?.state, "pending");
  await pair.advanceTo(1000);
  assert.equal(outcome?.state, "rejected");
  const error = timeoutError(outcome?.error, "inactivity");
  assert.equal(error.method, "sampling/createMessage");
  assert.equal(clientSignal?.aborted, true, "the client handler saw notifications/cancelled");
  assert.equal(pair.serverHost.armed, undefined);
});

test("T-01, T-03: server → client request: maxTotalMs caps it; the server's defaultTimeoutMs applies otherwise", async () => {
  const outcomes: Array<ReturnType<typeof track>> = [];
  const { pair } = await slowPair({
    client: { capabilities: { roots: {} } },
    server: { defaultTimeoutMs: 400 },
    setup: (server) => {
      server.tool("ask", {}, (_args, ctx) => {
        outcomes.push(track(ctx.listRoots({ timeoutMs: 1000, maxTotalMs: 300 })));
        outcomes.push(track(ctx.listRoots()));
        return new Promise<CallToolResult>(() => {});
      });
    },
  });
  pair.client.setRequestHandler("roots/list", () => new Promise(() => {}));
  void pair.client.callTool("ask");
  await pair.advanceTo(300);
  timeoutError(outcomes[0]?.error, "total");
  assert.equal(outcomes[1]?.state, "pending");
  await pair.advanceTo(400);
  timeoutError(outcomes[1]?.error, "inactivity");
});

test("X-01: server → client request: an AbortSignal cancels it (already aborted: nothing sent)", async () => {
  const controller = new PeerAbortController();
  const before = new PeerAbortController();
  before.abort("no");
  let clientSignal: AbortSignalLike | undefined;
  const outcomes: Array<ReturnType<typeof track>> = [];
  const { pair } = await slowPair({
    client: { capabilities: { elicitation: {} } },
    setup: (server) => {
      server.tool("ask", {}, (_args, ctx) => {
        outcomes.push(
          track(ctx.elicit({ message: "name?", requestedSchema: { type: "object", properties: {} } }, { signal: before.signal })),
        );
        outcomes.push(
          track(ctx.elicit({ message: "name?", requestedSchema: { type: "object", properties: {} } }, { signal: controller.signal })),
        );
        return new Promise<CallToolResult>(() => {});
      });
    },
  });
  pair.client.setRequestHandler("elicitation/create", (_params, ctx) => {
    clientSignal = ctx.signal;
    return new Promise(() => {});
  });
  void pair.client.callTool("ask");
  await pair.settle();
  assert.ok(outcomes[0]?.error instanceof RequestAbortedError);
  assert.equal(pair.serverHost.messages("elicitation/create").length, 1, "the pre-aborted request was never sent");
  controller.abort("enough");
  await pair.settle();
  assert.ok(outcomes[1]?.error instanceof RequestAbortedError);
  assert.equal((outcomes[1]?.error as RequestAbortedError).reason, "enough");
  assert.equal(pair.serverHost.messages("notifications/cancelled").length, 1);
  assert.equal(clientSignal?.aborted, true);
  controller.abort("again");
  await pair.settle();
  assert.equal(pair.serverHost.messages("notifications/cancelled").length, 1, "a second abort sends nothing");
});

// ── connect() deadline ───────────────────────────────────────────────────────────

test("L-04, X-02: connect({ timeoutMs }) against a silent server rejects at the deadline without notifications/cancelled", async () => {
  const closes: string[] = [];
  const scripted = new ScriptedServer(() => undefined, { onClose: (e) => closes.push(e.reason) });
  const result = track(scripted.client.connect({ timeoutMs: 1000 }));
  await scripted.settle();
  assert.equal(scripted.host.armed, 1000);
  scripted.clock.now = 999;
  scripted.host.fire(() => scripted.client.driver.onTimer());
  await scripted.settle();
  assert.equal(result.state, "pending");
  assert.equal(scripted.host.armed, 1000, "an early fire re-arms the same deadline");
  scripted.clock.now = 1000;
  scripted.host.fire(() => scripted.client.driver.onTimer());
  await scripted.settle();
  const error = timeoutError(result.error, "inactivity");
  assert.equal(error.method, "initialize");
  assert.equal(scripted.host.messages("notifications/cancelled").length, 0, "initialize is never cancelled");
  assert.deepEqual(closes, ["fatal"], "a failed initialization closes the session");
  assert.equal(scripted.host.armed, undefined);
});

test("T-03: connect() with an infinite timeout arms nothing; a late answer still connects", async () => {
  const scripted = new ScriptedServer((m) => (m.method === "initialize" ? initializeResult() : undefined));
  const result = track(scripted.client.connect({ timeoutMs: Infinity }));
  await scripted.settle();
  assert.deepEqual(scripted.host.armCalls, []);
  assert.equal(result.state, "resolved");
  assert.equal((result.value as { serverInfo: unknown }).serverInfo !== undefined, true);
});
