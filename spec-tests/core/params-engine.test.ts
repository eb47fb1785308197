// Params validation through a real Engine (RULES.md MT-01, MT-02, SCH-01, SCH-02, N-01…N-05, O-01…O-05, K-03…K-05, J-01, J-04, TK-02…TK-08, E-01, E-02): for every request
// method of every session-era version, one valid request reaches the host as a `request`
// event carrying the very params object that arrived, and three invalid ones are answered
// -32602 whose error.data.path names the offending member, followed by a violation.
//
// Client→server methods run against a server engine, server→client ones against a client
// engine, methods either side may send (tasks/*) against both. Every capability is declared
// on both sides so that no gate stands between a request and its params check; each case
// runs on a fresh engine with the handshake done for the version.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Engine, type EngineEvent, type JsonObject, type Role } from "../../lib/index.js";
import { methodTable } from "../../lib/rules/methods.js";
import { SESSION_VERSIONS, VERSION_PROFILES, type SessionVersion } from "../../lib/rules/versions.js";

const SERVER_CAPS = {
  logging: {},
  completions: {},
  prompts: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  tools: { listChanged: true },
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
};
const CLIENT_CAPS = {
  roots: { listChanged: true },
  sampling: { tools: {}, context: {} },
  elicitation: { form: {}, url: {} },
  tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
};

const since = (version: SessionVersion, first: SessionVersion): boolean => VERSION_PROFILES[version].index >= VERSION_PROFILES[first].index;

interface Bad {
  params: JsonObject | undefined;
  path: string;
}

interface Case {
  valid: JsonObject;
  invalid: Bad[];
}

const bad = (params: JsonObject | undefined, path: string): Bad => ({ params, path });

const paginated = (): Case => ({
  valid: { cursor: "eyJwYWdlIjogMn0=", _meta: { progressToken: "page-2" } },
  invalid: [
    bad({ cursor: 2 }, "params.cursor"),
    bad({ cursor: null }, "params.cursor"),
    bad({ _meta: { progressToken: 1.5 } }, "params._meta.progressToken"),
  ],
});

const byUri = (): Case => ({
  valid: { uri: "file:///project/src/main.rs", _meta: { progressToken: 3 } },
  invalid: [bad({}, "params.uri"), bad(undefined, "params.uri"), bad({ uri: 5 }, "params.uri")],
});

const byTaskId = (): Case => ({
  valid: { taskId: "786512e2-9e0d-44bd-8f29-789f320fe840" },
  invalid: [bad({}, "params.taskId"), bad({ taskId: 1 }, "params.taskId"), bad({ taskId: "t", _meta: [] }, "params._meta")],
});

const text = (t: string): JsonObject => ({ type: "text", text: t });

