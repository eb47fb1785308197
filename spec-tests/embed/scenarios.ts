// The sessions the embedding tests run inside other JavaScript engines (QuickJS, Hermes) and
// in Node, to compare: each returns a transcript (plain strings), the same wherever it runs.
// Portable like the core: ECMAScript only, no Node import, no global beyond ECMAScript (no
// TextEncoder, no timers, no console), so the bundle made of it proves what the core needs.
//
// - coreSession: a client Engine and a server Engine in either era (initialize, or
//   server/discover), linked by values (pollOutbound → receiveMessage) or by bytes (takeBytes →
//   receiveBytes) cut at every kind of boundary; tools/list, tools/call with progress, a
//   cancellation, an inactivity deadline and a total deadline through handleTimeout(now).
// - peerSession: the peer layer's Server and Client linked in memory, time and timers supplied
//   by the script (ManualClock): the same steps through Promises, with typed rejections.
// - errorIdentity: every error class keeps instanceof and its name (an ES5 down-level loses the
//   prototype unless the class restores it; a minifier renames classes).

import { Engine, LocalProtocolError, type EngineEvent, type JsonObject } from "../../lib/index.js";
import {
  ConnectionClosedError,
  InputRoundsExceededError,
  InvalidResultError,
  ManualClock,
  McpError,
  PeerAbortController,
  PeerError,
  ProtocolMisuseError,
  RequestAbortedError,
  RequestTimeoutError,
  ResponseTooLargeError,
  Server,
  TaskCancelledError,
  TaskFailedError,
  HttpAuthError,
  HttpTransportError,
  linkInMemory,
  type HandlerContext,
} from "../../lib/peer/index.js";
import type { CallToolResult } from "../../lib/types/index.js";

/** How bytes cross: as values, or as the drained bytes cut at one kind of boundary. */
export type Link = "values" | "whole" | "every-byte" | "line-ends" | "inside-characters" | "odd-sizes";
export const LINKS: readonly Link[] = ["values", "whole", "every-byte", "line-ends", "inside-characters", "odd-sizes"];
export type Era = "session" | "modern";

const TEXT = 'héllo € 😀 "quoted" \\ \u0000 𐍈';
const CLIENT_INFO = { name: "embed-client", version: "1.0.0" };
const SERVER_INFO = { name: "embed-server", version: "1.0.0" };
const T0 = 1000;

/** `bytes` cut as `link` says: every chunk a view of it, in order, covering it. */
function cut(bytes: Uint8Array, link: Link): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let start = 0;
  const take = (end: number): void => {
    if (end > start) chunks.push(bytes.subarray(start, end));
    start = end;
  };
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (link === "every-byte") take(i + 1);
    // After "\n" (a line end), and between "\r" and "\n" when a line ends with both.
    else if (link === "line-ends" && (b === 0x0a || b === 0x0d)) take(i + 1);
    // After the lead byte of every multi-byte character, and after its second byte.
    else if (link === "inside-characters" && (b >= 0xc0 || (i > 0 && (bytes[i - 1] as number) >= 0xe0))) take(i + 1);
    else if (link === "odd-sizes" && (i + 1 - start === 7 || i + 1 - start === 13)) take(i + 1);
  }
  take(bytes.length);
  return chunks;
}

function describeEvent(side: string, e: EngineEvent): string {
  switch (e.kind) {
    case "request":
      return `${side} request ${e.method} ${JSON.stringify(e.params ?? null)}`;
    case "response":
      return `${side} response ${e.method} ${JSON.stringify(e.result)}`;
    case "progress":
      return `${side} progress ${e.method} ${e.progress}/${String(e.total)} ${String(e.message)}`;
    case "timeout":
      return `${side} timeout ${e.method} ${e.deadline}`;
    case "cancelled":
      return `${side} cancelled ${e.method} ${String(e.reason)}`;
    case "error-response":
      return `${side} error-response ${e.method} ${e.error.code}`;
    case "notification":
      return `${side} notification ${e.method}`;
    case "negotiated":
      return `${side} negotiated ${e.version}`;
    case "violation":
    case "diagnostic":
      return `${side} ${e.kind} ${e.rule} expected ${e.expected}; got ${e.got}`;
    case "closed":
      return `${side} closed ${e.reason}`;
    default:
      return `${side} ${e.kind}`;
  }
}

