// JSON Web Tokens through an injected Web Crypto: signing client assertions (private_key_jwt,
// RFC 7523; RULES.md AUTH-12) and verifying JWT access tokens (RFC 9068; AUTH-14) against a JWKS
// the host fetched.
// The Promises here are Web Crypto's own (importKey, sign and verify are asynchronous);
// nothing else in lib/auth is asynchronous except what awaits these.
//
// Invariants:
// - algorithms: RS256/384/512, PS256/384/512, ES256/384/512, EdDSA (Ed25519, where the runtime
//   has it); "none" and anything else are refused, and a key is used only with the algorithm
//   its JWK allows (kty, crv, alg) — no algorithm confusion;
// - the clock is an input (`now`, ms); exp and nbf are checked with a bounded tolerance, and
//   exp, nbf and iat must be NumericDates (JSON numbers) when present (RFC 7519 4.1.4-4.1.6);
// - a header naming extensions in `crit` that this verifier does not understand is refused
//   (RFC 7515 4.1.11): it understands none unless the host lists them in `criticalHeaders`;
// - `typ` is checked when the host names the accepted types; an access-token verifier asks
//   for `at+jwt` (RFC 9068 2.1) unless told that its issuer writes something else;
// - verification never throws: a malformed token, an unusable key, a runtime without the
//   algorithm all answer { ok: false, reason }.

import { hasOwn, isJsonObject, type JsonObject } from "../wire/envelope.js";
import { decodeUtf8 } from "../wire/utf8.js";
import { base64Decode, base64urlDecode, base64urlEncode, utf8 } from "./encoding.js";
import type { AuthInfo, WebCryptoLike } from "./types.js";

interface AlgParams {
  readonly kty: "RSA" | "EC" | "OKP";
  readonly crv?: string;
  readonly importParams: unknown;
  readonly signParams: unknown;
}

function algParams(alg: string): AlgParams | undefined {
  const hashOf = (bits: string): string => `SHA-${bits}`;
  const m = /^(RS|PS|ES)(256|384|512)$/.exec(alg);
  if (m !== null) {
    const [, family, bits] = m as unknown as [string, string, string];
    const hash = hashOf(bits);
    if (family === "RS")
      return { kty: "RSA", importParams: { name: "RSASSA-PKCS1-v1_5", hash }, signParams: { name: "RSASSA-PKCS1-v1_5" } };
    if (family === "PS")
      return { kty: "RSA", importParams: { name: "RSA-PSS", hash }, signParams: { name: "RSA-PSS", saltLength: Number(bits) / 8 } };
    const crv = bits === "512" ? "P-521" : `P-${bits}`;
    return { kty: "EC", crv, importParams: { name: "ECDSA", namedCurve: crv }, signParams: { name: "ECDSA", hash } };
  }
  if (alg === "EdDSA" || alg === "Ed25519")
    return { kty: "OKP", crv: "Ed25519", importParams: { name: "Ed25519" }, signParams: { name: "Ed25519" } };
  return undefined;
}

/** Imports a PKCS#8 PEM private key ("-----BEGIN PRIVATE KEY-----") for signing with `alg`. */
export async function importPrivateKeyPem(crypto: WebCryptoLike, pem: string, alg: string): Promise<unknown> {
  const params = algParams(alg);
  if (params === undefined) throw new Error(`private_key_jwt: unsupported algorithm ${alg}`);
  const body = pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, "").replace(/\s+/g, "");
  const der = base64Decode(body);
  if (der === undefined || der.length === 0)
    throw new Error("private_key_jwt: the key is not PEM (base64 between BEGIN/END PRIVATE KEY lines)");
  return crypto.subtle.importKey("pkcs8", der, params.importParams, false, ["sign"]);
}

/** The base64url JWS signature of `signingInput` (ECDSA signatures come raw r||s from Web Crypto, as JWS wants). */
export async function signJws(crypto: WebCryptoLike, key: unknown, alg: string, signingInput: string): Promise<string> {
  const params = algParams(alg);
  if (params === undefined) throw new Error(`unsupported JWS algorithm ${alg}`);
  const signature = await crypto.subtle.sign(params.signParams, key, utf8(signingInput));
  return base64urlEncode(new Uint8Array(signature));
}

/** A whole compact JWS over `claims` (tests and hosts that mint tokens). */
export async function signJwt(
  crypto: WebCryptoLike,
  key: unknown,
  alg: string,
  claims: JsonObject,
  header: JsonObject = {},
): Promise<string> {
  const input = `${base64urlEncode(utf8(JSON.stringify({ ...header, alg })))}.${base64urlEncode(utf8(JSON.stringify(claims)))}`;
  return `${input}.${await signJws(crypto, key, alg, input)}`;
}

/** Whether `alg` is one this module signs and verifies with (asymmetric only: never `none`, never an HMAC). */
export function supportedJwsAlgorithm(alg: string): boolean {
  return algParams(alg) !== undefined;
}

