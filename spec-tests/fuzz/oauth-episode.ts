// One episode of the OAuth target: lib/auth's AuthFlow (the sans-I/O client state machine)
// driven from a seeded refusal through every step it asks for, with the network of
// oauth-network.ts answering; sometimes an input it did not ask for, or a repeated one.
// An input call is one call of start, receive, loaded, redirected or signed.
//
// Oracle, after every input:
// - no method throws; every step is one of the documented kinds, a failure carries an
//   OAuthFlowError (and an input the flow did not ask for fails it with `flow-misuse`, while
//   the input it asked for never does); after done or failed, every input is misuse;
// - every request goes to https, or http on a loopback host (discovery of an http MCP server
//   may use that server's own origin); header values hold no CR, LF or NUL; discovery goes only
//   to origins someone named (the server, the challenge, a listed authorization server);
// - secrets (the code, the PKCE verifier, client secrets, refresh tokens, assertions, the
//   enterprise ID token) appear only in requests of their purpose, to a token endpoint a
//   metadata document named (or the 2025-03-26 default) or the configured IdP; never in the
//   authorization URL; the verifier never before the token request, and it matches the
//   S256 challenge the authorization URL carried;
// - the flow ends: at most maxRequests requests, then done or failed; done carries a token this
//   network issued or the host stored (never the refused one reused), for a resource covering
//   the server; an honest episode (no hostile choice) ends with tokens;
// - the flow's memory stays within a multiple of the largest input it was given.
//
// Invariants: an episode is a pure function of its seed (the flow is synchronous).

import { AuthFlow, OAuthFlowError, type AuthStep } from "../../lib/auth/flow.js";
import { createHash } from "node:crypto";
import { OAuthNetwork, safeUrl } from "./oauth-network.js";
import type { TargetResult } from "./http-episode.js";
import type { Failure } from "./oracle.js";
import { Rng } from "./prng.js";

class Stop extends Error {
  constructor(readonly failure: Failure) {
    super(failure.detail);
  }
}

function stop(kind: string, detail: string): never {
  throw new Stop({ kind, detail });
}

const KINDS = new Set(["fetch", "load", "authorize", "sign", "done", "failed"]);
const PURPOSES = new Set([
  "protected-resource-metadata",
  "authorization-server-metadata",
  "registration",
  "token-exchange",
  "token",
  "refresh",
]);
const LOOPBACK = /^(localhost|127\.0\.0\.1|\[::1\])$|\.localhost$/;

function show(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
}

/** Characters held by a value's strings, arrays and keys (a walk of plain data and class instances, functions skipped). */
function retained(root: unknown): number {
  const seen = new Set<object>();
  let total = 0;
  const visit = (v: unknown, depth: number): void => {
    if (typeof v === "string") total += v.length;
    else if (typeof v === "object" && v !== null && !seen.has(v) && depth < 12) {
      seen.add(v);
      if (v instanceof Map || v instanceof Set) for (const x of v) visit(x, depth + 1);
      else if (ArrayBuffer.isView(v)) total += v.byteLength;
      else
        for (const k of Object.keys(v)) {
          total += k.length + 8;
          visit((v as Record<string, unknown>)[k], depth + 1);
        }
    }
  };
  visit(root, 0);
  return total;
}

/** The scheme and host of a parsed URL, read from its origin (the declared URL type has no more). */
function schemeOf(url: URL): string {
  return url.href.slice(0, url.href.indexOf(":"));
}

