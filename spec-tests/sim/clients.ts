// The simulated clients: each picks its next move from the episode's Rng and sends it to a node
// the load balancer picks at random (no stickiness). Session-era clients initialize, call
// tools (fast, with progress, eliciting, sampling, changing the tool list), answer the server's
// requests through any node, open, drop and resume GET streams, drop a call's stream and resume
// it with Last-Event-ID, and DELETE; 2026-07-28 clients call tools, start tasks and poll or
// cancel them anywhere, and open and drop listen streams. What they read goes to the Oracle.
//
// Invariants: a client never waits (every move starts a request and returns; the answer is
// handled when it comes), so the world alone decides when time moves; a reading is tied to the
// node and incarnation that serves it, and a node's crash cuts it.

import { TASKS_EXTENSION } from "../../lib/rules/negotiated-extensions.js";
import type { Rng } from "../fuzz/prng.js";
import type { Oracle, StreamRead } from "./oracle.js";
import {
  modernPost,
  read,
  sessionDelete,
  sessionGet,
  sessionPost,
  splitEventId,
  type Frame,
  type Json,
  type ReadHooks,
  type Reading,
} from "./wire.js";
import type { World } from "./world.js";

export interface ClientHost {
  readonly world: World;
  readonly oracle: Oracle;
  readonly rng: Rng;
  /** Whether the episode's faults may lose what the design does not promise to keep. */
  readonly lossy: boolean;
  /** List changes made so far (flip calls on any node). */
  changes(): number;
  /** List changes made at or after world time `time`. */
  changesSince(time: number): number;
  trace(line: string): void;
}

interface Held {
  readonly node: number;
  readonly reading: Reading;
}

/** Where a sent request's reading lands once its response arrives. */
interface Slot {
  held?: Held;
}

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** What every client shares: its readings (cut when their node crashes) and how it sends. */
abstract class BaseClient {
  protected readonly held = new Set<Held>();
  protected nextId = 1;

  constructor(
    readonly name: string,
    protected readonly host: ClientHost,
  ) {}

  abstract step(): void;
  /** The end of the episode: settle what is outstanding (answer, resume, listen) so liveness can be judged. */
  abstract finish(): void;

  protected pickNode(): number {
    const live = this.host.world.liveNodes();
    return this.host.rng.pick(live).index;
  }

  /** Sends `request` to `nodeIndex`; a node down (or that crashes before answering) is a cut connection. */
  protected send(nodeIndex: number, request: () => Request, hooks: ReadHooks, label: string): Slot {
    const node = this.host.world.nodes[nodeIndex];
    const slot: Slot = {};
    if (node === undefined || !node.alive) {
      hooks.end?.("cut", 0);
      return slot;
    }
    const incarnation = node.incarnation;
    this.host.trace(`${this.name} -> n${nodeIndex}: ${label}`);
    void node.handler.fetch(request()).then((response) => {
      this.host.trace(`${this.name} <- n${nodeIndex}: ${label}: ${response.status}`);
      if (!node.alive || node.incarnation !== incarnation) {
        hooks.end?.("cut", 0);
        return;
      }
      const held: Held = {
        node: nodeIndex,
        reading: read(response, {
          ...hooks,
          end: (how, status) => {
            this.held.delete(held);
            hooks.end?.(how, status);
          },
        }),
      };
      slot.held = held;
      if (held.reading.open) this.held.add(held);
    });
    return slot;
  }

  /** The node crashed: every connection to it is cut. */
  cutNode(index: number): void {
    for (const held of [...this.held]) if (held.node === index) held.reading.cancel();
  }

  protected drop(slot: Slot | undefined): void {
    slot?.held?.reading.cancel();
  }
}

interface Call {
  readonly id: number;
  readonly key: string;
  readonly tool: string;
  slot: Slot | undefined;
  lastEventId: string | undefined;
  open: boolean;
}

interface Ask {
  readonly id: unknown;
  readonly method: string;
  answered: boolean;
}

/** A session-era (2025-11-25) client. */
export class SessionClient extends BaseClient {
  phase: "none" | "initializing" | "operating" | "gone" = "none";
  sessionId: string | undefined;
  private readonly calls = new Map<number, Call>();
  private readonly asks: Ask[] = [];
  private get: Slot | undefined;
  private getOpening = false;
  private lastGetEventId: string | undefined;
  /** The world time initialize was sent at; the list changes made before the session was known operating. */
  initAt = 0;
  changesBeforeOperating = 0;
  readonly listChanged = new Set<string>();
  /** A DELETE answered 2xx: no node may serve the session after. */
  deleted = false;

