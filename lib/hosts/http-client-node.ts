// The Streamable HTTP client on Node: lib/http-client/transport.ts with Node's own fetch,
// AbortController, the hosts' clock (clock.ts) and setTimeout plugged in. Nothing else lives here;
// every protocol rule stays in the portable transport.
//
// Invariants:
// - the only Node-specific code is the wiring of globals (declared in node.d.ts);
// - any injected piece given in the options wins over the Node default (tests, proxies).

import { webcrypto } from "node:crypto";
import type { HttpAuthOptions } from "../http-client/oauth.js";
import { httpOAuth, type HttpAuth } from "../http-client/http-oauth.js";
import type { NodeAbortSignal } from "./node-shapes.js";
import { HttpClientTransport, connectHttp, type ConnectHttpOptions, type HttpConnection } from "../http-client/transport.js";
import type { FetchLike, HttpClientTransportOptions } from "../http-client/types.js";
import type { HttpTimers } from "../peer/shared/timers.js";
import { epochClock } from "./clock.js";

/** Node's clock (epoch ms that never go backwards: task times told to a peer need the epoch) and timers. */
export const nodeTimers: HttpTimers = {
  now: epochClock,
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle),
};

/** Node's global fetch, typed for the transport. */
export const nodeFetch: FetchLike<NodeAbortSignal> = (url, init) => fetch(url, init);

const nodeAbortController = (): { readonly signal: NodeAbortSignal; abort(reason?: unknown): void } => new AbortController();

type NodeDefaults = "fetch" | "timers" | "createAbortController";

/** OAuth options on Node: Web Crypto and the wall clock default to Node's. */
export type NodeHttpAuthOptions = Omit<HttpAuthOptions, "crypto" | "now"> & Partial<Pick<HttpAuthOptions, "crypto" | "now">>;

export type NodeHttpTransportOptions = Omit<HttpClientTransportOptions<NodeAbortSignal>, NodeDefaults | "auth"> &
  Partial<Pick<HttpClientTransportOptions<NodeAbortSignal>, NodeDefaults>> & { auth?: NodeHttpAuthOptions };

export type NodeConnectHttpOptions = Omit<ConnectHttpOptions<NodeAbortSignal>, NodeDefaults | "auth"> &
  Partial<Pick<ConnectHttpOptions<NodeAbortSignal>, NodeDefaults>> & { auth?: NodeHttpAuthOptions };

/** A transport on Node's globals (attach it to a Client's driver yourself). */
export function nodeHttpTransport(options: NodeHttpTransportOptions): HttpClientTransport<NodeAbortSignal> {
  return new HttpClientTransport<NodeAbortSignal>(withNodeDefaults(options));
}

/** Connects a Client to an MCP endpoint over HTTP from Node; resolves once the session is operating. */
export function connectHttpNode(options: NodeConnectHttpOptions): Promise<HttpConnection<NodeAbortSignal>> {
  return connectHttp<NodeAbortSignal>(withNodeDefaults(options));
}

function withNodeDefaults<
  O extends Partial<Pick<HttpClientTransportOptions<NodeAbortSignal>, NodeDefaults>> & { auth?: NodeHttpAuthOptions },
>(options: O): Omit<O, "auth"> & Pick<HttpClientTransportOptions<NodeAbortSignal>, NodeDefaults> & { auth?: HttpAuth } {
  const { auth } = options;
  return {
    ...options,
    ...(auth !== undefined ? { auth: httpOAuth({ ...auth, crypto: auth.crypto ?? webcrypto, now: auth.now ?? (() => Date.now()) }) } : {}),
    fetch: options.fetch ?? nodeFetch,
    timers: options.timers ?? nodeTimers,
    createAbortController: options.createAbortController ?? nodeAbortController,
  };
}
