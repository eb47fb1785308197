// A round-robin HTTP proxy for running the official conformance suite against several nodes
// as one server: `node proxy.js LISTEN_PORT UPSTREAM_URL...`. Each request (POST, GET,
// DELETE, whatever it is) goes to the next upstream in turn, its body read whole, its
// answer streamed back as it comes (an SSE stream stays open as long as the upstream's).
// No affinity of any kind: consecutive requests of one session land on different nodes.

import { createServer } from "node:http";
import { concatBytes } from "../../lib/hosts/bytes.js";

interface UpstreamResponse {
  readonly status: number;
  readonly headers: { forEach(callback: (value: string, name: string) => void): void };
  readonly body: { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> } } | null;
}
const upstreamFetch = (
  globalThis as unknown as {
    fetch(url: string, init: { method: string; headers: Record<string, string>; body?: Uint8Array }): Promise<UpstreamResponse>;
  }
).fetch;

const HOP_BY_HOP = new Set(["host", "connection", "keep-alive", "transfer-encoding", "content-length", "upgrade"]);

function main(): void {
  const [listen, ...upstreams] = process.argv.slice(2);
  if (listen === undefined || upstreams.length === 0) {
    process.stderr.write("usage: node proxy.js LISTEN_PORT UPSTREAM_URL...\n");
    process.exitCode = 2;
    return;
  }
  let next = 0;
  const server = createServer((req, res) => {
    const chunks: Uint8Array[] = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const upstream = upstreams[next++ % upstreams.length] as string;
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === "string" && !HOP_BY_HOP.has(name)) headers[name] = value;
      const body = concatBytes(chunks);
      const method = req.method ?? "GET";
      upstreamFetch(upstream + (req.url ?? "").replace(/^\/mcp/, ""), {
        method,
        headers,
        ...(method === "GET" || method === "HEAD" ? {} : { body }),
      }).then(
        async (answer) => {
          const out: Record<string, string> = {};
          answer.headers.forEach((value, name) => {
            if (!HOP_BY_HOP.has(name)) out[name] = value;
          });
          res.writeHead(answer.status, out);
          res.flushHeaders();
          const reader = answer.body?.getReader();
          if (reader === undefined) return res.end();
          req.on("close", () => void reader.cancel().catch(() => undefined));
          for (;;) {
            const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
            if (done) break;
            if (value !== undefined) res.write(value);
          }
          res.end();
        },
        (error: unknown) => {
          res.writeHead(502, { "content-type": "text/plain" });
          res.end(`proxy: ${upstream}: ${String(error)}`);
        },
      );
    });
  });
  server.listen(Number(listen), "127.0.0.1", () =>
    process.stderr.write(`round-robin proxy on http://127.0.0.1:${listen}/mcp over ${upstreams.join(", ")}\n`),
  );
}

main();
