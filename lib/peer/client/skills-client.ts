// `skillsClient(client)`: the host's side of the skills extension (SEP-2640; RULES.md SK-01, SK-12,
// SK-13). list() and get() read entries (validated: a malformed entry is an InvalidResultError);
// load() fetches a skill's SKILL.md and checks it against the entry (size, digest, then the
// frontmatter field by field) before returning anything; a loaded skill reads its supporting
// files one at a time, when asked, each verified the same way, and refuses a file its entry
// does not list. A failed check is a SkillVerificationError and the content is dropped.
//
// Invariants: nothing is read ahead of need (listing and get read no file; load reads the
// SKILL.md alone unless asked for all files, SK-13); no unverified byte is returned (SK-12);
// the methods are sent only to a server that declared the extension (the engine's gate, SK-01);
// a nested skill's SKILL.md read through its enclosing skill is plain content, its frontmatter
// given no effect; entries and cursors from the server are bounded (MAX_PAGES pages).

import type { JsonObject } from "../../wire/envelope.js";
import type { Resource } from "../../types/index.js";
import {
  DIRECTORY_READ,
  SKILLS_EXTENSION,
  SKILLS_GET,
  SKILLS_LIST,
  readSkillEntry,
  skillUriParts,
  type SkillEntry,
  type SkillResource,
} from "../../skills/entries.js";
import { readFrontmatter } from "../../skills/frontmatter.js";
import { checkBytes, compareFrontmatter, contentOf, type Mismatch } from "../../skills/verify.js";
import type { CallOptions } from "../shared/call-options.js";
import type { Client } from "./client.js";
import { InvalidResultError, PeerError } from "../shared/errors.js";

/** A skill file that failed verification (SK-12) or is not in the skill's entry (SK-13); nothing of it was returned. */
export class SkillVerificationError extends PeerError {
  readonly rule: "SK-12" | "SK-13";
  /** The file that failed. */
  readonly uri: string;
  readonly check: Mismatch["check"] | "unlisted" | "dynamic";
  readonly expected: string;
  readonly got: string;
  constructor(init: { rule: "SK-12" | "SK-13"; uri: string; check: SkillVerificationError["check"]; expected: string; got: string }) {
    super(`${init.uri}: [${init.rule}] ${init.check} check failed: expected ${init.expected}; got ${init.got}`);
    this.name = "SkillVerificationError";
    this.rule = init.rule;
    this.uri = init.uri;
    this.check = init.check;
    this.expected = init.expected;
    this.got = init.got;
  }
}

/** A file of a loaded skill, verified against its entry. */
export interface VerifiedFile {
  readonly uri: string;
  readonly bytes: Uint8Array;
  /** The content as text when the server sent text; undefined for a blob. */
  readonly text: string | undefined;
  readonly mimeType: string | undefined;
}

/** A skill whose SKILL.md was verified against its entry. */
export interface LoadedSkill {
  /** The entry it was verified against (the one an approval binds to). */
  readonly entry: SkillEntry & { readonly resources: readonly SkillResource[] };
  /** The skill's root directory URI (relative references resolve against it). */
  readonly root: string;
  /** The SKILL.md, verified. */
  readonly skillFile: VerifiedFile & { readonly text: string };
  /** Its frontmatter (equal to the entry's) and the markdown after it. */
  readonly frontmatter: JsonObject;
  readonly body: string;
  /** Files already read and verified, by URI (the SKILL.md, and every file with `files: "all"`). */
  readonly files: ReadonlyMap<string, VerifiedFile>;
  /**
   * Reads one file of the skill now (a path relative to the root, or its URI), verified against
   * the entry. Rejects with SkillVerificationError for a file the entry does not list (SK-13) or
   * that fails its size or digest (SK-12), else as readResource does.
   */
  readFile(pathOrUri: string, options?: CallOptions): Promise<VerifiedFile>;
}

export interface LoadOptions extends CallOptions {
  /** "skill-md" (default): the SKILL.md only, the rest on readFile; "all": every listed file, each verified before the next is read. */
  readonly files?: "skill-md" | "all";
}

/** What SkillsClient needs of its Client. */
export interface SkillsClientDeps {
  request(method: string, params: JsonObject, options?: CallOptions): Promise<JsonObject>;
  readResource(uri: string, options?: CallOptions): Promise<object>;
  /** The server's capabilities (undefined before connect). */
  serverCapabilities(): object | undefined;
}

/** At most this many pages of skills/list or resources/directory/read are followed. */
const MAX_PAGES = 100;

/**
 * The skills extension of a Client: `skillsClient(client).list()`, `.get()`, `.load()` (from
 * mcp-engine/skills, so that a Client that reads no skills bundles none of this). The Client
 * knows the extension's methods from the start (skills-methods.ts); this only sends them.
 */
export function skillsClient(client: Client): SkillsClient {
  return new SkillsClient({
    request: (method, params, options) => client.request(method as never, params, options),
    readResource: (uri, options) => client.readResource(uri, options),
    serverCapabilities: () => client.server?.capabilities,
  });
}

export class SkillsClient {
  constructor(private readonly deps: SkillsClientDeps) {}

  /** The server's settings for the extension, or undefined when it did not declare it. */
  get settings(): JsonObject | undefined {
    const extensions = (this.deps.serverCapabilities() as { extensions?: unknown } | undefined)?.extensions;
    if (typeof extensions !== "object" || extensions === null || !Object.prototype.hasOwnProperty.call(extensions, SKILLS_EXTENSION))
      return undefined;
    const value = (extensions as JsonObject)[SKILLS_EXTENSION];
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
  }

