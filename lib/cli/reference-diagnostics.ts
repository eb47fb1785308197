// The reference server's diagnostics for the official suite's 2026-07-28 scenarios: tools (and
// a prompt) that answer input_required results of their own, with named input requests and a
// sealed requestState (refused when tampered with); a tool that needs a capability the client
// did not declare; logging that depends on the request's logLevel; hooks that change the tool
// and prompt lists; and a tool whose arguments travel in Mcp-Param-* headers. Their payloads
// follow what those scenarios check, not their code. In the session era the same tools ask the
// client directly, so each works in both eras.
//
// Invariants: a requestState is trusted only once the sealer has verified it for this very
// tool or prompt (a state that fails is a -32602 protocol error); time is the caller's `now`.

import { ErrorCode } from "../wire/errors.js";
import { isJsonObject, type JsonObject } from "../wire/envelope.js";
import { McpError } from "../peer/shared/errors.js";
import type { RequestStateSealer } from "../peer/server/request-state.js";
import type { HandlerContext, InputRequest, Server } from "../peer/server/server.js";
import type { CallToolResult, ElicitRequestParams } from "../types/index.js";

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });
const NO_ARGS = { type: "object" as const, properties: {} };

const ASK_NAME: ElicitRequestParams = {
  message: "What is your name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
};
const ASK_CONFIRM: ElicitRequestParams = {
  message: "Please confirm",
  requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
};
const ROOTS: InputRequest = { method: "roots/list", params: {} };
const sampling = (prompt: string, maxTokens: number): InputRequest => ({
  method: "sampling/createMessage",
  params: { messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens },
});

/** An ElicitResult as a retry carries it (anything else is not an answer, and is asked again). */
function elicitAnswer(value: unknown): { action: string; content: JsonObject } | undefined {
  if (!isJsonObject(value) || (value.action !== "accept" && value.action !== "decline" && value.action !== "cancel")) return undefined;
  return { action: value.action, content: isJsonObject(value.content) ? value.content : {} };
}

/** The text of a CreateMessageResult as a retry carries it. */
function sampledText(value: unknown): string | undefined {
  if (!isJsonObject(value)) return undefined;
  const content = Array.isArray(value.content) ? value.content[0] : value.content;
  return isJsonObject(content) && typeof content.text === "string" ? content.text : undefined;
}

/** The root URIs of a ListRootsResult as a retry carries it. */
function rootUris(value: unknown): string[] | undefined {
  if (!isJsonObject(value) || !Array.isArray(value.roots)) return undefined;
  return value.roots.map((root) => (isJsonObject(root) && typeof root.uri === "string" ? root.uri : "?"));
}

/** Whether inputResponses[key] answers the input request `request`. */
function answers(request: InputRequest, value: unknown): boolean {
  switch (request.method) {
    case "elicitation/create":
      return elicitAnswer(value) !== undefined;
    case "sampling/createMessage":
      return sampledText(value) !== undefined;
    case "roots/list":
      return rootUris(value) !== undefined;
  }
}

/** What one input request is answered with, asked of the client directly (session era: a server request). */
async function askDirectly(ctx: HandlerContext, request: InputRequest): Promise<unknown> {
  switch (request.method) {
    case "elicitation/create":
      return ctx.elicit(request.params);
    case "sampling/createMessage":
      return ctx.createMessage(request.params);
    case "roots/list":
      return ctx.listRoots();
  }
}

interface InputOptions {
  /** The requestState to send with an input_required result (sealed on demand: only when one is sent). */
  state?: () => Promise<string>;
  /** Ask even when the retry carries answers (its requestState did not say they were asked for). */
  askAgain?: boolean;
}

/**
 * The answers to `requests`, by key. Under 2026-07-28 they come from the retry's
 * inputResponses; while some are missing or malformed the request ends with an
 * input_required result asking for those (MRTR: ask again rather than refuse). In the session
 * era the client is asked directly, so each diagnostic works in both eras.
 */
