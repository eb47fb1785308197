// The in-memory link (lib/peer/in-memory.ts: linkInMemory and ManualClock), the way to test a
// server: both eras, timeouts on the manual clock, end of the pipe, synchronous delivery,
// several links on one clock; and the fields of ctx (lib/peer/server/context.ts) over the link and
// over the HTTP handler: request id, method, session id, headers, auth, and a signal made lazily.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ConnectionClosedError,
  ManualClock,
  RequestTimeoutError,
  Server,
  linkInMemory,
  type HandlerContext,
} from "../../lib/peer/index.js";
import { createHttpHandler } from "../../lib/http-server/index.js";
import type { CallToolResult } from "../../lib/types/index.js";
import { track } from "../support/peer-harness.js";

const CLIENT = { name: "in-memory-test", version: "1.0.0" };
const ok = (text: string): CallToolResult => ({ content: [{ type: "text", text }] });

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  assert.ok(first !== undefined && first.type === "text", JSON.stringify(result));
  return first.text;
}

function echoServer(versions?: Server["options"]["versions"]): Server {
  const server = new Server({ info: { name: "echo", version: "1.0.0" }, versions });
  server.tool("echo", { inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }, (args) =>
    ok(String(args.text)),
  );
  return server;
}

test("TL-01: linkInMemory, session era: connect() initializes, tools answer through both engines", async () => {
  const link = linkInMemory(echoServer(), { info: CLIENT });
  const connected = await link.client.connect();
  assert.equal(connected.era, "session");
  assert.equal(connected.serverInfo.name, "echo");
  assert.equal(textOf(await link.client.callTool("echo", { text: "hi" })), "hi");
  // The bytes crossed as JSON: a validation failure comes back as the server made it.
  const bad = await link.client.callTool("echo", {});
  assert.equal(bad.isError, true);
});

