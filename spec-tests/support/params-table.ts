// The builders of the params and result table (core/params.test.ts): version ranges, the
// wording of each expectation, a row of valid and invalid examples for one method and kind, an
// invalid example made by editing a valid one at a path, and realistic building blocks (content
// blocks, a task, a tool, an implementation) with their optional members present. Not a test
// file itself.

import { LOGGING_LEVELS } from "../../lib/rules/params.js";
import { type JsonObject } from "../../lib/wire/envelope.js";
import { SESSION_VERSIONS, VERSION_PROFILES, type SessionVersion } from "../../lib/rules/versions.js";

// ---------------------------------------------------------------------------------------
// Version ranges and expectations.

export const ALL: readonly SessionVersion[] = SESSION_VERSIONS;
export const idx = (v: SessionVersion): number => VERSION_PROFILES[v].index;
export const from = (v: SessionVersion): readonly SessionVersion[] => ALL.filter((x) => idx(x) >= idx(v));
export const before = (v: SessionVersion): readonly SessionVersion[] => ALL.filter((x) => idx(x) < idx(v));

export const REQ = "a required member";
export const STR = "a string";
export const NUM = "a number";
export const OBJ = "an object";
export const ARR = "an array";
export const BOOL = "a boolean";
export const ID = "a string or an integer";
export const oneOf = (values: readonly string[]): string => `one of ${values.map((x) => JSON.stringify(x)).join(", ")}`;
export const LEVEL = oneOf(LOGGING_LEVELS);
export const STATUS = oneOf(["working", "input_required", "completed", "failed", "cancelled"]);
export const ROLE = oneOf(["user", "assistant"]);
export const ACTION = oneOf(["accept", "decline", "cancel"]);
export const PRIORITY = "a number >= 0 <= 1";

export type Kind = "params" | "result";

export interface Bad {
  value: unknown;
  path: string;
  expected: string;
}

export interface Row {
  versions: readonly SessionVersion[];
  kind: Kind;
  method: string;
  valid: JsonObject[];
  invalid: Bad[];
}

export const DROP = Symbol("drop");

/** A deep copy of `base` with the member at `path` ("a.b[0].c") replaced, or removed with DROP. */
export function edit(base: JsonObject, path: string, value: unknown): JsonObject {
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
export function bad(root: Kind, base: JsonObject, path: string, value: unknown, expected: string, at: string = path): Bad {
  return { value: edit(base, path, value), path: at === "" ? root : `${root}.${at}`, expected };
}
export const pBad = (base: JsonObject, path: string, value: unknown, expected: string, at?: string): Bad =>
  bad("params", base, path, value, expected, at);
export const rBad = (base: JsonObject, path: string, value: unknown, expected: string, at?: string): Bad =>
  bad("result", base, path, value, expected, at);

export function P(versions: readonly SessionVersion[], method: string, valid: JsonObject[], invalid: Bad[]): Row {
  return { versions, kind: "params", method, valid, invalid };
}
export function R(versions: readonly SessionVersion[], method: string, valid: JsonObject[], invalid: Bad[]): Row {
  return { versions, kind: "result", method, valid, invalid };
}

// ---------------------------------------------------------------------------------------
// Realistic building blocks, with optional members present.

export const icon = { src: "https://example.com/icon.png", mimeType: "image/png", sizes: ["48x48", "96x96"], theme: "light" };
export const annotations = { audience: ["user", "assistant"], priority: 0.8, lastModified: "2025-01-12T15:00:58Z" };
export const textBlock = {
  type: "text",
  text: "The weather in Paris is 21°C and sunny.",
  annotations,
  _meta: { "com.example/trace": "t1" },
};
export const imageBlock = { type: "image", data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB", mimeType: "image/png", annotations };
export const audioBlock = { type: "audio", data: "UklGRiQAAABXQVZFZm10IBAAAAABAAEA", mimeType: "audio/wav", annotations };
export const resourceBlock = {
  type: "resource",
  resource: { uri: "file:///project/README.md", mimeType: "text/markdown", text: "# Project\n", _meta: {} },
  annotations,
};
export const blobBlock = { type: "resource", resource: { uri: "file:///project/logo.png", mimeType: "image/png", blob: "iVBORw0KGgo=" } };
export const linkBlock = {
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
export const task = {
  taskId: "786512e2-9e0d-44bd-8f29-789f320fe840",
  status: "working",
  statusMessage: "The operation is now in progress.",
  createdAt: "2025-11-25T10:30:00Z",
  lastUpdatedAt: "2025-11-25T10:40:00Z",
  ttl: 60000,
  pollInterval: 5000,
};
export const tool = {
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
export const implementation = {
  name: "example-client",
  title: "Example Client Display Name",
  version: "1.0.0",
  description: "An example MCP client application",
  websiteUrl: "https://example.com",
  icons: [icon],
};
