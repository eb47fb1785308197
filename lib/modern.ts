// The stateless revision 2026-07-28 ("modern" era, RULES.md MOD-01…MOD-24) as pure functions: the
// per-request `_meta` envelope, the checks on input-required results, result decoration,
// server/discover, subscription filters, and the Streamable HTTP header rules (the standard
// headers and the Mcp-Param-{Name} headers of x-mcp-header tool arguments).
//
// Invariants:
// - nothing here keeps state: every request carries its own version, client capabilities
//   and client info (servers MUST NOT infer them from earlier requests);
// - refusals carry the wire code, the `data` the schema defines for it, and the HTTP status
//   the transport must use;
// - params and results are never mutated: decorating a result makes a shallow copy.

import { Cap, capabilityMask } from "./capabilities.js";
import { isJsonObject, type JsonObject } from "./envelope.js";
import { ErrorCode, describeValue } from "./errors.js";
import { severityOf } from "./features.js";
import { methodTraits, methodsWhere } from "./methods.js";

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
  /** clientCapabilities as a bitmask (lib/capabilities.ts). */
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

function refusal(code: number, message: string, data: unknown, httpStatus: number, rule: string, expected: string, got: string): ModernRefusal {
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
export function readRequestEnvelope(params: JsonObject | undefined, supported: readonly string[], anyVersion = false, advertised: readonly string[] = supported): ModernRequestInfo | ModernRefusal {
  const meta = params?._meta;
  const missing = (path: string, expected: string, got: unknown): ModernRefusal =>
    refusal(ErrorCode.InvalidParams, "Invalid params: missing or malformed request metadata", { path, expected }, 400, "MOD-01", `${path}: ${expected}`, describeValue(got));
  if (!isJsonObject(meta)) return missing("params._meta", "an object with the per-request protocol fields", meta);
  const version = meta[META_PROTOCOL_VERSION];
  if (typeof version !== "string") return missing(`params._meta["${META_PROTOCOL_VERSION}"]`, "a protocol version string", version);
  const caps = meta[META_CLIENT_CAPABILITIES];
  if (!isJsonObject(caps)) return missing(`params._meta["${META_CLIENT_CAPABILITIES}"]`, "a ClientCapabilities object", caps);
  const info = meta[META_CLIENT_INFO];
  if (info !== undefined && !isImplementation(info)) return missing(`params._meta["${META_CLIENT_INFO}"]`, "an Implementation {name, version}", info);
  const level = meta[META_LOG_LEVEL];
  if (level !== undefined && severityOf(level) === undefined) {
    return missing(`params._meta["${META_LOG_LEVEL}"]`, "a logging level (debug … emergency)", level);
  }
  // server/discover is answered whatever version it names, so a client can learn ours (issue 7/6 item 3).
  if (!anyVersion && !supported.includes(version)) {
    return refusal(ErrorCode.UnsupportedProtocolVersion, "Unsupported protocol version", { supported: [...advertised], requested: version }, 400, "MOD-06", `a version among ${supported.join(", ")}`, JSON.stringify(version));
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
export function requestEnvelope(version: string, clientCapabilities: JsonObject, clientInfo: JsonObject | undefined, logLevel: string | undefined): JsonObject {
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

/** The client capabilities one input request needs, as a capability object and as bits. */
function inputRequestNeeds(request: unknown): { caps: JsonObject; bits: number } | string {
  if (!isJsonObject(request) || typeof request.method !== "string") return "an input request {method, params}";
  const params = isJsonObject(request.params) ? request.params : {};
  switch (request.method) {
    case "elicitation/create":
      return params.mode === "url" ? { caps: { elicitation: { url: {} } }, bits: Cap.elicitationUrl } : { caps: { elicitation: { form: {} } }, bits: Cap.elicitationForm };
    case "sampling/createMessage": {
      let bits: number = Cap.sampling;
      const caps: JsonObject = { sampling: {} };
      if (params.tools !== undefined || params.toolChoice !== undefined) {
        bits |= Cap.samplingTools;
        caps.sampling = { tools: {} };
      }
      return { caps, bits };
    }
    case "roots/list":
      return { caps: { roots: {} }, bits: Cap.roots };
    default:
      return `elicitation/create, sampling/createMessage or roots/list (got ${request.method})`;
  }
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
export function inputRequiredProblem(method: string, result: JsonObject, info: ModernRequestInfo): { rule: string; expected: string; got: string; missing: JsonObject | undefined } | undefined {
  if (!INPUT_REQUIRED_METHODS.has(method)) return { rule: "MOD-10", expected: "input_required only for tools/call, prompts/get and resources/read", got: method, missing: undefined };
  const requests = result.inputRequests;
  if (requests === undefined && typeof result.requestState !== "string") return { rule: "MOD-10", expected: "inputRequests or requestState", got: "neither", missing: undefined };
  if (requests !== undefined && !isJsonObject(requests)) return { rule: "MOD-10", expected: "inputRequests as an object", got: describeValue(requests), missing: undefined };
  if (result.requestState !== undefined && typeof result.requestState !== "string") return { rule: "MOD-10", expected: "requestState as a string", got: describeValue(result.requestState), missing: undefined };
  const missing: JsonObject = {};
  let lacking = false;
  for (const [key, request] of Object.entries(requests ?? {})) {
    const needs = inputRequestNeeds(request);
    if (typeof needs === "string") return { rule: "MOD-10", expected: `inputRequests.${key}: ${needs}`, got: describeValue(request), missing: undefined };
    if ((info.capabilityMask & needs.bits) !== needs.bits) {
      mergeCaps(missing, needs.caps);
      lacking = true;
    }
  }
  return lacking ? { rule: "MOD-02", expected: "input requests of kinds the request's clientCapabilities declare", got: `missing ${JSON.stringify(missing)}`, missing } : undefined;
}

/** The -32021 refusal for capabilities a request lacks. */
export function missingCapabilityRefusal(missing: JsonObject): ModernRefusal {
  return refusal(ErrorCode.MissingRequiredClientCapability, "Missing required client capability", { requiredCapabilities: missing }, 400, "MOD-02", "a client capability declared in the request", JSON.stringify(missing));
}

/** A result as a modern server sends it: resultType present ("complete" unless set), serverInfo in _meta when given. */
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
  return { ...result, ttlMs: typeof result.ttlMs === "number" && result.ttlMs >= 0 ? result.ttlMs : 0, cacheScope: result.cacheScope === "public" ? "public" : "private" };
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
  /** Tasks extension: the tasks whose notifications/tasks this stream carries (lib/extensions.ts listenTaskIds). */
  taskIds?: string[];
}

/** The subset of a requested filter the server honours, given its capabilities; undefined when malformed. */
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
  if (!flag("toolsListChanged", Cap.toolsListChanged) || !flag("promptsListChanged", Cap.promptsListChanged) || !flag("resourcesListChanged", Cap.resourcesListChanged)) return undefined;
  const uris = requested.resourceSubscriptions;
  if (uris !== undefined) {
    if (!Array.isArray(uris) || !uris.every((u) => typeof u === "string")) return undefined;
    if ((serverCaps & Cap.resourcesSubscribe) !== 0 && uris.length > 0) out.resourceSubscriptions = [...(uris as string[])];
  }
  return out;
}

/** Whether a subscription with `filter` wants the change notification `method` (with `params`). */
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

/** Header access by case-insensitive name (a fetch Headers object or a plain lower-cased record both fit). */
export interface HeaderSource {
  get(name: string): string | null | undefined;
}

const SENTINEL_WORD = /^=\?base64\?(.*)\?=$/;
/** Canonical base64: whole quads, padding only at the end and only as much as the length needs. */
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A header value as the sender meant it (MOD-18): a value in the exact `=?base64?…?=` form is
 * decoded (UTF-8); anything else is literal. Undefined when it has that form but its payload
 * is not canonical base64 of UTF-8 (wrong padding, characters outside the alphabet): a sender
 * MUST encode a literal that looks like the sentinel, so such a value is malformed, not literal.
 */
export function decodeHeaderValue(value: string): string | undefined {
  const match = SENTINEL_WORD.exec(value);
  if (match === null) return value;
  const text = match[1] as string;
  if (!CANONICAL_BASE64.test(text)) return undefined;
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const clean = text.replace(/=+$/, "");
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const ch of clean) {
    buffer = ((buffer << 6) | alphabet.indexOf(ch)) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 0xff);
    }
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bytes));
  } catch {
    return undefined;
  }
}

