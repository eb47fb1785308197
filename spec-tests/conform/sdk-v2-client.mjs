// An SDK v2 Client (@modelcontextprotocol/client 2.4.0) over stdio or Streamable HTTP, as an SDK
// user would write it, for the client role of `mcp-engine conform` (fixtures/FORMAT.md, "Client
// role"): the counterpart of sdk-v1-client.mjs. It starts the server command it is given (its
// arguments) or connects to the URL it is given (`--transport http`), declares roots, sampling
// and elicitation with plain handlers, and stays until its server goes away. It performs no host
// command beyond the SDK's own initialize. Plain JavaScript, so the build does not type-check the
// SDK's declarations.
//
//   node spec-tests/conform/sdk-v2-client.mjs <server command...> | <url>

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  process.stderr.write("usage: node sdk-v2-client.mjs <server command...> | <url>\n");
  process.exit(2);
}

const client = new Client(
  { name: "sdk-v2-conform-client", version: "2.0.0" },
  { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} } },
);
client.setRequestHandler("roots/list", async () => ({ roots: [] }));
client.setRequestHandler("sampling/createMessage", async () => ({
  role: "assistant",
  content: { type: "text", text: "a fixed answer" },
  model: "none",
  stopReason: "endTurn",
}));
client.setRequestHandler("elicitation/create", async () => ({ action: "decline" }));
client.onclose = () => process.exit(0);

const transport = /^https?:\/\//.test(command)
  ? new StreamableHTTPClientTransport(new URL(command))
  : new StdioClientTransport({ command, args, stderr: "ignore" });
try {
  await client.connect(transport);
} catch (error) {
  process.stderr.write(`sdk-v2-client: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
