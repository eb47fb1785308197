// RFC 6570 URI Templates (levels 1 to 4) for MCP resource templates: parse a template once,
// expand variables into a URI, and match a concrete URI back into variables.
//
// Invariants:
// - parsing is strict: a malformed template throws a UriTemplateError naming the 0-based
//   position of the fault, so a bad template fails when it is registered, not when used;
// - expansion percent-encodes each value as UTF-8 (upper-case hex) outside the operator's
//   allowed set: unreserved characters for most operators, unreserved plus reserved for
//   "+" and "#" (RFC 6570 section 3.2.1);
// - matching uses no regular expression and never backtracks, so no URI can make it slow
//   (a regex-based matcher is open to ReDoS): its cost is linear in the length of the URI for
//   a given template; the matching inside a group is in ./match.ts.
//   How a URI is split when several splits are possible is documented on `UriTemplate.match`;
//   `match(expand(vars))` gives `vars` back whenever the expansion is unambiguous.
// - only ECMAScript is used (UTF-8 through lib/wire/utf8.ts: the host's TextDecoder when it has one).

import { isPctTriplet, matchGroup } from "./match.js";

/** Thrown by `parseTemplate` for a malformed template. */
export class UriTemplateError extends Error {
  /** 0-based index in the template of the character at fault. */
  readonly position: number;
  readonly template: string;

  constructor(template: string, position: number, reason: string) {
    const shown = template.length > 80 ? `${template.slice(0, 80)}…` : template;
    super(`Invalid URI template at position ${position}: ${reason} (in ${JSON.stringify(shown)})`);
    Object.setPrototypeOf(this, new.target.prototype); // instanceof through an ES5 down-level
    this.name = "UriTemplateError";
    this.position = position;
    this.template = template;
  }
}

/** Variable values for expansion. An empty list counts as undefined (RFC 6570 section 2.3). */
export type UriTemplateVariables = Record<string, string | string[] | undefined>;

/** Variables extracted by `match`. Exploded variables are always lists. */
export type UriTemplateMatch = Record<string, string | string[]>;

export type Operator = "" | "+" | "#" | "." | "/" | ";" | "?" | "&";

// The operator table of RFC 6570 appendix A.
export interface OperatorInfo {
  readonly first: string;
  readonly sep: string;
  readonly named: boolean;
  readonly ifemp: string;
  /** true: reserved characters pass unencoded (U+R); false: only unreserved ones (U). */
  readonly reserved: boolean;
}

const OPERATORS: { readonly [K in Operator]: OperatorInfo } = {
  "": { first: "", sep: ",", named: false, ifemp: "", reserved: false },
  "+": { first: "", sep: ",", named: false, ifemp: "", reserved: true },
  "#": { first: "#", sep: ",", named: false, ifemp: "", reserved: true },
  ".": { first: ".", sep: ".", named: false, ifemp: "", reserved: false },
  "/": { first: "/", sep: "/", named: false, ifemp: "", reserved: false },
  ";": { first: ";", sep: ";", named: true, ifemp: "", reserved: false },
  "?": { first: "?", sep: "&", named: true, ifemp: "=", reserved: false },
  "&": { first: "&", sep: "&", named: true, ifemp: "=", reserved: false },
};

/** @internal */
export interface VarSpec {
  readonly name: string;
  readonly explode: boolean;
  /** Maximum length in code points of a `:n` prefix; 0 when there is none. */
  readonly prefix: number;
}

/** @internal */
export interface Expression {
  readonly op: Operator;
  readonly info: OperatorInfo;
  readonly vars: readonly VarSpec[];
  readonly byName: ReadonlyMap<string, VarSpec>;
  /** ASCII characters this expression's output can hold after its first character (1 = yes). */
  readonly producible: Uint8Array;
}

/** Expressions with no literal between them; they share one span of the URI when matching. */
interface Group {
  readonly exprs: readonly Expression[];
  /** ASCII characters any of the group's expressions can produce, first characters included. */
  readonly allowed: Uint8Array;
}

// ---------------------------------------------------------------------------------------
// Character classes (ASCII tables; every non-ASCII character is "other").

