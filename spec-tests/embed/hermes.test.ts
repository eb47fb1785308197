// The core and the peer layer in Hermes 0.12 (hermes-engine-cli: no classes, `let`/`const`
// scoped like `var`, no TextEncoder/TextDecoder). The bundle is the library as published,
// bundled by esbuild at ES2020, then lowered to ES5 classes and block scoping the way
// TypeScript's ES5 emit did (spec-tests/tools/lower-es5.ts; TypeScript 7 no longer emits ES5),
// with the built-ins newer than ES2020 removed first; no polyfill. The scenarios run inside
// Hermes and print their transcripts, which must equal Node's.

import assert from "node:assert/strict";
import { test } from "node:test";
import { hermesProgram, runHermes, scenarioScript, transcripts } from "./engines.js";
import { assertSameAsNode } from "./expect.js";

test("Hermes: the ES5 down-level of the core and the peer layer runs with the same transcripts as Node", async () => {
  const got = transcripts(runHermes(hermesProgram(scenarioScript({ es5: true }))));
  await assertSameAsNode(got);
});

test("Hermes: a codec made at load time, put back, fails the run while loading (the failure this guards against)", () => {
  const report = runHermes(
    hermesProgram(scenarioScript({ es5: true, banner: 'const loadTimeCodec = new TextDecoder("utf-8", { fatal: true });' })),
  );
  assert.match(report, /^ERROR exit 1: .*Property 'TextDecoder' doesn't exist/s);
});
