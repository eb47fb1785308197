// requestState sealing (2026-07-28 multi round-trip requests): a sealed state opens for the
// request it was bound to before it expires, and is refused when tampered with, expired,
// replayed on another request, sealed with another secret, or malformed.

import assert from "node:assert/strict";
import { test } from "node:test";
import { RequestStateSealer } from "../../lib/peer/server/request-state.js";
import { base64urlDecode, base64urlEncode } from "../../lib/internal.js";

const secret = new Uint8Array(32).fill(3);

test("a sealed state opens for its own request before it expires", async () => {
  const sealer = new RequestStateSealer({ secret, ttlMs: 1000 });
  const token = await sealer.seal({ step: 2, answers: ["a"] }, "tools/call:deploy:alice", 5000);
  assert.deepEqual(await sealer.open(token, "tools/call:deploy:alice", 5999), { ok: true, payload: { step: 2, answers: ["a"] } });
});

test("expired, replayed-elsewhere, tampered, foreign and malformed states are refused", async () => {
  const sealer = new RequestStateSealer({ secret, ttlMs: 1000 });
  const token = await sealer.seal({ step: 1 }, "tools/call:deploy:alice", 0);
  assert.deepEqual(await sealer.open(token, "tools/call:deploy:alice", 1000), { ok: false, reason: "expired" });
  assert.deepEqual(await sealer.open(token, "tools/call:deploy:mallory", 10), { ok: false, reason: "other-request" });
  assert.deepEqual(await sealer.open(token, "prompts/get:deploy:alice", 10), { ok: false, reason: "other-request" });
  const [body, mac] = token.split(".") as [string, string];
  // Change the payload but keep the MAC: the forged state must not open.
  const forged = new TextEncoder().encode(new TextDecoder().decode(base64urlDecode(body)).replace('"step":1', '"step":9'));
  assert.deepEqual(await sealer.open(`${base64urlEncode(forged)}.${mac}`, "tools/call:deploy:alice", 10), {
    ok: false,
    reason: "tampered",
  });
  const flipped = base64urlDecode(mac) as Uint8Array;
  flipped[0] = (flipped[0] as number) ^ 1;
  assert.deepEqual(await sealer.open(`${body}.${base64urlEncode(flipped)}`, "tools/call:deploy:alice", 10), {
    ok: false,
    reason: "tampered",
  });
  const other = new RequestStateSealer({ secret: new Uint8Array(32).fill(4) });
  assert.deepEqual(await other.open(token, "tools/call:deploy:alice", 10), { ok: false, reason: "tampered" });
  for (const bad of [undefined, 42, "", "nodot", `${body}.`, `${body}.abc`, `.${mac}`, "a+b.c"]) {
    assert.deepEqual(await sealer.open(bad, "tools/call:deploy:alice", 10), { ok: false, reason: "malformed" }, String(bad));
  }
});

test("a validly sealed body that is not a state is malformed", async () => {
  const sealer = new RequestStateSealer({ secret });
  const key = await crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  for (const text of ["not json", JSON.stringify({ v: 2, b: "x", e: 10 }), JSON.stringify({ v: 1, b: 5, e: 10 })]) {
    const body = new TextEncoder().encode(text);
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, body));
    assert.deepEqual(await sealer.open(`${base64urlEncode(body)}.${base64urlEncode(mac)}`, "x", 0), { ok: false, reason: "malformed" });
  }
});

test("options are checked", () => {
  assert.throws(() => new RequestStateSealer({ secret: new Uint8Array(16) }), RangeError);
  assert.throws(() => new RequestStateSealer({ secret, ttlMs: 0 }), RangeError);
  assert.throws(() => new RequestStateSealer({ secret, subtle: undefined as never, ttlMs: -1 }), RangeError);
});
