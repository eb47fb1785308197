// The server side of the peer layer: registries of tools, resources, resource templates,
// prompts and completions, answered over one engine per session.
//
// A Server holds the registries; connect(host) opens a ServerSession (one engine, one
// driver) whose capabilities follow from what is registered at that moment. Registering or
// removing later sends list_changed to every operating session that declared it (a
// 2026-07-28 session: to its subscriptions/listen streams that opted in).
//
// Invariants:
// - handlers run concurrently: a handler that never settles delays neither ping (answered
//   by the engine) nor any other request; past maxConcurrentHandlers a request waits its
//   turn (FIFO, bounded by the engine's maxPendingInbound; see handlers.ts);
// - what a handler returns or throws is answered, whatever it is (handlers.ts); a peer's
//   inputResponses and carried answers nested past maxJsonDepth are refused with -32602;
// - lists come in one page unless the author asked for pages (pageSize);
// - tool failures (validation, thrown errors, bad structuredContent) become isError results
//   without stack traces; protocol errors are for unknown tools/prompts and bad cursors;
// - onDiagnostic and onSessionClosed may throw without stopping the session's event loop;
// - this file reads no clock and starts no timer; time comes through the PeerHost.

import { Engine, type EngineOptions, type EngineSnapshot } from "../../engine/engine.js";
import type { JsonObject, RequestId } from "../../wire/envelope.js";
import { ErrorCode } from "../../wire/errors.js";
import type { EngineEvent } from "../../engine/events.js";
import { Paginator } from "../../codec/pagination.js";
import type { ClientCapabilities, Prompt, PromptArgument, Resource, ServerCapabilities, Tool } from "../../types/index.js";
import type { ModernRequestInfo } from "../../rules/modern.js";
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
import { RequestContext, type ContextSession, type TransportRequestInfo } from "./context.js";
import { InputRequiredSignal, answerInputRequired, tooDeep } from "./input-rounds.js";
import { checkInputRounds, openRounds, roundBinding, type RoundState } from "./round-state.js";
import { DEFAULT_MAX_JSON_DEPTH, jsonDepthExceeds, toJsonSafe } from "../shared/json-safe.js";
import { argumentsValidator, checkToolName, listable } from "./registration.js";
import type { PromptArgs, ToolArgs, ToolResultFor, ToolSchemaInput } from "./schema-types.js";
import { resolvePromptArguments, resolveToolSchemas } from "./typed-schemas.js";
import { complete, getPrompt, readResource, respondPage } from "./server-methods.js";
import { TaskRunner, callToolOrTask, plainToolOf, runPlainTool, sessionTool } from "./task-server.js";
import { TASKS_EXTENSION } from "../../rules/negotiated-extensions.js";
import {
  extensionMethodsOf,
  withExtensions,
  type ExtensionNotifications,
  type ExtensionRequests,
  type NotIn,
  type ParamsOf,
  type ResultOf,
} from "../shared/custom-methods.js";
import type { StandardSchemaV1 } from "./standard-schema.js";
import { parseTemplate } from "../../uri-template/template.js";

import type {
  PromptDefinition,
  PromptEntry,
  PromptHandler,
  Registration,
  ResourceDefinition,
  ResourceReader,
  ResourceTemplateDefinition,
  ServerChange,
  ServerOptions,
  TemplateEntry,
  TemplateReader,
  ToolDefinition,
  ToolEntry,
  ToolHandler,
} from "./server-options.js";

export type { HandlerContext, InputRequest, TransportRequestInfo } from "./context.js";
export type {
  Completer,
  PromptDefinition,
  PromptHandler,
  Registration,
  ResourceDefinition,
  ResourceReader,
  ResourceTemplateDefinition,
  ServerChange,
  ServerOptions,
  TemplateReader,
  ToolDefinition,
  ToolHandler,
} from "./server-options.js";
import type { CallOptions } from "../shared/call-options.js";
import { ExtensionHandlers, type ExtensionNotificationHandler, type ExtensionRequestHandler } from "./extension-handlers.js";

