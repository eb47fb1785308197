// Task round trips in process (spec-tests/support/peer-harness.ts, a fake clock): the 2026-07-28
// tasks extension between our Client and our Server (completion, tool errors, failure,
// cancellation from either side, input mid-task over several rounds, expiry, unknown and
// expired ids, a client that did not declare the extension, notifications/tasks on a listen
// stream), the MemoryTaskStore's bounds, and the 2025-11-25 task-augmented form against a
// scripted server.

import { test } from "node:test";
import assert from "node:assert/strict";
import { MODERN_VERSIONS, SESSION_VERSIONS, TASKS_EXTENSION, type CallToolResult, type ProtocolVersion } from "../../lib/index.js";
import { isoTimestamp } from "../../lib/peer/server/task-server.js";
import { serveTasks } from "../../lib/peer/server/task-support.js";
import {
  MemoryTaskStore,
  McpError,
  PeerAbortController,
  Server,
  RequestAbortedError,
  TaskCancelledError,
  TaskFailedError,
  type HandlerContext,
  type TaskInfo,
} from "../../lib/peer/index.js";
import { Pair, ScriptedServer, initializeResult, track, type PairOptions } from "../support/peer-harness.js";
import { rejection } from "../support/helpers.js";
import { httpHeaderProblem } from "../../lib/http/headers.js";

const ALL: ProtocolVersion[] = [...SESSION_VERSIONS, ...MODERN_VERSIONS];
const EXT = { extensions: { [TASKS_EXTENSION]: {} } };
const ok = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

function text(result: CallToolResult): string {
  const first = result.content[0];
  assert.ok(first !== undefined && first.type === "text", JSON.stringify(result));
  return first.text;
}

/** Resolves when `signal` aborts (a handler that works until cancelled). */
function untilAborted(signal: HandlerContext["signal"]): Promise<never> {
  return new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
}

let ids = 0;
async function tasksPair(options: PairOptions & { declare?: boolean; ttlMs?: number | null } = {}): Promise<Pair> {
  const pair = new Pair({
    ...options,
    server: {
      versions: ALL,
      tasks: serveTasks({ newTaskId: () => `task-${++ids}`, pollIntervalMs: 500, ttlMs: options.ttlMs }),
      ...options.server,
    },
    client: {
      versions: ALL,
      capabilities: options.declare === false ? { elicitation: {} } : { elicitation: {}, sampling: {}, ...EXT },
      ...options.client,
    },
  });
  const connected = await pair.connect();
  assert.equal(connected.era, "modern");
  return pair;
}

/** Drives the fake clock until `promise` settles (each poll waits on the client's timer). */
async function run<T>(pair: Pair, promise: Promise<T>, stepMs = 500, steps = 40): Promise<ReturnType<typeof track<T>>> {
  const box = track(promise);
  for (let i = 0; i < steps && box.state === "pending"; i++) await pair.advance(stepMs);
  return box;
}

test("TX-04, TX-11: a tool that may run as a task: CreateTaskResult over the wire, polled to its result at the server's interval", async () => {
  const pair = await tasksPair({ setup: (s) => s.tool("slow", { taskSupport: "optional" }, async () => ok("done")) });
  const seen: TaskInfo[] = [];
  const box = await run(pair, pair.client.callTool("slow", {}, { onTask: (t) => seen.push(t) }));
  assert.equal(box.state, "resolved", String(box.error));
  assert.equal(text(box.value as CallToolResult), "done");
  const created = pair.clientHost.sent.find((m) => m.method === "tools/call");
  const answer = pair.serverHost.sent.find((m) => m.id === created?.id) as { result: Record<string, unknown> };
  assert.equal(answer.result.resultType, "task");
  assert.equal(answer.result.status, "working");
  assert.equal(answer.result.pollIntervalMs, 500);
  assert.equal(answer.result.task, undefined, "flat: no nested task wrapper");
  assert.equal(seen[0]?.form, "extension");
  assert.equal(seen.at(-1)?.status, "completed");
  assert.ok(pair.clientHost.messages("tasks/get").length >= 1);
});

