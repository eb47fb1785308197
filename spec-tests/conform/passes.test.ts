// Target profiles run in passes (lib/cli/conform/passes.ts; fixtures/FORMAT.md, "Target
// profiles") and the version a case runs at: a case not applicable in one pass is judged in the
// next where it applies, a case applicable in both is judged once, in the first; the profile
// reaches the target as MCP_CONFORM_PROFILE; with one case per fixture, the case runs at the
// newest of its versions the target speaks.

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { conformMain, parseConformArgs, probeTarget, runStdioConformance, runStdioPasses } from "../../lib/cli/conform/index.js";
import type { FixtureHeader, TargetProfile } from "../../lib/cli/conform/fixtures.js";
import {
  caseVersions,
  parseProfileNames,
  profileEnvironment,
  runPasses,
  TARGET_PROFILES,
  type CaseFilter,
} from "../../lib/cli/conform/passes.js";
import type { CaseResult } from "../../lib/cli/conform/types.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const server = join(root, "dist", "spec-tests", "conform", "profile-server.js");

const result = (fixture: string, outcome: CaseResult["outcome"], reason?: string): CaseResult => ({
  fixture,
  version: "2025-06-18",
  transport: "stdio",
  rules: ["C-01"],
  level: "MUST",
  outcome,
  ...(reason !== undefined ? { reason } : {}),
});

test("a case not applicable in the first pass is judged in the second; one applicable in both once, in the first", async () => {
  const asked: [string, string[]][] = [];
  const passes: Record<string, Record<string, CaseResult>> = {
    full: {
      a: result("a", "not-applicable", "no logging capability"),
      b: result("b", "passed"),
      c: result("c", "not-applicable", "tool slow"),
    },
    tools: {
      a: result("a", "failed", "no answer"),
      b: result("b", "failed", "pass 2 must not judge b"),
      c: result("c", "not-applicable", "tool slow"),
    },
  };
  const run = async (profile: string, select: CaseFilter): Promise<CaseResult[]> => {
    const chosen = Object.values(passes[profile] ?? {}).filter((c) => select(c.fixture, c.version));
    asked.push([profile, chosen.map((c) => c.fixture)]);
    return chosen;
  };
  const cases = await runPasses(["full", "tools"], true, run, () => undefined);
  // The second pass replays only what the first could not judge.
  assert.deepEqual(asked, [
    ["full", ["a", "b", "c"]],
    ["tools", ["a", "c"]],
  ]);
  assert.deepEqual(
    cases.map((c) => [c.fixture, c.outcome, c.profile]),
    [
      ["a", "failed", "tools"],
      ["b", "passed", "full"],
      ["c", "not-applicable", undefined],
    ],
  );
  // A case no pass could judge carries every pass's reason.
  assert.equal(cases[2]?.reason, "tool slow (full); tool slow (tools)");
});

test("a pass whose target answers no probe is skipped, and the next pass then runs every case", async () => {
  const warnings: string[] = [];
  const run = async (profile: string, select: CaseFilter): Promise<CaseResult[] | string> =>
    profile === "broken"
      ? "the target answered no initialize"
      : [result("a", "passed"), result("b", "passed")].filter((c) => select(c.fixture, c.version));
  const cases = await runPasses(["broken", "tools"], false, run, (text) => warnings.push(text));
  assert.deepEqual(
    cases.map((c) => [c.fixture, c.profile]),
    [
      ["a", "tools"],
      ["b", "tools"],
    ],
  );
  assert.match(warnings.join(""), /^profile broken: the target answered no initialize; pass skipped/);
});

test("every case at each of its versions without newestOnly: a case is a fixture at one version", async () => {
  const at = (version: string, outcome: CaseResult["outcome"]): CaseResult => ({ ...result("a", outcome), version });
  const run = async (profile: string, select: CaseFilter): Promise<CaseResult[]> =>
    (profile === "full"
      ? [at("2025-03-26", "passed"), at("2025-06-18", "not-applicable")]
      : [at("2025-03-26", "failed"), at("2025-06-18", "passed")]
    ).filter((c) => select(c.fixture, c.version));
  const cases = await runPasses(["full", "tools"], false, run, () => undefined);
  assert.deepEqual(
    cases.map((c) => [c.version, c.outcome, c.profile]),
    [
      ["2025-03-26", "passed", "full"],
      ["2025-06-18", "passed", "tools"],
    ],
  );
});

