// The fixture corpus as the black-box runner reads it (fixtures/FORMAT.md): loading, and the
// applicability of a case to a target (what the fixture `requires` against what the target
// offers: versions, capabilities, host commands, a clock, engine configuration keys, a target
// profile the target announced it runs).
//
// Invariants: a fixture file that does not parse is reported, never thrown past the runner;
// applicability answers with the first missing requirement, in words a baseline can quote.

import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { MODERN_VERSIONS } from "../../rules/versions.js";
import { missingTool, type Listings, type ToolPattern } from "./discovery.js";

export interface Requires {
  readonly host?: readonly string[];
  readonly clock?: boolean;
  readonly config?: readonly string[];
  readonly strict?: boolean;
  readonly era?: "session" | "modern" | "dual";
  /** Versions the target must speak besides the case's (a dual-era server: session versions and 2026-07-28). */
  readonly versions?: readonly string[];
  readonly transport?: "stdio";
  readonly capabilities?: Record<string, unknown>;
  readonly without?: readonly string[];
  readonly tools?: readonly string[];
  readonly modernOnly?: boolean;
  /** Every host command of the fixture has a `trigger`: a target without an adapter runs it through the tools in `tools`. */
  readonly triggers?: boolean;
  /** A published target profile whose settings the fixture's configuration is (FORMAT.md "Target profiles"): judged only in that pass. */
  readonly profile?: string;
  /** Tools the case finds in the target's listing by what it declares, by alias (FORMAT.md "Discovered tools"). */
  readonly discover?: Readonly<Record<string, ToolPattern>>;
}

/** The fixture's own stand-in for a discovered entry: what its host lists, for the engine's replay and an adapter. */
export interface OwnTool {
  /** A tool's or a prompt's name. */
  readonly name?: string;
  /** A resource's URI. */
  readonly uri?: string;
  /** A tool's arguments. */
  readonly arguments?: Record<string, unknown>;
  /** A prompt's first required argument. */
  readonly argument?: string;
  readonly like: ToolPattern;
}

export interface FixtureHeader {
  readonly fixture: string;
  readonly role: "client" | "server";
  readonly versions: readonly string[];
  readonly strict?: readonly boolean[];
  readonly rules: readonly string[];
  readonly levels?: Record<string, string>;
  readonly config?: Record<string, unknown>;
  readonly profile?: string;
  readonly tags?: readonly string[];
  readonly requires?: Requires;
  readonly discover?: Readonly<Record<string, OwnTool>>;
}

export type Step = Record<string, unknown>;

export interface LoadedFixture {
  readonly header: FixtureHeader;
  readonly steps: readonly Step[];
}

/** Every `.jsonl` fixture file under `dir`, in a stable (sorted) order. */
export function listFixtureFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...listFixtureFiles(path));
    else if (name.endsWith(".jsonl")) out.push(path);
  }
  return out;
}

