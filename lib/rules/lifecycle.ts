// The lifecycle as a table (L-01, L-03, L-06, MOD-23): for each role, the state an endpoint is
// in and the events that move it. A pair missing from the table is the violation, with the
// rule the event cites; nothing else in the engine assigns a phase.
//
// States refine the four gating phases (lib/rules/methods.ts): a server that has read initialize
// but not yet answered it ("answering-init", autoInitialize false) still gates as
// awaiting-init, and refuses a second initialize. The 2026-07-28 era has no handshake: its
// first request (server) or the client's choice moves straight to operating.

import { Phase, type PhaseBit, type Role } from "./methods.js";

export type LifecycleState = "awaiting-init" | "answering-init" | "initializing" | "operating" | "closed";

export type LifecycleEvent =
  /** client: initialize queued */
  | "initialize-sent"
  /** client: the server's initialize result accepted; notifications/initialized queued */
  | "initialize-result-received"
  /** server: an initialize request read */
  | "initialize-received"
  /** server: our initialize result queued */
  | "initialize-result-sent"
  /** server: the host refused the initialize it was asked about (respondError) */
  | "initialize-refused"
  /** server: notifications/initialized read */
  | "initialized-received"
  /** either: the 2026-07-28 era chosen (no handshake) */
  | "modern-chosen"
  /** either: close, end of input, a fatal error */
  | "closed";

export const LIFECYCLE_STATES: readonly LifecycleState[] = ["awaiting-init", "answering-init", "initializing", "operating", "closed"];
export const LIFECYCLE_EVENTS: readonly LifecycleEvent[] = [
  "initialize-sent",
  "initialize-result-received",
  "initialize-received",
  "initialize-result-sent",
  "initialize-refused",
  "initialized-received",
  "modern-chosen",
  "closed",
];

/** The rule an event breaks when the table has no move for it. */
const EVENT_RULE: Readonly<Record<LifecycleEvent, string>> = {
  "initialize-sent": "L-01",
  "initialize-result-received": "L-03",
  "initialize-received": "L-01",
  "initialize-result-sent": "L-01",
  "initialize-refused": "L-01",
  "initialized-received": "L-06",
  "modern-chosen": "MOD-23",
  closed: "S-01",
};

type Moves = Readonly<Partial<Record<LifecycleEvent, LifecycleState>>>;

const OPEN_CLOSES: Moves = { closed: "closed" };

const TABLE: Readonly<Record<Role, Readonly<Record<LifecycleState, Moves>>>> = {
  client: {
    "awaiting-init": { "initialize-sent": "initializing", "modern-chosen": "operating", ...OPEN_CLOSES },
    "answering-init": OPEN_CLOSES,
    initializing: { "initialize-result-received": "operating", ...OPEN_CLOSES },
    operating: OPEN_CLOSES,
    closed: {},
  },
  server: {
    "awaiting-init": { "initialize-received": "answering-init", "modern-chosen": "operating", ...OPEN_CLOSES },
    "answering-init": { "initialize-result-sent": "initializing", "initialize-refused": "awaiting-init", ...OPEN_CLOSES },
    initializing: { "initialized-received": "operating", ...OPEN_CLOSES },
    operating: OPEN_CLOSES,
    closed: {},
  },
};

export interface LifecycleRefusal {
  readonly rule: string;
  readonly expected: string;
  readonly got: string;
}

/** The state after `event`, or the refusal when the table has no such move. */
export function nextState(role: Role, state: LifecycleState, event: LifecycleEvent): LifecycleState | LifecycleRefusal {
  const next = TABLE[role][state][event];
  if (next !== undefined) return next;
  const legal = LIFECYCLE_STATES.filter((s) => TABLE[role][s][event] !== undefined);
  return { rule: EVENT_RULE[event], expected: `${event} in state ${legal.join(" | ") || "none"} (${role})`, got: `state ${state}` };
}

/** The gating phase of a state. */
export function phaseOf(state: LifecycleState): PhaseBit {
  switch (state) {
    case "awaiting-init":
    case "answering-init":
      return Phase.AwaitingInit;
    case "initializing":
      return Phase.Initializing;
    case "operating":
      return Phase.Operating;
    case "closed":
      return Phase.Closed;
  }
}
