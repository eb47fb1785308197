// The stateless revision 2026-07-28 ("modern" era) as pure functions: the per-request `_meta`
// envelope (RULES.md MOD-01, MOD-03, MOD-06), the checks on input-required results (MOD-02,
// MOD-10), result decoration (MOD-05, MOD-11, MOD-16), server/discover (MOD-07, MOD-08) and
// subscription filters (MOD-12, MOD-14, TX-10). The Streamable HTTP header rules are in
// lib/http/headers.ts; the state of the era (open listen streams) in lib/engine/modern-server.ts.
//
// Invariants:
// - nothing here keeps state: every request carries its own version, client capabilities
//   and client info (servers MUST NOT infer them from earlier requests);
// - refusals carry the wire code, the `data` the schema defines for it, and the HTTP status
//   the transport must use;
// - params and results are never mutated: decorating a result makes a shallow copy.

import { Cap, capabilityMask, capabilityObject } from "./capabilities.js";
import { isJsonObject, type JsonObject } from "../wire/envelope.js";
import { ErrorCode, describeValue } from "../wire/errors.js";
import { severityOf } from "./features.js";
import { INPUT_REQUEST_METHODS, inputRequestCapabilities, methodsWhere } from "./methods.js";

export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
export const META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
export const META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

/** What one modern request says about its client. */
export interface ModernRequestInfo {
  readonly version: string;
  readonly clientCapabilities: JsonObject;
  readonly clientInfo: JsonObject | undefined;
  readonly logLevel: string | undefined;
  /** clientCapabilities as a bitmask (lib/rules/capabilities.ts). */
  readonly capabilityMask: number;
}

/** A refusal with everything a transport needs to answer it. */
export interface ModernRefusal {
  readonly code: number;
  readonly message: string;
  readonly data: unknown;
  /** The HTTP status for this refusal (400, or 404 for an unknown method). */
  readonly httpStatus: number;
  readonly rule: string;
  readonly expected: string;
  readonly got: string;
}

function refusal(
  code: number,
  message: string,
  data: unknown,
  httpStatus: number,
  rule: string,
  expected: string,
  got: string,
): ModernRefusal {
  return { code, message, data, httpStatus, rule, expected, got };
}

function isImplementation(value: unknown): boolean {
  return isJsonObject(value) && typeof value.name === "string" && typeof value.version === "string";
}

/** True when params carry the modern envelope (used by a dual-era server to pick the era of a connection). */
export function hasModernEnvelope(params: JsonObject | undefined): boolean {
  const meta = params?._meta;
  return isJsonObject(meta) && meta[META_PROTOCOL_VERSION] !== undefined;
}

/**
 * Reads the per-request envelope (MOD-01): protocolVersion and clientCapabilities are required
 * (-32602), the version must be one we speak (-32022 with supported and requested).
 */
export function readRequestEnvelope(
  params: JsonObject | undefined,
  supported: readonly string[],
  anyVersion = false,
  advertised: readonly string[] = supported,
): ModernRequestInfo | ModernRefusal {
  const meta = params?._meta;
  const missing = (path: string, expected: string, got: unknown): ModernRefusal =>
    refusal(
      ErrorCode.InvalidParams,
      "Invalid params: missing or malformed request metadata",
      { path, expected },
      400,
      "MOD-01",
      `${path}: ${expected}`,
      describeValue(got),
    );
  if (!isJsonObject(meta)) return missing("params._meta", "an object with the per-request protocol fields", meta);
  const version = meta[META_PROTOCOL_VERSION];
  if (typeof version !== "string") return missing(`params._meta["${META_PROTOCOL_VERSION}"]`, "a protocol version string", version);
  const caps = meta[META_CLIENT_CAPABILITIES];
  if (!isJsonObject(caps)) return missing(`params._meta["${META_CLIENT_CAPABILITIES}"]`, "a ClientCapabilities object", caps);
  const info = meta[META_CLIENT_INFO];
  if (info !== undefined && !isImplementation(info))
    return missing(`params._meta["${META_CLIENT_INFO}"]`, "an Implementation {name, version}", info);
  // MOD-03: the level a request's log messages are sent at, when it names one.
  const level = meta[META_LOG_LEVEL];
  if (level !== undefined && severityOf(level) === undefined) {
    return missing(`params._meta["${META_LOG_LEVEL}"]`, "a logging level (debug … emergency)", level);
  }
  // MOD-08: server/discover is answered whatever version it names, so a client can learn ours.
  if (!anyVersion && !supported.includes(version)) {
    return refusal(
      ErrorCode.UnsupportedProtocolVersion,
      "Unsupported protocol version",
      { supported: [...advertised], requested: version },
      400,
      "MOD-06",
      `a version among ${supported.join(", ")}`,
      JSON.stringify(version),
    );
  }
  return {
    version,
    clientCapabilities: caps,
    clientInfo: info as JsonObject | undefined,
    logLevel: level as string | undefined,
    capabilityMask: capabilityMask(caps),
  };
}

