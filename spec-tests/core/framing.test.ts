// Newline-delimited JSON framing (RULES.md STD-01, STD-02): LineDecoder split invariance, line ends,
// blank lines and line numbers, bad lines (invalid UTF-8 / JSON), the maxLineBytes limit,
// end of input, and the encoder (encodeMessage, encodeMessages) with encode→decode round trips.
// Linear time is measured in bench/framing.bench.ts, not asserted here.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_MAX_LINE_BYTES, LineDecoder, encodeMessage, encodeMessages } from "../../lib/index.js";
import type { DecodedItem, FramingError, LineDecoderOptions } from "../../lib/index.js";
import { concat } from "../support/helpers.js";

// ---------------------------------------------------------------------------------------
// Helpers

const utf8 = new TextEncoder();
const MiB = 1024 * 1024;

/** Concatenates UTF-8 text and raw byte lists into one buffer. */
function bytes(...parts: Array<string | readonly number[] | Uint8Array>): Uint8Array {
  return concat(parts.map((part) => (typeof part === "string" ? utf8.encode(part) : Uint8Array.from(part))));
}

interface Run {
  items: DecodedItem[];
  /** Largest `bufferedBytes` seen after any push. */
  maxBuffered: number;
  /** `bufferedBytes` after finish (or after the last push when not finished). */
  finalBuffered: number;
}

/** Feeds the chunks to a fresh decoder and (unless told not to) finishes it. */
function decode(chunks: Iterable<Uint8Array>, options?: LineDecoderOptions, finish = true): Run {
  const decoder = new LineDecoder(options);
  const items: DecodedItem[] = [];
  let maxBuffered = 0;
  for (const chunk of chunks) {
    decoder.push(chunk, items);
    if (decoder.bufferedBytes > maxBuffered) maxBuffered = decoder.bufferedBytes;
  }
  if (finish) decoder.finish(items);
  return { items, maxBuffered, finalBuffered: decoder.bufferedBytes };
}

/** The buffer cut at the given ascending offsets (empty chunks included). */
function splitAt(buffer: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const cut of cuts) {
    chunks.push(buffer.subarray(from, cut));
    from = cut;
  }
  chunks.push(buffer.subarray(from));
  return chunks;
}

function* chunksOf(buffer: Uint8Array, size: number): Generator<Uint8Array> {
  for (let i = 0; i < buffer.length; i += size) yield buffer.subarray(i, i + size);
}

/** Deterministic pseudo-random numbers (xorshift32), so failures reproduce. */
function prng(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x1_0000_0000;
  };
}

function* randomChunks(buffer: Uint8Array, seed: number, maxSize: number): Generator<Uint8Array> {
  const random = prng(seed);
  let i = 0;
  while (i < buffer.length) {
    const size = Math.floor(random() * (maxSize + 1)); // 0 gives an empty chunk now and then
    yield buffer.subarray(i, i + size);
    i += size;
  }
}

/** Items without their free-text detail, for comparing against an expectation. */
function summary(items: readonly DecodedItem[]): unknown[] {
  return items.map((item) =>
    item.ok ? { ok: true, value: item.value, line: item.line } : { ok: false, reason: item.reason, line: item.line },
  );
}

const ok = (value: unknown, line: number) => ({ ok: true as const, value, line });
const err = (reason: string, line: number) => ({ ok: false as const, reason, line });

/** Throws if any string (value or key) inside `value` holds U+FFFD. */
function assertNoReplacementChar(value: unknown, where: string): void {
  if (typeof value === "string") {
    assert.equal(value.includes("\uFFFD"), false, `U+FFFD in ${where}`);
  } else if (Array.isArray(value)) {
    value.forEach((element, i) => assertNoReplacementChar(element, `${where}[${i}]`));
  } else if (typeof value === "object" && value !== null) {
    for (const [key, element] of Object.entries(value)) {
      assertNoReplacementChar(key, `${where} key`);
      assertNoReplacementChar(element, `${where}.${key}`);
    }
  }
}

function assertEveryDetailIsText(items: readonly DecodedItem[]): void {
  for (const item of items) {
    if (!item.ok) assert.ok(typeof item.detail === "string" && item.detail.length > 0, "error item has a detail");
  }
}

// ---------------------------------------------------------------------------------------
// Corpora

/** Short valid messages: ASCII, 2/3/4-byte UTF-8, CRLF, blank and whitespace-only lines. */
const shortText =
  '{"jsonrpc":"2.0","id":1,"method":"ping"}\n' + //                                      line 1
  "\n" + //                                                                              line 2 (blank)
  '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"café € 😀"}}\r\n' + // 3 (CRLF)
  "   \t \n" + //                                                                        line 4 (whitespace)
  "\r\n" + //                                                                            line 5 (blank, CRLF)
  '"é€😀"\n' + //                                                                         line 6
  '[1,2,{"k":"日本語","😀":"𝄞"}]\r\n' + //                                                line 7 (CRLF)
  " \t \r\n" + //                                                                        line 8 (whitespace, CRLF)
  '{"e":"x\\ny"}\n'; //                                                                  line 9 (escaped \n)

