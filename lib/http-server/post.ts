// POSTs on the Streamable HTTP endpoint (RULES.md HTTP-01, HTTP-02, HTTP-03, MOD-20): reading the body within its
// limit, picking the era, a 2026-07-28 request fed to a ServerSession of its own (its
// headers checked against the body first), a session-era POST routed to its session's
// streams, and the initialize that mints a session. What it needs of the endpoint is
// PostEndpoint: the options and the Server, the session table, and the endpoint's services
// named there (HttpEndpoint implements it).
//
// Invariants:
// - the body is read only up to maxBodyBytes (413 beyond, never parsed) and within
//   requestTimeoutMs where the carrier enforces it (408 after);
// - a session is minted only for an initialize the engine answered with a result; a
//   refused or malformed one gets 400 and leaves nothing behind;
// - a notification-only POST that is not well-formed JSON-RPC gets 400, never 202;
// - a client that disconnects mid-request does not cancel it (session era); only
//   notifications/cancelled does, and it ends the stream that awaited the cancelled request;
// - 2026-07-28 requests keep no state beyond their own POST: no Mcp-Session-Id is minted or echoed.

import type { Outbound } from "../engine/engine.js";
import { isJsonObject, isRequestId, type JsonObject, type RequestId } from "../wire/envelope.js";
import { httpHeaderProblem, paramHeaderProblem } from "../http/headers.js";
import {
  acceptsPost,
  batchesAllowed,
  firstMalformed,
  initializeOutcome,
  initializeShapeProblem,
  isJsonContentType,
  malformedItem,
  postEra,
  requestIdsOf,
  sessionVersionHeaderOk,
} from "../http/server-rules.js";
import { HttpStatus, REFUSALS } from "../http/status.js";
import { hasModernEnvelope, readRequestEnvelope, type ModernRefusal } from "../rules/modern.js";
import { SESSION_VERSIONS, type ModernVersion } from "../rules/versions.js";
import type { AuthInfo } from "../auth/types.js";
import { answerJson, refuse, refuseUnread, type HttpIncoming, type HttpReply } from "./channel.js";
import type { Cluster } from "./cluster.js";
import { ModernExchange, type ExchangeHost } from "./exchange.js";
import { REQUEST_ID_BLOCK, type ResolvedHttpOptions } from "./options.js";
import { HttpSession, type SessionHost, type SessionTable } from "./session.js";
import type { TransportRequestInfo } from "../peer/server/context.js";
import type { Server } from "../peer/server/server.js";

/** What POST handling needs of its endpoint (HttpEndpoint). */
export interface PostEndpoint extends SessionTable, SessionHost, ExchangeHost {
  readonly options: ResolvedHttpOptions;
  /** The Server whose sessions the POSTs feed (a tool's inputSchema is read for Mcp-Param-* headers). */
  readonly server: Pick<Server, "connect" | "tools">;
  /** The 2026-07-28 versions served (empty: session era only). */
  readonly modernVersions: readonly ModernVersion[];
  readonly cluster: Pick<Cluster, "shared" | "forward" | "mailFor" | "mails" | "announce" | "readerToken" | "streamNumber">;
  /** SessionTable's, restated: SessionHost names it too, with fewer reasons. */
  endSession(session: HttpSession, why?: "ended" | "idle" | "shutdown" | "elsewhere"): void;
  /** The session a request names (HTTP-03): 400 when it names none, 404 when it is unknown or ended (answered; undefined then). */
  sessionOf(incoming: HttpIncoming, reply: HttpReply): Promise<HttpSession | undefined>;
  /** maxSessions: at the cap, a new session is refused 503 (answered; true then). */
  sessionsFull(reply: HttpReply, id: RequestId | undefined): boolean;
  /** Writes the session's snapshot to the SessionStore; settles once the store has it (failures go to onError). */
  save(session: HttpSession): Promise<void>;
  /** What handlers see of the HTTP request that carried theirs (ctx.http, ctx.auth). */
  transportInfo(incoming: HttpIncoming, sessionId: string | undefined, auth: AuthInfo | undefined): TransportRequestInfo;
}

export class PostHandling {
  constructor(private readonly endpoint: PostEndpoint) {}