test("TX-05, TX-11: a tool error completes the task with isError; a protocol error fails it: TaskFailedError with the code", async () => {
  const pair = await tasksPair({
    setup: (s) => {
      s.tool("bad", { taskSupport: "required" }, () => ({ ...ok("no"), isError: true }));
      s.tool("crash", { taskSupport: "optional" }, () => {
        throw new McpError(-32603, "boom", { why: "test" });
      });
    },
  });
  const bad = await run(pair, pair.client.callTool("bad"));
  assert.equal((bad.value as CallToolResult).isError, true);
  const crash = await run(pair, pair.client.callTool("crash"));
  assert.equal(crash.state, "rejected");
  assert.ok(crash.error instanceof TaskFailedError, String(crash.error));
  assert.equal(crash.error.code, -32603);
  assert.deepEqual(crash.error.data, { why: "test" });
});

test("TX-11, TX-07: aborting the call cancels the task: tasks/cancel is sent, the handler's signal aborts, the task ends cancelled", async () => {
  let handlerSignal: HandlerContext["signal"] | undefined;
  const pair = await tasksPair({
    setup: (s) =>
      s.tool("forever", { taskSupport: "optional" }, (_a, ctx) => {
        handlerSignal = ctx.signal;
        return untilAborted(ctx.signal);
      }),
  });
  const controller = new PeerAbortController();
  const box = track(pair.client.callTool("forever", {}, { signal: controller.signal }));
  await pair.advance(600);
  controller.abort("enough");
  await pair.advance(10);
  assert.equal(box.state, "rejected");
  assert.ok(box.error instanceof RequestAbortedError, String(box.error));
  assert.equal(pair.clientHost.messages("tasks/cancel").length, 1);
  assert.equal(handlerSignal?.aborted, true);
  const taskId = (pair.clientHost.messages("tasks/cancel")[0]?.params as { taskId: string }).taskId;
  const after = await pair.client.tasks.get(taskId);
  assert.equal(after.status, "cancelled");
  // Idempotent: a second cancel of an ended task is the same empty ack.
  assert.deepEqual(
    Object.keys(await pair.client.tasks.cancel(taskId)).filter((k) => k !== "_meta"),
    ["resultType"],
  );
});

test("TX-11: the server cancels a task: the client's call rejects with TaskCancelledError", async () => {
  let taskId: string | undefined;
  const pair = await tasksPair({
    setup: (s) => s.tool("forever", { taskSupport: "optional" }, (_a, ctx) => ((taskId = ctx.taskId), untilAborted(ctx.signal))),
  });
  const box = track(pair.client.callTool("forever"));
  await pair.advance(100);
  assert.ok(taskId !== undefined);
  assert.equal(await pair.server.taskRunner?.cancelTask(taskId, pair.clock.now, "shutting down"), true);
  await run(pair, Promise.resolve());
  for (let i = 0; i < 5 && box.state === "pending"; i++) await pair.advance(500);
  assert.ok(box.error instanceof TaskCancelledError, String(box.error));
  assert.equal(box.error.statusMessage, "shutting down");
});

