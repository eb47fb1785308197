// The command line of `mcp-engine`, parsed without side effects (main.ts acts on the result).
//
// Invariants: every option is known to the subcommand it is given to, or the whole line is
// refused (exit 2 with one line: the cause, a close match for a mistyped word, and "see
// --help"; lib/codec/did-you-mean.ts): nothing unknown is ever passed on, in particular never
// spawned as the server command. Everything after `--` is the server command, untouched;
// without `--`, the first word that is not an option starts it.

import { parseEnvRequest, type EnvRequest } from "../hosts/spawn-env.js";
import { didYouMean } from "../codec/did-you-mean.js";

export const DEFAULT_TIMEOUT_MS = 30_000;
/** The budget of a whole client report (CLI-03): connecting, every check, up to the tally. */
export const DEFAULT_RUN_TIMEOUT_MS = 120_000;

export const USAGE = `usage:
  mcp-engine serve                    run the reference server on stdio
  mcp-engine serve --http HOST:PORT   run it over Streamable HTTP at http://HOST:PORT/mcp
                   [--legacy-sse]     and the deprecated HTTP+SSE transport at /sse and /messages
                   [--redis URL]      share sessions, stream events, tasks and keys with every node
                                      started with the same redis://host:port (several processes as one)
                   [--cors ORIGIN]    let browser pages of ORIGIN (scheme://host[:port], or * for any)
                                      call it cross-origin (repeatable); off without it
  mcp-engine client [options] -- <command...>
                                      spawn a stdio MCP server and report on everything it declares
  mcp-engine client [options] <url>   the same report over Streamable HTTP (or HTTP+SSE);
                                      with MCP_CONFORMANCE_SCENARIO set: perform that conformance scenario against <url>
  mcp-engine demo [options]           the reference client against the reference server (a temporary root)
  mcp-engine conform [options] -- <command...> | <url>
                                      replay the fixture corpus against a server (conform --help)
  mcp-engine --help | --version
options (client, demo):
  --era auto|session|modern           offer 2026-07-28 first and fall back to initialize (auto, the
                                      default), or speak only one era
  --timeout MS                        give up on a request after MS ms without an answer or progress
                                      (default ${DEFAULT_TIMEOUT_MS}; progress notifications restart the wait)
  --run-timeout MS                    end the whole report after MS ms (default ${DEFAULT_RUN_TIMEOUT_MS}): what was checked
                                      is printed, then a STOP line, the server is closed and the exit code is 3;
                                      at most 100 each of the tools, resources, templates and prompts are tried
  --root DIR                          declare the roots capability and answer roots/list with DIR
                                      (repeatable); without it the client declares no roots
  --call-destructive                  also call tools that are destructive by their annotations or
                                      whose name suggests writing (skipped by default)
  --env NAME | --env NAME=VALUE       pass our variable NAME to the spawned server, or set NAME to VALUE
                                      (repeatable); otherwise the server gets only HOME, LOGNAME, PATH,
                                      SHELL, TERM and USER of ours (on Windows their equivalents)
report lines: PASS, WARN (allowed but discouraged), SKIP (not applicable, with why), FAIL (a MUST
broken); WARN and FAIL name the spec rule. Exit codes: 0 no FAIL, 1 a FAIL, 2 bad usage or no connection,
3 the run budget (--run-timeout) ran out before the report was done.
`;

export type Era = "auto" | "session" | "modern";

export type Target = { kind: "stdio"; command: string; args: string[] } | { kind: "url"; url: string };

export interface CliOptions {
  command: "serve" | "client" | "demo" | "help" | "version";
  era: Era;
  timeoutMs: number;
  /** --run-timeout: the budget of the whole report (CLI-03). */
  runTimeoutMs: number;
  /** --root values as given (main.ts makes them absolute file:// URIs). */
  roots: string[];
  callDestructive: boolean;
  /** --env NAME or NAME=VALUE, in order: what the spawned server gets besides its default environment (CLI-02). */
  env: EnvRequest[];
  /** serve --http HOST:PORT */
  http: string | undefined;
  legacySse: boolean;
  /** serve --redis redis://HOST:PORT (with --http): the shared stores. */
  redis: string | undefined;
  /** serve --cors ORIGIN (with --http, repeatable): the origins allowed cross-origin, or "*" for any; empty: CORS off. */
  cors: string[];
  /** client: what to report on. */
  target: Target | undefined;
}

