// The built-in UTF-8 codec (lib/wire/utf8.ts) against the platform's TextDecoder/TextEncoder:
// the same text, or the same failure, for every input, under each of the four decoder settings
// (fatal or lenient, BOM removed or kept). Inputs: every one- and two-byte sequence, every lead
// byte with every second byte, the classic adversarial cases (overlong forms, surrogates, past
// U+10FFFF, lone continuation bytes, U+FFFD itself, BOMs), every truncation and every cut of a
// multilingual text, and seeded random bytes; the encoder over strings with lone surrogates, and
// encodeInto into every destination size.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  BuiltinUtf8Decoder,
  BuiltinUtf8Encoder,
  BuiltinUtf8StreamDecoder,
  asciiBytes,
  newUtf8Decoder,
  newUtf8StreamDecoder,
} from "../../lib/wire/utf8.js";

const SETTINGS = [
  { fatal: true, ignoreBOM: true },
  { fatal: true, ignoreBOM: false },
  { fatal: false, ignoreBOM: true },
  { fatal: false, ignoreBOM: false },
] as const;

const platform = SETTINGS.map((s) => new TextDecoder("utf-8", s));
const builtin = SETTINGS.map((s) => new BuiltinUtf8Decoder(s.fatal, s.ignoreBOM));

function outcome(decoder: { decode(bytes: Uint8Array): string }, bytes: Uint8Array): string {
  try {
    return `text:${JSON.stringify(decoder.decode(bytes))}`;
  } catch (error) {
    return `throws:${(error as Error).name}`;
  }
}

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(" ");

/** Every setting: the built-in decoder's outcome equals the platform's; counts the inputs checked. */
let checked = 0;
function same(bytes: Uint8Array): void {
  for (let s = 0; s < SETTINGS.length; s++) {
    const want = outcome(platform[s] as TextDecoder, bytes);
    const got = outcome(builtin[s] as BuiltinUtf8Decoder, bytes);
    if (want !== got) assert.fail(`${JSON.stringify(SETTINGS[s])} on [${hex(bytes)}]: platform ${want}, built-in ${got}`);
  }
  checked++;
}

/** A seeded generator (xorshift32): the same inputs on every run. */
function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

test("the built-in decoder matches the platform's on every one- and two-byte input", () => {
  for (let a = 0; a < 256; a++) {
    same(Uint8Array.of(a));
    for (let b = 0; b < 256; b++) same(Uint8Array.of(a, b));
  }
  assert.ok(checked >= 65_792);
});

test("the built-in decoder matches on every lead byte followed by every continuation byte (and its neighbours), then a few third and fourth bytes", () => {
  const seconds = [0x00, 0x41, 0x7e, 0x7f, 0xc0, 0xc1, 0xc2, 0xe0, 0xf0, 0xff];
  for (let b = 0x80; b <= 0xbf; b++) seconds.push(b);
  const tails = [0x41, 0x7f, 0x80, 0x8f, 0x90, 0xbf, 0xc0, 0xe0, 0xf4, 0xff];
  for (let lead = 0xc0; lead < 0x100; lead++) {
    for (const second of seconds) {
      for (const third of tails) {
        same(Uint8Array.of(lead, second, third));
        same(Uint8Array.of(lead, second, third, 0x80));
      }
    }
  }
});

