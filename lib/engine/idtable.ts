// A table of in-flight records keyed by request id, tuned for the common case: integer ids
// that count up. Integer ids live in a power-of-two slot array indexed by `id & mask`, the
// key beside its record in a parallel array; string ids and the rare clash go to a Map.
// Unlike a Map that fills and empties once per message (a Map that drops to no entries
// shrinks, which allocates a new table; one that refills allocates again), the slot arrays
// keep their storage, so the steady state allocates nothing.
//
// The table never reads its records: the key is the caller's argument, kept in `keys`. So
// one IdTable's code serves records of any shape (the engine's and the peer layer's)
// without a property load whose feedback several shapes would make polymorphic.
//
// Invariants: a record is in exactly one place (its slot or the overflow map); `1` and "1"
// are different keys (a string never goes to a slot); the slot array grows (up to 4096
// slots) when a clash happens while it is at least half full.

import type { RequestId } from "../wire/envelope.js";

const MAX_SLOTS = 4096;
const INITIAL_SLOTS = 64;

export class IdTable<V> {
  private keys: (number | undefined)[] = new Array<number | undefined>(INITIAL_SLOTS);
  private slots: (V | undefined)[] = new Array<V | undefined>(INITIAL_SLOTS);
  private mask = INITIAL_SLOTS - 1;
  private overflow: Map<RequestId, V> | undefined;
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(id: RequestId): V | undefined {
    if (typeof id === "number") {
      const index = id & this.mask;
      if (this.keys[index] === id) return this.slots[index];
    }
    return this.overflow === undefined ? undefined : this.overflow.get(id);
  }

  has(id: RequestId): boolean {
    return this.get(id) !== undefined;
  }

  /** Sets the record of `id` (replacing the one it had, as Map.set does). */
  set(id: RequestId, value: V): void {
    if (typeof id === "number") {
      let index = id & this.mask;
      if (this.keys[index] === id) {
        this.slots[index] = value;
        return;
      }
      if (this.keys[index] !== undefined && this.slots.length < MAX_SLOTS && this.count * 2 >= this.slots.length) {
        this.grow();
        index = id & this.mask;
      }
      if (this.keys[index] === undefined) {
        // A replacement of a record that clashed earlier: it leaves the overflow map.
        if (this.overflow !== undefined && this.overflow.delete(id)) this.count--;
        this.keys[index] = id;
        this.slots[index] = value;
        this.count++;
        return;
      }
    }
    const overflow = (this.overflow ??= new Map());
    if (!overflow.has(id)) this.count++;
    overflow.set(id, value);
  }

  delete(id: RequestId): boolean {
    if (typeof id === "number") {
      const index = id & this.mask;
      if (this.keys[index] === id) {
        this.keys[index] = undefined;
        this.slots[index] = undefined;
        this.count--;
        return true;
      }
    }
    if (this.overflow !== undefined && this.overflow.delete(id)) {
      this.count--;
      return true;
    }
    return false;
  }

  /** Appends every record to `into` (slot order, then overflow order). */
  collect(into: V[]): V[] {
    if (this.count === 0) return into;
    for (let i = 0; i < this.keys.length; i++) if (this.keys[i] !== undefined) into.push(this.slots[i] as V);
    if (this.overflow !== undefined) for (const v of this.overflow.values()) into.push(v);
    return into;
  }

  /** Appends every key to `into`, in collect()'s order. */
  collectKeys(into: RequestId[]): RequestId[] {
    if (this.count === 0) return into;
    for (let i = 0; i < this.keys.length; i++) {
      const key = this.keys[i];
      if (key !== undefined) into.push(key);
    }
    if (this.overflow !== undefined) for (const k of this.overflow.keys()) into.push(k);
    return into;
  }

  clear(): void {
    if (this.count === 0) return;
    this.keys.fill(undefined);
    this.slots.fill(undefined);
    this.overflow = undefined;
    this.count = 0;
  }

  private grow(): void {
    const keys = this.collectKeys([]);
    const records = this.collect([]);
    const size = this.slots.length * 2;
    this.keys = new Array<number | undefined>(size);
    this.slots = new Array<V | undefined>(size);
    this.mask = size - 1;
    this.overflow = undefined;
    this.count = 0;
    for (let i = 0; i < keys.length; i++) this.set(keys[i] as RequestId, records[i] as V);
  }
}
