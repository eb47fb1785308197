// The reference client's report: exercises everything a connected server declares and
// grades each check PASS, WARN, SKIP or FAIL (grading.ts). Transport-agnostic: it takes a
// connected peer-layer Client.
//
// Safe by default: a tool is called only when its annotations and its name say it changes
// nothing (safety.ts), it can run without a task, and arguments satisfying its inputSchema
// could be built (synthesize.ts); every other tool is a SKIP that says why. Every request has
// the timeout of ReportOptions.timeoutMs, pushed back by progress, and capped at ten times
// that in total; a pending call shows its elapsed time and progress through `pending`.
// The whole run is bounded too (CLI-03): at most `maxItems` (100) each of the tools,
// resources, templates and prompts are exercised, the rest named in one SKIP line, and when
// the run's `signal` aborts (its budget, `--run-timeout`) the request in flight is cancelled
// and the report ends before its next check, with the checks it has.
// Rules the engine checks message by message (progress increasing per token, ids, phases)
// are not checked again here: the engine's violations are graded in one check at the end.
//
// Everything of the server's that a check's name or detail quotes (names, versions, URIs,
// MIME types, completion values, error messages) goes through the one printer for untrusted
// text (CLI-01): `field` for a value, `errorText` for a message.

import type { Client } from "../peer/client/client.js";
import { McpError, RequestAbortedError, TaskFailedError } from "../peer/shared/errors.js";
import { PeerAbortController, type AbortSignalLike } from "../peer/shared/signal.js";
import { parseTemplate } from "../uri-template/template.js";
import type { TaskInfo } from "../peer/client/task-client.js";
import type { CallToolResult, Tool } from "../types/index.js";
import { untrustedText as field } from "../codec/terminal-text.js";
import {
  RULES,
  errorText,
  gradeDiagnostics,
  gradeError,
  gradeListRefusal,
  gradeToolRefusal,
  gradeUnknownResource,
  gradeUnknownTool,
  tally,
  type CheckResult,
  type Diagnostic,
  type Tally,
} from "./grading.js";
import type { PendingDisplay } from "./progress.js";
import { destructiveReason } from "./safety.js";
import { synthesize } from "./synthesize.js";
import { SCHEMA_RELEASES } from "../rules/versions.js";
import type { CallOptions } from "../peer/shared/call-options.js";

export interface ReportOptions {
  /** Called with each finished check, in order. */
  print: (check: CheckResult) => void;
  /** Waits `ms` milliseconds (for the cancellation and subscription checks). */
  sleep: (ms: number) => Promise<void>;
  /** Also call tools that are destructive by annotations or name. Default false. */
  callDestructiveTools?: boolean;
  /** Per request: the wait for an answer or a progress notification. Default 30000. */
  timeoutMs?: number;
  /** Shows a pending request (elapsed time, progress). Default: nothing shown. */
  pending?: PendingDisplay;
  /** The connection's protocol diagnostics so far (its onDiagnostic events), graded at the end. */
  diagnostics?: () => readonly Diagnostic[];
  /** The run's budget: once aborted, the request in flight is cancelled and no further check runs (CLI-03). */
  signal?: AbortSignalLike;
  /** The most tools, resources, templates and prompts exercised, each (CLI-03). Default REPORT_MAX_ITEMS. */
  maxItems?: number;
}

/** How many of each listed kind (tools, resources, templates, prompts) a report exercises by default (CLI-03). */
export const REPORT_MAX_ITEMS = 100;

/** Thrown inside the report when the run's budget is spent: it ends the run, never a check. */
const STOPPED = Symbol("the run budget is spent");

/** Runs every check; resolves with how many checks got each grade. */
export async function runReport(client: Client, options: ReportOptions): Promise<Tally> {
  const checks: CheckResult[] = [];
  try {
    await exercise(client, options, (check) => {
      checks.push(check);
      options.print(check);
    });
  } catch (error) {
    if (error !== STOPPED) throw error;
    return { ...tally(checks), stopped: true };
  }
  return tally(checks);
}

