// One episode of the HTTP target: a seeded handler (http-fixture.ts) driven through fetch()
// with Web Request objects by a client model (http-requests.ts) — POSTs of both eras, GET
// streams opened, resumed and dropped, DELETEs, other methods and paths, bodies given whole
// or streamed in random chunks that stall or break, requests aborted — while simulated time
// advances (sim-clock.ts) and the server's tools change. Then the handler is closed.
//
// Oracle (besides http-oracle.ts on every answer): fetch() never throws or rejects and
// onError is never called; no 500; a body over maxBodyBytes gets 413 once nothing before the
// read refuses it, and 413 is never given to a smaller one; an accepted initialize, and no
// other answer, carries a visible-ASCII Mcp-Session-Id; the answers on a POST carry its
// request ids only; after every step the sessions, their streams and backlogs, the exchanges,
// the stores and the handler's pending timers stay within their bounds; after close() nothing
// is left (no session, exchange, store entry or timer), every request not aborted was answered
// and every response stream has ended; no unhandled rejection. An input call is one request
// given to fetch().
//
// Invariants: an episode is a function of its seed (seeded Rng, simulated time, seeded session
// ids); the first failure ends it and is returned with the trace of the steps before it.

import type { HttpHandler } from "../../lib/http-server/index.js";
import { MemoryEventStore, MemorySessionStore } from "../../lib/http-server/index.js";
import { loadCorpus } from "./corpus.js";
import { makeSetup } from "./http-fixture.js";
import { bodyProblem, SseChecker, TABLE_STATUSES } from "./http-oracle.js";
import { HttpWorld, MODERN, type RequestSpec } from "./http-requests.js";
import type { Failure } from "./oracle.js";
import { Rng } from "./prng.js";
import { settle, SimClock } from "./sim-clock.js";

export interface TargetResult {
  readonly seed: number;
  readonly inputCalls: number;
  readonly steps: number;
  readonly config: string;
  readonly failure: (Failure & { step: number; trace: string[] }) | undefined;
  /** What the episode reached (answers by status, SSE answers, sessions minted, ...), for the totals and the bounded test. */
  readonly coverage: ReadonlyMap<string, number>;
}

export interface HttpEpisodeOptions {
  /** Most steps in the main phase (default 40). */
  maxSteps?: number;
}

/** Text bodies are kept up to this many characters for the checks (a larger one is only counted). */
const BODY_CAP = 4 * 1024 * 1024;

class Gate {
  released: "finish" | "error" | undefined;
  private open!: () => void;
  readonly promise = new Promise<void>((resolve) => {
    this.open = resolve;
  });
  release(mode: "finish" | "error"): void {
    if (this.released !== undefined) return;
    this.released = mode;
    this.open();
  }
}

interface Exchange {
  readonly n: number;
  readonly spec: RequestSpec;
  resolved: boolean;
  status: number | undefined;
  finished: boolean;
  dropped: boolean;
  aborted: boolean;
  reader: { cancel(): Promise<void> } | undefined;
  gate: Gate | undefined;
  abort: { readonly signal: unknown; abort(): void } | undefined;
  /** The chunk at which the fuzzer broke the request body (a released stall). */
  brokeAt: number | undefined;
  sessionId: string | undefined;
}

function errorText(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message).split("\n").slice(0, 6).join("\n") : String(error);
}

let current: Episode | undefined;
let hooked = false;

function hookRejections(): void {
  if (hooked) return;
  hooked = true;
  process.on("unhandledRejection", (reason) => {
    if (current !== undefined) current.fail("unhandled-rejection", errorText(reason));
    else console.error(`fuzz: unhandled rejection outside an episode: ${errorText(reason)}`);
  });
}

class Episode {
  failure: Failure | undefined;
  readonly trace: string[] = [];
  step = 0;
  fail(kind: string, detail: string): void {
    if (this.failure === undefined) this.failure = { kind, detail };
  }
  note(line: string): void {
    if (process.env.FUZZ_DEBUG === "1") console.log(`#${this.step} ${line.slice(0, 400)}`);
    this.trace.push(`#${this.step} ${line}`);
    if (this.trace.length > 40) this.trace.shift();
  }
}

