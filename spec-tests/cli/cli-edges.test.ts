// The command's rough edges (lib/codec/did-you-mean.ts, lib/cli/http-failure.ts and progress.ts,
// lib/hosts/stdio.ts's ServerExitedError): a refused command line is one line with the cause, a
// close match and "see --help"; an HTTP failure prints its status and at most one line of the
// body; a server that ends at start is reported with its exit code or signal and its last
// stderr lines; off a terminal, a long wait prints a line every few seconds; and serve's
// --cors takes origins only with --http.

import assert from "node:assert/strict";
import { createServer, type AddressInfo, type Server as HttpServer } from "node:http";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseArgs } from "../../lib/cli/args.js";
import { closest, didYouMean, editDistance, usageErrorLine } from "../../lib/codec/did-you-mean.js";
import { BODY_LINE_WIDTH, httpFailureLine } from "../../lib/cli/http-failure.js";
import { HEARTBEAT_MS, pendingDisplay } from "../../lib/cli/progress.js";
import { conformMain } from "../../lib/cli/conform/index.js";
import { ServerExitedError, StdioClient } from "../../lib/hosts/stdio.js";
import { ConnectionClosedError } from "../../lib/peer/shared/errors.js";
import { rejection, runNode } from "../support/helpers.js";

const here = fileURLToPath(new URL("..", import.meta.url)); // the spec-tests folder
const MAIN = join(here, "..", "lib", "cli", "main.js");
const CLIENT_INFO = { name: "cli-edges", version: "1" };

function refused(argv: string[]): string {
  const result = parseArgs(argv);
  assert.equal(result.ok, false, argv.join(" "));
  return result.ok ? "" : result.problem;
}

test("edit distance: insertions, deletions, substitutions and swapped neighbours each cost one", () => {
  assert.equal(editDistance("--timeout", "--timeout"), 0);
  assert.equal(editDistance("--timout", "--timeout"), 1);
  assert.equal(editDistance("--tiemout", "--timeout"), 1, "a swap of two neighbours is one edit");
  assert.equal(editDistance("--timeoutt", "--timeout"), 1);
  assert.equal(editDistance("--tameout", "--timeout"), 1);
  assert.equal(editDistance("", "abc"), 3);
  assert.equal(editDistance("kitten", "sitting"), 3);
});

test("a close match only when one known word is clearly the closest; none for a word unlike every one", () => {
  const flags = ["--era", "--timeout", "--run-timeout", "--root", "--call-destructive", "--env"];
  assert.equal(closest("--timout", flags), "--timeout");
  assert.equal(closest("--Timeout", flags), "--timeout", "case is ignored");
  assert.equal(closest("-timeout", flags), "--timeout", "one dash too few");
  assert.equal(closest("--call-destructiv", flags), "--call-destructive");
  assert.equal(closest("--verbose", flags), undefined);
  assert.equal(closest("--x", flags), undefined, "a short word is not matched to anything");
  assert.equal(closest("--erv", ["--env", "--era"]), undefined, "two words as close: no guess");
  assert.equal(didYouMean("--rot", flags), "; did you mean --root?");
  assert.equal(didYouMean("--zzz", flags), "");
});

test("a refused line: the cause in one line with a close match, and where the usage is", () => {
  assert.equal(refused(["client", "--timout", "5", "--", "x"]), 'unknown option "--timout" for client; did you mean --timeout?');
  assert.equal(refused(["clinet", "--", "x"]), 'unknown subcommand "clinet"; did you mean client?');
  assert.equal(refused(["serve", "--timeout", "5"]), 'unknown option "--timeout" for serve: it is an option of client and demo');
  assert.equal(refused(["demo", "--cors", "*"]), 'unknown option "--cors" for demo: it is an option of serve');
  assert.match(refused(["--timeout", "5"]), /^"--timeout" before a subcommand: options follow it/);
  assert.equal(refused(["client", "--frobnicate", "--", "x"]), 'unknown option "--frobnicate" for client');
  assert.equal(
    usageErrorLine("client", 'unknown option "--x\u001b[2J"'),
    'mcp-engine client: unknown option "--x\\x1b[2J" (see mcp-engine client --help)\n',
    "what was typed is printed as untrusted text (CLI-01)",
  );
  assert.equal(usageErrorLine(undefined, "a subcommand is missing"), "mcp-engine: a subcommand is missing (see mcp-engine --help)\n");
});

