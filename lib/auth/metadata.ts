// Discovery documents: where to look for them and what a usable one holds (RULES.md AUTH-02),
// and the canonical resource URI (AUTH-04).
//   - protected resource metadata (RFC 9728): the URL a challenge names, else the well-known
//     URI with the resource's path inserted, else the one at the root (MCP 2025-06-18 on);
//   - authorization server metadata: RFC 8414 (path inserted after the well-known prefix) and
//     OpenID Connect Discovery (inserted, then appended), in the order the MCP specification
//     gives; the 2025-03-26 fallback: no protected resource metadata means the server's origin
//     is the authorization server, and no metadata there means /authorize, /token, /register;
//   - the canonical resource URI (RFC 8707 2, MCP "resource parameter") and the match of a
//     metadata document's `resource` against the server the client is talking to.
//
// Invariants:
// - a document is read from `unknown`: only fields of the right type are kept, URLs must be
//   absolute http(s) (https, except on loopback hosts, for endpoints and issuers);
// - metadata is fetched only from a URL `discoverable` allows: https, http on a loopback host,
//   or the MCP server's own origin;
// - issuer comparison is exact string equality (RFC 8414 3.3, RFC 9207 2.4): no normalization.

import { isJsonObject, type JsonObject } from "../wire/envelope.js";
import { formatUrl, originOf, parseHttpUrl, type HttpUrl } from "./encoding.js";

/**
 * AUTH-02: where the protected resource metadata of `serverUrl` may be, in the order to try them.
 * The challenge's URL is taken only where `discoverable` allows it: whoever can rewrite a
 * plain-http answer would otherwise choose the authorization server, and with it the token endpoint.
 */
export function protectedResourceMetadataUrls(serverUrl: string, fromChallenge?: string): string[] {
  const out: string[] = [];
  if (fromChallenge !== undefined && discoverable(fromChallenge, serverUrl)) out.push(fromChallenge);
  const url = parseHttpUrl(serverUrl);
  if (url === undefined) return out;
  const path = trimSlash(url.path);
  if (path !== "") out.push(`${originOf(url)}/.well-known/oauth-protected-resource${path}`);
  out.push(`${originOf(url)}/.well-known/oauth-protected-resource`);
  return [...new Set(out)];
}

/** AUTH-02: where the metadata of the authorization server `issuer` may be, in the MCP order. */
export function authorizationServerMetadataUrls(issuer: string): string[] {
  const url = parseHttpUrl(issuer);
  if (url === undefined) return [];
  const origin = originOf(url);
  const path = trimSlash(url.path);
  if (path === "") return [`${origin}/.well-known/oauth-authorization-server`, `${origin}/.well-known/openid-configuration`];
  return [
    `${origin}/.well-known/oauth-authorization-server${path}`,
    `${origin}/.well-known/openid-configuration${path}`,
    `${origin}${path}/.well-known/openid-configuration`,
  ];
}

/** The 2025-03-26 endpoints assumed when an authorization server publishes no metadata. */
export function defaultEndpoints(serverUrl: string): AuthorizationServerMetadata | undefined {
  const url = parseHttpUrl(serverUrl);
  if (url === undefined) return undefined;
  const origin = originOf(url);
  return {
    issuer: origin,
    authorizationEndpoint: `${origin}/authorize`,
    tokenEndpoint: `${origin}/token`,
    registrationEndpoint: `${origin}/register`,
    codeChallengeMethods: undefined,
    tokenEndpointAuthMethods: undefined,
    grantTypes: undefined,
    scopesSupported: undefined,
    cimdSupported: false,
    issParameterSupported: false,
    fallback: true,
  };
}

/**
 * AUTH-04: the canonical URI of an MCP server for the `resource` parameter: scheme and host lowercased,
 * default port dropped, no fragment, no trailing slash on the path (unless it is all there is).
 */
