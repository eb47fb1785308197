// The YAML frontmatter of a SKILL.md (RULES.md SK-06), read without a YAML library: the subset
// the Agent Skills format uses, and a refusal for the rest. A skill's frontmatter is a mapping of
// keys to plain, quoted or block scalars, flat lists and one level of nested mappings
// (`metadata:`); that is what this reads. Anchors, aliases, tags, flow mappings, multi-line
// quoted strings, complex keys and scalars that YAML versions read differently (`yes`, `0x1F`,
// `1e3`, unquoted dates, which a YAML 1.1 reader turns into booleans, numbers or timestamps)
// are refused with the line and a hint, never guessed: a server and a host that read a
// frontmatter differently would approve one skill and run another.
//
// Invariants: never throws on any input; keys land in null-prototype objects (a key such as
// `__proto__` is data, never a prototype); duplicate keys are refused, as YAML requires; the
// depth is bounded by the grammar (mappings nest at most MAX_DEPTH levels).

import type { JsonObject } from "../wire/envelope.js";

/** What readFrontmatter found: the frontmatter as JSON and the markdown after it, or the first problem. */
export type FrontmatterReading =
  | { readonly ok: true; readonly frontmatter: JsonObject; readonly body: string }
  | { readonly ok: false; readonly problem: string };

const MAX_DEPTH = 4;
const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /(?:^|\r?\n)---[ \t]*(?:\r?\n|$)/;

/** Splits a SKILL.md into its frontmatter (parsed) and body; a missing or unreadable block is a problem. */
export function readFrontmatter(text: string): FrontmatterReading {
  const open = OPENING.exec(text);
  if (open === null) return { ok: false, problem: "expected the file to begin with a --- line opening the YAML frontmatter" };
  const rest = text.slice(open[0].length);
  const close = CLOSING.exec(rest);
  if (close === null) return { ok: false, problem: "expected a --- line closing the YAML frontmatter" };
  const parsed = parseYamlSubset(rest.slice(0, close.index));
  if (!parsed.ok) return parsed;
  return { ok: true, frontmatter: parsed.value, body: rest.slice(close.index + close[0].length) };
}

interface Line {
  readonly number: number;
  readonly indent: number;
  /** The line without its indentation (comments kept: a block scalar keeps them as text). */
  readonly text: string;
}

class Refusal {
  constructor(readonly problem: string) {}
}

const refuse = (line: Line | undefined, what: string): Refusal =>
  new Refusal(line === undefined ? what : `frontmatter line ${line.number}: ${what}`);

/** The YAML subset: a mapping at the top. */
export function parseYamlSubset(yaml: string): { ok: true; value: JsonObject } | { ok: false; problem: string } {
  const lines: Line[] = [];
  const raw = yaml.split(/\r?\n/);
  for (let i = 0; i < raw.length; i++) {
    const text = raw[i] as string;
    const indent = text.length - text.replace(/^ +/, "").length;
    if (text[indent] === "\t") return { ok: false, problem: `frontmatter line ${i + 1}: expected spaces for indentation; got a tab` };
    lines.push({ number: i + 1, indent, text: text.slice(indent) });
  }
  const reader = new Reader(lines);
  try {
    reader.skipBlank();
    const first = reader.peek();
    if (first === undefined) return { ok: true, value: Object.create(null) as JsonObject };
    if (first.indent !== 0) throw refuse(first, "expected the frontmatter's keys at column 1");
    const value = reader.mapping(0, 0);
    reader.skipBlank();
    const left = reader.peek();
    if (left !== undefined) throw refuse(left, "expected a key at column 1; got text indented where no value takes it");
    return { ok: true, value };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, problem: error.problem };
    return { ok: false, problem: `frontmatter: unreadable (${String(error)})` };
  }
}

const KEY = /^([A-Za-z0-9_][A-Za-z0-9_./-]*|"(?:[^"\\]|\\.)*"|'(?:[^']|'')*')[ \t]*:(?:[ \t]+|$)/;
const SEQUENCE_ITEM = /^-(?:[ \t]+|$)/;

class Reader {
  private at = 0;
  constructor(private readonly lines: readonly Line[]) {}

  peek(): Line | undefined {
    return this.lines[this.at];
  }

  /** Past blank lines and whole-line comments. */
  skipBlank(): void {
    while (this.at < this.lines.length) {
      const line = this.lines[this.at] as Line;
      if (line.text.trim() !== "" && !line.text.startsWith("#")) return;
      this.at++;
    }
  }

