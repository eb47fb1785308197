// The published target profiles reach `mcp-engine serve` (lib/cli/conform/target-profiles.ts;
// fixtures/FORMAT.md "Target profiles"): serve, started as a black box under each profile's
// MCP_CONFORM_PROFILE, announces it, and what it declares and speaks is what the table
// publishes; without a profile, or under an unknown name, it runs its default and announces
// nothing. One probe per profile: a long run, `npm run test:long` (spec-tests/run.ts, --long).

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { probeTarget } from "../../lib/cli/conform/index.js";
import { profileEnvironment } from "../../lib/cli/conform/passes.js";
import { PUBLISHED_PROFILES } from "../../lib/cli/conform/target-profiles.js";
import { MODERN_VERSIONS, SESSION_VERSIONS } from "../../lib/rules/versions.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const main = join(root, "dist", "lib", "cli", "main.js");
/** serve as a black box: without its host adapter, as the measured runs start it. */
const serve = ["-c", `unset MCP_CONFORM_ADAPTER; exec "${process.execPath}" "${main}" serve`];

test("each published profile reaches serve: announced, and what it declares and speaks is what the table publishes", async () => {
  const full = await probeTarget("sh", serve, 5000, {}, undefined, profileEnvironment("full"));
  assert.ok(typeof full !== "string", String(full));
  for (const [name, published] of PUBLISHED_PROFILES) {
    const probed: Awaited<ReturnType<typeof probeTarget>> =
      name === "full" ? full : await probeTarget("sh", serve, 5000, {}, undefined, profileEnvironment(name));
    assert.ok(typeof probed !== "string", `${name}: ${String(probed)}`);
    assert.ok(probed.announced.has(name), `${name} announced`);
    const expectedVersions = published.settings.versions ?? [...SESSION_VERSIONS, ...MODERN_VERSIONS];
    // limits: the 2026-07-28 probe (a discover line over 200 bytes) is itself refused.
    const spoken: string[] = [...probed.profile.versions].filter((v) => name !== "limits" || v !== MODERN_VERSIONS[0]);
    assert.deepEqual(
      spoken.sort(),
      [...expectedVersions].filter((v) => name !== "limits" || v !== MODERN_VERSIONS[0]).sort(),
      `${name} versions`,
    );
    if (published.capabilities === "all")
      assert.deepEqual(
        Object.keys(probed.profile.capabilities).sort(),
        Object.keys(full.profile.capabilities).sort(),
        `${name} capabilities`,
      );
    else assert.deepEqual(Object.keys(probed.profile.capabilities), Object.keys(published.capabilities), `${name} capabilities`);
  }
  // Without MCP_CONFORM_PROFILE (and under an unknown name) serve runs its default and announces nothing.
  for (const env of [undefined, profileEnvironment("no-such-profile")]) {
    const plain = await probeTarget("sh", serve, 5000, {}, undefined, env);
    assert.ok(typeof plain !== "string");
    assert.deepEqual(plain.announced, new Set());
    // The default adds the 2025-11-25 core tasks (serveTasks({ core: true })), which no published profile declares.
    const { tasks, ...rest } = plain.profile.capabilities as { readonly tasks?: unknown };
    assert.deepEqual(rest, full.profile.capabilities);
    assert.deepEqual(tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
  }
});
