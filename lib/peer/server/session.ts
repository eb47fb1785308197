// One session of a Server (ServerSession): one engine and one driver over a host, the
// requests it hears started as the Server's method table says (dispatch.ts builds it), the
// requests and notifications it sends to the client, and what a Server tells its sessions.
//
// A session needs of its Server only SessionServer: its options, its method table, its
// sessions and its extension notification handlers. A request method's MethodEntry either
// answers at once (lists, subscriptions) or names the handler run the request's context runs
// in the handler pool; a session-era tools/call of a plain tool starts at once through
// HandlerPool.runNow, past the pool's queue and the table's dispatch.
//
// Invariants:
// - handlers run concurrently: a handler that never settles delays neither ping (answered
//   by the engine) nor any other request; past maxConcurrentHandlers a request waits its
//   turn (FIFO, bounded by the engine's maxPendingInbound; see handlers.ts);
// - what a handler returns or throws is answered, whatever it is (handlers.ts); a peer's
//   inputResponses and carried answers nested past maxJsonDepth are refused with -32602;
// - onDiagnostic and onSessionClosed may throw without stopping the session's event loop;
// - this file reads no clock and starts no timer; time comes through the PeerHost.

import { Engine, type EngineOptions, type EngineSnapshot } from "../../engine/engine.js";
import type { JsonObject, RequestId } from "../../wire/envelope.js";
import { ErrorCode } from "../../wire/errors.js";
import type { EngineEvent } from "../../engine/events.js";
import type { ClientCapabilities, ServerCapabilities } from "../../types/index.js";
import type { ModernRequestInfo } from "../../rules/modern.js";
import type { CallOptions } from "../shared/call-options.js";
import { extensionMethodsOf, type ExtensionNotifications, type NotIn } from "../shared/custom-methods.js";
import { Driver, type PeerHost } from "../shared/driver.js";
import {
  ConnectionClosedError,
  ResponseTooLargeError,
  McpError,
  RequestAbortedError,
  RequestTimeoutError,
  localFailure,
  unencodable,
} from "../shared/errors.js";
import { HandlerPool, errorMessage, respondWithError, shielded, type HandlerJob } from "../shared/handlers.js";
import { DEFAULT_MAX_JSON_DEPTH, jsonDepthExceeds, toJsonSafe } from "../shared/json-safe.js";
import { RequestContext, type AnsweredRequest, type ContextMethod, type ContextSession, type TransportRequestInfo } from "./context.js";
import { InputRequiredSignal, answerInputRequired, tooDeep } from "./input-rounds.js";
import { openRounds, type RoundState } from "./round-state.js";
import type { ExtensionNotificationHandler, ServerOptions, ToolEntry } from "./server-options.js";

/** What a session needs of its Server (server.ts). */
export interface SessionServer {
  readonly options: ServerOptions;
  /** How each request method is served. */
  readonly methods: ReadonlyMap<string, MethodEntry>;
  /** The Server's open sessions: a session leaves when it closes. */
  readonly sessions: Set<ServerSession>;
  /** The handlers of the client notifications of its declared extensions. */
  readonly extensionHandlers: { notification(method: string): ExtensionNotificationHandler | undefined };
  /** The capabilities a session opened now declares. */
  capabilities(): ServerCapabilities;
}

/** A request method's entry in the method table: answered at once, or served by a handler run. */
export type MethodEntry = AnsweredMethod | ServedMethod;

/** Answered at once, without a handler run (lists, subscriptions, the logging level). */
export interface AnsweredMethod {
  readonly answer: (session: ServerSession, id: RequestId, params: JsonObject, modern: ModernRequestInfo | undefined) => void;
}

/** Served by a handler run in the session's handler pool (`serve`, which the request's context runs). */
export interface ServedMethod extends ContextMethod<ServerSession> {
  readonly answer?: undefined;
  /** tools/call: finds the plain tool a call names, so that a session-era call of one starts at once (HandlerPool.runNow). */
  readonly plainTool?: PlainTool;
}

/** The plain tool a tools/call names (no task support, no beforeTask step), and its handler run without the table's dispatch. */
export interface PlainTool {
  find(params: JsonObject): ToolEntry | undefined;
  readonly run: (tool: ToolEntry, context: RequestContext<ServerSession>) => object | Promise<object>;
}

