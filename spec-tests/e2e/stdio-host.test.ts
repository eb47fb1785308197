// The Node stdio host's two pieces of plumbing (lib/hosts/stdio.ts): coalescedWriter, which
// writes the bytes of one tick (microtasks and promise chains included) as one buffer, in order,
// and leaves a later tick's bytes to a write of their own; and nodeHost's timer, which is kept
// when a deadline moves later, yet never calls onTimer before the deadline last asked for, nor
// once the deadline is taken away. Over a real pipe: 100 calls in flight reach the server in
// far fewer writes than 100.

import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { StdioClient, coalescedWriter, nodeHost } from "../../lib/hosts/stdio.js";
import { sleep } from "../support.js";

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