/** The envelope a modern client puts in every request's params._meta. */
export function requestEnvelope(
  version: string,
  clientCapabilities: JsonObject,
  clientInfo: JsonObject | undefined,
  logLevel: string | undefined,
): JsonObject {
  const meta: JsonObject = { [META_PROTOCOL_VERSION]: version, [META_CLIENT_CAPABILITIES]: clientCapabilities };
  if (clientInfo !== undefined) meta[META_CLIENT_INFO] = clientInfo;
  if (logLevel !== undefined) meta[META_LOG_LEVEL] = logLevel;
  return meta;
}

/** Params with the envelope merged into `_meta` (a shallow copy; the caller's object is left alone). */
export function withEnvelope(params: JsonObject | undefined, envelope: JsonObject): JsonObject {
  const meta = params !== undefined && isJsonObject(params._meta) ? params._meta : undefined;
  return { ...params, _meta: { ...meta, ...envelope } };
}

/** The methods whose result may be input_required (MOD-10): a column of the method table. */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = methodsWhere((t) => t.inputRequired);

/** The client capabilities one input request needs (MOD-02), as a capability object and as bits: columns of the method table. */
function inputRequestNeeds(request: unknown): { caps: JsonObject; bits: number } | string {
  if (!isJsonObject(request) || typeof request.method !== "string") return "an input request {method, params}";
  const bits = inputRequestCapabilities(request.method, isJsonObject(request.params) ? request.params : {});
  if (bits === undefined) return `a request of ${INPUT_REQUEST_METHODS.join(", ")} (got ${request.method})`;
  return { caps: capabilityObject(bits), bits };
}

function mergeCaps(into: JsonObject, add: JsonObject): void {
  for (const [key, value] of Object.entries(add)) {
    const existing = into[key];
    if (isJsonObject(existing) && isJsonObject(value)) mergeCaps(existing, value);
    else into[key] = isJsonObject(value) ? { ...value } : value;
  }
}

/**
 * Checks an input-required result a server is about to send: only for tools/call,
 * prompts/get and resources/read; at least one of inputRequests and requestState; every
 * input request of a kind this request's client declared. Returns the problem, with the
 * capabilities missing (for a -32021 answer) when that is the problem.
 */
export function inputRequiredProblem(
  method: string,
  result: JsonObject,
  info: ModernRequestInfo,
): { rule: string; expected: string; got: string; missing: JsonObject | undefined } | undefined {
  if (!INPUT_REQUIRED_METHODS.has(method))
    return {
      rule: "MOD-10",
      expected: "input_required only for tools/call, prompts/get and resources/read",
      got: method,
      missing: undefined,
    };
  const requests = result.inputRequests;
  if (requests === undefined && typeof result.requestState !== "string")
    return { rule: "MOD-10", expected: "inputRequests or requestState", got: "neither", missing: undefined };
  if (requests !== undefined && !isJsonObject(requests))
    return { rule: "MOD-10", expected: "inputRequests as an object", got: describeValue(requests), missing: undefined };
  if (result.requestState !== undefined && typeof result.requestState !== "string")
    return { rule: "MOD-10", expected: "requestState as a string", got: describeValue(result.requestState), missing: undefined };
  const missing: JsonObject = {};
  let lacking = false;
  for (const [key, request] of Object.entries(requests ?? {})) {
    const needs = inputRequestNeeds(request);
    if (typeof needs === "string")
      return { rule: "MOD-10", expected: `inputRequests.${key}: ${needs}`, got: describeValue(request), missing: undefined };
    if ((info.capabilityMask & needs.bits) !== needs.bits) {
      mergeCaps(missing, needs.caps);
      lacking = true;
    }
  }
  return lacking
    ? {
        rule: "MOD-02",
        expected: "input requests of kinds the request's clientCapabilities declare",
        got: `missing ${JSON.stringify(missing)}`,
        missing,
      }
    : undefined;
}

/** The -32021 refusal for capabilities a request lacks. */
export function missingCapabilityRefusal(missing: JsonObject): ModernRefusal {
  return refusal(
    ErrorCode.MissingRequiredClientCapability,
    "Missing required client capability",
    { requiredCapabilities: missing },
    400,
    "MOD-02",
    "a client capability declared in the request",
    JSON.stringify(missing),
  );
}

