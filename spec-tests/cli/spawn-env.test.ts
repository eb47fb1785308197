// The environment of a spawned server (lib/hosts/spawn-env.ts, RULES.md CLI-02): only a small
// default set of ours unless more is asked for, through the library (StdioClient.spawn's `env`
// and `inheritEnv`), `mcp-engine client --env` and `mcp-engine conform --env`. The regression:
// a secret in our environment never reaches a server that reports its own (env-server.ts)
// unless it is passed by name.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import {
  DEFAULT_ENV_POSIX,
  DEFAULT_ENV_WINDOWS,
  childEnvironment,
  defaultEnvironment,
  parseEnvRequest,
  requestedEnvironment,
} from "../../lib/hosts/spawn-env.js";
import { StdioClient } from "../../lib/hosts/stdio.js";
import { parseArgs, USAGE } from "../../lib/cli/args.js";
import { CONFORM_USAGE, parseConformArgs } from "../../lib/cli/conform/index.js";
import { StdioTarget } from "../../lib/cli/conform/target.js";
import { SECRET_NAME } from "./env-server.js";

const MAIN = fileURLToPath(new URL("../../lib/cli/main.js", import.meta.url));
const SERVER = fileURLToPath(new URL("./env-server.js", import.meta.url));
const SECRET = "s3cret-value-of-the-parent";

const OURS = {
  HOME: "/home/me",
  LOGNAME: "me",
  PATH: "/usr/bin:/bin",
  SHELL: "/bin/bash",
  TERM: "xterm",
  USER: "me",
  AWS_SECRET_ACCESS_KEY: "aws",
  GITHUB_TOKEN: "ghp",
  OPENAI_API_KEY: "sk",
  NODE_OPTIONS: "--require evil.js",
  LD_PRELOAD: "/tmp/evil.so",
};

