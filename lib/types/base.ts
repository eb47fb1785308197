// Shared building blocks of the MCP data model (2024-11-05 … 2025-11-25): `_meta`
// objects, the base params/result shapes every method extends, pagination, Icon,
// Implementation, Annotations, the message role and the logging level.
//
// One set of types covers the four session-era versions: a member added later is optional
// and tagged `@since <version>`. Types are hand-written from each version's schema.json (the
// checks a message passes are lib/rules/params.ts); where schema.ts says `number` but the
// generated JSON says `integer` (RULES.md SCH-05) the TypeScript `number` is used.

import type { JsonObject, RequestId } from "../wire/envelope.js";

export type { JsonObject, RequestId };

/** A progress token (`params._meta.progressToken`): a string or a number. */
export type ProgressToken = string | number;

/** A `_meta` object: reserved by MCP for protocol-level metadata; keys follow RULES.md (K-03). */
export interface Meta {
  [key: string]: unknown;
}

/** `_meta["io.modelcontextprotocol/related-task"]`: ties a message to a task. @since 2025-11-25 */
export interface RelatedTaskMetadata {
  /** The task identifier this message is associated with. */
  taskId: string;
}

/**
 * `_meta` of results and of request/notification params. All messages related to a task
 * MUST carry the related-task key, and `tasks/result` responses always do (RULES.md TK-06).
 */
export interface MessageMeta {
  /** @since 2025-11-25 */
  "io.modelcontextprotocol/related-task"?: RelatedTaskMetadata;
  [key: string]: unknown;
}

/** `_meta` of request params: may also carry the progress token. */
export interface RequestMeta extends MessageMeta {
  /** Ask the receiver for `notifications/progress` tagged with this token (unique among active requests). */
  progressToken?: ProgressToken;
}

/**
 * Params every request may carry (schema name `RequestParams`, renamed because
 * `RequestParams<Map, M>` is the method-map helper in ./methods.ts).
 */
export interface BaseRequestParams {
  _meta?: RequestMeta;
}

/** Params every notification may carry (schema name `NotificationParams`). */
export interface BaseNotificationParams {
  _meta?: MessageMeta;
}

/**
 * The base result (schema name `Result`). The schema leaves it open; this type is exact,
 * like every concrete result: extra members are tolerated by the validator, not the type.
 */
export interface Result {
  _meta?: MessageMeta;
}

/** The result of `ping`, `resources/subscribe`, `resources/unsubscribe`, `logging/setLevel`: `{}`. */
export type EmptyResult = Result;

/** An opaque pagination token. */
export type Cursor = string;

/** Params of the paginated list requests. */
export interface PaginatedRequestParams extends BaseRequestParams {
  /** Where to continue: the `nextCursor` of the previous page. */
  cursor?: Cursor;
}

/** The base of paginated list results. */
export interface PaginatedResult extends Result {
  /** Present when more results may follow. */
  nextCursor?: Cursor;
}

/**
 * The sender of a prompt or sampling message. The schema calls it `Role`; it is renamed
 * here because the package already exports `Role = "client" | "server"` (lib/rules/methods.ts).
 */
export type MessageRole = "user" | "assistant";

/** Syslog severities (RFC 5424), lowest to highest: debug … emergency. */
export type LoggingLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";

/**
 * Hints for the client about how to use or display an object.
 * In 2024-11-05 the same JSON shape came from the `Annotated` base.
 * @since 2025-03-26 (as a named type)
 */
export interface Annotations {
  /** Who the data is for, e.g. `["user", "assistant"]`. */
  audience?: MessageRole[];
  /** 0 (entirely optional) … 1 (effectively required). */
  priority?: number;
  /** ISO 8601 timestamp of the last modification. @since 2025-06-18 */
  lastModified?: string;
}

/**
 * The 2024-11-05 base type that carried `annotations`; wire-identical to `{ annotations?: Annotations }`.
 * @deprecated Replaced by the `annotations` property in 2025-03-26.
 */
export interface Annotated {
  annotations?: Annotations;
}

/** A sized icon a user interface can display. @since 2025-11-25 */
export interface Icon {
  /** An http(s) URL or a `data:` URI. */
  src: string;
  /** MIME type override, e.g. `"image/png"`. */
  mimeType?: string;
  /** Sizes in `WxH` form (e.g. `"48x48"`) or `"any"`. */
  sizes?: string[];
  /** Background the icon is designed for. */
  theme?: "light" | "dark";
}

/** Mixin shape for objects carrying icons. @since 2025-11-25 */
export interface Icons {
  icons?: Icon[];
}

/** `name` plus optional display `title`. @since 2025-06-18 (`title`) */
export interface BaseMetadata {
  /** Programmatic name; the display fallback when `title` is absent. */
  name: string;
  /** Human-readable display name. @since 2025-06-18 */
  title?: string;
}

/** The name and version of an MCP implementation (`clientInfo`, `serverInfo`). */
export interface Implementation {
  name: string;
  version: string;
  /** @since 2025-06-18 */
  title?: string;
  /** @since 2025-11-25 */
  description?: string;
  /** @since 2025-11-25 */
  icons?: Icon[];
  /** @since 2025-11-25 */
  websiteUrl?: string;
}
