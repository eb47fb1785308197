// The 2025-11-25 core tasks (task-augmented tools/call, tasks/get, tasks/result, tasks/list,
// tasks/cancel, notifications/tasks/status) in process. The client against a scripted server
// (status pushes settle a wait before the next poll; a task known by id is resumed; tasks/list
// pages), and our Server with core tasks on (lib/peer/server/task-core.ts) against our Client.

import { test } from "node:test";
import assert from "node:assert/strict";
import type { CallToolResult, ElicitResult } from "../../lib/index.js";
import { McpError, MemoryTaskStore, TaskFailedError, type HandlerContext, type TaskInfo } from "../../lib/peer/index.js";
import { Server } from "../../lib/peer/server/server.js";
import { serveTasks } from "../../lib/peer/server/task-support.js";
import type { AuthInfo } from "../../lib/auth/types.js";
import { FakeClock, FakeHost, Pair, SERVER_INFO, ScriptedServer, initializeResult, lines, track } from "../support/peer-harness.js";
import { rejection } from "../support/helpers.js";

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

// ── our Server with core tasks on ──────────────────────────────────────────

let ids = 0;
const ok = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

/** A gate a handler awaits until the test opens it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

function untilAborted(signal: HandlerContext["signal"]): Promise<never> {
  return new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
}

/** A session-era pair whose server serves core tasks (and the extension) with the tools `setup` registers. */
async function corePair(setup: (server: Server) => void, elicitation = false): Promise<Pair> {
  const pair = new Pair({
    server: { versions: ["2025-11-25"], tasks: serveTasks({ newTaskId: () => `core-${++ids}`, pollIntervalMs: 500, core: true }) },
    client: { versions: ["2025-11-25"], capabilities: elicitation ? { elicitation: {} } : {} },
    setup,
  });
  const connected = await pair.connect();
  assert.equal(connected.era, "session");
  lastCapabilities = connected.capabilities;
  return pair;
}

let lastCapabilities: unknown;

/** A task-augmented tools/call sent as is; resolves with its task. */
async function startTask(
  client: Pair["client"],
  name: string,
  task: object = {},
): Promise<{ taskId: string; status: string; ttl: number; pollInterval: number; createdAt: string }> {
  const created = (await client.request("tools/call" as string, { name, task })) as { task?: unknown };
  assert.ok(typeof created.task === "object" && created.task !== null, JSON.stringify(created));
  return created.task as { taskId: string; status: string; ttl: number; pollInterval: number; createdAt: string };
}

async function run<T>(pair: Pair, promise: Promise<T>, stepMs = 500, steps = 40): Promise<ReturnType<typeof track<T>>> {
  const box = track(promise);
  for (let i = 0; i < steps && box.state === "pending"; i++) await pair.advance(stepMs);
  return box;
}

