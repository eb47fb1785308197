// The names of the tests declared in a spec-tests source file, read from the source (not by
// running it), for the check that test names cite the rule they test (project/test-names.test.ts).
//
// Invariants:
// - a declaration is a call of `test(` or `it(` (with .only/.skip/.todo, or the testWithOptions
//   wrapper) at the start of a statement whose first argument is a string literal; describe()
//   groups are not tests and are not counted;
// - a template literal keeps its text with each `${…}` as the placeholder `${}`, so one
//   declaration is one name however many tests its loop makes;
// - a name cites ids when it opens with them: `L-10: …` or `L-10, L-11: …` (the ids, then a colon).

/** One test declaration: its line, its name (placeholders as `${}`) and whether the name starts with one. */
export interface TestName {
  readonly line: number;
  readonly name: string;
  readonly dynamicStart: boolean;
}

const CALL = /(?:^|[;{}\n]\s*|\)\s*=>\s*)(?:test|it|testWithOptions)(?:\.(?:only|skip|todo))?\(\s*(["'`])/g;

/** The id-shaped tokens of a name (the pattern of rules-inventory.ts's ID_SHAPED). */
export const NAME_ID = /\b(?!UTF-)[A-Z]{1,4}-\d{2}\b/g;
/** The citation a name opens with: one id or several, comma-separated, then a colon. */
export const LEADING_CITATION = /^([A-Z]{1,4}-\d{2}(?:, [A-Z]{1,4}-\d{2})*):\s/;

/** Reads the string or template literal whose opening quote is at `start`; undefined when it does not close. */
function readLiteral(text: string, start: number): { value: string; dynamicStart: boolean } | undefined {
  const quote = text[start];
  let value = "";
  let dynamicStart = false;
  for (let i = start + 1; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\") {
      value += text[i + 1] ?? "";
      i++;
      continue;
    }
    if (ch === quote) return { value, dynamicStart };
    if (quote === "`" && ch === "$" && text[i + 1] === "{") {
      if (value === "") dynamicStart = true;
      let depth = 1;
      i += 2;
      for (; i < text.length && depth > 0; i++) {
        if (text[i] === "{") depth++;
        else if (text[i] === "}") depth--;
      }
      i--;
      value += "${}";
      continue;
    }
    if (ch === "\n" && quote !== "`") return undefined;
    value += ch;
  }
  return undefined;
}

/** Every test declaration of a source file, in order. */
export function testNames(text: string): TestName[] {
  const names: TestName[] = [];
  for (const m of text.matchAll(CALL)) {
    const quoteAt = (m.index ?? 0) + m[0].length - 1;
    const literal = readLiteral(text, quoteAt);
    if (literal === undefined) continue;
    const line = text.slice(0, quoteAt).split("\n").length;
    names.push({ line, name: literal.value, dynamicStart: literal.dynamicStart });
  }
  return names;
}

/** The ids a name opens with (empty when it cites none). */
export function leadingIds(name: string): string[] {
  const m = LEADING_CITATION.exec(name);
  return m === null ? [] : (m[1] ?? "").split(", ");
}

/** The name of a fixture's replay test (corpus/fixtures.test.ts): the rules its header lists, then its id. */
export function fixtureTestName(header: { readonly fixture: string; readonly rules: readonly string[] }): string {
  return `${header.rules.join(", ")}: ${header.fixture}`;
}

/** The id-shaped tokens of the names that `known` lacks, each with where it stands. */
export function unknownIds(
  names: readonly { readonly where: string; readonly name: string }[],
  known: ReadonlySet<string> | ReadonlyMap<string, unknown>,
): string[] {
  const problems: string[] = [];
  for (const { where, name } of names)
    for (const m of name.matchAll(NAME_ID)) if (!known.has(m[0])) problems.push(`${where}: ${m[0]} in ${JSON.stringify(name)}`);
  return problems;
}