const shortExpected = [
  ok({ jsonrpc: "2.0", id: 1, method: "ping" }, 1),
  ok({ jsonrpc: "2.0", method: "notifications/message", params: { data: "café € 😀" } }, 3),
  ok("é€😀", 6),
  ok([1, 2, { k: "日本語", "😀": "𝄞" }], 7),
  ok({ e: "x\ny" }, 9),
];

/** Short messages mixed with every kind of bad line, under a small limit (maxLineBytes 24). */
const mixedOptions: LineDecoderOptions = { maxLineBytes: 24 };
const mixedBuffer = bytes(
  '{"a":"é"}\n', //                            line 1
  [0xff],
  "\n", //                             line 2: invalid UTF-8 (0xFF)
  '"€',
  [0xe2, 0x82],
  '"\r\n', //              line 3: truncated 3-byte sequence
  [0xc0, 0x80],
  "\n", //                       line 4: overlong NUL
  "not json\n", //                             line 5
  '"' + "x".repeat(40) + '"\n', //             line 6: 42 bytes > 24
  '"😀"\r\n', //                               line 7
  "\n", //                                     line 8
  '{"tail":', //                               line 9: truncated at end of input
);
const mixedExpected = [
  ok({ a: "é" }, 1),
  err("invalid-utf8", 2),
  err("invalid-utf8", 3),
  err("invalid-utf8", 4),
  err("invalid-json", 5),
  err("line-too-long", 6),
  ok("😀", 7),
  err("truncated", 9),
];

// ---------------------------------------------------------------------------------------

