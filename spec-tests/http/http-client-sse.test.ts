// The HTTP client's SSE parser (line ends split between chunks, BOM, comments, fields, ids,
// retry, unterminated events, UTF-8 split anywhere, the event length bound), message events
// that are not JSON, and the URI reference resolver used for the legacy endpoint event.

import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeBody, TOOL_RESULT, connected, encoder, event, settle, sse, track } from "../support/http-client-fakes.js";
import { HttpTransportError } from "../../lib/peer/shared/errors.js";
import type { SseEvent } from "../../lib/http/sse-parser.js";
import { HttpSseParser as SseParser } from "../../lib/http-client/sse.js";
import { resolveReference } from "../../lib/uri-template/uri-reference.js";

// ── SSE parser ────────────────────────────────────────────────────────────────

function parse(
  chunks: Array<string | Uint8Array>,
  options?: ConstructorParameters<typeof SseParser>[0],
): { events: SseEvent[]; parser: SseParser } {
  const parser = new SseParser(options);
  const events: SseEvent[] = [];
  for (const c of chunks) parser.push(typeof c === "string" ? encoder.encode(c) : c, events);
  parser.finish();
  return { events, parser };
}

test("HTTP-01: SSE parser: LF, CRLF and CR line ends, also split between chunks (CR | LF)", () => {
  for (const eol of ["\n", "\r\n", "\r"]) {
    const text = `data: a${eol}data: b${eol}${eol}event: x${eol}data: c${eol}${eol}`;
    for (let cut = 0; cut <= text.length; cut++) {
      const { events } = parse([text.slice(0, cut), text.slice(cut)]);
      assert.deepEqual(
        events,
        [
          { type: "message", data: "a\nb", id: "" },
          { type: "x", data: "c", id: "" },
        ],
        `eol ${JSON.stringify(eol)} cut at ${cut}`,
      );
    }
  }
  // CR at the end of one chunk, LF at the start of the next: one line end, not two (no spurious dispatch).
  const { events } = parse(["data: a\r", "\ndata: b\r", "\n\r", "\n"]);
  assert.deepEqual(events, [{ type: "message", data: "a\nb", id: "" }]);
});

test("HTTP-01: SSE parser: BOM, comments, field without colon, no space after colon, only one space stripped, unknown fields", () => {
  const { events } = parse(["\ufeff: comment\n", "data\n", "data:x\n", "data:  two\n", "foo: bar\n", "\n"]);
  assert.deepEqual(events, [{ type: "message", data: "\nx\n two", id: "" }]);
  // A BOM split across chunks (EF | BB BF) is still skipped; a second BOM is data.
  const bom = encoder.encode("\ufeffdata: \ufeffz\n\n");
  const split = parse([bom.subarray(0, 1), bom.subarray(1, 2), bom.subarray(2)]);
  assert.deepEqual(split.events, [{ type: "message", data: "\ufeffz", id: "" }]);
});

test("HTTP-10: SSE parser: ids persist across events, empty-data events set the id without dispatching, NUL ids and bad retry ignored", () => {
  const { events, parser } = parse([
    "id: 1\ndata: a\n\n",
    "data: b\n\n",
    "id: 2\nretry: 1500\n\n",
    "id: 3\0\nretry: 12x\nretry:\ndata: c\n\n",
  ]);
  assert.deepEqual(events, [
    { type: "message", data: "a", id: "1" },
    { type: "message", data: "b", id: "1" },
    { type: "message", data: "c", id: "2" },
  ]);
  assert.equal(parser.lastEventId, "2");
  assert.equal(parser.retry, 1500);
  // `id` with no value resets the id.
  const reset = parse(["id: 5\ndata: a\n\nid\ndata: b\n\n"]);
  assert.deepEqual(
    reset.events.map((e) => e.id),
    ["5", ""],
  );
  // "data:" alone (an empty value) is an event with empty data, as EventSource dispatches it.
  assert.deepEqual(parse(["id: p\ndata:\n\n"]).events, [{ type: "message", data: "", id: "p" }]);
  // The carried-over id of an earlier connection.
  assert.deepEqual(parse(["data: z\n\n"], { lastEventId: "old", retry: 10 }).events, [{ type: "message", data: "z", id: "old" }]);
});

