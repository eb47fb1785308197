// The peer layer in process (lib/peer): a Client and a Server joined by fake PeerHosts on a
// fake clock (spec-tests/support/peer-harness.ts). Covers connect() and its failures, the typed
// helpers (pagination, tools, resources and templates, subscriptions, prompts, completion,
// logging), tool failures as isError results, capabilities derived from registrations,
// list_changed, handler concurrency and its limit, server → client requests, close(), the
// typed errors, and the driver's re-entrancy. Timeout policies are in peer-timeouts.test.ts.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Engine, LocalProtocolError, type EngineEvent, type Outbound } from "../../lib/index.js";
import {
  Client,
  ConnectionClosedError,
  Driver,
  InvalidResultError,
  PeerAbortController,
  McpError,
  PeerError,
  ProtocolMisuseError,
  RequestAbortedError,
  RequestTimeoutError,
  Server,
  errorMessage,
  type AbortSignalLike,
  type HandlerContext,
  type PeerHost,
  type ServerSession,
  type StandardSchemaV1,
} from "../../lib/peer/index.js";
import type { CallToolResult } from "../../lib/index.js";
import {
  CLIENT_INFO,
  FakeClock,
  Pair,
  SECRET,
  SERVER_INFO,
  ScriptedServer,
  initializeResult,
  lines,
  track,
  type PairOptions,
} from "../support/peer-harness.js";
import { mcpError, rejection } from "../support/helpers.js";

async function connected(options: PairOptions = {}): Promise<Pair> {
  const pair = new Pair(options);
  await pair.connect();
  return pair;
}

function text(result: CallToolResult): string {
  const first = result.content[0];
  assert.ok(first !== undefined && first.type === "text", "a text content block");
  return first.text;
}

function assertNoStack(message: string): void {
  assert.equal(/\n\s+at /.test(message), false, `no stack trace in ${JSON.stringify(message)}`);
  assert.equal(message.includes(".js:"), false, `no source locations in ${JSON.stringify(message)}`);
}

const OK: CallToolResult = { content: [{ type: "text", text: "ok" }] };

// ── connect() ────────────────────────────────────────────────────────────────────

test("connect() resolves with the negotiated version, serverInfo, capabilities and instructions", async () => {
  const pair = new Pair({ server: { instructions: "Call echo first." }, setup: (s) => s.tool("echo", {}, () => OK) });
  assert.equal(pair.client.server, undefined, "nothing known before connect");
  const result = await pair.connect();
  assert.deepEqual(result, {
    era: "session",
    version: "2025-11-25",
    serverInfo: SERVER_INFO,
    capabilities: { logging: {}, tools: { listChanged: true } },
    instructions: "Call echo first.",
  });
  assert.deepEqual(pair.client.server, result);
  assert.deepEqual(pair.session.clientCapabilities, {});
  assert.equal(pair.session.engine.phase, "operating");
});

test("connect() without instructions, and with an older version offered by the client", async () => {
  const pair = await connected({ client: { versions: ["2025-03-26"], capabilities: { roots: {} } } });
  assert.equal(pair.client.server?.version, "2025-03-26");
  assert.equal(pair.client.server?.instructions, undefined);
  assert.deepEqual(pair.session.clientCapabilities, { roots: {} });
});

test("connect() rejects when the server answers a version the client does not speak", async () => {
  const diagnostics: string[] = [];
  const closes: string[] = [];
  const scripted = new ScriptedServer((m) => (m.method === "initialize" ? initializeResult({}, "1999-01-01") : undefined), {
    onDiagnostic: (e) => diagnostics.push(e.rule),
    onClose: (e) => closes.push(`${e.reason}:${e.rule}`),
  });
  const result = track(scripted.client.connect());
  await scripted.settle();
  assert.ok(result.error instanceof ConnectionClosedError, String(result.error));
  assert.match(
    result.error.message,
    /^initialize: connection closed \(server answered unsupported protocol version string "1999-01-01"\)$/,
  );
  assert.deepEqual(diagnostics, ["V-04"]);
  assert.deepEqual(closes, ["fatal:V-04"]);
  assert.equal(scripted.client.server, undefined);
  assert.equal(scripted.host.messages("notifications/initialized").length, 0);
});

test("connect() rejects with the server's initialize error", async () => {
  const scripted = new ScriptedServer(() => ({ error: { code: -32600, message: "not today", data: { retry: false } } }));
  const error = await mcpError(scripted.client.connect(), -32600);
  assert.equal(error.message, "MCP error -32600: not today");
  assert.deepEqual(error.data, { retry: false });
  assert.equal(scripted.client.engine.isClosed, true);
});

test("connect() rejects on a malformed initialize result", async () => {
  const scripted = new ScriptedServer(() => ({ result: { protocolVersion: "2025-11-25", capabilities: {} } }));
  const error = await rejection(scripted.client.connect());
  assert.ok(error instanceof ConnectionClosedError);
  assert.match(error.message, /serverInfo/);
});

test("close() and EOF during connect() reject it with ConnectionClosedError", async () => {
  const silent = new ScriptedServer(() => undefined);
  const p = track(silent.client.connect());
  await silent.settle();
  silent.client.close();
  await silent.settle();
  assert.ok(p.error instanceof ConnectionClosedError);
  assert.match(p.error.message, /^initialize: connection closed/);

  const eof = new ScriptedServer(() => undefined);
  const q = track(eof.client.connect());
  await eof.settle();
  eof.client.driver.receiveEof();
  await eof.settle();
  assert.ok(q.error instanceof ConnectionClosedError);
});

test("a second connect() rejects with ProtocolMisuseError naming the engine's rule (never the engine's LocalProtocolError)", async () => {
  const pair = await connected();
  const error = await rejection(pair.client.connect());
  assert.ok(error instanceof ProtocolMisuseError && !(error instanceof LocalProtocolError), String(error));
  assert.equal(error.rule, "L-01");
  assert.ok((error as Error & { cause?: unknown }).cause instanceof LocalProtocolError);
});

test("requests before connect() reject with ProtocolMisuseError and send nothing", async () => {
  const pair = new Pair({ setup: (s) => s.tool("echo", {}, () => OK) });
  const error = await rejection(pair.client.listTools());
  assert.ok(error instanceof ProtocolMisuseError && error.rule === "L-10", String(error));
  assert.equal(pair.clientHost.sent.length, 0);
});

// ── pagination ───────────────────────────────────────────────────────────────────

test("listTools() follows nextCursor over several pages with a small pageSize", async () => {
  const names = ["a", "b", "c", "d", "e"];
  const pair = await connected({
    server: { pageSize: 2 },
    setup: (s) => names.forEach((n) => s.tool(n, { description: `tool ${n}` }, () => OK)),
  });
  const tools = await pair.client.listTools();
  assert.deepEqual(
    tools.map((t) => t.name),
    names,
  );
  assert.deepEqual(tools[0], { name: "a", description: "tool a", inputSchema: { type: "object" } });
  const requests = pair.clientHost.messages("tools/list");
  assert.equal(requests.length, 3, "three pages of at most two");
  assert.equal(requests[0]?.params, undefined, "the first page has no cursor");
  assert.equal(typeof (requests[1]?.params as { cursor: unknown }).cursor, "string");
  assert.notEqual((requests[1]?.params as { cursor: string }).cursor, (requests[2]?.params as { cursor: string }).cursor);
});

test("listResources(), listResourceTemplates() and listPrompts() paginate too", async () => {
  const pair = await connected({
    server: { pageSize: 2 },
    setup: (s) => {
      for (const n of [1, 2, 3]) {
        s.resource(`mem://r${n}`, { name: `r${n}`, mimeType: "text/plain" }, (uri) => ({ contents: [{ uri, text: "" }] }));
        s.resourceTemplate(`mem://t${n}/{x}`, { name: `t${n}` }, (uri) => ({ contents: [{ uri, text: "" }] }));
        s.prompt(`p${n}`, { description: `prompt ${n}` }, () => ({ messages: [] }));
      }
    },
  });
  assert.deepEqual(
    (await pair.client.listResources()).map((r) => r.uri),
    ["mem://r1", "mem://r2", "mem://r3"],
  );
  assert.deepEqual((await pair.client.listResources())[0], { uri: "mem://r1", name: "r1", mimeType: "text/plain" });
  assert.deepEqual(await pair.client.listResourceTemplates(), [
    { uriTemplate: "mem://t1/{x}", name: "t1" },
    { uriTemplate: "mem://t2/{x}", name: "t2" },
    { uriTemplate: "mem://t3/{x}", name: "t3" },
  ]);
  assert.deepEqual(
    (await pair.client.listPrompts()).map((p) => p.name),
    ["p1", "p2", "p3"],
  );
  assert.equal(pair.clientHost.messages("prompts/list").length, 2);
});

