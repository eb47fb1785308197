// One fuzz episode: a seeded endpoint configuration (role, versions, strictness, limits,
// capabilities), an opening (initialize, startModern or nothing), a run of steps — peer
// inputs, host commands, time, snapshot/restore, floods — then a settle phase (the host
// answers everything it holds, a ping probes that the engine still works) and an end
// (EOF or close). Three lanes (value, bytes, chunks) run in lockstep and must agree after
// every step; the oracle (oracle.ts) checks the value lane; memory.ts checks tables.
//
// Invariants: an episode is a pure function of its seed and options; the first failure
// ends it and is returned with the trace of the steps that led there.

import {
  DEFAULT_LIMITS,
  Engine,
  LocalProtocolError,
  type EngineEvent,
  type EngineOptions,
  type EngineSnapshot,
  type Role,
} from "../../lib/index.js";
import { loadCorpus } from "./corpus.js";
import { answers, hostCommand, perform, type Command } from "./host.js";
import { Lane, eventKey, type Delivery, type Drained } from "./lanes.js";
import { footprint } from "./memory.js";
import { clone } from "./mutate.js";
import { Oracle, OracleFailure, fail, owedFor, owedForLongLine, NULL_KEY, idKey, type Failure } from "./oracle.js";
import { flood, peerInput } from "./peer.js";
import { Rng } from "./prng.js";
import { ALL_VERSIONS, World } from "./world.js";

export interface EpisodeOptions {
  /** Most steps in the main phase (default 60). */
  maxSteps?: number;
  /** Chance that an episode floods one peer-fed table past every limit (default 0.02). */
  floodChance?: number;
}

export interface EpisodeResult {
  readonly seed: number;
  readonly inputCalls: number;
  /** Input calls per lane: value, bytes, chunks. */
  readonly laneCalls: readonly number[];
  readonly steps: number;
  readonly config: string;
  readonly failure: (Failure & { step: number; trace: string[] }) | undefined;
}

const SETTLED_MEMORY = 4096;

function ownCapabilities(rng: Rng, role: Role): Record<string, unknown> {
  const caps: Record<string, unknown> = {};
  if (role === "server") {
    if (rng.chance(0.8)) caps.tools = rng.chance(0.5) ? { listChanged: true } : {};
    if (rng.chance(0.7)) caps.resources = { subscribe: true, listChanged: rng.chance(0.5) };
    if (rng.chance(0.5)) caps.prompts = { listChanged: true };
    if (rng.chance(0.6)) caps.logging = {};
    if (rng.chance(0.5)) caps.completions = {};
    if (rng.chance(0.5)) caps.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
  } else {
    if (rng.chance(0.6)) caps.sampling = {};
    if (rng.chance(0.6)) caps.roots = { listChanged: true };
    if (rng.chance(0.6)) caps.elicitation = rng.chance(0.5) ? { form: {}, url: {} } : {};
    if (rng.chance(0.5)) caps.tasks = { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } };
  }
  return caps;
}

function makeConfig(rng: Rng): EngineOptions<Role> {
  const corpus = loadCorpus();
  const role: Role = rng.chance(0.5) ? "client" : "server";
  const base = rng.chance(0.3) ? (clone(rng.pick(corpus.configs[role])) as Record<string, unknown>) : {};
  let versions: string[];
  const r = rng.int(10);
  if (r < 5) versions = [rng.pick(ALL_VERSIONS)];
  else if (r < 8) versions = ALL_VERSIONS.filter(() => rng.chance(0.5));
  else versions = [...ALL_VERSIONS];
  if (versions.length === 0) versions = [rng.pick(ALL_VERSIONS)];
  const options: Record<string, unknown> = {
    ...base,
    role,
    info: { name: "fuzz-endpoint", version: "1" },
    capabilities: rng.chance(0.7) ? ownCapabilities(rng, role) : (base.capabilities ?? {}),
    versions,
    strict: rng.chance(0.3),
  };
  if (role === "server") options.autoInitialize = rng.chance(0.75);
  if (rng.chance(0.3)) options.validateResults = true;
  if (role === "client" && rng.chance(0.3)) options.logLevel = rng.pick(["debug", "error", "info"]);
  if (rng.chance(0.2)) options.serverInfoInResults = false;
  if (rng.chance(0.3)) options.discoverAnyVersion = false;
  if (rng.chance(0.2)) options.instructions = "use tools";
  if (rng.chance(0.1)) options.firstRequestId = rng.int(100);
  if (rng.chance(0.4)) {
    // Every limit the engine has, small: the keys come from DEFAULT_LIMITS so new limits are fuzzed too.
    const limits: Record<string, number> = {};
    for (const key of Object.keys(DEFAULT_LIMITS))
      limits[key] = key === "maxLineBytes" ? rng.pick([64, 256, 4096, 70_000]) : rng.pick([1, 2, 8, 64]);
    options.limits = limits;
  }
  return options as unknown as EngineOptions<Role>;
}