/** The server side's host: answers tools/list and tools/call, holds the "wait" calls it is told to. */
interface ServerHost {
  readonly held: (string | number)[];
}

function serveEvents(server: Engine, events: readonly EngineEvent[], host: ServerHost): void {
  for (const e of events) {
    if (e.kind !== "request") continue;
    if (e.method === "tools/list") {
      server.respond(e.id, {
        tools: [
          { name: "echo", inputSchema: { type: "object" } },
          { name: "wait", inputSchema: { type: "object" } },
        ],
      });
    } else if (e.method === "tools/call") {
      const params = e.params as { name?: string; arguments?: { text?: string } };
      if (params.name === "echo") {
        server.sendProgress(e.id, 1, 2, "half way");
        server.respond(e.id, { content: [{ type: "text", text: String(params.arguments?.text) }] });
      } else host.held.push(e.id);
    }
  }
}

/** One whole core session; its transcript. */
export function coreSession(era: Era, link: Link): string[] {
  const log: string[] = [];
  const modern = era === "modern";
  const client = new Engine({ role: "client", info: CLIENT_INFO, versions: modern ? ["2026-07-28"] : undefined });
  const server = new Engine({
    role: "server",
    info: SERVER_INFO,
    capabilities: { tools: {} },
    versions: modern ? ["2026-07-28"] : undefined,
  });
  const host: ServerHost = { held: [] };
  let now = T0;
  const events: EngineEvent[] = [];

  const move = (from: Engine, to: Engine): boolean => {
    let moved = false;
    if (link === "values") {
      for (let out = from.pollOutbound(); out !== undefined; out = from.pollOutbound()) {
        // A copy, as a host that posts messages between threads would hand over.
        to.receiveMessage(JSON.parse(JSON.stringify(out.message)), now);
        moved = true;
      }
      return moved;
    }
    const bytes = from.takeBytes();
    if (bytes === undefined) return false;
    for (const chunk of cut(bytes, link)) to.receiveBytes(chunk, now);
    return true;
  };
  const pump = (): void => {
    for (let turns = 0; turns < 50; turns++) {
      const a = move(client, server);
      events.length = 0;
      server.takeEvents(events);
      for (const e of events) log.push(describeEvent("server", e));
      serveEvents(server, events, host);
      const b = move(server, client);
      events.length = 0;
      client.takeEvents(events);
      for (const e of events) log.push(describeEvent("client", e));
      if (!a && !b) return;
    }
    log.push("pump did not settle");
  };

  if (modern) {
    client.startModern();
    client.request("server/discover");
  } else client.initialize();
  pump();
  log.push(`era ${client.era} ${String(client.negotiatedVersion)} phase ${client.phase}`);

  client.request("tools/list");
  pump();

  client.request("tools/call", { name: "echo", arguments: { text: TEXT } }, { progressToken: true });
  pump();

  const cancelled = client.request("tools/call", { name: "wait", arguments: {} });
  pump();
  client.cancel(cancelled, "no longer needed");
  pump();

  // Inactivity: nothing comes back, the deadline passes.
  client.request("tools/call", { name: "wait", arguments: {} }, { deadline: now + 100 });
  pump();
  log.push(`next deadline +${String((client.nextDeadline() ?? NaN) - T0)}`);
  client.handleTimeout(now + 99);
  pump();
  now += 100;
  client.handleTimeout(now);
  pump();

  // Total: progress keeps pushing the inactivity deadline back; the total one does not move.
  const start = now;
  client.request(
    "tools/call",
    { name: "wait", arguments: {} },
    { deadline: now + 100, totalDeadline: now + 150, resetOnProgressMs: 100, progressToken: true },
  );
  pump();
  const ticking = host.held[host.held.length - 1] as string | number;
  for (const at of [60, 120]) {
    now = start + at;
    client.handleTimeout(now);
    server.sendProgress(ticking, at, undefined, `tick ${at}`);
    pump();
    log.push(`next deadline +${String((client.nextDeadline() ?? NaN) - start)}`);
  }
  now = start + 150;
  client.handleTimeout(now);
  pump();

  log.push(`pending out ${client.pendingOutboundCount} in ${server.pendingInboundCount} held ${host.held.length}`);
  client.close();
  server.close();
  return log;
}