export class ServerSession implements ContextSession {
  readonly engine: Engine<"server">;
  readonly driver: Driver<"server">;
  private readonly server: SessionServer;
  private readonly host: PeerHost;
  private readonly handlers: HandlerPool;
  /** @internal */
  readonly maxJsonDepth: number;
  /** The HTTP request being fed (receiveMessage), read when a request starts. */
  private inbound: TransportRequestInfo | undefined;
  private readonly outgoing = new Map<
    number,
    { method: string; resolve: (r: JsonObject) => void; reject: (e: Error) => void; cleanup: (() => void) | undefined }
  >();

  constructor(server: SessionServer, host: PeerHost, snapshot?: EngineSnapshot) {
    this.server = server;
    this.host = host;
    this.maxJsonDepth = server.options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
    const onFault = (error: unknown, where: string): void => this.fault(error, where);
    this.handlers = new HandlerPool({
      maxConcurrent: server.options.maxConcurrentHandlers ?? 100,
      maxJsonDepth: this.maxJsonDepth,
      onFault,
    });
    const options: EngineOptions<"server"> = {
      role: "server",
      info: server.options.info,
      capabilities: server.capabilities(),
      instructions: server.options.instructions,
      versions: server.options.versions,
      strict: server.options.strict,
      limits: server.options.limits,
      discoverAnyVersion: server.options.discoverAnyVersion,
      serverInfoInResults: server.options.serverInfoInResults,
      extensionMethods: extensionMethodsOf(server.options.extensions),
    };
    this.engine = snapshot === undefined ? new Engine(options) : Engine.restore(options, snapshot);
    this.driver = new Driver(this.engine, host, (event) => this.onEvent(event), onFault);
  }

  /** Requests waiting for a handler slot (past maxConcurrentHandlers). */
  get waitingRequests(): number {
    return this.handlers.waitingCount;
  }

  /** @internal The host's clock (ms): the time of the tasks this session's requests create. */
  now(): number {
    return this.host.now();
  }

  /** An exception that escaped a guard of the peer layer: reported as a diagnostic (rule "peer-fault"), never thrown. */
  private fault(error: unknown, where: string): void {
    const event = {
      kind: "diagnostic" as const,
      rule: "peer-fault",
      expected: `no exception in ${where}`,
      got: errorMessage(error),
      method: undefined,
      error: undefined,
    };
    shielded(() => this.server.options.onDiagnostic?.(event, this));
  }

  /** The client's capabilities, once initialized. */
  get clientCapabilities(): ClientCapabilities | undefined {
    return this.engine.peerCapabilities as ClientCapabilities | undefined;
  }

  receiveBytes(chunk: Uint8Array): void {
    this.driver.receiveBytes(chunk);
  }

  /**
   * One message; `inbound`: the HTTP request that carried it (its verified credentials, headers
   * and session id), which reaches the handlers of the requests it carries as ctx.auth and ctx.http.
   */
  receiveMessage(value: unknown, inbound?: TransportRequestInfo): void {
    // The engine dispatches synchronously within this call, so onRequest reads the message's own request.
    const before = this.inbound;
    this.inbound = inbound;
    try {
      this.driver.receiveMessage(value);
    } finally {
      this.inbound = before;
    }
  }

  receiveEof(): void {
    this.driver.receiveEof();
  }

  onTimer(): void {
    this.driver.onTimer();
  }

  close(): void {
    this.engine.close();
    this.driver.pump();
  }

  /**
   * Sends a request to the client and resolves with its result. Rejects with McpError (the
   * client answered an error), RequestTimeoutError, RequestAbortedError, ConnectionClosedError,
   * ResponseTooLargeError, or ProtocolMisuseError (the client did not declare the capability,
   * the session is 2026-07-28, or the params have no JSON form: nothing was sent).
   */
  request(
    method: "sampling/createMessage" | "elicitation/create" | "roots/list" | "ping",
    params: object | undefined,
    options: CallOptions = {},
    related?: RequestId,
  ): Promise<JsonObject> {
    return new Promise<JsonObject>((resolve, reject) => {
      if (options.signal?.aborted) {
        reject(new RequestAbortedError(method, options.signal.reason));
        return;
      }
      if (this.engine.isClosed) {
        reject(new ConnectionClosedError(method, "the session is closed"));
        return;
      }
      const safe = params === undefined ? undefined : toJsonSafe(params, this.maxJsonDepth);
      if (safe !== undefined && !safe.ok) {
        reject(unencodable(method, "params", safe.reason));
        return;
      }
      const timeoutMs = options.timeoutMs ?? this.server.options.defaultTimeoutMs ?? 60_000;
      const now = this.host.now();
      let id: number;
      try {
        id = this.engine.request(method, safe?.value as JsonObject | undefined, {
          deadline: Number.isFinite(timeoutMs) ? now + timeoutMs : undefined,
          totalDeadline: options.maxTotalMs !== undefined ? now + options.maxTotalMs : undefined,
          relatedRequestId: related,
        });
      } catch (error) {
        reject(localFailure(error, method));
        return;
      }
      const signal = options.signal;
      let cleanup: (() => void) | undefined;
      if (signal !== undefined) {
        const onAbort = (): void => {
          const call = this.outgoing.get(id);
          if (call === undefined) return;
          this.outgoing.delete(id);
          // The abort's reason, when it is text, is the reason the client reads.
          if (!this.engine.isClosed) this.engine.cancel(id, typeof signal.reason === "string" ? signal.reason : "aborted");
          reject(new RequestAbortedError(method, signal.reason));
          this.driver.pump();
        };
        signal.addEventListener("abort", onAbort, { once: true });
        cleanup = () => signal.removeEventListener("abort", onAbort);
      }
      this.outgoing.set(id, { method, resolve, reject, cleanup });
      this.driver.pump();
    });
  }

