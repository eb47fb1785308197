// A FIFO queue on a growable ring buffer. Never uses Array#shift (O(n) once an array leaves
// V8's fast path) and keeps its storage when it empties, so a queue that fills and drains
// once per message allocates nothing in the steady state. Capacity is a power of two; it
// grows as needed and, once a burst has drained, a capacity over RETAINED_SLOTS is given
// back, so one burst (thousands of replies to one chunk) is not held for life (ENG-08).

const INITIAL_SLOTS = 16;
/** The most slots an empty queue keeps. */
const RETAINED_SLOTS = 1024;

export class Queue<T> {
  private slots: (T | undefined)[] = new Array<T | undefined>(INITIAL_SLOTS);
  private mask = INITIAL_SLOTS - 1;
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
    if (this.count === 0 && this.slots.length > RETAINED_SLOTS) this.shrink();
    return item;
  }

  /** Removes every item, oldest first, appending each to `into`. */
  drainInto(into: T[]): void {
    while (this.count > 0) into.push(this.shift() as T);
  }

  clear(): void {
    while (this.count > 0) this.shift();
  }

  private shrink(): void {
    this.slots = new Array<T | undefined>(INITIAL_SLOTS);
    this.mask = INITIAL_SLOTS - 1;
    this.head = 0;
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
