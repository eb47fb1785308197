// The one reader of the response bodies the HTTP client transport and its OAuth client take
// from the network (RULES.md LIM-12, LIM-13): JSON-RPC answers, error bodies, SSE streams,
// and every OAuth metadata, registration and token answer. Nothing else in lib/http-client
// takes a body's reader.
//
// Invariants:
// - a body read whole is read chunk by chunk up to its cap and no further: at the first chunk
//   past the cap the reader is cancelled (no more is read from the socket) and the outcome
//   names the cap (HttpBodyLimitError: the limit, what was expected, the bytes that had
//   arrived), or, for an error body whose start is all anyone shows, is that start, marked cut;
// - a stream (SSE) is pumped chunk by chunk into its consumer, whose parser bounds what it
//   holds (LIM-12, per line and event); a consumer that stops the pump cancels the reader;
// - every reader taken here is handed to the caller's tracker while it is read, so a teardown
//   or a deadline can cancel a read that waits;
// - nothing here throws: a body that cannot be read is an outcome with its cause.

import { isJsonObject, type JsonObject } from "../wire/envelope.js";
import { HttpAuthError, HttpTransportError } from "../peer/shared/errors.js";
import { decodeUtf8Chunks } from "../wire/utf8.js";
import type { ReadableStreamLike, ReaderLike, ResponseLike } from "./types.js";

/** LIM-13: the default cap of a JSON-RPC answer read whole (application/json): the client engine's maxLineBytes. */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** LIM-13: an error body (any answer that is not a 2xx) is read to this many bytes; only its start is ever shown. */
export const ERROR_BODY_BYTES = 64 * 1024;

/** Learns each reader while a body is read (a Set fits), so the reader can be cancelled from outside. */
export interface ReaderTracker {
  add(reader: ReaderLike): unknown;
  delete(reader: ReaderLike): unknown;
}

/**
 * LIM-13: a body passed its cap. Reading stopped at the first chunk past it and the stream was
 * cancelled: `received` bytes had arrived by then (more than `limit`).
 */
export class HttpBodyLimitError extends HttpTransportError {
  readonly rule = "LIM-13";
  readonly limit: number;
  readonly received: number;
  /** What the body was expected to be ("a JSON-RPC answer", "a token response from https://…", …). */
  readonly expected: string;
  constructor(expected: string, limit: number, received: number, status: number | undefined) {
    const message = `[LIM-13] expected ${expected} of at most ${limit} bytes; got more: ${received} bytes had arrived when reading stopped and the stream was cancelled`;
    super(message, status, undefined, status === undefined ? { cause: message } : { status, cause: message });
    this.name = "HttpBodyLimitError";
    this.limit = limit;
    this.received = received;
    this.expected = expected;
  }
}

/** How a body read whole is bounded. */
export interface BodyCap {
  /** What the body should be, for the error ("a JSON-RPC answer", …). */
  readonly what: string;
  readonly maxBytes: number;
  /** The answer's status, carried by the error. */
  readonly status?: number;
  /** "fail" (default): past the cap is an HttpBodyLimitError; "cut": the text of the first maxBytes bytes, marked cut. */
  readonly past?: "fail" | "cut";
}

export type BodyRead =
  | { readonly ok: true; readonly text: string; readonly bytes: number; readonly cut: boolean }
  | { readonly ok: false; readonly limit: HttpBodyLimitError; readonly cause: string }
  | { readonly ok: false; readonly limit: undefined; readonly cause: string };

/** How a pump ended: the body's end, the consumer's stop (the reader cancelled), or a failed read. */
export type PumpEnd = { readonly end: "end" | "stopped" } | { readonly end: "error"; readonly cause: string };

/**
 * Reads `body` chunk by chunk into `onChunk` until it ends, a read fails, or onChunk returns
 * true (stop: the reader is cancelled, nothing more is read from the socket).
 */
