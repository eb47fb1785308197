// The HTTP client transport's bounds against hostile servers on loopback (node:http, port 0):
// a JSON-RPC answer is read to maxResponseBytes and an error body to 64 KiB, each stream then
// cancelled (LIM-13); a redirect is followed by hand within the request's origin only, at most
// 5 times, so nothing a request carries reaches another origin (HTTP-14); a request's POST ends
// with the request, a notification's at postTimeoutMs (T-05). Also the rules of
// redirects.ts one by one, and a check of the sources that bodies are read in body.ts only.

import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { createServer } from "node:http";
import { HttpBodyLimitError } from "../../lib/http-client/body.js";
import { HttpRedirectError, redirectStep, type Hop, type RedirectAnswer } from "../../lib/http-client/redirects.js";
import { connectHttpNode } from "../../lib/hosts/http-client-node.js";
import { HttpHost } from "../../lib/hosts/http-server.js";
import { Server } from "../../lib/peer/server/server.js";
import { HttpAuthError, HttpTransportError } from "../../lib/peer/shared/errors.js";
import { rejection, sleep, withTimeout } from "../support/helpers.js";
import { endless, json, redirect, site } from "../auth/hostile.js";
import { after } from "../auth/protected.js";

const INFO = { name: "bounds-test", version: "1.0.0" };
const MiB = 1024 * 1024;
const NEAR_CAP = 16 * MiB;
const root = fileURLToPath(new URL("../../../", import.meta.url));

function connect(url: string, extra: Partial<Parameters<typeof connectHttpNode>[0]> = {}): Promise<unknown> {
  return rejection(
    withTimeout(connectHttpNode({ url, info: INFO, versions: ["2025-11-25"], standaloneStream: false, ...extra }), 15_000, "connect"),
  );
}

// ── LIM-13 ────────────────────────────────────────────────

test("LIM-13: a JSON-RPC answer past maxResponseBytes: the request rejects with HttpBodyLimitError and the stream is cancelled", async (t) => {
  const s = await site(t);
  s.routes.set("/mcp", endless(s, '{"jsonrpc":"2.0","id":0,"result":{"padding":"'));
  const error = await connect(`${s.base}/mcp`, { maxResponseBytes: MiB });
  assert.ok(error instanceof HttpBodyLimitError, `expected HttpBodyLimitError, got ${String(error)}`);
  assert.equal(error.rule, "LIM-13");
  assert.equal(error.limit, MiB);
  assert.ok(error.received > MiB, String(error.received));
  assert.match(error.message, /expected a JSON-RPC answer of at most 1048576 bytes/);
  await withTimeout(s.closed, 5000, "the client closes the endless answer");
  assert.ok(s.written < NEAR_CAP, `the server wrote ${s.written} bytes`);
});

test("LIM-13: by default a JSON-RPC answer is read to 32 MiB", async (t) => {
  const s = await site(t);
  s.routes.set("/mcp", endless(s, '{"jsonrpc":"2.0","id":0,"result":{"padding":"'));
  const error = await connect(`${s.base}/mcp`);
  assert.ok(error instanceof HttpBodyLimitError, `expected HttpBodyLimitError, got ${String(error)}`);
  assert.equal(error.limit, 32 * MiB);
  await withTimeout(s.closed, 5000, "the client closes the endless answer");
  assert.ok(s.written < 32 * MiB + NEAR_CAP, `the server wrote ${s.written} bytes`);
});

test("LIM-13: an error body, and a 401 challenge's, is read to 64 KiB only: the request fails with the status", async (t) => {
  const s = await site(t);
  s.routes.set("/mcp", endless(s, "<html>", 500));
  const error = await connect(`${s.base}/mcp`);
  assert.ok(error instanceof HttpTransportError && error.status === 500, String(error));
  await withTimeout(s.closed, 5000, "the client closes the endless error body");
  assert.ok(s.written < NEAR_CAP, `the server wrote ${s.written} bytes`);

  const refusing = await site(t);
  refusing.routes.set("/mcp", (req, res, body) => endless(refusing, "<html>", 401)(req, res, body));
  const challenge = await connect(`${refusing.base}/mcp`);
  assert.ok(challenge instanceof HttpAuthError, String(challenge));
  assert.ok((challenge.body ?? "").length <= 2049, "at most 2048 characters are quoted");
  await withTimeout(refusing.closed, 5000, "the client closes the endless challenge body");
  assert.ok(refusing.written < NEAR_CAP, `the server wrote ${refusing.written} bytes`);
});

// ── HTTP-14 ────────────────────────────────────────────────