test("a server that repeats a cursor makes listTools() reject instead of looping", async () => {
  const scripted = new ScriptedServer((m) => {
    if (m.method === "initialize") return initializeResult({ tools: {} });
    return { result: { tools: [{ name: "t", inputSchema: { type: "object" } }], nextCursor: "again" } };
  });
  const connecting = scripted.client.connect();
  await scripted.settle();
  await connecting;
  const listing = scripted.client.listTools();
  await scripted.settle();
  const error = await rejection(listing);
  // The server answered, but not with a usable listing: a local InvalidResultError, not an McpError it never sent.
  assert.ok(error instanceof InvalidResultError && error.path === "result.nextCursor", String(error));
  assert.match(error.message, /cursor not seen before.*"again"/);
  assert.equal(scripted.host.messages("tools/list").length, 2, "stopped at the first repeat");
});

test("a page without a list contributes nothing; a forged cursor is refused by the server (-32602)", async () => {
  const scripted = new ScriptedServer((m) => (m.method === "initialize" ? initializeResult({ prompts: {} }) : { result: {} }));
  const connecting = scripted.client.connect();
  await scripted.settle();
  await connecting;
  const listing = scripted.client.listPrompts();
  await scripted.settle();
  assert.deepEqual(await listing, []);

  const pair = await connected({ setup: (s) => s.tool("a", {}, () => OK) });
  const error = await mcpError(pair.client.request("tools/list", { cursor: "forged" }), -32602);
  assert.equal((error.data as { cursor: unknown }).cursor, "forged");
});

// ── tools ────────────────────────────────────────────────────────────────────────

test("callTool() passes arguments to the handler and returns its result; without arguments none are sent", async () => {
  const seen: unknown[] = [];
  const pair = await connected({
    setup: (s) =>
      s.tool("echo", { title: "Echo", annotations: { readOnlyHint: true }, _meta: { "x.example/k": 1 } }, (args, ctx) => {
        seen.push(args, ctx.session, ctx.requestId);
        return { content: [{ type: "text", text: JSON.stringify(args) }], structuredContent: args };
      }),
  });
  const result = await pair.client.callTool("echo", { a: 1, b: ["x"] });
  assert.deepEqual(result, { content: [{ type: "text", text: '{"a":1,"b":["x"]}' }], structuredContent: { a: 1, b: ["x"] } });
  assert.equal(seen[1], pair.session);
  assert.equal(seen[2], pair.clientHost.messages("tools/call")[0]?.id);
  await pair.client.callTool("echo");
  assert.deepEqual(pair.clientHost.messages("tools/call")[1]?.params, { name: "echo" });
  assert.deepEqual(seen[3], {}, "absent arguments reach the handler as {}");
  const [tool] = await pair.client.listTools();
  assert.deepEqual(tool, {
    name: "echo",
    inputSchema: { type: "object" },
    title: "Echo",
    annotations: { readOnlyHint: true },
    _meta: { "x.example/k": 1 },
  });
});

test("an unknown tool is a protocol error -32602 with the name", async () => {
  const pair = await connected({ setup: (s) => s.tool("echo", {}, () => OK) });
  const error = await mcpError(pair.client.callTool("nope"), -32602);
  assert.equal(error.message, "MCP error -32602: Unknown tool: nope");
  assert.deepEqual(error.data, { name: "nope" });
});

test("JSON Schema input validation failure → isError result naming the path, without a stack trace; the handler is not called", async () => {
  let calls = 0;
  const pair = await connected({
    setup: (s) =>
      s.tool("add", { inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } }, (args) => {
        calls++;
        return { content: [{ type: "text", text: String(args.n) }] };
      }),
  });
  const bad = await pair.client.callTool("add", { n: "seven" });
  assert.equal(bad.isError, true);
  assert.match(text(bad), /^Invalid arguments for tool add: \/n: /);
  assertNoStack(text(bad));
  const missing = await pair.client.callTool("add", {});
  assert.equal(missing.isError, true);
  assert.match(text(missing), /n/);
  assert.equal(calls, 0);
  const good = await pair.client.callTool("add", { n: 7 });
  assert.equal(good.isError, undefined);
  assert.equal(text(good), "7");
  assert.equal(calls, 1);
});

test("a function validator: its message on failure, its value replaces the arguments on success", async () => {
  const received: unknown[] = [];
  const pair = await connected({
    setup: (s) =>
      s.tool(
        "double",
        {
          inputSchema: { type: "object" },
          validator: (value) => {
            const n = (value as { n?: unknown }).n;
            return typeof n === "number" && n > 0
              ? { ok: true, value: { n: n * 2 } }
              : { ok: false, message: "n must be a positive number" };
          },
        },
        (args) => {
          received.push(args);
          return OK;
        },
      ),
  });
  const bad = await pair.client.callTool("double", { n: -1 });
  assert.equal(bad.isError, true);
  assert.equal(text(bad), "Invalid arguments for tool double: n must be a positive number");
  await pair.client.callTool("double", { n: 4 });
  assert.deepEqual(received, [{ n: 8 }]);
});

test("a Standard Schema validator: issues with paths become the message; its output value reaches the handler", async () => {
  const received: unknown[] = [];
  const schema: StandardSchemaV1<{ n: number }> = {
    "~standard": {
      version: 1,
      vendor: "test",
      validate: (value) => {
        const n = (value as { n?: unknown }).n;
        if (typeof n === "string" && /^\d+$/.test(n)) return { value: { n: Number(n) } };
        return { issues: [{ message: "Expected a numeric string", path: ["n"] }, { message: "Second issue" }] };
      },
    },
  };
  const pair = await connected({
    setup: (s) =>
      s.tool("parse", { validator: schema }, (args) => {
        received.push(args);
        return OK;
      }),
  });
  const bad = await pair.client.callTool("parse", { n: "x" });
  assert.equal(bad.isError, true);
  assert.equal(text(bad), "Invalid arguments for tool parse: /n: Expected a numeric string; Second issue");
  assertNoStack(text(bad));
  await pair.client.callTool("parse", { n: "42" });
  assert.deepEqual(received, [{ n: 42 }]);
  // Without inputSchema the listed schema is the permissive default.
  assert.deepEqual((await pair.client.listTools())[0]?.inputSchema, { type: "object" });
});

test("a handler that throws → isError result with the message only (sync, async, non-Error values)", async () => {
  const pair = await connected({
    setup: (s) => {
      s.tool("sync", {}, () => {
        throw new Error("disk full");
      });
      s.tool("async", {}, async () => {
        await Promise.resolve();
        throw new TypeError("cannot read x of undefined");
      });
      s.tool("object", {}, () => {
        throw { secret: "internal state" };
      });
      s.tool("string", {}, () => {
        throw "plain words";
      });
    },
  });
  const sync = await pair.client.callTool("sync");
  assert.deepEqual(sync, { content: [{ type: "text", text: "disk full" }], isError: true });
  const asyncResult = await pair.client.callTool("async");
  assert.deepEqual(asyncResult, { content: [{ type: "text", text: "cannot read x of undefined" }], isError: true });
  assertNoStack(text(asyncResult));
  assert.equal(text(await pair.client.callTool("object")), "internal error");
  assert.equal(text(await pair.client.callTool("string")), "plain words");
});

test("a handler that throws McpError → that JSON-RPC error, message without the prefix, data kept", async () => {
  const pair = await connected({
    setup: (s) =>
      s.tool("guarded", {}, () => {
        throw new McpError(-32001, "quota exceeded", { limit: 10 });
      }),
  });
  const error = await mcpError(pair.client.callTool("guarded"), -32001);
  assert.equal(error.message, "MCP error -32001: quota exceeded");
  assert.deepEqual(error.data, { limit: 10 });
  const wire = pair.serverHost.sent.find((m) => m.error !== undefined) as { error: unknown };
  assert.deepEqual(wire.error, { code: -32001, message: "quota exceeded", data: { limit: 10 } });
});

