// The server side of the peer layer: registries of tools, resources, resource templates,
// prompts and completions, answered over one engine per session (session.ts).
//
// A Server holds the registries and the method table built from them (dispatch.ts);
// connect(host) opens a ServerSession (one engine, one driver) whose capabilities follow from
// what is registered at that moment. Registering or removing later sends list_changed to
// every operating session that declared it (a 2026-07-28 session: to its
// subscriptions/listen streams that opted in).
//
// Invariants:
// - lists come in one page unless the author asked for pages (paging);
// - tool failures (validation, thrown errors, bad structuredContent) become isError results
//   without stack traces; protocol errors are for unknown tools/prompts and bad cursors;
// - names are unique per registry: a second registration of a name is refused, not a replacement;
// - a call of a shape it does not take (constructor options, server.tool's arguments, a
//   callback that is not a function) is refused where it is made, never at the first request
//   (call-shapes.ts);
// - this file reads no clock and starts no timer; time comes through each session's PeerHost.

import type { EngineSnapshot } from "../../engine/engine.js";
import type { Paginator } from "../../codec/pagination.js";
import type { Implementation, Prompt, PromptArgument, ServerCapabilities, Tool } from "../../types/index.js";
import type { UriTemplate } from "../../uri-template/template.js";
import type { PeerHost } from "../shared/driver.js";
import {
  withExtensions,
  type ExtensionNotifications,
  type ExtensionRequests,
  type NotIn,
  type ParamsOf,
  type ResultOf,
} from "../shared/custom-methods.js";
import { extensionEntry, methodTable } from "./dispatch.js";
import { ExtensionHandlers } from "./extension-handlers.js";
import { checkCallback, checkUriTemplate, serverOptionsOf, toolCallOf } from "./call-shapes.js";
import { argumentsValidator, checkToolName, listable } from "./registration.js";
import type { NotOptions, NotSchema, PromptArgs, ToolArgs, ToolParams, ToolResultFor, ToolSchemaInput } from "./schema-types.js";
import type {
  ExtensionNotificationHandler,
  ExtensionRequestHandler,
  PromptDefinition,
  PromptEntry,
  PromptHandler,
  Registration,
  ResourceDefinition,
  ResourceEntry,
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
import { ServerSession, type MethodEntry } from "./session.js";
import type { StandardSchemaV1 } from "./standard-schema.js";
import type { TaskRunner } from "./task-server.js";
import type { ServedTasks } from "./task-support.js";
import { resolvePromptArguments, resolveToolSchemas } from "./typed-schemas.js";

export class Server {
  readonly options: ServerOptions;
  /** Undefined when lists come in one page (no paging). */
  readonly paginator: Paginator | undefined;
  readonly sessions = new Set<ServerSession>();
  /** @internal registries, read by sessions */
  readonly tools = new Map<string, ToolEntry>();
  readonly resources = new Map<string, ResourceEntry>();
  readonly templates = new Map<string, TemplateEntry>();
  readonly prompts = new Map<string, PromptEntry>();
  /** @internal What the Server serves of the tasks extension; undefined without ServerOptions.tasks. */
  readonly tasks: ServedTasks | undefined;
  /** The tasks extension's runner; undefined without ServerOptions.tasks. */
  readonly taskRunner: TaskRunner | undefined;
  /** @internal the extensions of ServerOptions.extensions, and the handlers of their client notifications */
  readonly extensionHandlers: ExtensionHandlers;
  /** @internal how each request method is served (dispatch.ts), read by sessions */
  readonly methods: Map<string, MethodEntry>;

  /**
   * Takes ServerOptions, or the SDK's habit: the name and version in place of `info`, with
   * the other options beside them or as a second argument (`new Server({ name, version },
   * { instructions })`). Throws an Error on any other shape, on an option it does not know
   * (naming the known ones) and on an info without name and version strings (call-shapes.ts).
   */
  constructor(options: ServerOptions);
  constructor(info: Implementation & Omit<ServerOptions, "info">, options?: Omit<ServerOptions, "info">);
  constructor(first: ServerOptions | (Implementation & Omit<ServerOptions, "info">), second?: Omit<ServerOptions, "info">) {
    const options = serverOptionsOf(first, second);
    this.options = options;
    this.extensionHandlers = new ExtensionHandlers(options.extensions);
    this.tasks = options.tasks?.attach(
      (task) => this.spread({ kind: "task", task }),
      (taskId, inputResponses) => this.spread({ kind: "taskInput", taskId, inputResponses }),
    );
    this.taskRunner = this.tasks?.runner;
    this.paginator = options.paging;
    this.methods = methodTable(this);
  }

  /**
   * Registers a tool, in any of the forms of this library and of the SDKs:
   * `tool(name, options, handler)` (options as registerTool's: title, description, inputSchema,
   * outputSchema, annotations, ...), `tool(name, description, params, handler)`,
   * `tool(name, params, handler)`, `tool(name, description, handler)`, `tool(name, handler)`.
   * A schema (inputSchema, outputSchema, params) is a JSON Schema with root type "object", a
   * Standard Schema, or a map of parameter schemas: JSON Schemas, each required unless it has a
   * `default` (filled in when left out), or Standard Schemas, read as z.object(map).
   *
   * Throws an Error for any other form (naming the accepted ones), an unknown option, a name
   * outside [A-Za-z0-9_.-]{1,128} (the 2025-11-25 tool-name rule), a schema whose root type is
   * not "object" (J-02) or that the built-in validator cannot apply, a definition that cannot
   * be encoded as JSON, or a name registered already; with a Standard Schema, also when no JSON
   * Schema can be listed for it (no ~standard.jsonSchema and no jsonSchema option; typed-schemas.ts).
   */
  // The options form comes first and again last. First: a callback inside the options (a
  // validator) is typed by the options' context before any other form types it for good
  // (the compiler caches such an argument's type across overloads). Last: when no form fits,
  // the compiler reports the last one's error, the options form's (say, a wrong structuredContent).
  tool<
    const I extends ToolSchemaInput | undefined = undefined,
    const O extends ToolSchemaInput | undefined = undefined,
    V extends StandardSchemaV1 | undefined = undefined,
  >(name: string, definition: ToolDefinition<I, O, V> & NotSchema, handler: ToolHandler<ToolArgs<I, V>, ToolResultFor<O>>): Registration;
  tool(name: string, handler: ToolHandler): Registration;
  tool(name: string, description: string, handler: ToolHandler): Registration;
  tool<const P extends ToolParams>(
    name: string,
    description: string,
    params: P & NotOptions,
    handler: ToolHandler<ToolArgs<P>>,
  ): Registration;
  tool<const P extends ToolParams>(name: string, params: P & NotOptions, handler: ToolHandler<ToolArgs<P>>): Registration;
  tool<
    const I extends ToolSchemaInput | undefined = undefined,
    const O extends ToolSchemaInput | undefined = undefined,
    V extends StandardSchemaV1 | undefined = undefined,
  >(name: string, definition: ToolDefinition<I, O, V> & NotSchema, handler: ToolHandler<ToolArgs<I, V>, ToolResultFor<O>>): Registration;
  tool(name: string, ...rest: unknown[]): Registration {
    if (this.options.allowAnyToolName !== true) checkToolName(name);
    else if (typeof name !== "string" || name.length === 0)
      throw new Error(`tool name rule: expected a non-empty string, got ${typeof name === "string" ? "an empty name" : typeof name}`);
    const { definition, handler } = toolCallOf(name, rest);
    const schemas = resolveToolSchemas(name, definition);
    const tool: Tool = { name, inputSchema: schemas.inputSchema };
    if (definition.title !== undefined) tool.title = definition.title;
    if (definition.description !== undefined) tool.description = definition.description;
    if (schemas.outputSchema !== undefined) tool.outputSchema = schemas.outputSchema;
    if (definition.annotations !== undefined) tool.annotations = definition.annotations;
    if (definition._meta !== undefined) tool._meta = definition._meta;
    if (definition.taskSupport !== undefined) {
      if (this.tasks === undefined)
        throw new Error(
          `tool ${name}: taskSupport ${JSON.stringify(definition.taskSupport)} needs ServerOptions.tasks (serveTasks({ newTaskId })); got none`,
        );
      tool.execution = { taskSupport: definition.taskSupport };
    }
    // The entry holds the handler untyped: the validator made its arguments what ToolArgs<I> says.
    const entry: ToolEntry = {
      definition: listable(`tool ${name}`, tool),
      validator: argumentsValidator(schemas.validator),
      outputValidator: schemas.outputValidator,
      handler,
      taskSupport: definition.taskSupport,
      beforeTask: definition.beforeTask as ToolEntry["beforeTask"],
    };
    return this.register("tool", this.tools, name, entry, "notifications/tools/list_changed");
  }

  /** Registers a resource. Throws an Error unless called as resource(uri, { name, ... }, read), or when the URI is registered already. */
  resource(uri: string, definition: ResourceDefinition, read: ResourceReader): Registration {
    checkCallback("resource", "server.resource(uri, { name, title?, description?, mimeType?, ... }, read)", uri, definition, read);
    return this.register(
      "resource",
      this.resources,
      uri,
      { definition: listable(`resource ${uri}`, { uri, ...definition }), read },
      "notifications/resources/list_changed",
    );
  }

  /**
   * Registers a resource template: `resourceTemplate(parseTemplate("users://{id}"), { name, ... }, read)`
   * (the template parsed by the caller, so that a Server without templates bundles no RFC 6570
   * code). Throws an Error for any other shape, a string in place of the parsed template included.
   */
  resourceTemplate(template: UriTemplate, definition: ResourceTemplateDefinition, read: TemplateReader): Registration {
    const form = "server.resourceTemplate(parseTemplate(uriTemplate), { name, title?, description?, mimeType?, complete? }, read)";
    checkUriTemplate(form, template);
    const uriTemplate = template.template;
    checkCallback("resource template", form, uriTemplate, definition, read);
    const { complete, ...rest } = definition;
    const entry: TemplateEntry = {
      definition: listable(`resource template ${uriTemplate}`, { uriTemplate, ...rest }),
      template,
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
    checkCallback(
      "prompt",
      "server.prompt(name, { title?, description?, arguments? or argsSchema?, complete? }, handler)",
      name,
      definition,
      handler,
    );
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
    this.extensionHandlers.checkRequestMethod(method);
    this.methods.set(method, extensionEntry(method, handler as ExtensionRequestHandler));
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
    return withExtensions(this.tasks === undefined ? caps : this.tasks.declare(caps), this.options.extensions) as ServerCapabilities;
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
    // Core tasks (2025-11-25) hear every change too: a cancel from another process, an end a tasks/result here waits on.
    if (change.kind === "task") this.tasks?.core?.changed(change.task);
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
