// The fuzzer as the engine's peer: each call makes the bytes of one input — corpus
// messages pointed at live state and sometimes mutated, answers to the engine's requests
// in flight (CreateTaskResults, task statuses, initialize results), cancellations of
// requests the host holds, progress, handshakes, batches, raw fixture text, floods that
// grow every peer-fed table, and byte-level damage.
//
// Invariants: everything is drawn from the world's Rng; the bytes returned are what every
// lane receives.

import type { JsonObject } from "../../lib/index.js";
import { clone, concat, mutateLine, mutateValue, nested, setMember, type Json } from "./mutate.js";
import { TASK_STATUSES, type World } from "./world.js";

const encoder = new TextEncoder();

function line(value: Json): Uint8Array {
  return encoder.encode(JSON.stringify(value) + "\n");
}

const MODERN = "2026-07-28";

export function modernMeta(w: World): JsonObject {
  return {
    "io.modelcontextprotocol/protocolVersion": w.rng.chance(0.85) ? MODERN : w.version(),
    "io.modelcontextprotocol/clientCapabilities": w.rng.chance(0.9)
      ? w.peerCapabilities()
      : (w.rng.pick([null, "x", []]) as Json as JsonObject),
    "io.modelcontextprotocol/clientInfo": { name: "fuzz", version: "1" },
    ...(w.rng.chance(0.3)
      ? { "io.modelcontextprotocol/logLevel": w.rng.pick(["debug", "info", "error", "constructor", "toString", "__proto__", "nope"]) }
      : {}),
  };
}

function withModern(w: World, m: { [k: string]: Json }): void {
  if (typeof m.method !== "string") return;
  const params = (typeof m.params === "object" && m.params !== null && !Array.isArray(m.params) ? m.params : {}) as { [k: string]: Json };
  const meta = (typeof params._meta === "object" && params._meta !== null && !Array.isArray(params._meta) ? params._meta : {}) as {
    [k: string]: Json;
  };
  for (const [k, v] of Object.entries(modernMeta(w))) setMember(meta, k, v as Json);
  params._meta = meta;
  m.params = params;
}

/** A result for the engine's request `method`, from the corpus or made to fit. */
function resultFor(w: World, method: string | undefined, id: Json): Json {
  const rng = w.rng;
  const pending = typeof id === "number" ? w.oracle.engineRequests.get(id) : undefined;
  if (method === "initialize" || (pending === "initialize" && rng.chance(0.9))) {
    const result: { [k: string]: Json } = {
      protocolVersion: w.version(),
      capabilities: w.peerCapabilities() as Json,
      serverInfo: { name: "peer", version: "1" },
    };
    if (rng.chance(0.2)) result.instructions = rng.chance(0.8) ? "be nice" : 5;
    return result;
  }
  if (method === "tools/list" && rng.chance(0.5)) {
    const tools: Json[] = [];
    for (let i = rng.range(0, 4); i > 0; i--) {
      const name = w.toolNames.pick(rng);
      tools.push({
        name,
        inputSchema: { type: "object" },
        execution: { taskSupport: rng.pick(["forbidden", "optional", "required", "constructor", "toString"]) },
      });
    }
    return { tools };
  }
  if (method !== undefined && (rng.chance(0.5) || method.startsWith("tasks/"))) {
    const taskId = w.taskIds.pick(rng);
    const status = rng.chance(0.75) ? rng.pick(TASK_STATUSES.slice(0, 5)) : rng.pick(TASK_STATUSES);
    const task: { [k: string]: Json } = {
      taskId,
      status,
      createdAt: "2025-11-25T10:00:00Z",
      lastUpdatedAt: "2025-11-25T10:00:01Z",
      ttl: 60000,
    };
    if (method === "tasks/get" || method === "tasks/cancel") return task;
    if (method === "tasks/list") return { tasks: [task] };
    if (method === "tasks/result")
      return { content: [], _meta: rng.chance(0.8) ? { "io.modelcontextprotocol/related-task": { taskId } } : {} };
    if (rng.chance(0.5)) return { task };
  }
  const known = method === undefined ? undefined : w.corpus.results.get(method);
  if (known !== undefined && known.length > 0) return w.rewrite(clone(rng.pick(known)) as Json) as Json;
  const any = [...w.corpus.results.values()];
  return clone(rng.pick(rng.pick(any))) as Json;
}

function answerEngineRequest(w: World): Json {
  const rng = w.rng;
  const id = w.engineRequestId();
  const method = w.methodOf(id);
  if (rng.chance(0.2)) {
    const code = rng.pick([-32601, -32602, -32603, -32600, -32002, -32042, -32022, 0, 1, 1.5]);
    const error: { [k: string]: Json } = { code, message: rng.chance(0.95) ? "nope" : 7 };
    if (code === -32042)
      error.data = { elicitations: [{ mode: "url", elicitationId: w.elicitationIds.pick(rng), url: "https://x/", message: "go" }] };
    else if (rng.chance(0.2)) error.data = { supported: ["2025-11-25", MODERN] };
    return { jsonrpc: "2.0", id: rng.chance(0.05) ? null : id, error };
  }
  let result = resultFor(w, method, id);
  if (
    w.role === "client" &&
    w.oracle.silent &&
    typeof result === "object" &&
    result !== null &&
    !Array.isArray(result) &&
    rng.chance(0.8)
  ) {
    (result as { [k: string]: Json }).resultType = rng.chance(0.9) ? "complete" : rng.pick(["input_required", "x", "constructor"]);
  }
  if (rng.chance(0.15)) result = mutateValue(result, rng, w.corpus.strings);
  return { jsonrpc: "2.0", id, result };
}

