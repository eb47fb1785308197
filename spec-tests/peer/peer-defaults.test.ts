// Defaults that must not break ordinary workloads, and registration that refuses what clients would
// reject: lists in one page unless the author asks for pages, the client queueing past the engine's
// maxPendingOutbound (FIFO, with timeouts and aborts still working while queued), tool names and
// schemas checked at server.tool(), and handler signals that are the runtime's AbortSignal (so
// fetch stops when the client cancels).
//
// In-process cases run on the fake clock of support/peer-harness.ts; the fetch case uses a real
// local HTTP server and waits only for events, each bounded by withTimeout.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { CallToolResult } from "../../lib/index.js";
import {
  Paginator,
  parseTemplate,
  ConnectionClosedError,
  McpError,
  PeerAbortController,
  RequestAbortedError,
  RequestTimeoutError,
  Server,
} from "../../lib/peer/index.js";
import { Pair, SECRET, SERVER_INFO, track, type PairOptions } from "../support/peer-harness.js";
import { withTimeout } from "../support/helpers.js";

const OK: CallToolResult = { content: [{ type: "text", text: "ok" }] };

async function connected(options: PairOptions = {}): Promise<Pair> {
  const pair = new Pair(options);
  await pair.connect();
  return pair;
}

// ── one page unless the author asks for pages ───────────────────────────────────────────────

test("N-01, N-02: a default Server lists 120 tools, resources, templates and prompts in one page each (one round trip, no nextCursor)", async () => {
  const pair = await connected({
    setup: (s) => {
      for (let i = 0; i < 120; i++) {
        s.tool(`t${i}`, {}, () => OK);
        s.resource(`mem://r${i}`, { name: `r${i}` }, (uri) => ({ contents: [{ uri, text: "" }] }));
        s.resourceTemplate(parseTemplate(`mem://t${i}/{x}`), { name: `t${i}` }, (uri) => ({ contents: [{ uri, text: "" }] }));
        s.prompt(`p${i}`, {}, () => ({ messages: [] }));
      }
    },
  });
  assert.equal((await pair.client.listTools()).length, 120);
  assert.equal((await pair.client.listResources()).length, 120);
  assert.equal((await pair.client.listResourceTemplates()).length, 120);
  assert.equal((await pair.client.listPrompts()).length, 120);
  for (const method of ["tools/list", "resources/list", "resources/templates/list", "prompts/list"]) {
    assert.equal(pair.clientHost.messages(method).length, 1, `${method}: one request`);
  }
  const answers = pair.serverHost.sent.filter((m) => m.result !== undefined && typeof m.result === "object");
  assert.ok(
    answers.every((m) => (m.result as Record<string, unknown>).nextCursor === undefined),
    "no nextCursor anywhere",
  );
});

test("N-05: without paging no secret is needed; a cursor sent anyway is refused -32602 (none was issued)", async () => {
  const server = new Server({ info: SERVER_INFO });
  assert.equal(server.paginator, undefined);
  server.tool("only", {}, () => OK);
  const pair = await connected({ serverInstance: server });
  assert.deepEqual(
    (await pair.client.listTools()).map((t) => t.name),
    ["only"],
  );
  const refused = await pair.client.request("tools/list", { cursor: "made-up" }).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(refused instanceof McpError);
  assert.equal(refused.code, -32602);
  assert.match(refused.message, /Invalid cursor/);
});

test("N-05: paging takes a Paginator, refused at construction otherwise (the old pageSize option, a bare number), saying what is expected", () => {
  assert.throws(() => new Server({ info: SERVER_INFO, pageSize: 10 } as never), /unknown option "pageSize"/);
  assert.throws(
    () => new Server({ info: SERVER_INFO, paging: 10 } as never),
    /expected paging to be what new Paginator\(\{ pageSize, secret \}\) returns; got a number/,
  );
  // The Paginator refuses a missing or short secret where it is made.
  assert.throws(() => new Paginator({ pageSize: 10 } as never), /secret must be a Uint8Array of at least 16 bytes/);
  const paged = new Server({ info: SERVER_INFO, paging: new Paginator({ pageSize: 10, secret: SECRET }) });
  assert.equal(paged.paginator?.pageSize, 10);
});

// ── the client queues past maxPendingOutbound ──────────────────────────────────────────────

