// The HTTP replay of the conformance corpus (fixtures/http/, lib/cli/conform/ (http*.ts)): its
// fixtures parse and cite rules RULES.md has; its matching language does what FORMAT.md says;
// every case passes against our fetch handler in process and against `mcp-engine serve
// --http` over a socket; each known-bad server (our handler with one rule broken) is flagged
// for that rule and no other; and the official SDK v1 Streamable HTTP server gets its
// deviations reported by rule, with our policies never counted as failures.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { loadHttpFixtures, parseHttpFixture, replayCase, runHttpConformance, type HttpFixture } from "../../lib/cli/conform/http.js";
import type { FetchLike } from "../../lib/cli/conform/http-replay.js";
import { matchValue, MissingCapture, substitute, type Captures } from "../../lib/cli/conform/http-match.js";
import type { CaseResult } from "../../lib/cli/conform/types.js";
import { createReferenceServer } from "../../lib/cli/reference-server.js";
import { createHttpHandler } from "../../lib/http-server/index.js";
import { FIXTURES, inProcessFetch, tally } from "../tools/http-conform-run.js";
import { parseRules } from "../support/rules-inventory.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = join(ROOT, "dist", "lib", "cli", "main.js");
const SDK_V1 = join(ROOT, "spec-tests", "foreign", "sdk-v1-http-server.mjs");
const URL_IN_PROCESS = "http://127.0.0.1/mcp";

type Handle = (request: Request) => Promise<Response>;

function referenceHandler(t: TestContext): Handle {
  const handler = createHttpHandler(createReferenceServer({ paginationSecret: randomBytes(32), sleep: async () => undefined }));
  t.after(() => handler.close());
  return (request) => handler.fetch(request);
}

/** The cases that count as failures: failed, and not a policy of ours. */
function failures(results: readonly CaseResult[]): CaseResult[] {
  return results.filter((r) => r.outcome === "failed" && r.level !== "policy");
}

function describe(results: readonly CaseResult[]): string {
  return results.map((r) => `${r.outcome} ${r.fixture}@${r.version} [${r.rules.join(", ")}] ${r.reason ?? ""}`).join("\n");
}

/** Starts a server process and resolves with the URL it prints (`listening on URL`) on stderr. */
function startServer(t: TestContext, args: readonly string[]): Promise<string> {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"] });
  t.after(() => {
    child.kill("SIGTERM");
  });
  let stderr = "";
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(" ")} did not start within 20 s: ${stderr}`)), 20_000);
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
      const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        resolve(url);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(" ")} exited (${String(code)}) before listening: ${stderr}`));
    });
  });
}

test("every HTTP fixture parses, its id is its path, and the rules it lists have RULES.md entries", () => {
  const fixtures = loadHttpFixtures(FIXTURES);
  const rules = parseRules(readFileSync(join(ROOT, "RULES.md"), "utf8"));
  assert.ok(fixtures.length >= 30, `only ${fixtures.length} fixtures`);
  for (const f of fixtures) for (const id of f.rules) assert.ok(rules.has(id), `${f.fixture} cites ${id}, which RULES.md lacks`);
  const eras = new Set(fixtures.map((f) => f.era));
  assert.deepEqual([...eras].sort(), ["modern", "session"]);
});

