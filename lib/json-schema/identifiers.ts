// The identifiers of one JSON Schema document (./validator.ts): the base URI of every
// subschema ($id, resolved against the enclosing base per RFC 3986), the embedded schema
// resources, the $anchor and $dynamicAnchor names, and the resolution of a $ref or
// $dynamicRef to the subschema it names.
//
// Invariants:
// - only the document itself is searched: a reference to a URI that no $id of the document
//   declares is a schema problem, never a fetch;
// - the walk is iterative and visits each schema object once (schemas may be cyclic
//   JavaScript objects), following only the keywords whose values are schemas, so the
//   contents of enum, const, default, examples and x-* keywords are never taken for schemas;
// - a document without $id has the base ROOT_BASE, a URI no real schema uses.

import { resolveReference } from "../uri-template/uri-reference.js";
import { escapePointer, isRecord, member, show, type JsonRecord } from "./values.js";

/** Why a schema is unusable; thrown inside the compiler only, always caught. */
export class SchemaProblem extends Error {}

export function problem(location: string, message: string): never {
  throw new SchemaProblem(`at ${location || "#"}: ${message}`);
}

export const ROOT_BASE = "mcp-engine:/schema-root.json";

export type Dialect = "2020-12" | "draft-07";

/** Keywords holding one subschema, a list of them, or a name-to-subschema table. */
export const SINGLE_SCHEMA = [
  "additionalProperties",
  "additionalItems",
  "unevaluatedProperties",
  "unevaluatedItems",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
];
export const SCHEMA_LISTS = ["prefixItems", "allOf", "anyOf", "oneOf"];
export const SCHEMA_TABLES = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"];

const ANCHOR_NAME = /^[A-Za-z_][-A-Za-z0-9._]*$/;

export interface Target {
  readonly schema: unknown;
  readonly location: string;
  readonly base: string;
}

export class SchemaIndex {
  readonly baseOf = new Map<object, string>();
  readonly locationOf = new Map<object, string>();
  /** Schema resources by absolute URI (no fragment). */
  private readonly resources = new Map<string, JsonRecord>();
  /** "uri#name" of every $anchor and $dynamicAnchor. */
  private readonly anchors = new Map<string, JsonRecord>();
  /** $dynamicAnchor name → resource URI → the subschema carrying it. */
  readonly dynamicAnchors = new Map<string, Map<string, JsonRecord>>();
  usesDynamicRef = false;

  constructor(private readonly dialect: Dialect) {}

