// The simulation's reproducers: each a shrunk episode (episode.ts describe()) that once broke
// an invariant, keyed by what it broke. A `fixed` one must pass now; a `knownOpen` one names a
// loss the cluster still has (issue 6/7): sim.test.ts checks that the simulation still finds it,
// and once its fix lands it moves to `fixed`; a `documented` one shows a behaviour RULES.md
// allows (the invariant checks the promise exactly): it must pass and still show the behaviour.
//
// Invariant: every kind in KNOWN_OPEN has at least one reproducer here, and nothing else is open.

import type { Config } from "./episode.js";
import type { ViolationKind } from "./oracle.js";
import { NO_FAULTS, type Faults } from "./world.js";

export interface Reproducer {
  /** The letter the notes use for the bug. */
  readonly bug: string;
  readonly kind: ViolationKind;
  readonly why: string;
  readonly config: Config;
  readonly status: "knownOpen" | "fixed" | "documented";
}

function config(
  seed: number,
  steps: number,
  nodes: number,
  sessionClients: number,
  modernClients: number,
  faults: Partial<Faults> = {},
): Config {
  return { seed, steps, nodes, sessionClients, modernClients, faults: { ...NO_FAULTS, ...faults } };
}

export const REPRODUCERS: readonly Reproducer[] = [
  {
    bug: "a",
    kind: "notification-lost",
    why: "a tools/list_changed made while no node holds the session's GET stream is dropped (one node on a shared bus is enough)",
    config: config(1001, 5, 1, 3, 1),
    status: "fixed",
  },
  {
    bug: "a",
    kind: "notification-lost",
    why: "the same with two nodes: the GET opened later on either node never hears it",
    config: config(3, 19, 2, 2, 0),
    status: "fixed",
  },
  {
    bug: "b",
    kind: "stream-ended-early",
    why: "a call's stream resumed with Last-Event-ID on another node replays what is stored and ends, without the answer still to come",
    config: config(1011, 27, 2, 1, 0, { busDelayMs: 3 }),
    status: "fixed",
  },
  {
    bug: "c",
    kind: "server-request-id-reused",
    why: "two nodes asking the client for one session at once both use id 0",
    config: config(1366, 26, 4, 1, 1, { busDelayMs: 18, storeFail: 0.05 }),
    status: "fixed",
  },
  {
    bug: "d",
    kind: "ended-not-everywhere",
    why: "a snapshot saved late (slow store) after the session's DELETE puts it back: a node serves it again",
    config: config(1338, 30, 3, 3, 0, { busDelayMs: 7, storeSlowMs: 29, skewMs: 1138 }),
    status: "fixed",
  },
  {
    bug: "g",
    kind: "notification-duplicated",
    why: "a bus message delivered twice (busDuplicate) puts one notification twice on the GET stream: delivery is not idempotent",
    config: config(1318, 18, 2, 3, 0, { busDelayMs: 15, busDuplicate: 0.2 }),
    status: "fixed",
  },
  {
    bug: "h",
    kind: "event-changed",
    why: "a node restarted under the same node id numbers its streams from s0 again: an event id names two different events",
    config: config(1004, 35, 2, 3, 0, { crash: true }),
    status: "fixed",
  },
  {
    bug: "f",
    kind: "event-lost",
    why: "resumptions of one stream on several nodes with a slow store: an event is skipped",
    config: config(1137, 40, 3, 3, 0, { busDelayMs: 25, storeSlowMs: 32, skewMs: 2074 }),
    status: "fixed",
  },
  {
    bug: "h",
    kind: "event-changed",
    why: "the same after other changes moved seed 1004's streams: a node crashed and restarted numbers its streams as its earlier start did (found again with the nonce per start taken out)",
    config: config(210, 25, 2, 2, 0, { crash: true }),
    status: "fixed",
  },
  {
    bug: "f",
    kind: "stream-ended-early",
    why: "a reader that ends on any news naming another reader (claims not counted) ends on news from before its own claim: a resumed stream ends without its answer, with no fault at all (found with the claim count taken out)",
    config: config(268, 51, 3, 3, 2),
    status: "fixed",
  },
  {
    bug: "i",
    kind: "notification-duplicated",
    why: "a change made on one node 3 ms before a session began on another reaches it through the bus (12 ms): a spare tools/list_changed, which CL-09 allows for a change made within the bus's delay before the session began",
    config: config(145, 8, 3, 3, 2, { busDelayMs: 12 }),
    status: "documented",
  },
  {
    bug: "j",
    kind: "server-request-id-reused",
    why: "with id blocks (CL-08) and a slow store: node n2 asks sampling/createMessage with id 65536, and later node n1 asks elicitation/create with id 65536 in the same session",
    config: config(6428, 16, 3, 1, 0, { storeSlowMs: 17 }),
    status: "fixed",
  },
  {
    bug: "k",
    kind: "event-lost",
    why: "with a slow store, a call's stream resumed on another node after its first event is answered 404 (unknown stream) while the session is kept",
    config: config(1003631, 19, 3, 1, 0, { storeSlowMs: 7 }),
    status: "fixed",
  },
  {
    bug: "l",
    kind: "notification-lost",
    why: "with a slow store, one tools/list_changed of 14 made while the session was operating never reaches it",
    config: config(1007853, 14, 3, 3, 0, { storeSlowMs: 37 }),
    status: "fixed",
  },
  {
    bug: "m",
    kind: "stream-ended-early",
    why: "a claim of a call's stream by a reader on another node, delayed on the bus past the client's later resume on the writer itself, ended that resume without the answer",
    config: config(24137, 51, 3, 2, 1, { busDelayMs: 25 }),
    status: "fixed",
  },
  {
    bug: "n",
    kind: "event-changed",
    why: "a node that dropped its copy of a session (the session DELETEd elsewhere while a slow store still let a call through) made a new copy that numbered its streams from s0 again: an event id named two events",
    config: config(302210, 45, 4, 2, 0, { storeSlowMs: 32, crash: true }),
    status: "fixed",
  },
];

/** The kinds some reproducer still shows open: a random run that finds one of them is not failed for it. */
export const KNOWN_OPEN: ReadonlySet<ViolationKind> = new Set(REPRODUCERS.filter((r) => r.status === "knownOpen").map((r) => r.kind));
