// The reference server's 2026-07-28 diagnostics (lib/cli/reference-server.ts) over Streamable
// HTTP on 127.0.0.1, driven with the platform's raw fetch: the input_required tools and
// prompt (named input requests, a sealed requestState that is refused when tampered with,
// replayed on another tool or expired, several rounds, only declared kinds asked for), the
// tool needing an undeclared capability (400 -32021), logging without and with a logLevel,
// the list-change hooks reaching an open subscriptions/listen stream, and the tool whose
// arguments travel in Mcp-Param-* headers. Their session-era behaviour (the client asked
// directly) is covered by the reference client's report (e2e-stdio, e2e-modern).
//
// Every wait is bounded (withTimeout).

import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createReferenceServer } from "../../lib/cli/reference-server.js";
import { serveHttp } from "../../lib/hosts/http-server.js";
import { META_CLIENT_CAPABILITIES, META_LOG_LEVEL, META_PROTOCOL_VERSION, META_SUBSCRIPTION_ID } from "../../lib/rules/modern.js";
import { withTimeout, type FetchResponse } from "../support/helpers.js";

const platformFetch = (
  globalThis as unknown as {
    fetch: (url: string, init: { method: string; headers: Record<string, string>; body: string }) => Promise<FetchResponse>;
  }
).fetch;

type Json = { [key: string]: unknown };

const ALL_CAPS = { sampling: {}, elicitation: {}, roots: {} };
let nextId = 1;

/** A running reference server whose requestState clock the test sets. */
async function reference(t: TestContext): Promise<{ url: string; clock: { now: number } }> {
  const clock = { now: 1_000_000 };
  const server = createReferenceServer({
    paginationSecret: randomBytes(32),
    requestStateSecret: randomBytes(32),
    sleep: () => Promise.resolve(),
    now: () => clock.now,
  });
  const running = await serveHttp(server, { onError: () => {} });
  (t as unknown as { after(fn: () => Promise<void>): void }).after(() => running.close());
  return { url: running.url, clock };
}

/** POSTs one 2026-07-28 request with the headers a client derives from it (plus `extra`); the response unread. */
function send(
  url: string,
  method: string,
  params: Json,
  caps: Json = ALL_CAPS,
  extra: Record<string, string> = {},
  meta: Json = {},
): Promise<FetchResponse> {
  const body = {
    jsonrpc: "2.0",
    id: nextId++,
    method,
    params: { ...params, _meta: { [META_PROTOCOL_VERSION]: "2026-07-28", [META_CLIENT_CAPABILITIES]: caps, ...meta } },
  };
  const headers: Record<string, string> = {
    accept: "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
    ...extra,
  };
  if (typeof params.name === "string") headers["mcp-name"] = params.name;
  return withTimeout(platformFetch(url, { method: "POST", headers, body: JSON.stringify(body) }), 10_000, `POST ${method}`);
}

/** Every JSON-RPC message of a response, JSON or SSE, with its status. */
async function exchange(
  url: string,
  method: string,
  params: Json,
  caps?: Json,
  extra?: Record<string, string>,
  meta?: Json,
): Promise<{ status: number; messages: Json[]; answer: Json }> {
  const response = await send(url, method, params, caps, extra, meta);
  const text = await withTimeout(response.text(), 10_000, `${method} body`);
  const sse = (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
  const messages = sse
    ? text
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => JSON.parse(line.slice(5)) as Json)
    : [JSON.parse(text) as Json];
  const answer = messages.find((m) => "result" in m || "error" in m);
  assert.ok(answer !== undefined, `an answer to ${method}`);
  return { status: response.status, messages, answer };
}

async function result(url: string, method: string, params: Json, caps?: Json): Promise<Json> {
  const { answer } = await exchange(url, method, params, caps);
  assert.ok(answer.result !== undefined, `a result, got ${JSON.stringify(answer)}`);
  return answer.result as Json;
}

async function error(
  url: string,
  method: string,
  params: Json,
  caps?: Json,
): Promise<{ status: number; code: number; data: Json | undefined }> {
  const { status, answer } = await exchange(url, method, params, caps);
  const e = answer.error as { code: number; data?: Json } | undefined;
  assert.ok(e !== undefined, `an error, got ${JSON.stringify(answer)}`);
  return { status, code: e.code, data: e.data };
}

