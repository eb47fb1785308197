// Gating, exhaustively: version × role × phase × capability sets × strictness × method (every
// method of every session-era version, plus unknown ones) × kind × direction, against an
// independent transcription of RULES.md MT-01, MT-02, SCH-01, SCH-02, SCH-03 and the phase rules (ENG-03) / RULES.md
// L-10…L-13 written below (never gate() or METHOD_ROWS). Also: param gates and capabilityMask.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Cap,
  Engine,
  LocalProtocolError,
  SESSION_VERSIONS,
  capabilityMask,
  type EngineEvent,
  type JsonObject,
  type JsonRpcMessage,
  type SessionVersion,
} from "../../lib/internal.js";

// ── The spec, transcribed ───────────────────────────────────────────────────────────
// from: who may send it (MT-01, MT-02, SCH-01, SCH-02, SCH-03 Dir column). holder: whose declaration gates it ("server"
// / "client" for the S / C of the Gate column; for ⇄ rows the receiver, or for the
// status notification the sender, which is the side that declared `tasks` and created
// the task). since: first version with the method (MT-01). gate may depend on the version
// (completion/complete is ungated in 2024-11-05, MT-01, MT-02, SCH-01, SCH-02). engine: sent by the engine
// itself, never by the host (initialize handshake, cancellation, progress).

type V = SessionVersion;
type Role = "client" | "server";
type Kind = "request" | "notification";
type Holder = "server" | "client" | "receiver" | "sender";

interface SpecRow {
  readonly method: string;
  readonly kind: Kind;
  readonly from: Role | "both";
  readonly since: V;
  readonly gate: ((v: V) => string | undefined) | string | undefined;
  readonly holder: Holder | undefined;
  readonly engine: boolean;
}

function r(
  method: string,
  kind: Kind,
  from: Role | "both",
  gate?: SpecRow["gate"],
  holder?: Holder,
  since: V = "2024-11-05",
  engine = false,
): SpecRow {
  return { method, kind, from, since, gate, holder, engine };
}

const SPEC: readonly SpecRow[] = [
  // MT-01, MT-02, SCH-01, SCH-02 requests
  r("initialize", "request", "client", undefined, undefined, "2024-11-05", true),
  r("ping", "request", "both"),
  r("resources/list", "request", "client", "resources", "server"),
  r("resources/templates/list", "request", "client", "resources", "server"),
  r("resources/read", "request", "client", "resources", "server"),
  r("resources/subscribe", "request", "client", "resources.subscribe", "server"),
  r("resources/unsubscribe", "request", "client", "resources.subscribe", "server"),
  r("prompts/list", "request", "client", "prompts", "server"),
  r("prompts/get", "request", "client", "prompts", "server"),
  r("tools/list", "request", "client", "tools", "server"),
  r("tools/call", "request", "client", "tools", "server"),
  r("logging/setLevel", "request", "client", "logging", "server"),
  r("completion/complete", "request", "client", (v) => (v === "2024-11-05" ? undefined : "completions"), "server"),
  r("sampling/createMessage", "request", "server", "sampling", "client"),
  r("roots/list", "request", "server", "roots", "client"),
  r("elicitation/create", "request", "server", "elicitation", "client", "2025-06-18"),
  r("tasks/get", "request", "both", "tasks", "receiver", "2025-11-25"),
  r("tasks/result", "request", "both", "tasks", "receiver", "2025-11-25"),
  r("tasks/list", "request", "both", "tasks.list", "receiver", "2025-11-25"),
  r("tasks/cancel", "request", "both", "tasks.cancel", "receiver", "2025-11-25"),
  // MT-02, SCH-03 notifications
  r("notifications/initialized", "notification", "client", undefined, undefined, "2024-11-05", true),
  r("notifications/cancelled", "notification", "both", undefined, undefined, "2024-11-05", true),
  r("notifications/progress", "notification", "both", undefined, undefined, "2024-11-05", true),
  r("notifications/message", "notification", "server", "logging", "server"),
  r("notifications/resources/list_changed", "notification", "server", "resources.listChanged", "server"),
  r("notifications/resources/updated", "notification", "server", "resources.subscribe", "server"),
  r("notifications/prompts/list_changed", "notification", "server", "prompts.listChanged", "server"),
  r("notifications/tools/list_changed", "notification", "server", "tools.listChanged", "server"),
  r("notifications/roots/list_changed", "notification", "client", "roots.listChanged", "client"),
  r("notifications/elicitation/complete", "notification", "server", "elicitation.url", "client", "2025-11-25"),
  r("notifications/tasks/status", "notification", "both", "tasks", "sender", "2025-11-25"),
];

/** Names no session-era version has: made up ones and 2026-07-28 additions (MT-01). */
const UNKNOWN_METHODS = [
  "vendor/unknown-method",
  "notifications/vendor/unknown",
  "server/discover",
  "subscriptions/listen",
  "notifications/subscriptions/acknowledged",
];

const ALL_METHODS: readonly string[] = [...SPEC.map((s) => s.method), ...UNKNOWN_METHODS];

const VERSION_ORDER: readonly V[] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

function specRow(method: string, version: V): SpecRow | undefined {
  return SPEC.find((s) => s.method === method && VERSION_ORDER.indexOf(s.since) <= VERSION_ORDER.indexOf(version));
}

// Capability objects (C-10): everything declared, or nothing.
const CLIENT_ALL: JsonObject = {
  experimental: {},
  roots: { listChanged: true },
  sampling: { context: {}, tools: {} },
  elicitation: { form: {}, url: {} },
  tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
};
const SERVER_ALL: JsonObject = {
  experimental: {},
  logging: {},
  completions: {},
  prompts: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  tools: { listChanged: true },
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
};

