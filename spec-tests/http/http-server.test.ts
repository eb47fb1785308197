// End to end over Streamable HTTP (RULES.md HTTP-01, HTTP-02, HTTP-03, HTTP-04) on 127.0.0.1:
// the reference server behind serveHttp, driven with the platform's raw `fetch` (no client
// library; spec-tests/support/http-server-raw.ts), so every status code, header and SSE byte the
// host writes is what the test sees.
//
// Covered here: the handshake and session header; resumption with Last-Event-ID (no repeats, no
// other stream's events), disconnect vs notifications/cancelled; every refusal status (400,
// 403, 404, 405, 406, 409, 413, 415); batches under 2025-03-26; the GET stream. Every feature
// as JSON and as SSE is in http-server-features.test.ts; the shared session store and the load
// run in http-server-sessions.test.ts.
//
// Every wait is bounded (withTimeout) and waits for an event, except where the point is
// that nothing arrives.

import { test } from "node:test";
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { sleep, withTimeout } from "../support/helpers.js";
import {
  ACCEPT_BOTH,
  LATEST,
  PROGRESS_TOKEN,
  RawSession,
  SseReader,
  TOOL_NAMES,
  exchange,
  fetch,
  messageOf,
  open,
  platform,
  progressBeforeResult,
  rawRequest,
  serve,
  textOf,
  type FetchResponse,
  type SseEvent,
  type Json,
} from "../support/http-server-raw.js";

// ── handshake ───────────────────────────────────────────────────────────────────────

