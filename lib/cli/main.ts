#!/usr/bin/env node
// The `mcp-engine` command (usage in args.ts).
//
//   mcp-engine serve                   the reference server on stdio
//   mcp-engine client -- <command...>  spawn a stdio server and print the report
//   mcp-engine demo                    the report of the reference client against the reference server (npm start)
//   mcp-engine conform -- <command...> replay the fixture corpus against a server (lib/cli/conform/)
//
// stdout belongs to the protocol when serving, and to the report otherwise; everything else
// (the server's stderr, diagnostics, the pending-call display) goes to stderr.
// What a server or a network says is printed through the one printer for untrusted text
// (lib/codec/terminal-text.ts, CLI-01): each field where it is quoted, the server's stderr line
// by line, and every line of the report once more as a whole before it is written, so that no
// control character of a peer's reaches the terminal even through a quote this file missed.
// A spawned server gets the default environment of lib/hosts/spawn-env.ts and what --env asks
// for (CLI-02), nothing else of ours.
// This file parses the arguments and loads the one subcommand asked for (serve.ts,
// client-command.ts, conform/index.ts), so that `serve` loads no client and `client` no server
// code at startup.
// Exit codes: 0 no check failed (WARN and SKIP included), 1 a check failed, 2 bad usage or a
// connection failure, 3 the report's run budget (--run-timeout, CLI-03) ran out: it is started
// before the server is spawned or reached, cancels the request in flight when it runs out, and
// the report then prints what it has, a STOP line, closes the server and tallies.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { USAGE, parseArgs } from "./args.js";
import { usageErrorLine } from "../codec/did-you-mean.js";
import { printedLines } from "../codec/terminal-text.js";
import { rootProblem } from "./roots.js";

function packageVersion(): string {
  const text = readFileSync(fileURLToPath(new URL("../../../package.json", import.meta.url)), "utf8");
  const version = (JSON.parse(text) as { version?: unknown }).version;
  return typeof version === "string" ? version : "unknown";
}

async function main(argv: readonly string[]): Promise<number> {
  // conform has its own options (lib/cli/conform/index.ts).
  if (argv[0] === "conform")
    return (await import("./conform/index.js")).conformMain(
      argv.slice(1),
      (text) => process.stdout.write(printedLines(text)),
      (text) => process.stderr.write(printedLines(text)),
    );
  if (argv[0] === "conform-relay")
    return (await import("./conform/relay.js")).relayMain(argv.slice(1), (text) => process.stderr.write(printedLines(text)));
  const parsed = parseArgs(argv);
  // One line, the cause first; the usage is for --help.
  const subcommand = argv[0] !== undefined && ["serve", "client", "demo"].includes(argv[0]) ? argv[0] : undefined;
  if (!parsed.ok) {
    process.stderr.write(usageErrorLine(subcommand, parsed.problem));
    return 2;
  }
  const options = parsed.options;
  const problem = rootProblem(options.roots, process.cwd());
  if (problem !== undefined) {
    process.stderr.write(usageErrorLine(subcommand, problem));
    return 2;
  }
  switch (options.command) {
    case "help":
      process.stdout.write(USAGE);
      return 0;
    case "version":
      process.stdout.write(`mcp-engine ${packageVersion()}\n`);
      return 0;
    case "serve":
      return (await import("./serve.js")).serve(options);
    case "demo":
      return (await import("./client-command.js")).demo(options, fileURLToPath(import.meta.url));
    case "client":
      return (await import("./client-command.js")).clientCommand(options);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    // An exception's message may quote a peer.
    process.stderr.write(`mcp-engine: ${printedLines(error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`);
    process.exitCode = 2;
  },
);
