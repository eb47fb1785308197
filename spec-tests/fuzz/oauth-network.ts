// The OAuth target's world: a seeded client configuration (AuthFlowOptions), the MCP server's
// refusal that starts the flow, and the network around it — a protected resource and an
// authorization server that publish their metadata somewhere, register clients and issue
// tokens — answering each request the flow asks for, honestly or not: other statuses (3xx
// with a Location the flow never sees, 4xx, 5xx, 0 for unreachable), mutated documents,
// wrong types, huge strings, non-JSON, documents for other resources and issuers, insecure
// or parser-confusing endpoint URLs; stored credentials of this issuer or another; the
// browser's return (right or wrong state, error and error_description, iss mismatches).
//
// Invariants: every choice comes from the episode's Rng; secrets are distinctive strings
// ("<kind>-" and 16 letters or digits) so the oracle can find them in any request; an
// "honest" episode makes no hostile choice at all (then the flow must end with tokens).

import type { AuthFlowOptions, AuthHttpResponse, AuthStep, AuthTrigger } from "../../lib/auth/flow.js";
import type { StoredCredentials } from "../../lib/auth/types.js";
import { mutateValue, PROTO_NAMES, type Json } from "./mutate.js";
import type { Rng } from "./prng.js";

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** Strings the structural mutator swaps in: OAuth member names, values and URLs. */
const OAUTH_STRINGS = [
  "issuer",
  "resource",
  "authorization_servers",
  "token_endpoint",
  "authorization_endpoint",
  "registration_endpoint",
  "code_challenge_methods_supported",
  "S256",
  "plain",
  "access_token",
  "token_type",
  "refresh_token",
  "expires_in",
  "client_id",
  "client_secret",
  "error",
  "invalid_grant",
  "Bearer",
  "DPoP",
  "https://as.example.com",
  "http://as.example.com",
  "https://evil.example/token",
  "javascript:alert(1)",
  "data:text/plain,x",
  "https://as.example.com\\@evil.example/token",
  "https://evil.example#@as.example.com/token",
  "https://as.example.com\t/token",
  "//evil.example/token",
  "/token",
  ...PROTO_NAMES.slice(0, 3),
];

/** Endpoint values a hostile document may carry. */
const HOSTILE_URLS = [
  "http://as.example.com/token",
  "http://evil.example/token",
  "https://evil.example/token",
  "javascript:alert(1)",
  "data:text/plain,x",
  "ftp://as.example.com/token",
  "https://as.example.com\\@evil.example/token",
  "https://evil.example#@as.example.com/token",
  "https://user:pw@as.example.com/token",
  " https://as.example.com/token",
  "https://as.exa\nmple.com/token",
  "https://as.example.com/token#frag",
  "//evil.example/token",
  "/token",
  "",
  `https://as.example.com/${"x".repeat(10_000)}`,
];

export interface Secret {
  readonly value: string;
  readonly kind: string;
  /** The fetch purposes that may carry it (none: it is never sent). */
  readonly purposes: readonly string[];
}

export class OAuthNetwork {
  readonly options: AuthFlowOptions;
  readonly trigger: AuthTrigger;
  readonly honest: boolean;
  readonly serverUrl: string;
  readonly issuer: string;
  readonly resource: string;
  readonly tokenEndpoint: string;
  readonly secrets = new Map<string, Secret>();
  /** Every token_endpoint a 200 metadata answer named (the token requests may go to these only). */
  readonly servedTokenEndpoints = new Set<string>();
  /** Every access token handed out (in a token answer or stored credentials). */
  readonly accessTokens = new Set<string>();
  /** Origins a discovery request may go to: the server's, the challenge's, and every authorization server named. */
  readonly discoveryOrigins = new Set<string>();
  /** The stored credentials last given to the flow. */
  lastStored: StoredCredentials | undefined;
  private readonly prmUrl: string;
  private readonly asmUrl: string;
  private readonly advertiseIss: boolean;
  private readonly authMethods: string[] | undefined;
  private readonly dpopAlgs: string[] | undefined;

