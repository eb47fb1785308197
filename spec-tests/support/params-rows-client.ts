// The params and result table (core/params.test.ts), second part: the methods a client serves
// (sampling, roots, elicitation), tasks, and notifications. Each row has at least one realistic
// valid example and three invalid ones, each refused at an exact path with an exact
// expectation. Not a test file itself.

import { type JsonObject } from "../../lib/wire/envelope.js";
import {
  ACTION,
  ALL,
  ARR,
  BOOL,
  DROP,
  ID,
  bad,
  NUM,
  OBJ,
  PRIORITY,
  P,
  R,
  REQ,
  ROLE,
  STATUS,
  STR,
  audioBlock,
  before,
  edit,
  from,
  imageBlock,
  linkBlock,
  oneOf,
  pBad,
  rBad,
  task,
  textBlock,
  tool,
  type Bad,
  type Kind,
  type Row,
} from "./params-table.js";
import { metaBads } from "./params-rows-server.js";

export const rows: Row[] = [];

// sampling/createMessage
export const samplingParams = {
  messages: [
    { role: "user", content: { type: "text", text: "What is the capital of France?" } },
    { role: "assistant", content: { type: "text", text: "Paris." } },
    { role: "user", content: { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" } },
  ],
  modelPreferences: { hints: [{ name: "claude-3-sonnet" }], intelligencePriority: 0.8, speedPriority: 0.5, costPriority: 0 },
  systemPrompt: "You are a helpful assistant.",
  includeContext: "thisServer",
  temperature: 0.7,
  maxTokens: 100,
  stopSequences: ["\n\nHuman:"],
  metadata: { provider: "anthropic" },
  _meta: { progressToken: 9 },
};
rows.push(
  P(
    ALL,
    "sampling/createMessage",
    [
      samplingParams,
      { messages: [], maxTokens: 1 },
      edit(samplingParams, "maxTokens", 100.5),
      edit(samplingParams, "includeContext", "everything"),
    ],
    [
      pBad(samplingParams, "messages", DROP, REQ),
      pBad(samplingParams, "maxTokens", DROP, REQ),
      pBad(samplingParams, "maxTokens", "100", NUM),
      pBad(samplingParams, "messages", {}, ARR),
      pBad(samplingParams, "messages[0].role", "system", ROLE),
      pBad(samplingParams, "messages[0].role", DROP, REQ),
      pBad(samplingParams, "messages[0].content.type", DROP, STR),
      pBad(samplingParams, "messages[0].content.text", DROP, REQ),
      pBad(samplingParams, "messages[2].content.data", 5, STR),
      pBad(samplingParams, "modelPreferences.costPriority", 1.5, PRIORITY),
      pBad(samplingParams, "modelPreferences.hints[0].name", 5, STR),
      pBad(samplingParams, "stopSequences", "\n", ARR),
      pBad(samplingParams, "temperature", "warm", NUM),
      pBad(samplingParams, "includeContext", 1, STR),
      pBad(samplingParams, "metadata", "x", OBJ),
    ],
  ),
  P(before("2025-03-26"), "sampling/createMessage", [edit(samplingParams, "messages[0].content", { type: "audio" })], []),
  P(
    from("2025-03-26"),
    "sampling/createMessage",
    [edit(samplingParams, "messages[0].content", audioBlock)],
    [
      pBad(samplingParams, "messages[0].content", { type: "audio" }, REQ, "messages[0].content.data"),
      pBad(samplingParams, "messages[0].content", { type: "audio", data: "UklGR" }, REQ, "messages[0].content.mimeType"),
      pBad(samplingParams, "messages[0].content", { ...audioBlock, data: 1 }, STR, "messages[0].content.data"),
    ],
  ),
  // Array content, tools, toolChoice, task: 2025-11-25.
  P(
    before("2025-11-25"),
    "sampling/createMessage",
    [edit(samplingParams, "tools", "all"), edit(samplingParams, "toolChoice", 1)],
    [
      pBad(samplingParams, "messages[0].content", [{ type: "text", text: "a" }], OBJ),
      pBad(samplingParams, "messages[1].content", [], OBJ),
      pBad(samplingParams, "messages[0].content", "hello", OBJ),
    ],
  ),
);
export const toolSampling = {
  ...samplingParams,
  messages: [
    { role: "user", content: [{ type: "text", text: "What's the weather in Paris and London?" }] },
    {
      role: "assistant",
      content: [
        { type: "tool_use", id: "call_abc123", name: "get_weather", input: { city: "Paris" }, _meta: {} },
        { type: "tool_use", id: "call_def456", name: "get_weather", input: { city: "London" } },
      ],
    },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          toolUseId: "call_abc123",
          content: [{ type: "text", text: "18°C" }, linkBlock],
          structuredContent: { t: 18 },
          isError: false,
        },
        { type: "tool_result", toolUseId: "call_def456", content: [] },
      ],
      _meta: {},
    },
  ],
  tools: [tool],
  toolChoice: { mode: "auto" },
  task: { ttl: 30000 },
};
rows.push(
  P(
    from("2025-11-25"),
    "sampling/createMessage",
    [
      toolSampling,
      edit(toolSampling, "toolChoice.mode", "sometimes"),
      edit(toolSampling, "messages[0].content", { type: "tool_use", id: "x", name: "y", input: {} }),
    ],
    [
      pBad(toolSampling, "messages[0].content[0].text", DROP, REQ),
      pBad(toolSampling, "messages[0].content[0].type", null, STR),
      pBad(toolSampling, "messages[1].content[0].input", DROP, REQ),
      pBad(toolSampling, "messages[1].content[1].id", 5, STR),
      pBad(toolSampling, "messages[2].content[0].toolUseId", DROP, REQ),
      pBad(toolSampling, "messages[2].content[1].content", DROP, REQ),
      pBad(toolSampling, "messages[2].content[0].content[1].name", DROP, REQ),
      pBad(toolSampling, "messages[2].content[0].isError", "no", BOOL),
      pBad(toolSampling, "messages[2]._meta", 1, OBJ),
      pBad(toolSampling, "tools[0].inputSchema", DROP, REQ),
      pBad(toolSampling, "tools", {}, ARR),
      pBad(toolSampling, "toolChoice.mode", 1, STR),
      pBad(toolSampling, "task.ttl", "soon", NUM),
    ],
  ),
);
export const samplingResult = {
  role: "assistant",
  content: { type: "text", text: "The capital of France is Paris." },
  model: "claude-3-sonnet-20240307",
  stopReason: "endTurn",
  _meta: {},
};
rows.push(
  R(
    ALL,
    "sampling/createMessage",
    [samplingResult, edit(samplingResult, "stopReason", "provider-specific"), edit(samplingResult, "content", imageBlock)],
    [
      rBad(samplingResult, "model", DROP, REQ),
      rBad(samplingResult, "role", DROP, REQ),
      rBad(samplingResult, "content", DROP, REQ),
      rBad(samplingResult, "role", "system", ROLE),
      rBad(samplingResult, "content.text", DROP, REQ),
      rBad(samplingResult, "stopReason", 0, STR),
      rBad(samplingResult, "model", 3, STR),
    ],
  ),
  R(
    before("2025-11-25"),
    "sampling/createMessage",
    [],
    [
      rBad(samplingResult, "content", [{ type: "text", text: "a" }], OBJ),
      { value: { task }, path: "result.role", expected: REQ },
      rBad(samplingResult, "content", "Paris", OBJ),
    ],
  ),
  R(
    from("2025-11-25"),
    "sampling/createMessage",
    [
      edit(samplingResult, "content", [{ type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } }]),
      { ...samplingResult, stopReason: "toolUse" },
      { task },
    ],
    [
      rBad(samplingResult, "content", [{ type: "tool_use", id: "call_1", name: "get_weather" }], REQ, "content[0].input"),
      rBad(samplingResult, "content", [{ type: "text" }], REQ, "content[0].text"),
      { value: { task: { ...task, status: "running" } }, path: "result.task.status", expected: STATUS },
    ],
  ),
);

