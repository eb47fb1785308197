// What a hostile or broken peer could do to the core, checked so that no input crashes, wedges
// or exhausts anything: sticky internal errors instead of throws, task status
// from the peer never used as an object key, bounded peer-fed tables with a clear outcome when
// full, prototype keys as log levels, the line decoder releasing its buffer, over-long lines
// whose id is still recovered, a discover probe that commits no era, and the one log-level rule.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  DEFAULT_FEATURE_LIMITS,
  Engine,
  LineDecoder,
  LineScanner,
  logAllowed,
  type DecodedItem,
  type EngineEvent,
  type EngineOptions,
  type FramingError,
  type JsonObject,
} from "../../lib/internal.js";

const CLIENT_INFO = { name: "c", version: "1" };
const SERVER_INFO = { name: "s", version: "1" };
const encoder = new TextEncoder();

function out(e: Engine): JsonObject[] {
  const into: JsonObject[] = [];
  for (let o = e.pollOutbound(); o !== undefined; o = e.pollOutbound()) into.push(o.message as unknown as JsonObject);
  return into;
}

function events(e: Engine): EngineEvent[] {
  const into: EngineEvent[] = [];
  e.takeEvents(into);
  return into;
}

function kinds(list: readonly EngineEvent[]): string[] {
  return list.map((e) => (e.kind === "violation" || e.kind === "diagnostic" ? `${e.kind}:${e.rule}` : e.kind));
}

/** A client engine in operation against a server declaring `serverCaps`, in `version`. */
function operatingClient(serverCaps: JsonObject, version = "2025-11-25", options: Partial<EngineOptions<"client">> = {}): Engine<"client"> {
  const c = new Engine({ role: "client", info: CLIENT_INFO, capabilities: { elicitation: { url: {} } }, ...options });
  c.initialize();
  out(c);
  c.receiveMessage({ jsonrpc: "2.0", id: 0, result: { protocolVersion: version, capabilities: serverCaps, serverInfo: SERVER_INFO } });
  out(c);
  events(c);
  return c;
}

function operatingServer(
  capabilities: JsonObject,
  version = "2025-11-25",
  options: Partial<EngineOptions<"server">> = {},
): Engine<"server"> {
  const s = new Engine({ role: "server", info: SERVER_INFO, capabilities, ...options });
  s.receiveMessage({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: version, capabilities: {}, clientInfo: CLIENT_INFO },
  });
  s.receiveMessage({ jsonrpc: "2.0", method: "notifications/initialized" });
  out(s);
  events(s);
  return s;
}

const TASK_CAPS: JsonObject = { tools: {}, tasks: { requests: { tools: { call: {} } } } };

/** Sends a task-augmented tools/call and answers it with a CreateTaskResult of `status`. */
function createTask(c: Engine<"client">, taskId: string, status: string): number {
  const id = c.request("tools/call", { name: "t", arguments: {}, task: { ttl: 1000 } });
  out(c);
  c.receiveMessage({
    jsonrpc: "2.0",
    id,
    result: { task: { taskId, status, createdAt: "2025-01-01T00:00:00Z", lastUpdatedAt: "2025-01-01T00:00:00Z", ttl: 1000 } },
  });
  return id;
}

/** A status push; `lastUpdatedAt` is `at` seconds after the task's creation. */
function statusNotification(taskId: string, status: string, at = 0): JsonObject {
  const lastUpdatedAt = new Date(Date.UTC(2025, 0, 1, 0, 0, at)).toISOString();
  return {
    jsonrpc: "2.0",
    method: "notifications/tasks/status",
    params: { taskId, status, createdAt: "2025-01-01T00:00:00Z", lastUpdatedAt, ttl: 1000 },
  };
}