  step(): void {
    const rng = this.host.rng;
    if (this.phase === "none") return this.initialize();
    if (this.phase !== "operating") return;
    const unanswered = this.asks.filter((a) => !a.answered);
    const dropped = [...this.calls.values()].filter((c) => !c.open && !this.host.oracle.isAnswered(c.key));
    const openCalls = [...this.calls.values()].filter((c) => c.open && c.slot?.held?.reading.sse === true);
    const move = rng.weighted([
      6, // call a tool
      unanswered.length > 0 ? 5 : 0, // answer the server
      this.get === undefined && !this.getOpening ? 3 : 0, // open the GET stream
      this.get !== undefined ? 1.5 : 0, // drop it
      openCalls.length > 0 ? 2 : 0, // drop a call's stream
      dropped.length > 0 ? 3 : 0, // resume one
      0.4, // DELETE
    ]);
    switch (move) {
      case 0:
        return this.call(rng.pick(["echo", "progress", "progress", "ask", "sample", "flip", "flip"]));
      case 1:
        return this.answer(rng.pick(unanswered));
      case 2:
        // A client that saw an event id resumes after it (the events sent while it was away are kept for it).
        return this.openGet(this.lastGetEventId);
      case 3:
        this.drop(this.get);
        this.get = undefined;
        return;
      case 4: {
        const call = rng.pick(openCalls);
        call.open = false;
        this.host.trace(`${this.name} drops the stream of ${call.key}`);
        return this.drop(call.slot);
      }
      case 5:
        return this.resume(rng.pick(dropped));
      default:
        return this.delete();
    }
  }

  finish(): void {
    if (this.phase !== "operating") return;
    for (const ask of this.asks) if (!ask.answered) this.answer(ask);
    for (const call of this.calls.values()) if (!call.open && !this.host.oracle.isAnswered(call.key)) this.resume(call);
    if (this.get === undefined && !this.getOpening) this.openGet(this.lastGetEventId);
  }

