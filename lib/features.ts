// Feature rules that depend on what happened earlier in the session (DIGEST.md b.6, b.13,
// b.14, b.16, c.2): logging level, resource subscriptions, URL elicitations, completion
// caps, roots, `_meta` key rules, tool-level task support and the task status machine.
//
// The engine calls one hook per message and direction, after gate() and params validation:
// - outbound hooks throw LocalProtocolError and change no state when they refuse;
// - inbound hooks return a Refusal (a reply code for requests, a violation otherwise) and
//   record state only for messages they accept.
// State here is per session and bounded by what the peers create (subscriptions, tasks).

import { Cap } from "./capabilities.js";
import { describeValue, ErrorCode, LocalProtocolError } from "./errors.js";
import { isJsonObject, type ErrorObject, type JsonObject } from "./envelope.js";
import type { Role } from "./methods.js";
import { VERSION_PROFILES, type SessionVersion } from "./versions.js";

export const LOGGING_SEVERITY: Readonly<Record<string, number>> = {
  debug: 0,
  info: 1,
  notice: 2,
  warning: 3,
  error: 4,
  critical: 5,
  alert: 6,
  emergency: 7,
};

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

const TERMINAL: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"]);

/** TK-02: allowed moves; terminal states have none. */
const TASK_MOVES: Readonly<Record<string, readonly string[]>> = {
  working: ["working", "input_required", "completed", "failed", "cancelled"],
  input_required: ["input_required", "working", "completed", "failed", "cancelled"],
};

export const RELATED_TASK_KEY = "io.modelcontextprotocol/related-task";
const KNOWN_RESERVED_KEYS: ReadonlySet<string> = new Set([RELATED_TASK_KEY, "io.modelcontextprotocol/model-immediate-response"]);

export interface Refusal {
  /** Reply code for a request; undefined for notifications and responses. */
  readonly code: number | undefined;
  readonly rule: string;
  readonly expected: string;
  readonly got: string;
}

export interface TaskRecord {
  status: string;
  /** The progress token of the request that created the task (P-08), if any. */
  readonly token: string | number | undefined;
  /** The last progress sent for it (receiver side). */
  lastProgress: number;
  /** The token was released once the task ended (requestor side). */
  tokenReleased: boolean;
}

const LABEL = "[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?";
const META_KEY = new RegExp(`^(?:((?:${LABEL}\\.)*${LABEL})/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`);

function refusal(code: number | undefined, rule: string, expected: string, got: string): Refusal {
  return { code, rule, expected, got };
}

function local(rule: string, expected: string, got: string, method: string | undefined): LocalProtocolError {
  return new LocalProtocolError({ rule, expected, got, method });
}

/** K-03/K-04: the first key of `meta` that breaks the version's key rules, with the rule. */
export function metaKeyProblem(meta: unknown, version: SessionVersion): Refusal | undefined {
  const index = VERSION_PROFILES[version].index;
  if (!isJsonObject(meta) || index < VERSION_PROFILES["2025-06-18"].index) return undefined;
  for (const key of Object.keys(meta)) {
    const match = META_KEY.exec(key);
    if (match === null) return refusal(undefined, "K-03", "a _meta key of the form [prefix/]name", JSON.stringify(key));
    const prefix = match[1];
    if (prefix === undefined || KNOWN_RESERVED_KEYS.has(key)) continue;
    const labels = prefix.split(".");
    const reserved =
      index >= VERSION_PROFILES["2025-11-25"].index
        ? labels.length >= 2 && (labels[1] === "modelcontextprotocol" || labels[1] === "mcp")
        : labels.some((label, i) => i < labels.length - 1 && (label === "modelcontextprotocol" || label === "mcp"));
    if (reserved) return refusal(undefined, "K-04", "a _meta prefix not reserved by MCP", JSON.stringify(key));
  }
  return undefined;
}

/** Tasks exist from 2025-11-25 (a.4). */
function hasTasks(version: SessionVersion | undefined): boolean {
  return version !== undefined && VERSION_PROFILES[version].index >= VERSION_PROFILES["2025-11-25"].index;
}