function text(result: CallToolResult): string {
  const first = result.content[0];
  return first !== undefined && first.type === "text" ? first.text : JSON.stringify(result);
}

function failure(error: unknown): string {
  if (!(error instanceof Error)) return `non-error ${String(error)}`;
  const kinds: string[] = [];
  if (error instanceof PeerError) kinds.push("PeerError");
  if (error instanceof McpError) kinds.push("McpError");
  if (error instanceof RequestTimeoutError) kinds.push(`RequestTimeoutError(${error.deadline})`);
  if (error instanceof RequestAbortedError) kinds.push("RequestAbortedError");
  if (error instanceof ProtocolMisuseError) kinds.push(`ProtocolMisuseError(${error.rule})`);
  if (error instanceof ConnectionClosedError) kinds.push("ConnectionClosedError");
  return `${error.name} [${kinds.join(" ")}]`;
}

/** The peer layer's Server and Client in memory, on the script's own clock; its transcript. */
export async function peerSession(era: Era): Promise<string[]> {
  const log: string[] = [];
  const modern = era === "modern";
  const server = new Server({ info: SERVER_INFO, versions: modern ? ["2026-07-28"] : undefined });
  server.tool("echo", { inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }, (args, ctx) => {
    ctx.progress(1, 2, "half way");
    return { content: [{ type: "text", text: String(args.text) }] };
  });
  let ticker: HandlerContext | undefined;
  server.tool("wait", {}, (_args, ctx) => {
    ticker = ctx;
    return new Promise<CallToolResult>((resolve) => {
      ctx.signal.addEventListener("abort", () => {
        log.push("server: wait aborted");
        resolve({ content: [] });
      });
    });
  });
  const clock = new ManualClock({ start: T0 });
  const link = linkInMemory(server, { info: CLIENT_INFO, versions: modern ? ["2026-07-28"] : undefined }, { clock });
  const connected = await link.client.connect();
  log.push(`connected ${connected.era} ${connected.version} ${connected.serverInfo.name}`);
  log.push(`tools ${(await link.client.listTools()).map((t) => t.name).join(",")}`);

  const progress: string[] = [];
  const echoed = await link.client.callTool(
    "echo",
    { text: TEXT },
    { onProgress: (p) => progress.push(`${p.progress}/${String(p.total)}`) },
  );
  log.push(`echo ${JSON.stringify(text(echoed))} progress ${progress.join(",")}`);

  const abort = new PeerAbortController();
  const aborted = link.client.callTool("wait", {}, { signal: abort.signal }).then(
    () => "resolved",
    (e: unknown) => failure(e),
  );
  await link.settle();
  abort.abort("no longer needed");
  log.push(`abort: ${await aborted}`);
  await link.settle();

  const inactive = link.client.callTool("wait", {}, { timeoutMs: 500 }).then(
    () => "resolved",
    (e: unknown) => failure(e),
  );
  await clock.advance(499);
  log.push(`armed ${String((link.clientTimer.armed ?? NaN) - clock.now)} ms ahead`);
  await clock.advance(1);
  log.push(`inactivity: ${await inactive}`);

  const capped = link.client
    .callTool("wait", {}, { timeoutMs: 100, resetTimeoutOnProgress: true, maxTotalMs: 250, onProgress: () => undefined })
    .then(
      () => "resolved",
      (e: unknown) => failure(e),
    );
  for (let i = 1; i <= 2; i++) {
    await clock.advance(80);
    ticker?.progress(i, undefined, `tick ${i}`);
  }
  await clock.advance(100);
  log.push(`total: ${await capped} at +${clock.now - T0}`);

  log.push(`unknown tool: ${await link.client.callTool("missing").then(() => "resolved", failure)}`);
  log.push(`misuse: ${await link.client.request("sampling/createMessage" as never, {} as never).then(() => "resolved", failure)}`);
  link.close();
  log.push(`after close: ${await link.client.listTools().then(() => "resolved", failure)}`);
  return log;
}

