// The conformance profile's tools (fixtures/FORMAT.md, "Conformance profile") on this
// project's peer Server: `slow` (runs until cancelled, at most 300 ms) and the trigger tools
// `conform_request`, `conform_notify`, `conform_cancel`, `conform_progress`,
// `conform_end_subscriptions`, through which a runner without a host adapter makes the server
// send a request, a notification, a cancellation, progress on the call's own token, or end its
// 2026-07-28 subscriptions/listen streams. Registered by
// `mcp-engine serve` (lib/cli/reference-server.ts) and the known-bad servers of the tests.
//
// Invariants: every send goes through the session's ordinary API (ServerSession.request /
// notify, HandlerContext.log), so the engine's own checks apply and a refused send answers the
// tools/call with isError; pending requests are held only while their tools/call runs.

import { McpError } from "../../peer/shared/errors.js";
import { PeerAbortController } from "../../peer/shared/signal.js";
import type { Server } from "../../peer/server/server.js";
import type { HandlerContext } from "../../peer/server/server-options.js";
import type { CallToolResult, LoggingLevel } from "../../types/index.js";

const OBJECT_ARGS = { type: "object" } as const;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function text(value: unknown, isError = false): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value ?? null) }], ...(isError ? { isError: true } : {}) };
}

function refusal(error: unknown): CallToolResult {
  const message = error instanceof Error ? error.message : String(error);
  return text({ error: { message, ...(error instanceof McpError ? { code: error.code } : {}) } }, true);
}

/** What a handler may change of the request it is asked to send: only what JSON carries. */
function paramsOf(args: Record<string, unknown>): Record<string, unknown> | undefined {
  return isRecord(args.params) ? args.params : undefined;
}

export interface ProfileToolOptions {
  /** A hook on each send, for known-bad servers (a fault may write something of its own instead). */
  readonly onRefused?: (kind: "request" | "notify", method: string, params: object | undefined, error: unknown) => void;
}

/** The progress values a conform_progress call asks for, in order (entries without a numeric `progress` are skipped). */
function progressOf(args: Record<string, unknown>): { progress: number; total?: number; message?: string }[] {
  const list = Array.isArray(args.progress) ? args.progress : [];
  return list.filter(isRecord).flatMap((p) =>
    typeof p.progress === "number"
      ? [
          {
            progress: p.progress,
            ...(typeof p.total === "number" ? { total: p.total } : {}),
            ...(typeof p.message === "string" ? { message: p.message } : {}),
          },
        ]
      : [],
  );
}

/** Registers `slow` and the five trigger tools on `server`. */
export function registerProfileTools(server: Server, options: ProfileToolOptions = {}): void {
  // By the id of the conform_request tools/call that waits for it: the abort of its request.
  const pending = new Map<string, PeerAbortController>();
  const key = (id: unknown): string => JSON.stringify(id);
  let tokens = 0;

  server.tool(
    "slow",
    { description: "Runs until cancelled, at most 300 ms", inputSchema: OBJECT_ARGS },
    (_args, context) =>
      new Promise<CallToolResult>((resolve) => {
        const timer = setTimeout(() => resolve(text("done")), 300);
        context.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve(text("cancelled"));
        });
      }),
  );

  server.tool(
    "conform_request",
    { description: "Sends the request to the client; answers with the client's answer", inputSchema: OBJECT_ARGS },
    async (args, context: HandlerContext) => {
      if (typeof args.method !== "string") return text({ error: { message: "method must be a string" } }, true);
      const abort = new PeerAbortController();
      pending.set(key(context.requestId), abort);
      const params = paramsOf(args);
      try {
        // The session's request() refuses, unsent, what the engine's gates refuse (capability, version, _meta keys).
        // progress: true asks for progress on a token of ours (the session API sends requests without one;
        // progress for it is then dropped as for an unknown token, which puts nothing on the wire either way).
        const meta = isRecord(params?._meta) ? params._meta : {};
        const sent = args.progress === true ? { ...params, _meta: { ...meta, progressToken: `conform-progress-${++tokens}` } } : params;
        const result = await context.session.request(args.method as "ping", sent, { signal: abort.signal });
        return text({ result });
      } catch (error) {
        if (!(error instanceof McpError)) options.onRefused?.("request", args.method, params, error);
        return refusal(error);
      } finally {
        pending.delete(key(context.requestId));
      }
    },
  );

  server.tool(
    "conform_notify",
    { description: "Sends the notification to the client", inputSchema: OBJECT_ARGS },
    (args, context: HandlerContext) => {
      if (typeof args.method !== "string") return text({ error: { message: "method must be a string" } }, true);
      const params = paramsOf(args);
      try {
        // A log message goes through the logging API, which honours logging/setLevel.
        if (
          args.method === "notifications/message" &&
          isRecord(params) &&
          typeof params.level === "string" &&
          Object.keys(params).every((k) => k === "level" || k === "logger" || k === "data")
        ) {
          context.log(params.level as LoggingLevel, params.data, typeof params.logger === "string" ? params.logger : undefined);
        } else context.session.notify(args.method, params);
        return text({ sent: true });
      } catch (error) {
        options.onRefused?.("notify", args.method, params, error);
        return refusal(error);
      }
    },
  );

  server.tool(
    "conform_progress",
    { description: "Sends the given progress on this call's own progress token, then answers", inputSchema: OBJECT_ARGS },
    (args, context: HandlerContext) => {
      // Through the handler's progress API: it sends nothing without a token, after the answer, or for a value that does not increase.
      const values = progressOf(args);
      for (const p of values) context.progress(p.progress, p.total, p.message);
      return text({ asked: values.length });
    },
  );

  server.tool(
    "conform_end_subscriptions",
    { description: "Ends every open subscriptions/listen stream with its final result (2026-07-28)", inputSchema: OBJECT_ARGS },
    (_args, context: HandlerContext) => {
      try {
        context.session.endSubscriptions();
        return text({ ended: true });
      } catch (error) {
        return refusal(error);
      }
    },
  );

  server.tool(
    "conform_cancel",
    { description: "Cancels the request a conform_request call is waiting for", inputSchema: OBJECT_ARGS },
    (args) => {
      const abort = pending.get(key(args.call));
      if (abort === undefined) return text({ cancelled: false });
      abort.abort(typeof args.reason === "string" ? args.reason : "cancelled by conform_cancel");
      return text({ cancelled: true });
    },
  );
}
