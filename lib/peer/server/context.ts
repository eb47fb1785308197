// What a server's handler receives as `ctx`: the HandlerContext interface and the one object
// per request that implements it (RequestContext).
//
// A request allocates one RequestContext: it is the handler pool's job (handlers.ts), the
// abort state and the context (what only 2026-07-28, HTTP or task requests carry is in one
// more object, made only for them). Everything a handler may read is computed when read: the
// AbortSignal is made the first time `signal` is read, requestState and inputResponses are
// picked out of the params on demand, the helpers are methods of one prototype (no closure
// per request), so a handler that reads nothing costs nothing more than the object.
//
// Invariants: the fields of a context never change once the request started (a getter reads
// the request's own params, session or HTTP request); progress() and log() are best-effort and
// go nowhere once the request is answered; nothing here reads a clock.

import type { JsonObject, RequestId } from "../../wire/envelope.js";
import { isJsonObject } from "../../wire/envelope.js";
import type { ModernRequestInfo } from "../../rules/modern.js";
import type { AuthInfo } from "../../auth/types.js";
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  ListRootsResult,
  LoggingLevel,
  LoggingMessageNotificationParams,
  ServerCapabilities,
} from "../../types/index.js";
import { ProtocolMisuseError, unencodable } from "../shared/errors.js";
import { HandlerJob } from "../shared/handlers.js";
import { InputRequiredSignal } from "./input-rounds.js";
import { RoundState } from "./round-state.js";
import { toJsonSafe } from "../shared/json-safe.js";
import type { AbortSignalLike } from "../shared/signal.js";
import type { ServerSession } from "./server.js";
import type { CallOptions } from "../shared/call-options.js";

/** What every handler receives. */
export interface HandlerContext {
  readonly requestId: RequestId;
  /** The method of the request ("tools/call", "resources/read", "prompts/get", ...). */
  readonly method: string;
  /** The client's capabilities: the session's (session era) or this request's own (2026-07-28). */
  readonly clientCapabilities: ClientCapabilities | undefined;
  /** Under 2026-07-28: what this request said about its client; undefined in the session era. */
  readonly modern: ModernRequestInfo | undefined;
  /**
   * Under 2026-07-28, on the retry of an input_required answer: the requestState the client
   * echoed (attacker-controlled: open it with RequestStateSealer) and its inputResponses, as
   * sent. Undefined otherwise. A handler that returns its own input_required result reads them here.
   */
  readonly requestState: string | undefined;
  readonly inputResponses: JsonObject | undefined;
  /** Aborted when the client cancels the request or the session closes (a task's: when it is cancelled or expires). */
  readonly signal: AbortSignalLike;
  /** Tasks extension: the task this handler runs for; undefined when it answers its request directly. */
  readonly taskId?: string;
  /** Tasks extension: what the tool's beforeTask step returned, in the task's handler. */
  readonly prepared?: unknown;
  readonly session: ServerSession;
  /** Who is asking: what the HTTP endpoint's authenticate hook verified for the request carrying this one (HTTP + OAuth), else undefined. */
  readonly auth: AuthInfo | undefined;
  /** Over HTTP: the request that carried this one (its headers, the session id); undefined over stdio and in memory. */
  readonly http?: TransportRequestInfo;
  /** Over HTTP in the session era: the Mcp-Session-Id of the request; undefined otherwise (2026-07-28 has no sessions). */
  readonly sessionId: string | undefined;
  /** A header of the HTTP request that carried this one (case-insensitive name); undefined when absent or not over HTTP. */
  header(name: string): string | undefined;
  /** Reports progress when the client asked for it (a no-op otherwise, and after the answer). */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends a log message (dropped by the engine below the level the client set). Throws ProtocolMisuseError when `data` has no JSON form. */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
  /**
   * Asks the client to sample (needs the client's sampling capability). Under 2026-07-28
   * there are no server requests: the call ends the handler with an input_required result,
   * and when the client retries with its answer the handler runs again and the same call
   * resolves with it (calls are matched by their order within the handler). In the session
   * era it rejects as ServerSession.request does (McpError only when the client answered an error).
   */
  createMessage(params: CreateMessageRequestParams, options?: CallOptions): Promise<CreateMessageResult>;
  /** Asks the client to elicit input (needs the client's elicitation capability). Rejects as createMessage does. */
  elicit(params: ElicitRequestParams, options?: CallOptions): Promise<ElicitResult>;
  /** Asks the client for its roots (needs the client's roots capability). Rejects as createMessage does. */
  listRoots(options?: CallOptions): Promise<ListRootsResult>;
  /**
   * 2026-07-28 (tools/call, prompts/get, resources/read): ends the request with an
   * input_required result of the handler's own making, for handlers that name their input
   * requests and keep their own requestState (seal it: RequestStateSealer) instead of the
   * rounds createMessage/elicit/listRoots manage; do not mix the two in one handler. The
   * client's retry is a new request: its handler reads the answers and the echoed state in
   * inputResponses and requestState. An input request of a kind the request's client did not
   * declare turns the answer into -32021. Throws (never returns); in the session era, where
   * there are no input_required results, it throws a ProtocolMisuseError (MOD-10).
   */
  inputRequired(inputRequests: { readonly [key: string]: InputRequest }, requestState?: string): never;
  /**
   * Runs `fn` once per request and resolves with its value (a JSON copy). Under 2026-07-28 a
   * handler that calls elicit/createMessage/listRoots runs again from the top on each input
   * round; work before the first input request (a charge, a job started) runs on every round
   * unless it goes through once: the value travels to the next rounds in the sealed
   * requestState, and fn runs only in the first. Needs ServerOptions.inputRounds under
   * 2026-07-28 (rejects without it); await it before the input request it must precede.
   * Not with inputRequired(), whose requestState is the handler's own.
   */
  once<T>(key: string, fn: () => T | Promise<T>): Promise<T>;
}

