// The published target profiles (lib/cli/conform/target-profiles.ts; fixtures/FORMAT.md
// "Target profiles"): the manifest publishes exactly the table serve runs; profiles change what
// `mcp-engine serve` enforces (that each reaches serve, announced, declaring and speaking what
// the table publishes, is probed in target-profiles.long.test.ts, npm run test:long); a case
// needing a profile is judged only in that pass and only when the target announces it; the
// annotator names a profile only for a configuration that is exactly its settings.

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { conformMain, runStdioPasses } from "../../lib/cli/conform/index.js";
import { notApplicable, type FixtureHeader, type TargetProfile } from "../../lib/cli/conform/fixtures.js";
import { profileEnvironment } from "../../lib/cli/conform/passes.js";
import {
  announcedProfiles,
  capabilityMismatch,
  manifestProfiles,
  profileFor,
  PUBLISHED_PROFILES,
  requestedProfile,
  type ProfileSettings,
} from "../../lib/cli/conform/target-profiles.js";
import { StdioTarget } from "../../lib/cli/conform/target.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const main = join(root, "dist", "lib", "cli", "main.js");
const profileServer = join(root, "dist", "spec-tests", "conform", "profile-server.js");
/** serve as a black box: without its host adapter, as the measured runs start it. */
const serve = ["-c", `unset MCP_CONFORM_ADAPTER; exec "${process.execPath}" "${main}" serve`];

test("the manifest publishes exactly the profiles serve runs (one table: target-profiles.ts)", () => {
  const manifest = JSON.parse(readFileSync(join(root, "fixtures", "manifest.json"), "utf8")) as { targetProfiles?: unknown };
  assert.deepEqual(manifest.targetProfiles, JSON.parse(JSON.stringify(manifestProfiles())));
  assert.deepEqual(Object.keys(manifest.targetProfiles as object), [...PUBLISHED_PROFILES.keys()]);
  // FORMAT.md names each of them in its table.
  const format = readFileSync(join(root, "fixtures", "FORMAT.md"), "utf8");
  for (const name of PUBLISHED_PROFILES.keys()) assert.match(format, new RegExp(`^\\| \`${name}\` \\|`, "m"), name);
});

/** One exchange with serve under `profile`: the lines sent, the messages back (until `count` came or 3 s passed). */
async function exchange(profile: string, lines: string[], count: number): Promise<unknown[]> {
  const target = new StdioTarget({ command: "sh", args: serve, adapter: false, env: profileEnvironment(profile) });
  const got: unknown[] = [];
  try {
    for (const line of lines) target.write(line + "\n");
    while (got.length < count) {
      const entry = await target.next(3000);
      if (entry === undefined) break;
      if (entry.kind === "message") got.push(entry.value);
    }
  } finally {
    await target.stop(300);
  }
  return got;
}

const init = (version: string): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });

test("serve enforces a profile's settings: limits refuses a 201-byte line, strict a request before initialized, old-versions counter-offers 2025-06-18", async () => {
  const ping = (id: number, pad: number): string => `{"jsonrpc":"2.0","id":${id},"method":"ping"${" ".repeat(pad)}}`;
  const long = ping(1, 201 - ping(1, 0).length);
  assert.equal(long.length, 201);
  const initialized = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
  const [, refused] = await exchange("limits", [init("2025-06-18"), initialized, long], 2);
  assert.deepEqual((refused as { error?: { code?: number } }).error?.code, -32600);
  const [, served] = await exchange("full", [init("2025-06-18"), initialized, long], 2);
  assert.deepEqual(served, { jsonrpc: "2.0", id: 1, result: {} });
  const list = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  const [, early] = await exchange("strict", [init("2025-06-18"), list], 2);
  assert.equal((early as { error?: { code?: number } }).error?.code, -32600);
  const [offer] = await exchange("old-versions", [init("2025-11-25")], 1);
  assert.equal((offer as { result?: { protocolVersion?: string } }).result?.protocolVersion, "2025-06-18");
});

test("requestedProfile: only under MCP_CONFORM=1 and only a published name", () => {
  assert.equal(requestedProfile({ MCP_CONFORM_PROFILE: "limits" }), undefined);
  assert.equal(requestedProfile({ MCP_CONFORM: "1", MCP_CONFORM_PROFILE: "nope" }), undefined);
  assert.equal(requestedProfile({ MCP_CONFORM: "1" }), undefined);
  assert.equal(requestedProfile({ MCP_CONFORM: "1", MCP_CONFORM_PROFILE: "limits" })?.name, "limits");
});

