// A Streamable HTTP server written with the official TypeScript SDK v1 (McpServer over its
// StreamableHTTPServerTransport on node:http), for spec-tests/http/conform-http.test.ts: the
// HTTP replay of the conformance corpus runs against it and reports its deviations by rule.
//
// Routing follows the SDK's own stateful example: one transport per session, found by
// Mcp-Session-Id; an unknown id is answered 404, a request without one that is not initialize
// 400. The body is read and parsed here (as express.json() would do in front of the SDK: a
// body that is not JSON gets 400 with a JSON-RPC parse error). It prints
// `listening on http://127.0.0.1:PORT/mcp` on stderr. Plain JavaScript, so that the build does
// not type-check the SDK's declarations.

import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";

const sessions = new Map();

function mcpServer() {
  const server = new McpServer({ name: "sdk-v1-http-fixture", version: "1.0.0" });
  server.registerTool("echo", { description: "Echoes its text", inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  return server;
}

function jsonError(res, status, code, message) {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

const http = createServer(async (req, res) => {
  try {
    if (!req.url.startsWith("/mcp")) return jsonError(res, 404, -32600, "Not found");
    let body;
    if (req.method === "POST") {
      const text = await readBody(req);
      try {
        body = JSON.parse(text);
      } catch {
        return jsonError(res, 400, -32700, "Parse error");
      }
    }
    const id = req.headers["mcp-session-id"];
    const known = id === undefined ? undefined : sessions.get(id);
    if (known !== undefined) return await known.handleRequest(req, res, body);
    if (id !== undefined) return jsonError(res, 404, -32001, "Session not found");
    if (req.method === "POST" && isInitializeRequest(body)) {
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      };
      await mcpServer().connect(transport);
      return await transport.handleRequest(req, res, body);
    }
    return jsonError(res, 400, -32000, "Bad Request: No valid session ID provided");
  } catch (error) {
    if (!res.headersSent) jsonError(res, 500, -32603, "Internal error");
    process.stderr.write(`[sdk-v1-http] ${error?.stack ?? error}\n`);
  }
});

http.listen(0, "127.0.0.1", () => {
  process.stderr.write(`listening on http://127.0.0.1:${http.address().port}/mcp\n`);
});
process.on("SIGTERM", () => {
  http.closeAllConnections();
  http.close(() => process.exit(0));
});
