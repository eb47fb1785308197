// The peer layer under 2026-07-28 ("modern" era), in process: a Client and a Server joined by
// fake PeerHosts on a fake clock (spec-tests/support/peer-harness.ts). Covers multi round-trip
// requests (input_required rounds fulfilled by the client's handlers, their bounds, -32601 and
// -32021; handlers' own input_required results via ctx.inputRequired), requestState sealed end
// to end, per-request logging, and subscriptions/listen through the peer layer. connect() and
// its era choice are in peer-modern-connect.test.ts.
//
// Nothing waits on real time except the WebCrypto of RequestStateSealer, which runs off the
// main thread: those awaits are bounded by `withTimeout()` (support/helpers.ts).

import { test } from "node:test";
import assert from "node:assert/strict";
import { SESSION_VERSIONS, type CallToolResult } from "../../lib/index.js";
import {
  InputRoundsExceededError,
  InvalidResultError,
  McpError,
  PeerAbortController,
  RequestAbortedError,
  RequestStateSealer,
  RequestTimeoutError,
  type HandlerContext,
} from "../../lib/peer/index.js";
import { CLIENT_INFO, Pair, SECRET, track } from "../support/peer-harness.js";
import { mcpError, rejection, withTimeout } from "../support/helpers.js";
import {
  ALL,
  META_LOG_LEVEL,
  META_SUBSCRIPTION_ID,
  META_VERSION,
  connectedModern,
  meta,
  ok,
  params,
  text,
  type Message,
} from "../support/peer-modern-helpers.js";

// ── multi round-trip requests ────────────────────────────────────────────────────────

test("MOD-09, MOD-10: a tool that elicits, then samples, completes over three rounds with the client's handlers", async () => {
  let runs = 0;
  const pair = await connectedModern({
    client: { capabilities: { elicitation: {}, sampling: {} } },
    setup: (s) =>
      s.tool("interview", {}, async (_args, ctx) => {
        runs++;
        const who = await ctx.elicit({
          message: "Your name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } } },
        });
        const reply = await ctx.createMessage({
          messages: [{ role: "user", content: { type: "text", text: `Greet ${String(who.content?.name)}` } }],
          maxTokens: 10,
        });
        const content = Array.isArray(reply.content) ? reply.content[0] : reply.content;
        return ok(`${String(who.content?.name)}: ${content?.type === "text" ? content.text : "?"}`);
      }),
  });
  const elicited: unknown[] = [];
  const sampled: unknown[] = [];
  pair.client.setRequestHandler("elicitation/create", (p) => {
    elicited.push(p);
    return { action: "accept", content: { name: "Ada" } };
  });
  pair.client.setRequestHandler("sampling/createMessage", (p) => {
    sampled.push(p);
    return { role: "assistant", content: { type: "text", text: "Hello Ada" }, model: "m" };
  });

  const result = await pair.client.callTool("interview", { topic: "x" });
  assert.equal(text(result), "Ada: Hello Ada");
  assert.equal(runs, 3);
  assert.equal(elicited.length, 1);
  assert.equal(sampled.length, 1);

  const calls = pair.clientHost.messages("tools/call");
  assert.equal(calls.length, 3);
  assert.equal(new Set(calls.map((c) => c.id)).size, 3, "a new request id each round");
  for (const call of calls) {
    assert.equal(params(call).name, "interview");
    assert.deepEqual(params(call).arguments, { topic: "x" });
    assert.equal(meta(call)[META_VERSION], "2026-07-28", "a full envelope on every round");
  }
  assert.equal(params(calls[0]).inputResponses, undefined);
  const second = params(calls[1]).inputResponses as Message;
  assert.deepEqual(Object.keys(second), ["elicitation/create#0"]);
  assert.deepEqual(second["elicitation/create#0"], { action: "accept", content: { name: "Ada" } });
  // A client sends only the keys of the last round: the earlier answer comes back in the server's requestState.
  const third = params(calls[2]).inputResponses as Message;
  assert.deepEqual(third, { "sampling/createMessage#1": { role: "assistant", content: { type: "text", text: "Hello Ada" }, model: "m" } });
  assert.equal("requestState" in params(calls[1]), false, "the first input_required carried no state");

  // What the server asked, round by round.
  const answers = pair.serverHost.sent.filter((m) => m.id !== undefined && m.result !== undefined).map((m) => m.result as Message);
  assert.equal(answers[1]?.resultType, "input_required");
  assert.deepEqual(Object.keys(answers[1]?.inputRequests as Message), ["elicitation/create#0"]);
  assert.equal(answers[1]?.requestState, undefined);
  assert.equal(answers[2]?.resultType, "input_required");
  assert.deepEqual(Object.keys(answers[2]?.inputRequests as Message), ["sampling/createMessage#1"]);
  assert.equal(typeof answers[2]?.requestState, "string");
  assert.equal(params(calls[2]).requestState, answers[2]?.requestState, "echoed untouched");
  assert.equal(answers[3]?.resultType, "complete");
});

