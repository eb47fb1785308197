// Host commands through the trigger tools: the annotator's derivation of a command's trigger
// (spec-tests/tools/corpus-triggers.ts), the runner's translation of it
// (lib/cli/conform/triggers.ts: the tools/call, the ids the implementation picks, what a refused
// command must not send), and applicability through triggers (lib/cli/conform/fixtures.ts).

import assert from "node:assert/strict";
import { test } from "node:test";
import { notApplicable, type FixtureHeader, type TargetProfile } from "../../lib/cli/conform/fixtures.js";
import { compare } from "../../lib/cli/conform/match.js";
import { TriggerLedger, forbidden, isTriggerAnswer } from "../../lib/cli/conform/triggers.js";
import { refusalLevel, triggerOf } from "../tools/corpus-triggers.js";

type Obj = Parameters<typeof triggerOf>[0];

test("a request gets a trigger naming its fixture id; a fixed progress token goes into its params", () => {
  const triggered = new Set<string>();
  assert.deepEqual(triggerOf({ call: { op: "request", method: "ping" }, returns: 0 }, triggered), {
    tool: "conform_request",
    arguments: { method: "ping" },
    request: 0,
  });
  assert.deepEqual(
    triggerOf({ call: { op: "request", method: "ping", params: { a: 1 }, options: { progressToken: "p" } }, returns: 1 }, triggered),
    {
      tool: "conform_request",
      arguments: { method: "ping", params: { a: 1, _meta: { progressToken: "p" } } },
      request: 1,
    },
  );
  assert.deepEqual([...triggered], ["0", "1"]);
});

test("commands whose wire effect a trigger cannot say get none", () => {
  const triggered = new Set<string>();
  const none: Obj[] = [
    { call: { op: "request", method: "ping", options: { deadline: 500 } }, returns: 0 },
    { call: { op: "request", method: "ping", options: { progressToken: { a: 1 } } }, returns: 0 },
    { call: { op: "request", method: "ping" } },
    { call: { op: "request", method: "ping", params: [1] }, returns: 0 },
    { call: { op: "notify", method: "notifications/message", options: { deadline: 1 } } },
    { call: { op: "cancel", id: 7 } },
    { call: { op: "close" } },
    { call: { op: "respond", id: 1, result: {} } },
  ];
  for (const step of none) assert.equal(triggerOf(step, triggered), undefined, JSON.stringify(step));
  assert.equal(triggered.size, 0);
});

test("a refused request has no fixture id; a cancel names a triggered request; a notification keeps its params", () => {
  const triggered = new Set<string>();
  assert.deepEqual(triggerOf({ call: { op: "request", method: "roots/list" }, throws: { rule: "C-01" } }, triggered), {
    tool: "conform_request",
    arguments: { method: "roots/list" },
  });
  triggerOf({ call: { op: "request", method: "roots/list" }, returns: 3 }, triggered);
  assert.deepEqual(triggerOf({ call: { op: "cancel", id: 3, reason: "why" } }, triggered), {
    tool: "conform_cancel",
    arguments: { reason: "why" },
    cancels: 3,
  });
  assert.deepEqual(
    triggerOf(
      { call: { op: "notify", method: "notifications/message", params: { level: "info", data: "x" }, options: { relatedRequestId: 1 } } },
      triggered,
    ),
    {
      tool: "conform_notify",
      arguments: { method: "notifications/message", params: { level: "info", data: "x" } },
    },
  );
});

test("C-06's includeContext sentence is a SHOULD; tools stay a MUST", () => {
  const sampling = (params: Obj): Obj => ({ call: { op: "request", method: "sampling/createMessage", params }, throws: { rule: "C-06" } });
  assert.equal(refusalLevel(sampling({ messages: [], maxTokens: 1, includeContext: "thisServer" }), "MUST"), "SHOULD");
  assert.equal(refusalLevel(sampling({ messages: [], maxTokens: 1, includeContext: "thisServer", tools: [] }), "MUST"), "MUST");
  assert.equal(refusalLevel({ call: { op: "request", method: "roots/list" }, throws: { rule: "C-01" } }, "MUST"), "MUST");
});

