// The 2025-11-25 core tasks (task-augmented tools/call, tasks/get, tasks/result, tasks/list,
// tasks/cancel, notifications/tasks/status) in process. The client against a scripted server
// (status pushes settle a wait before the next poll; a task known by id is resumed; tasks/list
// pages), and our Server with core tasks on (lib/peer/server/task-core.ts) against our Client.

import { test } from "node:test";
import assert from "node:assert/strict";
import type { CallToolResult } from "../../lib/index.js";
import { ScriptedServer, initializeResult, lines, track } from "../support/peer-harness.js";

function text(result: CallToolResult): string {
  const first = result.content[0];
  assert.ok(first !== undefined && first.type === "text", JSON.stringify(result));
  return first.text;
}

const coreTask = (taskId: string, status: string, pollInterval = 60_000) => ({
  taskId,
  status,
  createdAt: "2025-11-25T10:00:00Z",
  lastUpdatedAt: "2025-11-25T10:00:00Z",
  ttl: 600_000,
  pollInterval,
});

const RELATED = "io.modelcontextprotocol/related-task";

/** A scripted 2025-11-25 server with core tasks: t1 works until the test pushes its end; tasks/list in two pages. */
function scripted(): ScriptedServer {
  return new ScriptedServer((message) => {
    const params = (message.params ?? {}) as { taskId?: string; cursor?: string };
    switch (message.method) {
      case "initialize":
        return initializeResult({ tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } });
      case "tools/list":
        return { result: { tools: [{ name: "job", inputSchema: { type: "object" }, execution: { taskSupport: "optional" } }] } };
      case "tools/call":
        return { result: { task: coreTask("t1", "working") } };
      case "tasks/get":
        return { result: coreTask(String(params.taskId), "working") };
      case "tasks/result":
        return {
          result: { content: [{ type: "text", text: `result of ${params.taskId}` }], _meta: { [RELATED]: { taskId: params.taskId } } },
        };
      case "tasks/list":
        return params.cursor === undefined
          ? { result: { tasks: [coreTask("t1", "working"), coreTask("t2", "completed")], nextCursor: "t2" } }
          : { result: { tasks: [coreTask("t3", "failed")] } };
      default:
        return { error: { code: -32601, message: "no" } };
    }
  });
}

/** Lets the client's promise steps run (the scripted server answers synchronously). */
async function turns(n = 20): Promise<void> {
  for (let i = 0; i < n; i++) await Promise.resolve();
}

test("TK-11: a notifications/tasks/status push of the end settles a core task call at once: tasks/result follows the push, not the next poll", async () => {
  const server = scripted();
  await server.client.connect();
  await server.client.listTools();
  const box = track(server.client.callTool("job"));
  await turns();
  // Created and polled once; the next poll is a minute away.
  assert.deepEqual(
    server.received.filter((m) => m.id !== undefined).map((m) => m.method),
    ["initialize", "tools/list", "tools/call", "tasks/get"],
  );
  assert.equal(box.state, "pending");
  server.client.driver.receiveBytes(lines({ jsonrpc: "2.0", method: "notifications/tasks/status", params: coreTask("t1", "completed") }));
  await turns();
  assert.equal(box.state, "resolved", String(box.error));
  assert.equal(text(box.value as CallToolResult), "result of t1");
  assert.deepEqual(
    server.received.filter((m) => m.id !== undefined).map((m) => m.method),
    ["initialize", "tools/list", "tools/call", "tasks/get", "tasks/result"],
  );
  assert.equal(server.clock.now, 0, "no time passed: the push, not a timer, ended the wait");
});

test("TK-11: a push for a task nobody waits on is dropped; without pushes the wait polls at the server's interval", async () => {
  const server = scripted();
  await server.client.connect();
  await server.client.listTools();
  server.client.driver.receiveBytes(lines({ jsonrpc: "2.0", method: "notifications/tasks/status", params: coreTask("t9", "working") }));
  const box = track(server.client.callTool("job"));
  await turns();
  const polls = () => server.received.filter((m) => m.method === "tasks/get").length;
  assert.equal(polls(), 1);
  // A push of a non-final status stands in for a poll: no tasks/get, still waiting.
  server.client.driver.receiveBytes(
    lines({ jsonrpc: "2.0", method: "notifications/tasks/status", params: coreTask("t1", "input_required") }),
  );
  await turns();
  assert.equal(polls(), 1);
  assert.equal(
    server.received.filter((m) => m.method === "tasks/result").length,
    1,
    "input_required: tasks/result carries the server's requests",
  );
  assert.equal(box.state, "resolved", String(box.error));
  const second = track(server.client.callTool("job"));
  await turns();
  assert.equal(polls(), 2);
  server.clock.now += 60_000;
  if (server.host.armed !== undefined && server.host.armed <= server.clock.now) server.host.fire(() => server.client.driver.onTimer());
  await turns();
  assert.equal(polls(), 3, "the next poll came at the server's pollInterval");
  assert.equal(second.state, "pending");
});

test("TK-11: client.tasks.resume(id) drives a task known by id (after a reconnect) to its result; client.tasks.list() pages tasks/list", async () => {
  const server = scripted();
  await server.client.connect();
  const box = track(server.client.tasks.resume("t7"));
  await turns();
  assert.equal(box.state, "pending");
  server.client.driver.receiveBytes(lines({ jsonrpc: "2.0", method: "notifications/tasks/status", params: coreTask("t7", "completed") }));
  await turns();
  assert.equal(box.state, "resolved", String(box.error));
  assert.equal(text(box.value as CallToolResult), "result of t7");
  const first = await server.client.tasks.list();
  assert.deepEqual(
    first.tasks.map((t) => [t.taskId, t.status, t.form, t.pollIntervalMs, t.ttlMs]),
    [
      ["t1", "working", "core", 60_000, 600_000],
      ["t2", "completed", "core", 60_000, 600_000],
    ],
  );
  assert.equal(first.nextCursor, "t2");
  const second = await server.client.tasks.list(first.nextCursor);
  assert.deepEqual(
    second.tasks.map((t) => t.taskId),
    ["t3"],
  );
  assert.equal(second.nextCursor, undefined);
  assert.deepEqual(
    server.received.filter((m) => m.method === "tasks/list").map((m) => m.params),
    [{}, { cursor: "t2" }],
  );
});
