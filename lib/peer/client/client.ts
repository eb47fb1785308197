// The client side of the peer layer: Promise-returning requests over the core engine, with
// timeout policies, progress, cancellation by signal, handlers for server requests, and
// typed helpers for every client method.
//
// Invariants:
// - every request settles exactly once: its result, or one RequestFailure (errors.ts): McpError
//   only when the server answered an error, a local class otherwise (a refusal of the engine
//   becomes ProtocolMisuseError, never the engine's LocalProtocolError);
// - a server request with no handler is answered -32601 at once, never dropped;
// - a handler's failure is always answered: an McpError the protocol refuses becomes -32603;
// - a callback that throws (onProgress, onNotification, onDiagnostic, onClose) is contained:
//   the driver still dispatches every later event;
// - time comes from the host (PeerHost.now, one timer); this file reads no clock.

import { Engine, type ArgsFor } from "../../engine/engine.js";
import type { JsonObject, RequestId } from "../../wire/envelope.js";
import { ErrorCode } from "../../wire/errors.js";
import type { EngineEvent } from "../../engine/events.js";
import { INPUT_REQUIRED_METHODS, META_SUBSCRIPTION_ID } from "../../rules/modern.js";
import { VERSION_PROFILES, newestVersion, type ModernVersion } from "../../rules/versions.js";
import type {
  CallToolResult,
  ClientRequests,
  CompleteRequestParams,
  CompleteResult,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  GetPromptResult,
  Implementation,
  ListRootsResult,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from "../../types/index.js";
import { Driver, type PeerHost } from "../shared/driver.js";
import {
  ConnectionClosedError,
  HttpAuthError,
  InvalidResultError,
  McpError,
  ProtocolMisuseError,
  RequestAbortedError,
  RequestTimeoutError,
  ResponseTooLargeError,
  localFailure,
  peerErrorOf,
  unencodable,
} from "../shared/errors.js";
import { HandlerPool, errorMessage, shielded } from "../shared/handlers.js";
import { DEFAULT_MAX_JSON_DEPTH, toJsonSafe } from "../shared/json-safe.js";
import { requestWithInput } from "./input-client.js";
import { NO_CALL_OPTIONS, OutgoingCalls, PendingCall, type ResultStep } from "./client-calls.js";
import {
  extensionMethodsOf,
  withExtensions,
  type ExtensionNotifications,
  type ExtensionRequests,
  type NotIn,
  type ParamsOf,
  type ResultOf,
} from "../shared/custom-methods.js";
import { PollTimers, TaskClient, type TaskCallOptions } from "./task-client.js";
import { withSkillsMethods } from "./skills-methods.js";
import type { ClientOptions, ConnectResult, ServerRequestHandler, UntypedMethod } from "./client-options.js";

import type { CallOptions } from "../shared/call-options.js";
import { ServerRequestJob } from "./server-request-job.js";

const MAX_PAGES = 10_000;

export class Client {
  private currentEngine: Engine<"client">;
  private currentDriver: Driver<"client">;
  /** Stable inputs for hosts: they forward to whichever engine is current (a fallback replaces it). */
  readonly input: { receiveBytes(chunk: Uint8Array): void; receiveMessage(value: unknown): void; receiveEof(): void; onTimer(): void };
  private readonly host: PeerHost;
  private readonly defaultTimeoutMs: number;
  private readonly handlers = new Map<string, ServerRequestHandler<JsonObject | undefined, object>>();
  private readonly inflight: HandlerPool;
  /** Our requests: pending by id, or queued past maxPendingOutbound (client-calls.ts). */
  private readonly calls: OutgoingCalls;
  /** Task polling waits (task-client.ts), on the host's one timer like the queue. */
  private readonly pollTimers: PollTimers;
  /** Tasks: the lower-level API (create, get, update, cancel, wait) behind callTool's task calls. */
  readonly tasks: TaskClient;
  private readonly notificationHandlers = new Map<string, Set<(params: JsonObject | undefined) => void>>();
  private connecting: PendingCall | undefined;
  /** The ids below this one were the probe engine's (see replaceEngine). */
  private probeIdsEnd = 0;
  private connectResult: ConnectResult | undefined;
  private readonly options: ClientOptions;

  constructor(host: PeerHost, options: ClientOptions) {
    this.host = host;
    this.options = options;
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? 60_000;
    this.inflight = new HandlerPool({
      maxConcurrent: options.maxConcurrentHandlers ?? 100,
      maxJsonDepth: this.maxJsonDepth,
      onFault: (error, where) => this.fault(error, where),
    });
    this.calls = new OutgoingCalls(this, {
      host,
      defaultTimeoutMs: this.defaultTimeoutMs,
      maxJsonDepth: this.maxJsonDepth,
      maxPendingOutbound: options.limits?.maxPendingOutbound,
    });
    this.currentEngine = this.makeEngine(0);
    this.currentDriver = this.makeDriver(this.currentEngine);
    this.input = {
      receiveBytes: (chunk) => this.currentDriver.receiveBytes(chunk),
      receiveMessage: (value) => this.currentDriver.receiveMessage(value),
      receiveEof: () => this.currentDriver.receiveEof(),
      onTimer: () => this.currentDriver.onTimer(),
    };
    this.pollTimers = new PollTimers(
      () => this.host.now(),
      () => this.driver.pump(),
    );
    this.tasks = new TaskClient({
      era: () => this.engine.era,
      send: (m, p, o) => this.send(m, p, o),
      request: (m, p, o, then, fresh) =>
        then === undefined
          ? this.request(m, p, o)
          : this.engine.era === "modern" && INPUT_REQUIRED_METHODS.has(m)
            ? this.request(m, p, o).then((result) => then(result, o))
            : this.send(m, p, o, then, fresh),
      now: () => this.host.now(),
      sleep: (ms, signal, early) => this.pollTimers.sleep(ms, signal, early),
      handlers: this.handlers,
      ownCapabilities: (withExtensions(options.capabilities, options.extensions) ?? {}) as JsonObject,
      serverCapabilities: () => this.connectResult?.capabilities,
      maxInputRounds: options.maxInputRounds ?? 10,
      maxInputRequests: options.maxInputRequests ?? 32,
    });
  }

  /** The engine in use (a fallback from the modern probe to initialize replaces it). */
  get engine(): Engine<"client"> {
    return this.currentEngine;
  }

  get driver(): Driver<"client"> {
    return this.currentDriver;
  }

  private get maxJsonDepth(): number {
    return this.options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  }

  private makeDriver(engine: Engine<"client">): Driver<"client"> {
    const driver = new Driver(
      engine,
      this.host,
      (event) => this.onEvent(event),
      (error, where) => this.fault(error, where),
    );
    driver.timers = {
      next: () => {
        const queued = this.calls.queued.nextExpiry();
        const sleep = this.pollTimers.next();
        const first = queued === undefined ? sleep : sleep === undefined ? queued : Math.min(queued, sleep);
        const ringed = this.calls.nextDefaultDeadline();
        return ringed === undefined ? first : first === undefined ? ringed : Math.min(first, ringed);
      },
      fire: (now) => {
        this.calls.expire(now);
        this.calls.handOverDefaults(now);
        this.pollTimers.fire(now);
      },
    };
    return driver;
  }

  /** An exception that escaped a guard of the peer layer: reported as a diagnostic (rule "peer-fault"), never thrown. */
  private fault(error: unknown, where: string): void {
    const onDiagnostic = this.options.onDiagnostic;
    if (onDiagnostic !== undefined)
      shielded(() =>
        onDiagnostic({
          kind: "diagnostic",
          rule: "peer-fault",
          expected: `no exception in ${where}`,
          got: errorMessage(error),
          method: undefined,
          error: undefined,
        }),
      );
  }

  private makeEngine(firstRequestId: number): Engine<"client"> {
    const o = this.options;
    return new Engine({
      role: "client",
      info: o.info,
      capabilities: withExtensions(o.capabilities, o.extensions),
      extensionMethods: extensionMethodsOf(withSkillsMethods(o.extensions)),
      versions: o.versions,
      strict: o.strict,
      limits: o.limits,
      validateResults: o.validateResults,
      logLevel: o.logLevel,
      firstRequestId,
    });
  }

  /** What the server said at initialization; undefined before connect() resolved. */
  get server(): ConnectResult | undefined {
    return this.connectResult;
  }

  /**
   * Connects: initialize (session era), server/discover (modern era), or the modern probe
   * with a fallback to initialize ("auto", see ClientOptions.era). A server/discover refused
   * with -32022 is retried once when the error's data.supported names a modern version we
   * speak. Rejects with McpError (the server refused), InvalidResultError (a malformed
   * result), ConnectionClosedError (the transport ended, or the server chose a version we do
   * not speak: the engine closes), RequestTimeoutError, HttpTransportError or HttpAuthError
   * (over HTTP), ProtocolMisuseError (connect() a second time).
   */
  async connect(options: { timeoutMs?: number } = {}): Promise<ConnectResult> {
    const ours = this.options.versions;
    const modern = (ours ?? []).some((v) => VERSION_PROFILES[v].era === "modern");
    // Without a session-era version there is no initialize to fall back to: "auto" is "modern" then.
    const session = ours === undefined || ours.some((v) => VERSION_PROFILES[v].era === "session");
    const era = this.options.era ?? (modern ? "auto" : "session");
    if (era === "session") return this.initializeSession(options.timeoutMs);
    if (era === "modern" || !session)
      return this.discoverOnly(
        options.timeoutMs,
        session
          ? 'era "modern" rules out falling back to initialize'
          : "this client speaks no session-era version to fall back to initialize",
      );
    let probe: ConnectResult | undefined;
    try {
      probe = await this.discoverRetrying(this.options.probeTimeoutMs ?? 5000);
    } catch (error) {
      // A recognized modern refusal means a modern server: no fallback (MOD-24) unless it also speaks a session version of ours.
      if (error instanceof McpError && error.code === ErrorCode.UnsupportedProtocolVersion && !this.speaksAnyOf(error.data)) throw error;
      // A transport that ended is no answer from a server: nothing to fall back to.
      if (error instanceof RequestAbortedError || error instanceof ConnectionClosedError) throw error;
      // An authorization challenge (401/403) is an answer from this server, not a sign of another era (issue 11.9).
      if (error instanceof HttpAuthError) throw error;
      // Our own misuse (a second connect, say) is no sign of another era either.
      if (error instanceof ProtocolMisuseError) throw error;
    }
    if (probe !== undefined) return probe;
    this.replaceEngine();
    return this.initializeSession(options.timeoutMs);
  }

  /** Modern only: the probe's refusal is the answer, said plainly when the server does not seem to speak 2026-07-28 at all. */
  private async discoverOnly(timeoutMs: number | undefined, why: string): Promise<ConnectResult> {
    try {
      return await this.discoverRetrying(timeoutMs);
    } catch (error) {
      if (error instanceof McpError && !(error instanceof HttpAuthError) && error.code !== ErrorCode.UnsupportedProtocolVersion) {
        throw new McpError(
          error.code,
          `${errorMessage(error)} (server/discover refused: the server does not seem to speak 2026-07-28, and ${why})`,
          error.data,
        );
      }
      throw error;
    }
  }

  /**
   * server/discover, retried once when the server refuses its version (-32022) and names
   * among data.supported a modern version we speak: with the newest such version, on a fresh
   * engine (new ids). One retry only, even when the server names the version it refused.
   */
  private async discoverRetrying(timeoutMs: number | undefined): Promise<ConnectResult> {
    try {
      return await this.discover(timeoutMs);
    } catch (error) {
      const retry =
        error instanceof McpError && error.code === ErrorCode.UnsupportedProtocolVersion ? this.modernChoice(error.data) : undefined;
      if (retry === undefined) throw error;
      this.replaceEngine();
      return this.discover(timeoutMs, retry);
    }
  }

  /** server/discover under 2026-07-28 (or `version`); resolves when its result is a modern discover result. */
  private async discover(timeoutMs: number | undefined, version?: ModernVersion): Promise<ConnectResult> {
    this.engine.startModern(version);
    const result = (await this.request("server/discover", undefined, { timeoutMs })) as JsonObject;
    if (!Array.isArray(result.supportedVersions) || typeof result.capabilities !== "object" || this.connectResult?.era !== "modern") {
      throw new InvalidResultError(
        "server/discover",
        "result",
        "a DiscoverResult (supportedVersions, capabilities)",
        `a result with keys ${Object.keys(result).slice(0, 8).join(", ") || "(none)"}`,
      );
    }
    return this.connectResult;
  }

  /** The newest modern version of ours that a -32022's data.supported names, if any. */
  private modernChoice(data: unknown): ModernVersion | undefined {
    const supported = (data as { supported?: unknown } | undefined)?.supported;
    if (!Array.isArray(supported)) return undefined;
    const ours = (this.options.versions ?? []).filter(
      (v): v is ModernVersion => VERSION_PROFILES[v].era === "modern" && supported.includes(v),
    );
    return ours.length === 0 ? undefined : newestVersion(ours);
  }

  private speaksAnyOf(data: unknown): boolean {
    const supported = (data as { supported?: unknown } | undefined)?.supported;
    return (
      Array.isArray(supported) && (this.options.versions ?? []).some((v) => VERSION_PROFILES[v].era === "session" && supported.includes(v))
    );
  }

  /** A fresh engine after the modern probe: ids continue after the probe's, so a late answer cannot match a new request. */
  private replaceEngine(): void {
    this.probeIdsEnd = this.currentEngine.nextRequestId;
    const next = this.makeEngine(this.currentEngine.nextRequestId);
    this.currentEngine = next;
    this.currentDriver = this.makeDriver(next);
    this.connectResult = undefined;
  }

  private initializeSession(timeoutMsOption: number | undefined): Promise<ConnectResult> {
    return new Promise<ConnectResult>((resolve, reject) => {
      const timeoutMs = timeoutMsOption ?? this.defaultTimeoutMs;
      const deadline = Number.isFinite(timeoutMs) ? this.host.now() + timeoutMs : undefined;
      let id: number;
      try {
        id = this.engine.initialize({ deadline });
      } catch (error) {
        reject(localFailure(error, "initialize"));
        return;
      }
      const connecting = new PendingCall("initialize", undefined, timeoutMs, undefined);
      connecting.resolve = () => resolve(this.connectResult as ConnectResult);
      connecting.reject = reject;
      this.connecting = connecting;
      this.calls.pending.set(id, connecting);
      this.driver.pump();
    });
  }

  /**
   * Sends a request and resolves with its result. See CallOptions for timeouts, progress and
   * cancellation. A method of the spec takes that method's params (a typo in a params key does
   * not compile); an extension method declared in ExtensionRequests takes its own; any other
   * name is untyped (the gate still refuses it unless both sides declared its extension).
   *
   * Rejects with (RequestFailure): McpError when the server answered with an error;
   * RequestTimeoutError, RequestAbortedError (the signal), ConnectionClosedError,
   * ResponseTooLargeError, InvalidResultError (a result the method cannot use, or one its
   * schema refuses with validateResults), InputRoundsExceededError (2026-07-28 input rounds),
   * HttpTransportError or HttpAuthError (over HTTP: the exchange failed, with its status),
   * ProtocolMisuseError (the call is not allowed now, or its params have no JSON form: nothing
   * was sent). Under 2026-07-28, an input handler of ours that throws fails the call with what it threw.
   */
  request<M extends keyof ClientRequests>(
    method: M,
    ...args: ArgsFor<ClientRequests, M, CallOptions>
  ): Promise<ClientRequests[M]["result"]>;
  request<M extends keyof ExtensionRequests>(
    method: M,
    params: ParamsOf<ExtensionRequests[M]>,
    options?: CallOptions,
  ): Promise<ResultOf<ExtensionRequests[M]>>;
  request<M extends string>(method: UntypedMethod<M>, params?: object, options?: CallOptions): Promise<JsonObject>;
  request(method: string, params?: object, options: CallOptions = NO_CALL_OPTIONS): Promise<JsonObject> {
    if (this.engine.era === "modern" && INPUT_REQUIRED_METHODS.has(method))
      return this.requestWithRounds(method, params as JsonObject | undefined, options);
    return this.send(method, params, options);
  }

  /** 2026-07-28: a request that may come back input_required (a method of its own: closures in request() would make every call allocate its context). */
  private requestWithRounds(method: string, params: JsonObject | undefined, options: CallOptions): Promise<JsonObject> {
    const rounds = {
      send: (m: string, p: JsonObject | undefined, o: CallOptions) => this.send(m, p, o),
      now: () => this.host.now(),
      handlers: this.handlers,
    };
    return requestWithInput(rounds, method, params, options, this.options.maxInputRounds ?? 10, this.options.maxInputRequests ?? 32);
  }

  private send(method: string, params: object | undefined, options: CallOptions, then?: ResultStep, fresh?: boolean): Promise<JsonObject> {
    try {
      return this.calls.send(method, params, options, then, fresh);
    } catch (error) {
      // Only a host whose now() throws gets here: the call fails, nothing else does.
      return Promise.reject(error instanceof Error ? error : new Error(errorMessage(error)));
    }
  }

  /** Sends a notification (e.g. notifications/roots/list_changed). Throws ProtocolMisuseError when the gate refuses it or its params have no JSON form. */
  notify<M extends keyof ExtensionNotifications>(method: M, params: ExtensionNotifications[M]): void;
  notify<M extends string>(method: NotIn<M, ExtensionNotifications>, params?: object): void;
  notify(method: string, params?: object): void {
    const safe = params === undefined ? undefined : toJsonSafe(params, this.maxJsonDepth);
    if (safe !== undefined && !safe.ok) throw unencodable(method, "params", safe.reason);
    try {
      this.engine.notify(method, safe?.value as JsonObject | undefined);
    } catch (error) {
      throw localFailure(error, method);
    }
    this.driver.pump();
  }

  /** Handles a server request (sampling, elicitation, roots, ...). Without one, the request is answered -32601. */
  setRequestHandler(method: "sampling/createMessage", handler: ServerRequestHandler<CreateMessageRequestParams, CreateMessageResult>): void;
  setRequestHandler(method: "elicitation/create", handler: ServerRequestHandler<ElicitRequestParams, ElicitResult>): void;
  setRequestHandler(method: "roots/list", handler: ServerRequestHandler<JsonObject | undefined, ListRootsResult>): void;
  setRequestHandler(method: string, handler: ServerRequestHandler<JsonObject | undefined, object>): void;
  setRequestHandler(method: string, handler: ServerRequestHandler<never, object>): void {
    this.handlers.set(method, handler as ServerRequestHandler<JsonObject | undefined, object>);
  }

  /** Subscribes to a server notification (an extension's too, MT-03); returns the unsubscribe function. */
  onNotification<M extends keyof ExtensionNotifications>(method: M, handler: (params: ExtensionNotifications[M]) => void): () => void;
  onNotification<M extends string>(method: NotIn<M, ExtensionNotifications>, handler: (params: JsonObject | undefined) => void): () => void;
  onNotification(method: string, handler: (params: never) => void): () => void {
    let set = this.notificationHandlers.get(method);
    if (set === undefined) this.notificationHandlers.set(method, (set = new Set()));
    const added = handler as (params: JsonObject | undefined) => void;
    set.add(added);
    return () => set.delete(added);
  }

  /** Closes the session: every pending request rejects with ConnectionClosedError. */
  close(): void {
    this.engine.close();
    this.driver.pump();
  }

  // ── typed helpers ─────────────────────────────────────────────────────────────

  ping(options?: CallOptions): Promise<object> {
    return this.request("ping", undefined, options);
  }

  // The helpers below reject as request() does (RequestFailure); the listings also with
  // InvalidResultError when the server's pages loop (a cursor seen before) or grow past maxListItems.

  /** Every tool, following nextCursor (N-03) until the last page. */
  async listTools(options?: CallOptions): Promise<Tool[]> {
    const tools = (await this.paginate("tools/list", "tools", options)) as Tool[];
    this.tasks.learnTools(tools);
    return tools;
  }

  async listResources(options?: CallOptions): Promise<Resource[]> {
    return this.paginate("resources/list", "resources", options) as Promise<Resource[]>;
  }

  async listResourceTemplates(options?: CallOptions): Promise<ResourceTemplate[]> {
    return this.paginate("resources/templates/list", "resourceTemplates", options) as Promise<ResourceTemplate[]>;
  }

  async listPrompts(options?: CallOptions): Promise<Prompt[]> {
    return this.paginate("prompts/list", "prompts", options) as Promise<Prompt[]>;
  }

  /**
   * Calls a tool to its final result. Through a task when there is one: 2026-07-28 with the
   * tasks extension declared in our capabilities (the server decides), or 2025-11-25 for a
   * tool whose execution.taskSupport (from listTools) is optional or required on a server
   * declaring tasks.requests.tools.call. The task is polled at the server's interval, its
   * input requests answered by our handlers; failed and cancelled tasks reject with
   * TaskFailedError and TaskCancelledError, and aborting the signal cancels the task.
   * Otherwise rejects as request() does (RequestFailure); polling past maxTotalMs is a RequestTimeoutError.
   */
  callTool(name: string, args?: Record<string, unknown>, options?: TaskCallOptions): Promise<CallToolResult> {
    return this.tasks.callTool(name, args, options);
  }

  readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult> {
    return this.request("resources/read", { uri }, options);
  }

  subscribeResource(uri: string, options?: CallOptions): Promise<object> {
    return this.request("resources/subscribe", { uri }, options);
  }

  unsubscribeResource(uri: string, options?: CallOptions): Promise<object> {
    return this.request("resources/unsubscribe", { uri }, options);
  }

  getPrompt(name: string, args?: Record<string, string>, options?: CallOptions): Promise<GetPromptResult> {
    return this.request("prompts/get", args === undefined ? { name } : { name, arguments: args }, options);
  }

  complete(params: CompleteRequestParams, options?: CallOptions): Promise<CompleteResult> {
    return this.request("completion/complete", params, options);
  }

  setLoggingLevel(level: LoggingLevel, options?: CallOptions): Promise<object> {
    return this.request("logging/setLevel", { level }, options);
  }

  // ── internals ─────────────────────────────────────────────────────────────────

  private async paginate(
    method: "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list",
    key: string,
    options?: CallOptions,
  ): Promise<unknown[]> {
    const items: unknown[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = (await this.request(method, cursor === undefined ? undefined : { cursor }, options)) as unknown as JsonObject;
      const list = result[key];
      if (Array.isArray(list)) {
        // A server could page without end: what is gathered is bounded, not just the number of pages.
        const max = this.options.maxListItems ?? 100_000;
        if (items.length + list.length > max)
          throw new InvalidResultError(method, key, `at most ${max} items over all pages (maxListItems)`, `${items.length + list.length}`);
        for (const item of list) items.push(item);
      }
      const next = result.nextCursor;
      if (typeof next !== "string") return items;
      // N-01/N-02: a cursor that comes back again would loop forever.
      if (seen.has(next))
        throw new InvalidResultError(
          method,
          "result.nextCursor",
          "a cursor not seen before in this listing (N-01)",
          JSON.stringify(next).slice(0, 80),
        );
      seen.add(next);
      cursor = next;
    }
    throw new InvalidResultError(method, "result.nextCursor", `at most ${MAX_PAGES} pages`, "more");
  }

  private onEvent(event: EngineEvent): void {
    this.handleEvent(event);
    // An answer (or a timeout, or a closed stream) made room under maxPendingOutbound.
    if (this.calls.queued.size > 0) this.calls.release();
  }

  private handleEvent(event: EngineEvent): void {
    switch (event.kind) {
      case "response":
        this.calls.settle(event.id)?.complete(event.result);
        return;
      case "error-response":
        // A transport's own failure (HttpTransportError, HttpAuthError) comes back as itself; the peer's error answers as McpError.
        this.calls.settle(event.id)?.reject(peerErrorOf(event.error));
        return;
      case "invalid-response":
        this.calls.settle(event.id)?.reject(new InvalidResultError(event.method, event.path, event.expected, event.got));
        return;
      case "timeout": {
        const call = this.calls.settle(event.id);
        call?.reject(
          new RequestTimeoutError(event.method, event.id, event.deadline, event.deadline === "total" ? call.totalMs : call.timeoutMs),
        );
        return;
      }
      case "connection-closed":
        this.calls.settle(event.id)?.reject(new ConnectionClosedError(event.method));
        return;
      case "response-too-large":
        this.calls.settle(event.id)?.reject(new ResponseTooLargeError(event.method, event.bytes, event.limit));
        return;
      case "request-ended":
        // A server ending a listen stream (stdio) ends it as cleanly as its final result would (MOD-15).
        this.calls.settle(event.id)?.resolve({ resultType: "complete", _meta: { [META_SUBSCRIPTION_ID]: event.id } });
        return;
      // Callbacks are called from methods of their own: a closure here would make every event allocate this function's context.
      case "progress":
        this.onProgress(event);
        return;
      case "negotiated":
        this.connectResult = {
          era: VERSION_PROFILES[event.version].era,
          version: event.version,
          serverInfo: event.peerInfo as unknown as Implementation,
          capabilities: event.peerCapabilities as ServerCapabilities,
          instructions: event.instructions,
        };
        return;
      case "ready": {
        const connecting = this.connecting;
        this.connecting = undefined;
        connecting?.resolve({});
        return;
      }
      case "request":
        this.onServerRequest(event.id, event.method, event.params);
        return;
      case "cancelled":
        this.inflight.cancel(event.id, event.reason ?? "cancelled by the server");
        return;
      case "notification":
        this.onServerNotification(event.method, event.params);
        return;
      case "closed":
        this.onClosed(event);
        return;
      case "violation":
      case "diagnostic":
        this.report(event);
        return;
      default:
        return;
    }
  }

  private onProgress(event: Extract<EngineEvent, { kind: "progress" }>): void {
    const onProgress = this.calls.pending.get(event.id)?.onProgress;
    if (onProgress !== undefined) shielded(() => onProgress({ progress: event.progress, total: event.total, message: event.message }));
  }

  private onServerNotification(method: string, params: JsonObject | undefined): void {
    this.tasks.heard(method, params);
    const set = this.notificationHandlers.get(method);
    if (set !== undefined) for (const handler of [...set]) shielded(() => handler(params));
  }

  private report(event: Extract<EngineEvent, { kind: "violation" | "diagnostic" }>): void {
    // A late answer to the probe we gave up on (its engine was replaced) is no fault of the server's: dropped like any answer to a cancelled request.
    if (event.kind === "violation" && event.rule === "ID-04" && typeof event.id === "number" && event.id < this.probeIdsEnd) return;
    const onDiagnostic = this.options.onDiagnostic;
    if (onDiagnostic !== undefined) shielded(() => onDiagnostic(event));
  }

  private onClosed(event: Extract<EngineEvent, { kind: "closed" }>): void {
    this.calls.closeAll(event.detail);
    const connecting = this.connecting;
    this.connecting = undefined;
    connecting?.reject(new ConnectionClosedError("initialize", event.detail));
    this.inflight.closeAll("connection closed");
    const onClose = this.options.onClose;
    if (onClose !== undefined) shielded(() => onClose(event));
  }

  private onServerRequest(id: RequestId, method: string, params: JsonObject | undefined): void {
    const handler = this.handlers.get(method);
    if (handler === undefined) {
      this.engine.respondError(id, ErrorCode.MethodNotFound, `No handler for ${method}`);
      return;
    }
    this.inflight.run(id, new ServerRequestJob(this.engine, this.driver, id, params, handler, this.maxJsonDepth));
  }
}
