// An SDK v1 McpServer (@modelcontextprotocol/sdk 1.32.2) over stdio, as an SDK user would
// write it, for spec-tests/conform/conform-foreign.test.ts: the conformance runner replays the
// corpus against it. It offers the conformance profile's `slow` tool (FORMAT.md): a call that
// runs until it is cancelled, or 300 ms, and a plain `echo` tool. Plain JavaScript, so the
// build does not type-check the SDK's declarations.

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import * as z from "zod";
import { registerFeatures } from "./sdk-features-v1.mjs";

const server = new McpServer({ name: "sdk-v1-conform", version: "1.0.0" });
// MCP_CONFORM_PROFILE=tools (fixtures/FORMAT.md, "Target profiles"): the tools alone.
if (process.env.MCP_CONFORM_PROFILE !== "tools") registerFeatures(server);

server.registerTool("slow", { description: "Runs until cancelled, at most 300 ms" }, async (extra) =>
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

await server.connect(new StdioServerTransport());
