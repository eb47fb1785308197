// The OAuth client of MCP authorization as a state machine the host drives (sans-I/O): the
// host feeds it the 401/403 that started it, HTTP responses, the stored credentials it asked
// for, the redirect back from the user's browser and signatures; it answers each with the
// next step: an HTTP request to make, credentials to look up, a URL to send the user to,
// bytes to sign, or the outcome (tokens and the credentials to store, or a typed error).
//
// The rules of RULES.md, in the order of the flow and cited where each is applied: discovery
// AUTH-02, the resource AUTH-04, PKCE and state AUTH-03, the issuer AUTH-07, the client's
// identity AUTH-06, scopes and step-up AUTH-10, stored credentials and refresh AUTH-11, grants
// without a user AUTH-12, DPoP AUTH-13, bounds and no exceptions AUTH-09.
//
// Order of a flow: challenge → protected resource metadata (challenge URL, path-inserted,
// root; none at all: the 2025-03-26 rules) → `resource` check → authorization server metadata
// (RFC 8414 / OIDC orders, exact `issuer`; none under 2025-03-26: default endpoints) → PKCE
// S256 advertised → stored credentials of that issuer → refresh (with `resource`) when a
// refresh token exists and this is not a step-up → client identity: stored, pre-registered,
// client ID metadata document, dynamic registration → authorization code with PKCE, `state`,
// `iss` (RFC 9207), `resource` (RFC 8707) — or client credentials (secret or private_key_jwt),
// a workload's jwt-bearer assertion (RFC 7523 2.1), or enterprise-managed authorization (an
// IdP token exchange for an ID-JAG, then jwt-bearer). Token requests are marked for a DPoP
// proof (RFC 9449) when the host can sign one and the server lists its algorithm.
//
// Invariants:
// - no clock, no randomness, no I/O, no Promise: time (`now`) and random bytes come from the
//   options; PKCE's SHA-256 is the core's synchronous one;
// - no method throws: misuse (an input the current step did not ask for) and every bad
//   response end the flow with a `failed` step carrying an OAuthFlowError with its rule;
// - a flow makes at most `maxRequests` HTTP requests (default 16), then fails;
// - credentials of one issuer are never sent to another: the lookup is by issuer, and a
//   pre-registered client bound to an issuer is used only there;
// - each request says which redirects its host may follow (AUTH-17): a metadata GET a few
//   within its origin, a POST (anything that carries a secret) none.

import { sha256 } from "../codec/sha256.js";
import { bearerChallenge, unionScopes } from "./challenge.js";
import { base64Encode, base64urlEncode, formEncode, parseHttpUrl, queryOf, utf8, withQuery } from "./encoding.js";
import { OAuthFlowError } from "./errors.js";
import {
  authorizationServerMetadataUrls,
  canonicalResource,
  defaultEndpoints,
  protectedResourceMetadataUrls,
  readAuthorizationServerMetadata,
  readProtectedResourceMetadata,
  resourceCovers,
  type AuthorizationServerMetadata,
} from "./metadata.js";
import { readTokenResponse, readRegistrationResponse, oauthErrorOf } from "./responses.js";
import type { ClientInformation, StoredCredentials, TokenSet } from "./types.js";

export { OAuthFlowError };

/** An HTTP request the host makes for the flow (never to the MCP server itself). */
export interface AuthHttpRequest {
  readonly method: "GET" | "POST";
  readonly url: string;
  readonly headers: { readonly [name: string]: string };
  readonly body?: string;
  /**
   * AUTH-17: the redirects the host may follow for this request: "same-origin" (a metadata GET,
   * which carries no secret: a few, each within the URL's origin) or "none" (every POST: a code,
   * a verifier, a client secret or assertion, a subject token, a DPoP proof; a 3xx fails it).
   */
  readonly redirects: "same-origin" | "none";
}

/** An HTTP response as the flow reads it: the body already parsed as JSON (undefined when it is not JSON). */
export interface AuthHttpResponse {
  readonly status: number;
  readonly body: unknown;
}

