// What the tests of several fetch handlers as one cluster share (http-cluster*.test.ts): session-era
// requests as web Requests, a session opened on one node and made operating on another, and a
// reader of SSE frames.

import assert from "node:assert/strict";
import type { HttpHandler } from "../../lib/http-server/index.js";

export const LATEST = "2025-11-25";
export const ACCEPT = "application/json, text/event-stream";
type Json = { [key: string]: unknown };

/** A session-era POST (with the session's headers when `sessionId` is given). */
export function post(body: unknown, sessionId?: string, extra: Record<string, string> = {}): Request {
  const headers: Record<string, string> = { host: "localhost", accept: ACCEPT, "content-type": "application/json", ...extra };
  if (sessionId !== undefined) {
    headers["mcp-session-id"] = sessionId;
    headers["mcp-protocol-version"] = LATEST;
  }
  return new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(body) });
}

/** A GET for the session's stream, or a resume after `lastEventId`. */
export function getStream(sessionId: string, lastEventId?: string, signal?: AbortSignal): Request {
  const headers: Record<string, string> = {
    host: "localhost",
    accept: "text/event-stream",
    "mcp-session-id": sessionId,
    "mcp-protocol-version": LATEST,
  };
  if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
  return new Request("http://localhost/mcp", { method: "GET", headers, ...(signal === undefined ? {} : { signal }) });
}

/** initialize on `node`, notifications/initialized on `other`: the session id. */
export async function open(node: HttpHandler, other: HttpHandler = node, capabilities: Json = {}): Promise<string> {
  const res = await node.fetch(
    post({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: LATEST, capabilities, clientInfo: { name: "t", version: "1" } },
    }),
  );
  assert.equal(res.status, 200);
  await res.text();
  const id = res.headers.get("mcp-session-id") as string;
  assert.equal((await other.fetch(post({ jsonrpc: "2.0", method: "notifications/initialized" }, id))).status, 202);
  return id;
}

export interface Frame {
  id: string | undefined;
  message: Json;
}

/** Reads SSE frames with data: next() is the next one (rejects with "the stream ended" at the end), rest() all that remain. */
export function frames(res: Response): { next(): Promise<Frame>; rest(): Promise<Frame[]>; cancel(): void } {
  const reader = (res.body as ReadableStream).getReader();
  const decoder = new TextDecoder();
  let text = "";
  const next = async (): Promise<Frame> => {
    for (;;) {
      let end;
      while ((end = text.indexOf("\n\n")) >= 0) {
        const frame = text.slice(0, end);
        text = text.slice(end + 2);
        const data = /^data: (.+)$/m.exec(frame)?.[1];
        if (data !== undefined) return { id: /^id: (.*)$/m.exec(frame)?.[1], message: JSON.parse(data) as Json };
      }
      const chunk = await reader.read();
      if (chunk.done) throw new Error("the stream ended");
      text += decoder.decode(chunk.value, { stream: true });
    }
  };
  return {
    next,
    async rest() {
      const out: Frame[] = [];
      for (;;) {
        try {
          out.push(await next());
        } catch {
          return out;
        }
      }
    },
    cancel: () => void reader.cancel().catch(() => undefined),
  };
}
