// NDJSON framing benchmarks: LineDecoder throughput against a TextDecoder + JSON.parse floor on
// pre-split lines (1 KiB tools/call, 100 KiB resources/read results; 64 KiB and line-aligned
// chunks); encodeMessage / encodeMessages against bare JSON.stringify + TextEncoder; linearity
// (1 MiB vs 10 MiB in 1-byte and 64 KiB chunks). Prints figures only, never fails.

import { LineDecoder, encodeMessage, encodeMessages } from "../lib/index.js";
import type { DecodedItem } from "../lib/index.js";
import { collectGarbage, compare, fmt, mbPerSecond, median, print, timeOnce } from "./run.js";

const KiB = 1024;
const MiB = 1024 * KiB;
const CHUNK = 64 * KiB;
const utf8 = new TextEncoder();

// ---------------------------------------------------------------------------------------
// Typical messages

// Mostly ASCII, as tool output and source files mostly are, with a rare accented word and a
// rare quote or backslash (JSON escapes); a newline (escaped as \n) ends about one word in 8.
const WORDS = (
  "the server returned a list of files matching the pattern and their sizes in bytes " +
  "function export const return await import from type interface value result error " +
  "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt " +
  "ut labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco " +
  'café "quoted" path\\to\\file'
).split(" ");
const PIECES = WORDS.flatMap((word) => [word + " ", word + "\n"]);
/** UTF-8 bytes each piece takes inside a JSON string (escapes included). */
const PIECE_BYTES = PIECES.map((piece) => utf8.encode(JSON.stringify(piece)).length - 2);

/** Deterministic text taking about `bytes` bytes inside a JSON string. */
function prose(bytes: number, seed: number): string {
  const parts: string[] = [];
  let length = 0;
  let state = seed >>> 0 || 1;
  while (length < bytes) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const word = (state >>> 8) % WORDS.length;
    const index = 2 * word + ((state >>> 4) % 8 === 0 ? 1 : 0);
    parts.push(PIECES[index]!);
    length += PIECE_BYTES[index]!;
  }
  return parts.join("");
}

/** A JSON-RPC result of `tools/call` whose encoded line is about `lineBytes` long. */
function toolsCallResult(id: number, lineBytes: number): unknown {
  return {
    jsonrpc: "2.0",
    id,
    result: { content: [{ type: "text", text: prose(lineBytes - 110, id) }], isError: false },
  };
}

/** A JSON-RPC result of `resources/read` whose encoded line is about `lineBytes` long. */
function resourcesReadResult(id: number, lineBytes: number): unknown {
  return {
    jsonrpc: "2.0",
    id,
    result: {
      contents: [{ uri: `file:///project/src/module-${id}.ts`, mimeType: "text/plain", text: prose(lineBytes - 150, id) }],
    },
  };
}

interface Stream {
  readonly values: unknown[];
  readonly buffer: Uint8Array;
  /** Each line's bytes without its "\n" (views into `buffer`). */
  readonly lines: Uint8Array[];
  /** `buffer` cut into 64 KiB views. */
  readonly chunks: Uint8Array[];
  /** `buffer` cut at line ends: as many whole lines as fit in 64 KiB, or one longer line. */
  readonly alignedChunks: Uint8Array[];
}

/** Messages made by `make(id)` until the stream holds at least `totalBytes`. */
function makeStream(make: (id: number) => unknown, totalBytes: number): Stream {
  const values: unknown[] = [];
  let size = 0;
  while (size < totalBytes) {
    const value = make(values.length + 1);
    values.push(value);
    size += utf8.encode(JSON.stringify(value)).length + 1;
  }
  return fromBuffer(values, encodeMessages(values));
}

function fromBuffer(values: unknown[], buffer: Uint8Array): Stream {
  const lines: Uint8Array[] = [];
  for (let start = 0; start < buffer.length; ) {
    const newline = buffer.indexOf(0x0a, start);
    lines.push(buffer.subarray(start, newline));
    start = newline + 1;
  }
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < buffer.length; i += CHUNK) chunks.push(buffer.subarray(i, i + CHUNK));
  const alignedChunks: Uint8Array[] = [];
  let from = 0;
  let to = 0;
  for (const line of lines) {
    const end = line.byteOffset - buffer.byteOffset + line.length + 1;
    if (end - from > CHUNK && to > from) {
      alignedChunks.push(buffer.subarray(from, to));
      from = to;
    }
    to = end;
  }
  if (to > from) alignedChunks.push(buffer.subarray(from, to));
  return { values, buffer, lines, chunks, alignedChunks };
}

