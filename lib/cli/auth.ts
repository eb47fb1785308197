// OAuth for `mcp-engine client <url>`: the redirect handling and client identity the CLI gives
// the HTTP transport's OAuth client (lib/http-client/oauth.ts, lib/auth/).
//
//   interactive: a loopback listener on 127.0.0.1 (a port the system picks) is the redirect
//     URI; the authorization URL is printed on stderr and the flow waits (5 minutes at most)
//     for the browser to come back with the code;
//   the official conformance suite (MCP_CONFORMANCE_SCENARIO set): its authorization servers
//     redirect at once, so the authorization URL is fetched without following redirects and
//     the Location header is the callback (as the suite's reference client does);
//     MCP_CONFORMANCE_CONTEXT carries the pre-registered client (client_id, client_secret,
//     issuer) and the client-credentials scenarios' client_id with client_secret or
//     private_key_pem and signing_algorithm, and the enterprise-managed scenario's IdP
//     (idp_token_endpoint, idp_client_id, idp_id_token), and the workload identity scenario's
//     JWT (valid_jwt) for the jwt-bearer grant.
//
// Both modes bind tokens to a DPoP key where the authorization server offers it (RFC 9449).
//
// Invariants:
// - the listener answers only GET <callback path> and only once; it closes when the flow is
//   over or the CLI exits (close());
// - what the authorization and resource servers say reaches the terminal only through the one
//   printer for untrusted text (CLI-01): the authorization URL (built from their
//   authorization_endpoint) escaped and cut at URL_WIDTH, a flow's failure (a resource
//   mismatch, the redirect's error_description, the token endpoint's error) at MESSAGE_WIDTH;
// - context values are read as strings or ignored; nothing from the environment is trusted
//   to be an object.

import { createServer, type Server } from "node:http";
import type { NodeHttpAuthOptions } from "../hosts/http-client-node.js";
import type { ClientInformation } from "../auth/types.js";
import { DEFAULT_AUTH_REQUEST_TIMEOUT_MS } from "../http-client/oauth.js";
import { MESSAGE_WIDTH, URL_WIDTH, untrustedText } from "../codec/terminal-text.js";

/** The client ID metadata document URL the conformance suite's CIMD scenario expects. */
const CONFORMANCE_CIMD_URL = "https://conformance-test.local/client-metadata.json";
const CLIENT_NAME = "mcp-engine reference client";
const WAIT_MS = 5 * 60 * 1000;

export interface CliAuth {
  readonly auth: NodeHttpAuthOptions;
  close(): Promise<void>;
}

function contextOf(text: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (text === undefined) return out;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || Array.isArray(value)) return out;
    for (const [k, v] of Object.entries(value)) if (typeof v === "string") out.set(k, v);
  } catch {
    // Not JSON: no context.
  }
  return out;
}

/** The line that sends the user to the authorization server: its URL printed as untrusted text. */
export function authorizationPrompt(url: string, port: number): string {
  return `Authorization needed. Open this URL in a browser:\n  ${untrustedText(url, URL_WIDTH)}\n(waiting for the redirect to 127.0.0.1:${port})`;
}

/** The line that reports a failed authorization flow: its message quotes the servers, so it is printed as untrusted text. */
export function authFailure(error: { message: string }): string {
  return `[auth] ${untrustedText(error.message, MESSAGE_WIDTH)}`;
}

/**
 * Follows one redirect by hand: the authorization server's Location is the callback URL. Under
 * the OAuth request deadline (AUTH-16); the body is never read, only cancelled.
 */
async function headlessRedirect(authorizationUrl: string): Promise<string> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), DEFAULT_AUTH_REQUEST_TIMEOUT_MS);
  let res: Awaited<ReturnType<typeof fetch>>;
  try {
    res = await fetch(authorizationUrl, { method: "GET", headers: {}, redirect: "manual", signal: controller.signal });
  } finally {
    clearTimeout(timer);
  }
  res.body
    ?.getReader()
    .cancel()
    .catch(() => undefined);
  const location = res.headers.get("location");
  if (location === null) throw new Error(`the authorization endpoint answered HTTP ${res.status} without a redirect`);
  return new URL(location, authorizationUrl).toString();
}

