// The far end of the bare JSON-lines floor of bench/peer-stdio.bench.ts: reads newline-delimited
// JSON-RPC requests on stdin and answers each on stdout, with nothing else: no handshake, no
// validation, no state (bench/bare-jsonl.ts). Every chunk's answers leave in one write, as the
// least a line-based server has to do. Exits when stdin ends.

import { bareServer } from "./bare-jsonl.js";

const answer = bareServer();

process.stdin.on("data", (chunk: Uint8Array) => {
  const out = answer(chunk);
  if (out.length > 0) process.stdout.write(out);
});
process.stdin.on("end", () => process.exit(0));