describe("LineDecoder: split invariance", () => {
  const shortBuffer = bytes(shortText);

  it("STD-01: decodes the short corpus whole into the expected items", () => {
    const { items, finalBuffered } = decode([shortBuffer]);
    assert.deepEqual(items, shortExpected);
    assert.equal(finalBuffered, 0);
  });

  it("STD-01: gives the same items at every 2-chunk split point", () => {
    const whole = decode([shortBuffer]).items;
    for (let cut = 0; cut <= shortBuffer.length; cut++) {
      const { items } = decode(splitAt(shortBuffer, [cut]));
      assert.deepEqual(items, whole, `split at ${cut}`);
      for (const item of items) assertNoReplacementChar(item.ok ? item.value : undefined, `split at ${cut}`);
    }
  });

  it("STD-01: gives the same items for 3 chunks over a grid of split points", () => {
    const whole = decode([shortBuffer]).items;
    const step = 3;
    for (let a = 0; a <= shortBuffer.length; a += step) {
      for (let b = a; b <= shortBuffer.length; b += step) {
        assert.deepEqual(decode(splitAt(shortBuffer, [a, b])).items, whole, `split at ${a}, ${b}`);
      }
    }
  });

  it("STD-01: gives the same items in 1-byte chunks", () => {
    assert.deepEqual(decode(chunksOf(shortBuffer, 1)).items, shortExpected);
  });

  it("STD-01: gives the same items, bad lines included, at every split point of a mixed corpus", () => {
    const whole = decode([mixedBuffer], mixedOptions);
    assert.deepEqual(summary(whole.items), mixedExpected);
    assertEveryDetailIsText(whole.items);
    const limit = mixedOptions.maxLineBytes! + 1;
    for (let a = 0; a <= mixedBuffer.length; a++) {
      const two = decode(splitAt(mixedBuffer, [a]), mixedOptions);
      assert.deepEqual(summary(two.items), mixedExpected, `split at ${a}`);
      assert.ok(two.maxBuffered <= limit, `buffered ${two.maxBuffered} at split ${a}`);
      for (let b = a; b <= mixedBuffer.length; b++) {
        const three = decode(splitAt(mixedBuffer, [a, b]), mixedOptions);
        assert.deepEqual(summary(three.items), mixedExpected, `split at ${a}, ${b}`);
        assert.ok(three.maxBuffered <= limit, `buffered ${three.maxBuffered} at split ${a}, ${b}`);
      }
    }
    const ones = decode(chunksOf(mixedBuffer, 1), mixedOptions);
    assert.deepEqual(summary(ones.items), mixedExpected);
    assert.ok(ones.maxBuffered <= limit);
  });

  it("STD-01: gives the same error details too, whatever the split", () => {
    // A line is parsed without its terminator on every path, so V8's message (which quotes
    // short input) is the same whether the line came in one chunk or byte by byte.
    const whole = decode([mixedBuffer], mixedOptions).items;
    for (let a = 0; a <= mixedBuffer.length; a++) {
      for (let b = a; b <= mixedBuffer.length; b++) {
        assert.deepEqual(decode(splitAt(mixedBuffer, [a, b]), mixedOptions).items, whole, `split at ${a}, ${b}`);
      }
    }
    const line = bytes("not json\r\n");
    assert.deepEqual(decode([line]).items, decode(chunksOf(line, 1)).items);
  });

  it("STD-01, LIM-01: gives the same items with a 10 MiB line in the stream, in 1-byte, 64 KiB and random chunks", () => {
    // "aé€😀" is 1+2+3+4 bytes, so byte-wise chunking cuts inside every kind of sequence.
    const bigText = "aé€😀".repeat(MiB);
    const buffer = bytes(shortText, JSON.stringify({ big: bigText }) + "\r\n", shortText);
    const bigLine = utf8.encode(JSON.stringify({ big: bigText })).length;
    assert.ok(bigLine > 10 * MiB);
    const options = { maxLineBytes: 12 * MiB };
    const shortLines = shortText.split("\n").length - 1;
    const expected = [
      ...shortExpected,
      ok({ big: bigText }, shortLines + 1),
      ...shortExpected.map((item) => ({ ...item, line: item.line + shortLines + 1 })),
    ];

    const whole = decode([buffer], options);
    assert.deepEqual(whole.items, expected);
    for (const [label, chunks] of [
      ["1-byte", chunksOf(buffer, 1)],
      ["64 KiB", chunksOf(buffer, 64 * 1024)],
      ["random ≤ 7 bytes", randomChunks(buffer, 7, 7)],
      ["random ≤ 100 KiB", randomChunks(buffer, 11, 100 * 1024)],
    ] as const) {
      const run = decode(chunks, options);
      assert.equal(run.items.length, expected.length, label);
      assert.deepEqual(run.items, expected, label);
      assert.ok(run.maxBuffered <= options.maxLineBytes + 1, label);
      for (const item of run.items) assertNoReplacementChar(item.ok ? item.value : undefined, label);
    }
  });

  it("STD-01: agrees with a line-by-line reference model on random byte streams, at every split", () => {
    // Bytes chosen to make short lines of every kind: JSON, whitespace, CR, LF, bad UTF-8.
    const alphabet = [0x31, 0x32, 0x20, 0x09, 0x0d, 0x0a, 0x0a, 0x22, 0x5b, 0x5d, 0xc3, 0xa9, 0xff, 0xe2, 0x82, 0xac];
    const random = prng(2024);
    for (let round = 0; round < 300; round++) {
      const length = 1 + Math.floor(random() * 30);
      const buffer = new Uint8Array(length);
      for (let i = 0; i < length; i++) buffer[i] = alphabet[Math.floor(random() * alphabet.length)]!;
      const maxLineBytes = 1 + Math.floor(random() * 8);
      const expected = referenceModel(buffer, maxLineBytes);
      const label = `bytes [${Array.from(buffer).join(",")}], maxLineBytes ${maxLineBytes}`;
      assert.deepEqual(summary(decode([buffer], { maxLineBytes }).items), expected, label);
      for (let cut = 0; cut <= length; cut++) {
        const run = decode(splitAt(buffer, [cut]), { maxLineBytes });
        assert.deepEqual(summary(run.items), expected, `${label}, split at ${cut}`);
        assert.ok(run.maxBuffered <= maxLineBytes + 1, `${label}, split at ${cut}: buffered ${run.maxBuffered}`);
      }
      assert.deepEqual(summary(decode(chunksOf(buffer, 1), { maxLineBytes }).items), expected, `${label}, 1-byte`);
    }
  });
});

/**
 * What the decoder should give, computed the simple way: split the whole input at LF, drop
 * one trailing CR, then judge each line on its own. An unterminated tail longer than
 * maxLineBytes + 1 (more than the line plus a possible CR) is reported as too long when it
 * overflows; a shorter non-blank tail is "truncated" at the end.
 */
function referenceModel(buffer: Uint8Array, maxLineBytes: number): unknown[] {
  const strict = new TextDecoder("utf-8", { fatal: true });
  const isBlank = (line: Uint8Array) => line.every((b) => b === 0x20 || b === 0x09 || b === 0x0d);
  const out: unknown[] = [];
  let line = 0;
  let start = 0;
  for (;;) {
    const newline = buffer.indexOf(0x0a, start);
    if (newline === -1) break;
    line++;
    let end = newline;
    if (end > start && buffer[end - 1] === 0x0d) end--;
    const bytes = buffer.subarray(start, end);
    start = newline + 1;
    if (bytes.length > maxLineBytes) {
      out.push(err("line-too-long", line));
      continue;
    }
    if (isBlank(bytes)) continue;
    let text: string;
    try {
      text = strict.decode(bytes);
    } catch {
      out.push(err("invalid-utf8", line));
      continue;
    }
    try {
      out.push(ok(JSON.parse(text), line));
    } catch {
      out.push(err("invalid-json", line));
    }
  }
  const tail = buffer.subarray(start);
  if (tail.length > maxLineBytes + 1) out.push(err("line-too-long", line + 1));
  else if (!isBlank(tail)) out.push(err("truncated", line + 1));
  return out;
}

