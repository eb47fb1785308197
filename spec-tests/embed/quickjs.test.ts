// The core and the peer layer in QuickJS (quickjs-emscripten: ECMAScript alone, no TextEncoder,
// TextDecoder, timers or console), in a fresh context to which nothing is added, with the
// built-ins newer than ES2020 removed first. The bundle is the library as published (dist/),
// bundled by esbuild at ES2020; the scenarios (spec-tests/embed/scenarios.ts) run inside the VM
// and report their transcripts, which must equal Node's: the core in both eras, by values and by
// bytes cut at every kind of boundary, with progress, a cancellation and both deadlines; the
// peer layer's Server and Client in memory on the script's own clock.

import assert from "node:assert/strict";
import { test } from "node:test";
import { quickJsProgram, runQuickJs, scenarioScript, transcripts } from "./engines.js";
import { assertSameAsNode } from "./expect.js";

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