test("TK-08, TK-03, TK-07: core tasks on: the tasks capability is declared, tools list their taskSupport, a task-augmented call is answered {task} and driven to its result", async () => {
  const pair = await corePair((server) => {
    server.tool("slow", { taskSupport: "optional" }, async () => ok("slow done"));
    server.tool("plain", {}, () => ok("plain"));
  });
  const caps = lastCapabilities as { tasks?: unknown } | undefined;
  assert.deepEqual(caps?.tasks, { cancel: {}, requests: { tools: { call: {} } }, list: {} });
  const tools = await pair.client.listTools();
  assert.deepEqual(
    tools.map((t) => [t.name, t.execution?.taskSupport]),
    [
      ["slow", "optional"],
      ["plain", undefined],
    ],
  );
  const task = await startTask(pair.client, "slow", { ttl: 5000 });
  assert.equal(task.status, "working");
  assert.equal(task.ttl, 5000, "the ttl asked for, shorter than the server's");
  assert.equal(task.pollInterval, 500);
  assert.match(task.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  await pair.settle();
  const result = await pair.client.request("tasks/result", { taskId: task.taskId });
  assert.equal(text(result as unknown as CallToolResult), "slow done");
  assert.deepEqual((result._meta as Record<string, unknown>)[RELATED], { taskId: task.taskId });
  const seen: TaskInfo[] = [];
  const box = await run(pair, pair.client.callTool("slow", {}, { onTask: (t) => seen.push(t) }));
  assert.equal(box.state, "resolved", String(box.error));
  assert.equal(text(box.value as CallToolResult), "slow done");
  assert.equal(seen[0]?.form, "core");
  assert.equal(seen.at(-1)?.status, "completed");
});

test("TK-08: a call with task of a tool without task support, and one without task of a tool that requires it, are -32601", async () => {
  const pair = await corePair((server) => {
    server.tool("plain", {}, () => ok("plain"));
    server.tool("only_task", { taskSupport: "required" }, () => ok("as a task"));
  });
  const plain = await rejection(pair.client.request("tools/call" as string, { name: "plain", task: {} }));
  assert.ok(plain instanceof McpError && plain.code === -32601 && /TK-08/.test(plain.message), String(plain));
  const bare = await rejection(pair.client.request("tools/call", { name: "only_task", arguments: {} }));
  assert.ok(bare instanceof McpError && bare.code === -32601 && /TK-08/.test(bare.message), String(bare));
  assert.equal(text((await pair.client.request("tools/call", { name: "plain" })) as unknown as CallToolResult), "plain");
});

test("TK-04, TK-11: tasks/result waits for the end; each status change is pushed to the creating session (notifications/tasks/status)", async () => {
  const release = gate();
  const pair = await corePair((server) => {
    server.tool("gated", { taskSupport: "optional" }, async () => {
      await release.wait;
      return ok("released");
    });
  });
  const pushes: unknown[] = [];
  pair.client.onNotification("notifications/tasks/status", (params) => pushes.push(params?.status));
  const { taskId } = await startTask(pair.client, "gated");
  const waiting = track(pair.client.request("tasks/result", { taskId }));
  await pair.settle();
  assert.equal(waiting.state, "pending");
  assert.equal(((await pair.client.request("tasks/get", { taskId })) as { status: string }).status, "working");
  release.open();
  await pair.settle();
  assert.equal(waiting.state, "resolved", String(waiting.error));
  assert.equal(text(waiting.value as unknown as CallToolResult), "released");
  assert.deepEqual(pushes, ["completed"]);
});

test("TK-04: a tool error completes the task with isError; a thrown McpError fails it: tasks/result is that error, callTool a TaskFailedError", async () => {
  const pair = await corePair((server) => {
    server.tool("tool_error", { taskSupport: "optional" }, () => ({ content: [{ type: "text", text: "bad" }], isError: true }));
    server.tool("protocol_error", { taskSupport: "optional" }, () => {
      throw new McpError(-32050, "custom failure", { why: "test" });
    });
  });
  await pair.client.listTools();
  const toolError = await run(pair, pair.client.callTool("tool_error"));
  assert.equal((toolError.value as CallToolResult).isError, true);
  const { taskId } = await startTask(pair.client, "protocol_error");
  await pair.settle();
  const error = await rejection(pair.client.request("tasks/result", { taskId }));
  assert.ok(error instanceof McpError && error.code === -32050 && /custom failure/.test(error.message), String(error));
  assert.deepEqual(error.data, { why: "test" });
  const failed = await run(pair, pair.client.callTool("protocol_error"));
  assert.ok(failed.error instanceof TaskFailedError && failed.error.code === -32050, String(failed.error));
});

test("TK-05: tasks/cancel stops the handler and answers the task cancelled; a second cancel is -32602; tasks/result of it is an error; aborting callTool cancels", async () => {
  let aborted = 0;
  const pair = await corePair((server) => {
    server.tool("forever", { taskSupport: "optional" }, async (_args, ctx) => {
      try {
        return await untilAborted(ctx.signal);
      } finally {
        aborted++;
      }
    });
  });
  const { taskId } = await startTask(pair.client, "forever");
  const cancelled = await pair.client.request("tasks/cancel", { taskId });
  assert.equal(cancelled.status, "cancelled");
  await pair.settle();
  assert.equal(aborted, 1);
  assert.equal(((await pair.client.request("tasks/get", { taskId })) as { status: string }).status, "cancelled");
  const again = await rejection(pair.client.request("tasks/cancel", { taskId }));
  assert.ok(again instanceof McpError && again.code === -32602, String(again));
  const result = await rejection(pair.client.request("tasks/result", { taskId }));
  assert.ok(result instanceof McpError && /cancelled/.test(result.message), String(result));
  await pair.client.listTools();
  const controller = new AbortController();
  const call = track(pair.client.callTool("forever", {}, { signal: controller.signal }));
  await pair.settle();
  controller.abort("enough");
  await pair.settle();
  assert.equal(call.state, "rejected");
  assert.equal(aborted, 2, "the abort sent tasks/cancel, which stopped the handler");
});

test("TK-09: a task's ctx.elicit is a request to the client carrying related-task; the task is input_required until it is answered", async () => {
  const pair = await corePair((server) => {
    server.tool("ask", { taskSupport: "optional" }, async (_args, ctx) => {
      const answer = await ctx.elicit({ message: "name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } });
      return ok(`hello ${String(answer.content?.name)}`);
    });
  }, true);
  const asked: unknown[] = [];
  const answer = gate();
  pair.client.setRequestHandler("elicitation/create", async (params): Promise<ElicitResult> => {
    asked.push((params as { _meta?: Record<string, unknown> })._meta?.[RELATED]);
    await answer.wait;
    return { action: "accept", content: { name: "Ada" } };
  });
  const { taskId } = await startTask(pair.client, "ask");
  await pair.settle();
  assert.deepEqual(asked, [{ taskId }]);
  assert.equal(((await pair.client.request("tasks/get", { taskId })) as { status: string }).status, "input_required");
  answer.open();
  await pair.settle();
  const result = await pair.client.request("tasks/result", { taskId });
  assert.equal(text(result as unknown as CallToolResult), "hello Ada");
});

test("TK-10: tasks/list lists the calling session's tasks in pages; another session's are not listed; a bad cursor is -32602", async () => {
  const server = new Server({
    info: SERVER_INFO,
    versions: ["2025-11-25"],
    tasks: serveTasks({ newTaskId: () => `listed-${++ids}`, core: true }),
  });
  server.tool("quick", { taskSupport: "optional" }, () => ok("quick"));
  const one = new Pair({ serverInstance: server, client: { versions: ["2025-11-25"] } });
  const two = new Pair({ serverInstance: server, client: { versions: ["2025-11-25"] } });
  await one.connect();
  await two.connect();
  const made: string[] = [];
  for (let i = 0; i < 52; i++) made.push((await startTask(one.client, "quick")).taskId);
  await startTask(two.client, "quick");
  await one.settle();
  const first = await one.client.tasks.list();
  assert.equal(first.tasks.length, 50);
  assert.equal(first.nextCursor, made[49]);
  const second = await one.client.tasks.list(first.nextCursor);
  assert.deepEqual(
    [...first.tasks, ...second.tasks].map((t) => t.taskId),
    made,
  );
  assert.equal(second.nextCursor, undefined);
  assert.equal((await two.client.tasks.list()).tasks.length, 1);
  const bad = await rejection(one.client.tasks.list("no-such-task"));
  assert.ok(bad instanceof McpError && bad.code === -32602, String(bad));
});

/** A raw session of `server` whose requests arrive as over HTTP with `auth`. */
function rawSession(server: Server): { send: (message: object, auth: AuthInfo | undefined) => void; host: FakeHost } {
  const host = new FakeHost(new FakeClock(), true);
  const session = server.connect(host);
  const send = (message: object, auth: AuthInfo | undefined): void =>
    session.receiveMessage({ jsonrpc: "2.0", ...message }, { header: () => undefined, sessionId: "s-1", auth });
  send(
    { id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } } },
    undefined,
  );
  send({ method: "notifications/initialized" }, undefined);
  return { send, host };
}

test("TK-10: with an auth context a task is bound to it: another identity's tasks/get, tasks/result and tasks/cancel answer -32602 as for an unknown id, and its tasks/list is empty", async () => {
  const server = new Server({
    info: SERVER_INFO,
    versions: ["2025-11-25"],
    tasks: serveTasks({ newTaskId: () => `bound-${++ids}`, core: true }),
  });
  server.tool("mine", { taskSupport: "optional" }, (_args, ctx) => untilAborted(ctx.signal));
  const alice: AuthInfo = { token: "a", scopes: [], clientId: "app", subject: "alice" };
  const bob: AuthInfo = { token: "b", scopes: [], clientId: "app", subject: "bob" };
  const { send, host } = rawSession(server);
  const answer = async (id: number, method: string, params: object, auth: AuthInfo): Promise<Record<string, unknown>> => {
    send({ id, method, params }, auth);
    for (let i = 0; i < 20; i++) await Promise.resolve();
    const reply = host.sent.find((m) => m.id === id);
    assert.ok(reply !== undefined, `an answer to ${method}`);
    return reply;
  };
  const created = await answer(1, "tools/call", { name: "mine", task: {} }, alice);
  const taskId = (created.result as { task: { taskId: string } }).task.taskId;
  for (const [id, method] of [
    [2, "tasks/get"],
    [3, "tasks/cancel"],
  ] as const) {
    const refused = await answer(id, method, { taskId }, bob);
    assert.equal((refused.error as { code: number }).code, -32602, `${method} by another identity`);
    assert.match((refused.error as { message: string }).message, /not found/);
  }
  send({ id: 4, method: "tasks/result", params: { taskId } }, bob);
  for (let i = 0; i < 20; i++) await Promise.resolve();
  assert.equal(((host.sent.find((m) => m.id === 4)?.error ?? {}) as { code?: number }).code, -32602, "tasks/result by another identity");
  assert.deepEqual(((await answer(5, "tasks/list", {}, bob)).result as { tasks: unknown[] }).tasks, []);
  assert.deepEqual(
    ((await answer(6, "tasks/list", {}, alice)).result as { tasks: Array<{ taskId: string }> }).tasks.map((t) => t.taskId),
    [taskId],
  );
  assert.equal(((await answer(7, "tasks/get", { taskId }, alice)).result as { status: string }).status, "working");
  assert.equal(((await answer(8, "tasks/cancel", { taskId }, alice)).result as { status: string }).status, "cancelled");
});

test("TK-11: our client's callTool settles on the server's status push before its next poll", async () => {
  const release = gate();
  const pair = await corePair((server) => {
    server.tool("gated", { taskSupport: "optional" }, async () => {
      await release.wait;
      return ok("pushed");
    });
  });
  await pair.client.listTools();
  const box = track(pair.client.callTool("gated"));
  await pair.settle();
  const polls = () => pair.clientHost.sent.filter((m) => m.method === "tasks/get").length;
  const before = polls();
  release.open();
  await pair.settle();
  assert.equal(box.state, "resolved", String(box.error));
  assert.equal(text(box.value as CallToolResult), "pushed");
  assert.equal(polls(), before, "no poll: the push ended the wait");
});

test("TX-01: 2026-07-28 server/discover of a dual-era server with core tasks leaves out the session era's tasks capability; the extension stays", async () => {
  const pair = new Pair({
    server: { versions: ["2025-11-25", "2026-07-28"], tasks: serveTasks({ newTaskId: () => `dual-${++ids}`, core: true }) },
    client: { versions: ["2025-11-25", "2026-07-28"] },
    setup: (server) => server.tool("t", { taskSupport: "optional" }, () => ok("t")),
  });
  const connected = await pair.connect();
  assert.equal(connected.era, "modern");
  const caps = connected.capabilities as { tasks?: unknown; extensions?: Record<string, unknown> };
  assert.equal(caps.tasks, undefined);
  assert.ok(caps.extensions !== undefined && "io.modelcontextprotocol/tasks" in caps.extensions);
});

test("TK-04, TK-05: two processes sharing one store: a tasks/result on one waits for a task the other runs and wakes at its end; a cancel on one stops the handler on the other", async () => {
  const store = new MemoryTaskStore();
  const release = gate();
  let stopped = 0;
  const make = (): Server => {
    const server = new Server({
      info: SERVER_INFO,
      versions: ["2025-11-25"],
      tasks: serveTasks({ newTaskId: () => `shared-${++ids}`, store, core: true }),
    });
    server.tool("gated", { taskSupport: "optional" }, async () => {
      await release.wait;
      return ok("ran on the other");
    });
    server.tool("forever", { taskSupport: "optional" }, async (_args, ctx) => {
      try {
        return await untilAborted(ctx.signal);
      } finally {
        stopped++;
      }
    });
    return server;
  };
  const a = make();
  const b = make();
  // The relay a shared bus gives (lib/http-server/cluster.ts): each change applied on both.
  for (const server of [a, b]) server.relay = (change) => [a, b].forEach((each) => each.applyChange(change));
  const onA = new Pair({ serverInstance: a, client: { versions: ["2025-11-25"] } });
  const onB = new Pair({ serverInstance: b, client: { versions: ["2025-11-25"] } });
  await onA.connect();
  await onB.connect();
  const { taskId } = await startTask(onA.client, "gated");
  const waiting = track(onB.client.request("tasks/result", { taskId }));
  await onB.settle();
  assert.equal(waiting.state, "pending");
  release.open();
  await onA.settle();
  await onB.settle();
  assert.equal(waiting.state, "resolved", String(waiting.error));
  assert.equal(text(waiting.value as unknown as CallToolResult), "ran on the other");
  const forever = await startTask(onA.client, "forever");
  const cancelled = await onB.client.request("tasks/cancel", { taskId: forever.taskId });
  assert.equal(cancelled.status, "cancelled");
  await onA.settle();
  assert.equal(stopped, 1, "the handler on the other process stopped");
});
