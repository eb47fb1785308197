// End to end over loopback: the reference server behind protectedResource() with a JWT
// verifier (the test authorization server's JWKS), served by serveHttp with its auth hook;
// the reference client with OAuth follows the 401 to completion against the test
// authorization server (spec-tests/auth/test-as.ts) and its handlers see ctx.auth. Also the
// wire answers of the resource server: the 401 challenge, the metadata document, a token in
// the query string, a forged token, and a step-up 403 that the client follows once.

import assert from "node:assert/strict";
import { test } from "node:test";
import { bearerChallenge } from "../../lib/auth/challenge.js";
import { connectHttpNode } from "../../lib/hosts/http-client-node.js";
import { firstText, withTimeout } from "../support/helpers.js";
import { startTestAuthServer } from "./test-as.js";
import { after, connectWithAuth, headless, protectedServer } from "./protected.js";

const INFO = { name: "auth-e2e", version: "1" };

test("AUTH-01: an unauthenticated request gets 401 naming the metadata, which is served at its well-known path", async (t) => {
  const as = await startTestAuthServer();
  after(t, () => as.close());
  const { url, base } = await protectedServer(t, as);
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  assert.equal(res.status, 401);
  const challenge = bearerChallenge(res.headers.get("www-authenticate"));
  assert.equal(challenge?.resourceMetadata, `${base}/.well-known/oauth-protected-resource/mcp`);
  assert.deepEqual(challenge?.scope, ["mcp:tools"]);
  const doc = await fetch(challenge?.resourceMetadata as string, { method: "GET", headers: {} });
  assert.equal(doc.status, 200);
  assert.deepEqual(JSON.parse(await doc.text()), {
    resource: url,
    authorization_servers: [as.issuer],
    bearer_methods_supported: ["header"],
    scopes_supported: ["mcp:tools"],
  });
  const inQuery = await fetch(`${url}?access_token=abc`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: "{}",
  });
  assert.equal(inQuery.status, 401);
  assert.equal(bearerChallenge(inQuery.headers.get("www-authenticate"))?.error, "invalid_request");
  const forged = await fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Authorization: "Bearer eyJhbGciOiJub25lIn0.e30.",
    },
    body: "{}",
  });
  assert.equal(forged.status, 401);
  assert.equal(bearerChallenge(forged.headers.get("www-authenticate"))?.error, "invalid_token");
});

for (const versions of [["2025-11-25"], ["2025-11-25", "2026-07-28"]] as const) {
  test(`AUTH-01, AUTH-03: the reference client follows the 401 to completion (${versions.join(" + ")}) and handlers see ctx.auth`, async (t) => {
    const as = await startTestAuthServer({ scopes: ["mcp:tools"] });
    after(t, () => as.close());
    const { url } = await protectedServer(t, as);
    const { connection, store, errors } = await connectWithAuth(t, url, { versions });
    assert.deepEqual(errors, []);
    const result = await withTimeout(connection.client.callTool("whoami", {}), 10_000, "whoami");
    assert.equal(firstText(result), "user-1 mcp:tools");
    const stored = store.get(as.issuer);
    assert.ok(stored?.client?.clientId.startsWith("client-"), "the registration is kept under the issuer");
    assert.ok(stored?.tokens?.refreshToken !== undefined);
    // One registration and one authorization for the whole session: the token is reused.
    assert.equal(as.seen.filter((s) => s.path === "/register").length, 1);
    assert.equal(as.seen.filter((s) => s.path === "/authorize").length, 1);
    assert.equal(as.seen.find((s) => s.path === "/authorize")?.params.get("resource"), url);
  });
}

test("AUTH-10: a server requiring a scope the token lacks answers 403 insufficient_scope; the client steps up once, then gives up", async (t) => {
  const as = await startTestAuthServer({ grant: () => "mcp:tools" });
  after(t, () => as.close());
  const { url } = await protectedServer(t, as, ["mcp:admin"]);
  const errors: string[] = [];
  const connecting = connectHttpNode({
    url,
    info: INFO,
    versions: ["2025-11-25"],
    auth: { redirectUri: "http://127.0.0.1:9/callback", onRedirect: headless, onError: (e) => errors.push(e.rule), maxAuthorizations: 2 },
  });
  await assert.rejects(withTimeout(connecting, 15_000, "connect"), /HTTP 403/);
  // The test AS never grants mcp:admin: the flows asked for it (the challenge's scope) and got mcp:tools.
  const scopes = as.seen.filter((s) => s.path === "/authorize").map((s) => s.params.get("scope"));
  assert.ok(scopes.length >= 1 && scopes.length <= 2, `bounded authorizations: ${scopes.length}`);
  assert.ok(scopes.every((s) => s?.split(" ").includes("mcp:admin")));
  assert.deepEqual(errors, []);
});
