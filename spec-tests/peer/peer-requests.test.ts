// Requests in flight through the peer layer in process (spec-tests/support/peer-harness.ts):
// handler concurrency and its limit, server → client requests (sampling, elicitation, roots,
// ping) with their failures and aborts, and methods the server does not serve.

import { test } from "node:test";
import assert from "node:assert/strict";
import { PeerAbortController, McpError, ProtocolMisuseError, RequestAbortedError, type AbortSignalLike } from "../../lib/peer/index.js";
import type { CallToolResult } from "../../lib/index.js";
import { track } from "../support/peer-harness.js";
import { mcpError } from "../support/helpers.js";
import { OK, connected, text } from "../support/peer-helpers.js";

// ── concurrency ──────────────────────────────────────────────────────────────────

test("G-02: handlers run concurrently: a never-settling handler delays neither ping nor another call", async () => {
  let started = 0;
  const pair = await connected({
    setup: (s) => {
      s.tool("hang", {}, () => {
        started++;
        return new Promise<CallToolResult>(() => {});
      });
      s.tool("quick", {}, () => OK);
    },
  });
  const hung = track(pair.client.callTool("hang"));
  await pair.settle();
  assert.equal(started, 1);
  assert.deepEqual(await pair.client.ping(), {});
  assert.deepEqual(await pair.client.callTool("quick"), OK);
  assert.equal(hung.state, "pending");
});

test("LIM-02: maxConcurrentHandlers 2: the third and fourth calls wait their turn in order (no -32603), and run as slots free", async () => {
  const started: string[] = [];
  const resolvers = new Map<string, (r: CallToolResult) => void>();
  const pair = await connected({
    server: { maxConcurrentHandlers: 2 },
    setup: (s) =>
      s.tool("hold", {}, (args) => {
        const tag = String(args.tag);
        started.push(tag);
        return new Promise<CallToolResult>((resolve) => resolvers.set(tag, resolve));
      }),
  });
  const calls = ["a", "b", "c", "d"].map((tag) => track(pair.client.callTool("hold", { tag })));
  await pair.settle();
  assert.deepEqual(started, ["a", "b"], "two running, two waiting");
  assert.equal(pair.session.waitingRequests, 2);
  assert.ok(
    calls.every((c) => c.state === "pending"),
    "nobody refused",
  );
  resolvers.get("b")?.(OK);
  await pair.settle();
  assert.equal(calls[1]?.state, "resolved");
  assert.deepEqual(started, ["a", "b", "c"], "the oldest waiting request took the slot");
  resolvers.get("a")?.(OK);
  await pair.settle();
  assert.deepEqual(started, ["a", "b", "c", "d"]);
  resolvers.get("c")?.(OK);
  resolvers.get("d")?.(OK);
  await pair.settle();
  assert.ok(
    calls.every((c) => c.state === "resolved"),
    calls.map((c) => c.state).join(","),
  );
});

test("X-04: maxConcurrentHandlers 1: a request cancelled while waiting is removed and never runs; the next one does", async () => {
  const started: string[] = [];
  const resolvers = new Map<string, (r: CallToolResult) => void>();
  const pair = await connected({
    server: { maxConcurrentHandlers: 1 },
    setup: (s) =>
      s.tool("hold", {}, (args) => {
        const tag = String(args.tag);
        started.push(tag);
        return new Promise<CallToolResult>((resolve) => resolvers.set(tag, resolve));
      }),
  });
  const controller = new PeerAbortController();
  const a = track(pair.client.callTool("hold", { tag: "a" }));
  const b = track(pair.client.callTool("hold", { tag: "b" }, { signal: controller.signal }));
  const c = track(pair.client.callTool("hold", { tag: "c" }));
  await pair.settle();
  assert.equal(pair.session.waitingRequests, 2);
  controller.abort("changed my mind");
  await pair.settle();
  assert.ok(b.error instanceof RequestAbortedError);
  assert.equal(pair.session.waitingRequests, 1, "the cancelled request left the queue");
  resolvers.get("a")?.(OK);
  await pair.settle();
  assert.deepEqual(started, ["a", "c"], "b never ran");
  resolvers.get("c")?.(OK);
  await pair.settle();
  assert.equal(a.state, "resolved");
  assert.equal(c.state, "resolved");
});

test("LIM-02: the waiting queue is bounded by limits.maxPendingInbound: past it the engine refuses at once", async () => {
  const pair = await connected({
    server: { maxConcurrentHandlers: 1, limits: { maxPendingInbound: 3 } },
    setup: (s) => s.tool("hold", {}, () => new Promise<CallToolResult>(() => undefined)),
  });
  const calls = [0, 1, 2, 3].map(() => track(pair.client.callTool("hold")));
  await pair.settle();
  assert.equal(pair.session.waitingRequests, 2, "one running, two waiting");
  assert.deepEqual(
    calls.map((c) => c.state),
    ["pending", "pending", "pending", "rejected"],
  );
  assert.equal((calls[3]?.error as McpError).code, -32603);
});