test("a malformed fixture is refused with what is wrong", () => {
  const good = {
    fixture: "http/x",
    title: "t",
    era: "session",
    versions: ["2025-11-25"],
    rules: ["HTTP-01"],
    level: "MUST",
    spec: "s",
    exchanges: [{ name: "a", request: { method: "POST" }, expect: { status: 200 } }],
  };
  assert.equal(typeof parseHttpFixture(JSON.stringify(good), "http/x"), "object");
  const bad: [unknown, RegExp][] = [
    ["{", /not JSON/],
    [[], /expected a JSON object/],
    [{ ...good, extra: 1 }, /unknown member extra/],
    [{ ...good, fixture: "http/y" }, /must be the file's id/],
    [{ ...good, era: "future" }, /"era"/],
    [{ ...good, versions: ["2024-11-05"] }, /"versions"/],
    [{ ...good, rules: [] }, /"rules"/],
    [{ ...good, level: "MUST NOT" }, /"level"/],
    [{ ...good, requires: "sessions" }, /"requires"/],
    [{ ...good, exchanges: [] }, /"exchanges"/],
    [{ ...good, exchanges: [{ name: "a", request: { method: "post" }, expect: {} }] }, /request.method/],
    [{ ...good, exchanges: [{ name: "a", request: { method: "POST", json: {}, text: "" }, expect: {} }] }, /both json and text/],
    [{ ...good, exchanges: [{ name: "a", request: { method: "POST" }, expect: { status: "4x" } }] }, /status must be/],
    [{ ...good, exchanges: [{ name: "a", request: { method: "POST" }, expect: { json: {}, response: {} } }] }, /at most one of/],
    [
      { ...good, exchanges: [{ name: "a", request: { method: "POST" }, expect: { headers: { A: { match: "(" } } } }] },
      /not a regular expression/,
    ],
    [
      { ...good, exchanges: [{ name: "a", request: { method: "POST" }, expect: {}, unsupportedIf: { status: 405 } }] },
      /needs the "feature"/,
    ],
    [
      { ...good, exchanges: [{ name: "a", request: { method: "POST" }, expect: { anyOf: [{ status: 200 }], status: 200 } }] },
      /anyOf stands alone/,
    ],
  ];
  for (const [value, reason] of bad) {
    const parsed = parseHttpFixture(typeof value === "string" ? value : JSON.stringify(value), "http/x");
    assert.equal(typeof parsed, "string", `accepted ${JSON.stringify(value)}`);
    assert.match(parsed as string, reason);
  }
});

test("the matching language: wildcards, alternatives, negation, captures, unordered arrays and placeholders", () => {
  const c: Captures = new Map();
  assert.equal(matchValue({ a: 1, b: 2 }, { a: 1 }, c), undefined, "extra members are allowed");
  assert.match(matchValue({ a: 1 }, { a: 2 }, c) ?? "", /\$\.a: expected 2, got 1/);
  assert.equal(matchValue({}, { a: "$absent" }, c), undefined);
  assert.match(matchValue({ a: 1 }, { a: "$absent" }, c) ?? "", /expected no member/);
  assert.equal(matchValue({ a: null }, { a: "$absentOrNull" }, c), undefined);
  assert.match(matchValue({}, { a: "$any" }, c) ?? "", /expected a value/);
  assert.equal(matchValue(-32600, { $oneOf: [-32602, -32600] }, c), undefined);
  assert.match(matchValue(-32603, { $oneOf: [-32602, -32600] }, c) ?? "", /one of 2 alternatives/);
  assert.equal(matchValue("2025-06-18", { $not: "2025-11-25" }, c), undefined);
  assert.match(matchValue("2025-11-25", { $not: "2025-11-25" }, c) ?? "", /anything but/);
  assert.equal(matchValue(["a", "b"], { $contains: "b" }, c), undefined);
  assert.match(matchValue(["a"], { $contains: "b" }, c) ?? "", /an element matching/);
  assert.equal(matchValue("s1:0", { $regex: "^s\\d:" }, c), undefined);
  assert.match(matchValue(7, { $regex: "x" }, c) ?? "", /a string matching/);
  assert.equal(matchValue(3, { $type: "integer" }, c), undefined);
  assert.match(matchValue("3", { $type: "integer" }, c) ?? "", /expected integer/);
  assert.equal(matchValue([{ id: 3 }, { id: 2 }], { $unordered: [{ id: 2 }, { id: 3 }] }, c), undefined);
  assert.match(matchValue([{ id: 2 }, { id: 2 }], { $unordered: [{ id: 2 }, { id: 3 }] }, c) ?? "", /no element matches/);
  assert.match(matchValue([1], [1, 2], c) ?? "", /expected 2 elements/);
  assert.equal(matchValue("$any", { $literal: "$any" }, c), undefined);
  // A capture is kept only when the whole match succeeds.
  assert.match(matchValue({ id: "x", n: 1 }, { id: { $capture: "id" }, n: 2 }, c) ?? "", /expected 2/);
  assert.equal(c.has("id"), false);
  assert.equal(matchValue({ id: "x", n: 1 }, { id: { $capture: "id", $match: { $type: "string" } } }, c), undefined);
  assert.equal(c.get("id"), "x");
  // Placeholders: a whole string takes the value itself, `${name?}` may be missing, `${name}` may not.
  c.set("n", 5);
  assert.deepEqual(
    substitute({ a: "${n}", b: "id-${id}", c: "${gone?}", d: ["${gone?}", 1] }, c),
    Object.assign(Object.create(null) as object, { a: 5, b: "id-x", d: [1] }),
  );
  assert.throws(
    () => substitute("${gone}", c),
    (error: unknown) => error instanceof MissingCapture && error.capture === "gone",
  );
});

test("a target that fails, hangs or withholds a capture: failed for a check, not applicable for a setup step or a missing capture", async () => {
  const fixture = (exchanges: unknown[]): HttpFixture => {
    const parsed = parseHttpFixture(
      JSON.stringify({
        fixture: "http/t",
        title: "t",
        era: "session",
        versions: ["2025-11-25"],
        rules: ["HTTP-01"],
        level: "MUST",
        spec: "s",
        exchanges,
      }),
      "http/t",
    );
    assert.equal(typeof parsed, "object", String(parsed));
    return parsed as HttpFixture;
  };
  const check = { name: "check", request: { method: "POST", headers: {} }, expect: { status: 200 } };
  const refusing: FetchLike = () => Promise.reject(new Error("connection refused"));
  const hanging: FetchLike = () => new Promise(() => undefined);
  const answering: FetchLike = async () => new Response("{}", { status: 200, headers: { "Content-Type": "application/json" } });
  const silentStream: FetchLike = async () =>
    new Response(new ReadableStream({}), { status: 200, headers: { "Content-Type": "text/event-stream" } });
  const failed = await replayCase(fixture([check]), "2025-11-25", "http://x/mcp", refusing);
  assert.equal(failed.outcome, "failed");
  assert.match(failed.reason ?? "", /exchange "check": request failed: connection refused/);
  const hung = await replayCase(fixture([check]), "2025-11-25", "http://x/mcp", hanging, { exchangeMs: 20 });
  assert.match(hung.reason ?? "", /no answer within 20 ms/);
  const silent = await replayCase(
    fixture([{ ...check, expect: { status: 200, events: [{ data: "" }] } }]),
    "2025-11-25",
    "http://x/mcp",
    silentStream,
    { exchangeMs: 20 },
  );
  assert.equal(silent.outcome, "failed");
  assert.match(silent.reason ?? "", /event 0: expected one, got 0 events \(the stream gave no more within 20 ms\)/);
  const setup = await replayCase(
    fixture([{ ...check, setup: true, expect: { status: 201 } }, check]),
    "2025-11-25",
    "http://x/mcp",
    answering,
  );
  assert.equal(setup.outcome, "not-applicable");
  assert.match(setup.reason ?? "", /setup exchange "check" did not go as expected: status: expected 201, got 200/);
  const uncaptured = await replayCase(
    fixture([{ ...check, request: { method: "POST", headers: { "Mcp-Session-Id": "${session}" } } }]),
    "2025-11-25",
    "http://x/mcp",
    answering,
  );
  assert.equal(uncaptured.outcome, "not-applicable");
  assert.match(uncaptured.reason ?? "", /nothing captured for \$\{session\}/);
  const passed = await replayCase(fixture([check]), "2025-11-25", "http://x/mcp", answering);
  assert.deepEqual(passed, {
    fixture: "http/t",
    version: "2025-11-25",
    transport: "http",
    rules: ["HTTP-01"],
    level: "MUST",
    outcome: "passed",
  });
});

test("HTTP-01, HTTP-02, HTTP-03, MOD-20: every HTTP fixture passes against createHttpHandler in process", async (t) => {
  const results = await runHttpConformance(URL_IN_PROCESS, { fixturesDir: FIXTURES, fetch: inProcessFetch(referenceHandler(t)) });
  assert.ok(results.length >= 70, `only ${results.length} cases`);
  assert.deepEqual(
    results.filter((r) => r.outcome !== "passed"),
    [],
    describe(results.filter((r) => r.outcome !== "passed")),
  );
  const versions = new Set(results.map((r) => r.version));
  assert.deepEqual([...versions].sort(), ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]);
});

