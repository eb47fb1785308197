// JWTs through Web Crypto (lib/auth/jwt.ts) and the resource server helper
// (protectedResource): keys generated at test time, every algorithm the runtime has, and
// every refusal: tampered signature, alg none, wrong kid or key type, expiry and nbf, issuer
// and audience; 401 / 403 answers with their challenges; tokens only from the header.

import assert from "node:assert/strict";
import { webcrypto } from "node:crypto";
import { test } from "node:test";
import { bearerChallenge } from "../../lib/auth/challenge.js";
import { importPrivateKeyPem, jwtAccessTokenVerifier, signJws, signJwt, verifyJwt } from "../../lib/auth/jwt.js";
import { protectedResource } from "../../lib/auth/resource-server.js";
import type { AuthInfo } from "../../lib/auth/types.js";

const subtle = webcrypto.subtle as unknown as {
  generateKey(a: unknown, x: boolean, u: string[]): Promise<{ privateKey: unknown; publicKey: unknown }>;
  exportKey(f: string, k: unknown): Promise<unknown>;
};

const NOW = 1_700_000_000_000;
const SEC = NOW / 1000;

async function keyPair(alg: string): Promise<{ privateKey: unknown; jwk: { [k: string]: unknown } }> {
  const params: { [a: string]: unknown } = {
    ES256: { name: "ECDSA", namedCurve: "P-256" },
    RS256: { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    PS256: { name: "RSA-PSS", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    EdDSA: { name: "Ed25519" },
  };
  const pair = await subtle.generateKey(params[alg], true, ["sign", "verify"]);
  const jwk = (await subtle.exportKey("jwk", pair.publicKey)) as { [k: string]: unknown };
  return { privateKey: pair.privateKey, jwk: { ...jwk, kid: `${alg}-key` } };
}

const claims = { iss: "https://as", aud: "https://rs/mcp", sub: "u", exp: SEC + 60, scope: "a b" };

for (const alg of ["ES256", "RS256", "PS256", "EdDSA"]) {
  test(`AUTH-14: ${alg}: a signed token verifies; a tampered one does not`, async () => {
    const { privateKey, jwk } = await keyPair(alg);
    const token = await signJwt(webcrypto, privateKey, alg, claims, { kid: `${alg}-key` });
    const jwks = { keys: [jwk] };
    const ok = await verifyJwt(token, { crypto: webcrypto, jwks, now: NOW, issuer: "https://as", audience: "https://rs/mcp" });
    assert.equal(ok.ok, true, JSON.stringify(ok));
    const [h, p, s] = token.split(".") as [string, string, string];
    const forgedClaims = Buffer.from(JSON.stringify({ ...claims, sub: "admin" })).toString("base64url");
    assert.equal((await verifyJwt(`${h}.${forgedClaims}.${s}`, { crypto: webcrypto, jwks, now: NOW })).ok, false);
    void p;
  });
}

test("AUTH-14: refusals: alg none, unknown alg, wrong kid, wrong key type, expired, not yet valid, issuer, audience, shape", async () => {
  const { privateKey, jwk } = await keyPair("ES256");
  const jwks = { keys: [jwk] };
  const opts = { crypto: webcrypto, jwks, now: NOW };
  const sign = (c: object, h: object = { kid: "ES256-key" }): Promise<string> =>
    signJwt(webcrypto, privateKey, "ES256", c as { [k: string]: never }, h as { [k: string]: never });
  const reason = async (token: string, extra: object = {}): Promise<string> => {
    const r = await verifyJwt(token, { ...opts, ...extra });
    assert.equal(r.ok, false);
    return (r as { reason: string }).reason;
  };
  const b64 = (o: object): string => Buffer.from(JSON.stringify(o)).toString("base64url");
  assert.match(await reason(`${b64({ alg: "none" })}.${b64(claims)}.`), /alg/);
  assert.match(await reason(`${b64({ alg: "HS256" })}.${b64(claims)}.c2ln`), /not supported/);
  assert.match(await reason(await sign(claims, { kid: "other" })), /kid/);
  assert.match(await reason(await sign(claims), { jwks: { keys: [{ ...jwk, kty: "RSA" }] } }), /no key/);
  assert.match(await reason(await sign(claims), { jwks: "not a jwks" }), /no key/);
  assert.match(await reason(await sign(claims), { algorithms: ["RS256"] }), /alg not accepted/);
  assert.match(await reason(await sign({ ...claims, exp: SEC - 31 })), /expired/);
  assert.equal((await verifyJwt(await sign({ ...claims, exp: SEC - 10 }), opts)).ok, true, "within the default 30 s tolerance");
  assert.match(await reason(await sign({ ...claims, exp: undefined })), /no exp/);
  assert.match(await reason(await sign({ ...claims, nbf: SEC + 120 })), /nbf/);
  assert.match(await reason(await sign(claims), { issuer: "https://other" }), /iss/);
  assert.match(await reason(await sign(claims), { audience: ["https://other"] }), /aud/);
  assert.equal(
    (await verifyJwt(await sign({ ...claims, aud: ["x", "https://rs/mcp"] }), { ...opts, audience: "https://rs/mcp" })).ok,
    true,
  );
  assert.match(await reason("a.b"), /three parts/);
  assert.match(await reason("!!.!!.!!"), /base64url JSON/);
  assert.match(await reason("x".repeat(20000)), /bounded/);
  // A JWKS entry the runtime cannot import is skipped, not thrown.
  assert.match(await reason(await sign(claims), { jwks: { keys: [{ ...jwk, x: "AAAA" }] } }), /signature/);
});

test("AUTH-12: private_key_jwt: a PKCS#8 PEM key imports and its signatures verify; a bad PEM or algorithm throws a clear error", async () => {
  const pair = await subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
  const der = new Uint8Array((await subtle.exportKey("pkcs8", pair.privateKey)) as ArrayBuffer);
  let binary = "";
  for (const byte of der) binary += String.fromCharCode(byte);
  const pem = `-----BEGIN PRIVATE KEY-----\n${btoa(binary).replace(/(.{64})/g, "$1\n")}\n-----END PRIVATE KEY-----\n`;
  const key = await importPrivateKeyPem(webcrypto, pem, "ES256");
  const input = "header.payload";
  const signature = await signJws(webcrypto, key, "ES256", input);
  const jwk = (await subtle.exportKey("jwk", pair.publicKey)) as object;
  const header = Buffer.from(JSON.stringify({ alg: "ES256" })).toString("base64url");
  const payload = Buffer.from(JSON.stringify({ exp: SEC + 10 })).toString("base64url");
  const token = `${header}.${payload}.${await signJws(webcrypto, key, "ES256", `${header}.${payload}`)}`;
  assert.equal((await verifyJwt(token, { crypto: webcrypto, jwks: { keys: [jwk] }, now: NOW })).ok, true);
  assert.equal(signature.length, 86, "raw r||s for ES256 (64 bytes)");
  await assert.rejects(importPrivateKeyPem(webcrypto, "-----BEGIN PRIVATE KEY-----\n!!!\n-----END PRIVATE KEY-----", "ES256"), /not PEM/);
  await assert.rejects(importPrivateKeyPem(webcrypto, pem, "HS256"), /unsupported algorithm/);
  await assert.rejects(signJws(webcrypto, key, "none", input), /unsupported/);
});

declare function btoa(data: string): string;

/** The header RFC 9068 asks of an access token. */
const AT = { typ: "at+jwt" };

test("AUTH-14, AUTH-05: jwtAccessTokenVerifier: claims to AuthInfo (scope or scp, client_id, sub, aud, exp); invalid tokens are undefined", async () => {
  const { privateKey, jwk } = await keyPair("ES256");
  let jwksNow: unknown = { keys: [jwk] };
  const verify = jwtAccessTokenVerifier({ crypto: webcrypto, jwks: () => jwksNow, now: () => NOW, issuer: "https://as" });
  const token = await signJwt(webcrypto, privateKey, "ES256", { ...claims, client_id: "c1" }, AT);
  const info = await verify(token);
  assert.deepEqual(
    { ...info, claims: undefined },
    {
      token,
      scopes: ["a", "b"],
      clientId: "c1",
      subject: "u",
      audience: ["https://rs/mcp"],
      expiresAt: (SEC + 60) * 1000,
      claims: undefined,
    },
  );
  const scp = await verify(await signJwt(webcrypto, privateKey, "ES256", { iss: "https://as", exp: SEC + 60, scp: ["x", 1] }, AT));
  assert.deepEqual(scp?.scopes, ["x"]);
  jwksNow = { keys: [] };
  assert.equal(await verify(token), undefined, "the JWKS function is read per token (rotation)");
});

test("AUTH-14: RFC 7515 crit: a header naming an extension the verifier does not understand is refused, a malformed crit too", async () => {
  const { privateKey, jwk } = await keyPair("ES256");
  const opts = { crypto: webcrypto, jwks: { keys: [jwk] }, now: NOW };
  const sign = (h: object): Promise<string> => signJwt(webcrypto, privateKey, "ES256", claims, h as { [k: string]: never });
  const reason = async (token: string, extra: object = {}): Promise<string | undefined> => {
    const r = await verifyJwt(token, { ...opts, ...extra });
    return r.ok ? undefined : r.reason;
  };
  assert.match((await reason(await sign({ crit: ["exp-ext"], "exp-ext": true }))) ?? "", /crit names an extension/);
  assert.match((await reason(await sign({ crit: [] }))) ?? "", /crit is not a non-empty array/);
  assert.match((await reason(await sign({ crit: "b64" }))) ?? "", /crit is not a non-empty array/);
  assert.match((await reason(await sign({ crit: ["alg"] }))) ?? "", /crit is malformed/, "crit may not name a registered header");
  assert.match((await reason(await sign({ crit: ["x", "x"], x: 1 }), { criticalHeaders: ["x"] })) ?? "", /crit is malformed/);
  assert.match((await reason(await sign({ crit: ["x"] }), { criticalHeaders: ["x"] })) ?? "", /does not understand/, "listed but absent");
  assert.equal(await reason(await sign({ crit: ["x"], x: 1 }), { criticalHeaders: ["x"] }), undefined, "an understood extension passes");
  assert.equal(await reason(await sign({})), undefined);
});

test("AUTH-14: RFC 7519 NumericDate: exp, nbf and iat given as strings (or any non-number) are refused", async () => {
  const { privateKey, jwk } = await keyPair("ES256");
  const opts = { crypto: webcrypto, jwks: { keys: [jwk] }, now: NOW };
  const reason = async (c: object): Promise<string | undefined> => {
    const r = await verifyJwt(await signJwt(webcrypto, privateKey, "ES256", c as { [k: string]: never }), opts);
    return r.ok ? undefined : r.reason;
  };
  assert.match((await reason({ ...claims, nbf: String(SEC - 10) })) ?? "", /nbf is not a NumericDate/);
  assert.match((await reason({ ...claims, nbf: String(SEC + 1000) })) ?? "", /nbf is not a NumericDate/);
  assert.match((await reason({ ...claims, exp: String(SEC + 60) })) ?? "", /exp is not a NumericDate/);
  assert.match((await reason({ ...claims, iat: "yesterday" })) ?? "", /iat is not a NumericDate/);
  assert.match((await reason({ ...claims, iat: null })) ?? "", /iat is not a NumericDate/);
  assert.equal(await reason({ ...claims, nbf: SEC - 10, iat: SEC - 10 }), undefined);
});

test("AUTH-14: RFC 9068 typ: an access-token verifier wants at+jwt (case-blind, application/ prefix allowed); JWT only when the host opts in", async () => {
  const { privateKey, jwk } = await keyPair("ES256");
  const verify = jwtAccessTokenVerifier({ crypto: webcrypto, jwks: { keys: [jwk] }, now: () => NOW });
  const lenient = jwtAccessTokenVerifier({ crypto: webcrypto, jwks: { keys: [jwk] }, now: () => NOW, types: ["at+jwt", "JWT"] });
  const sign = (h: object): Promise<string> => signJwt(webcrypto, privateKey, "ES256", claims, h as { [k: string]: never });
  assert.notEqual(await verify(await sign({ typ: "at+jwt" })), undefined);
  assert.notEqual(await verify(await sign({ typ: "application/AT+JWT" })), undefined);
  assert.equal(await verify(await sign({ typ: "JWT" })), undefined, "typ JWT is refused by default");
  assert.equal(await verify(await sign({})), undefined, "a token without typ is refused");
  assert.equal(await verify(await sign({ typ: 7 })), undefined);
  assert.notEqual(await lenient(await sign({ typ: "JWT" })), undefined, "the host named JWT");
  assert.equal(await lenient(await sign({ typ: "dpop+jwt" })), undefined, "a DPoP proof is never an access token");
  const r = await verifyJwt(await sign({ typ: "JWT" }), { crypto: webcrypto, jwks: { keys: [jwk] }, now: NOW, types: ["at+jwt"] });
  assert.deepEqual(r, { ok: false, reason: "typ is not one of at+jwt" });
});

function request(headers: { [k: string]: string } = {}, url = "/mcp"): { url: string; headers: { [k: string]: string } } {
  return { url, headers };
}

test("AUTH-01: protectedResource: metadata at the path-inserted well-known URL; 401 without a token names it and the scopes", async () => {
  const rs = protectedResource({
    resource: "https://rs.example/mcp",
    authorizationServers: ["https://as"],
    scopesSupported: ["read"],
    resourceName: "RS",
    verify: () => undefined,
  });
  assert.equal(rs.metadataPath, "/.well-known/oauth-protected-resource/mcp");
  assert.equal(rs.metadataUrl, "https://rs.example/.well-known/oauth-protected-resource/mcp");
  assert.deepEqual(JSON.parse(rs.metadataResponse().body), {
    resource: "https://rs.example/mcp",
    authorization_servers: ["https://as"],
    bearer_methods_supported: ["header"],
    scopes_supported: ["read"],
    resource_name: "RS",
  });
  const none = await rs.authenticate(request());
  assert.equal(none.ok, false);
  const r = (none as { response: { status: number; headers: { [k: string]: string } } }).response;
  assert.equal(r.status, 401);
  assert.deepEqual(bearerChallenge(r.headers["WWW-Authenticate"]), {
    resourceMetadata: rs.metadataUrl,
    scope: ["read"],
    error: undefined,
    errorDescription: undefined,
  });
  assert.throws(
    () => protectedResource({ resource: "relative", authorizationServers: ["https://as"], verify: () => undefined }),
    /absolute/,
  );
  assert.throws(
    () => protectedResource({ resource: "https://rs", authorizationServers: [], verify: () => undefined }),
    /authorization server/,
  );
});

test("AUTH-05: protectedResource: invalid, thrown, foreign-audience, expired and query-string tokens get 401; missing scopes 403; a good one its AuthInfo", async () => {
  const good: AuthInfo = { token: "good", scopes: ["read"], audience: ["https://rs.example/mcp"], expiresAt: NOW + 1000 };
  const tokens = new Map<string, AuthInfo>([
    ["good", good],
    ["foreign", { token: "foreign", scopes: ["read"], audience: ["https://other/mcp"] }],
    ["expired", { token: "expired", scopes: ["read"], expiresAt: NOW - 1 }],
    ["weak", { token: "weak", scopes: [] }],
  ]);
  const rs = protectedResource({
    resource: "https://rs.example/mcp",
    authorizationServers: ["https://as"],
    requiredScopes: ["read"],
    now: () => NOW,
    verify: async (t) => {
      if (t === "throws") throw new Error("verifier broke");
      return tokens.get(t);
    },
  });
  const errorOf = async (req: { url: string; headers: { [k: string]: string } }, status: number): Promise<string | undefined> => {
    const res = await rs.authenticate(req);
    assert.equal(res.ok, false);
    const response = (res as { response: { status: number; headers: { [k: string]: string } } }).response;
    assert.equal(response.status, status);
    return bearerChallenge(response.headers["WWW-Authenticate"])?.error;
  };
  for (const t of ["nope", "throws", "foreign", "expired"])
    assert.equal(await errorOf(request({ Authorization: `Bearer ${t}` }), 401), "invalid_token", t);
  assert.equal(await errorOf(request({ authorization: "Basic abc" }), 401), "invalid_request");
  assert.equal(await errorOf(request({}, "/mcp?access_token=good"), 401), "invalid_request", "never from the query string");
  assert.equal(await errorOf(request({ Authorization: "Bearer weak" }), 403), "insufficient_scope");
  const ok = await rs.authenticate(request({ AUTHORIZATION: "bearer good" }));
  assert.deepEqual(ok, { ok: true, auth: good });
  // Headers given as a Headers-like object; per-call scopes for a step-up answer.
  const viaGet = await rs.authenticate({ headers: { get: (n: string) => (n === "authorization" ? "Bearer good" : null) } }, ["write"]);
  assert.equal(viaGet.ok, false);
  assert.equal((viaGet as { response: { status: number } }).response.status, 403);
  const stepUp = rs.insufficientScope(["read", "write"]);
  assert.equal(bearerChallenge(stepUp.headers["WWW-Authenticate"])?.scope?.join(" "), "read write");
  const arrayHeader = await rs.authenticate({ headers: { authorization: ["Bearer good"] } });
  assert.equal(arrayHeader.ok, true);
});
