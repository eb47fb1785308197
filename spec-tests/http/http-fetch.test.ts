// The portable Streamable HTTP endpoint driven through its fetch handler with Request objects
// only: no socket is opened. Both eras, JSON and SSE answers, resumption (also across two
// handlers sharing their stores), limits, Host/Origin, CORS preflights, the authenticate
// hook (a Response refusal, AuthInfo on ctx.auth, the request on ctx.http), and close().

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  createHttpHandler,
  MemoryEventStore,
  MemorySessionStore,
  type HttpHandler,
  type HttpHandlerOptions,
} from "../../lib/http-server/index.js";
import { Server } from "../../lib/peer/server/server.js";

const LATEST = "2025-11-25";
const MODERN = "2026-07-28";
const ACCEPT = "application/json, text/event-stream";
type Json = { [key: string]: unknown };

function fixture(
  seen: { auth: unknown[]; sessions: (string | undefined)[]; agents: (string | undefined)[] } = { auth: [], sessions: [], agents: [] },
): Server {
  const server = new Server({ info: { name: "fetch-fixture", version: "1.0.0" }, versions: [LATEST, "2025-03-26", MODERN] });
  server.tool("echo", { inputSchema: { type: "object", properties: { text: { type: "string" } } } }, (args, ctx) => {
    seen.auth.push(ctx.auth);
    seen.sessions.push(ctx.http?.sessionId);
    seen.agents.push(ctx.http?.header("user-agent"));
    return { content: [{ type: "text", text: String(args.text) }] };
  });
  server.tool("chatty", {}, async (_args, ctx) => {
    ctx.log("info", "working");
    return { content: [{ type: "text", text: "done" }] };
  });
  return server;
}

function post(body: unknown, headers: Record<string, string> = {}, url = "http://localhost/mcp"): Request {
  return new Request(url, {
    method: "POST",
    headers: { host: "localhost", accept: ACCEPT, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

const initialize = (id: number | string = 1, version = LATEST): Json => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "t", version: "1" } },
});

async function open(handler: HttpHandler, version = LATEST): Promise<string> {
  const res = await handler.fetch(post(initialize(1, version)));
  assert.equal(res.status, 200);
  const id = res.headers.get("mcp-session-id");
  assert.ok(id !== null && id.length > 10, "a session id is minted");
  await res.text();
  const ack = await handler.fetch(
    post({ jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": id, "mcp-protocol-version": version }),
  );
  assert.equal(ack.status, 202);
  return id;
}

/** Reads SSE frames from a response until `count` data frames with JSON arrived. */
async function sseMessages(res: Response, count: number): Promise<{ ids: string[]; messages: Json[] }> {
  const reader = (res.body as ReadableStream).getReader();
  const decoder = new TextDecoder();
  let text = "";
  const ids: string[] = [];
  const messages: Json[] = [];
  while (messages.length < count) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = text.indexOf("\n\n")) >= 0) {
      const frame = text.slice(0, end);
      text = text.slice(end + 2);
      const id = /^id: (.*)$/m.exec(frame)?.[1];
      if (id !== undefined) ids.push(id);
      const data = /^data: (.+)$/m.exec(frame)?.[1];
      if (data !== undefined) messages.push(JSON.parse(data) as Json);
    }
  }
  reader.cancel().catch(() => undefined);
  return { ids, messages };
}

function handlerOf(options: HttpHandlerOptions = {}, server = fixture()): HttpHandler {
  return createHttpHandler(server, { onError: () => {}, ...options });
}

test("HTTP-03, HTTP-07: fetch handler: initialize mints a session, requests answer as JSON, DELETE ends it", async () => {
  const handler = handlerOf();
  const id = await open(handler);
  const res = await handler.fetch(
    post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } }, { "mcp-session-id": id }),
  );
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/json");
  const answer = (await res.json()) as { result: { content: { text: string }[] } };
  assert.equal(answer.result.content[0]?.text, "hi");
  const del = await handler.fetch(
    new Request("http://localhost/mcp", { method: "DELETE", headers: { host: "localhost", "mcp-session-id": id } }),
  );
  assert.equal(del.status, 200);
  const after = await handler.fetch(post({ jsonrpc: "2.0", id: 3, method: "tools/list" }, { "mcp-session-id": id }));
  assert.equal(after.status, 404);
  assert.equal(handler.endpoint.sessions.size, 0);
});