function describeBytes(bytes: Uint8Array): string {
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, 300));
  return `${bytes.length} B ${JSON.stringify(text)}${bytes.length > 300 ? "…" : ""}`;
}

function sameDrained(a: Drained, b: Drained, what: string, modes: string): void {
  if (a.messages.length !== b.messages.length || a.messages.some((m, i) => m !== b.messages[i])) {
    fail(
      "lanes-differ",
      `${what}: outbound differs (${modes}):\n  ${a.messages.join("\n  ").slice(0, 1500)}\nvs\n  ${b.messages.join("\n  ").slice(0, 1500)}`,
    );
  }
  const ka = a.events.map(eventKey);
  const kb = b.events.map(eventKey);
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i]))
    fail(
      "lanes-differ",
      `${what}: events differ (${modes}):\n  ${ka.join("\n  ").slice(0, 1500)}\nvs\n  ${kb.join("\n  ").slice(0, 1500)}`,
    );
}

function errorText(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message).split("\n").slice(0, 6).join("\n") : String(error);
}

export function runEpisode(seed: number, opts: EpisodeOptions = {}): EpisodeResult {
  const rng = new Rng(seed);
  const corpus = loadCorpus();
  const options = makeConfig(rng);
  const role = options.role;
  const lanes = [new Lane("value", options), new Lane("bytes", options), new Lane("chunks", options)];
  const valueLane = lanes[0] as Lane;
  const oracle = new Oracle();
  const w = new World(rng, corpus, role, options, oracle);
  const trace: string[] = [];
  let step = 0;
  const note = (line: string): void => {
    if (process.env.FUZZ_DEBUG === "1") console.log(`#${step} ${line.slice(0, 400)}`);
    trace.push(`#${step} ${line}`);
    if (trace.length > 40) trace.shift();
  };
  const config = `${role} ${JSON.stringify(options.versions)} strict=${String(options.strict)} auto=${String(options.autoInitialize)} limits=${JSON.stringify(options.limits ?? {})}`;

  const debug = process.env.FUZZ_DEBUG === "1";
  const observe = (out: Drained): void => {
    if (debug) for (const m of out.messages) console.log(`    out ${m.slice(0, 300)}`);
    if (debug) for (const ev of out.events) console.log(`    event ${JSON.stringify(ev).slice(0, 300)}`);
    for (const m of out.messages) {
      oracle.outbound(m);
      w.learn(JSON.parse(m));
    }
    for (const ev of out.events) {
      oracle.event(ev);
      w.learn(ev);
    }
    oracle.afterDrain();
    oracle.silent = role === "client" && valueLane.engine.era === "modern";
  };

  const context = () => {
    const e = valueLane.engine;
    const v = e.negotiatedVersion;
    return {
      closed: e.isClosed,
      silent: role === "client" && e.era === "modern",
      batching: v !== undefined ? v === "2025-03-26" : e.versions.includes("2025-03-26"),
      maxBatchLength: e.limits.maxBatchLength,
    };
  };

  const hooks = {
    before(d: Delivery): void {
      oracle.cancelsSent = new Set();
      const ctx = context();
      if (d.kind === "value") {
        oracle.owe(owedFor(d.value, ctx));
        for (const m of Array.isArray(d.value) ? d.value : [d.value]) {
          const o = m as { method?: unknown; params?: { requestId?: unknown } } | null;
          if (typeof o === "object" && o !== null && o.method === "notifications/cancelled" && o.params !== undefined && o.params !== null)
            oracle.cancelsSent.add(idKey(o.params.requestId));
        }
      } else if (d.kind === "bad-line" && !ctx.closed && !ctx.silent) {
        oracle.owe([NULL_KEY]);
      } else if (d.kind === "long-line" && !ctx.closed && !ctx.silent) {
        const owed = owedForLongLine(d.value);
        if (owed === undefined) oracle.wildcard = 1;
        else oracle.owe(owed);
      }
    },
    after(_d: Delivery, out: Drained): void {
      observe(out);
      oracle.wildcard = 0;
    },
  };

  const input = (bytes: Uint8Array, what = "peer"): void => {
    note(`${what} ${describeBytes(bytes)}`);
    const splitSeed = rng.u32();
    const outs = lanes.map((lane) => {
      try {
        return lane.receive(bytes, w.now, splitSeed, lane === valueLane ? hooks : undefined);
      } catch (error) {
        if (error instanceof OracleFailure) throw error;
        return fail("input-threw", `receive (${lane.mode} lane) threw: ${errorText(error)}`);
      }
    });
    sameDrained(outs[0] as Drained, outs[1] as Drained, "input", "value vs bytes");
    sameDrained(outs[0] as Drained, outs[2] as Drained, "input", "value vs chunks");
  };

  const command = (c: Command): { returned: unknown; threw: unknown } => {
    note(`host ${c.op} ${JSON.stringify(c.args).slice(0, 300)}`);
    const wasClosed = oracle.closed;
    const results = lanes.map((lane) => lane.command((e) => perform(e, c)));
    const first = results[0] as (typeof results)[number];
    for (const r of results.slice(1)) {
      sameDrained(first.out, r.out, `command ${c.op}`, "lanes");
      if (JSON.stringify(r.returned) !== JSON.stringify(first.returned) || String(r.threw) !== String(first.threw))
        fail(
          "lanes-differ",
          `command ${c.op}: returned ${JSON.stringify(first.returned)} / ${String(first.threw)} vs ${JSON.stringify(r.returned)} / ${String(r.threw)}`,
        );
    }
    if (first.threw !== undefined) {
      if (!(first.threw instanceof LocalProtocolError))
        fail(
          "command-threw",
          `${c.op} threw a ${(first.threw as Error).constructor?.name}, not a LocalProtocolError: ${errorText(first.threw)}`,
        );
      if (first.out.messages.length > 0 || first.out.events.length > 0)
        fail(
          "refused-command-queued",
          `${c.op} was refused (${String(first.threw)}) but queued ${first.out.messages.length} messages, ${first.out.events.length} events`,
        );
    } else if (wasClosed && c.op !== "close") {
      fail("command-after-close", `${c.op} was accepted after the engine closed`);
    }
    oracle.cancelsSent = new Set();
    if (c.op === "initialize" && typeof first.returned === "number") oracle.initializeId = first.returned;
    if (c.op === "cancel" && first.returned === true) oracle.engineRequests.delete(c.args[0] as number);
    if (first.threw === undefined && (c.op === "respond" || c.op === "respondError")) oracle.hostPending.delete(idKey(c.args[0]));
    if (first.threw === undefined && c.op === "endSubscriptions")
      for (const [k, h] of oracle.hostPending) if (h.method === "subscriptions/listen") oracle.hostPending.delete(k);
    if (first.threw === undefined && c.op === "acceptInitialize")
      for (const [k, h] of oracle.hostPending) if (h.method === "initialize") oracle.hostPending.delete(k);
    observe(first.out);
    return first;
  };

  const tick = (now: number): void => {
    w.now = now;
    note(`time ${now}`);
    const outs = lanes.map((lane) => {
      try {
        return lane.timeout(now);
      } catch (error) {
        return fail("input-threw", `handleTimeout (${lane.mode} lane) threw: ${errorText(error)}`);
      }
    });
    sameDrained(outs[0] as Drained, outs[1] as Drained, "time", "value vs bytes");
    sameDrained(outs[0] as Drained, outs[2] as Drained, "time", "value vs chunks");
    observe(outs[0] as Drained);
    for (const lane of lanes) {
      const next = lane.engine.nextDeadline();
      if (next !== undefined && next <= now) fail("deadline-not-expired", `nextDeadline ${next} ≤ now ${now} after handleTimeout`);
      if (next !== valueLane.engine.nextDeadline()) fail("lanes-differ", "nextDeadline differs between lanes");
    }
  };

  const answerAll = (): void => {
    for (let round = 0; round < 3 && oracle.hostPending.size > 0; round++) {
      for (const key of [...oracle.hostPending.keys()]) {
        let settled = false;
        for (const c of answers(w, key)) {
          if (command(c).threw === undefined) {
            settled = true;
            break;
          }
        }
        if (!settled && oracle.hostPending.has(key) && !oracle.closed)
          fail("host-cannot-answer", `every answer to held request ${key} was refused`);
      }
    }
  };

  const snapshotStep = (): void => {
    note("snapshot");
    const snaps = lanes.map((lane) => {
      try {
        return lane.engine.snapshot();
      } catch (error) {
        if (error instanceof LocalProtocolError) return undefined;
        return fail("command-threw", `snapshot threw ${errorText(error)}`);
      }
    });
    const text = JSON.stringify(snaps[0]);
    if (snaps.some((s) => JSON.stringify(s) !== text)) fail("lanes-differ", "snapshots differ between lanes");
    if (snaps[0] === undefined) return;
    const copy = JSON.parse(text as string) as EngineSnapshot;
    const restored = lanes.map(() => Engine.restore(options, copy));
    if (JSON.stringify((restored[0] as Engine<Role>).snapshot()) !== text)
      fail("snapshot-roundtrip", `restore(snapshot()) differs:\n${text}\n${JSON.stringify((restored[0] as Engine<Role>).snapshot())}`);
    const e = valueLane.engine;
    const quiet =
      valueLane.partialBytes === 0 &&
      e.pendingInboundCount === 0 &&
      e.pendingOutboundCount === 0 &&
      oracle.hostPending.size === 0 &&
      oracle.owedCount === 0;
    if (quiet && rng.chance(0.7)) {
      note("swap to the restored engine");
      lanes.forEach((lane, i) => lane.swap(restored[i] as Engine<Role>));
      oracle.engineRequests.clear();
    }
  };

  const checkMemory = (): void => {
    const bound = Math.max(
      SETTLED_MEMORY,
      ...Object.entries(valueLane.engine.limits)
        .filter(([k]) => k !== "maxLineBytes")
        .map(([, v]) => v as number),
    );
    for (const lane of lanes) {
      const f = footprint(lane.engine, bound);
      if (f.over.length > 0) fail("table-unbounded", `tables over the bound ${bound} in the ${lane.mode} lane: ${f.over.join(", ")}`);
      if (lane.partialBytes === 0 && f.bufferBytes > 65536)
        fail("buffer-retained", `${f.bufferPath} keeps ${f.bufferBytes} bytes with no line pending (${lane.mode} lane)`);
    }
  };

  let failure: EpisodeResult["failure"];
  try {
    // Opening.
    if (role === "client") {
      const hasSession = options.versions?.some((v) => v !== "2026-07-28") ?? true;
      const hasModern = options.versions?.includes("2026-07-28") ?? false;
      if (hasModern && (!hasSession || rng.chance(0.5))) command({ op: "startModern", args: [] });
      else if (rng.chance(0.85)) command({ op: "initialize", args: [rng.chance(0.2) ? { deadline: rng.range(1, 40) } : undefined] });
    }
    if (rng.chance(0.75)) input(peerInput(w), "opening");
    const steps = rng.range(3, opts.maxSteps ?? 60);
    const floodAt = rng.chance(opts.floodChance ?? 0.02) ? rng.int(steps) : -1;
    for (step = 0; step < steps; step++) {
      if (step === floodAt) {
        const bound = Math.max(
          SETTLED_MEMORY,
          ...Object.entries(valueLane.engine.limits)
            .filter(([k]) => k !== "maxLineBytes")
            .map(([, v]) => v as number),
        );
        input(flood(w, Math.min(bound + 500, 20_000)), "flood");
        answerAll();
        checkMemory();
        continue;
      }
      switch (rng.weighted([50, 30, 8, 7, 3])) {
        case 0:
          input(peerInput(w));
          break;
        case 1:
          command(hostCommand(w, valueLane.engine));
          break;
        case 2:
          tick(w.now + rng.pick([0, 1, 3, 10, 50, 1000]));
          break;
        case 3: {
          const keys = [...oracle.hostPending.keys()];
          if (keys.length > 0) for (const c of answers(w, rng.pick(keys))) if (command(c).threw === undefined) break;
          break;
        }
        default:
          snapshotStep();
      }
    }
    // Settle: the host answers everything it holds; then every owed reply must have been sent.
    step = -1;
    answerAll();
    if (role === "server" && valueLane.engine.era === "modern" && !oracle.closed) command({ op: "endSubscriptions", args: [] });
    if (!oracle.closed && !oracle.silent) {
      input(new TextEncoder().encode(`{"jsonrpc":"2.0","id":"probe","method":"ping"}\n`), "probe");
      answerAll();
    }
    if (oracle.owedCount > 0) fail("owed-reply-missing", `replies never sent: ${oracle.owedList().join(", ")}`);
    checkMemory();
    const end = rng.int(10);
    if (end < 7) {
      note("eof");
      const outs = lanes.map((lane) => {
        try {
          return lane.eof(lane === valueLane ? hooks : undefined);
        } catch (error) {
          return fail("input-threw", `receiveEof (${lane.mode} lane) threw: ${errorText(error)}`);
        }
      });
      sameDrained(outs[0] as Drained, outs[1] as Drained, "eof", "value vs bytes");
      sameDrained(outs[0] as Drained, outs[2] as Drained, "eof", "value vs chunks");
      if (!valueLane.engine.isClosed) fail("not-closed-after-eof", "the engine is open after receiveEof");
    } else if (end < 9) {
      command({ op: "close", args: [] });
    }
    if (oracle.closed && oracle.engineRequests.size > 0)
      fail("unsettled-at-close", `requests ${[...oracle.engineRequests.keys()].join(", ")} never settled`);
  } catch (error) {
    if (error instanceof OracleFailure) failure = { ...error.failure, step, trace };
    else failure = { kind: "fuzzer-error", detail: errorText(error), step, trace };
  }
  const inputCalls = lanes.reduce((n, lane) => n + lane.inputCalls, 0);
  return { seed, inputCalls, laneCalls: lanes.map((lane) => lane.inputCalls), steps: step, config, failure };
}

export type { EngineEvent };
