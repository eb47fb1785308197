// The OAuth client of the HTTP transport: runs lib/auth's AuthFlow with the transport's
// injected fetch, abort controllers and timers, the host's credential store, redirect handler,
// clock and Web Crypto, and keeps the current access token. The transport asks it for the
// Authorization header of each request and hands it every 401 / 403 insufficient_scope; it
// answers whether to retry.
//
// Invariants:
// - one flow at a time per client (single flight): concurrent refusals wait for the same flow;
// - bounded: at most `maxAuthorizations` (default 3) flows without an accepted request in
//   between, so a server that keeps refusing cannot loop us (MCP "retry limits");
// - a flow's failure is reported (onError) and the refusal goes back to the caller unchanged;
// - one deadline for every request (AUTH-16): `requestTimeoutMs` (the caller's request timeout
//   when the transport was given one, else 30 s) for its answer and its body together, never
//   past the deadline of the whole flow, `flowTimeoutMs` (10 min: the user's time at the
//   browser included; the store, the redirect handler and signing are waited for within it
//   too). At the deadline the fetch is aborted, its body cancelled, and the flow fails: a
//   metadata URL that never answers is an error, not a missing document (the next candidate
//   would only wait as long again). close() of the transport aborts the flow the same way;
// - one bounded reader (LIM-13, ./body.ts): every metadata, registration and token answer is
//   read to AUTH_BODY_BYTES and no further; past it the stream is cancelled and the flow fails
//   with the cap (an OAuthFlowError whose cause is the HttpBodyLimitError);
// - no secret crosses origins by a redirect (AUTH-17). Every request goes out with
//   `redirect: "manual"` and AuthFlow marks each with the redirects it may follow. The
//   requests that carry secrets are the POSTs: the token request (a code and its PKCE verifier,
//   a refresh token, a client secret in the form or in Basic Authorization, a client assertion,
//   a jwt-bearer assertion, a DPoP proof), the IdP's token exchange (the user's ID token) and
//   registration (no credentials today, but the same endpoint takes initial access tokens):
//   they follow no redirect at all, a 3xx fails the flow, because even a same-origin hop would
//   resend the form to a URL the metadata never named. Metadata GETs carry nothing secret and
//   well-known URLs are often served behind a trailing-slash or path redirect: they follow at
//   most MAX_METADATA_REDIRECTS redirects, each within the origin of the URL asked; another
//   origin is not followed and reads as no document there (the next candidate is tried). An
//   answer the fetch reached by following a redirect itself, or a browser's opaque redirect,
//   is treated as a refused redirect;
// - DPoP (RFC 9449, option `dpop`): one P-256 key per client, made through Web Crypto on first
//   use (its private half never extractable); a fresh proof (own jti) for each token request
//   and each request presenting the token; a server's use_dpop_nonce is honoured by one resend
//   with its nonce, per request.

import { AuthFlow, type AuthFlowOptions, type AuthHttpResponse, type AuthStep, type ClientMetadata } from "../auth/flow.js";
import { OAuthFlowError } from "../auth/errors.js";
import { importPrivateKeyPem, signJws } from "../auth/jwt.js";
import { bearerChallenge } from "../auth/challenge.js";
import { DPOP_ALG, dpopSigningInput } from "../auth/dpop.js";
import { base64urlEncode } from "../auth/encoding.js";
import { MemoryCredentialStore, type ClientInformation, type CredentialStore, type TokenSet, type WebCryptoLike } from "../auth/types.js";
import type { HttpTimers } from "../peer/shared/timers.js";
import { cancelQuietly, describe, discard, readBody, type BodyRead } from "./body.js";
import { HttpRedirectError, isRedirect, redirectStep, type Hop } from "./redirects.js";
import type { AbortControllerLike, FetchInit, FetchLike, ReaderLike, ResponseLike } from "./types.js";

/** LIM-13: the most of one OAuth answer (metadata, registration, token) that is read. */
export const AUTH_BODY_BYTES = 1024 * 1024;

/** AUTH-16: one request of a flow, its answer and body, when the caller gave no request timeout. */
export const DEFAULT_AUTH_REQUEST_TIMEOUT_MS = 30_000;

/** AUTH-16: a whole flow, the user's time at the browser included. */
export const DEFAULT_AUTH_FLOW_TIMEOUT_MS = 10 * 60_000;

