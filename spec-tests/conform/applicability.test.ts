// Applicability of a case to a black-box target (fixtures/FORMAT.md, "Applicability"): the
// versions a fixture needs the target to speak. A dual-era configuration (session versions and
// 2026-07-28) is a need a target can meet on its own; the versions of a published target
// profile are a need for that profile; any other set stays an engine configuration key that
// only an adapter can apply.

import assert from "node:assert/strict";
import { test } from "node:test";
import { declares, declaresPath, notApplicable, type FixtureHeader, type TargetProfile } from "../../lib/cli/conform/fixtures.js";
import { annotate } from "../tools/corpus-annotate.js";

const target = (versions: readonly string[], adapter = false): TargetProfile => ({
  versions: new Set(versions),
  capabilities: { tools: {} },
  tools: new Set<string>(),
  ...(adapter ? { adapter: { ops: new Set<string>(), clock: false, config: new Set<string>(), strict: false } } : {}),
});

function annotated(versions: readonly string[], configVersions: readonly string[]): FixtureHeader {
  const header = {
    fixture: "server/x/y",
    role: "server",
    versions: [...versions],
    rules: ["MOD-23"],
    config: { capabilities: { tools: {} }, versions: [...configVersions] },
  };
  return annotate(header, [{ in: { jsonrpc: "2.0", id: 1, method: "ping" } }, { out: { jsonrpc: "2.0", id: 1, result: {} } }], new Map())
    .header as unknown as FixtureHeader;
}

test("versions naming both eras become the versions the target must speak, not an engine key", () => {
  const header = annotated(["2025-11-25", "2026-07-28"], ["2026-07-28", "2025-11-25"]);
  assert.deepEqual(header.requires?.versions, ["2025-11-25", "2026-07-28"]);
  assert.equal(header.requires?.config, undefined);
  assert.equal(header.requires?.era, "dual");
});

test("a set of session versions only stays an engine configuration key, unless it is a target profile's", () => {
  const header = annotated(["2025-03-26"], ["2024-11-05", "2025-03-26"]);
  assert.deepEqual(header.requires?.config, ["versions"]);
  assert.equal(header.requires?.versions, undefined);
  assert.equal(header.requires?.profile, undefined);
  // Exactly the versions of the published old-versions profile: a need for that profile instead.
  const old = annotated(["2025-06-18"], ["2024-11-05", "2025-06-18"]);
  assert.equal(old.requires?.profile, "old-versions");
  assert.equal(old.requires?.config, undefined);
});

test("a dual-era fixture applies to a target speaking both eras, to none speaking one", () => {
  const header = annotated(["2025-11-25", "2026-07-28"], ["2025-11-25", "2026-07-28"]);
  assert.match(
    notApplicable(header, "2025-11-25", target(["2024-11-05", "2025-11-25"])) ?? "",
    /^protocol version 2026-07-28 \(a server speaking 2025-11-25, 2026-07-28\)$/,
  );
  assert.match(notApplicable(header, "2026-07-28", target(["2026-07-28"])) ?? "", /^protocol version 2025-11-25 /);
  assert.equal(notApplicable(header, "2025-11-25", target(["2025-06-18", "2025-11-25", "2026-07-28"])), undefined);
  // With an adapter the case is configured (the fixture's own versions), whatever the target speaks unconfigured.
  assert.equal(notApplicable(header, "2025-11-25", target(["2025-11-25"], true)), undefined);
});

test("a fixture subscribing or announcing where the configuration lacks the flag needs a target without it", () => {
  const header = {
    fixture: "server/x/z",
    role: "server",
    versions: ["2025-11-25"],
    rules: ["C-01"],
    config: { capabilities: { resources: {}, prompts: { listChanged: true } } },
  };
  const steps: Parameters<typeof annotate>[1] = [
    { in: { jsonrpc: "2.0", id: 1, method: "resources/subscribe", params: { uri: "file:///a" } } },
    { out: { jsonrpc: "2.0", id: 1, error: { code: -32601 } } },
    { call: { op: "notify", method: "notifications/tools/list_changed" }, throws: { rule: "C-01" } },
    { call: { op: "notify", method: "notifications/prompts/list_changed" } },
    { call: { op: "notify", method: "notifications/message", params: { level: "info", data: "x" } }, throws: { rule: "C-01" } },
  ];
  const requires = (annotate(header, steps, new Map()).header as unknown as FixtureHeader).requires;
  assert.deepEqual(requires?.without, ["logging", "resources.subscribe", "tools.listChanged"]);
  // The host commands aside (a target runs them through trigger tools), the flags decide.
  const wire = { ...header, requires: { ...requires, host: undefined } } as unknown as FixtureHeader;
  const judged = { ...target(["2025-11-25"]), capabilities: { resources: { subscribe: true }, prompts: { listChanged: true } } };
  assert.equal(notApplicable(wire, "2025-11-25", judged), "no resources.subscribe capability");
  assert.equal(
    notApplicable(wire, "2025-11-25", { ...judged, capabilities: { resources: { subscribe: false }, prompts: { listChanged: true } } }),
    undefined,
  );
});

