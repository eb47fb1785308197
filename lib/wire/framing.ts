// Newline-delimited JSON framing (stdio, RULES.md STD-01, STD-02): bytes in, JSON values out, and
// the reverse.
//
//   chunk ──► scan new bytes for 0x0A ──► complete line ──► strip \r ──► UTF-8 (fatal) ──► JSON.parse ──► item
//                │ no newline yet                                 │ invalid                   │ invalid
//                ▼                                                ▼                           ▼
//         pending buffer (≤ maxLineBytes)                    error item                  error item
//                │ would exceed maxLineBytes
//                ▼
//         skip to the next newline without buffering, scanning the bytes for the line's
//         top-level id (lib/wire/line-scan.ts); then one "line-too-long" error item with it
//
// Invariants:
// - any split of the same bytes gives the same items: bytes are decoded only as whole
//   lines, so a UTF-8 sequence split across chunks is never seen half;
// - each byte is scanned once; a line wholly inside one chunk is decoded in place, without
//   a copy; a line spread over chunks is copied once into a pending buffer whose capacity
//   never exceeds maxLineBytes, so bytes held stay under the limit plus the current chunk;
// - a bad line yields one error item and decoding resumes at the next line;
// - one UTF-8 byte order mark at the very start of the stream is skipped (others SDKs accept
//   it, and editors on some systems write it); anywhere else it is kept and fails the line;
// - a buffer grown for a line spread over chunks is released once that line is done when it
//   is larger than RETAINED_BYTES, so one big line does not pin memory for the stream's life;
// - the UTF-8 decoders are made at the first bytes (lib/wire/utf8.ts: the host's TextDecoder,
//   else the built-in one), so an engine driven by values alone never touches a codec.

import { LineScanner, type LineFacts } from "./line-scan.js";
import { encodeUtf8, newUtf8Decoder, type Utf8Decoder } from "./utf8.js";

export const DEFAULT_MAX_LINE_BYTES: number = 8 * 1024 * 1024;
/** The client's default: its input carries results, and resources/read of a large blob is common. */
export const DEFAULT_CLIENT_MAX_LINE_BYTES: number = 32 * 1024 * 1024;
/** Largest pending buffer kept between lines. */
const RETAINED_BYTES = 64 * 1024;
const BOM = [0xef, 0xbb, 0xbf] as const;
const EMPTY = new Uint8Array(0);

export type FramingErrorReason = "invalid-utf8" | "invalid-json" | "line-too-long" | "truncated";

export interface DecodedValue {
  readonly ok: true;
  readonly value: unknown;
  /** 1-based line number in the stream (blank lines count). */
  readonly line: number;
}

export interface FramingError {
  readonly ok: false;
  readonly reason: FramingErrorReason;
  readonly line: number;
  readonly detail: string;
  /** For "line-too-long": the line's size and, when it could be read, its top-level id and whether it was a request. */
  readonly facts?: LineFacts;
}

export type DecodedItem = DecodedValue | FramingError;

export interface LineDecoderOptions {
  /** Longest accepted line in bytes, excluding the line terminator. Default 8 MiB. */
  maxLineBytes?: number;
}

const NEWLINE = 0x0a;
const CR = 0x0d;

/** True when a line holds only JSON whitespace; such lines are skipped, as blank ones are. */
function isBlank(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const b = bytes[i];
    if (b !== 0x20 && b !== 0x09 && b !== CR) return false;
  }
  return true;
}

/** The same test as isBlank, on text (a line passed whole may still end in "\r\n"). */
function isBlankText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== CR && c !== NEWLINE) return false;
  }
  return true;
}

const REPLACEMENT_CHARACTER = "\uFFFD";

/** Incremental decoder: push chunks, then read the items appended to the caller's array. */
export class LineDecoder {
  readonly maxLineBytes: number;
  // ignoreBOM: a BOM is kept (and then fails JSON.parse) wherever it appears, so decoding a
  // whole chunk and decoding line by line can never disagree.
  private utf8: Utf8Decoder | undefined;
  /**
   * The same decoding, replacing what is not UTF-8 with U+FFFD instead of throwing: about half
   * the cost of the fatal one on a chunk read with cold caches (measured on Node 20). A text
   * without U+FFFD proves its bytes valid; one with it (invalid bytes, or a U+FFFD the peer
   * sent) is decoded again by the fatal decoder, which alone decides.
   */
  private lenient: Utf8Decoder | undefined;
  private pending: Uint8Array = EMPTY;
  private pendingLength = 0;
  /** Set while the rest of an over-long line is skipped; it scans the bytes for the line's id. */
  private skipping: LineScanner | undefined;
  private lineNumber = 0;
  /** Bytes of a leading byte order mark matched so far; -1 once the start of the stream is past. */
  private bomMatched = 0;

