// The HTTP fixture format (fixtures/FORMAT.md, "HTTP cases"): one case per `.json` file, a header
// (id, rules, level, versions, requirements) and the exchanges to replay, each a request and
// what its answer must look like. This file reads a fixture into these types and says what
// is wrong with a malformed one; it performs nothing.
//
// Invariants: a parsed fixture has every member FORMAT.md calls required, with the types it
// names; patterns are kept as the JSON they are (match.ts reads them); unknown members are
// refused, so that a typo in a fixture cannot silently weaken a check.

import type { RuleLevel } from "./types.js";
import { compile, isObject } from "./http-match.js";
import { MODERN_VERSIONS, SCHEMA_RELEASES, SESSION_VERSIONS, VERSION_PROFILES, type ProtocolVersion } from "../../rules/versions.js";

/** The versions that have Streamable HTTP: the first release that defined it and every later one. */
export const HTTP_VERSIONS: readonly ProtocolVersion[] = [...SESSION_VERSIONS, ...MODERN_VERSIONS].filter(
  (v) => VERSION_PROFILES[v].index >= VERSION_PROFILES[SCHEMA_RELEASES.streamableHttp].index,
);

/** A status: a number, or a class such as "4xx". */
export type StatusPattern = number | string;

export interface HeaderExpectation {
  readonly present?: boolean;
  readonly absent?: boolean;
  /** A regular expression the value must match (case-sensitive; anchor it yourself). */
  readonly match?: string;
  /** Record the value under this name (for later `${name}`). */
  readonly capture?: string;
  /** What a missing header means for the case: the target lacks this feature (not-applicable) instead of failing. */
  readonly feature?: string;
}

export interface EventExpectation {
  readonly id?: unknown;
  readonly event?: unknown;
  /** The data as text. */
  readonly data?: unknown;
  /** The data parsed as JSON. */
  readonly json?: unknown;
}

export interface Expectation {
  /** One of these statuses. */
  readonly status?: readonly StatusPattern[];
  readonly headers?: Readonly<Record<string, HeaderExpectation>>;
  /** `empty`: no body at all (whitespace allowed). */
  readonly body?: "empty";
  /** The body is application/json and matches this pattern. */
  readonly json?: unknown;
  /** The JSON-RPC response(s) to the request, whether the answer is JSON or an SSE stream. */
  readonly response?: unknown;
  /** The first events of an SSE answer, in order (reading stops after them). */
  readonly events?: readonly EventExpectation[];
}

export interface Exchange {
  readonly name: string;
  /** A setup step: when its answer does not match, the case is not-applicable, not failed. */
  readonly setup: boolean;
  /** An answer that misses `expect` but matches one of these means the target lacks `feature`: the case is not-applicable. */
  readonly unsupportedIf?: readonly Expectation[];
  readonly feature?: string;
  readonly request: {
    readonly method: string;
    /** Header values may hold placeholders; a value that substitutes to nothing leaves the header out. */
    readonly headers: Readonly<Record<string, string>>;
    readonly json?: unknown;
    readonly text?: string;
  };
  /** The answer must match one of these. */
  readonly expect: readonly Expectation[];
}

export interface HttpFixture {
  readonly fixture: string;
  readonly title: string;
  readonly era: "session" | "modern";
  readonly versions: readonly string[];
  readonly rules: readonly string[];
  readonly level: RuleLevel;
  readonly requires: readonly string[];
  readonly spec: string;
  readonly exchanges: readonly Exchange[];
}

const LEVELS: readonly RuleLevel[] = ["MUST", "SHOULD", "MAY", "policy"];
const HEADER_KEYS = new Set(["fixture", "title", "era", "versions", "rules", "level", "requires", "spec", "exchanges"]);
const EXCHANGE_KEYS = new Set(["name", "setup", "unsupportedIf", "feature", "request", "expect"]);
const REQUEST_KEYS = new Set(["method", "headers", "json", "text"]);
const EXPECT_KEYS = new Set(["status", "headers", "body", "json", "response", "events", "anyOf"]);
const HEADER_EXPECT_KEYS = new Set(["present", "absent", "match", "capture", "feature"]);
const EVENT_KEYS = new Set(["id", "event", "data", "json"]);

