// `mcp-engine conform`: replays the wire part of the fixture corpus against an implementation
// this process does not control (fixtures/FORMAT.md, "Black-box replay").
//
//   mcp-engine conform [--role server] [--profile P | --profiles A,B] [--baseline FILE] [--format text|json|tap|junit]
//                      [--only PREFIX] [--timeout MS] [--adapter] [--newest] -- <command...>     stdio
//   mcp-engine conform [...] <url>                                      Streamable HTTP (fixtures/http/)
//   mcp-engine conform --role client [--transport stdio|http] [...] -- <client command...>
//                                                                       the client role (client-replay.ts)
//
// Before the cases, the target is probed: one initialize per session version (which versions
// it echoes, which capabilities and tools it declares), one server/discover for 2026-07-28,
// and, with --adapter only, one hello on the host-adapter channel: by default the target is a
// black box, judged on its wire alone. Exit: 0 no unexpected failure, 1 some, 2 usage.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runHttpConformance } from "./http.js";
import { stepsWithTools } from "./discovery.js";
import { listingsOf, loadFixtures, notApplicable, type AdapterSupport, type TargetProfile } from "./fixtures.js";
import { applyBaseline, exitCode, parseBaseline, render, type Baseline, type ConformMode, type Format } from "./report.js";
import { caseVersions, parseProfileNames, profileEnvironment, runJobs, runPasses, type CaseFilter } from "./passes.js";
import { announcedProfiles, capabilityMismatch, hasSettings, PUBLISHED_PROFILES } from "./target-profiles.js";
import { replayCase, STARTUP_MS, type ReplayOptions } from "./replay.js";
import { StdioTarget } from "./target.js";
import { runClientConformance, type ClientTransport } from "./client-replay.js";
import type { CaseResult } from "./types.js";
import { MODERN_VERSIONS, SESSION_VERSIONS } from "../../rules/versions.js";
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION, META_SERVER_INFO } from "../../rules/modern.js";
import { MESSAGE_WIDTH, untrustedText } from "../../codec/terminal-text.js";
import { parseEnvRequest, requestedEnvironment, type EnvRequest } from "../../hosts/spawn-env.js";
import { didYouMean, usageErrorLine } from "../../codec/did-you-mean.js";

const MODERN = MODERN_VERSIONS[0];

export const CONFORM_USAGE = `usage:
  mcp-engine conform [options] -- <command...>   replay the fixture corpus against a stdio server
  mcp-engine conform [options] <url>             replay the HTTP fixtures against a Streamable HTTP endpoint
options:
  --role server|client     the side under test (default server). client: the runner plays the server of
                           each client fixture; the client's command gets a server command appended (and
                           in MCP_CONFORM_SERVER_COMMAND, a JSON array) that connects back to the runner,
                           and the case in MCP_CONFORMANCE_SCENARIO (fixture id) and MCP_CONFORM_VERSION
  --transport stdio|http   with --role client (default stdio). http: the runner serves each case at
                           http://127.0.0.1:<port>/mcp and appends that URL to the client's command instead
  --profile P              the capability profile the target runs (fixtures/manifest.json "profiles");
                           default: learned from the target's initialize result
  --profiles A,B|all       one pass per target profile (fixtures/manifest.json "targetProfiles";
                           all: every one): the target runs with MCP_CONFORM_PROFILE=<name>, is
                           probed per pass, and each case is judged in the first pass where it
                           applies; a case needing a profile only in that pass, and only when the
                           target announces it ("mcp-conform-profile: <name>" on stderr)
  --baseline FILE          expected failures: {"fixture-id[@version]": "reason"}
  --format text|json|tap|junit   (default text)
  --only PREFIX            only fixtures whose id starts with PREFIX
  --timeout MS             the longest wait for one expected message (default 3000)
  --adapter                drive the target's host adapter (MCP_CONFORM_ADAPTER, fixtures/FORMAT.md
                           "Host adapter") for host commands, the clock and configuration; default:
                           black box, the wire alone (the report's "mode" says which)
  --newest                 one case per fixture: the newest of its versions the target speaks
  --env NAME | NAME=VALUE  pass our variable NAME to the stdio target, or set NAME to VALUE (repeatable);
                           otherwise it gets only HOME, LOGNAME, PATH, SHELL, TERM and USER of ours
                           (on Windows their equivalents) and the runner's MCP_CONFORM variables
exit: 0 no unexpected failure, 1 an unexpected MUST/SHOULD failure or a stale baseline entry, 2 bad usage
`;

