// The trigger of a host command (fixtures/FORMAT.md, "Trigger tools"): the tools/call a
// black-box runner sends to make an implementation without a host adapter do what the
// fixture's host does: send a request (conform_request), a notification (conform_notify), or
// cancel a request it sent (conform_cancel). Used by the annotator (corpus-annotate.ts).
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
const LISTEN_NOTIFICATIONS = new Set(["notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed", "notifications/resources/updated", "notifications/tasks"]);

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
  if (isObj(call) && call.op === "endSubscriptions" && Object.keys(call).length === 1) return { tool: "conform_end_subscriptions", arguments: {}, envelope };
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
  if (rule === "C-06" && level === "MUST" && !Object.hasOwn(params, "tools") && !Object.hasOwn(params, "toolChoice") && Object.hasOwn(params, "includeContext")) return "SHOULD";
  return level;
}