// roots/list result
export const rootsResult = {
  roots: [{ uri: "file:///home/user/projects/myproject", name: "My Project", _meta: {} }, { uri: "file:///tmp" }],
};
rows.push(
  R(
    ALL,
    "roots/list",
    [rootsResult, { roots: [] }],
    [
      rBad(rootsResult, "roots", DROP, REQ),
      rBad(rootsResult, "roots[0].uri", DROP, REQ),
      rBad(rootsResult, "roots[0].name", 5, STR),
      rBad(rootsResult, "roots", "file:///", ARR),
    ],
  ),
);

// elicitation/create (2025-06-18; URL mode 2025-11-25)
export const formParams = {
  message: "Please provide your contact information",
  requestedSchema: {
    type: "object",
    properties: {
      name: { type: "string", title: "Full name", description: "Your full name", minLength: 1, maxLength: 100 },
      email: { type: "string", format: "email", description: "Your email address" },
      age: { type: "integer", minimum: 0, maximum: 150, description: "Your age" },
      score: { type: "number", minimum: 0.5, maximum: 9.5 },
      subscribe: { type: "boolean", title: "Subscribe", default: false },
      color: { type: "string", enum: ["red", "green"], enumNames: ["Red", "Green"] },
    },
    required: ["name", "email"],
  },
  _meta: { progressToken: "e1" },
};
rows.push(
  P(
    from("2025-06-18"),
    "elicitation/create",
    [
      formParams,
      edit(formParams, "requestedSchema.properties.email.format", "phone"),
      edit(formParams, "requestedSchema.properties.nested", { type: "object" }),
    ],
    [
      pBad(formParams, "message", DROP, REQ),
      pBad(formParams, "requestedSchema", DROP, REQ),
      pBad(formParams, "requestedSchema.type", "array", '"object"'),
      pBad(formParams, "requestedSchema.properties", DROP, REQ),
      pBad(formParams, "requestedSchema.properties.name.type", DROP, STR),
      pBad(formParams, "requestedSchema.properties.name.minLength", "1", NUM),
      pBad(formParams, "requestedSchema.properties.age.minimum", "0", NUM),
      pBad(formParams, "requestedSchema.properties.color.enum", "red", ARR),
      pBad(formParams, "requestedSchema.properties.subscribe.default", "no", BOOL),
      pBad(formParams, "requestedSchema.required", "name", ARR),
      pBad(formParams, "requestedSchema.properties.email", "email", OBJ),
    ],
  ),
  // Before 2025-11-25 `mode` is an unknown member: a URL-shaped request is a form request lacking its schema.
  P(
    ["2025-06-18"],
    "elicitation/create",
    [edit(formParams, "mode", "voice"), edit(formParams, "requestedSchema.properties.tags", { type: "array" })],
    [
      {
        value: { mode: "url", message: "Sign in", url: "https://example.com/auth", elicitationId: "e-1" },
        path: "params.requestedSchema",
        expected: REQ,
      },
      { value: { message: 1, requestedSchema: formParams.requestedSchema }, path: "params.message", expected: STR },
      {
        value: { message: "m", requestedSchema: { type: "object", properties: [] } },
        path: "params.requestedSchema.properties",
        expected: OBJ,
      },
    ],
  ),
);
export const urlParams = {
  mode: "url",
  message: "Please provide your API key to continue.",
  url: "https://example.com/connect?elicitationId=550e8400",
  elicitationId: "550e8400-e29b-41d4-a716-446655440000",
  task: { ttl: 60000 },
  _meta: { progressToken: "u1" },
};
export const richForm = edit(edit(formParams, "mode", "form"), "requestedSchema.properties", {
  name: { type: "string", default: "Ada" },
  level: { type: "number", default: 3.5 },
  size: {
    type: "string",
    title: "Size",
    oneOf: [
      { const: "s", title: "Small" },
      { const: "l", title: "Large" },
    ],
    default: "s",
  },
  tags: { type: "array", title: "Tags", minItems: 1, maxItems: 2, items: { type: "string", enum: ["a", "b"] }, default: ["a"] },
  colors: { type: "array", items: { anyOf: [{ const: "#f00", title: "Red" }] } },
});
rows.push(
  P(
    from("2025-11-25"),
    "elicitation/create",
    [urlParams, richForm, edit(formParams, "task", { ttl: 1000 })],
    [
      pBad(urlParams, "url", DROP, REQ),
      pBad(urlParams, "elicitationId", DROP, REQ),
      pBad(urlParams, "message", DROP, REQ),
      pBad(urlParams, "url", 5, STR),
      pBad(urlParams, "mode", "voice", oneOf(["form", "url"])),
      pBad(urlParams, "mode", 5, oneOf(["form", "url"])),
      pBad(urlParams, "task", 1, OBJ),
      pBad(richForm, "requestedSchema.properties.size.oneOf[0].title", DROP, REQ),
      pBad(richForm, "requestedSchema.properties.size.default", 5, STR),
      pBad(richForm, "requestedSchema.properties.level.default", "3", NUM),
      pBad(richForm, "requestedSchema.properties.tags.items", DROP, REQ),
      pBad(richForm, "requestedSchema.properties.tags.items.enum", DROP, "a required member (enum or anyOf)"),
      pBad(richForm, "requestedSchema.properties.tags.default", "a", ARR),
      pBad(richForm, "requestedSchema.properties.colors.items.anyOf[0].const", 1, STR),
      pBad(richForm, "requestedSchema.$schema", 1, STR),
    ],
  ),
);
export const elicitResult = {
  action: "accept",
  content: { name: "Monalisa Octocat", email: "octocat@github.com", age: 30, score: 7.5, subscribe: true },
  _meta: {},
};
rows.push(
  R(
    from("2025-06-18"),
    "elicitation/create",
    [elicitResult, { action: "decline" }, { action: "cancel" }],
    [
      rBad(elicitResult, "action", DROP, REQ),
      rBad(elicitResult, "action", "dismiss", ACTION),
      rBad(elicitResult, "action", "ACCEPT", ACTION),
      rBad(elicitResult, "content", [], OBJ),
    ],
  ),
  R(
    ["2025-06-18"],
    "elicitation/create",
    [],
    [
      rBad(elicitResult, "content.tags", ["a", "b"], "a string, a number or a boolean"),
      rBad(elicitResult, "content.name", { first: "Mona" }, "a string, a number or a boolean"),
      rBad(elicitResult, "content.name", null, "a string, a number or a boolean"),
      { value: { task }, path: "result.action", expected: REQ },
    ],
  ),
  R(
    from("2025-11-25"),
    "elicitation/create",
    [edit(elicitResult, "content.tags", ["a", "b"]), { task }],
    [
      rBad(elicitResult, "content.name", { first: "Mona" }, "a string, a number, a boolean or an array of strings"),
      rBad(elicitResult, "content.tags", [1], "a string, a number, a boolean or an array of strings"),
      { value: { task: { ...task, ttl: "1h" } }, path: "result.task.ttl", expected: "a number or null" },
    ],
  ),
);

