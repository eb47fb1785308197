// Params and result validators (lib/rules/params.ts; RULES.md MT-01, MT-02, SCH-01, SCH-02, SCH-03, N-01…N-05, O-01…O-05, K-03…K-05, J-01, J-04, TK-02…TK-08, K-04, SCH-05, TK-08)
// and the combinators of lib/rules/schema.ts.
//
// One table of rows {versions, kind, method, valid[], invalid[{value, path, expected}]}: every
// method of every session-era version has at least one realistic valid example (optional
// members present) and at least three invalid ones, each refused at an exact path with an
// exact `expected`. Every example is replayed with unknown members and with a `__proto__` key
// injected at every depth: neither may change the outcome. Then: open versus closed enums,
// unknown content blocks, version differences, and the combinators one by one.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LOGGING_LEVELS, paramsCheck, resultCheck } from "../../lib/rules/params.js";
import {
  anyObject,
  anyOf,
  anyValue,
  arrayOf,
  bool,
  closedEnum,
  idLike,
  int,
  literal,
  num,
  object,
  range,
  recordOf,
  str,
  tagged,
  validate,
  type Check,
} from "../../lib/rules/schema.js";
import { isJsonObject, type JsonObject } from "../../lib/wire/envelope.js";
import { methodTable } from "../../lib/rules/methods.js";
import { SESSION_VERSIONS, VERSION_PROFILES, type SessionVersion } from "../../lib/rules/versions.js";

// ---------------------------------------------------------------------------------------
// Version ranges and expectations.

const ALL: readonly SessionVersion[] = SESSION_VERSIONS;
const idx = (v: SessionVersion): number => VERSION_PROFILES[v].index;
const from = (v: SessionVersion): readonly SessionVersion[] => ALL.filter((x) => idx(x) >= idx(v));
const before = (v: SessionVersion): readonly SessionVersion[] => ALL.filter((x) => idx(x) < idx(v));

const REQ = "a required member";
const STR = "a string";
const NUM = "a number";
const OBJ = "an object";
const ARR = "an array";
const BOOL = "a boolean";
const ID = "a string or an integer";
const oneOf = (values: readonly string[]): string => `one of ${values.map((x) => JSON.stringify(x)).join(", ")}`;
const LEVEL = oneOf(LOGGING_LEVELS);
const STATUS = oneOf(["working", "input_required", "completed", "failed", "cancelled"]);
const ROLE = oneOf(["user", "assistant"]);
const ACTION = oneOf(["accept", "decline", "cancel"]);
const PRIORITY = "a number >= 0 <= 1";

type Kind = "params" | "result";

interface Bad {
  value: unknown;
  path: string;
  expected: string;
}

interface Row {
  versions: readonly SessionVersion[];
  kind: Kind;
  method: string;
  valid: JsonObject[];
  invalid: Bad[];
}

const DROP = Symbol("drop");

/** A deep copy of `base` with the member at `path` ("a.b[0].c") replaced, or removed with DROP. */
function edit(base: JsonObject, path: string, value: unknown): JsonObject {
  const copy = JSON.parse(JSON.stringify(base)) as JsonObject;
  const segments = path.match(/[^.[\]]+/g) ?? [];
  let node = copy as Record<string, unknown>;
  for (const segment of segments.slice(0, -1)) node = node[segment] as Record<string, unknown>;
  const last = segments[segments.length - 1] as string;
  if (value === DROP) delete node[last];
  else node[last] = value;
  return copy;
}

/** An invalid case made by editing `base` at `path`; the failure is expected at the same path unless `at` says otherwise. */
function bad(root: Kind, base: JsonObject, path: string, value: unknown, expected: string, at: string = path): Bad {
  return { value: edit(base, path, value), path: at === "" ? root : `${root}.${at}`, expected };
}
const pBad = (base: JsonObject, path: string, value: unknown, expected: string, at?: string): Bad =>
  bad("params", base, path, value, expected, at);
const rBad = (base: JsonObject, path: string, value: unknown, expected: string, at?: string): Bad =>
  bad("result", base, path, value, expected, at);

function P(versions: readonly SessionVersion[], method: string, valid: JsonObject[], invalid: Bad[]): Row {
  return { versions, kind: "params", method, valid, invalid };
}
function R(versions: readonly SessionVersion[], method: string, valid: JsonObject[], invalid: Bad[]): Row {
  return { versions, kind: "result", method, valid, invalid };
}

// ---------------------------------------------------------------------------------------
// Realistic building blocks, with optional members present.