  constructor(readonly rng: Rng) {
    this.honest = rng.chance(0.25);
    const honest = this.honest;
    const pick = <T>(good: readonly T[], bad: readonly T[], badChance: number): T =>
      honest || !rng.chance(badChance) ? rng.pick(good) : rng.pick(bad);
    this.serverUrl = pick(
      [
        "https://mcp.example.com/mcp",
        "https://mcp.example.com",
        "https://mcp.example.com/tenant/mcp/",
        "http://localhost:3000/mcp",
        "http://127.0.0.1:8080/",
      ],
      [
        "http://mcp.example.com/mcp",
        "HTTPS://MCP.Example.COM:443/mcp",
        "ftp://mcp.example.com/mcp",
        "not a url",
        "https://mcp.example.com/mcp#frag",
      ],
      0.1,
    );
    const server = safeUrl(this.serverUrl);
    const serverOrigin = server?.origin ?? "https://mcp.example.com";
    const serverPath = (server?.pathname ?? "/").replace(/\/+$/, "");
    this.resource = `${serverOrigin}${serverPath}`;
    this.issuer = rng.pick([
      "https://as.example.com",
      "https://as.example.com/tenant1",
      serverOrigin.startsWith("https:") ? serverOrigin : "https://as.example.com",
      "http://localhost:9000",
    ]);
    const asOrigin = safeUrl(this.issuer)?.origin as string;
    const asPath = (safeUrl(this.issuer)?.pathname ?? "/").replace(/\/+$/, "");
    this.tokenEndpoint = rng.chance(0.8) ? `${asOrigin}/token` : "https://tokens.example.net/oauth/token";
    this.discoveryOrigins.add(serverOrigin);
    this.discoveryOrigins.add(asOrigin);

    // Where the resource publishes its metadata (the challenge names it, or a well-known URL), or nowhere (2025-03-26).
    const where = rng.pick(["challenge", "path", "root", "root", "none"]);
    const challengeUrl = rng.chance(0.5) ? `${serverOrigin}/.well-known/oauth-protected-resource${serverPath}` : `${serverOrigin}/prm.json`;
    this.prmUrl =
      where === "challenge"
        ? challengeUrl
        : where === "path"
          ? `${serverOrigin}/.well-known/oauth-protected-resource${serverPath}`
          : where === "root"
            ? `${serverOrigin}/.well-known/oauth-protected-resource`
            : "";
    const asmCandidates =
      asPath === ""
        ? [`${asOrigin}/.well-known/oauth-authorization-server`, `${asOrigin}/.well-known/openid-configuration`]
        : [
            `${asOrigin}/.well-known/oauth-authorization-server${asPath}`,
            `${asOrigin}/.well-known/openid-configuration${asPath}`,
            `${asOrigin}${asPath}/.well-known/openid-configuration`,
          ];
    this.asmUrl = rng.pick(asmCandidates);
    this.advertiseIss = rng.chance(0.5);
    this.authMethods = rng.chance(0.5)
      ? undefined
      : rng.pick([["none"], ["client_secret_basic"], ["client_secret_post"], ["none", "client_secret_basic", "private_key_jwt"]]);
    this.dpopAlgs = rng.chance(0.3) ? ["ES256"] : undefined;

    this.options = this.makeOptions(pick);
    this.trigger = this.makeTrigger(where === "challenge" ? challengeUrl : undefined);
  }

  secret(kind: string, purposes: readonly string[]): string {
    let value = `${kind}-`;
    for (let i = 0; i < 16; i++) value += ALNUM[this.rng.int(ALNUM.length)];
    this.secrets.set(value, { value, kind, purposes });
    return value;
  }