const UNRESERVED = new Uint8Array(128);
const RESERVED = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || "-._~".includes(ch)) UNRESERVED[c] = 1;
  if (":/?#[]@!$&'()*+,;=".includes(ch)) RESERVED[c] = 1;
}

function isAlnum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

// What an expression may produce after its first character. A value encoded for U holds
// unreserved characters and %XX only, so every reserved character is structural: the
// operator's separator, "," between list members, "=" after a name. Characters outside
// both classes (spaces, non-ASCII, ...) never come out of an expansion, but are accepted
// when matching so that a URI written by hand with raw Unicode still matches.
function producibleSet(info: OperatorInfo): Uint8Array {
  const table = new Uint8Array(128);
  for (let c = 0; c < 128; c++) table[c] = info.reserved || !RESERVED[c] ? 1 : 0;
  table[0x2c] = 1; // ","
  table[info.sep.charCodeAt(0)] = 1;
  if (info.named) table[0x3d] = 1; // "="
  return table;
}

// ---------------------------------------------------------------------------------------
// Percent-encoding.

const HEX = "0123456789ABCDEF";

function pctByte(b: number): string {
  return `%${HEX[b >> 4]}${HEX[b & 15]}`;
}

function pctCodePoint(cp: number): string {
  if (cp < 0x80) return pctByte(cp);
  if (cp < 0x800) return pctByte(0xc0 | (cp >> 6)) + pctByte(0x80 | (cp & 63));
  if (cp < 0x10000) return pctByte(0xe0 | (cp >> 12)) + pctByte(0x80 | ((cp >> 6) & 63)) + pctByte(0x80 | (cp & 63));
  return pctByte(0xf0 | (cp >> 18)) + pctByte(0x80 | ((cp >> 12) & 63)) + pctByte(0x80 | ((cp >> 6) & 63)) + pctByte(0x80 | (cp & 63));
}

/**
 * Encodes `value` for the U set (allowReserved false) or the U+R set (true). U+R keeps
 * existing %XX triplets, as RFC 6570 section 3.2.3 requires. A lone surrogate is encoded as
 * U+FFFD (it has no UTF-8 form).
 */
function encode(value: string, allowReserved: boolean): string {
  let out = "";
  let start = 0;
  const n = value.length;
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x80) {
      if (UNRESERVED[c] === 1 || (allowReserved && RESERVED[c] === 1)) continue;
      if (allowReserved && isPctTriplet(value, i)) {
        i += 2;
        continue;
      }
      out += value.slice(start, i) + pctByte(c);
      start = i + 1;
      continue;
    }
    let cp = c;
    let width = 1;
    if (c >= 0xd800 && c <= 0xdbff) {
      const low = value.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        cp = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
        width = 2;
      } else cp = 0xfffd;
    } else if (c >= 0xdc00 && c <= 0xdfff) cp = 0xfffd;
    out += value.slice(start, i) + pctCodePoint(cp);
    i += width - 1;
    start = i + 1;
  }
  return start === 0 ? value : out + value.slice(start);
}

/** The first `max` code points of `s` (a surrogate pair is never split). */
function codePointPrefix(s: string, max: number): string {
  let i = 0;
  for (let taken = 0; taken < max && i < s.length; taken++) {
    const c = s.charCodeAt(i);
    const low = s.charCodeAt(i + 1);
    i += c >= 0xd800 && c <= 0xdbff && low >= 0xdc00 && low <= 0xdfff ? 2 : 1;
  }
  return s.slice(0, i);
}

// Own properties only: a variable named "constructor" or "__proto__" is a valid varname
// and must not be read from, or written to, the object's prototype.
function ownValue(vars: UriTemplateVariables, name: string): unknown {
  return Object.prototype.hasOwnProperty.call(vars, name) ? vars[name] : undefined;
}

// ---------------------------------------------------------------------------------------
// Parsing.

const OPERATOR_CHARS = "+#./;?&";
const RESERVED_OPERATOR_CHARS = "=,!@|";

