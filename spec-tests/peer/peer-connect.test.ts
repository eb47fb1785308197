// The peer layer in process (lib/peer): a Client and a Server joined by fake PeerHosts on a
// fake clock (spec-tests/support/peer-harness.ts). Covers connect() and its failures, and the
// typed list helpers' pagination (cursors followed, repeated cursors and endless pages refused).

import { test } from "node:test";
import assert from "node:assert/strict";
import { LocalProtocolError } from "../../lib/index.js";
import { ConnectionClosedError, InvalidResultError, ProtocolMisuseError, parseTemplate } from "../../lib/peer/index.js";
import { Pair, SERVER_INFO, ScriptedServer, initializeResult, pagedBy, track } from "../support/peer-harness.js";
import { mcpError, rejection } from "../support/helpers.js";
import { OK, connected } from "../support/peer-helpers.js";

// ── connect() ────────────────────────────────────────────────────────────────────

test("L-03: connect() resolves with the negotiated version, serverInfo, capabilities and instructions", async () => {
  const pair = new Pair({ server: { instructions: "Call echo first." }, setup: (s) => s.tool("echo", {}, () => OK) });
  assert.equal(pair.client.server, undefined, "nothing known before connect");
  const result = await pair.connect();
  assert.deepEqual(result, {
    era: "session",
    version: "2025-11-25",
    serverInfo: SERVER_INFO,
    capabilities: { logging: {}, tools: { listChanged: true } },
    instructions: "Call echo first.",
  });
  assert.deepEqual(pair.client.server, result);
  assert.deepEqual(pair.session.clientCapabilities, {});
  assert.equal(pair.session.engine.phase, "operating");
});

test("V-02, L-03: connect() without instructions, and with an older version offered by the client", async () => {
  const pair = await connected({ client: { versions: ["2025-03-26"], capabilities: { roots: {} } } });
  assert.equal(pair.client.server?.version, "2025-03-26");
  assert.equal(pair.client.server?.instructions, undefined);
  assert.deepEqual(pair.session.clientCapabilities, { roots: {} });
});

test("V-04: connect() rejects when the server answers a version the client does not speak", async () => {
  const diagnostics: string[] = [];
  const closes: string[] = [];
  const scripted = new ScriptedServer((m) => (m.method === "initialize" ? initializeResult({}, "1999-01-01") : undefined), {
    onDiagnostic: (e) => diagnostics.push(e.rule),
    onClose: (e) => closes.push(`${e.reason}:${e.rule}`),
  });
  const result = track(scripted.client.connect());
  await scripted.settle();
  assert.ok(result.error instanceof ConnectionClosedError, String(result.error));
  assert.match(
    result.error.message,
    /^initialize: connection closed \(server answered unsupported protocol version string "1999-01-01"\)$/,
  );
  assert.deepEqual(diagnostics, ["V-04"]);
  assert.deepEqual(closes, ["fatal:V-04"]);
  assert.equal(scripted.client.server, undefined);
  assert.equal(scripted.host.messages("notifications/initialized").length, 0);
});

test("L-03: connect() rejects with the server's initialize error", async () => {
  const scripted = new ScriptedServer(() => ({ error: { code: -32600, message: "not today", data: { retry: false } } }));
  const error = await mcpError(scripted.client.connect(), -32600);
  assert.equal(error.message, "MCP error -32600: not today");
  assert.deepEqual(error.data, { retry: false });
  assert.equal(scripted.client.engine.isClosed, true);
});

test("L-03: connect() rejects on a malformed initialize result", async () => {
  const scripted = new ScriptedServer(() => ({ result: { protocolVersion: "2025-11-25", capabilities: {} } }));
  const error = await rejection(scripted.client.connect());
  assert.ok(error instanceof ConnectionClosedError);
  assert.match(error.message, /serverInfo/);
});

test("S-01: close() and EOF during connect() reject it with ConnectionClosedError", async () => {
  const silent = new ScriptedServer(() => undefined);
  const p = track(silent.client.connect());
  await silent.settle();
  silent.client.close();
  await silent.settle();
  assert.ok(p.error instanceof ConnectionClosedError);
  assert.match(p.error.message, /^initialize: connection closed/);

  const eof = new ScriptedServer(() => undefined);
  const q = track(eof.client.connect());
  await eof.settle();
  eof.client.driver.receiveEof();
  await eof.settle();
  assert.ok(q.error instanceof ConnectionClosedError);
});

test("L-01: a second connect() rejects with ProtocolMisuseError naming the engine's rule (never the engine's LocalProtocolError)", async () => {
  const pair = await connected();
  const error = await rejection(pair.client.connect());
  assert.ok(error instanceof ProtocolMisuseError && !(error instanceof LocalProtocolError), String(error));
  assert.equal(error.rule, "L-01");
  assert.ok((error as Error & { cause?: unknown }).cause instanceof LocalProtocolError);
});

