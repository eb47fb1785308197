// The Streamable HTTP hosts for Node (export "./hosts/http"): the server on node:http (and
// toNodeHandler for Express-style middleware) and the client wired to Node's fetch, timers
// and clock. The endpoint itself is portable (lib/http-server/, export "./http"), and so is
// the client (lib/http-client/transport.ts).

export { HttpHost, LegacySseEndpoint, serveHttp, toNodeHandler } from "./http-server.js";
export { hostnameOf } from "../http/server-rules.js";
export type { RunningHttpServer } from "./http-server.js";
export { connectHttpNode, nodeFetch, nodeHttpTransport, nodeTimers } from "./http-client-node.js";
export type { NodeConnectHttpOptions, NodeHttpAuthOptions, NodeHttpTransportOptions } from "./http-client-node.js";
export { type HttpAuthHook, MemorySessionStore, type HttpServerOptions, type SessionStore } from "../http-server/options.js";
export type { LegacySseOptions } from "../http-server/legacy-sse.js";
export type { NodeAbortSignal, NodeHttpServerLimits, NodeIncomingMessage, NodeServerResponse } from "./node-shapes.js";
