// OAuth as an option of the HTTP client transport: `connectHttp({ ..., auth: httpOAuth({...}) })`.
// The transport reaches the authorization flow (oauth.ts, lib/auth) only through the HttpAuth
// it is given, so an application that connects without auth bundles none of it. On Node,
// connectHttpNode and nodeHttpTransport take the plain options and make the HttpAuth themselves
// (lib/hosts/http-client-node.ts).
//
// Invariant: an HttpAuth holds options only; each transport opens its own OAuthClient (its
// tokens, its running flow), so one HttpAuth may serve several connections that share a store.

import { OAuthClient, type AuthIo, type HttpAuthOptions } from "./oauth.js";

/** What httpOAuth returns, for HttpClientTransportOptions.auth. */
export interface HttpAuth {
  readonly options: HttpAuthOptions;
  /** @internal The OAuth client of one transport, over that transport's fetch and timers. */
  open<S>(io: AuthIo<S>): OAuthClient<S>;
  /** @internal This HttpAuth, with `requestTimeoutMs` when its options name none (AUTH-16: the caller's request timeout). */
  withRequestTimeout(ms: number): HttpAuth;
}

/**
 * OAuth for an HTTP client transport (MCP authorization, lib/auth): a 401 or a 403
 * insufficient_scope from any request runs the authorization flow once and the request is
 * retried with the token. `crypto` and `now` are the host's (connectHttpNode defaults them).
 */
export function httpOAuth(options: HttpAuthOptions): HttpAuth {
  return {
    options,
    open: (io) => new OAuthClient(options, io),
    withRequestTimeout: (ms) =>
      options.requestTimeoutMs === undefined ? httpOAuth({ ...options, requestTimeoutMs: ms }) : httpOAuth(options),
  };
}
