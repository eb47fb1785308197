// A FIFO queue on a growable ring buffer. Never uses Array#shift (O(n) once an array leaves
// V8's fast path) and keeps its storage when it empties, so a queue that fills and drains
// once per message allocates nothing in the steady state. Capacity is a power of two and
// only grows.

export class Queue<T> {
  private slots: (T | undefined)[] = new Array<T | undefined>(16);
  private mask = 15;
  private head = 0;
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(item: T): void {
    if (this.count === this.slots.length) this.grow();
    this.slots[(this.head + this.count) & this.mask] = item;
    this.count++;
  }

  /** The oldest item, removed; undefined when empty. */
  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.slots[this.head];
    this.slots[this.head] = undefined;
    this.head = (this.head + 1) & this.mask;
    this.count--;
    return item;
  }

  /** Removes every item, oldest first, appending each to `into`. */
  drainInto(into: T[]): void {
    while (this.count > 0) into.push(this.shift() as T);
  }

  clear(): void {
    while (this.count > 0) this.shift();
  }

  private grow(): void {
    const old = this.slots;
    const next = new Array<T | undefined>(old.length * 2);
    for (let i = 0; i < this.count; i++) next[i] = old[(this.head + i) & this.mask];
    this.slots = next;
    this.mask = next.length - 1;
    this.head = 0;
  }
}
