// DPoP proof building (lib/auth/dpop.ts): header and claims as RFC 9449 4.2 says, checked
// against Node's own SHA-256 and JSON decoding.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { accessTokenHash, dpopSigningInput, proofTarget } from "../../lib/auth/dpop.js";

test("AUTH-13: the proof's header carries typ dpop+jwt, alg and the public jwk only; claims jti, htm, htu, iat, nonce, ath", () => {
  const input = dpopSigningInput({ kty: "EC", crv: "P-256", x: "x", y: "y", d: "PRIVATE" }, "ES256", {
    method: "POST",
    url: "https://rs/mcp?a=1#f",
    iat: 100,
    jti: "j1",
    nonce: "n1",
    accessToken: "tok",
  });
  const [h, p] = input.split(".") as [string, string];
  assert.deepEqual(JSON.parse(Buffer.from(h, "base64url").toString()), {
    typ: "dpop+jwt",
    alg: "ES256",
    jwk: { kty: "EC", crv: "P-256", x: "x", y: "y" },
  });
  assert.deepEqual(JSON.parse(Buffer.from(p, "base64url").toString()), {
    jti: "j1",
    htm: "POST",
    htu: "https://rs/mcp",
    iat: 100,
    nonce: "n1",
    ath: createHash("sha256").update("tok").digest("base64url"),
  });
  const bare = JSON.parse(
    Buffer.from(
      dpopSigningInput({ kty: "EC" }, "ES256", { method: "GET", url: "https://rs/", iat: 1, jti: "j" }).split(".")[1] as string,
      "base64url",
    ).toString(),
  ) as object;
  assert.deepEqual(Object.keys(bare), ["jti", "htm", "htu", "iat"]);
  assert.equal(accessTokenHash("abc"), createHash("sha256").update("abc").digest("base64url"));
  assert.equal(proofTarget("https://h/p#x"), "https://h/p");
  assert.equal(proofTarget("https://h/p"), "https://h/p");
});