const call = (name: string, extra: Json = {}): Json => ({ name, arguments: {}, ...extra });
const textOf = (r: Json): string => ((r.content as Json[])[0] as { text: string }).text;
const accept = (content: Json): Json => ({ action: "accept", content });
const methodsOf = (r: Json): Json => Object.fromEntries(Object.entries(r.inputRequests as Json).map(([k, v]) => [k, (v as Json).method]));

test("input_required tools: named input requests of each kind; the retry with answers completes; a missing or malformed answer is asked again", async (t) => {
  const { url } = await reference(t);
  const first = await result(url, "tools/call", call("test_input_required_result_elicitation"));
  assert.equal(first.resultType, "input_required");
  assert.deepEqual(methodsOf(first), { user_name: "elicitation/create" });
  assert.equal(first.requestState, undefined, "nothing to carry: no state");
  assert.equal(
    textOf(
      await result(
        url,
        "tools/call",
        call("test_input_required_result_elicitation", { inputResponses: { user_name: accept({ name: "Alice" }), extra: accept({}) } }),
      ),
    ),
    "Hello, Alice!",
  );
  for (const wrong of [{ wrong_key: accept({}) }, { user_name: 12345 }]) {
    assert.equal(
      (await result(url, "tools/call", call("test_input_required_result_elicitation", { inputResponses: wrong }))).resultType,
      "input_required",
    );
  }

  const sampling = await result(url, "tools/call", call("test_input_required_result_sampling"));
  assert.deepEqual(methodsOf(sampling), { capital_question: "sampling/createMessage" });
  const sampled = await result(
    url,
    "tools/call",
    call("test_input_required_result_sampling", {
      inputResponses: { capital_question: { role: "assistant", content: { type: "text", text: "Paris." }, model: "m" } },
    }),
  );
  assert.equal(textOf(sampled), "The model answered: Paris.");

  const roots = await result(url, "tools/call", call("test_input_required_result_list_roots"));
  assert.deepEqual(methodsOf(roots), { client_roots: "roots/list" });
  const listed = await result(
    url,
    "tools/call",
    call("test_input_required_result_list_roots", { inputResponses: { client_roots: { roots: [{ uri: "file:///a" }] } } }),
  );
  assert.equal(textOf(listed), "The client has 1 root(s): file:///a");

  // prompts/get goes input_required the same way, and completes with messages.
  const prompt = await result(url, "prompts/get", { name: "test_input_required_result_prompt" });
  assert.deepEqual(methodsOf(prompt), { user_context: "elicitation/create" });
  const messages = await result(url, "prompts/get", {
    name: "test_input_required_result_prompt",
    inputResponses: { user_context: accept({ context: "ctx" }) },
  });
  assert.equal(messages.resultType, "complete");
  assert.deepEqual((messages.messages as Json[])[0], { role: "user", content: { type: "text", text: "Answer using this context: ctx" } });
});

test("sealed requestState: echoed untouched it verifies (state-ok); tampered, replayed on another tool or expired it is refused with -32602", async (t) => {
  const { url, clock } = await reference(t);
  const tool = "test_input_required_result_request_state";
  const first = await result(url, "tools/call", call(tool));
  assert.deepEqual(methodsOf(first), { confirm: "elicitation/create" });
  const state = first.requestState as string;
  assert.equal(typeof state, "string");
  const retry = (name: string, requestState: string): Json =>
    call(name, { inputResponses: { confirm: accept({ ok: true }) }, requestState });
  assert.match(textOf(await result(url, "tools/call", retry(tool, state))), /^state-ok/);
  // Answers without the state it asked with are not trusted: it asks again, with a state.
  const stateless = await result(url, "tools/call", call(tool, { inputResponses: { confirm: accept({ ok: true }) } }));
  assert.equal(stateless.resultType, "input_required");
  assert.equal(typeof stateless.requestState, "string");

  const refused = async (name: string, requestState: string, reason: string): Promise<void> => {
    const e = await error(url, "tools/call", retry(name, requestState));
    assert.equal(e.code, -32602, reason);
    assert.deepEqual(e.data, { reason }, reason);
  };
  await refused(tool, `${state}-TAMPERED`, "malformed");
  const dot = state.indexOf(".");
  await refused(tool, `${state.slice(0, dot - 1)}${state[dot - 1] === "A" ? "B" : "A"}${state.slice(dot)}`, "tampered");
  const other = (await result(url, "tools/call", call("test_input_required_result_tampered_state"))).requestState as string;
  await refused(tool, other, "other-request");
  clock.now += 600_000;
  await refused(tool, state, "expired");
});

