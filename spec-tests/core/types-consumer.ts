// Type-level checks of lib/types/index.ts, compiled with the normal build and never run as a
// test (the file name has no `.test`). It declares one typed value for the params and the
// result of every method in the four method maps, checks that the maps list exactly the
// methods of RULES.md MT-01, MT-02, SCH-01, SCH-02, SCH-03, and proves with `@ts-expect-error` that wrong shapes are
// refused. Runtime code is trivial: typesConsumer() only builds and returns the values.

import type {
  AnyContentBlock,
  CallToolResult,
  ClientCapabilities,
  ClientNotificationMethod,
  ClientNotifications,
  ClientRequestMethod,
  ClientRequests,
  ClientResult,
  ContentBlock,
  CreateMessageRequestParams,
  CreateTaskResult,
  ElicitRequestParams,
  ElicitResult,
  GetTaskPayloadResult,
  Implementation,
  LoggingLevel,
  NotificationParams,
  PrimitiveSchemaDefinition,
  RequestParams,
  RequestResult,
  SamplingMessage,
  ServerCapabilities,
  ServerNotificationMethod,
  ServerNotifications,
  ServerRequestMethod,
  ServerRequests,
  ServerResult,
  Task,
  TaskStatus,
  Tool,
} from "../../lib/types/index.js";

// ---- Supporting values --------------------------------------------------------------

const info: Implementation = {
  name: "demo",
  version: "1.0.0",
  title: "Demo",
  description: "A demo implementation",
  websiteUrl: "https://example.com",
  icons: [{ src: "https://example.com/i.png", mimeType: "image/png", sizes: ["48x48"], theme: "dark" }],
};

const clientCaps: ClientCapabilities = {
  experimental: { "x-feature": { on: true } },
  roots: { listChanged: true },
  sampling: { context: {}, tools: {} },
  elicitation: { form: {}, url: {} },
  tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
  "com.example/custom": { anything: 1 },
};

const serverCaps: ServerCapabilities = {
  logging: {},
  completions: {},
  prompts: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  tools: { listChanged: false },
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
};

const task: Task = {
  taskId: "t-1",
  status: "working",
  statusMessage: "running",
  createdAt: "2025-11-25T10:00:00Z",
  lastUpdatedAt: "2025-11-25T10:00:01Z",
  ttl: null,
  pollInterval: 500,
};

const created: CreateTaskResult = { task, _meta: { "io.modelcontextprotocol/model-immediate-response": "working on it" } };

const tool: Tool = {
  name: "get_weather",
  title: "Weather",
  description: "Current weather",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  outputSchema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" },
  annotations: { readOnlyHint: true, openWorldHint: true },
  execution: { taskSupport: "optional" },
  _meta: { "com.example/x": 1 },
};

const blocks: ContentBlock[] = [
  { type: "text", text: "hello", annotations: { audience: ["user"], priority: 0.5, lastModified: "2025-01-12T15:00:58Z" } },
  { type: "image", data: "AAAA", mimeType: "image/png" },
  { type: "audio", data: "AAAA", mimeType: "audio/wav" },
  { type: "resource_link", uri: "file:///a.txt", name: "a.txt", size: 3.5 },
  { type: "resource", resource: { uri: "file:///b.bin", mimeType: "application/octet-stream", blob: "AAAA" } },
  { type: "resource", resource: { uri: "file:///c.txt", text: "c" } },
];

const callResult: CallToolResult = { content: blocks, structuredContent: { temp: 21.5 }, isError: false };

// A 2025-11-25 sampling exchange: tool_use in the assistant turn, tool_result in the user turn.
const samplingMessages: SamplingMessage[] = [
  { role: "user", content: { type: "text", text: "Weather in Paris?" } },
  { role: "assistant", content: [{ type: "tool_use", id: "u1", name: "get_weather", input: { city: "Paris" } }] },
  {
    role: "user",
    content: [{ type: "tool_result", toolUseId: "u1", content: [{ type: "text", text: "21C" }], structuredContent: { temp: 21 } }],
  },
];

