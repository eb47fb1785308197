// One client under test over Streamable HTTP, for one case of the client role (fixtures/FORMAT.md,
// "Client role", "Over Streamable HTTP"): the runner serves http://127.0.0.1:<port>/mcp, spawns
// the client's command with that URL appended as its last argument, and plays the server there.
// What the client POSTs is read message by message; what the runner writes goes out as SSE
// events: an answer to a request the client POSTed on that POST's stream (ended once all its
// requests are answered), anything else on the client's GET stream, else on an open POST stream,
// else it waits for the client to open one.
//
// Invariants: every body is read up to MAX_BODY bytes and within BODY_MS; every wait ends; the
// first transport rule the client breaks (HTTP-01 Accept, HTTP-03 session id, L-07 protocol
// version header) is kept and reported with the next message; after stop() nothing the client
// sends is recorded (it is answered 404) and every connection is closed.

import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { nodeIncoming } from "../../hosts/http-body.js";
import { caseEnvironment, LineInbox, stopClient, type ClientChannel, type ClientTargetOptions } from "./client-target.js";
import type { Received } from "./target.js";
import { isProtocolVersion, SCHEMA_RELEASES, VERSION_PROFILES } from "../../rules/versions.js";

/** L-07: a client of this version names it in MCP-Protocol-Version on every request after initialize. */
const sendsVersionHeader = (version: string): boolean =>
  isProtocolVersion(version) && VERSION_PROFILES[version].index >= VERSION_PROFILES[SCHEMA_RELEASES.versionHeader].index;

/** The largest body read from the client: a longer one is refused (413) and reported malformed. */
const MAX_BODY = 4 * 1024 * 1024;
/** The longest a body may take to arrive whole. */
const BODY_MS = 5000;
/** The longest the runner waits for an HTTP client to exit once the case is over: it has no stdin to see close. */
const EXIT_MS = 500;
const ENDPOINT = "/mcp";

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const idKey = (id: unknown): string => JSON.stringify(id);
const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);
const isRequest = (m: unknown): m is Record<string, unknown> => isRecord(m) && typeof m.method === "string" && Object.hasOwn(m, "id");
const isResponse = (m: unknown): m is Record<string, unknown> => isRecord(m) && !Object.hasOwn(m, "method") && Object.hasOwn(m, "id");
const headerOf = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** An answer with no body. */
function answerEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, headers);
  res.end();
}

/** An SSE answer to a POST, open until each request it carried is answered. */
interface PostStream {
  readonly res: ServerResponse;
  readonly pending: Set<string>;
}

export class ClientHttpTarget implements ClientChannel {
  private child: ChildProcess | undefined;
  private readonly inbox = new LineInbox();
  private ended = false;
  private serverEnded = false;
  private getStream: ServerResponse | undefined;
  private readonly posts: PostStream[] = [];
  /** What the runner wrote while no stream could carry it, in order. */
  private readonly queued: string[] = [];
  private readonly initializeIds = new Set<string>();
  private readonly sessionId: string;
  private sessionIssued = false;
  /** The version of the initialize result the runner sent. */
  private negotiated: string | undefined;
  /** The client has sent notifications/initialized: from its next request on, L-07 holds. */
  private initialized = false;
  private broken: { rule: string; reason: string } | undefined;

  private constructor(
    private readonly server: Server,
    port: number,
  ) {
    this.sessionId = `mcp-conform-${port}`;
  }

  get exited(): boolean {
    return this.ended;
  }
  get heardFrom(): boolean {
    return this.inbox.heardFrom;
  }
  get canWrite(): boolean {
    return this.inbox.heardFrom && !this.serverEnded && !this.ended;
  }
  get reachesClient(): boolean {
    return this.canWrite && (this.getStream !== undefined || this.posts.length > 0);
  }

