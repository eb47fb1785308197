// The skills loader (lib/hosts/skills-loader.ts, "mcp-engine/hosts/skills"): a directory of skills
// on disk becomes a catalog whose skill paths are the directories holding a SKILL.md (SK-03),
// nested skills included (SK-05); links and dotfiles are left out, and bounds and names are
// refused with their rule (SK-08, SK-04).

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { loadSkillsDirectory } from "../../lib/hosts/skills-loader.js";

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "skills-"));
  for (const [path, content] of Object.entries(files)) {
    const parts = path.split("/");
    mkdirSync(join(dir, ...parts.slice(0, -1)), { recursive: true });
    writeFileSync(join(dir, ...parts), content);
  }
  return dir;
}

const md = (name: string): string => `---\nname: ${name}\ndescription: The ${name} skill\n---\n`;

test("SK-03, SK-05: directories holding a SKILL.md are skills at their relative paths, nested ones too; links and dotfiles are left out", async () => {
  const dir = tree({
    "git-workflow/SKILL.md": md("git-workflow"),
    "acme/billing/refunds/SKILL.md": md("refunds"),
    "acme/billing/refunds/examples/email.md": "Dear customer\n",
    "acme/billing/refunds/.hidden": "secret",
    "acme/billing/refunds/inner/SKILL.md": md("inner"),
    "outside.txt": "not a skill file",
  });
  try {
    symlinkSync(join(dir, "outside.txt"), join(dir, "git-workflow", "link.txt"));
    const catalog = await loadSkillsDirectory(dir);
    assert.deepEqual(
      catalog.entries().map((e) => [e.uri, e.resources === "dynamic" ? [] : e.resources.map((r) => r.uri)]),
      [
        [
          "skill://acme/billing/refunds/SKILL.md",
          [
            "skill://acme/billing/refunds/SKILL.md",
            "skill://acme/billing/refunds/examples/email.md",
            "skill://acme/billing/refunds/inner/SKILL.md",
          ],
        ],
        ["skill://acme/billing/refunds/inner/SKILL.md", ["skill://acme/billing/refunds/inner/SKILL.md"]],
        ["skill://git-workflow/SKILL.md", ["skill://git-workflow/SKILL.md"]],
      ],
    );
    assert.equal(catalog.file("skill://acme/billing/refunds/examples/email.md")?.text, "Dear customer\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("SK-08, SK-04, SK-03: too many files, a name that is not a skill name, or a SKILL.md at the top are refused with their rule", async () => {
  const many: Record<string, string> = { "big/SKILL.md": md("big") };
  for (let i = 0; i < 512; i++) many[`big/f${i}.txt`] = "";
  for (const [files, pattern] of [
    [many, /\[SK-08\]/],
    [{ "Bad_Name/SKILL.md": md("Bad_Name") }, /\[SK-04\]/],
    [{ "SKILL.md": md("top") }, /\[SK-03\]/],
  ] as const) {
    const dir = tree(files);
    try {
      await assert.rejects(loadSkillsDirectory(dir), pattern);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});