/**
 * The Streamable HTTP header rules of 2026-07-28 (MOD-20) for one POSTed request:
 * MCP-Protocol-Version equals the `_meta` version, Mcp-Method equals the method, Mcp-Name
 * equals the name or uri of tools/call, prompts/get and resources/read. -32020 and 400.
 */
export function httpHeaderProblem(headers: HeaderSource, method: string, params: JsonObject | undefined): ModernRefusal | undefined {
  const mismatch = (what: string, expected: string, got: string | null | undefined): ModernRefusal =>
    refusal(ErrorCode.HeaderMismatch, `Header mismatch: ${what}`, { header: what, expected, got: got ?? null }, 400, "MOD-18", `${what}: ${expected}`, got === undefined || got === null ? "absent" : JSON.stringify(got));
  const meta = params?._meta;
  const bodyVersion = isJsonObject(meta) ? meta[META_PROTOCOL_VERSION] : undefined;
  const headerVersion = headers.get("mcp-protocol-version");
  if (typeof bodyVersion === "string" && headerVersion !== bodyVersion) return mismatch("MCP-Protocol-Version", bodyVersion, headerVersion);
  const headerMethod = headers.get("mcp-method");
  if (headerMethod === null || headerMethod === undefined || decodeHeaderValue(headerMethod) !== method) return mismatch("Mcp-Method", method, headerMethod);
  const nameKey = methodTraits(method)?.nameParam;
  if (nameKey !== undefined) {
    const bodyName = params?.[nameKey];
    const headerName = headers.get("mcp-name");
    if (typeof bodyName === "string" && (headerName === null || headerName === undefined || decodeHeaderValue(headerName) !== bodyName)) return mismatch("Mcp-Name", bodyName, headerName);
  }
  return undefined;
}