test("MOD-10: the retry echoes requestState exactly when the server sent one, and never otherwise; inputResponses carry the IRR's keys", async () => {
  const seen: Array<{ requestState: unknown; inputResponses: unknown }> = [];
  const pair = await connectedModern({
    client: { capabilities: { elicitation: {}, roots: {} } },
    setup: (s) =>
      s.tool("raw", {}, (_args, ctx) => {
        seen.push({ requestState: ctx.requestState, inputResponses: ctx.inputResponses });
        switch (seen.length) {
          case 1:
            return {
              resultType: "input_required",
              inputRequests: {
                github_login: {
                  method: "elicitation/create",
                  params: { message: "Login?", requestedSchema: { type: "object", properties: {} } },
                },
              },
              requestState: "opaque-1",
            } as unknown as CallToolResult;
          case 2:
            return { resultType: "input_required", inputRequests: { where: { method: "roots/list" } } } as unknown as CallToolResult;
          case 3:
            return { resultType: "input_required", requestState: "load-shed" } as unknown as CallToolResult;
          default:
            return ok("done");
        }
      }),
  });
  pair.client.setRequestHandler("elicitation/create", () => ({ action: "accept", content: { name: "octocat" } }));
  pair.client.setRequestHandler("roots/list", () => ({ roots: [{ uri: "file:///w" }] }));
  const result = await pair.client.callTool("raw");
  assert.equal(text(result), "done");
  assert.deepEqual(seen, [
    { requestState: undefined, inputResponses: undefined },
    { requestState: "opaque-1", inputResponses: { github_login: { action: "accept", content: { name: "octocat" } } } },
    { requestState: undefined, inputResponses: { where: { roots: [{ uri: "file:///w" }] } } },
    { requestState: "load-shed", inputResponses: {} },
  ]);
  const calls = pair.clientHost.messages("tools/call");
  assert.equal(calls.length, 4);
  assert.equal(new Set(calls.map((c) => c.id)).size, 4);
  assert.equal(params(calls[1]).requestState, "opaque-1");
  assert.equal("requestState" in params(calls[2]), false, "no requestState when the IRR had none");
  assert.equal(params(calls[3]).requestState, "load-shed");
  assert.equal("requestState" in params(calls[0]), false);
});

test("a server that always answers input_required stops at maxInputRounds with InputRoundsExceededError", async () => {
  for (const [bound, expected] of [
    [3, 3],
    [undefined, 10],
  ] as const) {
    let runs = 0;
    const pair = await connectedModern({
      client: { maxInputRounds: bound },
      setup: (s) =>
        s.tool("forever", {}, () => {
          runs++;
          return { resultType: "input_required", requestState: `round-${runs}` } as unknown as CallToolResult;
        }),
    });
    const error = await rejection(pair.client.callTool("forever"));
    if (!(error instanceof InputRoundsExceededError)) assert.fail(`expected InputRoundsExceededError, got ${String(error)}`);
    assert.equal(error.rounds, expected);
    assert.match(error.message, new RegExp(`tools/call.*${expected} rounds.*maxInputRounds`));
    await pair.settle();
    assert.equal(pair.clientHost.messages("tools/call").length, expected, "no request past the bound");
    assert.equal(runs, expected);
  }
});