/** C-10 presence rules: a key counts when present (even `{}`); listChanged/subscribe only when true; `elicitation: {}` means form. */
function declared(caps: JsonObject, path: string): boolean {
  const keys = path.split(".");
  let node: unknown = caps;
  for (const key of keys) {
    if (node === null || typeof node !== "object" || !Object.prototype.hasOwnProperty.call(node, key)) {
      if (path === "elicitation.form" && key === "form") {
        const e = node as JsonObject;
        return e.url === undefined;
      }
      return false;
    }
    node = (node as JsonObject)[key];
  }
  const last = keys[keys.length - 1];
  if (last === "listChanged" || last === "subscribe") return node === true;
  return node !== undefined && node !== null && node !== false;
}

type PhaseName = "awaiting-init" | "initializing" | "operating";
const PHASES: readonly PhaseName[] = ["awaiting-init", "initializing", "operating"];

/**
 * Outbound (our host sends), the strict reading of the SHOULD rules (the engine never lets
 * its host break one). L-10…L-13: ping at any time (L-13); a client sends nothing else before it
 * has the initialize response (L-10: client operating); a server sends no request before
 * `initialized` (L-11: operating), logging from the moment it answered initialize (L-11,
 * "lets the server send logging"; nothing precedes initialize, L-01), other notifications
 * held until initialized (L-12).
 */
function sendable(sender: Role, phase: PhaseName, row: SpecRow): boolean {
  if (row.method === "ping") return true;
  if (sender === "client") return phase === "operating";
  if (row.method === "notifications/message") return phase !== "awaiting-init";
  return phase === "operating";
}

/**
 * Inbound (the receiver checks, in its own phase). Cancellation and progress are accepted
 * at any time (they refer to requests in flight, X-01…X-09, P-01…P-08), ping too (ENG-03); initialize
 * only first, `initialized` only right after our initialize result. A server that has sent
 * its initialize result but not yet received `initialized` accepts client messages (ENG-03;
 * a strict option rejects them). A client has nothing from the server to accept before
 * the initialize result except logging (L-11; the server may log as soon as it answered).
 */
function acceptable(receiver: Role, phase: PhaseName, row: SpecRow, strict: boolean): boolean {
  const m = row.method;
  if (m === "ping" || m === "notifications/cancelled" || m === "notifications/progress") return true;
  if (m === "initialize") return phase === "awaiting-init";
  if (m === "notifications/initialized") return phase === "initializing";
  if (phase === "operating") return true;
  if (phase === "awaiting-init") return false;
  if (receiver === "server") return !strict;
  return m === "notifications/message";
}

type Family = "unknown" | "kind" | "direction" | "engine" | "phase" | "capability";
type Expectation = { allowed: true } | { allowed: false; family: Family };

interface Case {
  readonly version: V;
  readonly role: Role;
  readonly phase: PhaseName;
  readonly own: "all" | "none";
  readonly peer: "all" | "none";
  readonly strict: boolean;
  readonly method: string;
  readonly kind: Kind;
  readonly direction: "outbound" | "inbound";
}

/** Peer capabilities are known once the handshake exchanged them: server from initialize on, client from the result on. */
function peerKnown(role: Role, phase: PhaseName): boolean {
  return role === "server" ? phase !== "awaiting-init" : phase === "operating";
}

/** Check order of ENG-04: unknown method (a wrong-direction method is unknown to that receiver) → wrong phase → capability. */
function expect(c: Case): Expectation {
  const row = specRow(c.method, c.version);
  if (row === undefined) return { allowed: false, family: "unknown" };
  if (row.kind !== c.kind) return { allowed: false, family: "kind" };
  const sender: Role = c.direction === "outbound" ? c.role : c.role === "client" ? "server" : "client";
  const receiver: Role = sender === "client" ? "server" : "client";
  if (row.from !== "both" && row.from !== sender) return { allowed: false, family: "direction" };
  if (c.direction === "outbound" && row.engine) return { allowed: false, family: "engine" };
  const phaseOk = c.direction === "outbound" ? sendable(sender, c.phase, row) : acceptable(receiver, c.phase, row, c.strict);
  if (!phaseOk) return { allowed: false, family: "phase" };
  const path = typeof row.gate === "function" ? row.gate(c.version) : row.gate;
  if (path !== undefined && row.holder !== undefined) {
    const holder: Role = row.holder === "receiver" ? receiver : row.holder === "sender" ? sender : row.holder;
    const mine = holder === c.role;
    if (mine || peerKnown(c.role, c.phase)) {
      const set = mine ? c.own : c.peer;
      const caps = set === "none" ? {} : holder === "client" ? CLIENT_ALL : SERVER_ALL;
      if (!declared(caps, path)) return { allowed: false, family: "capability" };
    }
  }
  return { allowed: true };
}

// ── Driving the real engine ─────────────────────────────────────────────────────────

function drain(engine: Engine): { out: JsonRpcMessage[]; events: EngineEvent[] } {
  const out: JsonRpcMessage[] = [];
  for (let o = engine.pollOutbound(); o !== undefined; o = engine.pollOutbound()) {
    if (Array.isArray(o.message)) out.push(...(o.message as JsonRpcMessage[]));
    else out.push(o.message as JsonRpcMessage);
  }
  const events: EngineEvent[] = [];
  engine.takeEvents(events);
  return { out, events };
}