  private initialize(): void {
    this.phase = "initializing";
    this.initAt = this.host.world.time.now;
    const body = {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: { elicitation: {}, sampling: {} },
        clientInfo: { name: this.name, version: "1" },
      },
    };
    this.send(
      this.pickNode(),
      () => sessionPost(body, undefined),
      {
        json: (status, _body, header) => {
          const id = header("mcp-session-id");
          if (status !== 200 || id === null) {
            this.phase = "none";
            return;
          }
          this.sessionId = id;
          this.host.oracle.sessionMinted(id);
          this.send(
            this.pickNode(),
            () => sessionPost({ jsonrpc: "2.0", method: "notifications/initialized" }, id),
            {
              json: (s) => {
                if (s === 202) {
                  this.phase = "operating";
                  this.changesBeforeOperating = this.host.changes();
                } else this.gone(`initialized answered ${s}`);
              },
              end: (how, s) => {
                if (how === "cut" && this.phase === "initializing") this.gone(`initialized cut (${s})`);
              },
            },
            "notifications/initialized",
          );
        },
        end: (how) => {
          if (how === "cut" && this.phase === "initializing" && this.sessionId === undefined) this.phase = "none";
        },
      },
      "initialize",
    );
  }

  /** The session is no longer usable (404, or the handshake failed): what is outstanding is excused. */
  private gone(why: string): void {
    if (this.phase === "gone") return;
    this.host.trace(`${this.name} session ${this.sessionId} gone: ${why}`);
    this.phase = "gone";
    for (const call of this.calls.values()) this.host.oracle.excuse(call.key);
    for (const held of [...this.held]) held.reading.cancel();
  }

  private call(tool: string): void {
    const sessionId = this.sessionId as string;
    const id = this.nextId++;
    const key = `${this.name}/${sessionId}/${id}`;
    const call: Call = { id, key, tool, slot: undefined, lastEventId: undefined, open: true };
    this.calls.set(id, call);
    this.host.oracle.request(key, `tools/call ${tool}`);
    const params: Json = { name: tool, arguments: { tag: key } };
    if (tool === "progress") params._meta = { progressToken: key };
    const readState: StreamRead = { session: sessionId, after: undefined, last: undefined };
    call.slot = this.send(
      this.pickNode(),
      () => sessionPost({ jsonrpc: "2.0", id, method: "tools/call", params }, sessionId),
      this.callHooks(call, readState),
      `tools/call ${tool} #${id}`,
    );
  }

  private callHooks(call: Call, readState: StreamRead): ReadHooks {
    const oracle = this.host.oracle;
    return {
      json: (status, body) => {
        if (status === 404) return this.gone(`${call.key} answered 404`);
        if (status >= 200 && status < 300 && isObject(body) && body.id === call.id) return oracle.answered(call.key, body);
        if (status >= 500 && !this.host.lossy)
          oracle.fail("server-error", `${call.key}: expected an answer; got HTTP ${status} ${JSON.stringify(body).slice(0, 120)}`);
        oracle.excuse(call.key);
      },
      frame: (frame) => {
        this.host.trace(`${this.name} ${call.key} frame ${frame.id ?? ""} ${String(frame.message?.method ?? frame.message?.id ?? "")}`);
        oracle.frame(readState, frame);
        if (frame.id !== undefined) call.lastEventId = frame.id;
        this.handle(frame, call);
      },
      end: (how, status) => {
        if (how === "cut") {
          call.open = false;
          if (status === 0 && readState.last === undefined && call.lastEventId === undefined) oracle.excuse(call.key);
          return;
        }
        call.open = false;
        if (oracle.isAnswered(call.key) || this.phase !== "operating" || this.host.lossy || status !== 200) return;
        oracle.fail(
          "stream-ended-early",
          `${call.key}: expected the stream${readState.after ? " resumed" : ""} to carry the answer; it ended without it`,
        );
        oracle.excuse(call.key);
      },
    };
  }

  private handle(frame: Frame, call: Call | undefined): void {
    const message = frame.message;
    if (message === undefined || this.sessionId === undefined) return;
    if (typeof message.method === "string" && message.id !== undefined) {
      this.host.oracle.serverRequest(this.sessionId, message);
      if (!this.asks.some((a) => JSON.stringify(a.id) === JSON.stringify(message.id) && !a.answered))
        this.asks.push({ id: message.id, method: message.method, answered: false });
      return;
    }
    if (message.method === "notifications/tools/list_changed") {
      this.host.trace(`${this.name} hears tools/list_changed ${frame.id ?? ""}`);
      this.listChanged.add(frame.id ?? `anonymous ${this.listChanged.size}`);
      return;
    }
    if (message.method === undefined && call !== undefined && message.id === call.id) this.host.oracle.answered(call.key, message);
  }

  private answer(ask: Ask): void {
    ask.answered = true;
    const result =
      ask.method === "elicitation/create"
        ? { action: "accept", content: { name: "sim" } }
        : { role: "assistant", content: { type: "text", text: "ok" }, model: "sim-model" };
    const sessionId = this.sessionId as string;
    this.send(
      this.pickNode(),
      () => sessionPost({ jsonrpc: "2.0", id: ask.id, result }, sessionId),
      {
        json: (status) => {
          if (status === 404) this.gone("answer answered 404");
        },
      },
      `answer ${ask.method} ${JSON.stringify(ask.id)}`,
    );
  }

  private resume(call: Call): void {
    if (call.lastEventId === undefined) {
      this.host.oracle.excuse(call.key);
      return;
    }
    const after = splitEventId(call.lastEventId);
    call.open = true;
    const sessionId = this.sessionId as string;
    const lastEventId = call.lastEventId;
    const readState: StreamRead = { session: sessionId, after, last: undefined };
    const hooks = this.callHooks(call, readState);
    call.slot = this.send(
      this.pickNode(),
      () => sessionGet(sessionId, lastEventId),
      {
        ...hooks,
        json: (status, body) => {
          if (status === 404 && isObject(body) && this.phase === "operating") {
            // An unknown stream (its events gone) or an unknown session.
            call.open = false;
            if (!this.host.lossy && this.host.world.data.sessions.has(sessionId))
              this.host.oracle.fail("event-lost", `${call.key}: expected its stream to resume after ${lastEventId}; got 404`);
            this.host.oracle.excuse(call.key);
            return;
          }
          hooks.json?.(status, body, () => null);
        },
      },
      `resume ${call.key} after ${lastEventId}`,
    );
  }

  private openGet(lastEventId: string | undefined): void {
    const sessionId = this.sessionId as string;
    this.getOpening = true;
    const readState: StreamRead = {
      session: sessionId,
      after: lastEventId === undefined ? undefined : splitEventId(lastEventId),
      last: undefined,
    };
    const slot: Slot = this.send(
      this.pickNode(),
      () => sessionGet(sessionId, lastEventId),
      {
        json: (status) => {
          this.host.trace(`${this.name} GET answered ${status}`);
          this.getOpening = false;
          if (status === 404 && lastEventId === undefined) this.gone("GET answered 404");
        },
        frame: (frame) => {
          if (this.getOpening) this.get = slot;
          this.getOpening = false;
          this.host.oracle.frame(readState, frame);
          if (frame.id !== undefined) this.lastGetEventId = frame.id;
          this.handle(frame, undefined);
        },
        end: (how, status) => {
          this.host.trace(`${this.name} GET ended (${how}, ${status})`);
          // The server ended it with nothing new: the next GET starts afresh rather than resume it again.
          if (how === "done" && readState.last === undefined && this.lastGetEventId === lastEventId) this.lastGetEventId = undefined;
          if (this.get === slot) this.get = undefined;
          if (this.get === undefined) this.getOpening = false;
        },
      },
      lastEventId === undefined ? "GET" : `GET after ${lastEventId}`,
    );
  }

  private delete(): void {
    const sessionId = this.sessionId as string;
    this.phase = "gone";
    for (const call of this.calls.values()) this.host.oracle.excuse(call.key);
    this.send(
      this.pickNode(),
      () => sessionDelete(sessionId),
      {
        json: (status) => {
          if (status >= 200 && status < 300) this.deleted = true;
        },
      },
      "DELETE",
    );
    for (const held of [...this.held]) held.reading.cancel();
  }
}