test("HTTP-01, HTTP-02: fetch handler: refusals come from the status table (403, 404, 405, 406, 415, 400, 413)", async () => {
  const handler = handlerOf({ maxBodyBytes: 64 });
  const cases: [Request, number, number][] = [
    [post(initialize(), { host: "evil.example" }), 403, -32600],
    [post(initialize(), {}, "http://localhost/other"), 404, -32600],
    [new Request("http://localhost/mcp", { method: "PUT", headers: { host: "localhost" } }), 405, -32600],
    [post(initialize(), { accept: "application/json" }), 406, -32600],
    [post(initialize(), { "content-type": "text/plain" }), 415, -32600],
    [
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { host: "localhost", accept: ACCEPT, "content-type": "application/json" },
        body: "{oops",
      }),
      400,
      -32700,
    ],
    [post({ jsonrpc: "2.0", id: 1, method: "x", params: { pad: "x".repeat(100) } }), 413, -32600],
  ];
  for (const [request, status, code] of cases) {
    const res = await handler.fetch(request);
    assert.equal(res.status, status, `${request.method} ${request.url}`);
    const body = (await res.json()) as { error: { code: number } };
    assert.equal(body.error.code, code);
  }
  assert.equal(handler.endpoint.sessions.size, 0, "no refusal leaves a session behind");
});

/** An endless request body: how often it was pulled, and whether it was cancelled. */
function endlessBody(chunk = 512): { body: ReadableStream; pulled(): number; cancelled(): boolean } {
  let pulled = 0;
  let cancelled = false;
  const body = new ReadableStream({
    pull(controller) {
      pulled++;
      controller.enqueue(new Uint8Array(chunk).fill(32));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { body, pulled: () => pulled, cancelled: () => cancelled };
}

function streamedPost(body: ReadableStream, headers: Record<string, string> = {}, url = "http://localhost/mcp"): Request {
  return new Request(url, {
    method: "POST",
    headers: { host: "localhost", accept: ACCEPT, "content-type": "application/json", ...headers },
    body,
    duplex: "half",
  });
}

const turns = (n: number): Promise<void> => new Promise<void>((resolve) => setTimeout(resolve, n));

test("LIM-09: fetch handler: a streamed body over the limit: 413 with Connection: close, reading stops at the limit, the stream left unread (not cancelled)", async () => {
  const handler = handlerOf({ maxBodyBytes: 1024 });
  const endless = endlessBody();
  const res = await handler.fetch(streamedPost(endless.body));
  assert.equal(res.status, 413);
  assert.equal(res.headers.get("connection"), "close", "the connection goes with the answer");
  await turns(20);
  const pulled = endless.pulled();
  await turns(20);
  assert.equal(endless.pulled(), pulled, "nothing more is read");
  assert.ok(pulled <= 4, `read ${pulled} chunks of an endless body`);
  // A runtime that sees the stream cancelled reads and discards the rest (Bun, at line rate); left unread, it stops reading.
  assert.equal(endless.cancelled(), false, "the stream is not cancelled");
});

test("LIM-09: fetch handler: a declared length over the limit: 413 with Connection: close, the body never read", async () => {
  const handler = handlerOf({ maxBodyBytes: 1024 });
  const endless = endlessBody();
  const res = await handler.fetch(streamedPost(endless.body, { "content-length": String(2 ** 40) }));
  assert.equal(res.status, 413);
  assert.equal(res.headers.get("connection"), "close");
  await turns(20);
  assert.ok(endless.pulled() <= 1, `pulled ${endless.pulled()} times`);
  assert.equal(endless.cancelled(), false);
});

test("LIM-11: fetch handler: a body not all there within requestTimeoutMs: 408 with Connection: close and the rule's message", async () => {
  const handler = handlerOf({ requestTimeoutMs: 50 });
  let cancelled = false;
  const body = new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"jsonrpc":'));
    },
    cancel() {
      cancelled = true;
    },
  });
  const started = Date.now();
  // The handler's timers do not hold the process open (a server's never do): this one does, meanwhile.
  const hold = setTimeout(() => undefined, 10_000);
  const res = await handler.fetch(streamedPost(body)).finally(() => clearTimeout(hold));
  assert.equal(res.status, 408);
  assert.equal(res.headers.get("connection"), "close");
  const answer = (await res.json()) as { error: { code: number; message: string } };
  assert.equal(answer.error.code, -32600);
  assert.match(answer.error.message, /^LIM-11: expected the whole body within 50 ms; 11 bytes came$/);
  assert.ok(Date.now() - started < 5000);
  assert.ok(cancelled, "the pending read is ended");
});

