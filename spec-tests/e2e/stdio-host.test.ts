// The Node stdio host's two pieces of plumbing (lib/hosts/stdio.ts): coalescedWriter
// (lib/hosts/stdio-writer.ts), which writes what a read causes as one buffer when the read
// returns, lets the first write since the last read leave at once and gathers the ones after
// it with the rest of their tick (microtasks and promise chains included) into one buffer,
// always in order; and nodeHost's
// timer, which is kept when a deadline moves later, yet never calls onTimer before the
// deadline last asked for, nor once the deadline is taken away. Over a real pipe: 100 calls in
// flight reach the server in far fewer writes than 100; a client that stops reading stalls the
// server without a lost or reordered answer; what is gathered when StdioClient.close() is
// called still reaches the server before its stdin ends. pacedSink pauses the input once per
// refused run of writes, with one drain listener. serveStdio reads a pipe into one buffer it
// reuses: a line split over two reads is still whole, and a file as stdin is read through
// process.stdin instead. StdioClient with readInPlace reads the server's stdout into one kept
// buffer too (its pipe's handle taken over): answers many reads long arrive whole, the child's
// "close" still follows its exit; without it, or on a stream without such a handle, stdout is
// read through "data" events, so a tap on child.stdout sees every answer. A client pauses its
// reading only for a server that leaves too much of our answers unread (answerPacedSink); the
// burst of requests megabytes larger than the pipes that shows it over real pipes is in
// stdio-burst.long.test.ts (npm run test:long).

import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StdioClient, coalescedWriter, nodeHost, readChildOutput } from "../../lib/hosts/stdio.js";
import { answerPacedSink, pacedSink } from "../../lib/hosts/stdio-writer.js";
import { sleep, withTimeout } from "../support/helpers.js";

const text = new TextDecoder();
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const MAIN = fileURLToPath(new URL("../../lib/cli/main.js", import.meta.url));

test("coalescedWriter: the first write of a tick leaves at once; the rest of the tick, promise chains included, leave as one write, in order", async () => {
  const writes: string[] = [];
  const out = coalescedWriter((b) => writes.push(text.decode(b)));
  out.write(bytes("a\n"));
  assert.deepEqual(writes, ["a\n"], "the first write is not deferred");
  out.write(bytes("b\n"));
  // Written from promise chains of several hops, as handler answers are.
  void Promise.resolve().then(() => out.write(bytes("c\n")));
  void Promise.resolve()
    .then(() => undefined)
    .then(() => undefined)
    .then(() => out.write(bytes("d\n")));
  assert.deepEqual(writes, ["a\n"], "later writes of the tick are gathered");
  await sleep(0);
  assert.deepEqual(writes, ["a\n", "b\nc\nd\n"]);
  out.write(bytes("e\n"));
  assert.deepEqual(writes, ["a\n", "b\nc\nd\n", "e\n"], "a later tick's first write leaves at once again");
  out.write(bytes("f\n"));
  await sleep(0);
  assert.deepEqual(writes, ["a\n", "b\nc\nd\n", "e\n", "f\n"]);
});

test("coalescedWriter: the writes made during a read leave as one write when it returns, before anything is scheduled", async () => {
  const writes: string[] = [];
  const out = coalescedWriter((b) => writes.push(text.decode(b)));
  const read = (lines: string[]): void => {
    for (const line of lines) out.write(bytes(line));
    // Nested (a dispatch that reads again): still held by the outer read.
    out.during((more: string) => out.write(bytes(more)), "z\n");
    assert.deepEqual(writes, [], "held while the read is dispatched");
  };
  out.during(read, ["x\n", "y\n"]);
  assert.deepEqual(writes, ["x\ny\nz\n"], "one write, as the read returns");
  // The read's write was its tick's: an answer resolved after it joins the rest of the tick.
  await Promise.resolve().then(() => out.write(bytes("w\n")));
  assert.deepEqual(writes, ["x\ny\nz\n"]);
  await sleep(0);
  assert.deepEqual(writes, ["x\ny\nz\n", "w\n"]);
});

