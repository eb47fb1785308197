// The trigger of a host command (fixtures/FORMAT.md, "Trigger tools"): the tools/call a
// black-box runner sends to make an implementation without a host adapter do what the
// fixture's host does: send a request (conform_request), a notification (conform_notify),
// cancel a request it sent (conform_cancel), end its 2026-07-28 listens
// (conform_end_subscriptions); and the commands a trigger tool's call among the fixture's own
// inputs performs (conform_progress, conform_request). Used by the annotator (corpus-annotate.ts).
//
// Invariants: a command gets a trigger only when the trigger says everything the command
// does on the wire (request options other than a fixed progress token are engine-only, so
// such a command has none); a cancel names only a request that was itself triggered.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** The trigger tools of the conformance profile, by the op each performs. */
export const TRIGGER_TOOL = new Map<string, string>([
  ["request", "conform_request"],
  ["notify", "conform_notify"],
  ["cancel", "conform_cancel"],
]);

const idKey = (id: Json | undefined): string => JSON.stringify(id ?? null);

function messagesOf(value: Json | undefined): Obj[] {
  if (Array.isArray(value)) return value.filter(isObj);
  return isObj(value) ? [value] : [];
}

/** Options of a command that change nothing on stdio (relatedRequestId routes an HTTP response stream). */
function onlyWireNeutral(options: Json | undefined, allowed: readonly string[]): boolean {
  if (options === undefined) return true;
  return isObj(options) && Object.keys(options).every((k) => allowed.includes(k));
}

/**
 * The trigger of one host command, or undefined when it has none. `triggered` holds the fixture
 * ids of the requests triggered so far (a cancel may name only those); a triggered request's
 * id is added to it.
 */
export function triggerOf(step: Obj, triggered: Set<string>): Obj | undefined {
  const call = step.call;
  if (!isObj(call) || typeof call.op !== "string") return undefined;
  const tool = TRIGGER_TOOL.get(call.op);
  if (tool === undefined) return undefined;
  const refused = "throws" in step;
  if (call.op === "cancel") {
    if (!triggered.has(idKey(call.id)) || !onlyWireNeutral(call.options, [])) return undefined;
    return { tool, arguments: typeof call.reason === "string" ? { reason: call.reason } : {}, cancels: call.id as Json };
  }
  if (typeof call.method !== "string") return undefined;
  if (call.params !== undefined && !isObj(call.params)) return undefined;
  let params = call.params;
  if (call.op === "request") {
    if (!onlyWireNeutral(call.options, ["progressToken", "relatedRequestId"])) return undefined;
    const token = isObj(call.options) ? call.options.progressToken : undefined;
    // A fixed token is part of the request's params; `true` asks for a token the implementation picks.
    if (token !== undefined && token !== true && typeof token !== "string" && typeof token !== "number") return undefined;
    if (token !== undefined && token !== true) {
      const meta = isObj(params) && isObj(params._meta) ? params._meta : {};
      params = { ...(isObj(params) ? params : {}), _meta: { ...meta, progressToken: token } };
    }
    const id = step.returns;
    if (!refused && typeof id !== "number" && typeof id !== "string") return undefined;
    const args: Obj = { method: call.method, ...(params !== undefined ? { params } : {}), ...(token === true ? { progress: true } : {}) };
    if (refused) return { tool, arguments: args };
    triggered.add(idKey(id));
    return { tool, arguments: args, request: id as Json };
  }
  if (!onlyWireNeutral(call.options, ["relatedRequestId"])) return undefined;
  return { tool, arguments: { method: call.method, ...(params !== undefined ? { params } : {}) } };
}

/** Notifications a 2026-07-28 server sends on the subscriptions/listen streams, related to no request. */
const LISTEN_NOTIFICATIONS = new Set([
  "notifications/tools/list_changed",
  "notifications/prompts/list_changed",
  "notifications/resources/list_changed",
  "notifications/resources/updated",
  "notifications/tasks",
]);

