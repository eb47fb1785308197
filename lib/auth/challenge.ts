// WWW-Authenticate (RULES.md AUTH-15): the challenge syntax of RFC 9110 11.6.1 (auth-scheme, then a token68 or
// comma-separated auth-params whose values are tokens or quoted strings, several challenges
// in one header), the Bearer parameters of RFC 6750 3 and RFC 9728 5.1 read from it, and the
// writer the resource server uses.
//
// Invariants:
// - the parser never throws and reads a bounded input (MAX_HEADER characters, MAX_PARAMS
//   parameters per challenge); what does not parse ends the challenge list, what parsed stays;
// - scheme and parameter names are compared case-insensitively (lowercased), values as sent;
// - parameters live in a Map (names are the peer's); a repeated name keeps its first value;
// - the writer emits only quoted strings, escaping `"` and `\` and dropping control characters,
//   so no value can end the header or inject another parameter.

export const MAX_HEADER = 16 * 1024;
const MAX_PARAMS = 64;

export interface Challenge {
  /** Lowercased auth-scheme ("bearer", "dpop", "basic", ...). */
  readonly scheme: string;
  readonly token68: string | undefined;
  readonly params: ReadonlyMap<string, string>;
}

const TCHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*/;

/** Every challenge of a WWW-Authenticate value, in order. */
export function parseChallenges(header: string | null | undefined): Challenge[] {
  if (typeof header !== "string") return [];
  const text = header.length > MAX_HEADER ? header.slice(0, MAX_HEADER) : header;
  const out: Challenge[] = [];
  let i = 0;
  const skipSpace = (): void => {
    while (i < text.length && (text[i] === " " || text[i] === "\t")) i++;
  };
  const skipListSeparators = (): void => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === ",")) i++;
  };
  const token = (): string => {
    const start = i;
    while (i < text.length && TCHAR.test(text[i] as string)) i++;
    return text.slice(start, i);
  };
  const quoted = (): string | undefined => {
    // text[i] is the opening quote.
    i++;
    let value = "";
    while (i < text.length) {
      const c = text[i] as string;
      if (c === '"') {
        i++;
        return value;
      }
      if (c === "\\" && i + 1 < text.length) {
        value += text[i + 1];
        i += 2;
        continue;
      }
      value += c;
      i++;
    }
    return undefined; // unterminated
  };
  skipListSeparators();
  while (i < text.length) {
    const scheme = token();
    if (scheme === "") break;
    const params = new Map<string, string>();
    let token68: string | undefined;
    skipSpace();
    const rest = text.slice(i);
    const t68 = TOKEN68.exec(rest);
    if (t68 !== null && /^[ \t]*(,|$)/.test(rest.slice(t68[0].length))) {
      // A token68 stands alone after the scheme ("Basic abc=="); "realm=x" is a parameter.
      token68 = t68[0];
      i += t68[0].length;
    }
    let broken = false;
    while (token68 === undefined && i < text.length && params.size < MAX_PARAMS) {
      skipListSeparators();
      const save = i;
      const name = token();
      if (name === "") break;
      skipSpace();
      if (text[i] !== "=") {
        // Not "name =": the start of the next challenge.
        i = save;
        break;
      }
      i++;
      skipSpace();
      let value: string | undefined;
      if (text[i] === '"') value = quoted();
      else {
        value = token();
        if (value === "") value = undefined;
      }
      if (value === undefined) {
        broken = true;
        break;
      }
      const key = name.toLowerCase();
      if (!params.has(key)) params.set(key, value);
      skipSpace();
      if (i < text.length && text[i] !== ",") {
        broken = true;
        break;
      }
    }
    out.push({ scheme: scheme.toLowerCase(), token68, params });
    if (broken) break;
    skipListSeparators();
  }
  return out;
}

/** What a Bearer challenge says (RFC 6750 3, RFC 9728 5.1). */
export interface BearerChallenge {
  readonly resourceMetadata: string | undefined;
  /** The scope parameter split on spaces; undefined when absent. */
  readonly scope: readonly string[] | undefined;
  readonly error: string | undefined;
  readonly errorDescription: string | undefined;
}

/**
 * The first Bearer challenge of a WWW-Authenticate value (else the first DPoP one, RFC 9449 7.1,
 * whose parameters mean the same), or undefined when there is neither.
 */
export function bearerChallenge(header: string | null | undefined): BearerChallenge | undefined {
  const all = parseChallenges(header);
  const challenge = all.find((c) => c.scheme === "bearer") ?? all.find((c) => c.scheme === "dpop");
  if (challenge === undefined) return undefined;
  const scope = challenge.params.get("scope");
  return {
    resourceMetadata: challenge.params.get("resource_metadata"),
    scope: scope === undefined ? undefined : splitScope(scope),
    error: challenge.params.get("error"),
    errorDescription: challenge.params.get("error_description"),
  };
}

/** A space-delimited scope string as a list without empties or repeats. */
export function splitScope(scope: string): string[] {
  return [...new Set(scope.split(/[ \t]+/).filter((s) => s !== ""))];
}

/** The ordered union of scope lists (first list's order, then the new ones). */
export function unionScopes(...lists: ReadonlyArray<readonly string[] | undefined>): string[] {
  const out = new Set<string>();
  for (const list of lists) for (const s of list ?? []) out.add(s);
  return [...out];
}

/** A quoted-string (RFC 9110 5.6.4) carrying `value`: `"` and `\` escaped, control characters dropped. */
export function quote(value: string): string {
  return `"${value.replace(/[\x00-\x1f\x7f]/g, "").replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/** The parameters of a challenge the resource server writes. */
export interface ChallengeParams {
  realm?: string;
  resourceMetadata?: string;
  scope?: readonly string[];
  error?: string;
  errorDescription?: string;
}

function formatChallenge(scheme: string, params: ChallengeParams, algs?: readonly string[]): string {
  const parts: string[] = [];
  if (params.realm !== undefined) parts.push(`realm=${quote(params.realm)}`);
  if (params.resourceMetadata !== undefined) parts.push(`resource_metadata=${quote(params.resourceMetadata)}`);
  if (params.scope !== undefined && params.scope.length > 0) parts.push(`scope=${quote(params.scope.join(" "))}`);
  if (params.error !== undefined) parts.push(`error=${quote(params.error)}`);
  if (params.errorDescription !== undefined) parts.push(`error_description=${quote(params.errorDescription)}`);
  if (algs !== undefined && algs.length > 0) parts.push(`algs=${quote(algs.join(" "))}`);
  return parts.length === 0 ? scheme : `${scheme} ${parts.join(", ")}`;
}

/** A Bearer challenge for a 401 or 403 answer; parameters in a fixed order, each a quoted string. */
export function formatBearerChallenge(params: ChallengeParams): string {
  return formatChallenge("Bearer", params);
}

/** A DPoP challenge (RFC 9449 7.1): the Bearer parameters, then `algs`, the proof algorithms accepted. */
export function formatDpopChallenge(params: ChallengeParams & { algs: readonly string[] }): string {
  return formatChallenge("DPoP", params, params.algs);
}
