// The server features through the peer layer in process (spec-tests/support/peer-harness.ts):
// resources and templates, subscriptions, prompts, completion, logging levels, capabilities
// derived from registrations, and list_changed.

import { test } from "node:test";
import assert from "node:assert/strict";
import { ProtocolMisuseError, Server, parseTemplate, type HandlerContext } from "../../lib/peer/index.js";
import type { CallToolResult } from "../../lib/index.js";
import { Pair, SERVER_INFO } from "../support/peer-harness.js";
import { mcpError, rejection } from "../support/helpers.js";
import { OK, connected } from "../support/peer-helpers.js";

// ── resources ────────────────────────────────────────────────────────────────────

test("readResource(): a static resource, and templates matched with their RFC 6570 variables", async () => {
  const seen: Array<Record<string, string | string[]>> = [];
  const pair = await connected({
    setup: (s) => {
      s.resource("file:///readme.md", { name: "readme" }, (uri) => ({ contents: [{ uri, mimeType: "text/markdown", text: "# Hi" }] }));
      s.resourceTemplate(parseTemplate("users://{id}/profile{?fields}"), { name: "profile" }, (uri, vars) => {
        seen.push(vars);
        return { contents: [{ uri, text: `user ${String(vars.id)}` }] };
      });
      s.resourceTemplate(parseTemplate("repo://{owner}/{repo}/issues{/num*}"), { name: "issues" }, (uri, vars) => {
        seen.push(vars);
        return { contents: [{ uri, text: "issues" }] };
      });
      s.resourceTemplate(parseTemplate("files:///{+path}"), { name: "files" }, (uri, vars) => {
        seen.push(vars);
        return { contents: [{ uri, blob: "AAAA" }] };
      });
    },
  });
  assert.deepEqual(await pair.client.readResource("file:///readme.md"), {
    contents: [{ uri: "file:///readme.md", mimeType: "text/markdown", text: "# Hi" }],
  });
  assert.deepEqual(await pair.client.readResource("users://42/profile?fields=name"), {
    contents: [{ uri: "users://42/profile?fields=name", text: "user 42" }],
  });
  await pair.client.readResource("users://7/profile");
  await pair.client.readResource("repo://me/engine/issues/1/2");
  await pair.client.readResource("files:///docs/a%20b.txt");
  assert.deepEqual(seen, [
    { id: "42", fields: "name" },
    { id: "7" },
    { owner: "me", repo: "engine", num: ["1", "2"] },
    { path: "docs/a b.txt" },
  ]);
});

test("RS-02: a resource that is not found → McpError -32002 with data.uri", async () => {
  const pair = await connected({
    setup: (s) => s.resourceTemplate(parseTemplate("users://{id}"), { name: "u" }, (uri) => ({ contents: [{ uri, text: "" }] })),
  });
  const error = await mcpError(pair.client.readResource("other://x"), -32002);
  assert.deepEqual(error.data, { uri: "other://x" });
  assert.match(error.message, /Resource not found: other:\/\/x/);
});

test("C-04, L-12: subscribe/unsubscribe: notifyResourceUpdated reaches only the sessions subscribed to that URI", async () => {
  const setup = (s: Server): void => {
    s.resource("mem://a", { name: "a" }, (uri) => ({ contents: [{ uri, text: "a" }] }));
    s.resource("mem://b", { name: "b" }, (uri) => ({ contents: [{ uri, text: "b" }] }));
  };
  const first = await connected({ setup });
  const second = await connected({ serverInstance: first.server });
  const unconnected = new Pair({ serverInstance: first.server });
  const updates: Array<[string, unknown]> = [];
  first.client.onNotification("notifications/resources/updated", (p) => updates.push(["first", p?.uri]));
  second.client.onNotification("notifications/resources/updated", (p) => updates.push(["second", p?.uri]));
  assert.deepEqual(await first.client.subscribeResource("mem://a"), {});
  await second.client.subscribeResource("mem://b");
  first.server.notifyResourceUpdated("mem://a");
  await first.settle();
  await second.settle();
  first.server.notifyResourceUpdated("mem://b");
  await first.settle();
  await second.settle();
  first.server.notifyResourceUpdated("mem://c");
  await first.settle();
  await second.settle();
  assert.deepEqual(updates, [
    ["first", "mem://a"],
    ["second", "mem://b"],
  ]);
  assert.equal(unconnected.serverHost.sent.length, 0, "a session not yet initialized gets nothing");
  assert.deepEqual(await first.client.unsubscribeResource("mem://a"), {});
  first.server.notifyResourceUpdated("mem://a");
  await first.settle();
  assert.equal(updates.length, 2, "no update after unsubscribe");
  first.session.close();
  first.server.notifyResourceUpdated("mem://a");
  second.session.close();
  first.server.notifyResourceUpdated("mem://b");
  await second.settle();
  assert.equal(updates.length, 2, "closed sessions get nothing");
});

