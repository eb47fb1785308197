// The OAuth path of `mcp-engine client <url>` against a hostile resource and authorization
// server (RULES.md CLI-01): one loopback node:http server (port 0) that is both, and puts
// terminal attacks in the protected resource metadata's `resource` (the resource-mismatch
// message), in `authorization_endpoint` (the "open this URL" line), in the redirect's
// `error_description` and in the token endpoint's error. The CLI's stdout and stderr must
// carry none of them raw. Also the two formatters of lib/cli/auth.ts, unit by unit.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { authFailure, authorizationPrompt } from "../../lib/cli/auth.js";
import { URL_WIDTH } from "../../lib/codec/terminal-text.js";

const MAIN = fileURLToPath(new URL("../../lib/cli/main.js", import.meta.url));

/** Attacks without spaces (they go into a URL path too). */
const ATTACK = "\u001b]0;pwned-title\u0007\u001b]8;;https://evil.example/\u001b\\\u202eevil\u2066\u009b31m\u007f\r";
const ESCAPED = "\\x1b]0;pwned-title\\x07\\x1b]8;;https://evil.example/\\x1b\\\\u202eevil\\u2066\\x9b31m\\x7f\\x0d";
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

type Mode = "resource" | "redirect-error" | "token-error";

/** The hostile server: /mcp answers 401 pointing at its metadata; it is its own authorization server. */
async function hostileServer(mode: Mode): Promise<{ base: string; close(): Promise<void> }> {
  let base = "";
  const http = createServer((req, res) => {
    const chunks: Uint8Array[] = [];
    req.on("data", (chunk: Uint8Array) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", base);
      const json = (status: number, value: unknown): void => {
        res.writeHead(status, { "Content-Type": "application/json" });
        res.end(JSON.stringify(value));
      };
      if (url.pathname === "/mcp") {
        res.writeHead(401, { "WWW-Authenticate": `Bearer resource_metadata="${base}/prm"`, "Content-Type": "text/plain" });
        return res.end("unauthorized");
      }
      if (url.pathname === "/prm")
        return json(200, {
          resource: mode === "resource" ? `http://evil.example/${ATTACK}` : `${base}/mcp`,
          authorization_servers: [base],
        });
      if (url.pathname === "/.well-known/oauth-authorization-server")
        return json(200, {
          issuer: base,
          authorization_endpoint: `${base}/authorize/${ATTACK}`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          response_types_supported: ["code"],
          grant_types_supported: ["authorization_code"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none"],
        });
      if (url.pathname === "/register") {
        const body = chunks.map((chunk) => new TextDecoder().decode(chunk)).join("");
        const meta = JSON.parse(body) as { redirect_uris?: string[] };
        return json(201, { client_id: "client-1", redirect_uris: meta.redirect_uris, token_endpoint_auth_method: "none" });
      }
      if (url.pathname.startsWith("/authorize")) {
        const back = new URL(url.searchParams.get("redirect_uri") ?? "http://127.0.0.1:1/callback");
        back.searchParams.set("state", url.searchParams.get("state") ?? "");
        if (mode === "redirect-error") {
          back.searchParams.set("error", "access_denied");
          back.searchParams.set("error_description", `denied:${ATTACK}${"D".repeat(5000)}`);
        } else back.searchParams.set("code", "code-1");
        res.writeHead(302, { Location: back.href });
        return res.end();
      }
      if (url.pathname === "/token") return json(400, { error: "invalid_grant", error_description: `token:${ATTACK}` });
      json(404, { error: "not_found" });
    });
  });
  const port = await new Promise<number>((resolve) => {
    http.listen(0, "127.0.0.1", () => {
      const address = http.address();
      resolve(typeof address === "object" && address !== null ? address.port : 0);
    });
  });
  base = `http://127.0.0.1:${port}`;
  return {
    base,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

/** `mcp-engine client <url>` in interactive mode; the "browser" opens the printed URL and follows the redirect back. */
function runClient(url: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("MCP_CONFORMANCE")) env[k] = v;
    const child = spawn(process.execPath, [MAIN, "client", "--timeout", "10000", url], { stdio: ["ignore", "pipe", "pipe"], env });
    let stdout = "";
    let stderr = "";
    let opened = false;
    child.stdout.on("data", (chunk: Uint8Array) => (stdout += new TextDecoder().decode(chunk)));
    child.stderr.on("data", (chunk: Uint8Array) => {
      stderr += new TextDecoder().decode(chunk);
      const m = /Open this URL in a browser:\n {2}(\S+)\n/.exec(stderr);
      if (m === null || opened) return;
      opened = true;
      void (async () => {
        const authorize = await fetch(m[1] as string, { method: "GET", headers: {}, redirect: "manual" });
        const location = authorize.headers.get("location");
        if (location !== null) await fetch(location, { method: "GET", headers: {} });
      })().catch(() => undefined);
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the CLI did not finish; stdout: ${stdout}; stderr: ${stderr}`));
    }, 40_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test("CLI-01: the authorization URL and a flow's failure print as untrusted text (lib/cli/auth.ts)", () => {
  const prompt = authorizationPrompt(`http://127.0.0.1:1/authorize/${ATTACK}?state=s`, 4242);
  assert.equal(
    prompt,
    `Authorization needed. Open this URL in a browser:\n  http://127.0.0.1:1/authorize/${ESCAPED}?state=s\n(waiting for the redirect to 127.0.0.1:4242)`,
  );
  // A long URL is kept whole up to URL_WIDTH; past it, cut with the marker.
  const long = `https://as.example/authorize?${"q".repeat(3000)}`;
  assert.ok(authorizationPrompt(long, 1).includes(long));
  assert.match(authorizationPrompt(`https://as.example/${"p".repeat(URL_WIDTH)}`, 1), /p…\(\+\d+ more\)\n/);
  const failure = authFailure({ message: `[token] expected a token; got invalid_grant: token:${ATTACK}${"x".repeat(3000)}` });
  assert.equal(RAW.exec(failure), null, failure);
  assert.ok(failure.startsWith(`[auth] [token] expected a token; got invalid_grant: token:${ESCAPED}x`), failure);
  assert.match(failure, /x…\(\+\d+ more\)$/);
});

for (const [mode, what] of [
  ["resource", "the protected resource metadata's resource (a resource mismatch)"],
  ["redirect-error", "authorization_endpoint (the URL to open) and the redirect's error_description"],
  ["token-error", "authorization_endpoint and the token endpoint's error_description"],
] as const) {
  test(`CLI-01: \`client <url>\` against a hostile authorization server: ${what} print escaped`, async () => {
    const server = await hostileServer(mode);
    try {
      const run = await runClient(`${server.base}/mcp`);
      const context = `exit ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
      assert.equal(RAW.exec(run.stdout), null, `stdout: a raw character\n${context}`);
      assert.equal(RAW.exec(run.stderr), null, `stderr: a raw character\n${context}`);
      assert.equal(run.code, 2, context);
      assert.match(run.stdout, /^FAIL {2}initialize: /m, context);
      if (mode === "resource") assert.ok(run.stderr.includes(`http://evil.example/${ESCAPED}`), context);
      else {
        assert.ok(run.stderr.includes(`Open this URL in a browser:\n  ${server.base}/authorize/${ESCAPED}?`), context);
        const said = mode === "redirect-error" ? `denied:${ESCAPED}D` : `token:${ESCAPED}`;
        assert.ok(run.stderr.includes(said), context);
      }
      assert.doesNotMatch(run.stdout + run.stderr, /D{2000}/, "the error_description printed uncut");
    } finally {
      await server.close();
    }
  });
}
