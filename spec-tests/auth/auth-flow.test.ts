// State × input tests of lib/auth's AuthFlow, the OAuth client state machine: each test
// drives a flow with scripted responses and checks the step it answers with (requests
// made, in order, and what they carry), including the refusals: tampered state, mismatched
// or missing iss, mismatched resource, a metadata issuer that is not the one asked for, an
// authorization server without S256, misuse of the machine.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { AuthFlow, type AuthFlowOptions, type AuthStep } from "../../lib/auth/flow.js";
import type { StoredCredentials } from "../../lib/auth/types.js";

const MCP = "https://mcp.example.com/mcp";
const AS = "https://auth.example.com";
const PRM_URL = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
const ASM_URL = "https://auth.example.com/.well-known/oauth-authorization-server";
const REDIRECT = "http://127.0.0.1:5555/callback";

let counter = 0;
function options(extra: Partial<AuthFlowOptions> = {}): AuthFlowOptions {
  return {
    serverUrl: MCP,
    redirectUri: REDIRECT,
    now: 1_000_000,
    randomBytes: (n) => new Uint8Array(n).map((_, i) => (i * 7 + counter++) & 255),
    clientMetadata: { client_name: "test" },
    ...extra,
  };
}

const prm = (extra: object = {}): object => ({ resource: MCP, authorization_servers: [AS], ...extra });
const asm = (extra: object = {}): object => ({
  issuer: AS,
  authorization_endpoint: `${AS}/authorize`,
  token_endpoint: `${AS}/token`,
  registration_endpoint: `${AS}/register`,
  code_challenge_methods_supported: ["S256"],
  ...extra,
});
const challenge401 = { status: 401, wwwAuthenticate: `Bearer resource_metadata="${PRM_URL}"` };

function expectFetch(step: AuthStep, purpose: string, url?: string): Extract<AuthStep, { kind: "fetch" }> {
  assert.equal(step.kind, "fetch", `expected a fetch step, got ${JSON.stringify(step)}`);
  const fetch = step as Extract<AuthStep, { kind: "fetch" }>;
  assert.equal(fetch.purpose, purpose);
  if (url !== undefined) assert.equal(fetch.request.url, url);
  return fetch;
}

function expectFailed(step: AuthStep, rule: string): void {
  assert.equal(step.kind, "failed", `expected failure ${rule}, got ${JSON.stringify(step).slice(0, 300)}`);
  assert.equal((step as Extract<AuthStep, { kind: "failed" }>).error.rule, rule);
}

function form(body: string | undefined): Map<string, string> {
  return new Map(new URLSearchParams(body ?? ""));
}

/** Runs discovery with the standard documents up to the load step. */
function discover(flow: AuthFlow, prmDoc = prm(), asmDoc = asm(), trigger = challenge401): AuthStep {
  expectFetch(flow.start(trigger), "protected-resource-metadata", PRM_URL);
  expectFetch(flow.receive({ status: 200, body: prmDoc }), "authorization-server-metadata", ASM_URL);
  const load = flow.receive({ status: 200, body: asmDoc });
  return load;
}

/** Discovery, no stored credentials, DCR, then the authorize step. */
function toAuthorize(flow: AuthFlow, prmDoc = prm(), asmDoc = asm()): Extract<AuthStep, { kind: "authorize" }> {
  const load = discover(flow, prmDoc, asmDoc);
  assert.deepEqual(load, { kind: "load", issuer: AS });
  const reg = expectFetch(flow.loaded(undefined), "registration", `${AS}/register`);
  const step = flow.receive({ status: 201, body: { client_id: "dyn-1" } });
  assert.equal(step.kind, "authorize", JSON.stringify(step));
  void reg;
  return step as Extract<AuthStep, { kind: "authorize" }>;
}

function callback(step: Extract<AuthStep, { kind: "authorize" }>, extra: Record<string, string> = {}, state?: string): string {
  const sent = new URL(step.url).searchParams;
  const back = new URL(REDIRECT);
  back.searchParams.set("code", "the-code");
  back.searchParams.set("state", state ?? (sent.get("state") as string));
  for (const [k, v] of Object.entries(extra)) back.searchParams.set(k, v);
  return back.toString();
}

