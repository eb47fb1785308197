// An SDK v1 Client (@modelcontextprotocol/sdk 1.32.2) over stdio or Streamable HTTP, as an SDK
// user would write it, for the client role of `mcp-engine conform` (fixtures/FORMAT.md, "Client
// role"): it starts the server command it is given (its arguments), or connects to the URL it is
// given (`--transport http`), declares roots, sampling and elicitation with plain handlers, and
// stays until its server goes away. It performs no host command beyond
// the SDK's own initialize, so it ignores MCP_CONFORMANCE_SCENARIO; the SDK offers its own latest
// version whatever MCP_CONFORM_VERSION says. Plain JavaScript, so the build does not type-check
// the SDK's declarations.
//
//   node spec-tests/conform/sdk-v1-client.mjs <server command...> | <url>

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  process.stderr.write("usage: node sdk-v1-client.mjs <server command...> | <url>\n");
  process.exit(2);
}

const client = new Client(
  { name: "sdk-v1-conform-client", version: "1.0.0" },
  { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} } },
);
client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [] }));
client.setRequestHandler(CreateMessageRequestSchema, async () => ({
  role: "assistant",
  content: { type: "text", text: "a fixed answer" },
  model: "none",
  stopReason: "endTurn",
}));
client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "decline" }));
client.onclose = () => process.exit(0);

const transport = /^https?:\/\//.test(command)
  ? new StreamableHTTPClientTransport(new URL(command))
  : new StdioClientTransport({ command, args, stderr: "ignore" });
try {
  await client.connect(transport);
} catch (error) {
  process.stderr.write(`sdk-v1-client: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
