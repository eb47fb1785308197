// The reference client (the `mcp-engine client` report) against the reference server served
// by the fetch handler on other runtimes' own servers: `mcp-engine serve --http` run by Bun
// (Bun.serve) and Deno (Deno.serve), and a Workers module (`export default { fetch }`) run by
// workerd. The runtimes are the pinned dev dependencies bun, deno and workerd (their npm
// packages ship the binaries); one that cannot run on this machine is skipped with a message.
//
// workerd runs only the 2026-07-28 era here: a Worker may not complete I/O of one request from
// another (its isolation rule), so a session-era server request (sampling, elicitation) whose
// answer arrives on a later POST cannot resume the call waiting on the first; stateless
// 2026-07-28 requests keep everything within their own request.

import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runNode } from "../support/helpers.js";
import { runtimeBinary, runtimeMissing } from "../support/runtimes.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const dist = join(root, "dist");
const cli = join(dist, "lib", "cli", "main.js");
const bin = runtimeBinary;
const runs = runtimeMissing;

/** Stops a server process: SIGTERM, then SIGKILL if it is still there after 3 s; resolves once it is gone. */
function stop(child: ReturnType<typeof spawn>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** Starts a server process and resolves with the endpoint URL it prints on stderr. */
function start(
  t: TestContext,
  command: string,
  args: readonly string[],
  urlOf: (stderr: string) => string | undefined,
  cwd?: string,
): Promise<string> {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], cwd });
  t.after(() => stop(child));
  let stderr = "";
  const decoder = new TextDecoder();
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} ${args.join(" ")} did not start within 30 s; stderr: ${stderr}`)), 30_000);
    child.stderr.on("data", (chunk) => {
      stderr += decoder.decode(chunk, { stream: true });
      const url = urlOf(stderr);
      if (url !== undefined) {
        clearTimeout(timer);
        resolve(url);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited (${String(code)}) before listening; stderr: ${stderr}`));
    });
  });
}

/** Runs the reference client's report against `url` in one era; asserts it passed. */
async function report(url: string, era: "auto" | "session" | "modern"): Promise<string> {
  const run = await runNode([cli, "client", "--era", era, "--timeout", "10000", url], 60_000);
  const summary = run.stdout.trim().split("\n").at(-1) ?? "";
  assert.equal(run.code, 0, `the report (--era ${era}) failed:\n${run.stdout}\n${run.stderr.slice(-2000)}`);
  assert.match(summary, /^\d+ passed, \d+ warned, \d+ skipped, 0 failed$/);
  const passed = Number(/^(\d+) passed/.exec(summary)?.[1]);
  assert.ok(passed >= 40, `only ${passed} checks passed: ${summary}`);
  return summary;
}

const listening =
  (runtime: string) =>
  (stderr: string): string | undefined =>
    new RegExp(`listening on (http://\\S+) \\(${runtime}, fetch handler\\)`).exec(stderr)?.[1];

for (const runtime of ["bun", "deno"] as const) {
  test(`HTTP-01, MOD-20: ${runtime}: mcp-engine serve --http serves through the fetch handler on ${runtime === "bun" ? "Bun.serve" : "Deno.serve"}, and the reference client passes in both eras`, async (t) => {
    const missing = runs(runtime);
    if (missing !== undefined) {
      t.skip(`SKIPPED: ${missing}`);
      return;
    }
    const args = runtime === "bun" ? [cli, "serve", "--http", "127.0.0.1:0"] : ["run", "-A", cli, "serve", "--http", "127.0.0.1:0"];
    const url = await start(t, bin(runtime), args, listening(runtime));
    t.diagnostic(`${runtime} auto: ${await report(url, "auto")}`);
    t.diagnostic(`${runtime} session: ${await report(url, "session")}`);
  });
}

/** A free local port (workerd listens where its config says). */
function freePort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const probe = createServer(() => undefined);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** A workerd project: the Worker module, every built module it reaches, and a config listening on `port`. */
function workerdProject(port: number): string {
  const dir = mkdtempSync(join(tmpdir(), "mcp-engine-workerd-"));
  writeFileSync(
    join(dir, "worker.js"),
    `import { createReferenceServer } from "./lib/cli/reference-server.js";
import { createHttpHandler } from "./lib/http-server/index.js";
// Made on the first request: a Worker may not draw random numbers at module scope.
let handler;
export default {
  fetch(request, env, ctx) {
    // A task's work goes on after its creating request is answered: a Worker keeps it running with waitUntil.
    ctx.waitUntil(new Promise((resolve) => setTimeout(resolve, 5000)));
    if (handler === undefined) {
      const secret = () => crypto.getRandomValues(new Uint8Array(32));
      const server = createReferenceServer({ paginationSecret: secret(), requestStateSecret: secret(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) });
      handler = createHttpHandler(server);
    }
    return handler.fetch(request);
  },
};
`,
  );
  const seen = new Set<string>();
  const queue = ["lib/cli/reference-server.js", "lib/http-server/index.js"];
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    if (seen.has(name)) continue;
    seen.add(name);
    const text = readFileSync(join(dist, name), "utf8");
    mkdirSync(join(dir, dirname(name)), { recursive: true });
    writeFileSync(join(dir, name), text);
    for (const match of text.matchAll(/(?:from|import)\s*["'](\.[^"']+)["']/g)) {
      const parts = [...dirname(name).split("/"), ...(match[1] as string).split("/")];
      const resolved: string[] = [];
      for (const part of parts)
        if (part === "..") resolved.pop();
        else if (part !== "." && part !== "") resolved.push(part);
      queue.push(resolved.join("/"));
    }
  }
  assert.ok(
    ![...seen].some((name) => name.startsWith("lib/hosts/") && name !== "lib/hosts/web/runtime.js"),
    "the Worker pulls in no Node host",
  );
  const modules = ["worker.js", ...seen].map((name) => `(name = "${name}", esModule = embed "${name}")`);
  writeFileSync(
    join(dir, "config.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .mcpWorker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const mcpWorker :Workerd.Worker = (
  modules = [ ${modules.join(",\n    ")} ],
  compatibilityDate = "2024-09-23",
  # The reference server draws task ids from node:crypto; the endpoint itself needs no Node API.
  compatibilityFlags = ["nodejs_compat"],
);
`,
  );
  return dir;
}

test("MOD-20: workerd: a Workers module (export default { fetch }) serves the reference server, and the reference client passes in 2026-07-28", async (t) => {
  const missing = runs("workerd");
  if (missing !== undefined) {
    t.skip(`SKIPPED: ${missing}`);
    return;
  }
  const port = await freePort();
  const dir = workerdProject(port);
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const child = spawn(bin("workerd"), ["serve", join(dir, "config.capnp")], { stdio: ["ignore", "pipe", "pipe"] });
  t.after(() => stop(child));
  let stderr = "";
  const decoder = new TextDecoder();
  child.stderr.on("data", (chunk) => (stderr += decoder.decode(chunk, { stream: true })));
  const url = `http://127.0.0.1:${port}/mcp`;
  // workerd prints nothing when it listens: wait until the socket answers.
  for (let i = 0; ; i++) {
    const answered = await runNode(
      ["-e", `fetch(${JSON.stringify(url)}, { method: "OPTIONS" }).then(() => process.exit(0), () => process.exit(1))`],
      10_000,
    );
    if (answered.code === 0) break;
    if (i > 100 || child.exitCode !== null) assert.fail(`workerd did not listen within 20 s; stderr: ${stderr.slice(-2000)}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 200));
  }
  t.diagnostic(`workerd modern: ${await report(url, "modern")}`);
});