test("multi-round: step1, then step2 with a new state remembering the answer, then complete; several inputs at once, the missing ones asked again", async (t) => {
  const { url } = await reference(t);
  const tool = "test_input_required_result_multi_round";
  const r1 = await result(url, "tools/call", call(tool));
  assert.deepEqual(methodsOf(r1), { step1: "elicitation/create" });
  const r2 = await result(
    url,
    "tools/call",
    call(tool, { inputResponses: { step1: accept({ name: "Alice" }) }, requestState: r1.requestState }),
  );
  assert.deepEqual(methodsOf(r2), { step2: "elicitation/create" });
  assert.notEqual(r2.requestState, r1.requestState);
  const r3 = await result(
    url,
    "tools/call",
    call(tool, { inputResponses: { step2: accept({ color: "blue" }) }, requestState: r2.requestState }),
  );
  assert.equal(textOf(r3), "Alice's favorite color is blue");

  const multiple = "test_input_required_result_multiple_inputs";
  const m1 = await result(url, "tools/call", call(multiple));
  assert.deepEqual(methodsOf(m1), { user_name: "elicitation/create", greeting: "sampling/createMessage", client_roots: "roots/list" });
  const partial = await result(
    url,
    "tools/call",
    call(multiple, { inputResponses: { user_name: accept({ name: "Bo" }) }, requestState: m1.requestState }),
  );
  assert.deepEqual(methodsOf(partial), { greeting: "sampling/createMessage", client_roots: "roots/list" });
  const all = {
    user_name: accept({ name: "Bo" }),
    greeting: { role: "assistant", content: { type: "text", text: "Hi" }, model: "m" },
    client_roots: { roots: [] },
  };
  assert.equal(
    textOf(await result(url, "tools/call", call(multiple, { inputResponses: all, requestState: m1.requestState }))),
    "All inputs received: name=Bo, greeting=Hi, roots=",
  );
});

test("only declared kinds are asked for; an undeclared capability the tool needs → 400 -32021 naming it", async (t) => {
  const { url } = await reference(t);
  const samplingOnly = await result(url, "tools/call", call("test_input_required_result_capabilities"), { sampling: {} });
  assert.deepEqual(methodsOf(samplingOnly), { sampling: "sampling/createMessage" });
  assert.equal(
    textOf(await result(url, "tools/call", call("test_input_required_result_capabilities"), {})),
    "The client declared none of sampling, elicitation and roots: nothing to ask",
  );

  const missing = await error(url, "tools/call", call("test_missing_capability"), {});
  assert.equal(missing.status, 400);
  assert.equal(missing.code, -32021);
  assert.deepEqual(missing.data, { requiredCapabilities: { sampling: {} } });
  assert.equal((await result(url, "tools/call", call("test_missing_capability"), { sampling: {} })).resultType, "input_required");
  // The elicitation of test_streaming_elicitation is an input_required result, never a request on the stream.
  const streaming = await exchange(url, "tools/call", call("test_streaming_elicitation"));
  assert.ok(streaming.messages.every((m) => !("method" in m) || String(m.method).startsWith("notifications/")));
  assert.equal((streaming.answer.result as Json).resultType, "input_required");
});