test("LIM-03: 1,100 concurrent callTool against a default Server all succeed (the client queues past its 1,024 in flight)", async () => {
  const pair = await connected({ setup: (s) => s.tool("echo", {}, (args) => ({ content: [{ type: "text", text: String(args.i) }] })) });
  const calls = Array.from({ length: 1100 }, (_, i) => pair.client.callTool("echo", { i }));
  await pair.settle();
  const results = await Promise.all(calls);
  assert.deepEqual(
    results.map((r) => (r.content[0] as { text: string }).text),
    Array.from({ length: 1100 }, (_, i) => String(i)),
  );
});

/** A connected pair whose client holds at most `max` requests in flight, and a tool that answers when told. */
async function queueing(max: number): Promise<{ pair: Pair; release: (tag: string) => void; started: string[] }> {
  const resolvers = new Map<string, (r: CallToolResult) => void>();
  const started: string[] = [];
  const pair = await connected({
    client: { limits: { maxPendingOutbound: max } },
    setup: (s) =>
      s.tool("hold", {}, (args) => {
        const tag = String(args.tag);
        started.push(tag);
        return new Promise<CallToolResult>((resolve) => resolvers.set(tag, resolve));
      }),
  });
  return { pair, started, release: (tag) => resolvers.get(tag)?.(OK) };
}

test("LIM-03: past maxPendingOutbound requests wait in call order and go out one per answer", async () => {
  const { pair, started, release } = await queueing(2);
  const calls = ["a", "b", "c", "d"].map((tag) => track(pair.client.callTool("hold", { tag })));
  await pair.settle();
  assert.deepEqual(started, ["a", "b"]);
  assert.equal(pair.clientHost.messages("tools/call").length, 2, "two on the wire");
  release("b");
  await pair.settle();
  assert.deepEqual(started, ["a", "b", "c"]);
  release("a");
  await pair.settle();
  assert.deepEqual(started, ["a", "b", "c", "d"]);
  release("c");
  release("d");
  await pair.settle();
  assert.ok(calls.every((c) => c.state === "resolved"));
});

test("T-03: a queued request's timeout runs from the call: it rejects RequestTimeoutError without ever being sent", async () => {
  const { pair, started, release } = await queueing(1);
  const first = track(pair.client.callTool("hold", { tag: "a" }, { timeoutMs: 10_000 }));
  const second = track(pair.client.callTool("hold", { tag: "b" }, { timeoutMs: 100 }));
  await pair.advance(99);
  assert.equal(second.state, "pending");
  await pair.advance(1);
  assert.ok(second.error instanceof RequestTimeoutError, String(second.error));
  assert.equal(second.error.deadline, "inactivity");
  assert.equal(pair.clientHost.messages("tools/call").length, 1, "never sent");
  release("a");
  await pair.settle();
  assert.equal(first.state, "resolved");
  assert.deepEqual(started, ["a"]);
});

test("T-03: a queued request's maxTotalMs is a total deadline too", async () => {
  const { pair } = await queueing(1);
  track(pair.client.callTool("hold", { tag: "a" }, { timeoutMs: Infinity }));
  const second = track(pair.client.callTool("hold", { tag: "b" }, { timeoutMs: Infinity, maxTotalMs: 50 }));
  await pair.advance(50);
  assert.ok(second.error instanceof RequestTimeoutError);
  assert.equal(second.error.deadline, "total");
});

test("X-01: a queued request aborted by its signal rejects RequestAbortedError, is never sent and sends no cancellation", async () => {
  const { pair, started, release } = await queueing(1);
  const controller = new PeerAbortController();
  track(pair.client.callTool("hold", { tag: "a" }));
  const second = track(pair.client.callTool("hold", { tag: "b" }, { signal: controller.signal }));
  const third = track(pair.client.callTool("hold", { tag: "c" }));
  await pair.settle();
  controller.abort("no longer needed");
  await pair.settle();
  assert.ok(second.error instanceof RequestAbortedError);
  assert.equal(pair.clientHost.messages("notifications/cancelled").length, 0);
  release("a");
  await pair.settle();
  assert.deepEqual(started, ["a", "c"], "b was removed from the queue");
  release("c");
  await pair.settle();
  assert.equal(third.state, "resolved");
});