export class Server {
  readonly options: ServerOptions;
  /** Undefined when lists come in one page (no pageSize). */
  readonly paginator: Paginator | undefined;
  readonly sessions = new Set<ServerSession>();
  /** @internal registries, read by sessions */
  readonly tools = new Map<string, ToolEntry>();
  readonly resources = new Map<string, { definition: Resource; read: ResourceReader }>();
  readonly templates = new Map<string, TemplateEntry>();
  readonly prompts = new Map<string, PromptEntry>();
  /** The tasks extension's runner; undefined without ServerOptions.tasks. */
  readonly taskRunner: TaskRunner | undefined;
  /** @internal handlers of the extensions of ServerOptions.extensions */
  readonly extensionHandlers: ExtensionHandlers<ExtensionRequestHandler, ExtensionNotificationHandler>;

  constructor(options: ServerOptions) {
    checkInputRounds(options.inputRounds);
    this.options = options;
    this.extensionHandlers = new ExtensionHandlers(options.extensions);
    this.taskRunner =
      options.tasks === undefined
        ? undefined
        : new TaskRunner(
            options.tasks,
            (task) => this.spread({ kind: "task", task }),
            (taskId, inputResponses) => this.spread({ kind: "taskInput", taskId, inputResponses }),
          );
    if (options.pageSize === undefined) this.paginator = undefined;
    else if (options.paginationSecret === undefined)
      throw new Error(
        "pagination (N-05): pageSize needs a paginationSecret (at least 16 bytes from a cryptographic source) to seal the cursors; got none",
      );
    else this.paginator = new Paginator({ secret: options.paginationSecret, pageSize: options.pageSize });
  }

  /**
   * Registers a tool. Throws an Error when the name is outside [A-Za-z0-9_.-]{1,128} (the
   * 2025-11-25 tool-name rule), when inputSchema or outputSchema is not an object schema with
   * root type "object" (J-02), when the definition cannot be encoded as JSON, or when a tool
   * of that name is registered already; with a Standard Schema, also when no JSON Schema can
   * be listed for it (no ~standard.jsonSchema and no jsonSchema option; typed-schemas.ts).
   */
  tool<
    const I extends ToolSchemaInput | undefined = undefined,
    const O extends ToolSchemaInput | undefined = undefined,
    V extends StandardSchemaV1 | undefined = undefined,
  >(name: string, definition: ToolDefinition<I, O, V>, handler: ToolHandler<ToolArgs<I, V>, ToolResultFor<O>>): Registration {
    if (this.options.allowAnyToolName !== true) checkToolName(name);
    else if (typeof name !== "string" || name.length === 0)
      throw new Error(`tool name rule: expected a non-empty string, got ${typeof name === "string" ? "an empty name" : typeof name}`);
    const schemas = resolveToolSchemas(name, definition);
    const tool: Tool = { name, inputSchema: schemas.inputSchema };
    if (definition.title !== undefined) tool.title = definition.title;
    if (definition.description !== undefined) tool.description = definition.description;
    if (schemas.outputSchema !== undefined) tool.outputSchema = schemas.outputSchema;
    if (definition.annotations !== undefined) tool.annotations = definition.annotations;
    if (definition._meta !== undefined) tool._meta = definition._meta;
    if (definition.taskSupport !== undefined) {
      if (this.taskRunner === undefined)
        throw new Error(
          `tool ${name}: taskSupport ${JSON.stringify(definition.taskSupport)} needs ServerOptions.tasks (a task store and task ids); got none`,
        );
      tool.execution = { taskSupport: definition.taskSupport };
    }
    // The entry holds the handler untyped: the validator made its arguments what ToolArgs<I> says.
    const entry: ToolEntry = {
      definition: listable(`tool ${name}`, tool),
      validator: argumentsValidator(schemas.validator),
      outputValidator: schemas.outputValidator,
      handler: handler as ToolHandler,
      taskSupport: definition.taskSupport,
      beforeTask: definition.beforeTask as ToolEntry["beforeTask"],
    };
    return this.register("tool", this.tools, name, entry, "notifications/tools/list_changed");
  }