  constructor(options: LineDecoderOptions = {}) {
    const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    if (!Number.isInteger(max) || max < 1) {
      throw new RangeError(`maxLineBytes must be a positive integer; got ${String(max)}`);
    }
    this.maxLineBytes = max;
  }

  /** Bytes of an incomplete line currently buffered. */
  get bufferedBytes(): number {
    return this.pendingLength;
  }

  /** Capacity of the buffer kept for lines spread over chunks. */
  get retainedBytes(): number {
    return this.pending.length;
  }

  /** Feeds one chunk; every item it completes is appended to `into`. */
  push(chunk: Uint8Array, into: DecodedItem[]): void {
    let start = 0;
    if (this.bomMatched >= 0) {
      start = this.skipBom(chunk);
      if (start === chunk.length) return;
      if (start > 0) chunk = chunk.subarray(start);
      start = 0;
    }
    if (this.pendingLength > 0 || this.skipping !== undefined) {
      // Finish the line already begun (or skipped) byte-wise; the rest may take the fast path.
      const first = chunk.indexOf(NEWLINE);
      if (first === -1) {
        this.hold(chunk, 0, chunk.length, into);
        return;
      }
      this.endLine(chunk, 0, first, into);
      start = first + 1;
    }
    // Fast path: the run of complete lines is decoded in one call when it cannot hold a line
    // over the limit. Invalid UTF-8 falls back to line-by-line decoding of that run, so an
    // error stays confined to its own line; the partial tail is held as usual.
    // A chunk usually ends a line: its last byte answers without a scan.
    const last = chunk[chunk.length - 1] === NEWLINE ? chunk.length - 1 : chunk.lastIndexOf(NEWLINE);
    if (last >= start && last - start <= this.maxLineBytes) {
      let text: string | undefined;
      try {
        // A chunk of whole lines (the usual case) is decoded without making a view of it.
        const run = start === 0 && last + 1 === chunk.length ? chunk : chunk.subarray(start, last + 1);
        text = (this.lenient ??= newUtf8Decoder(false, true)).decode(run);
        if (text.indexOf(REPLACEMENT_CHARACTER) !== -1) text = this.fatal().decode(run);
      } catch {
        text = undefined;
      }
      if (text !== undefined) {
        this.emitText(text, into);
        start = last + 1;
      }
    }
    if (start >= chunk.length) return;
    // lastIndexOf already proved there is no newline after `last`: hold the tail without rescanning it.
    if (last < start) this.hold(chunk, start, chunk.length, into);
    else this.pushBytes(chunk, start, into);
  }

  /** How many bytes at the start of `chunk` belong to a leading BOM; a partial match that fails is given back as line bytes. */
  private skipBom(chunk: Uint8Array): number {
    let i = 0;
    while (i < chunk.length && this.bomMatched < BOM.length && chunk[i] === BOM[this.bomMatched]) {
      this.bomMatched++;
      i++;
    }
    if (this.bomMatched === BOM.length) {
      this.bomMatched = -1;
      return i;
    }
    if (i === chunk.length) return i;
    // Not a BOM after all: the bytes matched so far are the start of the first line.
    const given = this.bomMatched;
    this.bomMatched = -1;
    if (given > 0) this.append(Uint8Array.from(BOM.slice(0, given)), 0, given);
    return i;
  }

  private emitText(text: string, into: DecodedItem[]): void {
    let start = 0;
    while (start < text.length) {
      const newline = text.indexOf("\n", start);
      this.lineNumber++;
      let end = newline;
      if (end > start && text.charCodeAt(end - 1) === CR) end--;
      if (end > start) {
        if (start === 0 && newline === text.length - 1) this.parseWhole(text, end, into);
        else this.parseLine(text.slice(start, end), into);
      }
      start = newline + 1;
    }
  }