// ── server → client requests ─────────────────────────────────────────────────────

test("ctx.createMessage, ctx.elicit and ctx.listRoots reach the client's handlers and return their results", async () => {
  const pair = await connected({
    client: { capabilities: { sampling: {}, elicitation: {}, roots: {} } },
    setup: (s) =>
      s.tool("agent", {}, async (_args, ctx) => {
        const sample = await ctx.createMessage({ messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 5 });
        const answer = await ctx.elicit({
          message: "Your name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } } },
        });
        const roots = await ctx.listRoots();
        return { content: [{ type: "text", text: JSON.stringify([sample.content, answer.content, roots.roots]) }] };
      }),
  });
  const contexts: unknown[] = [];
  pair.client.setRequestHandler("sampling/createMessage", (params, ctx) => {
    contexts.push(ctx.requestId);
    return { role: "assistant", model: "m", content: { type: "text", text: `echo ${params.maxTokens}` } };
  });
  pair.client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { name: "Ada" } }));
  pair.client.setRequestHandler("roots/list", () => ({ roots: [{ uri: "file:///home", name: "home" }] }));
  const result = await pair.client.callTool("agent");
  assert.deepEqual(JSON.parse(text(result)), [{ type: "text", text: "echo 5" }, { name: "Ada" }, [{ uri: "file:///home", name: "home" }]]);
  assert.deepEqual(contexts, [pair.serverHost.messages("sampling/createMessage")[0]?.id]);
});

test("JR-01: a server request without a client handler → McpError -32601; a throwing handler → -32603; McpError keeps its code", async () => {
  const outcomes: unknown[] = [];
  const pair = await connected({
    client: { capabilities: { sampling: {}, elicitation: {}, roots: {} } },
    setup: (s) =>
      s.tool("probe", {}, async (_args, ctx) => {
        for (const attempt of [
          () => ctx.createMessage({ messages: [], maxTokens: 1 }),
          () => ctx.elicit({ message: "?", requestedSchema: { type: "object", properties: {} } }),
          () => ctx.listRoots(),
        ]) {
          try {
            outcomes.push(await attempt());
          } catch (error) {
            outcomes.push(error);
          }
        }
        return OK;
      }),
  });
  // No sampling handler; elicitation throws synchronously; roots rejects with McpError.
  pair.client.setRequestHandler("elicitation/create", () => {
    throw new Error("UI crashed");
  });
  pair.client.setRequestHandler("roots/list", async () => {
    throw new McpError(-32001, "roots hidden", { why: "policy" });
  });
  await pair.client.callTool("probe");
  const [sampling, elicit, roots] = outcomes;
  assert.ok(sampling instanceof McpError);
  assert.equal(sampling.code, -32601);
  assert.equal(sampling.message, "MCP error -32601: No handler for sampling/createMessage");
  assert.ok(elicit instanceof McpError);
  assert.equal(elicit.code, -32603);
  assert.equal(elicit.message, "MCP error -32603: UI crashed");
  assert.ok(roots instanceof McpError);
  assert.equal(roots.code, -32001);
  assert.equal(roots.message, "MCP error -32001: roots hidden");
  assert.deepEqual(roots.data, { why: "policy" });
});

