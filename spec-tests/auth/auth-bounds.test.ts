// The bounds of the OAuth client against hostile servers on loopback (node:http, port 0),
// through connectHttpNode as an application uses it and through `mcp-engine client <url>`:
// an endless metadata, registration or token body is read to its 1 MiB cap and no further
// (LIM-13); a URL that never answers, or stalls its body, fails the flow at its deadline, and a
// whole flow ends at flowTimeoutMs (AUTH-16); a request carrying secrets follows no redirect,
// and a metadata GET follows a few within its origin only (AUTH-17).

import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import type { OAuthFlowError } from "../../lib/auth/errors.js";
import { HttpBodyLimitError } from "../../lib/http-client/body.js";
import { HttpRedirectError } from "../../lib/http-client/redirects.js";
import {
  connectHttpNode,
  nodeHttpTransport,
  type NodeConnectHttpOptions,
  type NodeHttpAuthOptions,
} from "../../lib/hosts/http-client-node.js";
import { Client } from "../../lib/peer/client/client.js";
import { HttpAuthError } from "../../lib/peer/shared/errors.js";
import { rejection, runNode, sleep, withTimeout } from "../support/helpers.js";
import { asMetadata, challenge, endless, json, redirect, silent, site, type Site } from "./hostile.js";

const MAIN = fileURLToPath(new URL("../../lib/cli/main.js", import.meta.url));
const INFO = { name: "bounds-test", version: "1.0.0" };
const MiB = 1024 * 1024;
/** What an endless body may have handed to the socket when the client closed it: the cap, and the socket buffers. */
const NEAR_CAP = 16 * MiB;
/** A machine client with a secret: its flow reaches the token endpoint without a browser. */
const MACHINE: NodeHttpAuthOptions = { grant: "client_credentials", client: { clientId: "cid", clientSecret: "top-secret" } };

/** A protected MCP endpoint (/mcp, always 401) with its metadata, registration and token endpoints, all on one origin. */
async function protectedSite(t: TestContext): Promise<Site> {
  const s = await site(t);
  s.routes.set("/mcp", challenge(`${s.base}/prm`));
  s.routes.set("/prm", json({ resource: `${s.base}/mcp`, authorization_servers: [s.base] }));
  s.routes.set("/.well-known/oauth-authorization-server", json(asMetadata(s.base)));
  s.routes.set("/register", json({ client_id: "registered", client_secret: "s" }, 201));
  s.routes.set("/token", json({ access_token: "tok", token_type: "Bearer" }));
  return s;
}

/** Connects with OAuth to `s`'s /mcp; the refusal the flow could not lift, the flow's failures, the time it took. */
async function attempt(
  s: Site,
  auth: NodeHttpAuthOptions,
  extra: Partial<NodeConnectHttpOptions> = {},
): Promise<{ error: unknown; errors: OAuthFlowError[]; elapsed: number }> {
  const errors: OAuthFlowError[] = [];
  const started = Date.now();
  const error = await rejection(
    withTimeout(
      connectHttpNode({
        url: `${s.base}/mcp`,
        info: INFO,
        versions: ["2025-11-25"],
        standaloneStream: false,
        ...extra,
        auth: { ...auth, onError: (e) => errors.push(e) },
      }),
      15_000,
      "connect",
    ),
  );
  return { error, errors, elapsed: Date.now() - started };
}

function failure(errors: OAuthFlowError[], rule: string): OAuthFlowError {
  const found = errors.find((e) => e.rule === rule);
  assert.ok(found !== undefined, `no ${rule} failure; the flow reported: ${JSON.stringify(errors.map((e) => e.message))}`);
  return found;
}

// ── LIM-13: bodies ────────────────────────────────────────────────

const ENDLESS: ReadonlyArray<readonly [string, string, NodeHttpAuthOptions]> = [
  ["protected resource metadata", "/prm", MACHINE],
  ["authorization server metadata", "/.well-known/oauth-authorization-server", MACHINE],
  ["registration", "/register", { grant: "client_credentials" }],
  ["token", "/token", MACHINE],
];

for (const [name, path, auth] of ENDLESS) {
  test(`LIM-13: an endless ${name} answer: the client reads 1 MiB, cancels the stream, and the flow fails naming the cap`, async (t) => {
    const s = await protectedSite(t);
    s.routes.set(path, endless(s, path === "/register" ? '{"client_id":"' : '{"resource":"', path === "/register" ? 201 : 200));
    const { error, errors } = await attempt(s, auth);
    assert.ok(error instanceof HttpAuthError, `the refusal comes back: ${String(error)}`);
    const limit = failure(errors, "body-limit");
    assert.ok(limit.cause instanceof HttpBodyLimitError, "the cause is the typed cap");
    assert.equal(limit.cause.limit, MiB);
    assert.ok(limit.cause.received > MiB && limit.cause.received < 2 * MiB, `${limit.cause.received} bytes arrived`);
    assert.match(limit.message, new RegExp(`at most ${MiB} bytes from ${s.base}${path.replace(/[.]/g, "\\.")}`));
    await withTimeout(s.closed, 5000, "the client closes the endless answer");
    assert.ok(s.written < NEAR_CAP, `the server wrote ${s.written} bytes before the client closed the stream`);
  });
}