/** The suite's mode: headless redirects and the context's client. */
export function conformanceAuth(scenario: string, contextText: string | undefined): CliAuth {
  const ctx = contextOf(contextText);
  const clientId = ctx.get("client_id");
  const clientCredentials = scenario.startsWith("auth/client-credentials");
  const client: (ClientInformation & { issuer?: string }) | undefined =
    clientId === undefined
      ? undefined
      : {
          clientId,
          ...(ctx.has("client_secret") ? { clientSecret: ctx.get("client_secret") as string } : {}),
          ...(ctx.has("idp_id_token") && ctx.has("idp_token_endpoint") && ctx.has("idp_client_id")
            ? {
                enterprise: {
                  idpTokenEndpoint: ctx.get("idp_token_endpoint") as string,
                  idpClientId: ctx.get("idp_client_id") as string,
                  idToken: ctx.get("idp_id_token") as string,
                },
              }
            : {}),
          ...(ctx.has("private_key_pem") ? { tokenEndpointAuthMethod: "private_key_jwt" } : {}),
          ...(ctx.has("issuer") ? { issuer: ctx.get("issuer") as string } : {}),
        };
  const auth: NodeHttpAuthOptions = {
    grant: ctx.has("valid_jwt") ? "jwt_bearer" : clientCredentials ? "client_credentials" : "authorization_code",
    ...(ctx.has("valid_jwt") ? { assertion: ctx.get("valid_jwt") as string } : {}),
    redirectUri: "http://localhost:3000/callback",
    onRedirect: headlessRedirect,
    clientMetadata: { client_name: CLIENT_NAME },
    clientMetadataUrl: CONFORMANCE_CIMD_URL,
    dpop: true,
    ...(client !== undefined ? { client } : {}),
    ...(ctx.has("idp_id_token") && ctx.has("idp_token_endpoint") && ctx.has("idp_client_id")
      ? {
          enterprise: {
            idpTokenEndpoint: ctx.get("idp_token_endpoint") as string,
            idpClientId: ctx.get("idp_client_id") as string,
            idToken: ctx.get("idp_id_token") as string,
          },
        }
      : {}),
    ...(ctx.has("private_key_pem")
      ? { privateKeyPem: ctx.get("private_key_pem") as string, signingAlgorithm: ctx.get("signing_algorithm") ?? "ES256" }
      : {}),
    onError: (error) => process.stderr.write(`${authFailure(error)}\n`),
  };
  return { auth, close: async () => undefined };
}

/** Interactive mode: a loopback redirect listener, the URL printed for the user. */
export async function interactiveAuth(write: (text: string) => void): Promise<CliAuth> {
  let waiting: { resolve: (url: string) => void; reject: (error: Error) => void } | undefined;
  const server: Server = createServer((req, res) => {
    const target = req.url ?? "/";
    if (req.method !== "GET" || !target.startsWith("/callback") || waiting === undefined) {
      res.writeHead(404, { "Content-Type": "text/plain" });
      res.end("Not found");
      return;
    }
    res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" });
    res.end("mcp-engine: authorization received, you can close this window.");
    const done = waiting;
    waiting = undefined;
    done.resolve(`http://127.0.0.1:${port}${target}`);
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : 0);
    });
  });
  const auth: NodeHttpAuthOptions = {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    clientMetadata: { client_name: CLIENT_NAME },
    dpop: true,
    ...(process.env.MCP_CLIENT_METADATA_URL !== undefined ? { clientMetadataUrl: process.env.MCP_CLIENT_METADATA_URL } : {}),
    onRedirect: (url) =>
      new Promise<string>((resolve, reject) => {
        write(authorizationPrompt(url, port));
        const timer = setTimeout(() => {
          waiting = undefined;
          reject(new Error("no redirect within 5 minutes"));
        }, WAIT_MS);
        waiting = {
          resolve: (callback) => {
            clearTimeout(timer);
            resolve(callback);
          },
          reject,
        };
      }),
    onError: (error) => write(authFailure(error)),
  };
  return {
    auth,
    close: () =>
      new Promise<void>((resolve) => {
        waiting?.reject(new Error("the CLI is exiting"));
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
