// A small server written with tmcp (installed outside this project, never one of its
// dependencies) over stdio, as its README shows, for the cross-implementation table
// (spec-tests/tools/conform-table.ts): two tools, a resource and two prompts, nothing written for
// the corpus. Run: node tmcp-server.mjs <node_modules directory holding tmcp>.

import { importFrom, modulesDirectory } from "./outside-modules.mjs";

const modules = modulesDirectory();
const { McpServer } = await importFrom(modules, "tmcp");
const { StdioTransport } = await importFrom(modules, "@tmcp/transport-stdio");
const { ZodJsonSchemaAdapter } = await importFrom(modules, "@tmcp/adapter-zod");
const { z } = await importFrom(modules, "zod");

const server = new McpServer(
  { name: "tmcp-table", version: "1.0.0", description: "A small tmcp server" },
  { adapter: new ZodJsonSchemaAdapter(), capabilities: { tools: {}, resources: {}, prompts: {} } },
);
const harmless = { readOnlyHint: true, openWorldHint: false };
server.tool(
  { name: "echo", description: "Echoes its text", schema: z.object({ text: z.string() }), annotations: harmless },
  async ({ text }) => ({ content: [{ type: "text", text }] }),
);
server.tool(
  { name: "add", description: "Adds two numbers", schema: z.object({ a: z.number(), b: z.number() }), annotations: harmless },
  async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
);
server.resource({ name: "hello", description: "A greeting", uri: "note://hello" }, async (uri) => ({
  contents: [{ uri, mimeType: "text/plain", text: "Hello" }],
}));
server.prompt({ name: "hello", description: "Says hello" }, async () => ({
  messages: [{ role: "user", content: { type: "text", text: "Hello" } }],
}));
server.prompt({ name: "greet", description: "Greets someone", schema: z.object({ name: z.string() }) }, async ({ name }) => ({
  messages: [{ role: "user", content: { type: "text", text: `Hello ${name}` } }],
}));

new StdioTransport(server).listen();
