// The transport's OAuth client (lib/http-client/oauth.ts) against a scripted authorization server
// behind a fake fetch: one flow at a time, a bounded number of flows without success, and
// every failure of its collaborators (fetch, store, redirect handler, signing key) ending
// the flow with an OAuthFlowError, never a crash.

import assert from "node:assert/strict";
import { createHash, webcrypto } from "node:crypto";
import { test } from "node:test";
import type { OAuthFlowError } from "../../lib/auth/errors.js";
import type { CredentialStore, StoredCredentials } from "../../lib/auth/types.js";
import { OAuthClient, type AuthFetch, type HttpAuthOptions } from "../../lib/http-client/oauth.js";
import type { ReadableStreamLike, ResponseLike } from "../../lib/http-client/types.js";
import type { HttpTimers } from "../../lib/peer/shared/timers.js";

/** A body of one chunk, read as the OAuth client reads every body (a stream). */
function bodyOf(text: string): ReadableStreamLike {
  let sent = false;
  return {
    getReader: () => ({
      read: async () => {
        if (sent) return { done: true };
        sent = true;
        return { done: false, value: new TextEncoder().encode(text) };
      },
      cancel: async () => undefined,
    }),
  };
}

function answer(status: number, text: string, headers: { get(name: string): string | null } = { get: () => null }): ResponseLike {
  return { status, headers, body: bodyOf(text) };
}

const timers: HttpTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle),
};

const MCP = "https://mcp.example.com/mcp";
const AS = "https://auth.example.com";
const WWW = `Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"`;

function fakeAs(overrides: { token?: () => { status: number; body: unknown } | Promise<never> } = {}): {
  fetch: AuthFetch;
  calls: string[];
} {
  const calls: string[] = [];
  const json = (status: number, body: unknown): ResponseLike => answer(status, typeof body === "string" ? body : JSON.stringify(body));
  const fetch: AuthFetch = async (url) => {
    calls.push(url);
    if (url.endsWith("/oauth-protected-resource/mcp")) return json(200, { resource: MCP, authorization_servers: [AS] });
    if (url === `${AS}/.well-known/oauth-authorization-server`)
      return json(200, {
        issuer: AS,
        authorization_endpoint: `${AS}/authorize`,
        token_endpoint: `${AS}/token`,
        registration_endpoint: `${AS}/register`,
        code_challenge_methods_supported: ["S256"],
      });
    if (url === `${AS}/register`) return json(201, { client_id: "c1" });
    if (url === `${AS}/token`) {
      const answer = overrides.token?.() ?? { status: 200, body: { access_token: `at-${calls.length}`, token_type: "Bearer" } };
      if (answer instanceof Promise) return answer;
      return json(answer.status, answer.body);
    }
    return json(404, "<html>not found</html>");
  };
  return { fetch, calls };
}

/** A redirect handler that consents at once: the callback carries a code and the state sent. */
const consent = async (url: string): Promise<string> => `http://127.0.0.1:9/cb?code=c&state=${new URL(url).searchParams.get("state")}`;

function client(fetch: AuthFetch, extra: Partial<HttpAuthOptions> = {}): { oauth: OAuthClient; errors: OAuthFlowError[] } {
  const errors: OAuthFlowError[] = [];
  const oauth = new OAuthClient(
    {
      crypto: webcrypto,
      now: () => 1000,
      redirectUri: "http://127.0.0.1:9/cb",
      onRedirect: consent,
      onError: (e) => errors.push(e),
      ...extra,
    },
    { fetch, timers },
  );
  return { oauth, errors };
}

test("AUTH-09: a refusal runs one flow; concurrent refusals share it; the token then goes on every request", async () => {
  const as = fakeAs();
  const { oauth, errors } = client(as.fetch);
  assert.equal(oauth.authorization(), undefined);
  const [a, b] = await Promise.all([oauth.refused(MCP, 401, WWW, undefined), oauth.refused(MCP, 401, WWW, undefined)]);
  assert.deepEqual([a, b], [true, true]);
  assert.deepEqual(errors, []);
  assert.equal(as.calls.filter((u) => u.endsWith("/register")).length, 1, "one flow for both");
  assert.match(oauth.authorization() ?? "", /^Bearer at-/);
  // A request that carried an older token than the current one just retries.
  assert.equal(await oauth.refused(MCP, 401, WWW, "Bearer stale"), true);
  assert.equal(as.calls.filter((u) => u.endsWith("/register")).length, 1);
});

