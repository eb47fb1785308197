// A stdio MCP server for spec-tests/e2e/e2e-hardening.test.ts: tools whose handlers misbehave in
// every way the peer layer must contain (the peer layer never crashes its process).
// Run it with --unhandled-rejections=strict: any rejection the layer left unhandled, and any
// exception thrown into an event listener, ends the process, which the test would see.
//
// Tools:
//   ask            calls ctx.elicit (2026-07-28: an input_required round; answers carried in requestState)
//   throw_sync     throws an Error synchronously
//   throw_async    rejects asynchronously
//   bigint         returns a result holding a BigInt
//   cyclic         returns a result that contains itself
//   careless       calls ctx.elicit without awaiting it, then answers
//   echo           answers "echo"
//
// Flags: --serve is required (`node --test dist/spec-tests/` runs every .js file below it).

import { serveStdio } from "../../lib/hosts/stdio.js";
import { Server } from "../../lib/peer/server/server.js";
import { MODERN_VERSIONS, SESSION_VERSIONS, type CallToolResult } from "../../lib/index.js";

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });
const form = { mode: "form" as const, message: "name?", requestedSchema: { type: "object" as const, properties: {} } };

if (process.argv.includes("--serve")) {
  const server = new Server({ info: { name: "hardening-fixture", version: "0.0.0" }, versions: [...SESSION_VERSIONS, ...MODERN_VERSIONS] });
  server.tool("ask", {}, async (_args, ctx) => text(`answered ${(await ctx.elicit(form)).action}`));
  server.tool("throw_sync", {}, () => {
    throw new Error("thrown synchronously");
  });
  server.tool("throw_async", {}, async () => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    throw new Error("rejected asynchronously");
  });
  server.tool("bigint", {}, () => ({ content: [], structuredContent: { n: 1n } }) as unknown as CallToolResult);
  server.tool("cyclic", {}, () => {
    const result: Record<string, unknown> = { content: [] };
    result.again = result;
    return result as unknown as CallToolResult;
  });
  server.tool("careless", {}, (_args, ctx) => {
    void ctx.elicit(form);
    return text("answered without awaiting");
  });
  server.tool("echo", {}, () => text("echo"));
  serveStdio(server);
}