  /** Serves the endpoint, then spawns the client with its URL; a string when no loopback port could be opened. */
  static async start(options: ClientTargetOptions): Promise<ClientHttpTarget | string> {
    let target: ClientHttpTarget | undefined;
    const server = createServer((req, res) => {
      if (target === undefined) answerEmpty(res, 503);
      // A client that hangs up mid-answer must not take the runner down: its connection just ends.
      else target.handle(req, res).catch(() => res.destroy());
    });
    server.requestTimeout = BODY_MS;
    const listening = await new Promise<string | undefined>((resolve) => {
      server.once("error", (error) => resolve(error.message));
      server.listen(0, "127.0.0.1", () => resolve(undefined));
    });
    if (listening !== undefined) return `cannot listen on a loopback port: ${listening}`;
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    const started = new ClientHttpTarget(server, port);
    target = started;
    const env = { ...caseEnvironment(options), MCP_CONFORM_URL: `http://127.0.0.1:${port}${ENDPOINT}` };
    const child = spawn(options.command, [...options.args, env.MCP_CONFORM_URL], { stdio: ["ignore", "ignore", "pipe"], env });
    started.child = child;
    child.stderr.on("data", (chunk) => options.stderr?.(new TextDecoder().decode(chunk)));
    child.on("error", () => started.end());
    child.on("close", () => started.end());
    return started;
  }

  private end(): void {
    this.ended = true;
    this.inbox.close();
  }

  private breaks(rule: string, reason: string): void {
    this.broken ??= { rule, reason };
  }

  /** The transport rules every request after the handshake is held to. */
  private checkHeaders(req: IncomingMessage, carriesInitialize: boolean): void {
    const what = `${req.method ?? "?"} ${req.url ?? ""}`;
    if (this.sessionIssued && !carriesInitialize) {
      const session = headerOf(req, "mcp-session-id");
      if (session !== this.sessionId)
        this.breaks(
          "HTTP-03",
          `${what}: expected Mcp-Session-Id ${this.sessionId} (assigned with the initialize result), got ${session === undefined ? "none" : JSON.stringify(session.slice(0, 100))}`,
        );
    }
    const version = this.negotiated;
    if (this.initialized && version !== undefined && sendsVersionHeader(version) && !carriesInitialize) {
      const sent = headerOf(req, "mcp-protocol-version");
      if (sent !== version)
        this.breaks(
          "L-07",
          `${what}: expected MCP-Protocol-Version ${version} (the negotiated version), got ${sent === undefined ? "none" : JSON.stringify(sent.slice(0, 100))}`,
        );
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0];
    if (this.serverEnded || path !== ENDPOINT) {
      answerEmpty(res, 404);
      req.resume();
      return;
    }
    if (req.method === "GET") {
      this.checkHeaders(req, false);
      this.openGet(res);
      return;
    }
    if (req.method === "DELETE") {
      this.checkHeaders(req, false);
      answerEmpty(res, 200);
      return;
    }
    if (req.method !== "POST") {
      answerEmpty(res, 405, { Allow: "GET, POST, DELETE" });
      req.resume();
      return;
    }
    await this.post(req, res);
  }

  private openGet(res: ServerResponse): void {
    // One GET stream at a time: a newer one (a reconnection) takes over.
    this.getStream?.end();
    res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
    res.flushHeaders();
    this.getStream = res;
    res.on("close", () => {
      if (this.getStream === res) this.getStream = undefined;
    });
    this.flushQueued();
  }

