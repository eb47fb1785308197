// The wire forms of the corpus (fixtures/FORMAT.md, "Wire expectations"): how the annotator
// loosens one expected message into what a black-box runner accepts from a foreign
// implementation (its own identity, ids, cache hints, versions, self-answered results, members the
// schema does not name), and the JSON types the annotator works on.
//
// Invariant: a wire form only ever admits more than the message it derives from, so the engine's
// own answer matches both.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Obj = { [key: string]: Json };

export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export const idKey = (id: Json | undefined): string => JSON.stringify(id ?? null);

/** The wire form of a CreateTaskResult the implementation gives on its own: the 2025-11-25 Task, any values of its own. */
const CREATED_TASK: Obj = {
  task: {
    taskId: "$type:string",
    status: "working",
    statusMessage: { "$if-present": "$type:string" },
    createdAt: "$type:string",
    lastUpdatedAt: "$type:string",
    ttl: { $oneOf: ["$type:number", "$type:null"] },
    pollInterval: { "$if-present": "$type:number" },
  },
  _meta: { "$if-present": "$type:object" },
};

const SERVER_INFO_META = "io.modelcontextprotocol/serverInfo";

/** The initialize result with the configured identity replaced by the placeholders. */
export function placeholders(message: Obj, config: Obj): void {
  const result = message.result;
  if (!isObj(result)) return;
  // A server/discover result: its capabilities and the serverInfo of its _meta are the implementation's own too.
  if (Array.isArray(result.supportedVersions)) {
    if (isObj(result.capabilities) && JSON.stringify(result.capabilities) === JSON.stringify(config.capabilities ?? {}))
      result.capabilities = "$capabilities";
    const meta = result._meta;
    if (isObj(meta) && JSON.stringify(meta[SERVER_INFO_META]) === JSON.stringify(config.info))
      result._meta = { ...meta, [SERVER_INFO_META]: "$serverInfo" };
    return;
  }
  if (typeof result.protocolVersion !== "string") return;
  if (isObj(result.serverInfo) && JSON.stringify(result.serverInfo) === JSON.stringify(config.info)) result.serverInfo = "$serverInfo";
  if (isObj(result.capabilities) && JSON.stringify(result.capabilities) === JSON.stringify(config.capabilities ?? {}))
    result.capabilities = "$capabilities";
}

