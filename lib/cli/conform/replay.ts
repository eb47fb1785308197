// Replays the wire part of one fixture at one version against a spawned target (FORMAT.md,
// "Black-box replay"): inputs go to its stdin, `out` and `quiet` are judged on its stdout,
// engine-only steps (event, phase, deadline) are skipped, host commands and time go to its
// adapter when it has one. Besides the steps, every message is held to three rules that need
// no fixture: JSON-RPC 2.0 lines (M-01), one answer per request (JR-01), answers only to ids
// that were sent (ID-04).
//
// Timing model: the runner never assumes "queues empty". It waits for an expected message up
// to `timeoutMs`; after `graceMs` of silence it sends a barrier (a ping with a runner id) and
// takes its answer as proof that nothing more is coming. `quiet` is the barrier alone. After
// EOF, or in the 2026-07-28 era, the barrier is a silence of `graceMs`.

import type { CaseResult, RuleLevel } from "./types.js";
import { MODERN_VERSIONS } from "../../rules/versions.js";
import { compare, type Bindings } from "./match.js";
import type { FixtureHeader, Step } from "./fixtures.js";
import { StdioTarget, type Received } from "./target.js";
import { TriggerLedger, forbidden, isTriggerAnswer } from "./triggers.js";

export interface ReplayOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly adapter: boolean;
  readonly timeoutMs: number;
  readonly graceMs: number;
  readonly stderr?: (text: string) => void;
  /** Passed to the target's environment (StdioTarget's `env`). */
  readonly env?: Readonly<Record<string, string>>;
}

/** Notifications a server may send on its own at any time after the handshake (FORMAT.md, "Unsolicited"). */
const UNSOLICITED = new Set([
  "notifications/message",
  "notifications/tools/list_changed",
  "notifications/prompts/list_changed",
  "notifications/resources/list_changed",
]);

const BARRIER = "mcp-conform-barrier-";
export const STARTUP_MS = 20_000;
const LINGER_MS = 1000;

export function substitute(value: unknown, version: string): unknown {
  if (value === "$version") return version;
  if (Array.isArray(value)) return value.map((v) => substitute(v, version));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [k, v] of Object.entries(value)) out[k] = substitute(v, version);
    return out;
  }
  return value;
}

/**
 * An `in_bytes` or `in_hex` step written as it is (the ids of its complete lines noted), or an
 * `eof`: returns whether the bytes written so far end inside a line.
 */
export function transportStep(
  step: Step,
  target: { write(bytes: Uint8Array | string): void; closeStdin(): void },
  ledger: Ledger,
): boolean {
  if (typeof step.in_bytes === "string") {
    ledger.noteSentText(step.in_bytes);
    target.write(step.in_bytes);
    return !step.in_bytes.endsWith("\n");
  }
  if (typeof step.in_hex !== "string") {
    target.closeStdin();
    return false;
  }
  const bytes = hexToBytes(step.in_hex);
  ledger.noteSentText(new TextDecoder().decode(bytes));
  target.write(bytes);
  return bytes[bytes.length - 1] !== 0x0a;
}

function hexToBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(Math.floor(hex.length / 2));
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const idKey = (id: unknown): string => JSON.stringify(id);

/** A case that turns out not to be judgeable: the implementation refused what a trigger asked of it. */
class Unjudgeable {
  constructor(readonly reason: string) {}
}

export class Failure {
  constructor(
    readonly rule: string,
    readonly level: RuleLevel,
    readonly reason: string,
  ) {}
}