test("MOD-09, MOD-10: linkInMemory, 2026-07-28: server/discover, and input rounds (ctx.elicit) answered by the client's handler", async () => {
  const server = new Server({ info: { name: "modern", version: "1.0.0" }, versions: ["2026-07-28"] });
  server.tool("greet", {}, async (_args, ctx) => {
    const who = await ctx.elicit({ message: "Name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } });
    return ok(`hello ${String((who.content as { name?: unknown } | undefined)?.name)}`);
  });
  const link = linkInMemory(server, { info: CLIENT, versions: ["2026-07-28"], capabilities: { elicitation: {} } });
  link.client.setRequestHandler("elicitation/create", () => ({ action: "accept", content: { name: "Ada" } }));
  const connected = await link.client.connect();
  assert.equal(connected.era, "modern");
  assert.equal(textOf(await link.client.callTool("greet")), "hello Ada");
});

test("T-03: ManualClock: a timeout fires exactly at its deadline when the clock advances, and never by itself", async () => {
  const server = new Server({ info: { name: "slow", version: "1.0.0" } });
  server.tool("never", {}, () => new Promise<CallToolResult>(() => undefined));
  const clock = new ManualClock({ start: 5000 });
  const link = linkInMemory(server, { info: CLIENT }, { clock });
  await link.client.connect();
  const call = track(link.client.callTool("never", {}, { timeoutMs: 1000 }));
  await link.settle();
  assert.equal(link.clientTimer.armed, 6000, "the client armed its timer for the deadline");
  await clock.advance(999);
  assert.equal(call.state, "pending");
  assert.equal(clock.now, 5999);
  await clock.advance(1);
  assert.equal(call.state, "rejected");
  assert.ok(call.error instanceof RequestTimeoutError, String(call.error));
  await assert.rejects(clock.advanceTo(10), RangeError, "the clock does not go back");
});

test("S-01: linkInMemory close(): the pipe ends both ways and pending calls reject with ConnectionClosedError", async () => {
  const server = new Server({ info: { name: "slow", version: "1.0.0" } });
  server.tool("never", {}, () => new Promise<CallToolResult>(() => undefined));
  const link = linkInMemory(server, { info: CLIENT });
  await link.client.connect();
  const call = link.client.callTool("never", {}, { timeoutMs: Infinity });
  await link.settle();
  link.close();
  await assert.rejects(call, ConnectionClosedError);
  assert.equal(link.session.engine.isClosed, true);
  link.close(); // twice is harmless
});

test("linkInMemory: synchronous delivery, a tap on the wire, and two links of one server on one clock", async () => {
  const server = echoServer();
  const wire: string[] = [];
  const clock = new ManualClock();
  const a = linkInMemory(
    server,
    { info: CLIENT },
    { clock, delivery: "sync", tap: (from, bytes) => wire.push(`${from}:${new TextDecoder().decode(bytes).trim()}`) },
  );
  const b = linkInMemory(server, { info: CLIENT }, { clock });
  await Promise.all([a.client.connect(), b.client.connect()]);
  assert.equal(server.sessions.size, 2);
  assert.ok(
    wire.some((line) => line.startsWith('client:{"jsonrpc":"2.0","id":0,"method":"initialize"')),
    wire.join("\n"),
  );
  assert.ok(wire.some((line) => line.startsWith("server:") && line.includes('"serverInfo"')));
  const [x, y] = await Promise.all([a.client.callTool("echo", { text: "a" }), b.client.callTool("echo", { text: "b" })]);
  assert.deepEqual([textOf(x), textOf(y)], ["a", "b"]);
  // Both clients' request timeouts are on the one clock.
  const pa = track(a.client.ping({ timeoutMs: 100 }));
  assert.equal(pa.state, "pending");
  await clock.advance(100);
  assert.equal(pa.state, "resolved", "answered before its deadline");
});

// ── ctx ──────────────────────────────────────────────────────────────────────────

/** A server whose tool, resource and prompt record the ctx they were called with. */
function recordingServer(seen: HandlerContext[]): Server {
  const server = new Server({ info: { name: "ctx", version: "1.0.0" }, versions: ["2025-11-25", "2026-07-28"] });
  server.tool("who", {}, (_args, ctx) => {
    seen.push(ctx);
    return ok("ok");
  });
  server.resource("mem://a", { name: "a" }, (uri, ctx) => {
    seen.push(ctx);
    return { contents: [{ uri, text: "a" }] };
  });
  server.prompt("p", {}, (_args, ctx) => {
    seen.push(ctx);
    return { messages: [] };
  });
  return server;
}

test("ctx over the in-memory link: requestId and method of each request; no HTTP request, so no session id, headers or auth", async () => {
  const seen: HandlerContext[] = [];
  const ids: unknown[] = [];
  const link = linkInMemory(
    recordingServer(seen),
    { info: CLIENT },
    {
      tap: (from, bytes) => {
        if (from !== "client") return;
        for (const line of new TextDecoder().decode(bytes).split("\n"))
          if (line !== "" && (JSON.parse(line) as { method?: string }).method !== undefined && "id" in JSON.parse(line))
            ids.push(JSON.parse(line).id);
      },
    },
  );
  await link.client.connect();
  await link.client.callTool("who");
  await link.client.readResource("mem://a");
  await link.client.getPrompt("p");
  assert.deepEqual(
    seen.map((ctx) => ctx.method),
    ["tools/call", "resources/read", "prompts/get"],
  );
  assert.deepEqual(
    seen.map((ctx) => ctx.requestId),
    ids.slice(1),
    "the ids on the wire (after initialize's)",
  );
  for (const ctx of seen) {
    assert.equal(ctx.sessionId, undefined);
    assert.equal(ctx.header("user-agent"), undefined);
    assert.equal(ctx.auth, undefined);
    assert.equal(ctx.http, undefined);
    assert.equal(ctx.session, link.session);
    assert.equal(ctx.modern, undefined, "the session era");
  }
});

test("X-04: ctx.signal is made when first read, and is already aborted when read after the client cancelled", async () => {
  const server = new Server({ info: { name: "cancel", version: "1.0.0" } });
  let release: (() => void) | undefined;
  let observed: { aborted: boolean; reason: unknown } | undefined;
  server.tool("late", {}, async (_args, ctx) => {
    await new Promise<void>((resolve) => (release = resolve));
    observed = { aborted: ctx.signal.aborted, reason: ctx.signal.reason };
    return ok("late");
  });
  const link = linkInMemory(server, { info: CLIENT });
  await link.client.connect();
  const controller = new AbortController();
  const call = link.client.callTool("late", {}, { signal: controller.signal });
  await link.settle();
  controller.abort("stop");
  await assert.rejects(call);
  await link.settle();
  release?.();
  await link.settle();
  assert.deepEqual(observed, { aborted: true, reason: "stop" });
});

test("HTTP-03, MOD-20: ctx over the HTTP handler: requestId, method, the session id, headers and AuthInfo (session era), and no session id under 2026-07-28", async () => {
  const seen: HandlerContext[] = [];
  const handler = createHttpHandler(recordingServer(seen), {
    onError: () => {},
    authenticate: () => ({ token: "t", subject: "bob", scopes: ["read"] }),
  });
  const post = (body: unknown, headers: Record<string, string> = {}): Request =>
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: { host: "localhost", accept: "application/json, text/event-stream", "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  const init = await handler.fetch(
    post({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: CLIENT } }),
  );
  const sid = init.headers.get("mcp-session-id") as string;
  await init.text();
  await (
    await handler.fetch(
      post({ jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" }),
    )
  ).text();
  const res = await handler.fetch(
    post(
      { jsonrpc: "2.0", id: "r-7", method: "resources/read", params: { uri: "mem://a" } },
      { "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25", "x-trace": "abc" },
    ),
  );
  assert.equal(res.status, 200);
  await res.text();
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": CLIENT,
  };
  const modern = await handler.fetch(
    post(
      { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "who", arguments: {}, _meta: meta } },
      { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "who", "x-trace": "def" },
    ),
  );
  assert.equal(modern.status, 200);
  await modern.text();
  const [read, call] = seen;
  assert.ok(read !== undefined && call !== undefined);
  assert.equal(read.requestId, "r-7");
  assert.equal(read.method, "resources/read");
  assert.equal(read.sessionId, sid);
  assert.equal(read.header("X-Trace"), "abc");
  assert.deepEqual(read.auth, { token: "t", subject: "bob", scopes: ["read"] });
  assert.equal(call.requestId, 9);
  assert.equal(call.method, "tools/call");
  assert.equal(call.sessionId, undefined, "2026-07-28 has no sessions");
  assert.equal(call.header("x-trace"), "def");
  assert.equal(call.auth?.subject, "bob");
  assert.equal(call.modern?.version, "2026-07-28");
  handler.close();
});
