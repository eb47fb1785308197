// The params and result table (core/params.test.ts), first part: the methods a server serves
// (initialize, ping, pagination, resources, prompts, tools, logging, completion). Each row has
// at least one realistic valid example and three invalid ones, each refused at an exact path
// with an exact expectation. Not a test file itself.

import { LOGGING_LEVELS } from "../../lib/rules/params.js";
import {
  ALL,
  ARR,
  BOOL,
  DROP,
  ID,
  bad,
  LEVEL,
  NUM,
  OBJ,
  PRIORITY,
  P,
  R,
  REQ,
  STATUS,
  STR,
  annotations,
  audioBlock,
  before,
  blobBlock,
  edit,
  from,
  icon,
  imageBlock,
  implementation,
  linkBlock,
  pBad,
  rBad,
  resourceBlock,
  task,
  textBlock,
  tool,
  type Bad,
  type Kind,
  type Row,
} from "./params-table.js";

// ---------------------------------------------------------------------------------------
// The table.

export const rows: Row[] = [];

// initialize
export const initParams = {
  protocolVersion: "2025-11-25",
  capabilities: {
    experimental: { "com.example/feature": { enabled: true } },
    roots: { listChanged: true },
    sampling: { context: {}, tools: {} },
    elicitation: { form: {}, url: {} },
    tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
  },
  clientInfo: implementation,
  _meta: { progressToken: "init-1" },
};
rows.push(
  P(
    ALL,
    "initialize",
    [initParams, { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "c", version: "0.1" } }],
    [
      pBad(initParams, "protocolVersion", DROP, REQ),
      pBad(initParams, "capabilities", DROP, REQ),
      pBad(initParams, "clientInfo", DROP, REQ),
      pBad(initParams, "clientInfo.version", 2, STR),
      pBad(initParams, "clientInfo.name", DROP, REQ),
      pBad(initParams, "protocolVersion", 20241105, STR),
      pBad(initParams, "capabilities", [], OBJ),
      pBad(initParams, "capabilities.roots.listChanged", "yes", BOOL),
      { value: edit(initParams, "capabilities.experimental", { x: 1 }), path: "params.capabilities.experimental.x", expected: OBJ },
      pBad(initParams, "_meta.progressToken", 1.5, ID),
    ],
  ),
  // Members added later are unknown (unchecked) before they exist.
  P(
    before("2025-06-18"),
    "initialize",
    [edit(initParams, "capabilities.elicitation", true), edit(initParams, "clientInfo.title", 5)],
    [
      pBad(initParams, "capabilities.sampling", true, OBJ),
      pBad(initParams, "capabilities.roots", "yes", OBJ),
      pBad(initParams, "clientInfo", "client", OBJ),
    ],
  ),
  P(
    from("2025-06-18"),
    "initialize",
    [],
    [
      pBad(initParams, "clientInfo.title", 5, STR),
      pBad(initParams, "capabilities.elicitation", true, OBJ),
      pBad(initParams, "capabilities.elicitation", [], OBJ),
    ],
  ),
  P(
    before("2025-11-25"),
    "initialize",
    [edit(initParams, "capabilities.sampling.tools", true), edit(initParams, "clientInfo.icons", "none")],
    [],
  ),
  P(
    from("2025-11-25"),
    "initialize",
    [],
    [
      pBad(initParams, "capabilities.sampling.tools", true, OBJ),
      pBad(initParams, "capabilities.elicitation.url", true, OBJ),
      pBad(initParams, "capabilities.tasks.requests.sampling.createMessage", true, OBJ),
      pBad(initParams, "clientInfo.icons[0].src", DROP, REQ),
      pBad(initParams, "clientInfo.websiteUrl", 1, STR),
    ],
  ),
);
export const initResult = {
  protocolVersion: "2025-11-25",
  capabilities: {
    experimental: {},
    logging: {},
    completions: {},
    prompts: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    tools: { listChanged: true },
    tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
  },
  serverInfo: { ...implementation, name: "example-server" },
  instructions: "Optional instructions for the client",
  _meta: { "com.example/build": "42" },
};
rows.push(
  R(
    ALL,
    "initialize",
    [initResult, { protocolVersion: "2024-11-05", capabilities: {}, serverInfo: { name: "s", version: "1" } }],
    [
      rBad(initResult, "serverInfo", DROP, REQ),
      rBad(initResult, "protocolVersion", DROP, REQ),
      rBad(initResult, "capabilities", DROP, REQ),
      rBad(initResult, "capabilities.resources.subscribe", "yes", BOOL),
      rBad(initResult, "capabilities.logging", true, OBJ),
      rBad(initResult, "instructions", 3, STR),
      rBad(initResult, "serverInfo.name", null, STR),
      rBad(initResult, "_meta", "x", OBJ),
    ],
  ),
  R(before("2025-03-26"), "initialize", [edit(initResult, "capabilities.completions", true)], []),
  R(from("2025-03-26"), "initialize", [], [rBad(initResult, "capabilities.completions", true, OBJ)]),
  R(
    from("2025-11-25"),
    "initialize",
    [],
    [rBad(initResult, "capabilities.tasks.requests.tools.call", true, OBJ), rBad(initResult, "serverInfo.icons", {}, ARR)],
  ),
);