test("the versions option keeps only the cases of those versions", async (t) => {
  const results = await runHttpConformance(URL_IN_PROCESS, {
    fixturesDir: join(FIXTURES, "http"),
    versions: ["2026-07-28"],
    fetch: inProcessFetch(referenceHandler(t)),
  });
  assert.ok(results.length > 0);
  assert.deepEqual([...new Set(results.map((r) => r.version))], ["2026-07-28"]);
  assert.ok(results.every((r) => r.transport === "http" && r.fixture.startsWith("http/modern/")));
});

test("HTTP-01, HTTP-02, HTTP-03, MOD-20: every HTTP fixture passes against `mcp-engine serve --http` over a socket", async (t) => {
  const url = await startServer(t, [CLI, "serve", "--http", "127.0.0.1:0"]);
  assert.match(url, /\/mcp$/);
  const results = await runHttpConformance(url, { fixturesDir: FIXTURES });
  assert.deepEqual(
    results.filter((r) => r.outcome !== "passed"),
    [],
    describe(results.filter((r) => r.outcome !== "passed")),
  );
});

/** Our handler with one rule broken: `bend` rewrites the request going in or the answer coming out. */
function knownBad(t: TestContext, bend: (request: Request, next: Handle) => Promise<Response>): typeof fetch {
  const handle = referenceHandler(t);
  return inProcessFetch((request) => bend(request, handle));
}

