// The types a Server is built from and its handlers are written against: its options (with
// the tasks extension's), the definitions and handlers of tools, resources, resource
// templates, prompts and extension methods, the context every handler receives
// (HandlerContext), the registry entries the methods read, and the changes a Server spreads
// to its sessions. This file holds no logic; it names ServerSession because the public types
// do (ctx.session, onDiagnostic, onSessionClosed).

import type { EngineLimits } from "../../engine/engine.js";
import type { Paginator } from "../../codec/pagination.js";
import type { JsonObject, RequestId } from "../../wire/envelope.js";
import type { EngineEvent } from "../../engine/events.js";
import type { ModernRequestInfo } from "../../rules/modern.js";
import type { ProtocolVersion } from "../../rules/versions.js";
import type { AuthInfo } from "../../auth/types.js";
import type {
  CallToolResult,
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  GetPromptResult,
  Implementation,
  ListRootsResult,
  LoggingLevel,
  Prompt,
  PromptArgument,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
  ToolAnnotations,
} from "../../types/index.js";
import type { CallOptions } from "../shared/call-options.js";
import type { Extensions } from "../shared/custom-methods.js";
import type { PlatformAbortSignal } from "../shared/signal.js";
import type { InputRequest, TransportRequestInfo } from "./context.js";
import type { RoundSealer } from "./round-sealing.js";
import type { ToolArgs, ToolSchemaInput } from "./schema-types.js";
import type { ServerSession } from "./session.js";
import type { StandardSchemaV1, ToolValidator } from "./standard-schema.js";
import type { TaskStore } from "./task-store.js";
import type { TaskSupport } from "./task-support.js";
import type { ExplicitJsonSchemas } from "./typed-schemas.js";
import type { UriTemplate } from "../../uri-template/template.js";

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
  /**
   * Aborted when the client cancels the request or the session closes (a task's: when it is
   * cancelled or expires). The runtime's own AbortSignal: hand it to fetch, streams, timers.
   */
  readonly signal: PlatformAbortSignal;
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

/** A server's handler of an extension request: its params as sent, its result answered like any handler's. */
export type ExtensionRequestHandler<P = JsonObject | undefined, R extends object = object> = (
  params: P,
  context: HandlerContext,
) => R | Promise<R>;

/** A server's handler of an extension notification from the client. */
export type ExtensionNotificationHandler<P = JsonObject | undefined> = (params: P, session: ServerSession) => void;

/**
 * A tool. `inputSchema` / `outputSchema`: a JSON Schema object (listed as given, applied by the
 * built-in validator; a literal types `args` and structuredContent) or a Standard Schema (zod,
 * valibot, ...: it validates, applies defaults and types them; its library produces the listed
 * JSON Schema through `~standard.jsonSchema`, else give `jsonSchema`). See typed-schemas.ts.
 */
export interface ToolDefinition<
  I = ToolSchemaInput | undefined,
  O = ToolSchemaInput | undefined,
  V extends StandardSchemaV1 | undefined = StandardSchemaV1 | undefined,
> {
  title?: string;
  description?: string;
  inputSchema?: I;
  outputSchema?: O;
  /** The JSON Schemas to list for Standard Schemas whose library produces none (valibot without its converter). */
  jsonSchema?: ExplicitJsonSchemas;
  annotations?: ToolAnnotations;
  _meta?: { [key: string]: unknown };
  /** Validates arguments: a function, a Standard Schema, or { jsonSchema }. Default: inputSchema (with the built-in validator for a JSON Schema). */
  validator?: V | Exclude<ToolValidator, StandardSchemaV1>;
  /**
   * Tasks extension (2026-07-28, needs ServerOptions.tasks): "optional", the tool runs as a
   * task whenever the request declares the extension; "required", it runs only as a task
   * (a request without the extension is refused with -32021). Listed as execution.taskSupport.
   */
  taskSupport?: "optional" | "required";
  /** Runs in the request before its task is created (input rounds allowed, SEP-2322); its value reaches the handler as ctx.prepared. */
  beforeTask?: (args: ToolArgs<I, V>, context: HandlerContext) => unknown;
}

/** A tool's handler: `args` typed by the inputSchema, its result's structuredContent by the outputSchema (schema-types.ts). */
export type ToolHandler<A = Record<string, unknown>, R = CallToolResult> = (args: A, context: HandlerContext) => R | Promise<R>;

export interface ResourceDefinition {
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Resource["annotations"];
}

export type ResourceReader = (uri: string, context: HandlerContext) => ReadResourceResult | Promise<ReadResourceResult>;

export interface ResourceTemplateDefinition {
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Completions for template variables, by variable name. */
  complete?: { [variable: string]: Completer };
}

export type TemplateReader = (
  uri: string,
  variables: Record<string, string | string[]>,
  context: HandlerContext,
) => ReadResourceResult | Promise<ReadResourceResult>;

/** Candidate values for an argument, given what the user typed and the other arguments. */
export type Completer = (value: string, context: { arguments: Record<string, string> }) => string[] | Promise<string[]>;

export interface PromptDefinition<A = readonly PromptArgument[] | undefined, S = ToolSchemaInput | undefined> {
  title?: string;
  description?: string;
  /** Listed as given; a literal types the handler's args (required ones are strings). Derived from argsSchema when absent. */
  arguments?: A;
  /** A Standard Schema or a JSON Schema object that validates (and types) the arguments; -32602 with the path of each problem when they do not match. */
  argsSchema?: S;
  /** The JSON Schema (input) to derive `arguments` from, for an argsSchema whose library produces none. */
  jsonSchema?: ExplicitJsonSchemas;
  /** Completions for prompt arguments, by argument name. */
  complete?: { [argument: string]: Completer };
}

