// Scale-out in CPU: is a node of a cluster on one Redis as efficient as a lone node? The
// nodes (bench/scale-node.ts, processes of their own) serve `echo`; WORKERS client sessions
// send tools/call round robin over the nodes, so a session's next request mostly lands on
// another node than its last. Measured per configuration, over the same requests:
//   requests per node-CPU-second   requests / the CPU time the node processes spent meanwhile
//                                  (process.cpuUsage in each node; the client and Redis are
//                                  not counted, so two shared cores can still show it)
//   p50 / p99                      client-side latency of one request (ms)
// Configurations: 1 node with the in-memory stores (the baseline), 1 node on Redis, 3 nodes on
// one Redis, and the same 3 nodes with each session kept on one node ("sticky": the difference
// to round robin is what a session moving between nodes costs). Each node gets WORKERS sessions
// and `--requests` calls, so every configuration loads a node alike. Printed ratios: 3 nodes' requests per node-CPU-second over one node's on Redis
// (target >= 0.8: three nodes on three cores then serve >= 2.4x one), and the store's share of
// a request's node CPU on Redis, 1 - (CPU/request in memory) / (CPU/request on Redis) (target
// <= 20 %). Rounds alternate the configurations; the medians are printed. Redis is
// MCP_TEST_REDIS_URL, else a redis-server of its own. `npm run bench:scale` (after `npm run
// build`), `-- --rounds N --requests N`. Prints figures, never fails on them.

import { spawn, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { freePort, redis } from "./redis.bench.js";
import { fmt, median } from "./run.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const VERSION = "2025-11-25";
const WORKERS = 16;

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i === -1 ? fallback : Number(process.argv[i + 1]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

const ROUNDS = option("rounds", 5);
const REQUESTS = option("requests", 2000);

interface BenchNode {
  readonly url: string;
  cpu(): Promise<number>;
  stop(): void;
}

async function startNode(store: string): Promise<BenchNode> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [join(HERE, "scale-node.js"), String(port), store], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const waiting: ((line: string) => void)[] = [];
  const decoder = new TextDecoder();
  let text = "";
  child.stdout?.on("data", (chunk: Uint8Array) => {
    text += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = text.indexOf("\n")) >= 0) {
      const line = text.slice(0, end);
      text = text.slice(end + 1);
      waiting.shift()?.(line);
    }
  });
  const next = (): Promise<string> => new Promise((resolve) => waiting.push(resolve));
  const ready = await next();
  if (ready !== "ready") throw new Error(`scale node: expected "ready"; got ${ready}`);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    cpu: async () => {
      const answer = next();
      child.stdin?.write("cpu\n");
      return Number(await answer) / 1e6;
    },
    stop: () => void child.stdin?.end(),
  };
}

/** One POST; resolves with the status, the session header and the body. */
async function post(url: string, body: string, session?: string): Promise<{ status: number; session: string | undefined; body: string }> {
  const headers: Record<string, string> = { accept: "application/json, text/event-stream", "content-type": "application/json" };
  if (session !== undefined) {
    headers["mcp-session-id"] = session;
    headers["mcp-protocol-version"] = VERSION;
  }
  const res = await fetch(url, { method: "POST", headers, body });
  return { status: res.status, session: res.headers.get("mcp-session-id") ?? undefined, body: await res.text() };
}

interface Figures {
  readonly perCpuSecond: number;
  readonly p50: number;
  readonly p99: number;
}

