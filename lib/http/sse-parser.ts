// An incremental text/event-stream (SSE) parser for the Streamable HTTP and HTTP+SSE
// clients: text in (bytes, any split), events out. Portable (UTF-8 through lib/wire/utf8.ts:
// the host's TextDecoder when it has one, else the built-in codec); no I/O.
// Invariants: each character is scanned once; a line or an event's data longer than
// maxLength throws (the error tooLong() makes) instead of growing without bound (RULES.md LIM-12).

import { newUtf8StreamDecoder } from "../wire/utf8.js";

export interface SseEvent {
  /** The event type; "message" when the event named none. */
  readonly type: string;
  readonly data: string;
  /** The last event id at dispatch ("" when none). */
  readonly id: string;
}

export interface SseParserOptions {
  /** The last event id carried over from an earlier connection of the same stream. */
  lastEventId?: string;
  retry?: number;
  /** LIM-12: longest line or event data, in characters; longer input throws. Default 8 MiB. */
  maxLength?: number;
}

/**
 * An incremental text/event-stream parser (the WHATWG HTML "event stream interpretation"):
 * fields event/data/id/retry, comments, unknown fields ignored, lines ending in CRLF, LF or
 * CR (also split across chunks), one leading BOM skipped, UTF-8 split anywhere. Like
 * EventSource, an event with no data line is not dispatched but still sets lastEventId, and
 * an event cut off by the end of the stream is dropped. Each character is scanned once.
 */
export class SseParser {
  /** The id of the last dispatched event (kept across events, as EventSource does). */
  lastEventId: string;
  /** The last valid `retry` field, in ms. */
  retry: number | undefined;
  private readonly maxLength: number;
  private readonly decoder = newUtf8StreamDecoder(false, true);
  private started = false;
  private pendingCr = false;
  private tail = "";
  private data = "";
  private type = "";
  private idBuffer: string;

  constructor(options: SseParserOptions = {}) {
    this.lastEventId = options.lastEventId ?? "";
    this.idBuffer = this.lastEventId;
    this.retry = options.retry;
    this.maxLength = options.maxLength ?? 8 * 1024 * 1024;
  }

  /** The error thrown for input past maxLength; a transport overrides it with its own error type. */
  protected tooLong(message: string): Error {
    return new RangeError(message);
  }

  /** Feeds bytes; dispatched events are appended to `out`. */
  push(bytes: Uint8Array, out: SseEvent[]): void {
    this.pushText(this.decoder.decode(bytes, { stream: true }), out);
  }

  /** Feeds already-decoded text. */
  pushText(text: string, out: SseEvent[]): void {
    if (!this.started) {
      if (text === "") return;
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const n = text.length;
    let start = 0;
    if (this.pendingCr && n > 0) {
      this.pendingCr = false;
      if (text.charCodeAt(0) === 10) start = 1;
    }
    for (let i = start; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      const piece = text.slice(start, i);
      const line = this.tail === "" ? piece : this.tail + piece;
      this.tail = "";
      this.line(line, out);
      if (c === 13) {
        if (i + 1 < n) {
          if (text.charCodeAt(i + 1) === 10) i++;
        } else this.pendingCr = true;
      }
      start = i + 1;
    }
    if (start < n) {
      this.tail += text.slice(start);
      if (this.tail.length > this.maxLength) throw this.tooLong(`an SSE line is longer than ${this.maxLength} characters`);
    }
  }

  /** The stream ended: an unterminated event is dropped (EventSource rules). */
  finish(): void {
    this.decoder.decode();
    this.tail = "";
    this.data = "";
    this.type = "";
    this.pendingCr = false;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === "") {
      this.dispatch(out);
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ":" comment
    const colon = line.indexOf(":");
    let field: string;
    let value: string;
    if (colon < 0) {
      field = line;
      value = "";
    } else {
      field = line.slice(0, colon);
      value = line.charCodeAt(colon + 1) === 32 ? line.slice(colon + 2) : line.slice(colon + 1);
    }
    switch (field) {
      case "event":
        this.type = value;
        return;
      case "data":
        this.data += value + "\n";
        if (this.data.length > this.maxLength) throw this.tooLong(`an SSE event's data is longer than ${this.maxLength} characters`);
        return;
      case "id":
        if (!value.includes("\0")) this.idBuffer = value;
        return;
      case "retry":
        if (/^[0-9]+$/.test(value)) this.retry = Number.parseInt(value, 10);
        return;
      default:
        return;
    }
  }

  private dispatch(out: SseEvent[]): void {
    this.lastEventId = this.idBuffer;
    if (this.data === "") {
      this.type = "";
      return;
    }
    out.push({ type: this.type === "" ? "message" : this.type, data: this.data.slice(0, -1), id: this.lastEventId });
    this.data = "";
    this.type = "";
  }
}
