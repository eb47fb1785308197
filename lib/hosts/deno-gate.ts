// The connection limits Deno.serve does not have (LIM-11), kept by a gate in front of it:
// Deno.serve exposes no connection count, no header or idle timeout and no way to close a
// connection (it reads an unread request body to its end, however long), so connections are
// accepted here with Deno.listen, counted, timed and relayed byte for byte to a Deno.serve
// bound to 127.0.0.1 on a port of its own. The handler behind it learns which gated connection
// a request came through from the request's remote port (the gate's end of the relay), and
// tells it when the answer closes the connection.
//
// Invariants:
// - at most maxConnections gated connections; one more is closed on accept, unread;
// - a connection with no request in flight is closed when a request head takes longer than
//   headersTimeoutMs from its first byte (408 when part of a head came), or when it stays
//   silent keepAliveTimeoutMs after an answer (headersTimeoutMs on a fresh connection);
// - after an answer that closes the connection, nothing more is read from the client: the
//   answer is relayed, the client's side ended, and the socket closed lingerMs later;
// - a request reaching the inner server not through the gate is refused and its connection cut.

import { webTimers } from "./web/runtime.js";

/** The parts of a Deno TCP connection the gate uses. */
export interface DenoConn {
  readonly localAddr: { readonly port?: number };
  read(buffer: Uint8Array): Promise<number | null>;
  write(bytes: Uint8Array): Promise<number>;
  closeWrite(): Promise<void>;
  close(): void;
  setNoDelay?(noDelay?: boolean): void;
}

export interface DenoListener {
  readonly addr: { readonly port?: number };
  accept(): Promise<DenoConn>;
  close(): void;
}

/** Deno.listen and Deno.connect, as far as the gate calls them. */
export interface DenoNet {
  listen(options: { hostname: string; port: number; transport: "tcp" }): DenoListener;
  connect(options: { hostname: string; port: number; transport: "tcp" }): Promise<DenoConn>;
}

export interface GateLimits {
  readonly maxConnections: number;
  readonly headersTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  /** How long a closing connection stays open after its answer, unread, so the client reads the answer before a reset. */
  readonly lingerMs: number;
}

/**
 * Bytes moved per read: each direction of a connection starts with a small buffer (an idle
 * connection costs little: 512 of them hold 2 MiB of buffers) and takes the large one once a
 * read fills it (a body or an answer in bulk).
 */
const RELAY_BUFFER_SMALL = 2 * 1024;
const RELAY_BUFFER_LARGE = 32 * 1024;

const TIMED_OUT = new TextEncoder().encode("HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");

async function writeAll(conn: DenoConn, bytes: Uint8Array): Promise<void> {
  for (let offset = 0; offset < bytes.length; ) offset += await conn.write(bytes.subarray(offset));
}

/** Copies from one socket to the other until the first ends (null) or `stop()` says so (undefined); a write waits for the reader's pace. */
async function relay(from: DenoConn, to: DenoConn, stop: () => boolean, onBytes: () => void): Promise<null | undefined> {
  let buffer = new Uint8Array(RELAY_BUFFER_SMALL);
  for (;;) {
    if (stop()) return undefined;
    const n = await from.read(buffer);
    if (stop()) return undefined;
    if (n === null) return null;
    onBytes();
    await writeAll(to, buffer.subarray(0, n));
    if (n === buffer.length && buffer.length < RELAY_BUFFER_LARGE) buffer = new Uint8Array(RELAY_BUFFER_LARGE);
  }
}

/** One client connection and its relay to the inner server. */
export class GatedConnection {
  private inFlight = 0;
  private closing = false;
  private ended = false;
  private timer: unknown;
  /** Bytes of a request head arrived while no request was in flight (a 408 is owed if it times out). */
  private partial = false;
  /** No request in flight since an answer: the next byte starts the header clock. */
  private idle = false;

  constructor(
    private readonly gate: ConnectionGate,
    private readonly client: DenoConn,
    private readonly upstream: DenoConn,
  ) {}

  /** Starts relaying both ways, with the header clock of a fresh connection running. */
  start(): void {
    this.arm(this.gate.limits.headersTimeoutMs, true);
    void this.fromClient();
    void this.toClient();
  }

  /** The inner server took a request of this connection in: no clock runs while it is answered. */
  requestStarted(): void {
    this.inFlight++;
    this.disarm();
    this.partial = false;
  }

  /** An answer went out (or its client went away). */
  requestEnded(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (this.inFlight > 0 || this.closing || this.ended) return;
    this.idle = true;
    this.arm(this.gate.limits.keepAliveTimeoutMs, false);
  }