export type AuthStep =
  | {
      readonly kind: "fetch";
      readonly purpose:
        | "protected-resource-metadata"
        | "authorization-server-metadata"
        | "registration"
        | "token-exchange"
        | "token"
        | "refresh";
      readonly request: AuthHttpRequest;
      /** Send a DPoP proof (RFC 9449 5) for this request: the token will be bound to the host's DPoP key. */
      readonly dpop?: true;
    }
  | { readonly kind: "load"; readonly issuer: string }
  | { readonly kind: "authorize"; readonly url: string; readonly redirectUri: string }
  | { readonly kind: "sign"; readonly alg: string; readonly signingInput: string }
  | { readonly kind: "done"; readonly tokens: TokenSet; readonly credentials: StoredCredentials }
  | { readonly kind: "failed"; readonly error: OAuthFlowError };

/** The client's metadata for registration and for its metadata document (RFC 7591 2). */
export interface ClientMetadata {
  readonly client_name?: string;
  readonly client_uri?: string;
  readonly logo_uri?: string;
  readonly software_id?: string;
  readonly software_version?: string;
}

export interface AuthFlowOptions {
  /** The MCP server's URL (the one that answered 401/403). */
  readonly serverUrl: string;
  /**
   * authorization_code (default; a user in a browser), client_credentials (a machine), or
   * jwt_bearer (RFC 7523 2.1: a workload presents `assertion`, e.g. a federated identity JWT).
   */
  readonly grant?: "authorization_code" | "client_credentials" | "jwt_bearer";
  /** The JWT for the jwt_bearer grant. */
  readonly assertion?: string;
  /** Where the authorization server sends the browser back; required for authorization_code. */
  readonly redirectUri?: string;
  readonly clientMetadata?: ClientMetadata;
  /** An https URL serving this client's metadata document, used as client_id where the server accepts it (CIMD). */
  readonly clientMetadataUrl?: string;
  /** A client registered out of band; with `issuer`, used only at that authorization server. */
  readonly client?: ClientInformation & { readonly issuer?: string };
  /** Sign client assertions (private_key_jwt, RFC 7523) with this JWS algorithm: the flow emits `sign` steps. */
  readonly signingAlgorithm?: string;
  /** The host's clock, ms since the epoch, for expiries and assertion times. */
  readonly now: number;
  /** n random bytes (crypto.getRandomValues); used for PKCE, state and assertion ids. */
  readonly randomBytes: (n: number) => Uint8Array;
  readonly maxRequests?: number;
  /** The host can sign DPoP proofs with this algorithm: tokens are DPoP-bound where the server supports it. */
  readonly dpopAlgorithm?: string;
  /**
   * Enterprise-managed authorization (SEP-990, an extension): the user's ID token from the
   * enterprise IdP is exchanged there (RFC 8693) for an identity assertion grant (ID-JAG) for
   * this authorization server and resource, which the client presents (RFC 7523 jwt-bearer).
   */
  readonly enterprise?: {
    readonly idpTokenEndpoint: string;
    readonly idpClientId: string;
    readonly idToken: string;
    readonly idpClientSecret?: string;
  };
}

/** What started the flow: the MCP server's refusal, and the scopes the last token was asked for. */
export interface AuthTrigger {
  readonly status: number;
  readonly wwwAuthenticate: string | null | undefined;
  readonly previousScopes?: readonly string[];
  /** The access token the refused request carried, if any: a stored token equal to it is not reused. */
  readonly rejectedToken?: string;
}

type Waiting = "nothing" | "prm" | "asm" | "load" | "register" | "redirect" | "sign" | "exchange" | "token" | "refresh";

const FORM = "application/x-www-form-urlencoded";
const JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";
const ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token";