function parseVarSpec(template: string, text: string, at: number): VarSpec {
  const fail = (offset: number, reason: string): never => {
    throw new UriTemplateError(template, at + offset, reason);
  };
  if (text === "") fail(0, "empty variable name (two commas, or a comma at an end of the expression)");
  let i = 0;
  let lastWasDot = true; // a name may not start with "."
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x3a || c === 0x2a) break; // ":" or "*"
    if (c === 0x2e) {
      if (lastWasDot) fail(i, `a '.' in a variable name must sit between two name characters`);
      lastWasDot = true;
      i++;
      continue;
    }
    if (c === 0x25) {
      if (!isPctTriplet(text, i)) fail(i, "'%' in a variable name must start a %XX escape");
      i += 3;
    } else if (isAlnum(c) || c === 0x5f) i++;
    else fail(i, `invalid character ${JSON.stringify(text[i])} in variable name ${JSON.stringify(text)}`);
    lastWasDot = false;
  }
  if (i === 0) fail(0, `empty variable name before ${JSON.stringify(text[0])}`);
  if (lastWasDot) fail(i - 1, `a variable name may not end with '.'`);
  const name = text.slice(0, i);
  if (i === text.length) return { name, explode: false, prefix: 0 };
  if (text[i] === "*") {
    if (i + 1 !== text.length) fail(i + 1, `unexpected ${JSON.stringify(text[i + 1])} after the explode modifier '*'`);
    return { name, explode: true, prefix: 0 };
  }
  // ":" max-length, with max-length = %x31-39 0*3DIGIT (1 to 9999).
  const digits = text.slice(i + 1);
  if (!/^[1-9][0-9]{0,3}$/.test(digits))
    fail(i + 1, `the prefix modifier ':' needs a length from 1 to 9999, got ${JSON.stringify(digits)}`);
  return { name, explode: false, prefix: Number(digits) };
}

function parseExpression(template: string, body: string, at: number): Expression {
  let op: Operator = "";
  const c0 = body[0] as string;
  if (OPERATOR_CHARS.includes(c0)) op = c0 as Operator;
  else if (RESERVED_OPERATOR_CHARS.includes(c0))
    throw new UriTemplateError(template, at, `operator '${c0}' is reserved by RFC 6570 for future extensions`);
  else if (!(isAlnum(c0.charCodeAt(0)) || c0 === "_" || c0 === "%"))
    throw new UriTemplateError(template, at, `unknown operator ${JSON.stringify(c0)}`);
  const start = op === "" ? 0 : 1;
  if (start === body.length) throw new UriTemplateError(template, at, `operator '${op}' with no variable`);
  const vars: VarSpec[] = [];
  const byName = new Map<string, VarSpec>();
  let from = start;
  for (;;) {
    const comma = body.indexOf(",", from);
    const end = comma < 0 ? body.length : comma;
    const spec = parseVarSpec(template, body.slice(from, end), at + from);
    vars.push(spec);
    if (!byName.has(spec.name)) byName.set(spec.name, spec);
    if (comma < 0) break;
    from = comma + 1;
  }
  const info = OPERATORS[op];
  return { op, info, vars, byName, producible: producibleSet(info) };
}

/** Parses an RFC 6570 template (levels 1 to 4). Throws UriTemplateError, naming the position, when it is malformed. */
export function parseTemplate(template: string): UriTemplate {
  return new UriTemplate(template);
}

export class UriTemplate {
  readonly template: string;
  /** Every variable name, once each, in order of first appearance. */
  readonly variableNames: string[];
  // The template as L0 G0 L1 G1 ... G(k-1) Lk: k+1 literals (stored percent-encoded, as
  // expansion emits them; interior ones are never empty) around k groups of expressions.
  private readonly literals: readonly string[];
  private readonly groups: readonly Group[];

