// The client role of `mcp-engine conform` against a client it does not control: the SDK v1
// Client (spec-tests/conform/sdk-v1-client.mjs) started with the relay as its server command.
// It answers pings in every phase (G-02) and, like the SDK v1 server, sends no reply to a
// message that is not JSON-RPC 2.0 (M-01): the runner must pass the one and fail the other by rule.

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { runClientConformance } from "../../lib/cli/conform/client-replay.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const sdkClient = join(root, "spec-tests", "conform", "sdk-v1-client.mjs");

test("G-02, M-01: the SDK v1 client passes client/ping/every-phase and fails jsonrpc-1-0-refused by M-01", async () => {
  const run = (only: string) =>
    runClientConformance(process.execPath, [sdkClient], { fixturesDir: join(root, "fixtures"), only, timeoutMs: 2000 });
  for (const c of await run("client/ping/every-phase")) assert.equal(c.outcome, "passed", `${c.fixture}@${c.version}: ${c.reason ?? ""}`);
  const refused = await run("client/message/jsonrpc-1-0-refused");
  assert.ok(refused.length > 0);
  for (const c of refused) {
    assert.equal(c.outcome, "failed", `${c.fixture}@${c.version}`);
    assert.equal(c.failedRule, "M-01");
  }
});