test("L-10: requests before connect() reject with ProtocolMisuseError and send nothing", async () => {
  const pair = new Pair({ setup: (s) => s.tool("echo", {}, () => OK) });
  const error = await rejection(pair.client.listTools());
  assert.ok(error instanceof ProtocolMisuseError && error.rule === "L-10", String(error));
  assert.equal(pair.clientHost.sent.length, 0);
});

// ── pagination ───────────────────────────────────────────────────────────────────

test("N-02, N-03: listTools() follows nextCursor over several pages with a small pageSize", async () => {
  const names = ["a", "b", "c", "d", "e"];
  const pair = await connected({
    server: { paging: pagedBy(2) },
    setup: (s) => names.forEach((n) => s.tool(n, { description: `tool ${n}` }, () => OK)),
  });
  const tools = await pair.client.listTools();
  assert.deepEqual(
    tools.map((t) => t.name),
    names,
  );
  assert.deepEqual(tools[0], { name: "a", description: "tool a", inputSchema: { type: "object" } });
  const requests = pair.clientHost.messages("tools/list");
  assert.equal(requests.length, 3, "three pages of at most two");
  assert.equal(requests[0]?.params, undefined, "the first page has no cursor");
  assert.equal(typeof (requests[1]?.params as { cursor: unknown }).cursor, "string");
  assert.notEqual((requests[1]?.params as { cursor: string }).cursor, (requests[2]?.params as { cursor: string }).cursor);
});

test("N-03: listResources(), listResourceTemplates() and listPrompts() paginate too", async () => {
  const pair = await connected({
    server: { paging: pagedBy(2) },
    setup: (s) => {
      for (const n of [1, 2, 3]) {
        s.resource(`mem://r${n}`, { name: `r${n}`, mimeType: "text/plain" }, (uri) => ({ contents: [{ uri, text: "" }] }));
        s.resourceTemplate(parseTemplate(`mem://t${n}/{x}`), { name: `t${n}` }, (uri) => ({ contents: [{ uri, text: "" }] }));
        s.prompt(`p${n}`, { description: `prompt ${n}` }, () => ({ messages: [] }));
      }
    },
  });
  assert.deepEqual(
    (await pair.client.listResources()).map((r) => r.uri),
    ["mem://r1", "mem://r2", "mem://r3"],
  );
  assert.deepEqual((await pair.client.listResources())[0], { uri: "mem://r1", name: "r1", mimeType: "text/plain" });
  assert.deepEqual(await pair.client.listResourceTemplates(), [
    { uriTemplate: "mem://t1/{x}", name: "t1" },
    { uriTemplate: "mem://t2/{x}", name: "t2" },
    { uriTemplate: "mem://t3/{x}", name: "t3" },
  ]);
  assert.deepEqual(
    (await pair.client.listPrompts()).map((p) => p.name),
    ["p1", "p2", "p3"],
  );
  assert.equal(pair.clientHost.messages("prompts/list").length, 2);
});

test("a server that repeats a cursor makes listTools() reject instead of looping", async () => {
  const scripted = new ScriptedServer((m) => {
    if (m.method === "initialize") return initializeResult({ tools: {} });
    return { result: { tools: [{ name: "t", inputSchema: { type: "object" } }], nextCursor: "again" } };
  });
  const connecting = scripted.client.connect();
  await scripted.settle();
  await connecting;
  const listing = scripted.client.listTools();
  await scripted.settle();
  const error = await rejection(listing);
  // The server answered, but not with a usable listing: a local InvalidResultError, not an McpError it never sent.
  assert.ok(error instanceof InvalidResultError && error.path === "result.nextCursor", String(error));
  assert.match(error.message, /cursor not seen before.*"again"/);
  assert.equal(scripted.host.messages("tools/list").length, 2, "stopped at the first repeat");
});

test("N-05: a page without a list contributes nothing; a forged cursor is refused by the server (-32602)", async () => {
  const scripted = new ScriptedServer((m) => (m.method === "initialize" ? initializeResult({ prompts: {} }) : { result: {} }));
  const connecting = scripted.client.connect();
  await scripted.settle();
  await connecting;
  const listing = scripted.client.listPrompts();
  await scripted.settle();
  assert.deepEqual(await listing, []);

  const pair = await connected({ setup: (s) => s.tool("a", {}, () => OK) });
  const error = await mcpError(pair.client.request("tools/list", { cursor: "forged" }), -32602);
  assert.equal((error.data as { cursor: unknown }).cursor, "forged");
});

test("pagination gives up after 10000 pages of ever-new cursors", async () => {
  let page = 0;
  const scripted = new ScriptedServer((m) =>
    m.method === "initialize" ? initializeResult({ tools: {} }) : { result: { tools: [], nextCursor: `c${++page}` } },
  );
  await scripted.client.connect();
  const error = await rejection(scripted.client.listTools());
  assert.ok(error instanceof InvalidResultError, String(error));
  assert.equal(error.message, "tools/list: invalid result at result.nextCursor: expected at most 10000 pages, got more");
  assert.equal(scripted.host.messages("tools/list").length, 10_000);
});
