// The message bus between processes that serve one MCP endpoint behind a load balancer: what
// must reach the process holding some in-memory state (a stream, a pending request) when
// the HTTP request that concerns it lands on another. The HTTP handler publishes and
// receives these messages (cluster.ts); a shared implementation (mcp-engine/stores/redis)
// carries them between processes, MemoryBusHub between handlers of one process (tests), and
// the default, a standalone bus, nowhere (one process needs no bus).
//
// Invariants:
// - a node never receives its own messages (it acted on them already);
// - messages are plain JSON and are validated on receipt (parseBusMessage): a malformed
//   one is dropped, never thrown; what arrives is bounded by the transport (maxMessageBytes);
// - the bus is fire-and-forget: everything that must survive a process (sessions, stream
//   events, tasks) lives in the stores; the bus only reaches live processes.

import { isJsonObject, type JsonObject } from "../wire/envelope.js";
import type { ServerChange } from "../peer/server/server-options.js";

/** One message between nodes. */
export type BusMessage =
  /** A client's answer to a server request, or its notifications/cancelled, POSTed to a node that does not hold what it concerns. */
  | { readonly kind: "input"; readonly session: string; readonly message: JsonObject }
  /** CL-06: the session's mailbox (EventStore.mail) holds something: the node holding its GET stream takes it. */
  | { readonly kind: "mail"; readonly session: string }
  /** A change of the server (list, resource, task) for every node's listeners; `id` tags it in the mailboxes (one copy per session). */
  | { readonly kind: "change"; readonly change: ServerChange; readonly id?: string }
  /**
   * CL-07: a client resumed stream `stream` on the sending node as reader `reader`: the node
   * that writes the stream answers with "appended" (and ends its own reader); `claim` false only
   * asks whether the writer is still there.
   */
  | { readonly kind: "follow"; readonly session: string; readonly stream: string; readonly reader: string; readonly claim: boolean }
  /**
   * CL-07: the writer of `stream` kept its events up to `seq`; `done`: no more will come;
   * `reader`: the reader it serves, the `claims`-th to claim the stream (a reader ends on a later claim, not an earlier one's news).
   */
  | {
      readonly kind: "appended";
      readonly session: string;
      readonly stream: string;
      readonly seq: number;
      readonly done: boolean;
      readonly reader: string;
      readonly claims: number;
    }
  /** The session ended (DELETE, or its engine closed): other nodes drop their copies. */
  | { readonly kind: "ended"; readonly session: string }
  /** The session's GET stream is open on the sending node: a GET stream another node held for it ends (one per session). */
  | { readonly kind: "stream"; readonly session: string };

export interface MessageBus {
  /** This node's id: unique among the nodes of the bus, visible ASCII without ":" (it prefixes stream ids). */
  readonly nodeId: string;
  /** True when other processes share the bus: the handler then routes what it does not hold to them. */
  readonly shared: boolean;
  /** Sends to every other node; a failure is reported by rejecting (the handler reports it to onError). */
  publish(message: BusMessage): void | Promise<void>;
  /** Called once by the handler with its receiver; resolves once messages flow. */
  subscribe(listener: (message: BusMessage) => void): void | Promise<void>;
  /** Stops receiving (the handler is closed). */
  close?(): void | Promise<void>;
}

/** The default: one process, nobody to tell. */
export class StandaloneBus implements MessageBus {
  readonly nodeId = "n";
  readonly shared = false;
  publish(): void {}
  subscribe(): void {}
}

/** Handlers of one process joined as if they were processes (tests, and single-process sharding): each node() is one. */
export class MemoryBusHub {
  private readonly nodes = new Map<string, (message: BusMessage) => void>();
  private count = 0;

  /** A new node on this hub. */
  node(): MessageBus {
    const nodeId = `m${(this.count++).toString(36)}`;
    const nodes = this.nodes;
    return {
      nodeId,
      shared: true,
      publish(message: BusMessage): void {
        // A copy through JSON, as a real transport would carry it; delivered after this turn, as a real transport would.
        const text = JSON.stringify(message);
        for (const [id, listener] of nodes) {
          if (id === nodeId) continue;
          void Promise.resolve().then(() => {
            const parsed = parseBusMessage(text);
            if (parsed !== undefined) listener(parsed);
          });
        }
      },
      subscribe(listener: (message: BusMessage) => void): void {
        nodes.set(nodeId, listener);
      },
      close(): void {
        nodes.delete(nodeId);
      },
    };
  }
}

const CHANGE_KINDS: ReadonlySet<string> = new Set(["listChanged", "resourceUpdated", "task", "taskInput"]);

/** A bus message from its JSON text; undefined for anything malformed (never throws). */
export function parseBusMessage(text: string): BusMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isJsonObject(value)) return undefined;
  switch (value.kind) {
    case "input":
      return typeof value.session === "string" && isJsonObject(value.message)
        ? { kind: value.kind, session: value.session, message: value.message }
        : undefined;
    case "ended":
    case "stream":
    case "mail":
      return typeof value.session === "string" ? { kind: value.kind, session: value.session } : undefined;
    case "follow":
      return typeof value.session === "string" &&
        typeof value.stream === "string" &&
        typeof value.reader === "string" &&
        typeof value.claim === "boolean"
        ? { kind: "follow", session: value.session, stream: value.stream, reader: value.reader, claim: value.claim }
        : undefined;
    case "appended":
      return typeof value.session === "string" &&
        typeof value.stream === "string" &&
        typeof value.reader === "string" &&
        typeof value.done === "boolean" &&
        Number.isSafeInteger(value.seq) &&
        Number.isSafeInteger(value.claims)
        ? {
            kind: "appended",
            session: value.session,
            stream: value.stream,
            seq: value.seq as number,
            done: value.done,
            reader: value.reader,
            claims: value.claims as number,
          }
        : undefined;
    case "change": {
      const parsed = parseChange(value.change);
      if (parsed === undefined) return undefined;
      return typeof value.id === "string" ? { kind: "change", change: parsed, id: value.id } : { kind: "change", change: parsed };
    }
    default:
      return undefined;
  }
}

function parseChange(change: unknown): ServerChange | undefined {
  if (!isJsonObject(change) || typeof change.kind !== "string" || !CHANGE_KINDS.has(change.kind)) return undefined;
  if (change.kind === "listChanged") return typeof change.method === "string" ? { kind: "listChanged", method: change.method } : undefined;
  if (change.kind === "resourceUpdated") return typeof change.uri === "string" ? { kind: "resourceUpdated", uri: change.uri } : undefined;
  if (change.kind === "taskInput")
    return typeof change.taskId === "string" && isJsonObject(change.inputResponses)
      ? { kind: "taskInput", taskId: change.taskId, inputResponses: change.inputResponses }
      : undefined;
  return isJsonObject(change.task) ? { kind: "task", task: change.task } : undefined;
}
