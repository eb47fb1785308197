// `skillsClient(client)` (lib/peer/client/skills-client.ts over lib/skills/verify.ts): a host lists and
// gets entries without reading any file and loads a skill's files only when asked (SK-13), and
// returns nothing it could not verify against the entry: size, digest, the SKILL.md's
// frontmatter field by field, a file the entry does not list (SK-12, SK-13). The servers here are
// real Servers; the tampering ones answer skills/list with an entry their files do not match.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { InvalidResultError, Server } from "../../lib/peer/index.js";
import {
  SKILLS_GET,
  SKILLS_LIST,
  SkillVerificationError,
  serveSkills,
  skillsExtension,
  skillsClient,
  type SkillEntry,
  type SkillSource,
} from "../../lib/peer/skills.js";
import type { JsonObject } from "../../lib/index.js";
import { Pair, SERVER_INFO } from "../support/peer-harness.js";
import { rejection } from "../support/helpers.js";

const SKILL_MD = "---\nname: pdf\ndescription: Work with PDFs\n---\n\nBody.\n";
const FORMS = "Forms guide\n";
const NESTED = "---\nname: inner\ndescription: Nested\nallowed-tools: Bash\n---\n";
const SKILLS: SkillSource[] = [
  {
    path: "pdf",
    files: [
      { path: "SKILL.md", content: SKILL_MD },
      { path: "references/FORMS.md", content: FORMS },
      { path: "bin/data", content: new Uint8Array([0xfe, 0xff]) },
      { path: "inner/SKILL.md", content: NESTED },
    ],
  },
];

const sha = (text: string): string => `sha256:${createHash("sha256").update(text).digest("hex")}`;
const size = (text: string): number => new TextEncoder().encode(text).length;

async function pairServing(skills: SkillSource[]): Promise<Pair> {
  const server = new Server({ info: SERVER_INFO, versions: ["2026-07-28"], extensions: skillsExtension() });
  serveSkills(server, skills);
  const pair = new Pair({ serverInstance: server, client: { versions: ["2026-07-28"] } });
  await pair.connect();
  return pair;
}

/** A server whose listing promises `entry` while resources/read serves `files` (uri to text). */
async function tampering(entry: JsonObject, files: Record<string, string>): Promise<Pair> {
  const server = new Server({ info: SERVER_INFO, versions: ["2025-11-25"], extensions: skillsExtension({ directoryRead: false }) });
  server.setRequestHandler(SKILLS_LIST, () => ({ skills: [entry] }));
  server.setRequestHandler(SKILLS_GET, () => ({ skill: entry }));
  for (const [uri, text] of Object.entries(files)) server.resource(uri, { name: uri }, () => ({ contents: [{ uri, text }] }));
  const pair = new Pair({ serverInstance: server, client: { versions: ["2025-11-25"] } });
  await pair.connect();
  return pair;
}

const ENTRY = {
  uri: "skill://pdf/SKILL.md",
  frontmatter: { name: "pdf", description: "Work with PDFs" },
  resources: [
    { uri: "skill://pdf/SKILL.md", digest: sha(SKILL_MD), size: size(SKILL_MD) },
    { uri: "skill://pdf/references/FORMS.md", digest: sha(FORMS), size: size(FORMS) },
  ],
};

async function settled<T>(pair: Pair, promise: Promise<T>): Promise<T> {
  await pair.settle();
  return promise;
}

const reads = (pair: Pair): unknown[] => pair.clientHost.messages("resources/read").map((m) => (m.params as JsonObject).uri);