test("a capability path is declared when its capability is present and its flag is true", () => {
  assert.equal(declaresPath({ tools: {} }, "tools"), true);
  assert.equal(declaresPath({ tools: {} }, "tools.listChanged"), false);
  assert.equal(declaresPath({ tools: { listChanged: true } }, "tools.listChanged"), true);
  assert.equal(declaresPath({ tools: { listChanged: "yes" } }, "tools.listChanged"), false);
  assert.equal(declaresPath({}, "resources.subscribe"), false);
  assert.equal(declaresPath({ resources: true }, "resources.subscribe"), false);
});

test("a flag a fixture needs true is met only by a target declaring it true, not by the flag declared false", () => {
  const header = {
    fixture: "server/x/y",
    role: "server",
    versions: ["2025-11-25"],
    rules: ["C-02"],
    requires: { capabilities: { tools: { listChanged: true } } },
  } as unknown as FixtureHeader;
  const declaring = (capabilities: Record<string, unknown>): TargetProfile => ({ ...target(["2025-11-25"]), capabilities });
  assert.equal(notApplicable(header, "2025-11-25", declaring({ tools: { listChanged: true } })), undefined);
  assert.match(notApplicable(header, "2025-11-25", declaring({ tools: { listChanged: false } })) ?? "", /^capabilities /);
  assert.match(notApplicable(header, "2025-11-25", declaring({ tools: {} })) ?? "", /^capabilities /);
  assert.match(notApplicable(header, "2025-11-25", declaring({ tools: { listChanged: "yes" } })) ?? "", /^capabilities /);
});

test("a flag a fixture requires false is met whether the target leaves it out, declares it false or declares it true", () => {
  const required = { prompts: { listChanged: false }, tools: {} };
  assert.equal(declares({ prompts: {}, tools: {} }, required), true);
  assert.equal(declares({ prompts: { listChanged: false }, tools: {} }, required), true);
  assert.equal(declares({ prompts: { listChanged: true }, tools: {} }, required), true);
  // The capability holding the flag is still needed.
  assert.equal(declares({ tools: {} }, required), false);
  assert.equal(declares({ prompts: {} }, { prompts: { listChanged: true } }), false);
});

test("a host's listing is left to the implementation unless a later step names one of its entries", () => {
  const header = {
    fixture: "server/x/y",
    role: "server",
    versions: ["2025-11-25"],
    rules: ["C-02"],
    config: { capabilities: { tools: {} } },
  };
  const opening: Parameters<typeof annotate>[1] = [
    { in: { jsonrpc: "2.0", id: 1, method: "tools/list" } },
    { call: { op: "respond", id: 1, result: { tools: [{ name: "must", inputSchema: { type: "object" } }] } } },
    { out: { jsonrpc: "2.0", id: 1, result: { tools: [{ name: "must", inputSchema: { type: "object" } }] } } },
  ];
  const alone = annotate(header, opening, new Map()).header as unknown as FixtureHeader;
  assert.equal(alone.requires?.host, undefined);
  const calling = [...opening, { in: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "must" } } }];
  assert.deepEqual((annotate(header, calling, new Map()).header as unknown as FixtureHeader).requires?.host, ["respond"]);
});