/** Every fixture of `role` under `dir` (fixtures/<role>/...). Files that do not parse come back in `problems`. */
export function loadFixtures(dir: string, role: "client" | "server"): { fixtures: LoadedFixture[]; problems: string[] } {
  const fixtures: LoadedFixture[] = [];
  const problems: string[] = [];
  for (const path of listFixtureFiles(join(dir, role))) {
    try {
      const lines = readFileSync(path, "utf8")
        .split("\n")
        .filter((l) => l !== "");
      const values = lines.map((l) => JSON.parse(l) as unknown);
      const header = values[0] as FixtureHeader;
      if (typeof header?.fixture !== "string" || !Array.isArray(header.versions) || !Array.isArray(header.rules))
        throw new Error("header needs fixture, versions and rules");
      fixtures.push({ header, steps: values.slice(1) as Step[] });
    } catch (error) {
      problems.push(`${relative(dir, path)}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { fixtures, problems };
}

/** What a target offers, learned by probing it (or from --profile) and from its adapter's hello. */
export interface TargetProfile {
  /** Versions the target answers initialize (or server/discover) with unchanged. */
  readonly versions: ReadonlySet<string>;
  /** The capabilities it declares (when it has no adapter that configures it per case). */
  readonly capabilities: Record<string, unknown>;
  /** Tools it offers, by name (the conformance profile's `slow` and trigger tools, FORMAT.md). */
  readonly tools: ReadonlySet<string>;
  /** Its tools/list entries as listed (one page), where discovered tools are found. */
  readonly listing?: readonly unknown[];
  /** Its resources/list and prompts/list entries (one page each), where discovered resources and prompts are found. */
  readonly resources?: readonly unknown[];
  readonly prompts?: readonly unknown[];
  readonly adapter?: AdapterSupport;
  /** Under --profiles: the pass's target profile, and whether the target announced it runs it. */
  readonly pass?: PassProfile;
}

export interface PassProfile {
  readonly name: string;
  /** The target wrote `mcp-conform-profile: <name>` on stderr: it runs the profile, not its default. */
  readonly announced: boolean;
  /** The profile changes settings (not only capabilities): cases naming no profile are not judged under it. */
  readonly settings: boolean;
}

export interface AdapterSupport {
  readonly ops: ReadonlySet<string>;
  readonly clock: boolean;
  readonly config: ReadonlySet<string>;
  readonly strict: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `declared` holds at least what `required` names (capability objects, recursively; a flag required true is declared true or as an object, one required false is met by anything). */
export function declares(declared: unknown, required: unknown): boolean {
  // `listChanged: false` declares nothing: a fixture needing the flag needs it on.
  if (required === true) return declared === true || isRecord(declared);
  if (!isRecord(required)) return true;
  if (!isRecord(declared)) return false;
  for (const key of Object.keys(required)) {
    // A flag required false asks for nothing: absent and false both meet it (`without` names what must be off).
    if (required[key] === false) continue;
    if (!Object.hasOwn(declared, key)) return false;
    if (!declares(declared[key], required[key])) return false;
  }
  return true;
}

/** A capability (`tools`) is declared when present; a sub-capability (`resources.subscribe`) when true or an object. */
export function declaresPath(capabilities: Record<string, unknown>, path: string): boolean {
  // Split at the first dot only: extension names hold dots of their own.
  const dot = path.indexOf(".");
  const top = dot < 0 ? path : path.slice(0, dot);
  const sub = dot < 0 ? undefined : path.slice(dot + 1);
  if (!Object.hasOwn(capabilities, top)) return false;
  if (sub === undefined) return true;
  const value = capabilities[top];
  if (!isRecord(value) || !Object.hasOwn(value, sub)) return false;
  return value[sub] === true || isRecord(value[sub]);
}

/** Undefined when the case applies to the target; otherwise the requirement it lacks. */
export function notApplicable(header: FixtureHeader, version: string, target: TargetProfile): string | undefined {
  const requires = header.requires ?? {};
  const adapter = target.adapter;
  const profile = adapter === undefined ? profileProblem(requires.profile, target.pass) : adapterProfileProblem(header, adapter);
  if (profile !== undefined) return profile;
  if (requires.strict === true && adapter?.strict !== true && requires.profile === undefined)
    return "strict phase rules (engine option ENG-03)";
  if (requires.clock === true && adapter?.clock !== true) return "a virtual clock (time steps)";
  // Without an adapter, a fixture whose every command has a trigger runs through the trigger tools (checked with `tools` below).
  const viaTriggers = adapter === undefined && requires.triggers === true;
  for (const op of viaTriggers ? [] : (requires.host ?? [])) if (adapter?.ops.has(op) !== true) return `host command ${op}`;
  for (const key of requires.config ?? []) if (adapter?.config.has(key) !== true) return `engine configuration key ${key}`;
  // With an adapter the target is configured per case (configure), so the fixture's own setup holds.
  if (adapter !== undefined) return undefined;
  if (!target.versions.has(version)) return `protocol version ${version}`;
  for (const v of requires.versions ?? [])
    if (!target.versions.has(v)) return `protocol version ${v} (a server speaking ${(requires.versions ?? []).join(", ")})`;
  if (requires.modernOnly === true && [...target.versions].some((v) => !(MODERN_VERSIONS as readonly string[]).includes(v)))
    return `a server speaking only ${MODERN_VERSIONS.join(", ")}`;
  if (!declares(target.capabilities, requires.capabilities ?? {})) return `capabilities ${JSON.stringify(requires.capabilities)}`;
  for (const key of requires.without ?? []) if (declaresPath(target.capabilities, key)) return `no ${key} capability`;
  for (const tool of requires.tools ?? []) if (!target.tools.has(tool)) return `tool ${tool} of the conformance profile`;
  return missingTool(header, listingsOf(target));
}

/** The listings the probe read from a target, where discovered entries are found. */
export function listingsOf(target: Pick<TargetProfile, "listing" | "resources" | "prompts">): Listings {
  return { tools: target.listing ?? [], resources: target.resources ?? [], prompts: target.prompts ?? [] };
}

/** The need of a case that names no profile, in a pass whose profile changes settings (passes.ts leaves it out of a case's reasons). */
export const DEFAULT_SETTINGS_NEED = "the target's default settings";

/**
 * Without an adapter: a case naming a target profile is judged only in that profile's pass, and
 * only when the target announced it runs it (an implementation that does not know the name runs
 * its default configuration); a case naming none is not judged where an announced profile
 * changed the settings it assumes.
 */
function profileProblem(needed: string | undefined, pass: PassProfile | undefined): string | undefined {
  if (needed === undefined)
    return pass !== undefined && pass.settings && pass.announced
      ? `${DEFAULT_SETTINGS_NEED} (profile ${pass.name} changes them)`
      : undefined;
  if (pass?.name !== needed) return `target profile ${needed} (judged in its own pass: --profiles ${needed} or all)`;
  if (!pass.announced)
    return `target profile ${needed} (the target did not announce it: no "mcp-conform-profile: ${needed}" line on stderr, so it runs its default configuration)`;
  return undefined;
}

/** With an adapter the fixture's own configuration stands in for its profile: the adapter must apply every key of it. */
function adapterProfileProblem(header: FixtureHeader, adapter: AdapterSupport): string | undefined {
  if (header.requires?.profile === undefined) return undefined;
  for (const key of Object.keys(header.config ?? {}))
    if (key !== "info" && key !== "capabilities" && !adapter.config.has(key)) return `engine configuration key ${key}`;
  if (!(header.strict ?? [false]).includes(false) && !adapter.strict) return "strict phase rules (engine option ENG-03)";
  return undefined;
}