describe("inputs never throw: a sticky internal error instead", () => {
  it("ENG-01: an exception inside an input closes the engine once with reason internal; queued output drains; later input is ignored", () => {
    const s = operatingServer({ tools: {} });
    s.receiveMessage({ jsonrpc: "2.0", id: 5, method: "ping" });
    const hostile = {
      jsonrpc: "2.0",
      id: 6,
      get method(): string {
        throw new Error("boom");
      },
    };
    assert.doesNotThrow(() => s.receiveMessage(hostile));
    assert.equal(s.isClosed, true);
    const closed = events(s).filter((e) => e.kind === "closed");
    assert.equal(closed.length, 1);
    assert.equal(closed[0]?.kind === "closed" && closed[0].reason, "internal");
    assert.match(closed[0]?.kind === "closed" ? closed[0].detail : "", /boom/);
    assert.deepEqual(out(s), [{ jsonrpc: "2.0", id: 5, result: {} }], "the answer queued before the failure still drains");
    assert.doesNotThrow(() => s.receiveBytes(encoder.encode('{"jsonrpc":"2.0","id":7,"method":"ping"}\n')));
    assert.doesNotThrow(() => s.receiveEof());
    assert.doesNotThrow(() => s.handleTimeout(1e12));
    assert.deepEqual(out(s), []);
    assert.deepEqual(events(s), [], "reported once");
  });

  it("ENG-01, S-01: settles our pending requests when it fails (connection-closed for each)", () => {
    const c = operatingClient({ tools: {} });
    const id = c.request("tools/list", {});
    out(c);
    c.receiveMessage({
      jsonrpc: "2.0",
      get id(): number {
        throw new RangeError("bad getter");
      },
      result: {},
    });
    const list = events(c);
    assert.deepEqual(kinds(list), ["connection-closed", "closed"]);
    assert.equal(list[0]?.kind === "connection-closed" && list[0].id, id);
  });
});

describe("task status from the peer is data, never a key (a status named like an Object.prototype member included)", () => {
  for (const status of ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"]) {
    it(`TK-03: a CreateTaskResult with status ${JSON.stringify(status)} is a TK-03 violation and a later status notification does not throw`, () => {
      const c = operatingClient(TASK_CAPS);
      createTask(c, "task-1", status);
      const first = events(c);
      assert.ok(kinds(first).includes("violation:TK-03"), kinds(first).join());
      assert.doesNotThrow(() => c.receiveBytes(encoder.encode(`${JSON.stringify(statusNotification("task-1", "working"))}\n`)));
      assert.doesNotThrow(() => c.receiveMessage(statusNotification("task-1", status)));
      const later = events(c);
      assert.ok(!kinds(later).includes("closed"), kinds(later).join());
      assert.ok(
        kinds(later).some((k) => k === "violation:TK-02" || k === "violation:SCH-03"),
        `an unknown status in a notification is refused: ${kinds(later).join()}`,
      );
      assert.equal(c.isClosed, false);
      // Still usable: a request goes out and its answer is matched.
      const id = c.request("tools/list", {});
      out(c);
      c.receiveMessage({ jsonrpc: "2.0", id, result: { tools: [] } });
      assert.deepEqual(kinds(events(c)), ["response"]);
    });
  }
});

