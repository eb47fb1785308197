// Small wire helpers shared by the Streamable HTTP host's modules: header access, JSON-RPC
// error bodies, byte lengths, SSE headers, and the Host/Origin name parser.

import type { NodeIncomingMessage as IncomingMessage, NodeServerResponse as ServerResponse } from "./node-shapes.js";

export const SSE_HEADERS = { "Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-transform", Connection: "keep-alive" };

export function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The hostname of a Host header or an Origin URL, lower-cased, without port; undefined if malformed. */
export function hostnameOf(value: string, isOrigin: boolean): string | undefined {
  let rest = value.trim().toLowerCase();
  if (isOrigin) {
    const scheme = rest.indexOf("://");
    if (scheme <= 0) return undefined;
    rest = rest.slice(scheme + 3);
    const slash = rest.indexOf("/");
    if (slash >= 0) rest = rest.slice(0, slash);
  }
  if (rest.startsWith("[")) {
    const close = rest.indexOf("]");
    if (close < 0) return undefined;
    const after = rest.slice(close + 1);
    if (after !== "" && !/^:\d+$/.test(after)) return undefined;
    return rest.slice(0, close + 1);
  }
  const colon = rest.indexOf(":");
  const name = colon >= 0 ? rest.slice(0, colon) : rest;
  if (colon >= 0 && !/^\d+$/.test(rest.slice(colon + 1))) return undefined;
  return name === "" ? undefined : name;
}

export function jsonRpcError(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", error: { code, message } });
}


/** How long a connection refused mid-body lingers, half-closed, for the client to read the answer and close. */
const LINGER_MS = 1000;
/** How many more bytes a lingering connection reads (and drops) before it is cut at once. */
const LINGER_BYTES = 4 * 1024 * 1024;

const lingering = new WeakSet<object>();

/**
 * The request's body will not be read: stop reading it, tell the client the connection ends
 * (Connection: close, when the head is not out yet), and once the answer is out, half-close
 * and cut the connection after LINGER_MS or LINGER_BYTES more bytes, whichever comes first,
 * so a body without end (chunked) costs nothing more. Why linger: node:http destroys a
 * Connection: close socket the moment the answer is flushed, and closing a socket with the
 * peer's bytes still unread sends a reset, which makes the peer drop the answer unread; so
 * this socket's destroySoon (which node:http calls then) half-closes instead.
 */
export function closeAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  if (!res.headersSent) res.setHeader("Connection", "close");
  req.pause();
  const socket = req.socket as NodeSocket | undefined;
  if (socket === undefined || lingering.has(socket)) return;
  lingering.add(socket);
  let timer: NodeTimer | undefined;
  let read = 0;
  const destroy = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    if (!socket.destroyed) socket.destroy();
  };
  const linger = (): void => {
    if (timer !== undefined || socket.destroyed) return;
    socket.end();
    timer = setTimeout(destroy, LINGER_MS);
    timer.unref();
  };
  (socket as NodeSocket & { destroySoon?: () => void }).destroySoon = linger;
  socket.on("data", (chunk) => {
    read += chunk.length;
    if (read > LINGER_BYTES) destroy();
  });
  socket.once("close", () => {
    if (timer !== undefined) clearTimeout(timer);
  });
  res.on("finish", linger);
  res.on("close", linger);
}

/**
 * Fairness between connections: each connection's requests start one per event-loop turn
 * (the next after setImmediate, i.e. after pending I/O of every other connection), so a
 * client that pipelines a window of requests in one packet takes a turn like any other.
 * A connection with nothing queued starts its request at once.
 */
export class TurnTaking {
  private readonly queues = new WeakMap<object, Array<() => void>>();

  run(connection: object, task: () => void): void {
    const queue = this.queues.get(connection);
    if (queue !== undefined) {
      queue.push(task);
      return;
    }
    this.queues.set(connection, []);
    task();
    setImmediate(() => this.next(connection));
  }

  private next(connection: object): void {
    const queue = this.queues.get(connection);
    const task = queue?.shift();
    if (task === undefined) {
      this.queues.delete(connection);
      return;
    }
    task();
    setImmediate(() => this.next(connection));
  }
}
