// The peer layer's one error taxonomy, path by path: every way a promise of Client or
// ServerSession (and the ctx calls that go through it) can reject, with the class it must
// reject with. Each row provokes one path and the loop checks three things: the class, that
// it is a PeerError, and that only the peer's own error answers are McpErrors (a local failure
// is never one, so `instanceof McpError` means "the peer answered"). The HTTP transport's
// paths (HttpTransportError with its status, HttpAuthError) are rows of
// spec-tests/http/http-client.test.ts and http-auth.test.ts, and the tasks' own ends
// (TaskFailedError, TaskCancelledError) rows of spec-tests/peer/tasks-ext.test.ts.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ConnectionClosedError,
  HttpBodyLimitError,
  HttpRedirectError,
  HttpTransportError,
  InputRoundsExceededError,
  InvalidResultError,
  McpError,
  PeerAbortController,
  PeerError,
  ProtocolMisuseError,
  RequestAbortedError,
  RequestTimeoutError,
  ResponseTooLargeError,
  type HandlerContext,
} from "../../lib/peer/index.js";
import { SkillVerificationError } from "../../lib/peer/skills.js";
import { ServerExitedError } from "../../lib/hosts/stdio.js";
import { Pair, ScriptedServer, initializeResult, track, type PairOptions } from "../support/peer-harness.js";
import { rejection } from "../support/helpers.js";

type ErrorClass = abstract new (...args: never[]) => Error;

interface Row {
  readonly side: "Client" | "Server";
  readonly path: string;
  readonly expected: ErrorClass;
  readonly provoke: () => Promise<unknown>;
}

const OK = { content: [{ type: "text" as const, text: "ok" }] };

async function connected(options: PairOptions = {}): Promise<Pair> {
  const pair = new Pair(options);
  await pair.connect();
  return pair;
}

/** A pair whose tool `ask` runs `work` with its context and reports what it threw or rejected with. */
async function serverCall(
  work: (ctx: HandlerContext) => Promise<unknown> | unknown,
  options: PairOptions = {},
  drive?: (pair: Pair) => Promise<void>,
): Promise<unknown> {
  let caught: unknown = "nothing thrown";
  const pair = await connected({
    ...options,
    setup: (s) => {
      options.setup?.(s);
      s.tool("ask", {}, async (_args, ctx) => {
        try {
          await work(ctx);
        } catch (error) {
          caught = error;
        }
        return OK;
      });
    },
  });
  const call = track(pair.client.callTool("ask", {}, { timeoutMs: Infinity }));
  await pair.settle();
  await drive?.(pair);
  await pair.settle();
  assert.notEqual(call.state, "rejected", "the tool itself answers");
  return caught;
}

const samplingClient: PairOptions["client"] = { capabilities: { sampling: {} } };
const ASK = { messages: [], maxTokens: 1 };