test("maxTotalMs covers every round: the time spent in earlier rounds and in the client's handlers counts", async () => {
  // Round 1 answers at once; the client's handler takes 600 ms; round 2 hangs: the call fails 400 ms later.
  let release: (() => void) | undefined;
  const pair = await connectedModern({
    client: { capabilities: { elicitation: {} } },
    setup: (s) =>
      s.tool("slow", {}, async (_args, ctx) => {
        await ctx.elicit({ message: "?", requestedSchema: { type: "object", properties: {} } });
        return new Promise<CallToolResult>(() => undefined);
      }),
  });
  pair.client.setRequestHandler(
    "elicitation/create",
    () => new Promise((resolve) => (release = () => resolve({ action: "accept", content: {} }))),
  );
  const call = track(pair.client.callTool("slow", {}, { maxTotalMs: 1000, timeoutMs: 60_000 }));
  await pair.settle();
  assert.ok(release !== undefined, "the handler was asked");
  await pair.advance(600);
  release();
  await pair.settle();
  assert.equal(pair.clientHost.messages("tools/call").length, 2);
  await pair.advance(399);
  assert.equal(call.state, "pending");
  await pair.advance(1);
  assert.equal(call.state, "rejected");
  assert.ok(call.error instanceof RequestTimeoutError, String(call.error));
  assert.equal(call.error.deadline, "total");

  // A handler that uses up the whole budget: no further round is sent.
  let release2: (() => void) | undefined;
  pair.client.setRequestHandler(
    "elicitation/create",
    () => new Promise((resolve) => (release2 = () => resolve({ action: "accept", content: {} }))),
  );
  const before = pair.clientHost.messages("tools/call").length;
  const second = track(pair.client.callTool("slow", {}, { maxTotalMs: 500 }));
  await pair.settle();
  await pair.advance(500);
  release2?.();
  await pair.settle();
  assert.equal(second.state, "rejected");
  assert.ok(second.error instanceof RequestTimeoutError, String(second.error));
  assert.equal(second.error.deadline, "total");
  assert.equal(pair.clientHost.messages("tools/call").length, before + 1, "no retry after the budget ran out");
});

test("an input request the client has no handler for rejects the call locally (InvalidResultError, no McpError the server never sent), without retrying", async () => {
  const pair = await connectedModern({
    client: { capabilities: { elicitation: {} } },
    setup: (s) =>
      s.tool("ask", {}, async (_args, ctx) => {
        await ctx.elicit({ message: "?", requestedSchema: { type: "object", properties: {} } });
        return ok("never");
      }),
  });
  const error = await rejection(pair.client.callTool("ask"));
  assert.ok(error instanceof InvalidResultError && /inputRequests/.test(error.path), String(error));
  assert.match(error.message, /elicitation\/create/);
  await pair.settle();
  assert.equal(pair.clientHost.messages("tools/call").length, 1);
});

test("MOD-02: an input request of a kind the request did not declare: -32021 with data.requiredCapabilities", async () => {
  const pair = await connectedModern({
    setup: (s) => {
      s.tool("ask", {}, async (_args, ctx) => {
        await ctx.elicit({ message: "?", requestedSchema: { type: "object", properties: {} } });
        return ok("never");
      });
      s.tool("sample", {}, async (_args, ctx) => {
        await ctx.createMessage({ messages: [], maxTokens: 1 });
        return ok("never");
      });
    },
  });
  pair.client.setRequestHandler("elicitation/create", () => ({ action: "accept", content: {} }));
  const error = await mcpError(pair.client.callTool("ask"), -32021);
  assert.deepEqual(error.data, { requiredCapabilities: { elicitation: { form: {} } } });
  const sampling = await mcpError(pair.client.callTool("sample"), -32021);
  assert.deepEqual(sampling.data, { requiredCapabilities: { sampling: {} } });
  await pair.settle();
  assert.equal(pair.clientHost.messages("tools/call").length, 2, "no retry");
});

