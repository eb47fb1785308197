// What the simulation checks, fed by the clients as they read and by the world as it acts:
// every request answered exactly once (or failed with a typed error); no event of a stream
// lost, duplicated or reordered on it or on its resumption; no id reused (sessions,
// server-to-client requests of a session, stream events); ended tasks stay ended; the store
// and the tables within their budgets; a session ended on one node ended on all of them.
//
// Invariants: a violation names its kind (what the reproducers in regressions.ts are keyed
// by) and what was expected versus what arrived; the liveness checks (an answer arrives, a
// notification arrives) run only at the end of an episode whose faults could not lose it.

import { BUDGET, type World } from "./world.js";
import { splitEventId, type Frame, type Json } from "./wire.js";

export type ViolationKind =
  | "answer-duplicated"
  | "unanswered"
  | "stream-ended-early"
  | "event-reordered"
  | "event-lost"
  | "event-changed"
  | "server-request-id-reused"
  | "session-id-reused"
  | "notification-lost"
  | "notification-duplicated"
  | "task-revived"
  | "budget"
  | "ended-not-everywhere"
  | "server-error"
  | "timer-storm";

export interface Violation {
  readonly kind: ViolationKind;
  readonly detail: string;
}

interface RequestRecord {
  readonly label: string;
  answers: number;
  /** Settled otherwise: a typed error, the session ended, or its answer may be lost by the episode's faults. */
  excused: boolean;
}

/** One read of one SSE stream (a POST's, a GET's, or a resumption after `after`). */
export interface StreamRead {
  readonly session: string;
  /** The seq the resumption asked to follow (Last-Event-ID), or undefined for a fresh stream. */
  readonly after: { stream: string; seq: number } | undefined;
  last: { stream: string; seq: number } | undefined;
}

export class Oracle {
  readonly violations: Violation[] = [];
  private readonly requests = new Map<string, RequestRecord>();
  private readonly sessionIds = new Set<string>();
  /** Per session: server-request id -> the text of the request that first used it. */
  private readonly serverRequests = new Map<string, Map<string, string>>();
  /** Per session and stream: seq -> the event's text. */
  private readonly events = new Map<string, Map<number, string>>();
  private readonly endedTasks = new Map<string, string>();

  constructor(private readonly world: World) {}

  fail(kind: ViolationKind, detail: string): void {
    this.violations.push({ kind, detail });
  }

  request(key: string, label: string): void {
    this.requests.set(key, { label, answers: 0, excused: false });
  }

  answered(key: string, message: Json): void {
    const record = this.requests.get(key);
    if (record === undefined) return;
    record.answers++;
    if (record.answers > 1)
      this.fail(
        "answer-duplicated",
        `${record.label} (${key}): expected one answer; got ${record.answers}: ${JSON.stringify(message).slice(0, 120)}`,
      );
  }

  excuse(key: string): void {
    const record = this.requests.get(key);
    if (record !== undefined) record.excused = true;
  }

  isAnswered(key: string): boolean {
    return (this.requests.get(key)?.answers ?? 0) > 0;
  }

  sessionMinted(id: string): void {
    if (this.sessionIds.has(id)) this.fail("session-id-reused", `expected a new session id; got ${id} again`);
    this.sessionIds.add(id);
  }

  /** A frame of a read stream: its order against what that read saw, its text against every other read of the stream. */
  frame(read: StreamRead, frame: Frame): void {
    if (frame.id === undefined) return;
    const at = splitEventId(frame.id);
    if (at === undefined) return;
    const text = JSON.stringify(frame.message ?? null);
    const key = `${read.session} ${at.stream}`;
    let seen = this.events.get(key);
    if (seen === undefined) this.events.set(key, (seen = new Map()));
    const before = seen.get(at.seq);
    if (before !== undefined && before !== text)
      this.fail("event-changed", `${frame.id}: expected the event seen before (${before.slice(0, 80)}); got ${text.slice(0, 80)}`);
    seen.set(at.seq, text);
    const last = read.last ?? read.after;
    if (last !== undefined && last.stream === at.stream) {
      // A budget's eviction, a store restart or a failed append takes events out of replay: a gap then is no loss.
      const evicted = this.world.data.evicted.has(key) || this.world.data.restarts > 0 || this.world.data.failedCalls > 0;
      if (at.seq <= last.seq) this.fail("event-reordered", `${frame.id}: expected an event after seq ${last.seq} of ${at.stream}`);
      else if (at.seq > last.seq + 1 && !evicted)
        this.fail("event-lost", `${frame.id}: expected seq ${last.seq + 1} of ${at.stream} next (nothing was evicted); got ${at.seq}`);
    }
    read.last = at;
  }

  /** A server-to-client request seen on a session's stream: its id must name it alone. */
  serverRequest(session: string, message: Json): void {
    const id = JSON.stringify(message.id);
    let ids = this.serverRequests.get(session);
    if (ids === undefined) this.serverRequests.set(session, (ids = new Map()));
    const text = JSON.stringify({ method: message.method, params: message.params });
    const before = ids.get(id);
    if (before !== undefined && before !== text)
      this.fail(
        "server-request-id-reused",
        `session ${session}: expected id ${id} to name one request; it named ${before.slice(0, 90)} and ${text.slice(0, 90)}`,
      );
    ids.set(id, text);
  }

  task(task: Json): void {
    const id = String(task.taskId);
    const status = String(task.status);
    const ended = this.endedTasks.get(id);
    if (ended !== undefined && ended !== status) this.fail("task-revived", `task ${id}: expected it to stay ${ended}; got ${status}`);
    if (ended === undefined && (status === "completed" || status === "failed" || status === "cancelled")) this.endedTasks.set(id, status);
  }

  /** After every step: the store and the nodes' tables within their budgets. */
  checkBudgets(): void {
    const data = this.world.data;
    const sessions = data.sessionBytes();
    if (sessions > BUDGET.maxTotalSnapshotBytes)
      this.fail("budget", `session store: expected at most ${BUDGET.maxTotalSnapshotBytes} bytes; got ${sessions}`);
    const events = data.eventBytes();
    if (events > BUDGET.maxTotalEventBytes + 16 * 1024)
      this.fail("budget", `event store: expected at most ${BUDGET.maxTotalEventBytes} bytes; got ${events}`);
    for (const node of this.world.liveNodes()) {
      const held = node.handler.endpoint.sessions.size;
      if (held > BUDGET.maxSessions)
        this.fail("budget", `${node.nodeId}: expected at most ${BUDGET.maxSessions} sessions held; got ${held}`);
    }
  }

  /** At the end: every request not excused was answered. */
  checkAnswered(): void {
    for (const [key, record] of this.requests)
      if (record.answers === 0 && !record.excused)
        this.fail("unanswered", `${record.label} (${key}): expected an answer or a typed error; got neither`);
  }
}
