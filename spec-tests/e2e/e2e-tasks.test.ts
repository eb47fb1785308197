// Task round trips through real transports: our Client against the reference server's task
// tools (lib/cli/reference-tasks.ts) over stdio (a spawned `mcp-engine serve`) and over
// Streamable HTTP (serveHttp on 127.0.0.1), both under 2026-07-28 with the tasks extension:
// completion, a tool error, a failed task, input mid-task (one request, then two at once),
// input rounds before the task (MRTR, then a task), cancellation by aborting the call, the
// server's own cancellation, unknown ids, a client that did not declare the extension, and
// (HTTP, a short TTL) an expired task. Every wait is bounded (withTimeout).

import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createReferenceServer } from "../../lib/cli/reference-server.js";
import { TASKS_EXTENSION } from "../../lib/rules/negotiated-extensions.js";
import { connectHttpNode } from "../../lib/hosts/http-client-node.js";
import { serveHttp } from "../../lib/hosts/http-server.js";
import { StdioClient } from "../../lib/hosts/stdio.js";
import type { Client } from "../../lib/peer/client/client.js";
import { McpError, RequestAbortedError, TaskFailedError } from "../../lib/peer/shared/errors.js";
import type { HandlerContext } from "../../lib/peer/server/server-options.js";
import { PeerAbortController } from "../../lib/peer/shared/signal.js";
import type { TaskInfo } from "../../lib/peer/client/task-client.js";
import type { ClientCapabilities, ElicitResult } from "../../lib/types/index.js";
import { firstText, rejection, sleep, withTimeout } from "../support/helpers.js";

const here = dirname(dirname(fileURLToPath(import.meta.url))); // the spec-tests folder
const MAIN = join(here, "..", "lib", "cli", "main.js");
const MODERN = "2026-07-28";
const INFO = { name: "e2e-tasks", version: "0.0.0" };
const WITH_TASKS = { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } } as ClientCapabilities;

function answerNames(client: Client): void {
  client.setRequestHandler("elicitation/create", (params): ElicitResult => {
    const properties = (params as { requestedSchema?: { properties?: object } }).requestedSchema?.properties ?? {};
    return { action: "accept", content: "confirm" in properties ? { confirm: true } : { name: "Alice" } };
  });
}

/** The shared scenario: every outcome a task can have, through `client`. */
async function scenario(client: Client, plain: Client): Promise<void> {
  answerNames(client);
  const seen: TaskInfo[] = [];
  const done = await withTimeout(
    client.callTool("slow_compute", { seconds: 0.2, label: "e2e" }, { onTask: (t) => seen.push(t) }),
    10_000,
    "slow_compute",
  );
  assert.equal(firstText(done), "Computed e2e after 0.2s");
  assert.equal(seen[0]?.form, "extension");
  assert.equal(seen.at(-1)?.status, "completed");

  const toolError = await withTimeout(client.callTool("failing_job", {}), 10_000, "failing_job");
  assert.equal(toolError.isError, true);
  const failed = await rejection(withTimeout(client.callTool("protocol_error_job", {}), 10_000, "protocol_error_job"));
  assert.ok(failed instanceof TaskFailedError && failed.code === -32603, String(failed));

  assert.equal(
    firstText(await withTimeout(client.callTool("confirm_delete", { filename: "a.txt" }), 10_000, "confirm_delete")),
    "Deleted a.txt",
  );
  assert.equal(firstText(await withTimeout(client.callTool("multi_input", {}), 10_000, "multi_input")), "Got Alice and Alice");
  assert.equal(
    firstText(await withTimeout(client.callTool("test_tool_with_task", {}), 10_000, "test_tool_with_task")),
    "Hello, Alice! (from the task)",
  );

  // Aborting the call cancels the task on the server.
  const controller = new PeerAbortController();
  let taskId: string | undefined;
  const long = client.callTool("slow_compute", { seconds: 60 }, { signal: controller.signal, onTask: (t) => (taskId = t.taskId) });
  await withTimeout(
    (async () => {
      while (taskId === undefined) await sleep(10);
    })(),
    10_000,
    "the task created",
  );
  controller.abort("changed my mind");
  assert.ok((await rejection(long)) instanceof RequestAbortedError);
  let status: unknown;
  for (let i = 0; i < 100 && status !== "cancelled"; i++) {
    status = (await client.tasks.get(taskId as string)).status;
    if (status !== "cancelled") await sleep(20);
  }
  assert.equal(status, "cancelled");

  const unknown = await rejection(client.tasks.get("no-such-task"));
  assert.ok(unknown instanceof McpError && unknown.code === -32602, String(unknown));

  // A client without the extension: plain results, -32021 for task-only tools and tasks/*.
  assert.equal(
    firstText(await withTimeout(plain.callTool("slow_compute", { seconds: 0 }), 10_000, "plain slow_compute")),
    "Computed result after 0s",
  );
  const required = await rejection(plain.callTool("failing_job", {}));
  assert.ok(required instanceof McpError && required.code === -32021, String(required));
  const gated = await rejection(plain.tasks.get(taskId as string));
  assert.ok(gated instanceof McpError && gated.code === -32021, String(gated));
}

