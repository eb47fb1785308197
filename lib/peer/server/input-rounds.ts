// The input rounds of ctx.elicit / createMessage / listRoots under 2026-07-28 (MOD-10): a call
// that needs the client's input ends the handler with an input_required result; the client's
// retry carries the answer in inputResponses, and the answers of earlier rounds travel back
// and forth in our (unsealed) requestState.
//
// Invariants: what the client sent back is measured before anything walks or re-encodes it
// (a value nested deeper than maxJsonDepth is refused with -32602, whatever its depth); the
// result of a round is a plain JSON copy or a -32603, never a throw in a later drain.

import type { Engine } from "../../engine/engine.js";
import type { JsonObject, RequestId } from "../../wire/envelope.js";
import { inputRequiredProblem, type ModernRequestInfo } from "../../rules/modern.js";
import { errorMessage } from "../shared/handlers.js";
import { isJsonObject } from "../../wire/envelope.js";
import { ErrorCode } from "../../wire/errors.js";
import { jsonDepthExceeds, toJsonSafe } from "../shared/json-safe.js";

/** Thrown through a modern handler by a call that needs the client's input (see HandlerContext.createMessage and inputRequired). */
export class InputRequiredSignal extends Error {
  constructor(
    readonly requests: JsonObject,
    /** The answers the handler already had (earlier rounds): carried to the next round in requestState. */
    readonly answered: JsonObject | undefined,
    /** The handler's own requestState (ctx.inputRequired), sent as given instead of the carried answers. */
    readonly state?: string,
  ) {
    super("input required");
    Object.setPrototypeOf(this, new.target.prototype); // instanceof through an ES5 down-level
    this.name = "InputRequiredSignal";
  }
}

/**
 * The requestState of ctx.elicit/createMessage/listRoots rounds: the client's own earlier
 * answers, as JSON. Not sealed: a client that altered it could as well have sent other
 * answers in inputResponses, which the handler gets the same way.
 */
export const ANSWERS_STATE = "mcp-engine/answers:";

export type Answers =
  | { readonly ok: true; readonly answers: JsonObject | undefined }
  | { readonly ok: false; readonly code: number; readonly message: string };

/** The answers of every round so far: those carried in our requestState, then the retry's inputResponses; refused when nested too deep. */
export function collectAnswers(params: JsonObject, maxDepth: number): Answers {
  let carried: JsonObject | undefined;
  const state = params.requestState;
  if (typeof state === "string" && state.startsWith(ANSWERS_STATE)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(state.slice(ANSWERS_STATE.length));
    } catch {
      // Not ours after all: no carried answers.
    }
    if (isJsonObject(parsed)) {
      if (jsonDepthExceeds(parsed, maxDepth)) return tooDeep("requestState (the carried answers)", maxDepth);
      carried = parsed;
    }
  }
  const fresh = isJsonObject(params.inputResponses) ? params.inputResponses : undefined;
  if (fresh !== undefined && jsonDepthExceeds(fresh, maxDepth)) return tooDeep("inputResponses", maxDepth);
  return { ok: true, answers: carried === undefined && fresh === undefined ? undefined : { ...carried, ...fresh } };
}

/** The -32602 for a peer value nested deeper than maxDepth. */
export function tooDeep(where: string, maxDepth: number): Answers & { ok: false } {
  return {
    ok: false,
    code: ErrorCode.InvalidParams,
    message: `Invalid params: ${where} nested deeper than ${maxDepth} levels (maxJsonDepth)`,
  };
}

/** The input_required result of a round, as plain JSON, or why it cannot be sent. */
export function inputRequiredResult(
  signal: InputRequiredSignal,
  maxDepth: number,
): { ok: true; result: JsonObject } | { ok: false; reason: string } {
  const result: JsonObject = { resultType: "input_required", inputRequests: signal.requests };
  if (signal.state !== undefined) result.requestState = signal.state;
  else if (signal.answered !== undefined && Object.keys(signal.answered).length > 0) {
    const answered = toJsonSafe(signal.answered, maxDepth);
    if (!answered.ok) return { ok: false, reason: `the answers to carry: ${answered.reason}` };
    result.requestState = ANSWERS_STATE + JSON.stringify(answered.value);
  }
  const safe = toJsonSafe(result, maxDepth + 2);
  if (!safe.ok) return { ok: false, reason: safe.reason };
  return { ok: true, result: safe.value as JsonObject };
}

/** Ends a modern request with its input_required result (MOD-10), or -32021 when the request did not declare what the input needs. */
export function answerInputRequired(
  engine: Engine<"server">,
  id: RequestId,
  method: string,
  modern: ModernRequestInfo,
  signal: InputRequiredSignal,
  maxDepth: number,
): void {
  const built = inputRequiredResult(signal, maxDepth);
  if (!built.ok) {
    engine.respondError(id, ErrorCode.InternalError, `The input_required result cannot be sent as JSON: ${built.reason}`);
    return;
  }
  const result = built.result;
  const problem = inputRequiredProblem(method, result, modern);
  if (problem?.missing !== undefined) {
    engine.respondError(id, ErrorCode.MissingRequiredClientCapability, "Missing required client capability", {
      requiredCapabilities: problem.missing,
    });
    return;
  }
  try {
    engine.respond(id, result);
  } catch (error) {
    engine.respondError(id, ErrorCode.InternalError, errorMessage(error));
  }
}