/** A result as a modern server sends it: resultType present ("complete" unless set, MOD-11), serverInfo in _meta when given (MOD-05). */
export function decorateResult(result: JsonObject, serverInfo: JsonObject | undefined): JsonObject {
  const hasType = typeof result.resultType === "string";
  if (hasType && serverInfo === undefined) return result;
  const out: JsonObject = hasType ? { ...result } : { resultType: "complete", ...result };
  if (serverInfo !== undefined) {
    const meta = isJsonObject(result._meta) ? result._meta : undefined;
    if (meta === undefined || meta[META_SERVER_INFO] === undefined) out._meta = { ...meta, [META_SERVER_INFO]: serverInfo };
  }
  return out;
}

/** Results that must say how long they stay fresh (CacheableResult, MOD-16): discover, the four lists and resources/read; a column of the method table. */
export const CACHEABLE_METHODS: ReadonlySet<string> = methodsWhere((t) => t.cacheable);

/**
 * A complete result of a cacheable method with ttlMs and cacheScope present: what the host
 * set, else the safe defaults (stale at once, not shared across authorization contexts).
 */
export function withCacheFields(result: JsonObject): JsonObject {
  if (typeof result.ttlMs === "number" && (result.cacheScope === "public" || result.cacheScope === "private")) return result;
  return {
    ...result,
    ttlMs: typeof result.ttlMs === "number" && result.ttlMs >= 0 ? result.ttlMs : 0,
    cacheScope: result.cacheScope === "public" ? "public" : "private",
  };
}

/** The result types a client understands: missing means "complete" (MOD-11); anything else unknown is invalid. */
export function resultTypeOf(result: JsonObject, known: ReadonlySet<string> = CORE_RESULT_TYPES): string | undefined {
  const type = result.resultType;
  if (type === undefined) return "complete";
  return typeof type === "string" && known.has(type) ? type : undefined;
}

export const CORE_RESULT_TYPES: ReadonlySet<string> = new Set(["complete", "input_required"]);

export interface DiscoverOptions {
  supportedVersions: readonly string[];
  capabilities: JsonObject;
  serverInfo: JsonObject;
  instructions: string | undefined;
  /** Default 0 (stale at once): capabilities may change when tools are registered. */
  ttlMs?: number;
}

/** The server/discover result (MOD-07). */
export function discoverResult(options: DiscoverOptions): JsonObject {
  const result: JsonObject = {
    resultType: "complete",
    supportedVersions: [...options.supportedVersions],
    capabilities: options.capabilities,
    ttlMs: options.ttlMs ?? 0,
    cacheScope: "public",
    _meta: { [META_SERVER_INFO]: options.serverInfo },
  };
  if (options.instructions !== undefined) result.instructions = options.instructions;
  return result;
}

export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** Tasks extension: the tasks whose notifications/tasks this stream carries (lib/rules/negotiated-extensions.ts listenTaskIds). */
  taskIds?: string[];
}

/** MOD-12: the subset of a requested filter the server honours, given its capabilities; undefined when malformed. */
export function acceptedFilter(requested: unknown, serverCaps: number): SubscriptionFilter | undefined {
  if (!isJsonObject(requested)) return undefined;
  const out: SubscriptionFilter = {};
  const flag = (name: "toolsListChanged" | "promptsListChanged" | "resourcesListChanged", bit: number): boolean => {
    const value = requested[name];
    if (value === undefined) return true;
    if (typeof value !== "boolean") return false;
    if (value && (serverCaps & bit) !== 0) out[name] = true;
    return true;
  };
  if (
    !flag("toolsListChanged", Cap.toolsListChanged) ||
    !flag("promptsListChanged", Cap.promptsListChanged) ||
    !flag("resourcesListChanged", Cap.resourcesListChanged)
  )
    return undefined;
  const uris = requested.resourceSubscriptions;
  if (uris !== undefined) {
    if (!Array.isArray(uris) || !uris.every((u) => typeof u === "string")) return undefined;
    if ((serverCaps & Cap.resourcesSubscribe) !== 0 && uris.length > 0) out.resourceSubscriptions = [...(uris as string[])];
  }
  return out;
}

/** Whether a subscription with `filter` wants the change notification `method` (with `params`): MOD-14; notifications/tasks only for a task it named (TX-10). */
export function filterWants(filter: SubscriptionFilter, method: string, params: JsonObject | undefined): boolean {
  switch (method) {
    case "notifications/tools/list_changed":
      return filter.toolsListChanged === true;
    case "notifications/prompts/list_changed":
      return filter.promptsListChanged === true;
    case "notifications/resources/list_changed":
      return filter.resourcesListChanged === true;
    case "notifications/tasks":
      return typeof params?.taskId === "string" && filter.taskIds !== undefined && filter.taskIds.includes(params.taskId);
    case "notifications/resources/updated": {
      const uri = params?.uri;
      if (typeof uri !== "string" || filter.resourceSubscriptions === undefined) return false;
      return filter.resourceSubscriptions.some((s) => uri === s || uri.startsWith(s.endsWith("/") ? s : `${s}/`));
    }
    default:
      return false;
  }
}
