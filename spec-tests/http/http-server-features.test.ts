// Every reference-server feature end to end over Streamable HTTP on 127.0.0.1, with the
// platform's raw `fetch` (spec-tests/support/http-server-raw.ts): answered as JSON (responseMode
// "auto") and as SSE ("sse", and "auto" for handlers that send first), priming events by
// version, server requests (sampling) on the POST's stream answered by separate POSTs, and
// request ids reused once answered. Every wait is bounded.

import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { withTimeout } from "../support/helpers.js";
import {
  LATEST,
  PROGRESS_TOKEN,
  SseReader,
  TOOL_NAMES,
  checkSseFraming,
  elicited,
  exchange,
  messageOf,
  open,
  progressBeforeResult,
  resultOf,
  sampled,
  serve,
  textOf,
  type Exchange,
  type Json,
  type Mode,
  type ServerRequestHandler,
} from "../support/http-server-raw.js";

// ── every feature, as JSON and as SSE ───────────────────────────────────────────────

interface Feature {
  name: string;
  method: string;
  params?: Json;
  onRequest?: ServerRequestHandler;
  /** Answered with notifications before the result even in auto mode. */
  streams?: boolean;
  /** The first version that has the feature (elicitation: 2025-06-18); before it the tool reports an error result. */
  since?: string;
  check(x: Exchange): void;
}