export function canonicalResource(serverUrl: string): string | undefined {
  const url = parseHttpUrl(serverUrl);
  if (url === undefined) return undefined;
  return canonical(url);
}

function canonical(url: HttpUrl): string {
  const path = trimSlash(url.path);
  return `${originOf(url)}${path}${url.query !== undefined ? `?${url.query}` : ""}`;
}

/**
 * AUTH-04: whether a protected resource metadata document's `resource` covers the server the client
 * talks to (RFC 9728 3.3, MCP "MUST validate"): same origin, and the server's path is the
 * resource's path or below it.
 */
export function resourceCovers(resource: string, serverUrl: string): boolean {
  const r = parseHttpUrl(resource);
  const s = parseHttpUrl(serverUrl);
  if (r === undefined || s === undefined || r.fragment !== undefined) return false;
  if (originOf(r) !== originOf(s)) return false;
  const rp = trimSlash(r.path);
  const sp = trimSlash(s.path);
  return rp === "" || sp === rp || sp.startsWith(`${rp}/`);
}

function trimSlash(path: string): string {
  return path.endsWith("/") ? path.replace(/\/+$/, "") : path;
}

/** AUTH-02: whether an endpoint URL may carry credentials: https, or http on a loopback host (development). */
export function secureEndpoint(text: string): boolean {
  const url = parseHttpUrl(text);
  return url !== undefined && url.fragment === undefined && secureTransport(url);
}

/**
 * AUTH-02: whether metadata may be fetched from a peer-named URL (a challenge's `resource_metadata`,
 * an `authorization_servers` entry): over a transport `secureEndpoint` accepts, or on the MCP
 * server's own origin, which the host chose and which answered the challenge anyway.
 */
export function discoverable(text: string, serverUrl: string): boolean {
  const url = parseHttpUrl(text);
  if (url === undefined) return false;
  if (secureTransport(url)) return true;
  const server = parseHttpUrl(serverUrl);
  return server !== undefined && originOf(server) === originOf(url);
}

function secureTransport(url: HttpUrl): boolean {
  if (url.scheme === "https") return true;
  const host = url.authority.replace(/:\d+$/, "");
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]" || host.endsWith(".localhost");
}

export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorizationServers: readonly string[];
  readonly scopesSupported: readonly string[] | undefined;
}

/** A protected resource metadata document, or why it is unusable. */
export function readProtectedResourceMetadata(
  body: unknown,
): { ok: true; value: ProtectedResourceMetadata } | { ok: false; reason: string } {
  if (!isJsonObject(body)) return { ok: false, reason: "the body is not a JSON object" };
  if (typeof body.resource !== "string" || parseHttpUrl(body.resource) === undefined)
    return { ok: false, reason: "`resource` is not an absolute http(s) URL" };
  const servers = strings(body.authorization_servers)?.filter((s) => parseHttpUrl(s) !== undefined);
  if (servers === undefined || servers.length === 0) return { ok: false, reason: "`authorization_servers` names no http(s) URL" };
  return { ok: true, value: { resource: body.resource, authorizationServers: servers, scopesSupported: strings(body.scopes_supported) } };
}

export interface AuthorizationServerMetadata {
  readonly issuer: string;
  readonly authorizationEndpoint: string | undefined;
  readonly tokenEndpoint: string;
  readonly registrationEndpoint: string | undefined;
  readonly codeChallengeMethods: readonly string[] | undefined;
  readonly tokenEndpointAuthMethods: readonly string[] | undefined;
  readonly grantTypes: readonly string[] | undefined;
  readonly scopesSupported: readonly string[] | undefined;
  /** client_id_metadata_document_supported */
  readonly cimdSupported: boolean;
  /** authorization_response_iss_parameter_supported (RFC 9207) */
  readonly issParameterSupported: boolean;
  /** True for the 2025-03-26 default endpoints (no document was found). */
  readonly fallback: boolean;
  /** dpop_signing_alg_values_supported (RFC 9449 5.1); absent: no DPoP. */
  readonly dpopAlgorithms?: readonly string[];
}

