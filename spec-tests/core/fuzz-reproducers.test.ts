// Minimised reproducers of failures the fuzzer (spec-tests/fuzz/) can find, one test each, so
// that none comes back. Each names the fuzzer seed and the failure kind it reproduces.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Engine, LocalProtocolError, type EngineEvent } from "../../lib/index.js";
import { footprint } from "../fuzz/memory.js";

const encoder = new TextEncoder();
const bytes = (text: string): Uint8Array => encoder.encode(text);

function drainEvents(engine: Engine): EngineEvent[] {
  const events: EngineEvent[] = [];
  engine.takeEvents(events);
  return events;
}

function outbound(engine: Engine): unknown[] {
  const out: unknown[] = [];
  for (let m = engine.pollOutbound(); m !== undefined; m = engine.pollOutbound()) out.push(m.message);
  return out;
}

function negotiatedClient(version: string, serverCaps: object, capabilities: Record<string, unknown> = {}): Engine {
  const engine = new Engine({
    role: "client",
    info: { name: "c", version: "1" },
    versions: [version as "2025-11-25"],
    capabilities: capabilities as never,
  });
  engine.initialize();
  engine.receiveMessage({
    jsonrpc: "2.0",
    id: 0,
    result: { protocolVersion: version, capabilities: serverCaps, serverInfo: { name: "s", version: "1" } },
  });
  outbound(engine);
  drainEvents(engine);
  return engine;
}

test("MOD-21: fuzz seed 2 [reply-from-modern-client]: a 2026-07-28 client answers no malformed input (MOD-21), and its violations say no code was sent", () => {
  const engine = new Engine({ role: "client", info: { name: "c", version: "1" }, versions: ["2026-07-28"], limits: { maxLineBytes: 64 } });
  engine.startModern();
  const inputs = [
    "not json\n", // parse error
    '{"jsonrpc":"2.0","id":7}\n', // neither request nor response, readable id
    '{"jsonrpc":"1.0","id":8,"method":"ping"}\n', // invalid request, readable id
    '{"jsonrpc":"2.0","id":{},"method":"ping"}\n', // unreadable id
    '[{"jsonrpc":"2.0","id":9,"method":"ping"}]\n', // a batch
    `{"jsonrpc":"2.0","id":10,"method":"ping","params":{"pad":"${"x".repeat(100)}"}}\n`, // over maxLineBytes
    "[]\n",
    "17\n",
  ];
  for (const input of inputs) engine.receiveBytes(bytes(input));
  engine.receiveMessage({ jsonrpc: "2.0", id: 11 });
  assert.deepEqual(outbound(engine), []);
  const violations = drainEvents(engine).filter((e) => e.kind === "violation");
  assert.ok(violations.length >= inputs.length, `each bad input is still reported (${violations.length})`);
  for (const v of violations)
    assert.equal(v.kind === "violation" ? v.code : "?", undefined, `violation ${JSON.stringify(v)} claims a reply was sent`);
});

test("JR-01: fuzz [reply-from-modern-client], the other side: a session-era client still answers malformed input", () => {
  const engine = negotiatedClient("2025-06-18", {});
  engine.receiveBytes(bytes('not json\n{"jsonrpc":"2.0","id":7}\n'));
  assert.deepEqual(outbound(engine), [
    { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } },
    { jsonrpc: "2.0", id: 7, error: { code: -32600, message: "Invalid request" } },
  ]);
});

test("ENG-06: fuzz seed 50507 [command-threw]: a task status named like an Object.prototype member never makes notify throw a TypeError", () => {
  const tasks = { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } };
  const engine = negotiatedClient(
    "2025-11-25",
    { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
    { sampling: {}, elicitation: {}, tasks },
  );
  let accepted = 0;
  for (const status of ["constructor", "toString", "__proto__", "hasOwnProperty", "working"]) {
    try {
      engine.notify("notifications/tasks/status", {
        taskId: "t1",
        status,
        createdAt: "2025-11-25T10:00:00Z",
        lastUpdatedAt: "2025-11-25T10:00:00Z",
        ttl: 1,
      } as never);
      accepted++;
    } catch (error) {
      assert.ok(error instanceof LocalProtocolError, `status ${status}: ${String(error)}`);
    }
  }
  assert.ok(accepted >= 1, "the gate let task statuses through, so the status rules were exercised");
});

test("LIM-01: fuzz seed 1 [buffer-retained]: after a 2 MiB line spread over chunks the decoder keeps no big buffer", () => {
  const engine = new Engine({ role: "server", info: { name: "s", version: "1" } });
  const line = bytes(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"pad":"${"x".repeat(2 * 1024 * 1024)}"}}}\n`);
  for (let at = 0; at < line.length; at += 65536) engine.receiveBytes(line.subarray(at, at + 65536));
  assert.equal(outbound(engine).length, 1);
  const f = footprint(engine);
  assert.ok(f.bufferBytes <= 65536, `${f.bufferPath} keeps ${f.bufferBytes} bytes`);
});

test("ENG-08: fuzz seed 77 [table-unbounded]: a burst of 5,000 messages in one chunk leaves no 8,192-slot queues behind once drained", () => {
  const engine = new Engine({ role: "server", info: { name: "s", version: "1" } });
  let text = "";
  for (let i = 0; i < 5000; i++) text += `{"jsonrpc":"2.0","id":${i},"method":"ping"}\n`;
  engine.receiveBytes(bytes(text));
  assert.equal(outbound(engine).length, 5000);
  drainEvents(engine);
  const f = footprint(engine);
  assert.ok(f.largestTable <= 4096, `${f.largestPath} keeps ${f.largestTable} slots after draining`);
});
