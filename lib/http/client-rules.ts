// Pure decisions of the Streamable HTTP client: how request headers are encoded (the 2026-07-28
// headers, `=?base64?…?=`; RULES.md MOD-18, MOD-19, TX-09), how a status is read (success, an
// authorization challenge, AUTH-08; a recognized modern error, MOD-20, MOD-24; the media type),
// and when an initialize failure means "try the deprecated HTTP+SSE transport" (HTTP-04). The
// transport (lib/http-client/transport.ts) keeps the fetch calls, streams and retries; it asks
// here what they mean.
//
// Invariants: total over unknown input; no I/O, no clock, no Promise.

import { isJsonObject } from "../wire/envelope.js";
import { ErrorCode } from "../wire/errors.js";
import { methodTraits } from "../rules/methods.js";
import { META_PROTOCOL_VERSION } from "../rules/modern.js";
import { VERSION_PROFILES, isProtocolVersion } from "../rules/versions.js";
import { valueAtPath, type HeaderParam } from "./headers.js";
import { encodeUtf8 } from "../wire/utf8.js";

const MODERN_400_CODES: ReadonlySet<number> = new Set([
  ErrorCode.HeaderMismatch,
  ErrorCode.MissingRequiredClientCapability,
  ErrorCode.UnsupportedProtocolVersion,
]);

/**
 * Whether an HTTP error answer is a recognized 2026-07-28 JSON-RPC error (MOD-20, MOD-24): 400 with
 * -32020, -32021 or -32022, or 404 with -32601. `body` is the response text or its parsed
 * JSON. A dual-era client that gets anything else to its first modern request (an empty or
 * unrecognized body, another status) is talking to an older server and falls back to
 * initialize (and, from there, possibly to HTTP+SSE).
 */
export function isModernErrorResponse(status: number, body: unknown): boolean {
  let value = body;
  if (typeof body === "string") {
    try {
      value = JSON.parse(body) as unknown;
    } catch {
      return false;
    }
  }
  if (!isJsonObject(value) || !isJsonObject(value.error)) return false;
  const code = value.error.code;
  if (typeof code !== "number" || !Number.isInteger(code) || typeof value.error.message !== "string") return false;
  return (status === 400 && MODERN_400_CODES.has(code)) || (status === 404 && code === ErrorCode.MethodNotFound);
}

const BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const SENTINEL = /^=\?base64\?.*\?=$/;

/**
 * A header value as 2026-07-28 sends it (MOD-18): as is when it is visible ASCII (spaces inside
 * allowed) without leading or trailing whitespace; otherwise (non-ASCII, control characters,
 * edge whitespace, or a value that itself looks like the sentinel) `=?base64?…?=` of its UTF-8.
 */
export function encodeHeaderValue(value: string): string {
  if (/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !SENTINEL.test(value)) return value;
  const bytes = encodeUtf8(value);
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i] as number;
    const b = i + 1 < bytes.length ? (bytes[i + 1] as number) : 0;
    const c = i + 2 < bytes.length ? (bytes[i + 2] as number) : 0;
    const n = (a << 16) | (b << 8) | c;
    out += BASE64_ALPHABET.charAt((n >> 18) & 63) + BASE64_ALPHABET.charAt((n >> 12) & 63);
    out += i + 1 < bytes.length ? BASE64_ALPHABET.charAt((n >> 6) & 63) : "=";
    out += i + 2 < bytes.length ? BASE64_ALPHABET.charAt(n & 63) : "=";
  }
  return `=?base64?${out}?=`;
}

/** An argument as its Mcp-Param header carries it (MOD-19); undefined for null, absent, or a value no header can carry. */
export function paramHeaderValue(value: unknown): string | undefined {
  if (typeof value === "string") return encodeHeaderValue(value);
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

/** AUTH-08: 401, or 403: the endpoint wants (other) credentials (an authorization challenge, never a fallback). */
export function isAuthChallenge(status: number): boolean {
  return status === 401 || status === 403;
}

export function isOk(status: number): boolean {
  return status >= 200 && status < 300;
}

/** The media type of a Content-Type header, lower-cased, without parameters ("" when absent). */
export function mediaType(header: string | null): string {
  if (header === null) return "";
  const semicolon = header.indexOf(";");
  return (semicolon < 0 ? header : header.slice(0, semicolon)).trim().toLowerCase();
}

/**
 * HTTP-04: whether an initialize answered `status` means "try HTTP+SSE": under the
 * versions with the narrow rule (strictLegacyFallback) only 400, 404 and 405; under older
 * offers any 4xx. An unknown offered version takes the narrow rule.
 */
export function legacyFallbackStatus(offered: unknown, status: number): boolean {
  const narrow = isProtocolVersion(offered) ? VERSION_PROFILES[offered].strictLegacyFallback : true;
  return narrow ? status === 400 || status === 404 || status === 405 : status >= 400 && status < 500;
}

/**
 * The 2026-07-28 request headers (MOD-18) of one message: MCP-Protocol-Version (the `_meta`
 * version, else `fallbackVersion`), Mcp-Method, Mcp-Name for the methods that name their
 * target (the method table's nameParam), and for tools/call an Mcp-Param-{Name} for each
 * argument the tool declares with x-mcp-header (`paramsOf`); null or absent ones get none.
 */
export function modernRequestHeaders(
  message: unknown,
  fallbackVersion: string,
  paramsOf: (tool: string) => readonly HeaderParam[] | undefined,
): { headers: Record<string, string>; version: string } {
  const headers: Record<string, string> = {};
  if (!isJsonObject(message)) return { headers, version: fallbackVersion };
  const params = isJsonObject(message.params) ? message.params : undefined;
  const meta = params?._meta;
  const declared = isJsonObject(meta) ? meta[META_PROTOCOL_VERSION] : undefined;
  const version = typeof declared === "string" ? declared : fallbackVersion;
  headers["MCP-Protocol-Version"] = version;
  if (typeof message.method !== "string") return { headers, version };
  headers["Mcp-Method"] = encodeHeaderValue(message.method);
  const nameKey = methodTraits(message.method)?.nameParam;
  const name = nameKey === undefined ? undefined : params?.[nameKey];
  if (typeof name === "string") headers["Mcp-Name"] = encodeHeaderValue(name); // TX-09 for the tasks extension's requests
  if (message.method === "tools/call" && typeof name === "string") {
    for (const param of paramsOf(name) ?? []) {
      const value = paramHeaderValue(valueAtPath(params?.arguments, param.path));
      if (value !== undefined) headers[`Mcp-Param-${param.header}`] = value;
    }
  }
  return { headers, version };
}
