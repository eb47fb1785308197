// stdio hosts for Node (RULES.md STD-01, STD-02, S-02): a server on this process's stdin/stdout, and a
// client that spawns a server command. They bring what the peer layer lacks on purpose:
// the bytes, the clock (performance.now) and one timer.
//
// Invariants:
// - stdout carries only protocol bytes; logs and diagnostics go to stderr (STD-02);
// - backpressure: when the pipe we write to is full, we stop reading until it drains;
// - shutdown of a spawned server follows S-02: close its stdin, wait, SIGTERM, wait, SIGKILL;
// - nothing a peer does brings this process down: the peer layer's inputs do not throw (the
//   driver reports what it catches), a broken pipe ends the connection (an "error" event with
//   no listener would exit the process), and every promise made here settles and is handled.

import { spawn } from "node:child_process";
import type { NodeChildProcess as ChildProcess } from "./node-shapes.js";
export type { NodeChildProcess } from "./node-shapes.js";
import { performance } from "node:perf_hooks";
import { Client, type ClientOptions, type ConnectResult } from "../peer/client.js";
import type { PeerHost } from "../peer/driver.js";
import { TimerSlot } from "./timer-slot.js";
import { ConnectionClosedError } from "../peer/errors.js";
import type { Server, ServerSession } from "../peer/server.js";

/** A PeerHost on Node: a monotonic clock, one timer, and a writer. */
export function nodeHost(write: (bytes: Uint8Array) => void, onTimer: () => void): PeerHost {
  const now = (): number => performance.now();
  // Armed for real only when the deadline moves earlier (timer-slot.ts).
  const slot = new TimerSlot(now, onTimer);
  return { write, now, armTimer: (at) => slot.arm(at) };
}

/** Serves `server` on this process's stdin and stdout until stdin ends. */
export function serveStdio(server: Server): ServerSession {
  const stdin = process.stdin;
  const stdout = process.stdout;
  let session: ServerSession | undefined;
  const host = nodeHost(
    (bytes) => {
      if (!stdout.write(bytes)) {
        stdin.pause();
        stdout.once("drain", () => stdin.resume());
      }
    },
    () => session?.onTimer(),
  );
  session = server.connect(host);
  const s = session;
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    s.receiveEof();
    host.armTimer(undefined);
  };
  stdin.on("data", (chunk) => s.receiveBytes(chunk));
  stdin.on("end", end);
  stdin.on("error", end);
  // EPIPE: the client went away; what we still had to say has nowhere to go.
  stdout.on("error", end);
  return s;
}

export interface StdioClientOptions extends ClientOptions {
  command: string;
  args?: readonly string[];
  env?: { [key: string]: string | undefined };
  cwd?: string;
  /** What to do with the server's stderr: forward it to ours (default), ignore it, or hand each chunk to a function. */
  stderr?: "inherit" | "ignore" | ((text: string) => void);
  /** S-02 waits: after closing stdin, and again after SIGTERM. Default 2000 ms each. */
  shutdownGraceMs?: number;
  /** Timeout for initialize. Default: defaultTimeoutMs. */
  connectTimeoutMs?: number;
}

/** A client connected to a spawned stdio server. */
export class StdioClient {
  readonly client: Client;
  readonly child: ChildProcess;
  readonly server: ConnectResult;
  private readonly exited: Promise<void>;
  private readonly graceMs: number;

  private constructor(client: Client, child: ChildProcess, server: ConnectResult, exited: Promise<void>, graceMs: number) {
    this.client = client;
    this.child = child;
    this.server = server;
    this.exited = exited;
    this.graceMs = graceMs;
  }

  /** Spawns the server, initializes, and resolves once the session is operating. */
  static async spawn(options: StdioClientOptions): Promise<StdioClient> {
    const child = spawn(options.command, options.args ?? [], { stdio: ["pipe", "pipe", "pipe"], env: options.env, cwd: options.cwd });
    let client: Client | undefined;
    let spawnError: Error | undefined;
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      client?.driver.receiveEof();
      host.armTimer(undefined);
    };
    const host = nodeHost(
      (bytes) => {
        if (child.stdin.destroyed || child.stdin.writableEnded) return;
        if (!child.stdin.write(bytes)) {
          child.stdout.pause();
          child.stdin.once("drain", () => child.stdout.resume());
        }
      },
      () => client?.driver.onTimer(),
    );
    client = new Client(host, options);
    const c = client;
    const exited = new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.once("error", () => resolve());
    });
    child.stdout.on("data", (chunk) => c.driver.receiveBytes(chunk));
    child.stdout.on("end", end);
    child.stdout.on("error", end);
    child.stderr.on("error", () => undefined);
    child.on("error", (error) => {
      spawnError = error;
      end();
    });
    // "close", not "exit": the last answer may still be in the stdout pipe when the process exits.
    child.on("close", end);
    child.stdin.on("error", () => undefined);
    const stderr = options.stderr ?? "inherit";
    if (stderr === "inherit") child.stderr.on("data", (chunk) => process.stderr.write(chunk));
    else if (typeof stderr === "function") {
      const decoder = new TextDecoder();
      child.stderr.on("data", (chunk) => stderr(decoder.decode(chunk, { stream: true })));
    } else child.stderr.on("data", () => undefined);
    try {
      const server = await c.connect({ timeoutMs: options.connectTimeoutMs });
      return new StdioClient(c, child, server, exited, options.shutdownGraceMs ?? 2000);
    } catch (error) {
      await stopChild(child, exited, options.shutdownGraceMs ?? 2000);
      // A command that could not be started (ENOENT, EACCES): say so rather than "connection closed".
      throw spawnError !== undefined ? new ConnectionClosedError("initialize", spawnError.message) : error;
    }
  }

  /** Ends the session (S-02): close stdin, wait, SIGTERM, wait, SIGKILL. Resolves once the child exited. */
  async close(): Promise<void> {
    this.client.close();
    await stopChild(this.child, this.exited, this.graceMs);
  }
}

async function stopChild(child: ChildProcess, exited: Promise<void>, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.stdin.end();
  if (await waitFor(exited, graceMs)) return;
  child.kill("SIGTERM");
  if (await waitFor(exited, graceMs)) return;
  child.kill("SIGKILL");
  await exited;
}

function waitFor(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    const done = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    promise.then(done, done);
  });
}