// Tasks (2025-11-25).
export const taskIdParams = { taskId: "786512e2-9e0d-44bd-8f29-789f320fe840", _meta: { progressToken: "t" } };
for (const method of ["tasks/get", "tasks/result", "tasks/cancel"]) {
  rows.push(
    P(
      from("2025-11-25"),
      method,
      [taskIdParams, { taskId: "" }],
      [
        pBad(taskIdParams, "taskId", DROP, REQ),
        pBad(taskIdParams, "taskId", 1, STR),
        pBad(taskIdParams, "taskId", null, STR),
        pBad(taskIdParams, "_meta", 2, OBJ),
      ],
    ),
  );
}
export const taskBads = (root: Kind, base: JsonObject): Bad[] => [
  bad(root, base, "status", "paused", STATUS),
  bad(root, base, "status", DROP, REQ),
  bad(root, base, "taskId", DROP, REQ),
  bad(root, base, "ttl", DROP, REQ),
  bad(root, base, "ttl", "forever", "a number or null"),
  bad(root, base, "createdAt", DROP, REQ),
  bad(root, base, "lastUpdatedAt", 5, STR),
  bad(root, base, "pollInterval", "5s", NUM),
  bad(root, base, "statusMessage", [], STR),
  bad(root, base, "_meta", 1, OBJ),
];
export const taskValids = (base: JsonObject): JsonObject[] => [
  base,
  { ...base, ttl: null },
  { ...base, ttl: 1.5, pollInterval: 0.5 },
  ...["working", "input_required", "completed", "failed", "cancelled"].map((status) => ({ ...base, status })),
];
rows.push(
  R(from("2025-11-25"), "tasks/get", taskValids({ ...task, _meta: {} }), taskBads("result", { ...task, _meta: {} })),
  R(
    from("2025-11-25"),
    "tasks/cancel",
    taskValids({ ...task, status: "cancelled", statusMessage: "Cancelled by user" }),
    taskBads("result", { ...task, status: "cancelled" }),
  ),
  P(from("2025-11-25"), "notifications/tasks/status", taskValids({ ...task, _meta: {} }), taskBads("params", { ...task, _meta: {} })),
);
export const listTasks = { tasks: [task, { ...task, taskId: "t-2", status: "completed", ttl: null }], nextCursor: "next-page-cursor" };
rows.push(
  R(
    from("2025-11-25"),
    "tasks/list",
    [listTasks, { tasks: [] }],
    [
      rBad(listTasks, "tasks", DROP, REQ),
      rBad(listTasks, "tasks[0].taskId", DROP, REQ),
      rBad(listTasks, "tasks[1].status", "unknown", STATUS),
      rBad(listTasks, "nextCursor", 3, STR),
    ],
  ),
  // tasks/result: whatever the underlying request's result is, but an object (a Result).
  R(
    from("2025-11-25"),
    "tasks/result",
    [
      { content: [textBlock], isError: false, _meta: { "io.modelcontextprotocol/related-task": { taskId: "786512e2" } } },
      {},
      { action: "accept" },
    ],
    [
      { value: [], path: "result", expected: OBJ },
      { value: "done", path: "result", expected: OBJ },
      { value: 5, path: "result", expected: OBJ },
      { value: { _meta: "x" }, path: "result._meta", expected: OBJ },
    ],
  ),
);