describe("peer-fed tables are bounded, with a clear outcome when full", () => {
  it("LIM-04: task records (client): status notifications for ever new tasks stay within maxTasks; beyond it a limit violation", () => {
    const c = operatingClient(TASK_CAPS, "2025-11-25", { limits: { maxTasks: 8 } });
    for (let i = 0; i < 100; i++) c.receiveMessage(statusNotification(`t${i}`, "working"));
    const list = events(c);
    assert.equal(list.filter((e) => e.kind === "notification").length, 8);
    assert.equal(list.filter((e) => e.kind === "violation" && e.rule === "LIM-04").length, 92);
    assert.ok(c.tableSizes.tasksThere <= 8);
  });

  it("LIM-04: ended tasks are forgotten first, so a long run of tasks that end never fills the table", () => {
    const c = operatingClient(TASK_CAPS, "2025-11-25", { limits: { maxTasks: 4 } });
    for (let i = 0; i < 10_000; i++) {
      c.receiveMessage(statusNotification(`t${i}`, "working"));
      c.receiveMessage(statusNotification(`t${i}`, "completed"));
    }
    const list = events(c);
    assert.equal(list.filter((e) => e.kind === "violation").length, 0);
    assert.equal(list.filter((e) => e.kind === "notification").length, 20_000);
    assert.ok(c.tableSizes.tasksThere <= 4);
  });

  it("TK-02: task moves are still checked for the tasks it keeps: a running status pushed after the end is a violation; a second end unlike the first is one at any time", () => {
    const c = operatingClient(TASK_CAPS);
    c.receiveMessage(statusNotification("a", "completed", 1));
    c.receiveMessage(statusNotification("a", "working", 2));
    assert.deepEqual(kinds(events(c)), ["notification", "violation:TK-02"]);
    c.receiveMessage(statusNotification("a", "failed", 0));
    assert.deepEqual(kinds(events(c)), ["violation:TK-02"]);
  });

  it("TK-02: a running status pushed no later than the end (it travelled on another stream) is stale, not a move, and does not move the record", () => {
    const c = operatingClient(TASK_CAPS);
    c.receiveMessage(statusNotification("a", "working", 0));
    c.receiveMessage(statusNotification("a", "completed", 2));
    c.receiveMessage(statusNotification("a", "input_required", 1));
    c.receiveMessage(statusNotification("a", "working", 2));
    // Delivered as what arrived, with no violation; the record is not moved.
    assert.deepEqual(kinds(events(c)), ["notification", "notification", "notification", "notification"]);
    // The record kept the end: a push dated after it is still refused.
    c.receiveMessage(statusNotification("a", "working", 3));
    assert.deepEqual(kinds(events(c)), ["violation:TK-02"]);
  });

  it("TK-02: when the order cannot be told (an unreadable time, or an end learned from tasks/result), a running status after the end is stale", () => {
    const c = operatingClient(TASK_CAPS);
    c.receiveMessage(statusNotification("a", "completed", 1));
    const unreadable = statusNotification("a", "working", 2);
    (unreadable.params as JsonObject).lastUpdatedAt = "not a time";
    c.receiveMessage(unreadable);
    assert.deepEqual(kinds(events(c)), ["notification", "notification"]);
    // tasks/result ends task b without telling when; a later push of working cannot be ordered.
    const call = c.request("tools/call", { name: "slow", arguments: {}, task: { ttl: 1000 } });
    out(c);
    const created = { taskId: "b", status: "working", createdAt: "2025-01-01T00:00:00Z", lastUpdatedAt: "2025-01-01T00:00:00Z", ttl: 1000 };
    c.receiveMessage({ jsonrpc: "2.0", id: call, result: { task: created } });
    const result = c.request("tasks/result", { taskId: "b" });
    out(c);
    c.receiveMessage({
      jsonrpc: "2.0",
      id: result,
      result: { content: [], _meta: { "io.modelcontextprotocol/related-task": { taskId: "b" } } },
    });
    events(c);
    c.receiveMessage(statusNotification("b", "working", 9));
    assert.deepEqual(kinds(events(c)), ["notification"]);
  });

  it("TK-02: a tasks/get answer for a request sent before a notification ended the task is stale, not a move; asked after the end, it is one", () => {
    const c = operatingClient(TASK_CAPS);
    c.receiveMessage(statusNotification("a", "working"));
    const before = c.request("tasks/get", { taskId: "a" });
    out(c);
    c.receiveMessage(statusNotification("a", "completed", 1));
    const task = { taskId: "a", status: "working", createdAt: "2025-11-25T10:00:00Z", lastUpdatedAt: "2025-11-25T10:00:00Z", ttl: null };
    c.receiveMessage({ jsonrpc: "2.0", id: before, result: task });
    assert.deepEqual(kinds(events(c)), ["notification", "notification", "response"]);
    // The record kept the end: a later move away from it is refused, by notification or by an answer asked after it.
    const after = c.request("tasks/get", { taskId: "a" });
    out(c);
    c.receiveMessage({ jsonrpc: "2.0", id: after, result: task });
    assert.deepEqual(kinds(events(c)), ["violation:TK-02", "response"]);
    c.receiveMessage(statusNotification("a", "working", 2));
    assert.deepEqual(kinds(events(c)), ["violation:TK-02"]);
  });

  it("LIM-05: URL elicitations (client): beyond maxUrlElicitations the request is refused -32603, and a refused request records nothing", () => {
    const c = operatingClient({}, "2025-11-25", { limits: { maxUrlElicitations: 2, maxPendingInbound: 3 } });
    const ask = (id: number, elicitationId: string): void =>
      c.receiveMessage({
        jsonrpc: "2.0",
        id,
        method: "elicitation/create",
        params: { mode: "url", message: "m", url: "https://example.com", elicitationId },
      });
    ask(1, "e1");
    ask(2, "e2");
    ask(3, "e3");
    assert.deepEqual(
      out(c).map((m) => (m.error as JsonObject | undefined)?.code),
      [-32603],
    );
    assert.equal(c.tableSizes.urlElicitations, 2);
    // maxPendingInbound (3) refuses before anything is recorded.
    c.respond(1, { action: "accept" });
    c.respond(2, { action: "accept" });
    c.receiveMessage({ jsonrpc: "2.0", method: "notifications/elicitation/complete", params: { elicitationId: "e1" } });
    c.receiveMessage({ jsonrpc: "2.0", method: "notifications/elicitation/complete", params: { elicitationId: "e2" } });
    events(c);
    for (let i = 10; i < 13; i++) ask(i, `x${i}`);
    ask(20, "over-the-pending-limit");
    assert.equal((out(c).at(-1)?.error as JsonObject | undefined)?.code, -32603);
    assert.equal(c.tableSizes.urlElicitations, 2, "only the accepted requests were recorded");
  });

  it("LIM-07: resource subscriptions (server): beyond maxSubscriptions a subscribe is refused -32603", () => {
    const s = operatingServer({ resources: { subscribe: true } }, "2025-11-25", { limits: { maxSubscriptions: 3 } });
    for (let i = 1; i <= 5; i++) {
      s.receiveMessage({ jsonrpc: "2.0", id: i, method: "resources/subscribe", params: { uri: `file:///r${i}` } });
      const request = events(s).find((e) => e.kind === "request");
      if (request !== undefined) s.respond(i, {});
    }
    const replies = out(s);
    assert.deepEqual(
      replies.map((m) => (m.error as JsonObject | undefined)?.code ?? "ok"),
      ["ok", "ok", "ok", -32603, -32603],
    );
    assert.equal(s.tableSizes.subscriptions, 3);
    // An existing subscription may be renewed when full.
    s.receiveMessage({ jsonrpc: "2.0", id: 9, method: "resources/subscribe", params: { uri: "file:///r1" } });
    assert.deepEqual(kinds(events(s)), ["request"]);
  });

  it("LIM-06: tool names (client): a tools/list beyond maxToolNames is a limit violation; a fresh listing replaces the old one", () => {
    const c = operatingClient(TASK_CAPS, "2025-11-25", { limits: { maxToolNames: 5 } });
    const list = (tools: number, cursor?: string): void => {
      const id = c.request("tools/list", cursor === undefined ? {} : { cursor });
      out(c);
      c.receiveMessage({
        jsonrpc: "2.0",
        id,
        result: { tools: Array.from({ length: tools }, (_, i) => ({ name: `tool${cursor ?? ""}${i}`, inputSchema: { type: "object" } })) },
      });
    };
    list(5);
    assert.deepEqual(kinds(events(c)), ["response"]);
    list(3, "p2");
    assert.deepEqual(kinds(events(c)), ["violation:LIM-06", "response"], "a later page beyond the limit");
    list(4);
    assert.deepEqual(kinds(events(c)), ["response"], "a first page starts over");
    assert.equal(c.tableSizes.toolNames, 4);
  });

  it("LIM-04, LIM-05, LIM-06, LIM-07: has documented defaults", () => {
    assert.deepEqual(DEFAULT_FEATURE_LIMITS, { maxTasks: 1024, maxUrlElicitations: 256, maxToolNames: 4096, maxSubscriptions: 1024 });
  });
});