/** Each error class made directly: [name read, instanceof its class, of PeerError when it is one, of Error]. */
export function errorIdentity(): string[] {
  const made: [string, Error, Function][] = [
    ["LocalProtocolError", new LocalProtocolError({ rule: "M-03", expected: "an object", got: "array" }), LocalProtocolError],
    ["PeerError", new PeerError("x"), PeerError],
    ["McpError", new McpError(-32602, "bad"), McpError],
    ["RequestTimeoutError", new RequestTimeoutError("tools/call", 1, "total", 5), RequestTimeoutError],
    ["RequestAbortedError", new RequestAbortedError("tools/call", "why"), RequestAbortedError],
    ["ConnectionClosedError", new ConnectionClosedError("tools/call"), ConnectionClosedError],
    ["ResponseTooLargeError", new ResponseTooLargeError("tools/call", 10, 5), ResponseTooLargeError],
    ["InvalidResultError", new InvalidResultError("tools/call", "$", "object", "array"), InvalidResultError],
    ["InputRoundsExceededError", new InputRoundsExceededError("tools/call", 3), InputRoundsExceededError],
    ["HttpTransportError", new HttpTransportError("down", 502), HttpTransportError],
    ["HttpAuthError", new HttpAuthError(401, "https://example.test/mcp", undefined), HttpAuthError],
    ["ProtocolMisuseError", new ProtocolMisuseError({ rule: "M-03", expected: "x", got: "y" }), ProtocolMisuseError],
    ["TaskFailedError", new TaskFailedError("t1", -1, "failed"), TaskFailedError],
    ["TaskCancelledError", new TaskCancelledError("t1"), TaskCancelledError],
  ];
  return made.map(([name, error, Class]) => {
    const problems: string[] = [];
    if (error.name !== name) problems.push(`name ${JSON.stringify(error.name)}`);
    if (!(error instanceof Class)) problems.push("not instanceof its class");
    if (!(error instanceof Error)) problems.push("not instanceof Error");
    if (name !== "LocalProtocolError" && !(error instanceof PeerError)) problems.push("not instanceof PeerError");
    if (name === "HttpAuthError" && !(error instanceof HttpTransportError && (error as HttpAuthError).auth === error))
      problems.push("auth");
    if (String(error).indexOf(name) !== 0) problems.push(`toString ${String(error)}`);
    return `${name}: ${problems.length === 0 ? "ok" : problems.join(", ")}`;
  });
}

/** The error classes' own names (Function.name): a minifier renames them, which `name` must survive. */
export function classNames(): string[] {
  return [LocalProtocolError, PeerError, McpError, RequestTimeoutError, RequestAbortedError, ConnectionClosedError, HttpAuthError].map(
    (c) => c.name,
  );
}

/** What the running engine has of the Web APIs the core may use (reported, never required). */
export function probe(): JsonObject {
  const g = globalThis as { [name: string]: unknown };
  return {
    TextEncoder: typeof g.TextEncoder,
    TextDecoder: typeof g.TextDecoder,
    setTimeout: typeof g.setTimeout,
    hasOwn: typeof (Object as { hasOwn?: unknown }).hasOwn,
  };
}