test("HTTP-03, HTTP-02: handshake: initialize → 200 JSON with a visible-ASCII session id; initialized → 202 with no body; later requests need the header", async (t) => {
  const { url } = await serve(t);
  const response = await fetch(url, {
    method: "POST",
    headers: { accept: ACCEPT_BOTH, "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });
  assert.equal(response.status, 200);
  assert.ok((response.headers.get("content-type") ?? "").startsWith("application/json"));
  const id = response.headers.get("mcp-session-id");
  assert.ok(id !== null);
  assert.match(id, /^[\x21-\x7e]+$/, "visible ASCII only");
  assert.ok(id.length >= 16, "long enough to be unguessable");
  const init = JSON.parse(await response.text()) as Json;
  assert.equal(init.id, 1);
  assert.equal((init.result as Json).protocolVersion, LATEST);
  assert.equal(((init.result as Json).serverInfo as Json).name, "mcp-engine-reference-server");

  const initialized = await fetch(url, {
    method: "POST",
    headers: { accept: ACCEPT_BOTH, "content-type": "application/json", "mcp-session-id": id, "mcp-protocol-version": LATEST },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  assert.equal(initialized.status, 202);
  assert.equal(initialized.headers.get("content-type"), null, "no content type on a 202");
  assert.equal(await initialized.text(), "", "an empty body");

  const session = new RawSession(url, id, LATEST);
  const withoutHeader = await fetch(url, {
    method: "POST",
    headers: { accept: ACCEPT_BOTH, "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
  });
  assert.equal(withoutHeader.status, 400);
  const err = JSON.parse(await withoutHeader.text()) as Json;
  assert.equal(err.jsonrpc, "2.0");
  assert.ok(err.error !== undefined && err.id === undefined, "a JSON-RPC error without id");
  const ping = await exchange(session, "ping");
  assert.deepEqual(ping.response.result, {});
  for (let i = 0; i < 3; i++) assert.notEqual((await open(url)).id, id, "every session gets its own id");
});

// ── resumption and cancellation ─────────────────────────────────────────────────────

test("HTTP-10, X-09: resumption: a disconnect does not cancel; GET with Last-Event-ID replays the rest of that stream only, then the response", async (t) => {
  const { url } = await serve(t);
  const session = await open(url);
  const abort = new platform.AbortController();
  const first = await session.post(
    {
      jsonrpc: "2.0",
      id: "A",
      method: "tools/call",
      params: { name: "test_tool_slow", arguments: { durationMs: 300 }, ...PROGRESS_TOKEN("A") },
    },
    {},
    abort.signal,
  );
  assert.ok((first.headers.get("content-type") ?? "").startsWith("text/event-stream"));
  // A second slow call on another stream, read in full concurrently.
  const secondDone = (async () => {
    const x = await exchange(
      session,
      "tools/call",
      { name: "test_tool_slow", arguments: { durationMs: 300 }, ...PROGRESS_TOKEN("B") },
      undefined,
      "B",
    );
    return x;
  })();

  const reader = new SseReader(first);
  const seen: SseEvent[] = [];
  while (seen.filter((e) => e.data !== "").length < 2) seen.push((await reader.next())!);
  abort.abort();
  const lastSeen = seen.at(-1)!.id!;
  const streamId = lastSeen.slice(0, lastSeen.lastIndexOf(":"));
  await sleep(120); // more progress is produced while nobody listens

  const resumed = await session.get({ "last-event-id": lastSeen });
  assert.equal(resumed.status, 200);
  assert.ok((resumed.headers.get("content-type") ?? "").startsWith("text/event-stream"));
  const replay = await new SseReader(resumed).rest();
  const second = await secondDone;

  const seenIds = new Set(seen.map((e) => e.id));
  for (const e of replay) {
    assert.ok(!seenIds.has(e.id), `event ${e.id} not repeated`);
    assert.ok(e.id?.startsWith(`${streamId}:`), `event ${e.id} belongs to stream ${streamId}`);
  }
  const replayed = replay.map(messageOf).filter((m): m is Json => m !== undefined);
  const secondIds = new Set(second.events.map((e) => e.id));
  assert.ok(
    replay.every((e) => !secondIds.has(e.id)),
    "no event of the other stream",
  );
  assert.ok(
    replayed.every((m) => m.id !== "B" && (m.params as Json | undefined)?.progressToken !== "tok-B"),
    "no message of the other request",
  );
  const progress = [...seen.map(messageOf), ...replayed]
    .filter((m) => m?.method === "notifications/progress")
    .map((m) => (m!.params as Json).progress);
  assert.deepEqual(progress, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "every progress event exactly once, in order");
  const response = replayed.at(-1)!;
  assert.equal(response.id, "A", "the result arrives on resumption: the disconnect did not cancel");
  assert.equal((((response.result as Json).content as Json[])[0] as Json).text, "Slept 300 ms");
  assert.equal(textOf(second), "Slept 300 ms");
  progressBeforeResult(second, 10);

  // Resuming again from the same point replays the same events (the stream is kept).
  const again = await new SseReader(await session.get({ "last-event-id": lastSeen })).rest();
  assert.deepEqual(
    again.map((e) => e.id),
    replay.map((e) => e.id),
  );
  // An unknown stream: 404.
  assert.equal((await session.get({ "last-event-id": "nope:3" })).status, 404);
});

test("HTTP-10: resumption under 2025-06-18 (no priming): a stream resumed from its first event id", async (t) => {
  const { url } = await serve(t);
  const session = await open(url, "2025-06-18");
  const abort = new platform.AbortController();
  const response = await session.post(
    {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "test_tool_slow", arguments: { durationMs: 200 }, ...PROGRESS_TOKEN(1) },
    },
    {},
    abort.signal,
  );
  const reader = new SseReader(response);
  const first = (await reader.next())!;
  assert.notEqual(first.data, "", "no priming event under 2025-06-18");
  abort.abort();
  const rest = await new SseReader(await session.get({ "last-event-id": first.id! })).rest();
  const messages = [first, ...rest].map(messageOf) as Json[];
  assert.deepEqual(
    messages.filter((m) => m.method === "notifications/progress").map((m) => (m.params as Json).progress),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  );
  assert.equal(messages.at(-1)!.id, 1);
});

test("HTTP-10: resuming a stream whose first reader is still attached: the first reader's stream ends, the new one gets the rest", async (t) => {
  const { url } = await serve(t);
  const session = await open(url);
  const first = new SseReader(
    await session.post({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "test_tool_slow", arguments: { durationMs: 200 }, ...PROGRESS_TOKEN(1) },
    }),
  );
  const priming = (await first.next())!;
  assert.equal(priming.data, "");
  const second = new SseReader(await session.get({ "last-event-id": priming.id! }));
  const before = await first.rest(2000); // ends: the stream has one reader at a time
  const after = await second.rest(2000);
  const messages = after.map(messageOf) as Json[];
  assert.deepEqual(
    messages.filter((m) => m.method === "notifications/progress").map((m) => (m.params as Json).progress),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    "everything after the priming event, once",
  );
  const afterIds = after.map((e) => e.id);
  assert.ok(
    before.every((e) => afterIds.includes(e.id)),
    "the first reader got a prefix of the same stream",
  );
  assert.equal(messages.at(-1)!.id, 1, "the response reaches the new reader");
  assert.ok(
    before.every((e) => messageOf(e)?.id !== 1),
    "and only the new reader",
  );
});

test("HTTP-01: SSE headers are sent at once even without a priming event (2025-06-18, responseMode sse, a slow tool)", async (t) => {
  const { url } = await serve(t, { responseMode: "sse" });
  const session = await open(url, "2025-06-18");
  const started = performance.now();
  const response = await session.post({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "test_tool_slow", arguments: { durationMs: 1500 } },
  });
  const waited = performance.now() - started;
  assert.ok(waited < 1000, `headers after ${waited.toFixed(0)} ms, not with the result`);
  assert.ok((response.headers.get("content-type") ?? "").startsWith("text/event-stream"));
  const events = await new SseReader(response).rest(3000);
  assert.equal(events.length, 1);
  assert.equal(messageOf(events[0]!)!.id, 1);
  // Resuming from it under 2025-06-18: headers at once, nothing to replay, the stream ends.
  assert.deepEqual(await new SseReader(await session.get({ "last-event-id": events[0]!.id! })).rest(1000), []);
});

test("X-04: notifications/cancelled cancels: no result is ever delivered for the request, and its stream ends", async (t) => {
  const { url, server } = await serve(t);
  const session = await open(url);
  const response = await session.post({
    jsonrpc: "2.0",
    id: "C",
    method: "tools/call",
    params: { name: "test_tool_slow", arguments: { durationMs: 400 }, ...PROGRESS_TOKEN("C") },
  });
  const reader = new SseReader(response);
  const seen: SseEvent[] = [];
  while (seen.filter((e) => e.data !== "").length < 1) seen.push((await reader.next())!);
  await session.accepted({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "C", reason: "changed my mind" } });
  const rest = await reader.rest(3000);
  for (const e of rest) assert.notEqual(messageOf(e)?.id, "C", "no response after cancellation");
  await sleep(500); // past the time the tool would have finished
  const replay = await new SseReader(await session.get({ "last-event-id": seen.at(-1)!.id! })).rest(1000);
  for (const e of replay) assert.notEqual(messageOf(e)?.id, "C", "no response kept for resumption either");
  // The session is fine afterwards.
  assert.deepEqual((await exchange(session, "ping")).response.result, {});
  assert.equal(server.sessions.size, 1);
});

// ── refusals ────────────────────────────────────────────────────────────────────────

test("HTTP-03: sessions: unknown id → 404; missing header → 400; DELETE → 200, then the id → 404", async (t) => {
  const { url, host, server } = await serve(t);
  const unknown = new RawSession(url, "no-such-session", LATEST);
  assert.equal((await unknown.post({ jsonrpc: "2.0", id: 1, method: "ping" })).status, 404);
  assert.equal((await unknown.get()).status, 404);
  assert.equal((await fetch(url, { method: "DELETE", headers: { "mcp-session-id": "no-such-session" } })).status, 404);
  assert.equal((await fetch(url, { method: "DELETE" })).status, 400);
  const missing = await fetch(url, {
    method: "POST",
    headers: { accept: ACCEPT_BOTH, "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  assert.equal(missing.status, 400);
  assert.equal((await fetch(url, { method: "GET", headers: { accept: "text/event-stream" } })).status, 400);

  const session = await open(url);
  assert.equal(host.sessions.size, 1);
  assert.equal(server.sessions.size, 1);
  const removed = await fetch(url, { method: "DELETE", headers: { "mcp-session-id": session.id, "mcp-protocol-version": LATEST } });
  assert.equal(removed.status, 200);
  assert.equal(host.sessions.size, 0);
  assert.equal(server.sessions.size, 0);
  assert.equal((await session.post({ jsonrpc: "2.0", id: 1, method: "ping" })).status, 404);
  assert.equal((await session.get()).status, 404);
  assert.equal((await fetch(url, { method: "DELETE", headers: { "mcp-session-id": session.id } })).status, 404);
});

test("HTTP-07: DELETE ends the session's open streams and cancels its running handlers", async (t) => {
  const { url, server } = await serve(t);
  const session = await open(url);
  const get = new SseReader(await session.get());
  const call = new SseReader(
    await session.post({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "test_tool_slow", arguments: { durationMs: 2000 }, ...PROGRESS_TOKEN(1) },
    }),
  );
  await call.next();
  assert.equal((await fetch(url, { method: "DELETE", headers: { "mcp-session-id": session.id } })).status, 200);
  const rest = await call.rest(2000);
  assert.ok(
    rest.every((e) => messageOf(e)?.id !== 1),
    "no result after the session ended",
  );
  await get.rest(2000);
  assert.equal(server.sessions.size, 0);
});

test("HTTP-08: Host and Origin: a foreign Host or Origin → 403; allowedHosts [] refuses everything; localhost forms pass", async (t) => {
  const { url, port } = await serve(t);
  const init = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });
  const headers = { accept: ACCEPT_BOTH, "content-type": "application/json" };
  const evilHost = await rawRequest(url, "POST", { ...headers, host: "evil.example.com" }, init);
  assert.equal(evilHost.status, 403);
  assert.equal(((JSON.parse(evilHost.body) as Json).error as Json).code, -32600);
  assert.equal((await rawRequest(url, "POST", { ...headers, host: `evil.example.com:${port}` }, init)).status, 403);
  assert.equal((await rawRequest(url, "GET", { accept: "text/event-stream", host: "attacker.test" })).status, 403);
  assert.equal((await rawRequest(url, "POST", { ...headers, host: `localhost:${port}` }, init)).status, 200);
  assert.equal(
    (await rawRequest(url, "POST", { ...headers, host: `127.0.0.1:${port}`, origin: `http://localhost:${port}` }, init)).status,
    200,
  );
  for (const origin of ["http://evil.example.com", `http://evil.example.com:${port}`, "null", "https://localhost.evil.com"]) {
    const response = await fetch(url, { method: "POST", headers: { ...headers, origin }, body: init });
    assert.equal(response.status, 403, `Origin ${origin}`);
  }

  const closed = await serve(t, { allowedHosts: [] });
  for (const h of [`127.0.0.1:${closed.port}`, `localhost:${closed.port}`])
    assert.equal((await rawRequest(closed.url, "POST", { ...headers, host: h }, init)).status, 403);
  assert.equal((await fetch(closed.url, { method: "POST", headers, body: init })).status, 403);
  assert.equal(closed.host.sessions.size, 0);
});

test("LIM-09: body limit: 413 for a Content-Length over the limit and for a chunked body over the limit; a body at the limit passes", async (t) => {
  const { url } = await serve(t, { maxBodyBytes: 1024 });
  const session = await open(url);
  const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: { pad: "x".repeat(2000) } } });
  const declared = await session.post(big);
  assert.equal(declared.status, 413);
  assert.equal(((JSON.parse(await declared.text()) as Json).error as Json).code, -32600);

  const bytes = new TextEncoder().encode(big);
  const chunked = await fetch(url, {
    method: "POST",
    headers: session.headers(),
    duplex: "half",
    body: new platform.ReadableStream({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 256) controller.enqueue(bytes.slice(i, i + 256));
        controller.close();
      },
    }),
  });
  assert.equal(chunked.status, 413);
  await chunked.text();

  const pad = 1024 - JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", params: { _meta: { pad: "" } } }).length;
  const fits = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", params: { _meta: { pad: "y".repeat(pad) } } });
  assert.equal(new TextEncoder().encode(fits).length, 1024);
  const ok = await session.post(fits);
  assert.equal(ok.status, 200);
  assert.equal((JSON.parse(await ok.text()) as Json).id, 2);
  // The session is still usable after the refusals.
  assert.deepEqual((await exchange(session, "ping")).response.result, {});
});

