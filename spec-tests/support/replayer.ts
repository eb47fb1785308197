// The fixture replayer: runs one fixture (fixtures/FORMAT.md) against the Engine for one
// version, strictness and input mode, and returns the first mismatch (or undefined).
// It is deliberately small so that other implementations can port it.

import { compare as compareValues, type Bindings } from "../../lib/cli/conform/match.js";
import { bindTools, ownBindings } from "../../lib/cli/conform/discovery.js";
import type { OwnTool } from "../../lib/cli/conform/fixtures.js";
import { engineConfigOf, performHostCall, type HostCall } from "../../lib/cli/conform/host-ops.js";
import { Engine, LocalProtocolError, encodeMessage, type EngineOptions, type JsonObject, type ProtocolVersion } from "../../lib/index.js";

export interface FixtureHeader {
  fixture: string;
  role: "client" | "server";
  versions: ProtocolVersion[];
  strict?: boolean[];
  rules: string[];
  spec?: string;
  config?: JsonObject;
  /** Discovered tools' stand-ins: the name and arguments this fixture's host lists (FORMAT.md "Discovered tools"). */
  discover?: Record<string, OwnTool>;
}

export interface Fixture {
  header: FixtureHeader;
  steps: JsonObject[];
  file: string;
}

export type InputMode = "value" | "bytes";

export function parseFixture(text: string, file: string): Fixture {
  const lines = text.split("\n").filter((l, i, all) => !(l === "" && i === all.length - 1));
  const parsed = lines.map((line, i) => {
    try {
      return JSON.parse(line) as JsonObject;
    } catch (error) {
      throw new Error(`${file}:${i + 1}: not JSON: ${String(error)}`);
    }
  });
  const header = parsed[0] as unknown as FixtureHeader;
  if (
    header === undefined ||
    typeof header.fixture !== "string" ||
    !Array.isArray(header.versions) ||
    !Array.isArray(header.rules) ||
    header.rules.length === 0
  ) {
    throw new Error(`${file}:1: header needs fixture, role, versions and at least one rule`);
  }
  // Here the fixture's host lists the tools: its own stand-ins take the placeholders' place.
  const own = ownBindings(header);
  return { header, steps: parsed.slice(1).map((s) => bindTools(s, own) as JsonObject), file };
}

/** The fixture value with every "$version" replaced by `version`. */
export function substitute(value: unknown, version: string): unknown {
  if (value === "$version") return version;
  if (Array.isArray(value)) return value.map((v) => substitute(v, version));
  if (typeof value === "object" && value !== null) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) out[k] = substitute(v, version);
    return out;
  }
  return value;
}

/** Compares with the corpus' matching language (lib/cli/conform/match.ts); `subset` ignores keys the expectation does not list. */
export function compare(
  expected: unknown,
  actual: unknown,
  subset: boolean,
  path = "",
  present = true,
  bindings: Bindings = new Map(),
): string | undefined {
  return compareValues(expected, actual, { subset, bindings }, path, present);
}

function hexToBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

const encoder = new TextEncoder();

type Call = HostCall;

const perform = performHostCall;

/** Runs a fixture; returns undefined on success or a message naming the failing step. */
export function replay(fixture: Fixture, version: ProtocolVersion, strict: boolean, mode: InputMode): string | undefined {
  const config = engineConfigOf((substitute(fixture.header.config ?? {}, version) ?? {}) as JsonObject) as Partial<EngineOptions>;
  const engine = new Engine({ info: { name: "fixture", version: "0" }, versions: [version], ...config, role: fixture.header.role, strict });
  let now = 0;
  // $serverInfo and $capabilities stand for the endpoint's own identity: here, the configured one.
  const bindings: Bindings = new Map<string, unknown>([
    ["serverInfo", config.info ?? { name: "fixture", version: "0" }],
    ["capabilities", config.capabilities ?? {}],
  ]);
  for (let i = 0; i < fixture.steps.length; i++) {
    const step = substitute(fixture.steps[i], version) as JsonObject;
    const where = `${fixture.file}:${i + 2}`;
    try {
      const problem = runStep(
        engine,
        step,
        mode,
        () => now,
        (t) => (now = t),
        bindings,
      );
      if (problem !== undefined) return `${where}: ${problem}`;
    } catch (error) {
      return `${where}: threw ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
    }
  }
  return undefined;
}

function runStep(
  engine: Engine,
  step: JsonObject,
  mode: InputMode,
  getNow: () => number,
  setNow: (t: number) => void,
  bindings: Bindings,
): string | undefined {
  if ("note" in step) return undefined;
  if ("in" in step) {
    if (mode === "value") engine.receiveMessage(step.in, getNow());
    else engine.receiveBytes(encodeMessage(step.in), getNow());
    return undefined;
  }
  if ("in_bytes" in step) {
    engine.receiveBytes(encoder.encode(step.in_bytes as string), getNow());
    return undefined;
  }
  if ("in_hex" in step) {
    engine.receiveBytes(hexToBytes(step.in_hex as string), getNow());
    return undefined;
  }
  if ("eof" in step) {
    engine.receiveEof();
    return undefined;
  }
  if ("time" in step) {
    setNow(step.time as number);
    engine.handleTimeout(step.time as number);
    return undefined;
  }
  if ("call" in step) {
    const call = step.call as Call;
    let returned: unknown;
    try {
      returned = perform(engine, call);
    } catch (error) {
      if (!(error instanceof LocalProtocolError)) throw error;
      if (!("throws" in step)) return `${call.op} threw ${error.message}`;
      return compare(step.throws, error, true, "throws", true, bindings);
    }
    if ("throws" in step) return `${call.op} returned ${JSON.stringify(returned)}; expected it to throw`;
    if ("returns" in step) return compare(step.returns, returned, false, "returns", true, bindings);
    return undefined;
  }
  if ("out" in step) {
    const next = engine.pollOutbound();
    if (next === undefined) return `expected outbound ${JSON.stringify(step.out)}, got nothing`;
    const actual: unknown = JSON.parse(JSON.stringify(next.message));
    const problem = compare(step.out, actual, false, "", true, bindings);
    return problem === undefined ? undefined : `out ${problem} (message ${JSON.stringify(actual)})`;
  }
  if ("event" in step) {
    const next = engine.pollEvent();
    if (next === undefined) return `expected event ${JSON.stringify(step.event)}, got nothing`;
    // Events are compared after a JSON round trip, like messages, so undefined members count as absent.
    const problem = compare(step.event, JSON.parse(JSON.stringify(next)), true, "", true, bindings);
    return problem === undefined ? undefined : `event ${problem} (event ${JSON.stringify(next)})`;
  }
  if ("quiet" in step) {
    const out = engine.pollOutbound();
    if (out !== undefined) return `expected quiet, got outbound ${JSON.stringify(out.message)}`;
    const ev = engine.pollEvent();
    if (ev !== undefined) return `expected quiet, got event ${JSON.stringify(ev)}`;
    return undefined;
  }
  if ("deadline" in step) {
    const actual = engine.nextDeadline() ?? null;
    return actual === step.deadline ? undefined : `expected deadline ${JSON.stringify(step.deadline)}, got ${JSON.stringify(actual)}`;
  }
  if ("phase" in step) {
    return engine.phase === step.phase ? undefined : `expected phase ${String(step.phase)}, got ${engine.phase}`;
  }
  return `unknown step ${JSON.stringify(step)}`;
}