  private async post(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const accept = (headerOf(req, "accept") ?? "").toLowerCase();
    if (!accept.includes("application/json") || !accept.includes("text/event-stream"))
      this.breaks(
        "HTTP-01",
        `POST: expected an Accept listing application/json and text/event-stream, got ${JSON.stringify(accept.slice(0, 200))}`,
      );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<{ kind: "late" }>((resolve) => (timer = setTimeout(() => resolve({ kind: "late" }), BODY_MS)));
    const body = await Promise.race([nodeIncoming(req, res, MAX_BODY).readBody(MAX_BODY), late]);
    clearTimeout(timer);
    if (this.serverEnded) {
      answerEmpty(res, 404);
      return;
    }
    if (body.kind !== "text" && body.kind !== "parsed") {
      const what =
        body.kind === "too-large" ? `a POST body over ${MAX_BODY} bytes` : `a POST body that did not arrive whole (${body.kind})`;
      this.inbox.add({ kind: "malformed", line: what });
      answerEmpty(res, body.kind === "too-large" ? 413 : 400);
      if (body.kind === "late") req.destroy();
      return;
    }
    let value: unknown;
    const text = body.kind === "text" ? body.text : JSON.stringify(body.value);
    try {
      value = body.kind === "text" ? (JSON.parse(text) as unknown) : body.value;
    } catch {
      this.inbox.add({ kind: "malformed", line: text });
      res.writeHead(400, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }));
      return;
    }
    const messages = asList(value);
    const requests = messages.filter(isRequest);
    const carriesInitialize = requests.some((m) => m.method === "initialize");
    this.checkHeaders(req, carriesInitialize);
    if (messages.some((m) => isRecord(m) && m.method === "notifications/initialized")) this.initialized = true;
    if (requests.length === 0) {
      answerEmpty(res, 202);
    } else {
      for (const m of requests) if (m.method === "initialize") this.initializeIds.add(idKey(m.id));
      const head: Record<string, string> = { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" };
      if (carriesInitialize) head["Mcp-Session-Id"] = this.sessionId;
      res.writeHead(200, head);
      res.flushHeaders();
      if (carriesInitialize) this.sessionIssued = true;
      const stream: PostStream = { res, pending: new Set(requests.map((m) => idKey(m.id))) };
      this.posts.push(stream);
      res.on("close", () => {
        const at = this.posts.indexOf(stream);
        if (at >= 0) this.posts.splice(at, 1);
      });
    }
    const entry: Received = { kind: "message", value, line: text };
    this.inbox.add(entry);
    this.flushQueued();
  }

  private flushQueued(): void {
    while (this.queued.length > 0 && (this.getStream !== undefined || this.posts.length > 0)) this.route(this.queued.shift() as string);
  }

  /** One message of the runner's to the stream that carries it (see the file's head). */
  private route(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line) as unknown;
    } catch {
      return;
    }
    const answers = asList(value).filter(isResponse);
    for (const m of answers)
      if (this.initializeIds.has(idKey(m.id)) && isRecord(m.result) && typeof m.result.protocolVersion === "string")
        this.negotiated = m.result.protocolVersion;
    const event = `event: message\ndata: ${line}\n\n`;
    const post = this.posts.find((p) => answers.some((m) => p.pending.has(idKey(m.id))));
    if (post !== undefined) {
      post.res.write(event);
      for (const m of answers) post.pending.delete(idKey(m.id));
      if (post.pending.size === 0) {
        this.posts.splice(this.posts.indexOf(post), 1);
        post.res.end();
      }
      return;
    }
    const stream = this.getStream ?? this.posts[0]?.res;
    if (stream === undefined) this.queued.push(line);
    else stream.write(event);
  }

  write(bytes: Uint8Array | string): void {
    if (this.serverEnded) return;
    const text = typeof bytes === "string" ? bytes : new TextDecoder().decode(bytes);
    for (const line of text.split("\n")) if (line.trim() !== "") this.route(line);
  }

  /** The server goes away: every stream ends; later requests are answered 404 and not recorded. */
  closeStdin(): void {
    if (this.serverEnded) return;
    this.serverEnded = true;
    this.getStream?.end();
    for (const post of this.posts.splice(0)) post.res.end();
  }

  next(ms: number): Promise<Received | undefined> {
    return this.inbox.next(ms);
  }

  unshift(entry: Received): void {
    this.inbox.unshift(entry);
  }

  violation(): { readonly rule: string; readonly reason: string } | undefined {
    return this.broken;
  }

  stranded(): string | undefined {
    if (this.queued.length === 0) return undefined;
    return "a client that opens the GET stream (HTTP-06): the server's requests and notifications had no stream to reach it";
  }

  async stop(ms: number): Promise<void> {
    this.closeStdin();
    await stopClient(this.child, Math.min(ms, EXIT_MS));
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