const icon = { src: "https://example.com/icon.png", mimeType: "image/png", sizes: ["48x48", "96x96"], theme: "light" };
const annotations = { audience: ["user", "assistant"], priority: 0.8, lastModified: "2025-01-12T15:00:58Z" };
const textBlock = { type: "text", text: "The weather in Paris is 21°C and sunny.", annotations, _meta: { "com.example/trace": "t1" } };
const imageBlock = { type: "image", data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB", mimeType: "image/png", annotations };
const audioBlock = { type: "audio", data: "UklGRiQAAABXQVZFZm10IBAAAAABAAEA", mimeType: "audio/wav", annotations };
const resourceBlock = {
  type: "resource",
  resource: { uri: "file:///project/README.md", mimeType: "text/markdown", text: "# Project\n", _meta: {} },
  annotations,
};
const blobBlock = { type: "resource", resource: { uri: "file:///project/logo.png", mimeType: "image/png", blob: "iVBORw0KGgo=" } };
const linkBlock = {
  type: "resource_link",
  uri: "file:///project/src/main.rs",
  name: "main.rs",
  title: "Main file",
  description: "Primary application entry point",
  mimeType: "text/x-rust",
  size: 2048,
  annotations,
  icons: [icon],
  _meta: {},
};
const task = {
  taskId: "786512e2-9e0d-44bd-8f29-789f320fe840",
  status: "working",
  statusMessage: "The operation is now in progress.",
  createdAt: "2025-11-25T10:30:00Z",
  lastUpdatedAt: "2025-11-25T10:40:00Z",
  ttl: 60000,
  pollInterval: 5000,
};
const tool = {
  name: "get_weather",
  title: "Weather Information Provider",
  description: "Get current weather information for a location",
  inputSchema: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: { location: { type: "string", description: "City name or zip code" } },
    required: ["location"],
  },
  outputSchema: { type: "object", properties: { temperature: { type: "number" } }, required: ["temperature"] },
  annotations: { title: "Weather", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  execution: { taskSupport: "optional" },
  icons: [icon],
  _meta: { "com.example/owner": "weather-team" },
};
const implementation = {
  name: "example-client",
  title: "Example Client Display Name",
  version: "1.0.0",
  description: "An example MCP client application",
  websiteUrl: "https://example.com",
  icons: [icon],
};

// ---------------------------------------------------------------------------------------
// The table.

const rows: Row[] = [];

// initialize
const initParams = {
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
const initResult = {
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
const metaOnly = { _meta: { progressToken: "abc123", "com.example/x": [1] } };
const metaBads = (root: Kind): Bad[] => [
  bad(root, metaOnly, "_meta", 5, OBJ),
  bad(root, metaOnly, "_meta", [], OBJ),
  bad(root, metaOnly, "_meta", "meta", OBJ),
];
const requestMetaBads: Bad[] = [
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
const pageParams = { cursor: "eyJwYWdlIjogMn0=", _meta: { progressToken: 12 } };
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
const resource = {
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
const resourcesResult = { resources: [resource, { uri: "https://example.com/a", name: "a" }], nextCursor: "next-page-cursor" };
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
const templatesResult = {
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
const uriParams = { uri: "file:///project/src/main.rs", _meta: { progressToken: "r-1" } };
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
const readResult = {
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
const promptsResult = {
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
const getPromptParams = {
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
const getPromptResult = {
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
const toolsResult = { tools: [tool, { name: "no_args", inputSchema: { type: "object" } }], nextCursor: "next-page-cursor" };
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
const callParams = { name: "get_weather", arguments: { location: "New York" }, task: { ttl: 60000 }, _meta: { progressToken: 42 } };
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
const callResult = {
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
const logParams = {
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
const completeParams = {
  ref: { type: "ref/prompt", name: "code_review", title: "Code review" },
  argument: { name: "language", value: "py" },
  context: { arguments: { framework: "flask" } },
  _meta: { progressToken: "c-1" },
};
const resourceRef = { ref: { type: "ref/resource", uri: "file:///{path}" }, argument: { name: "path", value: "src/" } };
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
const hundred = Array.from({ length: 100 }, (_, i) => `value-${i}`);
const completeResult = { completion: { values: ["python", "pytorch", "pyside"], total: 10, hasMore: true }, _meta: {} };
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

// sampling/createMessage
const samplingParams = {
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
const toolSampling = {
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
const samplingResult = {
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
const rootsResult = { roots: [{ uri: "file:///home/user/projects/myproject", name: "My Project", _meta: {} }, { uri: "file:///tmp" }] };
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
const formParams = {
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
const urlParams = {
  mode: "url",
  message: "Please provide your API key to continue.",
  url: "https://example.com/connect?elicitationId=550e8400",
  elicitationId: "550e8400-e29b-41d4-a716-446655440000",
  task: { ttl: 60000 },
  _meta: { progressToken: "u1" },
};
const richForm = edit(edit(formParams, "mode", "form"), "requestedSchema.properties", {
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
const elicitResult = {
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
const taskIdParams = { taskId: "786512e2-9e0d-44bd-8f29-789f320fe840", _meta: { progressToken: "t" } };
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
const taskBads = (root: Kind, base: JsonObject): Bad[] => [
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
const taskValids = (base: JsonObject): JsonObject[] => [
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
const listTasks = { tasks: [task, { ...task, taskId: "t-2", status: "completed", ttl: null }], nextCursor: "next-page-cursor" };
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
const noteMeta = { _meta: { "com.example/reason": "refresh" } };
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
const cancelParams = { requestId: "123", reason: "User requested cancellation", _meta: {} };
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
const progressParams = { progressToken: "abc123", progress: 50, total: 100, message: "Reticulating splines...", _meta: {} };
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
const updatedParams = { uri: "file:///project/src/main.rs", _meta: {} };
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
const completeNote = { elicitationId: "550e8400-e29b-41d4-a716-446655440000", _meta: {} };
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

// ---------------------------------------------------------------------------------------
// Replaying the table.

function checkOf(version: SessionVersion, kind: Kind, method: string): Check {
  const check = kind === "params" ? paramsCheck(version, method) : resultCheck(version, method);
  if (check === undefined) assert.fail(`no ${kind} validator for ${method} in ${version}`);
  return check;
}

function run(check: Check, value: unknown, root: Kind) {
  return validate(check, value as JsonObject, root);
}

function label(row: Row, version: SessionVersion): string {
  return `${version} ${row.method} ${row.kind}`;
}

test("SCH-01: every valid example is accepted, and left untouched", () => {
  let count = 0;
  for (const row of rows) {
    for (const version of row.versions) {
      const check = checkOf(version, row.kind, row.method);
      for (const value of row.valid) {
        const before = JSON.stringify(value);
        const found = run(check, value, row.kind);
        assert.equal(found, undefined, `${label(row, version)} refused ${before}: ${JSON.stringify(found)}`);
        assert.equal(JSON.stringify(value), before, `${label(row, version)} mutated its input`);
        count++;
      }
    }
  }
  assert.ok(count > 300, `only ${count} valid cases`);
});

test("SCH-01: every invalid example is refused at its exact path, with the exact expectation", () => {
  let count = 0;
  for (const row of rows) {
    for (const version of row.versions) {
      const check = checkOf(version, row.kind, row.method);
      for (const c of row.invalid) {
        const found = run(check, c.value, row.kind);
        const what = `${label(row, version)} ${JSON.stringify(c.value)}`;
        if (found === undefined) assert.fail(`${what} was accepted; expected a refusal at ${c.path}`);
        assert.equal(found.path, c.path, what);
        assert.equal(found.expected, c.expected, what);
        assert.ok(found.got.length > 0, what);
        count++;
      }
    }
  }
  assert.ok(count > 500, `only ${count} invalid cases`);
});

test("SCH-01: every method of every session-era version has a validator and at least 1 valid and 3 invalid examples", () => {
  for (const version of ALL) {
    const table = methodTable(version);
    for (const [method, r] of table) {
      const kinds: Kind[] = r.kind === "request" ? ["params", "result"] : ["params"];
      for (const kind of kinds) {
        const applicable = rows.filter((row) => row.kind === kind && row.method === method && row.versions.includes(version));
        const valid = applicable.reduce((n, row) => n + row.valid.length, 0);
        const invalid = applicable.reduce((n, row) => n + row.invalid.length, 0);
        assert.ok(valid >= 1, `${version} ${method} ${kind}: ${valid} valid examples`);
        assert.ok(invalid >= 3, `${version} ${method} ${kind}: ${invalid} invalid examples`);
      }
      assert.notEqual(paramsCheck(version, method), undefined, `${version} ${method} params`);
      assert.equal(resultCheck(version, method) !== undefined, r.kind === "request", `${version} ${method} result`);
    }
    // Nothing beyond the method table: the validators know exactly the version's methods.
    for (const row of rows) {
      if (row.versions.includes(version)) assert.ok(table.has(row.method), `${row.method} is not a ${version} method`);
    }
  }
});

test("MT-01: a method the version lacks, or an unknown one, has no validator", () => {
  const absent: [SessionVersion, string][] = [
    ["2024-11-05", "elicitation/create"],
    ["2025-03-26", "elicitation/create"],
    ["2025-06-18", "tasks/get"],
    ["2025-06-18", "tasks/result"],
    ["2025-06-18", "tasks/list"],
    ["2025-06-18", "tasks/cancel"],
    ["2025-06-18", "notifications/tasks/status"],
    ["2025-06-18", "notifications/elicitation/complete"],
    ["2025-11-25", "server/discover"],
    ["2025-11-25", "subscriptions/listen"],
    ["2025-11-25", "tools/delete"],
    ["2025-11-25", "__proto__"],
    ["2025-11-25", "constructor"],
    ["2025-11-25", ""],
  ];
  for (const [version, method] of absent) {
    assert.equal(paramsCheck(version, method), undefined, `${version} ${method}`);
    assert.equal(resultCheck(version, method), undefined, `${version} ${method}`);
  }
  for (const method of ["notifications/initialized", "notifications/progress", "notifications/message"]) {
    assert.equal(resultCheck("2025-11-25", method), undefined, `a notification has no result: ${method}`);
  }
  // Only the session-era versions have tables here.
  assert.equal(paramsCheck("2026-07-28" as SessionVersion, "tools/list"), undefined);
  assert.equal(resultCheck("2026-07-28" as SessionVersion, "tools/list"), undefined);
});

test("validators are built once: the same function on every lookup", () => {
  for (const version of ALL) {
    for (const method of methodTable(version).keys()) {
      assert.equal(paramsCheck(version, method), paramsCheck(version, method));
      assert.equal(resultCheck(version, method), resultCheck(version, method));
    }
  }
});

test("O-02: LOGGING_LEVELS lists the eight RFC 5424 levels, lowest first", () => {
  assert.deepEqual([...LOGGING_LEVELS], ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]);
});

// ---------------------------------------------------------------------------------------
// Unknown members and `__proto__` keys at every depth.

/** Objects whose members are data, not fields (maps of strings, of schemas, elicited answers). */
function recordLike(key: string | undefined, value: JsonObject): boolean {
  return key === "arguments" || key === "properties" || (key === "content" && value.type === undefined);
}

/** A deep copy with `extra` added to every non-record object. */
function withUnknowns(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((x) => withUnknowns(x, key));
  if (!isJsonObject(value)) return value;
  const copy: JsonObject = {};
  for (const k of Object.keys(value)) copy[k] = withUnknowns(value[k], k);
  if (!recordLike(key, value)) copy["x-future-member"] = { nested: [1, "two", null, { deeper: true }] };
  return copy;
}

const POISON = '{"name":1,"uri":1,"type":"text","text":5,"role":"system","content":7,"level":"verbose","polluted":true}';

/** JSON text with an own `"__proto__"` member (as JSON.parse creates it) first in every non-record object. */
function withProtoJson(value: unknown, key?: string): string {
  if (Array.isArray(value)) return `[${value.map((x) => withProtoJson(x, key)).join(",")}]`;
  if (!isJsonObject(value)) return JSON.stringify(value);
  const members = Object.keys(value).map((k) => `${JSON.stringify(k)}:${withProtoJson(value[k], k)}`);
  if (!recordLike(key, value)) members.unshift(`"__proto__":${POISON}`);
  return `{${members.join(",")}}`;
}

test("SCH-04: unknown members at every depth change nothing", () => {
  for (const row of rows) {
    for (const version of row.versions) {
      const check = checkOf(version, row.kind, row.method);
      for (const value of row.valid) {
        const found = run(check, withUnknowns(value), row.kind);
        assert.equal(found, undefined, `${label(row, version)}: ${JSON.stringify(found)}`);
      }
      for (const c of row.invalid) {
        const found = run(check, withUnknowns(c.value), row.kind);
        assert.equal(found?.path, c.path, `${label(row, version)} ${JSON.stringify(c.value)}`);
      }
    }
  }
});

test("ENG-06: a nested __proto__ key changes nothing, and pollutes nothing", () => {
  let injected = 0;
  for (const row of rows) {
    for (const version of row.versions) {
      const check = checkOf(version, row.kind, row.method);
      for (const value of row.valid) {
        const text = withProtoJson(value);
        const parsed: unknown = JSON.parse(text);
        if (isJsonObject(parsed)) assert.ok(Object.prototype.hasOwnProperty.call(parsed, "__proto__"), text);
        const found = run(check, parsed, row.kind);
        assert.equal(found, undefined, `${label(row, version)} ${text}: ${JSON.stringify(found)}`);
        injected++;
      }
      for (const c of row.invalid) {
        const found = run(check, JSON.parse(withProtoJson(c.value)), row.kind);
        assert.equal(found?.path, c.path, `${label(row, version)} ${withProtoJson(c.value)}`);
        assert.equal(found?.expected, c.expected);
      }
    }
  }
  assert.ok(injected > 300);
  // A required member hidden behind __proto__ is still missing.
  const hidden = JSON.parse('{"__proto__":{"name":"get_weather"},"arguments":{}}') as JsonObject;
  assert.equal(run(checkOf("2025-11-25", "params", "tools/call"), hidden, "params")?.path, "params.name");
  const hiddenType = JSON.parse('{"content":[{"__proto__":{"type":"text"},"text":5}]}') as JsonObject;
  assert.equal(run(checkOf("2025-11-25", "result", "tools/call"), hiddenType, "result")?.path, "result.content[0].type");
  assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, "polluted"), false);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(({} as Record<string, unknown>).name, undefined);
});

test("SCH-04: a content block, reference or schema property of an unknown type passes", () => {
  const future = { type: "hologram", frames: 3, data: 5 };
  const cases: [SessionVersion, Kind, string, JsonObject][] = [
    ["2025-11-25", "result", "tools/call", { content: [future] }],
    ["2024-11-05", "result", "tools/call", { content: [future, { type: "resource_link" }] }],
    ["2025-06-18", "result", "prompts/get", { messages: [{ role: "user", content: future }] }],
    ["2025-11-25", "params", "sampling/createMessage", { messages: [{ role: "user", content: future }], maxTokens: 5 }],
    [
      "2025-11-25",
      "params",
      "sampling/createMessage",
      { messages: [{ role: "user", content: [future, { type: "text", text: "x" }] }], maxTokens: 5 },
    ],
    [
      "2025-06-18",
      "params",
      "sampling/createMessage",
      { messages: [{ role: "user", content: { type: "resource", resource: 1 } }], maxTokens: 5 },
    ],
    [
      "2025-11-25",
      "params",
      "sampling/createMessage",
      { messages: [{ role: "user", content: [{ type: "tool_result", toolUseId: "a", content: [future] }] }], maxTokens: 5 },
    ],
    ["2025-11-25", "result", "sampling/createMessage", { role: "assistant", content: future, model: "m" }],
    ["2025-03-26", "result", "sampling/createMessage", { role: "assistant", content: { type: "tool_use" }, model: "m" }],
    ["2025-11-25", "params", "completion/complete", { ref: { type: "ref/tool", id: 1 }, argument: { name: "a", value: "b" } }],
    [
      "2025-11-25",
      "params",
      "elicitation/create",
      { message: "m", requestedSchema: { type: "object", properties: { when: { type: "date", format: 1 } } } },
    ],
    // The tag is an own member: names on Object.prototype are unknown tags like any other.
    [
      "2025-11-25",
      "result",
      "tools/call",
      { content: [{ type: "constructor" }, { type: "toString" }, { type: "__proto__" }, { type: "hasOwnProperty" }] },
    ],
  ];
  for (const [version, kind, method, value] of cases) {
    assert.equal(run(checkOf(version, kind, method), value, kind), undefined, `${version} ${method} ${JSON.stringify(value)}`);
  }
  // But the tag itself must be a string.
  assert.equal(run(checkOf("2025-11-25", "result", "tools/call"), { content: [{ type: 7 }] }, "result")?.path, "result.content[0].type");
});

test("SCH-04: open enums accept unknown values; closed ones refuse them", () => {
  const open: [SessionVersion, Kind, string, JsonObject][] = [
    ["2025-11-25", "params", "sampling/createMessage", { messages: [], maxTokens: 1, includeContext: "everything" }],
    ["2025-11-25", "params", "sampling/createMessage", { messages: [], maxTokens: 1, toolChoice: { mode: "sometimes" } }],
    [
      "2025-11-25",
      "result",
      "sampling/createMessage",
      { role: "assistant", content: { type: "text", text: "" }, model: "m", stopReason: "refusal" },
    ],
    [
      "2025-11-25",
      "result",
      "tools/list",
      { tools: [{ name: "t", inputSchema: { type: "object" }, execution: { taskSupport: "always" } }] },
    ],
    [
      "2025-11-25",
      "result",
      "tools/list",
      { tools: [{ name: "t", inputSchema: { type: "object" }, icons: [{ src: "x", theme: "high-contrast" }] }] },
    ],
    ["2025-11-25", "result", "resources/list", { resources: [{ uri: "u", name: "n", annotations: { audience: ["robot"] } }] }],
    ["2025-11-25", "result", "prompts/get", { messages: [{ role: "system", content: { type: "text", text: "x" } }] }],
    [
      "2025-11-25",
      "params",
      "elicitation/create",
      { message: "m", requestedSchema: { type: "object", properties: { p: { type: "string", format: "phone" } } } },
    ],
  ];
  for (const [version, kind, method, value] of open) {
    assert.equal(run(checkOf(version, kind, method), value, kind), undefined, `${method} ${JSON.stringify(value)}`);
  }
  const closed: [SessionVersion, Kind, string, JsonObject, string, string][] = [
    ["2024-11-05", "params", "logging/setLevel", { level: "trace" }, "params.level", LEVEL],
    ["2025-11-25", "params", "notifications/message", { level: "fatal", data: "x" }, "params.level", LEVEL],
    ["2025-06-18", "result", "elicitation/create", { action: "later" }, "result.action", ACTION],
    ["2025-11-25", "result", "tasks/get", { ...task, status: "paused" }, "result.status", STATUS],
    ["2025-11-25", "params", "notifications/tasks/status", { ...task, status: "paused" }, "params.status", STATUS],
    ["2025-11-25", "result", "tools/call", { task: { ...task, status: "paused" } }, "result.task.status", STATUS],
    [
      "2025-11-25",
      "params",
      "sampling/createMessage",
      { messages: [{ role: "system", content: { type: "text", text: "x" } }], maxTokens: 1 },
      "params.messages[0].role",
      ROLE,
    ],
    [
      "2025-11-25",
      "result",
      "sampling/createMessage",
      { role: "tool", content: { type: "text", text: "" }, model: "m" },
      "result.role",
      ROLE,
    ],
    ["2025-11-25", "params", "elicitation/create", { mode: "oauth", message: "m" }, "params.mode", oneOf(["form", "url"])],
  ];
  for (const [version, kind, method, value, path, expected] of closed) {
    const found = run(checkOf(version, kind, method), value, kind);
    assert.equal(found?.path, path, `${method} ${JSON.stringify(value)}`);
    assert.equal(found?.expected, expected);
  }
});

test("SCH-05: numbers typed `number` in schema.ts accept fractions even where schema.json says integer (SCH-05)", () => {
  const cases: [Kind, string, JsonObject][] = [
    ["result", "resources/list", { resources: [{ uri: "u", name: "n", size: 10.5 }] }],
    ["params", "sampling/createMessage", { messages: [], maxTokens: 12.5 }],
    ["result", "completion/complete", { completion: { values: [], total: 3.5 } }],
    ["result", "tasks/get", { ...task, ttl: 0.5, pollInterval: 250.5 }],
    ["result", "tasks/get", { ...task, ttl: null }],
    ["params", "tools/call", { name: "t", task: { ttl: 0.5 } }],
    ["result", "elicitation/create", { action: "accept", content: { n: 2.75 } }],
    [
      "params",
      "elicitation/create",
      {
        message: "m",
        requestedSchema: { type: "object", properties: { n: { type: "integer", minimum: 0.5, maximum: 9.5, default: 1.5 } } },
      },
    ],
  ];
  for (const [kind, method, value] of cases) {
    assert.equal(run(checkOf("2025-11-25", kind, method), value, kind), undefined, `${method} ${JSON.stringify(value)}`);
  }
  // Still a number: not a numeric string, not null where null is not allowed.
  assert.equal(
    run(checkOf("2025-11-25", "params", "sampling/createMessage"), { messages: [], maxTokens: null }, "params")?.path,
    "params.maxTokens",
  );
});

test("M-03: every validator refuses a value that is not an object", () => {
  for (const version of ALL) {
    for (const [method, r] of methodTable(version)) {
      const checks = r.kind === "request" ? [paramsCheck(version, method), resultCheck(version, method)] : [paramsCheck(version, method)];
      for (const check of checks) {
        for (const value of [[], "x", 1, true, null]) {
          assert.equal(check?.(value)?.expected, "an object", `${version} ${method} ${JSON.stringify(value)}`);
        }
      }
    }
  }
});

test("M-03: absent params validate as {}", () => {
  assert.equal(validate(checkOf("2024-11-05", "params", "ping"), undefined, "params"), undefined);
  assert.equal(validate(checkOf("2024-11-05", "params", "tools/list"), undefined, "params"), undefined);
  assert.equal(validate(checkOf("2024-11-05", "params", "notifications/initialized"), undefined, "params"), undefined);
  assert.deepEqual(validate(checkOf("2024-11-05", "params", "tools/call"), undefined, "params"), {
    path: "params.name",
    expected: REQ,
    got: "absent",
  });
  assert.deepEqual(validate(checkOf("2025-06-18", "params", "notifications/cancelled"), undefined, "params"), {
    path: "params.requestId",
    expected: REQ,
    got: "absent",
  });
  assert.equal(validate(checkOf("2025-11-25", "params", "notifications/cancelled"), undefined, "params"), undefined);
});

// ---------------------------------------------------------------------------------------
// The combinators of lib/rules/schema.ts, one by one.

function issueOf(check: Check, value: unknown, root = "v") {
  return validate(check, value as JsonObject, root);
}

test("scalars: str, num, int, bool, idLike, anyObject, anyValue", () => {
  assert.equal(str("x"), undefined);
  assert.deepEqual(str(1), { path: "", expected: "a string", got: "number 1" });
  assert.equal(num(1.5), undefined);
  assert.equal(num(-0), undefined);
  assert.deepEqual(num(Number.NaN), { path: "", expected: "a number", got: "number NaN" });
  assert.equal(num(Number.POSITIVE_INFINITY)?.expected, "a number");
  assert.equal(num("1")?.got, 'string "1"');
  assert.equal(int(3), undefined);
  assert.equal(int(1.5)?.expected, "an integer");
  assert.equal(bool(false), undefined);
  assert.equal(bool(0)?.expected, "a boolean");
  assert.equal(idLike(""), undefined);
  assert.equal(idLike(9007199254740991), undefined);
  assert.equal(idLike(9007199254740992)?.expected, "a string or an integer");
  assert.equal(idLike(null)?.got, "null");
  assert.equal(anyObject({}), undefined);
  assert.equal(anyObject([])?.got, "array(0)");
  assert.equal(anyObject(null)?.expected, "an object");
  for (const v of [null, 0, "", [], {}, false]) assert.equal(anyValue(v), undefined);
});

test("literal matches one value exactly", () => {
  const obj = literal("object");
  assert.equal(obj("object"), undefined);
  assert.deepEqual(obj("Object"), { path: "", expected: '"object"', got: 'string "Object"' });
  assert.equal(literal(1)(1), undefined);
  assert.equal(literal(1)("1")?.expected, "1");
  assert.equal(literal(true)(true), undefined);
  assert.equal(literal(true)(1)?.expected, "true");
});

test("closedEnum refuses anything not listed, including non-strings", () => {
  const e = closedEnum(["a", "b"]);
  assert.equal(e("a"), undefined);
  assert.deepEqual(e("c"), { path: "", expected: 'one of "a", "b"', got: 'string "c"' });
  assert.equal(e(1)?.expected, 'one of "a", "b"');
  assert.equal(e(undefined)?.got, "absent");
  assert.equal(e("toString")?.expected, 'one of "a", "b"');
});

test("range bounds a number on either side, inclusively", () => {
  const both = range(num, 0, 1);
  assert.equal(both(0), undefined);
  assert.equal(both(1), undefined);
  assert.equal(both(0.5), undefined);
  assert.deepEqual(both(1.0001), { path: "", expected: "a number >= 0 <= 1", got: "number 1.0001" });
  assert.equal(both(-1)?.expected, "a number >= 0 <= 1");
  assert.equal(both("0.5")?.expected, "a number", "the inner check runs first");
  assert.equal(range(int, 1, undefined)(0)?.expected, "a number >= 1");
  assert.equal(range(int, 1, undefined)(1e9), undefined);
  assert.equal(range(num, undefined, 10)(11)?.expected, "a number <= 10");
  assert.equal(range(num, undefined, 10)(-1e9), undefined);
  assert.equal(range(num, undefined, undefined)(5), undefined);
});

test("arrayOf checks every item and an optional maxItems", () => {
  const strings = arrayOf(str);
  assert.equal(strings([]), undefined);
  assert.equal(strings(["a", "b"]), undefined);
  assert.deepEqual(issueOf(strings, ["a", 2]), { path: "v[1]", expected: "a string", got: "number 2" });
  assert.equal(strings({ length: 0 })?.expected, "an array");
  const three = arrayOf(str, 3);
  assert.equal(three(["a", "b", "c"]), undefined);
  assert.deepEqual(three(["a", "b", "c", "d"]), { path: "", expected: "an array of at most 3 items", got: "array(4)" });
  assert.equal(arrayOf(str, 0)([]), undefined);
  assert.equal(arrayOf(str, 0)(["a"])?.expected, "an array of at most 0 items");
  const nested = arrayOf(arrayOf(object({ n: num }, ["n"])));
  assert.equal(issueOf(nested, [[{ n: 1 }], [{ n: 1 }, {}]])?.path, "v[1][1].n");
});

test("recordOf checks every member value, own keys only", () => {
  const strings = recordOf(str);
  assert.equal(strings({}), undefined);
  assert.equal(strings({ a: "1", b: "2" }), undefined);
  assert.deepEqual(issueOf(strings, { a: "1", b: 2 }), { path: "v.b", expected: "a string", got: "number 2" });
  assert.equal(strings([])?.expected, "an object");
  assert.equal(strings(null)?.expected, "an object");
  const withProto = JSON.parse('{"__proto__":"x","ok":"y"}') as JsonObject;
  assert.equal(strings(withProto), undefined);
  assert.equal(issueOf(strings, JSON.parse('{"__proto__":{"a":1}}'))?.path, "v.__proto__");
});

test("object: required members, checked members, unknown members untouched", () => {
  const o = object({ a: str, b: num }, ["a"]);
  assert.equal(o({ a: "x" }), undefined);
  assert.equal(o({ a: "x", b: 1, c: "anything" }), undefined);
  assert.deepEqual(issueOf(o, {}), { path: "v.a", expected: "a required member", got: "absent" });
  assert.deepEqual(issueOf(o, { a: "x", b: "1" }), { path: "v.b", expected: "a number", got: 'string "1"' });
  assert.equal(o([])?.expected, "an object");
  assert.equal(object({})({ anything: 1 }), undefined);
  assert.equal(issueOf(object({ a: object({ b: object({ c: str }) }) }), { a: { b: { c: 1 } } })?.path, "v.a.b.c");
});

test("anyOf passes on the first matching alternative, else reports its description", () => {
  const sn = anyOf([str, num], "a string or a number");
  assert.equal(sn("x"), undefined);
  assert.equal(sn(1), undefined);
  assert.deepEqual(sn(true), { path: "", expected: "a string or a number", got: "boolean true" });
  assert.equal(anyOf([], "nothing")(1)?.expected, "nothing");
  assert.equal(issueOf(object({ v: sn }), { v: null })?.path, "v.v");
});

test("tagged dispatches on a string tag; unknown tags pass; a non-string tag is refused", () => {
  const t = tagged("kind", { a: object({ x: num }, ["x"]), b: object({ y: str }, ["y"]) });
  assert.equal(t({ kind: "a", x: 1 }), undefined);
  assert.equal(t({ kind: "b", y: "1" }), undefined);
  assert.deepEqual(issueOf(t, { kind: "a" }), { path: "v.x", expected: "a required member", got: "absent" });
  assert.equal(t({ kind: "c" }), undefined);
  assert.equal(t({ kind: "constructor" }), undefined);
  assert.deepEqual(issueOf(t, { kind: 1 }), { path: "v.kind", expected: "a string", got: "number 1" });
  assert.deepEqual(issueOf(t, {}), { path: "v.kind", expected: "a string", got: "absent" });
  assert.equal(issueOf(t, { kind: null })?.got, "null");
  assert.equal(t("a")?.expected, "an object");
  assert.equal(t([])?.expected, "an object");
});

test("validate prefixes the root, and treats an absent value as {}", () => {
  assert.equal(validate(object({}), undefined, "params"), undefined);
  assert.deepEqual(validate(object({ a: str }, ["a"]), undefined, "params"), {
    path: "params.a",
    expected: "a required member",
    got: "absent",
  });
  assert.deepEqual(validate(str, {}, "result"), { path: "result", expected: "a string", got: "object" });
  assert.equal(validate(arrayOf(str), [1] as unknown as JsonObject, "result")?.path, "result[0]");
  assert.equal(validate(object({ a: str }), { a: "x" }, "params"), undefined);
});