async function inputs(
  ctx: HandlerContext,
  requests: { readonly [key: string]: InputRequest },
  options: InputOptions = {},
): Promise<{ [key: string]: unknown }> {
  const got: { [key: string]: unknown } = {};
  if (ctx.modern === undefined) {
    for (const [key, request] of Object.entries(requests)) got[key] = await askDirectly(ctx, request);
    return got;
  }
  const missing = Object.entries(requests).filter(
    ([key, request]) => options.askAgain === true || !answers(request, ctx.inputResponses?.[key]),
  );
  if (missing.length > 0)
    return ctx.inputRequired(Object.fromEntries(missing), options.state === undefined ? undefined : await options.state());
  for (const key of Object.keys(requests)) got[key] = ctx.inputResponses?.[key];
  return got;
}

/**
 * The 2026-07-28 diagnostics: tools (and a prompt) that answer input_required results of
 * their own (in the session era they ask the client directly instead), the hooks the
 * stateless scenarios need, and a tool with x-mcp-header arguments.
 */
export function registerDiagnostics(server: Server, sealer: RequestStateSealer, now: () => number): void {
  /** A handler's sealed requestState, opened for this tool (or prompt); a state that fails verification is a protocol error. */
  const openState = async <T>(ctx: HandlerContext, binding: string): Promise<T | undefined> => {
    if (ctx.requestState === undefined) return undefined;
    const opened = await sealer.open<T>(ctx.requestState, binding, now());
    // MRTR: requestState is attacker-controlled; a state this server did not seal for this request is refused, not trusted.
    if (!opened.ok) throw new McpError(ErrorCode.InvalidParams, `requestState refused (${opened.reason})`, { reason: opened.reason });
    return opened.payload;
  };
  const sealing = (payload: unknown, binding: string) => (): Promise<string> => sealer.seal(payload, binding, now());

  server.tool(
    "test_input_required_result_elicitation",
    { description: "Asks for a name (2026-07-28: an input_required result, key user_name), then greets", inputSchema: NO_ARGS },
    async (_args, ctx) => {
      const { user_name } = await inputs(ctx, { user_name: { method: "elicitation/create", params: ASK_NAME } });
      const answer = elicitAnswer(user_name);
      return text(answer?.action === "accept" ? `Hello, ${String(answer.content.name)}!` : `No name given (${String(answer?.action)})`);
    },
  );

  server.tool(
    "test_input_required_result_sampling",
    { description: "Asks the client's model a question (2026-07-28: an input_required result)", inputSchema: NO_ARGS },
    async (_args, ctx) => {
      const { capital_question } = await inputs(ctx, { capital_question: sampling("What is the capital of France?", 100) });
      return text(`The model answered: ${String(sampledText(capital_question))}`);
    },
  );

  server.tool(
    "test_input_required_result_list_roots",
    { description: "Asks for the client's roots (2026-07-28: an input_required result)", inputSchema: NO_ARGS },
    async (_args, ctx) => {
      const roots = rootUris((await inputs(ctx, { client_roots: ROOTS })).client_roots) ?? [];
      return text(`The client has ${roots.length} root(s): ${roots.join(", ")}`);
    },
  );

  // A confirmation round whose requestState is sealed: the retry must echo it untouched.
  for (const name of ["test_input_required_result_request_state", "test_input_required_result_tampered_state"]) {
    const binding = `tools/call:${name}`;
    const description =
      "Asks for a confirmation with a sealed requestState (2026-07-28); a retry whose state fails verification is refused (-32602)";
    server.tool(name, { description, inputSchema: NO_ARGS }, async (_args, ctx) => {
      const state = await openState<{ round: number }>(ctx, binding);
      const { confirm } = await inputs(
        ctx,
        { confirm: { method: "elicitation/create", params: ASK_CONFIRM } },
        { state: sealing({ round: 1 }, binding), askAgain: ctx.modern !== undefined && state === undefined },
      );
      const answer = elicitAnswer(confirm);
      const verified = ctx.modern !== undefined ? "state-ok: the sealed requestState verified" : "session era: no requestState";
      return text(
        `${verified}; confirmation ${String(answer?.action)}${answer?.action === "accept" ? ` (ok=${String(answer.content.ok)})` : ""}`,
      );
    });
  }

  const multiRound = "tools/call:test_input_required_result_multi_round";
  server.tool(
    "test_input_required_result_multi_round",
    {
      description: "Two rounds of input (a name, then a colour); under 2026-07-28 the requestState is sealed anew each round",
      inputSchema: NO_ARGS,
    },
    async (_args, ctx) => {
      const state = await openState<{ step: number; name?: string }>(ctx, multiRound);
      let name = state?.name;
      if (state === undefined || state.step === 1) {
        const { step1 } = await inputs(
          ctx,
          { step1: { method: "elicitation/create", params: { ...ASK_NAME, message: "Step 1: What is your name?" } } },
          { state: sealing({ step: 1 }, multiRound), askAgain: ctx.modern !== undefined && state === undefined },
        );
        name = String(elicitAnswer(step1)?.content.name ?? "(no name)");
      }
      const colour: InputRequest = {
        method: "elicitation/create",
        params: {
          message: "Step 2: What is your favorite color?",
          requestedSchema: { type: "object", properties: { color: { type: "string" } }, required: ["color"] },
        },
      };
      // Round 2's answers hold step1 but not step2, so this asks again with a state that remembers the name.
      const { step2 } = await inputs(ctx, { step2: colour }, { state: sealing({ step: 2, name }, multiRound) });
      return text(`${String(name)}'s favorite color is ${String(elicitAnswer(step2)?.content.color ?? "(none given)")}`);
    },
  );

  const multiple = "tools/call:test_input_required_result_multiple_inputs";
  server.tool(
    "test_input_required_result_multiple_inputs",
    {
      description: "One round asking for an elicitation, a sampling and the roots at once (2026-07-28: with a sealed requestState)",
      inputSchema: NO_ARGS,
    },
    async (_args, ctx) => {
      const state = await openState<{ round: number }>(ctx, multiple);
      const requests: { [key: string]: InputRequest } = {
        user_name: { method: "elicitation/create", params: ASK_NAME },
        greeting: sampling("Generate a greeting", 50),
        client_roots: ROOTS,
      };
      const got = await inputs(ctx, requests, {
        state: sealing({ round: 1 }, multiple),
        askAgain: ctx.modern !== undefined && state === undefined,
      });
      const name = String(elicitAnswer(got.user_name)?.content.name);
      const roots = (rootUris(got.client_roots) ?? []).join(", ");
      return text(`All inputs received: name=${name}, greeting=${String(sampledText(got.greeting))}, roots=${roots}`);
    },
  );

  server.tool(
    "test_input_required_result_capabilities",
    { description: "Asks only for the kinds of input the client declared (sampling, elicitation, roots)", inputSchema: NO_ARGS },
    async (_args, ctx) => {
      const caps = ctx.clientCapabilities;
      const wanted: { [key: string]: InputRequest } = {};
      if (caps?.sampling !== undefined) wanted.sampling = sampling("Say hello", 20);
      if (caps?.elicitation !== undefined) wanted.elicitation = { method: "elicitation/create", params: ASK_NAME };
      if (caps?.roots !== undefined) wanted.roots = ROOTS;
      if (Object.keys(wanted).length === 0) return text("The client declared none of sampling, elicitation and roots: nothing to ask");
      await inputs(ctx, wanted);
      return text(`Received answers for: ${Object.keys(wanted).join(", ")}`);
    },
  );

  server.prompt(
    "test_input_required_result_prompt",
    {
      title: "Prompt Needing Input",
      description: "Asks for context before giving its messages (2026-07-28: prompts/get answers input_required, key user_context)",
    },
    async (_args, ctx) => {
      const ask: InputRequest = {
        method: "elicitation/create",
        params: {
          message: "What context should the prompt use?",
          requestedSchema: { type: "object", properties: { context: { type: "string" } }, required: ["context"] },
        },
      };
      const answer = elicitAnswer((await inputs(ctx, { user_context: ask })).user_context);
      return {
        messages: [
          { role: "user", content: { type: "text", text: `Answer using this context: ${String(answer?.content.context ?? "(none)")}` } },
        ],
      };
    },
  );

  server.tool(
    "test_missing_capability",
    { description: "Needs the client's sampling capability: without it a 2026-07-28 request is refused with -32021", inputSchema: NO_ARGS },
    async (_args, ctx) => {
      const result = await ctx.createMessage({
        messages: [{ role: "user", content: { type: "text", text: "Reply with one word." } }],
        maxTokens: 10,
      });
      const content = Array.isArray(result.content) ? result.content[0] : result.content;
      return text(`Sampled: ${content !== undefined && content.type === "text" ? content.text : JSON.stringify(content)}`);
    },
  );

  server.tool(
    "test_streaming_elicitation",
    {
      description:
        "Reports progress, then elicits: a session-era request on the response stream, an input_required result under 2026-07-28",
      inputSchema: NO_ARGS,
    },
    async (_args, ctx) => {
      ctx.progress(0, 1, "asking the user");
      const result = await ctx.elicit({
        message: "Continue?",
        requestedSchema: { type: "object", properties: { proceed: { type: "boolean" } }, required: ["proceed"] },
      });
      ctx.progress(1, 1, "answered");
      return text(`Elicitation answered: action=${result.action}`);
    },
  );

  server.tool(
    "test_logging_tool",
    {
      description: "Logs at four levels; under 2026-07-28 they are sent only when the request set io.modelcontextprotocol/logLevel",
      inputSchema: NO_ARGS,
    },
    (_args, ctx) => {
      ctx.log("debug", "logging tool: debug");
      ctx.log("info", "logging tool: info");
      ctx.log("warning", "logging tool: warning");
      ctx.log("error", "logging tool: error");
      return text("Logged four messages (debug, info, warning, error)");
    },
  );

  // The list-change hooks add an entry and remove it again: each step is a change the listening clients are told of.
  server.tool(
    "test_trigger_tool_change",
    { description: "Adds a tool and removes it again: two tools/list_changed notifications", inputSchema: NO_ARGS },
    () => {
      server
        .tool("test_transient_tool", { description: "Exists only inside test_trigger_tool_change", inputSchema: NO_ARGS }, () =>
          text("transient"),
        )
        .remove();
      return text("The tool list changed (a tool was added, then removed)");
    },
  );

  server.tool(
    "test_trigger_prompt_change",
    { description: "Adds a prompt and removes it again: two prompts/list_changed notifications", inputSchema: NO_ARGS },
    () => {
      server
        .prompt("test_transient_prompt", { description: "Exists only inside test_trigger_prompt_change" }, () => ({ messages: [] }))
        .remove();
      return text("The prompt list changed (a prompt was added, then removed)");
    },
  );

  server.tool(
    "test_custom_headers",
    {
      description:
        "Arguments mirrored into Mcp-Param-* headers (x-mcp-header); over 2026-07-28 HTTP the host refuses a call whose headers disagree with them (-32020)",
      inputSchema: {
        type: "object",
        properties: {
          region: { type: "string", description: "Mirrored as Mcp-Param-Region", "x-mcp-header": "Region" },
          priority: { type: "integer", description: "Mirrored as Mcp-Param-Priority", "x-mcp-header": "Priority" },
          verbose: { type: "boolean", description: "Mirrored as Mcp-Param-Verbose", "x-mcp-header": "Verbose" },
          query: { type: "string", description: "Not mirrored" },
        },
        required: ["region"],
      },
    },
    (args) => text(`Headers agreed with the arguments: ${JSON.stringify(args)}`),
  );
}
