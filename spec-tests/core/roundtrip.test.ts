// Wire round trip (RULES.md MT-01, MT-02, SCH-01, SCH-02, SCH-03, STD-01, STD-02): every message type of every session-era
// version — a request, a notification and a response of each method — goes through
// encodeMessage → LineDecoder → classify and comes out member for member equal to what went
// in. Examples are valid for their version (checked against lib/rules/params.ts) and carry unicode
// strings (astral, combining, U+2028, NUL, a lone surrogate), unknown members nested at
// several depths, numbers like 1e-7 and -0.5, and the largest safe integers.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LineDecoder, classify, encodeMessage, encodeMessages, type DecodedItem, type JsonObject } from "../../lib/index.js";
import { methodTable } from "../../lib/rules/methods.js";
import { paramsCheck, resultCheck } from "../../lib/rules/params.js";
import { validate } from "../../lib/rules/schema.js";
import { SESSION_VERSIONS, VERSION_PROFILES, type SessionVersion } from "../../lib/rules/versions.js";

const UNICODE = 'héllo wörld — 日本語 Ελληνικά עברית 🎉👩‍💻 e\u0301 \u2028\u2029 tab\tnl\n quote" back\\ nul\u0000 lone\ud800 end';
const SPICE: JsonObject = {
  text: UNICODE,
  numbers: [1e-7, -0.5, 9007199254740991, -9007199254740991, 0, 1e21, 5e-324, 123.456, -1e-300, 2 ** 52 + 0.5],
  nested: { deeper: { list: [null, true, false, {}, [], [[1]], { "ünï cödé key": "v", "": "empty key" }] } },
};
/** Unknown members: any message may carry them, at any depth. */
const x = { "x-roundtrip": SPICE };

const since = (version: SessionVersion, first: SessionVersion): boolean => VERSION_PROFILES[version].index >= VERSION_PROFILES[first].index;

const text = (t: string): JsonObject => ({ type: "text", text: t, ...x });
const task = (status: string): JsonObject => ({
  taskId: "tâsk-1",
  status,
  statusMessage: UNICODE,
  createdAt: "2025-11-25T10:00:00Z",
  lastUpdatedAt: "2025-11-25T10:00:00.123Z",
  ttl: 9007199254740991,
  pollInterval: 0.5,
  ...x,
});