  /**
   * Sends a notification: an extension's to the client (session era; under 2026-07-28 with
   * `related`, a request in flight that declared the extension, MT-05). Throws ProtocolMisuseError when the gate refuses it.
   */
  notify<M extends keyof ExtensionNotifications>(method: M, params: ExtensionNotifications[M], related?: RequestId): void;
  notify<M extends string>(method: NotIn<M, ExtensionNotifications>, params?: object, related?: RequestId): void;
  notify(method: string, params?: object, related?: RequestId): void {
    const safe = params === undefined ? undefined : toJsonSafe(params, this.maxJsonDepth);
    if (safe !== undefined && !safe.ok) throw unencodable(method, "params", safe.reason);
    try {
      this.engine.notify(method, safe?.value as JsonObject | undefined, related === undefined ? undefined : { relatedRequestId: related });
    } catch (error) {
      throw localFailure(error, method);
    }
    this.driver.pump();
  }

  /** 2026-07-28: ends every open subscriptions/listen stream with its final result (MOD-15); nothing when none is open. */
  endSubscriptions(): void {
    try {
      this.engine.endSubscriptions();
    } catch (error) {
      throw localFailure(error, "subscriptions/listen");
    }
    this.driver.pump();
  }

  /** @internal */
  listChanged(method: string): void {
    // The gate decides (list_changed only when declared, only once operating): sessions that may not hear it are skipped.
    if (!this.engine.allows(method, "notification")) return;
    // 2026-07-28: the engine sends it to the listen streams that opted in (false: none did).
    this.engine.notify(method);
    this.driver.pump();
  }

  /** @internal A task changed (tasks extension): notifications/tasks to this session's listen streams that named it. */
  taskChanged(task: JsonObject): void {
    if (this.engine.isClosed || this.engine.era !== "modern") return;
    try {
      this.engine.notify("notifications/tasks", task);
    } catch {
      // No listen stream here: the change is for clients that poll.
    }
    this.driver.pump();
  }

  /** @internal */
  resourceUpdated(uri: string): void {
    if (this.engine.isClosed) return;
    if (this.engine.era === "modern") {
      // 2026-07-28: subscriptions live in listen streams' filters; the engine picks the ones that want it.
      if ((this.engine.ownCapabilities as ServerCapabilities).resources?.subscribe !== true) return;
      this.engine.notify("notifications/resources/updated", { uri });
      this.driver.pump();
      return;
    }
    // A session subscribed before it is operating (or one whose phase forbids it now) is skipped, as listChanged skips it.
    if (!this.engine.isSubscribed(uri) || !this.engine.allows("notifications/resources/updated", "notification", { uri })) return;
    this.engine.notify("notifications/resources/updated", { uri });
    this.driver.pump();
  }

  private onEvent(event: EngineEvent): void {
    switch (event.kind) {
      case "request":
        this.onRequest(event.id, event.method, event.params, event.modern);
        return;
      case "cancelled":
        this.handlers.cancel(event.id, event.reason ?? "cancelled by the client");
        return;
      case "response":
        this.settleOutgoing(event.id)?.resolve(event.result);
        return;
      case "error-response":
        this.settleOutgoing(event.id)?.reject(new McpError(event.error.code, event.error.message, event.error.data));
        return;
      case "timeout":
        this.settleOutgoing(event.id)?.reject(new RequestTimeoutError(event.method, event.id, event.deadline, undefined));
        return;
      case "connection-closed":
        this.settleOutgoing(event.id)?.reject(new ConnectionClosedError(event.method));
        return;
      case "response-too-large":
        this.settleOutgoing(event.id)?.reject(new ResponseTooLargeError(event.method, event.bytes, event.limit));
        return;
      // The callbacks run in methods of their own: a closure here would make every event allocate this function's context.
      case "notification":
        this.onNotification(event.method, event.params);
        return;
      case "closed":
        this.onClosed();
        return;
      case "violation":
      case "diagnostic":
        this.report(event);
        return;
      default:
        return;
    }
  }