const ROWS: readonly Row[] = [
  // ── Client.request and the typed helpers ──
  {
    side: "Client",
    path: "the server answers a JSON-RPC error",
    expected: McpError,
    provoke: async () => rejection((await connected({ setup: (s) => s.tool("t", {}, () => OK) })).client.callTool("missing")),
  },
  {
    side: "Client",
    path: "no answer within timeoutMs (inactivity)",
    expected: RequestTimeoutError,
    provoke: async () => {
      const pair = await connected({ setup: (s) => s.tool("hang", {}, () => new Promise(() => undefined)) });
      const call = track(pair.client.callTool("hang", {}, { timeoutMs: 100 }));
      await pair.advance(200);
      return call.error;
    },
  },
  {
    side: "Client",
    path: "maxTotalMs passes (total)",
    expected: RequestTimeoutError,
    provoke: async () => {
      const pair = await connected({ setup: (s) => s.tool("hang", {}, () => new Promise(() => undefined)) });
      const call = track(pair.client.callTool("hang", {}, { timeoutMs: Infinity, maxTotalMs: 50 }));
      await pair.advance(100);
      return call.error;
    },
  },
  {
    side: "Client",
    path: "a request queued past maxPendingOutbound times out",
    expected: RequestTimeoutError,
    provoke: async () => {
      const pair = await connected({
        client: { limits: { maxPendingOutbound: 1 } },
        setup: (s) => s.tool("hang", {}, () => new Promise(() => undefined)),
      });
      void pair.client.callTool("hang", {}, { timeoutMs: Infinity }).catch(() => undefined);
      const queued = track(pair.client.callTool("hang", {}, { timeoutMs: 50 }));
      await pair.advance(100);
      return queued.error;
    },
  },
  {
    side: "Client",
    path: "the signal is aborted before the call",
    expected: RequestAbortedError,
    provoke: async () => {
      const controller = new PeerAbortController();
      controller.abort("no");
      return rejection((await connected()).client.request("ping", undefined, { signal: controller.signal }));
    },
  },
  {
    side: "Client",
    path: "the signal aborts a request in flight",
    expected: RequestAbortedError,
    provoke: async () => {
      const pair = await connected({ setup: (s) => s.tool("hang", {}, () => new Promise(() => undefined)) });
      const controller = new PeerAbortController();
      const call = track(pair.client.callTool("hang", {}, { signal: controller.signal }));
      await pair.settle();
      controller.abort("changed my mind");
      await pair.settle();
      return call.error;
    },
  },
  {
    side: "Client",
    path: "the signal aborts a queued request",
    expected: RequestAbortedError,
    provoke: async () => {
      const pair = await connected({
        client: { limits: { maxPendingOutbound: 1 } },
        setup: (s) => s.tool("hang", {}, () => new Promise(() => undefined)),
      });
      void pair.client.callTool("hang").catch(() => undefined);
      const controller = new PeerAbortController();
      const queued = track(pair.client.callTool("hang", {}, { signal: controller.signal }));
      controller.abort();
      await pair.settle();
      return queued.error;
    },
  },
  {
    side: "Client",
    path: "the connection ends while a request is in flight",
    expected: ConnectionClosedError,
    provoke: async () => {
      const pair = await connected({ setup: (s) => s.tool("hang", {}, () => new Promise(() => undefined)) });
      const call = track(pair.client.callTool("hang"));
      await pair.settle();
      pair.client.driver.receiveEof();
      await pair.settle();
      return call.error;
    },
  },
  {
    side: "Client",
    path: "a request after close()",
    expected: ConnectionClosedError,
    provoke: async () => {
      const pair = await connected();
      pair.client.close();
      return rejection(pair.client.request("ping"));
    },
  },
  {
    side: "Client",
    path: "a queued request when the connection closes",
    expected: ConnectionClosedError,
    provoke: async () => {
      const pair = await connected({
        client: { limits: { maxPendingOutbound: 1 } },
        setup: (s) => s.tool("hang", {}, () => new Promise(() => undefined)),
      });
      void pair.client.callTool("hang").catch(() => undefined);
      const queued = track(pair.client.callTool("hang"));
      pair.client.close();
      await pair.settle();
      return queued.error;
    },
  },
  {
    side: "Client",
    path: "the answer is over limits.maxLineBytes",
    expected: ResponseTooLargeError,
    provoke: async () => {
      const pair = await connected({
        client: { limits: { maxLineBytes: 4096 } },
        setup: (s) => s.tool("big", {}, () => ({ content: [{ type: "text", text: "x".repeat(10_000) }] })),
      });
      const call = track(pair.client.callTool("big"));
      await pair.settle();
      return call.error;
    },
  },
  {
    side: "Client",
    path: "a result its method's schema refuses (validateResults)",
    expected: InvalidResultError,
    provoke: async () => {
      const scripted = new ScriptedServer(
        (m) => (m.method === "initialize" ? initializeResult({ tools: {} }) : { result: { tools: "not a list" } }),
        { validateResults: true },
      );
      const connecting = scripted.client.connect();
      await scripted.settle();
      await connecting;
      return rejection(scripted.client.request("tools/list"));
    },
  },
  {
    side: "Client",
    path: "a listing whose cursor comes back (N-01)",
    expected: InvalidResultError,
    provoke: async () => {
      const scripted = new ScriptedServer((m) =>
        m.method === "initialize" ? initializeResult({ tools: {} }) : { result: { tools: [], nextCursor: "same" } },
      );
      await scripted.client.connect();
      return rejection(scripted.client.listTools());
    },
  },
  {
    side: "Client",
    path: "2026-07-28: an input request no handler of ours answers",
    expected: InvalidResultError,
    provoke: async () => {
      const pair = await connected({
        server: { versions: ["2026-07-28"] },
        client: { versions: ["2026-07-28"], capabilities: { sampling: {} } },
        setup: (s) => s.tool("ask", {}, async (_args, ctx) => (await ctx.createMessage(ASK), OK)),
      });
      const call = track(pair.client.callTool("ask"));
      await pair.settle();
      return call.error;
    },
  },
  {
    side: "Client",
    path: "2026-07-28: the server still asks for input after maxInputRounds",
    expected: InputRoundsExceededError,
    provoke: async () => {
      const pair = await connected({
        server: { versions: ["2026-07-28"] },
        client: { versions: ["2026-07-28"], capabilities: { sampling: {} }, maxInputRounds: 2 },
        setup: (s) =>
          s.tool("ask", {}, (_args, ctx) =>
            ctx.inputRequired({ [`k${String(ctx.requestId)}`]: { method: "sampling/createMessage", params: ASK } }),
          ),
      });
      pair.client.setRequestHandler("sampling/createMessage", () => ({
        role: "assistant",
        content: { type: "text", text: "" },
        model: "m",
      }));
      const call = track(pair.client.callTool("ask"));
      await pair.settle();
      return call.error;
    },
  },
  {
    side: "Client",
    path: "a request before connect() (L-10)",
    expected: ProtocolMisuseError,
    provoke: async () => rejection(new Pair().client.listTools()),
  },
  {
    side: "Client",
    path: "a method the server's capabilities rule out (C-01)",
    expected: ProtocolMisuseError,
    provoke: async () => rejection((await connected({ server: { logging: false } })).client.setLoggingLevel("info")),
  },
  {
    side: "Client",
    path: "params JSON cannot encode (M-03)",
    expected: ProtocolMisuseError,
    provoke: async () => rejection((await connected()).client.callTool("x", { n: 1n })),
  },
  {
    side: "Client",
    path: "connect() a second time (L-01)",
    expected: ProtocolMisuseError,
    provoke: async () => rejection((await connected()).client.connect()),
  },
  {
    side: "Client",
    path: "connect(): the server refuses initialize",
    expected: McpError,
    provoke: async () => {
      const scripted = new ScriptedServer(() => ({ error: { code: -32600, message: "no" } }));
      const connecting = track(scripted.client.connect());
      await scripted.settle();
      return connecting.error;
    },
  },
  {
    side: "Client",
    path: "connect(): the transport ends before the answer",
    expected: ConnectionClosedError,
    provoke: async () => {
      const pair = new Pair();
      const connecting = track(pair.client.connect());
      // The end of input reaches the client before the server's answer can (delivery is a microtask away).
      pair.client.driver.receiveEof();
      await pair.settle();
      return connecting.error;
    },
  },
  {
    side: "Client",
    path: "notify() of a notification the gate refuses (throws)",
    expected: ProtocolMisuseError,
    provoke: async () => {
      const pair = await connected();
      try {
        pair.client.notify("notifications/tools/list_changed");
      } catch (error) {
        return error;
      }
      return "nothing thrown";
    },
  },
  // ── ServerSession.request and the ctx calls of handlers ──
  {
    side: "Server",
    path: "the client answers a JSON-RPC error (no handler: -32601)",
    expected: McpError,
    provoke: () => serverCall((ctx) => ctx.createMessage(ASK), { client: samplingClient }),
  },
  {
    side: "Server",
    path: "no answer within timeoutMs",
    expected: RequestTimeoutError,
    provoke: async () => {
      const pair = await connected({ client: samplingClient });
      pair.client.setRequestHandler("sampling/createMessage", () => new Promise(() => undefined));
      const asked = track(pair.session.request("sampling/createMessage", ASK, { timeoutMs: 100 }));
      await pair.advance(200);
      return asked.error;
    },
  },
  {
    side: "Server",
    path: "the signal aborts it",
    expected: RequestAbortedError,
    provoke: () =>
      serverCall(
        (ctx) => {
          const controller = new PeerAbortController();
          const asked = ctx.createMessage(ASK, { signal: controller.signal });
          controller.abort("no longer needed");
          return asked;
        },
        { client: samplingClient },
      ),
  },
  {
    side: "Server",
    path: "the signal was aborted before",
    expected: RequestAbortedError,
    provoke: () =>
      serverCall(
        (ctx) => {
          const controller = new PeerAbortController();
          controller.abort();
          return ctx.createMessage(ASK, { signal: controller.signal });
        },
        { client: samplingClient },
      ),
  },
  {
    side: "Server",
    path: "the session closes while it is in flight",
    expected: ConnectionClosedError,
    provoke: async () => {
      const pair = await connected({ client: samplingClient });
      pair.client.setRequestHandler("sampling/createMessage", () => new Promise(() => undefined));
      const asked = track(pair.session.request("sampling/createMessage", ASK));
      await pair.settle();
      pair.session.close();
      await pair.settle();
      return asked.error;
    },
  },
  {
    side: "Server",
    path: "a request on a closed session",
    expected: ConnectionClosedError,
    provoke: async () => {
      const pair = await connected();
      pair.session.close();
      return rejection(pair.session.request("ping", undefined));
    },
  },
  {
    side: "Server",
    path: "the answer is over limits.maxLineBytes",
    expected: ResponseTooLargeError,
    provoke: async () => {
      const pair = await connected({ server: { limits: { maxLineBytes: 4096 } }, client: { capabilities: { roots: {} } } });
      pair.client.setRequestHandler("roots/list", () => ({ roots: [{ uri: `file:///${"x".repeat(10_000)}` }] }));
      const asked = track(pair.session.request("roots/list", undefined));
      await pair.settle();
      return asked.error;
    },
  },
  {
    side: "Server",
    path: "a request the client's capabilities rule out (C-01)",
    expected: ProtocolMisuseError,
    provoke: () => serverCall((ctx) => ctx.createMessage(ASK)),
  },
  {
    side: "Server",
    path: "params JSON cannot encode (M-03)",
    expected: ProtocolMisuseError,
    provoke: () => serverCall((ctx) => ctx.createMessage({ ...ASK, metadata: { n: 1n } } as never), { client: samplingClient }),
  },
  {
    side: "Server",
    path: "ctx.log data JSON cannot encode (throws)",
    expected: ProtocolMisuseError,
    provoke: () => serverCall((ctx) => ctx.log("info", { n: 1n })),
  },
  {
    side: "Server",
    path: "ctx.inputRequired in the session era (throws)",
    expected: ProtocolMisuseError,
    provoke: () => serverCall((ctx) => ctx.inputRequired({})),
  },
  {
    side: "Server",
    path: "2026-07-28: a server-initiated request (MOD-09)",
    expected: ProtocolMisuseError,
    provoke: async () => {
      const pair = await connected({ server: { versions: ["2026-07-28"] }, client: { versions: ["2026-07-28"] } });
      return rejection(pair.session.request("ping", undefined));
    },
  },
  {
    side: "Server",
    path: "notify() of a notification the gate refuses (throws)",
    expected: ProtocolMisuseError,
    provoke: async () => {
      const pair = await connected();
      try {
        pair.session.notify("notifications/roots/list_changed");
      } catch (error) {
        return error;
      }
      return "nothing thrown";
    },
  },
];

