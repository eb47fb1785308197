// How the report grades what a server did, and the spec rules it grades by.
//
//   PASS  the server did what the spec asks
//   WARN  allowed by the spec but discouraged (a SHOULD or an example not followed)
//   SKIP  not applicable, or not tried on purpose; the detail says why
//   FAIL  a MUST broken
//
// Every WARN and FAIL names the rule behind it: an id of RULES.md and the section of the
// specification it comes from, linked for the negotiated version. Only FAIL makes the
// command exit non-zero (1), and a run its budget stopped (3, CLI-03).
//
// A detail that quotes the server (its error messages, what the engine saw arrive) quotes it
// through the one printer for untrusted text (CLI-01): escaped, and cut at MESSAGE_WIDTH for a
// message, FIELD_WIDTH for a value.

import { ErrorCode } from "../wire/errors.js";
import { SCHEMA_RELEASES } from "../rules/versions.js";
import { ConnectionClosedError, HttpTransportError, InvalidResultError, McpError, RequestTimeoutError } from "../peer/shared/errors.js";
import { httpFailureLine } from "./http-failure.js";
import { MESSAGE_WIDTH, untrustedText } from "../codec/terminal-text.js";

export type Grade = "PASS" | "WARN" | "SKIP" | "FAIL";

export interface Rule {
  id: string;
  /** What the rule says, in a sentence. */
  says: string;
  /** Path of the spec section under https://modelcontextprotocol.io/specification/<version>/. */
  page: string;
  /** The version the section belongs to when it is not the negotiated one (tasks: 2025-11-25). */
  version?: string;
}

export interface CheckResult {
  name: string;
  grade: Grade;
  detail: string;
  /** The rule behind a WARN or a FAIL. */
  rule?: Rule;
}

export const RULES = {
  respond: { id: "JR-01", says: "every request MUST get a response (JSON-RPC 2.0: the server MUST reply)", page: "basic#responses" },
  resultShape: { id: "M-04", says: "a result response MUST carry a result of the request's result type", page: "basic#responses" },
  ping: {
    id: "G-02",
    says: "the receiver of a ping MUST answer it promptly with an empty result",
    page: "basic/utilities/ping#behavior-requirements",
  },
  capability: {
    id: "C-02",
    says: "a declared capability says the server supports the feature, and its list method is how a client uses it",
    page: "basic/lifecycle#capability-negotiation",
  },
  progress: {
    id: "P-05",
    says: "the progress value MUST increase with each notification",
    page: "basic/utilities/progress#behavior-requirements",
  },
  cancel: {
    id: "X-04",
    says: "the receiver of a cancellation SHOULD stop the work and send no response",
    page: "basic/utilities/cancellation#behavior-requirements",
  },
  toolTasks: {
    id: "TK-08",
    says: 'a tool with execution.taskSupport "required" MUST be called as a task (task-augmented tools/call)',
    page: "basic/utilities/tasks#tool-level-negotiation",
    version: SCHEMA_RELEASES.tasks,
  },
  toolErrors: {
    id: "TL-01",
    says: "a failure of the tool itself is reported in a result with isError: true, so the model sees it; protocol errors are for unknown tools, malformed requests and server errors",
    page: "server/tools#error-handling",
  },
  unknownTool: {
    id: "TL-02",
    says: "an unknown tool is a protocol error (the spec's example answers -32602); an isError result is not forbidden, but tells the model a tool ran",
    page: "server/tools#error-handling",
  },
  templates: {
    id: "RS-01",
    says: "resources/templates/list is one of the methods of the resources capability (an empty list when there are no templates)",
    page: "server/resources#resource-templates",
  },
  readListed: {
    id: "RS-03",
    says: "resources/list announces resources that a client reads with resources/read",
    page: "server/resources#reading-resources",
  },
  getListed: {
    id: "PR-01",
    says: "prompts/list announces prompts that a client gets with prompts/get, given their required arguments",
    page: "server/prompts#getting-a-prompt",
  },
  resourceNotFound: {
    id: "RS-02",
    says: "an unknown resource SHOULD be refused with -32002 (2026-07-28: -32602)",
    page: "server/resources#error-handling",
  },
  inputSchema: { id: "J-02", says: 'a tool\'s inputSchema MUST be a JSON Schema object with type "object"', page: "server/tools#tool" },
} as const satisfies { [key: string]: Rule };

