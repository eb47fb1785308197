// The core and the peer layer in QuickJS (quickjs-emscripten: ECMAScript alone, no TextEncoder,
// TextDecoder, timers or console), in a fresh context to which nothing is added, with the
// built-ins newer than ES2020 removed first. The bundle is the library as published (dist/),
// bundled by esbuild at ES2020; the scenarios (spec-tests/embed/scenarios.ts) run inside the VM
// and report their transcripts, which must equal Node's: the core in both eras, by values and by
// bytes cut at every kind of boundary, with progress, a cancellation and both deadlines; the
// peer layer's Server and Client in memory on the script's own clock.
// The layers above the core (SSE, header values, body reads, the HTTP handler, JWT, DPoP) run
// their UTF-8 steps there too (spec-tests/embed/layer-scenarios.ts).

import assert from "node:assert/strict";
import { test } from "node:test";
import { LAYER_SCENARIOS, REMOVE_NEWER_BUILTINS, quickJsProgram, runQuickJs, scenarioScript, transcripts } from "./engines.js";
import { assertSameAsNode } from "./expect.js";
import { layersProbe } from "./layer-scenarios.js";

test("QuickJS: the core and the peer layer load and run with no global beyond ES2020, with the same transcripts as Node", async () => {
  const got = transcripts(await runQuickJs(quickJsProgram(scenarioScript())));
  assert.ok(got.removed.includes("Object.hasOwn") && got.removed.includes("String.prototype.replaceAll"), got.removed.join(", "));
  await assertSameAsNode(got);
});

test("QuickJS: the values path touches no codec, and a codec the host has is the one used for bytes", async () => {
  const poisoned = `"use strict";
globalThis.TextDecoder = function () { throw new Error("TextDecoder touched"); };
globalThis.TextEncoder = function () { throw new Error("TextEncoder touched"); };
${scenarioScript()}
var out = [McpEmbed.coreSession("session", "values").length, McpEmbed.coreSession("modern", "values").length];
try { McpEmbed.coreSession("session", "whole"); out.push("bytes ran"); } catch (e) { out.push(String(e.message)); }
globalThis.__reported = JSON.stringify(out);`;
  const [session, modern, bytes] = JSON.parse(await runQuickJs(poisoned)) as [number, number, string];
  assert.ok(session > 20 && modern > 20, "both eras ran by values");
  assert.match(bytes, /Text(En|De)coder touched/);
});

test("QuickJS: a codec made at load time, put back, fails the run while loading (the failure this guards against)", async () => {
  const report = await runQuickJs(
    quickJsProgram(scenarioScript({ banner: 'const loadTimeCodec = new TextDecoder("utf-8", { fatal: true });' })),
  );
  assert.match(report, /^ERROR ReferenceError: '?TextDecoder'? is not defined/);
});

test("QuickJS: the SSE parser, header values, body reads, the HTTP handler's UTF-8 check, JWT and DPoP decode and encode as in Node, with no codec", async () => {
  const program = `"use strict";
var removedBuiltins = ${REMOVE_NEWER_BUILTINS};
${scenarioScript({ entry: LAYER_SCENARIOS })}
globalThis.__reported = "ERROR nothing reported";
McpEmbed.layersProbe().then(
  function (log) { globalThis.__reported = JSON.stringify({ codec: typeof TextDecoder + " " + typeof TextEncoder, log: log }); },
  function (e) { globalThis.__reported = "ERROR " + (e && e.stack || e); });`;
  const report = await runQuickJs(program);
  assert.ok(!report.startsWith("ERROR"), report);
  const got = JSON.parse(report) as { codec: string; log: string[] };
  assert.equal(got.codec, "undefined undefined", "QuickJS has no codec: the run proves the built-in one");
  const want = await layersProbe();
  assert.ok(
    want.some((line) => line.startsWith('jwt {"ok":true')) && want.some((line) => line.includes('"kind":"not-utf8"')),
    want.join("\n"),
  );
  assert.deepEqual(got.log, want);
});
