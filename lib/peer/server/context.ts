// What a server's handler receives as `ctx`: the one object per request that implements
// HandlerContext (server-options.ts), RequestContext, with what it needs of its session
// (ContextSession) and what an HTTP endpoint tells it (TransportRequestInfo).
//
// A request allocates one RequestContext: it is the handler pool's job (handlers.ts), the
// abort state and the context (what only 2026-07-28, HTTP or task requests carry is in one
// more object, made only for them). Everything a handler may read is computed when read: the
// AbortSignal is made the first time `signal` is read, requestState and inputResponses are
// picked out of the params on demand, the helpers are methods of one prototype (no closure
// per request), so a handler that reads nothing costs nothing more than the object. The
// handler it runs is the one its method's entry in the Server's method table names (given
// when the request starts); its session is typed by whatever made it (ctx.session), so
// nothing here depends on ServerSession beyond ContextSession.
//
// Invariants: the fields of a context never change once the request started (a getter reads
// the request's own params, session or HTTP request); progress() and log() are best-effort and
// go nowhere once the request is answered; nothing here reads a clock.

import type { JsonObject, RequestId } from "../../wire/envelope.js";
import { hasOwn, isJsonObject } from "../../wire/envelope.js";
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
import type { CallOptions } from "../shared/call-options.js";
import type { Driver } from "../shared/driver.js";
import type { Engine } from "../../engine/engine.js";

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
  readonly engine: Engine<"server">;
  readonly driver: Driver<"server">;
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
  /** Answers what a handler threw. */
  answerError(request: AnsweredRequest, error: unknown): void;
}

/** What answering a handler's error reads of its request. */
export interface AnsweredRequest {
  readonly requestId: RequestId;
  readonly method: string;
  readonly modern: ModernRequestInfo | undefined;
}

/** A request's method as its context runs it: its entry in the Server's method table, with the handler run it serves. */
export interface ContextMethod<S extends ContextSession> {
  readonly method: string;
  /** The handler run of a request of this method: a value, or a promise of one. */
  readonly serve: (context: RequestContext<S>) => object | Promise<object>;
}

/** What few requests' contexts carry (none over stdio in the session era): one object, so that the usual context is four fields smaller. */
interface ContextExtras {
  readonly modern: ModernRequestInfo | undefined;
  rounds: RoundState | undefined;
  readonly http: TransportRequestInfo | undefined;
  prepared: unknown;
}

/**
 * The context of one request to a server's handler; also its handler-pool job. `S`: the
 * session that made it, which handlers read as ctx.session (ServerSession).
 */
export class RequestContext<S extends ContextSession = ContextSession> extends HandlerJob {
  private extras: ContextExtras | undefined;

  constructor(
    private readonly owner: S,
    /** Its method, and the handler run that serves it. */
    private readonly served: ContextMethod<S>,
    readonly requestId: RequestId,
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

  get engine(): Engine<"server"> {
    return this.owner.engine;
  }

  get driver(): Driver<"server"> {
    return this.owner.driver;
  }

  /** The method of the request ("tools/call", "resources/read", "prompts/get", ...). */
  get method(): string {
    return this.served.method;
  }

  work(): object | Promise<object> {
    return this.served.serve(this);
  }

  fail(error: unknown): void {
    this.owner.answerError(this, error);
  }

  get session(): S {
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
    const answer = answers !== undefined && hasOwn(answers, key) ? answers[key] : undefined;
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
