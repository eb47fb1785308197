// Discovered tools (fixtures/FORMAT.md, "Discovered tools", J19): which listed tool a black-box
// runner may call and picks for a pattern, the arguments it builds, applicability when no tool
// fits, and the placeholders replaced in a case's steps (by the listing, or by the fixture's own
// stand-in when an adapter replays its host).

import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { probeTarget } from "../../lib/cli/conform/index.js";
import {
  bindTools,
  callableArguments,
  discoverEntry,
  discoverPrompt,
  discoverResource,
  discoverTool,
  stepsWithTools,
} from "../../lib/cli/conform/discovery.js";
import { notApplicable, type FixtureHeader, type TargetProfile } from "../../lib/cli/conform/fixtures.js";

const harmless = { readOnlyHint: true, openWorldHint: false };
const tool = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name,
  inputSchema: { type: "object" },
  annotations: harmless,
  ...extra,
});

test("only a tool annotated closed-world and read-only or non-destructive is callable", () => {
  assert.deepEqual(callableArguments(tool("a")), {});
  assert.deepEqual(callableArguments(tool("b", { annotations: { destructiveHint: false, openWorldHint: false } })), {});
  assert.equal(callableArguments(tool("c", { annotations: { readOnlyHint: true } })), undefined, "open world by default");
  assert.equal(callableArguments(tool("d", { annotations: { openWorldHint: false } })), undefined, "destructive by default");
  assert.equal(callableArguments(tool("e", { annotations: undefined })), undefined);
  assert.equal(callableArguments({ inputSchema: { type: "object" }, annotations: harmless }), undefined, "no name");
  assert.equal(callableArguments(tool("f", { inputSchema: "object" })), undefined, "no schema object");
});

test("required properties of a plain scalar type are filled by type; any other required property rules the tool out", () => {
  const schema = (properties: Record<string, unknown>, required: unknown): Record<string, unknown> => ({
    inputSchema: { type: "object", properties, required },
  });
  assert.deepEqual(
    callableArguments(
      tool(
        "t",
        schema({ s: { type: "string", description: "x" }, n: { type: "number" }, i: { type: "integer" }, b: { type: "boolean" } }, [
          "s",
          "n",
          "i",
          "b",
        ]),
      ),
    ),
    { s: "conform", n: 1, i: 1, b: false },
  );
  assert.deepEqual(callableArguments(tool("t", schema({ s: { type: "string" }, opt: { type: "string" } }, ["s"]))), { s: "conform" });
  assert.equal(callableArguments(tool("t", schema({ s: { type: "string", enum: ["a"] } }, ["s"]))), undefined, "enum");
  assert.equal(callableArguments(tool("t", schema({ s: { type: "string", format: "uri" } }, ["s"]))), undefined, "format");
  assert.equal(callableArguments(tool("t", schema({ o: { type: "object" } }, ["o"]))), undefined, "object type");
  assert.equal(callableArguments(tool("t", schema({}, ["missing"]))), undefined, "required but not a property");
  assert.equal(callableArguments(tool("t", schema({}, "s"))), undefined, "required not an array");
  // A property named like a prototype key is set as an own property, never through the prototype.
  const args = callableArguments(
    tool("t", schema(JSON.parse('{"__proto__": {"type": "string"}}') as Record<string, unknown>, ["__proto__"])),
  );
  assert.equal(Object.getPrototypeOf(args), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(args, "__proto__")?.value, "conform");
});

test("TK-08: the first callable tool meeting the pattern is picked, absent taskSupport standing for an unmarked tool", () => {
  const listing = [
    tool("unsafe", { annotations: {}, execution: { taskSupport: "required" } }),
    tool("plain"),
    tool("must", { execution: { taskSupport: "required" } }),
    tool("either", { execution: { taskSupport: "optional" } }),
  ];
  assert.equal(discoverTool({ taskSupport: ["required"] }, listing)?.name, "must");
  assert.equal(discoverTool({ taskSupport: ["forbidden", "absent"] }, listing)?.name, "plain");
  assert.equal(discoverTool({ taskSupport: ["optional", "required"] }, listing)?.name, "must");
  assert.equal(discoverTool({}, listing)?.name, "plain");
  assert.equal(discoverTool({ taskSupport: ["forbidden"] }, listing), undefined);
});