/** One valid and three (or more) invalid params per request method, for one version. */
function cases(method: string, version: SessionVersion): Case | undefined {
  switch (method) {
    case "resources/list":
    case "resources/templates/list":
    case "prompts/list":
    case "tools/list":
    case "tasks/list":
      return paginated();
    case "resources/read":
    case "resources/subscribe":
    case "resources/unsubscribe":
      return byUri();
    case "prompts/get":
      return {
        valid: { name: "code_review", arguments: { code: "def hello(): pass", language: "python" } },
        invalid: [
          bad({ arguments: {} }, "params.name"),
          bad({ name: 7 }, "params.name"),
          bad({ name: "code_review", arguments: { code: 1 } }, "params.arguments.code"),
        ],
      };
    case "tools/call": {
      const invalid = [
        bad({ arguments: { a: 1 } }, "params.name"),
        bad({ name: "t", arguments: [] }, "params.arguments"),
        bad({ name: "t", arguments: "x" }, "params.arguments"),
      ];
      if (since(version, "2025-11-25")) invalid.push(bad({ name: "t", task: { ttl: "1m" } }, "params.task.ttl"));
      const valid: JsonObject = { name: "get_weather", arguments: { location: "New York" }, _meta: { progressToken: 42 } };
      if (since(version, "2025-11-25")) valid.task = { ttl: 60000 };
      return { valid, invalid };
    }
    case "logging/setLevel":
      return {
        valid: { level: "warning" },
        invalid: [bad({}, "params.level"), bad({ level: "loud" }, "params.level"), bad({ level: 3 }, "params.level")],
      };
    case "completion/complete": {
      const argument = { name: "language", value: "py" };
      const valid: JsonObject = { ref: { type: "ref/prompt", name: "code_review" }, argument };
      if (since(version, "2025-06-18")) valid.context = { arguments: { framework: "flask" } };
      return {
        valid,
        invalid: [
          bad({ argument }, "params.ref"),
          bad({ ref: { type: "ref/prompt" }, argument }, "params.ref.name"),
          bad({ ref: { type: "ref/resource", uri: "file:///{path}" }, argument: { name: "path" } }, "params.argument.value"),
          bad({ ref: { type: 5 }, argument }, "params.ref.type"),
        ],
      };
    }
    case "sampling/createMessage": {
      const messages = [{ role: "user", content: text("What is the capital of France?") }];
      const valid: JsonObject = {
        messages,
        maxTokens: 100,
        systemPrompt: "Be brief.",
        modelPreferences: { hints: [{ name: "claude" }], speedPriority: 0.5 },
        temperature: 0.2,
      };
      if (since(version, "2025-11-25"))
        Object.assign(valid, {
          tools: [{ name: "calc", inputSchema: { type: "object" } }],
          toolChoice: { mode: "auto" },
          task: { ttl: 1000 },
        });
      return {
        valid,
        invalid: [
          bad({ messages }, "params.maxTokens"),
          bad({ messages: [{ role: "robot", content: text("hi") }], maxTokens: 10 }, "params.messages[0].role"),
          bad(
            { messages: [{ role: "user", content: { type: "image", data: "iVBORw0KGgo=" } }], maxTokens: 10 },
            "params.messages[0].content.mimeType",
          ),
          bad({ messages, maxTokens: 10, modelPreferences: { costPriority: 2 } }, "params.modelPreferences.costPriority"),
        ],
      };
    }
    case "roots/list":
      return {
        valid: { _meta: { progressToken: "roots" } },
        invalid: [
          bad({ _meta: 5 }, "params._meta"),
          bad({ _meta: { progressToken: 1.5 } }, "params._meta.progressToken"),
          bad({ _meta: { progressToken: null } }, "params._meta.progressToken"),
        ],
      };
    case "elicitation/create": {
      const requestedSchema = {
        type: "object",
        properties: { name: { type: "string", minLength: 1 }, age: { type: "integer", minimum: 0 } },
        required: ["name"],
      };
      const invalid = [
        bad({ requestedSchema }, "params.message"),
        bad({ message: "Who are you?" }, "params.requestedSchema"),
        bad(
          { message: "Who are you?", requestedSchema: { type: "object", properties: { name: { type: "string", minLength: "1" } } } },
          "params.requestedSchema.properties.name.minLength",
        ),
      ];
      if (since(version, "2025-11-25"))
        invalid.push(
          bad({ mode: "url", message: "Sign in", url: "https://example.com" }, "params.elicitationId"),
          bad({ mode: "voice", message: "x" }, "params.mode"),
        );
      return { valid: { message: "Who are you?", requestedSchema }, invalid };
    }
    case "tasks/get":
    case "tasks/result":
    case "tasks/cancel":
      return byTaskId();
    default:
      return undefined;
  }
}

function drain(engine: Engine<Role>): { out: unknown[]; events: EngineEvent[] } {
  const out: unknown[] = [];
  for (let o = engine.pollOutbound(); o !== undefined; o = engine.pollOutbound()) out.push(o.message);
  const events: EngineEvent[] = [];
  engine.takeEvents(events);
  return { out, events };
}

/** A fresh engine in `role`, operating under `version`, with every capability on both sides. */
function operating(role: Role, version: SessionVersion): Engine<Role> {
  const engine = new Engine<Role>({
    role,
    info: { name: role, version: "1" },
    capabilities: (role === "server" ? SERVER_CAPS : CLIENT_CAPS) as never,
    versions: [version],
  });
  if (role === "server") {
    engine.receiveMessage({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion: version, capabilities: CLIENT_CAPS, clientInfo: { name: "c", version: "1" } },
    });
    engine.receiveMessage({ jsonrpc: "2.0", method: "notifications/initialized" });
  } else {
    const id = engine.initialize();
    engine.receiveMessage({
      jsonrpc: "2.0",
      id,
      result: { protocolVersion: version, capabilities: SERVER_CAPS, serverInfo: { name: "s", version: "1" } },
    });
  }
  drain(engine);
  assert.equal(engine.phase, "operating");
  assert.equal(engine.negotiatedVersion, version);
  return engine;
}

function receivers(from: string): Role[] {
  return from === "client" ? ["server"] : from === "server" ? ["client"] : ["server", "client"];
}

