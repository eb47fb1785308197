// An SDK v1 McpServer (@modelcontextprotocol/sdk 1.32.2) over stdio, as an SDK user would
// write it, for spec-tests/conform/conform-foreign.long.test.ts: the conformance runner replays the
// corpus against it. It offers the conformance profile's `slow` tool (FORMAT.md): a call that
// runs until it is cancelled, or 300 ms, a plain `echo` tool, and the profile's trigger
// tools (conform_request, conform_notify, conform_cancel, conform_progress), written with the SDK's own
// server-to-client calls. Plain JavaScript, so the build does not type-check the SDK's
// declarations.

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import * as z from "zod";
import { registerFeatures } from "./sdk-features-v1.mjs";

const server = new McpServer({ name: "sdk-v1-conform", version: "1.0.0" });
// MCP_CONFORM_PROFILE=tools (fixtures/FORMAT.md, "Target profiles"): the tools alone.
if (process.env.MCP_CONFORM_PROFILE !== "tools") registerFeatures(server);
// The announcement (FORMAT.md "Target profiles"): only for the profiles this server really runs.
// Its SDK has no setting for the others (limits, versions, discover, strict), so it runs its default there and says nothing.
if (process.env.MCP_CONFORM_PROFILE === "tools" || process.env.MCP_CONFORM_PROFILE === "full")
  process.stderr.write(`mcp-conform-profile: ${process.env.MCP_CONFORM_PROFILE}\n`);

server.registerTool(
  "slow",
  { description: "Runs until cancelled, at most 300 ms" },
  async (extra) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ content: [{ type: "text", text: "done" }] }), 300);
      extra.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve({ content: [{ type: "text", text: "cancelled" }] });
      });
    }),
);

server.registerTool("echo", { description: "Echoes its text", inputSchema: { text: z.string().optional() } }, async ({ text }) => ({
  content: [{ type: "text", text: text ?? "" }],
}));

// The trigger tools (fixtures/FORMAT.md, "Trigger tools"): the SDK's typed helpers where it has
// one for the method (they apply its own checks), its generic request and notification otherwise.
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
const passThrough = z.object({}).passthrough();

server.registerTool(
  "conform_request",
  {
    description: "Sends the request to the client; answers with the client's answer",
    inputSchema: { method: z.string(), params: z.record(z.string(), z.unknown()).optional(), progress: z.boolean().optional() },
  },
  async ({ method, params, progress }, extra) => {
    const abort = new AbortController();
    pending.set(extra.requestId, abort);
    // progress: true asks for progress (the SDK picks the token).
    const options = { signal: abort.signal, ...(progress === true ? { onprogress: () => {} } : {}) };
    try {
      const low = server.server;
      const result =
        method === "sampling/createMessage"
          ? await low.createMessage(params, options)
          : method === "elicitation/create"
            ? await low.elicitInput(params, options)
            : method === "roots/list"
              ? await low.listRoots(params, options)
              : await low.request({ method, ...(params !== undefined ? { params } : {}) }, passThrough, options);
      return text({ result });
    } catch (error) {
      return failed(error);
    } finally {
      pending.delete(extra.requestId);
    }
  },
);

server.registerTool(
  "conform_notify",
  {
    description: "Sends the notification to the client",
    inputSchema: { method: z.string(), params: z.record(z.string(), z.unknown()).optional() },
  },
  async ({ method, params }) => {
    try {
      if (method === "notifications/message") await server.server.sendLoggingMessage(params);
      else await server.server.notification({ method, ...(params !== undefined ? { params } : {}) });
      return text({ sent: true });
    } catch (error) {
      return failed(error);
    }
  },
);

// Progress on the call's own token, as the SDK documents it: extra._meta.progressToken and extra.sendNotification.
const progressEntry = z.object({ progress: z.number(), total: z.number().optional(), message: z.string().optional() });
server.registerTool(
  "conform_progress",
  {
    description: "Sends the given progress on this call's own progress token, then answers",
    inputSchema: { progress: z.array(progressEntry).optional() },
  },
  async ({ progress }, extra) => {
    const token = extra._meta?.progressToken;
    if (token !== undefined)
      for (const p of progress ?? [])
        await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, ...p } });
    return text({ asked: (progress ?? []).length });
  },
);

server.registerTool(
  "conform_cancel",
  {
    description: "Cancels the request a conform_request call is waiting for",
    inputSchema: { call: z.union([z.string(), z.number()]), reason: z.string().optional() },
  },
  async ({ call, reason }) => {
    const abort = pending.get(call);
    if (abort === undefined) return text({ cancelled: false });
    abort.abort(reason);
    return text({ cancelled: true });
  },
);

await server.connect(new StdioServerTransport());
