// Reading (or refusing to read) a request body on the Streamable HTTP host, and the JSON
// answers its refusals travel in. Split out of http-server.ts.
//
// Invariants: a body is read only up to `limit` bytes; beyond it (declared or counted) the
// answer is 413 and the connection is closed unread (closeAfterAnswer); a body the host
// does not want is drained only when declared within the limit.

import type { NodeIncomingMessage as IncomingMessage, NodeServerResponse as ServerResponse } from "./node-shapes.js";
import type { JsonObject, RequestId } from "../envelope.js";
import { ErrorCode } from "../errors.js";
import { unreadBodyDisposal } from "./http-rules.js";
import { byteLength, closeAfterAnswer, header, jsonRpcError } from "./http-wire.js";

/** A JSON-RPC error without id, with an HTTP status. */
export function fail(res: ServerResponse, status: number, code: number, message: string): void {
  const body = jsonRpcError(code, message);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": byteLength(body) });
  res.end(body);
}

export function answerError(res: ServerResponse, status: number, id: RequestId | undefined, code: number, message: string, data: unknown): void {
  const error: JsonObject = data === undefined ? { code, message } : { code, message, data: data as JsonObject };
  answerJson(res, status, id === undefined ? { jsonrpc: "2.0", error } : { jsonrpc: "2.0", id, error });
}

export function answerJson(res: ServerResponse, status: number, message: JsonObject): void {
  const body = JSON.stringify(message);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": byteLength(body) });
  res.end(body);
}

/** A body the host will not read: drained when declared within the limit (the connection stays usable), else left unread and the connection closed after the answer. */
export function ignoreBody(req: IncomingMessage, res: ServerResponse, limit: number): void {
  const disposal = unreadBodyDisposal(header(req, "content-length"), header(req, "transfer-encoding"), limit);
  if (disposal === "close") closeAfterAnswer(req, res);
  else req.resume();
}

export async function readBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<string | undefined> {
  const declared = Number(header(req, "content-length") ?? "0");
  if (declared > limit) {
    // Defect 10.5: never read what will be refused; answer and close.
    closeAfterAnswer(req, res);
    fail(res, 413, ErrorCode.InvalidRequest, `Request body over ${limit} bytes`);
    return undefined;
  }
  return new Promise<string | undefined>((resolve) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let refused = false;
    req.on("data", (chunk) => {
      if (refused) return;
      size += chunk.length;
      if (size > limit) {
        refused = true;
        chunks.length = 0;
        // Defect 10.5: stop reading (a chunked body may never end) and close once the 413 is out.
        closeAfterAnswer(req, res);
        fail(res, 413, ErrorCode.InvalidRequest, `Request body over ${limit} bytes`);
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (refused) return;
      const all = new Uint8Array(size);
      let offset = 0;
      for (const c of chunks) {
        all.set(c, offset);
        offset += c.length;
      }
      try {
        resolve(new TextDecoder("utf-8", { fatal: true }).decode(all));
      } catch {
        fail(res, 400, ErrorCode.ParseError, "Body is not UTF-8");
        resolve(undefined);
      }
    });
    req.on("error", () => resolve(undefined));
  });
}

/** The body parsed as JSON; undefined when it was refused (the answer is written). */
export async function readJson(req: IncomingMessage, res: ServerResponse, limit: number): Promise<{ value: unknown } | undefined> {
  const text = await readBody(req, res, limit);
  if (text === undefined) return undefined;
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    fail(res, 400, ErrorCode.ParseError, "Parse error");
    return undefined;
  }
}