function capsFor(role: Role, set: "all" | "none"): JsonObject {
  return set === "none" ? {} : role === "client" ? CLIENT_ALL : SERVER_ALL;
}

function engineIn(c: Pick<Case, "version" | "role" | "phase" | "own" | "peer" | "strict">): Engine {
  const peerRole: Role = c.role === "client" ? "server" : "client";
  const e = new Engine({
    role: c.role,
    info: { name: c.role, version: "1" },
    capabilities: capsFor(c.role, c.own),
    versions: [c.version],
    strict: c.strict,
  });
  if (c.phase === "awaiting-init") return e;
  if (c.role === "server") {
    e.receiveMessage({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion: c.version, capabilities: capsFor(peerRole, c.peer), clientInfo: { name: "peer", version: "1" } },
    });
    drain(e);
    if (c.phase === "operating") {
      e.receiveMessage({ jsonrpc: "2.0", method: "notifications/initialized" });
      drain(e);
    }
  } else {
    const id = e.initialize();
    drain(e);
    if (c.phase === "operating") {
      e.receiveMessage({
        jsonrpc: "2.0",
        id,
        result: { protocolVersion: c.version, capabilities: capsFor(peerRole, c.peer), serverInfo: { name: "peer", version: "1" } },
      });
      drain(e);
    }
  }
  return e;
}

const FAMILY_RULES: Readonly<Record<Family, RegExp>> = {
  unknown: /^MT-01$/,
  kind: /^M-02$/,
  direction: /^MT-02$/,
  engine: /^ENG-02$/,
  phase: /^L-1[0-2]$/,
  capability: /^C-01$/,
};

const INBOUND_ID = 4242;
const URI = "file:///project/a.txt";
const TASK = { taskId: "t1", status: "working", createdAt: "2025-01-01T00:00:00Z", lastUpdatedAt: "2025-01-01T00:00:00Z", ttl: null };
const URL_ELICITATION = { mode: "url", message: "open", elicitationId: "e1", url: "https://example.com/e1" };

/** Minimal valid params (RULES.md MT-01, MT-02, SCH-01, SCH-02, SCH-03 required members), so only gating can refuse. */
function paramsFor(c: Pick<Case, "method" | "version" | "peer">): JsonObject | undefined {
  switch (c.method) {
    case "initialize":
      return { protocolVersion: c.version, capabilities: capsFor("client", c.peer), clientInfo: { name: "peer", version: "1" } };
    case "resources/read":
    case "resources/subscribe":
    case "resources/unsubscribe":
    case "notifications/resources/updated":
      return { uri: URI };
    case "prompts/get":
      return { name: "p" };
    case "tools/call":
      return { name: "t", arguments: {} };
    case "logging/setLevel":
      return { level: "info" };
    case "completion/complete":
      return { ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "" } };
    case "sampling/createMessage":
      return { messages: [], maxTokens: 10 };
    case "elicitation/create":
      return { message: "name?", requestedSchema: { type: "object", properties: {} } };
    case "tasks/get":
    case "tasks/result":
    case "tasks/cancel":
      return { taskId: "t1" };
    case "notifications/cancelled":
      return { requestId: 999 };
    case "notifications/progress":
      return { progressToken: "nobody", progress: 1 };
    case "notifications/message":
      return { level: "info", data: "hello" };
    case "notifications/elicitation/complete":
      return { elicitationId: "e1" };
    case "notifications/tasks/status":
      return { ...TASK };
    case "ping":
    case "notifications/initialized":
      return undefined;
    default:
      return {};
  }
}

/**
 * State some notifications need beyond gating (features: `resources/updated` only for a
 * subscribed URI, `elicitation/complete` only for a URL elicitation in flight). Set up
 * with ordinary traffic; when gating refuses the set-up, the message itself is refused
 * by the same gate anyway. Everything it produces is drained.
 */
function prepare(e: Engine, c: Case): void {
  const outbound = c.direction === "outbound";
  try {
    if (c.method === "notifications/resources/updated") {
      if (outbound && c.role === "server") {
        e.receiveMessage({ jsonrpc: "2.0", id: "sub", method: "resources/subscribe", params: { uri: URI } });
        if (drain(e).events.some((x) => x.kind === "request")) e.respond("sub", {});
      } else if (!outbound && c.role === "client") {
        const id = e.request("resources/subscribe", { uri: URI });
        e.receiveMessage({ jsonrpc: "2.0", id, result: {} });
      }
    } else if (c.method === "notifications/elicitation/complete") {
      if (outbound && c.role === "server") e.request("elicitation/create", URL_ELICITATION);
      else if (!outbound && c.role === "client")
        e.receiveMessage({ jsonrpc: "2.0", id: "el", method: "elicitation/create", params: URL_ELICITATION });
    }
  } catch {
    // refused by a gate: the case's own message meets the same gate
  }
  drain(e);
}

