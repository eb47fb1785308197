// The conformance runner against two servers written with the official SDKs
// (spec-tests/conform/sdk-v1-server.mjs: @modelcontextprotocol/sdk 1.32.2 McpServer;
// sdk-v2-server.mjs: @modelcontextprotocol/server 2.4.0), black-box over stdio, one case per
// fixture (the newest of its versions the SDK speaks), in two passes (fixtures/FORMAT.md,
// "Target profiles"): `full`, every feature registered, then `tools`, the tools alone, for the
// fixtures that need a capability undeclared. The runner must report their real deviations by rule id and
// none of our policies: no failure may name a rule whose RULES.md level is `policy`, and the
// failures found are exactly the known deviations of each SDK (a new one, or one fixed by an
// SDK upgrade, shows here first).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { runStdioPasses } from "../../lib/cli/conform/index.js";
import { applyBaseline, exitCode, parseBaseline } from "../../lib/cli/conform/report.js";
import type { CaseResult } from "../../lib/cli/conform/types.js";
import { ruleLevels } from "../tools/corpus-levels.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const fixturesDir = join(root, "fixtures");
const levels = ruleLevels(readFileSync(join(root, "RULES.md"), "utf8"));

async function run(script: string): Promise<CaseResult[]> {
  const args = [join(root, "spec-tests", "conform", script)];
  const cases = await runStdioPasses(process.execPath, args, {
    fixturesDir,
    role: "server",
    timeoutMs: 3000,
    probeMs: 10_000,
    newestOnly: true,
    profiles: ["full", "tools"],
  });
  if (typeof cases === "string") throw new Error(cases);
  return cases;
}

/**
 * What both SDKs get wrong: no reply at all to malformed input, no batches, -32603 for invalid
 * params; and, found through the trigger tools, requests and notifications the application asks
 * for sent although the spec forbids them: sampling to a client without sampling (C-01),
 * includeContext without sampling.context (C-06, SHOULD), elicitation/complete for an
 * elicitation never sent (C-07), elicitation before 2025-06-18 (MT-01), a `_meta` key outside the
 * key format (K-03), notifications/resources/updated for a URI never subscribed to (C-04,
 * SHOULD), progress that does not increase (P-05, asked for through conform_progress). And, with
 * names no server has: -32602 for a missing resource (RS-02, SHOULD -32002), a cursor never issued
 * answered with the first page (N-05, SHOULD).
 */
const COMMON = [
  "C-01",
  "C-04",
  "C-06",
  "C-07",
  "ID-01",
  "K-03",
  "ID-02",
  "JR-02",
  "M-01",
  "M-02",
  "M-03",
  "M-09",
  "MT-01",
  "N-05",
  "P-05",
  "RS-02",
];

/** Judged only in the `tools` pass: they need the capability their method is gated on undeclared. */
/** The least share of the server fixtures a black-box replay must judge against each SDK. */
const SHARE = 0.45;

const TOOLS_PASS = ["server/gating/undeclared-capability-request", "server/logging/set-level-without-logging"];

// [name, script, failed rules, baseline, fixtures judged at least] (v2 speaks 2026-07-28 as well).
const SDKS: readonly [string, string, readonly string[], string, number][] = [
  // v1 also ignores a cancellation of request id 0 and answers an unknown tool with an isError result (TL-02).
  // Its refusal of a task-augmented call (C-08) is judged by fixtures that need a `tasks` capability or a host
  // command, which this black-box v1 server has neither of.
  ["SDK v1 McpServer", "sdk-v1-server.mjs", [...COMMON, "TL-02", "X-04"], "sdk-v1.json", 99],
  // v2 serves a request naming a version it does not serve once its connection speaks 2026-07-28 (MOD-06).
  ["SDK v2 server", "sdk-v2-server.mjs", [...COMMON, "MOD-06"], "sdk-v2.json", 117],
];

for (const [name, script, expected, baselineFile, least] of SDKS) {
  test(`${name}: its real deviations by rule id, and none of our policies`, async () => {
    const cases = await run(script);
    const failed = cases.filter((c) => c.outcome === "failed");
    const detail = failed.map((c) => `${c.fixture}@${c.version} [${c.failedRule}] ${c.reason}`).join("\n");
    assert.deepEqual(
      failed.filter((c) => levels.get(c.failedRule ?? "") === "policy" || c.level === "policy"),
      [],
      detail,
    );
    assert.deepEqual([...new Set(failed.map((c) => c.failedRule ?? "?"))].sort(), [...expected].sort(), detail);
    const judged = cases.filter((c) => c.outcome !== "not-applicable");
    assert.ok(judged.length >= least, `at least ${least} fixtures judged; ${judged.length} were`);
    // The share a black-box replay judges (one case per fixture); see the README's table for what stays not applicable.
    assert.ok(judged.length / cases.length >= SHARE, `judged share ${judged.length}/${cases.length}`);
    const toolsPass = judged.filter((c) => c.profile === "tools").map((c) => c.fixture);
    for (const fixture of TOOLS_PASS)
      assert.ok(toolsPass.includes(fixture), `${fixture} judged in the tools pass; it was in: ${toolsPass.join(", ")}`);
    // Its published baseline (spec-tests/conform/baselines/) covers exactly these failures: the run exits 0, no entry is stale.
    const baseline = parseBaseline(readFileSync(join(root, "spec-tests", "conform", "baselines", baselineFile), "utf8"));
    assert.ok(typeof baseline !== "string", String(baseline));
    const report = applyBaseline(cases, baseline);
    assert.deepEqual([report.unexpected, report.stale], [0, []]);
    assert.equal(exitCode(report), 0);
  });
}
