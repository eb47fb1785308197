// DPoP on the resource server (lib/auth/dpop-verify.ts through protectedResource): proofs are
// made here with Node's Web Crypto and hashed with Node's SHA-256 (independent of the code under
// test), and every refusal is checked for its status, its error code and the challenge it
// carries: malformed proofs, wrong typ, refused algorithms, bad signatures and keys, iat out of
// the window, replays, htm / htu / ath mismatches, a foreign key, repeated or oversized headers,
// a DPoP-bound token as Bearer, nonces, and the bounded replay cache.

import assert from "node:assert/strict";
import { createHash, webcrypto } from "node:crypto";
import { test } from "node:test";
import { parseChallenges } from "../../lib/auth/challenge.js";
import {
  DEFAULT_DPOP_ALGORITHMS,
  MAX_DPOP_PROOF,
  MemoryDpopReplayCache,
  type DpopOptions,
  jwkThumbprint,
  rotatingDpopNonces,
} from "../../lib/auth/dpop-verify.js";
import { base64urlEncode } from "../../lib/auth/encoding.js";
import { type AuthRequest, type AuthenticateResult, protectedResource } from "../../lib/auth/resource-server.js";
import type { AuthInfo } from "../../lib/auth/types.js";
import { corsResponseHeaders, preflightHeaders } from "../../lib/http/cors.js";

const subtle = webcrypto.subtle as unknown as {
  generateKey(a: unknown, x: boolean, u: string[]): Promise<{ privateKey: unknown; publicKey: unknown }>;
  exportKey(f: string, k: unknown): Promise<unknown>;
  sign(a: unknown, k: unknown, d: Uint8Array): Promise<ArrayBuffer>;
};

const NOW = 1_700_000_000_000;
const SEC = NOW / 1000;
const RESOURCE = "https://mcp.example.com/mcp";
const b64 = (value: unknown): string => Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");
const sha = (text: string): string => createHash("sha256").update(text).digest("base64url");

interface Key {
  readonly alg: string;
  readonly privateKey: unknown;
  readonly jwk: { [k: string]: unknown };
  /** RFC 7638, computed here with Node's hash. */
  readonly jkt: string;
}

