// Reading the authorization server's answers: token responses (RFC 6749 5.1, 5.2),
// registration responses (RFC 7591 3.2), and OAuth error bodies.
//
// Invariants:
// - bodies are `unknown` (already JSON-parsed by the host, or undefined): only fields of the
//   right type are read, and error texts quoted back are clipped;
// - a token type other than Bearer is refused (a DPoP-bound token cannot be used as a bearer),
//   except DPoP when the request carried a DPoP proof (RULES.md AUTH-13).

import { isJsonObject } from "../wire/envelope.js";
import { splitScope } from "./challenge.js";
import type { ClientInformation } from "./types.js";

type Read<T> = { ok: true; value: T } | { ok: false; reason: string; oauthError: string | undefined };

export interface GrantedTokens {
  readonly accessToken: string;
  readonly tokenType: string;
  readonly refreshToken: string | undefined;
  readonly expiresAt: number | undefined;
  readonly scope: readonly string[] | undefined;
}

/** An OAuth error body's code and description, when the body is one (RFC 6749 5.2). */
export function oauthErrorOf(body: unknown): { error: string; description: string | undefined } | undefined {
  if (!isJsonObject(body) || typeof body.error !== "string") return undefined;
  return {
    error: body.error.slice(0, 100),
    description: typeof body.error_description === "string" ? body.error_description.slice(0, 300) : undefined,
  };
}

function failure(status: number, body: unknown): { ok: false; reason: string; oauthError: string | undefined } {
  const error = oauthErrorOf(body);
  const description = error?.description !== undefined ? `: ${error.description}` : "";
  return {
    ok: false,
    reason: error === undefined ? `HTTP ${status}` : `HTTP ${status} ${error.error}${description}`,
    oauthError: error?.error,
  };
}

/** A token endpoint answer; `now` (ms) turns expires_in into an expiry. */
export function readTokenResponse(status: number, body: unknown, now: number, dpop = false): Read<GrantedTokens> {
  if (status !== 200) return failure(status, body);
  if (!isJsonObject(body)) return { ok: false, reason: "HTTP 200 without a JSON object body", oauthError: undefined };
  if (typeof body.access_token !== "string" || body.access_token === "")
    return { ok: false, reason: "no access_token", oauthError: undefined };
  // RFC 6749 requires token_type; some servers omit it, and a missing one is read as Bearer.
  const tokenType = typeof body.token_type === "string" ? body.token_type : "Bearer";
  const type = tokenType.toLowerCase();
  if (type !== "bearer" && !(dpop && type === "dpop"))
    return {
      ok: false,
      reason: `token_type ${JSON.stringify(tokenType.slice(0, 40))}, not Bearer${dpop ? " or DPoP" : ""}`,
      oauthError: undefined,
    };
  const expiresIn =
    typeof body.expires_in === "number" && Number.isFinite(body.expires_in) && body.expires_in >= 0 ? body.expires_in : undefined;
  return {
    ok: true,
    value: {
      accessToken: body.access_token,
      tokenType: type === "dpop" ? "DPoP" : "Bearer",
      refreshToken: typeof body.refresh_token === "string" && body.refresh_token !== "" ? body.refresh_token : undefined,
      expiresAt: expiresIn === undefined ? undefined : now + expiresIn * 1000,
      scope: typeof body.scope === "string" ? splitScope(body.scope) : undefined,
    },
  };
}

/** A dynamic registration answer: 201 (or 200 from lenient servers) with a client_id. */
export function readRegistrationResponse(
  status: number,
  body: unknown,
): { ok: true; client: ClientInformation } | { ok: false; reason: string; oauthError: string | undefined } {
  if (status !== 201 && status !== 200) return failure(status, body);
  if (!isJsonObject(body) || typeof body.client_id !== "string" || body.client_id === "")
    return { ok: false, reason: "no client_id in the registration answer", oauthError: undefined };
  const client: { clientId: string; clientSecret?: string; tokenEndpointAuthMethod?: string } = { clientId: body.client_id };
  if (typeof body.client_secret === "string" && body.client_secret !== "") client.clientSecret = body.client_secret;
  if (typeof body.token_endpoint_auth_method === "string") client.tokenEndpointAuthMethod = body.token_endpoint_auth_method;
  return { ok: true, client };
}
