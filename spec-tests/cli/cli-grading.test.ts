// The CLI report's grades (lib/cli/grading.ts, report.ts) and its safety rules (safety.ts):
// what third-party servers commonly do is graded by the spec (an unknown tool answered with
// isError is a WARN, templates/list refused -32601 a WARN, a task-only tool a SKIP), a WARN
// or FAIL names its rule and links its spec section, only a FAIL makes the exit code 1, and
// tools that may change things are never called without --call-destructive.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  exitCode,
  formatCheck,
  formatTally,
  gradeDiagnostics,
  gradeError,
  gradeListRefusal,
  gradeToolRefusal,
  gradeUnknownResource,
  gradeUnknownTool,
  tally,
  type CheckResult,
} from "../../lib/cli/grading.js";
import {
  REFERENCE_CLIENT_CAPABILITIES,
  installReferenceHandlers,
  referenceClientCapabilities,
  runReport,
} from "../../lib/cli/reference-client.js";
import { destructiveReason, nameWords } from "../../lib/cli/safety.js";
import { ConnectionClosedError, InvalidResultError, McpError, RequestTimeoutError } from "../../lib/peer/shared/errors.js";
import type { Tool } from "../../lib/types/index.js";
import { ScriptedServer, initializeResult } from "../support/peer-harness.js";

const unreachable = (): CheckResult => {
  throw new Error("not a refusal");
};

test("TL-02: an unknown tool: -32602 PASSes; an isError result, a plain result or another code WARN (TL-02); no answer FAILs", () => {
  const name = "tools/call unknown tool";
  assert.equal(gradeUnknownTool(name, { error: new McpError(-32602, "Unknown tool") }).grade, "PASS");
  for (const outcome of [{ isError: true }, { isError: false }, { error: new McpError(-32601, "nope") }]) {
    const graded = gradeUnknownTool(name, outcome);
    assert.equal(graded.grade, "WARN", JSON.stringify(outcome));
    assert.equal(graded.rule?.id, "TL-02");
  }
  const timedOut = gradeUnknownTool(name, { error: new RequestTimeoutError("tools/call", 3, "inactivity", 100) });
  assert.equal(timedOut.grade, "FAIL");
  assert.equal(timedOut.rule?.id, "JR-01");
  assert.match(timedOut.detail, /--timeout MS/);
});

test("RS-02: an unknown resource: -32002 PASSes in the session era, -32602 in 2026-07-28 (which still accepts -32002); others WARN", () => {
  const name = "resources/read unknown";
  assert.equal(gradeUnknownResource(name, { error: new McpError(-32002, "x") }, false).grade, "PASS");
  assert.equal(gradeUnknownResource(name, { error: new McpError(-32602, "x") }, false).grade, "WARN");
  assert.equal(gradeUnknownResource(name, { error: new McpError(-32602, "x") }, true).grade, "PASS");
  assert.equal(gradeUnknownResource(name, { error: new McpError(-32002, "x") }, true).grade, "PASS");
  assert.equal(gradeUnknownResource(name, { error: new McpError(-32603, "x") }, true).rule?.id, "RS-02");
  assert.equal(gradeUnknownResource(name, { contents: 1 }, false).grade, "SKIP");
});

test("RS-01, C-02: list refusals: templates/list WARNs (RS-01); tools, resources and prompts lists FAIL", () => {
  const templates = gradeListRefusal("resources/templates/list", new McpError(-32601, "Method not found"));
  assert.equal(templates.grade, "WARN");
  assert.equal(templates.rule?.id, "RS-01");
  for (const name of ["tools/list", "resources/list", "prompts/list"]) {
    const graded = gradeListRefusal(name, new McpError(-32601, "Method not found"));
    assert.equal(graded.grade, "FAIL");
    assert.equal(graded.rule?.id, "C-02");
  }
});

test("TL-01, MOD-02: a tool refused: -32021 (a client capability we lack) SKIPs, other codes WARN", () => {
  const skip = gradeToolRefusal(
    "tools/call x",
    new McpError(-32021, "Missing required client capability", { requiredCapabilities: { roots: {} } }),
  );
  assert.equal(skip.grade, "SKIP");
  assert.match(skip.detail, /\{"roots":\{\}\}.*--root DIR/);
  const warn = gradeToolRefusal("tools/call x", new McpError(-32603, "boom"));
  assert.equal(warn.grade, "WARN");
  assert.equal(warn.rule?.id, "TL-01");
});

test("JR-01, M-04: no response or a closed connection FAIL under JR-01, a malformed result under M-04", () => {
  for (const [error, id] of [
    [new ConnectionClosedError("tools/list"), "JR-01"],
    [new Error("other"), "JR-01"],
    [new InvalidResultError("tools/list", "/tools", "an array", "undefined"), "M-04"],
  ] as const) {
    const graded = gradeError("tools/list", error, unreachable);
    assert.equal(graded.grade, "FAIL", String(error));
    assert.equal(graded.rule?.id, id);
  }
});