describe("log levels from the peer are names, never keys", () => {
  for (const level of ["toString", "constructor", "__proto__", "hasOwnProperty"]) {
    it(`O-04: 2026-07-28: logLevel ${JSON.stringify(level)} is -32602`, () => {
      const s = new Engine({ role: "server", info: SERVER_INFO, capabilities: { tools: {}, logging: {} }, versions: ["2026-07-28"] });
      s.receiveMessage({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/logLevel": level,
          },
        },
      });
      const [reply] = out(s);
      assert.equal((reply?.error as JsonObject | undefined)?.code, -32602);
      assert.ok(!kinds(events(s)).includes("request"));
    });

    it(`O-04: session era: logging/setLevel ${JSON.stringify(level)} is -32602`, () => {
      const s = operatingServer({ logging: {} });
      s.receiveMessage({ jsonrpc: "2.0", id: 1, method: "logging/setLevel", params: { level } });
      assert.equal((out(s)[0]?.error as JsonObject | undefined)?.code, -32602);
    });
  }

  it("O-03, MOD-03: one rule for both eras: asked-for level and above; not asked: everything in the session era, nothing in 2026-07-28", () => {
    assert.equal(logAllowed("info", "info", "session"), true);
    assert.equal(logAllowed("debug", "info", "modern"), false);
    assert.equal(logAllowed("error", "info", "modern"), true);
    assert.equal(logAllowed("debug", undefined, "session"), true);
    assert.equal(logAllowed("emergency", undefined, "modern"), false);
    assert.equal(logAllowed("toString", undefined, "session"), false);
    assert.equal(logAllowed("info", "toString", "session"), false);
  });
});

