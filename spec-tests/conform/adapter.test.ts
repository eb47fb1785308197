// The host adapter our `serve` speaks (lib/cli/conform/adapter.ts, FORMAT.md "Host adapter"):
// its answers to bad commands, its ordering against stdin, and the runner replaying through it
// the fixtures that need host commands, a clock and engine configuration.

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { probeTarget, runStdioConformance } from "../../lib/cli/conform/index.js";
import { StdioTarget } from "../../lib/cli/conform/target.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const main = join(root, "dist", "lib", "cli", "main.js");

test("the adapter refuses bad commands with ok:false and keeps serving", async () => {
  const target = new StdioTarget({ command: process.execPath, args: [main, "serve"], adapter: true });
  try {
    const hello = await target.command({ seq: 1, op: "hello" }, 20_000);
    assert.equal(hello?.ok, true);
    assert.ok(Array.isArray((hello?.supports as { ops?: unknown }).ops));
    assert.match(JSON.stringify(await target.command({ seq: 2, op: "call", call: { op: "close" } }, 5000)), /needs a configured engine/);
    assert.match(JSON.stringify(await target.command({ seq: 3, op: "time", now: 5 }, 5000)), /needs a configured engine/);
    assert.match(JSON.stringify(await target.command({ seq: 4, op: "teleport" }, 5000)), /unknown adapter op/);
    assert.equal(
      (
        await target.command(
          { seq: 5, op: "configure", role: "server", version: "2025-11-25", config: { capabilities: { tools: {} } } },
          5000,
        )
      )?.ok,
      true,
    );
    assert.match(
      JSON.stringify(await target.command({ seq: 6, op: "configure", role: "server", version: "2025-11-25", config: {} }, 5000)),
      /configured already/,
    );
    assert.match(JSON.stringify(await target.command({ seq: 7, op: "call", call: { op: "warp" } }, 5000)), /unknown op warp/);
    // A refused host command carries its rule: respond to a request that never came (ID-04).
    const refused = await target.command({ seq: 8, op: "call", call: { op: "respond", id: 99, result: {} } }, 5000);
    assert.equal(refused?.ok, false);
    assert.equal((refused?.error as { rule?: unknown }).rule, "ID-04");
    // The engine still serves: a ping is answered (before initialize too, L-13).
    target.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    const pong = await target.next(5000);
    assert.deepEqual(pong?.kind === "message" ? pong.value : pong, { jsonrpc: "2.0", id: 1, result: {} });
  } finally {
    await target.stop(2000);
  }
});

test("a host command waits for the stdin bytes written before it (the two pipes are not ordered)", async () => {
  const target = new StdioTarget({ command: process.execPath, args: [main, "serve"], adapter: true });
  try {
    assert.equal(
      (
        await target.command(
          { seq: 1, op: "configure", role: "server", version: "2025-11-25", config: { capabilities: { tools: {} } } },
          20_000,
        )
      )?.ok,
      true,
    );
    const input =
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":5,"method":"tools/list"}\n';
    // The command goes first, announcing the input that follows 300 ms later: only the stdinBytes
    // field makes the adapter wait for tools/list before it answers it.
    target.stdinBytes = new TextEncoder().encode(input).length;
    const pending = target.command({ seq: 2, op: "call", call: { op: "respond", id: 5, result: { tools: [] } } }, 5000);
    await new Promise<void>((resolve) => setTimeout(() => resolve(), 300));
    target.stdinBytes = 0;
    target.write(input);
    const answer = await pending;
    assert.equal(answer?.ok, true, JSON.stringify(answer));
  } finally {
    await target.stop(2000);
  }
});

test("through the adapter, serve passes the fixtures that need host commands, a clock and engine configuration", async () => {
  const args = [main, "serve"];
  const probed = await probeTarget(process.execPath, args, 10_000, {}, undefined, undefined, { adapter: true });
  if (typeof probed === "string") throw new Error(probed);
  assert.ok(probed.profile.adapter !== undefined, "serve offers the adapter");
  for (const only of ["server/deadlines/", "server/negotiation/", "server/cancellation/", "server/limits/"]) {
    const cases = await runStdioConformance(process.execPath, args, {
      fixturesDir: join(root, "fixtures"),
      role: "server",
      timeoutMs: 5000,
      profile: probed.profile,
      only,
      newestOnly: true,
    });
    assert.ok(cases.length > 0, only);
    assert.deepEqual(
      cases.filter((c) => c.outcome !== "passed").map((c) => `${c.fixture}: ${c.outcome} ${c.reason}`),
      [],
      only,
    );
  }
});