test("task round trips over stdio: the reference server spawned, 2026-07-28 with the tasks extension", async () => {
  const spawn = (capabilities: ClientCapabilities) =>
    withTimeout(
      StdioClient.spawn({
        command: process.execPath,
        args: [MAIN, "serve"],
        info: INFO,
        versions: [MODERN],
        capabilities,
        connectTimeoutMs: 10_000,
        defaultTimeoutMs: 10_000,
        stderr: "ignore",
      }),
      15_000,
      "spawn",
    );
  const [withTasks, plain] = await Promise.all([spawn(WITH_TASKS), spawn({ elicitation: {} })]);
  try {
    assert.equal(withTasks.server.era, "modern");
    // The reference server offers other extensions beside it (skills).
    assert.deepEqual((withTasks.server.capabilities as { extensions?: Record<string, unknown> }).extensions?.[TASKS_EXTENSION], {});
    await scenario(withTasks.client, plain.client);
  } finally {
    await Promise.all([withTasks.close(), plain.close()]);
  }
});

function abortableSleep(ms: number, signal: HandlerContext["signal"]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) {
      reject(new Error("aborted"));
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new Error("aborted"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

async function serveReference(t: TestContext, ttlMs?: number): Promise<string> {
  const server = createReferenceServer({
    paginationSecret: randomBytes(32),
    sleep: abortableSleep,
    tasks: { pollIntervalMs: 20, ...(ttlMs === undefined ? {} : { ttlMs }) },
  });
  const running = await serveHttp(server, { onError: () => {} });
  (t as unknown as { after(fn: () => Promise<void>): void }).after(() => running.close());
  return running.url;
}

test("task round trips over Streamable HTTP (Mcp-Name: <taskId> on tasks/*): the reference server in process", async (t) => {
  const url = await serveReference(t);
  const withTasks = await connectHttpNode({ url, info: INFO, versions: [MODERN], capabilities: WITH_TASKS });
  const plain = await connectHttpNode({ url, info: INFO, versions: [MODERN], capabilities: { elicitation: {} } });
  try {
    await scenario(withTasks.client, plain.client);
  } finally {
    await Promise.all([withTasks.close(), plain.close()]);
  }
});

test("over HTTP, a task past its ttlMs is gone: tasks/get answers -32602 (expired), and a call still polling it rejects", async (t) => {
  const url = await serveReference(t, 150);
  const connection = await connectHttpNode({ url, info: INFO, versions: [MODERN], capabilities: WITH_TASKS });
  try {
    let taskId: string | undefined;
    const outcome = await rejection(
      withTimeout(
        connection.client.callTool("slow_compute", { seconds: 60 }, { onTask: (task) => (taskId = task.taskId) }),
        10_000,
        "expiry",
      ),
    );
    assert.ok(outcome instanceof McpError && outcome.code === -32602 && /expired/.test(outcome.message), String(outcome));
    const again = await rejection(connection.client.tasks.get(taskId as string));
    assert.ok(again instanceof McpError && again.code === -32602, String(again));
  } finally {
    await connection.close();
  }
});