/** What an HTTP endpoint tells handlers about the HTTP request that carried theirs. */
export interface TransportRequestInfo {
  /** A header of the HTTP request (case-insensitive name), or undefined. */
  header(name: string): string | undefined;
  /** The Mcp-Session-Id (session era), or undefined. */
  readonly sessionId: string | undefined;
  /** What the authenticate hook verified, if anything. */
  readonly auth: AuthInfo | undefined;
}

/** One request of an input_required result (2026-07-28): what the client is asked to do before retrying. */
export type InputRequest =
  | { readonly method: "elicitation/create"; readonly params: ElicitRequestParams }
  | { readonly method: "sampling/createMessage"; readonly params: CreateMessageRequestParams }
  | { readonly method: "roots/list"; readonly params?: { readonly _meta?: { readonly [key: string]: unknown } } };

/** What a RequestContext needs of its session (ServerSession implements it; members are @internal there). */
export interface ContextSession {
  readonly engine: ServerSession["engine"];
  readonly driver: ServerSession["driver"];
  readonly clientCapabilities: ClientCapabilities | undefined;
  readonly maxJsonDepth: number;
  /** True while `job` is the running handler of `id`. */
  isCurrent(id: RequestId, job: HandlerJob): boolean;
  /** Sends a request to the client (session era), related to `related`. */
  request(
    method: "sampling/createMessage" | "elicitation/create" | "roots/list",
    params: object | undefined,
    options: CallOptions | undefined,
    related: RequestId,
  ): Promise<JsonObject>;
  /** Runs the method's handler for `context`. */
  serve(context: RequestContext): object | Promise<object>;
  /** Answers what a handler threw. */
  answerError(context: RequestContext, error: unknown): void;
}

/** What few requests' contexts carry (none over stdio in the session era): one object, so that the usual context is four fields smaller. */
interface ContextExtras {
  readonly modern: ModernRequestInfo | undefined;
  rounds: RoundState | undefined;
  readonly http: TransportRequestInfo | undefined;
  prepared: unknown;
}

/** The context of one request to a server's handler; also its handler-pool job. */
export class RequestContext extends HandlerJob implements HandlerContext {
  private extras: ContextExtras | undefined;

  constructor(
    private readonly owner: ContextSession & ServerSession,
    readonly requestId: RequestId,
    readonly method: string,
    /** The request's params (an empty object when it had none). */
    readonly params: JsonObject,
    modern: ModernRequestInfo | undefined,
    /** 2026-07-28: the answers and once values of every round so far (round-state.ts); made on first use in the session era. */
    rounds: RoundState | undefined,
    http: TransportRequestInfo | undefined,
  ) {
    super();
    this.extras =
      modern === undefined && rounds === undefined && http === undefined ? undefined : { modern, rounds, http, prepared: undefined };
  }

  private get more(): ContextExtras {
    return (this.extras ??= { modern: undefined, rounds: undefined, http: undefined, prepared: undefined });
  }

  get modern(): ModernRequestInfo | undefined {
    return this.extras?.modern;
  }

  get http(): TransportRequestInfo | undefined {
    return this.extras?.http;
  }

  /** Tasks extension: what the tool's beforeTask step returned (set before the handler runs). */
  get prepared(): unknown {
    return this.extras?.prepared;
  }

  set prepared(prepared: unknown) {
    this.more.prepared = prepared;
  }

  private get rounds(): RoundState | undefined {
    return this.extras?.rounds;
  }

  private set rounds(rounds: RoundState) {
    this.more.rounds = rounds;
  }

  get engine(): ServerSession["engine"] {
    return this.owner.engine;
  }

  get driver(): ServerSession["driver"] {
    return this.owner.driver;
  }

  work(): object | Promise<object> {
    return this.owner.serve(this);
  }

