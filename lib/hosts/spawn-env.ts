// The environment of a server this process spawns (RULES.md CLI-02). Ours may hold secrets (API
// keys, tokens, cloud credentials) that a server has no business reading, and a server's tool
// may print its environment back (server-everything's get-env does): so a spawned server gets
// only a small default set taken from ours, the one the official SDKs use, plus what its
// caller names. Also the `--env NAME` / `--env NAME=VALUE` requests of the CLI, parsed and
// resolved against our environment.
//
// Invariants: nothing here reads process.env unless no environment is passed in (the
// functions take `from` and `platform`, so tests give their own); a value that starts with
// "()" (a shell function bash exports) is never handed on by default; a name with "=" or NUL
// is refused (no environment can hold it).

/** The variables a spawned server gets from our environment by default on POSIX (CLI-02): the official SDKs' set. */
export const DEFAULT_ENV_POSIX: readonly string[] = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];
/** The same on Windows: what a program needs to find its home, its temporary folder and the system. */
export const DEFAULT_ENV_WINDOWS: readonly string[] = [
  "APPDATA",
  "HOMEDRIVE",
  "HOMEPATH",
  "LOCALAPPDATA",
  "PATH",
  "PROCESSOR_ARCHITECTURE",
  "PROGRAMFILES",
  "SYSTEMDRIVE",
  "SYSTEMROOT",
  "TEMP",
  "USERNAME",
  "USERPROFILE",
];

/**
 * The environment a spawned server gets when the caller asks for nothing more (CLI-02): the
 * variables of DEFAULT_ENV_POSIX (DEFAULT_ENV_WINDOWS on Windows) that `from` has, except a
 * value that starts with "()" (a shell function exported by bash: code, not a setting). On
 * Windows names are matched whatever their case (process.env does so there), and kept in the
 * case `from` spells them.
 */
export function defaultEnvironment(
  from: { readonly [key: string]: string | undefined } = process.env,
  platform: string = process.platform,
): { [key: string]: string } {
  const names = platform === "win32" ? DEFAULT_ENV_WINDOWS : DEFAULT_ENV_POSIX;
  const out: { [key: string]: string } = {};
  for (const [name, value] of Object.entries(from)) {
    const wanted = platform === "win32" ? names.includes(name.toUpperCase()) : names.includes(name);
    if (!wanted || value === undefined || value.startsWith("()")) continue;
    out[name] = value;
  }
  return out;
}

/**
 * The whole environment of a spawned server: the default (or all of `from` with `inheritEnv`),
 * then `env` on top; a variable `env` sets to undefined is removed.
 */
export function childEnvironment(
  env: { readonly [key: string]: string | undefined } | undefined,
  inheritEnv: boolean,
  from: { readonly [key: string]: string | undefined } = process.env,
  platform: string = process.platform,
): { [key: string]: string } {
  const out: { [key: string]: string } = {};
  if (inheritEnv) {
    for (const [name, value] of Object.entries(from)) if (value !== undefined) out[name] = value;
  } else Object.assign(out, defaultEnvironment(from, platform));
  for (const [name, value] of Object.entries(env ?? {})) {
    // On Windows PATH and Path are one variable: the caller's spelling replaces ours.
    if (platform === "win32")
      for (const key of Object.keys(out)) if (key.toUpperCase() === name.toUpperCase() && key !== name) delete out[key];
    if (value === undefined) delete out[name];
    else out[name] = value;
  }
  return out;
}

/** One `--env` request: pass our variable `name` (value undefined), or set it to `value`. */
export interface EnvRequest {
  readonly name: string;
  readonly value: string | undefined;
}

/** `NAME` or `NAME=VALUE` (the value may hold "=" and be empty), or why it is refused. */
export function parseEnvRequest(text: string): EnvRequest | string {
  const eq = text.indexOf("=");
  const name = eq < 0 ? text : text.slice(0, eq);
  if (name === "" || name.includes("\u0000"))
    return `--env takes NAME (pass our variable) or NAME=VALUE (set it); got ${JSON.stringify(text)}`;
  const value = eq < 0 ? undefined : text.slice(eq + 1);
  if (value?.includes("\u0000")) return `--env: a value cannot hold a NUL character; got one in ${JSON.stringify(name)}`;
  return { name, value };
}

/**
 * The variables `requests` ask for: each NAME=VALUE as given, each NAME with its value in
 * `from` (the later request of one name wins); `missing` lists the names asked for that
 * `from` does not have (nothing is passed for them).
 */
export function requestedEnvironment(
  requests: readonly EnvRequest[],
  from: { readonly [key: string]: string | undefined } = process.env,
): { env: { [key: string]: string }; missing: string[] } {
  const env: { [key: string]: string } = {};
  const missing: string[] = [];
  for (const request of requests) {
    const value = request.value ?? from[request.name];
    if (value === undefined) {
      missing.push(request.name);
      continue;
    }
    env[request.name] = value;
  }
  return { env, missing };
}
