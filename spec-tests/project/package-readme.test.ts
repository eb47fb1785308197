// The README and docs/ as a user reads them: every ```ts block of README.md and of docs/*.md
// compiles against the packed package's declarations (strict, skipLibCheck false,
// @types/node; docs/from-sdk-v1.md has a test of its own, guide-sdk-v1.test.ts; the README's
// first-screen server and client are ```js blocks, the files of examples/, which
// package-examples.test.ts runs and package-types.test.ts compiles), and what
// docs/guide.md says in "Errors on the wire", "Which versions a Server speaks" and "Paging"
// is what goes on the wire.
//
// A block may use host objects it does not create (the engine example's `transport` and
// `armTimer`): PRELUDE declares those for every block, and a block may add its own with an
// HTML comment on the line before its fence: <!-- ts-prelude: declare const x: number; -->

import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { MODERN_VERSIONS, SESSION_VERSIONS } from "../../lib/rules/versions.js";
import { McpError } from "../../lib/peer/shared/errors.js";
import { Pair, pagedBy } from "../support/peer-harness.js";
import {
  ROOT,
  STRICT_CONSUMER,
  linkPackages,
  linkTypesNode,
  packIntoConsumer,
  tsBlocks,
  typeCheck,
  DOCS_PRELUDE as PRELUDE,
  type Packed,
} from "../support/package-harness.js";
import { mcpError } from "../support/helpers.js";

let packed: Packed;

before(() => {
  packed = packIntoConsumer();
  linkTypesNode(packed.consumer);
  // The typed-tool and Redis examples import the libraries a user brings (dev dependencies here).
  linkPackages(packed.consumer, ["zod", "redis"]);
});

after(() => packed?.cleanup());

test("block extraction: ```ts fences only, their line numbers, and a ts-prelude comment before one", () => {
  const markdown = [
    "# t",
    "```sh",
    "npm test",
    "```",
    "<!-- ts-prelude: declare const x: number; -->",
    "```ts",
    "const y = x;",
    "```",
    "```ts",
    "export {};",
    "```",
  ].join("\n");
  assert.deepEqual(tsBlocks(markdown), [
    { line: 7, code: "const y = x;", prelude: "declare const x: number;" },
    { line: 10, code: "export {};", prelude: "" },
  ]);
});

/** README.md and every docs/*.md but the SDK guide, which guide-sdk-v1.test.ts compiles with valibot. */
function documents(): string[] {
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md") && name !== "from-sdk-v1.md")
    .sort();
  return ["README.md", ...docs.map((name) => `docs/${name}`)];
}

test("every ```ts block of README.md and docs/*.md compiles against the packed declarations (strict, skipLibCheck false, @types/node)", () => {
  const sources: { [file: string]: string } = { "docs-blocks/prelude.d.ts": PRELUDE };
  let count = 0;
  for (const doc of documents()) {
    const blocks = tsBlocks(readFileSync(join(ROOT, doc), "utf8"), doc);
    count += blocks.length;
    // Each block is a module of its own (`export {}`), so two blocks may both declare `server`.
    const stem = doc.replace(/\.md$/, "").replace("/", "-");
    for (const block of blocks) sources[`docs-blocks/${stem}-line-${block.line}.ts`] = `${block.prelude}\n${block.code}\nexport {};\n`;
  }
  assert.ok(count >= 15, `README.md and docs/ hold only ${count} ts blocks`);
  const result = typeCheck(
    packed.consumer,
    "docs-blocks",
    { ...STRICT_CONSUMER, lib: ["es2022"], types: ["node"], noUnusedLocals: false },
    sources,
  );
  // tsc names the file of each error: docs-blocks/<doc>-line-N.ts is the block that starts on line N of <doc>.
  assert.equal(
    result.status,
    0,
    `blocks do not compile (docs-blocks/<doc>-line-N.ts is the block at line N of README.md or docs/<doc>.md):\n${result.output}`,
  );
});

// ---- what docs/guide.md says in "Errors on the wire" ---------------------------------------

/** The answer the server wrote to the request `id`. */
function answer(pair: Pair, id: unknown): Record<string, unknown> {
  const found = pair.serverHost.sent.find((m) => m.id === id && ("result" in m || "error" in m));
  assert.ok(found !== undefined, `no answer to ${String(id)} in ${JSON.stringify(pair.serverHost.sent)}`);
  return found;
}

/** The id of the last request the client wrote. */
function lastRequestId(pair: Pair): unknown {
  const requests = pair.clientHost.sent.filter((m) => "method" in m && "id" in m);
  return requests[requests.length - 1]?.id;
}

