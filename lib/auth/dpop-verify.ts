// DPoP on the resource server (RFC 9449 4.3, 7.1, 9; RULES.md AUTH-18, AUTH-19, AUTH-20): what a
// proof must be for the request that carries it, the RFC 7638 thumbprint that binds a token to
// the proof's key, the replay cache of proof ids, and server nonces. protectedResource()
// (resource-server.ts) calls these; the signature goes through the host's Web Crypto.
//
// Invariants:
// - checkDpopProof never throws and reads a bounded input (MAX_DPOP_PROOF characters): every
//   problem is { ok: false, error, reason }, the error an RFC 9449 code, the reason ours (it
//   goes into the challenge, so it never repeats what the client sent);
// - a proof verifies only with an accepted asymmetric algorithm (never `none`, never an HMAC),
//   with the public key in its own header (a private member refuses it) of the type the
//   algorithm names, an RSA modulus of at least 2048 bits, and `typ` dpop+jwt;
// - the clock is the host's (`now`, ms): `iat` may be at most clockSkewSeconds ahead and at
//   most maxAgeSeconds (plus the skew) behind;
// - the replay cache is a Map keyed by thumbprint and jti (peer strings, never object keys),
//   holds at most maxEntries ids, each until its proof would be stale anyway, and when full of
//   live ids refuses new ones (fail closed) rather than forget one that could then be replayed;
// - nonces come from the host's randomness and clock; nothing here reads a global clock.

import { sha256 } from "../codec/sha256.js";
import { hasOwn, isJsonObject, type JsonObject } from "../wire/envelope.js";
import { accessTokenHash } from "./dpop.js";
import { base64urlDecode, base64urlEncode, parseHttpUrl, utf8 } from "./encoding.js";
import { decodeJwtPart, keyTypeOf, mediaType, supportedJwsAlgorithm, verifyWithJwk } from "./jwt.js";
import type { WebCryptoLike } from "./types.js";

/** The proof algorithms accepted unless the host names others: every asymmetric one this engine verifies. */
export const DEFAULT_DPOP_ALGORITHMS: readonly string[] = [
  "ES256",
  "ES384",
  "ES512",
  "PS256",
  "PS384",
  "PS512",
  "RS256",
  "RS384",
  "RS512",
  "EdDSA",
];

/** The longest DPoP header read (characters); a longer one is refused unread. */
export const MAX_DPOP_PROOF = 8 * 1024;
export const DEFAULT_DPOP_MAX_AGE_SECONDS = 60;
export const DEFAULT_DPOP_CLOCK_SKEW_SECONDS = 10;
export const DEFAULT_MAX_REPLAY_ENTRIES = 50_000;
const MAX_JTI = 256;
const MIN_RSA_MODULUS_BYTES = 256;
/** JWK members that hold private key material (RFC 7518 6.2.2, 6.3.2, 6.4; RFC 8037 2). */
const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

/** Where proof ids are remembered; a host running several instances plugs in a shared one. */
export interface DpopReplayCache {
  /**
   * Records `key` until `expiresAt` (host clock, ms); false when the key is already recorded
   * and unexpired (a replay), or cannot be recorded (the cache is full).
   */
  remember(key: string, expiresAt: number, now: number): boolean | Promise<boolean>;
}

/** The default replay cache: a Map bounded to `maxEntries` live ids, oldest expired ones dropped first. */
export class MemoryDpopReplayCache implements DpopReplayCache {
  readonly maxEntries: number;
  private readonly entries = new Map<string, number>();

  constructor(maxEntries: number = DEFAULT_MAX_REPLAY_ENTRIES) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw new TypeError(`maxReplayEntries must be a positive integer, got ${maxEntries}`);
    this.maxEntries = maxEntries;
  }

  get size(): number {
    return this.entries.size;
  }

  remember(key: string, expiresAt: number, now: number): boolean {
    // Ids expire in about the order they came (each lives the same window past its iat), so
    // dropping expired ones from the front keeps the sweep amortized constant.
    for (const [old, until] of this.entries) {
      if (until > now) break;
      this.entries.delete(old);
    }
    const seen = this.entries.get(key);
    if (seen !== undefined && seen > now) return false;
    if (seen === undefined && this.entries.size >= this.maxEntries) return false;
    this.entries.delete(key);
    this.entries.set(key, expiresAt);
    return true;
  }
}

