// stdio hosts for Node (RULES.md STD-01, STD-02, S-02): a server on this process's stdin/stdout
// (stdio-server.ts, re-exported here), and a client that spawns a server command. They bring what the peer layer lacks on purpose:
// the bytes, the clock (epoch ms that never go backwards, clock.ts) and one timer.
//
// Invariants:
// - stdout carries only protocol bytes; logs and diagnostics go to stderr (STD-02);
// - few writes, none deferred without need (coalescedWriter, lib/hosts/stdio-writer.ts): the
//   answers a read causes leave as one buffer when its dispatch returns; the first other write
//   since the last read leaves at once, and any after it gather with the rest of their tick
//   into one write at the tick's end; nothing is scheduled per round trip; reads are not
//   copied: each chunk read goes to the engine as it is, and the engine decodes it in place;
//   on a pipe, both ends read into one buffer kept for the stream's life (readStdin,
//   readChildOutput), not a buffer per read through the Readable machinery;
// - backpressure: a server whose stdout is full stops reading until it drains (pacedSink); a
//   client stops reading only a server that leaves over MAX_UNREAD_ANSWER_BYTES of our answers
//   to its requests unread (answerPacedSink): were both ends to pause on a full pipe, a burst of
//   requests would leave each waiting on the other;
// - shutdown of a spawned server follows S-02: close its stdin, wait, SIGTERM, wait, SIGKILL;
// - a spawned server that ends before it answers the connection's first request is reported
//   as such (ServerExitedError: its exit code or signal and the last lines of its stderr, kept
//   whatever `stderr` says and bounded), not as a connection that merely closed;
// - a spawned server gets only a small default environment taken from ours (CLI-02,
//   lib/hosts/spawn-env.ts): secrets in our environment reach it only when the caller passes them
//   (`env`) or asks for the whole of it (`inheritEnv`);
// - nothing a peer does brings this process down: the peer layer's inputs do not throw (the
//   driver reports what it catches), a broken pipe ends the connection (an "error" event with
//   no listener would exit the process), and every promise made here settles and is handled.

import { spawn } from "node:child_process";
import type { NodeChildProcess as ChildProcess } from "./node-shapes.js";
export type { NodeChildProcess } from "./node-shapes.js";
import { Client } from "../peer/client/client.js";
import type { ClientOptions, ConnectResult } from "../peer/client/client-options.js";
import { ConnectionClosedError } from "../peer/shared/errors.js";
import { answerPacedSink, coalescedWriter, type CoalescedWriter } from "./stdio-writer.js";
import { nodeHost, readChildOutput } from "./stdio-server.js";
export { nodeHost, readChildOutput, serveStdio, type ServeStdioOptions } from "./stdio-server.js";
export { coalescedWriter, type CoalescedWriter } from "./stdio-writer.js";
import { childEnvironment } from "./spawn-env.js";
export { DEFAULT_ENV_POSIX, DEFAULT_ENV_WINDOWS, childEnvironment, defaultEnvironment } from "./spawn-env.js";

/** A client stops reading a server that leaves more than this of our answers to its requests unread (answerPacedSink). */
const MAX_UNREAD_ANSWER_BYTES = 16 * 1024 * 1024;

export interface StdioClientOptions extends ClientOptions {
  command: string;
  args?: readonly string[];
  /**
   * Variables for the server, added to its default environment (defaultEnvironment: HOME,
   * LOGNAME, PATH, SHELL, TERM, USER, or the Windows set; CLI-02), or to the whole of ours with
   * `inheritEnv`; a variable set to undefined is removed. Nothing else of our environment
   * reaches the server.
   */
  env?: { [key: string]: string | undefined };
  /** Hand the server our whole environment (then `env` on top), as a shell would. Default false: only the default set. */
  inheritEnv?: boolean;
  cwd?: string;
  /** What to do with the server's stderr: forward it to ours (default), ignore it, or hand each chunk to a function. */
  stderr?: "inherit" | "ignore" | ((text: string) => void);
  /** S-02 waits: after closing stdin, and again after SIGTERM. Default 2000 ms each. */
  shutdownGraceMs?: number;
  /** Timeout for initialize. Default: defaultTimeoutMs. */
  connectTimeoutMs?: number;
  /**
   * Read the server's stdout into one buffer kept for the stream's life (readChildOutput), as
   * serveStdio's readInPlace reads stdin: no buffer per read. The reader takes the pipe over,
   * so `child.stdout` then gets no "data": only for a caller that does not read it itself.
   * Default false. `mcp-engine client` sets it.
   */
  readInPlace?: boolean;
}

/** How much of a spawned server's stderr is kept for ServerExitedError: the last characters, and of them the last lines. */
const STDERR_TAIL_CHARS = 8192;
const STDERR_TAIL_LINES = 5;

/**
 * The spawned server ended before it answered `method`, the connection's first request (a
 * crash at start, a missing module, a bad argument): how it ended and what it last wrote on
 * stderr. A ConnectionClosedError, so code that handles a closed connection handles it too.
 */
