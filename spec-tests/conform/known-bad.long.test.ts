// The conformance runner against known-bad servers (spec-tests/conform/bad-server.ts): the
// correct server passes every case that applies to it, and each fault is flagged under its one
// rule and nothing else. One case per fixture (its newest version) keeps the runs short.

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { probeTarget, runStdioConformance } from "../../lib/cli/conform/index.js";
import type { CaseResult } from "../../lib/cli/conform/types.js";
import { KNOWN_BAD_FAULTS } from "./known-bad-faults.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const fixturesDir = join(root, "fixtures");
const server = join(root, "dist", "spec-tests", "conform", "bad-server.js");

async function run(fault: string | undefined): Promise<CaseResult[]> {
  const args = [server, "--serve", ...(fault !== undefined ? ["--fault", fault] : [])];
  const probed = await probeTarget(process.execPath, args, 5000, {}, undefined);
  if (typeof probed === "string") throw new Error(probed);
  return runStdioConformance(process.execPath, args, {
    fixturesDir,
    role: "server",
    timeoutMs: 3000,
    profile: probed.profile,
    newestOnly: true,
  });
}

const failedRules = (cases: readonly CaseResult[]): string[] =>
  [...new Set(cases.filter((c) => c.outcome === "failed").map((c) => c.failedRule ?? "?"))].sort();

test("the correct server passes every case that applies to it, and many apply", async () => {
  const cases = await run(undefined);
  const failed = cases.filter((c) => c.outcome === "failed");
  assert.deepEqual(
    failed.map((c) => `${c.fixture}: ${c.reason}`),
    [],
  );
  assert.ok(cases.filter((c) => c.outcome === "passed").length >= 40, "at least 40 fixtures judged");
});

for (const [fault, rule] of KNOWN_BAD_FAULTS) {
  test(`a server that breaks ${rule} (${fault}) is flagged for ${rule} and nothing else`, async () => {
    const cases = await run(fault);
    const failed = cases.filter((c) => c.outcome === "failed");
    assert.deepEqual(failedRules(cases), [rule], failed.map((c) => `${c.fixture}@${c.version} [${c.failedRule}] ${c.reason}`).join("\n"));
  });
}