test("ENG-07: engine diagnostics: a violation FAILs under its own rule id, a diagnostic WARNs, none PASSes", () => {
  assert.equal(gradeDiagnostics([]).grade, "PASS");
  const failed = gradeDiagnostics([
    { kind: "diagnostic", rule: "P-04", expected: "progress for a request in flight", got: "token 9" },
    { kind: "violation", rule: "P-05", expected: "progress greater than 3", got: "3" },
  ]);
  assert.equal(failed.grade, "FAIL");
  assert.equal(failed.rule?.id, "P-05");
  assert.match(
    formatCheck(failed, "2025-11-25"),
    /https:\/\/modelcontextprotocol\.io\/specification\/2025-11-25\/basic\/utilities\/progress/,
  );
  assert.equal(gradeDiagnostics([{ kind: "diagnostic", rule: "P-04", expected: "x", got: "y" }]).grade, "WARN");
});

test("ENG-07: WARN and FAIL lines carry the rule id and a link for the negotiated version; PASS and SKIP lines do not", () => {
  const warn = gradeUnknownTool("tools/call unknown tool", { isError: true });
  assert.equal(
    formatCheck(warn, "2025-06-18"),
    `WARN  tools/call unknown tool: ${warn.detail}\n      rule TL-02: ${warn.rule?.says} (https://modelcontextprotocol.io/specification/2025-06-18/server/tools#error-handling)`,
  );
  // The tasks rule belongs to 2025-11-25 whatever was negotiated.
  assert.equal(formatCheck({ name: "n", grade: "PASS", detail: "d" }, "2025-11-25"), "PASS  n: d");
  assert.equal(formatCheck({ name: "n", grade: "SKIP", detail: "why", rule: warn.rule }, "2025-11-25"), "SKIP  n: why");
});

test("only a FAIL makes the exit code non-zero", () => {
  const checks: CheckResult[] = [
    { name: "a", grade: "PASS", detail: "" },
    { name: "b", grade: "WARN", detail: "" },
    { name: "c", grade: "SKIP", detail: "" },
  ];
  assert.equal(exitCode(tally(checks)), 0);
  assert.equal(formatTally(tally(checks)), "1 passed, 1 warned, 1 skipped, 0 failed");
  assert.equal(exitCode(tally([...checks, { name: "d", grade: "FAIL", detail: "" }])), 1);
});

test("tool names are split into whole words: snake, kebab, dotted, camelCase and acronyms", () => {
  assert.deepEqual(nameWords("delete_entities"), ["delete", "entities"]);
  assert.deepEqual(nameWords("deleteFile"), ["delete", "file"]);
  assert.deepEqual(nameWords("HTTPPost-request.v2"), ["http", "post", "request", "v2"]);
  assert.deepEqual(nameWords("get_settings"), ["get", "settings"]);
});

test("destructive by annotations or by a writing word; read-only names and words containing one are not", () => {
  const tool = (name: string, annotations?: Tool["annotations"]): Tool => ({
    name,
    inputSchema: { type: "object" },
    ...(annotations !== undefined ? { annotations } : {}),
  });
  for (const name of [
    "delete_entities",
    "create_entities",
    "add_observations",
    "writeFile",
    "move-file",
    "rename",
    "editDocument",
    "update_record",
    "set_value",
    "insertRow",
    "drop_table",
    "kill_process",
    "run_command",
    "upload",
  ]) {
    assert.ok(destructiveReason(tool(name)) !== undefined, name);
  }
  for (const name of [
    "read_graph",
    "search_nodes",
    "open_nodes",
    "get_settings",
    "address_lookup",
    "sequentialthinking",
    "echo",
    "list_directory",
    "longRunningOperation",
  ]) {
    assert.equal(destructiveReason(tool(name)), undefined, name);
  }
  assert.match(destructiveReason(tool("lookup", { destructiveHint: true })) ?? "", /destructiveHint: true/);
  assert.match(destructiveReason(tool("lookup", { readOnlyHint: false })) ?? "", /readOnlyHint: false/);
  assert.equal(destructiveReason(tool("lookup", { readOnlyHint: false, destructiveHint: false })), undefined);
  // Annotations never make a writing name safe: they come from the server.
  assert.ok(destructiveReason(tool("delete_all", { readOnlyHint: true, destructiveHint: false })) !== undefined);
});

/** A third-party-like server: isError for unknown tools, -32601 for templates/list, -32602 for unknown resources. */
function thirdParty(tools: Tool[]): { server: ScriptedServer; calls: Array<{ name: unknown; arguments: unknown }> } {
  const calls: Array<{ name: unknown; arguments: unknown }> = [];
  const server = new ScriptedServer((message) => {
    const params = (message.params ?? {}) as Record<string, unknown>;
    switch (message.method) {
      case "initialize":
        return initializeResult({ tools: {}, resources: {} });
      case "ping":
        return { result: {} };
      case "tools/list":
        return { result: { tools } };
      case "tools/call": {
        calls.push({ name: params.name, arguments: params.arguments });
        if (!tools.some((t) => t.name === params.name))
          return { result: { content: [{ type: "text", text: `Tool ${String(params.name)} not found` }], isError: true } };
        return { result: { content: [{ type: "text", text: "ok" }] } };
      }
      case "resources/list":
        return { result: { resources: [] } };
      case "resources/templates/list":
        return { error: { code: -32601, message: "Method not found" } };
      case "resources/read":
        return { error: { code: -32602, message: "Resource not found" } };
      default:
        return { error: { code: -32601, message: "Method not found" } };
    }
  });
  return { server, calls };
}

