// The HTTP host under attack, measured as a test, on each runtime it serves on: the reference
// server in a child process (Node: serveHttp on node:http; Bun: Bun.serve; Deno: Deno.serve
// behind its connection gate; maxSessions 100) takes 20,000 bogus initialize POSTs (a bare
// {method}, one refused -32602, one without id; pipelined over 8 keep-alive sockets, 50 in
// flight each), 1,000 valid initializes (beyond its session cap), and endless chunked bodies
// meanwhile, while a well-behaved client pings on the side. It must mint no session for any
// bogus POST, keep at most maxSessions sessions, close every endless body within a bound of
// bytes, and its heap after GC must stay within what its limits allow.
//
// Asserts counts and bytes, never time; the ping latencies are printed as a diagnostic (the
// figures with ratios are bench/http-hardening.bench.ts). The connection limits (timeouts, the
// cap, the close after a 413 in time) are http-runtime-limits.test.ts. A runtime whose binary
// does not run here is skipped with the reason.

import { test } from "node:test";
import assert from "node:assert/strict";
import { median } from "../../bench/run.js";
import { runtimeMissing } from "../support/runtimes.js";
import {
  type AttackedRuntime,
  bogusInitializeBodies,
  endlessChunkedBody,
  pinger,
  pipelinedPosts,
  startChild,
  validInitializeBody,
} from "../support/http-attack.js";

const MAX_SESSIONS = 100;
const MAX_BODY = 1024 * 1024;
const BOGUS = 20_000;
const VALID = 1_000;
/** Bytes an endless body may push before the server closes: the limit plus socket buffers on both ends. */
const BODY_SLACK = MAX_BODY + 32 * 1024 * 1024;
/**
 * What the heap may grow by: a generous 64 KiB for each session the cap allows (a session
 * with its snapshot measures about 10 KiB), plus 16 MiB for the runtime's own warm-up (JIT
 * code, parser and socket pools). Before the fix, 20,000 bogus sessions held +134 MiB.
 */
const HEAP_BOUND = MAX_SESSIONS * 64 * 1024 + 16 * 1024 * 1024;

for (const runtime of ["node", "bun", "deno"] as const satisfies readonly AttackedRuntime[])
  test(`LIM-09, LIM-10: ${runtime}: 20,000 bogus initializes, 1,000 valid ones over the cap and endless bodies: no bogus session, sessions ≤ cap, bodies cut, heap bounded`, async (t) => {
    const missing = runtime === "node" ? undefined : runtimeMissing(runtime);
    if (missing !== undefined) {
      t.skip(`SKIPPED: ${missing}`);
      return;
    }
    const child = await startChild(MAX_SESSIONS, MAX_BODY, runtime);
    try {
      const ping = await pinger(child.url);
      // Warm up the paths measured, so the baseline includes what the runtime keeps for them anyway.
      await pipelinedPosts(child.port, bogusInitializeBodies(), 600, 2, 50);
      const before = await child.stats();

      const bodies = (async () => {
        const outcomes = [];
        for (let i = 0; i < 4; i++) outcomes.push(await endlessChunkedBody(child.port, 8 * BODY_SLACK));
        return outcomes;
      })();
      const bogus = await pipelinedPosts(child.port, bogusInitializeBodies(), BOGUS);
      const valid = await pipelinedPosts(child.port, [validInitializeBody()], VALID, 4, 25);
      const cut = await bodies;
      const { latencies, failures, lastFailure } = await ping.stop();
      const after = await child.stats();

      assert.equal(bogus.responses, BOGUS, "every bogus POST answered");
      assert.deepEqual([...bogus.statuses], [[400, BOGUS]], "every bogus initialize refused 400");
      assert.equal(bogus.sessionIds, 0, "no session id minted for a bogus initialize");

      assert.equal(valid.responses, VALID);
      // The pinger holds one session of the cap.
      assert.equal(valid.statuses.get(200), MAX_SESSIONS - 1, "valid initializes up to the cap succeed");
      assert.equal(valid.statuses.get(503), VALID - (MAX_SESSIONS - 1), "the rest get 503");
      assert.equal(valid.sessionIds, MAX_SESSIONS - 1);

      for (const body of cut) {
        assert.ok(body.closed, `an endless body is closed by the server (${body.sent} bytes sent)`);
        assert.ok(body.sent < BODY_SLACK, `closed after ${body.sent} bytes`);
        assert.match(body.statusLine, /^HTTP\/1\.1 413 /);
      }

      assert.ok(after.sessions <= MAX_SESSIONS, `${after.sessions} sessions`);
      assert.equal(after.serverSessions, after.sessions, "no ServerSession outlives its HttpSession");
      assert.equal(after.stored, after.sessions);
      const growth = after.heapUsed - before.heapUsed;
      assert.ok(
        growth < HEAP_BOUND,
        `heap after GC grew by ${(growth / 2 ** 20).toFixed(1)} MiB (bound ${(HEAP_BOUND / 2 ** 20).toFixed(1)} MiB)`,
      );
      assert.ok(latencies.length > 0, "the well-behaved client was served throughout");
      assert.equal(failures, 0, `no ping refused or failed (last: ${lastFailure})`);
      t.diagnostic(
        `${runtime}: heap after GC: ${(before.heapUsed / 2 ** 20).toFixed(1)} → ${(after.heapUsed / 2 ** 20).toFixed(1)} MiB with ${after.sessions} sessions; ` +
          `pings during the attack: ${latencies.length}, median ${median(latencies).toFixed(2)} ms; endless bodies cut after ${cut.map((c) => (c.sent / 2 ** 20).toFixed(1)).join(", ")} MiB`,
      );
    } finally {
      await child.close();
    }
  });
