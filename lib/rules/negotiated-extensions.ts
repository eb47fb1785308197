// Negotiated extensions: the extensions the specification defines for 2026-07-28, declared per
// request, as pure rules; today the tasks extension `io.modelcontextprotocol/tasks` (SEP-2663;
// RULES.md TX-01, TX-02, TX-03, TX-04, TX-05, MT-01, MOD-12): which methods need it (the
// `extension` column of the method table), which may answer with a task (`taskAugmentable`),
// the shapes of CreateTaskResult and DetailedTask, and the taskIds of a listen filter.
//
// Their methods are rows of the spec's method table (lib/rules/methods.ts). Methods a host adds
// beyond the spec under an extension of its own are custom methods (lib/rules/custom-methods.ts).
//
// Invariants:
// - an extension is declared by a key under `capabilities.extensions`; the client's are
//   read from each request's own `_meta` envelope, never remembered between requests;
// - the session era (2025-11-25 and older) has no extension rows: the tasks there are the
//   core tasks of lib/rules/features.ts, and an `extensions` key in its capabilities is ignored;
// - nothing here keeps state or mutates what it is given.

import { hasOwn, isJsonObject, type JsonObject } from "../wire/envelope.js";
import { ErrorCode, describeValue } from "../wire/errors.js";
import { TASKS_EXTENSION, methodTable, methodTraits } from "./methods.js";
import type { ProtocolVersion } from "./versions.js";

export { TASKS_EXTENSION } from "./methods.js";

/** The statuses of a task; the last three are terminal. */
export const TASK_STATUSES: ReadonlySet<string> = new Set(["working", "input_required", "completed", "failed", "cancelled"]);
export const TERMINAL_TASK_STATUSES: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"]);

/** TX-01: whether a capabilities object declares `extension` (a key under `extensions`, own keys only); a request's own, never remembered. */
export function declaresExtension(capabilities: unknown, extension: string): boolean {
  if (!isJsonObject(capabilities)) return false;
  const extensions = capabilities.extensions;
  return isJsonObject(extensions) && hasOwn(extensions, extension) && extensions[extension] !== null && extensions[extension] !== false;
}

/** The capabilities object naming one extension, as -32021's requiredCapabilities carries it. */
export function extensionCapabilities(extension: string): JsonObject {
  return { extensions: { [extension]: {} } };
}

export interface ExtensionRefusal {
  readonly code: number;
  readonly message: string;
  readonly data: unknown;
  readonly rule: string;
  readonly expected: string;
  readonly got: string;
}

/**
 * A request of a method that belongs to an extension (the `extension` column): unknown
 * (-32601) when this server does not offer the extension, -32021 with requiredCapabilities
 * when the request's own clientCapabilities do not declare it. Checked before the host sees
 * the request, hence before any task lookup.
 */
export function extensionRefusal(
  version: ProtocolVersion,
  method: string,
  requestCapabilities: JsonObject,
  serverCapabilities: JsonObject,
): ExtensionRefusal | undefined {
  const extension = methodTable(version).get(method)?.extension;
  if (extension === undefined) return undefined;
  if (!declaresExtension(serverCapabilities, extension)) {
    return {
      code: ErrorCode.MethodNotFound,
      message: `Method not found: ${method} (extension ${extension} not offered)`,
      data: undefined,
      rule: "MT-01",
      expected: `a method of this server (${method} exists only where ${extension} is offered)`,
      got: method,
    };
  }
  if (!declaresExtension(requestCapabilities, extension)) {
    return {
      code: ErrorCode.MissingRequiredClientCapability,
      message: "Missing required client capability",
      data: { requiredCapabilities: extensionCapabilities(extension) },
      rule: "TX-02",
      expected: `params._meta clientCapabilities.extensions["${extension}"] for ${method}`,
      got: "not declared",
    };
  }
  return undefined;
}

/** The result types a modern client accepts for `method`: "task" only where tasks are allowed and our request declared the extension. */
export function resultTypesFor(method: string, ownCapabilities: JsonObject, core: ReadonlySet<string>): ReadonlySet<string> {
  if (methodTraits(method)?.taskAugmentable !== true || !declaresExtension(ownCapabilities, TASKS_EXTENSION)) return core;
  return new Set([...core, "task"]);
}