/** The first `max` of a listing; a SKIP line names what is left out (CLI-03). */
function capped<T>(items: readonly T[], max: number, what: string, method: string, record: (check: CheckResult) => void): readonly T[] {
  if (items.length <= max) return items;
  record({
    name: `${method} (${items.length - max} more)`,
    grade: "SKIP",
    detail: `not tried: the report exercises the first ${max} of the ${items.length} ${what} listed (CLI-03)`,
  });
  return items.slice(0, max);
}

/** The checks, each handed to `record` when done; throws STOPPED when the run's budget is spent. */
async function exercise(client: Client, options: ReportOptions, record: (check: CheckResult) => void): Promise<void> {
  const budget = options.signal;
  /** Ends the run once its budget is spent. */
  const goOn = (): void => {
    if (budget?.aborted === true) throw STOPPED;
  };
  const max = options.maxItems ?? REPORT_MAX_ITEMS;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const refusedFails =
    (name: string) =>
    (error: McpError): CheckResult => ({ name, grade: "FAIL", detail: errorText(error), rule: RULES.capability });

  /** One request under the report's timeout, shown while pending: its value, or the grade of its failure. */
  const request = async <T>(
    name: string,
    run: (call: CallOptions) => Promise<T>,
    onRefused: (error: McpError) => CheckResult,
  ): Promise<{ value: T } | { failed: CheckResult }> => {
    goOn();
    const shown = options.pending?.(name);
    const call: CallOptions = {
      timeoutMs,
      resetTimeoutOnProgress: true,
      maxTotalMs: timeoutMs * 10,
      onProgress: (p) => shown?.progress(p),
      ...(budget !== undefined ? { signal: budget } : {}),
    };
    try {
      return { value: await run(call) };
    } catch (error) {
      // A request cancelled because the budget ran out is no outcome of the server's.
      goOn();
      return { failed: gradeError(name, error, onRefused) };
    } finally {
      shown?.end();
    }
  };
  /** A request whose success PASSes with `describe(value)`. */
  const check = async <T>(
    name: string,
    run: (call: CallOptions) => Promise<T>,
    describe: (value: T) => string,
    onRefused = refusedFails(name),
  ): Promise<T | undefined> => {
    const outcome = await request(name, run, onRefused);
    if ("failed" in outcome) {
      record(outcome.failed);
      return undefined;
    }
    record({ name, grade: "PASS", detail: describe(outcome.value) });
    return outcome.value;
  };

  const server = client.server;
  if (server === undefined) {
    record({ name: "initialize", grade: "FAIL", detail: "the client is not connected", rule: RULES.respond });
    return;
  }
  record({
    name: "initialize",
    grade: "PASS",
    detail:
      `${field(server.serverInfo.name)} ${field(server.serverInfo.version)}, protocol ${field(server.version)} ` +
      `(${server.era === "modern" ? "modern era: server/discover, stateless" : "session era: initialize"})`,
  });
  const caps = server.capabilities;
  let logMessages = 0;
  client.onNotification("notifications/message", () => logMessages++);

  const modern = server.era === "modern";
  // 2026-07-28 has no ping; any cheap request shows the server still answers.
  const aliveCall: CallOptions = { timeoutMs: 5000, ...(budget !== undefined ? { signal: budget } : {}) };
  const alive = (): Promise<unknown> => (modern ? client.request("server/discover", undefined, aliveCall) : client.ping(aliveCall));
  const aliveName = modern ? "server/discover" : "ping";
  await check(
    aliveName,
    () => alive(),
    () => "answered",
    (error) => ({ name: aliveName, grade: "FAIL", detail: errorText(error), rule: RULES.ping }),
  );

  // 2026-07-28 has no logging/setLevel: the level travels in every request's _meta (ClientOptions.logLevel).
  if (caps.logging !== undefined && !modern)
    await check(
      "logging/setLevel",
      (call) => client.setLoggingLevel("debug", call),
      () => "level debug",
    );

  /** The last task state seen per tool called through a task. */
  const tasks = new Map<string, TaskInfo>();

  let tools: Tool[] = [];
  if (caps.tools !== undefined) {
    tools =
      (await check(
        "tools/list",
        (call) => client.listTools(call),
        (list) => `${list.length} tools`,
        (error) => gradeListRefusal("tools/list", error),
      )) ?? [];
    for (const tool of capped(tools, max, "tools", "tools/call", record)) await callTool(tool);
    const unknown = "tools/call unknown tool";
    const outcome = await request(
      unknown,
      (call) => client.callTool("no_such_tool_mcp_engine", {}, call),
      (error) => gradeUnknownTool(unknown, { error }),
    );
    record("failed" in outcome ? outcome.failed : gradeUnknownTool(unknown, { isError: outcome.value.isError === true }));
    await referenceChecks();
  }

  async function callTool(tool: Tool): Promise<void> {
    const name = `tools/call ${field(tool.name)}`;
    const risky = destructiveReason(tool);
    if (risky !== undefined && options.callDestructiveTools !== true) {
      record({ name, grade: "SKIP", detail: `not called: ${risky} (--call-destructive calls it)` });
      return;
    }
    // 2025-11-25: a task needs the server's tasks.requests.tools.call; without it no task call may be made (and none is tried).
    const sessionTasks = (caps as { tasks?: { requests?: { tools?: { call?: unknown } } } }).tasks?.requests?.tools?.call !== undefined;
    if (tool.execution?.taskSupport === "required" && !modern && !sessionTasks) {
      record({
        name,
        grade: "SKIP",
        detail:
          'not called: its execution.taskSupport is "required" (TK-08: only as a task), ' +
          "and the server declares no tasks.requests.tools.call to run it as one",
      });
      return;
    }
    const args = synthesize(tool.inputSchema, { object: true });
    if (!args.ok) {
      record({ name, grade: "SKIP", detail: `not called: ${args.why}` });
      return;
    }
    const note = args.checked ? "" : `; ${args.note ?? "arguments not checked"}`;
    await check(
      name,
      // A tool that may or must run as a task is called through one (TK-08; the tasks extension under 2026-07-28).
      (call) =>
        client
          .callTool(tool.name, args.value as Record<string, unknown>, {
            ...call,
            onTask: (task) => (tasks.set(tool.name, task), undefined),
          })
          .catch((error: unknown): CallToolResult => {
            // A task that ended failed is a well-formed outcome of the tasks extension: the failed status carries the JSON-RPC error.
            if (error instanceof TaskFailedError)
              return { content: [{ type: "text", text: `task failed with ${error.code}` }], isError: true };
            throw error;
          }),
      (result) => {
        const first = result.content[0];
        const summary =
          first === undefined ? "no content" : first.type === "text" ? field(JSON.stringify(first.text.slice(0, 60))) : field(first.type);
        const task = tasks.get(tool.name);
        const failed = task?.status === "failed" ? ": a JSON-RPC error, as the failed status carries it" : "";
        const form = task?.form === "extension" ? "tasks extension" : `${SCHEMA_RELEASES.tasks} task-augmented`;
        const how = task === undefined ? "" : `, ran as a task (${form}, final status ${field(task.status)}${failed})`;
        return `${result.isError === true ? "isError result" : "result"}: ${result.content.length} block(s), ${summary}${how}${note}`;
      },
      (error) => gradeToolRefusal(name, error),
    );
  }

  /** Checks that need the reference server's own tools (progress and cancellation on demand). */
  async function referenceChecks(): Promise<void> {
    const progressTool = tools.find((t) => t.name === "test_tool_with_progress");
    if (progressTool !== undefined) {
      const seen: number[] = [];
      const result = await request(
        "progress",
        (call) => client.callTool(progressTool.name, {}, { ...call, onProgress: (p) => (call.onProgress?.(p), seen.push(p.progress)) }),
        (error) => ({ name: "progress", grade: "WARN", detail: errorText(error), rule: RULES.toolErrors }),
      );
      if ("failed" in result) record(result.failed);
      else if (seen.length === 0)
        record({ name: "progress", grade: "SKIP", detail: "no progress notifications were sent (they are optional, P-03)" });
      else record({ name: "progress", grade: "PASS", detail: `${seen.length} notifications: ${field(seen.join(", "))}` });
    }
    const slowTool = tools.find((t) => t.name === "test_tool_slow");
    if (slowTool === undefined) return;
    goOn();
    // Cancelled by the report itself 100 ms in: the budget needs no hold on it.
    const controller = new PeerAbortController();
    const call = client.callTool(slowTool.name, { durationMs: 30_000 }, { signal: controller.signal, timeoutMs: 60_000 });
    await options.sleep(100);
    controller.abort("the report cancels the slow call");
    try {
      await call;
      record({ name: "cancellation", grade: "WARN", detail: "the slow call finished instead of being cancelled", rule: RULES.cancel });
    } catch (error) {
      goOn();
      if (!(error instanceof RequestAbortedError)) {
        record(
          gradeError("cancellation", error, (e) => ({ name: "cancellation", grade: "WARN", detail: errorText(e), rule: RULES.cancel })),
        );
        return;
      }
      await check(
        "cancellation",
        () => alive(),
        () => "slow call cancelled; the server still answers",
      );
    }
  }

  if (caps.resources !== undefined) await resourceChecks();

  async function resourceChecks(): Promise<void> {
    const resources =
      (await check(
        "resources/list",
        (call) => client.listResources(call),
        (list) => `${list.length} resources`,
        (error) => gradeListRefusal("resources/list", error),
      )) ?? [];
    for (const resource of capped(resources, max, "resources", "resources/read", record)) {
      const name = `resources/read ${field(resource.uri)}`;
      await check(
        name,
        (call) => client.readResource(resource.uri, call),
        (result) =>
          `${result.contents.length} content(s)${result.contents[0]?.mimeType !== undefined ? `, ${field(result.contents[0].mimeType)}` : ""}`,
        (error) => ({ name, grade: "WARN", detail: `a listed resource was refused: ${errorText(error)}`, rule: RULES.readListed }),
      );
    }
    const templates =
      (await check(
        "resources/templates/list",
        (call) => client.listResourceTemplates(call),
        (list) => `${list.length} templates`,
        (error) => gradeListRefusal("resources/templates/list", error),
      )) ?? [];
    for (const template of capped(templates, max, "templates", "resources/read", record)) {
      const name = `resources/read ${field(template.uriTemplate)}`;
      let uri: string;
      try {
        const parsed = parseTemplate(template.uriTemplate);
        const vars = Object.create(null) as Record<string, string>; // names come from the server
        for (const variable of parsed.variableNames)
          vars[variable] = await completeOr({ type: "ref/resource", uri: template.uriTemplate }, variable, "1");
        uri = parsed.expand(vars);
      } catch (error) {
        record({ name, grade: "FAIL", detail: `not an RFC 6570 URI template: ${errorText(error)}`, rule: RULES.templates });
        continue;
      }
      const outcome = await request(
        name,
        (call) => client.readResource(uri, call),
        (error) => {
          const graded = gradeUnknownResource(name, { error }, modern);
          return graded.grade === "PASS" ? { ...graded, detail: `${field(uri)}: ${graded.detail} (the variables were guessed)` } : graded;
        },
      );
      record(
        "failed" in outcome
          ? outcome.failed
          : { name, grade: "PASS", detail: `${field(uri)}: ${outcome.value.contents.length} content(s)` },
      );
    }
    const first = resources[0];
    if (caps.resources?.subscribe === true && first !== undefined) {
      goOn();
      if (modern) {
        const name = `subscriptions/listen ${field(first.uri)}`;
        try {
          record({ name, grade: "PASS", detail: await listenOnce(client, first.uri, options) });
        } catch (error) {
          goOn();
          record(gradeError(name, error, refusedFails(name)));
        }
      } else {
        await check(
          `resources/subscribe ${field(first.uri)}`,
          async (call) => {
            await client.subscribeResource(first.uri, call);
            await client.unsubscribeResource(first.uri, call);
          },
          () => "subscribed and unsubscribed",
        );
      }
    }
    const unknown = "resources/read unknown";
    const outcome = await request(
      unknown,
      (call) => client.readResource("test://no-such-resource-mcp-engine", call),
      (error) => gradeUnknownResource(unknown, { error }, modern),
    );
    record("failed" in outcome ? outcome.failed : gradeUnknownResource(unknown, { contents: outcome.value.contents.length }, modern));
  }

  if (caps.prompts !== undefined) {
    const prompts =
      (await check(
        "prompts/list",
        (call) => client.listPrompts(call),
        (list) => `${list.length} prompts`,
        (error) => gradeListRefusal("prompts/list", error),
      )) ?? [];
    for (const prompt of capped(prompts, max, "prompts", "prompts/get", record)) {
      const name = `prompts/get ${field(prompt.name)}`;
      const args = Object.create(null) as Record<string, string>; // names come from the server
      for (const arg of prompt.arguments ?? [])
        if (arg.required === true) args[arg.name] = await completeOr({ type: "ref/prompt", name: prompt.name }, arg.name, "test");
      await check(
        name,
        (call) => client.getPrompt(prompt.name, args, call),
        (result) => `${result.messages.length} message(s)`,
        (error) => ({
          name,
          grade: "WARN",
          detail: `a listed prompt was refused with its required arguments filled: ${errorText(error)}`,
          rule: RULES.getListed,
        }),
      );
    }
    const withArgs = prompts.find((p) => (p.arguments ?? []).length > 0);
    if (caps.completions !== undefined && withArgs !== undefined) {
      const arg = (withArgs.arguments ?? [])[0]?.name as string;
      await check(
        `completion/complete ${field(withArgs.name)}.${field(arg)}`,
        (call) => client.complete({ ref: { type: "ref/prompt", name: withArgs.name }, argument: { name: arg, value: "" } }, call),
        (result) => {
          const values = result.completion.values;
          return `${values.length} value(s)${
            values.length > 0
              ? `: ${values
                  .slice(0, 5)
                  .map((v) => field(v))
                  .join(", ")}`
              : ""
          }`;
        },
      );
    }
  }

  goOn();
  // What the engine saw the server break while all of the above ran (P-05 progress, ids, phases, ...).
  if (options.diagnostics !== undefined) record(gradeDiagnostics(options.diagnostics()));

  if (caps.logging !== undefined) {
    record(
      logMessages > 0
        ? { name: "logging", grade: "PASS", detail: `${logMessages} log message(s) received` }
        : { name: "logging", grade: "SKIP", detail: "no log messages were sent (sending them is the server's choice)" },
    );
  }
  return;

  /** The first completion the server offers for an argument, or a fallback. */
  async function completeOr(
    ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string },
    name: string,
    fallback: string,
  ): Promise<string> {
    if (caps.completions === undefined) return fallback;
    try {
      const result = await client.complete(
        { ref, argument: { name, value: "" } },
        { timeoutMs, ...(budget !== undefined ? { signal: budget } : {}) },
      );
      return result.completion.values[0] ?? fallback;
    } catch {
      return fallback;
    }
  }
}

