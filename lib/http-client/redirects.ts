// Which redirects the HTTP client follows (RULES.md HTTP-14, AUTH-17). Every request of the
// transport and of its OAuth client goes out with `redirect: "manual"`, and each 3xx answer
// comes here to be followed by hand or refused: a fetch that followed redirects itself would
// carry the request's body and headers (a DPoP proof, the session id, an OAuth form with a
// code or a client secret) to wherever the Location points, and only Authorization is dropped
// by fetch on the way. Pure: no I/O; URLs are parsed by lib/auth/encoding.ts.
//
// Invariants:
// - a redirect is followed only to the origin (scheme, host, port) of the request it answers,
//   at most `max` times; any other, one whose target cannot be read (a browser's opaque
//   redirect, a Location that is no http(s) URL), and an answer the fetch reached by following
//   a redirect itself are refused, naming what was expected and what arrived;
// - the method and body go on as fetch would take them (303, and 301/302 after a POST, become
//   a GET without a body); the headers are the caller's to send again.

import { formatUrl, originOf, parseHttpUrl } from "../auth/encoding.js";
import { resolveReference } from "../uri-template/uri-reference.js";
import { HttpTransportError } from "../peer/shared/errors.js";

/** HTTP-14: redirects the transport follows for one request (each within the request's origin). */
export const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** One request on its way: where it goes, with which method and body. */
export interface Hop {
  readonly url: string;
  readonly method: string;
  readonly body: string | undefined;
}

/** What of an answer decides a redirect. */
export interface RedirectAnswer {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly redirected?: boolean;
  readonly type?: string;
}

export type RedirectStep =
  | { readonly kind: "final" }
  | { readonly kind: "follow"; readonly hop: Hop }
  | { readonly kind: "refuse"; readonly expected: string; readonly got: string };

/** A redirect the rules refuse: the request fails with what was expected and what arrived. */
export class HttpRedirectError extends HttpTransportError {
  readonly rule: string;
  readonly expected: string;
  readonly got: string;
  constructor(rule: string, expected: string, got: string, status: number | undefined) {
    const message = `[${rule}] expected ${expected}; got ${got}`;
    super(message, status, undefined, status === undefined ? { cause: message } : { status, cause: message });
    this.name = "HttpRedirectError";
    this.rule = rule;
    this.expected = expected;
    this.got = got;
  }
}

/** True when the answer is a redirect, seen (a 3xx with a Location) or hidden (opaque, or already followed by the fetch). */
export function isRedirect(res: RedirectAnswer): boolean {
  return (
    res.type === "opaqueredirect" || res.redirected === true || (REDIRECT_STATUSES.has(res.status) && res.headers.get("location") !== null)
  );
}

/**
 * The next step after `res` answered `hop`, having followed `followed` redirects already:
 * the answer is final, the redirect is followed (same origin, within `max`), or it is refused.
 */
export function redirectStep(hop: Hop, res: RedirectAnswer, followed: number, max: number): RedirectStep {
  if (res.type === "opaqueredirect")
    return {
      kind: "refuse",
      expected: "a redirect whose target can be checked",
      got: "an opaque redirect (the runtime hides its Location)",
    };
  if (res.redirected === true)
    return {
      kind: "refuse",
      expected: 'a fetch that honours redirect: "manual"',
      got: "an answer the fetch reached by following a redirect itself",
    };
  const location = res.headers.get("location");
  if (!REDIRECT_STATUSES.has(res.status) || location === null) return { kind: "final" };
  const from = parseHttpUrl(hop.url);
  const to = parseHttpUrl(resolveReference(hop.url, location.trim()));
  if (from === undefined || to === undefined)
    return {
      kind: "refuse",
      expected: "a redirect to an http(s) URL",
      got: `HTTP ${res.status} to ${JSON.stringify(location.slice(0, 200))}`,
    };
  if (originOf(to) !== originOf(from))
    return { kind: "refuse", expected: `a redirect within ${originOf(from)}`, got: `HTTP ${res.status} to ${originOf(to)}` };
  if (followed >= max) return { kind: "refuse", expected: `at most ${max} redirects`, got: `redirect ${followed + 1}, HTTP ${res.status}` };
  // As fetch does: 303 (and 301/302 after a POST) asks for a GET of the new URL, without the body.
  const toGet =
    res.status === 303
      ? hop.method !== "GET" && hop.method !== "HEAD"
      : (res.status === 301 || res.status === 302) && hop.method === "POST";
  return {
    kind: "follow",
    hop: toGet ? { url: formatUrl(to), method: "GET", body: undefined } : { url: formatUrl(to), method: hop.method, body: hop.body },
  };
}
