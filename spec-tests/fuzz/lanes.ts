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
  readonly kind: "value" | "bad-line" | "partial";
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
  /** The engine's decoder is skipping an over-long line (value lane). */
  private skipping = false;
  private scratch = new Uint8Array(256);

  constructor(
    readonly mode: Mode,
    readonly options: EngineOptions<Role>,
  ) {
    this.engine = new Engine(options);
  }

  /** Bytes of an unfinished line held by this lane's splitter (value lane) — equal to the engine's in the others. */
  get partialBytes(): number {
    return this.pending.length + (this.skipping ? 1 : 0);
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
  receive(bytes: Uint8Array, now: number, splitSeed: number, hooks?: { before(d: Delivery): void; after(d: Delivery, out: Drained): void }): Drained {
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
    if (this.skipping) {
      // The rest of an over-long line, up to its newline, goes to the decoder that is skipping it.
      const nl = bytes.indexOf(NL);
      const rest = nl === -1 ? bytes : bytes.subarray(0, nl + 1);
      const d: Delivery = { value: undefined, kind: "partial" };
      hooks?.before(d);
      const part: Drained = { messages: [], events: [] };
      this.inputCalls++;
      e.receiveBytes(rest.slice(), now);
      this.drain(part);
      hooks?.after(d, part);
      out.messages.push(...part.messages);
      out.events.push(...part.events);
      if (nl === -1) return out;
      this.skipping = false;
      bytes = bytes.subarray(nl + 1);
    }
    let data = bytes;
    if (this.pending.length > 0) {
      data = new Uint8Array(this.pending.length + bytes.length);
      data.set(this.pending, 0);
      data.set(bytes, this.pending.length);
    }
    let start = 0;
    for (let nl = data.indexOf(NL, start); nl !== -1; nl = data.indexOf(NL, start)) {
      const raw = data.subarray(start, nl + 1);
      let end = nl;
      if (end > start && data[end - 1] === CR) end--;
      const line = data.subarray(start, end);
      start = nl + 1;
      if (line.length === 0 || isBlank(line)) continue;
      let value: unknown;
      let parsed = false;
      if (line.length <= e.limits.maxLineBytes) {
        try {
          value = JSON.parse(utf8.decode(line));
          parsed = true;
        } catch {
          parsed = false;
        }
      }
      const delivery: Delivery = parsed ? { value, kind: "value" } : { value: undefined, kind: "bad-line" };
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
    if (this.pending.length > e.limits.maxLineBytes + 1) {
      // The decoder reports an over-long line as soon as it cannot fit, not at its newline,
      // then skips to the next newline: hand it over now, and the rest of it later.
      this.skipping = true;
      const d: Delivery = { value: undefined, kind: "bad-line" };
      hooks?.before(d);
      const part: Drained = { messages: [], events: [] };
      this.inputCalls++;
      e.receiveBytes(this.pending, now);
      this.pending = new Uint8Array(0);
      this.drain(part);
      hooks?.after(d, part);
      out.messages.push(...part.messages);
      out.events.push(...part.events);
    }
    return out;
  }

  eof(hooks?: { before(d: Delivery): void; after(d: Delivery, out: Drained): void }): Drained {
    const out: Drained = { messages: [], events: [] };
    if (this.mode === "value" && this.pending.length > 0) {
      // The unfinished line goes to the engine as bytes so it reports it as the decoder would.
      const d: Delivery = { value: undefined, kind: "partial" };
      hooks?.before(d);
      this.inputCalls++;
      this.engine.receiveBytes(this.pending, undefined);
      this.pending = new Uint8Array(0);
      hooks?.after(d, { messages: [], events: [] });
    }
    this.inputCalls++;
    this.engine.receiveEof();
    this.drain(out);
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
  }
}

/** Event text for comparison across lanes: line numbers differ when the value lane hands only bad lines to the decoder. */
export function eventKey(event: EngineEvent): string {
  return JSON.stringify(event).replace(/line \d+/g, "line #");
}
