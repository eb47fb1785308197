// The skills extension served by a Server (lib/peer/server/skills.ts over lib/skills/catalog.ts),
// in both eras, through an in-memory Client: the server's declaration alone gates the methods
// (SK-01), listings page whole entries (SK-02), entries are complete with digests and sizes
// (SK-05, SK-07), skills/get answers any served skill and -32602 otherwise (SK-09),
// resources/directory/read lists direct children (SK-10), 2026-07-28 results carry the cache
// attributes (SK-11), and a catalog refuses skills that break the format (SK-03, SK-04, SK-06, SK-08).

import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { Paginator, ProtocolMisuseError, Server, type Extensions } from "../../lib/peer/index.js";
import {
  DIRECTORY_READ,
  SKILLS_EXTENSION,
  SKILLS_GET,
  SKILLS_LIST,
  SkillCatalog,
  serveSkills,
  skillsExtension,
  type SkillEntry,
  type SkillResource,
  type SkillSource,
} from "../../lib/peer/skills.js";
import type { JsonObject } from "../../lib/index.js";
import { Pair, SECRET, SERVER_INFO } from "../support/peer-harness.js";
import { mcpError, rejection } from "../support/helpers.js";

const SKILLS: SkillSource[] = [
  {
    path: "git-workflow",
    files: [{ path: "SKILL.md", content: "---\nname: git-workflow\ndescription: Team Git conventions\n---\n\nBranch from main.\n" }],
  },
  {
    path: "acme/billing/refunds",
    files: [
      {
        path: "SKILL.md",
        content: '---\nname: refunds\ndescription: Process refunds\nmetadata:\n  version: "2.1.0"\n---\nBody\n',
      },
      { path: "examples/email.md", content: "Dear customer\n" },
      { path: "templates/regional/eu.md", content: "EU\n" },
      { path: "bin/tool", content: new Uint8Array([0xff, 0x00, 0x01]) },
    ],
  },
];

/** A client's table entry for the methods, with no declaration of its own (the server's gates them). */
const CALLER: Extensions = {
  [SKILLS_EXTENSION]: { requests: [SKILLS_LIST, SKILLS_GET, DIRECTORY_READ], gatedBy: "server", declare: false },
};

async function pairOf(
  era: "session" | "modern",
  options: { pageSize?: number; declare?: boolean; skills?: SkillSource[] } = {},
): Promise<Pair> {
  const versions = era === "modern" ? (["2026-07-28"] as const) : (["2025-11-25"] as const);
  const server = new Server({
    info: SERVER_INFO,
    paging: options.pageSize === undefined ? undefined : new Paginator({ secret: SECRET, pageSize: options.pageSize }),
    versions,
    extensions: options.declare === false ? undefined : skillsExtension(),
  });
  if (options.declare !== false) serveSkills(server, options.skills ?? SKILLS, { ttlMs: 5000, cacheScope: "public" });
  else server.resource("test://x", { name: "x" }, (uri) => ({ contents: [{ uri, text: "x" }] }));
  const pair = new Pair({ serverInstance: server, client: { versions, extensions: CALLER } });
  await pair.connect();
  return pair;
}

async function call(pair: Pair, method: string, params: JsonObject = {}): Promise<JsonObject> {
  const result = pair.client.request(method, params);
  await pair.settle();
  return result;
}

const sha = (bytes: Uint8Array | string): string => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

