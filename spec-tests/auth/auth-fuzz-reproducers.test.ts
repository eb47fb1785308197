// Minimised reproducers of what the fuzzer's OAuth target (spec-tests/fuzz/oauth-episode.ts)
// found in lib/auth, one test each, so that none comes back. Each names the fuzzer seed and
// the failure kind it reproduces.

import { test } from "node:test";
import assert from "node:assert/strict";
import { AuthFlow, type AuthStep } from "../../lib/auth/flow.js";
import { formEncode } from "../../lib/auth/encoding.js";

const MCP = "https://mcp.example.com/mcp";
const AS = "https://as.example.com";

function flowToRegistration(scopes?: string[]): AuthFlow {
  let n = 0;
  const flow = new AuthFlow({
    serverUrl: MCP,
    redirectUri: "http://127.0.0.1:5555/callback",
    now: 1_000_000,
    randomBytes: (size) => new Uint8Array(size).map(() => n++ & 255),
  });
  assert.equal(flow.start({ status: 401, wwwAuthenticate: "Bearer" }).kind, "fetch");
  const prm = { resource: MCP, authorization_servers: [AS], ...(scopes !== undefined ? { scopes_supported: scopes } : {}) };
  assert.equal(flow.receive({ status: 200, body: prm }).kind, "fetch");
  const asm = {
    issuer: AS,
    authorization_endpoint: `${AS}/authorize`,
    token_endpoint: `${AS}/token`,
    registration_endpoint: `${AS}/register`,
    code_challenge_methods_supported: ["S256"],
  };
  assert.equal(flow.receive({ status: 200, body: asm }).kind, "load");
  assert.equal(flow.loaded(undefined).kind, "fetch");
  return flow;
}

test("AUTH-09: fuzz seed 141771 [flow-threw]: a lone surrogate from the network (client_id, scope, code) never makes the flow throw a URIError", () => {
  // The registration answers a client_id that JSON can carry but UTF-8 cannot ("\ud800").
  const flow = flowToRegistration();
  let step: AuthStep | undefined;
  assert.doesNotThrow(() => (step = flow.receive({ status: 201, body: { client_id: "\ud800" } })));
  assert.equal(step?.kind, "authorize");
  assert.match((step as Extract<AuthStep, { kind: "authorize" }>).url, /client_id=%EF%BF%BD&/);
  // A scope from the resource's metadata, and a code in the browser's return.
  const scoped = flowToRegistration(["mcp", "x\udc00"]);
  const authorize = scoped.receive({ status: 201, body: { client_id: "c" } }) as Extract<AuthStep, { kind: "authorize" }>;
  assert.equal(authorize.kind, "authorize");
  assert.match(authorize.url, /scope=mcp\+x%EF%BF%BD/);
  const state = /[?&]state=([^&]*)/.exec(authorize.url)?.[1];
  let token: AuthStep | undefined;
  assert.doesNotThrow(() => (token = scoped.redirected(`http://127.0.0.1:5555/callback?code=a\ud800b&state=${state}`)));
  assert.equal(token?.kind, "fetch");
  assert.match((token as Extract<AuthStep, { kind: "fetch" }>).request.body ?? "", /code=a%EF%BF%BDb&/);
  // A surrogate pair is a character like any other.
  assert.equal(formEncode([["k", "\ud83d\ude00"]]), "k=%F0%9F%98%80");
});

const ASM = {
  issuer: AS,
  authorization_endpoint: `${AS}/authorize`,
  token_endpoint: `${AS}/token`,
  registration_endpoint: `${AS}/register`,
  code_challenge_methods_supported: ["S256"],
};

function fetchUrl(step: AuthStep): string {
  assert.equal(step.kind, "fetch", JSON.stringify(step).slice(0, 300));
  return (step as Extract<AuthStep, { kind: "fetch" }>).request.url;
}

function newFlow(extra: { serverUrl?: string; redirectUri?: string } = {}): AuthFlow {
  let n = 0;
  return new AuthFlow({
    serverUrl: extra.serverUrl ?? MCP,
    redirectUri: extra.redirectUri ?? "http://127.0.0.1:5555/callback",
    now: 1_000_000,
    randomBytes: (size) => new Uint8Array(size).map(() => n++ & 255),
  });
}

test("AUTH-02: fuzz seeds 125, 20261236 [insecure-discovery]: a challenge's plain-http resource_metadata on a foreign origin is not fetched", () => {
  const flow = newFlow();
  const first = flow.start({ status: 401, wwwAuthenticate: 'Bearer resource_metadata="http://evil.example/prm"' });
  assert.equal(fetchUrl(first), "https://mcp.example.com/.well-known/oauth-protected-resource/mcp");
  // Secure, loopback, and the MCP server's own origin (even over http) stay accepted.
  assert.equal(
    fetchUrl(newFlow().start({ status: 401, wwwAuthenticate: 'Bearer resource_metadata="https://meta.example/prm"' })),
    "https://meta.example/prm",
  );
  assert.equal(
    fetchUrl(newFlow().start({ status: 401, wwwAuthenticate: 'Bearer resource_metadata="http://localhost:9/prm"' })),
    "http://localhost:9/prm",
  );
  const plain = newFlow({ serverUrl: "http://mcp.internal/mcp" });
  assert.equal(
    fetchUrl(plain.start({ status: 401, wwwAuthenticate: 'Bearer resource_metadata="http://mcp.internal/prm"' })),
    "http://mcp.internal/prm",
  );
});