describe("LineDecoder: line ends, blank lines, line numbers", () => {
  it("STD-01: ends lines at \\n and at \\r\\n alike", () => {
    const { items } = decode([bytes("1\n2\r\n3\n\r\n4\r\n")]);
    assert.deepEqual(items, [ok(1, 1), ok(2, 2), ok(3, 3), ok(4, 5)]);
  });

  it("STD-01: does not end a line at a lone \\r", () => {
    assert.deepEqual(summary(decode([bytes("1\r2\n3\n")]).items), [err("invalid-json", 1), ok(3, 2)]);
    // A lone CR between two values inside a line is whitespace to JSON, still one line.
    assert.deepEqual(decode([bytes("[1,\r2]\n")]).items, [ok([1, 2], 1)]);
  });

  it("STD-01: skips blank and whitespace-only lines but counts them", () => {
    const { items } = decode([bytes("\n\n \n\t\n\r\n \t\r\n{}\n\n[]\n")]);
    assert.deepEqual(items, [ok({}, 7), ok([], 9)]);
  });

  it("STD-01: gives nothing for a stream of only blank lines", () => {
    assert.deepEqual(decode([bytes("\n\r\n  \n")]).items, []);
  });

  it("STD-01: numbers lines from 1, bad lines and too-long lines included", () => {
    const { items } = decode([bytes("{}\nbad\n\n", [0xff], "\n", '"' + "y".repeat(20) + '"\n', "5\n")], {
      maxLineBytes: 10,
    });
    assert.deepEqual(summary(items), [ok({}, 1), err("invalid-json", 2), err("invalid-utf8", 4), err("line-too-long", 5), ok(5, 6)]);
  });

  it("appends to the caller's array and keeps counting lines across pushes", () => {
    const decoder = new LineDecoder();
    const into: DecodedItem[] = [ok("earlier", 0) as DecodedItem];
    decoder.push(bytes("1\n"), into);
    decoder.push(bytes("\n2"), into);
    assert.equal(decoder.bufferedBytes, 1);
    decoder.push(bytes("\n"), into);
    assert.equal(decoder.bufferedBytes, 0);
    assert.deepEqual(into, [ok("earlier", 0), ok(1, 1), ok(2, 3)]);
  });
});

