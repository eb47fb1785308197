// Feature rules that depend on what happened earlier in the session (RULES.md C-04, C-07, C-08,
// O-02, O-03, MOD-03, K-03, K-04, TK-02, TK-03, TK-04, TK-05, TK-06, TK-08, E-01, CM-01, RT-01,
// P-01, P-05, P-08, LIM-04, LIM-05, LIM-06, LIM-07): logging level, resource subscriptions, URL
// elicitations, completion caps, roots, `_meta` key rules, tool-level task support and the task
// status machine.
//
// The engine calls one hook per message and direction, after gate() and params validation:
// - outbound hooks throw LocalProtocolError and change no state when they refuse;
// - inbound hooks return a Refusal (a reply code for requests, a violation otherwise) and
//   record state only for messages they accept.
// State here is per session and bounded by what the peers create (subscriptions, tasks).

import { Cap } from "./capabilities.js";
import { describeValue, ErrorCode, LocalProtocolError } from "../wire/errors.js";
import { isJsonObject, type ErrorObject, type JsonObject } from "../wire/envelope.js";
import type { Role } from "./methods.js";
import { progressProblem } from "./progress.js";
import { VERSION_PROFILES, type SessionVersion } from "./versions.js";
import { TASK_MOVES, TASK_STATUSES, TaskTable, TERMINAL, timeOf, type TaskRecord } from "./task-table.js";

export type { TaskRecord, TaskStatus } from "./task-table.js";

/** O-02: RFC 5424 severities, low to high. A Map, so that a peer's "toString" or "__proto__" is no level (ENG-06). */
export const LOGGING_SEVERITY: ReadonlyMap<string, number> = new Map([
  ["debug", 0],
  ["info", 1],
  ["notice", 2],
  ["warning", 3],
  ["error", 4],
  ["critical", 5],
  ["alert", 6],
  ["emergency", 7],
]);

/** The severity of a level name, or undefined for anything that is not one of the eight names. */
export function severityOf(level: unknown): number | undefined {
  return typeof level === "string" ? LOGGING_SEVERITY.get(level) : undefined;
}

/**
 * O-03 and MOD-03, decided here once: whether a log message of `level` goes to a client that asked
 * for `threshold` (a level name, or undefined when it asked for none). Asked for: that level and
 * more severe ones. Not asked for: in 2026-07-28 nothing (servers MUST NOT log to a request that
 * did not carry a logLevel); in the session era everything (the server MAY choose, and clients
 * that never call logging/setLevel still expect to see logs, as with every other SDK).
 */
export function logAllowed(level: unknown, threshold: string | undefined, era: "session" | "modern"): boolean {
  const severity = severityOf(level);
  if (severity === undefined) return false;
  if (threshold === undefined) return era === "session";
  const floor = severityOf(threshold);
  return floor !== undefined && severity >= floor;
}

/** How many entries each peer-fed table of a session may hold (see FeatureLimits). */
export interface FeatureLimits {
  /** Task records per direction. Ended tasks are forgotten first; a new task beyond it with none ended is refused. */
  maxTasks: number;
  /** URL-mode elicitations awaiting notifications/elicitation/complete. */
  maxUrlElicitations: number;
  /** Tool names whose task support is remembered from tools/list results. */
  maxToolNames: number;
  /** Resource subscriptions of the client (server side) or of ours (client side). */
  maxSubscriptions: number;
}

export const DEFAULT_FEATURE_LIMITS: Readonly<FeatureLimits> = {
  maxTasks: 1024,
  maxUrlElicitations: 256,
  maxToolNames: 4096,
  maxSubscriptions: 1024,
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
  const rules = VERSION_PROFILES[version].metaKeyRules;
  if (!isJsonObject(meta) || rules === "none") return undefined;
  for (const key of Object.keys(meta)) {
    const match = META_KEY.exec(key);
    if (match === null) return refusal(undefined, "K-03", "a _meta key of the form [prefix/]name", JSON.stringify(key));
    const prefix = match[1];
    if (prefix === undefined || KNOWN_RESERVED_KEYS.has(key)) continue;
    const labels = prefix.split(".");
    const reserved =
      rules === "second-label"
        ? labels.length >= 2 && (labels[1] === "modelcontextprotocol" || labels[1] === "mcp")
        : labels.some((label, i) => i < labels.length - 1 && (label === "modelcontextprotocol" || label === "mcp"));
    if (reserved) return refusal(undefined, "K-04", "a _meta prefix not reserved by MCP", JSON.stringify(key));
  }
  return undefined;
}