  constructor(template: string) {
    this.template = template;
    const literals: string[] = [];
    const groups: Group[] = [];
    let literal = "";
    let current: Expression[] | undefined;
    let i = 0;
    while (i < template.length) {
      const open = template.indexOf("{", i);
      const stop = open < 0 ? template.length : open;
      const stray = template.indexOf("}", i);
      if (stray >= 0 && stray < stop) throw new UriTemplateError(template, stray, "'}' without a matching '{'");
      if (stop > i) {
        if (current !== undefined) {
          groups.push(makeGroup(current));
          current = undefined;
        }
        // Literal characters outside the allowed sets are percent-encoded (section 3.1).
        literal += encode(template.slice(i, stop), true);
      }
      if (open < 0) break;
      const close = template.indexOf("}", open + 1);
      if (close < 0) throw new UriTemplateError(template, open, "'{' is never closed");
      const body = template.slice(open + 1, close);
      const nested = body.indexOf("{");
      if (nested >= 0) throw new UriTemplateError(template, open + 1 + nested, "'{' inside an expression (the previous '{' is not closed)");
      if (body === "") throw new UriTemplateError(template, open, "empty expression '{}'");
      const expr = parseExpression(template, body, open + 1);
      if (current === undefined) {
        literals.push(literal);
        literal = "";
        current = [];
      }
      current.push(expr);
      i = close + 1;
    }
    if (current !== undefined) groups.push(makeGroup(current));
    literals.push(literal);
    this.literals = literals;
    this.groups = groups;
    const names: string[] = [];
    const seen = new Set<string>();
    for (const group of groups) {
      for (const expr of group.exprs) {
        for (const v of expr.vars) {
          if (!seen.has(v.name)) {
            seen.add(v.name);
            names.push(v.name);
          }
        }
      }
    }
    this.variableNames = names;
  }

  toString(): string {
    return this.template;
  }

  /**
   * Expands the template (RFC 6570 section 3). Undefined variables, and empty lists, are
   * skipped together with their separators; a prefix modifier applies to strings only
   * (counted in code points). Values that are neither strings nor lists are converted
   * with String(), so a number passed from JavaScript still expands.
   */
  expand(vars: UriTemplateVariables): string {
    let out = this.literals[0] as string;
    for (let g = 0; g < this.groups.length; g++) {
      for (const expr of (this.groups[g] as Group).exprs) out += expandExpression(expr, vars);
      out += this.literals[g + 1] as string;
    }
    return out;
  }

