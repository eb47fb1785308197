// ctx.once over Streamable HTTP under 2026-07-28: every input round is a new HTTP request
// (and, without sessions, may reach any process holding the same inputRounds secret), so
// what the handler did before ctx.elicit() is carried in the sealed requestState, not in
// memory. Two Server instances stand for two processes behind one endpoint: the first round
// reaches one, the retries reach the other, and the side effect still runs once.

import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { connectHttpNode, serveHttp } from "../../lib/hosts/http.js";
import { Server, sealedRounds } from "../../lib/peer/index.js";
import { MODERN_VERSIONS, SESSION_VERSIONS } from "../../lib/rules/versions.js";
import type { ElicitResult } from "../../lib/types/index.js";
import { withTimeout } from "../support/helpers.js";

const versions = [...SESSION_VERSIONS, ...MODERN_VERSIONS];

test("over HTTP, a side effect through ctx.once before ctx.elicit() runs once across rounds served by two servers sharing the secret", async () => {
  const secret = randomBytes(32);
  const effects: string[] = [];
  const make = (label: string): Server => {
    const server = new Server({ info: { name: label, version: "1.0.0" }, versions, inputRounds: sealedRounds({ secret }) });
    server.tool(
      "order",
      { inputSchema: { type: "object", properties: { item: { type: "string" } }, required: ["item"] } },
      async (args, ctx) => {
        const receipt = await ctx.once("charge", () => {
          effects.push(`${label}:${args.item}`);
          return `receipt-${effects.length}`;
        });
        const wrap = await ctx.elicit({
          message: "Gift wrap?",
          requestedSchema: { type: "object", properties: { wrap: { type: "boolean" } } },
        });
        const note = await ctx.elicit({
          message: "A note?",
          requestedSchema: { type: "object", properties: { note: { type: "string" } } },
        });
        return { content: [{ type: "text", text: `${receipt} ${String(wrap.content?.wrap)} ${String(note.content?.note)} by ${label}` }] };
      },
    );
    return server;
  };
  const first = await serveHttp(make("a"), { eras: "modern" });
  const second = await serveHttp(make("b"), { eras: "modern" });
  // The first tools/call goes to server a; every later request to server b (a load balancer's doing).
  let calls = 0;
  const route = (url: string): string => (url === first.url && calls++ > 0 ? second.url : url);
  const connection = await withTimeout(
    connectHttpNode({
      url: first.url,
      info: { name: "c", version: "1" },
      versions,
      modern: true,
      capabilities: { elicitation: {} },
      fetch: (url, init) => fetch(route(String(url)), init),
    }),
    10_000,
    "connect",
  );
  try {
    connection.client.setRequestHandler(
      "elicitation/create",
      (p) => ({ action: "accept", content: p.message === "Gift wrap?" ? { wrap: true } : { note: "hi" } }) as ElicitResult,
    );
    calls = 0;
    const result = await withTimeout(connection.client.callTool("order", { item: "tea" }), 10_000, "tools/call");
    assert.deepEqual(result.content, [{ type: "text", text: "receipt-1 true hi by b" }]);
    assert.deepEqual(effects, ["a:tea"], "charged once, by the server that saw the first round");
    assert.ok(calls >= 3, `three rounds: ${calls} requests`);
  } finally {
    await connection.close();
    await first.close();
    await second.close();
  }
});
