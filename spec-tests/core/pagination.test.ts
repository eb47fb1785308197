// SHA-256/HMAC known-answer vectors (FIPS 180-4, RFC 4231) and the pagination helper:
// stable opaque cursors, every page once, and tampered, foreign or cross-list cursors
// refused with -32602 (N-05).

import assert from "node:assert/strict";
import { test } from "node:test";
import { Paginator, base64urlDecode, base64urlEncode, hmacSha256, sha256 } from "../../lib/internal.js";

const text = new TextEncoder();
const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

test("sha256 known answers", () => {
  assert.equal(hex(sha256(text.encode(""))), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert.equal(hex(sha256(text.encode("abc"))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assert.equal(
    hex(sha256(text.encode("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
  assert.equal(hex(sha256(new Uint8Array(1000000).fill(0x61))), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
});

test("hmac-sha256 known answers (RFC 4231 cases 1, 2 and 6)", () => {
  assert.equal(
    hex(hmacSha256(new Uint8Array(20).fill(0x0b), text.encode("Hi There"))),
    "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
  );
  assert.equal(
    hex(hmacSha256(text.encode("Jefe"), text.encode("what do ya want for nothing?"))),
    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
  );
  assert.equal(
    hex(hmacSha256(new Uint8Array(131).fill(0xaa), text.encode("Test Using Larger Than Block-Size Key - Hash Key First"))),
    "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
  );
});

test("base64url round trips every length and refuses foreign characters", () => {
  for (let n = 0; n < 40; n++) {
    const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 0xff);
    const encoded = base64urlEncode(bytes);
    assert.match(encoded, /^[A-Za-z0-9_-]*$/);
    assert.deepEqual(base64urlDecode(encoded), bytes);
  }
  assert.equal(base64urlDecode("ab+c"), undefined);
  assert.equal(base64urlDecode("abcde"), undefined);
  assert.equal(base64urlDecode("é"), undefined);
});

const secret = new Uint8Array(32).fill(7);
const items = Array.from({ length: 23 }, (_, i) => `item-${i}`);

test("N-02: pages cover every item exactly once, with nextCursor only while more remain", () => {
  const p = new Paginator({ secret, pageSize: 10 });
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = p.page("tools", items, cursor);
    assert.ok(page.ok);
    seen.push(...page.items);
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== undefined);
  assert.equal(pages, 3);
  assert.deepEqual(seen, items);
  const empty = p.page("tools", [], undefined);
  assert.ok(empty.ok);
  assert.equal(empty.nextCursor, undefined);
});

test("N-05: cursors are stable: the same position gives the same cursor", () => {
  const p = new Paginator({ secret, pageSize: 5 });
  const a = p.page("tools", items, undefined);
  const b = p.page("tools", items, undefined);
  assert.ok(a.ok && b.ok);
  assert.equal(a.nextCursor, b.nextCursor);
});

test("N-05: tampered, truncated, foreign and cross-list cursors are refused with -32602", () => {
  const p = new Paginator({ secret, pageSize: 5 });
  const first = p.page("tools", items, undefined);
  assert.ok(first.ok && first.nextCursor !== undefined);
  const good = first.nextCursor;
  const [payload, mac] = good.split(".") as [string, string];
  const forged = base64urlEncode(text.encode(JSON.stringify({ l: "tools", o: 0 })));
  const cases: Array<[string, string]> = [
    [`${forged}.${mac}`, "not issued by this server"],
    [`${payload}.${mac.slice(0, -2)}`, "not issued by this server"],
    [`${payload}x.${mac}`, "not issued by this server"],
    ["garbage", "malformed"],
    [".", "malformed"],
    [`${payload}.`, "not issued by this server"],
    [`${payload}.a+b`, "malformed"],
  ];
  for (const [cursor, reason] of cases) {
    const page = p.page("tools", items, cursor);
    assert.equal(page.ok, false, cursor);
    if (!page.ok) {
      assert.equal(page.code, -32602);
      assert.equal(page.data.reason, reason, cursor);
      assert.equal(page.data.cursor, cursor);
    }
  }
  const other = new Paginator({ secret: new Uint8Array(32).fill(9), pageSize: 5 });
  assert.equal(other.page("tools", items, good).ok, false);
  const crossList = p.page("prompts", items, good);
  assert.ok(!crossList.ok && crossList.data.reason === "issued for another list");
});

test("N-05: a sealed payload that is not a valid position is refused", () => {
  // A cursor sealed with the right key but holding a bad offset can only come from a bug; it is still refused.
  const p = new Paginator({ secret, pageSize: 5 });
  const seal = (value: unknown): string => {
    const payload = text.encode(JSON.stringify(value));
    return `${base64urlEncode(payload)}.${base64urlEncode(hmacSha256(secret, payload).subarray(0, 16))}`;
  };
  for (const bad of [{ l: "tools", o: -1 }, { l: "tools", o: 1.5 }, { l: "tools" }]) {
    const page = p.page("tools", items, seal(bad));
    assert.ok(!page.ok && page.data.reason === "malformed");
  }
  const notJson = text.encode("{oops");
  const page = p.page("tools", items, `${base64urlEncode(notJson)}.${base64urlEncode(hmacSha256(secret, notJson).subarray(0, 16))}`);
  assert.ok(!page.ok && page.data.reason === "malformed");
});

test("constructor refuses short secrets and bad page sizes", () => {
  assert.throws(() => new Paginator({ secret: new Uint8Array(8) }), RangeError);
  assert.throws(() => new Paginator({ secret, pageSize: 0 }), RangeError);
  assert.throws(() => new Paginator({ secret, pageSize: 2.5 }), RangeError);
  assert.equal(new Paginator({ secret }).pageSize, 50);
});
