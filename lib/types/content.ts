// Content blocks and resource contents: what tool results, prompt messages and sampling
// messages carry. Every block is discriminated by `type`:
//   ContentBlock                = text | image | audio | resource_link | resource
//   SamplingMessageContentBlock = text | image | audio | tool_use | tool_result
// Audio arrived in 2025-03-26, resource_link in 2025-06-18, tool_use/tool_result in
// 2025-11-25; `_meta` on blocks and resource contents in 2025-06-18.

import type { Annotations, JsonObject, Meta } from "./base.js";
import type { Resource } from "./server.js";

/** The contents of a resource: base of the text and blob variants. */
export interface ResourceContents {
  /** The URI of this resource. */
  uri: string;
  mimeType?: string;
  /** @since 2025-06-18 */
  _meta?: Meta;
}

/** A resource's contents as text (only when it can be represented as text). */
export interface TextResourceContents extends ResourceContents {
  text: string;
}

/** A resource's contents as base64-encoded binary data. */
export interface BlobResourceContents extends ResourceContents {
  /** Base64-encoded bytes. */
  blob: string;
}

/** Either variant of resource contents; tell them apart with `"text" in c` / `"blob" in c`. */
export type AnyResourceContents = TextResourceContents | BlobResourceContents;

/** A text block. */
export interface TextContent {
  type: "text";
  text: string;
  annotations?: Annotations;
  /** @since 2025-06-18 */
  _meta?: Meta;
}

/** An image block. */
export interface ImageContent {
  type: "image";
  /** Base64-encoded image data. */
  data: string;
  /** e.g. `"image/png"`. */
  mimeType: string;
  annotations?: Annotations;
  /** @since 2025-06-18 */
  _meta?: Meta;
}

/** An audio block. @since 2025-03-26 */
export interface AudioContent {
  type: "audio";
  /** Base64-encoded audio data. */
  data: string;
  /** e.g. `"audio/wav"`. */
  mimeType: string;
  annotations?: Annotations;
  /** @since 2025-06-18 */
  _meta?: Meta;
}

/**
 * A link to a resource the server can read (a Resource plus `type`); it need not appear in
 * `resources/list`. @since 2025-06-18
 */
export interface ResourceLink extends Resource {
  type: "resource_link";
}

/** A resource's contents embedded in a prompt or tool result. */
export interface EmbeddedResource {
  type: "resource";
  resource: TextResourceContents | BlobResourceContents;
  annotations?: Annotations;
  /** @since 2025-06-18 */
  _meta?: Meta;
}

/**
 * A request from the assistant (in sampling) to call a tool.
 * @since 2025-11-25
 */
export interface ToolUseContent {
  type: "tool_use";
  /** Unique id, matched by `ToolResultContent.toolUseId`. */
  id: string;
  /** Tool name. */
  name: string;
  /** Arguments, conforming to the tool's input schema. */
  input: JsonObject;
  /** Clients SHOULD preserve it when echoing the block in later sampling requests. */
  _meta?: Meta;
}

/**
 * The result of a tool use, sent back to the assistant in a user message.
 * @since 2025-11-25
 */
export interface ToolResultContent {
  type: "tool_result";
  /** The `id` of the `ToolUseContent` this answers. */
  toolUseId: string;
  /** Same format as `CallToolResult.content`. */
  content: ContentBlock[];
  /** Should conform to the tool's `outputSchema`, if it has one. */
  structuredContent?: JsonObject;
  /** Default false. */
  isError?: boolean;
  _meta?: Meta;
}

/**
 * A block of tool results and prompt messages (schema `ContentBlock`, named since 2025-06-18).
 * 2024-11-05: text | image | resource; 2025-03-26 adds audio; 2025-06-18 adds resource_link.
 */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/**
 * A block of a sampling message. 2024-11-05: text | image; 2025-03-26 adds audio;
 * 2025-11-25 adds tool_use and tool_result.
 */
export type SamplingMessageContentBlock = TextContent | ImageContent | AudioContent | ToolUseContent | ToolResultContent;

/** Every content block type of any version, discriminated by `type`. */
export type AnyContentBlock =
  | TextContent
  | ImageContent
  | AudioContent
  | ResourceLink
  | EmbeddedResource
  | ToolUseContent
  | ToolResultContent;

/** The `type` tags of all content blocks. */
export type ContentBlockType = AnyContentBlock["type"];
