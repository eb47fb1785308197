// The skills extension on a Server (SEP-2640; RULES.md SK-01, SK-02, SK-09, SK-10, SK-11): a
// catalog of skills (lib/skills/catalog.ts) served as resources under `skill://`, with
// `skills/list`, `skills/get` and `resources/directory/read`. Nothing of it is loaded unless the
// host imports it: a Server without skills never reaches this file.
//
//   const server = new Server({ info, extensions: skillsExtension() });
//   serveSkills(server, new SkillCatalog([{ path: "git-workflow", files: [...] }]));
//
// Invariants: the methods pass on the server's declaration alone (gatedBy "server", SK-01), so
// a client need not declare anything; unknown skills and directories are -32602 (SK-09,
// SK-10); an entry never spans two pages (SK-02); under 2026-07-28 both skills results carry
// ttlMs and cacheScope (SK-11).

import type { JsonObject } from "../../wire/envelope.js";
import { ErrorCode } from "../../wire/errors.js";
import type { ReadResourceResult } from "../../types/index.js";
import { base64Encode } from "../../auth/encoding.js";
import { SkillCatalog, type SkillSource } from "../../skills/catalog.js";
import { DIRECTORY_READ, SKILLS_EXTENSION, SKILLS_GET, SKILLS_LIST } from "../../skills/entries.js";
import type { Extensions } from "../shared/custom-methods.js";
import { McpError } from "../shared/errors.js";
import type { Server } from "./server.js";
import type { HandlerContext, Registration } from "./server-options.js";

export interface SkillsExtensionOptions {
  /** Serve resources/directory/read and declare `directoryRead: true`. Default true. */
  readonly directoryRead?: boolean;
}

export interface ServeSkillsOptions {
  /** 2026-07-28: how long a skills/list or skills/get result stays fresh, ms. Default 0. */
  readonly ttlMs?: number;
  /** 2026-07-28: whether caches may share the results across authorization contexts. Default "private". */
  readonly cacheScope?: "public" | "private";
}

/** The extension's declaration for ServerOptions.extensions (spread it beside others). */
export function skillsExtension(options: SkillsExtensionOptions = {}): Extensions {
  const directoryRead = options.directoryRead !== false;
  return {
    [SKILLS_EXTENSION]: {
      settings: directoryRead ? { directoryRead: true } : {},
      requests: directoryRead ? [SKILLS_LIST, SKILLS_GET, DIRECTORY_READ] : [SKILLS_LIST, SKILLS_GET],
      gatedBy: "server",
    },
  };
}

/**
 * Serves `skills` on `server`: each file a resource (a SKILL.md with its skill's name and
 * description), and the extension's methods. Throws an Error when the server was not built with
 * skillsExtension() (SK-01), and a RangeError for skills the catalog refuses. The registration
 * removes the resources (the methods stay, answering an empty catalog).
 */
export function serveSkills(server: Server, skills: SkillCatalog | readonly SkillSource[], options: ServeSkillsOptions = {}): Registration {
  const declared = server.options.extensions;
  if (declared === undefined || !Object.prototype.hasOwnProperty.call(declared, SKILLS_EXTENSION))
    throw new Error(
      `[SK-01] expected a server built with ServerOptions.extensions carrying skillsExtension(); got none for ${SKILLS_EXTENSION}`,
    );
  let catalog: SkillCatalog | undefined = skills instanceof SkillCatalog ? skills : new SkillCatalog(skills);
  const cache = (context: HandlerContext, result: JsonObject): JsonObject =>
    context.modern === undefined ? result : { ...result, ttlMs: options.ttlMs ?? 0, cacheScope: options.cacheScope ?? "private" };
  const registrations: Registration[] = [];
  for (const file of catalog.allFiles()) {
    const { uri: _uri, ...definition } = file.resource;
    registrations.push(server.resource(file.uri, definition, () => readSkillFile(file.uri, catalog)));
  }
  server.setRequestHandler(SKILLS_LIST, (params, context) => {
    const page = pageOf(server, "skills", catalog?.entries() ?? [], params?.cursor);
    return cache(context, { skills: page.items, ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}) });
  });
  server.setRequestHandler(SKILLS_GET, (params, context) => {
    const uri = params?.uri;
    const entry = typeof uri === "string" ? catalog?.entry(uri) : undefined;
    if (entry === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown skill: ${String(uri)}`, { uri });
    return cache(context, { skill: entry });
  });
  if (server.extensionHandlers.declarations?.[SKILLS_EXTENSION]?.requests?.includes(DIRECTORY_READ) === true)
    server.setRequestHandler(DIRECTORY_READ, (params) => {
      const uri = params?.uri;
      const children = typeof uri === "string" ? catalog?.directory(uri) : undefined;
      if (children === undefined || typeof uri !== "string")
        throw new McpError(ErrorCode.InvalidParams, `Not a directory: ${String(uri)}`, { uri });
      const page = pageOf(server, `directory ${uri}`, children, params?.cursor);
      return { resources: page.items, ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}) };
    });
  return {
    remove: () => {
      for (const r of registrations) r.remove();
      catalog = undefined;
    },
  };
}

function readSkillFile(uri: string, catalog: SkillCatalog | undefined): ReadResourceResult {
  const file = catalog?.file(uri);
  if (file === undefined) throw new McpError(ErrorCode.InvalidParams, `Resource not found: ${uri}`, { uri });
  const mimeType = file.resource.mimeType;
  return {
    contents: [file.text !== undefined ? { uri, mimeType, text: file.text } : { uri, mimeType, blob: base64Encode(file.bytes) }],
  };
}

/** One page of a list (SK-02: items are whole entries), through the server's sealed cursors when it pages. */
function pageOf<T extends object>(
  server: Server,
  list: string,
  items: readonly T[],
  cursor: unknown,
): { items: readonly T[]; nextCursor?: string } {
  if (cursor !== undefined && typeof cursor !== "string")
    throw new McpError(ErrorCode.InvalidParams, "Invalid cursor", { cursor, reason: "not a string" });
  if (server.paginator === undefined) {
    if (cursor !== undefined)
      throw new McpError(ErrorCode.InvalidParams, "Invalid cursor", {
        cursor,
        reason: "this server lists everything in one page and issues no cursors",
      });
    return { items };
  }
  const page = server.paginator.page(list, items, cursor);
  if (!page.ok) throw new McpError(page.code, page.message, page.data);
  return page.nextCursor === undefined ? { items: page.items } : { items: page.items, nextCursor: page.nextCursor };
}
