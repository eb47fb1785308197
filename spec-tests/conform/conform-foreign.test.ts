// The conformance runner against two servers written with the official SDKs
// (spec-tests/conform/sdk-v1-server.mjs: @modelcontextprotocol/sdk 1.32.2 McpServer;
// sdk-v2-server.mjs: @modelcontextprotocol/server 2.4.0), black-box over stdio, one case per
// fixture (its newest version). The runner must report their real deviations by rule id and
// none of our policies: no failure may name a rule whose RULES.md level is `policy`, and the
// failures found are exactly the known deviations of each SDK (a new one, or one fixed by an
// SDK upgrade, shows here first).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { probeTarget, runStdioConformance } from "../../lib/cli/conform/index.js";
import { applyBaseline, exitCode, parseBaseline } from "../../lib/cli/conform/report.js";
import type { CaseResult } from "../../lib/cli/conform/types.js";
import { ruleLevels } from "../corpus-levels.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const fixturesDir = join(root, "fixtures");
const levels = ruleLevels(readFileSync(join(root, "RULES.md"), "utf8"));

async function run(script: string): Promise<CaseResult[]> {
  const args = [join(root, "spec-tests", "conform", script)];
  const probed = await probeTarget(process.execPath, args, 10_000, {}, undefined);
  if (typeof probed === "string") throw new Error(probed);
  return runStdioConformance(process.execPath, args, { fixturesDir, role: "server", timeoutMs: 3000, profile: probed.profile, newestOnly: true });
}

/**
 * What both SDKs get wrong: no reply at all to malformed input, no batches, -32603 for invalid
 * params; and, found through the trigger tools, requests and notifications the application asks
 * for sent although the spec forbids them: sampling to a client without sampling (C-01),
 * includeContext without sampling.context (C-06, SHOULD), elicitation/complete for an
 * elicitation never sent (C-07), elicitation before 2025-06-18 (MT-01).
 */
const COMMON = ["C-01", "C-06", "C-07", "ID-01", "ID-02", "JR-02", "M-01", "M-02", "M-03", "M-09", "MT-01"];

const SDKS: readonly [string, string, readonly string[], string][] = [
  // v1 also ignores a cancellation of request id 0 and refuses a task-augmented call instead of ignoring `task` (C-08).
  ["SDK v1 McpServer", "sdk-v1-server.mjs", [...COMMON, "C-08", "X-04"], "sdk-v1.json"],
  ["SDK v2 server", "sdk-v2-server.mjs", COMMON, "sdk-v2.json"],
];

for (const [name, script, expected, baselineFile] of SDKS) {
  test(`${name}: its real deviations by rule id, and none of our policies`, async () => {
    const cases = await run(script);
    const failed = cases.filter((c) => c.outcome === "failed");
    const detail = failed.map((c) => `${c.fixture}@${c.version} [${c.failedRule}] ${c.reason}`).join("\n");
    assert.deepEqual(failed.filter((c) => levels.get(c.failedRule ?? "") === "policy" || c.level === "policy"), [], detail);
    assert.deepEqual([...new Set(failed.map((c) => c.failedRule ?? "?"))].sort(), [...expected].sort(), detail);
    const judged = cases.filter((c) => c.outcome !== "not-applicable").length;
    assert.ok(judged >= 75, `at least 75 fixtures judged, got ${judged}`);
    // The share a black-box replay judges (one case per fixture). Only the session era and
    // 2026-07-28 fixtures without engine-only needs can apply: see the README's table.
    assert.ok(judged / cases.length >= 0.39, `judged share ${judged}/${cases.length}`);
    // Its published baseline (spec-tests/conform/baselines/) covers exactly these failures: the run exits 0, no entry is stale.
    const baseline = parseBaseline(readFileSync(join(root, "spec-tests", "conform", "baselines", baselineFile), "utf8"));
    assert.ok(typeof baseline !== "string", String(baseline));
    const verdict = applyBaseline(cases, baseline);
    assert.deepEqual([verdict.unexpected, verdict.stale], [0, []]);
    assert.equal(exitCode(verdict), 0);
  });
}
