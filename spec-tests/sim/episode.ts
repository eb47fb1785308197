// One episode of the cluster simulation: a world of nodes (world.ts) drawn from the seed, its
// clients (clients.ts) making their moves one step at a time with faults between them, the
// Oracle checked after every step, then a quiet end (faults healed, crashed nodes back, every
// client settling what it has outstanding) and the liveness checks. A failing episode shrinks
// (shrink()) to the fewest steps, faults, nodes and clients that still fail the same way:
// that reproducer is what regressions.ts keeps.
//
// Invariants: an episode is a function of its Config (the seed gives the default Config, and
// the moves and faults come from Rngs derived from the seed alone, so shrinking the Config
// keeps the rest of the episode as it was as far as it can); no real clock or timer is used.

import { Rng } from "../fuzz/prng.js";
import { ModernClient, SessionClient, type ClientHost } from "./clients.js";
import { Oracle, type Violation, type ViolationKind } from "./oracle.js";
import { sessionPost } from "./wire.js";
import { settle } from "../fuzz/sim-clock.js";
import { lossy, NO_FAULTS, World, type Faults } from "./world.js";

export interface Config {
  readonly seed: number;
  readonly steps: number;
  readonly nodes: number;
  readonly sessionClients: number;
  readonly modernClients: number;
  readonly faults: Faults;
  /** One node without a shared bus: the single process the cluster must behave like. */
  readonly standalone?: boolean;
  /** The stores without the optional methods the no-loss fixes use (World.legacyStores): a fix reverted. */
  readonly legacyStores?: boolean;
}

/** The episode a seed names. */
export function configOf(seed: number): Config {
  const rng = new Rng(seed ^ 0x2f6b1c3d);
  const on = (p: number): boolean => rng.chance(p);
  const faults: Faults = {
    busDelayMs: on(0.5) ? rng.range(1, 40) : 0,
    busReorder: on(0.2),
    busDuplicate: on(0.1) ? 0.2 : 0,
    busDrop: on(0.08) ? 0.1 : 0,
    storeFail: on(0.08) ? 0.05 : 0,
    storeSlowMs: on(0.3) ? rng.range(1, 40) : 0,
    crash: on(0.1),
    storeRestart: on(0.04),
    skewMs: on(0.2) ? rng.range(1, 5000) : 0,
  };
  const nodes = rng.pick([1, 2, 2, 3, 3, 4]);
  return {
    seed,
    steps: rng.range(10, 60),
    nodes,
    ...(nodes === 1 && rng.chance(0.5) ? { standalone: true } : {}),
    sessionClients: rng.range(1, 3),
    modernClients: rng.pick([0, 0, 1, 2]),
    faults,
  };
}

export interface Outcome {
  readonly config: Config;
  readonly violations: readonly Violation[];
  readonly trace: readonly string[];
  readonly requests: number;
  /** tools/list_changed heard for changes made before the session began (CL-09 allows them within the bus's delay). */
  readonly spares: number;
}

const TRACE_KEPT = 300;

/** Runs the episode `config` names; stops at the first step that breaks an invariant. */
export async function runEpisode(config: Config): Promise<Outcome> {
  const rng = new Rng(config.seed ^ 0x51ed27);
  const trace: string[] = [];
  /** The world time of every list change, in order. */
  const changeTimes: number[] = [];
  const world: World = new World(
    new Rng(config.seed ^ 0x7a3b9e),
    config.faults,
    config.nodes,
    { changed: () => changeTimes.push(world.time.now) },
    config.standalone === true,
    config.legacyStores === true,
  );
  const oracle = new Oracle(world);
  let requests = 0;
  const host: ClientHost = {
    world,
    oracle,
    rng,
    lossy: lossy(config.faults),
    changes: () => changeTimes.length,
    changesSince: (time) => changeTimes.filter((at) => at >= time).length,
    trace: (line) => {
      if (line.includes(" -> n")) requests++;
      trace.push(`[t=${world.time.now}] ${line}`);
      if (trace.length > TRACE_KEPT) trace.shift();
    },
  };
  const sessionClients: SessionClient[] = [];
  const clients: (SessionClient | ModernClient)[] = [];
  for (let i = 0; i < config.sessionClients; i++) sessionClients.push(new SessionClient(`c${i}`, host));
  clients.push(...sessionClients);
  for (let i = 0; i < config.modernClients; i++) clients.push(new ModernClient(`m${i}`, host));
  let spares = 0;
  const done = (): Outcome => ({ config, violations: oracle.violations, trace, requests, spares });
  const tick = async (ms: number): Promise<void> => {
    await settle(3);
    if (!(await world.time.advance(ms)))
      oracle.fail("timer-storm", `expected the timers due within ${ms} ms to settle; more than 20000 fired`);
  };

  for (let step = 0; step < config.steps; step++) {
    faultStep(world, rng, sessionClients, clients, host);
    rng.pick(clients).step();
    await tick(rng.range(0, 40));
    oracle.checkBudgets();
    if (oracle.violations.length > 0) return done();
  }

  // The quiet end: no more faults, every node up, every client settling what it has outstanding.
  world.faults = { ...NO_FAULTS, skewMs: config.faults.skewMs };
  for (const node of world.nodes) if (!node.alive) world.restart(node);
  for (let round = 0; round < 6; round++) {
    for (const client of clients) client.finish();
    await tick(300);
    if (oracle.violations.length > 0) return done();
  }
  if (!host.lossy) oracle.checkAnswered();
  // CL-09: a change made on another node at most the bus's delay before a session began may still reach it (a spare).
  const spareWindowMs = config.standalone === true || config.nodes === 1 ? 0 : config.faults.busDelayMs;
  for (const client of sessionClients) {
    if (client.phase !== "operating") continue;
    const heard = client.listChanged.size;
    const sinceInit = host.changesSince(client.initAt);
    const most = host.changesSince(client.initAt - spareWindowMs);
    const least = host.changes() - client.changesBeforeOperating;
    spares += Math.max(0, Math.min(heard, most) - sinceInit);
    if (heard > most)
      oracle.fail(
        "notification-duplicated",
        `${client.name} (${client.sessionId}): expected at most ${most} tools/list_changed (${sinceInit} made since initialize, ${most - sinceInit} in the ${spareWindowMs} ms before); got ${heard}`,
      );
    else if (!host.lossy && heard < least)
      oracle.fail(
        "notification-lost",
        `${client.name} (${client.sessionId}): expected ${least} tools/list_changed (made while it was operating); got ${heard}`,
      );
  }
  if (config.faults.busDrop === 0 && config.faults.storeFail === 0) await probeDeleted(world, sessionClients, oracle, tick);
  oracle.checkBudgets();
  return done();
}