test("MOD-10: prompts/get and resources/read can go input_required too", async () => {
  const pair = await connectedModern({
    client: { capabilities: { roots: {}, elicitation: {} } },
    setup: (s) => {
      s.prompt("rooted", {}, async (_args, ctx) => {
        const roots = await ctx.listRoots();
        return { messages: [{ role: "user", content: { type: "text", text: `roots: ${roots.roots.map((r) => r.uri).join(",")}` } }] };
      });
      s.resource("test://secret", { name: "secret" }, async (uri, ctx) => {
        const answer = await ctx.elicit({
          message: "Password?",
          requestedSchema: { type: "object", properties: { pw: { type: "string" } } },
        });
        return { contents: [{ uri, text: `unlocked with ${String(answer.content?.pw)}` }] };
      });
    },
  });
  pair.client.setRequestHandler("roots/list", () => ({ roots: [{ uri: "file:///a" }, { uri: "file:///b" }] }));
  pair.client.setRequestHandler("elicitation/create", () => ({ action: "accept", content: { pw: "hunter2" } }));
  const prompt = await pair.client.getPrompt("rooted");
  assert.deepEqual(prompt.messages[0]?.content, { type: "text", text: "roots: file:///a,file:///b" });
  const read = await pair.client.readResource("test://secret");
  assert.deepEqual(read.contents, [{ uri: "test://secret", text: "unlocked with hunter2" }]);
  assert.equal(pair.clientHost.messages("prompts/get").length, 2);
  assert.deepEqual(Object.keys(params(pair.clientHost.messages("prompts/get")[1]).inputResponses as Message), ["roots/list#0"]);
  assert.equal(pair.clientHost.messages("resources/read").length, 2);
  assert.deepEqual(Object.keys(params(pair.clientHost.messages("resources/read")[1]).inputResponses as Message), ["elicitation/create#0"]);
});

