// Extensions and custom methods in the peer layer (RULES.md MT-03; the engine's table enforces MT-04, MT-05 and MT-06): what a Client or a
// Server declares, the handlers a Server registers for an extension's requests and client
// notifications, and the types users augment (declaration merging) so that calls, handlers
// and notifications of their extension are typed like the spec's own methods.
//
// One declaration serves both sides: `{ requests, serverNotifications, clientNotifications }`
// per extension id. Each side passes it in its options; it goes into the capabilities under
// `extensions[id]` (both eras: the session era reads that key or `experimental`) and into the
// engine's extension method table, whose gate lets a method through only when both sides
// declared the extension (the spec's own methods are gated as before).
//
// Invariants: a handler can only be registered for a method its extension declared; method
// names arriving from a peer are only looked up in Maps.

import type { JsonObject } from "../../wire/envelope.js";
import { isExtensionId, type ExtensionMethod } from "../../rules/custom-methods.js";

/**
 * Requests of extensions, typed: augment it with `method: { params; result }` entries.
 *
 * ```ts
 * declare module "mcp-engine/peer" {
 *   interface ExtensionRequests {
 *     "com.example/search/query": { params: { q: string }; result: { hits: string[] } };
 *   }
 * }
 * ```
 * Client.request, Server.setRequestHandler then check params and results of those methods.
 */
// Empty on purpose: filled by declaration merging.
export interface ExtensionRequests {}

/** Notifications of extensions, typed: augment it with `method: params` entries (either direction). */
// Empty on purpose: filled by declaration merging.
export interface ExtensionNotifications {}

/** The params of a `{ params; result }` entry. */
export type ParamsOf<T> = T extends { params: infer P } ? P : never;
/** The result of a `{ params; result }` entry. */
export type ResultOf<T> = T extends { result: infer R } ? R : never;

/** A name the untyped overloads take: any string but the keys of `Map` (those take their typed overload). */
export type NotIn<M extends string, Map> = M extends keyof Map ? never : M;

/** What one extension adds to the protocol, the same object on both sides. */
export interface ExtensionDeclaration {
  /** The settings object declared under `capabilities.extensions[id]`. Default {}. */
  readonly settings?: JsonObject;
  /** Requests the client sends and the server answers. */
  readonly requests?: readonly string[];
  /** Notifications the server sends to the client (under 2026-07-28: with a request of the client's, MT-05). */
  readonly serverNotifications?: readonly string[];
  /** Notifications the client sends to the server (session era only: a 2026-07-28 notification carries no declaration, MT-05). */
  readonly clientNotifications?: readonly string[];
  /** Whose declaration lets its methods pass: "both" (default) or "server" (the server's alone, as for skills; SK-01). */
  readonly gatedBy?: "both" | "server";
  /** Whether this side names it in its capabilities. Default true; a client of a server-gated extension may leave it out. */
  readonly declare?: boolean;
}

/** Extensions by identifier (`prefix/name`, MT-06). */
export type Extensions = { readonly [id: string]: ExtensionDeclaration };

/** The engine's table of a declaration's methods (the engine refuses names of the spec, MT-04). */
export function extensionMethodsOf(extensions: Extensions | undefined): ExtensionMethod[] {
  const methods: ExtensionMethod[] = [];
  if (extensions === undefined) return methods;
  for (const [extension, declaration] of Object.entries(extensions)) {
    if (!isExtensionId(extension))
      throw new RangeError(
        `[MT-06] expected an extension identifier prefix/name (e.g. "com.example/search"); got ${JSON.stringify(extension)}`,
      );
    const gatedBy = declaration.gatedBy;
    for (const method of declaration.requests ?? []) methods.push({ method, extension, kind: "request", from: "client", gatedBy });
    for (const method of declaration.serverNotifications ?? [])
      methods.push({ method, extension, kind: "notification", from: "server", gatedBy });
    for (const method of declaration.clientNotifications ?? [])
      methods.push({ method, extension, kind: "notification", from: "client", gatedBy });
  }
  return methods;
}

/** `capabilities` with each extension declared under `extensions[id]` (its settings, or {}). */
export function withExtensions<C extends object>(capabilities: C | undefined, extensions: Extensions | undefined): C | undefined {
  if (extensions === undefined || Object.keys(extensions).length === 0) return capabilities;
  const base = (capabilities ?? {}) as C & { extensions?: { [id: string]: JsonObject } };
  const declared: { [id: string]: JsonObject } = { ...base.extensions };
  for (const [id, declaration] of Object.entries(extensions)) if (declaration.declare !== false) declared[id] = declaration.settings ?? {};
  return { ...base, extensions: declared };
}
