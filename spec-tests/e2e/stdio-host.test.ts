// The Node stdio host's two pieces of plumbing (lib/hosts/stdio.ts): coalescedWriter, which
// writes the bytes of one tick (microtasks and promise chains included) as one buffer, in order,
// and leaves a later tick's bytes to a write of their own; and nodeHost's timer, which is kept
// when a deadline moves later, yet never calls onTimer before the deadline last asked for, nor
// once the deadline is taken away. Over a real pipe: 100 calls in flight reach the server in
// far fewer writes than 100. serveStdio reads a pipe into one buffer it reuses: a line split
// over two reads is still whole, and a file as stdin is read through process.stdin instead.

import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StdioClient, coalescedWriter, nodeHost } from "../../lib/hosts/stdio.js";
import { sleep, withTimeout } from "../support.js";

const text = new TextDecoder();
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const MAIN = fileURLToPath(new URL("../../lib/cli/main.js", import.meta.url));

test("coalescedWriter: the bytes of one tick, promise chains included, leave as one write, in order", async () => {
  const writes: string[] = [];
  const out = coalescedWriter((b) => writes.push(text.decode(b)));
  out.write(bytes("a\n"));
  out.write(bytes("b\n"));
  // Written from promise chains of several hops, as handler answers are.
  void Promise.resolve().then(() => out.write(bytes("c\n")));
  void Promise.resolve()
    .then(() => undefined)
    .then(() => undefined)
    .then(() => out.write(bytes("d\n")));
  assert.deepEqual(writes, [], "nothing is written synchronously");
  await sleep(0);
  assert.deepEqual(writes, ["a\nb\nc\nd\n"]);
  out.write(bytes("e\n"));
  await sleep(0);
  assert.deepEqual(writes, ["a\nb\nc\nd\n", "e\n"], "a later tick's bytes get a write of their own");
});

test("coalescedWriter: flush writes what is gathered at once, and the scheduled write then has nothing to add", async () => {
  const writes: string[] = [];
  const out = coalescedWriter((b) => writes.push(text.decode(b)));
  out.write(bytes("x\n"));
  out.flush();
  assert.deepEqual(writes, ["x\n"]);
  out.flush();
  await sleep(0);
  assert.deepEqual(writes, ["x\n"], "no empty write, no second write of the same bytes");
});

test("coalescedWriter: a sink that throws does not escape (it would be an uncaught exception), and later writes still go out", async () => {
  const writes: string[] = [];
  let fail = true;
  const out = coalescedWriter((b) => {
    if (fail) throw new Error("stream gone");
    writes.push(text.decode(b));
  });
  out.write(bytes("lost\n"));
  await sleep(0);
  fail = false;
  out.write(bytes("next\n"));
  await sleep(0);
  assert.deepEqual(writes, ["next\n"]);
});

test("nodeHost: a deadline moved later is kept, and onTimer is not called before it", async () => {
  const calls: number[] = [];
  const host = nodeHost(() => undefined, () => calls.push(performance.now()));
  const start = performance.now();
  host.armTimer(start + 5);
  const later = start + 40;
  host.armTimer(later); // later than the armed timer: it is kept and fires early
  await sleep(80);
  assert.equal(calls.length, 1, "one call for one deadline");
  assert.ok(calls[0]! >= later, `called at ${calls[0]! - start} ms, before the deadline at 40 ms`);
});

test("nodeHost: a deadline moved earlier is honoured, and one taken away is never called", async () => {
  const calls: number[] = [];
  const host = nodeHost(() => undefined, () => calls.push(performance.now()));
  const start = performance.now();
  host.armTimer(start + 1000);
  host.armTimer(start + 10); // earlier: re-armed
  await sleep(60);
  assert.equal(calls.length, 1);
  host.armTimer(performance.now() + 10);
  host.armTimer(undefined);
  await sleep(40);
  assert.equal(calls.length, 1, "a deadline taken away is not called");
});

test("StdioClient against `mcp-engine serve`: 100 calls in flight leave in fewer writes than calls, and all are answered", async () => {
  const remote = await StdioClient.spawn({ command: process.execPath, args: [MAIN, "serve"], info: { name: "t", version: "1" } });
  try {
    let writes = 0;
    const stdin = remote.child.stdin as unknown as { write: (chunk: Uint8Array) => boolean };
    const original = stdin.write.bind(stdin);
    stdin.write = (chunk) => {
      writes++;
      return original(chunk);
    };
    const answers = await Promise.all(Array.from({ length: 100 }, () => remote.client.callTool("test_tool_fast")));
    assert.equal(answers.length, 100);
    assert.ok(answers.every((a) => a.content?.[0]?.type === "text"));
    assert.ok(writes <= 2, `100 calls made in one tick took ${writes} writes`);
  } finally {
    await remote.close();
  }
});

const INITIALIZE = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }) + "\n";

/** Everything `mcp-engine serve` writes until it exits, as parsed lines. */
function collect(child: ReturnType<typeof spawn>): Promise<Record<string, unknown>[]> {
  let out = "";
  child.stdout!.on("data", (chunk: Uint8Array) => (out += text.decode(chunk)));
  return withTimeout(
    new Promise((resolve) => child.on("close", () => resolve(out.split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l) as Record<string, unknown>)))),
    10_000,
    "mcp-engine serve to exit",
  );
}

test("serveStdio on a pipe: a line split over two reads of the reused buffer is answered whole", async () => {
  const child = spawn(process.execPath, [MAIN, "serve"], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (chunk: Uint8Array) => (out += text.decode(chunk)));
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  const waitFor = (count: number): Promise<void> =>
    withTimeout(
      (async () => {
        while (out.split("\n").length <= count) await sleep(10);
      })(),
      10_000,
      `${count} answer(s)`,
    );
  child.stdin!.write(INITIALIZE);
  await waitFor(1); // the server is up and reading
  const ping = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping", params: { _meta: { note: "a line long enough to cut in two" } } }) + "\n";
  child.stdin!.write(ping.slice(0, 40));
  await sleep(100); // read on its own, into the buffer the next read overwrites
  child.stdin!.write(ping.slice(40));
  await waitFor(2);
  child.stdin!.end();
  await withTimeout(exited, 10_000, "mcp-engine serve to exit");
  const lines = out.split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(lines[1], { jsonrpc: "2.0", id: 9, result: {} });
});

test("serveStdio with a file as stdin reads it through process.stdin and answers each line", async () => {
  const dir = mkdtempSync(join(tmpdir(), "stdio-host-"));
  try {
    const file = join(dir, "in.jsonl");
    writeFileSync(file, INITIALIZE + JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n" + JSON.stringify({ jsonrpc: "2.0", id: 8, method: "ping" }) + "\n");
    const fd = openSync(file, "r");
    const child = spawn(process.execPath, [MAIN, "serve"], { stdio: [fd, "pipe", "pipe"] });
    closeSync(fd);
    const lines = await collect(child);
    assert.deepEqual(lines.map((l) => l.id), [7, 8]);
    assert.deepEqual(lines[1]?.result, {});
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