test("E-01, JR-01: a client handler's McpError: kept when thrown synchronously too; one the protocol refuses is answered -32603 (never left hanging)", async () => {
  const outcomes: unknown[] = [];
  const unhandled: unknown[] = [];
  const pair = await connected({
    client: { capabilities: { sampling: {}, roots: {} } },
    setup: (s) =>
      s.tool("probe", {}, async (_args, ctx) => {
        for (const attempt of [
          () => ctx.createMessage({ messages: [], maxTokens: 1 }, { timeoutMs: 1000 }),
          () => ctx.listRoots({ timeoutMs: 1000 }),
        ]) {
          try {
            outcomes.push(await attempt());
          } catch (error) {
            outcomes.push(error);
          }
        }
        return OK;
      }),
  });
  pair.client.setRequestHandler("sampling/createMessage", () => {
    throw new McpError(-32001, "sync refusal", { n: 1 });
  });
  // -32042 (URL elicitation required) must carry data.elicitations under 2025-11-25: the engine refuses this one.
  pair.client.setRequestHandler("roots/list", async () => {
    throw new McpError(-32042, "needs a URL");
  });
  const onUnhandled = (e: unknown): number => unhandled.push(e);
  process.on("unhandledRejection", onUnhandled);
  try {
    const calling = pair.client.callTool("probe");
    await pair.settle();
    assert.deepEqual(await calling, OK);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
  assert.ok(outcomes[0] instanceof McpError);
  assert.equal(outcomes[0].code, -32001);
  assert.deepEqual(outcomes[0].data, { n: 1 });
  assert.ok(outcomes[1] instanceof McpError, `answered, not timed out: ${String(outcomes[1])}`);
  assert.equal(outcomes[1].code, -32603);
  assert.equal(outcomes[1].message, "MCP error -32603: needs a URL");
  assert.deepEqual(unhandled, []);
});

test("RT-01, M-04: a client handler's result the protocol forbids (a non-file root) or that is not an object → -32603; async throws → -32603", async () => {
  const outcomes: unknown[] = [];
  const pair = await connected({
    client: { capabilities: { roots: {}, sampling: {} } },
    setup: (s) =>
      s.tool("probe", {}, async (_args, ctx) => {
        for (const attempt of [() => ctx.listRoots(), () => ctx.createMessage({ messages: [], maxTokens: 1 })]) {
          try {
            outcomes.push(await attempt());
          } catch (error) {
            outcomes.push(error);
          }
        }
        return OK;
      }),
  });
  pair.client.setRequestHandler("roots/list", () => ({ roots: [{ uri: "https://example.com" }] }));
  pair.client.setRequestHandler("sampling/createMessage", async () => {
    await Promise.resolve();
    throw "model unavailable";
  });
  await pair.client.callTool("probe");
  assert.ok(outcomes[0] instanceof McpError);
  assert.equal(outcomes[0].code, -32603);
  assert.match(outcomes[0].message, /file:\/\//);
  assert.ok(outcomes[1] instanceof McpError);
  assert.equal(outcomes[1].code, -32603);
  assert.equal(outcomes[1].message, "MCP error -32603: model unavailable");
});

test("C-01: a server request to a client without the capability: the ctx call rejects with ProtocolMisuseError, nothing is sent", async () => {
  let error: unknown;
  const pair = await connected({
    setup: (s) =>
      s.tool("ask", {}, async (_args, ctx) => {
        try {
          await ctx.createMessage({ messages: [], maxTokens: 1 });
        } catch (e) {
          error = e;
        }
        return OK;
      }),
  });
  await pair.client.callTool("ask");
  assert.ok(error instanceof ProtocolMisuseError && error.rule === "C-01", String(error));
  assert.equal(pair.serverHost.messages("sampling/createMessage").length, 0);
});

test("G-01: the server can ping the client through session.request", async () => {
  const pair = await connected();
  assert.deepEqual(await Promise.all([pair.session.request("ping", undefined), pair.settle()]).then(([r]) => r), {});
});

test("X-04: a server request aborted by the server: the client handler's signal aborts and its late answer is not sent", async () => {
  let clientSignal: AbortSignalLike | undefined;
  let resolveClient: ((r: { roots: [] }) => void) | undefined;
  const controller = new PeerAbortController();
  let outcome: ReturnType<typeof track> | undefined;
  const pair = await connected({
    client: { capabilities: { roots: {} } },
    setup: (s) =>
      s.tool("ask", {}, (_args, ctx) => {
        outcome = track(ctx.listRoots({ signal: controller.signal }));
        return OK;
      }),
  });
  pair.client.setRequestHandler("roots/list", (_p, ctx) => {
    clientSignal = ctx.signal;
    return new Promise((resolve) => (resolveClient = resolve));
  });
  await pair.client.callTool("ask");
  controller.abort();
  await pair.settle();
  assert.ok(outcome?.error instanceof RequestAbortedError);
  assert.equal(clientSignal?.aborted, true);
  assert.equal(clientSignal?.reason, "aborted");
  resolveClient?.({ roots: [] });
  await pair.settle();
  assert.equal(
    pair.clientHost.sent.filter((m) => m.result !== undefined && m.id === pair.serverHost.messages("roots/list")[0]?.id).length,
    0,
  );
});

// ── unknown methods ──────────────────────────────────────────────────────────────

test("a request the engine lets through but the server does not serve is answered -32601", async () => {
  const pair = await connected({ server: { capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } } });
  const error = await mcpError(pair.client.request("tasks/list", {}), -32601);
  assert.match(error.message, /Method not served: tasks\/list/);
});

test("X-08: a server request aborted with a text reason cancels it with that reason (the client reads why)", async () => {
  const controller = new PeerAbortController();
  let outcome: unknown;
  const pair = await connected({
    client: { capabilities: { roots: {} } },
    setup: (s) =>
      s.tool("probe", {}, async (_args, ctx) => {
        const pending = ctx.session.request("roots/list", undefined, { signal: controller.signal });
        controller.abort("no longer needed");
        outcome = await pending.catch((error: unknown) => error);
        return OK;
      }),
  });
  pair.client.setRequestHandler("roots/list", () => new Promise(() => undefined));
  const calling = pair.client.callTool("probe");
  await pair.settle();
  assert.deepEqual(await calling, OK);
  assert.ok(outcome instanceof RequestAbortedError);
  assert.deepEqual(
    pair.serverHost.messages("notifications/cancelled").map((m) => (m.params as { reason?: unknown }).reason),
    ["no longer needed"],
  );
});
