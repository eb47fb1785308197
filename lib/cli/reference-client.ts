// The reference client's report: exercises everything a connected server declares and
// prints one line per check. Transport-agnostic: it takes a connected peer-layer Client.
//
// Arguments for tools and prompts are derived from their schemas (defaults, enums,
// minimums, or a plain placeholder), so it can run against any server; destructive tools
// are skipped unless asked for.

import { ErrorCode } from "../errors.js";
import type { JsonObject } from "../envelope.js";
import type { Client } from "../peer/client.js";
import { McpError, RequestAbortedError } from "../peer/errors.js";
import { validateJsonSchema } from "../peer/json-schema.js";
import { PeerAbortController } from "../peer/signal.js";
import { parseTemplate } from "../peer/uri-template.js";
import type { ClientCapabilities, CreateMessageResult, ElicitRequestParams, ElicitResult, Implementation, Tool } from "../types.js";

export const REFERENCE_CLIENT_INFO: Implementation = { name: "mcp-engine-reference-client", version: "0.1.0" };

export const REFERENCE_CLIENT_CAPABILITIES: ClientCapabilities = { sampling: {}, elicitation: {}, roots: { listChanged: true } };

export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
}

export interface ReportOptions {
  /** Called with each finished check, in order. */
  print: (check: CheckResult) => void;
  /** Waits `ms` milliseconds (for the cancellation check). */
  sleep: (ms: number) => Promise<void>;
  /** Also call tools whose annotations say destructiveHint: true. Default false. */
  callDestructiveTools?: boolean;
}

/** Canned answers for the server's requests, so that sampling and elicitation tools can complete. */
export function installReferenceHandlers(client: Client): void {
  client.setRequestHandler("sampling/createMessage", (): CreateMessageResult => ({
    role: "assistant",
    content: { type: "text", text: "This is a test response from the mcp-engine reference client" },
    model: "mcp-engine-reference-client",
    stopReason: "endTurn",
  }));
  client.setRequestHandler("elicitation/create", (params: ElicitRequestParams): ElicitResult => ({ action: "accept", content: elicitationAnswer(params) }));
  client.setRequestHandler("roots/list", () => ({ roots: [{ uri: "file:///tmp", name: "tmp" }] }));
}

/** Fills every requested field: its default, else its first allowed value, else a placeholder of its type. */
export function elicitationAnswer(params: ElicitRequestParams): { [key: string]: string | number | boolean | string[] } {
  const answer: { [key: string]: string | number | boolean | string[] } = {};
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
 * Arguments for a tool from its input schema: first only required and defaulted properties;
 * if the schema refuses those (conditional or combined requirements), every property filled.
 * Undefined when neither satisfies the schema: the tool is then skipped, not called with
 * arguments it would refuse.
 */
export function toolArguments(tool: Tool): Record<string, unknown> | undefined {
  const schema = tool.inputSchema as JsonObject;
  const properties = (schema.properties ?? {}) as { [key: string]: JsonObject };
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const minimal: Record<string, unknown> = {};
  const full: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(properties)) {
    full[key] = prop.default !== undefined ? prop.default : sampleValue(resolveRef(schema, prop));
    if (prop.default !== undefined || required.has(key)) minimal[key] = full[key];
  }
  // Someone else's schema: a keyword this validator does not know is skipped, not a reason to skip the tool.
  for (const candidate of [minimal, full]) if (validateJsonSchema(schema, candidate, { unknownKeywords: "ignore" }).valid) return candidate;
  return undefined;
}

/** A property schema with a local $ref ("#/$defs/x", "#/definitions/x") replaced by its target. */
function resolveRef(root: JsonObject, prop: JsonObject): JsonObject {
  const ref = prop.$ref;
  if (typeof ref !== "string") return prop;
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  const defs = match === null ? undefined : (root[match[1] as string] as { [key: string]: JsonObject } | undefined);
  return (match !== null ? defs?.[match[2] as string] : undefined) ?? prop;
}