/** Per-case bookkeeping of ids: how many requests went out under each, how many answers came back. */
export class Ledger {
  private readonly sent = new Map<string, number>();
  private readonly answered = new Map<string, number>();
  noteSent(value: unknown): void {
    for (const m of Array.isArray(value) ? value : [value]) {
      if (isRecord(m) && Object.hasOwn(m, "id") && m.id !== null) this.sent.set(idKey(m.id), (this.sent.get(idKey(m.id)) ?? 0) + 1);
    }
  }
  private pending = "";
  /** Raw bytes as sent: complete lines are read for ids (a line may come in several chunks). */
  noteSentText(text: string): void {
    const lines = (this.pending + text).split("\n");
    this.pending = lines.pop() ?? "";
    if (this.pending.length > 1 << 20) this.pending = "";
    for (const line of lines) {
      try {
        this.noteSent(JSON.parse(line));
      } catch {
        // Partial or broken lines carry no id we could expect an answer for.
      }
    }
  }
  /** A problem with one received response, or undefined. */
  check(message: unknown): Failure | undefined {
    if (!isRecord(message) || Object.hasOwn(message, "method") || !Object.hasOwn(message, "id") || message.id === null) return undefined;
    if (!Object.hasOwn(message, "result") && !Object.hasOwn(message, "error")) return undefined;
    const key = idKey(message.id);
    const sent = this.sent.get(key) ?? 0;
    const answered = (this.answered.get(key) ?? 0) + 1;
    this.answered.set(key, answered);
    if (sent === 0)
      return new Failure("ID-04", "MUST", `a response for id ${key}, which was never sent: ${JSON.stringify(message).slice(0, 300)}`);
    if (answered > sent)
      return new Failure("JR-01", "MUST", `a second response for request ${key}: ${JSON.stringify(message).slice(0, 300)}`);
    return undefined;
  }
}

interface CaseState {
  readonly target: StdioTarget;
  readonly version: string;
  readonly era: "session" | "modern";
  readonly bindings: Bindings;
  readonly ledger: Ledger;
  readonly deviations: string[];
  barriers: number;
  initialized: boolean;
  /** The case's initialize declared `roots`: the server may ask for them (permittedRequest). */
  clientRoots: boolean;
  /** The bytes written so far end inside a line: a barrier now would be glued to it. */
  partialLine: boolean;
  /** Entries already held to the global checks (a message put back is not counted twice). */
  readonly checked: WeakSet<Received>;
  /** Without an adapter: the host commands performed through the trigger tools. */
  readonly triggers: TriggerLedger | undefined;
  /** Ids of requests the implementation answers on its own (`"wire": "answer"` commands). */
  readonly selfAnswered: ReadonlySet<string>;
  /** The answers to the runner's trigger calls, by call id. */
  readonly triggerAnswers: Map<string, unknown>;
}

function barrierMessage(state: CaseState): string | undefined {
  if (state.era !== "session" || !state.target.canWrite || state.partialLine) return undefined;
  state.barriers++;
  return JSON.stringify({ jsonrpc: "2.0", id: `${BARRIER}${state.barriers}`, method: "ping" }) + "\n";
}

function isBarrierAnswer(message: unknown): boolean {
  return isRecord(message) && typeof message.id === "string" && message.id.startsWith(BARRIER) && !Object.hasOwn(message, "method");
}

function allowed(message: unknown): boolean {
  return isRecord(message) && !Object.hasOwn(message, "id") && typeof message.method === "string" && UNSOLICITED.has(message.method);
}

/**
 * A request a server may send of its own accord once initialized (FORMAT.md J10): `ping`, and
 * `roots/list` to a client that declared `roots` (a server asks for the roots when it likes,
 * typically on `notifications/roots/list_changed`). Not answered; passed over like an unsolicited
 * notification when it is not the message expected.
 */
function permittedRequest(state: CaseState, message: unknown): boolean {
  if (!state.initialized || !isRecord(message) || !Object.hasOwn(message, "id") || typeof message.method !== "string") return false;
  return message.method === "ping" || (message.method === "roots/list" && state.clientRoots);
}

/** The next message that counts: barrier answers and allowed notifications are passed over; the global checks run on each. */
async function nextMessage(
  state: CaseState,
  options: ReplayOptions,
  useBarrier: boolean,
): Promise<{ entry?: Received; barrier: boolean; failure?: Failure }> {
  // Until the target has said anything, allow for a slow start (a loaded machine, a runtime that loads slowly).
  const deadline = Date.now() + (state.target.heardFrom ? options.timeoutMs : Math.max(options.timeoutMs, STARTUP_MS));
  let barrierSent = false;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return { barrier: false };
    const entry = await state.target.next(barrierSent || !useBarrier ? left : Math.min(left, options.graceMs));
    if (entry === undefined) {
      if (state.target.exited) return { barrier: false };
      if (barrierSent) continue;
      // No barrier possible (after EOF, mid-line, outside the session era): wait out the timeout instead.
      const barrier = barrierMessage(state);
      if (barrier !== undefined) state.target.write(barrier);
      barrierSent = true;
      continue;
    }
    if (entry.kind === "malformed")
      return { entry, barrier: false, failure: new Failure("M-01", "MUST", `a line that is not JSON: ${entry.line.slice(0, 200)}`) };
    if (isBarrierAnswer(entry.value)) {
      if (barrierSent) return { barrier: true };
      continue;
    }
    const failure = globalCheck(state, entry);
    if (failure !== undefined) return { entry, barrier: false, failure };
    if (isTriggerAnswer(entry.value)) continue;
    return { entry, barrier: false };
  }
}

