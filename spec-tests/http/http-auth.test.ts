// Authorization challenges on the HTTP client: a 401 or 403 from the endpoint is never taken
// for "not a modern server". Whatever request met it (the server/discover probe, initialize, a
// later call, a 2026-07-28 request) rejects with HttpAuthError carrying the status, the
// WWW-Authenticate value and the URL; a GET stream refused that way is reported to onError
// with it (HttpTransportError.auth). A server cannot forge one with a JSON-RPC error body. An
// older offer (2024-11-05) still tries HTTP+SSE on a 401, as HTTP-04 says for any 4xx; when
// that fails too, the challenge is what the caller gets.
//
// The reference server on 127.0.0.1 sits behind a fetch that answers the chosen requests
// with the challenge; every request is recorded, so "no fallback" is checked on the wire. Every wait is bounded (withTimeout).

import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createReferenceServer } from "../../lib/cli/reference-server.js";
import { connectHttpNode, nodeFetch } from "../../lib/hosts/http-client-node.js";
import { serveHttp } from "../../lib/hosts/http-server.js";
import type { HttpServerOptions } from "../../lib/http-server/options.js";
import type { FetchLike, ResponseLike } from "../../lib/http-client/types.js";
import { HttpAuthError, HttpTransportError, McpError } from "../../lib/peer/index.js";
import { Server } from "../../lib/peer/server/server.js";
import { rejection, sleep, withTimeout } from "../support/helpers.js";

const CHALLENGE = 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource", scope="mcp"';
const INFO = { name: "auth-test", version: "1" };

interface Seen {
  method: string;
  rpc: string | undefined;
  url: string;
}

/**
 * The reference server (dual era) on 127.0.0.1, reached through a fetch that answers the
 * requests `refuse` picks with `status` and WWW-Authenticate instead of passing them on
 * (a gateway in front of the endpoint). Every request is recorded.
 */
async function gated(
  t: TestContext,
  refuse: (seen: Seen) => boolean | number,
  status = 401,
  challenge: string | undefined = CHALLENGE,
  options: HttpServerOptions = {},
): Promise<{ url: string; seen: Seen[]; fetch: FetchLike<NodeAbortSignal> }> {
  const server = createReferenceServer({ paginationSecret: randomBytes(32), sleep: (ms) => sleep(ms) });
  const running = await serveHttp(server, { onError: () => {}, ...options });
  (t as unknown as { after(fn: () => Promise<void>): void }).after(() => running.close());
  const seen: Seen[] = [];
  const fetch: FetchLike<NodeAbortSignal> = async (url, init) => {
    let rpc: string | undefined;
    try {
      const body = init.body === undefined ? undefined : (JSON.parse(init.body) as { method?: unknown });
      rpc = typeof body?.method === "string" ? body.method : body === undefined ? undefined : "(response)";
    } catch {
      rpc = "(unparsable)";
    }
    const entry: Seen = { method: init.method, rpc, url };
    seen.push(entry);
    const verdict = refuse(entry);
    if (verdict === false) return nodeFetch(url, init);
    const answered = verdict === true ? status : verdict;
    const text = JSON.stringify({ error: "invalid_token", error_description: "no token" });
    const headers = new Map<string, string>([["content-type", "application/json"]]);
    if (challenge !== undefined) headers.set("www-authenticate", challenge);
    const response: ResponseLike = {
      status: answered,
      statusText: "Refused",
      url,
      headers: { get: (name) => headers.get(name.toLowerCase()) ?? null },
      body: null,
      text: async () => text,
    };
    return response;
  };
  return { url: running.url, seen, fetch };
}

function assertAuthError(error: unknown, status: number, url: string, challenge: string | undefined = CHALLENGE): HttpAuthError {
  assert.ok(error instanceof HttpAuthError, `expected HttpAuthError, got ${String(error)}`);
  assert.ok(
    error instanceof HttpTransportError && !(error instanceof McpError),
    "an HttpAuthError is an HttpTransportError: the server sent no JSON-RPC answer",
  );
  assert.deepEqual(error.data, {
    status,
    url,
    ...(challenge === undefined ? {} : { wwwAuthenticate: challenge }),
    ...(error.body === undefined ? {} : { body: error.body }),
  });
  assert.equal(error.status, status);
  assert.equal(error.wwwAuthenticate, challenge);
  assert.equal(error.url, url);
  assert.match(error.message, new RegExp(`HTTP ${status}`));
  return error;
}

test("AUTH-08: dual-era connect: a 401 to the server/discover probe rejects with HttpAuthError; no initialize is tried", async (t) => {
  const { url, seen, fetch } = await gated(t, () => true);
  const error = await rejection(
    withTimeout(
      connectHttpNode({ url, fetch, info: INFO, versions: ["2025-11-25", "2026-07-28"], probeTimeoutMs: 3000 }),
      10_000,
      "connect",
    ),
  );
  assertAuthError(error, 401, url);
  assert.deepEqual(
    seen.map((s) => s.rpc),
    ["server/discover"],
    "the probe only: no fallback to initialize, no HTTP+SSE GET",
  );
});