test("the runner's tools/call: ids counted per case, a cancel names the call that sent its request", () => {
  const ledger = new TriggerLedger();
  const first = ledger.callFor({ tool: "conform_request", arguments: { method: "ping" }, request: 0 });
  assert.ok(typeof first !== "string");
  assert.deepEqual(first.message, {
    jsonrpc: "2.0",
    id: "mcp-conform-call-1",
    method: "tools/call",
    params: { name: "conform_request", arguments: { method: "ping" } },
  });
  const cancel = ledger.callFor({ tool: "conform_cancel", arguments: { reason: "r" }, cancels: 0 });
  assert.ok(typeof cancel !== "string");
  assert.deepEqual(cancel.message.params, { name: "conform_cancel", arguments: { reason: "r", call: "mcp-conform-call-1" } });
  assert.match(String(ledger.callFor({ tool: "conform_cancel", arguments: {}, cancels: 9 })), /no trigger sent/);
  assert.equal(isTriggerAnswer({ jsonrpc: "2.0", id: "mcp-conform-call-2", result: {} }), true);
  assert.equal(isTriggerAnswer({ jsonrpc: "2.0", id: "mcp-conform-call-2", method: "x" }), false);
  assert.equal(isTriggerAnswer({ jsonrpc: "2.0", id: 2, result: {} }), false);
});

test("the implementation's id for a triggered request is captured, then used in answers and in its cancellation", () => {
  const ledger = new TriggerLedger();
  ledger.callFor({ tool: "conform_request", arguments: { method: "roots/list" }, request: 0 });
  const bindings = new Map<string, unknown>();
  const expected = ledger.expected({ jsonrpc: "2.0", id: 0, method: "roots/list" });
  assert.equal(compare(expected, { jsonrpc: "2.0", id: "srv-7", method: "roots/list" }, { bindings }), undefined);
  // Answers (no method) to fixture id 0 go to the captured id; the client's own request 0 does not.
  assert.deepEqual(
    ledger.inbound(
      [
        { jsonrpc: "2.0", id: 0, result: {} },
        { jsonrpc: "2.0", id: 0, method: "ping" },
      ],
      bindings,
    ),
    [
      { jsonrpc: "2.0", id: "srv-7", result: {} },
      { jsonrpc: "2.0", id: 0, method: "ping" },
    ],
  );
  const cancelled = ledger.expected({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 0, reason: "r" } });
  assert.equal(
    compare(cancelled, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "srv-7", reason: "r" } }, { bindings }),
    undefined,
  );
  assert.notEqual(
    compare(cancelled, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 0, reason: "r" } }, { bindings }),
    undefined,
  );
  // The server's answer to the client's request 0 is no triggered request: left alone.
  assert.deepEqual(ledger.expected({ jsonrpc: "2.0", id: 0, result: {} }), { jsonrpc: "2.0", id: 0, result: {} });
});

test("a triggered request refused by the implementation is recognised from its tool's isError answer", () => {
  const ledger = new TriggerLedger();
  ledger.callFor({ tool: "conform_request", arguments: { method: "tasks/get" }, request: 1 });
  const answers = new Map<string, unknown>([
    [
      "mcp-conform-call-1",
      { jsonrpc: "2.0", id: "mcp-conform-call-1", result: { content: [{ type: "text", text: "not a spec method" }], isError: true } },
    ],
  ]);
  assert.match(String(ledger.refusal({ jsonrpc: "2.0", id: 1, method: "tasks/get" }, answers)), /not a spec method/);
  assert.equal(ledger.refusal({ jsonrpc: "2.0", id: 1, method: "tasks/get" }, new Map()), undefined);
  assert.equal(ledger.refusal({ jsonrpc: "2.0", id: 2, method: "tasks/get" }, answers), undefined);
});

test("what a refused command must not send: a request, a notification, or a cancellation", () => {
  const request = forbidden({ tool: "conform_request", arguments: { method: "sampling/createMessage" } });
  assert.equal(request({ jsonrpc: "2.0", id: 0, method: "sampling/createMessage" }), true);
  assert.equal(request([{ jsonrpc: "2.0", id: 0, method: "sampling/createMessage" }]), true);
  assert.equal(request({ jsonrpc: "2.0", method: "sampling/createMessage" }), false);
  assert.equal(request({ jsonrpc: "2.0", id: 0, method: "roots/list" }), false);
  const notify = forbidden({ tool: "conform_notify", arguments: { method: "notifications/message" } });
  assert.equal(notify({ jsonrpc: "2.0", method: "notifications/message" }), true);
  assert.equal(notify({ jsonrpc: "2.0", id: 1, method: "notifications/message" }), false);
  const cancel = forbidden({ tool: "conform_cancel", arguments: {}, cancels: 0 });
  assert.equal(cancel({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 0 } }), true);
});