test("LIM-09: fetch handler: a refused body of unknown length closes the connection unread; a small declared one is discarded and the connection kept", async () => {
  const handler = handlerOf({ maxBodyBytes: 1024 });
  const endless = endlessBody();
  const unknown = await handler.fetch(streamedPost(endless.body, {}, "http://localhost/elsewhere"));
  assert.equal(unknown.status, 404);
  assert.equal(unknown.headers.get("connection"), "close");
  assert.equal(endless.cancelled(), false);
  const small = endlessBody(2);
  const declared = await handler.fetch(streamedPost(small.body, { "content-length": "2" }, "http://localhost/elsewhere"));
  assert.equal(declared.status, 404);
  assert.equal(declared.headers.get("connection"), null, "the connection serves the next request");
  assert.equal(small.cancelled(), true, "the runtime discards the rest");
});

test("HTTP-10: fetch handler: SSE answers carry event ids, and a GET with Last-Event-ID replays what followed", async () => {
  const handler = handlerOf({ responseMode: "sse" });
  const id = await open(handler);
  const res = await handler.fetch(
    post({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "chatty", arguments: {} } }, { "mcp-session-id": id }),
  );
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  const { ids, messages } = await sseMessages(res, 1);
  assert.ok(ids.length >= 1, "the priming event names the stream");
  const priming = ids[0] as string;
  const resumed = await handler.fetch(
    new Request("http://localhost/mcp", {
      method: "GET",
      headers: { host: "localhost", accept: "text/event-stream", "mcp-session-id": id, "last-event-id": priming },
    }),
  );
  assert.equal(resumed.status, 200);
  const replay = await sseMessages(resumed, 2);
  const answer = replay.messages.find((m) => m.id === 7) as { result: { content: { text: string }[] } } | undefined;
  assert.equal(answer?.result.content[0]?.text, "done", `replayed ${JSON.stringify(replay.messages)} after ${JSON.stringify(messages)}`);
  const unknown = await handler.fetch(
    new Request("http://localhost/mcp", {
      method: "GET",
      headers: { host: "localhost", accept: "text/event-stream", "mcp-session-id": id, "last-event-id": "nope:3" },
    }),
  );
  assert.equal(unknown.status, 404);
  handler.close();
});

test("HTTP-03: fetch handler: two handlers sharing a SessionStore and an EventStore carry on each other's sessions and streams", async () => {
  const store = new MemorySessionStore();
  const events = new MemoryEventStore();
  const a = handlerOf({ store, eventStore: events, responseMode: "sse" });
  const b = handlerOf({ store, eventStore: events, responseMode: "sse" });
  const id = await open(a);
  await new Promise<void>((resolve) => setTimeout(resolve, 0));
  const res = await a.fetch(
    post(
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "shared" } } },
      { "mcp-session-id": id },
    ),
  );
  const first = await sseMessages(res, 1);
  const stream = (first.ids[0] as string).split(":")[0] as string;
  // Handler b never saw this session or stream: it restores the session from the store and replays from the event store.
  const resumed = await b.fetch(
    new Request("http://localhost/mcp", {
      method: "GET",
      headers: { host: "localhost", accept: "text/event-stream", "mcp-session-id": id, "last-event-id": `${stream}:0` },
    }),
  );
  assert.equal(resumed.status, 200);
  const replay = await sseMessages(resumed, 1);
  assert.equal((replay.messages[0] as { id?: number }).id, 2);
  a.close();
  b.close();
});