for (const version of SESSION_VERSIONS) {
  const rows = [...methodTable(version).values()].filter((r) => r.kind === "request" && r.method !== "initialize" && r.method !== "ping");

  test(`SCH-01: ${version}: every request method has a case`, () => {
    for (const r of rows) assert.ok(cases(r.method, version) !== undefined, `no case for ${r.method}`);
    // MT-01: 13 methods besides initialize and ping; elicitation/create from 2025-06-18; tasks/* in 2025-11-25.
    const expected: Record<SessionVersion, number> = { "2024-11-05": 13, "2025-03-26": 13, "2025-06-18": 14, "2025-11-25": 18 };
    assert.equal(rows.length, expected[version]);
  });

  for (const r of rows) {
    for (const role of receivers(r.from)) {
      test(`SCH-01: ${version} ${role} receives ${r.method}: valid params reach the host by reference`, () => {
        const c = cases(r.method, version) as Case;
        const engine = operating(role, version);
        const params = c.valid;
        engine.receiveMessage({ jsonrpc: "2.0", id: 1, method: r.method, params });
        const { out, events } = drain(engine);
        assert.deepEqual(out, []);
        assert.equal(events.length, 1, JSON.stringify(events));
        const event = events[0] as EngineEvent;
        assert.equal(event.kind, "request");
        if (event.kind !== "request") return;
        assert.equal(event.id, 1);
        assert.equal(event.method, r.method);
        assert.equal(event.params, params, "the params object that arrived, not a copy");
      });

      test(`SCH-01: ${version} ${role} receives ${r.method}: invalid params get -32602 with the path`, () => {
        const c = cases(r.method, version) as Case;
        assert.ok(c.invalid.length >= 3);
        const engine = operating(role, version);
        c.invalid.forEach((b, i) => {
          const id = `bad-${i}`;
          engine.receiveMessage(
            b.params === undefined ? { jsonrpc: "2.0", id, method: r.method } : { jsonrpc: "2.0", id, method: r.method, params: b.params },
          );
          const { out, events } = drain(engine);
          const label = `${r.method} ${JSON.stringify(b.params)}`;
          assert.equal(out.length, 1, label);
          const reply = out[0] as { id: unknown; error: { code: number; data: { path: string; expected: unknown; got: unknown } } };
          assert.equal(reply.id, id, label);
          assert.equal(reply.error.code, -32602, label);
          assert.equal(reply.error.data.path, b.path, label);
          assert.equal(typeof reply.error.data.expected, "string", label);
          assert.equal(events.length, 1, label);
          const event = events[0] as EngineEvent;
          assert.equal(event.kind, "violation", label);
          if (event.kind === "violation") {
            assert.equal(event.code, -32602, label);
            assert.equal(event.id, id, label);
            assert.equal(event.method, r.method, label);
          }
        });
        assert.equal(engine.pendingInboundCount, 0, "refused requests are not pending");
      });
    }
  }

  test(`L-02, SCH-01: ${version} server receives initialize: valid params reach the host by reference, invalid ones get -32602 with the path`, () => {
    const valid: JsonObject = { protocolVersion: version, capabilities: CLIENT_CAPS, clientInfo: { name: "c", version: "1" } };
    const engine = new Engine<Role>({ role: "server", info: { name: "s", version: "1" }, versions: [version], autoInitialize: false });
    engine.receiveMessage({ jsonrpc: "2.0", id: 0, method: "initialize", params: valid });
    const { out, events } = drain(engine);
    assert.deepEqual(out, []);
    assert.equal(events.length, 1);
    const event = events[0] as EngineEvent;
    assert.equal(event.kind, "initialize-request");
    if (event.kind === "initialize-request") assert.equal(event.params, valid);

    const invalid: Bad[] = [
      bad({ capabilities: {}, clientInfo: { name: "c", version: "1" } }, "params.protocolVersion"),
      bad({ protocolVersion: version, capabilities: [], clientInfo: { name: "c", version: "1" } }, "params.capabilities"),
      bad({ protocolVersion: version, capabilities: {}, clientInfo: { name: "c", version: 2 } }, "params.clientInfo.version"),
    ];
    for (const b of invalid) {
      const fresh = new Engine<Role>({ role: "server", info: { name: "s", version: "1" }, versions: [version] });
      fresh.receiveMessage({ jsonrpc: "2.0", id: 0, method: "initialize", params: b.params });
      const { out: replies, events: evs } = drain(fresh);
      assert.equal(replies.length, 1);
      const reply = replies[0] as { error: { code: number; data: { path: string } } };
      assert.equal(reply.error.code, -32602);
      assert.equal(reply.error.data.path, b.path);
      assert.equal(evs[0]?.kind, "violation");
      assert.equal(fresh.phase, "awaiting-init");
    }
  });

  // ping never reaches the host: the engine answers it at once (G-02). It does so before the
  // params check, so malformed ping params are not exercised here.
  test(`G-02: ${version}: ping is answered by the engine itself`, () => {
    for (const role of ["server", "client"] as const) {
      const engine = operating(role, version);
      for (const params of [{}, { _meta: { progressToken: "p" } }, { _meta: { "com.example/x": [1] } }]) {
        engine.receiveMessage({ jsonrpc: "2.0", id: "ping", method: "ping", params });
        const { out, events } = drain(engine);
        assert.deepEqual(out, [{ jsonrpc: "2.0", id: "ping", result: {} }]);
        assert.deepEqual(events, []);
      }
    }
  });
}