// ping, and the request params every request shares (`_meta.progressToken`).
export const metaOnly = { _meta: { progressToken: "abc123", "com.example/x": [1] } };
export const metaBads = (root: Kind): Bad[] => [
  bad(root, metaOnly, "_meta", 5, OBJ),
  bad(root, metaOnly, "_meta", [], OBJ),
  bad(root, metaOnly, "_meta", "meta", OBJ),
];
export const requestMetaBads: Bad[] = [
  ...metaBads("params"),
  pBad(metaOnly, "_meta.progressToken", 1.5, ID),
  pBad(metaOnly, "_meta.progressToken", null, ID),
  pBad(metaOnly, "_meta.progressToken", true, ID),
  pBad(metaOnly, "_meta.progressToken", { id: 1 }, ID),
];
rows.push(P(ALL, "ping", [{}, metaOnly, { _meta: { progressToken: 0 } }, { _meta: { progressToken: -7 } }], requestMetaBads));
rows.push(P(ALL, "roots/list", [{}, metaOnly], requestMetaBads));

// Empty results (SCH-02).
for (const method of ["ping", "resources/subscribe", "resources/unsubscribe", "logging/setLevel"]) {
  rows.push(R(ALL, method, [{}, { _meta: { "io.example/elapsed": 3 } }], metaBads("result")));
}

// Pagination (N-01…N-05): the cursor is an opaque string.
export const pageParams = { cursor: "eyJwYWdlIjogMn0=", _meta: { progressToken: 12 } };
for (const [method, versions] of [
  ["resources/list", ALL],
  ["resources/templates/list", ALL],
  ["prompts/list", ALL],
  ["tools/list", ALL],
  ["tasks/list", from("2025-11-25")],
] as const) {
  rows.push(
    P(
      versions,
      method,
      [{}, pageParams, { cursor: "" }],
      [
        pBad(pageParams, "cursor", 2, STR),
        pBad(pageParams, "cursor", null, STR),
        pBad(pageParams, "cursor", { page: 2 }, STR),
        pBad(pageParams, "_meta.progressToken", [], ID),
      ],
    ),
  );
}