test("MOD-20: fetch handler: 2026-07-28 requests are stateless: no session id, headers checked against the body", async () => {
  const handler = handlerOf();
  const meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
  };
  const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "now" }, _meta: meta } };
  const ok = await handler.fetch(post(call, { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "echo" }));
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get("mcp-session-id"), null);
  assert.equal(((await ok.json()) as { result: { content: { text: string }[] } }).result.content[0]?.text, "now");
  const mismatch = await handler.fetch(post(call, { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "other" }));
  assert.equal(mismatch.status, 400);
  assert.equal(((await mismatch.json()) as { error: { code: number } }).error.code, -32020);
  assert.equal(handler.endpoint.exchanges.size, 0);
});

test("HTTP-13: fetch handler: CORS is off by default (OPTIONS 405, a foreign Origin 403)", async () => {
  const handler = handlerOf();
  const preflight = await handler.fetch(
    new Request("http://localhost/mcp", {
      method: "OPTIONS",
      headers: { host: "localhost", origin: "https://app.example", "access-control-request-method": "POST" },
    }),
  );
  assert.equal(preflight.status, 403, "a foreign origin is refused before anything else");
  const local = await handler.fetch(new Request("http://localhost/mcp", { method: "OPTIONS", headers: { host: "localhost" } }));
  assert.equal(local.status, 405);
  assert.equal(local.headers.get("access-control-allow-origin"), null);
});

test("HTTP-13: fetch handler: a browser-style cross-origin preflight and POST from a configured origin", async () => {
  const handler = handlerOf({ cors: { origins: ["https://app.example"] } });
  const preflight = await handler.fetch(
    new Request("http://localhost/mcp", {
      method: "OPTIONS",
      headers: {
        host: "localhost",
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers":
          "content-type, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region, authorization",
      },
    }),
  );
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get("access-control-allow-origin"), "https://app.example");
  assert.match(preflight.headers.get("access-control-allow-methods") ?? "", /POST/);
  assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /mcp-param-region/);
  const denied = await handler.fetch(
    new Request("http://localhost/mcp", {
      method: "OPTIONS",
      headers: { host: "localhost", origin: "https://evil.example", "access-control-request-method": "POST" },
    }),
  );
  assert.equal(denied.status, 403);
  const oddHeader = await handler.fetch(
    new Request("http://localhost/mcp", {
      method: "OPTIONS",
      headers: {
        host: "localhost",
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "x-secret",
      },
    }),
  );
  assert.equal(oddHeader.status, 403, "a header outside MCP's is not allowed");
  const res = await handler.fetch(post(initialize(), { origin: "https://app.example" }));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("access-control-allow-origin"), "https://app.example");
  const exposed = res.headers.get("access-control-expose-headers") ?? "";
  for (const name of ["Mcp-Session-Id", "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name", "WWW-Authenticate"])
    assert.ok(exposed.includes(name), `${name} exposed`);
  handler.close();
});

test("AUTH-05: fetch handler: authenticate runs first; a Response it returns is the answer, AuthInfo reaches ctx.auth with ctx.http", async () => {
  const seen = { auth: [] as unknown[], sessions: [] as (string | undefined)[], agents: [] as (string | undefined)[] };
  const handler = createHttpHandler(fixture(seen), {
    onError: () => {},
    authenticate: (request) => {
      const token = request.headers.get("authorization");
      if (token !== "Bearer good")
        return new Response(JSON.stringify({ error: "invalid_token" }), {
          status: 401,
          headers: {
            "WWW-Authenticate": 'Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource"',
            "Content-Type": "application/json",
          },
        });
      return { token: "good", subject: "alice", scopes: ["mcp"] };
    },
  });
  const refused = await handler.fetch(post(initialize()));
  assert.equal(refused.status, 401);
  assert.match(refused.headers.get("www-authenticate") ?? "", /^Bearer resource_metadata=/);
  assert.equal(handler.endpoint.sessions.size, 0, "nothing was handled");
  const init = await handler.fetch(post(initialize(), { authorization: "Bearer good" }));
  const id = init.headers.get("mcp-session-id") as string;
  await handler.fetch(
    post({ jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": id, authorization: "Bearer good" }),
  );
  const res = await handler.fetch(
    post(
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "x" } } },
      { "mcp-session-id": id, authorization: "Bearer good", "user-agent": "probe/1" },
    ),
  );
  assert.equal(res.status, 200);
  assert.deepEqual(seen.auth, [{ token: "good", subject: "alice", scopes: ["mcp"] }]);
  assert.deepEqual(seen.sessions, [id]);
  assert.deepEqual(seen.agents, ["probe/1"]);
  handler.close();
});

