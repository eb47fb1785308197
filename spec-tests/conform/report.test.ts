// The conformance report (lib/cli/conform/report.ts) and the command line of `conform`
// (lib/cli/conform/index.ts): baselines, exit codes, the per-family tally and the four formats.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseConformArgs } from "../../lib/cli/conform/index.js";
import { applyBaseline, exitCode, judgedShare, parseBaseline, render, tallyByFamily } from "../../lib/cli/conform/report.js";
import type { CaseResult } from "../../lib/cli/conform/types.js";

const base = { transport: "stdio" as const, version: "2025-11-25" };
const cases: CaseResult[] = [
  { ...base, fixture: "server/a", rules: ["M-01"], level: "MUST", outcome: "passed" },
  {
    ...base,
    fixture: "server/b",
    rules: ["M-09"],
    level: "MUST",
    outcome: "failed",
    failedRule: "M-09",
    reason: "expected a reply, got nothing",
  },
  {
    ...base,
    fixture: "server/c",
    rules: ["X-04"],
    level: "SHOULD",
    outcome: "failed",
    failedRule: "X-04",
    reason: "answered after cancel",
  },
  { ...base, fixture: "server/d", rules: ["L-10"], level: "MUST", outcome: "not-applicable", reason: "host command respond" },
];

test("a baseline needs an object of non-empty reasons", () => {
  assert.match(String(parseBaseline("[]")), /must be an object/);
  assert.match(String(parseBaseline('{"server/b": ""}')), /needs a reason/);
  assert.match(String(parseBaseline("{")), /not JSON/);
  const ok = parseBaseline('{"server/b": "batches unsupported", "server/c@2025-11-25": "known"}');
  assert.ok(ok instanceof Map && ok.size === 2);
});

test("unexpected MUST and SHOULD failures fail the run; baselined ones do not", () => {
  assert.equal(exitCode(applyBaseline(cases, new Map())), 1);
  assert.equal(applyBaseline(cases, new Map()).unexpected, 2);
  const judged = applyBaseline(
    cases,
    new Map([
      ["server/b", "batches"],
      ["server/c@2025-11-25", "cancel"],
    ]),
  );
  assert.equal(judged.unexpected, 0);
  assert.equal(exitCode(judged), 0);
  assert.equal(judged.cases[1]?.expected, "batches");
});

test("a baseline entry whose case passes is stale and fails the run", () => {
  const judged = applyBaseline(
    cases,
    new Map([
      ["server/a", "was broken"],
      ["server/b", "batches"],
      ["server/c", "cancel"],
    ]),
  );
  assert.deepEqual(judged.stale, ["server/a"]);
  assert.equal(exitCode(judged), 1);
  assert.match(render(judged, "text"), /STALE {2}baseline entry server\/a/);
});

test("policy failures never count", () => {
  const policy: CaseResult[] = [
    { ...base, fixture: "server/e", rules: ["M-10"], level: "policy", outcome: "failed", failedRule: "M-10", reason: "id null" },
  ];
  assert.equal(exitCode(applyBaseline(policy, new Map())), 0);
});

test("the tally counts each case once, under the family of the rule it failed; the judged share counts fixtures", () => {
  const tally = tallyByFamily(cases);
  assert.deepEqual(Object.fromEntries(tally), {
    L: { passed: 0, failed: 0, notApplicable: 1 },
    M: { passed: 1, failed: 1, notApplicable: 0 },
    X: { passed: 0, failed: 1, notApplicable: 0 },
  });
  assert.deepEqual(judgedShare(cases), { judged: 3, total: 4 });
});

