// UTF-8 for the core and the peer layer without requiring any global beyond ECMAScript: the
// host's TextEncoder/TextDecoder when it has them (every browser, Node, Deno, Bun, Workers:
// native and fast), otherwise a small built-in codec (QuickJS, Hermes, embedded engines).
//
// Invariants:
// - loading this module reads no global and creates nothing: the host's codec is looked up on
//   globalThis at the first use (so a host may install one after loading, before any bytes);
// - the built-in decoder gives exactly what the WHATWG Encoding Standard's UTF-8 decoder gives:
//   fatal, a TypeError on the first invalid sequence; lenient, one U+FFFD per maximal subpart of
//   an invalid sequence (overlong forms, surrogates, code points past U+10FFFF, truncation); a
//   leading byte order mark removed unless ignoreBOM (spec-tests/embed/utf8.test.ts checks it
//   against the platform's over random and adversarial bytes);
// - a stream decoder (newUtf8StreamDecoder) decodes as TextDecoder's `decode(bytes, { stream:
//   true })` does: a sequence cut at the end of one chunk is held for the next, the BOM is looked
//   for in the stream's first code point only, and a call without `stream` flushes and starts
//   afresh; the core decodes whole inputs only, so a bundle of the core leaves it out;
// - the built-in encoder writes a lone surrogate as U+FFFD, and encodeInto writes whole code
//   points only, reporting UTF-16 units read and bytes written, as TextEncoder does;
// - constants are made with asciiBytes, which needs no codec at all.

/** The decoding the core uses: TextDecoder's `decode` of one whole input. */
export interface Utf8Decoder {
  decode(bytes: Uint8Array): string;
}

/** TextDecoder's `decode` of a stream's next chunk (`stream: true`), or of its end (no arguments). */
export interface Utf8StreamDecoder {
  decode(bytes?: Uint8Array, options?: { stream?: boolean }): string;
}

/** What encodeInto reports, as TextEncoder's does. */
export interface Utf8EncodeIntoResult {
  read: number;
  written: number;
}

/** The encoding the core uses: TextEncoder's `encode` and `encodeInto`. */
export interface Utf8Encoder {
  encode(text: string): Uint8Array;
  encodeInto(text: string, into: Uint8Array): Utf8EncodeIntoResult;
}

/** TextDecoder's constructor as the host may provide it (declared by shape: the core compiles against ECMAScript only). */
type DecoderConstructor = new (label: string, options: { fatal: boolean; ignoreBOM: boolean }) => Utf8StreamDecoder;
type EncoderConstructor = new () => Utf8Encoder;

interface HostCodec {
  readonly TextDecoder?: unknown;
  readonly TextEncoder?: unknown;
}

const REPLACEMENT = 0xfffd;
/** UTF-16 units gathered before they become text: small enough for String.fromCharCode.apply on any engine. */
const CHUNK = 4096;

/** The bytes of an ASCII text, made without a codec (for constants loaded with the module). */
export function asciiBytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) throw new RangeError(`asciiBytes takes ASCII text only; got U+${c.toString(16)} at ${i}`);
    bytes[i] = c;
  }
  return bytes;
}

/** A decoder with TextDecoder's options: the host's when it has one, else the built-in one. */
export function newUtf8Decoder(fatal: boolean, ignoreBOM: boolean): Utf8Decoder {
  const Host = (globalThis as HostCodec).TextDecoder;
  if (typeof Host === "function") return new (Host as DecoderConstructor)("utf-8", { fatal, ignoreBOM });
  return new BuiltinUtf8Decoder(fatal, ignoreBOM);
}

/** A stream decoder with TextDecoder's options: the host's when it has one, else the built-in one. */
export function newUtf8StreamDecoder(fatal: boolean, ignoreBOM: boolean): Utf8StreamDecoder {
  const Host = (globalThis as HostCodec).TextDecoder;
  if (typeof Host === "function") return new (Host as DecoderConstructor)("utf-8", { fatal, ignoreBOM });
  return new BuiltinUtf8StreamDecoder(fatal, ignoreBOM);
}

let sharedEncoder: Utf8Encoder | undefined;

/** The encoder shared by the core: the host's TextEncoder when it has one, else the built-in one. */
export function utf8Encoder(): Utf8Encoder {
  if (sharedEncoder !== undefined) return sharedEncoder;
  const Host = (globalThis as HostCodec).TextEncoder;
  sharedEncoder = typeof Host === "function" ? new (Host as EncoderConstructor)() : new BuiltinUtf8Encoder();
  return sharedEncoder;
}

