// The peer's requests awaiting our answer (ID-03, ID-04, X-04, X-05, L-03): who asked what,
// with which progress token, in which batch, and those the peer cancelled (so that a late
// answer of our host's is dropped silently instead of refused).

import type { JsonObject, RequestId } from "../wire/envelope.js";
import { describeValue, LocalProtocolError } from "../wire/errors.js";
import { IdTable } from "./idtable.js";
import type { ModernRequestInfo } from "../rules/modern.js";
import { remember } from "./outbound-requests.js";
import type { BatchGroup } from "./output.js";
import type { ProgressToken } from "../types/base.js";

export interface PendingIn {
  readonly id: RequestId;
  readonly method: string;
  readonly params: JsonObject | undefined;
  /** What a modern request said about its client; undefined in the session era. */
  readonly modern: ModernRequestInfo | undefined;
  readonly token: ProgressToken | undefined;
  readonly group: BatchGroup | undefined;
  /** The last progress sent (undefined: none yet). */
  lastProgressSent: number | undefined;
}

export class InboundRequests {
  private readonly pending = new IdTable<PendingIn>();
  private readonly cancelled = new Set<RequestId>();

  get size(): number {
    return this.pending.size;
  }

  has(id: RequestId): boolean {
    return this.pending.has(id);
  }

  get(id: RequestId): PendingIn | undefined {
    return this.pending.get(id);
  }

  add(
    id: RequestId,
    method: string,
    params: JsonObject | undefined,
    modern: ModernRequestInfo | undefined,
    token: ProgressToken | undefined,
    group: BatchGroup | undefined,
  ): PendingIn {
    const entry: PendingIn = { id, method, params, modern, token, group, lastProgressSent: undefined };
    this.pending.set(id, entry);
    return entry;
  }

  delete(id: RequestId): void {
    this.pending.delete(id);
  }

  /**
   * The request our host answers now, removed; undefined when the peer had cancelled it
   * the answer is dropped). Throws for ids not in flight (ID-04).
   */
  take(id: RequestId): PendingIn | undefined {
    const pending = this.pending.get(id);
    if (pending === undefined) {
      if (this.cancelled.delete(id)) return undefined;
      throw new LocalProtocolError({ rule: "ID-04", expected: "the id of a peer request in flight", got: describeValue(id) });
    }
    this.pending.delete(id);
    return pending;
  }

  /** the request the peer cancels, removed and remembered; undefined for unknown ids and for requests that cannot be cancelled. */
  cancel(id: RequestId, cancellable: (method: string) => boolean): PendingIn | undefined {
    const pending = this.pending.get(id);
    if (pending === undefined || !cancellable(pending.method)) return undefined;
    this.pending.delete(id);
    remember(this.cancelled, id);
    return pending;
  }

  clear(): void {
    this.pending.clear();
  }
}
