// The peer layer never crashes its process (issue 10): peer values too deep to encode, handler
// results JSON cannot encode (BigInt, cycles, throwing getters, deep nesting), handlers that
// throw synchronously or asynchronously, and internal control flow the handler did not await.
// Each case is driven against a ServerSession (or a Client) fed raw lines, so nothing on the
// test's side has to encode the hostile value; every case must end in an error answer (or an
// event) and leave the session answering the next request.
//
// Run under `--unhandled-rejections=strict`: a rejection nobody handled fails the run.

import { test } from "node:test";
import assert from "node:assert/strict";
import { MODERN_VERSIONS, SESSION_VERSIONS, type CallToolResult, type ProtocolVersion } from "../lib/index.js";
import { Server, type ServerOptions, type ServerSession } from "../lib/peer/index.js";
import { FakeClock, FakeHost, SECRET, SERVER_INFO, lines } from "./peer-harness.js";

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
    this.server = new Server({ info: SERVER_INFO, paginationSecret: SECRET, versions: ALL, onDiagnostic: (event) => this.diagnostics.push({ ...event }), ...options });
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
    this.sendText(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${head}${extraParamsJson === "" ? "" : "," + extraParamsJson}}}`);
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

// ── issue 10, defect 1: a deep value in inputResponses or in the carried answers ─────────────

test("defect 1: a 5,000-deep value in inputResponses is answered -32602 and the session answers the next request", async () => {
  const raw = new RawSession(elicitingServer);
  raw.callModern(1, "ask", `"inputResponses":{"other#0":${deepJson(5000)}}`);
  await raw.settle();
  assertError(raw.answer(1), [-32602], /inputResponses.*nested deeper than \d+/);
  raw.callModern(2, "echo");
  await raw.settle();
  assert.deepEqual((raw.answer(2)?.result as Message | undefined)?.content, [{ type: "text", text: "echo" }]);
});

test("defect 1: a 5,000-deep value in an unsealed mcp-engine/answers requestState is answered -32602", async () => {
  const raw = new RawSession(elicitingServer);
  const state = JSON.stringify("mcp-engine/answers:" + `{"other#0":${deepJson(5000)}}`);
  raw.callModern(1, "ask", `"requestState":${state}`);
  await raw.settle();
  assertError(raw.answer(1), [-32602], /requestState.*nested deeper than \d+/);
  raw.callModern(2, "echo");
  await raw.settle();
  assert.ok(raw.answer(2)?.result !== undefined);
});

test("defect 1: answers within the depth bound are carried to the next round as before", async () => {
  const raw = new RawSession(elicitingServer);
  raw.callModern(1, "ask", `"inputResponses":{"other#0":${deepJson(20)}}`);
  await raw.settle();
  const result = raw.answer(1)?.result as Message | undefined;
  assert.equal(result?.resultType, "input_required");
  assert.match(String(result?.requestState), /^mcp-engine\/answers:/);
});