test("AUTH-03, AUTH-04: the whole authorization code flow: PKCE S256, state, resource on authorize and token, tokens keyed by issuer", () => {
  const flow = new AuthFlow(options());
  const authorize = toAuthorize(flow);
  const url = new URL(authorize.url);
  assert.equal(url.origin + url.pathname, `${AS}/authorize`);
  const q = url.searchParams;
  assert.equal(q.get("response_type"), "code");
  assert.equal(q.get("client_id"), "dyn-1");
  assert.equal(q.get("redirect_uri"), REDIRECT);
  assert.equal(q.get("code_challenge_method"), "S256");
  assert.equal(q.get("resource"), MCP);
  assert.equal(q.get("scope"), null, "no scope anywhere: omitted");
  const token = expectFetch(flow.redirected(callback(authorize)), "token", `${AS}/token`);
  const body = form(token.request.body);
  assert.equal(body.get("grant_type"), "authorization_code");
  assert.equal(body.get("code"), "the-code");
  assert.equal(body.get("resource"), MCP);
  assert.equal(body.get("client_id"), "dyn-1");
  const verifier = body.get("code_verifier") as string;
  assert.ok(verifier.length >= 43);
  assert.equal(createHash("sha256").update(verifier).digest("base64url"), q.get("code_challenge"), "the challenge is S256 of the verifier");
  const done = flow.receive({ status: 200, body: { access_token: "at-1", token_type: "bearer", expires_in: 60, refresh_token: "rt-1" } });
  assert.equal(done.kind, "done");
  const d = done as Extract<AuthStep, { kind: "done" }>;
  assert.equal(d.tokens.accessToken, "at-1");
  assert.equal(d.tokens.expiresAt, 1_000_000 + 60_000);
  assert.equal(d.tokens.resource, MCP);
  assert.equal(d.credentials.issuer, AS);
  assert.equal(d.credentials.client?.clientId, "dyn-1");
});

test("AUTH-03: a tampered or missing state is refused before anything else", () => {
  for (const state of ["not-the-state", ""]) {
    const flow = new AuthFlow(options());
    const authorize = toAuthorize(flow);
    expectFailed(flow.redirected(callback(authorize, {}, state)), "state-mismatch");
  }
});

test("AUTH-07: iss (RFC 9207): equal passes, another issuer or a normalized variant is refused, absent is refused only when advertised", () => {
  const run = (advertised: boolean, iss: string | undefined): AuthStep => {
    const flow = new AuthFlow(options());
    const authorize = toAuthorize(flow, prm(), asm(advertised ? { authorization_response_iss_parameter_supported: true } : {}));
    return flow.redirected(callback(authorize, iss === undefined ? {} : { iss }));
  };
  expectFetch(run(true, AS), "token");
  expectFetch(run(false, undefined), "token");
  expectFailed(run(true, "https://evil.example.com"), "iss-mismatch");
  expectFailed(run(false, "https://evil.example.com"), "iss-mismatch");
  expectFailed(run(true, `${AS}/`), "iss-mismatch");
  expectFailed(run(true, undefined), "iss-missing");
});

test("AUTH-03: an error in the redirect is reported with the server's code, after state and iss checks", () => {
  const flow = new AuthFlow(options());
  const authorize = toAuthorize(flow);
  const back = new URL(REDIRECT);
  back.searchParams.set("error", "access_denied");
  back.searchParams.set("state", new URL(authorize.url).searchParams.get("state") as string);
  const step = flow.redirected(back.toString());
  expectFailed(step, "authorization-denied");
  assert.equal((step as Extract<AuthStep, { kind: "failed" }>).error.oauthError, "access_denied");
});

test("AUTH-02: a protected resource metadata document for another resource is refused", () => {
  const flow = new AuthFlow(options());
  expectFetch(flow.start(challenge401), "protected-resource-metadata");
  expectFailed(flow.receive({ status: 200, body: prm({ resource: "https://evil.example.com/mcp" }) }), "resource-mismatch");
  const sibling = new AuthFlow(options());
  sibling.start(challenge401);
  expectFailed(sibling.receive({ status: 200, body: prm({ resource: "https://mcp.example.com/other" }) }), "resource-mismatch");
});

