// The HTTP target's requests: what a client (honest, confused or hostile) sends the
// Streamable HTTP handler, and what the fuzzer learned from earlier answers to aim them at
// live state (session ids, event ids, the server's requests, in-flight request ids, the
// legacy endpoint's message URIs). A request is a RequestSpec: method, target, headers, a body
// (bytes given whole, or as a stream cut at random boundaries that may stall or error), and
// what the oracle may expect of its answer (an oversized body reaching the read gets 413).
//
// Invariants: every choice comes from the episode's Rng; header values are visible ASCII or
// tabs only (a Request cannot carry more); pools are bounded (POOL_MAX).

import type { Rng } from "./prng.js";
import type { Corpus } from "./corpus.js";
import { clone, mutateValue, PROTO_NAMES, setMember, type Json } from "./mutate.js";
import { bodySpec, encodeBody, type BodySpec } from "./http-bodies.js";

const POOL_MAX = 32;

export const SESSION_ERA = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] as const;
export const MODERN = "2026-07-28";

/** The handler's configuration as the generator needs it. */
export interface HttpConfig {
  readonly versions: readonly string[];
  readonly eras: "both" | "session" | "modern";
  readonly path: string;
  readonly maxBodyBytes: number;
  readonly legacy: boolean;
  readonly corsOrigin: string | undefined;
  readonly auth: boolean;
}

export interface RequestSpec {
  readonly method: string;
  /** Path and query. */
  readonly target: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: BodySpec | undefined;
  readonly what: string;
  readonly sessionId: string | undefined;
  /** The body is over maxBodyBytes (counted or declared). */
  readonly oversize: boolean;
  /** Nothing before the body read refuses it (Host, Origin, path, method, Accept, Content-Type, auth, version header). */
  readonly reachesRead: boolean;
  /** A GET resuming a stream: the stream and the sequence number it resumes after. */
  readonly resume: { readonly stream: string; readonly seq: number } | undefined;
  /** The request ids this POST carries (to aim cancellations at); its answers carry these ids only. */
  readonly ids: readonly (string | number)[];
  /** The body arrives as the JSON value the ids were read from (not damaged on the way). */
  readonly idsKnown: boolean;
  /** The body is one JSON-RPC request (not a batch): a JSON answer with an id carries that request's id. */
  readonly single: boolean;
  readonly isInitialize: boolean;
  readonly abortable: boolean;
  /** A single 2026-07-28 request as sent (its retry after input_required reuses it). */
  readonly sent: { readonly method: string; readonly params: Json } | undefined;
}

interface Session {
  readonly id: string;
  version: string;
  /** notifications/initialized was sent (a real client sends it first). */
  initialized: boolean;
}

class Pool<T> {
  readonly items: T[] = [];
  add(v: T): void {
    if (this.items.length >= POOL_MAX) this.items.shift();
    this.items.push(v);
  }
  pick(rng: Rng): T | undefined {
    return this.items.length === 0 ? undefined : rng.pick(this.items);
  }
}

type Choice<T> = { readonly value: T; readonly good: boolean };

function pickChoice<T>(rng: Rng, goodChance: number, good: readonly T[], bad: readonly T[]): Choice<T> {
  return rng.chance(goodChance) || bad.length === 0 ? { value: rng.pick(good), good: true } : { value: rng.pick(bad), good: false };
}

/** A base64 sentinel word (MOD-18) for a header value. */
function sentinel(value: string): string {
  return `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`;
}

/** A header value a Request can carry: non-ASCII and control characters go through the sentinel form or are dropped. */
function headerSafe(value: string, rng: Rng): string {
  if (/^[\x20-\x7e\t]*$/.test(value) && value.trim() === value) return value;
  return rng.chance(0.8) ? sentinel(value) : value.replace(/[^\x21-\x7e]/g, "");
}