/** One tool argument mirrored into an `Mcp-Param-{header}` header (MOD-19, `x-mcp-header`). */
export interface HeaderParam {
  /** The name part, as declared (header names compare case-insensitively). */
  readonly header: string;
  /** The chain of `properties` keys from the schema root to the argument. */
  readonly path: readonly string[];
  readonly type: "string" | "integer" | "boolean";
}

/** RFC 9110 token (1*tchar): what an x-mcp-header value must be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Keywords whose values are data, not schemas: an "x-mcp-header" key inside them annotates nothing. */
const DATA_KEYWORDS: ReadonlySet<string> = new Set(["default", "const", "enum", "examples"]);

/**
 * The `x-mcp-header` declarations of a tool's inputSchema (MOD-19), or why they are invalid:
 * each value a non-empty token, unique case-insensitively, on a `string`, `integer` or
 * `boolean` property reachable from the root through `properties` keys only (an annotation
 * under items, a composition, a conditional or $ref makes the whole tool invalid; a client
 * drops such a tool from tools/list, and a server does not enforce its annotations).
 */
export function headerParamsOf(inputSchema: unknown): { ok: true; params: readonly HeaderParam[] } | { ok: false; reason: string } {
  const params: HeaderParam[] = [];
  const seen = new Set<string>();
  let reason: string | undefined;
  const visit = (node: unknown, path: readonly string[] | undefined): void => {
    if (reason !== undefined) return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item, undefined);
      return;
    }
    if (!isJsonObject(node)) return;
    const declared = node["x-mcp-header"];
    if (declared !== undefined) {
      const where = path === undefined ? "a place not reachable through properties alone" : path.length === 0 ? "the schema root" : `properties.${path.join(".properties.")}`;
      if (path === undefined || path.length === 0) reason = `x-mcp-header at ${where}`;
      else if (typeof declared !== "string" || !TOKEN.test(declared)) reason = `x-mcp-header ${JSON.stringify(declared)} at ${where} is not an HTTP token`;
      else if (seen.has(declared.toLowerCase())) reason = `x-mcp-header ${JSON.stringify(declared)} is declared twice (case-insensitively)`;
      else if (node.type !== "string" && node.type !== "integer" && node.type !== "boolean") reason = `x-mcp-header ${JSON.stringify(declared)} at ${where} is on a property of type ${JSON.stringify(node.type)}, not string, integer or boolean`;
      else {
        seen.add(declared.toLowerCase());
        params.push({ header: declared, path, type: node.type });
      }
      if (reason !== undefined) return;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === "x-mcp-header" || DATA_KEYWORDS.has(key)) continue;
      if (key === "properties" && isJsonObject(value)) {
        // Only a reachable node's properties stay reachable; every other keyword leaves the static chain.
        for (const [name, sub] of Object.entries(value)) visit(sub, path === undefined ? undefined : [...path, name]);
      } else visit(value, undefined);
    }
  };
  visit(inputSchema, []);
  return reason === undefined ? { ok: true, params } : { ok: false, reason };
}

