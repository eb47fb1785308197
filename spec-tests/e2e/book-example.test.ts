// The book chapter's example server (spec-tests/fixtures-servers/book-server.ts, as printed:
// `new Server({ name, version })`, `server.tool(name, description, { query: {...} }, handler)`)
// run as a child process on stdio and driven by the official SDK v1 client
// (@modelcontextprotocol/sdk, a dev dependency): initialize sees its name and version, the tool
// is listed with its description and schema, a call answers, and a missing or mistyped `query`
// is a tool input validation error, an `isError` result (2025-11-25, which the SDK negotiates).
//
// The SDK is imported at run time by name, with the few types used declared here: its own
// declarations need the DOM and zod, which this build does not compile against.

import { test } from "node:test";
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { withTimeout } from "../support/helpers.js";

const SERVER = join(dirname(dirname(fileURLToPath(import.meta.url))), "fixtures-servers", "book-server.js");

interface SdkTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: unknown;
}
interface SdkCallResult {
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>;
  readonly isError?: boolean;
}
interface SdkClient {
  connect(transport: unknown): Promise<void>;
  getServerVersion(): { name: string; version: string } | undefined;
  listTools(): Promise<{ tools: SdkTool[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<SdkCallResult>;
  close(): Promise<void>;
}
type ClientClass = new (info: { name: string; version: string }) => SdkClient;
type TransportClass = new (options: { command: string; args: string[]; stderr: "pipe" | "inherit" }) => unknown;

async function sdk(): Promise<{ Client: ClientClass; StdioClientTransport: TransportClass }> {
  const client: string = "@modelcontextprotocol/sdk/client/index.js";
  const stdio: string = "@modelcontextprotocol/sdk/client/stdio.js";
  const [{ Client }, { StdioClientTransport }] = (await Promise.all([import(client), import(stdio)])) as [
    { Client: ClientClass },
    { StdioClientTransport: TransportClass },
  ];
  return { Client, StdioClientTransport };
}

function text(result: SdkCallResult): string {
  const first = result.content[0];
  assert.ok(first !== undefined && first.type === "text" && typeof first.text === "string", `a text block: ${JSON.stringify(result)}`);
  return first.text;
}

test("TL-01, L-03: the book's example, as printed, over stdio with the SDK v1 client: listed with its description and schema, called, a missing or mistyped query an isError result", async () => {
  const { Client, StdioClientTransport } = await sdk();
  const client = new Client({ name: "book-reader", version: "1.0.0" });
  await withTimeout(
    client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: "pipe" })),
    20_000,
    "connect",
  );
  try {
    assert.deepEqual(client.getServerVersion(), { name: "database-server", version: "1.0.0" });
    const { tools } = await withTimeout(client.listTools(), 10_000, "tools/list");
    assert.deepEqual(tools, [
      {
        name: "query_database",
        description: "데이터베이스를 쿼리합니다",
        inputSchema: { type: "object", properties: { query: { type: "string", description: "SQL 쿼리" } }, required: ["query"] },
      },
    ]);
    const answered = await withTimeout(client.callTool({ name: "query_database", arguments: { query: "SELECT 1" } }), 10_000, "call");
    assert.equal(answered.isError, undefined);
    assert.deepEqual(JSON.parse(text(answered)), [{ sql: "SELECT 1", rows: 0 }]);
    const missing = await withTimeout(client.callTool({ name: "query_database", arguments: {} }), 10_000, "call without query");
    assert.equal(missing.isError, true);
    assert.match(text(missing), /^Invalid arguments for tool query_database: .*query/);
    const mistyped = await withTimeout(client.callTool({ name: "query_database", arguments: { query: 1 } }), 10_000, "call with a number");
    assert.equal(mistyped.isError, true);
    assert.match(text(mistyped), /^Invalid arguments for tool query_database: \/query: /);
  } finally {
    await client.close();
  }
});
