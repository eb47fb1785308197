// The client role of `mcp-engine conform` (fixtures/FORMAT.md, "Client role"): the runner plays
// the server of each client fixture over the client's stdio, through the relay a client runs as
// its server command (client-target.ts), or over Streamable HTTP at a URL it serves and passes to
// the client's command (client-http-target.ts). `in` steps are what the server sends, `out` steps
// what the client must send; the client performs its own host commands, told which case it is in
// by MCP_CONFORMANCE_SCENARIO (the fixture id) and MCP_CONFORM_VERSION.
//
// Black box: a client picks its own request ids, client info and capabilities, so its initialize
// is matched by shape and its request ids are captured and put into the server's answers. A case
// applies when its only host command is the client's own initialize (in the session era) and the
// fixture sets no engine configuration; the rest is reported not-applicable with that need.
// Every message is held to the runner's global checks: JSON-RPC lines (M-01), one answer per
// request (JR-01), answers only to ids the server sent (ID-04); over HTTP also the transport's
// headers (HTTP-01, HTTP-03, L-07). Over HTTP a case applies only where it has an HTTP meaning:
// no raw bytes or end of stdin, and no 2024-11-05 (whose HTTP transport is HTTP+SSE).

import type { CaseResult, RuleLevel } from "./types.js";
import { compare, type Bindings } from "./match.js";
import { declares, loadFixtures, type FixtureHeader, type Step } from "./fixtures.js";
import { ClientTarget, type ClientChannel } from "./client-target.js";
import { ClientHttpTarget } from "./client-http-target.js";
import { Failure, Ledger, substitute, transportStep } from "./replay.js";
import { runJobs } from "./passes.js";
import type { Received } from "./target.js";
import { isProtocolVersion, SCHEMA_RELEASES, VERSION_PROFILES } from "../../rules/versions.js";

export type ClientTransport = "stdio" | "http";

export interface ClientRunOptions {
  readonly fixturesDir: string;
  /** Default stdio: the relay; http: a URL the runner serves, passed as the client's last argument. */
  readonly transport?: ClientTransport;
  readonly only?: string;
  readonly timeoutMs: number;
  /** Silence that ends a `quiet` when no ping barrier can be sent. */
  readonly graceMs?: number;
  readonly concurrency?: number;
  readonly env?: Readonly<Record<string, string>>;
}

/** The host commands a black-box client performs on its own. */
const OWN_COMMANDS = new Set(["initialize"]);
/** The first message of a client may take a runtime's start. */
const CLIENT_STARTUP_MS = 10_000;
const BARRIER = "mcp-conform-barrier-";

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const idKey = (id: unknown): string => JSON.stringify(id);
const informative = (level: RuleLevel): boolean => level === "policy" || level === "MAY";

/** Undefined when a black-box client can be judged on the case; otherwise what it would need. */
export function clientNotApplicable(header: FixtureHeader): string | undefined {
  const requires = header.requires ?? {};
  if (requires.era !== "session") return "the 2026-07-28 era (the client's startModern is a host command)";
  if (requires.clock === true) return "a virtual clock (time steps)";
  if (requires.strict === true) return "strict phase rules (engine option ENG-03)";
  for (const key of requires.config ?? []) return `engine configuration key ${key}`;
  const others = (requires.host ?? []).filter((op) => !OWN_COMMANDS.has(op));
  if (others.length > 0) return `host command ${others.join(", ")} (a black-box client performs only its own initialize)`;
  return undefined;
}

/** Undefined when the case means the same over Streamable HTTP; otherwise why it is stdio only. */
export function httpNotApplicable(steps: readonly Step[], version: string): string | undefined {
  if (isProtocolVersion(version) && VERSION_PROFILES[version].index < VERSION_PROFILES[SCHEMA_RELEASES.streamableHttp].index)
    return `stdio: ${version} has no Streamable HTTP (its HTTP transport is HTTP+SSE)`;
  for (const step of steps) {
    if ("in_bytes" in step || "in_hex" in step) return "stdio: raw bytes on the client's stdin have no HTTP counterpart";
    if ("eof" in step) return "stdio: the end of the client's stdin has no HTTP counterpart";
  }
  return undefined;
}

class Unjudgeable {
  constructor(readonly reason: string) {}
}

interface ClientCase {
  readonly target: ClientChannel;
  readonly version: string;
  readonly header: FixtureHeader;
  readonly bindings: Bindings;
  readonly ledger: Ledger;
  readonly deviations: string[];
  barriers: number;
  /** The bytes written so far end inside a line: a barrier now would be glued to it. */
  partialLine: boolean;
  /** The client capabilities the case depends on (exercisedCapabilities). */
  readonly exercised: ReadonlySet<string>;
  /** Fixture id of a client request → the capture holding the id the client chose. */
  readonly ids: Map<string, string>;
}

