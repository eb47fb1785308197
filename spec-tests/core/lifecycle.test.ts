// The lifecycle table (lib/rules/lifecycle.ts) against an expectation written out independently
// here, for every role × state × event, and the engine's phases through a handshake of
// each role following it.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  LIFECYCLE_EVENTS,
  LIFECYCLE_STATES,
  nextState,
  phaseOf,
  type LifecycleEvent,
  type LifecycleState,
} from "../../lib/rules/lifecycle.js";
import { Engine } from "../../lib/index.js";

type Expectation = Partial<Record<LifecycleEvent, LifecycleState>>;

// Written from the rules (L-01, L-03, L-06, MOD-*), not from the table.
const LEGAL: Record<"client" | "server", Record<LifecycleState, Expectation>> = {
  client: {
    "awaiting-init": { "initialize-sent": "initializing", "modern-chosen": "operating", closed: "closed" },
    "answering-init": { closed: "closed" },
    initializing: { "initialize-result-received": "operating", closed: "closed" },
    operating: { closed: "closed" },
    closed: {},
  },
  server: {
    "awaiting-init": { "initialize-received": "answering-init", "modern-chosen": "operating", closed: "closed" },
    "answering-init": { "initialize-result-sent": "initializing", "initialize-refused": "awaiting-init", closed: "closed" },
    initializing: { "initialized-received": "operating", closed: "closed" },
    operating: { closed: "closed" },
    closed: {},
  },
};

const RULE: Record<LifecycleEvent, string> = {
  "initialize-sent": "L-01",
  "initialize-result-received": "L-03",
  "initialize-received": "L-01",
  "initialize-result-sent": "L-01",
  "initialize-refused": "L-01",
  "initialized-received": "L-06",
  "modern-chosen": "MOD-23",
  closed: "S-01",
};

describe("lifecycle table: every role × state × event", () => {
  for (const role of ["client", "server"] as const) {
    it(`L-01, L-06, L-10, L-11: ${role}: ${LIFECYCLE_STATES.length} states × ${LIFECYCLE_EVENTS.length} events`, () => {
      let cells = 0;
      for (const state of LIFECYCLE_STATES) {
        for (const event of LIFECYCLE_EVENTS) {
          cells++;
          const got = nextState(role, state, event);
          const want = LEGAL[role][state][event];
          if (want !== undefined) assert.equal(got, want, `${role} ${state} ${event}`);
          else {
            assert.ok(typeof got !== "string", `${role} ${state} ${event}: expected a refusal, got ${String(got)}`);
            assert.equal(got.rule, RULE[event], `${role} ${state} ${event}`);
            assert.match(got.got, new RegExp(state));
          }
        }
      }
      assert.equal(cells, 40);
    });
  }

  it("L-01: answering-init gates like awaiting-init; every other state is its own phase", () => {
    assert.equal(phaseOf("answering-init"), phaseOf("awaiting-init"));
    assert.equal(new Set(LIFECYCLE_STATES.map(phaseOf)).size, 4);
  });
});

describe("the engine follows the table", () => {
  it("L-01: server with autoInitialize false: a second initialize while the first awaits acceptance is refused (L-01); a refused one lets the client try again", () => {
    const s = new Engine({ role: "server", info: { name: "s", version: "1" }, autoInitialize: false });
    const init = (id: number) =>
      s.receiveMessage({
        jsonrpc: "2.0",
        id,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
      });
    init(1);
    init(2);
    const out: unknown[] = [];
    for (let o = s.pollOutbound(); o !== undefined; o = s.pollOutbound()) out.push(o.message);
    assert.deepEqual(out, [{ jsonrpc: "2.0", id: 2, error: { code: -32600, message: "Invalid request" } }]);
    const kinds: string[] = [];
    for (let e = s.pollEvent(); e !== undefined; e = s.pollEvent()) kinds.push(e.kind === "violation" ? `violation:${e.rule}` : e.kind);
    assert.deepEqual(kinds, ["initialize-request", "violation:L-01"]);
    s.respondError(1, -32602, "no");
    assert.equal(s.phase, "awaiting-init");
    init(3);
    s.acceptInitialize();
    assert.equal(s.phase, "initializing");
    s.receiveMessage({ jsonrpc: "2.0", method: "notifications/initialized" });
    assert.equal(s.phase, "operating");
  });

  it("L-01, S-01: client: initialize twice is refused by the table (L-01), and after close every command is S-01", () => {
    const c = new Engine({ role: "client", info: { name: "c", version: "1" } });
    c.initialize();
    assert.throws(
      () => c.initialize(),
      (e: unknown) => e instanceof Error && "rule" in e && (e as { rule: string }).rule === "L-01",
    );
    c.close();
    assert.throws(
      () => c.request("ping"),
      (e: unknown) => e instanceof Error && (e as { rule?: string }).rule === "S-01",
    );
  });
});
