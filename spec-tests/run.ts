// The test command behind `npm test`: finds every *.test.js under the compiled spec-tests
// folder (subfolders included) and runs them in one `node --test`, with unhandled promise
// rejections fatal. It exists because `node --test DIR` stopped accepting a directory in
// Node 22, and a glob argument is expanded by `node --test` only from Node 21 on: an explicit
// file list behaves the same on 20, 22 and 24.
//
// Usage: node dist/spec-tests/run.js [FILE-OR-DIR ...]   (default: the folder of this file)
//
// Invariants:
// - only names ending in ".test.js" run (helpers, fixtures, maps and .d.ts do not);
// - the order is sorted, so two runs see the same file list;
// - Node flags given to this script (c8, --expose-gc) reach the test processes too;
// - the exit code is the test run's (1 when it was killed by a signal or finds nothing).

import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const STRICT = "--unhandled-rejections=strict";

/** Every *.test.js at or below `path`, sorted; a file path is taken as it is. */
export function testFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  const found: string[] = [];
  for (const name of readdirSync(path).sort()) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const full = join(path, name);
    if (statSync(full).isDirectory()) found.push(...testFiles(full));
    else if (name.endsWith(".test.js")) found.push(full);
  }
  return found;
}

function main(): void {
  const roots = process.argv.length > 2 ? process.argv.slice(2) : [dirname(fileURLToPath(import.meta.url))];
  const files = roots.flatMap(testFiles);
  if (files.length === 0) {
    console.error(`run.js: no *.test.js file under ${roots.join(", ")}`);
    process.exitCode = 1;
    return;
  }
  const flags = process.execArgv.includes(STRICT) ? process.execArgv : [...process.execArgv, STRICT];
  const child = spawn(process.execPath, [...flags, "--test", ...files], { stdio: ["inherit", "inherit", "inherit"] });
  child.on("error", (error) => {
    console.error(`run.js: could not start ${process.execPath}: ${error.message}`);
    process.exitCode = 1;
  });
  child.on("exit", (code) => {
    process.exitCode = code ?? 1;
  });
}

// Imported (by a test of the discovery) it only exports; run as a script it runs the suite.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main();
