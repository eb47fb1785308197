// The README's first screen, followed from a user's own project: `npm pack` of the built
// repository, `npm install ./mcp-engine-<version>.tgz` into an empty project (offline: the
// package has no dependencies), the README's server and client saved next to each other, and
// `node client.mjs`, which spawns the server and prints what the README's comments say. The
// README's two blocks are the files of examples/, byte for byte, and come first in it.

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ROOT, assertPackageBuilt, npm, run } from "../support/package-harness.js";

const EXAMPLES = ["server.mjs", "client.mjs"];
/** How far down README.md the client block may end: its first screen. */
const FIRST_SCREEN_LINES = 60;

let base: string;
let project: string;
let tarball: string;

before(() => {
  assertPackageBuilt();
  base = mkdtempSync(join(tmpdir(), "mcp-engine-examples-"));
  const packed = npm(["pack", "--json", "--ignore-scripts", "--offline", "--pack-destination", base], ROOT);
  assert.equal(packed.status, 0, `npm pack failed:\n${packed.output}`);
  const [entry] = JSON.parse(packed.output.slice(packed.output.indexOf("["), packed.output.lastIndexOf("]") + 1)) as Array<{
    filename: string;
  }>;
  assert.ok(entry !== undefined, packed.output);
  tarball = entry.filename;
  project = join(base, "your-project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "your-project", version: "1.0.0", private: true }));
});

after(() => rmSync(base, { recursive: true, force: true }));

/** The ```js blocks of README.md, with the line each ends on. */
function jsBlocks(markdown: string): Array<{ code: string; end: number }> {
  const lines = markdown.split("\n");
  const blocks: Array<{ code: string; end: number }> = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== "```js") continue;
    let end = i + 1;
    while (end < lines.length && lines[end] !== "```") end++;
    blocks.push({ code: `${lines.slice(i + 1, end).join("\n")}\n`, end: end + 1 });
    i = end;
  }
  return blocks;
}

test("README.md's first screen: the install commands for the packed tarball and the published name, then the server and the client of examples/", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  assert.ok(readme.includes(`npm pack`), "README says how to pack");
  assert.ok(readme.includes(`npm install ../mcp-engine/${tarball}`), `README installs ${tarball}, the file npm pack writes`);
  assert.ok(readme.includes("npm install mcp-engine"), "README names the published package");
  const blocks = jsBlocks(readme);
  assert.deepEqual(
    blocks.slice(0, 2).map((b) => b.code),
    EXAMPLES.map((file) => readFileSync(join(ROOT, "examples", file), "utf8")),
    "README's first two js blocks are examples/server.mjs and examples/client.mjs",
  );
  assert.ok(
    (blocks[1]?.end ?? Infinity) <= FIRST_SCREEN_LINES,
    `the client block ends on line ${blocks[1]?.end}, past line ${FIRST_SCREEN_LINES}`,
  );
  const lines = (file: string): number =>
    readFileSync(join(ROOT, "examples", file), "utf8")
      .trimEnd()
      .split("\n").length;
  assert.ok(lines("server.mjs") <= 15 && lines("client.mjs") <= 10, "a 15-line server and a 10-line client");
});

test("in an empty project: npm install of the packed tarball, then node client.mjs runs the README's server and prints what it says", () => {
  const installed = npm(["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", join("..", tarball)], project);
  assert.equal(installed.status, 0, `npm install failed:\n${installed.output}`);
  const manifest = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as { dependencies?: { [name: string]: string } };
  assert.match(manifest.dependencies?.["mcp-engine"] ?? "", /\.tgz$/);
  for (const file of EXAMPLES) writeFileSync(join(project, file), readFileSync(join(ROOT, "examples", file), "utf8"));
  const ran = run(process.execPath, ["client.mjs"], project);
  assert.equal(ran.status, 0, `node client.mjs failed:\n${ran.output}`);
  assert.equal(ran.output, "demo 2025-11-25\n[ 'add' ]\n[ { type: 'text', text: '3' } ]\n");
});