export function ruleUrl(rule: Rule, version: string): string {
  return `https://modelcontextprotocol.io/specification/${rule.version ?? version}/${rule.page}`;
}

/** The report's text for one check: a graded line, and for WARN and FAIL the rule under it. */
export function formatCheck(check: CheckResult, version: string): string {
  const head = `${check.grade}  ${check.name}: ${check.detail}`;
  if (check.rule === undefined || (check.grade !== "WARN" && check.grade !== "FAIL")) return head;
  return `${head}\n      rule ${check.rule.id}: ${check.rule.says} (${ruleUrl(check.rule, version)})`;
}

export interface Tally {
  passed: number;
  warned: number;
  skipped: number;
  failed: number;
  /** The run's budget ran out before the report was done (CLI-03): the checks counted are the ones it made. */
  stopped?: boolean;
}

export function tally(checks: readonly CheckResult[]): Tally {
  const count = (grade: Grade): number => checks.filter((c) => c.grade === grade).length;
  return { passed: count("PASS"), warned: count("WARN"), skipped: count("SKIP"), failed: count("FAIL") };
}

export function formatTally(t: Tally): string {
  return `${t.passed} passed, ${t.warned} warned, ${t.skipped} skipped, ${t.failed} failed`;
}

/** The exit code of a report: 3 when its budget ran out (CLI-03), else 1 when a check failed, else 0 (WARN and SKIP never fail a run). */
export function exitCode(t: Tally): number {
  return t.stopped === true ? 3 : t.failed > 0 ? 1 : 0;
}

/**
 * An error's message as the report may print it (CLI-01): peer errors and ours alike may quote
 * the server. An HTTP failure is its status and at most one line of the body (http-failure.ts).
 */
export const errorText = (error: unknown): string =>
  untrustedText(
    error instanceof HttpTransportError ? httpFailureLine(error.message) : error instanceof Error ? error.message : error,
    MESSAGE_WIDTH,
  );
const text = errorText;

/**
 * The grade of a request that ended in an error, when no more specific rule applies: an error
 * response is the server's right (`onRefused` decides what it means for this check), no
 * response at all, or a response of the wrong shape, breaks a MUST.
 */
export function gradeError(name: string, error: unknown, onRefused: (error: McpError) => CheckResult): CheckResult {
  if (error instanceof McpError) return onRefused(error);
  if (error instanceof RequestTimeoutError)
    return { name, grade: "FAIL", detail: `${text(error)} (raise the limit with --timeout MS)`, rule: RULES.respond };
  if (error instanceof ConnectionClosedError)
    return { name, grade: "FAIL", detail: `the connection closed before the response: ${text(error)}`, rule: RULES.respond };
  if (error instanceof InvalidResultError) return { name, grade: "FAIL", detail: text(error), rule: RULES.resultShape };
  return { name, grade: "FAIL", detail: text(error), rule: RULES.respond };
}

/**
 * tools/call of a listed tool with arguments valid against its inputSchema, refused with an
 * error response. -32021 (2026-07-28: the request needs a client capability we did not
 * declare, e.g. roots without --root) is the server being right: a SKIP. Anything else is
 * discouraged, not forbidden: tool failures belong in isError results (TL-01).
 */
export function gradeToolRefusal(name: string, error: McpError): CheckResult {
  if (error.code === ErrorCode.MissingRequiredClientCapability) {
    const data = error.data as { requiredCapabilities?: unknown } | undefined;
    const needs =
      typeof data === "object" && data !== null && data.requiredCapabilities !== undefined
        ? ` ${untrustedText(JSON.stringify(data.requiredCapabilities))}`
        : "";
    return { name, grade: "SKIP", detail: `the tool needs a client capability this run does not declare${needs} (roots: pass --root DIR)` };
  }
  return {
    name,
    grade: "WARN",
    detail: `refused with a protocol error for arguments valid against its inputSchema: ${text(error)}`,
    rule: RULES.toolErrors,
  };
}