export class AuthFlow {
  private readonly options: AuthFlowOptions;
  private readonly grant: "authorization_code" | "client_credentials" | "jwt_bearer";
  private waiting: Waiting = "nothing";
  private requests = 0;
  private prmQueue: string[] = [];
  private asmQueue: string[] = [];
  private legacy = false;
  private stepUp = false;
  private challengeScope: readonly string[] | undefined;
  private prmScopes: readonly string[] | undefined;
  private resource = "";
  private issuer = "";
  private metadata: AuthorizationServerMetadata | undefined;
  private client: ClientInformation | undefined;
  private stored: StoredCredentials | undefined;
  private scopes: readonly string[] | undefined;
  private state = "";
  private verifier = "";
  private pendingForm: Array<[string, string]> = [];
  private lastRefreshToken: string | undefined;
  private rejectedToken: string | undefined;

  constructor(options: AuthFlowOptions) {
    this.options = options;
    this.grant = options.grant ?? "authorization_code";
  }

  /** The scopes this flow asks for (after metadata discovery); what a later step-up unions with. */
  get requestedScopes(): readonly string[] | undefined {
    return this.scopes;
  }

  /** The authorization server's issuer, once known. */
  get authorizationServer(): string | undefined {
    return this.issuer === "" ? undefined : this.issuer;
  }

  /** Begins with the MCP server's 401 (or 403 insufficient_scope) answer. */
  start(trigger: AuthTrigger): AuthStep {
    if (this.waiting !== "nothing" || this.requests > 0) return this.fail("flow-misuse", "a new flow", "start() on a flow already started");
    if (parseHttpUrl(this.options.serverUrl) === undefined)
      return this.fail("server-url", "an absolute http(s) URL", this.options.serverUrl);
    if (
      this.grant === "authorization_code" &&
      this.options.enterprise === undefined &&
      (this.options.redirectUri === undefined ||
        (parseHttpUrl(this.options.redirectUri) === undefined && !/^[a-z][a-z0-9+.-]*:/i.test(this.options.redirectUri)))
    ) {
      return this.fail("redirect-uri", "a redirect URI for the authorization code grant", String(this.options.redirectUri));
    }
    const challenge = bearerChallenge(trigger.wwwAuthenticate);
    this.rejectedToken = trigger.rejectedToken;
    this.stepUp = trigger.status === 403 && challenge?.error === "insufficient_scope";
    // AUTH-10, step-up (MCP scope challenge handling, SEP-2350): the new challenge's scopes plus those already held.
    this.challengeScope = this.stepUp ? unionScopes(trigger.previousScopes, challenge?.scope) : challenge?.scope;
    this.prmQueue = protectedResourceMetadataUrls(this.options.serverUrl, challenge?.resourceMetadata);
    return this.nextPrm();
  }

  /** The response to the last `fetch` step. */
  receive(response: AuthHttpResponse): AuthStep {
    switch (this.waiting) {
      case "prm":
        return this.onPrm(response);
      case "asm":
        return this.onAsm(response);
      case "register":
        return this.onRegistration(response);
      case "exchange":
        return this.onExchange(response);
      case "token":
      case "refresh":
        return this.onToken(response);
      default:
        return this.fail("flow-misuse", `an input for step ${this.waiting}`, "an HTTP response");
    }
  }

  /** The credentials the host holds for the issuer of the last `load` step (undefined: none). */
  loaded(credentials: StoredCredentials | undefined): AuthStep {
    if (this.waiting !== "load") return this.fail("flow-misuse", `an input for step ${this.waiting}`, "credentials");
    this.stored = credentials !== undefined && credentials.issuer === this.issuer ? credentials : undefined;
    const metadata = this.metadata as AuthorizationServerMetadata;
    const tokens = this.stored?.tokens;
    this.client = this.chooseClient(metadata);
    // AUTH-11: stored tokens for this resource that the server has not just refused, and not expired: use them.
    if (
      !this.stepUp &&
      tokens !== undefined &&
      tokens.resource === this.resource &&
      tokens.accessToken !== this.rejectedToken &&
      (tokens.expiresAt === undefined || tokens.expiresAt > this.options.now) &&
      this.stored !== undefined
    ) {
      this.waiting = "nothing";
      return { kind: "done", tokens, credentials: this.stored };
    }
    // AUTH-11, AUTH-04: else a refresh, carrying the resource.
    if (!this.stepUp && tokens?.refreshToken !== undefined && tokens.resource === this.resource && this.client !== undefined) {
      this.lastRefreshToken = tokens.refreshToken;
      return this.tokenRequest("refresh", [
        ["grant_type", "refresh_token"],
        ["refresh_token", tokens.refreshToken],
        ["resource", this.resource],
      ]);
    }
    return this.identify();
  }

