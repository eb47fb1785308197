// Mutations for the fuzzer: structural ones on JSON values (replace, delete or add a
// member, prototype names as keys and values, deep nesting, wrong types) and byte-level
// ones on the encoded lines (lost or doubled newlines, CR, BOM, invalid UTF-8, flipped
// bytes, padding past maxLineBytes).
//
// Invariants: inputs are never modified (values are copied first); every result is a JSON
// value, so a value sent as bytes and as a parsed value is the same message. Keys such as
// "__proto__" are defined as own properties, as JSON.parse would make them.

import type { Rng } from "./prng.js";
import { concat } from "../support/helpers.js";

export { concat };

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export const PROTO_NAMES = [
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "isPrototypeOf",
  "__defineGetter__",
  "propertyIsEnumerable",
  "toLocaleString",
];

export const KEY_NAMES = [
  ...PROTO_NAMES,
  "_meta",
  "task",
  "id",
  "method",
  "params",
  "result",
  "error",
  "status",
  "taskId",
  "progressToken",
  "progress",
  "total",
  "level",
  "uri",
  "name",
  "elicitationId",
  "mode",
  "url",
  "message",
  "requestId",
  "reason",
  "cursor",
  "nextCursor",
  "tools",
  "execution",
  "taskSupport",
  "capabilities",
  "protocolVersion",
  "clientInfo",
  "serverInfo",
  "resultType",
  "inputResponses",
  "requestState",
  "notifications",
  "elicitations",
  "code",
  "data",
  "jsonrpc",
  "arguments",
  "roots",
  "completion",
  "values",
  "io.modelcontextprotocol/protocolVersion",
  "io.modelcontextprotocol/clientCapabilities",
  "io.modelcontextprotocol/clientInfo",
  "io.modelcontextprotocol/logLevel",
  "io.modelcontextprotocol/subscriptionId",
  "io.modelcontextprotocol/related-task",
];

const STATUS_NAMES = ["working", "input_required", "completed", "failed", "cancelled", "unknown"];
const LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

export function clone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** Defines an own, enumerable member even for names like "__proto__". */
export function setMember(target: { [key: string]: Json }, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export function nested(depth: number, leaf: Json, rng: Rng): Json {
  let value = leaf;
  const asArray = rng.chance(0.5);
  for (let i = 0; i < depth; i++) value = asArray ? [value] : { a: value };
  return value;
}

/** A value chosen to stress validators: edge numbers, prototype names, long, deep or odd strings. */
export function interestingValue(rng: Rng, strings: readonly string[]): Json {
  switch (rng.int(16)) {
    case 0:
      return rng.pick([null, true, false]);
    case 1:
      return rng.pick([0, -1, 1, 2, 1.5, -0.5, 2 ** 31, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 1e308, -1e308, 5e-324]);
    case 2:
    case 3:
      return rng.pick(PROTO_NAMES);
    case 4:
      return rng.pick(STATUS_NAMES);
    case 5:
      return rng.pick(LEVELS);
    case 6:
      return rng.pick(["", " ", "\u0000", "\ud800", "\u2028", "é", "💥", "file:///", "file:///a", "https://x/", "a/b", "\n", "\r\n"]);
    case 7:
      return "x".repeat(rng.pick([100, 1000, 10000]));
    case 8:
      return rng.chance(0.5) ? [] : {};
    case 9:
      return nested(rng.pick([2, 10, 100, rng.chance(0.05) ? 3000 : 200]), rng.pick([1, "x", null, {}]), rng);
    case 10:
      return Array.from({ length: rng.pick([3, 100, 1000]) }, (_, i) => (rng.chance(0.5) ? i : `s${i}`));
    case 11:
      return rng.int(1000);
    default:
      return strings.length > 0 ? rng.pick(strings) : "s";
  }
}

interface Slot {
  parent: Json[] | { [key: string]: Json };
  key: string | number;
}

function slots(value: Json, into: Slot[], depth: number): void {
  if (depth > 12 || into.length > 400) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && i < 50; i++) {
      into.push({ parent: value, key: i });
      slots(value[i] as Json, into, depth + 1);
    }
  } else if (typeof value === "object" && value !== null) {
    for (const key of Object.keys(value)) {
      into.push({ parent: value, key });
      slots(value[key] as Json, into, depth + 1);
    }
  }
}

function containers(value: Json, into: Array<Json[] | { [key: string]: Json }>, depth: number): void {
  if (depth > 12 || into.length > 200) return;
  if (Array.isArray(value)) {
    into.push(value);
    for (let i = 0; i < value.length && i < 50; i++) containers(value[i] as Json, into, depth + 1);
  } else if (typeof value === "object" && value !== null) {
    into.push(value);
    for (const key of Object.keys(value)) containers(value[key] as Json, into, depth + 1);
  }
}

