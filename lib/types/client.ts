// Client features, all requested by the server: sampling (`sampling/createMessage`),
// roots (`roots/list`) and elicitation (`elicitation/create`, 2025-06-18), with their
// supporting objects (SamplingMessage, ModelPreferences, ToolChoice, Root, the
// elicitation PrimitiveSchemaDefinition variants incl. the 2025-11-25 enum schemas).

import type { BaseRequestParams, JsonObject, MessageRole, Meta, Result } from "./base.js";
import type { SamplingMessageContentBlock } from "./content.js";
import type { Tool } from "./server.js";
import type { TaskAugmentedRequestParams } from "./tasks.js";

// ---- Sampling -----------------------------------------------------------------------

/**
 * A message in a sampling conversation. 2025-11-25 widened `content` to a block **or an
 * array of blocks** (typed here in the wider form); earlier versions send one block.
 */
export interface SamplingMessage {
  role: MessageRole;
  content: SamplingMessageContentBlock | SamplingMessageContentBlock[];
  /** @since 2025-11-25 */
  _meta?: Meta;
}

/** A hint for model selection; `name` may be a substring of a model name. */
export interface ModelHint {
  name?: string;
}

/** The server's model-selection preferences; the client MAY ignore them. */
export interface ModelPreferences {
  /** Evaluated in order; the first match wins. */
  hints?: ModelHint[];
  /** 0 … 1. */
  costPriority?: number;
  /** 0 … 1. */
  speedPriority?: number;
  /** 0 … 1. */
  intelligencePriority?: number;
}

/** How the model may use tools in sampling. @since 2025-11-25 */
export interface ToolChoice {
  /** `"auto"` (default): model decides; `"required"`: must use a tool; `"none"`: must not. */
  mode?: "auto" | "required" | "none";
}

/** Params of `sampling/createMessage`. */
export interface CreateMessageRequestParams extends TaskAugmentedRequestParams {
  messages: SamplingMessage[];
  modelPreferences?: ModelPreferences;
  systemPrompt?: string;
  /**
   * Context from MCP servers to attach. Default `"none"`; `"thisServer"` / `"allServers"`
   * are soft-deprecated in 2025-11-25 and need the client's `sampling.context` capability.
   */
  includeContext?: "none" | "thisServer" | "allServers";
  temperature?: number;
  /** Maximum number of tokens to sample. */
  maxTokens: number;
  stopSequences?: string[];
  /** Provider-specific metadata passed through to the LLM provider. */
  metadata?: JsonObject;
  /** Tools the model may use; needs the client's `sampling.tools` capability. @since 2025-11-25 */
  tools?: Tool[];
  /** Needs the client's `sampling.tools` capability. Default `{ mode: "auto" }`. @since 2025-11-25 */
  toolChoice?: ToolChoice;
}

/**
 * Why sampling stopped. Open string; the standard values are listed (`"toolUse"` since
 * 2025-11-25).
 */
export type StopReason = "endTurn" | "stopSequence" | "maxTokens" | "toolUse" | (string & {});

/** Result of `sampling/createMessage` (when not task-augmented). */
export interface CreateMessageResult extends Result {
  role: MessageRole;
  /** One block, or (2025-11-25) an array of blocks; see `SamplingMessage.content`. */
  content: SamplingMessageContentBlock | SamplingMessageContentBlock[];
  /** The model that generated the message. */
  model: string;
  stopReason?: StopReason;
}

// ---- Roots --------------------------------------------------------------------------

/** A root the server may operate in. */
export interface Root {
  /** MUST be a `file://` URI. */
  uri: string;
  name?: string;
  /** @since 2025-06-18 */
  _meta?: Meta;
}

/** Params of `roots/list` (optional: only `_meta`). */
export type ListRootsRequestParams = BaseRequestParams;

/** Result of `roots/list`. */
export interface ListRootsResult extends Result {
  roots: Root[];
}

// ---- Elicitation (2025-06-18) -------------------------------------------------------

/** A string field. @since 2025-06-18 */
export interface StringSchema {
  type: "string";
  title?: string;
  description?: string;
  minLength?: number;
  maxLength?: number;
  format?: "email" | "uri" | "date" | "date-time";
  /** @since 2025-11-25 */
  default?: string;
}

/** A number or integer field. @since 2025-06-18 */
export interface NumberSchema {
  type: "number" | "integer";
  title?: string;
  description?: string;
  minimum?: number;
  maximum?: number;
  /** @since 2025-11-25 */
  default?: number;
}

/** A boolean field. @since 2025-06-18 */
export interface BooleanSchema {
  type: "boolean";
  title?: string;
  description?: string;
  default?: boolean;
}

