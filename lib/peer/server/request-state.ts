// Sealing the opaque `requestState` of input_required results (2026-07-28 multi round-trip
// requests, MOD-10). The client echoes the state back untouched; it is attacker-controlled
// input, so a server seals it: HMAC-SHA-256 through Web Crypto over the payload, an expiry,
// and a binding to the request it belongs to (method, target, principal), and refuses any
// state that was tampered with, has expired, or is replayed on another request.
//
// Invariants: verification is constant-time (Web Crypto's verify); time comes from the
// caller (`now`), never from a clock here; nothing is stored: every check is on the token.

import { base64urlDecode, base64urlEncode } from "../../codec/pagination.js";
import type { BufferSourceLike } from "../../auth/types.js";
import { decodeUtf8, encodeUtf8 } from "../../wire/utf8.js";

/**
 * The part of Web Crypto this helper uses, declared by shape (the portable layers have no DOM
 * types); the platform's crypto.subtle fits under the DOM types and @types/node (bytes are
 * BufferSourceLike for that reason: auth/types.ts).
 */
export interface SubtleCryptoLike {
  importKey(
    format: "raw",
    keyData: BufferSourceLike,
    algorithm: { name: "HMAC"; hash: "SHA-256" },
    extractable: false,
    usages: Array<"sign" | "verify">,
  ): Promise<unknown>;
  sign(algorithm: "HMAC", key: unknown, data: BufferSourceLike): Promise<ArrayBuffer>;
  verify(algorithm: "HMAC", key: unknown, signature: BufferSourceLike, data: BufferSourceLike): Promise<boolean>;
}

export interface RequestStateOptions {
  /** At least 32 bytes from a cryptographic source of the host's. */
  secret: Uint8Array;
  /** How long a sealed state stays valid, in the unit of `now` (ms by convention). Default 10 minutes. */
  ttlMs?: number;
  /** Web Crypto's SubtleCrypto; default globalThis.crypto.subtle. */
  subtle?: SubtleCryptoLike;
}

export type OpenedState<T> =
  | { readonly ok: true; readonly payload: T }
  | { readonly ok: false; readonly reason: "malformed" | "tampered" | "expired" | "other-request" };

function defaultSubtle(): SubtleCryptoLike {
  const subtle = (globalThis as { crypto?: { subtle?: SubtleCryptoLike } }).crypto?.subtle;
  if (subtle === undefined) throw new Error("Web Crypto (crypto.subtle) is not available; pass options.subtle");
  return subtle;
}

/** Seals and opens requestState tokens bound to one request each. */
export class RequestStateSealer {
  readonly ttlMs: number;
  private readonly subtle: SubtleCryptoLike;
  private readonly key: Promise<unknown>;

  constructor(options: RequestStateOptions) {
    if (!(options.secret instanceof Uint8Array) || options.secret.length < 32)
      throw new RangeError("secret must be a Uint8Array of at least 32 bytes");
    const ttl = options.ttlMs ?? 600_000;
    if (!(ttl > 0)) throw new RangeError(`ttlMs must be positive; got ${String(ttl)}`);
    this.ttlMs = ttl;
    this.subtle = options.subtle ?? defaultSubtle();
    this.key = this.subtle.importKey("raw", options.secret, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
  }

  /**
   * Seals `payload` (any JSON value) for the request described by `binding` — e.g.
   * `tools/call:deploy:user-42`: method, target and authenticated principal.
   */
  async seal(payload: unknown, binding: string, now: number): Promise<string> {
    const body = stateBody(payload, binding, now + this.ttlMs);
    const mac = new Uint8Array(await this.subtle.sign("HMAC", await this.key, body));
    return `${base64urlEncode(body)}.${base64urlEncode(mac)}`;
  }

  /** Opens a token for the request described by `binding`; refuses tampered, expired and replayed-elsewhere ones. */
  async open<T = unknown>(token: unknown, binding: string, now: number): Promise<OpenedState<T>> {
    const parts = splitToken(token);
    if (parts === undefined) return { ok: false, reason: "malformed" };
    if (!(await this.subtle.verify("HMAC", await this.key, parts.mac, parts.body))) return { ok: false, reason: "tampered" };
    return readStateBody<T>(parts.body, binding, now);
  }
}

// The token format, shared with the synchronous sealing of input rounds (round-state.ts):
// base64url(body) "." base64url(HMAC-SHA-256 of body), body = JSON {v: 1, b: binding, e: expiry, p: payload}.

/** @internal The bytes a token's MAC covers. */
export function stateBody(payload: unknown, binding: string, expiresAt: number): Uint8Array {
  return encodeUtf8(JSON.stringify({ v: 1, b: binding, e: expiresAt, p: payload }));
}

/** @internal A token's body and 32-byte MAC, or undefined when it is not shaped like one. */
export function splitToken(token: unknown): { readonly body: Uint8Array; readonly mac: Uint8Array } | undefined {
  if (typeof token !== "string") return undefined;
  const dot = token.indexOf(".");
  const body = dot > 0 ? base64urlDecode(token.slice(0, dot)) : undefined;
  const mac = dot > 0 ? base64urlDecode(token.slice(dot + 1)) : undefined;
  if (body === undefined || mac === undefined || mac.length !== 32) return undefined;
  return { body, mac };
}

/** @internal A body whose MAC was verified: its payload, or why it does not apply to this request now. */
export function readStateBody<T>(body: Uint8Array, binding: string, now: number): OpenedState<T> {
  let sealed: { v?: unknown; b?: unknown; e?: unknown; p?: unknown };
  try {
    sealed = JSON.parse(decodeUtf8(body, false)) as typeof sealed;
  } catch {
    return { ok: false, reason: "malformed" };
  }
  if (typeof sealed !== "object" || sealed === null || sealed.v !== 1 || typeof sealed.e !== "number" || typeof sealed.b !== "string")
    return { ok: false, reason: "malformed" };
  if (now >= sealed.e) return { ok: false, reason: "expired" };
  if (sealed.b !== binding) return { ok: false, reason: "other-request" };
  return { ok: true, payload: sealed.p as T };
}