test("L-07: MCP-Protocol-Version: unknown values → 400; a supported but different version is accepted", async (t) => {
  const { url } = await serve(t);
  const session = await open(url);
  for (const version of ["1999-01-01", "garbage", "2026-07-28"]) {
    const response = await session.post({ jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-protocol-version": version });
    assert.equal(response.status, 400, `version ${version}`);
    assert.equal((await session.get({ "mcp-protocol-version": version })).status, 400);
  }
  const other = await session.post({ jsonrpc: "2.0", id: 2, method: "ping" }, { "mcp-protocol-version": "2025-06-18" });
  assert.equal(other.status, 200);
  assert.equal((JSON.parse(await other.text()) as Json).id, 2);
});

test("HTTP-06: GET: 405 when the stream is not offered; 409 for a second concurrent GET; 406 without text/event-stream", async (t) => {
  const noGet = await serve(t, { getStream: false });
  const a = await open(noGet.url);
  const refused = await a.get();
  assert.equal(refused.status, 405);
  assert.ok((refused.headers.get("allow") ?? "").includes("POST"));

  const { url } = await serve(t);
  const session = await open(url);
  assert.equal((await session.get({ accept: "application/json" })).status, 406);
  const abort = new platform.AbortController();
  const first = await session.get({}, abort.signal);
  assert.equal(first.status, 200);
  const firstReader = new SseReader(first);
  await firstReader.next();
  const second = await session.get();
  assert.equal(second.status, 409);
  // Once the first is gone, a new GET is welcome again.
  abort.abort();
  let third: FetchResponse | undefined;
  for (let i = 0; i < 50 && third?.status !== 200; i++) {
    if (i > 0) await sleep(20);
    third = await session.get();
  }
  assert.equal(third?.status, 200);
  new SseReader(third!).cancel();
});

test("HTTP-06: GET stream: carries server-initiated messages unrelated to any request (resources/updated, list_changed), and what was sent before it opened", async (t) => {
  const { url, server } = await serve(t);
  const session = await open(url);
  const subscribed = await exchange(session, "resources/subscribe", { uri: "test://watched-resource" });
  assert.deepEqual(subscribed.response.result, {});
  // Sent before any GET stream: kept for the stream.
  server.notifyResourceUpdated("test://watched-resource");
  const reader = new SseReader(await session.get());
  const events: Json[] = [];
  const read = async (): Promise<Json> => {
    for (;;) {
      const m = messageOf((await reader.next(3000))!);
      if (m !== undefined) return m;
    }
  };
  events.push(await read());
  assert.equal(events[0]!.method, "notifications/resources/updated");
  assert.equal((events[0]!.params as Json).uri, "test://watched-resource");
  server.notifyResourceUpdated("test://watched-resource");
  server.notifyResourceUpdated("test://static-text"); // not subscribed: nothing
  const registration = server.tool("late_tool", { description: "registered later" }, () => ({ content: [{ type: "text", text: "late" }] }));
  const updated = await read();
  assert.equal(updated.method, "notifications/resources/updated");
  const changed = await read();
  assert.equal(changed.method, "notifications/tools/list_changed");
  // Requests' answers never go to the GET stream.
  const tools = await exchange(session, "tools/call", { name: "late_tool", arguments: {} });
  assert.equal(textOf(tools), "late");
  registration.remove();
  assert.equal((await read()).method, "notifications/tools/list_changed");
  await assert.rejects(reader.next(200), /no outcome/);
  reader.cancel();
});

test("HTTP-01, M-09: POST refusals: 406 wrong Accept, 415 wrong Content-Type, 400 batch under 2025-11-25, 400 -32700 unparsable, 404 other paths, 405 other methods", async (t) => {
  const { url } = await serve(t);
  const session = await open(url);
  const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
  for (const accept of ["application/json", "text/event-stream", "*/*"]) {
    assert.equal((await session.post(ping, { accept })).status, 406, `Accept ${accept}`);
  }
  for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
    assert.equal((await session.post(ping, { "content-type": type })).status, 415, `Content-Type ${type}`);
  }
  assert.equal((await session.post(ping, { "content-type": "application/json; charset=utf-8" })).status, 200);
  const batch = await session.post([
    { jsonrpc: "2.0", id: 1, method: "ping" },
    { jsonrpc: "2.0", id: 2, method: "ping" },
  ]);
  assert.equal(batch.status, 400);
  const unparsable = await session.post("{ not json");
  assert.equal(unparsable.status, 400);
  const parseError = JSON.parse(await unparsable.text()) as Json;
  assert.equal((parseError.error as Json).code, -32700);
  const notUtf8 = await fetch(url, { method: "POST", headers: session.headers(), body: new Uint8Array([0x7b, 0xff, 0x7d]) });
  assert.equal(notUtf8.status, 400);
  assert.equal(((JSON.parse(await notUtf8.text()) as Json).error as Json).code, -32700);
  assert.equal((await fetch(url.replace("/mcp", "/other"), { method: "POST", headers: session.headers(), body: ping })).status, 404);
  const put = await fetch(url, { method: "PUT", headers: session.headers(), body: ping });
  assert.equal(put.status, 405);
  // A response without a request: refused with its JSON-RPC error, not accepted.
  const stray = await session.post({ jsonrpc: "2.0", id: 99 });
  assert.equal(stray.status, 400);
  const strayError = JSON.parse(await stray.text()) as Json;
  assert.equal((strayError.error as Json).code, -32600);
  // initialize in a batch is refused too.
  assert.equal((await session.post([{ jsonrpc: "2.0", id: 5, method: "initialize", params: {} }])).status, 400);
  assert.deepEqual((await exchange(session, "ping")).response.result, {});
});

test("M-09: batches under 2025-03-26: two requests → one array answer; with a streaming request the array arrives on SSE", async (t) => {
  const { url } = await serve(t);
  const session = await open(url, "2025-03-26");
  const response = await session.post([
    { jsonrpc: "2.0", id: 1, method: "ping" },
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
  ]);
  assert.equal(response.status, 200);
  assert.ok((response.headers.get("content-type") ?? "").startsWith("application/json"));
  const answer = JSON.parse(await withTimeout(response.text(), 3000, "batch answer")) as Json[];
  assert.ok(Array.isArray(answer));
  assert.deepEqual(answer.map((m) => m.id).sort(), [1, 2]);
  assert.deepEqual(answer.find((m) => m.id === 1)!.result, {});
  assert.equal(((answer.find((m) => m.id === 2)!.result as Json).tools as Json[]).length, TOOL_NAMES.length);

  // Two concurrent batches with asynchronous members: each array goes to its own POST.
  const batchA = session.post([
    { jsonrpc: "2.0", id: "a1", method: "tools/call", params: { name: "test_tool_slow", arguments: { durationMs: 100 } } },
    { jsonrpc: "2.0", id: "a2", method: "ping" },
  ]);
  const batchB = session.post([
    { jsonrpc: "2.0", id: "b1", method: "tools/call", params: { name: "test_tool_fast", arguments: {} } },
    { jsonrpc: "2.0", id: "b2", method: "ping" },
  ]);
  const [ra, rb] = await Promise.all([batchA, batchB]);
  const a = JSON.parse(await withTimeout(ra.text(), 3000, "batch a")) as Json[];
  const b = JSON.parse(await withTimeout(rb.text(), 3000, "batch b")) as Json[];
  assert.deepEqual(a.map((m) => m.id).sort(), ["a1", "a2"]);
  assert.deepEqual(b.map((m) => m.id).sort(), ["b1", "b2"]);

  // A batch whose request reports progress: SSE, progress first, then the array.
  const streaming = await session.post([
    {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "test_tool_with_progress", arguments: {}, _meta: { progressToken: "p3" } },
    },
    { jsonrpc: "2.0", id: 4, method: "ping" },
  ]);
  assert.ok((streaming.headers.get("content-type") ?? "").startsWith("text/event-stream"));
  const messages = (await new SseReader(streaming).rest(3000)).map((e) => JSON.parse(e.data) as Json | Json[]);
  const last = messages.at(-1) as Json[];
  assert.ok(Array.isArray(last));
  assert.deepEqual(last.map((m) => m.id).sort(), [3, 4]);
  assert.equal(messages.filter((m) => !Array.isArray(m) && m.method === "notifications/progress").length, 3);

  // A batch of notifications only: 202.
  const notes = await session.post([{ jsonrpc: "2.0", method: "notifications/roots/list_changed" }]);
  assert.equal(notes.status, 202);
});
