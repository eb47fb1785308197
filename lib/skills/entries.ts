// The skills extension's shared vocabulary (SEP-2640, RULES.md SK-01, SK-03, SK-04, SK-05, SK-07,
// SK-08): its identifier and methods, the skill entry both roles exchange, skill URIs and names,
// and digests. The server side builds entries from files (catalog.ts); the client side reads
// entries from a peer (readSkillEntry) and verifies what it fetches against them (verify.ts).
//
// Invariants: nothing here throws on peer input; peer-supplied objects are read as own
// properties only; a digest is `sha256:` and 64 lowercase hex digits of the raw bytes.

import { isJsonObject, type JsonObject } from "../wire/envelope.js";
import { describeValue } from "../wire/errors.js";
import { sha256 } from "../codec/sha256.js";

/** The extension identifier, declared under `capabilities.extensions`. */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";
export const SKILLS_LIST = "skills/list";
export const SKILLS_GET = "skills/get";
export const DIRECTORY_READ = "resources/directory/read";
/** The mimeType of a directory resource. */
export const DIRECTORY_MIME_TYPE = "inode/directory";
export const SKILL_FILE = "SKILL.md";
/** The bounds a server should not pass per skill (SK-08): entries in `resources`, and their bytes summed. */
export const MAX_SKILL_FILES = 512;
export const MAX_SKILL_BYTES = 16 * 1024 * 1024;

/** One file of a skill, as an entry lists it. */
export interface SkillResource {
  readonly uri: string;
  /** `sha256:` and 64 lowercase hex digits of the file's raw bytes. */
  readonly digest: string;
  /** The length in bytes of the same raw bytes. */
  readonly size: number;
}

/** A skill as `skills/list` and `skills/get` give it. */
export interface SkillEntry {
  /** The URI of the skill's SKILL.md. */
  readonly uri: string;
  /** The SKILL.md frontmatter, verbatim, as JSON. */
  readonly frontmatter: JsonObject;
  /** Every file of the skill with its digest and size; "dynamic" for a skill generated on demand (no integrity). */
  readonly resources: readonly SkillResource[] | "dynamic";
}

/** Agent Skills naming (SK-04): 1-64 of a-z, 0-9 and hyphens, no hyphen first, last or doubled. */
export function isSkillName(name: unknown): name is string {
  return typeof name === "string" && /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/.test(name);
}

/** A path segment we serve and accept in a skill URI: unreserved characters, never `.` or `..`. */
export function isPlainSegment(segment: string): boolean {
  return /^[A-Za-z0-9._~-]+$/.test(segment) && segment !== "." && segment !== "..";
}

/** The parts of a skill's SKILL.md URI (SK-03): its scheme, skill path, root directory and name; undefined when it is not one. */
export function skillUriParts(uri: string): { scheme: string; path: string; root: string; name: string } | undefined {
  const match = /^([a-z][a-z0-9+.-]*):\/\/(.+)\/SKILL\.md$/.exec(uri);
  if (match === null) return undefined;
  const path = match[2] as string;
  const segments = path.split("/");
  if (!segments.every(isPlainSegment)) return undefined;
  return { scheme: match[1] as string, path, root: `${match[1]}://${path}`, name: segments[segments.length - 1] as string };
}

const HEX = "0123456789abcdef";

/** The digest of raw bytes (SK-07). */
export function digestOf(bytes: Uint8Array): string {
  let out = "sha256:";
  for (const b of sha256(bytes)) out += HEX[b >> 4] + (HEX[b & 15] as string);
  return out;
}

/** Why `value` is not a skill entry as SK-05 and SK-07 define it, or the entry. */
export function readSkillEntry(value: unknown): { ok: true; entry: SkillEntry } | { ok: false; problem: string } {
  if (!isJsonObject(value)) return { ok: false, problem: `expected a skill entry object; got ${describeValue(value)}` };
  const uri = own(value, "uri");
  const parts = typeof uri === "string" ? skillUriParts(uri) : undefined;
  if (typeof uri !== "string" || parts === undefined)
    return { ok: false, problem: `expected uri as the URI of a SKILL.md (scheme://path/SKILL.md); got ${describeValue(uri)}` };
  const frontmatter = own(value, "frontmatter");
  if (!isJsonObject(frontmatter) || Array.isArray(frontmatter))
    return { ok: false, problem: `${uri}: expected frontmatter as an object; got ${describeValue(frontmatter)}` };
  const name = own(frontmatter, "name");
  if (name !== parts.name)
    return {
      ok: false,
      problem: `${uri}: expected frontmatter.name equal to the URI's last path segment ${JSON.stringify(parts.name)}; got ${describeValue(name)}`,
    };
  const resources = own(value, "resources");
  if (resources === "dynamic") return { ok: true, entry: { uri, frontmatter, resources } };
  if (!Array.isArray(resources))
    return { ok: false, problem: `${uri}: expected resources as an array or "dynamic"; got ${describeValue(resources)}` };
  const listed: SkillResource[] = [];
  const seen = new Set<string>();
  for (const item of resources) {
    const file = readSkillResource(item, parts.root, uri);
    if (typeof file === "string") return { ok: false, problem: `${uri}: ${file}` };
    if (seen.has(file.uri)) return { ok: false, problem: `${uri}: expected each file once in resources; got ${file.uri} twice` };
    seen.add(file.uri);
    listed.push(file);
  }
  if (!seen.has(uri)) return { ok: false, problem: `${uri}: expected resources to list the SKILL.md itself` };
  return { ok: true, entry: { uri, frontmatter, resources: listed } };
}

function readSkillResource(item: unknown, root: string, skillUri: string): SkillResource | string {
  if (!isJsonObject(item)) return `expected each resources item as an object; got ${describeValue(item)}`;
  const uri = own(item, "uri");
  const digest = own(item, "digest");
  const size = own(item, "size");
  if (typeof uri !== "string" || (uri !== skillUri && !uri.startsWith(`${root}/`)))
    return `expected each resources uri within the skill's directory ${root}; got ${describeValue(uri)}`;
  if (typeof digest !== "string" || !/^sha256:[0-9a-f]{64}$/.test(digest))
    return `expected the digest of ${uri} as sha256:<64 lowercase hex>; got ${describeValue(digest)}`;
  if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0)
    return `expected the size of ${uri} as a non-negative integer; got ${describeValue(size)}`;
  return { uri, digest, size };
}

/** An own property of a peer's object (never one of its prototype). */
function own(object: JsonObject, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}
