// An SDK v2 server (@modelcontextprotocol/server 2.4.0) over stdio, as an SDK user would
// write it (serveStdio: the opening message picks the era), for
// spec-tests/conform/conform-foreign.long.test.ts. Same tools as sdk-v1-server.mjs: the
// conformance profile's `slow` (runs until cancelled, at most 300 ms), `echo`, and the
// trigger tools (conform_request, conform_notify, conform_cancel, conform_progress) through the SDK's own
// server-to-client calls.

import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import * as z from "zod";
import { registerFeatures } from "./sdk-features-v2.mjs";

// The announcement (FORMAT.md "Target profiles"): only for the profiles this server really runs.
// Its SDK has no setting for the others (limits, versions, discover, strict), so it runs its default there and says nothing.
if (process.env.MCP_CONFORM_PROFILE === "tools" || process.env.MCP_CONFORM_PROFILE === "full")
  process.stderr.write(`mcp-conform-profile: ${process.env.MCP_CONFORM_PROFILE}\n`);

serveStdio(() => {
  const server = new McpServer({ name: "sdk-v2-conform", version: "2.0.0" }, { capabilities: { tools: {} } });
  // MCP_CONFORM_PROFILE=tools (fixtures/FORMAT.md, "Target profiles"): the tools alone.
  if (process.env.MCP_CONFORM_PROFILE !== "tools") registerFeatures(server);
  server.registerTool(
    "slow",
    { description: "Runs until cancelled, at most 300 ms" },
    async (ctx) =>
      new Promise((resolve) => {
        const signal = ctx?.signal ?? ctx?.mcpReq?.signal;
        const timer = setTimeout(() => resolve({ content: [{ type: "text", text: "done" }] }), 300);
        signal?.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve({ content: [{ type: "text", text: "cancelled" }] });
        });
      }),
  );
  server.registerTool(
    "echo",
    { description: "Echoes its text", inputSchema: z.object({ text: z.string().optional() }) },
    async ({ text }) => ({
      content: [{ type: "text", text: text ?? "" }],
    }),
  );
  registerTriggers(server);
  return server;
});

// The trigger tools (fixtures/FORMAT.md, "Trigger tools"): the SDK's typed helpers where it has
// one for the method (they apply its own checks), its generic request and notification otherwise.
function registerTriggers(server) {
  const pending = new Map();
  const text = (value, isError) => ({
    content: [{ type: "text", text: JSON.stringify(value ?? null) }],
    ...(isError ? { isError: true } : {}),
  });
  const failed = (error) =>
    text(
      {
        error: {
          message: error instanceof Error ? error.message : String(error),
          ...(error?.code !== undefined ? { code: error.code } : {}),
        },
      },
      true,
    );
  const low = server.server;
  server.registerTool(
    "conform_request",
    {
      description: "Sends the request to the client; answers with the client's answer",
      inputSchema: z.object({ method: z.string(), params: z.record(z.string(), z.unknown()).optional(), progress: z.boolean().optional() }),
    },
    async ({ method, params, progress }, ctx) => {
      const abort = new AbortController();
      pending.set(ctx.mcpReq.id, abort);
      // progress: true asks for progress (the SDK picks the token).
      const options = { signal: abort.signal, ...(progress === true ? { onprogress: () => {} } : {}) };
      try {
        const result =
          method === "sampling/createMessage"
            ? await low.createMessage(params, options)
            : method === "elicitation/create"
              ? await low.elicitInput(params, options)
              : method === "roots/list"
                ? await low.listRoots(params, options)
                : await low.request({ method, ...(params !== undefined ? { params } : {}) }, z.looseObject({}), options);
        return text({ result });
      } catch (error) {
        return failed(error);
      } finally {
        pending.delete(ctx.mcpReq.id);
      }
    },
  );
  server.registerTool(
    "conform_notify",
    {
      description: "Sends the notification to the client",
      inputSchema: z.object({ method: z.string(), params: z.record(z.string(), z.unknown()).optional() }),
    },
    async ({ method, params }) => {
      try {
        if (method === "notifications/message") await low.sendLoggingMessage(params);
        else await low.notification({ method, ...(params !== undefined ? { params } : {}) });
        return text({ sent: true });
      } catch (error) {
        return failed(error);
      }
    },
  );
  // Progress on the call's own token: ctx.mcpReq._meta.progressToken and ctx.mcpReq.notify (related to this request).
  const progressEntry = z.object({ progress: z.number(), total: z.number().optional(), message: z.string().optional() });
  server.registerTool(
    "conform_progress",
    {
      description: "Sends the given progress on this call's own progress token, then answers",
      inputSchema: z.object({ progress: z.array(progressEntry).optional() }),
    },
    async ({ progress }, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      if (token !== undefined)
        for (const p of progress ?? [])
          await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, ...p } });
      return text({ asked: (progress ?? []).length });
    },
  );
  server.registerTool(
    "conform_cancel",
    {
      description: "Cancels the request a conform_request call is waiting for",
      inputSchema: z.object({ call: z.union([z.string(), z.number()]), reason: z.string().optional() }),
    },
    async ({ call, reason }) => {
      const abort = pending.get(call);
      if (abort === undefined) return text({ cancelled: false });
      abort.abort(reason);
      return text({ cancelled: true });
    },
  );
}