describe("the line decoder releases what one big line grew", () => {
  it("LIM-01: after a 7 MiB line spread over chunks its buffer is back to at most 64 KiB", () => {
    const decoder = new LineDecoder();
    const items: DecodedItem[] = [];
    const line = encoder.encode(`"${"x".repeat(7 * 1024 * 1024)}"\n`);
    for (let i = 0; i < line.length; i += 65_536) decoder.push(line.subarray(i, i + 65_536), items);
    assert.equal(items.length, 1);
    assert.equal(items[0]?.ok, true);
    assert.ok(decoder.retainedBytes <= 64 * 1024, `retained ${decoder.retainedBytes}`);
    decoder.push(encoder.encode('{"a"'), items);
    decoder.push(encoder.encode(":1}\n"), items);
    assert.deepEqual(items[1], { ok: true, value: { a: 1 }, line: 2 });
  });
});

describe("over-long lines: the id is still recovered", () => {
  const facts = (text: string, pieces = 1): ReturnType<LineScanner["finish"]> => {
    const scanner = new LineScanner();
    const bytes = encoder.encode(text);
    const size = Math.max(1, Math.ceil(bytes.length / pieces));
    for (let i = 0; i < bytes.length; i += size) scanner.feed(bytes, i, Math.min(bytes.length, i + size));
    return scanner.finish();
  };
  const cases: Array<[string, string | number | undefined, boolean, boolean]> = [
    ['{"jsonrpc":"2.0","id":7,"result":{}}', 7, false, true],
    ['{"result":{"id":99,"x":"\\"id\\":5"},"jsonrpc":"2.0","id":12}', 12, false, true],
    ['{ "id" : "abc\\"d" , "method":"ping"}', 'abc"d', true, true],
    ['{"id":"é€😀","method":"x"}', "é€😀", true, true],
    ['{"method":"notifications/x","params":{"id":3}}', undefined, true, false],
    ['{"id":[1],"method":"ping"}', undefined, true, true],
    ['{"id":{"a":1},"result":{}}', undefined, false, true],
    ['{"id":1.5,"result":{}}', undefined, false, true],
    ['{"id":9007199254740993,"result":{}}', undefined, false, true],
    [`{"id":"${"z".repeat(300)}","result":{}}`, undefined, false, true],
    ['[{"id":1,"result":{}}]', undefined, false, false],
    ['"id"', undefined, false, false],
    ['{"id":1,"id":2,"result":{}}', 2, false, true],
    ['{"idx":1,"methods":2,"result":{}}', undefined, false, false],
    ['{"id":null,"error":{}}', undefined, false, true],
    ['  {"id":-3,"error":{}}', -3, false, true],
  ];
  for (const [text, id, hasMethod, hasId] of cases) {
    it(`LIM-01: scans ${text.length > 60 ? `${text.slice(0, 60)}…` : text}`, () => {
      for (const pieces of [1, 3, text.length]) {
        const found = facts(text, pieces);
        assert.deepEqual({ id: found.id, hasMethod: found.hasMethod, hasId: found.hasId }, { id, hasMethod, hasId }, `in ${pieces} pieces`);
        assert.equal(found.bytes, encoder.encode(text).length);
      }
    });
  }

  it("LIM-01: the decoder reports the facts of an over-long line whatever the split, in constant memory", () => {
    const line = `{"result":{"blob":"${"b".repeat(5000)}"},"jsonrpc":"2.0","id":41}\r\n`;
    const bytes = encoder.encode(line);
    for (const size of [1, 7, 100, 4096, bytes.length]) {
      const decoder = new LineDecoder({ maxLineBytes: 1000 });
      const items: DecodedItem[] = [];
      for (let i = 0; i < bytes.length; i += size) decoder.push(bytes.subarray(i, i + size), items);
      assert.equal(items.length, 1, `chunks of ${size}`);
      const error = items[0] as FramingError;
      assert.equal(error.reason, "line-too-long");
      assert.deepEqual(error.facts, { id: 41, hasMethod: false, hasId: true, bytes: bytes.length - 2 });
      assert.ok(decoder.retainedBytes <= 1001);
    }
  });

  it("LIM-01: a response over the limit settles its request at once (response-too-large) and sends nothing back", () => {
    const c = operatingClient({ resources: {} }, "2025-11-25", { limits: { maxLineBytes: 1024 } });
    const id = c.request("resources/read", { uri: "file:///big" }, { deadline: 60_000 });
    out(c);
    c.receiveBytes(
      encoder.encode(`{"result":{"contents":[{"uri":"file:///big","blob":"${"A".repeat(4000)}"}]},"jsonrpc":"2.0","id":${id}}\n`),
    );
    const list = events(c);
    assert.deepEqual(kinds(list), ["response-too-large", "violation:LIM-01"]);
    const settled = list[0];
    assert.ok(settled?.kind === "response-too-large");
    assert.equal(settled.id, id);
    assert.equal(settled.method, "resources/read");
    assert.equal(settled.limit, 1024);
    assert.ok(settled.bytes > 4000);
    assert.deepEqual(out(c), [], "a response is never answered");
    assert.equal(c.pendingOutboundCount, 0);
    assert.equal(c.nextDeadline(), undefined, "its deadline is gone");
  });

  it("LIM-01, M-08: an over-long notification gets no reply; an over-long request gets -32600 with its own id", () => {
    const s = operatingServer({ tools: {} }, "2025-06-18", { limits: { maxLineBytes: 64 } });
    s.receiveBytes(encoder.encode(`{"jsonrpc":"2.0","method":"notifications/x","params":{"p":"${"x".repeat(100)}"}}\n`));
    assert.deepEqual(out(s), []);
    s.receiveBytes(encoder.encode(`{"jsonrpc":"2.0","method":"tools/call","params":{"p":"${"x".repeat(100)}"},"id":"r-1"}\n`));
    assert.deepEqual(out(s), [{ jsonrpc: "2.0", id: "r-1", error: { code: -32600, message: "Line exceeds maxLineBytes (64)" } }]);
  });
});

