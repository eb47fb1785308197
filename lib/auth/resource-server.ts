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
//   echoed into the challenge.

import type { JsonObject } from "../wire/envelope.js";
import { formatBearerChallenge } from "./challenge.js";
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
  /** The host clock (ms), to refuse tokens past expiresAt; without it expiry is the verifier's business. */
  readonly now?: () => number;
}

/** An HTTP answer a host writes as is. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: { readonly [name: string]: string };
  readonly body: string;
}

/** A request as authenticate() reads it: headers by name (any case), and the request target. */
export interface AuthRequest {
  readonly url?: string;
  readonly headers: { get(name: string): string | null | undefined } | { readonly [name: string]: string | readonly string[] | undefined };
}

export type AuthenticateResult = { readonly ok: true; readonly auth: AuthInfo } | { readonly ok: false; readonly response: HttpAnswer };

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

export function protectedResource(options: ProtectedResourceOptions): ProtectedResource {
  const url = parseHttpUrl(options.resource);
  const path = protectedResourceMetadataPath(options.resource);
  if (url === undefined || path === undefined)
    throw new TypeError(`protectedResource: resource must be an absolute http(s) URL, got ${JSON.stringify(options.resource)}`);
  if (options.authorizationServers.length === 0) throw new TypeError("protectedResource: at least one authorization server is needed");
  const metadataUrl = options.metadataUrl ?? `${originOf(url)}${path}`;
  const metadata = protectedResourceDocument({
    resource: options.resource,
    authorizationServers: options.authorizationServers,
    ...(options.scopesSupported !== undefined ? { scopesSupported: options.scopesSupported } : {}),
    ...(options.resourceName !== undefined ? { resourceName: options.resourceName } : {}),
  });
  const challengeScopes = (needed: readonly string[]): readonly string[] | undefined =>
    needed.length > 0 ? needed : options.scopesSupported;
  const refuse = (status: number, needed: readonly string[], error: string | undefined, description: string): AuthenticateResult => ({
    ok: false,
    response: {
      status,
      headers: {
        "Content-Type": "application/json",
        "WWW-Authenticate": formatBearerChallenge({
          resourceMetadata: metadataUrl,
          ...(challengeScopes(needed) !== undefined ? { scope: challengeScopes(needed) as readonly string[] } : {}),
          ...(error !== undefined ? { error, errorDescription: description } : {}),
        }),
      },
      body: JSON.stringify(
        error !== undefined ? { error, error_description: description } : { error: "unauthorized", error_description: description },
      ),
    },
  });
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
      const m = header === undefined ? null : /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i.exec(header);
      if (header === undefined || header === "") return refuse(401, needed, undefined, "authorization required");
      if (m === null) return refuse(401, needed, "invalid_request", "the Authorization header is not a Bearer token");
      const token = m[1] as string;
      let info: AuthInfo | undefined;
      try {
        info = await options.verify(token);
      } catch {
        info = undefined;
      }
      if (info === undefined) return refuse(401, needed, "invalid_token", "the access token is invalid");
      if (info.audience !== undefined && !info.audience.includes(options.resource))
        return refuse(401, needed, "invalid_token", "the access token is not for this resource");
      if (options.now !== undefined && info.expiresAt !== undefined && info.expiresAt <= options.now())
        return refuse(401, needed, "invalid_token", "the access token has expired");
      const missing = needed.filter((s) => !info.scopes.includes(s));
      if (missing.length > 0) return refuse(403, needed, "insufficient_scope", "the token lacks a required scope");
      return { ok: true, auth: info };
    },
  };
}
