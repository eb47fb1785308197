// Memory stays within the configured limits under a peer that grows every table: a child
// process (with --expose-gc) runs heap-probe.js and reports the heap growth after GC. CI runs
// 100,000 messages per path; MCP_HEAP_PROBE_COUNT=1000000 runs a million.

import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_FEATURE_LIMITS } from "../../lib/index.js";
import { runNode } from "../support/helpers.js";

const PROBE = new URL("../support/heap-probe.js", import.meta.url).pathname;
const COUNT = Number(process.env.MCP_HEAP_PROBE_COUNT ?? "100000");

test(`ENG-08: ${COUNT} messages down each table-growing path and 20 engines that saw a 7 MiB line: heap growth after GC stays small, tables at their limits`, async () => {
  const run = await runNode(["--expose-gc", PROBE, String(COUNT)], 600_000);
  assert.equal(run.code, 0, run.stderr);
  const report = JSON.parse(run.stdout) as { growthBytes: number; client: Record<string, number>; server: Record<string, number> };
  const limits = DEFAULT_FEATURE_LIMITS;
  assert.ok((report.client.tasksThere ?? Infinity) <= limits.maxTasks, JSON.stringify(report));
  assert.ok((report.client.urlElicitations ?? Infinity) <= limits.maxUrlElicitations, JSON.stringify(report));
  assert.ok((report.client.toolNames ?? Infinity) <= limits.maxToolNames, JSON.stringify(report));
  assert.ok((report.server.subscriptions ?? Infinity) <= limits.maxSubscriptions, JSON.stringify(report));
  // Full tables of short strings are well under 4 MiB; 20 engines keeping 8 MiB buffers would be 160 MiB.
  assert.ok(report.growthBytes < 8 * 1024 * 1024, `heap grew by ${report.growthBytes} bytes: ${JSON.stringify(report)}`);
});
