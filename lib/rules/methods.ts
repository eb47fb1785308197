// The method table and the one gate function (RULES.md MT-01, MT-02, MT-03, MT-05, L-01, L-04, L-06, L-10, L-11,
// L-12, L-13, C-01, C-04, C-06, C-07, C-08, C-09, G-01, O-01, X-02, TX-06, ENG-02, ENG-03, ENG-04).
//
// Every method and notification of every session-era version is one row: who sends it,
// in which phases of the sender it may be sent and in which phases of the receiver it is
// accepted, which capability gates it (the receiver's, or the sender's for list_changed,
// logging and similar announcements), which versions have it, and param-dependent
// sub-capability gates. gate() is the only place that reads the table; the engine calls
// it for every outbound command and every inbound message.
//
// Phase sets are bitmasks over the role's phase (see Phase). `receivePhases` is the
// lenient default of ENG-03; `receivePhasesStrict` flips the SHOULD-level
// cells when the engine runs with `strict: true`. Outbound checks always use the strict
// reading of SHOULD rules: the engine never lets its own host break one.

import { Cap, capabilityName } from "./capabilities.js";
import type { JsonObject } from "../wire/envelope.js";
import { ErrorCode } from "../wire/errors.js";
import type { ExtensionGate, ExtensionMethod } from "./custom-methods.js";
import { VERSION_PROFILES, type ProtocolVersion } from "./versions.js";

/**
 * Lifecycle phases. Server: awaiting-init → initializing (result sent) → operating (initialized received).
 * Client: awaiting-init → initializing (initialize sent) → operating (result accepted).
 */
export const Phase = {
  AwaitingInit: 1,
  Initializing: 2,
  Operating: 4,
  Closed: 8,
} as const;
export type PhaseBit = (typeof Phase)[keyof typeof Phase];
export type PhaseName = "awaiting-init" | "initializing" | "operating" | "closed";

export const PHASE_NAMES: Readonly<Record<PhaseBit, PhaseName>> = {
  1: "awaiting-init",
  2: "initializing",
  4: "operating",
  8: "closed",
};

const OPEN = Phase.AwaitingInit | Phase.Initializing | Phase.Operating;
const AFTER_INIT = Phase.Initializing | Phase.Operating;
const OPERATING = Phase.Operating;

export type Role = "client" | "server";
export type MessageKind = "request" | "notification";
export type Sender = Role | "both";

/** A sub-capability that applies only when the params ask for it (e.g. sampling with tools). */
export interface ParamGate {
  /** A capability bit of the receiver. */
  readonly cap: number;
  readonly when: (params: JsonObject | undefined) => boolean;
  /** Code owed to a peer that ignored this gate; undefined: the receiver ignores the param instead (C-08). */
  readonly code: number | undefined;
  readonly rule: string;
  readonly what: string;
  /** The first version whose schema has this param (older peers ignore unknown params). */
  readonly since: ProtocolVersion;
}

export interface MethodRow {
  readonly method: string;
  readonly kind: MessageKind;
  readonly from: Sender;
  /** Phases of the sender in which the engine lets its host send it. */
  readonly sendPhases: number;
  /** Phases of the receiver in which it is accepted (lenient default). */
  readonly receivePhases: number;
  /** Phases of the receiver in which it is accepted with `strict: true`. */
  readonly receivePhasesStrict: number;
  /** Capability bits that must be declared (0: ungated). */
  readonly cap: number;
  readonly capOf: "receiver" | "sender";
  readonly paramGates: readonly ParamGate[];
  /** Sent only by the engine itself (initialize handshake, cancellation, progress). */
  readonly engineOwned: boolean;
  /**
   * Phases of a client receiver, where they differ from receivePhases (a client in initializing awaits the
   * server's result, so server traffic other than ping and logging cannot legitimately reach it).
   */
  readonly clientReceivePhases: number | undefined;
  /** The rule a phase refusal cites; undefined: by sender (L-10 client, L-11 server requests, L-12 server notifications). */
  readonly phaseRule: string | undefined;
  readonly since: ProtocolVersion;
  readonly until: ProtocolVersion | undefined;
  /** X-02, L-04: false for initialize, which is never cancelled (nor timed out with a notifications/cancelled). */
  readonly cancellable: boolean;
  /** 2026-07-28 (MOD-10): its result may be input_required. */
  readonly inputRequired: boolean;
  /** 2026-07-28 (MOD-16): its complete result carries ttlMs and cacheScope. */
  readonly cacheable: boolean;
  /** 2026-07-28 over HTTP (MOD-20): the param the Mcp-Name header mirrors. */
  readonly nameParam: string | undefined;
  /** 2026-07-28: the extension the server must offer and the request's clientCapabilities declare for this method (lib/rules/negotiated-extensions.ts). */
  readonly extension: string | undefined;
  /** 2026-07-28 tasks extension: a server may answer it with a CreateTaskResult (resultType "task"). */
  readonly taskAugmentable: boolean;
  /**
   * 2026-07-28 (MOD-09, MOD-02): a server request that travels only inside an input_required result; the client
   * capabilities it needs there are its `cap` and those of the refusing `paramGates` its params trip.
   */
  readonly inputRequest: boolean;
}

