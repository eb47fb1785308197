// Over a real child process (stdio), run with --unhandled-rejections=strict: hostile requests and
// misbehaving handlers each get an answer, the process answers the next request, and it exits 0
// when its stdin ends: the peer layer never crashes its process. The requests are written as raw
// JSON text, so the 5,000-deep values never have to be encoded on this side. Every wait is for an
// event, bounded by withTimeout.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { withTimeout } from "../support/helpers.js";

const here = dirname(dirname(fileURLToPath(import.meta.url))); // the spec-tests folder
const FIXTURE = join(here, "fixtures-servers", "hardening-server.js");
const META = JSON.stringify({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
});
const deepJson = (depth: number): string => '{"a":'.repeat(depth) + "{}" + "}".repeat(depth);

/** A 2026-07-28 tools/call as JSON text; `extra` is more params, as JSON text. */
function callLine(id: number, name: string, extra = ""): string {
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":{},"_meta":${META}${extra === "" ? "" : "," + extra}}}\n`;
}

type Answer = { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } };

test("stdio, --unhandled-rejections=strict: deep inputResponses and requestState, throwing and unencodable handlers are all answered; the process survives and exits 0 at EOF", async () => {
  const child = spawn(process.execPath, ["--unhandled-rejections=strict", FIXTURE, "--serve"], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += new TextDecoder().decode(chunk)));
  const answers = new Map<unknown, Answer>();
  const waiters = new Map<unknown, (answer: Answer) => void>();
  let partial = "";
  const decoder = new TextDecoder();
  child.stdout.on("data", (chunk) => {
    const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
    partial = lines.pop() as string;
    for (const line of lines) {
      if (line === "") continue;
      const answer = JSON.parse(line) as Answer;
      answers.set(answer.id, answer);
      waiters.get(answer.id)?.(answer);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const ask = (id: number, line: string): Promise<Answer> => {
    const answered = new Promise<Answer>((resolve) => {
      const known = answers.get(id);
      if (known !== undefined) resolve(known);
      else waiters.set(id, resolve);
    });
    child.stdin.write(line);
    return withTimeout(answered, 10_000, `answer to request ${id} (server stderr: ${stderr})`);
  };
  try {
    const deepResponses = await ask(1, callLine(1, "ask", `"inputResponses":{"x#0":${deepJson(5000)}}`));
    assert.equal(deepResponses.error?.code, -32602);
    assert.match(deepResponses.error?.message ?? "", /inputResponses nested deeper than 256 levels/);

    const state = JSON.stringify(`mcp-engine/answers:{"x#0":${deepJson(5000)}}`);
    const deepState = await ask(2, callLine(2, "ask", `"requestState":${state}`));
    assert.equal(deepState.error?.code, -32602);

    const firstRound = await ask(3, callLine(3, "ask"));
    assert.equal(firstRound.result?.resultType, "input_required");

    const thrown = await ask(4, callLine(4, "throw_sync"));
    assert.equal(thrown.result?.isError, true);
    const rejected = await ask(5, callLine(5, "throw_async"));
    assert.equal(rejected.result?.isError, true);
    const bigint = await ask(6, callLine(6, "bigint"));
    assert.equal(bigint.error?.code, -32603);
    assert.match(bigint.error?.message ?? "", /BigInt/);
    const cyclic = await ask(7, callLine(7, "cyclic"));
    assert.match(cyclic.error?.message ?? "", /cycle/);
    const careless = await ask(8, callLine(8, "careless"));
    assert.equal(careless.result?.resultType, "complete");

    const echo = await ask(9, callLine(9, "echo"));
    assert.equal(echo.result?.resultType, "complete", "the process still answers");
    assert.equal(child.exitCode, null, "still running");
  } finally {
    child.stdin.end();
  }
  assert.equal(await withTimeout(exited, 10_000, "the server exits at EOF"), 0, `exit code (stderr: ${stderr})`);
});