  private makeOptions(pick: <T>(good: readonly T[], bad: readonly T[], badChance: number) => T): AuthFlowOptions {
    const rng = this.rng;
    const honest = this.honest;
    const grant = rng.pick([
      "authorization_code",
      "authorization_code",
      "authorization_code",
      "authorization_code",
      "client_credentials",
      "jwt_bearer",
    ] as const);
    const options: { -readonly [K in keyof AuthFlowOptions]: AuthFlowOptions[K] } = {
      serverUrl: this.serverUrl,
      now: 1_700_000_000_000 + rng.int(1_000_000_000),
      randomBytes: (n) => {
        const short = !honest && rng.chance(0.02);
        const out = new Uint8Array(short ? rng.int(n) : n);
        for (let i = 0; i < out.length; i++) out[i] = rng.int(256);
        return out;
      },
    };
    if (grant !== "authorization_code") options.grant = grant;
    const redirect = pick(
      ["http://127.0.0.1:5555/callback", "http://localhost:8976/oauth/callback", "https://app.example/cb", "com.example.app:/oauth/cb"],
      ["javascript:alert(1)", "", "not a url", "http://evil.example/cb"],
      0.1,
    );
    if (honest || rng.chance(0.97)) options.redirectUri = redirect;
    if (rng.chance(0.4)) options.clientMetadata = { client_name: rng.chance(0.9) ? "fuzz" : "x".repeat(5000), software_id: "fuzz" };
    if (rng.chance(0.25))
      options.clientMetadataUrl = pick(["https://app.example/client.json"], ["http://app.example/client.json", "javascript:x"], 0.3);
    const needsClient = grant !== "authorization_code" && rng.chance(0.5);
    if (needsClient || rng.chance(0.3)) {
      const client: { clientId: string; clientSecret?: string; tokenEndpointAuthMethod?: string; issuer?: string } = {
        clientId: `pre-${rng.int(1000)}`,
      };
      if (rng.chance(0.6)) client.clientSecret = this.secret("client-secret", ["token", "refresh"]);
      if (rng.chance(0.3))
        client.tokenEndpointAuthMethod = pick(
          client.clientSecret !== undefined ? ["client_secret_basic", "client_secret_post"] : ["none"],
          ["bogus", "private_key_jwt", "client_secret_basic"],
          0.3,
        );
      if (rng.chance(0.4)) client.issuer = pick([this.issuer], ["https://other-as.example.com", `${this.issuer}/`], 0.5);
      options.client = client;
    }
    if (rng.chance(0.15)) options.signingAlgorithm = rng.pick(["ES256", "RS256"]);
    if (rng.chance(0.2)) options.dpopAlgorithm = "ES256";
    if (grant === "jwt_bearer") options.assertion = honest || rng.chance(0.9) ? this.secret("assertion", ["token"]) : "";
    if (rng.chance(0.1)) {
      options.enterprise = {
        idpTokenEndpoint: pick(
          ["https://idp.example/oauth/token"],
          ["http://idp.example/token", "bogus", "https://evil.example/token"],
          0.3,
        ),
        idpClientId: "idp-client",
        idToken: this.secret("id-token", ["token-exchange"]),
        ...(rng.chance(0.5) ? { idpClientSecret: this.secret("idp-secret", ["token-exchange"]) } : {}),
      };
      const idp = safeUrl(options.enterprise.idpTokenEndpoint);
      if (idp !== undefined) this.discoveryOrigins.add(idp.origin);
    }
    if (rng.chance(0.3)) options.maxRequests = honest ? rng.pick([12, 16, 30]) : rng.pick([0, 1, 3, 16, 100]);
    return options;
  }