export class ServerExitedError extends ConnectionClosedError {
  /** The exit code, or null when a signal ended it. */
  readonly exitCode: number | null;
  /** The signal that ended it ("SIGSEGV"), or null. */
  readonly signal: string | null;
  /** The last lines of its stderr (at most 5, without line ends; each as written, at most 8192 characters in all). */
  readonly stderrTail: readonly string[];
  constructor(method: string, exitCode: number | null, signal: string | null, stderrTail: readonly string[]) {
    super(method);
    this.name = "ServerExitedError";
    this.exitCode = exitCode;
    this.signal = signal;
    this.stderrTail = stderrTail;
    const how = signal !== null ? `was killed by ${signal}` : `exited with code ${String(exitCode)}`;
    const last = stderrTail.at(-1);
    this.message =
      `the server ${how} before it answered ${method}` +
      (last === undefined ? "; it wrote nothing on stderr" : `; the last line of its stderr: ${JSON.stringify(last)}`);
  }
}

/** The end of a stream of text: the last STDERR_TAIL_CHARS characters, read back as its last lines. */
function textTail(): { push(text: string): void; lines(): string[] } {
  let kept = "";
  return {
    push(text) {
      kept = (kept + text).slice(-STDERR_TAIL_CHARS);
    },
    lines: () =>
      kept
        .split(/\r?\n/)
        .filter((line) => line.trim() !== "")
        .slice(-STDERR_TAIL_LINES),
  };
}

/** "server/discover" of "server/discover: connection closed (…)": the request a ConnectionClosedError names. */
const closedMethod = (error: ConnectionClosedError): string => {
  const at = error.message.indexOf(": connection closed");
  return at > 0 ? error.message.slice(0, at) : "initialize";
};

/** A client connected to a spawned stdio server. */
export class StdioClient {
  readonly client: Client;
  readonly child: ChildProcess;
  readonly server: ConnectResult;
  private readonly exited: Promise<void>;
  private readonly graceMs: number;

  private constructor(
    client: Client,
    child: ChildProcess,
    server: ConnectResult,
    exited: Promise<void>,
    graceMs: number,
    private readonly out: CoalescedWriter,
    private readonly tail: { lines(): string[] },
  ) {
    this.client = client;
    this.child = child;
    this.server = server;
    this.exited = exited;
    this.graceMs = graceMs;
  }

  /** Spawns the server, initializes, and resolves once the session is operating. */
  static async spawn(options: StdioClientOptions): Promise<StdioClient> {
    const child = spawn(options.command, options.args ?? [], {
      stdio: ["pipe", "pipe", "pipe"],
      env: childEnvironment(options.env, options.inheritEnv === true),
      cwd: options.cwd,
    });
    let client: Client | undefined;
    let spawnError: Error | undefined;
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      client?.driver.receiveEof();
      host.armTimer(undefined);
    };
    // The reader is made below, once the client can take its bytes; pausing looks it up when first needed.
    const paced = answerPacedSink(child.stdin, () => reader, MAX_UNREAD_ANSWER_BYTES);
    const out = coalescedWriter((bytes, ofRead) => {
      if (child.stdin.destroyed || child.stdin.writableEnded) return;
      paced(bytes, ofRead);
    });
    const host = nodeHost(out.write, () => client?.driver.onTimer());
    client = new Client(host, options);
    const c = client;
    const exited = new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.once("error", () => resolve());
    });
    // "close": the process ended and its stdout and stderr are read to the end.
    const closed = new Promise<void>((resolve) => {
      child.once("close", () => resolve());
      child.once("error", () => resolve());
    });
    const tail = textTail();
    const tailDecoder = new TextDecoder();
    child.stderr.on("data", (chunk) => tail.push(tailDecoder.decode(chunk, { stream: true })));
    const receive = (chunk: Uint8Array): void => c.driver.receiveBytes(chunk);
    const reader = readChildOutput(child.stdout, (chunk) => out.during(receive, chunk), options.readInPlace ?? false);
    reader.on("end", end);
    reader.on("error", end);
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
      return new StdioClient(c, child, server, exited, options.shutdownGraceMs ?? 2000, out, tail);
    } catch (error) {
      out.flush();
      const graceMs = options.shutdownGraceMs ?? 2000;
      // The connection closed with no answer: a server ending on its own says how, and what it last wrote.
      const endedAlone = error instanceof ConnectionClosedError && (await waitFor(closed, graceMs));
      // (A command that could not be started is said below: its "error" may come after the close.)
      if (endedAlone && spawnError === undefined)
        throw new ServerExitedError(closedMethod(error), child.exitCode, child.signalCode, tail.lines());
      await stopChild(child, exited, graceMs);
      // A command that could not be started (ENOENT, EACCES): say so rather than "connection closed".
      throw spawnError !== undefined ? new ConnectionClosedError("initialize", spawnError.message) : error;
    }
  }

  /** The last lines of the server's stderr so far (at most 5; kept whatever `stderr` says), e.g. to show why it ended. */
  stderrTail(): string[] {
    return this.tail.lines();
  }

  /** Ends the session (S-02): close stdin, wait, SIGTERM, wait, SIGKILL. Resolves once the child exited. */
  async close(): Promise<void> {
    this.client.close();
    this.out.flush(); // what close() said leaves before stdin is closed
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
