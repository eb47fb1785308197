// The resource server half of MCP authorization: what a protected MCP server publishes
// (protected resource metadata, RFC 9728; RULES.md AUTH-01) and how it answers a request's
// credentials (RFC 6750; AUTH-05): 401 with a Bearer challenge naming the metadata URL and
// scopes when the token is missing or invalid, 403 insufficient_scope when it lacks scopes,
// and the verified AuthInfo otherwise. A host calls authenticate() before any MCP handling and
// passes AuthInfo on to handlers (ctx.auth). authenticate() is asynchronous only because
// verifiers are (Web Crypto).
//
// Invariants:
// - a token is read only from the Authorization header; one in the query string is refused
//   (RFC 6750 2.3 is not supported: URLs end up in logs), as is a form body (never read);
// - a token whose AuthInfo names audiences must name this resource (RFC 8707, MCP "token
//   audience validation"); an expired one (expiresAt before the host clock) is invalid;
// - a verifier that throws is an invalid token, never a crash; what the client sent is never
//   echoed into the challenge;
// - a token bound to a DPoP key (`cnf.jkt`) is refused as Bearer, with or without `dpop`
//   configured (RFC 9449 7.2; AUTH-18); with `dpop`, a DPoP token needs exactly one valid proof
//   for this request, signed by the key it is bound to, never seen before (AUTH-19, AUTH-20),
//   and a refusal names the scheme and the proof algorithms (AUTH-21).

import type { JsonObject } from "../wire/envelope.js";
import { type ChallengeParams, formatBearerChallenge, formatDpopChallenge } from "./challenge.js";
import { boundThumbprint, checkDpopProof, type DpopOptions, type DpopProofCheck, dpopSettings } from "./dpop-verify.js";
import { originOf, parseHttpUrl, parseQuery } from "./encoding.js";
import { protectedResourceDocument, protectedResourceMetadataPath } from "./metadata.js";
import type { AuthInfo } from "./types.js";

export interface ProtectedResourceOptions {
  /** This server's canonical URI, e.g. https://mcp.example.com/mcp (the audience tokens must name). */
  readonly resource: string;
  readonly authorizationServers: readonly string[];
  readonly scopesSupported?: readonly string[];
  /** Scopes every request needs (default: none beyond a valid token). */
  readonly requiredScopes?: readonly string[];
  /** Checks a bearer token; undefined (or a throw) means invalid. jwtAccessTokenVerifier() builds one for JWTs. */
  readonly verify: (token: string) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
  readonly resourceName?: string;
  /** Where the metadata is served (default: the resource's origin + the path-inserted well-known path). */
  readonly metadataUrl?: string;
  /** The host clock (ms), to refuse tokens past expiresAt; without it expiry is the verifier's business. Needed with `dpop`. */
  readonly now?: () => number;
  /**
   * DPoP-bound tokens (RFC 9449): the Authorization scheme DPoP with a proof per request,
   * checked here. Without it a DPoP token is refused (and a DPoP-bound one as Bearer always is).
   */
  readonly dpop?: DpopOptions;
}

/** An HTTP answer a host writes as is. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: { readonly [name: string]: string };
  readonly body: string;
}

/** A request as authenticate() reads it: headers by name (any case), the method and the request target. */
export interface AuthRequest {
  /** The HTTP method; a DPoP proof must name it (htm), so without it no proof passes. */
  readonly method?: string;
  /** The request target: an absolute URL, or a path (then on the origin of `resource`), as a DPoP proof's htu must name it. */
  readonly url?: string;
  readonly headers: { get(name: string): string | null | undefined } | { readonly [name: string]: string | readonly string[] | undefined };
}

/** A pass carries headers for the answer (a fresh DPoP-Nonce) that the host adds to whatever it answers. */
export type AuthenticateResult =
  | { readonly ok: true; readonly auth: AuthInfo; readonly headers?: { readonly [name: string]: string } }
  | { readonly ok: false; readonly response: HttpAnswer };

export interface ProtectedResource {
  /** The metadata document (JSON) to serve at metadataPath. */
  readonly metadata: JsonObject;
  readonly metadataPath: string;
  readonly metadataUrl: string;
  /** The 200 answer carrying the metadata. */
  metadataResponse(): HttpAnswer;
  /** The request's verified AuthInfo, or the 401/403 to answer instead. */
  authenticate(request: AuthRequest, requiredScopes?: readonly string[]): Promise<AuthenticateResult>;
  /** A 403 insufficient_scope for handlers that need more than the request-level scopes (step-up). */
  insufficientScope(scopes: readonly string[], description?: string): HttpAnswer;
}