function failing(): Pair {
  return new Pair({
    setup: (server) => {
      server.tool("throws-error", {}, () => {
        throw new Error("disk full");
      });
      server.tool("throws-mcp-error", {}, async () => {
        throw new McpError(-32602, "size must be positive", { field: "size" });
      });
      server.tool("typed", { inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } }, () => ({
        content: [],
      }));
      server.resource("file:///gone", { name: "gone" }, () => {
        throw new Error("file vanished");
      });
      server.prompt("refuses", {}, () => {
        throw new McpError(-32001, "not today", { retry: false });
      });
    },
  });
}

test("a tool's thrown Error is an isError result carrying only its message; the call resolves", async () => {
  const pair = failing();
  await pair.connect();
  const calling = pair.client.callTool("throws-error");
  await pair.settle();
  assert.deepEqual(await calling, { content: [{ type: "text", text: "disk full" }], isError: true });
  assert.deepEqual(answer(pair, lastRequestId(pair)).result, { content: [{ type: "text", text: "disk full" }], isError: true });
  assert.doesNotMatch(JSON.stringify(pair.serverHost.sent), /at .*\.js:\d+/, "no stack trace on the wire");
});

test("a tool's thrown McpError is a JSON-RPC error with its code, message and data; the client rejects with an McpError", async () => {
  const pair = failing();
  await pair.connect();
  const calling = mcpError(pair.client.callTool("throws-mcp-error"), -32602);
  await pair.settle();
  const error = await calling;
  assert.equal(error.message, "MCP error -32602: size must be positive");
  assert.deepEqual(error.data, { field: "size" });
  assert.deepEqual(answer(pair, lastRequestId(pair)).error, { code: -32602, message: "size must be positive", data: { field: "size" } });
});

test("outside tools, a thrown Error is -32603 with its message and a thrown McpError keeps its code and data", async () => {
  const pair = failing();
  await pair.connect();
  const reading = mcpError(pair.client.readResource("file:///gone"), -32603);
  await pair.settle();
  await reading;
  assert.deepEqual(answer(pair, lastRequestId(pair)).error, { code: -32603, message: "file vanished" });
  const prompting = mcpError(pair.client.getPrompt("refuses"), -32001);
  await pair.settle();
  assert.deepEqual((await prompting).data, { retry: false });
  assert.deepEqual(answer(pair, lastRequestId(pair)).error, { code: -32001, message: "not today", data: { retry: false } });
});

test("refusals before any handler: an unknown tool is -32602, arguments against the inputSchema an isError result", async () => {
  const pair = failing();
  await pair.connect();
  const unknown = mcpError(pair.client.callTool("no-such-tool"), -32602);
  await pair.settle();
  await unknown;
  const invalid = pair.client.callTool("typed", { n: "three" });
  await pair.settle();
  const result = await invalid;
  assert.equal(result.isError, true);
  assert.match(JSON.stringify(result.content), /Invalid arguments for tool typed/);
});

// ---- what docs/guide.md says in "Which versions a Server speaks" and "Paging" -------------

test("a Server without versions speaks the session era only: server/discover is -32601 and a dual-era client falls back to initialize", async () => {
  const pair = new Pair({ client: { versions: [...SESSION_VERSIONS, ...MODERN_VERSIONS] } });
  const connected = await pair.connect();
  assert.equal(connected.era, "session");
  assert.equal(connected.version, "2025-11-25");
  const discover = pair.clientHost.sent.find((m) => m.method === "server/discover");
  assert.ok(discover !== undefined, "the dual-era client probed with server/discover");
  assert.equal((answer(pair, discover.id).error as { code: number }).code, -32601);
});

test("a Server whose versions include 2026-07-28 is dual-era: the same client settles on 2026-07-28", async () => {
  const versions = [...SESSION_VERSIONS, ...MODERN_VERSIONS];
  const pair = new Pair({ server: { versions }, client: { versions } });
  const connected = await pair.connect();
  assert.equal(connected.era, "modern");
  assert.equal(connected.version, "2026-07-28");
});

test("a list cursor is sealed: the next page follows from the issued one, an edited one is -32602", async () => {
  const pair = new Pair({
    server: { paging: pagedBy(1) },
    setup: (server) => {
      for (const name of ["a", "b"]) server.tool(name, {}, () => ({ content: [] }));
    },
  });
  await pair.connect();
  const first = pair.client.request("tools/list", {});
  await pair.settle();
  const cursor = (await first).nextCursor;
  assert.ok(typeof cursor === "string" && cursor.includes("."), `a sealed cursor, got ${String(cursor)}`);
  const second = pair.client.request("tools/list", { cursor });
  await pair.settle();
  assert.deepEqual(
    ((await second).tools as Array<{ name: string }>).map((t) => t.name),
    ["b"],
  );
  const [payload, mac] = cursor.split(".") as [string, string];
  // The first character carries the top bits of the first byte, so the payload really changes.
  const forged = `${payload.startsWith("e") ? "f" : "e"}${payload.slice(1)}.${mac}`;
  const refused = mcpError(pair.client.request("tools/list", { cursor: forged }), -32602);
  await pair.settle();
  await refused;
});
