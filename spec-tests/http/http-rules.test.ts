// The pure HTTP layer (lib/http/) as tables: each decision over its inputs (state × input, as
// the engine's tests do), with no endpoint, no socket and no Promise. Rows name what they pin.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  encodeHeaderValue,
  isModernErrorResponse,
  legacyFallbackStatus,
  mediaType,
  modernRequestHeaders,
} from "../../lib/http/client-rules.js";
import { EXPOSED_HEADERS, corsOriginAllowed, corsResponseHeaders, isPreflight, preflightHeaders } from "../../lib/http/cors.js";
import { decodeHeaderValue } from "../../lib/http/headers.js";
import {
  acceptsPost,
  acceptsSse,
  batchesAllowed,
  cancelledTarget,
  eventId,
  hostAllowed,
  isJsonContentType,
  parseEventId,
  postEra,
  primesStreams,
  requestIdsOf,
  sessionVersionHeaderOk,
  splitUrl,
  streamName,
  unreadBodyDisposal,
} from "../../lib/http/server-rules.js";
import { SSE_KEEP_ALIVE, sseEndpoint, sseMessage, ssePriming } from "../../lib/http/sse-encoder.js";
import { SseParser } from "../../lib/http/sse-parser.js";
import { REFUSALS, refusalBody } from "../../lib/http/status.js";
import { MODERN_VERSIONS, SESSION_VERSIONS } from "../../lib/rules/versions.js";

const MODERN = MODERN_VERSIONS[0];
const LATEST = SESSION_VERSIONS[SESSION_VERSIONS.length - 1] as string;
const envelope = { _meta: { "io.modelcontextprotocol/protocolVersion": MODERN } };

test("MOD-23: postEra: which era a POST without a session id belongs to (body × version header × served versions × modern-only)", () => {
  const rows: [string, unknown, string | undefined, readonly string[], boolean, "modern" | "session"][] = [
    ["envelope on a request", { jsonrpc: "2.0", id: 1, method: "tools/list", params: envelope }, undefined, [MODERN], false, "modern"],
    [
      "envelope, but no modern version served",
      { jsonrpc: "2.0", id: 1, method: "tools/list", params: envelope },
      undefined,
      [],
      false,
      "session",
    ],
    [
      "initialize with the envelope is modern (a removed method there)",
      { jsonrpc: "2.0", id: 1, method: "initialize", params: envelope },
      undefined,
      [MODERN],
      false,
      "modern",
    ],
    [
      "initialize without it is session era",
      { jsonrpc: "2.0", id: 1, method: "initialize", params: {} },
      MODERN,
      [MODERN],
      true,
      "session",
    ],
    ["a modern version header", { jsonrpc: "2.0", id: 1, method: "tools/list" }, MODERN, [MODERN], false, "modern"],
    ["a session version header", { jsonrpc: "2.0", id: 1, method: "tools/list" }, LATEST, [MODERN], false, "session"],
    ["no header, modern-only endpoint", { jsonrpc: "2.0", id: 1, method: "tools/list" }, undefined, [MODERN], true, "modern"],
    ["a batch", [{ jsonrpc: "2.0", id: 1, method: "tools/list", params: envelope }], MODERN, [MODERN], true, "session"],
    ["a response", { jsonrpc: "2.0", id: 1, result: {} }, MODERN, [MODERN], true, "session"],
    ["not an object", "tools/list", MODERN, [MODERN], true, "session"],
  ];
  for (const [name, body, header, served, modernOnly, era] of rows) assert.equal(postEra(body, header, served, modernOnly), era, name);
});

test("HTTP-08: hostAllowed: Host and Origin against the allow-list (DNS rebinding)", () => {
  const allowed = new Set(["localhost", "127.0.0.1", "[::1]"]);
  const rows: [string | undefined, string | undefined, boolean][] = [
    ["localhost:3000", undefined, true],
    ["127.0.0.1", "http://localhost:5173", true],
    ["[::1]:8080", "http://[::1]:8080", true],
    ["evil.example", undefined, false],
    [undefined, undefined, false],
    ["localhost", "https://evil.example", false],
    ["localhost", "null", false],
    ["localhost:abc", undefined, false],
    ["[::1", undefined, false],
  ];
  for (const [host, origin, ok] of rows) assert.equal(hostAllowed(host, origin, allowed), ok, `${String(host)} / ${String(origin)}`);
  assert.equal(hostAllowed("localhost", undefined, new Set()), false, "an empty allow-list refuses everything");
});

test("HTTP-01: header and media-type checks of a POST and a GET", () => {
  assert.equal(acceptsPost("application/json, text/event-stream"), true);
  assert.equal(acceptsPost("application/json"), false);
  assert.equal(acceptsPost(undefined), false);
  assert.equal(acceptsSse("text/event-stream"), true);
  assert.equal(acceptsSse("*/*"), false);
  assert.equal(isJsonContentType("Application/JSON; charset=utf-8"), true);
  assert.equal(isJsonContentType("text/plain"), false);
  assert.equal(isJsonContentType(undefined), false);
  assert.equal(sessionVersionHeaderOk(undefined), true);
  assert.equal(sessionVersionHeaderOk(LATEST), true);
  assert.equal(sessionVersionHeaderOk(MODERN), false, "a session-era request names a session version");
  assert.equal(sessionVersionHeaderOk("1999-01-01"), false);
});