function urlElicitationIds(data: unknown): string[] | undefined {
  if (!isJsonObject(data) || !Array.isArray(data.elicitations) || data.elicitations.length === 0) return undefined;
  const ids: string[] = [];
  for (const e of data.elicitations) {
    if (!isJsonObject(e) || e.mode !== "url" || typeof e.elicitationId !== "string" || typeof e.url !== "string" || typeof e.message !== "string") return undefined;
    ids.push(e.elicitationId);
  }
  return ids;
}

function uriCovered(subscribed: ReadonlySet<string>, uri: string): boolean {
  if (subscribed.has(uri)) return true;
  for (const s of subscribed) if (uri.startsWith(s.endsWith("/") ? s : `${s}/`)) return true;
  return false;
}

function taskOf(result: JsonObject): JsonObject | undefined {
  return isJsonObject(result.task) ? result.task : undefined;
}

export class Features {
  private logLevel: number | undefined;
  private readonly subscriptions = new Set<string>();
  private readonly urlElicitations = new Set<string>();
  private readonly toolTaskSupport = new Map<string, string>();
  /** Tasks this side created as the receiver. */
  readonly tasksHere = new Map<string, TaskRecord>();
  /** Tasks the peer created for our requests. */
  readonly tasksThere = new Map<string, TaskRecord>();

  constructor(private readonly role: Role) {}

  /** The logging level the client set (server side), as a name. */
  get loggingLevel(): string | undefined {
    if (this.logLevel === undefined) return undefined;
    return Object.keys(LOGGING_SEVERITY).find((k) => LOGGING_SEVERITY[k] === this.logLevel);
  }

  /** Whether the client subscribed to `uri` (or a resource containing it). */
  isSubscribed(uri: string): boolean {
    return uriCovered(this.subscriptions, uri);
  }

  /** What a session needs to carry on elsewhere: the level the client set and its subscriptions. */
  exportState(): { loggingLevel: string | undefined; subscriptions: string[] } {
    return { loggingLevel: this.loggingLevel, subscriptions: [...this.subscriptions] };
  }

  importState(state: { loggingLevel: string | undefined; subscriptions: readonly string[] }): void {
    this.logLevel = state.loggingLevel === undefined ? undefined : LOGGING_SEVERITY[state.loggingLevel];
    for (const uri of state.subscriptions) this.subscriptions.add(uri);
  }

  // ── outbound ──────────────────────────────────────────────────────────────────

  checkMeta(params: JsonObject | undefined, version: SessionVersion | undefined, method: string | undefined): void {
    if (params === undefined || version === undefined || params._meta === undefined) return;
    const problem = metaKeyProblem(params._meta, version);
    if (problem !== undefined) throw local(problem.rule, problem.expected, problem.got, method);
  }

  /** Our request; throws if a feature rule forbids it. Records what later messages depend on. */
  outboundRequest(method: string, params: JsonObject | undefined, peerCaps: number, version: SessionVersion | undefined): void {
    this.checkMeta(params, version, method);
    if (method === "tools/call" && hasTasks(version) && (peerCaps & Cap.tasksRequestsToolsCall) !== 0 && params !== undefined && typeof params.name === "string") {
      const support = this.toolTaskSupport.get(params.name);
      if (support !== undefined) {
        const withTask = params.task !== undefined;
        if (withTask && support !== "optional" && support !== "required") throw local("TK-08", `no task for tool ${params.name} (taskSupport ${support})`, "a task-augmented call", method);
        if (!withTask && support === "required") throw local("TK-08", `a task for tool ${params.name} (taskSupport required)`, "a plain call", method);
      }
    }
    if (method === "elicitation/create" && params?.mode === "url" && typeof params.elicitationId === "string") this.urlElicitations.add(params.elicitationId);
  }