  /** The URL the authorization server sent the browser back to (with code, state, iss or error). */
  redirected(callbackUrl: string): AuthStep {
    if (this.waiting !== "redirect") return this.fail("flow-misuse", `an input for step ${this.waiting}`, "a redirect");
    const query = queryOf(callbackUrl);
    if (query === undefined) return this.fail("redirect", "an absolute http(s) callback URL", callbackUrl.slice(0, 200));
    // AUTH-03: the state binds the answer to this flow (RFC 9700 4.7); it is checked before anything else is trusted.
    if (query.get("state") !== this.state)
      return this.fail("state-mismatch", "the state this flow sent", query.has("state") ? "another state" : "no state");
    const metadata = this.metadata as AuthorizationServerMetadata;
    const iss = query.get("iss");
    // AUTH-07 (RFC 9207 2.4): a present iss is compared to the issuer, exactly; an advertised one must be present.
    if (iss !== undefined && iss !== metadata.issuer) return this.fail("iss-mismatch", metadata.issuer, iss.slice(0, 200));
    if (iss === undefined && metadata.issParameterSupported)
      return this.fail(
        "iss-missing",
        `iss=${metadata.issuer} (the server advertises authorization_response_iss_parameter_supported)`,
        "no iss",
      );
    const error = query.get("error");
    // AUTH-03: an error in the redirect is reported with the server's code.
    if (error !== undefined)
      return this.fail(
        "authorization-denied",
        "an authorization code",
        `error=${error}${query.has("error_description") ? `: ${query.get("error_description")}` : ""}`,
        error,
      );
    const code = query.get("code");
    if (code === undefined || code === "") return this.fail("authorization-code", "a code in the redirect", "none");
    return this.tokenRequest("token", [
      ["grant_type", "authorization_code"],
      ["code", code],
      ["redirect_uri", this.options.redirectUri as string],
      ["code_verifier", this.verifier],
      ["resource", this.resource],
    ]);
  }

  /** The base64url JWS signature over the last `sign` step's input. */
  signed(signature: string): AuthStep {
    if (this.waiting !== "sign") return this.fail("flow-misuse", `an input for step ${this.waiting}`, "a signature");
    if (!/^[A-Za-z0-9_-]+$/.test(signature)) return this.fail("signature", "a base64url signature", "other characters");
    const form = this.pendingForm;
    form.push(["client_assertion_type", JWT_BEARER], ["client_assertion", `${this.assertionInput}.${signature}`]);
    return this.emit("token", {
      method: "POST",
      url: (this.metadata as AuthorizationServerMetadata).tokenEndpoint,
      headers: { "Content-Type": FORM, Accept: "application/json" },
      body: formEncode(form),
    });
  }

  // ── discovery ──────────────────────────────────────────────

  /** AUTH-02: the next protected resource metadata URL (the challenge's, path-inserted, root); none left: the 2025-03-26 reading. */
  private nextPrm(): AuthStep {
    const url = this.prmQueue.shift();
    if (url === undefined) {
      // 2025-03-26: no protected resource metadata; the MCP server's origin is the authorization server.
      this.legacy = true;
      const origin = parseHttpUrl(this.options.serverUrl)!;
      this.issuer = `${origin.scheme}://${origin.authority}`;
      this.resource = canonicalResource(this.options.serverUrl) as string;
      this.asmQueue = authorizationServerMetadataUrls(this.issuer);
      return this.nextAsm();
    }
    return this.emit("protected-resource-metadata", { method: "GET", url, headers: { Accept: "application/json" } }, "prm");
  }