function globalCheck(state: CaseState, entry: Received): Failure | undefined {
  if (state.checked.has(entry) || entry.kind !== "message") return undefined;
  state.checked.add(entry);
  if (isTriggerAnswer(entry.value) && isRecord(entry.value)) state.triggerAnswers.set(String(entry.value.id), entry.value);
  return state.ledger.check(entry.value);
}

/** The id an expected response names (through $oneOf alternatives that agree), or undefined. */
function expectedId(expected: unknown): { id: unknown } | undefined {
  if (!isRecord(expected)) return undefined;
  if (Array.isArray(expected.$oneOf)) {
    const ids = expected.$oneOf.map(expectedId);
    const first = ids[0];
    return first !== undefined && ids.every((i) => i !== undefined && idKey(i.id) === idKey(first.id)) ? first : undefined;
  }
  if (!Object.hasOwn(expected, "id") || Object.hasOwn(expected, "method")) return undefined;
  if (typeof expected.id === "string" && expected.id.startsWith("$")) return undefined;
  return { id: expected.id };
}

/** The expectation holds an answer to a request with a readable id (a batch reply, say): a barrier may overtake it. */
function answersRequest(expected: unknown): boolean {
  if (Array.isArray(expected)) return expected.some(answersRequest);
  if (!isRecord(expected)) return false;
  if (Array.isArray(expected.$unordered)) return expected.$unordered.some(answersRequest);
  if (Array.isArray(expected.$oneOf)) return expected.$oneOf.some(answersRequest);
  return expectedId(expected) !== undefined;
}

/** The error codes an expected message accepts, through $oneOf alternatives. */
function expectedCodes(expected: unknown): unknown[] {
  if (!isRecord(expected)) return [];
  if (Array.isArray(expected.$oneOf)) return expected.$oneOf.flatMap(expectedCodes);
  if (!isRecord(expected.error)) return [];
  const code = expected.error.code;
  return isRecord(code) && Array.isArray(code.$oneOf) ? code.$oneOf : [code];
}

/** JSON-RPC's error codes name their own rule: an answer with another code than -32602 for invalid params breaks JR-02. */
function codeRule(expected: unknown, actual: unknown): string | undefined {
  // In a batch reply: the entry answering the same id.
  const entries = Array.isArray(expected)
    ? expected
    : isRecord(expected) && Array.isArray(expected.$unordered)
      ? expected.$unordered
      : undefined;
  if (entries !== undefined) {
    if (!Array.isArray(actual)) return undefined;
    for (const entry of entries) {
      const id = expectedId(entry);
      const match = id === undefined ? undefined : actual.find((a) => isRecord(a) && idKey(a.id) === idKey(id.id));
      const rule = match === undefined ? undefined : codeRule(entry, match);
      if (rule !== undefined) return rule;
    }
    return undefined;
  }
  if (!isRecord(actual) || !isRecord(actual.error)) return undefined;
  const codes = expectedCodes(expected);
  return codes.includes(-32602) && !codes.includes(actual.error.code) ? "JR-02" : undefined;
}

async function expectOut(state: CaseState, step: Step, options: ReplayOptions): Promise<Failure | undefined> {
  const held: Received[] = [];
  try {
    return await matchOut(state, step, options, held);
  } finally {
    // Messages passed over while looking for a response by id wait for the next steps, in order.
    for (let i = held.length - 1; i >= 0; i--) state.target.unshift(held[i] as Received);
  }
}

