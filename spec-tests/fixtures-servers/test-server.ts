// A stdio MCP server for spec-tests/e2e/e2e-stdio.test.ts: the scenarios the reference server
// does not have. Built on lib/peer and lib/hosts/stdio like any real server.
//
// Tools:
//   hang               never settles and ignores its signal
//   echo               answers {value} after an optional delayMs
//   wait_for_cancel    settles only when its signal aborts; then logs "aborted <tag>: <reason>"
//                      to stderr, records it, and resolves with a result (which the peer layer
//                      must never send: the request was cancelled)
//   cancellations_seen the records of wait_for_cancel, as JSON text
//   stray_stdout       writes a line that is not JSON to stdout, then answers
//   exit_now           the process exits (code 3) while the request is pending
//   answer_then_exit   answers, then the process exits (code 0) right after
//
// Flags (argv):
//   --serve               required: without it the program exits at once (`node --test
//                         dist/spec-tests/` runs every .js file below it, this one included)
//   --stray-at-start      write a non-JSON line to stdout before serving
//   --ignore-stdin-close  stay alive after stdin ends (SIGTERM still ends it)
//   --ignore-sigterm      also trap SIGTERM, so that only SIGKILL ends the process
//
// Everything human goes to stderr; stdout carries protocol bytes (and the deliberate stray lines).

import { serveStdio } from "../../lib/hosts/stdio.js";
import { Server } from "../../lib/peer/server/server.js";
import type { CallToolResult } from "../../lib/types/index.js";

const flags = new Set(process.argv.slice(2));
const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });
const NO_ARGS = { type: "object" as const, properties: {} };
const seen: string[] = [];

const server = new Server({ info: { name: "e2e-fixture-server", version: "0.0.0" } });

server.tool("hang", { inputSchema: NO_ARGS }, () => new Promise<CallToolResult>(() => undefined));

server.tool(
  "echo",
  { inputSchema: { type: "object", properties: { value: { type: "string" }, delayMs: { type: "number", minimum: 0 } } } },
  async (args, ctx) => {
    const delay = typeof args.delayMs === "number" ? args.delayMs : 0;
    if (delay > 0) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, delay);
        ctx.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(new Error("cancelled"));
        });
      });
    }
    return text(String(args.value));
  },
);

server.tool("wait_for_cancel", { inputSchema: { type: "object", properties: { tag: { type: "string" } } } }, (args, ctx) => {
  const tag = String(args.tag);
  process.stderr.write(`started ${tag}\n`);
  return new Promise<CallToolResult>((resolve) => {
    ctx.signal.addEventListener(
      "abort",
      () => {
        const line = `aborted ${tag}: ${String(ctx.signal.reason)}`;
        seen.push(line);
        process.stderr.write(line + "\n");
        resolve(text(`answer to the cancelled call ${tag}`));
      },
      { once: true },
    );
  });
});

server.tool("cancellations_seen", { inputSchema: NO_ARGS }, () => text(JSON.stringify(seen)));

server.tool("stray_stdout", { inputSchema: NO_ARGS }, () => {
  process.stdout.write("this stray line is not JSON\n");
  return text("answered after the stray line");
});

server.tool("exit_now", { inputSchema: NO_ARGS }, () => {
  process.stderr.write("exiting mid-request\n");
  process.exit(3);
});

server.tool("answer_then_exit", { inputSchema: NO_ARGS }, () => {
  // The answer is written in a microtask after this returns; stdout on a pipe is synchronous
  // on Linux and macOS, so the bytes are in the pipe before the process exits.
  setImmediate(() => process.exit(0));
  return text("last words");
});

if (!flags.has("--serve")) process.exit(0);
if (flags.has("--stray-at-start")) process.stdout.write("stray banner before any message\n");
if (flags.has("--ignore-stdin-close") || flags.has("--ignore-sigterm")) setInterval(() => undefined, 60_000);
if (flags.has("--ignore-sigterm")) process.on("SIGTERM", () => process.stderr.write("SIGTERM ignored\n"));

serveStdio(server);
process.stderr.write("ready\n");
