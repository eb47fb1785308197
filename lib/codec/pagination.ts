// Server-side pagination with opaque (RULES.md N-01), stable, tamper-evident cursors (N-05), the
// page size ours to choose (N-01) and nextCursor only while more follow (N-02).
//
// A cursor is base64url(JSON {l: list name, o: offset}) + "." + base64url(first 16 bytes
// of HMAC-SHA-256(secret, payload)). The secret comes from the host (the core has no
// randomness). A cursor made for one list is refused for another; an edited, truncated or
// foreign cursor is refused with -32602 (N-05), so a client that alters one (N-04) is caught.

import { ErrorCode } from "../wire/errors.js";
import { decodeUtf8, encodeUtf8 } from "../wire/utf8.js";
import { constantTimeEqual, hmacSha256 } from "./sha256.js";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;

export function base64urlEncode(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]!;
    if (i + 1 < bytes.length) out += ALPHABET[(n >> 6) & 63]!;
    if (i + 2 < bytes.length) out += ALPHABET[n & 63]!;
  }
  return out;
}

/** Decodes unpadded base64url; undefined for any character outside the alphabet or an impossible length. */
export function base64urlDecode(text: string): Uint8Array | undefined {
  if (text.length % 4 === 1) return undefined;
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let bits = 0;
  let buffer = 0;
  let j = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const value = code < 128 ? (DECODE[code] as number) : -1;
    if (value < 0) return undefined;
    buffer = (buffer << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[j++] = (buffer >> bits) & 0xff;
    }
  }
  return out;
}

export interface PageOk<T> {
  readonly ok: true;
  readonly items: T[];
  /** Present only when more items may follow (N-02). */
  readonly nextCursor: string | undefined;
}

export interface PageRefused {
  readonly ok: false;
  /** -32602 (N-05). */
  readonly code: number;
  readonly message: string;
  readonly data: { readonly cursor: string; readonly reason: string };
}

export interface PaginatorOptions {
  /** The sealing key; at least 16 bytes, from a cryptographic source of the host's. */
  secret: Uint8Array;
  /** Items per page. Default 50. */
  pageSize?: number;
}

const MAC_BYTES = 16;

export class Paginator {
  readonly pageSize: number;
  private readonly secret: Uint8Array;

  constructor(options: PaginatorOptions) {
    if (!(options.secret instanceof Uint8Array) || options.secret.length < 16)
      throw new RangeError("secret must be a Uint8Array of at least 16 bytes");
    const size = options.pageSize ?? 50;
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`pageSize must be a positive integer; got ${String(size)}`);
    this.secret = options.secret;
    this.pageSize = size;
  }

  /** The page of `items` that `cursor` points to (undefined: the first page) for the list named `list`. */
  page<T>(list: string, items: readonly T[], cursor: string | undefined): PageOk<T> | PageRefused {
    let offset = 0;
    if (cursor !== undefined) {
      const opened = this.open(list, cursor);
      if (typeof opened === "string")
        return { ok: false, code: ErrorCode.InvalidParams, message: "Invalid cursor", data: { cursor, reason: opened } };
      offset = opened;
    }
    const end = Math.min(offset + this.pageSize, items.length);
    return { ok: true, items: items.slice(offset, end), nextCursor: end < items.length ? this.seal(list, end) : undefined };
  }

  private seal(list: string, offset: number): string {
    const payload = encodeUtf8(JSON.stringify({ l: list, o: offset }));
    return `${base64urlEncode(payload)}.${base64urlEncode(hmacSha256(this.secret, payload).subarray(0, MAC_BYTES))}`;
  }

  /** The offset sealed in `cursor`, or the reason it is refused. */
  private open(list: string, cursor: string): number | string {
    if (typeof cursor !== "string") return "not a string";
    const dot = cursor.indexOf(".");
    const payload = dot > 0 ? base64urlDecode(cursor.slice(0, dot)) : undefined;
    const mac = dot > 0 ? base64urlDecode(cursor.slice(dot + 1)) : undefined;
    if (payload === undefined || mac === undefined) return "malformed";
    if (!constantTimeEqual(mac, hmacSha256(this.secret, payload).subarray(0, MAC_BYTES))) return "not issued by this server";
    let parsed: unknown;
    try {
      parsed = JSON.parse(decodeUtf8(payload, false));
    } catch {
      return "malformed";
    }
    const p = parsed as { l?: unknown; o?: unknown };
    if (p.l !== list) return `issued for another list`;
    if (typeof p.o !== "number" || !Number.isInteger(p.o) || p.o < 0) return "malformed";
    return p.o;
  }
}