async function matchOut(state: CaseState, step: Step, options: ReplayOptions, held: Received[]): Promise<Failure | undefined> {
  const rule = typeof step.rule === "string" ? step.rule : "M-01";
  const level = (typeof step.level === "string" ? step.level : "MUST") as RuleLevel;
  const exact = substitute(step.out, state.version);
  const wire = "wire" in step ? substitute(step.wire, state.version) : exact;
  // Responses to different requests may come in any order: a response is looked for by its id.
  const byId = expectedId(wire);
  const batch = Array.isArray(wire) || (isRecord(wire) && Array.isArray(wire.$unordered));
  const informative = level === "policy" || level === "MAY";
  for (;;) {
    // A barrier proves nothing about a request's own answer (requests may be served concurrently): those get the full timeout.
    const got = await nextMessage(state, options, byId === undefined && !answersRequest(wire));
    if (got.failure !== undefined) return got.failure;
    if (got.entry === undefined || got.entry.kind !== "message") {
      const problem = `expected ${JSON.stringify(wire)}, got nothing`;
      if (informative) {
        state.deviations.push(`${rule} (${level}): ${problem}`);
        return undefined;
      }
      return new Failure(rule, level, problem);
    }
    const actual = got.entry.value;
    if (
      byId !== undefined &&
      !(isRecord(actual) && Object.hasOwn(actual, "id") && idKey(actual.id) === idKey(byId.id) && !Object.hasOwn(actual, "method"))
    ) {
      held.push(got.entry);
      continue;
    }
    if (batch && !Array.isArray(actual) && allowed(actual)) continue;
    // The implementation's own answer to a request whose host answers later in the fixture: it waits for its step.
    if (byId === undefined && !batch && isRecord(actual) && !Object.hasOwn(actual, "method") && state.selfAnswered.has(idKey(actual.id))) {
      held.push(got.entry);
      continue;
    }
    const trial = new Map(state.bindings);
    const problem = compare(wire, actual, { bindings: trial });
    if (problem === undefined) {
      for (const [k, v] of trial) state.bindings.set(k, v);
      // The wire form forgave the id of a reply to an unreadable message: our M-10 policy, noted, never failed.
      if (
        isRecord(exact) &&
        (exact.id === null || exact.id === "$absent") &&
        compare(exact, actual, { bindings: new Map(trial) }) !== undefined
      ) {
        state.deviations.push(
          `M-10 (policy): expected id ${JSON.stringify(exact.id)}, got ${isRecord(actual) && Object.hasOwn(actual, "id") ? JSON.stringify(actual.id) : "no id"}`,
        );
      }
      return undefined;
    }
    // An unsolicited message the spec permits is passed over when it is not the one expected.
    if ((allowed(actual) && state.initialized) || permittedRequest(state, actual)) continue;
    if (informative) {
      state.deviations.push(`${rule} (${level}): ${problem}`);
      // The answer to the same request, only not the one we would give: consumed. Anything else waits for the next step.
      if (byId === undefined) state.target.unshift(got.entry);
      return undefined;
    }
    return new Failure(codeRule(wire, actual) ?? rule, level, `${problem} (message ${JSON.stringify(actual).slice(0, 300)})`);
  }
}

/** A response to a request the fixture leaves with the host (the step's `allow`): the implementation may answer it any time. */
function answersOpen(step: Step | undefined, message: unknown): boolean {
  if (step === undefined || !Array.isArray(step.allow)) return false;
  // A batch reply holding such an answer comes when the implementation has answered it: it is that answer.
  if (Array.isArray(message)) return message.some((entry) => answersOpen(step, entry));
  if (!isRecord(message) || Object.hasOwn(message, "method") || !Object.hasOwn(message, "id")) return false;
  const allow = step.allow as unknown[];
  return allow.some((id) => idKey(id) === idKey(message.id));
}

/** An error answer other than invalid params or resource not found (which refuse a name the implementation lacks). */
function refusedOtherwise(message: unknown): string | undefined {
  if (Array.isArray(message)) return message.map(refusedOtherwise).find((r) => r !== undefined);
  if (!isRecord(message) || !isRecord(message.error)) return undefined;
  return message.error.code === -32602 || message.error.code === -32002 ? undefined : JSON.stringify(message).slice(0, 300);
}

async function expectQuiet(state: CaseState, step: Step, options: ReplayOptions): Promise<Failure | undefined> {
  const held: Received[] = [];
  try {
    return await quietFor(state, step, options, held);
  } finally {
    for (let i = held.length - 1; i >= 0; i--) state.target.unshift(held[i] as Received);
  }
}