export class HttpWorld {
  readonly sessions = new Pool<Session>();
  readonly deadSessions = new Pool<string>();
  readonly eventIds = new Pool<{ session: string; id: string }>();
  readonly serverRequests = new Pool<{ session: string | undefined; id: string | number; method: string }>();
  readonly inFlight = new Pool<{ session: string | undefined; id: string | number }>();
  readonly legacyUris = new Pool<string>();
  readonly requestStates = new Pool<{ state: string; keys: string[]; method: string; params: Json }>();
  private nextId = 1;
  /** The session the message being made goes to. */
  private sessionFor: string | undefined;
  /** Whether the body being made is the JSON value it was built from (encodeBody did not damage it). */
  private intact = true;

  constructor(
    readonly rng: Rng,
    readonly config: HttpConfig,
    readonly corpus: Corpus,
  ) {}

  private get modernServed(): boolean {
    return this.config.eras !== "session" && this.config.versions.includes(MODERN);
  }

  private get sessionServed(): boolean {
    return this.config.eras !== "modern";
  }

  freshId(): string | number {
    const n = this.nextId++;
    return this.rng.chance(0.7) ? n : `r${n}`;
  }

  // ── headers ─────────────────────────────────────────────

  private host(): Choice<string> {
    return pickChoice(
      this.rng,
      0.97,
      ["localhost", "localhost:3000", "127.0.0.1", "127.0.0.1:8080", "[::1]", "[::1]:9", "LOCALHOST"],
      ["evil.example", "localhost.evil.example", "localhost:abc", "[::1", "127.0.0.2", "", " "],
    );
  }

  private origin(): Choice<string | undefined> {
    const good: (string | undefined)[] = [undefined, undefined, "http://localhost:3000", "http://127.0.0.1", "https://[::1]:4000"];
    if (this.config.corsOrigin !== undefined) good.push(this.config.corsOrigin);
    return pickChoice<string | undefined>(this.rng, 0.97, good, [
      "https://evil.example",
      "null",
      "localhost",
      "http://localhost.evil.example",
      "file://",
    ]);
  }

  private accept(forGet: boolean): Choice<string | undefined> {
    return forGet
      ? pickChoice<string | undefined>(
          this.rng,
          0.93,
          ["text/event-stream", "application/json, text/event-stream", "text/event-stream;q=0.9"],
          [undefined, "application/json", "*/*", "text/html"],
        )
      : pickChoice<string | undefined>(
          this.rng,
          0.96,
          ["application/json, text/event-stream", "text/event-stream, application/json", "application/json;q=1, text/event-stream;q=0.5"],
          [undefined, "application/json", "text/event-stream", "*/*", ""],
        );
  }

  private contentType(): Choice<string | undefined> {
    return pickChoice<string | undefined>(
      this.rng,
      0.96,
      ["application/json", "application/json; charset=utf-8", "APPLICATION/JSON"],
      [undefined, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""],
    );
  }

  /** Headers every request carries: Host, maybe Origin, maybe Authorization; `good` when none refuses it. */
  private common(headers: Array<[string, string]>): boolean {
    const host = this.host();
    headers.push(["host", host.value]);
    const origin = this.origin();
    if (origin.value !== undefined) headers.push(["origin", origin.value]);
    let authOk = true;
    if (this.config.auth) {
      const auth = pickChoice<string | undefined>(
        this.rng,
        0.9,
        ["Bearer fuzz-token"],
        [undefined, "Bearer wrong", "Basic Zm9v", "Bearer"],
      );
      if (auth.value !== undefined) headers.push(["authorization", auth.value]);
      authOk = auth.good;
    } else if (this.rng.chance(0.05)) headers.push(["authorization", "Bearer whatever"]);
    if (this.rng.chance(0.05)) headers.push(["user-agent", "fuzz/1"]);
    return host.good && origin.good && authOk;
  }

  private initialize(version: string): Json {
    const rng = this.rng;
    const caps: { [k: string]: Json } = {};
    if (rng.chance(0.6)) caps.elicitation = {};
    if (rng.chance(0.4)) caps.sampling = {};
    if (rng.chance(0.4)) caps.roots = { listChanged: true };
    return {
      jsonrpc: "2.0",
      id: this.freshId(),
      method: "initialize",
      params: { protocolVersion: version, capabilities: caps, clientInfo: { name: "fuzz", version: "1" } },
    };
  }