test("AUTH-09: at most maxAuthorizations flows without an accepted request in between", async () => {
  const as = fakeAs();
  const { oauth } = client(as.fetch, { maxAuthorizations: 2 });
  assert.equal(await oauth.refused(MCP, 401, WWW, undefined), true);
  assert.equal(await oauth.refused(MCP, 401, WWW, oauth.authorization()), true);
  assert.equal(await oauth.refused(MCP, 401, WWW, oauth.authorization()), false, "the third flow is not started");
  oauth.accepted();
  assert.equal(await oauth.refused(MCP, 401, WWW, oauth.authorization()), true, "an accepted request resets the budget");
});

test("AUTH-09: failures end the flow with an OAuthFlowError: token endpoint down, no redirect handler, the user gives up, a bad key", async () => {
  const down = client(fakeAs({ token: () => Promise.reject(new Error("ECONNREFUSED")) }).fetch);
  assert.equal(await down.oauth.refused(MCP, 401, WWW, undefined), false);
  assert.equal(down.errors[0]?.rule, "token");

  const noHandler = client(fakeAs().fetch, { onRedirect: undefined });
  assert.equal(await noHandler.oauth.refused(MCP, 401, WWW, undefined), false);
  assert.equal(noHandler.errors[0]?.rule, "redirect-handler");

  const abandoned = client(fakeAs().fetch, { onRedirect: () => Promise.reject(new Error("closed the tab")) });
  assert.equal(await abandoned.oauth.refused(MCP, 401, WWW, undefined), false);
  assert.equal(abandoned.errors[0]?.rule, "authorization-abandoned");
  assert.match(abandoned.errors[0]?.message ?? "", /closed the tab/);

  const badKey = client(fakeAs().fetch, { grant: "client_credentials", client: { clientId: "m" }, privateKeyPem: "not a pem" });
  assert.equal(await badKey.oauth.refused(MCP, 401, WWW, undefined), false);
  assert.equal(badKey.errors[0]?.rule, "private-key-jwt");

  const throwingReporter = new OAuthClient(
    {
      crypto: webcrypto,
      now: () => 1,
      onError: () => {
        throw new Error("reporter broke");
      },
    },
    { fetch: fakeAs().fetch, timers },
  );
  assert.equal(await throwingReporter.refused(MCP, 401, WWW, undefined), false, "a throwing onError is contained");
});

test("AUTH-11: a store that throws is an empty store; what a flow obtains is stored under the issuer", async () => {
  const saved: StoredCredentials[] = [];
  const broken: CredentialStore = {
    get: () => Promise.reject(new Error("keychain locked")),
    set: (c) => void saved.push(c),
    delete: () => undefined,
  };
  const { oauth, errors } = client(fakeAs().fetch, { store: broken });
  assert.equal(await oauth.refused(MCP, 401, WWW, undefined), true);
  assert.deepEqual(errors, []);
  assert.equal(saved[0]?.issuer, AS);
  assert.equal(saved[0]?.client?.clientId, "c1");
  assert.equal(oauth.current?.resource, MCP);
  const failingSet: CredentialStore = { get: () => undefined, set: () => Promise.reject(new Error("disk full")), delete: () => undefined };
  assert.equal(await client(fakeAs().fetch, { store: failingSet }).oauth.refused(MCP, 401, WWW, undefined), true);
});

test("AUTH-12: client credentials with private_key_jwt: the assertion is signed through Web Crypto", async () => {
  const subtle = webcrypto.subtle as unknown as {
    generateKey(a: unknown, x: boolean, u: string[]): Promise<{ privateKey: unknown }>;
    exportKey(f: string, k: unknown): Promise<ArrayBuffer>;
  };
  const pair = await subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
  let binary = "";
  for (const byte of new Uint8Array(await subtle.exportKey("pkcs8", pair.privateKey))) binary += String.fromCharCode(byte);
  const pem = `-----BEGIN PRIVATE KEY-----\n${btoa(binary)}\n-----END PRIVATE KEY-----`;
  let assertion = "";
  const as = fakeAs();
  const fetch: AuthFetch = async (url, init) => {
    if (url === `${AS}/token`) assertion = new URLSearchParams(init.body ?? "").get("client_assertion") ?? "";
    return as.fetch(url, init);
  };
  const { oauth, errors } = client(fetch, {
    grant: "client_credentials",
    client: { clientId: "m2m", tokenEndpointAuthMethod: "private_key_jwt" },
    privateKeyPem: pem,
  });
  assert.equal(await oauth.refused(MCP, 401, WWW, undefined), true, JSON.stringify(errors.map((e) => e.message)));
  assert.equal(assertion.split(".").length, 3);
  assert.equal(assertion.split(".")[2]?.length, 86);
});