interface RowOptions {
  sendPhases?: number;
  receivePhases?: number;
  receivePhasesStrict?: number;
  cap?: number;
  capOf?: "receiver" | "sender";
  paramGates?: readonly ParamGate[];
  engineOwned?: boolean;
  clientReceivePhases?: number;
  phaseRule?: string;
  since?: ProtocolVersion;
  until?: ProtocolVersion;
  cancellable?: boolean;
  inputRequired?: boolean;
  cacheable?: boolean;
  nameParam?: string;
  extension?: string;
  taskAugmentable?: boolean;
  inputRequest?: boolean;
}

/** The tasks extension of 2026-07-28 (SEP-2663); its rules are in lib/rules/negotiated-extensions.ts. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

function row(method: string, kind: MessageKind, from: Sender, o: RowOptions = {}): MethodRow {
  const receivePhases = o.receivePhases ?? AFTER_INIT;
  return {
    method,
    kind,
    from,
    sendPhases: o.sendPhases ?? OPERATING,
    receivePhases,
    receivePhasesStrict: o.receivePhasesStrict ?? (receivePhases & OPERATING ? OPERATING : receivePhases),
    cap: o.cap ?? 0,
    capOf: o.capOf ?? "receiver",
    paramGates: o.paramGates ?? [],
    engineOwned: o.engineOwned ?? false,
    clientReceivePhases: o.clientReceivePhases,
    phaseRule: o.phaseRule,
    since: o.since ?? "2024-11-05",
    until: o.until,
    cancellable: o.cancellable ?? true,
    inputRequired: o.inputRequired ?? false,
    cacheable: o.cacheable ?? false,
    nameParam: o.nameParam,
    extension: o.extension,
    taskAugmentable: o.taskAugmentable ?? false,
    inputRequest: o.inputRequest ?? false,
  };
}

const hasParam =
  (name: string) =>
  (params: JsonObject | undefined): boolean =>
    params !== undefined && params[name] !== undefined;

const samplingWithTools = (params: JsonObject | undefined): boolean =>
  params !== undefined && (params.tools !== undefined || params.toolChoice !== undefined);
const samplingWithContext = (params: JsonObject | undefined): boolean =>
  params !== undefined && params.includeContext !== undefined && params.includeContext !== "none";
const elicitationUrlMode = (params: JsonObject | undefined): boolean => params !== undefined && params.mode === "url";
const elicitationFormMode = (params: JsonObject | undefined): boolean =>
  params === undefined || params.mode === undefined || params.mode === "form";
const hasTask = hasParam("task");

// sampling.tools/context, elicitation.form/url and tasks.* appear in 2025-11-25; before it
// the params they gate did not exist, and a receiver ignores unknown params. URL mode is
// gated from 2025-06-18 on, since an older client cannot have declared it.
const SAMPLING_GATES: readonly ParamGate[] = [
  {
    cap: Cap.samplingTools,
    when: samplingWithTools,
    code: ErrorCode.InvalidParams,
    rule: "C-06",
    what: "tools or toolChoice in sampling",
    since: "2025-11-25",
  },
  {
    cap: Cap.samplingContext,
    when: samplingWithContext,
    code: ErrorCode.InvalidParams,
    rule: "C-06",
    what: 'includeContext other than "none"',
    since: "2025-11-25",
  },
  {
    cap: Cap.tasksRequestsSamplingCreateMessage,
    when: hasTask,
    code: undefined,
    rule: "C-08",
    what: "a task-augmented sampling request",
    since: "2025-11-25",
  },
];
const ELICITATION_GATES: readonly ParamGate[] = [
  {
    cap: Cap.elicitationUrl,
    when: elicitationUrlMode,
    code: ErrorCode.InvalidParams,
    rule: "C-07",
    what: "URL-mode elicitation",
    since: "2025-06-18",
  },
  {
    cap: Cap.elicitationForm,
    when: elicitationFormMode,
    code: ErrorCode.InvalidParams,
    rule: "C-07",
    what: "form-mode elicitation",
    since: "2025-11-25",
  },
  {
    cap: Cap.tasksRequestsElicitationCreate,
    when: hasTask,
    code: undefined,
    rule: "C-08",
    what: "a task-augmented elicitation",
    since: "2025-11-25",
  },
];
const TOOLS_CALL_GATES: readonly ParamGate[] = [
  {
    cap: Cap.tasksRequestsToolsCall,
    when: hasTask,
    code: undefined,
    rule: "C-08",
    what: "a task-augmented tool call",
    since: "2025-11-25",
  },
];

/** All rows; a method may have several rows for different version ranges. */
export const METHOD_ROWS: readonly MethodRow[] = [
  // Lifecycle and utilities.
  row("initialize", "request", "client", {
    sendPhases: Phase.AwaitingInit,
    receivePhases: Phase.AwaitingInit,
    receivePhasesStrict: Phase.AwaitingInit,
    engineOwned: true,
    phaseRule: "L-01",
    until: "2026-07-28",
    cancellable: false,
  }),
  row("notifications/initialized", "notification", "client", {
    sendPhases: Phase.Initializing,
    receivePhases: Phase.Initializing,
    receivePhasesStrict: Phase.Initializing,
    engineOwned: true,
    phaseRule: "L-06",
    until: "2026-07-28",
  }),
  // G-01: either side may ping; L-13: it is answered in every phase.
  row("ping", "request", "both", {
    sendPhases: OPEN,
    receivePhases: OPEN,
    receivePhasesStrict: OPEN,
    phaseRule: "L-13",
    until: "2026-07-28",
  }),
  row("notifications/cancelled", "notification", "both", {
    sendPhases: OPEN,
    receivePhases: OPEN,
    receivePhasesStrict: OPEN,
    engineOwned: true,
    phaseRule: "X-01",
  }),
  row("notifications/progress", "notification", "both", {
    sendPhases: OPEN,
    receivePhases: OPEN,
    receivePhasesStrict: OPEN,
    engineOwned: true,
    phaseRule: "P-04",
  }),
  // Server features, requested by the client.
  row("resources/list", "request", "client", { cap: Cap.resources, cacheable: true }),
  row("resources/templates/list", "request", "client", { cap: Cap.resources, cacheable: true }),
  row("resources/read", "request", "client", { cap: Cap.resources, cacheable: true, inputRequired: true, nameParam: "uri" }),
  row("resources/subscribe", "request", "client", { cap: Cap.resourcesSubscribe, until: "2026-07-28" }),
  row("resources/unsubscribe", "request", "client", { cap: Cap.resourcesSubscribe, until: "2026-07-28" }),
  row("prompts/list", "request", "client", { cap: Cap.prompts, cacheable: true }),
  row("prompts/get", "request", "client", { cap: Cap.prompts, inputRequired: true, nameParam: "name" }),
  row("tools/list", "request", "client", { cap: Cap.tools, cacheable: true }),
  row("tools/call", "request", "client", {
    cap: Cap.tools,
    paramGates: TOOLS_CALL_GATES,
    inputRequired: true,
    nameParam: "name",
    taskAugmentable: true,
  }),
  row("logging/setLevel", "request", "client", { cap: Cap.logging, until: "2026-07-28" }),
  row("completion/complete", "request", "client", { until: "2025-03-26" }),
  row("completion/complete", "request", "client", { cap: Cap.completions, since: "2025-03-26" }),
  // Client features, requested by the server.
  // 2026-07-28: these travel only inside input_required results, never as requests (MOD-09).
  row("sampling/createMessage", "request", "server", {
    cap: Cap.sampling,
    paramGates: SAMPLING_GATES,
    receivePhases: OPERATING,
    until: "2026-07-28",
    inputRequest: true,
  }),
  row("roots/list", "request", "server", { cap: Cap.roots, receivePhases: OPERATING, until: "2026-07-28", inputRequest: true }),
  row("elicitation/create", "request", "server", {
    cap: Cap.elicitation,
    paramGates: ELICITATION_GATES,
    receivePhases: OPERATING,
    since: "2025-06-18",
    until: "2026-07-28",
    inputRequest: true,
  }),
  // Tasks (2025-11-25): either side may be the receiver that created the task.
  // nameParam: over 2026-07-28 HTTP the tasks/* requests carry Mcp-Name: <taskId> (TX-09; the session era has no such header).
  row("tasks/get", "request", "both", {
    cap: Cap.tasks,
    clientReceivePhases: OPERATING,
    since: "2025-11-25",
    until: "2026-07-28",
    nameParam: "taskId",
  }),
  row("tasks/result", "request", "both", { cap: Cap.tasks, clientReceivePhases: OPERATING, since: "2025-11-25", until: "2026-07-28" }),
  row("tasks/list", "request", "both", { cap: Cap.tasksList, clientReceivePhases: OPERATING, since: "2025-11-25", until: "2026-07-28" }),
  row("tasks/cancel", "request", "both", {
    cap: Cap.tasksCancel,
    clientReceivePhases: OPERATING,
    since: "2025-11-25",
    until: "2026-07-28",
    nameParam: "taskId",
  }),
  row("notifications/tasks/status", "notification", "both", {
    cap: Cap.tasks,
    capOf: "sender",
    clientReceivePhases: OPERATING,
    since: "2025-11-25",
    until: "2026-07-28",
  }),
  // Tasks (2026-07-28, the io.modelcontextprotocol/tasks extension): the client asks, the server holds the tasks.
  // TX-06: tasks/result and tasks/list have no row here: removed, they are unknown methods (-32601).
  row("tasks/get", "request", "client", { since: "2026-07-28", extension: TASKS_EXTENSION, nameParam: "taskId" }),
  row("tasks/update", "request", "client", { since: "2026-07-28", extension: TASKS_EXTENSION, nameParam: "taskId" }),
  row("tasks/cancel", "request", "client", { since: "2026-07-28", extension: TASKS_EXTENSION, nameParam: "taskId" }),
  row("notifications/tasks", "notification", "server", { since: "2026-07-28", extension: TASKS_EXTENSION, receivePhases: OPERATING }),
  // Announcements, gated on the sender's own declaration: list changes only from a server that declared the matching
  // listChanged, resources/updated only with resources.subscribe (C-04; a refusal cites the capability rule, C-01).
  // O-01: log messages only from a server that declared logging.
  row("notifications/message", "notification", "server", {
    cap: Cap.logging,
    capOf: "sender",
    sendPhases: AFTER_INIT,
    receivePhases: AFTER_INIT,
    receivePhasesStrict: AFTER_INIT,
    phaseRule: "L-11",
  }),
  row("notifications/resources/list_changed", "notification", "server", {
    cap: Cap.resourcesListChanged,
    capOf: "sender",
    receivePhases: OPERATING,
    phaseRule: "L-12",
  }),
  row("notifications/resources/updated", "notification", "server", {
    cap: Cap.resourcesSubscribe,
    capOf: "sender",
    receivePhases: OPERATING,
    phaseRule: "L-12",
  }),
  row("notifications/prompts/list_changed", "notification", "server", {
    cap: Cap.promptsListChanged,
    capOf: "sender",
    receivePhases: OPERATING,
    phaseRule: "L-12",
  }),
  row("notifications/tools/list_changed", "notification", "server", {
    cap: Cap.toolsListChanged,
    capOf: "sender",
    receivePhases: OPERATING,
    phaseRule: "L-12",
  }),
  // C-05: roots list changes only from a client that declared roots.listChanged (sending it when its roots change is its host's part).
  row("notifications/roots/list_changed", "notification", "client", { cap: Cap.rootsListChanged, capOf: "sender", until: "2026-07-28" }),
  row("notifications/elicitation/complete", "notification", "server", {
    cap: Cap.elicitationUrl,
    receivePhases: OPERATING,
    since: "2025-11-25",
    until: "2026-07-28",
  }),
  // 2026-07-28 (MOD-07, MOD-14): discovery and subscription streams. The engine answers discover and acknowledges listen itself.
  row("server/discover", "request", "client", {
    sendPhases: OPEN,
    receivePhases: OPEN,
    receivePhasesStrict: OPEN,
    since: "2026-07-28",
    cacheable: true,
  }),
  row("subscriptions/listen", "request", "client", { since: "2026-07-28" }),
  row("notifications/subscriptions/acknowledged", "notification", "server", {
    engineOwned: true,
    receivePhases: OPERATING,
    since: "2026-07-28",
  }),
];

