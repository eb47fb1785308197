// The task status machine's tables (RULES.md TK-02, LIM-04, P-08): the statuses and the moves
// allowed between them, and the bounded record of the tasks of one direction of a session.
//
// Invariants: a table never holds more than its `max` records; a full table fed by the peer
// refuses a new task rather than forget a live one; each task that ends is queued exactly once
// for the release of its creator's progress token. Statuses and task ids come from the peer, so
// every lookup goes through a Map or a Set.

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

export const TERMINAL: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"]);

/** TK-02: allowed moves; terminal states have none. A Map: statuses come from the peer. */
export const TASK_MOVES: ReadonlyMap<string, readonly string[]> = new Map([
  ["working", ["working", "input_required", "completed", "failed", "cancelled"]],
  ["input_required", ["input_required", "working", "completed", "failed", "cancelled"]],
]);

export const TASK_STATUSES: ReadonlySet<string> = new Set(["working", "input_required", "completed", "failed", "cancelled"]);

export interface TaskRecord {
  status: string;
  /** The progress token of the request that created the task (P-08), if any. */
  readonly token: string | number | undefined;
  /** The last progress sent for it (receiver side); undefined: none yet. */
  lastProgress: number | undefined;
  /** The token was released once the task ended (requestor side). */
  tokenReleased: boolean;
  /** When the task ended, from the lastUpdatedAt that reported the end (ms); undefined while it runs or when the end came without a usable time. */
  endedAt: number | undefined;
}

/** A task's ISO 8601 timestamp as ms since the epoch; undefined when it is absent or unreadable (Date.parse never throws). */
export function timeOf(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * The task records of one direction, bounded: ended tasks are forgotten first (oldest first);
 * live ones only when `evictLive` (tables we feed). Tasks that end are queued once for the
 * release of their creator's progress token, so no walk over every record is ever needed.
 */
export class TaskTable {
  private readonly records = new Map<string, TaskRecord>();
  /** Ids of ended tasks, in the order they ended. */
  private readonly ended = new Set<string>();
  private readonly endedWithToken: TaskRecord[] = [];

  constructor(
    private readonly max: number,
    private readonly evictLive: boolean,
  ) {}

  get size(): number {
    return this.records.size;
  }

  get(taskId: string): TaskRecord | undefined {
    return this.records.get(taskId);
  }

  /** Records a task (or its new status); false when the table is full and nothing may be forgotten. */
  put(taskId: string, status: string, token: string | number | undefined, updatedAt?: number): boolean {
    const known = this.records.get(taskId);
    if (known !== undefined) {
      this.move(taskId, known, status, updatedAt);
      return true;
    }
    if (this.records.size >= this.max && !this.forgetOne()) return false;
    const record: TaskRecord = { status: "working", token, lastProgress: undefined, tokenReleased: false, endedAt: undefined };
    this.records.set(taskId, record);
    this.move(taskId, record, status, updatedAt);
    return true;
  }

  /** Moves the tokens of tasks ended since the last call into `into` (P-08). */
  takeEndedTokens(into: Array<string | number>): void {
    for (const record of this.endedWithToken) {
      record.tokenReleased = true;
      if (record.token !== undefined) into.push(record.token);
    }
    this.endedWithToken.length = 0;
  }

  private move(taskId: string, record: TaskRecord, status: string, updatedAt: number | undefined): void {
    record.status = status;
    if (!TERMINAL.has(status) || this.ended.has(taskId)) return;
    record.endedAt = updatedAt;
    this.ended.add(taskId);
    if (!record.tokenReleased) this.endedWithToken.push(record);
  }

  private forgetOne(): boolean {
    let victim: string | undefined = this.ended.keys().next().value;
    if (victim === undefined) {
      if (!this.evictLive) return false;
      victim = this.records.keys().next().value as string;
    }
    this.ended.delete(victim);
    this.records.delete(victim);
    return true;
  }
}
