// Target profiles run in passes (fixtures/FORMAT.md, "Target profiles"): the runner starts the
// same command once per named configuration, with MCP_CONFORM_PROFILE=<name> in its
// environment (StdioTarget's `env`), probes it per pass (its capabilities differ, and whether it
// announces the profile), and judges each case in the first pass where the case applies. The
// names and their values are published in target-profiles.ts. Also here: the versions a case
// runs at against a target, and the pool that runs a run's cases a few at a time.
//
// Invariants: a case is reported once, by the pass that judged it (named on the case as
// `profile`); a case that no pass could judge keeps every pass's reason; a pass whose target
// answers no probe is skipped (reported through `warn`), never fatal to the others.

import { DEFAULT_SETTINGS_NEED, type FixtureHeader, type TargetProfile } from "./fixtures.js";
import { PROFILE_VARIABLE, PUBLISHED_PROFILES } from "./target-profiles.js";
import type { CaseResult } from "./types.js";

export { PROFILE_VARIABLE };

/** The names FORMAT.md publishes, in pass order; an implementation may support any subset (an unknown name means its default). */
export const TARGET_PROFILES: readonly string[] = [...PUBLISHED_PROFILES.keys()];

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/**
 * `full,tools` → the names, in pass order (`all`: every published profile); a string says what
 * is wrong with the list. Only published names: a case can need no other, so another name would
 * only rerun the target's default configuration.
 */
export function parseProfileNames(text: string): readonly string[] | string {
  if (text.trim() === "all") return TARGET_PROFILES;
  const names = text.split(",").map((n) => n.trim());
  for (const name of names)
    if (!NAME.test(name))
      return `--profiles takes comma-separated profile names (letters, digits, _ . -) or all; got ${JSON.stringify(name)} in ${JSON.stringify(text)}`;
  const seen = new Set<string>();
  for (const name of names) {
    if (!PUBLISHED_PROFILES.has(name))
      return `--profiles: ${JSON.stringify(name)} is no published target profile (fixtures/FORMAT.md, "Target profiles": ${TARGET_PROFILES.join(", ")}, or all)`;
    if (seen.has(name)) return `--profiles names ${JSON.stringify(name)} twice`;
    seen.add(name);
  }
  return names;
}

/** What a pass's target is told: the profile in its environment. */
export function profileEnvironment(name: string): Record<string, string> {
  return { [PROFILE_VARIABLE]: name };
}

/**
 * The versions a fixture runs at against `target`: every version it lists, or with `newestOnly`
 * one: the newest of them the target speaks (an adapter configures any; without one the newest
 * listed, which then reports the version it lacks).
 */
export function caseVersions(header: FixtureHeader, target: TargetProfile, newestOnly: boolean): readonly string[] {
  if (!newestOnly) return header.versions;
  const spoken = target.adapter !== undefined ? [] : header.versions.filter((v) => target.versions.has(v));
  return (spoken.length > 0 ? spoken : header.versions).slice(-1);
}

/** Which cases a pass replays: all in the first pass that ran, then only those no earlier pass could judge. */
export type CaseFilter = (fixture: string, version: string) => boolean;

/** One pass: the cases of the corpus the filter admits, run under `profile`; a string when the target answered no probe. */
export type PassRun = (profile: string, select: CaseFilter) => Promise<readonly CaseResult[] | string>;

/**
 * Runs the passes in order and merges them: each case as the first pass that judged it (passed or
 * failed) reported it, marked with that pass's profile. With `newestOnly` a case is its fixture
 * (its version may differ between passes, as the targets speak different versions).
 */
export async function runPasses(
  profiles: readonly string[],
  newestOnly: boolean,
  run: PassRun,
  warn: (text: string) => void,
): Promise<CaseResult[]> {
  const key = (fixture: string, version: string): string => (newestOnly ? fixture : `${fixture}@${version}`);
  const cases = new Map<string, CaseResult>();
  const reasons = new Map<string, string[]>();
  let ran = false;
  for (const profile of profiles) {
    const select: CaseFilter = ran ? (fixture, version) => cases.get(key(fixture, version))?.outcome === "not-applicable" : () => true;
    const results = await run(profile, select);
    if (typeof results === "string") {
      warn(`profile ${profile}: ${results}; pass skipped\n`);
      continue;
    }
    ran = true;
    for (const result of results) {
      const k = key(result.fixture, result.version);
      const earlier = cases.get(k);
      if (earlier !== undefined && earlier.outcome !== "not-applicable") continue;
      if (result.outcome === "not-applicable") {
        // That a settings profile was not the case's default says nothing about what the case lacks: left out beside other reasons.
        const known = reasons.get(k) ?? [];
        if (!(known.length > 0 && (result.reason ?? "").startsWith(DEFAULT_SETTINGS_NEED)))
          reasons.set(k, [...known, `${result.reason ?? "?"} (${profile})`]);
        if (earlier === undefined) cases.set(k, result);
        continue;
      }
      cases.set(k, { ...result, profile });
    }
  }
  return [...cases].map(([k, c]) =>
    c.outcome === "not-applicable" && profiles.length > 1 ? { ...c, reason: (reasons.get(k) ?? []).join("; ") } : c,
  );
}

/** Runs the case jobs `concurrency` at a time; the results keep the jobs' order. */
export async function runJobs(jobs: readonly (() => Promise<CaseResult>)[], concurrency: number): Promise<CaseResult[]> {
  const results: CaseResult[] = new Array<CaseResult>(jobs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const at = next++;
      results[at] = await (jobs[at] as () => Promise<CaseResult>)();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}
