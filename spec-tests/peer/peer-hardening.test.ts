// The peer layer never crashes its process: peer values too deep to encode, handler
// results JSON cannot encode (BigInt, cycles, throwing getters, deep nesting), handlers that
// throw synchronously or asynchronously, and internal control flow the handler did not await.
// Each case is driven against a ServerSession (or a Client) fed raw lines, so nothing on the
// test's side has to encode the hostile value; every case must end in an error answer (or an
// event) and leave the session answering the next request.
//
// Run under `--unhandled-rejections=strict`: a rejection nobody handled fails the run.

import { test } from "node:test";
import assert from "node:assert/strict";
import { MODERN_VERSIONS, SESSION_VERSIONS, type CallToolResult, type ProtocolVersion } from "../../lib/index.js";
import { McpError, ProtocolMisuseError, Server, type ServerOptions, type ServerSession } from "../../lib/peer/index.js";
import { FakeClock, FakeHost, Pair, SERVER_INFO, ScriptedServer, initializeResult, lines } from "../support/peer-harness.js";

const ALL: ProtocolVersion[] = [...SESSION_VERSIONS, ...MODERN_VERSIONS];
type Message = Record<string, unknown>;

/** A value nested `depth` objects deep, built without recursion. */
export function deepValue(depth: number): unknown {
  let value: unknown = {};
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** `{"a":{"a":...}}` `depth` levels deep as text, so the test never has to stringify the value. */
export function deepJson(depth: number): string {
  return '{"a":'.repeat(depth) + "{}" + "}".repeat(depth);
}

/** The 2026-07-28 envelope of a request from a client that declares elicitation, sampling and roots. */
const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {}, sampling: {}, roots: {} },
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
};

/** A ServerSession fed raw lines: `send` takes a message as text (so hostile values need no encoding here). */
export class RawSession {
  readonly clock = new FakeClock();
  readonly host = new FakeHost(this.clock, true);
  readonly server: Server;
  readonly session: ServerSession;
  readonly diagnostics: Message[] = [];

  constructor(setup: (server: Server) => void, options: Partial<ServerOptions> = {}) {
    this.server = new Server({
      info: SERVER_INFO,
      versions: ALL,
      onDiagnostic: (event) => this.diagnostics.push({ ...event }),
      ...options,
    });
    setup(this.server);
    this.session = this.server.connect(this.host);
  }

  sendText(text: string): void {
    this.session.receiveBytes(new TextEncoder().encode(text + "\n"));
  }

  send(message: Message): void {
    this.session.receiveBytes(lines(message));
  }