const TOOLS: Tool[] = [
  {
    name: "get_resource",
    inputSchema: { type: "object", properties: { resourceId: { type: "integer", minimum: 1 } }, required: ["resourceId"] },
  },
  { name: "toggle", inputSchema: { type: "object", properties: { on: { type: ["boolean", "string"] } }, required: ["on"] } },
  { name: "purge", inputSchema: { type: "object" }, annotations: { destructiveHint: true } },
  { name: "delete_item", inputSchema: { type: "object" } },
  { name: "long_job", inputSchema: { type: "object" }, execution: { taskSupport: "required" } },
  { name: "coded", inputSchema: { type: "object", properties: { code: { type: "string", pattern: "^(?=a)b$" } }, required: ["code"] } },
];

async function report(
  tools: Tool[],
  callDestructiveTools = false,
): Promise<{ checks: CheckResult[]; calls: Array<{ name: unknown; arguments: unknown }>; code: number }> {
  const { server, calls } = thirdParty(tools);
  const connecting = server.client.connect();
  await server.settle();
  await connecting;
  const checks: CheckResult[] = [];
  const running = runReport(server.client, { print: (c) => checks.push(c), sleep: () => Promise.resolve(), callDestructiveTools });
  await server.settle();
  return { checks, calls, code: exitCode(await running) };
}

test("a typical third-party server gets no FAIL: exit code 0, with each non-PASS line explained", async () => {
  const { checks, calls, code } = await report(TOOLS);
  const grade = (name: string): CheckResult => {
    const check = checks.find((c) => c.name === name);
    assert.ok(check !== undefined, `${name} in ${checks.map((c) => c.name).join(", ")}`);
    return check;
  };
  assert.equal(code, 0, JSON.stringify(checks, null, 1));
  assert.equal(grade("tools/call unknown tool").grade, "WARN");
  assert.equal(grade("resources/templates/list").grade, "WARN");
  assert.equal(grade("resources/read unknown").grade, "WARN");
  assert.equal(grade("tools/call purge").grade, "SKIP");
  assert.equal(grade("tools/call delete_item").grade, "SKIP");
  assert.match(grade("tools/call long_job").detail, /taskSupport is "required".*TK-08/);
  assert.equal(grade("tools/call long_job").grade, "SKIP");
  assert.match(grade("tools/call coded").detail, /pattern/);
  assert.equal(grade("tools/call coded").grade, "SKIP");
  // Arguments that satisfy the schema: an integer id, the first of the listed types.
  assert.deepEqual(calls.find((c) => c.name === "get_resource")?.arguments, { resourceId: 1 });
  assert.deepEqual(calls.find((c) => c.name === "toggle")?.arguments, { on: true });
  // Nothing destructive, task-only or unsatisfiable was called.
  assert.deepEqual(calls.map((c) => c.name).sort(), ["get_resource", "no_such_tool_mcp_engine", "toggle"]);
});

test("--call-destructive calls the destructive tools too, never the task-only one", async () => {
  const { calls, code } = await report(TOOLS, true);
  assert.equal(code, 0);
  assert.deepEqual(calls.map((c) => c.name).sort(), ["delete_item", "get_resource", "no_such_tool_mcp_engine", "purge", "toggle"]);
});

test("RT-01, C-01: roots: none declared and roots/list refused (-32601) unless roots are given; then exactly those", async () => {
  assert.equal(referenceClientCapabilities([]).roots, undefined);
  assert.equal(REFERENCE_CLIENT_CAPABILITIES.roots, undefined);
  assert.deepEqual(referenceClientCapabilities([{ uri: "file:///work/a" }]).roots, {});

  for (const roots of [[], [{ uri: "file:///work/project%20one", name: "project one" }]]) {
    const server = new ScriptedServer(
      (message) => (message.method === undefined ? undefined : message.method === "initialize" ? initializeResult({}) : { result: {} }),
      { capabilities: referenceClientCapabilities(roots) },
    );
    installReferenceHandlers(server.client, roots);
    const connecting = server.client.connect();
    await server.settle();
    await connecting;
    const declared = (server.received[0]?.params as { capabilities: Record<string, unknown> }).capabilities;
    assert.equal(Object.hasOwn(declared, "roots"), roots.length > 0);
    // The server asks for the roots.
    server.client.driver.receiveBytes(new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id: "r1", method: "roots/list" }) + "\n"));
    await server.settle();
    const answer = server.host.sent.find((m) => m.id === "r1") as { result?: { roots: unknown }; error?: { code: number } } | undefined;
    if (roots.length === 0) assert.equal(answer?.error?.code, -32601);
    else assert.deepEqual(answer?.result, { roots });
  }
});
