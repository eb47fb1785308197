// Triggers beyond the session era's plain commands (fixtures/FORMAT.md, "Trigger tools"): in the
// 2026-07-28 era (the envelope a trigger's tools/call carries, and which commands get one),
// in dual-era fixtures (the client's opening picks the era), the host answers a black-box
// implementation gives on its own beside later triggers (spec-fixed and inert answers), and
// the commands a trigger tool's call among the fixture's inputs performs itself
// (conform_progress, a conform_request's related request).

import assert from "node:assert/strict";
import { test } from "node:test";
import { TriggerLedger } from "../../lib/cli/conform/triggers.js";
import { annotate } from "../tools/corpus-annotate.js";
import { modernTriggerOf } from "../tools/corpus-triggers.js";

type Obj = Parameters<typeof modernTriggerOf>[0];

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  "io.modelcontextprotocol/clientInfo": { name: "cli", version: "1" },
};

const header = (versions: string[], config: Obj = {}): Obj => ({
  fixture: "server/x/y",
  role: "server",
  versions,
  rules: ["M-01"],
  config: { info: { name: "srv", version: "1" }, capabilities: { tools: { listChanged: true } }, ...config },
});

const session = (): Obj[] => [
  {
    in: {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "$version", capabilities: {}, clientInfo: { name: "c", version: "1" } },
    },
  },
  { out: { jsonrpc: "2.0", id: 0, result: { protocolVersion: "$version", capabilities: "$capabilities", serverInfo: "$serverInfo" } } },
  { in: { jsonrpc: "2.0", method: "notifications/initialized" } },
];

const requiresOf = (a: { header: Obj }): Obj => a.header.requires as Obj;

test("2026-07-28: a listen-stream notification, a refused request and the end of the listens get a trigger carrying the envelope; nothing else does", () => {
  const list = { call: { op: "notify", method: "notifications/tools/list_changed" }, returns: true };
  assert.deepEqual(modernTriggerOf(list, ENVELOPE), {
    tool: "conform_notify",
    arguments: { method: "notifications/tools/list_changed" },
    envelope: ENVELOPE,
  });
  assert.deepEqual(modernTriggerOf({ call: { op: "request", method: "roots/list" }, throws: { rule: "MOD-09" } }, ENVELOPE), {
    tool: "conform_request",
    arguments: { method: "roots/list" },
    envelope: ENVELOPE,
  });
  assert.deepEqual(modernTriggerOf({ call: { op: "endSubscriptions" } }, ENVELOPE), {
    tool: "conform_end_subscriptions",
    arguments: {},
    envelope: ENVELOPE,
  });
  const none: Obj[] = [
    // A request the era lets no server send cannot be expected on the wire.
    { call: { op: "request", method: "ping" }, returns: 0 },
    // A log or progress message of a handler relates to its own call: not the command's wire.
    { call: { op: "notify", method: "notifications/message", params: { level: "error", data: "x" } }, throws: { rule: "MOD-03" } },
    { call: { op: "notify", method: "notifications/tools/list_changed", options: { relatedRequestId: 1 } } },
    { call: { op: "request", method: "roots/list", options: { relatedRequestId: 1 } }, throws: { rule: "MOD-09" } },
    { call: { op: "sendProgress", id: 1, progress: 1 }, throws: { rule: "MOD-13" } },
    { call: { op: "endSubscriptions", options: {} } },
  ];
  for (const step of none) assert.equal(modernTriggerOf(step, ENVELOPE), undefined, JSON.stringify(step));
});

test("a 2026-07-28 fixture's triggers carry the three client keys of its first request's envelope", () => {
  const listen = {
    jsonrpc: "2.0",
    id: 1,
    method: "subscriptions/listen",
    params: { notifications: { toolsListChanged: true }, _meta: { ...ENVELOPE, "io.modelcontextprotocol/logLevel": "debug" } },
  };
  const steps: Obj[] = [
    { in: listen },
    { call: { op: "notify", method: "notifications/tools/list_changed" }, returns: true },
    {
      out: {
        jsonrpc: "2.0",
        method: "notifications/tools/list_changed",
        params: { _meta: { "io.modelcontextprotocol/subscriptionId": 1 } },
      },
    },
  ];
  const annotated = annotate(header(["2026-07-28"]), steps, new Map());
  assert.equal(requiresOf(annotated).triggers, true);
  assert.deepEqual((annotated.steps[1] as Obj).trigger, {
    tool: "conform_notify",
    arguments: { method: "notifications/tools/list_changed" },
    envelope: ENVELOPE,
  });
});

