// The fetch handler as Express middleware (toNodeHandler): mounted under a sub-path
// (`app.use("/api/mcp", ...)`, where Express strips the mount path from req.url) and behind
// express.json() (which consumes the body stream before the endpoint sees it). Express is a
// pinned dev dependency of this test only. The reference client connects through it.

import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createReferenceServer } from "../../lib/cli/reference-server.js";
import { connectHttpNode } from "../../lib/hosts/http-client-node.js";
import { toNodeHandler } from "../../lib/hosts/http-server.js";
import { createHttpHandler } from "../../lib/http-server/index.js";
import type { NodeIncomingMessage, NodeServerResponse } from "../../lib/hosts/node-shapes.js";

type Middleware = (req: NodeIncomingMessage, res: NodeServerResponse, next: () => void) => void;
interface ExpressApp {
  use(path: string, handler: Middleware | ((req: NodeIncomingMessage, res: NodeServerResponse) => void)): void;
  use(handler: Middleware): void;
  listen(
    port: number,
    host: string,
    callback: () => void,
  ): { address(): { port: number } | string | null; close(callback?: () => void): void; closeAllConnections(): void };
}
interface ExpressModule {
  (): ExpressApp;
  json(options?: { limit?: string }): Middleware;
}

async function express(): Promise<ExpressModule> {
  // Untyped dev dependency: its default export is the factory.
  const specifier: string = "express";
  return ((await import(specifier)) as { default: ExpressModule }).default;
}

async function listen(t: TestContext, app: ExpressApp): Promise<number> {
  return new Promise<number>((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : 0);
    });
    t.after(
      () =>
        new Promise<void>((done) => {
          server.close(() => done());
          server.closeAllConnections();
        }),
    );
  });
}

function reference() {
  return createReferenceServer({
    paginationSecret: randomBytes(32),
    requestStateSecret: randomBytes(32),
    sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  });
}

for (const era of ["session", "modern"] as const) {
  test(`HTTP-01: Express: mounted at /api/mcp behind express.json(), the reference client works (${era} era)`, async (t) => {
    const factory = await express();
    const app = factory();
    app.use(factory.json({ limit: "4mb" }));
    const handler = createHttpHandler(reference(), { onError: () => {} });
    t.after(() => handler.close());
    app.use("/api/mcp", toNodeHandler(handler));
    const port = await listen(t, app);
    const connection = await connectHttpNode({
      url: `http://127.0.0.1:${port}/api/mcp`,
      info: { name: "express-test", version: "1" },
      versions: era === "session" ? ["2025-11-25"] : ["2026-07-28"],
      legacyFallback: false,
    });
    t.after(() => connection.close());
    const tools = await connection.client.listTools();
    assert.ok(
      tools.some((tool) => tool.name === "test_simple_text"),
      "the reference tools are listed",
    );
    const result = await connection.client.callTool("test_simple_text", {});
    assert.equal(result.isError, undefined);
    if (era === "session") assert.equal(handler.endpoint.sessions.size, 1, "a session on the endpoint behind Express");
  });
}

test("HTTP-01: Express: without a body parser, mounted under a sub-path; another path under the mount is 404", async (t) => {
  const factory = await express();
  const app = factory();
  const handler = createHttpHandler(reference(), { onError: () => {} });
  t.after(() => handler.close());
  app.use("/mcp-root", toNodeHandler(handler));
  const port = await listen(t, app);
  const connection = await connectHttpNode({
    url: `http://127.0.0.1:${port}/mcp-root`,
    info: { name: "express-test", version: "1" },
    versions: ["2025-11-25"],
    legacyFallback: false,
  });
  t.after(() => connection.close());
  assert.ok((await connection.client.listTools()).length > 5);
  const elsewhere = await fetch(`http://127.0.0.1:${port}/mcp-root/other`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: "{}",
  });
  assert.equal(elsewhere.status, 404);
});