describe("a server/discover probe commits no era (stdio fallback in place)", () => {
  it("MOD-08, MOD-23: discover naming an unknown version, then initialize for 2025-11-25 on the same connection: a session", () => {
    const s = new Engine({ role: "server", info: SERVER_INFO, capabilities: { tools: {} }, versions: ["2025-11-25", "2026-07-28"] });
    s.receiveMessage({
      jsonrpc: "2.0",
      id: 1,
      method: "server/discover",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2027-01-01", "io.modelcontextprotocol/clientCapabilities": {} } },
    });
    const [discover] = out(s);
    assert.deepEqual((discover?.result as JsonObject).supportedVersions, ["2026-07-28", "2025-11-25"]);
    assert.equal(s.era, "undecided");
    s.receiveMessage({
      jsonrpc: "2.0",
      id: 2,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: CLIENT_INFO },
    });
    const [init] = out(s);
    assert.equal((init?.result as JsonObject).protocolVersion, "2025-11-25");
    assert.equal(s.era, "session");
  });

  it("MOD-08, MOD-06: with discoverAnyVersion false the probe gets -32022 and initialize still works", () => {
    const s = new Engine({ role: "server", info: SERVER_INFO, versions: ["2025-11-25", "2026-07-28"], discoverAnyVersion: false });
    s.receiveMessage({
      jsonrpc: "2.0",
      id: 1,
      method: "server/discover",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2027-01-01", "io.modelcontextprotocol/clientCapabilities": {} } },
    });
    assert.equal((out(s)[0]?.error as JsonObject | undefined)?.code, -32022);
    s.receiveMessage({
      jsonrpc: "2.0",
      id: 2,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: CLIENT_INFO },
    });
    assert.equal((out(s)[0]?.result as JsonObject).protocolVersion, "2025-11-25");
  });
});

describe("the peer layer: an answer over maxLineBytes rejects its call at once", () => {
  it("LIM-01: callTool rejects with ResponseTooLargeError naming the size and the limit; the connection goes on", async () => {
    const { Pair } = await import("../support/peer-harness.js");
    const { ResponseTooLargeError } = await import("../../lib/peer/index.js");
    const pair = new Pair({
      client: { limits: { maxLineBytes: 4096 } },
      setup: (s) => {
        s.tool("big", {}, () => ({ content: [{ type: "text", text: "x".repeat(10_000) }] }));
        s.tool("small", {}, () => ({ content: [{ type: "text", text: "ok" }] }));
      },
    });
    await pair.connect();
    const error = await pair.client.callTool("big").then(
      () => assert.fail("expected a rejection"),
      (e: unknown) => e,
    );
    assert.ok(error instanceof ResponseTooLargeError, String(error));
    assert.equal(error.limit, 4096);
    assert.ok(error.bytes > 10_000);
    assert.match(error.message, /maxLineBytes \(4096\)/);
    const small = await pair.client.callTool("small");
    assert.deepEqual(small.content, [{ type: "text", text: "ok" }]);
  });
});