// resources/*
export const resource = {
  uri: "file:///project/src/main.rs",
  name: "main.rs",
  title: "Rust Software Application Main File",
  description: "Primary application entry point",
  mimeType: "text/x-rust",
  size: 2048,
  annotations,
  icons: [icon],
  _meta: {},
};
export const resourcesResult = { resources: [resource, { uri: "https://example.com/a", name: "a" }], nextCursor: "next-page-cursor" };
rows.push(
  R(
    ALL,
    "resources/list",
    [resourcesResult, { resources: [] }, edit(resourcesResult, "resources[0].size", 1.5)],
    [
      rBad(resourcesResult, "resources", DROP, REQ),
      rBad(resourcesResult, "resources[0].name", DROP, REQ),
      rBad(resourcesResult, "resources[1].uri", DROP, REQ),
      rBad(resourcesResult, "resources[0].size", "2KB", NUM),
      rBad(resourcesResult, "resources[0].annotations.priority", 2, PRIORITY),
      rBad(resourcesResult, "resources[0].annotations.priority", -0.5, PRIORITY),
      rBad(resourcesResult, "resources[0].annotations.audience", "user", ARR),
      rBad(resourcesResult, "nextCursor", 3, STR),
      rBad(resourcesResult, "resources", {}, ARR),
    ],
  ),
  R(
    before("2025-06-18"),
    "resources/list",
    [edit(resourcesResult, "resources[0].title", 1), edit(resourcesResult, "resources[0].annotations.lastModified", 1)],
    [],
  ),
  R(
    from("2025-06-18"),
    "resources/list",
    [],
    [
      rBad(resourcesResult, "resources[0].title", 1, STR),
      rBad(resourcesResult, "resources[0].annotations.lastModified", 1, STR),
      rBad(resourcesResult, "resources[0]._meta", 1, OBJ),
    ],
  ),
  R(before("2025-11-25"), "resources/list", [edit(resourcesResult, "resources[0].icons", "none")], []),
  R(
    from("2025-11-25"),
    "resources/list",
    [],
    [rBad(resourcesResult, "resources[0].icons", "none", ARR), rBad(resourcesResult, "resources[0].icons[0].sizes", "48x48", ARR)],
  ),
);
export const templatesResult = {
  resourceTemplates: [
    {
      uriTemplate: "file:///{path}",
      name: "Project Files",
      title: "📁 Project Files",
      description: "Access files in the project directory",
      mimeType: "application/octet-stream",
      annotations,
      icons: [icon],
      _meta: {},
    },
  ],
  nextCursor: "c2",
};
rows.push(
  R(
    ALL,
    "resources/templates/list",
    [templatesResult, { resourceTemplates: [] }],
    [
      rBad(templatesResult, "resourceTemplates", DROP, REQ),
      rBad(templatesResult, "resourceTemplates[0].uriTemplate", DROP, REQ),
      rBad(templatesResult, "resourceTemplates[0].name", 7, STR),
      rBad(templatesResult, "resourceTemplates[0].annotations.audience[1]", 3, STR),
      rBad(templatesResult, "resourceTemplates", "file:///{path}", ARR),
    ],
  ),
);
export const uriParams = { uri: "file:///project/src/main.rs", _meta: { progressToken: "r-1" } };
for (const method of ["resources/read", "resources/subscribe", "resources/unsubscribe"]) {
  rows.push(
    P(
      ALL,
      method,
      [uriParams, { uri: "https://example.com/resource" }],
      [
        pBad(uriParams, "uri", DROP, REQ),
        pBad(uriParams, "uri", 5, STR),
        pBad(uriParams, "uri", null, STR),
        pBad(uriParams, "_meta.progressToken", 2.5, ID),
      ],
    ),
  );
}
export const readResult = {
  contents: [
    { uri: "file:///project/src/main.rs", mimeType: "text/x-rust", text: 'fn main() {\n    println!("Hello world!");\n}', _meta: {} },
    { uri: "file:///project/logo.png", mimeType: "image/png", blob: "iVBORw0KGgo=" },
    { uri: "file:///empty.txt", text: "" },
  ],
  _meta: {},
};
rows.push(
  R(
    ALL,
    "resources/read",
    [readResult, { contents: [] }],
    [
      rBad(readResult, "contents", DROP, REQ),
      rBad(readResult, "contents[0].text", DROP, "a required member (text or blob)"),
      rBad(readResult, "contents[1].blob", 5, STR),
      rBad(readResult, "contents[0].uri", DROP, REQ),
      rBad(readResult, "contents[0].mimeType", 1, STR),
      rBad(readResult, "contents[2]", "text", OBJ),
    ],
  ),
);