test("profile names: a comma-separated list, each a plain word, none twice; --profiles excludes --profile", () => {
  assert.deepEqual(parseProfileNames("full,tools"), ["full", "tools"]);
  assert.match(String(parseProfileNames("full,,tools")), /comma-separated profile names/);
  // all: every published profile, in the published order; an unpublished name is refused (no case could need it).
  assert.deepEqual(parseProfileNames("all"), TARGET_PROFILES);
  assert.deepEqual(TARGET_PROFILES.slice(0, 2), ["full", "tools"]);
  assert.match(String(parseProfileNames("full,fancy")), /"fancy" is no published target profile .*full, tools, core, bare, limits/);
  assert.match(String(parseProfileNames("all,full")), /"all" is no published target profile/);
  assert.match(String(parseProfileNames("a=b")), /got "a=b"/);
  assert.match(String(parseProfileNames("full,full")), /names "full" twice/);
  const parsed = parseConformArgs(["--profiles", "full,tools", "--", "node", "s.js"]);
  assert.deepEqual(parsed.ok ? parsed.args.profiles : parsed.problem, ["full", "tools"]);
  for (const argv of [
    ["--profiles", "full", "--profile", "tools", "--", "x"],
    ["--profile", "tools", "--profiles", "full", "--", "x"],
  ]) {
    const both = parseConformArgs(argv);
    assert.match(both.ok ? "" : both.problem, /exclude each other/);
  }
  const bad = parseConformArgs(["--profiles", "-x", "--", "node"]);
  assert.match(bad.ok ? "" : bad.problem, /comma-separated/);
});

test("the profile reaches the target as MCP_CONFORM_PROFILE", async () => {
  const plain = await probeTarget(process.execPath, [server, "--serve"], 5000, {}, undefined);
  const tools = await probeTarget(process.execPath, [server, "--serve"], 5000, {}, undefined, profileEnvironment("tools"));
  assert.ok(typeof plain !== "string" && typeof tools !== "string");
  assert.deepEqual([plain.profile.capabilities, tools.profile.capabilities], [{ tools: {}, logging: {} }, { tools: {} }]);
  assert.deepEqual(tools.serverInfo, { name: "profile-server", version: "tools" });
});

const header = (versions: string[]): FixtureHeader => ({ fixture: "server/t/x", role: "server", versions, rules: ["L-03"] });
const speaking = (versions: string[], adapter = false): TargetProfile => ({
  versions: new Set(versions),
  capabilities: {},
  tools: new Set<string>(),
  ...(adapter ? { adapter: { ops: new Set<string>(), clock: false, config: new Set<string>(), strict: false } } : {}),
});

test("one case per fixture: at the newest of its versions the target speaks, else its newest", () => {
  const versions = ["2025-03-26", "2025-06-18", "2026-07-28"];
  assert.deepEqual(caseVersions(header(versions), speaking(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]), true), [
    "2025-06-18",
  ]);
  assert.deepEqual(caseVersions(header(versions), speaking(["2026-07-28"]), true), ["2026-07-28"]);
  assert.deepEqual(caseVersions(header(versions), speaking(["2024-11-05"]), true), ["2026-07-28"]);
  // An adapter configures the case's version, whatever the target speaks unconfigured.
  assert.deepEqual(caseVersions(header(versions), speaking(["2025-03-26"], true), true), ["2026-07-28"]);
  assert.deepEqual(caseVersions(header(versions), speaking(["2025-03-26"]), false), versions);
});

/** Two fixtures: one needs logging declared, one needs it undeclared; both check the initialize answer at $version. */
function corpus(): string {
  const dir = mkdtempSync(join(tmpdir(), "conform-passes-"));
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
  const fixture = (name: string, versions: string[], requires: Record<string, unknown>): void => {
    const head = { fixture: `server/t/${name}`, role: "server", versions, rules: ["L-03"], requires: { era: "session", ...requires } };
    writeFileSync(join(dir, "server", "t", `${name}.jsonl`), [head, ...steps].map((l) => JSON.stringify(l)).join("\n") + "\n");
  };
  fixture("with-logging", ["2025-06-18"], { capabilities: { logging: {} } });
  fixture("without-logging", ["2025-06-18"], { without: ["logging"] });
  fixture("older-version", ["2025-03-26", "2025-06-18", "2025-11-25"], {});
  return dir;
}