const GEN: { [alg: string]: { gen: unknown; sign: unknown } } = {
  ES256: { gen: { name: "ECDSA", namedCurve: "P-256" }, sign: { name: "ECDSA", hash: "SHA-256" } },
  PS256: {
    gen: { name: "RSA-PSS", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    sign: { name: "RSA-PSS", saltLength: 32 },
  },
  RS1024: {
    gen: { name: "RSASSA-PKCS1-v1_5", modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    sign: { name: "RSASSA-PKCS1-v1_5" },
  },
  EdDSA: { gen: { name: "Ed25519" }, sign: { name: "Ed25519" } },
};

async function makeKey(kind = "ES256"): Promise<Key> {
  const pair = await subtle.generateKey((GEN[kind] as { gen: unknown }).gen, true, ["sign", "verify"]);
  const exported = (await subtle.exportKey("jwk", pair.publicKey)) as { [k: string]: unknown };
  const members =
    exported.kty === "EC"
      ? { crv: exported.crv, kty: "EC", x: exported.x, y: exported.y }
      : exported.kty === "RSA"
        ? { e: exported.e, kty: "RSA", n: exported.n }
        : { crv: exported.crv, kty: "OKP", x: exported.x };
  const { key_ops: _ops, ext: _ext, ...jwk } = exported;
  return { alg: kind === "RS1024" ? "RS256" : kind, privateKey: pair.privateKey, jwk, jkt: sha(JSON.stringify(members)) };
}

let counter = 0;

/** A proof for `token` at POST RESOURCE now, with header and claims overridable (undefined removes a member). */
async function proof(
  key: Key,
  token: string,
  claims: { [k: string]: unknown } = {},
  header: { [k: string]: unknown } = {},
  signer: Key = key,
): Promise<string> {
  const h = Object.fromEntries(
    Object.entries({ typ: "dpop+jwt", alg: key.alg, jwk: key.jwk, ...header }).filter(([, v]) => v !== undefined),
  );
  const c = Object.fromEntries(
    Object.entries({ jti: `jti-${++counter}`, htm: "POST", htu: RESOURCE, iat: SEC, ath: sha(token), ...claims }).filter(
      ([, v]) => v !== undefined,
    ),
  );
  const input = `${b64(h)}.${b64(c)}`;
  const kind = signer.alg === "RS256" ? "RS1024" : signer.alg;
  const signature = await subtle.sign((GEN[kind] as { sign: unknown }).sign, signer.privateKey, new TextEncoder().encode(input));
  return `${input}.${base64urlEncode(new Uint8Array(signature))}`;
}

/** Tokens the verifier knows: "bound-<jkt>" is bound to that key, "plain" to none. */
function verify(token: string): AuthInfo | undefined {
  if (token === "plain") return { token, scopes: ["mcp"] };
  if (token.startsWith("bound-")) return { token, scopes: ["mcp"], claims: { cnf: { jkt: token.slice("bound-".length) } } };
  return undefined;
}

function server(dpop?: Partial<DpopOptions>, extra: { requiredScopes?: string[] } = {}) {
  return protectedResource({
    resource: RESOURCE,
    authorizationServers: ["https://as.example.com"],
    scopesSupported: ["mcp"],
    verify,
    now: () => NOW,
    ...extra,
    ...(dpop !== undefined ? { dpop: { crypto: webcrypto, ...dpop } } : {}),
  });
}

function request(authorization: string | undefined, dpop?: string | string[], method = "POST", url = "/mcp"): AuthRequest {
  const headers: { [name: string]: string | string[] } = {};
  if (authorization !== undefined) headers.Authorization = authorization;
  if (dpop !== undefined) headers.DPoP = dpop;
  return { method, url, headers };
}

/** The refusal's status, error code and challenge schemes (with the DPoP challenge's algs). */
function refusal(result: AuthenticateResult): { status: number; error: string | undefined; schemes: string[]; algs: string | undefined } {
  assert.equal(result.ok, false, "expected a refusal");
  const response = (result as { response: { status: number; headers: { [k: string]: string }; body: string } }).response;
  const challenges = parseChallenges(response.headers["WWW-Authenticate"]);
  const withError = challenges.find((c) => c.params.has("error"));
  assert.equal((JSON.parse(response.body) as { error?: string }).error, withError?.params.get("error") ?? "unauthorized");
  return {
    status: response.status,
    error: withError?.params.get("error"),
    schemes: challenges.map((c) => c.scheme),
    algs: challenges.find((c) => c.scheme === "dpop")?.params.get("algs"),
  };
}

const invalidProof = { status: 401, error: "invalid_dpop_proof" };
function assertRefused(result: AuthenticateResult, expected: { status: number; error: string }, why: string): void {
  const got = refusal(result);
  assert.deepEqual({ status: got.status, error: got.error }, expected, why);
  assert.deepEqual(got.schemes, ["dpop"], `${why}: the error is in the DPoP challenge`);
}

test("AUTH-19: a proof made for this request, token and key passes; AuthInfo is the token's", async () => {
  for (const kind of ["ES256", "PS256", "EdDSA"]) {
    const key = await makeKey(kind);
    const token = `bound-${key.jkt}`;
    const result = await server({}).authenticate(request(`DPoP ${token}`, await proof(key, token)));
    assert.ok(result.ok, kind);
    assert.equal(result.auth.token, token);
    assert.equal(result.headers, undefined, "no nonce configured: no headers");
  }
});

test("AUTH-19: a malformed proof (parts, base64url, JSON, claim types) is invalid_dpop_proof, never a throw", async () => {
  const key = await makeKey();
  const token = `bound-${key.jkt}`;
  const rs = server({});
  const good = await proof(key, token);
  const [h, p, s] = good.split(".") as [string, string, string];
  const bad = [
    "",
    "abc",
    `${h}.${p}`,
    `${h}.${p}.${s}.x`,
    `${h}.!!!.${s}`,
    `${b64("not json")}.${p}.${s}`,
    `${b64([1, 2])}.${p}.${s}`,
    await proof(key, token, { jti: undefined }),
    await proof(key, token, { jti: "" }),
    await proof(key, token, { jti: "x".repeat(257) }),
    await proof(key, token, { htm: undefined }),
    await proof(key, token, { htu: 7 }),
    await proof(key, token, { iat: "1700000000" }),
    await proof(key, token, {}, { jwk: undefined }),
  ];
  for (const value of bad) assertRefused(await rs.authenticate(request(`DPoP ${token}`, value)), invalidProof, value.slice(0, 60));
});

test("AUTH-19: typ must be dpop+jwt: JWT, at+jwt or none are refused", async () => {
  const key = await makeKey();
  const token = `bound-${key.jkt}`;
  for (const typ of ["JWT", "at+jwt", undefined])
    assertRefused(await server({}).authenticate(request(`DPoP ${token}`, await proof(key, token, {}, { typ }))), invalidProof, String(typ));
});

test("AUTH-19: alg none, HS256 and an alg outside the host's list are refused; algs lists the accepted ones", async () => {
  const key = await makeKey();
  const token = `bound-${key.jkt}`;
  const valid = await proof(key, token);
  const [, p] = valid.split(".") as [string, string, string];
  const none = `${b64({ typ: "dpop+jwt", alg: "none", jwk: key.jwk })}.${p}.`;
  assertRefused(await server({}).authenticate(request(`DPoP ${token}`, none)), invalidProof, "alg none");
  const hs = `${b64({ typ: "dpop+jwt", alg: "HS256", jwk: { kty: "oct", k: "c2VjcmV0" } })}.${p}.${b64("sig")}`;
  assertRefused(await server({}).authenticate(request(`DPoP ${token}`, hs)), invalidProof, "HS256");
  const onlyPs = server({ algorithms: ["PS256"] });
  const refused = await onlyPs.authenticate(request(`DPoP ${token}`, valid));
  assertRefused(refused, invalidProof, "ES256 when only PS256 is accepted");
  assert.equal(refusal(refused).algs, "PS256");
  assert.equal(refusal(await server({}).authenticate(request(`DPoP ${token}`, none))).algs, DEFAULT_DPOP_ALGORITHMS.join(" "));
});

test("AUTH-19: a signature by another key, a tampered payload, a private or mismatched jwk, a short RSA key are refused", async () => {
  const key = await makeKey();
  const other = await makeKey();
  const token = `bound-${key.jkt}`;
  const rs = server({});
  assertRefused(await rs.authenticate(request(`DPoP ${token}`, await proof(key, token, {}, {}, other))), invalidProof, "other signer");
  const [h, , s] = (await proof(key, token)).split(".") as [string, string, string];
  const tampered = `${h}.${b64({ jti: "t", htm: "POST", htu: RESOURCE, iat: SEC, ath: sha(token), extra: 1 })}.${s}`;
  assertRefused(await rs.authenticate(request(`DPoP ${token}`, tampered)), invalidProof, "tampered");
  const withD = await proof(key, token, {}, { jwk: { ...key.jwk, d: "AAAA" } });
  assertRefused(await rs.authenticate(request(`DPoP ${token}`, withD)), invalidProof, "private d");
  const rsa = await makeKey("PS256");
  const confused = await proof(key, token, {}, { jwk: rsa.jwk });
  assertRefused(await rs.authenticate(request(`DPoP ${token}`, confused)), invalidProof, "RSA jwk with ES256");
  const short = await makeKey("RS1024");
  const shortToken = `bound-${short.jkt}`;
  assertRefused(await rs.authenticate(request(`DPoP ${shortToken}`, await proof(short, shortToken))), invalidProof, "1024-bit RSA");
  const crit = await proof(key, token, {}, { crit: ["x"], x: 1 });
  assertRefused(await rs.authenticate(request(`DPoP ${token}`, crit)), invalidProof, "crit");
});

test("AUTH-19: iat: stale or in the future past the skew is refused; at the window's edges it passes", async () => {
  const key = await makeKey();
  const token = `bound-${key.jkt}`;
  const rs = server({ maxAgeSeconds: 60, clockSkewSeconds: 10 });
  for (const iat of [SEC - 71, SEC + 11, SEC - 100_000])
    assertRefused(await rs.authenticate(request(`DPoP ${token}`, await proof(key, token, { iat }))), invalidProof, `iat ${iat - SEC}`);
  for (const iat of [SEC - 70, SEC + 10]) assert.ok((await rs.authenticate(request(`DPoP ${token}`, await proof(key, token, { iat })))).ok);
});

test("AUTH-20: a replayed proof is refused; the same jti from another key is not a replay", async () => {
  const key = await makeKey();
  const other = await makeKey();
  const token = `bound-${key.jkt}`;
  const rs = server({});
  const once = await proof(key, token, { jti: "same" });
  assert.ok((await rs.authenticate(request(`DPoP ${token}`, once))).ok);
  assertRefused(await rs.authenticate(request(`DPoP ${token}`, once)), invalidProof, "replay");
  const otherToken = `bound-${other.jkt}`;
  assert.ok((await rs.authenticate(request(`DPoP ${otherToken}`, await proof(other, otherToken, { jti: "same" })))).ok);
});

test("AUTH-19: htm must be the request's method; a request whose method the host did not pass fails", async () => {
  const key = await makeKey();
  const token = `bound-${key.jkt}`;
  const rs = server({});
  assertRefused(await rs.authenticate(request(`DPoP ${token}`, await proof(key, token), "GET")), invalidProof, "GET vs POST");
  assertRefused(await rs.authenticate(request(`DPoP ${token}`, await proof(key, token, { htm: "post" }))), invalidProof, "case");
  const noMethod = await rs.authenticate({ url: "/mcp", headers: { Authorization: `DPoP ${token}`, DPoP: await proof(key, token) } });
  assertRefused(noMethod, invalidProof, "no method");
});

test("AUTH-19: htu must be the request URL, compared normalized without query and fragment", async () => {
  const key = await makeKey();
  const token = `bound-${key.jkt}`;
  const rs = server({});
  for (const htu of [
    "https://mcp.example.com/other",
    "https://evil.example.com/mcp",
    "http://mcp.example.com/mcp",
    "https://mcp.example.com:8443/mcp",
  ])
    assertRefused(await rs.authenticate(request(`DPoP ${token}`, await proof(key, token, { htu }))), invalidProof, htu);
  const echoed = await rs.authenticate(request(`DPoP ${token}`, await proof(key, token), "PATCH", "/mcp-sent-by-client"));
  assertRefused(echoed, invalidProof, "request path");
  const answer = (echoed as { response: { headers: { [k: string]: string }; body: string } }).response;
  assert.ok(!`${answer.headers["WWW-Authenticate"]}${answer.body}`.includes("sent-by-client"), "the request is not echoed");
  assert.ok(!`${answer.headers["WWW-Authenticate"]}${answer.body}`.includes("PATCH"), "nor its method");
  const same = [
    "HTTPS://MCP.EXAMPLE.COM/mcp",
    "https://mcp.example.com:443/mcp",
    "https://mcp.example.com/%6Dcp",
    "https://mcp.example.com/mcp?x=1#f",
  ];
  for (const htu of same) assert.ok((await rs.authenticate(request(`DPoP ${token}`, await proof(key, token, { htu })))).ok, htu);
  assert.ok((await rs.authenticate(request(`DPoP ${token}`, await proof(key, token), "POST", "/mcp?session=1"))).ok, "query ignored");
  const absolute = request(
    `DPoP ${token}`,
    await proof(key, token, { htu: "https://proxy.example/mcp" }),
    "POST",
    "https://proxy.example/mcp",
  );
  assert.ok((await rs.authenticate(absolute)).ok, "an absolute request URL is the one compared");
});

test("AUTH-19: ath must be the SHA-256 of the presented token: missing or another token's is refused", async () => {
  const key = await makeKey();
  const token = `bound-${key.jkt}`;
  const rs = server({});
  assertRefused(await rs.authenticate(request(`DPoP ${token}`, await proof(key, token, { ath: undefined }))), invalidProof, "no ath");
  assertRefused(await rs.authenticate(request(`DPoP ${token}`, await proof(key, token, { ath: sha("other") }))), invalidProof, "wrong ath");
});

test("AUTH-19: a proof by a key other than the token's cnf.jkt is invalid_token; an unbound token with DPoP too", async () => {
  const key = await makeKey();
  const thief = await makeKey();
  const token = `bound-${key.jkt}`;
  const rs = server({});
  assertRefused(await rs.authenticate(request(`DPoP ${token}`, await proof(thief, token))), { status: 401, error: "invalid_token" }, "key");
  const plain = await rs.authenticate(request("DPoP plain", await proof(key, "plain")));
  assertRefused(plain, { status: 401, error: "invalid_token" }, "unbound token as DPoP");
  assertRefused(await rs.authenticate(request("DPoP nope", await proof(key, "nope"))), { status: 401, error: "invalid_token" }, "unknown");
});

test("AUTH-19: no DPoP header, two of them (repeated or comma-joined) and an oversized one are refused", async () => {
  const key = await makeKey();
  const token = `bound-${key.jkt}`;
  const rs = server({});
  const one = await proof(key, token);
  const two = await proof(key, token);
  assertRefused(await rs.authenticate(request(`DPoP ${token}`)), invalidProof, "none");
  assertRefused(await rs.authenticate(request(`DPoP ${token}`, [one, two])), invalidProof, "repeated");
  assertRefused(await rs.authenticate(request(`DPoP ${token}`, `${one}, ${two}`)), invalidProof, "joined");
  // Fetch's Headers (and Node) join repeated fields with ", ".
  const joined = new Map([
    ["authorization", `DPoP ${token}`],
    ["dpop", `${one}, ${two}`],
  ]);
  const viaGet = { method: "POST", url: "/mcp", headers: { get: (name: string) => joined.get(name) } };
  assertRefused(await rs.authenticate(viaGet), invalidProof, "a get() interface joining two");
  const huge = await proof(key, token, { pad: "x".repeat(MAX_DPOP_PROOF) });
  assertRefused(await rs.authenticate(request(`DPoP ${token}`, huge)), invalidProof, "oversized");
  assert.ok((await rs.authenticate(request(`DPoP ${token}`, [one]))).ok, "one in an array is one");
});

test("AUTH-18: a DPoP-bound token presented as Bearer is refused, with and without dpop configured; plain Bearer still passes", async () => {
  const key = await makeKey();
  const token = `bound-${key.jkt}`;
  for (const rs of [server(), server({})]) {
    const got = refusal(await rs.authenticate(request(`Bearer ${token}`, await proof(key, token))));
    assert.deepEqual([got.status, got.error, got.schemes[0]], [401, "invalid_token", "bearer"]);
    assert.ok((await rs.authenticate(request("Bearer plain"))).ok);
  }
  const withoutDpop = refusal(await server().authenticate(request(`DPoP ${token}`, await proof(key, token))));
  assert.deepEqual([withoutDpop.status, withoutDpop.error, withoutDpop.schemes], [401, "invalid_request", ["bearer"]]);
});

test("AUTH-18, AUTH-21: mode required refuses Bearer with a DPoP challenge; the metadata says so", async () => {
  const rs = server({ mode: "required", algorithms: ["ES256"] });
  const got = refusal(await rs.authenticate(request("Bearer plain")));
  assert.deepEqual(got, { status: 401, error: "invalid_request", schemes: ["dpop"], algs: "ES256" });
  assert.deepEqual(refusal(await rs.authenticate(request(undefined))).schemes, ["dpop"]);
  assert.deepEqual(rs.metadata.dpop_signing_alg_values_supported, ["ES256"]);
  assert.equal(rs.metadata.dpop_bound_access_tokens_required, true);
  assert.equal(server({}).metadata.dpop_bound_access_tokens_required, false);
  assert.equal(server().metadata.dpop_signing_alg_values_supported, undefined);
});

test("AUTH-21: without credentials both schemes are offered, Bearer first, each with resource_metadata; a DPoP 403 names DPoP", async () => {
  const got = await server({ algorithms: ["ES256", "EdDSA"] }).authenticate(request(undefined));
  const header = (got as { response: { headers: { [k: string]: string } } }).response.headers["WWW-Authenticate"] as string;
  const challenges = parseChallenges(header);
  assert.deepEqual(
    challenges.map((c) => [c.scheme, c.params.get("resource_metadata"), c.params.get("algs")]),
    [
      ["bearer", "https://mcp.example.com/.well-known/oauth-protected-resource/mcp", undefined],
      ["dpop", "https://mcp.example.com/.well-known/oauth-protected-resource/mcp", "ES256 EdDSA"],
    ],
  );
  const key = await makeKey();
  const token = `bound-${key.jkt}`;
  const scoped = server({}, { requiredScopes: ["admin"] });
  const forbidden = refusal(await scoped.authenticate(request(`DPoP ${token}`, await proof(key, token))));
  assert.deepEqual([forbidden.status, forbidden.error, forbidden.schemes], [403, "insufficient_scope", ["dpop"]]);
  const bearerError = refusal(await server({}).authenticate(request("Bearer forged")));
  assert.deepEqual(bearerError.schemes, ["bearer", "dpop"], "the Bearer error first, DPoP offered after");
});

test("AUTH-19: with nonces a proof without one gets use_dpop_nonce and a DPoP-Nonce; with it the pass carries the next nonce", async () => {
  let clock = NOW;
  const nonces = rotatingDpopNonces({ crypto: webcrypto, now: () => clock, lifetimeSeconds: 60 });
  const rs = server({ nonces });
  const key = await makeKey();
  const token = `bound-${key.jkt}`;
  const first = await rs.authenticate(request(`DPoP ${token}`, await proof(key, token)));
  assertRefused(first, { status: 401, error: "use_dpop_nonce" }, "no nonce");
  const nonce = (first as { response: { headers: { [k: string]: string } } }).response.headers["DPoP-Nonce"] as string;
  assert.match(nonce, /^[A-Za-z0-9_-]{22}$/);
  assertRefused(
    await rs.authenticate(request(`DPoP ${token}`, await proof(key, token, { nonce: "guess" }))),
    { status: 401, error: "use_dpop_nonce" },
    "guess",
  );
  const pass = await rs.authenticate(request(`DPoP ${token}`, await proof(key, token, { nonce })));
  assert.ok(pass.ok);
  assert.deepEqual(pass.headers, { "DPoP-Nonce": nonce });
  clock += 61_000; // one turn: the old nonce is still good, a new one is handed out
  assert.ok(nonces.accepts(nonce));
  assert.notEqual(nonces.current(), nonce);
  clock += 61_000; // two turns: gone
  assert.equal(nonces.accepts(nonce), false);
  assert.equal(nonces.accepts(""), false);
});

test("AUTH-20: the replay cache holds at most maxEntries live ids and refuses new ones when full; expired ids make room", () => {
  const cache = new MemoryDpopReplayCache(2);
  assert.equal(cache.remember("a", 1000, 0), true);
  assert.equal(cache.remember("a", 1000, 10), false, "replay");
  assert.equal(cache.remember("__proto__", 2000, 10), true, "a peer string is only a Map key");
  assert.equal(cache.remember("c", 3000, 10), false, "full of live ids: refused, none forgotten");
  assert.equal(cache.size, 2);
  assert.equal(cache.remember("a", 1000, 10), false, "still remembered");
  assert.equal(cache.remember("c", 3000, 1000), true, "a expired: room made");
  assert.equal(cache.size, 2);
  assert.equal(cache.remember("a", 4000, 1000), false, "full again");
  assert.throws(() => new MemoryDpopReplayCache(0), TypeError);
});

test("AUTH-20: through protectedResource, a full cache refuses (fail closed) and a throwing cache is a refusal, not a crash", async () => {
  const key = await makeKey();
  const token = `bound-${key.jkt}`;
  const small = server({ maxReplayEntries: 1 });
  assert.ok((await small.authenticate(request(`DPoP ${token}`, await proof(key, token)))).ok);
  assertRefused(await small.authenticate(request(`DPoP ${token}`, await proof(key, token))), invalidProof, "full");
  const throwing = server({
    replayCache: {
      remember() {
        throw new Error("store down");
      },
    },
  });
  assertRefused(await throwing.authenticate(request(`DPoP ${token}`, await proof(key, token))), invalidProof, "throwing cache");
  // A proof for a token that does not verify is not recorded: it cannot fill the cache.
  const guarded = server({ maxReplayEntries: 1 });
  await guarded.authenticate(request("DPoP nope", await proof(key, "nope")));
  assert.ok((await guarded.authenticate(request(`DPoP ${token}`, await proof(key, token)))).ok);
});

test("AUTH-19: jwkThumbprint is RFC 7638's (EC, RSA, OKP; required members only, in order); a JWK without them has none", async () => {
  for (const kind of ["ES256", "PS256", "EdDSA"]) {
    const key = await makeKey(kind);
    assert.equal(jwkThumbprint({ ...key.jwk, kid: "ignored", alg: key.alg }), key.jkt, kind);
  }
  assert.equal(jwkThumbprint({ kty: "EC", crv: "P-256", x: "x" }), undefined);
  assert.equal(jwkThumbprint({ kty: "oct", k: "x" }), undefined);
  assert.equal(jwkThumbprint("EC"), undefined);
});

test("AUTH-19: a configuration that cannot be right throws at construction: no clock, HS256, none, a window out of range", () => {
  const base = { resource: RESOURCE, authorizationServers: ["https://as.example.com"], verify };
  assert.throws(() => protectedResource({ ...base, dpop: { crypto: webcrypto } }), /now/);
  for (const dpop of [
    { algorithms: ["HS256"] },
    { algorithms: ["none"] },
    { algorithms: [] },
    { maxAgeSeconds: -1 },
    { clockSkewSeconds: 1e9 },
  ])
    assert.throws(() => server(dpop), TypeError, JSON.stringify(dpop));
});

test("AUTH-21: CORS lets a browser send a DPoP proof (preflight) and read DPoP-Nonce and the challenge of an answer", () => {
  const cors = { origins: ["https://app.example"] };
  const preflight = preflightHeaders(cors, "https://app.example", "POST", "Authorization, DPoP, Content-Type");
  assert.equal(preflight?.["Access-Control-Allow-Headers"], "authorization, dpop, content-type");
  const exposed = (corsResponseHeaders(cors, "https://app.example")?.["Access-Control-Expose-Headers"] ?? "").split(", ");
  assert.ok(exposed.includes("DPoP-Nonce") && exposed.includes("WWW-Authenticate"), exposed.join(", "));
});

test("AUTH-19: 300 seeded mutations of a valid proof (a character changed, cut, doubled) each end in a refusal, never a throw", async () => {
  const key = await makeKey();
  const token = `bound-${key.jkt}`;
  const rs = server({});
  const valid = await proof(key, token);
  let seed = 20_260_731;
  const next = (n: number): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % n;
  };
  const alphabet = 'AZaz09-_.=+/ "{}';
  for (let i = 0; i < 300; i++) {
    const at = next(valid.length);
    const kind = next(3);
    const mutated =
      kind === 0
        ? `${valid.slice(0, at)}${alphabet[next(alphabet.length)]}${valid.slice(at + 1)}`
        : kind === 1
          ? valid.slice(0, at)
          : `${valid.slice(0, at)}${valid.slice(at - 1)}`;
    if (mutated === valid) continue;
    const result = await rs.authenticate(request(`DPoP ${token}`, mutated));
    assert.equal(result.ok, false, `mutation ${i} (kind ${kind} at ${at}) passed`);
  }
});
