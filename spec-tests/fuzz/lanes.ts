// Three ways to feed one engine the same input, run in lockstep by the fuzzer:
//   value  — lines split here, each parsed and given to receiveMessage (a line that does
//            not parse, is not UTF-8 or is over maxLineBytes goes to receiveBytes whole);
//   bytes  — each input as one receiveBytes chunk, output read with takeBytes/takeEvents;
//   chunks — random splits into a reused scratch buffer that is overwritten after each
//            call (the engine may not keep a view of a chunk), drained after every call.
// Every lane returns what it drained; the episode compares them (bytes vs values vs any
// chunking must give the same outcome).
//
// Invariants: a lane never lets an exception out of the engine pass silently (it is
// returned as `threw`); the value lane calls `onMessage` before each delivery so the
// oracle sees engine state at the moment each message arrives.

import { Engine, type EngineEvent, type EngineOptions, type Role } from "../../lib/index.js";
import { randomSplit } from "./mutate.js";
import { Rng } from "./prng.js";

export type Mode = "value" | "bytes" | "chunks";

export interface Drained {
  /** Outbound messages as JSON text, in order (a batch reply is one array). */
  readonly messages: string[];
  readonly events: EngineEvent[];
}

export interface Delivery {
  /** A parsed message, or undefined for a line handed over as bytes. */
  readonly value: unknown;
  readonly kind: "value" | "bad-line" | "long-line" | "partial";
}

const CR = 0x0d;
const NL = 0x0a;
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function isBlank(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09 && b !== CR) return false;
  return true;
}

export class Lane {
  engine: Engine<Role>;
  inputCalls = 0;
  private pending: Uint8Array = new Uint8Array(0);
  /** The stream has not begun yet: a leading BOM is dropped, as the decoder does (value lane). */
  private atStart = true;
  private scratch = new Uint8Array(256);

  constructor(
    readonly mode: Mode,
    readonly options: EngineOptions<Role>,
  ) {
    this.engine = new Engine(options);
    this.prime();
  }

  /**
   * The value lane strips a stream-start BOM itself and hands the decoder only bad lines; a
   * blank line first tells the decoder its stream has begun, so it strips no BOM later.
   */
  private prime(): void {
    if (this.mode === "value") this.engine.receiveBytes(new Uint8Array([NL]));
  }

  /** Bytes of an unfinished line held by this lane's splitter (value lane) — equal to the engine's in the others. */
  get partialBytes(): number {
    return this.pending.length;
  }

  drain(into: { messages: string[]; events: EngineEvent[] }): void {
    const e = this.engine;
    if (this.mode === "bytes") {
      const bytes = e.takeBytes();
      if (bytes !== undefined) {
        const text = new TextDecoder().decode(bytes);
        if (!text.endsWith("\n")) throw new Error("takeBytes output does not end in a newline");
        for (const line of text.slice(0, -1).split("\n")) into.messages.push(JSON.stringify(JSON.parse(line)));
      }
      e.takeEvents(into.events);
      return;
    }
    for (let m = e.pollOutbound(); m !== undefined; m = e.pollOutbound()) into.messages.push(JSON.stringify(m.message));
    for (let ev = e.pollEvent(); ev !== undefined; ev = e.pollEvent()) into.events.push(ev);
  }

