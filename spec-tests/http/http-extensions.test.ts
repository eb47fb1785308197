// An extension's methods over Streamable HTTP (RULES.md MT-03, MT-05), both eras, with the
// real Node hosts: the server's notification reaches the client on the request's own
// stream, the result comes back, and a client without the declaration is refused before
// anything is posted.

import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { connectHttpNode } from "../../lib/hosts/http-client-node.js";
import { serveHttp } from "../../lib/hosts/http-server.js";
import { ProtocolMisuseError, Server, type Extensions } from "../../lib/peer/index.js";
import type { ProtocolVersion } from "../../lib/rules/versions.js";

const INFO = { name: "ext", version: "1" };
const EXTENSIONS: Extensions = {
  "com.example/jobs": { requests: ["com.example/jobs/run"], serverNotifications: ["com.example/jobs/step"] },
};

async function serve(t: TestContext): Promise<string> {
  const server = new Server({ info: INFO, versions: ["2025-11-25", "2026-07-28"], extensions: EXTENSIONS });
  server.setRequestHandler("com.example/jobs/run", (params, ctx) => {
    ctx.session.notify("com.example/jobs/step", { step: 1 }, ctx.requestId);
    return { done: params?.job ?? null };
  });
  const running = await serveHttp(server, { onError: () => {} });
  (t as unknown as { after(fn: () => Promise<void>): void }).after(() => running.close());
  return running.url;
}

for (const [era, versions] of [
  ["session", ["2025-11-25"]],
  ["modern", ["2026-07-28"]],
] as const) {
  test(`MT-03: over HTTP (${era}): an extension request is answered, its notification heard on the way`, async (t) => {
    const url = await serve(t);
    const connection = await connectHttpNode({ url, info: INFO, versions: versions as readonly ProtocolVersion[], extensions: EXTENSIONS });
    try {
      assert.equal(connection.server.era, era);
      const steps: unknown[] = [];
      connection.client.onNotification("com.example/jobs/step", (params) => steps.push(params?.step));
      const result = await connection.client.request("com.example/jobs/run", { job: "j1" });
      assert.equal(result.done, "j1");
      assert.deepEqual(steps, [1]);
    } finally {
      await connection.close();
    }
  });

  test(`MT-03: over HTTP (${era}): a client that did not declare the extension cannot call it`, async (t) => {
    const url = await serve(t);
    const connection = await connectHttpNode({ url, info: INFO, versions: versions as readonly ProtocolVersion[] });
    try {
      await assert.rejects(
        connection.client.request("com.example/jobs/run", {}),
        (e: unknown) => e instanceof ProtocolMisuseError && e.rule === "MT-01",
      );
    } finally {
      await connection.close();
    }
  });
}