/** 2026-07-28: opens a subscriptions/listen stream for one URI, waits for its acknowledgement, then cancels it. */
async function listenOnce(client: Client, uri: string, options: ReportOptions): Promise<string> {
  const controller = new PeerAbortController();
  // The stream may stay open up to 5 s: a spent budget ends it at once.
  const spent = (): void => controller.abort("the run budget is spent");
  options.signal?.addEventListener("abort", spent, { once: true });
  let acknowledged: unknown;
  const stop = client.onNotification("notifications/subscriptions/acknowledged", (params) => {
    acknowledged = params?.notifications;
  });
  const listen = client.request(
    "subscriptions/listen",
    { notifications: { resourceSubscriptions: [uri] } },
    { signal: controller.signal, timeoutMs: Infinity },
  );
  // Settled below; until then a refusal must not be an unhandled rejection.
  listen.catch(() => undefined);
  try {
    for (let waited = 0; acknowledged === undefined && waited < 5000; waited += 20) {
      const refused = await Promise.race([
        listen.then(
          () => undefined,
          (error: unknown) => error,
        ),
        options.sleep(20).then(() => "waiting"),
      ]);
      if (refused !== "waiting") throw refused ?? new Error("subscriptions/listen ended before its acknowledgement");
    }
    if (acknowledged === undefined) throw new Error("no notifications/subscriptions/acknowledged within 5 s");
    controller.abort("the report ends the subscription");
    await listen.then(
      () => undefined,
      (error: unknown) => {
        if (!(error instanceof RequestAbortedError)) throw error;
      },
    );
    return `acknowledged ${field(JSON.stringify(acknowledged))}; cancelled`;
  } finally {
    stop();
    options.signal?.removeEventListener("abort", spent);
  }
}
