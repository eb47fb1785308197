// Hostile loopback HTTP servers for the bounds tests (auth-bounds*.test.ts, http-client-bounds):
// node:http on 127.0.0.1 at a port the system picks, each path answered by a handler the test
// gives, every request recorded (method, path, headers, body), and the bodies a test makes
// endless counted as they are written, so a test can tell how much the client let in before it
// closed the connection. Not a test file itself.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { TestContext } from "node:test";
import { after } from "./protected.js";

/** A request the site received, its body whole. */
export interface Seen {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface Site {
  readonly base: string;
  readonly seen: Seen[];
  /** The handlers by path (a Map: paths come from the client). A path without one gets 404. */
  readonly routes: Map<string, Handler>;
  /** Bytes an endless body had handed to the socket when the client closed it (or the writer gave up). */
  written: number;
  /** Resolves when the connection of the last endless or silent answer closed. */
  closed: Promise<void>;
  /** Requests whose connection the client closed before they were answered. */
  aborted: number;
}

/** A site on 127.0.0.1; closed (every connection with it) after the test. */
export async function site(t: TestContext, routes: ReadonlyArray<readonly [string, Handler]> = []): Promise<Site> {
  const state: Site = { base: "", seen: [], routes: new Map(routes), written: 0, closed: Promise.resolve(), aborted: 0 };
  const server = createServer((req, res) => {
    const chunks: Uint8Array[] = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const body = new TextDecoder().decode(concatAll(chunks));
      const path = req.url ?? "/";
      state.seen.push({ method: req.method ?? "", path, headers: req.headers, body });
      const handler = state.routes.get(path);
      if (handler === undefined) {
        res.writeHead(404, { "Content-Type": "text/plain" });
        res.end("not found");
        return;
      }
      handler(req, res, body);
    });
  });
  const port = await new Promise<number>((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : 0);
    });
  });
  (state as { base: string }).base = `http://127.0.0.1:${port}`;
  after(
    t,
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return state;
}

function concatAll(chunks: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const c of chunks) length += c.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** The most an endless body writes before it ends on its own (a client that reads everything still finishes). */
export const ENDLESS_CAP = 64 * 1024 * 1024;

/** A 200 JSON answer that starts like `head` and never ends: 64 KiB chunks as fast as the client takes them. */
export function endless(state: Site, head = '{"resource":"', status = 200): Handler {
  return (_req, res) => {
    const chunk = new Uint8Array(64 * 1024).fill(0x61);
    let open = true;
    state.closed = new Promise<void>((resolve) =>
      res.on("close", () => {
        open = false;
        resolve();
      }),
    );
    res.writeHead(status, { "Content-Type": "application/json" });
    res.write(head);
    const pump = (): void => {
      while (open) {
        if (state.written >= ENDLESS_CAP) {
          res.end();
          return;
        }
        state.written += chunk.length;
        if (!res.write(chunk)) return;
      }
    };
    res.on("drain", pump);
    pump();
  };
}

/** Accepts the request and never answers (`headers`: sends the status line and headers, then stalls the body). */
export function silent(state: Site, headers = false): Handler {
  return (_req, res) => {
    state.closed = new Promise<void>((resolve) =>
      res.on("close", () => {
        if (!res.writableEnded) state.aborted++;
        resolve();
      }),
    );
    if (headers) {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.write("{");
    }
  };
}

/** A JSON answer. */
export function json(value: unknown, status = 200, headers: { [name: string]: string } = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, { "Content-Type": "application/json", ...headers });
    res.end(JSON.stringify(value));
  };
}

/** A redirect to `location`. */
export function redirect(location: string, status = 307): Handler {
  return (_req, res) => {
    res.writeHead(status, { Location: location });
    res.end();
  };
}

/** The MCP endpoint of a protected server that refuses every request with a challenge naming `metadata`. */
export function challenge(metadata: string): Handler {
  return (_req, res) => {
    res.writeHead(401, { "WWW-Authenticate": `Bearer resource_metadata="${metadata}"`, "Content-Type": "application/json" });
    res.end(JSON.stringify({ error: "invalid_token" }));
  };
}

/** Authorization server metadata for `issuer` with its endpoints on the same origin. */
export function asMetadata(issuer: string, extra: { [key: string]: unknown } = {}): { [key: string]: unknown } {
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    registration_endpoint: `${issuer}/register`,
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["client_secret_post"],
    ...extra,
  };
}
