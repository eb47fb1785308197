// What the mcp-engine command says when its line is refused: one line with the cause, a close match for a
// mistyped flag or subcommand, and where the usage is ("see mcp-engine client --help"). The
// usage itself is printed only when asked for (--help): a refusal buried under it goes unread.
//
// Invariants: a suggestion is a word the parser accepts in that place, never a guess outside
// it; it is offered only when one known word is clearly the closest (edit distance at most 2,
// and at most a third of the word), so a word unlike any flag gets no suggestion; the line is
// printed through the one printer for untrusted text (CLI-01), since it quotes what was typed.

import { untrustedText } from "./terminal-text.js";

/**
 * The optimal string alignment distance of `a` and `b` (Levenshtein with adjacent
 * transpositions): the fewest insertions, deletions, substitutions and swaps of two
 * neighbouring characters that turn one into the other ("--timout" → "--timeout": 1).
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((d[i - 1] as number[])[j] as number, (d[i] as number[])[j - 1] as number) + 1;
      best = Math.min(best, ((d[i - 1] as number[])[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, ((d[i - 2] as number[])[j - 2] as number) + 1);
      (d[i] as number[])[j] = best;
    }
  }
  return (d[rows - 1] as number[])[cols - 1] as number;
}

/**
 * The known word closest to `word`, when one is close enough to be what was meant: at most 2
 * edits, and at most a third of the word's letters (leading dashes not counted), and no other
 * known word as close. Case is ignored ("--Timeout" is --timeout).
 */
export function closest(word: string, known: Iterable<string>): string | undefined {
  const typed = word.toLowerCase();
  const letters = typed.replace(/^-+/, "").length;
  const limit = Math.min(2, Math.max(1, Math.floor(letters / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  let tie = false;
  for (const candidate of known) {
    const distance = editDistance(typed, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
      tie = false;
    } else if (distance === bestDistance && candidate !== best) tie = true;
  }
  return best !== undefined && bestDistance <= limit && !tie ? best : undefined;
}

/** "; did you mean --timeout?" when a known word is close to `word`, else "". */
export function didYouMean(word: string, known: Iterable<string>): string {
  const match = closest(word, known);
  return match === undefined ? "" : `; did you mean ${match}?`;
}

/** The one line of a refused command line: `mcp-engine[ sub]: <cause> (see mcp-engine[ sub] --help)`. */
export function usageErrorLine(subcommand: string | undefined, problem: string): string {
  const command = subcommand === undefined ? "mcp-engine" : `mcp-engine ${subcommand}`;
  return `${command}: ${untrustedText(problem, Infinity)} (see ${command} --help)\n`;
}
