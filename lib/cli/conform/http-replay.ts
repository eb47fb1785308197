// Replays one HTTP fixture at one version against a URL over fetch, and judges the answers
// (fixtures/FORMAT.md, "HTTP cases"). Portable: fetch, TextDecoder and timers only, so it runs against
// any server from any runtime; the caller passes fetch (an in-process handler fits as well as
// the network).
//
// Invariants:
// - every read is bounded: an SSE stream is read only until what the expectation needs has
//   arrived, the stream ends or the exchange's time is up, then cancelled; other bodies are
//   read up to MAX_BODY_CHARS;
// - a case fails only on a check exchange; a setup exchange that does not go as expected, an
//   answer matching `unsupportedIf`, or a placeholder whose capture the target never gave
//   makes the case not-applicable, with the reason;
// - nothing the target sends throws out of here: every problem becomes the case's reason.

import { SseParser, type SseEvent } from "../../http/sse-parser.js";
import type { CaseResult } from "./types.js";
import type { EventExpectation, Exchange, Expectation, HttpFixture, StatusPattern } from "./http-format.js";
import { MissingCapture, compile, isObject, matchValue, show, substitute, type Captures } from "./http-match.js";

/** What the replay uses of a fetch Response. */
export interface FetchedAnswer {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: {
    getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(reason?: unknown): Promise<void> };
  } | null;
}

export interface AbortSignalLike {
  readonly aborted: boolean;
}

/** The fetch the replay calls (the global fetch fits). */
export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal?: never },
) => Promise<FetchedAnswer>;

export interface ReplayOptions {
  /** How long one exchange may take, answer read included. Default 3000 ms. */
  readonly exchangeMs?: number;
}

export const DEFAULT_EXCHANGE_MS = 3000;
const MAX_BODY_CHARS = 1024 * 1024;

/** What an answer turned out to be: the status, headers, and as much of the body as was read. */
interface Answer {
  readonly status: number;
  header(name: string): string | undefined;
  readonly contentType: string;
  /** A non-SSE body as text. */
  readonly text: string | undefined;
  /** SSE events read (in order). */
  readonly events: readonly SseEvent[] | undefined;
  /** Why reading stopped short, if it did. */
  readonly cut: string | undefined;
}

type Verdict = { kind: "ok" } | { kind: "failed"; reason: string } | { kind: "not-applicable"; reason: string };

/** Replays `fixture` at `version` against `url`. */
export async function replayCase(
  fixture: HttpFixture,
  version: string,
  url: string,
  fetchFn: FetchLike,
  options: ReplayOptions = {},
): Promise<CaseResult> {
  const base = { fixture: fixture.fixture, version, transport: "http" as const, rules: fixture.rules, level: fixture.level };
  const captures: Captures = new Map([["version", version]]);
  const features = new Map<string, string>();
  const ms = options.exchangeMs ?? DEFAULT_EXCHANGE_MS;
  for (const exchange of fixture.exchanges) {
    let verdict: Verdict;
    try {
      verdict = await runExchange(exchange, url, fetchFn, captures, features, fixture.requires, ms);
    } catch (error) {
      if (error instanceof MissingCapture) {
        const feature = features.get(error.capture);
        verdict = {
          kind: "not-applicable",
          reason:
            feature === undefined
              ? `nothing captured for \${${error.capture}}`
              : `the target lacks ${feature} (nothing captured for \${${error.capture}})`,
        };
      } else
        verdict = {
          kind: exchange.setup ? "not-applicable" : "failed",
          reason: `request failed: ${error instanceof Error ? error.message : String(error)}`,
        };
    }
    if (verdict.kind === "ok") continue;
    const where = `${exchange.setup ? "setup " : ""}exchange "${exchange.name}"`;
    if (verdict.kind === "failed" && exchange.setup)
      return { ...base, outcome: "not-applicable", reason: `${where} did not go as expected: ${verdict.reason}` };
    return { ...base, outcome: verdict.kind, reason: `${where}: ${verdict.reason}` };
  }
  return { ...base, outcome: "passed" };
}

