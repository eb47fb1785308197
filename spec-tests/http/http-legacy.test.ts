// The deprecated HTTP+SSE transport (2024-11-05, RULES.md SSE-01) offered beside Streamable HTTP:
// the endpoint event comes first, every server message is a `message` event, POSTs are
// answered 202, unknown sessions 404; and the portable client falls back to it on its own.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { connectHttpNode } from "../../lib/hosts/http-client-node.js";
import { serveHttp } from "../../lib/hosts/http-server.js";
import { createReferenceServer } from "../../lib/cli/reference-server.js";
import { SESSION_VERSIONS } from "../../lib/rules/versions.js";
import { firstText, sleep, withTimeout } from "../support/helpers.js";

const reference = () => createReferenceServer({ paginationSecret: randomBytes(32), sleep: (ms) => sleep(ms) });

test("SSE-01: GET /sse opens a session whose first event names the POST endpoint; POSTs get 202 and answers arrive as message events", async () => {
  const running = await serveHttp(reference(), { legacySse: true });
  const base = running.url.replace(/\/mcp$/, "");
  const controller = new AbortController();
  try {
    const sse = await fetch(`${base}/sse`, { method: "GET", headers: { Accept: "text/event-stream" }, signal: controller.signal });
    assert.equal(sse.status, 200);
    assert.match(sse.headers.get("content-type") ?? "", /text\/event-stream/);
    assert.ok(sse.body !== null);
    const reader = sse.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    const nextEvent = async (): Promise<{ event: string; data: string }> => {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
          const data = /^data: (.*)$/m.exec(block)?.[1] ?? "";
          return { event, data };
        }
        const { value, done } = await withTimeout(reader.read(), 5000, "SSE event");
        assert.equal(done, false, "stream ended early");
        buffer += decoder.decode(value, { stream: true });
      }
    };
    const endpoint = await nextEvent();
    assert.equal(endpoint.event, "endpoint");
    assert.match(endpoint.data, /^\/messages\?sessionId=[0-9a-f-]{36}$/);
    const post = (body: unknown) =>
      fetch(`${base}${endpoint.data}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const init = await post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "old", version: "1" } },
    });
    assert.equal(init.status, 202);
    assert.equal(await init.text(), "");
    const result = await nextEvent();
    assert.equal(result.event, "message");
    assert.equal(JSON.parse(result.data).result.protocolVersion, "2024-11-05");
    assert.equal((await post({ jsonrpc: "2.0", method: "notifications/initialized" })).status, 202);
    assert.equal(
      (await post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "test_simple_text", arguments: {} } })).status,
      202,
    );
    const call = JSON.parse((await nextEvent()).data);
    assert.equal(call.id, 2);
    assert.equal(call.result.content[0].text, "This is a simple text response for testing.");
    // An unknown session, a wrong method and a bad body are refused.
    assert.equal(
      (await fetch(`${base}/messages?sessionId=nope`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" }))
        .status,
      404,
    );
    assert.equal((await fetch(`${base}/sse`, { method: "POST", headers: {}, body: "{}" })).status, 405);
    assert.equal(
      (await fetch(`${base}${endpoint.data}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{not json" }))
        .status,
      400,
    );
    // Closing the stream ends the session.
    controller.abort();
    for (let i = 0; i < 50 && running.host.legacy?.sessions.size !== 0; i++) await sleep(10);
    assert.equal(running.host.legacy?.sessions.size, 0);
    assert.equal((await post({ jsonrpc: "2.0", id: 3, method: "ping" })).status, 404);
  } finally {
    controller.abort();
    await running.close();
  }
});

test("HTTP-04, SSE-01: the portable client falls back to HTTP+SSE when the URL only speaks it", async () => {
  const running = await serveHttp(reference(), { legacySse: true });
  const url = running.url.replace(/\/mcp$/, "/sse");
  try {
    const connection = await withTimeout(
      connectHttpNode({ url, info: { name: "fallback", version: "1" }, versions: [...SESSION_VERSIONS], connectTimeoutMs: 5000 }),
      10_000,
      "connect",
    );
    try {
      assert.equal(connection.transport.transportMode, "legacy");
      assert.equal(connection.server.era, "session");
      assert.equal(firstText(await connection.client.callTool("test_simple_text", {})), "This is a simple text response for testing.");
      await connection.client.ping({ timeoutMs: 5000 });
    } finally {
      await connection.close();
    }
  } finally {
    await running.close();
  }
});

test("SSE-01: without legacySse the SSE paths are not served", async () => {
  const running = await serveHttp(reference());
  try {
    const base = running.url.replace(/\/mcp$/, "");
    assert.equal((await fetch(`${base}/sse`, { method: "GET", headers: { Accept: "text/event-stream" } })).status, 404);
  } finally {
    await running.close();
  }
});