  /** A modern tools/call whose params are given as JSON text pieces (merged after name and _meta). */
  callModern(id: number, name: string, extraParamsJson = ""): void {
    const head = JSON.stringify({ name, arguments: {}, _meta: MODERN_META }).slice(0, -1);
    this.sendText(
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${head}${extraParamsJson === "" ? "" : "," + extraParamsJson}}}`,
    );
  }

  /** Lets handlers' promises run. */
  async settle(): Promise<void> {
    for (let i = 0; i < 50; i++) await Promise.resolve();
  }

  answer(id: number): Message | undefined {
    return this.host.sent.find((m) => m.id === id && m.method === undefined);
  }
}

const ok = (text: string): CallToolResult => ({ content: [{ type: "text", text }] });

/** A tool that asks the client to elicit (an input_required round in 2026-07-28), then answers "done". */
function elicitingServer(server: Server): void {
  server.tool("ask", {}, async (_args, ctx) => {
    const answer = await ctx.elicit({ mode: "form", message: "name?", requestedSchema: { type: "object", properties: {} } });
    return ok(`done ${answer.action}`);
  });
  server.tool("echo", {}, () => ok("echo"));
}

function assertError(message: Message | undefined, codes: readonly number[], pattern: RegExp): void {
  assert.ok(message !== undefined, "an answer was sent");
  const error = message.error as { code: number; message: string } | undefined;
  assert.ok(error !== undefined, `an error answer: ${JSON.stringify(message).slice(0, 300)}`);
  assert.ok(codes.includes(error.code), `code ${error.code} in ${codes.join(", ")}`);
  assert.match(error.message, pattern);
}

// ── a deep value in inputResponses or in the carried answers ─────────────────────────────────

test("a 5,000-deep value in inputResponses is answered -32602 and the session answers the next request", async () => {
  const raw = new RawSession(elicitingServer);
  raw.callModern(1, "ask", `"inputResponses":{"other#0":${deepJson(5000)}}`);
  await raw.settle();
  assertError(raw.answer(1), [-32602], /inputResponses.*nested deeper than \d+/);
  raw.callModern(2, "echo");
  await raw.settle();
  assert.deepEqual((raw.answer(2)?.result as Message | undefined)?.content, [{ type: "text", text: "echo" }]);
});

test("a 5,000-deep value in an unsealed mcp-engine/answers requestState is answered -32602", async () => {
  const raw = new RawSession(elicitingServer);
  const state = JSON.stringify("mcp-engine/answers:" + `{"other#0":${deepJson(5000)}}`);
  raw.callModern(1, "ask", `"requestState":${state}`);
  await raw.settle();
  assertError(raw.answer(1), [-32602], /requestState.*nested deeper than \d+/);
  raw.callModern(2, "echo");
  await raw.settle();
  assert.ok(raw.answer(2)?.result !== undefined);
});

test("answers within the depth bound are carried to the next round", async () => {
  const raw = new RawSession(elicitingServer);
  raw.callModern(1, "ask", `"inputResponses":{"other#0":${deepJson(20)}}`);
  await raw.settle();
  const result = raw.answer(1)?.result as Message | undefined;
  assert.equal(result?.resultType, "input_required");
  assert.match(String(result?.requestState), /^mcp-engine\/answers:/);
});

// ── the structural rule: whatever a handler does is answered, and the session goes on ────────

/** A session-era ServerSession (initialized by raw lines) with the tools of `setup`. */
function sessionEra(setup: (server: Server) => void, options: Partial<ServerOptions> = {}): RawSession {
  const raw = new RawSession(setup, options);
  raw.send({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
  });
  raw.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return raw;
}

function call(raw: RawSession, id: number, name: string, args: Message = {}): void {
  raw.send({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
}

/** The text of an isError tool result. */
function toolErrorText(message: Message | undefined): string {
  const result = message?.result as { isError?: boolean; content?: Array<{ text?: string }> } | undefined;
  assert.equal(result?.isError, true, `an isError result: ${JSON.stringify(message)}`);
  return String(result?.content?.[0]?.text);
}

const cyclic = (): Message => {
  const value: Message = { content: [] };
  value.self = value;
  return value;
};

const HOSTILE_RESULTS: ReadonlyArray<readonly [string, () => unknown, RegExp]> = [
  ["a BigInt", () => ({ content: [{ type: "text", text: "x" }], structuredContent: { n: 10n } }), /a BigInt \(10n\)/],
  ["a cycle", cyclic, /a cycle/],
  [
    "a throwing getter",
    () => ({
      content: [],
      get structuredContent(): unknown {
        throw new Error("getter exploded");
      },
    }),
    /reading it threw: getter exploded/,
  ],
  [
    "a throwing toJSON",
    () => ({
      content: [],
      _meta: {
        toJSON: () => {
          throw new Error("toJSON exploded");
        },
      },
    }),
    /reading it threw: toJSON exploded/,
  ],
  ["a 5,000-deep value", () => ({ content: [], structuredContent: deepValue(5000) }), /nested deeper than 256 levels/],
];

for (const [what, make, reason] of HOSTILE_RESULTS) {
  test(`ENG-09: a handler result holding ${what} is answered -32603 saying why; the session answers the next request`, async () => {
    const raw = sessionEra((s) => {
      s.tool("hostile", {}, () => make() as CallToolResult);
      s.tool("echo", {}, () => ok("echo"));
    });
    call(raw, 1, "hostile");
    await raw.settle();
    assertError(raw.answer(1), [-32603], /The handler's result cannot be sent as JSON/);
    assert.match(String((raw.answer(1)?.error as Message).message), reason);
    call(raw, 2, "echo");
    await raw.settle();
    assert.ok(raw.answer(2)?.result !== undefined, "the next request is answered");
  });
}

test("ENG-09: a plain result goes to the engine uncopied; a getter that turns unencodable when the drain reads it is answered -32603, reported, and the session goes on", async () => {
  let reads = 0;
  const raw = sessionEra((s) => {
    // Plain data when the peer layer looks at it, a BigInt when the drain encodes it: only the engine's encoder can catch it.
    // Async: its answer is drained by a pump of its own, which must dispatch what the drain reported.
    s.tool(
      "fickle",
      {},
      async () =>
        ({
          content: [],
          get structuredContent(): unknown {
            return ++reads === 1 ? { n: 1 } : { n: 2n };
          },
        }) as unknown as CallToolResult,
    );
    s.tool("echo", {}, () => ok("echo"));
  });
  call(raw, 1, "fickle");
  await raw.settle();
  assertError(raw.answer(1), [-32603], /cannot be encoded as JSON.*BigInt/);
  assert.ok(
    raw.diagnostics.some((d) => d.rule === "ENG-09"),
    "reported by the pump that drained it",
  );
  assert.equal(reads, 2, "read once by the check, once by the encoder (no copy in between)");
  assert.ok(
    raw.diagnostics.some((d) => d.rule === "ENG-09"),
    `an ENG-09 diagnostic: ${JSON.stringify(raw.diagnostics)}`,
  );
  call(raw, 2, "echo");
  await raw.settle();
  assert.deepEqual((raw.answer(2)?.result as Message | undefined)?.content, [{ type: "text", text: "echo" }]);
});

test("ENG-09: a message host (send, which encodes each message itself) still gets a copy: a getter runs once and its first value is sent", async () => {
  let reads = 0;
  const server = new Server({ info: SERVER_INFO });
  server.tool(
    "fickle",
    {},
    async () =>
      ({
        content: [],
        get structuredContent(): unknown {
          return ++reads === 1 ? { n: 1 } : { n: 2n };
        },
      }) as unknown as CallToolResult,
  );
  const sent: Message[] = [];
  const session = server.connect({
    send: (outbound) => sent.push(JSON.parse(JSON.stringify(outbound.message)) as Message),
    now: () => 0,
    armTimer: () => undefined,
  });
  session.receiveMessage({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
  });
  session.receiveMessage({ jsonrpc: "2.0", method: "notifications/initialized" });
  session.receiveMessage({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "fickle", arguments: {} } });
  for (let i = 0; i < 20; i++) await Promise.resolve();
  assert.deepEqual((sent.find((m) => m.id === 1)?.result as Message | undefined)?.structuredContent, { n: 1 });
  assert.equal(reads, 1);
});

test("TL-01, JR-01: handlers that throw synchronously, asynchronously, a non-Error, or an Error whose message getter throws: each is answered", async () => {
  const raw = sessionEra((s) => {
    s.tool("sync", {}, () => {
      throw new Error("sync failure");
    });
    s.tool("async", {}, async () => {
      await Promise.resolve();
      throw new Error("async failure");
    });
    s.tool("odd", {}, () => {
      throw Symbol("odd");
    });
    s.tool("nasty", {}, () => {
      const error = new Error("unused");
      Object.defineProperty(error, "message", {
        get: () => {
          throw new Error("message getter");
        },
      });
      throw error;
    });
    s.tool("null", {}, () => null as unknown as CallToolResult);
    s.prompt("p", {}, () => {
      throw new Error("prompt failure");
    });
  });
  ["sync", "async", "odd", "nasty", "null"].forEach((name, i) => call(raw, i + 1, name));
  raw.send({ jsonrpc: "2.0", id: 6, method: "prompts/get", params: { name: "p" } });
  await raw.settle();
  assert.equal(toolErrorText(raw.answer(1)), "sync failure");
  assert.equal(toolErrorText(raw.answer(2)), "async failure");
  assert.equal(toolErrorText(raw.answer(3)), "internal error");
  assert.equal(toolErrorText(raw.answer(4)), "an Error whose message could not be read");
  assertError(raw.answer(5), [-32603], /./);
  assertError(raw.answer(6), [-32603], /prompt failure/);
});

test("ENG-09: an McpError whose data JSON cannot encode is answered -32603 with its message", async () => {
  const raw = sessionEra((s) =>
    s.prompt("p", {}, () => {
      throw new McpError(-32000, "custom failure", { n: 1n });
    }),
  );
  raw.send({ jsonrpc: "2.0", id: 1, method: "prompts/get", params: { name: "p" } });
  await raw.settle();
  assertError(raw.answer(1), [-32603], /custom failure/);
});

test("M-03: ctx.log with data JSON cannot encode throws a ProtocolMisuseError into the handler (answered), not into a later drain", async () => {
  const raw = sessionEra((s) =>
    s.tool("log", {}, (_args, ctx) => {
      ctx.log("info", { n: 2n });
      return ok("unreachable");
    }),
  );
  call(raw, 1, "log");
  await raw.settle();
  assert.match(toolErrorText(raw.answer(1)), /notifications\/message: \[M-03\] expected data with a JSON form; got a BigInt/);
});

test("2026-07-28: a handler that calls ctx.elicit without awaiting it leaves no unhandled rejection", async () => {
  const raw = new RawSession((s) =>
    s.tool("careless", {}, (_args, ctx) => {
      void ctx.elicit({ mode: "form", message: "ignored", requestedSchema: { type: "object", properties: {} } });
      return ok("answered anyway");
    }),
  );
  raw.callModern(1, "careless");
  await raw.settle();
  // Under --unhandled-rejections=strict an unhandled InputRequiredSignal would have failed the run by now.
  await new Promise<void>((resolve) => setImmediate(resolve));
  assert.deepEqual((raw.answer(1)?.result as Message | undefined)?.content, [{ type: "text", text: "answered anyway" }]);
});

test("ENG-06: completion for an argument named like an Object.prototype member finds no completer (own keys only)", async () => {
  const raw = sessionEra((s) =>
    s.prompt("p", { arguments: [{ name: "item" }], complete: { item: () => ["x"] } }, () => ({ messages: [] })),
  );
  for (const [id, name] of [
    [1, "constructor"],
    [2, "toString"],
    [3, "__proto__"],
    [4, "item"],
  ] as const) {
    raw.send({
      jsonrpc: "2.0",
      id,
      method: "completion/complete",
      params: { ref: { type: "ref/prompt", name: "p" }, argument: { name, value: "" } },
    });
  }
  await raw.settle();
  for (const id of [1, 2, 3]) assert.deepEqual((raw.answer(id)?.result as Message).completion, { values: [], total: 0, hasMore: false });
  assert.deepEqual((raw.answer(4)?.result as Message).completion, { values: ["x"], total: 1, hasMore: false });
});

test("a host whose write throws: the fault is reported as a diagnostic and nothing escapes the driver", async () => {
  const raw = sessionEra((s) => s.tool("echo", {}, () => ok("echo")));
  const write = raw.host.write.bind(raw.host);
  let fail = true;
  raw.host.write = (bytes) => {
    if (fail) {
      fail = false;
      throw new Error("pipe exploded");
    }
    write(bytes);
  };
  call(raw, 1, "echo");
  await raw.settle();
  assert.ok(
    raw.diagnostics.some((d) => d.rule === "peer-fault" && /pipe exploded/.test(String(d.got))),
    JSON.stringify(raw.diagnostics),
  );
  call(raw, 2, "echo");
  await raw.settle();
  assert.ok(raw.answer(2)?.result !== undefined, "later answers still go out");
});

// ── the client side ──────────────────────────────────────────────────────────────────────────

test("ENG-09, M-03: client: a server-request handler whose result holds a BigInt is answered -32603; callTool params JSON cannot encode reject at once", async () => {
  const pair = new Pair({
    client: { capabilities: { roots: {} } },
    setup: (s) =>
      s.tool("roots", {}, async (_args, ctx) => {
        try {
          await ctx.listRoots();
          return ok("no error");
        } catch (error) {
          return ok(`error: ${(error as Error).message}`);
        }
      }),
  });
  await pair.connect();
  pair.client.setRequestHandler("roots/list", () => ({ roots: [{ uri: "file:///x", name: "x", _meta: { n: 3n } }] }) as never);
  const answer = pair.client.callTool("roots");
  await pair.settle();
  assert.match(
    String(((await answer).content[0] as { text: string }).text),
    /error: MCP error -32603: The handler's result cannot be sent as JSON: a BigInt/,
  );
  const refused = await pair.client.callTool("roots", { n: 4n }).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(refused instanceof ProtocolMisuseError && refused.rule === "M-03", String(refused));
  assert.match(refused.message, /tools\/call: \[M-03\] expected params with a JSON form; got a BigInt/);
  assert.equal(pair.clientHost.messages("tools/call").length, 1, "the refused call never went out");
});

test("ENG-06: client, 2026-07-28: input requests keyed __proto__ are answered under that key; more than maxInputRequests fail the call", async () => {
  const seen: Message[] = [];
  const discover = {
    result: {
      resultType: "complete",
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: {} },
      _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO },
    },
  };
  const roots = (n: number): string => {
    const entries = Array.from({ length: n }, (_, i) => `"k${i}":{"method":"roots/list"}`);
    return `{${entries.join(",")}}`;
  };
  const scripted = new ScriptedServer(
    (m) => {
      if (m.method === "server/discover") return discover;
      seen.push(m);
      const args = (m.params as Message).arguments as Message;
      if ((m.params as Message).inputResponses !== undefined) return { result: { resultType: "complete", content: [] } };
      // Keys written as JSON text: "__proto__" must arrive as an own key.
      const inputRequests = args.many === true ? JSON.parse(roots(33)) : JSON.parse('{"__proto__":{"method":"roots/list"}}');
      return { result: { resultType: "input_required", inputRequests } };
    },
    { versions: ["2026-07-28"], capabilities: { roots: {} } },
  );
  scripted.client.setRequestHandler("roots/list", () => ({ roots: [] }));
  const connecting = scripted.client.connect();
  await scripted.settle();
  await connecting;
  const done = scripted.client.callTool("t", {});
  await scripted.settle();
  await done;
  const retry = (seen[1]?.params as Message).inputResponses as Message;
  assert.ok(Object.hasOwn(retry, "__proto__"), JSON.stringify(retry));
  assert.deepEqual(retry["__proto__"], { roots: [] });
  const many = scripted.client.callTool("t", { many: true }).then(
    () => undefined,
    (error: unknown) => error,
  );
  await scripted.settle();
  assert.match(
    String(await many),
    /invalid result at result.inputRequests: expected at most 32 input requests \(maxInputRequests\), got 33/,
  );
});

// ── bounds on what a server can make the client hold ─────────────────────────────────────────

test("client: listTools over pages stops at maxListItems with an InvalidResultError (a server could page without end)", async () => {
  let page = 0;
  const scripted = new ScriptedServer(
    (m) =>
      m.method === "initialize"
        ? initializeResult({ tools: {} })
        : {
            result: { tools: [0, 1, 2].map((i) => ({ name: `t${page}_${i}`, inputSchema: { type: "object" } })), nextCursor: `c${++page}` },
          },
    { maxListItems: 5 },
  );
  const connecting = scripted.client.connect();
  await scripted.settle();
  await connecting;
  const listed = scripted.client.listTools().then(
    () => undefined,
    (error: unknown) => error,
  );
  await scripted.settle();
  assert.match(
    String(await listed),
    /tools\/list: invalid result at tools: expected at most 5 items over all pages \(maxListItems\), got 6/,
  );
  assert.equal(page, 2, "no page requested past the bound");
});

test("X-04: client: server requests past maxConcurrentHandlers wait their turn in order; one cancelled while waiting never runs", async () => {
  const scripted = new ScriptedServer((m) => (m.method === "initialize" ? initializeResult({}) : undefined), {
    maxConcurrentHandlers: 1,
    capabilities: { roots: {} },
  });
  const started: string[] = [];
  const release: Array<() => void> = [];
  scripted.client.setRequestHandler("roots/list", (_params, ctx) => {
    started.push(String(ctx.requestId));
    return new Promise((resolve) => release.push(() => resolve({ roots: [] })));
  });
  const connecting = scripted.client.connect();
  await scripted.settle();
  await connecting;
  for (const id of ["s1", "s2", "s3"]) scripted.client.input.receiveBytes(lines({ jsonrpc: "2.0", id, method: "roots/list" }));
  scripted.client.input.receiveBytes(lines({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "s2" } }));
  await scripted.settle();
  assert.deepEqual(started, ["s1"]);
  release.shift()?.();
  await scripted.settle();
  assert.deepEqual(started, ["s1", "s3"], "s2 was cancelled while waiting");
  release.shift()?.();
  await scripted.settle();
  const answered = scripted.host.sent.filter((m) => m.result !== undefined).map((m) => m.id);
  assert.deepEqual(answered, ["s1", "s3"]);
});
