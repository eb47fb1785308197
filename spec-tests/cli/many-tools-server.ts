// A stdio MCP server with long listings, for run-budget.test.ts (RULES.md CLI-03): N tools
// (each answering after DELAY ms), N resources and N prompts, so that a whole report is
// bounded by its budget and by its cap on items, not by the server. Raw JSON lines.
//
//   node dist/spec-tests/cli/many-tools-server.js --serve [--items N] [--delay MS]
//
// Without --serve the program exits at once.

function send(message: unknown): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  const value = at >= 0 ? Number(process.argv[at + 1]) : Number.NaN;
  return Number.isFinite(value) ? value : fallback;
}

const items = option("--items", 150);
const delay = option("--delay", 0);
/** 0 … items - 1. */
const numbered = (): number[] => Array.from({ length: items }, (_, i) => i);

function answer(id: unknown, method: string, params: Record<string, unknown>): void {
  switch (method) {
    case "initialize":
      send({
        jsonrpc: "2.0",
        id,
        result: {
          protocolVersion: typeof params.protocolVersion === "string" ? params.protocolVersion : "2025-11-25",
          capabilities: { tools: {}, resources: {}, prompts: {} },
          serverInfo: { name: "many-tools", version: "1" },
        },
      });
      return;
    case "ping":
      send({ jsonrpc: "2.0", id, result: {} });
      return;
    case "tools/list":
      send({ jsonrpc: "2.0", id, result: { tools: numbered().map((i) => ({ name: `tool_${i}`, inputSchema: { type: "object" } })) } });
      return;
    case "tools/call":
      if (params.name === "no_such_tool_mcp_engine") {
        send({ jsonrpc: "2.0", id, error: { code: -32602, message: "unknown tool" } });
        return;
      }
      setTimeout(() => send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "done" }] } }), delay);
      return;
    case "resources/list":
      send({ jsonrpc: "2.0", id, result: { resources: numbered().map((i) => ({ uri: `test://r/${i}`, name: `r${i}` })) } });
      return;
    case "resources/templates/list":
      send({ jsonrpc: "2.0", id, result: { resourceTemplates: [] } });
      return;
    case "resources/read": {
      const uri = String(params.uri);
      if (!uri.startsWith("test://r/")) send({ jsonrpc: "2.0", id, error: { code: -32002, message: "not found" } });
      else send({ jsonrpc: "2.0", id, result: { contents: [{ uri, text: "x" }] } });
      return;
    }
    case "prompts/list":
      send({ jsonrpc: "2.0", id, result: { prompts: numbered().map((i) => ({ name: `prompt_${i}` })) } });
      return;
    case "prompts/get":
      send({ jsonrpc: "2.0", id, result: { messages: [] } });
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