export type Parsed = { ok: true; options: CliOptions } | { ok: false; problem: string };

const REPORT_OPTIONS = new Set(["--era", "--timeout", "--run-timeout", "--root", "--call-destructive", "--env"]);
const ALLOWED = new Map<string, Set<string>>([
  ["serve", new Set(["--http", "--legacy-sse", "--redis", "--cors"])],
  ["client", REPORT_OPTIONS],
  ["demo", REPORT_OPTIONS],
]);
const TAKES_VALUE = new Set(["--era", "--timeout", "--run-timeout", "--root", "--http", "--redis", "--env", "--cors"]);
/** The subcommands, as a mistyped one is matched against them (conform parses its own line). */
const SUBCOMMANDS = ["serve", "client", "demo", "conform", "help"];
const EVERY_FLAG = new Set([...ALLOWED.values()].flatMap((flags) => [...flags]));

/** Why `flag` is refused for `subcommand`: another subcommand's option, or a close match of one of its own. */
function unknownOption(flag: string, subcommand: string, allowed: ReadonlySet<string>): string {
  const owners = [...ALLOWED].filter(([, flags]) => flags.has(flag)).map(([name]) => name);
  if (owners.length > 0) return `unknown option ${JSON.stringify(flag)} for ${subcommand}: it is an option of ${owners.join(" and ")}`;
  return `unknown option ${JSON.stringify(flag)} for ${subcommand}${didYouMean(flag, allowed.size > 0 ? allowed : EVERY_FLAG)}`;
}

const isUrl = (word: string): boolean => /^https?:\/\//i.test(word);

export function parseArgs(argv: readonly string[]): Parsed {
  const options: CliOptions = {
    command: "help",
    era: "auto",
    timeoutMs: DEFAULT_TIMEOUT_MS,
    runTimeoutMs: DEFAULT_RUN_TIMEOUT_MS,
    roots: [],
    callDestructive: false,
    env: [],
    http: undefined,
    legacySse: false,
    redis: undefined,
    cors: [],
    target: undefined,
  };
  const [first, ...rest] = argv;
  if (first === undefined) return { ok: false, problem: "a subcommand is missing" };
  if (first === "--help" || first === "-h" || first === "help") return { ok: true, options };
  if (first === "--version" || first === "-V") return { ok: true, options: { ...options, command: "version" } };
  const allowed = ALLOWED.get(first);
  if (allowed === undefined)
    return {
      ok: false,
      problem: first.startsWith("-")
        ? `${JSON.stringify(first)} before a subcommand: options follow it (mcp-engine client ${first} ...)${didYouMean(first, EVERY_FLAG)}`
        : `unknown subcommand ${JSON.stringify(first)}${didYouMean(first, SUBCOMMANDS)}`,
    };
  options.command = first as CliOptions["command"];

  let at = 0;
  const positional: string[] = [];
  let dashdash = false;
  while (at < rest.length) {
    const word = rest[at++] as string;
    if (word === "--") {
      dashdash = true;
      break;
    }
    if (!word.startsWith("-") || word === "-") {
      // The server command starts here; its own options are its own.
      positional.push(word, ...rest.slice(at));
      break;
    }
    if (word === "--help" || word === "-h") return { ok: true, options: { ...options, command: "help" } };
    if (word === "--version" || word === "-V") return { ok: true, options: { ...options, command: "version" } };
    const eq = word.indexOf("=");
    const flag = eq > 0 ? word.slice(0, eq) : word;
    if (!allowed.has(flag)) return { ok: false, problem: unknownOption(flag, first, allowed) };
    let value: string | undefined;
    if (TAKES_VALUE.has(flag)) {
      value = eq > 0 ? word.slice(eq + 1) : rest[at++];
      if (value === undefined || (eq < 0 && value === "--")) return { ok: false, problem: `${flag} needs a value` };
    } else if (eq > 0) return { ok: false, problem: `${flag} takes no value` };
    const problem = apply(options, flag, value);
    if (problem !== undefined) return { ok: false, problem };
  }
  const command = dashdash ? rest.slice(at) : positional;

  if (options.command === "client") {
    if (command.length === 0) return { ok: false, problem: "client needs a server: -- <command...> or a URL" };
    if (!dashdash && command.length === 1 && isUrl(command[0] as string)) options.target = { kind: "url", url: command[0] as string };
    else options.target = { kind: "stdio", command: command[0] as string, args: command.slice(1) };
    if (options.target.kind === "url" && options.env.length > 0)
      return { ok: false, problem: `--env sets the environment of a spawned server; ${options.target.url} is not spawned` };
  } else if (command.length > 0) return { ok: false, problem: `${first} takes no arguments; got ${JSON.stringify(command.join(" "))}` };
  if (options.redis !== undefined && options.http === undefined)
    return { ok: false, problem: "--redis needs --http (stdio serves one client, nothing to share)" };
  if (options.cors.length > 0 && options.http === undefined)
    return { ok: false, problem: "--cors needs --http (a browser reaches the server only over HTTP)" };
  if (options.cors.includes("*") && options.cors.length > 1)
    return {
      ok: false,
      problem: `--cors * allows every origin; it cannot be combined with ${JSON.stringify(options.cors.find((o) => o !== "*"))}`,
    };
  return { ok: true, options };
}

