// The inactivity deadlines of a Client's calls made with its default timeout, kept on the
// client's side rather than in the engine's deadline heap (lib/engine/deadlines.ts): every such call
// gets the same duration, so their deadlines come in non-decreasing order of sending and a
// FIFO suffices. An entry is a reference to the call (already held in the pending IdTable)
// and a slot of a Float64Array, so sending such a call allocates nothing here; in the engine
// it would cost a Timing object and its boxed doubles.
//
// When a deadline passes, the call is handed to the engine with that same deadline
// (Engine.setDeadline) just before the engine expires its own (Driver.onTimer): the engine
// then times it out exactly as if it had held the deadline from the start (the same timeout
// event, notifications/cancelled and late-answer memory, in id order with its own).
//
// Invariants:
// - the deadlines in the ring are non-decreasing from head to tail: a deadline earlier than
//   the tail's (the host's clock went back) is refused by push() and goes to the engine;
// - an entry whose call settled stays until it reaches the head or a compaction (lazy
//   removal); live() tells them apart; the ring holds at most twice the live entries plus
//   its initial capacity, so it never grows without the calls in flight growing too;
// - next() is the earliest deadline of a live entry, so the host's timer is armed as it
//   would be with the engine holding every deadline.

/** Whether an entry's call is still waiting for its answer. */
export type Liveness<T> = (item: T) => boolean;

const INITIAL_CAPACITY = 16;

export class DeadlineRing<T extends object> {
  private items: Array<T | undefined> = new Array<T | undefined>(INITIAL_CAPACITY).fill(undefined);
  private dues = new Float64Array(INITIAL_CAPACITY);
  /** Slot of the oldest entry. */
  private head = 0;
  private count = 0;

  constructor(private readonly live: Liveness<T>) {}

  /** Entries held, live or not. */
  get size(): number {
    return this.count;
  }

  /** Whether push(·, due) would keep the order: `due` is not earlier than the last entry's. */
  accepts(due: number): boolean {
    return this.count === 0 || due >= (this.dues[(this.head + this.count - 1) & (this.items.length - 1)] as number);
  }

  /** Appends `item` due at `due`; false (nothing kept) when `due` is earlier than the last entry's. */
  push(item: T, due: number): boolean {
    if (!this.accepts(due)) return false;
    if (this.count === this.items.length) this.makeRoom();
    const slot = (this.head + this.count) & (this.items.length - 1);
    this.items[slot] = item;
    this.dues[slot] = due;
    this.count++;
    return true;
  }

  /** The earliest deadline of a live entry, or undefined; drops the settled entries before it. */
  next(): number | undefined {
    this.dropSettledHead();
    return this.count === 0 ? undefined : this.dues[this.head];
  }

  /** Removes the live entries due at or before `now`, oldest first, and gives each to `expired` with its deadline. */
  takeDue(now: number, expired: (item: T, due: number) => void): void {
    for (this.dropSettledHead(); this.count > 0 && (this.dues[this.head] as number) <= now; this.dropSettledHead()) {
      const item = this.items[this.head] as T;
      const due = this.dues[this.head] as number;
      this.shift();
      expired(item, due);
    }
  }

  /** Forgets every entry (the connection closed: every call settled). */
  clear(): void {
    this.items.fill(undefined);
    this.head = 0;
    this.count = 0;
  }

  private dropSettledHead(): void {
    while (this.count > 0 && !this.live(this.items[this.head] as T)) this.shift();
  }

  private shift(): void {
    this.items[this.head] = undefined;
    this.head = (this.head + 1) & (this.items.length - 1);
    this.count--;
  }

  /** The ring is full: settled entries are dropped first; it doubles only when at least half are live. */
  private makeRoom(): void {
    const capacity = this.items.length;
    const mask = capacity - 1;
    let kept = 0;
    const items = this.items;
    const dues = this.dues;
    // Compacted in place towards the head, order kept.
    for (let i = 0; i < this.count; i++) {
      const from = (this.head + i) & mask;
      const item = items[from] as T;
      if (!this.live(item)) continue;
      const to = (this.head + kept) & mask;
      items[to] = item;
      dues[to] = dues[from] as number;
      kept++;
    }
    for (let i = kept; i < this.count; i++) items[(this.head + i) & mask] = undefined;
    this.count = kept;
    if (kept * 2 < capacity) return;
    const grown = new Array<T | undefined>(capacity * 2).fill(undefined);
    const grownDues = new Float64Array(capacity * 2);
    for (let i = 0; i < kept; i++) {
      const from = (this.head + i) & mask;
      grown[i] = items[from];
      grownDues[i] = dues[from] as number;
    }
    this.items = grown;
    this.dues = grownDues;
    this.head = 0;
  }
}
