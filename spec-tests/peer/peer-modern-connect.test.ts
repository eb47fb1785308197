// connect() and its era choice under 2026-07-28 ("modern" era), in process: a Client and a
// Server joined by fake PeerHosts on a fake clock (spec-tests/support/peer-harness.ts). Covers
// the server/discover probe, the fallback to initialize, -32022 and the retry with a version it
// names, the cases that must not fall back, and eras "session" and "modern" chosen outright.

import { test } from "node:test";
import assert from "node:assert/strict";
import { ConnectionClosedError, RequestTimeoutError } from "../../lib/peer/index.js";
import { Pair, SERVER_INFO, ScriptedServer, initializeResult, lines, track } from "../support/peer-harness.js";
import { mcpError } from "../support/helpers.js";
import { ALL, META_CAPS, META_VERSION, discoverAnswer, meta, modernPair, ok, params, text } from "../support/peer-modern-helpers.js";

// ── connect(): the era ──────────────────────────────────────────────────────────────

test('MOD-24, MOD-07: connect() era "auto" against a dual-era server: modern, with capabilities, serverInfo and instructions from server/discover', async () => {
  const pair = modernPair({ server: { instructions: "Use echo." }, setup: (s) => s.tool("echo", {}, () => ok("echo")) });
  const result = await pair.connect();
  assert.deepEqual(result, {
    era: "modern",
    version: "2026-07-28",
    serverInfo: SERVER_INFO,
    capabilities: { logging: {}, tools: { listChanged: true } },
    instructions: "Use echo.",
  });
  assert.deepEqual(pair.client.server, result);
  // One probe, no handshake: the only message is server/discover with the per-request envelope.
  assert.deepEqual(
    pair.clientHost.sent.map((m) => m.method),
    ["server/discover"],
  );
  const probe = pair.clientHost.sent[0];
  assert.equal(meta(probe)[META_VERSION], "2026-07-28");
  assert.deepEqual(meta(probe)[META_CAPS], {});
  // A probe alone commits the server to no era (a client may still fall back to initialize); the client is modern.
  assert.equal(pair.session.engine.era, "undecided");
  assert.equal(pair.client.engine.era, "modern");
  // The session works: a call goes through in the modern era, with the envelope.
  assert.equal(text(await pair.client.callTool("echo")), "echo");
  assert.equal(pair.session.engine.era, "modern");
  const call = pair.clientHost.messages("tools/call")[0];
  assert.equal(meta(call)[META_VERSION], "2026-07-28");
});

test('MOD-24: connect() era "auto" against a session-only server: server/discover is refused (-32601), then initialize; era "session"', async () => {
  const pair = new Pair({ client: { versions: ALL }, setup: (s) => s.tool("echo", {}, () => ok("echo")) });
  const result = await pair.connect();
  assert.equal(result.era, "session");
  assert.equal(result.version, "2025-11-25");
  assert.deepEqual(result.serverInfo, SERVER_INFO);
  assert.deepEqual(result.capabilities, { logging: {}, tools: { listChanged: true } });
  assert.deepEqual(
    pair.clientHost.sent.map((m) => m.method),
    ["server/discover", "initialize", "notifications/initialized"],
  );
  const answer = pair.serverHost.sent[0] as { id: unknown; error?: { code: number } };
  assert.equal(answer.id, 0);
  assert.equal(answer.error?.code, -32601);
  // The new engine's ids continue after the probe's.
  assert.equal(pair.clientHost.messages("initialize")[0]?.id, 1);
  assert.equal(pair.client.engine.era, "session");
  assert.equal(pair.session.engine.phase, "operating");
  // Session-era requests carry no modern envelope.
  assert.equal(text(await pair.client.callTool("echo")), "echo");
  assert.equal(meta(pair.clientHost.messages("tools/call")[0])[META_VERSION], undefined);
  await pair.client.ping();
});