// ── prompts and completion ───────────────────────────────────────────────────────

test("PR-01, PR-02, JR-02: getPrompt(): arguments reach the handler; a missing required argument → -32602; an unknown prompt → -32602", async () => {
  const pair = await connected({
    setup: (s) =>
      s.prompt("greet", { description: "Greets", arguments: [{ name: "name", required: true }, { name: "tone" }] }, (args) => ({
        messages: [
          { role: "user", content: { type: "text", text: `Hello ${args.name}${args.tone !== undefined ? ` (${args.tone})` : ""}` } },
        ],
      })),
  });
  assert.deepEqual(await pair.client.getPrompt("greet", { name: "Ada", tone: "warm" }), {
    messages: [{ role: "user", content: { type: "text", text: "Hello Ada (warm)" } }],
  });
  const missing = await mcpError(pair.client.getPrompt("greet", { tone: "warm" }), -32602);
  assert.match(missing.message, /Missing required argument name for prompt greet/);
  assert.deepEqual(missing.data, { argument: "name" });
  await mcpError(pair.client.getPrompt("greet"), -32602);
  const unknown = await mcpError(pair.client.getPrompt("nope", {}), -32602);
  assert.deepEqual(unknown.data, { name: "nope" });
  assert.deepEqual(pair.clientHost.messages("prompts/get")[2]?.params, { name: "greet" }, "no arguments key without arguments");
  assert.deepEqual((await pair.client.listPrompts())[0], {
    name: "greet",
    description: "Greets",
    arguments: [{ name: "name", required: true }, { name: "tone" }],
  });
});

test("CM-01: complete(): more than 100 candidates → 100 values, the total, hasMore true; context arguments reach the completer", async () => {
  const contexts: unknown[] = [];
  const pair = await connected({
    setup: (s) => {
      s.prompt(
        "pick",
        {
          arguments: [{ name: "item" }, { name: "free" }],
          complete: { item: (value) => Array.from({ length: 150 }, (_, i) => `${value}${i}`) },
        },
        () => ({ messages: [] }),
      );
      s.resourceTemplate(
        parseTemplate("db://{table}/{row}"),
        { name: "rows", complete: { row: (value, ctx) => (contexts.push(ctx), [`${value}-1`, `${value}-2`]) } },
        (uri) => ({ contents: [{ uri, text: "" }] }),
      );
    },
  });
  const many = await pair.client.complete({ ref: { type: "ref/prompt", name: "pick" }, argument: { name: "item", value: "x" } });
  assert.equal(many.completion.values.length, 100);
  assert.equal(many.completion.values[0], "x0");
  assert.equal(many.completion.values[99], "x99");
  assert.equal(many.completion.total, 150);
  assert.equal(many.completion.hasMore, true);
  const few = await pair.client.complete({
    ref: { type: "ref/resource", uri: "db://{table}/{row}" },
    argument: { name: "row", value: "r" },
    context: { arguments: { table: "users" } },
  });
  assert.deepEqual(few, { completion: { values: ["r-1", "r-2"], total: 2, hasMore: false } });
  assert.deepEqual(contexts, [{ arguments: { table: "users" } }]);
  assert.deepEqual(await pair.client.complete({ ref: { type: "ref/prompt", name: "pick" }, argument: { name: "free", value: "" } }), {
    completion: { values: [], total: 0, hasMore: false },
  });
  await mcpError(pair.client.complete({ ref: { type: "ref/prompt", name: "nope" }, argument: { name: "item", value: "" } }), -32602);
  await mcpError(pair.client.complete({ ref: { type: "ref/resource", uri: "db://other" }, argument: { name: "row", value: "" } }), -32602);
});