  private get options(): ResolvedHttpOptions {
    return this.endpoint.options;
  }

  /** The body parsed as JSON; undefined when it was refused (the answer is written). */
  async readJson(incoming: HttpIncoming, reply: HttpReply): Promise<{ value: unknown } | undefined> {
    const limit = this.options.maxBodyBytes;
    const read = await incoming.readBody(limit);
    switch (read.kind) {
      case "parsed":
        return { value: read.value };
      case "too-large":
        refuse(reply, "tooLarge", `Request body over ${limit} bytes`);
        return undefined;
      case "too-slow":
        refuse(reply, "requestTimeout", `LIM-11: expected the whole body within ${read.deadlineMs} ms; ${read.received} bytes came`);
        return undefined;
      case "not-utf8":
        refuse(reply, "parseError", "Body is not UTF-8");
        return undefined;
      case "aborted":
        // Nobody is listening; end the answer quietly.
        if (!reply.headSent) refuse(reply, "invalidRequest", "Request aborted");
        return undefined;
      case "text":
        try {
          return { value: JSON.parse(read.text) as unknown };
        } catch {
          refuse(reply, "parseError", "Parse error");
          return undefined;
        }
    }
  }

  async post(incoming: HttpIncoming, reply: HttpReply, auth: AuthInfo | undefined): Promise<void> {
    if (!acceptsPost(incoming.header("accept"))) {
      refuseUnread(incoming, reply, "notAcceptable", "Accept must list application/json and text/event-stream");
      return;
    }
    if (!isJsonContentType(incoming.header("content-type"))) {
      refuseUnread(incoming, reply, "unsupportedMediaType", "Content-Type must be application/json");
      return;
    }
    const endpoint = this.endpoint;
    const sessionId = incoming.header("mcp-session-id");
    // Session-era traffic (a session id, or a Server without 2026-07-28) goes the way it always went.
    if (endpoint.modernVersions.length === 0 || (sessionId !== undefined && this.options.eras !== "modern"))
      return this.postSession(incoming, reply, undefined, auth);
    // No session id: the body says which era this is (MOD-23), so read it first.
    const body = await this.readJson(incoming, reply);
    if (body === undefined) return;
    if (postEra(body.value, incoming.header("mcp-protocol-version"), endpoint.modernVersions, this.options.eras === "modern") === "modern")
      return this.postModern(incoming, reply, body.value as JsonObject, auth);
    if (this.options.eras === "modern") return this.refuseSessionEra(reply, body.value);
    return this.postSession(incoming, reply, body, auth);
  }

  /** A modern-only endpoint refuses session-era traffic: initialize names the versions served (MOD-22), anything else is not a 2026-07-28 message. */
  private refuseSessionEra(reply: HttpReply, body: unknown): void {
    if (isJsonObject(body) && body.method === "initialize") {
      const requested = isJsonObject(body.params) ? body.params.protocolVersion : undefined;
      const data = { supported: [...this.endpoint.modernVersions], requested: typeof requested === "string" ? requested : null };
      refuse(reply, "unsupportedVersion", "Unsupported protocol version", isRequestId(body.id) ? body.id : undefined, data);
      return;
    }
    const what = Array.isArray(body)
      ? "a batch"
      : isJsonObject(body) && body.method === undefined
        ? "a response"
        : "not a JSON-RPC request or notification";
    refuse(reply, "invalidRequest", `Invalid request: ${what} (2026-07-28 takes one request or notification per POST)`);
  }

