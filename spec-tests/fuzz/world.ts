// What the fuzzer knows about one episode, shared by the peer and host generators: the
// endpoint's configuration, pools of plausible names (task ids, tokens, URIs, elicitation
// ids, tool names), and a coherent rewrite that points a corpus message at live state
// (a response at one of the engine's requests in flight, a cancel at a request the host
// holds, a status at a known task).
//
// Invariants: every choice is drawn from the episode's Rng, so an episode replays from its
// seed; pools are bounded (they never grow past POOL_MAX).

import type { EngineOptions, JsonObject, Role } from "../../lib/index.js";
import type { Corpus } from "./corpus.js";
import { PROTO_NAMES, setMember, type Json } from "./mutate.js";
import type { Oracle } from "./oracle.js";
import type { Rng } from "./prng.js";

const POOL_MAX = 64;

export const ALL_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const;
export const TASK_STATUSES = ["working", "input_required", "completed", "failed", "cancelled", ...PROTO_NAMES.slice(0, 4), "bogus"];

export class Pool {
  readonly items: Array<string | number> = [];
  constructor(seed: ReadonlyArray<string | number>) {
    this.items.push(...seed);
  }
  add(v: string | number): void {
    if (this.items.includes(v)) return;
    if (this.items.length >= POOL_MAX) this.items.shift();
    this.items.push(v);
  }
  pick(rng: Rng): string | number {
    return rng.pick(this.items);
  }
}

export class World {
  readonly taskIds = new Pool(["t1", "t2", "task-1", "constructor", "__proto__"]);
  readonly tokens = new Pool(["pt1", 1, 0, "tok"]);
  readonly uris = new Pool(["file:///a", "file:///a/b", "file:///", "res://x", "toString"]);
  readonly elicitationIds = new Pool(["e1", "el-1", "hasOwnProperty"]);
  readonly toolNames = new Pool(["echo", "slow", "add", "constructor"]);
  now = 0;
  private peerIdCounter = 0;

  constructor(
    readonly rng: Rng,
    readonly corpus: Corpus,
    readonly role: Role,
    readonly options: EngineOptions<Role>,
    readonly oracle: Oracle,
  ) {}

  get versions(): readonly string[] {
    return this.options.versions ?? ALL_VERSIONS.slice(0, 4);
  }

  /** A version string: usually one the endpoint speaks, sometimes another or garbage. */
  version(): string {
    const r = this.rng.int(10);
    if (r < 7) return this.rng.pick(this.versions);
    if (r < 9) return this.rng.pick(ALL_VERSIONS);
    return this.rng.pick(["1.0", "", "2025-13-01", "constructor"]);
  }

  /** A peer request id: fresh mostly, sometimes one in use (duplicate), or 1 vs "1". */
  peerId(): Json {
    const r = this.rng.int(20);
    if (r < 14) return this.rng.chance(0.7) ? ++this.peerIdCounter : `p${++this.peerIdCounter}`;
    if (r < 17 && this.oracle.hostPending.size > 0) return this.rng.pick([...this.oracle.hostPending.values()]).id;
    if (r < 18) return String(this.peerIdCounter);
    return this.rng.pick([0, -1, "", "constructor", "__proto__", 2 ** 53 - 1]);
  }

  /** The id of one of the engine's requests in flight, mostly; otherwise a stale or odd one. */
  engineRequestId(): Json {
    const live = [...this.oracle.engineRequests.keys()];
    if (live.length > 0 && this.rng.chance(0.85)) return this.rng.pick(live);
    return this.rng.pick([0, 1, 2, 3, 99, "0", "1", -1]);
  }

  methodOf(id: Json): string | undefined {
    return typeof id === "number" ? this.oracle.engineRequests.get(id) : undefined;
  }