test("a dual-era fixture: a client opening with initialize gets session triggers, one opening with an envelope 2026-07-28 ones", () => {
  const ping = { call: { op: "request", method: "ping" }, returns: 0 };
  const legacy = annotate(
    header(["2025-11-25"], { versions: ["2025-11-25", "2026-07-28"] }),
    [...session(), ping, { out: { jsonrpc: "2.0", id: 0, method: "ping" } }],
    new Map(),
  );
  assert.deepEqual((legacy.steps[3] as Obj).trigger, { tool: "conform_request", arguments: { method: "ping" }, request: 0 });
  const discover = { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: ENVELOPE } };
  const refused = { call: { op: "request", method: "ping" }, throws: { rule: "MOD-09" } };
  const modern = annotate(
    header(["2025-11-25", "2026-07-28"], { versions: ["2025-11-25", "2026-07-28"] }),
    [{ in: discover }, { quiet: true }, refused, { quiet: true }],
    new Map(),
  );
  assert.deepEqual((modern.steps[2] as Obj).trigger, { tool: "conform_request", arguments: { method: "ping" }, envelope: ENVELOPE });
  assert.equal(requiresOf(modern).triggers, true);
});

test("the runner's tools/call for a 2026-07-28 trigger carries the envelope as its _meta", () => {
  const call = new TriggerLedger().callFor({
    tool: "conform_notify",
    arguments: { method: "notifications/tools/list_changed" },
    envelope: ENVELOPE,
  });
  assert.ok(typeof call !== "string");
  assert.deepEqual(call.message.params, {
    name: "conform_notify",
    arguments: { method: "notifications/tools/list_changed" },
    _meta: ENVELOPE,
  });
});

test("setLevel answered {} is the implementation's own answer beside later triggers (a result, no refusal tolerated); a refused one stays with the host", () => {
  const setLevel = { in: { jsonrpc: "2.0", id: 1, method: "logging/setLevel", params: { level: "warning" } } };
  const log = { call: { op: "notify", method: "notifications/message", params: { level: "info", data: "m" } }, returns: false };
  const accepted = annotate(
    header(["2025-11-25"], { capabilities: { logging: {} } }),
    [
      ...session(),
      setLevel,
      { call: { op: "respond", id: 1, result: {} } },
      { out: { jsonrpc: "2.0", id: 1, result: {} } },
      log,
      { quiet: true },
    ],
    new Map(),
  );
  assert.equal((accepted.steps[4] as Obj).wire, "answer");
  assert.deepEqual((accepted.steps[5] as Obj).wire, { jsonrpc: "2.0", id: 1, result: "$type:object" });
  assert.equal(requiresOf(accepted).triggers, true);
  const refused = annotate(
    header(["2025-11-25"], { capabilities: { logging: {} } }),
    [
      ...session(),
      setLevel,
      { call: { op: "respondError", id: 1, code: -32603, message: "no" } },
      { out: { jsonrpc: "2.0", id: 1, error: { code: -32603 } } },
      log,
      { quiet: true },
    ],
    new Map(),
  );
  assert.equal((refused.steps[4] as Obj).wire, undefined);
  assert.equal(requiresOf(refused).triggers, undefined);
});

