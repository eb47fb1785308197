// The conformance report: a baseline of expected failures applied to the case results, the
// per-family tally, the exit code, and four renderings (text, json, tap, junit).
//
// Invariants: only an unexpected failure at MUST or SHOULD level makes the exit code non-zero
// (policy and MAY findings are informative); a baseline entry whose case passes is reported
// as stale and fails the run, so that baselines never outlive the bugs they excuse. A case's
// texts (its reason and deviations quote what the target sent) are rendered, in every format,
// through the one printer for untrusted text (CLI-01): escaped, each cut at MESSAGE_WIDTH.

import { MESSAGE_WIDTH, untrustedText } from "../../codec/terminal-text.js";
import type { CaseResult } from "./types.js";

export type Format = "text" | "json" | "tap" | "junit";

/** fixture id, or `id@version`, → why the case is expected to fail. */
export type Baseline = ReadonlyMap<string, string>;

export function parseBaseline(text: string): Baseline | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `the baseline is not JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return 'the baseline must be an object: {"fixture-id[@version]": "reason"}';
  const out = new Map<string, string>();
  for (const [key, reason] of Object.entries(value)) {
    if (typeof reason !== "string" || reason === "") return `baseline entry ${JSON.stringify(key)} needs a reason (a non-empty string)`;
    out.set(key, reason);
  }
  return out;
}

/** How the target was driven: its wire alone, or its host adapter as well (`--adapter`). */
export type ConformMode = "black-box" | "adapter";

export interface Judged {
  readonly cases: readonly CaseResult[];
  /** Absent for results judged outside a run (a baseline applied to stored cases). */
  readonly mode?: ConformMode;
  /** The side under test: the server (default) or a client played against by the runner. */
  readonly role?: "server" | "client";
  /** Baseline entries whose cases all passed. */
  readonly stale: readonly string[];
  readonly unexpected: number;
}

export function applyBaseline(results: readonly CaseResult[], baseline: Baseline): Judged {
  const used = new Set<string>();
  const failedKeys = new Set<string>();
  const cases = results.map((r) => {
    const key = baseline.has(`${r.fixture}@${r.version}`) ? `${r.fixture}@${r.version}` : baseline.has(r.fixture) ? r.fixture : undefined;
    if (key === undefined) return r;
    used.add(key);
    if (r.outcome !== "failed") return r;
    failedKeys.add(key);
    return { ...r, expected: baseline.get(key) as string };
  });
  const stale = [...used].filter((k) => !failedKeys.has(k)).sort();
  const unexpected = cases.filter(
    (c) => c.outcome === "failed" && c.expected === undefined && (c.level === "MUST" || c.level === "SHOULD"),
  ).length;
  return { cases, stale, unexpected };
}

export function exitCode(judged: Judged): number {
  return judged.unexpected > 0 || judged.stale.length > 0 ? 1 : 0;
}

const family = (rule: string): string => rule.replace(/-\d+$/, "");

export interface FamilyTally {
  passed: number;
  failed: number;
  notApplicable: number;
}

/** Each case counted once: under the family of the rule it failed, else of its fixture's first rule. */
export function tallyByFamily(cases: readonly CaseResult[]): Map<string, FamilyTally> {
  const out = new Map<string, FamilyTally>();
  for (const c of cases) {
    const rule = c.outcome === "failed" && c.failedRule !== undefined ? c.failedRule : (c.rules[0] ?? "?");
    const f = family(rule);
    const t = out.get(f) ?? { passed: 0, failed: 0, notApplicable: 0 };
    if (c.outcome === "passed") t.passed++;
    else if (c.outcome === "failed") t.failed++;
    else t.notApplicable++;
    out.set(f, t);
  }
  return new Map([...out].sort(([a], [b]) => a.localeCompare(b)));
}

/** Fixtures with at least one case judged (passed or failed), over all fixtures run. */
export function judgedShare(cases: readonly CaseResult[]): { judged: number; total: number } {
  const all = new Set(cases.map((c) => c.fixture));
  const judged = new Set(cases.filter((c) => c.outcome !== "not-applicable").map((c) => c.fixture));
  return { judged: judged.size, total: all.size };
}

const caseName = (c: CaseResult): string => `${c.fixture}@${c.version}${c.profile !== undefined ? ` [${c.profile}]` : ""}`;

function textLine(c: CaseResult): string {
  if (c.outcome === "passed")
    return `PASS   ${caseName(c)}${c.deviations !== undefined ? `  (${c.deviations.length} informative: ${c.deviations[0]})` : ""}`;
  if (c.outcome === "not-applicable") return `N/A    ${caseName(c)}  needs ${c.reason ?? "?"}`;
  const tag = c.expected !== undefined ? "XFAIL" : c.level === "policy" || c.level === "MAY" ? "INFO " : "FAIL ";
  return `${tag}  ${caseName(c)}  [${c.failedRule ?? "?"} ${c.level}] ${c.reason ?? ""}${c.expected !== undefined ? `  (baseline: ${c.expected})` : ""}`;
}

export function summaryLines(judged: Judged): string[] {
  const lines = ["", "family   passed  failed  n/a"];
  for (const [f, t] of tallyByFamily(judged.cases))
    lines.push(`${f.padEnd(8)} ${String(t.passed).padStart(6)}  ${String(t.failed).padStart(6)}  ${String(t.notApplicable).padStart(3)}`);
  const share = judgedShare(judged.cases);
  const failedRules = [...new Set(judged.cases.filter((c) => c.outcome === "failed").map((c) => c.failedRule ?? "?"))].sort();
  lines.push(
    `judged fixtures: ${share.judged}/${share.total} (${share.total === 0 ? 0 : Math.round((share.judged / share.total) * 100)} %)`,
  );
  lines.push(`failed rules: ${failedRules.length === 0 ? "none" : failedRules.join(", ")}`);
  if (judged.role !== undefined) lines.push(`role: ${judged.role}`);
  if (judged.mode !== undefined) lines.push(`mode: ${judged.mode === "adapter" ? "host adapter" : "black box"}`);
  for (const key of judged.stale) lines.push(`STALE  baseline entry ${key}: the case passes now; remove the entry`);
  lines.push(`unexpected failures: ${judged.unexpected}`);
  return lines;
}

const xml = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** A case as it may be printed: its free texts through the printer for untrusted text (CLI-01). */
export function printableCase(c: CaseResult): CaseResult {
  const shown = (text: string): string => untrustedText(text, MESSAGE_WIDTH);
  return {
    ...c,
    ...(c.reason !== undefined ? { reason: shown(c.reason) } : {}),
    ...(c.deviations !== undefined ? { deviations: c.deviations.map(shown) } : {}),
    ...(c.expected !== undefined ? { expected: shown(c.expected) } : {}),
  };
}

export function render(given: Judged, format: Format): string {
  const judged: Judged = { ...given, cases: given.cases.map(printableCase) };
  const { cases } = judged;
  switch (format) {
    case "json": {
      const families = Object.fromEntries(tallyByFamily(cases));
      return (
        JSON.stringify(
          {
            ...(judged.role !== undefined ? { role: judged.role } : {}),
            ...(judged.mode !== undefined ? { mode: judged.mode } : {}),
            cases,
            families,
            judged: judgedShare(cases),
            stale: judged.stale,
            unexpected: judged.unexpected,
          },
          null,
          1,
        ) + "\n"
      );
    }
    case "tap": {
      const lines = ["TAP version 13", `1..${cases.length}`];
      cases.forEach((c, i) => {
        const n = i + 1;
        if (c.outcome === "passed") lines.push(`ok ${n} - ${caseName(c)}`);
        else if (c.outcome === "not-applicable") lines.push(`ok ${n} - ${caseName(c)} # SKIP needs ${c.reason ?? "?"}`);
        else if (c.expected !== undefined || c.level === "policy" || c.level === "MAY")
          lines.push(`not ok ${n} - ${caseName(c)} [${c.failedRule ?? "?"}] # TODO ${c.expected ?? c.level}`);
        else
          lines.push(
            `not ok ${n} - ${caseName(c)} [${c.failedRule ?? "?"} ${c.level}]`,
            "  ---",
            `  message: ${JSON.stringify(c.reason ?? "")}`,
            "  ...",
          );
      });
      return lines.join("\n") + "\n";
    }
    case "junit": {
      const failures = cases.filter((c) => c.outcome === "failed" && c.expected === undefined).length;
      const skipped = cases.filter((c) => c.outcome === "not-applicable").length;
      const lines = [
        `<?xml version="1.0" encoding="UTF-8"?>`,
        `<testsuite name="mcp-engine conform" tests="${cases.length}" failures="${failures}" skipped="${skipped}">`,
      ];
      for (const c of cases) {
        lines.push(`  <testcase classname="${xml(c.fixture)}" name="${xml(caseName(c))}">`);
        if (c.outcome === "not-applicable") lines.push(`    <skipped message="${xml(`needs ${c.reason ?? "?"}`)}"/>`);
        else if (c.outcome === "failed" && c.expected !== undefined)
          lines.push(`    <skipped message="${xml(`expected failure: ${c.expected}`)}"/>`);
        else if (c.outcome === "failed")
          lines.push(`    <failure type="${xml(`${c.failedRule ?? "?"} ${c.level}`)}" message="${xml(c.reason ?? "")}"/>`);
        lines.push("  </testcase>");
      }
      lines.push("</testsuite>");
      return lines.join("\n") + "\n";
    }
    default:
      return [...cases.map(textLine), ...summaryLines(judged)].join("\n") + "\n";
  }
}
