// `mcp-engine client <url>` against a protected server: the CLI's loopback redirect listener
// receives the browser's return and the report runs with the token (interactive mode, the
// "browser" here being a fetch that follows the authorization server's redirect); and the
// conformance mode's headless redirect with MCP_CONFORMANCE_SCENARIO set.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { startTestAuthServer } from "./test-as.js";
import { after, protectedServer } from "./protected.js";

const MAIN = fileURLToPath(new URL("../../lib/cli/main.js", import.meta.url));

function runCli(
  args: string[],
  env: { [k: string]: string | undefined },
  onStderr: (text: string) => void,
  ms = 40_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const merged: { [k: string]: string } = {};
    for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) merged[k] = v;
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ["ignore", "pipe", "pipe"], env: merged });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += new TextDecoder().decode(chunk)));
    child.stderr.on("data", (chunk) => {
      const text = new TextDecoder().decode(chunk);
      stderr += text;
      onStderr(stderr);
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the CLI did not finish; stderr: ${stderr}`));
    }, ms);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test("AUTH-03: interactive: the authorization URL is printed, the browser's return reaches the loopback listener, the report runs authorized", async (t) => {
  const as = await startTestAuthServer();
  after(t, () => as.close());
  const { url } = await protectedServer(t, as);
  let opened = false;
  const browsed: Promise<number>[] = [];
  const run = await runCli(["client", url], { MCP_CONFORMANCE_SCENARIO: undefined }, (stderr) => {
    const m = /Open this URL in a browser:\s+(\S+)/.exec(stderr);
    if (m === null || opened) return;
    opened = true;
    // The browser: follows the authorization server's redirect to the CLI's listener.
    browsed.push(fetch(m[1] as string, { method: "GET", headers: {} }).then((res) => res.status));
  });
  assert.ok(opened, `no authorization URL printed; stdout: ${run.stdout}; stderr: ${run.stderr}`);
  assert.equal(await browsed[0], 200, "the listener answered the browser");
  assert.match(run.stdout, /mcp-engine client report for/);
  assert.doesNotMatch(run.stdout, /FAIL {2}initialize/);
  const authorize = as.seen.find((s) => s.path === "/authorize");
  assert.match(authorize?.params.get("redirect_uri") ?? "", /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
});

test("AUTH-03: conformance mode: the authorization server's redirect is followed headlessly and the scenario completes", async (t) => {
  const as = await startTestAuthServer();
  after(t, () => as.close());
  const { url } = await protectedServer(t, as, [], false);
  const run = await runCli(
    ["client", url],
    { MCP_CONFORMANCE_SCENARIO: "auth/metadata-default", MCP_CONFORMANCE_CONTEXT: undefined },
    () => undefined,
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /whoami: .*user-1/);
});