function headerOf(request: AuthRequest, name: string): string | undefined {
  const headers = request.headers as { get?: unknown };
  if (typeof headers.get === "function") return (headers as { get(n: string): string | null | undefined }).get(name) ?? undefined;
  const record = request.headers as { readonly [name: string]: string | readonly string[] | undefined };
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() !== name) continue;
    const value = record[key];
    return typeof value === "string" ? value : Array.isArray(value) ? (value[0] as string | undefined) : undefined;
  }
  return undefined;
}

/** Every value of a header, repeated fields and comma-joined ones (as Node and Fetch join them) apart. */
function headerValues(request: AuthRequest, name: string): string[] {
  const headers = request.headers as { get?: unknown };
  const raw: string[] = [];
  if (typeof headers.get === "function") {
    const value = (headers as { get(n: string): string | null | undefined }).get(name);
    if (typeof value === "string") raw.push(value);
  } else {
    const record = request.headers as { readonly [name: string]: string | readonly string[] | undefined };
    for (const key of Object.keys(record)) {
      if (key.toLowerCase() !== name) continue;
      const value = record[key];
      if (typeof value === "string") raw.push(value);
      else if (Array.isArray(value)) raw.push(...value.filter((v): v is string => typeof v === "string"));
    }
  }
  return raw
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== "");
}