/** A crash, a restart or a store restart, when the episode's faults allow them. */
function faultStep(
  world: World,
  rng: Rng,
  sessionClients: SessionClient[],
  clients: (SessionClient | ModernClient)[],
  host: ClientHost,
): void {
  const faults = world.faults;
  if (faults.crash && rng.chance(0.06)) {
    const live = world.liveNodes();
    const dead = world.nodes.filter((n) => !n.alive);
    if (dead.length > 0 && rng.chance(0.5)) {
      const node = rng.pick(dead);
      host.trace(`restart n${node.index}`);
      world.restart(node);
    } else if (live.length > 1) {
      const node = rng.pick(live);
      host.trace(`crash n${node.index}`);
      world.crash(node);
      for (const client of clients) client.cutNode(node.index);
    }
  }
  if (faults.storeRestart && rng.chance(0.02)) {
    host.trace("store restart");
    world.restartStore();
  }
  void sessionClients;
}

/** Every session a DELETE ended: no node may serve it any more. */
async function probeDeleted(
  world: World,
  clients: readonly SessionClient[],
  oracle: Oracle,
  tick: (ms: number) => Promise<void>,
): Promise<void> {
  for (const client of clients) {
    if (!client.deleted || client.sessionId === undefined) continue;
    for (const node of world.liveNodes()) {
      const pending = node.handler.fetch(sessionPost({ jsonrpc: "2.0", id: 999_999, method: "ping" }, client.sessionId));
      await tick(10);
      const response = await pending;
      await response.text().catch(() => "");
      if (response.status !== 404)
        oracle.fail("ended-not-everywhere", `${client.sessionId} was DELETEd: expected 404 from ${node.nodeId}; got ${response.status}`);
    }
  }
}

/** The first violation's kind, or undefined for a passing episode. */
export function kindOf(outcome: Outcome): ViolationKind | undefined {
  return outcome.violations[0]?.kind;
}

/** The smallest Config found that still fails with `kind`: fewer steps, faults, nodes and clients. */
export async function shrink(config: Config, kind: ViolationKind, budget = 200): Promise<Config> {
  let best = config;
  let tries = 0;
  const fails = async (candidate: Config): Promise<boolean> => {
    tries++;
    return kindOf(await runEpisode(candidate)) === kind;
  };
  let lo = 1;
  let hi = best.steps;
  while (lo < hi && tries < budget) {
    const mid = Math.floor((lo + hi) / 2);
    if (await fails({ ...best, steps: mid })) hi = mid;
    else lo = mid + 1;
  }
  if (hi < best.steps && (await fails({ ...best, steps: hi }))) best = { ...best, steps: hi };
  for (const key of Object.keys(best.faults) as (keyof Faults)[]) {
    if (tries >= budget) break;
    if (!best.faults[key]) continue;
    const candidate: Config = { ...best, faults: { ...best.faults, [key]: typeof best.faults[key] === "boolean" ? false : 0 } };
    if (await fails(candidate)) best = candidate;
  }
  for (const field of ["nodes", "sessionClients", "modernClients"] as const) {
    while (best[field] > (field === "nodes" ? 1 : 0) && tries < budget) {
      const candidate: Config = { ...best, [field]: best[field] - 1 };
      if (candidate.sessionClients + candidate.modernClients === 0 || !(await fails(candidate))) break;
      best = candidate;
    }
  }
  return best;
}

/** A Config as the line regressions.ts keeps. */
export function describe(config: Config): string {
  const faults: Partial<Faults> = {};
  for (const [key, value] of Object.entries(config.faults) as [keyof Faults, Faults[keyof Faults]][])
    if (value) (faults as Record<string, unknown>)[key] = value;
  const { seed, steps, nodes, sessionClients, modernClients, standalone, legacyStores } = config;
  return JSON.stringify({
    seed,
    steps,
    nodes,
    sessionClients,
    modernClients,
    faults,
    ...(standalone ? { standalone } : {}),
    ...(legacyStores ? { legacyStores } : {}),
  });
}
