// The packed package's types in a user's project, under each set of platform declarations a
// project may have: @types/node 20, 22 and 24, the DOM library alone, and the DOM with
// @types/node 24. Compiled there (strict, skipLibCheck false): what users write first and what
// failed to compile before (ctx.signal handed to fetch, a signal of the platform's passed to a
// call, connectHttpNode's OAuth options, jwtAccessTokenVerifier and RequestStateSealer with the
// platform's crypto), the README's server and client (examples/*.mjs, as TypeScript), and every
// ```ts block of README.md and docs/*.md. Under the DOM alone, a block that uses Node's own
// modules or globals (node:*, process, Buffer, redis) is left to the @types/node variants.
//
// @types/node 20 and 22 are dev dependencies under aliases (@types/node20, @types/node22; 24 is
// @types/node itself), so nothing is fetched at test time; MCP_TEST_NODE_TYPES may name another
// node_modules folder that holds the aliases (a scratch install).

import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  DOCS_PRELUDE,
  ROOT,
  STRICT_CONSUMER,
  linkPackages,
  packIntoConsumer,
  tsBlocks,
  typeCheck,
  type Packed,
} from "../support/package-harness.js";

interface Variant {
  readonly name: string;
  /** The folder under node_modules that holds this variant's @types/node; none: no Node types. */
  readonly nodeTypes: string | undefined;
  readonly options: { readonly [option: string]: unknown };
}

const DOM = ["es2022", "dom", "dom.iterable"];
const VARIANTS: readonly Variant[] = [
  { name: "node20", nodeTypes: "@types/node20", options: { lib: ["es2022"], types: ["node"] } },
  { name: "node22", nodeTypes: "@types/node22", options: { lib: ["es2022"], types: ["node"] } },
  { name: "node24", nodeTypes: "@types/node", options: { lib: ["es2022"], types: ["node"] } },
  { name: "dom", nodeTypes: undefined, options: { lib: DOM, types: [], module: "esnext", moduleResolution: "bundler" } },
  { name: "dom-node24", nodeTypes: "@types/node", options: { lib: DOM, types: ["node"] } },
];

/** What a block (or its prelude) uses of Node itself; such a block is compiled under the @types/node variants only. */
const USES_NODE = /"node:|\bprocess\.|\bBuffer\b|from "redis"/;

// The calls that needed `as any` in a user's project before, each once.
const USES = `import { Server, RequestStateSealer, type HandlerContext } from "mcp-engine/peer";
import { connectHttpNode } from "mcp-engine/hosts/http";
import { jwtAccessTokenVerifier, protectedResource, type WebCryptoLike } from "mcp-engine/auth";

const server = new Server({ name: "types", version: "1.0.0" });
server.tool("fetch_page", "Fetches a page", { url: { type: "string" } }, async (args, ctx) => {
  const response = await fetch(args.url, { signal: ctx.signal });
  const signal: AbortSignal = ctx.signal;
  signal.throwIfAborted();
  return { content: [{ type: "text", text: await response.text() }] };
});
export const signalOf = (ctx: HandlerContext): AbortSignal => AbortSignal.any([ctx.signal, AbortSignal.timeout(1000)]);

export const crypto: WebCryptoLike = globalThis.crypto;
export const verify = jwtAccessTokenVerifier({
  crypto: globalThis.crypto,
  jwks: { keys: [] },
  issuer: "https://auth.example.com",
  audience: "https://mcp.example.com/mcp",
  now: () => Date.now(),
});
export const resource = protectedResource({ resource: "https://mcp.example.com/mcp", authorizationServers: ["https://auth.example.com"], verify });
export const sealer = new RequestStateSealer({ secret: globalThis.crypto.getRandomValues(new Uint8Array(32)), subtle: globalThis.crypto.subtle });

export async function login(openBrowser: (url: string) => Promise<string>): Promise<number> {
  const connection = await connectHttpNode({
    url: "https://mcp.example.com/mcp",
    info: { name: "types", version: "1.0.0" },
    auth: { redirectUri: "http://127.0.0.1:8765/callback", clientMetadata: { client_name: "types" }, onRedirect: openBrowser, crypto: globalThis.crypto },
  });
  const controller = new AbortController();
  await connection.client.callTool("fetch_page", { url: "https://example.com" }, { signal: controller.signal });
  await connection.client.callTool("fetch_page", { url: "https://example.com" }, { signal: AbortSignal.timeout(1000) });
  connection.client.setRequestHandler("sampling/createMessage", async (params, ctx) => {
    const reply = await fetch("https://llm.example.com", { method: "POST", body: JSON.stringify(params.messages), signal: ctx.signal });
    return { role: "assistant", model: "m", content: { type: "text", text: await reply.text() } };
  });
  return (await connection.client.listTools()).length;
}
`;