test("ENG-01: fetch handler: an exception in authenticate is a 500, never a rejection", async () => {
  const errors: unknown[] = [];
  const handler = createHttpHandler(fixture(), {
    onError: (error) => errors.push(error),
    authenticate: () => {
      throw new Error("broken verifier");
    },
  });
  const res = await handler.fetch(post(initialize()));
  assert.equal(res.status, 500);
  assert.equal(((await res.json()) as { error: { code: number } }).error.code, -32603);
  assert.equal(errors.length, 1);
});

test("S-01: fetch handler: close() ends the sessions and the open streams", async () => {
  const handler = handlerOf();
  const id = await open(handler);
  const get = await handler.fetch(
    new Request("http://localhost/mcp", {
      method: "GET",
      headers: { host: "localhost", accept: "text/event-stream", "mcp-session-id": id },
    }),
  );
  assert.equal(get.status, 200);
  const reader = (get.body as ReadableStream).getReader();
  handler.close();
  for (;;) {
    const { done } = await reader.read();
    if (done) break;
  }
  assert.equal(handler.endpoint.sessions.size, 0);
});

test("HTTP-10, LIM-12: MemoryEventStore: replays after an id, keeps its bounds, forgets a session, expires by age", () => {
  let now = 0;
  const store = new MemoryEventStore({ maxEventsPerStream: 3, maxStreamsPerSession: 2, maxSessions: 2, ttlMs: 100, now: () => now });
  for (let seq = 1; seq <= 5; seq++) store.append("a", "s0", { seq, text: `e${seq}` });
  assert.deepEqual(
    store.replay("a", "s0", 3)?.map((e) => e.seq),
    [4, 5],
  );
  assert.deepEqual(
    store.replay("a", "s0", 0)?.map((e) => e.seq),
    [3, 4, 5],
    "at most 3 per stream",
  );
  assert.equal(store.replay("a", "nope", 0), undefined);
  store.append("a", "s1", { seq: 1, text: "x" });
  store.append("a", "s2", { seq: 1, text: "y" });
  assert.equal(store.replay("a", "s0", 0), undefined, "at most 2 streams per session, oldest dropped");
  store.append("b", "s0", { seq: 1, text: "b" });
  store.append("c", "s0", { seq: 1, text: "c" });
  assert.equal(store.size, 2, "at most 2 sessions");
  assert.equal(store.replay("a", "s1", 0), undefined, "the least recently appended session went first");
  now = 1000;
  assert.deepEqual(store.replay("c", "s0", 0), [], "older than ttlMs");
  store.forget("c");
  assert.equal(store.replay("c", "s0", 0), undefined);
});

test("SSE-01: fetch handler: the deprecated HTTP+SSE endpoint when asked (GET /sse names where to POST; a POST is answered on the stream)", async () => {
  const handler = handlerOf({ legacySse: true });
  const stream = await handler.fetch(
    new Request("http://localhost/sse", { method: "GET", headers: { host: "localhost", accept: "text/event-stream" } }),
  );
  assert.equal(stream.status, 200);
  const reader = (stream.body as ReadableStream).getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("\n\n")) text += decoder.decode((await reader.read()).value, { stream: true });
  const uri = /^event: endpoint\ndata: (\S+)$/m.exec(text)?.[1] as string;
  assert.match(uri, /^\/messages\?sessionId=/);
  const posted = await handler.fetch(post(initialize(9, "2024-11-05"), {}, `http://localhost${uri}`));
  assert.equal(posted.status, 202);
  while (!text.includes('"id":9')) text += decoder.decode((await reader.read()).value, { stream: true });
  assert.match(text, /"id":9,"result":\{"protocolVersion"/, "the initialize answer travels on the SSE stream");
  const unknown = await handler.fetch(post(initialize(), {}, "http://localhost/messages?sessionId=nope"));
  assert.equal(unknown.status, 404);
  const wrongMethod = await handler.fetch(new Request("http://localhost/sse", { method: "POST", headers: { host: "localhost" } }));
  assert.equal(wrongMethod.status, 405);
  reader.cancel().catch(() => undefined);
  handler.close();
});

