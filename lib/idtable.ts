// A table of in-flight records keyed by request id, tuned for the common case: integer ids
// that count up. Integer ids live in a power-of-two slot array indexed by `id & mask`;
// string ids and the rare clash go to a Map. Unlike a Map that fills and empties once per
// message, the slot array keeps its storage, so the steady state allocates nothing.
//
// Invariants: a record is in exactly one place (its slot or the overflow map); `1` and "1"
// are different keys (a string never goes to a slot); the slot array grows (up to 4096
// slots) when a clash happens while it is at least half full.

import type { RequestId } from "./envelope.js";

const MAX_SLOTS = 4096;

export class IdTable<V extends { readonly id: RequestId }> {
  private slots: (V | undefined)[] = new Array<V | undefined>(64);
  private mask = 63;
  private overflow: Map<RequestId, V> | undefined;
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(id: RequestId): V | undefined {
    if (typeof id === "number") {
      const slot = this.slots[id & this.mask];
      if (slot !== undefined && slot.id === id) return slot;
    }
    return this.overflow === undefined ? undefined : this.overflow.get(id);
  }

  has(id: RequestId): boolean {
    return this.get(id) !== undefined;
  }

  /** Adds a record whose id is not in the table. */
  set(value: V): void {
    const id = value.id;
    if (typeof id === "number") {
      let index = id & this.mask;
      if (this.slots[index] !== undefined && this.slots.length < MAX_SLOTS && this.count * 2 >= this.slots.length) {
        this.grow();
        index = id & this.mask;
      }
      if (this.slots[index] === undefined) {
        this.slots[index] = value;
        this.count++;
        return;
      }
    }
    (this.overflow ??= new Map()).set(id, value);
    this.count++;
  }

  delete(id: RequestId): boolean {
    if (typeof id === "number") {
      const index = id & this.mask;
      const slot = this.slots[index];
      if (slot !== undefined && slot.id === id) {
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
    for (const slot of this.slots) if (slot !== undefined) into.push(slot);
    if (this.overflow !== undefined) for (const v of this.overflow.values()) into.push(v);
    return into;
  }

  clear(): void {
    if (this.count === 0) return;
    this.slots.fill(undefined);
    this.overflow = undefined;
    this.count = 0;
  }

  private grow(): void {
    const records = this.collect([]);
    this.slots = new Array<V | undefined>(this.slots.length * 2);
    this.mask = this.slots.length - 1;
    this.overflow = undefined;
    this.count = 0;
    for (const r of records) this.set(r);
  }
}
