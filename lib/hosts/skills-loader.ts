// Skills from disk (export "mcp-engine/hosts/skills"): a directory whose subdirectories holding
// a SKILL.md are skills, read into a SkillCatalog (lib/skills/catalog.ts) for serveSkills.
// `skills/git-workflow/SKILL.md` becomes skill://git-workflow/SKILL.md; `skills/acme/billing/
// refunds/SKILL.md` becomes skill://acme/billing/refunds/SKILL.md (the directories above a skill
// are its prefix); a SKILL.md under a skill's directory is a nested skill, its files also the
// enclosing skill's (RULES.md SK-05).
//
// Invariants: symbolic links are not followed (a skill cannot serve a file outside its
// directory) and names beginning with "." are left out (VCS and editor files); sizes are read
// before contents, so a directory past the per-skill bounds (SK-08) is refused before its bytes
// are held; a name the catalog cannot serve is refused by the catalog, naming the rule.

import { lstat, readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { SkillCatalog, type CatalogOptions, type SkillSource } from "../skills/catalog.js";
import { MAX_SKILL_BYTES, MAX_SKILL_FILES, SKILL_FILE } from "../skills/entries.js";

interface FoundFile {
  /** `/`-separated, relative to the directory read. */
  readonly path: string;
  readonly size: number;
}

/** Reads every skill under `directory` into a catalog. Rejects with a RangeError naming the rule for a skill that breaks one. */
export async function loadSkillsDirectory(directory: string, options: CatalogOptions = {}): Promise<SkillCatalog> {
  return new SkillCatalog(await readSkillSources(directory), options);
}

/** The skills under `directory` as SkillSources (the files' bytes read), skill paths in order. */
export async function readSkillSources(directory: string): Promise<SkillSource[]> {
  const found: FoundFile[] = [];
  await walk(directory, "", found);
  const roots = found
    .filter((f) => f.path === SKILL_FILE || f.path.endsWith(`/${SKILL_FILE}`))
    .map((f) => f.path.slice(0, -SKILL_FILE.length - 1));
  if (roots.includes("")) throw new RangeError(`[SK-03] expected skills in subdirectories of ${directory}; got a ${SKILL_FILE} at its top`);
  const sources: SkillSource[] = [];
  const cache = new Map<string, Uint8Array>();
  for (const root of roots.sort()) {
    const mine = found.filter((f) => f.path.startsWith(`${root}/`));
    const bytes = mine.reduce((sum, f) => sum + f.size, 0);
    if (mine.length > MAX_SKILL_FILES)
      throw new RangeError(`[SK-08] expected at most ${MAX_SKILL_FILES} files in skill ${root}; got ${mine.length}`);
    if (bytes > MAX_SKILL_BYTES) throw new RangeError(`[SK-08] expected at most ${MAX_SKILL_BYTES} bytes in skill ${root}; got ${bytes}`);
    const files = [];
    for (const f of mine) {
      let content = cache.get(f.path);
      if (content === undefined) {
        content = await readFile(join(directory, ...f.path.split("/")));
        cache.set(f.path, content);
      }
      files.push({ path: f.path.slice(root.length + 1), content });
    }
    sources.push({ path: root, files });
  }
  return sources;
}

async function walk(base: string, relative: string, out: FoundFile[]): Promise<void> {
  const entries = await readdir(relative === "" ? base : join(base, ...relative.split("/")), { withFileTypes: true });
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith(".") || entry.isSymbolicLink()) continue;
    const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) await walk(base, path, out);
    else if (entry.isFile()) out.push({ path, size: (await lstat(join(base, ...path.split("/")))).size });
  }
}