/** A 2026-07-28 client: stateless requests, tasks, listen streams. */
export class ModernClient extends BaseClient {
  private readonly tasks: string[] = [];
  private listen: Slot | undefined;
  private listening = false;
  private readonly caps = { extensions: { [TASKS_EXTENSION]: {} } };

  step(): void {
    const rng = this.host.rng;
    const move = rng.weighted([5, 2, this.tasks.length > 0 ? 3 : 0, this.tasks.length > 0 ? 0.7 : 0, this.listening ? 1 : 2]);
    if (move === 0) return this.call(rng.pick(["echo", "progress", "flip"]), false);
    if (move === 1) return this.call("slowTask", true);
    if (move === 2) return this.taskCall("tasks/get", rng.pick(this.tasks));
    if (move === 3) return this.taskCall("tasks/cancel", rng.pick(this.tasks));
    if (this.listening) {
      this.drop(this.listen);
      this.listen = undefined;
      this.listening = false;
      return;
    }
    this.listening = true;
    const readState: StreamRead = { session: `${this.name}/listen${this.nextId}`, after: undefined, last: undefined };
    this.listen = this.send(
      this.pickNode(),
      () => modernPost(this.nextId++, "subscriptions/listen", { notifications: { toolsListChanged: true } }, {}),
      {
        frame: (frame) => this.host.oracle.frame(readState, frame),
        end: () => {
          this.listening = false;
          this.listen = undefined;
        },
      },
      "subscriptions/listen",
    );
  }

  finish(): void {
    for (const task of this.tasks) this.taskCall("tasks/get", task);
  }

  private call(tool: string, task: boolean): void {
    const id = this.nextId++;
    const key = `${this.name}/${id}`;
    this.host.oracle.request(key, `modern tools/call ${tool}`);
    const params: Json = { name: tool, arguments: { tag: key } };
    if (tool === "progress") params._meta = { progressToken: key };
    if (task) params.task = { ttl: 60_000 };
    this.send(
      this.pickNode(),
      () => modernPost(id, "tools/call", params, task ? this.caps : {}),
      this.hooks(key, id),
      `modern ${tool} #${id}`,
    );
  }

  private taskCall(method: string, taskId: string): void {
    const id = this.nextId++;
    const key = `${this.name}/${id}`;
    this.host.oracle.request(key, `${method} ${taskId}`);
    this.send(this.pickNode(), () => modernPost(id, method, { taskId }, this.caps), this.hooks(key, id), `${method} ${taskId}`);
  }

  private hooks(key: string, id: number): ReadHooks {
    const oracle = this.host.oracle;
    const got = (message: Json): void => {
      oracle.answered(key, message);
      const result = message.result;
      if (!isObject(result)) return;
      const task = isObject(result.task) ? result.task : typeof result.taskId === "string" ? result : undefined;
      if (task !== undefined && typeof task.taskId === "string") {
        if (!this.tasks.includes(task.taskId)) this.tasks.push(task.taskId);
        oracle.task(task);
      }
    };
    return {
      json: (status, body) => {
        if (isObject(body) && body.id === id && (body.result !== undefined || body.error !== undefined)) return got(body);
        if (status >= 500 && !this.host.lossy) oracle.fail("server-error", `${key}: expected an answer; got HTTP ${status}`);
        oracle.excuse(key);
      },
      frame: (frame) => {
        const message = frame.message;
        if (message !== undefined && message.method === undefined && message.id === id) got(message);
      },
      end: (how) => {
        if (how === "cut") return oracle.excuse(key);
        if (!oracle.isAnswered(key) && !this.host.lossy) {
          oracle.fail("stream-ended-early", `${key}: expected the stream to carry the answer; it ended without it`);
          oracle.excuse(key);
        }
      },
    };
  }
}
