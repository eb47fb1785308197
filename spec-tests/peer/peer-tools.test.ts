// Tools through the peer layer in process (spec-tests/support/peer-harness.ts): callTool() and
// its arguments, input validation (JSON Schema, a function, a Standard Schema), handler failures
// as isError results or JSON-RPC errors, outputSchema checks, and a driver that keeps dispatching
// when a callback throws.

import { test } from "node:test";
import assert from "node:assert/strict";
import { McpError, type HandlerContext, type StandardSchemaV1 } from "../../lib/peer/index.js";
import type { CallToolResult } from "../../lib/index.js";
import { lines, track } from "../support/peer-harness.js";
import { mcpError } from "../support/helpers.js";
import { OK, assertNoStack, connected, text } from "../support/peer-helpers.js";

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

test("TL-02: an unknown tool is a protocol error -32602 with the name", async () => {
  const pair = await connected({ setup: (s) => s.tool("echo", {}, () => OK) });
  const error = await mcpError(pair.client.callTool("nope"), -32602);
  assert.equal(error.message, "MCP error -32602: Unknown tool: nope");
  assert.deepEqual(error.data, { name: "nope" });
});

test("TL-01: JSON Schema input validation failure → isError result naming the path, without a stack trace; the handler is not called", async () => {
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

test("TL-01: a function validator: its message on failure, its value replaces the arguments on success", async () => {
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

test("TL-01: a Standard Schema validator: issues with paths become the message; its output value reaches the handler", async () => {
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

test("TL-01: a handler that throws → isError result with the message only (sync, async, non-Error values)", async () => {
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

test("M-05: a handler that throws McpError → that JSON-RPC error, message without the prefix, data kept", async () => {
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

test("TL-01: outputSchema: a mismatch becomes an isError result; a match passes; isError results are not checked", async () => {
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

test("M-04: a handler result that is not an object is answered -32603", async () => {
  const pair = await connected({ setup: (s) => s.tool("broken", {}, () => null as unknown as CallToolResult) });
  await mcpError(pair.client.callTool("broken"), -32603);
});

test("E-01, M-05: a tool's McpError that the protocol refuses is answered -32603 with its message", async () => {
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
