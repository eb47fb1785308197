// The connection limits of the HTTP host (RULES.md LIM-09, LIM-11) under attack, the same
// suite on each runtime it serves on: Node (serveHttp on node:http), Bun (Bun.serve) and Deno
// (Deno.serve behind its connection gate), the reference server in a child process with short
// limits (1 s header timeout, 2 s request timeout, 3 s keep-alive, 48 connections, 64 KiB
// bodies) while a well-behaved client pings on the side. Expected on every runtime:
// - a body over the limit (chunked without end, or a declared 1 TiB): 413 with
//   `Connection: close`, then the connection closed within a second, with little read after;
// - a body that trickles in: cut at the request timeout (408 and closed);
// - connections that send nothing or drip a header: closed at the header timeout; one silent
//   after its answer: closed at the keep-alive timeout; a quiet SSE stream: kept past both;
// - connections beyond the cap refused at once (closed unread, or 503 and closed);
// - the server's RSS bounded meanwhile, and the side client's median ping under 20 ms.
// Where a runtime's public API cannot enforce one of them the expectation says so and asserts
// the closest bound it allows (docs/limits.md has the same table): Bun closes a connection
// that never completes a request head after about 10 s of its own (not settable; its timer
// ticks every 4 s), and counts no connections, so its cap is on requests in flight. Each run
// prints its numbers. A runtime whose binary does not run here is skipped with the reason.

import { test } from "node:test";
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { median } from "../../bench/run.js";
import {
  type AttackedRuntime,
  type HeldConnection,
  endlessChunkedBody,
  holdConnections,
  hugeDeclaredBody,
  pinger,
  startChild,
  trickleBody,
  untilClosed,
} from "../support/http-attack.js";
import { runtimeMissing } from "../support/runtimes.js";

const LIMITS = { headersTimeoutMs: 1000, requestTimeoutMs: 2000, keepAliveTimeoutMs: 3000, maxConnections: 48 };
const MAX_BODY = 64 * 1024;
/** Connections opened beyond the cap. */
const BEYOND = 200;
/**
 * Bytes a flood may push after the 413 arrived: what the server read before it stopped, plus
 * both sockets' buffers (as http-limits.test.ts allows node:http). A server that reads on
 * takes a GiB and more in the same time.
 */
const AFTER_ANSWER_SLACK = 32 * 1024 * 1024;
/** What the server's RSS may grow by while holding the attack (cap + BEYOND connections, the floods, the trickles). */
const RSS_BOUND = 64 * 1024 * 1024;
const MiB = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);

interface Expectation {
  /** By when (ms after opening) a connection without a complete request head is closed. */
  readonly headerClose: number;
  /** By when (ms after its answer) a connection silent after an answer is closed. */
  readonly keepAliveClose: number;
  /** What the cap counts. */
  readonly cap: "connections" | "requests in flight";
  readonly note: string;
}

const EXPECT: Record<AttackedRuntime, Expectation> = {
  node: {
    headerClose: LIMITS.headersTimeoutMs + 2000,
    keepAliveClose: LIMITS.keepAliveTimeoutMs + 2000,
    cap: "connections",
    note: "node:http: headersTimeout, keepAliveTimeout, maxConnections",
  },
  deno: {
    headerClose: LIMITS.headersTimeoutMs + 2000,
    keepAliveClose: LIMITS.keepAliveTimeoutMs + 2000,
    cap: "connections",
    note: "the gate in front of Deno.serve: header and keep-alive timeouts, connection cap",
  },
  bun: {
    // Bun.serve: not settable; 10 s, checked on a 4 s tick.
    headerClose: 16_000,
    // idleTimeout in whole seconds, on the same 4 s tick.
    keepAliveClose: Math.ceil(LIMITS.keepAliveTimeoutMs / 1000) * 1000 + 6000,
    cap: "requests in flight",
    note: "Bun.serve: its own 10 s header timeout (not settable), idleTimeout after answers, a cap on requests in flight (no connection count in its API)",
  },
};