test("a method whose capability none of the fixture's versions defines needs no target without it", () => {
  const requiresOf = (versions: readonly string[], method: string): FixtureHeader["requires"] => {
    const header = {
      fixture: "server/x/w",
      role: "server",
      versions: [...versions],
      rules: ["MT-01"],
      config: { capabilities: { tools: {} } },
    };
    const steps: Parameters<typeof annotate>[1] = [
      { in: { jsonrpc: "2.0", id: 1, method, params: {} } },
      { out: { jsonrpc: "2.0", id: 1, error: { code: -32601 } } },
    ];
    return (annotate(header, steps, new Map()).header as unknown as FixtureHeader).requires;
  };
  // Core tasks exist in 2025-11-25 only: before it (and in 2026-07-28, where tasks are an extension) the key gates nothing.
  assert.equal(requiresOf(["2024-11-05", "2025-03-26", "2025-06-18"], "tasks/get")?.without, undefined);
  assert.deepEqual(requiresOf(["2025-06-18", "2025-11-25"], "tasks/get")?.without, ["tasks"]);
  assert.deepEqual(requiresOf(["2026-07-28"], "tasks/list")?.without, ["extensions.io.modelcontextprotocol/tasks"]);
  // completions from 2025-03-26 on.
  assert.equal(requiresOf(["2024-11-05"], "completion/complete")?.without, undefined);
  assert.deepEqual(requiresOf(["2024-11-05", "2025-03-26"], "completion/complete")?.without, ["completions"]);
  // Every other capability exists in every version.
  assert.deepEqual(requiresOf(["2024-11-05"], "prompts/list")?.without, ["prompts"]);
  // A target declaring tasks (for its 2025-11-25 sessions) is then judged on the older versions.
  const header = {
    fixture: "server/x/v",
    role: "server",
    versions: ["2025-06-18"],
    rules: ["MT-01"],
    requires: requiresOf(["2025-06-18"], "tasks/get"),
  } as FixtureHeader;
  assert.equal(
    notApplicable(header, "2025-06-18", { ...target(["2025-06-18", "2025-11-25"]), capabilities: { tools: {}, tasks: { list: {} } } }),
    undefined,
  );
});

test("a host's refusal of a tool or resource no implementation has stands as the refusal the implementation must give", () => {
  const wireOf = (method: string, params: Record<string, string>, code: number): unknown => {
    const header = {
      fixture: "server/x/u",
      role: "server",
      versions: ["2025-11-25"],
      rules: ["TL-02"],
      config: { capabilities: { tools: {}, resources: {} } },
    };
    const steps: Parameters<typeof annotate>[1] = [
      { in: { jsonrpc: "2.0", id: 1, method, params } },
      { event: { kind: "request", id: 1, method } },
      { call: { op: "respondError", id: 1, code, message: "no" } },
      { out: { jsonrpc: "2.0", id: 1, error: { code, message: "no" } } },
    ];
    const annotated = annotate(header, steps, new Map()).steps;
    assert.equal(annotated[2]?.wire, "answer");
    return annotated[3]?.wire;
  };
  // An unknown tool: a protocol error of any code (TL-02), never a result with isError.
  assert.deepEqual(wireOf("tools/call", { name: "mcp-conform-no-such-tool" }, -32602), {
    jsonrpc: "2.0",
    id: 1,
    error: { code: "$type:integer", message: "$type:string" },
  });
  // An unknown resource: the host's code (-32002, RS-02).
  assert.deepEqual(wireOf("resources/read", { uri: "mcp-conform-no-such-resource://x" }, -32002), {
    jsonrpc: "2.0",
    id: 1,
    error: { code: -32002, message: "$type:string" },
  });
  // A cursor it never issued (N-05), a completion of a prompt it does not have (CM-02), a prompt it does not have (PR-02): the host's code.
  const refusal = { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "$type:string" } };
  assert.deepEqual(wireOf("prompts/list", { cursor: "mcp-conform-no-such-cursor" }, -32602), refusal);
  assert.deepEqual(wireOf("resources/templates/list", { cursor: "mcp-conform-no-such-cursor" }, -32602), refusal);
  assert.deepEqual(wireOf("prompts/get", { name: "mcp-conform-no-such-prompt" }, -32602), refusal);
  const completion = { ref: { type: "ref/prompt", name: "mcp-conform-no-such-prompt" }, argument: { name: "a", value: "" } };
  assert.deepEqual(wireOf("completion/complete", completion as unknown as Record<string, string>, -32602), refusal);
  // A task it never created (TK-12): refused, though no host answer to tasks/get is the implementation's own otherwise.
  assert.deepEqual(wireOf("tasks/get", { taskId: "mcp-conform-no-such-task" }, -32602), refusal);
  assert.deepEqual(wireOf("tasks/cancel", { taskId: "mcp-conform-no-such-task" }, -32602), refusal);
  // A cursor the implementation may have issued: a page or the refusal.
  assert.match(JSON.stringify(wireOf("prompts/list", { cursor: "abc" }, -32602)), /"\$oneOf"/);
  // Any other name: the implementation may have it, so a result or a refusal of the name stands.
  const other = JSON.stringify(wireOf("tools/call", { name: "mine" }, -32602));
  assert.match(other, /"\$oneOf"/);
  assert.match(other, /"result":"\$type:object"/);
});