test("HTTP-14: a POST carrying a token redirected (307) to another origin: that origin receives nothing and the request fails", async (t) => {
  const s = await site(t);
  const other = await site(t);
  other.routes.set("/mcp", json({ jsonrpc: "2.0", id: 0, error: { code: -32600, message: "stolen" } }));
  s.routes.set("/mcp", redirect(`${other.base}/mcp`));
  const error = await connect(`${s.base}/mcp`, { headers: { Authorization: "Bearer secret", DPoP: "proof" } });
  assert.ok(error instanceof HttpRedirectError, `expected HttpRedirectError, got ${String(error)}`);
  assert.equal(error.rule, "HTTP-14");
  assert.equal(error.got, `HTTP 307 to ${other.base}`);
  assert.deepEqual(other.seen, [], "no header, body or session id reached the other origin");
});

test("HTTP-14: redirects within the origin are followed (at most 5), each hop asked again with the same method, headers and body", async (t) => {
  const server = new Server({
    info: { name: "behind-redirects", version: "1" },
    versions: ["2025-11-25"],
  });
  const host = new HttpHost(server, { onError: () => undefined });
  const hops = ["/h1", "/h2", "/h3", "/h4", "/h5", "/h6"];
  const asked: { path: string; method: string; key: unknown }[] = [];
  const http = createServer((req, res) => {
    const path = req.url ?? "/";
    asked.push({ path, method: req.method ?? "", key: req.headers["x-api-key"] });
    const at = hops.indexOf(path);
    if (at < 0) return host.handle(req, res);
    req.resume();
    res.writeHead(at % 2 === 0 ? 307 : 308, { Location: hops[at + 1] ?? "/mcp" });
    res.end();
  });
  const port = await new Promise<number>((resolve) =>
    http.listen(0, "127.0.0.1", () => {
      const address = http.address();
      resolve(typeof address === "object" && address !== null ? address.port : 0);
    }),
  );
  after(
    t,
    () =>
      new Promise<void>((resolve) => {
        host.closeAll();
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  const base = `http://127.0.0.1:${port}`;
  const connection = await withTimeout(
    connectHttpNode({ url: `${base}/h2`, info: INFO, versions: ["2025-11-25"], standaloneStream: false, headers: { "X-Api-Key": "k" } }),
    15_000,
    "connect through five redirects",
  );
  try {
    await withTimeout(connection.client.ping(), 5000, "ping through five redirects");
    const endpoint = asked.filter((r) => r.path === "/mcp");
    assert.ok(endpoint.length >= 3, "initialize, initialized and ping reached the endpoint");
    assert.ok(
      asked.every((r) => r.method === "POST" && r.key === "k"),
      "each hop is the same POST with the same headers",
    );
  } finally {
    await connection.close();
  }
  const before = asked.filter((r) => r.path === "/mcp").length;
  const error = await connect(`${base}/h1`);
  assert.ok(error instanceof HttpRedirectError, `six redirects: ${String(error)}`);
  assert.match(error.expected, /at most 5 redirects/);
  assert.equal(asked.filter((r) => r.path === "/mcp").length, before, "the sixth hop is not asked");
});

test("HTTP-14: redirectStep: same origin followed as fetch would (303 and 301/302 after a POST become a GET), anything else refused", () => {
  const post: Hop = { url: "https://a.example/mcp", method: "POST", body: "{}" };
  const answer = (status: number, location: string | null, extra: Partial<RedirectAnswer> = {}): RedirectAnswer => ({
    status,
    headers: { get: (name) => (name === "location" ? location : null) },
    ...extra,
  });
  assert.deepEqual(redirectStep(post, answer(200, null), 0, 5), { kind: "final" });
  assert.deepEqual(redirectStep(post, answer(307, null), 0, 5), { kind: "final" }, "a 3xx without Location is the answer");
  assert.deepEqual(redirectStep(post, answer(307, "/next?x=1#f"), 0, 5), {
    kind: "follow",
    hop: { url: "https://a.example/next?x=1", method: "POST", body: "{}" },
  });
  assert.deepEqual(redirectStep(post, answer(308, "https://A.EXAMPLE:443/n"), 0, 5), {
    kind: "follow",
    hop: { url: "https://a.example/n", method: "POST", body: "{}" },
  });
  for (const status of [301, 302, 303])
    assert.deepEqual(redirectStep(post, answer(status, "/n"), 0, 5), {
      kind: "follow",
      hop: { url: "https://a.example/n", method: "GET", body: undefined },
    });
  const get: Hop = { url: "https://a.example/m", method: "GET", body: undefined };
  assert.deepEqual(redirectStep(get, answer(301, "/n"), 0, 5), {
    kind: "follow",
    hop: { url: "https://a.example/n", method: "GET", body: undefined },
  });
  const refused = (step: ReturnType<typeof redirectStep>): string => (step.kind === "refuse" ? step.got : `not refused: ${step.kind}`);
  assert.equal(
    refused(redirectStep(post, answer(307, "http://a.example/mcp"), 0, 5)),
    "HTTP 307 to http://a.example",
    "the scheme is part of the origin",
  );
  assert.equal(refused(redirectStep(post, answer(307, "https://a.example:8443/mcp"), 0, 5)), "HTTP 307 to https://a.example:8443");
  assert.equal(refused(redirectStep(post, answer(307, "//b.example/mcp"), 0, 5)), "HTTP 307 to https://b.example");
  assert.match(refused(redirectStep(post, answer(307, "https://user@a.example/mcp"), 0, 5)), /HTTP 307 to "https:\/\/user@/);
  assert.match(refused(redirectStep(post, answer(307, "javascript:alert(1)"), 0, 5)), /HTTP 307 to "javascript/);
  assert.equal(refused(redirectStep(post, answer(307, "/n"), 5, 5)), "redirect 6, HTTP 307");
  assert.match(refused(redirectStep(post, answer(0, null, { type: "opaqueredirect" }), 0, 5)), /opaque redirect/);
  assert.match(refused(redirectStep(post, answer(200, null, { redirected: true }), 0, 5)), /following a redirect itself/);
});

test("LIM-13, HTTP-14: in lib/http-client and lib/auth, only body.ts takes a body's reader, no body is read whole, and every fetch is told redirect: manual", () => {
  const problems: string[] = [];
  for (const dir of ["lib/http-client", "lib/auth"]) {
    for (const name of readdirSync(join(root, dir))) {
      if (!name.endsWith(".ts")) continue;
      const file = `${dir}/${name}`;
      // The code only: comments may name what they avoid.
      const source = readFileSync(join(root, file), "utf8")
        .split("\n")
        .filter((line) => !/^\s*(\/\/|\/?\*)/.test(line))
        .join("\n");
      if (file !== "lib/http-client/body.ts" && /\.getReader\(/.test(source)) problems.push(`${file} takes a body's reader`);
      if (/\.(text|json|arrayBuffer|blob|formData)\(\)/.test(source)) problems.push(`${file} reads a body whole`);
      for (const init of source.matchAll(/: FetchInit<S> = \{[^}]*\}/g))
        if (!init[0].includes('redirect: "manual"')) problems.push(`${file}: ${init[0]}`);
    }
  }
  assert.deepEqual(problems, []);
});

// ── T-05 ────────────────────────────────────────────────

test("T-05: a request that times out has its POST aborted; a notification's POST the server never answers is aborted at postTimeoutMs and reported", async (t) => {
  const s = await site(t);
  let silentAnswers = 0;
  const closed: Promise<void>[] = [];
  s.routes.set("/mcp", (req, res, body) => {
    if (req.method !== "POST") {
      res.writeHead(405);
      res.end();
      return;
    }
    const message = JSON.parse(body) as { id?: number; method?: string };
    if (message.method === "initialize") {
      res.writeHead(200, { "Content-Type": "application/json", "Mcp-Session-Id": "s1" });
      res.end(
        JSON.stringify({
          jsonrpc: "2.0",
          id: message.id,
          result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "slow", version: "1" } },
        }),
      );
      return;
    }
    if (message.method === "notifications/initialized" || message.method === "notifications/cancelled") {
      res.writeHead(202);
      res.end();
      return;
    }
    // A ping, or the roots notification: accepted, never answered.
    silentAnswers++;
    closed.push(new Promise<void>((resolve) => res.on("close", () => resolve())));
  });
  const errors: HttpTransportError[] = [];
  const connection = await withTimeout(
    connectHttpNode({
      url: `${s.base}/mcp`,
      info: INFO,
      versions: ["2025-11-25"],
      standaloneStream: false,
      capabilities: { roots: { listChanged: true } },
      postTimeoutMs: 300,
      onError: (e) => errors.push(e),
    }),
    10_000,
    "connect",
  );
  try {
    await rejection(connection.client.ping({ timeoutMs: 300 }));
    assert.equal(silentAnswers, 1);
    await withTimeout(closed[0] as Promise<void>, 3000, "the timed-out request's POST is aborted");
    connection.client.notify("notifications/roots/list_changed");
    for (let i = 0; i < 100 && closed.length < 2; i++) await sleep(10);
    await withTimeout(closed[1] as Promise<void>, 3000, "the notification's POST is aborted at postTimeoutMs");
    for (let i = 0; i < 100 && !errors.some((e) => e.message.includes("[T-05]")); i++) await sleep(10);
    assert.ok(
      errors.some((e) => /\[T-05\] expected an answer within 300 ms/.test(e.message)),
      JSON.stringify(errors.map((e) => e.message)),
    );
  } finally {
    await connection.close();
  }
});