const FEATURES: Feature[] = [
  { name: "ping", method: "ping", check: (x) => assert.deepEqual(resultOf(x), {}) },
  {
    name: "tools/list",
    method: "tools/list",
    check: (x) => assert.deepEqual(((resultOf(x).tools as Json[]).map((tool) => tool.name) as string[]).sort(), [...TOOL_NAMES].sort()),
  },
  {
    name: "test_simple_text",
    method: "tools/call",
    params: { name: "test_simple_text", arguments: {} },
    check: (x) => assert.equal(textOf(x), "This is a simple text response for testing."),
  },
  {
    name: "test_image_content",
    method: "tools/call",
    params: { name: "test_image_content", arguments: {} },
    check: (x) => assert.deepEqual(((resultOf(x).content as Json[])[0] as Json).mimeType, "image/png"),
  },
  {
    name: "test_audio_content",
    method: "tools/call",
    params: { name: "test_audio_content", arguments: {} },
    check: (x) => assert.deepEqual(((resultOf(x).content as Json[])[0] as Json).mimeType, "audio/wav"),
  },
  {
    name: "test_embedded_resource",
    method: "tools/call",
    params: { name: "test_embedded_resource", arguments: {} },
    check: (x) => assert.equal((((resultOf(x).content as Json[])[0] as Json).resource as Json).uri, "test://embedded-resource"),
  },
  {
    name: "test_multiple_content_types",
    method: "tools/call",
    params: { name: "test_multiple_content_types", arguments: {} },
    check: (x) =>
      assert.deepEqual(
        (resultOf(x).content as Json[]).map((c) => c.type),
        ["text", "image", "resource"],
      ),
  },
  {
    name: "test_error_handling",
    method: "tools/call",
    params: { name: "test_error_handling", arguments: {} },
    check: (x) => {
      assert.equal(resultOf(x).isError, true);
      assert.equal(textOf(x), "This tool intentionally returns an error for testing");
    },
  },
  {
    name: "json_schema_2020_12_tool",
    method: "tools/call",
    params: { name: "json_schema_2020_12_tool", arguments: { name: "ada", email: "ada@example.com" } },
    check: (x) => {
      assert.equal(resultOf(x).isError, undefined);
      assert.match(textOf(x), /^JSON Schema 2020-12 tool called with: /);
    },
  },
  {
    name: "test_reconnection",
    method: "tools/call",
    params: { name: "test_reconnection", arguments: {} },
    check: (x) => assert.match(textOf(x), /^Reconnection test completed/),
  },
  {
    name: "test_tool_fast",
    method: "tools/call",
    params: { name: "test_tool_fast", arguments: {} },
    check: (x) => assert.equal(textOf(x), "fast"),
  },
  {
    name: "test_tool_slow (no token)",
    method: "tools/call",
    params: { name: "test_tool_slow", arguments: { durationMs: 30 } },
    check: (x) => assert.equal(textOf(x), "Slept 30 ms"),
  },
  {
    name: "unknown tool",
    method: "tools/call",
    params: { name: "no_such_tool", arguments: {} },
    check: (x) => assert.equal((x.response.error as Json).code, -32602),
  },
  {
    name: "test_tool_with_progress",
    method: "tools/call",
    params: { name: "test_tool_with_progress", arguments: {} },
    streams: true,
    check: (x) => {
      progressBeforeResult(x, 3);
      assert.equal(textOf(x), "Tool with progress executed successfully");
    },
  },
  {
    name: "test_tool_with_logging",
    method: "tools/call",
    params: { name: "test_tool_with_logging", arguments: {} },
    streams: true,
    check: (x) => {
      const logs = x.messages.filter((m) => m.method === "notifications/message");
      assert.ok(logs.length >= 4, `log messages before the result, got ${logs.length}`);
      assert.equal((logs[0]?.params as Json).data, "Tool execution started");
      assert.equal(textOf(x), "Tool with logging executed successfully");
    },
  },
  {
    name: "test_sampling",
    method: "tools/call",
    params: { name: "test_sampling", arguments: { prompt: "hello" } },
    onRequest: sampled,
    streams: true,
    check: (x) => {
      assert.equal(x.messages[0]?.method, "sampling/createMessage", "the sampling request arrives on the POST's stream");
      assert.equal(textOf(x), "LLM response: echo hello");
    },
  },
  {
    name: "test_elicitation",
    since: "2025-06-18",
    method: "tools/call",
    params: { name: "test_elicitation", arguments: { message: "who?" } },
    onRequest: elicited,
    streams: true,
    check: (x) => assert.equal(textOf(x), 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}'),
  },
  {
    name: "test_elicitation_sep1034_defaults",
    since: "2025-06-18",
    method: "tools/call",
    params: { name: "test_elicitation_sep1034_defaults", arguments: {} },
    onRequest: (request) => {
      const properties = ((request.params as Json).requestedSchema as Json).properties as Json;
      assert.equal((properties.name as Json).default, "John Doe");
      return { action: "accept", content: { name: "John Doe", age: 30 } };
    },
    streams: true,
    check: (x) => assert.match(textOf(x), /^Elicitation completed: action=accept/),
  },
  {
    name: "test_elicitation_sep1330_enums",
    since: "2025-06-18",
    method: "tools/call",
    params: { name: "test_elicitation_sep1330_enums", arguments: {} },
    onRequest: () => ({ action: "decline" }),
    streams: true,
    check: (x) => assert.equal(textOf(x), "Elicitation completed: action=decline, content={}"),
  },
  {
    name: "resources/list",
    method: "resources/list",
    // The three test:// resources, and beside them only the skills' files (skill://, SK-03).
    check: (x) => {
      const uris = (resultOf(x).resources as Json[]).map((r) => String(r.uri));
      const own = uris.filter((u) => !u.startsWith("skill://"));
      assert.deepEqual(own.sort(), ["test://static-binary", "test://static-text", "test://watched-resource"]);
      assert.ok(
        uris.some((u) => u.startsWith("skill://")),
        `no skill:// resource in ${JSON.stringify(uris)}`,
      );
    },
  },
  {
    name: "resources/templates/list",
    method: "resources/templates/list",
    check: (x) => assert.equal(((resultOf(x).resourceTemplates as Json[])[0] as Json).uriTemplate, "test://template/{id}/data"),
  },
  {
    name: "resources/read static-text",
    method: "resources/read",
    params: { uri: "test://static-text" },
    check: (x) => assert.equal(((resultOf(x).contents as Json[])[0] as Json).text, "This is the content of the static text resource."),
  },
  {
    name: "resources/read static-binary",
    method: "resources/read",
    params: { uri: "test://static-binary" },
    check: (x) => assert.equal(((resultOf(x).contents as Json[])[0] as Json).mimeType, "image/png"),
  },
  {
    name: "resources/read template",
    method: "resources/read",
    params: { uri: "test://template/42/data" },
    check: (x) =>
      assert.deepEqual(JSON.parse(((resultOf(x).contents as Json[])[0] as Json).text as string), {
        id: "42",
        templateTest: true,
        data: "Data for ID: 42",
      }),
  },
  {
    name: "resources/read unknown",
    method: "resources/read",
    params: { uri: "test://nothing" },
    check: (x) => assert.equal((x.response.error as Json).code, -32002),
  },
  {
    name: "resources/subscribe",
    method: "resources/subscribe",
    params: { uri: "test://watched-resource" },
    check: (x) => assert.deepEqual(resultOf(x), {}),
  },
  {
    name: "resources/unsubscribe",
    method: "resources/unsubscribe",
    params: { uri: "test://watched-resource" },
    check: (x) => assert.deepEqual(resultOf(x), {}),
  },
  { name: "prompts/list", method: "prompts/list", check: (x) => assert.equal((resultOf(x).prompts as Json[]).length, 5) },
  {
    name: "prompts/get simple",
    method: "prompts/get",
    params: { name: "test_simple_prompt" },
    check: (x) =>
      assert.equal((((resultOf(x).messages as Json[])[0] as Json).content as Json).text, "This is a simple prompt for testing."),
  },
  {
    name: "prompts/get with arguments",
    method: "prompts/get",
    params: { name: "test_prompt_with_arguments", arguments: { arg1: "a", arg2: "b" } },
    check: (x) =>
      assert.equal((((resultOf(x).messages as Json[])[0] as Json).content as Json).text, "Prompt with arguments: arg1='a', arg2='b'"),
  },
  {
    name: "prompts/get embedded resource",
    method: "prompts/get",
    params: { name: "test_prompt_with_embedded_resource", arguments: { resourceUri: "test://static-text" } },
    check: (x) =>
      assert.equal(((((resultOf(x).messages as Json[])[0] as Json).content as Json).resource as Json).uri, "test://static-text"),
  },
  {
    name: "prompts/get image",
    method: "prompts/get",
    params: { name: "test_prompt_with_image" },
    check: (x) => assert.equal((((resultOf(x).messages as Json[])[0] as Json).content as Json).type, "image"),
  },
  {
    name: "completion/complete prompt",
    method: "completion/complete",
    params: { ref: { type: "ref/prompt", name: "test_prompt_with_arguments" }, argument: { name: "arg1", value: "test" } },
    check: (x) => assert.deepEqual((resultOf(x).completion as Json).values, ["test", "testValue1", "testValue2"]),
  },
  {
    name: "completion/complete template",
    method: "completion/complete",
    params: { ref: { type: "ref/resource", uri: "test://template/{id}/data" }, argument: { name: "id", value: "4" } },
    check: (x) => assert.deepEqual((resultOf(x).completion as Json).values, ["456"]),
  },
  { name: "logging/setLevel", method: "logging/setLevel", params: { level: "debug" }, check: (x) => assert.deepEqual(resultOf(x), {}) },
  { name: "unknown method", method: "no/such", check: (x) => assert.equal((x.response.error as Json).code, -32601) },
];