test("the four formats carry every case", () => {
  const judged = applyBaseline(cases, new Map([["server/c", "cancel"]]));
  const text = render(judged, "text");
  assert.match(text, /^PASS {3}server\/a@2025-11-25/m);
  assert.match(text, /^FAIL {3}server\/b@2025-11-25 {2}\[M-09 MUST\] expected a reply/m);
  assert.match(text, /^XFAIL {2}server\/c@2025-11-25/m);
  assert.match(text, /^N\/A {4}server\/d@2025-11-25 {2}needs host command respond/m);
  assert.match(text, /judged fixtures: 3\/4 \(75 %\)/);
  // The mode a run used is reported; results judged outside a run carry none.
  assert.doesNotMatch(text, /^mode:/m);
  assert.match(render({ ...judged, mode: "black-box" }, "text"), /^mode: black box$/m);
  assert.equal((JSON.parse(render({ ...judged, mode: "adapter" }, "json")) as { mode: unknown }).mode, "adapter");
  const json = JSON.parse(render(judged, "json")) as { cases: unknown[]; unexpected: number; families: Record<string, unknown> };
  assert.equal(json.cases.length, 4);
  assert.equal(json.unexpected, 1);
  const tap = render(judged, "tap");
  assert.match(tap, /^1\.\.4$/m);
  assert.match(tap, /^not ok 2 - server\/b@2025-11-25 \[M-09 MUST\]$/m);
  assert.match(tap, /^not ok 3 - .* # TODO cancel$/m);
  assert.match(tap, /^ok 4 - .* # SKIP needs host command respond$/m);
  const junit = render(judged, "junit");
  assert.match(junit, /tests="4" failures="1" skipped="1"/);
  assert.match(junit, /<failure type="M-09 MUST" message="expected a reply, got nothing"\/>/);
  assert.match(
    render(applyBaseline([{ ...cases[1], reason: 'a <b> & "c"' } as CaseResult], new Map()), "junit"),
    /message="a &lt;b&gt; &amp; &quot;c&quot;"/,
  );
});

test("the command line: a target is required, options are checked, the command after -- is untouched", () => {
  const parsed = parseConformArgs(["--format", "tap", "--baseline", "b.json", "--", "node", "srv.js", "--format", "x"]);
  assert.ok(parsed.ok);
  assert.equal(parsed.args.format, "tap");
  assert.equal(parsed.args.baseline, "b.json");
  assert.deepEqual(parsed.args.target, { kind: "stdio", command: "node", args: ["srv.js", "--format", "x"] });
  // Black box unless asked: --adapter and --newest are flags without a value.
  assert.equal(parsed.args.adapter, false);
  const flags = parseConformArgs(["--adapter", "--newest", "--only", "server/x", "--", "node"]);
  assert.ok(flags.ok && flags.args.adapter && flags.args.newest && flags.args.only === "server/x");
  const url = parseConformArgs(["http://127.0.0.1:3000/mcp"]);
  assert.ok(url.ok && url.args.target?.kind === "url");
  for (const [argv, problem] of [
    [[], /needs a target/],
    [["--"], /needs a command/],
    [["--format", "xml", "--", "x"], /--format takes/],
    [["--role", "peer", "--", "x"], /--role takes/],
    [["--timeout", "0", "--", "x"], /--timeout takes/],
    [["--nope", "1", "--", "x"], /unknown option/],
    [["--profile"], /needs a value/],
    [["srv.js"], /takes -- <command...> or one URL/],
  ] as const) {
    const result = parseConformArgs(argv);
    assert.ok(!result.ok);
    assert.match(result.problem, problem);
  }
});

test("`mcp-engine conform --help` prints the usage and exits 0; a bad line prints its cause in one line on stderr and exits 2", async () => {
  const { conformMain } = await import("../../lib/cli/conform/index.js");
  let out = "";
  let err = "";
  assert.equal(
    await conformMain(
      ["--help"],
      (t) => (out += t),
      (t) => (err += t),
    ),
    0,
  );
  assert.match(out, /^usage:\n {2}mcp-engine conform/);
  assert.equal(
    await conformMain(
      ["--format", "xml", "--", "x"],
      (t) => (out += t),
      (t) => (err += t),
    ),
    2,
  );
  assert.match(err, /--format takes text, json, tap or junit/);
  err = "";
  assert.equal(
    await conformMain(
      ["--baseline", "/nonexistent/b.json", "--", "x"],
      (t) => (out += t),
      (t) => (err += t),
    ),
    2,
  );
  assert.match(err, /cannot read the baseline/);
});
