// The corpus annotator and checker: derives, for every fixture, what a foreign runner needs
// (fixtures/FORMAT.md, "Applicability" and "Wire expectations") and writes fixtures/manifest.json.
//
//   node dist/spec-tests/tools/corpus-annotate.js          check: exit 1 when a fixture or the manifest is stale
//   node dist/spec-tests/tools/corpus-annotate.js --write  rewrite them
//
// Invariants: annotation is idempotent (annotating an annotated fixture changes nothing) and
// never alters what the engine replayer checks, except replacing the configured identity in
// initialize results by `$serverInfo` / `$capabilities`, which the engine replayer binds to
// the configuration. Derived fields: header `requires`, `profile`, `tags`, `levels`; on `out`
// and `quiet` steps `rule`, `level` and (when looser) `wire` (its forms: corpus-wire.ts); on host
// answers `wire: "answer"`.

import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { receiverLevel, ruleLevels, type RuleLevel } from "./corpus-levels.js";
import { listFixtureFiles } from "../../lib/cli/conform/fixtures.js";
import { listHttpFixtureFiles } from "../../lib/cli/conform/http.js";
import { parseHttpFixture } from "../../lib/cli/conform/http-format.js";
import { manifestProfiles, profileFor, type ProfileSettings } from "../../lib/cli/conform/target-profiles.js";
import { performedByCalls, refusalLevel, triggersOf } from "./corpus-triggers.js";
import { isProtocolVersion, SCHEMA_RELEASES, VERSION_PROFILES } from "../../lib/rules/versions.js";
import { idKey, isObj, ownServerInfo, placeholders, wireMessage, type Json, type Obj } from "./corpus-wire.js";

/** The corpus version: bump it (and add a CHANGELOG entry) when fixtures change meaning. */
export const CORPUS_VERSION = "3.5.0";

/** Engine configuration keys a foreign implementation cannot be asked for (they name this engine's options). */
const ENGINE_CONFIG = [
  "autoInitialize",
  "limits",
  "serverInfoInResults",
  "discoverAnyVersion",
  "validateResults",
  "instructions",
  "versions",
  "logLevel",
];

/** Which capability an inbound method belongs to (for `requires.without`). */
const METHOD_CAPABILITY: readonly [string, string][] = [
  ["tools/", "tools"],
  ["prompts/", "prompts"],
  ["resources/", "resources"],
  ["logging/", "logging"],
  ["completion/", "completions"],
  ["tasks/", "tasks"],
];

/** The listings a cursor pages (skills/list pages too, but its cursor refusal is fixed by the extension: SPEC_FIXED_REFUSAL). */
const LISTINGS = new Set(["tools/list", "prompts/list", "resources/list", "resources/templates/list", "tasks/list"]);

/** Requests a black-box implementation answers on its own, and whether an error answer is acceptable there. */
const SELF_ANSWERED = new Map<string, boolean>([
  ...[...LISTINGS].map((method): [string, boolean] => [method, false]),
  ["tools/call", true],
  ["prompts/get", true],
  ["resources/read", true],
  ["completion/complete", true],
  ["logging/setLevel", true],
  ["resources/subscribe", false],
  ["resources/unsubscribe", false],
  ["skills/list", false],
  ["skills/get", true],
]);

/**
 * Requests whose answer no later command depends on (a listing, a completion, a prompt or a
 * resource read): the implementation's own answer stands in for the host's even with triggered
 * commands after it.
 */
const INERT_ANSWER = new Set([...LISTINGS, "completion/complete", "prompts/get", "resources/read", "skills/list", "skills/get"]);

/**
 * Requests whose refusal the specification fixes: -32602 from skills/list for a cursor the server
 * did not issue (SK-02) and from skills/get for a URI that is no skill it serves (SK-09). Where the
 * fixture's host refuses one so, the implementation's own answer must be that refusal, not a result.
 */
const SPEC_FIXED_REFUSAL = new Set(["skills/list", "skills/get"]);