  /** The answer under way closes the connection: read nothing more, end it once `answered` settles. */
  closeAfterAnswer(answered: Promise<void>): void {
    if (this.closing) return;
    this.closing = true;
    this.disarm();
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      // The inner server sees the request end and closes its side; the relay then ends the client's.
      this.upstream.closeWrite().catch(() => this.destroy());
    };
    answered.then(finish, finish);
    // Should the answer never count as delivered (an unread body it waits on), the connection still goes.
    this.timer = webTimers.setTimeout(finish, this.gate.limits.lingerMs);
  }

  /** Closes both sockets now. */
  destroy(): void {
    if (this.ended) return;
    this.ended = true;
    this.disarm();
    for (const conn of [this.client, this.upstream])
      try {
        conn.close();
      } catch {
        // Already closed.
      }
    this.gate.forget(this, this.upstream.localAddr.port);
  }

  private async fromClient(): Promise<void> {
    try {
      const end = await relay(
        this.client,
        this.upstream,
        () => this.closing || this.ended,
        () => this.clientBytes(),
      );
      // The client ended its side: so does the relay, and the answers still come back.
      if (end === null) await this.upstream.closeWrite();
    } catch {
      this.destroy();
    }
  }

  /** Bytes came from the client: with no request in flight, they are (part of) a request head. */
  private clientBytes(): void {
    if (this.inFlight > 0) return;
    this.partial = true;
    if (this.idle) {
      this.idle = false;
      this.arm(this.gate.limits.headersTimeoutMs, true);
    }
  }

  private async toClient(): Promise<void> {
    try {
      await relay(
        this.upstream,
        this.client,
        () => this.ended,
        () => undefined,
      );
    } catch {
      this.destroy();
      return;
    }
    if (this.ended) return;
    // The inner server closed: end the client's side and give it lingerMs to read what came, unread.
    this.closing = true;
    this.client.closeWrite().catch(() => undefined);
    this.disarm();
    this.timer = webTimers.setTimeout(() => this.destroy(), this.gate.limits.lingerMs);
  }

  /** Closes the connection after `ms` unless a request comes in; `head` says a request head is awaited (408 if part of one came). */
  private arm(ms: number, head: boolean): void {
    this.disarm();
    this.timer = webTimers.setTimeout(() => {
      this.timer = undefined;
      if (this.inFlight > 0 || this.ended) return;
      if (head && this.partial) {
        this.closing = true;
        writeAll(this.client, TIMED_OUT).then(
          () => this.destroy(),
          () => this.destroy(),
        );
      } else this.destroy();
    }, ms);
  }

  private disarm(): void {
    if (this.timer !== undefined) webTimers.clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** Accepts, counts and times connections, and relays each to the inner server on `innerPort`. */
export class ConnectionGate {
  private readonly byPort = new Map<number, GatedConnection>();
  private readonly connections = new Set<GatedConnection>();
  private listener: DenoListener | undefined;
  private closed = false;
  /** Connections accepted and not yet closed, those still connecting to the inner server included. */
  private open = 0;

  constructor(
    private readonly net: DenoNet,
    readonly limits: GateLimits,
    private readonly innerPort: number,
  ) {}

  /** Connections open through the gate now. */
  get size(): number {
    return this.open;
  }

  /** Listens on `hostname:port`; resolves with the port bound. */
  listen(hostname: string, port: number): number {
    const listener = this.net.listen({ hostname, port, transport: "tcp" });
    this.listener = listener;
    void this.acceptLoop(listener);
    return listener.addr.port ?? port;
  }

  /** The gated connection whose relay has this local port (the inner server's remote port of a request). */
  connectionOf(port: number | undefined): GatedConnection | undefined {
    return port === undefined ? undefined : this.byPort.get(port);
  }

  forget(connection: GatedConnection, port: number | undefined): void {
    if (this.connections.delete(connection)) this.open--;
    if (port !== undefined && this.byPort.get(port) === connection) this.byPort.delete(port);
  }

  /** Stops accepting and closes every connection. */
  close(): void {
    this.closed = true;
    try {
      this.listener?.close();
    } catch {
      // Already closed.
    }
    for (const connection of [...this.connections]) connection.destroy();
  }

  private async acceptLoop(listener: DenoListener): Promise<void> {
    while (!this.closed) {
      let client: DenoConn;
      try {
        client = await listener.accept();
      } catch {
        if (this.closed) return;
        continue;
      }
      // LIM-11: one over the cap is closed at once, unread, as node:http's maxConnections does.
      if (this.open >= this.limits.maxConnections) {
        client.close();
        continue;
      }
      this.open++;
      void this.admit(client);
    }
  }

  private async admit(client: DenoConn): Promise<void> {
    client.setNoDelay?.(true);
    let upstream: DenoConn;
    try {
      upstream = await this.net.connect({ hostname: "127.0.0.1", port: this.innerPort, transport: "tcp" });
    } catch {
      this.open--;
      client.close();
      return;
    }
    upstream.setNoDelay?.(true);
    if (this.closed) {
      this.open--;
      client.close();
      upstream.close();
      return;
    }
    const connection = new GatedConnection(this, client, upstream);
    this.connections.add(connection);
    if (upstream.localAddr.port !== undefined) this.byPort.set(upstream.localAddr.port, connection);
    connection.start();
  }
}
