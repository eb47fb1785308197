// An MCP server with one tool and one resource, on stdio (node client.mjs starts it).
import { Server } from "mcp-engine/peer";
import { serveStdio } from "mcp-engine/hosts/stdio";

const server = new Server({ name: "demo", version: "1.0.0" });

server.tool("add", "Adds two numbers", { a: { type: "number" }, b: { type: "number" } }, (args) => ({
  content: [{ type: "text", text: String(args.a + args.b) }],
}));
server.resource("note://hello", { name: "hello", mimeType: "text/plain" }, (uri) => ({
  contents: [{ uri, text: "Hello" }],
}));

serveStdio(server); // stdout carries the protocol: log to stderr
