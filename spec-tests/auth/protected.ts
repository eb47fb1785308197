// Test fixtures shared by the OAuth end-to-end tests: the reference server (plus a whoami
// tool that reads ctx.auth) behind protectedResource() with a JWT verifier trusting the test
// authorization server (and, when asked, DPoP proofs checked), on 127.0.0.1; and a "browser"
// that consents at once.

import { randomBytes, webcrypto } from "node:crypto";
import { createServer } from "node:http";
import type { TestContext } from "node:test";
import type { DpopOptions } from "../../lib/auth/dpop-verify.js";
import type { OAuthFlowError } from "../../lib/auth/errors.js";
import { jwtAccessTokenVerifier } from "../../lib/auth/jwt.js";
import { MemoryCredentialStore } from "../../lib/auth/types.js";
import { connectHttpNode } from "../../lib/hosts/http-client-node.js";
import type { FetchLike } from "../../lib/http-client/types.js";
import type { NodeAbortSignal } from "../../lib/hosts/node-shapes.js";
import { protectedResource, type ProtectedResource } from "../../lib/auth/resource-server.js";
import { createReferenceServer } from "../../lib/cli/reference-server.js";
import { HttpHost } from "../../lib/hosts/http-server.js";
import { Server } from "../../lib/peer/server/server.js";
import type { ProtocolVersion } from "../../lib/rules/versions.js";
import { sleep, withTimeout } from "../support/helpers.js";
import type { TestAuthServer } from "./test-as.js";

/** Cleanup after a test (node:test's t.after, not in our declarations of node:test). */
export function after(t: TestContext, fn: () => Promise<void>): void {
  (t as unknown as { after(fn: () => Promise<void>): void }).after(fn);
}

/** The reference server (plus a whoami tool reading ctx.auth) protected by the test AS, on 127.0.0.1. */
export async function protectedServer(
  t: TestContext,
  as: TestAuthServer,
  requiredScopes: string[] = [],
  reference = true,
  dpop?: Omit<DpopOptions, "crypto">,
): Promise<{ url: string; resource: ProtectedResource; base: string }> {
  // The reference server, or (reference false) a server with nothing but whoami.
  const server = reference
    ? createReferenceServer({ paginationSecret: randomBytes(32), sleep: (ms) => sleep(ms) })
    : new Server({ info: { name: "whoami", version: "1" }, versions: ["2025-11-25", "2026-07-28"] });
  server.tool("whoami", { description: "who is asking", inputSchema: { type: "object" } }, (_args, ctx) => ({
    content: [{ type: "text", text: `${ctx.auth?.subject} ${ctx.auth?.scopes.join(",")}` }],
  }));
  let host: HttpHost | undefined;
  const http = createServer((req, res) => host?.handle(req, res));
  const port = await new Promise<number>((resolve) => {
    http.listen(0, "127.0.0.1", () => {
      const address = http.address();
      resolve(typeof address === "object" && address !== null ? address.port : 0);
    });
  });
  const base = `http://127.0.0.1:${port}`;
  const resource = protectedResource({
    resource: `${base}/mcp`,
    authorizationServers: [as.issuer],
    scopesSupported: ["mcp:tools"],
    requiredScopes,
    verify: jwtAccessTokenVerifier({ crypto: webcrypto, jwks: as.jwks, issuer: as.issuer, audience: `${base}/mcp`, now: () => Date.now() }),
    now: () => Date.now(),
    ...(dpop !== undefined ? { dpop: { crypto: webcrypto, ...dpop } } : {}),
  });
  host = new HttpHost(server, { auth: resource, onError: () => {} });
  after(
    t,
    () =>
      new Promise<void>((resolve) => {
        host?.closeAll();
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  );
  return { url: `${base}/mcp`, resource, base };
}

/** A browser that consents at once: the authorization server's redirect is the callback. */
export async function headless(url: string): Promise<string> {
  const res = await fetch(url, { method: "GET", headers: {}, redirect: "manual" });
  const location = res.headers.get("location");
  if (location === null) throw new Error(`no redirect (HTTP ${res.status})`);
  return location;
}

/** The reference client with OAuth (consenting at once) connected to `url`; flow errors collected, closed after the test. */
export async function connectWithAuth(
  t: TestContext,
  url: string,
  options: { versions: readonly ProtocolVersion[]; dpop?: boolean; fetch?: FetchLike<NodeAbortSignal> },
) {
  const store = new MemoryCredentialStore();
  const errors: OAuthFlowError[] = [];
  const connection = await withTimeout(
    connectHttpNode({
      url,
      info: { name: "auth-e2e", version: "1" },
      versions: [...options.versions],
      ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
      auth: {
        redirectUri: "http://127.0.0.1:9/callback",
        onRedirect: headless,
        store,
        onError: (e) => errors.push(e),
        ...(options.dpop === true ? { dpop: true } : {}),
      },
    }),
    15_000,
    "connect",
  );
  after(t, () => connection.close());
  return { connection, store, errors };
}