function requestParams(method: string, v: SessionVersion): JsonObject | undefined {
  const meta = { progressToken: 9007199254740991, "com.example/ünï": SPICE };
  switch (method) {
    case "initialize":
      return {
        protocolVersion: v,
        capabilities: { roots: { listChanged: true }, sampling: {}, experimental: { "x-feature": SPICE }, ...x },
        clientInfo: { name: "clïent 🎉", version: "1.0.0-β", ...x },
        ...x,
      };
    case "ping":
      return undefined;
    case "resources/list":
    case "resources/templates/list":
    case "prompts/list":
    case "tools/list":
    case "tasks/list":
      return { cursor: "eyJwYWdlIjogMn0=🎉", _meta: meta, ...x };
    case "resources/read":
    case "resources/subscribe":
    case "resources/unsubscribe":
      return { uri: "file:///projet/réadme.md", ...x };
    case "prompts/get":
      return { name: "revue_de_code", arguments: { code: UNICODE, langue: "français" }, _meta: meta, ...x };
    case "tools/call":
      return {
        name: "get_weather",
        arguments: { location: "São Paulo", nested: SPICE, lat: -23.5505, precision: 1e-7 },
        ...(since(v, "2025-11-25") ? { task: { ttl: 60000 } } : {}),
        _meta: meta,
        ...x,
      };
    case "logging/setLevel":
      return { level: "warning", ...x };
    case "completion/complete":
      return {
        ref: { type: "ref/prompt", name: "revue", ...x },
        argument: { name: "langue", value: "fr", ...x },
        ...(since(v, "2025-06-18") ? { context: { arguments: { a: "ß" } } } : {}),
        ...x,
      };
    case "sampling/createMessage":
      return {
        messages: [
          { role: "user", content: text(UNICODE), ...x },
          {
            role: "assistant",
            content: { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png", annotations: { priority: 0.5, audience: ["user"] } },
          },
          { role: "user", content: { type: "hologram", frames: [SPICE] } },
        ],
        maxTokens: 9007199254740991,
        temperature: -0.5,
        modelPreferences: { hints: [{ name: "claude-3-sonnet" }], costPriority: 1e-7, speedPriority: 0, intelligencePriority: 1 },
        stopSequences: ["\n\n", "🛑"],
        metadata: SPICE,
        includeContext: "none",
        ...x,
      };
    case "roots/list":
      return { _meta: meta };
    case "elicitation/create":
      return {
        message: UNICODE,
        requestedSchema: {
          type: "object",
          properties: {
            nom: { type: "string", title: "Nom", minLength: 1, ...x },
            âge: { type: "number", minimum: -0.5, maximum: 9007199254740991 },
          },
          required: ["nom"],
        },
        ...x,
      };
    case "tasks/get":
    case "tasks/result":
    case "tasks/cancel":
      return { taskId: "tâsk-1", ...x };
    default:
      return undefined;
  }
}

function result(method: string, v: SessionVersion): JsonObject {
  switch (method) {
    case "initialize":
      return {
        protocolVersion: v,
        capabilities: { tools: { listChanged: true }, logging: {}, experimental: { "x-f": SPICE } },
        serverInfo: { name: "sërver", version: "2" },
        instructions: UNICODE,
        ...x,
      };
    case "ping":
    case "resources/subscribe":
    case "resources/unsubscribe":
    case "logging/setLevel":
      return {};
    case "resources/list":
      return {
        resources: [{ uri: "file:///réadme.md", name: "réadme", size: 9007199254740991, annotations: { priority: 0.25 }, ...x }],
        nextCursor: "ñext",
        ...x,
      };
    case "resources/templates/list":
      return { resourceTemplates: [{ uriTemplate: "file:///{chemin}", name: "fichiers", ...x }], ...x };
    case "resources/read":
      return {
        contents: [
          { uri: "file:///réadme.md", mimeType: "text/markdown", text: UNICODE, ...x },
          { uri: "file:///logo.png", blob: "iVBORw0KGgo=" },
        ],
        ...x,
      };
    case "prompts/list":
      return { prompts: [{ name: "revue", description: UNICODE, arguments: [{ name: "code", required: true, ...x }], ...x }], ...x };
    case "prompts/get":
      return {
        description: "✓",
        messages: [
          { role: "user", content: text(UNICODE) },
          { role: "assistant", content: { type: "hologram", depth: -0.5 } },
        ],
        ...x,
      };
    case "tools/list":
      return {
        tools: [
          {
            name: "get_weather",
            description: UNICODE,
            inputSchema: { type: "object", properties: { location: { type: "string" } }, required: ["location"], ...x },
            ...x,
          },
        ],
        ...x,
      };
    case "tools/call":
      return {
        content: [text(UNICODE), { type: "hologram", data: SPICE }],
        isError: false,
        ...(since(v, "2025-06-18") ? { structuredContent: SPICE } : {}),
        ...x,
      };
    case "completion/complete":
      return { completion: { values: ["python", "pytorch", "🐍"], total: 9007199254740991, hasMore: true, ...x }, ...x };
    case "sampling/createMessage":
      return { role: "assistant", content: text(UNICODE), model: "claude-3-sonnet-20240307", stopReason: "endTurn", ...x };
    case "roots/list":
      return { roots: [{ uri: "file:///home/üser/projet", name: "Projet ✓", ...x }], ...x };
    case "elicitation/create":
      return { action: "accept", content: { nom: "Zoë", âge: -0.5, ok: true }, ...x };
    case "tasks/get":
    case "tasks/cancel":
      return task(method === "tasks/cancel" ? "cancelled" : "working");
    case "tasks/result":
      return { content: [text("done")], _meta: { "io.modelcontextprotocol/related-task": { taskId: "tâsk-1" } }, ...x };
    case "tasks/list":
      return { tasks: [task("working"), { ...task("completed"), ttl: null }], nextCursor: "c2", ...x };
    default:
      throw new Error(`no result example for ${method}`);
  }
}

function notificationParams(method: string, v: SessionVersion): JsonObject | undefined {
  switch (method) {
    case "notifications/initialized":
      return undefined;
    case "notifications/cancelled":
      return { requestId: 9007199254740991, reason: UNICODE, ...x };
    case "notifications/progress":
      return { progressToken: "tökén", progress: 1e-7, total: 0.5, ...(since(v, "2025-03-26") ? { message: UNICODE } : {}), ...x };
    case "notifications/message":
      return { level: "emergency", logger: "bäse", data: SPICE, ...x };
    case "notifications/resources/updated":
      return { uri: "file:///réadme.md", ...x };
    case "notifications/elicitation/complete":
      return { elicitationId: "é-1", ...x };
    case "notifications/tasks/status":
      return task("input_required");
    default:
      return { _meta: { "com.example/n": -0.5 }, ...x };
  }
}

interface Sample {
  label: string;
  message: JsonObject;
}

function samples(v: SessionVersion): Sample[] {
  const out: Sample[] = [];
  const ids = [0, 9007199254740991, -9007199254740991, "ïd-🎉", ""];
  let n = 0;
  for (const row of methodTable(v).values()) {
    const id = ids[n++ % ids.length] as string | number;
    if (row.kind === "request") {
      const params = requestParams(row.method, v);
      const check = paramsCheck(v, row.method);
      assert.ok(check !== undefined, `${v} has params for ${row.method}`);
      assert.equal(validate(check, params, "params"), undefined, `${v} ${row.method} params example is valid`);
      const r = result(row.method, v);
      const rcheck = resultCheck(v, row.method);
      assert.ok(rcheck !== undefined);
      assert.equal(validate(rcheck, r, "result"), undefined, `${v} ${row.method} result example is valid`);
      out.push({
        label: `request ${row.method}`,
        message: params === undefined ? { jsonrpc: "2.0", id, method: row.method } : { jsonrpc: "2.0", id, method: row.method, params },
      });
      out.push({ label: `result ${row.method}`, message: { jsonrpc: "2.0", id, result: r } });
    } else {
      const params = notificationParams(row.method, v);
      const check = paramsCheck(v, row.method);
      assert.ok(check !== undefined, `${v} has params for ${row.method}`);
      assert.equal(validate(check, params, "params"), undefined, `${v} ${row.method} params example is valid`);
      out.push({
        label: `notification ${row.method}`,
        message: params === undefined ? { jsonrpc: "2.0", method: row.method } : { jsonrpc: "2.0", method: row.method, params },
      });
    }
  }
  out.push({
    label: "error -32602 with data",
    message: {
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32602, message: "Invalid params — ✗", data: { path: "params.name", expected: "a string", nested: SPICE } },
    },
  });
  out.push({
    label: "error -1 without data",
    message: { jsonrpc: "2.0", id: "s-1", error: { code: -1, message: "User rejected sampling request" } },
  });
  out.push({ label: "error -32700 with id null", message: { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } } });
  if (since(v, "2025-11-25")) {
    out.push({
      label: "error -32042 with elicitations",
      message: {
        jsonrpc: "2.0",
        id: 8,
        error: {
          code: -32042,
          message: "URL elicitation required",
          data: { elicitations: [{ mode: "url", elicitationId: "é-1", url: "https://example.com/ß?q=✓", message: UNICODE }] },
        },
      },
    });
  }
  return out;
}