  resource(uri: string, definition: ResourceDefinition, read: ResourceReader): Registration {
    return this.register(
      "resource",
      this.resources,
      uri,
      { definition: listable(`resource ${uri}`, { uri, ...definition }), read },
      "notifications/resources/list_changed",
    );
  }

  resourceTemplate(uriTemplate: string, definition: ResourceTemplateDefinition, read: TemplateReader): Registration {
    const { complete, ...rest } = definition;
    const entry: TemplateEntry = {
      definition: listable(`resource template ${uriTemplate}`, { uriTemplate, ...rest }),
      template: parseTemplate(uriTemplate),
      read,
      complete,
    };
    return this.register("resource template", this.templates, uriTemplate, entry, "notifications/resources/list_changed");
  }

  prompt<const A extends readonly PromptArgument[] | undefined = undefined, const S extends ToolSchemaInput | undefined = undefined>(
    name: string,
    definition: PromptDefinition<A, S>,
    handler: PromptHandler<PromptArgs<A, S>>,
  ): Registration {
    const { complete, argsSchema, jsonSchema, arguments: listed, ...rest } = definition;
    const resolved = resolvePromptArguments(name, { arguments: listed, argsSchema, jsonSchema });
    const prompt: Prompt = resolved.arguments === undefined ? { name, ...rest } : { name, ...rest, arguments: resolved.arguments };
    const entry: PromptEntry = {
      definition: listable(`prompt ${name}`, prompt),
      handler: handler as PromptHandler,
      validator: resolved.validator,
      complete,
    };
    return this.register("prompt", this.prompts, name, entry, "notifications/prompts/list_changed");
  }

  /**
   * Serves a request of a declared extension (ServerOptions.extensions[id].requests; throws an
   * Error for any other method). It is answered like a tool's handler: the result, or the
   * McpError it throws, or -32603. Typed by ExtensionRequests when augmented.
   */
  setRequestHandler<M extends keyof ExtensionRequests>(
    method: M,
    handler: ExtensionRequestHandler<ParamsOf<ExtensionRequests[M]>, ResultOf<ExtensionRequests[M]> & object>,
  ): void;
  setRequestHandler<M extends string>(method: NotIn<M, ExtensionRequests>, handler: ExtensionRequestHandler): void;
  setRequestHandler(method: string, handler: ExtensionRequestHandler<never>): void {
    this.extensionHandlers.setRequestHandler(method, handler as ExtensionRequestHandler);
  }

  /** Hears a client notification of a declared extension (ServerOptions.extensions[id].clientNotifications). */
  setNotificationHandler<M extends keyof ExtensionNotifications>(
    method: M,
    handler: ExtensionNotificationHandler<ExtensionNotifications[M]>,
  ): void;
  setNotificationHandler<M extends string>(method: NotIn<M, ExtensionNotifications>, handler: ExtensionNotificationHandler): void;
  setNotificationHandler(method: string, handler: ExtensionNotificationHandler<never>): void {
    this.extensionHandlers.setNotificationHandler(method, handler as ExtensionNotificationHandler);
  }

  /** The capabilities a session opened now declares. */
  capabilities(): ServerCapabilities {
    const caps: ServerCapabilities = { ...this.options.capabilities };
    if (this.options.logging !== false) caps.logging = {};
    if (this.tools.size > 0) caps.tools = { listChanged: true, ...caps.tools };
    if (this.resources.size > 0 || this.templates.size > 0) caps.resources = { subscribe: true, listChanged: true, ...caps.resources };
    if (this.prompts.size > 0) caps.prompts = { listChanged: true, ...caps.prompts };
    if (this.prompts.size > 0 || this.templates.size > 0) caps.completions = {};
    // Offered under 2026-07-28 through server/discover; the session era has no extensions and ignores the key.
    if (this.taskRunner !== undefined)
      (caps as { extensions?: object }).extensions = { ...(caps as { extensions?: object }).extensions, [TASKS_EXTENSION]: {} };
    return withExtensions(caps, this.options.extensions) as ServerCapabilities;
  }

