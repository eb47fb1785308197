// The test command behind `npm test` and `npm run test:long`: finds the *.test.js files under
// the compiled spec-tests folder (subfolders included) and runs them in one `node --test`, with
// unhandled promise rejections fatal. It exists because `node --test DIR` stopped accepting a
// directory in Node 22, and a glob argument is expanded by `node --test` only from Node 21 on:
// an explicit file list behaves the same on 20, 22 and 24.
//
// Two suites, told apart by the file name: a long run (the corpus against known-bad and foreign
// servers, the SDK servers, Bun/Deno/workerd, the Redis soak, the HTTP load, the 30,000-call
// burst, one probe per target profile) is a `*.long.test.js`; everything else is the quick
// suite that `npm test` runs under coverage, many times a day. `npm run test:long` runs the long
// files; .ci/run runs both.
//
// Usage: node dist/spec-tests/run.js [--long | --all] [FILE-OR-DIR ...]   (default: the folder of this file)
//   (none)  the quick suite: every *.test.js but the *.long.test.js
//   --long  the long runs only: every *.long.test.js
//   --all   both
//
// Invariants:
// - only names ending in ".test.js" run (helpers, fixtures, maps and .d.ts do not), and a
//   directory's files are chosen by the suite; a file named on the command line runs as it is;
// - the order is sorted, so two runs see the same file list;
// - Node flags given to this script (c8, --expose-gc) reach the test processes too;
// - files run two at a time at least (--test-concurrency, where the Node version has it): the
//   default, one less than the cores, runs one file at a time on a 2-core machine, while most
//   files spend their time waiting on the processes and sockets they start (twice as fast
//   measured here); `node --test-concurrency=1 dist/spec-tests/run.js` runs one at a time;
// - the exit code is the test run's (1 when it was killed by a signal or finds nothing).

import { spawn } from "node:child_process";
import { availableParallelism } from "node:os";
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const STRICT = "--unhandled-rejections=strict";

/** --test-concurrency, unless given (it came in Node 20.10): at least two files at a time. */
function concurrency(execArgv: readonly string[]): string[] {
  if (execArgv.some((flag) => flag.startsWith("--test-concurrency"))) return [];
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  if (major < 20 || (major === 20 && minor < 10)) return [];
  return [`--test-concurrency=${Math.max(2, availableParallelism() - 1)}`];
}

/** Which test files a run takes: the quick suite (npm test), the long runs (npm run test:long), or both. */
export type Suite = "quick" | "long" | "all";

const LONG = ".long.test.js";

/** Whether the file `name` belongs to `suite`. */
export function inSuite(name: string, suite: Suite): boolean {
  if (!name.endsWith(".test.js")) return false;
  return suite === "all" || (suite === "long") === name.endsWith(LONG);
}

/** Every *.test.js of `suite` at or below `path`, sorted; a file path is taken as it is. */
export function testFiles(path: string, suite: Suite = "quick"): string[] {
  if (!statSync(path).isDirectory()) return [path];
  const found: string[] = [];
  for (const name of readdirSync(path).sort()) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const full = join(path, name);
    if (statSync(full).isDirectory()) found.push(...testFiles(full, suite));
    else if (inSuite(name, suite)) found.push(full);
  }
  return found;
}

function main(): void {
  const args = process.argv.slice(2);
  const suite: Suite = args.includes("--all") ? "all" : args.includes("--long") ? "long" : "quick";
  const paths = args.filter((arg) => arg !== "--long" && arg !== "--all");
  const roots = paths.length > 0 ? paths : [dirname(fileURLToPath(import.meta.url))];
  const files = roots.flatMap((root) => testFiles(root, suite));
  if (files.length === 0) {
    console.error(`run.js: no ${suite === "long" ? "*.long.test.js" : "*.test.js"} file under ${roots.join(", ")}`);
    process.exitCode = 1;
    return;
  }
  const flags = process.execArgv.includes(STRICT) ? process.execArgv : [...process.execArgv, STRICT];
  const child = spawn(process.execPath, [...flags, ...concurrency(flags), "--test", ...files], {
    stdio: ["inherit", "inherit", "inherit"],
  });
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