const header: FixtureHeader = {
  fixture: "server/tasks/x",
  role: "server",
  versions: ["2025-11-25"],
  rules: ["TK-08"],
  requires: { era: "session", capabilities: { tools: {} }, discover: { required: { taskSupport: ["required"] } } },
  discover: { required: { name: "own", arguments: { a: 1 }, like: { taskSupport: ["required"] } } },
};
const target = (listing: readonly unknown[], adapter = false): TargetProfile => ({
  versions: new Set(["2025-11-25"]),
  capabilities: { tools: {} },
  tools: new Set<string>(),
  listing,
  ...(adapter ? { adapter: { ops: new Set<string>(), clock: false, config: new Set<string>(), strict: false } } : {}),
});

test("TK-08: a case whose alias no listed tool meets is not applicable, naming the alias; an adapter's own tool stands in", () => {
  assert.match(notApplicable(header, "2025-11-25", target([tool("plain")])) ?? "", /a tool like required/);
  assert.equal(notApplicable(header, "2025-11-25", target([tool("must", { execution: { taskSupport: "required" } })])), undefined);
  assert.equal(notApplicable(header, "2025-11-25", target([], true)), undefined);
});

test("TK-08: placeholders become the discovered tool's name and arguments, or the fixture's own through an adapter", () => {
  const steps = [
    { in: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "$tool:required", arguments: "$arguments:required" } } },
    { note: "$tool:other stays" },
  ];
  const listing = [
    tool("must", {
      execution: { taskSupport: "required" },
      inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    }),
  ];
  assert.deepEqual(stepsWithTools(header, steps, { tools: listing }, false)[0], {
    in: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "must", arguments: { q: "conform" } } },
  });
  assert.deepEqual(stepsWithTools(header, steps, {}, true)[0], {
    in: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "own", arguments: { a: 1 } } },
  });
  assert.deepEqual(stepsWithTools(header, steps, { tools: listing }, false)[1], { note: "$tool:other stays" });
  assert.equal(bindTools("$version", new Map()), "$version");
});

test("RS-03: the first listed entry with a string uri is the discovered resource", () => {
  assert.deepEqual(discoverResource([{ name: "no uri" }, { uri: 5 }, null, { uri: "file:///a", name: "a" }, { uri: "file:///b" }]), {
    name: "file:///a",
    arguments: {},
  });
  assert.equal(discoverResource([{ name: "x" }]), undefined);
  assert.equal(discoverEntry({ kind: "resource" }, { tools: [tool("t")] }), undefined, "a tool is no resource");
});

test("PR-01, PR-02: a prompt is picked by whether it has required arguments; the first required one is its argument", () => {
  const listing = [
    { name: "bad-args", arguments: "city" },
    { name: "bad-arg", arguments: [{ required: true }] },
    { arguments: [] },
    { name: "asks", arguments: [{ name: "opt" }, { name: "city", required: true }, { name: "state", required: true }] },
    { name: "plain", arguments: [{ name: "opt", required: false }] },
  ];
  assert.deepEqual(discoverPrompt({ kind: "prompt", requiredArguments: true }, listing), {
    name: "asks",
    arguments: { city: "conform", state: "conform" },
    argument: "city",
  });
  assert.deepEqual(discoverPrompt({ kind: "prompt", requiredArguments: false }, listing), { name: "plain", arguments: {} });
  assert.equal(discoverPrompt({ kind: "prompt" }, listing)?.name, "asks", "no pattern: the first well-formed prompt");
  assert.deepEqual(discoverPrompt({ kind: "prompt", requiredArguments: false }, [{ name: "bare" }]), { name: "bare", arguments: {} });
  assert.equal(discoverPrompt({ kind: "prompt", requiredArguments: true }, [{ name: "bare" }]), undefined);
});

test("PR-01: a prompt's required argument named __proto__ is an own member of its arguments, not a prototype", () => {
  const bound = discoverPrompt({ kind: "prompt", requiredArguments: true }, [
    {
      name: "odd",
      arguments: [
        { name: "__proto__", required: true },
        { name: "constructor", required: true },
      ],
    },
  ]);
  assert.ok(bound !== undefined);
  assert.equal(Object.getPrototypeOf(bound.arguments), Object.prototype, "the arguments object keeps its prototype");
  assert.deepEqual(Object.keys(bound.arguments), ["__proto__", "constructor"]);
  assert.equal(JSON.stringify(bound.arguments), '{"__proto__":"conform","constructor":"conform"}');
});