/**
 * A tool or prompt name, resource URI or cursor starting with this names what no implementation
 * has (FORMAT.md "Wire expectations"): a host's refusal of a tools/call, prompts/get,
 * resources/read, a listing's page or a completion naming one is what any conforming
 * implementation answers on its own, a protocol error (TL-02: any code, never a result with
 * isError) or, for the others, the code the fixture's host answered (-32602, PR-02, N-05, CM-02;
 * -32002, RS-02).
 */
export const NO_SUCH_PREFIX = "mcp-conform-no-such-";

/** A placeholder for a discovered entry's name (FORMAT.md "Discovered tools"). */
const isDiscovered = (v: Json | undefined): boolean =>
  typeof v === "string" && (v.startsWith("$tool:") || v.startsWith("$resource:") || v.startsWith("$prompt:"));

/** A request naming a discovered entry: a tool or prompt by name, a resource by URI, a prompt as a completion's ref. */
function namesDiscovered(m: Obj): boolean {
  const p = m.params;
  return isObj(p) && (isDiscovered(p.name) || isDiscovered(p.uri) || (isObj(p.ref) && isDiscovered(p.ref.name)));
}

/** The requests naming a task by id. */
const TASK_LOOKUPS = new Set(["tasks/get", "tasks/result", "tasks/cancel"]);

/** The pattern of the code an implementation's refusal of what no implementation has must carry. */
function noSuchRefusalCode(method: string | undefined, params: Json | undefined, code: Json | undefined): Json | undefined {
  if (!isObj(params) || typeof code !== "number") return undefined;
  if (method === "tools/call" && typeof params.name === "string" && params.name.startsWith(NO_SUCH_PREFIX)) return "$type:integer";
  if (method === "resources/read" && typeof params.uri === "string" && params.uri.startsWith(NO_SUCH_PREFIX)) return code;
  if (method === "prompts/get" && typeof params.name === "string" && params.name.startsWith(NO_SUCH_PREFIX)) return code;
  // A task it never created (TK-12), a cursor no implementation issued (N-05), a completion's reference to a prompt it does not have (CM-02).
  if (TASK_LOOKUPS.has(method ?? "") && typeof params.taskId === "string" && params.taskId.startsWith(NO_SUCH_PREFIX)) return code;
  if (LISTINGS.has(method ?? "") && typeof params.cursor === "string" && params.cursor.startsWith(NO_SUCH_PREFIX)) return code;
  if (
    method === "completion/complete" &&
    isObj(params.ref) &&
    typeof params.ref.name === "string" &&
    params.ref.name.startsWith(NO_SUCH_PREFIX)
  )
    return code;
  return undefined;
}

/**
 * Requests whose successful answer and its effect the specification fixes: `{}`, after which the
 * level applies (logging/setLevel) or the URI is subscribed or no longer (resources/subscribe,
 * resources/unsubscribe). A host's `respond` with `{}` there is what any conforming
 * implementation does on its own; a refusal is the application's choice.
 */
const SPEC_FIXED_ANSWER = new Set(["logging/setLevel", "resources/subscribe", "resources/unsubscribe"]);

/** The host's answer to `method` decides nothing a later command depends on, beyond what the specification fixes. */
/** A listing whose entries a later request names (a tool it calls, a prompt it gets, a resource it reads): later steps depend on the host's answer. */
function listedNamesUsedLater(call: Obj, steps: readonly Obj[], from: number): boolean {
  const result = isObj(call.result) ? call.result : {};
  const names = new Set<string>();
  // A page's cursor, sent back by a later request, ties that request to the host's answer (SK-02 paging).
  if (typeof result.nextCursor === "string") names.add(result.nextCursor);
  for (const key of ["tools", "prompts", "resources", "resourceTemplates"]) {
    const list = result[key];
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      // A discovered entry is the implementation's own: its listing names it whatever the host lists.
      if (isObj(entry) && typeof entry.name === "string" && !isDiscovered(entry.name)) names.add(entry.name);
      if (isObj(entry) && typeof entry.uri === "string" && !isDiscovered(entry.uri)) names.add(entry.uri);
    }
  }
  if (names.size === 0) return false;
  const named = (v: Json | undefined): boolean => typeof v === "string" && names.has(v);
  return steps
    .slice(from + 1)
    .some((s) => messagesOf(s.in).some((m) => isObj(m.params) && (named(m.params.name) || named(m.params.uri) || named(m.params.cursor))));
}

