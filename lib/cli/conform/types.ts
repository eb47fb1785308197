// The result shapes of `mcp-engine conform`: the stdio and the HTTP replays of the fixture corpus
// both report in these terms, so one reporter (text, json, tap, junit) and one baseline file serve
// both. A case is one fixture replayed at one protocol version over one transport.

/** The weight of a check: a specification keyword, or `policy` (informative, never a failure for others). */
export type RuleLevel = "MUST" | "SHOULD" | "MAY" | "policy";

export type CaseOutcome = "passed" | "failed" | "not-applicable";

export interface CaseResult {
  /** The fixture id (its path under fixtures/ without `.jsonl`). */
  readonly fixture: string;
  /** The protocol version the case was replayed at. */
  readonly version: string;
  readonly transport: "stdio" | "http";
  /** The RULES.md ids the case checks. */
  readonly rules: readonly string[];
  readonly level: RuleLevel;
  readonly outcome: CaseOutcome;
  /** failed: what was expected and what arrived; not-applicable: the requirement the target lacks. */
  readonly reason?: string;
  /** failed: the rule the first failing check enforces (a step's `rule`, or JR-01 / ID-04 / M-01 of the runner's own checks). */
  readonly failedRule?: string;
  /** Informative findings that are no failure: policy or MAY expectations not met, wire-only matches. */
  readonly deviations?: readonly string[];
  /** Judged in a pass of `--profiles`: the target profile of that pass (fixtures/FORMAT.md, "Target profiles"). */
  readonly profile?: string;
  /** failed: the baseline's reason when the failure was expected. */
  readonly expected?: string;
}