export type MethodTable = ReadonlyMap<string, MethodRow>;

/** Properties of a method that hold in every version that has it (the first row of each method). */
export type MethodTraits = Pick<
  MethodRow,
  "method" | "kind" | "cancellable" | "inputRequired" | "cacheable" | "nameParam" | "taskAugmentable"
>;

const TRAITS: ReadonlyMap<string, MethodTraits> = (() => {
  const traits = new Map<string, MethodTraits>();
  for (const r of METHOD_ROWS) if (!traits.has(r.method)) traits.set(r.method, r);
  return traits;
})();

/** The version-independent traits of `method` (any string: a peer's method name is only a key of this Map). */
export function methodTraits(method: string): MethodTraits | undefined {
  return TRAITS.get(method);
}

/** X-02, L-04: whether a request of `method` may be cancelled (every one but initialize). */
export function isCancellable(method: string): boolean {
  return TRAITS.get(method)?.cancellable !== false;
}

/** The rows of the server requests that 2026-07-28 carries inside input_required results (MOD-09). */
const INPUT_REQUEST_ROWS: ReadonlyMap<string, MethodRow> = new Map(METHOD_ROWS.filter((r) => r.inputRequest).map((r) => [r.method, r]));

/** The methods an input_required result may ask the client for (MOD-09, MOD-10). */
export const INPUT_REQUEST_METHODS: readonly string[] = [...INPUT_REQUEST_ROWS.keys()];

