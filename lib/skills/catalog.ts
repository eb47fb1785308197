// A server's skills, built from data (RULES.md SK-03, SK-04, SK-05, SK-06, SK-08, SK-10): each skill
// a path (`git-workflow`, `acme/billing/refunds`) and its files with their bytes. The catalog
// checks them once, when built, and holds what the methods answer: the entries of skills/list
// and skills/get (frontmatter, digests, sizes), the files resources/read serves, and the
// directories resources/directory/read lists. Any runtime: no I/O here; lib/hosts/skills-loader.ts
// reads a directory of skills from disk into this shape.
//
// Invariants: a catalog that was built serves only skills that pass the rules (a bad definition
// throws a RangeError naming the rule, at construction, never at a request); a file shared by
// a nested skill and its enclosing skill has one URI and one content, listed in both entries;
// lookups by peer-supplied URIs go through Maps only.

import type { JsonObject } from "../wire/envelope.js";
import { decodeUtf8, encodeUtf8 } from "../wire/utf8.js";
import type { Resource } from "../types/index.js";
import { readFrontmatter } from "./frontmatter.js";
import {
  DIRECTORY_MIME_TYPE,
  MAX_SKILL_BYTES,
  MAX_SKILL_FILES,
  SKILL_FILE,
  digestOf,
  isPlainSegment,
  isSkillName,
  type SkillEntry,
  type SkillResource,
} from "./entries.js";

/** A file of a skill: its path under the skill's directory (`/`-separated) and its content. */
export interface SkillFileSource {
  readonly path: string;
  /** Text (served as UTF-8) or raw bytes. */
  readonly content: string | Uint8Array;
  /** Default: from the file's extension (text/markdown for .md, ...), else application/octet-stream. */
  readonly mimeType?: string;
}

/** A skill: where it sits in the namespace, and its files (a SKILL.md among them). */
export interface SkillSource {
  /** The skill path, e.g. "git-workflow" or "acme/billing/refunds"; its last segment is the skill's name. */
  readonly path: string;
  readonly files: readonly SkillFileSource[];
}

/** A file as served. */
export interface SkillFile {
  readonly uri: string;
  readonly bytes: Uint8Array;
  /** The content as text when it is UTF-8 (served as `text`), else undefined (served as a base64 `blob`). */
  readonly text: string | undefined;
  readonly resource: Resource;
}

export interface CatalogOptions {
  /** The URI scheme. Default "skill". */
  readonly scheme?: string;
}

const MIME_TYPES: ReadonlyMap<string, string> = new Map([
  ["md", "text/markdown"],
  ["markdown", "text/markdown"],
  ["txt", "text/plain"],
  ["py", "text/x-python"],
  ["sh", "text/x-shellscript"],
  ["js", "text/javascript"],
  ["mjs", "text/javascript"],
  ["ts", "text/x-typescript"],
  ["json", "application/json"],
  ["yaml", "application/yaml"],
  ["yml", "application/yaml"],
  ["html", "text/html"],
  ["css", "text/css"],
  ["csv", "text/csv"],
  ["xml", "application/xml"],
  ["svg", "image/svg+xml"],
  ["png", "image/png"],
  ["jpg", "image/jpeg"],
  ["jpeg", "image/jpeg"],
  ["gif", "image/gif"],
  ["pdf", "application/pdf"],
]);

/** The mimeType of a file by its extension. */
export function mimeTypeOf(path: string): string {
  const dot = path.lastIndexOf(".");
  return (dot > path.lastIndexOf("/") && MIME_TYPES.get(path.slice(dot + 1).toLowerCase())) || "application/octet-stream";
}

const BOM = [0xef, 0xbb, 0xbf];

/** The text of bytes that round-trip through UTF-8 exactly (so a client's digest of the text matches), else undefined. */
function textOf(bytes: Uint8Array): string | undefined {
  if (bytes.length >= 3 && BOM.every((b, i) => bytes[i] === b)) return undefined;
  try {
    return decodeUtf8(bytes, true);
  } catch {
    return undefined;
  }
}

/** A server's skills, checked (see the file comment). */
export class SkillCatalog {
  readonly scheme: string;
  private readonly skills = new Map<string, SkillEntry>();
  private readonly files = new Map<string, SkillFile>();
  private readonly directories = new Map<string, Resource[]>();
  /** The SKILL.md URIs of the skills added so far. */
  private readonly roots = new Set<string>();

