// Extensions and custom methods through Client and Server (RULES.md MT-03…MT-06), in both
// eras: a Server serves the requests of an extension it declared, a Client that declared the
// same extension calls them, hears the server's notifications and sends its own (session
// era); one side without the declaration gets nothing through. The types come from
// augmenting ExtensionRequests and ExtensionNotifications; the compile-time checks of those
// types (and of spec params) are at the end, under `@ts-expect-error`.

import { test } from "node:test";
import assert from "node:assert/strict";
import { McpError, ProtocolMisuseError, Server, type ExtensionDeclaration, type Extensions } from "../../lib/peer/index.js";
import type { JsonObject } from "../../lib/index.js";
import { Pair, SERVER_INFO, type PairOptions } from "../support/peer-harness.js";
import { rejection } from "../support/helpers.js";

// As users write it against "mcp-engine/peer" (the index re-exports the interfaces).
declare module "../../lib/peer/index.js" {
  interface ExtensionRequests {
    "com.example/search/query": { params: { q: string; limit?: number }; result: { hits: string[] } };
  }
  interface ExtensionNotifications {
    "com.example/search/hit": { hit: string };
    "com.example/search/hint": { text: string };
  }
}

const SEARCH: ExtensionDeclaration = {
  settings: { maxHits: 10 },
  requests: ["com.example/search/query"],
  serverNotifications: ["com.example/search/hit"],
  clientNotifications: ["com.example/search/hint"],
};
const EXTENSIONS: Extensions = { "com.example/search": SEARCH };

function searchServer(extensions: Extensions | undefined): (server: Server) => void {
  return (server) => {
    if (extensions === undefined) return;
    server.setRequestHandler("com.example/search/query", (params, ctx) => {
      ctx.session.notify("com.example/search/hit", { hit: `${params.q}-1` }, ctx.requestId);
      return { hits: [params.q.toUpperCase()].slice(0, params.limit ?? 10) };
    });
  };
}

async function pairOf(
  era: "session" | "modern",
  serverExtensions: Extensions | undefined,
  clientExtensions: Extensions | undefined,
  options: PairOptions = {},
): Promise<Pair> {
  const versions = era === "modern" ? (["2026-07-28"] as const) : (["2025-11-25"] as const);
  const server = new Server({ info: SERVER_INFO, versions, extensions: serverExtensions });
  searchServer(serverExtensions)(server);
  const pair = new Pair({ ...options, serverInstance: server, client: { versions, extensions: clientExtensions } });
  await pair.connect();
  return pair;
}

