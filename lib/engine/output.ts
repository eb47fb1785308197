// What an engine has to say: the outbound queue (each message with the inbound request it
// relates to, for transports with several streams), the event queue, and the forms replies
// take: plain, inside a 2025-03-26 batch reply, or an error whose request id could not be read.
//
// Invariants:
// - queues are ring buffers (lib/engine/queue.ts): no shift() on arrays, nothing copied;
// - a batch's replies leave as one array, once every request of the batch has its answer
//   and the batch itself has been read to its end (M-09); a batch of notifications only
//   gets no reply at all;
// - an error reply without a readable id carries `"id": null` or no id, as the version
//   profile in force says (unreadableErrorId);
// - takeBytes never throws for a message JSON cannot encode: that message alone is refused
//   (ENG-09, lib/wire/outbound-json.ts) and reported; the rest of the drain goes out.

import type { ErrorObject, JsonRpcErrorResponse, JsonRpcMessage, RequestId } from "../wire/envelope.js";
import { ErrorCode } from "../wire/errors.js";
import type { EngineEvent } from "./events.js";
import type { Outbound } from "./engine-types.js";
import type { LineFacts } from "../wire/line-scan.js";
import { LineEncoder } from "../wire/line-encoder.js";
import { envelopeJson, isBare, writeMessage } from "../wire/outbound-bytes.js";
import { outboundJson, type Refusal } from "../wire/outbound-json.js";
import { Queue } from "./queue.js";
import type { VersionProfile } from "../rules/versions.js";

/** The replies of one inbound batch, collected until every request in it is answered. */
export interface BatchGroup {
  /** Replies still owed for requests of this batch. */
  remaining: number;
  /** Still being read: replies may not be flushed yet. */
  open: boolean;
  readonly replies: JsonRpcMessage[];
}

/** A refusal with the code owed to the peer. */
export interface OwedRefusal {
  readonly code: number;
  readonly rule: string;
  readonly expected: string;
  readonly got: string;
}

function describeId(id: RequestId | null | undefined): string {
  return id === undefined ? "(no id)" : JSON.stringify(id);
}

function refusalMessage(code: number): string {
  switch (code) {
    case ErrorCode.MethodNotFound:
      return "Method not found";
    case ErrorCode.InvalidParams:
      return "Invalid params";
    case ErrorCode.InternalError:
      return "Too many requests in flight";
    default:
      return "Invalid request";
  }
}

export class Output {
  private readonly outbound = new Queue<JsonRpcMessage | readonly JsonRpcMessage[]>();
  /** In step with `outbound`: the inbound request each message relates to (wrappers are made only by pollOutbound). */
  private readonly outboundRelated = new Queue<RequestId | undefined>();
  readonly events: Queue<EngineEvent> = new Queue<EngineEvent>();
  /** takeBytes' buffer: see lib/wire/line-encoder.ts for why handed-out bytes never change. */
  private readonly lines = new LineEncoder();
  /** The profile whose error-id form applies (set at negotiation; before it, the default version's). */
  profile: VersionProfile | undefined;
  /** false for a 2026-07-28 client (MOD-21): error replies are dropped, and violations say no code was sent. */
  writesResponses = true;

  queue(message: JsonRpcMessage, related: RequestId | undefined): void {
    this.outbound.push(message);
    this.outboundRelated.push(related);
  }

  reply(msg: JsonRpcMessage, group: BatchGroup | undefined, related: RequestId | undefined): void {
    if (group === undefined) {
      this.queue(msg, related);
      return;
    }
    group.replies.push(msg);
    group.remaining--;
    this.flushGroup(group);
  }

  replyError(id: RequestId | null, code: number, message: string, group: BatchGroup | undefined, data: unknown): void {
    if (!this.writesResponses) return;
    const error: ErrorObject = data === undefined ? { code, message } : { code, message, data };
    let msg: JsonRpcErrorResponse;
    if (id !== null) msg = { jsonrpc: "2.0", id, error };
    else if (this.profile !== undefined && this.profile.unreadableErrorId === "omit") msg = { jsonrpc: "2.0", error };
    else msg = { jsonrpc: "2.0", id: null, error };
    this.reply(msg, group, id ?? undefined);
  }

  /** The owed error reply, then the violation event. */
  refuse(id: RequestId, method: string, group: BatchGroup | undefined, refusal: OwedRefusal): void {
    this.replyError(id, refusal.code, refusalMessage(refusal.code), group, undefined);
    this.violation(refusal.rule, refusal.expected, refusal.got, refusal.code, id, method);
  }

  violation(
    rule: string,
    expected: string,
    got: string,
    code: number | undefined,
    id: RequestId | undefined,
    method: string | undefined,
  ): void {
    this.events.push({ kind: "violation", rule, expected, got, code: this.writesResponses ? code : undefined, id, method });
  }