const sampling: CreateMessageRequestParams = {
  messages: samplingMessages,
  maxTokens: 100,
  systemPrompt: "be brief",
  includeContext: "none",
  temperature: 0.2,
  stopSequences: ["\n\n"],
  metadata: { provider: "x" },
  modelPreferences: { hints: [{ name: "claude" }], costPriority: 0.3, speedPriority: 0.5, intelligencePriority: 0.9 },
  tools: [tool],
  toolChoice: { mode: "auto" },
  task: { ttl: 60000 },
  _meta: { progressToken: 7 },
};

const fields: PrimitiveSchemaDefinition[] = [
  { type: "string", title: "Name", minLength: 1, maxLength: 50, format: "email", default: "a@b.c" },
  { type: "number", minimum: 0.5, maximum: 9.5, default: 1 },
  { type: "integer" },
  { type: "boolean", default: true },
  { type: "string", enum: ["a", "b"], default: "a" },
  { type: "string", oneOf: [{ const: "a", title: "A" }], default: "a" },
  { type: "array", items: { type: "string", enum: ["x", "y"] }, minItems: 1, maxItems: 2, default: ["x"] },
  { type: "array", items: { anyOf: [{ const: "x", title: "X" }] } },
  { type: "string", enum: ["a", "b"], enumNames: ["A", "B"] },
];

const formElicit: ElicitRequestParams = {
  message: "Your name?",
  requestedSchema: { type: "object", properties: { name: fields[0]!, age: { type: "integer" } }, required: ["name"] },
};
const urlElicit: ElicitRequestParams = { mode: "url", message: "Sign in", elicitationId: "e1", url: "https://example.com/auth" };
const elicitResult: ElicitResult = { action: "accept", content: { name: "Ada", age: 36, ok: true, tags: ["x", "y"] } };

// ---- Every method of the four maps --------------------------------------------------

const clientRequests: ClientRequests = {
  initialize: {
    params: { protocolVersion: "2025-11-25", capabilities: clientCaps, clientInfo: info, _meta: { progressToken: "p" } },
    result: { protocolVersion: "2025-11-25", capabilities: serverCaps, serverInfo: info, instructions: "use tools" },
  },
  ping: { params: undefined, result: {} },
  "resources/list": {
    params: { cursor: "c1" },
    result: {
      resources: [{ uri: "file:///a", name: "a", title: "A", mimeType: "text/plain", size: 10, annotations: { priority: 1 }, icons: [] }],
      nextCursor: "c2",
    },
  },
  "resources/templates/list": {
    params: undefined,
    result: { resourceTemplates: [{ uriTemplate: "file:///{path}", name: "files", mimeType: "text/plain" }] },
  },
  "resources/read": {
    params: { uri: "file:///a" },
    result: {
      contents: [
        { uri: "file:///a", text: "hi" },
        { uri: "file:///b", blob: "AAAA", _meta: {} },
      ],
    },
  },
  "resources/subscribe": { params: { uri: "file:///a" }, result: {} },
  "resources/unsubscribe": { params: { uri: "file:///a" }, result: { _meta: {} } },
  "prompts/list": {
    params: {},
    result: { prompts: [{ name: "p", title: "P", arguments: [{ name: "x", title: "X", description: "x", required: true }] }] },
  },
  "prompts/get": {
    params: { name: "p", arguments: { x: "1" } },
    result: {
      description: "d",
      messages: [
        { role: "user", content: blocks[0]! },
        { role: "assistant", content: blocks[3]! },
      ],
    },
  },
  "tools/list": { params: undefined, result: { tools: [tool] } },
  "tools/call": { params: { name: "get_weather", arguments: { city: "Paris" }, task: { ttl: 1000 } }, result: callResult },
  "logging/setLevel": { params: { level: "warning" }, result: {} },
  "completion/complete": {
    params: { ref: { type: "ref/prompt", name: "p" }, argument: { name: "x", value: "1" }, context: { arguments: { y: "2" } } },
    result: { completion: { values: ["10", "11"], total: 2, hasMore: false } },
  },
  "tasks/get": { params: { taskId: "t-1" }, result: { ...task, _meta: {} } },
  "tasks/result": {
    params: { taskId: "t-1" },
    result: { content: [], _meta: { "io.modelcontextprotocol/related-task": { taskId: "t-1" } } },
  },
  "tasks/list": { params: { cursor: "c" }, result: { tasks: [task], nextCursor: "d" } },
  "tasks/cancel": { params: { taskId: "t-1" }, result: { ...task, status: "cancelled" } },
};