// prompts/*
export const promptsResult = {
  prompts: [
    {
      name: "code_review",
      title: "Request Code Review",
      description: "Asks the LLM to analyze code quality and suggest improvements",
      arguments: [{ name: "code", title: "Code", description: "The code to review", required: true }],
      icons: [icon],
      _meta: {},
    },
  ],
  nextCursor: "next-page-cursor",
};
rows.push(
  R(
    ALL,
    "prompts/list",
    [promptsResult, { prompts: [{ name: "plain" }] }],
    [
      rBad(promptsResult, "prompts", DROP, REQ),
      rBad(promptsResult, "prompts[0].name", DROP, REQ),
      rBad(promptsResult, "prompts[0].arguments[0].required", "yes", BOOL),
      rBad(promptsResult, "prompts[0].arguments[0].name", DROP, REQ),
      rBad(promptsResult, "prompts", null, ARR),
    ],
  ),
);
export const getPromptParams = {
  name: "code_review",
  arguments: { code: "def hello():\n    print('world')", language: "python" },
  _meta: { progressToken: "p1" },
};
rows.push(
  P(
    ALL,
    "prompts/get",
    [getPromptParams, { name: "simple" }, { name: "x", arguments: {} }],
    [
      pBad(getPromptParams, "name", DROP, REQ),
      pBad(getPromptParams, "name", 1, STR),
      pBad(getPromptParams, "arguments.code", 5, STR),
      pBad(getPromptParams, "arguments", [], OBJ),
      pBad(getPromptParams, "arguments", "code=1", OBJ),
    ],
  ),
);
export const getPromptResult = {
  description: "Code review prompt",
  messages: [
    { role: "user", content: textBlock },
    { role: "assistant", content: imageBlock },
    { role: "user", content: resourceBlock },
    { role: "user", content: blobBlock },
    { role: "user", content: audioBlock },
    { role: "user", content: linkBlock },
  ],
  _meta: {},
};
rows.push(
  R(
    ALL,
    "prompts/get",
    [getPromptResult, { messages: [] }],
    [
      rBad(getPromptResult, "messages", DROP, REQ),
      rBad(getPromptResult, "messages[0].content.type", DROP, STR),
      rBad(getPromptResult, "messages[0].content.type", 4, STR),
      rBad(getPromptResult, "messages[0].content.text", DROP, REQ),
      rBad(getPromptResult, "messages[1].content.mimeType", DROP, REQ),
      rBad(getPromptResult, "messages[2].content.resource.uri", DROP, REQ),
      rBad(
        getPromptResult,
        "messages[3].content.resource.blob",
        DROP,
        "a required member (text or blob)",
        "messages[3].content.resource.text",
      ),
      rBad(getPromptResult, "messages[0].role", DROP, REQ),
      rBad(getPromptResult, "messages[0].content", DROP, REQ),
      rBad(getPromptResult, "messages[0].content.annotations.priority", 1.01, PRIORITY),
      rBad(getPromptResult, "description", 5, STR),
    ],
  ),
  // Audio (2025-03-26) and resource_link (2025-06-18) are unknown tags before they exist.
  R(before("2025-03-26"), "prompts/get", [edit(getPromptResult, "messages[4].content.data", DROP)], []),
  R(
    from("2025-03-26"),
    "prompts/get",
    [],
    [
      rBad(getPromptResult, "messages[4].content.data", DROP, REQ),
      rBad(getPromptResult, "messages[4].content.mimeType", 3, STR),
      rBad(getPromptResult, "messages[4].content.annotations", [], OBJ),
    ],
  ),
  R(before("2025-06-18"), "prompts/get", [edit(getPromptResult, "messages[5].content.name", DROP)], []),
  R(
    from("2025-06-18"),
    "prompts/get",
    [],
    [
      rBad(getPromptResult, "messages[5].content.name", DROP, REQ),
      rBad(getPromptResult, "messages[5].content.uri", DROP, REQ),
      rBad(getPromptResult, "messages[5].content.size", "big", NUM),
      rBad(getPromptResult, "messages[0].content._meta", 1, OBJ),
    ],
  ),
);