async function quietFor(
  state: CaseState,
  step: Step,
  options: ReplayOptions,
  held: Received[],
  useBarrier = true,
): Promise<Failure | undefined> {
  const rule = typeof step.rule === "string" ? step.rule : "M-08";
  const level = (typeof step.level === "string" ? step.level : "MUST") as RuleLevel;
  const barrier = useBarrier ? barrierMessage(state) : undefined;
  if (barrier !== undefined) state.target.write(barrier);
  const started = Date.now();
  for (;;) {
    const entry = await state.target.next(
      barrier !== undefined
        ? Math.max(1, options.timeoutMs - (Date.now() - started))
        : Math.max(1, options.graceMs - (Date.now() - started)),
    );
    if (entry === undefined) return undefined;
    if (entry.kind === "malformed") return new Failure("M-01", "MUST", `a line that is not JSON: ${entry.line.slice(0, 200)}`);
    if (isBarrierAnswer(entry.value)) return undefined;
    const failure = globalCheck(state, entry);
    if (failure !== undefined) return failure;
    if (isTriggerAnswer(entry.value)) continue;
    if ((allowed(entry.value) && state.initialized) || permittedRequest(state, entry.value)) continue;
    if (answersOpen(step, entry.value)) {
      // The implementation answered a request the fixture leaves with its host: fine, unless it refused
      // it with something else than a refusal of the name (the request itself was fine).
      // At policy or MAY level such a refusal is informative: a deviation, never silently accepted.
      const refusal = refusedOtherwise(entry.value);
      if (refusal !== undefined && level !== "policy" && level !== "MAY")
        return new Failure(rule, level, `expected the request served, got ${refusal}`);
      if (refusal !== undefined) state.deviations.push(`${rule} (${level}): expected a result, -32602 or -32002, got ${refusal}`);
      held.push(entry);
      continue;
    }
    const problem = `expected nothing, got ${JSON.stringify(entry.value).slice(0, 300)}`;
    if (level === "policy" || level === "MAY") {
      state.deviations.push(`${rule} (${level}): ${problem}`);
      continue;
    }
    return new Failure(rule, level, problem);
  }
}

/**
 * A host command through its trigger tool. A request's tool answers only once the client has
 * answered it, so the runner goes on at once; a notification's, a cancellation's and a refused
 * command's answer once the server has sent (or refused) it: the runner waits for that answer,
 * and what comes before it waits for the next steps. A refused command's message must not
 * appear before the answer.
 */
async function runTrigger(
  state: CaseState,
  header: FixtureHeader,
  step: Step,
  trigger: Record<string, unknown>,
  options: ReplayOptions,
): Promise<Failure | undefined> {
  const rule = typeof step.rule === "string" ? step.rule : (header.rules[0] ?? "M-01");
  const level = (typeof step.level === "string" ? step.level : (header.levels?.[rule] ?? "MUST")) as RuleLevel;
  const call = (state.triggers as TriggerLedger).callFor(trigger);
  if (typeof call === "string") return new Failure(rule, "MUST", call);
  state.ledger.noteSent(call.message);
  state.target.write(JSON.stringify(call.message) + "\n");
  const refused = "throws" in step;
  if (trigger.tool === "conform_request" && !refused) return undefined;
  const isForbidden = refused ? forbidden(trigger) : () => false;
  const held: Received[] = [];
  try {
    // A trigger may be the case's first message (a 2026-07-28 fixture has no handshake): allow for a slow start then.
    const deadline = Date.now() + (state.target.heardFrom ? options.timeoutMs : Math.max(options.timeoutMs, STARTUP_MS));
    for (;;) {
      const entry = await state.target.next(Math.max(1, deadline - Date.now()));
      if (entry === undefined)
        return new Failure(rule, level, `the trigger tool ${String(trigger.tool)} did not answer the runner's tools/call ${call.id}`);
      if (entry.kind === "malformed") return new Failure("M-01", "MUST", `a line that is not JSON: ${entry.line.slice(0, 200)}`);
      // A late answer to a barrier of an earlier step proves nothing here.
      if (isBarrierAnswer(entry.value)) continue;
      const failure = globalCheck(state, entry);
      if (failure !== undefined) return failure;
      if (isRecord(entry.value) && entry.value.id === call.id && !Object.hasOwn(entry.value, "method")) return undefined;
      if (isForbidden(entry.value)) {
        const problem = `the command ${JSON.stringify(step.call).slice(0, 200)} is refused locally (${rule}); it was sent: ${JSON.stringify(entry.value).slice(0, 300)}`;
        if (level !== "policy" && level !== "MAY") return new Failure(rule, level, problem);
        state.deviations.push(`${rule} (${level}): ${problem}`);
        continue;
      }
      held.push(entry);
    }
  } finally {
    for (let i = held.length - 1; i >= 0; i--) state.target.unshift(held[i] as Received);
  }
}