test("AUTH-02: fuzz seeds 125, 20261236 [insecure-discovery]: a plain-http authorization server is skipped; none left fails the flow", () => {
  const flow = newFlow();
  flow.start({ status: 401, wwwAuthenticate: "Bearer" });
  const next = flow.receive({ status: 200, body: { resource: MCP, authorization_servers: ["http://as.example.com", AS] } });
  assert.equal(fetchUrl(next), `${AS}/.well-known/oauth-authorization-server`);
  assert.equal(flow.receive({ status: 200, body: ASM }).kind, "load");

  const only = newFlow();
  only.start({ status: 401, wwwAuthenticate: "Bearer" });
  const failed = only.receive({ status: 200, body: { resource: MCP, authorization_servers: ["http://as.example.com"] } });
  assert.equal(failed.kind, "failed", JSON.stringify(failed).slice(0, 300));
  const error = (failed as Extract<AuthStep, { kind: "failed" }>).error;
  assert.equal(error.rule, "insecure-authorization-server");
  assert.match(error.message, /AUTH-02/);
  assert.match(error.message, /http:\/\/as\.example\.com/);
});

test("AUTH-03: fuzz seeds 36, 20261215 [honest-flow-failed:redirect]: a private-use scheme redirect (RFC 8252 7.1) completes the flow", () => {
  const redirectUri = "com.example.app:/oauth/cb";
  const flow = newFlow({ redirectUri });
  flow.start({ status: 401, wwwAuthenticate: "Bearer" });
  flow.receive({ status: 200, body: { resource: MCP, authorization_servers: [AS] } });
  flow.receive({ status: 200, body: ASM });
  const reg = flow.loaded(undefined) as Extract<AuthStep, { kind: "fetch" }>;
  assert.equal(JSON.parse(reg.request.body ?? "{}").application_type, "native");
  const authorize = flow.receive({ status: 201, body: { client_id: "c" } }) as Extract<AuthStep, { kind: "authorize" }>;
  assert.equal(authorize.kind, "authorize");
  const state = /[?&]state=([^&]*)/.exec(authorize.url)?.[1];
  // Another prefix (a different path, or the scheme alone) is refused as before.
  for (const other of [`com.example.app:/elsewhere?code=x&state=${state}`, `com.example.app:?code=x&state=${state}`]) {
    const twin = newFlow({ redirectUri });
    twin.start({ status: 401, wwwAuthenticate: "Bearer" });
    twin.receive({ status: 200, body: { resource: MCP, authorization_servers: [AS] } });
    twin.receive({ status: 200, body: ASM });
    twin.loaded(undefined);
    twin.receive({ status: 201, body: { client_id: "c" } });
    const refused = twin.redirected(other);
    assert.equal(refused.kind, "failed");
    assert.equal((refused as Extract<AuthStep, { kind: "failed" }>).error.rule, "redirect");
  }
  const token = flow.redirected(`${redirectUri}?code=the-code&state=${state}#ignored`);
  assert.equal(token.kind, "fetch", JSON.stringify(token).slice(0, 300));
  const body = new URLSearchParams((token as Extract<AuthStep, { kind: "fetch" }>).request.body ?? "");
  assert.equal(body.get("code"), "the-code");
  assert.equal(body.get("redirect_uri"), redirectUri);
  assert.equal(flow.receive({ status: 200, body: { access_token: "at", token_type: "Bearer" } }).kind, "done");
});

test("AUTH-11: a private_key_jwt client's refresh is labelled refresh after its sign step", () => {
  let n = 0;
  const flow = new AuthFlow({
    serverUrl: MCP,
    redirectUri: "http://127.0.0.1:5555/callback",
    now: 1_000_000,
    randomBytes: (size) => new Uint8Array(size).map(() => n++ & 255),
    signingAlgorithm: "ES256",
  });
  flow.start({ status: 401, wwwAuthenticate: "Bearer", rejectedToken: "old" });
  flow.receive({ status: 200, body: { resource: MCP, authorization_servers: [AS] } });
  flow.receive({ status: 200, body: ASM });
  const client = { clientId: "c", tokenEndpointAuthMethod: "private_key_jwt" };
  const sign = flow.loaded({ issuer: AS, client, tokens: { accessToken: "old", tokenType: "Bearer", refreshToken: "rt", resource: MCP } });
  assert.equal(sign.kind, "sign");
  const refresh = flow.signed("c2ln") as Extract<AuthStep, { kind: "fetch" }>;
  assert.equal(refresh.kind, "fetch");
  assert.equal(refresh.purpose, "refresh");
  assert.match(refresh.request.body ?? "", /grant_type=refresh_token/);
  // The refresh answer without a refresh token keeps the old one (AUTH-11).
  const done = flow.receive({ status: 200, body: { access_token: "new", token_type: "Bearer" } }) as Extract<AuthStep, { kind: "done" }>;
  assert.equal(done.tokens.refreshToken, "rt");
});