export interface ShapeProblem {
  readonly rule: string;
  readonly expected: string;
  readonly got: string;
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;
/** Keys that belong to other shapes and must not leak into a task: the v1 names, the MRTR state, the nested v1 wrapper. */
const FOREIGN_TASK_KEYS = ["task", "ttl", "pollInterval", "requestState"] as const;

/** The fields every Task carries (taskId, status, timestamps, ttlMs, pollIntervalMs), or the first problem. */
function taskProblem(task: JsonObject, rule: string): ShapeProblem | undefined {
  if (typeof task.taskId !== "string" || task.taskId.length === 0)
    return { rule, expected: "taskId as a non-empty string", got: describeValue(task.taskId) };
  if (typeof task.status !== "string" || !TASK_STATUSES.has(task.status))
    return { rule, expected: "status among working, input_required, completed, failed, cancelled", got: describeValue(task.status) };
  for (const key of ["createdAt", "lastUpdatedAt"] as const) {
    const value = task[key];
    if (typeof value !== "string" || !ISO_8601.test(value))
      return { rule, expected: `${key} as an ISO 8601 timestamp`, got: describeValue(value) };
  }
  if (task.ttlMs !== null && !(Number.isSafeInteger(task.ttlMs) && (task.ttlMs as number) > 0))
    return { rule: "TX-04", expected: "ttlMs as null or a positive integer of milliseconds", got: describeValue(task.ttlMs) };
  if (task.pollIntervalMs !== undefined && !(Number.isSafeInteger(task.pollIntervalMs) && (task.pollIntervalMs as number) > 0)) {
    return {
      rule: "TX-04",
      expected: "pollIntervalMs absent or a positive integer of milliseconds",
      got: describeValue(task.pollIntervalMs),
    };
  }
  for (const key of FOREIGN_TASK_KEYS)
    if (task[key] !== undefined) return { rule: "TX-04", expected: `no ${key} on a task`, got: describeValue(task[key]) };
  return undefined;
}

/** A CreateTaskResult a server is about to send (resultType "task"): flat, no result, error or inputRequests. */
export function createTaskResultProblem(method: string, result: JsonObject, requestCapabilities: JsonObject): ShapeProblem | undefined {
  if (methodTraits(method)?.taskAugmentable !== true)
    return { rule: "TX-03", expected: 'resultType "task" only for tools/call', got: method };
  if (!declaresExtension(requestCapabilities, TASKS_EXTENSION))
    return { rule: "TX-03", expected: `a request declaring ${TASKS_EXTENSION} before answering with a task`, got: "not declared" };
  for (const key of ["result", "error", "inputRequests"] as const) {
    if (result[key] !== undefined)
      return { rule: "TX-04", expected: `no ${key} on a CreateTaskResult (it lives on tasks/get)`, got: describeValue(result[key]) };
  }
  return taskProblem(result, "TX-04");
}

/** A DetailedTask (tasks/get result or notifications/tasks params): the fields its status calls for, and none of the others. */
export function detailedTaskProblem(task: JsonObject): ShapeProblem | undefined {
  const base = taskProblem(task, "TX-05");
  if (base !== undefined) return base;
  const status = task.status as string;
  const wants =
    status === "completed" ? "result" : status === "failed" ? "error" : status === "input_required" ? "inputRequests" : undefined;
  for (const key of ["result", "error", "inputRequests"] as const) {
    const present = task[key] !== undefined;
    if (key === wants && (!present || !isJsonObject(task[key])))
      return { rule: "TX-05", expected: `${key} as an object on a ${status} task`, got: describeValue(task[key]) };
    if (key !== wants && present) return { rule: "TX-05", expected: `no ${key} on a ${status} task`, got: describeValue(task[key]) };
  }
  return undefined;
}

/**
 * The taskIds of a subscriptions/listen filter: undefined when absent (nothing asked),
 * the list when the server offers tasks and the request declared the extension (empty
 * when the server does not offer it), -32021 when asked without declaring, malformed otherwise.
 */
export function listenTaskIds(
  requested: unknown,
  serverCapabilities: JsonObject,
  requestCapabilities: JsonObject,
): { ok: true; taskIds: string[] | undefined } | { ok: false; refusal: ExtensionRefusal } {
  if (!isJsonObject(requested) || requested.taskIds === undefined) return { ok: true, taskIds: undefined };
  const ids = requested.taskIds;
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === "string")) {
    return {
      ok: false,
      refusal: {
        code: ErrorCode.InvalidParams,
        message: "Invalid params",
        data: { path: "params.notifications.taskIds", expected: "an array of task ids" },
        rule: "MOD-12",
        expected: "taskIds as an array of strings",
        got: describeValue(ids),
      },
    };
  }
  if (!declaresExtension(requestCapabilities, TASKS_EXTENSION)) {
    return {
      ok: false,
      refusal: {
        code: ErrorCode.MissingRequiredClientCapability,
        message: "Missing required client capability",
        data: { requiredCapabilities: extensionCapabilities(TASKS_EXTENSION) },
        rule: "TX-02",
        expected: `${TASKS_EXTENSION} declared to listen for task notifications`,
        got: "not declared",
      },
    };
  }
  return { ok: true, taskIds: declaresExtension(serverCapabilities, TASKS_EXTENSION) ? [...(ids as string[])] : [] };
}