let seq = 0;

async function hostCommand(
  state: CaseState,
  request: Record<string, unknown>,
  options: ReplayOptions,
): Promise<Record<string, unknown> | Failure> {
  // The first command (configure) may meet a slow start.
  const ms = request.op === "configure" ? Math.max(options.timeoutMs, STARTUP_MS) : options.timeoutMs;
  const answer = await state.target.command({ ...request, seq: ++seq, op: String(request.op) }, ms);
  if (answer === undefined) return new Failure("adapter", "MUST", `the adapter did not answer ${JSON.stringify(request).slice(0, 200)}`);
  return answer;
}

async function runSteps(
  state: CaseState,
  header: FixtureHeader,
  steps: readonly Step[],
  options: ReplayOptions,
): Promise<Failure | Unjudgeable | undefined> {
  let lastQuiet: Step | undefined;
  for (const raw of steps) {
    const step = substitute(raw, state.version) as Step;
    if ("in" in step) {
      const value = state.triggers !== undefined ? state.triggers.inbound(step.in, state.bindings) : step.in;
      state.ledger.noteSent(value);
      state.partialLine = false;
      if (isRecord(value) && value.method === "notifications/initialized") state.initialized = true;
      if (isRecord(value) && value.method === "initialize" && isRecord(value.params) && isRecord(value.params.capabilities))
        state.clientRoots = isRecord(value.params.capabilities.roots);
      // A session's capabilities are its initialize result's: a server may declare others under 2026-07-28 (J2).
      if (isRecord(value) && value.method === "initialize") state.bindings.delete("capabilities");
      state.target.write(JSON.stringify(value) + "\n");
      lastQuiet = undefined;
    } else if ("in_bytes" in step || "in_hex" in step || "eof" in step) {
      state.partialLine = transportStep(step, state.target, state.ledger);
    } else if ("out" in step) {
      const triggers = state.triggers;
      const expected =
        triggers === undefined
          ? step
          : { ...step, out: triggers.expected(step.out), ...("wire" in step ? { wire: triggers.expected(step.wire) } : {}) };
      const failure = await expectOut(state, expected, options);
      if (failure !== undefined) {
        // The request a trigger asked for never came because the implementation refused to send it: no verdict.
        const refusal = triggers?.refusal(step.out, state.triggerAnswers);
        return refusal !== undefined
          ? new Unjudgeable(`the implementation refused to send the request a trigger asked for: ${refusal}`)
          : failure;
      }
      lastQuiet = undefined;
    } else if ("quiet" in step) {
      const failure = await expectQuiet(state, step, options);
      if (failure !== undefined) return failure;
      lastQuiet = step;
    } else if ("call" in step) {
      // An answer the implementation gives on its own needs no command, unless its adapter performs it.
      if (step.wire === "answer" && !options.adapter) continue;
      if (state.triggers !== undefined && isRecord(step.trigger)) {
        const failure = await runTrigger(state, header, step, step.trigger, options);
        if (failure !== undefined) return failure;
        continue;
      }
      const answer = await hostCommand(state, { op: "call", call: step.call }, options);
      if (answer instanceof Failure) return answer;
      if ("throws" in step) {
        if (answer.ok !== false)
          return new Failure(
            header.rules[0] ?? "M-01",
            "MUST",
            `host command ${JSON.stringify(step.call)} should be refused locally; it was performed`,
          );
        const problem = compare(step.throws, answer.error, { subset: true });
        if (problem !== undefined) return new Failure(header.rules[0] ?? "M-01", "MUST", `host command refused differently: ${problem}`);
      } else if (answer.ok !== true)
        return new Failure(
          header.rules[0] ?? "M-01",
          "MUST",
          `host command ${JSON.stringify(step.call)} failed: ${JSON.stringify(answer.error)}`,
        );
      else if ("returns" in step) {
        const problem = compare(step.returns, answer.returns, { bindings: state.bindings });
        if (problem !== undefined) return new Failure(header.rules[0] ?? "M-01", "MUST", `host command returned differently: ${problem}`);
      }
    } else if ("time" in step) {
      const answer = await hostCommand(state, { op: "time", now: step.time }, options);
      if (answer instanceof Failure) return answer;
    }
    // event, phase, deadline, note: engine observations, not on the wire.
  }
  // What arrives after the last step: any answer breaks JR-01/ID-04; anything else breaks the final quiet, if the fixture ends quiet.
  // A request the fixture keeps running (the profile's `slow` tool, cancelled) must not be answered late:
  // wait past its 300 ms before ending input (an implementation may abort work at EOF).
  if ((header.requires?.tools ?? []).includes("slow") && lastQuiet !== undefined) {
    const failure = await quietFor(state, { ...lastQuiet }, { ...options, graceMs: LINGER_MS }, [], false);
    if (failure !== undefined) return failure;
  }
  await state.target.stop(1500);
  for (;;) {
    const entry = await state.target.next(0);
    if (entry === undefined) return undefined;
    if (entry.kind !== "message" || isBarrierAnswer(entry.value)) continue;
    const failure = globalCheck(state, entry);
    if (failure !== undefined) return failure;
    if (isTriggerAnswer(entry.value)) continue;
    if (lastQuiet !== undefined && !allowed(entry.value) && !permittedRequest(state, entry.value) && !answersOpen(lastQuiet, entry.value)) {
      return new Failure(
        String(lastQuiet.rule ?? "M-08"),
        (lastQuiet.level ?? "MUST") as RuleLevel,
        `expected nothing more, got ${JSON.stringify(entry.value).slice(0, 300)}`,
      );
    }
  }
}