  /**
   * A text that is one line and its terminator, parsed without cutting the terminator off
   * (JSON.parse skips it as whitespace, so the value is the same). A line that fails is parsed
   * again cut, so its error detail is the one of the line alone.
   */
  private parseWhole(text: string, end: number, into: DecodedItem[]): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.parseLine(text.slice(0, end), into);
      return;
    }
    into.push({ ok: true, value, line: this.lineNumber });
  }

  private parseLine(text: string, into: DecodedItem[]): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      // Whitespace-only lines are rare, so they are recognised only after a failed parse.
      if (isBlankText(text)) return;
      const detail = error instanceof Error ? error.message : "unparsable";
      into.push({ ok: false, reason: "invalid-json", line: this.lineNumber, detail: `line is not JSON: ${detail}` });
      return;
    }
    into.push({ ok: true, value, line: this.lineNumber });
  }

  /** Line by line from `start`: each byte scanned once; the unterminated tail is held. */
  private pushBytes(chunk: Uint8Array, start: number, into: DecodedItem[]): void {
    const length = chunk.length;
    while (start < length) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        this.hold(chunk, start, length, into);
        return;
      }
      this.endLine(chunk, start, newline, into);
      start = newline + 1;
    }
  }

  /** The line that ends at `newline` (its bytes from `start`, after anything pending). */
  private endLine(chunk: Uint8Array, start: number, newline: number, into: DecodedItem[]): void {
    this.lineNumber++;
    if (this.skipping !== undefined) {
      this.skipping.feed(chunk, start, newline);
      into.push(this.tooLong(this.skipping.finish()));
      this.skipping = undefined;
    } else if (this.pendingLength === 0) {
      this.emitLine(chunk, start, newline, into);
    } else if (this.pendingLength + (newline - start) > this.maxLineBytes + 1) {
      // +1: a trailing \r belongs to the terminator, not to the line's length.
      const scanner = new LineScanner();
      scanner.feed(this.pending, 0, this.pendingLength);
      scanner.feed(chunk, start, newline);
      this.release();
      into.push(this.tooLong(scanner.finish()));
    } else {
      this.append(chunk, start, newline);
      const line = this.pending;
      const end = this.pendingLength;
      this.pendingLength = 0;
      if (line.length > RETAINED_BYTES) this.pending = EMPTY;
      this.emitLine(line, 0, end, into);
    }
  }

  private release(): void {
    this.pendingLength = 0;
    this.pending = EMPTY;
  }

  /** Ends the stream: a partial line left over is reported, never dropped silently. */
  finish(into: DecodedItem[]): void {
    if (this.skipping !== undefined) {
      into.push({ ...this.tooLong(this.skipping.finish()), line: this.lineNumber + 1 });
      this.skipping = undefined;
      return;
    }
    if (this.pendingLength === 0) return;
    const bytes = this.pendingLength;
    const blank = isBlank(this.pending, 0, bytes);
    this.release();
    if (blank) return;
    into.push({
      ok: false,
      reason: "truncated",
      line: this.lineNumber + 1,
      detail: `input ended inside a line (${bytes} bytes without a newline)`,
    });
  }

  private tooLong(facts: LineFacts): FramingError {
    return {
      ok: false,
      reason: "line-too-long",
      line: this.lineNumber,
      detail: `line of ${facts.bytes} bytes, longer than maxLineBytes (${this.maxLineBytes})`,
      facts,
    };
  }

  private hold(chunk: Uint8Array, start: number, end: number, _into: DecodedItem[]): void {
    if (this.skipping !== undefined) {
      this.skipping.feed(chunk, start, end);
      return;
    }
    if (this.pendingLength + (end - start) > this.maxLineBytes + 1) {
      const scanner = new LineScanner();
      scanner.feed(this.pending, 0, this.pendingLength);
      scanner.feed(chunk, start, end);
      this.release();
      this.skipping = scanner;
      return;
    }
    this.append(chunk, start, end);
  }

  private append(chunk: Uint8Array, start: number, end: number): void {
    const needed = this.pendingLength + (end - start);
    if (needed > this.pending.length) {
      const capacity = Math.min(Math.max(needed, this.pending.length * 2, 1024), this.maxLineBytes + 1);
      const grown = new Uint8Array(capacity);
      grown.set(this.pending.subarray(0, this.pendingLength));
      this.pending = grown;
    }
    this.pending.set(chunk.subarray(start, end), this.pendingLength);
    this.pendingLength = needed;
  }

  private fatal(): Utf8Decoder {
    return (this.utf8 ??= newUtf8Decoder(true, true));
  }

  private emitLine(bytes: Uint8Array, start: number, end: number, into: DecodedItem[]): void {
    if (end > start && bytes[end - 1] === CR) end--;
    if (end - start > this.maxLineBytes) {
      const scanner = new LineScanner();
      scanner.feed(bytes, start, end);
      into.push(this.tooLong(scanner.finish()));
      return;
    }
    if (end === start) return;
    let text: string;
    try {
      text = this.fatal().decode(bytes.subarray(start, end));
    } catch {
      into.push({ ok: false, reason: "invalid-utf8", line: this.lineNumber, detail: "line is not valid UTF-8" });
      return;
    }
    this.parseLine(text, into);
  }
}

/** Compact JSON of a value that has a JSON form; undefined, functions and symbols have none. */
function json(value: unknown): string {
  const text: unknown = JSON.stringify(value);
  if (typeof text !== "string") throw new TypeError(`cannot encode ${typeof value} as a JSON message`);
  return text;
}

/** One value as compact UTF-8 JSON plus "\n". Throws TypeError for a value with no JSON form. */
export function encodeMessage(value: unknown): Uint8Array {
  return encodeUtf8(json(value) + "\n");
}

/** Many values, each as compact JSON plus "\n", in one buffer. Throws TypeError for a value with no JSON form. */
export function encodeMessages(values: readonly unknown[]): Uint8Array {
  let text = "";
  for (let i = 0; i < values.length; i++) text += json(values[i]) + "\n";
  return encodeUtf8(text);
}
