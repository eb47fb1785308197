// A fixture's `config.extensions` (fixtures/FORMAT.md, "Configuration"): the methods of the
// extensions an endpoint speaks, given to the engine by the replayer and the host adapter
// (engineConfigOf), and what the annotator derives from it for black-box runners: the gate
// fixtures' `requires.without`, and the wire forms of the skills methods (SK-01, SK-02, SK-09).

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { engineConfigOf } from "../../lib/cli/conform/host-ops.js";
import type { FixtureHeader } from "../../lib/cli/conform/fixtures.js";
import { StdioTarget } from "../../lib/cli/conform/target.js";
import { annotate } from "../tools/corpus-annotate.js";

const SKILLS = "io.modelcontextprotocol/skills";
const extensions = { [SKILLS]: { requests: ["skills/list", "skills/get"], gatedBy: "server" } };
const root = fileURLToPath(new URL("../../../", import.meta.url));
const main = join(root, "dist", "lib", "cli", "main.js");

type Steps = Parameters<typeof annotate>[1];

function annotated(capabilities: object, steps: Steps): { header: FixtureHeader; steps: Steps } {
  const header = {
    fixture: "server/x/y",
    role: "server",
    versions: ["2025-11-25"],
    rules: ["SK-01"],
    config: { capabilities, extensions },
  };
  const out = annotate(header as unknown as Parameters<typeof annotate>[0], steps, new Map());
  return { header: out.header as unknown as FixtureHeader, steps: out.steps };
}

test("engineConfigOf turns config.extensions into the engine's extensionMethods and refuses a malformed declaration", () => {
  assert.deepEqual(engineConfigOf({ capabilities: {} }), { capabilities: {} });
  assert.deepEqual(engineConfigOf({ capabilities: {}, extensions }), {
    capabilities: {},
    extensionMethods: [
      { method: "skills/list", extension: SKILLS, kind: "request", from: "client", gatedBy: "server" },
      { method: "skills/get", extension: SKILLS, kind: "request", from: "client", gatedBy: "server" },
    ],
  });
  assert.throws(() => engineConfigOf({ extensions: { "no-slash": { requests: ["x/y"] } } }), /\[MT-06\]/);
  assert.throws(() => engineConfigOf({ extensions: ["skills/list"] }), /config\.extensions as an object/);
});

test("a server fixture sending a configured extension's request it does not declare needs a target without that extension", () => {
  const steps: Steps = [
    { in: { jsonrpc: "2.0", id: 1, method: "skills/list" } },
    { out: { jsonrpc: "2.0", id: 1, error: { code: -32601 } } },
  ];
  const undeclared = annotated({ tools: {} }, steps).header.requires;
  assert.deepEqual(undeclared?.without, [`extensions.${SKILLS}`]);
  assert.equal(undeclared?.config, undefined, "extensions is what a target speaks, not a setting only an adapter applies");
  const declared = annotated({ extensions: { [SKILLS]: {} } }, steps).header.requires;
  assert.equal(declared?.without, undefined);
});

test("a skills listing is the implementation's own unless a later request sends its cursor back", () => {
  const first: Steps = [
    { in: { jsonrpc: "2.0", id: 1, method: "skills/list" } },
    { call: { op: "respond", id: 1, result: { skills: [], nextCursor: "page-2" } } },
    { out: { jsonrpc: "2.0", id: 1, result: { skills: [], nextCursor: "page-2" } } },
  ];
  const alone = annotated({ extensions: { [SKILLS]: {} } }, first);
  assert.equal(alone.header.requires?.host, undefined);
  assert.deepEqual(alone.steps[2]?.wire, { jsonrpc: "2.0", id: 1, result: "$type:object" });
  const paging = annotated({ extensions: { [SKILLS]: {} } }, [
    ...first,
    { in: { jsonrpc: "2.0", id: 2, method: "skills/list", params: { cursor: "page-2" } } },
  ]);
  assert.deepEqual(paging.header.requires?.host, ["respond"]);
});

test("a host's -32602 to skills/get or skills/list is the refusal the implementation must give, not a result", () => {
  for (const [method, params] of [
    ["skills/get", { uri: "skill://nothing/SKILL.md" }],
    ["skills/list", { cursor: "never-issued" }],
  ] as const) {
    const { steps } = annotated({ extensions: { [SKILLS]: {} } }, [
      { in: { jsonrpc: "2.0", id: 1, method, params } },
      { call: { op: "respondError", id: 1, code: -32602, message: "no" } },
      { out: { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "no" } } },
    ]);
    assert.equal(steps[1]?.wire, "answer", method);
    assert.deepEqual(steps[2]?.wire, { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "$type:string" } }, method);
  }
  // A skill the host does serve: the implementation may answer with its entry, or refuse a URI it does not know.
  const { steps } = annotated({ extensions: { [SKILLS]: {} } }, [
    { in: { jsonrpc: "2.0", id: 1, method: "skills/get", params: { uri: "skill://a/SKILL.md" } } },
    { call: { op: "respond", id: 1, result: { skill: {} } } },
    { out: { jsonrpc: "2.0", id: 1, result: { skill: {} } } },
  ]);
  assert.deepEqual((steps[2]?.wire as { $oneOf?: unknown[] }).$oneOf?.length, 2);
});

test("the host adapter accepts config.extensions: the declared extension's request reaches the host, a malformed one is refused", async () => {
  const target = new StdioTarget({ command: process.execPath, args: [main, "serve"], adapter: true });
  try {
    const hello = await target.command({ seq: 1, op: "hello" }, 20_000);
    assert.ok((hello?.supports as { config?: string[] }).config?.includes("extensions"));
    const configured = await target.command(
      {
        seq: 2,
        op: "configure",
        role: "server",
        version: "2025-11-25",
        config: { capabilities: { extensions: { [SKILLS]: {} } }, extensions },
      },
      5000,
    );
    assert.equal(configured?.ok, true, JSON.stringify(configured));
    const input =
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":5,"method":"skills/list"}\n';
    target.write(input);
    target.stdinBytes = new TextEncoder().encode(input).length;
    const answered = await target.command({ seq: 3, op: "call", call: { op: "respond", id: 5, result: { skills: [] } } }, 5000);
    assert.equal(answered?.ok, true, JSON.stringify(answered));
  } finally {
    await target.stop(2000);
  }
  const other = new StdioTarget({ command: process.execPath, args: [main, "serve"], adapter: true });
  try {
    const refused = await other.command(
      { seq: 1, op: "configure", role: "server", version: "2025-11-25", config: { extensions: { "no-slash": { requests: ["x/y"] } } } },
      20_000,
    );
    assert.equal(refused?.ok, false);
    assert.match(JSON.stringify(refused), /MT-06/);
  } finally {
    await other.stop(2000);
  }
});