/** `text` as UTF-8 (lone surrogates as U+FFFD). */
export function encodeUtf8(text: string): Uint8Array {
  return utf8Encoder().encode(text);
}

let lenientShared: Utf8Decoder | undefined;
let fatalShared: Utf8Decoder | undefined;

/** `bytes` as text, as `new TextDecoder()` (lenient) or `new TextDecoder("utf-8", { fatal: true })` decodes it: a leading BOM dropped. */
export function decodeUtf8(bytes: Uint8Array, fatal: boolean): string {
  if (fatal) return (fatalShared ??= newUtf8Decoder(true, false)).decode(bytes);
  return (lenientShared ??= newUtf8Decoder(false, false)).decode(bytes);
}

/** The bytes of `chunks` (`size` of them in all) decoded as one input, as decodeUtf8 decodes it: no decoder is kept across chunks. */
export function decodeUtf8Chunks(chunks: readonly Uint8Array[], size: number, fatal: boolean): string {
  if (chunks.length === 1) return decodeUtf8(chunks[0] as Uint8Array, fatal);
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return decodeUtf8(all, fatal);
}

/** UTF-16 units waiting to become text; shared, since decode never re-enters itself. */
let units: Uint16Array | undefined;

function flush(out: string, buffer: Uint16Array, length: number): string {
  return out + String.fromCharCode.apply(null, buffer.subarray(0, length) as unknown as number[]);
}

/** The WHATWG UTF-8 decoder of whole inputs, for hosts without TextDecoder. */
export class BuiltinUtf8Decoder implements Utf8Decoder {
  readonly fatal: boolean;
  readonly ignoreBOM: boolean;

  constructor(fatal: boolean, ignoreBOM: boolean) {
    this.fatal = fatal;
    this.ignoreBOM = ignoreBOM;
  }

  decode(bytes: Uint8Array): string {
    const bom = !this.ignoreBOM && bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
    return this.decodeRange(bytes, bom ? 3 : 0, bytes.length);
  }

  /** bytes[start, n) as text; a fatal decoder throws at the first invalid sequence. */
  protected decodeRange(bytes: Uint8Array, start: number, n: number): string {
    let i = start;
    const buffer = (units ??= new Uint16Array(CHUNK));
    let out = "";
    let k = 0;
    while (i < n) {
      if (k > CHUNK - 2) {
        out = flush(out, buffer, k);
        k = 0;
      }
      const b = bytes[i] as number;
      if (b < 0x80) {
        buffer[k++] = b;
        i++;
        continue;
      }
      const needed = continuationCount(b);
      if (needed === 0) {
        // A continuation byte where a sequence should start, or a byte no sequence has (C0, C1, F5..FF).
        if (this.fatal) throw invalid(i);
        buffer[k++] = REPLACEMENT;
        i++;
        continue;
      }
      let cp = b & (0x7f >> (needed + 1));
      let lower = secondLower(b);
      let upper = secondUpper(b);
      let j = i + 1;
      const end = i + 1 + needed;
      for (; j < end && j < n; j++) {
        const c = bytes[j] as number;
        if (c < lower || c > upper) break;
        lower = 0x80;
        upper = 0xbf;
        cp = (cp << 6) | (c & 0x3f);
      }
      if (j < end) {
        // The maximal subpart bytes[i, j) is one U+FFFD; bytes[j] (if any) starts afresh.
        if (this.fatal) throw invalid(i);
        buffer[k++] = REPLACEMENT;
        i = j;
        continue;
      }
      if (cp > 0xffff) {
        cp -= 0x10000;
        buffer[k++] = 0xd800 | (cp >> 10);
        buffer[k++] = 0xdc00 | (cp & 0x3ff);
      } else buffer[k++] = cp;
      i = end;
    }
    return k > 0 ? flush(out, buffer, k) : out;
  }
}

const NOTHING = new Uint8Array(0);

/** The WHATWG UTF-8 decoder of a stream, for hosts without TextDecoder. */
export class BuiltinUtf8StreamDecoder extends BuiltinUtf8Decoder implements Utf8StreamDecoder {
  /** The start of a sequence the last streamed chunk ended inside. */
  private held: Uint8Array | undefined;
  /** Whether the stream's first code point has been decoded (a BOM is looked for there only). */
  private begun = false;

