// A FIFO queue over an array with a head index. Never uses Array#shift (which is O(n) per
// call once an array leaves V8's fast path); the consumed prefix is dropped when the queue
// empties or once it is more than half of the array.

export class Queue<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The oldest item, removed; undefined when empty. */
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head++;
    if (this.head === this.items.length) {
      this.items.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Removes every item, oldest first, appending each to `into`. */
  drainInto(into: T[]): void {
    for (let i = this.head; i < this.items.length; i++) into.push(this.items[i] as T);
    this.items.length = 0;
    this.head = 0;
  }

  clear(): void {
    this.items.length = 0;
    this.head = 0;
  }
}
