// JSON answers over HTTP, one session, sequential keep-alive requests from Node's fetch:
// bare node:http answering a fixed JSON body (the floor), the Streamable HTTP endpoint on
// node:http (serveHttp, the Node adapter), and the same endpoint's web fetch handler served
// on node:http through Request/Response objects (what a framework that hands out Requests
// costs on Node), plus the fetch handler driven in-process (no socket). Figures are requests
// per second and ratios to bare node:http; nothing is asserted.

import { createServer, type Server as NodeHttpServer } from "node:http";
import { performance } from "node:perf_hooks";
import { serveHttp } from "../lib/hosts/http-server.js";
import { createHttpHandler, type HttpHandler } from "../lib/http-server/index.js";
import { Server } from "../lib/peer/server/server.js";
import { fmt, median, print } from "./run.js";

const REQUESTS = 1500;
const ROUNDS = 5;
const ACCEPT = "application/json, text/event-stream";
const VERSION = "2025-11-25";

function fixture(): Server {
  const server = new Server({ info: { name: "bench", version: "1" } });
  server.tool("echo", {}, () => ({ content: [{ type: "text", text: "pong" }] }));
  return server;
}

const call = (id: number): string => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: {} } });
const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: "b", version: "1" } },
});

interface Poster {
  (body: string, session: string | undefined): Promise<{ session: string | null; text: string }>;
}

function fetchPoster(url: string): Poster {
  return async (body, session) => {
    const headers: Record<string, string> = { accept: ACCEPT, "content-type": "application/json", "mcp-protocol-version": VERSION };
    if (session !== undefined) headers["mcp-session-id"] = session;
    const res = await fetch(url, { method: "POST", headers, body });
    return { session: res.headers.get("mcp-session-id"), text: await res.text() };
  };
}

function handlerPoster(handler: HttpHandler): Poster {
  return async (body, session) => {
    const headers: Record<string, string> = {
      host: "localhost",
      accept: ACCEPT,
      "content-type": "application/json",
      "mcp-protocol-version": VERSION,
    };
    if (session !== undefined) headers["mcp-session-id"] = session;
    const res = await handler.fetch(new Request("http://localhost/mcp", { method: "POST", headers, body }));
    return { session: res.headers.get("mcp-session-id"), text: await res.text() };
  };
}

/** Requests per second of REQUESTS sequential tools/call in one session (initialized first). */
async function rate(post: Poster, bare: boolean): Promise<number> {
  let session: string | undefined;
  if (!bare) {
    session = (await post(initialize, undefined)).session ?? undefined;
    await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), session);
  }
  const start = performance.now();
  for (let i = 1; i <= REQUESTS; i++) {
    const answer = await post(call(i), session);
    if (!answer.text.includes("pong")) throw new Error(`unexpected answer: ${answer.text.slice(0, 200)}`);
  }
  return REQUESTS / ((performance.now() - start) / 1000);
}

function listen(http: NodeHttpServer): Promise<string> {
  return new Promise<string>((resolve) => {
    http.listen(0, "127.0.0.1", () => {
      const address = http.address();
      resolve(`http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/mcp`);
    });
  });
}

/** The fetch handler on node:http through real Request and Response objects (no shortcut). */
function fetchOnNode(handler: HttpHandler): NodeHttpServer {
  return createServer((req, res) => {
    const chunks: Uint8Array[] = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers[name] = value;
      const body = new TextDecoder().decode(chunks.length === 1 ? chunks[0] : new Uint8Array(chunks.flatMap((c) => [...c])));
      handler
        .fetch(
          new Request(`http://${headers.host ?? "localhost"}${req.url ?? "/"}`, {
            method: req.method ?? "GET",
            headers,
            body: req.method === "POST" ? body : null,
          }),
        )
        .then(async (answer) => {
          const out: Record<string, string> = {};
          answer.headers.forEach((value, name) => {
            out[name] = value;
          });
          const text = await answer.text();
          res.writeHead(answer.status, out);
          res.end(text);
        });
    });
  });
}

export async function run(): Promise<void> {
  const answer = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "pong" }] } });
  const bare = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": String(answer.length) });
      res.end(answer);
    });
  });
  const bareUrl = await listen(bare);
  const adapter = await serveHttp(fixture(), { onError: () => {} });
  const webHandler = createHttpHandler(fixture(), { onError: () => {} });
  const webOnNode = fetchOnNode(webHandler);
  const webUrl = await listen(webOnNode);
  const inProcess = createHttpHandler(fixture(), { onError: () => {} });
  const samples = { bare: [] as number[], adapter: [] as number[], web: [] as number[], inProcess: [] as number[] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      samples.bare.push(await rate(fetchPoster(bareUrl), true));
      samples.adapter.push(await rate(fetchPoster(adapter.url), false));
      samples.web.push(await rate(fetchPoster(webUrl), false));
      samples.inProcess.push(await rate(handlerPoster(inProcess), false));
    }
  } finally {
    await adapter.close();
    webHandler.close();
    inProcess.close();
    await new Promise<void>((done) => bare.close(() => done()));
    await new Promise<void>((done) => webOnNode.close(() => done()));
    bare.closeAllConnections();
    webOnNode.closeAllConnections();
  }
  const floor = median(samples.bare);
  print(`http-json: ${REQUESTS} sequential tools/call, one session, JSON answers, Node fetch keep-alive (median of ${ROUNDS})`);
  print(`  bare node:http (fixed answer)      ${fmt(floor, 0)} req/s`);
  print(
    `  serveHttp (node:http adapter)      ${fmt(median(samples.adapter), 0)} req/s  (${fmt(median(samples.adapter) / floor, 2, 4)} of bare)`,
  );
  print(
    `  fetch handler on node:http         ${fmt(median(samples.web), 0)} req/s  (${fmt(median(samples.web) / floor, 2, 4)} of bare; Request/Response objects)`,
  );
  print(`  fetch handler in-process           ${fmt(median(samples.inProcess), 0)} req/s  (no socket)`);
}
