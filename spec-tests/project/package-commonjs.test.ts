// The package from CommonJS. It is ESM only; `require("mcp-engine")` works on the runtimes
// that load ES modules from require() (Node 20.19+, 22.12+ and 23+; the package loads no
// module with top-level await, which require() could not take), and fails with
// ERR_REQUIRE_ESM on older ones: README.md and docs/hosts.md say so, and this test holds
// either way on the Node that runs it. A CommonJS TypeScript project compiles against the
// declarations under module node20 / nodenext (TypeScript 5.8+, which models require(esm)).

import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { STRICT_CONSUMER, packIntoConsumer, run, typeCheck, type Packed } from "../support/package-harness.js";

/** True where require() loads ES modules without a flag: Node 20.19+, 22.12+, 23 and later. */
function requiresEsm(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
  return major >= 23 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19);
}

// lib/hosts/node.d.ts declares only what lib/ reads of process.
const NODE_VERSION = (process as unknown as { version: string }).version;

let packed: Packed;
let cjs: string;

before(() => {
  packed = packIntoConsumer();
  // A CommonJS project: its package.json has no "type": "module".
  cjs = join(packed.consumer, "cjs");
  mkdirSync(cjs);
  writeFileSync(join(cjs, "package.json"), JSON.stringify({ name: "cjs-consumer", private: true }));
});

after(() => packed?.cleanup());

test("the require(esm) floor: Node 20.19+, 22.12+, 23 and later", () => {
  assert.deepEqual(["v20.18.3", "v20.19.0", "v21.7.3", "v22.11.0", "v22.12.0", "v23.0.0", "v24.1.0"].map(requiresEsm), [
    false,
    true,
    false,
    false,
    true,
    true,
    true,
  ]);
});

const REQUIRE_EVERY_ENTRY = `
const loaded = {};
for (const entry of Object.keys(require("./entries.json"))) loaded[entry] = Object.keys(require(entry)).length;
const { Server } = require("mcp-engine/peer");
const server = new Server({ name: "from-commonjs", version: "1.0.0" });
server.tool("echo", { text: { type: "string" } }, (args) => ({ content: [{ type: "text", text: args.text }] }));
process.stdout.write(JSON.stringify({ loaded, tools: server.tools.size }));
`;

test(`require("mcp-engine") and every entry of exports from CommonJS on ${NODE_VERSION}: ${requiresEsm(NODE_VERSION) ? "loaded" : "refused with ERR_REQUIRE_ESM"}`, () => {
  const entries = Object.keys(packed.manifest.exports).map((entry) => (entry === "." ? "mcp-engine" : `mcp-engine/${entry.slice(2)}`));
  writeFileSync(join(cjs, "entries.json"), JSON.stringify(Object.fromEntries(entries.map((e) => [e, true]))));
  writeFileSync(join(cjs, "require.js"), REQUIRE_EVERY_ENTRY);
  const result = run(process.execPath, ["require.js"], cjs);
  if (!requiresEsm(NODE_VERSION)) {
    assert.notEqual(result.status, 0);
    assert.match(result.output, /ERR_REQUIRE_ESM/);
    return;
  }
  assert.equal(result.status, 0, result.output);
  assert.doesNotMatch(result.output, /ExperimentalWarning/, "no warning printed for a supported use");
  const outcome = JSON.parse(result.output) as { loaded: { [entry: string]: number }; tools: number };
  assert.deepEqual(Object.keys(outcome.loaded), entries);
  for (const [entry, count] of Object.entries(outcome.loaded)) assert.ok(count > 0, `${entry} exports nothing through require()`);
  assert.equal(outcome.tools, 1);
});

test("a CommonJS TypeScript file (.cts) compiles against the declarations under module nodenext and node20", () => {
  const source = `import { Server } from "mcp-engine/peer";
import { Engine, SESSION_VERSIONS } from "mcp-engine";
export const server = new Server({ name: "cjs", version: "1.0.0", versions: SESSION_VERSIONS });
export const engine: typeof Engine = Engine;
`;
  for (const module of ["nodenext", "node20"]) {
    const result = typeCheck(
      packed.consumer,
      `cjs-${module}`,
      { ...STRICT_CONSUMER, module, moduleResolution: "nodenext", lib: ["es2022"], types: [] },
      { [`cjs/uses-${module}.cts`]: source },
    );
    assert.equal(result.status, 0, `module ${module}: tsc reported:\n${result.output}`);
  }
});