/** Runs one case; returns a description of what went wrong, or undefined. */
function runCase(c: Case, want: Expectation): string | undefined {
  let e: Engine;
  try {
    e = engineIn(c);
  } catch (err) {
    return `setup threw ${String(err)}`;
  }
  if (e.phase !== c.phase) return `setup reached phase ${e.phase}`;
  prepare(e, c);
  const params = paramsFor(c);
  if (c.direction === "outbound") {
    let thrown: unknown;
    let returned: unknown;
    try {
      returned = c.kind === "request" ? e.request(c.method, params) : e.notify(c.method, params);
    } catch (err) {
      thrown = err;
    }
    const { out, events } = drain(e);
    if (events.length !== 0) return `outbound produced events ${events.map((x) => x.kind).join(",")}`;
    if (want.allowed) {
      if (thrown !== undefined) return `expected allowed, threw ${String(thrown)}`;
      if (out.length !== 1) return `expected one queued message, got ${out.length}`;
      const m = out[0] as unknown as JsonObject;
      if (m.method !== c.method) return `queued ${JSON.stringify(m)}`;
      if (c.kind === "request" && (typeof returned !== "number" || m.id !== returned))
        return `request id ${String(returned)} vs queued ${JSON.stringify(m.id)}`;
      if (c.kind === "notification" && "id" in m) return "notification queued with an id";
      if (c.kind === "notification" && returned !== true) return `notify returned ${String(returned)}`;
      if (JSON.stringify(m.params) !== JSON.stringify(params)) return `params changed: ${JSON.stringify(m.params)}`;
      return undefined;
    }
    if (!(thrown instanceof LocalProtocolError))
      return `expected LocalProtocolError (${want.family}), got ${thrown === undefined ? "no throw" : String(thrown)}`;
    if (!FAMILY_RULES[want.family].test(thrown.rule)) return `expected rule family ${want.family}, got rule ${thrown.rule}`;
    if (out.length !== 0) return `refused but queued ${out.length} message(s)`;
    return undefined;
  }
  // inbound
  const msg: JsonObject =
    c.kind === "request" ? { jsonrpc: "2.0", id: INBOUND_ID, method: c.method } : { jsonrpc: "2.0", method: c.method };
  if (params !== undefined) msg.params = params;
  try {
    e.receiveMessage(msg);
  } catch (err) {
    return `receiveMessage threw ${String(err)}`;
  }
  const { out, events } = drain(e);
  const kinds = events.map((x) => x.kind).join(",");
  if (c.kind === "notification") {
    if (out.length !== 0) return `notification answered: ${JSON.stringify(out)}`;
    if (events.some((x) => x.kind === "request")) return "notification surfaced as a request";
    const surfaced = events.filter((x) => x.kind === "notification");
    if (want.allowed) {
      if (c.method === "notifications/initialized")
        return e.phase === "operating" && events.some((x) => x.kind === "ready")
          ? undefined
          : `initialized not taken: phase ${e.phase}, events ${kinds}`;
      if (c.method === "notifications/cancelled" || c.method === "notifications/progress") {
        return surfaced.length === 0 && !events.some((x) => x.kind === "violation") ? undefined : `engine notification surfaced: ${kinds}`;
      }
      if (events.length !== 1 || surfaced.length !== 1 || (surfaced[0] as { method: string }).method !== c.method)
        return `expected one notification event, got ${kinds}`;
      return undefined;
    }
    if (surfaced.length !== 0) return `refused notification surfaced (${kinds})`;
    if (events.length !== 1) return `expected one diagnostic/violation event, got ${kinds || "none"}`;
    const ev = events[0] as EngineEvent;
    if (want.family === "unknown" && ev.kind !== "diagnostic") return `unknown notification gave ${ev.kind}`;
    if (ev.kind !== "diagnostic" && !(ev.kind === "violation" && ev.code === undefined)) return `refused notification gave ${ev.kind}`;
    return undefined;
  }
  // inbound request
  if (want.allowed) {
    if (c.method === "ping" || c.method === "initialize") {
      if (out.length !== 1) return `expected one answer, got ${out.length}`;
      const m = out[0] as unknown as JsonObject;
      if (m.id !== INBOUND_ID || !("result" in m)) return `expected a result, got ${JSON.stringify(m)}`;
      if (c.method === "ping" && JSON.stringify(m.result) !== "{}") return `ping result ${JSON.stringify(m.result)}`;
      if (c.method === "initialize" && (m.result as JsonObject).protocolVersion !== c.version)
        return `initialize result ${JSON.stringify(m.result)}`;
      if (events.some((x) => x.kind === "request" || x.kind === "violation")) return `engine-answered request also gave ${kinds}`;
      return undefined;
    }
    if (out.length !== 0) return `allowed request answered by the engine: ${JSON.stringify(out)}`;
    const ev = events[0];
    if (events.length !== 1 || ev === undefined || ev.kind !== "request" || ev.id !== INBOUND_ID || ev.method !== c.method)
      return `expected one request event, got ${kinds || "none"}`;
    return undefined;
  }
  const codes: readonly number[] = want.family === "phase" ? [-32600] : want.family === "kind" ? [-32600, -32601] : [-32601];
  if (out.length !== 1) return `expected one error reply, got ${out.length}: ${JSON.stringify(out)}`;
  const m = out[0] as unknown as JsonObject;
  const err = m.error as JsonObject | undefined;
  if (m.id !== INBOUND_ID || err === undefined || !codes.includes(err.code as number))
    return `expected error ${codes.join("|")} (${want.family}), got ${JSON.stringify(m)}`;
  if (events.some((x) => x.kind === "request")) return "refused request surfaced as a request event";
  const v = events.find((x) => x.kind === "violation");
  if (v === undefined || v.kind !== "violation" || v.code !== err.code || v.id !== INBOUND_ID)
    return `expected a violation event with code ${String(err.code)}, got ${kinds}`;
  if (
    want.family !== "kind" &&
    !FAMILY_RULES[want.family].test(v.rule) &&
    !(want.family === "phase" && c.method === "initialize" && v.rule === "L-01")
  ) {
    return `violation rule ${v.rule} not of family ${want.family}`;
  }
  return undefined;
}