/** Server-provided nonces (RFC 9449 9): the one to hand out, and which a proof may carry. */
export interface DpopNonces {
  /** The nonce to send now (DPoP-Nonce). */
  current(): string;
  /** Whether a proof's `nonce` is still good. */
  accepts(nonce: string): boolean;
}

/**
 * Nonces from the host's randomness (16 bytes each), a new one every `lifetimeSeconds`
 * (default 300) of the host's clock; the one before stays good for one more period, so a
 * client that just fetched it is not refused at the turn.
 */
export function rotatingDpopNonces(options: { crypto: WebCryptoLike; now: () => number; lifetimeSeconds?: number }): DpopNonces {
  const lifetimeMs = (options.lifetimeSeconds ?? 300) * 1000;
  if (!(lifetimeMs > 0)) throw new TypeError(`lifetimeSeconds must be positive, got ${options.lifetimeSeconds}`);
  const fresh = (): string => base64urlEncode(options.crypto.getRandomValues(new Uint8Array(16)));
  let current = "";
  let previous = "";
  let madeAt = Number.NEGATIVE_INFINITY;
  const turn = (): void => {
    const now = options.now();
    if (now - madeAt < lifetimeMs) return;
    // Two periods or more since the last turn: the old current one is stale too.
    previous = now - madeAt < 2 * lifetimeMs ? current : "";
    current = fresh();
    madeAt = now;
  };
  return {
    current() {
      turn();
      return current;
    },
    accepts(nonce) {
      turn();
      return nonce !== "" && (nonce === current || nonce === previous);
    },
  };
}

/** RFC 7638: base64url(SHA-256) of the JWK's required members in lexicographic order; undefined for a JWK that lacks them. */
export function jwkThumbprint(jwk: unknown): string | undefined {
  if (!isJsonObject(jwk)) return undefined;
  const members =
    jwk.kty === "EC"
      ? ["crv", "kty", "x", "y"]
      : jwk.kty === "RSA"
        ? ["e", "kty", "n"]
        : jwk.kty === "OKP"
          ? ["crv", "kty", "x"]
          : undefined;
  if (members === undefined) return undefined;
  const canonical: { [member: string]: string } = {};
  for (const name of members) {
    const value = jwk[name];
    if (typeof value !== "string") return undefined;
    canonical[name] = value;
  }
  // JSON.stringify keeps insertion order and writes no whitespace: the canonical form.
  return base64urlEncode(sha256(utf8(JSON.stringify(canonical))));
}

/** The `cnf.jkt` a token's claims bind it to (RFC 9449 6.1), or undefined for an unbound token. */
export function boundThumbprint(claims: { readonly [key: string]: unknown } | undefined): string | undefined {
  const cnf = claims?.cnf;
  return isJsonObject(cnf) && typeof cnf.jkt === "string" ? cnf.jkt : undefined;
}

/** How the resource server verifies proofs (protectedResource's `dpop`). */
export interface DpopOptions {
  readonly crypto: WebCryptoLike;
  /** "optional" (default): Bearer for unbound tokens, DPoP for bound ones; "required": DPoP only. */
  readonly mode?: "optional" | "required";
  /** Accepted proof algorithms (default DEFAULT_DPOP_ALGORITHMS); each must be asymmetric and supported. */
  readonly algorithms?: readonly string[];
  /** How old a proof's iat may be (default 60 s, at most 3600). */
  readonly maxAgeSeconds?: number;
  /** How far ahead of the host clock a proof's iat may be, and the tolerance behind (default 10 s, at most 300). */
  readonly clockSkewSeconds?: number;
  /** Where proof ids are remembered (default a MemoryDpopReplayCache of maxReplayEntries). */
  readonly replayCache?: DpopReplayCache;
  /** The bound of the default replay cache (default 50 000). */
  readonly maxReplayEntries?: number;
  /** Server nonces: when given, every proof must carry one they accept (use_dpop_nonce otherwise). */
  readonly nonces?: DpopNonces;
}

