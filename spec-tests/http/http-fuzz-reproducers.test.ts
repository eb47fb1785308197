// Minimised reproducers of what the fuzzer's HTTP target (spec-tests/fuzz/http-episode.ts) found
// in the web-standard handler, one test each, so that none comes back. Each names the fuzzer
// seed and the failure kind it reproduces; time is simulated (spec-tests/fuzz/sim-clock.ts).

import { test } from "node:test";
import assert from "node:assert/strict";
import { createHttpHandler, type HttpHandler } from "../../lib/http-server/index.js";
import { Server } from "../../lib/peer/server/server.js";
import { settle, SimClock } from "../fuzz/sim-clock.js";

const ACCEPT = "application/json, text/event-stream";

function post(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request("http://localhost/mcp", {
    method: "POST",
    headers: { host: "localhost", accept: ACCEPT, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

function slowServer(clock: SimClock): Server {
  const server = new Server({ info: { name: "s", version: "1" }, versions: ["2025-11-25"] });
  server.tool("slow", {}, async (_args, ctx) => {
    await clock.sleep(60_000, ctx.signal);
    return { content: [{ type: "text", text: "slept" }] };
  });
  server.resource("file:///a", { name: "a" }, () => ({ contents: [{ uri: "file:///a", text: "A" }] }));
  return server;
}

async function initialize(handler: HttpHandler): Promise<string> {
  const res = await handler.fetch(
    post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
    }),
  );
  assert.equal(res.status, 200);
  await res.text();
  return res.headers.get("mcp-session-id") as string;
}

test("SSE-01: fuzz seed 42 [stream-open-after-close]: close() ends the legacy HTTP+SSE streams, not only their sessions", async () => {
  const clock = new SimClock();
  const handler = createHttpHandler(slowServer(clock), { timers: clock.handlerTimers, legacySse: true, onError: () => {} });
  const res = await handler.fetch(new Request("http://localhost/sse", { headers: { host: "localhost" } }));
  assert.equal(res.status, 200);
  const reader = (res.body as ReadableStream).getReader();
  const first = await reader.read();
  assert.match(new TextDecoder().decode(first.value), /^event: endpoint\ndata: \/messages\?sessionId=/);
  const next: { done?: boolean } = {};
  void reader.read().then((r) => (next.done = r.done));
  handler.close();
  await settle(2);
  assert.equal(next.done, true, "the stream ends with the handler");
  assert.equal(handler.endpoint.legacy?.sessions.size, 0);
  assert.equal(clock.pending("handler"), 0, "no timer of the ended session is left");
});

test("HTTP-01, HTTP-02: fuzz seed 65 [bad-body]: a session-era request whose JSON answer is pending when the session ends gets a JSON-RPC error with its id (503), not a 200 without a body", async () => {
  for (const end of ["close", "delete"] as const) {
    const clock = new SimClock();
    const handler = createHttpHandler(slowServer(clock), { timers: clock.handlerTimers, onError: () => {} });
    const session = await initialize(handler);
    const headers = { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
    (await handler.fetch(post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers))).body?.cancel();
    const got: { res?: Response } = {};
    void handler
      .fetch(post({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "slow", arguments: {} } }, headers))
      .then((r) => {
        got.res = r;
      });
    await settle(2);
    const answer = (): Response | undefined => got.res;
    assert.equal(answer(), undefined, "the tool is still running");
    if (end === "close") handler.close();
    else {
      const del = await handler.fetch(
        new Request("http://localhost/mcp", { method: "DELETE", headers: { host: "localhost", ...headers } }),
      );
      assert.equal(del.status, 200);
    }
    await settle(2);
    const answered = answer();
    assert.ok(answered !== undefined, `${end}: the request is answered`);
    assert.equal(answered.status, 503, end);
    assert.equal(answered.headers.get("content-type"), "application/json");
    const body = (await answered.json()) as { id?: unknown; error?: { code?: unknown } };
    assert.equal(body.id, 7, end);
    assert.equal(body.error?.code, -32603, end);
    handler.close();
  }
});

test("L-12: fuzz seed 1286 [fuzzer-error]: a resource update never throws out of notifyResourceUpdated for a session subscribed before notifications/initialized", async () => {
  const clock = new SimClock();
  const server = slowServer(clock);
  const handler = createHttpHandler(server, { timers: clock.handlerTimers, onError: () => {} });
  const session = await initialize(handler);
  const headers = { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
  // Lenient by default (ENG-03): a request before notifications/initialized is served, so the subscription holds.
  const sub = await handler.fetch(post({ jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: "file:///a" } }, headers));
  assert.equal(sub.status, 200);
  assert.deepEqual(((await sub.json()) as { result?: unknown }).result, {});
  assert.doesNotThrow(() => server.notifyResourceUpdated("file:///a"));
  // Once operating, the update reaches the session's GET stream.
  (await handler.fetch(post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers))).body?.cancel();
  const get = await handler.fetch(
    new Request("http://localhost/mcp", { headers: { host: "localhost", accept: "text/event-stream", ...headers } }),
  );
  const reader = (get.body as ReadableStream).getReader();
  await reader.read(); // the priming event
  server.notifyResourceUpdated("file:///a");
  const event = new TextDecoder().decode((await reader.read()).value);
  assert.match(event, /"method":"notifications\/resources\/updated","params":\{"uri":"file:\/\/\/a"\}/);
  handler.close();
});
