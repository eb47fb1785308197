// What every engine's run of the embedding scenarios must show: the transcripts Node gives for
// the same scenarios (computed here, in this process), every error class intact, and no Web API
// in the engine (so the run proves the core needs none). Not a test file itself.

import assert from "node:assert/strict";
import { LINKS, coreSession, peerSession } from "./scenarios.js";
import type { Transcripts } from "./engines.js";

/** Node's transcripts, the reference: the core by values in each era, the peer layer in each era. */
export async function reference(): Promise<{ core: { [era: string]: string[] }; peer: { [era: string]: string[] } }> {
  return {
    core: { session: coreSession("session", "values"), modern: coreSession("modern", "values") },
    peer: { session: await peerSession("session"), modern: await peerSession("modern") },
  };
}

export async function assertSameAsNode(got: Transcripts): Promise<void> {
  const want = await reference();
  assert.equal(got.probe.TextEncoder, "undefined", "the engine has no TextEncoder: the run proves the built-in codec");
  assert.equal(got.probe.TextDecoder, "undefined");
  assert.equal(got.probe.hasOwn, "undefined", "Object.hasOwn was removed (the ES2020 floor)");
  assert.deepEqual(
    got.identity.filter((line) => !line.endsWith(": ok")),
    [],
    "every error class keeps its name and instanceof",
  );
  assert.equal(got.identity.length, 14);
  for (const era of ["session", "modern"]) {
    const expected = want.core[era] as string[];
    assert.ok(
      expected.some((line) => line.endsWith("timeout tools/call inactivity")) &&
        expected.some((line) => line.endsWith("timeout tools/call total")),
    );
    for (const link of LINKS) assert.deepEqual(got.core[`${era} ${link}`], expected, `core, ${era} era, ${link}`);
    assert.deepEqual(got.peer[era as "session" | "modern"], want.peer[era], `peer layer, ${era} era`);
  }
}
