// Request bodies for the HTTP target: JSON bytes damaged the way a network or a hostile client
// damages them (truncated, invalid UTF-8, a BOM, doubled, deeply nested, padded to the body
// limit, a flipped byte), and how they travel (whole, or a stream cut at random boundaries
// that may stall until the episode releases it, or error).
//
// Invariants: every choice comes from the given Rng; the input is never modified (damage
// works on copies); `intact` is true only for bytes that are still the JSON value given.

import type { Json } from "./mutate.js";
import type { Rng } from "./prng.js";

const encoder = new TextEncoder();

export interface BodySpec {
  readonly bytes: Uint8Array;
  readonly as: "string" | "bytes" | "stream";
  /** For a stream: where its chunks end (byte offsets, the last one bytes.length). */
  readonly cuts: readonly number[];
  /** For a stream: after this many chunks it waits until the episode releases it. */
  readonly stallAfter: number | undefined;
  /** For a stream: it errors instead of sending this chunk. */
  readonly errorAt: number | undefined;
}

/** Bytes for a JSON value (or `raw` text), sometimes damaged the way a network or a hostile client damages them; `intact` when they are still that value. */
export function encodeBody(
  rng: Rng,
  value: Json | undefined,
  raw: string | undefined,
  limit: number,
): { bytes: Uint8Array; intact: boolean } {
  const text = raw ?? JSON.stringify(value);
  const bytes = encoder.encode(text);
  const intact = raw === undefined;
  if (!rng.chance(0.1)) return { bytes, intact };
  const op = rng.int(8);
  // Padding to the limit keeps the JSON as it was; every other edit breaks it.
  const damaged = (out: Uint8Array): { bytes: Uint8Array; intact: boolean } => ({ bytes: out, intact: intact && op === 6 });
  switch (op) {
    case 0:
      return damaged(bytes.subarray(0, rng.int(bytes.length + 1))); // truncated
    case 1: {
      const at = rng.int(bytes.length + 1);
      const bad = rng.pick([[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xc0, 0xaf]]);
      const out = new Uint8Array(bytes.length + bad.length);
      out.set(bytes.subarray(0, at));
      out.set(bad, at);
      out.set(bytes.subarray(at), at + bad.length);
      return damaged(out);
    }
    case 2:
      return damaged(encoder.encode(`\ufeff${text}`));
    case 3:
      return damaged(encoder.encode(rng.pick(["", " ", "null", "[]", "{}", "1", '"x"', "[[]]", '{"jsonrpc":"2.0"}', "nul"])));
    case 4:
      return damaged(encoder.encode(`${text}${text}`));
    case 5:
      return damaged(encoder.encode(`${"[".repeat(rng.pick([100, 5000]))}${"]".repeat(rng.pick([0, 100, 5000]))}`));
    case 6: {
      // Right at the limit: one under, at, one over, far over.
      const target = Math.min(rng.pick([limit - 1, limit, limit + 1, limit * 2]), 5 * 1024 * 1024 + 1);
      if (text[0] !== "{" || target <= text.length) return { bytes, intact };
      return damaged(encoder.encode(`{${" ".repeat(target - text.length)}${text.slice(1)}`));
    }
    default: {
      const copy = bytes.slice();
      if (copy.length > 0) copy[rng.int(copy.length)] = rng.int(256);
      return damaged(copy);
    }
  }
}

/** How the bytes travel: whole (as a string or bytes), or as a stream cut at random boundaries that may stall or error. */
export function bodySpec(rng: Rng, bytes: Uint8Array): BodySpec {
  const r = rng.int(10);
  if (r < 5) return { bytes, as: "string", cuts: [], stallAfter: undefined, errorAt: undefined };
  if (r < 7) return { bytes, as: "bytes", cuts: [], stallAfter: undefined, errorAt: undefined };
  const cuts: number[] = [];
  let at = 0;
  const style = rng.int(3);
  while (at < bytes.length && cuts.length < 400) {
    at = Math.min(bytes.length, at + (style === 0 ? rng.range(1, 8) : style === 1 ? rng.range(1, 512) : rng.range(1, bytes.length)));
    cuts.push(at);
  }
  if (cuts.length === 0 || cuts[cuts.length - 1] !== bytes.length) cuts.push(bytes.length);
  const stallAfter = rng.chance(0.1) ? rng.int(cuts.length + 1) : undefined;
  const errorAt = rng.chance(0.08) ? rng.int(cuts.length + 1) : undefined;
  return { bytes, as: "stream", cuts, stallAfter, errorAt };
}
