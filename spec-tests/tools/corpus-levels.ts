// The level of each rule id, read from RULES.md, and the level a check has when it judges a
// receiver (a foreign implementation under test) rather than this engine.
//
// Invariant: MUST NOT counts as MUST and SHOULD NOT as SHOULD; a few rules whose fixtures pin
// one of our choices on the receiving side are `policy` there (see RECEIVER_POLICY).

export type RuleLevel = "MUST" | "SHOULD" | "MAY" | "policy";

/** Rule id → level, from the tables of RULES.md (`| ID | LEVEL | …`). */
export function ruleLevels(rulesMarkdown: string): Map<string, RuleLevel> {
  const levels = new Map<string, RuleLevel>();
  for (const line of rulesMarkdown.split("\n")) {
    const match = /^\| ([A-Z]+-\d+) \| (MUST NOT|MUST|SHOULD NOT|SHOULD|MAY|policy) \|/.exec(line);
    if (match === null) continue;
    const word = match[2] as string;
    levels.set(match[1] as string, word.startsWith("MUST") ? "MUST" : word.startsWith("SHOULD") ? "SHOULD" : (word as RuleLevel));
  }
  return levels;
}

/**
 * Rules that bind the sender (a client sends no request before initialize, L-10; a server no
 * request before initialized, L-11): how the receiver refuses is our policy, so a fixture
 * step checking the refusal is informative for others. Likewise ID-03: a requestor never
 * reuses an id; that the receiver answers a reuse with -32600 is ours. And L-01: initialize
 * comes first; refusing a second one with -32600 is ours.
 */
const RECEIVER_POLICY = new Set(["L-01", "L-10", "L-11", "ID-03"]);

export function receiverLevel(rule: string, levels: ReadonlyMap<string, RuleLevel>): RuleLevel {
  if (RECEIVER_POLICY.has(rule)) return "policy";
  return levels.get(rule) ?? "MUST";
}