/** The same stream `times` times over, as one buffer. */
function repeated(stream: Stream, times: number): Stream {
  const buffer = new Uint8Array(stream.buffer.length * times);
  for (let i = 0; i < times; i++) buffer.set(stream.buffer, i * stream.buffer.length);
  const values: unknown[] = [];
  for (let i = 0; i < times; i++) values.push(...stream.values);
  return fromBuffer(values, buffer);
}

// ---------------------------------------------------------------------------------------
// Contenders

/** Ours: the stream through a LineDecoder in the given chunks. */
function decodeChunks(chunks: readonly Uint8Array[]): DecodedItem[] {
  const decoder = new LineDecoder();
  const items: DecodedItem[] = [];
  for (let i = 0; i < chunks.length; i++) decoder.push(chunks[i]!, items);
  decoder.finish(items);
  return items;
}

/** The floor: lines already split, each decoded and parsed, nothing else. */
function floorDecode(lines: readonly Uint8Array[], text: TextDecoder): unknown[] {
  const values: unknown[] = [];
  for (let i = 0; i < lines.length; i++) values.push(JSON.parse(text.decode(lines[i]!)));
  return values;
}

/**
 * Ours with items consumed as they come (as a transport would hand them on), so heap growth
 * from retained results does not blur the scaling; returns the number of items.
 */
function decodeConsuming(chunks: readonly Uint8Array[]): number {
  const decoder = new LineDecoder();
  const items: DecodedItem[] = [];
  let count = 0;
  for (let i = 0; i < chunks.length; i++) {
    decoder.push(chunks[i]!, items);
    count += items.length;
    items.length = 0;
  }
  decoder.finish(items);
  return count + items.length;
}

/** Ours fed one byte at a time; the 1-byte chunk is one reused buffer, so only decoder work is timed. */
function decodeByteWise(buffer: Uint8Array): number {
  const decoder = new LineDecoder();
  const items: DecodedItem[] = [];
  const one = new Uint8Array(1);
  let count = 0;
  for (let i = 0; i < buffer.length; i++) {
    one[0] = buffer[i]!;
    decoder.push(one, items);
    if (items.length > 0) {
      count += items.length;
      items.length = 0;
    }
  }
  decoder.finish(items);
  return count + items.length;
}

function checkDecoded(stream: Stream, label: string): void {
  for (const chunks of [stream.chunks, stream.alignedChunks]) checkItems(stream, decodeChunks(chunks), label);
}

function checkItems(stream: Stream, items: readonly DecodedItem[], label: string): void {
  const bad = items.filter((item) => !item.ok).length;
  if (items.length !== stream.values.length || bad !== 0) {
    print(`  !! ${label}: decoded ${items.length} items (${bad} errors), expected ${stream.values.length} values`);
  }
}

// ---------------------------------------------------------------------------------------

function benchDecoder(label: string, stream: Stream): void {
  checkDecoded(stream, label);
  const lenient = new TextDecoder();
  const fatal = new TextDecoder("utf-8", { fatal: true });
  const times = compare(
    [
      { name: "ours", fn: () => decodeChunks(stream.chunks) },
      { name: "ours-aligned", fn: () => decodeChunks(stream.alignedChunks) },
      { name: "floor", fn: () => floorDecode(stream.lines, lenient) },
      { name: "floor-fatal", fn: () => floorDecode(stream.lines, fatal) },
    ],
    { warmup: 3, repetitions: 15 },
  );
  const bytes = stream.buffer.length;
  const ours = mbPerSecond(bytes, times.get("ours")!);
  const floor = mbPerSecond(bytes, times.get("floor")!);
  const floorFatal = mbPerSecond(bytes, times.get("floor-fatal")!);
  const aligned = mbPerSecond(bytes, times.get("ours-aligned")!);
  print(
    `decode ${label} (${(bytes / MiB).toFixed(1)} MiB, ${stream.lines.length} lines, 64 KiB chunks): ` +
      `ours ${fmt(ours)} MB/s  floor ${fmt(floor)} MB/s  ratio ${(ours / floor).toFixed(2)} (target >= 0.9)` +
      `  [floor with fatal TextDecoder ${fmt(floorFatal)} MB/s, ratio ${(ours / floorFatal).toFixed(2)}]`,
  );
  print(
    `  same, chunks cut at line ends (${stream.alignedChunks.length} chunks <= 64 KiB or one line): ` +
      `ours ${fmt(aligned)} MB/s  ratio ${(aligned / floor).toFixed(2)}`,
  );
}

