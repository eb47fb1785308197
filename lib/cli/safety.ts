// Which tools the report leaves alone: those that say, or whose name suggests, that calling
// them changes something outside the call (files, records, processes).
//
// Tool annotations are hints from a server we do not trust (2025-11-25 tools page: clients
// MUST treat them as untrusted unless the server is trusted), so they can only make the
// report more careful, never less: a name with a writing word is skipped even when the
// server says readOnlyHint: true.
//
// A name is split into words at every character that is not a letter or digit (snake_case,
// kebab-case, dotted.names), at lower-to-upper camelCase steps (deleteFile -> delete, file)
// and at acronym ends (HTTPPost -> http, post); each word is compared whole and case-blind, so
// "settings" or "address" do not match "set" or "add".

import type { Tool } from "../types/index.js";

/**
 * Words that, as a whole word of a tool's name, suggest the tool writes, deletes or runs
 * something. Kept deliberately broad: a skipped tool costs one SKIP line; a wrongly called
 * one may cost the user's data.
 */
export const WRITING_WORDS: readonly string[] = [
  // creating and adding
  "create",
  "add",
  "new",
  "insert",
  "append",
  "upload",
  "import",
  "mkdir",
  "touch",
  "make",
  "generate",
  // changing
  "write",
  "update",
  "upsert",
  "edit",
  "modify",
  "change",
  "set",
  "put",
  "patch",
  "post",
  "replace",
  "rename",
  "move",
  "mv",
  "copy",
  "cp",
  "save",
  "store",
  "commit",
  "push",
  "merge",
  "revert",
  "restore",
  "apply",
  "assign",
  "enable",
  "disable",
  "chmod",
  "chown",
  "link",
  // removing
  "delete",
  "del",
  "remove",
  "rm",
  "rmdir",
  "unlink",
  "drop",
  "truncate",
  "clear",
  "reset",
  "purge",
  "wipe",
  "erase",
  "destroy",
  "archive",
  "uninstall",
  "revoke",
  "close",
  // running and sending
  "kill",
  "terminate",
  "stop",
  "restart",
  "exit",
  "quit",
  "shutdown",
  "reboot",
  "exec",
  "execute",
  "run",
  "shell",
  "eval",
  "spawn",
  "install",
  "deploy",
  "publish",
  "send",
  "submit",
  "approve",
  "reject",
  "cancel",
  "pay",
  "transfer",
  "order",
  "book",
  "schedule",
  "invite",
  "share",
  "fork",
];

const WORDS = new Set(WRITING_WORDS);

/** The words of a tool name, lower-cased: "deleteFile_v2" -> ["delete", "file", "v2"]. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== "")
    .map((word) => word.toLowerCase());
}

/**
 * Why the report must not call `tool` without --call-destructive, or undefined when it may.
 * Destructive by its annotations: destructiveHint true, or readOnlyHint false without
 * destructiveHint false (the spec's default for destructiveHint is true, and it matters
 * exactly when the tool is not read-only). Tools without annotations are judged by name only:
 * treating every unannotated tool as destructive would leave nothing to call.
 */
export function destructiveReason(tool: Tool): string | undefined {
  const annotations = tool.annotations;
  if (annotations?.destructiveHint === true) return "its annotations say destructiveHint: true";
  if (annotations?.readOnlyHint === false && annotations.destructiveHint !== false)
    return "its annotations say readOnlyHint: false and leave destructiveHint at its default, true";
  const word = nameWords(tool.name).find((w) => WORDS.has(w));
  if (word !== undefined) return `its name suggests it changes something ("${word}")`;
  return undefined;
}