function decodeAll(bytes: Uint8Array, chunk: number): unknown[] {
  const decoder = new LineDecoder();
  const items: DecodedItem[] = [];
  for (let i = 0; i < bytes.length; i += chunk) decoder.push(bytes.subarray(i, Math.min(bytes.length, i + chunk)), items);
  decoder.finish(items);
  return items.map((item, i) => {
    assert.ok(item.ok, `item ${i} decoded: ${item.ok ? "" : item.reason + " " + item.detail}`);
    return item.value;
  });
}

/** classify() must give back the same id, method and params/result/error, member for member. */
function assertSame(sample: Sample, value: unknown): void {
  const m = sample.message;
  const env = classify(value);
  switch (env.kind) {
    case "request":
      assert.ok("method" in m && "id" in m, sample.label);
      assert.equal(env.id, m.id, sample.label);
      assert.equal(env.method, m.method, sample.label);
      assert.deepEqual(env.params, m.params, sample.label);
      return;
    case "notification":
      assert.ok("method" in m && !("id" in m), sample.label);
      assert.equal(env.method, m.method, sample.label);
      assert.deepEqual(env.params, m.params, sample.label);
      return;
    case "result":
      assert.equal(env.id, m.id, sample.label);
      assert.deepEqual(env.result, m.result, sample.label);
      return;
    case "error":
      assert.equal(env.id, m.id, sample.label);
      assert.deepEqual(env.error, m.error, sample.label);
      return;
    default:
      assert.fail(`${sample.label}: classified as ${env.kind}`);
  }
}