for (const era of ["session", "modern"] as const) {
  test(`MT-03: ${era} era: a declared extension's request is served and its notification heard, typed by the augmented maps`, async () => {
    const pair = await pairOf(era, EXTENSIONS, EXTENSIONS);
    const heard: string[] = [];
    pair.client.onNotification("com.example/search/hit", (params) => heard.push(params.hit));
    const result = pair.client.request("com.example/search/query", { q: "mcp" });
    await pair.settle();
    assert.deepEqual((await result).hits, ["MCP"]);
    assert.deepEqual(heard, ["mcp-1"]);
    // The declaration travels as a capability, settings included.
    const caps = pair.client.server?.capabilities as JsonObject | undefined;
    assert.deepEqual((caps?.extensions as JsonObject | undefined)?.["com.example/search"], { maxHits: 10 });
  });

  test(`MT-03, MT-01: ${era} era: a client without the declaration cannot call it (ProtocolMisuseError, nothing sent)`, async () => {
    const pair = await pairOf(era, EXTENSIONS, undefined);
    const error = await rejection(pair.client.request("com.example/search/query" as string, { q: "x" }));
    // Not in this client's table at all: as unknown as any method outside the spec (MT-01).
    assert.ok(error instanceof ProtocolMisuseError && error.rule === "MT-01", String(error));
    assert.equal(pair.clientHost.messages("com.example/search/query").length, 0);
  });

  test(`MT-03: ${era} era: a server that did not declare it is not asked (ProtocolMisuseError); one that declares it but has no handler answers -32601`, async () => {
    const pair = await pairOf(era, undefined, EXTENSIONS);
    const error = await rejection(pair.client.request("com.example/search/query", { q: "x" }));
    assert.ok(error instanceof ProtocolMisuseError && /peer's capabilities/.test(error.expected), String(error));
    const bare = new Server({ info: SERVER_INFO, versions: era === "modern" ? ["2026-07-28"] : ["2025-11-25"], extensions: EXTENSIONS });
    const unserved = new Pair({
      serverInstance: bare,
      client: { versions: era === "modern" ? ["2026-07-28"] : ["2025-11-25"], extensions: EXTENSIONS },
    });
    await unserved.connect();
    const refused = await rejection(unserved.client.request("com.example/search/query", { q: "x" }));
    assert.ok(refused instanceof McpError && refused.code === -32601, String(refused));
  });
}

test("MT-03, MT-02: session era: the client's extension notification reaches the server's handler; a peer's undeclared one does not", async () => {
  const server = new Server({ info: SERVER_INFO, versions: ["2025-11-25"], extensions: EXTENSIONS });
  const heard: string[] = [];
  server.setNotificationHandler("com.example/search/hint", (params) => heard.push(params.text));
  const pair = new Pair({ serverInstance: server, client: { versions: ["2025-11-25"], extensions: EXTENSIONS } });
  await pair.connect();
  pair.client.notify("com.example/search/hint", { text: "t" });
  await pair.settle();
  assert.deepEqual(heard, ["t"]);
  assert.throws(
    () => pair.client.notify("com.example/search/hit" as string, {}),
    (e: unknown) => e instanceof ProtocolMisuseError && e.rule === "MT-02",
  );
});

test("MT-05: 2026-07-28: a server notification of an extension needs a request in flight that declared it", async () => {
  const pair = await pairOf("modern", EXTENSIONS, EXTENSIONS);
  assert.throws(
    () => pair.session.notify("com.example/search/hit", { hit: "x" }),
    (e: unknown) => e instanceof ProtocolMisuseError && e.rule === "MT-05",
  );
});

test("MT-03, MT-06, MT-04: handlers only for declared methods; a malformed extension identifier and a name that shadows the spec refused at construction", () => {
  const server = new Server({ info: SERVER_INFO, extensions: EXTENSIONS });
  assert.throws(() => server.setRequestHandler("com.example/other", () => ({})), /MT-03/);
  assert.throws(() => server.setNotificationHandler("com.example/search/hit", () => undefined), /MT-03/);
  assert.throws(() => new Server({ info: SERVER_INFO, extensions: { search: SEARCH } }), /MT-06/);
  const shadowing = new Server({ info: SERVER_INFO, extensions: { "com.example/x": { requests: ["tools/call"] } } });
  assert.throws(() => new Pair({ serverInstance: shadowing }), /MT-04/);
});

// ── Types (compiled, never run) ─────────────────────────────────────────────────────

export function typeChecks(pair: Pair): void {
  void pair.client.request("com.example/search/query", { q: "typed" }).then((r) => r.hits.map((h) => h.toUpperCase()));
  // @ts-expect-error q is a string
  void pair.client.request("com.example/search/query", { q: 1 });
  // @ts-expect-error the result has hits, not items
  void pair.client.request("com.example/search/query", { q: "x" }).then((r) => r.items);
  // @ts-expect-error a spec method's params are typed: nme is no key of tools/call's params
  void pair.client.request("tools/call", { nme: "x" });
  // @ts-expect-error nor is a missing name
  void pair.client.request("tools/call", {});
  void pair.client.request("tools/call", { name: "x", arguments: {} });
  void pair.client.request("tools/list");
  // Any other name is untyped.
  void pair.client.request("com.example/untyped", { anything: 1 });
  // @ts-expect-error the notification's params are typed
  pair.client.onNotification("com.example/search/hit", (params) => params.nope);
  // @ts-expect-error a handler returns the declared result
  pair.server.setRequestHandler("com.example/search/query", () => ({ items: [] }));
}
