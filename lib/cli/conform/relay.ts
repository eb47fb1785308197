// `mcp-engine conform-relay HOST:PORT`: the server command a client under test runs in the
// client role (fixtures/FORMAT.md, "Client role"). It connects to the runner's loopback port and
// copies bytes both ways: its stdin (what the client sends its server) to the socket, the socket
// (what the runner plays as the server) to its stdout.
//
// Invariants: it reads nothing itself and buffers only what the streams' back-pressure holds;
// it exits when the socket closes or fails, and ends the socket when its stdin ends, so it never
// outlives the case.

import { connect } from "node:net";

export function relayMain(argv: readonly string[], warn: (text: string) => void): Promise<number> {
  const address = argv[0] ?? "";
  const match = /^127\.0\.0\.1:(\d{1,5})$/.exec(address);
  if (match === null || argv.length !== 1) {
    warn("usage: mcp-engine conform-relay 127.0.0.1:PORT (started by `mcp-engine conform --role client`)\n");
    return Promise.resolve(2);
  }
  return new Promise((resolve) => {
    const socket = connect(Number(match[1]), "127.0.0.1");
    let failed = false;
    socket.on("error", (error) => {
      failed = true;
      warn(`mcp-engine conform-relay: ${error.message}\n`);
    });
    // The case is over: stdin must not keep this process alive.
    socket.on("close", () => {
      process.stdin.destroy();
      resolve(failed ? 1 : 0);
    });
    // Each side waits for the other to drain: nothing accumulates here.
    process.stdin.on("data", (chunk) => {
      if (!socket.write(chunk)) process.stdin.pause();
    });
    socket.on("drain", () => process.stdin.resume());
    process.stdin.on("end", () => socket.end());
    socket.on("data", (chunk) => {
      if (!process.stdout.write(chunk)) socket.pause();
    });
    process.stdout.on("drain", () => socket.resume());
  });
}
