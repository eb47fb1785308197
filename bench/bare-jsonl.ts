// The bare JSON-lines ends the stdio benches measure against (bench/peer-stdio.bench.ts,
// bench/cold-path.bench.ts, bench/jsonl-echo-child.ts): the least a line-based JSON-RPC peer
// does. A server end parses each request line and answers it with JSON.stringify; a client
// end matches each answer line to its caller's promise by id. No handshake, no validation,
// no state beyond the partial line and the pending ids.

export const TOOL_RESULT = { content: [{ type: "text", text: "fast" }] };

/** A server end: takes request bytes, returns the answers' text (one line each), "" for none. */
export function bareServer(): (chunk: Uint8Array) => string {
  const decoder = new TextDecoder();
  let pending = "";
  return (chunk) => {
    pending += decoder.decode(chunk, { stream: true });
    let out = "";
    let start = 0;
    for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n", start)) {
      const request = JSON.parse(pending.slice(start, newline)) as { id: number; method: string };
      out += JSON.stringify({ jsonrpc: "2.0", id: request.id, result: request.method === "ping" ? {} : TOOL_RESULT }) + "\n";
      start = newline + 1;
    }
    pending = pending.slice(start);
    return out;
  };
}

/** A client end's reader: takes answer bytes and settles each waiting caller by id (the entry leaves `waiting`). */
export function bareAnswers(waiting: Map<number, (result: unknown) => void>): (chunk: Uint8Array) => void {
  const decoder = new TextDecoder();
  let pending = "";
  return (chunk) => {
    pending += decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n", start)) {
      const response = JSON.parse(pending.slice(start, newline)) as { id: number; result: unknown };
      start = newline + 1;
      const resolve = waiting.get(response.id);
      waiting.delete(response.id);
      resolve?.(response.result);
    }
    pending = pending.slice(start);
  };
}