  /** Every skill the server lists (all pages; an empty or partial listing proves nothing). Reads no file (SK-13). */
  list(options?: CallOptions): Promise<SkillEntry[]> {
    return this.allPages(SKILLS_LIST, {}, "skills", (item, i) => entryOf(SKILLS_LIST, `skills[${i}]`, item), options);
  }

  /** The entry of one skill by its SKILL.md URI, listed or not. Reads no file (SK-13). */
  async get(uri: string, options?: CallOptions): Promise<SkillEntry> {
    const result = await this.deps.request(SKILLS_GET, { uri }, options);
    const entry = entryOf(SKILLS_GET, "skill", result.skill);
    if (entry.uri !== uri) throw new InvalidResultError(SKILLS_GET, "skill.uri", JSON.stringify(uri), JSON.stringify(entry.uri));
    return entry;
  }

  /**
   * Loads a skill (an entry, or a SKILL.md URI whose entry skills/get gives): reads its
   * SKILL.md, checks size and digest, then its frontmatter against the entry's, and only then
   * returns (SK-12). A skill whose entry publishes no resources ("dynamic") cannot be verified
   * and is refused.
   */
  async load(skill: SkillEntry | string, options: LoadOptions = {}): Promise<LoadedSkill> {
    const entry = typeof skill === "string" ? await this.get(skill, options) : skill;
    const resources = entry.resources;
    if (resources === "dynamic")
      throw new SkillVerificationError({
        rule: "SK-12",
        uri: entry.uri,
        check: "dynamic",
        expected: "an entry listing its files with digests",
        got: '"dynamic"',
      });
    const verified: SkillEntry & { readonly resources: readonly SkillResource[] } = { ...entry, resources };
    const root = (skillUriParts(entry.uri) as { root: string }).root;
    const files = new Map<string, VerifiedFile>();
    const read = async (uri: string, callOptions?: CallOptions): Promise<VerifiedFile> => {
      const listed = resources.find((r) => r.uri === uri);
      if (listed === undefined)
        throw new SkillVerificationError({
          rule: "SK-13",
          uri,
          check: "unlisted",
          expected: `a file listed in the entry of ${entry.uri}`,
          got: "a file it does not list",
        });
      const file = await this.readVerified(listed, callOptions);
      files.set(uri, file);
      return file;
    };
    const skillFile = await read(entry.uri, options);
    const reading = skillFile.text === undefined ? undefined : readFrontmatter(skillFile.text);
    if (reading === undefined || !reading.ok)
      throw new SkillVerificationError({
        rule: "SK-12",
        uri: entry.uri,
        check: "frontmatter",
        expected: "a SKILL.md whose YAML frontmatter our reader reads",
        got: reading === undefined ? "a blob" : reading.problem,
      });
    const mismatch = compareFrontmatter(entry.frontmatter, reading.frontmatter);
    if (mismatch !== undefined) {
      files.delete(entry.uri);
      throw new SkillVerificationError({ rule: "SK-12", uri: entry.uri, ...mismatch });
    }
    if (options.files === "all") for (const r of resources) if (!files.has(r.uri)) await read(r.uri, options);
    return {
      entry: verified,
      root,
      skillFile: skillFile as VerifiedFile & { text: string },
      frontmatter: reading.frontmatter,
      body: reading.body,
      files,
      readFile: (pathOrUri, callOptions) => read(pathOrUri.includes("://") ? pathOrUri : `${root}/${pathOrUri}`, callOptions),
    };
  }

  /** The direct children of a directory resource (all pages); only from a server that declared directoryRead. */
  readDirectory(uri: string, options?: CallOptions): Promise<Resource[]> {
    return this.allPages(
      DIRECTORY_READ,
      { uri },
      "resources",
      (item) => {
        if (typeof item !== "object" || item === null || typeof (item as Resource).uri !== "string")
          throw new InvalidResultError(DIRECTORY_READ, "resources[]", "resources with a uri", JSON.stringify(item));
        return item as Resource;
      },
      options,
    );
  }

  /** The items under `key` of every page, following nextCursor (SK-02) up to MAX_PAGES and never a cursor twice. */
  private async allPages<T>(
    method: string,
    params: JsonObject,
    key: string,
    read: (item: unknown, index: number) => T,
    options: CallOptions | undefined,
  ): Promise<T[]> {
    const out: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.deps.request(method, cursor === undefined ? params : { ...params, cursor }, options);
      const items = result[key];
      if (!Array.isArray(items)) throw new InvalidResultError(method, key, "an array", typeof items);
      for (const item of items) out.push(read(item, out.length));
      const next = result.nextCursor;
      if (next === undefined) return out;
      if (typeof next !== "string" || seen.has(next))
        throw new InvalidResultError(method, "nextCursor", "a cursor not given before", JSON.stringify(next));
      seen.add(next);
      cursor = next;
    }
    throw new InvalidResultError(method, "nextCursor", `at most ${MAX_PAGES} pages`, "more");
  }

  private async readVerified(listed: SkillResource, options?: CallOptions): Promise<VerifiedFile> {
    const content = contentOf(await this.deps.readResource(listed.uri, options), listed.uri);
    if ("check" in content) throw new SkillVerificationError({ rule: "SK-12", uri: listed.uri, ...content });
    const mismatch = checkBytes(listed, content.bytes);
    if (mismatch !== undefined) throw new SkillVerificationError({ rule: "SK-12", uri: listed.uri, ...mismatch });
    return { uri: listed.uri, bytes: content.bytes, text: content.text, mimeType: content.mimeType };
  }
}

function entryOf(method: string, path: string, value: unknown): SkillEntry {
  const read = readSkillEntry(value);
  if (!read.ok) throw new InvalidResultError(method, path, "a skill entry (SK-05, SK-07)", read.problem);
  return read.entry;
}