test("`mcp-engine` refusals print one line on stderr (no usage), exit 2, spawn nothing; conform's too", async () => {
  for (const [args, expected] of [
    [
      ["client", "--timout", "5", "--", process.execPath, MAIN, "serve"],
      /^mcp-engine client: .*did you mean --timeout\? \(see mcp-engine client --help\)\n$/,
    ],
    [["serve", "--http", "127.0.0.1:0", "--redis"], /^mcp-engine serve: --redis needs a value \(see mcp-engine serve --help\)\n$/],
    [["serve", "--http", "nowhere"], /^mcp-engine serve: --http takes HOST:PORT \(e\.g\. 127\.0\.0\.1:3000\); got "nowhere" \(see/],
    [["clinet"], /^mcp-engine: unknown subcommand "clinet"; did you mean client\? \(see mcp-engine --help\)\n$/],
    [["client", "--root", "/no/such/dir", "--", "x"], /^mcp-engine client: --root "\/no\/such\/dir": not a directory \(see/],
    [
      ["conform", "--formt", "json", "--", "x"],
      /^mcp-engine conform: unknown option "--formt" for conform; did you mean --format\? \(see mcp-engine conform --help\)\n$/,
    ],
  ] as const) {
    const run = await runNode([MAIN, ...args], 10_000);
    assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
    assert.match(run.stderr, expected, args.join(" "));
    assert.equal(run.stderr.split("\n").length, 2, `one line: ${run.stderr}`);
    assert.equal(run.stdout, "");
  }
  let err = "";
  assert.equal(
    await conformMain(
      ["--only"],
      () => undefined,
      (t) => (err += t),
    ),
    2,
  );
  assert.equal(err, "mcp-engine conform: --only needs a value (see mcp-engine conform --help)\n");
});

test("HTTP-13: serve --cors takes origins (repeatable, normalized as a browser sends them) or *, and only with --http", () => {
  const served = (argv: string[]): string[] => {
    const result = parseArgs(argv);
    assert.ok(result.ok, result.ok ? "" : result.problem);
    return result.options.cors;
  };
  assert.deepEqual(served(["serve", "--http", "127.0.0.1:0"]), [], "off without --cors");
  assert.deepEqual(
    served([
      "serve",
      "--http",
      "127.0.0.1:0",
      "--cors",
      "http://127.0.0.1:8080",
      "--cors=HTTPS://App.Example:443/",
      "--cors",
      "http://[::1]:5173",
    ]),
    ["http://127.0.0.1:8080", "https://app.example", "http://[::1]:5173"],
  );
  assert.deepEqual(served(["serve", "--http", "127.0.0.1:0", "--cors", "http://a.example", "--cors", "http://a.example/"]), [
    "http://a.example",
  ]);
  assert.deepEqual(served(["serve", "--http", "127.0.0.1:0", "--cors", "*"]), ["*"]);
  for (const bad of [
    "http://a.example/app",
    "http://user@a.example",
    "ftp://a.example",
    "a.example",
    "http://a.example?x",
    "http://a.example#f",
    "",
  ])
    assert.match(refused(["serve", "--http", "127.0.0.1:0", "--cors", bad]), /^--cors takes an origin, scheme:\/\/host\[:port\]/, bad);
  assert.match(refused(["serve", "--cors", "http://a.example"]), /--cors needs --http/);
  assert.match(refused(["serve", "--http", "127.0.0.1:0", "--cors", "*", "--cors", "http://a.example"]), /--cors \* allows every origin/);
  assert.match(refused(["serve", "--http", "127.0.0.1:0", "--cors"]), /--cors needs a value/);
});

test("an HTTP failure: the status and at most one line of the body; an HTML page by its title or first text", () => {
  const page =
    "<!DOCTYPE html>\n<html><head><title>404 &amp; Not Found</title><style>p{}</style></head>\n<body><h1>Not Found</h1><p>x</p></body></html>\n";
  assert.equal(httpFailureLine(`HTTP 404: ${page}`), "HTTP 404: 404 & Not Found (the title of an HTML page)");
  assert.equal(
    httpFailureLine("HTTP 502: <html><body><script>var a = 1;</script>\n<h1>Bad Gateway</h1>\n<p>nginx</p></body></html>"),
    "HTTP 502: Bad Gateway (the text of an HTML page; 1 more line not shown)",
  );
  assert.equal(httpFailureLine("HTTP 500: <html><body></body></html>"), "HTTP 500: an HTML page with no text");
  assert.equal(
    httpFailureLine("HTTP 500: Traceback (most recent call last):\n  File x\n  File y\nKeyError: 'a'"),
    "HTTP 500: Traceback (most recent call last): (3 more lines not shown)",
  );
  const long = "x".repeat(BODY_LINE_WIDTH + 40);
  assert.equal(
    httpFailureLine(`HTTP 400: ${long}`),
    `HTTP 400: ${"x".repeat(BODY_LINE_WIDTH)}… (cut at ${BODY_LINE_WIDTH} of ${BODY_LINE_WIDTH + 40} characters)`,
  );
  assert.equal(
    httpFailureLine("HTTP 404 (text/plain): the response carries no answer to the request"),
    "HTTP 404 (text/plain): the response carries no answer to the request",
  );
  assert.equal(httpFailureLine("HTTP 503: \n\n"), "HTTP 503");
  assert.equal(httpFailureLine("something\nelse"), "something else", "not an HTTP failure: its line breaks become spaces");
});

/** A server answering every request with `status` and `body` as `type`. */
async function answering(status: number, type: string, body: string): Promise<{ url: string; server: HttpServer }> {
  const server = createServer((_req, res) => {
    res.writeHead(status, { "content-type": type });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

test("`client <url>` answered by an HTML error page: one FAIL line with the status and the page's title, not the page", async () => {
  const page = `<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>\n<body>${"<p>filler line</p>\n".repeat(200)}</body></html>\n`;
  const { url, server } = await answering(404, "text/html", page);
  try {
    const run = await runNode([MAIN, "client", url], 20_000);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.equal(run.stdout, "FAIL  initialize: HTTP 404: 404 Not Found (the title of an HTML page)\n");
    assert.doesNotMatch(run.stdout + run.stderr, /filler|<html|DOCTYPE/i);
  } finally {
    server.close();
  }
});

/** A stdio "server" that writes `stderr` and then ends as `end` says, before answering anything. */
const crashing = (stderr: string, end: string): string[] => [
  process.execPath,
  "-e",
  `process.stderr.write(${JSON.stringify(stderr)}); ${end}`,
];

test("`client --` a server that exits at start: its exit code and last stderr lines, not 'connection closed'", async () => {
  const lines = Array.from({ length: 8 }, (_, i) => `line ${i + 1}`).join("\n");
  const run = await runNode([MAIN, "client", "--", ...crashing(`${lines}\nError: missing config \u001b[2J\n`, "process.exit(3)")], 20_000);
  assert.equal(run.code, 2, run.stdout + run.stderr);
  const out = run.stdout.split("\n");
  assert.equal(
    out[0],
    'FAIL  initialize: the server exited with code 3 before it answered server/discover; the last line of its stderr: "Error: missing config \\u001b[2J"',
  );
  assert.deepEqual(out.slice(1), [
    "      [server stderr] line 5",
    "      [server stderr] line 6",
    "      [server stderr] line 7",
    "      [server stderr] line 8",
    "      [server stderr] Error: missing config \\x1b[2J",
    "",
  ]);
  assert.doesNotMatch(run.stdout, /connection closed/);
  assert.match(run.stderr, /^\[server\] line 1$/m, "its stderr is shown as it comes, too");
});

test("`client --` a server killed by a signal at start, silent: the signal, and that it wrote nothing", async () => {
  const run = await runNode([MAIN, "client", "--era", "session", "--", ...crashing("", 'process.kill(process.pid, "SIGKILL")')], 20_000);
  assert.equal(run.code, 2, run.stdout + run.stderr);
  assert.equal(
    run.stdout,
    "FAIL  initialize: the server was killed by SIGKILL before it answered initialize; it wrote nothing on stderr\n",
  );
});

/** A server that answers the handshake and lists its one tool, which, when called, says why on stderr and exits 5. */
const DIES_ON_CALL = `
const { Server } = await import(${JSON.stringify(new URL("../../lib/peer/server/server.js", import.meta.url).href)});
const { serveStdio } = await import(${JSON.stringify(new URL("../../lib/hosts/stdio.js", import.meta.url).href)});
const server = new Server({ info: { name: "fragile", version: "1" } });
server.tool("status", { inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }, () => {
  process.stderr.write("out of memory \\u001b[31mhere\\n", () => process.exit(5));
  return new Promise(() => undefined);
});
serveStdio(server);
`;

test("`client --` a server that exits during the report: its exit code and last stderr lines after the checks", async () => {
  const run = await runNode(
    [MAIN, "client", "--era", "session", "--", process.execPath, "--input-type=module", "-e", DIES_ON_CALL],
    30_000,
  );
  assert.equal(run.code, 1, run.stdout + run.stderr);
  assert.match(run.stdout, /^PASS {2}initialize: fragile 1/m);
  assert.match(run.stdout, /^FAIL {2}tools\/call status: .*connection closed/m);
  assert.match(
    run.stderr,
    /^mcp-engine: the server exited with code 5 during the report; the last lines of its stderr:\n {2}\[server stderr\] out of memory \\x1b\[31mhere$/m,
  );
});

test("StdioClient.spawn: a server that ends at start rejects with ServerExitedError (a ConnectionClosedError); one that never starts does not", async () => {
  const [command, ...args] = crashing("a\r\nb\n\n   \nlast words\n", "process.exit(7)");
  const error = await rejection(
    StdioClient.spawn({ command: command as string, args, stderr: "ignore", connectTimeoutMs: 10_000, info: CLIENT_INFO }),
  );
  assert.ok(error instanceof ServerExitedError, String(error));
  assert.ok(error instanceof ConnectionClosedError);
  assert.equal(error.exitCode, 7);
  assert.equal(error.signal, null);
  assert.deepEqual(error.stderrTail, ["a", "b", "last words"], "blank lines left out, CR LF ends taken off, kept whatever `stderr` says");
  const missing = await rejection(StdioClient.spawn({ command: "/nonexistent/server", connectTimeoutMs: 10_000, info: CLIENT_INFO }));
  assert.ok(missing instanceof ConnectionClosedError && !(missing instanceof ServerExitedError), String(missing));
  assert.match(String(missing), /ENOENT/);
});

test("StdioClient.spawn: of a server that writes megabytes on stderr before it dies, only the last lines are kept", async () => {
  const flood = `for (let i = 0; i < 20000; i++) process.stderr.write("noise " + i + " " + "z".repeat(100) + "\\n"); process.stderr.write("the cause\\n", () => process.exit(1));`;
  const error = await rejection(
    StdioClient.spawn({ command: process.execPath, args: ["-e", flood], stderr: "ignore", connectTimeoutMs: 10_000, info: CLIENT_INFO }),
  );
  assert.ok(error instanceof ServerExitedError, String(error));
  assert.equal(error.stderrTail.length, 5);
  assert.equal(error.stderrTail.at(-1), "the cause");
  assert.ok(error.stderrTail.join("\n").length <= 8192);
});

/** The pending display off a terminal, on a fake clock: what it wrote and its one timer. */
function pipeDisplay(): {
  out: string[];
  clock: { now: number };
  tick: () => void;
  stopped: () => number;
  open: ReturnType<typeof pendingDisplay>;
} {
  const out: string[] = [];
  const clock = { now: 0 };
  let tick = (): void => undefined;
  let stopped = 0;
  const open = pendingDisplay({
    write: (text) => out.push(text),
    isTTY: false,
    now: () => clock.now,
    every: (ms, fn) => {
      assert.equal(ms, HEARTBEAT_MS);
      tick = fn;
      return () => stopped++;
    },
  });
  return { out, clock, tick: () => tick(), stopped: () => stopped, open };
}

test("P-06: off a terminal a pending request prints a line every 5 s while nothing else was printed; progress stands in for it", () => {
  const d = pipeDisplay();
  const pending = d.open("connecting");
  d.clock.now = 5000;
  d.tick();
  d.clock.now = 10_000;
  d.tick();
  assert.deepEqual(d.out, ["... connecting 5.0s: still waiting\n", "... connecting 10.0s: still waiting\n"]);
  d.clock.now = 14_500;
  pending.progress({ progress: 1, total: 4, message: "warming up" });
  d.clock.now = 15_000;
  d.tick();
  assert.equal(d.out.length, 3, "a progress line half a second ago stands for the heartbeat");
  assert.equal(d.out[2], "... connecting 14.5s [1/4] warming up\n");
  d.clock.now = 20_000;
  d.tick();
  assert.equal(d.out[3], "... connecting 20.0s [1/4] warming up: still waiting\n");
  pending.end();
  pending.end();
  assert.equal(d.stopped(), 1, "the timer is stopped once");
  d.clock.now = 25_000;
  d.tick();
  assert.equal(d.out.length, 4, "nothing after the end");
});

test("P-06: `client --` a server that never answers, stderr a pipe: a 'still waiting' line every 5 s, then the timeout", async () => {
  // Reads stdin so that it ends when the client closes it; never writes a byte.
  const silent = [process.execPath, "-e", "process.stdin.resume(); process.stdin.on('end', () => process.exit(0));"];
  const run = await runNode([MAIN, "client", "--era", "session", "--timeout", "6500", "--", ...silent], 30_000);
  assert.equal(run.code, 2, run.stdout + run.stderr);
  assert.match(run.stderr, /^\.\.\. connecting 5\.\d+s: still waiting$/m);
  assert.match(run.stdout, /^FAIL {2}initialize: initialize \(request \d+\) timed out: no answer or progress after 6500 ms/);
});
