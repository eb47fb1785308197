// The reference server's tools for the 2026-07-28 tasks extension (SEP-2663): the fixtures
// the official suite's tasks scenarios call. A sync-only greeting; a computation that runs as
// a task when the client allows it and settles to cancelled when cancelled; a task-only job
// that reports a tool error; one that fails with a protocol error; tools that ask for input
// mid-task, one request and two at once; and a task-only tool that gathers a name through
// input rounds before its task exists (MRTR, then a task).
//
// Time goes through the `sleep` the caller gives (aborted by the task's signal).

import { ErrorCode } from "../wire/errors.js";
import { McpError } from "../peer/shared/errors.js";
import type { Server } from "../peer/server/server.js";
import type { HandlerContext } from "../peer/server/server-options.js";
import type { CallToolResult, ElicitRequestParams, ElicitResult } from "../types/index.js";

type Sleep = (ms: number, signal: HandlerContext["signal"]) => Promise<void>;

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

const CONFIRM: ElicitRequestParams = {
  mode: "form",
  message: "Confirm the operation",
  requestedSchema: { type: "object", properties: { confirm: { type: "boolean", description: "Go ahead" } }, required: ["confirm"] },
};
const NAME: ElicitRequestParams = {
  mode: "form",
  message: "What is your name?",
  requestedSchema: { type: "object", properties: { name: { type: "string", description: "Your name" } }, required: ["name"] },
};

function accepted(answer: ElicitResult | undefined, key: string): unknown {
  return answer?.action === "accept" && answer.content !== undefined ? answer.content[key] : undefined;
}

export function registerTaskTools(server: Server, sleep: Sleep): void {
  server.tool(
    "greet",
    { description: "Sync only: greets by name", inputSchema: { type: "object", properties: { name: { type: "string" } } } },
    (args) => text(`Hello, ${String(args.name ?? "World")}!`),
  );

  server.tool(
    "slow_compute",
    {
      description: "Sleeps `seconds` seconds, then answers; a task when the client allows it (cancelled when tasks/cancel arrives first)",
      inputSchema: { type: "object", properties: { seconds: { type: "number", minimum: 0 }, label: { type: "string" } } },
      taskSupport: "optional",
    },
    async (args, ctx) => {
      const seconds = typeof args.seconds === "number" ? args.seconds : 1;
      await sleep(seconds * 1000, ctx.signal);
      return text(`Computed ${String(args.label ?? "result")} after ${seconds}s`);
    },
  );

  server.tool(
    "failing_job",
    {
      description: "Task only: reports a tool execution error after about a second",
      inputSchema: { type: "object", properties: {} },
      taskSupport: "required",
    },
    async (_args, ctx) => {
      await sleep(1000, ctx.signal);
      return { ...text("The job failed: the input could not be processed"), isError: true };
    },
  );

  server.tool(
    "protocol_error_job",
    {
      description:
        "As a task, fails with a JSON-RPC error (-32603: status failed); called plainly, reports the failure as an isError result",
      inputSchema: { type: "object", properties: {} },
      taskSupport: "optional",
    },
    async (_args, ctx) => {
      // A failed task is how the tasks extension carries a protocol-level failure; a plain call reports it to the model instead (TL-01).
      if (ctx.taskId !== undefined) throw new McpError(ErrorCode.InternalError, "The job crashed: internal failure");
      return { ...text("The job crashed: internal failure"), isError: true };
    },
  );

  server.tool(
    "confirm_delete",
    {
      description: "Asks for a confirmation mid-task (elicitation), then deletes or keeps the file",
      inputSchema: { type: "object", properties: { filename: { type: "string" } } },
      taskSupport: "optional",
    },
    async (args, ctx) => {
      const answer = await ctx.elicit({ ...CONFIRM, message: `Delete ${String(args.filename ?? "the file")}?` });
      return text(
        accepted(answer, "confirm") === true ? `Deleted ${String(args.filename)}` : `Kept ${String(args.filename)} (${answer.action})`,
      );
    },
  );

  server.tool(
    "multi_input",
    {
      description: "Asks two questions at once mid-task (two elicitations pending together)",
      inputSchema: { type: "object", properties: {} },
      taskSupport: "optional",
    },
    async (_args, ctx) => {
      const [first, second] = await Promise.all([
        ctx.elicit({ ...NAME, message: "First name?" }),
        ctx.elicit({ ...NAME, message: "Second name?" }),
      ]);
      return text(`Got ${String(accepted(first, "name"))} and ${String(accepted(second, "name"))}`);
    },
  );

  server.tool(
    "test_tool_with_task",
    {
      description: "Task only: asks for user_name through input rounds before its task exists, then greets from the task",
      inputSchema: { type: "object", properties: {} },
      taskSupport: "required",
      beforeTask: async (_args, ctx) => accepted(await ctx.elicit(NAME), "name"),
    },
    (_args, ctx) => text(`Hello, ${String(ctx.prepared ?? "stranger")}! (from the task)`),
  );
}