function* allCases(): Generator<Case> {
  for (const version of SESSION_VERSIONS)
    for (const role of ["client", "server"] as const)
      for (const phase of PHASES)
        for (const own of ["all", "none"] as const)
          for (const peer of ["all", "none"] as const)
            for (const strict of [false, true])
              for (const method of ALL_METHODS)
                for (const kind of ["request", "notification"] as const)
                  for (const direction of ["outbound", "inbound"] as const)
                    yield { version, role, phase, own, peer, strict, method, kind, direction };
}

function label(c: Case): string {
  return `${c.version} ${c.role} ${c.phase} own=${c.own} peer=${c.peer}${c.strict ? " strict" : ""} ${c.direction} ${c.kind} ${c.method}`;
}

function describeWant(w: Expectation): string {
  return w.allowed ? "allowed" : `refused (${w.family})`;
}

test("C-01, MT-01, MT-02: the gating table, exhaustively, against the transcribed spec", (t) => {
  let count = 0;
  const tally: Record<string, number> = { allowed: 0, unknown: 0, kind: 0, direction: 0, engine: 0, phase: 0, capability: 0 };
  const failures: string[] = [];
  for (const c of allCases()) {
    const want = expect(c);
    count++;
    tally[want.allowed ? "allowed" : want.family] = (tally[want.allowed ? "allowed" : want.family] ?? 0) + 1;
    const problem = runCase(c, want);
    if (problem !== undefined) failures.push(`${label(c)}: want ${describeWant(want)}; ${problem}`);
  }
  assert.equal(failures.length, 0, `${failures.length} of ${count} cases failed:\n${failures.slice(0, 40).join("\n")}`);
  // The grid is exhaustive: 4 versions × 2 roles × 3 phases × 4 capability pairs × 2 strictness × 36 methods × 2 kinds × 2 directions.
  assert.equal(count, 4 * 2 * 3 * 4 * 2 * ALL_METHODS.length * 2 * 2);
  assert.ok(count > 10000, `only ${count} cases`);
  t.diagnostic(`${count} cases checked; ${JSON.stringify(tally)}`);
  // Every outcome family is exercised, so a table collapsing to "allow all" or "refuse all" cannot pass.
  for (const [family, n] of Object.entries(tally)) assert.ok(n > 100, `family ${family} has only ${n} cases`);
});

// ── Which L-10…L-13 rule a phase refusal cites ────────────────────────────────────────────
// L-10: the client sends nothing but ping before it has the initialize response.
// L-11: the server sends no request but ping (and logging) before `initialized`.
// L-12: other server notifications before `initialized` (not addressed; held).

function phaseRuleFor(sender: Role, row: SpecRow): string {
  if (sender === "client") return "L-10";
  if (row.kind === "request" || row.method === "notifications/message") return "L-11";
  return "L-12";
}

function citedPhaseRule(c: Case): string | undefined {
  const e = engineIn(c);
  const params = paramsFor(c);
  if (c.direction === "outbound") {
    try {
      if (c.kind === "request") e.request(c.method, params);
      else e.notify(c.method, params);
    } catch (err) {
      return err instanceof LocalProtocolError ? err.rule : String(err);
    }
    return undefined;
  }
  const msg: JsonObject = c.kind === "request" ? { jsonrpc: "2.0", id: 1, method: c.method } : { jsonrpc: "2.0", method: c.method };
  if (params !== undefined) msg.params = params;
  e.receiveMessage(msg);
  const { events } = drain(e);
  const ev = events.find((x) => x.kind === "violation" || x.kind === "diagnostic");
  return ev !== undefined && (ev.kind === "violation" || ev.kind === "diagnostic") ? ev.rule : undefined;
}

function phaseRuleCheck(): { checked: number; mismatches: string[] } {
  const mismatches: string[] = [];
  let checked = 0;
  for (const c of allCases()) {
    if (c.own !== "all" || c.peer !== "all") continue;
    const want = expect(c);
    if (want.allowed || want.family !== "phase") continue;
    const row = specRow(c.method, c.version) as SpecRow;
    if (row.engine) continue;
    const sender: Role = c.direction === "outbound" ? c.role : c.role === "client" ? "server" : "client";
    checked++;
    const rule = citedPhaseRule(c);
    if (rule !== phaseRuleFor(sender, row)) mismatches.push(`${label(c)}: cites ${String(rule)}, want ${phaseRuleFor(sender, row)}`);
  }
  return { checked, mismatches };
}

test("L-10, L-11, L-12: phase refusals cite the sender's L-10…L-13 rule: L-10 client, L-11 server requests and logging, L-12 other server notifications", () => {
  const { checked, mismatches } = phaseRuleCheck();
  assert.ok(checked > 200, `only ${checked} checked`);
  assert.deepEqual(mismatches, []);
});

// ── Param-dependent gates (RULES.md C-06, C-07, C-08) ─────────────────────────────

function operatingPair(
  version: V,
  clientCaps: JsonObject,
  serverCaps: JsonObject,
  serverCapsSeenByClient: JsonObject = serverCaps,
): { client: Engine; server: Engine } {
  const client = new Engine({ role: "client", info: { name: "c", version: "1" }, capabilities: clientCaps, versions: [version] });
  const id = client.initialize();
  client.receiveMessage({
    jsonrpc: "2.0",
    id,
    result: { protocolVersion: version, capabilities: serverCapsSeenByClient, serverInfo: { name: "s", version: "1" } },
  });
  drain(client);
  const server = new Engine({ role: "server", info: { name: "s", version: "1" }, capabilities: serverCaps, versions: [version] });
  server.receiveMessage({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: version, capabilities: clientCaps, clientInfo: { name: "c", version: "1" } },
  });
  server.receiveMessage({ jsonrpc: "2.0", method: "notifications/initialized" });
  drain(server);
  assert.equal(client.phase, "operating");
  assert.equal(server.phase, "operating");
  return { client, server };
}

