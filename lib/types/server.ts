// Server features, all requested by the client: resources, prompts, tools, logging and
// completion (RULES.md MT-01, MT-02, SCH-01, SCH-02), with their supporting objects (Resource,
// ResourceTemplate, Prompt, PromptArgument, PromptMessage, Tool, ToolAnnotations, …).

import type {
  Annotations,
  BaseRequestParams,
  EmptyResult,
  Icon,
  JsonObject,
  LoggingLevel,
  MessageRole,
  Meta,
  PaginatedRequestParams,
  PaginatedResult,
  Result,
} from "./base.js";
import type { BlobResourceContents, ContentBlock, TextResourceContents } from "./content.js";
import type { TaskAugmentedRequestParams } from "./tasks.js";

// ---- Resources ----------------------------------------------------------------------

/** A resource the server can read. */
export interface Resource {
  uri: string;
  /** Programmatic name; the display fallback when `title` is absent. */
  name: string;
  /** @since 2025-06-18 */
  title?: string;
  description?: string;
  mimeType?: string;
  /** Size of the raw content in bytes (before base64 or tokenization), if known. */
  size?: number;
  annotations?: Annotations;
  /** @since 2025-11-25 */
  icons?: Icon[];
  /** @since 2025-06-18 */
  _meta?: Meta;
}

/** A template (RFC 6570) for resources the server can read. */
export interface ResourceTemplate {
  /** An RFC 6570 URI template. */
  uriTemplate: string;
  name: string;
  /** @since 2025-06-18 */
  title?: string;
  description?: string;
  /** MIME type of every matching resource, when they all share one. */
  mimeType?: string;
  annotations?: Annotations;
  /** @since 2025-11-25 */
  icons?: Icon[];
  /** @since 2025-06-18 */
  _meta?: Meta;
}

/** Params of `resources/list`. */
export type ListResourcesRequestParams = PaginatedRequestParams;

/** Result of `resources/list`. */
export interface ListResourcesResult extends PaginatedResult {
  resources: Resource[];
}

/** Params of `resources/templates/list`. */
export type ListResourceTemplatesRequestParams = PaginatedRequestParams;

/** Result of `resources/templates/list`. */
export interface ListResourceTemplatesResult extends PaginatedResult {
  resourceTemplates: ResourceTemplate[];
}

/** Params naming one resource (schema `ResourceRequestParams`, 2025-11-25). */
export interface ResourceRequestParams extends BaseRequestParams {
  uri: string;
}

/** Params of `resources/read`. */
export type ReadResourceRequestParams = ResourceRequestParams;

/** Result of `resources/read`. */
export interface ReadResourceResult extends Result {
  contents: (TextResourceContents | BlobResourceContents)[];
}

/** Params of `resources/subscribe`. */
export type SubscribeRequestParams = ResourceRequestParams;

/** Params of `resources/unsubscribe`. */
export type UnsubscribeRequestParams = ResourceRequestParams;

// ---- Prompts ------------------------------------------------------------------------

/** An argument a prompt template accepts. */
export interface PromptArgument {
  name: string;
  /** @since 2025-06-18 */
  title?: string;
  description?: string;
  /** Whether the argument must be given. */
  required?: boolean;
}

/** A prompt or prompt template the server offers. */
export interface Prompt {
  name: string;
  /** @since 2025-06-18 */
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  /** @since 2025-11-25 */
  icons?: Icon[];
  /** @since 2025-06-18 */
  _meta?: Meta;
}

/**
 * A message of a prompt. `content` is one block: text | image | resource (2024-11-05),
 * plus audio (2025-03-26) and resource_link (2025-06-18).
 */
export interface PromptMessage {
  role: MessageRole;
  content: ContentBlock;
}

/** Params of `prompts/list`. */
export type ListPromptsRequestParams = PaginatedRequestParams;

/** Result of `prompts/list`. */
export interface ListPromptsResult extends PaginatedResult {
  prompts: Prompt[];
}

/** Params of `prompts/get`. */
export interface GetPromptRequestParams extends BaseRequestParams {
  name: string;
  /** Template arguments, by name. */
  arguments?: { [name: string]: string };
}

/** Result of `prompts/get`. */
export interface GetPromptResult extends Result {
  description?: string;
  messages: PromptMessage[];
}

// ---- Tools --------------------------------------------------------------------------

/**
 * A tool's `inputSchema` / `outputSchema`: a JSON Schema object whose root is
 * `type: "object"`. JSON Schema is an open vocabulary (the specification itself recommends
 * `additionalProperties: false` for tools without parameters), so this type is open.
 */
