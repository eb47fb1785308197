// The HTTP target's checks of one response (http-episode.ts applies them): a status from the
// status table (lib/http/status.ts, and the statuses httpStatusFor gives 2026-07-28 errors),
// a body that fits its status and Content-Type (a JSON-RPC error for a refusal, JSON-RPC
// answers for a JSON 200, nothing for 202 and 204), and SSE framed as the encoder frames it
// (lib/http/sse-encoder.ts), with event ids that only grow within a stream.
//
// Invariants: the checks read only what a client sees (status, headers, body text); each
// returns a problem (text) or undefined, and never throws on any input.

import { HttpStatus, REFUSALS } from "../../lib/http/status.js";

/** Every status the endpoint may answer with; 500 is in the table but is a defect of ours, so it is checked on its own. */
export const TABLE_STATUSES: ReadonlySet<number> = new Set<number>([
  ...Object.values(REFUSALS).map((r) => r.status),
  ...Object.values(HttpStatus),
  // httpStatusFor (lib/http/headers.ts): a 2026-07-28 error travels with 200, 400 or 404.
  200,
  400,
  404,
]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isId(v: unknown): boolean {
  return typeof v === "string" || (typeof v === "number" && Number.isSafeInteger(v));
}

function show(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function errorObjectProblem(e: unknown): string | undefined {
  if (!isObject(e)) return `error is not an object: ${show(e)}`;
  if (typeof e.code !== "number" || !Number.isInteger(e.code)) return `error.code is not an integer: ${show(e)}`;
  if (typeof e.message !== "string") return `error.message is not a string: ${show(e)}`;
  return undefined;
}

/** A JSON-RPC error message (a refusal's body): jsonrpc 2.0, a valid error object, an id only if readable. */
export function errorMessageProblem(m: unknown): string | undefined {
  if (!isObject(m) || m.jsonrpc !== "2.0") return `not a JSON-RPC 2.0 object: ${show(m)}`;
  if (m.result !== undefined || m.method !== undefined) return `an error body with a result or method: ${show(m)}`;
  if ("id" in m && m.id !== null && !isId(m.id)) return `an unreadable id in an error body: ${show(m)}`;
  return errorObjectProblem(m.error);
}

/** A JSON-RPC message the server sends (request, notification, response), or undefined when well-formed. */
export function messageProblem(m: unknown): string | undefined {
  if (!isObject(m) || m.jsonrpc !== "2.0") return `not a JSON-RPC 2.0 object: ${show(m)}`;
  if (m.method !== undefined) {
    if (typeof m.method !== "string") return `method is not a string: ${show(m)}`;
    if ("id" in m && !isId(m.id)) return `a server request with an unreadable id: ${show(m)}`;
    if (m.params !== undefined && !isObject(m.params)) return `params is not an object: ${show(m)}`;
    return undefined;
  }
  const hasResult = m.result !== undefined;
  const hasError = m.error !== undefined;
  if (hasResult === hasError) return `a response needs exactly one of result and error: ${show(m)}`;
  if (hasResult && !isObject(m.result)) return `result is not an object: ${show(m)}`;
  if (!("id" in m)) return hasError ? errorObjectProblem(m.error) : `a result without an id: ${show(m)}`;
  if (m.id !== null && !isId(m.id)) return `an unreadable id in a response: ${show(m)}`;
  if (m.id === null && hasResult) return `a result with a null id: ${show(m)}`;
  return hasError ? errorObjectProblem(m.error) : undefined;
}

/** One message or a non-empty batch of them. */
export function messagesProblem(value: unknown, check: (m: unknown) => string | undefined = messageProblem): string | undefined {
  if (!Array.isArray(value)) return check(value);
  if (value.length === 0) return "an empty batch";
  for (const m of value) {
    const problem = check(m);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** What a client sees of one answer, for bodyProblem. */
export interface SeenAnswer {
  readonly status: number;
  /** The request's method (a DELETE's 200 has no body). */
  readonly method: string;
  readonly contentType: string | null;
  /** The body as text; undefined when it was cut off by the consumer's cap (then it is not parsed). */
  readonly text: string | undefined;
  /** The status came from the fixture's own authenticate hook (its body is the fixture's). */
  readonly fromAuthHook: boolean;
}

/** Whether a whole (non-SSE) body fits its status. */
export function bodyProblem(a: SeenAnswer): string | undefined {
  if (a.fromAuthHook) return undefined;
  const text = a.text;
  if (a.status === 202 || a.status === 204 || (a.status === 200 && a.method === "DELETE"))
    return text === undefined || text === "" ? undefined : `a ${a.status} with a body: ${show(text)}`;
  if (text === undefined) return undefined;
  const json = (a.contentType ?? "").startsWith("application/json");
  if (!json) return `status ${a.status} with Content-Type ${a.contentType ?? "(none)"}: ${show(text)}`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `an application/json body that does not parse: ${show(text)}`;
  }
  if (a.status >= 400) return messagesProblem(value, errorMessageProblem);
  return messagesProblem(value);
}

/** One parsed SSE frame. */
export interface SseFrame {
  readonly id: string | undefined;
  readonly event: string | undefined;
  readonly data: string | undefined;
  readonly comment: boolean;
}

/**
 * Checks a text/event-stream body as it arrives: every frame ends with a blank line, every
 * line is a field the encoder writes (id, event, data, retry) or a comment, data of a message
 * event is one JSON-RPC message or batch, and event ids of one stream have growing sequence
 * numbers (after `after` on a resumed stream).
 */
export class SseChecker {
  private buffer = "";
  private stream: string | undefined;
  private lastSeq: number;
  readonly frames: SseFrame[] = [];

  constructor(after = -1, stream?: string) {
    this.lastSeq = after;
    this.stream = stream;
  }

  /** Checks the frames `text` completes; a problem stops the check. */
  feed(text: string): string | undefined {
    this.buffer += text;
    for (;;) {
      const end = this.buffer.indexOf("\n\n");
      if (end < 0) break;
      const frame = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const problem = this.frame(frame);
      if (problem !== undefined) return problem;
    }
    if (this.buffer.length > 8 * 1024 * 1024) return "an SSE frame over 8 MiB without its blank line";
    return undefined;
  }

  /** At the end of the body: nothing may be left half-framed. */
  end(): string | undefined {
    return this.buffer === "" ? undefined : `the stream ended inside a frame: ${show(this.buffer)}`;
  }

  private frame(frame: string): string | undefined {
    if (frame.includes("\r")) return `a CR inside an SSE frame: ${show(frame)}`;
    let id: string | undefined;
    let event: string | undefined;
    let data: string | undefined;
    let comment = false;
    for (const line of frame.split("\n")) {
      if (line.startsWith(":")) {
        comment = true;
        continue;
      }
      const colon = line.indexOf(": ");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 2);
      if (field === "id") id = value;
      else if (field === "event") event = value;
      else if (field === "data") {
        if (data !== undefined) return `two data lines in one frame: ${show(frame)}`;
        data = value;
      } else if (field === "retry") {
        if (!/^\d+$/.test(value)) return `retry is not a number: ${show(frame)}`;
      } else return `an unknown SSE line ${show(line)} in ${show(frame)}`;
    }
    this.frames.push({ id, event, data, comment });
    if (comment && id === undefined && event === undefined && data === undefined) return undefined;
    if (event !== undefined && event !== "message" && event !== "endpoint") return `an unknown event type ${show(event)}`;
    if (event === "endpoint")
      return data !== undefined && data.startsWith("/") ? undefined : `an endpoint event without a path: ${show(frame)}`;
    if (id !== undefined) {
      const colon = id.lastIndexOf(":");
      const seq = Number(id.slice(colon + 1));
      const stream = id.slice(0, colon);
      if (colon <= 0 || !Number.isSafeInteger(seq) || seq < 0) return `a malformed event id ${show(id)}`;
      if (this.stream !== undefined && stream !== this.stream) return `event id ${show(id)} of another stream than ${this.stream}`;
      this.stream = stream;
      // The priming event (seq 0) opens a stream; every later event has a larger number than the last one seen.
      if (!(seq > this.lastSeq || (seq === 0 && this.lastSeq <= 0 && data === "")))
        return `event id ${show(id)} does not follow ${this.lastSeq}`;
      this.lastSeq = seq;
    }
    if (data === undefined) return id !== undefined ? undefined : `a frame without data: ${show(frame)}`;
    if (data === "") return id !== undefined ? undefined : `empty data without an id (not a priming event): ${show(frame)}`;
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      return `SSE data that is not JSON: ${show(data)}`;
    }
    return messagesProblem(value);
  }
}