// Notifications without params.
export const noteMeta = { _meta: { "com.example/reason": "refresh" } };
for (const method of [
  "notifications/initialized",
  "notifications/resources/list_changed",
  "notifications/prompts/list_changed",
  "notifications/tools/list_changed",
  "notifications/roots/list_changed",
]) {
  rows.push(P(ALL, method, [{}, noteMeta, { _meta: { progressToken: 1.5 } }], metaBads("params")));
}

// notifications/cancelled: requestId required before 2025-11-25, optional in 2025-11-25.
export const cancelParams = { requestId: "123", reason: "User requested cancellation", _meta: {} };
rows.push(
  P(
    ALL,
    "notifications/cancelled",
    [cancelParams, { requestId: 7 }, { requestId: 0 }],
    [
      pBad(cancelParams, "requestId", 1.5, ID),
      pBad(cancelParams, "requestId", null, ID),
      pBad(cancelParams, "requestId", { id: 1 }, ID),
      pBad(cancelParams, "reason", 5, STR),
      pBad(cancelParams, "_meta", [], OBJ),
    ],
  ),
  P(
    before("2025-11-25"),
    "notifications/cancelled",
    [],
    [
      pBad(cancelParams, "requestId", DROP, REQ),
      { value: {}, path: "params.requestId", expected: REQ },
      { value: { reason: "timeout" }, path: "params.requestId", expected: REQ },
    ],
  ),
  P(from("2025-11-25"), "notifications/cancelled", [{}, { reason: "Task superseded" }], []),
);

