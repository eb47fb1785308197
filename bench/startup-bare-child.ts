// The floor of bench/startup.ts: node starts, reads the first line on stdin and answers it with
// an initialize result, loading nothing else.

process.stdin.on("data", (chunk: Uint8Array) => {
  const request = JSON.parse(new TextDecoder().decode(chunk).split("\n")[0]!) as { id: number };
  const result = { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "bare", version: "1.0.0" } };
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id: request.id, result })}\n`);
});