describe("LineDecoder: bad lines", () => {
  const badUtf8: Array<[string, number[]]> = [
    ["0xFF", [0xff]],
    ["lone continuation byte", [0x22, 0x80, 0x22]],
    ["truncated 3-byte sequence", [0x22, 0xe2, 0x82, 0x22]],
    ["truncated 3-byte sequence at line end", [0x22, 0x61, 0x22, 0x20, 0xe2, 0x82]],
    ["truncated 4-byte sequence", [0x22, 0xf0, 0x9f, 0x98, 0x22]],
    ["overlong NUL 0xC0 0x80", [0xc0, 0x80]],
    ["overlong '/' 0xE0 0x80 0xAF", [0x22, 0xe0, 0x80, 0xaf, 0x22]],
    ["UTF-8 encoded surrogate", [0x22, 0xed, 0xa0, 0x80, 0x22]],
    ["beyond U+10FFFF", [0x22, 0xf4, 0x90, 0x80, 0x80, 0x22]],
  ];
  it("STD-01: a U+FFFD the peer sent is data, in a chunk of whole lines beside invalid bytes or alone", () => {
    // The chunk's run is decoded leniently first; a U+FFFD in its text sends it to the strict decoder, which alone decides.
    const replacement = [0xef, 0xbf, 0xbd];
    const mixed = bytes('"a', replacement, 'b"\n', [0x22, 0xff, 0x22], "\n", '{"k":"', replacement, '"}\n');
    assert.deepEqual(summary(decode([mixed]).items), [ok("a\uFFFDb", 1), err("invalid-utf8", 2), ok({ k: "\uFFFD" }, 3)]);
    assert.deepEqual(summary(decode([bytes('"', replacement, '"\n"x"\n')]).items), [ok("\uFFFD", 1), ok("x", 2)]);
    // Invalid bytes that a lenient decoder would turn into U+FFFD are never taken for it.
    assert.deepEqual(summary(decode([bytes('"', [0xed, 0xa0, 0x80], '"\n')]).items), [err("invalid-utf8", 1)]);
  });

  for (const [name, line] of badUtf8) {
    it(`STD-01: reports invalid UTF-8 (${name}) once and goes on with the next line`, () => {
      const buffer = bytes('"before"\n', line, "\n", '"after"\n');
      const expected = [ok("before", 1), err("invalid-utf8", 2), ok("after", 3)];
      const whole = decode([buffer]);
      assert.deepEqual(summary(whole.items), expected);
      assertEveryDetailIsText(whole.items);
      assert.deepEqual(summary(decode(chunksOf(buffer, 1)).items), expected);
      // Also with CRLF, and with the bad line spread over chunks.
      const crlf = bytes('"before"\r\n', line, "\r\n", '"after"\r\n');
      for (let cut = 0; cut <= crlf.length; cut++) {
        assert.deepEqual(summary(decode(splitAt(crlf, [cut])).items), expected, `CRLF, split at ${cut}`);
      }
    });
  }

  for (const text of ["not json", "{", '{"a":1} x', "[1,]", "'single'", "{a:1}", "NaN", "1 2", "\u00a0"]) {
    it(`STD-01: reports a non-JSON line ${JSON.stringify(text)} and goes on`, () => {
      const buffer = bytes("[0]\n", text, "\n[2]\n");
      const { items } = decode([buffer]);
      assert.deepEqual(summary(items), [ok([0], 1), err("invalid-json", 2), ok([2], 3)]);
      assertEveryDetailIsText(items);
    });
  }

  it("STD-01: treats a UTF-8 BOM at the start of a line other than the first as not JSON, however the line arrives", () => {
    // Only a BOM that opens the stream is stripped, so decoding a whole chunk and decoding line by line agree.
    const buffer = bytes("1\n\uFEFF2\n\uFEFF\r\n3\n");
    const expected = [ok(1, 1), err("invalid-json", 2), err("invalid-json", 3), ok(3, 4)];
    for (let cut = 0; cut <= buffer.length; cut++) {
      assert.deepEqual(summary(decode(splitAt(buffer, [cut])).items), expected, `split at ${cut}`);
    }
    assert.deepEqual(summary(decode([bytes("{}\n\uFEFF{}\n")]).items), [ok({}, 1), err("invalid-json", 2)]);
  });

  it("STD-01: skips one UTF-8 BOM at the very start of the stream, however the stream is split", () => {
    const buffer = bytes('\uFEFF{"a":1}\n\uFEFF2\n3\n');
    const expected = [ok({ a: 1 }, 1), err("invalid-json", 2), ok(3, 3)];
    for (let cut = 0; cut <= buffer.length; cut++) {
      for (const second of [cut, cut + 1, cut + 2]) {
        assert.deepEqual(
          summary(decode(splitAt(buffer, [...new Set([cut, Math.min(second, buffer.length)])])).items),
          expected,
          `split at ${cut}/${second}`,
        );
      }
    }
    assert.deepEqual(summary(decode([bytes("\uFEFF\uFEFF1\n")]).items), [err("invalid-json", 1)], "a second BOM is kept");
    assert.deepEqual(summary(decode(chunksOf(bytes("\uFEFF"), 1)).items), [], "a stream of only a BOM has no items");
  });

  it("STD-01: gives back the bytes of a partial BOM match as the start of the first line", () => {
    // 0xEF 0xBB then not 0xBF: not a BOM; the two bytes begin the (invalid UTF-8) first line.
    for (const chunks of [
      [[0xef, 0xbb, 0x31, 0x0a, 0x32, 0x0a]],
      [[0xef], [0xbb], [0x31, 0x0a, 0x32, 0x0a]],
      [
        [0xef, 0xbb],
        [0x31, 0x0a],
        [0x32, 0x0a],
      ],
    ]) {
      assert.deepEqual(
        summary(decode(chunks.map((c) => Uint8Array.from(c))).items),
        [err("invalid-utf8", 1), ok(2, 2)],
        JSON.stringify(chunks),
      );
    }
    assert.deepEqual(summary(decode([Uint8Array.from([0xef, 0x31, 0x0a])]).items), [err("invalid-utf8", 1)]);
    assert.deepEqual(summary(decode([Uint8Array.from([0x31, 0x0a])]).items), [ok(1, 1)]);
  });

  it("STD-01: keeps decoding after many bad lines in a row", () => {
    const buffer = bytes("x\n".repeat(50), [0xff, 0x0a, 0xff, 0x0a], '{"ok":true}\n');
    const { items } = decode(chunksOf(buffer, 3));
    assert.equal(items.length, 53);
    assert.deepEqual(items.at(-1), ok({ ok: true }, 53));
  });
});

