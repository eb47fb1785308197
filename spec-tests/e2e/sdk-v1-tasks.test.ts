// The official SDK v1 client (@modelcontextprotocol/sdk 1.32.2, a dev dependency) runs our
// reference server's task tools through its experimental task API (client.experimental.tasks,
// the 2025-11-25 core tasks) over Streamable HTTP: a task-augmented call streamed to its
// result, tasks/get, tasks/list and tasks/result on it; a task-only tool's tool error; a long
// task cancelled with tasks/cancel.
//
// The SDK is imported at run time by name, with the few types used declared here: its own
// declarations need the DOM and zod, which this build does not compile against.

import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createReferenceServer } from "../../lib/cli/reference-server.js";
import { serveHttp } from "../../lib/hosts/http-server.js";
import { withTimeout } from "../support/helpers.js";

interface SdkTask {
  readonly taskId: string;
  readonly status: string;
  readonly ttl: number | null;
  readonly pollInterval?: number;
}
interface SdkResult {
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>;
  readonly isError?: boolean;
}
type SdkMessage =
  | { type: "taskCreated"; task: SdkTask }
  | { type: "taskStatus"; task: SdkTask }
  | { type: "result"; result: SdkResult }
  | { type: "error"; error: Error };
interface SdkTasks {
  callToolStream(params: { name: string; arguments: Record<string, unknown> }): AsyncIterable<SdkMessage>;
  getTask(taskId: string): Promise<SdkTask>;
  getTaskResult(taskId: string, schema: unknown): Promise<SdkResult>;
  listTasks(cursor?: string): Promise<{ tasks: SdkTask[]; nextCursor?: string }>;
  cancelTask(taskId: string): Promise<SdkTask>;
}
interface SdkClient {
  connect(transport: unknown): Promise<void>;
  setRequestHandler(schema: unknown, handler: (request: { params: Record<string, unknown> }) => unknown): void;
  getServerCapabilities(): { tasks?: unknown } | undefined;
  listTools(): Promise<{ tools: Array<{ name: string; execution?: { taskSupport?: string } }> }>;
  readonly experimental: { readonly tasks: SdkTasks };
  close(): Promise<void>;
}
type ClientClass = new (info: { name: string; version: string }, options?: object) => SdkClient;
type TransportClass = new (url: URL) => unknown;

async function sdk(): Promise<{
  Client: ClientClass;
  Transport: TransportClass;
  CallToolResultSchema: unknown;
  ElicitRequestSchema: unknown;
}> {
  const client: string = "@modelcontextprotocol/sdk/client/index.js";
  const http: string = "@modelcontextprotocol/sdk/client/streamableHttp.js";
  const types: string = "@modelcontextprotocol/sdk/types.js";
  const [{ Client }, { StreamableHTTPClientTransport }, { CallToolResultSchema, ElicitRequestSchema }] = (await Promise.all([
    import(client),
    import(http),
    import(types),
  ])) as [
    { Client: ClientClass },
    { StreamableHTTPClientTransport: TransportClass },
    { CallToolResultSchema: unknown; ElicitRequestSchema: unknown },
  ];
  return { Client, Transport: StreamableHTTPClientTransport, CallToolResultSchema, ElicitRequestSchema };
}

/** The reference server over HTTP in this process, closed after the test; resolves with an SDK client connected to it. */
async function connected(t: TestContext, elicited?: unknown[]): Promise<{ client: SdkClient; CallToolResultSchema: unknown }> {
  const server = createReferenceServer({
    paginationSecret: randomBytes(32),
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, ms);
        signal?.addEventListener("abort", () => (clearTimeout(timer), reject(new Error("aborted"))), { once: true });
      }),
    tasks: { pollIntervalMs: 20 },
  });
  const running = await serveHttp(server, { onError: () => {} });
  const { Client, Transport, CallToolResultSchema, ElicitRequestSchema } = await sdk();
  const client = new Client(
    { name: "sdk-v1-tasks", version: "1.0.0" },
    elicited === undefined ? {} : { capabilities: { elicitation: {} } },
  );
  if (elicited !== undefined)
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      elicited.push(request.params._meta);
      return { action: "accept", content: { confirm: true } };
    });
  await withTimeout(client.connect(new Transport(new URL(running.url))), 10_000, "connect");
  (t as unknown as { after(fn: () => Promise<void>): void }).after(async () => {
    await client.close();
    await running.close();
  });
  return { client, CallToolResultSchema };
}

