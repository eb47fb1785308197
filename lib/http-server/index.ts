// Streamable HTTP without Node (export "mcp-engine/http"): createHttpHandler(server, options)
// gives a web-standard fetch handler for Bun.serve, Deno.serve, Workers and any framework that
// hands out Request objects; the stores behind it (sessions, resumable stream events) with
// their in-memory defaults; and the pure rules of lib/http/ for those who build their own.

import { reportError, webTimers } from "../hosts/web/runtime.js";
import type { Server } from "../peer/server/server.js";
import { createFetchHandler, type HttpHandler, type HttpHandlerOptions } from "./fetch.js";

/** A fetch handler serving `server` over Streamable HTTP (both eras, JSON and SSE, resumable streams). */
export function createHttpHandler(server: Server, options: HttpHandlerOptions = {}): HttpHandler {
  return createFetchHandler(server, options, options.timers ?? webTimers, reportError);
}

export type { HttpHandler, HttpHandlerOptions } from "./fetch.js";
export { HttpEndpoint } from "./endpoint.js";
export type { BodyRead, HttpIncoming, HttpReply } from "./channel.js";
export { MemoryEventStore, MemorySessionStore, REQUEST_ID_BLOCK } from "./options.js";
export { MemoryBusHub, StandaloneBus, parseBusMessage } from "./bus.js";
export type { BusMessage, MessageBus } from "./bus.js";
export type { EventStore, HttpServerOptions, MemoryEventStoreOptions, SessionStore, StoredEvent } from "./options.js";
export type { AuthInfo } from "../auth/types.js";
export type { WebRequest, WebResponse } from "./web-types.js";
export type { LegacySseOptions } from "./legacy-sse.js";
export type { CorsOptions } from "../http/cors.js";
export { EXPOSED_HEADERS } from "../http/cors.js";
export { REFUSALS, HttpStatus } from "../http/status.js";
export type { RefusalKind } from "../http/status.js";
export { hostnameOf } from "../http/server-rules.js";
export { webTimers } from "../hosts/web/runtime.js";