const KNOWN_BAD: [string, string, (request: Request, next: Handle) => Promise<Response>][] = [
  [
    "answers an unknown or ended session 400 instead of 404",
    "HTTP-03",
    async (request, next) => {
      const response = await next(request);
      if (response.status !== 404 || request.headers.get("mcp-session-id") === null) return response;
      return new Response(await response.text(), { status: 400, headers: { "Content-Type": "application/json" } });
    },
  ],
  [
    "answers JSON to a POST that accepts only text/event-stream",
    "HTTP-11",
    async (request, next) => {
      const accept = request.headers.get("accept") ?? "";
      if (request.method !== "POST" || accept.includes("application/json") || !accept.includes("text/event-stream")) return next(request);
      const headers: [string, string][] = [];
      request.headers.forEach((value, name) => headers.push([name, name === "accept" ? "application/json, text/event-stream" : value]));
      return next(new Request(request.url, { method: "POST", headers, body: await new Response(request.body).text() }));
    },
  ],
  [
    "answers an accepted notification 200 instead of 202",
    "HTTP-02",
    async (request, next) => {
      const response = await next(request);
      return response.status === 202 ? new Response("", { status: 200 }) : response;
    },
  ],
  [
    "opens its SSE streams without the priming event (and never sends anything on a GET stream)",
    "HTTP-09",
    async (request, next) => {
      const response = await next(request);
      if (request.method !== "GET" || response.status !== 200) return response;
      // A stream that stays open and silent: the replay must give up on it at its deadline, not hang.
      const silent = new ReadableStream({ cancel: () => response.body?.cancel().catch(() => undefined) });
      return new Response(silent, { status: 200, headers: { "Content-Type": "text/event-stream" } });
    },
  ],
];

for (const [name, rule, bend] of KNOWN_BAD) {
  test(`a known-bad server that ${name} is flagged for ${rule} only`, async (t) => {
    const results = await runHttpConformance(URL_IN_PROCESS, { fixturesDir: FIXTURES, fetch: knownBad(t, bend) });
    const failed = failures(results);
    assert.ok(failed.length > 0, `nothing flagged ${rule}`);
    assert.deepEqual([...new Set(failed.flatMap((r) => r.rules))], [rule], describe(failed));
    t.diagnostic(`flagged: ${failed.map((r) => `${r.fixture}@${r.version}`).join(", ")}`);
  });
}

// The deviations of the SDK v1 server (1.32.2), each with the reason it is one.
const SDK_V1_DEVIATIONS: Record<string, string> = {
  "http/session/origin-untrusted-refused@2025-03-26": "HTTP-08: no Origin validation unless the app enables DNS rebinding protection",
  "http/session/origin-untrusted-refused@2025-06-18": "HTTP-08: the same",
  "http/session/origin-untrusted-403@2025-11-25": "HTTP-08: the same",
  "http/session/batch-refused-after-2025-03-26@2025-06-18": "M-09: JSON-RPC batches are answered under every version",
  "http/session/batch-refused-after-2025-03-26@2025-11-25": "M-09: the same",
  "http/session/get-stream-priming-event@2025-11-25": "HTTP-09: no priming event on the GET stream without an event store",
};

test("HTTP-08, HTTP-09, M-09: the official SDK v1 Streamable HTTP server: its deviations are reported by rule, and none of our policies counts as a failure", async (t) => {
  const url = await startServer(t, [SDK_V1]);
  const results = await runHttpConformance(url, { fixturesDir: FIXTURES });
  for (const [rule, row] of tally(results)) t.diagnostic(`${rule}: passed ${row.passed}, failed ${row.failed}, not applicable ${row.na}`);
  const failed = failures(results);
  assert.deepEqual(failed.map((r) => `${r.fixture}@${r.version}`).sort(), Object.keys(SDK_V1_DEVIATIONS).sort(), describe(failed));
  // Our policies differ from the SDK's choices (an unknown Last-Event-ID answered 200 there): informative only.
  const policies = results.filter((r) => r.level === "policy" && r.outcome === "failed");
  assert.ok(policies.length > 0 && policies.every((r) => r.rules.every((id) => id === "HTTP-12")), describe(policies));
  // It speaks no 2026-07-28: every case of that era is not applicable, none failed.
  const modern = results.filter((r) => r.version === "2026-07-28");
  assert.ok(modern.length > 0 && modern.every((r) => r.outcome === "not-applicable"), describe(modern));
});