export async function pumpBody(
  body: ReadableStreamLike,
  onChunk: (bytes: Uint8Array) => boolean,
  tracker?: ReaderTracker,
): Promise<PumpEnd> {
  let reader: ReaderLike;
  try {
    reader = body.getReader();
  } catch (error) {
    return { end: "error", cause: describe(error) };
  }
  tracker?.add(reader);
  try {
    for (;;) {
      let chunk: { done: boolean; value?: Uint8Array };
      try {
        chunk = await reader.read();
      } catch (error) {
        return { end: "error", cause: describe(error) };
      }
      if (chunk.done) return { end: "end" };
      if (chunk.value === undefined || chunk.value.length === 0) continue;
      if (onChunk(chunk.value)) {
        cancelQuietly(reader);
        return { end: "stopped" };
      }
    }
  } finally {
    tracker?.delete(reader);
  }
}

/** LIM-13: a whole body as UTF-8 text (a leading BOM dropped, as Response.text() does), never more than cap.maxBytes of it. */
export async function readBody(body: ReadableStreamLike | null, cap: BodyCap, tracker?: ReaderTracker): Promise<BodyRead> {
  if (body === null) return { ok: true, text: "", bytes: 0, cut: false };
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let received = 0;
  const pumped = await pumpBody(
    body,
    (chunk) => {
      received += chunk.length;
      const room = cap.maxBytes - bytes;
      if (chunk.length > room) {
        if (cap.past === "cut" && room > 0) chunks.push(chunk.subarray(0, room));
        bytes += Math.max(0, room);
        return true;
      }
      bytes += chunk.length;
      chunks.push(chunk);
      return false;
    },
    tracker,
  );
  if (received > cap.maxBytes) {
    if (cap.past === "cut") return { ok: true, text: decodeUtf8Chunks(chunks, bytes, false), bytes, cut: true };
    const limit = new HttpBodyLimitError(cap.what, cap.maxBytes, received, cap.status);
    return { ok: false, limit, cause: limit.message };
  }
  if (pumped.end === "error") return { ok: false, limit: undefined, cause: pumped.cause };
  return { ok: true, text: decodeUtf8Chunks(chunks, bytes, false), bytes, cut: false };
}

/** Lets go of a body unread: its reader is cancelled, so the connection is not kept reading it. */
export async function discard(res: ResponseLike): Promise<void> {
  if (res.body === null) return;
  try {
    await res.body.getReader().cancel();
  } catch {
    // Already consumed, locked or aborted: nothing to free.
  }
}

export function cancelQuietly(reader: ReaderLike): void {
  try {
    reader.cancel().catch(() => undefined);
  } catch {
    // A reader that cannot cancel is already finished.
  }
}

/** An error response's body (its first ERROR_BODY_BYTES), and the JSON-RPC error object in it when there is one (HTTP-02). */
export async function readError(
  res: ResponseLike,
  tracker?: ReaderTracker,
): Promise<{ status: number; text: string; error: JsonObject | undefined }> {
  const read = await readBody(res.body, { what: "an error body", maxBytes: ERROR_BODY_BYTES, past: "cut" }, tracker);
  const text = read.ok ? read.text : "";
  let error: JsonObject | undefined;
  try {
    const value: unknown = text === "" || (read.ok && read.cut) ? undefined : JSON.parse(text);
    if (
      isJsonObject(value) &&
      isJsonObject(value.error) &&
      typeof value.error.code === "number" &&
      Number.isInteger(value.error.code) &&
      typeof value.error.message === "string"
    ) {
      error = value.error;
    }
  } catch {
    error = undefined;
  }
  return { status: res.status, text, error };
}

/** A 401/403 answer as the typed challenge (AUTH-08), with the start of its body. */
export async function authErrorOf(res: ResponseLike, url: string, tracker?: ReaderTracker): Promise<HttpAuthError> {
  const challenge = res.headers.get("www-authenticate");
  const read = await readBody(res.body, { what: "an error body", maxBytes: ERROR_BODY_BYTES, past: "cut" }, tracker);
  const text = read.ok ? read.text : "";
  return new HttpAuthError(res.status, url, challenge === null ? undefined : challenge, text === "" ? undefined : clip(text));
}

export function clip(text: string, max = 2048): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === "string" ? error : String(error);
}
