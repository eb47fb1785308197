// An SDK v2 server (@modelcontextprotocol/server 2.4.0) over stdio, as an SDK user would
// write it (serveStdio: the opening message picks the era), for
// spec-tests/conform/conform-foreign.test.ts. Same tools as sdk-v1-server.mjs: the
// conformance profile's `slow` (runs until cancelled, at most 300 ms) and `echo`.

import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import * as z from "zod";
import { registerFeatures } from "./sdk-features-v2.mjs";

serveStdio(() => {
  const server = new McpServer({ name: "sdk-v2-conform", version: "2.0.0" }, { capabilities: { tools: {} } });
  // MCP_CONFORM_PROFILE=tools (fixtures/FORMAT.md, "Target profiles"): the tools alone.
  if (process.env.MCP_CONFORM_PROFILE !== "tools") registerFeatures(server);
  server.registerTool("slow", { description: "Runs until cancelled, at most 300 ms" }, async (ctx) =>
    new Promise((resolve) => {
      const signal = ctx?.signal ?? ctx?.mcpReq?.signal;
      const timer = setTimeout(() => resolve({ content: [{ type: "text", text: "done" }] }), 300);
      signal?.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve({ content: [{ type: "text", text: "cancelled" }] });
      });
    }),
  );
  server.registerTool("echo", { description: "Echoes its text", inputSchema: z.object({ text: z.string().optional() }) }, async ({ text }) => ({
    content: [{ type: "text", text: text ?? "" }],
  }));
  return server;
});
