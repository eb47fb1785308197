// The faults of the known-bad stdio server (spec-tests/conform/bad-server.ts) and the one rule
// each must be flagged for: shared by the known-bad test and the published verdicts
// (spec-tests/tools/corpus-verdicts.ts, fixtures/verdicts/known-bad.json).

export const KNOWN_BAD_FAULTS: readonly (readonly [fault: string, rule: string])[] = [
  ["no-parse-error-reply", "M-01"],
  ["drop-batch", "M-09"],
  ["params-32603", "JR-02"],
  ["ignore-cancel-id-0", "X-04"],
  ["duplicate-answers", "JR-01"],
  ["ungated-prompts", "C-01"],
  // Checks the trigger tools enable: what the server sends of its own accord.
  ["ungated-sampling", "C-01"],
  ["silent-cancel", "X-01"],
  ["unchecked-progress", "P-05"],
];