/** One titled option of an enum schema. @since 2025-11-25 */
export interface EnumOption {
  /** The value sent back. */
  const: string;
  /** Its display label. */
  title: string;
}

/** Single selection from plain values. @since 2025-11-25 */
export interface UntitledSingleSelectEnumSchema {
  type: "string";
  title?: string;
  description?: string;
  enum: string[];
  default?: string;
}

/** Single selection from titled options (`oneOf` of `{const, title}`). @since 2025-11-25 */
export interface TitledSingleSelectEnumSchema {
  type: "string";
  title?: string;
  description?: string;
  oneOf: EnumOption[];
  default?: string;
}

/** Multiple selection from plain values. @since 2025-11-25 */
export interface UntitledMultiSelectEnumSchema {
  type: "array";
  title?: string;
  description?: string;
  minItems?: number;
  maxItems?: number;
  items: { type: "string"; enum: string[] };
  default?: string[];
}

/** Multiple selection from titled options (`items.anyOf` of `{const, title}`). @since 2025-11-25 */
export interface TitledMultiSelectEnumSchema {
  type: "array";
  title?: string;
  description?: string;
  minItems?: number;
  maxItems?: number;
  items: { anyOf: EnumOption[] };
  default?: string[];
}

/**
 * An enum with parallel display names in `enumNames` (non-standard JSON Schema). In
 * 2025-06-18 this was the only enum form, then named `EnumSchema`.
 * @since 2025-06-18
 * @deprecated Since 2025-11-25: use `TitledSingleSelectEnumSchema`.
 */
export interface LegacyTitledEnumSchema {
  type: "string";
  title?: string;
  description?: string;
  enum: string[];
  enumNames?: string[];
  /** @since 2025-11-25 */
  default?: string;
}

/** @since 2025-11-25 */
export type SingleSelectEnumSchema = UntitledSingleSelectEnumSchema | TitledSingleSelectEnumSchema;

/** @since 2025-11-25 */
export type MultiSelectEnumSchema = UntitledMultiSelectEnumSchema | TitledMultiSelectEnumSchema;

/**
 * Every enum form (the 2025-11-25 `EnumSchema` union). Note: in 2025-06-18 `EnumSchema`
 * named the single shape now called `LegacyTitledEnumSchema`.
 */
export type EnumSchema =
  | UntitledSingleSelectEnumSchema
  | TitledSingleSelectEnumSchema
  | UntitledMultiSelectEnumSchema
  | TitledMultiSelectEnumSchema
  | LegacyTitledEnumSchema;

/** A field of an elicitation form: only flat primitives and enums. @since 2025-06-18 */
export type PrimitiveSchemaDefinition = StringSchema | NumberSchema | BooleanSchema | EnumSchema;

/** The restricted JSON Schema of a form elicitation: a flat object of primitive fields. @since 2025-06-18 */
export interface ElicitRequestedSchema {
  /** @since 2025-11-25 */
  $schema?: string;
  type: "object";
  properties: { [name: string]: PrimitiveSchemaDefinition };
  required?: string[];
}

/** Params of a form-mode `elicitation/create`. @since 2025-06-18 */
export interface ElicitRequestFormParams extends TaskAugmentedRequestParams {
  /** Optional for form mode. @since 2025-11-25 */
  mode?: "form";
  /** What to ask the user. */
  message: string;
  requestedSchema: ElicitRequestedSchema;
}

/** Params of a URL-mode `elicitation/create`. @since 2025-11-25 */
export interface ElicitRequestURLParams extends TaskAugmentedRequestParams {
  mode: "url";
  /** Why the user should open the URL. */
  message: string;
  /** Unique within the server; opaque to the client. */
  elicitationId: string;
  /** The URL the user should navigate to. */
  url: string;
}

/**
 * Params of `elicitation/create`: form (2025-06-18) or URL (2025-11-25) mode. Narrow on
 * `mode === "url"`; form mode may omit `mode`.
 */
export type ElicitRequestParams = ElicitRequestFormParams | ElicitRequestURLParams;

/** A submitted form value; `string[]` (multi-select) since 2025-11-25. */
export type ElicitValue = string | number | boolean | string[];

/** Result of `elicitation/create` (when not task-augmented). @since 2025-06-18 */
export interface ElicitResult extends Result {
  /** `accept`: submitted/confirmed; `decline`: explicitly refused; `cancel`: dismissed. */
  action: "accept" | "decline" | "cancel";
  /** The form data: only for form mode with `action: "accept"`. */
  content?: { [name: string]: ElicitValue };
}

/**
 * `error.data` of the `-32042` (URL elicitation required) error. @since 2025-11-25
 */
export interface URLElicitationRequiredErrorData {
  elicitations: ElicitRequestURLParams[];
  [key: string]: unknown;
}
