// DPoP (RFC 9449, MCP extension SEP-1932; RULES.md AUTH-13): the proof JWT a client sends with each token
// request and each request that presents a DPoP-bound access token. Building the signing
// input is pure; the signature is Web Crypto's (jwt.ts signJws), done by the host's driver.
//
// Invariants:
// - htu is the request URL without query and fragment (RFC 9449 4.2); htm its method;
// - every proof has its own jti (random bytes from the caller) and iat (the caller's clock);
// - `ath` is base64url(SHA-256(ASCII access token)) (RFC 9449 4.2), with the core's SHA-256;
// - the embedded jwk is public only: a `d` member is stripped, whatever the caller passed.

import { sha256 } from "../codec/sha256.js";
import { base64urlEncode, utf8 } from "./encoding.js";

/** The JWS algorithm of the DPoP key the drivers generate (P-256). */
export const DPOP_ALG = "ES256";

export interface DpopProofClaims {
  readonly method: string;
  readonly url: string;
  /** Seconds since the epoch. */
  readonly iat: number;
  readonly jti: string;
  /** The server's DPoP-Nonce, when it demanded one. */
  readonly nonce?: string;
  /** The access token the proof accompanies (resource requests). */
  readonly accessToken?: string;
}

/** The access token hash of a proof (`ath`). */
export function accessTokenHash(token: string): string {
  return base64urlEncode(sha256(utf8(token)));
}

/** The `htu` of a request URL: without query and fragment. */
export function proofTarget(url: string): string {
  const cut = url.search(/[?#]/);
  return cut >= 0 ? url.slice(0, cut) : url;
}

/** header.payload of a DPoP proof for `jwk` (a public JWK of `alg`), to be signed. */
export function dpopSigningInput(jwk: { readonly [key: string]: unknown }, alg: string, claims: DpopProofClaims): string {
  const { d: _private, ...publicJwk } = jwk;
  const header = { typ: "dpop+jwt", alg, jwk: publicJwk };
  const payload: { [key: string]: unknown } = { jti: claims.jti, htm: claims.method, htu: proofTarget(claims.url), iat: claims.iat };
  if (claims.nonce !== undefined) payload.nonce = claims.nonce;
  if (claims.accessToken !== undefined) payload.ath = accessTokenHash(claims.accessToken);
  return `${base64urlEncode(utf8(JSON.stringify(header)))}.${base64urlEncode(utf8(JSON.stringify(payload)))}`;
}