test("a listing's answer is the implementation's own beside later triggers; a tools/call's is not (a later command may depend on it)", () => {
  const notify = { call: { op: "notify", method: "notifications/tools/list_changed" } };
  const out = { out: { jsonrpc: "2.0", method: "notifications/tools/list_changed" } };
  const listed = annotate(
    header(["2025-11-25"]),
    [
      ...session(),
      { in: { jsonrpc: "2.0", id: 1, method: "tools/list" } },
      { call: { op: "respond", id: 1, result: { tools: [] } } },
      { out: { jsonrpc: "2.0", id: 1, result: { tools: [] } } },
      notify,
      out,
    ],
    new Map(),
  );
  assert.equal((listed.steps[4] as Obj).wire, "answer");
  const called = annotate(
    header(["2025-11-25"]),
    [
      ...session(),
      { in: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t" } } },
      { call: { op: "respond", id: 1, result: { content: [] } } },
      { out: { jsonrpc: "2.0", id: 1, result: { content: [] } } },
      notify,
      out,
    ],
    new Map(),
  );
  assert.equal((called.steps[4] as Obj).wire, undefined);
});

test("a conform_progress call performs exactly the progress its arguments list; any other progress leaves it all to the host", () => {
  const call = (progress: Obj[]): Obj => ({
    in: {
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "conform_progress", arguments: { progress }, _meta: { progressToken: "p" } },
    },
  });
  const send = (progress: number, extra: Obj = {}): Obj => ({ call: { op: "sendProgress", id: 4, progress, ...extra } });
  const out = (progress: number): Obj => ({
    out: { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p", progress } },
  });
  const exact = annotate(
    header(["2025-11-25"]),
    [...session(), call([{ progress: 1 }, { progress: 1 }]), send(1), out(1), { ...send(1), throws: { rule: "P-05" } }, { quiet: true }],
    new Map(),
  );
  assert.deepEqual([(exact.steps[4] as Obj).wire, (exact.steps[6] as Obj).wire], ["answer", "answer"]);
  assert.deepEqual(requiresOf(exact).tools, ["conform_progress"]);
  assert.equal(requiresOf(exact).host, undefined);
  const more = annotate(
    header(["2025-11-25"]),
    [...session(), call([{ progress: 1 }]), send(1), out(1), { ...send(2), throws: { rule: "P-04" } }, { quiet: true }],
    new Map(),
  );
  assert.equal((more.steps[4] as Obj).wire, undefined);
  assert.deepEqual(requiresOf(more).host, ["sendProgress"]);
  const other = annotate(header(["2025-11-25"]), [...session(), call([{ progress: 1, total: 2 }]), send(1), out(1)], new Map());
  assert.deepEqual(requiresOf(other).host, ["sendProgress"]);
});

test("a conform_request call performs the one refused request related to it, with its method and params", () => {
  const meta = { _meta: ENVELOPE };
  const input = (args: Obj): Obj => ({
    in: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "conform_request", arguments: args, ...meta } },
  });
  const related = { call: { op: "request", method: "roots/list", options: { relatedRequestId: 1 } }, throws: { rule: "MOD-09" } };
  const same = annotate(header(["2026-07-28"]), [input({ method: "roots/list" }), related, { quiet: true }], new Map());
  assert.equal((same.steps[1] as Obj).wire, "answer");
  assert.deepEqual(requiresOf(same).tools, ["conform_request"]);
  const different = annotate(header(["2026-07-28"]), [input({ method: "sampling/createMessage" }), related, { quiet: true }], new Map());
  assert.deepEqual(requiresOf(different).host, ["request"]);
});

test("2026-07-28: the host's {} to the only open listen is triggered as the end of every listen; not with two open, again once the other is cancelled", () => {
  const listen = (id: number): Obj => ({
    in: { jsonrpc: "2.0", id, method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: ENVELOPE } },
  });
  const end = { call: { op: "respond", id: 1, result: {} } };
  const result = {
    out: {
      jsonrpc: "2.0",
      id: 1,
      result: {
        resultType: "complete",
        _meta: { "io.modelcontextprotocol/subscriptionId": 1, "io.modelcontextprotocol/serverInfo": { name: "srv", version: "1" } },
      },
    },
  };
  const only = annotate(header(["2026-07-28"]), [listen(1), end, result], new Map());
  assert.deepEqual((only.steps[1] as Obj).trigger, { tool: "conform_end_subscriptions", arguments: {}, envelope: ENVELOPE });
  // The result names the configured server: the implementation's own identity may stand there, or none (a SHOULD).
  assert.deepEqual(((only.steps[2] as Obj).wire as Obj).result, {
    resultType: "complete",
    _meta: { "io.modelcontextprotocol/subscriptionId": 1, "io.modelcontextprotocol/serverInfo": { "$if-present": "$serverInfo" } },
  });
  const two = annotate(header(["2026-07-28"]), [listen(1), listen(2), end, result], new Map());
  assert.equal((two.steps[2] as Obj).trigger, undefined);
  const cancelled = annotate(
    header(["2026-07-28"]),
    [listen(1), listen(2), { in: { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } } }, end, result],
    new Map(),
  );
  assert.equal(((cancelled.steps[3] as Obj).trigger as Obj).tool, "conform_end_subscriptions");
});