test("coalescedWriter: the sink is told which bytes a read's dispatch wrote (ofRead) and which it did not", async () => {
  const writes: Array<[string, boolean]> = [];
  const out = coalescedWriter((b, ofRead) => writes.push([text.decode(b), ofRead]));
  out.write(bytes("request\n"));
  out.during(() => {
    out.write(bytes("answer\n"));
    out.during(() => out.write(bytes("nested\n")), undefined);
  }, undefined);
  out.write(bytes("later\n"));
  await sleep(0);
  out.write(bytes("next tick\n"));
  out.flush();
  assert.deepEqual(writes, [
    ["request\n", false],
    ["answer\nnested\n", true],
    ["later\n", false],
    ["next tick\n", false],
  ]);
});

test("coalescedWriter: after a read that wrote nothing, the next write leaves at once, with nothing scheduled", async () => {
  const writes: string[] = [];
  const out = coalescedWriter((b) => writes.push(text.decode(b)));
  out.write(bytes("request 1\n"));
  out.during(() => undefined, undefined); // its answer arrives; the caller asks again in a promise reaction
  await Promise.resolve().then(() => out.write(bytes("request 2\n")));
  assert.deepEqual(writes, ["request 1\n", "request 2\n"], "each request left as it was made");
  // With no read between, a second write is gathered until its tick's end, then the next leaves at once again.
  await sleep(0);
  out.write(bytes("request 3\n"));
  assert.deepEqual(writes, ["request 1\n", "request 2\n"]);
  await sleep(0);
  out.write(bytes("request 4\n"));
  assert.deepEqual(writes, ["request 1\n", "request 2\n", "request 3\n", "request 4\n"]);
});

test("coalescedWriter: bytes gathered in a tick leave, in order, with those of a read that follows in the same tick", async () => {
  const writes: string[] = [];
  const out = coalescedWriter((b) => writes.push(text.decode(b)));
  out.write(bytes("1\n")); // at once
  out.write(bytes("2\n")); // gathered until the tick's end
  out.during((line: string) => out.write(bytes(line)), "3\n");
  assert.deepEqual(writes, ["1\n", "2\n3\n"], "the read's write does not overtake what was gathered before it");
  await sleep(0);
  assert.deepEqual(writes, ["1\n", "2\n3\n"]);
});

test("coalescedWriter: a step that throws still releases what it wrote, and the writer holds nothing afterwards", async () => {
  const writes: string[] = [];
  const out = coalescedWriter((b) => writes.push(text.decode(b)));
  assert.throws(() =>
    out.during(() => {
      out.write(bytes("before\n"));
      throw new Error("dispatch failed");
    }, undefined),
  );
  assert.deepEqual(writes, ["before\n"]);
  out.write(bytes("after\n"));
  await sleep(0);
  assert.deepEqual(writes, ["before\n", "after\n"], "not stuck holding");
});

