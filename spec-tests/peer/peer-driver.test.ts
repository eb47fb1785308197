// The peer layer's Driver and transports: message transports (PeerHost.send) carrying the
// related request id, synchronous delivery, the driver's re-entrancy and write batching, its
// timer, and PeerAbortController. Timeout policies are in peer-timeouts.test.ts.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Engine, type EngineEvent, type Outbound } from "../../lib/index.js";
import { Client, Driver, PeerAbortController, Server, type PeerHost, type ServerSession } from "../../lib/peer/index.js";
import { CLIENT_INFO, FakeClock, Pair, SERVER_INFO, lines, pagedBy } from "../support/peer-harness.js";
import { OK } from "../support/peer-helpers.js";

// ── message transports (PeerHost.send) and synchronous delivery ─────────────────

test("over a message transport (PeerHost.send), outbound messages carry the related request id", async () => {
  const clock = new FakeClock();
  const server = new Server({ info: SERVER_INFO });
  let session: ServerSession | undefined;
  let client: Client | undefined;
  const toServer: Outbound[] = [];
  const toClient: Outbound[] = [];
  const clientHost: PeerHost = { send: (o) => toServer.push(o), now: () => clock.now, armTimer: () => {} };
  const serverHost: PeerHost = { send: (o) => toClient.push(o), now: () => clock.now, armTimer: () => {} };
  server.tool("chatty", {}, (_args, ctx) => {
    ctx.log("info", "working");
    ctx.progress(1);
    return OK;
  });
  session = server.connect(serverHost);
  client = new Client(clientHost, { info: CLIENT_INFO });
  const flush = async (): Promise<void> => {
    for (let i = 0; i < 30; i++) {
      for (const o of toServer.splice(0)) session?.receiveMessage(o.message);
      for (const o of toClient.splice(0)) client?.driver.receiveMessage(o.message);
      await Promise.resolve();
    }
  };
  const log: Outbound[] = [];
  const origSend = serverHost.send?.bind(serverHost);
  serverHost.send = (o) => {
    log.push(o);
    origSend?.(o);
  };
  const connecting = client.connect();
  await flush();
  await connecting;
  const calling = client.callTool("chatty", {}, { onProgress: () => {} });
  await flush();
  assert.deepEqual(await calling, OK);
  const callId = 1;
  const related = log
    .filter((o) => !Array.isArray(o.message) && (o.message as { id?: unknown }).id !== 0)
    .map((o) => [(o.message as { method?: string }).method ?? "response", o.relatedRequestId]);
  assert.deepEqual(related, [
    ["notifications/message", callId],
    ["notifications/progress", callId],
    ["response", callId],
  ]);
});

test("synchronous delivery (each write delivered inside the writer's pump) works end to end", async () => {
  const pair = new Pair({
    sync: true,
    server: { paging: pagedBy(1) },
    setup: (s) => ["a", "b", "c"].forEach((n) => s.tool(n, {}, () => OK)),
  });
  const result = await pair.client.connect();
  assert.equal(result.version, "2025-11-25");
  assert.deepEqual(
    (await pair.client.listTools()).map((t) => t.name),
    ["a", "b", "c"],
  );
  assert.deepEqual(await pair.client.ping(), {});
  assert.deepEqual(await pair.client.callTool("b"), OK);
});

// ── Driver ───────────────────────────────────────────────────────────────────────

function serverEngine(): Engine<"server"> {
  return new Engine({ role: "server", info: SERVER_INFO, capabilities: { tools: { listChanged: true } }, versions: ["2025-03-26"] });
}

// 2025-03-26: the one version with JSON-RPC batches.
const INIT = {
  jsonrpc: "2.0",
  id: "init",
  method: "initialize",
  params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: CLIENT_INFO },
};
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };

test("M-09: Driver: commands issued while dispatching are flushed in order; re-entrant input is dispatched after, in engine order", () => {
  const engine = serverEngine();
  const sent: unknown[] = [];
  const order: string[] = [];
  let depth = 0;
  let maxDepth = 0;
  const host: PeerHost = { send: (o) => sent.push(o.message), now: () => 0, armTimer: () => {} };
  const driver: Driver<"server"> = new Driver(engine, host, (event: EngineEvent) => {
    depth++;
    maxDepth = Math.max(maxDepth, depth);
    if (event.kind === "request") {
      order.push(`request ${String(event.id)}`);
      if (event.id === "a") {
        // Re-entrant input and a re-entrant pump: both must wait for this dispatch to finish.
        driver.receiveMessage({ jsonrpc: "2.0", id: "c", method: "tools/list" });
        engine.respond("a", { tools: [] });
        driver.pump();
        order.push("a answered");
      } else {
        engine.respond(event.id, { tools: [] });
      }
    } else {
      order.push(event.kind);
    }
    depth--;
  });
  driver.receiveMessage(INIT);
  driver.receiveMessage(INITIALIZED);
  sent.length = 0;
  driver.receiveMessage([
    { jsonrpc: "2.0", id: "a", method: "tools/list" },
    { jsonrpc: "2.0", id: "b", method: "tools/list" },
  ]);
  assert.equal(maxDepth, 1, "dispatch never nests");
  assert.deepEqual(order, ["negotiated", "ready", "request a", "a answered", "request b", "request c"]);
  // Batch replies leave as one array once both are answered; c's answer follows it.
  assert.deepEqual(
    sent.map((m) => (Array.isArray(m) ? m.map((x: { id: string }) => x.id) : (m as { id: string }).id)),
    [["a", "b"], "c"],
  );
});

