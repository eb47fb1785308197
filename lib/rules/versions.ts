// Protocol versions and everything that differs between them as data.
//
// Code never compares version strings; it reads the profile of the negotiated version.
// Profiles are ordered oldest first; `index` orders them for since/until ranges in the
// method table.

export const SESSION_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] as const;
export const MODERN_VERSIONS = ["2026-07-28"] as const;

export type SessionVersion = (typeof SESSION_VERSIONS)[number];
export type ModernVersion = (typeof MODERN_VERSIONS)[number];
export type ProtocolVersion = SessionVersion | ModernVersion;

export interface VersionProfile {
  readonly version: ProtocolVersion;
  /** Position in release order, oldest 0. */
  readonly index: number;
  readonly era: "session" | "modern";
  /** JSON-RPC batches are allowed (M-09: 2025-03-26 only). */
  readonly batching: boolean;
  /** Session-era SSE streams open with a priming event (an event id and the retry advice) so a client can resume them (HTTP-09, 2025-11-25). */
  readonly primedStreams: boolean;
  /** HTTP-04: an initialize refused 400, 404 or 405 (not any 4xx) means "try HTTP+SSE" (2025-11-25 on). */
  readonly strictLegacyFallback: boolean;
  /** How an error reply whose request id could not be read carries its id (M-10). */
  readonly unreadableErrorId: "null" | "omit";
  /** The code for a missing resource (RS-02). */
  readonly resourceNotFoundCode: number;
  /** How `_meta` keys are checked (K-03, K-04): not at all, reserved labels anywhere in the prefix, or the second label only. */
  readonly metaKeyRules: "none" | "any-label" | "second-label";
  /** Tasks in the core protocol (the TK rules): 2025-11-25 only (2026-07-28 has them as an extension, the TX rules). */
  readonly coreTasks: boolean;
  /** -32042 URLElicitationRequiredError with data.elicitations (E-01): 2025-11-25 only. */
  readonly urlElicitationError: boolean;
}

export const VERSION_PROFILES: Readonly<Record<ProtocolVersion, VersionProfile>> = {
  "2024-11-05": {
    version: "2024-11-05",
    strictLegacyFallback: false,
    primedStreams: false,
    index: 0,
    era: "session",
    batching: false,
    unreadableErrorId: "null",
    resourceNotFoundCode: -32002,
    metaKeyRules: "none",
    coreTasks: false,
    urlElicitationError: false,
  },
  "2025-03-26": {
    version: "2025-03-26",
    strictLegacyFallback: false,
    primedStreams: false,
    index: 1,
    era: "session",
    batching: true,
    unreadableErrorId: "null",
    resourceNotFoundCode: -32002,
    metaKeyRules: "none",
    coreTasks: false,
    urlElicitationError: false,
  },
  "2025-06-18": {
    version: "2025-06-18",
    strictLegacyFallback: false,
    primedStreams: false,
    index: 2,
    era: "session",
    batching: false,
    unreadableErrorId: "null",
    resourceNotFoundCode: -32002,
    metaKeyRules: "any-label",
    coreTasks: false,
    urlElicitationError: false,
  },
  "2025-11-25": {
    version: "2025-11-25",
    strictLegacyFallback: true,
    primedStreams: true,
    index: 3,
    era: "session",
    batching: false,
    unreadableErrorId: "omit",
    resourceNotFoundCode: -32002,
    metaKeyRules: "second-label",
    coreTasks: true,
    urlElicitationError: true,
  },
  "2026-07-28": {
    version: "2026-07-28",
    strictLegacyFallback: true,
    primedStreams: false,
    index: 4,
    era: "modern",
    batching: false,
    unreadableErrorId: "omit",
    resourceNotFoundCode: -32602,
    metaKeyRules: "second-label",
    coreTasks: false,
    urlElicitationError: false,
  },
};

/**
 * Releases the schema tables (lib/rules/params.ts) and the HTTP rules name when members appear: the
 * one place besides the profiles that spells a version.
 */
export const SCHEMA_RELEASES: {
  readonly streamableHttp: "2025-03-26";
  readonly completions: "2025-03-26";
  readonly nestedMeta: "2025-06-18";
  /** L-07: MCP-Protocol-Version on every HTTP request after initialize. */
  readonly versionHeader: "2025-06-18";
  readonly tasks: "2025-11-25";
} = {
  streamableHttp: "2025-03-26",
  completions: "2025-03-26",
  nestedMeta: "2025-06-18",
  versionHeader: "2025-06-18",
  tasks: "2025-11-25",
} as const satisfies Record<string, SessionVersion>;

export function isSessionVersion(value: unknown): value is SessionVersion {
  return typeof value === "string" && (SESSION_VERSIONS as readonly string[]).includes(value);
}

export function isProtocolVersion(value: unknown): value is ProtocolVersion {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(VERSION_PROFILES, value);
}

/** The newest of a list of versions. */
export function newestVersion<V extends ProtocolVersion>(versions: readonly V[]): V {
  let best = versions[0] as V;
  for (const v of versions) if (VERSION_PROFILES[v].index > VERSION_PROFILES[best].index) best = v;
  return best;
}