/** DpopOptions with defaults applied and checked. */
export interface DpopSettings {
  readonly crypto: WebCryptoLike;
  readonly required: boolean;
  readonly algorithms: readonly string[];
  readonly maxAgeSeconds: number;
  readonly clockSkewSeconds: number;
  readonly replay: DpopReplayCache;
  readonly nonces: DpopNonces | undefined;
}

/** Applies defaults; a configuration that cannot be right (an unsupported algorithm, a window out of range) is a TypeError. */
export function dpopSettings(options: DpopOptions): DpopSettings {
  const algorithms = options.algorithms ?? DEFAULT_DPOP_ALGORITHMS;
  if (algorithms.length === 0) throw new TypeError("dpop.algorithms: at least one algorithm is needed");
  for (const alg of algorithms)
    if (!supportedJwsAlgorithm(alg))
      throw new TypeError(`dpop.algorithms: ${JSON.stringify(alg)} is not an asymmetric algorithm this engine verifies`);
  const within = (name: string, value: number | undefined, fallback: number, max: number): number => {
    const v = value ?? fallback;
    if (!Number.isFinite(v) || v < 0 || v > max) throw new TypeError(`dpop.${name} must be between 0 and ${max}, got ${v}`);
    return v;
  };
  return {
    crypto: options.crypto,
    required: options.mode === "required",
    algorithms: [...algorithms],
    maxAgeSeconds: within("maxAgeSeconds", options.maxAgeSeconds, DEFAULT_DPOP_MAX_AGE_SECONDS, 3600),
    clockSkewSeconds: within("clockSkewSeconds", options.clockSkewSeconds, DEFAULT_DPOP_CLOCK_SKEW_SECONDS, 300),
    replay: options.replayCache ?? new MemoryDpopReplayCache(options.maxReplayEntries),
    nonces: options.nonces,
  };
}

/** What the request says that the proof must match. */
export interface DpopExpectation {
  /** The request's method; undefined when the host did not say, which no proof matches. */
  readonly method: string | undefined;
  /** The absolute URL of the request (query and fragment ignored). */
  readonly url: string;
  readonly accessToken: string;
  /** Host clock, ms. */
  readonly now: number;
}

export type DpopProofCheck =
  | {
      readonly ok: true;
      /** The RFC 7638 thumbprint of the proof's key, for the token's cnf.jkt. */
      readonly thumbprint: string;
      /** The replay cache key (thumbprint and jti) and until when it must be kept (ms). */
      readonly replayKey: string;
      readonly replayUntil: number;
    }
  | { readonly ok: false; readonly error: "invalid_dpop_proof" | "use_dpop_nonce"; readonly reason: string };

/** Scheme, authority and path of an http(s) URL, with RFC 3986 6.2.2 normalization; query and fragment dropped. */
function comparableTarget(url: string): string | undefined {
  const parsed = parseHttpUrl(url);
  if (parsed === undefined) return undefined;
  const path = (parsed.path === "" ? "/" : parsed.path).replace(/%[0-9a-fA-F]{2}/g, (escape) => {
    const c = String.fromCharCode(Number.parseInt(escape.slice(1), 16));
    return /[A-Za-z0-9\-._~]/.test(c) ? c : escape.toUpperCase();
  });
  return `${parsed.scheme}://${parsed.authority}${path}`;
}

/** Why the header's key cannot verify a proof of `alg`, or undefined. */
function keyProblem(jwk: unknown, alg: string): string | undefined {
  if (!isJsonObject(jwk)) return "the header has no jwk";
  for (const member of PRIVATE_MEMBERS) if (hasOwn(jwk, member)) return "the jwk holds private key material";
  const wanted = keyTypeOf(alg);
  if (wanted === undefined || jwk.kty !== wanted.kty || (wanted.crv !== undefined && jwk.crv !== wanted.crv))
    return `the jwk is not a ${wanted?.kty ?? "usable"} key${wanted?.crv !== undefined ? ` on ${wanted.crv}` : ""} for ${alg}`;
  if (jwk.kty === "RSA") {
    const modulus = typeof jwk.n === "string" ? base64urlDecode(jwk.n) : undefined;
    const bytes = modulus === undefined ? 0 : modulus.length - (modulus[0] === 0 ? 1 : 0);
    if (bytes < MIN_RSA_MODULUS_BYTES) return "the RSA key is shorter than 2048 bits";
  }
  return undefined;
}

