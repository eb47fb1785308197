// The client role of `mcp-engine conform` over Streamable HTTP, and the SDK v2 client over both
// transports: the SDK v1 Client (spec-tests/conform/sdk-v1-client.mjs) and the SDK v2 Client
// (@modelcontextprotocol/client, spec-tests/conform/sdk-v2-client.mjs) given the runner's URL.
// Both answer pings in every phase over HTTP (G-02) and keep to the transport's headers
// (HTTP-01, HTTP-03, L-07); the v1 client sends no reply to a message that is not JSON-RPC 2.0
// (M-01) over either transport: the runner must pass the one and fail the other by rule.

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { runClientConformance, type ClientTransport } from "../../lib/cli/conform/client-replay.js";
import type { CaseResult } from "../../lib/cli/conform/types.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const driver = (sdk: "v1" | "v2"): string => join(root, "spec-tests", "conform", `sdk-${sdk}-client.mjs`);

const run = (sdk: "v1" | "v2", transport: ClientTransport, only: string): Promise<CaseResult[]> =>
  runClientConformance(process.execPath, [driver(sdk)], { fixturesDir: join(root, "fixtures"), transport, only, timeoutMs: 2000 });

const judged = (cases: readonly CaseResult[]): CaseResult[] => cases.filter((c) => c.outcome !== "not-applicable");

for (const sdk of ["v1", "v2"] as const) {
  test(`G-02, HTTP-01, HTTP-03, L-07: the SDK ${sdk} client passes client/ping/every-phase over HTTP (2025-03-26 on)`, async () => {
    const cases = judged(await run(sdk, "http", "client/ping/every-phase"));
    assert.equal(cases.length, 3);
    for (const c of cases) assert.equal(c.outcome, "passed", `${c.fixture}@${c.version}: ${c.reason ?? ""}`);
  });
}

test("G-02: the SDK v2 client passes client/ping/every-phase over stdio, at every version", async () => {
  const cases = await run("v2", "stdio", "client/ping/every-phase");
  assert.equal(cases.length, 4);
  for (const c of cases) assert.equal(c.outcome, "passed", `${c.fixture}@${c.version}: ${c.reason ?? ""}`);
});

test("M-01: the SDK v1 client fails jsonrpc-1-0-refused by M-01 over HTTP as over stdio", async () => {
  const cases = judged(await run("v1", "http", "client/message/jsonrpc-1-0-refused"));
  assert.ok(cases.length > 0);
  for (const c of cases) {
    assert.equal(c.outcome, "failed", `${c.fixture}@${c.version}`);
    assert.equal(c.failedRule, "M-01");
  }
});