/** The key type and curve a JWK must have to be used with `alg` (no algorithm confusion), or undefined for an unsupported alg. */
export function keyTypeOf(alg: string): { readonly kty: string; readonly crv?: string } | undefined {
  const params = algParams(alg);
  return params === undefined ? undefined : { kty: params.kty, ...(params.crv !== undefined ? { crv: params.crv } : {}) };
}

/**
 * Whether `signature` over `signingInput` verifies with the public half of `jwk` under `alg`.
 * Never throws: a key the runtime cannot import, or an algorithm it lacks, is false. A private
 * member (`d`) is dropped before import, so only a public key is ever made.
 */
export async function verifyWithJwk(
  crypto: WebCryptoLike,
  alg: string,
  jwk: JsonObject,
  signature: Uint8Array,
  signingInput: string,
): Promise<boolean> {
  const params = algParams(alg);
  if (params === undefined) return false;
  try {
    const { d: _private, ...publicJwk } = jwk;
    const key = await crypto.subtle.importKey("jwk", publicJwk, params.importParams, false, ["verify"]);
    return await crypto.subtle.verify(params.signParams, key, signature, utf8(signingInput));
  } catch {
    return false;
  }
}

export interface JwtVerifyOptions {
  readonly crypto: WebCryptoLike;
  /** The JWKS ({ keys: [...] }) of the token issuer, as the host fetched it. */
  readonly jwks: unknown;
  /** Host clock, ms since the epoch. */
  readonly now: number;
  /** Required `iss`. */
  readonly issuer?: string;
  /** Required in `aud` (one of them). */
  readonly audience?: string | readonly string[];
  /** Accepted algorithms; default: all supported. */
  readonly algorithms?: readonly string[];
  /** Seconds of tolerance on exp/nbf (default 30, at most 300). */
  readonly clockToleranceSeconds?: number;
  /** Accepted values of the `typ` header, compared case-blind with an `application/` prefix ignored; undefined: any or none. */
  readonly types?: readonly string[];
  /** Header parameters this host understands when a token lists them in `crit`; default none, so any `crit` is refused. */
  readonly criticalHeaders?: readonly string[];
}

export type JwtVerifyResult = { ok: true; header: JsonObject; claims: JsonObject } | { ok: false; reason: string };

const MAX_TOKEN = 16 * 1024;