  /** A capabilities object for the peer's side, rich enough to open most gates. */
  peerCapabilities(): JsonObject {
    const rng = this.rng;
    const caps: JsonObject = {};
    if (this.role === "client") {
      // the peer is a server
      if (rng.chance(0.8)) caps.tools = rng.chance(0.5) ? { listChanged: true } : {};
      if (rng.chance(0.7)) caps.resources = { subscribe: rng.chance(0.7), listChanged: rng.chance(0.5) };
      if (rng.chance(0.6)) caps.prompts = {};
      if (rng.chance(0.6)) caps.logging = {};
      if (rng.chance(0.5)) caps.completions = {};
      if (rng.chance(0.6)) caps.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
    } else {
      if (rng.chance(0.6)) caps.sampling = rng.chance(0.5) ? { tools: {} } : {};
      if (rng.chance(0.6)) caps.roots = { listChanged: rng.chance(0.5) };
      if (rng.chance(0.6)) caps.elicitation = rng.chance(0.5) ? { form: {}, url: {} } : {};
      if (rng.chance(0.5))
        caps.tasks = { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } };
    }
    if (rng.chance(0.05)) setMember(caps as { [k: string]: Json }, rng.pick(PROTO_NAMES), {});
    return caps;
  }

  /** Points a (copied) message at live state: ids, task ids, tokens, URIs, statuses. Mutates `m`. */
  rewrite(m: Json): Json {
    if (typeof m !== "object" || m === null || Array.isArray(m)) return m;
    const rng = this.rng;
    const msg = m as { [k: string]: Json };
    if (typeof msg.method === "string" && msg.id !== undefined) msg.id = this.peerId();
    else if (msg.method === undefined && (msg.result !== undefined || msg.error !== undefined) && rng.chance(0.9))
      msg.id = this.engineRequestId();
    const params = msg.params ?? (msg.result as Json);
    if (typeof params === "object" && params !== null && !Array.isArray(params)) this.rewriteFields(params as { [k: string]: Json }, 0);
    return msg;
  }

  private rewriteFields(o: { [k: string]: Json }, depth: number): void {
    if (depth > 3) return;
    const rng = this.rng;
    for (const key of Object.keys(o)) {
      const v = o[key] as Json;
      if (typeof v === "object" && v !== null) {
        if (!Array.isArray(v)) this.rewriteFields(v as { [k: string]: Json }, depth + 1);
        continue;
      }
      if (!rng.chance(0.6)) continue;
      switch (key) {
        case "taskId":
          o[key] = this.taskIds.pick(rng);
          break;
        case "status":
          o[key] = rng.chance(0.8) ? rng.pick(TASK_STATUSES.slice(0, 5)) : rng.pick(TASK_STATUSES);
          break;
        case "progressToken":
          o[key] = this.tokens.pick(rng);
          break;
        case "requestId": {
          const held = [...this.oracle.hostPending.values()];
          o[key] = held.length > 0 && rng.chance(0.8) ? rng.pick(held).id : (this.peerId() as Json);
          break;
        }
        case "uri":
          o[key] = this.uris.pick(rng);
          break;
        case "elicitationId":
          o[key] = this.elicitationIds.pick(rng);
          break;
        case "protocolVersion":
        case "io.modelcontextprotocol/protocolVersion":
          o[key] = this.version();
          break;
        case "progress":
          o[key] = rng.range(-1, 20);
          break;
        case "level":
          o[key] = rng.pick(["debug", "info", "warning", "error", "emergency", ...PROTO_NAMES.slice(0, 4)]);
          break;
        case "name":
          if (depth === 0) o[key] = this.toolNames.pick(rng);
          break;
        default:
          break;
      }
    }
  }

  /** Remembers names the engine or host used, so later messages can refer to them. */
  learn(value: unknown, depth = 0): void {
    if (depth > 4 || typeof value !== "object" || value === null) return;
    if (Array.isArray(value)) {
      for (const v of value.slice(0, 20)) this.learn(v, depth + 1);
      return;
    }
    const o = value as Record<string, unknown>;
    if (typeof o.taskId === "string") this.taskIds.add(o.taskId);
    if (typeof o.progressToken === "string" || typeof o.progressToken === "number") this.tokens.add(o.progressToken);
    if (typeof o.uri === "string") this.uris.add(o.uri);
    if (typeof o.elicitationId === "string") this.elicitationIds.add(o.elicitationId);
    for (const v of Object.values(o)) this.learn(v, depth + 1);
  }
}