/**
 * MOD-02: the client capability bits an input request of `method` with `params` needs: its row's capability and
 * those of the parameter gates its params trip, the columns that gate the same request in the session era. Gates
 * that do not refuse (a `task` the receiver may ignore, C-08) add nothing. Undefined: `method` is no input request.
 */
export function inputRequestCapabilities(method: string, params: JsonObject): number | undefined {
  const r = INPUT_REQUEST_ROWS.get(method);
  if (r === undefined) return undefined;
  let bits = r.cap;
  for (const g of r.paramGates) if (g.code !== undefined && g.when(params)) bits |= g.cap;
  return bits;
}

/** Every method with a trait, for tables that list them (e.g. the methods whose results are cacheable). */
export function methodsWhere(trait: (t: MethodTraits) => boolean): ReadonlySet<string> {
  const names = new Set<string>();
  for (const t of TRAITS.values()) if (trait(t)) names.add(t.method);
  return names;
}

function buildTable(version: ProtocolVersion): MethodTable {
  const index = VERSION_PROFILES[version].index;
  const table = new Map<string, MethodRow>();
  for (const r of METHOD_ROWS) {
    if (VERSION_PROFILES[r.since].index > index) continue;
    if (r.until !== undefined && VERSION_PROFILES[r.until].index <= index) continue;
    table.set(r.method, r);
  }
  return table;
}