async function runFeatures(t: TestContext, mode: Mode, version: string): Promise<void> {
  const { url } = await serve(t, { responseMode: mode });
  const session = await open(url, version);
  for (const feature of FEATURES) {
    const id = session.newId();
    const params = feature.streams === true ? { ...feature.params, ...PROGRESS_TOKEN(id) } : feature.params;
    const x = await withTimeout(exchange(session, feature.method, params, feature.onRequest, id), 5000, feature.name);
    assert.equal(x.status, 200, feature.name);
    assert.equal(x.response.id, id, `${feature.name}: the answer carries its request's id`);
    if (feature.since !== undefined && version < feature.since) {
      // Not in this version: the server does not ask, and the tool says so.
      assert.equal(resultOf(x).isError, true, feature.name);
      assert.ok(
        x.messages.every((m) => m.method === undefined),
        `${feature.name}: no server request`,
      );
      continue;
    }
    if (mode === "auto" && feature.streams !== true) {
      assert.ok(x.contentType.startsWith("application/json"), `${feature.name}: JSON in auto mode, got ${x.contentType}`);
    } else {
      checkSseFraming(x, version);
    }
    feature.check(x);
  }
}

test("HTTP-01, HTTP-09: every reference-server feature, responseMode auto (2025-11-25): JSON unless the handler sends first, then SSE with priming", (t) =>
  runFeatures(t, "auto", LATEST));
