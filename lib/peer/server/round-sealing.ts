// The seal of the requestState that carries input rounds (2026-07-28, MOD-10) and ctx.once
// values between them: `new Server({ ..., inputRounds: sealedRounds({ secret }) })`. A
// Server reaches the hashing only through the RoundSealer it is given, so an application
// that never calls sealedRounds bundles no SHA-256 (round-state.ts carries the answers
// unsealed then, and ctx.once under 2026-07-28 rejects, saying what to configure).
//
// A sealed state is base64url(body) "." base64url(HMAC-SHA-256(secret, body)), the body
// holding the payload, an expiry and the request's binding (request-state.ts's layout): the
// method, the tool / prompt / resource, a digest of the arguments and the principal, so a
// client can neither forge a value nor replay one on another request.
//
// Invariants: the options are checked where sealedRounds is called; opening never throws;
// the MAC is compared in constant time; nothing here reads a clock (`now` is the host's).

import type { JsonObject } from "../../wire/envelope.js";
import { encodeUtf8 } from "../../wire/utf8.js";
import { constantTimeEqual, hmacSha256, sha256 } from "../../codec/sha256.js";
import { base64urlEncode } from "../../codec/pagination.js";
import { readStateBody, splitToken, stateBody, type OpenedState } from "./request-state.js";

/** The options of sealedRounds. */
export interface InputRoundsOptions {
  /** At least 32 bytes from a cryptographic source of the host's. */
  readonly secret: Uint8Array;
  /** How long a round's state stays valid, in the unit of the host's now() (ms). Default 10 minutes. */
  readonly ttlMs?: number;
}

/** What sealedRounds returns, for ServerOptions.inputRounds. */
export interface RoundSealer {
  /** How long a sealed state stays valid (ms). */
  readonly ttlMs: number;
  /** @internal What a request is: the state of one request must not open on another (a different tool, arguments or principal). */
  bind(method: string, params: JsonObject, principal: string | undefined): string;
  /** @internal The token of `payload` for the request `binding` names, valid until `expiresAt`. */
  seal(payload: unknown, binding: string, expiresAt: number): string;
  /** @internal The payload of a token, or why it is refused. Never throws. */
  open(token: string, binding: string, now: number): OpenedState<unknown>;
}

const DEFAULT_TTL_MS = 600_000;

/**
 * Seals the requestState of ctx.elicit / createMessage / listRoots rounds, which carries
 * ctx.once values (and so enables ctx.once under 2026-07-28). Throws a RangeError for a
 * secret shorter than 32 bytes or a ttlMs that is not positive.
 */
export function sealedRounds(options: InputRoundsOptions): RoundSealer {
  const secret = options?.secret;
  if (!(secret instanceof Uint8Array) || secret.length < 32) {
    throw new RangeError(
      `sealedRounds: expected a secret of at least 32 bytes (a Uint8Array), got ${secret instanceof Uint8Array ? `${secret.length} bytes` : typeof secret}`,
    );
  }
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  if (!(ttlMs > 0)) throw new RangeError(`sealedRounds: expected a positive ttlMs, got ${String(options.ttlMs)}`);
  return {
    ttlMs,
    bind: roundBinding,
    seal: (payload, binding, expiresAt) => {
      const body = stateBody(payload, binding, expiresAt);
      return `${base64urlEncode(body)}.${base64urlEncode(hmacSha256(secret, body))}`;
    },
    open: (token, binding, now) => {
      const parts = splitToken(token);
      if (parts === undefined) return { ok: false, reason: "malformed" };
      if (!constantTimeEqual(hmacSha256(secret, parts.body), parts.mac)) return { ok: false, reason: "tampered" };
      return readStateBody<unknown>(parts.body, binding, now);
    },
  };
}

/** The binding of a request (RoundSealer.bind): its method, target, principal and a digest of its arguments. */
export function roundBinding(method: string, params: JsonObject, principal: string | undefined): string {
  const target = typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : "";
  const digest = base64urlEncode(sha256(encodeUtf8(canonicalJson(params.arguments))));
  return JSON.stringify([method, target, principal ?? "", digest]);
}

/** JSON with object keys sorted, so that the same arguments bind the same, whatever order a client sends their keys in. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as { [key: string]: unknown })[k])}`).join(",")}}`;
  }
  return value === undefined ? "null" : JSON.stringify(value);
}
