// What the Streamable HTTP endpoint (endpoint.ts) needs of one HTTP exchange, whatever carries
// it: the request's facts (HttpIncoming) and a reply it writes to (HttpReply). The fetch
// handler (fetch.ts) implements both over Request/Response, the Node adapter
// (lib/hosts/http-server.ts) over node:http; neither makes a decision of its own.
//
// Invariants: a reply's head is written once (head or the first write); after end() nothing
// more is written; onClose listeners run once, when the client goes away or the reply ends.

import type { JsonObject } from "../wire/envelope.js";
import { REFUSALS, refusalBody, type RefusalKind } from "../http/status.js";
import type { RequestId } from "../wire/envelope.js";
import { encodeUtf8 } from "../wire/utf8.js";

/** How reading a body went. */
export type BodyRead =
  | { readonly kind: "text"; readonly text: string }
  /** A body parser in front (express.json()) already parsed it. */
  | { readonly kind: "parsed"; readonly value: unknown }
  /** Over the limit (declared or counted): the rest is never read. */
  | { readonly kind: "too-large" }
  /** LIM-11: not all there within requestTimeoutMs (`received` bytes came); the rest is never read. */
  | { readonly kind: "too-slow"; readonly received: number; readonly deadlineMs: number }
  | { readonly kind: "not-utf8" }
  /** The client went away mid-body. */
  | { readonly kind: "aborted" };

/** One request as the endpoint sees it. */
export interface HttpIncoming {
  readonly method: string;
  /** The path, relative to where the endpoint is mounted (see mounted). */
  readonly path: string;
  /** The query string without "?" ("" when none). */
  readonly query: string;
  /** True when a framework mounted the endpoint under a path and `path` is what remains of it ("/" is the endpoint). */
  readonly mounted: boolean;
  /** The prefix the endpoint is mounted under ("" when not mounted), for URIs it hands out. */
  readonly base: string;
  /** A header's value (case-insensitive name); the first one when repeated. */
  header(name: string): string | undefined;
  /** Reads the body, at most `limit` bytes. */
  readBody(limit: number): Promise<BodyRead>;
  /** The body will not be read (drain it or close the connection after the answer, as the transport sees fit). */
  skipBody(): void;
}

/** Where one answer goes. */
export interface HttpReply {
  /** True once the head is out. */
  readonly headSent: boolean;
  /** Adds a header to the head (before it is out). */
  setHeader(name: string, value: string): void;
  /** Writes the head. */
  head(status: number, headers: Readonly<Record<string, string>>): void;
  /** Sends the head now (an SSE stream that has nothing to say yet). */
  flush(): void;
  write(text: string): void;
  /** Ends the answer, with a last piece of body. */
  end(text?: string): void;
  /** Runs `listener` when the client closes the connection or the answer ends. */
  onClose(listener: () => void): void;
}

/** A JSON answer with its status. */
export function answerJson(reply: HttpReply, status: number, message: JsonObject | readonly unknown[]): void {
  const body = JSON.stringify(message);
  reply.head(status, { "Content-Type": "application/json", "Content-Length": String(byteLength(body)) });
  reply.end(body);
}

/** A refusal from the status table, with its JSON-RPC error body. */
export function refuse(reply: HttpReply, kind: RefusalKind, message: string, id?: RequestId, data?: unknown): void {
  answerJson(reply, REFUSALS[kind].status, refusalBody(kind, message, id, data));
}

/** Refuses a request whose body the endpoint will not read. */
export function refuseUnread(incoming: HttpIncoming, reply: HttpReply, kind: RefusalKind, message: string): void {
  incoming.skipBody();
  refuse(reply, kind, message);
}

export function byteLength(text: string): number {
  // ASCII needs no encoding to count (most JSON-RPC bodies are).
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(text) ? text.length : encodeUtf8(text).length;
}
