// The OAuth client of the HTTP transport: runs lib/auth's AuthFlow with the transport's
// injected fetch, the host's credential store, redirect handler, clock and Web Crypto, and
// keeps the current access token. The transport asks it for the Authorization header of each
// request and hands it every 401 / 403 insufficient_scope; it answers whether to retry.
//
// Invariants:
// - one flow at a time per client (single flight): concurrent refusals wait for the same flow;
// - bounded: at most `maxAuthorizations` (default 3) flows without an accepted request in
//   between, so a server that keeps refusing cannot loop us (MCP "retry limits");
// - a flow's failure is reported (onError) and the refusal goes back to the caller unchanged;
// - response bodies read for the flow are capped (MAX_BODY characters) before JSON parsing;
// - DPoP (RFC 9449, option `dpop`): one P-256 key per client, made through Web Crypto on first
//   use (its private half never extractable); a fresh proof (own jti) for each token request
//   and each request presenting the token; a server's use_dpop_nonce is honoured by one resend
//   with its nonce, per request.

import { AuthFlow, type AuthFlowOptions, type AuthStep, type ClientMetadata } from "../auth/flow.js";
import { OAuthFlowError } from "../auth/errors.js";
import { importPrivateKeyPem, signJws } from "../auth/jwt.js";
import { bearerChallenge } from "../auth/challenge.js";
import { DPOP_ALG, dpopSigningInput } from "../auth/dpop.js";
import { base64urlEncode } from "../auth/encoding.js";
import { MemoryCredentialStore, type ClientInformation, type CredentialStore, type TokenSet, type WebCryptoLike } from "../auth/types.js";

const MAX_BODY = 1024 * 1024;

/** The fetch the flow uses: the transport's own (FetchLike) fits. */
export type AuthFetch = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
) => Promise<{ readonly status: number; readonly headers: { get(name: string): string | null }; text(): Promise<string> }>;

export interface HttpAuthOptions {
  /** authorization_code (default), client_credentials, or jwt_bearer with `assertion` (workload identity). */
  readonly grant?: "authorization_code" | "client_credentials" | "jwt_bearer";
  readonly assertion?: string;
  /** Where the authorization server sends the browser back (a loopback URL the host listens on). */
  readonly redirectUri?: string;
  /**
   * Sends the user to the authorization URL (opens a browser, prints it) and resolves with the
   * URL the browser came back to (carrying code and state), or rejects when the user gave up.
   */
  readonly onRedirect?: (authorizationUrl: string) => Promise<string>;
  /** Credentials by issuer. Default: in memory. */
  readonly store?: CredentialStore;
  readonly clientMetadata?: ClientMetadata;
  readonly clientMetadataUrl?: string;
  /** A pre-registered client; with `issuer`, used only with that authorization server. */
  readonly client?: ClientInformation & { readonly issuer?: string };
  /** private_key_jwt: a PKCS#8 PEM key and its JWS algorithm (default ES256). */
  readonly privateKeyPem?: string;
  readonly signingAlgorithm?: string;
  /** Enterprise-managed authorization (SEP-990): the IdP token endpoint, its client id and the user's ID token. */
  readonly enterprise?: AuthFlowOptions["enterprise"];
  /** Web Crypto (random bytes, signatures). */
  readonly crypto: WebCryptoLike;
  /** Wall clock, ms since the epoch. */
  readonly now: () => number;
  readonly maxAuthorizations?: number;
  /** Bind tokens to a DPoP key (RFC 9449) where the authorization server supports ES256 proofs. Default false. */
  readonly dpop?: boolean;
  /** Flow failures (the request that triggered it then fails with the server's refusal). */
  readonly onError?: (error: OAuthFlowError) => void;
}

export class OAuthClient {
  private readonly options: HttpAuthOptions;
  private readonly store: CredentialStore;
  private readonly fetchFn: AuthFetch;
  private tokens: TokenSet | undefined;
  private running: Promise<boolean> | undefined;
  private flowsWithoutSuccess = 0;
  private signingKey: Promise<unknown> | undefined;
  private dpopKey: Promise<{ privateKey: unknown; jwk: { [key: string]: unknown } }> | undefined;
  private asNonce: string | undefined;
  private rsNonce: string | undefined;

