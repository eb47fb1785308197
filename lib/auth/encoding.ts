// The small encodings OAuth needs, without the URL, URLSearchParams, btoa or Buffer globals
// (the portable layers do not assume them): absolute http(s) URLs split into their RFC 3986
// parts, application/x-www-form-urlencoded bodies and queries, standard base64 for HTTP Basic.
//
// Invariants:
// - nothing here throws on input: a malformed URL or query answers undefined or skips the
//   broken pair (decodeURIComponent's URIError is caught), and a lone surrogate is encoded as
//   U+FFFD (encodeURIComponent's URIError never happens);
// - parsed query pairs go into a Map, never a plain object (names come from a peer).

import { base64urlDecode, base64urlEncode } from "../codec/pagination.js";

export { base64urlDecode, base64urlEncode };

const URI_PARTS = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/;

/** An absolute http(s) URL in parts; scheme and host lowercased (RFC 3986 6.2.2.1), the rest as written. */
export interface HttpUrl {
  readonly scheme: "http" | "https";
  /** host[:port], lowercased; a default port (80 for http, 443 for https) removed. */
  readonly authority: string;
  /** "" or a path starting with "/". */
  readonly path: string;
  readonly query: string | undefined;
  readonly fragment: string | undefined;
}

/** Parses an absolute http: or https: URL; undefined for anything else (relative, other schemes, userinfo, empty host). */
export function parseHttpUrl(text: string): HttpUrl | undefined {
  if (typeof text !== "string" || text.length > 8192) return undefined;
  const m = URI_PARTS.exec(text);
  if (m === null) return undefined;
  const scheme = (m[1] as string).toLowerCase();
  if (scheme !== "http" && scheme !== "https") return undefined;
  let authority = (m[2] as string).toLowerCase();
  // Credentials in a URL are never sent anywhere by us; an empty or whitespace host is no host.
  if (authority === "" || authority.includes("@") || /\s/.test(authority)) return undefined;
  if ((scheme === "http" && authority.endsWith(":80")) || (scheme === "https" && authority.endsWith(":443")))
    authority = authority.slice(0, authority.lastIndexOf(":"));
  return { scheme, authority, path: m[3] as string, query: m[4], fragment: m[5] };
}

/** scheme://authority */
export function originOf(url: HttpUrl): string {
  return `${url.scheme}://${url.authority}`;
}

/** The URL without its fragment, as text. */
export function formatUrl(url: HttpUrl, withQuery = true): string {
  return `${originOf(url)}${url.path}${withQuery && url.query !== undefined ? `?${url.query}` : ""}`;
}

/** Adds query parameters to a URL (after any it has). */
export function withQuery(url: string, params: ReadonlyArray<readonly [string, string]>): string {
  if (params.length === 0) return url;
  const hash = url.indexOf("#");
  const base = hash >= 0 ? url.slice(0, hash) : url;
  return `${base}${base.includes("?") ? "&" : "?"}${formEncode(params)}`;
}

/** application/x-www-form-urlencoded (spaces as "+", everything outside unreserved percent-encoded). */
export function formEncode(params: ReadonlyArray<readonly [string, string]>): string {
  return params.map(([k, v]) => `${formComponent(k)}=${formComponent(v)}`).join("&");
}

/** A surrogate without its pair: it has no UTF-8 form, and encodeURIComponent throws on it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function formComponent(value: string): string {
  // A peer's JSON can carry one ("\ud800" in a client_id or a scope): it goes out as U+FFFD, as TextEncoder writes it.
  return encodeURIComponent(value.replace(LONE_SURROGATE, "\ufffd"))
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, "+");
}

/** Parses a query or form body; the first value of a repeated name wins. Broken percent-escapes skip the pair. */
export function parseQuery(query: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of query.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const rawName = eq >= 0 ? pair.slice(0, eq) : pair;
    const rawValue = eq >= 0 ? pair.slice(eq + 1) : "";
    try {
      const name = decodeURIComponent(rawName.replace(/\+/g, " "));
      const value = decodeURIComponent(rawValue.replace(/\+/g, " "));
      if (!out.has(name)) out.set(name, value);
    } catch {
      // A malformed escape from the network: the pair is dropped, the rest still read.
    }
  }
  return out;
}

/** The query parameters of a URL (the redirect back from an authorization server). */
export function queryOf(url: string): Map<string, string> | undefined {
  const parsed = parseHttpUrl(url);
  if (parsed === undefined) return undefined;
  return parseQuery(parsed.query ?? "");
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Standard padded base64 (RFC 4648 4), for HTTP Basic credentials. */
export function base64Encode(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]!;
    out += i + 1 < bytes.length ? B64[(n >> 6) & 63]! : "=";
    out += i + 2 < bytes.length ? B64[n & 63]! : "=";
  }
  return out;
}

/** `text` as UTF-8 (lone surrogates as U+FFFD), through the core's codec (lib/wire/utf8.ts). */
export { encodeUtf8 as utf8 } from "../wire/utf8.js";

/** Standard base64 (padded or not) decoded; undefined when malformed. */
export function base64Decode(text: string): Uint8Array | undefined {
  const trimmed = text.replace(/=+$/, "");
  if (/[^A-Za-z0-9+/]/.test(trimmed)) return undefined;
  return base64urlDecode(trimmed.replace(/\+/g, "-").replace(/\//g, "_"));
}
