// The HTTP target's server and handler configuration: a seeded pick of versions, eras,
// limits, response mode, streams, legacy SSE, CORS and an authenticate hook, and a Server
// whose tools exercise every path of the handler (a slow tool on simulated time, one that
// logs and reports progress, one that asks the client, one that throws, one with a large
// answer, one with an Mcp-Param header), with a resource and a prompt.
//
// Invariants: built from the episode's Rng and SimClock only (session ids are seeded, the
// slow tool waits on simulated time and gives up when its request is cancelled).

import { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from "../../lib/http-server/index.js";
import { Server } from "../../lib/peer/server/server.js";
import { sealedRounds } from "../../lib/peer/server/round-sealing.js";
import type { ProtocolVersion } from "../../lib/rules/versions.js";
import type { Rng } from "./prng.js";
import { MODERN, SESSION_ERA, type HttpConfig } from "./http-requests.js";
import type { SimClock } from "./sim-clock.js";

export interface HttpSetup {
  readonly config: HttpConfig;
  readonly options: HttpHandlerOptions;
  readonly server: Server;
  readonly handler: HttpHandler;
  /** Tools registered mid-episode (a list change), to remove again. */
  readonly extras: Array<{ remove(): void }>;
  readonly describe: string;
}

const ALL = [...SESSION_ERA, MODERN] as const;

function pickVersions(rng: Rng): ProtocolVersion[] {
  const r = rng.int(10);
  let versions: string[];
  if (r < 3) versions = [...ALL];
  else if (r < 5) versions = ["2025-11-25", MODERN];
  else if (r < 7) versions = [rng.pick(ALL)];
  else versions = ALL.filter(() => rng.chance(0.5));
  if (versions.length === 0) versions = ["2025-11-25"];
  return versions as ProtocolVersion[];
}

function fixtureServer(rng: Rng, clock: SimClock, versions: ProtocolVersion[]): Server {
  const secret = new Uint8Array(32);
  for (let i = 0; i < 32; i++) secret[i] = rng.int(256);
  const server = new Server({
    info: { name: "fuzz-http", version: "1" },
    versions,
    ...(rng.chance(0.6) ? { inputRounds: sealedRounds({ secret }) } : {}),
    ...(rng.chance(0.5) ? { logging: true } : {}),
    ...(rng.chance(0.2) ? { limits: { maxPendingInbound: rng.pick([1, 4]), maxBatchLength: rng.pick([1, 2, 8]) } } : {}),
    ...(rng.chance(0.2) ? { maxConcurrentHandlers: rng.pick([1, 2]) } : {}),
  });
  server.tool("t", {}, (args) => ({ content: [{ type: "text", text: JSON.stringify(args).slice(0, 100) }] }));
  server.tool("slow", { inputSchema: { type: "object", properties: { ms: { type: "number" } } } }, async (args, ctx) => {
    ctx.progress(0, 1);
    await clock.sleep(typeof args.ms === "number" ? Math.min(args.ms, 600_000) : 50, ctx.signal);
    return { content: [{ type: "text", text: "slept" }] };
  });
  server.tool("chatty", { inputSchema: { type: "object", properties: { n: { type: "number" } } } }, async (args, ctx) => {
    const n = typeof args.n === "number" ? Math.min(args.n, 10) : 2;
    for (let i = 0; i < n; i++) {
      ctx.log("info", `step ${i}`);
      ctx.progress(i, n, "working");
    }
    return { content: [{ type: "text", text: "done" }] };
  });
  server.tool("ask", {}, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: "name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } });
    return { content: [{ type: "text", text: answer.action }] };
  });
  server.tool("sample", {}, async (_args, ctx) => {
    const answer = await ctx.createMessage({ messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 5 });
    return { content: [{ type: "text", text: String(answer.model) }] };
  });
  server.tool("boom", {}, () => {
    throw new Error("the fixture's tool failed");
  });
  server.tool("big", { inputSchema: { type: "object", properties: { n: { type: "number" } } } }, (args) => ({
    content: [{ type: "text", text: "x".repeat(typeof args.n === "number" ? Math.max(0, Math.min(args.n, 300_000)) : 10) }],
  }));
  server.tool(
    "echo",
    {
      inputSchema: {
        type: "object",
        properties: { region: { type: "string", "x-mcp-header": "Region" }, text: { type: "string" } },
      },
    },
    (args) => ({ content: [{ type: "text", text: `${String(args.region)}:${String(args.text)}` }] }),
  );
  server.resource("file:///a", { name: "a" }, () => ({ contents: [{ uri: "file:///a", text: "A" }] }));
  server.prompt("p", { arguments: [{ name: "topic" }] }, () => ({ messages: [{ role: "user", content: { type: "text", text: "p" } }] }));
  return server;
}