function apply(options: CliOptions, flag: string, value: string | undefined): string | undefined {
  switch (flag) {
    case "--era":
      if (value !== "auto" && value !== "session" && value !== "modern")
        return `--era takes auto, session or modern; got ${JSON.stringify(value)}`;
      options.era = value;
      return undefined;
    case "--timeout":
    case "--run-timeout": {
      const ms = Number(value);
      if (!/^\d+$/.test(value ?? "") || !Number.isSafeInteger(ms) || ms <= 0)
        return `${flag} takes a positive whole number of milliseconds; got ${JSON.stringify(value)}`;
      if (flag === "--timeout") options.timeoutMs = ms;
      else options.runTimeoutMs = ms;
      return undefined;
    }
    case "--root":
      if (value === "") return "--root takes a directory; got an empty string";
      options.roots.push(value as string);
      return undefined;
    case "--call-destructive":
      options.callDestructive = true;
      return undefined;
    case "--env": {
      const request = parseEnvRequest(value as string);
      if (typeof request === "string") return request;
      options.env.push(request);
      return undefined;
    }
    case "--http":
      options.http = value;
      return undefined;
    case "--cors": {
      const origin = corsOrigin(value as string);
      if (origin === undefined)
        return `--cors takes an origin, scheme://host[:port] (e.g. http://localhost:5173), or * for any; got ${JSON.stringify(value)}`;
      if (!options.cors.includes(origin)) options.cors.push(origin);
      return undefined;
    }
    case "--redis":
      if (!/^redis:\/\/[^\s]+$/i.test(value ?? "")) return `--redis takes a redis://HOST:PORT URL; got ${JSON.stringify(value)}`;
      options.redis = value;
      return undefined;
    default:
      // --legacy-sse, the only other allowed flag.
      options.legacySse = true;
      return undefined;
  }
}

/**
 * An origin as a browser sends it in its Origin header: "*", or an http(s) URL with no path,
 * query, fragment or credentials, written as the URL parser serializes it (lower-case scheme and
 * host, no default port), a trailing "/" allowed. Undefined when `value` is none of these.
 */
export function corsOrigin(value: string): string | undefined {
  if (value === "*") return value;
  // Scheme, host (a name, IPv4, or [IPv6]) and port only: no credentials, path, query or fragment.
  if (!/^https?:\/\/(\[[0-9a-f:.]+\]|[^\s/?#@:[\]\\]+)(:\d{1,5})?\/?$/i.test(value)) return undefined;
  try {
    return new URL(value).origin;
  } catch {
    return undefined;
  }
}
