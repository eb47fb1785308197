// The Streamable HTTP hosts for Node (export "./hosts/http"): the server on node:http and
// the client wired to Node's fetch, timers and clock. The client itself is portable and
// lives in lib/peer/http-client.ts.

export { HttpHost, MemorySessionStore, hostnameOf, serveHttp } from "./http-server.js";
export type { HttpServerOptions, RunningHttpServer, SessionStore } from "./http-server.js";
export { connectHttpNode, nodeFetch, nodeHttpTransport, nodeTimers } from "./http-client-node.js";
export type { NodeConnectHttpOptions, NodeHttpAuthOptions, NodeHttpTransportOptions } from "./http-client-node.js";
export type { HttpAuthHook } from "./http-options.js";
export { LegacySseEndpoint } from "./http-legacy.js";
export type { LegacySseOptions } from "./http-legacy.js";
export type { NodeAbortSignal, NodeHttpServerLimits, NodeIncomingMessage, NodeServerResponse } from "./node-shapes.js";