  constructor(options: HttpAuthOptions, fetchFn: AuthFetch) {
    this.options = options;
    this.store = options.store ?? new MemoryCredentialStore();
    this.fetchFn = fetchFn;
  }

  /** The Authorization header for the next request, if there is a token. */
  authorization(): string | undefined {
    return this.tokens === undefined ? undefined : `${this.tokens.tokenType === "DPoP" ? "DPoP" : "Bearer"} ${this.tokens.accessToken}`;
  }

  /** The headers that present the token on a request to `url`: Authorization, and a DPoP proof for a DPoP-bound token. */
  async headersFor(method: string, url: string): Promise<Record<string, string>> {
    const authorization = this.authorization();
    if (authorization === undefined) return {};
    const tokens = this.tokens as TokenSet;
    if (tokens.tokenType !== "DPoP") return { Authorization: authorization };
    try {
      return { Authorization: authorization, DPoP: await this.proof(method, url, this.rsNonce, tokens.accessToken) };
    } catch {
      // No proof can be made (the key is gone): the server's refusal will say so.
      return { Authorization: authorization };
    }
  }

  /**
   * A 401 use_dpop_nonce from the MCP server (RFC 9449 9): keeps its nonce; true when the
   * request should be sent again with a fresh proof.
   */
  nonceChallenge(status: number, wwwAuthenticate: string | null, nonce: string | null): boolean {
    if (status !== 401 || nonce === null || this.tokens?.tokenType !== "DPoP") return false;
    if (bearerChallenge(wwwAuthenticate)?.error !== "use_dpop_nonce") return false;
    this.rsNonce = nonce;
    return true;
  }