  private onPrm(response: AuthHttpResponse): AuthStep {
    if (response.status !== 200) return this.nextPrm();
    const read = readProtectedResourceMetadata(response.body);
    if (!read.ok) return this.nextPrm();
    const prm = read.value;
    // AUTH-02, AUTH-04: a document for another resource is refused.
    if (!resourceCovers(prm.resource, this.options.serverUrl)) {
      return this.fail("resource-mismatch", `a resource covering ${this.options.serverUrl} (RFC 9728 3.3)`, prm.resource.slice(0, 200));
    }
    this.resource = prm.resource;
    this.prmScopes = prm.scopesSupported;
    this.issuer = prm.authorizationServers[0] as string;
    this.asmQueue = authorizationServerMetadataUrls(this.issuer);
    return this.nextAsm();
  }

  private nextAsm(): AuthStep {
    const url = this.asmQueue.shift();
    if (url === undefined) {
      if (!this.legacy) return this.fail("authorization-server-metadata", `metadata of ${this.issuer} at a well-known URL`, "none found");
      return this.useMetadata(defaultEndpoints(this.options.serverUrl) as AuthorizationServerMetadata);
    }
    return this.emit("authorization-server-metadata", { method: "GET", url, headers: { Accept: "application/json" } }, "asm");
  }

  private onAsm(response: AuthHttpResponse): AuthStep {
    if (response.status !== 200) return this.nextAsm();
    const read = readAuthorizationServerMetadata(response.body, this.legacy ? undefined : this.issuer);
    // AUTH-02: a document for another issuer is an attack or a misconfiguration, not a miss: stop (RFC 8414 3.3).
    if (!read.ok) return this.fail("authorization-server-metadata", `usable metadata of ${this.issuer}`, read.reason);
    this.issuer = read.value.issuer;
    return this.useMetadata(read.value);
  }

  private useMetadata(metadata: AuthorizationServerMetadata): AuthStep {
    this.metadata = metadata;
    if (this.grant === "authorization_code" && this.options.enterprise === undefined) {
      if (metadata.authorizationEndpoint === undefined)
        return this.fail("authorization-server-metadata", "an authorization_endpoint", "none");
      // AUTH-03: PKCE is required, and an authorization server that does not list S256 is refused.
      if (!metadata.fallback && !(metadata.codeChallengeMethods ?? []).includes("S256")) {
        return this.fail(
          "pkce-unsupported",
          "S256 in code_challenge_methods_supported",
          metadata.codeChallengeMethods === undefined
            ? "no code_challenge_methods_supported"
            : JSON.stringify(metadata.codeChallengeMethods),
        );
      }
    }
    this.scopes = this.chooseScopes(metadata);
    this.waiting = "load";
    return { kind: "load", issuer: metadata.issuer };
  }

  /** AUTH-10: the challenge's scopes, else the resource's scopes_supported, else none; offline_access when the server lists it. */
  private chooseScopes(metadata: AuthorizationServerMetadata): readonly string[] | undefined {
    const base = this.challengeScope ?? this.prmScopes;
    if (base === undefined || base.length === 0) return undefined;
    if (this.grant === "authorization_code" && (metadata.scopesSupported ?? []).includes("offline_access"))
      return unionScopes(base, ["offline_access"]);
    return base;
  }

  // ── client identity ────────────────────────────────────────────

  /** AUTH-06: stored, then pre-registered, then a client ID metadata document; undefined: dynamic registration next (identify). */
  private chooseClient(metadata: AuthorizationServerMetadata): ClientInformation | undefined {
    if (this.stored?.client !== undefined) return this.stored.client;
    const pre = this.options.client;
    if (pre !== undefined && (pre.issuer === undefined || pre.issuer === metadata.issuer)) {
      const { issuer: _issuer, ...client } = pre;
      return client;
    }
    const cimd = this.options.clientMetadataUrl;
    if (this.grant === "authorization_code" && metadata.cimdSupported && cimd !== undefined && parseHttpUrl(cimd)?.scheme === "https")
      return { clientId: cimd, tokenEndpointAuthMethod: "none" };
    return undefined;
  }