test("outputSchema: a mismatch becomes an isError result; a match passes; isError results are not checked", async () => {
  const outputSchema = { type: "object" as const, properties: { sum: { type: "number" } }, required: ["sum"] };
  const pair = await connected({
    setup: (s) => {
      s.tool("good", { outputSchema }, () => ({ content: [], structuredContent: { sum: 3 } }));
      s.tool("bad", { outputSchema }, () => ({ content: [], structuredContent: { sum: "three" } }));
      // A missing structuredContent does not compile (ToolResultFor); the cast makes the runtime check visible.
      s.tool("missing", { outputSchema }, () => ({ content: [] }) as never);
      s.tool("failed", { outputSchema }, () => ({ content: [{ type: "text", text: "could not add" }], isError: true }));
    },
  });
  assert.deepEqual(await pair.client.callTool("good"), { content: [], structuredContent: { sum: 3 } });
  const bad = await pair.client.callTool("bad");
  assert.equal(bad.isError, true);
  assert.match(text(bad), /^Tool bad returned structuredContent that does not match its outputSchema \(\/sum: /);
  const missing = await pair.client.callTool("missing");
  assert.equal(missing.isError, true);
  assert.match(text(missing), /\(\/: /, "the root path is shown as /");
  assert.deepEqual(await pair.client.callTool("failed"), { content: [{ type: "text", text: "could not add" }], isError: true });
  assert.deepEqual((await pair.client.listTools())[0]?.outputSchema, outputSchema);
});

test("a handler result that is not an object is answered -32603", async () => {
  const pair = await connected({ setup: (s) => s.tool("broken", {}, () => null as unknown as CallToolResult) });
  await mcpError(pair.client.callTool("broken"), -32603);
});

test("a tool's McpError that the protocol refuses is answered -32603 with its message", async () => {
  const pair = await connected({
    setup: (s) => {
      s.tool("url", {}, () => {
        throw new McpError(-32042, "open this URL first");
      });
      s.tool("fraction", {}, () => {
        throw new McpError(1.5, "not an integer code");
      });
    },
  });
  const url = await mcpError(pair.client.callTool("url", {}, { timeoutMs: 1000 }), -32603);
  assert.equal(url.message, "MCP error -32603: open this URL first");
  await mcpError(pair.client.callTool("fraction", {}, { timeoutMs: 1000 }), -32603);
});

test("callbacks that throw do not stop the driver: later events in the same input are still dispatched", async () => {
  let ctx: HandlerContext | undefined;
  let resolve: ((r: CallToolResult) => void) | undefined;
  const closes: string[] = [];
  const pair = await connected({
    client: {
      capabilities: {},
      onDiagnostic: () => {
        throw new Error("diagnostic callback bug");
      },
      onClose: (e) => {
        closes.push(e.reason);
        throw new Error("close callback bug");
      },
    },
    server: {
      onDiagnostic: () => {
        throw new Error("server diagnostic bug");
      },
      onSessionClosed: () => {
        throw new Error("server close bug");
      },
    },
    setup: (s) =>
      s.tool("t", {}, (_a, c) => {
        ctx = c;
        return new Promise<CallToolResult>((r) => (resolve = r));
      }),
  });
  const notes: string[] = [];
  pair.client.onNotification("notifications/message", () => {
    throw new Error("notification handler bug");
  });
  pair.client.onNotification("notifications/message", (p) => notes.push(String(p?.data)));
  const call = track(
    pair.client.callTool(
      "t",
      {},
      {
        onProgress: () => {
          throw new Error("progress callback bug");
        },
      },
    ),
  );
  await pair.settle();
  const id = pair.clientHost.messages("tools/call")[0]?.id;
  const token = (pair.clientHost.messages("tools/call")[0]?.params as { _meta: { progressToken: unknown } })._meta.progressToken;
  // One chunk: progress, a log, an unknown response id (a violation), then the result.
  assert.doesNotThrow(() =>
    pair.client.driver.receiveBytes(
      lines(
        { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: 1 } },
        { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "hello" } },
        { jsonrpc: "2.0", id: 12345, result: {} },
        { jsonrpc: "2.0", id, result: OK },
      ),
    ),
  );
  await pair.settle();
  assert.equal(call.state, "resolved");
  assert.deepEqual(notes, ["hello"]);
  resolve?.(OK);
  ctx?.log("info", "x");
  // Server side: a violation and EOF with throwing callbacks.
  assert.doesNotThrow(() => pair.session.receiveBytes(lines({ jsonrpc: "2.0", id: 777, result: {} })));
  assert.doesNotThrow(() => pair.session.receiveEof());
  assert.equal(pair.server.sessions.size, 0);
  assert.doesNotThrow(() => pair.client.close());
  assert.deepEqual(closes, ["local"]);
});

// ── resources ────────────────────────────────────────────────────────────────────

test("readResource(): a static resource, and templates matched with their RFC 6570 variables", async () => {
  const seen: Array<Record<string, string | string[]>> = [];
  const pair = await connected({
    setup: (s) => {
      s.resource("file:///readme.md", { name: "readme" }, (uri) => ({ contents: [{ uri, mimeType: "text/markdown", text: "# Hi" }] }));
      s.resourceTemplate("users://{id}/profile{?fields}", { name: "profile" }, (uri, vars) => {
        seen.push(vars);
        return { contents: [{ uri, text: `user ${String(vars.id)}` }] };
      });
      s.resourceTemplate("repo://{owner}/{repo}/issues{/num*}", { name: "issues" }, (uri, vars) => {
        seen.push(vars);
        return { contents: [{ uri, text: "issues" }] };
      });
      s.resourceTemplate("files:///{+path}", { name: "files" }, (uri, vars) => {
        seen.push(vars);
        return { contents: [{ uri, blob: "AAAA" }] };
      });
    },
  });
  assert.deepEqual(await pair.client.readResource("file:///readme.md"), {
    contents: [{ uri: "file:///readme.md", mimeType: "text/markdown", text: "# Hi" }],
  });
  assert.deepEqual(await pair.client.readResource("users://42/profile?fields=name"), {
    contents: [{ uri: "users://42/profile?fields=name", text: "user 42" }],
  });
  await pair.client.readResource("users://7/profile");
  await pair.client.readResource("repo://me/engine/issues/1/2");
  await pair.client.readResource("files:///docs/a%20b.txt");
  assert.deepEqual(seen, [
    { id: "42", fields: "name" },
    { id: "7" },
    { owner: "me", repo: "engine", num: ["1", "2"] },
    { path: "docs/a b.txt" },
  ]);
});

test("a resource that is not found → McpError -32002 with data.uri", async () => {
  const pair = await connected({
    setup: (s) => s.resourceTemplate("users://{id}", { name: "u" }, (uri) => ({ contents: [{ uri, text: "" }] })),
  });
  const error = await mcpError(pair.client.readResource("other://x"), -32002);
  assert.deepEqual(error.data, { uri: "other://x" });
  assert.match(error.message, /Resource not found: other:\/\/x/);
});

test("subscribe/unsubscribe: notifyResourceUpdated reaches only the sessions subscribed to that URI", async () => {
  const setup = (s: Server): void => {
    s.resource("mem://a", { name: "a" }, (uri) => ({ contents: [{ uri, text: "a" }] }));
    s.resource("mem://b", { name: "b" }, (uri) => ({ contents: [{ uri, text: "b" }] }));
  };
  const first = await connected({ setup });
  const second = await connected({ serverInstance: first.server });
  const unconnected = new Pair({ serverInstance: first.server });
  const updates: Array<[string, unknown]> = [];
  first.client.onNotification("notifications/resources/updated", (p) => updates.push(["first", p?.uri]));
  second.client.onNotification("notifications/resources/updated", (p) => updates.push(["second", p?.uri]));
  assert.deepEqual(await first.client.subscribeResource("mem://a"), {});
  await second.client.subscribeResource("mem://b");
  first.server.notifyResourceUpdated("mem://a");
  await first.settle();
  await second.settle();
  first.server.notifyResourceUpdated("mem://b");
  await first.settle();
  await second.settle();
  first.server.notifyResourceUpdated("mem://c");
  await first.settle();
  await second.settle();
  assert.deepEqual(updates, [
    ["first", "mem://a"],
    ["second", "mem://b"],
  ]);
  assert.equal(unconnected.serverHost.sent.length, 0, "a session not yet initialized gets nothing");
  assert.deepEqual(await first.client.unsubscribeResource("mem://a"), {});
  first.server.notifyResourceUpdated("mem://a");
  await first.settle();
  assert.equal(updates.length, 2, "no update after unsubscribe");
  first.session.close();
  first.server.notifyResourceUpdated("mem://a");
  second.session.close();
  first.server.notifyResourceUpdated("mem://b");
  await second.settle();
  assert.equal(updates.length, 2, "closed sessions get nothing");
});

// ── prompts and completion ───────────────────────────────────────────────────────