  /** Our notification; returns false when it must be dropped rather than sent (logging below the level). */
  outboundNotification(method: string, params: JsonObject | undefined, version: SessionVersion | undefined): boolean {
    this.checkMeta(params, version, method);
    switch (method) {
      case "notifications/message": {
        const severity = LOGGING_SEVERITY[params?.level as string];
        if (severity === undefined) throw local("O-02", "a logging level (debug … emergency)", describeValue(params?.level), method);
        return this.logLevel === undefined || severity >= this.logLevel;
      }
      case "notifications/resources/updated": {
        const uri = params?.uri;
        if (typeof uri !== "string" || !this.isSubscribed(uri)) throw local("C-04", "updated only for a URI the client subscribed to", describeValue(uri), method);
        return true;
      }
      case "notifications/elicitation/complete": {
        const id = params?.elicitationId;
        if (typeof id !== "string" || !this.urlElicitations.delete(id)) throw local("C-07", "complete only for a URL elicitation sent to this client", describeValue(id), method);
        return true;
      }
      case "notifications/tasks/status": {
        const problem = this.taskUpdateProblem(this.tasksHere, params);
        if (problem !== undefined) throw local(problem.rule, problem.expected, problem.got, method);
        this.recordTask(this.tasksHere, params as JsonObject);
        return true;
      }
      default:
        return true;
    }
  }

  /** Our result for a peer request; throws if a feature rule forbids it, otherwise records its effect. */
  outboundResult(method: string, request: JsonObject | undefined, result: JsonObject, version: SessionVersion | undefined, token: string | number | undefined): void {
    this.checkMeta(result, version, method);
    switch (method) {
      case "completion/complete": {
        const values = isJsonObject(result.completion) ? result.completion.values : undefined;
        if (Array.isArray(values) && values.length > 100) throw local("a.1", "at most 100 completion values", `${values.length}`, method);
        return;
      }
      case "roots/list": {
        const bad = firstNonFileRoot(result);
        if (bad !== undefined) throw local("C-03", "root URIs starting with file://", describeValue(bad), method);
        return;
      }
      case "logging/setLevel":
        this.logLevel = LOGGING_SEVERITY[request?.level as string];
        return;
      case "resources/subscribe":
        if (typeof request?.uri === "string") this.subscriptions.add(request.uri);
        return;
      case "resources/unsubscribe":
        if (typeof request?.uri === "string") this.subscriptions.delete(request.uri);
        return;
      case "tools/list":
        this.recordToolTaskSupport(result);
        return;
      case "tasks/result":
        if (!isJsonObject(result._meta) || result._meta[RELATED_TASK_KEY] === undefined) {
          throw local("TK-06", `_meta["${RELATED_TASK_KEY}"] on a tasks/result response`, "absent", method);
        }
        return;
      case "tasks/get":
      case "tasks/cancel": {
        const problem = this.taskUpdateProblem(this.tasksHere, result);
        if (problem !== undefined) throw local(problem.rule, problem.expected, problem.got, method);
        if (method === "tasks/cancel" && result.status !== "cancelled") throw local("TK-05", 'status "cancelled" after tasks/cancel', describeValue(result.status), method);
        this.recordTask(this.tasksHere, result);
        return;
      }
      default:
        if (request?.task !== undefined) {
          const task = taskOf(result);
          if (task !== undefined && typeof task.taskId === "string") this.tasksHere.set(task.taskId, { status: String(task.status), token, lastProgress: -Infinity, tokenReleased: false });
        }
    }
  }

  /** Our error reply; -32042 must carry valid URL elicitations (2025-11-25). */
  outboundError(code: number, data: unknown, version: SessionVersion | undefined): void {
    if (code !== ErrorCode.UrlElicitationRequired || version !== "2025-11-25") return;
    const ids = urlElicitationIds(data);
    if (ids === undefined) throw local("c.2", "data.elicitations: URL-mode elicitations each with elicitationId, url and message", describeValue(data), undefined);
    for (const id of ids) this.urlElicitations.add(id);
  }

  // ── inbound ───────────────────────────────────────────────────────────────────