function independentAnswer(call: Obj, method: string | undefined): boolean {
  if (method === undefined) return false;
  if (INERT_ANSWER.has(method)) return true;
  return SPEC_FIXED_ANSWER.has(method) && call.op === "respond" && isObj(call.result) && Object.keys(call.result).length === 0;
}

const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

const SESSION = new Set(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]);

/**
 * Whether a server capability exists in one of `versions`: `completions` from 2025-03-26 on, the
 * core `tasks` only in the versions that have core tasks (2025-11-25; 2026-07-28 has the tasks
 * extension instead); the others in every version. A capability none of a fixture's versions
 * defines gates nothing there, so an implementation declaring it (for its newer versions) is
 * judged on the fixture all the same: it is no `requires.without` (FORMAT.md "Applicability").
 */
export function capabilityDefined(capability: string, versions: readonly string[]): boolean {
  const known = versions.filter(isProtocolVersion).map((v) => VERSION_PROFILES[v]);
  if (capability === "completions") return known.some((p) => p.index >= VERSION_PROFILES[SCHEMA_RELEASES.completions].index);
  if (capability === "tasks") return known.some((p) => p.coreTasks);
  return true;
}

/**
 * Capabilities a fixture relies on the implementation not declaring beyond the methods it calls
 * (`requires.without`, `capability.flag` for a flag): it subscribes to a resource, or its host logs or
 * announces an update or a list change, where the configuration lacks `logging`,
 * `resources.subscribe` or that `listChanged`. An implementation that
 * declares them would rightly serve or send what the fixture expects refused.
 */
function undeclaredSubCapabilities(steps: readonly Obj[], capabilities: Obj): string[] {
  const out = new Set<string>();
  const need = (capability: string, flag: string): void => {
    const declared = capabilities[capability];
    if (!(isObj(declared) && declared[flag] === true)) out.add(`${capability}.${flag}`);
  };
  for (const step of steps) {
    for (const m of messagesOf(step.in))
      if (Object.hasOwn(m, "id") && (m.method === "resources/subscribe" || m.method === "resources/unsubscribe"))
        need("resources", "subscribe");
    const method = isObj(step.call) && step.call.op === "notify" ? step.call.method : undefined;
    if (method === "notifications/resources/updated") need("resources", "subscribe");
    if (method === "notifications/message" && !Object.hasOwn(capabilities, "logging")) out.add("logging");
    const list = typeof method === "string" ? /^notifications\/(tools|prompts|resources)\/list_changed$/.exec(method) : null;
    if (list !== null) need(list[1] as string, "listChanged");
  }
  return [...out];
}

function stripDerived(header: Obj, steps: Obj[]): void {
  for (const key of ["requires", "profile", "tags", "levels"]) delete header[key];
  for (const step of steps) for (const key of ["rule", "level", "wire", "allow", "trigger"]) delete step[key];
}

function messagesOf(value: Json | undefined): Obj[] {
  if (Array.isArray(value)) return value.filter(isObj);
  return isObj(value) ? [value] : [];
}

export interface Annotated {
  readonly header: Obj;
  readonly steps: Obj[];
}

