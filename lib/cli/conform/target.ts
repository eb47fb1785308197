// One spawned implementation under test, for one case: its stdin and stdout as a stream of
// JSON-RPC messages, and optionally the host-adapter channel (fixtures/FORMAT.md, "Host
// adapter"): a pipe on fd 3 named by MCP_CONFORM_ADAPTER=3, one JSON object per line each way.
//
// Invariants: whatever the target writes (non-JSON, huge lines, nothing at all) never throws
// here: a line that is not JSON is kept as a `malformed` entry; a line longer than MAX_LINE is
// cut off and reported malformed; every wait has a timeout; stop() always ends the process.
// The target's environment is the default one of a spawned server (CLI-02: HOME, PATH and
// the like, lib/hosts/stdio.ts), the variables the runner sets, and those passed with --env;
// nothing else of ours.

import { spawn, type ChildProcess } from "node:child_process";
import { childEnvironment } from "../../hosts/spawn-env.js";

const MAX_LINE = 4 * 1024 * 1024;

export type Received =
  | { readonly kind: "message"; readonly value: unknown; readonly line: string }
  | { readonly kind: "malformed"; readonly line: string };

/** Splits bytes into lines (LF, CR LF tolerated) and hands each non-empty one on. */
export class Lines {
  private buffer = "";
  private readonly decoder = new TextDecoder();
  constructor(private readonly onLine: (line: string) => void) {}
  push(chunk: Uint8Array): void {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    let at: number;
    while ((at = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, at).replace(/\r$/, "");
      this.buffer = this.buffer.slice(at + 1);
      if (line.trim() !== "") this.onLine(line);
    }
    if (this.buffer.length > MAX_LINE) {
      this.onLine(this.buffer.slice(0, 200));
      this.buffer = "";
    }
  }
}

export interface TargetOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** Open the adapter channel on fd 3 (and tell the target with MCP_CONFORM_ADAPTER=3). */
  readonly adapter: boolean;
  readonly stderr?: (text: string) => void;
  /**
   * Variables set for the target besides its default environment and MCP_CONFORM=1 (a pass's
   * MCP_CONFORM_PROFILE, those of --env): no env(1) wrapper needed.
   */
  readonly env?: Readonly<Record<string, string>>;
}

export class StdioTarget {
  private readonly child: ChildProcess;
  private readonly inbox: Received[] = [];
  private readonly adapterInbox: unknown[] = [];
  private wake: (() => void) | undefined;
  private stdinClosed = false;
  exited = false;
  /** Something came on stdout: the target is up (the first answer may take a slow start). */
  heardFrom = false;

  constructor(options: TargetOptions) {
    // MCP_CONFORM=1: the target runs under the conformance runner (it may offer the profile's tools only then).
    const env: Record<string, string | undefined> = { ...childEnvironment(options.env, false), MCP_CONFORM: "1" };
    if (options.adapter) env.MCP_CONFORM_ADAPTER = "3";
    else delete env.MCP_CONFORM_ADAPTER;
    this.child = spawn(options.command, options.args, {
      stdio: options.adapter ? ["pipe", "pipe", "pipe", "pipe"] : ["pipe", "pipe", "pipe"],
      env,
    });
    const lines = new Lines((line) => {
      this.heardFrom = true;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        this.inbox.push({ kind: "malformed", line });
        this.notify();
        return;
      }
      this.inbox.push({ kind: "message", value, line });
      this.notify();
    });
    this.child.stdout.on("data", (chunk) => lines.push(chunk));
    this.child.stderr.on("data", (chunk) => options.stderr?.(new TextDecoder().decode(chunk)));
    this.child.on("error", () => {
      this.exited = true;
      this.notify();
    });
    this.child.on("close", () => {
      this.exited = true;
      this.notify();
    });
    // A target that exits early closes its stdin: writes then fail with EPIPE, which is an outcome, not a crash.
    this.child.stdin.on("error", () => undefined);
    const channel = options.adapter ? this.child.stdio[3] : null;
    if (channel !== null && channel !== undefined) {
      channel.on("error", () => undefined);
      const adapterLines = new Lines((line) => {
        try {
          this.adapterInbox.push(JSON.parse(line));
        } catch {
          this.adapterInbox.push({ malformed: line });
        }
        this.notify();
      });
      channel.on("data", (chunk) => adapterLines.push(chunk));
      this.channel = channel;
    }
  }

  private channel: NodeWritable | undefined;

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** Waits until `ready()` holds, something arrives, the process exits, or `ms` pass. */
  private waitFor(ready: () => boolean, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const check = (): void => {
        if (ready() || this.exited) {
          clearTimeout(timer);
          resolve();
          return;
        }
        this.wake = check;
      };
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      check();
    });
  }

  /** Bytes written to stdin so far: adapter commands carry it, so the adapter acts only once it has read them (FORMAT.md). */
  stdinBytes = 0;

  write(bytes: Uint8Array | string): void {
    if (this.stdinClosed || this.exited) return;
    const chunk = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
    this.stdinBytes += chunk.length;
    this.child.stdin.write(chunk);
  }

  closeStdin(): void {
    if (this.stdinClosed) return;
    this.stdinClosed = true;
    this.child.stdin.end();
  }

  get canWrite(): boolean {
    return !this.stdinClosed && !this.exited;
  }

  /** The next thing the target wrote, waiting up to `ms`; undefined when nothing came. */
  async next(ms: number): Promise<Received | undefined> {
    if (this.inbox.length === 0) await this.waitFor(() => this.inbox.length > 0, ms);
    return this.inbox.shift();
  }

  /** Puts an entry back at the front (a policy expectation that did not match leaves the message for the next step). */
  unshift(entry: Received): void {
    this.inbox.unshift(entry);
  }

  /** Sends one adapter command and waits for the answer with the same `seq`. */
  async command(request: { seq: number; op: string; [key: string]: unknown }, ms: number): Promise<Record<string, unknown> | undefined> {
    if (this.channel === undefined) return undefined;
    this.channel.write(JSON.stringify({ ...request, stdinBytes: this.stdinBytes, stdinClosed: this.stdinClosed }) + "\n");
    const find = (): number =>
      this.adapterInbox.findIndex((a) => typeof a === "object" && a !== null && (a as { seq?: unknown }).seq === request.seq);
    if (find() < 0) await this.waitFor(() => find() >= 0, ms);
    const at = find();
    if (at < 0) return undefined;
    return this.adapterInbox.splice(at, 1)[0] as Record<string, unknown>;
  }

  /** Closes stdin, waits up to `ms` for the process to end (collecting what it still writes), then kills it. */
  async stop(ms: number): Promise<void> {
    this.closeStdin();
    // The adapter channel ends with the case: an adapter exits when it closes.
    if (this.channel !== undefined && !this.channel.writableEnded) this.channel.end();
    if (!this.exited) await this.waitFor(() => false, ms);
    if (!this.exited) {
      this.child.kill("SIGKILL");
      await this.waitFor(() => false, 500);
    }
  }
}
