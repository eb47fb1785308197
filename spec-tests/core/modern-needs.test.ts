// MOD-02: the client capabilities a 2026-07-28 input request needs come from the method table (the
// request's row and the parameter gates its params trip), the same columns that gate those requests
// in the session era, so the two eras cannot disagree about what sampling, elicitation or roots need.

import assert from "node:assert/strict";
import { test } from "node:test";
import { capabilityMask } from "../../lib/rules/capabilities.js";
import type { JsonObject } from "../../lib/wire/envelope.js";
import { inputRequiredProblem, type ModernRequestInfo } from "../../lib/rules/modern.js";

function info(clientCapabilities: JsonObject): ModernRequestInfo {
  return {
    version: "2026-07-28",
    clientCapabilities,
    clientInfo: undefined,
    logLevel: undefined,
    capabilityMask: capabilityMask(clientCapabilities),
  };
}

/** What inputRequiredProblem says of a tools/call asking for one input request. */
function problemOf(request: unknown, caps: JsonObject): { rule: string; missing: JsonObject | undefined } | undefined {
  const problem = inputRequiredProblem("tools/call", { resultType: "input_required", inputRequests: { ask: request } }, info(caps));
  return problem === undefined ? undefined : { rule: problem.rule, missing: problem.missing };
}

const SAMPLE = { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 10 };

test("MOD-02, C-06: a sampling input request with includeContext other than none needs sampling.context, as in the session era", () => {
  const request = { method: "sampling/createMessage", params: { ...SAMPLE, includeContext: "thisServer" } };
  assert.deepEqual(problemOf(request, { sampling: {} }), { rule: "MOD-02", missing: { sampling: { context: {} } } });
  assert.equal(problemOf(request, { sampling: { context: {} } }), undefined);
  assert.equal(problemOf({ method: "sampling/createMessage", params: { ...SAMPLE, includeContext: "none" } }, { sampling: {} }), undefined);
});

test("MOD-02, C-06: sampling with tools needs sampling.tools; plain sampling needs sampling", () => {
  assert.deepEqual(problemOf({ method: "sampling/createMessage", params: { ...SAMPLE, tools: [] } }, { sampling: {} }), {
    rule: "MOD-02",
    missing: { sampling: { tools: {} } },
  });
  assert.deepEqual(problemOf({ method: "sampling/createMessage", params: SAMPLE }, {}), { rule: "MOD-02", missing: { sampling: {} } });
  assert.equal(problemOf({ method: "sampling/createMessage", params: { ...SAMPLE, tools: [] } }, { sampling: { tools: {} } }), undefined);
});

test("MOD-02, C-07: elicitation needs the mode it uses (elicitation: {} is form only); roots need roots", () => {
  const url = { method: "elicitation/create", params: { mode: "url", message: "go", url: "https://example.com", elicitationId: "e1" } };
  const form = { method: "elicitation/create", params: { message: "name?", requestedSchema: { type: "object", properties: {} } } };
  assert.deepEqual(problemOf(url, { elicitation: {} }), { rule: "MOD-02", missing: { elicitation: { url: {} } } });
  assert.equal(problemOf(url, { elicitation: { url: {} } }), undefined);
  assert.equal(problemOf(form, { elicitation: {} }), undefined);
  assert.deepEqual(problemOf(form, { elicitation: { url: {} } }), { rule: "MOD-02", missing: { elicitation: { form: {} } } });
  assert.deepEqual(problemOf({ method: "roots/list" }, { sampling: {} }), { rule: "MOD-02", missing: { roots: {} } });
  assert.equal(problemOf({ method: "roots/list" }, { roots: {} }), undefined);
});

test("MOD-02: missing capabilities of several input requests are merged into one requiredCapabilities object", () => {
  const problem = inputRequiredProblem(
    "tools/call",
    {
      resultType: "input_required",
      inputRequests: { a: { method: "roots/list" }, b: { method: "sampling/createMessage", params: { ...SAMPLE, tools: [] } } },
    },
    info({}),
  );
  assert.deepEqual(problem?.missing, { roots: {}, sampling: { tools: {} } });
});

test("MOD-10: an input request of another method (ping, tools/call, an unknown one) is refused, naming the methods that may be asked", () => {
  for (const method of ["ping", "tools/call", "x/unknown"]) {
    const problem = inputRequiredProblem(
      "tools/call",
      { resultType: "input_required", inputRequests: { ask: { method } } },
      info({ sampling: {}, roots: {} }),
    );
    assert.equal(problem?.rule, "MOD-10");
    assert.match(problem?.expected ?? "", /sampling\/createMessage/);
    assert.match(problem?.expected ?? "", /roots\/list/);
    assert.match(problem?.expected ?? "", /elicitation\/create/);
  }
});