test("AUTH-02: protected resource metadata: the challenge's URL, else path-inserted, else root; none at all is 2025-03-26", () => {
  const flow = new AuthFlow(options());
  expectFetch(flow.start({ status: 401, wwwAuthenticate: 'Bearer scope="a"' }), "protected-resource-metadata", PRM_URL);
  expectFetch(
    flow.receive({ status: 404, body: undefined }),
    "protected-resource-metadata",
    "https://mcp.example.com/.well-known/oauth-protected-resource",
  );
  // No document anywhere: the MCP server's origin is the authorization server (2025-03-26).
  expectFetch(
    flow.receive({ status: 200, body: { not: "metadata" } }),
    "authorization-server-metadata",
    "https://mcp.example.com/.well-known/oauth-authorization-server",
  );
  expectFetch(
    flow.receive({ status: 404, body: undefined }),
    "authorization-server-metadata",
    "https://mcp.example.com/.well-known/openid-configuration",
  );
  // No metadata either: the default endpoints.
  const load = flow.receive({ status: 404, body: undefined });
  assert.deepEqual(load, { kind: "load", issuer: "https://mcp.example.com" });
  const reg = expectFetch(flow.loaded(undefined), "registration", "https://mcp.example.com/register");
  const authorize = flow.receive({ status: 201, body: { client_id: "c" } });
  assert.equal(authorize.kind, "authorize");
  assert.ok((authorize as { url: string }).url.startsWith("https://mcp.example.com/authorize?"));
  void reg;
});

test("AUTH-02, AUTH-07: 2025-03-26 metadata at the server's origin names its own issuer, which the redirect's iss is then held to", () => {
  const flow = new AuthFlow(options({ serverUrl: "https://mcp.example.com/mcp" }));
  flow.start({ status: 401, wwwAuthenticate: null });
  flow.receive({ status: 404, body: undefined });
  flow.receive({ status: 404, body: undefined });
  const load = flow.receive({
    status: 200,
    body: asm({
      issuer: "https://mcp.example.com/oauth",
      authorization_endpoint: "https://mcp.example.com/oauth/authorize",
      token_endpoint: "https://mcp.example.com/oauth/token",
      registration_endpoint: "https://mcp.example.com/oauth/register",
    }),
  });
  assert.deepEqual(load, { kind: "load", issuer: "https://mcp.example.com/oauth" });
});

test("AUTH-02: authorization server metadata: RFC 8414 then OIDC for a root issuer; inserted, OIDC inserted, OIDC appended for a path issuer", () => {
  const root = new AuthFlow(options());
  root.start(challenge401);
  expectFetch(root.receive({ status: 200, body: prm() }), "authorization-server-metadata", ASM_URL);
  expectFetch(root.receive({ status: 404, body: undefined }), "authorization-server-metadata", `${AS}/.well-known/openid-configuration`);
  assert.equal(root.receive({ status: 200, body: asm() }).kind, "load");

  const tenant = `${AS}/tenant1`;
  const path = new AuthFlow(options());
  path.start(challenge401);
  expectFetch(
    path.receive({ status: 200, body: prm({ authorization_servers: [tenant] }) }),
    "authorization-server-metadata",
    `${AS}/.well-known/oauth-authorization-server/tenant1`,
  );
  expectFetch(
    path.receive({ status: 404, body: undefined }),
    "authorization-server-metadata",
    `${AS}/.well-known/openid-configuration/tenant1`,
  );
  expectFetch(
    path.receive({ status: 500, body: undefined }),
    "authorization-server-metadata",
    `${AS}/tenant1/.well-known/openid-configuration`,
  );
  // With a PRM, no metadata at all is an error (the default endpoints are 2025-03-26 only).
  expectFailed(path.receive({ status: 404, body: undefined }), "authorization-server-metadata");
});

