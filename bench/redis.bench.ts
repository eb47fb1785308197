// Several processes on one Redis (mcp-engine/stores/redis): requests per second with 1 and
// with 3 CLI nodes (`serve --http --redis`) behind a client that spreads its requests round
// robin, and the cost per request of the shared stores against the in-memory ones, both in
// one process (the fetch handler driven without a socket, the same requests, rounds
// alternating). Figures are ratios measured in this run; nothing is asserted. Redis is
// MCP_TEST_REDIS_URL, else a redis-server of its own (skipped when there is none).

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { RespClient } from "../lib/hosts/redis-resp.js";
import { createHttpHandler, type HttpHandler } from "../lib/http-server/index.js";
import { Server } from "../lib/peer/server/server.js";
import { redisHttpStores } from "../lib/stores/redis.js";
import { fmt, median, print } from "./run.js";

const ACCEPT = "application/json, text/event-stream";
const VERSION = "2025-11-25";
const IN_PROCESS = 1500;
const ROUNDS = 5;
const OVER_HTTP = 3000;
const WORKERS = 24;
const CLI = join(dirname(fileURLToPath(import.meta.url)), "..", "lib", "cli", "main.js");

export function freePort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const server = createServer(() => undefined);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise<void>((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("not ready within 5 s");
}

async function ping(url: string): Promise<boolean> {
  const client = new RespClient({ url });
  try {
    await client.connect();
    return (await client.sendCommand(["PING"])) === "PONG";
  } catch {
    return false;
  } finally {
    await client.close();
  }
}

/** The Redis to measure against (also bench/scale-out.ts), and how to stop it when it is ours. */
export async function redis(): Promise<{ url: string; stop(): void } | undefined> {
  const given = process.env.MCP_TEST_REDIS_URL;
  if (given !== undefined && given !== "") return { url: given, stop: () => undefined };
  const binary = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].find((path) => existsSync(path));
  if (binary === undefined) return undefined;
  const port = await freePort();
  const child = spawn(binary, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: ["ignore", "ignore", "ignore"],
  });
  const url = `redis://127.0.0.1:${port}`;
  await waitFor(() => ping(url));
  return { url, stop: () => void child.kill("SIGKILL") };
}

function request(session: string | undefined, body: string): Request {
  const headers: Record<string, string> = { host: "localhost", accept: ACCEPT, "content-type": "application/json" };
  if (session !== undefined) {
    headers["mcp-session-id"] = session;
    headers["mcp-protocol-version"] = VERSION;
  }
  return new Request("http://localhost/mcp", { method: "POST", headers, body });
}

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: "bench", version: "1" } },
});
const call = (id: number): string => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: {} } });

function fixture(): Server {
  const server = new Server({ info: { name: "bench", version: "1" } });
  server.tool("echo", {}, () => ({ content: [{ type: "text", text: "pong" }] }));
  return server;
}

/** Milliseconds for `count` sequential tools/call on one session of `handler`, in-process. */
async function drive(handler: HttpHandler, count: number): Promise<number> {
  const opened = await handler.fetch(request(undefined, initialize));
  const session = opened.headers.get("mcp-session-id") as string;
  await opened.text();
  await (await handler.fetch(request(session, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })))).text();
  const start = performance.now();
  for (let i = 1; i <= count; i++) await (await handler.fetch(request(session, call(i)))).text();
  return performance.now() - start;
}

interface Node {
  readonly url: string;
  stop(): Promise<void>;
}

async function startNode(redisUrl: string): Promise<Node> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [CLI, "serve", "--http", `127.0.0.1:${port}`, "--redis", redisUrl], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  const decoder = new TextDecoder();
  await new Promise<void>((resolve, reject) => {
    child.stderr.on("data", (chunk) => {
      log += decoder.decode(chunk, { stream: true });
      if (log.includes(`:${port}/mcp`)) resolve();
    });
    child.once("exit", (code) => reject(new Error(`node exited (${String(code)}): ${log}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** Requests per second of WORKERS sessions spreading OVER_HTTP pings round robin over `urls`. */
async function throughput(urls: readonly string[]): Promise<number> {
  const headers = (session: string | undefined): Record<string, string> => {
    const out: Record<string, string> = { accept: ACCEPT, "content-type": "application/json" };
    if (session !== undefined) {
      out["mcp-session-id"] = session;
      out["mcp-protocol-version"] = VERSION;
    }
    return out;
  };
  const sessions = await Promise.all(
    Array.from({ length: WORKERS }, async (_, w) => {
      const res = await fetch(urls[w % urls.length] as string, { method: "POST", headers: headers(undefined), body: initialize });
      await res.text();
      return res.headers.get("mcp-session-id") as string;
    }),
  );
  let next = 0;
  const start = performance.now();
  await Promise.all(
    sessions.map(async (session) => {
      for (;;) {
        const i = next++;
        if (i >= OVER_HTTP) return;
        const res = await fetch(urls[i % urls.length] as string, {
          method: "POST",
          headers: headers(session),
          body: JSON.stringify({ jsonrpc: "2.0", id: i + 1, method: "ping" }),
        });
        await res.text();
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  await Promise.all(
    sessions.map((session, w) =>
      fetch(urls[w % urls.length] as string, { method: "DELETE", headers: headers(session) }).then((res) => res.text()),
    ),
  );
  return OVER_HTTP / seconds;
}

export async function run(): Promise<void> {
  const shared = await redis();
  if (shared === undefined) {
    print("  skipped: no Redis (set MCP_TEST_REDIS_URL or install redis-server)");
    return;
  }
  try {
    const client = new RespClient({ url: shared.url });
    await client.connect();
    const memory = createHttpHandler(fixture(), { onError: () => undefined });
    const onRedis = createHttpHandler(fixture(), { ...redisHttpStores(client, { prefix: "bench:" }), onError: () => undefined });
    await drive(memory, 200);
    await drive(onRedis, 200);
    const times = { memory: [] as number[], redis: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      times.memory.push(await drive(memory, IN_PROCESS));
      times.redis.push(await drive(onRedis, IN_PROCESS));
    }
    memory.close();
    onRedis.close();
    await client.close();
    const perMemory = (median(times.memory) * 1000) / IN_PROCESS;
    const perRedis = (median(times.redis) * 1000) / IN_PROCESS;
    print(`  in-process, one session, ${IN_PROCESS} sequential tools/call × ${ROUNDS} rounds (median):`);
    print(`    in-memory stores  ${fmt(perMemory)} µs/request`);
    print(
      `    Redis stores      ${fmt(perRedis)} µs/request   ${fmt(perRedis / perMemory, 2, 6)}× the in-memory cost (${fmt(perRedis - perMemory, 0, 5)} µs more: GETEX + SET per request)`,
    );

    const one = [await startNode(shared.url)];
    const rps1 = await throughput(one.map((n) => n.url));
    const three = [...one, await startNode(shared.url), await startNode(shared.url)];
    const rps3 = await throughput(three.map((n) => n.url));
    await Promise.all(three.map((n) => n.stop()));
    print(`  over HTTP, ${WORKERS} sessions, ${OVER_HTTP} pings spread round robin (CLI nodes, one Redis):`);
    print(`    1 node   ${fmt(rps1, 0)} requests/s`);
    print(
      `    3 nodes  ${fmt(rps3, 0)} requests/s   ${fmt(rps3 / rps1, 2, 6)}× one node (the client, Redis and the nodes share this machine's cores)`,
    );
  } finally {
    shared.stop();
  }
}