/** The fixture's request of the client, with the id and (for initialize) the identity left to the client. */
function clientRequest(state: ClientCase, expected: Record<string, unknown>): Record<string, unknown> {
  const capture = `client-id-${state.ids.size}`;
  state.ids.set(idKey(expected.id), capture);
  const relaxed: Record<string, unknown> = { ...expected, id: { $capture: capture } };
  if (expected.method === "initialize")
    relaxed.params = { protocolVersion: "$type:string", capabilities: "$type:object", clientInfo: "$type:object" };
  return relaxed;
}

/** The client capability each request of the server depends on (a request carrying `task` also on `tasks`). */
const CAPABILITY_OF_METHOD: readonly (readonly [string, string])[] = [
  ["sampling/", "sampling"],
  ["elicitation/", "elicitation"],
  ["roots/", "roots"],
  ["tasks/", "tasks"],
];

/** The client capabilities the fixture's server requests exercise: the case's verdict depends on how they are declared. */
export function exercisedCapabilities(steps: readonly Step[]): Set<string> {
  const used = new Set<string>();
  for (const step of steps) {
    for (const m of Array.isArray(step.in) ? step.in : [step.in]) {
      if (!isRecord(m) || typeof m.method !== "string" || !Object.hasOwn(m, "id")) continue;
      for (const [prefix, capability] of CAPABILITY_OF_METHOD) if (m.method.startsWith(prefix)) used.add(capability);
      if (isRecord(m.params) && Object.hasOwn(m.params, "task")) used.add("tasks");
    }
  }
  return used;
}

/** A capability without `listChanged`: what the client notifies of its own, which no server request depends on. */
function withoutListChanged(capability: unknown): unknown {
  if (!isRecord(capability)) return capability;
  const { listChanged: _, ...rest } = capability;
  return rest;
}

/**
 * Undefined when the client declares each exercised capability as the fixture's client does
 * (both absent, or the same sub-capabilities); otherwise why the case cannot judge it: a gating
 * case written for an undeclared capability says nothing of a client that declares it.
 */
function capabilityMismatch(state: ClientCase, declared: unknown): string | undefined {
  const fixture = isRecord(state.header.config?.capabilities) ? state.header.config.capabilities : {};
  const own = isRecord(declared) ? declared : {};
  for (const capability of state.exercised) {
    const want = withoutListChanged(fixture[capability]);
    const got = withoutListChanged(own[capability]);
    if (!(declares(got, want) && declares(want, got)))
      return `a client declaring ${capability} as ${want === undefined ? "absent" : JSON.stringify(want)} (it declares ${got === undefined ? "none" : JSON.stringify(got).slice(0, 200)})`;
  }
  return undefined;
}

/** The server's answer to a client request: its id becomes the one the client chose. */
function answerFor(state: ClientCase, value: unknown): unknown {
  if (!isRecord(value) || Object.hasOwn(value, "method") || !Object.hasOwn(value, "id")) return value;
  const capture = state.ids.get(idKey(value.id));
  return capture === undefined || !state.bindings.has(capture) ? value : { ...value, id: state.bindings.get(capture) };
}

function barrier(state: ClientCase): string | undefined {
  if (!state.target.reachesClient || state.partialLine) return undefined;
  state.barriers++;
  return JSON.stringify({ jsonrpc: "2.0", id: `${BARRIER}${state.barriers}`, method: "ping" }) + "\n";
}

/** An answer to a request the fixture leaves with the client's host (the quiet step's `allow`): the client may give it any time. */
function answersOpen(step: Step, message: unknown): boolean {
  if (!Array.isArray(step.allow) || !isRecord(message) || Object.hasOwn(message, "method") || !Object.hasOwn(message, "id")) return false;
  return step.allow.some((id) => idKey(id) === idKey(message.id));
}

const isBarrierAnswer = (m: unknown): boolean =>
  isRecord(m) && typeof m.id === "string" && m.id.startsWith(BARRIER) && !Object.hasOwn(m, "method");

/** A transport rule the client broke (over HTTP, its headers), as the case's failure. */
function transportFailure(state: ClientCase): Failure | undefined {
  const broken = state.target.violation();
  return broken === undefined ? undefined : new Failure(broken.rule, "MUST", broken.reason);
}

/** The next message of the client: malformed lines and the global checks fail at once; barrier answers are passed over. */
async function next(state: ClientCase, ms: number): Promise<Received | Failure | undefined> {
  const deadline = Date.now() + (state.target.heardFrom ? ms : Math.max(ms, CLIENT_STARTUP_MS));
  for (;;) {
    const entry = await state.target.next(Math.max(1, deadline - Date.now()));
    const broken = transportFailure(state);
    if (broken !== undefined) return broken;
    if (entry === undefined) return undefined;
    if (entry.kind === "malformed") return new Failure("M-01", "MUST", `a line that is not JSON: ${entry.line.slice(0, 200)}`);
    if (isBarrierAnswer(entry.value)) continue;
    return state.ledger.check(entry.value) ?? entry;
  }
}

