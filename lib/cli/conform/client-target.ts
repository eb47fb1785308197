// One client under test, for one case of the client role (fixtures/FORMAT.md, "Client role"):
// the runner listens on a loopback port, spawns the client's command with a server command
// appended (`node <main.js> conform-relay 127.0.0.1:<port>`, also in MCP_CONFORM_SERVER_COMMAND
// as a JSON array), and the relay the client starts as its "server" connects back. From then on
// the socket is the server's stdio: what the runner writes is the server's stdout, what the
// client writes arrives here.
//
// Invariants: every wait has a timeout; a line longer than MAX_LINE is cut off and reported
// malformed; stop() always ends the client (and with it the relay, whose socket closes) and the
// listener. Only the first connection is taken; any later one is closed at once.

import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type Server, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { childEnvironment } from "../../hosts/spawn-env.js";
import { Lines, type Received } from "./target.js";

/** What the client wrote, line by line (or message by message over HTTP), with a wait that always ends. */
export class LineInbox {
  private readonly entries: Received[] = [];
  private wake: (() => void) | undefined;
  private closed = false;
  heardFrom = false;
  private readonly lines = new Lines((line) => {
    this.heardFrom = true;
    try {
      this.entries.push({ kind: "message", value: JSON.parse(line) as unknown, line });
    } catch {
      this.entries.push({ kind: "malformed", line });
    }
    this.notify();
  });
  push(chunk: Uint8Array): void {
    this.lines.push(chunk);
  }
  /** One message (or a body that is not JSON) that arrived whole, as over HTTP. */
  add(entry: Received): void {
    this.heardFrom = true;
    this.entries.push(entry);
    this.notify();
  }
  close(): void {
    this.closed = true;
    this.notify();
  }
  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
  unshift(entry: Received): void {
    this.entries.unshift(entry);
  }
  async next(ms: number): Promise<Received | undefined> {
    if (this.entries.length === 0 && !this.closed)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.wake = undefined;
          resolve();
        }, ms);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    return this.entries.shift();
  }
}

/** What the client role's replay (client-replay.ts) needs of a client under test, over either transport. */
export interface ClientChannel {
  readonly exited: boolean;
  readonly heardFrom: boolean;
  /** The server may write now (over HTTP: the client has sent something, so it is there). */
  readonly canWrite: boolean;
  /** A message the server starts (a ping barrier) reaches the client now, not only once it opens a stream. */
  readonly reachesClient: boolean;
  write(bytes: Uint8Array | string): void;
  closeStdin(): void;
  next(ms: number): Promise<Received | undefined>;
  unshift(entry: Received): void;
  stop(ms: number): Promise<void>;
  /** A transport rule the client broke (over HTTP: headers), checked with every message. */
  violation(): { readonly rule: string; readonly reason: string } | undefined;
  /** Why what the server wrote has not reached the client (over HTTP: no stream open for it), if so. */
  stranded(): string | undefined;
}

/** The variables that tell a client under test which case it is in (fixtures/FORMAT.md, "Client role"). */
export function caseEnvironment(options: ClientTargetOptions): Record<string, string | undefined> {
  return {
    ...childEnvironment(options.env, false),
    MCP_CONFORM: "1",
    MCP_CONFORMANCE_SCENARIO: options.scenario,
    MCP_CONFORM_VERSION: options.version,
  };
}

/** Ends a client under test: waits up to `ms` for it to exit, then kills it. */
export async function stopClient(child: ChildProcess | undefined, ms: number): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const timer = (wait: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, wait));
  await Promise.race([exited, timer(ms)]);
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGKILL");
    await Promise.race([exited, timer(500)]);
  }
}

export interface ClientTargetOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** The case's fixture id, for MCP_CONFORMANCE_SCENARIO. */
  readonly scenario: string;
  /** The case's protocol version, for MCP_CONFORM_VERSION. */
  readonly version: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly stderr?: (text: string) => void;
}

/** The command a client under test runs as its server: our CLI's relay to `address`. */
export function relayCommand(address: string): string[] {
  return [process.execPath, fileURLToPath(new URL("../main.js", import.meta.url)), "conform-relay", address];
}

export class ClientTarget implements ClientChannel {
  private readonly listener: Server;
  private child: ChildProcess | undefined;
  private socket: Socket | undefined;
  private readonly inbox = new LineInbox();
  private ended = false;
  /** The server side's output has ended (eof step, or stop). */
  private serverEnded = false;
  /** The client exited, or its relay hung up: nothing more can come. */
  get exited(): boolean {
    return this.ended;
  }
  /** Something came from the client: it is up. */
  get heardFrom(): boolean {
    return this.inbox.heardFrom;
  }

  private constructor(listener: Server) {
    this.listener = listener;
  }

  /** Listens, then spawns the client; undefined when no loopback port could be opened. */
  static async start(options: ClientTargetOptions): Promise<ClientTarget | string> {
    const listener = createServer();
    const listening = await new Promise<string | undefined>((resolve) => {
      listener.once("error", (error) => resolve(error.message));
      listener.listen(0, "127.0.0.1", () => resolve(undefined));
    });
    if (listening !== undefined) return `cannot listen on a loopback port: ${listening}`;
    const target = new ClientTarget(listener);
    listener.on("connection", (socket) => target.accept(socket));
    const address = listener.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    const server = relayCommand(`127.0.0.1:${port}`);
    const env = { ...caseEnvironment(options), MCP_CONFORM_SERVER_COMMAND: JSON.stringify(server) };
    const child = spawn(options.command, [...options.args, ...server], { stdio: ["ignore", "ignore", "pipe"], env });
    target.child = child;
    child.stderr.on("data", (chunk) => options.stderr?.(new TextDecoder().decode(chunk)));
    child.on("error", () => target.end());
    child.on("close", () => target.end());
    return target;
  }

  private accept(socket: Socket): void {
    if (this.socket !== undefined || this.ended) {
      socket.destroy();
      return;
    }
    this.socket = socket;
    socket.on("error", () => undefined);
    socket.on("data", (chunk) => this.inbox.push(chunk));
    socket.on("close", () => this.end());
  }

  private end(): void {
    this.ended = true;
    this.inbox.close();
  }

  /** The server's stdout: dropped until the relay has connected (the caller waits for the client's first message). */
  write(bytes: Uint8Array | string): void {
    if (!this.canWrite) return;
    this.socket?.write(bytes);
  }

  /** The server's stdout ends: the client sees its server go away. */
  closeStdin(): void {
    if (this.socket === undefined || this.serverEnded) return;
    this.serverEnded = true;
    this.socket.end();
  }

  get canWrite(): boolean {
    return this.socket !== undefined && !this.serverEnded && !this.ended;
  }

  get reachesClient(): boolean {
    return this.canWrite;
  }

  violation(): undefined {
    return undefined;
  }

  stranded(): undefined {
    return undefined;
  }

  next(ms: number): Promise<Received | undefined> {
    return this.inbox.next(ms);
  }

  unshift(entry: Received): void {
    this.inbox.unshift(entry);
  }

  /** Ends the server side, waits up to `ms` for the client to exit, then kills it; the listener closes. */
  async stop(ms: number): Promise<void> {
    this.closeStdin();
    await stopClient(this.child, ms);
    this.socket?.destroy();
    await new Promise<void>((resolve) => this.listener.close(() => resolve()));
  }
}