  /** Feeds bytes; `onMessage` runs before each value-lane delivery, `afterMessage` after it (with what it drained). */
  receive(
    bytes: Uint8Array,
    now: number,
    splitSeed: number,
    hooks?: { before(d: Delivery): void; after(d: Delivery, out: Drained): void },
  ): Drained {
    const out: Drained = { messages: [], events: [] };
    const e = this.engine;
    if (this.mode === "bytes") {
      this.inputCalls++;
      e.receiveBytes(bytes, now);
      this.drain(out);
      return out;
    }
    if (this.mode === "chunks") {
      for (const piece of randomSplit(bytes, new Rng(splitSeed))) {
        if (piece.length > this.scratch.length) this.scratch = new Uint8Array(piece.length * 2);
        this.scratch.set(piece, 0);
        this.inputCalls++;
        e.receiveBytes(this.scratch.subarray(0, piece.length), now);
        this.scratch.fill(0x7b, 0, piece.length);
        this.drain(out);
      }
      return out;
    }
    // value lane: split lines as the transport would, parse each whole line.
    let data = bytes;
    if (this.pending.length > 0) {
      data = new Uint8Array(this.pending.length + bytes.length);
      data.set(this.pending, 0);
      data.set(bytes, this.pending.length);
    }
    let start = 0;
    if (this.atStart) {
      // The decoder drops a UTF-8 BOM at the very start of the stream (and only there).
      const bom = [0xef, 0xbb, 0xbf];
      let matched = 0;
      while (matched < 3 && matched < data.length && data[matched] === bom[matched]) matched++;
      if (matched === 3) {
        start = 3;
        this.atStart = false;
      } else if (matched < data.length) {
        this.atStart = false;
      }
    }
    for (let nl = data.indexOf(NL, start); nl !== -1; nl = data.indexOf(NL, start)) {
      const raw = data.subarray(start, nl + 1);
      let end = nl;
      if (end > start && data[end - 1] === CR) end--;
      const line = data.subarray(start, end);
      start = nl + 1;
      // Blank lines are skipped — unless over the limit: the decoder measures a line before reading it.
      if (line.length === 0 || (isBlank(line) && line.length <= e.limits.maxLineBytes)) continue;
      let value: unknown;
      let parsed = false;
      try {
        value = JSON.parse(utf8.decode(line));
        parsed = true;
      } catch {
        parsed = false;
      }
      const long = line.length > e.limits.maxLineBytes;
      const delivery: Delivery = long
        ? { value: parsed ? value : undefined, kind: "long-line" }
        : parsed
          ? { value, kind: "value" }
          : { value: undefined, kind: "bad-line" };
      if (long) parsed = false;
      hooks?.before(delivery);
      const part: Drained = { messages: [], events: [] };
      this.inputCalls++;
      if (parsed) e.receiveMessage(value, now);
      else e.receiveBytes(raw.slice(), now);
      this.drain(part);
      hooks?.after(delivery, part);
      out.messages.push(...part.messages);
      out.events.push(...part.events);
    }
    this.pending = data.slice(start);
    return out;
  }

  eof(hooks?: { before(d: Delivery): void; after(d: Delivery, out: Drained): void }): Drained {
    const out: Drained = { messages: [], events: [] };
    const d: Delivery = { value: undefined, kind: this.pending.length > this.engine.limits.maxLineBytes + 1 ? "long-line" : "partial" };
    if (this.mode === "value") hooks?.before(d);
    if (this.mode === "value" && this.pending.length > 0) {
      // The unfinished line goes to the engine as bytes so it reports it as the decoder would.
      this.inputCalls++;
      this.engine.receiveBytes(this.pending, undefined);
      this.pending = new Uint8Array(0);
    }
    this.inputCalls++;
    this.engine.receiveEof();
    this.drain(out);
    if (this.mode === "value") hooks?.after(d, out);
    return out;
  }

  timeout(now: number): Drained {
    const out: Drained = { messages: [], events: [] };
    this.inputCalls++;
    this.engine.handleTimeout(now);
    this.drain(out);
    return out;
  }

  /** Runs a command; returns its value or the exception, and what it queued. */
  command(run: (engine: Engine<Role>) => unknown): { returned: unknown; threw: unknown; out: Drained } {
    const out: Drained = { messages: [], events: [] };
    let returned: unknown;
    let threw: unknown;
    try {
      returned = run(this.engine);
    } catch (error) {
      threw = error ?? new Error("undefined thrown");
    }
    this.drain(out);
    return { returned, threw, out };
  }

  /** Replaces the engine with one restored from a snapshot (the caller checked it is quiescent). */
  swap(engine: Engine<Role>): void {
    this.engine = engine;
    this.atStart = true;
    this.prime();
  }
}

/** Event text for comparison across lanes: line numbers differ when the value lane hands only bad lines to the decoder. */
export function eventKey(event: EngineEvent): string {
  return JSON.stringify(event).replace(/line \d+/g, "line #");
}