test("coalescedWriter: flush writes what is gathered at once, and the scheduled write then has nothing to add", async () => {
  const writes: string[] = [];
  const out = coalescedWriter((b) => writes.push(text.decode(b)));
  out.write(bytes("x\n"));
  out.write(bytes("y\n"));
  assert.deepEqual(writes, ["x\n"]);
  out.flush();
  assert.deepEqual(writes, ["x\n", "y\n"]);
  out.flush();
  await sleep(0);
  assert.deepEqual(writes, ["x\n", "y\n"], "no empty write, no second write of the same bytes");
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

test("pacedSink: a refused write pauses the input until the output drains, with one drain listener however many writes are refused meanwhile", () => {
  const written: string[] = [];
  const drains: (() => void)[] = [];
  let full = true;
  const output = {
    write: (b: Uint8Array): boolean => (written.push(text.decode(b)), !full),
    once: (_event: "drain", listener: () => void): void => void drains.push(listener),
  };
  const calls: string[] = [];
  const input = { pause: () => calls.push("pause"), resume: () => calls.push("resume") };
  const sink = pacedSink(output, () => input);
  sink(bytes("1\n"));
  sink(bytes("2\n")); // the rest of a read already under way
  sink(bytes("3\n"));
  assert.deepEqual(written, ["1\n", "2\n", "3\n"], "refused writes are still handed to the stream, which queues them");
  assert.deepEqual(calls, ["pause"]);
  assert.equal(drains.length, 1, "one drain listener, not one per refused write");
  full = false;
  drains.shift()!();
  assert.deepEqual(calls, ["pause", "resume"]);
  sink(bytes("4\n"));
  assert.deepEqual(calls, ["pause", "resume"], "a write taken at once changes nothing");
  full = true;
  sink(bytes("5\n"));
  assert.deepEqual(calls, ["pause", "resume", "pause"], "paused again the next time a write is refused");
  assert.equal(drains.length, 1);
});

test("nodeHost: a deadline moved later is kept, and onTimer is not called before it", async () => {
  const calls: number[] = [];
  const host = nodeHost(
    () => undefined,
    () => calls.push(host.now()),
  );
  const start = host.now();
  host.armTimer(start + 5);
  const later = start + 40;
  host.armTimer(later); // later than the armed timer: it is kept and fires early
  await sleep(80);
  assert.equal(calls.length, 1, "one call for one deadline");
  assert.ok(calls[0]! >= later, `called at ${calls[0]! - start} ms, before the deadline at 40 ms`);
});

test("nodeHost: a deadline moved earlier is honoured, and one taken away is never called", async () => {
  const calls: number[] = [];
  const host = nodeHost(
    () => undefined,
    () => calls.push(host.now()),
  );
  const start = host.now();
  host.armTimer(start + 1000);
  host.armTimer(start + 10); // earlier: re-armed
  await sleep(60);
  assert.equal(calls.length, 1);
  host.armTimer(host.now() + 10);
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

const INITIALIZE =
  JSON.stringify({
    jsonrpc: "2.0",
    id: 7,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  }) + "\n";

/** Everything `mcp-engine serve` writes until it exits, as parsed lines. */
function collect(child: ReturnType<typeof spawn>): Promise<Record<string, unknown>[]> {
  let out = "";
  child.stdout!.on("data", (chunk: Uint8Array) => (out += text.decode(chunk)));
  return withTimeout(
    new Promise((resolve) =>
      child.on("close", () =>
        resolve(
          out
            .split("\n")
            .filter((l) => l.length > 0)
            .map((l) => JSON.parse(l) as Record<string, unknown>),
        ),
      ),
    ),
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
  const ping =
    JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping", params: { _meta: { note: "a line long enough to cut in two" } } }) + "\n";
  child.stdin!.write(ping.slice(0, 40));
  await sleep(100); // read on its own, into the buffer the next read overwrites
  child.stdin!.write(ping.slice(40));
  await waitFor(2);
  child.stdin!.end();
  await withTimeout(exited, 10_000, "mcp-engine serve to exit");
  const lines = out
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(lines[1], { jsonrpc: "2.0", id: 9, result: {} });
});

test("serveStdio with a file as stdin reads it through process.stdin and answers each line", async () => {
  const dir = mkdtempSync(join(tmpdir(), "stdio-host-"));
  try {
    const file = join(dir, "in.jsonl");
    writeFileSync(
      file,
      INITIALIZE +
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) +
        "\n" +
        JSON.stringify({ jsonrpc: "2.0", id: 8, method: "ping" }) +
        "\n",
    );
    const fd = openSync(file, "r");
    const child = spawn(process.execPath, [MAIN, "serve"], { stdio: [fd, "pipe", "pipe"] });
    closeSync(fd);
    const lines = await collect(child);
    assert.deepEqual(
      lines.map((l) => l.id),
      [7, 8],
    );
    assert.deepEqual(lines[1]?.result, {});
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("serveStdio: a client that does not read stalls the server, which takes in no more than it can answer; once it reads, every answer arrives, in order", async () => {
  const child = spawn(process.execPath, [MAIN, "serve"], { stdio: ["pipe", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  try {
    // First the server is up and reading: its answer to initialize arrives.
    const ready = new Promise<void>((resolve) => child.stdout!.on("data", () => resolve()));
    child.stdin!.write(INITIALIZE);
    await withTimeout(ready, 10_000, "the answer to initialize");
    child.stdout!.pause();
    const count = 100_000;
    let requests = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n";
    for (let id = 1; id <= count; id++) requests += `{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`;
    child.stdin!.write(requests);
    // Several MB of answers cannot fit the pipe: the server must stop reading (its stdin paused
    // when a write is refused; on Linux a pipe as stdout blocks the write itself), so most
    // requests stay queued on our side. Wait until the queue stops moving, then look.
    const queued = (): number => (child.stdin as unknown as { writableLength: number }).writableLength;
    let last = -1;
    for (let still = 0; still < 3; ) {
      await sleep(200);
      const now = queued();
      still = now === last ? still + 1 : 0;
      last = now;
    }
    assert.ok(last > 0, "the server read every request although its answers could not be written");
    let out = "";
    let lines = 0;
    const done = new Promise<void>((resolve) =>
      child.stdout!.on("data", (chunk: Uint8Array) => {
        const piece = text.decode(chunk, { stream: true });
        out += piece;
        for (let at = piece.indexOf("\n"); at !== -1; at = piece.indexOf("\n", at + 1)) lines++;
        if (lines === count) resolve();
      }),
    );
    child.stdout!.resume();
    await withTimeout(done, 60_000, "every answer");
    const ids = out
      .split("\n")
      .filter((l) => l.length > 0)
      .map((l) => (JSON.parse(l) as { id: number }).id);
    assert.equal(ids.length, count);
    assert.ok(
      ids.every((id, i) => id === i + 1),
      "answers in request order, none lost, none twice",
    );
  } finally {
    // On a failure the server may still have answers to write that nobody reads: it must not outlive the test.
    child.kill();
    await withTimeout(exited, 10_000, "mcp-engine serve to exit");
  }
});

// A server that answers initialize only and names on stderr every message it reads, until its stdin ends.
const LISTENER = `
let pending = "";
process.stdin.on("data", (chunk) => {
  pending += chunk;
  for (let nl = pending.indexOf("\\n"); nl !== -1; nl = pending.indexOf("\\n")) {
    const message = JSON.parse(pending.slice(0, nl));
    pending = pending.slice(nl + 1);
    process.stderr.write((message.method ?? "response") + "\\n");
    if (message.method === "initialize") process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: {}, serverInfo: { name: "listener", version: "1" } } }) + "\\n");
  }
});
process.stdin.on("end", () => process.stderr.write("eof\\n"));
`;

test("StdioClient.close: what is gathered for the end of the tick (a request and its cancellation, made in the tick close() is called in) reaches the server before its stdin ends", async () => {
  let heard = "";
  const remote = await StdioClient.spawn({
    command: process.execPath,
    args: ["-e", LISTENER],
    info: { name: "t", version: "1" },
    stderr: (text) => (heard += text),
  });
  // notifications/initialized left at once after the last read: the next writes of this tick are gathered.
  const controller = new AbortController();
  const unanswered = remote.client.ping({ signal: controller.signal }).catch((error: unknown) => error);
  await Promise.resolve(); // the ping is handed to the writer
  controller.abort("no longer needed");
  await remote.close();
  assert.ok((await unanswered) instanceof Error);
  const lines = heard.split("\n").filter((l) => l.length > 0);
  assert.deepEqual(lines, ["initialize", "notifications/initialized", "ping", "notifications/cancelled", "eof"]);
});

/** A server whose one tool answers with a text of `chars` two-byte characters (many 64 KiB reads, characters split across them), and whose other tool exits. */
const BIG_ANSWERS = `
const { Server } = await import(${JSON.stringify(new URL("../../lib/peer/server/server.js", import.meta.url).href)});
const { serveStdio } = await import(${JSON.stringify(new URL("../../lib/hosts/stdio.js", import.meta.url).href)});
const server = new Server({ info: { name: "big", version: "1" } });
server.tool("big", { inputSchema: { type: "object", properties: { chars: { type: "number" } } } }, ({ chars }) => ({ content: [{ type: "text", text: "\u00e9".repeat(chars) }] }));
server.tool("exit", { inputSchema: { type: "object" } }, () => process.exit(3));
server.tool("echo", { inputSchema: { type: "object", properties: { text: { type: "string" } } } }, ({ text }) => ({ content: [{ type: "text", text }] }));
serveStdio(server, { readInPlace: true });
`;

test("StdioClient with readInPlace reads the server's stdout in place: the child's own stdout object sees none of it, answers of many reads arrive whole, and the child's close follows its exit", async () => {
  const remote = await StdioClient.spawn({
    command: process.execPath,
    args: ["--input-type=module", "-e", BIG_ANSWERS],
    info: { name: "t", version: "1" },
    readInPlace: true,
  });
  let seenByChildStdout = 0;
  remote.child.stdout.on("data", (chunk: Uint8Array) => (seenByChildStdout += chunk.length));
  const closed = new Promise<void>((resolve) => remote.child.on("close", () => resolve()));
  try {
    const sizes = [1, 40_000, 150_001];
    const answers = await Promise.all(sizes.map((chars) => remote.client.callTool("big", { chars })));
    for (const [i, answer] of answers.entries()) {
      const first = answer.content[0];
      assert.equal(first?.type, "text");
      assert.equal((first as { text: string }).text, "\u00e9".repeat(sizes[i]!));
    }
    assert.equal(seenByChildStdout, 0, "the answers went through the child's stdout stream, not the in-place reader");
    const outcome = await remote.client.callTool("exit", {}).then(
      () => "answered",
      (error: unknown) => (error as Error).constructor.name,
    );
    assert.equal(outcome, "ConnectionClosedError");
    await withTimeout(closed, 5_000, "the child's close event");
  } finally {
    await remote.close();
  }
});

test("StdioClient without readInPlace reads the server's stdout through its data events: a tap on child.stdout sees every answer", async () => {
  const remote = await StdioClient.spawn({
    command: process.execPath,
    args: ["--input-type=module", "-e", BIG_ANSWERS],
    info: { name: "t", version: "1" },
  });
  let tapped = "";
  remote.child.stdout.on("data", (chunk: Uint8Array) => (tapped += text.decode(chunk, { stream: true })));
  try {
    const answer = await remote.client.callTool("big", { chars: 70_000 });
    assert.equal((answer.content[0] as { text: string }).text.length, 70_000);
    assert.ok(tapped.includes("\u00e9".repeat(70_000)), `the tap saw ${tapped.length} characters`);
  } finally {
    await remote.close();
  }
});

test("readChildOutput: without inPlace, or on a stream without a libuv handle that can take a kept buffer, the stream is read through its data events and is itself the reader returned (what pacedSink pauses)", () => {
  const cases: Array<[unknown, boolean]> = [
    [undefined, true],
    [null, true],
    [{ readStart() {}, readStop() {} }, true],
    ["handle", true],
    [{ readStart() {}, readStop() {}, useUserBuffer() {} }, false],
  ];
  for (const [handle, inPlace] of cases) {
    const listeners: string[] = [];
    const received: Uint8Array[] = [];
    const stream = {
      _handle: handle,
      on(event: string, listener: (chunk: Uint8Array) => void) {
        listeners.push(event);
        if (event === "data") listener(bytes("{}\n"));
      },
      once() {},
      pause() {},
      resume() {},
      destroy() {},
    };
    const reader = readChildOutput(stream as unknown as Parameters<typeof readChildOutput>[0], (chunk) => received.push(chunk), inPlace);
    assert.equal(reader, stream, `handle ${JSON.stringify(handle)}, inPlace ${inPlace}`);
    assert.deepEqual(listeners, ["data"]);
    assert.deepEqual(
      received.map((c) => text.decode(c)),
      ["{}\n"],
    );
  }
});

test("answerPacedSink: the caller's own writes never pause the input, refused or not; the server's past the bound pause it once, until the stream has taken enough of them", () => {
  const events: string[] = [];
  const callbacks: Array<() => void> = [];
  const output = {
    write(_bytes: Uint8Array, callback: () => void) {
      callbacks.push(callback);
      return false; // the pipe is full from the first write on
    },
  };
  const input = { pause: () => events.push("pause"), resume: () => events.push("resume") };
  const sink = answerPacedSink(output, () => input, 10);
  for (let i = 0; i < 5; i++) sink(new Uint8Array(100), false);
  assert.deepEqual(events, [], "the caller's requests paused the reading of their answers");
  sink(new Uint8Array(6), true);
  sink(new Uint8Array(4), true);
  assert.deepEqual(events, [], "10 bytes of answers owed is within the bound");
  sink(new Uint8Array(3), true);
  sink(new Uint8Array(3), true);
  assert.deepEqual(events, ["pause"]);
  // The five requests' callbacks leave the count as it is; then the 6-byte answer leaves: 10 owed, back within the bound.
  for (const callback of callbacks.splice(0, 5)) callback();
  assert.deepEqual(events, ["pause"]);
  callbacks.shift()!();
  assert.deepEqual(events, ["pause", "resume"]);
  for (const callback of callbacks.splice(0)) callback();
  assert.deepEqual(events, ["pause", "resume"]);
});