test('MOD-24: connect() era "auto" against a server that never answers the probe: falls back after probeTimeoutMs; the late answer does not confuse the new engine', async () => {
  const diagnostics: string[] = [];
  const scripted = new ScriptedServer(
    (m) => {
      if (m.method === "initialize") return initializeResult({ tools: {} });
      if (m.method === "ping") return { result: {} };
      return undefined; // swallows server/discover
    },
    { versions: ALL, probeTimeoutMs: 1000, onDiagnostic: (e) => diagnostics.push(`${e.kind}:${e.rule}`) },
  );
  const connecting = track(scripted.client.connect());
  await scripted.settle();
  assert.equal(connecting.state, "pending");
  assert.deepEqual(
    scripted.received.map((m) => m.method),
    ["server/discover"],
  );
  assert.equal(scripted.host.armed, 1000, "the probe's deadline");

  scripted.clock.now = 999;
  await scripted.settle();
  assert.equal(connecting.state, "pending", "not before probeTimeoutMs");

  scripted.clock.now = 1000;
  scripted.host.fire(() => scripted.client.input.onTimer());
  await scripted.settle();
  assert.equal(connecting.state, "resolved", String(connecting.error));
  assert.equal(connecting.value?.era, "session");
  assert.equal(connecting.value?.version, "2025-11-25");
  const initialize = scripted.received.find((m) => m.method === "initialize");
  assert.ok(initialize !== undefined, "initialize sent");
  assert.notEqual(initialize.id, 0, "the initialize id is not the probe's");
  assert.equal(initialize.id, 1);
  assert.equal(params(initialize)._meta, undefined, "initialize carries no modern envelope");

  // The discover answer comes late, after the fallback: it is not taken for initialize's.
  scripted.client.input.receiveBytes(lines({ jsonrpc: "2.0", id: 0, ...discoverAnswer() }));
  await scripted.settle();
  assert.equal(scripted.client.engine.isClosed, false);
  assert.equal(scripted.client.engine.era, "session");
  assert.equal(scripted.client.server?.era, "session");
  assert.equal(scripted.client.server?.version, "2025-11-25");
  const ping = track(scripted.client.ping());
  await scripted.settle();
  assert.equal(ping.state, "resolved", String(ping.error));
  assert.equal(scripted.received.filter((m) => m.method === "ping")[0]?.id, 2);
  assert.equal(
    diagnostics.filter((d) => d.startsWith("violation")).length,
    0,
    `no protocol violation for the late answer to our own cancelled probe: ${diagnostics.join(", ")}`,
  );
});

test("MOD-24, MOD-06: connect(): a -32022 from a modern server naming no session version of ours rejects, without falling back", async () => {
  for (const data of [{ supported: ["2099-01-01"], requested: "2026-07-28" }, { supported: [], requested: "2026-07-28" }, undefined]) {
    const scripted = new ScriptedServer(
      (m) =>
        m.method === "server/discover"
          ? { error: { code: -32022, message: "Unsupported protocol version", ...(data === undefined ? {} : { data }) } }
          : initializeResult(),
      { versions: ALL },
    );
    const error = await mcpError(scripted.client.connect(), -32022);
    assert.deepEqual(error.data, data);
    assert.deepEqual(
      scripted.received.map((m) => m.method),
      ["server/discover"],
      `no initialize after ${JSON.stringify(data)}`,
    );
    assert.equal(scripted.client.server, undefined);
  }
});

test("MOD-24, MOD-06: connect(): a -32022 that lists a session version we speak falls back to initialize", async () => {
  const scripted = new ScriptedServer(
    (m) =>
      m.method === "server/discover"
        ? { error: { code: -32022, message: "Unsupported protocol version", data: { supported: ["2025-06-18"], requested: "2026-07-28" } } }
        : initializeResult({}, "2025-06-18"),
    { versions: ALL },
  );
  const result = await scripted.client.connect();
  assert.equal(result.era, "session");
  assert.equal(result.version, "2025-06-18");
  assert.deepEqual(
    scripted.received.map((m) => m.method),
    ["server/discover", "initialize", "notifications/initialized"],
  );
  assert.equal(scripted.received[1]?.id, 1);
});

