// The Streamable HTTP header rules of 2026-07-28 (RULES.md MOD-20) on both sides: decoding and
// encoding `=?base64?…?=` values, the standard headers (MCP-Protocol-Version, Mcp-Method,
// Mcp-Name) checked against the body, the Mcp-Param-{Name} headers of x-mcp-header tool
// arguments, and the HTTP status a JSON-RPC error travels with. Pure: no I/O, no state.
//
// Invariants: a refusal carries the wire code (-32020), the `data` the schema defines, the
// HTTP status, and the rule with what was expected versus what arrived.

import { isJsonObject, type JsonObject } from "../wire/envelope.js";
import { ErrorCode } from "../wire/errors.js";
import { decodeUtf8 } from "../wire/utf8.js";
import { methodTraits } from "../rules/methods.js";
import { META_PROTOCOL_VERSION, type ModernRefusal } from "../rules/modern.js";

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
    return decodeUtf8(Uint8Array.from(bytes), true);
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
    refusal(
      ErrorCode.HeaderMismatch,
      `Header mismatch: ${what}`,
      { header: what, expected, got: got ?? null },
      400,
      "MOD-18",
      `${what}: ${expected}`,
      got === undefined || got === null ? "absent" : JSON.stringify(got),
    );
  const meta = params?._meta;
  const bodyVersion = isJsonObject(meta) ? meta[META_PROTOCOL_VERSION] : undefined;
  const headerVersion = headers.get("mcp-protocol-version");
  if (typeof bodyVersion === "string" && headerVersion !== bodyVersion) return mismatch("MCP-Protocol-Version", bodyVersion, headerVersion);
  const headerMethod = headers.get("mcp-method");
  if (headerMethod === null || headerMethod === undefined || decodeHeaderValue(headerMethod) !== method)
    return mismatch("Mcp-Method", method, headerMethod);
  const nameKey = methodTraits(method)?.nameParam;
  if (nameKey !== undefined) {
    const bodyName = params?.[nameKey];
    const headerName = headers.get("mcp-name");
    if (typeof bodyName === "string" && (headerName === null || headerName === undefined || decodeHeaderValue(headerName) !== bodyName))
      return mismatch("Mcp-Name", bodyName, headerName);
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
      const where =
        path === undefined
          ? "a place not reachable through properties alone"
          : path.length === 0
            ? "the schema root"
            : `properties.${path.join(".properties.")}`;
      if (path === undefined || path.length === 0) reason = `x-mcp-header at ${where}`;
      else if (typeof declared !== "string" || !TOKEN.test(declared))
        reason = `x-mcp-header ${JSON.stringify(declared)} at ${where} is not an HTTP token`;
      else if (seen.has(declared.toLowerCase())) reason = `x-mcp-header ${JSON.stringify(declared)} is declared twice (case-insensitively)`;
      else if (node.type !== "string" && node.type !== "integer" && node.type !== "boolean")
        reason = `x-mcp-header ${JSON.stringify(declared)} at ${where} is on a property of type ${JSON.stringify(node.type)}, not string, integer or boolean`;
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
      refusal(
        ErrorCode.HeaderMismatch,
        `Header mismatch: ${name} ${what}`,
        { header: name, expected, got: got ?? null },
        400,
        "MOD-18",
        `${name}: ${expected}`,
        got === undefined || got === null ? "absent" : JSON.stringify(got),
      );
    const raw = headers.get(`mcp-param-${param.header.toLowerCase()}`);
    let decoded: string | undefined;
    if (raw !== null && raw !== undefined) {
      if (!/^[\x20-\x7e]*$/.test(raw)) return problem("has characters outside visible ASCII", "visible ASCII, or =?base64?…?=", raw);
      decoded = decodeHeaderValue(raw);
      if (decoded === undefined) return problem("is not valid base64 of UTF-8", "=?base64?<canonical base64>?=", raw);
    }
    const value = valueAtPath(args, param.path);
    if (value === undefined || value === null) continue;
    const expected =
      typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? String(value) : JSON.stringify(value);
    if (decoded === undefined) return problem("is missing while the body carries the argument", expected, raw);
    const equal =
      typeof value === "number"
        ? DECIMAL.test(decoded) && Number(decoded) === value
        : typeof value === "string" || typeof value === "boolean"
          ? decoded === String(value)
          : false;
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
