// The stdio server host for Node (RULES.md STD-01, STD-02): a server on this process's stdin and
// stdout, and what the stdio client host (stdio.ts) shares with it: the Node PeerHost (clock
// and one timer) and the readers of a pipe. A file of its own so that a process that only
// serves (`mcp-engine serve`, an application's stdio server) loads no client code at startup.
//
// Invariants: stdout carries only protocol bytes (STD-02); few writes (coalescedWriter,
// stdio-writer.ts); a server whose stdout is full stops reading until it drains (pacedSink);
// reads are not copied: each chunk goes to the engine as it is; a broken pipe ends the session.

import { fstatSync } from "node:fs";
import { Socket } from "node:net";
import type { NodeReadable } from "./node-shapes.js";
import type { PeerHost } from "../peer/shared/driver.js";
import type { Server } from "../peer/server/server.js";
import type { ServerSession } from "../peer/server/session.js";
import { coalescedWriter, pacedSink } from "./stdio-writer.js";
import { epochClock } from "./clock.js";

/**
 * A PeerHost on Node: a monotonic clock, one timer, and a writer.
 *
 * The timer is re-armed only for an earlier deadline. With the default timeouts every request
 * moves the deadline, and usually later (each new request is due after the ones before it);
 * rather than a clearTimeout and a setTimeout each time, a timer due earlier than asked is kept,
 * and when it fires before the deadline it asks for the rest. A deadline taken away unrefs the
 * timer instead of clearing it, so a process with nothing pending still exits. onTimer is never
 * called before the deadline last asked for, nor after it was taken away.
 */
export function nodeHost(write: (bytes: Uint8Array) => void, onTimer: () => void): PeerHost {
  let timer: NodeTimer | undefined;
  /** When `timer` fires (Infinity when there is none). */
  let timerAt = Infinity;
  /** The deadline last asked for; undefined when none. */
  let wanted: number | undefined;
  const set = (at: number): void => {
    timerAt = at;
    timer = setTimeout(fire, Math.max(0, Math.ceil(at - epochClock())));
  };
  const fire = (): void => {
    timer = undefined;
    timerAt = Infinity;
    if (wanted === undefined) return;
    if (epochClock() < wanted)
      set(wanted); // the deadline moved later meanwhile
    else onTimer();
  };
  return {
    write,
    now: epochClock,
    armTimer(at) {
      wanted = at;
      if (timer === undefined) {
        if (at !== undefined) set(at);
        return;
      }
      if (at === undefined) {
        timer.unref();
        return;
      }
      if (timerAt <= at) {
        timer.ref();
        return;
      }
      clearTimeout(timer);
      set(at);
    },
  };
}

const READ_BUFFER_BYTES = 64 * 1024;

/** What serveStdio needs of its input: events and flow control. */
interface Input {
  on(event: "end", listener: () => void): void;
  on(event: "error", listener: (error: Error) => void): void;
  pause(): void;
  resume(): void;
}

/**
 * This process's stdin, each chunk handed to `receive`. With `inPlace`, on a pipe or a socket
 * (how MCP clients run a server), Node reads into one buffer kept for the stream's life
 * (net.Socket's onread) instead of a new buffer per read: the engine decodes a chunk before
 * receiveBytes returns and copies only the part of a line it must keep (lib/wire/framing.ts), so the
 * buffer is free again when `receive` returns. That socket takes fd 0 over, and process.stdin
 * would then see nothing: hence opt-in. Otherwise, and on a file, a terminal or Windows, stdin
 * is read through process.stdin.
 */
function readStdin(receive: (chunk: Uint8Array) => void, inPlace: boolean): Input {
  if (inPlace && process.platform !== "win32") {
    let kind: { isFIFO(): boolean; isSocket(): boolean } | undefined;
    try {
      kind = fstatSync(0);
    } catch {
      kind = undefined;
    }
    if (kind !== undefined && (kind.isFIFO() || kind.isSocket())) return inPlaceReader({ fd: 0 }, receive);
  }
  const stdin = process.stdin;
  stdin.on("data", receive);
  return stdin;
}