  private identify(): AuthStep {
    if (this.client !== undefined) return this.authorizeOrGrant();
    const metadata = this.metadata as AuthorizationServerMetadata;
    if (metadata.registrationEndpoint === undefined) {
      return this.fail(
        "client-identity",
        "a pre-registered client, a client ID metadata document the server accepts, or a registration_endpoint",
        "none of them",
      );
    }
    return this.emit(
      "registration",
      {
        method: "POST",
        url: metadata.registrationEndpoint,
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify(this.registrationBody(metadata)),
      },
      "register",
    );
  }

  private registrationBody(metadata: AuthorizationServerMetadata): { [key: string]: unknown } {
    const methods = metadata.tokenEndpointAuthMethods;
    // A public client asks for "none" unless the server does not offer it.
    const method =
      methods === undefined || methods.includes("none")
        ? "none"
        : methods.includes("client_secret_basic")
          ? "client_secret_basic"
          : methods.includes("client_secret_post")
            ? "client_secret_post"
            : "none";
    const body: { [key: string]: unknown } = { ...this.options.clientMetadata, token_endpoint_auth_method: method };
    if (this.grant !== "authorization_code") body.grant_types = [this.grant === "jwt_bearer" ? JWT_BEARER_GRANT : "client_credentials"];
    else {
      const redirect = this.options.redirectUri as string;
      body.redirect_uris = [redirect];
      body.grant_types = ["authorization_code", "refresh_token"];
      body.response_types = ["code"];
      // SEP-837: native for loopback and private-scheme redirects, web otherwise.
      const url = parseHttpUrl(redirect);
      body.application_type = url === undefined || /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(url.authority) ? "native" : "web";
    }
    if (this.scopes !== undefined) body.scope = this.scopes.join(" ");
    return body;
  }

  private onRegistration(response: AuthHttpResponse): AuthStep {
    const read = readRegistrationResponse(response.status, response.body);
    if (!read.ok) return this.fail("registration", "a client_id from dynamic registration (RFC 7591 3.2.1)", read.reason, read.oauthError);
    this.client = read.client;
    return this.authorizeOrGrant();
  }

  // ── grants ───────────────────────────────────────────────

  /** AUTH-12: enterprise-managed, jwt-bearer or client credentials grants; else AUTH-03's authorization code with PKCE S256. */
  private authorizeOrGrant(): AuthStep {
    const enterprise = this.options.enterprise;
    if (enterprise !== undefined) {
      if (parseHttpUrl(enterprise.idpTokenEndpoint) === undefined)
        return this.fail("enterprise", "an http(s) IdP token endpoint", enterprise.idpTokenEndpoint.slice(0, 200));
      const form: Array<[string, string]> = [
        ["grant_type", TOKEN_EXCHANGE],
        ["requested_token_type", ID_JAG],
        ["audience", this.issuer],
        ["resource", this.resource],
        ["subject_token", enterprise.idToken],
        ["subject_token_type", ID_TOKEN],
        ["client_id", enterprise.idpClientId],
      ];
      if (enterprise.idpClientSecret !== undefined) form.push(["client_secret", enterprise.idpClientSecret]);
      if (this.scopes !== undefined) form.push(["scope", this.scopes.join(" ")]);
      return this.emit(
        "token-exchange",
        {
          method: "POST",
          url: enterprise.idpTokenEndpoint,
          headers: { "Content-Type": FORM, Accept: "application/json" },
          body: formEncode(form),
        },
        "exchange",
      );
    }
    if (this.grant === "jwt_bearer") {
      if (this.options.assertion === undefined || this.options.assertion === "")
        return this.fail("assertion", "a JWT for the jwt-bearer grant", "none configured");
      const form: Array<[string, string]> = [
        ["grant_type", JWT_BEARER_GRANT],
        ["assertion", this.options.assertion],
      ];
      if (this.scopes !== undefined) form.push(["scope", this.scopes.join(" ")]);
      form.push(["resource", this.resource]);
      return this.tokenRequest("token", form);
    }
    if (this.grant === "client_credentials") {
      const form: Array<[string, string]> = [["grant_type", "client_credentials"]];
      if (this.scopes !== undefined) form.push(["scope", this.scopes.join(" ")]);
      form.push(["resource", this.resource]);
      return this.tokenRequest("token", form);
    }
    const metadata = this.metadata as AuthorizationServerMetadata;
    const client = this.client as ClientInformation;
    this.verifier = base64urlEncode(this.options.randomBytes(32));
    this.state = base64urlEncode(this.options.randomBytes(16));
    if (this.verifier.length < 43 || this.state.length < 16) return this.fail("randomness", "32 and 16 random bytes", "fewer");
    const challenge = base64urlEncode(sha256(utf8(this.verifier)));
    const params: Array<[string, string]> = [
      ["response_type", "code"],
      ["client_id", client.clientId],
      ["redirect_uri", this.options.redirectUri as string],
      ["code_challenge", challenge],
      ["code_challenge_method", "S256"],
      ["state", this.state],
    ];
    if (this.scopes !== undefined) params.push(["scope", this.scopes.join(" ")]);
    params.push(["resource", this.resource]);
    this.waiting = "redirect";
    return {
      kind: "authorize",
      url: withQuery(metadata.authorizationEndpoint as string, params),
      redirectUri: this.options.redirectUri as string,
    };
  }

