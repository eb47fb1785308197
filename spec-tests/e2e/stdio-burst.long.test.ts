// A burst over real pipes (lib/hosts/stdio.ts, answerPacedSink in lib/hosts/stdio-writer.ts):
// 30,000 calls made together, megabytes more than the pipes hold, are all answered in order,
// with and without readInPlace. A client pauses its reading only for a server that leaves too
// much of our answers unread, so neither end waits on the other. A long run: `npm run
// test:long` (spec-tests/run.ts, --long).

import { test } from "node:test";
import assert from "node:assert/strict";
import { StdioClient } from "../../lib/hosts/stdio.js";
import { withTimeout } from "../support/helpers.js";

/** A server whose one tool echoes its text. */
const BIG_ANSWERS = `
const { Server } = await import(${JSON.stringify(new URL("../../lib/peer/server/server.js", import.meta.url).href)});
const { serveStdio } = await import(${JSON.stringify(new URL("../../lib/hosts/stdio.js", import.meta.url).href)});
const server = new Server({ info: { name: "echo", version: "1" } });
server.tool("echo", { inputSchema: { type: "object", properties: { text: { type: "string" } } } }, ({ text }) => ({ content: [{ type: "text", text }] }));
serveStdio(server, { readInPlace: true });
`;

for (const readInPlace of [false, true]) {
  test(`StdioClient${readInPlace ? " with readInPlace" : ""}: 30,000 calls of 250 bytes made together (megabytes more than the pipes hold) are all answered, in order; neither end waits on the other`, async () => {
    const remote = await StdioClient.spawn({
      command: process.execPath,
      args: ["--input-type=module", "-e", BIG_ANSWERS],
      info: { name: "t", version: "1" },
      readInPlace,
      defaultTimeoutMs: 60_000,
    });
    try {
      const pad = "y".repeat(240);
      const calls = Array.from({ length: 30_000 }, (_, i) => remote.client.callTool("echo", { text: `${i}${pad}` }));
      const answers = await withTimeout(Promise.all(calls), 45_000, "30,000 echo calls");
      assert.ok(answers.every((answer, i) => (answer.content[0] as { text: string }).text === `${i}${pad}`));
    } finally {
      await remote.close();
    }
  });
}