test("getPrompt(): arguments reach the handler; a missing required argument → -32602; an unknown prompt → -32602", async () => {
  const pair = await connected({
    setup: (s) =>
      s.prompt("greet", { description: "Greets", arguments: [{ name: "name", required: true }, { name: "tone" }] }, (args) => ({
        messages: [
          { role: "user", content: { type: "text", text: `Hello ${args.name}${args.tone !== undefined ? ` (${args.tone})` : ""}` } },
        ],
      })),
  });
  assert.deepEqual(await pair.client.getPrompt("greet", { name: "Ada", tone: "warm" }), {
    messages: [{ role: "user", content: { type: "text", text: "Hello Ada (warm)" } }],
  });
  const missing = await mcpError(pair.client.getPrompt("greet", { tone: "warm" }), -32602);
  assert.match(missing.message, /Missing required argument name for prompt greet/);
  assert.deepEqual(missing.data, { argument: "name" });
  await mcpError(pair.client.getPrompt("greet"), -32602);
  const unknown = await mcpError(pair.client.getPrompt("nope", {}), -32602);
  assert.deepEqual(unknown.data, { name: "nope" });
  assert.deepEqual(pair.clientHost.messages("prompts/get")[2]?.params, { name: "greet" }, "no arguments key without arguments");
  assert.deepEqual((await pair.client.listPrompts())[0], {
    name: "greet",
    description: "Greets",
    arguments: [{ name: "name", required: true }, { name: "tone" }],
  });
});

test("complete(): more than 100 candidates → 100 values, the total, hasMore true; context arguments reach the completer", async () => {
  const contexts: unknown[] = [];
  const pair = await connected({
    setup: (s) => {
      s.prompt(
        "pick",
        {
          arguments: [{ name: "item" }, { name: "free" }],
          complete: { item: (value) => Array.from({ length: 150 }, (_, i) => `${value}${i}`) },
        },
        () => ({ messages: [] }),
      );
      s.resourceTemplate(
        "db://{table}/{row}",
        { name: "rows", complete: { row: (value, ctx) => (contexts.push(ctx), [`${value}-1`, `${value}-2`]) } },
        (uri) => ({ contents: [{ uri, text: "" }] }),
      );
    },
  });
  const many = await pair.client.complete({ ref: { type: "ref/prompt", name: "pick" }, argument: { name: "item", value: "x" } });
  assert.equal(many.completion.values.length, 100);
  assert.equal(many.completion.values[0], "x0");
  assert.equal(many.completion.values[99], "x99");
  assert.equal(many.completion.total, 150);
  assert.equal(many.completion.hasMore, true);
  const few = await pair.client.complete({
    ref: { type: "ref/resource", uri: "db://{table}/{row}" },
    argument: { name: "row", value: "r" },
    context: { arguments: { table: "users" } },
  });
  assert.deepEqual(few, { completion: { values: ["r-1", "r-2"], total: 2, hasMore: false } });
  assert.deepEqual(contexts, [{ arguments: { table: "users" } }]);
  assert.deepEqual(await pair.client.complete({ ref: { type: "ref/prompt", name: "pick" }, argument: { name: "free", value: "" } }), {
    completion: { values: [], total: 0, hasMore: false },
  });
  await mcpError(pair.client.complete({ ref: { type: "ref/prompt", name: "nope" }, argument: { name: "item", value: "" } }), -32602);
  await mcpError(pair.client.complete({ ref: { type: "ref/resource", uri: "db://other" }, argument: { name: "row", value: "" } }), -32602);
});

test("complete(): a completer that throws is answered -32603 with its message", async () => {
  const pair = await connected({
    setup: (s) =>
      s.prompt(
        "p",
        {
          complete: {
            a: () => {
              throw new Error("index offline");
            },
          },
        },
        () => ({ messages: [] }),
      ),
  });
  const error = await mcpError(
    pair.client.complete({ ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "" } }),
    -32603,
  );
  assert.equal(error.message, "MCP error -32603: index offline");
});

// ── logging ──────────────────────────────────────────────────────────────────────

test("setLoggingLevel(): ctx.log below the level is not delivered; at or above it is, with the logger", async () => {
  const logs: unknown[] = [];
  let context: HandlerContext | undefined;
  const pair = await connected({
    setup: (s) =>
      s.tool("work", {}, (_args, ctx) => {
        context = ctx;
        return new Promise<CallToolResult>(() => {});
      }),
  });
  pair.client.onNotification("notifications/message", (p) => logs.push(p));
  void pair.client.callTool("work");
  await pair.settle();
  assert.ok(context !== undefined);
  context.log("debug", "before any level");
  await pair.settle();
  assert.deepEqual(await pair.client.setLoggingLevel("warning"), {});
  context.log("info", "dropped");
  context.log("warning", { detail: 1 }, "db");
  context.log("error", "kept");
  await pair.settle();
  assert.deepEqual(logs, [
    { level: "debug", data: "before any level" },
    { level: "warning", data: { detail: 1 }, logger: "db" },
    { level: "error", data: "kept" },
  ]);
});

test("with logging: false the capability is not declared and ctx.log is a no-op", async () => {
  let context: HandlerContext | undefined;
  const pair = await connected({
    server: { logging: false },
    setup: (s) =>
      s.tool("work", {}, (_args, ctx) => {
        context = ctx;
        return OK;
      }),
  });
  assert.equal(pair.client.server?.capabilities.logging, undefined);
  await pair.client.callTool("work");
  context?.log("error", "nobody listens");
  await pair.settle();
  assert.equal(pair.serverHost.messages("notifications/message").length, 0);
  assert.ok(
    (await rejection(pair.client.setLoggingLevel("info"))) instanceof ProtocolMisuseError,
    "the client does not ask a server without logging",
  );
});

// ── capabilities and list_changed ────────────────────────────────────────────────

test("capabilities follow the registrations, merged with options.capabilities", () => {
  const bare = new Server({ info: SERVER_INFO, paginationSecret: SECRET });
  assert.deepEqual(bare.capabilities(), { logging: {} });
  assert.deepEqual(new Server({ info: SERVER_INFO, paginationSecret: SECRET, logging: false }).capabilities(), {});
  const tools = new Server({ info: SERVER_INFO, paginationSecret: SECRET, logging: false });
  tools.tool("t", {}, () => OK);
  assert.deepEqual(tools.capabilities(), { tools: { listChanged: true } });
  const resources = new Server({ info: SERVER_INFO, paginationSecret: SECRET, logging: false });
  resources.resource("mem://x", { name: "x" }, (uri) => ({ contents: [{ uri, text: "" }] }));
  assert.deepEqual(resources.capabilities(), { resources: { subscribe: true, listChanged: true } });
  const templates = new Server({ info: SERVER_INFO, paginationSecret: SECRET, logging: false });
  templates.resourceTemplate("mem://{x}", { name: "x" }, (uri) => ({ contents: [{ uri, text: "" }] }));
  assert.deepEqual(templates.capabilities(), { resources: { subscribe: true, listChanged: true }, completions: {} });
  const prompts = new Server({ info: SERVER_INFO, paginationSecret: SECRET, logging: false });
  prompts.prompt("p", {}, () => ({ messages: [] }));
  assert.deepEqual(prompts.capabilities(), { prompts: { listChanged: true }, completions: {} });
  const merged = new Server({
    info: SERVER_INFO,
    paginationSecret: SECRET,
    capabilities: { tools: { listChanged: false }, experimental: { x: {} } },
  });
  merged.tool("t", {}, () => OK);
  assert.deepEqual(merged.capabilities(), { tools: { listChanged: false }, experimental: { x: {} }, logging: {} });
});

test("registering or removing after initialization sends list_changed (seen by onNotification); not before", async () => {
  const pair = new Pair({
    setup: (s) => {
      s.tool("first", {}, () => OK);
      s.prompt("p0", {}, () => ({ messages: [] }));
      s.resource("mem://0", { name: "0" }, (uri) => ({ contents: [{ uri, text: "" }] }));
    },
  });
  const seen: string[] = [];
  for (const m of ["notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed"])
    pair.client.onNotification(m, () => seen.push(m.split("/")[1] as string));
  const early = pair.server.tool("early", {}, () => OK);
  await pair.settle();
  assert.equal(pair.serverHost.sent.length, 0, "nothing before initialization");
  await pair.connect();
  assert.equal(pair.serverHost.messages("notifications/tools/list_changed").length, 0);
  const later = pair.server.tool("later", {}, () => OK);
  await pair.settle();
  assert.deepEqual(seen, ["tools"]);
  assert.deepEqual(
    (await pair.client.listTools()).map((t) => t.name),
    ["first", "early", "later"],
  );
  later.remove();
  later.remove();
  early.remove();
  await pair.settle();
  assert.deepEqual(seen, ["tools", "tools", "tools"], "a second remove() is a no-op");
  const p = pair.server.prompt("p1", {}, () => ({ messages: [] }));
  pair.server.resource("mem://1", { name: "1" }, (uri) => ({ contents: [{ uri, text: "" }] }));
  pair.server.resourceTemplate("mem://t/{x}", { name: "t" }, (uri) => ({ contents: [{ uri, text: "" }] }));
  p.remove();
  await pair.settle();
  assert.deepEqual(seen, ["tools", "tools", "tools", "prompts", "resources", "resources", "prompts"]);
  assert.throws(
    () => pair.server.tool("first", {}, () => OK),
    /unique names: expected a tool name not registered yet, got "first", which is/,
  );
});