  /**
   * Opens a session over a transport. Feed its receive* methods; it writes through the host.
   * With a snapshot (Engine.snapshot(), e.g. from a shared session store), it carries on that
   * negotiated session instead of awaiting initialize.
   */
  connect(host: PeerHost, snapshot?: EngineSnapshot): ServerSession {
    const session = new ServerSession(this, host, snapshot);
    this.sessions.add(session);
    return session;
  }

  /** Tells every subscribed session that a resource changed. */
  notifyResourceUpdated(uri: string): void {
    this.spread({ kind: "resourceUpdated", uri });
  }

  /**
   * @internal Set by a host whose sessions span processes (the HTTP handler with a shared
   * bus): it takes every change instead of this process's sessions, and applies it
   * (applyChange) on every process, each to the sessions it holds the streams of.
   */
  relay: ((change: ServerChange) => void) | undefined = undefined;

  /** @internal A change (this process's or another's) told to `sessions` (default: all of this process's). */
  applyChange(change: ServerChange, sessions: Iterable<ServerSession> = this.sessions): void {
    if (change.kind === "taskInput") {
      this.taskRunner?.answerHere(change.taskId, change.inputResponses).catch(() => undefined);
      return;
    }
    if (change.kind === "task" && change.task.status === "cancelled" && typeof change.task.taskId === "string")
      this.taskRunner?.stopHere(change.task.taskId, "the task was cancelled");
    for (const session of sessions) {
      if (change.kind === "listChanged") session.listChanged(change.method);
      else if (change.kind === "resourceUpdated") session.resourceUpdated(change.uri);
      else session.taskChanged(change.task);
    }
  }

  private spread(change: ServerChange): void {
    if (this.relay !== undefined) this.relay(change);
    else this.applyChange(change);
  }

  private register<V>(kind: string, map: Map<string, V>, key: string, value: V, changed: string): Registration {
    // Names are unique (a client could not tell two apart): a second registration is refused, not a replacement.
    if (map.has(key))
      throw new Error(
        `unique names: expected a ${kind} name not registered yet, got ${JSON.stringify(key)}, which is (remove() its registration first to replace it)`,
      );
    map.set(key, value);
    this.announce(changed);
    return {
      remove: () => {
        if (map.get(key) !== value) return;
        map.delete(key);
        this.announce(changed);
      },
    };
  }

  private announce(method: string): void {
    this.spread({ kind: "listChanged", method });
  }
}

const sessionToolOf = (t: ToolEntry): Tool => sessionTool(t.definition);
const definitionOf = (t: ToolEntry): Tool => t.definition;

export class ServerSession implements ContextSession {
  readonly engine: Engine<"server">;
  readonly driver: Driver<"server">;
  private readonly server: Server;
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