export function annotate(header: Obj, steps: Obj[], levels: ReadonlyMap<string, RuleLevel>): Annotated {
  stripDerived(header, steps);
  const config = isObj(header.config) ? header.config : {};
  const rules = Array.isArray(header.rules) ? header.rules.filter((r): r is string => typeof r === "string") : [];
  const versions = Array.isArray(header.versions) ? header.versions.filter((v): v is string => typeof v === "string") : [];
  const requests = new Map<string, string>();
  const cancelled = new Set<string>();
  /** Ids the implementation answers on its own → the error codes its answer may carry. */
  const selfAnswered = new Map<string, readonly number[]>();
  /** Index of the step where the implementation answers on its own, by request id. */
  const answerAt = new Map<string, number>();
  /** Ids whose own answer must be the refusal the fixture's host gave (SPEC_FIXED_REFUSAL). */
  const refusalOnly = new Map<string, Json>();
  /** The params of each request the fixture sends, by id. */
  const requestParams = new Map<string, Json | undefined>();
  /** Methods of the extensions the fixture configures (`config.extensions`), by the extension's id. */
  const extensionOf = new Map<string, string>();
  if (isObj(config.extensions))
    for (const [id, declaration] of Object.entries(config.extensions))
      if (isObj(declaration) && Array.isArray(declaration.requests))
        for (const method of declaration.requests) if (typeof method === "string") extensionOf.set(method, id);
  /** Ids the engine hands to its host (a `request` event), by the index of that event. */
  const delivered = new Map<string, number>();
  const hostOps = new Set<string>();
  const without = new Set<string>();
  const tools = new Set<string>();
  const triggerTools = new Set<string>();
  let untriggered = false;
  const capabilities = isObj(config.capabilities) ? config.capabilities : {};
  let clock = false;
  let raw = false;
  const hostRequests = steps.some((s) => isObj(s.call) && s.call.op !== "respond" && s.call.op !== "respondError");
  const era = versions.every((v) => SESSION.has(v))
    ? Array.isArray(config.versions) && config.versions.some((v) => !SESSION.has(v as string))
      ? "dual"
      : "session"
    : versions.every((v) => !SESSION.has(v))
      ? "modern"
      : "dual";
  const triggers = triggersOf(steps, era);
  const performed = performedByCalls(steps);
  // With every other command triggered, the implementation's own answers can be told apart from them.
  const othersTriggered = steps.every(
    (s, i) => !isObj(s.call) || s.call.op === "respond" || s.call.op === "respondError" || triggers.has(i) || performed.has(i),
  );
  // A command after a host answer may depend on what the host answered (an elicitation it named, a level it accepted):
  // the implementation's own answer stands in for the host's only when no triggered command follows it.
  const triggeredAfter = (at: number): boolean => [...triggers.keys()].some((j) => j > at);

  for (let i = 0; i < steps.length; i++) {
    const step = steps[i] as Obj;
    if (isObj(step.event) && step.event.kind === "request" && Object.hasOwn(step.event, "id")) delivered.set(idKey(step.event.id), i);
    for (const m of messagesOf(step.in)) {
      if (typeof m.method === "string") {
        if (Object.hasOwn(m, "id")) {
          requests.set(idKey(m.id), m.method);
          requestParams.set(idKey(m.id), m.params);
        }
        for (const [prefix, cap] of METHOD_CAPABILITY)
          if (m.method.startsWith(prefix) && !Object.hasOwn(capabilities, cap) && capabilityDefined(cap, versions)) without.add(cap);
        // Under 2026-07-28 the tasks methods belong to the tasks extension.
        if (
          m.method.startsWith("tasks/") &&
          versions.every((v) => !SESSION.has(v)) &&
          !(isObj(capabilities.extensions) && Object.hasOwn(capabilities.extensions, TASKS_EXTENSION))
        )
          without.add(`extensions.${TASKS_EXTENSION}`);
        // Subscriptions are gated on a sub-capability: a fixture testing the gate needs it undeclared.
        if (
          (m.method === "resources/subscribe" || m.method === "resources/unsubscribe") &&
          isObj(capabilities.resources) &&
          capabilities.resources.subscribe !== true
        )
          without.add("resources.subscribe");
        // tasks/list and tasks/cancel are gated on their own parts of the tasks capability (2025-11-25).
        if ((m.method === "tasks/list" || m.method === "tasks/cancel") && isObj(capabilities.tasks)) {
          const part = m.method.slice("tasks/".length);
          if (!Object.hasOwn(capabilities.tasks, part)) without.add(`tasks.${part}`);
        }
        // A configured extension's request where the server under test does not declare it: the fixture tests its gate (SK-01, MT-03).
        const extension = extensionOf.get(m.method);
        if (
          header.role === "server" &&
          extension !== undefined &&
          !(isObj(capabilities.extensions) && Object.hasOwn(capabilities.extensions, extension))
        )
          without.add(`extensions.${extension}`);
        if (m.method === "notifications/cancelled" && isObj(m.params)) cancelled.add(idKey(m.params.requestId));
      }
    }
    if ("in_bytes" in step || "in_hex" in step || "eof" in step) raw = true;
    if ("time" in step) clock = true;
    if (isObj(step.out)) placeholders(step.out, config);
    if (performed.has(i)) {
      // A trigger tool's call among the inputs performs this command itself: nothing for the runner to do.
      step.wire = "answer";
      tools.add(isObj(step.call) && step.call.op === "sendProgress" ? "conform_progress" : "conform_request");
    } else if (isObj(step.call) && typeof step.call.op === "string") {
      const call = step.call;
      const method = requests.get(idKey(call.id));
      const key = idKey(call.id);
      // A refusal of what no implementation has is its own answer, whatever the method.
      const noSuch = call.op === "respondError" ? noSuchRefusalCode(method, requestParams.get(key), call.code) : undefined;
      const tolerant = method === undefined ? undefined : (SELF_ANSWERED.get(method) ?? (noSuch !== undefined ? false : undefined));
      // A refused answer to a request the implementation answers on its own has no black-box counterpart: skipped, when a real answer follows.
      // (Only beside triggered commands, which carry the fixture's black-box checks.)
      const refusedBeforeAnswer =
        "throws" in step &&
        hostRequests &&
        othersTriggered &&
        !triggeredAfter(i) &&
        steps
          .slice(i + 1)
          .some(
            (s) =>
              isObj(s.call) && (s.call.op === "respond" || s.call.op === "respondError") && idKey(s.call.id) === key && !("throws" in s),
          );
      const canSelfAnswer =
        (call.op === "respond" || call.op === "respondError") &&
        (!("throws" in step) || refusedBeforeAnswer) &&
        tolerant !== undefined &&
        !listedNamesUsedLater(call, steps, i) &&
        (!hostRequests || (othersTriggered && (!triggeredAfter(i) || independentAnswer(call, method))));
      // A request the peer cancels must still be running when the cancel arrives: only the profile's `slow` tool is.
      const needsHold = cancelled.has(key);
      // A call of `slow` is one the fixture holds open while later requests arrive (a cancel, a limit of requests in flight).
      const slow =
        method === "tools/call" &&
        steps.some((s) => messagesOf(s.in).some((m) => idKey(m.id) === key && isObj(m.params) && m.params.name === "slow"));
      const trigger = triggers.get(i);
      if (canSelfAnswer && "throws" in step) step.wire = "answer";
      else if (canSelfAnswer && (!needsHold || slow)) {
        step.wire = "answer";
        // An answer the specification fixes ({} from setLevel or subscribe) is a result: later commands rely on its effect.
        const fixed = SPEC_FIXED_ANSWER.has(method ?? "") && call.op === "respond";
        // A discovered entry is one the implementation lists: a refusal of its name is no tolerated answer.
        const discovered = steps.some((s) => messagesOf(s.in).some((m) => idKey(m.id) === key && namesDiscovered(m)));
        const codes = tolerant && !fixed && !discovered ? [-32602, -32002] : [];
        if (call.op === "respondError" && typeof call.code === "number" && !codes.includes(call.code)) codes.push(call.code);
        selfAnswered.set(key, codes);
        answerAt.set(key, i);
        if (call.op === "respondError" && call.code === -32602 && SPEC_FIXED_REFUSAL.has(method ?? "")) refusalOnly.set(key, call.code);
        if (noSuch !== undefined) refusalOnly.set(key, noSuch);
        // The host refusing a request that names a discovered entry refuses what else it says (a missing argument): so must the implementation.
        if (discovered && call.op === "respondError" && typeof call.code === "number") refusalOnly.set(key, call.code);
        if (slow) tools.add("slow");
      } else {
        hostOps.add(String(call.op));
        if (trigger === undefined) untriggered = true;
        else triggerTools.add(String(trigger.tool));
      }
    }
  }

  // An initialize offering a version other than the one run: the server may counter-offer any version it speaks (V-03).
  const counterOffer = new Set<string>();
  for (const step of steps)
    for (const m of messagesOf(step.in))
      if (m.method === "initialize" && isObj(m.params) && m.params.protocolVersion !== "$version") counterOffer.add(idKey(m.id));

  // Per-step rule and level: the violation an out or quiet step goes with, else the fixture's first rule.
  const stepLevels = new Map<string, RuleLevel>();
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i] as Obj;
    if (!("out" in step) && !("quiet" in step)) continue;
    let rule: string | undefined;
    const near: Obj[] = [];
    if ("out" in step)
      for (let j = i + 1; j < steps.length && ("event" in (steps[j] as Obj) || "phase" in (steps[j] as Obj)); j++)
        near.push(steps[j] as Obj);
    else for (let j = i - 1; j >= 0 && !("in" in (steps[j] as Obj)) && !("call" in (steps[j] as Obj)); j--) near.push(steps[j] as Obj);
    // A batch reply checks batching (M-09) first, whatever violation its entries also raise.
    if ("out" in step && Array.isArray(step.out) && rules.includes("M-09")) rule = "M-09";
    for (const s of rule === undefined ? near : []) {
      const event = s.event;
      if (isObj(event) && typeof event.rule === "string" && rules.includes(event.rule)) {
        rule = event.rule;
        break;
      }
    }
    // An initialize result checks the server's half of the handshake (L-03) unless a rule of the fixture is nearer.
    if (rule === undefined && "out" in step && isObj(step.out) && isObj(step.out.result) && step.out.result.serverInfo === "$serverInfo")
      rule = rules.find((r) => r.startsWith("V-")) ?? "L-03";
    rule ??= quietRule(steps, i, rules) ?? (rules[0] as string);
    const level = receiverLevel(rule, levels);
    step.rule = rule;
    step.level = level;
    stepLevels.set(rule, level);
    if ("quiet" in step) {
      // Requests handed to the host and not yet answered: a black-box implementation may answer them now.
      const open = [...delivered]
        .filter(
          ([id, at]) =>
            at < i &&
            !cancelled.has(id) &&
            !steps.slice(0, i).some((s) => messagesOf(s.out).some((m) => idKey(m.id) === id && at < steps.indexOf(s))),
        )
        .map(([id]) => JSON.parse(id) as Json);
      if (open.length > 0) step.allow = open;
    }
    if ("out" in step) {
      const expected = step.out as Json;
      const answeredHere = new Map([...selfAnswered].filter(([id]) => (answerAt.get(id) ?? Infinity) < i));
      // A dual-era server's versions are a need of at least these (requires.versions): the ones it lists are its own too.
      const ownVersions = !Object.hasOwn(config, "versions") || dualVersions(config).length > 0;
      let wire: Json = Array.isArray(expected)
        ? { $unordered: expected.map((m) => wireMessage(m, answeredHere, new Set(), ownVersions, refusalOnly)) }
        : wireMessage(expected, answeredHere, counterOffer, ownVersions, refusalOnly);
      if (Array.isArray(expected) && expected.length < 2)
        wire = expected.map((m) => wireMessage(m, answeredHere, new Set(), ownVersions, refusalOnly));
      wire = ownServerInfo(wire, config.info);
      if (JSON.stringify(wire) !== JSON.stringify(expected)) step.wire = wire;
    }
  }

  const requires: Obj = {};
  if (hostOps.size > 0) requires.host = [...hostOps].sort();
  // Every command has a trigger: a target without an adapter runs the fixture through the trigger tools.
  if (hostOps.size > 0 && !untriggered) {
    requires.triggers = true;
    for (const tool of triggerTools) tools.add(tool);
    for (const [i, trigger] of triggers) {
      const step = steps[i] as Obj;
      step.trigger = trigger;
      // A refused command: its message must not reach the wire; the rule it cites is the step's.
      if (isObj(step.throws) && typeof step.throws.rule === "string") {
        step.rule = step.throws.rule;
        step.level = refusalLevel(step, receiverLevel(step.throws.rule, levels));
      }
    }
  }
  if (clock) requires.clock = true;
  // Versions naming both eras make a dual-era server, which a target can be: a need for the versions it
  // speaks (at least these), not an engine option. Any other set of versions only an adapter can set up.
  const configVersions = dualVersions(config);
  const dual = configVersions.length > 0;
  const engineConfig = ENGINE_CONFIG.filter((k) => Object.hasOwn(config, k) && !(k === "versions" && dual));
  const strict = Array.isArray(header.strict) ? header.strict : [false];
  const strictOnly = !strict.includes(false);
  // Engine settings that are exactly a published target profile's become a need for that profile,
  // which a foreign implementation can run (FORMAT.md "Target profiles"); any other only an adapter can set up.
  const settings: { [key: string]: Json } = {};
  for (const key of engineConfig) settings[key] = config[key] as Json;
  if (strictOnly) settings.strict = true;
  const profile = profileFor(settings as ProfileSettings);
  if (profile !== undefined) requires.profile = profile;
  else if (engineConfig.length > 0) requires.config = engineConfig;
  if (dual) requires.versions = [...configVersions].sort();
  if (strictOnly && profile === undefined) requires.strict = true;
  requires.era = era;
  if (raw) requires.transport = "stdio";
  requires.capabilities = capabilities;
  for (const sub of undeclaredSubCapabilities(steps, capabilities)) without.add(sub);
  if (without.size > 0) requires.without = [...without].sort();
  if (tools.size > 0) requires.tools = [...tools].sort();
  // Discovered tools: the runner finds each in the target's listing by what its `like` asks.
  if (isObj(header.discover)) {
    const discover: Obj = {};
    for (const [alias, own] of Object.entries(header.discover)) if (isObj(own) && isObj(own.like)) discover[alias] = own.like;
    requires.discover = discover;
  }
  // A 2026-07-28 fixture that opens without a complete envelope assumes a server speaking only that
  // revision: a dual-era one would take the opening for the session era.
  const first = steps.map((s) => messagesOf(s.in)[0]).find((m) => m !== undefined);
  const meta = first !== undefined && isObj(first.params) && isObj(first.params._meta) ? first.params._meta : undefined;
  if (era === "modern" && (meta === undefined || typeof meta["io.modelcontextprotocol/protocolVersion"] !== "string"))
    requires.modernOnly = true;
  // So does one that opens with a batch: a dual-era server reads an array as a session-era batch.
  if (era === "modern" && Array.isArray(steps.find((s) => "in" in s)?.in)) requires.modernOnly = true;

  const ordered: Obj = {};
  for (const [k, v] of Object.entries(header)) {
    ordered[k] = v;
    if (k === "rules") {
      const perRule: Obj = {};
      for (const r of rules) perRule[r] = stepLevels.get(r) ?? receiverLevel(r, levels);
      ordered.levels = perRule;
    }
  }
  ordered.profile = profileName(capabilities);
  ordered.tags = [String(header.fixture).split("/")[1] ?? "misc"];
  ordered.requires = requires;
  return { header: ordered, steps };
}