function cancelHeld(w: World): Json {
  const held = [...w.oracle.hostPending.values()];
  const requestId: Json = held.length > 0 && w.rng.chance(0.85) ? (w.rng.pick(held).id as Json) : w.peerId();
  const params: { [k: string]: Json } = { requestId };
  if (w.rng.chance(0.5)) params.reason = "fuzz";
  return { jsonrpc: "2.0", method: "notifications/cancelled", params };
}

function progress(w: World): Json {
  return {
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: {
      progressToken: w.tokens.pick(w.rng),
      progress: w.rng.range(-2, 30) + (w.rng.chance(0.2) ? 0.5 : 0),
      ...(w.rng.chance(0.3) ? { total: 30 } : {}),
    },
  };
}

function taskStatus(w: World): Json {
  const taskId = w.taskIds.pick(w.rng);
  return {
    jsonrpc: "2.0",
    method: "notifications/tasks/status",
    params: {
      taskId,
      status: w.rng.pick(TASK_STATUSES),
      createdAt: "2025-11-25T10:00:00Z",
      lastUpdatedAt: "2025-11-25T10:00:02Z",
      ttl: 60000,
    },
  };
}

function handshake(w: World): Json[] {
  if (w.role === "client") return [answerEngineRequest(w)];
  const init: Json = {
    jsonrpc: "2.0",
    id: w.peerId(),
    method: "initialize",
    params: { protocolVersion: w.version(), capabilities: w.peerCapabilities() as Json, clientInfo: { name: "fuzz", version: "1" } },
  };
  return w.rng.chance(0.7) ? [init, { jsonrpc: "2.0", method: "notifications/initialized" }] : [init];
}

function corpusMessage(w: World): Json {
  const rng = w.rng;
  let m = clone(rng.pick(w.corpus.peerMessages[w.role])) as Json;
  if (rng.chance(0.8)) m = Array.isArray(m) ? m.map((x) => w.rewrite(x)) : w.rewrite(m);
  if (w.role === "server" && !Array.isArray(m) && typeof m === "object" && m !== null && rng.chance(0.25))
    withModern(w, m as { [k: string]: Json });
  if (rng.chance(0.3)) m = mutateValue(m, rng, w.corpus.strings);
  return m;
}

/** Thousands of messages that each add a distinct entry to one peer-fed table. */
export function flood(w: World, count: number): Uint8Array {
  const rng = w.rng;
  const kind = rng.int(5);
  const parts: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    let m: Json;
    switch (kind) {
      case 0:
        m = {
          jsonrpc: "2.0",
          method: "notifications/tasks/status",
          params: {
            taskId: `flood-${i}`,
            status: "working",
            createdAt: "2025-11-25T10:00:00Z",
            lastUpdatedAt: "2025-11-25T10:00:00Z",
            ttl: 1,
          },
        };
        break;
      case 1:
        m = {
          jsonrpc: "2.0",
          id: `fe-${i}`,
          method: "elicitation/create",
          params: { mode: "url", elicitationId: `flood-${i}`, url: "https://x/", message: "m" },
        };
        break;
      case 2:
        m = { jsonrpc: "2.0", id: `fs-${i}`, method: "resources/subscribe", params: { uri: `file:///flood/${i}` } };
        break;
      case 3:
        m = { jsonrpc: "2.0", id: `fp-${i}`, method: "ping" };
        break;
      default:
        m = { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: `flood-${i}`, progress: i } };
    }
    parts.push(line(m));
  }
  return concat(parts);
}

/** The bytes of one peer input. */
export function peerInput(w: World): Uint8Array {
  const rng = w.rng;
  const values: Json[] = [];
  switch (rng.weighted([30, 22, 8, 5, 6, 6, 5, 4, 3, 2])) {
    case 0:
      values.push(corpusMessage(w));
      break;
    case 1:
      values.push(answerEngineRequest(w));
      break;
    case 2:
      values.push(cancelHeld(w));
      break;
    case 3:
      values.push(progress(w));
      break;
    case 4:
      values.push(taskStatus(w));
      break;
    case 5:
      values.push(...handshake(w));
      break;
    case 6: {
      const batch: Json[] = [];
      for (let i = rng.range(0, 5); i > 0; i--)
        batch.push(rng.chance(0.5) ? corpusMessage(w) : rng.chance(0.5) ? answerEngineRequest(w) : cancelHeld(w));
      if (rng.chance(0.1)) batch.push([]);
      values.push(batch);
      break;
    }
    case 7: {
      const texts = w.corpus.peerText[w.role];
      if (texts.length > 0) return encoder.encode(rng.pick(texts));
      values.push(corpusMessage(w));
      break;
    }
    case 8:
      values.push(
        rng.pick<Json>([
          null,
          1,
          "x",
          [],
          {},
          { jsonrpc: "2.0" },
          { jsonrpc: "2.0", id: null, method: "ping" },
          { jsonrpc: "2.0", id: 1.5, method: "ping" },
          { jsonrpc: "2.0", id: {}, method: "ping" },
          { jsonrpc: "1.0", id: 7, method: "ping" },
          { id: 8 },
          { jsonrpc: "2.0", id: 9, method: "ping", result: {} },
        ]),
      );
      break;
    default: {
      // A large line spread over many chunks: the decoder's buffer grows, then must not stay grown.
      const size = rng.pick([70_000, 300_000]);
      values.push({
        jsonrpc: "2.0",
        id: w.peerId(),
        method: "ping",
        params: { _meta: { pad: "x".repeat(size) }, deep: nested(rng.int(50), 1, rng) },
      });
    }
  }
  const parts = values.map((v) => {
    const bytes = line(v);
    return rng.chance(0.1) ? mutateLine(bytes, rng, w.options.limits?.maxLineBytes ?? 8 * 1024 * 1024) : bytes;
  });
  return concat(parts);
}