/**
 * AUTH-19: checks one DPoP proof against the request and the token it accompanies (RFC 9449
 * 4.3): shape, typ, alg, key, signature, htm, htu, iat, ath and nonce. The replay cache and the
 * token's binding are the caller's next steps (they need the verified token first).
 */
export async function checkDpopProof(proof: string, expect: DpopExpectation, settings: DpopSettings): Promise<DpopProofCheck> {
  const refuse = (reason: string): DpopProofCheck => ({ ok: false, error: "invalid_dpop_proof", reason });
  if (proof.length > MAX_DPOP_PROOF) return refuse(`the proof is longer than ${MAX_DPOP_PROOF} characters`);
  const parts = proof.split(".");
  if (parts.length !== 3) return refuse("the proof is not a compact JWS (three parts)");
  const [h, p, s] = parts as [string, string, string];
  const header = decodeJwtPart(h);
  const claims = decodeJwtPart(p);
  const signature = base64urlDecode(s);
  if (header === undefined || claims === undefined || signature === undefined) return refuse("a part of the proof is not base64url JSON");
  if (typeof header.typ !== "string" || mediaType(header.typ) !== "dpop+jwt") return refuse("typ is not dpop+jwt");
  const alg = header.alg;
  if (typeof alg !== "string" || !settings.algorithms.includes(alg)) return refuse(`alg is not one of ${settings.algorithms.join(", ")}`);
  if (hasOwn(header, "crit")) return refuse("crit names an extension this verifier does not understand");
  const badKey = keyProblem(header.jwk, alg);
  if (badKey !== undefined) return refuse(badKey);
  const jwk = header.jwk as JsonObject;
  const { jti, htm, htu, iat } = claims;
  if (typeof jti !== "string" || jti === "" || jti.length > MAX_JTI) return refuse(`jti is not a string of 1 to ${MAX_JTI} characters`);
  if (typeof htm !== "string" || typeof htu !== "string") return refuse("htm or htu is missing");
  if (typeof iat !== "number" || !Number.isFinite(iat)) return refuse("iat is not a NumericDate");
  if (expect.method === undefined || htm !== expect.method) return refuse("htm is not the request's method");
  const target = comparableTarget(expect.url);
  if (target === undefined || comparableTarget(htu) !== target) return refuse("htu is not the request's URL");
  const nowSeconds = expect.now / 1000;
  if (iat > nowSeconds + settings.clockSkewSeconds) return refuse("iat is in the future");
  if (iat < nowSeconds - settings.maxAgeSeconds - settings.clockSkewSeconds) return refuse(`iat is older than ${settings.maxAgeSeconds} s`);
  if (claims.ath !== accessTokenHash(expect.accessToken)) return refuse("ath is not the hash of the access token");
  // The checks above cost nothing; the signature is checked only for a proof that could pass them.
  if (!(await verifyWithJwk(settings.crypto, alg, jwk, signature, `${h}.${p}`)))
    return refuse("the signature does not verify with the proof's jwk");
  const nonces = settings.nonces;
  if (nonces !== undefined && (typeof claims.nonce !== "string" || !nonces.accepts(claims.nonce)))
    return { ok: false, error: "use_dpop_nonce", reason: "the resource server requires a nonce in the DPoP proof" };
  const thumbprint = jwkThumbprint(jwk);
  if (thumbprint === undefined) return refuse("the jwk lacks the members of its thumbprint");
  return {
    ok: true,
    thumbprint,
    replayKey: `${thumbprint} ${jti}`,
    replayUntil: (iat + settings.maxAgeSeconds + settings.clockSkewSeconds) * 1000,
  };
}
