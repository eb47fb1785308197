// What a host checks before it uses a skill's file (SEP-2640 "Integrity and verification";
// RULES.md SK-12): the bytes a resources/read returned, measured against the entry's `size`
// first (cheap, and a bound on the hashing) and then its `digest`; and a SKILL.md's frontmatter,
// read by our own reader and compared field by field with the entry's `frontmatter`.
//
// Invariants: nothing here throws on peer input; each check answers undefined (verified) or
// what was expected against what arrived; frontmatter comparison reads own properties only.

import { isJsonObject, type JsonObject } from "../wire/envelope.js";
import { describeValue } from "../wire/errors.js";
import { encodeUtf8 } from "../wire/utf8.js";
import { base64Decode } from "../auth/encoding.js";
import { digestOf, type SkillResource } from "./entries.js";

/** A verification failure: which check, what the entry promised, what arrived. */
export interface Mismatch {
  readonly check: "content" | "size" | "digest" | "frontmatter";
  readonly expected: string;
  readonly got: string;
}

/** A file's content as resources/read gave it: raw bytes (text as UTF-8, blob decoded), its text when it came as text. */
export interface FileContent {
  readonly bytes: Uint8Array;
  readonly text: string | undefined;
  readonly mimeType: string | undefined;
}

/** The content of `uri` in a resources/read result, or what is wrong with it. */
export function contentOf(result: unknown, uri: string): FileContent | Mismatch {
  const contents = isJsonObject(result) ? result.contents : undefined;
  if (!Array.isArray(contents)) return { check: "content", expected: "a resources/read result with contents", got: describeValue(result) };
  const item = contents.find((c) => isJsonObject(c) && c.uri === uri) ?? (contents.length === 1 ? contents[0] : undefined);
  if (!isJsonObject(item))
    return { check: "content", expected: `one content item for ${uri}`, got: `${contents.length} items, none for it` };
  const mimeType = typeof item.mimeType === "string" ? item.mimeType : undefined;
  if (typeof item.text === "string") return { bytes: encodeUtf8(item.text), text: item.text, mimeType };
  const bytes = typeof item.blob === "string" ? base64Decode(item.blob) : undefined;
  if (bytes === undefined)
    return { check: "content", expected: `text or a base64 blob for ${uri}`, got: describeValue(item.text ?? item.blob) };
  return { bytes, text: undefined, mimeType };
}

/** Size, then digest, of `bytes` against the entry's record of the file. */
export function checkBytes(listed: SkillResource, bytes: Uint8Array): Mismatch | undefined {
  if (bytes.length !== listed.size) return { check: "size", expected: `${listed.size} bytes`, got: `${bytes.length} bytes` };
  const digest = digestOf(bytes);
  if (digest !== listed.digest) return { check: "digest", expected: listed.digest, got: digest };
  return undefined;
}

/** Field by field: every key of either side present in both with equal JSON values. */
export function compareFrontmatter(entry: JsonObject, file: JsonObject): Mismatch | undefined {
  const keys = new Set([...Object.keys(entry), ...Object.keys(file)]);
  for (const key of keys) {
    const a = ownValue(entry, key);
    const b = ownValue(file, key);
    if (!sameJson(a, b, 0))
      return {
        check: "frontmatter",
        expected: `${key}: ${JSON.stringify(a) ?? "absent"} (the entry's)`,
        got: `${JSON.stringify(b) ?? "absent"} (the file's)`,
      };
  }
  return undefined;
}

function ownValue(object: JsonObject, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

const MAX_DEPTH = 64;

function sameJson(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true;
  if (depth > MAX_DEPTH || typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => sameJson(item, b[i], depth + 1));
  }
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson((a as JsonObject)[k], (b as JsonObject)[k], depth + 1));
}
