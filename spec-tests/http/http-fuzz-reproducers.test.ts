// Minimised reproducers of what the fuzzer's HTTP target (spec-tests/fuzz/http-episode.ts) found
// in the web-standard handler, one test each, so that none comes back. Each names the fuzzer
// seed and the failure kind it reproduces; time is simulated (spec-tests/fuzz/sim-clock.ts).

import { test } from "node:test";
import assert from "node:assert/strict";
import { createHttpHandler } from "../../lib/http-server/index.js";
import { Server } from "../../lib/peer/server/server.js";
import { settle, SimClock } from "../fuzz/sim-clock.js";

function slowServer(clock: SimClock): Server {
  const server = new Server({ info: { name: "s", version: "1" }, versions: ["2025-11-25"] });
  server.tool("slow", {}, async (_args, ctx) => {
    await clock.sleep(60_000, ctx.signal);
    return { content: [{ type: "text", text: "slept" }] };
  });
  server.resource("file:///a", { name: "a" }, () => ({ contents: [{ uri: "file:///a", text: "A" }] }));
  return server;
}

test("SSE-01: fuzz seed 42 [stream-open-after-close]: close() ends the legacy HTTP+SSE streams, not only their sessions", async () => {
  const clock = new SimClock();
  const handler = createHttpHandler(slowServer(clock), { timers: clock.handlerTimers, legacySse: true, onError: () => {} });
  const res = await handler.fetch(new Request("http://localhost/sse", { headers: { host: "localhost" } }));
  assert.equal(res.status, 200);
  const reader = (res.body as ReadableStream).getReader();
  const first = await reader.read();
  assert.match(new TextDecoder().decode(first.value), /^event: endpoint\ndata: \/messages\?sessionId=/);
  const next: { done?: boolean } = {};
  void reader.read().then((r) => (next.done = r.done));
  handler.close();
  await settle(2);
  assert.equal(next.done, true, "the stream ends with the handler");
  assert.equal(handler.endpoint.legacy?.sessions.size, 0);
  assert.equal(clock.pending("handler"), 0, "no timer of the ended session is left");
});