/**
 * An authorization server metadata document fetched for `expectedIssuer`, or why it is unusable:
 * its `issuer` must be exactly the one the well-known URL was built from (RFC 8414 3.3).
 * Without an expected issuer (2025-03-26: the MCP server's origin stands in for an issuer it
 * never named), the document's own http(s) `issuer` is taken.
 */
export function readAuthorizationServerMetadata(
  body: unknown,
  expectedIssuer: string | undefined,
): { ok: true; value: AuthorizationServerMetadata } | { ok: false; reason: string } {
  if (!isJsonObject(body)) return { ok: false, reason: "the body is not a JSON object" };
  if (expectedIssuer === undefined) {
    if (typeof body.issuer !== "string" || parseHttpUrl(body.issuer) === undefined)
      return { ok: false, reason: "`issuer` is not an http(s) URL" };
    expectedIssuer = body.issuer;
  }
  if (body.issuer !== expectedIssuer)
    return {
      ok: false,
      reason: `issuer ${describe(body.issuer)} is not ${JSON.stringify(expectedIssuer)}, the issuer the metadata URL was built from (RFC 8414 3.3)`,
    };
  const endpoint = (key: string): string | undefined | false => {
    const value = body[key];
    if (value === undefined) return undefined;
    return typeof value === "string" && secureEndpoint(value) ? value : false;
  };
  const token = endpoint("token_endpoint");
  if (token === undefined || token === false) return { ok: false, reason: "`token_endpoint` is missing or not an https URL" };
  const authorization = endpoint("authorization_endpoint");
  const registration = endpoint("registration_endpoint");
  if (authorization === false || registration === false) return { ok: false, reason: "an endpoint is not an https URL" };
  return {
    ok: true,
    value: {
      issuer: expectedIssuer,
      authorizationEndpoint: authorization,
      tokenEndpoint: token,
      registrationEndpoint: registration,
      codeChallengeMethods: strings(body.code_challenge_methods_supported),
      tokenEndpointAuthMethods: strings(body.token_endpoint_auth_methods_supported),
      grantTypes: strings(body.grant_types_supported),
      scopesSupported: strings(body.scopes_supported),
      cimdSupported: body.client_id_metadata_document_supported === true,
      issParameterSupported: body.authorization_response_iss_parameter_supported === true,
      fallback: false,
      ...(strings(body.dpop_signing_alg_values_supported) !== undefined
        ? { dpopAlgorithms: strings(body.dpop_signing_alg_values_supported) }
        : {}),
    },
  };
}

function strings(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter((v): v is string => typeof v === "string");
}

function describe(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value.slice(0, 200)) : value === undefined ? "(absent)" : `(a ${typeof value})`;
}

/** The protected resource metadata document a resource server publishes (RFC 9728 2). */
export function protectedResourceDocument(options: {
  resource: string;
  authorizationServers: readonly string[];
  scopesSupported?: readonly string[];
  resourceName?: string;
  extra?: JsonObject;
}): JsonObject {
  const doc: JsonObject = {
    ...options.extra,
    resource: options.resource,
    authorization_servers: [...options.authorizationServers],
    bearer_methods_supported: ["header"],
  };
  if (options.scopesSupported !== undefined) doc.scopes_supported = [...options.scopesSupported];
  if (options.resourceName !== undefined) doc.resource_name = options.resourceName;
  return doc;
}

/** The well-known path at which a resource server serves its metadata (path inserted, RFC 9728 3.1). */
export function protectedResourceMetadataPath(resource: string): string | undefined {
  const url = parseHttpUrl(resource);
  if (url === undefined) return undefined;
  return `/.well-known/oauth-protected-resource${trimSlash(url.path)}`;
}

export { formatUrl };
