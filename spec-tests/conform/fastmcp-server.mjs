// A small server written with FastMCP (installed outside this project, never one of its
// dependencies) over stdio, as its README shows, for the cross-implementation table
// (spec-tests/tools/conform-table.ts): two tools, a resource and two prompts, nothing written for
// the corpus. Run: node fastmcp-server.mjs <node_modules directory holding fastmcp>.

import { importFrom, modulesDirectory } from "./outside-modules.mjs";

const modules = modulesDirectory();
const { FastMCP } = await importFrom(modules, "fastmcp");
const { z } = await importFrom(modules, "zod");

const server = new FastMCP({ name: "fastmcp-table", version: "1.0.0" });
const harmless = { readOnlyHint: true, openWorldHint: false };
server.addTool({
  name: "echo",
  description: "Echoes its text",
  parameters: z.object({ text: z.string() }),
  annotations: harmless,
  execute: async ({ text }) => text,
});
server.addTool({
  name: "add",
  description: "Adds two numbers",
  parameters: z.object({ a: z.number(), b: z.number() }),
  annotations: harmless,
  execute: async ({ a, b }) => String(a + b),
});
server.addResource({ uri: "note://hello", name: "hello", mimeType: "text/plain", load: async () => ({ text: "Hello" }) });
server.addPrompt({ name: "hello", description: "Says hello", load: async () => "Hello" });
server.addPrompt({
  name: "greet",
  description: "Greets someone",
  arguments: [{ name: "name", description: "Who", required: true }],
  load: async ({ name }) => `Hello ${name}`,
});

server.start({ transportType: "stdio" });
