// Newline-delimited JSON out, one buffer per drain: the messages of a drain are encoded with
// TextEncoder.encodeInto straight into a slab the encoder keeps, and the drain's bytes are
// handed out as one view of it. Instead of a fresh buffer from TextEncoder.encode (an
// ArrayBuffer and its backing store per drain), a drain costs one view, and a new slab now and
// then. A lone message is encoded as stringified, its newline written as a byte; a batch is
// concatenated and encoded in one call (measured: one encodeInto per message of a batch of
// 1000 costs more than the concatenation it saves).
// A message can also be assembled piece by piece (lib/wire/outbound-bytes.ts): bytes encoded once
// (raw), an id's digits (integer), a short text copied while ASCII (text), and undone back to
// a mark (rewind) when the message turns out to need the general path.
//
// The contract with the caller (Engine.takeBytes): bytes handed out are never written again.
// The next drain starts after them, in the same slab, or in a new slab once this one is full;
// the caller may keep a view as long as it likes (a stream write in flight holds it until the
// kernel has the bytes) and what it holds does not change. Views of several drains may share
// one ArrayBuffer: a caller reads `bytes` itself, never `bytes.buffer` as if it were the drain.
//
// Invariants:
// - bytes of the drain in progress (between begin and take) are not handed out yet, so growing
//   may copy them into a larger slab; bytes before them never move;
// - room is made before encoding for the text as if it were ASCII; text that needs more is
//   encoded in pieces (encodeInto stops at a whole code point), each growth at least doubling
//   what the drain holds, so nothing is copied more than O(log n) times;
// - at most RETAINED_BYTES are kept between drains: a drain that needed a larger slab takes it
//   along (it fills at least half of it: exactly all of it when ASCII) and the encoder lets it
//   go, so one huge message does not pin memory for the stream's life; nothing is allocated before the first drain (engines drained by
//   pollOutbound, as the HTTP hosts do, never get a slab).

import { utf8Encoder, type Utf8Encoder } from "./utf8.js";

/** First slab: some hundred small messages. */
const SLAB_BYTES = 16 * 1024;
/** Largest slab kept from one drain to the next (the framing decoder's bound on what it keeps). */
const RETAINED_BYTES = 64 * 1024;
const NEWLINE = 0x0a;
/** Texts up to this length are copied byte by byte by text() while ASCII (measured on Node 20: a loop beats encodeInto and its view up to about 64 characters, and loses beyond). */
const SHORT_TEXT = 64;
const EMPTY = new Uint8Array(0);
/** The encoder, found at the first drain (lib/wire/utf8.ts): loading this module touches no codec. */
let utf8: Utf8Encoder | undefined;

export class LineEncoder {
  private slab: Uint8Array = EMPTY;
  /** The slab's ArrayBuffer: views are made with the constructor, cheaper than subarray. */
  private buffer: ArrayBufferLike = EMPTY.buffer;
  /** The first byte not handed out yet: where the drain in progress starts. */
  private used = 0;
  /** The end of the drain in progress. */
  private at = 0;
  /** The view a drain was encoded into, when that view is exactly the drain: take() hands it out as it is. */
  private whole: Uint8Array | undefined;

  /** Capacity of the slab currently kept (for tests of the retention bound). */
  get slabBytes(): number {
    return this.slab.length;
  }

  /** Starts a drain; bytes of an earlier drain left unfinished (an exception mid-drain) are dropped. */
  begin(): void {
    this.at = this.used;
    this.whole = undefined;
  }

  /**
   * Appends `text` to the drain, then "\n" when `newline`: one message's JSON, or the JSON of
   * several each followed by "\n" (one encodeInto for a whole batch beats one per message).
   */
  write(text: string, newline: boolean): void {
    // Room for all of it if it is ASCII (the usual case), so it is encoded in one call, into
    // a view of exactly the size ASCII needs: when it fits, that view is the drain's bytes.
    if (this.slab.length - this.at <= text.length) this.grow(text.length + 1);
    const start = this.at;
    const view = new Uint8Array(this.buffer, start, newline ? text.length + 1 : text.length);
    const result = (utf8 ??= utf8Encoder()).encodeInto(text, view);
    this.at += result.written;
    const read = result.read;
    this.whole = read === text.length && start === this.used ? view : undefined;
    if (read < text.length) this.writeRest(text, read);
    if (!newline) return;
    if (this.at === this.slab.length) this.grow(1);
    this.slab[this.at++] = NEWLINE;
  }

