// ServerSession.endSubscriptions (2026-07-28): the server ends every open subscriptions/listen
// stream with its final result carrying the subscription id (MOD-15), after which no change
// notification reaches the ended streams; with none open it sends nothing. In process, through
// the peer harness (spec-tests/support/peer-harness.ts).

import { test } from "node:test";
import assert from "node:assert/strict";
import { MODERN_VERSIONS, SESSION_VERSIONS, type ProtocolVersion } from "../../lib/index.js";
import { PeerAbortController } from "../../lib/peer/index.js";
import { Pair, track } from "../support/peer-harness.js";

const ALL: ProtocolVersion[] = [...SESSION_VERSIONS, ...MODERN_VERSIONS];
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

test("MOD-15: endSubscriptions answers each open listen with its final result; later changes reach none; a second call sends nothing", async () => {
  const pair = new Pair({
    server: { versions: ALL },
    client: { versions: ALL },
    setup: (s) => s.tool("first", {}, () => ({ content: [] })),
  });
  const connected = await pair.connect();
  assert.equal(connected.era, "modern");
  const controller = new PeerAbortController();
  const listen = track(
    pair.client.request(
      "subscriptions/listen",
      { notifications: { toolsListChanged: true } },
      { signal: controller.signal, timeoutMs: Infinity },
    ),
  );
  await pair.settle();
  assert.equal(listen.state, "pending");
  const id = pair.clientHost.messages("subscriptions/listen")[0]?.id;

  pair.session.endSubscriptions();
  await pair.settle();
  assert.equal(listen.state, "resolved", String(listen.error));
  const ended = pair.serverHost.sent.find((m) => m.id === id && Object.hasOwn(m, "result"));
  const result = (ended?.result ?? {}) as Record<string, unknown>;
  assert.equal(result.resultType, "complete");
  assert.equal((result._meta as Record<string, unknown> | undefined)?.[SUBSCRIPTION_ID], id);

  const before = pair.serverHost.sent.length;
  pair.server.tool("second", {}, () => ({ content: [] }));
  pair.session.endSubscriptions();
  await pair.settle();
  assert.equal(pair.serverHost.sent.length, before, "nothing more: the stream is over and nothing is left to end");
});