  /** Indexes `schema` and every subschema under it not seen yet. */
  add(schema: unknown, base: string, location: string): void {
    const stack: Array<[unknown, string, string]> = [[schema, base, location]];
    for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
      const [s, outer, where] = entry;
      if (!isRecord(s) || this.baseOf.has(s)) continue;
      const here = this.identify(s, outer, where);
      this.baseOf.set(s, here);
      this.locationOf.set(s, where);
      if (member(s, "$dynamicRef") !== undefined) this.usesDynamicRef = true;
      for (const key of SINGLE_SCHEMA) {
        const sub = member(s, key);
        if (sub !== undefined) stack.push([sub, here, `${where}/${key}`]);
      }
      const items = member(s, "items");
      if (Array.isArray(items)) items.forEach((sub, i) => stack.push([sub, here, `${where}/items/${i}`]));
      else if (items !== undefined) stack.push([items, here, `${where}/items`]);
      for (const key of SCHEMA_LISTS) {
        const list = member(s, key);
        if (Array.isArray(list)) list.forEach((sub, i) => stack.push([sub, here, `${where}/${key}/${i}`]));
      }
      for (const key of SCHEMA_TABLES) {
        const table = member(s, key);
        if (!isRecord(table)) continue;
        for (const name of Object.keys(table)) stack.push([table[name], here, `${where}/${key}/${escapePointer(name)}`]);
      }
    }
  }

  /** The base URI of `s` (its $id resolved against `outer`), registering it and its anchors. */
  private identify(s: JsonRecord, outer: string, where: string): string {
    let base = outer;
    const id = member(s, "$id");
    if (id !== undefined) {
      if (typeof id !== "string") problem(`${where}/$id`, `"$id" must be a string, got ${show(id)}`);
      const hash = id.indexOf("#");
      const uri = hash < 0 ? id : id.slice(0, hash);
      const fragment = hash < 0 ? "" : id.slice(hash + 1);
      if (uri !== "") {
        base = stripFragment(resolveReference(outer, uri));
        if (this.resources.has(base)) problem(`${where}/$id`, `duplicate $id ${show(base)} in one document`);
        this.resources.set(base, s);
      }
      if (fragment !== "") {
        // Draft-07 names plain-name anchors with "$id": "#name"; 2020-12 moved that to $anchor.
        if (this.dialect !== "draft-07")
          problem(`${where}/$id`, `"$id" must not carry a fragment in 2020-12 (use "$anchor" for ${show(fragment)})`);
        this.anchor(base, fragment, s, `${where}/$id`);
      }
    } else if (this.resources.size === 0) {
      this.resources.set(base, s);
    }
    for (const keyword of ["$anchor", "$dynamicAnchor"]) {
      const name = member(s, keyword);
      if (name === undefined) continue;
      this.anchor(base, name, s, `${where}/${keyword}`);
      if (keyword === "$anchor") continue;
      const name2 = name as string;
      let byResource = this.dynamicAnchors.get(name2);
      if (byResource === undefined) this.dynamicAnchors.set(name2, (byResource = new Map()));
      byResource.set(base, s);
    }
    return base;
  }

  private anchor(base: string, name: unknown, s: JsonRecord, where: string): void {
    if (typeof name !== "string" || !ANCHOR_NAME.test(name))
      problem(where, `an anchor must be a name of letters, digits, "-", "_", "." (starting with a letter or "_"), got ${show(name)}`);
    const key = `${base}#${name}`;
    const known = this.anchors.get(key);
    if (known !== undefined && known !== s) problem(where, `duplicate anchor ${show(name)} in one schema resource`);
    this.anchors.set(key, s);
  }

  /** The subschema `ref` names, read from the schema whose base URI is `base`. */
  resolve(ref: unknown, base: string, where: string): Target {
    if (typeof ref !== "string") return problem(where, `a reference must be a string, got ${show(ref)}`);
    const full = resolveReference(base, ref);
    const hash = full.indexOf("#");
    const uri = hash < 0 ? full : full.slice(0, hash);
    const fragment = hash < 0 ? "" : full.slice(hash + 1);
    const resource = this.resources.get(uri);
    if (resource === undefined) {
      return problem(
        where,
        `${show(ref)} is not in this schema document: only local references ("#/$defs/name", "#anchor", or an $id of the document) are supported, nothing is fetched`,
      );
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(fragment);
    } catch {
      return problem(where, `malformed percent-encoding in reference ${show(ref)}`);
    }
    if (decoded !== "" && !decoded.startsWith("/")) {
      const target = this.anchors.get(`${uri}#${decoded}`);
      if (target === undefined) return problem(where, `reference ${show(ref)} names no $anchor of its schema resource`);
      return { schema: target, location: this.locationOf.get(target) ?? where, base: uri };
    }
    let target: unknown = resource;
    if (decoded !== "") {
      for (const raw of decoded.slice(1).split("/")) {
        const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
        if (Array.isArray(target) && /^(0|[1-9][0-9]*)$/.test(key) && Number(key) < target.length) target = target[Number(key)];
        else if (isRecord(target) && member(target, key) !== undefined) target = target[key];
        else return problem(where, `reference ${show(ref)} does not resolve`);
      }
    }
    const resourceLocation = this.locationOf.get(resource) ?? "#";
    const location = isRecord(target) ? (this.locationOf.get(target) ?? `${resourceLocation}${decoded}`) : `${resourceLocation}${decoded}`;
    // A pointer into a place the walk does not enter (an x-* keyword, say): index it now.
    if (isRecord(target) && !this.baseOf.has(target)) this.add(target, uri, location);
    return { schema: target, location, base: uri };
  }
}

function stripFragment(uri: string): string {
  const hash = uri.indexOf("#");
  return hash < 0 ? uri : uri.slice(0, hash);
}

/** The plain name a reference's fragment holds ("#node" → "node"), or undefined for a pointer or no fragment. */
export function plainNameFragment(ref: string): string | undefined {
  const hash = ref.indexOf("#");
  if (hash < 0) return undefined;
  const fragment = ref.slice(hash + 1);
  return fragment === "" || fragment.startsWith("/") ? undefined : fragment;
}
