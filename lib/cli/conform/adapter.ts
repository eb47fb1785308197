// The host adapter our `serve` speaks when MCP_CONFORM_ADAPTER names a file descriptor
// (fixtures/FORMAT.md, "Host adapter"): instead of the reference server, a bare Engine that
// the conformance runner configures per case and drives with the fixture's host commands and
// virtual clock, while the protocol itself goes over stdin and stdout as usual.
//
// Invariants: stdout carries only protocol bytes; nothing on either channel can throw past
// this module (a bad command is answered `ok: false`); input that arrives before `configure`
// waits, bounded; events are drained and dropped so they never accumulate; the process ends
// when the adapter channel ends.

import { createReadStream, writeSync } from "node:fs";
import { Engine, LocalProtocolError, type EngineOptions } from "../../index.js";
import { HOST_OPS, engineConfigOf, performHostCall, type HostCall } from "./host-ops.js";

/** The engine configuration keys the adapter accepts in `configure` (FORMAT.md, "Configuration"). */
const CONFIG_KEYS = [
  "info",
  "capabilities",
  "instructions",
  "autoInitialize",
  "limits",
  "logLevel",
  "serverInfoInResults",
  "discoverAnyVersion",
  "validateResults",
  "versions",
  "extensions",
];

const MAX_EARLY_BYTES = 1 << 20;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The descriptor named by MCP_CONFORM_ADAPTER, when it is set to one. */
export function adapterFd(env: { [key: string]: string | undefined }): number | undefined {
  const value = env.MCP_CONFORM_ADAPTER;
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  const fd = Number(value);
  return fd >= 3 ? fd : undefined;
}

export function serveAdapter(fd: number): void {
  let engine: Engine | undefined;
  let now = 0;
  let early: Uint8Array[] = [];
  let earlyBytes = 0;
  let earlyEof = false;
  /** stdin bytes read so far, and commands waiting for the runner's earlier input to arrive. */
  let received = 0;
  let ended = false;
  const waiting: Record<string, unknown>[] = [];

  const answer = (value: Record<string, unknown>): void => {
    try {
      writeSync(fd, JSON.stringify(value) + "\n");
    } catch {
      process.exit(0);
    }
  };
  const flush = (): void => {
    if (engine === undefined) return;
    for (let out = engine.pollOutbound(); out !== undefined; out = engine.pollOutbound())
      process.stdout.write(JSON.stringify(out.message) + "\n");
    while (engine.pollEvent() !== undefined) {
      // Events are the engine's own observations; the runner judges the wire only.
    }
  };

  const configure = (command: Record<string, unknown>): Record<string, unknown> => {
    if (engine !== undefined) return { ok: false, error: { message: "configured already: one case per process" } };
    const config = isRecord(command.config) ? command.config : {};
    const options: Record<string, unknown> = { info: { name: "fixture", version: "0" } };
    for (const key of CONFIG_KEYS) if (Object.hasOwn(config, key)) options[key] = config[key];
    if (!Object.hasOwn(options, "versions") && typeof command.version === "string") options.versions = [command.version];
    const role = command.role === "client" ? "client" : "server";
    try {
      engine = new Engine({
        ...(engineConfigOf(options) as unknown as EngineOptions),
        role,
        strict: command.strict === true,
      } as EngineOptions);
    } catch (error) {
      return { ok: false, error: { message: error instanceof Error ? error.message : String(error) } };
    }
    for (const chunk of early) engine.receiveBytes(chunk, now);
    if (earlyEof) engine.receiveEof();
    early = [];
    flush();
    return { ok: true };
  };

  const perform = (command: Record<string, unknown>): Record<string, unknown> => {
    switch (command.op) {
      case "hello":
        return { ok: true, supports: { ops: [...HOST_OPS], clock: true, strict: true, config: CONFIG_KEYS, configurable: true } };
      case "configure":
        return configure(command);
      case "time": {
        if (engine === undefined || typeof command.now !== "number")
          return { ok: false, error: { message: "time needs a configured engine and a number" } };
        now = command.now;
        engine.handleTimeout(now);
        flush();
        return { ok: true };
      }
      case "call": {
        if (engine === undefined || !isRecord(command.call) || typeof command.call.op !== "string")
          return { ok: false, error: { message: "call needs a configured engine and {op, ...}" } };
        try {
          const returns = performHostCall(engine, command.call as HostCall);
          flush();
          return { ok: true, ...(returns !== undefined ? { returns: JSON.parse(JSON.stringify(returns)) as unknown } : {}) };
        } catch (error) {
          flush();
          // The refusal with every field it carries (rule, code, expected, got), as the fixture's `throws` may name any.
          if (error instanceof LocalProtocolError)
            return {
              ok: false,
              error: { ...(JSON.parse(JSON.stringify(error)) as Record<string, unknown>), rule: error.rule, message: error.message },
            };
          return { ok: false, error: { message: error instanceof Error ? error.message : String(error) } };
        }
      }
      default:
        return { ok: false, error: { message: `unknown adapter op ${JSON.stringify(command.op)}` } };
    }
  };

  // A command runs once this side has read every stdin byte the runner wrote before sending it
  // (`stdinBytes`, and `stdinClosed` for the end): the two channels are not ordered otherwise.
  const runReady = (): void => {
    while (waiting.length > 0) {
      const command = waiting[0] as Record<string, unknown>;
      const bytes = typeof command.stdinBytes === "number" ? command.stdinBytes : 0;
      if (received < bytes || (command.stdinClosed === true && !ended)) return;
      waiting.shift();
      answer({ seq: command.seq, ...perform(command) });
    }
  };

  let buffer = "";
  const decoder = new TextDecoder();
  const channel = createReadStream(null, { fd, autoClose: true });
  channel.on("data", (chunk) => {
    buffer += decoder.decode(chunk, { stream: true });
    let at: number;
    while ((at = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 1);
      let command: unknown;
      try {
        command = JSON.parse(line);
      } catch {
        answer({ ok: false, error: { message: "not JSON" } });
        continue;
      }
      if (!isRecord(command)) {
        answer({ ok: false, error: { message: "a command is a JSON object" } });
        continue;
      }
      waiting.push(command);
    }
    runReady();
  });
  channel.on("end", () => process.exit(0));
  channel.on("error", () => process.exit(0));

  process.stdin.on("data", (chunk) => {
    received += chunk.length;
    if (engine === undefined) {
      earlyBytes += chunk.length;
      if (earlyBytes <= MAX_EARLY_BYTES) early.push(chunk);
      return;
    }
    engine.receiveBytes(chunk, now);
    flush();
    runReady();
  });
  process.stdin.on("end", () => {
    ended = true;
    if (engine === undefined) earlyEof = true;
    else {
      engine.receiveEof();
      flush();
    }
    runReady();
  });
}