export type PromptHandler<A = Record<string, string>> = (args: A, context: HandlerContext) => GetPromptResult | Promise<GetPromptResult>;

export interface ServerOptions {
  info: Implementation;
  instructions?: string;
  /** Versions spoken. Adding 2026-07-28 makes every session dual-era (the first message picks the era); only 2026-07-28: modern-only. */
  versions?: readonly ProtocolVersion[];
  strict?: boolean;
  limits?: Partial<EngineLimits>;
  /** 2026-07-28: answer server/discover whatever version it names (default true; see EngineOptions.discoverAnyVersion). */
  discoverAnyVersion?: boolean;
  /** 2026-07-28: serverInfo in every result's _meta (default true; see EngineOptions.serverInfoInResults). */
  serverInfoInResults?: boolean;
  /**
   * Pages for tools/list, resources/list, resources/templates/list and prompts/list:
   * `new Paginator({ pageSize, secret })`, the secret sealing the cursors (at least 16 bytes
   * from a cryptographic source). Default: no pages (every item in one answer: many clients
   * never follow nextCursor), and no cursor code in a bundle.
   */
  paging?: Paginator;
  /** Handlers running at once per session; more requests wait their turn, in order (bounded by limits.maxPendingInbound). Default 100. */
  maxConcurrentHandlers?: number;
  /** The deepest value accepted in a peer's inputResponses and carried answers, and sent in results. Default 256. */
  maxJsonDepth?: number;
  /**
   * Accept tool names outside [A-Za-z0-9_.-]{1,128}. The 2025-11-25 rule is a SHOULD, and some
   * clients refuse other names; a name that is not ASCII travels in Mcp-Name base64-encoded
   * (2026-07-28). Default false: server.tool() refuses such a name.
   */
  allowAnyToolName?: boolean;
  /** Declare the logging capability. Default true. */
  logging?: boolean;
  /** Capabilities to declare even when nothing is registered yet (merged with the derived ones). */
  capabilities?: ServerCapabilities;
  /** Timeout for requests the server sends to the client (sampling, elicitation, roots). Default 60000. */
  defaultTimeoutMs?: number;
  onDiagnostic?: (event: Extract<EngineEvent, { kind: "violation" | "diagnostic" }>, session: ServerSession) => void;
  onSessionClosed?: (session: ServerSession) => void;
  /** 2026-07-28: seal the requestState of ctx.elicit/createMessage/listRoots rounds, which carries ctx.once values: `sealedRounds({ secret, ttlMs? })` (round-sealing.ts). */
  inputRounds?: RoundSealer;
  /** Serve the 2026-07-28 tasks extension (io.modelcontextprotocol/tasks): `serveTasks({ newTaskId, store? })` (task-support.ts). */
  tasks?: TaskSupport;
  /** Extensions served (RULES.md MT-03): declared under `capabilities.extensions`; their handlers are set with setRequestHandler and setNotificationHandler. */
  extensions?: Extensions;
}

/** @internal */
export interface ToolEntry {
  readonly definition: Tool;
  readonly validator: ToolValidator | undefined;
  readonly outputValidator: ToolValidator | undefined;
  readonly handler: ToolHandler;
  readonly taskSupport: "optional" | "required" | undefined;
  readonly beforeTask: ((args: Record<string, unknown>, context: HandlerContext) => unknown) | undefined;
}

/** @internal */
export interface ResourceEntry {
  readonly definition: Resource;
  readonly read: ResourceReader;
}

/** @internal */
export interface TemplateEntry {
  readonly definition: ResourceTemplate;
  readonly template: UriTemplate;
  readonly read: TemplateReader;
  readonly complete: { [variable: string]: Completer } | undefined;
}

/** @internal */
export interface PromptEntry {
  readonly definition: Prompt;
  readonly handler: PromptHandler;
  readonly validator: ToolValidator | undefined;
  readonly complete: { [argument: string]: Completer } | undefined;
}

/** The options of serveTasks (the tasks extension, ServerOptions.tasks): where tasks live and how their ids are made. */
export interface TaskOptions {
  /** Where tasks live. Default: a MemoryTaskStore (this process only). */
  store?: TaskStore;
  /** Unguessable task ids (SEP-2663: they may act as bearer tokens): the host's source of randomness, e.g. crypto.randomUUID. */
  newTaskId: () => string;
  /** How long a task is kept from its creation, ms; null: until deleted. Default 3600000. */
  ttlMs?: number | null;
  /** The polling interval suggested to clients, ms. Default 1000. */
  pollIntervalMs?: number;
  /**
   * Also serve the 2025-11-25 core tasks to session-era clients (the `tasks` capability:
   * task-augmented tools/call, tasks/get, tasks/result, tasks/list, tasks/cancel), from the
   * same store. Default false.
   */
  core?: boolean;
}

/** What a Server tells its sessions about: a list changed, a resource changed, a task changed (its wire form). */
export type ServerChange =
  | { readonly kind: "listChanged"; readonly method: string }
  | { readonly kind: "resourceUpdated"; readonly uri: string }
  | { readonly kind: "task"; readonly task: JsonObject }
  /** tasks/update for a task another process runs (its answers, for that process). */
  | { readonly kind: "taskInput"; readonly taskId: string; readonly inputResponses: JsonObject };

/** Returned by every registration; remove() unregisters and announces the change. */
export interface Registration {
  remove(): void;
}
