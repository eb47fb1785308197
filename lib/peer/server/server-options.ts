// The types a Server is built from: its options, the definitions and handlers of tools,
// resources, resource templates and prompts, the registry entries sessions read, and the
// changes a Server spreads to its sessions. Re-exported from server.ts (the public names
// stay there); this file holds no logic.

import type { EngineLimits } from "../../engine/engine.js";
import type { JsonObject } from "../../wire/envelope.js";
import type { EngineEvent } from "../../engine/events.js";
import type { ProtocolVersion } from "../../rules/versions.js";
import type {
  CallToolResult,
  GetPromptResult,
  Implementation,
  Prompt,
  PromptArgument,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
  ToolAnnotations,
} from "../../types/index.js";
import type { HandlerContext } from "./context.js";
import type { Extensions } from "../shared/custom-methods.js";
import type { InputRoundsOptions } from "./round-state.js";
import type { ToolArgs, ToolSchemaInput } from "./schema-types.js";
import type { ServerSession } from "./server.js";
import type { StandardSchemaV1, ToolValidator } from "./standard-schema.js";
import type { TaskOptions } from "./task-server.js";
import type { ExplicitJsonSchemas } from "./typed-schemas.js";
import type { UriTemplate } from "../../uri-template/template.js";

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
   * Items per page of tools/list, resources/list, resources/templates/list and prompts/list.
   * Default: no pages (every item in one answer: many clients never follow nextCursor).
   */
  pageSize?: number;
  /** Secret sealing the pagination cursors (at least 16 bytes from a cryptographic source); required with pageSize, unused without. */
  paginationSecret?: Uint8Array;
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
  /** 2026-07-28: seal the requestState of ctx.elicit/createMessage/listRoots rounds, which carries ctx.once values (round-state.ts). */
  inputRounds?: InputRoundsOptions;
  /** Serve the 2026-07-28 tasks extension (io.modelcontextprotocol/tasks): where tasks live and how their ids are made. */
  tasks?: TaskOptions;
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