test("M-01, HTTP-03: fetch handler: a body that is not UTF-8 is a parse error; an OPTIONS-less DELETE without a session is 400", async () => {
  const handler = handlerOf();
  const bad = await handler.fetch(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: { host: "localhost", accept: ACCEPT, "content-type": "application/json" },
      body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
    }),
  );
  assert.equal(bad.status, 400);
  assert.equal(((await bad.json()) as { error: { code: number } }).error.code, -32700);
  const del = await handler.fetch(new Request("http://localhost/mcp", { method: "DELETE", headers: { host: "localhost" } }));
  assert.equal(del.status, 400);
});

test("MOD-17: fetch handler: a client that goes away before a 2026-07-28 answer cancels the request (its handler's signal aborts)", async () => {
  const server = fixture();
  let aborted: () => void = () => undefined;
  const sawAbort = new Promise<void>((resolve) => (aborted = resolve));
  server.tool("wait", {}, (_args, ctx) => new Promise(() => ctx.signal.addEventListener("abort", () => aborted())));
  const handler = createHttpHandler(server, { onError: () => {} });
  const controller = new AbortController();
  const meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
  };
  const request = new Request("http://localhost/mcp", {
    method: "POST",
    headers: {
      host: "localhost",
      accept: ACCEPT,
      "content-type": "application/json",
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/call",
      "mcp-name": "wait",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "wait", arguments: {}, _meta: meta } }),
    signal: controller.signal,
  });
  const answer = handler.fetch(request);
  await new Promise<void>((resolve) => setTimeout(resolve, 10));
  assert.equal(handler.endpoint.exchanges.size, 1);
  controller.abort();
  await sawAbort;
  assert.equal(handler.endpoint.exchanges.size, 0, "the exchange ended with the client");
  void answer;
});

test("AUTH-01: fetch handler: an OAuth resource-server hook (auth) serves its metadata openly and refuses without credentials", async () => {
  const handler = handlerOf({
    auth: {
      metadataPath: "/.well-known/oauth-protected-resource",
      metadataResponse: () => ({
        status: 200,
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ resource: "http://localhost/mcp" }),
      }),
      authenticate: (request) => {
        const header =
          "get" in request.headers && typeof request.headers.get === "function" ? request.headers.get("authorization") : undefined;
        return header === "Bearer t"
          ? { ok: true, auth: { token: "t", scopes: [] } }
          : {
              ok: false,
              response: {
                status: 401,
                headers: { "WWW-Authenticate": 'Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource"' },
                body: "",
              },
            };
      },
    },
  });
  const metadata = await handler.fetch(
    new Request("http://localhost/.well-known/oauth-protected-resource", { method: "GET", headers: { host: "localhost" } }),
  );
  assert.equal(metadata.status, 200);
  assert.deepEqual(await metadata.json(), { resource: "http://localhost/mcp" });
  const postMetadata = await handler.fetch(
    new Request("http://localhost/.well-known/oauth-protected-resource", { method: "POST", headers: { host: "localhost" } }),
  );
  assert.equal(postMetadata.status, 405);
  const refused = await handler.fetch(post(initialize()));
  assert.equal(refused.status, 401);
  assert.match(refused.headers.get("www-authenticate") ?? "", /resource_metadata=/);
  const ok = await handler.fetch(post(initialize(), { authorization: "Bearer t" }));
  assert.equal(ok.status, 200);
  handler.close();
});