async function runExchange(
  exchange: Exchange,
  url: string,
  fetchFn: FetchLike,
  captures: Captures,
  features: Map<string, string>,
  requires: readonly string[],
  ms: number,
): Promise<Verdict> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(exchange.request.headers)) {
    const v = substitute(value, captures);
    if (v !== undefined) headers[name] = typeof v === "string" ? v : JSON.stringify(v);
  }
  let body: string | undefined;
  let sent: unknown;
  if (exchange.request.json !== undefined) {
    sent = substitute(exchange.request.json, captures);
    body = JSON.stringify(sent);
  } else if (exchange.request.text !== undefined) body = String(substitute(exchange.request.text, captures));
  // Patterns take placeholders too (`${version}`, an id captured earlier).
  const expected = exchange.expect.map((e) => substitute(e, captures) as Expectation);
  const unsupported = (exchange.unsupportedIf ?? []).map((e) => substitute(e, captures) as Expectation);
  const answer = await exchangeOnce(fetchFn, url, exchange.request.method, headers, body, needsOf([...expected, ...unsupported], sent), ms);
  const problems: string[] = [];
  for (const expectation of expected) {
    const found: Captures = new Map();
    const declared = new Map<string, string>();
    const problem = judge(answer, expectation, sent, found, declared);
    if (problem !== undefined) {
      problems.push(problem);
      continue;
    }
    for (const [k, v] of found) captures.set(k, v);
    for (const [capture, feature] of declared) {
      features.set(capture, feature);
      if (!found.has(capture) && requires.includes(feature))
        return { kind: "not-applicable", reason: `the target lacks ${feature} (no ${capture} in the answer)` };
    }
    return { kind: "ok" };
  }
  // Not what was expected: an answer that shows the target lacks a feature (or a version) makes the case not-applicable.
  if (unsupported.some((e) => judge(answer, e, sent, new Map(), new Map()) === undefined)) {
    const feature = exchange.feature === undefined ? "a feature" : String(substitute(exchange.feature, captures));
    return { kind: "not-applicable", reason: `the target lacks ${feature} (answered ${answer.status})` };
  }
  return {
    kind: "failed",
    reason:
      problems.length === 1
        ? (problems[0] as string)
        : `none of ${problems.length} allowed answers: ${problems.map((p, i) => `(${i + 1}) ${p}`).join(" ")}`,
  };
}

/** How much of an SSE answer the expectations need: a number of events, and whether the responses to the request. */
function needsOf(alternatives: readonly Expectation[], sent: unknown): { events: number; responseIds: readonly unknown[] | undefined } {
  let events = 0;
  let wantResponse = false;
  for (const e of alternatives) {
    events = Math.max(events, e.events?.length ?? 0);
    if (e.response !== undefined) wantResponse = true;
  }
  return { events, responseIds: wantResponse ? requestIds(sent) : undefined };
}

/** The ids of the requests in a body (a request, or a batch). */
function requestIds(sent: unknown): unknown[] {
  const items = Array.isArray(sent) ? sent : [sent];
  return items
    .filter((m) => isObject(m) && typeof m.method === "string" && m.id !== undefined)
    .map((m) => (m as Record<string, unknown>).id);
}