  mapping(indent: number, depth: number): JsonObject {
    if (depth > MAX_DEPTH) throw refuse(this.peek(), `expected mappings nested at most ${MAX_DEPTH} deep`);
    const out = Object.create(null) as JsonObject;
    const seen = new Set<string>();
    for (;;) {
      this.skipBlank();
      const line = this.peek();
      if (line === undefined || line.indent < indent) return out;
      if (line.indent > indent) throw refuse(line, `expected a key at indentation ${indent}; got ${line.indent} spaces`);
      const match = KEY.exec(line.text);
      if (match === null) {
        if (SEQUENCE_ITEM.test(line.text)) throw refuse(line, "expected a key: value line; got a list item where a mapping continues");
        throw refuse(
          line,
          `expected a key: value line (keys of letters, digits and _ . / -, or quoted); got ${JSON.stringify(line.text.slice(0, 40))}`,
        );
      }
      const key = keyOf(line, match[1] as string);
      if (seen.has(key)) throw refuse(line, `expected each key once; got ${JSON.stringify(key)} again`);
      seen.add(key);
      this.at++;
      out[key] = this.value(line, line.text.slice(match[0].length), indent, depth);
    }
  }

  /** The value after `key:` on `line` (whose key sits at `indent`). */
  private value(line: Line, rest: string, indent: number, depth: number): unknown {
    const inline = withoutComment(rest);
    if (inline === "") {
      this.skipBlank();
      const next = this.peek();
      if (next === undefined || next.indent < indent) return null;
      if (SEQUENCE_ITEM.test(next.text) && next.indent >= indent) return this.sequence(next.indent);
      if (next.indent === indent) return null;
      return this.mapping(next.indent, depth + 1);
    }
    const head = inline[0] as string;
    if (head === "|" || head === ">") return this.blockScalar(line, inline, indent);
    if (head === "[") return flowSequence(line, inline);
    if (head === '"' || head === "'") return quoted(line, inline);
    return this.plain(line, rest, indent);
  }

  /** A block list of scalars at `indent`. */
  private sequence(indent: number): unknown[] {
    const items: unknown[] = [];
    for (;;) {
      this.skipBlank();
      const line = this.peek();
      if (line === undefined || line.indent !== indent || !SEQUENCE_ITEM.test(line.text)) {
        if (line !== undefined && line.indent > indent) throw refuse(line, "expected the next list item; got a nested block");
        return items;
      }
      this.at++;
      const rest = line.text.replace(SEQUENCE_ITEM, "");
      const inline = withoutComment(rest);
      if (inline === "" || inline.startsWith("- ") || inline === "-" || KEY.test(inline))
        throw refuse(line, "expected a list item that is a scalar; nested lists and mappings in lists are outside the subset read here");
      const head = inline[0] as string;
      if (head === "|" || head === ">") throw refuse(line, "expected a list item on one line; got a block scalar");
      if (head === "[") items.push(flowSequence(line, inline));
      else if (head === '"' || head === "'") items.push(quoted(line, inline));
      else items.push(this.plain(line, rest, indent));
    }
  }

  /** A plain scalar, with the lines that continue it (more indented than its key), folded with spaces. */
  private plain(line: Line, rest: string, indent: number): unknown {
    const parts = [checkedPlain(line, withoutComment(rest))];
    const commented = withoutComment(rest) !== rest.trim();
    for (;;) {
      const next = this.peek();
      if (next === undefined || next.indent <= indent || next.text.trim() === "" || next.text.startsWith("#")) break;
      if (commented) throw refuse(next, "expected no continuation after a comment");
      this.at++;
      parts.push(checkedPlain(next, withoutComment(next.text)));
    }
    const blank = this.peek();
    if (parts.length > 1 && blank !== undefined && blank.text.trim() === "") {
      const after = this.lines.slice(this.at).find((l) => l.text.trim() !== "");
      if (after !== undefined && after.indent > indent && !after.text.startsWith("#"))
        throw refuse(after, "expected a multi-line plain scalar without blank lines (use a | or > block)");
    }
    return parts.length > 1 ? parts.join(" ") : resolvePlain(line, parts[0] as string);
  }

