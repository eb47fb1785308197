// Capability objects exchanged in `initialize` (RULES.md C-10). A capability is declared when
// its key is present, even as `{}`. Capabilities are an open set (either side may add its
// own keys), so these objects, unlike the rest of the data model, carry index signatures.
//
// History: 2024-11-05 client {experimental, roots, sampling}, server {experimental,
// logging, prompts, resources, tools}; 2025-03-26 server `completions`; 2025-06-18 client
// `elicitation`; 2025-11-25 `sampling.context/tools`, `elicitation.form/url`, `tasks`.

/** A presence flag: an object whose members, if any, are not defined by the specification. */
export interface CapabilityFlag {
  [key: string]: unknown;
}

/** `experimental`: non-standard capabilities, keyed by name. */
export interface ExperimentalCapabilities {
  [name: string]: CapabilityFlag;
}

/** Capabilities a client may declare. */
export interface ClientCapabilities {
  experimental?: ExperimentalCapabilities;
  /** The client can answer `roots/list`. */
  roots?: {
    /** The client sends `notifications/roots/list_changed`. */
    listChanged?: boolean;
    [key: string]: unknown;
  };
  /** The client can answer `sampling/createMessage`. */
  sampling?: {
    /** `includeContext` values other than `"none"` are supported. @since 2025-11-25 */
    context?: CapabilityFlag;
    /** `tools` and `toolChoice` are supported. @since 2025-11-25 */
    tools?: CapabilityFlag;
    [key: string]: unknown;
  };
  /**
   * The client can answer `elicitation/create`; `{}` means form mode only.
   * @since 2025-06-18
   */
  elicitation?: {
    /** @since 2025-11-25 */
    form?: CapabilityFlag;
    /** @since 2025-11-25 */
    url?: CapabilityFlag;
    [key: string]: unknown;
  };
  /** Task support as a receiver. @since 2025-11-25 */
  tasks?: ClientTasksCapability;
  [key: string]: unknown;
}

/** `ClientCapabilities.tasks`. @since 2025-11-25 */
export interface ClientTasksCapability {
  /** The client answers `tasks/list`. */
  list?: CapabilityFlag;
  /** The client answers `tasks/cancel`. */
  cancel?: CapabilityFlag;
  /** Request types that may be task-augmented; exhaustive (unlisted means unsupported). */
  requests?: {
    sampling?: { createMessage?: CapabilityFlag; [key: string]: unknown };
    elicitation?: { create?: CapabilityFlag; [key: string]: unknown };
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** Capabilities a server may declare. */
export interface ServerCapabilities {
  experimental?: ExperimentalCapabilities;
  /** The server sends `notifications/message` and answers `logging/setLevel`. */
  logging?: CapabilityFlag;
  /**
   * The server answers `completion/complete`. In 2024-11-05 that method had no capability.
   * @since 2025-03-26
   */
  completions?: CapabilityFlag;
  /** The server offers prompts. */
  prompts?: {
    /** The server sends `notifications/prompts/list_changed`. */
    listChanged?: boolean;
    [key: string]: unknown;
  };
  /** The server offers resources. */
  resources?: {
    /** The server answers `resources/subscribe` / `resources/unsubscribe`. */
    subscribe?: boolean;
    /** The server sends `notifications/resources/list_changed`. */
    listChanged?: boolean;
    [key: string]: unknown;
  };
  /** The server offers tools. */
  tools?: {
    /** The server sends `notifications/tools/list_changed`. */
    listChanged?: boolean;
    [key: string]: unknown;
  };
  /** Task support as a receiver. @since 2025-11-25 */
  tasks?: ServerTasksCapability;
  [key: string]: unknown;
}

/** `ServerCapabilities.tasks`. @since 2025-11-25 */
export interface ServerTasksCapability {
  /** The server answers `tasks/list`. */
  list?: CapabilityFlag;
  /** The server answers `tasks/cancel`. */
  cancel?: CapabilityFlag;
  /** Request types that may be task-augmented; exhaustive (unlisted means unsupported). */
  requests?: {
    tools?: { call?: CapabilityFlag; [key: string]: unknown };
    [key: string]: unknown;
  };
  [key: string]: unknown;
}