test("AUTH-02: metadata whose issuer is not the one the URL was built from is refused (RFC 8414 3.3)", () => {
  const flow = new AuthFlow(options());
  flow.start(challenge401);
  flow.receive({ status: 200, body: prm() });
  expectFailed(flow.receive({ status: 200, body: asm({ issuer: "https://attacker.example.com" }) }), "authorization-server-metadata");
});

test("AUTH-03: an authorization server that does not list S256 (or lists no methods) is refused", () => {
  for (const methods of [undefined, ["plain"]]) {
    const flow = new AuthFlow(options());
    flow.start(challenge401);
    flow.receive({ status: 200, body: prm() });
    const doc = asm({ code_challenge_methods_supported: methods }) as { code_challenge_methods_supported?: unknown };
    if (methods === undefined) delete doc.code_challenge_methods_supported;
    expectFailed(flow.receive({ status: 200, body: doc }), "pkce-unsupported");
  }
});

test("AUTH-06: client identity: pre-registered, then a client ID metadata document, then dynamic registration", () => {
  const pre = new AuthFlow(options({ client: { clientId: "pre", clientSecret: "s", issuer: AS } }));
  discover(pre, prm(), asm({ client_id_metadata_document_supported: true }));
  const a = pre.loaded(undefined);
  assert.equal(a.kind, "authorize", "no registration request for a pre-registered client");
  assert.equal(new URL((a as { url: string }).url).searchParams.get("client_id"), "pre");

  const cimdUrl = "https://client.example.com/metadata.json";
  const cimd = new AuthFlow(options({ clientMetadataUrl: cimdUrl }));
  discover(cimd, prm(), asm({ client_id_metadata_document_supported: true }));
  const b = cimd.loaded(undefined);
  assert.equal(new URL((b as { url: string }).url).searchParams.get("client_id"), cimdUrl);

  // CIMD not advertised: registration; a pre-registered client of another issuer is not used.
  const dcr = new AuthFlow(options({ clientMetadataUrl: cimdUrl, client: { clientId: "elsewhere", issuer: "https://other.example.com" } }));
  discover(dcr);
  const reg = expectFetch(dcr.loaded(undefined), "registration");
  const body = JSON.parse(reg.request.body as string) as Record<string, unknown>;
  assert.deepEqual(body.redirect_uris, [REDIRECT]);
  assert.equal(body.application_type, "native");
  assert.deepEqual(body.grant_types, ["authorization_code", "refresh_token"]);
  assert.equal(body.client_name, "test");

  const none = new AuthFlow(options());
  discover(none, prm(), asm({ registration_endpoint: undefined }));
  expectFailed(none.loaded(undefined), "client-identity");
});

test("AUTH-11: credentials are keyed by issuer: a stored client of this issuer is reused, one of another issuer is not", () => {
  const stored: StoredCredentials = { issuer: AS, client: { clientId: "stored-client" } };
  const same = new AuthFlow(options());
  discover(same);
  assert.equal(new URL((same.loaded(stored) as { url: string }).url).searchParams.get("client_id"), "stored-client");
  const other = new AuthFlow(options());
  discover(other);
  expectFetch(other.loaded({ issuer: "https://old-as.example.com", client: { clientId: "old" } }), "registration");
});

test("AUTH-10: scope choice: the challenge's, else the resource's scopes_supported, else omitted; offline_access when the server lists it", () => {
  const scopeOf = (trigger: { status: number; wwwAuthenticate: string }, prmDoc: object, asmDoc: object = asm()): string | null => {
    const flow = new AuthFlow(options({ client: { clientId: "c" } }));
    discover(flow, prmDoc, asmDoc, trigger);
    return new URL((flow.loaded(undefined) as { url: string }).url).searchParams.get("scope");
  };
  assert.equal(
    scopeOf(
      { status: 401, wwwAuthenticate: `Bearer resource_metadata="${PRM_URL}", scope="files:read"` },
      prm({ scopes_supported: ["a", "b"] }),
    ),
    "files:read",
  );
  assert.equal(scopeOf(challenge401, prm({ scopes_supported: ["a", "b"] })), "a b");
  assert.equal(scopeOf(challenge401, prm()), null);
  assert.equal(
    scopeOf(challenge401, prm({ scopes_supported: ["a"] }), asm({ scopes_supported: ["a", "offline_access"] })),
    "a offline_access",
  );
});

