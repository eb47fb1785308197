// WWW-Authenticate parsing (RFC 9110 11.6.1 auth-param syntax, RFC 6750 / RFC 9728 Bearer
// parameters) and writing, plus lib/auth's URL, form and base64 helpers and the discovery
// URL orders: each bad input has its answer.

import assert from "node:assert/strict";
import { test } from "node:test";
import { bearerChallenge, formatBearerChallenge, parseChallenges, splitScope, unionScopes, MAX_HEADER } from "../../lib/auth/challenge.js";
import { base64Decode, base64Encode, formEncode, parseHttpUrl, parseQuery, queryOf, withQuery } from "../../lib/auth/encoding.js";
import {
  authorizationServerMetadataUrls,
  canonicalResource,
  defaultEndpoints,
  protectedResourceMetadataPath,
  protectedResourceMetadataUrls,
  readAuthorizationServerMetadata,
  readProtectedResourceMetadata,
  resourceCovers,
  secureEndpoint,
} from "../../lib/auth/metadata.js";

test("AUTH-15: Bearer parameters: quoted strings with escapes and commas, tokens, any order, case-insensitive names", () => {
  const c = bearerChallenge(
    'bearer Error="insufficient_scope", scope="a b  a", resource_metadata="https://x.example/.well-known/oauth-protected-resource", error_description="say \\"hi\\", then go"',
  );
  assert.deepEqual(c, {
    resourceMetadata: "https://x.example/.well-known/oauth-protected-resource",
    scope: ["a", "b"],
    error: "insufficient_scope",
    errorDescription: 'say "hi", then go',
  });
  assert.deepEqual(bearerChallenge("Bearer error=invalid_token")?.error, "invalid_token");
  assert.equal(bearerChallenge("Bearer")?.scope, undefined);
  assert.equal(bearerChallenge(null), undefined);
  assert.equal(bearerChallenge('Basic realm="x"'), undefined);
});

test("AUTH-15: several challenges in one header, token68, and the Bearer one found among them", () => {
  const all = parseChallenges('Basic realm="a, b", DPoP algs="ES256", Bearer scope="s", resource_metadata="https://m"');
  assert.deepEqual(
    all.map((c) => c.scheme),
    ["basic", "dpop", "bearer"],
  );
  assert.equal(all[0]?.params.get("realm"), "a, b");
  assert.equal(bearerChallenge('DPoP algs="ES256", Bearer scope="s"')?.scope?.[0], "s");
  const t68 = parseChallenges("Negotiate abc+/==, Bearer scope=x");
  assert.equal(t68[0]?.token68, "abc+/==");
  assert.equal(t68[1]?.params.get("scope"), "x");
});

test("AUTH-15: malformed headers never throw: an unterminated quote, a missing value, garbage, a huge header", () => {
  assert.deepEqual(
    parseChallenges('Bearer scope="never closed').map((c) => c.params.size),
    [0],
  );
  assert.equal(parseChallenges("Bearer scope=, error=x")[0]?.params.size, 0);
  assert.deepEqual(parseChallenges("=== ,,, "), []);
  assert.equal(parseChallenges('Bearer scope="a" junk')[0]?.params.get("scope"), "a", "what parsed stays");
  assert.deepEqual(parseChallenges(undefined), []);
  const huge = `Bearer scope="${"a".repeat(MAX_HEADER * 2)}"`;
  assert.equal(parseChallenges(huge)[0]?.params.has("scope"), false, "cut at MAX_HEADER: the quote never closes");
  // A repeated parameter keeps its first value; names are the peer's and live in a Map.
  const c = parseChallenges('Bearer __proto__="x", scope="first", scope="second"')[0];
  assert.equal(c?.params.get("scope"), "first");
  assert.equal(c?.params.get("__proto__"), "x");
});

test("AUTH-15: the writer quotes every value, escaping quotes and backslashes and dropping control characters", () => {
  const header = formatBearerChallenge({
    resourceMetadata: "https://m/x",
    scope: ["a", "b"],
    error: "invalid_token",
    errorDescription: 'bad "token"\\\r\nSet-Cookie: x',
  });
  assert.equal(
    header,
    'Bearer resource_metadata="https://m/x", scope="a b", error="invalid_token", error_description="bad \\"token\\"\\\\Set-Cookie: x"',
  );
  assert.deepEqual(bearerChallenge(header)?.errorDescription, 'bad "token"\\Set-Cookie: x', "it reads back as written");
  assert.equal(formatBearerChallenge({}), "Bearer");
  assert.equal(formatBearerChallenge({ realm: "r", scope: [] }), 'Bearer realm="r"');
});

test("AUTH-10: scope lists: split on spaces without empties or repeats, unions keep order", () => {
  assert.deepEqual(splitScope("  a\tb a  "), ["a", "b"]);
  assert.deepEqual(unionScopes(["a", "b"], undefined, ["b", "c"]), ["a", "b", "c"]);
});

test("AUTH-04: URLs: absolute http(s) only, lowercased scheme and host, default ports dropped, userinfo refused", () => {
  assert.deepEqual(parseHttpUrl("HTTPS://Example.COM:443/Path?q=1#f"), {
    scheme: "https",
    authority: "example.com",
    path: "/Path",
    query: "q=1",
    fragment: "f",
  });
  assert.equal(parseHttpUrl("http://h:80")?.authority, "h");
  for (const bad of ["ftp://h/", "/relative", "https://user@h/", "https:///nohost", "not a url", "https://h o/"])
    assert.equal(parseHttpUrl(bad), undefined, bad);
  assert.equal(parseHttpUrl(42 as unknown as string), undefined);
  assert.equal(parseHttpUrl(`https://h/${"a".repeat(9000)}`), undefined);
});

