// Not a test file: run by core/heap-bounds.test.ts as `node --expose-gc heap-probe.js N`. Feeds N
// peer messages down every path that grows a per-session table (task statuses, URL
// elicitations, tool names, resource subscriptions, -32042 elicitation ids) and 20 engines one
// 7 MiB line each, then prints the heap growth after GC and the table sizes as one JSON line.

import { Engine, type JsonObject } from "../../lib/index.js";

declare const gc: () => void;

const count = Number(process.argv[2] ?? "100000");
const info = { name: "probe", version: "1" };

function drain(e: Engine): void {
  while (e.pollOutbound() !== undefined);
  while (e.pollEvent() !== undefined);
}

function heap(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const before = heap();

const client = new Engine({ role: "client", info, capabilities: { elicitation: { url: {} } } });
client.initialize();
client.receiveMessage({
  jsonrpc: "2.0",
  id: 0,
  result: { protocolVersion: "2025-11-25", capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } } } }, serverInfo: info },
});
drain(client);
const server = new Engine({ role: "server", info, capabilities: { resources: { subscribe: true } } });
server.receiveMessage({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: info },
});
server.receiveMessage({ jsonrpc: "2.0", method: "notifications/initialized" });
drain(server);

const stamp = { createdAt: "2025-01-01T00:00:00Z", lastUpdatedAt: "2025-01-01T00:00:00Z", ttl: 1000 };
for (let i = 0; i < count; i++) {
  client.receiveMessage({
    jsonrpc: "2.0",
    method: "notifications/tasks/status",
    params: { taskId: `task-${i}`, status: "working", ...stamp },
  });
  client.receiveMessage({
    jsonrpc: "2.0",
    id: `e${i}`,
    method: "elicitation/create",
    params: { mode: "url", message: "m", url: "https://example.com/", elicitationId: `el-${i}` },
  });
  for (let e = client.pollEvent(); e !== undefined; e = client.pollEvent())
    if (e.kind === "request") client.respond(e.id, { action: "accept" });
  if (i % 100 === 0) {
    const id = client.request("tools/list", { cursor: `page-${i}` });
    const tools: JsonObject[] = [];
    for (let t = 0; t < 100; t++) tools.push({ name: `tool-${i}-${t}`, inputSchema: { type: "object" } });
    client.receiveMessage({ jsonrpc: "2.0", id, result: { tools } });
    const call = client.request("tools/call", { name: "x", arguments: {} });
    client.receiveMessage({
      jsonrpc: "2.0",
      id: call,
      error: {
        code: -32042,
        message: "url",
        data: { elicitations: [{ mode: "url", elicitationId: `err-${i}`, url: "https://example.com/", message: "m" }] },
      },
    });
  }
  drain(client);
  server.receiveMessage({ jsonrpc: "2.0", id: i + 1, method: "resources/subscribe", params: { uri: `file:///r/${i}` } });
  for (let e = server.pollEvent(); e !== undefined; e = server.pollEvent()) if (e.kind === "request") server.respond(e.id, {});
  drain(server);
}

const decoders: Engine[] = [];
const big = new TextEncoder().encode(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${"x".repeat(7 * 1024 * 1024)}"}}\n`);
for (let n = 0; n < 20; n++) {
  const e = new Engine({ role: "server", info });
  for (let i = 0; i < big.length; i += 65_536) e.receiveBytes(big.subarray(i, i + 65_536));
  drain(e);
  decoders.push(e);
}

const after = heap();
process.stdout.write(
  `${JSON.stringify({ count, growthBytes: after - before, client: client.tableSizes, server: server.tableSizes, engines: decoders.length + 2 })}\n`,
);