/** A client in operating whose own declared capabilities are `caps`. */
function operatingClient(caps: JsonObject): Engine {
  const e = new Engine({ role: "client", info: { name: "c", version: "1" }, capabilities: caps, versions: ["2025-11-25"] });
  const id = e.initialize();
  e.receiveMessage({
    jsonrpc: "2.0",
    id,
    result: { protocolVersion: "2025-11-25", capabilities: SERVER_ALL, serverInfo: { name: "s", version: "1" } },
  });
  drain(e);
  assert.equal(e.phase, "operating");
  return e;
}

interface ParamCase {
  readonly name: string;
  readonly method: string;
  readonly params: JsonObject;
  /** The client's capabilities (the receiver of server requests). */
  readonly clientCaps: JsonObject;
  /** undefined: allowed. */
  readonly refusedWith: { rule: string; code: number } | undefined;
}

const SAMPLE = { messages: [], maxTokens: 10 };
const FORM = { message: "name?", requestedSchema: { type: "object", properties: {} } };
const URL_MODE = { mode: "url", message: "go", elicitationId: "e1", url: "https://example.com" };

const PARAM_CASES: readonly ParamCase[] = [
  {
    name: "sampling with tools needs sampling.tools",
    method: "sampling/createMessage",
    params: { ...SAMPLE, tools: [] },
    clientCaps: { sampling: {} },
    refusedWith: { rule: "C-06", code: -32602 },
  },
  {
    name: "sampling with toolChoice needs sampling.tools",
    method: "sampling/createMessage",
    params: { ...SAMPLE, toolChoice: { mode: "auto" } },
    clientCaps: { sampling: { context: {} } },
    refusedWith: { rule: "C-06", code: -32602 },
  },
  {
    name: "sampling with tools and sampling.tools",
    method: "sampling/createMessage",
    params: { ...SAMPLE, tools: [] },
    clientCaps: { sampling: { tools: {} } },
    refusedWith: undefined,
  },
  {
    name: "includeContext thisServer needs sampling.context",
    method: "sampling/createMessage",
    params: { ...SAMPLE, includeContext: "thisServer" },
    clientCaps: { sampling: {} },
    refusedWith: { rule: "C-06", code: -32602 },
  },
  {
    name: "includeContext none needs nothing more",
    method: "sampling/createMessage",
    params: { ...SAMPLE, includeContext: "none" },
    clientCaps: { sampling: {} },
    refusedWith: undefined,
  },
  {
    name: "includeContext allServers with sampling.context",
    method: "sampling/createMessage",
    params: { ...SAMPLE, includeContext: "allServers" },
    clientCaps: { sampling: { context: {} } },
    refusedWith: undefined,
  },
  {
    name: "plain sampling with sampling: {}",
    method: "sampling/createMessage",
    params: SAMPLE,
    clientCaps: { sampling: {} },
    refusedWith: undefined,
  },
  {
    name: "elicitation: {} allows form mode (mode absent)",
    method: "elicitation/create",
    params: FORM,
    clientCaps: { elicitation: {} },
    refusedWith: undefined,
  },
  {
    name: "elicitation: {} allows explicit form mode",
    method: "elicitation/create",
    params: { ...FORM, mode: "form" },
    clientCaps: { elicitation: {} },
    refusedWith: undefined,
  },
  {
    name: "elicitation: {} refuses URL mode",
    method: "elicitation/create",
    params: URL_MODE,
    clientCaps: { elicitation: {} },
    refusedWith: { rule: "C-07", code: -32602 },
  },
  {
    name: "elicitation.url allows URL mode",
    method: "elicitation/create",
    params: URL_MODE,
    clientCaps: { elicitation: { url: {} } },
    refusedWith: undefined,
  },
  {
    name: "elicitation.url alone refuses form mode",
    method: "elicitation/create",
    params: FORM,
    clientCaps: { elicitation: { url: {} } },
    refusedWith: { rule: "C-07", code: -32602 },
  },
  {
    name: "elicitation.form alone refuses URL mode",
    method: "elicitation/create",
    params: URL_MODE,
    clientCaps: { elicitation: { form: {} } },
    refusedWith: { rule: "C-07", code: -32602 },
  },
  {
    name: "elicitation.form and url allow both (form)",
    method: "elicitation/create",
    params: FORM,
    clientCaps: { elicitation: { form: {}, url: {} } },
    refusedWith: undefined,
  },
];

test("C-06, C-07: param gates: outbound refusals throw with the rule and queue nothing; allowed ones queue the request", () => {
  for (const pc of PARAM_CASES) {
    const s = new Engine({ role: "server", info: { name: "s", version: "1" }, capabilities: {}, versions: ["2025-11-25"] });
    s.receiveMessage({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: pc.clientCaps, clientInfo: { name: "c", version: "1" } },
    });
    s.receiveMessage({ jsonrpc: "2.0", method: "notifications/initialized" });
    drain(s);
    if (pc.refusedWith === undefined) {
      const id = s.request(pc.method, pc.params);
      const { out } = drain(s);
      assert.equal(out.length, 1, pc.name);
      assert.deepEqual(out[0], { jsonrpc: "2.0", id, method: pc.method, params: pc.params }, pc.name);
    } else {
      assert.throws(
        () => s.request(pc.method, pc.params),
        (err: unknown) => err instanceof LocalProtocolError && err.rule === pc.refusedWith?.rule,
        pc.name,
      );
      assert.equal(drain(s).out.length, 0, pc.name);
    }
  }
});