/** Runs one case; the caller has decided it applies. */
export async function replayCase(
  header: FixtureHeader,
  steps: readonly Step[],
  version: string,
  options: ReplayOptions,
): Promise<CaseResult> {
  const target = new StdioTarget({
    command: options.command,
    args: options.args,
    adapter: options.adapter,
    ...(options.stderr !== undefined ? { stderr: options.stderr } : {}),
    ...(options.env !== undefined ? { env: options.env } : {}),
  });
  const era = (MODERN_VERSIONS as readonly string[]).includes(version) ? "modern" : "session";
  const selfAnswered = new Set(
    options.adapter
      ? []
      : steps.filter((s) => s.wire === "answer" && isRecord(s.call)).map((s) => idKey((s.call as Record<string, unknown>).id)),
  );
  const state: CaseState = {
    target,
    version,
    era: header.requires?.era === "dual" ? "modern" : era,
    bindings: new Map(),
    ledger: new Ledger(),
    deviations: [],
    barriers: 0,
    initialized: false,
    clientRoots: false,
    partialLine: false,
    checked: new WeakSet(),
    triggers: options.adapter ? undefined : new TriggerLedger(),
    selfAnswered,
    triggerAnswers: new Map(),
  };
  const base = { fixture: header.fixture, version, transport: "stdio" as const, rules: header.rules };
  const level = strongest(header);
  try {
    if (options.adapter) {
      const configured = await hostCommand(
        state,
        {
          op: "configure",
          role: header.role,
          version,
          strict: (header.strict ?? [false]).includes(false) ? false : true,
          config: substitute(header.config ?? {}, version),
        },
        options,
      );
      if (configured instanceof Failure || configured.ok !== true)
        return {
          ...base,
          level,
          outcome: "not-applicable",
          reason: `the adapter refused the configuration: ${JSON.stringify(configured instanceof Failure ? configured.reason : configured.error)}`,
        };
    }
    const failure = await runSteps(state, header, steps, options);
    if (failure instanceof Unjudgeable) return { ...base, level, outcome: "not-applicable", reason: failure.reason };
    if (failure === undefined)
      return { ...base, level, outcome: "passed", ...(state.deviations.length > 0 ? { deviations: state.deviations } : {}) };
    return {
      ...base,
      level: failure.level,
      outcome: "failed",
      failedRule: failure.rule,
      reason: failure.reason,
      ...(state.deviations.length > 0 ? { deviations: state.deviations } : {}),
    };
  } finally {
    await target.stop(200);
  }
}

function strongest(header: FixtureHeader): RuleLevel {
  const levels = Object.values(header.levels ?? {});
  for (const l of ["MUST", "SHOULD", "MAY"] as const) if (levels.includes(l)) return l;
  return levels.length > 0 ? "policy" : "MUST";
}