test("the built-in decoder matches on overlong forms, surrogates, code points past U+10FFFF, U+FFFD and byte order marks", () => {
  const cases: number[][] = [
    [0xc0, 0x80], // overlong NUL
    [0xc1, 0xbf],
    [0xe0, 0x80, 0x80],
    [0xe0, 0x9f, 0xbf], // overlong U+07FF
    [0xf0, 0x80, 0x80, 0x80],
    [0xf0, 0x8f, 0xbf, 0xbf], // overlong U+FFFF
    [0xf8, 0x88, 0x80, 0x80, 0x80], // five-byte form
    [0xfc, 0x84, 0x80, 0x80, 0x80, 0x80], // six-byte form
    [0xed, 0xa0, 0x80], // lone high surrogate
    [0xed, 0xbf, 0xbf], // lone low surrogate
    [0xed, 0xa0, 0x80, 0xed, 0xb0, 0x80], // a surrogate pair as CESU-8
    [0xf4, 0x90, 0x80, 0x80], // U+110000
    [0xf7, 0xbf, 0xbf, 0xbf],
    [0xef, 0xbf, 0xbd], // U+FFFD itself
    [0xef, 0xbf, 0xbe], // U+FFFE
    [0xf4, 0x8f, 0xbf, 0xbf], // U+10FFFF
    [0xf0, 0x90, 0x80, 0x80], // U+10000
    [0x80],
    [0xbf, 0x80, 0xbf],
    [0xef, 0xbb, 0xbf], // BOM alone
    [0xef, 0xbb, 0xbf, 0x41],
    [0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x41], // two BOMs
    [0x41, 0xef, 0xbb, 0xbf], // a BOM after the start
    [0xef, 0xbb], // half a BOM
    [0xef, 0xbb, 0x41],
    [0xfe, 0xff, 0x00, 0x41], // UTF-16 BOMs are not UTF-8
    [0xff, 0xfe, 0x41, 0x00],
    [0xe2, 0x82], // truncated €
    [0xe2, 0x82, 0x41],
    [0xf0, 0x9f, 0x98], // truncated 😀
    [0xf0, 0x9f, 0x41, 0x98, 0x80],
    [0xc2, 0xc2, 0xa9],
  ];
  for (const c of cases) same(Uint8Array.from(c));
  for (let i = 0; i < cases.length; i++)
    for (let j = 0; j < cases.length; j++) same(Uint8Array.from([...(cases[i] as number[]), 0x7b, ...(cases[j] as number[])]));
});

test("the built-in decoder matches on every truncation and every cut of a multilingual text", () => {
  const text = '\uFEFF{"a":"é€😀𐍈\uFFFD","b":"日本語","c":"\u0000\u007f\u0080\u07ff\u0800\uffff"}';
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i <= bytes.length; i++) {
    same(bytes.subarray(0, i));
    same(bytes.subarray(i));
    for (let j = i; j <= bytes.length; j++) same(bytes.subarray(i, j));
  }
});

test("the built-in decoder matches on seeded random bytes, biased to the bytes that start and continue sequences", () => {
  const next = random(0x5eed);
  const pool = [0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff];
  for (let n = 0; n < 20_000; n++) {
    const length = next() % 24;
    const bytes = new Uint8Array(length);
    for (let i = 0; i < length; i++) bytes[i] = next() % 2 === 0 ? (pool[next() % pool.length] as number) : next() & 0xff;
    same(bytes);
  }
});

test("the built-in decoder matches on inputs longer than its internal chunk, valid and not", () => {
  const next = random(42);
  const valid = new TextEncoder().encode("a€😀é".repeat(5000));
  same(valid);
  const broken = valid.slice();
  for (let i = 0; i < 50; i++) broken[next() % broken.length] = next() & 0xff;
  same(broken);
  same(new Uint8Array(70_000).fill(0xff));
  same(new Uint8Array(70_000).fill(0x41));
});

test("the built-in encoder matches TextEncoder on strings with lone surrogates, and encodeInto into every destination size", () => {
  const platformEncoder = new TextEncoder();
  const ours = new BuiltinUtf8Encoder();
  const next = random(7);
  const units = [0x00, 0x41, 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000, 0xfeff, 0xfffd, 0xffff];
  const strings = ["", "abc", "é€😀", "\ud800", "\udc00", "\udc00\ud800", "a\ud83d", "\ud83d\ude00\ud83d"];
  for (let n = 0; n < 3000; n++) {
    let s = "";
    const length = next() % 12;
    for (let i = 0; i < length; i++)
      s += String.fromCharCode(next() % 3 === 0 ? next() & 0xffff : (units[next() % units.length] as number));
    strings.push(s);
  }
  for (const s of strings) {
    assert.deepEqual(ours.encode(s), platformEncoder.encode(s), JSON.stringify(s));
    const full = platformEncoder.encode(s).length;
    for (let size = 0; size <= full + 2; size++) {
      const a = new Uint8Array(size);
      const b = new Uint8Array(size);
      const want = platformEncoder.encodeInto(s, a);
      const got = ours.encodeInto(s, b);
      assert.deepEqual(
        { read: got.read, written: got.written },
        { read: want.read, written: want.written },
        `${JSON.stringify(s)} into ${size}`,
      );
      assert.deepEqual(b, a);
    }
  }
});