test("HTTP-01, HTTP-09: every reference-server feature, responseMode sse (2025-11-25): SSE with a priming event first", (t) =>
  runFeatures(t, "sse", LATEST));
test("HTTP-09: every reference-server feature, responseMode auto (2025-06-18): SSE streams carry no priming event", (t) =>
  runFeatures(t, "auto", "2025-06-18"));
test("HTTP-01: every reference-server feature, responseMode sse (2025-03-26)", (t) => runFeatures(t, "sse", "2025-03-26"));

test("HTTP-01: sampling: the server's request arrives on the POST's stream; its answer is a separate POST (202); the result follows on the original stream", async (t) => {
  const { url } = await serve(t);
  const session = await open(url);
  const get = await session.get();
  assert.equal(get.status, 200);
  const standalone = new SseReader(get);
  assert.equal((await standalone.next())?.data, "", "the GET stream is primed");

  const response = await session.post({
    jsonrpc: "2.0",
    id: "call-1",
    method: "tools/call",
    params: { name: "test_sampling", arguments: { prompt: "2+2?" } },
  });
  assert.ok((response.headers.get("content-type") ?? "").startsWith("text/event-stream"));
  const stream = new SseReader(response);
  const priming = await stream.next();
  assert.equal(priming?.data, "");
  const request = messageOf((await stream.next())!)!;
  assert.equal(request.method, "sampling/createMessage");
  assert.equal(typeof request.id, "number");
  const answer = await session.post({
    jsonrpc: "2.0",
    id: request.id,
    result: { role: "assistant", content: { type: "text", text: "4" }, model: "m" },
  });
  assert.equal(answer.status, 202);
  assert.equal(await answer.text(), "");
  const result = messageOf((await stream.next())!)!;
  assert.equal(result.id, "call-1");
  assert.equal((((result.result as Json).content as Json[])[0] as Json).text, "LLM response: 4");
  assert.equal(await stream.next(), undefined, "the stream ends after the response");
  // Nothing of this exchange went to the GET stream.
  await assert.rejects(standalone.next(200), /no outcome/);
  standalone.cancel();
});

test("ID-03: ids may be reused once answered: a later slow request with an id a ping used gets its own stream and answer", async (t) => {
  const { url } = await serve(t);
  const session = await open(url);
  for (let round = 0; round < 2; round++) {
    const ping = await exchange(session, "ping", undefined, undefined, 7);
    assert.deepEqual(ping.response.result, {});
    const x = await withTimeout(
      exchange(session, "tools/call", { name: "test_tool_with_progress", arguments: {}, ...PROGRESS_TOKEN(7) }, undefined, 7),
      3000,
      "reused id",
    );
    progressBeforeResult(x, 3);
    assert.equal(textOf(x), "Tool with progress executed successfully");
  }
});
