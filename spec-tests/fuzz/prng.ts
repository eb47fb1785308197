// A small seeded PRNG for the fuzzer (xorshift128, seeded through splitmix32), so every
// episode is reproducible from one 32-bit seed. Never Math.random: a failure must replay.
//
// Invariants: the same seed gives the same sequence on every platform (32-bit integer
// arithmetic only); derive() gives an independent stream without disturbing this one.

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = (): number => {
      // splitmix32: spreads a small seed over the four state words.
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next() | 1;
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    let t = this.d;
    const s = this.a;
    this.d = this.c;
    this.c = this.b;
    this.b = s;
    t ^= t << 11;
    t ^= t >>> 8;
    this.a = (t ^ s ^ (s >>> 19)) >>> 0;
    return this.a;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return n <= 1 ? 0 : Math.floor((this.u32() / 4294967296) * n);
  }

  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.u32() / 4294967296 < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("pick from an empty list");
    return items[this.int(items.length)] as T;
  }

  /** A weighted choice: weights[i] is the relative chance of i. */
  weighted(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w;
    let r = (this.u32() / 4294967296) * total;
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i] as number;
      if (r < 0) return i;
    }
    return weights.length - 1;
  }

  /** A new generator whose sequence is independent of what this one draws next. */
  derive(): Rng {
    return new Rng(this.u32() ^ 0x5bd1e995);
  }
}
