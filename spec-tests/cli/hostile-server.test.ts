// `mcp-engine client` and `mcp-engine conform` against a hostile stdio server
// (hostile-server.ts), whole commands in child processes (RULES.md CLI-01): nothing the server
// controls reaches stdout or stderr as a control character, a bidi override or an uncut run,
// and the escaped forms of its attacks are there, so a quote that bypasses the printer fails
// here. (`demo` prints through the same report as `client`, against our own server.)

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { FIELD_WIDTH, MESSAGE_WIDTH } from "../../lib/codec/terminal-text.js";

const MAIN = fileURLToPath(new URL("../../lib/cli/main.js", import.meta.url));
const SERVER = fileURLToPath(new URL("./hostile-server.js", import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI to completion (killed after 60 s). */
function cli(args: readonly string[]): Promise<Run> {
  return new Promise<Run>((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const out = new TextDecoder();
    const err = new TextDecoder();
    child.stdout.on("data", (chunk: Uint8Array) => (stdout += out.decode(chunk, { stream: true })));
    child.stderr.on("data", (chunk: Uint8Array) => (stderr += err.decode(chunk, { stream: true })));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`mcp-engine ${args.join(" ")} did not finish; stdout: ${stdout.slice(0, 2000)}; stderr: ${stderr.slice(0, 2000)}`));
    }, 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Characters of the server's that must never come out raw: C0 but LF, DEL, C1, bidi embeddings, overrides, isolates and marks. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** The first raw character of `text` with what surrounds it, or undefined. */
function rawAt(text: string): string | undefined {
  const m = RAW.exec(text);
  return m === null
    ? undefined
    : `U+${(m[0].codePointAt(0) as number).toString(16)} in ${JSON.stringify(text.slice(Math.max(0, m.index - 80), m.index + 40))}`;
}

/** No raw character, no forged line, no line longer than a few printed fields can make. */
function assertInert(what: string, text: string): void {
  assert.equal(rawAt(text), undefined, `${what}: a raw character`);
  for (const line of text.split("\n")) {
    assert.doesNotMatch(line, /^PASS {2}forged/, `${what}: a forged line`);
    assert.ok(line.length <= 2 * MESSAGE_WIDTH + 4 * FIELD_WIDTH, `${what}: a line of ${line.length} characters: ${line.slice(0, 300)}`);
  }
}

test("CLI-01: `client -- <hostile server>`: every field the server controls prints escaped and cut, on stdout and stderr", async () => {
  const run = await cli(["client", "--call-destructive", "--timeout", "5000", "--", process.execPath, SERVER, "--serve"]);
  const context = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
  assertInert("stdout", run.stdout);
  assertInert("stderr", run.stderr);
  const escaped =
    "\\x1b]0;pwned-title\\x07\\x1b[2J\\x1b[H\\x1b]8;;https://evil.example/\\x1b\\click\\x1b]8;;\\x1b\\\\x0dPASS  forged: everything is fine\\x0a\\u202eevil\\u202c\\u2066iso\\u2069\\u200f\\x9b31m\\x7f";
  // Each field the report quotes, with its label: the attacks escaped right after it.
  for (const label of [
    "name:",
    "version:",
    "tool-error:",
    "tool-result:",
    "tool-error-message:",
    "test://resource/",
    "error resources/read:",
    "prompt:",
    "completion:",
  ])
    assert.ok(run.stdout.includes(`${label}${escaped}`), `${label} escaped on stdout\n${context}`);
  // The tool result's first 60 characters are quoted as JSON: its escapes are JSON's.
  assert.match(run.stdout, /"result:\\u001b\]0;pwned-title\\u0007\\u001b\[2J/, context);
  // The long runs are cut with the marker, never printed whole.
  assert.match(run.stdout, /name:.*L+…\(\+\d+ more\)/, context);
  assert.doesNotMatch(run.stdout + run.stderr, /L{1000}/, "a 5000-character run printed whole");
  // stderr: the server's own lines, the progress message on the pending display, the engine's violation.
  // The server's stderr is printed line by line (its LF ends a line, a CR inside one is escaped), an unended line at the end.
  const [firstLine, secondLine] = escaped.split("\\x0a");
  assert.ok(run.stderr.includes(`[server] stderr-line:${firstLine}\n[server] ${secondLine}SSS`), context);
  assert.ok(run.stderr.includes("[server] stderr-unended:\\x1b]0;stderr-title\\x07"), context);
  assert.ok(run.stderr.includes(`progress:${escaped}`), context);
  assert.match(run.stderr, /^\[violation\] ID-04: /m, context);
  assert.match(run.stdout, /^mcp-engine client report for: /, context);
});

test("CLI-01: `conform -- <hostile server>`: the probe's findings and every failure's reason print escaped, in text and in JSON", async () => {
  const text = await cli(["conform", "--only", "server/ping/every", "--timeout", "1000", "--", process.execPath, SERVER, "--serve"]);
  const context = `stdout:\n${text.stdout}\nstderr:\n${text.stderr}`;
  assertInert("conform stdout", text.stdout);
  assertInert("conform stderr", text.stderr);
  // The probe line quotes serverInfo as JSON (ESC as \u001b), the printer escapes what JSON leaves raw.
  assert.match(text.stderr, /^target: \{"name":"name:\\u001b\]0;pwned-title\\u0007.*\\u202eevil/m, context);
  assert.match(
    text.stdout,
    /^FAIL {3}server\/ping\/every-phase@\S+ .*"ping:\\u202eevil\\u2066\\x9b31m\\x7f\\u001b\]0;pwned-title/m,
    context,
  );
  assert.equal(text.code, 1, context);

  const json = await cli([
    "conform",
    "--format",
    "json",
    "--only",
    "server/ping/every",
    "--timeout",
    "1000",
    "--",
    process.execPath,
    SERVER,
    "--serve",
  ]);
  assertInert("conform --format json stdout", json.stdout);
  const report = JSON.parse(json.stdout) as { cases: { reason?: string }[] };
  const reasons = report.cases.map((c) => c.reason ?? "").join("\n");
  assert.match(reasons, /\\u202eevil/, json.stdout);
  assert.equal(rawAt(reasons), undefined, "a raw character in a reason, once the JSON is read back");
});