/** The options conform accepts, for the close match of a mistyped one. */
const CONFORM_FLAGS = [
  "--role",
  "--transport",
  "--profile",
  "--profiles",
  "--baseline",
  "--format",
  "--only",
  "--timeout",
  "--env",
  "--adapter",
  "--newest",
  "--help",
];

export interface ConformArgs {
  role: "server" | "client";
  /** --transport: how the client role reaches the client under test. */
  transport: ClientTransport;
  profile: string | undefined;
  /** --profiles: the target profiles, one pass each (fixtures/FORMAT.md, "Target profiles"). */
  profiles: readonly string[] | undefined;
  baseline: string | undefined;
  format: Format;
  only: string | undefined;
  timeoutMs: number;
  /** --env requests, in order: the stdio target's variables besides its default environment (CLI-02). */
  env: EnvRequest[];
  /** --adapter: drive the target's host adapter; otherwise the target is a black box. */
  adapter: boolean;
  /** --newest: one case per fixture, at the newest version the target speaks of it. */
  newest: boolean;
  target: { kind: "stdio"; command: string; args: string[] } | { kind: "url"; url: string } | undefined;
}

export function parseConformArgs(argv: readonly string[]): { ok: true; args: ConformArgs } | { ok: false; problem: string } {
  const args: ConformArgs = {
    role: "server",
    transport: "stdio",
    profile: undefined,
    profiles: undefined,
    baseline: undefined,
    format: "text",
    only: undefined,
    timeoutMs: 3000,
    env: [],
    adapter: false,
    newest: false,
    target: undefined,
  };
  let at = 0;
  while (at < argv.length) {
    const word = argv[at++] as string;
    if (word === "--") {
      const command = argv.slice(at);
      if (command.length === 0) return { ok: false, problem: "conform needs a command after --" };
      args.target = { kind: "stdio", command: command[0] as string, args: command.slice(1) };
      return { ok: true, args };
    }
    if (!word.startsWith("--")) {
      if (!/^https?:\/\//i.test(word) || at !== argv.length)
        return { ok: false, problem: `conform takes -- <command...> or one URL; got ${JSON.stringify(word)}` };
      if (args.env.length > 0) return { ok: false, problem: `--env sets the environment of a stdio target; ${word} is not spawned` };
      args.target = { kind: "url", url: word };
      return { ok: true, args };
    }
    if (word === "--adapter" || word === "--newest") {
      args[word === "--adapter" ? "adapter" : "newest"] = true;
      continue;
    }
    const value = argv[at++];
    if (value === undefined) return { ok: false, problem: `${word} needs a value` };
    switch (word) {
      case "--role":
        if (value !== "server" && value !== "client")
          return { ok: false, problem: `--role takes server or client; got ${JSON.stringify(value)}` };
        args.role = value;
        break;
      case "--transport":
        if (value !== "stdio" && value !== "http")
          return { ok: false, problem: `--transport takes stdio or http; got ${JSON.stringify(value)}` };
        args.transport = value;
        break;
      case "--profile":
        if (args.profiles !== undefined)
          return {
            ok: false,
            problem: "--profile (the capabilities of one run) and --profiles (one probed pass per target profile) exclude each other",
          };
        args.profile = value;
        break;
      case "--profiles": {
        if (args.profile !== undefined)
          return {
            ok: false,
            problem: "--profile (the capabilities of one run) and --profiles (one probed pass per target profile) exclude each other",
          };
        const names = parseProfileNames(value);
        if (typeof names === "string") return { ok: false, problem: names };
        args.profiles = names;
        break;
      }
      case "--baseline":
        args.baseline = value;
        break;
      case "--format":
        if (value !== "text" && value !== "json" && value !== "tap" && value !== "junit")
          return { ok: false, problem: `--format takes text, json, tap or junit; got ${JSON.stringify(value)}` };
        args.format = value;
        break;
      case "--only":
        args.only = value;
        break;
      case "--timeout": {
        const ms = Number(value);
        if (!/^\d+$/.test(value) || ms <= 0)
          return { ok: false, problem: `--timeout takes a positive whole number of milliseconds; got ${JSON.stringify(value)}` };
        args.timeoutMs = ms;
        break;
      }
      case "--env": {
        const request = parseEnvRequest(value);
        if (typeof request === "string") return { ok: false, problem: request };
        args.env.push(request);
        break;
      }
      default:
        return { ok: false, problem: `unknown option ${JSON.stringify(word)} for conform${didYouMean(word, CONFORM_FLAGS)}` };
    }
  }
  return { ok: false, problem: "conform needs a target: -- <command...> or a URL" };
}

const CLIENT_INFO = { name: "mcp-engine-conform", version: "1" };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

async function answerTo(target: StdioTarget, id: string, ms: number): Promise<Record<string, unknown> | undefined> {
  const started = Date.now();
  for (;;) {
    // Until the target has said anything, allow for a slow start as the replay does (npx, a runtime that loads slowly).
    const left = started + (target.heardFrom ? ms : Math.max(ms, STARTUP_MS)) - Date.now();
    if (left <= 0) return undefined;
    const entry = await target.next(left);
    if (entry === undefined) return undefined;
    if (entry.kind === "message" && isRecord(entry.value) && entry.value.id === id) return entry.value;
  }
}

/** How the probes start the target: its command, and the environment of a pass (with the stderr it writes collected). */
export interface ProbeSpawn {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** Told what the target writes on stderr (the profile announcement). */
  readonly stderr?: (text: string) => void;
}

function spawnProbe(spawn: ProbeSpawn, adapter: boolean): StdioTarget {
  return new StdioTarget({
    command: spawn.command,
    args: spawn.args,
    adapter,
    ...(spawn.env !== undefined ? { env: spawn.env } : {}),
    ...(spawn.stderr !== undefined ? { stderr: spawn.stderr } : {}),
  });
}

/** Capability, listing method, and the key the probe's result keeps the entries under. */
const LISTINGS: readonly (readonly [string, string, string])[] = [
  ["tools", "tools/list", "tools"],
  ["resources", "resources/list", "resourceListing"],
  ["prompts", "prompts/list", "promptListing"],
];

/** One initialize at `version`: the result, when the target answers with one (with the listings of what it declares). */
async function probeSession(spawn: ProbeSpawn, version: string, ms: number): Promise<Record<string, unknown> | undefined> {
  const target = spawnProbe(spawn, false);
  try {
    target.write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: "probe",
        method: "initialize",
        params: { protocolVersion: version, capabilities: {}, clientInfo: CLIENT_INFO },
      }) + "\n",
    );
    const answer = await answerTo(target, "probe", ms);
    const result = answer?.result;
    if (!isRecord(result)) return undefined;
    if (result.protocolVersion !== version || !isRecord(result.capabilities)) return result;
    // The listings discovered entries are found in (J11, J19): one page of each declared feature.
    const listed = LISTINGS.filter(([capability]) => isRecord((result.capabilities as Record<string, unknown>)[capability]));
    if (listed.length === 0) return result;
    target.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
    const out: Record<string, unknown> = { ...result };
    for (const [capability, method, key] of listed) {
      target.write(JSON.stringify({ jsonrpc: "2.0", id: `probe-${capability}`, method }) + "\n");
      const answer = await answerTo(target, `probe-${capability}`, ms);
      out[key] = isRecord(answer?.result) && Array.isArray(answer.result[capability]) ? answer.result[capability] : [];
    }
    return out;
  } finally {
    await target.stop(300);
  }
}