for (const version of SESSION_VERSIONS) {
  test(`M-01, STD-01: ${version}: every request, result, notification and error survives encode → decode → classify`, () => {
    const all = samples(version);
    const rows = [...methodTable(version).values()];
    const requests = rows.filter((r) => r.kind === "request").length;
    const notifications = rows.length - requests;
    assert.equal(all.filter((s) => s.label.startsWith("request ")).length, requests);
    assert.equal(all.filter((s) => s.label.startsWith("result ")).length, requests);
    assert.equal(all.filter((s) => s.label.startsWith("notification ")).length, notifications);
    for (const sample of all) {
      const values = decodeAll(encodeMessage(sample.message), 1 << 20);
      assert.equal(values.length, 1, sample.label);
      assert.deepEqual(values[0], sample.message, sample.label);
      assertSame(sample, values[0]);
    }
  });

  test(`STD-01: ${version}: the same messages as one stream, in chunks of any size, come out in order and equal`, () => {
    const all = samples(version);
    const bytes = encodeMessages(all.map((s) => s.message));
    for (const chunk of [1, 2, 3, 7, 64, 4096, bytes.length]) {
      const values = decodeAll(bytes, chunk);
      assert.equal(values.length, all.length, `chunk ${chunk}`);
      values.forEach((value, i) => assertSame(all[i] as Sample, value));
    }
  });
}

test("M-01: special values keep their exact form", () => {
  const message = { jsonrpc: "2.0", id: 9007199254740991, result: SPICE };
  const [value] = decodeAll(encodeMessage(message), 5);
  const env = classify(value);
  assert.equal(env.kind, "result");
  if (env.kind !== "result") return;
  assert.equal(env.id, Number.MAX_SAFE_INTEGER);
  const numbers = env.result.numbers as number[];
  assert.equal(numbers[0], 1e-7);
  assert.equal(numbers[1], -0.5);
  assert.equal(numbers[2], Number.MAX_SAFE_INTEGER);
  assert.equal(numbers[3], -Number.MAX_SAFE_INTEGER);
  assert.equal(numbers[6], Number.MIN_VALUE);
  assert.equal(env.result.text, UNICODE);
  assert.equal((env.result.text as string).length, UNICODE.length);
  assert.ok((env.result.text as string).includes("\ud800"), "a lone surrogate survives (escaped by JSON.stringify)");
});
