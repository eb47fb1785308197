// The one error type of the OAuth client: which rule a flow enforced, what it expected and
// what arrived, and the authorization server's own `error` code when it sent one.

export class OAuthFlowError extends Error {
  /** Our rule id: resource-mismatch, iss-mismatch, iss-missing, state-mismatch, pkce-unsupported, token, deadline, redirect, body-limit, ... */
  readonly rule: string;
  readonly expected: string;
  readonly got: string;
  /** The server's OAuth error code (invalid_grant, access_denied, ...), when it sent one. */
  readonly oauthError: string | undefined;

  /** `cause`: the typed error underneath, when there is one (the HTTP client's HttpBodyLimitError, HttpRedirectError). */
  constructor(rule: string, expected: string, got: string, oauthError?: string, cause?: unknown) {
    super(`OAuth ${rule}: expected ${expected}, got ${got}`);
    Object.setPrototypeOf(this, new.target.prototype); // instanceof through an ES5 down-level
    this.name = "OAuthFlowError";
    this.rule = rule;
    this.expected = expected;
    this.got = got;
    this.oauthError = oauthError;
    if (cause !== undefined) Object.defineProperty(this, "cause", { value: cause, enumerable: false, writable: true, configurable: true });
  }
}
