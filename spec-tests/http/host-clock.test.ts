// The hosts' clock as a peer sees it: a task created through `serve` on stdio and over
// Streamable HTTP (Node's host; the fetch handler on Bun and Deno) reports createdAt and
// lastUpdatedAt as wall-clock times (TK-07), not the process's uptime counted from 1970.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runtimeBinary, runtimeMissing } from "../support/runtimes.js";

const cli = join(fileURLToPath(new URL("../../", import.meta.url)), "lib", "cli", "main.js");
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "clock-test", version: "1" } },
};
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };
const CALL_AS_TASK = {
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "slow_compute", arguments: { seconds: 0 }, task: { ttl: 60_000 } },
};

/** Asserts a Task's times lie between `before` and now (ms since the epoch). */
function assertWallClockTimes(task: unknown, before: number): void {
  assert.ok(typeof task === "object" && task !== null, `a task, got ${JSON.stringify(task)}`);
  const { createdAt, lastUpdatedAt } = task as { createdAt?: unknown; lastUpdatedAt?: unknown };
  for (const [name, value] of [
    ["createdAt", createdAt],
    ["lastUpdatedAt", lastUpdatedAt],
  ] as const) {
    assert.equal(typeof value, "string", `${name}: ${String(value)}`);
    const at = Date.parse(value as string);
    assert.ok(
      at >= before - 1000 && at <= Date.now() + 1000,
      `${name} ${String(value)} is not between the call and now (${new Date(before).toISOString()})`,
    );
  }
}

test("TK-07: a task created through serve on stdio reports createdAt and lastUpdatedAt in wall-clock time", async () => {
  const before = Date.now();
  const child = spawn(process.execPath, [cli, "serve"], { stdio: ["pipe", "pipe", "ignore"] });
  try {
    const answer = new Promise<unknown>((resolve, reject) => {
      let buffered = "";
      const timer = setTimeout(() => reject(new Error(`no answer to the task call within 10 s; got ${buffered}`)), 10_000);
      const decoder = new TextDecoder();
      child.stdout.on("data", (chunk) => {
        buffered += decoder.decode(chunk, { stream: true });
        for (const line of buffered.split("\n").slice(0, -1)) {
          const message = JSON.parse(line) as { id?: unknown; result?: { task?: unknown } };
          if (message.id === 2) {
            clearTimeout(timer);
            resolve(message.result?.task);
          }
        }
      });
    });
    child.stdin.write(`${[INITIALIZE, INITIALIZED, CALL_AS_TASK].map((m) => JSON.stringify(m)).join("\n")}\n`);
    assertWallClockTimes(await answer, before);
  } finally {
    child.kill();
  }
});

/** How each runtime runs `serve --http` (Node's host, and the fetch handler on Bun.serve and Deno.serve). */
const HTTP_HOSTS = [
  { runtime: "node", command: process.execPath, args: [cli, "serve", "--http", "127.0.0.1:0"] },
  { runtime: "bun", command: runtimeBinary("bun"), args: [cli, "serve", "--http", "127.0.0.1:0"] },
  { runtime: "deno", command: runtimeBinary("deno"), args: ["run", "-A", cli, "serve", "--http", "127.0.0.1:0"] },
] as const;

for (const host of HTTP_HOSTS) {
  test(`TK-07: ${host.runtime}: a task created through serve --http reports createdAt and lastUpdatedAt in wall-clock time`, async (t) => {
    const missing = host.runtime === "node" ? undefined : runtimeMissing(host.runtime);
    if (missing !== undefined) {
      t.skip(`SKIPPED: ${missing}`);
      return;
    }
    const before = Date.now();
    const child = spawn(host.command, host.args, { stdio: ["ignore", "ignore", "pipe"] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let stderr = "";
        const timer = setTimeout(() => reject(new Error(`serve --http did not listen within 20 s: ${stderr}`)), 20_000);
        const decoder = new TextDecoder();
        child.stderr.on("data", (chunk) => {
          stderr += decoder.decode(chunk, { stream: true });
          const found = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
          if (found !== undefined) {
            clearTimeout(timer);
            resolve(found);
          }
        });
      });
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
      const post = (body: unknown, session?: string) =>
        fetch(url, {
          method: "POST",
          headers: session === undefined ? headers : { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
          body: JSON.stringify(body),
        });
      const opened = await post(INITIALIZE);
      const session = opened.headers.get("mcp-session-id") ?? undefined;
      assert.ok(session !== undefined, "a session id");
      await opened.text();
      await (await post(INITIALIZED, session)).text();
      const reply = await (await post(CALL_AS_TASK, session)).text();
      const data = /^data: (.*)$/m.exec(reply)?.[1] ?? reply;
      assertWallClockTimes((JSON.parse(data) as { result?: { task?: unknown } }).result?.task, before);
    } finally {
      child.kill();
    }
  });
}

test("TK-07: the Node hosts' clocks, which tasks a client or server creates read, are epoch milliseconds", async () => {
  const { nodeTimers } = await import("../../lib/hosts/http.js");
  const { nodeHost } = await import("../../lib/hosts/stdio-server.js");
  const { webTimers } = await import("../../lib/hosts/web/runtime.js");
  const clocks = [
    ["HTTP client (nodeTimers)", nodeTimers.now],
    [
      "stdio (nodeHost)",
      nodeHost(
        () => undefined,
        () => undefined,
      ).now,
    ],
    ["fetch handler (webTimers)", webTimers.now],
  ] as const;
  for (const [name, now] of clocks) {
    const before = Date.now();
    const at = now();
    assert.ok(at >= before - 1000 && at <= Date.now() + 1000, `${name}: ${at} is not the epoch time ${before}`);
  }
});
