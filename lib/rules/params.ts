// Validators for the params of every request and notification, and for the result of every
// request, of the four session-era versions (RULES.md SCH-01, SCH-02, SCH-03, SCH-04, SCH-05,
// MT-01, L-02, L-03, N-01, O-02, O-04, K-05, J-02, J-04, TK-03, TK-07, CM-01).
//
// Invariants:
// - one table per version (a Map for params, a Map for results), built once at module load
//   from shared sub-schemas; a lookup never builds anything;
// - a method absent from a version (RULES.md MT-01) has no validator in it: undefined;
// - unknown members pass at every depth (SCH-04); a member introduced by a later version is an
//   unknown (unchecked) member in earlier ones; content blocks and completion references
//   are tagged unions in which an unknown tag passes;
// - enums are open (any string) except the logging level, the elicitation action and mode,
//   the task status and the sampling role, which refuse unknown values;
// - numbers that schema.ts types as `number` accept any finite number even where schema.json
//   says integer (SCH-05): sizes, maxTokens, totals, ttl, pollInterval, schema bounds, elicited
//   numbers; Task.ttl may be null;
// - `_meta` is any object, except in request params where `progressToken`, when present, is
//   a string or an integer (K-05); cursors are opaque strings (N-01).

import { isJsonObject } from "../wire/envelope.js";
import { describeValue } from "../wire/errors.js";
import {
  anyObject,
  anyOf,
  anyValue,
  arrayOf,
  bool,
  closedEnum,
  idLike,
  literal,
  num,
  object,
  range,
  recordOf,
  str,
  tagged,
  type Check,
  type Issue,
  type Shape,
} from "./schema.js";
import { SESSION_VERSIONS, VERSION_PROFILES, type SessionVersion, SCHEMA_RELEASES } from "./versions.js";

/** RFC 5424 severities, lowest first (O-02). Closed: an unknown level is -32602 (O-04). */
export const LOGGING_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;

const TASK_STATUSES = ["working", "input_required", "completed", "failed", "cancelled"] as const;
const ELICIT_ACTIONS = ["accept", "decline", "cancel"] as const;
const ROLES = ["user", "assistant"] as const;
const ELICIT_MODES = ["form", "url"] as const;

function fail(path: string, expected: string, value: unknown): Issue {
  return { path, expected, got: describeValue(value) };
}

/** Both checks, the first failure wins. */
function both(first: Check, second: Check): Check {
  return (v) => first(v) ?? second(v);
}

/** A value, or an array of such values (SamplingMessage.content from 2025-11-25). */
function oneOrMany(item: Check): Check {
  const many = arrayOf(item);
  return (v) => (Array.isArray(v) ? many(v) : item(v));
}

/** At least one of `keys` present (resource contents carry `text` or `blob`). Runs after an object check. */
function someOf(keys: readonly string[]): Check {
  const expected = `a required member (${keys.join(" or ")})`;
  return (v) => (isJsonObject(v) && keys.some((k) => v[k] !== undefined) ? undefined : fail(keys[0] as string, expected, undefined));
}

const numOrNull: Check = (v) => (v === null || num(v) === undefined ? undefined : fail("", "a number or null", v));

const strings = arrayOf(str);

interface VersionTables {
  readonly params: ReadonlyMap<string, Check>;
  readonly results: ReadonlyMap<string, Check>;
}