  /** A request of the fixture's server (fixture.ts): its tools, resources, prompts and the methods around them. */
  private fixtureCall(modern: boolean): { method: string; params: { [k: string]: Json } } {
    const rng = this.rng;
    // A progress token sometimes, so that progress notifications flow.
    const tool = (name: string, args: { [k: string]: Json }): { method: string; params: { [k: string]: Json } } => ({
      method: "tools/call",
      params: rng.chance(0.3) ? { name, arguments: args, _meta: { progressToken: `pt${this.nextId}` } } : { name, arguments: args },
    });
    const r = rng.int(20);
    if (r >= 16) return tool(rng.pick(["ask", "sample", "chatty", "slow"]), { n: 3, ms: 10 });
    switch (r) {
      case 0:
        return tool("slow", { ms: rng.pick([1, 10, 100, 1000, 30_000]) });
      case 1:
        return tool("chatty", { n: rng.range(0, 5) });
      case 2:
        return tool("ask", {});
      case 3:
        return tool("boom", {});
      case 4:
        return tool("big", { n: rng.pick([10, 1000, 70_000, 300_000]) });
      case 5:
        return tool("echo", { region: rng.pick(["eu", "us-east", "é", ""]), text: "hi" });
      case 6:
        return tool("t", { x: 1 });
      case 7:
        return { method: "tools/list", params: rng.chance(0.2) ? { cursor: "bogus" } : {} };
      case 8:
        return { method: "resources/read", params: { uri: rng.pick(["file:///a", "file:///b", "file:///nope/x", "mem://x"]) } };
      case 9:
        return { method: "prompts/get", params: { name: rng.pick(["p", "q"]), arguments: { topic: "x" } } };
      case 10:
        return { method: "resources/list", params: {} };
      case 11:
        return modern
          ? { method: "subscriptions/listen", params: { notifications: { toolsListChanged: true, resourcesListChanged: true } } }
          : { method: "resources/subscribe", params: { uri: "file:///a" } };
      case 12:
        return { method: modern ? "server/discover" : "ping", params: {} };
      case 13:
        return { method: "logging/setLevel", params: { level: rng.pick(["debug", "error", "bogus"]) } };
      case 14:
        return {
          method: "completion/complete",
          params: { ref: { type: "ref/prompt", name: "p" }, argument: { name: "topic", value: "x" } },
        };
      default:
        return tool("sample", {});
    }
  }

  /** A corpus message a client sent a server, pointed at this episode (fresh ids), maybe mutated. */
  private corpusMessage(): Json {
    const rng = this.rng;
    let m = clone(rng.pick(this.corpus.peerMessages.server)) as Json;
    const fix = (x: Json): void => {
      if (typeof x === "object" && x !== null && !Array.isArray(x) && typeof x.method === "string" && x.id !== undefined)
        x.id = this.freshId();
    };
    if (Array.isArray(m)) m.forEach(fix);
    else fix(m);
    if (rng.chance(0.3)) m = mutateValue(m, rng, this.corpus.strings);
    return m;
  }

  private modernEnvelope(params: { [k: string]: Json }, version: string): void {
    const rng = this.rng;
    const caps: { [k: string]: Json } = {};
    if (rng.chance(0.5)) caps.elicitation = {};
    if (rng.chance(0.3)) caps.sampling = {};
    const meta: { [k: string]: Json } = {
      "io.modelcontextprotocol/protocolVersion": version,
      "io.modelcontextprotocol/clientCapabilities": caps,
      "io.modelcontextprotocol/clientInfo": { name: "fuzz", version: "1" },
    };
    if (rng.chance(0.1)) meta["io.modelcontextprotocol/logLevel"] = rng.pick(["debug", "error", "bogus"]);
    if (rng.chance(0.05)) delete meta[rng.pick(Object.keys(meta))];
    params._meta = meta;
  }

  // ── requests ────────────────────────────────────────────