test("MOD-06: connect(): a -32022 whose data.supported names a modern version of ours is retried once with it, with a new id (eras auto and modern)", async () => {
  for (const era of ["auto", "modern"] as const) {
    let discovers = 0;
    const refusal = {
      error: {
        code: -32022,
        message: "Unsupported protocol version",
        data: { supported: ["2099-01-01", "2026-07-28"], requested: "2026-07-28" },
      },
    };
    const scripted = new ScriptedServer(
      (m) =>
        m.method === "server/discover"
          ? ++discovers === 1
            ? refusal
            : discoverAnswer()
          : m.method === "tools/list"
            ? { result: { resultType: "complete", tools: [], ttlMs: 0, cacheScope: "public" } }
            : initializeResult(),
      {
        versions: ALL,
        era,
      },
    );
    const result = await scripted.client.connect();
    assert.equal(result.era, "modern", era);
    assert.equal(result.version, "2026-07-28");
    assert.deepEqual(
      scripted.received.map((m) => m.method),
      ["server/discover", "server/discover"],
      era,
    );
    assert.deepEqual(
      scripted.received.map((m) => m.id),
      [0, 1],
      "the retry has an id of its own",
    );
    for (const message of scripted.received) assert.equal(meta(message)[META_VERSION], "2026-07-28");
    // The retried engine is the one in use: later requests carry the envelope and the next ids.
    assert.deepEqual(await scripted.client.listTools(), []);
    const list = scripted.received[2];
    assert.equal(list?.method, "tools/list");
    assert.equal(list.id, 2);
    assert.equal(meta(list)[META_VERSION], "2026-07-28");
  }
});

test("MOD-06, MOD-24: connect(): a server that refuses the retry too gets no third server/discover: -32022 (auto falls back to initialize only for a session version it names)", async () => {
  const refuse = (supported: string[]) => ({
    error: { code: -32022, message: "Unsupported protocol version", data: { supported, requested: "2026-07-28" } },
  });
  for (const era of ["auto", "modern"] as const) {
    const scripted = new ScriptedServer((m) => (m.method === "server/discover" ? refuse(["2026-07-28"]) : initializeResult()), {
      versions: ALL,
      era,
    });
    await mcpError(scripted.client.connect(), -32022);
    assert.deepEqual(
      scripted.received.map((m) => m.method),
      ["server/discover", "server/discover"],
      era,
    );
    assert.equal(scripted.client.server, undefined);
  }
  const dual = new ScriptedServer(
    (m) => (m.method === "server/discover" ? refuse(["2026-07-28", "2025-06-18"]) : initializeResult({}, "2025-06-18")),
    { versions: ALL },
  );
  const result = await dual.client.connect();
  assert.equal(result.era, "session");
  assert.equal(result.version, "2025-06-18");
  assert.deepEqual(
    dual.received.map((m) => [m.method, m.id]),
    [
      ["server/discover", 0],
      ["server/discover", 1],
      ["initialize", 2],
      ["notifications/initialized", undefined],
    ],
  );
  // A modern-only client retries once too, then rejects.
  const modernOnly = new ScriptedServer((m) => (m.method === "server/discover" ? refuse(["2026-07-28"]) : initializeResult()), {
    versions: ["2026-07-28"],
  });
  await mcpError(modernOnly.client.connect(), -32022);
  assert.equal(modernOnly.received.length, 2);
});

test('MOD-04: connect() era "session" never probes, even against a dual-era server', async () => {
  const pair = modernPair({ client: { era: "session" } });
  const result = await pair.connect();
  assert.equal(result.era, "session");
  assert.equal(result.version, "2025-11-25");
  assert.deepEqual(
    pair.clientHost.sent.map((m) => m.method),
    ["initialize", "notifications/initialized"],
  );
  assert.equal(pair.clientHost.sent[0]?.id, 0);
  assert.equal(pair.session.engine.era, "session");
});