for (const row of ROWS) {
  test(`${row.side}: ${row.path} → ${row.expected.name}`, async () => {
    const error = await row.provoke();
    assert.ok(
      error instanceof row.expected,
      `expected ${row.expected.name}, got ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
    );
    assert.ok(error instanceof PeerError, "every rejection of the peer layer is a PeerError");
    if (row.expected !== McpError) assert.ok(!(error instanceof McpError), "a local failure is never an McpError");
  });
}

test("the table covers both sides and every class of the taxonomy but the HTTP and task ones (tested with their transports)", () => {
  const classes = new Set(ROWS.map((r) => r.expected));
  for (const c of [
    McpError,
    RequestTimeoutError,
    RequestAbortedError,
    ConnectionClosedError,
    ResponseTooLargeError,
    InvalidResultError,
    InputRoundsExceededError,
    ProtocolMisuseError,
  ])
    assert.ok(classes.has(c), c.name);
  assert.ok(ROWS.some((r) => r.side === "Server") && ROWS.some((r) => r.side === "Client"));
});

test("ENG-01: an exception of an engine command that is no LocalProtocolError still rejects as a ProtocolMisuseError (its cause kept)", async () => {
  const pair = await connected({ setup: (s) => s.tool("t", {}, () => OK) });
  // A stand-in for any exception of a command that names no protocol rule.
  const engine = pair.client.engine as unknown as { request: (...args: unknown[]) => number };
  const original = engine.request.bind(engine);
  engine.request = () => {
    throw new RangeError("no room");
  };
  try {
    const error = await rejection(pair.client.request("ping"));
    assert.ok(error instanceof ProtocolMisuseError && error.rule === "ENG-01" && /RangeError: no room/.test(error.got), String(error));
    assert.ok((error as Error & { cause?: unknown }).cause instanceof RangeError);
  } finally {
    engine.request = original;
  }
});

test("every subclass of the peer layer's errors names itself (a literal, so minification keeps it) and keeps instanceof of its parents", () => {
  const made: [string, Error, Function, Function][] = [
    ["HttpBodyLimitError", new HttpBodyLimitError("a JSON-RPC answer", 10, 11, 200), HttpBodyLimitError, HttpTransportError],
    ["HttpRedirectError", new HttpRedirectError("HTTP-14", "no redirect", "302", 302), HttpRedirectError, HttpTransportError],
    ["ServerExitedError", new ServerExitedError("initialize", 1, null, []), ServerExitedError, ConnectionClosedError],
    [
      "SkillVerificationError",
      new SkillVerificationError({ rule: "SK-12", uri: "skill://a/SKILL.md", check: "size", expected: "1", got: "2" }),
      SkillVerificationError,
      PeerError,
    ],
  ];
  for (const [name, error, own, parent] of made) {
    assert.equal(error.name, name);
    assert.ok(error instanceof own && error instanceof parent && error instanceof PeerError, name);
  }
});