/**
 * The trigger of one host command in the 2026-07-28 era, or undefined. The trigger's tools/call
 * carries `envelope` as its `_meta`. A handler's messages may relate to its own call there, so
 * only commands the call cannot change get one: a notification of the listen streams (an
 * application sends those unrelated to any request), and a refused request (the era has no
 * server requests: MOD-09, whatever the request is related to), and the end of every open
 * listen (endSubscriptions: conform_end_subscriptions). Options (relatedRequestId
 * among them: it picks the stream) leave a command without a trigger.
 */
export function modernTriggerOf(step: Obj, envelope: Obj): Obj | undefined {
  const call = step.call;
  // Ending every open listen is one act of the server, whatever request asks for it.
  if (isObj(call) && call.op === "endSubscriptions" && Object.keys(call).length === 1)
    return { tool: "conform_end_subscriptions", arguments: {}, envelope };
  if (!isObj(call) || call.options !== undefined || typeof call.method !== "string") return undefined;
  if (call.params !== undefined && !isObj(call.params)) return undefined;
  const args: Obj = { method: call.method, ...(call.params !== undefined ? { params: call.params } : {}) };
  if (call.op === "request" && "throws" in step) return { tool: "conform_request", arguments: args, envelope };
  if (call.op === "notify" && LISTEN_NOTIFICATIONS.has(call.method)) return { tool: "conform_notify", arguments: args, envelope };
  return undefined;
}

/**
 * The level of a refused command's check against a foreign implementation: its rule's, except
 * where the rule bundles a weaker sentence of the specification. C-06: `includeContext` other
 * than "none" without `sampling.context` is a SHOULD (the schema's words), tools a MUST.
 */
export function refusalLevel(step: Obj, level: string): string {
  const call = isObj(step.call) ? step.call : {};
  const params = isObj(call.params) ? call.params : {};
  const rule = isObj(step.throws) ? step.throws.rule : undefined;
  if (
    rule === "C-06" &&
    level === "MUST" &&
    !Object.hasOwn(params, "tools") &&
    !Object.hasOwn(params, "toolChoice") &&
    Object.hasOwn(params, "includeContext")
  )
    return "SHOULD";
  return level;
}

/**
 * The commands a trigger tool's tools/call among the fixture's own inputs performs on its own, by
 * step index (their wire is the call's doing, so the runner has nothing to do for them):
 * - of a `conform_progress` call: every sendProgress for it (refused ones too), in the order and
 *   with the values of its `arguments.progress`, and nothing else (a sendProgress the list does
 *   not name, after the answer say, leaves all of them to the host);
 * - of a `conform_request` call: the one refused request related to it (`relatedRequestId`) with
 *   its method and params: a handler's request is related to its call.
 */
export function performedByCalls(steps: readonly Obj[]): Set<number> {
  const asked = new Map<string, { tool: string; args: Obj }>();
  for (const step of steps) {
    for (const m of messagesOf(step.in)) {
      if (
        m.method === "tools/call" &&
        Object.hasOwn(m, "id") &&
        isObj(m.params) &&
        typeof m.params.name === "string" &&
        isObj(m.params.arguments)
      )
        asked.set(idKey(m.id), { tool: m.params.name, args: m.params.arguments });
    }
  }
  const progress = new Map<string, number[]>();
  const related = new Map<string, number[]>();
  for (let i = 0; i < steps.length; i++) {
    const call = (steps[i] as Obj).call;
    if (!isObj(call)) continue;
    if (call.op === "sendProgress") progress.set(idKey(call.id), [...(progress.get(idKey(call.id)) ?? []), i]);
    const options = isObj(call.options) ? call.options : undefined;
    if (options !== undefined && Object.hasOwn(options, "relatedRequestId"))
      related.set(idKey(options.relatedRequestId), [...(related.get(idKey(options.relatedRequestId)) ?? []), i]);
  }
  const out = new Set<number>();
  for (const [id, at] of progress) {
    const call = asked.get(id);
    const list = call?.tool === "conform_progress" && Array.isArray(call.args.progress) ? call.args.progress : undefined;
    if (list === undefined || list.length !== at.length) continue;
    const same = at.every((i, n) => {
      const { op: _op, id: _id, ...values } = (steps[i] as Obj).call as Obj;
      return JSON.stringify(values) === JSON.stringify(list[n]);
    });
    if (same) for (const i of at) out.add(i);
  }
  for (const [id, at] of related) {
    const call = asked.get(id);
    const step = steps[at[0] as number] as Obj;
    const command = step.call as Obj;
    if (
      call?.tool !== "conform_request" ||
      at.length !== 1 ||
      command.op !== "request" ||
      !("throws" in step) ||
      Object.keys(command.options as Obj).length !== 1
    )
      continue;
    if (
      JSON.stringify({ method: command.method, ...(command.params !== undefined ? { params: command.params } : {}) }) ===
      JSON.stringify(call.args)
    )
      out.add(at[0] as number);
  }
  return out;
}