  private assertionInput = "";

  /** The IdP's answer: an ID-JAG in access_token (RFC 8693 2.2.1), presented to the authorization server. */
  private onExchange(response: AuthHttpResponse): AuthStep {
    const body = response.body;
    const jag =
      response.status === 200 && typeof body === "object" && body !== null ? (body as { access_token?: unknown }).access_token : undefined;
    if (typeof jag !== "string" || jag === "")
      return this.fail("token-exchange", "an ID-JAG from the IdP (RFC 8693 2.2.1)", `HTTP ${response.status}`, oauthErrorOf(body)?.error);
    const form: Array<[string, string]> = [
      ["grant_type", JWT_BEARER_GRANT],
      ["assertion", jag],
    ];
    if (this.scopes !== undefined) form.push(["scope", this.scopes.join(" ")]);
    return this.tokenRequest("token", form);
  }

  /** A token endpoint request with the client authenticated as its method says (RFC 6749 2.3, RFC 7523 2.2). */
  private tokenRequest(purpose: "token" | "refresh", form: Array<[string, string]>): AuthStep {
    const metadata = this.metadata as AuthorizationServerMetadata;
    const client = this.client as ClientInformation;
    const headers: { [name: string]: string } = { "Content-Type": FORM, Accept: "application/json" };
    const method = this.authMethod(metadata, client);
    if (method === "private_key_jwt") {
      const alg = this.options.signingAlgorithm ?? "ES256";
      const now = Math.floor(this.options.now / 1000);
      const header = { alg, typ: "JWT" };
      const claims = {
        iss: client.clientId,
        sub: client.clientId,
        aud: metadata.issuer,
        iat: now,
        exp: now + 300,
        jti: base64urlEncode(this.options.randomBytes(16)),
      };
      this.assertionInput = `${base64urlEncode(utf8(JSON.stringify(header)))}.${base64urlEncode(utf8(JSON.stringify(claims)))}`;
      this.pendingForm = form;
      // The refresh of a private_key_jwt client is rare enough to share the token step.
      this.waiting = "sign";
      if (purpose === "refresh") this.refreshSigning = true;
      return { kind: "sign", alg, signingInput: this.assertionInput };
    }
    if (method === "client_secret_basic") {
      // RFC 6749 2.3.1: each part form-urlencoded before the Basic encoding.
      const enc = (s: string): string => formEncode([["", s]]).slice(1);
      headers.Authorization = `Basic ${base64Encode(utf8(`${enc(client.clientId)}:${enc(client.clientSecret ?? "")}`))}`;
    } else {
      form.push(["client_id", client.clientId]);
      if (method === "client_secret_post") form.push(["client_secret", client.clientSecret ?? ""]);
    }
    return this.emit(purpose, { method: "POST", url: metadata.tokenEndpoint, headers, body: formEncode(form) }, purpose);
  }