  /**
   * One 2026-07-28 message (MOD-20): a notification is accepted (202; there is no session for it
   * to act on, and over HTTP a request is cancelled by closing its stream); a request is
   * checked (envelope present, headers equal to the body) and fed to a ServerSession of its
   * own, which checks the rest (version, capabilities, method) and answers on this POST.
   */
  private postModern(incoming: HttpIncoming, reply: HttpReply, message: JsonObject, auth: AuthInfo | undefined): void {
    const method = message.method as string;
    if (!("id" in message)) {
      // HTTP-02, MOD-20: a notification the server cannot accept gets an HTTP error, not 202.
      const problem = malformedItem(message);
      if (problem !== undefined) {
        refuse(reply, "invalidRequest", `Invalid request: ${problem}`);
        return;
      }
      reply.head(HttpStatus.accepted, { "Content-Length": "0" });
      reply.end();
      return;
    }
    const id = message.id;
    if (!isRequestId(id)) {
      refuse(reply, "invalidRequest", "Invalid request: the id must be a string or an integer");
      return;
    }
    const params = isJsonObject(message.params) ? message.params : undefined;
    let refusal: ModernRefusal | undefined;
    if (!hasModernEnvelope(params)) {
      const read = readRequestEnvelope(params, this.endpoint.modernVersions);
      refusal = "code" in read ? read : undefined;
    }
    const headers = { get: (name: string) => incoming.header(name) };
    refusal ??= httpHeaderProblem(headers, method, params);
    if (refusal === undefined && method === "tools/call" && typeof params?.name === "string") {
      // Mcp-Param-* follow the tool's own inputSchema; an unknown tool is left to the session (-32602).
      const tool = this.endpoint.server.tools.get(params.name);
      if (tool !== undefined) refusal = paramHeaderProblem(headers, tool.definition.inputSchema, params.arguments);
    }
    if (refusal !== undefined) {
      answerJson(reply, refusal.httpStatus, {
        jsonrpc: "2.0",
        id,
        error:
          refusal.data === undefined
            ? { code: refusal.code, message: refusal.message }
            : { code: refusal.code, message: refusal.message, data: refusal.data as JsonObject },
      });
      return;
    }
    const exchange = new ModernExchange(this.endpoint, reply, id);
    this.endpoint.exchanges.add(exchange);
    exchange.session = this.endpoint.server.connect(exchange.host);
    exchange.session.receiveMessage(message, this.endpoint.transportInfo(incoming, undefined, auth));
    if (exchange.mode === "pending" && this.options.responseMode === "sse") exchange.startSse();
  }

  /** Session-era POST: `parsed` is the body when it was already read (a dual-era endpoint reads it to pick the era). */
  private async postSession(
    incoming: HttpIncoming,
    reply: HttpReply,
    parsed: { value: unknown } | undefined,
    auth: AuthInfo | undefined,
  ): Promise<void> {
    if (!sessionVersionHeaderOk(incoming.header("mcp-protocol-version"))) {
      if (parsed === undefined) incoming.skipBody();
      refuse(reply, "invalidRequest", `Unsupported MCP-Protocol-Version; supported: ${SESSION_VERSIONS.join(", ")}`);
      return;
    }
    const read = parsed ?? (await this.readJson(incoming, reply));
    if (read === undefined) return;
    const body = read.value;
    const items = Array.isArray(body) ? body : [body];
    const isInitialize = items.some((m) => isJsonObject(m) && m.method === "initialize");
    if (isInitialize) return this.initialize(incoming, reply, body, auth);
    const endpoint = this.endpoint;
    const session = await endpoint.sessionOf(incoming, reply);
    if (session === undefined) return;
    if (Array.isArray(body) && !batchesAllowed(session.session.engine.negotiatedVersion)) {
      refuse(reply, "invalidRequest", `Batches are allowed only under ${SESSION_VERSIONS.filter((v) => batchesAllowed(v)).join(", ")}`);
      return;
    }
    session.touch();
    const requestIds = requestIdsOf(items);
    if (requestIds.size === 0) {
      // HTTP-02: notifications and responses the server cannot accept get an HTTP error, not 202; the engine sees none of them.
      const malformed = firstMalformed(items);
      if (malformed !== undefined) {
        const where = Array.isArray(body) ? `batch member ${malformed.index}: ` : "";
        refuse(reply, "invalidRequest", `Invalid request: ${where}${malformed.problem}`);
        return;
      }
    }
    // Several processes: answers to server requests another node awaits go there (cluster.ts).
    const local = endpoint.cluster.forward(session, items);
    if (local.length === 0 && items.length > 0) {
      reply.head(HttpStatus.accepted, { "Content-Length": "0" });
      reply.end();
      return;
    }
    const fed = Array.isArray(body) ? local : local[0];
    const stream = session.newStream(
      reply,
      requestIds,
      Array.isArray(body) && requestIds.size > 0,
      requestIds.size === 0 ? REFUSALS.invalidRequest.status : HttpStatus.ok,
    );
    for (const id of requestIds) {
      // An id still owned by an open stream is a duplicate in flight: the engine refuses it on this stream.
      const prior = session.owners.get(id);
      if (prior === undefined || !prior.open) session.owners.set(id, stream);
    }
    session.current = stream;
    try {
      session.session.receiveMessage(fed, endpoint.transportInfo(incoming, session.id, auth));
    } finally {
      session.current = undefined;
    }
    for (const m of local) session.endCancelled(stream, m);
    if (requestIds.size === 0) {
      // Notifications and responses only: 202 with no body, unless the engine refused something (then its error).
      if (stream.mode === "pending" && stream.seq === 0 && !reply.headSent) {
        // Several processes (CL-01): the 202 waits until the store holds what the messages changed
        // (notifications/initialized moves the phase), so the client's next request finds it on any node.
        if (endpoint.cluster.shared && !session.session.engine.isClosed) await endpoint.save(session);
        reply.head(HttpStatus.accepted, { "Content-Length": "0" });
        reply.end();
        stream.mode = "done";
      }
      session.streams.delete(stream.id);
    } else if (this.options.responseMode === "sse" && stream.mode === "pending") {
      stream.startSse();
    }
    if (session.session.engine.isClosed) endpoint.endSession(session);
    else endpoint.save(session);
  }

