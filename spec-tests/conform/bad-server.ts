// Known-bad stdio servers for spec-tests/conform/known-bad.long.test.ts: one correct server (this
// project's peer Server with the conformance profile's tools, `slow`, the trigger tools and
// `echo`) and, with
// --fault NAME, the same server breaking exactly one rule through a filter on its input or
// output lines. The conformance runner must flag that rule and nothing else.
//
//   node dist/spec-tests/conform/bad-server.js --serve [--fault NAME]
//
// Without --serve the program exits at once (the test runner may load every file).
// Faults (the rule each breaks):
//   no-parse-error-reply   no answer to a line that is not JSON (M-01)
//   drop-batch             every JSON array read is dropped unanswered (M-09)
//   params-32603           -32602 for params that fail validation goes out as -32603 (JR-02)
//   ignore-cancel-id-0     a cancellation of request id 0 is dropped before it arrives
//   duplicate-answers      every response is written twice (JR-01)
//   ungated-prompts        prompts/* requests are answered although prompts was not declared (C-01)
//   ungated-sampling       conform_request sends sampling/createMessage to a client that did not declare sampling (C-01)
//   silent-cancel          conform_cancel abandons the request without notifications/cancelled
//   unchecked-progress     conform_progress sends every value it is asked for, increasing or not (P-05)

import { nodeHost } from "../../lib/hosts/stdio.js";
import { ProtocolMisuseError } from "../../lib/peer/shared/errors.js";
import { Server } from "../../lib/peer/server/server.js";
import { registerProfileTools } from "../../lib/cli/conform/profile-tools.js";

const argv = process.argv.slice(2);
if (!argv.includes("--serve")) process.exit(0);
const at = argv.indexOf("--fault");
const fault = at >= 0 ? argv[at + 1] : undefined;

const server = new Server({ info: { name: "known-bad", version: "1" } });
// The conformance profile's tools (slow and the trigger tools); two faults hook their refusals.
registerProfileTools(server, {
  onRefused: (kind, method, params, error) => {
    // A sampling request the engine refused for the client's missing capability goes out anyway.
    const rule = error instanceof ProtocolMisuseError ? error.rule : undefined;
    if (fault === "ungated-sampling" && kind === "request" && method === "sampling/createMessage" && rule === "C-01")
      process.stdout.write(
        JSON.stringify({ jsonrpc: "2.0", id: `bad-${++badIds}`, method, ...(params !== undefined ? { params } : {}) }) + "\n",
      );
  },
});
let badIds = 0;
server.tool(
  "echo",
  { description: "Echoes its text", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
  (args) => ({
    content: [{ type: "text", text: typeof args.text === "string" ? args.text : "" }],
  }),
);

const decoder = new TextDecoder();
const encoder = new TextEncoder();
const parse = (line: string): unknown => {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
};
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Inbound request methods by id, for the ungated-prompts fault. */
const methods = new Map<string, string>();

function inbound(line: string): string | undefined {
  const value = parse(line);
  if (fault === "drop-batch" && Array.isArray(value)) return undefined;
  if (
    fault === "ignore-cancel-id-0" &&
    isRecord(value) &&
    value.method === "notifications/cancelled" &&
    isRecord(value.params) &&
    value.params.requestId === 0
  )
    return undefined;
  if (isRecord(value) && typeof value.method === "string" && Object.hasOwn(value, "id"))
    methods.set(JSON.stringify(value.id), value.method);
  if (
    fault === "unchecked-progress" &&
    isRecord(value) &&
    value.method === "tools/call" &&
    isRecord(value.params) &&
    value.params.name === "conform_progress"
  )
    return uncheckedProgress(value, value.params);
  return line;
}

/** The progress a conform_progress call asks for, written as asked (no check that it increases); the call itself then sends none. */
function uncheckedProgress(message: Record<string, unknown>, params: Record<string, unknown>): string {
  const token = isRecord(params._meta) ? params._meta.progressToken : undefined;
  const asked = isRecord(params.arguments) && Array.isArray(params.arguments.progress) ? params.arguments.progress : [];
  if (token !== undefined)
    for (const p of asked.filter(isRecord))
      process.stdout.write(
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, ...p } }) + "\n",
      );
  return JSON.stringify({ ...message, params: { ...params, arguments: { progress: [] } } });
}

function outbound(line: string): string[] {
  const value = parse(line);
  if (!isRecord(value)) return [line];
  const error = isRecord(value.error) ? value.error : undefined;
  if (fault === "no-parse-error-reply" && error?.code === -32700) return [];
  // Invalid params found by validation (the engine names the member in data.path) goes out as -32603.
  if (fault === "params-32603" && error?.code === -32602 && isRecord(error.data) && Object.hasOwn(error.data, "path"))
    return [JSON.stringify({ ...value, error: { ...error, code: -32603 } })];
  if (fault === "ungated-prompts" && error?.code === -32601 && (methods.get(JSON.stringify(value.id)) ?? "").startsWith("prompts/")) {
    return [JSON.stringify({ jsonrpc: "2.0", id: value.id, result: { prompts: [], messages: [] } })];
  }
  if (fault === "silent-cancel" && value.method === "notifications/cancelled") return [];
  if (fault === "duplicate-answers" && Object.hasOwn(value, "id") && !Object.hasOwn(value, "method")) return [line, line];
  return [line];
}

let pendingOut = "";
const host = nodeHost(
  (bytes) => {
    const lines = (pendingOut + decoder.decode(bytes)).split("\n");
    pendingOut = lines.pop() ?? "";
    for (const line of lines) for (const out of outbound(line)) process.stdout.write(out + "\n");
  },
  () => session.onTimer(),
);
const session = server.connect(host);

// Input is split into lines as bytes, so what is not UTF-8 reaches the server as it came; a line
// goes through the filter only as text, and a partial line waits for its end.
let pendingIn = new Uint8Array(0);
const concat = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
};
process.stdin.on("data", (chunk: Uint8Array) => {
  let bytes = concat(pendingIn, chunk);
  const kept: Uint8Array[] = [];
  for (let nl = bytes.indexOf(10); nl >= 0; nl = bytes.indexOf(10)) {
    const line = bytes.subarray(0, nl + 1);
    const text = decoder.decode(line).trim();
    const filtered = inbound(text);
    // A line the filter rewrote reaches the server rewritten; any other as its bytes came.
    if (filtered !== undefined) kept.push(filtered === text ? line : encoder.encode(filtered + "\n"));
    bytes = bytes.subarray(nl + 1);
  }
  pendingIn = bytes.slice();
  for (const line of kept) session.receiveBytes(line);
});
process.stdin.on("end", () => {
  if (pendingIn.length > 0) session.receiveBytes(pendingIn);
  session.receiveEof();
  host.armTimer(undefined);
});
