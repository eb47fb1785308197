// The fixture replayer: runs one fixture (fixtures/FORMAT.md) against the Engine for one
// version, strictness and input mode, and returns the first mismatch (or undefined).
// It is deliberately small so that other implementations can port it.

import { Engine, LocalProtocolError, encodeMessage, type EngineOptions, type JsonObject, type ProtocolVersion } from "../lib/index.js";

export interface FixtureHeader {
  fixture: string;
  role: "client" | "server";
  versions: ProtocolVersion[];
  strict?: boolean[];
  rules: string[];
  spec?: string;
  config?: JsonObject;
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
  if (header === undefined || typeof header.fixture !== "string" || !Array.isArray(header.versions) || !Array.isArray(header.rules) || header.rules.length === 0) {
    throw new Error(`${file}:1: header needs fixture, role, versions and at least one rule`);
  }
  return { header, steps: parsed.slice(1), file };
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

function matcher(expected: unknown, actual: unknown, present: boolean): string | undefined {
  if (expected === "$any") return present ? undefined : "expected a value, got nothing";
  if (expected === "$absent") return present ? `expected absent, got ${JSON.stringify(actual)}` : undefined;
  if (typeof expected === "string" && expected.startsWith("$type:")) {
    const type = expected.slice(6);
    const actualType = Array.isArray(actual) ? "array" : actual === null ? "null" : typeof actual;
    return present && actualType === type ? undefined : `expected ${type}, got ${JSON.stringify(actual)}`;
  }
  return "not a matcher";
}

function isMatcher(value: unknown): boolean {
  return typeof value === "string" && (value === "$any" || value === "$absent" || value.startsWith("$type:"));
}

/** Compares `actual` against `expected`; `subset` ignores keys the expectation does not list. Returns a path-qualified mismatch. */
export function compare(expected: unknown, actual: unknown, subset: boolean, path = "", present = true): string | undefined {
  if (isMatcher(expected)) {
    const problem = matcher(expected, actual, present);
    return problem === undefined ? undefined : `${path || "value"}: ${problem}`;
  }
  if (!present) return `${path}: expected ${JSON.stringify(expected)}, got nothing`;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return `${path || "value"}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
    for (let i = 0; i < expected.length; i++) {
      const problem = compare(expected[i], actual[i], subset, `${path}[${i}]`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (typeof expected === "object" && expected !== null) {
    if (typeof actual !== "object" || actual === null || Array.isArray(actual)) return `${path || "value"}: expected an object, got ${JSON.stringify(actual)}`;
    const a = actual as JsonObject;
    const e = expected as JsonObject;
    for (const key of Object.keys(e)) {
      const problem = compare(e[key], a[key], subset, path ? `${path}.${key}` : key, Object.prototype.hasOwnProperty.call(a, key));
      if (problem !== undefined) return problem;
    }
    if (!subset) {
      for (const key of Object.keys(a)) {
        if (Object.prototype.hasOwnProperty.call(e, key)) continue;
        // Error messages and data are compared only when the fixture names them.
        if (path.endsWith("error") && (key === "message" || key === "data")) continue;
        return `${path ? path + "." : ""}${key}: unexpected ${JSON.stringify(a[key])}`;
      }
    }
    return undefined;
  }
  return Object.is(expected, actual) ? undefined : `${path || "value"}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

function hexToBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

const encoder = new TextEncoder();

interface Call {
  op: string;
  [key: string]: unknown;
}

function perform(engine: Engine, call: Call): unknown {
  const a = call as unknown as Record<string, never>;
  switch (call.op) {
    case "initialize":
      return engine.initialize(a.options);
    case "acceptInitialize":
      return engine.acceptInitialize();
    case "request":
      return engine.request(a.method, a.params, a.options);
    case "notify":
      return engine.notify(a.method, a.params, a.options);
    case "respond":
      return engine.respond(a.id, a.result);
    case "respondError":
      return engine.respondError(a.id, a.code, a.message, a.data);
    case "sendProgress":
      return engine.sendProgress(a.id, a.progress, a.total, a.message);
    case "sendTaskProgress":
      return engine.sendTaskProgress(a.taskId, a.progress, a.total, a.message);
    case "cancel":
      return engine.cancel(a.id, a.reason);
    case "setDeadline":
      return engine.setDeadline(a.id, a.deadline ?? undefined);
    case "close":
      return engine.close();
    case "startModern":
      return engine.startModern(a.version);
    case "endSubscriptions":
      return engine.endSubscriptions();
    default:
      throw new Error(`unknown op ${String(call.op)}`);
  }
}

/** Runs a fixture; returns undefined on success or a message naming the failing step. */
export function replay(fixture: Fixture, version: ProtocolVersion, strict: boolean, mode: InputMode): string | undefined {
  const config = (substitute(fixture.header.config ?? {}, version) ?? {}) as Partial<EngineOptions>;
  const engine = new Engine({ info: { name: "fixture", version: "0" }, versions: [version], ...config, role: fixture.header.role, strict });
  let now = 0;
  for (let i = 0; i < fixture.steps.length; i++) {
    const step = substitute(fixture.steps[i], version) as JsonObject;
    const where = `${fixture.file}:${i + 2}`;
    try {
      const problem = runStep(engine, step, mode, () => now, (t) => (now = t));
      if (problem !== undefined) return `${where}: ${problem}`;
    } catch (error) {
      return `${where}: threw ${error instanceof Error ? error.stack ?? error.message : String(error)}`;
    }
  }
  return undefined;
}

function runStep(engine: Engine, step: JsonObject, mode: InputMode, getNow: () => number, setNow: (t: number) => void): string | undefined {
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
      return compare(step.throws, error, true, "throws");
    }
    if ("throws" in step) return `${call.op} returned ${JSON.stringify(returned)}; expected it to throw`;
    if ("returns" in step) return compare(step.returns, returned, false, "returns");
    return undefined;
  }
  if ("out" in step) {
    const next = engine.pollOutbound();
    if (next === undefined) return `expected outbound ${JSON.stringify(step.out)}, got nothing`;
    const actual: unknown = JSON.parse(JSON.stringify(next.message));
    const problem = compare(step.out, actual, false);
    return problem === undefined ? undefined : `out ${problem} (message ${JSON.stringify(actual)})`;
  }
  if ("event" in step) {
    const next = engine.pollEvent();
    if (next === undefined) return `expected event ${JSON.stringify(step.event)}, got nothing`;
    // Events are compared after a JSON round trip, like messages, so undefined members count as absent.
    const problem = compare(step.event, JSON.parse(JSON.stringify(next)), true);
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
