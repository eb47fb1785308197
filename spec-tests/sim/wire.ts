// What the simulated clients put on the wire and how they read what comes back: Request
// builders for both eras (session era with Mcp-Session-Id, 2026-07-28 with _meta) and a
// reader of a Response that never blocks the simulation: it takes the body as it comes
// (JSON whole, SSE frame by frame) and calls back, so a client acts on each frame in the
// turn it arrives and the world decides when time moves.
//
// Invariants: every request is built from plain data (no clock, no randomness); a reader
// reports its end exactly once: "done" when the server ended the body, "cut" when the body
// failed or the client cancelled it.

import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION } from "../../lib/rules/modern.js";

export const SESSION_VERSION = "2025-11-25";
export const MODERN_VERSION = "2026-07-28";
const ACCEPT = "application/json, text/event-stream";

export type Json = { [key: string]: unknown };

/** A POST in the session era (no session id: initialize). */
export function sessionPost(body: Json, sessionId: string | undefined, signal?: AbortSignal): Request {
  const headers: Record<string, string> = { host: "localhost", accept: ACCEPT, "content-type": "application/json" };
  if (sessionId !== undefined) {
    headers["mcp-session-id"] = sessionId;
    headers["mcp-protocol-version"] = SESSION_VERSION;
  }
  return new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(body), ...(signal ? { signal } : {}) });
}

/** The session's GET stream, or the resumption of a stream after `lastEventId`. */
export function sessionGet(sessionId: string, lastEventId?: string): Request {
  const headers: Record<string, string> = {
    host: "localhost",
    accept: "text/event-stream",
    "mcp-session-id": sessionId,
    "mcp-protocol-version": SESSION_VERSION,
  };
  if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
  return new Request("http://localhost/mcp", { method: "GET", headers });
}

export function sessionDelete(sessionId: string): Request {
  return new Request("http://localhost/mcp", {
    method: "DELETE",
    headers: { host: "localhost", "mcp-session-id": sessionId, "mcp-protocol-version": SESSION_VERSION },
  });
}

/** A stateless 2026-07-28 request. */
export function modernPost(id: number, method: string, params: Json, capabilities: Json): Request {
  const body = {
    jsonrpc: "2.0",
    id,
    method,
    params: {
      ...params,
      _meta: {
        [META_PROTOCOL_VERSION]: MODERN_VERSION,
        [META_CLIENT_CAPABILITIES]: capabilities,
        [META_CLIENT_INFO]: { name: "sim", version: "1" },
      },
    },
  };
  const headers: Record<string, string> = {
    host: "localhost",
    accept: ACCEPT,
    "content-type": "application/json",
    "mcp-protocol-version": MODERN_VERSION,
    "mcp-method": method,
  };
  if (method === "tools/call") headers["mcp-name"] = String(params.name);
  if (method.startsWith("tasks/")) headers["mcp-name"] = String(params.taskId);
  return new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(body) });
}

/** One SSE event: its id (when sent) and its JSON-RPC message (none for a priming event). */
export interface Frame {
  readonly id: string | undefined;
  readonly message: Json | undefined;
}

export interface ReadHooks {
  /** A JSON body, whole. */
  json?(status: number, body: unknown, header: (name: string) => string | null): void;
  /** One SSE frame with data. */
  frame?(frame: Frame): void;
  /** The end of the body: "done" (the server ended it), "cut" (it failed or the client cancelled it). */
  end?(how: "done" | "cut", status: number): void;
}

/** An open body being read; cancel() is the client going away. */
export interface Reading {
  readonly sse: boolean;
  open: boolean;
  cancel(): void;
}

/** Reads `response` without blocking the caller; hooks fire as the body comes. */
export function read(response: Response, hooks: ReadHooks): Reading {
  const sse = (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
  const reading: Reading = { sse, open: true, cancel: () => undefined };
  let ended = false;
  const end = (how: "done" | "cut"): void => {
    if (ended) return;
    ended = true;
    reading.open = false;
    hooks.end?.(how, response.status);
  };
  if (!sse) {
    void response.text().then(
      (text) => {
        let body: unknown;
        try {
          body = text === "" ? undefined : JSON.parse(text);
        } catch {
          body = text;
        }
        if (ended) return;
        hooks.json?.(response.status, body, (name) => response.headers.get(name));
        end("done");
      },
      () => end("cut"),
    );
    return reading;
  }
  const body = response.body;
  if (body === null) {
    end("done");
    return reading;
  }
  const reader = body.getReader();
  reading.cancel = () => {
    if (ended) return;
    end("cut");
    void reader.cancel().catch(() => undefined);
  };
  const decoder = new TextDecoder();
  let text = "";
  const pump = (): void => {
    reader.read().then(
      (chunk) => {
        if (ended) return;
        if (chunk.done) {
          end("done");
          return;
        }
        text += decoder.decode(chunk.value, { stream: true });
        let cut: number;
        while (!ended && (cut = text.indexOf("\n\n")) >= 0) {
          const frame = text.slice(0, cut);
          text = text.slice(cut + 2);
          const data = /^data: ?(.*)$/m.exec(frame)?.[1];
          const id = /^id: ?(.*)$/m.exec(frame)?.[1];
          if (data === undefined && id === undefined) continue;
          let message: unknown;
          try {
            message = data === undefined || data === "" ? undefined : JSON.parse(data);
          } catch {
            message = { unparsed: data };
          }
          hooks.frame?.({ id, message: message as Json | undefined });
        }
        if (!ended) pump();
      },
      () => end("cut"),
    );
  };
  pump();
  return reading;
}

/** The stream id and sequence number of an SSE event id ("<stream>:<seq>"). */
export function splitEventId(id: string): { stream: string; seq: number } | undefined {
  const colon = id.lastIndexOf(":");
  if (colon <= 0) return undefined;
  const seq = Number(id.slice(colon + 1));
  return Number.isSafeInteger(seq) ? { stream: id.slice(0, colon), seq } : undefined;
}