test("AUTH-10: step-up on 403 insufficient_scope asks for the union of scopes and never refreshes", () => {
  const flow = new AuthFlow(options({ client: { clientId: "c" } }));
  const trigger = {
    status: 403,
    wwwAuthenticate: `Bearer error="insufficient_scope", scope="mcp:write", resource_metadata="${PRM_URL}"`,
    previousScopes: ["mcp:basic"],
  };
  discover(flow, prm(), asm(), trigger);
  const step = flow.loaded({
    issuer: AS,
    tokens: { accessToken: "old", tokenType: "Bearer", refreshToken: "rt", resource: MCP, scope: ["mcp:basic"] },
  });
  assert.equal(step.kind, "authorize", "a step-up goes to the user, not to refresh");
  assert.equal(new URL((step as { url: string }).url).searchParams.get("scope"), "mcp:basic mcp:write");
});

test("AUTH-11: refresh carries resource; a refused refresh falls back to authorization; a refresh answer without refresh_token keeps the old one", () => {
  const stored: StoredCredentials = {
    issuer: AS,
    client: { clientId: "c" },
    tokens: { accessToken: "old", tokenType: "Bearer", refreshToken: "rt-old", resource: MCP },
  };
  const rejected = { ...challenge401, rejectedToken: "old" } as typeof challenge401;
  const flow = new AuthFlow(options());
  discover(flow, prm(), asm(), rejected);
  const refresh = expectFetch(flow.loaded(stored), "refresh", `${AS}/token`);
  const body = form(refresh.request.body);
  assert.equal(body.get("grant_type"), "refresh_token");
  assert.equal(body.get("refresh_token"), "rt-old");
  assert.equal(body.get("resource"), MCP, "a refresh without resource would get a token for any audience");
  const done = flow.receive({ status: 200, body: { access_token: "new", token_type: "Bearer" } }) as Extract<AuthStep, { kind: "done" }>;
  assert.equal(done.tokens.accessToken, "new");
  assert.equal(done.tokens.refreshToken, "rt-old");

  const refused = new AuthFlow(options());
  discover(refused, prm(), asm(), rejected);
  refused.loaded(stored);
  assert.equal(refused.receive({ status: 400, body: { error: "invalid_grant" } }).kind, "authorize");
});

test("AUTH-11: stored tokens the server did not just refuse are reused; a refused one is not", () => {
  const stored: StoredCredentials = {
    issuer: AS,
    client: { clientId: "c" },
    tokens: { accessToken: "good", tokenType: "Bearer", resource: MCP, expiresAt: 2_000_000 },
  };
  const reuse = new AuthFlow(options());
  discover(reuse);
  assert.equal(reuse.loaded(stored).kind, "done");
  const refused = new AuthFlow(options());
  discover(refused, prm(), asm(), { ...challenge401, rejectedToken: "good" } as typeof challenge401);
  assert.equal(refused.loaded(stored).kind, "authorize");
  const expired = new AuthFlow(options({ now: 3_000_000 }));
  discover(expired);
  assert.equal(expired.loaded(stored).kind, "authorize");
});

test("AUTH-06: token endpoint client authentication: client_secret_basic, client_secret_post, none", () => {
  const tokenRequest = (
    client: { clientId: string; clientSecret?: string; tokenEndpointAuthMethod?: string },
    methods?: string[],
  ): Extract<AuthStep, { kind: "fetch" }> => {
    const flow = new AuthFlow(options({ client }));
    discover(flow, prm(), asm(methods === undefined ? {} : { token_endpoint_auth_methods_supported: methods }));
    const authorize = flow.loaded(undefined) as Extract<AuthStep, { kind: "authorize" }>;
    return expectFetch(flow.redirected(callback(authorize)), "token");
  };
  const basic = tokenRequest({ clientId: "id:1", clientSecret: "s e/cret" });
  assert.equal(basic.request.headers.Authorization, `Basic ${Buffer.from("id%3A1:s+e%2Fcret").toString("base64")}`);
  assert.equal(form(basic.request.body).has("client_secret"), false);
  const post = tokenRequest({ clientId: "id", clientSecret: "sec" }, ["client_secret_post"]);
  assert.equal(post.request.headers.Authorization, undefined);
  assert.equal(form(post.request.body).get("client_secret"), "sec");
  assert.equal(form(post.request.body).get("client_id"), "id");
  const none = tokenRequest({ clientId: "pub" });
  assert.equal(none.request.headers.Authorization, undefined);
  assert.equal(form(none.request.body).get("client_id"), "pub");
  const registered = tokenRequest({ clientId: "id", clientSecret: "sec", tokenEndpointAuthMethod: "client_secret_post" }, [
    "client_secret_basic",
    "client_secret_post",
  ]);
  assert.equal(form(registered.request.body).get("client_secret"), "sec", "the registered method wins");
});

