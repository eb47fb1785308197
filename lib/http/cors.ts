// Cross-origin access to the Streamable HTTP endpoint for browser clients (Fetch standard's
// CORS protocol): which origins may call, what a preflight is answered, and which headers a
// cross-origin answer exposes. Off unless origins are configured (RULES.md HTTP-13). Pure:
// headers in, headers out.
//
// Invariants: an origin is allowed only by exact match (scheme, host, port), or all with "*";
// a preflight from any other origin is refused (403) and an actual request from one gets no
// CORS headers (the browser then hides the answer); answers vary on Origin. A browser may send
// a DPoP proof and read the DPoP-Nonce of an answer (RULES.md AUTH-21).

export interface CorsOptions {
  /** Origins allowed to call ("https://app.example", "http://localhost:5173"), or "*" for any. */
  readonly origins: readonly string[] | "*";
  /** How long a browser may cache a preflight's answer, in seconds. Default 600. */
  readonly maxAgeSeconds?: number;
}

/** What a browser may send cross-origin: the MCP request headers of both eras, credentials (a DPoP proof too), and any Mcp-Param-*. */
const ALLOWED_REQUEST_HEADERS: ReadonlySet<string> = new Set([
  "content-type",
  "accept",
  "authorization",
  "dpop",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
  "mcp-method",
  "mcp-name",
]);

/** What a browser script may read of an answer: the session id, the version, the 2026-07-28 headers, the auth challenge and DPoP nonce. */
export const EXPOSED_HEADERS = "Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name, WWW-Authenticate, DPoP-Nonce, Retry-After";

const METHODS = "GET, POST, DELETE, OPTIONS";

export function corsOriginAllowed(cors: CorsOptions | undefined, origin: string | undefined): boolean {
  if (cors === undefined || origin === undefined) return false;
  if (cors.origins === "*") return true;
  const wanted = origin.trim().toLowerCase();
  return cors.origins.some((o) => o.toLowerCase().replace(/\/+$/, "") === wanted);
}

/** Whether a request is a CORS preflight (OPTIONS with Origin and Access-Control-Request-Method). */
export function isPreflight(method: string, origin: string | undefined, requestMethod: string | undefined): boolean {
  return method === "OPTIONS" && origin !== undefined && requestMethod !== undefined;
}

/**
 * The answer to a preflight: undefined when the origin, the method or a requested header is
 * not allowed (refuse it), else the headers of a 204.
 */
export function preflightHeaders(
  cors: CorsOptions | undefined,
  origin: string,
  requestMethod: string,
  requestHeaders: string | undefined,
): Record<string, string> | undefined {
  if (!corsOriginAllowed(cors, origin) || !METHODS.split(", ").includes(requestMethod.trim().toUpperCase())) return undefined;
  const asked = (requestHeaders ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== "");
  for (const name of asked) if (!ALLOWED_REQUEST_HEADERS.has(name) && !/^mcp-param-[!#$%&'*+\-.^_`|~0-9a-z]+$/.test(name)) return undefined;
  const headers: Record<string, string> = {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Allow-Methods": METHODS,
    "Access-Control-Max-Age": String(cors?.maxAgeSeconds ?? 600),
    Vary: "Origin",
  };
  if (asked.length > 0) headers["Access-Control-Allow-Headers"] = asked.join(", ");
  return headers;
}

/** The headers an actual cross-origin answer carries (none when the origin is not allowed). */
export function corsResponseHeaders(cors: CorsOptions | undefined, origin: string | undefined): Record<string, string> | undefined {
  if (origin === undefined || !corsOriginAllowed(cors, origin)) return undefined;
  return { "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": EXPOSED_HEADERS, Vary: "Origin" };
}