test("CLI-02: the default environment: HOME, LOGNAME, PATH, SHELL, TERM, USER of ours and nothing else", () => {
  assert.deepEqual(defaultEnvironment(OURS, "linux"), {
    HOME: "/home/me",
    LOGNAME: "me",
    PATH: "/usr/bin:/bin",
    SHELL: "/bin/bash",
    TERM: "xterm",
    USER: "me",
  });
  assert.deepEqual(DEFAULT_ENV_POSIX, ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"]);
  // Only what we have: an unset variable is not made up.
  assert.deepEqual(defaultEnvironment({ PATH: "/bin", SECRET: "x" }, "darwin"), { PATH: "/bin" });
});

test("CLI-02: a value that starts with () (a shell function bash exports) is never handed on by default", () => {
  assert.deepEqual(defaultEnvironment({ PATH: "/bin", SHELL: "() { :; }; echo pwned", TERM: "(not a function)" }, "linux"), {
    PATH: "/bin",
    TERM: "(not a function)",
  });
});

test("CLI-02: on Windows the usual set, names matched whatever their case and kept as spelled", () => {
  const windows = {
    Path: "C:\\Windows",
    SystemRoot: "C:\\Windows",
    APPDATA: "a",
    HOMEDRIVE: "C:",
    HOMEPATH: "\\Users\\me",
    LOCALAPPDATA: "l",
    PROCESSOR_ARCHITECTURE: "AMD64",
    ProgramFiles: "C:\\Program Files",
    SystemDrive: "C:",
    TEMP: "t",
    USERNAME: "me",
    USERPROFILE: "C:\\Users\\me",
    GITHUB_TOKEN: "ghp",
    HOME: "/not/a/windows/default",
  };
  const got = defaultEnvironment(windows, "win32");
  assert.deepEqual(
    Object.keys(got).sort(),
    Object.keys(windows)
      .filter((k) => k !== "GITHUB_TOKEN" && k !== "HOME")
      .sort(),
  );
  assert.equal(DEFAULT_ENV_WINDOWS.length, 12);
  // The caller's spelling of one variable replaces ours.
  assert.deepEqual(childEnvironment({ PATH: "D:\\bin" }, false, windows, "win32").PATH, "D:\\bin");
  assert.equal(childEnvironment({ PATH: "D:\\bin" }, false, windows, "win32").Path, undefined);
});

test("CLI-02: env adds to the default, replaces a default variable, removes one set to undefined; inheritEnv hands on all of ours", () => {
  assert.deepEqual(childEnvironment({ API_KEY: "k", TERM: "dumb", USER: undefined }, false, OURS, "linux"), {
    HOME: "/home/me",
    LOGNAME: "me",
    PATH: "/usr/bin:/bin",
    SHELL: "/bin/bash",
    TERM: "dumb",
    API_KEY: "k",
  });
  assert.deepEqual(childEnvironment(undefined, true, OURS, "linux"), OURS);
  assert.deepEqual(childEnvironment({ GITHUB_TOKEN: undefined }, true, OURS, "linux").GITHUB_TOKEN, undefined);
});

test("CLI-02: --env NAME passes ours, --env NAME=VALUE sets it (a value may hold = or be empty); a name is required", () => {
  assert.deepEqual(parseEnvRequest("GITHUB_TOKEN"), { name: "GITHUB_TOKEN", value: undefined });
  assert.deepEqual(parseEnvRequest("A=b=c"), { name: "A", value: "b=c" });
  assert.deepEqual(parseEnvRequest("EMPTY="), { name: "EMPTY", value: "" });
  assert.match(parseEnvRequest("=value") as string, /--env takes NAME .* or NAME=VALUE .*; got "=value"/);
  assert.match(parseEnvRequest("") as string, /--env takes NAME/);
  assert.match(parseEnvRequest("A\u0000B") as string, /--env takes NAME/);
  assert.match(parseEnvRequest("A=\u0000") as string, /cannot hold a NUL character; got one in "A"/);
  const resolved = requestedEnvironment(
    [
      { name: "GITHUB_TOKEN", value: undefined },
      { name: "MODE", value: "test" },
      { name: "NOT_SET_HERE", value: undefined },
      { name: "MODE", value: "later" },
    ],
    OURS,
  );
  assert.deepEqual(resolved, { env: { GITHUB_TOKEN: "ghp", MODE: "later" }, missing: ["NOT_SET_HERE"] });
});

test("CLI-02: client and conform take --env, repeatable, before the server command; with a URL it is refused", () => {
  const client = parseArgs(["client", "--env", "A", "--env=B=1", "--", "node", "server.js", "--env", "C"]);
  assert.ok(client.ok);
  assert.deepEqual(client.options.env, [
    { name: "A", value: undefined },
    { name: "B", value: "1" },
  ]);
  assert.deepEqual(client.options.target, { kind: "stdio", command: "node", args: ["server.js", "--env", "C"] });
  const demo = parseArgs(["demo", "--env", "A=1"]);
  assert.ok(demo.ok && demo.options.env.length === 1);
  const url = parseArgs(["client", "--env", "A", "http://127.0.0.1:3000/mcp"]);
  assert.ok(!url.ok && /--env sets the environment of a spawned server; http:\/\/127\.0\.0\.1:3000\/mcp is not spawned/.test(url.problem));
  const bad = parseArgs(["client", "--env", "=x", "--", "node"]);
  assert.ok(!bad.ok && /--env takes NAME/.test(bad.problem));
  const missing = parseArgs(["client", "--env"]);
  assert.ok(!missing.ok && /--env needs a value/.test(missing.problem));
  assert.match(USAGE, /--env NAME \| --env NAME=VALUE/);

  const conform = parseConformArgs(["--env", "A", "--env", "B=2", "--", "node", "s.js"]);
  assert.ok(conform.ok);
  assert.deepEqual(conform.args.env, [
    { name: "A", value: undefined },
    { name: "B", value: "2" },
  ]);
  const conformUrl = parseConformArgs(["--env", "A", "http://127.0.0.1:3000/mcp"]);
  assert.ok(!conformUrl.ok && /--env sets the environment of a stdio target/.test(conformUrl.problem));
  const conformBad = parseConformArgs(["--env", "=", "--", "node"]);
  assert.ok(!conformBad.ok && /--env takes NAME/.test(conformBad.problem));
  assert.match(CONFORM_USAGE, /--env NAME \| NAME=VALUE/);
});

/** Runs `fn` with the secret set in this process's environment (the parent of every spawned server). */
async function withSecret<T>(fn: () => Promise<T>): Promise<T> {
  process.env[SECRET_NAME] = SECRET;
  try {
    return await fn();
  } finally {
    delete process.env[SECRET_NAME];
  }
}

test("CLI-02: StdioClient.spawn: the server does not see our secret by default, sees it when passed, and all of ours with inheritEnv", async () => {
  await withSecret(async () => {
    const versions: string[] = [];
    const names: string[] = [];
    for (const extra of [{}, { env: { [SECRET_NAME]: SECRET } }, { inheritEnv: true }]) {
      const remote = await StdioClient.spawn({
        command: process.execPath,
        args: [SERVER, "--serve"],
        info: { name: "t", version: "1" },
        ...extra,
      });
      try {
        versions.push(remote.server.serverInfo.version);
        const result = await remote.client.callTool("env_names", {});
        names.push((result.content[0] as { text: string }).text);
      } finally {
        await remote.close();
      }
    }
    assert.deepEqual(versions, ["secret=unset", `secret=${SECRET}`, `secret=${SECRET}`]);
    // By default: only names of the default set (and what the runtime itself adds on its own platform).
    // Node hands NODE_V8_COVERAGE to every child it spawns, whatever env says, while coverage is
    // collected (under c8 in npm test): the runtime's doing, so that the children are measured too.
    const runtimeAdds = process.env.NODE_V8_COVERAGE !== undefined ? ["NODE_V8_COVERAGE"] : [];
    const allowed = new Set([...DEFAULT_ENV_POSIX, ...DEFAULT_ENV_WINDOWS, ...runtimeAdds]);
    const leaked = (names[0] as string).split(",").filter((name) => name !== "" && !allowed.has(name.toUpperCase()));
    assert.deepEqual(leaked, [], `the server saw ${names[0]}`);
  });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI with the secret in its environment (killed after 60 s). */
function cli(args: readonly string[]): Promise<Run> {
  return new Promise<Run>((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, [SECRET_NAME]: SECRET },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Uint8Array) => (stdout += new TextDecoder().decode(chunk)));
    child.stderr.on("data", (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`mcp-engine ${args.join(" ")} did not finish; stdout: ${stdout}; stderr: ${stderr}`));
    }, 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test("CLI-02: `mcp-engine client`: a secret in the CLI's environment stays out of the server unless --env names it", async () => {
  const plain = await cli(["client", "--", process.execPath, SERVER, "--serve"]);
  assert.match(plain.stdout, /^PASS {2}initialize: env-server secret=unset,/m, plain.stdout + plain.stderr);
  assert.doesNotMatch(plain.stdout + plain.stderr, new RegExp(SECRET));
  const passed = await cli(["client", "--env", SECRET_NAME, "--env", "OTHER=1", "--", process.execPath, SERVER, "--serve"]);
  assert.match(passed.stdout, new RegExp(`^PASS {2}initialize: env-server secret=${SECRET},`, "m"), passed.stdout + passed.stderr);
  const set = await cli([
    "client",
    "--env",
    `${SECRET_NAME}=given`,
    "--env",
    "NOT_SET_ANYWHERE",
    "--",
    process.execPath,
    SERVER,
    "--serve",
  ]);
  assert.match(set.stdout, /^PASS {2}initialize: env-server secret=given,/m, set.stdout + set.stderr);
  assert.match(set.stderr, /--env NOT_SET_ANYWHERE: not set here, so not passed to the server/);
});

test("CLI-02: `mcp-engine conform`: the target does not get the secret unless --env names it; the runner's own variables it does", async () => {
  const args = ["--only", "server/ping/every", "--timeout", "1000"];
  const plain = await cli(["conform", ...args, "--", process.execPath, SERVER, "--serve"]);
  assert.match(plain.stderr, /^target: \{"name":"env-server","version":"secret=unset"\}/m, plain.stderr);
  const passed = await cli(["conform", ...args, "--env", SECRET_NAME, "--", process.execPath, SERVER, "--serve"]);
  assert.match(passed.stderr, new RegExp(`^target: \\{"name":"env-server","version":"secret=${SECRET}"\\}`, "m"), passed.stderr);
  // StdioTarget itself: the default set, the runner's MCP_CONFORM and what it is given.
  await withSecret(async () => {
    const target = new StdioTarget({
      command: process.execPath,
      args: ["-e", "console.log(Object.keys(process.env).sort().join(','))"],
      adapter: false,
      env: { GIVEN: "1" },
    });
    const line = await target.next(10_000);
    await target.stop(1000);
    const names = (line?.line ?? "").split(",");
    assert.ok(names.includes("MCP_CONFORM") && names.includes("GIVEN"), line?.line);
    assert.ok(!names.includes(SECRET_NAME), line?.line);
  });
});
