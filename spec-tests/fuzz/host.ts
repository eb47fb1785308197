// The fuzzer as the engine's host: each call picks one command (every command of the
// engine: request, notify, respond/respondError, acceptInitialize, sendProgress,
// sendTaskProgress, cancel, setDeadline, endSubscriptions, initialize, startModern,
// close), mostly well-aimed at live state (a request the host holds, a task, a token),
// sometimes from the fixtures' own host calls. `answer` is how the host settles a request
// it holds: respond, and when the engine refuses that result, respondError.
//
// Invariants: a Command is plain data, applied the same way to every lane; perform() is
// the only place commands reach the engine.

import type { Engine, JsonObject, Role } from "../../lib/index.js";
import { clone, type Json } from "./mutate.js";
import { modernMeta } from "./peer.js";
import { TASK_STATUSES, type World } from "./world.js";

export interface Command {
  readonly op: string;
  readonly args: readonly unknown[];
}

export function perform(engine: Engine<Role>, c: Command): unknown {
  const a = c.args as never[];
  const e = engine as unknown as Record<string, (...args: unknown[]) => unknown>;
  switch (c.op) {
    case "initialize":
    case "acceptInitialize":
    case "request":
    case "notify":
    case "respond":
    case "respondError":
    case "sendProgress":
    case "sendTaskProgress":
    case "cancel":
    case "setDeadline":
    case "close":
    case "startModern":
    case "endSubscriptions":
      return (e[c.op] as (...args: unknown[]) => unknown).apply(engine, a);
    default:
      throw new Error(`unknown op ${c.op}`);
  }
}

const CLIENT_REQUESTS = [
  "ping",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "prompts/list",
  "prompts/get",
  "logging/setLevel",
  "completion/complete",
  "tasks/get",
  "tasks/result",
  "tasks/cancel",
  "tasks/list",
  "server/discover",
  "subscriptions/listen",
];
const SERVER_REQUESTS = [
  "ping",
  "sampling/createMessage",
  "roots/list",
  "elicitation/create",
  "tasks/get",
  "tasks/result",
  "tasks/cancel",
  "tasks/list",
];
const SERVER_NOTIFICATIONS = [
  "notifications/message",
  "notifications/resources/updated",
  "notifications/tools/list_changed",
  "notifications/resources/list_changed",
  "notifications/prompts/list_changed",
  "notifications/tasks/status",
  "notifications/elicitation/complete",
];
const CLIENT_NOTIFICATIONS = ["notifications/roots/list_changed", "notifications/tasks/status", "notifications/initialized"];

function requestParams(w: World, method: string): JsonObject | undefined {
  const rng = w.rng;
  const task = rng.chance(0.4) ? { task: { ttl: 60000 } } : {};
  switch (method) {
    case "ping":
    case "tools/list":
    case "prompts/list":
    case "resources/list":
    case "roots/list":
    case "tasks/list":
      return rng.chance(0.8) ? undefined : { cursor: "c1" };
    case "tools/call":
      return { name: String(w.toolNames.pick(rng)), arguments: {}, ...task };
    case "resources/read":
    case "resources/subscribe":
    case "resources/unsubscribe":
      return { uri: String(w.uris.pick(rng)) };
    case "prompts/get":
      return { name: "p" };
    case "logging/setLevel":
      return { level: rng.pick(["debug", "info", "error", "emergency", "constructor", "toString"]) };
    case "completion/complete":
      return { ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "" } };
    case "tasks/get":
    case "tasks/result":
    case "tasks/cancel":
      return { taskId: String(w.taskIds.pick(rng)) };
    case "server/discover":
      return {};
    case "subscriptions/listen":
      return {
        notifications: rng.pick([
          { toolsListChanged: true },
          { resourcesListChanged: true, promptsListChanged: true },
          { resourceSubscriptions: ["file:///a"] },
          {},
        ]),
      };
    case "sampling/createMessage":
      return { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 10, ...task };
    case "elicitation/create":
      return rng.chance(0.5)
        ? { mode: "url", elicitationId: String(w.elicitationIds.pick(rng)), url: "https://x/", message: "go" }
        : { message: "m", requestedSchema: { type: "object", properties: {} }, ...task };
    default:
      return undefined;
  }
}