test("C-06, C-07: param gates: inbound refusals are answered with their code and a violation; allowed ones surface as requests", () => {
  for (const pc of PARAM_CASES) {
    const c = operatingClient(pc.clientCaps);
    c.receiveMessage({ jsonrpc: "2.0", id: "p", method: pc.method, params: pc.params });
    const { out, events } = drain(c);
    if (pc.refusedWith === undefined) {
      assert.equal(out.length, 0, pc.name);
      assert.deepEqual(
        events.map((e) => e.kind),
        ["request"],
        pc.name,
      );
    } else {
      assert.equal(out.length, 1, pc.name);
      assert.equal(((out[0] as unknown as JsonObject).error as JsonObject).code, pc.refusedWith.code, pc.name);
      const v = events.find((e) => e.kind === "violation");
      assert.ok(v !== undefined && v.kind === "violation" && v.rule === pc.refusedWith.rule && v.code === pc.refusedWith.code, pc.name);
      assert.ok(!events.some((e) => e.kind === "request"), pc.name);
    }
  }
});

test("C-08: a task-augmented request the receiver did not declare is refused outbound, processed normally inbound", () => {
  // Outbound: requestors SHOULD only add `task` when the receiver declared support; the engine holds its host to it.
  const { client, server } = operatingPair("2025-11-25", { sampling: {}, elicitation: {} }, { tools: {} });
  assert.throws(
    () => client.request("tools/call", { name: "t", task: {} }),
    (e: unknown) => e instanceof LocalProtocolError && e.rule === "C-08",
  );
  assert.throws(
    () => server.request("sampling/createMessage", { ...SAMPLE, task: {} }),
    (e: unknown) => e instanceof LocalProtocolError && e.rule === "C-08",
  );
  assert.throws(
    () => server.request("elicitation/create", { ...FORM, task: {} }),
    (e: unknown) => e instanceof LocalProtocolError && e.rule === "C-08",
  );
  assert.equal(drain(client).out.length + drain(server).out.length, 0);
  // With the declaration, it goes out.
  const pair = operatingPair(
    "2025-11-25",
    { sampling: {}, tasks: { requests: { sampling: { createMessage: {} } } } },
    { tools: {}, tasks: { requests: { tools: { call: {} } } } },
  );
  pair.client.request("tools/call", { name: "t", task: {} });
  pair.server.request("sampling/createMessage", { ...SAMPLE, task: {} });
  assert.equal(drain(pair.client).out.length, 1);
  assert.equal(drain(pair.server).out.length, 1);
  // Inbound: a receiver without task support MUST process the request normally (and ignore `task`).
  server.receiveMessage({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "t", task: {} } });
  const got = drain(server);
  assert.equal(got.out.length, 0);
  assert.ok(got.events.some((e) => e.kind === "request" && e.id === 9 && e.method === "tools/call"));
  assert.ok(!got.events.some((e) => e.kind === "violation"));
  client.receiveMessage({ jsonrpc: "2.0", id: 9, method: "sampling/createMessage", params: { ...SAMPLE, task: {} } });
  const got2 = drain(client);
  assert.equal(got2.out.length, 0);
  assert.ok(got2.events.some((e) => e.kind === "request" && e.method === "sampling/createMessage"));
});

test("C-10: capability gates read sub-flags: resources.subscribe and listChanged count only when true", () => {
  // The server's own declaration may be odd ("yes"): only true counts. The client reads a schema-valid result (an
  // initialize result that breaks its schema ends the session, L-03).
  const serverCaps = { resources: { subscribe: false, listChanged: "yes" }, tools: {}, prompts: { listChanged: true } };
  const { client, server } = operatingPair("2025-11-25", { roots: { listChanged: false } }, serverCaps, {
    ...serverCaps,
    resources: { subscribe: false, listChanged: false },
  });
  assert.doesNotThrow(() => client.request("resources/list"));
  assert.throws(
    () => client.request("resources/subscribe", { uri: "x" }),
    (e: unknown) => e instanceof LocalProtocolError && e.rule === "C-01",
  );
  assert.throws(
    () => client.notify("notifications/roots/list_changed"),
    (e: unknown) => e instanceof LocalProtocolError && e.rule === "C-01",
  );
  assert.throws(
    () => server.notify("notifications/resources/list_changed"),
    (e: unknown) => e instanceof LocalProtocolError && e.rule === "C-01",
  );
  assert.throws(
    () => server.notify("notifications/tools/list_changed"),
    (e: unknown) => e instanceof LocalProtocolError && e.rule === "C-01",
  );
  assert.doesNotThrow(() => server.notify("notifications/prompts/list_changed"));
  assert.throws(
    () => server.notify("notifications/resources/updated", { uri: "x" }),
    (e: unknown) => e instanceof LocalProtocolError && e.rule === "C-01",
  );
  // roots: { listChanged: false } still declares roots.
  assert.doesNotThrow(() => server.request("roots/list"));
  drain(server);
  // The capability error names the owner and the capability, with the code a peer would get.
  const { client: bare } = operatingPair("2025-11-25", {}, {});
  assert.throws(
    () => bare.request("prompts/get", { name: "p" }),
    (e: unknown) =>
      e instanceof LocalProtocolError && e.rule === "C-01" && e.code === -32601 && /server capability prompts/.test(e.expected),
  );
  drain(client);
  // Inbound on the server: subscribe without resources.subscribe is -32601.
  server.receiveMessage({ jsonrpc: "2.0", id: 1, method: "resources/subscribe", params: { uri: "x" } });
  const { out } = drain(server);
  assert.equal(((out[0] as unknown as JsonObject).error as JsonObject).code, -32601);
});