for (const era of ["session", "modern"] as const) {
  test(`SK-01: ${era} era: a client that declared nothing calls skills/list on the server's declaration alone`, async () => {
    const pair = await pairOf(era);
    const caps = pair.client.server?.capabilities as JsonObject;
    assert.deepEqual((caps.extensions as JsonObject)[SKILLS_EXTENSION], { directoryRead: true });
    const result = await call(pair, SKILLS_LIST);
    assert.deepEqual(
      (result.skills as SkillEntry[]).map((s) => s.uri),
      ["skill://acme/billing/refunds/SKILL.md", "skill://git-workflow/SKILL.md"],
    );
    // The request declared nothing (declare: false): under 2026-07-28 its clientCapabilities do not name the extension.
    const sent = pair.clientHost.messages("skills/list");
    assert.equal(sent.length, 1);
    assert.ok(!JSON.stringify(sent[0]).includes(SKILLS_EXTENSION));
  });

  test(`SK-01: ${era} era: a server that did not declare the extension is not asked (ProtocolMisuseError SK-01, nothing sent)`, async () => {
    const pair = await pairOf(era, { declare: false });
    const error = await rejection(pair.client.request(SKILLS_LIST, {}));
    assert.ok(error instanceof ProtocolMisuseError && error.rule === "SK-01", String(error));
    assert.equal(pair.clientHost.messages(SKILLS_LIST).length, 0);
  });

  test(`SK-05, SK-07: ${era} era: each entry lists every file once, the SKILL.md first, with the SHA-256 and length of its bytes`, async () => {
    const pair = await pairOf(era);
    const [refunds] = (await call(pair, SKILLS_LIST)).skills as SkillEntry[];
    assert.ok(refunds !== undefined && refunds.resources !== "dynamic");
    assert.deepEqual(refunds.frontmatter, { name: "refunds", description: "Process refunds", metadata: { version: "2.1.0" } });
    const files = (SKILLS[1] as SkillSource).files;
    assert.deepEqual(
      refunds.resources.map((r) => r.uri),
      [
        "skill://acme/billing/refunds/SKILL.md",
        "skill://acme/billing/refunds/bin/tool",
        "skill://acme/billing/refunds/examples/email.md",
        "skill://acme/billing/refunds/templates/regional/eu.md",
      ],
    );
    for (const file of files) {
      const listed: SkillResource | undefined = refunds.resources.find((r) => r.uri === `skill://acme/billing/refunds/${file.path}`);
      const bytes: Uint8Array = typeof file.content === "string" ? new TextEncoder().encode(file.content) : file.content;
      assert.deepEqual(listed && { digest: listed.digest, size: listed.size }, { digest: sha(bytes), size: bytes.length });
    }
    // Bytes that are not UTF-8 are read back as a blob of the same bytes.
    const read = await pair.client.readResource("skill://acme/billing/refunds/bin/tool");
    assert.equal((read.contents[0] as { blob?: string }).blob, "/wAB");
  });

  test(`SK-09: ${era} era: skills/get answers the listed entry, and -32602 for a URI that is no skill`, async () => {
    const pair = await pairOf(era);
    const listed = ((await call(pair, SKILLS_LIST)).skills as SkillEntry[])[1];
    const got = await call(pair, SKILLS_GET, { uri: "skill://git-workflow/SKILL.md" });
    assert.deepEqual(got.skill, listed);
    assert.equal(got.nextCursor, undefined);
    for (const uri of ["skill://nothing/SKILL.md", "skill://git-workflow", 42]) {
      const p = pair.client.request(SKILLS_GET, { uri });
      await pair.settle();
      await mcpError(p, -32602);
    }
  });

  test(`SK-10: ${era} era: resources/directory/read lists direct children, subdirectories as inode/directory; a file is -32602`, async () => {
    const pair = await pairOf(era);
    const root = await call(pair, DIRECTORY_READ, { uri: "skill://acme/billing/refunds" });
    assert.deepEqual(
      (root.resources as JsonObject[]).map((r) => [r.uri, r.mimeType]),
      [
        ["skill://acme/billing/refunds/SKILL.md", "text/markdown"],
        ["skill://acme/billing/refunds/bin", "inode/directory"],
        ["skill://acme/billing/refunds/examples", "inode/directory"],
        ["skill://acme/billing/refunds/templates", "inode/directory"],
      ],
    );
    const prefix = await call(pair, DIRECTORY_READ, { uri: "skill://acme/billing" });
    assert.deepEqual(prefix.resources, [{ uri: "skill://acme/billing/refunds", name: "refunds", mimeType: "inode/directory" }]);
    const p = pair.client.request(DIRECTORY_READ, { uri: "skill://acme/billing/refunds/SKILL.md" });
    await pair.settle();
    await mcpError(p, -32602);
    // The SKILL.md resource carries its skill's name and description.
    const listed = (await pair.client.listResources()).find((r) => r.uri === "skill://git-workflow/SKILL.md");
    assert.deepEqual(listed && [listed.name, listed.description, listed.mimeType], [
      "git-workflow",
      "Team Git conventions",
      "text/markdown",
    ]);
  });

  test(`SK-02: ${era} era: with pages of one, each page holds whole entries and the cursor round-trips; a forged cursor is -32602`, async () => {
    const pair = await pairOf(era, { pageSize: 1 });
    const first = await call(pair, SKILLS_LIST);
    assert.equal((first.skills as SkillEntry[]).length, 1);
    assert.equal(typeof first.nextCursor, "string");
    const second = await call(pair, SKILLS_LIST, { cursor: first.nextCursor as string });
    assert.deepEqual(
      (second.skills as SkillEntry[]).map((s) => [s.uri, s.resources.length]),
      [["skill://git-workflow/SKILL.md", 1]],
    );
    assert.equal(second.nextCursor, undefined);
    const p = pair.client.request(SKILLS_LIST, { cursor: "forged" });
    await pair.settle();
    await mcpError(p, -32602);
  });

  test(`SK-11: ${era} era: skills/list and skills/get carry ttlMs and cacheScope under 2026-07-28 only`, async () => {
    const pair = await pairOf(era);
    const listed = await call(pair, SKILLS_LIST);
    const got = await call(pair, SKILLS_GET, { uri: "skill://git-workflow/SKILL.md" });
    const expected = era === "modern" ? [5000, "public"] : [undefined, undefined];
    assert.deepEqual([listed.ttlMs, listed.cacheScope], expected);
    assert.deepEqual([got.ttlMs, got.cacheScope], expected);
  });
}

