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