/** A socket on `source` (a descriptor, or another socket's handle) that reads into one buffer kept for its life, each read handed to `receive`. */
function inPlaceReader(source: { fd: number } | { handle: object }, receive: (chunk: Uint8Array) => void): Socket {
  const buffer = new Uint8Array(READ_BUFFER_BYTES);
  return new Socket({ ...source, readable: true, writable: false, onread: { buffer, callback: (n) => receive(buffer.subarray(0, n)) } });
}

/** What readChildOutput needs of a libuv stream handle (a Pipe) to read it into a kept buffer. */
interface StreamHandle {
  readStart(): unknown;
  readStop(): unknown;
  useUserBuffer(buffer: Uint8Array): unknown;
}

/** The libuv handle of a Node socket, when it has what reading in place needs. */
function streamHandleOf(stream: object): StreamHandle | undefined {
  const handle: unknown = (stream as { _handle?: unknown })._handle;
  if (typeof handle !== "object" || handle === null) return undefined;
  const h = handle as { readStart?: unknown; readStop?: unknown; useUserBuffer?: unknown };
  return typeof h.readStart === "function" && typeof h.readStop === "function" && typeof h.useUserBuffer === "function"
    ? (handle as StreamHandle)
    : undefined;
}

/**
 * A spawned server's stdout, each chunk handed to `receive`. With `inPlace`, read as serveStdio
 * reads a pipe (readStdin): into one buffer kept for the stream's life, with no buffer made per read and no
 * pass through the Readable machinery (push, "data", a nextTick per read). Measured over stdio
 * one call at a time: reading the server's stdin this way is worth a fifth of the round trips,
 * the client's stdout 5 to 8 %. Node has no public way to give a child's pipe an `onread`, so
 * the pipe's handle is taken over by a Socket made with one, through net.Socket's `handle`
 * option (the one child_process wraps the same handle with). The child's own stdout object
 * then sees nothing (data or end); it is destroyed at the reader's end or error, so that the
 * child's "close" still waits for the pipe, as it does without the takeover, and it closes the handle they share.
 * Without `inPlace`, where there is no such handle (Windows, another runtime), or where taking
 * it over throws, stdout is read through its "data" events.
 */
export function readChildOutput(stdout: NodeReadable, receive: (chunk: Uint8Array) => void, inPlace: boolean): Input {
  const handle = !inPlace || process.platform === "win32" ? undefined : streamHandleOf(stdout);
  if (handle !== undefined) {
    let reader: Socket | undefined;
    try {
      reader = inPlaceReader({ handle }, receive);
    } catch {
      reader = undefined;
    }
    if (reader !== undefined) {
      // Registered before the reader's own end handling (which closes the handle): stdout closes it first, and so emits its "close".
      const release = (): void => stdout.destroy();
      reader.on("end", release);
      reader.on("error", release);
      return reader;
    }
  }
  stdout.on("data", receive);
  return stdout;
}

export interface ServeStdioOptions {
  /**
   * Read stdin into one reused buffer when it is a pipe or a socket (one allocation per read
   * less). Only for a process where nothing else reads process.stdin: the reader takes fd 0
   * over. Default false. `mcp-engine serve` sets it.
   */
  readInPlace?: boolean;
}

/** Serves `server` on this process's stdin and stdout until stdin ends. */
export function serveStdio(server: Server, options: ServeStdioOptions = {}): ServerSession {
  const stdout = process.stdout;
  let session: ServerSession | undefined;
  // The input is looked up when first paused: it is made below, once the session can take its bytes.
  const out = coalescedWriter(pacedSink(stdout, () => stdin));
  const host = nodeHost(out.write, () => session?.onTimer());
  session = server.connect(host);
  const s = session;
  const receive = (chunk: Uint8Array): void => s.receiveBytes(chunk);
  const stdin = readStdin((chunk) => out.during(receive, chunk), options.readInPlace ?? false);
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    s.receiveEof();
    host.armTimer(undefined);
  };
  stdin.on("end", end);
  stdin.on("error", end);
  // EPIPE: the client went away; what we still had to say has nowhere to go.
  stdout.on("error", end);
  return s;
}
