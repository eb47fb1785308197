// A client for the client role of `mcp-engine conform` (spec-tests/conform/client-role*.test.ts):
// over stdio it starts the server command the runner gives it (MCP_CONFORM_SERVER_COMMAND); given
// a URL as its last argument it speaks Streamable HTTP to it instead (bad-http-client.ts). Either
// way it initializes at MCP_CONFORM_VERSION, sends notifications/initialized and then only
// answers pings, until its server goes away. With --fault NAME it breaks one rule:
//   wrong-pong   a ping is answered with a non-empty result (G-02)
//   no-server    it never starts the server command, or never connects to the URL (the runner cannot judge it)
//   wrong-id     (HTTP) a ping is answered with an id the server never sent (ID-04)
//   no-session   (HTTP) the session id assigned with the initialize result is not sent back (HTTP-03)
//   no-version   (HTTP) no MCP-Protocol-Version header after the handshake (L-07)
//   mute         (HTTP) connected, it never answers a ping: it hangs as far as the server can tell (G-02)
//
//   node dist/spec-tests/conform/bad-client.js --client [--fault NAME] [URL]
//
// Without --client the program exits at once (the test runner may load every file).

import { spawn } from "node:child_process";
import { httpClient } from "./bad-http-client.js";

const argv = process.argv.slice(2);
if (!argv.includes("--client")) process.exit(0);
const at = argv.indexOf("--fault");
const fault = at >= 0 ? argv[at + 1] : undefined;
const url = argv.at(-1) ?? "";

const command = JSON.parse(process.env.MCP_CONFORM_SERVER_COMMAND ?? "[]") as string[];
if (/^http:\/\//.test(url) && fault !== "no-server") {
  void httpClient(url, fault).then((code) => process.exit(code));
} else if (fault === "no-server" || command.length === 0) {
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