const promptHeader: FixtureHeader = {
  fixture: "server/features/x",
  role: "server",
  versions: ["2025-11-25"],
  rules: ["PR-02"],
  requires: {
    era: "session",
    capabilities: { prompts: {} },
    discover: { asks: { kind: "prompt", requiredArguments: true }, doc: { kind: "resource" } },
  },
  discover: {
    asks: { name: "greet", argument: "name", like: { kind: "prompt", requiredArguments: true } },
    doc: { uri: "file:///own", like: { kind: "resource" } },
  },
};

test("PR-02: a case whose prompt or resource is not listed is not applicable, naming its kind; listed, the placeholders are bound", () => {
  const base = { ...target([]), capabilities: { prompts: {} } };
  assert.match(notApplicable(promptHeader, "2025-11-25", base) ?? "", /^a prompt like asks .*listed by prompts\/list/);
  const prompts = [{ name: "city-prompt", arguments: [{ name: "city", required: true }] }];
  assert.match(notApplicable(promptHeader, "2025-11-25", { ...base, prompts }) ?? "", /^a resource like doc /);
  const listed = { ...base, prompts, resources: [{ uri: "demo://r/1" }] };
  assert.equal(notApplicable(promptHeader, "2025-11-25", listed), undefined);
  const steps = [
    {
      in: {
        jsonrpc: "2.0",
        id: 1,
        method: "completion/complete",
        params: { ref: { type: "ref/prompt", name: "$prompt:asks" }, argument: { name: "$argument:asks", value: "" } },
      },
    },
    { in: { jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri: "$resource:doc" } } },
  ];
  const bound = stepsWithTools(promptHeader, steps, { prompts, resources: listed.resources }, false);
  assert.deepEqual(bound[0], {
    in: {
      jsonrpc: "2.0",
      id: 1,
      method: "completion/complete",
      params: { ref: { type: "ref/prompt", name: "city-prompt" }, argument: { name: "city", value: "" } },
    },
  });
  assert.deepEqual(bound[1], { in: { jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri: "demo://r/1" } } });
  // Through an adapter the fixture's own prompt and resource stand in.
  const own = stepsWithTools(promptHeader, steps, {}, true);
  assert.deepEqual((own[0] as { in: { params: unknown } }).in.params, {
    ref: { type: "ref/prompt", name: "greet" },
    argument: { name: "name", value: "" },
  });
  assert.deepEqual((own[1] as { in: { params: unknown } }).in.params, { uri: "file:///own" });
});

test("J11: the probe lists the resources and prompts of a target declaring them, where discovered ones are found", async () => {
  const main = fileURLToPath(new URL("../../lib/cli/main.js", import.meta.url));
  const probed = await probeTarget(process.execPath, [main, "serve"], 5000, {}, undefined);
  assert.ok(typeof probed !== "string", String(probed));
  const { resources, prompts, listing } = probed.profile;
  assert.ok((listing ?? []).length > 0, "tools listed");
  assert.equal(typeof discoverResource(resources ?? [])?.name, "string", "a resource listed");
  assert.equal(typeof discoverPrompt({ kind: "prompt" }, prompts ?? [])?.name, "string", "a prompt listed");
});

test("J11: listings that are not arrays, or refused, discover nothing", async () => {
  // A scripted target: resources/list answers a non-array, prompts/list an error, server/discover an error.
  const script = `
    const rl = require("node:readline").createInterface({ input: process.stdin });
    const say = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");
    rl.on("line", (line) => {
      const m = JSON.parse(line);
      if (m.id === undefined) return;
      if (m.method === "initialize")
        say({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { resources: {}, prompts: {} }, serverInfo: { name: "odd", version: "1" } } });
      else if (m.method === "resources/list") say({ id: m.id, result: { resources: "nope" } });
      else say({ id: m.id, error: { code: -32601, message: "no" } });
    });`;
  const probed = await probeTarget(process.execPath, ["-e", script], 5000, {}, undefined);
  assert.ok(typeof probed !== "string", String(probed));
  assert.deepEqual([probed.profile.resources, probed.profile.prompts, probed.profile.listing], [[], [], []]);
});