/** A mutated copy of `value`: one to three structural edits. */
export function mutateValue(value: Json, rng: Rng, strings: readonly string[]): Json {
  let root = clone(value);
  const edits = rng.range(1, 3);
  for (let e = 0; e < edits; e++) {
    const op = rng.int(6);
    if (op <= 1) {
      const all: Slot[] = [];
      slots(root, all, 0);
      if (all.length === 0) {
        root = interestingValue(rng, strings);
        continue;
      }
      const slot = rng.pick(all);
      const replacement = interestingValue(rng, strings);
      if (Array.isArray(slot.parent)) slot.parent[slot.key as number] = replacement;
      else setMember(slot.parent, slot.key as string, replacement);
    } else if (op === 2) {
      const all: Slot[] = [];
      slots(root, all, 0);
      if (all.length === 0) continue;
      const slot = rng.pick(all);
      if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1);
      else delete slot.parent[slot.key as string];
    } else if (op === 3) {
      const all: Array<Json[] | { [key: string]: Json }> = [];
      containers(root, all, 0);
      if (all.length === 0) continue;
      const target = rng.pick(all);
      const member: Json = rng.chance(0.3) ? interestingValue(rng, strings) : rng.pick<Json>([{}, "x", 1, null, { a: 1 }]);
      if (Array.isArray(target)) target.push(member);
      else setMember(target, rng.chance(0.7) ? rng.pick(KEY_NAMES) : rng.pick(strings.length > 0 ? strings : KEY_NAMES), member);
    } else if (op === 4) {
      // Swap a string for another known string (methods, ids, statuses stay plausible).
      const all: Slot[] = [];
      slots(root, all, 0);
      const textual = all.filter((s) => typeof (s.parent as Record<string | number, Json>)[s.key] === "string");
      if (textual.length === 0 || strings.length === 0) continue;
      const slot = rng.pick(textual);
      const replacement = rng.pick(strings);
      if (Array.isArray(slot.parent)) slot.parent[slot.key as number] = replacement;
      else setMember(slot.parent, slot.key as string, replacement);
    } else {
      // Change a number: ids, progress, codes.
      const all: Slot[] = [];
      slots(root, all, 0);
      const numeric = all.filter((s) => typeof (s.parent as Record<string | number, Json>)[s.key] === "number");
      if (numeric.length === 0) continue;
      const slot = rng.pick(numeric);
      const current = (slot.parent as Record<string | number, Json>)[slot.key] as number;
      const replacement = rng.pick([current + 1, current - 1, -current, current + 0.5, String(current), 2 ** 53 + current]);
      if (Array.isArray(slot.parent)) slot.parent[slot.key as number] = replacement;
      else setMember(slot.parent, slot.key as string, replacement);
    }
  }
  return root;
}

const encoder = new TextEncoder();

/** A byte-level edit of one encoded line (which ends in "\n"). */
export function mutateLine(line: Uint8Array, rng: Rng, maxLineBytes: number): Uint8Array {
  const body = line.subarray(0, line.length - 1);
  const nl = encoder.encode("\n");
  switch (rng.int(11)) {
    case 0:
      return body; // the newline is lost: this line joins the next input
    case 1:
      return concat([body, encoder.encode("\r\n")]);
    case 2:
      return concat([new Uint8Array([0xef, 0xbb, 0xbf]), line]);
    case 3:
      return concat([encoder.encode(rng.pick(["\n", "\r\n", "   \n", "\t\n", " \r\n"])), line]);
    case 4: {
      const copy = line.slice();
      if (body.length > 0) copy[rng.int(body.length)] = rng.int(256);
      return copy;
    }
    case 5: {
      const at = rng.int(body.length + 1);
      const bad = rng.pick([[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0xc0, 0xaf]]);
      return concat([body.subarray(0, at), new Uint8Array(bad), body.subarray(at), nl]);
    }
    case 6:
      return concat([body.subarray(0, rng.int(body.length + 1)), nl]);
    case 7:
      return concat([line, line]);
    case 8: {
      const at = rng.int(body.length + 1);
      return concat([body.subarray(0, at), nl, body.subarray(at), nl]);
    }
    case 9: {
      // Valid JSON padded with whitespace around the limit: exactly at, one past, far past.
      const target = rng.pick([maxLineBytes, maxLineBytes + 1, maxLineBytes - 1, maxLineBytes * 2]);
      const pad = Math.max(0, Math.min(target - body.length, 1 << 20));
      if (body[0] !== 0x7b && body[0] !== 0x5b) return line;
      const spaces = new Uint8Array(pad).fill(rng.chance(0.5) ? 0x20 : 0x09);
      return concat([body.subarray(0, 1), spaces, body.subarray(1), nl]);
    }
    default:
      return concat([line, encoder.encode(rng.pick(["{", "]", "nul", '"', "{}", "[]", "1", "null", '"x"']) + "\n")]);
  }
}

/** Splits `bytes` into random chunks (empty ones included), often cutting UTF-8 sequences. */
export function randomSplit(bytes: Uint8Array, rng: Rng): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let at = 0;
  // Byte-by-byte splits only for small inputs, so a large line costs hundreds of calls, not millions.
  const style = bytes.length > 4096 ? rng.range(2, 3) : rng.int(4);
  while (at < bytes.length) {
    let size: number;
    if (style === 0) size = 1;
    else if (style === 1) size = rng.range(0, 8);
    else if (style === 2) size = rng.range(1, 200);
    else size = rng.range(0, Math.max(1, bytes.length - at));
    pieces.push(bytes.subarray(at, Math.min(bytes.length, at + size)));
    at += size;
  }
  if (rng.chance(0.2)) pieces.push(new Uint8Array(0));
  return pieces;
}