/** Reads one fixture file; a string says what is wrong with it. */
export function parseHttpFixture(text: string, id: string): HttpFixture | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `${id}: not JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  if (!isObject(value)) return `${id}: expected a JSON object`;
  const extra = unknownKey(value, HEADER_KEYS);
  if (extra !== undefined) return `${id}: unknown member ${extra}`;
  if (value.fixture !== id) return `${id}: "fixture" must be the file's id ${JSON.stringify(id)}, got ${JSON.stringify(value.fixture)}`;
  if (typeof value.title !== "string") return `${id}: "title" must be a string`;
  if (value.era !== "session" && value.era !== "modern") return `${id}: "era" must be "session" or "modern"`;
  if (
    !stringList(value.versions) ||
    value.versions.length === 0 ||
    !value.versions.every((v) => (HTTP_VERSIONS as readonly string[]).includes(v))
  )
    return `${id}: "versions" must list versions among ${HTTP_VERSIONS.join(", ")}`;
  if (!stringList(value.rules) || value.rules.length === 0) return `${id}: "rules" must list at least one rule id`;
  if (!LEVELS.includes(value.level as RuleLevel)) return `${id}: "level" must be one of ${LEVELS.join(", ")}`;
  const requires = value.requires ?? [];
  if (!stringList(requires)) return `${id}: "requires" must be a list of feature names`;
  if (typeof value.spec !== "string") return `${id}: "spec" must be a link`;
  if (!Array.isArray(value.exchanges) || value.exchanges.length === 0) return `${id}: "exchanges" must hold at least one exchange`;
  const exchanges: Exchange[] = [];
  for (let i = 0; i < value.exchanges.length; i++) {
    const exchange = parseExchange(value.exchanges[i]);
    if (typeof exchange === "string") return `${id}: exchange ${i}: ${exchange}`;
    exchanges.push(exchange);
  }
  return {
    fixture: id,
    title: value.title,
    era: value.era,
    versions: value.versions,
    rules: value.rules,
    level: value.level as RuleLevel,
    requires,
    spec: value.spec,
    exchanges,
  };
}

function parseExchange(value: unknown): Exchange | string {
  if (!isObject(value)) return "expected an object";
  const extra = unknownKey(value, EXCHANGE_KEYS);
  if (extra !== undefined) return `unknown member ${extra}`;
  if (typeof value.name !== "string") return '"name" must be a string';
  if (value.setup !== undefined && typeof value.setup !== "boolean") return '"setup" must be a boolean';
  if (value.feature !== undefined && typeof value.feature !== "string") return '"feature" must be a string';
  const request = value.request;
  if (!isObject(request)) return '"request" must be an object';
  const extraRequest = unknownKey(request, REQUEST_KEYS);
  if (extraRequest !== undefined) return `unknown request member ${extraRequest}`;
  if (typeof request.method !== "string" || !/^[A-Z]+$/.test(request.method)) return "request.method must be an HTTP method in capitals";
  const headers = request.headers ?? {};
  if (!isObject(headers) || !Object.values(headers).every((h) => typeof h === "string")) return "request.headers must map names to strings";
  if (request.text !== undefined && typeof request.text !== "string") return "request.text must be a string";
  if (request.text !== undefined && request.json !== undefined) return "request has both json and text";
  const expect = parseExpectations(value.expect);
  if (typeof expect === "string") return `expect: ${expect}`;
  let unsupportedIf: Expectation[] | undefined;
  if (value.unsupportedIf !== undefined) {
    const parsed = parseExpectations(value.unsupportedIf);
    if (typeof parsed === "string") return `unsupportedIf: ${parsed}`;
    if (typeof value.feature !== "string") return 'unsupportedIf needs the "feature" it reveals';
    unsupportedIf = parsed;
  }
  const out: Exchange = {
    name: value.name,
    setup: value.setup === true,
    request: {
      method: request.method,
      headers: headers as Record<string, string>,
      ...(request.json !== undefined ? { json: request.json } : {}),
      ...(typeof request.text === "string" ? { text: request.text } : {}),
    },
    expect,
    ...(unsupportedIf !== undefined ? { unsupportedIf } : {}),
    ...(typeof value.feature === "string" ? { feature: value.feature } : {}),
  };
  return out;
}