test("AUTH-08: dual-era connect: a 403 to the probe is no fallback either (the challenge may be absent)", async (t) => {
  const { url, seen, fetch } = await gated(t, () => true, 403, undefined);
  const error = await rejection(
    withTimeout(
      connectHttpNode({ url, fetch, info: INFO, versions: ["2025-11-25", "2026-07-28"], probeTimeoutMs: 3000 }),
      10_000,
      "connect",
    ),
  );
  assertAuthError(error, 403, url, undefined);
  assert.equal(seen.length, 1);
});

test("AUTH-08, HTTP-04: session era: a 401 to initialize rejects with HttpAuthError (2024-11-05 tries HTTP+SSE first, as HTTP-04 says for any 4xx)", async (t) => {
  for (const [version, requests] of [
    ["2025-11-25", ["POST initialize"]],
    ["2024-11-05", ["POST initialize", "GET "]],
  ] as const) {
    const { url, seen, fetch } = await gated(t, () => true);
    const error = await rejection(withTimeout(connectHttpNode({ url, fetch, info: INFO, versions: [version] }), 10_000, "connect"));
    assertAuthError(error, 401, url);
    assert.deepEqual(
      seen.map((s) => `${s.method} ${s.rpc ?? ""}`),
      requests,
      `${version}: what was tried`,
    );
  }
});

test("AUTH-08: a later request answered 401 rejects with HttpAuthError; the session goes on once authorized", async (t) => {
  let refuseCalls = false;
  const { url, fetch } = await gated(t, (s) => refuseCalls && s.rpc === "tools/call");
  const connection = await withTimeout(
    connectHttpNode({ url, fetch, info: INFO, versions: ["2025-11-25"], standaloneStream: false }),
    10_000,
    "connect",
  );
  try {
    refuseCalls = true;
    assertAuthError(await rejection(connection.client.callTool("test_simple_text", {})), 401, url);
    refuseCalls = false;
    const result = await connection.client.callTool("test_simple_text", {});
    assert.match(String((result.content[0] as { text?: string }).text), /simple text/);
  } finally {
    await connection.close();
  }
});

test("AUTH-08: 2026-07-28: a request answered 401 rejects with HttpAuthError, not with a fallback error (no data.fallback)", async (t) => {
  let refuse = false;
  const { url, fetch } = await gated(t, (s) => refuse && s.rpc === "tools/list");
  const connection = await withTimeout(connectHttpNode({ url, fetch, info: INFO, versions: ["2026-07-28"] }), 10_000, "connect");
  try {
    assert.equal(connection.server.era, "modern");
    refuse = true;
    const error = assertAuthError(await rejection(connection.client.listTools()), 401, url);
    assert.equal((error.data as { fallback?: boolean }).fallback, undefined);
  } finally {
    await connection.close();
  }
});

test("AUTH-08: the GET stream refused with 401 is reported to onError with its HttpAuthError (HttpTransportError.auth)", async (t) => {
  const { url, fetch } = await gated(t, (s) => s.method === "GET");
  const reported: HttpTransportError[] = [];
  let resolveReported: () => void = () => {};
  const got = new Promise<void>((resolve) => (resolveReported = resolve));
  const connection = await withTimeout(
    connectHttpNode({
      url,
      fetch,
      info: INFO,
      versions: ["2025-11-25"],
      onError: (error) => {
        reported.push(error);
        if (error.auth !== undefined) resolveReported();
      },
    }),
    10_000,
    "connect",
  );
  try {
    await withTimeout(got, 5000, "the GET stream's refusal reported");
    const report = reported.find((e) => e.auth !== undefined);
    assert.equal(report?.status, 401);
    assertAuthError(report?.auth, 401, url);
  } finally {
    await connection.close();
  }
});

test("AUTH-08: a server's JSON-RPC error that looks like a challenge stays an McpError (HttpAuthError cannot be forged)", async (t) => {
  const server = new Server({ info: { name: "forger", version: "1" } });
  server.tool("forge", { inputSchema: { type: "object" } }, () => {
    throw new McpError(-32000, "HTTP 401: Unauthorized", { status: 401, wwwAuthenticate: CHALLENGE, url: "http://elsewhere/" });
  });
  const running = await serveHttp(server, { onError: () => {} });
  (t as unknown as { after(fn: () => Promise<void>): void }).after(() => running.close());
  const url = running.url;
  const connection = await withTimeout(
    connectHttpNode({ url, info: INFO, versions: ["2025-11-25"], standaloneStream: false }),
    10_000,
    "connect",
  );
  try {
    const error = await rejection(connection.client.callTool("forge", {}));
    assert.ok(error instanceof McpError && !(error instanceof HttpAuthError), String(error));
    assert.equal(error.code, -32000);
  } finally {
    await connection.close();
  }
});

