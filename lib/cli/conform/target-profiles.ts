// The published target profiles (fixtures/FORMAT.md, "Target profiles"; fixtures/manifest.json
// `targetProfiles`): named configurations an implementation under test runs when started with
// MCP_CONFORM_PROFILE=<name>, so that a black-box runner can judge fixtures that need a
// capability undeclared or a setting other than the implementation's default. Also here: how
// an implementation announces the profile it honours, and what `mcp-engine serve` runs for each.
//
// Invariants: this table is the one source of the names and their values: the annotator writes
// it into the manifest, the runner reads it, and serve maps it onto its options, so the three
// cannot drift. A capability profile changes only capabilities; a settings profile keeps every
// capability and changes only the settings it names (each other setting stays the
// implementation's default). Names are plain words; no setting is a function of the host.

import { Server } from "../../peer/server/server.js";
import type { ServerOptions } from "../../peer/server/server-options.js";
import type { ServerCapabilities } from "../../types/index.js";
import { isProtocolVersion, MODERN_VERSIONS, SESSION_VERSIONS } from "../../rules/versions.js";

// The versions the profiles name, from the one table of versions (lib/rules/versions.ts).
const [V2024_11_05, , V2025_06_18] = SESSION_VERSIONS;
const MODERN_ONLY: readonly string[] = [...MODERN_VERSIONS];
import { registerProfileTools } from "./profile-tools.js";

/** Settings a profile may name; the keys are the fixtures' `config` keys (FORMAT.md "Configuration"), plus `strict`. */
export interface ProfileSettings {
  /** Bounds, in the fixtures' terms: longest input line (bytes), entries per batch, requests in flight each way. */
  readonly limits?: {
    readonly maxLineBytes: number;
    readonly maxBatchLength: number;
    readonly maxPendingInbound: number;
    readonly maxPendingOutbound: number;
  };
  /** The protocol versions spoken, and no other. */
  readonly versions?: readonly string[];
  /** 2026-07-28: answer server/discover whatever version it names (true), or refuse an unknown one with -32022 (false). */
  readonly discoverAnyVersion?: boolean;
  /** 2026-07-28: serverInfo in every result's `_meta` (false: only in server/discover). */
  readonly serverInfoInResults?: boolean;
  /** The `instructions` of the initialize (and server/discover) result. */
  readonly instructions?: string;
  /** Strict phase rules: no request but ping before `notifications/initialized` (ENG-03). */
  readonly strict?: boolean;
}

export interface PublishedProfile {
  readonly description: string;
  /**
   * "all": every capability the implementation has (its default); otherwise these top-level
   * capabilities and no other, each flag named `true` declared and each named `false` not.
   */
  readonly capabilities: "all" | ServerCapabilities;
  /** Empty for a capability profile. */
  readonly settings: ProfileSettings;
}

/** The environment variable naming the profile; the runner also sets MCP_CONFORM=1. */
export const PROFILE_VARIABLE = "MCP_CONFORM_PROFILE";

/** The line an implementation writes on stderr when it runs the profile it was asked for. */
export const ANNOUNCEMENT_PREFIX = "mcp-conform-profile: ";

/** Every published profile, in pass order (`--profiles all`). */
export const PUBLISHED_PROFILES: ReadonlyMap<string, PublishedProfile> = new Map<string, PublishedProfile>([
  ["full", { description: "every capability it has (its default configuration)", capabilities: "all", settings: {} }],
  [
    "tools",
    {
      description: "only tools: the tools of the conformance profile (slow and the trigger tools it offers)",
      capabilities: { tools: {} },
      settings: {},
    },
  ],
  [
    "core",
    {
      description: "tools, resources with subscribe, and logging: no prompts, completions or extensions (the tasks extension included)",
      capabilities: { tools: {}, resources: { subscribe: true }, logging: {} },
      settings: {},
    },
  ],
  [
    "bare",
    {
      description:
        "tools, resources and prompts with every flag false (no listChanged, no subscribe): no completions, logging or extensions",
      capabilities: { tools: { listChanged: false }, resources: { subscribe: false, listChanged: false }, prompts: { listChanged: false } },
      settings: {},
    },
  ],
  [
    "limits",
    {
      description:
        "its default capabilities with small bounds: 200-byte input lines, batches of 2, 2 peer requests and 1 own request in flight",
      capabilities: "all",
      settings: { limits: { maxLineBytes: 200, maxBatchLength: 2, maxPendingInbound: 2, maxPendingOutbound: 1 } },
    },
  ],
  [
    "modern-only",
    {
      description: "only 2026-07-28; server/discover of an unknown version refused (-32022); serverInfo only in server/discover",
      capabilities: "all",
      settings: { versions: MODERN_ONLY, discoverAnyVersion: false, serverInfoInResults: false },
    },
  ],
  [
    "discover-any",
    {
      description: 'only 2026-07-28; server/discover answered whatever version it names; the instructions "Use the tools."',
      capabilities: "all",
      settings: { versions: MODERN_ONLY, discoverAnyVersion: true, instructions: "Use the tools." },
    },
  ],
  [
    "old-versions",
    {
      description: "only 2024-11-05 and 2025-06-18 (it counter-offers 2025-06-18)",
      capabilities: "all",
      settings: { versions: [V2024_11_05, V2025_06_18] },
    },
  ],
  [
    "strict",
    {
      description: "strict phase rules: a request other than ping before notifications/initialized is refused",
      capabilities: "all",
      settings: { strict: true },
    },
  ],
]);

/** A profile that changes settings (its cases are judged only in its own pass). */
export function hasSettings(profile: PublishedProfile): boolean {
  return Object.keys(profile.settings).length > 0;
}