test("ENG-02: engine-owned messages are refused for the host in every phase, with nothing queued", () => {
  const owned: readonly [Role, Kind, string][] = [
    ["client", "request", "initialize"],
    ["client", "notification", "notifications/initialized"],
    ["client", "notification", "notifications/cancelled"],
    ["server", "notification", "notifications/cancelled"],
    ["client", "notification", "notifications/progress"],
    ["server", "notification", "notifications/progress"],
  ];
  for (const version of SESSION_VERSIONS) {
    for (const phase of PHASES) {
      for (const [role, kind, method] of owned) {
        const e = engineIn({ version, role, phase, own: "all", peer: "all", strict: false });
        const send = (): unknown =>
          kind === "request" ? e.request(method) : e.notify(method, { requestId: 0, progressToken: 0, progress: 1 });
        assert.throws(
          send,
          (err: unknown) => err instanceof LocalProtocolError && err.rule === "ENG-02",
          `${version} ${role} ${phase} ${method}`,
        );
        assert.equal(drain(e).out.length, 0);
      }
    }
  }
});

// ── capabilityMask presence rules (RULES.md C-10) ──────────────────────────────────────

test("C-10: capabilityMask: an object-valued capability counts when its key is present, even as {}", () => {
  assert.equal(capabilityMask({}), 0);
  assert.equal(capabilityMask({ tools: {} }), Cap.tools);
  assert.equal(capabilityMask({ logging: {} }), Cap.logging);
  assert.equal(capabilityMask({ completions: {} }), Cap.completions);
  assert.equal(capabilityMask({ roots: {} }), Cap.roots);
  assert.equal(capabilityMask({ sampling: {} }), Cap.sampling);
  assert.equal(capabilityMask({ sampling: { tools: {}, context: {} } }), Cap.sampling | Cap.samplingTools | Cap.samplingContext);
  assert.equal(capabilityMask({ tasks: {} }), Cap.tasks);
  assert.equal(capabilityMask({ tasks: { list: {}, cancel: {} } }), Cap.tasks | Cap.tasksList | Cap.tasksCancel);
  assert.equal(capabilityMask({ tasks: { requests: { tools: { call: {} } } } }), Cap.tasks | Cap.tasksRequestsToolsCall);
  assert.equal(
    capabilityMask({ tasks: { requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } } }),
    Cap.tasks | Cap.tasksRequestsSamplingCreateMessage | Cap.tasksRequestsElicitationCreate,
  );
  // Absent, or a sub-flag alone under an absent parent, does not count.
  assert.equal(capabilityMask({ tools: undefined }), 0);
  assert.equal(capabilityMask({ experimental: {}, "vendor.x": {} }), 0);
});

test("C-10: capabilityMask: listChanged and subscribe count only when exactly true", () => {
  assert.equal(capabilityMask({ tools: { listChanged: true } }), Cap.tools | Cap.toolsListChanged);
  assert.equal(capabilityMask({ tools: { listChanged: false } }), Cap.tools);
  assert.equal(capabilityMask({ tools: { listChanged: "true" } }), Cap.tools);
  assert.equal(capabilityMask({ tools: { listChanged: 1 } }), Cap.tools);
  assert.equal(capabilityMask({ tools: { listChanged: {} } }), Cap.tools);
  assert.equal(capabilityMask({ prompts: { listChanged: true } }), Cap.prompts | Cap.promptsListChanged);
  assert.equal(capabilityMask({ roots: { listChanged: true } }), Cap.roots | Cap.rootsListChanged);
  assert.equal(capabilityMask({ roots: { listChanged: false } }), Cap.roots);
  assert.equal(capabilityMask({ resources: { subscribe: true } }), Cap.resources | Cap.resourcesSubscribe);
  assert.equal(capabilityMask({ resources: { subscribe: false, listChanged: true } }), Cap.resources | Cap.resourcesListChanged);
  assert.equal(capabilityMask({ resources: { subscribe: "yes" } }), Cap.resources);
});

test("C-07, C-10: capabilityMask: elicitation: {} means form only; explicit form/url count as given", () => {
  assert.equal(capabilityMask({ elicitation: {} }), Cap.elicitation | Cap.elicitationForm);
  assert.equal(capabilityMask({ elicitation: { form: {} } }), Cap.elicitation | Cap.elicitationForm);
  assert.equal(capabilityMask({ elicitation: { url: {} } }), Cap.elicitation | Cap.elicitationUrl);
  assert.equal(capabilityMask({ elicitation: { form: {}, url: {} } }), Cap.elicitation | Cap.elicitationForm | Cap.elicitationUrl);
});

test("C-10: capabilityMask: non-objects and inherited keys declare nothing", () => {
  for (const v of [null, undefined, 1, "tools", true, [], [{ tools: {} }]]) assert.equal(capabilityMask(v), 0, JSON.stringify(v));
  assert.equal(capabilityMask(Object.create({ tools: {} })), 0);
  assert.equal(capabilityMask(JSON.parse('{"__proto__": {"tools": {}}}')), 0);
  assert.equal(capabilityMask({ tools: null }), 0);
  assert.equal(capabilityMask({ tools: false }), 0);
  // A sub-capability under a non-object parent does not count.
  assert.equal(capabilityMask({ resources: true }), Cap.resources);
  assert.equal(capabilityMask({ sampling: "x" }), Cap.sampling);
});