let packed: Packed;

before(() => {
  packed = packIntoConsumer();
  // The libraries the docs' blocks import, as a user brings them (dev dependencies here).
  linkPackages(packed.consumer, ["zod", "valibot", "redis"]);
});

after(() => packed?.cleanup());

/** Where an @types/node alias is installed: MCP_TEST_NODE_TYPES's folder, else this project's node_modules. */
function nodeTypesDir(folder: string): string {
  const candidates = [process.env.MCP_TEST_NODE_TYPES, join(ROOT, "node_modules")].filter((dir): dir is string => dir !== undefined);
  const found = candidates.map((dir) => join(dir, folder)).find((dir) => existsSync(join(dir, "package.json")));
  assert.ok(
    found !== undefined,
    `${folder} is not installed: it is a dev dependency (package.json: "@types/node20": "npm:@types/node@20.19.43", "@types/node22": "npm:@types/node@22.20.7"; npm ci installs them)`,
  );
  return found;
}

/** Every ```ts block of README.md and docs/*.md, and the examples, each a module of its own. */
function sources(dom: boolean): { files: { [file: string]: string }; left: string[] } {
  const files: { [file: string]: string } = { "prelude.d.ts": DOCS_PRELUDE, "uses.ts": USES };
  const left: string[] = [];
  for (const example of ["server", "client"])
    files[`examples-${example}.ts`] = readFileSync(join(ROOT, "examples", `${example}.mjs`), "utf8");
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`);
  for (const doc of ["README.md", ...docs]) {
    const stem = doc.replace(/\.md$/, "").replace("/", "-");
    for (const block of tsBlocks(readFileSync(join(ROOT, doc), "utf8"), doc)) {
      if (dom && USES_NODE.test(`${block.prelude}\n${block.code}`)) {
        left.push(`${doc}:${block.line}`);
        continue;
      }
      files[`${stem}-line-${block.line}.ts`] = `${block.prelude}\n${block.code}\nexport {};\n`;
    }
  }
  return { files, left };
}

for (const variant of VARIANTS) {
  test(`the docs' blocks, the examples and the platform-typed calls compile in a user's project under ${variant.name}`, (t) => {
    const dir = join(packed.consumer, variant.name);
    mkdirSync(join(dir, "node_modules", "@types"), { recursive: true });
    if (variant.nodeTypes !== undefined) symlinkSync(nodeTypesDir(variant.nodeTypes), join(dir, "node_modules", "@types", "node"), "dir");
    const { files, left } = sources(variant.nodeTypes === undefined);
    assert.ok(Object.keys(files).length >= 30, `only ${Object.keys(files).length} files to compile`);
    // The tsconfig in the variant's folder: its node_modules/@types is the first the compiler looks in.
    const result = typeCheck(dir, variant.name, { ...STRICT_CONSUMER, noUnusedLocals: false, ...variant.options }, files);
    if (left.length > 0) t.diagnostic(`left to the @types/node variants (Node's own modules or globals): ${left.join(", ")}`);
    assert.equal(result.status, 0, `tsc under ${variant.name} reported (<doc>-line-N.ts is the block at line N):\n${result.output}`);
  });
}