test("SK-13: listing and getting read no file; load reads the SKILL.md alone; readFile reads one file when asked", async () => {
  const pair = await pairServing(SKILLS);
  const [entry] = await settled(pair, skillsClient(pair.client).list());
  assert.ok(entry !== undefined);
  await settled(pair, skillsClient(pair.client).get("skill://pdf/SKILL.md"));
  assert.deepEqual(reads(pair), []);
  const skill = await settled(pair, skillsClient(pair.client).load(entry));
  assert.deepEqual(reads(pair), ["skill://pdf/SKILL.md"]);
  assert.deepEqual({ ...skill.frontmatter }, { name: "pdf", description: "Work with PDFs" });
  assert.equal(skill.body, "\nBody.\n");
  assert.equal(skill.root, "skill://pdf");
  const forms = await settled(pair, skill.readFile("references/FORMS.md"));
  assert.equal(forms.text, FORMS);
  assert.deepEqual(reads(pair), ["skill://pdf/SKILL.md", "skill://pdf/references/FORMS.md"]);
  // A blob is verified on its raw bytes.
  assert.deepEqual([...(await settled(pair, skill.readFile("skill://pdf/bin/data"))).bytes], [0xfe, 0xff]);
});

test('SK-12: load with files "all" reads and verifies every listed file; a nested SKILL.md is plain content of the enclosing skill', async () => {
  const pair = await pairServing(SKILLS);
  const skill = await settled(pair, skillsClient(pair.client).load("skill://pdf/SKILL.md", { files: "all" }));
  assert.deepEqual([...skill.files.keys()].sort(), [
    "skill://pdf/SKILL.md",
    "skill://pdf/bin/data",
    "skill://pdf/inner/SKILL.md",
    "skill://pdf/references/FORMS.md",
  ]);
  // The nested skill's SKILL.md is a verified file like any other: its frontmatter is not read, nothing is loaded for it.
  assert.equal(skill.files.get("skill://pdf/inner/SKILL.md")?.text, NESTED);
  assert.deepEqual({ ...skill.frontmatter }, { name: "pdf", description: "Work with PDFs" });
});

test("SK-12: a SKILL.md whose bytes do not match the digest, or whose length does not match the size, is refused and not returned", async () => {
  for (const [served, check] of [
    [SKILL_MD.replace("Body.", "Evil."), "digest"],
    [`${SKILL_MD}extra`, "size"],
  ] as const) {
    const pair = await tampering(ENTRY, { "skill://pdf/SKILL.md": served, "skill://pdf/references/FORMS.md": FORMS });
    const [entry] = await settled(pair, skillsClient(pair.client).list());
    const error = await rejection(settled(pair, skillsClient(pair.client).load(entry as SkillEntry, { files: "all" })));
    assert.ok(error instanceof SkillVerificationError && error.check === check && error.rule === "SK-12", String(error));
    assert.equal(error.uri, "skill://pdf/SKILL.md");
    // Nothing after the failed file was read.
    assert.deepEqual(reads(pair), ["skill://pdf/SKILL.md"]);
  }
});

test("SK-12: a SKILL.md whose frontmatter differs from the entry's is refused, even when digest and size match it", async () => {
  const tampered = SKILL_MD.replace("Work with PDFs", "Exfiltrate credentials");
  const entry = { ...ENTRY, resources: [{ uri: "skill://pdf/SKILL.md", digest: sha(tampered), size: size(tampered) }] };
  const pair = await tampering(entry, { "skill://pdf/SKILL.md": tampered });
  const error = await rejection(settled(pair, skillsClient(pair.client).load("skill://pdf/SKILL.md")));
  assert.ok(error instanceof SkillVerificationError && error.check === "frontmatter", String(error));
  assert.match(error.expected, /description: "Work with PDFs"/);
  // A frontmatter our reader refuses is refused too.
  const unreadable = "---\nname: pdf\ndescription: &a x\n---\n";
  const refused = await tampering(
    { ...entry, resources: [{ uri: "skill://pdf/SKILL.md", digest: sha(unreadable), size: size(unreadable) }] },
    { "skill://pdf/SKILL.md": unreadable },
  );
  const second = await rejection(settled(refused, skillsClient(refused.client).load("skill://pdf/SKILL.md")));
  assert.ok(second instanceof SkillVerificationError && second.check === "frontmatter" && /anchor/.test(second.got), String(second));
});