function notificationParams(w: World, method: string): JsonObject | undefined {
  const rng = w.rng;
  switch (method) {
    case "notifications/message":
      return { level: rng.pick(["debug", "info", "error", "emergency", "constructor"]), data: "d" };
    case "notifications/resources/updated":
      return { uri: String(w.uris.pick(rng)) };
    case "notifications/tasks/status":
      return {
        taskId: String(w.taskIds.pick(rng)),
        status: rng.pick(TASK_STATUSES),
        createdAt: "2025-11-25T10:00:00Z",
        lastUpdatedAt: "2025-11-25T10:00:00Z",
        ttl: 1000,
      };
    case "notifications/elicitation/complete":
      return { elicitationId: String(w.elicitationIds.pick(rng)) };
    default:
      return undefined;
  }
}

/** A result the host answers `method` with: from the fixtures when they have one. */
export function hostResult(w: World, method: string, params: unknown): JsonObject {
  const rng = w.rng;
  const p = (typeof params === "object" && params !== null ? params : {}) as Record<string, unknown>;
  if (p.task !== undefined && rng.chance(0.8)) {
    const taskId = `h-${rng.int(1000)}`;
    return {
      task: {
        taskId,
        status: rng.pick(["working", "input_required", "completed"]),
        createdAt: "2025-11-25T10:00:00Z",
        lastUpdatedAt: "2025-11-25T10:00:00Z",
        ttl: 60000,
      },
    };
  }
  if (method === "tasks/get" || method === "tasks/cancel") {
    return {
      taskId: typeof p.taskId === "string" ? p.taskId : "t1",
      status: method === "tasks/cancel" ? "cancelled" : rng.pick(TASK_STATUSES.slice(0, 5)),
      createdAt: "2025-11-25T10:00:00Z",
      lastUpdatedAt: "2025-11-25T10:00:00Z",
      ttl: 1,
    };
  }
  if (method === "tasks/result") return { content: [], _meta: { "io.modelcontextprotocol/related-task": { taskId: String(p.taskId) } } };
  if (rng.chance(0.1) && (method === "tools/call" || method === "prompts/get" || method === "resources/read")) {
    return {
      resultType: "input_required",
      inputRequests: { a: { method: rng.pick(["elicitation/create", "sampling/createMessage", "roots/list"]), params: {} } },
      ...(rng.chance(0.5) ? { requestState: "s" } : {}),
    };
  }
  const known = w.corpus.results.get(method);
  if (known !== undefined && known.length > 0 && rng.chance(0.9)) return clone(rng.pick(known));
  return rng.chance(0.5) ? {} : { content: [{ type: "text", text: "ok" }] };
}

/** The commands that settle one held request: respond, then respondError if refused, then a plain -32603. */
export function answers(w: World, key: string): Command[] {
  const held = w.oracle.hostPending.get(key);
  if (held === undefined) return [];
  const rng = w.rng;
  const fallback: Command = { op: "respondError", args: [held.id, -32603, "internal"] };
  if (held.method === "initialize") {
    return rng.chance(0.8)
      ? [{ op: "acceptInitialize", args: [] }, fallback]
      : [{ op: "respondError", args: [held.id, -32602, "no", { why: 1 }] }, fallback];
  }
  if (rng.chance(0.2)) {
    const code = rng.pick([-32601, -32602, -32002, -32042, 1, -32603]);
    const data =
      code === -32042
        ? { elicitations: [{ mode: "url", elicitationId: `h-${rng.int(100)}`, url: "https://x/", message: "go" }] }
        : undefined;
    return [{ op: "respondError", args: [held.id, code, "err", data] }, fallback];
  }
  return [{ op: "respond", args: [held.id, hostResult(w, held.method, held.params)] }, fallback];
}