  /** Throws a RangeError naming the rule for a skill that breaks one (SK-03, SK-04, SK-06, SK-08) or two skills at one path. */
  constructor(sources: readonly SkillSource[], options: CatalogOptions = {}) {
    this.scheme = options.scheme ?? "skill";
    if (!/^[a-z][a-z0-9+.-]*$/.test(this.scheme))
      throw new RangeError(`[SK-03] expected a URI scheme such as "skill"; got ${JSON.stringify(this.scheme)}`);
    const pending: { root: string; uri: string; frontmatter: JsonObject }[] = [];
    for (const source of sources) pending.push(this.addSkill(source));
    for (const { root, uri, frontmatter } of pending.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0))) {
      // Complete (SK-05): every file under the skill's directory, a nested skill's included.
      const resources: SkillResource[] = [];
      let total = 0;
      for (const file of this.files.values()) {
        if (!file.uri.startsWith(`${root}/`)) continue;
        resources.push({ uri: file.uri, digest: digestOf(file.bytes), size: file.bytes.length });
        total += file.bytes.length;
      }
      if (resources.length > MAX_SKILL_FILES)
        throw new RangeError(`[SK-08] expected at most ${MAX_SKILL_FILES} files in skill ${uri}; got ${resources.length}`);
      if (total > MAX_SKILL_BYTES) throw new RangeError(`[SK-08] expected at most ${MAX_SKILL_BYTES} bytes in skill ${uri}; got ${total}`);
      resources.sort((a, b) => (a.uri === uri ? -1 : b.uri === uri ? 1 : a.uri < b.uri ? -1 : 1));
      this.skills.set(uri, { uri, frontmatter, resources });
    }
    for (const children of this.directories.values()) children.sort((a, b) => (a.uri < b.uri ? -1 : 1));
  }

  /** Every skill's entry, by URI. */
  entries(): SkillEntry[] {
    return [...this.skills.values()];
  }

  /** The entry of the skill whose SKILL.md is at `uri`. */
  entry(uri: string): SkillEntry | undefined {
    return this.skills.get(uri);
  }

  file(uri: string): SkillFile | undefined {
    return this.files.get(uri);
  }

  allFiles(): SkillFile[] {
    return [...this.files.values()];
  }

  /** The direct children of a directory (SK-10), or undefined when `uri` is no directory we serve. */
  directory(uri: string): readonly Resource[] | undefined {
    return this.directories.get(uri);
  }

  private addSkill(source: SkillSource): { root: string; uri: string; frontmatter: JsonObject } {
    const path = typeof source?.path === "string" ? source.path : "";
    const segments = path.split("/");
    if (path === "" || !segments.every(isPlainSegment))
      throw new RangeError(
        `[SK-03] expected a skill path of /-separated segments (letters, digits, . _ ~ -); got ${JSON.stringify(source?.path)}`,
      );
    const name = segments[segments.length - 1] as string;
    if (!isSkillName(name))
      throw new RangeError(
        `[SK-04] expected the skill name ${JSON.stringify(name)} as 1-64 of a-z, 0-9 and single hyphens, no hyphen first or last`,
      );
    const root = `${this.scheme}://${path}`;
    const uri = `${root}/${SKILL_FILE}`;
    if (this.roots.has(uri)) throw new RangeError(`[SK-03] expected one skill at ${root}; got two`);
    this.roots.add(uri);
    let skillText: string | undefined;
    for (const file of source.files) {
      const served = this.addFile(root, file);
      if (served.uri === uri) skillText = served.text;
    }
    if (skillText === undefined)
      throw new RangeError(
        `[SK-06] expected a UTF-8 ${SKILL_FILE} at the root of skill ${path}; got ${this.files.has(uri) ? "bytes that are not UTF-8" : "none"}`,
      );
    const reading = readFrontmatter(skillText);
    if (!reading.ok) throw new RangeError(`[SK-06] ${uri}: ${reading.problem}`);
    const frontmatter = reading.frontmatter;
    if (frontmatter.name !== name)
      throw new RangeError(
        `[SK-04] ${uri}: expected frontmatter name ${JSON.stringify(name)} (the last segment of its path); got ${JSON.stringify(frontmatter.name)}`,
      );
    const description = frontmatter.description;
    if (typeof description !== "string" || description.length === 0 || description.length > 1024)
      throw new RangeError(`[SK-06] ${uri}: expected a frontmatter description of 1-1024 characters; got ${JSON.stringify(description)}`);
    const served = this.files.get(uri) as SkillFile;
    // The SKILL.md resource carries the skill's name and description (SK-10).
    this.files.set(uri, { ...served, resource: { ...served.resource, name, description, mimeType: "text/markdown" } });
    this.replaceChild(uri);
    return { root, uri, frontmatter };
  }

  private addFile(root: string, file: SkillFileSource): SkillFile {
    const path = typeof file?.path === "string" ? file.path : "";
    const segments = path.split("/");
    if (path === "" || !segments.every(isPlainSegment))
      throw new RangeError(
        `[SK-03] expected a file path of /-separated segments (letters, digits, . _ ~ -) in ${root}; got ${JSON.stringify(file?.path)}`,
      );
    const uri = `${root}/${path}`;
    const bytes = typeof file.content === "string" ? encodeUtf8(file.content) : new Uint8Array(file.content);
    const previous = this.files.get(uri);
    if (previous !== undefined) {
      if (previous.bytes.length === bytes.length && previous.bytes.every((b, i) => b === bytes[i])) return previous;
      throw new RangeError(`[SK-05] expected one content for ${uri}; a nested skill and its enclosing skill give two`);
    }
    const basename = segments[segments.length - 1] as string;
    const resource: Resource = { uri, name: basename, mimeType: file.mimeType ?? mimeTypeOf(path), size: bytes.length };
    const served: SkillFile = { uri, bytes, text: typeof file.content === "string" ? file.content : textOf(bytes), resource };
    this.files.set(uri, served);
    this.addToDirectory(uri, resource);
    return served;
  }

  /** Lists `resource` in its directory, and each directory up to the namespace's first segment in its parent. */
  private addToDirectory(uri: string, resource: Resource): void {
    const prefix = `${this.scheme}://`;
    let child = resource;
    let at = uri;
    for (;;) {
      const slash = at.lastIndexOf("/");
      if (slash < prefix.length) return;
      const parent = at.slice(0, slash);
      const children = this.directories.get(parent);
      if (children !== undefined) {
        if (!children.some((c) => c.uri === child.uri)) children.push(child);
        return;
      }
      this.directories.set(parent, [child]);
      child = { uri: parent, name: parent.slice(parent.lastIndexOf("/") + 1), mimeType: DIRECTORY_MIME_TYPE };
      at = parent;
    }
  }

  private replaceChild(uri: string): void {
    const parent = uri.slice(0, uri.lastIndexOf("/"));
    const children = this.directories.get(parent) as Resource[];
    const index = children.findIndex((c) => c.uri === uri);
    children[index] = (this.files.get(uri) as SkillFile).resource;
  }
}