describe("LineDecoder: maxLineBytes", () => {
  it("LIM-01: defaults to DEFAULT_MAX_LINE_BYTES = 8 MiB", () => {
    assert.equal(DEFAULT_MAX_LINE_BYTES, 8 * MiB);
    assert.equal(new LineDecoder().maxLineBytes, DEFAULT_MAX_LINE_BYTES);
    assert.equal(new LineDecoder({}).maxLineBytes, DEFAULT_MAX_LINE_BYTES);
    assert.equal(new LineDecoder({ maxLineBytes: undefined }).maxLineBytes, DEFAULT_MAX_LINE_BYTES);
  });

  it("LIM-01: enforces the default limit: 8 MiB accepted, 8 MiB + 1 rejected", () => {
    const exact = '"' + "z".repeat(DEFAULT_MAX_LINE_BYTES - 2) + '"';
    const over = '"' + "z".repeat(DEFAULT_MAX_LINE_BYTES - 1) + '"';
    const buffer = bytes(exact, "\n", over, "\n1\n");
    const { items } = decode(chunksOf(buffer, 64 * 1024));
    assert.deepEqual(summary(items), [ok(JSON.parse(exact), 1), err("line-too-long", 2), ok(1, 3)]);
  });

  it("LIM-01: takes the limit from the option", () => {
    assert.equal(new LineDecoder({ maxLineBytes: 16 }).maxLineBytes, 16);
    assert.equal(new LineDecoder({ maxLineBytes: 1 }).maxLineBytes, 1);
    assert.deepEqual(summary(decode([bytes("1234\n123\n")], { maxLineBytes: 3 }).items), [err("line-too-long", 1), ok(123, 2)]);
  });

  for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, -Number.MAX_VALUE, "16" as unknown as number]) {
    it(`LIM-01: throws RangeError for maxLineBytes ${typeof bad === "string" ? JSON.stringify(bad) : String(bad)}`, () => {
      assert.throws(() => new LineDecoder({ maxLineBytes: bad }), RangeError);
    });
  }

  const limit = 16;
  const exactLine = '"' + "é".repeat(7) + '"'; // 1 + 14 + 1 = 16 bytes
  const longLine = '"' + "x".repeat(40) + '"'; // 42 bytes

  it("LIM-01: accepts a line of exactly maxLineBytes, with \\n or \\r\\n, however it is split", () => {
    assert.equal(utf8.encode(exactLine).length, limit);
    for (const end of ["\n", "\r\n"]) {
      const buffer = bytes(exactLine, end, "7", end);
      const expected = [ok("é".repeat(7), 1), ok(7, 2)];
      for (let cut = 0; cut <= buffer.length; cut++) {
        const run = decode(splitAt(buffer, [cut]), { maxLineBytes: limit });
        assert.deepEqual(run.items, expected, `${JSON.stringify(end)}, split at ${cut}`);
        assert.ok(run.maxBuffered <= limit + 1);
      }
      assert.deepEqual(decode(chunksOf(buffer, 1), { maxLineBytes: limit }).items, expected);
    }
  });

  it("LIM-01: rejects a line of maxLineBytes + 1, and one of maxLineBytes + 1 plus \\r", () => {
    for (const end of ["\n", "\r\n"]) {
      const buffer = bytes(exactLine, " ", end, "7", end);
      const expected = [err("line-too-long", 1), ok(7, 2)];
      for (let cut = 0; cut <= buffer.length; cut++) {
        const run = decode(splitAt(buffer, [cut]), { maxLineBytes: limit });
        assert.deepEqual(summary(run.items), expected, `${JSON.stringify(end)}, split at ${cut}`);
        assert.ok(run.maxBuffered <= limit + 1);
      }
    }
  });

  it("LIM-01: gives exactly one line-too-long error whether the line comes in one chunk or many", () => {
    const buffer = bytes('"a"\n', longLine, "\n", '"b"\n');
    const expected = [ok("a", 1), err("line-too-long", 2), ok("b", 3)];
    for (const size of [1, 2, 3, 5, 16, 17, 18, 33, buffer.length]) {
      const run = decode(chunksOf(buffer, size), { maxLineBytes: limit });
      assert.deepEqual(summary(run.items), expected, `chunks of ${size}`);
      assert.ok(run.maxBuffered <= limit + 1, `chunks of ${size}: buffered ${run.maxBuffered}`);
    }
    for (let a = 0; a <= buffer.length; a++) {
      for (let b = a; b <= buffer.length; b++) {
        const run = decode(splitAt(buffer, [a, b]), { maxLineBytes: limit });
        assert.deepEqual(summary(run.items), expected, `split at ${a}, ${b}`);
        assert.ok(run.maxBuffered <= limit + 1);
      }
    }
  });

  it("LIM-01: delivers messages completed before an over-long line in the same chunk, and the one after", () => {
    const decoder = new LineDecoder({ maxLineBytes: limit });
    const items: DecodedItem[] = [];
    decoder.push(bytes("1\n2\r\n", longLine), items); // over-long tail, no newline yet
    // The error waits for the line's end: the scan of its bytes may still find its id.
    assert.deepEqual(summary(items), [ok(1, 1), ok(2, 2)]);
    assert.equal(decoder.bufferedBytes, 0);
    decoder.push(bytes("more of it\n3\n"), items);
    assert.deepEqual(summary(items), [ok(1, 1), ok(2, 2), err("line-too-long", 3), ok(3, 4)]);
  });

  it("LIM-01: skips an over-long line that goes on for a long time without buffering it", () => {
    const decoder = new LineDecoder({ maxLineBytes: 1024 });
    const items: DecodedItem[] = [];
    decoder.push(bytes('{"first":1}\n'), items);
    const filler = new Uint8Array(4096).fill(0x61);
    let maxBuffered = 0;
    for (let i = 0; i < 4096; i++) {
      // 16 MiB without a newline, in 4 KiB chunks, then with an odd-sized piece.
      decoder.push(i % 2 === 0 ? filler : filler.subarray(0, 1001), items);
      maxBuffered = Math.max(maxBuffered, decoder.bufferedBytes);
      assert.equal(items.length, 1, "no error before the line ends (its id may come last)");
    }
    assert.ok(maxBuffered <= 1024 + 1, `buffered ${maxBuffered}`);
    assert.equal(decoder.bufferedBytes, 0);
    decoder.push(bytes('aaa\n{"next":2}\n'), items);
    assert.deepEqual(summary(items), [ok({ first: 1 }, 1), err("line-too-long", 2), ok({ next: 2 }, 3)]);
    const error = items[1] as FramingError;
    assert.equal(error.facts?.bytes, 2048 * 4096 + 2048 * 1001 + 3, "the size of the whole line is counted");
  });

  it("LIM-01: skips an over-long line fed one byte at a time, buffering at most maxLineBytes + 1", () => {
    const decoder = new LineDecoder({ maxLineBytes: limit });
    const items: DecodedItem[] = [];
    const buffer = bytes("x".repeat(1000), "\n", '"ok"\n');
    for (const chunk of chunksOf(buffer, 1)) {
      decoder.push(chunk, items);
      assert.ok(decoder.bufferedBytes <= limit + 1, `buffered ${decoder.bufferedBytes}`);
    }
    assert.deepEqual(summary(items), [err("line-too-long", 1), ok("ok", 2)]);
  });

  it("LIM-01: reports two over-long lines in a row as two errors", () => {
    const buffer = bytes(longLine, "\n", longLine, "\r\n", "0\n");
    for (const size of [1, 7, buffer.length]) {
      assert.deepEqual(
        summary(decode(chunksOf(buffer, size), { maxLineBytes: limit }).items),
        [err("line-too-long", 1), err("line-too-long", 2), ok(0, 3)],
        `chunks of ${size}`,
      );
    }
  });

  it("LIM-01: counts bytes, not characters", () => {
    // 6 characters, 1 + 4*4 + 1 = 18 bytes: over a 16-byte limit.
    assert.deepEqual(summary(decode([bytes('"😀😀😀😀"\n')], { maxLineBytes: limit }).items), [err("line-too-long", 1)]);
  });
});

