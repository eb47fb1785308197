// What the reference client is, apart from its report (report.ts): its identity, the
// capabilities it declares, and its canned answers to the server's requests.
//
// Roots are declared only when the user names them (--root DIR): a client must not hand a
// server directories it does not own (a server may adopt them and write there). Sampling and
// elicitation are answered with fixed texts, so tools that use them can complete.

import type { JsonObject } from "../wire/envelope.js";
import { TASKS_EXTENSION } from "../rules/negotiated-extensions.js";
import type { Client } from "../peer/client/client.js";
import { skillsClient } from "../peer/client/skills-client.js";
import type {
  ClientCapabilities,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  Implementation,
  Root,
  Tool,
} from "../types/index.js";
import { synthesize } from "./synthesize.js";
import { untrustedText } from "../codec/terminal-text.js";

export { runReport, type ReportOptions } from "./report.js";
export type { CheckResult, Grade, Tally } from "./grading.js";

export const REFERENCE_CLIENT_INFO: Implementation = { name: "mcp-engine-reference-client", version: "0.1.0" };

/** Without roots: what the client declares when no --root was given (with the 2026-07-28 tasks extension: its task calls are polled to the end). */
export const REFERENCE_CLIENT_CAPABILITIES: ClientCapabilities = {
  sampling: {},
  elicitation: {},
  extensions: { [TASKS_EXTENSION]: {} },
} as ClientCapabilities;

/** The capabilities for a run: roots only when there are some (RT-01), never listChanged (they never change). */
export function referenceClientCapabilities(roots: readonly Root[]): ClientCapabilities {
  return roots.length > 0 ? { ...REFERENCE_CLIENT_CAPABILITIES, roots: {} } : REFERENCE_CLIENT_CAPABILITIES;
}

/**
 * Canned answers for the server's requests, so that sampling and elicitation tools can
 * complete; roots/list is answered only with `roots` (and, without any, not at all: the
 * client then answers -32601, as for any capability it did not declare).
 */
export function installReferenceHandlers(client: Client, roots: readonly Root[] = []): void {
  client.setRequestHandler(
    "sampling/createMessage",
    (): CreateMessageResult => ({
      role: "assistant",
      content: { type: "text", text: "This is a test response from the mcp-engine reference client" },
      model: "mcp-engine-reference-client",
      stopReason: "endTurn",
    }),
  );
  client.setRequestHandler(
    "elicitation/create",
    (params: ElicitRequestParams): ElicitResult => ({ action: "accept", content: elicitationAnswer(params) }),
  );
  if (roots.length > 0) client.setRequestHandler("roots/list", () => ({ roots: roots.map((root) => ({ ...root })) }));
}

/** Fills every requested field: its default, else its first allowed value, else a placeholder of its type. */
export function elicitationAnswer(params: ElicitRequestParams): { [key: string]: string | number | boolean | string[] } {
  // Null prototype: the keys are the server's.
  const answer = Object.create(null) as { [key: string]: string | number | boolean | string[] };
  const schema = (params as { requestedSchema?: { properties?: { [key: string]: JsonObject } } }).requestedSchema;
  for (const [key, prop] of Object.entries(schema?.properties ?? {})) {
    if (prop.default !== undefined) {
      answer[key] = prop.default as string | number | boolean | string[];
      continue;
    }
    const first = firstChoice(prop);
    if (prop.type === "array") {
      const items = (prop.items ?? {}) as JsonObject;
      const choice = firstChoice(items);
      answer[key] = choice !== undefined ? [choice] : [];
    } else if (first !== undefined) answer[key] = first;
    else if (prop.type === "number" || prop.type === "integer") answer[key] = typeof prop.minimum === "number" ? prop.minimum : 1;
    else if (prop.type === "boolean") answer[key] = true;
    else answer[key] = prop.format === "email" ? "test@example.com" : "test";
  }
  return answer;
}

function firstChoice(schema: JsonObject): string | undefined {
  if (Array.isArray(schema.enum) && typeof schema.enum[0] === "string") return schema.enum[0];
  const options = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  const first = options?.[0] as JsonObject | undefined;
  return typeof first?.const === "string" ? first.const : undefined;
}

/**
 * The skills extension as a host uses it: list the server's skills (reading none of their files,
 * SK-13), then, unless `listOnly`, load each (its SKILL.md verified against the entry, SK-12) and
 * read its supporting files one by one, each verified. A failed verification rejects
 * (SkillVerificationError) before the next file is read.
 */
export async function useSkills(client: Client, listOnly: boolean, log: (text: string) => void, timeoutMs?: number): Promise<void> {
  const skills = skillsClient(client);
  const entries = await skills.list({ timeoutMs });
  log(`${entries.length} skills: ${entries.map((e) => untrustedText(e.uri)).join(", ")}`);
  if (listOnly) return;
  for (const entry of entries) {
    const skill = await skills.load(entry, { timeoutMs });
    for (const file of skill.entry.resources) if (!skill.files.has(file.uri)) await skill.readFile(file.uri, { timeoutMs });
    log(`${untrustedText(entry.uri)}: ${skill.entry.resources.length} files verified`);
  }
}

/** Arguments for a tool that satisfy its inputSchema (synthesize.ts), or undefined when none could be built. */
export function toolArguments(tool: Tool): Record<string, unknown> | undefined {
  const result = synthesize(tool.inputSchema, { object: true });
  return result.ok ? (result.value as Record<string, unknown>) : undefined;
}