/** A quiet step after a cancellation checks the cancellation rule; after a notification, that it went unanswered (M-08). */
function quietRule(steps: readonly Obj[], at: number, rules: readonly string[]): string | undefined {
  if (!("quiet" in (steps[at] as Obj))) return undefined;
  for (let j = at - 1; j >= 0; j--) {
    const step = steps[j] as Obj;
    if ("out" in step) break;
    const inputs = messagesOf(step.in);
    if (inputs.some((m) => m.method === "notifications/cancelled")) return rules.find((r) => r.startsWith("X-"));
    if (inputs.length > 0 && inputs.every((m) => !Object.hasOwn(m, "id"))) return rules.find((r) => r === "M-08");
  }
  return undefined;
}

/** The versions of a dual-era server's configuration (session versions and 2026-07-28), else none. */
function dualVersions(config: Obj): string[] {
  const versions = Array.isArray(config.versions) ? config.versions.filter((v): v is string => typeof v === "string") : [];
  return versions.some((v) => SESSION.has(v)) && versions.some((v) => !SESSION.has(v)) ? versions : [];
}

/** A capability profile's name: its top-level capability keys, sorted, joined with "+" ("none" for {}). */
export function profileName(capabilities: Obj): string {
  const keys = Object.keys(capabilities).sort();
  return keys.length === 0 ? "none" : keys.join("+");
}