test("list_changed is not sent for a kind the session did not declare; onNotification unsubscribes", async () => {
  const pair = await connected({ setup: (s) => s.tool("t", {}, () => OK) });
  const seen: string[] = [];
  const off = pair.client.onNotification("notifications/tools/list_changed", () => seen.push("a"));
  pair.client.onNotification("notifications/tools/list_changed", () => seen.push("b"));
  pair.server.prompt("p", {}, () => ({ messages: [] }));
  await pair.settle();
  assert.equal(pair.serverHost.messages("notifications/prompts/list_changed").length, 0, "prompts were not declared by this session");
  pair.server.tool("u", {}, () => OK);
  await pair.settle();
  off();
  pair.server.tool("v", {}, () => OK);
  await pair.settle();
  assert.deepEqual(seen, ["a", "b", "b"]);
  const noTools = await connected({ server: { capabilities: { tools: { listChanged: false } } } });
  noTools.server.tool("w", {}, () => OK);
  await noTools.settle();
  assert.equal(noTools.serverHost.messages("notifications/tools/list_changed").length, 0, "listChanged: false");
});

// ── concurrency ──────────────────────────────────────────────────────────────────

test("handlers run concurrently: a never-settling handler delays neither ping nor another call", async () => {
  let started = 0;
  const pair = await connected({
    setup: (s) => {
      s.tool("hang", {}, () => {
        started++;
        return new Promise<CallToolResult>(() => {});
      });
      s.tool("quick", {}, () => OK);
    },
  });
  const hung = track(pair.client.callTool("hang"));
  await pair.settle();
  assert.equal(started, 1);
  assert.deepEqual(await pair.client.ping(), {});
  assert.deepEqual(await pair.client.callTool("quick"), OK);
  assert.equal(hung.state, "pending");
});

test("maxConcurrentHandlers 2: the third and fourth calls wait their turn in order (no -32603), and run as slots free", async () => {
  const started: string[] = [];
  const resolvers = new Map<string, (r: CallToolResult) => void>();
  const pair = await connected({
    server: { maxConcurrentHandlers: 2 },
    setup: (s) =>
      s.tool("hold", {}, (args) => {
        const tag = String(args.tag);
        started.push(tag);
        return new Promise<CallToolResult>((resolve) => resolvers.set(tag, resolve));
      }),
  });
  const calls = ["a", "b", "c", "d"].map((tag) => track(pair.client.callTool("hold", { tag })));
  await pair.settle();
  assert.deepEqual(started, ["a", "b"], "two running, two waiting");
  assert.equal(pair.session.waitingRequests, 2);
  assert.ok(
    calls.every((c) => c.state === "pending"),
    "nobody refused",
  );
  resolvers.get("b")?.(OK);
  await pair.settle();
  assert.equal(calls[1]?.state, "resolved");
  assert.deepEqual(started, ["a", "b", "c"], "the oldest waiting request took the slot");
  resolvers.get("a")?.(OK);
  await pair.settle();
  assert.deepEqual(started, ["a", "b", "c", "d"]);
  resolvers.get("c")?.(OK);
  resolvers.get("d")?.(OK);
  await pair.settle();
  assert.ok(
    calls.every((c) => c.state === "resolved"),
    calls.map((c) => c.state).join(","),
  );
});

test("maxConcurrentHandlers 1: a request cancelled while waiting is removed and never runs; the next one does", async () => {
  const started: string[] = [];
  const resolvers = new Map<string, (r: CallToolResult) => void>();
  const pair = await connected({
    server: { maxConcurrentHandlers: 1 },
    setup: (s) =>
      s.tool("hold", {}, (args) => {
        const tag = String(args.tag);
        started.push(tag);
        return new Promise<CallToolResult>((resolve) => resolvers.set(tag, resolve));
      }),
  });
  const controller = new PeerAbortController();
  const a = track(pair.client.callTool("hold", { tag: "a" }));
  const b = track(pair.client.callTool("hold", { tag: "b" }, { signal: controller.signal }));
  const c = track(pair.client.callTool("hold", { tag: "c" }));
  await pair.settle();
  assert.equal(pair.session.waitingRequests, 2);
  controller.abort("changed my mind");
  await pair.settle();
  assert.ok(b.error instanceof RequestAbortedError);
  assert.equal(pair.session.waitingRequests, 1, "the cancelled request left the queue");
  resolvers.get("a")?.(OK);
  await pair.settle();
  assert.deepEqual(started, ["a", "c"], "b never ran");
  resolvers.get("c")?.(OK);
  await pair.settle();
  assert.equal(a.state, "resolved");
  assert.equal(c.state, "resolved");
});

test("the waiting queue is bounded by limits.maxPendingInbound: past it the engine refuses at once", async () => {
  const pair = await connected({
    server: { maxConcurrentHandlers: 1, limits: { maxPendingInbound: 3 } },
    setup: (s) => s.tool("hold", {}, () => new Promise<CallToolResult>(() => undefined)),
  });
  const calls = [0, 1, 2, 3].map(() => track(pair.client.callTool("hold")));
  await pair.settle();
  assert.equal(pair.session.waitingRequests, 2, "one running, two waiting");
  assert.deepEqual(
    calls.map((c) => c.state),
    ["pending", "pending", "pending", "rejected"],
  );
  assert.equal((calls[3]?.error as McpError).code, -32603);
});

// ── server → client requests ─────────────────────────────────────────────────────

test("ctx.createMessage, ctx.elicit and ctx.listRoots reach the client's handlers and return their results", async () => {
  const pair = await connected({
    client: { capabilities: { sampling: {}, elicitation: {}, roots: {} } },
    setup: (s) =>
      s.tool("agent", {}, async (_args, ctx) => {
        const sample = await ctx.createMessage({ messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 5 });
        const answer = await ctx.elicit({
          message: "Your name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } } },
        });
        const roots = await ctx.listRoots();
        return { content: [{ type: "text", text: JSON.stringify([sample.content, answer.content, roots.roots]) }] };
      }),
  });
  const contexts: unknown[] = [];
  pair.client.setRequestHandler("sampling/createMessage", (params, ctx) => {
    contexts.push(ctx.requestId);
    return { role: "assistant", model: "m", content: { type: "text", text: `echo ${params.maxTokens}` } };
  });
  pair.client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { name: "Ada" } }));
  pair.client.setRequestHandler("roots/list", () => ({ roots: [{ uri: "file:///home", name: "home" }] }));
  const result = await pair.client.callTool("agent");
  assert.deepEqual(JSON.parse(text(result)), [{ type: "text", text: "echo 5" }, { name: "Ada" }, [{ uri: "file:///home", name: "home" }]]);
  assert.deepEqual(contexts, [pair.serverHost.messages("sampling/createMessage")[0]?.id]);
});

test("a server request without a client handler → McpError -32601; a throwing handler → -32603; McpError keeps its code", async () => {
  const outcomes: unknown[] = [];
  const pair = await connected({
    client: { capabilities: { sampling: {}, elicitation: {}, roots: {} } },
    setup: (s) =>
      s.tool("probe", {}, async (_args, ctx) => {
        for (const attempt of [
          () => ctx.createMessage({ messages: [], maxTokens: 1 }),
          () => ctx.elicit({ message: "?", requestedSchema: { type: "object", properties: {} } }),
          () => ctx.listRoots(),
        ]) {
          try {
            outcomes.push(await attempt());
          } catch (error) {
            outcomes.push(error);
          }
        }
        return OK;
      }),
  });
  // No sampling handler; elicitation throws synchronously; roots rejects with McpError.
  pair.client.setRequestHandler("elicitation/create", () => {
    throw new Error("UI crashed");
  });
  pair.client.setRequestHandler("roots/list", async () => {
    throw new McpError(-32001, "roots hidden", { why: "policy" });
  });
  await pair.client.callTool("probe");
  const [sampling, elicit, roots] = outcomes;
  assert.ok(sampling instanceof McpError);
  assert.equal(sampling.code, -32601);
  assert.equal(sampling.message, "MCP error -32601: No handler for sampling/createMessage");
  assert.ok(elicit instanceof McpError);
  assert.equal(elicit.code, -32603);
  assert.equal(elicit.message, "MCP error -32603: UI crashed");
  assert.ok(roots instanceof McpError);
  assert.equal(roots.code, -32001);
  assert.equal(roots.message, "MCP error -32001: roots hidden");
  assert.deepEqual(roots.data, { why: "policy" });
});