test("TX-07, TX-11: input mid-task over several rounds: inputRequests answered by the client's handlers through tasks/update, each key once", async () => {
  const asked: string[] = [];
  const pair = await tasksPair({
    setup: (s) =>
      s.tool("interview", { taskSupport: "required" }, async (_a, ctx) => {
        const first = await ctx.elicit({
          mode: "form",
          message: "name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } } },
        });
        const [a, b] = await Promise.all([
          ctx.elicit({ mode: "form", message: "colour?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } }),
          ctx.createMessage({ messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 5 }),
        ]);
        return ok(`${String(first.content?.name)}/${String(a.content?.name)}/${b.model}`);
      }),
  });
  pair.client.setRequestHandler(
    "elicitation/create",
    (params) => (asked.push(params.message), { action: "accept", content: { name: params.message.replace("?", "!") } }),
  );
  pair.client.setRequestHandler("sampling/createMessage", () => ({
    role: "assistant",
    content: { type: "text", text: "yo" },
    model: "m1",
  }));
  const box = await run(pair, pair.client.callTool("interview"));
  assert.equal(box.state, "resolved", String(box.error));
  assert.equal(text(box.value as CallToolResult), "name!/colour!/m1");
  assert.deepEqual(asked, ["name?", "colour?"], "each input request answered exactly once");
  const updates = pair.clientHost.messages("tasks/update").map((m) => Object.keys((m.params as { inputResponses: object }).inputResponses));
  assert.deepEqual(updates.flat().sort(), ["elicitation/create#0", "elicitation/create#1", "sampling/createMessage#2"]);
});

test("TX-07: tasks/update: unknown keys are ignored and a partial answer keeps the task input_required", async () => {
  const pair = await tasksPair({
    setup: (s) =>
      s.tool("two", { taskSupport: "optional" }, async (_a, ctx) => {
        const schema = { type: "object" as const, properties: { name: { type: "string" as const } } };
        await Promise.all([
          ctx.elicit({ mode: "form", message: "a", requestedSchema: schema }),
          ctx.elicit({ mode: "form", message: "b", requestedSchema: schema }),
        ]);
        return ok("both");
      }),
  });
  const created = await pair.client.tasks.create("two", {});
  assert.ok("task" in created);
  await pair.settle();
  const id = created.task.taskId;
  const first = await pair.client.tasks.get(id);
  assert.equal(first.status, "input_required");
  assert.deepEqual(Object.keys(first.inputRequests as object).sort(), ["elicitation/create#0", "elicitation/create#1"]);
  assert.equal((await pair.client.tasks.update(id, { nope: { action: "accept" } })).resultType, "complete");
  await pair.client.tasks.update(id, { "elicitation/create#0": { action: "accept", content: { name: "x" } } });
  const partial = await pair.client.tasks.get(id);
  assert.equal(partial.status, "input_required");
  assert.deepEqual(Object.keys(partial.inputRequests as object), ["elicitation/create#1"]);
  await pair.client.tasks.update(id, { "elicitation/create#1": { action: "accept", content: { name: "y" } } });
  await pair.settle();
  const done = await pair.client.tasks.get(id);
  assert.equal(done.status, "completed");
  assert.equal(text(done.result as CallToolResult), "both");
});

test("TX-05: expiry by ttlMs: a task past its TTL is -32602 'expired' once, then unknown; its handler is stopped", async () => {
  let signal: HandlerContext["signal"] | undefined;
  const pair = await tasksPair({
    ttlMs: 2000,
    setup: (s) => s.tool("forever", { taskSupport: "optional" }, (_a, ctx) => ((signal = ctx.signal), untilAborted(ctx.signal))),
  });
  const box = await run(pair, pair.client.callTool("forever"), 500, 10);
  assert.equal(box.state, "rejected");
  assert.ok(box.error instanceof McpError && box.error.code === -32602, String(box.error));
  assert.match(String(box.error), /expired/);
  assert.equal(signal?.aborted, true);
  const taskId = (pair.clientHost.messages("tasks/get")[0]?.params as { taskId: string }).taskId;
  const again = await rejection(pair.client.tasks.get(taskId));
  assert.ok(again instanceof McpError && again.code === -32602 && /not found/.test(again.message), String(again));
});

test("TX-05: unknown task ids: -32602 for tasks/get, tasks/update and tasks/cancel; a malformed taskId too", async () => {
  const pair = await tasksPair({ setup: (s) => s.tool("t", {}, () => ok("t")) });
  for (const call of [
    pair.client.tasks.get("nope"),
    pair.client.tasks.update("nope", {}),
    pair.client.tasks.cancel("nope"),
    pair.client.request("tasks/get" as string, { taskId: 42 }),
  ]) {
    const error = await rejection(call);
    assert.ok(error instanceof McpError && error.code === -32602, String(error));
  }
});

test("TX-02, TX-03: a client that did not declare the extension: plain results for task-capable tools, -32021 for task-only ones and for tasks/*", async () => {
  const pair = await tasksPair({
    declare: false,
    setup: (s) => {
      s.tool("maybe", { taskSupport: "optional" }, () => ok("sync"));
      s.tool("only", { taskSupport: "required" }, () => ok("never"));
    },
  });
  assert.equal(text(await pair.client.callTool("maybe")), "sync");
  const only = await rejection(pair.client.callTool("only"));
  assert.ok(only instanceof McpError && only.code === -32021, String(only));
  assert.deepEqual(only.data, { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
  const get = await rejection(pair.client.tasks.get("anything"));
  assert.ok(get instanceof McpError && get.code === -32021, String(get));
});

test("TX-10: notifications/tasks reach a subscriptions/listen stream that named the task", async () => {
  let release: (() => void) | undefined;
  const pair = await tasksPair({
    setup: (s) =>
      s.tool(
        "gated",
        { taskSupport: "optional" },
        () => new Promise<CallToolResult>((resolve) => (release = () => resolve(ok("released")))),
      ),
  });
  const created = await pair.client.tasks.create("gated", {});
  assert.ok("task" in created);
  const statuses: unknown[] = [];
  pair.client.onNotification("notifications/tasks", (params) => statuses.push(params?.status));
  const controller = new PeerAbortController();
  void pair.client
    .request(
      "subscriptions/listen",
      { notifications: { taskIds: [created.task.taskId] } },
      { signal: controller.signal, timeoutMs: Infinity },
    )
    .catch(() => undefined);
  await pair.settle();
  release?.();
  await pair.settle();
  assert.deepEqual(statuses, ["completed"]);
  controller.abort();
});

test("MemoryTaskStore: bounded (ended tasks forgotten first, then refusal), expiry by the caller's clock", async () => {
  const store = new MemoryTaskStore({ maxTasks: 2 });
  const task = (taskId: string, status: "working" | "completed" = "working") => ({
    taskId,
    status,
    createdAt: 0,
    lastUpdatedAt: 0,
    ttlMs: 1000,
  });
  await store.create(task("a", "completed"));
  await store.create(task("b"));
  await store.create(task("c"));
  assert.equal(await store.get("a", 0), undefined, "the ended task made room");
  await assert.rejects(store.create(task("d")), /at most 2 tasks/);
  await assert.rejects(store.create(task("b")), /taken/);
  assert.equal(await store.get("b", 1000), "expired");
  assert.equal(await store.get("b", 1000), undefined);
});

test("MemoryTaskStore: an ended task stays ended: a late outcome after a cancel changes nothing (as the Redis store)", async () => {
  const store = new MemoryTaskStore();
  await store.create({ taskId: "t", status: "working", createdAt: 0, lastUpdatedAt: 0, ttlMs: null });
  const cancelled = await store.update("t", { status: "cancelled", statusMessage: "stopped" }, 5);
  assert.equal(cancelled !== undefined && cancelled !== "expired" ? cancelled.status : cancelled, "cancelled");
  const late = await store.update("t", { status: "completed", result: { content: [] } }, 9);
  assert.ok(late !== undefined && late !== "expired");
  assert.equal(late.status, "cancelled");
  assert.equal(late.result, undefined);
  assert.equal(late.lastUpdatedAt, 5, "nothing was written");
  const got = await store.get("t", 10);
  assert.ok(got !== undefined && got !== "expired" && got.status === "cancelled" && got.statusMessage === "stopped");
});

test("TK-08, TK-03, TK-04: 2025-11-25: a tool with taskSupport required on a server declaring tasks is called task-augmented, polled, and its result fetched with tasks/result", async () => {
  let polls = 0;
  const server = new ScriptedServer((message) => {
    const task = (status: string) => ({
      taskId: "t1",
      status,
      createdAt: "2025-11-25T10:00:00Z",
      lastUpdatedAt: "2025-11-25T10:00:00Z",
      ttl: 60000,
      pollInterval: 250,
    });
    switch (message.method) {
      case "initialize":
        return initializeResult({ tools: {}, tasks: { requests: { tools: { call: {} } } } });
      case "tools/list":
        return { result: { tools: [{ name: "job", inputSchema: { type: "object" }, execution: { taskSupport: "required" } }] } };
      case "tools/call":
        assert.deepEqual((message.params as { task?: unknown }).task, {});
        return { result: { task: task("working") } };
      case "tasks/get":
        return { result: task(++polls < 2 ? "working" : "completed") };
      case "tasks/result":
        return {
          result: { content: [{ type: "text", text: "core done" }], _meta: { "io.modelcontextprotocol/related-task": { taskId: "t1" } } },
        };
      default:
        return { error: { code: -32601, message: "no" } };
    }
  });
  await server.client.connect();
  await server.client.listTools();
  const box = track(server.client.callTool("job"));
  for (let i = 0; i < 10 && box.state === "pending"; i++) {
    await Promise.resolve();
    server.clock.now += 250;
    if (server.host.armed !== undefined && server.host.armed <= server.clock.now) server.host.fire(() => server.client.driver.onTimer());
    for (let j = 0; j < 10; j++) await Promise.resolve();
  }
  assert.equal(box.state, "resolved", String(box.error));
  assert.equal(text(box.value as CallToolResult), "core done");
  assert.deepEqual(
    server.received.filter((m) => m.id !== undefined).map((m) => m.method),
    ["initialize", "tools/list", "tools/call", "tasks/get", "tasks/get", "tasks/result"],
  );
});

test("TX-09: over 2026-07-28 HTTP, tasks/get, tasks/update and tasks/cancel need Mcp-Name equal to params.taskId (the method table's nameParam)", () => {
  const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name.toLowerCase()] ?? null });
  const params = { taskId: "t-1", _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } };
  for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
    const base = { "mcp-protocol-version": "2026-07-28", "mcp-method": method };
    assert.equal(httpHeaderProblem(headers({ ...base, "mcp-name": "t-1" }), method, params), undefined, method);
    assert.equal(httpHeaderProblem(headers({ ...base, "mcp-name": "other" }), method, params)?.code, -32020, method);
    assert.equal(httpHeaderProblem(headers(base), method, params)?.code, -32020, `${method} without Mcp-Name`);
  }
});