  /** A POST to the endpoint: session-era or 2026-07-28, with a known session or none, maybe a batch or damaged. */
  post(): RequestSpec {
    const rng = this.rng;
    const headers: Array<[string, string]> = [];
    let good = this.common(headers);
    const accept = this.accept(false);
    if (accept.value !== undefined) headers.push(["accept", accept.value]);
    const contentType = this.contentType();
    if (contentType.value !== undefined) headers.push(["content-type", contentType.value]);
    good &&= accept.good && contentType.good;

    const modern = this.modernServed && (!this.sessionServed || rng.chance(0.35));
    let value: Json | undefined;
    let raw: string | undefined;
    let sessionId: string | undefined;
    let what: string;
    let isInitialize = false;
    let versionHeader: string | undefined;
    const ids: (string | number)[] = [];
    let sent: RequestSpec["sent"];
    if (modern) {
      const r = rng.int(10);
      let message: { [k: string]: Json };
      if (r < 6) {
        const call = this.fixtureCall(true);
        this.modernEnvelope(call.params, rng.chance(0.95) ? MODERN : rng.pick([...SESSION_ERA, "2099-01-01"]));
        message = { jsonrpc: "2.0", id: this.freshId(), method: call.method, params: call.params };
        if (rng.chance(0.05)) delete message.id;
      } else if (r < 7 && this.requestStates.items.length > 0) {
        // The retry of an input_required answer: the state echoed, the answers given.
        const s = this.requestStates.pick(rng) as { state: string; keys: string[]; method: string; params: Json };
        const params = clone(s.params) as { [k: string]: Json };
        const responses: { [k: string]: Json } = {};
        for (const k of s.keys) responses[k] = { action: rng.pick(["accept", "decline", "cancel"]), content: {} };
        params.inputResponses = responses;
        params.requestState = rng.chance(0.9) ? s.state : `${s.state}x`;
        message = { jsonrpc: "2.0", id: this.freshId(), method: s.method, params };
      } else {
        const m = this.corpusMessage();
        message = (
          typeof m === "object" && m !== null && !Array.isArray(m) ? m : { jsonrpc: "2.0", id: this.freshId(), method: "ping" }
        ) as {
          [k: string]: Json;
        };
      }
      value = message;
      what = `modern ${String(message.method)}`;
      if (typeof message.method === "string") sent = { method: message.method, params: (message.params ?? {}) as Json };
      if (typeof message.id === "string" || typeof message.id === "number") ids.push(message.id);
      // The headers a 2026-07-28 client sends: mostly equal to the body, sometimes encoded, sometimes wrong.
      const params = (typeof message.params === "object" && message.params !== null ? message.params : {}) as { [k: string]: Json };
      const meta = params._meta as { [k: string]: Json } | undefined;
      const bodyVersion = meta?.["io.modelcontextprotocol/protocolVersion"];
      versionHeader = rng.chance(0.95) && typeof bodyVersion === "string" ? bodyVersion : rng.pick([MODERN, "2025-11-25", "bogus"]);
      if (rng.chance(0.97)) headers.push(["mcp-protocol-version", headerSafe(versionHeader, rng)]);
      else versionHeader = undefined;
      const method = typeof message.method === "string" ? message.method : "x";
      if (rng.chance(0.96))
        headers.push([
          "mcp-method",
          rng.chance(0.9) ? headerSafe(method, rng) : rng.pick(["tools/list", "=?base64?@@?=", sentinel(method)]),
        ]);
      const name = typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : undefined;
      if (name !== undefined && rng.chance(0.95)) headers.push(["mcp-name", rng.chance(0.9) ? headerSafe(name, rng) : "other"]);
      const args = params.arguments as { [k: string]: Json } | undefined;
      if (typeof args === "object" && args !== null && "region" in args && rng.chance(0.9)) {
        const region = args.region;
        headers.push(["mcp-param-region", rng.chance(0.9) ? headerSafe(String(region), rng) : "elsewhere"]);
      }
    } else {
      const session = rng.chance(0.9) ? this.sessions.pick(rng) : undefined;
      const r = rng.int(20);
      if (r < 3 || session === undefined) {
        const version = rng.chance(0.9)
          ? rng.pick(this.config.versions.filter((v) => v !== MODERN).concat(SESSION_ERA[3]))
          : rng.pick(["2099-01-01", MODERN, ""]);
        value = this.initialize(version);
        ids.push((value as { id: string | number }).id);
        isInitialize = true;
        what = `initialize ${version}`;
        if (rng.chance(0.1) && session !== undefined) sessionId = session.id;
      } else {
        sessionId = rng.chance(0.95) ? session.id : rng.pick([...this.deadSessions.items, "nope", "fz-00000000-0"]);
        versionHeader = rng.chance(0.8) ? session.version : rng.chance(0.5) ? undefined : rng.pick([MODERN, "1.0", "2025-13-01"]);
        this.sessionFor = sessionId;
        value = this.sessionMessage(r, ids);
        what = `session ${Array.isArray(value) ? `batch of ${value.length}` : String((value as { method?: Json })?.method ?? "answer")}`;
      }
      if (versionHeader !== undefined) headers.push(["mcp-protocol-version", headerSafe(versionHeader, rng)]);
      if (sessionId !== undefined) headers.push(["mcp-session-id", headerSafe(sessionId, rng)]);
    }
    if (rng.chance(0.03)) raw = rng.pick(["", "{", "not json", "\u0000", '{"jsonrpc":"2.0","id":1,"method":"ping"}garbage']);
    const { bytes, intact } = encodeBody(this.rng, value, raw, this.config.maxBodyBytes);
    this.intact = intact;
    const body = bodySpec(this.rng, bytes);
    const declared = this.declaredLength(headers, bytes.length);
    const limit = this.config.maxBodyBytes;
    const oversize = bytes.length > limit || (declared !== undefined && Number(declared) > limit);
    // The version header is checked before the body only on the session path (a session id, or no 2026-07-28 served).
    const versionBlocks =
      versionHeader !== undefined &&
      !(SESSION_ERA as readonly string[]).includes(versionHeader) &&
      this.config.eras !== "modern" &&
      (sessionId !== undefined || !this.modernServed);
    const path = this.path();
    return {
      method: "POST",
      target: path.value,
      headers,
      body,
      what: `POST ${path.value} ${what} (${bytes.length} B as ${body.as}${body.stallAfter !== undefined ? `, stalls after ${body.stallAfter}` : ""}${body.errorAt !== undefined ? `, errors at ${body.errorAt}` : ""})`,
      sessionId,
      oversize,
      reachesRead: good && path.good && !versionBlocks,
      resume: undefined,
      ids: this.intact ? ids : [],
      idsKnown: this.intact,
      single: this.intact && ids.length === 1 && typeof value === "object" && value !== null && !Array.isArray(value),
      isInitialize,
      abortable: rng.chance(0.15),
      sent,
    };
  }