test("SK-13: a file the entry does not list is refused without a request; SK-12: a supporting file that fails is refused", async () => {
  const pair = await tampering(ENTRY, { "skill://pdf/SKILL.md": SKILL_MD, "skill://pdf/references/FORMS.md": "changed\n" });
  const skill = await settled(pair, skillsClient(pair.client).load("skill://pdf/SKILL.md"));
  const unlisted = await rejection(settled(pair, skill.readFile("scripts/run.sh")));
  assert.ok(unlisted instanceof SkillVerificationError && unlisted.check === "unlisted" && unlisted.rule === "SK-13", String(unlisted));
  assert.deepEqual(reads(pair), ["skill://pdf/SKILL.md"]);
  const changed = await rejection(settled(pair, skill.readFile("references/FORMS.md")));
  assert.ok(changed instanceof SkillVerificationError && changed.check === "size", String(changed));
  assert.equal(skill.files.has("skill://pdf/references/FORMS.md"), false);
});

test("SK-12: a dynamic skill is not loaded; malformed entries and a get answering another skill are InvalidResultError", async () => {
  const dynamic = await tampering({ ...ENTRY, resources: "dynamic" }, {});
  const [entry] = await settled(dynamic, skillsClient(dynamic.client).list());
  const refused = await rejection(settled(dynamic, skillsClient(dynamic.client).load(entry as SkillEntry)));
  assert.ok(refused instanceof SkillVerificationError && refused.check === "dynamic", String(refused));
  for (const bad of [
    { ...ENTRY, frontmatter: { name: "other", description: "d" } },
    { ...ENTRY, resources: [{ uri: "skill://elsewhere/x", digest: sha(""), size: 0 }] },
    { ...ENTRY, resources: [{ uri: "skill://pdf/SKILL.md", digest: "sha256:ABC", size: 1 }] },
    { ...ENTRY, resources: [{ uri: "skill://pdf/SKILL.md", digest: sha(""), size: -1 }] },
    { ...ENTRY, resources: [] },
    { ...ENTRY, uri: "skill://pdf/README.md" },
  ]) {
    const pair = await tampering(bad, {});
    const error = await rejection(settled(pair, skillsClient(pair.client).list()));
    assert.ok(error instanceof InvalidResultError, `${JSON.stringify(bad).slice(0, 120)}: ${String(error)}`);
  }
  const pair = await tampering(ENTRY, {});
  const other = await rejection(settled(pair, skillsClient(pair.client).get("skill://other/SKILL.md")));
  assert.ok(other instanceof InvalidResultError && other.path === "skill.uri", String(other));
});

test("SK-02: a listing that repeats its cursor is refused rather than followed forever", async () => {
  const server = new Server({ info: SERVER_INFO, versions: ["2025-11-25"], extensions: skillsExtension() });
  server.setRequestHandler(SKILLS_LIST, () => ({ skills: [], nextCursor: "again" }));
  const pair = new Pair({ serverInstance: server, client: { versions: ["2025-11-25"] } });
  await pair.connect();
  const error = await rejection(settled(pair, skillsClient(pair.client).list()));
  assert.ok(error instanceof InvalidResultError && error.path === "nextCursor", String(error));
  assert.equal(pair.clientHost.messages(SKILLS_LIST).length, 2);
});

test("SK-01: skillsClient(client).settings is the server's declaration; without one, list() is refused before anything is sent", async () => {
  const pair = await pairServing(SKILLS);
  assert.deepEqual(skillsClient(pair.client).settings, { directoryRead: true });
  const children = await settled(pair, skillsClient(pair.client).readDirectory("skill://pdf"));
  assert.deepEqual(
    children.map((c) => c.uri),
    ["skill://pdf/SKILL.md", "skill://pdf/bin", "skill://pdf/inner", "skill://pdf/references"],
  );
  const plain = new Pair({ client: { versions: ["2025-11-25"] } });
  await plain.connect();
  assert.equal(skillsClient(plain.client).settings, undefined);
  const error = await rejection(skillsClient(plain.client).list());
  assert.ok(error instanceof Error && /SK-01/.test(error.message), String(error));
  assert.equal(plain.clientHost.messages(SKILLS_LIST).length, 0);
});