test("TX-04: task timestamps: the host's ms as ISO 8601 UTC, computed without a Date (the peer layer reads no clock)", () => {
  for (const ms of [0, 951_782_400_000, 1_785_000_000_123, 4_102_444_799_999, 1_709_164_800_000, 86_399_999, -1, -86_400_000 * 366]) {
    assert.equal(isoTimestamp(ms), new Date(ms).toISOString(), String(ms));
  }
});

test("TX-10: a task's handler sends no progress and no log messages (SEP-2663), even when the creating request asked for both", async () => {
  const pair = await tasksPair({
    client: { logLevel: "debug" },
    setup: (s) =>
      s.tool("chatty", { taskSupport: "optional" }, (_a, ctx) => {
        ctx.progress(1, 2, "half");
        ctx.log("info", "working");
        return ok("quiet");
      }),
  });
  const progress: unknown[] = [];
  const box = await run(pair, pair.client.callTool("chatty", {}, { onProgress: (p) => progress.push(p) }));
  assert.equal(text(box.value as CallToolResult), "quiet");
  assert.deepEqual(progress, []);
  assert.deepEqual(pair.serverHost.messages("notifications/progress"), []);
  assert.deepEqual(pair.serverHost.messages("notifications/message"), []);
});

test("TX-01: the tasks extension is served through serveTasks alone: its options are checked where it is called, and a Server refuses anything else as tasks", () => {
  assert.throws(() => serveTasks({} as never), /tasks: expected newTaskId, a function returning unguessable ids/);
  // The shape of ServerOptions.tasks before serveTasks: refused at the constructor, naming the maker, not at the first request.
  assert.throws(
    () => new Server({ info: { name: "s", version: "1" }, tasks: { newTaskId: () => "t" } as never }),
    /server options: expected tasks to be what serveTasks\(\{ newTaskId, store\?, ttlMs\?, pollIntervalMs\? \}\) returns; got an object with keys newTaskId/,
  );
  const plain = new Server({ info: { name: "s", version: "1" }, versions: ALL });
  assert.equal(plain.taskRunner, undefined);
  assert.throws(() => plain.tool("t", { taskSupport: "optional" }, () => ({ content: [] })), /needs ServerOptions.tasks \(serveTasks/);
  const served = new Server({ info: { name: "s", version: "1" }, versions: ALL, tasks: serveTasks({ newTaskId: () => "t" }) });
  assert.ok(served.taskRunner !== undefined);
  assert.deepEqual((served.capabilities() as { extensions?: object }).extensions, { [TASKS_EXTENSION]: {} });
  assert.equal((plain.capabilities() as { extensions?: object }).extensions, undefined);
});
