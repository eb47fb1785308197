// One node of the scale-out bench (bench/scale-out.ts), as a process of its own:
// `node scale-node.js PORT (REDIS_URL | memory)`. It serves one tool, `echo`, over Streamable
// HTTP with the Redis stores (the project's own client, lib/hosts/redis-resp.ts) or the
// in-memory ones, prints "ready" once it listens, and answers each line "cpu" on stdin with
// this process's CPU time so far (process.cpuUsage, µs of user plus system) on stdout.

import { serveHttp } from "../lib/hosts/http-server.js";
import { RespClient } from "../lib/hosts/redis-resp.js";
import { Server } from "../lib/peer/server/server.js";
import { redisHttpStores } from "../lib/stores/redis.js";

async function main(): Promise<void> {
  const [port, store] = process.argv.slice(2);
  const server = new Server({ info: { name: "scale-bench", version: "1" } });
  server.tool("echo", {}, () => ({ content: [{ type: "text", text: "pong" }] }));
  let stores = {};
  if (store !== undefined && store !== "memory") {
    const client = new RespClient({ url: store });
    await client.connect();
    stores = redisHttpStores(client, { prefix: "scale:" });
  }
  await serveHttp(server, { port: Number(port), ...stores, maxSessions: 10_000, onError: () => undefined });
  process.stdout.write("ready\n");
  const decoder = new TextDecoder();
  process.stdin.on("data", (chunk: Uint8Array) => {
    for (const line of decoder.decode(chunk, { stream: true }).split("\n")) {
      if (line !== "cpu") continue;
      const used = process.cpuUsage();
      process.stdout.write(`${used.user + used.system}\n`);
    }
  });
  process.stdin.on("end", () => process.exit(0));
}

void main();