  /** A `|` (literal) or `>` (folded) block scalar, with clip, strip (-) or keep (+) chomping. */
  private blockScalar(line: Line, header: string, indent: number): string {
    const match = /^([|>])([+-]?)$/.exec(header);
    if (match === null)
      throw refuse(
        line,
        `expected a block scalar header |, |-, |+, >, >- or >+; got ${JSON.stringify(header)} (indentation indicators are outside the subset)`,
      );
    const literal = match[1] === "|";
    const chomp = match[2];
    const body: string[] = [];
    let contentIndent = -1;
    while (this.at < this.lines.length) {
      const next = this.lines[this.at] as Line;
      if (next.text.trim() === "") {
        body.push("");
        this.at++;
        continue;
      }
      if (next.indent <= indent) break;
      if (contentIndent < 0) contentIndent = next.indent;
      if (next.indent < contentIndent) throw refuse(next, `expected the block's lines at indentation ${contentIndent} or more`);
      if (!literal && next.indent > contentIndent) throw refuse(next, "expected a folded (>) block without more-indented lines");
      body.push(" ".repeat(next.indent - contentIndent) + next.text);
      this.at++;
    }
    let trailing = 0;
    while (body.length > 0 && body[body.length - 1] === "") {
      body.pop();
      trailing++;
    }
    // Blank lines after the block belong to what follows (the reader sits past them; only chomping reads them).
    let text = literal ? body.join("\n") : fold(body);
    if (body.length === 0) return chomp === "+" ? "\n".repeat(trailing) : "";
    if (chomp === "") text += "\n";
    else if (chomp === "+") text += "\n" + "\n".repeat(trailing);
    return text;
  }
}

/** Folded lines: a single line break becomes a space, each blank line a line break. */
function fold(lines: readonly string[]): string {
  let out = "";
  let pendingBreaks = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line === "") {
      pendingBreaks++;
      continue;
    }
    if (i > 0) out += pendingBreaks > 0 ? "\n".repeat(pendingBreaks) : " ";
    pendingBreaks = 0;
    out += line;
  }
  return out;
}

function keyOf(line: Line, raw: string): string {
  if (raw.startsWith('"') || raw.startsWith("'")) {
    const value = quoted(line, raw);
    return value;
  }
  return raw;
}

/** The text before a ` #` comment, trimmed; `#` inside quotes is text. */
function withoutComment(text: string): string {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== undefined) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if ((c === '"' || c === "'") && (i === 0 || text.slice(0, i).trim() === "")) quote = c;
    else if (c === "#" && (i === 0 || text[i - 1] === " " || text[i - 1] === "\t")) return text.slice(0, i).trim();
  }
  return text.trim();
}

