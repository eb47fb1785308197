// fixtures/manifest.json and the derived annotations of every fixture match the files
// (spec-tests/tools/corpus-annotate.ts rebuilds both: run it with --write after editing a fixture),
// the changelog names the corpus version, and FORMAT.md documents every config key, step key,
// requirement and event kind the corpus uses.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { listHttpFixtureFiles } from "../../lib/cli/conform/http.js";
import { CORPUS_VERSION, buildCorpus } from "../tools/corpus-annotate.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const built = buildCorpus(root);
const manifest = JSON.parse(readFileSync(join(root, "fixtures", "manifest.json"), "utf8")) as {
  corpus: string;
  profiles: Record<string, unknown>;
  fixtures: {
    id: string;
    transport: "stdio" | "http";
    file: string;
    sha256: string;
    rules: string[];
    levels: Record<string, string>;
    requires: Record<string, unknown>;
    profile: string;
  }[];
};
const format = readFileSync(join(root, "fixtures", "FORMAT.md"), "utf8");

test("every fixture's annotations are up to date (node dist/spec-tests/tools/corpus-annotate.js --write)", () => {
  const stale = [...built.files].filter(([rel, text]) => readFileSync(join(root, rel), "utf8") !== text).map(([rel]) => rel);
  assert.deepEqual(stale, []);
});

test("the manifest is the one the fixtures give, with a checksum per file", () => {
  assert.equal(readFileSync(join(root, "fixtures", "manifest.json"), "utf8"), built.manifest);
  const stdio = manifest.fixtures.filter((entry) => entry.transport === "stdio");
  const http = manifest.fixtures.filter((entry) => entry.transport === "http");
  assert.equal(stdio.length, built.files.size);
  assert.equal(http.length, listHttpFixtureFiles(join(root, "fixtures")).length);
  assert.equal(stdio.length + http.length, manifest.fixtures.length, "every entry names its transport");
  for (const entry of manifest.fixtures) {
    assert.equal(entry.file, `fixtures/${entry.id}.${entry.transport === "stdio" ? "jsonl" : "json"}`, entry.id);
    const text = readFileSync(join(root, entry.file), "utf8");
    assert.equal(createHash("sha256").update(text).digest("hex"), entry.sha256, entry.id);
    assert.deepEqual(Object.keys(entry.levels).sort(), [...entry.rules].sort(), entry.id);
    if (entry.transport === "stdio")
      assert.ok(Object.hasOwn(manifest.profiles, entry.profile), `${entry.id}: profile ${entry.profile} listed`);
  }
});

test("the changelog has an entry for the corpus version", () => {
  assert.equal(manifest.corpus, CORPUS_VERSION);
  assert.match(
    readFileSync(join(root, "fixtures", "CHANGELOG.md"), "utf8"),
    new RegExp(`^## ${CORPUS_VERSION.replace(/\./g, "\\.")}$`, "m"),
  );
});

test("FORMAT.md names every config key, step key, requirement and event kind in use", () => {
  const configKeys = new Set<string>();
  const stepKeys = new Set<string>();
  const requireKeys = new Set<string>();
  const eventKinds = new Set<string>();
  for (const text of built.files.values()) {
    const [header, ...steps] = text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const key of Object.keys((header?.config as object | undefined) ?? {})) configKeys.add(key);
    for (const key of Object.keys((header?.requires as object | undefined) ?? {})) requireKeys.add(key);
    for (const step of steps) {
      for (const key of Object.keys(step)) stepKeys.add(key);
      const event = step.event as { kind?: string } | undefined;
      if (typeof event?.kind === "string") eventKinds.add(event.kind);
    }
  }
  const events = readFileSync(join(root, "lib", "engine", "events.ts"), "utf8");
  for (const match of events.matchAll(/readonly kind: "([a-z-]+)"/g)) eventKinds.add(match[1] as string);
  const missing = [...configKeys, ...stepKeys, ...requireKeys, ...eventKinds].filter((k) => !format.includes(`\`${k}\``));
  assert.deepEqual(missing, []);
});