test("AUTH-08: close(): a DELETE answered 401 is reported to onError with its HttpAuthError", async (t) => {
  const { url, fetch } = await gated(t, (s) => s.method === "DELETE");
  const reported: HttpTransportError[] = [];
  const connection = await withTimeout(
    connectHttpNode({ url, fetch, info: INFO, versions: ["2025-11-25"], standaloneStream: false, onError: (e) => reported.push(e) }),
    10_000,
    "connect",
  );
  await connection.close();
  const report = reported.find((e) => e.auth !== undefined);
  assertAuthError(report?.auth, 401, url);
});

test("AUTH-08, SSE-01: HTTP+SSE (2024-11-05 fallback): a message POST answered 403 rejects with HttpAuthError naming the message URL", async (t) => {
  let refuse = false;
  const { url, fetch } = await gated(
    t,
    (s) => refuse && s.method === "POST" && s.url.includes("/messages"),
    403,
    'Bearer error="insufficient_scope"',
    { legacySse: true },
  );
  const sse = url.replace(/\/mcp$/, "/sse");
  const connection = await withTimeout(connectHttpNode({ url: sse, fetch, info: INFO, versions: ["2024-11-05"] }), 10_000, "connect");
  try {
    assert.equal(connection.transport.transportMode, "legacy");
    refuse = true;
    const error = await rejection(connection.client.callTool("test_simple_text", {}));
    assertAuthError(error, 403, connection.transport.legacyPostUrl ?? "", 'Bearer error="insufficient_scope"');
  } finally {
    await connection.close();
  }
});

test("AUTH-08, HTTP-03: a session lost (404) whose re-initialization meets a 401: the challenge is reported, the connection ends", async (t) => {
  let phase: "open" | "expired" = "open";
  const { url, fetch } = await gated(t, (s) => {
    if (phase === "expired" && s.rpc === "tools/call") return 404;
    return phase === "expired" && s.rpc === "initialize";
  });
  const reported: HttpTransportError[] = [];
  const connection = await withTimeout(
    connectHttpNode({ url, fetch, info: INFO, versions: ["2025-11-25"], standaloneStream: false, onError: (e) => reported.push(e) }),
    10_000,
    "connect",
  );
  try {
    phase = "expired";
    await rejection(connection.client.callTool("test_simple_text", {}));
    assertAuthError(reported.find((e) => e.auth !== undefined)?.auth, 401, url);
  } finally {
    await connection.close();
  }
});

test("AUTH-08, HTTP-10: resuming a response stream (GET with Last-Event-ID) answered 401 rejects the request with HttpAuthError", async () => {
  const encoder = new TextEncoder();
  const body = (chunks: string[]): ResponseLike["body"] => {
    const queue = chunks.map((c) => encoder.encode(c));
    return {
      getReader: () => ({
        read: async () => (queue.length === 0 ? { done: true } : { done: false, value: queue.shift() }),
        cancel: async () => {},
      }),
    };
  };
  const url = "http://mcp.test/mcp";
  const fetch: FetchLike<NodeAbortSignal> = async (_url, init) => {
    const message = init.body === undefined ? undefined : (JSON.parse(init.body) as { id?: number; method?: string });
    const headers = (values: Record<string, string>): ResponseLike["headers"] => ({ get: (name) => values[name.toLowerCase()] ?? null });
    if (message?.method === "initialize") {
      const text = JSON.stringify({
        jsonrpc: "2.0",
        id: message.id,
        result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "fake", version: "1" } },
      });
      return {
        status: 200,
        headers: headers({ "content-type": "application/json", "mcp-session-id": "s1" }),
        body: body([text]),
      };
    }
    if (message?.method === "tools/call") {
      // A stream that ends after its priming event: the client resumes it with GET.
      return {
        status: 200,
        headers: headers({ "content-type": "text/event-stream" }),
        body: body(["id: s0:0\nretry: 1\ndata: \n\n"]),
        text: async () => "",
      };
    }
    if (init.method === "GET" && init.headers["Last-Event-ID"] === "s0:0") {
      return { status: 401, headers: headers({ "www-authenticate": CHALLENGE }), body: null, text: async () => "" };
    }
    return { status: 202, headers: headers({}), body: null, text: async () => "" };
  };
  const connection = await withTimeout(
    connectHttpNode({ url, fetch, info: INFO, versions: ["2025-11-25"], standaloneStream: false }),
    10_000,
    "connect",
  );
  try {
    assertAuthError(await rejection(withTimeout(connection.client.callTool("anything", {}), 10_000, "callTool")), 401, url);
  } finally {
    await connection.close();
  }
});