/** A plain scalar's text: no indicator YAML would read otherwise, no `: ` (a mapping YAML refuses there). */
function checkedPlain(line: Line, text: string): string {
  if (/^[&*!%@`{}]/.test(text) || text.startsWith("? ") || text === "?")
    throw refuse(
      line,
      `expected a plain scalar; got ${JSON.stringify(text.slice(0, 20))}, whose first character YAML reads as an anchor, alias, tag, directive or flow mapping (quote it)`,
    );
  if (/:(?:[ \t]|$)/.test(text))
    throw refuse(line, `expected a plain scalar without ": " (quote it); got ${JSON.stringify(text.slice(0, 40))}`);
  if (text.startsWith("- ") || text === "-") throw refuse(line, "expected a scalar; got a list item where a value goes");
  return text;
}

const INTEGER = /^[-+]?(?:0|[1-9][0-9]*)$/;
const FLOAT = /^[-+]?(?:0|[1-9][0-9]*)\.[0-9]+$/;
// What YAML readers disagree on or turn into non-JSON values: 1.1 booleans, octal, hex, binary,
// exponents, infinities, NaN, digit groups, sexagesimals and timestamps.
const AMBIGUOUS =
  /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF|[-+]?0[0-9_]+|[-+]?0[xXoObB][0-9A-Fa-f_]+|[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+|[-+]?\.?(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|[-+]?[0-9][0-9_]*_[0-9_]*(?:\.[0-9_]*)?|[-+]?[0-9]+(?::[0-5]?[0-9])+(?:\.[0-9_]*)?|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt \t].*)?|[-+]?\.[0-9]+|[-+]?[0-9]+\.)$/;

/** A plain scalar's value under the YAML 1.2 core schema, or a refusal where readers differ. */
function resolvePlain(line: Line, text: string): unknown {
  if (text === "" || text === "~" || text === "null" || text === "Null" || text === "NULL") return null;
  if (text === "true" || text === "True" || text === "TRUE") return true;
  if (text === "false" || text === "False" || text === "FALSE") return false;
  if (INTEGER.test(text) || FLOAT.test(text)) {
    const n = Number(text);
    if (Number.isSafeInteger(n) || (FLOAT.test(text) && Number.isFinite(n))) return n;
    throw refuse(line, `expected a number JSON can hold exactly; got ${text} (quote it)`);
  }
  if (AMBIGUOUS.test(text)) throw refuse(line, `expected a scalar every YAML reader reads alike; got ${JSON.stringify(text)} (quote it)`);
  return text;
}

/** A quoted scalar that ends on its line; nothing but a comment may follow it. */
function quoted(line: Line, text: string): string {
  const single = text[0] === "'";
  let out = "";
  let i = 1;
  for (; i < text.length; i++) {
    const c = text[i] as string;
    if (single) {
      if (c === "'") {
        if (text[i + 1] === "'") {
          out += "'";
          i++;
          continue;
        }
        break;
      }
      out += c;
      continue;
    }
    if (c === '"') break;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const escaped = unescape(text, i + 1);
    if (escaped === undefined)
      throw refuse(line, `expected a JSON-style escape in a double-quoted string; got ${JSON.stringify(text.slice(i, i + 2))}`);
    out += escaped.text;
    i = escaped.end - 1;
  }
  if (i >= text.length)
    throw refuse(line, "expected the quoted string to end on its line (multi-line quoted strings are outside the subset)");
  const after = text.slice(i + 1).trim();
  if (after !== "" && !after.startsWith("#") && !/^:(?:\s|$)/.test(after))
    throw refuse(line, `expected nothing after the quoted string; got ${JSON.stringify(after.slice(0, 20))}`);
  return out;
}

const SIMPLE_ESCAPES: ReadonlyMap<string, string> = new Map([
  ["\\", "\\"],
  ['"', '"'],
  ["/", "/"],
  ["n", "\n"],
  ["t", "\t"],
  ["r", "\r"],
  ["0", "\0"],
  [" ", " "],
]);

function unescape(text: string, at: number): { text: string; end: number } | undefined {
  const c = text[at];
  if (c === undefined) return undefined;
  const simple = SIMPLE_ESCAPES.get(c);
  if (simple !== undefined) return { text: simple, end: at + 1 };
  const width = c === "x" ? 2 : c === "u" ? 4 : c === "U" ? 8 : 0;
  if (width === 0) return undefined;
  const hex = text.slice(at + 1, at + 1 + width);
  if (hex.length !== width || !/^[0-9A-Fa-f]+$/.test(hex)) return undefined;
  const code = Number.parseInt(hex, 16);
  if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return undefined;
  return { text: String.fromCodePoint(code), end: at + 1 + width };
}

/** `[a, "b", c]` on one line: scalars only. */
function flowSequence(line: Line, text: string): unknown[] {
  if (!text.endsWith("]")) throw refuse(line, "expected a flow list [...] that ends on its line");
  const inner = text.slice(1, -1).trim();
  if (inner === "") return [];
  const items: unknown[] = [];
  let i = 0;
  while (i <= inner.length) {
    while (inner[i] === " ") i++;
    const c = inner[i];
    if (c === "[" || c === "{") throw refuse(line, "expected scalars in a flow list; nested flow collections are outside the subset");
    let item: string;
    let end: number;
    if (c === '"' || c === "'") {
      const close = quotedEnd(inner, i);
      if (close < 0) throw refuse(line, "expected the quoted item to end");
      items.push(quoted(line, inner.slice(i, close + 1)));
      end = close + 1;
    } else {
      end = inner.indexOf(",", i);
      if (end < 0) end = inner.length;
      item = inner.slice(i, end).trim();
      if (item === "") throw refuse(line, "expected an item between the commas of a flow list");
      if (/[[\]{}]/.test(item)) throw refuse(line, `expected a plain item; got ${JSON.stringify(item)}`);
      items.push(resolvePlain(line, checkedPlain(line, item)));
    }
    while (inner[end] === " ") end++;
    if (end >= inner.length) break;
    if (inner[end] !== ",") throw refuse(line, "expected a comma between the items of a flow list");
    i = end + 1;
  }
  return items;
}

function quotedEnd(text: string, start: number): number {
  const q = text[start];
  for (let i = start + 1; i < text.length; i++) {
    if (q === '"' && text[i] === "\\") i++;
    else if (text[i] === q) {
      if (q === "'" && text[i + 1] === "'") i++;
      else return i;
    }
  }
  return -1;
}