/** One host command chosen for the engine's current state. */
export function hostCommand(w: World, engine: Engine<Role>): Command {
  const rng = w.rng;
  const client = w.role === "client";
  const now = w.now;
  switch (rng.weighted([30, 14, 4, 4, 6, 3, 2, 3, 1, 6])) {
    case 0: {
      const method = rng.chance(0.9) ? rng.pick(client ? CLIENT_REQUESTS : SERVER_REQUESTS) : rng.pick(w.corpus.methods);
      let params = requestParams(w, method);
      if (client && engine.era === "modern" && rng.chance(0.1)) params = { ...params, _meta: modernMeta(w) };
      const options: Record<string, unknown> = {};
      if (rng.chance(0.3)) options.deadline = now + rng.range(0, 50);
      if (rng.chance(0.15)) options.totalDeadline = now + rng.range(0, 100);
      if (rng.chance(0.15)) options.resetOnProgressMs = rng.range(1, 30);
      if (rng.chance(0.3)) options.progressToken = rng.chance(0.5) ? true : w.tokens.pick(rng);
      if (rng.chance(0.1) && w.oracle.hostPending.size > 0) options.relatedRequestId = rng.pick([...w.oracle.hostPending.values()]).id;
      return { op: "request", args: [method, params, options] };
    }
    case 1: {
      const method = rng.pick(client ? CLIENT_NOTIFICATIONS : SERVER_NOTIFICATIONS);
      const held = [...w.oracle.hostPending.values()];
      const options = held.length > 0 && rng.chance(0.5) ? { relatedRequestId: rng.pick(held).id } : undefined;
      return { op: "notify", args: [method, notificationParams(w, method), options] };
    }
    case 2: {
      const held = [...w.oracle.hostPending.values()];
      const target = held.find((h) => h.progressToken !== undefined) ?? (held.length > 0 ? rng.pick(held) : undefined);
      return {
        op: "sendProgress",
        args: [target?.id ?? "none", rng.range(0, 20), rng.chance(0.3) ? 20 : undefined, rng.chance(0.3) ? "m" : undefined],
      };
    }
    case 3:
      return { op: "sendTaskProgress", args: [String(w.taskIds.pick(rng)), rng.range(0, 20)] };
    case 4: {
      const live = [...w.oracle.engineRequests.keys()];
      const id = live.length > 0 && rng.chance(0.8) ? rng.pick(live) : rng.range(-1, 5);
      return { op: "cancel", args: [id, rng.chance(0.5) ? "fuzz" : undefined] };
    }
    case 5: {
      const live = [...w.oracle.engineRequests.keys()];
      const id = live.length > 0 ? rng.pick(live) : 0;
      return { op: "setDeadline", args: [id, rng.chance(0.8) ? now + rng.range(0, 40) : undefined] };
    }
    case 6:
      return { op: rng.pick(["endSubscriptions", "acceptInitialize", "startModern", "initialize"]), args: [] };
    case 7: {
      const calls = w.corpus.calls[w.role];
      const c = clone(rng.pick(calls)) as Record<string, Json>;
      const op = String(c.op);
      const params = w.rewrite({ params: c.params ?? null } as Json) as Record<string, Json>;
      switch (op) {
        case "request":
          return { op, args: [c.method, params.params ?? undefined, c.options ?? undefined] };
        case "notify":
          return { op, args: [c.method, params.params ?? undefined, c.options ?? undefined] };
        case "respond":
          return { op, args: [c.id, c.result] };
        case "respondError":
          return { op, args: [c.id, c.code, c.message, c.data] };
        case "sendProgress":
          return { op, args: [c.id, c.progress, c.total, c.message] };
        case "sendTaskProgress":
          return { op, args: [c.taskId, c.progress, c.total, c.message] };
        case "cancel":
          return { op, args: [c.id, c.reason] };
        case "setDeadline":
          return { op, args: [c.id, c.deadline ?? undefined] };
        case "initialize":
          return { op, args: [c.options ?? undefined] };
        default:
          return { op, args: [] };
      }
    }
    case 8:
      return { op: "close", args: [] };
    default: {
      const keys = [...w.oracle.hostPending.keys()];
      if (keys.length === 0) return { op: "endSubscriptions", args: [] };
      return answers(w, rng.pick(keys))[0] as Command;
    }
  }
}