// ── AUTH-16: deadlines ────────────────────────────────────────────────

test("AUTH-16: a metadata URL that accepts and never answers: the flow fails at requestTimeoutMs and the request is aborted", async (t) => {
  const s = await protectedSite(t);
  s.routes.set("/prm", silent(s));
  const { error, errors, elapsed } = await attempt(s, { ...MACHINE, requestTimeoutMs: 300 });
  assert.ok(error instanceof HttpAuthError, String(error));
  assert.match(failure(errors, "deadline").message, /within 300 ms/);
  assert.ok(elapsed < 5000, `failed after ${elapsed} ms`);
  await withTimeout(s.closed, 5000, "the client aborts the request");
  assert.equal(s.aborted, 1);
  assert.equal(s.seen.filter((r) => r.path.startsWith("/.well-known")).length, 0, "a silent URL is an error, not a missing document");
});

test("AUTH-16: a metadata answer whose body stalls after the headers: the flow fails at requestTimeoutMs", async (t) => {
  const s = await protectedSite(t);
  s.routes.set("/prm", silent(s, true));
  const { errors, elapsed } = await attempt(s, { ...MACHINE, requestTimeoutMs: 300 });
  failure(errors, "deadline");
  assert.ok(elapsed < 5000, `failed after ${elapsed} ms`);
  await withTimeout(s.closed, 5000, "the client cancels the body");
});

test("AUTH-16: a token endpoint that never answers: the flow fails at the deadline", async (t) => {
  const s = await protectedSite(t);
  s.routes.set("/token", silent(s));
  const { errors, elapsed } = await attempt(s, { ...MACHINE, requestTimeoutMs: 300 });
  assert.match(failure(errors, "deadline").message, /\/token within 300 ms/);
  assert.ok(elapsed < 5000, `failed after ${elapsed} ms`);
});

test("AUTH-16: without requestTimeoutMs the caller's request timeout (defaultTimeoutMs) is each OAuth request's deadline", async (t) => {
  const s = await protectedSite(t);
  s.routes.set("/prm", silent(s));
  const { errors, elapsed } = await attempt(s, MACHINE, { defaultTimeoutMs: 400, connectTimeoutMs: 10_000 });
  assert.match(failure(errors, "deadline").message, /within 400 ms/);
  assert.ok(elapsed < 5000, `failed after ${elapsed} ms`);
});

