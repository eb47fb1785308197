// Matching a URI against a parsed RFC 6570 template (./template.ts): the work inside one
// group of adjacent expressions and inside one expression (rules 3 to 5 of
// `UriTemplate.match`), and the percent-decoding of what was matched.
//
// Invariants: no regular expression and no backtracking (each step scans forward once);
// variables are written as own properties only (setOwn), so a varname such as "__proto__"
// never reaches a prototype; invalid UTF-8 in %XX triplets decodes to U+FFFD.

import { codePointLength } from "../codec/code-points.js";
import { decodeUtf8 } from "../wire/utf8.js";
import type { Expression, UriTemplateMatch, VarSpec } from "./template.js";

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/** Whether `s` holds a %XX triplet (two hex digits, either case) at `i`; parsing, encoding and decoding all use it. */
export function isPctTriplet(s: string, i: number): boolean {
  return s.charCodeAt(i) === 0x25 && hexValue(s.charCodeAt(i + 1)) >= 0 && hexValue(s.charCodeAt(i + 2)) >= 0;
}

/** Decodes %XX triplets as UTF-8 (invalid sequences become U+FFFD); a "%" not followed by two hex digits stays as is. */
function decode(s: string): string {
  let i = s.indexOf("%");
  if (i < 0) return s;
  let out = s.slice(0, i);
  let bytes: number[] = [];
  while (i < s.length) {
    if (isPctTriplet(s, i)) {
      bytes.push(hexValue(s.charCodeAt(i + 1)) * 16 + hexValue(s.charCodeAt(i + 2)));
      i += 3;
      continue;
    }
    if (bytes.length > 0) {
      out += decodeBytes(bytes);
      bytes = [];
    }
    const next = s.indexOf("%", i + 1);
    const stop = next < 0 ? s.length : next;
    out += s.slice(i, stop);
    i = stop;
  }
  return bytes.length > 0 ? out + decodeBytes(bytes) : out;
}

function decodeBytes(bytes: number[]): string {
  // A single ASCII escape (the common "%20", "%2F") needs no decoder.
  if (bytes.length === 1 && (bytes[0] as number) < 0x80) return String.fromCharCode(bytes[0] as number);
  return decodeUtf8(Uint8Array.from(bytes), false);
}

// Own properties only: a variable named "__proto__" must not be written to the prototype.
function setOwn(target: UriTemplateMatch, name: string, value: string | string[]): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

/** Matches `span` (the text of one group) against the group's expressions, rules 3 to 5 of `UriTemplate.match`; false: no match. */
/** Matches `span`, the part of the URI one group of adjacent expressions covers; false: no match. */
export function matchGroup(exprs: readonly Expression[], span: string, out: UriTemplateMatch): boolean {
  let p = 0;
  for (let j = 0; j < exprs.length; j++) {
    const expr = exprs[j] as Expression;
    const first = expr.info.first;
    if (first !== "" && span[p] !== first) continue; // absent: all its variables undefined
    const from = p + first.length;
    const next = exprs[j + 1];
    const lead = next === undefined || next.info.first === "" ? -1 : next.info.first.charCodeAt(0);
    const byName = expr.info.named && next !== undefined && next.info.first === expr.info.sep;
    let stop = from;
    while (stop < span.length) {
      const c = span.charCodeAt(stop);
      if (c === lead && (!byName || !expr.byName.has(pieceName(span, stop + 1, lead)))) break;
      if (c < 0x80 && expr.producible[c] !== 1) break;
      stop++;
    }
    if (!matchExpression(expr, span.slice(from, stop), first !== "", out)) return false;
    p = stop;
  }
  return p === span.length;
}

function pieceName(s: string, from: number, sep: number): string {
  let i = from;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === 0x3d || c === sep) break;
    i++;
  }
  return s.slice(from, i);
}

function matchExpression(expr: Expression, text: string, present: boolean, out: UriTemplateMatch): boolean {
  const info = expr.info;
  // Without a leading character, an empty text means every variable was undefined.
  if (!present && text === "") return true;
  const pieces = text.split(info.sep);
  if (info.named) {
    const lists = new Map<string, string[]>();
    const seen = new Set<string>();
    for (const piece of pieces) {
      const eq = piece.indexOf("=");
      const name = eq < 0 ? piece : piece.slice(0, eq);
      const raw = eq < 0 ? "" : piece.slice(eq + 1);
      const spec = expr.byName.get(name);
      if (spec === undefined) return false;
      if (spec.explode) {
        let list = lists.get(name);
        if (list === undefined) lists.set(name, (list = []));
        list.push(decode(raw));
      } else {
        if (seen.has(name)) return false;
        seen.add(name);
        if (!assign(out, spec, raw, true)) return false;
      }
    }
    for (const [name, list] of lists) store(out, expr.byName.get(name) as VarSpec, list);
    return true;
  }
  const vars = expr.vars;
  const splitLists = !info.reserved;
  if (vars.length === 1 && !(vars[0] as VarSpec).explode) {
    const spec = vars[0] as VarSpec;
    // One variable takes the whole text; for "/" a raw separator cannot come from a value.
    if (pieces.length > 1 && info.sep !== "," && info.sep !== ".") return false;
    return assign(out, spec, text, splitLists);
  }
  const exploded = vars.findIndex((v) => v.explode);
  if (exploded < 0) {
    for (let j = 0; j < vars.length && j < pieces.length; j++) {
      const isLast = j === vars.length - 1;
      if (isLast && pieces.length > vars.length && info.sep !== "," && info.sep !== ".") return false;
      const raw = isLast ? pieces.slice(j).join(info.sep) : (pieces[j] as string);
      if (!assign(out, vars[j] as VarSpec, raw, splitLists)) return false;
    }
    return true;
  }
  // Variables before the exploded one take one piece each, the exploded one takes all
  // but one piece per variable after it (at least one), the rest take one each.
  let at = 0;
  for (let j = 0; j < exploded && at < pieces.length; j++, at++) {
    if (!assign(out, vars[j] as VarSpec, pieces[at] as string, splitLists)) return false;
  }
  if (at >= pieces.length) return true;
  const after = vars.length - exploded - 1;
  const take = Math.max(1, pieces.length - at - after);
  store(out, vars[exploded] as VarSpec, pieces.slice(at, at + take).map(decode));
  at += take;
  for (let j = exploded + 1; j < vars.length && at < pieces.length; j++, at++) {
    const spec = vars[j] as VarSpec;
    const isLast = j === vars.length - 1;
    const raw = isLast ? pieces.slice(at).join(info.sep) : (pieces[at] as string);
    if (spec.explode) store(out, spec, (isLast ? pieces.slice(at) : [raw]).map(decode));
    else if (!assign(out, spec, raw, splitLists)) return false;
    if (isLast) break;
  }
  return true;
}

/** Decodes one non-exploded value; a raw "," makes it a list when `splitLists`. */
function assign(out: UriTemplateMatch, spec: VarSpec, raw: string, splitLists: boolean): boolean {
  if (splitLists && raw.includes(",")) {
    store(out, spec, raw.split(",").map(decode));
    return true;
  }
  const value = decode(raw);
  if (spec.prefix > 0 && codePointLength(value) > spec.prefix) return false;
  store(out, spec, value);
  return true;
}

function store(out: UriTemplateMatch, spec: VarSpec, value: string | string[]): void {
  if (spec.prefix > 0 && Object.prototype.hasOwnProperty.call(out, spec.name)) return;
  setOwn(out, spec.name, value);
}