describe("LineDecoder: finish", () => {
  it("STD-01: reports a partial line as truncated, on the line it would have had", () => {
    const { items, finalBuffered } = decode([bytes('{"a":1}\n\n{"b":')]);
    assert.deepEqual(summary(items), [ok({ a: 1 }, 1), err("truncated", 3)]);
    assertEveryDetailIsText(items);
    assert.equal(finalBuffered, 0);
  });

  it("STD-01: reports a complete JSON value without its newline as truncated", () => {
    for (const chunks of [[bytes("[1]")], [bytes("["), bytes("1"), bytes("]")]]) {
      assert.deepEqual(summary(decode(chunks).items), [err("truncated", 1)]);
    }
  });

  it("STD-01: reports a partial line spread over many chunks as truncated", () => {
    const buffer = bytes("1\n", '{"long":"' + "€".repeat(100));
    assert.deepEqual(summary(decode(chunksOf(buffer, 5)).items), [ok(1, 1), err("truncated", 2)]);
  });

  it("says the buffered byte count before finish", () => {
    const decoder = new LineDecoder();
    const items: DecodedItem[] = [];
    decoder.push(bytes('1\n{"a"'), items);
    assert.equal(decoder.bufferedBytes, 4);
    decoder.push(bytes(":"), items);
    assert.equal(decoder.bufferedBytes, 5);
    decoder.finish(items);
    assert.equal(decoder.bufferedBytes, 0);
    assert.deepEqual(summary(items), [ok(1, 1), err("truncated", 2)]);
  });

  it("STD-01: gives nothing extra for whitespace-only pending bytes", () => {
    for (const tail of [" ", "  \t ", "\r", " \r", "\t\r "]) {
      assert.deepEqual(decode([bytes("1\n", tail)]).items, [ok(1, 1)], JSON.stringify(tail));
      assert.deepEqual(decode(chunksOf(bytes("1\n", tail), 1)).items, [ok(1, 1)], JSON.stringify(tail));
    }
  });

  it("LIM-01: gives nothing extra while skipping an over-long line", () => {
    const buffer = bytes("1\n", "y".repeat(100));
    for (const size of [1, 10, buffer.length]) {
      const run = decode(chunksOf(buffer, size), { maxLineBytes: 8 });
      assert.deepEqual(summary(run.items), [ok(1, 1), err("line-too-long", 2)], `chunks of ${size}`);
    }
  });

  it("gives nothing when nothing is pending", () => {
    assert.deepEqual(decode([]).items, []);
    assert.deepEqual(decode([new Uint8Array(0)]).items, []);
    assert.deepEqual(decode([bytes("1\n2\r\n")]).items, [ok(1, 1), ok(2, 2)]);
    const decoder = new LineDecoder();
    const items: DecodedItem[] = [];
    decoder.finish(items);
    decoder.finish(items);
    assert.deepEqual(items, []);
  });
});