test("HTTP-01, LIM-12: SSE parser: an unterminated event at the end is dropped; multi-byte UTF-8 split anywhere; long lines throw", () => {
  assert.deepEqual(parse(["data: a\n\ndata: cut off\n"]).events, [{ type: "message", data: "a", id: "" }]);
  const text = "data: 日本語 ✓ 😀 ü\n\n";
  const bytes = encoder.encode(text);
  for (let cut = 0; cut <= bytes.length; cut++) {
    assert.deepEqual(parse([bytes.subarray(0, cut), bytes.subarray(cut)]).events, [{ type: "message", data: "日本語 ✓ 😀 ü", id: "" }]);
  }
  const oneByOne: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i++) oneByOne.push(bytes.subarray(i, i + 1));
  assert.deepEqual(
    parse(oneByOne).events.map((e) => e.data),
    ["日本語 ✓ 😀 ü"],
  );
  assert.throws(() => parse(["data: " + "x".repeat(100)], { maxLength: 50 }), HttpTransportError);
  assert.throws(() => parse(["data: " + "x".repeat(30) + "\n", "data: " + "x".repeat(30) + "\n"], { maxLength: 50 }), HttpTransportError);
});

test("HTTP-01: an SSE message event that is not JSON is reported and skipped; other event types are ignored", async () => {
  const { server, conn, errors } = await connected();
  const body = new FakeBody();
  server.routes.push((req) => (req.body?.method === "tools/call" ? sse(body) : undefined));
  const call = track(conn.client.callTool("t"));
  await settle();
  const id = server.find("POST", "tools/call")[0]?.body?.id;
  body.push(
    event({ data: "{not json" }) + event({ event: "custom", data: "{}" }) + event({ data: { jsonrpc: "2.0", id, result: TOOL_RESULT } }),
  );
  await settle();
  assert.equal(call.state, "resolved");
  assert.equal(errors.length, 1);
  assert.match(errors[0]?.message ?? "", /not JSON/);
});

// ── URI references ────────────────────────────────────────────────────────────

test("SSE-01: resolveReference: RFC 3986 section 5.4 examples, absolute and network-path references", () => {
  const base = "http://a/b/c/d;p?q";
  const cases: Array<[string, string]> = [
    ["g:h", "g:h"],
    ["g", "http://a/b/c/g"],
    ["./g", "http://a/b/c/g"],
    ["g/", "http://a/b/c/g/"],
    ["/g", "http://a/g"],
    ["//g", "http://g"],
    ["?y", "http://a/b/c/d;p?y"],
    ["g?y", "http://a/b/c/g?y"],
    ["#s", "http://a/b/c/d;p?q#s"],
    ["g#s", "http://a/b/c/g#s"],
    ["g?y#s", "http://a/b/c/g?y#s"],
    [";x", "http://a/b/c/;x"],
    ["", "http://a/b/c/d;p?q"],
    [".", "http://a/b/c/"],
    ["./", "http://a/b/c/"],
    ["..", "http://a/b/"],
    ["../", "http://a/b/"],
    ["../g", "http://a/b/g"],
    ["../..", "http://a/"],
    ["../../g", "http://a/g"],
    ["../../../g", "http://a/g"],
    ["/./g", "http://a/g"],
    ["/../g", "http://a/g"],
    ["g.", "http://a/b/c/g."],
    ["..g", "http://a/b/c/..g"],
    ["./../g", "http://a/b/g"],
    ["g/./h", "http://a/b/c/g/h"],
    ["g/../h", "http://a/b/c/h"],
    ["https://other.example:8443/x?y", "https://other.example:8443/x?y"],
  ];
  for (const [ref, expected] of cases) assert.equal(resolveReference(base, ref), expected, ref);
  assert.equal(resolveReference("http://host:3000", "messages?sessionId=1"), "http://host:3000/messages?sessionId=1");
  assert.equal(resolveReference("http://host:3000/sse", "/messages?sessionId=1"), "http://host:3000/messages?sessionId=1");
});