const TABLES = new Map<ProtocolVersion, MethodTable>();

/** The rows in force for one version (built once per version). */
export function methodTable(version: ProtocolVersion): MethodTable {
  let table = TABLES.get(version);
  if (table === undefined) {
    table = buildTable(version);
    TABLES.set(version, table);
  }
  return table;
}

/** Why a message was refused; the engine turns it into a thrown error (outbound) or an owed reply plus a violation (inbound). */
export interface GateRefusal {
  /** Wire code owed for a request; undefined when the receiver should ignore the param instead. */
  readonly code: number | undefined;
  readonly rule: string;
  readonly expected: string;
  readonly got: string;
  readonly reason: "unknown-method" | "wrong-kind" | "wrong-direction" | "phase" | "capability" | "param-capability" | "engine-owned";
}

export interface GateContext {
  readonly table: MethodTable;
  readonly version: ProtocolVersion;
  /** The role of the side sending the message. */
  readonly sender: Role;
  /** The current phase of the side doing the check. */
  readonly phase: PhaseBit;
  readonly senderCaps: number;
  readonly receiverCaps: number;
  readonly strict: boolean;
  /** The host's methods beyond the spec and who declared their extensions (lib/rules/custom-methods.ts); consulted only for a method the spec's table lacks. */
  readonly extensions?: ExtensionGate | undefined;
}