// tools/*
export const toolsResult = { tools: [tool, { name: "no_args", inputSchema: { type: "object" } }], nextCursor: "next-page-cursor" };
rows.push(
  R(
    ALL,
    "tools/list",
    [toolsResult, { tools: [] }, edit(toolsResult, "tools[0].execution.taskSupport", "sometimes")],
    [
      rBad(toolsResult, "tools", DROP, REQ),
      rBad(toolsResult, "tools[0].name", DROP, REQ),
      rBad(toolsResult, "tools[0].inputSchema", DROP, REQ),
      rBad(toolsResult, "tools[1].inputSchema.type", "array", '"object"'),
      rBad(toolsResult, "tools[1].inputSchema.type", DROP, REQ),
      rBad(toolsResult, "tools[0].inputSchema.required", "location", ARR),
      rBad(toolsResult, "tools[0].inputSchema.properties.location", 5, OBJ),
      rBad(toolsResult, "tools[0].description", false, STR),
    ],
  ),
  R(before("2025-03-26"), "tools/list", [edit(toolsResult, "tools[0].annotations", "readonly")], []),
  R(
    from("2025-03-26"),
    "tools/list",
    [],
    [
      rBad(toolsResult, "tools[0].annotations", "readonly", OBJ),
      rBad(toolsResult, "tools[0].annotations.readOnlyHint", "yes", BOOL),
      rBad(toolsResult, "tools[0].annotations.title", 1, STR),
    ],
  ),
  R(before("2025-06-18"), "tools/list", [edit(toolsResult, "tools[0].outputSchema.type", "array")], []),
  R(
    from("2025-06-18"),
    "tools/list",
    [],
    [
      rBad(toolsResult, "tools[0].outputSchema.type", "array", '"object"'),
      rBad(toolsResult, "tools[0].title", [], STR),
      rBad(toolsResult, "tools[0]._meta", "x", OBJ),
    ],
  ),
  R(before("2025-11-25"), "tools/list", [edit(toolsResult, "tools[0].execution", 1)], []),
  R(
    from("2025-11-25"),
    "tools/list",
    [],
    [
      rBad(toolsResult, "tools[0].execution", 1, OBJ),
      rBad(toolsResult, "tools[0].execution.taskSupport", 5, STR),
      rBad(toolsResult, "tools[0].inputSchema.$schema", 5, STR),
    ],
  ),
);
export const callParams = { name: "get_weather", arguments: { location: "New York" }, task: { ttl: 60000 }, _meta: { progressToken: 42 } };
rows.push(
  P(
    ALL,
    "tools/call",
    [callParams, { name: "no_args" }],
    [
      pBad(callParams, "name", DROP, REQ),
      pBad(callParams, "name", null, STR),
      pBad(callParams, "arguments", "location=New York", OBJ),
      pBad(callParams, "arguments", [], OBJ),
    ],
  ),
  P(before("2025-11-25"), "tools/call", [edit(callParams, "task", 5)], []),
  P(
    from("2025-11-25"),
    "tools/call",
    [edit(callParams, "task", {}), edit(callParams, "task.ttl", 1.5)],
    [pBad(callParams, "task", 5, OBJ), pBad(callParams, "task.ttl", "1m", NUM), pBad(callParams, "task", [], OBJ)],
  ),
);
export const callResult = {
  content: [textBlock, imageBlock, audioBlock, linkBlock, resourceBlock, { type: "hologram", payload: 1 }],
  structuredContent: { temperature: 22.5, conditions: "Partly cloudy" },
  isError: false,
  _meta: {},
};
rows.push(
  R(
    ALL,
    "tools/call",
    [callResult, { content: [] }, { content: [{ type: "text", text: "Invalid departure date" }], isError: true }],
    [
      rBad(callResult, "content", DROP, REQ),
      rBad(callResult, "content[0].text", 5, STR),
      rBad(callResult, "content[1].data", DROP, REQ),
      rBad(callResult, "content", {}, ARR),
      rBad(callResult, "isError", "no", BOOL),
      rBad(callResult, "content[4].resource", "file:///x", OBJ),
    ],
  ),
  R(before("2025-06-18"), "tools/call", [edit(callResult, "structuredContent", [])], []),
  R(
    from("2025-06-18"),
    "tools/call",
    [],
    [
      rBad(callResult, "structuredContent", [], OBJ),
      rBad(callResult, "structuredContent", "{}", OBJ),
      // CallToolResult.content is required even with structuredContent (SCH-02).
      { value: { structuredContent: { temperature: 1 } }, path: "result.content", expected: REQ },
    ],
  ),
  // A task-augmented tools/call may be answered with CreateTaskResult (2025-11-25 only).
  R(before("2025-11-25"), "tools/call", [], [{ value: { task }, path: "result.content", expected: REQ }]),
  R(
    from("2025-11-25"),
    "tools/call",
    [{ task, _meta: { "io.modelcontextprotocol/model-immediate-response": "Working on it" } }, { task: { ...task, ttl: null } }],
    [
      { value: { task: { ...task, status: "paused" } }, path: "result.task.status", expected: STATUS },
      { value: { task: edit(task, "createdAt", DROP) }, path: "result.task.createdAt", expected: REQ },
      { value: { task: "t-1" }, path: "result.task", expected: OBJ },
    ],
  ),
);

