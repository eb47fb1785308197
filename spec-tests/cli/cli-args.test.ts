// The command line (lib/cli/args.ts, main.ts), the roots it offers (roots.ts) and the
// pending-call display (progress.ts): unknown options are refused with one line and exit 2
// and never spawned, --version reads package.json, --help prints the usage, --root makes
// absolute file:// URIs, and progress shows as a live line on a terminal, plain lines elsewhere.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { DEFAULT_TIMEOUT_MS, parseArgs, type CliOptions } from "../../lib/cli/args.js";
import { describeProgress, pendingDisplay } from "../../lib/cli/progress.js";
import { rootProblem, rootsFor } from "../../lib/cli/roots.js";
import { runNode } from "../support/helpers.js";

const here = fileURLToPath(new URL("..", import.meta.url)); // the spec-tests folder
const MAIN = join(here, "..", "lib", "cli", "main.js");
const ROOT = join(here, "..", "..");

function parsed(argv: string[]): CliOptions {
  const result = parseArgs(argv);
  assert.ok(result.ok, `${argv.join(" ")}: ${result.ok ? "" : result.problem}`);
  return result.options;
}

function refused(argv: string[]): string {
  const result = parseArgs(argv);
  assert.equal(result.ok, false, argv.join(" "));
  return result.ok ? "" : result.problem;
}

test("client options before -- are ours; everything after it is the server command, untouched", () => {
  const options = parsed([
    "client",
    "--timeout",
    "5000",
    "--root",
    "a",
    "--root=b",
    "--era",
    "session",
    "--call-destructive",
    "--",
    "npx",
    "-y",
    "server",
    "--timeout",
    "1",
  ]);
  assert.equal(options.timeoutMs, 5000);
  assert.deepEqual(options.roots, ["a", "b"]);
  assert.equal(options.era, "session");
  assert.equal(options.callDestructive, true);
  assert.deepEqual(options.target, { kind: "stdio", command: "npx", args: ["-y", "server", "--timeout", "1"] });
  // Without --, the first word that is not an option starts the command.
  assert.deepEqual(parsed(["client", "node", "server.js", "--flag"]).target, {
    kind: "stdio",
    command: "node",
    args: ["server.js", "--flag"],
  });
  assert.deepEqual(parsed(["client", "http://127.0.0.1:3000/mcp"]).target, { kind: "url", url: "http://127.0.0.1:3000/mcp" });
  assert.equal(parsed(["client", "--", "x"]).timeoutMs, DEFAULT_TIMEOUT_MS);
  assert.deepEqual(parsed(["serve", "--http", "127.0.0.1:0", "--legacy-sse"]), {
    ...parsed(["serve"]),
    http: "127.0.0.1:0",
    legacySse: true,
  });
  assert.equal(parsed(["--version"]).command, "version");
  assert.equal(parsed(["client", "--help", "--", "x"]).command, "help");
  assert.equal(parsed(["-h"]).command, "help");
});

test("unknown options, bad values and misplaced words are refused with a reason", () => {
  assert.match(refused(["client", "--bogus", "--", "node"]), /unknown option "--bogus" for client/);
  assert.match(refused(["serve", "--timeout", "5"]), /unknown option "--timeout" for serve/);
  assert.match(refused(["demo", "--http", "x"]), /unknown option "--http" for demo/);
  assert.match(refused(["client", "--timeout", "soon", "--", "x"]), /--timeout takes a positive whole number/);
  assert.match(refused(["client", "--timeout", "0", "--", "x"]), /--timeout takes/);
  assert.match(refused(["client", "--timeout"]), /--timeout needs a value/);
  assert.match(refused(["client", "--root", "--", "x"]), /--root needs a value/);
  assert.match(refused(["client", "--call-destructive=yes", "--", "x"]), /takes no value/);
  assert.match(refused(["client", "--era", "bogus", "--", "x"]), /--era takes auto, session or modern; got "bogus"/);
  assert.match(refused(["client"]), /needs a server/);
  assert.match(refused(["demo", "extra"]), /takes no arguments/);
  assert.match(refused(["bogus"]), /unknown subcommand/);
  assert.match(refused([]), /subcommand is missing/);
});

test("`mcp-engine client --timeout` with a bad flag: one line on stderr, exit 2, nothing spawned", async () => {
  // `--timeout` without its value is an option error, never taken for the server command (spawn --timeout ENOENT).
  for (const args of [
    ["client", "--bogus", "--", process.execPath, MAIN, "serve"],
    ["client", "--timeout", "--", process.execPath, MAIN, "serve"],
    ["demo", "--nope"],
  ]) {
    const run = await runNode([MAIN, ...args], 10_000);
    assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
    assert.match(run.stderr, /^mcp-engine (client|demo): .*(unknown option|needs a value).* \(see mcp-engine (client|demo) --help\)\n$/);
    assert.doesNotMatch(run.stderr, /ENOENT|\[server\]/);
    assert.equal(run.stdout, "");
  }
});