/** tools/call of a tool that does not exist. */
export function gradeUnknownTool(name: string, outcome: { error: unknown } | { isError: boolean }): CheckResult {
  if ("isError" in outcome) {
    return outcome.isError
      ? { name, grade: "WARN", detail: "answered with an isError result instead of a protocol error", rule: RULES.unknownTool }
      : { name, grade: "WARN", detail: "answered with a plain result, as if the tool existed", rule: RULES.unknownTool };
  }
  return gradeError(name, outcome.error, (error) =>
    error.code === ErrorCode.InvalidParams
      ? { name, grade: "PASS", detail: "refused with -32602" }
      : { name, grade: "WARN", detail: `refused with ${error.code} (the spec's example uses -32602)`, rule: RULES.unknownTool },
  );
}

/** resources/read of a URI nothing lists. `modern`: 2026-07-28, where -32602 replaced -32002. */
export function gradeUnknownResource(name: string, outcome: { error: unknown } | { contents: number }, modern: boolean): CheckResult {
  if ("contents" in outcome)
    return {
      name,
      grade: "SKIP",
      detail: `answered with ${outcome.contents} content(s): a template of the server's may match the made-up URI`,
    };
  return gradeError(name, outcome.error, (error) => {
    const preferred = modern ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound;
    // 2026-07-28 tells clients to keep accepting the old code.
    if (error.code === preferred || (modern && error.code === ErrorCode.ResourceNotFound))
      return { name, grade: "PASS", detail: `refused with ${error.code}` };
    return { name, grade: "WARN", detail: `refused with ${error.code}, not ${preferred}`, rule: RULES.resourceNotFound };
  });
}

/**
 * A list method of a declared capability, refused. tools/list, resources/list and prompts/list
 * are how a client uses the feature the server declared: a refusal FAILs. Templates are an
 * optional part of resources, and SDKs without any answer -32601: a WARN, read as no templates.
 */
export function gradeListRefusal(name: string, error: McpError): CheckResult {
  if (name === "resources/templates/list")
    return {
      name,
      grade: "WARN",
      detail: `refused with ${error.code} although the server declares resources (read as: no templates)`,
      rule: RULES.templates,
    };
  return { name, grade: "FAIL", detail: text(error), rule: RULES.capability };
}

/** A protocol event of the connection: a "violation" breaks a MUST, a "diagnostic" is softer. */
export interface Diagnostic {
  kind: "violation" | "diagnostic";
  rule: string;
  expected: string;
  got: string;
}

// The spec section of a rule id, by its prefix (the project's rule list groups ids by section).
const SECTIONS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^P-/, "basic/utilities/progress"],
  [/^X-/, "basic/utilities/cancellation"],
  [/^G-/, "basic/utilities/ping"],
  [/^N-/, "server/utilities/pagination"],
  [/^TK-/, "basic/utilities/tasks"],
  [/^(L|V|C|S|T)-/, "basic/lifecycle"],
  [/^E-/, "basic/transports"],
];

/** "RULE: expected …; got …", each part printed as untrusted text (what arrived is the server's; the rest may quote it). */
export function formatDiagnostic(event: Diagnostic): string {
  return `${untrustedText(event.rule)}: expected ${untrustedText(event.expected, MESSAGE_WIDTH)}; got ${untrustedText(event.got)}`;
}

/** One check for everything the engine flagged while the report ran: FAIL on a violation, WARN on a diagnostic. */
export function gradeDiagnostics(events: readonly Diagnostic[]): CheckResult {
  const name = "protocol messages";
  const worst = events.find((e) => e.kind === "violation") ?? events[0];
  if (worst === undefined) return { name, grade: "PASS", detail: "no violation seen in any message" };
  const violations = events.filter((e) => e.kind === "violation").length;
  const shown = events
    .slice(0, 3)
    .map((e) => formatDiagnostic(e))
    .join(" | ");
  const rule: Rule = {
    id: untrustedText(worst.rule),
    says: `expected ${untrustedText(worst.expected, MESSAGE_WIDTH)}`,
    page: SECTIONS.find(([prefix]) => prefix.test(worst.rule))?.[1] ?? "basic",
  };
  return {
    name,
    grade: violations > 0 ? "FAIL" : "WARN",
    detail: `${violations} violation(s), ${events.length - violations} diagnostic(s): ${shown}${events.length > 3 ? " | ..." : ""}`,
    rule,
  };
}
