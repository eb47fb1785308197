// A session-era tools/call of a plain tool (no task support, no beforeTask step) starts at once
// through callTool alone when a handler slot is free (ServerSession.startPlainTool,
// HandlerPool.runNow); every other call takes the general path. Each case here fails if that
// shortcut answers differently from the general path: the answer in the same turn, progress
// before the result, thrown errors, argument validation, arguments nested too deep, and the
// handler limit.

import { test } from "node:test";
import assert from "node:assert/strict";
import type { CallToolResult } from "../../lib/index.js";
import { McpError, Server, type ServerOptions, type ServerSession } from "../../lib/peer/index.js";
import { FakeClock, FakeHost, SERVER_INFO, lines } from "../support/peer-harness.js";

type Message = Record<string, unknown>;

/** An object nested `depth` levels deep, as text (so the test never stringifies it). */
const nestedJson = (depth: number): string => '{"a":'.repeat(depth) + "{}" + "}".repeat(depth);

const ok = (text: string): CallToolResult => ({ content: [{ type: "text", text }] });

/** A session-era ServerSession, initialized, fed raw lines; what it writes is in `sent`. */
function session(
  setup: (server: Server) => void,
  options: Partial<ServerOptions> = {},
): { session: ServerSession; sent: Message[]; call(id: number, name: string, argumentsJson?: string, metaJson?: string): void } {
  const host = new FakeHost(new FakeClock(), true);
  const server = new Server({ info: SERVER_INFO, ...options });
  setup(server);
  const connected = server.connect(host);
  connected.receiveBytes(
    lines(
      {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
    ),
  );
  host.sent.length = 0;
  return {
    session: connected,
    sent: host.sent,
    call(id, name, argumentsJson = "{}", metaJson) {
      const meta = metaJson === undefined ? "" : `,"_meta":${metaJson}`;
      connected.receiveBytes(
        new TextEncoder().encode(
          `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${argumentsJson}${meta}}}\n`,
        ),
      );
    },
  };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await Promise.resolve();
}

const answerOf = (sent: readonly Message[], id: number): Message | undefined => sent.find((m) => m.id === id && m.method === undefined);

test("P-01: a synchronous plain tool is answered before receiveBytes returns, its progress first", () => {
  const s = session((server) =>
    server.tool("count", {}, (_args, ctx) => {
      ctx.progress(1, 2);
      return ok(`id ${String(ctx.requestId)} ${ctx.method}`);
    }),
  );
  s.call(7, "count", "{}", '{"progressToken":"t"}');
  assert.deepEqual(
    s.sent.map((m) => m.method ?? "answer"),
    ["notifications/progress", "answer"],
  );
  assert.deepEqual((s.sent[0]?.params as Message).progressToken, "t");
  assert.deepEqual(answerOf(s.sent, 7)?.result, ok("id 7 tools/call"));
});

test("TL-01: what a plain tool throws is answered as on the general path: an isError result, or the McpError's own error", async () => {
  const s = session((server) => {
    server.tool("fails", {}, () => {
      throw new Error("broken");
    });
    server.tool("refuses", {}, () => {
      throw new McpError(-32001, "not now", { why: "busy" });
    });
    server.tool("later", {}, async () => ok("late"));
  });
  s.call(1, "fails");
  s.call(2, "refuses");
  s.call(3, "later");
  await settle();
  assert.deepEqual(answerOf(s.sent, 1)?.result, { content: [{ type: "text", text: "broken" }], isError: true });
  assert.deepEqual(answerOf(s.sent, 2)?.error, { code: -32001, message: "not now", data: { why: "busy" } });
  assert.deepEqual(answerOf(s.sent, 3)?.result, ok("late"));
});

test("TL-01, TL-02: a plain tool's arguments are still validated against its input schema, and an unknown tool is still -32602", () => {
  let ran = 0;
  const s = session((server) =>
    server.tool("typed", { inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } }, (args) => {
      ran++;
      return ok(`n=${String(args.n)}`);
    }),
  );
  s.call(1, "typed", '{"n":"one"}');
  s.call(2, "typed", '{"n":1}');
  s.call(3, "missing");
  const refused = answerOf(s.sent, 1)?.result as CallToolResult | undefined;
  assert.equal(refused?.isError, true);
  assert.match(JSON.stringify(refused?.content), /Invalid arguments for tool typed/);
  assert.deepEqual(answerOf(s.sent, 2)?.result, ok("n=1"));
  assert.equal((answerOf(s.sent, 3)?.error as Message | undefined)?.code, -32602);
  assert.equal(ran, 1, "the handler ran for the valid call only");
});

test("arguments nested past maxJsonDepth are answered -32602 without running the handler, and the next call is answered", () => {
  let ran = 0;
  const s = session((server) =>
    server.tool("echo", {}, () => {
      ran++;
      return ok("echo");
    }),
  );
  s.call(1, "echo", nestedJson(300));
  const error = answerOf(s.sent, 1)?.error as { code: number; message: string } | undefined;
  assert.equal(error?.code, -32602);
  assert.match(error?.message ?? "", /arguments nested deeper than 256 levels/);
  assert.equal(ran, 0);
  s.call(2, "echo");
  assert.deepEqual(answerOf(s.sent, 2)?.result, ok("echo"));
});

test("past maxConcurrentHandlers a plain call waits its turn, and runs once the slot frees", async () => {
  const started: number[] = [];
  let release: (result: CallToolResult) => void = () => undefined;
  const s = session(
    (server) => {
      server.tool("hold", {}, () => {
        started.push(1);
        return new Promise<CallToolResult>((resolve) => (release = resolve));
      });
      server.tool("quick", {}, () => {
        started.push(2);
        return ok("quick");
      });
    },
    { maxConcurrentHandlers: 1 },
  );
  s.call(1, "hold");
  s.call(2, "quick");
  assert.deepEqual(started, [1], "the plain call did not take a slot it does not have");
  assert.equal(answerOf(s.sent, 2), undefined);
  assert.equal(s.session.waitingRequests, 1);
  release(ok("held"));
  await settle();
  assert.deepEqual(started, [1, 2]);
  assert.deepEqual(answerOf(s.sent, 1)?.result, ok("held"));
  assert.deepEqual(answerOf(s.sent, 2)?.result, ok("quick"));
});