// logging/setLevel and notifications/message (closed levels, O-04).
rows.push(
  P(
    ALL,
    "logging/setLevel",
    [...LOGGING_LEVELS.map((level) => ({ level })), { level: "info", _meta: { progressToken: "l" } }],
    [
      { value: {}, path: "params.level", expected: REQ },
      { value: { level: "verbose" }, path: "params.level", expected: LEVEL },
      { value: { level: "DEBUG" }, path: "params.level", expected: LEVEL },
      { value: { level: 3 }, path: "params.level", expected: LEVEL },
    ],
  ),
);
export const logParams = {
  level: "error",
  logger: "database",
  data: { error: "Connection failed", details: { host: "localhost", port: 5432 } },
  _meta: {},
};
rows.push(
  P(
    ALL,
    "notifications/message",
    [
      logParams,
      ...LOGGING_LEVELS.map((level) => ({ level, data: `a ${level} line` })),
      { level: "debug", data: null },
      { level: "info", data: [1, 2] },
    ],
    [
      pBad(logParams, "level", "verbose", LEVEL),
      pBad(logParams, "level", DROP, REQ),
      pBad(logParams, "data", DROP, REQ),
      pBad(logParams, "logger", 5, STR),
      pBad(logParams, "_meta", 5, OBJ),
    ],
  ),
);

// completion/complete
export const completeParams = {
  ref: { type: "ref/prompt", name: "code_review", title: "Code review" },
  argument: { name: "language", value: "py" },
  context: { arguments: { framework: "flask" } },
  _meta: { progressToken: "c-1" },
};
export const resourceRef = { ref: { type: "ref/resource", uri: "file:///{path}" }, argument: { name: "path", value: "src/" } };
rows.push(
  P(
    ALL,
    "completion/complete",
    [completeParams, resourceRef, { ref: { type: "ref/future" }, argument: { name: "a", value: "" } }],
    [
      pBad(completeParams, "ref", DROP, REQ),
      pBad(completeParams, "argument", DROP, REQ),
      pBad(completeParams, "ref.name", DROP, REQ),
      pBad(completeParams, "ref.type", 1, STR),
      pBad(completeParams, "ref.type", DROP, STR),
      pBad(completeParams, "argument.value", DROP, REQ),
      pBad(completeParams, "argument.name", 7, STR),
      pBad(resourceRef, "ref.uri", DROP, REQ),
    ],
  ),
  P(before("2025-06-18"), "completion/complete", [edit(completeParams, "context.arguments.framework", 5)], []),
  P(
    from("2025-06-18"),
    "completion/complete",
    [],
    [
      pBad(completeParams, "context.arguments.framework", 5, STR),
      pBad(completeParams, "context.arguments", [], OBJ),
      pBad(completeParams, "context", "flask", OBJ),
    ],
  ),
);
export const hundred = Array.from({ length: 100 }, (_, i) => `value-${i}`);
export const completeResult = { completion: { values: ["python", "pytorch", "pyside"], total: 10, hasMore: true }, _meta: {} };
rows.push(
  R(
    ALL,
    "completion/complete",
    [completeResult, { completion: { values: hundred } }, edit(completeResult, "completion.total", 10.5)],
    [
      rBad(completeResult, "completion", DROP, REQ),
      rBad(completeResult, "completion.values", DROP, REQ),
      rBad(completeResult, "completion.values", [...hundred, "one-too-many"], "an array of at most 100 items"),
      rBad(completeResult, "completion.values[1]", 3, STR),
      rBad(completeResult, "completion.hasMore", "no", BOOL),
      rBad(completeResult, "completion.total", "10", NUM),
    ],
  ),
);