test("X-01: a sent request that was queued first can still be aborted (notifications/cancelled goes out)", async () => {
  const { pair, release } = await queueing(1);
  const controller = new PeerAbortController();
  track(pair.client.callTool("hold", { tag: "a" }));
  const second = track(pair.client.callTool("hold", { tag: "b" }, { signal: controller.signal }));
  await pair.settle();
  release("a");
  await pair.settle();
  assert.equal(pair.clientHost.messages("tools/call").length, 2, "b went out after a's answer");
  controller.abort("stop");
  await pair.settle();
  assert.ok(second.error instanceof RequestAbortedError);
  assert.equal(pair.clientHost.messages("notifications/cancelled").length, 1);
});

test("S-01: close() rejects queued requests with ConnectionClosedError", async () => {
  const { pair } = await queueing(1);
  const first = track(pair.client.callTool("hold", { tag: "a" }));
  const second = track(pair.client.callTool("hold", { tag: "b" }));
  await pair.settle();
  pair.client.close();
  await pair.settle();
  assert.ok(first.error instanceof ConnectionClosedError);
  assert.ok(second.error instanceof ConnectionClosedError);
});

// ── registration refuses what clients reject ────────────────────────────────────────────────

test("server.tool refuses names outside [A-Za-z0-9_.-]{1,128}, naming the rule, the expectation and what it got", () => {
  const server = new Server({ info: SERVER_INFO });
  for (const [name, got] of [
    ["", "an empty name"],
    ["x".repeat(129), "129 characters"],
    ["has space", '"has space"'],
    ["a/b", '"a/b"'],
    ["ünï", '"ünï"'],
  ] as const) {
    assert.throws(
      () => server.tool(name, {}, () => OK),
      (error: unknown) =>
        error instanceof Error &&
        error.message === `tool name rule (2025-11-25): expected 1 to 128 characters of [A-Za-z0-9_.-], got ${got}`,
      name,
    );
  }
  assert.equal(server.tools.size, 0);
  server.tool("Az09_.-", {}, () => OK);
  server.tool("y".repeat(128), {}, () => OK);
  assert.equal(server.tools.size, 2);
});

test('J-02: server.tool refuses an inputSchema or outputSchema whose root type is not "object"', () => {
  const server = new Server({ info: SERVER_INFO });
  assert.throws(
    () => server.tool("s", { inputSchema: { type: "string" } as never }, () => OK),
    /\[J-02\] tool s: inputSchema must have root type "object" \(clients refuse any other\); got "string"/,
  );
  // No type but a JSON Schema keyword: a JSON Schema that forgot its type, not a map of parameters (params-map.ts).
  assert.throws(
    () => server.tool("n", { inputSchema: { properties: { a: { type: "string" } } } as never }, () => OK),
    /\[J-02\] tool "n": inputSchema must have root type "object".*got no type, in a schema read as a JSON Schema for its keyword "properties"/,
  );
  assert.throws(
    () => server.tool("u", { inputSchema: null as never }, () => OK),
    /\[J-02\] tool u: inputSchema must be a JSON Schema object.*got null/,
  );
  assert.throws(
    () => server.tool("o", { outputSchema: { type: "array" } as never }, () => OK),
    /\[J-02\] tool o: outputSchema must have root type "object".*got "array"/,
  );
  assert.equal(server.tools.size, 0);
  server.tool("fine", { inputSchema: { type: "object", additionalProperties: false }, outputSchema: { type: "object" } }, () => ({
    ...OK,
    structuredContent: {},
  }));
});

test("a second registration of a name is refused (tools, prompts, resources, templates); after remove() it is accepted", () => {
  const server = new Server({ info: SERVER_INFO });
  const first = server.tool("t", {}, () => OK);
  assert.throws(() => server.tool("t", {}, () => OK), /unique names: expected a tool name not registered yet, got "t"/);
  server.prompt("p", {}, () => ({ messages: [] }));
  assert.throws(() => server.prompt("p", {}, () => ({ messages: [] })), /expected a prompt name not registered yet/);
  server.resource("mem://r", { name: "r" }, (uri) => ({ contents: [{ uri, text: "" }] }));
  assert.throws(() => server.resource("mem://r", { name: "r" }, (uri) => ({ contents: [{ uri, text: "" }] })), /expected a resource name/);
  server.resourceTemplate(parseTemplate("mem://{x}"), { name: "x" }, (uri) => ({ contents: [{ uri, text: "" }] }));
  assert.throws(
    () => server.resourceTemplate(parseTemplate("mem://{x}"), { name: "x" }, (uri) => ({ contents: [{ uri, text: "" }] })),
    /expected a resource template name/,
  );
  first.remove();
  server.tool("t", { description: "again" }, () => OK);
  assert.equal(server.tools.get("t")?.definition.description, "again");
});