export function protectedResource(options: ProtectedResourceOptions): ProtectedResource {
  const url = parseHttpUrl(options.resource);
  const path = protectedResourceMetadataPath(options.resource);
  if (url === undefined || path === undefined)
    throw new TypeError(`protectedResource: resource must be an absolute http(s) URL, got ${JSON.stringify(options.resource)}`);
  if (options.authorizationServers.length === 0) throw new TypeError("protectedResource: at least one authorization server is needed");
  const metadataUrl = options.metadataUrl ?? `${originOf(url)}${path}`;
  const dpop = options.dpop === undefined ? undefined : dpopSettings(options.dpop);
  const clock = options.now;
  if (dpop !== undefined && clock === undefined) throw new TypeError("protectedResource: dpop needs the host clock (now)");
  const metadata = protectedResourceDocument({
    resource: options.resource,
    authorizationServers: options.authorizationServers,
    ...(options.scopesSupported !== undefined ? { scopesSupported: options.scopesSupported } : {}),
    ...(options.resourceName !== undefined ? { resourceName: options.resourceName } : {}),
    ...(dpop !== undefined
      ? { extra: { dpop_signing_alg_values_supported: [...dpop.algorithms], dpop_bound_access_tokens_required: dpop.required } }
      : {}),
  });
  const challengeScopes = (needed: readonly string[]): readonly string[] | undefined =>
    needed.length > 0 ? needed : options.scopesSupported;
  // AUTH-21: the error goes in the challenge of the scheme the request used; both schemes are offered when both are accepted.
  const challenge = (params: ChallengeParams, errorParams: ChallengeParams, scheme: "bearer" | "dpop"): string => {
    if (dpop === undefined) return formatBearerChallenge({ ...params, ...errorParams });
    if (dpop.required || scheme === "dpop") return formatDpopChallenge({ ...params, ...errorParams, algs: dpop.algorithms });
    return `${formatBearerChallenge({ ...params, ...errorParams })}, ${formatDpopChallenge({ ...params, algs: dpop.algorithms })}`;
  };
  const nonceHeader = (): { [name: string]: string } => (dpop?.nonces !== undefined ? { "DPoP-Nonce": dpop.nonces.current() } : {});
  const refuse = (
    status: number,
    needed: readonly string[],
    error: string | undefined,
    description: string,
    scheme: "bearer" | "dpop" = "bearer",
  ): AuthenticateResult => ({
    ok: false,
    response: {
      status,
      headers: {
        "Content-Type": "application/json",
        "WWW-Authenticate": challenge(
          {
            resourceMetadata: metadataUrl,
            ...(challengeScopes(needed) !== undefined ? { scope: challengeScopes(needed) as readonly string[] } : {}),
          },
          error !== undefined ? { error, errorDescription: description } : {},
          scheme,
        ),
        ...nonceHeader(),
      },
      body: JSON.stringify(
        error !== undefined ? { error, error_description: description } : { error: "unauthorized", error_description: description },
      ),
    },
  });
  // The URL a proof's htu must name: the request's, a path taken on the resource's origin.
  const requestUrl = (target: string | undefined): string =>
    target === undefined || target === "" ? options.resource : target.startsWith("/") ? `${originOf(url)}${target}` : target;
  return {
    metadata,
    metadataPath: path,
    metadataUrl,
    metadataResponse: () => ({
      status: 200,
      headers: { "Content-Type": "application/json", "Cache-Control": "max-age=3600" },
      body: JSON.stringify(metadata),
    }),
    insufficientScope: (scopes, description = "the token lacks a required scope") =>
      (refuse(403, scopes, "insufficient_scope", description) as { ok: false; response: HttpAnswer }).response,
    // AUTH-05: the token only from the Authorization header, valid and for this resource; else AUTH-01's 401 challenge.
    async authenticate(request, requiredScopes) {
      const needed = requiredScopes ?? options.requiredScopes ?? [];
      const target = request.url ?? "";
      const q = target.indexOf("?");
      if (q >= 0 && parseQuery(target.slice(q + 1)).has("access_token"))
        return refuse(401, needed, "invalid_request", "access tokens are accepted only in the Authorization header");
      const header = headerOf(request, "authorization");
      const m = header === undefined ? null : /^(Bearer|DPoP)[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i.exec(header);
      if (header === undefined || header === "") return refuse(401, needed, undefined, "authorization required");
      const scheme = m?.[1]?.toLowerCase() === "dpop" ? "dpop" : "bearer";
      if (m === null || (scheme === "dpop" && dpop === undefined))
        return refuse(401, needed, "invalid_request", "the Authorization header is not a Bearer token");
      if (scheme === "bearer" && dpop?.required === true)
        return refuse(401, needed, "invalid_request", "this resource accepts DPoP-bound tokens only");
      const token = m[2] as string;
      let proof: Extract<DpopProofCheck, { ok: true }> | undefined;
      if (scheme === "dpop" && dpop !== undefined) {
        // AUTH-19: exactly one proof, valid for this request and this token.
        const proofs = headerValues(request, "dpop");
        if (proofs.length !== 1)
          return refuse(401, needed, "invalid_dpop_proof", proofs.length === 0 ? "no DPoP proof" : "more than one DPoP proof", scheme);
        const expect = { method: request.method, url: requestUrl(request.url), accessToken: token, now: (clock as () => number)() };
        const checked = await checkDpopProof(proofs[0] as string, expect, dpop);
        if (!checked.ok) return refuse(401, needed, checked.error, checked.reason, scheme);
        proof = checked;
      }
      let info: AuthInfo | undefined;
      try {
        info = await options.verify(token);
      } catch {
        info = undefined;
      }
      if (info === undefined) return refuse(401, needed, "invalid_token", "the access token is invalid", scheme);
      if (info.audience !== undefined && !info.audience.includes(options.resource))
        return refuse(401, needed, "invalid_token", "the access token is not for this resource", scheme);
      if (clock !== undefined && info.expiresAt !== undefined && info.expiresAt <= clock())
        return refuse(401, needed, "invalid_token", "the access token has expired", scheme);
      const bound = boundThumbprint(info.claims);
      // AUTH-18: a bound token is worthless without its key; as Bearer it would be a stolen one.
      if (scheme === "bearer" && bound !== undefined)
        return refuse(401, needed, "invalid_token", "the access token is DPoP-bound and was presented as Bearer");
      if (proof !== undefined && dpop !== undefined) {
        if (bound === undefined) return refuse(401, needed, "invalid_token", "the access token is not DPoP-bound", scheme);
        if (bound !== proof.thumbprint)
          return refuse(401, needed, "invalid_token", "the DPoP proof's key is not the key the token is bound to", scheme);
        // AUTH-20: the proof is used once; recorded only now, so only a valid token's holder fills the cache.
        let fresh: boolean;
        try {
          fresh = await dpop.replay.remember(proof.replayKey, proof.replayUntil, (clock as () => number)());
        } catch {
          fresh = false;
        }
        if (!fresh) return refuse(401, needed, "invalid_dpop_proof", "the proof was already used (or cannot be recorded)", scheme);
      }
      const missing = needed.filter((s) => !info.scopes.includes(s));
      if (missing.length > 0) return refuse(403, needed, "insufficient_scope", "the token lacks a required scope", scheme);
      const headers = nonceHeader();
      return Object.keys(headers).length > 0 ? { ok: true, auth: info, headers } : { ok: true, auth: info };
    },
  };
}