declare function btoa(data: string): string;

test("AUTH-13: DPoP (RFC 9449): proofs at the token endpoint, a resend with the server's nonce, then the DPoP scheme and a fresh proof per request", async () => {
  const proofs: string[] = [];
  const as = fakeAs({ token: () => ({ status: 200, body: { access_token: "bound", token_type: "DPoP" } }) });
  let challenged = false;
  const fetch: AuthFetch = async (url, init) => {
    if (url === `${AS}/.well-known/oauth-authorization-server`) {
      const doc = JSON.parse(await textOf(await as.fetch(url, init))) as object;
      return answer(200, JSON.stringify({ ...doc, dpop_signing_alg_values_supported: ["ES256"] }));
    }
    if (url === `${AS}/token`) {
      proofs.push(init.headers.DPoP ?? "");
      if (!challenged) {
        challenged = true;
        return answer(400, JSON.stringify({ error: "use_dpop_nonce" }), { get: (n: string) => (n === "dpop-nonce" ? "as-nonce-1" : null) });
      }
    }
    return as.fetch(url, init);
  };
  const { oauth, errors } = client(fetch, { dpop: true });
  assert.equal(
    await oauth.refused(MCP, 401, 'DPoP resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"', undefined),
    true,
    JSON.stringify(errors.map((e) => e.message)),
  );
  assert.equal(proofs.length, 2, "one resend after use_dpop_nonce");
  const decode = (
    jwt: string,
  ): {
    header: { typ?: string; jwk?: { d?: string; kty?: string } };
    claims: { jti?: string; htm?: string; htu?: string; nonce?: string; ath?: string };
  } => {
    const [h, p] = jwt.split(".") as [string, string];
    return { header: JSON.parse(Buffer.from(h, "base64url").toString()), claims: JSON.parse(Buffer.from(p, "base64url").toString()) };
  };
  const [first, second] = proofs.map(decode) as [ReturnType<typeof decode>, ReturnType<typeof decode>];
  assert.equal(first.header.typ, "dpop+jwt");
  assert.equal(first.header.jwk?.kty, "EC");
  assert.equal(first.header.jwk?.d, undefined);
  assert.deepEqual([first.claims.htm, first.claims.htu, first.claims.nonce], ["POST", `${AS}/token`, undefined]);
  assert.equal(second.claims.nonce, "as-nonce-1");
  assert.notEqual(first.claims.jti, second.claims.jti);
  assert.equal(oauth.authorization(), "DPoP bound");
  const headers = await oauth.headersFor("POST", `${MCP}?x=1`);
  const resourceProof = decode(headers.DPoP ?? "");
  assert.equal(resourceProof.claims.htu, MCP, "htu without the query");
  assert.equal(resourceProof.claims.ath, createHash("sha256").update("bound").digest("base64url"));
  assert.equal(oauth.nonceChallenge(401, 'DPoP error="use_dpop_nonce"', "rs-nonce"), true);
  assert.equal(decode((await oauth.headersFor("GET", MCP)).DPoP ?? "").claims.nonce, "rs-nonce");
  assert.equal(oauth.nonceChallenge(401, 'DPoP error="invalid_token"', "n"), false);
  assert.equal(oauth.nonceChallenge(401, 'DPoP error="use_dpop_nonce"', null), false);
});

test("AUTH-13: without dpop (or when the server does not list ES256) tokens are Bearer, and a DPoP token_type is refused", async () => {
  const as = fakeAs({ token: () => ({ status: 200, body: { access_token: "bound", token_type: "DPoP" } }) });
  const { oauth, errors } = client(as.fetch, { dpop: true });
  assert.equal(await oauth.refused(MCP, 401, WWW, undefined), false);
  assert.match(errors[0]?.got ?? "", /not Bearer/);
  assert.deepEqual(await oauth.headersFor("POST", MCP), {});
  const plain = client(fakeAs().fetch);
  await plain.oauth.refused(MCP, 401, WWW, undefined);
  assert.deepEqual(Object.keys(await plain.oauth.headersFor("POST", MCP)), ["Authorization"]);
});

async function textOf(res: ResponseLike): Promise<string> {
  const reader = res.body?.getReader();
  let text = "";
  for (let chunk = await reader?.read(); chunk !== undefined && !chunk.done; chunk = await reader?.read())
    text += new TextDecoder().decode(chunk.value);
  return text;
}