async function expectOut(state: ClientCase, step: Step, timeoutMs: number): Promise<Failure | Unjudgeable | undefined> {
  const rule = typeof step.rule === "string" ? step.rule : (state.header.rules[0] ?? "M-01");
  const level = (typeof step.level === "string" ? step.level : "MUST") as RuleLevel;
  let wire = "wire" in step ? step.wire : step.out;
  const isRequest = isRecord(wire) && typeof wire.method === "string" && Object.hasOwn(wire, "id");
  if (isRecord(wire) && isRequest) wire = clientRequest(state, wire);
  const byId = isRecord(wire) && !isRequest && Object.hasOwn(wire, "id") && !String(wire.id).startsWith("$") ? idKey(wire.id) : undefined;
  const held: Received[] = [];
  try {
    for (;;) {
      const got = await next(state, timeoutMs);
      if (got instanceof Failure) return got;
      if (got === undefined || got.kind !== "message") {
        const stranded = state.target.stranded();
        if (stranded !== undefined) return new Unjudgeable(stranded);
        const problem = `expected ${JSON.stringify(wire).slice(0, 300)}, got nothing`;
        if (!informative(level)) return new Failure(rule, level, problem);
        state.deviations.push(`${rule} (${level}): ${problem}`);
        return undefined;
      }
      const actual = got.value;
      // Answers to different requests may come in any order: an answer is looked for by its id.
      if (byId !== undefined && !(isRecord(actual) && !Object.hasOwn(actual, "method") && idKey(actual.id) === byId)) {
        held.push(got);
        continue;
      }
      const trial = new Map(state.bindings);
      const problem = compare(wire, actual, { bindings: trial });
      if (problem === undefined) {
        for (const [k, v] of trial) state.bindings.set(k, v);
        if (isRecord(actual) && actual.method === "initialize" && isRecord(actual.params)) {
          const mismatch = capabilityMismatch(state, actual.params.capabilities);
          if (mismatch !== undefined) return new Unjudgeable(mismatch);
        }
        return undefined;
      }
      if (!informative(level)) return new Failure(rule, level, `${problem} (message ${JSON.stringify(actual).slice(0, 300)})`);
      state.deviations.push(`${rule} (${level}): ${problem}`);
      if (byId === undefined) held.push(got);
      return undefined;
    }
  } finally {
    for (let i = held.length - 1; i >= 0; i--) state.target.unshift(held[i] as Received);
  }
}

/** Nothing more comes: proved by the answer to a ping barrier, or by a silence of `graceMs` when none can be sent. */
async function expectQuiet(state: ClientCase, step: Step, timeoutMs: number, graceMs: number): Promise<Failure | undefined> {
  const rule = typeof step.rule === "string" ? step.rule : (state.header.rules[0] ?? "M-08");
  const level = (typeof step.level === "string" ? step.level : "MUST") as RuleLevel;
  const ping = barrier(state);
  if (ping !== undefined) state.target.write(ping);
  const deadline = Date.now() + (ping !== undefined ? timeoutMs : graceMs);
  for (;;) {
    const entry = await state.target.next(Math.max(1, deadline - Date.now()));
    if (entry === undefined) return undefined;
    if (entry.kind === "malformed") return new Failure("M-01", "MUST", `a line that is not JSON: ${entry.line.slice(0, 200)}`);
    if (isBarrierAnswer(entry.value)) return undefined;
    const global = transportFailure(state) ?? state.ledger.check(entry.value);
    if (global !== undefined) return global;
    if (answersOpen(step, entry.value)) continue;
    const problem = `expected nothing, got ${JSON.stringify(entry.value).slice(0, 300)}`;
    if (!informative(level)) return new Failure(rule, level, problem);
    state.deviations.push(`${rule} (${level}): ${problem}`);
  }
}

