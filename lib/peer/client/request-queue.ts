// A FIFO queue whose entries each carry an expiry: the client's requests waiting for room
// under the engine's maxPendingOutbound (client.ts). Arrival order is kept by a Map keyed by
// a ticket, so removal by ticket (an abort) is O(1) and iteration is oldest first.
//
// Invariants: nextExpiry() is the earliest expiry of the entries (Infinity means none and is
// never reported); while expiries arrive in non-decreasing order (the usual case: one
// default timeout), the earliest is the oldest entry's and found in O(1).

export class DeadlineQueue<T> {
  private readonly entries = new Map<number, { readonly expiry: number; readonly item: T }>();
  private nextTicket = 0;
  private monotone = true;
  private lastExpiry = -Infinity;

  get size(): number {
    return this.entries.size;
  }

  /** Appends `item`; returns its ticket (for remove). */
  push(item: T, expiry: number): number {
    if (expiry < this.lastExpiry) this.monotone = false;
    this.lastExpiry = expiry;
    const ticket = this.nextTicket++;
    this.entries.set(ticket, { expiry, item });
    return ticket;
  }

  /** Removes the entry of `ticket`; false when it is no longer queued. */
  remove(ticket: number): boolean {
    const removed = this.entries.delete(ticket);
    this.resetWhenEmpty();
    return removed;
  }

  /** Removes and returns the oldest entry. */
  shift(): T | undefined {
    for (const [ticket, entry] of this.entries) {
      this.entries.delete(ticket);
      this.resetWhenEmpty();
      return entry.item;
    }
    return undefined;
  }

  /** The earliest expiry, or undefined when no entry expires. */
  nextExpiry(): number | undefined {
    let earliest = Infinity;
    for (const entry of this.entries.values()) {
      if (entry.expiry < earliest) earliest = entry.expiry;
      if (this.monotone) break;
    }
    return earliest === Infinity ? undefined : earliest;
  }

  /** Removes and returns, oldest first, every entry whose expiry is at or before `now`. */
  takeExpired(now: number): T[] {
    const expired: T[] = [];
    for (const [ticket, entry] of this.entries) {
      if (entry.expiry > now) {
        if (this.monotone) break;
        continue;
      }
      this.entries.delete(ticket);
      expired.push(entry.item);
    }
    this.resetWhenEmpty();
    return expired;
  }

  /** Removes and returns every entry, oldest first. */
  clear(): T[] {
    const all = [...this.entries.values()].map((entry) => entry.item);
    this.entries.clear();
    this.resetWhenEmpty();
    return all;
  }

  private resetWhenEmpty(): void {
    if (this.entries.size > 0) return;
    this.monotone = true;
    this.lastExpiry = -Infinity;
  }
}
