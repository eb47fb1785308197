// The client's side of multi round-trip requests (2026-07-28, MOD-10): while the server answers
// input_required, each of its input requests is fulfilled by our handler for that method and
// the request is retried (a new id) with inputResponses and the requestState echoed.
//
// Invariants: at most maxRounds rounds and maxInputRequests input requests per round (both
// server-fed: past them the call fails, nothing grows); the call's maxTotalMs covers every
// round; the server's keys are kept as keys ("__proto__" included), never set on a plain object.

import type { JsonObject } from "../../wire/envelope.js";
import type { ServerRequestHandler } from "./client-options.js";
import { InputRoundsExceededError, InvalidResultError, RequestTimeoutError } from "../shared/errors.js";
import { PeerAbortController, type AbortSignalLike } from "../shared/signal.js";
import type { CallOptions } from "../shared/call-options.js";

export interface InputRounds {
  send(method: string, params: JsonObject | undefined, options: CallOptions): Promise<JsonObject>;
  now(): number;
  readonly handlers: ReadonlyMap<string, ServerRequestHandler<JsonObject | undefined, object>>;
}

/** Sends `method` and runs its input rounds to the final result. */
export async function requestWithInput(
  rounds: InputRounds,
  method: string,
  params: JsonObject | undefined,
  options: CallOptions,
  maxRounds: number,
  maxInputRequests: number,
): Promise<JsonObject> {
  const started = rounds.now();
  let current = params;
  for (let round = 1; ; round++) {
    let callOptions = options;
    if (options.maxTotalMs !== undefined) {
      const left = options.maxTotalMs - (rounds.now() - started);
      if (left <= 0) throw new RequestTimeoutError(method, "(input rounds)", "total", options.maxTotalMs);
      callOptions = { ...options, maxTotalMs: left };
    }
    const result = await rounds.send(method, current, callOptions);
    if (result.resultType !== "input_required") return result;
    if (round >= maxRounds) throw new InputRoundsExceededError(method, maxRounds);
    const inputResponses = await fulfil(rounds, method, result.inputRequests, options.signal, maxInputRequests);
    const retry: JsonObject = { ...params, inputResponses };
    if (typeof result.requestState === "string") retry.requestState = result.requestState;
    current = retry;
  }
}

/** Answers each input request with the handler for its method; one without a handler fails the call. */
export async function fulfil(
  rounds: Pick<InputRounds, "handlers">,
  method: string,
  inputRequests: unknown,
  signal: AbortSignalLike | undefined,
  max: number,
): Promise<JsonObject> {
  // The keys are the server's: collected in a Map, so "__proto__" stays a key like any other.
  const responses = new Map<string, unknown>();
  const requests =
    typeof inputRequests === "object" && inputRequests !== null ? Object.entries(inputRequests as { [key: string]: unknown }) : [];
  if (requests.length > max)
    throw new InvalidResultError(method, "result.inputRequests", `at most ${max} input requests (maxInputRequests)`, `${requests.length}`);
  for (const [key, entry] of requests) {
    const request = (typeof entry === "object" && entry !== null ? entry : {}) as { method?: unknown; params?: unknown };
    const inputMethod = String(request.method);
    const handler = rounds.handlers.get(inputMethod);
    // Not the server's error answer but ours to give: the call fails locally (the server asked what we cannot do, or we declared a capability without its handler).
    if (handler === undefined)
      throw new InvalidResultError(
        method,
        `result.inputRequests[${JSON.stringify(key).slice(0, 80)}].method`,
        "an input request this client has a handler for (setRequestHandler)",
        inputMethod.slice(0, 80),
      );
    const controller = new PeerAbortController();
    const onAbort = (): void => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      responses.set(key, await handler(request.params as JsonObject | undefined, { requestId: key, signal: controller.signal }));
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }
  return Object.fromEntries(responses) as JsonObject;
}