  constructor(server: Server, host: PeerHost, snapshot?: EngineSnapshot) {
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
    if (!this.engine.isSubscribed(uri)) return;
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

  private onRequest(id: RequestId, method: string, params: JsonObject | undefined, modern: ModernRequestInfo | undefined): void {
    const p = params ?? {};
    switch (method) {
      case "tools/list":
        this.respondPage(id, "tools", [...this.server.tools.values()].map(modern === undefined ? sessionToolOf : definitionOf), p.cursor);
        return;
      case "resources/list":
        this.respondPage(
          id,
          "resources",
          [...this.server.resources.values()].map((r) => r.definition),
          p.cursor,
        );
        return;
      case "resources/templates/list":
        this.respondPage(
          id,
          "resourceTemplates",
          [...this.server.templates.values()].map((t) => t.definition),
          p.cursor,
        );
        return;
      case "prompts/list":
        this.respondPage(
          id,
          "prompts",
          [...this.server.prompts.values()].map((t) => t.definition),
          p.cursor,
        );
        return;
      case "resources/subscribe":
      case "resources/unsubscribe":
      case "logging/setLevel":
        // The engine records subscriptions and the level from these answers.
        this.engine.respond(id, {});
        return;
      case "tasks/get":
      case "tasks/update":
      case "tasks/cancel":
        // Only under 2026-07-28, and only once the engine saw the extension offered and declared (the method table's extension column).
        if (this.server.taskRunner === undefined) break;
        this.run(id, method, p, modern);
        return;
      case "tools/call":
        if (modern === undefined && this.startPlainTool(id, p)) return;
        this.run(id, method, p, modern);
        return;
      case "resources/read":
      case "prompts/get":
      case "completion/complete":
        this.run(id, method, p, modern);
        return;
      default: {
        // An extension's request: the engine let it through only once both sides declared the extension (MT-03).
        const handler = this.server.extensionHandlers.request(method);
        if (handler === undefined) break;
        this.run(id, method, p, modern);
        return;
      }
    }
    this.engine.respondError(id, ErrorCode.MethodNotFound, `Method not served: ${method}`);
  }

  /** @internal Runs the handler of a request (RequestContext.work): a value, or a promise of one. */
  serve(context: RequestContext): object | Promise<object> {
    const p = context.params;
    switch (context.method) {
      case "tools/call":
        return callToolOrTask(this.server, this, p, context, this.host);
      case "resources/read":
        return readResource(this.server, this.engine.resourceNotFoundCode, String(p.uri), context);
      case "prompts/get":
        return getPrompt(this.server, p, context);
      case "completion/complete":
        return complete(this.server, p);
      case "tasks/get":
      case "tasks/update":
      case "tasks/cancel": {
        const runner = this.server.taskRunner as TaskRunner;
        const now = this.host.now();
        return context.method === "tasks/get"
          ? runner.get(p, now)
          : context.method === "tasks/update"
            ? runner.update(p, now)
            : runner.cancel(p, now);
      }
      default:
        // An extension's request (MT-03): request() ran it only when the extension has a handler.
        return (this.server.extensionHandlers.request(context.method) as ExtensionRequestHandler)(context.params, context);
    }
  }

  /** @internal Answers what a handler threw; an McpError becomes its JSON-RPC error. */
  answerError(context: RequestContext, error: unknown): void {
    if (error instanceof InputRequiredSignal && context.modern !== undefined)
      answerInputRequired(this.engine, context.requestId, context.method, context.modern, error, this.maxJsonDepth);
    else respondWithError(this.engine, context.requestId, error, this.maxJsonDepth);
  }

  /** @internal True while `job` is the running handler of `id`. */
  isCurrent(id: RequestId, job: HandlerJob): boolean {
    return this.handlers.isCurrent(id, job);
  }

  private respondPage(id: RequestId, key: string, items: readonly object[], cursor: unknown): void {
    respondPage(this.engine, this.server.paginator, id, key, items, cursor);
  }

  /** 2026-07-28: the rounds a request carries (its own method, so that run() makes no closure in the session era). */
  private openRounds(method: string, params: JsonObject): ReturnType<typeof openRounds> {
    const binding = (): string => roundBinding(method, params, this.inbound?.auth?.subject ?? this.inbound?.auth?.clientId);
    return openRounds(params, this.maxJsonDepth, this.server.options.inputRounds, binding, this.host.now());
  }

  /** A session-era call of a plain tool (plainToolOf), started at once through callTool alone; false when run() must take it. */
  private startPlainTool(id: RequestId, params: JsonObject): boolean {
    const entry = plainToolOf(this.server, params);
    if (entry === undefined || !this.handlers.hasRoom || jsonDepthExceeds(params.arguments, this.maxJsonDepth)) return false;
    this.handlers.runNow(id, new RequestContext(this, id, "tools/call", params, undefined, undefined, this.inbound), runPlainTool, entry);
    return true;
  }

  /** Runs a handler (now, or when a slot frees) and answers with its outcome. */
  private run(id: RequestId, method: string, params: JsonObject, modern: ModernRequestInfo | undefined): void {
    // The peer's own values are measured before a handler or a round walks or re-encodes them.
    let rounds: RoundState | undefined;
    if (modern !== undefined) {
      const opened = this.openRounds(method, params);
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
    this.handlers.run(id, new RequestContext(this, id, method, params, modern, rounds, this.inbound));
  }
}
