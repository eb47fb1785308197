// A stdio MCP server that speaks only the session era (2025-11-25, no 2026-07-28), for
// spec-tests/e2e/e2e-modern.test.ts: a modern-only client must get a clear refusal from it, and a
// dual-era client must fall back to initialize.
//
// Tools: echo {value} → value.
//
// Flags (argv):
//   --serve   required: without it the program exits at once (`node --test dist/spec-tests/`
//             runs every .js file below it, this one included)
//
// Every line received on stdin is copied to stderr as "<< <line>", so a test can see what the
// client sent (the server/discover probe, initialize or not). stdout carries protocol bytes only.

import { serveStdio } from "../../lib/hosts/stdio.js";
import { Server } from "../../lib/peer/server/server.js";

const flags = new Set(process.argv.slice(2));

const server = new Server({
  info: { name: "session-only-fixture", version: "0.0.0" },
  versions: ["2025-11-25"],
});

server.tool("echo", { inputSchema: { type: "object", properties: { value: { type: "string" } } } }, (args) => ({
  content: [{ type: "text", text: String(args.value) }],
}));

if (!flags.has("--serve")) process.exit(0);

let partial = "";
const decoder = new TextDecoder();
process.stdin.on("data", (chunk: Uint8Array) => {
  const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
  partial = lines.pop() as string;
  for (const line of lines) if (line !== "") process.stderr.write(`<< ${line}\n`);
});

serveStdio(server);
process.stderr.write("ready\n");