  decode(bytes: Uint8Array = NOTHING, options?: { stream?: boolean }): string {
    const stream = options?.stream === true;
    let input = bytes;
    if (this.held !== undefined) {
      input = new Uint8Array(this.held.length + bytes.length);
      input.set(this.held);
      input.set(bytes, this.held.length);
      this.held = undefined;
    }
    const end = stream ? incompleteTail(input) : input.length;
    if (end < input.length) this.held = input.slice(end);
    let text: string;
    try {
      text = this.decodeRange(input, 0, end);
    } catch (error) {
      this.held = undefined;
      this.begun = false;
      throw error;
    }
    if (!this.begun && text !== "") {
      this.begun = true;
      if (!this.ignoreBOM && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (!stream) this.begun = false;
    return text;
  }
}

/** How many continuation bytes follow lead byte `b`; 0 when no sequence starts with it. */
function continuationCount(b: number): number {
  if (b >= 0xc2 && b <= 0xdf) return 1;
  if (b >= 0xe0 && b <= 0xef) return 2;
  return b >= 0xf0 && b <= 0xf4 ? 3 : 0;
}

/** The least byte that may follow lead `b`: higher after E0 and F0, which would otherwise make overlong forms. */
function secondLower(b: number): number {
  return b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80;
}

/** The greatest byte that may follow lead `b`: lower after ED (no surrogates) and F4 (nothing past U+10FFFF). */
function secondUpper(b: number): number {
  return b === 0xed ? 0x9f : b === 0xf4 ? 0x8f : 0xbf;
}

/**
 * Where a sequence that is valid so far but cut by the end of `bytes` starts (bytes.length when
 * none is): a streaming decode holds those bytes for the next chunk. An invalid tail is not
 * held: it decodes to the same U+FFFD (or error) whatever follows.
 */
function incompleteTail(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let p = n > 3 ? n - 3 : 0; p < n; p++) {
    const b = bytes[p] as number;
    const needed = continuationCount(b);
    if (needed === 0 || p + needed < n) continue;
    let lower = secondLower(b);
    let upper = secondUpper(b);
    let j = p + 1;
    for (; j < n; j++) {
      const c = bytes[j] as number;
      if (c < lower || c > upper) break;
      lower = 0x80;
      upper = 0xbf;
    }
    if (j === n) return p;
  }
  return n;
}

function invalid(at: number): TypeError {
  return new TypeError(`The encoded data was not valid for encoding utf-8 (an invalid sequence at byte ${at})`);
}

/** The WHATWG UTF-8 encoder, for hosts without TextEncoder. */
export class BuiltinUtf8Encoder implements Utf8Encoder {
  encode(text: string): Uint8Array {
    let length = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) length += 1;
      else if (c < 0x800) length += 2;
      else if (c >= 0xd800 && c <= 0xdbff && isLow(text.charCodeAt(i + 1))) {
        length += 4;
        i++;
      } else length += 3;
    }
    const bytes = new Uint8Array(length);
    this.encodeInto(text, bytes);
    return bytes;
  }

  encodeInto(text: string, into: Uint8Array): Utf8EncodeIntoResult {
    const room = into.length;
    let read = 0;
    let at = 0;
    while (read < text.length) {
      let c = text.charCodeAt(read);
      let width = 1;
      if (c >= 0xd800 && c <= 0xdfff) {
        const next = text.charCodeAt(read + 1);
        if (c <= 0xdbff && isLow(next)) {
          c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
          width = 2;
        } else c = REPLACEMENT; // a lone surrogate
      }
      if (c < 0x80) {
        if (at + 1 > room) break;
        into[at++] = c;
      } else if (c < 0x800) {
        if (at + 2 > room) break;
        into[at++] = 0xc0 | (c >> 6);
        into[at++] = 0x80 | (c & 0x3f);
      } else if (c < 0x10000) {
        if (at + 3 > room) break;
        into[at++] = 0xe0 | (c >> 12);
        into[at++] = 0x80 | ((c >> 6) & 0x3f);
        into[at++] = 0x80 | (c & 0x3f);
      } else {
        if (at + 4 > room) break;
        into[at++] = 0xf0 | (c >> 18);
        into[at++] = 0x80 | ((c >> 12) & 0x3f);
        into[at++] = 0x80 | ((c >> 6) & 0x3f);
        into[at++] = 0x80 | (c & 0x3f);
      }
      read += width;
    }
    return { read, written: at };
  }
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