test("MOD-10: ctx.inputRequired: the handler's own keys and requestState go out as given; the retry's handler reads the answers and the state", async () => {
  const seen: Array<{ requestState: unknown; inputResponses: unknown }> = [];
  const pair = await connectedModern({
    client: { capabilities: { elicitation: {}, sampling: {}, roots: {} } },
    setup: (s) => {
      s.tool("own", {}, (_args, ctx) => {
        seen.push({ requestState: ctx.requestState, inputResponses: ctx.inputResponses });
        const login = ctx.inputResponses?.github_login as { content?: { name?: string } } | undefined;
        if (login === undefined) {
          return ctx.inputRequired(
            {
              github_login: {
                method: "elicitation/create",
                params: { message: "Login?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } },
              },
              summary: {
                method: "sampling/createMessage",
                params: { messages: [{ role: "user", content: { type: "text", text: "Summarize" } }], maxTokens: 5 },
              },
            },
            "state-1",
          );
        }
        return ok(`${String(login.content?.name)} / ${String(ctx.requestState)}`);
      });
      s.prompt("own-prompt", {}, (_args, ctx) => {
        const roots = ctx.inputResponses?.where as { roots?: unknown[] } | undefined;
        if (roots === undefined) return ctx.inputRequired({ where: { method: "roots/list" } });
        return { messages: [{ role: "user", content: { type: "text", text: `${roots.roots?.length ?? 0} roots` } }] };
      });
    },
  });
  pair.client.setRequestHandler("elicitation/create", () => ({ action: "accept", content: { name: "octocat" } }));
  pair.client.setRequestHandler("sampling/createMessage", () => ({
    role: "assistant",
    content: { type: "text", text: "short" },
    model: "m",
  }));
  pair.client.setRequestHandler("roots/list", () => ({ roots: [{ uri: "file:///r" }] }));

  assert.equal(text(await pair.client.callTool("own")), "octocat / state-1");
  const irr = pair.serverHost.sent.find((m) => (m.result as Message | undefined)?.resultType === "input_required")?.result as Message;
  assert.deepEqual(Object.keys(irr.inputRequests as Message), ["github_login", "summary"]);
  assert.equal(irr.requestState, "state-1");
  assert.deepEqual(seen[1], {
    requestState: "state-1",
    inputResponses: {
      github_login: { action: "accept", content: { name: "octocat" } },
      summary: { role: "assistant", content: { type: "text", text: "short" }, model: "m" },
    },
  });
  // prompts/get too; without a state, the retry carries none.
  const prompt = await pair.client.getPrompt("own-prompt");
  assert.deepEqual(prompt.messages[0]?.content, { type: "text", text: "1 roots" });
  const gets = pair.clientHost.messages("prompts/get");
  assert.equal(gets.length, 2);
  assert.equal("requestState" in params(gets[1]), false);
});

test("MOD-02: ctx.inputRequired asking for a kind the request did not declare: -32021 naming it; in the session era it is a tool error", async () => {
  const register = (s: import("../../lib/peer/index.js").Server): void => {
    s.tool("roots-please", {}, (_args, ctx) => ctx.inputRequired({ where: { method: "roots/list" } }));
  };
  const modern = await connectedModern({ client: { capabilities: { elicitation: {} } }, setup: register });
  const error = await mcpError(modern.client.callTool("roots-please"), -32021);
  assert.deepEqual(error.data, { requiredCapabilities: { roots: {} } });

  const session = new Pair({ server: { versions: ALL }, client: { versions: [...SESSION_VERSIONS] }, setup: register });
  assert.equal((await session.connect()).era, "session");
  const result = await session.client.callTool("roots-please");
  assert.equal(result.isError, true);
  assert.match(text(result), /only under 2026-07-28/);
});

test("aborting a call while the client's handler is answering an input request: the handler sees the abort, no retry is sent", async () => {
  let handlerSignal: { aborted: boolean } | undefined;
  let release: (() => void) | undefined;
  const pair = await connectedModern({
    client: { capabilities: { elicitation: {} } },
    setup: (s) =>
      s.tool("ask", {}, async (_args, ctx) => {
        await ctx.elicit({ message: "?", requestedSchema: { type: "object", properties: {} } });
        return ok("never");
      }),
  });
  pair.client.setRequestHandler("elicitation/create", (_p, context) => {
    handlerSignal = context.signal;
    return new Promise((resolve) => (release = () => resolve({ action: "cancel" })));
  });
  const controller = new PeerAbortController();
  const call = track(pair.client.callTool("ask", {}, { signal: controller.signal }));
  await pair.settle();
  assert.equal(handlerSignal?.aborted, false);
  controller.abort("user gave up");
  assert.equal(handlerSignal?.aborted, true);
  release?.();
  await pair.settle();
  assert.equal(call.state, "rejected");
  assert.ok(call.error instanceof RequestAbortedError, String(call.error));
  assert.equal(pair.clientHost.messages("tools/call").length, 1);
});

// ── requestState, sealed end to end ─────────────────────────────────────────────────

test("MOD-10: requestState sealed by the handler (RequestStateSealer) is opened on the retry; tampered, expired and replayed states are refused", async () => {
  const sealer = new RequestStateSealer({ secret: new Uint8Array(32).fill(9), ttlMs: 1000 });
  const refusals: string[] = [];
  let clock: { now: number } = { now: 0 };
  const staged =
    (name: string) =>
    async (args: Record<string, unknown>, ctx: HandlerContext): Promise<CallToolResult> => {
      const binding = `tools/call:${name}`;
      if (ctx.requestState === undefined) {
        const requestState = await sealer.seal({ target: args.target }, binding, clock.now);
        return {
          resultType: "input_required",
          inputRequests: {
            confirm: {
              method: "elicitation/create",
              params: { message: `Deploy to ${String(args.target)}?`, requestedSchema: { type: "object", properties: {} } },
            },
          },
          requestState,
        } as unknown as CallToolResult;
      }
      const opened = await sealer.open<{ target: string }>(ctx.requestState, binding, clock.now);
      if (!opened.ok) {
        refusals.push(opened.reason);
        throw new McpError(-32602, `requestState refused: ${opened.reason}`, { reason: opened.reason });
      }
      const confirm = ctx.inputResponses?.confirm as { action?: string } | undefined;
      return ok(`${name} ${opened.payload.target}: ${String(confirm?.action)}`);
    };
  const pair = await connectedModern({
    client: { capabilities: { elicitation: {} } },
    setup: (s) => {
      s.tool("deploy", {}, staged("deploy"));
      s.tool("rollback", {}, staged("rollback"));
    },
  });
  clock = pair.clock;
  pair.client.setRequestHandler("elicitation/create", () => ({ action: "accept", content: {} }));

  const result = await withTimeout(pair.client.callTool("deploy", { target: "prod" }), 5000, "deploy");
  assert.equal(text(result), "deploy prod: accept");
  const irr = pair.serverHost.sent.find((m) => (m.result as Message | undefined)?.resultType === "input_required")?.result as Message;
  const token = irr.requestState as string;
  assert.equal(typeof token, "string");
  const calls = pair.clientHost.messages("tools/call");
  assert.equal(calls.length, 2);
  assert.equal(params(calls[1]).requestState, token, "echoed untouched");

  const forged = (name: string, requestState: string): Promise<unknown> =>
    withTimeout(
      pair.client.request("tools/call" as string, {
        name,
        arguments: { target: "prod" },
        inputResponses: { confirm: { action: "accept" } },
        requestState,
      }),
      5000,
      `forged ${name}`,
    );

  // Tampered: one character of the payload changed.
  const dot = token.indexOf(".");
  const flipped = token.slice(0, dot - 2) + (token[dot - 2] === "A" ? "B" : "A") + token.slice(dot - 1);
  const tampered = await mcpError(forged("deploy", flipped), -32602);
  assert.deepEqual(tampered.data, { reason: "tampered" });
  // Replayed on another tool.
  const replayed = await mcpError(forged("rollback", token), -32602);
  assert.deepEqual(replayed.data, { reason: "other-request" });
  // Still valid on its own tool before the ttl...
  assert.equal(text((await forged("deploy", token)) as CallToolResult), "deploy prod: accept");
  // ...and expired after it (the fake clock moves; the sealer reads no clock).
  await pair.advance(1000);
  const expired = await mcpError(forged("deploy", token), -32602);
  assert.deepEqual(expired.data, { reason: "expired" });
  assert.deepEqual(refusals, ["tampered", "other-request", "expired"]);
});

// ── logging ─────────────────────────────────────────────────────────────────────────

test("MOD-01, MOD-03: logging: the client's logLevel travels in every request's _meta; messages below it are not delivered", async () => {
  const logger = (s: import("../../lib/peer/index.js").Server): void => {
    s.tool("chatty", {}, (_args, ctx) => {
      for (const level of ["debug", "info", "notice", "warning", "error", "emergency"] as const) ctx.log(level, `${level} message`);
      return ok("done");
    });
  };
  const pair = await connectedModern({ client: { logLevel: "warning" }, setup: logger });
  const received: string[] = [];
  pair.client.onNotification("notifications/message", (p) => received.push(String(p?.level)));
  assert.equal(text(await pair.client.callTool("chatty")), "done");
  await pair.client.listTools();
  await pair.settle();
  assert.deepEqual(received, ["warning", "error", "emergency"]);
  const requests = pair.clientHost.sent.filter((m) => m.id !== undefined && m.method !== undefined);
  assert.ok(requests.length >= 3);
  for (const request of requests) assert.equal(meta(request)[META_LOG_LEVEL], "warning", `${String(request.method)} carries the level`);

  // Without logLevel nothing is delivered, not even emergency.
  const quiet = await connectedModern({ setup: logger });
  const none: string[] = [];
  quiet.client.onNotification("notifications/message", (p) => none.push(String(p?.level)));
  assert.equal(text(await quiet.client.callTool("chatty")), "done");
  await quiet.settle();
  assert.deepEqual(none, []);
  assert.equal(quiet.serverHost.messages("notifications/message").length, 0);
  for (const request of quiet.clientHost.sent.filter((m) => m.id !== undefined)) assert.equal(META_LOG_LEVEL in meta(request), false);
});

test("MOD-03: logging: ctx.log after the handler answered is dropped quietly, not thrown into the handler's code", async () => {
  let captured: HandlerContext | undefined;
  const pair = await connectedModern({
    client: { logLevel: "debug" },
    setup: (s) =>
      s.tool("t", {}, (_args, ctx) => {
        captured = ctx;
        return ok("done");
      }),
  });
  await pair.client.callTool("t");
  await pair.settle();
  assert.ok(captured !== undefined);
  const ctx = captured;
  assert.doesNotThrow(() => ctx.log("error", "too late"));
  await pair.settle();
  assert.equal(pair.serverHost.messages("notifications/message").length, 0);
});

// ── subscriptions/listen ────────────────────────────────────────────────────────────

test("MOD-14, MOD-15: subscriptions/listen through the peer layer: acknowledged, list_changed tagged with the subscription id, cancelled by the signal", async () => {
  const pair = await connectedModern({ setup: (s) => s.tool("first", {}, () => ok("1")) });
  const acks: unknown[] = [];
  const changes: unknown[] = [];
  pair.client.onNotification("notifications/subscriptions/acknowledged", (p) => acks.push(p));
  pair.client.onNotification("notifications/tools/list_changed", (p) => changes.push(p));
  const controller = new PeerAbortController();
  const listen = track(
    pair.client.request(
      "subscriptions/listen",
      { notifications: { toolsListChanged: true, promptsListChanged: true } },
      { signal: controller.signal, timeoutMs: Infinity },
    ),
  );
  await pair.settle();
  assert.equal(listen.state, "pending", "the stream stays open");
  const listenId = pair.clientHost.messages("subscriptions/listen")[0]?.id;
  assert.equal(typeof listenId, "number");
  // The server honours only what it can: it has no prompts.
  assert.deepEqual(acks, [{ notifications: { toolsListChanged: true }, _meta: { [META_SUBSCRIPTION_ID]: listenId } }]);

  pair.server.tool("second", {}, () => ok("2"));
  await pair.settle();
  assert.deepEqual(changes, [{ _meta: { [META_SUBSCRIPTION_ID]: listenId } }]);
  assert.equal(listen.state, "pending");
  // A prompt change is not delivered: not subscribed (and not declared).
  pair.server.prompt("p", {}, () => ({ messages: [] }));
  await pair.settle();
  assert.equal(pair.serverHost.messages("notifications/prompts/list_changed").length, 0);

  controller.abort("done listening");
  await pair.settle();
  assert.equal(listen.state, "rejected");
  assert.ok(listen.error instanceof RequestAbortedError, String(listen.error));
  assert.deepEqual(
    pair.clientHost.messages("notifications/cancelled").map((m) => params(m).requestId),
    [listenId],
  );

  // The server forgot the subscription: another registration sends nothing.
  const before = pair.serverHost.sent.length;
  pair.server.tool("third", {}, () => ok("3"));
  await pair.settle();
  assert.equal(pair.serverHost.sent.length, before);
  assert.equal(changes.length, 1);
});

test("MOD-14: subscriptions/listen: several subscriptions each get their own tagged notification; a session-era client's list_changed is untagged", async () => {
  const pair = await connectedModern({ setup: (s) => s.tool("first", {}, () => ok("1")) });
  const changes: unknown[] = [];
  pair.client.onNotification("notifications/tools/list_changed", (p) =>
    changes.push((p?._meta as Message | undefined)?.[META_SUBSCRIPTION_ID]),
  );
  const a = new PeerAbortController();
  const b = new PeerAbortController();
  const first = track(
    pair.client.request("subscriptions/listen", { notifications: { toolsListChanged: true } }, { signal: a.signal, timeoutMs: Infinity }),
  );
  const second = track(
    pair.client.request("subscriptions/listen", { notifications: { toolsListChanged: true } }, { signal: b.signal, timeoutMs: Infinity }),
  );
  const none = track(pair.client.request("subscriptions/listen", { notifications: {} }, { timeoutMs: Infinity }));
  await pair.settle();
  const ids = pair.clientHost.messages("subscriptions/listen").map((m) => m.id);
  pair.server.tool("second", {}, () => ok("2"));
  await pair.settle();
  assert.deepEqual(changes, ids.slice(0, 2));
  a.abort();
  await pair.settle();
  pair.server.tool("third", {}, () => ok("3"));
  await pair.settle();
  assert.deepEqual(changes, [...ids.slice(0, 2), ids[1]]);
  b.abort();
  await pair.settle();
  assert.equal(first.state, "rejected");
  assert.equal(second.state, "rejected");
  assert.equal(none.state, "pending");

  // The same Server with a session-era client: list_changed as before, without a subscription id.
  const legacy = new Pair({ serverInstance: pair.server, client: { versions: [...SESSION_VERSIONS] } });
  await legacy.connect();
  const legacyChanges: unknown[] = [];
  legacy.client.onNotification("notifications/tools/list_changed", (p) => legacyChanges.push(p ?? null));
  pair.server.tool("fourth", {}, () => ok("4"));
  await legacy.settle();
  assert.equal(legacyChanges.length, 1);
  assert.equal(((legacyChanges[0] ?? {}) as Message)._meta, undefined);
  assert.ok(CLIENT_INFO.name.length > 0 && SECRET.length === 32);
});