test("a fixture whose commands all have triggers applies to a target without an adapter that offers the tools", () => {
  const header: FixtureHeader = {
    fixture: "server/x/y",
    role: "server",
    versions: ["2025-11-25"],
    rules: ["C-01"],
    requires: { host: ["request"], triggers: true, era: "session", capabilities: {}, tools: ["conform_request"] },
  };
  const target = (tools: string[], adapter?: TargetProfile["adapter"]): TargetProfile => ({
    versions: new Set(["2025-11-25"]),
    capabilities: {},
    tools: new Set(tools),
    ...(adapter !== undefined ? { adapter } : {}),
  });
  assert.equal(notApplicable(header, "2025-11-25", target(["conform_request"])), undefined);
  assert.equal(notApplicable(header, "2025-11-25", target([])), "tool conform_request of the conformance profile");
  assert.equal(
    notApplicable({ ...header, requires: { ...header.requires, triggers: false } }, "2025-11-25", target(["conform_request"])),
    "host command request",
  );
  // With an adapter, commands go to it: it must offer the op.
  const adapter = { ops: new Set<string>(), clock: false, config: new Set<string>(), strict: false };
  assert.equal(notApplicable(header, "2025-11-25", target(["conform_request"], adapter)), "host command request");
});

test("a dotted `without` names a sub-capability: declared as true or an object, it makes the case not applicable", () => {
  const header: FixtureHeader = {
    fixture: "server/x/z",
    role: "server",
    versions: ["2025-11-25"],
    rules: ["C-01"],
    requires: { era: "session", capabilities: { resources: {} }, without: ["resources.subscribe", "prompts.listChanged"] },
  };
  const target = (capabilities: Record<string, unknown>): TargetProfile => ({
    versions: new Set(["2025-11-25"]),
    capabilities,
    tools: new Set(),
  });
  assert.equal(notApplicable(header, "2025-11-25", target({ resources: {}, prompts: { listChanged: false } })), undefined);
  assert.equal(notApplicable(header, "2025-11-25", target({ resources: { subscribe: true } })), "no resources.subscribe capability");
  assert.equal(
    notApplicable(header, "2025-11-25", target({ resources: {}, prompts: { listChanged: {} } })),
    "no prompts.listChanged capability",
  );
  // An extension's name holds dots: the path splits at the first one only.
  const tasks: FixtureHeader = {
    ...header,
    requires: { era: "session", capabilities: {}, without: ["extensions.io.modelcontextprotocol/tasks"] },
  };
  assert.equal(
    notApplicable(tasks, "2025-11-25", target({ extensions: { "io.modelcontextprotocol/tasks": {} } })),
    "no extensions.io.modelcontextprotocol/tasks capability",
  );
  assert.equal(notApplicable(tasks, "2025-11-25", target({ extensions: {} })), undefined);
});

test("progress on a token the implementation picks: asked for with progress: true, captured, and used in the peer's progress", () => {
  assert.deepEqual(triggerOf({ call: { op: "request", method: "ping", options: { progressToken: true } }, returns: 0 }, new Set()), {
    tool: "conform_request",
    arguments: { method: "ping", progress: true },
    request: 0,
  });
  const ledger = new TriggerLedger();
  ledger.callFor({ tool: "conform_request", arguments: { method: "ping", progress: true }, request: 0 });
  const bindings = new Map<string, unknown>();
  const expected = ledger.expected({ jsonrpc: "2.0", id: 0, method: "ping", params: { _meta: { progressToken: 0 } } });
  assert.equal(
    compare(expected, { jsonrpc: "2.0", id: 4, method: "ping", params: { _meta: { progressToken: "tok" } } }, { bindings }),
    undefined,
  );
  const progress = (token: unknown): unknown => ({
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { progressToken: token, progress: 1 },
  });
  assert.deepEqual(ledger.inbound(progress(0), bindings), progress("tok"));
  // Another JSON value (the string "0") names another token: left as it is.
  assert.deepEqual(ledger.inbound(progress("0"), bindings), progress("0"));
  assert.deepEqual(ledger.inbound({ jsonrpc: "2.0", id: 0, result: {} }, bindings), { jsonrpc: "2.0", id: 4, result: {} });
});
