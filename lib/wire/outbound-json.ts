// The JSON text of one queued outbound message, refusing a message JSON cannot encode
// (ENG-09) instead of throwing out of the drain.
//
// A host hands the engine values (results, error data, params) that are encoded later, when
// the queue is drained: a BigInt, a cycle, or a toJSON or getter that throws would make
// JSON.stringify throw there, in the middle of a drain that has already dequeued other
// messages. Here only the message that fails is refused: the answer to a peer's request becomes
// a -32603 error for that request (the peer is owed an answer, and its id is the peer's own,
// always encodable), any other message of ours (a request, a notification) is dropped, and
// each refusal is recorded for a diagnostic. Inside a batch reply only the failing answers are
// replaced. The usual message costs one JSON.stringify: nothing is checked until
// it throws.
//
// Invariants: nothing here throws (what a failing value threw is described without calling
// anything on it but its message, in a try); a refused answer keeps the id and place of the
// message it replaces.

import type { JsonRpcMessage, RequestId } from "./envelope.js";
import { ErrorCode } from "./errors.js";

/** One message refused by outboundJson: what it was and why, for the diagnostic. */
export interface Refusal {
  /** The method of a request or notification dropped; undefined for an answer replaced by -32603. */
  readonly method: string | undefined;
  readonly id: RequestId | null | undefined;
  readonly reason: string;
}

/** Longest reason quoted in a -32603 message or a diagnostic. */
const MAX_REASON = 200;

/** JSON of a queued message (one, or a batch reply); undefined when the whole of it was dropped. Appends every refusal to `refused`. */
export function outboundJson(message: JsonRpcMessage | readonly JsonRpcMessage[], refused: Refusal[]): string | undefined {
  try {
    return JSON.stringify(message);
  } catch (error) {
    return Array.isArray(message) ? batchJson(message, refused) : refuse(message as JsonRpcMessage, error, refused);
  }
}

function batchJson(replies: readonly JsonRpcMessage[], refused: Refusal[]): string | undefined {
  const parts: string[] = [];
  for (const reply of replies) {
    const text = outboundJson(reply, refused);
    if (text !== undefined) parts.push(text);
  }
  return parts.length === 0 ? undefined : `[${parts.join(",")}]`;
}

/** The refusal of one message (not a batch) whose encoding threw `error`: the -32603 answer's JSON, or undefined when the message is dropped. */
export function refuse(message: JsonRpcMessage, error: unknown, refused: Refusal[]): string | undefined {
  const m = message as { readonly id?: RequestId | null; readonly method?: unknown };
  const reason = describeThrown(error);
  if (typeof m.method === "string") {
    refused.push({ method: m.method, id: m.id, reason });
    return undefined;
  }
  // An answer (result or error) to a peer's request: still answered, with -32603.
  refused.push({ method: undefined, id: m.id, reason });
  const error32603 = { code: ErrorCode.InternalError, message: `The response cannot be encoded as JSON: ${reason}` };
  return JSON.stringify(m.id === undefined ? { jsonrpc: "2.0", error: error32603 } : { jsonrpc: "2.0", id: m.id, error: error32603 });
}

/** What was thrown, as short text, reading nothing but an Error's message (in a try: a getter may throw again). */
function describeThrown(error: unknown): string {
  let text: string;
  try {
    if (error instanceof Error) text = typeof error.message === "string" && error.message !== "" ? error.message : error.name;
    else text = typeof error === "string" ? error : `a thrown ${typeof error}`;
  } catch {
    text = "an error whose message could not be read";
  }
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON)}…` : text;
}