test("announcements: whole lines only, CRLF tolerated, other stderr ignored", () => {
  assert.deepEqual(announcedProfiles("starting\nmcp-conform-profile: limits\r\nnoise mcp-conform-profile: strict\n"), new Set(["limits"]));
  assert.deepEqual(announcedProfiles(""), new Set());
});

test("the annotator's profile: exactly a published profile's settings, else none", () => {
  const limits = { limits: { maxLineBytes: 200, maxBatchLength: 2, maxPendingInbound: 2, maxPendingOutbound: 1 } };
  assert.equal(profileFor(limits), "limits");
  // Key order does not matter; a subset or another value is not the profile.
  assert.equal(profileFor({ limits: { maxPendingOutbound: 1, maxPendingInbound: 2, maxBatchLength: 2, maxLineBytes: 200 } }), "limits");
  assert.equal(profileFor({ limits: { maxLineBytes: 200 } } as unknown as ProfileSettings), undefined);
  assert.equal(profileFor({ ...limits, strict: true }), undefined);
  assert.equal(profileFor({ strict: true }), "strict");
  assert.equal(profileFor({ versions: ["2025-06-18", "2024-11-05"] }), undefined);
  assert.equal(profileFor({}), undefined);
});

const header = (profile: string | undefined, config: Record<string, unknown> = {}, strict?: boolean[]): FixtureHeader => ({
  fixture: "server/t/x",
  role: "server",
  versions: ["2025-06-18"],
  rules: ["LIM-01"],
  config,
  ...(strict !== undefined ? { strict } : {}),
  requires: { era: "session", ...(profile !== undefined ? { profile } : {}) },
});
const target = (pass?: TargetProfile["pass"], adapter?: TargetProfile["adapter"]): TargetProfile => ({
  versions: new Set(["2025-06-18"]),
  capabilities: { tools: {} },
  tools: new Set(),
  ...(pass !== undefined ? { pass } : {}),
  ...(adapter !== undefined ? { adapter } : {}),
});

test("applicability of a profiled case: its own announced pass only; an unprofiled case not under an announced settings profile", () => {
  const limits = header("limits", { limits: { maxLineBytes: 200 } });
  assert.match(
    String(notApplicable(limits, "2025-06-18", target())),
    /^target profile limits \(judged in its own pass: --profiles limits or all\)/,
  );
  assert.match(
    String(notApplicable(limits, "2025-06-18", target({ name: "strict", announced: true, settings: true }))),
    /^target profile limits \(judged in its own pass/,
  );
  assert.match(
    String(notApplicable(limits, "2025-06-18", target({ name: "limits", announced: false, settings: true }))),
    /did not announce it: no "mcp-conform-profile: limits" line on stderr/,
  );
  assert.equal(notApplicable(limits, "2025-06-18", target({ name: "limits", announced: true, settings: true })), undefined);
  const plain = header(undefined);
  assert.match(
    String(notApplicable(plain, "2025-06-18", target({ name: "limits", announced: true, settings: true }))),
    /default settings \(profile limits changes them\)/,
  );
  // Not announced: the target ran its default, so an unprofiled case may be judged there; a capability profile never hides one.
  assert.equal(notApplicable(plain, "2025-06-18", target({ name: "limits", announced: false, settings: true })), undefined);
  assert.equal(notApplicable(plain, "2025-06-18", target({ name: "tools", announced: true, settings: false })), undefined);
  // The strict profile stands for the strict flag.
  const strict = { ...header("strict", {}, [true]), requires: { era: "session" as const, profile: "strict", strict: true } };
  assert.equal(notApplicable(strict, "2025-06-18", target({ name: "strict", announced: true, settings: true })), undefined);
});

test("with an adapter, a profiled case needs each key of its configuration (and strict mode when strict only)", () => {
  const adapter = (config: string[], strict: boolean): NonNullable<TargetProfile["adapter"]> => ({
    ops: new Set(),
    clock: false,
    config: new Set(config),
    strict,
  });
  const modern = header("modern-only", { info: {}, capabilities: {}, versions: ["2026-07-28"], serverInfoInResults: false });
  assert.equal(
    notApplicable(modern, "2026-07-28", target(undefined, adapter(["versions"], false))),
    "engine configuration key serverInfoInResults",
  );
  assert.equal(notApplicable(modern, "2026-07-28", target(undefined, adapter(["versions", "serverInfoInResults"], false))), undefined);
  const strict = header("strict", {}, [true]);
  assert.equal(notApplicable(strict, "2025-06-18", target(undefined, adapter([], false))), "strict phase rules (engine option ENG-03)");
  assert.equal(notApplicable(strict, "2025-06-18", target(undefined, adapter([], true))), undefined);
});

/** A corpus of two fixtures: one needs the limits profile, one names none; both check the initialize answer. */
function corpus(): string {
  const dir = mkdtempSync(join(tmpdir(), "conform-target-profiles-"));
  mkdirSync(join(dir, "server", "t"), { recursive: true });
  const steps = [
    {
      in: {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "$version", capabilities: {}, clientInfo: { name: "c", version: "1" } },
      },
    },
    {
      out: { jsonrpc: "2.0", id: 0, result: { protocolVersion: "$version", capabilities: "$any", serverInfo: "$any" } },
      rule: "L-03",
      level: "MUST",
    },
  ];
  const fixture = (name: string, requires: Record<string, unknown>): void => {
    const head = {
      fixture: `server/t/${name}`,
      role: "server",
      versions: ["2025-06-18"],
      rules: ["L-03"],
      requires: { era: "session", ...requires },
    };
    writeFileSync(join(dir, "server", "t", `${name}.jsonl`), [head, ...steps].map((l) => JSON.stringify(l)).join("\n") + "\n");
  };
  fixture("needs-limits", { profile: "limits" });
  fixture("plain", {});
  return dir;
}