test("against a real target: each pass probed under its profile, each case judged where it applies, at a version it speaks", async () => {
  const fixturesDir = corpus();
  try {
    const args = [server, "--serve", "--versions", "2025-03-26,2025-06-18"];
    const notes: string[] = [];
    const cases = await runStdioPasses(process.execPath, args, {
      fixturesDir,
      role: "server",
      timeoutMs: 3000,
      probeMs: 5000,
      newestOnly: true,
      profiles: ["full", "tools"],
      warn: (t) => notes.push(t),
    });
    assert.ok(typeof cases !== "string", String(cases));
    const seen = cases.map((c) => [c.fixture, c.version, c.outcome, c.profile]);
    assert.deepEqual(seen, [
      ["server/t/older-version", "2025-06-18", "passed", "full"],
      ["server/t/with-logging", "2025-06-18", "passed", "full"],
      ["server/t/without-logging", "2025-06-18", "passed", "tools"],
    ]);
    assert.match(
      notes.join(""),
      /profile full \(not announced[^)]*\): target: .*"logging":\{\}.*\nprofile tools \(not announced[^)]*\): target: .*capabilities \{"tools":\{\}\}/,
    );
    // A single run (no profiles) judges only what its one capability set allows.
    const probed = await probeTarget(process.execPath, args, 5000, {}, undefined);
    assert.ok(typeof probed !== "string");
    const single = await runStdioConformance(process.execPath, args, {
      fixturesDir,
      role: "server",
      timeoutMs: 3000,
      newestOnly: true,
      profile: probed.profile,
    });
    assert.deepEqual(
      single.map((c) => c.outcome),
      ["passed", "passed", "not-applicable"],
    );
  } finally {
    rmSync(fixturesDir, { recursive: true, force: true });
  }
});

test("a target that answers under no profile is a string, not an empty report", async () => {
  const cases = await runStdioPasses(process.execPath, ["-e", "process.stdin.resume(); process.stdin.on('end', () => process.exit(0))"], {
    fixturesDir: root + "fixtures",
    role: "server",
    timeoutMs: 300,
    probeMs: 300,
    profiles: ["full"],
  });
  assert.match(String(cases), /under any profile/);
});

test("mcp-engine conform --profiles: the case is reported once, with the profile of the pass that judged it", async () => {
  let out = "";
  let err = "";
  const argv = [
    "--profiles",
    "full,tools",
    "--only",
    "server/logging/set-level-without-logging",
    "--format",
    "json",
    "--",
    process.execPath,
    server,
    "--serve",
  ];
  const code = await conformMain(
    argv,
    (t) => (out += t),
    (t) => (err += t),
  );
  const report = JSON.parse(out) as { cases: CaseResult[] };
  // The server speaks 2025-06-18 only; it declares logging except under the tools profile.
  assert.deepEqual(
    report.cases.map((c) => [c.version, c.outcome, c.profile]),
    [
      ["2024-11-05", "not-applicable", undefined],
      ["2025-03-26", "not-applicable", undefined],
      ["2025-06-18", "passed", "tools"],
      ["2025-11-25", "not-applicable", undefined],
    ],
  );
  assert.equal(report.cases[0]?.reason, "protocol version 2024-11-05 (full); protocol version 2024-11-05 (tools)");
  assert.equal(code, 0);
  assert.match(err, /^profile full \(not announced[^)]*\): target: .*\nprofile tools \(not announced[^)]*\): target: /);
});

test("a settings pass's 'default settings' need is left out beside a case's real needs, kept when it is the only one", async () => {
  const settingsNeed = "the target's default settings (profile limits changes them)";
  const run = async (profile: string): Promise<CaseResult[]> =>
    profile === "limits"
      ? [result("a", "not-applicable", settingsNeed), result("b", "not-applicable", settingsNeed)]
      : [result("a", "not-applicable", "host command notify"), result("b", "passed")];
  const first = await runPasses(["full", "limits"], true, run, () => undefined);
  assert.deepEqual(
    first.map((c) => [c.fixture, c.outcome, c.reason]),
    [
      ["a", "not-applicable", "host command notify (full)"],
      ["b", "passed", undefined],
    ],
  );
  // Run first, the settings pass's need is all that is known of the case then: kept, and the next pass's added.
  const last = await runPasses(["limits", "full"], true, run, () => undefined);
  assert.equal(last[0]?.reason, `${settingsNeed} (limits); host command notify (full)`);
});