function hostnameOf(url: URL): string {
  return url.origin.replace(/^[a-z][a-z0-9+.-]*:\/\//, "").replace(/:\d+$/, "");
}

function secure(url: URL): boolean {
  const scheme = schemeOf(url);
  return scheme === "https" || (scheme === "http" && LOOPBACK.test(hostnameOf(url)));
}

/** The text a request carries, with an HTTP Basic header decoded (secrets hide in it). */
function requestText(request: { url: string; headers: { readonly [name: string]: string }; body?: string }): string {
  let text = `${request.url}\n${request.body ?? ""}`;
  for (const [name, value] of Object.entries(request.headers)) {
    text += `\n${name}: ${value}`;
    const basic = /^Basic (.*)$/.exec(value);
    if (basic !== null) text += `\n${Buffer.from(basic[1] as string, "base64").toString("utf8")}`;
  }
  return text;
}

export function runOAuthEpisode(seed: number): TargetResult {
  const rng = new Rng(seed);
  const net = new OAuthNetwork(rng);
  const options = net.options;
  const flow = new AuthFlow(options);
  const trace: string[] = [];
  const coverage = new Map<string, number>();
  const reached = (what: string): void => {
    coverage.set(what, (coverage.get(what) ?? 0) + 1);
  };
  let inputCalls = 0;
  let requests = 0;
  let largestInput = 1024;
  let step = 0;
  const sentTexts: string[] = [];
  let challenge: string | undefined;
  let verifier: string | undefined;
  let loadIssuer: string | undefined;
  /** The input method whose answer is being checked. */
  let inputName = "";
  const note = (line: string): void => {
    if (process.env.FUZZ_DEBUG === "1") console.log(`#${step} ${line.slice(0, 400)}`);
    trace.push(`#${step} ${line}`);
    if (trace.length > 40) trace.shift();
  };
  const server = safeUrl(options.serverUrl);
  const hostOrigins = new Set<string>();
  for (const configured of [options.serverUrl, options.enterprise?.idpTokenEndpoint]) {
    const url = configured === undefined ? undefined : safeUrl(configured);
    if (url !== undefined) hostOrigins.add(url.origin);
  }
  const config = `${net.honest ? "honest " : ""}${show({ ...options, randomBytes: undefined })} trigger ${show(net.trigger).slice(0, 200)}`;

  const checkRequest = (s: Extract<AuthStep, { kind: "fetch" }>): void => {
    const r = s.request;
    if (!PURPOSES.has(s.purpose)) stop("bad-step", `unknown purpose ${show(s.purpose)}`);
    const getting = s.purpose === "protected-resource-metadata" || s.purpose === "authorization-server-metadata";
    if (r.method !== (getting ? "GET" : "POST")) stop("bad-step", `${s.purpose} with method ${r.method}`);
    for (const [name, value] of Object.entries(r.headers))
      if (typeof value !== "string" || /[\r\n\0]/.test(value) || /[\r\n\0:]/.test(name))
        stop("header-injection", `header ${show(name)}: ${show(value)}`);
    const url = safeUrl(r.url);
    if (url === undefined) stop("bad-url", `a ${s.purpose} request to ${show(r.url)}, which fetch cannot parse`);
    // Plain http is the host's choice only: an http MCP server URL or IdP token endpoint it configured.
    const hostChose = hostOrigins.has(url.origin);
    if (!secure(url) && !hostChose) stop(getting ? "insecure-discovery" : "insecure-url", `a ${s.purpose} request to ${show(r.url)}`);
    if (getting && !net.discoveryOrigins.has(url.origin))
      stop("discovery-elsewhere", `a ${s.purpose} request to ${show(r.url)}, an origin nobody named (${show([...net.discoveryOrigins])})`);
    const text = requestText(r);
    // A private_key_jwt client's refresh goes out as a "token" step after its signature: the grant says what it is.
    const purpose = s.purpose === "token" && /(?:^|&)grant_type=refresh_token(?:&|$)/.test(r.body ?? "") ? "refresh" : s.purpose;
    for (const secret of net.secrets.values()) {
      if (!text.includes(secret.value)) continue;
      if (!secret.purposes.includes(purpose)) stop("secret-leak", `${secret.kind} in a ${s.purpose} request to ${show(r.url)}`);
      if (!secure(url) && !hostChose) stop("insecure-secret", `${secret.kind} sent to ${show(r.url)} over plain http`);
      const idp = options.enterprise?.idpTokenEndpoint;
      const allowed =
        s.purpose === "token-exchange"
          ? r.url === idp
          : net.servedTokenEndpoints.has(r.url) || (server !== undefined && r.url === `${server.origin}/token`);
      if (!allowed) stop("secret-elsewhere", `${secret.kind} sent to ${show(r.url)}, not a token endpoint the metadata named`);
    }
    if (s.purpose === "token" && /grant_type=authorization_code/.test(r.body ?? "")) {
      const v = /(?:^|&)code_verifier=([^&]*)/.exec(r.body ?? "")?.[1];
      if (v === undefined) stop("pkce", "a code exchange without code_verifier");
      const expected = createHash("sha256").update(v).digest("base64url");
      if (challenge !== expected) stop("pkce", `code_verifier does not match the challenge ${show(challenge)}`);
      for (const earlier of sentTexts) if (earlier.includes(v)) stop("secret-leak", "the code_verifier was sent before the code exchange");
      verifier = v;
    }
    if (verifier !== undefined && s.purpose !== "token" && text.includes(verifier))
      stop("secret-leak", `the code_verifier in a ${s.purpose} request`);
    sentTexts.push(text);
    requests++;
    const max = options.maxRequests ?? 16;
    if (requests > max) stop("request-limit", `request ${requests} of a flow allowed ${max}`);
  };

  const checkAuthorize = (s: Extract<AuthStep, { kind: "authorize" }>): void => {
    const url = safeUrl(s.url);
    if (url === undefined || (!secure(url) && !hostOrigins.has(url.origin))) stop("insecure-url", `the user is sent to ${show(s.url)}`);
    if (s.redirectUri !== options.redirectUri) stop("bad-step", `redirectUri ${show(s.redirectUri)} is not the configured one`);
    const params = url.searchParams;
    if (params.get("code_challenge_method") !== "S256" || params.get("response_type") !== "code" || (params.get("state") ?? "").length < 16)
      stop("pkce", `the authorization URL lacks S256, response_type=code or a state: ${show(s.url)}`);
    challenge = params.get("code_challenge") ?? undefined;
    for (const secret of net.secrets.values())
      if (s.url.includes(secret.value)) stop("secret-leak", `${secret.kind} in the authorization URL`);
  };

  const checkDone = (s: Extract<AuthStep, { kind: "done" }>): void => {
    const t = s.tokens;
    if (typeof t.accessToken !== "string" || t.accessToken === "") stop("bad-done", `done without an access token: ${show(t)}`);
    if (!net.accessTokens.has(t.accessToken)) stop("invented-token", `done with a token nobody issued or stored: ${show(t.accessToken)}`);
    if (inputName === "loaded") {
      // Done from stored credentials: only this issuer's, for this resource, not the one just refused.
      const stored = net.lastStored;
      if (stored === undefined || stored.issuer !== loadIssuer)
        stop("foreign-credentials", `stored credentials of ${show(stored?.issuer)} used for ${show(loadIssuer)}`);
    }
    if (t.accessToken === net.trigger.rejectedToken && net.lastStored?.tokens?.accessToken === t.accessToken)
      stop("reused-refused-token", "the token the server just refused was handed back from the store");
    const resource = safeUrl(t.resource);
    if (resource === undefined || server === undefined || resource.origin !== server.origin || resource.href.includes("#"))
      stop("resource-mismatch", `tokens for ${show(t.resource)}, not covering ${show(options.serverUrl)}`);
    if (s.credentials.issuer !== loadIssuer)
      stop("bad-done", `credentials for ${show(s.credentials.issuer)}, the flow loaded ${show(loadIssuer)}`);
  };

  /** Checks one answer of the flow; `asked` names the input kind the flow had asked for (a correct input never fails as misuse). */
  const check = (s: AuthStep, misuseExpected: boolean): AuthStep => {
    if (typeof s !== "object" || s === null || !KINDS.has(s.kind)) stop("bad-step", `not a step: ${show(s)}`);
    reached(`step ${s.kind}${s.kind === "fetch" ? ` ${s.purpose}` : s.kind === "failed" ? ` ${s.error.rule}` : ""}`);
    if (s.kind === "failed") {
      if (!(s.error instanceof OAuthFlowError) || typeof s.error.rule !== "string")
        stop("bad-step", `a failure without an OAuthFlowError: ${show(s)}`);
      if (misuseExpected !== (s.error.rule === "flow-misuse"))
        stop(
          "misuse",
          misuseExpected
            ? `an input the flow did not ask for was taken: ${show(s)}`
            : `the input the flow asked for was called misuse: ${s.error.message}`,
        );
    } else if (misuseExpected) stop("misuse", `an input the flow did not ask for was taken: it answered ${show(s).slice(0, 300)}`);
    else if (s.kind === "fetch") checkRequest(s);
    else if (s.kind === "authorize") checkAuthorize(s);
    else if (s.kind === "load") loadIssuer = s.issuer;
    else if (s.kind === "done") checkDone(s);
    const size = retained(flow);
    if (size > 4 * largestInput + 65_536) stop("memory", `the flow holds ${size} characters; the largest input was ${largestInput}`);
    return s;
  };

  const call = (what: string, input: unknown, fn: () => AuthStep, misuse: boolean): AuthStep => {
    inputCalls++;
    largestInput = Math.max(largestInput, JSON.stringify(input ?? null)?.length ?? 0);
    note(`${what} ${show(input).slice(0, 300)}`);
    inputName = what.split(" ")[0] as string;
    let s: AuthStep;
    try {
      s = fn();
    } catch (error) {
      return stop(
        "flow-threw",
        `${what} threw: ${error instanceof Error ? (error.stack ?? error.message).split("\n").slice(0, 5).join("\n") : String(error)}`,
      );
    }
    note(`  → ${show(s).slice(0, 300)}`);
    return check(s, misuse);
  };

  /** An input the current step did not ask for. */
  const wrongInput = (current: AuthStep["kind"]): AuthStep => {
    const choices = ["start", "receive", "loaded", "redirected", "signed"].filter(
      (m) =>
        !(
          (m === "receive" && current === "fetch") ||
          (m === "loaded" && current === "load") ||
          (m === "redirected" && current === "authorize") ||
          (m === "signed" && current === "sign")
        ),
    );
    const m = rng.pick(choices);
    reached("misuse");
    if (m === "start") return call("start (again)", net.trigger, () => flow.start(net.trigger), true);
    if (m === "receive") return call("receive (unasked)", 200, () => flow.receive({ status: 200, body: {} }), true);
    if (m === "loaded") return call("loaded (unasked)", null, () => flow.loaded(undefined), true);
    if (m === "redirected") return call("redirected (unasked)", "", () => flow.redirected("https://app.example/cb?code=x&state=y"), true);
    return call("signed (unasked)", "sig", () => flow.signed("c2ln"), true);
  };

  let failure: TargetResult["failure"];
  try {
    let s = call("start", net.trigger, () => flow.start(net.trigger), false);
    for (step = 1; s.kind !== "done" && s.kind !== "failed"; step++) {
      if (step > 60) stop("stuck", `no end after ${step} steps`);
      if (!net.honest && rng.chance(0.03)) {
        s = wrongInput(s.kind);
        break;
      }
      switch (s.kind) {
        case "fetch": {
          const { response, note: how } = net.answer(s);
          s = call(`receive (${how})`, response, () => flow.receive(response), false);
          break;
        }
        case "load": {
          const stored = net.stored(s.issuer);
          s = call("loaded", stored, () => flow.loaded(stored), false);
          break;
        }
        case "authorize": {
          const back = net.callback(s, flow.authorizationServer ?? "");
          s = call(`redirected (${back.note})`, back.url, () => flow.redirected(back.url), false);
          break;
        }
        case "sign": {
          const signature = net.signature();
          s = call("signed", signature, () => flow.signed(signature), false);
          break;
        }
      }
    }
    reached(`ended ${s.kind}`);
    if (net.honest && s.kind !== "done")
      stop(`honest-flow-failed${s.kind === "failed" ? `:${s.error.rule}` : ""}`, `an honest exchange ended ${show(s)}`);
    // Over: every input is misuse now, and nothing more is asked.
    for (let i = rng.int(3); i > 0; i--) wrongInput("done");
    if (rng.chance(0.5)) call("receive (after the end)", 200, () => flow.receive({ status: 200, body: {} }), true);
  } catch (error) {
    if (error instanceof Stop) failure = { ...error.failure, step, trace };
    else failure = { kind: "fuzzer-error", detail: error instanceof Error ? (error.stack ?? error.message) : String(error), step, trace };
  }
  return { seed, inputCalls, steps: step, config, failure, coverage };
}