// notifications/progress
export const progressParams = { progressToken: "abc123", progress: 50, total: 100, message: "Reticulating splines...", _meta: {} };
rows.push(
  P(
    ALL,
    "notifications/progress",
    [progressParams, { progressToken: 7, progress: 0.5 }, { progressToken: "", progress: 1.25, total: 2.5 }],
    [
      pBad(progressParams, "progressToken", DROP, REQ),
      pBad(progressParams, "progress", DROP, REQ),
      pBad(progressParams, "progressToken", 1.5, ID),
      pBad(progressParams, "progress", "50%", NUM),
      pBad(progressParams, "total", "100", NUM),
    ],
  ),
  P(before("2025-03-26"), "notifications/progress", [edit(progressParams, "message", 5)], []),
  P(from("2025-03-26"), "notifications/progress", [], [pBad(progressParams, "message", 5, STR)]),
);

// notifications/resources/updated and notifications/elicitation/complete
export const updatedParams = { uri: "file:///project/src/main.rs", _meta: {} };
rows.push(
  P(
    ALL,
    "notifications/resources/updated",
    [updatedParams, { uri: "file:///project/src/main.rs#L10" }],
    [
      pBad(updatedParams, "uri", DROP, REQ),
      pBad(updatedParams, "uri", 5, STR),
      pBad(updatedParams, "uri", null, STR),
      pBad(updatedParams, "_meta", 5, OBJ),
    ],
  ),
);
export const completeNote = { elicitationId: "550e8400-e29b-41d4-a716-446655440000", _meta: {} };
rows.push(
  P(
    from("2025-11-25"),
    "notifications/elicitation/complete",
    [completeNote, { elicitationId: "e" }],
    [
      pBad(completeNote, "elicitationId", DROP, REQ),
      pBad(completeNote, "elicitationId", 5, STR),
      pBad(completeNote, "elicitationId", null, STR),
      pBad(completeNote, "_meta", "x", OBJ),
    ],
  ),
);