  private sessionMessage(pick: number, ids: (string | number)[]): Json {
    let r = pick;
    const rng = this.rng;
    const request = (): Json => {
      const call = this.fixtureCall(false);
      const id = this.freshId();
      ids.push(id);
      return { jsonrpc: "2.0", id, method: call.method, params: call.params };
    };
    // The server asked something on this session: answer it often (elicitation and sampling round trips).
    if (this.serverRequests.items.some((q) => q.session === this.sessionFor) && rng.chance(0.4)) r = 11;
    const session = this.sessions.items.find((x) => x.id === this.sessionFor);
    if (session !== undefined && !session.initialized && rng.chance(0.8)) r = 0;
    if (r < 5) {
      if (session !== undefined) session.initialized = true;
      return { jsonrpc: "2.0", method: "notifications/initialized" };
    }
    if (r < 11) return request();
    if (r < 13) {
      const mine = this.serverRequests.items.filter((q) => q.session === this.sessionFor);
      const asked = mine.length > 0 && rng.chance(0.9) ? rng.pick(mine) : this.serverRequests.pick(rng);
      const id = asked?.id ?? rng.pick([0, 1, "x"]);
      return rng.chance(0.8)
        ? { jsonrpc: "2.0", id, result: asked?.method === "elicitation/create" ? { action: "accept", content: {} } : {} }
        : { jsonrpc: "2.0", id, error: { code: -1, message: "no" } };
    }
    if (r < 14) {
      const target = this.inFlight.pick(rng);
      return { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: target?.id ?? 99, reason: "fuzz" } };
    }
    if (r < 16) {
      const n = rng.range(rng.chance(0.1) ? 0 : 1, 5);
      const batch: Json[] = [];
      for (let i = 0; i < n; i++)
        batch.push(
          rng.chance(0.7)
            ? request()
            : rng.chance(0.5)
              ? { jsonrpc: "2.0", method: "notifications/initialized" }
              : rng.pick<Json>([1, null, {}, []]),
        );
      return batch;
    }
    const m = this.corpusMessage();
    for (const item of Array.isArray(m) ? m : [m])
      if (typeof item === "object" && item !== null && !Array.isArray(item) && (typeof item.id === "string" || typeof item.id === "number"))
        ids.push(item.id);
    if (typeof m === "object" && m !== null && !Array.isArray(m) && rng.chance(0.03)) setMember(m, rng.pick(PROTO_NAMES), {});
    return m;
  }

  private declaredLength(headers: Array<[string, string]>, length: number): string | undefined {
    const rng = this.rng;
    if (!rng.chance(0.3)) return undefined;
    const value = rng.chance(0.7)
      ? String(length)
      : rng.pick(["0", "1", "99999999999", "abc", "-1", "1e9", String(this.config.maxBodyBytes + 1)]);
    headers.push(["content-length", value]);
    return value;
  }

  private path(): Choice<string> {
    const main = this.config.path;
    return pickChoice(this.rng, 0.96, [main, `${main}?x=1`], ["/", "/other", `${main}/`, `${main}x`, "/MCP", "/.well-known/x"]);
  }

  /** A GET: the session's stream, a resumption after a known (or bogus) event id, the legacy SSE stream. */
  get(): RequestSpec {
    const rng = this.rng;
    const headers: Array<[string, string]> = [];
    this.common(headers);
    if (this.config.legacy && rng.chance(0.2)) {
      return this.simple("GET", "/sse", headers, "legacy SSE open", undefined, undefined, rng.chance(0.3));
    }
    const accept = this.accept(true);
    if (accept.value !== undefined) headers.push(["accept", accept.value]);
    const session = this.sessions.pick(rng);
    const sessionId = session !== undefined && rng.chance(0.93) ? session.id : rng.chance(0.5) ? this.deadSessions.pick(rng) : undefined;
    if (sessionId !== undefined) headers.push(["mcp-session-id", sessionId]);
    if (rng.chance(0.85) && session !== undefined) headers.push(["mcp-protocol-version", rng.chance(0.95) ? session.version : "bogus"]);
    let resume: RequestSpec["resume"];
    if (rng.chance(0.35)) {
      const known = this.eventIds.items.filter((e) => e.session === sessionId);
      const id =
        known.length > 0 && rng.chance(0.85)
          ? rng.pick(known).id
          : rng.pick(["s0:0", "x", ":1", "s0:-1", "s9999:1", "s0:99999999999999999999"]);
      headers.push(["last-event-id", id]);
      const colon = id.lastIndexOf(":");
      const seq = Number(id.slice(colon + 1));
      if (colon > 0 && Number.isSafeInteger(seq) && seq >= 0) resume = { stream: id.slice(0, colon), seq };
    }
    return this.simple(
      "GET",
      this.path().value,
      headers,
      `GET stream${resume !== undefined ? ` after ${resume.stream}:${resume.seq}` : ""}`,
      sessionId,
      resume,
      rng.chance(0.2),
    );
  }

  delete(): RequestSpec {
    const rng = this.rng;
    const headers: Array<[string, string]> = [];
    this.common(headers);
    const session = this.sessions.pick(rng);
    const sessionId = session !== undefined && rng.chance(0.9) ? session.id : rng.chance(0.5) ? this.deadSessions.pick(rng) : undefined;
    if (sessionId !== undefined) headers.push(["mcp-session-id", sessionId]);
    return this.simple("DELETE", this.path().value, headers, "DELETE", sessionId, undefined, false);
  }

  /** Other methods and paths: PUT, PATCH, OPTIONS (a CORS preflight when configured), HEAD, the legacy message path. */
  other(): RequestSpec {
    const rng = this.rng;
    const headers: Array<[string, string]> = [];
    this.common(headers);
    const r = rng.int(6);
    if (r === 0 && this.config.legacy) {
      const uri = this.legacyUris.pick(rng) ?? "/messages?sessionId=nope";
      headers.push(["accept", "application/json, text/event-stream"], ["content-type", "application/json"]);
      const value = rng.chance(0.7)
        ? { jsonrpc: "2.0", id: this.freshId(), method: rng.pick(["initialize", "ping", "tools/list"]), params: {} }
        : this.corpusMessage();
      const { bytes } = encodeBody(rng, value, undefined, this.config.maxBodyBytes);
      return {
        ...this.simple("POST", rng.chance(0.9) ? uri : "/messages", headers, "legacy message", undefined, undefined, false),
        body: bodySpec(rng, bytes),
        oversize: bytes.length > this.config.maxBodyBytes,
      };
    }
    if (r === 1) {
      headers.push(
        ["origin", this.config.corsOrigin ?? "http://localhost:3000"],
        ["access-control-request-method", rng.pick(["POST", "GET", "PUT", "DELETE"])],
      );
      if (rng.chance(0.6))
        headers.push(["access-control-request-headers", rng.pick(["content-type, mcp-session-id", "x-evil", "mcp-param-region", ""])]);
      return this.simple("OPTIONS", this.config.path, headers, "preflight", undefined, undefined, false);
    }
    const method = rng.pick(["PUT", "PATCH", "HEAD", "OPTIONS", "CONNECTX", "post"]);
    return this.simple(method, this.path().value, headers, method, undefined, undefined, false);
  }

  private simple(
    method: string,
    target: string,
    headers: Array<[string, string]>,
    what: string,
    sessionId: string | undefined,
    resume: RequestSpec["resume"],
    abortable: boolean,
  ): RequestSpec {
    return {
      method,
      target,
      headers,
      body: undefined,
      what: `${what} ${target}`,
      sessionId,
      oversize: false,
      reachesRead: false,
      resume,
      ids: [],
      idsKnown: false,
      single: false,
      isInitialize: false,
      abortable,
      sent: undefined,
    };
  }

  // ── learning ────────────────────────────────────────────

  /** A session minted by an initialize answer. */
  minted(id: string, version: string): void {
    if (this.sessions.items.some((s) => s.id === id)) return;
    this.sessions.add({ id, version, initialized: false });
  }

  ended(id: string): void {
    const i = this.sessions.items.findIndex((s) => s.id === id);
    if (i >= 0) this.sessions.items.splice(i, 1);
    this.deadSessions.add(id);
  }

  /** What one message the server sent teaches: its requests (to answer), input_required states (to retry). */
  learn(session: string | undefined, message: unknown, request: { method: string; params: Json } | undefined): void {
    if (typeof message !== "object" || message === null) return;
    if (Array.isArray(message)) {
      for (const m of message.slice(0, 20)) this.learn(session, m, undefined);
      return;
    }
    const m = message as {
      id?: unknown;
      method?: unknown;
      result?: { resultType?: unknown; requestState?: unknown; inputRequests?: unknown };
    };
    if (typeof m.method === "string" && (typeof m.id === "string" || typeof m.id === "number"))
      this.serverRequests.add({ session, id: m.id, method: m.method });
    const result = m.result;
    if (request !== undefined && typeof result === "object" && result !== null && typeof result.requestState === "string") {
      const keys =
        typeof result.inputRequests === "object" && result.inputRequests !== null ? Object.keys(result.inputRequests).slice(0, 8) : [];
      this.requestStates.add({ state: result.requestState, keys, method: request.method, params: request.params });
    }
  }
}