test("forms and queries: RFC 3986 unreserved only, + for space; broken escapes drop only their pair", () => {
  assert.equal(
    formEncode([
      ["a b", "c&d=e"],
      ["x", "!*'()~"],
    ]),
    "a+b=c%26d%3De&x=%21%2A%27%28%29~",
  );
  const q = parseQuery("a=1&a=2&b=%E2%82%AC&bad=%E2%82&c+d=e+f&flag&=v");
  assert.equal(q.get("a"), "1");
  assert.equal(q.get("b"), "€");
  assert.equal(q.has("bad"), false);
  assert.equal(q.get("c d"), "e f");
  assert.equal(q.get("flag"), "");
  assert.equal(queryOf("not a url"), undefined);
  assert.equal(queryOf("http://h/cb")?.size, 0);
  assert.equal(withQuery("https://h/a?x=1#frag", [["y", "2"]]), "https://h/a?x=1&y=2");
  assert.equal(withQuery("https://h/a", []), "https://h/a");
});

test("AUTH-06: base64 for HTTP Basic, padded, and back", () => {
  const bytes = new TextEncoder().encode("id:sécret");
  assert.equal(base64Encode(bytes), "aWQ6c8OpY3JldA==");
  assert.deepEqual(base64Decode("aWQ6c8OpY3JldA=="), bytes);
  assert.equal(base64Decode("not base64!"), undefined);
  assert.equal(base64Encode(new Uint8Array([0xfb, 0xff])), "+/8=");
});

test("AUTH-02: discovery URLs: path-inserted then root for the resource; RFC 8414 / OIDC orders for the issuer", () => {
  assert.deepEqual(protectedResourceMetadataUrls("https://h/mcp/", "https://h/custom.json"), [
    "https://h/custom.json",
    "https://h/.well-known/oauth-protected-resource/mcp",
    "https://h/.well-known/oauth-protected-resource",
  ]);
  assert.deepEqual(protectedResourceMetadataUrls("https://h", "javascript:alert(1)"), ["https://h/.well-known/oauth-protected-resource"]);
  assert.deepEqual(protectedResourceMetadataUrls("nope"), []);
  assert.deepEqual(authorizationServerMetadataUrls("https://as/"), [
    "https://as/.well-known/oauth-authorization-server",
    "https://as/.well-known/openid-configuration",
  ]);
  assert.deepEqual(authorizationServerMetadataUrls("nope"), []);
  assert.equal(defaultEndpoints("nope"), undefined);
  assert.equal(defaultEndpoints("https://h:8443/mcp")?.tokenEndpoint, "https://h:8443/token");
  assert.equal(protectedResourceMetadataPath("https://h/mcp"), "/.well-known/oauth-protected-resource/mcp");
  assert.equal(protectedResourceMetadataPath("nope"), undefined);
});

test("AUTH-04: canonical resource and the resource match: same origin, the server at or below the resource's path", () => {
  assert.equal(canonicalResource("HTTPS://H:443/mcp/#x"), "https://h/mcp");
  assert.equal(canonicalResource("nope"), undefined);
  assert.equal(resourceCovers("https://h/mcp", "https://h/mcp"), true);
  assert.equal(resourceCovers("https://h/", "https://h/mcp"), true);
  assert.equal(resourceCovers("https://h/mcp", "https://h/mcp/sub"), true);
  assert.equal(resourceCovers("https://h/mc", "https://h/mcp"), false);
  assert.equal(resourceCovers("https://other/mcp", "https://h/mcp"), false);
  assert.equal(resourceCovers("https://h/mcp#f", "https://h/mcp"), false);
  assert.equal(resourceCovers("nope", "https://h/mcp"), false);
});

test("AUTH-02: metadata documents are read from unknown: wrong types, insecure endpoints and foreign issuers are refused", () => {
  assert.equal(readProtectedResourceMetadata("x").ok, false);
  assert.equal(readProtectedResourceMetadata({ resource: 1, authorization_servers: ["https://a"] }).ok, false);
  assert.equal(readProtectedResourceMetadata({ resource: "https://r", authorization_servers: ["not a url", 3] }).ok, false);
  const prm = readProtectedResourceMetadata({ resource: "https://r", authorization_servers: ["https://a"], scopes_supported: ["x", 2] });
  assert.ok(prm.ok && prm.value.scopesSupported?.length === 1);
  const base = { issuer: "https://a", token_endpoint: "https://a/token" };
  assert.equal(readAuthorizationServerMetadata(null, "https://a").ok, false);
  assert.equal(readAuthorizationServerMetadata({ ...base, issuer: "https://a/" }, "https://a").ok, false, "no normalization of the issuer");
  assert.equal(
    readAuthorizationServerMetadata({ ...base, token_endpoint: "http://a.example/token" }, "https://a").ok,
    false,
    "http only on loopback",
  );
  assert.equal(readAuthorizationServerMetadata({ issuer: "https://a" }, "https://a").ok, false);
  assert.equal(readAuthorizationServerMetadata({ ...base, authorization_endpoint: 5 }, "https://a").ok, false);
  assert.equal(readAuthorizationServerMetadata({ ...base, issuer: 7 }, undefined).ok, false);
  const adopted = readAuthorizationServerMetadata(base, undefined);
  assert.ok(adopted.ok && adopted.value.issuer === "https://a");
  assert.equal(secureEndpoint("http://localhost:1/x"), true);
  assert.equal(secureEndpoint("http://127.0.0.1/x"), true);
  assert.equal(secureEndpoint("http://app.localhost/x"), true);
  assert.equal(secureEndpoint("https://a/x#frag"), false);
});
