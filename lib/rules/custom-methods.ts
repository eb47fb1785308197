// Custom methods: methods no version of the specification has, which a host adds under an
// extension it names (RULES.md MT-03, MT-04, MT-05, MT-06). This file is the engine's table of
// them and the reading of who declared their extensions. Two neighbours differ:
// - lib/rules/negotiated-extensions.ts holds the extensions the specification itself defines
//   for 2026-07-28 (the tasks extension); their methods are rows of the spec's method table,
//   not entries of this one;
// - lib/peer/shared/custom-methods.ts is the peer layer's typed declaration of custom methods
//   and their handlers, from which the Client and the Server build this table.
//
// The host names each method it speaks beyond the spec (EngineOptions.extensionMethods): its
// kind, its sender and the extension it belongs to. The one gate (lib/rules/methods.ts) reads this
// table only for a method no version of the spec has, so the spec's own rows are never
// loosened; such a method passes only between two sides that both declared its extension:
// - 2026-07-28: under `capabilities.extensions` (the server's in server/discover, the
//   client's in each request's own `_meta` clientCapabilities, never remembered);
// - session era (2024-11-05 … 2025-11-25): in the capabilities exchanged at initialize, under
//   `extensions` (the 2026-07-28 key; session-era capabilities are open objects) or under
//   `experimental`, the session era's own slot for capabilities outside the spec.
//
// Invariants: nothing here keeps state; peer-supplied names are only looked up in Maps and
// read as own properties only (ENG-06); a table that would shadow a spec method is refused when built.
//
// An extension may be the server's alone (gatedBy "server", SK-01): the skills extension is
// declared by servers only, so its methods pass on the server's declaration and a client's
// capabilities need not name it.

import { isJsonObject } from "../wire/envelope.js";
import { ErrorCode, describeValue } from "../wire/errors.js";
import { methodTraits, type MessageKind } from "./methods.js";

/** One method beyond the spec, as the host declares it. */
export interface ExtensionMethod {
  /** The method name; no version of the spec may have it. */
  readonly method: string;
  /** The extension identifier it belongs to (`prefix/name`, e.g. "com.example/search"). */
  readonly extension: string;
  readonly kind: MessageKind;
  /** Who sends it. */
  readonly from: "client" | "server";
  /**
   * Whose declaration lets it pass: "both" (the default: each side declared the extension) or
   * "server" (the server's alone, for extensions such as skills that only a server declares;
   * SK-01).
   */
  readonly gatedBy?: "both" | "server";
}

export type ExtensionMethodTable = ReadonlyMap<string, ExtensionMethod>;

/** An extension identifier: a `_meta`-style key with its mandatory prefix (dot-separated labels, a slash, a name). */
const EXTENSION_ID =
  /^(?:[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)*[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?\/[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** Whether `id` is a well-formed extension identifier (MT-06). */
export function isExtensionId(id: unknown): id is string {
  return typeof id === "string" && EXTENSION_ID.test(id);
}

const NO_METHODS: ExtensionMethodTable = new Map();

/**
 * The table of a host's extension methods. Throws a RangeError (a mistake of the host's, at
 * construction) for a method any version of the spec has (MT-04), a malformed extension id
 * (MT-06), a bad kind or sender, or a method named twice.
 */
export function extensionMethodTable(list: readonly ExtensionMethod[] | undefined): ExtensionMethodTable {
  if (list === undefined || list.length === 0) return NO_METHODS;
  const table = new Map<string, ExtensionMethod>();
  for (const entry of list) {
    const { method, extension, kind, from, gatedBy } = entry;
    if (typeof method !== "string" || method.length === 0)
      throw new RangeError(`[MT-04] expected an extension method name as a non-empty string; got ${describeValue(method)}`);
    if (methodTraits(method) !== undefined)
      throw new RangeError(
        `[MT-04] expected an extension method outside the spec; got ${JSON.stringify(method)}, a method of the spec (its gating cannot be changed)`,
      );
    if (!isExtensionId(extension))
      throw new RangeError(
        `[MT-06] expected the extension of ${JSON.stringify(method)} as an identifier prefix/name (e.g. "com.example/search"); got ${describeValue(extension)}`,
      );
    if (kind !== "request" && kind !== "notification")
      throw new RangeError(`expected the kind of ${JSON.stringify(method)} as "request" or "notification"; got ${describeValue(kind)}`);
    if (from !== "client" && from !== "server")
      throw new RangeError(`expected the sender of ${JSON.stringify(method)} as "client" or "server"; got ${describeValue(from)}`);
    if (table.has(method)) throw new RangeError(`expected each extension method once; got ${JSON.stringify(method)} twice`);
    if (gatedBy !== undefined && gatedBy !== "both" && gatedBy !== "server")
      throw new RangeError(`expected the gating of ${JSON.stringify(method)} as "both" or "server"; got ${describeValue(gatedBy)}`);
    table.set(method, { method, extension, kind, from, gatedBy: gatedBy ?? "both" });
  }
  return table;
}

/** MT-03: the extensions a capabilities object declares in an era (see the file comment for where each era looks). */
export function declaredExtensions(capabilities: unknown, era: "session" | "modern"): ReadonlySet<string> {
  const declared = new Set<string>();
  if (!isJsonObject(capabilities)) return declared;
  const slots = era === "modern" ? [capabilities.extensions] : [capabilities.extensions, capabilities.experimental];
  for (const slot of slots) {
    if (!isJsonObject(slot)) continue;
    for (const key of Object.keys(slot)) if (isJsonObject(slot[key])) declared.add(key);
  }
  return declared;
}

/** What the gate needs beyond the spec's table: the host's extension methods and who declared what. */
export interface ExtensionGate {
  readonly methods: ExtensionMethodTable;
  /** The extensions of our own capabilities. */
  readonly own: ReadonlySet<string>;
  /** The peer's; undefined where they come with each request (a 2026-07-28 server: see requestExtensionRefusal). */
  readonly peer: ReadonlySet<string> | undefined;
}

/** 2026-07-28 server: a request of an extension method whose own clientCapabilities do not declare its extension is refused -32021 (MT-05). */
export function requestExtensionRefusal(
  methods: ExtensionMethodTable,
  method: string,
  requestCapabilities: unknown,
): { code: number; message: string; data: unknown; rule: string; expected: string; got: string } | undefined {
  const entry = methods.get(method);
  // SK-01: a method the server's declaration alone gates asks nothing of the request.
  if (entry === undefined || entry.gatedBy === "server" || declaredExtensions(requestCapabilities, "modern").has(entry.extension))
    return undefined;
  return {
    code: ErrorCode.MissingRequiredClientCapability,
    message: "Missing required client capability",
    data: { requiredCapabilities: { extensions: { [entry.extension]: {} } } },
    rule: "MT-05",
    expected: `params._meta clientCapabilities.extensions["${entry.extension}"] for ${method}`,
    got: "not declared",
  };
}