test("M-09, HTTP-09: version columns: batches and priming events by negotiated version", () => {
  assert.deepEqual(
    SESSION_VERSIONS.filter((v) => batchesAllowed(v)),
    ["2025-03-26"].filter((v) => (SESSION_VERSIONS as readonly string[]).includes(v)),
  );
  assert.equal(batchesAllowed(undefined), false);
  assert.equal(primesStreams(LATEST), true);
  assert.equal(primesStreams(SESSION_VERSIONS[0]), false);
  assert.equal(primesStreams("nonsense"), false);
});

test("HTTP-10: event ids: format, parse, and what a malformed Last-Event-ID is", () => {
  assert.equal(eventId(streamName(35), 7), "sz:7");
  assert.deepEqual(parseEventId("s0:12"), { stream: "s0", seq: 12 });
  assert.deepEqual(parseEventId("a:b:3"), { stream: "a:b", seq: 3 }, "the last colon splits");
  for (const bad of ["", "s0", ":3", "s0:", "s0:-1", "s0:1.5", "s0:x", `s0:${"9".repeat(20)}`])
    assert.equal(parseEventId(bad), undefined, JSON.stringify(bad));
});

test("request ids and cancellations a POST carries", () => {
  const ids = requestIdsOf([
    { jsonrpc: "2.0", id: 1, method: "a" },
    { jsonrpc: "2.0", id: "x", method: "b" },
    { jsonrpc: "2.0", id: 2, result: {} },
    { jsonrpc: "2.0", method: "n" },
    null,
    "s",
  ]);
  assert.deepEqual([...ids], [1, "x"]);
  assert.equal(cancelledTarget({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 4 } }), 4);
  assert.equal(cancelledTarget({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: null } }), undefined);
  assert.equal(cancelledTarget({ jsonrpc: "2.0", method: "notifications/progress", params: { requestId: 4 } }), undefined);
  assert.equal(cancelledTarget("notifications/cancelled"), undefined);
});

test("LIM-09: unreadBodyDisposal: drain what is declared within the limit, close on anything else", () => {
  const rows: [string | undefined, string | undefined, "none" | "drain" | "close"][] = [
    [undefined, undefined, "none"],
    ["0", undefined, "none"],
    ["10", undefined, "drain"],
    ["100", undefined, "drain"],
    ["101", undefined, "close"],
    ["-1", undefined, "close"],
    ["abc", undefined, "close"],
    [undefined, "chunked", "close"],
    ["10", "chunked", "close"],
  ];
  for (const [length, encoding, disposal] of rows)
    assert.equal(unreadBodyDisposal(length, encoding, 100), disposal, `${String(length)} / ${String(encoding)}`);
});

test("splitUrl: absolute URLs and request targets", () => {
  assert.deepEqual(splitUrl("http://localhost:3000/mcp?x=1#f"), { path: "/mcp", query: "x=1" });
  assert.deepEqual(splitUrl("https://h/"), { path: "/", query: "" });
  assert.deepEqual(splitUrl("https://h?q"), { path: "/", query: "q" });
  assert.deepEqual(splitUrl("/messages?sessionId=a"), { path: "/messages", query: "sessionId=a" });
  assert.deepEqual(splitUrl(""), { path: "/", query: "" });
});

test("HTTP-02: the status table: each refusal's status and JSON-RPC code, ids only when readable", () => {
  const statuses = Object.fromEntries(Object.entries(REFUSALS).map(([kind, row]) => [kind, row.status]));
  assert.deepEqual(statuses, {
    forbidden: 403,
    notFound: 404,
    sessionNotFound: 404,
    unknownEventId: 404,
    methodNotAllowed: 405,
    notAcceptable: 406,
    conflict: 409,
    requestTimeout: 408,
    tooLarge: 413,
    unsupportedMediaType: 415,
    parseError: 400,
    invalidRequest: 400,
    unsupportedVersion: 400,
    refusedInitialize: 400,
    busy: 503,
    shuttingDown: 503,
    internal: 500,
  });
  assert.deepEqual(refusalBody("parseError", "Parse error"), { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } });
  assert.deepEqual(refusalBody("unsupportedVersion", "no", 3, { supported: [MODERN] }), {
    jsonrpc: "2.0",
    id: 3,
    error: { code: -32022, message: "no", data: { supported: [MODERN] } },
  });
});