/** A base64url part of a compact JWS as a JSON object; undefined for anything else (never throws). */
export function decodeJwtPart(part: string): JsonObject | undefined {
  const bytes = base64urlDecode(part);
  if (bytes === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(decodeUtf8(bytes, true));
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The `typ` value as RFC 7515 4.1.9 compares media types: case-blind, `application/` omitted. */
export function mediaType(value: string): string {
  const lower = value.toLowerCase();
  return lower.startsWith("application/") ? lower.slice("application/".length) : lower;
}

/** Header parameters RFC 7515 registers; `crit` may not name them (4.1.11). */
const REGISTERED_HEADERS: ReadonlySet<string> = new Set([
  "alg",
  "jku",
  "jwk",
  "kid",
  "x5u",
  "x5c",
  "x5t",
  "x5t#S256",
  "typ",
  "cty",
  "crit",
]);

/** Why a header's `crit` and `typ` are refused (RFC 7515 4.1.11, 4.1.9), or undefined. */
function headerProblem(header: JsonObject, options: JwtVerifyOptions): string | undefined {
  if (hasOwn(header, "crit")) {
    const crit = header.crit;
    if (!Array.isArray(crit) || crit.length === 0) return "crit is not a non-empty array of names";
    const understood = options.criticalHeaders ?? [];
    const seen = new Set<string>();
    for (const name of crit) {
      if (typeof name !== "string" || name === "" || REGISTERED_HEADERS.has(name) || seen.has(name)) return "crit is malformed";
      seen.add(name);
      if (!understood.includes(name) || !hasOwn(header, name)) return "crit names an extension this verifier does not understand";
    }
  }
  if (options.types !== undefined) {
    const typ = header.typ;
    if (typeof typ !== "string" || !options.types.some((t) => mediaType(t) === mediaType(typ)))
      return `typ is not one of ${options.types.join(", ")}`;
  }
  return undefined;
}

/** Why a registered date claim is not a NumericDate (RFC 7519 2, 4.1.4-4.1.6), or undefined. */
function dateProblem(claims: JsonObject): string | undefined {
  for (const name of ["exp", "nbf", "iat"]) {
    if (hasOwn(claims, name) && (typeof claims[name] !== "number" || !Number.isFinite(claims[name]))) return `${name} is not a NumericDate`;
  }
  return undefined;
}

/** AUTH-14: verifies a compact JWS (an accepted algorithm, the key its kid names) and its registered claims (exp, nbf, iss, aud). */
export async function verifyJwt(token: string, options: JwtVerifyOptions): Promise<JwtVerifyResult> {
  if (typeof token !== "string" || token.length > MAX_TOKEN) return { ok: false, reason: "not a token of bounded size" };
  const parts = token.split(".");
  if (parts.length !== 3) return { ok: false, reason: "not a compact JWS (three parts)" };
  const [h, p, s] = parts as [string, string, string];
  const header = decodeJwtPart(h);
  const claims = decodeJwtPart(p);
  const signature = base64urlDecode(s);
  if (header === undefined || claims === undefined || signature === undefined) return { ok: false, reason: "a part is not base64url JSON" };
  const alg = header.alg;
  if (typeof alg !== "string" || (options.algorithms !== undefined && !options.algorithms.includes(alg)))
    return { ok: false, reason: "alg not accepted" };
  const params = algParams(alg);
  if (params === undefined) return { ok: false, reason: `alg ${alg.slice(0, 20)} not supported` };
  const refused = headerProblem(header, options);
  if (refused !== undefined) return { ok: false, reason: refused };
  const keys = isJsonObject(options.jwks) && Array.isArray(options.jwks.keys) ? options.jwks.keys.filter(isJsonObject) : [];
  const kid = typeof header.kid === "string" ? header.kid : undefined;
  const candidates = keys.filter(
    (k) =>
      k.kty === params.kty &&
      (params.crv === undefined || k.crv === params.crv) &&
      (k.alg === undefined || k.alg === alg || (params.kty === "OKP" && (k.alg === "EdDSA" || k.alg === "Ed25519"))) &&
      (k.use === undefined || k.use === "sig") &&
      (kid === undefined || k.kid === kid),
  );
  if (candidates.length === 0)
    return { ok: false, reason: kid === undefined ? "no key of the JWKS fits the algorithm" : "no key of the JWKS has that kid" };
  let verified = false;
  for (const jwk of candidates.slice(0, 8)) {
    if (await verifyWithJwk(options.crypto, alg, jwk, signature, `${h}.${p}`)) {
      verified = true;
      break;
    }
  }
  if (!verified) return { ok: false, reason: "signature does not verify" };
  const notDate = dateProblem(claims);
  if (notDate !== undefined) return { ok: false, reason: notDate };
  const tolerance = Math.min(Math.max(options.clockToleranceSeconds ?? 30, 0), 300);
  const nowSec = options.now / 1000;
  if (typeof claims.exp !== "number" || claims.exp + tolerance <= nowSec)
    return { ok: false, reason: typeof claims.exp !== "number" ? "no exp" : "expired" };
  if (typeof claims.nbf === "number" && claims.nbf - tolerance > nowSec) return { ok: false, reason: "not yet valid (nbf)" };
  if (options.issuer !== undefined && claims.iss !== options.issuer) return { ok: false, reason: "iss is not the expected issuer" };
  if (options.audience !== undefined) {
    const wanted = typeof options.audience === "string" ? [options.audience] : options.audience;
    const aud =
      typeof claims.aud === "string"
        ? [claims.aud]
        : Array.isArray(claims.aud)
          ? claims.aud.filter((a): a is string => typeof a === "string")
          : [];
    if (!aud.some((a) => wanted.includes(a))) return { ok: false, reason: "aud does not name this resource" };
  }
  return { ok: true, header, claims };
}

/** The `typ` an access token must carry (RFC 9068 2.1) unless the verifier is told otherwise. */
export const ACCESS_TOKEN_TYPES: readonly string[] = ["at+jwt"];

/**
 * A verifier for JWT access tokens (RFC 9068) for protectedResource(): the verified claims as
 * AuthInfo (scope from `scope` or `scp`), or undefined for an invalid token. `now` is called
 * once per token (the host's clock); the JWKS is a value or a function returning the current one.
 * The token's `typ` must be `at+jwt` unless `types` names others (e.g. `["at+jwt", "JWT"]` for an
 * issuer that writes `JWT`).
 */
export function jwtAccessTokenVerifier(
  options: Omit<JwtVerifyOptions, "now" | "jwks"> & { now: () => number; jwks: unknown | (() => unknown) },
): (token: string) => Promise<AuthInfo | undefined> {
  return async (token) => {
    const jwks = typeof options.jwks === "function" ? (options.jwks as () => unknown)() : options.jwks;
    const result = await verifyJwt(token, { ...options, jwks, now: options.now(), types: options.types ?? ACCESS_TOKEN_TYPES });
    if (!result.ok) return undefined;
    const c = result.claims;
    const scopes =
      typeof c.scope === "string"
        ? c.scope.split(" ").filter((x) => x !== "")
        : Array.isArray(c.scp)
          ? c.scp.filter((x): x is string => typeof x === "string")
          : [];
    const audience =
      typeof c.aud === "string" ? [c.aud] : Array.isArray(c.aud) ? c.aud.filter((a): a is string => typeof a === "string") : undefined;
    return {
      token,
      scopes,
      ...(typeof c.client_id === "string" ? { clientId: c.client_id } : {}),
      ...(typeof c.sub === "string" ? { subject: c.sub } : {}),
      ...(audience !== undefined ? { audience } : {}),
      ...(typeof c.exp === "number" ? { expiresAt: c.exp * 1000 } : {}),
      claims: c,
    };
  };
}