  private onNotification(method: string, params: JsonObject | undefined): void {
    const handler = this.server.extensionHandlers.notification(method);
    if (handler !== undefined) shielded(() => handler(params, this));
  }

  private onClosed(): void {
    this.handlers.closeAll("connection closed");
    this.server.sessions.delete(this);
    shielded(() => this.server.options.onSessionClosed?.(this));
  }

  private report(event: Extract<EngineEvent, { kind: "violation" | "diagnostic" }>): void {
    shielded(() => this.server.options.onDiagnostic?.(event, this));
  }

  private settleOutgoing(id: number): { resolve: (r: JsonObject) => void; reject: (e: Error) => void } | undefined {
    const call = this.outgoing.get(id);
    if (call === undefined) return undefined;
    this.outgoing.delete(id);
    call.cleanup?.();
    return call;
  }

  /** Starts a request as its method's entry in the Server's method table says; a method without one is -32601. */
  private onRequest(id: RequestId, method: string, params: JsonObject | undefined, modern: ModernRequestInfo | undefined): void {
    const entry = this.server.methods.get(method);
    if (entry === undefined) {
      this.engine.respondError(id, ErrorCode.MethodNotFound, `Method not served: ${method}`);
      return;
    }
    const p = params ?? {};
    if (entry.answer !== undefined) {
      entry.answer(this, id, p, modern);
      return;
    }
    const plain = entry.plainTool;
    if (plain !== undefined && modern === undefined && this.startPlainTool(id, p, plain, entry)) return;
    this.run(id, p, modern, entry);
  }

  /** @internal Answers what a handler threw; an McpError becomes its JSON-RPC error. */
  answerError(request: AnsweredRequest, error: unknown): void {
    if (error instanceof InputRequiredSignal && request.modern !== undefined)
      answerInputRequired(this.engine, request.requestId, request.method, request.modern, error, this.maxJsonDepth);
    else respondWithError(this.engine, request.requestId, error, this.maxJsonDepth);
  }

  /** @internal True while `job` is the running handler of `id`. */
  isCurrent(id: RequestId, job: HandlerJob): boolean {
    return this.handlers.isCurrent(id, job);
  }

  /** 2026-07-28: the rounds a request carries (its own method, so that run() makes no closure in the session era). */
  private openRounds(method: string, params: JsonObject): ReturnType<typeof openRounds> {
    const sealer = this.server.options.inputRounds;
    const binding = (): string => sealer!.bind(method, params, this.inbound?.auth?.subject ?? this.inbound?.auth?.clientId);
    return openRounds(params, this.maxJsonDepth, sealer, binding, this.host.now());
  }

  /** A session-era call of a plain tool, started at once through `plain.run` alone; false when run() must take it. */
  private startPlainTool(id: RequestId, params: JsonObject, plain: PlainTool, entry: ServedMethod): boolean {
    const tool = plain.find(params);
    if (tool === undefined || !this.handlers.hasRoom || jsonDepthExceeds(params.arguments, this.maxJsonDepth)) return false;
    this.handlers.runNow(
      id,
      new RequestContext<ServerSession>(this, entry, id, params, undefined, undefined, this.inbound),
      plain.run,
      tool,
    );
    return true;
  }

  /** Runs a handler (now, or when a slot frees) and answers with its outcome. */
  private run(id: RequestId, params: JsonObject, modern: ModernRequestInfo | undefined, entry: ServedMethod): void {
    // The peer's own values are measured before a handler or a round walks or re-encodes them.
    let rounds: RoundState | undefined;
    if (modern !== undefined) {
      const opened = this.openRounds(entry.method, params);
      if (!opened.ok) {
        this.engine.respondError(id, opened.code, opened.message, opened.data);
        return;
      }
      rounds = opened.rounds;
    }
    if (jsonDepthExceeds(params.arguments, this.maxJsonDepth)) {
      const refused = tooDeep("arguments", this.maxJsonDepth);
      this.engine.respondError(id, refused.code, refused.message);
      return;
    }
    this.handlers.run(id, new RequestContext<ServerSession>(this, entry, id, params, modern, rounds, this.inbound));
  }
}
