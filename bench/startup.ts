// Startup: how long from spawning a stdio server until its answer to `initialize` arrives.
// Contenders, spawned in turns (one of each per round, the order rotating), on this machine:
//   bare       a node script that answers the first line with an initialize result (the floor:
//              node's own start, nothing loaded; bench/startup-bare-child.ts)
//   serve      `mcp-engine serve` (dist/package/cli/main.js, as installed: the bundled package,
//              spec-tests/tools/package-bundle.ts)
//   minimal    a peer Server with one tool over serveStdio, from the package's entries
//              (bench/startup-minimal-child.ts)
// Printed: the median ms of each and its ratio to bare's median (target: serve within 1.5 x).
// `npm run bench:startup` (after `npm run build`); `-- --rounds N` (default 15). Prints figures,
// never fails on them.

import { spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { median } from "./run.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "../..");

const INITIALIZE = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "startup-bench", version: "1.0.0" } },
})}\n`;

interface Contender {
  readonly name: string;
  readonly args: readonly string[];
}

const CONTENDERS: readonly Contender[] = [
  { name: "bare node", args: [resolve(HERE, "startup-bare-child.js")] },
  { name: "mcp-engine serve", args: [resolve(ROOT, "dist/package/cli/main.js"), "serve"] },
  { name: "minimal Server", args: [resolve(HERE, "startup-minimal-child.js")] },
];

/** ms from spawn to the first line of stdout that answers id 1. */
function timeToInitialize(args: readonly string[]): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [...args], { stdio: ["pipe", "pipe", "inherit"] });
    let seen = "";
    child.stdout!.on("data", (chunk: Uint8Array) => {
      seen += new TextDecoder().decode(chunk);
      if (!seen.includes("\n")) return;
      const elapsed = performance.now() - start;
      if (!seen.includes('"id":1')) reject(new Error(`unexpected answer: ${seen.slice(0, 200)}`));
      else resolvePromise(elapsed);
      child.kill();
    });
    child.on("error", reject);
    // Written at once: the pipe holds it until the child reads.
    child.stdin!.write(INITIALIZE);
  });
}

export async function run(rounds = 15): Promise<void> {
  const samples = new Map<string, number[]>(CONTENDERS.map((c) => [c.name, []]));
  // One unmeasured round: the files into the page cache.
  for (const contender of CONTENDERS) await timeToInitialize(contender.args);
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < CONTENDERS.length; i++) {
      const contender = CONTENDERS[(round + i) % CONTENDERS.length]!;
      samples.get(contender.name)!.push(await timeToInitialize(contender.args));
    }
  }
  const bare = median(samples.get("bare node")!);
  console.log(`startup: spawn to the initialize answer over stdio, median of ${rounds} (node ${process.versions.node})`);
  for (const contender of CONTENDERS) {
    const ms = median(samples.get(contender.name)!);
    console.log(`  ${contender.name.padEnd(18)} ${ms.toFixed(1).padStart(7)} ms   ${(ms / bare).toFixed(2)} x bare node`);
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf("--rounds");
  await run(at > 0 ? Number(process.argv[at + 1]) : undefined);
}