  fail(error: unknown): void {
    this.owner.answerError(this, error);
  }

  get session(): ServerSession {
    return this.owner;
  }

  get clientCapabilities(): ClientCapabilities | undefined {
    return this.modern !== undefined ? (this.modern.clientCapabilities as ClientCapabilities) : this.owner.clientCapabilities;
  }

  get requestState(): string | undefined {
    const state = this.params.requestState;
    return this.modern !== undefined && typeof state === "string" ? state : undefined;
  }

  get inputResponses(): JsonObject | undefined {
    const responses = this.params.inputResponses;
    return this.modern !== undefined && isJsonObject(responses) ? responses : undefined;
  }

  get auth(): AuthInfo | undefined {
    return this.http?.auth;
  }

  get sessionId(): string | undefined {
    return this.http?.sessionId;
  }

  header(name: string): string | undefined {
    return this.http?.header(name);
  }

  progress(progress: number, total?: number, message?: string): void {
    try {
      this.engine.sendProgress(this.requestId, progress, total, message);
      this.driver.pump();
    } catch {
      // No token, already answered, or not increasing: progress is best-effort for a handler.
    }
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    const engine = this.owner.engine;
    if (engine.isClosed || (engine.ownCapabilities as ServerCapabilities).logging === undefined) return;
    const safe = toJsonSafe(data, this.owner.maxJsonDepth);
    if (!safe.ok) throw unencodable("notifications/message", "data", safe.reason);
    const params: LoggingMessageNotificationParams =
      logger === undefined ? { level, data: safe.value } : { level, data: safe.value, logger };
    // 2026-07-28: a log message goes with its request; once that is answered or cancelled, it has nowhere to go.
    if (this.modern !== undefined && !this.owner.isCurrent(this.requestId, this)) return;
    engine.notify("notifications/message", params, { relatedRequestId: this.requestId });
    this.owner.driver.pump();
  }

  createMessage(params: CreateMessageRequestParams, options?: CallOptions): Promise<CreateMessageResult> {
    return this.modern !== undefined
      ? this.ask("sampling/createMessage", params)
      : (this.owner.request("sampling/createMessage", params, options, this.requestId) as unknown as Promise<CreateMessageResult>);
  }

  elicit(params: ElicitRequestParams, options?: CallOptions): Promise<ElicitResult> {
    return this.modern !== undefined
      ? this.ask("elicitation/create", params)
      : (this.owner.request("elicitation/create", params, options, this.requestId) as unknown as Promise<ElicitResult>);
  }

  listRoots(options?: CallOptions): Promise<ListRootsResult> {
    return this.modern !== undefined
      ? this.ask("roots/list", undefined)
      : (this.owner.request("roots/list", undefined, options, this.requestId) as unknown as Promise<ListRootsResult>);
  }

  once<T>(key: string, fn: () => T | Promise<T>): Promise<T> {
    return (this.rounds ??= RoundState.session()).once(key, fn, this.modern !== undefined);
  }

  inputRequired(inputRequests: { readonly [key: string]: InputRequest }, requestState?: string): never {
    if (this.modern === undefined)
      throw new ProtocolMisuseError({
        rule: "MOD-10",
        expected: "input_required results only under 2026-07-28",
        got: "a session-era request",
        method: "inputRequired",
      });
    throw new InputRequiredSignal(inputRequests as unknown as JsonObject, undefined, requestState);
  }

  /**
   * 2026-07-28: the answer to an input request comes back in the retry's inputResponses, keyed
   * by call order; a client sends only the keys of the last round, so the answers of earlier
   * rounds travel in our requestState.
   */
  private ask<T>(inputMethod: string, inputParams: object | undefined): Promise<T> {
    const rounds = (this.rounds ??= RoundState.session());
    const key = `${inputMethod}#${rounds.calls++}`;
    const answers = rounds.answers;
    const answer = answers !== undefined && Object.hasOwn(answers, key) ? answers[key] : undefined;
    if (answer !== undefined) return Promise.resolve(answer as T);
    const asked = Promise.reject(
      rounds.inputRequired(
        { [key]: inputParams === undefined ? { method: inputMethod } : { method: inputMethod, params: inputParams } },
        this.owner.maxJsonDepth,
      ),
    );
    // Control flow, not a failure: a handler that did not await the call must not leave a rejection unhandled.
    asked.catch(() => undefined);
    return asked;
  }
}

/**
 * `context` with `prepared` set (the tasks extension's beforeTask value): a request's own
 * context is changed in place (it belongs to this one request); any other is copied.
 */
export function withPrepared(context: HandlerContext, prepared: unknown): HandlerContext {
  if (prepared === undefined) return context;
  if (context instanceof RequestContext) {
    context.prepared = prepared;
    return context;
  }
  return { ...context, prepared };
}