test("Driver: a stream host gets every message of a pump in one write; a host that neither writes nor sends drops bytes", () => {
  const engine = serverEngine();
  const writes: string[] = [];
  const driver = new Driver(
    engine,
    { write: (b) => writes.push(new TextDecoder().decode(b)), now: () => 0, armTimer: () => {} },
    (event) => {
      if (event.kind === "request") {
        engine.notify("notifications/tools/list_changed");
        engine.respond(event.id, { tools: [] });
      }
    },
  );
  driver.receiveBytes(lines(INIT, INITIALIZED));
  writes.length = 0;
  driver.receiveBytes(lines({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
  assert.equal(writes.length, 1);
  assert.deepEqual(
    writes[0]
      ?.trim()
      .split("\n")
      .map((l) => Object.keys(JSON.parse(l) as object).join(",")),
    ["jsonrpc,method", "jsonrpc,id,result"],
  );

  const mute = serverEngine();
  const events: string[] = [];
  const silent = new Driver(mute, { now: () => 0, armTimer: () => {} }, (e) => events.push(e.kind));
  silent.receiveBytes(lines(INIT));
  assert.deepEqual(events, ["negotiated"]);
  assert.equal(mute.pendingOutboundCount, 0);
  silent.receiveEof();
  assert.deepEqual(events, ["negotiated", "closed"]);
});

test("Driver: re-arms on change only; EOF disarms a pending deadline", () => {
  const engine = new Engine({ role: "client", info: CLIENT_INFO });
  const arms: Array<number | undefined> = [];
  const events: EngineEvent[] = [];
  const driver = new Driver(engine, { write: () => {}, now: () => 5, armTimer: (at) => arms.push(at) }, (e) => events.push(e));
  engine.initialize({ deadline: 100 });
  driver.pump();
  driver.pump();
  assert.deepEqual(arms, [100]);
  driver.receiveEof();
  assert.deepEqual(arms, [100, undefined]);
  assert.deepEqual(
    events.map((e) => e.kind),
    ["connection-closed", "closed"],
  );
});

test("Driver: onTimer expires at the host's now() and re-arms for what is left", () => {
  let now = 0;
  const engine = new Engine({ role: "client", info: CLIENT_INFO });
  const arms: Array<number | undefined> = [];
  const kinds: string[] = [];
  const driver = new Driver(engine, { write: () => {}, now: () => now, armTimer: (at) => arms.push(at) }, (e) => kinds.push(e.kind));
  engine.initialize({ deadline: 50 });
  driver.pump();
  now = 49;
  driver.onTimer();
  assert.deepEqual(kinds, []);
  assert.deepEqual(arms, [50, 50]);
  now = 50;
  driver.onTimer();
  assert.deepEqual(kinds, ["timeout", "closed"]);
  assert.deepEqual(arms, [50, 50], "the spent timer is not disarmed again");
  assert.equal(engine.isClosed, true, "an initialize timeout is fatal");
});

// ── PeerAbortController ──────────────────────────────────────────────────────────

test("PeerAbortController: listeners run once in order; a throwing listener does not stop the others; late listeners are ignored", () => {
  const controller = new PeerAbortController();
  const calls: string[] = [];
  const removed = (): number => calls.push("removed");
  controller.signal.addEventListener("abort", () => calls.push("first"));
  controller.signal.addEventListener("abort", () => {
    throw new Error("listener bug");
  });
  controller.signal.addEventListener("abort", removed);
  controller.signal.addEventListener("abort", () => calls.push(`third saw ${String(controller.signal.reason)}`));
  controller.signal.removeEventListener("abort", removed);
  controller.signal.removeEventListener("abort", () => {});
  assert.equal(controller.signal.aborted, false);
  assert.equal(controller.signal.reason, undefined);
  controller.abort("why");
  assert.equal(controller.signal.aborted, true);
  assert.deepEqual(calls, ["first", "third saw why"]);
  controller.abort("again");
  assert.equal(controller.signal.reason, "why", "the first reason stays");
  controller.signal.addEventListener("abort", () => calls.push("late"));
  assert.deepEqual(calls, ["first", "third saw why"]);
});

test("Driver: input arriving inside a write (a synchronous transport) is drained before the pump returns, even without an event", () => {
  const engine = serverEngine();
  const sent: unknown[] = [];
  let inject = false;
  const host: PeerHost = {
    write: (bytes) => {
      for (const line of new TextDecoder().decode(bytes).trim().split("\n")) sent.push((JSON.parse(line) as { id?: unknown }).id);
      if (inject) {
        inject = false;
        // The engine answers ping itself: output, but no event for the loop to notice.
        driver.receiveMessage({ jsonrpc: "2.0", id: "p", method: "ping" });
      }
    },
    now: () => 0,
    armTimer: () => {},
  };
  const driver: Driver<"server"> = new Driver(engine, host, (event) => {
    if (event.kind === "request") engine.respond(event.id, { tools: [] });
  });
  driver.receiveMessage(INIT);
  driver.receiveMessage(INITIALIZED);
  sent.length = 0;
  inject = true;
  driver.receiveMessage({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  assert.deepEqual(sent, [1, "p"], "the ping answer left in the same pump");
});