/** AUTH-17: redirects a metadata GET follows, each within the origin of the URL asked. */
export const MAX_METADATA_REDIRECTS = 3;

/** The fetch the flow uses: the transport's own (FetchLike). */
export type AuthFetch<S = unknown> = FetchLike<S>;

/** What the OAuth client makes its requests and keeps its deadlines with (the transport passes its own). */
export interface AuthIo<S = unknown> {
  readonly fetch: AuthFetch<S>;
  readonly timers: HttpTimers;
  /** A controller per request, aborted at its deadline. Without one, the deadline still ends the wait; the fetch is left to finish. */
  readonly createAbortController?: () => AbortControllerLike<S> | undefined;
}

type FetchStep = Extract<AuthStep, { kind: "fetch" }>;

/** How one request of a flow ended, before its answer is read as OAuth. */
type Exchange =
  | { readonly kind: "answer"; readonly res: ResponseLike; readonly read: BodyRead | undefined }
  | { readonly kind: "unreachable" };

/** How a wait within the flow's deadline ended. */
type Raced<T> =
  | { readonly kind: "value"; readonly value: T }
  | { readonly kind: "deadline"; readonly ms: number; readonly whole: boolean }
  | { readonly kind: "closed" };

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
  /**
   * AUTH-16: the longest wait for one request of a flow (its answer and its body), in ms.
   * Default: the caller's request timeout (connectHttp's defaultTimeoutMs or connectTimeoutMs
   * when given), else 30 000.
   */
  readonly requestTimeoutMs?: number;
  /** AUTH-16: the longest a whole flow may take, in ms, the user's time at the browser included. Default 600 000. */
  readonly flowTimeoutMs?: number;
}

export class OAuthClient<S = unknown> {
  private readonly options: HttpAuthOptions;
  private readonly store: CredentialStore;
  private readonly io: AuthIo<S>;
  /** Stops what the running flow waits for (its request, its body, a handler): close() calls it. */
  private stopWait: (() => void) | undefined;
  private closed = false;
  private tokens: TokenSet | undefined;
  private running: Promise<boolean> | undefined;
  private flowsWithoutSuccess = 0;
  private signingKey: Promise<unknown> | undefined;
  private dpopKey: Promise<{ privateKey: unknown; jwk: { [key: string]: unknown } }> | undefined;
  private asNonce: string | undefined;
  private rsNonce: string | undefined;

  constructor(options: HttpAuthOptions, io: AuthIo<S>) {
    this.options = options;
    this.store = options.store ?? new MemoryCredentialStore();
    this.io = io;
  }