  inboundRequest(method: string, params: JsonObject | undefined, ownCaps: number, version: SessionVersion | undefined): Refusal | undefined {
    switch (method) {
      case "elicitation/create":
        if (params?.mode === "url" && typeof params.elicitationId === "string") this.urlElicitations.add(params.elicitationId);
        return undefined;
      case "tools/call": {
        // C-08: without declared task support the task param is ignored, so tool-level rules do not apply.
        if (!hasTasks(version) || (ownCaps & Cap.tasksRequestsToolsCall) === 0) return undefined;
        const name = params?.name;
        const support = typeof name === "string" ? this.toolTaskSupport.get(name) : undefined;
        if (support === undefined) return undefined;
        const withTask = params?.task !== undefined;
        if (withTask && support !== "optional" && support !== "required") return refusal(ErrorCode.MethodNotFound, "TK-08", `no task for tool ${String(name)}`, "a task-augmented call");
        if (!withTask && support === "required") return refusal(ErrorCode.MethodNotFound, "TK-08", `a task for tool ${String(name)}`, "a plain call");
        return undefined;
      }
      case "tasks/cancel": {
        const record = typeof params?.taskId === "string" ? this.tasksHere.get(params.taskId) : undefined;
        if (record !== undefined && TERMINAL.has(record.status)) return refusal(ErrorCode.InvalidParams, "TK-05", "tasks/cancel on a task that has not ended", `task in status ${record.status}`);
        return undefined;
      }
      default:
        return undefined;
    }
  }

  inboundNotification(method: string, params: JsonObject | undefined): Refusal | undefined {
    switch (method) {
      case "notifications/resources/updated": {
        const uri = params?.uri;
        if (this.role === "client" && (typeof uri !== "string" || !this.isSubscribed(uri))) {
          return refusal(undefined, "C-04", "updated only for a URI we subscribed to", describeValue(uri));
        }
        return undefined;
      }
      case "notifications/elicitation/complete": {
        const id = params?.elicitationId;
        if (typeof id !== "string" || !this.urlElicitations.delete(id)) return refusal(undefined, "C-07", "complete only for a URL elicitation we were sent", describeValue(id));
        return undefined;
      }
      case "notifications/tasks/status": {
        const problem = this.taskUpdateProblem(this.tasksThere, params);
        if (problem !== undefined) return problem;
        this.recordTask(this.tasksThere, params as JsonObject);
        return undefined;
      }
      default:
        return undefined;
    }
  }

  /** The peer's result for our request; a Refusal is reported as a violation. */
  inboundResult(method: string, request: JsonObject | undefined, result: JsonObject, token: string | number | undefined): Refusal | undefined {
    switch (method) {
      case "resources/subscribe":
        if (typeof request?.uri === "string") this.subscriptions.add(request.uri);
        return undefined;
      case "resources/unsubscribe":
        if (typeof request?.uri === "string") this.subscriptions.delete(request.uri);
        return undefined;
      case "tools/list":
        this.recordToolTaskSupport(result);
        return undefined;
      case "completion/complete": {
        const values = isJsonObject(result.completion) ? result.completion.values : undefined;
        return Array.isArray(values) && values.length > 100 ? refusal(undefined, "a.1", "at most 100 completion values", `${values.length}`) : undefined;
      }
      case "roots/list": {
        const bad = firstNonFileRoot(result);
        return bad === undefined ? undefined : refusal(undefined, "C-03", "root URIs starting with file://", describeValue(bad));
      }
      case "tasks/result": {
        // TK-04: tasks/result answers only once the task has ended.
        const record = typeof request?.taskId === "string" ? this.tasksThere.get(request.taskId) : undefined;
        if (record !== undefined && !TERMINAL.has(record.status)) record.status = "completed";
        if (!isJsonObject(result._meta) || result._meta[RELATED_TASK_KEY] === undefined) return refusal(undefined, "TK-06", `_meta["${RELATED_TASK_KEY}"] on a tasks/result response`, "absent");
        return undefined;
      }
      case "tasks/get":
      case "tasks/cancel": {
        const problem = this.taskUpdateProblem(this.tasksThere, result);
        if (problem !== undefined) return problem;
        this.recordTask(this.tasksThere, result);
        return undefined;
      }
      default: {
        if (request?.task === undefined) return undefined;
        const task = taskOf(result);
        if (task === undefined || typeof task.taskId !== "string" || typeof task.status !== "string") {
          return refusal(undefined, "TK-03", "CreateTaskResult {task} for a task-augmented request", describeValue(result.task));
        }
        this.tasksThere.set(task.taskId, { status: task.status, token, lastProgress: -Infinity, tokenReleased: false });
        return undefined;
      }
    }
  }

