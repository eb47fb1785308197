// The deadlines of our pending requests as a binary min-heap, so that answering a request,
// moving a deadline and asking for the next one cost O(log n) whatever the number in flight
// (a scan over every pending request would make 10^5 requests in flight quadratic).
//
// Invariants:
// - an entry is in the heap exactly when it has a finite due time; `heapIndex` is its slot
//   there, or -1;
// - the root is the entry with the smallest due time (ties: the smaller id, so that the order
//   of expiry never depends on insertion history);
// - no allocation per operation beyond the array's own growth.

export interface DeadlineEntry {
  readonly id: number;
  /** Earliest of the entry's deadlines; Infinity when it has none. */
  due: number;
  heapIndex: number;
}

function before(a: DeadlineEntry, b: DeadlineEntry): boolean {
  return a.due < b.due || (a.due === b.due && a.id < b.id);
}

export class DeadlineHeap<E extends DeadlineEntry> {
  private readonly items: E[] = [];

  get size(): number {
    return this.items.length;
  }

  /** The entry due first, or undefined when none is timed. */
  peek(): E | undefined {
    return this.items[0];
  }

  /** Puts `entry` where its (new) due time belongs: inserted, moved, or removed when it has none. */
  update(entry: E, due: number): void {
    entry.due = due;
    if (due === Infinity) {
      this.remove(entry);
      return;
    }
    if (entry.heapIndex < 0) {
      entry.heapIndex = this.items.length;
      this.items.push(entry);
    }
    this.siftUp(entry.heapIndex);
    this.siftDown(entry.heapIndex);
  }

  remove(entry: E): void {
    const index = entry.heapIndex;
    if (index < 0) return;
    entry.heapIndex = -1;
    const last = this.items.pop() as E;
    if (index === this.items.length) return;
    this.items[index] = last;
    last.heapIndex = index;
    this.siftUp(index);
    this.siftDown(last.heapIndex);
  }

  /** Removes and returns, in id order, every entry due at or before `now`. */
  takeDue(now: number, into: E[]): E[] {
    for (let root = this.items[0]; root !== undefined && root.due <= now; root = this.items[0]) {
      this.remove(root);
      into.push(root);
    }
    return into.sort((a, b) => a.id - b.id);
  }

  clear(): void {
    for (const entry of this.items) entry.heapIndex = -1;
    this.items.length = 0;
  }

  private siftUp(index: number): void {
    const items = this.items;
    const entry = items[index] as E;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = items[parentIndex] as E;
      if (!before(entry, parent)) break;
      items[index] = parent;
      parent.heapIndex = index;
      index = parentIndex;
    }
    items[index] = entry;
    entry.heapIndex = index;
  }

  private siftDown(index: number): void {
    const items = this.items;
    const length = items.length;
    const entry = items[index] as E;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= length) break;
      const right = left + 1;
      const child = right < length && before(items[right] as E, items[left] as E) ? right : left;
      const candidate = items[child] as E;
      if (!before(candidate, entry)) break;
      items[index] = candidate;
      candidate.heapIndex = index;
      index = child;
    }
    items[index] = entry;
    entry.heapIndex = index;
  }
}