export interface ToolSchema {
  /** The dialect; JSON Schema 2020-12 when absent. @since 2025-11-25 */
  $schema?: string;
  type: "object";
  properties?: { [name: string]: JsonObject };
  required?: string[];
  [keyword: string]: unknown;
}

/**
 * Hints about a tool's behaviour. All are hints: untrusted unless the server is trusted.
 * @since 2025-03-26
 */
export interface ToolAnnotations {
  /** A display title (after `Tool.title`, before `Tool.name`). */
  title?: string;
  /** The tool does not modify its environment. Default false. */
  readOnlyHint?: boolean;
  /** The tool may perform destructive updates (meaningful when not read-only). Default true. */
  destructiveHint?: boolean;
  /** Repeated calls with the same arguments have no further effect. Default false. */
  idempotentHint?: boolean;
  /** The tool interacts with an open world of external entities. Default true. */
  openWorldHint?: boolean;
}

/** Execution-related properties of a tool. @since 2025-11-25 */
export interface ToolExecution {
  /** Whether `tools/call` may / must be task-augmented. Default `"forbidden"`. */
  taskSupport?: "forbidden" | "optional" | "required";
}

/** A tool the client can call. */
export interface Tool {
  /** SHOULD be 1-128 characters of `[A-Za-z0-9_.-]` (2025-11-25). */
  name: string;
  /** @since 2025-06-18 */
  title?: string;
  description?: string;
  inputSchema: ToolSchema;
  /** Schema of `CallToolResult.structuredContent`. @since 2025-06-18 */
  outputSchema?: ToolSchema;
  /** @since 2025-03-26 */
  annotations?: ToolAnnotations;
  /** @since 2025-11-25 */
  execution?: ToolExecution;
  /** @since 2025-11-25 */
  icons?: Icon[];
  /** @since 2025-06-18 */
  _meta?: Meta;
}

/** Params of `tools/list`. */
export type ListToolsRequestParams = PaginatedRequestParams;

/** Result of `tools/list`. */
export interface ListToolsResult extends PaginatedResult {
  tools: Tool[];
}

/** Params of `tools/call`; `task` (2025-11-25) asks for a `CreateTaskResult` instead of the result. */
export interface CallToolRequestParams extends TaskAugmentedRequestParams {
  name: string;
  arguments?: JsonObject;
}

/** Result of `tools/call` (when not task-augmented). */
export interface CallToolResult extends Result {
  /** Unstructured result; required even when `structuredContent` is present. */
  content: ContentBlock[];
  /** Structured result, conforming to the tool's `outputSchema` if any. @since 2025-06-18 */
  structuredContent?: JsonObject;
  /** The tool failed (a tool execution error the model can see). Default false. */
  isError?: boolean;
}

// ---- Logging ------------------------------------------------------------------------

/** Params of `logging/setLevel`. */
export interface SetLevelRequestParams extends BaseRequestParams {
  /** The lowest level the client wants to receive. */
  level: LoggingLevel;
}

/** Result of `logging/setLevel`: `{}`. */
export type SetLevelResult = EmptyResult;

// ---- Completion ---------------------------------------------------------------------

/** Completion for a prompt argument. */
export interface PromptReference {
  type: "ref/prompt";
  name: string;
  /** @since 2025-06-18 */
  title?: string;
}

/** Completion for a resource template variable (named `ResourceReference` before 2025-06-18). */
export interface ResourceTemplateReference {
  type: "ref/resource";
  /** The URI template. */
  uri: string;
}

/**
 * The 2024-11-05 / 2025-03-26 name of `ResourceTemplateReference` (same wire shape).
 * @deprecated Renamed `ResourceTemplateReference` in 2025-06-18.
 */
export type ResourceReference = ResourceTemplateReference;

/** Params of `completion/complete`. */
export interface CompleteRequestParams extends BaseRequestParams {
  ref: PromptReference | ResourceTemplateReference;
  /** The argument being completed. */
  argument: { name: string; value: string };
  /** @since 2025-06-18 */
  context?: {
    /** Already-resolved arguments, by name. */
    arguments?: { [name: string]: string };
  };
}

/** Result of `completion/complete`. */
export interface CompleteResult extends Result {
  completion: {
    /** At most 100 values. */
    values: string[];
    /** Total number of options, which may exceed `values.length`. */
    total?: number;
    /** More options exist beyond those returned. */
    hasMore?: boolean;
  };
}