async function collect(stream: AsyncIterable<SdkMessage>): Promise<SdkMessage[]> {
  const messages: SdkMessage[] = [];
  for await (const message of stream) messages.push(message);
  return messages;
}

test("TK-03, TK-04, TK-07, TK-08: SDK v1 client.experimental.tasks: a task-augmented call streamed to its result; tasks/get, tasks/list, tasks/result on it", async (t) => {
  const { client, CallToolResultSchema } = await connected(t);
  assert.deepEqual(client.getServerCapabilities()?.tasks, { cancel: {}, requests: { tools: { call: {} } }, list: {} });
  const { tools } = await withTimeout(client.listTools(), 10_000, "tools/list");
  assert.equal(tools.find((tool) => tool.name === "slow_compute")?.execution?.taskSupport, "optional");
  const messages = await withTimeout(
    collect(client.experimental.tasks.callToolStream({ name: "slow_compute", arguments: { seconds: 0.05, label: "sdk" } })),
    10_000,
    "callToolStream",
  );
  const created = messages[0];
  assert.ok(created?.type === "taskCreated", JSON.stringify(messages));
  assert.equal(created.task.status, "working");
  assert.equal(created.task.pollInterval, 20);
  const last = messages.at(-1);
  assert.ok(last?.type === "result", JSON.stringify(messages));
  assert.equal(last.result.content[0]?.text, "Computed sdk after 0.05s");
  const taskId = created.task.taskId;
  assert.equal((await client.experimental.tasks.getTask(taskId)).status, "completed");
  const listed = await client.experimental.tasks.listTasks();
  assert.ok(
    listed.tasks.some((task) => task.taskId === taskId && task.status === "completed"),
    JSON.stringify(listed),
  );
  const again = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
  assert.equal(again.content[0]?.text, "Computed sdk after 0.05s");
  // A task-only tool: its tool error is the task's completed result.
  const failing = await withTimeout(
    collect(client.experimental.tasks.callToolStream({ name: "failing_job", arguments: {} })),
    10_000,
    "failing_job",
  );
  const outcome = failing.at(-1);
  assert.ok(outcome?.type === "result" && outcome.result.isError === true, JSON.stringify(failing));
});

test("TK-05: SDK v1 client.experimental.tasks.cancelTask cancels a running task of ours; a second cancel is refused", async (t) => {
  const { client } = await connected(t);
  await client.listTools();
  const stream = client.experimental.tasks.callToolStream({ name: "slow_compute", arguments: { seconds: 30 } })[Symbol.asyncIterator]();
  const first = await withTimeout(stream.next(), 10_000, "taskCreated");
  assert.ok(!first.done && first.value.type === "taskCreated", JSON.stringify(first));
  const taskId = first.value.task.taskId;
  const cancelled = await withTimeout(client.experimental.tasks.cancelTask(taskId), 10_000, "tasks/cancel");
  assert.equal(cancelled.status, "cancelled");
  assert.equal((await client.experimental.tasks.getTask(taskId)).status, "cancelled");
  await assert.rejects(client.experimental.tasks.cancelTask(taskId), /-32602|Cannot cancel/);
  // The stream sees the end the next time it polls.
  let end: IteratorResult<SdkMessage> = await withTimeout(stream.next(), 10_000, "after cancel");
  while (!end.done && end.value.type === "taskStatus" && end.value.task.status !== "cancelled")
    end = await withTimeout(stream.next(), 10_000, "poll");
  await stream.return?.(undefined);
});

test("TK-09: SDK v1 client.experimental.tasks: a task asking for input mid-task (elicitation with the related-task key) is answered and completes", async (t) => {
  const elicited: unknown[] = [];
  const { client } = await connected(t, elicited);
  await client.listTools();
  const messages = await withTimeout(
    collect(client.experimental.tasks.callToolStream({ name: "confirm_delete", arguments: { filename: "a.txt" } })),
    10_000,
    "confirm_delete",
  );
  const created = messages[0];
  assert.ok(created?.type === "taskCreated", JSON.stringify(messages));
  const last = messages.at(-1);
  assert.ok(last?.type === "result", JSON.stringify(messages));
  assert.equal(last.result.content[0]?.text, "Deleted a.txt");
  assert.deepEqual(elicited, [{ "io.modelcontextprotocol/related-task": { taskId: created.task.taskId } }]);
});
