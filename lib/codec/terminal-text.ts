// The one printer for untrusted text (RULES.md CLI-01): whatever came from a peer or a network
// (a server's names, descriptions, URIs, error messages, log and progress messages, its stderr;
// an authorization server's metadata and error texts) is printed through untrustedText, so that
// it can neither drive the terminal nor hide or reorder what is printed around it.
//
// The rules, one field at a time:
// - escaped, never printed as they are: every control character (C0 U+0000–U+001F with ESC,
//   CR, LF, TAB and BEL, DEL U+007F, C1 U+0080–U+009F), every format character (Unicode
//   category Cf: the bidi embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069,
//   the marks U+200E, U+200F and U+061C, zero-width characters, the soft hyphen, the byte order
//   mark, the tag characters U+E0000–U+E007F), the line and paragraph separators U+2028 and
//   U+2029, lone surrogates, the variation selectors supplement U+E0100–U+E01EF and the blank
//   Hangul fillers U+115F, U+1160, U+3164 and U+FFA0. An escape is `\xHH` up to U+00FF,
//   `\uHHHH` in the BMP and `\u{HHHHH}` beyond, in lower-case hex. The sixteen variation
//   selectors U+FE00–U+FE0F stay: emoji need them and they move nothing;
// - cut: a field prints in at most FIELD_WIDTH (200) code points, escapes counted in full and
//   never split, then the marker `…(+N more)`, N being the code points of the original left
//   out; a whole message that embeds fields of its own (an error's message, a log or stderr
//   line) gets MESSAGE_WIDTH (1000), and a URL the user must open whole gets URL_WIDTH (4096);
// - nothing else changes: a backslash prints as it is (the escapes are for reading, not for
//   decoding back), and the output of the printer passes through it again unchanged (when it
//   was not cut), so a line of printed fields may be passed through once more as a whole.
//
// Pure and portable: no I/O; the CLI and the conformance runner call it at every place they
// print peer text.

import { codePointLength } from "./code-points.js";

/** The most code points one printed field takes (a name, a version, a URI, a description). */
export const FIELD_WIDTH = 200;
/** The most code points of a message that embeds fields (an error's message, a log line, a line of a server's stderr). */
export const MESSAGE_WIDTH = 1000;
/** The most code points of a URL printed for the user to open (an authorization URL). */
export const URL_WIDTH = 4096;

/** The characters shown escaped: controls, format characters, separators, lone surrogates, invisible fillers and selectors. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u115f\u1160\u3164\uffa0\u{e0100}-\u{e01ef}]/u;

/** The escape of one code point: `\xHH`, `\uHHHH` or `\u{HHHHH}`. */
export function escapeCodePoint(cp: number): string {
  const hex = cp.toString(16);
  if (cp <= 0xff) return `\\x${hex.padStart(2, "0")}`;
  if (cp <= 0xffff) return `\\u${hex.padStart(4, "0")}`;
  return `\\u{${hex}}`;
}

/**
 * `text` as it may be printed: hidden characters escaped, cut at `width` code points with the
 * marker `…(+N more)`. `width` Infinity escapes without cutting (a line already made of printed
 * fields). A value that is not a string is printed by its String() form.
 */
export function untrustedText(text: unknown, width: number = FIELD_WIDTH): string {
  const source = typeof text === "string" ? text : stringOf(text);
  // The common case, nothing to escape and short enough, costs one scan.
  if (source.length <= width && !HIDDEN.test(source)) return source;
  let out = "";
  let used = 0;
  let taken = 0;
  for (const char of source) {
    const piece = HIDDEN.test(char) ? escapeCodePoint(char.codePointAt(0) as number) : char;
    const size = piece === char ? 1 : piece.length;
    if (used + size > width) return `${out}…(+${codePointLength(source) - taken} more)`;
    out += piece;
    used += size;
    taken++;
  }
  return out;
}

/** String(value), or a placeholder for a value without one (an object with a null prototype). */
function stringOf(value: unknown): string {
  try {
    return String(value);
  } catch {
    return "[a value without a text form]";
  }
}

/** Lines of a report, each passed through the printer once more as a whole: only the caller's own line breaks stay. */
export function printedLines(text: string): string {
  return text
    .split("\n")
    .map((line) => untrustedText(line, Infinity))
    .join("\n");
}
