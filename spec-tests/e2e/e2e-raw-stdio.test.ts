// The reference server over stdio, driven with raw bytes as foreign clients send them: a
// leading byte order mark, a server/discover probe followed by initialize on the same
// connection (the in-place fallback other SDKs' clients use), and an over-long request line
// answered with its own id. No peer layer on the client side: what goes over the pipe is
// exactly what a test writes.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { withTimeout } from "../support/helpers.js";

const MAIN = new URL("../../lib/cli/main.js", import.meta.url).pathname;

interface Conversation {
  send(bytes: Uint8Array | string): void;
  /** The next `count` JSON lines the server writes (bounded wait). */
  read(count: number): Promise<Array<Record<string, unknown>>>;
  end(): Promise<number | null>;
}

function serve(args: readonly string[] = []): Conversation {
  const child = spawn(process.execPath, [MAIN, "serve", ...args], { stdio: ["pipe", "pipe", "pipe"] });
  const lines: string[] = [];
  let partial = "";
  let wake: (() => void) | undefined;
  const decoder = new TextDecoder();
  child.stdout.on("data", (chunk: Uint8Array) => {
    partial += decoder.decode(chunk, { stream: true });
    const parts = partial.split("\n");
    partial = parts.pop() ?? "";
    lines.push(...parts.filter((l) => l.length > 0));
    wake?.();
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return {
    send: (bytes) => child.stdin.write(bytes),
    read: (count) =>
      withTimeout(
        (async () => {
          while (lines.length < count) await new Promise<void>((resolve) => (wake = resolve));
          return lines.splice(0, count).map((l) => JSON.parse(l) as Record<string, unknown>);
        })(),
        10_000,
        `${count} line(s) from mcp-engine serve`,
      ),
    end: () => {
      child.stdin.end();
      return withTimeout(exited, 10_000, "mcp-engine serve exit");
    },
  };
}

const line = (value: unknown): string => `${JSON.stringify(value)}\n`;
const initialize = (id: number, version = "2025-11-25"): string =>
  line({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });

test("a UTF-8 byte order mark before the first message is accepted (stdio)", async () => {
  const server = serve();
  server.send(new Uint8Array([0xef, 0xbb, 0xbf]));
  server.send(initialize(1));
  const [reply] = await server.read(1);
  assert.equal((reply?.result as Record<string, unknown> | undefined)?.protocolVersion, "2025-11-25", JSON.stringify(reply));
  assert.equal(await server.end(), 0);
});

test("server/discover naming an unknown version, then initialize on the same connection: a 2025-11-25 session (stdio)", async () => {
  const server = serve();
  server.send(
    line({
      jsonrpc: "2.0",
      id: 1,
      method: "server/discover",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2027-01-01", "io.modelcontextprotocol/clientCapabilities": {} } },
    }),
  );
  const [probe] = await server.read(1);
  const supported =
    ((probe?.error as Record<string, unknown> | undefined)?.data as Record<string, unknown> | undefined)?.supported ??
    (probe?.result as Record<string, unknown> | undefined)?.supportedVersions;
  assert.ok(Array.isArray(supported) && supported.includes("2025-11-25"), JSON.stringify(probe));
  server.send(initialize(2));
  const [init] = await server.read(1);
  assert.equal((init?.result as Record<string, unknown> | undefined)?.protocolVersion, "2025-11-25", JSON.stringify(init));
  server.send(line({ jsonrpc: "2.0", method: "notifications/initialized" }));
  server.send(line({ jsonrpc: "2.0", id: 3, method: "tools/list" }));
  const [tools] = await server.read(1);
  assert.ok(Array.isArray((tools?.result as Record<string, unknown> | undefined)?.tools), JSON.stringify(tools));
  assert.equal(await server.end(), 0);
});

test("an over-long request line is refused with its own id and the connection goes on (stdio)", async () => {
  const server = serve();
  server.send(initialize(1));
  await server.read(1);
  server.send(line({ jsonrpc: "2.0", method: "notifications/initialized" }));
  const huge = "x".repeat(9 * 1024 * 1024);
  server.send(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"${huge}"}},"id":"big-1"}\n`);
  server.send(line({ jsonrpc: "2.0", id: 2, method: "ping" }));
  const [refusal, pong] = await server.read(2);
  assert.equal(refusal?.id, "big-1");
  assert.equal((refusal?.error as Record<string, unknown> | undefined)?.code, -32600);
  assert.deepEqual(pong, { jsonrpc: "2.0", id: 2, result: {} });
  assert.equal(await server.end(), 0);
});