/**
 * The one gate. `outbound` is true when our host wants to send the message (the phase is
 * the sender's), false when it arrived (the phase is the receiver's). Returns undefined
 * when the message may pass. The checks run in the order of ENG-04: unknown method (a
 * wrong-direction one counts as unknown), phase, capability (the param gates last); the
 * params themselves are validated after the gate.
 */
export function gate(
  ctx: GateContext,
  outbound: boolean,
  method: string,
  kind: MessageKind,
  params: JsonObject | undefined,
): GateRefusal | undefined {
  const r = ctx.table.get(method);
  if (r === undefined) {
    const custom = ctx.extensions?.methods.get(method);
    if (custom !== undefined && ctx.extensions !== undefined && methodTraits(method) === undefined)
      return gateExtensionMethod(ctx, ctx.extensions, outbound, custom, kind);
    return {
      code: ErrorCode.MethodNotFound,
      rule: "MT-01",
      expected: `a ${kind} method of ${ctx.version}`,
      got: method,
      reason: "unknown-method",
    };
  }
  if (r.kind !== kind) {
    return { code: ErrorCode.InvalidRequest, rule: "M-02", expected: `${method} as a ${r.kind}`, got: `a ${kind}`, reason: "wrong-kind" };
  }
  if (r.from !== "both" && r.from !== ctx.sender) {
    return {
      code: ErrorCode.MethodNotFound,
      rule: "MT-02",
      expected: `${method} sent by the ${r.from}`,
      got: `sent by the ${ctx.sender}`,
      reason: "wrong-direction",
    };
  }
  if (outbound && r.engineOwned) {
    return {
      code: undefined,
      rule: "ENG-02",
      expected: `${method} sent by the engine itself`,
      got: "sent by the host",
      reason: "engine-owned",
    };
  }
  const clientReceives = !outbound && ctx.sender === "server" && r.clientReceivePhases !== undefined;
  const phases = outbound
    ? r.sendPhases
    : clientReceives
      ? (r.clientReceivePhases as number)
      : ctx.strict
        ? r.receivePhasesStrict
        : r.receivePhases;
  if ((phases & ctx.phase) === 0) {
    const rule = r.phaseRule ?? (ctx.sender === "client" ? "L-10" : kind === "request" ? "L-11" : "L-12");
    return {
      code: ErrorCode.InvalidRequest,
      rule,
      expected: `${method} in phase ${phaseList(phases)}`,
      got: `phase ${PHASE_NAMES[ctx.phase]}`,
      reason: "phase",
    };
  }
  if (r.cap !== 0) {
    const caps = r.capOf === "receiver" ? ctx.receiverCaps : ctx.senderCaps;
    if ((caps & r.cap) !== r.cap) {
      const owner = r.capOf === "receiver" ? (ctx.sender === "client" ? "server" : "client") : ctx.sender;
      // C-09: an undeclared capability is answered as an unknown method.
      return {
        code: ErrorCode.MethodNotFound,
        rule: "C-01",
        expected: `${owner} capability ${capabilityName(r.cap)} declared for ${method}`,
        got: "not declared",
        reason: "capability",
      };
    }
  }
  for (const g of r.paramGates) {
    if (g.when(params) && (ctx.receiverCaps & g.cap) !== g.cap && VERSION_PROFILES[g.since].index <= VERSION_PROFILES[ctx.version].index) {
      return {
        code: g.code,
        rule: g.rule,
        expected: `capability ${capabilityName(g.cap)} for ${g.what}`,
        got: "not declared",
        reason: "param-capability",
      };
    }
  }
  return undefined;
}

