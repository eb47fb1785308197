// A well-behaved client's ping against the HTTP host (the reference server in a child
// process, maxSessions 100, 1 MiB bodies), idle and then while the host takes an
// attack: 20,000 bogus initialize POSTs pipelined over 8 keep-alive sockets (50 in flight
// each), then 1,000 valid initializes beyond the session cap, with endless chunked bodies
// meanwhile. Prints the ping medians (and their ratio), the attack's rate and the server's
// heap after GC before and after. The drivers are spec-tests/support/http-attack.ts, shared with the
// hardening test (which asserts the counts; this only measures).

import { performance } from "node:perf_hooks";
import {
  bogusInitializeBodies,
  endlessChunkedBody,
  pinger,
  pipelinedPosts,
  startChild,
  validInitializeBody,
} from "../spec-tests/support/http-attack.js";
import { fmt, median, print } from "./run.js";

function sleep(ms: number): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, ms));
}

export async function run(): Promise<void> {
  const child = await startChild(100, 1024 * 1024);
  try {
    const idle = await pinger(child.url);
    await sleep(1500);
    const idleLatencies = (await idle.stop()).latencies;
    await pipelinedPosts(child.port, bogusInitializeBodies(), 600, 2, 50);
    const before = await child.stats();

    const busy = await pinger(child.url);
    const started = performance.now();
    const bodies = (async () => {
      let cut = 0;
      for (let i = 0; i < 4; i++) if ((await endlessChunkedBody(child.port, 512 * 1024 * 1024)).closed) cut++;
      return cut;
    })();
    await pipelinedPosts(child.port, bogusInitializeBodies(), 20_000);
    const bogusMs = performance.now() - started;
    await pipelinedPosts(child.port, [validInitializeBody()], 1_000, 4, 25);
    const cut = await bodies;
    const busyLatencies = (await busy.stop()).latencies;
    const after = await child.stats();

    const idleMedian = median(idleLatencies);
    const busyMedian = median(busyLatencies);
    print(`  ping median, idle server           ${fmt(idleMedian, 2)} ms  (${idleLatencies.length} pings)`);
    print(
      `  ping median, under attack          ${fmt(busyMedian, 2)} ms  (${busyLatencies.length} pings; ${fmt(busyMedian / idleMedian, 1, 5)}× idle; target < 20 ms)`,
    );
    print(`  bogus initializes answered         ${fmt(20_000 / (bogusMs / 1000), 0)} /s`);
    print(`  endless bodies cut                 ${fmt(cut, 0)} of 4`);
    print(
      `  server heap after GC               ${fmt(before.heapUsed / 2 ** 20)} → ${fmt(after.heapUsed / 2 ** 20, 1, 5)} MiB with ${after.sessions} sessions (cap 100)`,
    );
  } finally {
    await child.close();
  }
}