describe("encodeMessage / encodeMessages", () => {
  const text = new TextDecoder("utf-8", { fatal: true });

  it("STD-01: encodes one value as compact JSON plus one newline", () => {
    const value = { jsonrpc: "2.0", id: 7, result: { tools: [{ name: "a b", inputSchema: { type: "object" } }] } };
    const encoded = encodeMessage(value);
    assert.ok(encoded instanceof Uint8Array);
    assert.equal(text.decode(encoded), '{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"a b","inputSchema":{"type":"object"}}]}}\n');
  });

  it("STD-01: never puts a raw newline inside a message, even with newlines in strings", () => {
    const value = { a: "line1\nline2\r\nline3", b: ["\n", "\r"], "k\ney": "\u2028\u2029" };
    const encoded = encodeMessage(value);
    assert.equal(encoded.indexOf(0x0a), encoded.length - 1, "only the final byte is LF");
    assert.equal(encoded.indexOf(0x0d), -1, "no raw CR");
    assert.deepEqual(JSON.parse(text.decode(encoded)), value);
  });

  it("STD-01: encodes to UTF-8 bytes", () => {
    assert.deepEqual(Array.from(encodeMessage("é€😀")), [0x22, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0x22, 0x0a]);
    // A lone surrogate is escaped by JSON.stringify, so the bytes stay valid UTF-8.
    assert.equal(text.decode(encodeMessage("\ud800")), '"\\ud800"\n');
  });

  it("encodes scalars", () => {
    for (const [value, json] of [
      [null, "null"],
      [true, "true"],
      [0, "0"],
      [-1.5, "-1.5"],
      ["", '""'],
      [[], "[]"],
      [{}, "{}"],
    ] as const) {
      assert.equal(text.decode(encodeMessage(value)), json + "\n");
    }
  });

  it("STD-01: encodes many values into one buffer, one line each", () => {
    const values = [{ a: 1 }, "two\nlines", [3], null, "€"];
    const encoded = encodeMessages(values);
    assert.ok(encoded instanceof Uint8Array);
    assert.equal(text.decode(encoded), '{"a":1}\n"two\\nlines"\n[3]\nnull\n"€"\n');
    const pieces = values.map((value) => Array.from(encodeMessage(value)));
    assert.deepEqual(Array.from(encoded), pieces.flat());
  });

  it("M-01: refuses values with no JSON form instead of writing a non-JSON line", () => {
    for (const value of [undefined, () => 1, Symbol("s"), { toJSON: () => undefined }]) {
      assert.throws(() => encodeMessage(value), TypeError);
      assert.throws(() => encodeMessages([1, value]), TypeError);
    }
  });

  it("encodes an empty list as an empty buffer", () => {
    assert.equal(encodeMessages([]).length, 0);
  });

  it("STD-01: round-trips through the decoder, whole and in any chunking", () => {
    const values: unknown[] = [
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "héllo € 😀\n" } } },
      { jsonrpc: "2.0", id: "abc", result: { content: [{ type: "text", text: "a\r\nb\tc\u0000d" }] } },
      [1, -2.5e-7, 1e21, true, false, null, "", "\ud83d", "\udc00x"],
      "𝄞".repeat(1000),
      { nested: { deeper: { deepest: [[[{}]]] } }, "": "empty key", "😀": "emoji key" },
      0,
    ];
    const encoded = encodeMessages(values);
    const expected = values.map((value, i) => ok(value, i + 1));
    assert.deepEqual(decode([encoded]).items, expected);
    assert.deepEqual(decode(chunksOf(encoded, 1)).items, expected);
    assert.deepEqual(decode(randomChunks(encoded, 99, 50)).items, expected);
    // Each message on its own gives the same.
    const one = new LineDecoder();
    const items: DecodedItem[] = [];
    for (const value of values) one.push(encodeMessage(value), items);
    one.finish(items);
    assert.deepEqual(items, expected);
  });
});