function phaseList(mask: number): string {
  const names: string[] = [];
  for (const bit of [Phase.AwaitingInit, Phase.Initializing, Phase.Operating, Phase.Closed] as const)
    if (mask & bit) names.push(PHASE_NAMES[bit]);
  return names.join(" | ") || "none";
}

/** The gate for a method of the extension table (MT-03, MT-05); `outbound` as in gate(). */
export function gateExtensionMethod(
  ctx: GateContext,
  gateInfo: ExtensionGate,
  outbound: boolean,
  entry: ExtensionMethod,
  kind: MessageKind,
): GateRefusal | undefined {
  const { method, extension } = entry;
  if (entry.kind !== kind)
    return {
      code: ErrorCode.InvalidRequest,
      rule: "M-02",
      expected: `${method} as a ${entry.kind}`,
      got: `a ${kind}`,
      reason: "wrong-kind",
    };
  if (entry.from !== ctx.sender)
    return {
      code: ErrorCode.MethodNotFound,
      rule: "MT-02",
      expected: `${method} sent by the ${entry.from}`,
      got: `sent by the ${ctx.sender}`,
      reason: "wrong-direction",
    };
  if (ctx.phase !== Phase.Operating)
    return {
      code: ErrorCode.InvalidRequest,
      rule: ctx.sender === "client" ? "L-10" : kind === "request" ? "L-11" : "L-12",
      expected: `${method} in phase operating`,
      got: "another phase",
      reason: "phase",
    };
  if (entry.gatedBy === "server") {
    // SK-01: the server's declaration alone; ours when we are the server, else the peer's.
    const weServe = outbound === (ctx.sender === "server");
    const declared = weServe ? gateInfo.own.has(extension) : gateInfo.peer?.has(extension) === true;
    if (declared) return undefined;
    return {
      code: ErrorCode.MethodNotFound,
      rule: "SK-01",
      expected: `extension ${extension} declared in the server's capabilities for ${method}`,
      got: "not declared",
      reason: "unknown-method",
    };
  }
  const ours = outbound ? "our" : "the receiver's";
  if (!gateInfo.own.has(extension))
    return {
      code: ErrorCode.MethodNotFound,
      rule: "MT-03",
      expected: `extension ${extension} declared in ${ours} capabilities for ${method}`,
      got: "not declared",
      reason: "unknown-method",
    };
  if (gateInfo.peer === undefined) {
    // A 2026-07-28 server: a request declares its extensions in its own envelope (checked next); a notification carries none.
    if (kind === "notification" && !outbound)
      return {
        code: undefined,
        rule: "MT-05",
        expected: `${method} only where a declaration comes with it (2026-07-28 notifications carry none)`,
        got: "a client notification",
        reason: "unknown-method",
      };
    return undefined;
  }
  if (!gateInfo.peer.has(extension)) {
    const whose = outbound ? "the peer's" : "the sender's";
    return {
      code: ErrorCode.MethodNotFound,
      rule: "MT-03",
      expected: `extension ${extension} declared in ${whose} capabilities for ${method}`,
      got: "not declared",
      reason: "unknown-method",
    };
  }
  return undefined;
}