export function makeSetup(rng: Rng, clock: SimClock, onError: (error: unknown) => void): HttpSetup {
  const versions = pickVersions(rng);
  const hasModern = versions.includes(MODERN);
  const hasSession = versions.some((v) => v !== MODERN);
  const eras: HttpConfig["eras"] = hasModern
    ? hasSession
      ? rng.pick(["both", "both", "both", "session", "modern"])
      : rng.pick(["both", "modern"])
    : rng.pick(["both", "session"]);
  const maxBodyBytes = rng.pick([64, 512, 4096, 65_536, 65_536, 4 * 1024 * 1024, 4 * 1024 * 1024, 4 * 1024 * 1024]);
  const legacy = rng.chance(0.15);
  const corsOrigin = rng.chance(0.2) ? rng.pick(["https://app.example", "http://localhost:5173"]) : undefined;
  const auth = rng.chance(0.15);
  const path = rng.chance(0.85) ? "/mcp" : "/api/v1/mcp";
  let counter = 0;
  const tag = rng.u32().toString(16);
  const options: HttpHandlerOptions = {
    timers: clock.handlerTimers,
    onError,
    path,
    maxBodyBytes,
    sessionId: () => `fz-${tag}-${(counter++).toString(36)}`,
    ...(rng.chance(0.4) ? { maxSessions: rng.pick([1, 2, 5]) } : {}),
    ...(rng.chance(0.5) ? { sessionIdleMs: rng.pick([200, 1000, 60_000]) } : {}),
    ...(rng.chance(0.3) ? { responseMode: "sse" as const } : {}),
    ...(rng.chance(0.1) ? { getStream: false } : {}),
    ...(rng.chance(0.4) ? { keepAliveMs: rng.pick([0, 50, 1000]) } : {}),
    ...(rng.chance(0.3) ? { maxEventsPerStream: rng.pick([1, 3, 50]) } : {}),
    ...(rng.chance(0.2) ? { sseRetryMs: rng.pick([0, 10]) } : {}),
    ...(legacy ? { legacySse: true } : {}),
    ...(corsOrigin !== undefined ? { cors: { origins: [corsOrigin] } } : {}),
    eras,
  };
  if (auth) {
    const asynchronous = rng.chance(0.5);
    options.authenticate = (request) => {
      const ok = request.headers.get("authorization") === "Bearer fuzz-token";
      const verdict = ok
        ? { token: "fuzz-token", scopes: ["mcp"] }
        : new Response('{"error":"invalid_token"}', {
            status: 401,
            headers: { "WWW-Authenticate": 'Bearer error="invalid_token"', "Content-Type": "application/json" },
          });
      return asynchronous ? Promise.resolve(verdict) : verdict;
    };
  }
  const server = fixtureServer(rng, clock, versions);
  const handler = createHttpHandler(server, options);
  const config: HttpConfig = { versions, eras, path, maxBodyBytes, legacy, corsOrigin, auth };
  const shown = {
    ...options,
    timers: undefined,
    onError: undefined,
    sessionId: undefined,
    authenticate: auth ? "Bearer fuzz-token" : undefined,
  };
  return { config, options, server, handler, extras: [], describe: `${JSON.stringify(versions)} ${JSON.stringify(shown)}` };
}