test("asciiBytes makes ASCII constants without a codec and refuses anything else; newUtf8Decoder and newUtf8StreamDecoder take the host's decoder when there is one", () => {
  assert.deepEqual(asciiBytes('{"jsonrpc":"2.0"}'), new TextEncoder().encode('{"jsonrpc":"2.0"}'));
  assert.throws(() => asciiBytes("é"), /ASCII text only; got U\+e9 at 0/);
  assert.ok(newUtf8Decoder(true, true) instanceof TextDecoder);
  assert.ok(newUtf8StreamDecoder(false, true) instanceof TextDecoder);
  const fatal = newUtf8Decoder(true, false) as TextDecoder;
  assert.equal(fatal.fatal, true);
  assert.equal((newUtf8Decoder(false, true) as TextDecoder & { ignoreBOM: boolean }).ignoreBOM, true);
  assert.throws(() => new BuiltinUtf8Decoder(true, false).decode(Uint8Array.of(0x41, 0xc0, 0x80)), {
    name: "TypeError",
    message: /not valid for encoding utf-8 \(an invalid sequence at byte 1\)/,
  });
});

/** `bytes` decoded as a stream cut at `cuts` (each chunk with { stream: true }, then a flush), or the failure. */
function streamed(
  decoder: { decode(bytes?: Uint8Array, options?: { stream?: boolean }): string },
  bytes: Uint8Array,
  cuts: readonly number[],
): string {
  let text = "";
  let start = 0;
  try {
    for (const cut of [...cuts, bytes.length]) {
      text += decoder.decode(bytes.subarray(start, cut), { stream: true });
      start = cut;
    }
    return `text:${JSON.stringify(text + decoder.decode())}`;
  } catch (error) {
    return `throws:${(error as Error).name}`;
  }
}

test("the built-in decoder streams as the platform's does: sequences and BOMs cut anywhere, invalid tails, and a flush that starts afresh", () => {
  const inputs: Uint8Array[] = [
    new TextEncoder().encode('\uFEFF{"a":"é€😀𐍈"}\uFEFF'),
    Uint8Array.of(0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf),
    Uint8Array.of(0xe2, 0x82, 0x41, 0xf0, 0x9f, 0x98, 0xe0, 0x80, 0xed, 0xa0, 0x80, 0xf4, 0x90, 0xc2),
    Uint8Array.of(0x41, 0xf0, 0x9f, 0x98),
  ];
  const next = random(99);
  const pool = [0x41, 0x80, 0x90, 0xa0, 0xbf, 0xc2, 0xe0, 0xed, 0xef, 0xbb, 0xf0, 0xf4, 0xff];
  for (let n = 0; n < 400; n++) inputs.push(Uint8Array.from({ length: 1 + (next() % 10) }, () => pool[next() % pool.length] as number));
  let runs = 0;
  for (let s = 0; s < SETTINGS.length; s++) {
    const setting = SETTINGS[s] as (typeof SETTINGS)[number];
    const ours = new BuiltinUtf8StreamDecoder(setting.fatal, setting.ignoreBOM);
    for (const bytes of inputs) {
      const splits: number[][] = [[]];
      for (let i = 1; i < bytes.length; i++) {
        splits.push([i]);
        for (let j = i; j < bytes.length; j++) splits.push([i, j]);
      }
      splits.push(Array.from({ length: Math.max(0, bytes.length - 1) }, (_, i) => i + 1));
      for (const cuts of splits) {
        // A fresh platform decoder each time (a throw leaves its state to the platform); ours is reused, so a flush must reset it.
        const want = streamed(new TextDecoder("utf-8", setting), bytes, cuts);
        const got = streamed(ours, bytes, cuts);
        if (want !== got)
          assert.fail(`${JSON.stringify(setting)} on [${hex(bytes)}] cut at ${cuts.join(",")}: platform ${want}, built-in ${got}`);
        runs++;
      }
    }
  }
  assert.ok(runs > 10_000, `${runs} streamed runs`);
});
