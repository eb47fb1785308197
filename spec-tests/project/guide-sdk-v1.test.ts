// docs/from-sdk-v1.md as a user reads it: every ```ts block compiles against the packed
// package's declarations (strict, skipLibCheck false, @types/node), with zod and valibot
// installed next to it, as the guide says. A block may declare what it uses without making
// it with an HTML comment before its fence: <!-- ts-prelude: declare const x: number; -->

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ROOT, STRICT_CONSUMER, linkPackages, packIntoConsumer, tsBlocks, typeCheck, type Packed } from "../support/package-harness.js";

const GUIDE = "docs/from-sdk-v1.md";
let packed: Packed;

before(() => {
  packed = packIntoConsumer();
  linkPackages(packed.consumer, ["@types/node", "zod", "valibot"]);
});

after(() => packed?.cleanup());

test("every ```ts block of docs/from-sdk-v1.md compiles against the packed declarations, with zod and valibot", () => {
  const blocks = tsBlocks(readFileSync(join(ROOT, GUIDE), "utf8"), GUIDE);
  assert.ok(blocks.length >= 10, `${GUIDE} has only ${blocks.length} ts blocks`);
  const sources: { [file: string]: string } = {};
  for (const block of blocks) sources[`guide/line-${block.line}.ts`] = `${block.prelude}\n${block.code}\nexport {};\n`;
  const result = typeCheck(
    packed.consumer,
    "guide",
    { ...STRICT_CONSUMER, lib: ["es2022"], types: ["node"], noUnusedLocals: false },
    sources,
  );
  assert.equal(result.status, 0, `${GUIDE} blocks do not compile (guide/line-N.ts is the block at line N):\n${result.output}`);
});

test("the guide maps each SDK v1 piece it promises: registerTool, resources and templates, prompts, transports, errors, testing", () => {
  const text = readFileSync(join(ROOT, GUIDE), "utf8");
  for (const sdk of [
    "registerTool",
    "registerResource",
    "ResourceTemplate",
    "registerPrompt",
    "StdioServerTransport",
    "StreamableHTTPServerTransport",
    "express",
    "McpError",
    "InMemoryTransport",
  ]) {
    assert.ok(text.includes(sdk), `${GUIDE} does not mention ${sdk}`);
  }
});