test("SK-05: a nested skill is listed on its own, and its files are also the enclosing skill's", () => {
  const catalog = new SkillCatalog([
    { path: "outer", files: [{ path: "SKILL.md", content: "---\nname: outer\ndescription: d\n---\n" }] },
    { path: "outer/inner", files: [{ path: "SKILL.md", content: "---\nname: inner\ndescription: e\n---\n" }] },
  ]);
  assert.deepEqual(
    catalog.entries().map((e) => [e.uri, e.resources === "dynamic" ? [] : e.resources.map((r) => r.uri)]),
    [
      ["skill://outer/SKILL.md", ["skill://outer/SKILL.md", "skill://outer/inner/SKILL.md"]],
      ["skill://outer/inner/SKILL.md", ["skill://outer/inner/SKILL.md"]],
    ],
  );
});

test("SK-01: serveSkills refuses a server built without skillsExtension()", () => {
  const server = new Server({ info: SERVER_INFO });
  assert.throws(() => serveSkills(server, SKILLS), /\[SK-01\]/);
});

test("SK-03, SK-04, SK-05, SK-06, SK-08: a catalog refuses skills that break the format, naming the rule", () => {
  const skill = (path: string, content: string, more: SkillSource["files"] = []): SkillSource => ({
    path,
    files: [{ path: "SKILL.md", content }, ...more],
  });
  const ok = "---\nname: ok\ndescription: fine\n---\n";
  const cases: [SkillSource[], RegExp][] = [
    [[skill("a/../ok", ok)], /\[SK-03\]/],
    [[skill("", ok)], /\[SK-03\]/],
    [[skill("ok", ok, [{ path: "a b.md", content: "x" }])], /\[SK-03\]/],
    [[skill("Bad--Name", ok)], /\[SK-04\]/],
    [[skill("other", ok)], /\[SK-04\].*frontmatter name/],
    [[{ path: "ok", files: [{ path: "README.md", content: "x" }] }], /\[SK-06\]/],
    [[skill("ok", "no frontmatter")], /\[SK-06\]/],
    [[skill("ok", "---\nname: ok\n---\n")], /\[SK-06\].*description/],
    [[skill("ok", "---\nname: ok\ndescription: d\nx: &a 1\n---\n")], /\[SK-06\].*anchor/],
    [
      [
        skill(
          "ok",
          ok,
          Array.from({ length: 512 }, (_, i) => ({ path: `f${i}.txt`, content: "" })),
        ),
      ],
      /\[SK-08\].*512/,
    ],
    [[skill("ok", ok), skill("ok", ok)], /\[SK-03\].*one skill/],
    [
      [
        {
          path: "outer",
          files: [
            { path: "SKILL.md", content: "---\nname: outer\ndescription: d\n---\n" },
            { path: "ok/x.md", content: "1" },
          ],
        },
        skill("outer/ok", ok, [{ path: "x.md", content: "2" }]),
      ],
      /\[SK-05\]/,
    ],
  ];
  for (const [sources, pattern] of cases) assert.throws(() => new SkillCatalog(sources), pattern, JSON.stringify(sources).slice(0, 80));
});