test("AUTH-12: client credentials: with a secret, and with private_key_jwt through a sign step", () => {
  const secret = new AuthFlow(options({ grant: "client_credentials", client: { clientId: "m2m", clientSecret: "s" } }));
  discover(secret);
  const req = expectFetch(secret.loaded(undefined), "token");
  assert.equal(form(req.request.body).get("grant_type"), "client_credentials");
  assert.equal(form(req.request.body).get("resource"), MCP);

  const jwt = new AuthFlow(
    options({
      grant: "client_credentials",
      client: { clientId: "m2m", tokenEndpointAuthMethod: "private_key_jwt" },
      signingAlgorithm: "ES256",
    }),
  );
  discover(jwt);
  const sign = jwt.loaded(undefined);
  assert.equal(sign.kind, "sign");
  const input = (sign as Extract<AuthStep, { kind: "sign" }>).signingInput;
  const [h, p] = input.split(".") as [string, string];
  assert.deepEqual(JSON.parse(Buffer.from(h, "base64url").toString()), { alg: "ES256", typ: "JWT" });
  const claims = JSON.parse(Buffer.from(p, "base64url").toString()) as Record<string, unknown>;
  assert.equal(claims.iss, "m2m");
  assert.equal(claims.sub, "m2m");
  assert.equal(claims.aud, AS);
  assert.equal(claims.exp, 1000 + 300);
  expectFailed(new AuthFlow(options()).signed("x"), "flow-misuse");
  const token = expectFetch(jwt.signed("c2lnbmF0dXJl"), "token");
  const body = form(token.request.body);
  assert.equal(body.get("client_assertion_type"), "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
  assert.equal(body.get("client_assertion"), `${input}.c2lnbmF0dXJl`);
});

test("AUTH-12: workload identity: the jwt-bearer grant presents the configured assertion; without one the flow fails", () => {
  const flow = new AuthFlow(options({ grant: "jwt_bearer", assertion: "workload.jwt.sig", client: { clientId: "wif" } }));
  discover(flow);
  const req = expectFetch(flow.loaded(undefined), "token");
  const body = form(req.request.body);
  assert.equal(body.get("grant_type"), "urn:ietf:params:oauth:grant-type:jwt-bearer");
  assert.equal(body.get("assertion"), "workload.jwt.sig");
  assert.equal(body.get("resource"), MCP);
  const missing = new AuthFlow(options({ grant: "jwt_bearer", client: { clientId: "wif" } }));
  discover(missing);
  expectFailed(missing.loaded(undefined), "assertion");
});

test("AUTH-12: enterprise-managed authorization: token exchange at the IdP, then the ID-JAG as a jwt-bearer grant", () => {
  const flow = new AuthFlow(
    options({
      client: { clientId: "c", clientSecret: "s" },
      enterprise: { idpTokenEndpoint: "https://idp.example.com/token", idpClientId: "idp-client", idToken: "id.token.x" },
    }),
  );
  discover(flow);
  const exchange = expectFetch(flow.loaded(undefined), "token-exchange", "https://idp.example.com/token");
  const body = form(exchange.request.body);
  assert.equal(body.get("audience"), AS);
  assert.equal(body.get("resource"), MCP);
  assert.equal(body.get("subject_token"), "id.token.x");
  const grant = expectFetch(flow.receive({ status: 200, body: { access_token: "the-jag" } }), "token");
  assert.equal(form(grant.request.body).get("grant_type"), "urn:ietf:params:oauth:grant-type:jwt-bearer");
  assert.equal(form(grant.request.body).get("assertion"), "the-jag");
  expectFailed(
    new AuthFlow(
      options({
        enterprise: { idpTokenEndpoint: "https://idp.example.com/token", idpClientId: "i", idToken: "t" },
        client: { clientId: "c" },
      }),
    ).receive({ status: 200, body: {} }),
    "flow-misuse",
  );
});

test("AUTH-09: bad token answers: an error body, no access_token, a DPoP token type", () => {
  for (const [status, body, reason] of [
    [400, { error: "invalid_grant", error_description: "bad code" }, /invalid_grant/],
    [200, { token_type: "Bearer" }, /no access_token/],
    [200, { access_token: "x", token_type: "DPoP" }, /not Bearer/],
    [200, "not json", /JSON object/],
  ] as const) {
    const flow = new AuthFlow(options());
    const authorize = toAuthorize(flow);
    flow.redirected(callback(authorize));
    const step = flow.receive({ status, body });
    expectFailed(step, "token");
    assert.match((step as Extract<AuthStep, { kind: "failed" }>).error.got, reason);
  }
});

test("AUTH-09: misuse never throws: inputs out of order fail the flow, and a failed flow stays failed", () => {
  const flow = new AuthFlow(options());
  expectFailed(flow.receive({ status: 200, body: {} }), "flow-misuse");
  expectFailed(flow.loaded(undefined), "flow-misuse");
  expectFailed(flow.redirected(REDIRECT), "flow-misuse");
  expectFailed(flow.start(challenge401), "flow-misuse");
  expectFailed(new AuthFlow(options({ serverUrl: "not a url" })).start(challenge401), "server-url");
  expectFailed(new AuthFlow(options({ redirectUri: undefined })).start(challenge401), "redirect-uri");
  const rejected = new AuthFlow(options());
  const authorize = toAuthorize(rejected);
  expectFailed(rejected.redirected("::::"), "redirect");
  void authorize;
});

test("AUTH-09: a flow makes at most maxRequests requests", () => {
  const flow = new AuthFlow(options({ maxRequests: 2 }));
  expectFetch(flow.start(challenge401), "protected-resource-metadata");
  expectFetch(flow.receive({ status: 404, body: undefined }), "protected-resource-metadata");
  expectFailed(flow.receive({ status: 404, body: undefined }), "request-limit");
});

test("AUTH-13: DPoP: token requests are marked for a proof only when the host can sign and the server lists the algorithm", () => {
  const run = (dpopAlgorithm: string | undefined, listed: string[] | undefined): Extract<AuthStep, { kind: "fetch" }> => {
    const flow = new AuthFlow(options({ client: { clientId: "c" }, ...(dpopAlgorithm !== undefined ? { dpopAlgorithm } : {}) }));
    discover(flow, prm(), asm(listed === undefined ? {} : { dpop_signing_alg_values_supported: listed }));
    const authorize = flow.loaded(undefined) as Extract<AuthStep, { kind: "authorize" }>;
    return expectFetch(flow.redirected(callback(authorize)), "token");
  };
  assert.equal(run("ES256", ["ES256"]).dpop, true);
  assert.equal(run("ES256", ["RS256"]).dpop, undefined);
  assert.equal(run(undefined, ["ES256"]).dpop, undefined);
  assert.equal(run("ES256", undefined).dpop, undefined);
  const flow = new AuthFlow(options({ client: { clientId: "c" }, dpopAlgorithm: "ES256" }));
  discover(flow, prm(), asm({ dpop_signing_alg_values_supported: ["ES256"] }));
  flow.redirected(callback(flow.loaded(undefined) as Extract<AuthStep, { kind: "authorize" }>));
  const done = flow.receive({ status: 200, body: { access_token: "t", token_type: "DPoP" } });
  assert.equal((done as Extract<AuthStep, { kind: "done" }>).tokens.tokenType, "DPoP");
});
