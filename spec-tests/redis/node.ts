// A server node for the Redis tests, as a process of its own: `node node.js PORT REDIS_URL`.
// Unlike the CLI (which has its own small Redis client), it takes the user's client the way
// an application would: node-redis (the `redis` dev dependency), connected, passed to
// redisHttpStores as it is. Its one tool, `ticker`, sends `count` progress notifications
// `everyMs` apart before answering, so that a test can kill the node mid-stream.

import { serveHttp } from "../../lib/hosts/http-server.js";
import { Server } from "../../lib/peer/server/server.js";
import { redisHttpStores, type RedisClientLike } from "../../lib/stores/redis.js";

interface NodeRedis extends RedisClientLike {
  connect(): Promise<unknown>;
}

async function main(): Promise<void> {
  const [port, url] = process.argv.slice(2);
  const specifier: string = "redis";
  const { createClient } = (await import(specifier)) as { createClient(options: { url: string; disableOfflineQueue: boolean }): NodeRedis };
  // disableOfflineQueue: with Redis away a command fails at once instead of waiting for it.
  const client = createClient({ url: url as string, disableOfflineQueue: true });
  await client.connect();
  const server = new Server({ info: { name: "redis-test-node", version: "1" } });
  server.tool(
    "ticker",
    { inputSchema: { type: "object", properties: { count: { type: "number" }, everyMs: { type: "number" } } } },
    async (args, ctx) => {
      const count = Number(args.count ?? 10);
      for (let i = 1; i <= count; i++) {
        ctx.progress(i, count, `tick ${i}`);
        await new Promise<void>((resolve) => setTimeout(resolve, Number(args.everyMs ?? 20)));
      }
      return { content: [{ type: "text", text: "ticked" }] };
    },
  );
  const running = await serveHttp(server, {
    port: Number(port),
    ...redisHttpStores(client),
    onError: (error) => process.stderr.write(`node error: ${String(error)}\n`),
  });
  process.stderr.write(`listening on ${running.url}\n`);
  process.on("SIGTERM", () => {
    void running.close().then(() => process.exit(0));
  });
}

void main();