  /**
   * Extracts the variables from a URI, or returns undefined when the URI is not an
   * expansion of this template. Values are percent-decoded. Undefined variables are
   * absent from the result.
   *
   * How the URI is split, in linear time and without backtracking:
   * 1. The first literal must start the URI and the last literal must end it.
   * 2. Between literals, a group of adjacent expressions takes a span made only of
   *    characters the group can produce (reserved characters that its operators would
   *    have percent-encoded end the span; "+" and "#" accept anything). When the next
   *    literal occurs several times, the span is the longest one that still lets the rest
   *    of the template match (greedy, like a regex's `.*`), found by one backward pass
   *    that marks, for each position, whether the rest of the template can match from it.
   * 3. Within a group, each expression extends over the characters it can produce and
   *    stops early at the first occurrence of the next expression's leading character
   *    ("." "/" ";" "?" "&" "#"). An expression whose leading character is absent there is
   *    undefined. When the next expression has no leading character (no operator, or
   *    "+"), the first takes everything it can produce: `{a}{b}` gives all to `a`. For
   *    named operators followed by their own separator (`{?a}{&b}`), a `name=value` piece
   *    stays with the first expression while the name is one of its variables.
   * 4. Inside an expression, the text is split on the operator's separator. Named
   *    operators (";" "?" "&") assign pieces by name, in any order; an unknown name means
   *    no match. Otherwise pieces go to the variables in order: an exploded variable takes
   *    all pieces but one for each variable after it, and the last variable takes the
   *    remaining text. Exploded variables always give lists; a non-exploded value holding
   *    a raw "," (which its own commas would have been encoded as %2C) is a list, except
   *    for "+" and "#", where a raw "," may belong to the value and the value stays a string.
   * 5. A `:n` prefix variable must be at most n code points long; when a variable appears
   *    more than once, an occurrence without prefix wins over a prefix one, otherwise the
   *    first wins.
   */
  match(uri: string): UriTemplateMatch | undefined {
    const literals = this.literals;
    const groups = this.groups;
    const k = groups.length;
    const first = literals[0] as string;
    const last = literals[k] as string;
    if (k === 0) return uri === first ? {} : undefined;
    const n = uri.length;
    const start = first.length;
    const end = n - last.length;
    if (end < start || !uri.startsWith(first) || !uri.endsWith(last)) return undefined;

    // reach[g][p] = 1 when groups g.. and the literals after them can match uri[p..n).
    // Only groups 1..k-1 need a table (n + 1 bytes each; none for the common one-group
    // template): group g's candidates are tested against reach[g+1], and the last group
    // must end exactly where the last literal begins.
    const reach: Uint8Array[] = new Array<Uint8Array>(k);
    const endsAt = (g: number, q: number): boolean => {
      if (g === k - 1) return q === end;
      const lit = literals[g + 1] as string;
      const after = q + lit.length;
      return after <= end && (reach[g + 1] as Uint8Array)[after] === 1 && uri.startsWith(lit, q);
    };
    for (let g = k - 1; g >= 1; g--) {
      const table = new Uint8Array(n + 1);
      const allowed = (groups[g] as Group).allowed;
      // endsAt(g, p), inlined: this loop is the matcher's hot path.
      const lastGroup = g === k - 1;
      const lit = literals[g + 1] as string;
      const len = lit.length;
      const lead = lit.charCodeAt(0);
      const after = reach[g + 1] as Uint8Array;
      let next = 0; // reach from p + 1
      for (let p = end; p >= start; p--) {
        let ok = 0;
        if (lastGroup) ok = p === end ? 1 : 0;
        else if (p + len <= end && after[p + len] === 1 && uri.charCodeAt(p) === lead && (len === 1 || uri.startsWith(lit, p))) ok = 1;
        if (ok === 0 && p < end && next === 1) {
          const c = uri.charCodeAt(p);
          if (c >= 0x80 || allowed[c] === 1) ok = 1;
        }
        table[p] = ok;
        next = ok;
      }
      reach[g] = table;
    }

    const out: UriTemplateMatch = {};
    let p = start;
    for (let g = 0; g < k; g++) {
      const group = groups[g] as Group;
      let best = -1;
      for (let q = p; ; q++) {
        if (endsAt(g, q)) best = q;
        if (q >= end) break;
        const c = uri.charCodeAt(q);
        if (c < 0x80 && group.allowed[c] !== 1) break;
      }
      if (best < 0 || !matchGroup(group.exprs, uri.slice(p, best), out)) return undefined;
      p = best + (literals[g + 1] as string).length;
    }
    return out;
  }
}

function makeGroup(exprs: Expression[]): Group {
  const allowed = new Uint8Array(128);
  for (const e of exprs) {
    for (let c = 0; c < 128; c++) allowed[c] |= e.producible[c] as number;
    if (e.info.first !== "") allowed[e.info.first.charCodeAt(0)] = 1;
  }
  return { exprs, allowed };
}

// ---------------------------------------------------------------------------------------
// Expansion (RFC 6570 section 3.2.1).

function expandExpression(expr: Expression, vars: UriTemplateVariables): string {
  const info = expr.info;
  let out = "";
  let firstDefined = true;
  for (const spec of expr.vars) {
    const raw = ownValue(vars, spec.name);
    if (raw === undefined || raw === null) continue;
    let list: string[] | undefined;
    let value = "";
    if (Array.isArray(raw)) {
      list = [];
      for (const member of raw as unknown[]) if (member !== undefined && member !== null) list.push(String(member));
      if (list.length === 0) continue;
    } else value = String(raw);
    out += firstDefined ? info.first : info.sep;
    firstDefined = false;
    if (list === undefined) {
      if (info.named) {
        out += spec.name;
        if (value === "") {
          out += info.ifemp;
          continue;
        }
        out += "=";
      }
      out += encode(spec.prefix > 0 ? codePointPrefix(value, spec.prefix) : value, info.reserved);
    } else if (!spec.explode) {
      if (info.named) out += `${spec.name}=`;
      out += list.map((m) => encode(m, info.reserved)).join(",");
    } else if (info.named) {
      out += list.map((m) => (m === "" ? spec.name + info.ifemp : `${spec.name}=${encode(m, info.reserved)}`)).join(info.sep);
    } else {
      out += list.map((m) => encode(m, info.reserved)).join(info.sep);
    }
  }
  return out;
}