function build(version: SessionVersion): VersionTables {
  const index = VERSION_PROFILES[version].index;
  const since = (v: SessionVersion): boolean => index >= VERSION_PROFILES[v].index;
  const v0326 = since(SCHEMA_RELEASES.completions);
  const v0618 = since(SCHEMA_RELEASES.nestedMeta);
  const v1125 = since(SCHEMA_RELEASES.tasks);
  const when = (cond: boolean, shape: Shape): Shape => (cond ? shape : {});

  // Shared pieces.
  const meta = when(v0618, { _meta: anyObject }); // `_meta` on nested objects: 2025-06-18
  const title = when(v0618, { title: str });
  const icon = object({ src: str, mimeType: str, sizes: strings, theme: str }, ["src"]);
  const icons = when(v1125, { icons: arrayOf(icon) });
  const annotations = object({ audience: arrayOf(str), priority: range(num, 0, 1), ...when(v0618, { lastModified: str }) });
  const implementation = object(
    { name: str, ...title, version: str, ...when(v1125, { description: str, websiteUrl: str, icons: arrayOf(icon) }) },
    ["name", "version"],
  );
  // J-02: a tool's inputSchema and outputSchema are object schemas.
  const objectSchema = object(
    { ...when(v1125, { $schema: str }), type: literal("object"), properties: recordOf(anyObject), required: strings },
    ["type"],
  );
  const tool = object(
    {
      name: str,
      ...title,
      description: str,
      inputSchema: objectSchema,
      ...when(v0618, { outputSchema: objectSchema }),
      ...when(v0326, {
        annotations: object({ title: str, readOnlyHint: bool, destructiveHint: bool, idempotentHint: bool, openWorldHint: bool }),
      }),
      ...when(v1125, { execution: object({ taskSupport: str }), icons: arrayOf(icon) }),
      ...meta,
    },
    ["name", "inputSchema"],
  );

  // Resources.
  const resourceContents = both(object({ uri: str, mimeType: str, text: str, blob: str, ...meta }, ["uri"]), someOf(["text", "blob"]));
  const resourceShape: Shape = {
    uri: str,
    name: str,
    ...title,
    description: str,
    mimeType: str,
    size: num,
    annotations,
    ...icons,
    ...meta,
  };
  const resource = object(resourceShape, ["uri", "name"]);
  const resourceTemplate = object(
    { uriTemplate: str, name: str, ...title, description: str, mimeType: str, annotations, ...icons, ...meta },
    ["uriTemplate", "name"],
  );

  // Content blocks.
  const common: Shape = { annotations, ...meta };
  const text = object({ text: str, ...common }, ["text"]);
  const media = object({ data: str, mimeType: str, ...common }, ["data", "mimeType"]);
  const contentBlock = tagged("type", {
    text,
    image: media,
    ...(v0326 ? { audio: media } : {}),
    resource: object({ resource: resourceContents, ...common }, ["resource"]),
    ...(v0618 ? { resource_link: resource } : {}),
  });
  const samplingBlock = tagged("type", {
    text,
    image: media,
    ...(v0326 ? { audio: media } : {}),
    ...(v1125
      ? {
          tool_use: object({ id: str, name: str, input: anyObject, _meta: anyObject }, ["id", "name", "input"]),
          tool_result: object(
            { toolUseId: str, content: arrayOf(contentBlock), structuredContent: anyObject, isError: bool, _meta: anyObject },
            ["toolUseId", "content"],
          ),
        }
      : {}),
  });
  const samplingContent = v1125 ? oneOrMany(samplingBlock) : samplingBlock;

  // Tasks: TK-07, createdAt, lastUpdatedAt and ttl (null: unlimited) on every Task.
  const taskShape: Shape = {
    taskId: str,
    status: closedEnum(TASK_STATUSES),
    statusMessage: str,
    createdAt: str,
    lastUpdatedAt: str,
    ttl: numOrNull,
    pollInterval: num,
  };
  const taskRequired = ["taskId", "status", "createdAt", "lastUpdatedAt", "ttl"];
  const task = object(taskShape, taskRequired);
  const taskParam = when(v1125, { task: object({ ttl: num }) });

  // Params, results and notifications: `_meta` first so its issue is found like any member's.
  const requestMeta = object({ progressToken: idLike });
  const req = (shape: Shape, required: readonly string[] = []): Check => object({ _meta: requestMeta, ...shape }, required);
  const note = (shape: Shape, required: readonly string[] = []): Check => object({ _meta: anyObject, ...shape }, required);
  const res = note;
  const paginated = req({ cursor: str });
  const page = (key: string, item: Check): Check => res({ [key]: arrayOf(item), nextCursor: str }, [key]);
  const empty = res({});
  const createTaskResult = res({ task }, ["task"]);
  /** TK-03: from 2025-11-25 a task-augmented request may be answered by CreateTaskResult: told apart by `task` without `key`. */
  const orTask = (main: Check, key: string): Check =>
    v1125 ? (v) => (isJsonObject(v) && v.task !== undefined && v[key] === undefined ? createTaskResult(v) : main(v)) : main;

  // Capabilities (open sets: unknown keys pass; declared ones are objects or booleans).
  const listChanged = object({ listChanged: bool });
  const experimental = recordOf(anyObject);
  const clientCapabilities = object({
    experimental,
    roots: listChanged,
    sampling: v1125 ? object({ context: anyObject, tools: anyObject }) : anyObject,
    ...when(v0618, { elicitation: v1125 ? object({ form: anyObject, url: anyObject }) : anyObject }),
    ...when(v1125, {
      tasks: object({
        list: anyObject,
        cancel: anyObject,
        requests: object({ sampling: object({ createMessage: anyObject }), elicitation: object({ create: anyObject }) }),
      }),
    }),
  });
  const serverCapabilities = object({
    experimental,
    logging: anyObject,
    ...when(v0326, { completions: anyObject }),
    prompts: listChanged,
    resources: object({ subscribe: bool, listChanged: bool }),
    tools: listChanged,
    ...when(v1125, { tasks: object({ list: anyObject, cancel: anyObject, requests: object({ tools: object({ call: anyObject }) }) }) }),
  });

  // Sampling.
  const role = closedEnum(ROLES);
  const samplingMessage = object({ role, content: samplingContent, ...when(v1125, { _meta: anyObject }) }, ["role", "content"]);
  const priority = range(num, 0, 1);
  const modelPreferences = object({
    hints: arrayOf(object({ name: str })),
    costPriority: priority,
    speedPriority: priority,
    intelligencePriority: priority,
  });
  const createMessageParams = req(
    {
      messages: arrayOf(samplingMessage),
      maxTokens: num,
      systemPrompt: str,
      modelPreferences,
      includeContext: str,
      temperature: num,
      stopSequences: strings,
      metadata: anyObject,
      ...when(v1125, { tools: arrayOf(tool), toolChoice: object({ mode: str }) }),
      ...taskParam,
    },
    ["messages", "maxTokens"],
  );
  const createMessageResult = res({ role, content: samplingContent, model: str, stopReason: str }, ["role", "content", "model"]);

  // Elicitation (2025-06-18): a flat object of primitive property schemas, tagged by `type` (J-04).
  const option = object({ const: str, title: str }, ["const", "title"]);
  const base: Shape = { title: str, description: str };
  const primitiveSchema = tagged("type", {
    string: object({
      ...base,
      minLength: num,
      maxLength: num,
      format: str,
      enum: strings,
      enumNames: strings,
      ...when(v1125, { oneOf: arrayOf(option), default: str }),
    }),
    number: object({ ...base, minimum: num, maximum: num, ...when(v1125, { default: num }) }),
    integer: object({ ...base, minimum: num, maximum: num, ...when(v1125, { default: num }) }),
    boolean: object({ ...base, default: bool }),
    ...(v1125
      ? {
          array: object(
            {
              ...base,
              minItems: num,
              maxItems: num,
              items: both(object({ type: str, enum: strings, anyOf: arrayOf(option) }), someOf(["enum", "anyOf"])),
              default: strings,
            },
            ["items"],
          ),
        }
      : {}),
  });
  const requestedSchema = object(
    { ...when(v1125, { $schema: str }), type: literal("object"), properties: recordOf(primitiveSchema), required: strings },
    ["type", "properties"],
  );
  const elicitForm = req({ message: str, requestedSchema, ...taskParam }, ["message", "requestedSchema"]);
  const elicitUrl = req({ message: str, url: str, elicitationId: str, ...taskParam }, ["message", "url", "elicitationId"]);
  const modes = `one of ${ELICIT_MODES.map((m) => JSON.stringify(m)).join(", ")}`;
  const elicitParams: Check = v1125
    ? (v) => {
        if (!isJsonObject(v)) return anyObject(v);
        if (v.mode === undefined || v.mode === "form") return elicitForm(v);
        if (v.mode === "url") return elicitUrl(v);
        return fail("mode", modes, v.mode); // closed: a mode the client cannot know is refused
      }
    : elicitForm;
  const elicitValue = v1125
    ? anyOf([str, num, bool, strings], "a string, a number, a boolean or an array of strings")
    : anyOf([str, num, bool], "a string, a number or a boolean");
  const elicitResult = res({ action: closedEnum(ELICIT_ACTIONS), content: recordOf(elicitValue) }, ["action"]);

  // Completion.
  const completeParams = req(
    {
      ref: tagged("type", { "ref/prompt": object({ name: str, ...title }, ["name"]), "ref/resource": object({ uri: str }, ["uri"]) }),
      argument: object({ name: str, value: str }, ["name", "value"]),
      ...when(v0618, { context: object({ arguments: recordOf(str) }) }),
    },
    ["ref", "argument"],
  );
  // CM-01: at most 100 completion values.
  const completeResult = res({ completion: object({ values: arrayOf(str, 100), total: num, hasMore: bool }, ["values"]) }, ["completion"]);

  // Prompts and tool results.
  const promptArgument = object({ name: str, ...title, description: str, required: bool }, ["name"]);
  const prompt = object({ name: str, ...title, description: str, arguments: arrayOf(promptArgument), ...icons, ...meta }, ["name"]);
  const promptMessage = object({ role: str, content: contentBlock }, ["role", "content"]); // role open here; closed in sampling
  const callToolResult = res({ content: arrayOf(contentBlock), ...when(v0618, { structuredContent: anyObject }), isError: bool }, [
    "content",
  ]);

  const level = closedEnum(LOGGING_LEVELS);
  const uriParams = req({ uri: str }, ["uri"]);
  const taskIdParams = req({ taskId: str }, ["taskId"]);
  const taskResult = res(taskShape, taskRequired);

  const params = new Map<string, Check>();
  const results = new Map<string, Check>();
  const request = (method: string, p: Check, r: Check): void => {
    params.set(method, p);
    results.set(method, r);
  };

  // L-02, L-03: what initialize and its result must carry.
  request(
    "initialize",
    req({ protocolVersion: str, capabilities: clientCapabilities, clientInfo: implementation }, [
      "protocolVersion",
      "capabilities",
      "clientInfo",
    ]),
    res({ protocolVersion: str, capabilities: serverCapabilities, serverInfo: implementation, instructions: str }, [
      "protocolVersion",
      "capabilities",
      "serverInfo",
    ]),
  );
  request("ping", req({}), empty);
  request("resources/list", paginated, page("resources", resource));
  request("resources/templates/list", paginated, page("resourceTemplates", resourceTemplate));
  request("resources/read", uriParams, res({ contents: arrayOf(resourceContents) }, ["contents"]));
  request("resources/subscribe", uriParams, empty);
  request("resources/unsubscribe", uriParams, empty);
  request("prompts/list", paginated, page("prompts", prompt));
  request(
    "prompts/get",
    req({ name: str, arguments: recordOf(str) }, ["name"]),
    res({ description: str, messages: arrayOf(promptMessage) }, ["messages"]),
  );
  request("tools/list", paginated, page("tools", tool));
  request("tools/call", req({ name: str, arguments: anyObject, ...taskParam }, ["name"]), orTask(callToolResult, "content"));
  request("logging/setLevel", req({ level }, ["level"]), empty);
  request("completion/complete", completeParams, completeResult);
  request("sampling/createMessage", createMessageParams, orTask(createMessageResult, "content"));
  request("roots/list", req({}), res({ roots: arrayOf(object({ uri: str, name: str, ...meta }, ["uri"])) }, ["roots"]));
  if (v0618) request("elicitation/create", elicitParams, orTask(elicitResult, "action"));
  if (v1125) {
    request("tasks/get", taskIdParams, taskResult);
    request("tasks/result", taskIdParams, empty); // the underlying request's result: any Result object
    request("tasks/list", paginated, page("tasks", task));
    request("tasks/cancel", taskIdParams, taskResult);
  }

  const bare = note({});
  params.set("notifications/initialized", bare);
  params.set("notifications/cancelled", note({ requestId: idLike, reason: str }, v1125 ? [] : ["requestId"]));
  params.set(
    "notifications/progress",
    // P-06: message, from 2025-03-26, is text.
    note({ progressToken: idLike, progress: num, total: num, ...when(v0326, { message: str }) }, ["progressToken", "progress"]),
  );
  params.set("notifications/message", note({ level, logger: str, data: anyValue }, ["level", "data"]));
  params.set("notifications/resources/list_changed", bare);
  params.set("notifications/resources/updated", note({ uri: str }, ["uri"]));
  params.set("notifications/prompts/list_changed", bare);
  params.set("notifications/tools/list_changed", bare);
  params.set("notifications/roots/list_changed", bare);
  if (v1125) {
    params.set("notifications/elicitation/complete", note({ elicitationId: str }, ["elicitationId"]));
    params.set("notifications/tasks/status", note(taskShape, taskRequired));
  }
  return { params, results };
}

const TABLES: ReadonlyMap<SessionVersion, VersionTables> = new Map(SESSION_VERSIONS.map((v) => [v, build(v)] as const));

/** The params validator of a request or notification in `version`; undefined for a method the version does not have. */
export function paramsCheck(version: SessionVersion, method: string): Check | undefined {
  return TABLES.get(version)?.params.get(method);
}

/** The result validator of a request in `version`; undefined for a method the version does not have (and for notifications). */
export function resultCheck(version: SessionVersion, method: string): Check | undefined {
  return TABLES.get(version)?.results.get(method);
}