test("a client handler's McpError: kept when thrown synchronously too; one the protocol refuses is answered -32603 (never left hanging)", async () => {
  const outcomes: unknown[] = [];
  const unhandled: unknown[] = [];
  const pair = await connected({
    client: { capabilities: { sampling: {}, roots: {} } },
    setup: (s) =>
      s.tool("probe", {}, async (_args, ctx) => {
        for (const attempt of [
          () => ctx.createMessage({ messages: [], maxTokens: 1 }, { timeoutMs: 1000 }),
          () => ctx.listRoots({ timeoutMs: 1000 }),
        ]) {
          try {
            outcomes.push(await attempt());
          } catch (error) {
            outcomes.push(error);
          }
        }
        return OK;
      }),
  });
  pair.client.setRequestHandler("sampling/createMessage", () => {
    throw new McpError(-32001, "sync refusal", { n: 1 });
  });
  // -32042 (URL elicitation required) must carry data.elicitations under 2025-11-25: the engine refuses this one.
  pair.client.setRequestHandler("roots/list", async () => {
    throw new McpError(-32042, "needs a URL");
  });
  const onUnhandled = (e: unknown): number => unhandled.push(e);
  process.on("unhandledRejection", onUnhandled);
  try {
    const calling = pair.client.callTool("probe");
    await pair.settle();
    assert.deepEqual(await calling, OK);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
  assert.ok(outcomes[0] instanceof McpError);
  assert.equal(outcomes[0].code, -32001);
  assert.deepEqual(outcomes[0].data, { n: 1 });
  assert.ok(outcomes[1] instanceof McpError, `answered, not timed out: ${String(outcomes[1])}`);
  assert.equal(outcomes[1].code, -32603);
  assert.equal(outcomes[1].message, "MCP error -32603: needs a URL");
  assert.deepEqual(unhandled, []);
});

test("a client handler's result the protocol forbids (a non-file root) or that is not an object → -32603; async throws → -32603", async () => {
  const outcomes: unknown[] = [];
  const pair = await connected({
    client: { capabilities: { roots: {}, sampling: {} } },
    setup: (s) =>
      s.tool("probe", {}, async (_args, ctx) => {
        for (const attempt of [() => ctx.listRoots(), () => ctx.createMessage({ messages: [], maxTokens: 1 })]) {
          try {
            outcomes.push(await attempt());
          } catch (error) {
            outcomes.push(error);
          }
        }
        return OK;
      }),
  });
  pair.client.setRequestHandler("roots/list", () => ({ roots: [{ uri: "https://example.com" }] }));
  pair.client.setRequestHandler("sampling/createMessage", async () => {
    await Promise.resolve();
    throw "model unavailable";
  });
  await pair.client.callTool("probe");
  assert.ok(outcomes[0] instanceof McpError);
  assert.equal(outcomes[0].code, -32603);
  assert.match(outcomes[0].message, /file:\/\//);
  assert.ok(outcomes[1] instanceof McpError);
  assert.equal(outcomes[1].code, -32603);
  assert.equal(outcomes[1].message, "MCP error -32603: model unavailable");
});

test("a server request to a client without the capability: the ctx call rejects with ProtocolMisuseError, nothing is sent", async () => {
  let error: unknown;
  const pair = await connected({
    setup: (s) =>
      s.tool("ask", {}, async (_args, ctx) => {
        try {
          await ctx.createMessage({ messages: [], maxTokens: 1 });
        } catch (e) {
          error = e;
        }
        return OK;
      }),
  });
  await pair.client.callTool("ask");
  assert.ok(error instanceof ProtocolMisuseError && error.rule === "C-01", String(error));
  assert.equal(pair.serverHost.messages("sampling/createMessage").length, 0);
});

test("the server can ping the client through session.request", async () => {
  const pair = await connected();
  assert.deepEqual(await Promise.all([pair.session.request("ping", undefined), pair.settle()]).then(([r]) => r), {});
});

test("a server request aborted by the server: the client handler's signal aborts and its late answer is not sent", async () => {
  let clientSignal: AbortSignalLike | undefined;
  let resolveClient: ((r: { roots: [] }) => void) | undefined;
  const controller = new PeerAbortController();
  let outcome: ReturnType<typeof track> | undefined;
  const pair = await connected({
    client: { capabilities: { roots: {} } },
    setup: (s) =>
      s.tool("ask", {}, (_args, ctx) => {
        outcome = track(ctx.listRoots({ signal: controller.signal }));
        return OK;
      }),
  });
  pair.client.setRequestHandler("roots/list", (_p, ctx) => {
    clientSignal = ctx.signal;
    return new Promise((resolve) => (resolveClient = resolve));
  });
  await pair.client.callTool("ask");
  controller.abort();
  await pair.settle();
  assert.ok(outcome?.error instanceof RequestAbortedError);
  assert.equal(clientSignal?.aborted, true);
  assert.equal(clientSignal?.reason, "aborted");
  resolveClient?.({ roots: [] });
  await pair.settle();
  assert.equal(
    pair.clientHost.sent.filter((m) => m.result !== undefined && m.id === pair.serverHost.messages("roots/list")[0]?.id).length,
    0,
  );
});

// ── unknown methods ──────────────────────────────────────────────────────────────

test("a request the engine lets through but the server does not serve is answered -32601", async () => {
  const pair = await connected({ server: { capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } } });
  const error = await mcpError(pair.client.request("tasks/list", {}), -32601);
  assert.match(error.message, /Method not served: tasks\/list/);
});

// ── close ────────────────────────────────────────────────────────────────────────

test("client.close(): pending requests reject with ConnectionClosedError; later requests reject; onClose runs once", async () => {
  const closes: string[] = [];
  const pair = await connected({
    client: { onClose: (e) => closes.push(e.reason) },
    setup: (s) => s.tool("hang", {}, () => new Promise<CallToolResult>(() => {})),
  });
  const a = track(pair.client.callTool("hang"));
  const b = track(pair.client.ping({ timeoutMs: 1000 }));
  pair.client.close();
  await pair.settle();
  assert.ok(a.error instanceof ConnectionClosedError);
  assert.equal(a.error.message, "tools/call: connection closed");
  assert.ok(b.error instanceof ConnectionClosedError);
  assert.equal(pair.clientHost.armed, undefined);
  assert.deepEqual(closes, ["local"]);
  pair.client.close();
  assert.deepEqual(closes, ["local"], "close() is idempotent");
  const late = await rejection(pair.client.ping());
  assert.ok(late instanceof ConnectionClosedError);
  assert.equal(late.message, "ping: connection closed (the session is closed)");
});

test("session.close(): running handlers see their signal abort; their late answers are not sent; EOF closes the client", async () => {
  const signals: AbortSignalLike[] = [];
  const reasons: unknown[] = [];
  const resolvers: Array<(r: CallToolResult) => void> = [];
  const closedSessions: ServerSession[] = [];
  const pair = await connected({
    server: { onSessionClosed: (s) => closedSessions.push(s) },
    setup: (s) =>
      s.tool("hang", {}, (_args, ctx) => {
        signals.push(ctx.signal);
        ctx.signal.addEventListener("abort", () => reasons.push(ctx.signal.reason));
        return new Promise<CallToolResult>((resolve) => resolvers.push(resolve));
      }),
  });
  const call = track(pair.client.callTool("hang"));
  await pair.settle();
  assert.equal(pair.server.sessions.has(pair.session), true);
  pair.session.close();
  assert.equal(signals[0]?.aborted, true);
  assert.deepEqual(reasons, ["connection closed"]);
  assert.equal(pair.server.sessions.has(pair.session), false);
  assert.deepEqual(closedSessions, [pair.session]);
  const sentBefore = pair.serverHost.sent.length;
  resolvers[0]?.(OK);
  await pair.settle();
  assert.equal(pair.serverHost.sent.length, sentBefore, "nothing is sent after close");
  assert.equal(call.state, "pending", "the client learns only from the transport");
  pair.client.driver.receiveEof();
  await pair.settle();
  assert.ok(call.error instanceof ConnectionClosedError);
});

test("close with a server → client request in flight: it rejects with ConnectionClosedError; the client handler's signal aborts", async () => {
  let outcome: ReturnType<typeof track> | undefined;
  let clientSignal: AbortSignalLike | undefined;
  const pair = await connected({
    client: { capabilities: { sampling: {} } },
    setup: (s) =>
      s.tool("ask", {}, (_args, ctx) => {
        outcome = track(ctx.createMessage({ messages: [], maxTokens: 1 }, { timeoutMs: Infinity }));
        return new Promise<CallToolResult>(() => {});
      }),
  });
  pair.client.setRequestHandler("sampling/createMessage", (_p, ctx) => {
    clientSignal = ctx.signal;
    return new Promise(() => {});
  });
  void pair.client.callTool("ask").catch(() => {});
  await pair.settle();
  pair.client.close();
  assert.equal(clientSignal?.aborted, true, "the client's own handler is aborted by its close()");
  pair.session.receiveEof();
  await pair.settle();
  assert.ok(outcome?.error instanceof ConnectionClosedError);
  assert.equal((outcome?.error as Error).message, "sampling/createMessage: connection closed");
});

test("a request whose answer the server never sends is settled by close(); a late result after close is ignored", async () => {
  const pair = await connected({ setup: (s) => s.tool("hang", {}, () => new Promise<CallToolResult>(() => {})) });
  const call = track(pair.client.callTool("hang"));
  await pair.settle();
  const id = pair.clientHost.messages("tools/call")[0]?.id;
  pair.client.close();
  pair.client.driver.receiveBytes(lines({ jsonrpc: "2.0", id, result: OK }));
  await pair.settle();
  assert.ok(call.error instanceof ConnectionClosedError);
});

// ── events the client passes on ──────────────────────────────────────────────────

test("onDiagnostic sees violations; validateResults turns a malformed result into InvalidResultError", async () => {
  const rules: string[] = [];
  const scripted = new ScriptedServer(
    (m) => {
      if (m.method === "initialize") return initializeResult({ tools: {} });
      return { result: { tools: "not a list" } };
    },
    { validateResults: true, onDiagnostic: (e) => rules.push(`${e.kind}:${e.rule}`) },
  );
  const connecting = scripted.client.connect();
  await scripted.settle();
  await connecting;
  const listing = scripted.client.listTools();
  await scripted.settle();
  const error = await rejection(listing);
  assert.ok(error instanceof InvalidResultError, String(error));
  assert.equal(error.path, "result.tools");
  assert.match(error.message, /^tools\/list: invalid result at result\.tools: expected /);
  assert.deepEqual(rules, ["violation:SCH-02"]);
  // A response for an id never sent is a violation too.
  scripted.client.driver.receiveBytes(lines({ jsonrpc: "2.0", id: 999, result: {} }));
  assert.deepEqual(rules, ["violation:SCH-02", "violation:ID-04"]);
});

test("progress for a settled request is a diagnostic, not a callback", async () => {
  const rules: string[] = [];
  const seen: unknown[] = [];
  let ctx: HandlerContext | undefined;
  let resolve: ((r: CallToolResult) => void) | undefined;
  const pair = await connected({
    client: { onDiagnostic: (e) => rules.push(e.rule) },
    setup: (s) =>
      s.tool("t", {}, (_a, c) => {
        ctx = c;
        return new Promise<CallToolResult>((r) => (resolve = r));
      }),
  });
  const call = pair.client.callTool("t", {}, { onProgress: (p) => seen.push(p) });
  await pair.settle();
  ctx?.progress(1, 10, "one tenth");
  await pair.settle();
  const token = (pair.clientHost.messages("tools/call")[0]?.params as { _meta: { progressToken: unknown } })._meta.progressToken;
  resolve?.(OK);
  await call;
  pair.client.driver.receiveBytes(
    lines({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: 2 } }),
  );
  assert.deepEqual(seen, [{ progress: 1, total: 10, message: "one tenth" }]);
  assert.deepEqual(rules, ["P-04"]);
});