/** The envelope keys a trigger's tools/call carries in the 2026-07-28 era (the client it speaks for). */
const ENVELOPE_KEYS = [
  "io.modelcontextprotocol/protocolVersion",
  "io.modelcontextprotocol/clientCapabilities",
  "io.modelcontextprotocol/clientInfo",
];

/** The envelope of a 2026-07-28 request (its three client keys), or undefined. */
function envelopeOf(message: Obj): Obj | undefined {
  if (!Object.hasOwn(message, "id") || typeof message.method !== "string" || !isObj(message.params) || !isObj(message.params._meta))
    return undefined;
  const meta = message.params._meta;
  if (!ENVELOPE_KEYS.every((k) => Object.hasOwn(meta, k))) return undefined;
  return Object.fromEntries(ENVELOPE_KEYS.map((k) => [k, meta[k] as Json]));
}

/**
 * The triggers of a fixture's host commands, by step index. In the session era only past the
 * handshake (initialize answered, notifications/initialized sent: a tools/call before it is
 * itself out of order) and before `eof`. In the 2026-07-28 era (a modern fixture, or a dual-era
 * one whose client opens with an envelope) a trigger's tools/call carries the envelope of the
 * fixture's first request (`envelope`), and only commands whose wire the call cannot change get
 * one (corpus-triggers.ts, modernTriggerOf).
 */
export function triggersOf(steps: readonly Obj[], era: string): Map<number, Obj> {
  const out = new Map<number, Obj>();
  const triggered = new Set<string>();
  const first = steps.map((s) => messagesOf(s.in)[0]).find((m) => m !== undefined);
  const envelope =
    era === "session"
      ? undefined
      : steps
          .flatMap((s) => messagesOf(s.in))
          .map(envelopeOf)
          .find((e) => e !== undefined);
  // A dual-era fixture speaks 2026-07-28 when its client opens with an envelope, else the session era.
  const modern = envelope !== undefined && (era === "modern" || (first !== undefined && envelopeOf(first) !== undefined));
  let ready = false;
  /** 2026-07-28: the subscriptions/listen requests still open (not cancelled, answered or ended). */
  const listens = new Set<string>();
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i] as Obj;
    for (const m of messagesOf(step.in)) {
      if (m.method === "notifications/initialized" && !modern) ready = true;
      if (m.method === "subscriptions/listen" && Object.hasOwn(m, "id")) listens.add(idKey(m.id));
      if (m.method === "notifications/cancelled" && isObj(m.params)) listens.delete(idKey(m.params.requestId));
    }
    // After the end of input no tools/call can be sent.
    if ("eof" in step) break;
    if (!isObj(step.call)) continue;
    const call = step.call;
    // The host's plain `{}` to the only open listen ends it as ending every open listen would.
    const endsOnlyListen =
      modern &&
      call.op === "respond" &&
      listens.size === 1 &&
      listens.has(idKey(call.id)) &&
      isObj(call.result) &&
      Object.keys(call.result).length === 0 &&
      !("throws" in step);
    const trigger = endsOnlyListen
      ? modernTriggerOf({ call: { op: "endSubscriptions" } }, envelope as Obj)
      : modern
        ? modernTriggerOf(step, envelope as Obj)
        : ready
          ? triggerOf(step, triggered)
          : undefined;
    if (call.op === "respond" || call.op === "respondError") listens.delete(idKey(call.id));
    if (call.op === "endSubscriptions") listens.clear();
    if (trigger !== undefined) out.set(i, trigger);
  }
  return out;
}