  /**
   * A session-era initialize (defect 10.4): a session is minted only when the engine answers it
   * with a result. What the engine sends meanwhile is held; a refusal is answered 400 with the
   * engine's JSON-RPC error and nothing is kept. The Server answers initialize synchronously
   * (its engine's autoInitialize), so the outcome is known when receiveMessage returns.
   */
  private async initialize(incoming: HttpIncoming, reply: HttpReply, body: unknown, auth: AuthInfo | undefined): Promise<void> {
    const shape = initializeShapeProblem(body);
    if (shape !== undefined) {
      refuse(reply, "invalidRequest", `Invalid request: ${shape}`);
      return;
    }
    const endpoint = this.endpoint;
    const id = (body as JsonObject).id as RequestId;
    if (endpoint.sessionsFull(reply, id)) return;
    const session = new HttpSession(this.options.sessionId(), endpoint);
    const captured: Outbound[] = [];
    session.captured = captured;
    session.session = endpoint.server.connect(session.host);
    session.session.receiveMessage(body, endpoint.transportInfo(incoming, session.id, auth));
    session.captured = undefined;
    const outcome = initializeOutcome(
      captured.map((o) => o.message),
      id,
    );
    if (outcome.kind !== "accepted") {
      session.end();
      if (outcome.kind === "refused") answerJson(reply, REFUSALS.refusedInitialize.status, outcome.answer);
      else refuse(reply, "internal", "Internal error: initialize was not answered", id);
      return;
    }
    // CL-08: the node that made the session has the first block of request ids; others reserve theirs.
    if (endpoint.cluster.shared && this.options.store.reserveRequestIds !== undefined)
      session.session.engine.useRequestIds(0, REQUEST_ID_BLOCK);
    if (endpoint.cluster.shared && !(await this.saved(session))) {
      // Several processes: a session the others cannot find would be a session id that fails on the next node.
      session.end(false);
      refuse(reply, "internal", "Internal error: the shared session store is unavailable; retry later", id);
      return;
    }
    endpoint.sessions.set(session.id, session);
    reply.setHeader("Mcp-Session-Id", session.id);
    session.touch();
    const stream = session.newStream(reply, new Set([id]), false);
    session.owners.set(id, stream);
    session.current = stream;
    try {
      for (const outbound of captured) session.route(outbound);
    } finally {
      session.current = undefined;
    }
    if (this.options.responseMode === "sse" && stream.mode === "pending") stream.startSse();
    endpoint.save(session);
  }

  /** Whether the session's first snapshot reached the store (the failure reported to onError). */
  private async saved(session: HttpSession): Promise<boolean> {
    try {
      const snapshot = session.session.engine.snapshot();
      await this.options.store.put(session.id, snapshot);
      session.stored = JSON.stringify(snapshot);
      session.inStore = true;
      return true;
    } catch (error) {
      this.options.onError(error);
      return false;
    }
  }
}