async function exchangeOnce(
  fetchFn: FetchLike,
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  needs: { events: number; responseIds: readonly unknown[] | undefined },
  ms: number,
): Promise<Answer> {
  const controller = new AbortController();
  let timedOut = false;
  // Every wait is raced against the deadline as well as aborted: a fetch that ignores its signal (an in-process handler) cannot hold the replay.
  let expire = (): void => undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    expire = () => reject(new Error(`no more within ${ms} ms`));
  });
  deadline.catch(() => undefined);
  const timer = setTimeout(() => {
    timedOut = true;
    expire();
    controller.abort();
  }, ms);
  const bounded = <T>(promise: Promise<T>): Promise<T> => Promise.race([promise, deadline]);
  try {
    const init = { method, headers, signal: controller.signal as never, ...(body !== undefined ? { body } : {}) };
    const response = await bounded(fetchFn(url, init));
    const contentType = response.headers.get("content-type") ?? "";
    const header = (name: string): string | undefined => response.headers.get(name) ?? undefined;
    const reader = response.body?.getReader();
    if (reader === undefined)
      return { status: response.status, header, contentType, text: "", events: isSse(contentType) ? [] : undefined, cut: undefined };
    const decoder = new TextDecoder();
    if (isSse(contentType)) {
      const parser = new SseParser();
      const events: SseEvent[] = [];
      let cut: string | undefined;
      const satisfied = (): boolean =>
        events.length >= needs.events &&
        (needs.responseIds === undefined || needs.responseIds.every((id) => responsesIn(events).some((r) => r.id === id)));
      try {
        while (!satisfied()) {
          const { done, value } = await bounded(reader.read());
          if (done) break;
          if (value !== undefined) parser.push(value, events);
        }
      } catch (error) {
        cut = timedOut
          ? `the stream gave no more within ${ms} ms`
          : `the stream broke: ${error instanceof Error ? error.message : String(error)}`;
      }
      reader.cancel().catch(() => undefined);
      return { status: response.status, header, contentType, text: undefined, events, cut };
    }
    let text = "";
    let cut: string | undefined;
    try {
      for (;;) {
        const { done, value } = await bounded(reader.read());
        if (done) break;
        if (value !== undefined) text += decoder.decode(value, { stream: true });
        if (text.length > MAX_BODY_CHARS) {
          cut = `the body exceeded ${MAX_BODY_CHARS} characters`;
          break;
        }
      }
    } catch (error) {
      cut = timedOut ? `the body did not end within ${ms} ms` : `the body broke: ${error instanceof Error ? error.message : String(error)}`;
    }
    reader.cancel().catch(() => undefined);
    return { status: response.status, header, contentType, text, events: undefined, cut };
  } catch (error) {
    if (timedOut) throw new Error(`no answer within ${ms} ms`);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function isSse(contentType: string): boolean {
  return contentType.toLowerCase().startsWith("text/event-stream");
}

function isJson(contentType: string): boolean {
  return contentType.toLowerCase().startsWith("application/json");
}

/** The JSON-RPC responses (no method; a result or an error) carried by an SSE stream's message events. */
function responsesIn(events: readonly SseEvent[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const e of events) {
    if (e.type !== "message" || e.data.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(e.data);
    } catch {
      continue;
    }
    for (const m of Array.isArray(value) ? value : [value])
      if (isObject(m) && m.method === undefined && ("result" in m || "error" in m)) out.push(m);
  }
  return out;
}

/** Whether the answer meets one expectation: undefined when it does, else what differs. */
function judge(answer: Answer, e: Expectation, sent: unknown, found: Captures, declared: Map<string, string>): string | undefined {
  if (e.status !== undefined && !e.status.some((s) => statusMatches(answer.status, s)))
    return `status: expected ${e.status.join(" or ")}, got ${answer.status}`;
  for (const [name, h] of Object.entries(e.headers ?? {})) {
    const value = answer.header(name);
    if (h.capture !== undefined && h.feature !== undefined) declared.set(h.capture, h.feature);
    if (h.absent === true) {
      if (value !== undefined) return `header ${name}: expected none, got ${show(value)}`;
      continue;
    }
    if (value === undefined) {
      if (h.feature !== undefined) continue;
      if (h.present === true || h.match !== undefined) return `header ${name}: expected one, got none`;
      continue;
    }
    if (h.match !== undefined && compile(h.match)?.test(value) !== true)
      return `header ${name}: expected a value matching /${h.match}/, got ${show(value)}`;
    if (h.capture !== undefined) found.set(h.capture, value);
  }
  if (e.body === "empty") {
    if (answer.events !== undefined && answer.events.length > 0)
      return `body: expected none, got an SSE stream of ${answer.events.length} events`;
    if (answer.text !== undefined && answer.text.trim() !== "") return `body: expected none, got ${show(answer.text)}`;
  }
  if (e.json !== undefined) {
    if (!isJson(answer.contentType)) return `body: expected application/json, got Content-Type ${show(answer.contentType)}`;
    const parsed = parseJson(answer.text);
    if (parsed === undefined) return `body: expected JSON, got ${show(answer.text)}${answer.cut === undefined ? "" : ` (${answer.cut})`}`;
    const problem = matchValue(parsed.value, e.json, found);
    if (problem !== undefined) return `body ${problem}`;
  }
  if (e.response !== undefined) {
    const problem = judgeResponse(answer, e.response, sent, found);
    if (problem !== undefined) return problem;
  }
  if (e.events !== undefined) {
    if (answer.events === undefined) return `body: expected an SSE stream, got Content-Type ${show(answer.contentType)}`;
    for (let i = 0; i < e.events.length; i++) {
      const event = answer.events[i];
      if (event === undefined)
        return `event ${i}: expected one, got ${answer.events.length} events${answer.cut === undefined ? " before the stream ended" : ` (${answer.cut})`}`;
      const problem = judgeEvent(event, e.events[i] as EventExpectation, found, i);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

/** The response(s) to the request, from a JSON body or from the SSE stream, against the pattern. */
function judgeResponse(answer: Answer, pattern: unknown, sent: unknown, found: Captures): string | undefined {
  if (answer.events !== undefined) {
    const responses = responsesIn(answer.events);
    if (Array.isArray(sent)) {
      const problem = matchValue(responses, pattern, found);
      return problem === undefined ? undefined : `responses on the stream ${problem}`;
    }
    const id = isObject(sent) ? sent.id : undefined;
    const response =
      responses.find((r) => r.id === id) ??
      (responses.length === 1 && (responses[0] as Record<string, unknown>).id == null ? responses[0] : undefined);
    if (response === undefined)
      return `response: expected one on the SSE stream for id ${show(id)}, got ${responses.length === 0 ? "none" : show(responses)}${answer.cut === undefined ? "" : ` (${answer.cut})`}`;
    const problem = matchValue(response, pattern, found);
    return problem === undefined ? undefined : `response ${problem}`;
  }
  if (!isJson(answer.contentType))
    return `response: expected application/json or text/event-stream, got Content-Type ${show(answer.contentType)}`;
  const parsed = parseJson(answer.text);
  if (parsed === undefined) return `response: expected JSON, got ${show(answer.text)}${answer.cut === undefined ? "" : ` (${answer.cut})`}`;
  const problem = matchValue(parsed.value, pattern, found);
  return problem === undefined ? undefined : `response ${problem}`;
}

function judgeEvent(event: SseEvent, e: EventExpectation, found: Captures, index: number): string | undefined {
  const checks: [string, unknown, unknown][] = [
    ["id", event.id, e.id],
    ["event", event.type, e.event],
    ["data", event.data, e.data],
  ];
  for (const [field, actual, pattern] of checks) {
    if (pattern === undefined) continue;
    const problem = matchValue(actual, pattern, found, `event ${index} ${field}`);
    if (problem !== undefined) return problem;
  }
  if (e.json !== undefined) {
    const parsed = parseJson(event.data);
    if (parsed === undefined) return `event ${index} data: expected JSON, got ${show(event.data)}`;
    const problem = matchValue(parsed.value, e.json, found, `event ${index} data`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function statusMatches(status: number, pattern: StatusPattern): boolean {
  if (typeof pattern === "number") return status === pattern;
  return String(Math.floor(status / 100)) === pattern[0];
}

function parseJson(text: string | undefined): { value: unknown } | undefined {
  if (text === undefined) return undefined;
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}