function sampleValue(prop: JsonObject): unknown {
  const choice = firstChoice(prop);
  if (choice !== undefined) return choice;
  switch (prop.type) {
    case "number":
    case "integer":
      return typeof prop.minimum === "number" ? prop.minimum : 1;
    case "boolean":
      return true;
    case "array":
      return [];
    case "object":
      return {};
    default:
      return "test";
  }
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Runs every check; resolves with the number of failures. */
export async function runReport(client: Client, options: ReportOptions): Promise<{ passed: number; failed: number }> {
  let passed = 0;
  let failed = 0;
  const record = (name: string, ok: boolean, detail: string): void => {
    if (ok) passed++;
    else failed++;
    options.print({ name, ok, detail });
  };
  const check = async (name: string, run: () => Promise<string>): Promise<void> => {
    try {
      record(name, true, await run());
    } catch (error) {
      record(name, false, errorText(error));
    }
  };

  const server = client.server;
  if (server === undefined) {
    record("initialize", false, "the client is not connected");
    return { passed, failed };
  }
  record("initialize", true, `${server.serverInfo.name} ${server.serverInfo.version}, protocol ${server.version} (${server.era === "modern" ? "modern era: server/discover, stateless" : "session era: initialize"})`);
  const caps = server.capabilities;
  let logMessages = 0;
  client.onNotification("notifications/message", () => logMessages++);

  const modern = server.era === "modern";
  // 2026-07-28 has no ping; any cheap request shows the server still answers.
  const alive = (): Promise<unknown> => (modern ? client.request("server/discover", undefined, { timeoutMs: 5000 }) : client.ping({ timeoutMs: 5000 }));
  await check(modern ? "server/discover" : "ping", async () => {
    await alive();
    return "answered";
  });

  // 2026-07-28 has no logging/setLevel: the level travels in every request's _meta (ClientOptions.logLevel).
  if (caps.logging !== undefined && !modern) {
    await check("logging/setLevel", async () => {
      await client.setLoggingLevel("debug");
      return "level debug";
    });
  }

  let tools: Tool[] = [];
  if (caps.tools !== undefined) {
    await check("tools/list", async () => {
      tools = await client.listTools();
      return `${tools.length} tools`;
    });
    for (const tool of tools) {
      if (tool.annotations?.destructiveHint === true && options.callDestructiveTools !== true) {
        record(`tools/call ${tool.name}`, true, "skipped: destructive");
        continue;
      }
      const args = toolArguments(tool);
      if (args === undefined) {
        record(`tools/call ${tool.name}`, true, "skipped: no arguments could be derived from its input schema");
        continue;
      }
      await check(`tools/call ${tool.name}`, async () => {
        const result = await client.callTool(tool.name, args, { timeoutMs: 30_000 });
        const first = result.content[0];
        const summary = first === undefined ? "no content" : first.type === "text" ? JSON.stringify(first.text.slice(0, 60)) : first.type;
        return `${result.isError === true ? "isError result" : "result"}: ${result.content.length} block(s), ${summary}`;
      });
    }
    await check("tools/call unknown tool", async () => {
      try {
        await client.callTool("no_such_tool_mcp_engine", {});
      } catch (error) {
        if (error instanceof McpError && error.code === ErrorCode.InvalidParams) return "refused with -32602";
        throw error;
      }
      throw new Error("an unknown tool was not refused with a protocol error");
    });
    const progressTool = tools.find((t) => t.name === "test_tool_with_progress");
    if (progressTool !== undefined) {
      await check("progress", async () => {
        const seen: number[] = [];
        await client.callTool(progressTool.name, {}, { onProgress: (p) => seen.push(p.progress), resetTimeoutOnProgress: true, timeoutMs: 10_000 });
        if (seen.length === 0) throw new Error("no progress notifications");
        for (let i = 1; i < seen.length; i++) if ((seen[i] as number) <= (seen[i - 1] as number)) throw new Error(`progress did not increase: ${seen.join(", ")}`);
        return `${seen.length} notifications: ${seen.join(", ")}`;
      });
    }
    const slowTool = tools.find((t) => t.name === "test_tool_slow");
    if (slowTool !== undefined) {
      await check("cancellation", async () => {
        const controller = new PeerAbortController();
        const call = client.callTool(slowTool.name, { durationMs: 30_000 }, { signal: controller.signal, timeoutMs: 60_000 });
        await options.sleep(100);
        controller.abort("the report cancels the slow call");
        try {
          await call;
        } catch (error) {
          if (!(error instanceof RequestAbortedError)) throw error;
          await alive();
          return "slow call cancelled; the server still answers";
        }
        throw new Error("the slow call finished instead of being cancelled");
      });
    }
  }

  if (caps.resources !== undefined) {
    let resources: Awaited<ReturnType<Client["listResources"]>> = [];
    await check("resources/list", async () => {
      resources = await client.listResources();
      return `${resources.length} resources`;
    });
    for (const resource of resources) {
      await check(`resources/read ${resource.uri}`, async () => {
        const result = await client.readResource(resource.uri);
        const first = result.contents[0];
        return `${result.contents.length} content(s)${first?.mimeType !== undefined ? `, ${first.mimeType}` : ""}`;
      });
    }
    let templates: Awaited<ReturnType<Client["listResourceTemplates"]>> = [];
    await check("resources/templates/list", async () => {
      templates = await client.listResourceTemplates();
      return `${templates.length} templates`;
    });
    for (const template of templates) {
      await check(`resources/read ${template.uriTemplate}`, async () => {
        const parsed = parseTemplate(template.uriTemplate);
        const vars: Record<string, string> = {};
        for (const name of parsed.variableNames) vars[name] = await completeOr(client, { type: "ref/resource", uri: template.uriTemplate }, name, "1", caps.completions !== undefined);
        const uri = parsed.expand(vars);
        const result = await client.readResource(uri);
        return `${uri}: ${result.contents.length} content(s)`;
      });
    }
    if (caps.resources.subscribe === true && resources[0] !== undefined) {
      const uri = resources[0].uri;
      if (modern) {
        await check(`subscriptions/listen ${uri}`, () => listenOnce(client, uri, options));
      } else {
        await check(`resources/subscribe ${uri}`, async () => {
          await client.subscribeResource(uri);
          await client.unsubscribeResource(uri);
          return "subscribed and unsubscribed";
        });
      }
    }
    await check("resources/read unknown", async () => {
      try {
        await client.readResource("test://no-such-resource-mcp-engine");
      } catch (error) {
        if (error instanceof McpError && (error.code === ErrorCode.ResourceNotFound || error.code === ErrorCode.InvalidParams)) return `refused with ${error.code}`;
        throw error;
      }
      throw new Error("an unknown resource was not refused");
    });
  }

  if (caps.prompts !== undefined) {
    let prompts: Awaited<ReturnType<Client["listPrompts"]>> = [];
    await check("prompts/list", async () => {
      prompts = await client.listPrompts();
      return `${prompts.length} prompts`;
    });
    for (const prompt of prompts) {
      await check(`prompts/get ${prompt.name}`, async () => {
        const args: Record<string, string> = {};
        for (const arg of prompt.arguments ?? []) {
          if (arg.required === true) args[arg.name] = await completeOr(client, { type: "ref/prompt", name: prompt.name }, arg.name, "test", caps.completions !== undefined);
        }
        const result = await client.getPrompt(prompt.name, args);
        return `${result.messages.length} message(s)`;
      });
    }
    const withArgs = prompts.find((p) => (p.arguments ?? []).length > 0);
    if (caps.completions !== undefined && withArgs !== undefined) {
      const arg = (withArgs.arguments ?? [])[0]?.name as string;
      await check(`completion/complete ${withArgs.name}.${arg}`, async () => {
        const result = await client.complete({ ref: { type: "ref/prompt", name: withArgs.name }, argument: { name: arg, value: "" } });
        return `${result.completion.values.length} value(s)${result.completion.values.length > 0 ? `: ${result.completion.values.slice(0, 5).join(", ")}` : ""}`;
      });
    }
  }

  if (caps.logging !== undefined) {
    record("logging", logMessages > 0 || !tools.some((t) => t.name === "test_tool_with_logging"), `${logMessages} log message(s) received`);
  }
  return { passed, failed };
}

/** 2026-07-28: opens a subscriptions/listen stream for one URI, waits for its acknowledgement, then cancels it. */
async function listenOnce(client: Client, uri: string, options: ReportOptions): Promise<string> {
  const controller = new PeerAbortController();
  let acknowledged: unknown;
  const stop = client.onNotification("notifications/subscriptions/acknowledged", (params) => {
    acknowledged = params?.notifications;
  });
  const listen = client.request("subscriptions/listen", { notifications: { resourceSubscriptions: [uri] } }, { signal: controller.signal, timeoutMs: Infinity });
  try {
    for (let waited = 0; acknowledged === undefined && waited < 5000; waited += 20) await options.sleep(20);
    if (acknowledged === undefined) throw new Error("no notifications/subscriptions/acknowledged within 5 s");
    controller.abort("the report ends the subscription");
    await listen.then(
      () => undefined,
      (error: unknown) => {
        if (!(error instanceof RequestAbortedError)) throw error;
      },
    );
    return `acknowledged ${JSON.stringify(acknowledged)}; cancelled`;
  } finally {
    stop();
  }
}

/** The first completion the server offers for an argument, or a fallback. */
async function completeOr(client: Client, ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string }, name: string, fallback: string, canComplete: boolean): Promise<string> {
  if (!canComplete) return fallback;
  try {
    const result = await client.complete({ ref, argument: { name, value: "" } });
    return result.completion.values[0] ?? fallback;
  } catch {
    return fallback;
  }
}