test("complete(): a completer that throws is answered -32603 with its message", async () => {
  const pair = await connected({
    setup: (s) =>
      s.prompt(
        "p",
        {
          complete: {
            a: () => {
              throw new Error("index offline");
            },
          },
        },
        () => ({ messages: [] }),
      ),
  });
  const error = await mcpError(
    pair.client.complete({ ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "" } }),
    -32603,
  );
  assert.equal(error.message, "MCP error -32603: index offline");
});

// ── logging ──────────────────────────────────────────────────────────────────────

test("O-03: setLoggingLevel(): ctx.log below the level is not delivered; at or above it is, with the logger", async () => {
  const logs: unknown[] = [];
  let context: HandlerContext | undefined;
  const pair = await connected({
    setup: (s) =>
      s.tool("work", {}, (_args, ctx) => {
        context = ctx;
        return new Promise<CallToolResult>(() => {});
      }),
  });
  pair.client.onNotification("notifications/message", (p) => logs.push(p));
  void pair.client.callTool("work");
  await pair.settle();
  assert.ok(context !== undefined);
  context.log("debug", "before any level");
  await pair.settle();
  assert.deepEqual(await pair.client.setLoggingLevel("warning"), {});
  context.log("info", "dropped");
  context.log("warning", { detail: 1 }, "db");
  context.log("error", "kept");
  await pair.settle();
  assert.deepEqual(logs, [
    { level: "debug", data: "before any level" },
    { level: "warning", data: { detail: 1 }, logger: "db" },
    { level: "error", data: "kept" },
  ]);
});

test("O-01, C-01: with logging: false the capability is not declared and ctx.log is a no-op", async () => {
  let context: HandlerContext | undefined;
  const pair = await connected({
    server: { logging: false },
    setup: (s) =>
      s.tool("work", {}, (_args, ctx) => {
        context = ctx;
        return OK;
      }),
  });
  assert.equal(pair.client.server?.capabilities.logging, undefined);
  await pair.client.callTool("work");
  context?.log("error", "nobody listens");
  await pair.settle();
  assert.equal(pair.serverHost.messages("notifications/message").length, 0);
  assert.ok(
    (await rejection(pair.client.setLoggingLevel("info"))) instanceof ProtocolMisuseError,
    "the client does not ask a server without logging",
  );
});

// ── capabilities and list_changed ────────────────────────────────────────────────

test("C-02: capabilities follow the registrations, merged with options.capabilities", () => {
  const bare = new Server({ info: SERVER_INFO });
  assert.deepEqual(bare.capabilities(), { logging: {} });
  assert.deepEqual(new Server({ info: SERVER_INFO, logging: false }).capabilities(), {});
  const tools = new Server({ info: SERVER_INFO, logging: false });
  tools.tool("t", {}, () => OK);
  assert.deepEqual(tools.capabilities(), { tools: { listChanged: true } });
  const resources = new Server({ info: SERVER_INFO, logging: false });
  resources.resource("mem://x", { name: "x" }, (uri) => ({ contents: [{ uri, text: "" }] }));
  assert.deepEqual(resources.capabilities(), { resources: { subscribe: true, listChanged: true } });
  const templates = new Server({ info: SERVER_INFO, logging: false });
  templates.resourceTemplate(parseTemplate("mem://{x}"), { name: "x" }, (uri) => ({ contents: [{ uri, text: "" }] }));
  assert.deepEqual(templates.capabilities(), { resources: { subscribe: true, listChanged: true }, completions: {} });
  const prompts = new Server({ info: SERVER_INFO, logging: false });
  prompts.prompt("p", {}, () => ({ messages: [] }));
  assert.deepEqual(prompts.capabilities(), { prompts: { listChanged: true }, completions: {} });
  const merged = new Server({
    info: SERVER_INFO,
    capabilities: { tools: { listChanged: false }, experimental: { x: {} } },
  });
  merged.tool("t", {}, () => OK);
  assert.deepEqual(merged.capabilities(), { tools: { listChanged: false }, experimental: { x: {} }, logging: {} });
});