/** One expectation, or `{"anyOf": [...]}`: the list of alternatives. */
function parseExpectations(value: unknown): Expectation[] | string {
  if (!isObject(value)) return "expected an object";
  if (value.anyOf !== undefined) {
    if (Object.keys(value).length !== 1) return "anyOf stands alone";
    if (!Array.isArray(value.anyOf) || value.anyOf.length === 0) return "anyOf must list expectations";
    const out: Expectation[] = [];
    for (const alternative of value.anyOf) {
      const parsed = parseExpectation(alternative);
      if (typeof parsed === "string") return parsed;
      out.push(parsed);
    }
    return out;
  }
  const one = parseExpectation(value);
  return typeof one === "string" ? one : [one];
}

function parseExpectation(value: unknown): Expectation | string {
  if (!isObject(value)) return "expected an object";
  const extra = unknownKey(value, EXPECT_KEYS);
  if (extra !== undefined || value.anyOf !== undefined) return `unknown member ${extra ?? "anyOf"}`;
  const status = value.status === undefined ? undefined : Array.isArray(value.status) ? value.status : [value.status];
  if (
    status !== undefined &&
    !status.every((s) => (typeof s === "number" && Number.isInteger(s)) || (typeof s === "string" && /^[1-5]xx$/.test(s)))
  )
    return 'status must be a number, a class such as "4xx", or a list of them';
  if (value.body !== undefined && value.body !== "empty") return 'body must be "empty"';
  const headers = value.headers;
  if (headers !== undefined) {
    if (!isObject(headers)) return "headers must be an object";
    for (const [name, h] of Object.entries(headers)) {
      if (!isObject(h)) return `header ${name}: expected an object`;
      const bad = unknownKey(h, HEADER_EXPECT_KEYS);
      if (bad !== undefined) return `header ${name}: unknown member ${bad}`;
      if (h.match !== undefined && compile(h.match) === undefined) return `header ${name}: match is not a regular expression`;
      if (h.capture !== undefined && typeof h.capture !== "string") return `header ${name}: capture must be a name`;
    }
  }
  if (value.events !== undefined) {
    if (!Array.isArray(value.events)) return "events must be a list";
    for (const e of value.events) {
      if (!isObject(e)) return "each event must be an object";
      const bad = unknownKey(e, EVENT_KEYS);
      if (bad !== undefined) return `event: unknown member ${bad}`;
    }
  }
  const bodies = ["body", "json", "response", "events"].filter((k) => value[k] !== undefined);
  if (bodies.length > 1) return `at most one of body, json, response and events (got ${bodies.join(", ")})`;
  return {
    ...(status !== undefined ? { status: status as StatusPattern[] } : {}),
    ...(headers !== undefined ? { headers: headers as Record<string, HeaderExpectation> } : {}),
    ...(value.body === "empty" ? { body: "empty" as const } : {}),
    ...(value.json !== undefined ? { json: value.json } : {}),
    ...(value.response !== undefined ? { response: value.response } : {}),
    ...(value.events !== undefined ? { events: value.events as EventExpectation[] } : {}),
  };
}

function stringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string");
}

function unknownKey(value: Record<string, unknown>, allowed: ReadonlySet<string>): string | undefined {
  return Object.keys(value).find((k) => !allowed.has(k));
}