/** REQUESTS tools/call from WORKERS sessions, round robin over `nodes`. */
async function measure(nodes: readonly BenchNode[], sticky = false): Promise<Figures> {
  const initialize = (w: number): string =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: `bench-${w}`, version: "1" } },
    });
  const sessions = await Promise.all(
    Array.from({ length: WORKERS * nodes.length }, async (_, w) => {
      const node = nodes[w % nodes.length] as BenchNode;
      const opened = await post(node.url, initialize(w));
      if (opened.session === undefined) throw new Error(`initialize answered ${opened.status}: ${opened.body}`);
      await post(
        (nodes[(w + 1) % nodes.length] as BenchNode).url,
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
        opened.session,
      );
      return opened.session;
    }),
  );
  const before = await Promise.all(nodes.map((n) => n.cpu()));
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    sessions.map(async (session, w) => {
      for (;;) {
        const i = next++;
        if (i >= REQUESTS * nodes.length) return;
        const body = JSON.stringify({ jsonrpc: "2.0", id: i + 1, method: "tools/call", params: { name: "echo", arguments: {} } });
        const start = performance.now();
        const answer = await post((nodes[(sticky ? w : i) % nodes.length] as BenchNode).url, body, session);
        latencies.push(performance.now() - start);
        if (answer.status !== 200) throw new Error(`tools/call answered ${answer.status}: ${answer.body}`);
      }
    }),
  );
  const after = await Promise.all(nodes.map((n) => n.cpu()));
  let cpu = 0;
  for (let i = 0; i < nodes.length; i++) cpu += (after[i] as number) - (before[i] as number);
  await Promise.all(
    sessions.map((session, w) =>
      fetch((nodes[w % nodes.length] as BenchNode).url, {
        method: "DELETE",
        headers: { "mcp-session-id": session, "mcp-protocol-version": VERSION },
      }).then((res) => res.text()),
    ),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] as number;
  return { perCpuSecond: (REQUESTS * nodes.length) / cpu, p50: at(0.5), p99: at(0.99) };
}

async function main(): Promise<void> {
  const shared = await redis();
  if (shared === undefined) {
    console.log("scale-out: skipped: no Redis (set MCP_TEST_REDIS_URL or install redis-server)");
    return;
  }
  const memory = [await startNode("memory")];
  const one = [await startNode(shared.url)];
  const three = [one[0] as BenchNode, await startNode(shared.url), await startNode(shared.url)];
  const runs = { memory: [] as Figures[], one: [] as Figures[], three: [] as Figures[], sticky: [] as Figures[] };
  try {
    // A warm-up of each, then the rounds, alternating.
    await measure(memory);
    await measure(one);
    await measure(three);
    for (let round = 0; round < ROUNDS; round++) {
      runs.memory.push(await measure(memory));
      runs.one.push(await measure(one));
      runs.three.push(await measure(three));
      runs.sticky.push(await measure(three, true));
    }
  } finally {
    for (const node of [...memory, ...three]) node.stop();
    shared.stop();
  }
  const of = (figures: Figures[], key: keyof Figures): number => median(figures.map((f) => f[key]));
  console.log(`scale-out: ${WORKERS} sessions, ${REQUESTS} tools/call round robin over the nodes, ${ROUNDS} rounds (medians)`);
  console.log("                          req/node-CPU-s     p50 ms     p99 ms");
  for (const [name, figures] of [
    ["1 node, in-memory", runs.memory],
    ["1 node, Redis", runs.one],
    ["3 nodes, one Redis", runs.three],
    ["3 nodes, sticky", runs.sticky],
  ] as const)
    console.log(
      `  ${name.padEnd(22)} ${fmt(of(figures, "perCpuSecond"), 0, 12)} ${fmt(of(figures, "p50"), 2, 10)} ${fmt(of(figures, "p99"), 2, 10)}`,
    );
  const ratio = of(runs.three, "perCpuSecond") / of(runs.one, "perCpuSecond");
  const share = 1 - of(runs.one, "perCpuSecond") / of(runs.memory, "perCpuSecond");
  console.log(`  3 nodes / 1 node, requests per node-CPU-second: ${fmt(ratio, 2, 0)} (target >= 0.8)`);
  console.log(`  the store's share of a request's node CPU on Redis: ${fmt(share * 100, 1, 0)} % (target <= 20 %)`);
}

void main();