/** Tasks in the core protocol (the profile says which versions, MT-01). */
function hasTasks(version: SessionVersion | undefined): boolean {
  return version !== undefined && VERSION_PROFILES[version].coreTasks;
}

function urlElicitationIds(data: unknown): string[] | undefined {
  if (!isJsonObject(data) || !Array.isArray(data.elicitations) || data.elicitations.length === 0) return undefined;
  const ids: string[] = [];
  for (const e of data.elicitations) {
    if (
      !isJsonObject(e) ||
      e.mode !== "url" ||
      typeof e.elicitationId !== "string" ||
      typeof e.url !== "string" ||
      typeof e.message !== "string"
    )
      return undefined;
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

/**
 * Adds `key` to a bounded set or map. Tables we feed ourselves forget their oldest entry when
 * full (`evict`); tables the peer feeds refuse the new entry instead (false), so that a peer can
 * neither grow them nor push out what we rely on.
 */
function boundedAdd<K>(table: Set<K> | Map<K, unknown>, key: K, max: number, evict: boolean): boolean {
  if (table.has(key) || table.size < max) return true;
  if (!evict) return false;
  table.delete(table.keys().next().value as K);
  return true;
}

function full(rule: string, what: string, max: number, got: string): Refusal {
  return refusal(ErrorCode.InternalError, rule, `at most ${max} ${what}`, got);
}

export class Features {
  private logLevel: number | undefined;
  private readonly limits: FeatureLimits;
  private readonly subscriptions = new Set<string>();
  private readonly urlElicitations = new Set<string>();
  private readonly toolTaskSupport = new Map<string, string>();
  /** Tasks this side created as the receiver. */
  private readonly tasksHere: TaskTable;
  /** Tasks the peer created for our requests. */
  private readonly tasksThere: TaskTable;
  /**
   * The params of our tasks/get and tasks/cancel requests sent while their task had not ended
   * (by identity, as the engine hands the same object back with the answer): over Streamable
   * HTTP such an answer travels on its own stream and may arrive after a status notification
   * that ended the task, so its older status is stale, not a move (TK-02).
   */
  private readonly askedBeforeEnd = new WeakSet<JsonObject>();

  constructor(
    private readonly role: Role,
    limits: Partial<FeatureLimits> = {},
  ) {
    this.limits = { ...DEFAULT_FEATURE_LIMITS, ...limits };
    this.tasksHere = new TaskTable(this.limits.maxTasks, true);
    this.tasksThere = new TaskTable(this.limits.maxTasks, false);
  }

  /** The logging level the client set (server side), as a name. */
  get loggingLevel(): string | undefined {
    if (this.logLevel === undefined) return undefined;
    for (const [name, severity] of LOGGING_SEVERITY) if (severity === this.logLevel) return name;
    return undefined;
  }

  /** Sizes of the peer-fed tables, for hosts and tests that watch memory. */
  get tableSizes(): { tasksHere: number; tasksThere: number; urlElicitations: number; toolNames: number; subscriptions: number } {
    return {
      tasksHere: this.tasksHere.size,
      tasksThere: this.tasksThere.size,
      urlElicitations: this.urlElicitations.size,
      toolNames: this.toolTaskSupport.size,
      subscriptions: this.subscriptions.size,
    };
  }

  /** Whether the client subscribed to `uri` (or a resource containing it). */
  isSubscribed(uri: string): boolean {
    return uriCovered(this.subscriptions, uri);
  }

  /** What a session needs to carry on elsewhere: the level the client set and its subscriptions. */
  exportState(): { loggingLevel: string | undefined; subscriptions: string[] } {
    return { loggingLevel: this.loggingLevel, subscriptions: [...this.subscriptions] };
  }

  /** `replace`: the subscriptions become the state's (a newer snapshot of the session), not a union. */
  importState(state: { loggingLevel: string | undefined; subscriptions: readonly string[] }, replace = false): void {
    this.logLevel = severityOf(state.loggingLevel);
    if (replace) this.subscriptions.clear();
    for (const uri of state.subscriptions)
      if (boundedAdd(this.subscriptions, uri, this.limits.maxSubscriptions, false)) this.subscriptions.add(uri);
  }

  // ── outbound ──────────────────────────────────────────────

  checkMeta(params: JsonObject | undefined, version: SessionVersion | undefined, method: string | undefined): void {
    if (params === undefined || version === undefined || params._meta === undefined) return;
    const problem = metaKeyProblem(params._meta, version);
    if (problem !== undefined) throw local(problem.rule, problem.expected, problem.got, method);
  }

  /** Our request; throws if a feature rule forbids it. Records what later messages depend on. */
  outboundRequest(method: string, params: JsonObject | undefined, peerCaps: number, version: SessionVersion | undefined): void {
    this.checkMeta(params, version, method);
    if (
      method === "tools/call" &&
      hasTasks(version) &&
      (peerCaps & Cap.tasksRequestsToolsCall) !== 0 &&
      params !== undefined &&
      typeof params.name === "string"
    ) {
      const support = this.toolTaskSupport.get(params.name);
      if (support !== undefined) {
        const withTask = params.task !== undefined;
        if (withTask && support !== "optional" && support !== "required")
          throw local("TK-08", `no task for tool ${params.name} (taskSupport ${support})`, "a task-augmented call", method);
        if (!withTask && support === "required")
          throw local("TK-08", `a task for tool ${params.name} (taskSupport required)`, "a plain call", method);
      }
    }
    if (
      method === "resources/subscribe" &&
      typeof params?.uri === "string" &&
      !boundedAdd(this.subscriptions, params.uri, this.limits.maxSubscriptions, false)
    ) {
      throw local("LIM-07", `at most ${this.limits.maxSubscriptions} resource subscriptions`, "one more", method);
    }
    if (method === "elicitation/create" && params?.mode === "url" && typeof params.elicitationId === "string")
      this.addUrlElicitation(params.elicitationId, true);
    if ((method === "tasks/get" || method === "tasks/cancel") && params !== undefined && typeof params.taskId === "string") {
      const known = this.tasksThere.get(params.taskId);
      if (known === undefined || !TERMINAL.has(known.status)) this.askedBeforeEnd.add(params);
    }
  }

  /** Our notification; returns false when it must be dropped rather than sent (logging below the level). */
  outboundNotification(method: string, params: JsonObject | undefined, version: SessionVersion | undefined): boolean {
    this.checkMeta(params, version, method);
    switch (method) {
      case "notifications/message": {
        if (severityOf(params?.level) === undefined)
          throw local("O-02", "a logging level (debug … emergency)", describeValue(params?.level), method);
        return logAllowed(params?.level, this.loggingLevel, "session");
      }
      case "notifications/resources/updated": {
        const uri = params?.uri;
        if (typeof uri !== "string" || !this.isSubscribed(uri))
          throw local("C-04", "updated only for a URI the client subscribed to", describeValue(uri), method);
        return true;
      }
      case "notifications/elicitation/complete": {
        const id = params?.elicitationId;
        if (typeof id !== "string" || !this.urlElicitations.delete(id))
          throw local("C-07", "complete only for a URL elicitation sent to this client", describeValue(id), method);
        return true;
      }
      case "notifications/tasks/status": {
        const problem = this.taskUpdateProblem(this.tasksHere, params);
        if (problem !== undefined) throw local(problem.rule, problem.expected, problem.got, method);
        this.tasksHere.put((params as JsonObject).taskId as string, (params as JsonObject).status as string, undefined);
        return true;
      }
      default:
        return true;
    }
  }

  /** Our result for a peer request; throws if a feature rule forbids it, otherwise records its effect. */
  outboundResult(
    method: string,
    request: JsonObject | undefined,
    result: JsonObject,
    version: SessionVersion | undefined,
    token: string | number | undefined,
  ): void {
    this.checkMeta(result, version, method);
    switch (method) {
      case "completion/complete": {
        const values = isJsonObject(result.completion) ? result.completion.values : undefined;
        if (Array.isArray(values) && values.length > 100) throw local("CM-01", "at most 100 completion values", `${values.length}`, method);
        return;
      }
      case "roots/list": {
        const bad = firstNonFileRoot(result);
        if (bad !== undefined) throw local("RT-01", "root URIs starting with file://", describeValue(bad), method);
        return;
      }
      case "logging/setLevel":
        this.logLevel = severityOf(request?.level);
        return;
      case "resources/subscribe":
        // The limit was checked when the request arrived (inboundRequest).
        if (typeof request?.uri === "string") this.subscriptions.add(request.uri);
        return;
      case "resources/unsubscribe":
        if (typeof request?.uri === "string") this.subscriptions.delete(request.uri);
        return;
      case "tools/list":
        this.recordToolTaskSupport(request, result, true);
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
        if (method === "tasks/cancel" && result.status !== "cancelled")
          throw local("TK-05", 'status "cancelled" after tasks/cancel', describeValue(result.status), method);
        this.tasksHere.put(result.taskId as string, result.status as string, undefined);
        return;
      }
      default:
        if (request?.task !== undefined) {
          const task = taskOf(result);
          if (task !== undefined && typeof task.taskId === "string") this.tasksHere.put(task.taskId, String(task.status), token);
        }
    }
  }

  /** Our error reply; -32042 must carry valid URL elicitations (2025-11-25). */
  outboundError(code: number, data: unknown, version: SessionVersion | undefined): void {
    if (code !== ErrorCode.UrlElicitationRequired || version === undefined || !VERSION_PROFILES[version].urlElicitationError) return;
    const ids = urlElicitationIds(data);
    if (ids === undefined)
      throw local(
        "E-01",
        "data.elicitations: URL-mode elicitations each with elicitationId, url and message",
        describeValue(data),
        undefined,
      );
    for (const id of ids) this.addUrlElicitation(id, true);
  }

  // ── inbound ──────────────────────────────────────────────

  /** A peer request that passed gating and params; called only once the engine has room for it, so what it records belongs to an accepted request. */
  inboundRequest(
    method: string,
    params: JsonObject | undefined,
    ownCaps: number,
    version: SessionVersion | undefined,
  ): Refusal | undefined {
    switch (method) {
      case "elicitation/create":
        if (params?.mode === "url" && typeof params.elicitationId === "string" && !this.addUrlElicitation(params.elicitationId, false)) {
          return full("LIM-05", "URL elicitations awaiting completion", this.limits.maxUrlElicitations, "one more");
        }
        return undefined;
      case "resources/subscribe":
        if (typeof params?.uri === "string" && !boundedAdd(this.subscriptions, params.uri, this.limits.maxSubscriptions, false)) {
          return full("LIM-07", "resource subscriptions", this.limits.maxSubscriptions, "one more");
        }
        return undefined;
      case "tools/call": {
        // C-08: without declared task support the task param is ignored, so tool-level rules do not apply.
        if (!hasTasks(version) || (ownCaps & Cap.tasksRequestsToolsCall) === 0) return undefined;
        const name = params?.name;
        const support = typeof name === "string" ? this.toolTaskSupport.get(name) : undefined;
        if (support === undefined) return undefined;
        const withTask = params?.task !== undefined;
        if (withTask && support !== "optional" && support !== "required")
          return refusal(ErrorCode.MethodNotFound, "TK-08", `no task for tool ${String(name)}`, "a task-augmented call");
        if (!withTask && support === "required")
          return refusal(ErrorCode.MethodNotFound, "TK-08", `a task for tool ${String(name)}`, "a plain call");
        return undefined;
      }
      case "tasks/cancel": {
        const record = typeof params?.taskId === "string" ? this.tasksHere.get(params.taskId) : undefined;
        if (record !== undefined && TERMINAL.has(record.status))
          return refusal(ErrorCode.InvalidParams, "TK-05", "tasks/cancel on a task that has not ended", `task in status ${record.status}`);
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
        if (typeof id !== "string" || !this.urlElicitations.delete(id))
          return refusal(undefined, "C-07", "complete only for a URL elicitation we were sent", describeValue(id));
        return undefined;
      }
      case "notifications/tasks/status":
        // A push travels on another stream than the answers over Streamable HTTP: one that
        // reports a status no later than the end we already know of is stale, not a move.
        return this.isReportedBeforeEnd(params) ? undefined : this.inboundTaskUpdate(params);
      default:
        return undefined;
    }
  }

  /** The peer's result for our request; a Refusal is reported as a violation. */
  inboundResult(
    method: string,
    request: JsonObject | undefined,
    result: JsonObject,
    token: string | number | undefined,
  ): Refusal | undefined {
    switch (method) {
      case "resources/subscribe":
        // The limit was checked when we sent the request (outboundRequest).
        if (typeof request?.uri === "string") this.subscriptions.add(request.uri);
        return undefined;
      case "resources/unsubscribe":
        if (typeof request?.uri === "string") this.subscriptions.delete(request.uri);
        return undefined;
      case "tools/list":
        return this.recordToolTaskSupport(request, result, false);
      case "completion/complete": {
        const values = isJsonObject(result.completion) ? result.completion.values : undefined;
        return Array.isArray(values) && values.length > 100
          ? refusal(undefined, "CM-01", "at most 100 completion values", `${values.length}`)
          : undefined;
      }
      case "roots/list": {
        const bad = firstNonFileRoot(result);
        return bad === undefined ? undefined : refusal(undefined, "RT-01", "root URIs starting with file://", describeValue(bad));
      }
      case "tasks/result": {
        // TK-04: tasks/result answers only once the task has ended.
        const taskId = request?.taskId;
        const record = typeof taskId === "string" ? this.tasksThere.get(taskId) : undefined;
        if (record !== undefined && !TERMINAL.has(record.status)) this.tasksThere.put(taskId as string, "completed", undefined);
        if (!isJsonObject(result._meta) || result._meta[RELATED_TASK_KEY] === undefined)
          return refusal(undefined, "TK-06", `_meta["${RELATED_TASK_KEY}"] on a tasks/result response`, "absent");
        return undefined;
      }
      case "tasks/get":
      case "tasks/cancel": {
        const known = typeof result.taskId === "string" ? this.tasksThere.get(result.taskId) : undefined;
        const stale =
          request !== undefined &&
          this.askedBeforeEnd.has(request) &&
          known !== undefined &&
          TERMINAL.has(known.status) &&
          typeof result.status === "string" &&
          TASK_STATUSES.has(result.status) &&
          !TERMINAL.has(result.status);
        // Asked before the end we since learned of: the answer tells the status it had then; the record keeps the end.
        return stale ? undefined : this.inboundTaskUpdate(result);
      }
      default: {
        if (request?.task === undefined) return undefined;
        const task = taskOf(result);
        if (task === undefined || typeof task.taskId !== "string" || typeof task.status !== "string" || !TASK_STATUSES.has(task.status)) {
          return refusal(
            undefined,
            "TK-03",
            "CreateTaskResult {task} with a taskId and a task status for a task-augmented request",
            describeValue(result.task),
          );
        }
        if (!this.tasksThere.put(task.taskId, task.status, token))
          return full("LIM-04", "tasks that have not ended", this.limits.maxTasks, `task ${describeValue(task.taskId)}`);
        return undefined;
      }
    }
  }

  /** The peer's error for our request. */
  inboundError(error: ErrorObject, version: SessionVersion | undefined): Refusal | undefined {
    if (error.code !== ErrorCode.UrlElicitationRequired || version === undefined || !VERSION_PROFILES[version].urlElicitationError)
      return undefined;
    const ids = urlElicitationIds(error.data);
    if (ids === undefined)
      return refusal(
        undefined,
        "E-01",
        "data.elicitations: URL-mode elicitations each with elicitationId, url and message",
        describeValue(error.data),
      );
    for (const id of ids)
      if (!this.addUrlElicitation(id, false))
        return full("LIM-05", "URL elicitations awaiting completion", this.limits.maxUrlElicitations, `elicitation ${describeValue(id)}`);
    return undefined;
  }

  /** Tokens of tasks that ended since the last call (their progress must stop, P-08). Records stay, so later moves are still checked (TK-02). */
  endedTaskTokens(into: Array<string | number>): void {
    this.tasksThere.takeEndedTokens(into);
  }

  // ── tasks ───────────────────────────────────────────────

  /** A task we created that may still report progress on its creator's token (P-08); throws otherwise. */
  taskForProgress(taskId: string, progress: number): TaskRecord & { token: string | number } {
    const record = this.tasksHere.get(taskId);
    if (record === undefined || TERMINAL.has(record.status))
      throw local(
        "P-08",
        "progress for a task that has not ended",
        record === undefined ? `unknown task ${describeValue(taskId)}` : `task ${record.status}`,
        "notifications/progress",
      );
    if (record.token === undefined)
      throw local("P-01", "a task whose request carried _meta.progressToken", "no token", "notifications/progress");
    const problem = progressProblem(record.lastProgress, progress);
    if (problem !== undefined) throw local("P-05", problem[0], problem[1], "notifications/progress");
    return record as TaskRecord & { token: string | number };
  }

  /**
   * TK-02: a status before the end the peer reported, told after it: the task has ended, the
   * status is one it had while running, and its lastUpdatedAt is not later than the end's. When
   * either time is missing or unreadable the order cannot be told, and it is taken as stale.
   */
  private isReportedBeforeEnd(task: JsonObject | undefined): boolean {
    if (task === undefined || typeof task.taskId !== "string" || typeof task.status !== "string") return false;
    if (!TASK_STATUSES.has(task.status) || TERMINAL.has(task.status)) return false;
    const known = this.tasksThere.get(task.taskId);
    if (known === undefined || !TERMINAL.has(known.status)) return false;
    const at = timeOf(task.lastUpdatedAt);
    return known.endedAt === undefined || at === undefined || at <= known.endedAt;
  }

  /** A task status the peer reported (notification, tasks/get or tasks/cancel result): checked, then recorded. */
  private inboundTaskUpdate(task: JsonObject | undefined): Refusal | undefined {
    const problem = this.taskUpdateProblem(this.tasksThere, task);
    if (problem !== undefined) return problem;
    const { taskId, status } = task as { taskId: string; status: string };
    return this.tasksThere.put(taskId, status, undefined, timeOf((task as JsonObject).lastUpdatedAt))
      ? undefined
      : full("LIM-04", "tasks that have not ended", this.limits.maxTasks, `task ${describeValue(taskId)}`);
  }

  private taskUpdateProblem(tasks: TaskTable, task: JsonObject | undefined): Refusal | undefined {
    if (task === undefined || typeof task.taskId !== "string" || typeof task.status !== "string" || !TASK_STATUSES.has(task.status)) {
      return refusal(
        ErrorCode.InvalidParams,
        "TK-02",
        "a Task with taskId and a status (working, input_required, completed, failed, cancelled)",
        describeValue(task),
      );
    }
    const known = tasks.get(task.taskId);
    if (known === undefined) return undefined;
    // Reporting the same status again is no move (a terminal task's tasks/get repeats it).
    if (task.status === known.status) return undefined;
    const moves = TASK_MOVES.get(known.status);
    if (moves === undefined || !moves.includes(task.status)) {
      return refusal(ErrorCode.InvalidParams, "TK-02", `a move allowed from ${known.status}`, `${known.status} → ${task.status}`);
    }
    return undefined;
  }

  /** Records a URL elicitation awaiting completion; false when a peer-fed table is full. */
  private addUrlElicitation(id: string, ours: boolean): boolean {
    if (!boundedAdd(this.urlElicitations, id, this.limits.maxUrlElicitations, ours)) return false;
    this.urlElicitations.add(id);
    return true;
  }

  /** Task support per tool from a tools/list result; a listing from its first page replaces what was known. */
  private recordToolTaskSupport(request: JsonObject | undefined, result: JsonObject, ours: boolean): Refusal | undefined {
    if (!Array.isArray(result.tools)) return undefined;
    if (request?.cursor === undefined) this.toolTaskSupport.clear();
    for (const tool of result.tools) {
      if (!isJsonObject(tool) || typeof tool.name !== "string") continue;
      if (!boundedAdd(this.toolTaskSupport, tool.name, this.limits.maxToolNames, ours))
        return full("LIM-06", "tool names", this.limits.maxToolNames, `tool ${describeValue(tool.name)}`);
      const execution = isJsonObject(tool.execution) ? tool.execution : undefined;
      this.toolTaskSupport.set(tool.name, typeof execution?.taskSupport === "string" ? execution.taskSupport : "forbidden");
    }
    return undefined;
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