  /** The peer's error for our request. */
  inboundError(error: ErrorObject, version: SessionVersion | undefined): Refusal | undefined {
    if (error.code !== ErrorCode.UrlElicitationRequired || version !== "2025-11-25") return undefined;
    const ids = urlElicitationIds(error.data);
    if (ids === undefined) return refusal(undefined, "c.2", "data.elicitations: URL-mode elicitations each with elicitationId, url and message", describeValue(error.data));
    for (const id of ids) this.urlElicitations.add(id);
    return undefined;
  }

  /** Tokens of tasks that ended since the last call (their progress must stop, P-08). Records stay, so later moves are still checked (TK-02). */
  endedTaskTokens(into: Array<string | number>): void {
    for (const record of this.tasksThere.values()) {
      if (record.tokenReleased || !TERMINAL.has(record.status)) continue;
      record.tokenReleased = true;
      if (record.token !== undefined) into.push(record.token);
    }
  }

  // ── tasks ─────────────────────────────────────────────────────────────────────

  /** A task we created that may still report progress on its creator's token (P-08); throws otherwise. */
  taskForProgress(taskId: string, progress: number): TaskRecord & { token: string | number } {
    const record = this.tasksHere.get(taskId);
    if (record === undefined || TERMINAL.has(record.status)) throw local("P-08", "progress for a task that has not ended", record === undefined ? `unknown task ${describeValue(taskId)}` : `task ${record.status}`, "notifications/progress");
    if (record.token === undefined) throw local("P-01", "a task whose request carried _meta.progressToken", "no token", "notifications/progress");
    if (typeof progress !== "number" || !Number.isFinite(progress) || progress <= record.lastProgress) throw local("P-05", `progress greater than ${record.lastProgress}`, describeValue(progress), "notifications/progress");
    return record as TaskRecord & { token: string | number };
  }

  private taskUpdateProblem(tasks: Map<string, TaskRecord>, task: JsonObject | undefined): Refusal | undefined {
    if (task === undefined || typeof task.taskId !== "string" || typeof task.status !== "string") {
      return refusal(ErrorCode.InvalidParams, "TK-02", "a Task with taskId and status", describeValue(task));
    }
    const known = tasks.get(task.taskId);
    if (known === undefined) return undefined;
    // Reporting the same status again is no move (a terminal task's tasks/get repeats it).
    if (task.status === known.status) return undefined;
    const moves = TASK_MOVES[known.status];
    if (moves === undefined || !moves.includes(task.status)) {
      return refusal(ErrorCode.InvalidParams, "TK-02", `a move allowed from ${known.status}`, `${known.status} → ${task.status}`);
    }
    return undefined;
  }

  private recordTask(tasks: Map<string, TaskRecord>, task: JsonObject): void {
    const id = task.taskId as string;
    const known = tasks.get(id);
    if (known !== undefined) known.status = task.status as string;
    else tasks.set(id, { status: task.status as string, token: undefined, lastProgress: -Infinity, tokenReleased: false });
  }

  private recordToolTaskSupport(result: JsonObject): void {
    if (!Array.isArray(result.tools)) return;
    for (const tool of result.tools) {
      if (!isJsonObject(tool) || typeof tool.name !== "string") continue;
      const execution = isJsonObject(tool.execution) ? tool.execution : undefined;
      this.toolTaskSupport.set(tool.name, typeof execution?.taskSupport === "string" ? execution.taskSupport : "forbidden");
    }
  }
}

function firstNonFileRoot(result: JsonObject): unknown {
  if (!Array.isArray(result.roots)) return undefined;
  for (const root of result.roots) {
    const uri = isJsonObject(root) ? root.uri : undefined;
    if (typeof uri !== "string" || !uri.startsWith("file://")) return uri;
  }
  return undefined;
}
