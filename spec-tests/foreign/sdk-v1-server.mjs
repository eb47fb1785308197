// A small server written with the official TypeScript SDK v1 (McpServer over stdio), for
// spec-tests/e2e/cli-foreign.long.test.ts: `mcp-engine client` must grade it without a FAIL.
//
// It registers what trips a generic client: a tool whose parameter is an integer with
// bounds, a destructive tool (which the report must not call unless asked, and which records
// each call on stderr so the test can tell), a read-only tool with an enum and a nested object,
// a resource and a prompt with a required argument. Plain JavaScript, so that the build does
// not type-check the SDK's declarations.

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import * as z from "zod";

const server = new McpServer({ name: "sdk-v1-fixture", version: "1.0.0" });

server.registerTool(
  "get_resource_by_id",
  {
    description: "Looks a record up by its integer id",
    inputSchema: { resourceId: z.number().int().min(1).max(1000) },
    annotations: { readOnlyHint: true },
  },
  async ({ resourceId }) => ({ content: [{ type: "text", text: `record ${resourceId}` }] }),
);

server.registerTool(
  "purge_records",
  {
    description: "Deletes every record (destructive)",
    inputSchema: { confirm: z.boolean() },
    annotations: { destructiveHint: true },
  },
  async () => {
    process.stderr.write("DESTRUCTIVE TOOL CALLED: purge_records\n");
    return { content: [{ type: "text", text: "all records purged" }] };
  },
);

server.registerTool(
  "describe_shape",
  {
    description: "Describes a shape; the kind is an enum, the size a nested object",
    inputSchema: {
      kind: z.enum(["circle", "square"]),
      size: z.object({
        width: z.number().positive(),
        unit: z
          .string()
          .min(2)
          .regex(/^[a-z]+$/),
      }),
      tags: z.array(z.string()).min(1).optional(),
    },
    annotations: { readOnlyHint: true },
  },
  async ({ kind, size }) => ({ content: [{ type: "text", text: `${kind} of ${size.width} ${size.unit}` }] }),
);

server.registerResource("greeting", "fixture://greeting", { description: "A fixed greeting", mimeType: "text/plain" }, async (uri) => ({
  contents: [{ uri: uri.href, mimeType: "text/plain", text: "hello from the SDK v1 fixture" }],
}));

server.registerPrompt("summarize", { description: "Asks for a summary of a topic", argsSchema: { topic: z.string() } }, ({ topic }) => ({
  messages: [{ role: "user", content: { type: "text", text: `Summarize ${topic}` } }],
}));

await server.connect(new StdioServerTransport());