test('MOD-04: connect() era "modern" never initializes: against a session-only server it rejects with the probe\'s error', async () => {
  const pair = new Pair({ client: { versions: ALL, era: "modern" } });
  const error = await mcpError(pair.connect(), -32601);
  assert.match(
    error.message,
    /^MCP error -32601: Method not found \(server\/discover refused: the server does not seem to speak 2026-07-28, and era "modern" rules out falling back to initialize\)$/,
  );
  assert.deepEqual(
    pair.clientHost.sent.map((m) => m.method),
    ["server/discover"],
  );
  assert.equal(pair.client.server, undefined);

  // A server that never answers: era "modern" does not fall back either, it times out.
  const scripted = new ScriptedServer((m) => (m.method === "initialize" ? initializeResult() : undefined), {
    versions: ALL,
    era: "modern",
    probeTimeoutMs: 100,
  });
  const connecting = track(scripted.client.connect({ timeoutMs: 2000 }));
  await scripted.settle();
  assert.equal(scripted.host.armed, 2000, "the connect timeout, not probeTimeoutMs");
  scripted.clock.now = 2000;
  scripted.host.fire(() => scripted.client.input.onTimer());
  await scripted.settle();
  assert.equal(connecting.state, "rejected");
  assert.ok(connecting.error instanceof RequestTimeoutError, String(connecting.error));
  assert.deepEqual(
    scripted.received.filter((m) => m.id !== undefined).map((m) => m.method),
    ["server/discover"],
  );

  // And against a dual-era server it is modern.
  const modern = modernPair({ client: { era: "modern" } });
  assert.equal((await modern.connect()).era, "modern");
  assert.deepEqual(
    modern.clientHost.sent.map((m) => m.method),
    ["server/discover"],
  );
});

test("MOD-07: connect(): a modern-only client (versions 2026-07-28 only) probes by default and works against a modern-only server", async () => {
  const pair = new Pair({
    server: { versions: ["2026-07-28"] },
    client: { versions: ["2026-07-28"] },
    setup: (s) => s.tool("echo", {}, () => ok("echo")),
  });
  const result = await pair.connect();
  assert.equal(result.era, "modern");
  assert.equal(text(await pair.client.callTool("echo")), "echo");
  assert.equal(pair.clientHost.messages("initialize").length, 0);
});

test("MOD-24: connect(): a modern-only client against a session-only server rejects plainly instead of attempting initialize", async () => {
  const pair = new Pair({ client: { versions: ["2026-07-28"] } });
  const error = await mcpError(pair.connect(), -32601);
  assert.match(
    error.message,
    /does not seem to speak 2026-07-28, and this client speaks no session-era version to fall back to initialize/,
  );
  assert.deepEqual(
    pair.clientHost.sent.map((m) => m.method),
    ["server/discover"],
  );
  // No probe timeout either: without a fallback, the connect timeout applies.
  const scripted = new ScriptedServer(() => undefined, { versions: ["2026-07-28"], probeTimeoutMs: 100 });
  const connecting = track(scripted.client.connect({ timeoutMs: 3000 }));
  await scripted.settle();
  assert.equal(scripted.host.armed, 3000);
  scripted.clock.now = 3000;
  scripted.host.fire(() => scripted.client.input.onTimer());
  await scripted.settle();
  assert.ok(connecting.error instanceof RequestTimeoutError, String(connecting.error));
  assert.deepEqual(
    scripted.received.filter((m) => m.id !== undefined).map((m) => m.method),
    ["server/discover"],
  );
});

test("S-01: connect(): a transport that ends during the probe rejects with ConnectionClosedError, no fallback", async () => {
  const scripted = new ScriptedServer((m) => (m.method === "initialize" ? initializeResult() : undefined), {
    versions: ALL,
    probeTimeoutMs: 1000,
  });
  const connecting = track(scripted.client.connect());
  await scripted.settle();
  assert.equal(connecting.state, "pending");
  scripted.client.input.receiveEof();
  await scripted.settle();
  assert.equal(connecting.state, "rejected");
  assert.ok(connecting.error instanceof ConnectionClosedError, String(connecting.error));
  assert.deepEqual(
    scripted.received.map((m) => m.method),
    ["server/discover"],
  );
  // No timer left behind to fall back later.
  scripted.clock.now = 5000;
  if (scripted.host.armed !== undefined) scripted.host.fire(() => scripted.client.input.onTimer());
  await scripted.settle();
  assert.deepEqual(
    scripted.received.map((m) => m.method),
    ["server/discover"],
  );
});