test("HTTP-13: CORS: origins × preflight method × requested headers", () => {
  const cors = { origins: ["https://app.example", "http://localhost:5173/"] };
  assert.equal(corsOriginAllowed(cors, "https://app.example"), true);
  assert.equal(corsOriginAllowed(cors, "http://localhost:5173"), true, "a trailing slash in the option is ignored");
  assert.equal(corsOriginAllowed(cors, "https://app.example:444"), false, "the port is part of the origin");
  assert.equal(corsOriginAllowed(undefined, "https://app.example"), false, "off by default");
  assert.equal(corsOriginAllowed({ origins: "*" }, "https://any.example"), true);
  assert.equal(isPreflight("OPTIONS", "https://a", "POST"), true);
  assert.equal(isPreflight("OPTIONS", undefined, "POST"), false);
  assert.equal(isPreflight("POST", "https://a", "POST"), false);
  const rows: [string, string, string | undefined, boolean][] = [
    ["https://app.example", "POST", "content-type, mcp-session-id", true],
    ["https://app.example", "GET", "last-event-id, mcp-protocol-version", true],
    ["https://app.example", "DELETE", undefined, true],
    ["https://app.example", "PUT", undefined, false],
    ["https://app.example", "POST", "mcp-param-region, mcp-method, mcp-name, authorization", true],
    ["https://app.example", "POST", "x-other", false],
    ["https://evil.example", "POST", undefined, false],
  ];
  for (const [origin, method, headers, ok] of rows)
    assert.equal(preflightHeaders(cors, origin, method, headers) !== undefined, ok, `${origin} ${method} ${String(headers)}`);
  assert.equal(preflightHeaders(cors, "https://app.example", "POST", undefined)?.["Access-Control-Allow-Origin"], "https://app.example");
  assert.equal(corsResponseHeaders(cors, "https://app.example")?.["Access-Control-Expose-Headers"], EXPOSED_HEADERS);
  assert.equal(corsResponseHeaders(cors, "https://evil.example"), undefined);
  assert.equal(corsResponseHeaders(cors, undefined), undefined);
});

test("HTTP-01: the SSE encoder's frames are what the parser reads back", () => {
  const events: { type: string; data: string; id: string }[] = [];
  const parser = new SseParser();
  const text =
    ssePriming("s0:0", 1000) +
    sseMessage({ jsonrpc: "2.0", method: "x", params: { s: "a\nb" } }, "s0:1") +
    SSE_KEEP_ALIVE +
    sseEndpoint("/messages?sessionId=a") +
    sseMessage([1, 2]);
  const parsed: { type: string; data: string; id: string }[] = [];
  parser.push(new TextEncoder().encode(text), parsed);
  for (const event of parsed) events.push({ type: event.type, data: event.data, id: event.id });
  assert.deepEqual(events, [
    { type: "message", data: "", id: "s0:0" },
    { type: "message", data: JSON.stringify({ jsonrpc: "2.0", method: "x", params: { s: "a\nb" } }), id: "s0:1" },
    { type: "endpoint", data: "/messages?sessionId=a", id: "s0:1" },
    { type: "message", data: "[1,2]", id: "s0:1" },
  ]);
});

test("MOD-19, HTTP-04: client rules: header encoding round-trips, statuses, fallback by offered version, the 2026-07-28 request headers", () => {
  for (const value of ["plain", "grüße welt", " edge ", "=?base64?abc?=", "tab\there", ""])
    assert.equal(decodeHeaderValue(encodeHeaderValue(value)), value, JSON.stringify(value));
  assert.equal(encodeHeaderValue("tools/call"), "tools/call");
  assert.equal(isModernErrorResponse(400, { jsonrpc: "2.0", id: 1, error: { code: -32020, message: "m" } }), true);
  assert.equal(isModernErrorResponse(404, '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"m"}}'), true);
  assert.equal(isModernErrorResponse(400, { error: { code: -32600, message: "m" } }), false);
  assert.equal(isModernErrorResponse(400, "not json"), false);
  assert.equal(mediaType("Text/Event-Stream; charset=utf-8"), "text/event-stream");
  assert.equal(mediaType(null), "");
  assert.equal(legacyFallbackStatus(LATEST, 400), true);
  assert.equal(legacyFallbackStatus(LATEST, 403), false, "the narrow rule");
  assert.equal(legacyFallbackStatus(SESSION_VERSIONS[0], 403), true, "any 4xx under older offers");
  assert.equal(legacyFallbackStatus(SESSION_VERSIONS[0], 500), false);
  assert.equal(legacyFallbackStatus(undefined, 410), false, "unknown offers take the narrow rule");
  const params = [{ header: "Region", path: ["region"], type: "string" as const }];
  const built = modernRequestHeaders(
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "grüße", arguments: { region: "eu" }, ...envelope } },
    "fallback",
    () => params,
  );
  assert.deepEqual(built.headers, {
    "MCP-Protocol-Version": MODERN,
    "Mcp-Method": "tools/call",
    "Mcp-Name": encodeHeaderValue("grüße"),
    "Mcp-Param-Region": "eu",
  });
  assert.equal(built.version, MODERN);
  const read = modernRequestHeaders(
    { jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri: "test://x" } },
    MODERN,
    () => undefined,
  );
  assert.deepEqual(read.headers, { "MCP-Protocol-Version": MODERN, "Mcp-Method": "resources/read", "Mcp-Name": "test://x" });
  assert.deepEqual(modernRequestHeaders("junk", MODERN, () => undefined).headers, {});
});
