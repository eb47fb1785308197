// The text/event-stream encoder of the Streamable HTTP server side (the parser the clients
// use is ./sse-parser.ts): one function per kind of frame the endpoint writes, so every stream
// is framed the same way.
//
// Invariants: data is one line (JSON.stringify never emits a raw line break); every frame ends
// with the blank line that dispatches it; an id or retry field is written only when given.

/** The response headers of an SSE stream. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache, no-transform",
  Connection: "keep-alive",
};

/** 2026-07-28 streams also ask proxies not to buffer (they carry progress of a live request). */
export const MODERN_SSE_HEADERS: Readonly<Record<string, string>> = { ...SSE_HEADERS, "X-Accel-Buffering": "no" };

/** A `message` event carrying one JSON-RPC message (or batch), with an event id when the stream is resumable. */
export function sseMessage(message: unknown, id?: string): string {
  return `${id === undefined ? "" : `id: ${id}\n`}event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/** HTTP-09 (2025-11-25): the priming event: an event id with empty data and the reconnection advice. */
export function ssePriming(id: string, retryMs: number): string {
  return `id: ${id}\nretry: ${retryMs}\ndata: \n\n`;
}

/** SSE-01: the legacy endpoint event, naming where to POST messages. */
export function sseEndpoint(uri: string): string {
  return `event: endpoint\ndata: ${uri}\n\n`;
}

/** A comment line: keeps an idle stream alive through proxies without dispatching anything. */
export const SSE_KEEP_ALIVE = ": keep-alive\n\n";
