// The reference server: the fixture set the official MCP conformance suite expects of a
// server under test (tools, resources, a template, prompts, completions, logging), built on
// the peer layer. The payloads follow the suite's documented expectations; where the suite
// checks exact values (elicitation defaults and enums, audio/wav, JSON Schema 2020-12 keys,
// empty results) they are reproduced exactly.
//
// Beside them, the diagnostic tools and prompt the suite's 2026-07-28 scenarios call are in
// reference-diagnostics.ts, and the tasks extension's tools in reference-tasks.ts.
//
// Everything time-related goes through `sleep` and `now`, which the caller provides (the CLI
// uses setTimeout and Date.now; tests may pass faster or fixed ones).

import { randomUUID } from "node:crypto";
import { ErrorCode } from "../wire/errors.js";
import { registerDiagnostics } from "./reference-diagnostics.js";
import { registerTaskTools } from "./reference-tasks.js";
import { registerProfileTools } from "./conform/profile-tools.js";
import { profiledServer, toolsOnlyServer, type ProfileServerOptions } from "./conform/target-profiles.js";
import { MODERN_VERSIONS, SESSION_VERSIONS } from "../rules/versions.js";
import { McpError } from "../peer/shared/errors.js";
import { RequestStateSealer } from "../peer/server/request-state.js";
import { Server } from "../peer/server/server.js";
import { serveSkills, skillsExtension } from "../peer/server/skills.js";
import { REFERENCE_SKILLS } from "./reference-skills.js";
import type { HandlerContext, TaskOptions } from "../peer/server/server-options.js";
import { serveTasks } from "../peer/server/task-support.js";
import { Paginator } from "../codec/pagination.js";
import { parseTemplate } from "../uri-template/template.js";
import type { CallToolResult, ElicitRequestParams, Implementation } from "../types/index.js";

/** A 1×1 red PNG (RGBA). */
export const TEST_IMAGE_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/** A minimal PCM WAV: 8 kHz, mono, 16-bit, one silent sample. */
export const TEST_AUDIO_BASE64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==";

export const REFERENCE_SERVER_INFO: Implementation = { name: "mcp-engine-reference-server", version: "0.1.0" };

export interface ReferenceServerOptions {
  paginationSecret: Uint8Array;
  /** Resolves after `ms` milliseconds, or rejects when the signal aborts. */
  sleep: (ms: number, signal: HandlerContext["signal"]) => Promise<void>;
  pageSize?: number;
  /** Key for sealing the requestState of input_required results (at least 32 bytes). Default: paginationSecret. */
  requestStateSecret?: Uint8Array;
  /** The clock for requestState expiry, in ms. Default Date.now. */
  now?: () => number;
  /** The tasks extension's options (ids default to crypto.randomUUID, polling to every 250 ms). */
  tasks?: Partial<TaskOptions>;
  /** Offer the conformance profile's tools (slow and the trigger tools): `mcp-engine conform` asks for them with MCP_CONFORM=1. */
  profileTools?: boolean;
  /** A target profile's server options (conform/target-profiles.ts): its settings, and `toolsOnly` for a tools-only server. */
  profile?: ProfileServerOptions;
}

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });
const NO_ARGS = { type: "object" as const, properties: {} };