const serverRequests: ServerRequests = {
  ping: { params: { _meta: { progressToken: 1 } }, result: {} },
  "sampling/createMessage": {
    params: sampling,
    result: { role: "assistant", content: { type: "text", text: "21C" }, model: "m", stopReason: "endTurn" },
  },
  "roots/list": { params: undefined, result: { roots: [{ uri: "file:///home", name: "home", _meta: {} }] } },
  "elicitation/create": { params: formElicit, result: elicitResult },
  "tasks/get": { params: { taskId: "t-2" }, result: task },
  "tasks/result": { params: { taskId: "t-2" }, result: { action: "decline" } },
  "tasks/list": { params: undefined, result: { tasks: [] } },
  "tasks/cancel": { params: { taskId: "t-2" }, result: task },
};

const clientNotifications: ClientNotifications = {
  "notifications/initialized": { params: undefined },
  "notifications/cancelled": { params: { requestId: 3, reason: "timeout" } },
  "notifications/progress": { params: { progressToken: "p", progress: 0.5, total: 1, message: "half" } },
  "notifications/roots/list_changed": { params: {} },
  "notifications/tasks/status": { params: { ...task, status: "input_required" } },
};

const serverNotifications: ServerNotifications = {
  "notifications/cancelled": { params: { requestId: "r-1" } },
  "notifications/progress": { params: { progressToken: 7, progress: 3 } },
  "notifications/message": { params: { level: "error", logger: "db", data: { code: 1 } } },
  "notifications/resources/list_changed": { params: undefined },
  "notifications/resources/updated": { params: { uri: "file:///a" } },
  "notifications/prompts/list_changed": { params: undefined },
  "notifications/tools/list_changed": { params: { _meta: {} } },
  "notifications/elicitation/complete": { params: { elicitationId: "e1" } },
  "notifications/tasks/status": { params: { ...task, status: "completed" } },
};

// The maps hold exactly the methods of RULES.md MT-01, MT-02, SCH-01, SCH-02, SCH-03 (a missing or extra key fails here).
const clientRequestMethods: { [M in ClientRequestMethod]: true } = {
  initialize: true,
  ping: true,
  "resources/list": true,
  "resources/templates/list": true,
  "resources/read": true,
  "resources/subscribe": true,
  "resources/unsubscribe": true,
  "prompts/list": true,
  "prompts/get": true,
  "tools/list": true,
  "tools/call": true,
  "logging/setLevel": true,
  "completion/complete": true,
  "tasks/get": true,
  "tasks/result": true,
  "tasks/list": true,
  "tasks/cancel": true,
};
const serverRequestMethods: { [M in ServerRequestMethod]: true } = {
  ping: true,
  "sampling/createMessage": true,
  "roots/list": true,
  "elicitation/create": true,
  "tasks/get": true,
  "tasks/result": true,
  "tasks/list": true,
  "tasks/cancel": true,
};
const clientNotificationMethods: { [M in ClientNotificationMethod]: true } = {
  "notifications/initialized": true,
  "notifications/cancelled": true,
  "notifications/progress": true,
  "notifications/roots/list_changed": true,
  "notifications/tasks/status": true,
};
const serverNotificationMethods: { [M in ServerNotificationMethod]: true } = {
  "notifications/cancelled": true,
  "notifications/progress": true,
  "notifications/message": true,
  "notifications/resources/list_changed": true,
  "notifications/resources/updated": true,
  "notifications/prompts/list_changed": true,
  "notifications/tools/list_changed": true,
  "notifications/elicitation/complete": true,
  "notifications/tasks/status": true,
};

// ---- Helper types -------------------------------------------------------------------

