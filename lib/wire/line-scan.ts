// What can still be learnt from a line too long to keep: a constant-memory scan of its bytes,
// fed piece by piece while the line is skipped, that finds the top-level "id" of a JSON object
// and whether the object has a top-level "method" member (a request or notification) or not (a
// response). The engine uses it to answer an over-long request with its own id, and to settle
// at once the request an over-long response answers, instead of leaving it to its deadline.
//
// Invariants:
// - memory is constant: a few counters, a key prefix of at most KEY_BYTES and an id of at most
//   ID_BYTES bytes, whatever the line's length and nesting;
// - JSON's structural characters are ASCII, so scanning UTF-8 bytes one by one is exact;
// - the scan never throws; a line that is not a JSON object, or whose id is malformed or too
//   long, yields no id (it is then treated like any unreadable line);
// - no codec is touched until an id is read (lib/wire/utf8.ts).

import { decodeUtf8 } from "./utf8.js";

const KEY_BYTES = 8;
const ID_BYTES = 256;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

export interface LineFacts {
  /** The top-level id, when it was a string or a safe integer. */
  readonly id: string | number | undefined;
  /** A top-level "method" member was seen. */
  readonly hasMethod: boolean;
  /** A top-level "id" member was seen (readable or not). */
  readonly hasId: boolean;
  /** Bytes of the line, without its terminator. */
  readonly bytes: number;
}

const enum Phase {
  /** At depth 1 between members (or before the first key). */
  BetweenMembers,
  /** Reading a top-level key. */
  Key,
  /** A top-level key was read; waiting for its colon. */
  Colon,
  /** After the colon of a top-level member, before its value. */
  BeforeValue,
  /** Inside a top-level value other than the id's (nested values included). */
  InValue,
  /** Inside the id's value: a string, or a bare literal (number, true, null ...). */
  IdString,
  IdBare,
}

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
}

export class LineScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private phase = Phase.BetweenMembers;
  private readonly key = new Uint8Array(KEY_BYTES);
  private keyLength = 0;
  private keyIsId = false;
  private readonly idBytes = new Uint8Array(ID_BYTES);
  private idLength = 0;
  /** The id's value ended and fitted (valid JSON is checked at the end). */
  private idComplete = false;
  private method = false;
  private idSeen = false;
  private started = false;
  private notObject = false;
  private length = 0;
  private lastByte = -1;

  /** Scans bytes[start, end) as the next part of the line. */
  feed(bytes: Uint8Array, start: number, end: number): void {
    this.length += end - start;
    if (end > start) this.lastByte = bytes[end - 1] as number;
    if (this.notObject) return;
    for (let i = start; i < end; i++) this.step(bytes[i] as number);
  }

  /** What the scan found; the scanner is ready for the next line afterwards. */
  finish(): LineFacts {
    // A trailing \r belongs to the line terminator.
    const facts: LineFacts = {
      id: this.notObject ? undefined : this.readId(),
      hasMethod: !this.notObject && this.method,
      hasId: !this.notObject && this.idSeen,
      bytes: this.length - (this.lastByte === 0x0d ? 1 : 0),
    };
    this.depth = this.keyLength = this.idLength = this.length = 0;
    this.lastByte = -1;
    this.inString = this.escaped = this.keyIsId = this.idComplete = this.method = this.idSeen = this.started = this.notObject = false;
    this.phase = Phase.BetweenMembers;
    return facts;
  }

  private step(b: number): void {
    if (!this.started) {
      if (isSpace(b)) return;
      this.started = true;
      if (b !== OPEN_BRACE) {
        this.notObject = true;
        return;
      }
    }
    if (this.notObject) return;
    if (this.inString) {
      if (this.phase === Phase.IdString) this.capture(b);
      if (this.escaped) this.escaped = false;
      else if (b === BACKSLASH) this.escaped = true;
      else if (b === QUOTE) {
        this.inString = false;
        if (this.phase === Phase.Key) this.endKey();
        else if (this.phase === Phase.IdString) this.endId();
      } else if (this.phase === Phase.Key && this.keyLength < KEY_BYTES) this.key[this.keyLength++] = b;
      else if (this.phase === Phase.Key) this.keyLength = KEY_BYTES + 1;
      return;
    }
    if (this.phase === Phase.IdBare) {
      if (b !== COMMA && b !== CLOSE_BRACE && !isSpace(b)) {
        this.capture(b);
        return;
      }
      this.endId();
    } else if (this.phase === Phase.BeforeValue && !isSpace(b)) {
      if (this.keyIsId && b === QUOTE) {
        this.phase = Phase.IdString;
        this.inString = true;
        this.idLength = 0;
        this.capture(b);
        return;
      }
      if (this.keyIsId && b !== OPEN_BRACE && b !== OPEN_BRACKET) {
        this.phase = Phase.IdBare;
        this.idLength = 0;
        this.capture(b);
        return;
      }
      if (this.keyIsId) this.idComplete = false;
      this.phase = Phase.InValue;
    }
    switch (b) {
      case QUOTE:
        this.inString = true;
        if (this.depth === 1 && this.phase === Phase.BetweenMembers) {
          this.phase = Phase.Key;
          this.keyLength = 0;
        }
        return;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        this.depth++;
        return;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        this.depth--;
        return;
      case COMMA:
        if (this.depth === 1) this.phase = Phase.BetweenMembers;
        return;
      case COLON:
        if (this.phase === Phase.Colon) this.phase = Phase.BeforeValue;
        return;
      default:
    }
  }

  private endKey(): void {
    const is = (name: string): boolean => this.keyLength === name.length && [...name].every((c, i) => this.key[i] === c.charCodeAt(0));
    if (is("method")) this.method = true;
    this.keyIsId = is("id");
    if (this.keyIsId) {
      this.idSeen = true;
      this.idComplete = false;
    }
    this.phase = Phase.Colon;
  }

  private capture(b: number): void {
    if (this.idLength < ID_BYTES) this.idBytes[this.idLength] = b;
    this.idLength++;
  }

  private endId(): void {
    this.idComplete = this.idLength <= ID_BYTES;
    this.phase = Phase.InValue;
  }

  private readId(): string | number | undefined {
    if (!this.idComplete) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(decodeUtf8(this.idBytes.subarray(0, this.idLength), true));
    } catch {
      return undefined;
    }
    if (typeof value === "string") return value;
    return typeof value === "number" && Number.isSafeInteger(value) ? value : undefined;
  }
}
