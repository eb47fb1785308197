// DPoP end to end over loopback: the reference client with `dpop` gets a DPoP-bound token from
// the test authorization server and calls the reference server behind protectedResource({ dpop })
// with its own proofs: requests pass, a server nonce is fetched by one resend, and what an
// attacker holding a request could do with it (replay the proof, present the token as Bearer,
// send the proof to another URL or with another method) is refused on the wire.

import assert from "node:assert/strict";
import { webcrypto } from "node:crypto";
import { test } from "node:test";
import { parseChallenges } from "../../lib/auth/challenge.js";
import { rotatingDpopNonces } from "../../lib/auth/dpop-verify.js";
import { nodeFetch } from "../../lib/hosts/http-client-node.js";
import type { NodeAbortSignal } from "../../lib/hosts/node-shapes.js";
import type { FetchInit, FetchLike } from "../../lib/http-client/types.js";
import { firstText, withTimeout } from "../support/helpers.js";
import { after, connectWithAuth, protectedServer } from "./protected.js";
import { startTestAuthServer } from "./test-as.js";

interface Seen {
  readonly url: string;
  readonly init: FetchInit<unknown>;
  readonly status: number;
  readonly headers: { get(name: string): string | null };
}

/** The reference client with DPoP against `url`, every request and answer recorded. */
async function dpopClient(t: Parameters<typeof after>[0], url: string, seen: Seen[]) {
  const fetch: FetchLike<NodeAbortSignal> = async (target, init) => {
    const res = await nodeFetch(target, init);
    seen.push({ url: target, init: init as FetchInit<unknown>, status: res.status, headers: res.headers });
    return res;
  };
  const client = await connectWithAuth(t, url, { versions: ["2025-11-25"], dpop: true, fetch });
  assert.deepEqual(client.errors, []);
  return client;
}

/** A raw POST to the MCP endpoint with the given headers. */
async function post(url: string, headers: Record<string, string>, method = "POST"): Promise<{ status: number; challenge: string }> {
  const res = await fetch(url, {
    method,
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    ...(method === "POST" ? { body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }) } : {}),
  });
  await res.text();
  return { status: res.status, challenge: res.headers.get("www-authenticate") ?? "" };
}

const errorOf = (challenge: string): [string | undefined, string | undefined] => {
  const withError = parseChallenges(challenge).find((c) => c.params.has("error"));
  return [withError?.scheme, withError?.params.get("error")];
};

test("AUTH-19, AUTH-21: the reference client's DPoP proofs pass our resource server; the token is bound and sent as DPoP", async (t) => {
  const as = await startTestAuthServer({ scopes: ["mcp:tools"], dpop: true });
  after(t, () => as.close());
  const { url } = await protectedServer(t, as, [], true, { mode: "required", algorithms: ["ES256"] });
  const seen: Seen[] = [];
  const { connection, store } = await dpopClient(t, url, seen);
  const result = await withTimeout(connection.client.callTool("whoami", {}), 10_000, "whoami");
  assert.equal(firstText(result), "user-1 mcp:tools");
  assert.equal(store.get(as.issuer)?.tokens?.tokenType, "DPoP");
  const toServer = seen.filter((s) => s.url === url && s.init.headers.Authorization !== undefined);
  assert.ok(toServer.length >= 2, "initialize and the call at least");
  for (const s of toServer) {
    assert.match(s.init.headers.Authorization as string, /^DPoP /);
    assert.equal(typeof s.init.headers.DPoP, "string");
    assert.notEqual(s.status, 401);
  }
  assert.equal(new Set(toServer.map((s) => s.init.headers.DPoP)).size, toServer.length, "a fresh proof per request");
});

test("AUTH-19: with server nonces the client's first proof gets use_dpop_nonce, its resend with the nonce passes", async (t) => {
  const as = await startTestAuthServer({ scopes: ["mcp:tools"], dpop: true });
  after(t, () => as.close());
  const now = () => Date.now();
  const nonces = rotatingDpopNonces({ crypto: webcrypto, now });
  const { url } = await protectedServer(t, as, [], true, { nonces });
  const seen: Seen[] = [];
  const { connection } = await dpopClient(t, url, seen);
  assert.equal(firstText(await withTimeout(connection.client.callTool("whoami", {}), 10_000, "whoami")), "user-1 mcp:tools");
  const toServer = seen.filter((s) => s.url === url && s.init.headers.DPoP !== undefined);
  const demanded = toServer.findIndex((s) => s.status === 401);
  assert.ok(demanded >= 0, "the first proof had no nonce");
  assert.deepEqual(errorOf(toServer[demanded]?.headers.get("www-authenticate") ?? ""), ["dpop", "use_dpop_nonce"]);
  assert.equal(toServer[demanded]?.headers.get("dpop-nonce"), nonces.current());
  const resent = toServer[demanded + 1];
  assert.ok(resent !== undefined && resent.status !== 401, "the resend passed");
  const claims = JSON.parse(Buffer.from((resent.init.headers.DPoP as string).split(".")[1] ?? "", "base64url").toString()) as {
    nonce?: string;
  };
  assert.equal(claims.nonce, nonces.current());
  assert.equal(resent.headers.get("dpop-nonce"), nonces.current(), "a pass hands out the nonce too");
});

test("AUTH-18, AUTH-19, AUTH-20: a captured request's proof cannot be replayed, moved or downgraded to Bearer", async (t) => {
  const as = await startTestAuthServer({ scopes: ["mcp:tools"], dpop: true });
  after(t, () => as.close());
  const { url, base } = await protectedServer(t, as, [], true, {});
  const seen: Seen[] = [];
  await dpopClient(t, url, seen);
  const captured = seen.filter((s) => s.url === url && s.init.headers.DPoP !== undefined && s.init.method === "POST").at(-1);
  assert.ok(captured !== undefined);
  const authorization = captured.init.headers.Authorization as string;
  const proof = captured.init.headers.DPoP as string;
  assert.deepEqual(errorOf((await post(url, { Authorization: authorization, DPoP: proof })).challenge), ["dpop", "invalid_dpop_proof"]);
  const bearer = await post(url, { Authorization: authorization.replace(/^DPoP /, "Bearer ") });
  assert.equal(bearer.status, 401);
  assert.deepEqual(errorOf(bearer.challenge), ["bearer", "invalid_token"]);
  const moved = await post(`${base}/other`, { Authorization: authorization, DPoP: proof });
  assert.equal(moved.status, 404, "another path is not the endpoint at all");
  const otherMethod = await post(url, { Authorization: authorization, DPoP: proof }, "GET");
  assert.equal(otherMethod.status, 401);
  assert.deepEqual(errorOf(otherMethod.challenge), ["dpop", "invalid_dpop_proof"]);
  const withoutProof = await post(url, { Authorization: authorization });
  assert.deepEqual([withoutProof.status, ...errorOf(withoutProof.challenge)], [401, "dpop", "invalid_dpop_proof"]);
});