  /** Bytes written to the drain in progress so far: a mark rewind() returns to. */
  get drainLength(): number {
    return this.at - this.used;
  }

  /** Drops what the drain in progress wrote after `mark` (a drainLength read earlier in it). */
  rewind(mark: number): void {
    this.at = this.used + mark;
    this.whole = undefined;
  }

  /** Appends bytes already encoded (the constant parts of an envelope). */
  raw(bytes: Uint8Array): void {
    const length = bytes.length;
    if (this.slab.length - this.at < length) this.grow(length);
    const { slab } = this;
    const at = this.at;
    for (let i = 0; i < length; i++) slab[at + i] = bytes[i] as number;
    this.at = at + length;
    this.whole = undefined;
  }

  /**
   * Appends a text in the middle of a message (no view of it becomes the drain): a short one
   * byte by byte while it is ASCII, cheaper than a call to encodeInto and the view it needs.
   */
  text(text: string): void {
    const length = text.length;
    if (length > SHORT_TEXT) {
      this.write(text, false);
      return;
    }
    if (this.slab.length - this.at < length) this.grow(length);
    const { slab } = this;
    let at = this.at;
    let i = 0;
    for (; i < length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x80) break;
      slab[at++] = c;
    }
    this.at = at;
    this.whole = undefined;
    if (i < length) this.writeRest(text, i);
  }

  /** Appends one ASCII byte. */
  byte(b: number): void {
    if (this.at === this.slab.length) this.grow(1);
    this.slab[this.at++] = b;
  }

  /** Appends the decimal digits of a safe non-negative integer, as JSON.stringify writes it. */
  integer(n: number): void {
    let digits = 1;
    for (let p = 10; p <= n; p *= 10) digits++;
    if (this.slab.length - this.at < digits) this.grow(digits);
    const { slab } = this;
    let at = this.at + digits;
    this.at = at;
    this.whole = undefined;
    do {
      const q = Math.floor(n / 10);
      slab[--at] = 0x30 + (n - q * 10);
      n = q;
    } while (n > 0);
  }

  /** Ends the drain: its bytes, never written again by this encoder; undefined when it is empty. */
  take(): Uint8Array | undefined {
    const { used, at } = this;
    if (at === used) return undefined;
    if (this.slab.length > RETAINED_BYTES) {
      // Only growth makes a slab this large, and growth moves the drain to the slab's start
      // and leaves it at least half used: the drain takes the slab along.
      const bytes = new Uint8Array(this.buffer, 0, at);
      this.whole = undefined;
      this.slab = EMPTY;
      this.buffer = EMPTY.buffer;
      this.used = this.at = 0;
      return bytes;
    }
    this.used = at;
    const { whole } = this;
    this.whole = undefined;
    // The encoding view is the drain when the drain was that one write and it was ASCII.
    return whole !== undefined && whole.length === at - used ? whole : new Uint8Array(this.buffer, used, at - used);
  }

  /**
   * The rest of a text that is not ASCII, from `read` (a method of its own: the ASCII path of
   * write() stays small enough for V8 to inline it whole, TextEncoder.encodeInto included).
   */
  private writeRest(text: string, read: number): void {
    while (read < text.length) {
      // Room for the rest as if it were ASCII, again (encodeInto stopped at a whole code point;
      // each growth at least doubles).
      this.grow(text.length - read + 1);
      const result = (utf8 ??= utf8Encoder()).encodeInto(text.slice(read), this.rest());
      this.at += result.written;
      read += result.read;
    }
  }

  /** A view of the slab after the drain in progress. */
  private rest(): Uint8Array {
    return new Uint8Array(this.buffer, this.at, this.slab.length - this.at);
  }

  /** A larger slab with at least `free` bytes after the drain in progress, which moves to its start. */
  private grow(free: number): void {
    const pending = this.at - this.used;
    const next = new Uint8Array(Math.max(SLAB_BYTES, 2 * pending + free));
    next.set(this.slab.subarray(this.used, this.at));
    this.slab = next;
    this.buffer = next.buffer;
    this.used = 0;
    this.at = pending;
  }
}
