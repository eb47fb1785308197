// A node:http request as the portable endpoint reads it (HttpIncoming) and a node:http
// response as it writes to it (HttpReply). Carries bytes only: what to answer is the
// endpoint's (lib/http-server/), what to do with a body left unread is lib/http/server-rules.ts's.
//
// Invariants: a body is read only up to the limit; beyond it (declared or counted) reading
// stops and the connection is closed after the answer, unread (closeAfterAnswer); a body the
// endpoint does not want is drained only when declared within the limit; a body a parser in
// front already consumed (Express's req.body) is taken as it is, never read again.

import type { NodeIncomingMessage as IncomingMessage, NodeServerResponse as ServerResponse } from "./node-shapes.js";
import type { BodyRead, HttpIncoming, HttpReply } from "../http-server/channel.js";
import { decodeBody } from "../http-server/fetch.js";
import { unreadBodyDisposal } from "../http/server-rules.js";
import { closeAfterAnswer, header } from "./http-wire.js";

/** What Express and Connect add to a request: the mount path and a parsed body. */
interface FrameworkRequest {
  readonly baseUrl?: unknown;
  readonly body?: unknown;
  readonly readableEnded?: boolean;
}

export function nodeIncoming(req: IncomingMessage, res: ServerResponse, limit: number): HttpIncoming {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  const framework = req as IncomingMessage & FrameworkRequest;
  const base = typeof framework.baseUrl === "string" ? framework.baseUrl : "";
  let touched = false;
  const skip = (): void => {
    if (touched) return;
    touched = true;
    const disposal = unreadBodyDisposal(header(req, "content-length"), header(req, "transfer-encoding"), limit);
    if (disposal === "close" && !framework.readableEnded) closeAfterAnswer(req, res);
    else req.resume();
  };
  return {
    method: req.method ?? "GET",
    path: q < 0 ? url : url.slice(0, q),
    query: q < 0 ? "" : url.slice(q + 1),
    mounted: base !== "",
    base,
    header: (name) => header(req, name),
    skipBody: skip,
    readBody: (max) => {
      touched = true;
      // A body parser in front consumed the stream: what it made of the body is the body.
      if (framework.readableEnded === true && framework.body !== undefined) return Promise.resolve(parsedBody(framework.body));
      return readBody(req, res, max);
    },
  };
}

function parsedBody(body: unknown): BodyRead {
  if (typeof body === "string") return { kind: "text", text: body };
  if (body instanceof Uint8Array) return decodeBody([body], body.length);
  return { kind: "parsed", value: body };
}

function readBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<BodyRead> {
  if (Number(header(req, "content-length") ?? "0") > limit) {
    // LIM-09: never read what will be refused; answer and close.
    closeAfterAnswer(req, res);
    return Promise.resolve({ kind: "too-large" });
  }
  return new Promise<BodyRead>((resolve) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let done = false;
    req.on("data", (chunk) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        chunks.length = 0;
        // LIM-09: stop reading (a chunked body may never end) and close once the 413 is out.
        closeAfterAnswer(req, res);
        resolve({ kind: "too-large" });
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (done) return;
      done = true;
      resolve(decodeBody(chunks, size));
    });
    req.on("error", () => {
      if (!done) resolve({ kind: "aborted" });
      done = true;
    });
  });
}

/** A node:http response as the endpoint's reply. */
export function nodeReply(res: ServerResponse): HttpReply {
  return {
    get headSent() {
      return res.headersSent;
    },
    setHeader: (name, value) => {
      if (!res.headersSent) res.setHeader(name, value);
    },
    head: (status, headers) => {
      if (!res.headersSent) res.writeHead(status, headers);
    },
    flush: () => res.flushHeaders(),
    write: (text) => {
      res.write(text);
    },
    end: (text) => {
      if (text === undefined) res.end();
      else res.end(text);
    },
    onClose: (listener) => res.on("close", listener),
  };
}