  private refreshSigning = false;

  /** AUTH-06: the client authenticates at the token endpoint as registered. */
  private authMethod(metadata: AuthorizationServerMetadata, client: ClientInformation): string {
    if (client.tokenEndpointAuthMethod !== undefined) return client.tokenEndpointAuthMethod;
    if (this.options.signingAlgorithm !== undefined) return "private_key_jwt";
    if (client.clientSecret === undefined) return "none";
    const methods = metadata.tokenEndpointAuthMethods;
    // RFC 8414 2: absent means client_secret_basic.
    if (methods === undefined || methods.includes("client_secret_basic")) return "client_secret_basic";
    return methods.includes("client_secret_post") ? "client_secret_post" : "client_secret_basic";
  }

  private onToken(response: AuthHttpResponse): AuthStep {
    const refreshing = this.waiting === "refresh" || this.refreshSigning;
    this.refreshSigning = false;
    const read = readTokenResponse(response.status, response.body, this.options.now, this.useDpop());
    if (!read.ok) {
      // AUTH-11: a refused refresh is not the end: the user authorizes again (the stored tokens are dropped).
      if (refreshing) {
        this.stored =
          this.stored === undefined
            ? undefined
            : { issuer: this.stored.issuer, ...(this.stored.client !== undefined ? { client: this.stored.client } : {}) };
        return this.identify();
      }
      return this.fail("token", "an access token (RFC 6749 5.1)", read.reason, read.oauthError);
    }
    const granted = read.value;
    const tokens: TokenSet = {
      accessToken: granted.accessToken,
      tokenType: granted.tokenType,
      ...(granted.refreshToken !== undefined
        ? { refreshToken: granted.refreshToken }
        : refreshing && this.lastRefreshToken !== undefined
          ? { refreshToken: this.lastRefreshToken }
          : {}),
      ...(granted.expiresAt !== undefined ? { expiresAt: granted.expiresAt } : {}),
      ...(granted.scope !== undefined ? { scope: granted.scope } : this.scopes !== undefined ? { scope: this.scopes } : {}),
      resource: this.resource,
    };
    const client = this.client as ClientInformation;
    this.waiting = "nothing";
    return { kind: "done", tokens, credentials: { issuer: this.issuer, client, tokens } };
  }

  // ── plumbing ──────────────────────────────────────────────

  private emit(
    purpose: Extract<AuthStep, { kind: "fetch" }>["purpose"],
    built: Omit<AuthHttpRequest, "redirects">,
    waiting: Waiting = purpose === "refresh" ? "refresh" : "token",
  ): AuthStep {
    // AUTH-17: only a GET (metadata, no secret in it) may follow a redirect, and only within its origin.
    const request: AuthHttpRequest = { ...built, redirects: built.method === "GET" ? "same-origin" : "none" };
    const max = this.options.maxRequests ?? 16;
    // AUTH-09: a flow makes at most maxRequests requests.
    if (this.requests >= max) return this.fail("request-limit", `at most ${max} requests in one flow`, `request ${this.requests + 1}`);
    this.requests++;
    this.waiting = waiting;
    const dpop = (purpose === "token" || purpose === "refresh") && this.useDpop();
    return dpop ? { kind: "fetch", purpose, request, dpop: true } : { kind: "fetch", purpose, request };
  }

  /** AUTH-13: DPoP when the host can sign proofs and the authorization server lists the algorithm. */
  private useDpop(): boolean {
    const alg = this.options.dpopAlgorithm;
    return alg !== undefined && (this.metadata?.dpopAlgorithms ?? []).includes(alg);
  }

  /** AUTH-09: every failure ends the flow with an OAuthFlowError, never an exception. */
  private fail(rule: string, expected: string, got: string, oauthError?: string): AuthStep {
    this.waiting = "nothing";
    // The flow is over; any later input is misuse.
    this.requests = Number.MAX_SAFE_INTEGER;
    return { kind: "failed", error: new OAuthFlowError(rule, expected, got, oauthError) };
  }
}

export { oauthErrorOf };
