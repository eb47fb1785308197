// A stdio MCP server that tells what it finds in its environment, for spawn-env.test.ts (RULES.md
// CLI-02): its serverInfo.version is "secret=<the value of MCP_ENGINE_TEST_SECRET, or unset>"
// (the client report and conform's probe line both print it), and its one tool, env_names,
// answers with the names of all its variables, comma-separated. Raw JSON lines, no library.
//
//   node dist/spec-tests/cli/env-server.js --serve
//
// Without --serve the program exits at once.

export const SECRET_NAME = "MCP_ENGINE_TEST_SECRET";

function send(message: unknown): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function answer(id: unknown, method: string, params: Record<string, unknown>): void {
  switch (method) {
    case "initialize":
      send({
        jsonrpc: "2.0",
        id,
        result: {
          protocolVersion: typeof params.protocolVersion === "string" ? params.protocolVersion : "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "env-server", version: `secret=${process.env[SECRET_NAME] ?? "unset"}` },
        },
      });
      return;
    case "ping":
      send({ jsonrpc: "2.0", id, result: {} });
      return;
    case "tools/list":
      send({ jsonrpc: "2.0", id, result: { tools: [{ name: "env_names", inputSchema: { type: "object" } }] } });
      return;
    case "tools/call":
      send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: Object.keys(process.env).sort().join(",") }] } });
      return;
    default:
      send({ jsonrpc: "2.0", id, error: { code: -32601, message: `no method ${method}` } });
  }
}

if (process.argv.includes("--serve")) {
  let buffered = "";
  const decoder = new TextDecoder();
  process.stdin.on("data", (chunk: Uint8Array) => {
    buffered += decoder.decode(chunk, { stream: true });
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      if (typeof message.method !== "string" || !Object.hasOwn(message, "id")) continue;
      const params = typeof message.params === "object" && message.params !== null ? (message.params as Record<string, unknown>) : {};
      answer(message.id, message.method, params);
    }
  });
  process.stdin.on("end", () => process.exit(0));
}