test("`--version` prints the version of package.json; `--help` prints the usage on stdout; both exit 0", async () => {
  const version = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
  for (const flag of ["--version", "-V"]) {
    const run = await runNode([MAIN, flag], 10_000);
    assert.equal(run.code, 0);
    assert.equal(run.stdout, `mcp-engine ${version}\n`);
  }
  for (const args of [["--help"], ["client", "--help"]]) {
    const run = await runNode([MAIN, ...args], 10_000);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^usage:\n/);
    for (const option of ["--timeout MS", "--root DIR", "--call-destructive", "--era"]) assert.ok(run.stdout.includes(option), option);
  }
});

test("`--root` that is not a directory is refused before anything is spawned", async () => {
  const run = await runNode([MAIN, "client", "--root", join(ROOT, "no-such-dir"), "--", process.execPath, MAIN, "serve"], 10_000);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--root ".*no-such-dir": not a directory/);
  assert.equal(rootProblem([ROOT], "/"), undefined);
  assert.match(rootProblem([ROOT, "package.json"], ROOT) ?? "", /"package\.json": not a directory/);
});

test("RT-01: roots are absolute file:// URIs, percent-encoded, named after their last segment", () => {
  assert.deepEqual(rootsFor(["sub dir", "/abs/x#1", "../up"], "/work/here"), [
    { uri: "file:///work/here/sub%20dir", name: "sub dir" },
    { uri: "file:///abs/x%231", name: "x#1" },
    { uri: "file:///work/up", name: "up" },
  ]);
  assert.deepEqual(rootsFor(["/"], "/x"), [{ uri: "file:///", name: "/" }]);
});

/** A display on a fake terminal or pipe: the text written, a clock, and the ticks it asked for. */
function fakeDisplay(isTTY: boolean): {
  out: string[];
  clock: { now: number };
  ticks: Array<() => void>;
  stopped: number;
  open: ReturnType<typeof pendingDisplay>;
} {
  const state = { out: [] as string[], clock: { now: 1000 }, ticks: [] as Array<() => void>, stopped: 0 };
  const open = pendingDisplay({
    write: (text) => state.out.push(text),
    isTTY,
    now: () => state.clock.now,
    every: (_ms, tick) => {
      state.ticks.push(tick);
      return () => state.stopped++;
    },
  });
  return Object.assign(state, { open });
}

test("P-06: on a terminal: one live line with the elapsed time and the latest progress, erased at the end", () => {
  const d = fakeDisplay(true);
  const pending = d.open("tools/call slow");
  assert.equal(d.out.at(-1), "\r\u001b[K... tools/call slow 0.0s");
  d.clock.now += 1500;
  d.ticks[0]?.();
  assert.equal(d.out.at(-1), "\r\u001b[K... tools/call slow 1.5s");
  pending.progress({ progress: 3, total: 10, message: "copying\u001b[2J" });
  assert.equal(d.out.at(-1), "\r\u001b[K... tools/call slow 1.5s [3/10] copying\\x1b[2J");
  pending.end();
  assert.equal(d.out.at(-1), "\r\u001b[K");
  assert.equal(d.stopped, 1);
  const written = d.out.length;
  pending.progress({ progress: 4, total: 10, message: undefined });
  pending.end();
  assert.equal(d.out.length, written, "nothing after the end");
});

test("P-06: elsewhere: nothing animated; one plain line per progress notification; a quick call prints nothing", () => {
  const d = fakeDisplay(false);
  const quiet = d.open("tools/call fast");
  quiet.end();
  assert.deepEqual(d.out, []);
  assert.equal(d.stopped, 1, "its heartbeat timer (cli-edges.test.ts) is stopped at the end");
  const pending = d.open("tools/call slow");
  d.clock.now += 250;
  pending.progress({ progress: 1, total: undefined, message: undefined });
  pending.progress({ progress: 2, total: undefined, message: "half" });
  pending.end();
  assert.deepEqual(d.out, ["... tools/call slow 0.3s [1]\n", "... tools/call slow 0.3s [2] half\n"]);
  assert.equal(describeProgress({ progress: 5, total: 5, message: "" }), "[5/5]");
});

test("serve --redis: a redis:// URL, only with --http; a Redis that cannot be reached at start is exit 2 with the reason", async () => {
  assert.equal(parsed(["serve", "--http", "127.0.0.1:0", "--redis", "redis://127.0.0.1:6379"]).redis, "redis://127.0.0.1:6379");
  assert.equal(parsed(["serve", "--redis=redis://h:1/2", "--http", "127.0.0.1:0"]).redis, "redis://h:1/2");
  assert.equal(parsed(["serve"]).redis, undefined);
  assert.match(refused(["serve", "--redis", "redis://127.0.0.1:6379"]), /--redis needs --http/);
  assert.match(
    refused(["serve", "--http", "127.0.0.1:0", "--redis", "http://127.0.0.1:6379"]),
    /--redis takes a redis:\/\/HOST:PORT URL; got "http/,
  );
  assert.match(refused(["serve", "--http", "127.0.0.1:0", "--redis"]), /--redis needs a value/);
  assert.match(refused(["client", "--redis", "redis://x", "--", "x"]), /unknown option "--redis" for client/);
  const run = await runNode([MAIN, "serve", "--http", "127.0.0.1:0", "--redis", "redis://127.0.0.1:1"]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /mcp-engine serve --redis: redis 127\.0\.0\.1:1: cannot connect/);
});
