// CL-07: a stream resumed with Last-Event-ID on a node that did not write it. The writer
// appends every event to the shared EventStore; this reader replays what is stored after the
// client's last event and then tails the store each time the writer announces an append
// ("appended" on the bus), until the writer says the stream is done or is gone.
//
// Invariants:
// - one reader per stream: the reader claims the stream on the bus ("follow"); the writer
//   serves it unless a client is attached to the writer itself (a client resumes only a
//   stream it lost, so such a claim is older than that client's resume, delayed on the bus),
//   and names the reader it serves, and how many claims it has had, in every "appended", so
//   a reader the writer served once ends on news of a later claim (here or elsewhere), and
//   news from before its own claim is ignored;
// - events go out once and in order: reads of the store are one at a time, and only events
//   past the last one written go out, oldest first (bus messages duplicated, reordered or
//   dropped change nothing but when a read happens);
// - a writer that answers nothing for FOLLOW_CHECK_MS (its node died) ends the reader after
//   a last read: the client may resume again; a reader whose client went away stops at once.

import { SSE_HEADERS } from "../http/sse-encoder.js";
import { HttpStatus } from "../http/status.js";
import type { HttpReply } from "./channel.js";
import type { BusMessage } from "./bus.js";
import type { StoredEvent } from "./options.js";
import { isThenable, type HttpSession } from "./session.js";

/** How often a reader asks whether the writer is still there, ms; no answer in that time ends it. */
export const FOLLOW_CHECK_MS = 2000;

/** What a reader needs of its endpoint. */
export interface FollowHost {
  publish(message: BusMessage): void;
  readerToken(): string;
}

export class Follower {
  readonly token: string;
  private last: number;
  private reading = false;
  private again = false;
  /** The writer said the stream is done: one more read, then the end. */
  private done = false;
  private heard = true;
  /** The claim count the writer gave this reader (undefined until it answered this reader's claim). */
  private mine: number | undefined;
  private timer: unknown;
  private stopped = false;
  /** Set while nothing is known of the stream (the store had none of it yet): called instead of answering if it stays so. */
  private unknown: (() => void) | undefined;
  private headed = false;

  constructor(
    private readonly host: FollowHost,
    private readonly session: HttpSession,
    readonly streamId: string,
    after: number,
    private readonly res: HttpReply,
  ) {
    this.last = after;
    this.token = host.readerToken();
  }

  /**
   * Writes the head, replays `stored` (the store's answer, already read), claims the stream and
   * tails it. With `stored` undefined (the store holds none of the stream yet: the writer's
   * appends may still be on their way), the head waits until the writer says it writes the
   * stream or the store has some of it; `unknown` answers instead when neither comes.
   */
  start(stored: readonly StoredEvent[] | undefined, unknown?: () => void): void {
    const session = this.session;
    session.followers.get(this.streamId)?.end();
    session.followers.set(this.streamId, this);
    this.res.onClose(() => this.stop());
    if (stored === undefined) this.unknown = unknown;
    else {
      this.open();
      this.write(stored);
    }
    this.host.publish({ kind: "follow", session: session.id, stream: this.streamId, reader: this.token, claim: true });
    this.arm();
  }

  private open(): void {
    this.unknown = undefined;
    if (this.headed) return;
    this.headed = true;
    this.res.head(HttpStatus.ok, SSE_HEADERS);
    this.res.flush();
  }

  /** The writer's news. */
  heardFrom(message: Extract<BusMessage, { kind: "appended" }>): void {
    if (this.stopped) return;
    if (message.reader !== this.token) {
      // A later claim (another reader): this one ends, the client resumes if it still cares. News from before this
      // reader's claim reached the writer says nothing.
      if (this.mine !== undefined && message.claims > this.mine) this.end();
      return;
    }
    this.heard = true;
    // No claim counted: the writer does not know the stream (gone, or restarted); what the store holds is all there is.
    if (message.claims === 0) this.done = true;
    else if (this.unknown !== undefined) this.open();
    this.mine = Math.max(this.mine ?? 0, message.claims);
    if (message.done) this.done = true;
    this.read();
  }

  end(): void {
    if (this.stopped) return;
    const unknown = this.unknown;
    this.stop();
    if (unknown !== undefined) unknown();
    else this.res.end();
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer !== undefined) this.session.http.timers.clearTimeout(this.timer);
    if (this.session.followers.get(this.streamId) === this) this.session.followers.delete(this.streamId);
  }

  private arm(): void {
    this.timer = this.session.http.timers.setTimeout(() => {
      if (this.stopped) return;
      if (!this.heard) {
        // The writer is gone: what the store holds is all there will be.
        this.done = true;
        this.read();
        return;
      }
      this.heard = false;
      this.host.publish({ kind: "follow", session: this.session.id, stream: this.streamId, reader: this.token, claim: false });
      this.arm();
    }, FOLLOW_CHECK_MS);
  }

  /** Reads the store past the last event written; one read at a time, another after it when news came meanwhile. */
  private read(): void {
    if (this.stopped) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    this.again = false;
    const finishing = this.done;
    const after = (events: readonly StoredEvent[] | undefined): void => {
      this.reading = false;
      this.write(events ?? []);
      if (finishing) this.end();
      else if (this.again || this.done) this.read();
    };
    const found = this.session.replay(this.streamId, this.last);
    if (!isThenable(found)) {
      after(found);
      return;
    }
    found.then(after, (error: unknown) => {
      this.session.http.options.onError(error);
      after(undefined);
    });
  }

  private write(events: readonly StoredEvent[]): void {
    if (this.stopped || events.length === 0) return;
    this.open();
    for (const event of [...events].sort((x, y) => x.seq - y.seq)) {
      if (event.seq <= this.last) continue;
      this.last = event.seq;
      this.res.write(event.text);
    }
  }
}
