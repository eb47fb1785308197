// The far end of the bare JSON-lines floor of bench/peer-stdio.bench.ts: reads newline-delimited
// JSON-RPC requests on stdin and answers each on stdout, with nothing else: no handshake, no
// validation, no state. Every chunk's answers leave in one write, as the least a line-based
// server has to do. Exits when stdin ends.

const TOOL_RESULT = { content: [{ type: "text", text: "fast" }] };
const decoder = new TextDecoder();
let pending = "";

process.stdin.on("data", (chunk: Uint8Array) => {
  pending += decoder.decode(chunk, { stream: true });
  let out = "";
  let start = 0;
  for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n", start)) {
    const request = JSON.parse(pending.slice(start, newline)) as { id: number; method: string };
    out += JSON.stringify({ jsonrpc: "2.0", id: request.id, result: request.method === "ping" ? {} : TOOL_RESULT }) + "\n";
    start = newline + 1;
  }
  pending = pending.slice(start);
  if (out.length > 0) process.stdout.write(out);
});
process.stdin.on("end", () => process.exit(0));