test("AUTH-16: flowTimeoutMs bounds the whole flow, the wait for the browser's return included", async (t) => {
  const s = await protectedSite(t);
  let sentToBrowser = 0;
  const { errors, elapsed } = await attempt(s, {
    client: { clientId: "cid" },
    redirectUri: "http://127.0.0.1:9/callback",
    onRedirect: () => {
      sentToBrowser++;
      return new Promise<string>(() => undefined);
    },
    flowTimeoutMs: 500,
  });
  assert.equal(sentToBrowser, 1);
  assert.match(failure(errors, "deadline").message, /browser's return to the redirect URI within the flow's 500 ms \(flowTimeoutMs/);
  assert.ok(elapsed < 5000, `failed after ${elapsed} ms`);
});

// ── AUTH-17: redirects ────────────────────────────────────────────────

test("AUTH-17: a token endpoint answering 307 to another origin: that origin receives nothing, and the flow fails", async (t) => {
  const s = await protectedSite(t);
  const other = await site(t);
  other.routes.set("/steal", json({ access_token: "stolen", token_type: "Bearer" }));
  s.routes.set("/token", redirect(`${other.base}/steal`));
  const { errors } = await attempt(s, MACHINE);
  assert.deepEqual(other.seen, [], "no request reached the other origin");
  const refused = failure(errors, "redirect");
  assert.ok(refused.cause instanceof HttpRedirectError);
  assert.equal(refused.cause.rule, "AUTH-17");
  assert.match(refused.got, new RegExp(`HTTP 307 to ${other.base}`));
});

test("AUTH-17: a token or registration POST follows no redirect, not even within its origin", async (t) => {
  const s = await protectedSite(t);
  s.routes.set("/token", redirect("/token-elsewhere", 308));
  s.routes.set("/token-elsewhere", json({ access_token: "tok", token_type: "Bearer" }));
  failure((await attempt(s, MACHINE)).errors, "redirect");
  assert.equal(s.seen.filter((r) => r.path === "/token-elsewhere").length, 0);

  const other = await site(t);
  s.routes.set("/register", redirect(`${other.base}/register`));
  failure((await attempt(s, { grant: "client_credentials" })).errors, "redirect");
  assert.deepEqual(other.seen, []);
});

test("AUTH-17: metadata GETs follow at most 3 redirects within their origin; a redirect to another origin is not followed", async (t) => {
  const s = await protectedSite(t);
  const other = await site(t);
  other.routes.set("/asm", json(asMetadata(s.base)));
  // The challenge's URL moved within the origin: followed.
  s.routes.set("/prm", redirect("/prm/", 301));
  s.routes.set("/prm/", json({ resource: `${s.base}/mcp`, authorization_servers: [s.base] }));
  // RFC 8414's URL points at another origin: not followed; the OpenID Connect one is tried next.
  s.routes.set("/.well-known/oauth-authorization-server", redirect(`${other.base}/asm`, 302));
  s.routes.set("/.well-known/openid-configuration", json(asMetadata(s.base)));
  const { errors } = await attempt(s, MACHINE);
  assert.deepEqual(errors, [], "the flow got its token");
  assert.deepEqual(other.seen, [], "nothing asked of the other origin");
  const paths = s.seen.map((r) => r.path);
  for (const path of ["/prm/", "/.well-known/openid-configuration", "/token"]) assert.ok(paths.includes(path), `${path} in ${paths}`);

  // Four redirects in a row: the fourth is not followed, and the next candidate URL is tried.
  const chain = await protectedSite(t);
  chain.routes.set("/prm", redirect("/r1"));
  chain.routes.set("/r1", redirect("/r2"));
  chain.routes.set("/r2", redirect("/r3"));
  chain.routes.set("/r3", redirect("/r4"));
  chain.routes.set("/r4", json({ resource: `${chain.base}/mcp`, authorization_servers: [chain.base] }));
  chain.routes.set(
    "/.well-known/oauth-protected-resource/mcp",
    json({ resource: `${chain.base}/mcp`, authorization_servers: [chain.base] }),
  );
  assert.deepEqual((await attempt(chain, MACHINE)).errors, []);
  const asked = chain.seen.map((r) => r.path);
  assert.ok(asked.includes("/r3") && !asked.includes("/r4"), `asked ${asked}`);
  assert.ok(asked.includes("/.well-known/oauth-protected-resource/mcp"));
});

// ── the CLI ────────────────────────────────────────────────

test("LIM-13: `mcp-engine client <url>` against an endless protected resource metadata body ends at once, the server writing about the cap", async (t) => {
  const s = await protectedSite(t);
  s.routes.set("/prm", endless(s));
  const started = Date.now();
  const run = await runNode([MAIN, "client", "--timeout", "2000", `${s.base}/mcp`], 20_000);
  assert.equal(run.code, 2, run.stdout + run.stderr);
  assert.match(run.stderr, /OAuth body-limit: expected a protected-resource-metadata answer of at most 1048576 bytes/);
  assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
  await withTimeout(s.closed, 5000, "the CLI closes the endless answer");
  assert.ok(s.written < NEAR_CAP, `the server wrote ${s.written} bytes before the CLI closed the stream`);
});

test("AUTH-16: `mcp-engine client --timeout 1000 <url>` against a metadata URL that never answers ends within a few seconds", async (t) => {
  const s = await protectedSite(t);
  s.routes.set("/prm", silent(s));
  const started = Date.now();
  const run = await runNode([MAIN, "client", "--timeout", "1000", `${s.base}/mcp`], 20_000);
  assert.equal(run.code, 2, run.stdout + run.stderr);
  assert.match(run.stderr, /OAuth deadline: expected an answer from .*\/prm within 1000 ms/);
  assert.ok(Date.now() - started < 8000, `took ${Date.now() - started} ms`);
});

test("AUTH-16: closing the transport while a flow waits aborts the flow's request at once", async (t) => {
  const s = await protectedSite(t);
  s.routes.set("/prm", silent(s));
  const transport = nodeHttpTransport({ url: `${s.base}/mcp`, standaloneStream: false, auth: MACHINE });
  const client = new Client(transport, { info: INFO, versions: ["2025-11-25"] });
  transport.attach(client.input);
  const connecting = rejection(client.connect({ timeoutMs: 15_000 }));
  for (let i = 0; i < 200 && !s.seen.some((r) => r.path === "/prm"); i++) await sleep(10);
  assert.ok(
    s.seen.some((r) => r.path === "/prm"),
    "the flow asked for the metadata",
  );
  const started = Date.now();
  await transport.close();
  await withTimeout(connecting, 3000, "connect ends with the transport");
  await withTimeout(s.closed, 3000, "the metadata request is aborted");
  assert.equal(s.aborted, 1);
  assert.ok(Date.now() - started < 3000);
});