async function runSteps(state: ClientCase, steps: readonly Step[], options: ClientRunOptions): Promise<Failure | Unjudgeable | undefined> {
  let lastQuiet: Step | undefined;
  for (const raw of steps) {
    const step = substitute(raw, state.version) as Step;
    if ("in" in step) {
      const value = Array.isArray(step.in) ? step.in.map((m) => answerFor(state, m)) : answerFor(state, step.in);
      state.ledger.noteSent(value);
      state.target.write(JSON.stringify(value) + "\n");
      state.partialLine = false;
      lastQuiet = undefined;
    } else if ("in_bytes" in step || "in_hex" in step || "eof" in step) {
      state.partialLine = transportStep(step, state.target, state.ledger);
    } else if ("out" in step) {
      const failure = await expectOut(state, step, options.timeoutMs);
      if (failure !== undefined) return failure;
      lastQuiet = undefined;
    } else if ("quiet" in step) {
      const failure = await expectQuiet(state, step, options.timeoutMs, options.graceMs ?? 300);
      if (failure !== undefined) return failure;
      lastQuiet = step;
    }
    // call (the client's own initialize), event, phase, deadline, note: nothing on the server's side of the wire.
  }
  await state.target.stop(1500);
  for (;;) {
    const entry = await state.target.next(0);
    if (entry === undefined) return transportFailure(state);
    if (entry.kind !== "message" || isBarrierAnswer(entry.value)) continue;
    const global = transportFailure(state) ?? state.ledger.check(entry.value);
    if (global !== undefined) return global;
    if (lastQuiet !== undefined && !answersOpen(lastQuiet, entry.value)) {
      const level = (lastQuiet.level ?? "MUST") as RuleLevel;
      const problem = `expected nothing more, got ${JSON.stringify(entry.value).slice(0, 300)}`;
      if (!informative(level)) return new Failure(String(lastQuiet.rule ?? "M-08"), level, problem);
      state.deviations.push(`${String(lastQuiet.rule)} (${level}): ${problem}`);
    }
  }
}

/** Before the server may write, the client must have started it (stdio: the relay's connection; HTTP: its first request). */
async function connected(target: ClientChannel, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!target.canWrite && !target.exited && Date.now() < deadline) await new Promise<void>((resolve) => setTimeout(resolve, 20));
  return target.canWrite;
}

/** One client case; the caller has decided it applies. */
export async function replayClientCase(
  header: FixtureHeader,
  steps: readonly Step[],
  version: string,
  command: string,
  args: readonly string[],
  options: ClientRunOptions,
): Promise<CaseResult> {
  const transport = options.transport ?? "stdio";
  const base = { fixture: header.fixture, version, transport, rules: header.rules };
  const targetOptions = { command, args, scenario: header.fixture, version, ...(options.env !== undefined ? { env: options.env } : {}) };
  const started = await (transport === "http" ? ClientHttpTarget.start(targetOptions) : ClientTarget.start(targetOptions));
  if (typeof started === "string") return { ...base, level: "MUST", outcome: "not-applicable", reason: started };
  const state: ClientCase = {
    target: started,
    version,
    header,
    bindings: new Map(),
    ledger: new Ledger(),
    deviations: [],
    barriers: 0,
    partialLine: false,
    exercised: exercisedCapabilities(steps),
    ids: new Map(),
  };
  try {
    if (!(await connected(started, CLIENT_STARTUP_MS)))
      return {
        ...base,
        level: "MUST",
        outcome: "not-applicable",
        reason:
          transport === "http"
            ? `a client that connects to the URL it is given (its last argument) within ${CLIENT_STARTUP_MS} ms`
            : "a client that starts the server command it is given (MCP_CONFORM_SERVER_COMMAND, or its last arguments)",
      };
    const failure = await runSteps(state, steps, options);
    const deviations = state.deviations.length > 0 ? { deviations: state.deviations } : {};
    if (failure instanceof Unjudgeable) return { ...base, level: "MUST", outcome: "not-applicable", reason: failure.reason };
    if (failure === undefined) return { ...base, level: "MUST", outcome: "passed", ...deviations };
    return { ...base, level: failure.level, outcome: "failed", failedRule: failure.rule, reason: failure.reason, ...deviations };
  } finally {
    await started.stop(200);
  }
}

/** Every client case of the corpus, applicable ones replayed against the client command. */
export async function runClientConformance(command: string, args: readonly string[], options: ClientRunOptions): Promise<CaseResult[]> {
  const { fixtures } = loadFixtures(options.fixturesDir, "client");
  const jobs: (() => Promise<CaseResult>)[] = [];
  for (const { header, steps } of fixtures) {
    if (options.only !== undefined && !header.fixture.startsWith(options.only)) continue;
    const transport = options.transport ?? "stdio";
    const own = clientNotApplicable(header);
    for (const version of header.versions) {
      const base = { fixture: header.fixture, version, transport, rules: header.rules, level: "MUST" as const };
      const missing = own ?? (transport === "http" ? httpNotApplicable(steps, version) : undefined);
      if (missing !== undefined) jobs.push(async () => ({ ...base, outcome: "not-applicable", reason: missing }));
      else jobs.push(() => replayClientCase(header, steps, version, command, args, options));
    }
  }
  return runJobs(jobs, options.concurrency ?? 2);
}