/** The names an implementation announced on stderr (lines `mcp-conform-profile: <name>`). */
export function announcedProfiles(stderr: string): Set<string> {
  const names = new Set<string>();
  for (const line of stderr.split(/\r?\n/))
    if (line.startsWith(ANNOUNCEMENT_PREFIX)) names.add(line.slice(ANNOUNCEMENT_PREFIX.length).trim());
  return names;
}

/**
 * What an announced capability profile's target declares against what the profile publishes:
 * undefined when it agrees (the top-level capabilities exactly, each flag named true declared
 * and each named false not), else the difference. A target may claim a profile it runs wrong;
 * its cases are still judged on the capabilities probed, so this is a warning, not a verdict.
 */
export function capabilityMismatch(profile: PublishedProfile, declared: Readonly<Record<string, unknown>>): string | undefined {
  const published = profile.capabilities;
  if (published === "all") return undefined;
  const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  const problems: string[] = [];
  const want = Object.keys(published).sort();
  const got = Object.keys(declared).sort();
  if (want.join() !== got.join()) problems.push(`capabilities ${got.join(", ") || "none"} instead of ${want.join(", ")}`);
  for (const [name, flags] of Object.entries(published)) {
    if (!isRecord(flags)) continue;
    const has = declared[name];
    for (const [flag, value] of Object.entries(flags)) {
      if (typeof value !== "boolean") continue;
      const set = isRecord(has) && has[flag] === true;
      if (set !== value) problems.push(`${name}.${flag} ${set ? "declared" : "not declared"}`);
    }
  }
  return problems.length > 0 ? problems.join("; ") : undefined;
}

/** The profiles as fixtures/manifest.json publishes them: name → capabilities and settings. */
export function manifestProfiles(): Record<
  string,
  { description: string; capabilities: "all" | ServerCapabilities; settings: ProfileSettings }
> {
  const out: Record<string, { description: string; capabilities: "all" | ServerCapabilities; settings: ProfileSettings }> = {};
  for (const [name, p] of PUBLISHED_PROFILES)
    out[name] = { description: p.description, capabilities: p.capabilities, settings: p.settings };
  return out;
}

/**
 * The published profile whose settings are exactly `settings` (a fixture's engine configuration
 * plus its strict flag), or undefined. Exact: a fixture's own replay then runs under exactly
 * what the profile publishes, so passing there means passing under the profile.
 */
export function profileFor(settings: ProfileSettings): string | undefined {
  if (Object.keys(settings).length === 0) return undefined;
  const same = (a: unknown, b: unknown): boolean => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
  for (const [name, p] of PUBLISHED_PROFILES) if (hasSettings(p) && same(p.settings, settings)) return name;
  return undefined;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== "object" || value === null) return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((k) => [k, canonical(record[k])]),
  );
}

/** What `mcp-engine serve` runs for the profile in `env` under MCP_CONFORM=1: undefined for its default (no or an unknown name). */
export function requestedProfile(
  env: Readonly<Record<string, string | undefined>>,
): { name: string; profile: PublishedProfile } | undefined {
  if (env.MCP_CONFORM !== "1") return undefined;
  const name = env[PROFILE_VARIABLE];
  if (name === undefined) return undefined;
  const profile = PUBLISHED_PROFILES.get(name);
  return profile === undefined ? undefined : { name, profile };
}

/** A profile as options of this project's peer Server: its settings, and whether it is tools only. */
export interface ProfileServerOptions {
  readonly toolsOnly: boolean;
  /** Declared instead of what the server derives from its registrations (a capability profile other than tools). */
  readonly capabilities?: ServerCapabilities;
  readonly server: Partial<
    Pick<ServerOptions, "limits" | "versions" | "discoverAnyVersion" | "serverInfoInResults" | "instructions" | "strict">
  >;
}

/** The peer Server options that run `profile` (the settings map one to one onto ServerOptions). */
export function serverOptionsFor(profile: PublishedProfile): ProfileServerOptions {
  const s = profile.settings;
  const server: ProfileServerOptions["server"] = {
    ...(s.limits !== undefined ? { limits: { ...s.limits } } : {}),
    ...(s.versions !== undefined ? { versions: s.versions.filter(isProtocolVersion) } : {}),
    ...(s.discoverAnyVersion !== undefined ? { discoverAnyVersion: s.discoverAnyVersion } : {}),
    ...(s.serverInfoInResults !== undefined ? { serverInfoInResults: s.serverInfoInResults } : {}),
    ...(s.instructions !== undefined ? { instructions: s.instructions } : {}),
    ...(s.strict !== undefined ? { strict: s.strict } : {}),
  };
  const toolsOnly = profile.capabilities !== "all" && Object.keys(profile.capabilities).join() === "tools";
  return { toolsOnly, server, ...(profile.capabilities !== "all" && !toolsOnly ? { capabilities: profile.capabilities } : {}) };
}

/**
 * The reference server's Server under a profile: with `capabilities`, it declares exactly those
 * (the engine gates every method and notification on what is declared, so the features left
 * out are refused as a server without them would refuse them).
 */
export function profiledServer(options: ServerOptions, profile: ProfileServerOptions | undefined): Server {
  const declared = profile?.capabilities;
  if (declared === undefined) return new Server(options);
  return new (class extends Server {
    override capabilities(): ServerCapabilities {
      return JSON.parse(JSON.stringify(declared)) as ServerCapabilities;
    }
  })(options);
}

/** A server with the conformance profile's tools and nothing else (no logging, resources, prompts or tasks). */
export function toolsOnlyServer(options: ServerOptions): Server {
  const server = new Server(options);
  registerProfileTools(server);
  return server;
}