  private makeTrigger(challengeUrl: string | undefined): AuthTrigger {
    const rng = this.rng;
    const stepUp = rng.chance(0.15);
    const params: string[] = [];
    if (challengeUrl !== undefined) params.push(`resource_metadata="${challengeUrl}"`);
    if (rng.chance(0.4)) params.push(`scope="${rng.pick(["mcp", "mcp:read mcp:write", "a b c"])}"`);
    if (stepUp) params.push('error="insufficient_scope"');
    let header: string | null = params.length === 0 ? "Bearer" : `Bearer ${params.join(", ")}`;
    if (!this.honest && rng.chance(0.35)) {
      header = rng.pick<string | null>([
        null,
        "",
        'Basic realm="x"',
        `DPoP ${params.join(", ")}`,
        `Bearer resource_metadata="http://evil.example/prm"`,
        `Bearer resource_metadata="https://evil.example/prm", scope="admin"`,
        `Bearer resource_metadata="javascript:alert(1)"`,
        `Bearer resource_metadata="/relative"`,
        `Bearer resource_metadata="${"x".repeat(20_000)}"`,
        `Bearer resource_metadata="unterminated`,
        `Bearer ${Array.from({ length: 200 }, (_, i) => `p${i}="v"`).join(", ")}`,
        `Bearer realm="a\\"b", error="x\u0000y", scope="${"s ".repeat(5000)}"`,
        `Basic abc==, Bearer resource_metadata="${challengeUrl ?? "https://evil.example/prm"}"`,
        `Bearer resource_metadata="https://evil.example/prm", resource_metadata="${challengeUrl ?? ""}"`,
        "Bearer ,,,,==",
        `Newauth realm="apps", type=1, title="Login to \\"apps\\"", Bearer scope=x`,
      ]);
      const evil = /resource_metadata="(https?:\/\/[^"/]+)/.exec(header ?? "")?.[1];
      if (evil !== undefined) this.discoveryOrigins.add(evil);
    }
    const trigger: { -readonly [K in keyof AuthTrigger]: AuthTrigger[K] } = {
      status: this.honest || rng.chance(0.9) ? (stepUp ? 403 : 401) : rng.pick([400, 401, 403, 500]),
      wwwAuthenticate: header,
    };
    if (rng.chance(0.3)) trigger.previousScopes = ["mcp:read"];
    if (rng.chance(0.2)) trigger.rejectedToken = `access-rejected${rng.int(3)}`;
    return trigger;
  }

  // ── answers ─────────────────────────────────────────────

  private prmDoc(): Json {
    const rng = this.rng;
    const doc: { [k: string]: Json } = { resource: this.resource, authorization_servers: [this.issuer] };
    if (rng.chance(0.5)) doc.scopes_supported = rng.pick([["mcp"], ["mcp:read", "mcp:write", "offline_access"], []]);
    if (rng.chance(0.2)) doc.bearer_methods_supported = ["header"];
    return doc;
  }

  private asmDoc(): Json {
    const rng = this.rng;
    const origin = safeUrl(this.issuer)?.origin as string;
    const doc: { [k: string]: Json } = {
      issuer: this.issuer,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: this.tokenEndpoint,
      code_challenge_methods_supported: ["S256"],
    };
    if (this.honest || rng.chance(0.85)) doc.registration_endpoint = `${origin}/register`;
    if (this.authMethods !== undefined) doc.token_endpoint_auth_methods_supported = this.authMethods;
    if (this.advertiseIss) doc.authorization_response_iss_parameter_supported = true;
    if (rng.chance(0.3)) doc.client_id_metadata_document_supported = true;
    if (rng.chance(0.3)) doc.scopes_supported = ["mcp", "offline_access"];
    if (this.dpopAlgs !== undefined) doc.dpop_signing_alg_values_supported = this.dpopAlgs;
    if (rng.chance(0.2)) doc.grant_types_supported = ["authorization_code", "refresh_token", "client_credentials"];
    return doc;
  }

  private tokenAnswer(dpop: boolean): Json {
    const rng = this.rng;
    const accessToken = this.secret("access", []);
    this.accessTokens.add(accessToken);
    const body: { [k: string]: Json } = { access_token: accessToken, token_type: dpop ? "DPoP" : rng.pick(["Bearer", "bearer"]) };
    if (rng.chance(0.7)) body.expires_in = rng.pick([0, 60, 3600]);
    if (rng.chance(0.5)) body.refresh_token = this.secret("refresh", ["refresh"]);
    if (rng.chance(0.3)) body.scope = "mcp offline_access";
    return body;
  }

  /** The honest answer to a request of the flow. */
  private honestAnswer(step: Extract<AuthStep, { kind: "fetch" }>): AuthHttpResponse {
    const rng = this.rng;
    const url = step.request.url;
    switch (step.purpose) {
      case "protected-resource-metadata":
        return url === this.prmUrl ? { status: 200, body: this.prmDoc() } : { status: 404, body: undefined };
      case "authorization-server-metadata":
        return url === this.asmUrl ? { status: 200, body: this.asmDoc() } : { status: 404, body: { error: "not_found" } };
      case "registration": {
        const body: { [k: string]: Json } = { client_id: `dyn-${rng.int(10_000)}` };
        if (rng.chance(0.4)) body.client_secret = this.secret("client-secret", ["token", "refresh"]);
        return { status: rng.chance(0.9) ? 201 : 200, body };
      }
      case "token-exchange":
        return {
          status: 200,
          body: {
            access_token: this.secret("jag", ["token"]),
            issued_token_type: "urn:ietf:params:oauth:token-type:id-jag",
            token_type: "N_A",
          },
        };
      default:
        return { status: 200, body: this.tokenAnswer(step.dpop === true) };
    }
  }

  /** The answer the flow gets: honest, or (in a hostile episode, sometimes) another status or a damaged body. */
  answer(step: Extract<AuthStep, { kind: "fetch" }>): { response: AuthHttpResponse; note: string } {
    const rng = this.rng;
    let response = this.honestAnswer(step);
    let note = "honest";
    if (!this.honest && rng.chance(0.35)) {
      const r = rng.int(10);
      if (r < 3) {
        const status = rng.pick([0, 204, 301, 302, 303, 307, 308, 400, 401, 403, 404, 410, 429, 500, 502, 503]);
        note = status >= 300 && status < 400 ? `${status} Location: ${rng.pick(HOSTILE_URLS).slice(0, 60)}` : `status ${status}`;
        response = {
          status,
          body: rng.chance(0.5)
            ? response.body
            : {
                error: rng.pick(["invalid_grant", "invalid_client", "use_dpop_nonce", "x".repeat(300)]),
                error_description: "\u001b[31mno\r\n",
              },
        };
      } else if (r < 6) {
        note = "mutated body";
        response = { status: response.status, body: mutateValue((response.body ?? {}) as Json, rng, OAUTH_STRINGS) };
      } else if (r < 8) {
        note = "hostile field";
        const body = { ...((typeof response.body === "object" && response.body !== null ? response.body : {}) as { [k: string]: Json }) };
        const key = rng.pick([
          "issuer",
          "resource",
          "authorization_servers",
          "token_endpoint",
          "authorization_endpoint",
          "registration_endpoint",
          "code_challenge_methods_supported",
          "access_token",
          "token_type",
          "expires_in",
          "refresh_token",
          "client_id",
          "client_secret",
          "scope",
          "scopes_supported",
        ]);
        body[key] = rng.pick<Json>([
          rng.pick(HOSTILE_URLS),
          [rng.pick(HOSTILE_URLS)],
          null,
          42,
          -1,
          1e308,
          true,
          {},
          [],
          "x".repeat(rng.pick([100, 100_000])),
          ["plain"],
          "https://other-resource.example/mcp",
          `${this.resource}/../admin`,
          `${this.resource}x`,
          "https://as.example.com/",
          Array.from({ length: 5000 }, (_, i) => `s${i}`),
        ]);
        response = { status: response.status, body };
      } else {
        note = "not JSON or wrong type";
        response = { status: response.status, body: rng.pick<unknown>([undefined, null, "text", 7, [], [response.body], true]) };
      }
    }
    if (step.purpose === "authorization-server-metadata" && response.status === 200) {
      const endpoint = (response.body as { token_endpoint?: unknown } | null)?.token_endpoint;
      if (typeof endpoint === "string") this.servedTokenEndpoints.add(endpoint);
    }
    if (step.purpose === "protected-resource-metadata" && response.status === 200) {
      const servers = (response.body as { authorization_servers?: unknown } | null)?.authorization_servers;
      if (Array.isArray(servers)) for (const s of servers.slice(0, 50)) if (typeof s === "string") this.addOrigin(s);
    }
    if (step.purpose === "token" || step.purpose === "refresh" || step.purpose === "token-exchange") {
      const token = (response.body as { access_token?: unknown } | null)?.access_token;
      if (typeof token === "string") this.accessTokens.add(token);
    }
    return { response, note };
  }

  private addOrigin(url: string): void {
    const parsed = safeUrl(url);
    if (parsed !== undefined) this.discoveryOrigins.add(parsed.origin);
  }

  /** What the host holds for `issuer`: nothing, this issuer's credentials (fresh, expired, refused, for another resource), or another issuer's. */
  stored(issuer: string): StoredCredentials | undefined {
    const rng = this.rng;
    if (rng.chance(0.45)) return (this.lastStored = undefined);
    const accessToken =
      rng.chance(0.2) && this.trigger.rejectedToken !== undefined ? this.trigger.rejectedToken : this.secret("access", []);
    this.accessTokens.add(accessToken);
    const tokens: { -readonly [K in keyof NonNullable<StoredCredentials["tokens"]>]: NonNullable<StoredCredentials["tokens"]>[K] } = {
      accessToken,
      tokenType: "Bearer",
      resource: rng.chance(0.8) ? this.resource : "https://other.example/mcp",
    };
    if (rng.chance(0.6)) tokens.refreshToken = this.secret("refresh", ["refresh"]);
    if (rng.chance(0.6)) tokens.expiresAt = this.options.now + rng.pick([-1000, 1000, 3_600_000]);
    const credentials: { issuer: string; client?: { clientId: string; clientSecret?: string }; tokens?: typeof tokens } = {
      issuer: this.honest || rng.chance(0.8) ? issuer : "https://other-as.example.com",
    };
    if (rng.chance(0.7)) {
      credentials.client = { clientId: `stored-${rng.int(100)}` };
      if (rng.chance(0.5)) credentials.client.clientSecret = this.secret("client-secret", ["token", "refresh"]);
    }
    if (rng.chance(0.8)) credentials.tokens = tokens;
    this.lastStored = credentials;
    return credentials;
  }

  /** The browser's return to the redirect URI after the authorization step. */
  callback(step: Extract<AuthStep, { kind: "authorize" }>, issuer: string): { url: string; code: string | undefined; note: string } {
    const rng = this.rng;
    const state = /[?&]state=([^&#]*)/.exec(step.url)?.[1];
    const code = this.secret("code", ["token"]);
    const params: string[] = [`code=${code}`];
    if (state !== undefined) params.push(`state=${state}`);
    if (this.advertiseIss || rng.chance(0.3)) params.push(`iss=${encodeURIComponent(issuer)}`);
    const honestUrl = `${step.redirectUri}${step.redirectUri.includes("?") ? "&" : "?"}${params.join("&")}`;
    if (this.honest || rng.chance(0.6)) return { url: honestUrl, code, note: "honest" };
    const hostile = rng.pick([
      () => honestUrl.replace(/state=[^&]*/, "state=forged"),
      () => honestUrl.replace(/&?state=[^&]*/, ""),
      () =>
        `${step.redirectUri}?error=access_denied&error_description=${encodeURIComponent("\u001b]0;pwned\u0007\r\nPASS")}&state=${state ?? ""}`,
      () => `${step.redirectUri}?error=${"e".repeat(5000)}&state=${state ?? ""}`,
      () => honestUrl.replace(/iss=[^&]*/, "iss=https%3A%2F%2Fevil.example"),
      () => honestUrl.replace(/code=[^&]*/, "code="),
      () => honestUrl.replace(/code=[^&]*&?/, ""),
      () => `${honestUrl}&code=second&state=other`,
      () => `state=${state ?? ""}&code=${code}`,
      () => `javascript:alert(1)?code=${code}&state=${state ?? ""}`,
      () => honestUrl.replace("?", "#"),
      () => `${honestUrl}&x=%E0%A4%A`,
      () => `https://evil.example/cb?code=${code}&state=${state ?? ""}`,
      () => "",
    ])();
    return { url: hostile, code, note: "hostile" };
  }

  signature(): string {
    return this.honest || this.rng.chance(0.8)
      ? "c2lnbmF0dXJlLWJ5dGVz"
      : this.rng.pick(["", "a.b", "sig with spaces", "+/=", "x".repeat(100_000), "\u0000"]);
  }
}

/** A WHATWG URL (what fetch would use), or undefined when it does not parse. */
export function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