  /** The transport closed: the running flow's request is aborted, the flow ends (unreported), and no flow starts again. */
  abort(): void {
    this.closed = true;
    this.stopWait?.();
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
    if (this.closed) return false;
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
    // AUTH-16: the whole flow ends by this time (the injected monotonic clock).
    const deadline = this.io.timers.now() + (o.flowTimeoutMs ?? DEFAULT_AUTH_FLOW_TIMEOUT_MS);
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
          const answer = await this.send(step, deadline);
          if (answer instanceof OAuthFlowError) return this.failed(answer);
          step = flow.receive(answer);
          break;
        }
        case "load": {
          const issuer = step.issuer;
          const loaded = await this.within(
            deadline,
            undefined,
            this.guard(() => this.store.get(issuer)),
          );
          if (loaded.kind !== "value") return this.failed(this.waitError(loaded, "the credential store's answer"));
          step = flow.loaded(loaded.value);
          break;
        }
        case "authorize": {
          if (o.onRedirect === undefined)
            return this.failed(
              new OAuthFlowError(
                "redirect-handler",
                "an onRedirect handler to send the user to the authorization server",
                "none configured",
              ),
            );
          const onRedirect = o.onRedirect;
          const url = step.url;
          const back = await this.within(
            deadline,
            undefined,
            settled(() => onRedirect(url)),
          );
          if (back.kind !== "value") return this.failed(this.waitError(back, "the browser's return to the redirect URI"));
          if (!back.value.ok)
            return this.failed(
              new OAuthFlowError("authorization-abandoned", "the browser's return to the redirect URI", describe(back.value.error)),
            );
          step = flow.redirected(back.value.value);
          break;
        }
        case "sign": {
          const { alg, signingInput } = step;
          const signing = async (): Promise<string> => {
            this.signingKey ??= importPrivateKeyPem(o.crypto, o.privateKeyPem ?? "", alg);
            return signJws(o.crypto, await this.signingKey, alg, signingInput);
          };
          const signed = await this.within(deadline, undefined, settled(signing));
          if (signed.kind !== "value") return this.failed(this.waitError(signed, `a ${alg} signature`));
          if (!signed.value.ok) {
            this.signingKey = undefined;
            return this.failed(
              new OAuthFlowError("private-key-jwt", `a ${alg} signature with the configured private key`, describe(signed.value.error)),
            );
          }
          step = flow.signed(signed.value.value);
          break;
        }
        case "done": {
          this.tokens = step.tokens;
          const credentials = step.credentials;
          // The tokens are ours whatever the store does; a store past the deadline is left behind.
          await this.within(
            deadline,
            undefined,
            this.guard(() => this.store.set(credentials)),
          );
          return true;
        }
        case "failed":
          return this.failed(step.error);
      }
    }
  }

  /**
   * One request of a flow: under its deadline (AUTH-16), with `redirect: "manual"` and only the
   * redirects its step allows (AUTH-17), its body read to AUTH_BODY_BYTES (LIM-13); with DPoP, a
   * proof per hop and one resend with the server's nonce (RFC 9449 8). An OAuthFlowError ends
   * the flow; an unreachable URL reads as status 0 (absent for discovery, a failure at the
   * token endpoint).
   */
  private async send(step: FetchStep, deadline: number): Promise<AuthHttpResponse | OAuthFlowError> {
    const request = step.request;
    const dpop = step.dpop === true;
    const what = `a ${step.purpose} answer`;
    let hop: Hop = { url: request.url, method: request.method, body: request.body };
    let followed = 0;
    let resent = false;
    for (;;) {
      const headers: Record<string, string> = { ...request.headers };
      if (dpop) {
        try {
          headers.DPoP = await this.proof(hop.method, hop.url, this.asNonce);
        } catch {
          return { status: 0, body: undefined };
        }
      }
      const url = hop.url;
      // A metadata miss (not 200) or a redirect is decided by its status: its body is not read.
      const wanted = (res: ResponseLike): boolean => !isRedirect(res) && (request.method !== "GET" || res.status === 200);
      const raced = await this.exchange(hop, headers, deadline, `${what} from ${url}`, wanted);
      if (raced.kind !== "value") return this.waitError(raced, `an answer from ${url}`);
      const got = raced.value;
      if (got.kind === "unreachable") return { status: 0, body: undefined };
      const res = got.res;
      if (isRedirect(res)) {
        // AUTH-17: a request carrying secrets follows no redirect, not even within its origin.
        if (request.redirects === "none") {
          const refused = redirectStep(hop, res, 0, 0);
          const seen = refused.kind === "refuse" ? refused.got : `HTTP ${res.status}`;
          const expected = `an answer from ${url} itself (a request carrying secrets follows no redirect, AUTH-17)`;
          return new OAuthFlowError("redirect", expected, seen, undefined, new HttpRedirectError("AUTH-17", expected, seen, res.status));
        }
        const next = redirectStep(hop, res, followed, MAX_METADATA_REDIRECTS);
        if (next.kind === "follow") {
          hop = next.hop;
          followed++;
          continue;
        }
        // AUTH-17: not followed (another origin, a hidden target, too many): no document at this URL.
        return { status: res.status, body: undefined };
      }
      const read = got.read;
      if (read === undefined) return { status: res.status, body: undefined };
      if (!read.ok) {
        // LIM-13: past the cap the stream was cancelled; the flow fails with the cap named.
        if (read.limit !== undefined)
          return new OAuthFlowError(
            "body-limit",
            `${what} of at most ${AUTH_BODY_BYTES} bytes from ${url} (LIM-13)`,
            `more: ${read.limit.received} bytes had arrived when reading stopped and the stream was cancelled`,
            undefined,
            read.limit,
          );
        return { status: 0, body: undefined };
      }
      const body = parseJson(read.text);
      const nonce = res.headers.get("dpop-nonce");
      if (dpop && nonce !== null) this.asNonce = nonce;
      const error = typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined;
      if (dpop && !resent && res.status === 400 && error === "use_dpop_nonce" && nonce !== null) {
        resent = true;
        continue;
      }
      return { status: res.status, body };
    }
  }

  /** One fetch and, when `wanted`, its body (bounded), within requestTimeoutMs and the flow's deadline; at either the fetch is aborted and the body cancelled. */
  private exchange(
    hop: Hop,
    headers: Record<string, string>,
    deadline: number,
    what: string,
    wanted: (res: ResponseLike) => boolean,
  ): Promise<Raced<Exchange>> {
    const ctl = this.io.createAbortController?.();
    const readers = new Set<ReaderLike>();
    let late = false;
    const init: FetchInit<S> = { method: hop.method, headers, redirect: "manual" };
    if (hop.body !== undefined) init.body = hop.body;
    if (ctl !== undefined) init.signal = ctl.signal;
    const work = (async (): Promise<Exchange> => {
      let res: ResponseLike;
      try {
        res = await this.io.fetch(hop.url, init);
      } catch {
        return { kind: "unreachable" };
      }
      if (late || !wanted(res)) {
        await discard(res);
        return { kind: "answer", res, read: undefined };
      }
      return { kind: "answer", res, read: await readBody(res.body, { what, maxBytes: AUTH_BODY_BYTES, status: res.status }, readers) };
    })();
    return this.within(deadline, this.options.requestTimeoutMs ?? DEFAULT_AUTH_REQUEST_TIMEOUT_MS, work, () => {
      late = true;
      ctl?.abort("deadline");
      for (const reader of readers) cancelQuietly(reader);
    });
  }

  /**
   * Waits for `work` until the flow's deadline (and `cap` ms, when given), or until close():
   * then `stop` runs (aborting what the work waits for) and the wait ends without it.
   */
  private within<T>(deadline: number, cap: number | undefined, work: Promise<T>, stop?: () => void): Promise<Raced<T>> {
    if (this.closed) {
      stop?.();
      return Promise.resolve({ kind: "closed" });
    }
    const timers = this.io.timers;
    const left = Math.max(0, deadline - timers.now());
    const ms = cap === undefined ? left : Math.min(cap, left);
    return new Promise<Raced<T>>((resolve) => {
      let over = false;
      const end = (outcome: Raced<T>, stopping: boolean): void => {
        if (over) return;
        over = true;
        timers.clearTimeout(handle);
        if (this.stopWait === halt) this.stopWait = undefined;
        if (stopping) stop?.();
        resolve(outcome);
      };
      const halt = (): void => end({ kind: "closed" }, true);
      const handle = timers.setTimeout(
        () => end({ kind: "deadline", ms, whole: ms === left && (cap === undefined || left < cap) }, true),
        ms,
      );
      this.stopWait = halt;
      work.then(
        (value) => end({ kind: "value", value }, false),
        // Every work handed here settles instead of rejecting; a rejection is a closed wait.
        () => end({ kind: "closed" }, true),
      );
    });
  }

  /** AUTH-16: the error of a wait that ended without its value. */
  private waitError(raced: { kind: "deadline"; ms: number; whole: boolean } | { kind: "closed" }, what: string): OAuthFlowError {
    if (raced.kind === "closed") return new OAuthFlowError("closed", what, "the transport closed before it came");
    if (raced.whole) {
      const flowMs = this.options.flowTimeoutMs ?? DEFAULT_AUTH_FLOW_TIMEOUT_MS;
      return new OAuthFlowError(
        "deadline",
        `${what} within the flow's ${flowMs} ms (flowTimeoutMs, AUTH-16)`,
        "none before the flow's deadline",
      );
    }
    return new OAuthFlowError(
      "deadline",
      `${what} within ${Math.round(raced.ms)} ms (requestTimeoutMs, AUTH-16)`,
      "none in time: the request was aborted",
    );
  }

  private failed(error: OAuthFlowError): false {
    // A flow the transport's close() ended is nobody's failure to report.
    if (error.rule === "closed") return false;
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

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A handler's promise as a value: its result, or the error it rejected with. */
async function settled<T>(call: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return { ok: false, error };
  }
}