test("L-12: registering or removing after initialization sends list_changed (seen by onNotification); not before", async () => {
  const pair = new Pair({
    setup: (s) => {
      s.tool("first", {}, () => OK);
      s.prompt("p0", {}, () => ({ messages: [] }));
      s.resource("mem://0", { name: "0" }, (uri) => ({ contents: [{ uri, text: "" }] }));
    },
  });
  const seen: string[] = [];
  for (const m of ["notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed"])
    pair.client.onNotification(m, () => seen.push(m.split("/")[1] as string));
  const early = pair.server.tool("early", {}, () => OK);
  await pair.settle();
  assert.equal(pair.serverHost.sent.length, 0, "nothing before initialization");
  await pair.connect();
  assert.equal(pair.serverHost.messages("notifications/tools/list_changed").length, 0);
  const later = pair.server.tool("later", {}, () => OK);
  await pair.settle();
  assert.deepEqual(seen, ["tools"]);
  assert.deepEqual(
    (await pair.client.listTools()).map((t) => t.name),
    ["first", "early", "later"],
  );
  later.remove();
  later.remove();
  early.remove();
  await pair.settle();
  assert.deepEqual(seen, ["tools", "tools", "tools"], "a second remove() is a no-op");
  const p = pair.server.prompt("p1", {}, () => ({ messages: [] }));
  pair.server.resource("mem://1", { name: "1" }, (uri) => ({ contents: [{ uri, text: "" }] }));
  pair.server.resourceTemplate(parseTemplate("mem://t/{x}"), { name: "t" }, (uri) => ({ contents: [{ uri, text: "" }] }));
  p.remove();
  await pair.settle();
  assert.deepEqual(seen, ["tools", "tools", "tools", "prompts", "resources", "resources", "prompts"]);
  assert.throws(
    () => pair.server.tool("first", {}, () => OK),
    /unique names: expected a tool name not registered yet, got "first", which is/,
  );
});

test("C-04: list_changed is not sent for a kind the session did not declare; onNotification unsubscribes", async () => {
  const pair = await connected({ setup: (s) => s.tool("t", {}, () => OK) });
  const seen: string[] = [];
  const off = pair.client.onNotification("notifications/tools/list_changed", () => seen.push("a"));
  pair.client.onNotification("notifications/tools/list_changed", () => seen.push("b"));
  pair.server.prompt("p", {}, () => ({ messages: [] }));
  await pair.settle();
  assert.equal(pair.serverHost.messages("notifications/prompts/list_changed").length, 0, "prompts were not declared by this session");
  pair.server.tool("u", {}, () => OK);
  await pair.settle();
  off();
  pair.server.tool("v", {}, () => OK);
  await pair.settle();
  assert.deepEqual(seen, ["a", "b", "b"]);
  const noTools = await connected({ server: { capabilities: { tools: { listChanged: false } } } });
  noTools.server.tool("w", {}, () => OK);
  await noTools.settle();
  assert.equal(noTools.serverHost.messages("notifications/tools/list_changed").length, 0, "listChanged: false");
});

test("JR-02: a completion reference of an unknown type is refused with -32602", async () => {
  const pair = await connected({ setup: (s) => s.prompt("p", {}, () => ({ messages: [] })) });
  await mcpError(
    pair.client.request("completion/complete" as string, { ref: { type: "ref/other", name: "p" }, argument: { name: "a", value: "" } }),
    -32602,
  );
});