/** One server/discover at 2026-07-28: its result, when it lists that version. */
async function probeModern(spawn: ProbeSpawn, ms: number): Promise<Record<string, unknown> | undefined> {
  const target = spawnProbe(spawn, false);
  try {
    const meta = { [META_PROTOCOL_VERSION]: MODERN, [META_CLIENT_CAPABILITIES]: {}, [META_CLIENT_INFO]: CLIENT_INFO };
    target.write(JSON.stringify({ jsonrpc: "2.0", id: "probe", method: "server/discover", params: { _meta: meta } }) + "\n");
    const answer = await answerTo(target, "probe", ms);
    return isRecord(answer?.result) && Array.isArray(answer.result.supportedVersions) && answer.result.supportedVersions.includes(MODERN)
      ? answer.result
      : undefined;
  } finally {
    await target.stop(300);
  }
}

/** The adapter's hello: what it can do, or undefined when the target does not speak the adapter protocol. */
async function probeAdapter(spawn: ProbeSpawn, ms: number): Promise<AdapterSupport | undefined> {
  const target = spawnProbe(spawn, true);
  try {
    const hello = await target.command({ seq: 0, op: "hello", protocol: "mcp-conform-adapter/1" }, ms);
    const supports = hello?.ok === true && isRecord(hello.supports) ? hello.supports : undefined;
    if (supports === undefined) return undefined;
    const strings = (v: unknown): Set<string> => new Set(Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
    return {
      ops: strings(supports.ops),
      clock: supports.clock === true,
      config: strings(supports.config),
      strict: supports.strict === true,
    };
  } finally {
    await target.stop(300);
  }
}

export interface ProbeResult {
  readonly profile: TargetProfile;
  readonly serverInfo: unknown;
  /** The target profiles it announced on stderr while probed. */
  readonly announced: ReadonlySet<string>;
}

export async function probeTarget(
  command: string,
  args: readonly string[],
  ms: number,
  profiles: Record<string, unknown>,
  profileName: string | undefined,
  env?: Readonly<Record<string, string>>,
  options: { readonly adapter?: boolean } = {},
): Promise<ProbeResult | string> {
  let stderr = "";
  // Kept short: only the announcement line matters, and a chatty target must not grow the runner.
  const spawn: ProbeSpawn = {
    command,
    args,
    ...(env !== undefined ? { env } : {}),
    stderr: (text) => (stderr = (stderr + text).slice(-8192)),
  };
  const announced = new Set<string>();
  const collect = (): void => {
    for (const name of announcedProfiles(stderr)) announced.add(name);
    stderr = "";
  };
  const versions = new Set<string>();
  let capabilities: Record<string, unknown> | undefined;
  let serverInfo: unknown;
  let tools = new Set<string>();
  let listing: unknown[] = [];
  let resources: unknown[] = [];
  let prompts: unknown[] = [];
  for (const version of SESSION_VERSIONS) {
    const result = await probeSession(spawn, version, ms);
    collect();
    if (result === undefined || result.protocolVersion !== version) continue;
    versions.add(version);
    if (isRecord(result.capabilities)) capabilities = result.capabilities;
    serverInfo = result.serverInfo;
    if (Array.isArray(result.tools)) {
      listing = result.tools;
      tools = new Set(result.tools.filter(isRecord).map((t) => String(t.name)));
    }
    resources = Array.isArray(result.resourceListing) ? result.resourceListing : [];
    prompts = Array.isArray(result.promptListing) ? result.promptListing : [];
  }
  const discovered = await probeModern(spawn, ms);
  collect();
  if (discovered !== undefined) versions.add(MODERN);
  // A target speaking only 2026-07-28 declares its capabilities in server/discover.
  if (capabilities === undefined && isRecord(discovered?.capabilities)) capabilities = discovered.capabilities;
  if (serverInfo === undefined && isRecord(discovered?._meta)) serverInfo = discovered._meta[META_SERVER_INFO];
  const adapter = options.adapter === true ? await probeAdapter(spawn, Math.min(ms, 1500)) : undefined;
  if (profileName !== undefined) {
    const named = profiles[profileName];
    if (!isRecord(named))
      return `unknown profile ${JSON.stringify(profileName)}; fixtures/manifest.json names ${Object.keys(profiles).join(", ")}`;
    capabilities = named;
  }
  if (versions.size === 0 && adapter === undefined) return "the target answered no initialize and no server/discover";
  return {
    profile: {
      versions,
      capabilities: capabilities ?? {},
      tools,
      listing,
      resources,
      prompts,
      ...(adapter !== undefined ? { adapter } : {}),
    },
    serverInfo,
    announced,
  };
}

export interface RunOptions {
  readonly fixturesDir: string;
  readonly role: "server" | "client";
  readonly only?: string;
  readonly timeoutMs: number;
  readonly graceMs?: number;
  readonly concurrency?: number;
  readonly profile: TargetProfile;
  /** One case per fixture (a quicker pass): at the newest of its versions the target speaks. */
  readonly newestOnly?: boolean;
  /** Only the cases it admits (a later pass of --profiles: those no earlier pass could judge). */
  readonly select?: CaseFilter;
  /** The target's environment besides MCP_CONFORM=1 (a pass's MCP_CONFORM_PROFILE). */
  readonly env?: Readonly<Record<string, string>>;
}

/** Replays every applicable case of the corpus; N/A cases are reported with what they need. */
export async function runStdioConformance(command: string, args: readonly string[], options: RunOptions): Promise<CaseResult[]> {
  const { fixtures } = loadFixtures(options.fixturesDir, options.role);
  const jobs: (() => Promise<CaseResult>)[] = [];
  const replay: ReplayOptions = {
    command,
    args,
    adapter: options.profile.adapter !== undefined,
    timeoutMs: options.timeoutMs,
    graceMs: options.graceMs ?? 150,
    ...(options.env !== undefined ? { env: options.env } : {}),
  };
  for (const { header, steps } of fixtures) {
    if (options.only !== undefined && !header.fixture.startsWith(options.only)) continue;
    for (const version of caseVersions(header, options.profile, options.newestOnly === true)) {
      if (options.select !== undefined && !options.select(header.fixture, version)) continue;
      const missing =
        options.role === "client" ? "a client under test (stdio replay covers servers)" : notApplicable(header, version, options.profile);
      const base = { fixture: header.fixture, version, transport: "stdio" as const, rules: header.rules, level: "MUST" as const };
      if (missing !== undefined) jobs.push(async () => ({ ...base, outcome: "not-applicable", reason: missing }));
      else {
        const bound = stepsWithTools(header, steps, listingsOf(options.profile), replay.adapter);
        jobs.push(() => replayCase(header, bound, version, replay));
      }
    }
  }
  return runJobs(jobs, options.concurrency ?? 4);
}

export interface PassesOptions extends Omit<RunOptions, "profile" | "select" | "env"> {
  /** The target profiles, in pass order. */
  readonly profiles: readonly string[];
  /** The longest wait for one probe answer. */
  readonly probeMs: number;
  /** Told what each pass's probe found, or why a pass was skipped. */
  readonly warn?: (text: string) => void;
  /** Variables for the target in every pass (--env), beneath each pass's own MCP_CONFORM_PROFILE. */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * The corpus in passes, one per target profile (passes.ts): probed and replayed with
 * MCP_CONFORM_PROFILE set. A string when the target answered no probe in any pass.
 */
export async function runStdioPasses(command: string, args: readonly string[], options: PassesOptions): Promise<CaseResult[] | string> {
  const { profiles, probeMs, warn = () => undefined, env: given, ...run } = options;
  let answered = 0;
  const cases = await runPasses(
    profiles,
    options.newestOnly === true,
    async (name, select) => {
      const env = { ...given, ...profileEnvironment(name) };
      const probed = await probeTarget(command, args, probeMs, {}, undefined, env);
      if (typeof probed === "string") return probed;
      answered++;
      const published = PUBLISHED_PROFILES.get(name);
      const pass = { name, announced: probed.announced.has(name), settings: published !== undefined && hasSettings(published) };
      warn(
        `profile ${name}${pass.announced ? " (announced)" : " (not announced: the target runs its default configuration)"}: ${describeTarget(probed)}`,
      );
      const mismatch = pass.announced && published !== undefined ? capabilityMismatch(published, probed.profile.capabilities) : undefined;
      if (mismatch !== undefined)
        warn(
          `profile ${name}: announced, but the target declares ${untrustedText(mismatch, MESSAGE_WIDTH)}; its cases are judged on what it declares\n`,
        );
      return runStdioConformance(command, args, { ...run, profile: { ...probed.profile, pass }, select, env });
    },
    warn,
  );
  return answered === 0 ? "the target answered no initialize and no server/discover under any profile" : cases;
}

/** The probe's findings, one line: what the target declares is quoted as untrusted text (CLI-01). */
export function describeTarget(probed: ProbeResult): string {
  const p = probed.profile;
  const shown = (value: unknown): string => untrustedText(JSON.stringify(value), MESSAGE_WIDTH);
  const ops = p.adapter === undefined ? "none" : untrustedText([...p.adapter.ops].join(","), MESSAGE_WIDTH);
  return `target: ${shown(probed.serverInfo ?? null)} versions ${[...p.versions].join(", ") || "none"}; capabilities ${shown(p.capabilities)}; adapter ${ops}\n`;
}

const corpusRoot = (): string => fileURLToPath(new URL("../../../../", import.meta.url));

/** The subcommand: parse, probe, replay, render, exit code. */
export async function conformMain(argv: readonly string[], write: (text: string) => void, warn: (text: string) => void): Promise<number> {
  const dashdash = argv.indexOf("--");
  const own = dashdash < 0 ? argv : argv.slice(0, dashdash);
  if (own.includes("--help") || own.includes("-h")) {
    write(CONFORM_USAGE);
    return 0;
  }
  const parsed = parseConformArgs(argv);
  if (!parsed.ok) {
    warn(usageErrorLine("conform", parsed.problem));
    return 2;
  }
  const args = parsed.args;
  let baseline: Baseline = new Map();
  if (args.baseline !== undefined) {
    let text: string;
    try {
      text = readFileSync(args.baseline, "utf8");
    } catch (error) {
      warn(`mcp-engine conform: cannot read the baseline ${args.baseline}: ${error instanceof Error ? error.message : String(error)}\n`);
      return 2;
    }
    const read = parseBaseline(text);
    if (typeof read === "string") {
      warn(`mcp-engine conform: ${read}\n`);
      return 2;
    }
    baseline = read;
  }
  const fixturesDir = join(corpusRoot(), "fixtures");
  const target = args.target;
  if (target === undefined) return 2;
  if (args.adapter && (target.kind === "url" || args.profiles !== undefined)) {
    const why = target.kind === "url" ? "an HTTP target has no host adapter" : "each pass of --profiles judges a black box";
    warn(usageErrorLine("conform", `--adapter drives a stdio target's host adapter; ${why}`));
    return 2;
  }
  let mode: ConformMode = "black-box";
  // CLI-02: the target gets its default environment and what --env asks for, nothing else of ours.
  const { env, missing } = requestedEnvironment(args.env);
  for (const name of missing) warn(`mcp-engine conform: --env ${untrustedText(name)}: not set here, so not passed to the target\n`);
  const withEnv = args.env.length > 0 ? { env } : {};
  let results: readonly CaseResult[];
  if (args.role === "server" && args.transport === "http") {
    warn(usageErrorLine("conform", "--transport http is for --role client; a server is judged over HTTP by giving its URL"));
    return 2;
  }
  if (args.role === "client") {
    if (target.kind === "url" || args.profiles !== undefined || args.adapter || args.profile !== undefined) {
      warn(usageErrorLine("conform", "--role client takes -- <client command...>, without --profile(s) or --adapter"));
      return 2;
    }
    results = await runClientConformance(target.command, target.args, {
      fixturesDir,
      transport: args.transport,
      timeoutMs: args.timeoutMs,
      ...(args.only !== undefined ? { only: args.only } : {}),
      ...withEnv,
    });
  } else if (target.kind === "url") {
    // The Streamable HTTP replay (fixtures/http/, lib/cli/conform/ (http*.ts)) reports in the same shapes.
    try {
      results = await runHttpConformance(target.url, { fixturesDir });
    } catch (error) {
      warn(`mcp-engine conform: ${untrustedText(error instanceof Error ? error.message : error, MESSAGE_WIDTH)}\n`);
      return 2;
    }
  } else if (args.profiles !== undefined) {
    const only = args.only !== undefined ? { only: args.only } : {};
    const passed = await runStdioPasses(target.command, target.args, {
      fixturesDir,
      role: args.role,
      timeoutMs: args.timeoutMs,
      probeMs: args.timeoutMs,
      profiles: args.profiles,
      newestOnly: args.newest,
      warn,
      ...only,
      ...withEnv,
    });
    if (typeof passed === "string") {
      warn(`mcp-engine conform: ${passed}\n`);
      return 2;
    }
    results = passed;
  } else {
    const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as { profiles?: Record<string, unknown> };
    const probed = await probeTarget(target.command, target.args, args.timeoutMs, manifest.profiles ?? {}, args.profile, withEnv.env, {
      adapter: args.adapter,
    });
    if (typeof probed === "string") {
      warn(`mcp-engine conform: ${probed}\n`);
      return 2;
    }
    warn(describeTarget(probed));
    if (probed.profile.adapter !== undefined) mode = "adapter";
    else if (args.adapter) warn("mcp-engine conform: --adapter: the target answered no adapter hello; it is judged as a black box\n");
    results = await runStdioConformance(target.command, target.args, {
      fixturesDir,
      role: args.role,
      timeoutMs: args.timeoutMs,
      profile: probed.profile,
      newestOnly: args.newest,
      ...(args.only !== undefined ? { only: args.only } : {}),
      ...withEnv,
    });
  }
  const judged = { ...applyBaseline(results, baseline), mode, role: args.role };
  write(render(judged, args.format));
  return exitCode(judged);
}
