// Error codes and the two error kinds of the engine.
//
// - LocalProtocolError: thrown by a command when the host asks for something the protocol
//   forbids. Nothing has been written when it is thrown.
// - Violation: a record (never thrown) describing a rule the peer broke. The engine queues
//   whatever reply it owes first, then reports the violation as an event.
//
// Both carry the rule id (listed in RULES.md: M-03, ID-02, L-10, ...), what was expected
// and what arrived (ENG-07), so a log line is enough to find the rule in the specification.

/** JSON-RPC and MCP error codes. Codes from every version live here; which ones apply is decided by the version tables. */
export const ErrorCode = {
  /** Unparsable JSON (JSON-RPC 2.0). */
  ParseError: -32700,
  /** Not a valid request object (JSON-RPC 2.0); also lifecycle refusals. */
  InvalidRequest: -32600,
  /** Unknown method, or a method whose capability the receiver did not declare. */
  MethodNotFound: -32601,
  /** Params that do not match the method. */
  InvalidParams: -32602,
  /** A failure inside the receiver. */
  InternalError: -32603,
  /** Resource not found, session-era versions (2024-11-05 to 2025-11-25). */
  ResourceNotFound: -32002,
  /** URL elicitation required (2025-11-25 only). */
  UrlElicitationRequired: -32042,
  /** The user rejected a sampling request (all session-era versions). */
  UserRejectedSampling: -1,
  /** HTTP header and body disagree (2026-07-28). */
  HeaderMismatch: -32020,
  /** The request needs a client capability it did not declare (2026-07-28). */
  MissingRequiredClientCapability: -32021,
  /** The requested protocol version is not supported (2026-07-28). */
  UnsupportedProtocolVersion: -32022,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;

/** Rule ids are the ids of RULES.md (e.g. "M-03", "ID-02", "LIM-01"), one scheme for protocol rules and our own policies. */
export type RuleId = string;

/** ENG-07: describes a JSON value briefly, for "got" fields: type plus a short rendering (a string clipped to 40 characters). */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `array(${value.length})`;
  switch (typeof value) {
    case "string":
      return value.length > 40 ? `string ${JSON.stringify(value.slice(0, 40))}…` : `string ${JSON.stringify(value)}`;
    case "number":
      return `number ${String(value)}`;
    case "boolean":
      return `boolean ${String(value)}`;
    case "undefined":
      return "absent";
    case "object":
      return "object";
    default:
      return typeof value;
  }
}

export interface LocalProtocolErrorInit {
  rule: RuleId;
  expected: string;
  got: string;
  /** The wire code a peer would have received for the same mistake, where one exists. */
  code?: number | undefined;
  method?: string | undefined;
  phase?: string | undefined;
}

/** Thrown by engine commands when the host asks for something the protocol forbids. Nothing was queued. */
export class LocalProtocolError extends Error {
  readonly rule: RuleId;
  readonly expected: string;
  readonly got: string;
  readonly code: number | undefined;
  readonly method: string | undefined;
  readonly phase: string | undefined;

  constructor(init: LocalProtocolErrorInit) {
    super(`[${init.rule}] expected ${init.expected}; got ${init.got}`);
    // An ES5 down-level calls Error as a function, which makes a new object: restore the prototype.
    Object.setPrototypeOf(this, new.target.prototype);
    // A literal, not new.target.name: minifiers rename classes.
    this.name = "LocalProtocolError";
    this.rule = init.rule;
    this.expected = init.expected;
    this.got = init.got;
    this.code = init.code;
    this.method = init.method;
    this.phase = init.phase;
  }
}

/** A rule the peer broke. Reported as an event, after any owed reply was queued. */
export interface Violation {
  readonly rule: RuleId;
  readonly expected: string;
  readonly got: string;
  /** The error code sent back to the peer, if a reply was owed. */
  readonly code: number | undefined;
}