export interface CorpusFiles {
  /** Relative path → expected text. */
  readonly files: Map<string, string>;
  readonly manifest: string;
}

/** Annotates every fixture under `root`/fixtures and builds the manifest text. */
export function buildCorpus(root: string): CorpusFiles {
  const levels = ruleLevels(readFileSync(join(root, "RULES.md"), "utf8"));
  const files = new Map<string, string>();
  const entries: Json[] = [];
  const profiles = new Map<string, Json>();
  for (const path of listFixtureFiles(join(root, "fixtures"))) {
    const lines = readFileSync(path, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Obj);
    const { header, steps } = annotate(lines[0] as Obj, lines.slice(1), levels);
    const text = [header, ...steps].map((v) => JSON.stringify(v)).join("\n") + "\n";
    const rel = relative(root, path);
    files.set(rel, text);
    const requires = header.requires as Obj;
    profiles.set(String(header.profile), requires.capabilities as Json);
    entries.push({
      id: header.fixture as Json,
      role: header.role as Json,
      transport: "stdio",
      file: rel.split(sep).join("/"),
      versions: header.versions as Json,
      rules: header.rules as Json,
      levels: header.levels as Json,
      tags: header.tags as Json,
      profile: header.profile as Json,
      requires,
      sha256: createHash("sha256").update(text).digest("hex"),
    });
  }
  // The HTTP cases (fixtures/http/, FORMAT.md "HTTP cases"): listed as they are, nothing derived.
  for (const { id, path } of listHttpFixtureFiles(join(root, "fixtures"))) {
    const text = readFileSync(path, "utf8");
    const parsed = parseHttpFixture(text, id);
    if (typeof parsed === "string") throw new Error(`malformed HTTP fixture: ${parsed}`);
    entries.push({
      id,
      role: "server",
      transport: "http",
      file: relative(root, path).split(sep).join("/"),
      versions: [...parsed.versions],
      rules: [...parsed.rules],
      levels: Object.fromEntries(parsed.rules.map((rule) => [rule, parsed.level])),
      tags: [parsed.era],
      requires: { era: parsed.era, ...(parsed.requires.length > 0 ? { features: [...parsed.requires] } : {}) },
      sha256: createHash("sha256").update(text).digest("hex"),
    });
  }
  const manifest = {
    corpus: CORPUS_VERSION,
    format: "fixtures/FORMAT.md",
    changelog: "fixtures/CHANGELOG.md",
    profiles: Object.fromEntries([...profiles].sort(([a], [b]) => a.localeCompare(b))),
    // The published target profiles (lib/cli/conform/target-profiles.ts): what to run under each name.
    targetProfiles: manifestProfiles() as unknown as Json,
    fixtures: entries,
  };
  return { files, manifest: JSON.stringify(manifest, null, 1) + "\n" };
}

function main(): number {
  const root = fileURLToPath(new URL("../../../", import.meta.url));
  const write = process.argv.includes("--write");
  const { files, manifest } = buildCorpus(root);
  const stale: string[] = [];
  for (const [rel, text] of files) {
    if (readFileSync(join(root, rel), "utf8") === text) continue;
    stale.push(rel);
    if (write) writeFileSync(join(root, rel), text);
  }
  const manifestPath = join(root, "fixtures", "manifest.json");
  let current = "";
  try {
    current = readFileSync(manifestPath, "utf8");
  } catch {
    current = "";
  }
  if (current !== manifest) {
    stale.push("fixtures/manifest.json");
    if (write) writeFileSync(manifestPath, manifest);
  }
  process.stdout.write(
    stale.length === 0
      ? "corpus annotations and manifest are up to date\n"
      : `${write ? "rewrote" : "stale"}: ${stale.length} files\n${stale.slice(0, 20).join("\n")}\n`,
  );
  return stale.length > 0 && !write ? 1 : 0;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main();