for (const runtime of ["node", "bun", "deno"] as const satisfies readonly AttackedRuntime[])
  test(`LIM-09, LIM-11: ${runtime}: bodies over the limit closed after 413, slow and idle connections dropped, connections capped, memory bounded, a side client served`, async (t) => {
    const missing = runtime === "node" ? undefined : runtimeMissing(runtime);
    if (missing !== undefined) {
      t.skip(`SKIPPED: ${missing}`);
      return;
    }
    const expect = EXPECT[runtime];
    const child = await startChild(100, MAX_BODY, runtime, LIMITS);
    const held: HeldConnection[] = [];
    try {
      const ping = await pinger(child.url);
      const before = await child.stats();
      // Held through the whole run: connections silent after a JSON and after an SSE answer, and a quiet SSE stream of the pinger's session.
      const [answered, streamed, stream] = (await holdConnections(child.port, 3, [
        "answered",
        `streamed:${ping.session}`,
        `stream:${ping.session}`,
      ])) as [HeldConnection, HeldConnection, HeldConnection];
      held.push(answered, streamed, stream);

      // ── bodies: over the limit, and too slow ──
      const [chunked, declared, slow] = await Promise.all([
        endlessChunkedBody(child.port, 1024 * 1024 * 1024),
        hugeDeclaredBody(child.port, 1024 * 1024 * 1024),
        trickleBody(child.port, 100, LIMITS.requestTimeoutMs + 3000),
      ]);
      for (const [name, body] of [
        ["endless chunked body", chunked],
        ["declared 1 TiB body", declared],
      ] as const) {
        assert.match(body.statusLine, /^HTTP\/1\.1 413 /, `${name}: ${body.head}`);
        assert.match(body.head, /\r\nconnection: close/i, `${name}: the 413 says Connection: close`);
        assert.ok(body.closed, `${name}: the server kept the connection open (${MiB(body.sent)} MiB sent)`);
        assert.ok((body.closedAfterAnswerMs ?? Infinity) < 1000, `${name}: closed ${body.closedAfterAnswerMs} ms after the 413`);
        assert.ok(body.sentAfterAnswer < AFTER_ANSWER_SLACK, `${name}: ${MiB(body.sentAfterAnswer)} MiB went out after the 413`);
      }
      assert.match(slow.statusLine, /^HTTP\/1\.1 408 /, "a trickling body is answered 408");
      assert.ok(slow.closedAfterMs !== undefined, "and its connection closed");

      // ── connections: beyond the cap, sending nothing or dripping a header ──
      const opened = performance.now();
      const quiet = await holdConnections(child.port, LIMITS.maxConnections + BEYOND, ["idle", "drip"]);
      held.push(...quiet);
      // Measured while the admitted ones are held (the header timeout ends them a second after they opened).
      const peak = await child.stats();
      await new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, 700 - (performance.now() - opened))));
      const refusedAtOnce = quiet.filter((c) => c.closedAt !== undefined && c.closedAt - c.openedAt < 700).length;
      const left = await untilClosed(quiet, expect.headerClose - (performance.now() - opened));
      const closedBy = Math.max(...quiet.map((c) => (c.closedAt ?? Infinity) - opened));
      const answered408 = quiet.filter((c) => c.holding === "drip" && /^HTTP\/1\.1 408 /.test(c.received)).length;
      for (const connection of held.splice(3)) connection.destroy();

      // ── requests in flight beyond the cap: heads sent, bodies stalled ──
      const stalled = await holdConnections(child.port, LIMITS.maxConnections + 20, "stall");
      held.push(...stalled);
      await new Promise<void>((resolve) => setTimeout(resolve, 700));
      const stalledRefused = stalled.filter(
        (c) => (c.closedAt !== undefined && c.received === "") || /^HTTP\/1\.1 503 /.test(c.received),
      ).length;
      const stalledLeft = await untilClosed(stalled, LIMITS.requestTimeoutMs + 2000);
      const stalled408 = stalled.filter((c) => /^HTTP\/1\.1 408 /.test(c.received)).length;
      for (const connection of held.splice(3)) connection.destroy();

      // ── after an answer: the silent connection goes at the keep-alive timeout, the quiet stream stays ──
      const answeredOpen = await untilClosed([answered, streamed], expect.keepAliveClose - (performance.now() - answered.openedAt));
      const streamAge = performance.now() - stream.openedAt;
      const streamOpen = stream.closedAt === undefined;

      // Deno: the inner server answers nothing that did not come through the gate (its limits would not hold there).
      const bypass =
        child.innerPort === null
          ? undefined
          : await holdConnections(child.innerPort, 1, "answered").then(async ([direct]) => {
              await untilClosed([direct as HeldConnection], 300);
              (direct as HeldConnection).destroy();
              return (direct as HeldConnection).received;
            });

      const pings = await ping.stop();
      // A closing connection lingers a moment after its answer before it is forgotten.
      let after = await child.stats();
      for (let i = 0; i < 20 && after.connections !== null && after.connections > 3; i++) {
        await new Promise<void>((resolve) => setTimeout(resolve, 100));
        after = await child.stats();
      }

      t.diagnostic(
        `${runtime} (${expect.note}): bytes read after 413: chunked ${MiB(chunked.sentAfterAnswer)} MiB (closed ${chunked.closedAfterAnswerMs?.toFixed(0)} ms after), ` +
          `declared ${MiB(declared.sentAfterAnswer)} MiB (closed ${declared.closedAfterAnswerMs?.toFixed(0)} ms after); trickling body: ${slow.statusLine}, closed after ${slow.closedAfterMs?.toFixed(0)} ms`,
      );
      t.diagnostic(
        `${runtime}: ${LIMITS.maxConnections + BEYOND} idle/dripping connections: ${refusedAtOnce} refused at once, ${left} left open at ${expect.headerClose} ms, the last closed at ${closedBy.toFixed(0)} ms, ${answered408} dripping ones answered 408; ` +
          `${stalled.length} stalled requests: ${stalledRefused} refused at once (cap on ${expect.cap}), ${stalled408} answered 408, ${stalledLeft} left open`,
      );
      t.diagnostic(
        `${runtime}: silent after a JSON answer: closed ${answered.closedAt === undefined ? "never" : `after ${(answered.closedAt - answered.openedAt).toFixed(0)} ms`}; ` +
          `after an SSE answer: closed ${streamed.closedAt === undefined ? "never" : `after ${(streamed.closedAt - streamed.openedAt).toFixed(0)} ms`}; ` +
          `a quiet SSE stream: ${streamOpen ? "open" : "closed"} after ${streamAge.toFixed(0)} ms`,
      );
      t.diagnostic(
        `${runtime}: RSS ${MiB(before.rss)} → ${MiB(peak.rss)} MiB holding the connections → ${MiB(after.rss)} MiB after${peak.connections === null ? "" : ` (connections counted: ${peak.connections} at the peak, ${after.connections} after)`}; ` +
          `side pings: ${pings.latencies.length}, median ${median(pings.latencies).toFixed(2)} ms, ${pings.failures} refused${pings.lastFailure === undefined ? "" : ` (last: ${pings.lastFailure.slice(0, 120)})`}`,
      );

      assert.equal(left, 0, `${left} connections without a complete request still open ${expect.headerClose} ms after opening`);
      if (expect.cap === "connections") {
        // The pinger holds one of the cap's connections.
        assert.ok(refusedAtOnce >= BEYOND, `${refusedAtOnce} of ${BEYOND} connections beyond the cap refused at once`);
        assert.ok(answered408 > 0, "a connection that sent part of a head is answered 408");
      }
      assert.match(answered.received, /^HTTP\/1\.1 400 /, "the silent connection's request was answered");
      assert.match(streamed.received, /^HTTP\/1\.1 200 [^]*text\/event-stream[^]*"result"/i, "the tool call was answered as an SSE stream");
      assert.equal(answeredOpen, 0, `${answeredOpen} connections silent after their answer still open ${expect.keepAliveClose} ms after`);
      assert.match(stream.received, /^HTTP\/1\.1 200 [^]*text\/event-stream/i, "the GET stream opened");
      assert.ok(streamOpen, `a quiet SSE stream was cut after ${streamAge.toFixed(0)} ms`);
      assert.ok(streamAge > LIMITS.keepAliveTimeoutMs + LIMITS.headersTimeoutMs, "the stream was held past both timeouts");
      assert.ok(stalledRefused >= 20, `${stalledRefused} of 20 requests beyond the cap refused at once`);
      assert.equal(stalledLeft, 0, `${stalledLeft} stalled requests still open after the request timeout`);
      assert.ok(stalled408 > 0, "a stalled body is answered 408");
      assert.ok(peak.rss - before.rss < RSS_BOUND, `RSS grew by ${MiB(peak.rss - before.rss)} MiB holding the attack`);
      if (bypass !== undefined)
        assert.match(bypass, /^HTTP\/1\.1 403 [^]*LIM-11: expected a connection through the gate/, "a request around the gate");
      // Where connections are counted, none is forgotten open: the pinger's, the stream's and at most one more remain.
      if (after.connections !== null) assert.ok(after.connections <= 3, `${after.connections} connections counted after the attack`);
      assert.ok(pings.latencies.length > 0, "the side client was served");
      assert.ok(median(pings.latencies) < 20, `side ping median ${median(pings.latencies).toFixed(2)} ms`);
      // On Node and Deno the side client's connection holds its place in the cap; on Bun the cap is on requests in flight, shared with it.
      if (expect.cap === "connections") assert.equal(pings.failures, 0, `side pings refused: last ${pings.lastFailure}`);
    } finally {
      for (const connection of held) connection.destroy();
      await child.close();
    }
  });
