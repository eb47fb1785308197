// Work kept across the input rounds of 2026-07-28 (MOD-10). There a handler that calls
// ctx.elicit / createMessage / listRoots ends with an input_required result, and the client's
// retry is a new request that runs the handler again from the top, with the answers so far:
// whatever the handler did before its first input request runs once per round. ctx.once(key,
// fn) runs fn in the first round only; its value travels to the next rounds in requestState,
// sealed by the RoundSealer of ServerOptions.inputRounds (round-sealing.ts: HMAC-SHA-256, an
// expiry, and a binding to the method, the tool / prompt / resource, the arguments and the
// principal), so a client can neither forge a value nor replay one on another request. In the session era a handler runs once, and ctx.once only memoizes.
// The seal protects integrity, not secrecy: a client can read what the state carries (base64url
// JSON), so a once value must not hold a secret.
//
// Invariants: a sealed state that was altered, has expired or belongs to another request is
// refused with -32602 before the handler runs; the once values and carried answers are JSON
// copies; without ServerOptions.inputRounds (no sealer) the answers travel unsealed as before
// (input-rounds.ts) and ctx.once under 2026-07-28 rejects, saying what to configure; nothing
// here reads a clock (`now` comes from the host) or holds state beyond one request.

import type { JsonObject } from "../../wire/envelope.js";
import { isJsonObject } from "../../wire/envelope.js";
import { ErrorCode } from "../../wire/errors.js";
import { InputRequiredSignal, collectAnswers, tooDeep } from "./input-rounds.js";
import { jsonDepthExceeds, toJsonSafe } from "../shared/json-safe.js";
import type { RoundSealer } from "./round-sealing.js";

/** The prefix of a sealed round state (the unsealed one is input-rounds.ts's ANSWERS_STATE). */
export const SEALED_ROUNDS = "mcp-engine/rounds:";

export type OpenedRounds =
  | { readonly ok: true; readonly rounds: RoundState }
  | { readonly ok: false; readonly code: number; readonly message: string; readonly data?: JsonObject };

/**
 * The answers and once values of the rounds so far, from the retry's requestState and
 * inputResponses; a sealed state is verified against the request's binding first (computed
 * only when sealing is configured: it hashes the arguments). Never throws.
 */
export function openRounds(
  params: JsonObject,
  maxDepth: number,
  sealer: RoundSealer | undefined,
  bindingOf: () => string,
  now: number,
): OpenedRounds {
  const state = params.requestState;
  const binding = sealer === undefined ? "" : bindingOf();
  if (sealer === undefined || typeof state !== "string" || !state.startsWith(SEALED_ROUNDS)) {
    const collected = collectAnswers(params, maxDepth);
    if (!collected.ok) return collected;
    return { ok: true, rounds: new RoundState(sealer, binding, now, collected.answers, undefined) };
  }
  const opened = sealer.open(state.slice(SEALED_ROUNDS.length), binding, now);
  if (!opened.ok)
    return {
      ok: false,
      code: ErrorCode.InvalidParams,
      message: `Invalid params: requestState refused (${opened.reason}): expected the sealed state this server issued for this request, unaltered and unexpired`,
      data: { reason: opened.reason },
    };
  const payload = opened.payload as { a?: unknown; o?: unknown };
  const carried = isJsonObject(payload) && isJsonObject(payload.a) ? payload.a : undefined;
  const once = isJsonObject(payload) && isJsonObject(payload.o) ? payload.o : undefined;
  const fresh = isJsonObject(params.inputResponses) ? params.inputResponses : undefined;
  if (fresh !== undefined && jsonDepthExceeds(fresh, maxDepth)) return tooDeep("inputResponses", maxDepth);
  const answers = carried === undefined && fresh === undefined ? undefined : { ...carried, ...fresh };
  return { ok: true, rounds: new RoundState(sealer, binding, now, answers, once) };
}

/** One request's rounds: the answers so far, and ctx.once's values (carried in, and made in this run). */
export class RoundState {
  /** Values made or carried, by key; a null-prototype record so that an author's key is never a prototype member. */
  private readonly values: { [key: string]: { readonly v?: unknown } } = Object.create(null) as { [key: string]: { readonly v?: unknown } };
  private readonly running = new Map<string, Promise<unknown>>();
  /** Input calls the handler made so far in this run (2026-07-28: the n of `<method>#<n>`). */
  calls = 0;

  constructor(
    private readonly sealer: RoundSealer | undefined,
    private readonly binding: string,
    private readonly now: number,
    readonly answers: JsonObject | undefined,
    carried: JsonObject | undefined,
  ) {
    if (carried !== undefined) for (const [key, value] of Object.entries(carried)) if (isJsonObject(value)) this.values[key] = value;
  }

  /** A session-era request's: no rounds, so once only memoizes. */
  static session(): RoundState {
    return new RoundState(undefined, "", 0, undefined, undefined);
  }

  /**
   * ctx.once: fn's value (as a JSON copy) for `key`, fn running only in the run where the key
   * is first met. `modern`: the request is of 2026-07-28, where the value must survive rounds.
   */
  once<T>(key: string, fn: () => T | Promise<T>, modern: boolean): Promise<T> {
    if (typeof key !== "string") return Promise.reject(new TypeError(`ctx.once: expected a string key, got ${typeof key}`));
    if (modern && this.sealer === undefined) {
      return Promise.reject(
        new Error(
          "ctx.once under 2026-07-28 keeps its values in the sealed requestState between input rounds: expected ServerOptions.inputRounds (sealedRounds({ secret: 32+ bytes from a cryptographic source })), got none",
        ),
      );
    }
    const kept = this.values[key];
    if (kept !== undefined) return Promise.resolve(kept.v as T);
    const pending = this.running.get(key);
    if (pending !== undefined) return pending as Promise<T>;
    const run = (async () => {
      const value = await fn();
      // undefined (a step with no result) is kept as "done, no value": the key without v.
      const safe = value === undefined ? { ok: true as const, value: undefined } : toJsonSafe(value);
      if (!safe.ok)
        throw new TypeError(`ctx.once(${JSON.stringify(key)}): the value must be JSON to travel between input rounds: ${safe.reason}`);
      this.values[key] = safe.value === undefined ? {} : { v: safe.value };
      return safe.value as T;
    })();
    this.running.set(key, run);
    // A failure is not kept: the next call for the key runs fn again.
    run.catch(() => this.running.delete(key));
    return run;
  }

  /**
   * The signal that ends this run with an input_required result for `requests`: the answers
   * so far and the once values sealed into requestState, or (not sealing) the answers carried
   * as before; an Error (the handler fails) when the state cannot be encoded.
   */
  inputRequired(requests: JsonObject, maxDepth: number): InputRequiredSignal | Error {
    if (this.sealer === undefined) return new InputRequiredSignal(requests, this.answers);
    const payload = toJsonSafe({ a: this.answers ?? {}, o: { ...this.values } }, maxDepth + 2);
    if (!payload.ok) return new Error(`the state of the input rounds cannot be sealed: ${payload.reason}`);
    const token = this.sealer.seal(payload.value, this.binding, this.now + this.sealer.ttlMs);
    return new InputRequiredSignal(requests, undefined, SEALED_ROUNDS + token);
  }
}