  private async proof(method: string, url: string, nonce: string | undefined, accessToken?: string): Promise<string> {
    const o = this.options;
    this.dpopKey ??= (async () => {
      const pair = (await o.crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"])) as {
        privateKey: unknown;
        publicKey: unknown;
      };
      const jwk = (await o.crypto.subtle.exportKey("jwk", pair.publicKey)) as { [key: string]: unknown };
      return { privateKey: pair.privateKey, jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } };
    })();
    const key = await this.dpopKey;
    const input = dpopSigningInput(key.jwk, DPOP_ALG, {
      method,
      url,
      iat: Math.floor(o.now() / 1000),
      jti: base64urlEncode(o.crypto.getRandomValues(new Uint8Array(16))),
      ...(nonce !== undefined ? { nonce } : {}),
      ...(accessToken !== undefined ? { accessToken } : {}),
    });
    return `${input}.${await signJws(o.crypto, key.privateKey, DPOP_ALG, input)}`;
  }

  /** The current tokens (after a flow). */
  get current(): TokenSet | undefined {
    return this.tokens;
  }

  /** A request carrying our token was accepted: the retry budget starts over. */
  accepted(): void {
    this.flowsWithoutSuccess = 0;
  }

  /**
   * Handles a refusal of `sentAuthorization` (the header the refused request carried): runs a
   * flow unless another already replaced that token. Resolves true when a retry may succeed.
   */
  async refused(
    serverUrl: string,
    status: number,
    wwwAuthenticate: string | null,
    sentAuthorization: string | undefined,
  ): Promise<boolean> {
    if (this.running !== undefined) return this.running;
    // Another flow already got a newer token than the one this request carried: just retry.
    if (this.authorization() !== undefined && this.authorization() !== sentAuthorization) return true;
    if (this.flowsWithoutSuccess >= (this.options.maxAuthorizations ?? 3)) return false;
    this.flowsWithoutSuccess++;
    const run = this.run(serverUrl, status, wwwAuthenticate, sentAuthorization).finally(() => {
      this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private async run(serverUrl: string, status: number, wwwAuthenticate: string | null, sent: string | undefined): Promise<boolean> {
    const o = this.options;
    const flowOptions: AuthFlowOptions = {
      serverUrl,
      now: o.now(),
      randomBytes: (n) => o.crypto.getRandomValues(new Uint8Array(n)),
      ...(o.grant !== undefined ? { grant: o.grant } : {}),
      ...(o.redirectUri !== undefined ? { redirectUri: o.redirectUri } : {}),
      ...(o.clientMetadata !== undefined ? { clientMetadata: o.clientMetadata } : {}),
      ...(o.clientMetadataUrl !== undefined ? { clientMetadataUrl: o.clientMetadataUrl } : {}),
      ...(o.client !== undefined ? { client: o.client } : {}),
      ...(o.enterprise !== undefined ? { enterprise: o.enterprise } : {}),
      ...(o.assertion !== undefined ? { assertion: o.assertion } : {}),
      ...(o.dpop === true ? { dpopAlgorithm: DPOP_ALG } : {}),
      ...(o.privateKeyPem !== undefined ? { signingAlgorithm: o.signingAlgorithm ?? "ES256" } : {}),
    };
    const flow = new AuthFlow(flowOptions);
    let step: AuthStep = flow.start({
      status,
      wwwAuthenticate,
      ...(this.tokens?.scope !== undefined ? { previousScopes: this.tokens.scope } : {}),
      ...(sent !== undefined ? { rejectedToken: sent.replace(/^(Bearer|DPoP) /, "") } : {}),
    });
    for (;;) {
      switch (step.kind) {
        case "fetch": {
          step = flow.receive(await this.send(step.request, step.dpop === true));
          break;
        }
        case "load":
          step = flow.loaded(await this.guard(() => this.store.get(step.kind === "load" ? step.issuer : "")));
          break;
        case "authorize": {
          if (o.onRedirect === undefined)
            return this.failed(
              new OAuthFlowError(
                "redirect-handler",
                "an onRedirect handler to send the user to the authorization server",
                "none configured",
              ),
            );
          let callback: string;
          try {
            callback = await o.onRedirect(step.url);
          } catch (error) {
            return this.failed(
              new OAuthFlowError(
                "authorization-abandoned",
                "the browser's return to the redirect URI",
                error instanceof Error ? error.message : String(error),
              ),
            );
          }
          step = flow.redirected(callback);
          break;
        }
        case "sign": {
          let signature: string;
          try {
            this.signingKey ??= importPrivateKeyPem(o.crypto, o.privateKeyPem ?? "", step.alg);
            signature = await signJws(o.crypto, await this.signingKey, step.alg, step.signingInput);
          } catch (error) {
            this.signingKey = undefined;
            return this.failed(
              new OAuthFlowError(
                "private-key-jwt",
                `a ${step.alg} signature with the configured private key`,
                error instanceof Error ? error.message : String(error),
              ),
            );
          }
          step = flow.signed(signature);
          break;
        }
        case "done":
          this.tokens = step.tokens;
          await this.guard(() => this.store.set(step.kind === "done" ? step.credentials : ({} as never)));
          return true;
        case "failed":
          return this.failed(step.error);
      }
    }
  }

  /** One request of a flow; with DPoP, a proof, and one resend with the server's nonce when it asks (RFC 9449 8). */
  private async send(
    request: { method: string; url: string; headers: { readonly [name: string]: string }; body?: string },
    dpop: boolean,
  ): Promise<{ status: number; body: unknown }> {
    for (let attempt = 0; ; attempt++) {
      try {
        const headers: Record<string, string> = { ...request.headers };
        if (dpop) headers.DPoP = await this.proof(request.method, request.url, this.asNonce);
        const res = await this.fetchFn(request.url, {
          method: request.method,
          headers,
          ...(request.body !== undefined ? { body: request.body } : {}),
        });
        const body = parseBody(await res.text());
        const nonce = res.headers.get("dpop-nonce");
        if (dpop && nonce !== null) this.asNonce = nonce;
        const error = typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined;
        if (dpop && attempt === 0 && res.status === 400 && error === "use_dpop_nonce" && nonce !== null) continue;
        return { status: res.status, body };
      } catch {
        // Unreachable is like absent for discovery, and a failure for the token endpoint.
        return { status: 0, body: undefined };
      }
    }
  }

  private failed(error: OAuthFlowError): false {
    try {
      this.options.onError?.(error);
    } catch {
      // A reporting callback must not turn a refusal into a crash.
    }
    return false;
  }

  /** A store call that fails is treated as an empty store, never a crash. */
  private async guard<T>(call: () => T | Promise<T>): Promise<T | undefined> {
    try {
      return await call();
    } catch {
      return undefined;
    }
  }
}

function parseBody(text: string): unknown {
  if (text.length > MAX_BODY) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
