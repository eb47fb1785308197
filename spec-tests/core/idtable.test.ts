// The in-flight id table through the public Engine API: integer ids that clash in the slot
// array, string ids (which never take a slot), growth past the initial capacity, and 1 vs
// "1" kept apart; every request is answered exactly once, with its own id.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Engine, type JsonObject, type RequestId } from "../../lib/index.js";

function operatingServer(maxPendingInbound = 5000): Engine<"server"> {
  const server = new Engine({
    role: "server",
    info: { name: "s", version: "1" },
    capabilities: { tools: {} },
    limits: { maxPendingInbound },
  });
  server.receiveMessage({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
  });
  server.receiveMessage({ jsonrpc: "2.0", method: "notifications/initialized" });
  while (server.pollOutbound() !== undefined);
  while (server.pollEvent() !== undefined);
  return server;
}

function requestIds(server: Engine<"server">): RequestId[] {
  const ids: RequestId[] = [];
  for (let e = server.pollEvent(); e !== undefined; e = server.pollEvent()) if (e.kind === "request") ids.push(e.id);
  return ids;
}

test("ID-04: clashing integer ids, string ids and growth keep every request apart", () => {
  const server = operatingServer();
  // 0, 64, 128, ... clash in a 64-slot table; negative and large ids hash too; strings overflow.
  const sent: RequestId[] = [];
  for (let i = 0; i < 300; i++) sent.push(i * 64);
  for (let i = 0; i < 300; i++) sent.push(`s${i}`);
  sent.push(-1, -65, 2 ** 40, 2 ** 40 + 64, "1", 1);
  for (const id of sent) server.receiveMessage({ jsonrpc: "2.0", id, method: "tools/list" });
  assert.deepEqual(requestIds(server), sent);
  assert.equal(server.pendingInboundCount, sent.length);
  // Answer in reverse order: each reply carries its own id, exactly once.
  for (const id of [...sent].reverse()) server.respond(id, { tools: [], marker: String(id) } as JsonObject);
  const replies: Array<{ id: RequestId; marker: string }> = [];
  for (let o = server.pollOutbound(); o !== undefined; o = server.pollOutbound()) {
    const m = o.message as unknown as { id: RequestId; result: { marker: string } };
    replies.push({ id: m.id, marker: m.result.marker });
  }
  assert.equal(replies.length, sent.length);
  for (const r of replies) assert.equal(r.marker, String(r.id));
  assert.deepEqual(new Set(replies.map((r) => `${typeof r.id}:${String(r.id)}`)).size, sent.length);
  assert.equal(server.pendingInboundCount, 0);
  assert.throws(() => server.respond(64, {}), /ID-04/);
});

test("ID-03: a duplicate of a clashing or string id is still recognised as in flight", () => {
  const server = operatingServer();
  for (const id of [0, 64, "x"]) server.receiveMessage({ jsonrpc: "2.0", id, method: "tools/list" });
  requestIds(server);
  for (const id of [64, "x"]) {
    server.receiveMessage({ jsonrpc: "2.0", id, method: "tools/list" });
    const reply = server.pollOutbound()?.message as unknown as { id: RequestId; error: { code: number } };
    assert.equal(reply.id, id);
    assert.equal(reply.error.code, -32600);
  }
  // Removing a clashing id from the overflow leaves the slot holder in place, and vice versa.
  server.respond(64, { tools: [] });
  server.respond(0, { tools: [] });
  server.respond("x", { tools: [] });
  assert.equal(server.pendingInboundCount, 0);
});

test("ID-04, S-01: our own ids past the initial capacity settle correctly, and close settles them all", () => {
  const client = new Engine({ role: "client", info: { name: "c", version: "1" } });
  client.initialize();
  client.receiveMessage({
    jsonrpc: "2.0",
    id: 0,
    result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } },
  });
  while (client.pollOutbound() !== undefined);
  while (client.pollEvent() !== undefined);
  const ids: number[] = [];
  for (let i = 0; i < 500; i++) ids.push(client.request("tools/list", undefined, { deadline: 1000 + i }));
  assert.equal(client.nextDeadline(), 1000);
  for (const id of ids.slice(0, 250)) client.receiveMessage({ jsonrpc: "2.0", id, result: { tools: [] } });
  let responses = 0;
  for (let e = client.pollEvent(); e !== undefined; e = client.pollEvent()) if (e.kind === "response") responses++;
  assert.equal(responses, 250);
  assert.equal(client.nextDeadline(), 1250);
  client.close();
  let closed = 0;
  for (let e = client.pollEvent(); e !== undefined; e = client.pollEvent()) if (e.kind === "connection-closed") closed++;
  assert.equal(closed, 250);
});