/** The value at a chain of property names, or undefined when some step is missing or not an object. */
export function valueAtPath(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isJsonObject(current)) return undefined;
    current = current[key];
  }
  return current;
}

/** A decimal number as a header carries it (no hex, no blanks, no Infinity). */
const DECIMAL = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/**
 * The `Mcp-Param-{Name}` rules of 2026-07-28 (MOD-19) for one tools/call: for each argument the
 * tool's inputSchema marks with `x-mcp-header`, a value in the body needs the header, equal
 * after `=?base64?…?=` decoding (integers compared as numbers: 42.0 equals 42); a null or
 * absent value expects no header. A declared header with characters outside visible ASCII
 * and space, or a malformed base64 word, is refused even then. -32020 and 400. Undefined
 * when all agree (or the schema's declarations are invalid, hence not enforced).
 */
export function paramHeaderProblem(headers: HeaderSource, inputSchema: unknown, args: unknown): ModernRefusal | undefined {
  const declared = headerParamsOf(inputSchema);
  if (!declared.ok) return undefined;
  for (const param of declared.params) {
    const name = `Mcp-Param-${param.header}`;
    const problem = (what: string, expected: string, got: string | null | undefined): ModernRefusal =>
      refusal(ErrorCode.HeaderMismatch, `Header mismatch: ${name} ${what}`, { header: name, expected, got: got ?? null }, 400, "MOD-18", `${name}: ${expected}`, got === undefined || got === null ? "absent" : JSON.stringify(got));
    const raw = headers.get(`mcp-param-${param.header.toLowerCase()}`);
    let decoded: string | undefined;
    if (raw !== null && raw !== undefined) {
      if (!/^[\x20-\x7e]*$/.test(raw)) return problem("has characters outside visible ASCII", "visible ASCII, or =?base64?…?=", raw);
      decoded = decodeHeaderValue(raw);
      if (decoded === undefined) return problem("is not valid base64 of UTF-8", "=?base64?<canonical base64>?=", raw);
    }
    const value = valueAtPath(args, param.path);
    if (value === undefined || value === null) continue;
    const expected = typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? String(value) : JSON.stringify(value);
    if (decoded === undefined) return problem("is missing while the body carries the argument", expected, raw);
    const equal =
      typeof value === "number" ? DECIMAL.test(decoded) && Number(decoded) === value : typeof value === "string" || typeof value === "boolean" ? decoded === String(value) : false;
    if (!equal) return problem("does not match the body", expected, raw);
  }
  return undefined;
}

/**
 * The HTTP status a JSON-RPC error travels with in 2026-07-28 (MOD-20): unknown method 404;
 * header, capability and version errors, and a malformed per-request envelope, 400; any
 * other error (an unknown tool, say) is an ordinary answer, 200.
 */
export function httpStatusFor(error: { code: number; data?: unknown }): number {
  switch (error.code) {
    case ErrorCode.MethodNotFound:
      return 404;
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
    case ErrorCode.InvalidRequest:
    case ErrorCode.ParseError:
      return 400;
    case ErrorCode.InvalidParams: {
      const path = isJsonObject(error.data) ? error.data.path : undefined;
      return typeof path === "string" && path.startsWith("params._meta") ? 400 : 200;
    }
    default:
      return 200;
  }
}