export function createReferenceServer(options: ReferenceServerOptions): Server {
  const { sleep } = options;
  const base = {
    info: REFERENCE_SERVER_INFO,
    instructions: "The mcp-engine reference server: the conformance fixture set.",
    // Dual era: session-era clients initialize; 2026-07-28 clients send the per-request envelope.
    versions: [...SESSION_VERSIONS, ...MODERN_VERSIONS],
    // The official suite's 2026-07-28 set expects -32022 for a discover naming an unknown version.
    discoverAnyVersion: false,
  };
  // The `tools` target profile: the conformance profile's tools and no other capability.
  if (options.profile?.toolsOnly === true) return toolsOnlyServer({ ...base, logging: false, ...options.profile.server });
  const server = profiledServer(
    {
      ...base,
      paging: new Paginator({ secret: options.paginationSecret, pageSize: options.pageSize ?? 100 }),
      // The 2026-07-28 tasks extension, for the suite's tasks scenarios (reference-tasks.ts), and the
      // 2025-11-25 core tasks for session-era clients (SDK v1's client.experimental.tasks) from the same store;
      // not under a conform target profile, whose published capabilities have no session-era `tasks`.
      tasks: serveTasks({ newTaskId: randomUUID, pollIntervalMs: 250, core: options.profile === undefined, ...options.tasks }),
      // The skills extension (SEP-2640), for the suite's skills scenarios (reference-skills.ts).
      extensions: skillsExtension(),
      // A target profile's settings (limits, versions, discover, instructions, strict) over the defaults above.
      ...options.profile?.server,
    },
    options.profile,
  );
  registerTaskTools(server, sleep);
  serveSkills(server, REFERENCE_SKILLS);
  // The conformance profile's tools, so `mcp-engine conform` can judge this server without its adapter too.
  if (options.profileTools === true) registerProfileTools(server);

  server.tool("test_simple_text", { description: "Tests simple text content response", inputSchema: NO_ARGS }, () =>
    text("This is a simple text response for testing."),
  );

  server.tool("test_image_content", { description: "Tests image content response", inputSchema: NO_ARGS }, () => ({
    content: [{ type: "image", data: TEST_IMAGE_BASE64, mimeType: "image/png" }],
  }));

  server.tool("test_audio_content", { description: "Tests audio content response", inputSchema: NO_ARGS }, () => ({
    content: [{ type: "audio", data: TEST_AUDIO_BASE64, mimeType: "audio/wav" }],
  }));

  server.tool("test_embedded_resource", { description: "Tests embedded resource content response", inputSchema: NO_ARGS }, () => ({
    content: [
      {
        type: "resource",
        resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." },
      },
    ],
  }));

  server.tool(
    "test_multiple_content_types",
    { description: "Tests response with multiple content types (text, image, resource)", inputSchema: NO_ARGS },
    () => ({
      content: [
        { type: "text", text: "Multiple content types test:" },
        { type: "image", data: TEST_IMAGE_BASE64, mimeType: "image/png" },
        {
          type: "resource",
          resource: {
            uri: "test://mixed-content-resource",
            mimeType: "application/json",
            text: JSON.stringify({ test: "data", value: 123 }),
          },
        },
      ],
    }),
  );

  server.tool(
    "test_tool_with_logging",
    { description: "Tests tool that emits log messages during execution", inputSchema: NO_ARGS },
    async (_args, ctx) => {
      ctx.log("info", "Tool execution started");
      ctx.log("debug", "Tool debug detail");
      await sleep(50, ctx.signal);
      ctx.log("info", "Tool processing data");
      await sleep(50, ctx.signal);
      ctx.log("error", "Tool error-level test message");
      ctx.log("info", "Tool execution completed");
      return text("Tool with logging executed successfully");
    },
  );

  server.tool("test_error_handling", { description: "Tests error response handling", inputSchema: NO_ARGS }, () => ({
    content: [{ type: "text", text: "This tool intentionally returns an error for testing" }],
    isError: true,
  }));

  server.tool(
    "test_tool_with_progress",
    { description: "Tests tool that reports progress notifications", inputSchema: NO_ARGS },
    async (_args, ctx) => {
      for (const step of [0, 50, 100]) {
        ctx.progress(step, 100, `Completed step ${step} of 100`);
        if (step < 100) await sleep(50, ctx.signal);
      }
      return text("Tool with progress executed successfully");
    },
  );

  server.tool(
    "test_sampling",
    {
      description: "Tests server-initiated sampling (LLM completion request)",
      inputSchema: {
        type: "object",
        properties: { prompt: { type: "string", description: "The prompt to send to the LLM" } },
        required: ["prompt"],
      },
    },
    async (args, ctx) => {
      if (ctx.clientCapabilities?.sampling === undefined)
        return { ...text("Sampling not supported: the client did not declare the sampling capability"), isError: true };
      const result = await ctx.createMessage({
        messages: [{ role: "user", content: { type: "text", text: String(args.prompt) } }],
        maxTokens: 100,
      });
      const content = Array.isArray(result.content) ? result.content[0] : result.content;
      return text(`LLM response: ${content !== undefined && content.type === "text" ? content.text : JSON.stringify(content)}`);
    },
  );

  server.tool(
    "test_elicitation",
    {
      description: "Tests server-initiated elicitation (user input request)",
      inputSchema: {
        type: "object",
        properties: { message: { type: "string", description: "The message to show the user" } },
        required: ["message"],
      },
    },
    (args, ctx) =>
      elicit(ctx, "User response", {
        message: String(args.message),
        requestedSchema: {
          type: "object",
          properties: {
            username: { type: "string", description: "User's response" },
            email: { type: "string", description: "User's email address" },
          },
          required: ["username", "email"],
        },
      }),
  );

  server.tool(
    "test_elicitation_sep1034_defaults",
    { description: "Tests elicitation with default values for every primitive type (SEP-1034)", inputSchema: NO_ARGS },
    (_args, ctx) =>
      elicit(ctx, "Elicitation completed", {
        mode: "form",
        message: "Please review and update the form fields with defaults",
        requestedSchema: {
          type: "object",
          properties: {
            name: { type: "string", description: "User name", default: "John Doe" },
            age: { type: "integer", description: "User age", default: 30 },
            score: { type: "number", description: "User score", default: 95.5 },
            status: { type: "string", description: "User status", enum: ["active", "inactive", "pending"], default: "active" },
            verified: { type: "boolean", description: "Verification status", default: true },
          },
          required: [],
        },
      }),
  );

  server.tool(
    "test_elicitation_sep1330_enums",
    { description: "Tests elicitation with titled, untitled, legacy and multi-select enums (SEP-1330)", inputSchema: NO_ARGS },
    (_args, ctx) =>
      elicit(ctx, "Elicitation completed", {
        mode: "form",
        message: "Please select options from the enum fields",
        requestedSchema: {
          type: "object",
          properties: {
            untitledSingle: { type: "string", description: "Select one option", enum: ["option1", "option2", "option3"] },
            titledSingle: {
              type: "string",
              description: "Select one option with titles",
              oneOf: [
                { const: "value1", title: "First Option" },
                { const: "value2", title: "Second Option" },
                { const: "value3", title: "Third Option" },
              ],
            },
            legacyEnum: {
              type: "string",
              description: "Select one option (legacy)",
              enum: ["opt1", "opt2", "opt3"],
              enumNames: ["Option One", "Option Two", "Option Three"],
            },
            untitledMulti: {
              type: "array",
              description: "Select multiple options",
              minItems: 1,
              maxItems: 3,
              items: { type: "string", enum: ["option1", "option2", "option3"] },
            },
            titledMulti: {
              type: "array",
              description: "Select multiple options with titles",
              minItems: 1,
              maxItems: 3,
              items: {
                anyOf: [
                  { const: "value1", title: "First Choice" },
                  { const: "value2", title: "Second Choice" },
                  { const: "value3", title: "Third Choice" },
                ],
              },
            },
          },
          required: [],
        },
      } as ElicitRequestParams),
  );

  server.tool(
    "json_schema_2020_12_tool",
    {
      description: "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
      inputSchema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        $defs: { address: { $anchor: "addressDef", type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
        properties: {
          name: { type: "string" },
          address: { $ref: "#/$defs/address" },
          contactMethod: { type: "string", enum: ["phone", "email"] },
          phone: { type: "string" },
          email: { type: "string" },
        },
        allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
        if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
        then: { required: ["phone"] },
        else: { required: ["email"] },
        additionalProperties: false,
      },
    },
    (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
  );

  server.tool(
    "test_reconnection",
    {
      description: "Tests SSE stream disconnection and client reconnection (SEP-1699); over stdio it simply answers after a short pause",
      inputSchema: NO_ARGS,
    },
    async (_args, ctx) => {
      await sleep(100, ctx.signal);
      return text("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.");
    },
  );

  server.tool(
    "test_tool_slow",
    {
      description: "Sleeps for durationMs (default 200), reporting progress; stops early when cancelled",
      inputSchema: { type: "object", properties: { durationMs: { type: "number", minimum: 0, maximum: 600000, default: 200 } } },
    },
    async (args, ctx) => {
      const duration = typeof args.durationMs === "number" ? args.durationMs : 200;
      const steps = 10;
      for (let i = 1; i <= steps; i++) {
        await sleep(duration / steps, ctx.signal);
        ctx.progress(i, steps, `slept ${Math.round((duration * i) / steps)} of ${duration} ms`);
      }
      return text(`Slept ${duration} ms`);
    },
  );

  server.tool("test_tool_fast", { description: "Answers at once", inputSchema: NO_ARGS }, () => text("fast"));

  server.resource(
    "test://static-text",
    { name: "static-text", title: "Static Text Resource", description: "A static text resource for testing", mimeType: "text/plain" },
    (uri) => ({
      contents: [{ uri, mimeType: "text/plain", text: "This is the content of the static text resource." }],
    }),
  );

  server.resource(
    "test://static-binary",
    {
      name: "static-binary",
      title: "Static Binary Resource",
      description: "A static binary resource (image) for testing",
      mimeType: "image/png",
    },
    (uri) => ({
      contents: [{ uri, mimeType: "image/png", blob: TEST_IMAGE_BASE64 }],
    }),
  );

  server.resource(
    "test://watched-resource",
    { name: "watched-resource", title: "Watched Resource", description: "A resource clients can subscribe to", mimeType: "text/plain" },
    (uri) => ({
      contents: [{ uri, mimeType: "text/plain", text: "Watched resource content" }],
    }),
  );

  server.resourceTemplate(
    parseTemplate("test://template/{id}/data"),
    {
      name: "template",
      title: "Resource Template",
      description: "A resource template with parameter substitution",
      mimeType: "application/json",
      complete: { id: (value) => ["123", "456", "789"].filter((v) => v.startsWith(value)) },
    },
    (uri, variables) => {
      const id = String(variables.id);
      return {
        contents: [{ uri, mimeType: "application/json", text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }],
      };
    },
  );

  server.prompt("test_simple_prompt", { title: "Simple Test Prompt", description: "A simple prompt without arguments" }, () => ({
    messages: [{ role: "user", content: { type: "text", text: "This is a simple prompt for testing." } }],
  }));

  const argumentValues = (value: string): string[] =>
    ["test", "testValue1", "testValue2", "hello", "world"].filter((v) => v.startsWith(value));
  server.prompt(
    "test_prompt_with_arguments",
    {
      title: "Prompt With Arguments",
      description: "A prompt with required arguments",
      arguments: [
        { name: "arg1", description: "First test argument", required: true },
        { name: "arg2", description: "Second test argument", required: true },
      ],
      complete: { arg1: argumentValues, arg2: argumentValues },
    },
    (args) => ({
      messages: [{ role: "user", content: { type: "text", text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` } }],
    }),
  );

  server.prompt(
    "test_prompt_with_embedded_resource",
    {
      title: "Prompt With Embedded Resource",
      description: "A prompt that includes an embedded resource",
      arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }],
      complete: { resourceUri: (value) => ["test://static-text", "test://example-resource"].filter((v) => v.startsWith(value)) },
    },
    (args) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "resource",
            resource: { uri: String(args.resourceUri), mimeType: "text/plain", text: "Embedded resource content for testing." },
          },
        },
        { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
      ],
    }),
  );

  server.prompt("test_prompt_with_image", { title: "Prompt With Image", description: "A prompt that includes image content" }, () => ({
    messages: [
      { role: "user", content: { type: "image", data: TEST_IMAGE_BASE64, mimeType: "image/png" } },
      { role: "user", content: { type: "text", text: "Please analyze the image above." } },
    ],
  }));

  registerDiagnostics(
    server,
    new RequestStateSealer({ secret: options.requestStateSecret ?? options.paginationSecret }),
    options.now ?? Date.now,
  );
  return server;
}

async function elicit(ctx: HandlerContext, label: string, params: ElicitRequestParams): Promise<CallToolResult> {
  if (ctx.clientCapabilities?.elicitation === undefined) {
    return { ...text("Elicitation not supported: the client did not declare the elicitation capability"), isError: true };
  }
  try {
    const result = await ctx.elicit(params);
    return text(`${label}: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
  } catch (error) {
    if (error instanceof McpError && error.code === ErrorCode.MethodNotFound)
      return { ...text(`Elicitation not supported: ${error.message}`), isError: true };
    throw error;
  }
}