/** The wire form of one expected message: id forms, our error.data, self-answered results. */
export function wireMessage(
  message: Json,
  selfAnswered: Map<string, readonly number[]>,
  counterOffer: ReadonlySet<string> = new Set(),
  ownVersions = false,
  refusalOnly: ReadonlyMap<string, Json> = new Map(),
): Json {
  if (!isObj(message)) return message;
  const out: Obj = { ...message };
  if (counterOffer.has(idKey(out.id as Json)) && isObj(out.result) && out.result.protocolVersion === "$version")
    out.result = { ...out.result, protocolVersion: "$type:string" };
  const error = out.error;
  if (isObj(error)) {
    // M-10 (policy): the id of a reply to an unreadable message may be null or absent.
    if (out.id === null || out.id === "$absent") out.id = "$nullish";
    // Our error.data.path is ours; the spec defines no data there.
    if (isObj(error.data) && Object.hasOwn(error.data, "path")) {
      const { data: _ignored, ...rest } = error;
      out.error = rest;
    }
  }
  // The implementation's own initialize result may carry instructions and _meta the fixture does not name,
  // and members the schema does not name (InitializeResult sets no additionalProperties): `$open`.
  const result = out.result;
  if (isObj(result) && result.serverInfo === "$serverInfo" && typeof result.protocolVersion === "string") {
    out.result = {
      ...result,
      instructions: { "$if-present": "$type:string" },
      _meta: { "$if-present": "$type:object" },
      ...(Object.hasOwn(result, "instructions") ? { instructions: result.instructions as Json } : {}),
      $open: true,
    };
  }
  // A discover result of the implementation's own identity: instructions the fixture does not name, and
  // members the schema does not name (DiscoverResult sets no additionalProperties either).
  if (isObj(out.result) && Array.isArray(out.result.supportedVersions) && out.result.capabilities === "$capabilities")
    out.result = {
      ...out.result,
      ...(Object.hasOwn(out.result, "instructions") ? {} : { instructions: { "$if-present": "$type:string" } }),
      $open: true,
    };
  // Its cache hints are its own too: either scope, any ttlMs (CacheableResult; "public" and our ttlMs are our choices).
  if (isObj(out.result) && Array.isArray(out.result.supportedVersions) && out.result.capabilities === "$capabilities") {
    const r = out.result;
    out.result = {
      ...r,
      ...(typeof r.cacheScope === "string" ? { cacheScope: { $oneOf: ["public", "private"] } } : {}),
      ...(typeof r.ttlMs === "number" ? { ttlMs: "$type:number" } : {}),
    };
  }
  // The versions a server lists (-32022 data, server/discover) are its own, unless the fixture configures them.
  if (ownVersions) {
    if (isObj(out.error) && isObj(out.error.data) && Array.isArray(out.error.data.supported))
      out.error = { ...out.error, data: { ...out.error.data, supported: "$type:array" } };
    if (isObj(out.result) && Array.isArray(out.result.supportedVersions)) out.result = { ...out.result, supportedVersions: "$type:array" };
  }
  // A form elicitation may name its mode (optional since 2025-11-25, and the default).
  if (out.method === "elicitation/create" && isObj(out.params) && !Object.hasOwn(out.params, "mode"))
    out.params = { ...out.params, mode: { "$if-present": "form" } };
  // A cancellation may give a reason (optional in every revision), even where the fixture's host gave none.
  if (out.method === "notifications/cancelled" && isObj(out.params) && !Object.hasOwn(out.params, "reason"))
    out.params = { ...out.params, reason: { "$if-present": "$type:string" } };
  const answered = selfAnswered.get(idKey(out.id as Json));
  if (answered !== undefined && (Object.hasOwn(out, "result") || Object.hasOwn(out, "error"))) {
    const refusal = refusalOnly.get(idKey(out.id as Json));
    if (refusal !== undefined && isObj(out.error))
      return { jsonrpc: "2.0", id: out.id as Json, error: { code: refusal, message: "$type:string" } };
    // A task the implementation creates is its own, but its answer is CreateTaskResult, a task starting `working` (TK-03, TK-02).
    const created = isObj(out.result) && isObj(out.result.task);
    const ok: Obj = { jsonrpc: "2.0", id: out.id as Json, result: created ? CREATED_TASK : "$type:object" };
    // Tolerated refusals: of a name the implementation does not know (invalid params, resource not
    // found), and the code the fixture's own host answered with.
    return answered.length > 0
      ? {
          $oneOf: [
            ok,
            {
              jsonrpc: "2.0",
              id: out.id as Json,
              error: { code: answered.length === 1 ? (answered[0] as number) : { $oneOf: [...answered] }, message: "$type:string" },
            },
          ],
        }
      : ok;
  }
  return out;
}

/**
 * 2026-07-28 results name the server in `_meta` (a SHOULD): where the fixture names the configured
 * identity, the implementation's own may stand there, or nothing.
 */
export function ownServerInfo(wire: Json, info: Json | undefined): Json {
  if (Array.isArray(wire)) return wire.map((m) => ownServerInfo(m, info));
  if (!isObj(wire)) return wire;
  if (Array.isArray(wire.$oneOf)) return { ...wire, $oneOf: wire.$oneOf.map((m) => ownServerInfo(m, info)) };
  if (Array.isArray(wire.$unordered)) return { ...wire, $unordered: wire.$unordered.map((m) => ownServerInfo(m, info)) };
  const result = wire.result;
  if (!isObj(result) || typeof result.resultType !== "string" || !isObj(result._meta) || info === undefined) return wire;
  if (JSON.stringify(result._meta[SERVER_INFO_META]) !== JSON.stringify(info)) return wire;
  return { ...wire, result: { ...result, _meta: { ...result._meta, [SERVER_INFO_META]: { "$if-present": "$serverInfo" } } } };
}
