// The wire forms of the implementation's own identity results (spec-tests/tools/corpus-wire.ts,
// fixtures/FORMAT.md "Wire expectations"): an initialize result and a server/discover result may
// carry members the schema does not name (InitializeResult and DiscoverResult set no
// additionalProperties), so their `wire` is marked `"$open": true`; the members the fixture names
// are judged as before, and `out`, which the engine replayer checks, stays exact.

import assert from "node:assert/strict";
import { test } from "node:test";
import { compare } from "../../lib/cli/conform/match.js";
import { annotate } from "../tools/corpus-annotate.js";
import type { Obj } from "../tools/corpus-wire.js";

const INFO = { name: "srv", version: "1" };
const CAPABILITIES = { tools: {} };

/** The `out` step of a one-exchange fixture, annotated: its exact `out` and its `wire` (the `out` when no looser). */
function answerStep(versions: string[], request: Obj, result: Obj): { out: unknown; wire: unknown } {
  const header = { fixture: "server/x/y", role: "server", versions, rules: ["L-03"], config: { info: INFO, capabilities: CAPABILITIES } };
  const steps: Obj[] = [{ in: request }, { out: { jsonrpc: "2.0", id: 0, result } }];
  const { steps: annotated } = annotate(header, steps, new Map());
  const step = annotated.find((s) => "out" in s) as { out: unknown; wire?: unknown };
  return { out: step.out, wire: step.wire ?? step.out };
}

const bound = (): Map<string, unknown> =>
  new Map<string, unknown>([
    ["serverInfo", INFO],
    ["capabilities", CAPABILITIES],
  ]);

/** `expected` with the fixture's `$version` in place, as the runner substitutes it. */
const at = (expected: unknown, version: string): unknown =>
  JSON.parse(JSON.stringify(expected).replaceAll('"$version"', JSON.stringify(version)));

test("L-03: an initialize result with a member the schema does not name (tmcp's adapter) passes the wire form; named members are still judged", () => {
  const version = "2025-11-25";
  const initialize = {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "$version", capabilities: {}, clientInfo: INFO },
  };
  const { out, wire } = answerStep([version], initialize, { protocolVersion: "$version", capabilities: CAPABILITIES, serverInfo: INFO });
  const answer = { jsonrpc: "2.0", id: 0, result: { protocolVersion: version, capabilities: CAPABILITIES, serverInfo: INFO, adapter: {} } };
  assert.equal(compare(at(wire, version), answer, { bindings: bound() }), undefined);
  // Named members: instructions must still be a string, serverInfo must still be there.
  const badInstructions = { ...answer, result: { ...answer.result, instructions: 3 } };
  assert.match(compare(at(wire, version), badInstructions, { bindings: bound() }) ?? "", /result\.instructions: expected string/);
  const { serverInfo: _dropped, ...withoutInfo } = answer.result;
  assert.match(compare(at(wire, version), { ...answer, result: withoutInfo }, { bindings: bound() }) ?? "", /result\.serverInfo/);
  // Only the result is opened: an extra member of the envelope is still refused.
  assert.match(compare(at(wire, version), { ...answer, extra: 1 }, { bindings: bound() }) ?? "", /^extra: unexpected 1/);
  // The engine replayer's exact `out` is untouched: the engine's own answer names no extra member.
  assert.match(compare(at(out, version), answer, { bindings: bound() }) ?? "", /result\.adapter: unexpected \{\}/);
});

test("MOD-07: a server/discover result of the implementation's own identity admits members the schema does not name", () => {
  const discover = { jsonrpc: "2.0", id: 0, method: "server/discover", params: {} };
  // A fresh object each time: the annotator writes the placeholders into the step it is given.
  const result = (): Obj => ({
    resultType: "complete",
    supportedVersions: ["2026-07-28"],
    capabilities: CAPABILITIES,
    ttlMs: 0,
    cacheScope: "public",
  });
  const { wire } = answerStep(["2026-07-28"], discover, result());
  const answer = { jsonrpc: "2.0", id: 0, result: { ...result(), vendor: { x: 1 } } };
  assert.equal(compare(wire, answer, { bindings: bound() }), undefined);
  assert.match(
    compare(wire, { ...answer, result: { ...answer.result, resultType: "x" } }, { bindings: bound() }) ?? "",
    /result\.resultType/,
  );
});