test("a definition JSON cannot encode is refused at registration (it would fail every later list answer)", () => {
  const server = new Server({ info: SERVER_INFO });
  assert.throws(() => server.tool("big", { _meta: { n: 1n } }, () => OK), /tool big: the definition cannot be listed as JSON: a BigInt/);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.throws(
    () => server.prompt("cyc", { _meta: cyclic } as never, () => ({ messages: [] })),
    /prompt cyc: the definition cannot be listed as JSON: a cycle/,
  );
});

// ── handler signals abort fetch ─────────────────────────────────────────────────────────────

test("ctx.signal is the runtime's AbortSignal: fetch on a slow server is aborted when the client cancels", async () => {
  let arrived: () => void = () => undefined;
  const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
  const slow = createServer(() => arrived());
  await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", () => resolve()));
  const address = slow.address();
  assert.ok(address !== null && typeof address === "object");
  let fetchOutcome: (text: string) => void = () => undefined;
  const fetchSettled = new Promise<string>((resolve) => (fetchOutcome = resolve));
  try {
    const pair = await connected({
      setup: (s) =>
        s.tool("slow_fetch", {}, async (_args, ctx) => {
          try {
            await fetch(`http://127.0.0.1:${address.port}/`, { method: "GET", headers: {}, signal: ctx.signal as NodeAbortSignal });
            fetchOutcome("completed");
          } catch (error) {
            // fetch rejects with the signal's reason: the client's, carried by notifications/cancelled.
            fetchOutcome(
              error === ctx.signal.reason ? `rejected with the signal's reason: ${String(error)}` : `rejected otherwise: ${String(error)}`,
            );
          }
          return OK;
        }),
    });
    const controller = new PeerAbortController();
    const call = track(pair.client.callTool("slow_fetch", {}, { signal: controller.signal, timeoutMs: Infinity }));
    await pair.settle();
    await withTimeout(requestArrived, 5000, "the handler's fetch reached the slow server");
    controller.abort("user cancelled");
    await pair.settle();
    assert.equal(await withTimeout(fetchSettled, 5000, "fetch aborted by ctx.signal"), "rejected with the signal's reason: user cancelled");
    assert.ok(call.error instanceof RequestAbortedError);
  } finally {
    slow.closeAllConnections();
    await new Promise<void>((resolve) => slow.close(() => resolve()));
  }
});

test("PeerAbortController: the runtime's signal where there is one, our own otherwise; a throwing listener never escapes", () => {
  for (const useRuntime of [true, false]) {
    const controller = new PeerAbortController(useRuntime);
    const RuntimeSignal = (globalThis as { AbortSignal?: abstract new () => object }).AbortSignal;
    assert.ok(RuntimeSignal !== undefined);
    assert.equal(controller.signal instanceof RuntimeSignal, useRuntime);
    const heard: string[] = [];
    const quiet = (): void => {
      heard.push("removed");
    };
    controller.signal.addEventListener("abort", () => {
      throw new Error("listener failure");
    });
    controller.signal.addEventListener("abort", quiet);
    controller.signal.removeEventListener("abort", quiet);
    controller.signal.addEventListener("abort", () => heard.push(String(controller.signal.reason)), { once: true });
    controller.abort("why");
    controller.abort("again");
    assert.equal(controller.signal.aborted, true);
    assert.deepEqual(heard, ["why"], `useRuntime ${useRuntime}`);
  }
});

test("allowAnyToolName: true accepts names outside the rule (a SHOULD), but still not an empty one", () => {
  const server = new Server({ info: SERVER_INFO, allowAnyToolName: true });
  server.tool("grüße welt", {}, () => OK);
  assert.ok(server.tools.has("grüße welt"));
  assert.throws(() => server.tool("", {}, () => OK), /tool name rule: expected a non-empty string, got an empty name/);
});