  diagnostic(rule: string, expected: string, got: string, method: string | undefined, error?: ErrorObject): void {
    this.events.push({ kind: "diagnostic", rule, expected, got, method, error });
  }

  /**
   * M-09: whether a batch may be read (allowed by the version profile, not nested, 1 to
   * `max` entries, LIM-08); when not, its one -32600 (no id) is queued and the violation reported.
   */
  acceptBatch(length: number, outer: BatchGroup | undefined, allowed: boolean, max: number, version: string | undefined): boolean {
    let problem: string | undefined;
    if (outer !== undefined) problem = "a batch nested in a batch";
    else if (!allowed) problem = `a batch under ${version ?? "a version not yet negotiated"}`;
    else if (length === 0) problem = "an empty batch";
    else if (length > max) problem = `a batch of ${length} entries (limit ${max})`;
    if (problem === undefined) return true;
    if (outer !== undefined) outer.remaining++;
    this.replyError(null, ErrorCode.InvalidRequest, "Invalid request", outer, undefined);
    const expected = outer === undefined && allowed ? `a batch of 1 to ${max} entries` : "a single message (batches only under 2025-03-26)";
    this.violation("M-09", expected, problem, ErrorCode.InvalidRequest, undefined, undefined);
    return false;
  }

  /**
   * LIM-01: a line over the limit that answers none of our requests: a request is refused with
   * its own id, a notification gets nothing, anything else -32600 with no readable id.
   */
  refuseOverlong(facts: LineFacts | undefined, line: number, limit: number): void {
    const got = facts === undefined ? `line ${line} longer` : `line ${line} of ${facts.bytes} bytes`;
    const owed = facts === undefined || !facts.hasMethod || facts.hasId;
    if (owed) this.replyError(facts?.id ?? null, ErrorCode.InvalidRequest, `Line exceeds maxLineBytes (${limit})`, undefined, undefined);
    this.violation("LIM-01", `lines of at most ${limit} bytes`, got, owed ? ErrorCode.InvalidRequest : undefined, facts?.id, undefined);
  }

  /** A batch whose replies are all in leaves as one array. */
  flushGroup(group: BatchGroup): void {
    if (group.open || group.remaining > 0 || group.replies.length === 0) return;
    this.outbound.push(group.replies);
    this.outboundRelated.push(undefined);
  }

  // ── drained by the host (category D) ──────────────────────────────────────────

  pollOutbound(): Outbound | undefined {
    const message = this.outbound.shift();
    if (message === undefined) return undefined;
    return { message, relatedRequestId: this.outboundRelated.shift() };
  }

  takeBytes(): Uint8Array | undefined {
    if (this.outbound.length === 0) return undefined;
    const { lines } = this;
    lines.begin();
    if (this.outbound.length === 1) {
      this.outboundRelated.shift();
      const message = this.outbound.shift() as JsonRpcMessage;
      if (!writeMessage(lines, message, this.refused)) {
        const text = outboundJson(message, this.refused);
        if (text !== undefined) lines.write(text, true);
      }
    } else {
      this.writeAll();
    }
    if (this.refused.length > 0) this.reportRefused();
    return lines.take();
  }

  /**
   * Several messages. Those writeMessage writes without a stringify (ping answers, requests
   * and notifications without params) go as bytes; the others' JSON (envelopeJson: their
   * envelope's constant text around one stringify of the payload) is concatenated and encoded
   * in one call per run of them (measured: cheaper than writing each one's payload as it
   * comes). A method of its own, so V8 inlines the one-message path of takeBytes whole.
   */
  private writeAll(): void {
    const { lines } = this;
    let text = "";
    for (let m = this.outbound.shift(); m !== undefined; m = this.outbound.shift()) {
      this.outboundRelated.shift();
      if (isBare(m)) {
        if (text !== "") {
          lines.write(text, false);
          text = "";
        }
        if (writeMessage(lines, m, this.refused)) continue;
      }
      const json = envelopeJson(m, this.refused) ?? outboundJson(m, this.refused);
      if (json !== undefined && json !== "") text += json + "\n";
    }
    if (text !== "") lines.write(text, false);
  }

  /** Refusals of the drain in progress (ENG-09); empty between drains. */
  private readonly refused: Refusal[] = [];

  private reportRefused(): void {
    for (const r of this.refused) {
      const what =
        r.method === undefined
          ? `the answer to request ${describeId(r.id)}, sent as -32603 instead`
          : `${r.method}${r.id === undefined ? "" : ` (id ${describeId(r.id)})`}, dropped`;
      this.diagnostic("ENG-09", "outbound messages JSON can encode", `${what}: ${r.reason}`, r.method);
    }
    this.refused.length = 0;
  }

  pollEvent(): EngineEvent | undefined {
    return this.events.shift();
  }

  takeEvents(into: EngineEvent[]): void {
    this.events.drainInto(into);
  }
}