test("test_logging_tool: no notifications/message without a logLevel; with one, those at or above it come before the result", async (t) => {
  const { url } = await reference(t);
  const quiet = await exchange(url, "tools/call", call("test_logging_tool"));
  assert.equal(quiet.messages.length, 1);
  assert.equal((quiet.answer.result as Json).resultType, "complete");
  const loud = await exchange(url, "tools/call", call("test_logging_tool"), ALL_CAPS, {}, { [META_LOG_LEVEL]: "warning" });
  const levels = loud.messages.filter((m) => m.method === "notifications/message").map((m) => (m.params as Json).level);
  assert.deepEqual(levels, ["warning", "error"]);
});

test("the list-change hooks reach an open listen stream that asked for that list, tagged with its subscription id; others are not told", async (t) => {
  const { url } = await reference(t);
  for (const [hook, filter, method] of [
    ["test_trigger_tool_change", "toolsListChanged", "notifications/tools/list_changed"],
    ["test_trigger_prompt_change", "promptsListChanged", "notifications/prompts/list_changed"],
  ] as const) {
    const listen = await send(url, "subscriptions/listen", { notifications: { [filter]: true } });
    const other = await send(url, "subscriptions/listen", { notifications: { resourcesListChanged: true } });
    assert.ok(listen.body !== null && other.body !== null);
    const reader = listen.body.getReader();
    const otherReader = other.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    const next = async (): Promise<Json> => {
      for (;;) {
        const line = buffer.split("\n").find((l) => l.startsWith("data:"));
        if (line !== undefined) {
          buffer = buffer.slice(buffer.indexOf(line) + line.length);
          return JSON.parse(line.slice(5)) as Json;
        }
        const chunk = await withTimeout(reader.read(), 5000, `${hook}: listen stream`);
        assert.equal(chunk.done, false);
        buffer += decoder.decode(chunk.value, { stream: true });
      }
    };
    const ack = await next();
    assert.equal(ack.method, "notifications/subscriptions/acknowledged");
    const id = (ack.params as Json)._meta as Json;
    assert.equal(
      textOf(await result(url, "tools/call", call(hook))),
      hook === "test_trigger_tool_change"
        ? "The tool list changed (a tool was added, then removed)"
        : "The prompt list changed (a prompt was added, then removed)",
    );
    const changed = await next();
    assert.equal(changed.method, method);
    assert.equal(((changed.params as Json)._meta as Json)[META_SUBSCRIPTION_ID], id[META_SUBSCRIPTION_ID]);
    // The stream that asked only for resource list changes got its acknowledgement and nothing else.
    let otherText = "";
    for (;;) {
      const chunk = await withTimeout(otherReader.read(), 5000, "other listen stream");
      otherText += decoder.decode(chunk.value);
      if (otherText.includes("\n\n")) break;
    }
    assert.ok(otherText.includes("notifications/subscriptions/acknowledged") && !otherText.includes("list_changed"), otherText);
    await reader.cancel();
    await otherReader.cancel();
  }
});

test("test_custom_headers: Mcp-Param-Region equal to the region argument (plain or base64) passes; missing or different → 400 -32020", async (t) => {
  const { url } = await reference(t);
  const tools = (await result(url, "tools/list", {})).tools as Json[];
  const schema = tools.find((tool) => tool.name === "test_custom_headers")?.inputSchema as { properties: Record<string, Json> };
  assert.equal(schema.properties.region?.["x-mcp-header"], "Region");
  const args = { region: "Hello", priority: 3 };
  const ok = await exchange(url, "tools/call", { name: "test_custom_headers", arguments: args }, ALL_CAPS, {
    "mcp-param-region": "=?base64?SGVsbG8=?=",
    "mcp-param-priority": "3",
  });
  assert.equal(ok.status, 200);
  assert.equal(textOf(ok.answer.result as Json), 'Headers agreed with the arguments: {"region":"Hello","priority":3}');
  const wrong: Array<Record<string, string>> = [
    { "mcp-param-priority": "3" },
    { "mcp-param-region": "hello", "mcp-param-priority": "3" },
    { "mcp-param-region": "Hello" },
  ];
  for (const extra of wrong) {
    const refused = await exchange(url, "tools/call", { name: "test_custom_headers", arguments: args }, ALL_CAPS, extra);
    assert.equal(refused.status, 400, JSON.stringify(extra));
    assert.equal((refused.answer.error as Json).code, -32020, JSON.stringify(extra));
  }
});
