// Small wire helpers shared by the Streamable HTTP host's modules: header access, JSON-RPC
// error bodies, byte lengths, SSE headers, and the Host/Origin name parser.

import type { IncomingMessage, ServerResponse } from "node:http";

export const SSE_HEADERS = { "Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-transform", Connection: "keep-alive" };

export function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The hostname of a Host header or an Origin URL, lower-cased, without port; undefined if malformed. */
export function hostnameOf(value: string, isOrigin: boolean): string | undefined {
  let rest = value.trim().toLowerCase();
  if (isOrigin) {
    const scheme = rest.indexOf("://");
    if (scheme <= 0) return undefined;
    rest = rest.slice(scheme + 3);
    const slash = rest.indexOf("/");
    if (slash >= 0) rest = rest.slice(0, slash);
  }
  if (rest.startsWith("[")) {
    const close = rest.indexOf("]");
    if (close < 0) return undefined;
    const after = rest.slice(close + 1);
    if (after !== "" && !/^:\d+$/.test(after)) return undefined;
    return rest.slice(0, close + 1);
  }
  const colon = rest.indexOf(":");
  const name = colon >= 0 ? rest.slice(0, colon) : rest;
  if (colon >= 0 && !/^\d+$/.test(rest.slice(colon + 1))) return undefined;
  return name === "" ? undefined : name;
}

export function jsonRpcError(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", error: { code, message } });
}


/**
 * The request's body will not be read: stop reading it, tell the client the connection ends
 * (Connection: close, when the head is not out yet) and destroy the socket once the answer
 * is flushed, so a body without end (chunked) costs nothing more.
 */
export function closeAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  if (!res.headersSent) res.setHeader("Connection", "close");
  req.pause();
  const socket = req.socket;
  const destroy = (): void => {
    if (!socket.destroyed) socket.destroy();
  };
  res.on("finish", destroy);
  res.on("close", destroy);
}