test("a target that ignores the profile (announces nothing) gets its cases not applicable, naming the profile; one that announces it gets them judged", async () => {
  const fixturesDir = corpus();
  try {
    const run = (announce: boolean) =>
      runStdioPasses(process.execPath, [profileServer, "--serve", ...(announce ? ["--announce"] : [])], {
        fixturesDir,
        role: "server",
        timeoutMs: 3000,
        probeMs: 5000,
        newestOnly: true,
        profiles: ["limits", "full"],
      });
    const silent = await run(false);
    assert.ok(typeof silent !== "string");
    assert.deepEqual(
      silent.map((c) => [c.fixture, c.outcome, c.profile]),
      [
        ["server/t/needs-limits", "not-applicable", undefined],
        ["server/t/plain", "passed", "limits"],
      ],
    );
    assert.match(
      silent[0]?.reason ?? "",
      /target profile limits \(the target did not announce it[^)]*\) \(limits\); target profile limits \(judged in its own pass[^)]*\) \(full\)/,
    );
    const announcing = await run(true);
    assert.ok(typeof announcing !== "string");
    // The plain case is not judged under the announced limits pass, but in the full one.
    assert.deepEqual(
      announcing.map((c) => [c.fixture, c.outcome, c.profile]),
      [
        ["server/t/needs-limits", "passed", "limits"],
        ["server/t/plain", "passed", "full"],
      ],
    );
  } finally {
    rmSync(fixturesDir, { recursive: true, force: true });
  }
});

test("mcp-engine conform --profiles with an unpublished name is a usage error (exit 2), naming the published ones", async () => {
  let err = "";
  const code = await conformMain(
    ["--profiles", "full,limitz", "--", process.execPath, profileServer, "--serve"],
    () => undefined,
    (t) => (err += t),
  );
  assert.equal(code, 2);
  assert.match(
    err,
    /"limitz" is no published target profile .*full, tools, core, bare, limits, modern-only, discover-any, old-versions, strict, or all/,
  );
});

test("an announced capability profile is checked against what the target declares", () => {
  const profile = (name: string) => PUBLISHED_PROFILES.get(name) as NonNullable<ReturnType<typeof PUBLISHED_PROFILES.get>>;
  assert.equal(capabilityMismatch(profile("full"), { anything: {} }), undefined);
  assert.equal(capabilityMismatch(profile("tools"), { tools: { listChanged: true } }), undefined);
  assert.equal(capabilityMismatch(profile("tools"), { tools: {}, logging: {} }), "capabilities logging, tools instead of tools");
  assert.equal(capabilityMismatch(profile("core"), { tools: {}, resources: {}, logging: {} }), "resources.subscribe not declared");
  assert.equal(
    capabilityMismatch(profile("bare"), { tools: { listChanged: true }, resources: {}, prompts: {} }),
    "tools.listChanged declared",
  );
});
