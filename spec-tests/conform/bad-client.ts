// A stdio client for the client role of `mcp-engine conform` (spec-tests/conform/client-role.test.ts):
// it starts the server command the runner gives it (MCP_CONFORM_SERVER_COMMAND), initializes at
// MCP_CONFORM_VERSION, sends notifications/initialized and then only answers pings, until its
// server goes away. With --fault NAME it breaks one rule:
//   wrong-pong   a ping is answered with a non-empty result (G-02)
//   no-server    it never starts the server command (the runner cannot judge it)
//
//   node dist/spec-tests/conform/bad-client.js --client [--fault NAME]
//
// Without --client the program exits at once (the test runner may load every file).

import { spawn } from "node:child_process";

const argv = process.argv.slice(2);
if (!argv.includes("--client")) process.exit(0);
const at = argv.indexOf("--fault");
const fault = at >= 0 ? argv[at + 1] : undefined;

const command = JSON.parse(process.env.MCP_CONFORM_SERVER_COMMAND ?? "[]") as string[];
if (fault === "no-server" || command.length === 0) {
  // Waits to be ended by the runner, as a client that ignores its server command would.
  setTimeout(() => undefined, 60_000);
} else {
  const server = spawn(command[0] as string, command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
  const send = (message: unknown): void => {
    server.stdin.write(JSON.stringify(message) + "\n");
  };
  let buffer = "";
  server.stdout.on("data", (chunk: Uint8Array) => {
    buffer += new TextDecoder().decode(chunk);
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      let message: { id?: unknown; method?: unknown; result?: unknown };
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        continue;
      }
      if (message.method === "ping") send({ jsonrpc: "2.0", id: message.id, result: fault === "wrong-pong" ? { pong: true } : {} });
      else if (message.id === "init" && message.result !== undefined) send({ jsonrpc: "2.0", method: "notifications/initialized" });
    }
  });
  server.on("close", () => process.exit(0));
  send({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: {
      protocolVersion: process.env.MCP_CONFORM_VERSION ?? "2025-11-25",
      capabilities: {},
      clientInfo: { name: "bad", version: "1" },
    },
  });
}