function benchEncoder(label: string, values: readonly unknown[], batchSize: number): void {
  const bytes = encodeMessages(values).length;
  const batches: unknown[][] = [];
  for (let i = 0; i < values.length; i += batchSize) batches.push(values.slice(i, i + batchSize));
  let sink = 0;
  const times = compare(
    [
      {
        name: "encodeMessage",
        fn: () => {
          for (let i = 0; i < values.length; i++) sink += encodeMessage(values[i]).length;
        },
      },
      {
        name: "bare",
        fn: () => {
          for (let i = 0; i < values.length; i++) sink += utf8.encode(JSON.stringify(values[i]) + "\n").length;
        },
      },
      {
        name: "encodeMessages",
        fn: () => {
          for (let i = 0; i < batches.length; i++) sink += encodeMessages(batches[i]!).length;
        },
      },
      {
        name: "bare-batch",
        fn: () => {
          for (let i = 0; i < batches.length; i++) {
            sink += utf8.encode(batches[i]!.map((value) => JSON.stringify(value)).join("\n") + "\n").length;
          }
        },
      },
    ],
    { warmup: 3, repetitions: 11 },
  );
  const rate = (name: string) => mbPerSecond(bytes, times.get(name)!);
  print(
    `encode ${label} (${(bytes / MiB).toFixed(1)} MiB, ${values.length} values): ` +
      `encodeMessage ${fmt(rate("encodeMessage"))} MB/s  bare ${fmt(rate("bare"))} MB/s  ` +
      `ratio ${(rate("encodeMessage") / rate("bare")).toFixed(2)} (target >= 0.9)`,
  );
  print(
    `encode ${label} in batches of ${batchSize}: ` +
      `encodeMessages ${fmt(rate("encodeMessages"))} MB/s  bare ${fmt(rate("bare-batch"))} MB/s  ` +
      `ratio ${(rate("encodeMessages") / rate("bare-batch")).toFixed(2)} (target >= 0.9)`,
  );
  if (sink === 0) print("  (nothing encoded?)");
}

function benchLinearity(oneMiB: Stream): void {
  const tenMiB = repeated(oneMiB, 10);
  const cases: Array<{ label: string; decodeWith: (stream: Stream) => number; reps: [number, number] }> = [
    { label: "64 KiB chunks", decodeWith: (stream) => decodeConsuming(stream.chunks), reps: [21, 9] },
    { label: "1-byte chunks", decodeWith: (stream) => decodeByteWise(stream.buffer), reps: [5, 3] },
  ];
  for (const { label, decodeWith, reps } of cases) {
    for (let i = 0; i < 3; i++) decodeWith(oneMiB); // warmup
    const measure = (stream: Stream, repetitions: number) => {
      const samples: number[] = [];
      for (let i = 0; i < repetitions; i++) {
        collectGarbage();
        let count = 0;
        samples.push(timeOnce(() => (count = decodeWith(stream))));
        if (count !== stream.values.length) print(`  !! ${label}: ${count} items, expected ${stream.values.length}`);
      }
      return median(samples);
    };
    const small = measure(oneMiB, reps[0]);
    const large = measure(tenMiB, reps[1]);
    const nsPerByte = (ms: number, bytes: number) => (ms * 1e6) / bytes;
    print(
      `linearity, ${label}: 1 MiB ${fmt(small, 1, 8)} ms (${nsPerByte(small, oneMiB.buffer.length).toFixed(1)} ns/B)  ` +
        `10 MiB ${fmt(large, 1, 8)} ms (${nsPerByte(large, tenMiB.buffer.length).toFixed(1)} ns/B)  ` +
        `time(10 MiB)/time(1 MiB) ${(large / small).toFixed(2)} (linear ≈ 10)`,
    );
  }
}

export async function run(): Promise<void> {
  const small = makeStream((id) => toolsCallResult(id, KiB), 16 * MiB);
  const large = makeStream((id) => resourcesReadResult(id, 100 * KiB), 16 * MiB);
  const meanLine = (stream: Stream) => (stream.buffer.length / stream.lines.length / KiB).toFixed(1);
  print(`messages: tools/call results ${meanLine(small)} KiB/line, resources/read results ${meanLine(large)} KiB/line`);

  benchDecoder("1 KiB tools/call results", small);
  benchDecoder("100 KiB resources/read results", large);

  benchEncoder("1 KiB tools/call results", small.values.slice(0, 8192), 64);
  benchEncoder("100 KiB resources/read results", large.values.slice(0, 80), 8);

  benchLinearity(makeStream((id) => toolsCallResult(id, KiB), MiB));
}