function headerOf(spec: RequestSpec, name: string): string | undefined {
  return spec.headers.find(([k]) => k === name)?.[1];
}

export async function runHttpEpisode(seed: number, opts: HttpEpisodeOptions = {}): Promise<TargetResult> {
  hookRejections();
  const rng = new Rng(seed);
  const clock = new SimClock();
  const ep = new Episode();
  current = ep;
  const setup = makeSetup(rng, clock, (error) => ep.fail("on-error", errorText(error)));
  const handler: HttpHandler = setup.handler;
  const endpoint = handler.endpoint;
  const world = new HttpWorld(rng, setup.config, loadCorpus());
  const limit = setup.config.maxBodyBytes;
  const exchanges: Exchange[] = [];
  let inputCalls = 0;
  const coverage = new Map<string, number>();
  const reached = (what: string): void => {
    coverage.set(what, (coverage.get(what) ?? 0) + 1);
  };

  const expects413 = (ex: Exchange): boolean => {
    const s = ex.spec;
    if (!s.reachesRead || s.body === undefined) return false;
    const declared = headerOf(s, "content-length");
    if (declared !== undefined && Number(declared) > limit) return true;
    const b = s.body;
    let breakAt = Number.POSITIVE_INFINITY;
    if (b.as === "stream") {
      if (b.errorAt !== undefined) breakAt = b.errorAt;
      if (ex.brokeAt !== undefined) breakAt = Math.min(breakAt, ex.brokeAt);
    }
    const delivered = breakAt === Number.POSITIVE_INFINITY ? b.bytes.length : breakAt === 0 ? 0 : (b.cuts[breakAt - 1] as number);
    return delivered > limit;
  };

  /** The answers to a POST carry its requests' ids only (or none): an answer routed to the wrong POST shows here. */
  const checkIds = (ex: Exchange, value: unknown, sse: boolean): void => {
    const spec = ex.spec;
    if (!spec.idsKnown || spec.method !== "POST" || spec.target.startsWith("/messages")) return;
    for (const m of Array.isArray(value) ? value : [value]) {
      if (typeof m !== "object" || m === null || Array.isArray(m) || "method" in m) continue;
      const id = (m as { id?: unknown }).id;
      if (id === undefined || id === null) continue;
      if (!spec.ids.includes(id as string | number) || (!sse && !Array.isArray(value) && spec.single && id !== spec.ids[0]))
        ep.fail(
          "foreign-answer",
          `the answer to #${ex.n} ${spec.what} carries id ${JSON.stringify(id)}, not one of ${JSON.stringify(spec.ids)}`,
        );
    }
  };

  const learnMessage = (ex: Exchange, data: string, sse: boolean): void => {
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      return;
    }
    checkIds(ex, value, sse);
    for (const m of (Array.isArray(value) ? value : [value]).slice(0, 20)) {
      const o = m as { method?: unknown; id?: unknown; result?: unknown; error?: { code?: unknown } };
      if (typeof o?.method === "string") reached(`${o.id === undefined ? "notification" : "server request"} ${o.method}`);
      else if (o?.result !== undefined) reached(`${ex.spec.sent !== undefined ? "2026-07-28 " : ""}result`);
      else if (o?.error !== undefined) reached(`error ${String(o.error?.code)}`);
    }
    const m = value as { id?: unknown; result?: { protocolVersion?: unknown } };
    if (ex.spec.isInitialize && ex.sessionId !== undefined && typeof m?.result?.protocolVersion === "string")
      world.minted(ex.sessionId, m.result.protocolVersion);
    world.learn(ex.sessionId, value, ex.spec.sent as { method: string; params: never } | undefined);
  };

  const consume = async (ex: Exchange, res: Response): Promise<void> => {
    const contentType = res.headers.get("content-type");
    const sse = (contentType ?? "").startsWith("text/event-stream");
    const checker = sse ? new SseChecker(ex.spec.resume?.seq ?? -1, ex.spec.resume?.stream) : undefined;
    if (sse) reached(ex.spec.resume !== undefined ? "resumed stream" : "sse answer");
    if (sse && ex.status !== 200) ep.fail("bad-sse-status", `an SSE answer with status ${ex.status} to ${ex.spec.what}`);
    const body = res.body;
    let text = "";
    let cut = false;
    if (body !== null) {
      const reader = body.getReader();
      ex.reader = reader;
      const decoder = new TextDecoder();
      let seen = 0;
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          const chunk = decoder.decode(value, { stream: true });
          if (checker !== undefined) {
            const problem = checker.feed(chunk);
            if (problem !== undefined) ep.fail("sse-framing", `${problem}\n  in the answer to #${ex.n} ${ex.spec.what}`);
            for (; seen < checker.frames.length; seen++) {
              const frame = checker.frames[seen]!;
              if (frame.event === "endpoint" && frame.data !== undefined) world.legacyUris.add(frame.data);
              if (frame.id !== undefined && ex.sessionId !== undefined) world.eventIds.add({ session: ex.sessionId, id: frame.id });
              if (frame.data !== undefined && frame.data !== "" && frame.event !== "endpoint") learnMessage(ex, frame.data, true);
            }
            if (checker.frames.length > 256) {
              // A long stream: the frames were learned from; only the checker's state (stream, last id) is needed.
              checker.frames.length = 0;
              seen = 0;
            }
          } else if (!cut) {
            text += chunk;
            if (text.length > BODY_CAP) {
              cut = true;
              text = "";
            }
          }
        }
      } catch (error) {
        ex.finished = true;
        if (!ex.dropped && !ex.aborted) ep.fail("body-errored", `the answer to #${ex.n} ${ex.spec.what} errored: ${errorText(error)}`);
        return;
      }
    }
    ex.finished = true;
    if (ex.dropped || ex.aborted) return;
    ep.note(`  #${ex.n} body ended${checker !== undefined ? " (sse)" : `: ${text.slice(0, 200)}`}`);
    const problem =
      checker !== undefined
        ? checker.end()
        : bodyProblem({
            status: ex.status as number,
            method: ex.spec.method,
            contentType,
            text: cut ? undefined : text,
            fromAuthHook: setup.config.auth && ex.status === 401,
          });
    if (problem !== undefined) ep.fail("bad-body", `${problem}\n  in the answer (${ex.status}) to #${ex.n} ${ex.spec.what}`);
    if (checker === undefined && !cut && text !== "") learnMessage(ex, text, false);
  };

  const answered = (ex: Exchange, res: Response): void => {
    ex.resolved = true;
    const status = res.status;
    ex.status = status;
    const spec = ex.spec;
    ep.note(`  #${ex.n} → ${status} ${res.headers.get("content-type") ?? ""}`);
    reached(`status ${status}`);
    if (status === 500) ep.fail("internal-500", `500 for #${ex.n} ${spec.what}`);
    else if (!TABLE_STATUSES.has(status) && !(setup.config.auth && status === 401))
      ep.fail("status-not-in-table", `status ${status} for #${ex.n} ${spec.what}`);
    if (status === 413 && !spec.oversize) ep.fail("413-not-oversize", `413 for #${ex.n} ${spec.what}, whose body is within ${limit} bytes`);
    // A body that stalls before its size shows may meet its read deadline first (LIM-11, 408) or be cut by close() (400).
    const cutWhileStalled = ex.spec.body?.stallAfter !== undefined && (status === 408 || status === 400);
    if (status !== 413 && !cutWhileStalled && expects413(ex))
      ep.fail(
        "oversize-not-413",
        `status ${status} for #${ex.n} ${spec.what}, a body over ${limit} bytes that nothing refused before reading`,
      );
    if (spec.oversize && status < 400)
      ep.fail("oversize-accepted", `status ${status} for #${ex.n} ${spec.what}, a body over ${limit} bytes`);
    const sid = res.headers.get("mcp-session-id");
    // HTTP-03: an initialize the server accepts mints a session; no other answer carries an id.
    if (spec.isInitialize && spec.idsKnown && status === 200 && sid === null)
      ep.fail("initialize-without-session", `200 without Mcp-Session-Id for #${ex.n} ${spec.what}`);
    const mayInitialize = (): boolean =>
      spec.body !== undefined && /"method"\s*:\s*"initialize"/.test(new TextDecoder().decode(spec.body.bytes));
    if (sid !== null && !(status === 200 && mayInitialize()))
      ep.fail("stray-session-id", `Mcp-Session-Id ${JSON.stringify(sid)} on a ${status} to #${ex.n} ${spec.what}`);
    if (sid !== null && !/^[\x21-\x7e]+$/.test(sid))
      ep.fail("bad-session-id", `Mcp-Session-Id ${JSON.stringify(sid)} is not visible ASCII (HTTP-05)`);
    if (spec.isInitialize && status === 200 && sid !== null) {
      ex.sessionId = sid;
      reached("session minted");
      world.minted(sid, (spec.sent?.params as { protocolVersion?: string } | undefined)?.protocolVersion ?? "2025-11-25");
    }
    if (spec.method === "DELETE" && status === 200 && spec.sessionId !== undefined) world.ended(spec.sessionId);
    if (status === 404 && spec.sessionId !== undefined && !spec.isInitialize) world.ended(spec.sessionId);
    consume(ex, res).catch((error: unknown) => ep.fail("fuzzer-error", errorText(error)));
  };

  // Pulled only when the handler reads (highWaterMark 0), so a stall holds the reader, not the constructor.
  const Stream = ReadableStream as unknown as new (
    source: { pull(controller: ReadableStreamController): Promise<void> },
    strategy: { highWaterMark: number },
  ) => ReadableStream;
  const bodyStream = (ex: Exchange): ReadableStream => {
    const b = ex.spec.body!;
    let i = 0;
    return new Stream(
      {
        pull: async (controller) => {
          if (b.stallAfter !== undefined && i === b.stallAfter && ex.gate !== undefined) {
            await ex.gate.promise;
            if (ex.gate.released === "error") {
              ex.brokeAt = i;
              controller.error(new Error("fuzz: the client's body broke off"));
              return;
            }
          }
          if (b.errorAt !== undefined && i === b.errorAt) {
            controller.error(new Error("fuzz: the client's body errored"));
            return;
          }
          if (i >= b.cuts.length) {
            controller.close();
            return;
          }
          controller.enqueue(b.bytes.slice(i === 0 ? 0 : (b.cuts[i - 1] as number), b.cuts[i]));
          i++;
        },
      },
      { highWaterMark: 0 },
    );
  };

  const send = async (spec: RequestSpec): Promise<void> => {
    const ex: Exchange = {
      n: exchanges.length,
      spec,
      resolved: false,
      status: undefined,
      finished: false,
      dropped: false,
      aborted: false,
      reader: undefined,
      gate: spec.body?.stallAfter !== undefined ? new Gate() : undefined,
      abort: spec.abortable ? new AbortController() : undefined,
      brokeAt: undefined,
      sessionId: spec.sessionId,
    };
    let request: Request;
    try {
      const b = spec.body;
      const body =
        b === undefined ? undefined : b.as === "string" ? new TextDecoder().decode(b.bytes) : b.as === "bytes" ? b.bytes : bodyStream(ex);
      // A string body is the bytes decoded (invalid UTF-8 becomes U+FFFD): the oracle reads the same bytes.
      const init: {
        method: string;
        headers: [string, string][];
        body?: string | Uint8Array | ReadableStream;
        duplex?: "half";
        signal?: unknown;
      } = { method: spec.method, headers: spec.headers as [string, string][] };
      if (body !== undefined) init.body = body;
      if (b?.as === "stream") init.duplex = "half";
      if (ex.abort !== undefined) init.signal = ex.abort.signal;
      request = new Request(`http://localhost${spec.target}`, init);
    } catch (error) {
      // Not a request a client can make (a header value fetch refuses): nothing was sent.
      ep.note(`(not sent: ${spec.what}: ${error instanceof Error ? error.message : String(error)})`);
      return;
    }
    if (spec.body?.as === "string") {
      // What goes on the wire is the UTF-8 of the decoded string; measure that.
      const bytes = new TextEncoder().encode(new TextDecoder().decode(spec.body.bytes));
      if (bytes.length !== spec.body.bytes.length) {
        const oversize = bytes.length > limit || Number(headerOf(spec, "content-length")) > limit;
        (ex as { spec: RequestSpec }).spec = { ...spec, oversize, body: { ...spec.body, bytes } };
      }
    }
    exchanges.push(ex);
    ep.note(`#${ex.n} ${spec.what} ${JSON.stringify(spec.headers).slice(0, 300)}`);
    for (const id of spec.ids) world.inFlight.add({ session: spec.sessionId, id });
    inputCalls++;
    let promise: Promise<Response>;
    try {
      promise = handler.fetch(request);
    } catch (error) {
      ep.fail("fetch-threw", `fetch() threw for #${ex.n} ${spec.what}: ${errorText(error)}`);
      return;
    }
    promise.then(
      (res) => answered(ex, res),
      (error: unknown) => ep.fail("fetch-rejected", `fetch() rejected for #${ex.n} ${spec.what}: ${errorText(error)}`),
    );
    await settle();
  };

  const tick = async (ms: number): Promise<void> => {
    ep.note(`time +${ms} → ${clock.time + ms}`);
    if (!(await clock.advance(ms)))
      ep.fail("timer-storm", `a timer storm within ${ms} ms: over 1000 timers due at one instant, or a million in all`);
    if (clock.thrown.length > 0) ep.fail("timer-threw", errorText(clock.thrown[0]));
  };

  const checkBounds = (): void => {
    const legacy = endpoint.legacy?.sessions.size ?? 0;
    const sessions = endpoint.sessions.size;
    const max = endpoint.options.maxSessions;
    if (sessions + legacy > max) ep.fail("sessions-over-limit", `${sessions} + ${legacy} legacy sessions open, maxSessions ${max}`);
    const timers = clock.pending("handler");
    // Each request not yet answered may hold its body read's deadline (LIM-11) beside what sessions and exchanges hold.
    const reading = exchanges.filter((e) => !e.resolved).length;
    const bound = 2 * (sessions + endpoint.exchanges.size) + legacy + reading;
    if (timers > bound)
      ep.fail(
        "timers-unbounded",
        `${timers} handler timers pending for ${sessions} sessions, ${endpoint.exchanges.size} exchanges, ${legacy} legacy sessions`,
      );
    for (const session of endpoint.sessions.values()) {
      if (session.backlog.length > 1000) ep.fail("backlog-unbounded", `session ${session.id} holds ${session.backlog.length} messages`);
      let open = 0;
      for (const s of session.streams.values()) if (s.open) open++;
      if (session.streams.size - open > 100)
        ep.fail("streams-unbounded", `session ${session.id} keeps ${session.streams.size - open} ended streams`);
    }
    const unfinished = exchanges.filter((e) => !e.finished).length;
    if (endpoint.exchanges.size > unfinished)
      ep.fail("exchanges-leak", `${endpoint.exchanges.size} 2026-07-28 exchanges for ${unfinished} requests still open`);
    const store = endpoint.options.store;
    if (store instanceof MemorySessionStore && store.size > sessions)
      ep.fail("session-store-leak", `the session store keeps ${store.size} sessions, ${sessions} open`);
    const events = endpoint.options.eventStore;
    if (events instanceof MemoryEventStore && events.size > sessions)
      ep.fail("event-store-leak", `the event store keeps events of ${events.size} sessions, ${sessions} open`);
  };

  const checkClosed = (): void => {
    const left: string[] = [];
    if (endpoint.sessions.size > 0) left.push(`${endpoint.sessions.size} sessions`);
    if (endpoint.exchanges.size > 0) left.push(`${endpoint.exchanges.size} exchanges`);
    if ((endpoint.legacy?.sessions.size ?? 0) > 0) left.push(`${endpoint.legacy?.sessions.size} legacy sessions`);
    if (setup.server.sessions.size > 0) left.push(`${setup.server.sessions.size} server sessions`);
    if (clock.pending("handler") > 0) left.push(`${clock.pending("handler")} handler timers`);
    const store = endpoint.options.store;
    if (store instanceof MemorySessionStore && store.size > 0) left.push(`${store.size} stored sessions`);
    const events = endpoint.options.eventStore;
    if (events instanceof MemoryEventStore && events.size > 0) left.push(`events of ${events.size} sessions`);
    if (left.length > 0) ep.fail("close-leaves", `after close(): ${left.join(", ")}`);
  };

  let extraTools = 0;
  const pick = <T>(items: T[]): T | undefined => (items.length === 0 ? undefined : rng.pick(items));

  try {
    const steps = rng.range(3, opts.maxSteps ?? 40);
    for (ep.step = 0; ep.step < steps && ep.failure === undefined; ep.step++) {
      switch (rng.weighted([46, 9, 4, 4, 9, 4, 3, 3, 2, 1])) {
        case 0:
          await send(world.post());
          break;
        case 1:
          await send(world.get());
          break;
        case 2:
          await send(world.delete());
          break;
        case 3:
          await send(world.other());
          break;
        case 4:
          await tick(rng.pick([0, 1, 5, 10, 100, 1000, 1000, 15_000, 60_001, 60_001, 600_001]));
          break;
        case 5: {
          const ex = pick(exchanges.filter((e) => e.reader !== undefined && !e.finished && !e.dropped));
          if (ex === undefined) break;
          ep.note(`drop the answer to #${ex.n}`);
          reached("answer dropped");
          ex.dropped = true;
          ex.reader?.cancel().catch(() => undefined);
          await settle();
          break;
        }
        case 6: {
          const ex = pick(exchanges.filter((e) => e.abort !== undefined && !e.aborted && !e.finished));
          if (ex === undefined) break;
          ep.note(`abort #${ex.n}`);
          reached("request aborted");
          ex.aborted = true;
          ex.abort?.abort();
          await settle();
          break;
        }
        case 7: {
          const ex = pick(exchanges.filter((e) => e.gate !== undefined && e.gate.released === undefined));
          if (ex === undefined) break;
          const mode = rng.chance(0.7) ? "finish" : "error";
          ep.note(`release the body of #${ex.n}: ${mode}`);
          reached(`stalled body released (${mode})`);
          ex.gate?.release(mode);
          await settle();
          break;
        }
        case 8: {
          const r = rng.int(3);
          ep.note(["server adds a tool", "server removes a tool", "resource updated"][r] as string);
          if (r === 0) setup.extras.push(setup.server.tool(`extra${extraTools++}`, {}, () => ({ content: [] })));
          else if (r === 1) setup.extras.shift()?.remove();
          else setup.server.notifyResourceUpdated("file:///a");
          await settle();
          break;
        }
        default:
          ep.note("close() mid-episode");
          handler.close();
          await settle(2);
          checkClosed();
          for (const s of [...world.sessions.items]) world.ended(s.id);
      }
      if (ep.failure === undefined) checkBounds();
    }
    // End: every stalled body goes on, the handler closes, and nothing may be left.
    ep.step = -1;
    if (ep.failure === undefined) {
      for (const ex of exchanges) ex.gate?.release("finish");
      await settle(3);
      checkBounds();
      ep.note("close()");
      handler.close();
      await settle(3);
      checkClosed();
      for (const ex of exchanges) {
        if (ep.failure !== undefined) break;
        if (!ex.resolved && !ex.aborted) ep.fail("no-answer", `#${ex.n} ${ex.spec.what} was never answered, even by close()`);
        else if (ex.resolved && !ex.finished && !ex.dropped && !ex.aborted)
          ep.fail("stream-open-after-close", `the answer (${ex.status}) to #${ex.n} ${ex.spec.what} is still open after close()`);
      }
      await tick(24 * 3600 * 1000);
      await settle(2);
    }
  } catch (error) {
    ep.fail("fuzzer-error", errorText(error));
  } finally {
    for (const ex of exchanges) {
      ex.gate?.release("error");
      if (!ex.finished) {
        ex.dropped = true;
        ex.reader?.cancel().catch(() => undefined);
      }
    }
    handler.close();
    await settle(2);
    current = undefined;
  }
  const modern = setup.config.versions.includes(MODERN) ? ` eras=${setup.config.eras}` : "";
  return {
    seed,
    inputCalls,
    steps: ep.step,
    config: `${setup.describe}${modern}`,
    failure: ep.failure === undefined ? undefined : { ...ep.failure, step: ep.step, trace: ep.trace },
    coverage,
  };
}