const callParams: RequestParams<ClientRequests, "tools/call"> = { name: "x" };
const callOutcome: RequestResult<ClientRequests, "tools/call"> = created;
const listParams: RequestParams<ClientRequests, "tools/list"> = undefined;
const elicitParams: RequestParams<ServerRequests, "elicitation/create"> = urlElicit;
const progress: NotificationParams<ServerNotifications, "notifications/progress"> = { progressToken: 1, progress: 1 };
const payload: GetTaskPayloadResult = callResult;
const clientResult: ClientResult = elicitResult;
const serverResult: ServerResult = created;
const statuses: TaskStatus[] = ["working", "input_required", "completed", "failed", "cancelled"];
const levels: LoggingLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/** Exhaustive switch over every content block type (fails to compile if a tag is missing). */
function blockKind(block: AnyContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return block.mimeType;
    case "resource_link":
      return block.uri;
    case "resource":
      return block.resource.uri;
    case "tool_use":
      return block.name;
    case "tool_result":
      return block.toolUseId;
    default: {
      const unreachable: never = block;
      return unreachable;
    }
  }
}

/** Narrowing elicitation params on `mode`. */
function elicitTarget(params: ElicitRequestParams): string {
  return params.mode === "url" ? params.url : params.message;
}

// ---- Wrong shapes are refused -------------------------------------------------------

// @ts-expect-error tools/call without name
const noName: RequestParams<ClientRequests, "tools/call"> = { arguments: {} };
// @ts-expect-error a text content block without text
const noText: ContentBlock = { type: "text" };
// @ts-expect-error an unknown logging level
const badLevel: LoggingLevel = "verbose";
// @ts-expect-error an unknown content block type
const badType: ContentBlock = { type: "video", data: "", mimeType: "video/mp4" };
// @ts-expect-error tool_use is not allowed in a tool result / prompt ContentBlock
const toolUseInResult: ContentBlock = { type: "tool_use", id: "u", name: "n", input: {} };
// @ts-expect-error initialize needs params
const noInitParams: RequestParams<ClientRequests, "initialize"> = undefined;
// @ts-expect-error resources/read needs a string uri
const badUri: RequestParams<ClientRequests, "resources/read"> = { uri: 1 };
// @ts-expect-error sampling needs maxTokens
const noMaxTokens: CreateMessageRequestParams = { messages: [] };
// @ts-expect-error a URL elicitation needs the url
const noUrl: ElicitRequestParams = { mode: "url", message: "m", elicitationId: "e" };
// @ts-expect-error an unknown elicitation action
const badAction: ElicitResult = { action: "ok" };
// @ts-expect-error Task.ttl is required (null for unlimited)
const noTtl: Task = { taskId: "t", status: "working", createdAt: "", lastUpdatedAt: "" };
// @ts-expect-error an unknown task status
const badStatus: TaskStatus = "running";
// @ts-expect-error a tool's inputSchema root must be type "object"
const badSchema: Tool = { name: "t", inputSchema: { type: "string" } };
// @ts-expect-error progress needs a progressToken
const noToken: NotificationParams<ClientNotifications, "notifications/progress"> = { progress: 1 };
// @ts-expect-error exact types: an unknown member of a non-capability object is refused
const extraMember: Implementation = { name: "n", version: "1", vendor: "x" };
// @ts-expect-error elicitation fields are flat primitives: no nested object schema
const nestedField: PrimitiveSchemaDefinition = { type: "object" };
// @ts-expect-error not a client request method
const notAMethod: ClientRequestMethod = "sampling/createMessage";
// @ts-expect-error roots/list is not in ClientRequests
const wrongMap: RequestParams<ClientRequests, "roots/list"> = undefined;
// @ts-expect-error capability sub-flags keep their types even though the objects are open
const badFlag: ServerCapabilities = { tools: { listChanged: "yes" } };

export function typesConsumer(): unknown[] {
  return [
    clientRequests,
    serverRequests,
    clientNotifications,
    serverNotifications,
    clientRequestMethods,
    serverRequestMethods,
    clientNotificationMethods,
    serverNotificationMethods,
    callParams,
    callOutcome,
    listParams,
    elicitParams,
    progress,
    payload,
    clientResult,
    serverResult,
    statuses,
    levels,
    blocks.map(blockKind),
    elicitTarget(formElicit),
    elicitTarget(urlElicit),
    fields,
    noName,
    noText,
    badLevel,
    badType,
    toolUseInResult,
    noInitParams,
    badUri,
    noMaxTokens,
    noUrl,
    badAction,
    noTtl,
    badStatus,
    badSchema,
    noToken,
    extraMember,
    nestedField,
    notAMethod,
    wrongMap,
    badFlag,
  ];
}