test("client.request() with a custom method, and client.notify()", async () => {
  const pair = await connected({ client: { capabilities: { roots: { listChanged: true } } } });
  assert.deepEqual(await pair.client.request("ping"), {});
  pair.client.notify("notifications/roots/list_changed");
  await pair.settle();
  assert.equal(pair.clientHost.messages("notifications/roots/list_changed").length, 1);
  assert.throws(() => pair.client.notify("notifications/tools/list_changed"), ProtocolMisuseError);
});

// ── message transports (PeerHost.send) and synchronous delivery ─────────────────

test("over a message transport (PeerHost.send), outbound messages carry the related request id", async () => {
  const clock = new FakeClock();
  const server = new Server({ info: SERVER_INFO, paginationSecret: SECRET });
  let session: ServerSession | undefined;
  let client: Client | undefined;
  const toServer: Outbound[] = [];
  const toClient: Outbound[] = [];
  const clientHost: PeerHost = { send: (o) => toServer.push(o), now: () => clock.now, armTimer: () => {} };
  const serverHost: PeerHost = { send: (o) => toClient.push(o), now: () => clock.now, armTimer: () => {} };
  server.tool("chatty", {}, (_args, ctx) => {
    ctx.log("info", "working");
    ctx.progress(1);
    return OK;
  });
  session = server.connect(serverHost);
  client = new Client(clientHost, { info: CLIENT_INFO });
  const flush = async (): Promise<void> => {
    for (let i = 0; i < 30; i++) {
      for (const o of toServer.splice(0)) session?.receiveMessage(o.message);
      for (const o of toClient.splice(0)) client?.driver.receiveMessage(o.message);
      await Promise.resolve();
    }
  };
  const log: Outbound[] = [];
  const origSend = serverHost.send?.bind(serverHost);
  serverHost.send = (o) => {
    log.push(o);
    origSend?.(o);
  };
  const connecting = client.connect();
  await flush();
  await connecting;
  const calling = client.callTool("chatty", {}, { onProgress: () => {} });
  await flush();
  assert.deepEqual(await calling, OK);
  const callId = 1;
  const related = log
    .filter((o) => !Array.isArray(o.message) && (o.message as { id?: unknown }).id !== 0)
    .map((o) => [(o.message as { method?: string }).method ?? "response", o.relatedRequestId]);
  assert.deepEqual(related, [
    ["notifications/message", callId],
    ["notifications/progress", callId],
    ["response", callId],
  ]);
});

test("synchronous delivery (each write delivered inside the writer's pump) works end to end", async () => {
  const pair = new Pair({ sync: true, server: { pageSize: 1 }, setup: (s) => ["a", "b", "c"].forEach((n) => s.tool(n, {}, () => OK)) });
  const result = await pair.client.connect();
  assert.equal(result.version, "2025-11-25");
  assert.deepEqual(
    (await pair.client.listTools()).map((t) => t.name),
    ["a", "b", "c"],
  );
  assert.deepEqual(await pair.client.ping(), {});
  assert.deepEqual(await pair.client.callTool("b"), OK);
});

// ── errors ───────────────────────────────────────────────────────────────────────

test("errorMessage(): McpError without its prefix, Error message, strings, anything else as 'internal error'", () => {
  assert.equal(errorMessage(new McpError(-32602, "bad thing")), "bad thing");
  assert.equal(errorMessage(new McpError(42, "positive code")), "positive code");
  assert.equal(errorMessage(new RangeError("out of range")), "out of range");
  assert.equal(errorMessage("words"), "words");
  assert.equal(errorMessage({ message: "looks like an error" }), "internal error");
  assert.equal(errorMessage(undefined), "internal error");
  assert.equal(errorMessage(null), "internal error");
});

test("the typed errors: names, fields and messages", () => {
  const errors = [
    new McpError(-1, "m"),
    new RequestTimeoutError("x", 1, "total", undefined),
    new RequestAbortedError("x", 42),
    new ConnectionClosedError("x"),
    new InvalidResultError("x", "result.a", "a string", "a number"),
  ];
  for (const e of errors) {
    assert.ok(e instanceof PeerError);
    assert.ok(e instanceof Error);
    assert.equal(e.name, e.constructor.name);
  }
  assert.equal(
    new RequestTimeoutError("tools/call", "r1", "inactivity", undefined).message,
    "tools/call (request r1) timed out: no answer or progress",
  );
  assert.equal(new RequestAbortedError("ping", 42).message, "ping aborted");
  assert.equal(new RequestAbortedError("ping", 42).reason, 42);
  assert.equal(new ConnectionClosedError("ping", "eof").message, "ping: connection closed (eof)");
  assert.equal(new McpError(-5, "m").data, undefined);
});

// ── Driver ───────────────────────────────────────────────────────────────────────

function serverEngine(): Engine<"server"> {
  return new Engine({ role: "server", info: SERVER_INFO, capabilities: { tools: { listChanged: true } }, versions: ["2025-03-26"] });
}

// 2025-03-26: the one version with JSON-RPC batches.
const INIT = {
  jsonrpc: "2.0",
  id: "init",
  method: "initialize",
  params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: CLIENT_INFO },
};
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };

test("Driver: commands issued while dispatching are flushed in order; re-entrant input is dispatched after, in engine order", () => {
  const engine = serverEngine();
  const sent: unknown[] = [];
  const order: string[] = [];
  let depth = 0;
  let maxDepth = 0;
  const host: PeerHost = { send: (o) => sent.push(o.message), now: () => 0, armTimer: () => {} };
  const driver: Driver<"server"> = new Driver(engine, host, (event: EngineEvent) => {
    depth++;
    maxDepth = Math.max(maxDepth, depth);
    if (event.kind === "request") {
      order.push(`request ${String(event.id)}`);
      if (event.id === "a") {
        // Re-entrant input and a re-entrant pump: both must wait for this dispatch to finish.
        driver.receiveMessage({ jsonrpc: "2.0", id: "c", method: "tools/list" });
        engine.respond("a", { tools: [] });
        driver.pump();
        order.push("a answered");
      } else {
        engine.respond(event.id, { tools: [] });
      }
    } else {
      order.push(event.kind);
    }
    depth--;
  });
  driver.receiveMessage(INIT);
  driver.receiveMessage(INITIALIZED);
  sent.length = 0;
  driver.receiveMessage([
    { jsonrpc: "2.0", id: "a", method: "tools/list" },
    { jsonrpc: "2.0", id: "b", method: "tools/list" },
  ]);
  assert.equal(maxDepth, 1, "dispatch never nests");
  assert.deepEqual(order, ["negotiated", "ready", "request a", "a answered", "request b", "request c"]);
  // Batch replies leave as one array once both are answered; c's answer follows it.
  assert.deepEqual(
    sent.map((m) => (Array.isArray(m) ? m.map((x: { id: string }) => x.id) : (m as { id: string }).id)),
    [["a", "b"], "c"],
  );
});

test("Driver: a stream host gets every message of a pump in one write; a host that neither writes nor sends drops bytes", () => {
  const engine = serverEngine();
  const writes: string[] = [];
  const driver = new Driver(
    engine,
    { write: (b) => writes.push(new TextDecoder().decode(b)), now: () => 0, armTimer: () => {} },
    (event) => {
      if (event.kind === "request") {
        engine.notify("notifications/tools/list_changed");
        engine.respond(event.id, { tools: [] });
      }
    },
  );
  driver.receiveBytes(lines(INIT, INITIALIZED));
  writes.length = 0;
  driver.receiveBytes(lines({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
  assert.equal(writes.length, 1);
  assert.deepEqual(
    writes[0]
      ?.trim()
      .split("\n")
      .map((l) => Object.keys(JSON.parse(l) as object).join(",")),
    ["jsonrpc,method", "jsonrpc,id,result"],
  );

  const mute = serverEngine();
  const events: string[] = [];
  const silent = new Driver(mute, { now: () => 0, armTimer: () => {} }, (e) => events.push(e.kind));
  silent.receiveBytes(lines(INIT));
  assert.deepEqual(events, ["negotiated"]);
  assert.equal(mute.pendingOutboundCount, 0);
  silent.receiveEof();
  assert.deepEqual(events, ["negotiated", "closed"]);
});

test("Driver: re-arms on change only; EOF disarms a pending deadline", () => {
  const engine = new Engine({ role: "client", info: CLIENT_INFO });
  const arms: Array<number | undefined> = [];
  const events: EngineEvent[] = [];
  const driver = new Driver(engine, { write: () => {}, now: () => 5, armTimer: (at) => arms.push(at) }, (e) => events.push(e));
  engine.initialize({ deadline: 100 });
  driver.pump();
  driver.pump();
  assert.deepEqual(arms, [100]);
  driver.receiveEof();
  assert.deepEqual(arms, [100, undefined]);
  assert.deepEqual(
    events.map((e) => e.kind),
    ["connection-closed", "closed"],
  );
});

test("Driver: onTimer expires at the host's now() and re-arms for what is left", () => {
  let now = 0;
  const engine = new Engine({ role: "client", info: CLIENT_INFO });
  const arms: Array<number | undefined> = [];
  const kinds: string[] = [];
  const driver = new Driver(engine, { write: () => {}, now: () => now, armTimer: (at) => arms.push(at) }, (e) => kinds.push(e.kind));
  engine.initialize({ deadline: 50 });
  driver.pump();
  now = 49;
  driver.onTimer();
  assert.deepEqual(kinds, []);
  assert.deepEqual(arms, [50, 50]);
  now = 50;
  driver.onTimer();
  assert.deepEqual(kinds, ["timeout", "closed"]);
  assert.deepEqual(arms, [50, 50], "the spent timer is not disarmed again");
  assert.equal(engine.isClosed, true, "an initialize timeout is fatal");
});

// ── PeerAbortController ──────────────────────────────────────────────────────────

test("PeerAbortController: listeners run once in order; a throwing listener does not stop the others; late listeners are ignored", () => {
  const controller = new PeerAbortController();
  const calls: string[] = [];
  const removed = (): number => calls.push("removed");
  controller.signal.addEventListener("abort", () => calls.push("first"));
  controller.signal.addEventListener("abort", () => {
    throw new Error("listener bug");
  });
  controller.signal.addEventListener("abort", removed);
  controller.signal.addEventListener("abort", () => calls.push(`third saw ${String(controller.signal.reason)}`));
  controller.signal.removeEventListener("abort", removed);
  controller.signal.removeEventListener("abort", () => {});
  assert.equal(controller.signal.aborted, false);
  assert.equal(controller.signal.reason, undefined);
  controller.abort("why");
  assert.equal(controller.signal.aborted, true);
  assert.deepEqual(calls, ["first", "third saw why"]);
  controller.abort("again");
  assert.equal(controller.signal.reason, "why", "the first reason stays");
  controller.signal.addEventListener("abort", () => calls.push("late"));
  assert.deepEqual(calls, ["first", "third saw why"]);
});

test("session.request() on a closed session rejects with ConnectionClosedError", async () => {
  const pair = await connected();
  pair.session.close();
  const error = await rejection(pair.session.request("ping", undefined));
  assert.ok(error instanceof ConnectionClosedError);
  assert.equal(error.message, "ping: connection closed (the session is closed)");
});

test("a completion reference of an unknown type is refused with -32602", async () => {
  const pair = await connected({ setup: (s) => s.prompt("p", {}, () => ({ messages: [] })) });
  await mcpError(
    pair.client.request("completion/complete" as string, { ref: { type: "ref/other", name: "p" }, argument: { name: "a", value: "" } }),
    -32602,
  );
});

test("pagination gives up after 10000 pages of ever-new cursors", async () => {
  let page = 0;
  const scripted = new ScriptedServer((m) =>
    m.method === "initialize" ? initializeResult({ tools: {} }) : { result: { tools: [], nextCursor: `c${++page}` } },
  );
  await scripted.client.connect();
  const error = await rejection(scripted.client.listTools());
  assert.ok(error instanceof InvalidResultError, String(error));
  assert.equal(error.message, "tools/list: invalid result at result.nextCursor: expected at most 10000 pages, got more");
  assert.equal(scripted.host.messages("tools/list").length, 10_000);
});

test("Driver: input arriving inside a write (a synchronous transport) is drained before the pump returns, even without an event", () => {
  const engine = serverEngine();
  const sent: unknown[] = [];
  let inject = false;
  const host: PeerHost = {
    write: (bytes) => {
      for (const line of new TextDecoder().decode(bytes).trim().split("\n")) sent.push((JSON.parse(line) as { id?: unknown }).id);
      if (inject) {
        inject = false;
        // The engine answers ping itself: output, but no event for the loop to notice.
        driver.receiveMessage({ jsonrpc: "2.0", id: "p", method: "ping" });
      }
    },
    now: () => 0,
    armTimer: () => {},
  };
  const driver: Driver<"server"> = new Driver(engine, host, (event) => {
    if (event.kind === "request") engine.respond(event.id, { tools: [] });
  });
  driver.receiveMessage(INIT);
  driver.receiveMessage(INITIALIZED);
  sent.length = 0;
  inject = true;
  driver.receiveMessage({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  assert.deepEqual(sent, [1, "p"], "the ping answer left in the same pump");
});

test("a server request aborted with a text reason cancels it with that reason (the client reads why)", async () => {
  const controller = new PeerAbortController();
  let outcome: unknown;
  const pair = await connected({
    client: { capabilities: { roots: {} } },
    setup: (s) =>
      s.tool("probe", {}, async (_args, ctx) => {
        const pending = ctx.session.request("roots/list", undefined, { signal: controller.signal });
        controller.abort("no longer needed");
        outcome = await pending.catch((error: unknown) => error);
        return OK;
      }),
  });
  pair.client.setRequestHandler("roots/list", () => new Promise(() => undefined));
  const calling = pair.client.callTool("probe");
  await pair.settle();
  assert.deepEqual(await calling, OK);
  assert.ok(outcome instanceof RequestAbortedError);
  assert.deepEqual(
    pair.serverHost.messages("notifications/cancelled").map((m) => (m.params as { reason?: unknown }).reason),
    ["no longer needed"],
  );
});
